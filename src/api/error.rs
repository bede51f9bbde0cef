//! The spec's envelopes. Handlers return `ApiResult`; only this file writes error JSON.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};

use crate::domain::validation::FieldErrors;
use crate::services;

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
            E::Incomplete { message, errors } => {
                ApiError::Status { status: StatusCode::BAD_REQUEST, message, errors: Some(errors) }
            }
            E::Busy(message) => ApiError::status(StatusCode::TOO_MANY_REQUESTS, message),
            E::Forbidden(message) => ApiError::status(StatusCode::FORBIDDEN, message),
            E::Unavailable(message) => ApiError::status(StatusCode::SERVICE_UNAVAILABLE, message),
            E::Internal(cause) => {
                tracing::error!(%cause, "request failed");
                ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
            }
        }
    }
}

/// 200 `{status:true, data}`
pub fn ok<T: Serialize>(data: T) -> ApiResult {
    Ok((StatusCode::OK, Json(json!({"status": true, "data": data}))).into_response())
}

/// 201 `{status:true, data}`
pub fn created<T: Serialize>(data: T) -> ApiResult {
    Ok((StatusCode::CREATED, Json(json!({"status": true, "data": data}))).into_response())
}

/// `{status:true, data}` with extra top-level keys beside `data` (the product list's pagination).
pub fn ok_with(data: Value, beside: Value) -> ApiResult {
    let mut body = json!({"status": true, "data": data});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), beside.as_object()) {
        for (k, v) in extra {
            body.insert(k.clone(), v.clone());
        }
    }
    Ok((StatusCode::OK, Json(body)).into_response())
}
