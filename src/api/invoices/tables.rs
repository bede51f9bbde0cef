//! A restaurant's table: `POST /invoice/order` opens it, `POST /invoice/summary` pays it (v1
//! and v2).

use axum::extract::State;
use axum::http::HeaderMap;
use rust_decimal::Decimal;
use serde::Deserialize;

use super::super::AppState;
use super::super::auth::Auth;
use super::super::error::{ApiError, ApiResult};
use super::super::extract::{Body, Version};
use super::super::fields;
use super::{IssueBody, host, issue_request, issued_response, payments_input, required_internal_id};
use crate::domain::document::DocumentKind;
use crate::domain::invoice::request::check_order_body;
use crate::domain::payments::{PaymentElementInput, PaymentsInput};
use crate::services::invoices::SummaryRequest;

/// An order's body is a cash body without payment and without an invoice discount
/// (`check_order_body`).
pub async fn order(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Body(body): Body<IssueBody>,
) -> ApiResult {
    let sent = [
        ("invoice_discount_type", body.invoice_discount_type.is_some()),
        ("invoice_discount_value", body.invoice_discount_value.is_some()),
        ("payment_method", body.payment_method.is_some()),
        ("payment_methods", body.payment_methods.is_some()),
        ("company_card", body.company_card.is_some()),
        ("vouchers", body.vouchers.is_some()),
    ];
    check_order_body(&sent).map_err(ApiError::Validation)?;
    let mut request = issue_request(body, DocumentKind::Order, version)?;
    request.rules.payments =
        PaymentsInput::V1 { payment_method: Some("ORDER".to_string()), company_card: None, vouchers: None };
    let issued = state.services.issue_order(&auth.0, request).await?;
    Ok(issued_response(&state, issued, version, host(&headers)))
}

#[derive(Deserialize)]
pub struct SummaryBody {
    #[serde(default, rename = "internalId", deserialize_with = "fields::opt_text")]
    internal_id: Option<String>,
    order_invoices: Option<Vec<String>>,
    currency: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    exchange_rate: Option<Decimal>,
    supply_start_date: Option<String>,
    supply_end_date: Option<String>,
    invoice_discount_type: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    invoice_discount_value: Option<Decimal>,
    payment_method: Option<String>,
    payment_methods: Option<Vec<PaymentElementInput>>,
    company_card: Option<String>,
    vouchers: Option<Vec<String>>,
}

pub async fn summary(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Body(b): Body<SummaryBody>,
) -> ApiResult {
    let internal_id = required_internal_id(b.internal_id, version)?;
    let payments = payments_input(version, b.payment_method, b.company_card, b.vouchers, b.payment_methods);
    let request = SummaryRequest {
        api_version: version,
        internal_id,
        order_invoices: b.order_invoices.unwrap_or_default(),
        currency: b.currency,
        exchange_rate: b.exchange_rate,
        supply_start_date: b.supply_start_date,
        supply_end_date: b.supply_end_date,
        invoice_discount_type: b.invoice_discount_type,
        invoice_discount_value: b.invoice_discount_value,
        payments,
    };
    let issued = state.services.issue_summary(&auth.0, request).await?;
    Ok(issued_response(&state, issued, version, host(&headers)))
}
