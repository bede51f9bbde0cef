//! Invoices, their lines and payments. Every amount is exact decimal TEXT.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

pub mod report_totals;

use super::money::Money;
use super::{Error, Result, mapped, now_text};
use crate::domain::cancellation::{self, Remains, Reversed};
use crate::domain::document::{DocumentKind, InvoiceType, ListedType};
use crate::domain::numbering;
pub use crate::domain::payments::Payment;
use crate::domain::payments::PaymentType;
use crate::domain::verify;
use arka_core::invoice::{rows, verify_fields, whole_verify_url};

fn m(d: Decimal) -> Money {
    Money(d)
}

pub use crate::domain::invoice::request::Buyer;
// The invoice model is the core's: the head office reads the shops' invoices into it too.
pub use arka_core::invoice::{Invoice, Line, SettledOrder, Totals, WtnRef};

/// The highest ordinal used this year by the company (for cash: by the company's TCR). Read by
/// the transaction that writes the next one (the UNIQUE index of V8 backs it up).
pub fn max_ord_num(
    conn: &Connection,
    company_id: i64,
    year: i32,
    kind: InvoiceType,
    tcr_code: Option<&str>,
) -> Result<i64> {
    Ok(conn
        .prepare_cached(
            "SELECT COALESCE(MAX(ord_num), 0) AS ord_num FROM invoices
             WHERE company_id = :company AND year = :year AND kind = :kind
               AND COALESCE(tcr_code, '') = COALESCE(:tcr, '')",
        )?
        .query_row(
            named_params! {":company": company_id, ":year": year, ":kind": kind, ":tcr": tcr_code},
            |r| r.get("ord_num"),
        )?)
}

/// The company's `lastNonCashEInvoiceNumber` and when it registered (UTC, RFC 3339).
pub fn noncash_carried_over(conn: &Connection, company_id: i64) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT last_noncash_einvoice_number, created_at FROM companies WHERE id = :company",
            named_params! {":company": company_id},
            |r| Ok((r.get("last_noncash_einvoice_number")?, r.get("created_at")?)),
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
        .prepare_cached(
            "SELECT id FROM invoices WHERE company_id = :company AND year = :year AND internal_id = :internal",
        )?
        .query_row(named_params! {":company": company_id, ":year": year, ":internal": internal_id}, |r| {
            r.get("id")
        })
        .optional()?)
}

/// The company's invoice with this IIC, as a document that corrects it (a credit or debit
/// note) names it.
pub fn corrected_by_iic(conn: &Connection, company_id: i64, iic: &str) -> Result<Option<Corrected>> {
    Ok(conn
        .query_row(
            "SELECT id, user_id, issue_date, issued_at FROM invoices WHERE company_id = :company AND iic = :iic",
            named_params! {":company": company_id, ":iic": iic.trim().to_uppercase()},
            |r| {
                Ok(Corrected {
                    id: r.get("id")?,
                    user_id: r.get("user_id")?,
                    issue_date: r.get("issue_date")?,
                    issued_at: r.get("issued_at")?,
                })
            },
        )
        .optional()?)
}

/// What a document that corrects an invoice needs of it: whose sale it was, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrected {
    pub id: i64,
    pub user_id: Option<i64>,
    pub issue_date: String,
    pub issued_at: String,
}

/// The internalIds of the company's documents of `year` that begin with `prefix`, read through
/// the internalIds' unique index (`prefix` ends in `-`, and `.` follows `-`).
pub fn internal_ids_beginning(
    conn: &Connection,
    company_id: i64,
    year: i32,
    prefix: &str,
) -> Result<Vec<String>> {
    let after = format!("{}.", prefix.strip_suffix('-').unwrap_or(prefix));
    let mut stmt = conn.prepare_cached(
        "SELECT internal_id FROM invoices
         WHERE company_id = :company AND year = :year AND internal_id > :prefix AND internal_id < :after",
    )?;
    let rows = stmt.query_map(
        named_params! {":company": company_id, ":year": year, ":prefix": prefix, ":after": after},
        |r| r.get("internal_id"),
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The company's invoice with this IIC.
pub fn id_by_iic(conn: &Connection, company_id: i64, iic: &str) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT id FROM invoices WHERE company_id = :company AND iic = :iic",
            named_params! {":company": company_id, ":iic": iic.to_uppercase()},
            |r| r.get("id"),
        )
        .optional()?)
}

/// How many corrective documents reverse the invoice: a cancellation checks in its
/// transaction that none came in since it looked.
pub fn corrective_count(conn: &Connection, original_id: i64) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) AS correctives FROM invoices WHERE original_invoice_id = :original",
        named_params! {":original": original_id},
        |r| r.get("correctives"),
    )?)
}

/// What the invoice's corrective documents reversed, by the position of its line (positive).
pub fn reversed_so_far(conn: &Connection, original_id: i64) -> Result<Vec<(i64, Reversed)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT l.original_position, l.quantity, l.total, l.discount, l.net, l.vat, l.gross
         FROM invoices c JOIN invoice_lines l ON l.invoice_id = c.id
         WHERE c.original_invoice_id = :original AND l.original_position IS NOT NULL",
    )?;
    let rows = stmt.query_map(named_params! {":original": original_id}, |r| {
        let position: i64 = r.get("original_position")?;
        Ok((
            position,
            Reversed {
                quantity: -money(r, "quantity")?,
                total: -money(r, "total")?,
                discount: -money(r, "discount")?,
                net: -money(r, "net")?,
                vat: -money(r, "vat")?,
                gross: -money(r, "gross")?,
            },
        ))
    })?;
    let mut sums: Vec<(i64, Reversed)> = Vec::new();
    for row in rows {
        let (position, r) = row?;
        match sums.iter_mut().find(|(p, _)| *p == position) {
            Some((_, sum)) => {
                sum.quantity += r.quantity;
                sum.total += r.total;
                sum.discount += r.discount;
                sum.net += r.net;
                sum.vat += r.vat;
                sum.gross += r.gross;
            }
            None => sums.push((position, r)),
        }
    }
    Ok(sums)
}

/// What the invoice's cancellations left of it (its lines read first).
fn remains_of(conn: &Connection, invoice: &Invoice) -> Result<Remains> {
    let reversed: Vec<(i64, Decimal)> =
        reversed_so_far(conn, invoice.id)?.into_iter().map(|(p, r)| (p, r.quantity)).collect();
    let mut stmt = conn.prepare_cached("SELECT total FROM invoices WHERE original_invoice_id = :original")?;
    let totals = stmt
        .query_map(named_params! {":original": invoice.id}, |r| money(r, "total"))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let quantities: Vec<Decimal> = invoice.lines.iter().map(|l| l.quantity).collect();
    Ok(cancellation::remains(&quantities, &reversed, invoice.totals.total, &totals))
}

/// The invoice's newest corrective document: its internalId and number.
pub struct LastReversal {
    pub internal_id: String,
    pub number: String,
}

/// The invoice's newest corrective document (`LastReversal`), if it has one.
pub fn last_reversal(conn: &Connection, original_id: i64) -> Result<Option<LastReversal>> {
    Ok(conn
        .prepare_cached(
            "SELECT internal_id, number FROM invoices WHERE original_invoice_id = :original
             ORDER BY id DESC LIMIT 1",
        )?
        .query_row(named_params! {":original": original_id}, |r| {
            Ok(LastReversal { internal_id: r.get("internal_id")?, number: r.get("number")? })
        })
        .optional()?)
}

