//! Purchase invoices: the e-invoices addressed to the company as the platform last listed
//! them, which windows of days were read and when, and the names of their sellers.

use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::Result;
use super::money::Money;

/// One e-invoice addressed to the company.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurchaseInvoice {
    pub eic: String,
    pub doc_number: String,
    pub doc_type: String,
    pub seller_nuis: Option<String>,
    /// From the taxpayer register, when it was found there.
    pub seller_name: Option<String>,
    /// UTC, RFC 3339.
    pub received_at: String,
    /// Tirane date, `YYYY-MM-DD`.
    pub received_date: String,
    pub due_date: Option<String>,
    pub amount: Decimal,
    pub currency: String,
    pub status: String,
    /// When the platform last listed it (UTC, RFC 3339).
    pub fetched_at: String,
}

const COLUMNS: &str = "p.eic, p.doc_number, p.doc_type, p.seller_nuis, t.name AS seller_name, p.received_at,
    p.received_date, p.due_date, p.amount, p.currency, p.status, p.fetched_at";
const FROM: &str = "purchase_invoices p LEFT JOIN taxpayer_names t ON t.nuis = p.seller_nuis";

fn purchase_from(r: &Row) -> rusqlite::Result<PurchaseInvoice> {
    Ok(PurchaseInvoice {
        eic: r.get("eic")?,
        doc_number: r.get("doc_number")?,
        doc_type: r.get("doc_type")?,
        seller_nuis: r.get("seller_nuis")?,
        seller_name: r.get("seller_name")?,
        received_at: r.get("received_at")?,
        received_date: r.get("received_date")?,
        due_date: r.get("due_date")?,
        amount: r.get::<_, Money>("amount")?.0,
        currency: r.get("currency")?,
        status: r.get("status")?,
        fetched_at: r.get("fetched_at")?,
    })
}

/// Keeps what the platform listed (its latest word replaces the earlier one).
pub fn upsert(conn: &Connection, company_id: i64, p: &PurchaseInvoice) -> Result<()> {
    conn.execute(
        "INSERT INTO purchase_invoices (company_id, eic, doc_number, doc_type, seller_nuis, received_at,
             received_date, due_date, amount, currency, status, fetched_at)
         VALUES (:company, :eic, :number, :type, :seller, :received_at, :received_date, :due, :amount, :currency,
             :status, :fetched)
         ON CONFLICT (company_id, eic) DO UPDATE SET doc_number = excluded.doc_number, doc_type = excluded.doc_type,
             seller_nuis = excluded.seller_nuis, received_at = excluded.received_at,
             received_date = excluded.received_date, due_date = excluded.due_date, amount = excluded.amount,
             currency = excluded.currency, status = excluded.status, fetched_at = excluded.fetched_at",
        named_params! {
            ":company": company_id, ":eic": p.eic, ":number": p.doc_number, ":type": p.doc_type,
            ":seller": p.seller_nuis, ":received_at": p.received_at, ":received_date": p.received_date,
            ":due": p.due_date, ":amount": Money(p.amount), ":currency": p.currency, ":status": p.status,
            ":fetched": p.fetched_at,
        },
    )?;
    Ok(())
}

/// The platform was asked for the days `from`..=`to` at `fetched_at`.
pub fn record_read(conn: &Connection, company_id: i64, from: &str, to: &str, fetched_at: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO purchase_invoice_reads (company_id, from_date, to_date, fetched_at)
         VALUES (:company, :from, :to, :fetched)
         ON CONFLICT (company_id, from_date, to_date) DO UPDATE SET fetched_at = excluded.fetched_at",
        named_params! {":company": company_id, ":from": from, ":to": to, ":fetched": fetched_at},
    )?;
    Ok(())
}

/// When the platform was last asked for exactly these days, if ever.
pub fn last_read(conn: &Connection, company_id: i64, from: &str, to: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT fetched_at FROM purchase_invoice_reads
             WHERE company_id = :company AND from_date = :from AND to_date = :to",
            named_params! {":company": company_id, ":from": from, ":to": to},
            |r| r.get("fetched_at"),
        )
        .optional()?)
}

/// A page of the company's purchase invoices received `from`..=`to` (Tirane dates), newest
/// first.
pub fn page(
    conn: &Connection,
    company_id: i64,
    from: &str,
    to: &str,
    limit: i64,
    offset: i64,
) -> Result<Vec<PurchaseInvoice>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM {FROM}
         WHERE p.company_id = :company AND p.received_date >= :from AND p.received_date <= :to
         ORDER BY p.received_at DESC, p.eic LIMIT :limit OFFSET :offset"
    ))?;
    let rows = stmt.query_map(
        named_params! {":company": company_id, ":from": from, ":to": to, ":limit": limit, ":offset": offset},
        purchase_from,
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn get(conn: &Connection, company_id: i64, eic: &str) -> Result<Option<PurchaseInvoice>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM {FROM} WHERE p.company_id = :company AND p.eic = :eic"),
            named_params! {":company": company_id, ":eic": eic},
            purchase_from,
        )
        .optional()?)
}

