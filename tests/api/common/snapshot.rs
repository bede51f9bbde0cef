//! The books as rows, to show that a refused request changed nothing: every table's rows as a
//! count and a digest, read from the server's database beside the running server.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

/// A table's row count and the digest of its sorted rows.
pub type Snapshot = BTreeMap<String, (usize, u64)>;

/// Every table's rows, but what a request may write whoever makes it and whatever it holds: the
/// tokens' last uses, and the search index the server keeps in the background.
pub fn snapshot(db: &Path) -> Snapshot {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
               AND name NOT LIKE 'invoices_search%' AND name <> 'user_token_uses'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut digest = BTreeMap::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let columns = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                Ok((0..columns).map(|i| format!("{:?}", r.get_ref(i).unwrap())).collect::<Vec<_>>().join("|"))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        rows.sort();
        let mut hasher = DefaultHasher::new();
        rows.hash(&mut hasher);
        digest.insert(table, (rows.len(), hasher.finish()));
    }
    digest
}

/// The tables whose rows differ between two snapshots.
pub fn changed(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut tables: Vec<String> =
        before.keys().chain(after.keys()).filter(|t| before.get(*t) != after.get(*t)).cloned().collect();
    tables.sort();
    tables.dedup();
    tables
}
