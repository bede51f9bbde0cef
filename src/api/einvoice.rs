//! E-invoices: the issue (v1 and v2, the non-cash body with `doc_type` and `process`) and the
//! platform's PDF of an e-invoice by its EIC.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde_json::json;

use super::AppState;
use super::auth::Auth;
use super::error::ApiResult;
use super::extract::{Body, Version};
use super::invoices::{IssueBody, host, issue_request, issue_result};
use crate::domain::document::{ApiVersion, DocumentKind};
use crate::services::invoices::einvoice::EinvoiceIssued;
use arka_edge::reports::pdf_answer;

/// What the POS reads when the invoice is issued but the platform has not registered it yet.
const QUEUED: &str = "The invoice was fiscalized (fic) but the e-invoice platform did not answer: its registration is queued and retried automatically; the eic follows (read it with details by internalId).";

async fn issue(
    state: AppState,
    auth: Auth,
    headers: HeaderMap,
    body: IssueBody,
    version: ApiVersion,
) -> ApiResult {
    let process = body.process.clone();
    let request = issue_request(body, DocumentKind::NonCash, version)?;
    let issued = state.services.selling().issue_einvoice(&auth.0, request, process).await?;
    let success = if version == ApiVersion::V1 { StatusCode::CREATED } else { StatusCode::OK };
    Ok(match issued {
        EinvoiceIssued::Registered(invoice) => super::error::success(
            success,
            json!({"invoice": issue_result(&state, &invoice, version, host(&headers))}),
        ),
        EinvoiceIssued::Queued(invoice) => super::error::success_noted(
            success,
            QUEUED,
            json!({"invoice": issue_result(&state, &invoice, version, host(&headers))}),
        ),
    })
}

pub async fn issue_einvoice(
    State(s): State<AppState>,
    Version(version): Version,
    auth: Auth,
    h: HeaderMap,
    Body(b): Body<IssueBody>,
) -> ApiResult {
    issue(s, auth, h, b, version).await
}

/// The e-invoice platform's PDF of the e-invoice `eic` (one the company issued or received).
pub async fn print_eic(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(eic): Path<String>,
) -> ApiResult {
    let pdf = state.services.selling().einvoice_pdf(&caller, &eic).await?;
    Ok(pdf_answer(&format!("einvoice-{}.pdf", eic.trim().to_lowercase()), pdf))
}
