//! Invoices, their lines and payments. Every amount is exact decimal TEXT.

use std::str::FromStr;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::{Result, now_text};

/// A Decimal stored as TEXT, so money stays exact in SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Money(pub Decimal);

impl ToSql for Money {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.normalize().to_string()))
    }
}

impl FromSql for Money {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value {
            ValueRef::Text(t) => std::str::from_utf8(t)
                .ok()
                .and_then(|s| Decimal::from_str(s).ok())
                .map(Money)
                .ok_or(FromSqlError::InvalidType),
            ValueRef::Integer(i) => Ok(Money(Decimal::from(i))),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

fn m(d: Decimal) -> Money {
    Money(d)
}

#[derive(Debug, Clone, Default)]
pub struct Buyer {
    pub client_id: Option<i64>,
    pub name: Option<String>,
    pub id_type: Option<String>,
    pub id_value: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Line {
    pub product_name: String,
    pub product_code: String,
    pub unit: String,
    pub unit_code: Option<String>,
    pub quantity: Decimal,
    pub price: Decimal,
    pub total: Decimal,
    pub discount_rate: Decimal,
    pub discount: Decimal,
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    pub unit_price_net: Decimal,
    pub rebate: Option<Decimal>,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

#[derive(Debug, Clone)]
pub struct Payment {
    pub kind: String,
    pub amount: Decimal,
    pub company_card: Option<String>,
    pub vouchers: Vec<String>,
}

/// Totals in the invoice currency and in lek.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub gross: Decimal,
    pub net: Decimal,
    pub vat: Decimal,
    pub discount: Decimal,
    pub discount_gross: Decimal,
    pub fee: Decimal,
    pub total: Decimal,
    pub gross_all: Decimal,
    pub net_all: Decimal,
    pub vat_all: Decimal,
    pub discount_all: Decimal,
}

/// One invoice as stored (also what is written).
#[derive(Debug, Clone)]
pub struct Invoice {
    pub id: i64,
    pub company_id: i64,
    pub business_unit_id: Option<i64>,
    pub user_id: Option<i64>,
    pub internal_id: String,
    pub year: i32,
    /// CASH or NONCASH
    pub kind: String,
    pub api_version: i64,
    pub doc_type: Option<String>,
    pub original_invoice_iic: Option<String>,
    pub tcr_code: Option<String>,
    pub ord_num: i64,
    pub number: String,
    pub inv_num: String,
    pub issued_at: String,
    pub issue_date: String,
    pub issue_date_time: String,
    pub operator_code: Option<String>,
    pub business_unit_code: Option<String>,
    pub currency: String,
    pub exchange_rate: Decimal,
    pub totals: Totals,
    pub invoice_discount_type: Option<String>,
    pub invoice_discount_value: Option<Decimal>,
    pub buyer: Buyer,
    pub self_issue_type: Option<String>,
    pub due_date: Option<String>,
    pub delivery_date: Option<String>,
    pub supply_start_date: Option<String>,
    pub supply_end_date: Option<String>,
    pub reverse_charge: bool,
    pub periodic_invoice: bool,
    pub notes: Option<String>,
    pub bank_account_id: Option<i64>,
    pub iic: String,
    pub iic_signature: String,
    pub header_uuid: String,
    pub fic: Option<String>,
    pub eic: Option<String>,
    pub verify_url: String,
    pub created_at: String,
    pub lines: Vec<Line>,
    pub payments: Vec<Payment>,
    /// The bank account `bank_account_id` names, read with the invoice.
    pub bank_account: Option<super::accounts::BankAccount>,
}

/// The highest ordinal used this year by the company (for cash: by the company's TCR). Read by
/// the transaction that writes the next one (the UNIQUE index of V8 backs it up).
pub fn max_ord_num(
    conn: &Connection,
    company_id: i64,
    year: i32,
    kind: &str,
    tcr_code: Option<&str>,
) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(ord_num), 0) FROM invoices
         WHERE company_id = :company AND year = :year AND kind = :kind
           AND COALESCE(tcr_code, '') = COALESCE(:tcr, '')",
        named_params! {":company": company_id, ":year": year, ":kind": kind, ":tcr": tcr_code},
        |r| r.get(0),
    )?)
}

/// The company's `lastNonCashEInvoiceNumber` and when it registered (UTC, RFC 3339).
pub fn noncash_carried_over(conn: &Connection, company_id: i64) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT last_noncash_einvoice_number, created_at FROM companies WHERE id = :company",
            named_params! {":company": company_id},
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

