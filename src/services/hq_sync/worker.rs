//! The worker `serve` runs in a chain: ships the outbox batch after batch, pulls the central
//! catalog, says it is alive (the heartbeat), and sets aside a change the head office refuses so
//! the rest flows. While the HQ is away it tries again at most `MAX_BACKOFF` apart, so a shop
//! catches up within that of the HQ's return.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::{Error, Link};
use crate::domain::time::WallClock;
use crate::hq_client::{self as client, HqClient};
use crate::store::{Store, health, hq_outbox};
use arka_core::wire::{Batch, Entry, HEARTBEAT_EVERY_SECONDS, Heartbeat, Op, key_columns};

/// Notes read per batch (several notes of one row travel as one entry).
pub const BATCH_NOTES: i64 = 2000;
/// Central products per page of the HQ's answer: a full page means more may follow.
const PRODUCTS_PAGE: usize = 1000;
/// How often an idle worker looks for new notes.
const IDLE: Duration = Duration::from_millis(200);
/// The longest a call to the HQ may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest pause between two tries while the HQ is away: the catch-up after its return
/// starts within it.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// The pause after the HQ refused this box or its token: the owner has to act, no hurry.
const REFUSED_BACKOFF: Duration = Duration::from_secs(30);
/// How often an idle worker asks the HQ for products changed there.
const PULL_EVERY: Duration = Duration::from_secs(2);