/// What the invoice's corrective documents gave back, by payment method (positive).
pub fn refunded_so_far(conn: &Connection, original_id: i64) -> Result<Vec<(PaymentType, Decimal)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.type, p.amount FROM invoices c JOIN invoice_payments p ON p.invoice_id = c.id
         WHERE c.original_invoice_id = :original",
    )?;
    let rows = stmt.query_map(named_params! {":original": original_id}, |r| {
        Ok((r.get("type")?, -money(r, "amount")?))
    })?;
    let mut sums: Vec<(PaymentType, Decimal)> = Vec::new();
    for row in rows {
        let (kind, amount): (PaymentType, Decimal) = row?;
        match sums.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, sum)) => *sum += amount,
            None => sums.push((kind, amount)),
        }
    }
    Ok(sums)
}

/// `reversed_at` of an invoice: when its latest corrective document was issued, or NULL.
pub fn refresh_reversal(conn: &Connection, original_id: i64) -> Result<()> {
    conn.execute(
        "UPDATE invoices SET reversed_at =
             (SELECT MAX(c.issued_at) FROM invoices c WHERE c.original_invoice_id = invoices.id)
         WHERE id = :original",
        named_params! {":original": original_id},
    )?;
    Ok(())
}

/// The summary `summary_id` pays the orders; returns how many were still open.
pub fn settle_orders(conn: &Connection, summary_id: i64, order_ids: &[i64]) -> Result<usize> {
    let mut stmt = conn.prepare_cached(
        "UPDATE invoices SET settled_by_invoice_id = :summary
         WHERE id = :order AND document_kind = 'ORDER' AND settled_by_invoice_id IS NULL",
    )?;
    let mut settled = 0;
    for order in order_ids {
        settled += stmt.execute(named_params! {":summary": summary_id, ":order": order})?;
    }
    Ok(settled)
}

/// The orders a summary paid are open again (the summary was not kept).
pub fn reopen_orders(conn: &Connection, summary_id: i64) -> Result<()> {
    conn.execute(
        "UPDATE invoices SET settled_by_invoice_id = NULL WHERE settled_by_invoice_id = :summary",
        named_params! {":summary": summary_id},
    )?;
    Ok(())
}

/// The original of a corrective document.
pub fn original_of(conn: &Connection, id: i64) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT original_invoice_id FROM invoices WHERE id = :id",
            named_params! {":id": id},
            |r| r.get("original_invoice_id"),
        )
        .optional()?
        .flatten())
}

/// The note `wtn_id` as an invoice names it.
pub fn wtn_ref(conn: &Connection, wtn_id: i64) -> Result<Option<WtnRef>> {
    conn.prepare_cached("SELECT id, number, wtnic FROM wtns WHERE id = :id")?
        .query_and_then(named_params! {":id": wtn_id}, |r| Ok::<_, Error>(rows::wtn_ref(r)?))?
        .next()
        .transpose()
}

/// The note the invoice `invoice_id` names, if any.
fn linked_wtn(conn: &Connection, invoice_id: i64) -> Result<Option<WtnRef>> {
    conn.prepare_cached(
        "SELECT w.id, w.number, w.wtnic FROM invoice_wtns l JOIN wtns w ON w.id = l.wtn_id
             WHERE l.invoice_id = :invoice",
    )?
    .query_and_then(named_params! {":invoice": invoice_id}, |r| Ok::<_, Error>(rows::wtn_ref(r)?))?
    .next()
    .transpose()
}

/// The invoices that named the note `wtn_id` name none any more (the note was given up).
pub fn unlink_wtn(conn: &Connection, wtn_id: i64) -> Result<()> {
    conn.execute("DELETE FROM invoice_wtns WHERE wtn_id = :wtn", named_params! {":wtn": wtn_id})?;
    Ok(())
}

/// The orders a summary paid (all of them, or some of their lines), oldest first.
pub fn settled_orders(conn: &Connection, summary_id: i64) -> Result<Vec<SettledOrder>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, number, iic, issued_at, currency, total FROM invoices
         WHERE settled_by_invoice_id = :summary
            OR id IN (SELECT order_id FROM order_line_settlements WHERE summary_id = :summary)
         ORDER BY id",
    )?;
    mapped(&mut stmt, named_params! {":summary": summary_id}, |r| rows::settled_order(r))
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

/// Adds to the search index up to `batch` of the invoices it does not cover yet (V19), oldest
/// first, and moves its mark past them; returns how many.
pub fn index_pending(tx: &Connection, batch: i64) -> Result<usize> {
    let mark: i64 = tx
        .prepare_cached("SELECT indexed_to FROM invoices_search_mark")?
        .query_row([], |r| r.get("indexed_to"))?;
    let upto: Option<i64> = tx
        .prepare_cached(
            "SELECT MAX(id) AS upto FROM (SELECT id FROM invoices WHERE id > :mark ORDER BY id LIMIT :batch)",
        )?
        .query_row(named_params! {":mark": mark, ":batch": batch}, |r| r.get("upto"))?;
    let Some(upto) = upto else { return Ok(0) };
    let indexed = tx
        .prepare_cached(
            "INSERT INTO invoices_search (rowid, search_text)
             SELECT id, search_text FROM invoices WHERE id > :mark AND id <= :upto",
        )?
        .execute(named_params! {":mark": mark, ":upto": upto})?;
    tx.prepare_cached("UPDATE invoices_search_mark SET indexed_to = :upto")?
        .execute(named_params! {":upto": upto})?;
    Ok(indexed)
}

/// Whether some invoices are not in the search index yet.
pub fn search_pending(conn: &Connection) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM invoices WHERE id > (SELECT indexed_to FROM invoices_search_mark))
                 AS pending",
        )?
        .query_row([], |r| r.get("pending"))?)
}

/// Writes the invoice with its lines and payments; returns its id. The statement is prepared
/// once per connection, not per invoice.
pub fn insert(conn: &Connection, i: &Invoice) -> Result<i64> {
    insert_row(conn, i, &i.iic_signature)
}

/// Writes the invoice registered with `request`, which its queue entry keeps, written next in
/// the same transaction: when that keeps its IIC signature (`kept::keeps_signature`), the row
/// holds none of its own (read back through the entry, `kept_signature`). Written short from the
/// start, the row leaves room in its page for the next one.
pub fn insert_registered(conn: &Connection, i: &Invoice, request: &str) -> Result<i64> {
    let own =
        if super::kept::keeps_signature(request, &i.iic_signature) { "" } else { i.iic_signature.as_str() };
    insert_row(conn, i, own)
}

