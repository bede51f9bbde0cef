//! Numbering across databases (V21): the last number each sequence reached in a database, as
//! `arka restore` compares a backup with the database it replaces, and the floors a restore
//! over newer documents leaves, so that the numbering goes on after numbers the CIS registered
//! from the replaced database. The reads work on a database of any Arka schema.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, named_params};

use super::{Error, Result, configure, embedded, now_text};
use crate::domain::numbering::{LastNumber, SequenceName};

/// A sequence's floor: its next number comes after `ord_num`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Floor {
    pub company_id: i64,
    /// `services::sequence::Sequence::key`.
    pub sequence: String,
    pub year: i32,
    pub ord_num: i64,
    /// The file the number was read from (the replaced database, as kept aside).
    pub replaced: String,
}

/// The floor of `sequence` in `year` (0 when none).
pub fn floor(conn: &Connection, company_id: i64, sequence: &str, year: i32) -> Result<i64> {
    Ok(conn
        .prepare_cached(
            "SELECT ord_num FROM numbering_floors
             WHERE company_id = :company AND sequence = :sequence AND year = :year",
        )?
        .query_row(named_params! {":company": company_id, ":sequence": sequence, ":year": year}, |r| {
            r.get("ord_num")
        })
        .optional()?
        .unwrap_or(0))
}

/// Records a floor; one already higher stays.
pub fn record(conn: &Connection, f: &Floor) -> Result<()> {
    conn.execute(
        "INSERT INTO numbering_floors (company_id, sequence, year, ord_num, replaced, recorded_at)
         VALUES (:company, :sequence, :year, :ord, :replaced, :now)
         ON CONFLICT (company_id, sequence, year) DO UPDATE SET ord_num = excluded.ord_num,
             replaced = excluded.replaced, recorded_at = excluded.recorded_at
         WHERE excluded.ord_num > numbering_floors.ord_num",
        named_params! {
            ":company": f.company_id, ":sequence": f.sequence, ":year": f.year, ":ord": f.ord_num,
            ":replaced": f.replaced, ":now": now_text(),
        },
    )?;
    Ok(())
}

/// Brings the database file at `path` (a restore's copy, before it is put in place) to this
/// binary's schema and records `floors` in it, in one transaction.
pub fn record_in_file(path: &Path, floors: &[Floor]) -> Result<()> {
    let mut conn = Connection::open(path)?;
    configure(&conn)?;
    embedded::migrations::runner().run(&mut conn).map_err(Error::Migration)?;
    let tx = conn.transaction()?;
    for f in floors {
        record(&tx, f)?;
    }
    tx.commit()?;
    conn.close().map_err(|(_, e)| Error::Sqlite(e))
}

fn has_table(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = :name) AS found",
        named_params! {":name": name},
        |r| r.get("found"),
    )?)
}

/// Whether the company `company_id` is in the database.
pub fn has_company(conn: &Connection, company_id: i64) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM companies WHERE id = :company) AS found",
        named_params! {":company": company_id},
        |r| r.get("found"),
    )?)
}

/// The last ordinal of every sequence and year: of its documents (invoices by TCR or non-cash,
/// notes by unit) and of its floor, whichever is higher.
pub fn last_numbers(conn: &Connection) -> Result<Vec<LastNumber>> {
    let mut last = Vec::new();
    if has_table(conn, "invoices")? {
        let mut stmt = conn.prepare(
            "SELECT i.company_id, c.nuis, i.kind, i.tcr_code, i.year, MAX(i.ord_num) AS last
             FROM invoices i JOIN companies c ON c.id = i.company_id
             GROUP BY i.company_id, i.kind, i.tcr_code, i.year",
        )?;
        let rows = stmt.query_map([], |r| {
            let sequence =
                match (r.get::<_, String>("kind")?.as_str(), r.get::<_, Option<String>>("tcr_code")?) {
                    ("NONCASH", _) => Some(SequenceName::NonCash),
                    ("CASH", Some(tcr)) => Some(SequenceName::Till(tcr)),
                    _ => None,
                };
            Ok((sequence, r.get("company_id")?, r.get("nuis")?, r.get("year")?, r.get("last")?))
        })?;
        for row in rows {
            if let (Some(sequence), company_id, nuis, year, ord_num) = row? {
                last.push(LastNumber { company_id, nuis, sequence, year, ord_num });
            }
        }
    }
    if has_table(conn, "wtns")? {
        let mut stmt = conn.prepare(
            "SELECT w.company_id, c.nuis, w.business_unit_id, MAX(w.business_unit_code) AS code, w.year,
                 MAX(w.ord_num) AS last
             FROM wtns w JOIN companies c ON c.id = w.company_id
             GROUP BY w.company_id, w.business_unit_id, w.year",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(LastNumber {
                company_id: r.get("company_id")?,
                nuis: r.get("nuis")?,
                sequence: SequenceName::WtnUnit { id: r.get("business_unit_id")?, code: r.get("code")? },
                year: r.get("year")?,
                ord_num: r.get("last")?,
            })
        })?;
        for row in rows {
            last.push(row?);
        }
    }
    if has_table(conn, "numbering_floors")? {
        let mut stmt = conn.prepare(
            "SELECT f.company_id, c.nuis, f.sequence, f.year, f.ord_num
             FROM numbering_floors f JOIN companies c ON c.id = f.company_id",
        )?;
        let rows = stmt.query_map([], |r| {
            let key: String = r.get("sequence")?;
            Ok((
                SequenceName::from_key(&key),
                r.get("company_id")?,
                r.get("nuis")?,
                r.get("year")?,
                r.get("ord_num")?,
            ))
        })?;
        for row in rows {
            if let (Some(sequence), company_id, nuis, year, ord_num) = row? {
                last.push(LastNumber { company_id, nuis, sequence, year, ord_num });
            }
        }
    }
    Ok(last)
}

