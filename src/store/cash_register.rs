//! Cash-register actions and business days of a TCR, and the rows the balance is summed from.
//! Amounts are exact decimal TEXT; times are UTC RFC 3339 and compared on their first 19
//! characters (`YYYY-MM-DDTHH:MM:SS`), which orders them whatever suffix they were stored with.

use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::fiscal_queue::{self, Document, NewQueued};
use super::money::Money;
use super::{Result, now_text, with_payments};
use crate::domain::cash_register::{ActionType, Movement, Purpose};
use crate::domain::day_book::DayBook;
use crate::domain::drawer::{self, Count, Takings, TillDocument};

/// One action as stored (also what is written).
#[derive(Debug, Clone)]
pub struct Action {
    pub id: i64,
    pub company_id: i64,
    pub tcr_code: String,
    pub user_id: Option<i64>,
    pub cash_day_id: Option<i64>,
    pub action_type: ActionType,
    /// What the CIS saw: INITIAL, DEPOSIT or WITHDRAW.
    pub operation: String,
    pub purpose: Purpose,
    /// Made by Arka itself (the INITIAL 0 before a day's first cash invoice).
    pub automatic: bool,
    pub amount: Decimal,
    pub currency: String,
    pub transacted_at: String,
    pub business_day: String,
    pub year: i32,
    pub transaction_no: i64,
    pub cash_action_no: String,
    pub description: Option<String>,
    pub third_party: Option<String>,
    pub client_id: Option<i64>,
    /// FISCALIZED, PENDING or REJECTED.
    pub fiscal_status: String,
    pub fiscal_uuid: String,
    pub fiscal_fic: Option<String>,
    pub created_at: String,
}

pub use arka_core::domain::cash_register::Day;

/// How a new action waits in the late-delivery queue.
pub struct Queueing<'a> {
    pub unsigned_request: &'a str,
    pub subseq_deliv_type: Option<&'a str>,
    pub next_attempt_at: &'a str,
    pub last_error: Option<&'a str>,
}

/// The highest transaction number the TCR used this year.
pub fn max_transaction_no(conn: &Connection, company_id: i64, tcr_code: &str, year: i32) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(transaction_no), 0) AS transaction_no FROM cash_actions
         WHERE company_id = :company AND tcr_code = :tcr AND year = :year",
        named_params! {":company": company_id, ":tcr": tcr_code, ":year": year},
        |r| r.get("transaction_no"),
    )?)
}

/// Writes the action together with its entry in the late-delivery queue; returns both ids.
pub fn insert(conn: &Connection, a: &Action, queueing: &Queueing) -> Result<(i64, i64)> {
    conn.execute(
        "INSERT INTO cash_actions (company_id, tcr_code, user_id, cash_day_id, action_type, operation, purpose,
             automatic, amount, currency, transacted_at, business_day, year, transaction_no, cash_action_no,
             description, third_party, client_id, fiscal_status, fiscal_uuid, fiscal_fic, created_at)
         VALUES (:company, :tcr, :user, :day, :type, :operation, :purpose, :automatic, :amount, :currency,
             :at, :business_day, :year, :no, :number, :description, :third_party, :client, :status, :uuid,
             :fic, :now)",
        named_params! {
            ":company": a.company_id, ":tcr": a.tcr_code, ":user": a.user_id, ":day": a.cash_day_id,
            ":type": a.action_type, ":operation": a.operation, ":purpose": a.purpose,
            ":automatic": a.automatic, ":amount": Money(a.amount), ":currency": a.currency,
            ":at": a.transacted_at, ":business_day": a.business_day, ":year": a.year,
            ":no": a.transaction_no, ":number": a.cash_action_no, ":description": a.description,
            ":third_party": a.third_party, ":client": a.client_id, ":status": a.fiscal_status,
            ":uuid": a.fiscal_uuid, ":fic": a.fiscal_fic, ":now": now_text(),
        },
    )?;
    let id = conn.last_insert_rowid();
    let queue_id = fiscal_queue::enqueue(
        conn,
        &NewQueued {
            company_id: a.company_id,
            operation: "RegisterCashDepositRequest",
            document: Document::CashAction,
            document_id: Some(id),
            document_number: Some(&a.cash_action_no),
            tcr_code: Some(&a.tcr_code),
            header_uuid: &a.fiscal_uuid,
            issued_at: &a.transacted_at,
            unsigned_request: queueing.unsigned_request,
            subseq_deliv_type: queueing.subseq_deliv_type,
            next_attempt_at: queueing.next_attempt_at,
            last_error: queueing.last_error,
        },
    )?;
    Ok((id, queue_id))
}

