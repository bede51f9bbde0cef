//! The reports' queries: sums over the daily totals (`report_totals`), and the few document
//! lists a report shows a page of (reversals, the sales book, the day closings). Every query
//! reads a range of an index on (company, day).

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{Connection, named_params, params_from_iter};

use super::invoices::report_totals::kind_of;
use super::invoices::{self, Invoice};
use super::{Result, mapped};
use crate::domain::day_book::{self, DayBook, DayDocument};
use crate::domain::report::ReportKind;
// The rows a report reads are the core's, shared with the head office.
use arka_core::report::rows;
pub use arka_core::report::{
    ClientRow, DayRow, MovementRow, PaymentRow, ProductRow, SalesBy, SalesRow, SalesSums, VatRow, WaitingRow,
    day_document, till_document,
};
use arka_core::row::Columns;

/// Which documents a report covers: the company's, issued on the period's days, narrowed to a
/// branch, a TCR or an operator when asked.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub company_id: i64,
    /// `YYYY-MM-DD`, inclusive.
    pub from: String,
    pub to: String,
    pub business_unit_id: Option<i64>,
    pub tcr_code: Option<String>,
    pub operator_code: Option<String>,
}

impl Filter {
    /// The conditions on a totals table (`t`) or the invoices (`i`); `day` names its date column.
    fn conditions(&self, day: &str, unit: &str, tcr: &str, operator: &str) -> (String, Vec<Value>) {
        let mut sql = format!("{day} >= ? AND {day} <= ?");
        let mut values = vec![Value::Text(self.from.clone()), Value::Text(self.to.clone())];
        if let Some(unit_id) = self.business_unit_id {
            sql.push_str(&format!(" AND {unit} = ?"));
            values.push(Value::Integer(unit_id));
        }
        if let Some(code) = &self.tcr_code {
            sql.push_str(&format!(" AND {tcr} = ?"));
            values.push(Value::Text(code.clone()));
        }
        if let Some(code) = &self.operator_code {
            sql.push_str(&format!(" AND {operator} = ?"));
            values.push(Value::Text(code.clone()));
        }
        (sql, values)
    }

    fn on_totals(&self) -> (String, Vec<Value>) {
        let (sql, mut values) = self.conditions("day", "business_unit_id", "tcr_code", "operator_code");
        values.insert(0, Value::Integer(self.company_id));
        (format!("company_id = ? AND {sql}"), values)
    }

    fn on_invoices(&self) -> (String, Vec<Value>) {
        let (sql, mut values) =
            self.conditions("i.issue_date", "i.business_unit_id", "i.tcr_code", "i.operator_code");
        values.insert(0, Value::Integer(self.company_id));
        (format!("i.company_id = ? AND {sql}"), values)
    }
}

const SALES_SUMS: &str = "SUM(documents) AS documents, SUM(net) AS net, SUM(vat) AS vat, SUM(gross) AS gross,
    SUM(discount) AS discount, SUM(fee) AS fee, SUM(net_currency) AS net_currency,
    SUM(vat_currency) AS vat_currency, SUM(gross_currency) AS gross_currency, SUM(till) AS till";

/// Sales by kind and `by`, every kind (orders too).
pub fn sales(conn: &Connection, filter: &Filter, by: SalesBy) -> Result<Vec<SalesRow>> {
    let key = by.key();
    // Grouped by the columns themselves: a literal in GROUP BY would name a result column.
    let groups = match by {
        SalesBy::Kind => "kind".to_string(),
        SalesBy::Operator => "operator_code, user_id, kind".to_string(),
        _ => format!("{key}, kind"),
    };
    let user = if by == SalesBy::Operator { "user_id" } else { "0" };
    let (conditions, values) = filter.on_totals();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT kind, {key} AS sales_key, {user} AS sales_user, {SALES_SUMS} FROM report_sales WHERE {conditions}
         GROUP BY {groups} ORDER BY {groups}"
    ))?;
    mapped(&mut stmt, params_from_iter(values), |r| rows::sales_row(r))
}

pub fn vat(conn: &Connection, filter: &Filter) -> Result<Vec<VatRow>> {
    let (conditions, values) = filter.on_totals();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT kind, vat_rate, exemption, SUM(documents) AS documents, SUM(lines) AS lines, SUM(net) AS net,
             SUM(vat) AS vat FROM report_vat
         WHERE {conditions} GROUP BY kind, vat_rate, exemption"
    ))?;
    mapped(&mut stmt, params_from_iter(values), |r| rows::vat_row(r))
}

