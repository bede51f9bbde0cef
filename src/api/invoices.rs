//! Invoices: cash and non-cash issue (v1 and v2), list, details, details by internalId.
//! v1 and v2 are two readings of one body and two renderings of one invoice: the payment is
//! `payment_method` in v1 and the `payment_methods` list in v2; everything else is shared.

use axum::Json;
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
use super::extract::{Body, PathId, Query, search_query};
use super::fields;
use crate::domain::document::InvoiceType;
use crate::domain::invoice::{InvoiceInput, IssueTexts, LineInput, check_texts};
use crate::domain::payments::{PaymentElementInput, PaymentsInput};
use crate::domain::time::{local_text, parse_stored};
use crate::services::invoices::{ClientInput, IssueRequest};
use crate::services::locks::LOCK_WAIT;
use crate::services::pipeline::Issued;
use crate::store::invoices::{Invoice, ListFilter};

#[derive(Deserialize)]
pub struct LineBody {
    product_name: Option<String>,
    product_code: Option<String>,
    unit: Option<String>,
    unit_code: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    quantity: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    price: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    total: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    discount: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    vat: Option<Decimal>,
    vat_exempt_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub enum ClientIdBody {
    Object {
        #[serde(default, deserialize_with = "fields::opt_text")]
        id: Option<String>,
        #[serde(rename = "type")]
        kind: Option<String>,
    },
    Text(String),
}

#[derive(Deserialize)]
pub struct ClientBody {
    internal_id: Option<i64>,
    name: Option<String>,
    id: Option<ClientIdBody>,
    address: Option<String>,
    city: Option<String>,
    country: Option<String>,
}

#[derive(Deserialize)]
pub struct PaymentBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    amount: Option<Decimal>,
    company_card: Option<String>,
    vouchers: Option<Vec<String>>,
}

#[derive(Deserialize)]
pub struct IssueBody {
    #[serde(default, rename = "internalId", deserialize_with = "fields::opt_text")]
    internal_id: Option<String>,
    client: Option<ClientBody>,
    lines: Option<Vec<LineBody>>,
    payment_method: Option<String>,
    company_card: Option<String>,
    vouchers: Option<Vec<String>>,
    payment_methods: Option<Vec<PaymentBody>>,
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
}

fn client_input(c: ClientBody) -> ClientInput {
    let (id_value, id_type) = match c.id {
        Some(ClientIdBody::Object { id, kind }) => (id, kind),
        Some(ClientIdBody::Text(t)) => (Some(t), None),
        None => (None, None),
    };
    ClientInput {
        internal_id: c.internal_id,
        name: c.name,
        id_type,
        id_value,
        address: c.address,
        city: c.city,
        country: c.country,
    }
}

