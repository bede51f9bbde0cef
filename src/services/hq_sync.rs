//! A shop in a chain: ships its outbox to the head office (HQ) and, on a new box, comes back
//! from it (`arka restore --from-hq`). A sale never waits for any of it: the triggers note each
//! change in the sale's own transaction, and this worker ships the notes later, oldest first,
//! at least once, backing off while the HQ is away.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::hq::client::{self, HqClient};
use crate::hq::wire::{Batch, Entry, NumberAsk, Op, TABLES, key_columns};
use crate::store::{self, Store, hq_outbox};

/// Notes read per batch (several notes of one row travel as one entry).
pub const BATCH_NOTES: i64 = 2000;
/// How often an idle worker looks for new notes.
const IDLE: Duration = Duration::from_millis(200);
/// The longest a call to the HQ may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Hq(#[from] client::Error),
    /// A note the outbox holds that cannot be shipped (a bug, not the HQ's absence).
    #[error("an outbox note: {0}")]
    Note(String),
    /// `restore --from-hq` over a database that already holds rows.
    #[error("{0}")]
    NotEmpty(String),
    /// The file of trusted roots `--hq-ca-file` names could not be read.
    #[error("the head office's CA file {}: {source}", .path.display())]
    CaFile { path: std::path::PathBuf, source: std::io::Error },
}

fn object(text: &str) -> Result<Map<String, Value>, Error> {
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Error::Note(format!("not a JSON object: {text}"))),
    }
}

/// The next batch: the oldest notes, each row once (its last note), read as the row is now. A
/// row gone since its note travels as a delete (its delete note follows anyway).
pub fn next_batch(conn: &rusqlite::Connection, notes: i64) -> Result<Option<Batch>, Error> {
    let noted = hq_outbox::oldest(conn, notes)?;
    let Some(upto) = noted.last().map(|n| n.seq) else { return Ok(None) };
    let mut last: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, note) in noted.iter().enumerate() {
        last.insert((note.table.as_str(), note.key.as_str()), i);
    }
    let mut queries: HashMap<&str, String> = HashMap::new();
    let mut entries = Vec::with_capacity(last.len());
    for (i, note) in noted.iter().enumerate() {
        if last.get(&(note.table.as_str(), note.key.as_str())) != Some(&i) {
            continue;
        }
        let columns = key_columns(&note.table)
            .ok_or_else(|| Error::Note(format!("{} is not a table a shop ships", note.table)))?;
        let op = Op::parse(&note.op).ok_or_else(|| Error::Note(format!("op {}", note.op)))?;
        let row = match op {
            Op::Delete => None,
            Op::Upsert => {
                let query = match queries.get(note.table.as_str()) {
                    Some(query) => query,
                    None => {
                        let query = hq_outbox::row_query(conn, &note.table, columns)?;
                        queries.entry(note.table.as_str()).or_insert(query)
                    }
                };
                hq_outbox::row(conn, query, &note.key)?
                    .map(|text| {
                        serde_json::value::RawValue::from_string(text)
                            .map_err(|e| Error::Note(format!("a row of {}: {e}", note.table)))
                    })
                    .transpose()?
            }
        };
        entries.push(Entry {
            seq: note.seq,
            table: note.table.clone(),
            key: object(&note.key)?,
            op: if row.is_some() { Op::Upsert } else { Op::Delete },
            row,
        });
    }
    Ok(Some(Batch { upto, entries }))
}

/// Ships one batch and forgets what the HQ acknowledged; how many notes it accounted for.
pub fn ship_once(store: &Store, hq: &HqClient) -> Result<usize, Error> {
    let Some(batch) = store.read_blocking(|conn| Ok(next_batch(conn, BATCH_NOTES)))?? else {
        return Ok(0);
    };
    let acked = hq.ship(&batch)?;
    store.write_blocking_unsynced(|tx| Ok::<_, Error>(hq_outbox::forget_upto(tx, acked.acked)?))
}

/// Takes the products of the shop's businesses set at the HQ since the last pull; how many.
pub fn pull_catalog(store: &Store, hq: &HqClient) -> Result<usize, Error> {
    let (after, companies) =
        store.read_blocking(|c| Ok((hq_outbox::catalog_version(c)?, hq_outbox::companies(c)?)))?;
    let mut taken = 0;
    let mut newest = after;
    for (company_id, nuis) in companies {
        loop {
            let changed = hq.central_products(&nuis, after.max(0))?;
            if changed.is_empty() {
                break;
            }
            let now = chrono::Utc::now().to_rfc3339();
            let last = changed.iter().map(|p| p.version).max().unwrap_or(after);
            store.write_blocking(|tx| {
                for product in &changed {
                    hq_outbox::take_central(tx, company_id, product, &now)?;
                }
                Ok::<_, Error>(())
            })?;
            taken += changed.len();
            newest = newest.max(last);
            if changed.len() < 1000 {
                break;
            }
        }
    }
    if newest > after {
        store.write_blocking(|tx| hq_outbox::set_catalog_version(tx, newest))?;
    }
    Ok(taken)
}

