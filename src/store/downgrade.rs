//! The way back to the previous release (`arka downgrade`): an upgrade's migrations run at the
//! first start and keep the shop closed only seconds, so the copy of the whole database taken
//! before them (minutes at a decade's size) is no longer what a roll-back relies on. Each
//! migration since the previous release brings its way back (`migrations_back/`), which gives the
//! schema the previous release knows again while keeping every row of every table that release
//! has: a sale made after the upgrade is still there when the old binary starts.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::{Error, Result, embedded, schema_version};

/// The newest migration of the previous release (main at 1ea78de): what `arka downgrade` goes
/// back to by default.
pub const PREVIOUS_RELEASE_SCHEMA: i32 = 30;

/// The way back of every migration after `PREVIOUS_RELEASE_SCHEMA`. A migration without one
/// here makes `arka downgrade` refuse to go back past it (and `store::downgrade`'s test fail).
const WAYS_BACK: &[(i32, &str)] = &[
    (31, include_str!("../../migrations_back/V31__reset_codes.sql")),
    (33, include_str!("../../migrations_back/V33__reversals_with_credit_notes.sql")),
    (35, include_str!("../../migrations_back/V35__the_drawer_counted.sql")),
    (38, include_str!("../../migrations_back/V38__till_and_printers.sql")),
    (39, include_str!("../../migrations_back/V39__tables_split_by_lines.sql")),
    (42, include_str!("../../migrations_back/V42__hq_box_and_set_aside.sql")),
    (43, include_str!("../../migrations_back/V43__retired_tcrs.sql")),
    (44, include_str!("../../migrations_back/V44__credit_notes_kept.sql")),
];

/// What a way back would lose that the previous release cannot do without: while the query finds
/// a row, `arka downgrade` refuses and says why. A retired TCR would be numbered on again by the
/// old release (the numbers after the copy's last may already be the CIS's), and a change set
/// aside for the head office would be dropped with its table. An order paid in part would read as
/// open in full, its paid lines taken again.
const REFUSE_WHILE: &[(i32, &str, &str)] = &[
    (
        39,
        "SELECT EXISTS (SELECT 1 FROM order_line_settlements s WHERE NOT EXISTS
             (SELECT 1 FROM invoices o WHERE o.id = s.order_id AND o.settled_by_invoice_id IS NOT NULL)) AS found",
        "an order is paid in part (a table's bill split by lines): the previous release would take its paid lines again; settle it first",
    ),
    (
        43,
        "SELECT EXISTS (SELECT 1 FROM fiscal_devices WHERE retired_at IS NOT NULL) AS found",
        "a TCR of this database is retired (a restore goes on on new TCRs): the previous release would issue numbers on it again",
    ),
    (
        42,
        "SELECT EXISTS (SELECT 1 FROM hq_set_aside) AS found",
        "changes wait set aside for the head office (see the owner's page): the previous release would drop them",
    ),
];

/// The migrations this binary carries newer than `to`, newest first.
fn newer_than(to: i32) -> Vec<i32> {
    let mut versions: Vec<i32> = embedded::migrations::runner()
        .get_migrations()
        .iter()
        .map(|m| m.version())
        .filter(|v| *v > to)
        .collect();
    versions.sort_unstable_by(|a, b| b.cmp(a));
    versions
}

/// The migrations newer than `to` that have no way back.
pub fn without_way_back(to: i32) -> Vec<i32> {
    newer_than(to).into_iter().filter(|v| !WAYS_BACK.iter().any(|(w, _)| w == v)).collect()
}