/// The CIS accepted the action: its FCDC.
pub fn set_fiscalized(conn: &Connection, id: i64, fcdc: &str) -> Result<()> {
    conn.execute(
        "UPDATE cash_actions SET fiscal_status = 'FISCALIZED', fiscal_fic = :fcdc WHERE id = :id",
        named_params! {":id": id, ":fcdc": fcdc},
    )?;
    Ok(())
}

/// The CIS refused a late delivery: the action stays (the cash did move) and says so.
pub fn set_rejected(conn: &Connection, id: i64) -> Result<()> {
    conn.execute(
        "UPDATE cash_actions SET fiscal_status = 'REJECTED' WHERE id = :id",
        named_params! {":id": id},
    )?;
    Ok(())
}

/// Removes an action the CIS refused at once, with its queue entry (`queue_id`), so its number is
/// given back.
pub fn delete(conn: &Connection, id: i64, queue_id: i64) -> Result<()> {
    fiscal_queue::delete(conn, queue_id)?;
    conn.execute("DELETE FROM cash_actions WHERE id = :id", named_params! {":id": id})?;
    Ok(())
}

const COLUMNS: &str = "id, company_id, tcr_code, user_id, cash_day_id, action_type, operation, purpose, automatic,
    amount, currency, transacted_at, business_day, year, transaction_no, cash_action_no, description, third_party,
    client_id, fiscal_status, fiscal_uuid, fiscal_fic, created_at";

fn action_from(r: &Row) -> rusqlite::Result<Action> {
    Ok(Action {
        id: r.get("id")?,
        company_id: r.get("company_id")?,
        tcr_code: r.get("tcr_code")?,
        user_id: r.get("user_id")?,
        cash_day_id: r.get("cash_day_id")?,
        action_type: r.get("action_type")?,
        operation: r.get("operation")?,
        purpose: r.get("purpose")?,
        automatic: r.get("automatic")?,
        amount: r.get::<_, Money>("amount")?.0,
        currency: r.get("currency")?,
        transacted_at: r.get("transacted_at")?,
        business_day: r.get("business_day")?,
        year: r.get("year")?,
        transaction_no: r.get("transaction_no")?,
        cash_action_no: r.get("cash_action_no")?,
        description: r.get("description")?,
        third_party: r.get("third_party")?,
        client_id: r.get("client_id")?,
        fiscal_status: r.get("fiscal_status")?,
        fiscal_uuid: r.get("fiscal_uuid")?,
        fiscal_fic: r.get("fiscal_fic")?,
        created_at: r.get("created_at")?,
    })
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<Action>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM cash_actions WHERE id = :id"),
            named_params! {":id": id},
            action_from,
        )
        .optional()?)
}

/// Filters of the actions list.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Empty means all.
    pub action_types: Vec<ActionType>,
    /// Business days (Tirane), inclusive.
    pub from_date: Option<String>,
    pub to_date: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// A page of the TCR's actions, newest first.
pub fn list(conn: &Connection, company_id: i64, tcr_code: &str, f: &ListFilter) -> Result<Vec<Action>> {
    let types = (!f.action_types.is_empty())
        .then(|| f.action_types.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(","));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM cash_actions
         WHERE company_id = :company AND tcr_code = :tcr
           AND (:types IS NULL OR instr(',' || :types || ',', ',' || action_type || ',') > 0)
           AND (:from IS NULL OR business_day >= :from)
           AND (:to IS NULL OR business_day <= :to)
         ORDER BY id DESC LIMIT :limit OFFSET :offset"
    ))?;
    let rows = stmt.query_map(
        named_params! {
            ":company": company_id, ":tcr": tcr_code, ":types": types, ":from": f.from_date,
            ":to": f.to_date, ":limit": f.limit, ":offset": f.offset,
        },
        action_from,
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The actions of one business day, oldest first.
pub fn day_actions(conn: &Connection, day_id: i64) -> Result<Vec<Action>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM cash_actions WHERE cash_day_id = :day ORDER BY id"
    ))?;
    let rows = stmt.query_map(named_params! {":day": day_id}, action_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// (action_type, amount) of every action on the TCR before `before` (UTC), or all of them.
pub fn movements(
    conn: &Connection,
    company_id: i64,
    tcr_code: &str,
    before: Option<&str>,
) -> Result<Vec<(ActionType, Decimal)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT action_type, amount FROM cash_actions
         WHERE company_id = :company AND tcr_code = :tcr
           AND (:before IS NULL OR substr(transacted_at, 1, 19) < substr(:before, 1, 19))",
    )?;
    let rows = stmt
        .query_map(named_params! {":company": company_id, ":tcr": tcr_code, ":before": before}, |r| {
            Ok((r.get("action_type")?, r.get::<_, Money>("amount")?.0))
        })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The cash documents of a till counted by the balance and the day figures: cash invoices,
