//! `arka restore --from-hq`: a new box filled from the head office's copy of its shop. The new
//! box takes the shop over first (the box before it is refused from then on, so nothing it still
//! ships lands behind the restore's back), then reads every shipped table, then writes them in one
//! transaction. A restore that fails leaves no database behind.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{CALL_TIMEOUT, Error};
use crate::hq_client::HqClient;
use crate::store::{self, Store, hq_outbox};
use arka_core::wire::TABLES;

/// What `restore --from-hq` brought back.
#[derive(Debug, Clone, Default)]
pub struct Restored {
    pub rows: HashMap<&'static str, usize>,
    pub acked: i64,
    /// This box's identity at the head office.
    pub box_id: String,
}

/// Whether the database at `db_path` already holds a company or a document.
fn occupied(db_path: &Path) -> Result<bool, Error> {
    if !db_path.exists() {
        return Ok(false);
    }
    let store = Store::open(db_path)?;
    let occupied: i64 = store.read_blocking(|c| {
        Ok(c.query_row(
            "SELECT (SELECT COUNT(*) FROM companies) + (SELECT COUNT(*) FROM invoices) AS occupied",
            [],
            |r| r.get("occupied"),
        )?)
    })?;
    Ok(occupied > 0)
}

/// A shipped table's rows, as the HQ holds them.
type Table = (&'static str, Vec<Map<String, Value>>);

/// Every shipped table of the shop, as the HQ holds it, in the order a restore inserts them.
fn fetch(hq: &HqClient) -> Result<Vec<Table>, Error> {
    let mut pages = Vec::new();
    for (table, _) in TABLES {
        let mut rows = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = hq.rows(table, after.as_deref())?;
            rows.extend(page.rows);
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        pages.push((*table, rows));
    }
    Ok(pages)
}

/// Writes what was fetched into `store` in one transaction, and links the shop to the HQ again
/// under this box, with its outbox numbered after what the HQ holds. Certificates are not among
/// the rows: the owner uploads the certificate again.
fn write(
    store: &Store,
    pages: &[Table],
    url: &str,
    acked: i64,
    box_id: &str,
) -> Result<HashMap<&'static str, usize>, Error> {
    // A command (`arka restore --from-hq`): the box's real time, no server's clock to move.
    let now = chrono::Utc::now().to_rfc3339();
    store.write_blocking(|tx| {
        tx.execute_batch("PRAGMA defer_foreign_keys = ON").map_err(store::Error::from)?;
        let mut counts = HashMap::new();
        for (table, rows) in pages {
            for row in rows {
                insert_row(tx, table, row)?;
            }
            counts.insert(*table, rows.len());
        }
        hq_outbox::restored(tx, url, &now, acked, box_id)?;
        // After the outbox is renumbered, so the HQ learns it: the numbers after the HQ's last
        // may be at the CIS (the dead box's unshipped tail), so no till issues on them again.
        store::devices::retire_all(tx, "restored from the head office", &now)?;
        Ok::<_, Error>(counts)
    })
}

/// A shipped row put back into `table` as the shop held it.
fn insert_row(tx: &rusqlite::Connection, table: &str, row: &Map<String, Value>) -> store::Result<()> {
    let columns: Vec<&String> = row.keys().collect();
    let names = columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let marks = (1..=columns.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
    let values = row.values().map(|v| match v {
        Value::Null => rusqlite::types::Value::Null,
        Value::Bool(b) => rusqlite::types::Value::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => rusqlite::types::Value::Integer(i),
            None => rusqlite::types::Value::Real(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => rusqlite::types::Value::Text(s.clone()),
        other => rusqlite::types::Value::Text(other.to_string()),
    });
    let mut stmt = tx.prepare_cached(&format!("INSERT INTO \"{table}\" ({names}) VALUES ({marks})"))?;
    stmt.execute(rusqlite::params_from_iter(values))?;
    Ok(())
}

/// The database file and the files SQLite keeps beside it.
fn remove_database(db_path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut path = db_path.as_os_str().to_os_string();
        path.push(suffix);
        if let Err(e) = std::fs::remove_file(&path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %Path::new(&path).display(), error = %e, "a failed restore's file could not be removed");
        }
    }
}

/// How `restore --from-hq` reaches the head office.
pub struct RestoreFrom<'a> {
    pub url: &'a str,
    pub token: &'a str,
    pub ca_file: Option<&'a Path>,
    /// `--hq-allow-http`.
    pub allow_http: bool,
}

/// `arka restore --from-hq`: fills the data dir's database (made if there is none, left as it
/// was if the restore fails) from the HQ, as a new box of the shop.
pub fn restore_data_dir(db_path: &Path, from: &RestoreFrom) -> Result<Restored, Error> {
    let url = from.url.trim().trim_end_matches('/');
    super::checked_address(url, from.allow_http)?;
    let ca = match from.ca_file {
        Some(path) => {
            Some(std::fs::read(path).map_err(|source| Error::CaFile { path: path.to_path_buf(), source })?)
        }
        None => None,
    };
    if occupied(db_path)? {
        return Err(Error::NotEmpty(
            "the database already holds companies or documents: restore from the HQ into a new data dir"
                .to_string(),
        ));
    }
    let box_id = hq_outbox::new_box_id();
    let hq = HqClient::new(url, from.token, &box_id, ca.as_deref(), CALL_TIMEOUT)?;
    hq.take_over()?;
    let acked = hq.acked()?.acked;
    let pages = fetch(&hq)?;
    let made = !db_path.exists();
    let written = Store::open(db_path)
        .map_err(Error::from)
        .and_then(|store| write(&store, &pages, url, acked, &box_id));
    match written {
        Ok(rows) => Ok(Restored { rows, acked, box_id }),
        Err(e) => {
            if made {
                remove_database(db_path);
            }
            Err(e)
        }
    }
}
