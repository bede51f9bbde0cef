//! The reports' shapes, as the API answers them (JSON, CSV, PDF) at a shop and at its head
//! office alike.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

use super::rows::{ClientRow, SalesRow, SalesSums, WaitingRow};
use crate::domain::drawer::{Count, Drawer};
use crate::domain::report::{Period, ReportKind};

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

pub fn count_waiting<'a>(waiting: impl IntoIterator<Item = &'a WaitingRow>) -> i64 {
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
    pub fn add(&mut self, sale: bool, net: Decimal, vat: Decimal) {
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
    pub items: Vec<ClientRow>,
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
