//! Invoices: cash and non-cash issue (v1 and v2), list, details, details by internalId, print;
//! orders and summaries (`tables`), cancellations (`cancel`), bulk non-cash (`bulk`).
//! v1 and v2 are two readings of one body and two renderings of one invoice (`views`): the
//! payment is `payment_method` in v1 and the `payment_methods` list in v2; everything else is
//! shared.

mod bulk;
mod cancel;
mod tables;
pub mod views;

pub use bulk::bulk_noncash;
pub use cancel::{cancel, cancel_by_internal_id};
pub use tables::{open_orders, order, summary};
pub(super) use views::issue_result;
// The list's query is one model with the head office's (`arka_edge::list`).
pub use arka_edge::list::{ListQuery, list_date};

use arka_edge::reports::pdf_answer;
use axum::extract::{Path, State};
use axum::http::header::HOST;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::{Body, PathId, Query, Version};
use super::fields;
use crate::domain::document::{ApiVersion, DocumentKind, ListedType};
use crate::domain::invoice::request::{BodyRefusal, SentBody, check_body, sent_internal_id};
use crate::domain::invoice::{InvoiceInput, IssueTexts, LineInput};
use crate::domain::payments::{PaymentElementInput, PaymentsInput};
use crate::domain::spelled::Spelled;
use crate::domain::validation::INTERNAL_ID_REQUIRED;
use crate::services::invoices::{ClientInput, IssueRequest};
use crate::services::locks::LOCK_WAIT;
use crate::services::pipeline::Issued;
use crate::store::invoices::{Invoice, ListFilter};

#[derive(Deserialize)]
pub struct IssueBody {
    #[serde(default, rename = "internalId", deserialize_with = "fields::opt_text")]
    internal_id: Option<String>,
    client: Option<ClientInput>,
    lines: Option<Vec<LineInput>>,
    payment_method: Option<String>,
    company_card: Option<String>,
    vouchers: Option<Vec<String>>,
    payment_methods: Option<Vec<PaymentElementInput>>,
    invoice_discount_type: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    invoice_discount_value: Option<Decimal>,
    currency: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    exchange_rate: Option<Decimal>,
    due_date: Option<String>,
    supply_start_date: Option<String>,
    supply_end_date: Option<String>,
    reverse_charge: Option<bool>,
    notes: Option<String>,
    periodic_invoice: Option<bool>,
    self_issue_type: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    fee: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_text")]
    doc_type: Option<String>,
    original_invoice_iic: Option<String>,
    bank_account_id: Option<i64>,
    wtn_id: Option<i64>,
    /// The table an order is taken for; not read on other invoices.
    #[serde(default, deserialize_with = "fields::opt_text")]
    pub(super) table: Option<String>,
    /// An e-invoice's UBL profile (P1..P12); not read on other invoices.
    #[serde(default, deserialize_with = "fields::opt_text")]
    pub(super) process: Option<String>,
}

/// A body refused before anything is looked up: a missing internalId is answered by v2 in the
/// standard envelope, by v1 as validation.
fn body_refusal(refusal: BodyRefusal, version: ApiVersion) -> ApiError {
    match refusal {
        BodyRefusal::NoInternalId if version == ApiVersion::V2 => {
            ApiError::status(StatusCode::UNPROCESSABLE_ENTITY, INTERNAL_ID_REQUIRED)
        }
        BodyRefusal::NoInternalId => ApiError::field("internalId", INTERNAL_ID_REQUIRED),
        BodyRefusal::Invalid(errors) => ApiError::Validation(errors),
    }
}

/// The internalId of a body, trimmed (`body_refusal` when missing or blank).
fn required_internal_id(sent: Option<String>, version: ApiVersion) -> Result<String, ApiError> {
    sent_internal_id(sent.as_deref()).ok_or_else(|| body_refusal(BodyRefusal::NoInternalId, version))
}

/// Reads an issue body as v1 or v2 into the one request the service knows.
pub(super) fn issue_request(
    b: IssueBody,
    kind: DocumentKind,
    version: ApiVersion,
) -> Result<IssueRequest, ApiError> {
    let sent = SentBody {
        internal_id: b.internal_id.as_deref(),
        lines: b.lines.as_deref(),
        fee: b.fee,
        texts: IssueTexts {
            notes: b.notes.as_deref(),
            client_name: b.client.as_ref().and_then(|c| c.name.as_deref()),
            client_id: b.client.as_ref().and_then(|c| c.id_value.as_deref()),
            client_address: b.client.as_ref().and_then(|c| c.address.as_deref()),
            client_city: b.client.as_ref().and_then(|c| c.city.as_deref()),
            doc_type: b.doc_type.as_deref(),
            original_invoice_iic: b.original_invoice_iic.as_deref(),
        },
    };
    let internal_id = check_body(kind, &sent).map_err(|r| body_refusal(r, version))?;
    let lines = b.lines.unwrap_or_default();
    let payments = payments_input(version, b.payment_method, b.company_card, b.vouchers, b.payment_methods);
    Ok(IssueRequest {
        kind,
        api_version: version,
        internal_id,
        client: b.client,
        rules: InvoiceInput {
            lines,
            issuer_in_vat: true,
            invoice_discount_type: b.invoice_discount_type,
            invoice_discount_value: b.invoice_discount_value,
            fee: b.fee,
            exchange_rate: b.exchange_rate,
            payments,
        },
        currency: b.currency,
        due_date: b.due_date,
        supply_start_date: b.supply_start_date,
        supply_end_date: b.supply_end_date,
        reverse_charge: b.reverse_charge.unwrap_or(false),
        periodic_invoice: b.periodic_invoice.unwrap_or(false),
        notes: b.notes,
        self_issue_type: b.self_issue_type.map(|s| s.trim().to_uppercase()).filter(|s| !s.is_empty()),
        doc_type: b.doc_type,
        original_invoice_iic: b.original_invoice_iic,
        bank_account_id: b.bank_account_id,
        wtn_id: b.wtn_id,
    })
}

