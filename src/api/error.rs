//! The spec's envelopes. Handlers return `ApiResult`; only this file writes error JSON.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};

use crate::domain::validation::FieldErrors;
use crate::services;
use crate::services::marketplace::Error as MarketplaceError;

/// Where the marketplace's partner API lives: every answer under it speaks its envelope, the
/// refusals of authentication too (so `auth` asks here, not the marketplace's routes).
pub const MARKETPLACE_PREFIX: &str = "/api/partner/v1/marketplace";

/// The one summary line of every validation failure.
pub const VALIDATION_MESSAGE: &str = "The given data was invalid.";

#[derive(Debug)]
pub enum ApiError {
    /// 422 `{success:false, message, errors:{field:[...]}}`
    Validation(FieldErrors),
    /// 401 `{message}`
    Unauthenticated,
    /// 429 from the general limiter or a group budget: `{message}` with rate headers.
    Throttled { limit: u32, retry_after: Duration },
    /// Any status with the standard error envelope `{status:false, message, errors?}`.
    Status { status: StatusCode, message: String, errors: Option<Vec<String>> },
    /// The marketplace envelope `{status:false, message, code}`; `errors` (by field, dotted
    /// keys) on `invalid_data`, `Retry-After` on a 429.
    Marketplace {
        status: StatusCode,
        code: &'static str,
        message: String,
        errors: Option<FieldErrors>,
        retry_after: Option<Duration>,
    },
    /// 503 `{status:false, message, data}`: saved, and fiscalized later by the queue.
    Deferred { data: Value },
}

/// The message of a document saved for late delivery.
pub const DEFERRED_MESSAGE: &str = "The fiscalization service (CIS) is not reachable. The invoice was saved and will be fiscalized automatically (subsequent delivery).";

pub type ApiResult = Result<Response, ApiError>;

impl ApiError {
    pub fn status(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError::Status { status, message: message.into(), errors: None }
    }

    /// HTTP 200 with `status:false`: the spec's soft failures.
    pub fn soft(message: impl Into<String>) -> Self {
        Self::status(StatusCode::OK, message)
    }

    pub fn not_found(what: &str) -> Self {
        Self::status(StatusCode::NOT_FOUND, format!("{what} not found."))
    }

    pub fn field(field: &str, message: impl Into<String>) -> Self {
        ApiError::Validation(FieldErrors::one(field, message))
    }

    /// 503 for a document saved for late delivery, with the document in `data` so the POS can
    /// print it.
    pub fn deferred(data: Value) -> Self {
        ApiError::Deferred { data }
    }

    /// An endpoint's own interval: 429 in the standard envelope, without rate headers.
    pub fn too_soon(retry_after: Duration) -> Self {
        Self::status(
            StatusCode::TOO_MANY_REQUESTS,
            format!("Too many requests. Try again in {} seconds.", whole_seconds(retry_after)),
        )
    }
}

impl ApiError {
    fn marketplace(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Marketplace { status, code, message: message.into(), errors: None, retry_after: None }
    }

    /// The same failure in the marketplace's envelope (every error of `/api/partner/v1/marketplace`).
    pub fn into_marketplace(self) -> ApiError {
        match self {
            ApiError::Validation(errors) => {
                let message = errors
                    .clone()
                    .into_map()
                    .into_iter()
                    .next()
                    .and_then(|(_, messages)| messages.into_iter().next())
                    .unwrap_or_else(|| VALIDATION_MESSAGE.to_string());
                ApiError::Marketplace {
                    status: StatusCode::UNPROCESSABLE_ENTITY,
                    code: "invalid_data",
                    message,
                    errors: Some(errors),
                    retry_after: None,
                }
            }
            ApiError::Unauthenticated => {
                Self::marketplace(StatusCode::UNAUTHORIZED, "unauthenticated", "Unauthenticated.")
            }
            ApiError::Throttled { retry_after, .. } => ApiError::Marketplace {
                status: StatusCode::TOO_MANY_REQUESTS,
                code: "rate_limited",
                message: format!(
                    "Too many requests. Try again in {} seconds.",
                    whole_seconds(retry_after).max(1)
                ),
                errors: None,
                retry_after: Some(retry_after),
            },
            ApiError::Status { status, message, .. } => {
                let code = match status {
                    StatusCode::NOT_FOUND => "not_found",
                    StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
                    StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE => "invalid_data",
                    StatusCode::UNAUTHORIZED => "unauthenticated",
                    StatusCode::FORBIDDEN => "forbidden",
                    StatusCode::TOO_MANY_REQUESTS => "rate_limited",
                    _ => "internal_error",
                };
                Self::marketplace(status, code, message)
            }
            ApiError::Deferred { .. } => {
                Self::marketplace(StatusCode::SERVICE_UNAVAILABLE, "internal_error", DEFERRED_MESSAGE)
            }
            marketplace @ ApiError::Marketplace { .. } => marketplace,
        }
    }
}

