//! One fsync of the write-ahead log for many commits. A transaction committed without waiting
//! for the disk (`synchronous=NORMAL`) is in the log but not yet on it; syncing the log file makes
//! it, and every commit before it, durable (WAL recovery keeps a prefix of the log, so a later
//! commit never survives without the earlier ones). The sync runs outside the writer connection:
//! the next transactions go on while the disk works, and every caller that asks while a sync runs
//! is covered by the next one, so under load one fsync serves many documents.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Result;

pub struct LogSync {
    wal: PathBuf,
    /// Tickets handed out: one per caller, taken after its commit.
    asked: AtomicU64,
    /// The highest ticket a finished sync covers.
    done: AtomicU64,
    /// Callers queue here; whoever holds it either finds itself covered by the sync before, or
    /// runs the next one for everyone who asked so far.
    syncing: Mutex<()>,
}

impl LogSync {
    /// The log of the database at `db`.
    pub fn new(db: &std::path::Path) -> LogSync {
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        LogSync {
            wal: PathBuf::from(wal),
            asked: AtomicU64::new(0),
            done: AtomicU64::new(0),
            syncing: Mutex::new(()),
        }
    }

    /// Returns once every transaction committed before the call is on the disk. Blocks the
    /// calling thread (never an async worker: the blocking pool, or one made blocking by
    /// `block_in_place`) while it syncs or waits for the sync that covers it.
    pub fn durable(&self) -> Result<()> {
        let ticket = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
        let _syncing = match self.syncing.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if self.done.load(Ordering::SeqCst) >= ticket {
            return Ok(());
        }
        // Everything asked so far was committed before now: this sync covers it.
        let covered = self.asked.load(Ordering::SeqCst);
        sync_file(&self.wal)?;
        self.done.fetch_max(covered, Ordering::SeqCst);
        Ok(())
    }
}

#[cfg(test)]
impl LogSync {
    /// (syncs asked for, syncs covered): equal once every caller's sync has run.
    pub(super) fn tickets(&self) -> (u64, u64) {
        (self.asked.load(Ordering::SeqCst), self.done.load(Ordering::SeqCst))
    }
}

/// Flushes the log file to the disk. It is opened afresh each time, so a log SQLite restarted
/// is the one synced; with no log there is nothing committed that is not in the database file.
fn sync_file(wal: &std::path::Path) -> Result<()> {
    match std::fs::OpenOptions::new().write(true).open(wal) {
        Ok(file) => Ok(file.sync_data()?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::store::Store;

    #[test]
    fn every_caller_returns_once_a_sync_after_its_commit_has_run() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let log = Arc::new(LogSync::new(&dir.path().join("arka.db")));
        let mut waiting = Vec::new();
        for i in 0..20 {
            store
                .write_blocking_unsynced(move |tx| {
                    crate::store::accounts::insert_partner(tx, &format!("partner {i}"), &format!("h{i}"))
                })
                .unwrap();
            let log = log.clone();
            waiting.push(std::thread::spawn(move || log.durable()));
        }
        for w in waiting {
            w.join().unwrap().unwrap();
        }
        let asked = log.asked.load(Ordering::SeqCst);
        assert_eq!(asked, 20);
        assert_eq!(log.done.load(Ordering::SeqCst), asked, "the last sync covers every ticket");
        let nothing = LogSync::new(&dir.path().join("none.db"));
        nothing.durable().unwrap();
    }
}