pub fn id_by_internal_id(
    conn: &Connection,
    company_id: i64,
    year: i32,
    internal_id: &str,
) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT id FROM invoices WHERE company_id = :company AND year = :year AND internal_id = :internal",
            named_params! {":company": company_id, ":year": year, ":internal": internal_id},
            |r| r.get(0),
        )
        .optional()?)
}

/// When the company's invoice with this IIC was issued (UTC), for a credit or debit note.
pub fn issued_at_by_iic(conn: &Connection, company_id: i64, iic: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT issued_at FROM invoices WHERE company_id = :company AND iic = :iic",
            named_params! {":company": company_id, ":iic": iic.to_uppercase()},
            |r| r.get(0),
        )
        .optional()?)
}

/// Lower-cased text the list's `query` matches: number, buyer name and NIPT.
fn search_text(invoice: &Invoice) -> String {
    [Some(invoice.number.as_str()), invoice.buyer.name.as_deref(), invoice.buyer.id_value.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Writes the invoice with its lines and payments; returns its id.
pub fn insert(conn: &Connection, i: &Invoice) -> Result<i64> {
    let t = &i.totals;
    conn.execute(
        "INSERT INTO invoices (company_id, business_unit_id, user_id, internal_id, year, kind, api_version, doc_type,
             original_invoice_iic, tcr_code, ord_num, number, inv_num, issued_at, issue_date, issue_date_time,
             operator_code, business_unit_code, currency, exchange_rate, gross, net, vat, discount, discount_gross,
             fee, total, gross_all, net_all, vat_all, discount_all, invoice_discount_type, invoice_discount_value,
             client_id, buyer_name, buyer_id_type, buyer_id_value, buyer_address, buyer_city, buyer_country,
             self_issue_type, due_date, delivery_date, supply_start_date, supply_end_date, reverse_charge,
             periodic_invoice, notes, bank_account_id, iic, iic_signature, header_uuid, fic, eic, verify_url,
             search_text, created_at)
         VALUES (:company, :unit, :user, :internal, :year, :kind, :version, :doc_type, :original_iic, :tcr, :ord,
             :number, :inv_num, :issued_at, :issue_date, :issue_dt, :operator, :bu, :currency, :rate, :gross, :net,
             :vat, :discount, :discount_gross, :fee, :total, :gross_all, :net_all, :vat_all, :discount_all,
             :disc_type, :disc_value, :client, :buyer_name, :buyer_id_type, :buyer_id_value, :buyer_address,
             :buyer_city, :buyer_country, :self_issue, :due, :delivery, :supply_start, :supply_end, :reverse,
             :periodic, :notes, :bank, :iic, :iic_sig, :uuid, :fic, :eic, :verify, :search, :now)",
        named_params! {
            ":company": i.company_id, ":unit": i.business_unit_id, ":user": i.user_id, ":internal": i.internal_id,
            ":year": i.year, ":kind": i.kind, ":version": i.api_version, ":doc_type": i.doc_type,
            ":original_iic": i.original_invoice_iic, ":tcr": i.tcr_code, ":ord": i.ord_num, ":number": i.number,
            ":inv_num": i.inv_num, ":issued_at": i.issued_at, ":issue_date": i.issue_date,
            ":issue_dt": i.issue_date_time, ":operator": i.operator_code, ":bu": i.business_unit_code,
            ":currency": i.currency, ":rate": m(i.exchange_rate), ":gross": m(t.gross), ":net": m(t.net),
            ":vat": m(t.vat), ":discount": m(t.discount), ":discount_gross": m(t.discount_gross), ":fee": m(t.fee),
            ":total": m(t.total), ":gross_all": m(t.gross_all), ":net_all": m(t.net_all), ":vat_all": m(t.vat_all),
            ":discount_all": m(t.discount_all), ":disc_type": i.invoice_discount_type,
            ":disc_value": i.invoice_discount_value.map(m), ":client": i.buyer.client_id,
            ":buyer_name": i.buyer.name, ":buyer_id_type": i.buyer.id_type, ":buyer_id_value": i.buyer.id_value,
            ":buyer_address": i.buyer.address, ":buyer_city": i.buyer.city, ":buyer_country": i.buyer.country,
            ":self_issue": i.self_issue_type, ":due": i.due_date, ":delivery": i.delivery_date,
            ":supply_start": i.supply_start_date, ":supply_end": i.supply_end_date, ":reverse": i.reverse_charge,
            ":periodic": i.periodic_invoice, ":notes": i.notes, ":bank": i.bank_account_id, ":iic": i.iic,
            ":iic_sig": i.iic_signature, ":uuid": i.header_uuid, ":fic": i.fic, ":eic": i.eic,
            ":verify": i.verify_url, ":search": search_text(i), ":now": now_text(),
        },
    )?;
    let id = conn.last_insert_rowid();
    let mut line_stmt = conn.prepare_cached(
        "INSERT INTO invoice_lines (invoice_id, position, product_name, product_code, unit, unit_code, quantity,
             price, total, discount_rate, discount, vat_rate, exemption, unit_price_net, rebate, net, vat, gross)
         VALUES (:invoice, :pos, :name, :code, :unit, :unit_code, :qty, :price, :total, :discount_rate, :discount,
             :vat_rate, :exemption, :upb, :rebate, :net, :vat, :gross)",
    )?;
    for (pos, l) in i.lines.iter().enumerate() {
        line_stmt.execute(named_params! {
            ":invoice": id, ":pos": pos as i64, ":name": l.product_name, ":code": l.product_code, ":unit": l.unit,
            ":unit_code": l.unit_code, ":qty": m(l.quantity), ":price": m(l.price), ":total": m(l.total),
            ":discount_rate": m(l.discount_rate), ":discount": m(l.discount), ":vat_rate": m(l.vat_rate),
            ":exemption": l.exemption, ":upb": m(l.unit_price_net), ":rebate": l.rebate.map(m), ":net": m(l.net),
            ":vat": m(l.vat), ":gross": m(l.gross),
        })?;
    }
    let mut pay_stmt = conn.prepare_cached(
        "INSERT INTO invoice_payments (invoice_id, position, type, amount, company_card, vouchers)
         VALUES (:invoice, :pos, :type, :amount, :card, :vouchers)",
    )?;
    for (pos, p) in i.payments.iter().enumerate() {
        let vouchers = serde_json::to_string(&p.vouchers).unwrap_or_else(|_| "[]".to_string());
        pay_stmt.execute(named_params! {
            ":invoice": id, ":pos": pos as i64, ":type": p.kind, ":amount": m(p.amount),
            ":card": p.company_card, ":vouchers": vouchers,
        })?;
    }
    Ok(id)
}

