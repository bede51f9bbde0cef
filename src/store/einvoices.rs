//! The e-invoice part of a non-cash invoice: its UBL profile, its signed UBL document, and
//! its EIC (kept on the invoice, `invoices.eic`) once the platform registered it.

use rusqlite::{Connection, OptionalExtension, named_params};

use super::{Result, now_text};

/// What an invoice's e-invoice row holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Einvoice {
    pub invoice_id: i64,
    /// `P1`..`P12`.
    pub process: String,
    /// The signed UBL document, once the invoice is fiscalized.
    pub ubl: Option<String>,
    pub registered_at: Option<String>,
}

/// Marks a new invoice (in the transaction that writes it) as an e-invoice of `process`.
pub fn insert(conn: &Connection, company_id: i64, invoice_id: i64, process: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO einvoices (invoice_id, company_id, process) VALUES (:invoice, :company, :process)",
        named_params! {":invoice": invoice_id, ":company": company_id, ":process": process},
    )?;
    Ok(())
}

/// The signed UBL document that goes to the platform.
pub fn set_ubl(conn: &Connection, invoice_id: i64, ubl: &str) -> Result<()> {
    conn.execute(
        "UPDATE einvoices SET ubl = :ubl WHERE invoice_id = :invoice",
        named_params! {":invoice": invoice_id, ":ubl": ubl},
    )?;
    Ok(())
}

/// The platform registered the e-invoice: its EIC goes on the invoice.
pub fn set_eic(conn: &Connection, invoice_id: i64, eic: &str) -> Result<()> {
    conn.execute(
        "UPDATE invoices SET eic = :eic WHERE id = :id",
        named_params! {":id": invoice_id, ":eic": eic},
    )?;
    conn.execute(
        "UPDATE einvoices SET registered_at = :now WHERE invoice_id = :invoice",
        named_params! {":invoice": invoice_id, ":now": now_text()},
    )?;
    Ok(())
}

pub fn get(conn: &Connection, invoice_id: i64) -> Result<Option<Einvoice>> {
    Ok(conn
        .query_row(
            "SELECT invoice_id, process, ubl, registered_at FROM einvoices WHERE invoice_id = :invoice",
            named_params! {":invoice": invoice_id},
            |r| {
                Ok(Einvoice {
                    invoice_id: r.get("invoice_id")?,
                    process: r.get("process")?,
                    ubl: r.get("ubl")?,
                    registered_at: r.get("registered_at")?,
                })
            },
        )
        .optional()?)
}

/// The number and issue date (Tirane, `YYYY-MM-DD`) of the company's invoice with this IIC:
/// the invoice a credit or debit note corrects.
pub fn number_by_iic(conn: &Connection, company_id: i64, iic: &str) -> Result<Option<(String, String)>> {
    Ok(conn
        .query_row(
            "SELECT number, issue_date FROM invoices WHERE company_id = :company AND iic = :iic",
            named_params! {":company": company_id, ":iic": iic},
            |r| Ok((r.get("number")?, r.get("issue_date")?)),
        )
        .optional()?)
}

/// Whether the company issued an e-invoice with this EIC (for its PDF).
pub fn company_has_eic(conn: &Connection, company_id: i64, eic: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM invoices WHERE company_id = :company AND eic = :eic",
            named_params! {":company": company_id, ":eic": eic},
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::invoices::tests::invoice;

    #[test]
    fn an_einvoice_gets_its_document_then_its_eic_and_goes_with_its_invoice() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let id = store
            .write_blocking(|tx| -> Result<_> {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Shop', 'now')",
                    [],
                )?;
                let company = tx.last_insert_rowid();
                let id =
                    crate::store::invoices::insert(tx, &invoice(company, 1, "NONCASH", "2026-03-01", None))?;
                insert(tx, company, id, "P1")?;
                set_ubl(tx, id, "<Invoice/>")?;
                Ok(id)
            })
            .unwrap();
        let read = store.read_blocking(|c| get(c, id)).unwrap().unwrap();
        assert_eq!(
            (read.process.as_str(), read.ubl.as_deref(), read.registered_at),
            ("P1", Some("<Invoice/>"), None)
        );
        let eic = "2f1c0a34-7b1e-4a3d-9c5e-0d8f6a2b1c3e";
        store.write_blocking(|tx| set_eic(tx, id, eic)).unwrap();
        assert!(store.read_blocking(|c| get(c, id)).unwrap().unwrap().registered_at.is_some());
        assert!(store.read_blocking(|c| company_has_eic(c, 1, eic)).unwrap());
        assert!(!store.read_blocking(|c| company_has_eic(c, 2, eic)).unwrap());
        store.write_blocking(|tx| crate::store::invoices::delete(tx, id)).unwrap();
        assert_eq!(store.read_blocking(|c| get(c, id)).unwrap(), None);
    }
}