/// Reads an issue body as v1 or v2 into the one request the service knows.
fn issue_request(b: IssueBody, kind: InvoiceType, version: i64) -> Result<IssueRequest, ApiError> {
    let internal_id = b.internal_id.map(|i| i.trim().to_string()).filter(|i| !i.is_empty());
    let Some(internal_id) = internal_id else {
        // v2 answers a missing internalId in the standard error envelope, v1 as validation.
        return Err(if version == 2 {
            ApiError::status(StatusCode::UNPROCESSABLE_ENTITY, "The internalId field is required.")
        } else {
            ApiError::field("internalId", "The internalId field is required.")
        });
    };
    let Some(lines) = b.lines.filter(|l| !l.is_empty()) else {
        return Err(ApiError::field("lines", "The lines field is required and must hold at least one line."));
    };
    let payments = if version == 1 {
        PaymentsInput::V1 {
            payment_method: b.payment_method,
            company_card: b.company_card,
            vouchers: b.vouchers,
        }
    } else {
        PaymentsInput::V2 {
            payment_methods: b.payment_methods.map(|list| {
                list.into_iter()
                    .map(|p| PaymentElementInput {
                        kind: p.kind,
                        amount: p.amount,
                        company_card: p.company_card,
                        vouchers: p.vouchers,
                    })
                    .collect()
            }),
            payment_method: b.payment_method,
            company_card: b.company_card,
            vouchers: b.vouchers,
        }
    };
    if kind == InvoiceType::Cash && b.fee.is_some_and(|f| f != Decimal::ZERO) {
        return Err(ApiError::field("fee", "A fee is only accepted on a non-cash invoice."));
    }
    let client_id = match b.client.as_ref().and_then(|c| c.id.as_ref()) {
        Some(ClientIdBody::Object { id, .. }) => id.as_deref(),
        Some(ClientIdBody::Text(text)) => Some(text.as_str()),
        None => None,
    };
    check_texts(&IssueTexts {
        notes: b.notes.as_deref(),
        client_name: b.client.as_ref().and_then(|c| c.name.as_deref()),
        client_id,
        client_address: b.client.as_ref().and_then(|c| c.address.as_deref()),
        client_city: b.client.as_ref().and_then(|c| c.city.as_deref()),
        doc_type: b.doc_type.as_deref(),
        original_invoice_iic: b.original_invoice_iic.as_deref(),
    })
    .map_err(ApiError::Validation)?;
    Ok(IssueRequest {
        kind,
        api_version: version,
        internal_id,
        client: b.client.map(client_input),
        rules: InvoiceInput {
            lines: lines
                .into_iter()
                .map(|l| LineInput {
                    product_name: l.product_name,
                    product_code: l.product_code,
                    unit: l.unit,
                    unit_code: l.unit_code,
                    quantity: l.quantity,
                    price: l.price,
                    total: l.total,
                    discount: l.discount,
                    vat: l.vat,
                    vat_exempt_type: l.vat_exempt_type,
                })
                .collect(),
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
    })
}

fn host(headers: &HeaderMap) -> Option<&str> {
    headers.get(HOST).and_then(|h| h.to_str().ok())
}

fn payment_methods(invoice: &Invoice) -> Value {
    Value::Array(
        invoice
            .payments
            .iter()
            .map(|p| {
                json!({
                    "type": p.kind,
                    "amount": p.amount,
                    "company_card": p.company_card,
                    "vouchers": p.vouchers,
                })
            })
            .collect(),
    )
}

fn fiscalized_at(invoice: &Invoice) -> String {
    parse_stored(&invoice.issued_at).map(local_text).unwrap_or_else(|| invoice.issued_at.clone())
}

/// `data.invoice` of an issue (and of details by internalId).
fn issue_result(state: &AppState, invoice: &Invoice, version: i64, host: Option<&str>) -> Value {
    let mut v = json!({
        "id": invoice.id,
        "number": invoice.number,
        "iic": invoice.iic,
        "fic": invoice.fic,
        "tcrCode": invoice.tcr_code,
        "businessCode": invoice.business_unit_code,
        "operatorCode": invoice.operator_code,
        "fiscalizedAt": fiscalized_at(invoice),
        "verifyURL": invoice.verify_url,
        "pdf": state.services.pdf_url(host, version, invoice.id),
    });
    if let Some(eic) = &invoice.eic {
        v["eic"] = json!(eic);
    }
    if version == 2 {
        v["payment_methods"] = payment_methods(invoice);
    }
    v
}

/// One item of `GET /invoice` (the spec's "Invoice list item").
fn list_item(state: &AppState, invoice: &Invoice, version: i64, host: Option<&str>) -> Value {
    let foreign = invoice.currency != "ALL";
    let t = &invoice.totals;
    let mut amount = json!({
        "currency": invoice.currency,
        "exchange_rate": if foreign { json!(invoice.exchange_rate) } else { Value::Null },
        "gross": t.total,
        "net": t.net,
        "vat": t.vat,
        "discount": t.discount,
        "net_all": t.net_all,
        "gross_all": t.gross_all,
        "vat_all": t.vat_all,
        "discount_all": t.discount_all,
    });
    if foreign {
        amount["local_currency"] = json!({
            "currency": "ALL",
            "gross": t.gross_all,
            "net": t.net_all,
            "vat": t.vat_all,
            "discount": t.discount_all,
        });
    }
    let paid = if invoice.kind == "CASH" { t.total } else { Decimal::ZERO };
    let state_of_payment = if paid == t.total {
        "PAID"
    } else if paid == Decimal::ZERO {
        "UNPAID"
    } else {
        "PARTIALLY_PAID"
    };
    let b = &invoice.buyer;
    let mut v = json!({
        "id": invoice.id,
        "number": invoice.number,
        "type": invoice.kind,
        "issue_date": invoice.issue_date,
        "due_date": invoice.due_date.clone().unwrap_or_else(|| invoice.issue_date.clone()),
        "delivery_date": invoice.delivery_date.clone().unwrap_or_else(|| invoice.issue_date.clone()),
        "created_at": fiscalized_at(invoice),
        "supply_start_date": invoice.supply_start_date,
        "supply_end_date": invoice.supply_end_date,
        "client": {
            "name": b.name,
            "id": {"type": b.id_type, "id": b.id_value},
            "address": {"street": b.address, "city": b.city, "country": b.country.clone().unwrap_or_else(|| "ALB".into())},
        },
        "amount": amount,
        "payment": {"state": state_of_payment, "amount_paid": paid, "amount_left": t.total - paid},
        "bank_account": invoice.bank_account.as_ref().map(|b| json!({
            "id": b.id,
            "bank_name": b.name,
            "iban": b.iban,
            "swift": b.swift,
            "currency": b.currency,
            "notes": b.notes,
        })),
        "notes": invoice.notes,
        "iic": invoice.iic,
        "fic": invoice.fic,
        "eic": invoice.eic,
        "doc_type": invoice.doc_type,
        "process": Value::Null,
        "self_issue_type": invoice.self_issue_type,
        "reversed_at": Value::Null,
        "reversed_by": Value::Null,
        "pdf_url": state.services.pdf_url(host, version, invoice.id),
        "reverse_charge": invoice.reverse_charge,
        "periodic_invoice": invoice.periodic_invoice,
    });
    if version == 2 {
        v["payment_methods"] = payment_methods(invoice);
    } else {
        v["payment_method"] = json!(invoice.payments.first().map(|p| p.kind.clone()));
    }
    v
}

async fn issue(
    state: AppState,
    auth: Auth,
    headers: HeaderMap,
    body: IssueBody,
    kind: InvoiceType,
    version: i64,
) -> ApiResult {
    let request = issue_request(body, kind, version)?;
    let issued = state.services.issue_invoice(&auth.0, request).await?;
    let success = if version == 1 { StatusCode::CREATED } else { StatusCode::OK };
    match issued {
        Issued::Fiscalized(invoice) => {
            let data = json!({"invoice": issue_result(&state, &invoice, version, host(&headers))});
            Ok((success, Json(json!({"status": true, "data": data}))).into_response())
        }
        Issued::Deferred(invoice) => {
            let data = json!({"invoice": issue_result(&state, &invoice, version, host(&headers))});
            Ok(deferred(data))
        }
    }
}

/// 503 with the saved invoice, so the POS can print it: fiscalized later by the queue.
fn deferred(data: Value) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({
            "status": false,
            "message": "The fiscalization service (CIS) is not reachable. The invoice was saved and will be fiscalized automatically (subsequent delivery).",
            "data": data,
        })),
    )
        .into_response()
}

