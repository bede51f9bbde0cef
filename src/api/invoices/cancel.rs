//! Cancellation, by the service's id or by internalId (v1 and v2): no body (or exactly `{}`)
//! cancels the whole invoice, `lines` part of it, `internalId` names the corrective document
//! (its idempotency key). The answer is the corrective document, 200 whether the CIS registered
//! it or it waits for late delivery (`fic` null).
//!
//! A corrective document moves money and cannot be taken back, so the body is read strictly:
//! any key it does not know (a typo of `lines`, anywhere in it) is 422 naming it, and
//! `lines: null` is not "no lines". Only a body that says nothing cancels everything.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::json;

use super::super::AppState;
use super::super::auth::Auth;
use super::super::error::{ApiError, ApiResult};
use super::super::extract::{Body, PathId, Version};
use super::super::fields;
use super::{host, views};
use crate::domain::cancellation::CancelLineInput;
use crate::domain::client::Patch;
use crate::domain::document::ApiVersion;
use crate::services::invoices::{CancelRequest, Cancelled};
use crate::services::pipeline::Issued;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelBody {
    /// Absent: the whole invoice; null: refused.
    #[serde(default, deserialize_with = "fields::object")]
    lines: Patch<Vec<CancelLineInput>>,
    /// The corrective document's own internalId.
    #[serde(default, rename = "internalId", deserialize_with = "fields::opt_text")]
    internal_id: Option<String>,
}

async fn cancel_with(
    state: AppState,
    auth: Auth,
    headers: HeaderMap,
    invoice: Cancelled,
    body: CancelBody,
    version: ApiVersion,
) -> ApiResult {
    let lines = match body.lines {
        None => None,
        Some(None) => {
            return Err(ApiError::field(
                "lines",
                "The lines field must be a list of lines; to cancel the whole invoice send no body or {}.",
            ));
        }
        Some(Some(lines)) => Some(lines),
    };
    let internal_id = body.internal_id.map(|i| i.trim().to_string());
    let request = CancelRequest { api_version: version, invoice, lines, internal_id };
    let corrective = match state.services.corrections().cancel_invoice(&auth.0, request).await? {
        Issued::Fiscalized(invoice) | Issued::Deferred(invoice) => invoice,
    };
    let data = json!({"invoice": views::issue_result(&state, &corrective, version, host(&headers))});
    Ok(crate::api::error::success(StatusCode::OK, data))
}

pub async fn cancel(
    State(s): State<AppState>,
    Version(version): Version,
    auth: Auth,
    h: HeaderMap,
    PathId(id): PathId,
    Body(b): Body<CancelBody>,
) -> ApiResult {
    cancel_with(s, auth, h, Cancelled::Id(id), b, version).await
}

pub async fn cancel_by_internal_id(
    State(s): State<AppState>,
    Version(version): Version,
    auth: Auth,
    h: HeaderMap,
    Path(internal_id): Path<String>,
    Body(b): Body<CancelBody>,
) -> ApiResult {
    cancel_with(s, auth, h, Cancelled::InternalId(internal_id), b, version).await
}