/// summaries and corrective documents (negative, a refund); not orders (paid by their summary)
/// nor the corrective documents of orders.
pub(super) const CASH_SALE: &str = "kind = 'CASH' AND document_kind <> 'ORDER'
    AND NOT EXISTS (SELECT 1 FROM invoices o WHERE o.id = invoices.original_invoice_id AND o.document_kind = 'ORDER')";

/// (gross in lek, self-issued) of the TCR's cash documents issued before `before` (UTC), or all.
pub fn cash_sales(
    conn: &Connection,
    company_id: i64,
    tcr_code: &str,
    before: Option<&str>,
) -> Result<Vec<(Decimal, bool)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT gross_all, self_issue_type IS NOT NULL AS self_issued FROM invoices
         WHERE company_id = :company AND tcr_code = :tcr AND {CASH_SALE}
           AND (:before IS NULL OR substr(issued_at, 1, 19) < substr(:before, 1, 19))"
    ))?;
    let rows = stmt
        .query_map(named_params! {":company": company_id, ":tcr": tcr_code, ":before": before}, |r| {
            Ok((r.get::<_, Money>("gross_all")?.0, r.get("self_issued")?))
        })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// (gross in lek, self-issued) of the cash documents written while the day was open: found by
/// the document's link to its day, never by time, so that a day opened in the second its
/// predecessor closed does not count that second's sales again.
pub fn day_cash_sales(conn: &Connection, day_id: i64) -> Result<Vec<(Decimal, bool)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT gross_all, self_issue_type IS NOT NULL AS self_issued FROM invoices WHERE cash_day_id = :day AND {CASH_SALE}"
    ))?;
    let rows = stmt.query_map(named_params! {":day": day_id}, |r| {
        Ok((r.get::<_, Money>("gross_all")?.0, r.get("self_issued")?))
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The till documents of `condition` (on `invoices`, which `CASH_SALE` names unaliased), each
/// with its payments, in one query.
fn till_documents(
    conn: &Connection,
    condition: &str,
    params: &[(&str, &dyn rusqlite::ToSql)],
) -> Result<Vec<TillDocument>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT invoices.id, document_kind = 'CORRECTIVE' AS corrective, self_issue_type IS NOT NULL AS self_issued,
             currency <> 'ALL' AS foreign_currency, exchange_rate, p.type AS method, p.amount
         FROM invoices LEFT JOIN invoice_payments p ON p.invoice_id = invoices.id
         WHERE {condition} AND {CASH_SALE}
         ORDER BY invoices.id, p.position"
    ))?;
    let mut rows = stmt.query(params)?;
    with_payments::fold(&mut rows, |r| {
        Ok(TillDocument {
            corrective: r.get("corrective")?,
            self_issued: r.get("self_issued")?,
            foreign: r.get("foreign_currency")?,
            exchange_rate: r.get::<_, Money>("exchange_rate")?.0,
            payments: Vec::new(),
        })
    })
}

impl with_payments::Paid for TillDocument {
    fn payments(&mut self) -> &mut Vec<(String, rust_decimal::Decimal)> {
        &mut self.payments
    }
}

/// The cash documents linked to the day, with their payments.
pub fn day_documents(conn: &Connection, day_id: i64) -> Result<Vec<TillDocument>> {
    till_documents(conn, "invoices.cash_day_id = :day", named_params! {":day": day_id})
}

/// The cash documents linked to the till's days after `day_id` (all of them from 0).
fn documents_after_day(
    conn: &Connection,
    company_id: i64,
    tcr_code: &str,
    day_id: i64,
) -> Result<Vec<TillDocument>> {
    till_documents(
        conn,
        "invoices.cash_day_id IN (SELECT id FROM cash_days WHERE company_id = :company AND tcr_code = :tcr AND id > :day)",
        named_params! {":company": company_id, ":tcr": tcr_code, ":day": day_id},
    )
}