pub fn payments(conn: &Connection, filter: &Filter) -> Result<Vec<PaymentRow>> {
    let (conditions, values) = filter.on_totals();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT kind, payment_method, SUM(documents) AS documents, SUM(amount) AS amount FROM report_payments
         WHERE {conditions} GROUP BY kind, payment_method ORDER BY payment_method, kind"
    ))?;
    mapped(&mut stmt, params_from_iter(values), |r| rows::payment_row(r))
}

/// Every product sold in the period (the operator filter does not apply).
pub fn products(conn: &Connection, filter: &Filter) -> Result<Vec<ProductRow>> {
    let (conditions, values) = Filter { operator_code: None, ..filter.clone() }.on_totals();
    // The name and unit are the bare columns of the row MAX(day) picks: the latest day's.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT product_code, product_name, unit, MAX(day), SUM(lines) AS lines, SUM(quantity) AS quantity,
             SUM(net) AS net, SUM(vat) AS vat
         FROM report_products WHERE {conditions} GROUP BY product_code"
    ))?;
    mapped(&mut stmt, params_from_iter(values), |r| rows::product_row(r))
}

/// Every buyer of the period (the TCR and operator filters do not apply).
pub fn clients(conn: &Connection, filter: &Filter) -> Result<Vec<ClientRow>> {
    let only_branch = Filter { tcr_code: None, operator_code: None, ..filter.clone() };
    let (conditions, values) = only_branch.on_totals();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT buyer_key, client_id, buyer_name, buyer_id_type, buyer_id_value, MAX(day),
             SUM(documents) AS documents, SUM(quantity) AS quantity, SUM(net) AS net, SUM(vat) AS vat,
             SUM(gross) AS gross
         FROM report_clients WHERE {conditions} GROUP BY buyer_key"
    ))?;
    mapped(&mut stmt, params_from_iter(values), |r| rows::client_row(r))
}

pub fn waiting(conn: &Connection, filter: &Filter) -> Result<Vec<WaitingRow>> {
    let (conditions, values) = filter.on_invoices();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT i.document_kind, o.document_kind AS original_kind,
             EXISTS (SELECT 1 FROM einvoices e WHERE e.invoice_id = i.id) AS einvoice, i.issue_date,
             COALESCE(i.tcr_code, '') AS tcr_code, COALESCE(i.user_id, 0) AS user_id,
             COALESCE(i.operator_code, '') AS operator_code, i.currency
         FROM invoices i LEFT JOIN invoices o ON o.id = i.original_invoice_id
         WHERE i.fic IS NULL AND {conditions}"
    ))?;
    mapped(&mut stmt, params_from_iter(values), |r| rows::waiting_row(r))
}

/// How many orders of the period are still open: neither paid by a summary nor cancelled.
pub fn open_orders(conn: &Connection, filter: &Filter) -> Result<i64> {
    let (conditions, values) = filter.on_invoices();
    Ok(conn.query_row(
        &format!(
            "SELECT COUNT(*) AS orders FROM invoices i
             WHERE i.document_kind = 'ORDER' AND i.settled_by_invoice_id IS NULL
                 AND i.reversed_at IS NULL AND {conditions}"
        ),
        params_from_iter(values),
        |r| r.get("orders"),
    )?)
}

/// A page of documents with their kind in reports.
pub struct Page {
    pub documents: Vec<(Invoice, ReportKind)>,
}

/// The documents `sql` finds, by their column `id`.
fn page(conn: &Connection, sql: &str, values: Vec<Value>) -> Result<Page> {
    let ids: Vec<i64> = conn
        .prepare_cached(sql)?
        .query_map(params_from_iter(values), |r| r.get("id"))?
        .collect::<rusqlite::Result<_>>()?;
    let mut documents = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(invoice) = invoices::by_id(conn, id)? {
            let kind = kind_of(conn, &invoice)?;
            documents.push((invoice, kind));
        }
    }
    Ok(Page { documents })
}

