//! The off-box copy: while `arka serve` runs, the database goes on being copied to a folder on
//! another disk and to an S3-compatible bucket, seconds behind the shop, sealed before it leaves.
//!
//! How (the book's "The copy off the box" says why this way): a turn every `--copy-every`
//! seconds (sooner when the log grows long) reads the frames of the transactions committed since
//! the last turn straight from SQLite's log into a local spool (`capture`), beside the writer and
//! never inside a sale's transaction; a sender per place (`ship`) seals each segment and puts it
//! there, after a base (the database file read page by page, while the shop sells); a restore
//! (`restore`) lays the base down and applies the segments in order. A place that cannot be
//! reached keeps its segments waiting in the spool and catches up when it can; a place that lost
//! its copy, or a database the copy lost the thread of, gets a new generation (a new base).

mod capture;
pub mod format;
mod priority;
pub mod restore;
pub mod sealed;
mod ship;
mod state;
pub mod target;
mod wal;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::domain::copy::{CopyStatus, TargetStatus, Verified};
use crate::store::{CommitWatch, Store};

pub use sealed::CopyKey;
pub use target::{S3Settings, Target};

/// The copy's own key file in the data dir, made by `arka copy key`.
pub const KEY_FILE: &str = "arka-copy.key";

/// Where the copy goes and how often.
#[derive(Debug, Clone)]
pub struct Settings {
    pub folder: Option<PathBuf>,
    pub s3: Option<S3Settings>,
    pub every: Duration,
    /// The key file the copy is sealed with: the copy's own, or the data dir's `arka.key`.
    pub key_file: PathBuf,
    /// How often a restore of each place is made and checked.
    pub verify_every: Duration,
}

