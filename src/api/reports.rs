//! Reports and the dashboard: `GET /api/v1/reports/*` and `GET /api/v1/dashboard/summary`, in
//! the reports budget (30 a minute). The shared plumbing of every report lives here: the query
//! (`from`, `to`, `limit`, `offset`, the `branch`/`tcr`/`operator` filters) read into a
//! `ReportRequest`, and the answer as JSON (`{status, data}` with `data.period`) or as CSV
//! (`Accept: text/csv` or `?format=csv`, a file named after the report and its period).

use axum::extract::State;
use axum::http::header::{ACCEPT, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::Query;
use crate::domain::report::{self, Period};
use crate::domain::validation::FieldErrors;
use crate::services::reports::{
    ByOperator, ByTcr, CashRegisterReport, ClosingReport, DailyTrend, ReportQuery, Reversals, Sales,
    SalesSummary, TopClients, TopProducts, VatReport,
};

/// A report's query string; every value is read as text and checked here, so a bad one is a
/// 422 naming it.
#[derive(Debug, Default, Deserialize)]
pub struct ReportParams {
    from: Option<String>,
    to: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
    branch: Option<String>,
    tcr: Option<String>,
    operator: Option<String>,
    format: Option<String>,
    documents: Option<String>,
    date: Option<String>,
}

/// JSON, or CSV for a spreadsheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

/// A report's request after the edge read it.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    pub query: ReportQuery,
    pub limit: i64,
    pub offset: i64,
    pub format: Format,
}

/// The longest filter value looked up (longer than any code or id).
const MAX_FILTER: usize = 100;

fn filter_text(errors: &mut FieldErrors, field: &str, sent: Option<&str>) -> Option<String> {
    let text = sent.map(str::trim).filter(|t| !t.is_empty())?;
    if text.chars().count() > MAX_FILTER || text.chars().any(char::is_control) {
        errors.add(field, format!("The {field} is not one the company has."));
        return None;
    }
    Some(text.to_string())
}

/// `format=csv|json`, else `Accept: text/csv`, else JSON.
fn format(params: &ReportParams, headers: &HeaderMap) -> Result<Format, FieldErrors> {
    match params.format.as_deref().map(|f| f.trim().to_ascii_lowercase()).as_deref() {
        Some("csv") => Ok(Format::Csv),
        Some("json") => Ok(Format::Json),
        Some("") | None => {
            let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
            Ok(if accept.to_ascii_lowercase().contains("text/csv") { Format::Csv } else { Format::Json })
        }
        Some(_) => Err(FieldErrors::one("format", "The format must be json or csv.")),
    }
}

/// Reads a report's query: every field's errors together in one 422.
pub fn read_request(params: &ReportParams, headers: &HeaderMap) -> Result<ReportRequest, ApiError> {
    let mut errors = FieldErrors::new();
    let take = |read: Result<i64, FieldErrors>, default: i64, errors: &mut FieldErrors| {
        read.unwrap_or_else(|e| {
            errors.merge(e);
            default
        })
    };
    let period = Period::read(params.from.as_deref(), params.to.as_deref());
    let limit = take(report::limit(params.limit.as_deref()), 0, &mut errors);
    let offset = take(report::offset(params.offset.as_deref()), 0, &mut errors);
    let branch = match params.branch.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
        None => None,
        Some(text) => match text.parse::<i64>() {
            Ok(id) if id > 0 => Some(id),
            _ => {
                errors.add("branch", "The branch must be the id of one of the company's branches.");
                None
            }
        },
    };
    let tcr = filter_text(&mut errors, "tcr", params.tcr.as_deref());
    let operator = filter_text(&mut errors, "operator", params.operator.as_deref());
    let format = format(params, headers).unwrap_or_else(|e| {
        errors.merge(e);
        Format::Json
    });
    match period {
        Ok(period) if errors.is_empty() => {
            Ok(ReportRequest { query: ReportQuery { period, branch, tcr, operator }, limit, offset, format })
        }
        Ok(_) => Err(ApiError::Validation(errors)),
        Err(e) => {
            errors.merge(e);
            Err(ApiError::Validation(errors))
        }
    }
}

