//! A report's request and answer, a shop's and its head office's alike: the query (`from`, `to`,
//! `limit`, `offset`, the `branch`/`tcr`/`operator` filters) read into a `ReportRequest`, and the
//! answer as JSON (`{status, data}` with `data.period`), as CSV (`Accept: text/csv` or
//! `?format=csv`, a file named after the report and its period; one writer, its cells neutralised
//! against spreadsheet formulas) or, for the closing report, as a PDF to print.

use axum::http::header::{ACCEPT, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult, ok};
use arka_core::domain::report::{self, Period};
use arka_core::domain::validation::FieldErrors;
use arka_core::report::{
    ByOperator, ByTcr, CashRegisterReport, Closing, ClosingReport, DailyTrend, ReportQuery, Reversals, Sales,
    SalesSummary, TopClients, TopProducts, VatReport, WtnReport,
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
    /// The closing report's PDF: `a4` (the default) or `receipt` (80 mm).
    paper: Option<String>,
}

impl ReportParams {
    /// `documents=true`: the VAT report with a page of the sales book.
    pub fn documents(&self) -> Option<&str> {
        self.documents.as_deref()
    }

    /// `date=` of the dashboard.
    pub fn date(&self) -> Option<&str> {
        self.date.as_deref()
    }

    /// `paper=` of the closing report's PDF.
    pub fn paper(&self) -> Option<&str> {
        self.paper.as_deref()
    }
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

/// The report `name` as `request` asks for it: JSON, or a CSV file named after it and its period
/// (a shop's, or the head office's with the same shapes).
pub fn answer_as<T: Serialize + AsTable>(request: &ReportRequest, name: &str, data: T) -> ApiResult {
    match request.format {
        Format::Json => ok(data),
        Format::Csv => {
            let body = data.table().to_csv()?;
            let period = request.query.period;
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

/// A report as a table, for CSV.
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[&str]) -> Table {
        Table { columns: columns.iter().map(|c| c.to_string()).collect(), rows: Vec::new() }
    }

    /// UTF-8 with a byte-order mark (so a spreadsheet reads ë and ç), comma-separated, a dot
    /// for decimals, quoted where needed (RFC 4180), every cell `neutralised`. The one writer of
    /// every CSV the server answers (the reports, the head office's, the audit trail).
    pub fn to_csv(&self) -> Result<Vec<u8>, ApiError> {
        let mut writer = csv::Writer::from_writer(b"\xEF\xBB\xBF".to_vec());
        let failed = |e: csv::Error| {
            tracing::error!(cause = %e, "a report could not be written as CSV");
            ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
        };
        writer.write_record(self.columns.iter().map(|c| neutralised(c).into_owned())).map_err(failed)?;
        for row in &self.rows {
            writer.write_record(row.iter().map(|c| neutralised(c).into_owned())).map_err(failed)?;
        }
        writer.into_inner().map_err(|e| failed(e.into_error().into()))
    }
}

/// A cell as a spreadsheet may open it safely (OWASP's CSV injection rule): one that begins with
/// `=`, `+`, `-`, `@`, a tab or a carriage return would be run as a formula (a product named
/// `=HYPERLINK(…)` in the top products), so it gets a leading `'`, which spreadsheets take as
/// "text" and do not show. A number stays as it is (`-37.50`, `-5`): it runs nothing, and a
/// spreadsheet still reads it as a number.
pub fn neutralised(cell: &str) -> std::borrow::Cow<'_, str> {
    let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if formula && !is_plain_number(cell) { format!("'{cell}").into() } else { cell.into() }
}

/// `-37.50`, `12`, `-0.5`: an optional minus, digits, and optionally a dot and digits.
fn is_plain_number(cell: &str) -> bool {
    let digits = cell.strip_prefix('-').unwrap_or(cell);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    all_digits(whole) && all_digits(fraction)
}

/// What a report is as a CSV table.
pub trait AsTable {
    fn table(&self) -> Table;
}

/// A value in a CSV cell: amounts with two decimals, nothing for null.
pub trait Cell {
    fn cell(&self) -> String;
}

impl Cell for Decimal {
    fn cell(&self) -> String {
        format!("{self:.2}")
    }
}

impl Cell for i64 {
    fn cell(&self) -> String {
        self.to_string()
    }
}

impl Cell for usize {
    fn cell(&self) -> String {
        self.to_string()
    }
}

impl Cell for bool {
    fn cell(&self) -> String {
        self.to_string()
    }
}

impl Cell for str {
    fn cell(&self) -> String {
        self.to_string()
    }
}

impl Cell for String {
    fn cell(&self) -> String {
        self.clone()
    }
}

impl Cell for NaiveDate {
    fn cell(&self) -> String {
        self.to_string()
    }
}

impl<T: Cell + ?Sized> Cell for &T {
    fn cell(&self) -> String {
        (**self).cell()
    }
}

impl<T: Cell> Cell for Option<T> {
    fn cell(&self) -> String {
        self.as_ref().map(Cell::cell).unwrap_or_default()
    }
}

/// A CSV row of cells.
macro_rules! cells {
    ($($value:expr),* $(,)?) => { vec![$(Cell::cell(&$value)),*] };
}

/// A quantity or a rate as written, without padding.
fn plain(value: Decimal) -> String {
    value.normalize().to_string()
}

const SALES_COLUMNS: [&str; 6] = ["documents", "reversals", "waiting", "net", "vat", "gross"];

fn sales_cells(s: &Sales) -> Vec<String> {
    cells![s.documents, s.reversals, s.waiting, s.net, s.vat, s.gross]
}

fn columns(first: &[&str], rest: &[&str]) -> Vec<String> {
    first.iter().chain(rest).map(|c| c.to_string()).collect()
}

impl AsTable for SalesSummary {
    fn table(&self) -> Table {
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
        let none: Option<Decimal> = None;
        let d = self;
        t.rows.push(cells![
            "total",
            "ALL",
            d.totals.documents,
            d.totals.waiting,
            d.totals.net,
            d.totals.vat,
            d.totals.gross,
            d.discount,
            d.fee,
            none,
            none,
            none
        ]);
        for k in &d.by_kind {
            t.rows.push(cells![
                "kind",
                k.kind,
                k.documents,
                k.waiting,
                k.net,
                k.vat,
                k.gross,
                k.discount,
                k.fee,
                none,
                none,
                none
            ]);
        }
        for p in &d.by_payment {
            t.rows.push(cells![
                "payment",
                p.payment_method,
                p.documents,
                none,
                none,
                none,
                p.amount,
                none,
                none,
                none,
                none,
                none
            ]);
        }
        for c in &d.by_currency {
            t.rows.push(cells![
                "currency",
                c.currency,
                c.documents,
                c.waiting,
                c.net_all,
                c.vat_all,
                c.gross_all,
                none,
                none,
                c.net,
                c.vat,
                c.gross
            ]);
        }
        let o = &d.orders;
        t.rows.push(cells![
            "orders",
            "ORDER",
            o.documents,
            o.waiting,
            none,
            none,
            o.gross,
            none,
            none,
            none,
            none,
            none
        ]);
        t
    }
}

impl AsTable for VatReport {
    fn table(&self) -> Table {
        let class = |rate: Decimal, exemption: &Option<String>| match exemption {
            Some(e) => e.clone(),
            None => format!("{}%", plain(rate)),
        };
        let Some(items) = &self.items else {
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
            for l in &self.rates {
                t.rows.push(cells![
                    plain(l.vat_rate),
                    l.exemption,
                    l.documents,
                    l.amounts.sales.taxable_base,
                    l.amounts.sales.vat,
                    l.amounts.reversals.taxable_base,
                    l.amounts.reversals.vat,
                    l.amounts.taxable_base,
                    l.amounts.vat,
                    l.amounts.gross
                ]);
            }
            return t;
        };
        // The sales book: one row per document, a pair of columns per VAT class of the period.
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
        let classes: Vec<String> = self.rates.iter().map(|r| class(r.vat_rate, &r.exemption)).collect();
        t.columns.extend(classes.iter().flat_map(|c| [format!("taxable_base_{c}"), format!("vat_{c}")]));
        t.columns.extend(["taxable_base", "vat", "gross"].map(String::from));
        for e in items {
            let mut row = cells![
                e.id,
                e.number,
                e.invoice_type,
                e.kind,
                e.issue_date,
                e.buyer_name,
                e.buyer_id,
                e.currency,
                e.waiting
            ];
            for c in &classes {
                let found = e.rates.iter().find(|r| &class(r.vat_rate, &r.exemption) == c);
                row.extend(cells![found.map(|r| r.taxable_base), found.map(|r| r.vat)]);
            }
            row.extend(cells![e.taxable_base, e.vat, e.gross]);
            t.rows.push(row);
        }
        t
    }
}

impl AsTable for DailyTrend {
    fn table(&self) -> Table {
        let mut t = Table { columns: columns(&["date"], &SALES_COLUMNS), rows: Vec::new() };
        for day in &self.items {
            t.rows.push([cells![day.date], sales_cells(&day.sales)].concat());
        }
        t
    }
}

impl AsTable for TopClients {
    fn table(&self) -> Table {
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
        for c in &self.items {
            t.rows.push(cells![
                c.client_id,
                c.name,
                c.id_type,
                c.id_value,
                c.documents,
                plain(c.quantity),
                c.net,
                c.vat,
                c.gross
            ]);
        }
        t
    }
}

impl AsTable for TopProducts {
    fn table(&self) -> Table {
        let mut t =
            Table::new(&["product_code", "product_name", "unit", "quantity", "lines", "net", "vat", "gross"]);
        for p in &self.items {
            t.rows.push(cells![
                p.product_code,
                p.product_name,
                p.unit,
                plain(p.quantity),
                p.lines,
                p.net,
                p.vat,
                p.gross
            ]);
        }
        t
    }
}

impl AsTable for ByOperator {
    fn table(&self) -> Table {
        let mut t = Table::new(&["id_user", "name", "operator_code", "invoices", "gross"]);
        for o in &self.items {
            t.rows.push(cells![o.id_user, o.name, o.operator_code, o.invoices, o.gross]);
        }
        t
    }
}

impl AsTable for ByTcr {
    fn table(&self) -> Table {
        let mut t =
            Table { columns: columns(&["tcr_code", "name", "branch_id"], &SALES_COLUMNS), rows: Vec::new() };
        t.columns.push("cash".into());
        for l in &self.items {
            t.rows.push(
                [cells![l.tcr_code, l.name, l.branch_id], sales_cells(&l.sales), cells![l.cash]].concat(),
            );
        }
        t
    }
}

impl AsTable for CashRegisterReport {
    fn table(&self) -> Table {
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
        for l in &self.items {
            t.rows.push(cells![
                l.tcr_code,
                l.name,
                l.initial,
                l.opening_deposits,
                l.deposits,
                l.withdrawals,
                l.closing_withdrawals,
                l.actions,
                l.waiting,
                l.cash_sales,
                l.change
            ]);
        }
        t
    }
}

impl AsTable for ClosingReport {
    fn table(&self) -> Table {
        let mut t = Table::new(&[
            "id",
            "tcr_code",
            "name",
            "business_day",
            "status",
            "opened_at",
            "closed_at",
            "receipts",
            "carried_over",
            "opening",
            "banknotes_in",
            "banknotes_out",
            "change_given",
            "deposits",
            "withdrawals",
            "not_in_drawer",
            "cash_sales",
            "expected",
            "counted",
            "difference",
            "withdrawn",
            "balance",
        ]);
        for c in &self.items {
            let not_in_drawer: Vec<String> = c
                .not_in_drawer
                .iter()
                .map(|(method, amount)| format!("{method} {}", amount.cell()))
                .collect();
            t.rows.push(cells![
                c.id,
                c.tcr_code,
                c.name,
                c.business_day,
                c.status,
                c.opened_at,
                c.closed_at,
                c.receipts.count as i64,
                c.carried_over,
                c.opening,
                c.drawer.map(|d| d.banknotes_in),
                c.drawer.map(|d| d.banknotes_out),
                c.drawer.map(|d| d.change_given),
                c.deposits,
                c.withdrawals,
                not_in_drawer.join("; "),
                c.cash_sales,
                c.expected,
                c.counted,
                c.difference,
                c.withdrawn,
                c.balance
            ]);
        }
        t
    }
}

impl AsTable for Reversals {
    fn table(&self) -> Table {
        let mut t =
            Table::new(&["id", "number", "type", "reversed_at", "original_invoice_id", "gross", "operator"]);
        for l in &self.items {
            t.rows.push(cells![
                l.id,
                l.number,
                l.invoice_type,
                l.reversed_at,
                l.original_invoice_id,
                l.gross,
                l.operator
            ]);
        }
        t
    }
}

impl AsTable for WtnReport {
    /// The totals, then one row per fiscal status, then one per destination.
    fn table(&self) -> Table {
        let mut t = Table::new(&[
            "section",
            "status",
            "business_unit_id",
            "business_unit",
            "point",
            "city",
            "address",
            "count",
            "value_of_goods",
        ]);
        let none = None::<String>;
        t.rows.push(cells![
            "totals",
            none,
            none,
            none,
            none,
            none,
            none,
            self.totals.count,
            self.totals.value_of_goods
        ]);
        for s in &self.by_status {
            t.rows.push(cells![
                "by_status",
                s.status,
                none,
                none,
                none,
                none,
                none,
                s.tally.count,
                s.tally.value_of_goods
            ]);
        }
        for d in &self.destinations {
            let unit = d.business_unit.as_ref();
            t.rows.push(cells![
                "destinations",
                none,
                unit.map(|u| u.id),
                unit.and_then(|u| u.name.clone()),
                d.point,
                d.city,
                d.address,
                d.tally.count,
                d.tally.value_of_goods
            ]);
        }
        t
    }
}

/// The closing report's `paper`: `a4` (the default) or `receipt` (80 mm).
pub fn paper(params: &ReportParams) -> Result<arka_print::Layout, ApiError> {
    match params.paper().map(str::trim) {
        None | Some("") | Some("a4") => Ok(arka_print::Layout::A4),
        Some("receipt") => Ok(arka_print::Layout::Receipt80mm),
        Some(_) => Err(ApiError::field("paper", "The paper must be a4 or receipt.")),
    }
}

/// The closing report's days printed under `company` (its heading's first line), a shop's and
/// the head office's alike; no day is a 404.
pub fn closing_pdf_of(
    company: &str,
    period: report::Period,
    report: &ClosingReport,
    layout: arka_print::Layout,
) -> ApiResult {
    if report.items.is_empty() {
        return Err(ApiError::status(StatusCode::NOT_FOUND, "No day of a till in this period."));
    }
    let heading = [company.to_string(), format!("{} - {}", period.from, period.to)];
    let days: Vec<_> = report.items.iter().map(day_report).collect();
    let pdf = arka_print::render_days("Arka · X / Z", &heading, &days, layout).map_err(|e| {
        tracing::error!(cause = %e, "a closing report could not be printed");
        ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
    })?;
    let filename = format!("arka-closing-{}-{}.pdf", period.from, period.to);
    Ok(pdf_answer(&filename, pdf))
}

/// A day of the closing report as printed, its labels in Albanian and English: what an owner
/// and an inspector read of a till's day, then a line for each signature.
fn day_report(c: &Closing) -> arka_print::DayReport {
    use arka_print::DayLine::{Amount, Heading, Signature, Text};
    use arka_print::labels as l;
    let open = c.status == "open";
    let mut rows = vec![Text(l::DAY_OPENED.into(), c.opened_at.clone())];
    if let Some(at) = &c.closed_at {
        rows.push(Text(l::DAY_CLOSED.into(), at.clone()));
    }
    rows.push(Heading(l::CASHIERS.into()));
    for cashier in &c.cashiers {
        let name =
            cashier.name.clone().or_else(|| cashier.id_user.map(|id| format!("#{id}"))).unwrap_or_default();
        rows.push(Text(name, cashier.operator_code.clone().unwrap_or_default()));
    }
    rows.push(Heading(l::RECEIPTS.into()));
    rows.push(Text(l::RECEIPT_COUNT.into(), c.receipts.count.to_string()));
    if let (Some(first), Some(last)) = (&c.receipts.first, &c.receipts.last) {
        rows.push(Text(l::RECEIPT_RANGE.into(), format!("{first} - {last}")));
    }
    if c.receipts.waiting > 0 {
        rows.push(Text(l::RECEIPT_WAITING.into(), c.receipts.waiting.to_string()));
    }
    rows.push(Amount(l::SALES_GROSS.into(), Some(c.receipts.gross)));
    rows.push(Heading(l::SALES_BY_METHOD.into()));
    for (method, amount) in &c.sales_by_payment_method {
        rows.push(Amount(l::payment_method(method), Some(*amount)));
    }
    rows.push(Heading(l::VAT_BY_RATE.into()));
    for line in &c.vat {
        let class = match &line.exemption {
            Some(exemption) => format!("{} % ({exemption})", line.vat_rate.normalize()),
            None => format!("{} %", line.vat_rate.normalize()),
        };
        rows.push(Amount(format!("{class} · Pa TVSH / Net"), Some(line.net)));
        rows.push(Amount(format!("{class} · TVSH / VAT"), Some(line.vat)));
        rows.push(Amount(format!("{class} · Me TVSH / Gross"), Some(line.gross)));
    }
    rows.push(Heading(l::CANCELLATIONS.into()));
    rows.push(Text(l::RECEIPT_COUNT.into(), c.cancellations.count.to_string()));
    for document in &c.cancellations.documents {
        let label = match &document.corrects {
            Some(original) => format!("{} ({} {original})", document.number, l::CANCELS),
            None => document.number.clone(),
        };
        rows.push(Amount(label, Some(document.gross)));
    }
    for (method, amount) in &c.cancellations.by_payment_method {
        rows.push(Amount(l::payment_method(method), Some(*amount)));
    }
    rows.push(Heading(l::DRAWER.into()));
    match &c.drawer {
        Some(d) => rows.extend([
            Amount(l::CARRIED_OVER.into(), Some(d.carried_over)),
            Amount(l::OPENING.into(), Some(d.opening)),
            Amount(l::BANKNOTES_IN.into(), Some(d.banknotes_in)),
            Amount(l::BANKNOTES_OUT.into(), Some(d.banknotes_out)),
            Amount(l::CHANGE_GIVEN.into(), Some(d.change_given)),
            Amount(l::DEPOSITS.into(), Some(d.deposits)),
            Amount(l::WITHDRAWALS.into(), Some(d.withdrawals)),
            Amount(l::EXPECTED.into(), Some(d.expected)),
        ]),
        None => rows.extend([
            Amount(l::OPENING.into(), Some(c.opening)),
            Amount(l::DEPOSITS.into(), Some(c.deposits)),
            Amount(l::WITHDRAWALS.into(), Some(c.withdrawals)),
            Amount(
                if c.counted_against == "balance" { l::EXPECTED_BALANCE } else { l::EXPECTED }.into(),
                c.expected,
            ),
        ]),
    }
    rows.push(Heading(l::NOT_IN_DRAWER.into()));
    for (method, amount) in &c.not_in_drawer {
        rows.push(Amount(l::payment_method(method), Some(*amount)));
    }
    if !open {
        rows.push(Heading(l::COUNT.into()));
        for (denomination, pieces) in c.denominations.iter().flatten().rev() {
            let value = Decimal::from(*denomination) * Decimal::from(*pieces);
            rows.push(Amount(format!("{denomination} L x {pieces}"), Some(value)));
        }
        rows.extend([
            Amount(l::COUNTED.into(), c.counted),
            Amount(l::DIFFERENCE.into(), c.difference),
            Amount(l::WITHDRAWN.into(), Some(c.withdrawn)),
            Amount(l::BALANCE.into(), c.balance),
        ]);
    }
    rows.extend([Signature(l::CASHIER_SIGNATURE.into()), Signature(l::MANAGER_SIGNATURE.into())]);
    let kind = if open { l::X_REPORT } else { l::Z_REPORT };
    let till = match &c.name {
        Some(name) => format!("{name} ({})", c.tcr_code),
        None => c.tcr_code.clone(),
    };
    arka_print::DayReport { title: format!("{kind} · {till} · {}", c.business_day), rows }
}

/// A PDF answered inline under `filename`.
pub fn pdf_answer(filename: &str, pdf: Vec<u8>) -> Response {
    (
        [
            (CONTENT_TYPE, "application/pdf".to_string()),
            (CONTENT_DISPOSITION, format!("inline; filename=\"{filename}\"")),
        ],
        pdf,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_that_begins_like_a_formula_is_text_and_a_number_stays_a_number() {
        let table = [
            ("=1+1", "'=1+1"),
            ("+1", "'+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("-", "'-"),
            ("-.5", "'-.5"),
            ("-1e3", "'-1e3"),
            ("-37.50", "-37.50"),
            ("-5", "-5"),
            ("12.00", "12.00"),
            ("Kafe = 1", "Kafe = 1"),
            ("'quoted", "'quoted"),
            ("", ""),
        ];
        for (cell, written) in table {
            assert_eq!(neutralised(cell), written, "{cell:?}");
        }
        let mut t = Table::new(&["name", "gross"]);
        t.rows.push(vec!["=HYPERLINK(\"http://evil.example\",\"x\")".into(), Decimal::new(-3750, 2).cell()]);
        let text = String::from_utf8(t.to_csv().unwrap()).unwrap();
        assert_eq!(
            text,
            "\u{feff}name,gross\n\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\",-37.50\n"
        );
    }
}
