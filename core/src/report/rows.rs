//! The rows a report reads, and one mapper per row over `row::Columns`: the shop's SQLite store
//! and the head office's PostgreSQL store each keep only their SQL (with these column names) and
//! call the same mapper, so a row means the same on both sides.

use rust_decimal::Decimal;

use crate::domain::cash_register::{ActionType, Day, Purpose};
use crate::domain::day_book::DayBook;
use crate::domain::document::{DocumentKind, InvoiceType};
use crate::domain::drawer::Count;
use crate::domain::money::{self, Overflow};
use crate::domain::report::ReportKind;
use crate::row::{Columns, Result};

const KIND: &str = "a report's kind";

/// A sum of whole cents (the report totals keep them so), as an amount.
fn cents(r: &impl Columns, name: &str) -> Result<Decimal> {
    Ok(super::amount(r.int(name)?))
}

/// A sum of thousandths (the report totals' quantities), as a quantity.
fn thousandths(r: &impl Columns, name: &str) -> Result<Decimal> {
    Ok(super::quantity(r.int(name)?))
}
const DOCUMENT_KIND: &str = "a document's kind";

/// Sums of documents, in lek unless named otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SalesSums {
    pub documents: i64,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
    pub discount: Decimal,
    pub fee: Decimal,
    pub net_currency: Decimal,
    pub vat_currency: Decimal,
    pub gross_currency: Decimal,
    /// What the documents moved their tills' cash by.
    pub till: Decimal,
}

impl SalesSums {
    pub fn add(&mut self, other: &SalesSums) {
        self.documents += other.documents;
        self.net += other.net;
        self.vat += other.vat;
        self.gross += other.gross;
        self.discount += other.discount;
        self.fee += other.fee;
        self.net_currency += other.net_currency;
        self.vat_currency += other.vat_currency;
        self.gross_currency += other.gross_currency;
        self.till += other.till;
    }
}

/// What sales are grouped by, beside their kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SalesBy {
    Kind,
    Currency,
    Day,
    Tcr,
    Operator,
}

impl SalesBy {
    /// What `report_sales` is keyed on for this grouping (a column, or '' for none): the shop's
    /// and the head office's table alike.
    pub fn key(self) -> &'static str {
        match self {
            SalesBy::Kind => "''",
            SalesBy::Currency => "currency",
            SalesBy::Day => "day",
            SalesBy::Tcr => "tcr_code",
            SalesBy::Operator => "operator_code",
        }
    }
}

/// One group of sales of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalesRow {
    pub kind: ReportKind,
    /// The currency, day, TCR code ('' for none) or operator code, by the grouping.
    pub key: String,
    /// The user of an operator's row (0 for none).
    pub user_id: i64,
    pub sums: SalesSums,
}

/// The lines of one VAT rate or exemption, of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VatRow {
    pub kind: ReportKind,
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    pub documents: i64,
    pub lines: i64,
    pub net: Decimal,
    pub vat: Decimal,
}

/// Payments of one method, of one kind, in lek.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRow {
    pub kind: ReportKind,
    pub payment_method: String,
    pub documents: i64,
    pub amount: Decimal,
}

/// A product's sales, net of reversals, in lek.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductRow {
    pub product_code: String,
    /// As the latest document in the period named it.
    pub product_name: String,
    pub unit: String,
    pub lines: i64,
    pub quantity: Decimal,
    pub net: Decimal,
    pub vat: Decimal,
}

/// A buyer's purchases, net of reversals, in lek (top clients lists these as they are).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ClientRow {
    #[serde(skip)]
    pub buyer_key: String,
    pub client_id: Option<i64>,
    pub name: String,
    pub id_type: Option<String>,
    pub id_value: Option<String>,
    pub documents: i64,
    pub quantity: Decimal,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

/// A document of the period still waiting for the CIS (its fic is null), as reports count it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingRow {
    pub kind: ReportKind,
    pub day: String,
    pub tcr_code: String,
    pub user_id: i64,
    pub operator_code: String,
    pub currency: String,
}

/// The cash-register actions of the period, summed by TCR, type and purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovementRow {
    pub tcr_code: String,
    pub action_type: ActionType,
    pub purpose: Purpose,
    pub actions: i64,
    /// Registered on the day but still waiting for the CIS.
    pub waiting: i64,
    pub amount: Decimal,
}

/// One business day of a TCR with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct DayRow {
    pub id: i64,
    pub tcr_code: String,
    pub business_day: String,
    pub opened_at: String,
    pub opened_automatically: bool,
    pub closed_at: Option<String>,
    /// What the drawer should have held at the close (a day closed before Arka counted the
    /// drawer: the balance it was counted against, and `balance` is `None`).
    pub expected: Option<Decimal>,
    pub counted: Option<Decimal>,
    /// The count by notes and coins, when the close sent one.
    pub count: Option<Count>,
    /// The spec's balance at the close.
    pub balance: Option<Decimal>,
    /// As the close computed it; so far for a day still open.
    pub cash_sales: Decimal,
    /// The day's actions by purpose and type: (purpose, action type, amount).
    pub actions: Vec<(Purpose, ActionType, Decimal)>,
    /// The till's name.
    pub name: Option<String>,
    /// What the day's documents came to, and who made the day.
    pub book: DayBook,
    /// A day still open that close-balance would close (its till's latest): what its drawer
    /// should hold now.
    pub expected_now: Option<Decimal>,
}

