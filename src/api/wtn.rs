//! Warehouse transfer notes: issue (v1 and v2), list, details by internalId, the print document,
//! the A4 PDF, the report; and the company's print settings (logo, unit name) the print
//! document shows. v1 and v2 read one body and answer one shape: v2 requires internalId and
//! answers a repeat with the first note (200), v1 takes it optionally and answers a repeat 409.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::{Body, Changes, PathId, Query, Version};
use super::fields;
use super::limits::Interval;
use super::onboarding::{PageView, paging};
use crate::domain::client::Patch;
use crate::domain::document::ApiVersion;
use crate::domain::time::local_text;
use crate::domain::validation::INTERNAL_ID_REQUIRED;
use crate::domain::wtn::{NoteInput, fiscal_status, items_num};
use crate::services::pipeline::Issued;
use crate::services::wtn::{IssueWtnRequest, PrintDocument, WtnIssue};
use crate::store::wtn::{ListFilter, Place, Wtn};

// ---------------------------------------------------------------------------------------------
// The body
// ---------------------------------------------------------------------------------------------

/// Reads an issue body as v1 or v2 into the one request the service knows: v2 answers a
/// missing internalId in the standard envelope, as the invoice group does.
fn issue_request(note: NoteInput, version: ApiVersion) -> Result<IssueWtnRequest, ApiError> {
    if version == ApiVersion::V2 && note.internal_id().is_none() {
        return Err(ApiError::status(StatusCode::UNPROCESSABLE_ENTITY, INTERNAL_ID_REQUIRED));
    }
    Ok(IssueWtnRequest { api_version: version, note })
}

// ---------------------------------------------------------------------------------------------
// The answers
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlaceView {
    point: &'static str,
    city: String,
    address: String,
    date_time: String,
}