fn insert_row(conn: &Connection, i: &Invoice, iic_signature: &str) -> Result<i64> {
    let t = &i.totals;
    conn.prepare_cached(
        "INSERT INTO invoices (company_id, business_unit_id, user_id, internal_id, year, kind, api_version, doc_type,
             original_invoice_iic, tcr_code, ord_num, number, inv_num, issued_at, issue_date, issue_date_time,
             operator_code, business_unit_code, currency, exchange_rate, gross, net, vat, discount, discount_gross,
             fee, total, gross_all, net_all, vat_all, discount_all, invoice_discount_type, invoice_discount_value,
             client_id, buyer_name, buyer_id_type, buyer_id_value, buyer_address, buyer_city, buyer_country,
             self_issue_type, due_date, delivery_date, supply_start_date, supply_end_date, reverse_charge,
             periodic_invoice, notes, bank_account_id, iic, iic_signature, header_uuid, fic, eic, verify_url,
             search_text, created_at, document_kind, original_invoice_id, reversed_at, settled_by_invoice_id,
             exchange_rate_source, exchange_rate_date)
         VALUES (:company, :unit, :user, :internal, :year, :kind, :version, :doc_type, :original_iic, :tcr, :ord,
             :number, :inv_num, :issued_at, :issue_date, :issue_dt, :operator, :bu, :currency, :rate, :gross, :net,
             :vat, :discount, :discount_gross, :fee, :total, :gross_all, :net_all, :vat_all, :discount_all,
             :disc_type, :disc_value, :client, :buyer_name, :buyer_id_type, :buyer_id_value, :buyer_address,
             :buyer_city, :buyer_country, :self_issue, :due, :delivery, :supply_start, :supply_end, :reverse,
             :periodic, :notes, :bank, :iic, :iic_sig, :uuid, :fic, :eic, :verify, :search, :now, :document_kind,
             :original, :reversed_at, :settled_by, :rate_source, :rate_date)",
    )?
    .execute(named_params! {
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
            ":iic_sig": iic_signature, ":uuid": i.header_uuid, ":fic": i.fic, ":eic": i.eic,
            ":verify": kept_verify_url(i), ":search": search_text(i), ":now": now_text(),
            ":document_kind": i.document_kind, ":original": i.original_invoice_id, ":reversed_at": i.reversed_at,
            ":settled_by": i.settled_by, ":rate_source": i.exchange_rate_origin,
            ":rate_date": i.exchange_rate_date,
    })?;
    let id = conn.last_insert_rowid();
    if let Some(wtn_id) = i.wtn_id {
        conn.prepare_cached("INSERT INTO invoice_wtns (invoice_id, wtn_id) VALUES (:invoice, :wtn)")?
            .execute(named_params! {":invoice": id, ":wtn": wtn_id})?;
    }
    let mut line_stmt = conn.prepare_cached(
        "INSERT INTO invoice_lines (invoice_id, position, product_name, product_code, unit, unit_code, quantity,
             price, total, discount_rate, discount, vat_rate, exemption, unit_price_net, rebate, net, vat, gross,
             original_position)
         VALUES (:invoice, :pos, :name, :code, :unit, :unit_code, :qty, :price, :total, :discount_rate, :discount,
             :vat_rate, :exemption, :upb, :rebate, :net, :vat, :gross, :original_position)",
    )?;
    for (pos, l) in i.lines.iter().enumerate() {
        line_stmt.execute(named_params! {
            ":invoice": id, ":pos": pos as i64, ":name": l.product_name, ":code": l.product_code, ":unit": l.unit,
            ":unit_code": l.unit_code, ":qty": m(l.quantity), ":price": m(l.price), ":total": m(l.total),
            ":discount_rate": m(l.discount_rate), ":discount": m(l.discount), ":vat_rate": m(l.vat_rate),
            ":exemption": l.exemption, ":upb": m(l.unit_price_net), ":rebate": l.rebate.map(m), ":net": m(l.net),
            ":vat": m(l.vat), ":gross": m(l.gross), ":original_position": l.original_position,
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
    report_totals::add(conn, i)?;
    Ok(id)
}

/// Removes an invoice the CIS refused, so its number is given back (and its amounts leave the
/// report totals with it).
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    if let Some(invoice) = by_id(conn, id)? {
        report_totals::remove(conn, &invoice)?;
    }
    conn.execute("DELETE FROM invoices WHERE id = :id", named_params! {":id": id})?;
    Ok(())
}

/// The kind of the document `id`.
pub fn document_kind(conn: &Connection, id: i64) -> Result<Option<DocumentKind>> {
    Ok(conn
        .query_row("SELECT document_kind FROM invoices WHERE id = :id", named_params! {":id": id}, |r| {
            r.get("document_kind")
        })
        .optional()?)
}

/// One invoice with its lines and payments, whatever its company (for the store's own upkeep).
pub fn by_id(conn: &Connection, id: i64) -> Result<Option<Invoice>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM invoices WHERE id = :id"))?;
    let found = stmt.query_and_then(named_params! {":id": id}, invoice_from)?.next().transpose()?;
    match found {
        Some(mut invoice) => {
            load_children(conn, &mut invoice)?;
            Ok(Some(invoice))
        }
        None => Ok(None),
    }
}

/// `arka_kept_verify_url(verify_url, iic, issue_date_time, ord_num, business_unit_code, tcr_code,
/// total)`, on every connection: what a row keeps of its verify URL (V28 over the rows of earlier
/// releases); the URL itself when its row cannot make it back.
pub fn register_sql_functions(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    // The function's arguments, in the order of its signature above.
    const URL: usize = 0;
    const IIC: usize = 1;
    const ISSUE_DATE_TIME: usize = 2;
    const ORD_NUM: usize = 3;
    const UNIT: usize = 4;
    const TCR: usize = 5;
    const TOTAL: usize = 6;
    conn.create_scalar_function("arka_kept_verify_url", 7, flags, |ctx| {
        let url: String = ctx.get(URL)?;
        let (iic, issue_date_time, ord_num): (String, String, i64) =
            (ctx.get(IIC)?, ctx.get(ISSUE_DATE_TIME)?, ctx.get(ORD_NUM)?);
        let (unit, tcr, total): (Option<String>, Option<String>, String) =
            (ctx.get(UNIT)?, ctx.get(TCR)?, ctx.get(TOTAL)?);
        let (Some(unit), Ok(ord_num), Ok(total)) = (unit, u64::try_from(ord_num), total.parse::<Decimal>())
        else {
            return Ok(url);
        };
        let fields = verify::RowFields {
            iic: &iic,
            issue_date_time: &issue_date_time,
            ord_num,
            business_unit_code: &unit,
            tcr_code: tcr.as_deref(),
            total,
        };
        Ok(verify::kept_url(&url, &fields))
    })
}

/// The IIC signature the queue entry `header_uuid` keeps. An invoice's signature is kept once, by
/// its queue entry's request (as its 256 bytes, `kept`); a row whose entry does not hold it (one
/// written before V28 without an entry, or another's) keeps its own.
fn kept_signature(conn: &Connection, header_uuid: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT arka_kept_signature(unsigned_request) AS signature FROM fiscal_queue WHERE header_uuid = :uuid")?
        .query_row(named_params! {":uuid": header_uuid}, |r| r.get("signature"))
        .optional()?
        .flatten())
}

/// The CIS's code, once it has accepted the invoice.
pub fn set_fic(conn: &Connection, id: i64, fic: &str) -> Result<()> {
    conn.prepare_cached("UPDATE invoices SET fic = :fic WHERE id = :id")?
        .execute(named_params! {":id": id, ":fic": fic})?;
    Ok(())
}

const COLUMNS: &str = "id, company_id, business_unit_id, user_id, internal_id, year, kind, api_version, doc_type,
    original_invoice_iic, tcr_code, ord_num, number, inv_num, issued_at, issue_date, issue_date_time, operator_code,
    business_unit_code, currency, exchange_rate, gross, net, vat, discount, discount_gross, fee, total, gross_all,
    net_all, vat_all, discount_all, invoice_discount_type, invoice_discount_value, client_id, buyer_name,
    buyer_id_type, buyer_id_value, buyer_address, buyer_city, buyer_country, self_issue_type, due_date,
    delivery_date, supply_start_date, supply_end_date, reverse_charge, periodic_invoice, notes, bank_account_id,
    iic, iic_signature, header_uuid, fic, eic, verify_url, created_at, document_kind, original_invoice_id,
    reversed_at, settled_by_invoice_id, exchange_rate_source, exchange_rate_date";