/// The sums of a sales query, each in a column of its own name (cents, as the totals keep them).
fn sales_sums(r: &impl Columns) -> Result<SalesSums> {
    Ok(SalesSums {
        documents: r.int("documents")?,
        net: cents(r, "net")?,
        vat: cents(r, "vat")?,
        gross: cents(r, "gross")?,
        discount: cents(r, "discount")?,
        fee: cents(r, "fee")?,
        net_currency: cents(r, "net_currency")?,
        vat_currency: cents(r, "vat_currency")?,
        gross_currency: cents(r, "gross_currency")?,
        till: cents(r, "till")?,
    })
}

/// A group of `report_sales`: its `kind`, its `sales_key` (by the grouping), its `sales_user`
/// and the sums. A kind the shop's schema never holds is refused, never counted as another.
pub fn sales_row(r: &impl Columns) -> Result<SalesRow> {
    Ok(SalesRow {
        kind: r.spelled("kind", KIND)?,
        key: r.text("sales_key")?,
        user_id: r.int("sales_user")?,
        sums: sales_sums(r)?,
    })
}

/// A group of `report_vat` by kind, rate and exemption ('' for none).
pub fn vat_row(r: &impl Columns) -> Result<VatRow> {
    let exemption = r.text("exemption")?;
    Ok(VatRow {
        kind: r.spelled("kind", KIND)?,
        vat_rate: r.decimal("vat_rate")?,
        exemption: (!exemption.is_empty()).then_some(exemption),
        documents: r.int("documents")?,
        lines: r.int("lines")?,
        net: cents(r, "net")?,
        vat: cents(r, "vat")?,
    })
}

/// A group of `report_payments` by kind and payment method.
pub fn payment_row(r: &impl Columns) -> Result<PaymentRow> {
    Ok(PaymentRow {
        kind: r.spelled("kind", KIND)?,
        payment_method: r.text("payment_method")?,
        documents: r.int("documents")?,
        amount: cents(r, "amount")?,
    })
}

/// A group of `report_products` by code, named as the latest day named it.
pub fn product_row(r: &impl Columns) -> Result<ProductRow> {
    Ok(ProductRow {
        product_code: r.text("product_code")?,
        product_name: r.text("product_name")?,
        unit: r.text("unit")?,
        lines: r.int("lines")?,
        quantity: thousandths(r, "quantity")?,
        net: cents(r, "net")?,
        vat: cents(r, "vat")?,
    })
}

/// A group of `report_clients` by buyer, named as the latest day had it.
pub fn client_row(r: &impl Columns) -> Result<ClientRow> {
    Ok(ClientRow {
        buyer_key: r.text("buyer_key")?,
        client_id: r.int_opt("client_id")?,
        name: r.text("buyer_name")?,
        id_type: r.text_opt("buyer_id_type")?,
        id_value: r.text_opt("buyer_id_value")?,
        documents: r.int("documents")?,
        quantity: thousandths(r, "quantity")?,
        net: cents(r, "net")?,
        vat: cents(r, "vat")?,
        gross: cents(r, "gross")?,
    })
}

/// An invoice still waiting for the CIS, with its `original_kind` and whether it is an
/// `einvoice`: what the reports count as waiting.
pub fn waiting_row(r: &impl Columns) -> Result<WaitingRow> {
    let document: DocumentKind = r.spelled("document_kind", DOCUMENT_KIND)?;
    let original = r.spelled_opt::<DocumentKind>("original_kind", DOCUMENT_KIND)?;
    Ok(WaitingRow {
        kind: ReportKind::of(document, original, r.bool("einvoice")?),
        day: r.text("issue_date")?,
        tcr_code: r.text("tcr_code")?,
        user_id: r.int("user_id")?,
        operator_code: r.text("operator_code")?,
        currency: r.text("currency")?,
    })
}

/// One cash action as the cash register report sums it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub tcr_code: String,
    pub action_type: ActionType,
    pub purpose: Purpose,
    /// Registered but still waiting for the CIS.
    pub waiting: bool,
    pub amount: Decimal,
}

/// A row of `cash_actions` (`tcr_code`, `action_type`, `purpose`, `waiting`, `amount`); none for
/// a row without a type or a purpose (a shop writes only the values its domain spells: another
/// is refused).
pub fn action(r: &impl Columns) -> Result<Option<Action>> {
    let (Some(action_type), Some(purpose)) = (
        r.spelled_opt::<ActionType>("action_type", "a cash action's type")?,
        r.spelled_opt::<Purpose>("purpose", "a cash action's purpose")?,
    ) else {
        return Ok(None);
    };
    Ok(Some(Action {
        tcr_code: r.text("tcr_code")?,
        action_type,
        purpose,
        waiting: r.bool("waiting")?,
        amount: r.decimal("amount")?,
    }))
}