/// The documents of `sequence` numbered after `after` in `year`, and how many of them the CIS
/// registered (they have its FIC or FWTNIC).
pub fn documents_after(
    conn: &Connection,
    company_id: i64,
    sequence: &SequenceName,
    year: i32,
    after: i64,
) -> Result<(i64, i64)> {
    let count = |sql: &str, filter: &dyn rusqlite::ToSql| -> Result<(i64, i64)> {
        Ok(conn.query_row(
            sql,
            named_params! {":company": company_id, ":year": year, ":after": after, ":filter": filter},
            |r| Ok((r.get("documents")?, r.get("fiscalized")?)),
        )?)
    };
    match sequence {
        SequenceName::Till(tcr) => count(
            "SELECT COUNT(*) AS documents, COUNT(fic) AS fiscalized FROM invoices WHERE company_id = :company AND year = :year
                 AND kind = 'CASH' AND tcr_code = :filter AND ord_num > :after",
            tcr,
        ),
        SequenceName::NonCash => count(
            "SELECT COUNT(*) AS documents, COUNT(fic) AS fiscalized FROM invoices WHERE company_id = :company AND year = :year
                 AND kind = 'NONCASH' AND :filter IS NULL AND ord_num > :after",
            &rusqlite::types::Null,
        ),
        SequenceName::WtnUnit { id, .. } => count(
            "SELECT COUNT(*) AS documents, COUNT(fwtnic) AS fiscalized FROM wtns WHERE company_id = :company AND year = :year
                 AND business_unit_id = :filter AND ord_num > :after",
            id,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::invoices::{self, tests::invoice};
    use crate::store::{Store, fixtures};

    #[test]
    fn last_numbers_come_from_documents_and_floors_and_a_floor_only_rises() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        let store = Store::open(&path).unwrap();
        let company = store
            .write_blocking(|tx| -> Result<_> {
                let company = fixtures::company(tx, "L41323036D");
                for (n, kind, tcr, fic) in [
                    (1, "CASH", Some("ab123ab123"), Some("f")),
                    (2, "CASH", Some("ab123ab123"), None),
                    (1, "NONCASH", None, Some("f")),
                ] {
                    let mut i = invoice(company, n, kind, "2026-03-14", None);
                    i.internal_id = format!("{kind}-{n}");
                    i.iic = format!("{kind:0>30}{n:02}");
                    i.header_uuid = i.internal_id.clone();
                    i.tcr_code = tcr.map(str::to_string);
                    i.fic = fic.map(str::to_string);
                    invoices::insert(tx, &i)?;
                }
                Ok(company)
            })
            .unwrap();
        drop(store);
        let till = SequenceName::Till("ab123ab123".into());
        let floors = [Floor {
            company_id: company,
            sequence: till.key(),
            year: 2026,
            ord_num: 7,
            replaced: "arka.db.replaced-x".into(),
        }];
        record_in_file(&path, &floors).unwrap();
        // A lower floor leaves the higher one.
        record_in_file(&path, &[Floor { ord_num: 5, ..floors[0].clone() }]).unwrap();

        let conn = Connection::open(&path).unwrap();
        let mut last: Vec<(String, i64)> =
            last_numbers(&conn).unwrap().into_iter().map(|l| (l.sequence.to_string(), l.ord_num)).collect();
        last.sort();
        assert_eq!(
            last,
            [
                ("cash TCR ab123ab123".to_string(), 2),
                ("cash TCR ab123ab123".to_string(), 7),
                ("non-cash".to_string(), 1),
            ]
        );
        assert_eq!(floor(&conn, company, &till.key(), 2026).unwrap(), 7);
        assert_eq!(floor(&conn, company, &till.key(), 2027).unwrap(), 0);
        // After 0: both cash documents, one registered; after 1: the one still waiting.
        assert_eq!(documents_after(&conn, company, &till, 2026, 0).unwrap(), (2, 1));
        assert_eq!(documents_after(&conn, company, &till, 2026, 1).unwrap(), (1, 0));
        assert_eq!(documents_after(&conn, company, &SequenceName::NonCash, 2026, 0).unwrap(), (1, 1));
        let unit = SequenceName::WtnUnit { id: 1, code: String::new() };
        assert_eq!(documents_after(&conn, company, &unit, 2026, 0).unwrap(), (0, 0));
        assert!(has_company(&conn, company).unwrap());
        assert!(!has_company(&conn, company + 1).unwrap());
    }
}