/// The platform took the company's new status for the e-invoice.
pub fn set_status(conn: &Connection, company_id: i64, eic: &str, status: &str) -> Result<()> {
    conn.execute(
        "UPDATE purchase_invoices SET status = :status WHERE company_id = :company AND eic = :eic",
        named_params! {":company": company_id, ":eic": eic, ":status": status},
    )?;
    Ok(())
}

/// The NUIS of sellers whose name is not known yet, among `nuis`.
pub fn unnamed(conn: &Connection, nuis: &[String]) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached("SELECT 1 FROM taxpayer_names WHERE nuis = :nuis")?;
    let mut missing = Vec::new();
    for n in nuis {
        if !stmt.exists(named_params! {":nuis": n})? && !missing.contains(n) {
            missing.push(n.clone());
        }
    }
    Ok(missing)
}

pub fn set_taxpayer_name(conn: &Connection, nuis: &str, name: &str, fetched_at: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO taxpayer_names (nuis, name, fetched_at) VALUES (:nuis, :name, :fetched)
         ON CONFLICT (nuis) DO UPDATE SET name = excluded.name, fetched_at = excluded.fetched_at",
        named_params! {":nuis": nuis, ":name": name, ":fetched": fetched_at},
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn received(eic: &str, at: &str, date: &str) -> PurchaseInvoice {
        PurchaseInvoice {
            eic: eic.to_string(),
            doc_number: format!("{eic}/2026"),
            doc_type: "380".to_string(),
            seller_nuis: Some("K81234001A".to_string()),
            seller_name: None,
            received_at: at.to_string(),
            received_date: date.to_string(),
            due_date: Some("2026-04-01".to_string()),
            amount: Decimal::new(1245050, 2),
            currency: "ALL".to_string(),
            status: "DELIVERED".to_string(),
            fetched_at: "2026-03-02T10:00:00Z".to_string(),
        }
    }

    #[test]
    fn pages_are_newest_first_per_company_and_window_and_keep_the_latest_status() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Shop', 'now')",
                    [],
                )?;
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L2', 'Other', 'now')",
                    [],
                )?;
                upsert(tx, 1, &received("a", "2026-03-01T09:00:00Z", "2026-03-01"))?;
                upsert(tx, 1, &received("b", "2026-03-02T09:00:00Z", "2026-03-02"))?;
                upsert(tx, 1, &received("c", "2026-03-02T11:00:00Z", "2026-03-02"))?;
                upsert(tx, 2, &received("d", "2026-03-02T12:00:00Z", "2026-03-02"))?;
                record_read(tx, 1, "2026-03-01", "2026-03-02", "2026-03-02T12:00:00Z")?;
                set_taxpayer_name(tx, "K81234001A", "Ushqimore Dardania", "2026-03-02T12:00:00Z")
            })
            .unwrap();
        let eics = |from: &str, to: &str, limit: i64, offset: i64| -> Vec<String> {
            store
                .read_blocking(|c| page(c, 1, from, to, limit, offset))
                .unwrap()
                .into_iter()
                .map(|p| p.eic)
                .collect()
        };
        assert_eq!(eics("2026-03-01", "2026-03-02", 10, 0), ["c", "b", "a"]);
        assert_eq!(eics("2026-03-01", "2026-03-02", 2, 2), ["a"]);
        assert_eq!(eics("2026-03-02", "2026-03-02", 10, 0), ["c", "b"]);
        assert_eq!(eics("2026-03-03", "2026-03-09", 10, 0), Vec::<String>::new());
        let c = store.read_blocking(|c| get(c, 1, "c")).unwrap().unwrap();
        assert_eq!(
            (c.seller_name.as_deref(), c.amount),
            (Some("Ushqimore Dardania"), Decimal::new(1245050, 2))
        );
        assert_eq!(store.read_blocking(|c| get(c, 2, "c")).unwrap(), None, "another company's is not found");
        store.write_blocking(|tx| set_status(tx, 1, "c", "ACCEPTED")).unwrap();
        let relisted =
            PurchaseInvoice { status: "PAID".into(), ..received("c", "2026-03-02T11:00:00Z", "2026-03-02") };
        assert_eq!(store.read_blocking(|c| get(c, 1, "c")).unwrap().unwrap().status, "ACCEPTED");
        store.write_blocking(|tx| upsert(tx, 1, &relisted)).unwrap();
        assert_eq!(store.read_blocking(|c| get(c, 1, "c")).unwrap().unwrap().status, "PAID");
        let read = |from: &str| store.read_blocking(|c| last_read(c, 1, from, "2026-03-02")).unwrap();
        assert_eq!(read("2026-03-01").as_deref(), Some("2026-03-02T12:00:00Z"));
        assert_eq!(read("2026-02-01"), None);
        let names = ["K81234001A".to_string(), "K51234006F".to_string(), "K51234006F".to_string()];
        assert_eq!(store.read_blocking(|c| unnamed(c, &names)).unwrap(), ["K51234006F"]);
    }
}
