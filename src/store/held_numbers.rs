//! Numbers held for a document's retry (V15): a document given up on its first call keeps its
//! number for the next request of the same document, so numbering stays gapless while several
//! documents of a sequence are at the CIS at once.

use rusqlite::{Connection, OptionalExtension, named_params};

use super::{Result, now_text};

/// A number held for `held_for`'s retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub id: i64,
    pub ord_num: i64,
    /// The queue entry that shows it to the owner (status `held`).
    pub queue_id: i64,
}

/// Where a held number belongs and whose it is.
pub struct NewHeld<'a> {
    pub company_id: i64,
    /// The numbering sequence (`services::sequence::Sequence::key`).
    pub sequence: &'a str,
    pub year: i32,
    pub ord_num: i64,
    /// The in-flight key of the document it waits for.
    pub held_for: &'a str,
    pub queue_id: i64,
}

pub fn hold(conn: &Connection, held: &NewHeld) -> Result<()> {
    conn.execute(
        "INSERT INTO held_numbers (company_id, sequence, year, ord_num, held_for, queue_id, created_at)
         VALUES (:company, :sequence, :year, :ord, :held_for, :queue, :now)",
        named_params! {
            ":company": held.company_id, ":sequence": held.sequence, ":year": held.year,
            ":ord": held.ord_num, ":held_for": held.held_for, ":queue": held.queue_id, ":now": now_text(),
        },
    )?;
    Ok(())
}

/// The number held in `sequence` and `year` for the document `held_for`, if any.
pub fn held_for(
    conn: &Connection,
    company_id: i64,
    sequence: &str,
    year: i32,
    held_for: &str,
) -> Result<Option<Held>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, ord_num, queue_id FROM held_numbers
             WHERE company_id = :company AND held_for = :held_for AND sequence = :sequence AND year = :year",
        )?
        .query_row(
            named_params! {":company": company_id, ":held_for": held_for, ":sequence": sequence, ":year": year},
            |r| Ok(Held { id: r.get("id")?, ord_num: r.get("ord_num")?, queue_id: r.get("queue_id")? }),
        )
        .optional()?)
}

/// The highest number held in `sequence` and `year` (0 when none): the next new number comes
/// after it too.
pub fn max_held(conn: &Connection, company_id: i64, sequence: &str, year: i32) -> Result<i64> {
    Ok(conn
        .prepare_cached(
            "SELECT COALESCE(MAX(ord_num), 0) AS ord_num FROM held_numbers
             WHERE company_id = :company AND sequence = :sequence AND year = :year",
        )?
        .query_row(named_params! {":company": company_id, ":sequence": sequence, ":year": year}, |r| {
            r.get("ord_num")
        })?)
}

/// The retry was issued under the number: it is no longer held.
pub fn release(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("DELETE FROM held_numbers WHERE id = :id", named_params! {":id": id})?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn a_held_number_is_found_by_its_document_and_counts_in_the_sequence_until_released() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<_> {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L41323036D', 'Shop', '')",
                    [],
                )?;
                let company = tx.last_insert_rowid();
                tx.execute(
                    "INSERT INTO fiscal_queue (company_id, operation, document_kind, header_uuid, issued_at,
                         unsigned_request, status, next_attempt_at, created_at)
                     VALUES (:company, 'RegisterInvoiceRequest', 'invoice', 'u-1', '', '', 'held', '', '')",
                    named_params! {":company": company},
                )?;
                let queue_id = tx.last_insert_rowid();
                let held = NewHeld {
                    company_id: company,
                    sequence: "cash:ab123cd456",
                    year: 2026,
                    ord_num: 2,
                    held_for: "invoice:1:2026:b",
                    queue_id,
                };
                hold(tx, &held)?;
                assert_eq!(max_held(tx, company, "cash:ab123cd456", 2026)?, 2);
                assert_eq!(max_held(tx, company, "cash:ab123cd456", 2027)?, 0);
                assert_eq!(max_held(tx, company, "noncash", 2026)?, 0);
                assert_eq!(held_for(tx, company, "cash:ab123cd456", 2026, "invoice:1:2026:c")?, None);
                let found = held_for(tx, company, "cash:ab123cd456", 2026, "invoice:1:2026:b")?.unwrap();
                assert_eq!((found.ord_num, found.queue_id), (2, queue_id));
                assert!(matches!(hold(tx, &held), Err(crate::store::Error::Duplicate(_))), "held once");
                release(tx, found.id)?;
                assert_eq!(held_for(tx, company, "cash:ab123cd456", 2026, "invoice:1:2026:b")?, None);
                assert_eq!(max_held(tx, company, "cash:ab123cd456", 2026)?, 0);
                Ok(())
            })
            .unwrap();
    }
}