/// The till's actions after the action `after_id` (all of them from 0).
fn movements_after(
    conn: &Connection,
    company_id: i64,
    tcr_code: &str,
    after_id: i64,
) -> Result<Vec<Movement>> {
    let mut stmt = conn.prepare_cached(
        "SELECT action_type, amount FROM cash_actions
         WHERE company_id = :company AND tcr_code = :tcr AND id > :after ORDER BY id",
    )?;
    let rows = stmt
        .query_map(named_params! {":company": company_id, ":tcr": tcr_code, ":after": after_id}, |r| {
            Ok(Movement { action_type: r.get("action_type")?, amount: r.get::<_, Money>("amount")?.0 })
        })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The till's last count: the latest closed day, what it left in the drawer (counted less the
/// closing withdrawal), and the till's newest action when it closed.
struct LastCount {
    day_id: i64,
    left: rust_decimal::Decimal,
    mark: i64,
}

fn last_count(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<Option<LastCount>> {
    let found = conn
        .prepare_cached(
            "SELECT id, counted, drawer_mark FROM cash_days
             WHERE company_id = :company AND tcr_code = :tcr AND closed_at IS NOT NULL ORDER BY id DESC LIMIT 1",
        )?
        .query_row(named_params! {":company": company_id, ":tcr": tcr_code}, |r| {
            Ok((
                r.get::<_, i64>("id")?,
                r.get::<_, Option<Money>>("counted")?.map(|m| m.0).unwrap_or_default(),
                r.get::<_, Option<i64>>("drawer_mark")?.unwrap_or_default(),
            ))
        })
        .optional()?;
    let Some((day_id, counted, mark)) = found else { return Ok(None) };
    let withdrawn = crate::domain::money::checked_sum(
        day_actions(conn, day_id)?.into_iter().filter(|a| a.purpose == Purpose::Close).map(|a| a.amount),
    )?;
    Ok(Some(LastCount { day_id, left: drawer::left_at_count(counted, withdrawn)?, mark }))
}

/// What the till's drawer should hold now: what its last count left, the actions registered
/// after that count, and the banknotes of the documents of its later days. A document whose
/// day's opening the CIS refused belongs to no day and is in no day's drawer.
pub fn drawer_expected(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<rust_decimal::Decimal> {
    let (left, mark, day_id) = match last_count(conn, company_id, tcr_code)? {
        Some(c) => (c.left, c.mark, c.day_id),
        None => (rust_decimal::Decimal::ZERO, 0, 0),
    };
    let movements = movements_after(conn, company_id, tcr_code, mark)?;
    let takings = Takings::of(&documents_after_day(conn, company_id, tcr_code, day_id)?)?;
    Ok(drawer::expected(left, &movements, &takings)?)
}

/// The till's newest action: what a close marks as counted.
pub fn newest_action(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(id), 0) AS id FROM cash_actions WHERE company_id = :company AND tcr_code = :tcr",
        named_params! {":company": company_id, ":tcr": tcr_code},
        |r| r.get("id"),
    )?)
}

/// The till's document was written while the day was open: it is one of the day's sales.
pub fn link_to_day(conn: &Connection, invoice_id: i64, day_id: i64) -> Result<()> {
    conn.prepare_cached("UPDATE invoices SET cash_day_id = :day WHERE id = :id")?
        .execute(named_params! {":day": day_id, ":id": invoice_id})?;
    Ok(())
}