/// A day's action as its X/Z report adds it: (purpose, action type, amount).
pub type DayAction = (Purpose, ActionType, Decimal);

/// A day's action (`purpose`, `action_type`, `amount`) as its X/Z report adds it, and who made it
/// (`user_id`); no action for a row without a type or a purpose.
pub fn day_action(r: &impl Columns) -> Result<(Option<DayAction>, Option<i64>)> {
    let purpose = r.spelled_opt::<Purpose>("purpose", "a cash action's purpose")?;
    let action_type = r.spelled_opt::<ActionType>("action_type", "a cash action's type")?;
    let action = match (purpose, action_type) {
        (Some(purpose), Some(action_type)) => Some((purpose, action_type, r.decimal("amount")?)),
        _ => None,
    };
    Ok((action, r.int_opt("user_id")?))
}

/// A row of `cash_days` with its till's `name`, its `balance` at the close and its `count` by
/// notes and coins: the day as its X/Z report reads it, before its actions and its book.
pub fn day_row(r: &impl Columns) -> Result<DayRow> {
    Ok(DayRow {
        id: r.int("id")?,
        tcr_code: r.text("tcr_code")?,
        business_day: r.text("business_day")?,
        opened_at: r.text("opened_at")?,
        // A day shipped before the column was kept was opened by hand.
        opened_automatically: r.bool_opt("opened_automatically")?.unwrap_or(false),
        closed_at: r.text_opt("closed_at")?,
        expected: r.decimal_opt("expected")?,
        counted: r.decimal_opt("counted")?,
        count: r.json_opt::<Count>("count", "a count by notes and coins")?,
        balance: r.decimal_opt("balance")?,
        // A day with no cash sale yet has none kept.
        cash_sales: r.decimal_opt("cash_sales")?.unwrap_or_default(),
        actions: Vec::new(),
        name: r.text_opt("name")?,
        book: DayBook::default(),
        expected_now: None,
    })
}

/// What a closed day's documents came to as its close kept it (`day_book`); none for a day that
/// kept none.
pub fn kept_book(r: &impl Columns) -> Result<Option<DayBook>> {
    r.json_opt::<DayBook>("day_book", "a day's book")
}

/// A user (`id`, `name`, `operator_code`): its id, and its name and operator code.
pub fn user_row(r: &impl Columns) -> Result<(i64, (String, Option<String>))> {
    Ok((r.int("id")?, (r.text("name")?, r.text_opt("operator_code")?)))
}

/// A TCR (`tcr_code`, `name`, `business_unit_id`): its code, and its device's name and branch.
pub fn tcr_row(r: &impl Columns) -> Result<(String, (String, i64))> {
    Ok((r.text("tcr_code")?, (r.text("name")?, r.int("business_unit_id")?)))
}

/// A corrective invoice as the reversals report lists it (`id`, `number`, `kind`, `issued_at`,
/// `original_invoice_id`, `gross_all`, `operator_code`).
pub fn reversal_line(r: &impl Columns) -> Result<super::ReversalLine> {
    Ok(super::ReversalLine {
        id: r.int("id")?,
        number: r.text("number")?,
        invoice_type: r.spelled::<InvoiceType>("kind", "an invoice's type")?.as_str(),
        reversed_at: Some(super::stored_time(&r.text("issued_at")?)),
        original_invoice_id: r.int_opt("original_invoice_id")?,
        gross: r.decimal("gross_all")?,
        operator: r.text_opt("operator_code")?,
    })
}

/// The period's actions summed by TCR, type and purpose, in the order first met.
pub fn movements_of(
    actions: impl IntoIterator<Item = Action>,
) -> std::result::Result<Vec<MovementRow>, Overflow> {
    let mut sums: Vec<MovementRow> = Vec::new();
    for a in actions {
        let found = sums.iter().position(|m| {
            m.tcr_code == a.tcr_code && m.action_type == a.action_type && m.purpose == a.purpose
        });
        let i = match found {
            Some(i) => i,
            None => {
                sums.push(MovementRow {
                    tcr_code: a.tcr_code,
                    action_type: a.action_type,
                    purpose: a.purpose,
                    actions: 0,
                    waiting: 0,
                    amount: Decimal::ZERO,
                });
                sums.len() - 1
            }
        };
        let sum = &mut sums[i];
        sum.actions += 1;
        sum.waiting += i64::from(a.waiting);
        sum.amount = money::add(sum.amount, a.amount)?;
    }
    Ok(sums)
}

/// A row of `cash_days` as its till's state reads it.
pub fn cash_day(r: &impl Columns) -> Result<Day> {
    Ok(Day {
        id: r.int("id")?,
        company_id: r.int("company_id")?,
        tcr_code: r.text("tcr_code")?,
        business_day: r.text("business_day")?,
        opened_at: r.text("opened_at")?,
        opened_automatically: r.bool("opened_automatically")?,
        closed_at: r.text_opt("closed_at")?,
    })
}
