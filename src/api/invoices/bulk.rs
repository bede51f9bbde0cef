//! `POST /invoice/bulk-noncash` (v1 and v2): many non-cash invoices in one call. Each goes
//! through the pipeline on its own (the lock taken and released per invoice), in the order
//! sent; the answer is 200 with one entry per internalId, each the envelope that invoice alone
//! would have received, so a bad entry never stops the good ones.

use axum::extract::State;
use axum::http::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::super::AppState;
use super::super::auth::Auth;
use super::super::error::{ApiError, ApiResult, ok};
use super::super::extract::{Body, Version, parse_value};
use super::{IssueBody, host, issue_request, views};
use crate::domain::document::{ApiVersion, DocumentKind};
use crate::services::pipeline::Issued;

/// The most invoices one call takes; more is 422 on `invoices`.
pub const MAX_BULK_INVOICES: usize = 100;

#[derive(Deserialize)]
pub struct BulkBody {
    invoices: Option<Vec<Value>>,
}

/// The internalId an entry is answered under, as the issue would read it.
fn internal_id_of(entry: &Value) -> Option<String> {
    let id = match entry.get("internalId")? {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    (!id.is_empty()).then_some(id)
}

async fn one(
    state: &AppState,
    auth: &Auth,
    headers: &HeaderMap,
    entry: Value,
    version: ApiVersion,
) -> Result<Value, ApiError> {
    let body: IssueBody = parse_value(entry)?;
    let request = issue_request(body, DocumentKind::NonCash, version)?;
    match state.services.selling().issue_invoice(&auth.0, request).await? {
        Issued::Fiscalized(invoice) => {
            let data = json!({"invoice": views::issue_result(state, &invoice, version, host(headers))});
            Ok(crate::api::error::success_body(data))
        }
        Issued::Deferred(invoice) => Err(ApiError::deferred(
            json!({"invoice": views::issue_result(state, &invoice, version, host(headers))}),
        )),
    }
}

pub async fn bulk_noncash(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Body(body): Body<BulkBody>,
) -> ApiResult {
    let entries = body.invoices.unwrap_or_default();
    if entries.is_empty() {
        return Err(ApiError::field("invoices", "The invoices field must hold at least one invoice."));
    }
    if entries.len() > MAX_BULK_INVOICES {
        return Err(ApiError::field(
            "invoices",
            format!("One call takes at most {MAX_BULK_INVOICES} invoices; send the others in another call."),
        ));
    }
    let mut answers = Map::new();
    for (index, entry) in entries.into_iter().enumerate() {
        // An entry without internalId, or repeating one of this call, is answered under its
        // place in the list.
        let (key, repeated) = match internal_id_of(&entry) {
            Some(id) if answers.contains_key(&id) => (format!("invoices.{index}"), true),
            Some(id) => (id, false),
            None => (format!("invoices.{index}"), false),
        };
        let answer = if repeated {
            Err(ApiError::status(
                axum::http::StatusCode::CONFLICT,
                "This internalId repeats an earlier invoice of this call.",
            ))
        } else {
            one(&state, &auth, &headers, entry, version).await
        };
        answers.insert(key, answer.unwrap_or_else(|e| e.envelope().1));
    }
    ok(Value::Object(answers))
}
