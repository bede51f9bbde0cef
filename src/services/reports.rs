//! Reports and the dashboard: the store's sums put together the way an accountant reads them.
//! Each report runs in one read transaction, so its parts agree with each other. Amounts are
//! in lek (ALL) as the CIS registered them (see `domain::report`), sales always net of their
//! reversals; deferred documents (fic null) count like any other and are flagged as `waiting`.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Serialize;

use super::{Result, Services};
use crate::domain::cash_register::Purpose;
use crate::domain::document::DocumentKind;
use crate::domain::drawer::{Count, DayFigures, Drawer};
use crate::domain::money::{self, Overflow};
use crate::domain::report::{self, Comparison, Period, ReportKind};
use crate::domain::time::{local_text, parse_stored};
use crate::domain::validation::FieldErrors;
use crate::store::accounts::Caller;
pub use crate::store::invoices::report_totals::Drift;
use crate::store::invoices::report_totals::{self, figures_of};
use crate::store::invoices::{self, Invoice};
use crate::store::reports::{self as db, Filter, SalesBy, SalesRow, SalesSums, WaitingRow};
use crate::store::{self, Store};

/// What a report was asked for, as the edge read it.
#[derive(Debug, Clone)]
pub struct ReportQuery {
    pub period: Period,
    pub branch: Option<i64>,
    pub tcr: Option<String>,
    pub operator: Option<String>,
}

/// `data.period` of every answer.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PeriodView {
    pub from: NaiveDate,
    pub to: NaiveDate,
}

impl From<Period> for PeriodView {
    fn from(p: Period) -> Self {
        PeriodView { from: p.from, to: p.to }
    }
}

/// Sales of a group, net of reversals, in lek.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Sales {
    /// Sales documents (cash, non-cash, e-invoices, summaries).
    pub documents: i64,
    /// Corrective documents (cancellations), whose amounts are negative.
    pub reversals: i64,
    /// Of those, how many still wait for the CIS.
    pub waiting: i64,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

impl Sales {
    fn add(&mut self, kind: ReportKind, sums: &SalesSums) {
        if kind.is_sale() {
            self.documents += sums.documents;
        } else if kind == ReportKind::Corrective {
            self.reversals += sums.documents;
        }
        if kind.in_sales() {
            self.net += sums.net;
            self.vat += sums.vat;
            self.gross += sums.gross;
        }
    }

    pub fn of<'a>(rows: impl IntoIterator<Item = &'a SalesRow>, waiting: i64) -> Sales {
        let mut sales = Sales { waiting, ..Sales::default() };
        for row in rows {
            sales.add(row.kind, &row.sums);
        }
        sales
    }
}

fn count_waiting<'a>(waiting: impl IntoIterator<Item = &'a WaitingRow>) -> i64 {
    waiting.into_iter().filter(|w| w.kind.in_sales()).count() as i64
}

/// One kind of document in the sales summary.
#[derive(Debug, Clone, Serialize)]
pub struct KindLine {
    pub kind: &'static str,
    pub documents: i64,
    pub waiting: i64,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
    pub discount: Decimal,
    pub fee: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct PaymentLine {
    pub payment_method: String,
    pub documents: i64,
    pub amount: Decimal,
}

/// The foreign-currency documents of one currency: in it and in lek.
#[derive(Debug, Clone, Serialize)]
pub struct CurrencyLine {
    pub currency: String,
    pub documents: i64,
    pub waiting: i64,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
    pub net_all: Decimal,
    pub vat_all: Decimal,
    pub gross_all: Decimal,
}

/// Orders: not sales until a summary pays them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Orders {
    pub documents: i64,
    pub waiting: i64,
    pub gross: Decimal,
    /// Issued in the period and still neither paid by a summary nor cancelled.
    pub open: i64,
    /// Cancellations of orders issued in the period.
    pub cancelled: i64,
    pub cancelled_gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct SalesSummary {
    pub period: PeriodView,
    pub currency: &'static str,
    pub totals: Sales,
    pub discount: Decimal,
    pub fee: Decimal,
    pub by_kind: Vec<KindLine>,
    pub by_payment: Vec<PaymentLine>,
    pub by_currency: Vec<CurrencyLine>,
    pub orders: Orders,
}

/// Taxable base and VAT.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Taxed {
    pub taxable_base: Decimal,
    pub vat: Decimal,
}

/// One VAT rate or exemption of the VAT report.
#[derive(Debug, Clone, Serialize)]
pub struct VatLine {
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    pub documents: i64,
    #[serde(flatten)]
    pub amounts: VatAmounts,
}