impl From<MarketplaceError> for ApiError {
    fn from(e: MarketplaceError) -> Self {
        use MarketplaceError as E;
        let code = e.code();
        match e {
            E::Unverified => Self::marketplace(
                StatusCode::UNAUTHORIZED,
                code,
                "The webhook signature could not be verified.",
            ),
            E::NotEnabled => Self::marketplace(
                StatusCode::FORBIDDEN,
                code,
                "The company has no marketplace add-on; its owner can enable it.",
            ),
            E::Forbidden(message) => Self::marketplace(StatusCode::FORBIDDEN, code, message),
            E::NoVenue => Self::marketplace(
                StatusCode::FORBIDDEN,
                code,
                "The company has no single active Wolt venue; its owner can set one.",
            ),
            E::OrderNotFound => {
                Self::marketplace(StatusCode::NOT_FOUND, code, "No such order for this venue.")
            }
            E::NotFound(message) => Self::marketplace(StatusCode::NOT_FOUND, code, message),
            E::InvalidTransition(message) => Self::marketplace(StatusCode::CONFLICT, code, message),
            E::InvalidData(errors) => ApiError::Validation(errors).into_marketplace(),
            E::ActionFailed { message, .. } => {
                Self::marketplace(StatusCode::UNPROCESSABLE_ENTITY, code, message)
            }
            E::Upstream(message) => Self::marketplace(StatusCode::BAD_GATEWAY, code, message),
            E::KeyRequired => {
                Self::marketplace(StatusCode::BAD_REQUEST, code, "The Idempotency-Key header is required.")
            }
            E::KeyInProgress => Self::marketplace(
                StatusCode::CONFLICT,
                code,
                "A call with this Idempotency-Key is still in progress; retry it in a moment.",
            ),
            E::Internal(cause) => {
                tracing::error!(error = %crate::error_chain(&cause), "marketplace request failed");
                Self::marketplace(StatusCode::INTERNAL_SERVER_ERROR, code, "Server Error")
            }
        }
    }
}

/// A marketplace handler's error: any failure, answered in the marketplace envelope.
#[derive(Debug)]
pub struct MarketplaceFailure(pub ApiError);

impl<E: Into<ApiError>> From<E> for MarketplaceFailure {
    fn from(e: E) -> Self {
        MarketplaceFailure(e.into())
    }
}

impl IntoResponse for MarketplaceFailure {
    fn into_response(self) -> Response {
        self.0.into_marketplace().into_response()
    }
}

/// The HTTP status and JSON body of a marketplace failure, for answers kept under an
/// Idempotency-Key.
pub fn marketplace_parts(e: impl Into<ApiError>) -> (StatusCode, Value) {
    match e.into().into_marketplace() {
        ApiError::Marketplace { status, code, message, errors, .. } => {
            (status, marketplace_body(code, message, errors))
        }
        // into_marketplace answers only Marketplace; a new variant would land here.
        _ => (
            StatusCode::INTERNAL_SERVER_ERROR,
            marketplace_body("internal_error", "Server Error".into(), None),
        ),
    }
}

fn marketplace_body(code: &str, message: String, errors: Option<FieldErrors>) -> Value {
    let mut body = json!({"status": false, "message": message, "code": code});
    if let Some(errors) = errors {
        body["errors"] = json!(errors.into_map());
    }
    body
}

/// The success envelope `{status:true[, message], data[, beside's fields]}`: every answer that
/// succeeds is written through this one shape.
#[derive(Serialize)]
struct Success<'m, T, B> {
    status: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'m str>,
    data: T,
    #[serde(flatten)]
    beside: B,
}

/// No top-level keys beside `status` and `data`.
#[derive(Serialize)]
struct NothingBeside {}

/// `{status:true, data}` as JSON.
pub fn success_body<T: Serialize>(data: T) -> Value {
    json!(Success { status: true, message: None, data, beside: NothingBeside {} })
}

/// `{status:true, data}` answered with `status`.
pub fn success<T: Serialize>(status: StatusCode, data: T) -> Response {
    (status, Json(Success { status: true, message: None, data, beside: NothingBeside {} })).into_response()
}

