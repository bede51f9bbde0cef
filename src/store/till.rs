//! The till's storage: each till's printer, the receipts printed once (later prints are copies)
//! and the shop's till settings.

use rusqlite::{Connection, OptionalExtension, named_params};

use super::money::Money;
use super::{Result, now_text};
use crate::domain::till::{ScaleLayout, ScaleValue, TillSettings};

/// A till's printer as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printer {
    pub tcr_code: String,
    /// `network` or `device`.
    pub connection: String,
    pub address: String,
    pub columns: i64,
}

fn printer_from(r: &rusqlite::Row) -> rusqlite::Result<Printer> {
    Ok(Printer {
        tcr_code: r.get("tcr_code")?,
        connection: r.get("connection")?,
        address: r.get("address")?,
        columns: r.get("columns")?,
    })
}

pub fn printer(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<Option<Printer>> {
    Ok(conn
        .query_row(
            "SELECT tcr_code, connection, address, columns FROM till_printers
             WHERE company_id = :company AND tcr_code = :tcr",
            named_params! {":company": company_id, ":tcr": tcr_code},
            printer_from,
        )
        .optional()?)
}

pub fn printers(conn: &Connection, company_id: i64) -> Result<Vec<Printer>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tcr_code, connection, address, columns FROM till_printers
         WHERE company_id = :company ORDER BY tcr_code",
    )?;
    let rows = stmt.query_map(named_params! {":company": company_id}, printer_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn save_printer(conn: &Connection, company_id: i64, p: &Printer) -> Result<()> {
    conn.execute(
        "INSERT INTO till_printers (company_id, tcr_code, connection, address, columns, updated_at)
         VALUES (:company, :tcr, :connection, :address, :columns, :now)
         ON CONFLICT (company_id, tcr_code) DO UPDATE SET connection = excluded.connection,
             address = excluded.address, columns = excluded.columns, updated_at = excluded.updated_at",
        named_params! {
            ":company": company_id, ":tcr": p.tcr_code, ":connection": p.connection,
            ":address": p.address, ":columns": p.columns, ":now": now_text(),
        },
    )?;
    Ok(())
}

pub fn remove_printer(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<()> {
    conn.execute(
        "DELETE FROM till_printers WHERE company_id = :company AND tcr_code = :tcr",
        named_params! {":company": company_id, ":tcr": tcr_code},
    )?;
    Ok(())
}

/// Whether the receipt of `invoice_id` reached a printer before.
pub fn printed_before(conn: &Connection, invoice_id: i64) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM receipt_prints WHERE invoice_id = :id",
            named_params! {":id": invoice_id},
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Notes a print of `invoice_id`: the first, or one more copy. Returns whether it was a copy.
pub fn note_print(conn: &Connection, invoice_id: i64) -> Result<bool> {
    let copy = printed_before(conn, invoice_id)?;
    conn.execute(
        "INSERT INTO receipt_prints (invoice_id, printed_at, copies) VALUES (:id, :now, 0)
         ON CONFLICT (invoice_id) DO UPDATE SET copies = copies + 1",
        named_params! {":id": invoice_id, ":now": now_text()},
    )?;
    Ok(copy)
}

pub fn settings(conn: &Connection, company_id: i64) -> Result<TillSettings> {
    let found = conn
        .query_row(
            "SELECT scale_prefixes, scale_item_digits, scale_value, cashier_max_discount
             FROM till_settings WHERE company_id = :company",
            named_params! {":company": company_id},
            |r| {
                let prefixes: String = r.get("scale_prefixes")?;
                let value: String = r.get("scale_value")?;
                let max: Money = r.get("cashier_max_discount")?;
                Ok(TillSettings {
                    scale: ScaleLayout {
                        prefixes: prefixes.split(',').filter_map(|p| p.trim().parse().ok()).collect(),
                        item_digits: r.get("scale_item_digits")?,
                        value: ScaleValue::parse(&value).unwrap_or(ScaleValue::Weight),
                    },
                    cashier_max_discount: max.0,
                })
            },
        )
        .optional()?;
    Ok(found.unwrap_or_default())
}

pub fn save_settings(conn: &Connection, company_id: i64, s: &TillSettings) -> Result<()> {
    let prefixes = s.scale.prefixes.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
    conn.execute(
        "INSERT INTO till_settings (company_id, scale_prefixes, scale_item_digits, scale_value,
             cashier_max_discount, updated_at)
         VALUES (:company, :prefixes, :digits, :value, :max, :now)
         ON CONFLICT (company_id) DO UPDATE SET scale_prefixes = excluded.scale_prefixes,
             scale_item_digits = excluded.scale_item_digits, scale_value = excluded.scale_value,
             cashier_max_discount = excluded.cashier_max_discount, updated_at = excluded.updated_at",
        named_params! {
            ":company": company_id, ":prefixes": prefixes, ":digits": s.scale.item_digits,
            ":value": s.scale.value.as_str(), ":max": Money(s.cashier_max_discount), ":now": now_text(),
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::fixtures::company;
    use rust_decimal::Decimal;

    #[test]
    fn printers_and_settings_are_kept_per_company() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<_> {
                let (mine, theirs) = (company(tx, "L41323036D"), company(tx, "M01234567A"));
                let p = Printer {
                    tcr_code: "ab123ab123".into(),
                    connection: "network".into(),
                    address: "192.168.1.50:9100".into(),
                    columns: 48,
                };
                save_printer(tx, mine, &p)?;
                assert_eq!(printer(tx, mine, "ab123ab123")?, Some(p.clone()));
                assert_eq!(printer(tx, theirs, "ab123ab123")?, None);
                save_printer(tx, mine, &Printer { columns: 42, ..p.clone() })?;
                assert_eq!(printers(tx, mine)?.len(), 1);
                remove_printer(tx, mine, "ab123ab123")?;
                assert!(printers(tx, mine)?.is_empty());

                assert_eq!(settings(tx, mine)?, TillSettings::default());
                let s = TillSettings {
                    scale: ScaleLayout { prefixes: vec![21, 28], item_digits: 4, value: ScaleValue::Price },
                    cashier_max_discount: Decimal::new(15, 0),
                };
                save_settings(tx, mine, &s)?;
                assert_eq!(settings(tx, mine)?, s);
                assert_eq!(settings(tx, theirs)?, TillSettings::default());
                Ok(())
            })
            .unwrap();
    }
}