/// One document of the sales book.
#[derive(Debug, Clone, Serialize)]
pub struct BookEntry {
    pub id: i64,
    pub number: String,
    #[serde(rename = "type")]
    pub invoice_type: &'static str,
    pub kind: &'static str,
    pub issue_date: String,
    pub issued_at: String,
    pub buyer_name: Option<String>,
    pub buyer_id_type: Option<String>,
    pub buyer_id: Option<String>,
    pub currency: String,
    pub exchange_rate: Decimal,
    pub waiting: bool,
    pub rates: Vec<BookRate>,
    pub taxable_base: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct BookRate {
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    pub taxable_base: Decimal,
    pub vat: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct Pagination {
    pub records: usize,
    pub limit: i64,
    pub offset: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct VatReport {
    pub period: PeriodView,
    pub currency: &'static str,
    pub rates: Vec<VatLine>,
    pub totals: VatAmounts,
    pub waiting: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<BookEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pagination: Option<Pagination>,
}

/// Sales and reversals of a VAT class (or of them all), and what they come to.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct VatAmounts {
    pub sales: Taxed,
    pub reversals: Taxed,
    pub taxable_base: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

impl VatAmounts {
    /// Adds lines with base `net` and `vat`: of sales, or of reversals.
    fn add(&mut self, sale: bool, net: Decimal, vat: Decimal) {
        let part = if sale { &mut self.sales } else { &mut self.reversals };
        part.taxable_base += net;
        part.vat += vat;
        self.taxable_base += net;
        self.vat += vat;
        self.gross += net + vat;
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TrendDay {
    pub date: NaiveDate,
    #[serde(flatten)]
    pub sales: Sales,
}

#[derive(Debug, Clone, Serialize)]
pub struct DailyTrend {
    pub period: PeriodView,
    pub currency: &'static str,
    pub totals: Sales,
    pub items: Vec<TrendDay>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TopClients {
    pub period: PeriodView,
    pub currency: &'static str,
    /// Every buyer of the period (not only those listed).
    pub totals: BuyerTotals,
    /// Sales without a buyer (a receipt over the counter).
    pub anonymous: Anonymous,
    pub items: Vec<db::ClientRow>,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct BuyerTotals {
    pub clients: usize,
    pub documents: i64,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Anonymous {
    pub documents: i64,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProductLine {
    pub product_code: String,
    pub product_name: String,
    pub unit: String,
    pub quantity: Decimal,
    pub lines: i64,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct TopProducts {
    pub period: PeriodView,
    pub currency: &'static str,
    pub totals: ProductTotals,
    pub items: Vec<ProductLine>,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ProductTotals {
    pub products: usize,
    pub gross: Decimal,
}

/// The spec's by-operator item.
#[derive(Debug, Clone, Serialize)]
pub struct OperatorLine {
    pub id_user: Option<i64>,
    pub name: String,
    pub operator_code: Option<String>,
    pub invoices: i64,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct ByOperator {
    pub period: PeriodView,
    pub items: Vec<OperatorLine>,
    /// Documents of the period still waiting for the CIS (counted above as well).
    pub waiting: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct TcrLine {
    /// Null for the business's non-cash documents, which no TCR issues.
    pub tcr_code: Option<String>,
    pub name: Option<String>,
    pub branch_id: Option<i64>,
    #[serde(flatten)]
    pub sales: Sales,
    /// What the TCR's documents moved its cash balance by.
    pub cash: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct ByTcr {
    pub period: PeriodView,
    pub currency: &'static str,
    pub totals: Sales,
    pub items: Vec<TcrLine>,
}

/// A TCR's cash movements of the period by type, and its cash sales.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TillLine {
    pub tcr_code: String,
    pub name: Option<String>,
    /// INITIAL actions (the day's opening; 0 when opened by the first sale).
    pub initial: Decimal,
    /// MONEY_IN of a later open-balance that raised the opening.
    pub opening_deposits: Decimal,
    /// MONEY_IN (deposit).
    pub deposits: Decimal,
    /// MONEY_OUT (withdraw).
    pub withdrawals: Decimal,
    /// MONEY_OUT registered by close-balance.
    pub closing_withdrawals: Decimal,
    pub actions: i64,
    /// Actions still waiting for the CIS.
    pub waiting: i64,
    /// The TCR's cash documents, as its balance counts them.
    pub cash_sales: Decimal,
    /// What the drawer gained over the period: everything above, signed.
    pub change: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct CashRegisterReport {
    pub period: PeriodView,
    pub currency: &'static str,
    pub items: Vec<TillLine>,
}

/// A person who issued the day's documents or made its cash actions.
#[derive(Debug, Clone, Serialize)]
pub struct CashierView {
    pub id_user: Option<i64>,
    pub name: Option<String>,
    pub operator_code: Option<String>,
}

/// The day's sales documents: their count, the first and last number, their gross.
#[derive(Debug, Clone, Serialize)]
pub struct ReceiptsView {
    pub count: u64,
    pub first: Option<String>,
    pub last: Option<String>,
    /// The day's documents still waiting for the CIS (cancellations included).
    pub waiting: u64,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct DayVatView {
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct CorrectiveView {
    /// The corrective document's number.
    pub number: String,
    /// The number of the invoice it cancels (in whole or in part).
    pub corrects: Option<String>,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct CancellationsView {
    pub count: usize,
    pub gross: Decimal,
    /// What they gave back, by payment method (negative).
    pub by_payment_method: BTreeMap<String, Decimal>,
    pub documents: Vec<CorrectiveView>,
}

/// One day of a TCR: the X report while open, the Z report once closed.
#[derive(Debug, Clone, Serialize)]
pub struct Closing {
    pub id: i64,
    pub tcr_code: String,
    /// The till's name.
    pub name: Option<String>,
    pub business_day: String,
    /// `closed` (Z) or `open` (X: figures so far).
    pub status: &'static str,
    pub opened_at: String,
    pub opened_automatically: bool,
    pub closed_at: Option<String>,
    pub cashiers: Vec<CashierView>,
    pub receipts: ReceiptsView,
    /// The sales (not the cancellations) by payment method, in lek.
    pub sales_by_payment_method: BTreeMap<String, Decimal>,
    /// Sales less cancellations by VAT rate, highest first, then the exemptions.
    pub vat: Vec<DayVatView>,
    pub cancellations: CancellationsView,
    pub opening: Decimal,
    pub deposits: Decimal,
    pub withdrawals: Decimal,
    /// The day's cash documents in full, as the spec's balance counts them (card included).
    pub cash_sales: Decimal,
    /// The drawer, move by move; null on an open day close-balance would not close (an older
    /// day left open on record) and on a day closed before Arka counted the drawer.
    pub drawer: Option<Drawer>,
    /// Sales less cancellations by every payment method but banknotes: not in the drawer.
    pub not_in_drawer: BTreeMap<String, Decimal>,
    /// What `expected` was: `drawer`, or `balance` on a day closed before Arka counted the
    /// drawer (it was counted against the spec's balance then).
    pub counted_against: &'static str,
    /// The count by lek notes and coins (pieces by denomination), when the close sent one.
    pub denominations: Option<Count>,
    /// The drawer before the day's own moves; known once closed, or while open on the latest day.
    pub carried_over: Option<Decimal>,
    pub expected: Option<Decimal>,
    pub counted: Option<Decimal>,
    /// counted - expected: negative when cash was missing. Booked on this day only.
    pub difference: Option<Decimal>,
    pub withdrawn: Decimal,
    /// The spec's balance at the close (card sales included); null while open.
    pub balance: Option<Decimal>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClosingReport {
    pub period: PeriodView,
    pub currency: &'static str,
    pub totals: ClosingTotals,
    pub items: Vec<Closing>,
    pub pagination: Pagination,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ClosingTotals {
    pub days: usize,
    pub open: usize,
    pub expected: Decimal,
    pub counted: Decimal,
    pub difference: Decimal,
}

/// The spec's reversal item.
#[derive(Debug, Clone, Serialize)]
pub struct ReversalLine {
    pub id: i64,
    pub number: String,
    #[serde(rename = "type")]
    pub invoice_type: &'static str,
    pub reversed_at: Option<String>,
    pub original_invoice_id: Option<i64>,
    pub gross: Decimal,
    pub operator: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ReversalTotals {
    pub count: i64,
    pub gross: Decimal,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reversals {
    pub period: PeriodView,
    pub totals: ReversalTotals,
    pub items: Vec<ReversalLine>,
    /// Cancellations of the period still waiting for the CIS (counted above as well).
    pub waiting: i64,
}

/// A dashboard period against the one before.
#[derive(Debug, Clone, Serialize)]
pub struct Compared {
    pub period: PeriodView,
    #[serde(flatten)]
    pub sales: Sales,
    pub previous: PreviousSales,
    /// The gross's change from before, in percent; null when there was nothing before.
    pub change_percent: Option<Decimal>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PreviousSales {
    pub period: PeriodView,
    #[serde(flatten)]
    pub sales: Sales,
}

#[derive(Debug, Clone, Serialize)]
pub struct DashboardQueue {
    pub waiting: usize,
    pub refused: usize,
    pub oldest_waiting_since: Option<String>,
    pub near_legal_limit: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DashboardCertificate {
    pub subject: String,
    pub expires_at: String,
    pub days_left: i64,
    pub expired: bool,
    pub expires_soon: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct OpenDay {
    pub tcr_code: String,
    pub business_day: String,
    pub opened_at: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Dashboard {
    pub period: PeriodView,
    pub currency: &'static str,
    pub today: Compared,
    pub week: Compared,
    pub month: Compared,
    pub queue: DashboardQueue,
    pub certificate: Option<DashboardCertificate>,
    pub open_days: Vec<OpenDay>,
}

/// The sales summary of a period from its sums: the shop's over its SQLite totals, the head
/// office's over every shop's (src/hq/reports.rs), one shape for both.
pub fn summarize_sales(
    period: Period,
    by_currency: &[SalesRow],
    payments: &[db::PaymentRow],
    waiting: &[WaitingRow],
    open: i64,
) -> SalesSummary {
    let waiting_of = |kind: ReportKind| waiting.iter().filter(|w| w.kind == kind).count() as i64;
    let by_kind = ReportKind::SALES
        .into_iter()
        .map(|kind| {
            let mut sums = SalesSums::default();
            by_currency.iter().filter(|r| r.kind == kind).for_each(|r| sums.add(&r.sums));
            KindLine {
                kind: kind.as_str(),
                documents: sums.documents,
                waiting: waiting_of(kind),
                net: sums.net,
                vat: sums.vat,
                gross: sums.gross,
                discount: sums.discount,
                fee: sums.fee,
            }
        })
        .collect::<Vec<_>>();
    let mut by_payment: Vec<PaymentLine> = Vec::new();
    for row in payments.iter().filter(|p| p.kind.in_sales()) {
        match by_payment.iter_mut().find(|p| p.payment_method == row.payment_method) {
            Some(line) => {
                line.documents += row.documents;
                line.amount += row.amount;
            }
            None => by_payment.push(PaymentLine {
                payment_method: row.payment_method.clone(),
                documents: row.documents,
                amount: row.amount,
            }),
        }
    }
    let mut currencies: BTreeMap<String, CurrencyLine> = BTreeMap::new();
    for row in by_currency.iter().filter(|r| r.kind.in_sales() && r.key != "ALL") {
        let line = currencies.entry(row.key.clone()).or_insert_with(|| CurrencyLine {
            currency: row.key.clone(),
            documents: 0,
            waiting: waiting.iter().filter(|w| w.kind.in_sales() && w.currency == row.key).count() as i64,
            net: Decimal::ZERO,
            vat: Decimal::ZERO,
            gross: Decimal::ZERO,
            net_all: Decimal::ZERO,
            vat_all: Decimal::ZERO,
            gross_all: Decimal::ZERO,
        });
        line.documents += row.sums.documents;
        line.net += row.sums.net_currency;
        line.vat += row.sums.vat_currency;
        line.gross += row.sums.gross_currency;
        line.net_all += row.sums.net;
        line.vat_all += row.sums.vat;
        line.gross_all += row.sums.gross;
    }
    let mut orders = Orders { open, waiting: waiting_of(ReportKind::Order), ..Orders::default() };
    for row in by_currency {
        match row.kind {
            ReportKind::Order => {
                orders.documents += row.sums.documents;
                orders.gross += row.sums.gross;
            }
            ReportKind::OrderCorrective => {
                orders.cancelled += row.sums.documents;
                orders.cancelled_gross += row.sums.gross;
            }
            _ => {}
        }
    }
    SalesSummary {
        period: period.into(),
        currency: "ALL",
        totals: Sales::of(by_currency, count_waiting(waiting)),
        discount: by_kind.iter().map(|k| k.discount).sum(),
        fee: by_kind.iter().map(|k| k.fee).sum(),
        by_kind,
        by_payment,
        by_currency: currencies.into_values().collect(),
        orders,
    }
}

/// The VAT report of `rows` (a page of the sales book with it when `book` holds one: its
/// entries, limit and offset). The shop's and the head office's alike.
pub fn vat_of(
    period: Period,
    rows: &[db::VatRow],
    waiting: &[WaitingRow],
    book: Option<(Vec<BookEntry>, i64, i64)>,
) -> VatReport {
    let mut rates: Vec<VatLine> = Vec::new();
    for row in rows.iter().filter(|r| r.kind.in_sales()) {
        let position = rates.iter().position(|l| l.vat_rate == row.vat_rate && l.exemption == row.exemption);
        let line = match position {
            Some(i) => &mut rates[i],
            None => {
                rates.push(VatLine {
                    vat_rate: row.vat_rate,
                    exemption: row.exemption.clone(),
                    documents: 0,
                    amounts: VatAmounts::default(),
                });
                let last = rates.len() - 1;
                &mut rates[last]
            }
        };
        line.documents += row.documents;
        line.amounts.add(row.kind.is_sale(), row.net, row.vat);
    }
    // Highest rate first, then the exemptions by name.
    rates.sort_by(|a, b| {
        (a.exemption.is_some(), b.vat_rate, &a.exemption).cmp(&(
            b.exemption.is_some(),
            a.vat_rate,
            &b.exemption,
        ))
    });
    let mut totals = VatAmounts::default();
    for row in rows.iter().filter(|r| r.kind.in_sales()) {
        totals.add(row.kind.is_sale(), row.net, row.vat);
    }
    let (items, pagination) = match book {
        Some((items, limit, offset)) => {
            let pagination = Pagination { records: items.len(), limit, offset };
            (Some(items), Some(pagination))
        }
        None => (None, None),
    };
    VatReport {
        period: period.into(),
        currency: "ALL",
        rates,
        totals,
        waiting: count_waiting(waiting),
        items,
        pagination,
    }
}

/// The daily trend of `rows` (sales by day) over every day of `period` (already checked).
pub fn trend_of(period: Period, rows: &[SalesRow], waiting: &[WaitingRow]) -> DailyTrend {
    let mut found: Vec<(NaiveDate, Sales)> = Vec::new();
    for day in rows.iter().map(|r| r.key.clone()).collect::<std::collections::BTreeSet<_>>() {
        let Ok(date) = day.parse::<NaiveDate>() else { continue };
        let waiting = count_waiting(waiting.iter().filter(|w| w.day == day));
        found.push((date, Sales::of(rows.iter().filter(|r| r.key == day), waiting)));
    }
    let items = report::every_day(period, &found, &Sales::default())
        .into_iter()
        .map(|(date, sales)| TrendDay { date, sales })
        .collect();
    DailyTrend {
        period: period.into(),
        currency: "ALL",
        totals: Sales::of(rows, count_waiting(waiting)),
        items,
    }
}

/// The top clients: `clients` by gross, the first `limit`; the rest of `sales` (sales by kind)
/// is the anonymous buyers'.
pub fn top_clients_of(
    period: Period,
    mut clients: Vec<db::ClientRow>,
    sales: &[SalesRow],
    limit: i64,
) -> TopClients {
    let all = Sales::of(sales, 0);
    let totals = BuyerTotals {
        clients: clients.len(),
        documents: clients.iter().map(|c| c.documents).sum(),
        gross: clients.iter().map(|c| c.gross).sum(),
    };
    // Ties broken by name, then by the buyer's key: the same order on every call.
    clients.sort_by(|a, b| {
        b.gross.cmp(&a.gross).then_with(|| a.name.cmp(&b.name)).then_with(|| a.buyer_key.cmp(&b.buyer_key))
    });
    let items = clients.into_iter().take(usize::try_from(limit).unwrap_or(0)).collect();
    TopClients {
        period: period.into(),
        currency: "ALL",
        totals,
        anonymous: Anonymous {
            documents: all.documents + all.reversals - totals.documents,
            gross: all.gross - totals.gross,
        },
        items,
    }
}

/// The top products: `products` by gross, the first `limit`.
pub fn top_products_of(period: Period, mut products: Vec<db::ProductRow>, limit: i64) -> TopProducts {
    let totals =
        ProductTotals { products: products.len(), gross: products.iter().map(|p| p.net + p.vat).sum() };
    products.sort_by(|a, b| {
        (b.net + b.vat).cmp(&(a.net + a.vat)).then_with(|| a.product_code.cmp(&b.product_code))
    });
    let items = products
        .into_iter()
        .take(usize::try_from(limit).unwrap_or(0))
        .map(|p| ProductLine {
            gross: p.net + p.vat,
            product_code: p.product_code,
            product_name: p.product_name,
            unit: p.unit,
            quantity: p.quantity,
            lines: p.lines,
            net: p.net,
            vat: p.vat,
        })
        .collect();
    TopProducts { period: period.into(), currency: "ALL", totals, items }
}

/// Sales by operator (`rows` by operator and user), named from `users` (id: name, operator code).
pub fn by_operator_of(
    period: Period,
    rows: &[SalesRow],
    waiting: &[WaitingRow],
    users: &std::collections::HashMap<i64, (String, Option<String>)>,
) -> ByOperator {
    let mut items: Vec<OperatorLine> = Vec::new();
    let mut groups: Vec<(i64, String)> = rows.iter().map(|r| (r.user_id, r.key.clone())).collect();
    groups.dedup();
    for (user_id, operator_code) in groups {
        let sales = Sales::of(rows.iter().filter(|r| r.user_id == user_id && r.key == operator_code), 0);
        if sales.documents == 0 && sales.reversals == 0 {
            continue;
        }
        let user = users.get(&user_id);
        items.push(OperatorLine {
            id_user: user.map(|_| user_id),
            name: user.map(|(name, _)| name.clone()).unwrap_or_else(|| operator_code.clone()),
            operator_code: (!operator_code.is_empty()).then_some(operator_code),
            invoices: sales.documents,
            gross: sales.gross,
        });
    }
    items.sort_by(|a, b| {
        b.gross
            .cmp(&a.gross)
            .then_with(|| a.id_user.cmp(&b.id_user))
            .then_with(|| a.operator_code.cmp(&b.operator_code))
    });
    ByOperator { period: period.into(), items, waiting: count_waiting(waiting) }
}

/// Sales by TCR (`rows` by TCR code), named from `tcrs` (code: device name, branch id).
pub fn by_tcr_of(
    period: Period,
    rows: &[SalesRow],
    waiting: &[WaitingRow],
    tcrs: &std::collections::HashMap<String, (String, i64)>,
) -> ByTcr {
    let mut codes: Vec<String> = rows.iter().map(|r| r.key.clone()).collect();
    codes.dedup();
    let items = codes
        .into_iter()
        .map(|code| {
            let mine = || rows.iter().filter(|r| r.key == code);
            let device = tcrs.get(&code);
            TcrLine {
                sales: Sales::of(mine(), count_waiting(waiting.iter().filter(|w| w.tcr_code == code))),
                cash: mine().map(|r| r.sums.till).sum(),
                name: device.map(|(name, _)| name.clone()),
                branch_id: device.map(|(_, unit)| *unit),
                tcr_code: (!code.is_empty()).then_some(code.clone()),
            }
        })
        .collect();
    ByTcr { period: period.into(), currency: "ALL", totals: Sales::of(rows, count_waiting(waiting)), items }
}

/// The cash register report: each TCR's `movements` and its cash sales (`sales` by TCR).
pub fn cash_register_of(
    period: Period,
    movements: &[db::MovementRow],
    sales: &[SalesRow],
    tcrs: &std::collections::HashMap<String, (String, i64)>,
) -> CashRegisterReport {
    let mut items: Vec<TillLine> = Vec::new();
    let line = |items: &mut Vec<TillLine>, code: &str| -> usize {
        match items.iter().position(|l| l.tcr_code == code) {
            Some(i) => i,
            None => {
                items.push(TillLine {
                    tcr_code: code.to_string(),
                    name: tcrs.get(code).map(|(name, _)| name.clone()),
                    ..TillLine::default()
                });
                items.len() - 1
            }
        }
    };
    for m in movements {
        let i = line(&mut items, &m.tcr_code);
        let till = &mut items[i];
        till.actions += m.actions;
        till.waiting += m.waiting;
        match (m.action_type.as_str(), m.purpose.as_str()) {
            ("INITIAL", _) => till.initial += m.amount,
            ("MONEY_IN", "open") => till.opening_deposits += m.amount,
            ("MONEY_IN", _) => till.deposits += m.amount,
            ("MONEY_OUT", "close") => till.closing_withdrawals += m.amount,
            _ => till.withdrawals += m.amount,
        }
    }
    for row in sales.iter().filter(|r| !r.key.is_empty() && !r.sums.till.is_zero()) {
        let i = line(&mut items, &row.key);
        items[i].cash_sales += row.sums.till;
    }
    for till in &mut items {
        till.change = till.initial + till.opening_deposits + till.deposits + till.cash_sales
            - till.withdrawals
            - till.closing_withdrawals;
    }
    items.sort_by(|a, b| a.tcr_code.cmp(&b.tcr_code));
    CashRegisterReport { period: period.into(), currency: "ALL", items }
}

/// The X/Z report of `days` (a page of `limit` from `offset`).
pub fn closing_of(
    period: Period,
    days: &[db::DayRow],
    limit: i64,
    offset: i64,
) -> std::result::Result<ClosingReport, Overflow> {
    let items: Vec<Closing> = days.iter().map(closing).collect::<std::result::Result<_, _>>()?;
    let mut totals = ClosingTotals { days: items.len(), ..ClosingTotals::default() };
    for day in &items {
        match (day.status, day.expected, day.counted, day.difference) {
            ("closed", Some(expected), Some(counted), Some(difference)) => {
                totals.expected += expected;
                totals.counted += counted;
                totals.difference += difference;
            }
            _ => totals.open += 1,
        }
    }
    let pagination = Pagination { records: items.len(), limit, offset };
    Ok(ClosingReport { period: period.into(), currency: "ALL", totals, items, pagination })
}

/// The reversals report: the totals of the corrective documents among `rows` (sales by kind)
/// and `items`, a page of them.
pub fn reversals_of(
    period: Period,
    rows: &[SalesRow],
    waiting: &[WaitingRow],
    items: Vec<ReversalLine>,
) -> Reversals {
    let corrective = |k: ReportKind| matches!(k, ReportKind::Corrective | ReportKind::OrderCorrective);
    let mut totals = ReversalTotals::default();
    for row in rows.iter().filter(|r| corrective(r.kind)) {
        totals.count += row.sums.documents;
        totals.gross += row.sums.gross;
    }
    Reversals {
        period: period.into(),
        totals,
        items,
        waiting: waiting.iter().filter(|w| corrective(w.kind)).count() as i64,
    }
}

/// What a reversal takes back of the period's sales, in lek: a corrective document's gross
/// (negative already); a credit note's, which carries the amounts it credits as positive ones.
fn taken_back(invoice: &Invoice) -> Decimal {
    let gross = figures_of(invoice).lek.gross;
    if invoice.document_kind == DocumentKind::Corrective { gross } else { -gross.abs() }
}

impl Reversals {
    /// The report with the period's credit notes (what each takes back) in its totals: the
    /// daily totals the rest is summed from count a credit note as a sale of its kind.
    pub fn with_credit_notes(mut self, taken_back: &[Decimal]) -> Reversals {
        self.totals.count += i64::try_from(taken_back.len()).unwrap_or(i64::MAX);
        self.totals.gross += taken_back.iter().sum::<Decimal>();
        self
    }
}

pub fn stored_time(text: &str) -> String {
    parse_stored(text).map(local_text).unwrap_or_else(|| text.to_string())
}

/// The reports capability: what was sold, taxed, counted and taken back, each report read over
/// one snapshot of the books. Read-only.
#[derive(Clone, Copy)]
pub struct Reports<'a> {
    services: &'a Services,
}

impl Services {
    pub fn reports(&self) -> Reports<'_> {
        Reports { services: self }
    }
}

impl Reports<'_> {
    /// `f` over one snapshot of the books (`Store::read_snapshot`): a report's parts agree with
    /// each other.
    async fn in_snapshot<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> crate::store::Result<T> + Send + 'static,
    ) -> Result<T> {
        Ok(self.services.store.read_snapshot(f).await?)
    }

    /// The store's filter for `q`, once its branch, TCR and operator are the company's own.
    async fn report_filter(&self, caller: &Caller, q: &ReportQuery) -> Result<Filter> {
        let filter = Filter {
            company_id: caller.company.id,
            from: q.period.from.to_string(),
            to: q.period.to.to_string(),
            business_unit_id: q.branch,
            tcr_code: q.tcr.clone(),
            operator_code: q.operator.clone(),
        };
        let asked = filter.clone();
        let (branch, tcr, operator) =
            self.services.store.read(move |conn| db::filter_known(conn, &asked)).await?;
        let mut errors = FieldErrors::new();
        if !branch {
            errors.add("branch", "The branch is not one of the company's branches.");
        }
        if !tcr {
            errors.add("tcr", "The tcr is not one of the company's TCRs.");
        }
        if !operator {
            errors.add("operator", "The operator is not an operator code of the company.");
        }
        errors.into_result()?;
        Ok(filter)
    }

    pub async fn sales_summary(&self, caller: &Caller, q: ReportQuery) -> Result<SalesSummary> {
        let filter = self.report_filter(caller, &q).await?;
        let (by_currency, payments, waiting, open) = self
            .in_snapshot(move |c| {
                Ok((
                    db::sales(c, &filter, SalesBy::Currency)?,
                    db::payments(c, &filter)?,
                    db::waiting(c, &filter)?,
                    db::open_orders(c, &filter)?,
                ))
            })
            .await?;
        Ok(summarize_sales(q.period, &by_currency, &payments, &waiting, open))
    }

    /// The VAT report; with `book` (limit, offset), a page of the sales book too.
    pub async fn vat_report(
        &self,
        caller: &Caller,
        q: ReportQuery,
        book: Option<(i64, i64)>,
    ) -> Result<VatReport> {
        let filter = self.report_filter(caller, &q).await?;
        let (rows, waiting, page) = self
            .in_snapshot(move |c| {
                let page = match book {
                    Some((limit, offset)) => Some(db::sales_book(c, &filter, limit, offset)?),
                    None => None,
                };
                Ok((db::vat(c, &filter)?, db::waiting(c, &filter)?, page))
            })
            .await?;
        let book = match (page, book) {
            (Some(page), Some((limit, offset))) => {
                Some((page.documents.iter().map(|(i, kind)| book_entry(i, *kind)).collect(), limit, offset))
            }
            _ => None,
        };
        Ok(vat_of(q.period, &rows, &waiting, book))
    }

    pub async fn daily_trend(&self, caller: &Caller, q: ReportQuery) -> Result<DailyTrend> {
        let period = q.period.for_trend()?;
        let filter = self.report_filter(caller, &q).await?;
        let (rows, waiting) = self
            .in_snapshot(move |c| Ok((db::sales(c, &filter, SalesBy::Day)?, db::waiting(c, &filter)?)))
            .await?;
        Ok(trend_of(period, &rows, &waiting))
    }

    pub async fn top_clients(&self, caller: &Caller, q: ReportQuery, limit: i64) -> Result<TopClients> {
        let filter = self.report_filter(caller, &q).await?;
        let (clients, sales) = self
            .in_snapshot(move |c| {
                let only_branch = Filter { tcr_code: None, operator_code: None, ..filter.clone() };
                Ok((db::clients(c, &filter)?, db::sales(c, &only_branch, SalesBy::Kind)?))
            })
            .await?;
        Ok(top_clients_of(q.period, clients, &sales, limit))
    }

    pub async fn top_products(&self, caller: &Caller, q: ReportQuery, limit: i64) -> Result<TopProducts> {
        let filter = self.report_filter(caller, &q).await?;
        let products = self.services.store.read(move |conn| db::products(conn, &filter)).await?;
        Ok(top_products_of(q.period, products, limit))
    }

    pub async fn by_operator(&self, caller: &Caller, q: ReportQuery) -> Result<ByOperator> {
        let filter = self.report_filter(caller, &q).await?;
        let company_id = caller.company.id;
        let (rows, waiting, users) = self
            .in_snapshot(move |c| {
                Ok((
                    db::sales(c, &filter, SalesBy::Operator)?,
                    db::waiting(c, &filter)?,
                    db::users(c, company_id)?,
                ))
            })
            .await?;
        Ok(by_operator_of(q.period, &rows, &waiting, &users))
    }

    pub async fn by_tcr(&self, caller: &Caller, q: ReportQuery) -> Result<ByTcr> {
        let filter = self.report_filter(caller, &q).await?;
        let company_id = caller.company.id;
        let (rows, waiting, tcrs) = self
            .in_snapshot(move |c| {
                Ok((db::sales(c, &filter, SalesBy::Tcr)?, db::waiting(c, &filter)?, db::tcrs(c, company_id)?))
            })
            .await?;
        Ok(by_tcr_of(q.period, &rows, &waiting, &tcrs))
    }

    pub async fn cash_register_report(&self, caller: &Caller, q: ReportQuery) -> Result<CashRegisterReport> {
        let filter = Filter { operator_code: None, ..self.report_filter(caller, &q).await? };
        let company_id = caller.company.id;
        let (movements, sales, tcrs) = self
            .in_snapshot(move |c| {
                Ok((
                    db::movements(c, &filter)?,
                    db::sales(c, &filter, SalesBy::Tcr)?,
                    db::tcrs(c, company_id)?,
                ))
            })
            .await?;
        Ok(cash_register_of(q.period, &movements, &sales, &tcrs))
    }

    pub async fn closing_report(
        &self,
        caller: &Caller,
        q: ReportQuery,
        limit: i64,
        offset: i64,
    ) -> Result<ClosingReport> {
        // A cashier's X/Z report is their own till's.
        let tcr = crate::domain::role::till_of_report(caller.reader(), q.tcr.as_deref())?.map(str::to_string);
        let q = ReportQuery { tcr, ..q };
        let filter = Filter { operator_code: None, ..self.report_filter(caller, &q).await? };
        let days = self.in_snapshot(move |c| db::days(c, &filter, limit, offset)).await?;
        Ok(closing_of(q.period, &days, limit, offset).map_err(store::Error::from)?)
    }

    pub async fn reversals_report(
        &self,
        caller: &Caller,
        q: ReportQuery,
        limit: i64,
        offset: i64,
    ) -> Result<Reversals> {
        let filter = self.report_filter(caller, &q).await?;
        let company_id = caller.company.id;
        let (rows, waiting, page, originals, credit_notes) = self
            .in_snapshot(move |c| {
                let page = db::reversals(c, &filter, limit, offset)?;
                // A credit note names its original by IIC; a corrective document by id.
                let originals = page
                    .documents
                    .iter()
                    .map(|(invoice, _)| match (invoice.original_invoice_id, &invoice.original_invoice_iic) {
                        (None, Some(iic)) => invoices::id_by_iic(c, company_id, iic),
                        (id, _) => Ok(id),
                    })
                    .collect::<store::Result<Vec<_>>>()?;
                let credit_notes = db::credit_notes(c, &filter)?;
                Ok((
                    db::sales(c, &filter, SalesBy::Kind)?,
                    db::waiting(c, &filter)?,
                    page,
                    originals,
                    credit_notes,
                ))
            })
            .await?;
        let items = page
            .documents
            .iter()
            .zip(originals)
            .map(|((invoice, _), original_invoice_id)| ReversalLine {
                id: invoice.id,
                number: invoice.number.clone(),
                invoice_type: invoice.kind.as_str(),
                reversed_at: Some(stored_time(&invoice.issued_at)),
                original_invoice_id,
                gross: taken_back(invoice),
                operator: invoice.operator_code.clone(),
            })
            .collect();
        let credited: Vec<Decimal> =
            credit_notes.documents.iter().map(|(invoice, _)| taken_back(invoice)).collect();
        Ok(reversals_of(q.period, &rows, &waiting, items).with_credit_notes(&credited))
    }

    /// The owner's dashboard as of `day` (today in Tirane when not given).
    pub async fn dashboard(&self, caller: &Caller, day: Option<NaiveDate>) -> Result<Dashboard> {
        let day =
            day.unwrap_or_else(|| crate::domain::cash_register::business_day(self.services.clock.utc()));
        let comparisons = [report::today(day), report::this_week(day), report::this_month(day)];
        let company_id = caller.company.id;
        let filter_of = move |p: Period| Filter {
            company_id,
            from: p.from.to_string(),
            to: p.to.to_string(),
            ..Filter::default()
        };
        let (sales, open_days) = self
            .in_snapshot(move |c| {
                let mut sales = Vec::new();
                for Comparison { current, previous } in comparisons {
                    for period in [current, previous] {
                        let filter = filter_of(period);
                        let rows = db::sales(c, &filter, SalesBy::Kind)?;
                        sales.push(Sales::of(&rows, count_waiting(&db::waiting(c, &filter)?)));
                    }
                }
                Ok((sales, db::open_days(c, company_id)?))
            })
            .await?;
        let compared = |i: usize| -> Compared {
            let Comparison { current, previous } = comparisons[i];
            let (now, before) = (sales[2 * i], sales[2 * i + 1]);
            Compared {
                period: current.into(),
                sales: now,
                previous: PreviousSales { period: previous.into(), sales: before },
                change_percent: report::change_percent(now.gross, before.gross),
            }
        };
        let queue = self.services.queue_summary(caller).await?;
        let now = self.services.clock.utc();
        let onboarding = self.services.onboarding();
        let certificate = onboarding.current_certificate(caller).await?.map(|c| DashboardCertificate {
            subject: c.subject,
            expires_at: local_text(c.valid_to),
            days_left: (c.valid_to - now).num_days(),
            expired: c.valid_to <= now,
            expires_soon: c.valid_to - now
                < chrono::Duration::days(crate::fiscal::gateway::CERTIFICATE_WARNING_DAYS),
        });
        Ok(Dashboard {
            period: Period::day(day).into(),
            currency: "ALL",
            today: compared(0),
            week: compared(1),
            month: compared(2),
            queue: DashboardQueue {
                waiting: queue.waiting,
                refused: queue.refused.len(),
                oldest_waiting_since: queue.oldest_waiting_issued_at.map(local_text),
                near_legal_limit: queue.near_legal_limit,
            },
            certificate,
            open_days: open_days
                .into_iter()
                .map(|(tcr_code, business_day, opened_at)| OpenDay {
                    tcr_code,
                    business_day,
                    opened_at: stored_time(&opened_at),
                })
                .collect(),
        })
    }
}

/// A sales-book row: the document's lines by VAT rate, in lek.
pub fn book_entry(invoice: &Invoice, kind: ReportKind) -> BookEntry {
    let f = figures_of(invoice);
    BookEntry {
        id: invoice.id,
        number: invoice.number.clone(),
        invoice_type: invoice.kind.as_str(),
        kind: kind.as_str(),
        issue_date: invoice.issue_date.clone(),
        issued_at: stored_time(&invoice.issued_at),
        buyer_name: invoice.buyer.name.clone(),
        buyer_id_type: invoice.buyer.id_type.clone(),
        buyer_id: invoice.buyer.id_value.clone(),
        currency: invoice.currency.clone(),
        exchange_rate: invoice.exchange_rate,
        waiting: invoice.fic.is_none(),
        rates: f
            .classes
            .iter()
            .map(|c| BookRate {
                vat_rate: c.vat_rate,
                exemption: c.exemption.clone(),
                taxable_base: c.amounts.net,
                vat: c.amounts.vat,
            })
            .collect(),
        taxable_base: f.lek.net,
        vat: f.lek.vat,
        gross: f.lek.gross,
    }
}

/// A day's row of the X/Z report.
fn closing(day: &db::DayRow) -> std::result::Result<Closing, Overflow> {
    let mut figures = DayFigures { cash_sales: day.cash_sales, ..DayFigures::default() };
    let mut withdrawn = Decimal::ZERO;
    for (purpose, action_type, amount) in &day.actions {
        figures.add(*purpose, *action_type, *amount)?;
        if *purpose == Purpose::Close {
            withdrawn = money::add(withdrawn, *amount)?;
        }
    }
    let book = &day.book;
    figures.takings = book.takings.clone();
    let closed = day.closed_at.is_some();
    // A day closed before Arka counted the drawer was counted against the spec's balance.
    let against_balance = closed && day.balance.is_none();
    let expected = if closed { day.expected } else { day.expected_now };
    let drawer = match expected {
        Some(expected) if !against_balance => Some(Drawer::of(&figures, expected)?),
        _ => None,
    };
    let carried_over = match (drawer, expected) {
        (Some(drawer), _) => Some(drawer.carried_over),
        (None, Some(expected)) if against_balance => Some(money::sub(expected, figures.in_balance()?)?),
        _ => None,
    };
    Ok(Closing {
        id: day.id,
        tcr_code: day.tcr_code.clone(),
        name: day.name.clone(),
        business_day: day.business_day.clone(),
        status: if closed { "closed" } else { "open" },
        opened_at: stored_time(&day.opened_at),
        opened_automatically: day.opened_automatically,
        closed_at: day.closed_at.as_deref().map(stored_time),
        cashiers: book
            .people
            .iter()
            .map(|p| CashierView {
                id_user: p.id_user,
                name: p.name.clone(),
                operator_code: p.operator_code.clone(),
            })
            .collect(),
        receipts: ReceiptsView {
            count: book.receipts,
            first: book.first_receipt.clone(),
            last: book.last_receipt.clone(),
            waiting: book.waiting,
            gross: book.sales_gross,
        },
        sales_by_payment_method: book.takings.sales.clone(),
        vat: book
            .vat
            .iter()
            .map(|l| DayVatView {
                vat_rate: l.vat_rate,
                exemption: l.exemption.clone(),
                net: l.net,
                vat: l.vat,
                gross: l.gross,
            })
            .collect(),
        cancellations: CancellationsView {
            count: book.cancellations.len(),
            gross: book.cancelled_gross,
            by_payment_method: book.takings.refunds.clone(),
            documents: book
                .cancellations
                .iter()
                .map(|c| CorrectiveView {
                    number: c.number.clone(),
                    corrects: c.corrects.clone(),
                    gross: c.gross,
                })
                .collect(),
        },
        opening: figures.opening,
        deposits: figures.deposits,
        withdrawals: figures.withdrawals,
        cash_sales: day.cash_sales,
        drawer,
        not_in_drawer: book.takings.not_in_drawer()?,
        counted_against: if against_balance { "balance" } else { "drawer" },
        denominations: day.count.clone(),
        carried_over,
        expected,
        counted: day.counted.filter(|_| closed),
        difference: day.expected.zip(day.counted).filter(|_| closed).map(|(e, c)| c - e),
        withdrawn,
        balance: day.balance,
    })
}

/// `arka reports verify`: where the kept report totals differ from totals rebuilt from the
/// stored documents; nothing is changed.
pub fn verify_totals(store: &Store) -> store::Result<Vec<Drift>> {
    store.trial_blocking(|tx| report_totals::verify(tx))
}

/// `arka reports rebuild`: the report totals built again from the stored documents; how many
/// documents they were built from.
pub fn rebuild_totals(store: &Store) -> store::Result<usize> {
    store.write_blocking(|tx| report_totals::rebuild(tx, &mut |_, _| {}))
}