impl Settings {
    pub fn places(&self) -> Result<Vec<Target>, target::Error> {
        let mut places = Vec::new();
        if let Some(dir) = &self.folder {
            places.push(Target::Folder(dir.clone()));
        }
        if let Some(s3) = &self.s3 {
            places.push(Target::S3(Box::new(target::S3::new(s3)?)));
        }
        Ok(places)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "the copy is set up but has no key: make one with `arka copy key` (it is printed once: keep it off the box), or name the key file with --copy-key-file ({0})"
    )]
    NoKey(String),
    #[error(transparent)]
    Sealed(#[from] sealed::Error),
    #[error(transparent)]
    Target(#[from] target::Error),
    #[error(transparent)]
    Capture(#[from] capture::Error),
    #[error(transparent)]
    State(#[from] state::Error),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
}

/// The copy's folder in the data dir (state, spool, the verifications' scratch).
pub fn dir_of(data_dir: &Path) -> PathBuf {
    data_dir.join(crate::store::COPY_DIR)
}

/// Makes the copy's folder before the store opens, so that the store leaves the folding back of
/// the log to the copy from its first commit on.
pub fn prepare(data_dir: &Path) -> Result<(), Error> {
    let dir = dir_of(data_dir);
    crate::ops::files::private_dir(&dir).map_err(|e| Error::Io(dir.display().to_string(), e))
}

/// What one place's sender keeps in memory for the status.
#[derive(Default)]
struct Live {
    failing: Mutex<Option<(&'static str, String)>>,
    sent_bytes: AtomicU64,
}

/// What the turns, the senders and the status share.
struct Shared {
    db: PathBuf,
    dir: PathBuf,
    key: CopyKey,
    /// The data dir's `arka.key`, carried in every manifest.
    key_file: Vec<u8>,
    every: Duration,
    verify_every: Duration,
    state: Mutex<state::State>,
    changed: Condvar,
    /// The turns stop (the server is stopping).
    stopping: AtomicBool,
    /// The last turn is done: each sender sends what waits, then ends.
    draining: AtomicBool,
    /// The senders end now (what they have not sent waits in the spool).
    halted: AtomicBool,
    /// A sender waits for a starting point for a base: the next turn folds the log back.
    wants_base: AtomicBool,
    watch: Arc<CommitWatch>,
    places: Vec<(Target, Live)>,
    verifying: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, state::State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Saves `state` (logging a failure: the next save writes it whole again).
    fn save(&self, state: &state::State) {
        if let Err(e) = state::save(&self.dir, state) {
            tracing::error!(error = %crate::error_chain(&e), "the copy's state could not be saved");
        }
    }

    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    fn draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    fn halted(&self) -> bool {
        self.halted.load(Ordering::SeqCst)
    }

    /// Waits up to `most`, or until something changes or the senders are halted.
    fn wait(&self, most: Duration) {
        let state = self.lock();
        if self.halted() {
            return;
        }
        let _ = self.changed.wait_timeout(state, most);
    }
}

/// The copy while the server runs: its turns and its senders.
pub struct Copy {
    shared: Arc<Shared>,
    capture: Option<(JoinHandle<capture::Capture>, Store)>,
    senders: Vec<JoinHandle<()>>,
}

/// The handle the owner's page, `/healthz` and `/metrics` read the copy through.
#[derive(Clone)]
pub struct Watch(Option<Arc<Shared>>, Option<String>);

impl Watch {
    /// No copy set up.
    pub fn off() -> Watch {
        Watch(None, None)
    }

    /// A copy set up that could not start, and why.
    pub fn not_running(why: String) -> Watch {
        Watch(None, Some(why))
    }

    pub fn status(&self) -> CopyStatus {
        match (&self.0, &self.1) {
            (Some(shared), _) => CopyStatus::Running(status(shared)),
            (None, Some(why)) => CopyStatus::NotRunning(why.clone()),
            (None, None) => CopyStatus::Off,
        }
    }

    /// Starts a verified restore of every place now (the owner asked); false when one runs.
    pub fn verify_now(&self) -> bool {
        match &self.0 {
            Some(shared) => ship::verify_all(shared.clone()),
            None => false,
        }
    }
}

fn utc(ms: i64) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::from_timestamp_millis(ms)
}

fn status(shared: &Shared) -> Vec<TargetStatus> {
    let state = shared.lock();
    let now = chrono::Utc::now().timestamp_millis();
    let unread = shared.watch.first_unread();
    shared
        .places
        .iter()
        .map(|(target, live)| {
            let place = state.places.get(target.name()).cloned().unwrap_or_default();
            let holds = place.complete();
            let oldest_missing = match holds {
                Some(g) => state.spool.range(g.shipped_through + 1..).next().map(|(_, s)| s.first_commit_ms),
                None => Some(state.spool.values().next().map_or(now, |s| s.first_commit_ms)),
            };
            let since = [oldest_missing, unread].into_iter().flatten().min();
            TargetStatus {
                target: target.name(),
                missing_since: since.and_then(utc),
                last_sent_at: place.last_sent_ms.and_then(utc),
                base: place.building().map(|g| (g.parts_sent, g.parts)),
                restorable: holds.is_some(),
                failing: live.failing.lock().ok().and_then(|f| f.clone()),
                verified: place.verified.as_ref().and_then(|v| {
                    Some(Verified {
                        at: utc(v.at_ms)?,
                        through: utc(v.through_ms)?,
                        invoices: v.invoices,
                        outcome: v.failure.clone().map_or(Ok(()), Err),
                    })
                }),
                sent_bytes: live.sent_bytes.load(Ordering::Relaxed),
            }
        })
        .collect()
}

impl Copy {
    /// Starts the copy of the store's database (opened after `prepare`): checks that what the
    /// copy kept of itself still describes the database (else a new generation everywhere),
    /// then starts the turns and a sender per place.
    pub fn start(settings: &Settings, store: &Store) -> Result<Copy, Error> {
        let db = store.path().to_path_buf();
        let data_dir = db.parent().map(Path::to_path_buf).unwrap_or_default();
        let dir = dir_of(&data_dir);
        let watch = store
            .commit_watch()
            .ok_or_else(|| Error::NoKey("the copy's folder was not made first".into()))?;
        if !settings.key_file.exists() {
            return Err(Error::NoKey(settings.key_file.display().to_string()));
        }
        let key = CopyKey::load(&settings.key_file)?;
        let key_path = data_dir.join("arka.key");
        let key_file = std::fs::read(&key_path).map_err(|e| Error::Io(key_path.display().to_string(), e))?;
        let places = settings.places()?;
        let mut state = state::load(&dir).unwrap_or_default();
        let fresh = state == state::State::default();
        if let Err(why) = capture::continues(&state, &db) {
            if !fresh {
                tracing::warn!(%why, "the copy starts a new generation everywhere");
            }
            state = state::State {
                next_seq: state.next_seq.max(1),
                places: state.places,
                file: state::FileStamp::of(&db).map_err(|e| Error::Io(db.display().to_string(), e))?,
                ..state::State::default()
            };
            for f in std::fs::read_dir(dir.join("spool")).into_iter().flatten().flatten() {
                let _ = std::fs::remove_file(f.path());
            }
            for place in state.places.values_mut() {
                place.needs_base = true;
                for g in &mut place.generations {
                    g.frozen = true;
                }
            }
        }
        for target in &places {
            state
                .places
                .entry(target.name().to_string())
                .or_insert_with(|| state::Place { needs_base: true, ..state::Place::default() });
        }
        state::save(&dir, &state)?;
        let shared = Arc::new(Shared {
            db: db.clone(),
            dir: dir.clone(),
            key,
            key_file,
            every: settings.every,
            verify_every: settings.verify_every,
            state: Mutex::new(state),
            changed: Condvar::new(),
            stopping: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            halted: AtomicBool::new(false),
            wants_base: AtomicBool::new(false),
            watch,
            places: places.into_iter().map(|t| (t, Live::default())).collect(),
            verifying: AtomicBool::new(false),
        });
        let capture = capture::Capture::open(&db, &dir)?;
        let turns = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("arka-copy".into())
                .spawn(move || {
                    priority::below_sales();
                    turns(&shared, capture)
                })
                .map_err(|e| Error::Io("a thread".into(), e))?
        };
        let mut senders = Vec::new();
        for index in 0..shared.places.len() {
            let shared = shared.clone();
            senders.push(
                std::thread::Builder::new()
                    .name(format!("arka-copy-{}", shared.places[index].0.name()))
                    .spawn(move || {
                        priority::below_sales();
                        ship::run(&shared, index)
                    })
                    .map_err(|e| Error::Io("a thread".into(), e))?,
            );
        }
        tracing::info!(
            places = %shared.places.iter().map(|(t, _)| t.name()).collect::<Vec<_>>().join(", "),
            every_seconds = settings.every.as_secs(),
            "the off-box copy runs"
        );
        Ok(Copy { shared, capture: Some((turns, store.clone())), senders })
    }

    pub fn watch(&self) -> Watch {
        Watch(Some(self.shared.clone()), None)
    }

    /// At the stop, once nothing writes any more: the last turn reads what is left and folds the
    /// log back whole; the senders get up to `grace` to send what waits (the rest waits in the
    /// spool for the next start).
    pub fn stop(mut self, grace: Duration) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        self.shared.watch.wake();
        if let Some((turns, store)) = self.capture.take() {
            match turns.join() {
                Ok(mut capture) => {
                    let mut state = self.shared.lock().clone();
                    match store.with_writes_held(|| capture.last(&mut state)) {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => {
                            tracing::error!(error = %crate::error_chain(&e), "the copy's last turn failed")
                        }
                        Err(e) => {
                            tracing::error!(error = %crate::error_chain(&e), "the copy's last turn failed")
                        }
                    }
                    *self.shared.lock() = state.clone();
                    self.shared.save(&state);
                }
                Err(_) => tracing::error!("the copy's turns stopped on a panic"),
            }
        }
        let deadline = std::time::Instant::now() + grace;
        self.shared.draining.store(true, Ordering::SeqCst);
        self.shared.changed.notify_all();
        for sender in &self.senders {
            while !sender.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.shared.halted.store(true, Ordering::SeqCst);
        self.shared.changed.notify_all();
        for sender in self.senders.drain(..) {
            if sender.is_finished() {
                let _ = sender.join();
            } else {
                tracing::warn!(
                    "a place of the copy did not take the last segments in time: they wait in the spool for the next start"
                );
            }
        }
    }
}

/// The turns until the stop: each at `every`, or sooner when the writer says the log is long.
fn turns(shared: &Shared, mut capture: capture::Capture) -> capture::Capture {
    let mut broken_reported = false;
    while !shared.stopping() {
        let long = shared.watch.wait_for_long_log(shared.every);
        if shared.stopping() {
            break;
        }
        let wants_base = shared.wants_base.load(Ordering::SeqCst);
        let (commits, first_commit) = shared.watch.unread();
        let mut state = shared.lock().clone();
        let fold = long || wants_base || folding_due(&state);
        match capture.turn(&mut state, fold, first_commit) {
            Ok(turn) => {
                broken_reported = false;
                if turn.folded && state.base_point.is_some() {
                    shared.wants_base.store(false, Ordering::SeqCst);
                }
                let mut kept = shared.lock();
                merge_turn(&mut kept, state);
                shared.save(&kept);
                drop(kept);
                shared.watch.read_through(commits, first_commit);
                if turn.segments > 0 || turn.folded {
                    shared.changed.notify_all();
                }
            }
            Err(capture::Error::Broken(why)) => {
                if !broken_reported {
                    tracing::error!(%why, "the copy lost the thread of the database: it starts a new generation everywhere");
                    broken_reported = true;
                }
                let mut kept = shared.lock();
                restart_everywhere(shared, &mut kept);
                shared.save(&kept);
            }
            Err(e) => {
                tracing::warn!(error = %crate::error_chain(&e), "a turn of the copy failed; the next one reads again")
            }
        }
    }
    capture
}

/// The log is folded back at least once in a while even when short, so the file stays close to
/// the copy's bases (a frame read long ago still only in the log costs a restart nothing, but
/// the log's index grows with it).
fn folding_due(state: &state::State) -> bool {
    state.log.is_some_and(|l| l.frames > state.folded && l.frames - state.folded >= 2_000)
}

/// A turn's reading of the log into the state the senders changed meanwhile: they change only
/// the places, and remove from the spool segments every place has (those older than the turn).
fn merge_turn(kept: &mut state::State, turn: state::State) {
    let removed: Vec<u64> = turn
        .spool
        .keys()
        .filter(|seq| **seq < kept.next_seq && !kept.spool.contains_key(seq))
        .copied()
        .collect();
    let places = std::mem::take(&mut kept.places);
    *kept = state::State { places, ..turn };
    for seq in removed {
        kept.spool.remove(&seq);
    }
}

/// The copy lost the thread: its reading starts again from the log as it is, and every place
/// gets a new base (what it holds stays a restore point up to where it was sent).
fn restart_everywhere(shared: &Shared, state: &mut state::State) {
    state.log = None;
    state.folded = 0;
    state.folded_all = false;
    state.base_point = None;
    for seq in std::mem::take(&mut state.spool).into_keys() {
        let _ = std::fs::remove_file(state::spool_file(&shared.dir, seq));
    }
    for place in state.places.values_mut() {
        place.needs_base = true;
        for g in &mut place.generations {
            g.frozen = true;
        }
    }
    if let Ok(stamp) = state::FileStamp::of(&shared.db) {
        state.file = stamp;
    }
}

/// `arka copy key`: a new key file at `path`, printed once.
pub fn make_key(path: &Path) -> Result<String, Error> {
    Ok(sealed::create_key_file(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(folder: &Path, data: &Path) -> Settings {
        Settings {
            folder: Some(folder.to_path_buf()),
            s3: None,
            every: Duration::from_millis(200),
            key_file: data.join(KEY_FILE),
            verify_every: Duration::from_secs(3600),
        }
    }

    fn open(data: &Path) -> Store {
        prepare(data).unwrap();
        let store = Store::open(&data.join("arka.db")).unwrap();
        crate::ops::secrets::KeyFile::load_or_create(&data.join("arka.key")).unwrap();
        store
    }

    fn write(store: &Store, rows: usize) {
        store
            .write_blocking::<_, crate::store::Error>(|tx| {
                tx.execute_batch("CREATE TABLE IF NOT EXISTS notes (text TEXT NOT NULL)")?;
                for i in 0..rows {
                    tx.execute(
                        "INSERT INTO notes (text) VALUES (?1)",
                        [format!("note {i} {}", "x".repeat(200))],
                    )?;
                }
                Ok(())
            })
            .unwrap();
    }

    fn rows(db: &Path) -> i64 {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.query_row("SELECT COUNT(*) AS n FROM notes", [], |r| r.get("n")).unwrap()
    }

    fn caught_up(copy: &Copy) {
        for _ in 0..300 {
            if let CopyStatus::Running(places) = copy.watch().status()
                && places.iter().all(|p| p.restorable && p.missing_since.is_none())
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the copy did not catch up: {:?}", copy.watch().status());
    }

    #[test]
    fn a_copy_restores_to_its_newest_state_or_to_a_time_between() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let folder = dir.path().join("copy");
        let store = open(&data);
        make_key(&data.join(KEY_FILE)).unwrap();
        write(&store, 1);
        let copy = Copy::start(&settings(&folder, &data), &store).unwrap();
        write(&store, 30);
        caught_up(&copy);
        let between = chrono::Utc::now().timestamp_millis();
        std::thread::sleep(Duration::from_millis(5));
        write(&store, 20);
        caught_up(&copy);
        let key = CopyKey::load(&data.join(KEY_FILE)).unwrap();
        let target = Target::Folder(folder.clone());
        let newest = dir.path().join("newest.db");
        restore::rebuild(&key, &target, None, &newest).unwrap();
        assert_eq!(rows(&newest), 51);
        let then = dir.path().join("then.db");
        let rebuilt = restore::rebuild(&key, &target, Some(between), &then).unwrap();
        assert_eq!(rows(&then), 31, "{rebuilt:?}");
        copy.stop(Duration::from_secs(5));
    }

    #[test]
    fn under_steady_writes_every_place_restores_exactly_what_was_committed() {
        for round in 0..3 {
            let dir = tempfile::tempdir().unwrap();
            let data = dir.path().join("data");
            let store = open(&data);
            make_key(&data.join(KEY_FILE)).unwrap();
            write(&store, 1);
            let mut both = settings(&dir.path().join("one"), &data);
            both.every = Duration::from_millis(20);
            let copy = Copy::start(&both, &store).unwrap();
            for _ in 0..40 {
                write(&store, 7);
                std::thread::sleep(Duration::from_millis(3));
            }
            caught_up(&copy);
            let key = CopyKey::load(&data.join(KEY_FILE)).unwrap();
            let into = dir.path().join("restored.db");
            restore::rebuild(&key, &Target::Folder(dir.path().join("one")), None, &into).unwrap();
            assert_eq!(rows(&into), 281, "round {round}");
            copy.stop(Duration::from_secs(5));
        }
    }

    #[test]
    fn a_stopped_copy_goes_on_with_its_state_and_a_changed_file_starts_anew() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let folder = dir.path().join("copy");
        let store = open(&data);
        make_key(&data.join(KEY_FILE)).unwrap();
        let copy = Copy::start(&settings(&folder, &data), &store).unwrap();
        write(&store, 50);
        copy.stop(Duration::from_secs(5));
        drop(store);
        let state = state::load(&dir_of(&data)).unwrap();
        assert!(state.folded_all, "{state:?}");
        assert_eq!(capture::continues(&state, &data.join("arka.db")), Ok(()));

        let store = open(&data);
        assert_eq!(capture::continues(&state, &data.join("arka.db")), Ok(()), "opening changes nothing");
        write(&store, 5);
        assert_eq!(capture::continues(&state, &data.join("arka.db")), Ok(()), "a write goes to a new log");
        drop(store);

        let conn = rusqlite::Connection::open(data.join("arka.db")).unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
        drop(conn);
        assert!(capture::continues(&state, &data.join("arka.db")).is_err(), "folded back by another");
    }
}