fn money(r: &Row, column: &str) -> rusqlite::Result<Decimal> {
    Ok(r.get::<_, Money>(column)?.0)
}

/// One row of `invoices`, read by column name, its verify URL made whole again.
fn invoice_from(r: &Row) -> Result<Invoice> {
    Ok(whole_verify_url(rows::invoice(r)?))
}

/// What the row keeps of `invoice`'s verify URL (`domain::verify::kept_url`).
fn kept_verify_url(invoice: &Invoice) -> String {
    match verify_fields(invoice) {
        Some(fields) => verify::kept_url(&invoice.verify_url, &fields),
        None => invoice.verify_url.clone(),
    }
}

fn load_children(conn: &Connection, invoice: &mut Invoice) -> Result<()> {
    if invoice.iic_signature.is_empty() {
        invoice.iic_signature = kept_signature(conn, &invoice.header_uuid)?.unwrap_or_default();
    }
    invoice.bank_account = match invoice.bank_account_id {
        Some(id) => super::accounts::bank_account(conn, invoice.company_id, id)?,
        None => None,
    };
    invoice.process = super::einvoices::get(conn, invoice.id)?.map(|e| e.process);
    invoice.wtn = linked_wtn(conn, invoice.id)?;
    invoice.wtn_id = invoice.wtn.as_ref().map(|w| w.id);
    let mut stmt = conn.prepare_cached(
        "SELECT product_name, product_code, unit, unit_code, quantity, price, total, discount_rate, discount,
             vat_rate, exemption, unit_price_net, rebate, net, vat, gross, original_position
         FROM invoice_lines WHERE invoice_id = :id ORDER BY position",
    )?;
    invoice.lines = mapped(&mut stmt, named_params! {":id": invoice.id}, |r| rows::line(r))?;
    let mut stmt = conn.prepare_cached(
        "SELECT type, amount, company_card, vouchers FROM invoice_payments WHERE invoice_id = :id ORDER BY position",
    )?;
    invoice.payments = mapped(&mut stmt, named_params! {":id": invoice.id}, |r| rows::payment(r))?;
    if invoice.document_kind == DocumentKind::Summary {
        invoice.settled_orders = settled_orders(conn, invoice.id)?;
    }
    if invoice.reversed_at.is_some() {
        invoice.remains = Some(remains_of(conn, invoice)?);
    }
    Ok(())
}

/// The cash documents linked to a till's day, oldest first, with their lines and payments: what
/// its X and Z reports read (the day's cash sales, so not orders nor their corrective documents).
pub fn of_cash_day(conn: &Connection, day_id: i64) -> Result<Vec<Invoice>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM invoices WHERE cash_day_id = :day AND {} ORDER BY id",
        super::cash_register::CASH_SALE
    ))?;
    with_children(conn, stmt.query_and_then(named_params! {":day": day_id}, invoice_from)?)
}