/// What the reversals report lists: the corrective documents (cancellations of sales and of
/// orders) and the credit notes (381, non-cash invoices), which take back part of a sale without
/// cancelling it. The corrective documents are read off `invoices_reversals`, whichever of its
/// two forms the database has (`store::REVERSALS_INDEX_KEPT`); the credit notes off
/// `credit_notes` (V44), or while the server still looks for the older ones there
/// (`store::credit_notes`), as `credit_notes_from` says.
const CORRECTIVE: &str = "i.document_kind = 'CORRECTIVE'";
const CREDIT_NOTE: &str = "i.document_kind = 'NONCASH' AND i.doc_type = '381'";

/// Where the credit notes of a period are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CreditNotesFrom {
    /// `credit_notes`, every one of the books in it.
    Kept,
    /// The invoices, off this index: V33's `invoices_reversals`, or where the upgrade kept V20's,
    /// the company's documents by date, a read of the period's every document (a month of a busy
    /// shop: tens of thousands of rows, each with its overflow page), until the older credit
    /// notes are all kept.
    Index(&'static str),
}

fn credit_notes_from(conn: &Connection) -> Result<CreditNotesFrom> {
    if super::credit_notes::all_found(conn)? {
        return Ok(CreditNotesFrom::Kept);
    }
    let holds_them: bool = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'invoices_reversals' AND sql LIKE '%''381''%')
                 AS holds_them",
        )?
        .query_row([], |r| r.get("holds_them"))?;
    Ok(CreditNotesFrom::Index(if holds_them { "invoices_reversals" } else { "invoices_company_date" }))
}

/// The credit notes of the period (`id`, `issue_date`), read as `from` says, under the filter's
/// conditions in `on_invoices`'s order of values.
fn credit_notes_select(filter: &Filter, from: CreditNotesFrom) -> String {
    match from {
        CreditNotesFrom::Kept => {
            let (conditions, _) =
                filter.conditions("c.issue_date", "i.business_unit_id", "i.tcr_code", "i.operator_code");
            format!(
                "SELECT c.invoice_id AS id, c.issue_date FROM credit_notes c JOIN invoices i ON i.id = c.invoice_id
                 WHERE c.company_id = ? AND {conditions}"
            )
        }
        CreditNotesFrom::Index(index) => {
            let (conditions, _) = filter.on_invoices();
            format!(
                "SELECT i.id, i.issue_date FROM invoices i INDEXED BY {index} WHERE {CREDIT_NOTE} AND {conditions}"
            )
        }
    }
}

/// The reversals of the period, newest first.
pub fn reversals(conn: &Connection, filter: &Filter, limit: i64, offset: i64) -> Result<Page> {
    let (_, values) = filter.on_invoices();
    let mut both = values.clone();
    both.extend(values);
    both.extend([Value::Integer(limit), Value::Integer(offset)]);
    page(conn, &reversals_sql(filter, credit_notes_from(conn)?), both)
}

/// Two lists in the same order, merged (`ORDER BY` over the compound: neither is sorted again).
fn reversals_sql(filter: &Filter, from: CreditNotesFrom) -> String {
    let (conditions, _) = filter.on_invoices();
    format!(
        "SELECT i.id, i.issue_date FROM invoices i WHERE {CORRECTIVE} AND {conditions}
         UNION ALL
         {}
         ORDER BY 2 DESC, 1 DESC LIMIT ? OFFSET ?",
        credit_notes_select(filter, from)
    )
}

/// Every credit note of the period (the daily totals count them by their kind, as sales).
pub fn credit_notes(conn: &Connection, filter: &Filter) -> Result<Page> {
    let (_, values) = filter.on_invoices();
    page(conn, &credit_notes_sql(filter, credit_notes_from(conn)?), values)
}

fn credit_notes_sql(filter: &Filter, from: CreditNotesFrom) -> String {
    format!("SELECT id FROM ({}) ORDER BY id", credit_notes_select(filter, from))
}

/// The sales book: the period's sales and reversals, one per row, oldest first.
pub fn sales_book(conn: &Connection, filter: &Filter, limit: i64, offset: i64) -> Result<Page> {
    let (conditions, mut values) = filter.on_invoices();
    values.extend([Value::Integer(limit), Value::Integer(offset)]);
    page(
        conn,
        &format!(
            "SELECT i.id FROM invoices i WHERE {conditions} AND i.document_kind <> 'ORDER'
                 AND NOT EXISTS (SELECT 1 FROM invoices o WHERE o.id = i.original_invoice_id AND o.document_kind = 'ORDER')
             ORDER BY i.issue_date, i.id LIMIT ? OFFSET ?"
        ),
        values,
    )
}