pub async fn cash_v1(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Body(b): Body<IssueBody>,
) -> ApiResult {
    issue(s, auth, h, b, InvoiceType::Cash, 1).await
}

pub async fn cash_v2(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Body(b): Body<IssueBody>,
) -> ApiResult {
    issue(s, auth, h, b, InvoiceType::Cash, 2).await
}

pub async fn noncash_v1(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Body(b): Body<IssueBody>,
) -> ApiResult {
    issue(s, auth, h, b, InvoiceType::NonCash, 1).await
}

pub async fn noncash_v2(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Body(b): Body<IssueBody>,
) -> ApiResult {
    issue(s, auth, h, b, InvoiceType::NonCash, 2).await
}

#[derive(Deserialize)]
pub struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "fromDate")]
    from_date: Option<String>,
    #[serde(rename = "toDate")]
    to_date: Option<String>,
    query: Option<String>,
}

pub(super) fn list_date(field: &str, value: Option<String>) -> Result<Option<String>, ApiError> {
    match value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => match chrono::NaiveDate::parse_from_str(&v, "%Y-%m-%d") {
            Ok(d) => Ok(Some(d.to_string())),
            Err(_) => Err(ApiError::Status {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                message: format!("The {field} must be a date in the format YYYY-MM-DD."),
                errors: Some(vec![format!("{field}: expected YYYY-MM-DD, got {v}")]),
            }),
        },
    }
}

/// The spec serializes reads of the list and details per token (1 s, then 429).
async fn per_token_lock(state: &AppState, auth: &Auth) -> Result<tokio::sync::OwnedMutexGuard<()>, ApiError> {
    state.services.locks.acquire(&format!("read:{}", auth.0.user.id), LOCK_WAIT).await.ok_or_else(|| {
        ApiError::status(StatusCode::TOO_MANY_REQUESTS, "Another read of this token is running; try again.")
    })
}