/// How often an idle worker asks the HQ for products changed there.
const PULL_EVERY: Duration = Duration::from_secs(2);

/// The worker `serve --hq-url` starts: ships until `stop`, batch after batch while a backlog
/// waits, every `IDLE` otherwise, and with a growing pause while the HQ cannot be reached.
pub async fn run(store: Store, hq: Arc<HqClient>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let mut backoff = FIRST_BACKOFF;
    let mut unreachable = false;
    let mut pulled_at: Option<std::time::Instant> = None;
    loop {
        if *stop.borrow() {
            break;
        }
        let (s, h) = (store.clone(), hq.clone());
        let pull = pulled_at.is_none_or(|at| at.elapsed() >= PULL_EVERY);
        let sync = move || {
            let shipped = ship_once(&s, &h)?;
            if shipped == 0 && pull {
                pull_catalog(&s, &h)?;
            }
            Ok::<_, Error>((shipped, shipped == 0 && pull))
        };
        let wait = match tokio::task::spawn_blocking(sync).await {
            Ok(Ok((shipped, pulled))) => {
                if pulled {
                    pulled_at = Some(std::time::Instant::now());
                }
                if unreachable {
                    tracing::info!("the HQ is reachable again; the backlog is shipped oldest first");
                    unreachable = false;
                }
                backoff = FIRST_BACKOFF;
                // A full batch means a backlog: the next goes at once. Otherwise the notes of the
                // next `IDLE` travel together, one post and one forget for a few sales rather
                // than for each, which is what a selling shop would otherwise pay.
                if shipped >= BATCH_NOTES as usize { Duration::ZERO } else { IDLE }
            }
            Ok(Err(e)) => {
                if !unreachable {
                    tracing::warn!(error = %crate::error_chain(&e), "the HQ did not take the outbox; sales go on, it is sent later");
                    unreachable = true;
                }
                let wait = backoff;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                wait
            }
            Err(e) => {
                tracing::error!(error = %crate::error_chain(&e), "the HQ worker's task failed");
                MAX_BACKOFF
            }
        };
        if wait.is_zero() {
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stop.changed() => {}
        }
    }
}

/// What `restore --from-hq` brought back.
#[derive(Debug, Clone, Default)]
pub struct Restored {
    pub rows: HashMap<&'static str, usize>,
    pub acked: i64,
}

/// Fills an empty database from the HQ's copy of this shop: every shipped table (documents,
/// their numbering, catalog, users, report totals), in one transaction, and links the shop to
/// the HQ again with its outbox numbered after what the HQ holds. Certificates are not among
/// them: the owner uploads the certificate again.
pub fn restore(store: &Store, hq: &HqClient, url: &str) -> Result<Restored, Error> {
    let occupied: i64 = store.read_blocking(|c| {
        Ok(c.query_row(
            "SELECT (SELECT COUNT(*) FROM companies) + (SELECT COUNT(*) FROM invoices) AS occupied",
            [],
            |r| r.get("occupied"),
        )?)
    })?;
    if occupied > 0 {
        return Err(Error::NotEmpty(
            "the database already holds companies or documents: restore from the HQ into a new data dir"
                .to_string(),
        ));
    }
    let acked = hq.acked()?.acked;
    let mut pages: Vec<(&'static str, Vec<Map<String, Value>>)> = Vec::new();
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
        pages.push((table, rows));
    }
    let now = chrono::Utc::now().to_rfc3339();
    let counts = store.write_blocking(|tx| {
        tx.execute_batch("PRAGMA defer_foreign_keys = ON").map_err(store::Error::from)?;
        let mut counts = HashMap::new();
        for (table, rows) in &pages {
            for row in rows {
                insert_row(tx, table, row)?;
            }
            counts.insert(*table, rows.len());
        }
        hq_outbox::restored(tx, url, &now, acked)?;
        Ok::<_, Error>(counts)
    })?;
    Ok(Restored { rows: counts, acked })
}

