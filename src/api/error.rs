//! The shop's errors as the spec's envelopes: the envelope and its writer are the edge's
//! (`arka_edge::error`); what a service's failure answers is the shop's own.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

pub use arka_edge::error::*;

use crate::services;
use crate::services::marketplace::Error as MarketplaceError;

impl From<MarketplaceError> for ApiError {
    fn from(e: MarketplaceError) -> Self {
        use MarketplaceError as E;
        let code = e.code();
        match e {
            E::Unverified => ApiError::marketplace(
                StatusCode::UNAUTHORIZED,
                code,
                "The webhook signature could not be verified.",
            ),
            E::NotEnabled => ApiError::marketplace(
                StatusCode::FORBIDDEN,
                code,
                "The company has no marketplace add-on; its owner can enable it.",
            ),
            E::Forbidden(message) => ApiError::marketplace(StatusCode::FORBIDDEN, code, message),
            E::NoVenue => ApiError::marketplace(
                StatusCode::FORBIDDEN,
                code,
                "The company has no single active Wolt venue; its owner can set one.",
            ),
            E::OrderNotFound => {
                ApiError::marketplace(StatusCode::NOT_FOUND, code, "No such order for this venue.")
            }
            E::NotFound(message) => ApiError::marketplace(StatusCode::NOT_FOUND, code, message),
            E::InvalidTransition(message) => ApiError::marketplace(StatusCode::CONFLICT, code, message),
            E::InvalidData(errors) => ApiError::Validation(errors).into_marketplace(),
            E::ActionFailed { message, .. } => {
                ApiError::marketplace(StatusCode::UNPROCESSABLE_ENTITY, code, message)
            }
            E::Upstream(message) => ApiError::marketplace(StatusCode::BAD_GATEWAY, code, message),
            E::KeyRequired => ApiError::marketplace(
                StatusCode::BAD_REQUEST,
                code,
                "The Idempotency-Key header is required.",
            ),
            E::KeyInProgress => ApiError::marketplace(
                StatusCode::CONFLICT,
                code,
                "A call with this Idempotency-Key is still in progress; retry it in a moment.",
            ),
            E::Internal(cause) => {
                tracing::error!(error = %crate::error_chain(&cause), "marketplace request failed");
                ApiError::marketplace(StatusCode::INTERNAL_SERVER_ERROR, code, "Server Error")
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
            E::Clash(clash) => ApiError::status(StatusCode::CONFLICT, clash.to_string()),
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