/// Brings the database at `path` (no server on it: the caller holds the data dir's lock) back to
/// schema `to`, in one transaction: each applied migration newer than it, newest first, undone
/// by its way back and taken out of the migrations' history. Returns the versions undone.
pub fn downgrade(path: &Path, to: i32) -> Result<Vec<i32>> {
    if to < PREVIOUS_RELEASE_SCHEMA {
        return Err(Error::Way(format!(
            "this release goes back as far as schema {PREVIOUS_RELEASE_SCHEMA} (the previous release's), not {to}"
        )));
    }
    let missing = without_way_back(to);
    if !missing.is_empty() {
        return Err(Error::Way(format!("migrations without a way back: {missing:?}")));
    }
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let applied = schema_version(&conn)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut undone = Vec::new();
    for (version, back) in newer_than(to).into_iter().filter_map(|v| WAYS_BACK.iter().find(|(w, _)| *w == v))
    {
        let was: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM refinery_schema_history WHERE version = ?1) AS was",
            [version],
            |r| r.get("was"),
        )?;
        if !was {
            continue;
        }
        for (_, query, why) in REFUSE_WHILE.iter().filter(|(v, _, _)| v == version) {
            if tx.query_row(query, [], |r| r.get::<_, bool>("found"))? {
                return Err(Error::Way((*why).to_string()));
            }
        }
        tx.execute_batch(back)?;
        tx.execute("DELETE FROM refinery_schema_history WHERE version = ?1", [version])?;
        undone.push(*version);
    }
    tx.commit()?;
    tracing::info!(from = applied, to, ?undone, "the database went back to the previous release's schema");
    Ok(undone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{self, Store};

    /// The schema as `sqlite_schema` holds it, without SQLite's own objects.
    fn schema(path: &Path) -> Vec<(String, String, Option<String>)> {
        let conn = Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare("SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get("type")?, r.get("name")?, r.get("sql")?)))
            .unwrap()
            .collect::<rusqlite::Result<Vec<_>>>()
            .unwrap()
    }

    #[test]
    fn every_migration_since_the_previous_release_has_a_way_back() {
        assert_eq!(without_way_back(PREVIOUS_RELEASE_SCHEMA), Vec::<i32>::new());
        assert!(WAYS_BACK.iter().all(|(v, _)| *v > PREVIOUS_RELEASE_SCHEMA && newer_than(PREVIOUS_RELEASE_SCHEMA).contains(v)));
    }

    #[test]
    fn a_downgraded_database_has_the_previous_release_s_schema_and_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new) = (dir.path().join("old.db"), dir.path().join("new.db"));
        store::create_at_version(&old, PREVIOUS_RELEASE_SCHEMA).unwrap();
        store::create_at_version(&new, PREVIOUS_RELEASE_SCHEMA).unwrap();
        let before = schema(&old);
        let upgraded = Store::open(&new).unwrap();
        let company =
            upgraded.write_blocking(|tx| Ok::<_, Error>(store::fixtures::company(tx, "L1"))).unwrap();
        drop(upgraded);
        assert_ne!(schema(&new), before, "the upgrade changed the schema");
        let undone = downgrade(&new, PREVIOUS_RELEASE_SCHEMA).unwrap();
        assert_eq!(undone, newer_than(PREVIOUS_RELEASE_SCHEMA));
        assert_eq!(schema(&new), before, "the previous release's schema, object for object");
        let conn = Connection::open(&new).unwrap();
        assert_eq!(schema_version(&conn).unwrap(), i64::from(PREVIOUS_RELEASE_SCHEMA));
        let kept: i64 = conn
            .query_row("SELECT COUNT(*) AS n FROM companies WHERE id = ?1", [company], |r| r.get("n"))
            .unwrap();
        assert_eq!(kept, 1, "the row written after the upgrade is kept");
        drop(conn);
        assert_eq!(
            downgrade(&new, PREVIOUS_RELEASE_SCHEMA).unwrap(),
            Vec::<i32>::new(),
            "nothing more to undo"
        );
        assert!(downgrade(&new, 29).is_err(), "not past the previous release");
        let again = Store::open(&new).unwrap();
        drop(again);
        assert_eq!(
            schema_version(&Connection::open(&new).unwrap()).unwrap(),
            store::latest_schema_version(),
            "and up again"
        );
    }

    /// A database made since V33 (its reversals index holds the credit notes) goes back without
    /// building the index again, and the previous release's reversals still read it.
    #[test]
    fn the_way_back_of_v33_builds_no_index_and_the_previous_release_reads_either_form() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        drop(Store::open(&path).unwrap());
        let index = |conn: &Connection| -> String {
            conn.query_row("SELECT sql FROM sqlite_schema WHERE name = 'invoices_reversals'", [], |r| {
                r.get("sql")
            })
            .unwrap()
        };
        let made = index(&Connection::open(&path).unwrap());
        assert!(made.contains("doc_type = '381'"), "{made}");
        downgrade(&path, PREVIOUS_RELEASE_SCHEMA).unwrap();
        let conn = Connection::open(&path).unwrap();
        assert_eq!(index(&conn), made, "kept as it was");
        // The previous release's reversals list (main at 1ea78de, `store::reports`).
        let mut stmt = conn
            .prepare(
                "EXPLAIN QUERY PLAN SELECT i.id FROM invoices i WHERE i.document_kind = 'CORRECTIVE'
                 AND i.company_id = 1 AND i.issue_date >= '2026-01-01' AND i.issue_date <= '2026-12-31'
                 ORDER BY i.issue_date DESC, i.id DESC LIMIT 20 OFFSET 0",
            )
            .unwrap();
        let plan: Vec<String> =
            stmt.query_map([], |r| r.get("detail")).unwrap().collect::<rusqlite::Result<_>>().unwrap();
        assert!(plan.iter().any(|step| step.contains("invoices_reversals")), "{plan:?}");
    }

    #[test]
    fn a_database_with_a_retired_tcr_does_not_go_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        let store = Store::open(&path).unwrap();
        store
            .write_blocking(|tx| {
                let company = store::fixtures::company(tx, "L1");
                let unit = store::fixtures::unit(tx, company, "Dyqani", Some("bu111aa111"));
                tx.execute(
                    "INSERT INTO fiscal_devices (company_id, business_unit_id, name, tcr_int_id, tcr_code, business_unit_code, valid_from, created_at)
                     VALUES (?1, ?2, 'Arka 1', '1', 'tc111aa111', 'bu111aa111', '2026-01-01', '2026-01-01T00:00:00Z')",
                    rusqlite::params![company, unit],
                )?;
                store::devices::retire_all(tx, "restored from a copy", "2026-01-02T00:00:00Z")?;
                Ok::<_, Error>(())
            })
            .unwrap();
        drop(store);
        let refused = downgrade(&path, PREVIOUS_RELEASE_SCHEMA).unwrap_err().to_string();
        assert!(refused.contains("retired"), "{refused}");
        assert_eq!(
            schema_version(&Connection::open(&path).unwrap()).unwrap(),
            store::latest_schema_version(),
            "nothing undone"
        );
    }

    #[test]
    fn a_database_with_an_order_paid_in_part_does_not_go_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        drop(Store::open(&path).unwrap());
        // What a summary took of an order still open: the order's row is not needed for the rule.
        Connection::open(&path)
            .unwrap()
            .execute_batch(
                "PRAGMA foreign_keys = OFF;
                 INSERT INTO order_line_settlements (order_id, position, summary_id, quantity) VALUES (1, 0, 2, '1')",
            )
            .unwrap();
        let refused = downgrade(&path, PREVIOUS_RELEASE_SCHEMA).unwrap_err().to_string();
        assert!(refused.contains("paid in part"), "{refused}");
        assert_eq!(
            schema_version(&Connection::open(&path).unwrap()).unwrap(),
            store::latest_schema_version(),
            "nothing undone"
        );
    }
}