/// The TCR filter on cash tables: the TCR asked for, or the branch's TCRs.
fn till_conditions(filter: &Filter, table: &str) -> (String, Vec<Value>) {
    let mut sql =
        format!("{table}.company_id = ? AND {table}.business_day >= ? AND {table}.business_day <= ?");
    let mut values = vec![
        Value::Integer(filter.company_id),
        Value::Text(filter.from.clone()),
        Value::Text(filter.to.clone()),
    ];
    if let Some(code) = &filter.tcr_code {
        sql.push_str(&format!(" AND {table}.tcr_code = ?"));
        values.push(Value::Text(code.clone()));
    }
    if let Some(unit) = filter.business_unit_id {
        sql.push_str(&format!(
            " AND {table}.tcr_code IN (SELECT tcr_code FROM fiscal_devices WHERE company_id = ? AND business_unit_id = ?)"
        ));
        values.extend([Value::Integer(filter.company_id), Value::Integer(unit)]);
    }
    (sql, values)
}

pub fn movements(conn: &Connection, filter: &Filter) -> Result<Vec<MovementRow>> {
    let (conditions, values) = till_conditions(filter, "a");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT a.tcr_code, a.action_type, a.purpose, a.fiscal_status = 'PENDING' AS waiting, a.amount
         FROM cash_actions a
         WHERE {conditions}"
    ))?;
    let actions = mapped(&mut stmt, params_from_iter(values), |r| rows::action(r))?;
    Ok(rows::movements_of(actions.into_iter().flatten())?)
}

/// The TCRs' business days of the period, oldest first.
pub fn days(conn: &Connection, filter: &Filter, limit: i64, offset: i64) -> Result<Vec<DayRow>> {
    let (conditions, mut values) = till_conditions(filter, "d");
    values.extend([Value::Integer(limit), Value::Integer(offset)]);
    // The till's name is its latest device's of that code.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT d.id, d.company_id, d.tcr_code, d.business_day, d.opened_at, d.opened_automatically, d.closed_at,
             d.expected, d.counted, d.cash_sales, d.balance, d.counted_by_denomination AS count, d.day_book,
             (SELECT f.name FROM fiscal_devices f WHERE f.company_id = d.company_id AND f.tcr_code = d.tcr_code
              ORDER BY f.id DESC LIMIT 1) AS name
         FROM cash_days d WHERE {conditions} ORDER BY d.business_day, d.tcr_code, d.id LIMIT ? OFFSET ?"
    ))?;
    let found = mapped(&mut stmt, params_from_iter(values), |r| {
        Ok((r.int("company_id")?, rows::kept_book(r)?, rows::day_row(r)?))
    })?;
    let mut days = Vec::with_capacity(found.len());
    let mut actions = conn.prepare_cached(
        "SELECT purpose, action_type, amount, user_id FROM cash_actions WHERE cash_day_id = :day ORDER BY id",
    )?;
    let users = users(conn, filter.company_id)?;
    for (company_id, kept, mut day) in found {
        let mut action_users = Vec::new();
        for (action, user) in mapped(&mut actions, named_params! {":day": day.id}, |r| rows::day_action(r))? {
            day.actions.extend(action);
            action_users.extend(user);
        }
        day.book = match kept.filter(|_| day.closed_at.is_some()) {
            Some(book) => book,
            None => summed(conn, day.id, &action_users, &users)?,
        };
        if day.closed_at.is_none() {
            let sales = super::cash_register::day_cash_sales(conn, day.id)?;
            day.cash_sales =
                crate::domain::money::checked_sum(sales.into_iter().map(|(gross_all, self_issued)| {
                    crate::domain::cash_register::CashSale { gross_all, self_issued }.signed()
                }))?;
            let latest = super::cash_register::latest_day(conn, company_id, &day.tcr_code)?;
            if latest.is_some_and(|l| l.id == day.id) {
                day.expected_now =
                    Some(super::cash_register::drawer_expected(conn, company_id, &day.tcr_code)?);
            }
        }
        days.push(day);
    }
    Ok(days)
}

/// What the day's documents came to, and who made it (`action_users` its actions', named from
/// `users`).
fn summed(
    conn: &Connection,
    day_id: i64,
    action_users: &[i64],
    users: &HashMap<i64, (String, Option<String>)>,
) -> Result<DayBook> {
    let documents = day_documents(conn, day_id)?;
    Ok(day_book::summarize(&documents, day_book::people_of(&documents, action_users, users))?)
}