/// The TCR's most recent business day, open or closed.
pub fn latest_day(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<Option<Day>> {
    conn.prepare_cached(
        "SELECT id, company_id, tcr_code, business_day, opened_at, opened_automatically, closed_at
             FROM cash_days WHERE company_id = :company AND tcr_code = :tcr ORDER BY id DESC LIMIT 1",
    )?
    .query_and_then(named_params! {":company": company_id, ":tcr": tcr_code}, |r| {
        Ok::<_, super::Error>(arka_core::report::rows::cash_day(r)?)
    })?
    .next()
    .transpose()
}

/// Opens a business day; returns its id.
pub fn insert_day(
    conn: &Connection,
    company_id: i64,
    tcr_code: &str,
    business_day: &str,
    opened_at: &str,
    automatically: bool,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO cash_days (company_id, tcr_code, business_day, opened_at, opened_automatically, created_at)
         VALUES (:company, :tcr, :day, :opened, :auto, :now)",
        named_params! {
            ":company": company_id, ":tcr": tcr_code, ":day": business_day, ":opened": opened_at,
            ":auto": automatically, ":now": now_text(),
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// What a close found: what the drawer should have held and what was counted (by notes and
/// coins when sent), the day's cash sales, the spec's balance, and the till's newest action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closed {
    pub expected: rust_decimal::Decimal,
    pub counted: rust_decimal::Decimal,
    pub count: Option<Count>,
    /// What the day's documents came to.
    pub book: Option<DayBook>,
    pub cash_sales: rust_decimal::Decimal,
    pub balance: rust_decimal::Decimal,
    pub mark: i64,
}

/// Closes a day with what the drawer should have held, what was counted, and its cash sales.
pub fn close_day(conn: &Connection, id: i64, closed_at: &str, closed: &Closed) -> Result<()> {
    // Pieces by denomination, integers only: serializing cannot fail.
    let count = closed.count.as_ref().and_then(|c| serde_json::to_string(c).ok());
    // Amounts as text, names and counts: serializing cannot fail either.
    let book = closed.book.as_ref().and_then(|b| serde_json::to_string(b).ok());
    conn.execute(
        "UPDATE cash_days SET closed_at = :closed, expected = :expected, counted = :counted, cash_sales = :sales,
             balance = :balance, drawer_mark = :mark, counted_by_denomination = :count, day_book = :book
         WHERE id = :id",
        named_params! {
            ":id": id, ":closed": closed_at, ":expected": Money(closed.expected), ":counted": Money(closed.counted),
            ":sales": Money(closed.cash_sales), ":balance": Money(closed.balance), ":mark": closed.mark,
            ":count": count, ":book": book,
        },
    )?;
    Ok(())
}

/// The cash sales of a day closed before they were kept with it.
pub fn set_cash_sales(conn: &Connection, id: i64, cash_sales: Decimal) -> Result<()> {
    conn.execute(
        "UPDATE cash_days SET cash_sales = :sales WHERE id = :id",
        named_params! {":id": id, ":sales": Money(cash_sales)},
    )?;
    Ok(())
}

/// Undoes a close whose withdrawal the CIS refused: the day is open again.
pub fn reopen_day(conn: &Connection, id: i64) -> Result<()> {
    conn.execute(
        "UPDATE cash_days SET closed_at = NULL, expected = NULL, counted = NULL, cash_sales = NULL, balance = NULL,
             drawer_mark = NULL, counted_by_denomination = NULL, day_book = NULL
         WHERE id = :id",
        named_params! {":id": id},
    )?;
    Ok(())
}

/// Removes a day whose opening the CIS refused, so the day counts as not opened; a document
/// written meanwhile keeps counting in the balance but belongs to no day.
pub fn delete_day(conn: &Connection, id: i64) -> Result<()> {
    conn.execute(
        "UPDATE invoices SET cash_day_id = NULL WHERE cash_day_id = :id",
        named_params! {":id": id},
    )?;
    conn.execute("DELETE FROM cash_days WHERE id = :id", named_params! {":id": id})?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::invoices::{self, tests::invoice};

    const TCR: &str = "aa111aa111";

    fn company(conn: &Connection) -> Result<i64> {
        conn.execute("INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Shop', 'now')", [])?;
        Ok(conn.last_insert_rowid())
    }

    /// A cash sale of the till for `gross` lek, issued at `at`; returns its id.
    fn sale(conn: &Connection, company_id: i64, n: i64, at: &str, gross: i64) -> Result<i64> {
        let mut i = invoice(company_id, n, "CASH", "2026-11-23", None);
        i.tcr_code = Some(TCR.into());
        i.issued_at = at.into();
        i.totals.gross_all = Decimal::from(gross);
        invoices::insert(conn, &i)
    }

    fn closed() -> Closed {
        Closed {
            expected: Decimal::ZERO,
            counted: Decimal::ZERO,
            count: None,
            book: None,
            cash_sales: Decimal::ZERO,
            balance: Decimal::ZERO,
            mark: 0,
        }
    }

    fn grosses(sales: Vec<(Decimal, bool)>) -> Vec<String> {
        sales.into_iter().map(|(gross, _)| gross.to_string()).collect()
    }

    /// Day 1 closes at 10:00:00.5 after a sale at 10:00:00.2; day 2 opens at 10:00:00.7 and sells
    /// at 10:00:00.9. Compared to the second, day 2 also counted day 1's last sale.
    #[test]
    fn a_day_opened_in_the_second_its_predecessor_closed_counts_only_its_own_sales() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let (first, second) = store
            .write_blocking(|tx| -> Result<_> {
                let company = company(tx)?;
                let first =
                    insert_day(tx, company, TCR, "2026-11-23", "2026-11-23T09:00:00.000+00:00", false)?;
                let a = sale(tx, company, 1, "2026-11-23T10:00:00.200+00:00", 100)?;
                link_to_day(tx, a, first)?;
                close_day(tx, first, "2026-11-23T10:00:00.500+00:00", &closed())?;
                let second =
                    insert_day(tx, company, TCR, "2026-11-23", "2026-11-23T10:00:00.700+00:00", true)?;
                let b = sale(tx, company, 2, "2026-11-23T10:00:00.900+00:00", 40)?;
                link_to_day(tx, b, second)?;
                Ok((first, second))
            })
            .unwrap();
        let (of_first, of_second) =
            store.read_blocking(|c| Ok((day_cash_sales(c, first)?, day_cash_sales(c, second)?))).unwrap();
        assert_eq!(grosses(of_first), ["100"]);
        assert_eq!(grosses(of_second), ["40"]);
    }

    /// The upgrade links the documents written before it to the day open on their till when they
    /// were written, to the millisecond.
    #[test]
    fn the_upgrade_links_earlier_sales_to_their_day() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        crate::store::create_at_version(&path, 16).unwrap();
        let conn = Connection::open(&path).unwrap();
        let company = company(&conn).unwrap();
        let first =
            insert_day(&conn, company, TCR, "2026-11-23", "2026-11-23T09:00:00.000+00:00", false).unwrap();
        sale(&conn, company, 1, "2026-11-23T10:00:00.200+00:00", 100).unwrap();
        // Closed as version 16 closed a day: the columns of later versions are not there yet.
        conn.execute(
            "UPDATE cash_days SET closed_at = '2026-11-23T10:00:00.500+00:00', expected = '0', counted = '0' WHERE id = ?1",
            [first],
        )
        .unwrap();
        let second =
            insert_day(&conn, company, TCR, "2026-11-23", "2026-11-23T10:00:00.700+00:00", true).unwrap();
        sale(&conn, company, 2, "2026-11-23T10:00:00.700+00:00", 40).unwrap();
        sale(&conn, company, 3, "2026-11-23T10:00:00.900+00:00", 2).unwrap();
        drop(conn);
        let store = Store::open(&path).unwrap();
        let (of_first, of_second) =
            store.read_blocking(|c| Ok((day_cash_sales(c, first)?, day_cash_sales(c, second)?))).unwrap();
        assert_eq!(grosses(of_first), ["100"]);
        assert_eq!(grosses(of_second), ["40", "2"]);
    }

    /// An action of the till, as SQL: the drawer reads its type, amount, day and order only.
    fn action(
        conn: &Connection,
        company_id: i64,
        day: Option<i64>,
        kind: &str,
        purpose: &str,
        amount: i64,
    ) -> Result<i64> {
        let no = max_transaction_no(conn, company_id, TCR, 2026)? + 1;
        conn.execute(
            "INSERT INTO cash_actions (company_id, tcr_code, cash_day_id, action_type, operation, purpose, amount,
                 transacted_at, business_day, year, transaction_no, cash_action_no, fiscal_status, fiscal_uuid, created_at)
             VALUES (?1, ?2, ?3, ?4, 'DEPOSIT', ?5, ?6, '2026-11-23T10:00:00Z', '2026-11-23', 2026, ?7, ?7 || '/2026',
                 'FISCALIZED', 'uuid-' || ?7, 'now')",
            rusqlite::params![company_id, TCR, day, kind, purpose, amount.to_string(), no],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// A sale of the till linked to `day`, paid by `payments` (method, lek).
    fn paid_sale(
        conn: &Connection,
        company_id: i64,
        n: i64,
        day: i64,
        payments: &[(&str, i64)],
    ) -> Result<()> {
        use crate::domain::spelled::Spelled;
        let mut i = invoice(company_id, n, "CASH", "2026-11-23", None);
        i.tcr_code = Some(TCR.into());
        i.totals.gross_all = Decimal::from(payments.iter().map(|(_, a)| a).sum::<i64>());
        i.payments = payments
            .iter()
            .map(|(kind, amount)| invoices::Payment {
                kind: Spelled::parse(kind).unwrap(),
                amount: Decimal::from(*amount),
                company_card: None,
                vouchers: Vec::new(),
            })
            .collect();
        let id = invoices::insert(conn, &i)?;
        link_to_day(conn, id, day)
    }

    /// | step                                        | drawer | balance |
    /// | day 1: opening 1000, sales 300 notes, 200 card | 1300 | 1500    |
    /// | counted 1290 (-10), 1000 taken out          | 290    | 500     |
    /// | a deposit of 50 while no day is open        | 340    | 550     |
    /// | day 2: opening 0, a sale of 100 in notes    | 440    | 650     |
    #[test]
    fn the_drawer_starts_from_the_last_count_and_adds_what_came_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let (after_first, after_second) = store
            .write_blocking(|tx| -> Result<_> {
                let company = company(tx)?;
                assert_eq!(drawer_expected(tx, company, TCR)?, Decimal::ZERO, "nothing yet");
                let first = insert_day(tx, company, TCR, "2026-11-23", "2026-11-23T08:00:00Z", false)?;
                action(tx, company, Some(first), "INITIAL", "open", 1000)?;
                paid_sale(tx, company, 1, first, &[("BANKNOTE", 300)])?;
                paid_sale(tx, company, 2, first, &[("CARD", 200)])?;
                assert_eq!(drawer_expected(tx, company, TCR)?, Decimal::from(1300));
                action(tx, company, Some(first), "MONEY_OUT", "close", 1000)?;
                let closed = Closed {
                    expected: Decimal::from(1300),
                    counted: Decimal::from(1290),
                    mark: newest_action(tx, company, TCR)?,
                    ..closed()
                };
                close_day(tx, first, "2026-11-23T20:00:00Z", &closed)?;
                let after_first = drawer_expected(tx, company, TCR)?;
                action(tx, company, None, "MONEY_IN", "deposit", 50)?;
                let second = insert_day(tx, company, TCR, "2026-11-24", "2026-11-24T08:00:00Z", false)?;
                action(tx, company, Some(second), "INITIAL", "open", 0)?;
                paid_sale(tx, company, 3, second, &[("BANKNOTE", 100)])?;
                Ok((after_first, drawer_expected(tx, company, TCR)?))
            })
            .unwrap();
        assert_eq!(after_first, Decimal::from(290), "what the count left");
        assert_eq!(after_second, Decimal::from(440));
    }

    /// A day closed before V35 gets its newest own action as its mark, so the drawer after it
    /// starts from its count.
    #[test]
    fn the_upgrade_marks_each_closed_day_with_its_newest_action() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        crate::store::create_at_version(&path, 34).unwrap();
        let conn = Connection::open(&path).unwrap();
        let company = company(&conn).unwrap();
        let first = insert_day(&conn, company, TCR, "2026-11-23", "2026-11-23T08:00:00Z", false).unwrap();
        action(&conn, company, Some(first), "INITIAL", "open", 500).unwrap();
        let closing = action(&conn, company, Some(first), "MONEY_OUT", "close", 400).unwrap();
        conn.execute(
            "UPDATE cash_days SET closed_at = '2026-11-23T20:00:00Z', expected = '500', counted = '480' WHERE id = ?1",
            [first],
        )
        .unwrap();
        let open = insert_day(&conn, company, TCR, "2026-11-24", "2026-11-24T08:00:00Z", false).unwrap();
        action(&conn, company, Some(open), "INITIAL", "open", 0).unwrap();
        drop(conn);
        let store = Store::open(&path).unwrap();
        let (mark, expected) = store
            .read_blocking(|c| {
                let mark: Option<i64> =
                    c.query_row("SELECT drawer_mark FROM cash_days WHERE id = ?1", [first], |r| {
                        r.get("drawer_mark")
                    })?;
                Ok((mark, drawer_expected(c, company, TCR)?))
            })
            .unwrap();
        assert_eq!(mark, Some(closing));
        assert_eq!(expected, Decimal::from(80), "480 counted, 400 taken out");
    }
}