/// The payment fields of a body, as v1 (`payment_method`) or v2 (`payment_methods`) reads them.
fn payments_input(
    version: ApiVersion,
    payment_method: Option<String>,
    company_card: Option<String>,
    vouchers: Option<Vec<String>>,
    payment_methods: Option<Vec<PaymentElementInput>>,
) -> PaymentsInput {
    if version == ApiVersion::V1 {
        return PaymentsInput::V1 { payment_method, company_card, vouchers };
    }
    PaymentsInput::V2 { payment_methods, payment_method, company_card, vouchers }
}

pub(super) fn host(headers: &HeaderMap) -> Option<&str> {
    headers.get(HOST).and_then(|h| h.to_str().ok())
}

async fn issue(
    state: AppState,
    auth: Auth,
    headers: HeaderMap,
    body: IssueBody,
    kind: DocumentKind,
    version: ApiVersion,
) -> ApiResult {
    let request = issue_request(body, kind, version)?;
    let issued = state.services.selling().issue_invoice(&auth.0, request).await?;
    Ok(issued_response(&state, issued, version, host(&headers)))
}

/// An issue's answer: v1 201, v2 200 with `data.invoice`; saved for late delivery, 503 with it
/// all the same, so the POS can print it.
fn issued_response(
    state: &AppState,
    issued: Issued<Invoice>,
    version: ApiVersion,
    host: Option<&str>,
) -> Response {
    match issued {
        Issued::Fiscalized(invoice) => {
            let status = if version == ApiVersion::V1 { StatusCode::CREATED } else { StatusCode::OK };
            let data = json!({"invoice": views::issue_result(state, &invoice, version, host)});
            super::error::success(status, data)
        }
        Issued::Deferred(invoice) => {
            let data = json!({"invoice": views::issue_result(state, &invoice, version, host)});
            ApiError::deferred(data).into_response()
        }
    }
}

pub async fn cash(
    State(s): State<AppState>,
    Version(version): Version,
    auth: Auth,
    h: HeaderMap,
    Body(b): Body<IssueBody>,
) -> ApiResult {
    issue(s, auth, h, b, DocumentKind::Cash, version).await
}

pub async fn noncash(
    State(s): State<AppState>,
    Version(version): Version,
    auth: Auth,
    h: HeaderMap,
    Body(b): Body<IssueBody>,
) -> ApiResult {
    issue(s, auth, h, b, DocumentKind::NonCash, version).await
}

/// The spec serializes reads of the list and details per token (1 s, then 429).
async fn per_token_lock(state: &AppState, auth: &Auth) -> Result<tokio::sync::OwnedMutexGuard<()>, ApiError> {
    state.services.locks.acquire(&format!("read:{}", auth.0.user.id), LOCK_WAIT).await.ok_or_else(|| {
        ApiError::status(StatusCode::TOO_MANY_REQUESTS, "Another read of this token is running; try again.")
    })
}

pub async fn list(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Query(q): Query<ListQuery>,
) -> ApiResult {
    let page = q.read()?;
    let kinds: Vec<ListedType> =
        q.kind.as_deref().unwrap_or("").split(',').filter_map(ListedType::parse_any_case).collect();
    let (limit, offset) = (page.limit, page.offset);
    let filter = ListFilter {
        kinds: kinds.clone(),
        from_date: page.from_date,
        to_date: page.to_date,
        query: page.search,
        limit,
        offset,
        own: None,
    };
    let _guard = per_token_lock(&state, &auth).await?;
    let invoices = state.services.selling().list_invoices(&auth.0, filter).await?;
    let items: Vec<views::ListItem> =
        invoices.iter().map(|i| views::list_item(&state, i, version, host(&headers))).collect();
    ok(json!({
        "items": items,
        "pagination": {
            "records": items.len(),
            "limit": limit,
            "offset": offset,
            "type": if kinds.is_empty() {
                Value::Null
            } else {
                json!(kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(","))
            },
            "query": q.query,
        },
    }))
}

pub async fn details(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    PathId(id): PathId,
) -> ApiResult {
    let _guard = per_token_lock(&state, &auth).await?;
    let invoice = state.services.selling().invoice(&auth.0, id).await?;
    ok(json!({"invoice": views::details(&state, &invoice, version, host(&headers))}))
}

pub async fn by_internal_id(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Path(internal_id): Path<String>,
) -> ApiResult {
    let invoice = state.services.selling().invoice_by_internal_id(&auth.0, &internal_id).await?;
    ok(json!({"invoice": views::issue_result(&state, &invoice, version, host(&headers))}))
}

#[derive(Deserialize)]
pub struct PrintQuery {
    format: Option<String>,
}

/// The invoice as a PDF: A4 by default, an 80 mm receipt with `?format=receipt`.
pub async fn print(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Query(q): Query<PrintQuery>,
) -> ApiResult {
    let layout = match q.format.as_deref().map(str::trim) {
        None | Some("") | Some("a4") | Some("A4") => crate::print::Layout::A4,
        Some("receipt") => crate::print::Layout::Receipt80mm,
        Some(_) => return Err(ApiError::field("format", "The format must be a4 or receipt.")),
    };
    let pdf = state.services.selling().invoice_pdf(&caller, id, layout).await?;
    Ok(pdf_answer(&format!("invoice-{id}.pdf"), pdf))
}