/// What a day's documents came to and who made it, as its close keeps it.
pub fn day_book_of(conn: &Connection, company_id: i64, day_id: i64) -> Result<DayBook> {
    let mut stmt = conn.prepare_cached(
        "SELECT user_id FROM cash_actions WHERE cash_day_id = :day AND user_id IS NOT NULL ORDER BY id",
    )?;
    let action_users = stmt
        .query_map(named_params! {":day": day_id}, |r| r.get("user_id"))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    summed(conn, day_id, &action_users, &users(conn, company_id)?)
}

/// The day's cash documents as its report reads them.
fn day_documents(conn: &Connection, day_id: i64) -> Result<Vec<DayDocument>> {
    let invoices = invoices::of_cash_day(conn, day_id)?;
    let originals: Vec<i64> = invoices.iter().filter_map(|i| i.original_invoice_id).collect();
    let numbers = if originals.is_empty() { HashMap::new() } else { invoices::numbers(conn, &originals)? };
    Ok(invoices.iter().map(|i| day_document(i, &numbers)).collect())
}

/// The days still open, off the partial index of open days (V29), not every day ever kept:
/// named, because without statistics SQLite takes the full index of the same columns.
const OPEN_DAYS: &str = "SELECT tcr_code, business_day, opened_at FROM cash_days INDEXED BY cash_days_open
     WHERE company_id = :company AND closed_at IS NULL ORDER BY tcr_code, id";