/// Removes an invoice the CIS refused, so its number is given back.
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("DELETE FROM invoices WHERE id = :id", named_params! {":id": id})?;
    Ok(())
}

/// The CIS's code, once it has accepted the invoice.
pub fn set_fic(conn: &Connection, id: i64, fic: &str) -> Result<()> {
    conn.execute("UPDATE invoices SET fic = :fic WHERE id = :id", named_params! {":id": id, ":fic": fic})?;
    Ok(())
}

const COLUMNS: &str = "id, company_id, business_unit_id, user_id, internal_id, year, kind, api_version, doc_type,
    original_invoice_iic, tcr_code, ord_num, number, inv_num, issued_at, issue_date, issue_date_time, operator_code,
    business_unit_code, currency, exchange_rate, gross, net, vat, discount, discount_gross, fee, total, gross_all,
    net_all, vat_all, discount_all, invoice_discount_type, invoice_discount_value, client_id, buyer_name,
    buyer_id_type, buyer_id_value, buyer_address, buyer_city, buyer_country, self_issue_type, due_date,
    delivery_date, supply_start_date, supply_end_date, reverse_charge, periodic_invoice, notes, bank_account_id,
    iic, iic_signature, header_uuid, fic, eic, verify_url, created_at";

fn money(r: &Row, i: usize) -> rusqlite::Result<Decimal> {
    Ok(r.get::<_, Money>(i)?.0)
}

