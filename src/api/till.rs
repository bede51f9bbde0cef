//! Arka's own routes for the till (docs "The till"), which any POS app may call as well: each
//! till's receipt printer (set by the owner, with a test print), a receipt printed on the
//! caller's till's printer, and the shop's till settings (the scale's codes, the cashiers'
//! discount limit).

use axum::extract::{Path, State};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiResult, ok};
use super::extract::{Body, Changes, PathId};
use crate::domain::fields;
use crate::domain::till::{TillSettings, TillSettingsInput};
use crate::services::till::PrinterInput;
use crate::store::till::Printer;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PrinterView {
    connection: String,
    address: String,
    columns: i64,
}

fn printer_view(p: Option<Printer>) -> Option<PrinterView> {
    p.map(|p| PrinterView { connection: p.connection, address: p.address, columns: p.columns })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TillPrinter {
    tcr_code: String,
    name: String,
    business_unit_code: String,
    printer: Option<PrinterView>,
}

/// `GET /api/v1/printers`: every till of the company with its printer.
pub async fn printers(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let tills = state.services.till().till_printers(&caller).await?;
    let items: Vec<TillPrinter> = tills
        .into_iter()
        .map(|(d, p)| TillPrinter {
            tcr_code: d.tcr_code,
            name: d.name,
            business_unit_code: d.business_unit_code,
            printer: printer_view(p),
        })
        .collect();
    ok(serde_json::json!({ "items": items }))
}

/// `GET /api/v1/printers/mine`: the printer of the caller's own till (`null`: none, print PDFs).
pub async fn my_printer(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let printer = state.services.till().my_printer(&caller).await?;
    ok(serde_json::json!({ "tcrCode": caller.user.tcr_code, "printer": printer_view(printer) }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrinterBody {
    #[serde(default, deserialize_with = "fields::opt_text")]
    connection: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_text")]
    address: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_integer")]
    columns: Option<i64>,
}

/// `PUT /api/v1/printers/{tcrCode}`.
pub async fn set_printer(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(tcr_code): Path<String>,
    Body(b): Body<PrinterBody>,
) -> ApiResult {
    let Some(connection) = b.connection else {
        return Err(super::error::ApiError::field(
            "connection",
            "The connection is network, device or none.",
        ));
    };
    let input = PrinterInput { connection, address: b.address, columns: b.columns };
    let saved = state.services.till().set_till_printer(&caller, &tcr_code, input).await?;
    ok(serde_json::json!({ "tcrCode": tcr_code, "printer": printer_view(saved) }))
}

/// `POST /api/v1/printers/{tcrCode}/test`.
pub async fn test_print(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(tcr_code): Path<String>,
) -> ApiResult {
    let bytes = state.services.till().test_print(&caller, &tcr_code).await?;
    ok(serde_json::json!({ "tcrCode": tcr_code, "printed": true, "bytes": bytes }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiptBody {
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    tendered: Option<Decimal>,
}

/// `POST /api/v1/invoice/{id}/receipt`: the receipt on the caller's till's printer.
pub async fn print_receipt(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Body(b): Body<ReceiptBody>,
) -> ApiResult {
    if b.tendered.is_some_and(|t| t < Decimal::ZERO) {
        return Err(super::error::ApiError::field("tendered", "The cash tendered cannot be negative."));
    }
    let printed = state.services.till().print_receipt(&caller, id, b.tendered).await?;
    ok(serde_json::json!({
        "id": id, "printed": true, "copy": printed.copy, "drawer": printed.drawer, "bytes": printed.bytes,
    }))
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
struct SettingsView {
    scale_prefixes: Vec<u8>,
    scale_item_digits: u8,
    scale_value: &'static str,
    cashier_max_discount: Decimal,
}

fn settings_view(s: &TillSettings) -> SettingsView {
    SettingsView {
        scale_prefixes: s.scale.prefixes.clone(),
        scale_item_digits: s.scale.item_digits,
        scale_value: s.scale.value.as_str(),
        cashier_max_discount: s.cashier_max_discount,
    }
}

/// `GET /api/v1/till/settings`.
pub async fn settings(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    ok(settings_view(&state.services.till().till_settings(&caller).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsBody {
    #[serde(default)]
    scale_prefixes: Option<Vec<i64>>,
    #[serde(default, deserialize_with = "fields::opt_integer")]
    scale_item_digits: Option<i64>,
    #[serde(default, deserialize_with = "fields::opt_text")]
    scale_value: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    cashier_max_discount: Option<Decimal>,
}

/// `PUT /api/v1/till/settings`.
pub async fn update_settings(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Changes(b): Changes<SettingsBody>,
) -> ApiResult {
    let input = TillSettingsInput {
        scale_prefixes: b.scale_prefixes,
        scale_item_digits: b.scale_item_digits,
        scale_value: b.scale_value,
        cashier_max_discount: b.cashier_max_discount,
    };
    ok(settings_view(&state.services.till().update_till_settings(&caller, input).await?))
}