/// `{status:true, message, data}` answered with `status`: a success with a word for the POS (a
/// document saved for late delivery).
pub fn success_noted<T: Serialize>(status: StatusCode, message: &str, data: T) -> Response {
    (status, Json(Success { status: true, message: Some(message), data, beside: NothingBeside {} }))
        .into_response()
}

fn whole_seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

impl ApiError {
    /// The status and the body of the envelope, for the answers that nest envelopes (bulk).
    pub fn envelope(self) -> (StatusCode, Value) {
        match self {
            ApiError::Validation(errors) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({"success": false, "message": VALIDATION_MESSAGE, "errors": errors.into_map()}),
            ),
            ApiError::Unauthenticated => (StatusCode::UNAUTHORIZED, json!({"message": "Unauthenticated."})),
            ApiError::Throttled { .. } => {
                (StatusCode::TOO_MANY_REQUESTS, json!({"message": "Too Many Attempts."}))
            }
            ApiError::Status { status, message, errors } => {
                let mut body = json!({"status": false, "message": message});
                if let Some(errors) = errors {
                    body["errors"] = json!(errors);
                }
                (status, body)
            }
            ApiError::Deferred { data } => (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": false, "message": DEFERRED_MESSAGE, "data": data}),
            ),
            ApiError::Marketplace { status, code, message, errors, .. } => {
                (status, marketplace_body(code, message, errors))
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Throttled { limit, retry_after } => {
                let mut response =
                    (StatusCode::TOO_MANY_REQUESTS, Json(json!({"message": "Too Many Attempts."})))
                        .into_response();
                let headers = response.headers_mut();
                headers.insert(header::RETRY_AFTER, HeaderValue::from(whole_seconds(retry_after).max(1)));
                headers.insert("x-ratelimit-limit", HeaderValue::from(limit));
                headers.insert("x-ratelimit-remaining", HeaderValue::from(0u32));
                response
            }
            ApiError::Marketplace { status, code, message, errors, retry_after } => {
                let mut response = (status, Json(marketplace_body(code, message, errors))).into_response();
                if let Some(wait) = retry_after {
                    response
                        .headers_mut()
                        .insert(header::RETRY_AFTER, HeaderValue::from(whole_seconds(wait).max(1)));
                }
                response
            }
            other => {
                let (status, body) = other.envelope();
                (status, Json(body)).into_response()
            }
        }
    }
}

impl From<services::Error> for ApiError {
    fn from(e: services::Error) -> Self {
        use services::Error as E;
        match e {
            E::Invalid(errors) => ApiError::Validation(errors),
            E::NotFound(what) => ApiError::not_found(&what),
            E::Refused(message) => ApiError::soft(message),
            E::Conflict(message) => ApiError::status(StatusCode::CONFLICT, message),
            E::Taken { field, message } => ApiError::Status {
                status: StatusCode::CONFLICT,
                errors: Some(vec![format!("{field}: {message}")]),
                message,
            },
            E::Incomplete { message, errors } => {
                ApiError::Status { status: StatusCode::BAD_REQUEST, message, errors: Some(errors) }
            }
            E::Busy(held) => ApiError::status(StatusCode::TOO_MANY_REQUESTS, held.to_string()),
            E::Forbidden(rule) => ApiError::status(StatusCode::FORBIDDEN, rule.to_string()),
            E::Unavailable(missing) => ApiError::status(StatusCode::SERVICE_UNAVAILABLE, missing.to_string()),
            // Every other error is a failure here or underneath, not an answer about the request.
            internal => {
                // What failed underneath, cause by cause, for the log alone: the POS reads the
                // spec's message.
                tracing::error!(error = %crate::error_chain(&internal), "request failed");
                ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
            }
        }
    }
}

/// A panic in a handler, caught by the router's outermost layer: logged, and answered 500 in the
/// standard envelope for that request alone; the server keeps serving everyone else.
pub fn panic_answer(payload: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!(panic = %crate::panics::text(payload.as_ref()), "a request panicked");
    ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error").into_response()
}

/// 200 `{status:true, data}`
pub fn ok<T: Serialize>(data: T) -> ApiResult {
    Ok(success(StatusCode::OK, data))
}

/// 201 `{status:true, data}`
pub fn created<T: Serialize>(data: T) -> ApiResult {
    Ok(success(StatusCode::CREATED, data))
}

/// `{status:true, data}` with `beside`'s fields as extra top-level keys (the product list's
/// pagination).
pub fn ok_with<T: Serialize, B: Serialize>(data: T, beside: B) -> ApiResult {
    Ok((StatusCode::OK, Json(Success { status: true, message: None, data, beside })).into_response())
}