fn invoice_from(r: &Row) -> rusqlite::Result<Invoice> {
    Ok(Invoice {
        id: r.get(0)?,
        company_id: r.get(1)?,
        business_unit_id: r.get(2)?,
        user_id: r.get(3)?,
        internal_id: r.get(4)?,
        year: r.get(5)?,
        kind: r.get(6)?,
        api_version: r.get(7)?,
        doc_type: r.get(8)?,
        original_invoice_iic: r.get(9)?,
        tcr_code: r.get(10)?,
        ord_num: r.get(11)?,
        number: r.get(12)?,
        inv_num: r.get(13)?,
        issued_at: r.get(14)?,
        issue_date: r.get(15)?,
        issue_date_time: r.get(16)?,
        operator_code: r.get(17)?,
        business_unit_code: r.get(18)?,
        currency: r.get(19)?,
        exchange_rate: money(r, 20)?,
        totals: Totals {
            gross: money(r, 21)?,
            net: money(r, 22)?,
            vat: money(r, 23)?,
            discount: money(r, 24)?,
            discount_gross: money(r, 25)?,
            fee: money(r, 26)?,
            total: money(r, 27)?,
            gross_all: money(r, 28)?,
            net_all: money(r, 29)?,
            vat_all: money(r, 30)?,
            discount_all: money(r, 31)?,
        },
        invoice_discount_type: r.get(32)?,
        invoice_discount_value: r.get::<_, Option<Money>>(33)?.map(|m| m.0),
        buyer: Buyer {
            client_id: r.get(34)?,
            name: r.get(35)?,
            id_type: r.get(36)?,
            id_value: r.get(37)?,
            address: r.get(38)?,
            city: r.get(39)?,
            country: r.get(40)?,
        },
        self_issue_type: r.get(41)?,
        due_date: r.get(42)?,
        delivery_date: r.get(43)?,
        supply_start_date: r.get(44)?,
        supply_end_date: r.get(45)?,
        reverse_charge: r.get(46)?,
        periodic_invoice: r.get(47)?,
        notes: r.get(48)?,
        bank_account_id: r.get(49)?,
        iic: r.get(50)?,
        iic_signature: r.get(51)?,
        header_uuid: r.get(52)?,
        fic: r.get(53)?,
        eic: r.get(54)?,
        verify_url: r.get(55)?,
        created_at: r.get(56)?,
        lines: Vec::new(),
        payments: Vec::new(),
        bank_account: None,
    })
}

