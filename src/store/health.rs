//! What `GET /healthz` and `GET /metrics` read: a write probe, the late-delivery queue's depth
//! and age, and the certificate closest to its end.

use rusqlite::{Connection, OptionalExtension, named_params};

use super::{Result, now_text};

/// Rewrites the probe row; committing it proves the database takes writes.
pub fn probe(conn: &Connection) -> Result<()> {
    conn.execute(
        "INSERT INTO health_probe (id, checked_at) VALUES (1, :now)
         ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at",
        named_params! {":now": now_text()},
    )?;
    Ok(())
}

/// Documents waiting for the CIS and the issue time (RFC 3339, UTC) of the oldest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSummary {
    pub depth: i64,
    pub oldest_issued_at: Option<String>,
}

pub fn queue_summary(conn: &Connection) -> Result<QueueSummary> {
    Ok(conn.query_row(
        "SELECT COUNT(*) AS depth, MIN(issued_at) AS oldest_issued_at FROM fiscal_queue WHERE status = 'waiting' AND status <> 'delivered'",
        [],
        |r| Ok(QueueSummary { depth: r.get("depth")?, oldest_issued_at: r.get("oldest_issued_at")? }),
    )?)
}

/// `valid_to` (RFC 3339, UTC) of the signing certificate that ends first, among each company's
/// current one; None when no company has a certificate.
pub fn soonest_certificate_end(conn: &Connection) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT c.valid_to FROM certificates c
             WHERE c.id = (SELECT MAX(id) FROM certificates WHERE company_id = c.company_id)
             ORDER BY c.valid_to LIMIT 1",
            [],
            |r| r.get("valid_to"),
        )
        .optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        (dir, store)
    }

    fn company(conn: &Connection, nuis: &str) -> i64 {
        conn.execute(
            "INSERT INTO companies (nuis, name, created_at) VALUES (:nuis, 'Shop', '')",
            named_params! {":nuis": nuis},
        )
        .unwrap();
        conn.last_insert_rowid()
    }

    fn certificate(conn: &Connection, company_id: i64, valid_to: &str) {
        conn.execute(
            "INSERT INTO certificates (company_id, subject, serial, valid_from, valid_to, cert_der, key_sealed, created_at)
             VALUES (:company, 'CN=x', '1', '2026-01-01T00:00:00+00:00', :to, x'00', x'00', '')",
            named_params! {":company": company_id, ":to": valid_to},
        )
        .unwrap();
    }

    #[test]
    fn the_probe_writes_one_row_however_often_it_runs() {
        let (_dir, store) = store();
        store.write_blocking(|tx| probe(tx)).unwrap();
        store.write_blocking(|tx| probe(tx)).unwrap();
        let rows: i64 = store
            .read_blocking(|c| {
                Ok(c.query_row("SELECT COUNT(*) AS rows FROM health_probe", [], |r| r.get("rows"))?)
            })
            .unwrap();
        assert_eq!(rows, 1);
    }

    #[test]
    fn an_empty_queue_has_depth_zero_and_no_oldest() {
        let (_dir, store) = store();
        let summary = store.read_blocking(queue_summary).unwrap();
        assert_eq!(summary, QueueSummary { depth: 0, oldest_issued_at: None });
    }

    #[test]
    fn the_soonest_end_counts_only_each_companys_current_certificate() {
        let (_dir, store) = store();
        let end = store
            .write_blocking(|tx| {
                let a = company(tx, "L00000001A");
                let b = company(tx, "L00000002B");
                // A's old certificate ends first, but A has replaced it.
                certificate(tx, a, "2026-02-01T00:00:00+00:00");
                certificate(tx, a, "2028-01-01T00:00:00+00:00");
                certificate(tx, b, "2027-06-01T00:00:00+00:00");
                soonest_certificate_end(tx)
            })
            .unwrap();
        assert_eq!(end.as_deref(), Some("2027-06-01T00:00:00+00:00"));
        let (_dir, empty) = self::store();
        assert_eq!(empty.read_blocking(soonest_certificate_end).unwrap(), None);
    }
}