/// A report as a table, for CSV.
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[&str]) -> Table {
        Table { columns: columns.iter().map(|c| c.to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// UTF-8 with a byte-order mark (so a spreadsheet reads ë and ç), comma-separated, a dot
    /// for decimals, quoted where needed (RFC 4180).
    pub fn to_csv(&self) -> Result<Vec<u8>, ApiError> {
        let mut writer = csv::Writer::from_writer(b"\xEF\xBB\xBF".to_vec());
        let failed = |e: csv::Error| {
            tracing::error!(cause = %e, "a report could not be written as CSV");
            ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
        };
        writer.write_record(&self.columns).map_err(failed)?;
        for row in &self.rows {
            writer.write_record(row).map_err(failed)?;
        }
        writer.into_inner().map_err(|e| failed(e.into_error().into()))
    }
}

/// An amount as CSV shows it: two decimals.
pub fn money(amount: Decimal) -> String {
    format!("{:.2}", amount)
}

fn text(value: Option<&str>) -> String {
    value.unwrap_or_default().to_string()
}

/// The report `name` for `period`, as JSON or as a CSV file built by `table`.
pub fn answer<T: Serialize>(
    format: Format,
    name: &str,
    period: Period,
    data: &T,
    table: impl FnOnce(&T) -> Table,
) -> ApiResult {
    match format {
        Format::Json => ok(data),
        Format::Csv => {
            let body = table(data).to_csv()?;
            let filename = format!("arka-{name}-{}-{}.csv", period.from, period.to);
            let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
                .map_err(|_| ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error"))?;
            let mut response = (StatusCode::OK, body).into_response();
            let headers = response.headers_mut();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
            headers.insert(CONTENT_DISPOSITION, disposition);
            Ok(response)
        }
    }
}

const SALES_COLUMNS: [&str; 6] = ["documents", "reversals", "waiting", "net", "vat", "gross"];

fn sales_cells(s: &Sales) -> Vec<String> {
    vec![
        s.documents.to_string(),
        s.reversals.to_string(),
        s.waiting.to_string(),
        money(s.net),
        money(s.vat),
        money(s.gross),
    ]
}

fn columns(first: &[&str], rest: &[&str]) -> Vec<String> {
    first.iter().chain(rest).map(|c| c.to_string()).collect()
}

/// `GET /api/v1/reports/sales-summary`
pub async fn sales_summary(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.sales_summary(&caller, r.query.clone()).await?;
    answer(r.format, "sales-summary", r.query.period, &data, |d: &SalesSummary| {
        let mut t = Table::new(&[
            "section",
            "key",
            "documents",
            "waiting",
            "net",
            "vat",
            "gross",
            "discount",
            "fee",
            "currency_net",
            "currency_vat",
            "currency_gross",
        ]);
        let blank = String::new;
        t.row(vec![
            "total".into(),
            "ALL".into(),
            d.totals.documents.to_string(),
            d.totals.waiting.to_string(),
            money(d.totals.net),
            money(d.totals.vat),
            money(d.totals.gross),
            money(d.discount),
            money(d.fee),
            blank(),
            blank(),
            blank(),
        ]);
        for k in &d.by_kind {
            t.row(vec![
                "kind".into(),
                k.kind.into(),
                k.documents.to_string(),
                k.waiting.to_string(),
                money(k.net),
                money(k.vat),
                money(k.gross),
                money(k.discount),
                money(k.fee),
                blank(),
                blank(),
                blank(),
            ]);
        }
        for p in &d.by_payment {
            t.row(vec![
                "payment".into(),
                p.payment_method.clone(),
                p.documents.to_string(),
                blank(),
                blank(),
                blank(),
                money(p.amount),
                blank(),
                blank(),
                blank(),
                blank(),
                blank(),
            ]);
        }
        for c in &d.by_currency {
            t.row(vec![
                "currency".into(),
                c.currency.clone(),
                c.documents.to_string(),
                c.waiting.to_string(),
                money(c.net_all),
                money(c.vat_all),
                money(c.gross_all),
                blank(),
                blank(),
                money(c.net),
                money(c.vat),
                money(c.gross),
            ]);
        }
        t.row(vec![
            "orders".into(),
            "ORDER".into(),
            d.orders.documents.to_string(),
            d.orders.waiting.to_string(),
            blank(),
            blank(),
            money(d.orders.gross),
            blank(),
            blank(),
            blank(),
            blank(),
            blank(),
        ]);
        t
    })
}

/// `GET /api/v1/reports/vat`; `documents=true` adds a page of the sales book (`limit`, `offset`).
pub async fn vat(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let book = report::flag("documents", params.documents.as_deref()).map_err(ApiError::Validation)?;
    let data =
        state.services.vat_report(&caller, r.query.clone(), book.then_some((r.limit, r.offset))).await?;
    answer(r.format, if book { "sales-book" } else { "vat" }, r.query.period, &data, |d: &VatReport| {
        let class = |rate: Decimal, exemption: &Option<String>| match exemption {
            Some(e) => e.clone(),
            None => format!("{}%", rate.normalize()),
        };
        match &d.items {
            // The sales book: one row per document, a pair of columns per VAT class of the period.
            Some(items) => {
                let mut t = Table::new(&[
                    "id",
                    "number",
                    "type",
                    "kind",
                    "issue_date",
                    "buyer_name",
                    "buyer_id",
                    "currency",
                    "waiting",
                ]);
                let classes: Vec<String> = d.rates.iter().map(|r| class(r.vat_rate, &r.exemption)).collect();
                t.columns
                    .extend(classes.iter().flat_map(|c| [format!("taxable_base_{c}"), format!("vat_{c}")]));
                t.columns.extend(["taxable_base", "vat", "gross"].map(String::from));
                for e in items {
                    let mut row = vec![
                        e.id.to_string(),
                        e.number.clone(),
                        e.invoice_type.into(),
                        e.kind.into(),
                        e.issue_date.clone(),
                        text(e.buyer_name.as_deref()),
                        text(e.buyer_id.as_deref()),
                        e.currency.clone(),
                        e.waiting.to_string(),
                    ];
                    for c in &classes {
                        let found = e.rates.iter().find(|r| &class(r.vat_rate, &r.exemption) == c);
                        row.push(money(found.map_or(Decimal::ZERO, |r| r.taxable_base)));
                        row.push(money(found.map_or(Decimal::ZERO, |r| r.vat)));
                    }
                    row.extend([money(e.taxable_base), money(e.vat), money(e.gross)]);
                    t.row(row);
                }
                t
            }
            None => {
                let mut t = Table::new(&[
                    "vat_rate",
                    "exemption",
                    "documents",
                    "sales_taxable_base",
                    "sales_vat",
                    "reversals_taxable_base",
                    "reversals_vat",
                    "taxable_base",
                    "vat",
                    "gross",
                ]);
                for l in &d.rates {
                    t.row(vec![
                        l.vat_rate.normalize().to_string(),
                        text(l.exemption.as_deref()),
                        l.documents.to_string(),
                        money(l.sales.taxable_base),
                        money(l.sales.vat),
                        money(l.reversals.taxable_base),
                        money(l.reversals.vat),
                        money(l.taxable_base),
                        money(l.vat),
                        money(l.gross),
                    ]);
                }
                t
            }
        }
    })
}

/// `GET /api/v1/reports/daily-trend`
pub async fn daily_trend(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.daily_trend(&caller, r.query.clone()).await?;
    answer(r.format, "daily-trend", r.query.period, &data, |d: &DailyTrend| {
        let mut t = Table { columns: columns(&["date"], &SALES_COLUMNS), rows: Vec::new() };
        for day in &d.items {
            t.row([vec![day.date.to_string()], sales_cells(&day.sales)].concat());
        }
        t
    })
}

/// `GET /api/v1/reports/top-clients`
pub async fn top_clients(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.top_clients(&caller, r.query.clone(), r.limit).await?;
    answer(r.format, "top-clients", r.query.period, &data, |d: &TopClients| {
        let mut t = Table::new(&[
            "client_id",
            "name",
            "id_type",
            "id_value",
            "documents",
            "quantity",
            "net",
            "vat",
            "gross",
        ]);
        for c in &d.items {
            t.row(vec![
                c.client_id.map(|i| i.to_string()).unwrap_or_default(),
                c.name.clone(),
                text(c.id_type.as_deref()),
                text(c.id_value.as_deref()),
                c.documents.to_string(),
                c.quantity.to_string(),
                money(c.net),
                money(c.vat),
                money(c.gross),
            ]);
        }
        t
    })
}

/// `GET /api/v1/reports/top-products`
pub async fn top_products(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.top_products(&caller, r.query.clone(), r.limit).await?;
    answer(r.format, "top-products", r.query.period, &data, |d: &TopProducts| {
        let mut t =
            Table::new(&["product_code", "product_name", "unit", "quantity", "lines", "net", "vat", "gross"]);
        for p in &d.items {
            t.row(vec![
                p.product_code.clone(),
                p.product_name.clone(),
                p.unit.clone(),
                p.quantity.to_string(),
                p.lines.to_string(),
                money(p.net),
                money(p.vat),
                money(p.gross),
            ]);
        }
        t
    })
}

/// `GET /api/v1/reports/by-operator` (the spec's shape).
pub async fn by_operator(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.by_operator(&caller, r.query.clone()).await?;
    answer(r.format, "by-operator", r.query.period, &data, |d: &ByOperator| {
        let mut t = Table::new(&["id_user", "name", "operator_code", "invoices", "gross"]);
        for o in &d.items {
            t.row(vec![
                o.id_user.map(|i| i.to_string()).unwrap_or_default(),
                o.name.clone(),
                text(o.operator_code.as_deref()),
                o.invoices.to_string(),
                money(o.gross),
            ]);
        }
        t
    })
}

/// `GET /api/v1/reports/by-tcr`
pub async fn by_tcr(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.by_tcr(&caller, r.query.clone()).await?;
    answer(r.format, "by-tcr", r.query.period, &data, |d: &ByTcr| {
        let mut t =
            Table { columns: columns(&["tcr_code", "name", "branch_id"], &SALES_COLUMNS), rows: Vec::new() };
        t.columns.push("cash".into());
        for l in &d.items {
            let mut row = vec![
                text(l.tcr_code.as_deref()),
                text(l.name.as_deref()),
                l.branch_id.map(|b| b.to_string()).unwrap_or_default(),
            ];
            row.extend(sales_cells(&l.sales));
            row.push(money(l.cash));
            t.row(row);
        }
        t
    })
}

/// `GET /api/v1/reports/cash-register`
pub async fn cash_register(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.cash_register_report(&caller, r.query.clone()).await?;
    answer(r.format, "cash-register", r.query.period, &data, |d: &CashRegisterReport| {
        let mut t = Table::new(&[
            "tcr_code",
            "name",
            "initial",
            "opening_deposits",
            "deposits",
            "withdrawals",
            "closing_withdrawals",
            "actions",
            "waiting",
            "cash_sales",
            "change",
        ]);
        for l in &d.items {
            t.row(vec![
                l.tcr_code.clone(),
                text(l.name.as_deref()),
                money(l.initial),
                money(l.opening_deposits),
                money(l.deposits),
                money(l.withdrawals),
                money(l.closing_withdrawals),
                l.actions.to_string(),
                l.waiting.to_string(),
                money(l.cash_sales),
                money(l.change),
            ]);
        }
        t
    })
}

/// `GET /api/v1/reports/cash-register/closing`
pub async fn closing(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.closing_report(&caller, r.query.clone(), r.limit, r.offset).await?;
    answer(r.format, "cash-register-closing", r.query.period, &data, |d: &ClosingReport| {
        let mut t = Table::new(&[
            "id",
            "tcr_code",
            "business_day",
            "status",
            "opened_at",
            "closed_at",
            "carried_over",
            "opening",
            "deposits",
            "withdrawals",
            "cash_sales",
            "expected",
            "counted",
            "difference",
            "withdrawn",
        ]);
        let maybe = |a: Option<Decimal>| a.map(money).unwrap_or_default();
        for c in &d.items {
            t.row(vec![
                c.id.to_string(),
                c.tcr_code.clone(),
                c.business_day.clone(),
                c.status.into(),
                c.opened_at.clone(),
                text(c.closed_at.as_deref()),
                maybe(c.carried_over),
                money(c.opening),
                money(c.deposits),
                money(c.withdrawals),
                money(c.cash_sales),
                maybe(c.expected),
                maybe(c.counted),
                maybe(c.difference),
                money(c.withdrawn),
            ]);
        }
        t
    })
}

/// `GET /api/v1/reports/reversals` (the spec's shape).
pub async fn reversals(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let r = read_request(&params, &headers)?;
    let data = state.services.reversals_report(&caller, r.query.clone(), r.limit, r.offset).await?;
    answer(r.format, "reversals", r.query.period, &data, |d: &Reversals| {
        let mut t =
            Table::new(&["id", "number", "type", "reversed_at", "original_invoice_id", "gross", "operator"]);
        for l in &d.items {
            t.row(vec![
                l.id.to_string(),
                l.number.clone(),
                l.invoice_type.into(),
                text(l.reversed_at.as_deref()),
                l.original_invoice_id.map(|i| i.to_string()).unwrap_or_default(),
                money(l.gross),
                text(l.operator.as_deref()),
            ]);
        }
        t
    })
}

/// `GET /api/v1/dashboard/summary`: `date` (default today) instead of a period.
pub async fn dashboard(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(params): Query<ReportParams>,
) -> ApiResult {
    let day = match params.date.as_deref().filter(|d| !d.trim().is_empty()) {
        None => None,
        Some(day) => Some(
            Period::read(Some(day), Some(day))
                .map(|p| p.from)
                .map_err(|_| ApiError::field("date", "The date must be a date in the format YYYY-MM-DD."))?,
        ),
    };
    let data = state.services.dashboard(&caller, day).await?;
    ok(data)
}