fn load_children(conn: &Connection, invoice: &mut Invoice) -> Result<()> {
    invoice.bank_account = match invoice.bank_account_id {
        Some(id) => super::accounts::bank_account(conn, invoice.company_id, id)?,
        None => None,
    };
    let mut stmt = conn.prepare_cached(
        "SELECT product_name, product_code, unit, unit_code, quantity, price, total, discount_rate, discount,
             vat_rate, exemption, unit_price_net, rebate, net, vat, gross
         FROM invoice_lines WHERE invoice_id = :id ORDER BY position",
    )?;
    invoice.lines = stmt
        .query_map(named_params! {":id": invoice.id}, |r| {
            Ok(Line {
                product_name: r.get(0)?,
                product_code: r.get(1)?,
                unit: r.get(2)?,
                unit_code: r.get(3)?,
                quantity: money(r, 4)?,
                price: money(r, 5)?,
                total: money(r, 6)?,
                discount_rate: money(r, 7)?,
                discount: money(r, 8)?,
                vat_rate: money(r, 9)?,
                exemption: r.get(10)?,
                unit_price_net: money(r, 11)?,
                rebate: r.get::<_, Option<Money>>(12)?.map(|m| m.0),
                net: money(r, 13)?,
                vat: money(r, 14)?,
                gross: money(r, 15)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT type, amount, company_card, vouchers FROM invoice_payments WHERE invoice_id = :id ORDER BY position",
    )?;
    invoice.payments = stmt
        .query_map(named_params! {":id": invoice.id}, |r| {
            let vouchers: String = r.get(3)?;
            Ok(Payment {
                kind: r.get(0)?,
                amount: money(r, 1)?,
                company_card: r.get(2)?,
                vouchers: serde_json::from_str(&vouchers).unwrap_or_default(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(())
}

/// One invoice of the company, with its lines and payments.
pub fn get(conn: &Connection, company_id: i64, id: i64) -> Result<Option<Invoice>> {
    let found = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM invoices WHERE id = :id AND company_id = :company"),
            named_params! {":id": id, ":company": company_id},
            invoice_from,
        )
        .optional()?;
    match found {
        Some(mut invoice) => {
            load_children(conn, &mut invoice)?;
            Ok(Some(invoice))
        }
        None => Ok(None),
    }
}

/// Filters of the invoice list.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// CASH / NONCASH / EINVOICE; empty means all.
    pub kinds: Vec<String>,
    pub from_date: Option<String>,
    pub to_date: Option<String>,
    pub query: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// The list's `query` as a LIKE pattern for the trigram index (V5), when it can use it: 3
/// characters or more and none of LIKE's own (`%`, `_`) or the escape character, since the
/// index serves LIKE only without an ESCAPE clause.
fn indexed_pattern(query: &str) -> Option<String> {
    let term = query.to_lowercase();
    (term.chars().count() >= 3 && !term.contains(['%', '_', '\\'])).then(|| format!("%{term}%"))
}

/// A page of the company's invoices, newest first, with lines and payments.
///
/// Only the filters given take part in the SQL, so each can use its index: `type` the
/// (company, kind, id) index, the dates the (company, issue_date, id) one (ordered by date, then
/// id: newest first all the same), `query` the trigram index read newest first. Every plan stops
/// after `offset + limit` matches.
pub fn list(conn: &Connection, company_id: i64, f: &ListFilter) -> Result<Vec<Invoice>> {
    use rusqlite::types::Value;
    let mut conditions = vec!["i.company_id = ?".to_string()];
    let mut values = vec![Value::Integer(company_id)];
    if !f.kinds.is_empty() {
        conditions.push(format!("i.kind IN ({})", vec!["?"; f.kinds.len()].join(", ")));
        values.extend(f.kinds.iter().map(|k| Value::Text(k.clone())));
    }
    if let Some(from) = &f.from_date {
        conditions.push("i.issue_date >= ?".to_string());
        values.push(Value::Text(from.clone()));
    }
    if let Some(to) = &f.to_date {
        conditions.push("i.issue_date <= ?".to_string());
        values.push(Value::Text(to.clone()));
    }
    let dated = f.from_date.is_some() || f.to_date.is_some();
    let (from, order) = match f.query.as_deref() {
        Some(q) => match indexed_pattern(q) {
            Some(pattern) => {
                // The trigram index drives, newest first; CROSS JOIN keeps it the outer loop.
                conditions.insert(0, "s.search_text LIKE ?".to_string());
                values.insert(0, Value::Text(pattern));
                ("invoices_search s CROSS JOIN invoices i ON i.id = s.rowid", "s.rowid DESC")
            }
            None => {
                let pattern = format!(
                    "%{}%",
                    q.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
                );
                conditions.push("i.search_text LIKE ? ESCAPE '\\'".to_string());
                values.push(Value::Text(pattern));
                ("invoices i", if dated { "i.issue_date DESC, i.id DESC" } else { "i.id DESC" })
            }
        },
        None => ("invoices i", if dated { "i.issue_date DESC, i.id DESC" } else { "i.id DESC" }),
    };
    values.push(Value::Integer(f.limit));
    values.push(Value::Integer(f.offset));
    let columns = COLUMNS.split(',').map(|c| format!("i.{}", c.trim())).collect::<Vec<_>>().join(", ");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {columns} FROM {from} WHERE {} ORDER BY {order} LIMIT ? OFFSET ?",
        conditions.join(" AND ")
    ))?;
    let mut invoices = stmt
        .query_map(rusqlite::params_from_iter(values), invoice_from)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for invoice in &mut invoices {
        load_children(conn, invoice)?;
    }
    Ok(invoices)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::Store;

    /// An invoice of `company_id` numbered `n`, issued on `date`, with no lines or payments.
    pub(crate) fn invoice(company_id: i64, n: i64, kind: &str, date: &str, buyer: Option<&str>) -> Invoice {
        Invoice {
            id: 0,
            company_id,
            business_unit_id: None,
            user_id: None,
            internal_id: format!("r-{n}"),
            year: 2026,
            kind: kind.to_string(),
            api_version: 1,
            doc_type: None,
            original_invoice_iic: None,
            tcr_code: None,
            ord_num: n,
            number: format!("{n}/2026"),
            inv_num: format!("{n}/2026"),
            issued_at: format!("{date}T10:00:00+00:00"),
            issue_date: date.to_string(),
            issue_date_time: format!("{date}T11:00:00+01:00"),
            operator_code: None,
            business_unit_code: None,
            currency: "ALL".to_string(),
            exchange_rate: Decimal::ONE,
            totals: Totals::default(),
            invoice_discount_type: None,
            invoice_discount_value: None,
            buyer: Buyer { name: buyer.map(str::to_string), ..Buyer::default() },
            self_issue_type: None,
            due_date: None,
            delivery_date: None,
            supply_start_date: None,
            supply_end_date: None,
            reverse_charge: false,
            periodic_invoice: false,
            notes: None,
            bank_account_id: None,
            iic: format!("{n:032}"),
            iic_signature: String::new(),
            header_uuid: format!("uuid-{n}"),
            fic: None,
            eic: None,
            verify_url: String::new(),
            created_at: String::new(),
            lines: Vec::new(),
            payments: Vec::new(),
            bank_account: None,
        }
    }

    #[test]
    fn a_number_is_handed_out_once_per_sequence_even_without_a_tcr() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let company = store
            .write_blocking(|tx| {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Shop', 'now')",
                    [],
                )?;
                Ok(tx.last_insert_rowid())
            })
            .unwrap();
        let numbered = |n: i64, internal: &str, kind: &str, tcr: Option<&str>| {
            let mut i = invoice(company, n, kind, "2026-03-01", None);
            i.internal_id = internal.to_string();
            i.iic = format!("{internal:0>32}");
            i.header_uuid = internal.to_string();
            i.tcr_code = tcr.map(str::to_string);
            i
        };
        store.write_blocking(|tx| insert(tx, &numbered(1, "a", "NONCASH", None))).unwrap();
        let again = store.write_blocking(|tx| insert(tx, &numbered(1, "b", "NONCASH", None)));
        assert!(matches!(again, Err(crate::store::Error::Duplicate(_))), "{again:?}");
        store.write_blocking(|tx| insert(tx, &numbered(1, "c", "CASH", Some("aa111aa111")))).unwrap();
        store.write_blocking(|tx| insert(tx, &numbered(1, "d", "CASH", Some("bb222bb222")))).unwrap();
        let again = store.write_blocking(|tx| insert(tx, &numbered(1, "e", "CASH", Some("aa111aa111"))));
        assert!(matches!(again, Err(crate::store::Error::Duplicate(_))), "{again:?}");
        let max = store
            .read_blocking(|c| {
                Ok((
                    max_ord_num(c, company, 2026, "NONCASH", None)?,
                    max_ord_num(c, company, 2026, "CASH", Some("bb222bb222"))?,
                ))
            })
            .unwrap();
        assert_eq!(max, (1, 1));
    }

    #[test]
    fn each_filter_finds_its_invoices_newest_first_by_index_or_by_scan() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let ids: Vec<i64> = store
            .write_blocking(|tx| {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Shop', 'now')",
                    [],
                )?;
                let c = tx.last_insert_rowid();
                let rows = [
                    ("CASH", "2026-03-01", Some("Furra Korça")),
                    ("NONCASH", "2026-03-02", Some("Ab 50% Zbritje")),
                    ("CASH", "2026-03-02", None),
                    ("CASH", "2026-03-09", Some("Furra e Re")),
                ];
                rows.iter()
                    .enumerate()
                    .map(|(n, (k, d, b))| insert(tx, &invoice(c, n as i64 + 1, k, d, *b)))
                    .collect()
            })
            .unwrap();
        let page = |f: ListFilter| -> Vec<i64> {
            let f = ListFilter { limit: 10, ..f };
            store.read_blocking(|c| list(c, 1, &f)).unwrap().iter().map(|i| i.id).collect()
        };
        let q = |s: &str| ListFilter { query: Some(s.to_string()), ..ListFilter::default() };
        assert_eq!(page(ListFilter::default()), [ids[3], ids[2], ids[1], ids[0]]);
        assert_eq!(page(q("FURRA")), [ids[3], ids[0]], "trigram index, any case");
        assert_eq!(page(q("ra")), [ids[3], ids[0]], "short terms are scanned");
        assert_eq!(page(q("50%")), [ids[1]], "LIKE's own characters match themselves");
        assert_eq!(page(q("5_%")), Vec::<i64>::new());
        assert_eq!(page(ListFilter { kinds: vec!["CASH".into()], ..q("furra") }), [ids[3], ids[0]]);
        let march_2 = ListFilter {
            from_date: Some("2026-03-02".into()),
            to_date: Some("2026-03-08".into()),
            ..ListFilter::default()
        };
        assert_eq!(page(march_2.clone()), [ids[2], ids[1]]);
        assert_eq!(page(ListFilter { kinds: vec!["NONCASH".into()], ..march_2 }), [ids[1]]);
        assert_eq!(page(ListFilter { offset: 1, ..q("furra") }), [ids[0]]);
        store.write_blocking(|tx| delete(tx, ids[3])).unwrap();
        assert_eq!(page(q("furra")), [ids[0]], "a deleted invoice leaves the index");
    }
}