/// The numbers of the invoices `ids`, by id.
pub fn numbers(conn: &Connection, ids: &[i64]) -> Result<HashMap<i64, String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT n.value AS id, i.number FROM json_each(:ids) n JOIN invoices i ON i.id = n.value",
    )?;
    let ids = serde_json::Value::from(ids.to_vec()).to_string();
    let rows = stmt.query_map(named_params! {":ids": ids}, |r| Ok((r.get("id")?, r.get("number")?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One invoice of the company, with its lines and payments.
pub fn get(conn: &Connection, company_id: i64, id: i64) -> Result<Option<Invoice>> {
    let found = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM invoices WHERE id = :id AND company_id = :company"))?
        .query_and_then(named_params! {":id": id, ":company": company_id}, invoice_from)?
        .next()
        .transpose()?;
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
    /// Empty means all.
    pub kinds: Vec<ListedType>,
    pub from_date: Option<String>,
    pub to_date: Option<String>,
    pub query: Option<String>,
    pub limit: i64,
    pub offset: i64,
    /// Only a cashier's documents (`domain::role::may_read_document`).
    pub own: Option<Own>,
}

/// A cashier's documents: those of their till, and those they issued themselves. The list reads
/// them through the company's index, newest first, and keeps these: an index of their own would
/// cost every sale a page more (V20).
#[derive(Debug, Clone, Default)]
pub struct Own {
    pub tcr_code: Option<String>,
    pub user_id: i64,
}

/// The list's `query` as a LIKE pattern for the trigram index (V5), when it can use it: 3
/// characters or more and none of LIKE's own (`%`, `_`) or the escape character, since the
/// index serves LIKE only without an ESCAPE clause.
fn indexed_pattern(query: &str) -> Option<String> {
    let term = query.to_lowercase();
    (term.chars().count() >= 3 && !term.contains(['%', '_', '\\'])).then(|| format!("%{term}%"))
}

/// The most ordinals a number query looks up one by one in each sequence; a shorter end (`4/2019`)
/// goes to the trigram index.
const NUMBER_LOOKUPS: usize = 2_000;

/// The company's invoices whose number ends in `digits/year`, by their sequences' numbering
/// index (each kind, and each TCR of the year, found by a seek past the last), or `None` when
/// some sequence has more ordinals ending so than `NUMBER_LOOKUPS`. The trigram index would read
/// the postings of the year's digits, which every document of the year holds.
fn numbered_ending_in(
    conn: &Connection,
    company_id: i64,
    digits: &str,
    year: i32,
) -> Result<Option<Vec<i64>>> {
    let mut next_till = conn.prepare_cached(
        "SELECT MIN(COALESCE(tcr_code, '')) AS tcr FROM invoices INDEXED BY invoices_number_unique
         WHERE company_id = :company AND year = :year AND kind = :kind AND COALESCE(tcr_code, '') > :after",
    )?;
    let mut numbered = conn.prepare_cached(
        "SELECT id FROM invoices INDEXED BY invoices_number_unique
         WHERE company_id = :company AND year = :year AND kind = :kind AND COALESCE(tcr_code, '') = :tcr
           AND ord_num IN (SELECT value FROM json_each(:ordinals))",
    )?;
    let mut ids = Vec::new();
    for kind in [InvoiceType::Cash, InvoiceType::NonCash] {
        // '' (no TCR) first, then each TCR code above the last.
        let mut till = Some(String::new());
        while let Some(tcr) = till {
            let max = max_ord_num(conn, company_id, year, kind, (!tcr.is_empty()).then_some(tcr.as_str()))?;
            let Some(ordinals) = numbering::ordinals_ending_in(digits, max, NUMBER_LOOKUPS) else {
                return Ok(None);
            };
            if !ordinals.is_empty() {
                let ordinals = serde_json::Value::from(ordinals).to_string();
                let found = numbered.query_map(
                    named_params! {":company": company_id, ":year": year, ":kind": kind, ":tcr": tcr, ":ordinals": ordinals},
                    |r| r.get::<_, i64>("id"),
                )?;
                ids.extend(found.collect::<rusqlite::Result<Vec<_>>>()?);
            }
            till = next_till.query_row(
                named_params! {":company": company_id, ":year": year, ":kind": kind, ":after": tcr},
                |r| r.get::<_, Option<String>>("tcr"),
            )?;
        }
    }
    Ok(Some(ids))
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
        // An e-invoice is a non-cash invoice with an `einvoices` row; the three types part.
        let kinds: Vec<&str> = f
            .kinds
            .iter()
            .map(|k| match k {
                ListedType::Cash => "i.kind = 'CASH'",
                ListedType::NonCash => {
                    "(i.kind = 'NONCASH' AND i.id NOT IN (SELECT invoice_id FROM einvoices))"
                }
                ListedType::EInvoice => "i.id IN (SELECT invoice_id FROM einvoices)",
            })
            .collect();
        conditions.push(format!("({})", kinds.join(" OR ")));
    }
    if let Some(from) = &f.from_date {
        conditions.push("i.issue_date >= ?".to_string());
        values.push(Value::Text(from.clone()));
    }
    if let Some(to) = &f.to_date {
        conditions.push("i.issue_date <= ?".to_string());
        values.push(Value::Text(to.clone()));
    }
    if let Some(own) = &f.own {
        conditions.push("(i.tcr_code = ? OR i.user_id = ?)".to_string());
        values.push(own.tcr_code.clone().map_or(Value::Null, Value::Text));
        values.push(Value::Integer(own.user_id));
    }
    let dated = f.from_date.is_some() || f.to_date.is_some();
    let order = if dated { "i.issue_date DESC, i.id DESC" } else { "i.id DESC" };
    let columns = COLUMNS.split(',').map(|c| format!("i.{}", c.trim())).collect::<Vec<_>>().join(", ");
    let number_end = f.query.as_deref().and_then(numbering::number_end);
    let by_number = match number_end {
        Some((digits, year)) => numbered_ending_in(conn, company_id, digits, year)?,
        None => None,
    };
    if let Some(ids) = by_number {
        // The few invoices so numbered, looked up by id (CROSS JOIN keeps the list the outer
        // loop), then filtered and ordered as any page.
        let mut all = vec![Value::Text(serde_json::Value::from(ids).to_string())];
        all.extend(values);
        all.push(Value::Integer(f.limit));
        all.push(Value::Integer(f.offset));
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {columns} FROM json_each(?) n CROSS JOIN invoices i ON i.id = n.value
             WHERE {} ORDER BY {order} LIMIT ? OFFSET ?",
            conditions.join(" AND ")
        ))?;
        return with_children(conn, stmt.query_and_then(rusqlite::params_from_iter(all), invoice_from)?);
    }
    if let Some((digits, year)) = number_end {
        // So many numbers end so that looking each up costs more than the text search, which
        // then keeps only the numbers (not a buyer's name holding the same text), as the lookup.
        conditions.push("i.year = ?".to_string());
        values.push(Value::Integer(year.into()));
        conditions.push("CAST(i.ord_num AS TEXT) LIKE ?".to_string());
        values.push(Value::Text(format!("%{digits}")));
    }
    if let Some(pattern) = f.query.as_deref().and_then(indexed_pattern) {
        // The invoices above the index's mark (V19), read from the table newest first, then the
        // index's own, newest first (CROSS JOIN keeps the index the outer loop): every id above
        // the mark is newer than every id below it, so the two arms merge without a sort and the
        // plan still stops after `offset + limit` matches. One statement: one snapshot of the mark.
        let filters = conditions.join(" AND ");
        let indexed_columns = columns.replacen("i.id", "s.rowid", 1);
        let mut all = vec![Value::Text(pattern.clone())];
        all.extend(values.iter().cloned());
        all.push(Value::Text(pattern));
        all.extend(values);
        all.push(Value::Integer(f.limit));
        all.push(Value::Integer(f.offset));
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {columns} FROM invoices i
             WHERE i.id > (SELECT indexed_to FROM invoices_search_mark) AND i.search_text LIKE ? AND {filters}
             UNION ALL
             SELECT {indexed_columns} FROM invoices_search s CROSS JOIN invoices i ON i.id = s.rowid
             WHERE s.search_text LIKE ? AND {filters}
             ORDER BY 1 DESC LIMIT ? OFFSET ?"
        ))?;
        return with_children(conn, stmt.query_and_then(rusqlite::params_from_iter(all), invoice_from)?);
    }
    if let Some(q) = f.query.as_deref() {
        // Too short for the trigram index, or with LIKE's own characters: a scan, escaped.
        let pattern =
            format!("%{}%", q.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        conditions.push("i.search_text LIKE ? ESCAPE '\\'".to_string());
        values.push(Value::Text(pattern));
    }
    values.push(Value::Integer(f.limit));
    values.push(Value::Integer(f.offset));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {columns} FROM invoices i WHERE {} ORDER BY {order} LIMIT ? OFFSET ?",
        conditions.join(" AND ")
    ))?;
    with_children(conn, stmt.query_and_then(rusqlite::params_from_iter(values), invoice_from)?)
}

/// The most open orders `open_orders` reads: a café's open tables are a few dozen.
pub const MAX_OPEN_ORDERS: i64 = 500;

/// The company's orders no summary has settled in full and no cancellation reversed, oldest
/// first, with their lines: all of them, or those of the till `tcr_code`. Read through the
/// index of the few open ones (`invoices_open_orders`, V16).
pub fn open_orders(conn: &Connection, company_id: i64, tcr_code: Option<&str>) -> Result<Vec<Invoice>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM invoices INDEXED BY invoices_open_orders
         WHERE company_id = :company AND document_kind = 'ORDER' AND settled_by_invoice_id IS NULL
           AND reversed_at IS NULL AND (:tcr IS NULL OR tcr_code = :tcr)
         ORDER BY id LIMIT :limit"
    ))?;
    let rows = stmt.query_and_then(
        named_params! {":company": company_id, ":tcr": tcr_code, ":limit": MAX_OPEN_ORDERS},
        invoice_from,
    )?;
    with_children(conn, rows)
}