/// A shipped row put back into `table` as the shop held it (a restore; the HQ's reading copy).
pub fn insert_row(tx: &rusqlite::Connection, table: &str, row: &Map<String, Value>) -> store::Result<()> {
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

/// `arka restore --from-hq`: opens (creating) the data dir's database and fills it from the HQ.
pub fn restore_data_dir(
    db_path: &std::path::Path,
    url: &str,
    token: &str,
    ca_file: Option<&std::path::Path>,
) -> Result<Restored, Error> {
    let ca = match ca_file {
        Some(path) => {
            Some(std::fs::read(path).map_err(|source| Error::CaFile { path: path.to_path_buf(), source })?)
        }
        None => None,
    };
    let hq = HqClient::new(url, token, ca.as_deref(), CALL_TIMEOUT)?;
    let store = Store::open(db_path)?;
    restore(&store, &hq, url.trim().trim_end_matches('/'))
}

/// The business's next non-cash number for the document `held_for`, from the chain's head
/// office (`hq::numbering`), asked under the sequence's lock before the write transaction. The
/// HQ away is the spec's 503: nothing is issued.
pub async fn noncash_number(
    services: &super::Services,
    hq: Arc<HqClient>,
    company_id: i64,
    year: i32,
    held_for: &str,
) -> super::Result<i64> {
    let held_for = held_for.to_string();
    let (nuis, at_least) = services
        .store
        .read(move |conn| {
            let nuis: String =
                conn.query_row("SELECT nuis FROM companies WHERE id = ?1", [company_id], |r| r.get("nuis"))?;
            let next = super::sequence::reserve_number(
                conn,
                company_id,
                year,
                &super::sequence::Sequence::Business,
            )?;
            Ok((nuis, next))
        })
        .await?;
    let ask = NumberAsk { nuis, year, held_for, at_least };
    let given = tokio::task::spawn_blocking(move || hq.reserve_noncash(&ask))
        .await
        .map_err(|e| super::Error::Internal(e.to_string()))?;
    match given {
        Ok(given) => Ok(given.ord_num),
        Err(e) => {
            tracing::warn!(error = %crate::error_chain(&e), "no non-cash number from the head office");
            Err(super::Error::Unavailable(NO_NUMBER.to_string()))
        }
    }
}

/// The 503's message when the head office cannot give a non-cash number.
pub const NO_NUMBER: &str = "The head office, which keeps the business's non-cash numbering for the chain, cannot be reached: nothing was issued. Try again.";

/// Gives the number back when its document was not written (a document written keeps it, held
/// for its retry as any other). Nobody waits for this: a failure is logged and the number stays
/// reserved for this document's retry.
pub async fn give_back_noncash(
    services: &super::Services,
    hq: Arc<HqClient>,
    company_id: i64,
    year: i32,
    held_for: &str,
    ord_num: i64,
) {
    let held_for = held_for.to_string();
    let read = services
        .store
        .read(move |conn| {
            let written: bool = conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM invoices WHERE company_id = ?1 AND year = ?2 AND kind = 'NONCASH'
                     AND ord_num = ?3) AS written",
                rusqlite::params![company_id, year, ord_num],
                |r| r.get("written"),
            )?;
            let nuis: String =
                conn.query_row("SELECT nuis FROM companies WHERE id = ?1", [company_id], |r| r.get("nuis"))?;
            Ok((written, nuis))
        })
        .await;
    let nuis = match read {
        Ok((false, nuis)) => nuis,
        Ok((true, _)) => return,
        Err(e) => {
            tracing::warn!(error = %crate::error_chain(&e), "cannot tell whether a non-cash number was used; it stays reserved");
            return;
        }
    };
    let ask = NumberAsk { nuis, year, held_for, at_least: 0 };
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || hq.release_noncash(&ask)).await {
        tracing::warn!(error = %crate::error_chain(&e), ord_num, "the head office did not take a non-cash number back; it stays reserved");
    }
}

/// What waits for the head office, with the age of the oldest note; none for a lone shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub notes: i64,
    /// When the oldest note was written, as stored.
    pub oldest_noted_at: Option<String>,
    pub oldest_age_seconds: Option<i64>,
}

impl super::Services {
    /// The outbox to the chain's head office as `/healthz`, `/metrics` and the owner's page show
    /// it; none for a lone shop.
    pub async fn hq_backlog(&self, now: chrono::DateTime<chrono::Utc>) -> super::Result<Option<Waiting>> {
        let backlog = self
            .store
            .read(|conn| match hq_outbox::linked_url(conn)? {
                Some(_) => hq_outbox::backlog(conn).map(Some),
                None => Ok(None),
            })
            .await?;
        Ok(backlog.map(|b| Waiting {
            notes: b.notes,
            oldest_age_seconds: b
                .oldest_noted_at
                .as_deref()
                .and_then(crate::domain::time::parse_stored)
                .map(|t| (now - t).num_seconds().max(0)),
            oldest_noted_at: b.oldest_noted_at,
        }))
    }
}
