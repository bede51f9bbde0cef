//! Reports and the dashboard: `GET /api/v1/reports/*` and `GET /api/v1/dashboard/summary`, in
//! the reports budget (30 a minute). A report's request and its answers (JSON, CSV, the closing
//! report's PDF) are the edge's (`arka_edge::reports`), the head office's alike.

use std::sync::Arc;

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use serde::Serialize;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::Query;
use crate::domain::report::{self, Period};
use crate::domain::validation::FieldErrors;
use crate::services::reports::ReportQuery;
use crate::store::accounts::Caller;
pub use arka_edge::reports::*;

/// A report call: who asks, and the query read (401 before anything else, then 422 naming the
/// field). Report handlers take it as their one argument beside the state.
pub struct ReportCall {
    pub caller: Arc<Caller>,
    pub request: ReportRequest,
    pub params: ReportParams,
}

impl FromRequestParts<AppState> for ReportCall {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Auth(caller) = Auth::from_request_parts(parts, state).await?;
        let Query(params) = Query::<ReportParams>::from_request_parts(parts, state).await?;
        let request = read_request(&params, &parts.headers)?;
        Ok(ReportCall { caller, request, params })
    }
}

impl ReportCall {
    pub fn query(&self) -> ReportQuery {
        self.request.query.clone()
    }

    /// The report `name` as JSON, or as a CSV file named after it and its period.
    pub fn answer<T: Serialize + AsTable>(&self, name: &str, data: crate::services::Result<T>) -> ApiResult {
        answer_as(&self.request, name, data?)
    }
}

/// `GET /api/v1/reports/sales-summary`
pub async fn sales_summary(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    call.answer("sales-summary", state.services.reports().sales_summary(&call.caller, call.query()).await)
}

/// `GET /api/v1/reports/vat`; `documents=true` adds a page of the sales book (`limit`, `offset`).
pub async fn vat(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    let book = report::flag("documents", call.params.documents()).map_err(ApiError::Validation)?;
    let page = book.then_some((call.request.limit, call.request.offset));
    let name = if book { "sales-book" } else { "vat" };
    call.answer(name, state.services.reports().vat_report(&call.caller, call.query(), page).await)
}

/// `GET /api/v1/reports/daily-trend`
pub async fn daily_trend(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    call.answer("daily-trend", state.services.reports().daily_trend(&call.caller, call.query()).await)
}

/// `GET /api/v1/reports/top-clients`
pub async fn top_clients(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    let limit = call.request.limit;
    call.answer("top-clients", state.services.reports().top_clients(&call.caller, call.query(), limit).await)
}

/// `GET /api/v1/reports/top-products`
pub async fn top_products(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    let limit = call.request.limit;
    call.answer(
        "top-products",
        state.services.reports().top_products(&call.caller, call.query(), limit).await,
    )
}

/// `GET /api/v1/reports/by-operator` (the spec's shape).
pub async fn by_operator(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    call.answer("by-operator", state.services.reports().by_operator(&call.caller, call.query()).await)
}

/// `GET /api/v1/reports/by-tcr`
pub async fn by_tcr(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    call.answer("by-tcr", state.services.reports().by_tcr(&call.caller, call.query()).await)
}

/// `GET /api/v1/reports/cash-register`
pub async fn cash_register(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    call.answer(
        "cash-register",
        state.services.reports().cash_register_report(&call.caller, call.query()).await,
    )
}

/// `GET /api/v1/reports/cash-register/closing`
pub async fn closing(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    let (limit, offset) = (call.request.limit, call.request.offset);
    let report = state.services.reports().closing_report(&call.caller, call.query(), limit, offset).await;
    call.answer("cash-register-closing", report)
}

/// `GET /api/v1/reports/cash-register/closing/pdf`: the closing report's days as a PDF to print,
/// `paper=a4` (the default) or `receipt` (80 mm): the Z report of a closed day, the X report of
/// a day still open (its figures so far). The same query as the JSON report; no day is a 404.
pub async fn closing_pdf(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    let layout = paper(&call.params)?;
    let (limit, offset) = (call.request.limit, call.request.offset);
    let report = state.services.reports().closing_report(&call.caller, call.query(), limit, offset).await?;
    let company = &call.caller.company;
    let company = format!("{} · NUIS {}", company.name, company.nuis);
    closing_pdf_of(&company, call.request.query.period, &report, layout)
}

/// `GET /api/v1/reports/reversals` (the spec's shape).
pub async fn reversals(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    let (limit, offset) = (call.request.limit, call.request.offset);
    let report = state.services.reports().reversals_report(&call.caller, call.query(), limit, offset).await;
    call.answer("reversals", report)
}

/// `GET /api/v1/reports/wtn` (the spec's shape): the warehouse transfer notes of the period. A
/// note is not a sale of a till or an operator, so the sales filters are refused, not ignored.
pub async fn wtn(State(state): State<AppState>, call: ReportCall) -> ApiResult {
    let query = call.query();
    let mut errors = FieldErrors::new();
    for (field, sent) in [
        ("branch", query.branch.is_some()),
        ("tcr", query.tcr.is_some()),
        ("operator", query.operator.is_some()),
    ] {
        if sent {
            errors.add(field, format!("The wtn report has no {field} filter."));
        }
    }
    errors.into_result().map_err(ApiError::Validation)?;
    call.answer("wtn", state.services.wtn_report(&call.caller, query).await)
}

/// `GET /api/v1/dashboard/summary`: `date` (default today) instead of a period.
pub async fn dashboard(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let day = match params.date().filter(|d| !d.trim().is_empty()) {
        None => None,
        Some(day) => Some(
            Period::read(Some(day), Some(day))
                .map(|p| p.from)
                .map_err(|_| ApiError::field("date", "The date must be a date in the format YYYY-MM-DD."))?,
        ),
    };
    ok(state.services.reports().dashboard(&caller, day).await?)
}
