//! The credit notes kept apart for the reversals report (V44): the trigger adds each new one; the
//! ones already in the books when V44 ran are found here after the start, a range of invoices a
//! step, so that no start reads every invoice (the house rule of issue 46) and no step holds the
//! sales for long.

use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Transaction, named_params};

use super::{Result, Store};

/// Invoices read a step: about 20 ms of the writer (over the fifth of the decade, 982 steps in
/// 70.5 s with their pauses, a debug build), each row's later columns on its overflow page.
pub const STEP_ROWS: i64 = 2_000;

/// The pause between two steps, for the sales waiting behind them.
const BETWEEN_STEPS: Duration = Duration::from_millis(50);

/// Whether every credit note of the books is in `credit_notes`.
pub fn all_found(conn: &Connection) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT NOT EXISTS (SELECT 1 FROM credit_notes_found WHERE next_id <= until_id) AS done",
        )?
        .query_row([], |r| r.get("done"))?)
}

/// Reads the next `rows` invoices of those V44 found in the books and keeps their credit notes:
/// how many it read, 0 once none is left.
pub fn find_step(tx: &Transaction, rows: i64) -> Result<i64> {
    let Some((next, until)) = tx
        .query_row("SELECT next_id, until_id FROM credit_notes_found", [], |r| {
            Ok((r.get::<_, i64>("next_id")?, r.get::<_, i64>("until_id")?))
        })
        .optional()?
    else {
        return Ok(0);
    };
    if next > until {
        return Ok(0);
    }
    let last = until.min(next + rows - 1);
    tx.execute(
        "INSERT OR IGNORE INTO credit_notes (invoice_id, company_id, issue_date)
         SELECT id, company_id, issue_date FROM invoices
         WHERE id BETWEEN :next AND :last AND document_kind = 'NONCASH' AND doc_type = '381'",
        named_params! {":next": next, ":last": last},
    )?;
    tx.execute("UPDATE credit_notes_found SET next_id = :after", named_params! {":after": last + 1})?;
    Ok(last - next + 1)
}

/// Finds the credit notes already in the books, step by step, then ends; run once the server
/// answers. A step cut short by a stop is rolled back and read again at the next start.
pub async fn find_all(store: Store) {
    let started = std::time::Instant::now();
    let mut read = 0_i64;
    loop {
        match store.write_unsynced(|tx| find_step(tx, STEP_ROWS)).await {
            Ok(0) => break,
            Ok(rows) => read += rows,
            Err(e) => {
                tracing::warn!(error = %e, "the credit notes could not be found in the books; the next start tries again");
                return;
            }
        }
        tokio::time::sleep(BETWEEN_STEPS).await;
    }
    if read > 0 {
        tracing::info!(
            invoices_read = read,
            seconds = format!("{:.1}", started.elapsed().as_secs_f64()),
            "the credit notes already in the books were found (once, after the upgrade)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::invoices::{self, tests::invoice};

    /// The books of an upgraded database: invoices stored before V44 (its search not begun), one
    /// of them a credit note, and one stored since, which the trigger kept.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_credit_notes_stored_before_v44_are_found_after_the_start_and_the_new_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let note = |n: i64, day: &str| {
            let mut note = invoice(1, n, "NONCASH", day, Some("Dardania"));
            note.doc_type = Some("381".into());
            note.original_invoice_iic = Some("A".repeat(32));
            note
        };
        let before = store
            .write_blocking(|tx| -> Result<_> {
                tx.execute_batch(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Mine', 'now')",
                )?;
                let mut ids = Vec::new();
                for n in 1..=5 {
                    ids.push(invoices::insert(tx, &invoice(1, n, "CASH", "2026-03-01", None))?);
                }
                ids.push(invoices::insert(tx, &note(6, "2026-03-02"))?);
                tx.execute_batch(
                    "DELETE FROM credit_notes;
                     UPDATE credit_notes_found SET next_id = 1, until_id = (SELECT MAX(id) FROM invoices)",
                )?;
                Ok(ids[5])
            })
            .unwrap();
        let since = store.write_blocking(|tx| invoices::insert(tx, &note(7, "2026-03-03"))).unwrap();
        let kept = |store: &Store| {
            store
                .read_blocking(|c| {
                    let mut stmt = c.prepare("SELECT invoice_id FROM credit_notes ORDER BY invoice_id")?;
                    let ids = stmt.query_map([], |r| r.get::<_, i64>("invoice_id"))?;
                    Ok((all_found(c)?, ids.collect::<rusqlite::Result<Vec<_>>>()?))
                })
                .unwrap()
        };
        assert_eq!(kept(&store), (false, vec![since]), "the trigger keeps the new one");
        find_all(store.clone()).await;
        assert_eq!(kept(&store), (true, vec![before, since]), "the older one found");
        assert_eq!(store.write_blocking(|tx| find_step(tx, STEP_ROWS)).unwrap(), 0, "nothing left");
    }
}