fn place_view(p: &Place) -> PlaceView {
    PlaceView {
        point: p.point.as_str(),
        city: p.city.clone(),
        address: p.address.clone(),
        date_time: local_text(p.date_time),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CarrierView {
    name: String,
    id_type: &'static str,
    id_num: String,
    town: Option<String>,
    address: Option<String>,
}

#[derive(Serialize)]
struct UnitView {
    id: i64,
    name: Option<String>,
}

#[derive(Serialize)]
struct LineView {
    name: String,
    code: Option<String>,
    unit: String,
    quantity: Decimal,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AmountsView {
    value_of_goods: Decimal,
    currency: &'static str,
    items_num: i64,
}

/// A note, as issue, list and details answer it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WtnView {
    id: i64,
    internal_id: Option<String>,
    number: String,
    #[serde(rename = "type")]
    note_type: &'static str,
    transaction: &'static str,
    issue_date: String,
    created_at: String,
    business_code: String,
    operator_code: String,
    device_code: Option<String>,
    carrier: Option<CarrierView>,
    vehicle_ownership: &'static str,
    vehicle_plates: String,
    origin: PlaceView,
    destination: PlaceView,
    destination_unit: Option<UnitView>,
    is_goods_flammable: bool,
    is_escort_required: bool,
    pack_type: Option<String>,
    pack_num: Option<u32>,
    amounts: AmountsView,
    lines: Vec<LineView>,
    iic: String,
    fic: Option<String>,
    fiscal_status: &'static str,
    #[serde(rename = "verifyUrl")]
    verify_url: String,
    print: String,
    pdf: String,
}

fn lines(note: &Wtn) -> Vec<LineView> {
    note.lines
        .iter()
        .map(|l| LineView {
            name: l.name.clone(),
            code: l.code.clone(),
            unit: l.unit.clone(),
            quantity: l.quantity,
        })
        .collect()
}

fn amounts(note: &Wtn) -> AmountsView {
    AmountsView { value_of_goods: note.value_of_goods, currency: "ALL", items_num: items_num(note.quantity) }
}

fn host(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::HOST).and_then(|h| h.to_str().ok())
}

fn wtn_view(state: &AppState, note: &Wtn, version: ApiVersion, host: Option<&str>) -> WtnView {
    let services = &state.services;
    WtnView {
        id: note.id,
        internal_id: note.internal_id.clone(),
        number: note.number.clone(),
        note_type: note.note_type.as_str(),
        transaction: note.transaction.as_str(),
        issue_date: note.issue_date.clone(),
        created_at: local_text(note.issued_at),
        business_code: note.business_unit_code.clone(),
        operator_code: note.operator_code.clone(),
        device_code: note.device_code.clone(),
        carrier: note.carrier.as_ref().map(|c| CarrierView {
            name: c.name.clone(),
            id_type: c.id_type.as_str(),
            id_num: c.id_num.clone(),
            town: c.town.clone(),
            address: c.address.clone(),
        }),
        vehicle_ownership: note.vehicle_ownership.as_str(),
        vehicle_plates: note.vehicle_plates.clone(),
        origin: place_view(&note.origin),
        destination: place_view(&note.destination),
        destination_unit: note
            .destination_unit_id
            .map(|id| UnitView { id, name: note.destination_unit_name.clone() }),
        is_goods_flammable: note.goods_flammable,
        is_escort_required: note.escort_required,
        pack_type: note.pack_type.clone(),
        pack_num: note.pack_num,
        amounts: amounts(note),
        lines: lines(note),
        iic: note.wtnic.clone(),
        fic: note.fwtnic.clone(),
        fiscal_status: fiscal_status(note.fwtnic.is_some()),
        verify_url: note.verify_url.clone(),
        print: services.wtn_url(host, version, "print", note.id),
        pdf: services.wtn_url(host, version, "pdf", note.id),
    }
}

#[derive(Serialize)]
struct InvoiceData {
    invoice: WtnView,
}

/// 503 with the saved note, as for a cash invoice: fiscalized later by the queue.
#[derive(Serialize)]
struct DeferredBody {
    status: bool,
    message: &'static str,
    data: InvoiceData,
}

// ---------------------------------------------------------------------------------------------
// Issue, list, details
// ---------------------------------------------------------------------------------------------

pub async fn issue(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Body(body): Body<NoteInput>,
) -> ApiResult {
    auth.interval(&state, Interval::Wtn)?;
    let request = issue_request(body, version)?;
    let issued = state.services.issue_wtn(&auth.0, request).await?;
    let view = |note: &Wtn| InvoiceData { invoice: wtn_view(&state, note, version, host(&headers)) };
    let success = if version == ApiVersion::V1 { StatusCode::CREATED } else { StatusCode::OK };
    Ok(match issued {
        WtnIssue::Issued(Issued::Fiscalized(note)) => super::error::success(success, view(&note)),
        WtnIssue::Repeated(note) => super::error::success(StatusCode::OK, view(&note)),
        WtnIssue::Issued(Issued::Deferred(note)) => deferred(view(&note)),
    })
}

fn deferred(data: InvoiceData) -> Response {
    let body = DeferredBody {
        status: false,
        message: "The fiscalization service (CIS) is not reachable. The note was saved and will be fiscalized automatically (subsequent delivery).",
        data,
    };
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}

#[derive(Deserialize)]
pub struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    #[serde(rename = "fromDate")]
    from_date: Option<String>,
    #[serde(rename = "toDate")]
    to_date: Option<String>,
}

#[derive(Serialize)]
struct ListData {
    items: Vec<WtnView>,
    pagination: PageView,
}

pub async fn list(
    State(state): State<AppState>,
    auth: Auth,
    headers: HeaderMap,
    Query(q): Query<ListQuery>,
) -> ApiResult {
    auth.interval(&state, Interval::Wtn)?;
    let (limit, offset) = paging(q.limit, q.offset, i64::MAX)?;
    let filter = ListFilter {
        from_date: super::invoices::list_date("fromDate", q.from_date)?,
        to_date: super::invoices::list_date("toDate", q.to_date)?,
        limit,
        offset,
        own: None,
    };
    let notes = state.services.wtns(&auth.0, filter).await?;
    let items: Vec<WtnView> =
        notes.iter().map(|n| wtn_view(&state, n, ApiVersion::V1, host(&headers))).collect();
    ok(ListData { pagination: PageView { records: items.len(), limit, offset }, items })
}

pub async fn details(
    State(state): State<AppState>,
    Version(version): Version,
    auth: Auth,
    headers: HeaderMap,
    Path(internal_id): Path<String>,
) -> ApiResult {
    let note = state.services.wtn_by_internal_id(&auth.0, &internal_id).await?;
    ok(InvoiceData { invoice: wtn_view(&state, &note, version, host(&headers)) })
}