/// The invoices of a page, each with its lines and payments.
fn with_children(conn: &Connection, rows: impl Iterator<Item = Result<Invoice>>) -> Result<Vec<Invoice>> {
    let mut invoices = rows.collect::<Result<Vec<_>>>()?;
    for invoice in &mut invoices {
        load_children(conn, invoice)?;
    }
    Ok(invoices)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::document::ApiVersion;
    use crate::domain::spelled::Spelled;
    use crate::store::Store;

    /// A company of its own for a test's invoices; returns its id.
    pub(crate) fn company(tx: &Connection, nuis: &str, name: &str) -> Result<i64> {
        tx.execute(
            "INSERT INTO companies (nuis, name, created_at) VALUES (?1, ?2, 'now')",
            rusqlite::params![nuis, name],
        )?;
        Ok(tx.last_insert_rowid())
    }

    /// An invoice of `company_id` numbered `n`, issued on `date`, with no lines or payments.
    pub(crate) fn invoice(company_id: i64, n: i64, kind: &str, date: &str, buyer: Option<&str>) -> Invoice {
        Invoice {
            id: 0,
            company_id,
            business_unit_id: None,
            user_id: None,
            internal_id: format!("r-{n}"),
            year: 2026,
            kind: InvoiceType::parse(kind).unwrap_or(InvoiceType::Cash),
            document_kind: DocumentKind::parse(kind).unwrap_or(DocumentKind::Cash),
            api_version: ApiVersion::V1,
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
            exchange_rate_origin: None,
            exchange_rate_date: None,
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
            wtn_id: None,
            wtn: None,
            original_invoice_id: None,
            reversed_at: None,
            remains: None,
            settled_by: None,
            settled_orders: Vec::new(),
            process: None,
        }
    }

    #[test]
    fn an_invoice_reads_its_signature_through_its_queue_entry_and_its_verify_url_whole() {
        use crate::domain::verify::{IicInput, TEST_VERIFY_BASE, verify_url};
        use crate::store::fiscal_queue::{self, Document, NewQueued};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<()> {
                let company = company(tx, "K00000001S", "Shop")?;
                let mut sale = invoice(company, 7, "CASH", "2026-03-01", None);
                sale.business_unit_code = Some("ab123cd456".into());
                sale.tcr_code = Some("aa111aa111".into());
                sale.totals.total = Decimal::new(28_500, 2);
                sale.iic_signature = "AB".repeat(256);
                let fields = IicInput {
                    nuis: "K00000001S",
                    issue_date_time: &sale.issue_date_time,
                    ord_num: 7,
                    business_unit_code: "ab123cd456",
                    tcr_code: Some("aa111aa111"),
                    soft_code: "ss123ss123",
                    tot_price: "285.00",
                };
                sale.verify_url = verify_url(TEST_VERIFY_BASE, &sale.iic, &fields);
                let request = format!(
                    "<RegisterInvoiceRequest><Invoice IICSignature=\"{}\"/></RegisterInvoiceRequest>",
                    sale.iic_signature
                );
                let id = insert_registered(tx, &sale, &request)?;
                fiscal_queue::enqueue(
                    tx,
                    &NewQueued {
                        company_id: company,
                        operation: "RegisterInvoiceRequest",
                        document: Document::Invoice,
                        document_id: Some(id),
                        document_number: Some(&sale.number),
                        tcr_code: sale.tcr_code.as_deref(),
                        header_uuid: &sale.header_uuid,
                        issued_at: &sale.issued_at,
                        unsigned_request: &request,
                        subseq_deliv_type: None,
                        next_attempt_at: "",
                        last_error: None,
                    },
                )?;
                let row: (String, String) = tx.query_row(
                    "SELECT iic_signature, verify_url FROM invoices WHERE id = ?1",
                    [id],
                    |r| Ok((r.get("iic_signature")?, r.get("verify_url")?)),
                )?;
                assert_eq!(row, (String::new(), "T K00000001S ss123ss123".to_string()));
                let read = by_id(tx, id)?.unwrap();
                assert_eq!(
                    (read.iic_signature, read.verify_url),
                    (sale.iic_signature.clone(), sale.verify_url.clone())
                );

                // A request that holds another signature: the row keeps its own.
                let mut other = invoice(company, 8, "CASH", "2026-03-01", None);
                other.iic_signature = "CD".repeat(256);
                other.verify_url = "https://example.com/verify?iic=1".into();
                let id = insert_registered(tx, &other, &request)?;
                let read = by_id(tx, id)?.unwrap();
                assert_eq!((read.iic_signature, read.verify_url), (other.iic_signature, other.verify_url));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_cashiers_list_holds_their_tills_documents_and_those_they_issued() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let (ids, me): (Vec<i64>, i64) = store
            .write_blocking(|tx| -> Result<_> {
                let c = company(tx, "L1", "Shop")?;
                let unit = crate::store::fixtures::unit(tx, c, "Qendër", Some("ab123cd456"));
                let me = crate::store::fixtures::user(tx, c, unit, "kasa@shop.al");
                let other = crate::store::fixtures::user(tx, c, unit, "ana@shop.al");
                let rows = [
                    (Some("tc001tc001"), other, "CASH"),
                    (Some("tc002tc002"), other, "CASH"),
                    (None, me, "NONCASH"),
                    (None, other, "NONCASH"),
                    (Some("tc002tc002"), me, "CASH"),
                ];
                let ids = rows
                    .iter()
                    .enumerate()
                    .map(|(n, (tcr, user, kind))| {
                        let mut i = invoice(c, n as i64 + 1, kind, "2026-03-01", None);
                        i.tcr_code = tcr.map(str::to_string);
                        i.user_id = Some(*user);
                        insert(tx, &i)
                    })
                    .collect::<Result<Vec<i64>>>()?;
                Ok((ids, me))
            })
            .unwrap();
        let page = |tcr_code: Option<&str>| -> Vec<i64> {
            let own = Own { tcr_code: tcr_code.map(str::to_string), user_id: me };
            let f = ListFilter { limit: 10, own: Some(own), ..ListFilter::default() };
            store.read_blocking(|c| list(c, 1, &f)).unwrap().iter().map(|i| i.id).collect()
        };
        assert_eq!(page(Some("tc001tc001")), [ids[4], ids[2], ids[0]], "their till's, and what they issued");
        assert_eq!(page(None), [ids[4], ids[2]], "without a till, what they issued");
        let everything = ListFilter { limit: 10, ..ListFilter::default() };
        assert_eq!(store.read_blocking(|c| list(c, 1, &everything)).unwrap().len(), 5);
    }

    /// The table's `row`th invoice: its own internal id, IIC and Header UUID.
    fn row_of_a_table(row: usize, i: Invoice) -> Invoice {
        Invoice {
            internal_id: format!("row-{row}"),
            iic: format!("{row:032}"),
            header_uuid: format!("uuid-{row}"),
            ..i
        }
    }

    #[test]
    fn a_number_end_too_short_to_look_up_finds_through_the_text_the_numbers_only_not_names() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        // Ordinals ending in 1 up to 20,001: 2,001, more than NUMBER_LOOKUPS.
        let rows = [(20_001, "Ana"), (5, "Blerim 1/2026"), (31, "Ana"), (41, "Ana")];
        let ids = store
            .write_blocking(|tx| -> Result<Vec<i64>> {
                let c = company(tx, "L1", "Shop")?;
                let mut ids = Vec::new();
                for (row, (n, buyer)) in rows.iter().enumerate() {
                    ids.push(insert(
                        tx,
                        &row_of_a_table(row, invoice(c, *n, "NONCASH", "2026-03-01", Some(buyer))),
                    )?);
                }
                Ok(ids)
            })
            .unwrap();
        assert_eq!(numbering::ordinals_ending_in("1", 20_001, NUMBER_LOOKUPS), None, "too many to look up");
        let f = ListFilter { query: Some("1/2026".into()), limit: 10, ..ListFilter::default() };
        let found: Vec<i64> = store.read_blocking(|c| list(c, 1, &f)).unwrap().iter().map(|i| i.id).collect();
        assert_eq!(found, [ids[3], ids[2], ids[0]], "the numbers ending in 1/2026, not Blerim's name");
    }

    #[test]
    fn a_number_query_finds_the_numbers_ending_in_it_in_every_sequence_by_their_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        // | n      | kind    | TCR        | date       |
        let rows = [
            (1234, "CASH", Some("tc001tc001"), "2026-03-01"),
            (1234, "CASH", Some("tc002tc002"), "2026-03-02"),
            (1234, "NONCASH", None, "2026-03-03"),
            (11234, "CASH", Some("tc001tc001"), "2026-03-04"),
            (234, "CASH", Some("tc002tc002"), "2026-03-05"),
            (10234, "NONCASH", None, "2026-03-06"),
            (12345, "CASH", Some("tc001tc001"), "2026-03-07"),
        ];
        let ids = store
            .write_blocking(|tx| -> Result<Vec<i64>> {
                let c = company(tx, "L1", "Shop")?;
                let mut ids = Vec::new();
                for (row, (n, kind, tcr, date)) in rows.iter().enumerate() {
                    let mut i =
                        row_of_a_table(row, invoice(c, *n, kind, date, Some("Hoxha 1234/2026 sh.p.k.")));
                    i.tcr_code = tcr.map(str::to_string);
                    ids.push(insert(tx, &i)?);
                }
                Ok(ids)
            })
            .unwrap();
        let page = |query: &str, f: ListFilter| -> Vec<i64> {
            let f = ListFilter { query: Some(query.into()), limit: 10, ..f };
            store.read_blocking(|c| list(c, 1, &f)).unwrap().iter().map(|i| i.id).collect()
        };
        let all = ListFilter::default();
        assert_eq!(page("1234/2026", all.clone()), [ids[3], ids[2], ids[1], ids[0]], "newest first");
        assert_eq!(page("0234/2026", all.clone()), [ids[5]]);
        assert_eq!(page("234/2026", all.clone()), [ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]]);
        assert_eq!(page("1234/2025", all.clone()), Vec::<i64>::new(), "another year");
        let march_2 = ListFilter {
            from_date: Some("2026-03-02".into()),
            to_date: Some("2026-03-03".into()),
            ..all.clone()
        };
        assert_eq!(page("1234/2026", march_2), [ids[2], ids[1]], "the dates still filter");
        let cash = ListFilter { kinds: vec![ListedType::Cash], ..all.clone() };
        assert_eq!(page("1234/2026", cash), [ids[3], ids[1], ids[0]], "the type still filters");
        let second = ListFilter { offset: 1, limit: 2, ..all.clone() };
        let f = ListFilter { query: Some("1234/2026".into()), ..second };
        let paged: Vec<i64> = store.read_blocking(|c| list(c, 1, &f)).unwrap().iter().map(|i| i.id).collect();
        assert_eq!(paged, [ids[2], ids[1]], "offset and limit");
        // A query not shaped like a number's end goes through the text: the buyer's name holds
        // "1234/2026" in every row.
        assert_eq!(page("1234/2026 sh", all.clone()).len(), 7);
        let plan: Vec<String> = store
            .read_blocking(|c| {
                let mut stmt = c.prepare(
                    "EXPLAIN QUERY PLAN SELECT id FROM invoices INDEXED BY invoices_number_unique
                     WHERE company_id = 1 AND year = 2026 AND kind = 'CASH' AND COALESCE(tcr_code, '') = ''
                       AND ord_num IN (SELECT value FROM json_each('[1234]'))",
                )?;
                let rows = stmt.query_map([], |r| r.get::<_, String>("detail"))?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .unwrap();
        assert!(
            plan.iter().any(|d| d.contains("invoices_number_unique") && d.contains("ord_num=?")),
            "{plan:?}"
        );
    }

    #[test]
    fn a_number_is_handed_out_once_per_sequence_even_without_a_tcr() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let company = store
            .write_blocking(|tx| -> Result<_> {
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
                    max_ord_num(c, company, 2026, InvoiceType::NonCash, None)?,
                    max_ord_num(c, company, 2026, InvoiceType::Cash, Some("bb222bb222"))?,
                ))
            })
            .unwrap();
        assert_eq!(max, (1, 1));
    }

    #[test]
    fn a_summary_settles_open_orders_once_and_a_reversal_dates_its_original() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let company = store
            .write_blocking(|tx| -> Result<_> {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Shop', 'now')",
                    [],
                )?;
                Ok(tx.last_insert_rowid())
            })
            .unwrap();
        let document = |n: i64, kind: DocumentKind, day: &str| {
            let mut i = invoice(company, n, "CASH", day, None);
            i.tcr_code = Some("aa111aa111".into());
            i.document_kind = kind;
            i
        };
        let (order, summary) = store
            .write_blocking(|tx| -> Result<_> {
                let order = insert(tx, &document(1, DocumentKind::Order, "2026-03-01"))?;
                let summary = insert(tx, &document(2, DocumentKind::Summary, "2026-03-01"))?;
                Ok((order, summary))
            })
            .unwrap();
        assert_eq!(store.write_blocking(|tx| settle_orders(tx, summary, &[order])).unwrap(), 1);
        assert_eq!(
            store.write_blocking(|tx| settle_orders(tx, summary, &[order])).unwrap(),
            0,
            "settled once"
        );
        let read = store.read_blocking(|c| get(c, company, summary)).unwrap().unwrap();
        assert_eq!(read.settled_orders.iter().map(|o| o.id).collect::<Vec<_>>(), [order]);
        store.write_blocking(|tx| reopen_orders(tx, summary)).unwrap();
        assert_eq!(store.read_blocking(|c| get(c, company, order)).unwrap().unwrap().settled_by, None);

        let sale =
            store.write_blocking(|tx| insert(tx, &document(3, DocumentKind::Cash, "2026-03-01"))).unwrap();
        let mut corrective = document(4, DocumentKind::Corrective, "2026-03-05");
        corrective.original_invoice_id = Some(sale);
        corrective.lines = vec![Line {
            product_name: "Kafe".into(),
            product_code: "K1".into(),
            unit: "copë".into(),
            unit_code: None,
            quantity: Decimal::NEGATIVE_ONE,
            price: Decimal::ONE_HUNDRED,
            total: -Decimal::ONE_HUNDRED,
            discount_rate: Decimal::ZERO,
            discount: Decimal::ZERO,
            vat_rate: Decimal::from(20),
            exemption: None,
            unit_price_net: Decimal::from(83),
            rebate: None,
            net: Decimal::from(-83),
            vat: Decimal::from(-17),
            gross: -Decimal::ONE_HUNDRED,
            original_position: Some(0),
        }];
        let corrective_id = store
            .write_blocking(|tx| -> Result<_> {
                let id = insert(tx, &corrective)?;
                refresh_reversal(tx, sale)?;
                Ok(id)
            })
            .unwrap();
        let (reversed_at, count, reversed, last) = store
            .read_blocking(|c| {
                Ok((
                    get(c, company, sale)?.unwrap().reversed_at,
                    corrective_count(c, sale)?,
                    reversed_so_far(c, sale)?,
                    (last_reversal(c, sale)?, last_reversal(c, corrective_id)?),
                ))
            })
            .unwrap();
        let (last, none) = last;
        let last = last.unwrap();
        assert_eq!(
            (last.internal_id, last.number),
            (corrective.internal_id.clone(), corrective.number.clone())
        );
        assert!(none.is_none(), "a corrective document has none of its own");
        assert_eq!(reversed_at.as_deref(), Some("2026-03-05T10:00:00+00:00"));
        assert_eq!(count, 1);
        assert_eq!(reversed[0].0, 0);
        assert_eq!(reversed[0].1.quantity, Decimal::ONE);
        assert_eq!(reversed[0].1.gross, Decimal::ONE_HUNDRED);
        store
            .write_blocking(|tx| {
                delete(tx, corrective_id)?;
                refresh_reversal(tx, sale)
            })
            .unwrap();
        assert_eq!(store.read_blocking(|c| get(c, company, sale)).unwrap().unwrap().reversed_at, None);
    }

    #[test]
    fn each_filter_finds_its_invoices_newest_first_by_index_or_by_scan() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let ids: Vec<i64> = store
            .write_blocking(|tx| {
                let c = company(tx, "L1", "Shop")?;
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
        // The search index covers the first two; the list reads the other two from the table.
        assert_eq!(store.write_blocking(|tx| index_pending(tx, 2)).unwrap(), 2);
        assert!(store.read_blocking(search_pending).unwrap());
        assert_eq!(page(ListFilter::default()), [ids[3], ids[2], ids[1], ids[0]]);
        assert_eq!(page(q("FURRA")), [ids[3], ids[0]], "trigram index, any case");
        assert_eq!(page(q("ra")), [ids[3], ids[0]], "short terms are scanned");
        assert_eq!(page(q("50%")), [ids[1]], "LIKE's own characters match themselves");
        assert_eq!(page(q("5_%")), Vec::<i64>::new());
        assert_eq!(page(ListFilter { kinds: vec![ListedType::Cash], ..q("furra") }), [ids[3], ids[0]]);
        let march_2 = ListFilter {
            from_date: Some("2026-03-02".into()),
            to_date: Some("2026-03-08".into()),
            ..ListFilter::default()
        };
        assert_eq!(page(march_2.clone()), [ids[2], ids[1]]);
        assert_eq!(page(ListFilter { kinds: vec![ListedType::NonCash], ..march_2.clone() }), [ids[1]]);
        store.write_blocking(|tx| crate::store::einvoices::insert(tx, 1, ids[1], "P1")).unwrap();
        assert_eq!(
            page(ListFilter { kinds: vec![ListedType::NonCash], ..march_2.clone() }),
            Vec::<i64>::new()
        );
        assert_eq!(page(ListFilter { kinds: vec![ListedType::EInvoice], ..march_2.clone() }), [ids[1]]);
        let both = ListFilter { kinds: vec![ListedType::EInvoice, ListedType::Cash], ..march_2 };
        assert_eq!(page(both), [ids[2], ids[1]]);
        assert_eq!(
            page(ListFilter { offset: 1, ..q("furra") }),
            [ids[0]],
            "the offset runs on into the index"
        );
        store.write_blocking(|tx| delete(tx, ids[3])).unwrap();
        assert_eq!(page(q("furra")), [ids[0]], "a deleted invoice is not found, indexed or not");
        assert_eq!(store.write_blocking(|tx| index_pending(tx, 10)).unwrap(), 1, "the one left, ids[2]");
        assert!(!store.read_blocking(search_pending).unwrap());
        store.write_blocking(|tx| delete(tx, ids[0])).unwrap();
        assert_eq!(page(q("furra")), Vec::<i64>::new());
        // The newest id, deleted once indexed, is used again: below the mark, indexed at once.
        store.write_blocking(|tx| delete(tx, ids[2])).unwrap();
        let again = store
            .write_blocking(|tx| insert(tx, &invoice(1, 9, "CASH", "2026-03-10", Some("Furra Jonë"))))
            .unwrap();
        assert_eq!(again, ids[2]);
        assert!(!store.read_blocking(search_pending).unwrap());
        assert_eq!(page(q("furra")), [again]);
        // Another company's bakery, one indexed and one not yet: neither arm shows it.
        let other: Vec<i64> = store
            .write_blocking(|tx| -> Result<_> {
                let c = company(tx, "L2", "Other")?;
                let first = insert(tx, &invoice(c, 101, "CASH", "2026-03-03", Some("Furra e Tjetrit")))?;
                index_pending(tx, 10)?;
                let second = insert(tx, &invoice(c, 102, "CASH", "2026-03-04", Some("Furra e Tjetrit")))?;
                Ok(vec![first, second])
            })
            .unwrap();
        let theirs = |company: i64| -> Vec<i64> {
            let f = ListFilter { limit: 10, ..q("furra") };
            store.read_blocking(|c| list(c, company, &f)).unwrap().iter().map(|i| i.id).collect()
        };
        assert_eq!(theirs(2), [other[1], other[0]]);
        assert_eq!(page(q("furra")), [again], "the index and the table each show a company its own");
        store
            .write_blocking(|tx| -> Result<_> {
                Ok(tx.execute(
                    "INSERT INTO invoices_search (invoices_search) VALUES ('integrity-check')",
                    [],
                )?)
            })
            .unwrap();
    }

    /// The upgrade that keeps lines and payments by their document (V20) keeps every one of
    /// them, in its place, and a document's deletion still takes its lines and payments along.
    #[test]
    fn the_upgrade_keeps_every_line_and_payment_of_each_document_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        crate::store::create_at_version(&path, 19).unwrap();
        let line = |name: &str, gross: i64, original_position: Option<i64>| Line {
            product_name: name.to_string(),
            product_code: name.to_uppercase(),
            unit: "copë".to_string(),
            unit_code: None,
            quantity: Decimal::ONE,
            price: Decimal::from(gross),
            total: Decimal::from(gross),
            discount_rate: Decimal::ZERO,
            discount: Decimal::ZERO,
            vat_rate: Decimal::from(20),
            exemption: None,
            unit_price_net: Decimal::from(gross),
            rebate: None,
            net: Decimal::from(gross),
            vat: Decimal::ZERO,
            gross: Decimal::from(gross),
            original_position,
        };
        let payment = |kind: &str, amount: i64| Payment {
            kind: Spelled::parse(kind).unwrap(),
            amount: Decimal::from(amount),
            company_card: None,
            vouchers: vec![format!("v-{kind}")],
        };
        let conn = Connection::open(&path).unwrap();
        let shop = company(&conn, "L1", "Shop").unwrap();
        let mut first = invoice(shop, 1, "CASH", "2026-03-01", None);
        first.lines = vec![line("kafe", 120, None), line("uje", 50, None), line("buke", 80, Some(4))];
        first.payments = vec![payment("BANKNOTE", 200), payment("CARD", 50)];
        let mut second = invoice(shop, 2, "CASH", "2026-03-01", None);
        second.lines = vec![line("caj", 90, None)];
        second.payments = vec![payment("BANKNOTE", 90)];
        let ids = [insert(&conn, &first).unwrap(), insert(&conn, &second).unwrap()];
        drop(conn);

        let store = Store::open(&path).unwrap();
        let read = |id: i64| store.read_blocking(move |c| by_id(c, id)).unwrap().unwrap();
        for (id, before) in ids.iter().zip([&first, &second]) {
            let after = read(*id);
            let lines = |i: &Invoice| {
                i.lines
                    .iter()
                    .map(|l| (l.product_name.clone(), l.gross.to_string(), l.original_position))
                    .collect::<Vec<_>>()
            };
            let payments = |i: &Invoice| {
                i.payments
                    .iter()
                    .map(|p| (p.kind, p.amount.to_string(), p.vouchers.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(lines(&after), lines(before));
            assert_eq!(payments(&after), payments(before));
        }
        store.write_blocking(move |tx| delete(tx, ids[0])).unwrap();
        let left = store
            .read_blocking(|c| {
                Ok(c.query_row(
                    "SELECT (SELECT COUNT(*) FROM invoice_lines) AS lines,
                         (SELECT COUNT(*) FROM invoice_payments) AS payments",
                    [],
                    |r| Ok((r.get::<_, i64>("lines")?, r.get::<_, i64>("payments")?)),
                )?)
            })
            .unwrap();
        assert_eq!(left, (1, 1), "the deleted document's lines and payments went with it");
        assert_eq!(read(ids[1]).lines.len(), 1);
    }
}