/// The pause after `current` when the HQ is still away: doubling, never above `MAX_BACKOFF`.
pub fn next_backoff(current: Duration) -> Duration {
    (current * 2).clamp(FIRST_BACKOFF, MAX_BACKOFF)
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

/// Ships one batch and forgets what the HQ acknowledged; how many notes it accounted for. An
/// entry the HQ refuses (a 422 naming it) is set aside with the HQ's reason, and the rest goes
/// with the next batch.
pub fn ship_once(store: &Store, hq: &HqClient, now: DateTime<Utc>) -> Result<usize, Error> {
    let Some(batch) = store.read_blocking(|conn| Ok(next_batch(conn, BATCH_NOTES)))?? else {
        return Ok(0);
    };
    let acked = match hq.ship(&batch) {
        Ok(acked) => acked,
        Err(e) => {
            let Some((place, reason)) = e.refused_entry() else { return Err(e.into()) };
            let Some(entry) = batch.entries.get(place) else { return Err(e.into()) };
            let now = now.to_rfc3339();
            store.write_blocking(|tx| hq_outbox::set_aside(tx, entry.seq, &reason, &now))?;
            tracing::error!(
                seq = entry.seq,
                table = %entry.table,
                %reason,
                "the head office refused a change: it is set aside (kept here, shown to the owner) and the rest flows"
            );
            return Ok(1);
        }
    };
    store.write_blocking_unsynced(|tx| Ok::<_, Error>(hq_outbox::forget_upto(tx, acked.acked)?))
}

/// Takes the products of the shop's businesses set at the HQ since the last pull, page after
/// page; how many.
pub fn pull_catalog(store: &Store, hq: &HqClient, now: DateTime<Utc>) -> Result<usize, Error> {
    let (after, companies) =
        store.read_blocking(|c| Ok((hq_outbox::catalog_version(c)?, hq_outbox::companies(c)?)))?;
    let mut taken = 0;
    let mut newest = after;
    for (company_id, nuis) in companies {
        let mut cursor = after.max(0);
        loop {
            let changed = hq.central_products(&nuis, cursor)?;
            let Some(last) = changed.iter().map(|p| p.version).max() else { break };
            let now = now.to_rfc3339();
            let took = store.write_blocking(|tx| {
                let mut took = Vec::with_capacity(changed.len());
                for product in &changed {
                    took.push((hq_outbox::take_central(tx, company_id, product, &now)?, &product.code));
                }
                Ok::<_, Error>(took)
            })?;
            for (_, code) in took.iter().filter(|(t, _)| matches!(t, hq_outbox::Taken::OwnTakenOver(_))) {
                tracing::warn!(%code, "the head office sets a product of this shop's own code from now on");
            }
            taken += changed.len();
            newest = newest.max(last);
            cursor = last;
            if changed.len() < PRODUCTS_PAGE {
                break;
            }
        }
    }
    if newest > after {
        store.write_blocking(|tx| hq_outbox::set_catalog_version(tx, newest))?;
    }
    Ok(taken)
}

/// What the heartbeat says: what waits for the HQ and for the CIS.
fn heartbeat_of(store: &Store, now: DateTime<Utc>) -> Result<Heartbeat, Error> {
    let age = |at: Option<&str>| {
        at.and_then(crate::domain::time::parse_stored).map(|t| (now - t).num_seconds().max(0))
    };
    let said = store.read_blocking(|conn| {
        let backlog = hq_outbox::backlog(conn)?;
        let queue = health::queue_summary(conn)?;
        let (set_aside, _) = hq_outbox::set_aside_list(conn, 0)?;
        Ok(Heartbeat {
            version: env!("CARGO_PKG_VERSION").to_string(),
            backlog: backlog.notes,
            backlog_oldest_age_seconds: age(backlog.oldest_noted_at.as_deref()),
            cis_queue: queue.depth,
            cis_queue_oldest_age_seconds: age(queue.oldest_issued_at.as_deref()),
            set_aside,
        })
    })?;
    Ok(said)
}

/// What one turn of the worker did.
struct Turn {
    shipped: usize,
    pulled: bool,
    beat: bool,
}

/// One turn at `now` (the server's clock): a batch, and when the outbox is empty the catalog's
/// pull; the heartbeat when due.
fn turn(store: &Store, hq: &HqClient, now: DateTime<Utc>, pull: bool, beat: bool) -> Result<Turn, Error> {
    if beat {
        hq.heartbeat(&heartbeat_of(store, now)?)?;
    }
    let shipped = ship_once(store, hq, now)?;
    let pulled = shipped == 0 && pull;
    if pulled {
        pull_catalog(store, hq, now)?;
    }
    Ok(Turn { shipped, pulled, beat })
}

/// How long to wait after a failed turn, and what to show meanwhile.
fn after_failure(e: &Error, backoff: &mut Duration) -> (Duration, String) {
    let refused = match e {
        Error::Hq(client::Error::Refused { status: 401, .. }) => Some(
            "the head office does not take this shop's token (revoked or rotated: arka hq shops rotate)"
                .to_string(),
        ),
        Error::Hq(refusal @ client::Error::Refused { status: 403 | 409, .. }) => Some(refusal.message()),
        _ => None,
    };
    match refused {
        Some(problem) => (REFUSED_BACKOFF, problem),
        None => {
            let wait = *backoff;
            *backoff = next_backoff(*backoff);
            (wait, format!("the head office is not reachable: {}", crate::error_chain(e)))
        }
    }
}

/// The worker `serve --hq-url` starts: ships until `stop`, batch after batch while a backlog
/// waits, every `IDLE` otherwise, and at most `MAX_BACKOFF` apart while the HQ cannot be reached.
pub async fn run(
    store: Store,
    link: Arc<Link>,
    clock: WallClock,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut backoff = FIRST_BACKOFF;
    let mut failing = false;
    let mut pulled_at: Option<Instant> = None;
    let mut beat_at: Option<Instant> = None;
    let heartbeat_every = Duration::from_secs(HEARTBEAT_EVERY_SECONDS);
    loop {
        if *stop.borrow() {
            break;
        }
        let (s, h) = (store.clone(), link.client.clone());
        let pull = pulled_at.is_none_or(|at| at.elapsed() >= PULL_EVERY);
        let beat = beat_at.is_none_or(|at| at.elapsed() >= heartbeat_every);
        let now = clock.utc();
        let wait = match tokio::task::spawn_blocking(move || turn(&s, &h, now, pull, beat)).await {
            Ok(Ok(done)) => {
                let now = Instant::now();
                pulled_at = if done.pulled { Some(now) } else { pulled_at };
                beat_at = if done.beat { Some(now) } else { beat_at };
                if failing {
                    tracing::info!("the HQ is reachable again; the backlog is shipped oldest first");
                    failing = false;
                }
                link.set_status(None, None);
                backoff = FIRST_BACKOFF;
                // A full batch means a backlog: the next goes at once. Otherwise the notes of the
                // next `IDLE` travel together, one post and one forget for a few sales rather
                // than for each, which is what a selling shop would otherwise pay.
                if done.shipped >= BATCH_NOTES as usize { Duration::ZERO } else { IDLE }
            }
            Ok(Err(e)) => {
                let (wait, problem) = after_failure(&e, &mut backoff);
                if !failing {
                    tracing::warn!(error = %crate::error_chain(&e), "the HQ did not take the outbox; sales go on, it is sent later");
                    failing = true;
                }
                link.set_status(Some(problem), Some(Instant::now() + wait));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_while_the_hq_is_away_doubles_and_never_passes_two_seconds() {
        let mut pause = FIRST_BACKOFF;
        let mut pauses = Vec::new();
        for _ in 0..12 {
            pauses.push(pause.as_millis());
            pause = next_backoff(pause);
        }
        assert_eq!(pauses, [250, 500, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000]);
    }
}