// ---------------------------------------------------------------------------------------------
// The print document and the PDF
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct CompanyView {
    name: String,
    nuis: String,
    address: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PrintCarrierView {
    name: Option<String>,
    id_type: Option<&'static str>,
    id_num: Option<String>,
    town: Option<String>,
    address: Option<String>,
    vehicle_ownership: &'static str,
    vehicle_plates: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PrintInvoiceView {
    issue_date: String,
    business_code: String,
    operator_code: String,
    device_code: Option<String>,
    number: String,
    #[serde(rename = "type")]
    note_type: &'static str,
    transaction: &'static str,
    lines: Vec<LineView>,
    amounts: AmountsView,
    iic: String,
    fic: Option<String>,
    fiscal_status: &'static str,
    verify_url: Option<String>,
    footer: Vec<String>,
}

/// The spec's "Warehouse transfer note print document".
#[derive(Serialize)]
struct PrintView {
    logo: Option<String>,
    title: &'static str,
    company: CompanyView,
    carrier: PrintCarrierView,
    origin: PlaceView,
    destination: PlaceView,
    invoice: PrintInvoiceView,
}

fn print_view(d: PrintDocument) -> PrintView {
    let note = &d.note;
    let carrier = note.carrier.as_ref();
    PrintView {
        logo: d.logo.clone(),
        title: d.title,
        company: CompanyView {
            name: d.company_name.clone(),
            nuis: d.nuis.clone(),
            address: d.company_address.clone(),
        },
        carrier: PrintCarrierView {
            name: carrier.map(|c| c.name.clone()),
            id_type: carrier.map(|c| c.id_type.as_str()),
            id_num: carrier.map(|c| c.id_num.clone()),
            town: carrier.and_then(|c| c.town.clone()),
            address: carrier.and_then(|c| c.address.clone()),
            vehicle_ownership: note.vehicle_ownership.as_str(),
            vehicle_plates: note.vehicle_plates.clone(),
        },
        origin: place_view(&note.origin),
        destination: place_view(&note.destination),
        invoice: PrintInvoiceView {
            issue_date: note.issue_date.clone(),
            business_code: note.business_unit_code.clone(),
            operator_code: note.operator_code.clone(),
            device_code: note.device_code.clone(),
            number: note.number.clone(),
            note_type: note.note_type.as_str(),
            transaction: note.transaction.as_str(),
            lines: lines(note),
            amounts: amounts(note),
            iic: note.wtnic.clone(),
            fic: note.fwtnic.clone(),
            fiscal_status: fiscal_status(note.fwtnic.is_some()),
            verify_url: (!note.wtnic.is_empty()).then(|| note.verify_url.clone()),
            footer: d.footer.clone(),
        },
    }
}

pub async fn print(State(state): State<AppState>, auth: Auth, PathId(id): PathId) -> ApiResult {
    let document = state.services.wtn_print(&auth.0, id).await?;
    ok(print_view(document))
}

/// The note as an A4 PDF.
pub async fn pdf(State(state): State<AppState>, Auth(caller): Auth, PathId(id): PathId) -> ApiResult {
    let pdf = state.services.wtn_pdf(&caller, id).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/pdf".to_string()),
            (header::CONTENT_DISPOSITION, format!("inline; filename=\"wtn-{id}.pdf\"")),
        ],
        pdf,
    )
        .into_response())
}

// ---------------------------------------------------------------------------------------------
// Print settings
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct PrintSettingsView {
    /// base64 of the image file.
    logo: Option<String>,
    logo_type: Option<String>,
    unit_name: bool,
}

fn settings_view(s: &crate::store::print_settings::PrintSettings) -> PrintSettingsView {
    PrintSettingsView {
        logo: s.logo.as_ref().map(|l| openssl::base64::encode_block(&l.bytes)),
        logo_type: s.logo.as_ref().map(|l| l.content_type.clone()),
        unit_name: s.unit_name,
    }
}

/// What is not sent is kept, so a key it does not know is refused rather than ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrintSettingsBody {
    #[serde(default, deserialize_with = "fields::text")]
    logo: Patch<String>,
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    unit_name: Option<bool>,
}

pub async fn print_settings(State(state): State<AppState>, auth: Auth) -> ApiResult {
    ok(settings_view(&state.services.print_settings(&auth.0).await?))
}

pub async fn update_print_settings(
    State(state): State<AppState>,
    auth: Auth,
    Changes(b): Changes<PrintSettingsBody>,
) -> ApiResult {
    let saved = state.services.update_print_settings(&auth.0, b.logo, b.unit_name).await?;
    ok(settings_view(&saved))
}
