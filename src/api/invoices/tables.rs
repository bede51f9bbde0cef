//! A restaurant's table: `POST /invoice/order` opens it, `POST /invoice/summary` pays it, all
//! of it or a guest's lines (v1 and v2), and `GET /api/v2/invoice/open-orders` reads the open
//! tables back for any tablet or POS.

use axum::extract::State;
use axum::http::HeaderMap;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::super::AppState;
use super::super::auth::Auth;
use super::super::error::{ApiError, ApiResult, ok};
use super::super::extract::{Body, Version};
use super::super::fields;
use super::views::local;
use super::{IssueBody, host, issue_request, issued_response, payments_input, required_internal_id};
use crate::domain::document::DocumentKind;
use crate::domain::invoice::request::check_order_body;
use crate::domain::payments::{PaymentElementInput, PaymentsInput};
use crate::domain::table::{LineChoice, part_total};
use crate::services::invoices::{OpenOrder, SummaryRequest};

/// An order's body is a cash body without payment and without an invoice discount
/// (`check_order_body`).
pub async fn order(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Body(mut body): Body<IssueBody>,
) -> ApiResult {
    let table = body.table.take();
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
    let issued = state.services.selling().issue_order(&auth.0, request, table.as_deref()).await?;
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
    order_lines: Option<Vec<LineChoice>>,
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
        order_lines: b.order_lines,
    };
    let issued = state.services.selling().issue_summary(&auth.0, request).await?;
    Ok(issued_response(&state, issued, version, host(&headers)))
}

/// One line of an open order: what it holds, what summaries paid of it, what is left.
#[derive(Serialize)]
struct OpenLineView<'a> {
    line: usize,
    product_name: &'a str,
    product_code: &'a str,
    unit: &'a str,
    quantity: Decimal,
    paid: Decimal,
    left: Decimal,
    #[serde(rename = "unitPrice")]
    unit_price: Decimal,
    discount_rate: Decimal,
    vat: Decimal,
    vat_exempt_type: Option<&'a str>,
    total: Decimal,
    /// What is left of the line comes to, with VAT, after its discount.
    left_total: Decimal,
}

#[derive(Serialize)]
struct OpenAmount {
    gross: Decimal,
    left: Decimal,
}

/// An open order as `GET /api/v2/invoice/open-orders` lists it.
#[derive(Serialize)]
struct OpenOrderView<'a> {
    id: i64,
    number: &'a str,
    #[serde(rename = "internalId")]
    internal_id: &'a str,
    iic: &'a str,
    fic: Option<&'a str>,
    table: Option<&'a str>,
    #[serde(rename = "tcrCode")]
    tcr_code: Option<&'a str>,
    #[serde(rename = "operatorCode")]
    operator_code: Option<&'a str>,
    created_at: String,
    currency: &'a str,
    amount: OpenAmount,
    lines: Vec<OpenLineView<'a>>,
}

fn open_order_view(open: &OpenOrder) -> OpenOrderView<'_> {
    let o = &open.order;
    let lines: Vec<OpenLineView> = o
        .lines
        .iter()
        .zip(open.lines())
        .enumerate()
        .map(|(line, (l, state))| OpenLineView {
            line,
            product_name: &l.product_name,
            product_code: &l.product_code,
            unit: &l.unit,
            quantity: l.quantity,
            paid: l.quantity - state.left,
            left: state.left,
            unit_price: l.price,
            discount_rate: l.discount_rate,
            vat: l.vat_rate,
            vat_exempt_type: l.exemption.as_deref(),
            total: l.total,
            left_total: if state.left == l.quantity {
                l.total
            } else {
                part_total(l.price, state.left, l.discount_rate)
            },
        })
        .collect();
    OpenOrderView {
        id: o.id,
        number: &o.number,
        internal_id: &o.internal_id,
        iic: &o.iic,
        fic: o.fic.as_deref(),
        table: open.table.as_deref(),
        tcr_code: o.tcr_code.as_deref(),
        operator_code: o.operator_code.as_deref(),
        created_at: local(&o.issued_at),
        currency: &o.currency,
        amount: OpenAmount { gross: o.totals.total, left: lines.iter().map(|l| l.left_total).sum() },
        lines,
    }
}

/// `GET /api/v2/invoice/open-orders`: the orders no summary paid in full, oldest first, with
/// their tables and what is left of each line (a cashier: their till's; a manager or an owner:
/// every till's).
pub async fn open_orders(State(state): State<AppState>, auth: Auth) -> ApiResult {
    let open = state.services.selling().open_orders_of(&auth.0).await?;
    let items: Vec<OpenOrderView> = open.iter().map(open_order_view).collect();
    ok(serde_json::json!({ "items": items }))
}