async fn list(state: AppState, auth: Auth, headers: HeaderMap, q: ListQuery, version: i64) -> ApiResult {
    let limit = q.limit.unwrap_or(20);
    let offset = q.offset.unwrap_or(0);
    if limit < 1 {
        return Err(ApiError::field("limit", "The limit must be at least 1."));
    }
    if offset < 0 {
        return Err(ApiError::field("offset", "The offset must be at least 0."));
    }
    search_query(q.query.as_deref())?;
    let kinds: Vec<String> = q
        .kind
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(|k| k.trim().to_uppercase())
        .filter(|k| matches!(k.as_str(), "CASH" | "NONCASH" | "EINVOICE"))
        .collect();
    let filter = ListFilter {
        kinds: kinds.clone(),
        from_date: list_date("fromDate", q.from_date)?,
        to_date: list_date("toDate", q.to_date)?,
        query: q.query.clone().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
        limit,
        offset,
    };
    let _guard = per_token_lock(&state, &auth).await?;
    let invoices = state.services.list_invoices(&auth.0, filter).await?;
    let items: Vec<Value> = invoices.iter().map(|i| list_item(&state, i, version, host(&headers))).collect();
    ok(json!({
        "items": items,
        "pagination": {
            "records": items.len(),
            "limit": limit,
            "offset": offset,
            "type": if kinds.is_empty() { Value::Null } else { json!(kinds.join(",")) },
            "query": q.query,
        },
    }))
}

pub async fn list_v1(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Query(q): Query<ListQuery>,
) -> ApiResult {
    list(s, auth, h, q, 1).await
}

pub async fn list_v2(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Query(q): Query<ListQuery>,
) -> ApiResult {
    list(s, auth, h, q, 2).await
}

fn details_json(state: &AppState, invoice: &Invoice, version: i64, host: Option<&str>) -> Value {
    let mut v = list_item(state, invoice, version, host);
    let result = issue_result(state, invoice, version, host);
    if let (Some(v), Some(result)) = (v.as_object_mut(), result.as_object()) {
        for key in ["tcrCode", "businessCode", "operatorCode", "fiscalizedAt", "verifyURL", "pdf"] {
            if let Some(value) = result.get(key) {
                v.insert(key.to_string(), value.clone());
            }
        }
    }
    v["lines"] = Value::Array(
        invoice
            .lines
            .iter()
            .map(|l| {
                json!({
                    "product_name": l.product_name,
                    "product_code": l.product_code,
                    "unit": l.unit,
                    "unit_code": l.unit_code,
                    "quantity": l.quantity,
                    "unitPrice": l.price,
                    "discount_rate": l.discount_rate,
                    "discount": l.discount,
                    "total": l.total,
                    "vat": l.vat_rate,
                    "vat_exempt_type": l.exemption,
                    "net": l.net,
                    "vat_amount": l.vat,
                    "gross": l.gross,
                })
            })
            .collect(),
    );
    v
}

async fn details(state: AppState, auth: Auth, headers: HeaderMap, id: i64, version: i64) -> ApiResult {
    let _guard = per_token_lock(&state, &auth).await?;
    let invoice = state.services.invoice(&auth.0, id).await?;
    ok(json!({"invoice": details_json(&state, &invoice, version, host(&headers))}))
}

pub async fn details_v1(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    PathId(id): PathId,
) -> ApiResult {
    details(s, auth, h, id, 1).await
}

pub async fn details_v2(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    PathId(id): PathId,
) -> ApiResult {
    details(s, auth, h, id, 2).await
}

async fn by_internal_id(
    state: AppState,
    auth: Auth,
    headers: HeaderMap,
    internal_id: String,
    version: i64,
) -> ApiResult {
    let invoice = state.services.invoice_by_internal_id(&auth.0, &internal_id).await?;
    ok(json!({"invoice": issue_result(&state, &invoice, version, host(&headers))}))
}

pub async fn by_internal_id_v1(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Path(internal_id): Path<String>,
) -> ApiResult {
    by_internal_id(s, auth, h, internal_id, 1).await
}

pub async fn by_internal_id_v2(
    State(s): State<AppState>,
    auth: Auth,
    h: HeaderMap,
    Path(internal_id): Path<String>,
) -> ApiResult {
    by_internal_id(s, auth, h, internal_id, 2).await
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
    let pdf = state.services.invoice_pdf(&caller, id, layout).await?;
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, "application/pdf".to_string()),
            (axum::http::header::CONTENT_DISPOSITION, format!("inline; filename=\"invoice-{id}.pdf\"")),
        ],
        pdf,
    )
        .into_response())
}