/// A TCR's day still open: (TCR code, business day, opened at UTC).
pub fn open_days(conn: &Connection, company_id: i64) -> Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare_cached(OPEN_DAYS)?;
    let rows = stmt.query_map(named_params! {":company": company_id}, |r| {
        Ok((r.get("tcr_code")?, r.get("business_day")?, r.get("opened_at")?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The company's users by id: (name, operator code).
pub fn users(conn: &Connection, company_id: i64) -> Result<HashMap<i64, (String, Option<String>)>> {
    let mut stmt =
        conn.prepare_cached("SELECT id, name, operator_code FROM users WHERE company_id = :company")?;
    Ok(mapped(&mut stmt, named_params! {":company": company_id}, |r| rows::user_row(r))?
        .into_iter()
        .collect())
}

/// The company's TCRs by code: (device name, branch id).
pub fn tcrs(conn: &Connection, company_id: i64) -> Result<HashMap<String, (String, i64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tcr_code, name, business_unit_id FROM fiscal_devices WHERE company_id = :company ORDER BY id",
    )?;
    Ok(mapped(&mut stmt, named_params! {":company": company_id}, |r| rows::tcr_row(r))?.into_iter().collect())
}

/// Whether the company has this branch, TCR and operator code (each when asked).
pub fn filter_known(conn: &Connection, filter: &Filter) -> Result<(bool, bool, bool)> {
    let exists = |sql: &str, value: Value| -> Result<bool> {
        Ok(conn.query_row(sql, rusqlite::params![filter.company_id, value], |r| r.get("known"))?)
    };
    let branch = match filter.business_unit_id {
        Some(id) => exists(
            "SELECT EXISTS (SELECT 1 FROM business_units WHERE company_id = ?1 AND id = ?2) AS known",
            Value::Integer(id),
        )?,
        None => true,
    };
    let tcr = match &filter.tcr_code {
        Some(code) => exists(
            "SELECT EXISTS (SELECT 1 FROM fiscal_devices WHERE company_id = ?1 AND tcr_code = ?2) AS known",
            Value::Text(code.clone()),
        )?,
        None => true,
    };
    let operator = match &filter.operator_code {
        Some(code) => exists(
            "SELECT EXISTS (SELECT 1 FROM users WHERE company_id = ?1 AND operator_code = ?2)
                 OR EXISTS (SELECT 1 FROM report_sales WHERE company_id = ?1 AND operator_code = ?2) AS known",
            Value::Text(code.clone()),
        )?,
        None => true,
    };
    Ok((branch, tcr, operator))
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;
    use crate::domain::spelled::Spelled;
    use crate::store::Store;
    use crate::store::invoices::tests::invoice;
    use crate::store::invoices::{Buyer, Line, Payment};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// A 120.00 coffee at 20 % on `day`, of `kind`, paid by `method`.
    fn coffee(company: i64, n: i64, kind: &str, day: &str, method: &str) -> Invoice {
        let mut i = invoice(company, n, kind, day, None);
        i.tcr_code = (kind != "NONCASH").then(|| "aa111aa111".to_string());
        i.fic = Some(format!("fic-{n}"));
        i.lines = vec![Line {
            product_name: "Kafe".into(),
            product_code: "K1".into(),
            unit: "copë".into(),
            unit_code: None,
            quantity: d("1"),
            price: d("120"),
            total: d("120"),
            discount_rate: d("0"),
            discount: d("0"),
            vat_rate: d("20"),
            exemption: None,
            unit_price_net: d("100"),
            rebate: None,
            net: d("100"),
            vat: d("20"),
            gross: d("120"),
            original_position: None,
        }];
        i.payments = vec![Payment {
            kind: Spelled::parse(method).unwrap(),
            amount: d("120"),
            company_card: None,
            vouchers: vec![],
        }];
        i
    }

    #[test]
    fn sums_read_the_period_the_filters_and_nothing_of_another_company() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let (mine, theirs) = store
            .write_blocking(|tx| -> Result<_> {
                tx.execute_batch(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Mine', 'now'), ('L2', 'Theirs', 'now')",
                )?;
                let mut waiting = coffee(1, 3, "CASH", "2026-03-02", "BANKNOTE");
                waiting.fic = None;
                let mut sold_on_account = coffee(1, 4, "NONCASH", "2026-03-02", "ACCOUNT");
                sold_on_account.buyer = Buyer { name: Some("Dardania".into()), ..Buyer::default() };
                for i in [
                    coffee(1, 1, "CASH", "2026-03-01", "BANKNOTE"),
                    coffee(1, 2, "ORDER", "2026-03-01", "ORDER"),
                    waiting,
                    sold_on_account,
                    coffee(1, 5, "CASH", "2026-04-01", "CARD"),
                    coffee(2, 6, "CASH", "2026-03-01", "BANKNOTE"),
                ] {
                    invoices::insert(tx, &i)?;
                }
                Ok((1, 2))
            })
            .unwrap();
        let march = Filter {
            company_id: mine,
            from: "2026-03-01".into(),
            to: "2026-03-31".into(),
            ..Filter::default()
        };
        let (by_day, vat_rows, paid, products, buyers, waiting, open, known) = store
            .read_blocking(|c| {
                Ok((
                    sales(c, &march, SalesBy::Day)?,
                    vat(c, &march)?,
                    payments(c, &march)?,
                    products(c, &march)?,
                    clients(c, &march)?,
                    waiting(c, &march)?,
                    open_orders(c, &march)?,
                    filter_known(c, &Filter { tcr_code: Some("zz999zz999".into()), ..march.clone() })?,
                ))
            })
            .unwrap();
        // | day        | kind    | documents | gross  |
        let days: Vec<(String, ReportKind, i64, Decimal)> =
            by_day.iter().map(|r| (r.key.clone(), r.kind, r.sums.documents, r.sums.gross)).collect();
        assert_eq!(
            days,
            vec![
                ("2026-03-01".into(), ReportKind::Cash, 1, d("120")),
                ("2026-03-01".into(), ReportKind::Order, 1, d("120")),
                ("2026-03-02".into(), ReportKind::Cash, 1, d("120")),
                ("2026-03-02".into(), ReportKind::NonCash, 1, d("120")),
            ]
        );
        assert_eq!(vat_rows.iter().filter(|v| v.kind.in_sales()).map(|v| v.vat).sum::<Decimal>(), d("60"));
        let methods: Vec<(&str, i64)> =
            paid.iter().map(|p| (p.payment_method.as_str(), p.documents)).collect();
        assert_eq!(methods, vec![("ACCOUNT", 1), ("BANKNOTE", 2), ("ORDER", 1)]);
        assert_eq!((products.len(), products[0].quantity), (1, d("3")), "the order is not a sale");
        assert_eq!(buyers.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["Dardania"]);
        assert_eq!(waiting.len(), 1);
        assert_eq!(open, 1);
        assert_eq!(known, (true, false, true));
        let till = Filter { tcr_code: Some("aa111aa111".into()), ..march.clone() };
        let theirs_march = Filter { company_id: theirs, ..march };
        let (on_till, other) = store
            .read_blocking(|c| Ok((sales(c, &till, SalesBy::Kind)?, sales(c, &theirs_march, SalesBy::Kind)?)))
            .unwrap();
        assert_eq!(on_till.iter().map(|r| r.sums.documents).sum::<i64>(), 3, "not the non-cash invoice");
        assert_eq!(other.iter().map(|r| r.sums.documents).sum::<i64>(), 1);
    }

    /// A new database (V33's reversals index, with the credit notes) and one the previous
    /// release made and this one opened (V20's, kept: `store::REVERSALS_INDEX_KEPT`), with the
    /// text of their `invoices_reversals`.
    fn both_forms_of_the_reversals_index() -> Vec<(tempfile::TempDir, Store, String)> {
        [None, Some(crate::store::downgrade::PREVIOUS_RELEASE_SCHEMA)]
            .into_iter()
            .map(|made_at| {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("arka.db");
                if let Some(version) = made_at {
                    crate::store::create_at_version(&path, version).unwrap();
                }
                let store = Store::open(&path).unwrap();
                let index: String = store
                    .read_blocking(|c| {
                        Ok(c.query_row(
                            "SELECT sql FROM sqlite_schema WHERE name = 'invoices_reversals'",
                            [],
                            |r| r.get("sql"),
                        )?)
                    })
                    .unwrap();
                (dir, store, index)
            })
            .collect()
    }

    /// As V44 leaves books that held the invoices before it: none of their credit notes kept yet.
    fn as_if_stored_before_v44(store: &Store) {
        store
            .write_blocking(|tx| -> Result<()> {
                tx.execute_batch(
                    "DELETE FROM credit_notes;
                     UPDATE credit_notes_found SET next_id = 1, until_id = (SELECT MAX(id) FROM invoices)",
                )?;
                Ok(())
            })
            .unwrap();
    }

    /// The credit notes found as the server finds them after the start, a step of two invoices.
    fn found_step_by_step(store: &Store) -> usize {
        let mut steps = 0;
        while store.write_blocking(|tx| crate::store::credit_notes::find_step(tx, 2)).unwrap() > 0 {
            steps += 1;
        }
        steps
    }

    #[test]
    fn the_upgrade_keeps_v20_s_reversals_index_and_a_new_database_has_v33_s() {
        let forms: Vec<String> =
            both_forms_of_the_reversals_index().into_iter().map(|(_, _, sql)| sql).collect();
        assert!(forms[0].ends_with("WHERE document_kind = 'CORRECTIVE' OR doc_type = '381'"), "{}", forms[0]);
        assert!(forms[1].ends_with("WHERE document_kind = 'CORRECTIVE'"), "not built again: {}", forms[1]);
    }

    #[test]
    fn the_reversals_are_listed_off_indexes_in_their_order_whichever_form_and_while_notes_are_found() {
        let filter = Filter {
            company_id: 1,
            from: "2026-01-01".into(),
            to: "2026-12-31".into(),
            tcr_code: Some("aa111aa111".into()),
            ..Filter::default()
        };
        for (_dir, store, index) in both_forms_of_the_reversals_index() {
            let v33 = index.contains("'381'");
            store
                .write_blocking(|tx| -> Result<()> {
                    tx.execute_batch(
                        "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Mine', 'now')",
                    )?;
                    invoices::insert(tx, &coffee(1, 1, "CASH", "2026-03-01", "BANKNOTE"))?;
                    Ok(())
                })
                .unwrap();
            for pending in [true, false] {
                if pending {
                    as_if_stored_before_v44(&store);
                } else {
                    found_step_by_step(&store);
                }
                let from = store.read_blocking(credit_notes_from).unwrap();
                let (expected, credit_index) = match (pending, v33) {
                    (false, _) => (CreditNotesFrom::Kept, "credit_notes_company_date"),
                    (true, true) => (CreditNotesFrom::Index("invoices_reversals"), "invoices_reversals"),
                    (true, false) => {
                        (CreditNotesFrom::Index("invoices_company_date"), "invoices_company_date")
                    }
                };
                assert_eq!(from, expected, "{index}, pending {pending}");
                let (_, values) = filter.on_invoices();
                let mut both = values.clone();
                both.extend(values.clone());
                both.extend([Value::Integer(20), Value::Integer(0)]);
                let plan = |sql: String, values: Vec<Value>| -> Vec<String> {
                    store
                        .read_blocking(move |c| {
                            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                            let rows =
                                stmt.query_map(params_from_iter(values), |r| r.get::<_, String>("detail"))?;
                            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
                        })
                        .unwrap()
                };
                let list = plan(reversals_sql(&filter, from), both);
                let reads: Vec<&String> =
                    list.iter().filter(|s| s.starts_with("SCAN") || s.starts_with("SEARCH")).collect();
                assert!(reads[0].contains("INDEX invoices_reversals (company_id=?"), "{index}: {list:?}");
                assert!(
                    reads[1].contains(&format!("INDEX {credit_index} (company_id=?")),
                    "{index}: {list:?}"
                );
                assert!(reads.iter().skip(2).all(|s| s.contains("INTEGER PRIMARY KEY")), "{index}: {list:?}");
                assert!(
                    !list.iter().any(|step| step.contains("TEMP B-TREE")),
                    "{index}: merged in order: {list:?}"
                );
                let notes = plan(credit_notes_sql(&filter, from), values);
                assert!(
                    notes.iter().any(|s| s.contains(&format!("INDEX {credit_index} (company_id=?"))),
                    "{notes:?}"
                );
            }
        }
    }

    #[test]
    fn the_reversals_list_corrective_documents_and_credit_notes_newest_first_whichever_index() {
        for (_dir, store, index) in both_forms_of_the_reversals_index() {
            let ids = store
                .write_blocking(|tx| -> Result<_> {
                    tx.execute_batch(
                        "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Mine', 'now'), ('L2', 'Theirs', 'now')",
                    )?;
                    let credit_note = |company: i64, n: i64, day: &str| {
                        let mut note = coffee(company, n, "NONCASH", day, "ACCOUNT");
                        note.doc_type = Some("381".into());
                        note.original_invoice_iic = Some("A".repeat(32));
                        note
                    };
                    let mut debit_note = coffee(1, 6, "NONCASH", "2026-03-03", "ACCOUNT");
                    debit_note.doc_type = Some("383".into());
                    let mut ids = Vec::new();
                    for i in [
                        coffee(1, 1, "CASH", "2026-03-01", "BANKNOTE"),
                        coffee(1, 2, "CORRECTIVE", "2026-03-02", "BANKNOTE"),
                        credit_note(1, 3, "2026-03-03"),
                        coffee(1, 4, "NONCASH", "2026-03-03", "ACCOUNT"),
                        coffee(1, 5, "CORRECTIVE", "2026-03-04", "BANKNOTE"),
                        debit_note,
                        credit_note(2, 7, "2026-03-03"),
                        credit_note(1, 8, "2026-03-02"),
                    ] {
                        ids.push(invoices::insert(tx, &i)?);
                    }
                    Ok(ids)
                })
                .unwrap();
            let march = Filter {
                company_id: 1,
                from: "2026-03-01".into(),
                to: "2026-03-31".into(),
                ..Filter::default()
            };
            let listed = |page: Page| page.documents.iter().map(|(i, _)| i.id).collect::<Vec<_>>();
            let read = || {
                store
                    .read_blocking(|c| {
                        let third_day =
                            Filter { from: "2026-03-03".into(), to: "2026-03-03".into(), ..march.clone() };
                        Ok((
                            listed(reversals(c, &march, 20, 0)?),
                            listed(reversals(c, &march, 1, 1)?),
                            listed(credit_notes(c, &march)?),
                            listed(reversals(c, &third_day, 20, 0)?),
                        ))
                    })
                    .unwrap()
            };
            let expected =
                (vec![ids[4], ids[2], ids[7], ids[1]], vec![ids[2]], vec![ids[2], ids[7]], vec![ids[2]]);
            assert_eq!(read(), expected, "{index}: kept by the trigger");
            as_if_stored_before_v44(&store);
            assert_eq!(read(), expected, "{index}: read off the invoices while the older ones are found");
            assert_eq!(found_step_by_step(&store), 4, "eight invoices, two a step");
            assert_eq!(read(), expected, "{index}: found after the start");
        }
    }

    #[test]
    fn the_open_days_are_found_off_their_own_index_not_every_day_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let plan: Vec<String> = store
            .read_blocking(|c| {
                let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {OPEN_DAYS}"))?;
                let rows = stmt.query_map(named_params! {":company": 1}, |r| r.get::<_, String>("detail"))?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .unwrap();
        assert!(plan.iter().any(|step| step.contains("cash_days_open")), "{plan:?}");
    }
}
