//! Backups of the data dir while the server runs, and restores while it does not.
//!
//! A backup is two files: the database (`NAME.db`, one self-contained SQLite file) and the key
//! file beside it (`NAME.db.key`), without which the sealed certificate keys in the database
//! cannot be opened. The copy is SQLite's online backup read inside one read transaction, so it
//! is the database as one instant saw it, however many invoices are issued meanwhile (WAL lets
//! the writer go on). Every backup is checked with `PRAGMA integrity_check` before it is kept,
//! except the one taken before an upgrade migrates: the shop would wait for the check (over 18
//! minutes for a decade's 25 GiB), so that copy is kept with a marker saying it is unchecked and
//! checked in the background once the server answers (`check_pending`); a damaged one is renamed.
//!
//! A backup stopped midway leaves its `.partial` file; automatic backups and `serve` sweep those
//! of the backup folder (`sweep_leftovers`), never one a running backup writes: each backup named
//! like the automatic ones holds the folder's lock shared while it writes, the sweep exclusively.
//!
//! A restore compares the numbering of the backup with the database it replaces: documents the
//! backup predates were numbered, and mostly registered by the CIS, after it. Restoring over them
//! would give the next documents their numbers again, so it is refused unless forced; forced, the
//! restored database keeps the replaced one's last numbers as floors (`store::numbering`) and
//! numbers after them.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Europe::Tirane;
use rusqlite::backup::StepResult;
use rusqlite::{Connection, ErrorCode, OpenFlags};

pub mod night;
pub mod sums;

pub use night::{NIGHT_BUDGET, full_check};

use crate::config::{BackupSchedule, CheckGate};
use crate::domain::backup_files::{self, DAMAGED, FOLDER_LOCK, PARTIAL, UNCHECKED};
use crate::domain::numbering::{LastNumber, SideBySide, side_by_side};
use crate::ops::data_lock;
use crate::ops::secrets::{self, KeyFile};
use crate::store;
use crate::store::numbering::{self, Floor};

/// Pages copied per step of the online backup (4 MiB with SQLite's 4 KiB pages): small enough
/// for a progress bar that moves, large enough to be quick.
const PAGES_PER_STEP: i32 = 1024;
/// Steps that may find the source busy in a row before the backup gives up.
const BUSY_STEPS: u32 = 500;
/// Local time of the nightly backup.
const NIGHTLY_AT: NaiveTime = match NaiveTime::from_hms_opt(3, 0, 0) {
    Some(t) => t,
    None => NaiveTime::MIN,
};

#[derive(Debug)]
pub enum Error {
    NoDatabase(PathBuf),
    NoKeyFile(PathBuf),
    Exists(PathBuf),
    Io(PathBuf, std::io::Error),
    Sqlite(PathBuf, rusqlite::Error),
    /// `PRAGMA integrity_check` found damage; carries its first lines.
    Damaged(PathBuf, String),
    /// The file is an SQLite database but not one of Arka's.
    NotArka(PathBuf),
    /// Made by a newer Arka than this binary.
    NewerSchema {
        path: PathBuf,
        version: i64,
        supported: i64,
    },
    /// The key file does not open the certificate keys sealed in the database.
    WrongKey(PathBuf),
    Locked(data_lock::Error),
    /// The database to be replaced holds documents numbered after the backup's (restore without
    /// `force`).
    Predates(Vec<Predated>),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoDatabase(p) => write!(f, "there is no database at {}", p.display()),
            Error::NoKeyFile(p) => write!(
                f,
                "the key file {} is missing: without it the certificate keys in the database cannot be opened",
                p.display()
            ),
            Error::Exists(p) => write!(f, "{} already exists; choose another name", p.display()),
            Error::Io(p, e) => write!(f, "{}: {e}", p.display()),
            Error::Sqlite(p, e) => write!(f, "{}: {e}", p.display()),
            Error::Damaged(p, report) => write!(f, "{} is damaged (integrity_check: {report})", p.display()),
            Error::NotArka(p) => write!(f, "{} is not an Arka database", p.display()),
            Error::NewerSchema { path, version, supported } => write!(
                f,
                "{} has schema version {version}, newer than this Arka knows ({supported}): upgrade Arka first",
                path.display()
            ),
            Error::WrongKey(p) => {
                write!(f, "the key file {} does not open the certificate keys in the backup", p.display())
            }
            Error::Locked(e) => write!(f, "{e}"),
            Error::Predates(predated) => {
                let documents: i64 = predated.iter().map(|p| p.documents).sum();
                let registered: i64 = predated.iter().map(|p| p.registered).sum();
                writeln!(
                    f,
                    "the database being replaced holds {documents} documents numbered after the backup's ({registered} of them registered by the CIS):"
                )?;
                for p in predated {
                    writeln!(f, "  {p}")?;
                }
                write!(
                    f,
                    "Restoring the backup as it is would rewind these numbers: the next documents would take numbers \
                     the CIS already holds. If the database in the data dir still works, keep it and take a new backup \
                     (arka backup) instead. If it must be replaced, run the restore again with --force: the numbering \
                     then continues after the replaced database's last numbers, and the newer documents stay in the \
                     replaced file only (docs, \"Backup and restore\": /docs/operations.html#backup-and-restore)."
                )
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(_, e) => Some(e),
            Error::Sqlite(_, e) => Some(e),
            Error::Locked(e) => Some(e),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// The key file that belongs to the backup `db`.
pub fn key_path_of(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".key");
    PathBuf::from(name)
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::Io(path.to_path_buf(), e)
}

fn sqlite(path: &Path) -> impl FnOnce(rusqlite::Error) -> Error + '_ {
    move |e| Error::Sqlite(path.to_path_buf(), e)
}

/// How far a backup is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub copied_pages: u64,
    pub total_pages: u64,
}

/// A backup that was written (and checked, unless its check was left for later: a marker beside
/// it says so).
#[derive(Debug, Clone)]
pub struct Made {
    pub db: PathBuf,
    pub key: PathBuf,
    pub bytes: u64,
    pub schema_version: i64,
}

/// When a backup's copy is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    /// Before it is kept.
    Now,
    /// In the background once the server answers (`check_pending`); a marker says so meanwhile.
    Later,
    /// By the nightly check, a share each night (`night`).
    ByNights,
}

/// Runs `PRAGMA integrity_check` on `conn`.
fn integrity(conn: &Connection, path: &Path) -> Result<()> {
    let mut stmt = conn.prepare("PRAGMA integrity_check").map_err(sqlite(path))?;
    let lines = stmt
        .query_map([], |r| r.get::<_, String>("integrity_check"))
        .map_err(sqlite(path))?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(sqlite(path))?;
    if lines == ["ok"] {
        Ok(())
    } else {
        Err(Error::Damaged(path.to_path_buf(), lines.into_iter().take(5).collect::<Vec<_>>().join("; ")))
    }
}

fn sync_file(path: &Path) -> Result<()> {
    std::fs::File::open(path).and_then(|f| f.sync_all()).map_err(io(path))
}

/// Copies the database `db` (while a server may be writing to it) and its key file `key` to
/// `to` and `to.key`, calling `progress` after each step. Never overwrites: `to` must not exist.
pub fn backup(db: &Path, key: &Path, to: &Path, mut progress: impl FnMut(Progress)) -> Result<Made> {
    take(db, key, to, &mut progress, When::Now)
}

fn take(db: &Path, key: &Path, to: &Path, progress: &mut impl FnMut(Progress), when: When) -> Result<Made> {
    if !db.exists() {
        return Err(Error::NoDatabase(db.to_path_buf()));
    }
    if !key.exists() {
        return Err(Error::NoKeyFile(key.to_path_buf()));
    }
    let to_key = key_path_of(to);
    for target in [to, to_key.as_path()] {
        if target.exists() {
            return Err(Error::Exists(target.to_path_buf()));
        }
    }
    let dir = to.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let _writing = match to.file_name().and_then(|n| n.to_str()) {
        Some(name) if backup_files::takes_folder_lock(name) => Some(writer_lock(dir)?),
        _ => None,
    };
    let partial = sibling(to, PARTIAL);
    let marker = sibling(to, UNCHECKED);
    let result = copy_database(db, &partial, progress, when).and_then(|schema_version| {
        sync_file(&partial)?;
        if when == When::Later {
            // The marker is there before the copy has its name: no instant shows it as checked.
            crate::ops::files::private_file(&marker).map_err(io(&marker))?;
        }
        std::fs::rename(&partial, to).map_err(io(to))?;
        let key_bytes = std::fs::read(key).map_err(io(key))?;
        secrets::write_private(&to_key, &key_bytes).map_err(io(&to_key))?;
        let bytes = std::fs::metadata(to).map_err(io(to))?.len();
        Ok(Made { db: to.to_path_buf(), key: to_key.clone(), bytes, schema_version })
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
        if !to.exists() {
            let _ = std::fs::remove_file(&marker);
        }
    }
    result
}

/// The backup folder's lock file, opened (created 0600 when missing).
fn folder_lock_file(dir: &Path) -> Result<(File, PathBuf)> {
    let path = dir.join(FOLDER_LOCK);
    crate::ops::files::private_file(&path).map_err(io(&path))?;
    let file = OpenOptions::new().write(true).open(&path).map_err(io(&path))?;
    Ok((file, path))
}

/// Held by a backup while it writes its partial in `dir`: shared, so backups run side by side;
/// waits only while a sweep (exclusive, a directory listing long) runs.
fn writer_lock(dir: &Path) -> Result<File> {
    let (file, path) = folder_lock_file(dir)?;
    file.lock_shared().map_err(io(&path))?;
    Ok(file)
}

/// A backup's leftover the sweep removed, and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    pub file: String,
    pub bytes: u64,
}

/// Removes from `dir` what backups stopped midway (killed, power cut) left, `arka-*.db.partial`,
/// unless a backup is writing in the folder now: then they wait for the next sweep. Logs each
/// file removed.
pub fn sweep_leftovers(dir: &Path) -> Result<Vec<Leftover>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let (lock, path) = folder_lock_file(dir)?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            tracing::info!(dir = %dir.display(), "a backup is being written in the backup folder: its leftovers wait for the next sweep");
            return Ok(Vec::new());
        }
        Err(TryLockError::Error(e)) => return Err(Error::Io(path, e)),
    }
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let Ok(file) = entry.file_name().into_string() else { continue };
        if !backup_files::is_leftover(&file) {
            continue;
        }
        let bytes = entry.metadata().map(|m| m.len()).unwrap_or(0);
        let leftover = entry.path();
        std::fs::remove_file(&leftover).map_err(io(&leftover))?;
        tracing::warn!(file, bytes, dir = %dir.display(), "removed what a backup stopped midway left");
        removed.push(Leftover { file, bytes });
    }
    Ok(removed)
}

/// The online copy itself, into `partial` (created 0600); returns the copy's schema version.
fn copy_database(db: &Path, partial: &Path, progress: &mut impl FnMut(Progress), when: When) -> Result<i64> {
    if partial.exists() {
        std::fs::remove_file(partial).map_err(io(partial))?;
    }
    // An empty file is an empty database; creating it first gives the copy the key's privacy.
    secrets::write_private(partial, b"").map_err(io(partial))?;
    // Read-write flags without CREATE: a read-only connection cannot open a WAL database whose
    // -shm file is missing (no server running). Nothing is written through it.
    let source =
        Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .map_err(sqlite(db))?;
    source.busy_timeout(Duration::from_secs(5)).map_err(sqlite(db))?;
    // One read transaction across every step: each step reads the same snapshot, so the copy is
    // consistent and is never restarted by the server's writes.
    source.execute_batch("BEGIN; SELECT COUNT(*) FROM sqlite_schema;").map_err(sqlite(db))?;
    let mut copy = Connection::open(partial).map_err(sqlite(partial))?;
    {
        let backup = rusqlite::backup::Backup::new(&source, &mut copy).map_err(sqlite(partial))?;
        let mut busy = 0;
        loop {
            let step = backup.step(PAGES_PER_STEP).map_err(sqlite(db))?;
            let p = backup.progress();
            let total = u64::try_from(p.pagecount).unwrap_or(0);
            let remaining = u64::try_from(p.remaining).unwrap_or(0);
            progress(Progress { copied_pages: total.saturating_sub(remaining), total_pages: total });
            match step {
                StepResult::Done => break,
                StepResult::More => busy = 0,
                StepResult::Busy | StepResult::Locked => {
                    busy += 1;
                    if busy > BUSY_STEPS {
                        return Err(Error::Sqlite(
                            db.to_path_buf(),
                            rusqlite::Error::SqliteFailure(
                                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                                None,
                            ),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => {}
            }
        }
    }
    source.execute_batch("COMMIT").map_err(sqlite(db))?;
    // The copy inherits WAL mode from the source; a backup should be one self-contained file.
    copy.pragma_update(None, "journal_mode", "DELETE").map_err(sqlite(partial))?;
    if when == When::Now {
        integrity(&copy, partial)?;
    }
    let version = store::schema_version(&copy).map_err(|e| store_error(partial, e))?;
    copy.close().map_err(|(_, e)| Error::Sqlite(partial.to_path_buf(), e))?;
    Ok(version)
}

fn store_error(path: &Path, e: store::Error) -> Error {
    match e {
        store::Error::Sqlite(e) => Error::Sqlite(path.to_path_buf(), e),
        other => Error::Damaged(path.to_path_buf(), other.to_string()),
    }
}

fn checkpoint(db: &Path) -> rusqlite::Result<()> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    conn.close().map_err(|(_, e)| e)
}

/// A sequence the backup predates: the replaced database numbered documents after the
/// backup's last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Predated {
    pub last: SideBySide,
    /// The replaced database's documents numbered after the backup's last.
    pub documents: i64,
    /// Of those, the ones the CIS registered (the others were waiting for it).
    pub registered: i64,
    /// The company is in the backup; one registered after it cannot keep a floor there.
    pub company_in_backup: bool,
}

impl std::fmt::Display for Predated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = &self.last;
        let year = l.year;
        write!(f, "{} (company {}), {}, {year}: ", l.nuis, l.company_id, l.sequence)?;
        if l.backup == 0 {
            write!(f, "the backup has none, the replaced database ends at {}/{year}", l.replaced)?;
        } else {
            write!(
                f,
                "the backup ends at {}/{year}, the replaced database at {}/{year}",
                l.backup, l.replaced
            )?;
        }
        let first = l.backup + 1;
        match self.documents {
            0 => write!(f, " (its floor, no documents)")?,
            1 => write!(f, ": 1 newer ({first}/{year})")?,
            n => write!(f, ": {n} newer ({first}/{year} to {}/{year})", l.replaced)?,
        }
        if self.documents > 0 {
            write!(f, ", {} registered by the CIS", self.registered)?;
        }
        if !self.company_in_backup {
            write!(f, "; the company is not in the backup")?;
        }
        Ok(())
    }
}

/// What a restore found comparing the numbering of the backup with the replaced database's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Numbering {
    /// There was no database to replace.
    NothingReplaced,
    /// The replaced database did not read (`why`): the numbers it reached are unknown; the
    /// backup's, to compare with what the CIS holds.
    Unreadable { why: String, backup: Vec<LastNumber> },
    /// Every sequence of either database with its last number in each, and those the backup
    /// predates. A replaced database that reads but is `damaged` (what `quick_check` found) may
    /// have issued more than what was read of it.
    Compared { sequences: Vec<SideBySide>, predated: Vec<Predated>, damaged: Option<String> },
}

impl Numbering {
    fn predated(&self) -> &[Predated] {
        match self {
            Numbering::Compared { predated, .. } => predated,
            Numbering::NothingReplaced | Numbering::Unreadable { .. } => &[],
        }
    }
}

/// What `restore` did.
#[derive(Debug, Clone)]
pub struct Restored {
    pub from: PathBuf,
    pub db: PathBuf,
    pub schema_version: i64,
    pub invoices: i64,
    /// Where the database (and key file) that were replaced were kept.
    pub replaced_db: Option<PathBuf>,
    pub replaced_key: Option<PathBuf>,
    pub numbering: Numbering,
    /// The replaced database's last numbers the restored one numbers after.
    pub floors: Vec<Floor>,
}

/// The backup's numbering beside the database at `db` that it would replace.
fn compare(db: &Path, from: &Path) -> Result<Numbering> {
    if !db.exists() {
        return Ok(Numbering::NothingReplaced);
    }
    let backup = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite(from))?;
    let in_backup = numbering::last_numbers(&backup).map_err(|e| store_error(from, e))?;
    // Read-write flags without CREATE, as for a backup: the database may be in WAL mode without
    // its -shm file. Nothing is written through it.
    let replaced = match Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(store::Error::Sqlite)
        .and_then(|conn| numbering::last_numbers(&conn).map(|last| (conn, last)))
    {
        Ok(read) => read,
        Err(e) => return Ok(Numbering::Unreadable { why: e.to_string(), backup: in_backup }),
    };
    let (conn, in_replaced) = replaced;
    let damaged = quick_check(&conn).err();
    let sequences = side_by_side(&in_backup, &in_replaced);
    let mut predated = Vec::new();
    for last in sequences.iter().filter(|s| s.predated()) {
        let counted =
            numbering::documents_after(&conn, last.company_id, &last.sequence, last.year, last.backup);
        let (documents, registered) = match counted {
            Ok(counted) => counted,
            Err(e) => return Ok(Numbering::Unreadable { why: e.to_string(), backup: in_backup }),
        };
        let company_in_backup =
            numbering::has_company(&backup, last.company_id).map_err(|e| store_error(from, e))?;
        predated.push(Predated { last: last.clone(), documents, registered, company_in_backup });
    }
    Ok(Numbering::Compared { sequences, predated, damaged })
}

/// `PRAGMA quick_check` of the replaced database: its first lines when it finds damage.
fn quick_check(conn: &Connection) -> std::result::Result<(), String> {
    let lines = conn
        .prepare("PRAGMA quick_check")
        .and_then(|mut stmt| {
            stmt.query_map([], |r| r.get::<_, String>("quick_check"))?.collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| e.to_string())?;
    if lines == ["ok"] { Ok(()) } else { Err(lines.into_iter().take(3).collect::<Vec<_>>().join("; ")) }
}

/// Checks the backup `from` (and `from.key`): integrity, an Arka schema no newer than this
/// binary's, a key that opens its certificates. Returns its schema version and invoice count.
pub fn check(from: &Path) -> Result<(i64, i64)> {
    if !from.exists() {
        return Err(Error::NoDatabase(from.to_path_buf()));
    }
    let key_path = key_path_of(from);
    if !key_path.exists() {
        return Err(Error::NoKeyFile(key_path));
    }
    let conn = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite(from))?;
    integrity(&conn, from).map_err(|e| match e {
        // Not a database at all reads as damage to SQLite ("file is not a database").
        Error::Sqlite(p, err) => Error::Damaged(p, err.to_string()),
        other => other,
    })?;
    let version = store::schema_version(&conn).map_err(|e| store_error(from, e))?;
    let supported = store::latest_schema_version();
    if version == 0 {
        return Err(Error::NotArka(from.to_path_buf()));
    }
    if version > supported {
        return Err(Error::NewerSchema { path: from.to_path_buf(), version, supported });
    }
    let key = KeyFile::load_or_create(&key_path).map_err(|_| Error::WrongKey(key_path.clone()))?;
    let mut stmt = conn.prepare("SELECT key_sealed FROM certificates").map_err(sqlite(from))?;
    let sealed = stmt
        .query_map([], |r| r.get::<_, Vec<u8>>("key_sealed"))
        .map_err(sqlite(from))?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(sqlite(from))?;
    if sealed.iter().any(|s| key.open(s).is_err()) {
        return Err(Error::WrongKey(key_path));
    }
    let invoices = conn
        .query_row("SELECT COUNT(*) AS invoices FROM invoices", [], |r| r.get("invoices"))
        .map_err(sqlite(from))?;
    Ok((version, invoices))
}

/// Puts the backup `from` in place as `data_dir`'s database and key file. Refuses while a server
/// holds the data dir, and (unless `force`) when the database it would replace holds documents
/// numbered after the backup's; keeps what it replaces beside it, named with `stamp`. The
/// restored database numbers after the replaced one's last numbers.
fn restore_entry(
    from: &Path,
    schema_version: i64,
    invoices: i64,
    force: bool,
) -> crate::domain::audit::Entry {
    crate::domain::audit::Entry {
        company_id: None,
        actor: crate::domain::audit::Actor::Cli,
        request_id: None,
        action: crate::domain::audit::Action::BackupRestore,
        object: from.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        before: None,
        after: None,
    }
    .after(serde_json::json!({ "schemaVersion": schema_version, "invoices": invoices, "force": force }))
}

pub fn restore(data_dir: &Path, from: &Path, stamp: &str, force: bool) -> Result<Restored> {
    let _lock = data_lock::lock(data_dir).map_err(Error::Locked)?;
    let (schema_version, invoices) = check(from)?;
    let db = data_dir.join("arka.db");
    let key = data_dir.join("arka.key");
    let numbering = compare(&db, from)?;
    let newer: Vec<Predated> = numbering.predated().iter().filter(|p| p.documents > 0).cloned().collect();
    if !newer.is_empty() && !force {
        return Err(Error::Predates(newer));
    }
    let aside = sibling(&db, &format!(".replaced-{stamp}"));
    let floors: Vec<Floor> = numbering
        .predated()
        .iter()
        .filter(|p| p.company_in_backup)
        .map(|p| Floor {
            company_id: p.last.company_id,
            sequence: p.last.sequence.key(),
            year: p.last.year,
            ord_num: p.last.replaced,
            replaced: aside.display().to_string(),
        })
        .collect();
    // The copy is complete, with its floors, before anything is moved.
    let partial = sibling(&db, ".partial");
    let _ = std::fs::remove_file(&partial);
    let bytes = std::fs::read(from).map_err(io(from))?;
    secrets::write_private(&partial, &bytes).map_err(io(&partial))?;
    if !floors.is_empty()
        && let Err(e) = numbering::record_in_file(&partial, &floors)
    {
        let _ = std::fs::remove_file(&partial);
        return Err(store_error(&partial, e));
    }
    // The restore is the trail's own entry in the restored database: the person at the command
    // line did it, for the whole database.
    if let Err(e) =
        store::audit::append_in_file(&partial, &restore_entry(from, schema_version, invoices, force))
    {
        let _ = std::fs::remove_file(&partial);
        return Err(store_error(&partial, e));
    }
    let replaced_db = if db.exists() {
        // Fold the WAL into the file so that the one file kept aside is complete. The database
        // being replaced may be damaged (the reason to restore): then its WAL is kept beside it.
        if let Err(e) = checkpoint(&db) {
            tracing::warn!(error = %e, "the replaced database could not be checkpointed; its WAL is kept beside it");
        }
        std::fs::rename(&db, &aside).map_err(io(&aside))?;
        let wal = sibling(&db, "-wal");
        if wal.exists() {
            let wal_aside = sibling(&aside, "-wal");
            std::fs::rename(&wal, &wal_aside).map_err(io(&wal_aside))?;
        }
        let _ = std::fs::remove_file(sibling(&db, "-shm"));
        Some(aside)
    } else {
        None
    };
    let replaced_key = if key.exists() {
        let aside = sibling(&key, &format!(".replaced-{stamp}"));
        std::fs::rename(&key, &aside).map_err(io(&aside))?;
        Some(aside)
    } else {
        None
    };
    std::fs::rename(&partial, &db).map_err(io(&db))?;
    let key_bytes = std::fs::read(key_path_of(from)).map_err(io(from))?;
    secrets::write_private(&key, &key_bytes).map_err(io(&key))?;
    Ok(Restored {
        from: from.to_path_buf(),
        db,
        schema_version,
        invoices,
        replaced_db,
        replaced_key,
        numbering,
        floors,
    })
}

/// Why an automatic backup is taken; part of its file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occasion {
    Nightly,
    BeforeUpgrade,
}

impl Occasion {
    pub fn as_str(self) -> &'static str {
        match self {
            Occasion::Nightly => "nightly",
            Occasion::BeforeUpgrade => "before-upgrade",
        }
    }
}

/// `arka-YYYYMMDD-HHMMSS-<occasion>.db`: names sort by time.
pub fn automatic_name(at: DateTime<Utc>, occasion: Occasion) -> String {
    format!("arka-{}-{}.db", at.format("%Y%m%d-%H%M%S"), occasion.as_str())
}

fn is_automatic(name: &str) -> bool {
    name.starts_with("arka-")
        && [Occasion::Nightly, Occasion::BeforeUpgrade]
            .iter()
            .any(|o| name.ends_with(&format!("-{}.db", o.as_str())))
}

/// The automatic backups in `dir` beyond the newest `keep`, oldest first (manual backups are
/// never counted or removed).
pub fn beyond_keep(names: &[String], keep: usize) -> Vec<String> {
    let mut automatic: Vec<&String> = names.iter().filter(|n| is_automatic(n)).collect();
    automatic.sort();
    let extra = automatic.len().saturating_sub(keep);
    automatic.into_iter().take(extra).cloned().collect()
}

/// Takes an automatic backup of `data_dir` into the schedule's folder, first sweeping what
/// backups stopped midway left there, and removes those beyond `--backup-keep`. None when no
/// folder is set.
pub fn automatic(data_dir: &Path, schedule: &BackupSchedule, occasion: Occasion) -> Result<Option<Made>> {
    let Some(dir) = &schedule.backup_dir else { return Ok(None) };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    // Leftovers that cannot be swept take disk, not the backup: it is taken all the same.
    if let Err(e) = sweep_leftovers(dir) {
        tracing::warn!(dir = %dir.display(), error = %crate::error_chain(&e), "the backup folder's leftovers could not be swept");
    }
    let to = dir.join(automatic_name(Utc::now(), occasion));
    // The copy before an upgrade is what a roll-back restores, taken while the shop waits; its
    // check waits for the server to answer. The nightly one is checked a share a night.
    let when = if occasion == Occasion::BeforeUpgrade { When::Later } else { When::ByNights };
    let made = take(&data_dir.join("arka.db"), &data_dir.join("arka.key"), &to, &mut |_| {}, when)?;
    if when == When::ByNights {
        night_share(&made, dir)?;
    }
    let names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|entry| entry.ok().and_then(|e| e.file_name().into_string().ok()))
        .collect();
    for old in beyond_keep(&names, usize::from(schedule.backup_keep)) {
        let path = dir.join(&old);
        std::fs::remove_file(&path).map_err(io(&path))?;
        let _ = std::fs::remove_file(key_path_of(&path));
        let _ = std::fs::remove_file(sibling(&path, UNCHECKED));
    }
    Ok(Some(made))
}

/// The largest database copied before an upgrade migrates it: a few seconds of copying. A
/// bigger one (a decade's 25 GiB took 146 s) would keep the shop closed for minutes; its way back
/// is `arka downgrade` (every migration since the previous release brings one), the nightly
/// backup and the copy off the box.
pub const BEFORE_UPGRADE_COPY_MAX_BYTES: u64 = 512 * 1024 * 1024;

/// Tonight's share of the check over the nightly copy `made`: damage renames it (as a copy kept
/// unchecked whose check failed) and fails the backup.
fn night_share(made: &Made, dir: &Path) -> Result<()> {
    match night::share(&made.db, dir, NIGHT_BUDGET, usize::MAX).map_err(sqlite(&made.db))? {
        night::Night::Passed { tables, complete } => {
            tracing::info!(
                tables = tables.len(),
                round_complete = complete,
                "the nightly check passed tonight's tables"
            );
            Ok(())
        }
        night::Night::Damaged { table, report } => {
            let renamed = sibling(&made.db, DAMAGED);
            std::fs::rename(&made.db, &renamed).map_err(io(&renamed))?;
            if made.key.exists() {
                let key_aside = key_path_of(&renamed);
                std::fs::rename(&made.key, &key_aside).map_err(io(&key_aside))?;
            }
            Err(Error::Damaged(made.db.clone(), format!("table {table}: {report}")))
        }
    }
}

/// Before the migrations of an upgrade run: a backup of the database as the old version left it,
/// when it exists, is older than this binary's schema, a backup folder is set and it is at most
/// `BEFORE_UPGRADE_COPY_MAX_BYTES`. Its check is left to `check_pending`.
pub fn before_upgrade(data_dir: &Path, schedule: &BackupSchedule) -> Result<Option<Made>> {
    before_upgrade_up_to(data_dir, schedule, BEFORE_UPGRADE_COPY_MAX_BYTES)
}

fn before_upgrade_up_to(data_dir: &Path, schedule: &BackupSchedule, most: u64) -> Result<Option<Made>> {
    let db = data_dir.join("arka.db");
    let version = store::existing_schema_version(&db).map_err(|e| store_error(&db, e))?;
    match version {
        Some(v) if v > 0 && v < store::latest_schema_version() && schedule.backup_dir.is_some() => {
            let bytes = std::fs::metadata(&db).map_err(io(&db))?.len();
            if bytes > most {
                tracing::info!(
                    bytes,
                    from = v,
                    "no copy before this upgrade: the database is too big to copy while the shop waits; the way back is `arka downgrade` (then the previous release), and the nightly backup and the copy off the box keep the books"
                );
                return Ok(None);
            }
            automatic(data_dir, schedule, Occasion::BeforeUpgrade)
        }
        _ => Ok(None),
    }
}

/// `arka downgrade`: the database of `data_dir` (no server on it) back to schema `to`, for the
/// previous release; the versions undone.
pub fn downgrade(data_dir: &Path, to: i32) -> Result<Vec<i32>> {
    let _lock = data_lock::lock(data_dir).map_err(Error::Locked)?;
    let db = data_dir.join("arka.db");
    if !db.exists() {
        return Err(Error::NoDatabase(db));
    }
    store::downgrade::downgrade(&db, to).map_err(|e| store_error(&db, e))
}

/// Stops the background check: a check under way is interrupted, none starts after it.
#[derive(Clone, Default)]
pub struct CheckStop(Arc<Mutex<Stopping>>);

#[derive(Default)]
struct Stopping {
    stopped: bool,
    running: Option<rusqlite::InterruptHandle>,
}

impl CheckStop {
    pub fn stop(&self) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.stopped = true;
        if let Some(running) = &state.running {
            running.interrupt();
        }
    }

    /// Makes `conn` the check a stop interrupts (None: no check runs); false once stopped.
    fn running(&self, conn: Option<&Connection>) -> bool {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.running = conn.map(Connection::get_interrupt_handle);
        !state.stopped
    }
}

/// How the check of a copy kept unchecked ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// Its marker is gone: it is a checked backup like any other.
    Passed(PathBuf),
    /// Renamed `NAME.db.damaged` (its key file beside it), with the check's first lines.
    Damaged { copy: PathBuf, renamed: PathBuf, report: String },
    /// The server stopped first: the marker stays and the check runs at the next start.
    Stopped(PathBuf),
}

/// The copies of `dir` whose check has not passed (a marker beside them), oldest first. A marker
/// whose copy is gone is removed.
pub fn unchecked(dir: &Path) -> Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut copies = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let Some(copy) =
            entry.file_name().to_str().and_then(|n| n.strip_suffix(UNCHECKED)).map(|n| dir.join(n))
        else {
            continue;
        };
        if copy.exists() {
            copies.push(copy);
        } else {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    copies.sort();
    Ok(copies)
}

/// Runs `PRAGMA integrity_check` on the copy `db` kept unchecked and records the outcome in its
/// folder: passed, the marker goes; damaged, the copy and its key file are renamed `.damaged`.
pub fn check_kept(db: &Path, stop: &CheckStop) -> Result<Checked> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite(db))?;
    check_kept_on(conn, db, stop)
}

/// `check_kept` over `conn`, a connection to `db`.
fn check_kept_on(conn: Connection, db: &Path, stop: &CheckStop) -> Result<Checked> {
    if !stop.running(Some(&conn)) {
        return Ok(Checked::Stopped(db.to_path_buf()));
    }
    let outcome = integrity(&conn, db);
    stop.running(None);
    drop(conn);
    let report = match outcome {
        Ok(()) => {
            let marker = sibling(db, UNCHECKED);
            std::fs::remove_file(&marker).map_err(io(&marker))?;
            return Ok(Checked::Passed(db.to_path_buf()));
        }
        Err(Error::Sqlite(_, e)) if e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) => {
            return Ok(Checked::Stopped(db.to_path_buf()));
        }
        Err(Error::Damaged(_, report)) => report,
        // Damage SQLite meets before the check can report it.
        Err(Error::Sqlite(_, e))
            if matches!(
                e.sqlite_error_code(),
                Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
            ) =>
        {
            e.to_string()
        }
        Err(other) => return Err(other),
    };
    let renamed = sibling(db, DAMAGED);
    std::fs::rename(db, &renamed).map_err(io(&renamed))?;
    let key = key_path_of(db);
    if key.exists() {
        let key_aside = key_path_of(&renamed);
        std::fs::rename(&key, &key_aside).map_err(io(&key_aside))?;
    }
    let _ = std::fs::remove_file(sibling(db, UNCHECKED));
    Ok(Checked::Damaged { copy: db.to_path_buf(), renamed, report })
}

/// Checks, one after another, the copies of `dir` kept unchecked (the one just taken before an
/// upgrade, and any whose check a stop cut short), once `gate` is open; logs each outcome. Ends
/// at `stopping`; `stop` interrupts a check under way.
pub async fn check_pending(
    dir: PathBuf,
    gate: CheckGate,
    stop: CheckStop,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    tokio::select! {
        _ = gate.0.read() => {}
        _ = stopping.changed() => return,
    }
    if let Err(e) = tokio::task::spawn_blocking(move || check_all(&dir, &stop)).await {
        tracing::error!(error = %e, "the check of the backups kept unchecked did not complete");
    }
}

fn check_all(dir: &Path, stop: &CheckStop) {
    let copies = match unchecked(dir) {
        Ok(copies) => copies,
        Err(e) => {
            tracing::error!(error = %crate::error_chain(&e), "the backups kept unchecked could not be listed");
            return;
        }
    };
    for copy in copies {
        match check_kept(&copy, stop) {
            Ok(Checked::Passed(path)) => {
                tracing::info!(path = %path.display(), "the backup passed its integrity check")
            }
            Ok(Checked::Damaged { copy, renamed, report }) => tracing::error!(
                path = %copy.display(),
                renamed = %renamed.display(),
                report,
                "the backup is damaged (integrity_check): renamed, it is no backup to restore; check the database and take a new backup"
            ),
            Ok(Checked::Stopped(path)) => {
                tracing::info!(path = %path.display(), "the check of the backup stopped with the server: it runs at the next start");
                return;
            }
            Err(e) => tracing::error!(error = %crate::error_chain(&e), "a backup could not be checked"),
        }
    }
}

/// The next nightly backup after `now`: 03:00 in Tirana (on a day when 03:00 does not exist or
/// exists twice, its first instant after the clock change).
pub fn next_nightly(now: DateTime<Utc>) -> DateTime<Utc> {
    let local = now.with_timezone(&Tirane);
    let mut day = local.date_naive();
    for _ in 0..3 {
        let at = day.and_time(NIGHTLY_AT);
        let candidate = Tirane
            .from_local_datetime(&at)
            .earliest()
            .or_else(|| Tirane.from_local_datetime(&(at + chrono::Duration::hours(1))).earliest())
            .map(|t| t.with_timezone(&Utc));
        if let Some(t) = candidate.filter(|t| *t > now) {
            return t;
        }
        day = day.succ_opt().unwrap_or(day);
    }
    now + chrono::Duration::days(1)
}

/// Takes the nightly backups, at 03:00 by the server's `clock`, until `stop` changes.
pub async fn nightly(
    data_dir: PathBuf,
    schedule: BackupSchedule,
    clock: crate::clock::Clock,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        let at = next_nightly(clock.utc());
        tokio::select! {
            _ = clock.sleep_until(at) => {}
            _ = stop.changed() => return,
        }
        let (dir, settings) = (data_dir.clone(), schedule.clone());
        match tokio::task::spawn_blocking(move || automatic(&dir, &settings, Occasion::Nightly)).await {
            Ok(Ok(Some(made))) => {
                tracing::info!(path = %made.db.display(), bytes = made.bytes, "nightly backup taken, tonight's share of the check passed")
            }
            Ok(Ok(None)) => return,
            Ok(Err(e)) => tracing::error!(error = %crate::error_chain(&e), "the nightly backup failed"),
            Err(e) => tracing::error!(error = %e, "the nightly backup did not complete"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn the_nightly_backup_is_at_three_in_tirana() {
        // Winter (UTC+1) and summer (UTC+2).
        assert_eq!(next_nightly(utc("2026-01-10T12:00:00Z")), utc("2026-01-11T02:00:00Z"));
        assert_eq!(next_nightly(utc("2026-07-10T00:30:00Z")), utc("2026-07-10T01:00:00Z"));
        assert_eq!(next_nightly(utc("2026-07-10T01:00:00Z")), utc("2026-07-11T01:00:00Z"));
        // The night the clocks go forward (29 March 2026, 02:00 -> 03:00): 03:00 exists, UTC+2.
        assert_eq!(next_nightly(utc("2026-03-28T22:00:00Z")), utc("2026-03-29T01:00:00Z"));
        // The night they go back (25 October 2026, 03:00 -> 02:00): 03:00 happens once, UTC+1.
        assert_eq!(next_nightly(utc("2026-10-24T23:00:00Z")), utc("2026-10-25T02:00:00Z"));
    }

    #[test]
    fn automatic_backups_sort_by_time_and_only_they_are_pruned() {
        let at = utc("2026-11-23T02:00:00Z");
        assert_eq!(automatic_name(at, Occasion::Nightly), "arka-20261123-020000-nightly.db");
        let names: Vec<String> = [
            "arka-20261120-020000-nightly.db",
            "arka-20261120-020000-nightly.db.key",
            "arka-20261121-093000-before-upgrade.db",
            "arka-20261122-020000-nightly.db",
            "arka-20261123-020000-nightly.db",
            "before-the-move.db",
            "arka-20261101-000000-nightly.db.partial",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            beyond_keep(&names, 2),
            ["arka-20261120-020000-nightly.db", "arka-20261121-093000-before-upgrade.db"]
        );
        assert!(beyond_keep(&names, 10).is_empty());
    }

    #[test]
    fn a_backup_is_a_checked_self_contained_copy_with_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let store = store::Store::open(&data.join("arka.db")).unwrap();
        KeyFile::load_or_create(&data.join("arka.key")).unwrap();
        store.write_blocking(|tx| store::health::probe(tx)).unwrap();
        let to = dir.path().join("out/copy.db");
        let mut steps = Vec::new();
        let made = backup(&data.join("arka.db"), &data.join("arka.key"), &to, |p| steps.push(p)).unwrap();
        assert_eq!(made.schema_version, store::latest_schema_version());
        assert!(steps.last().is_some_and(|p| p.copied_pages == p.total_pages && p.total_pages > 0));
        assert_eq!(std::fs::read(&made.key).unwrap(), std::fs::read(data.join("arka.key")).unwrap());
        assert!(!sibling(&to, "-wal").exists(), "no WAL beside the copy");
        assert!(matches!(
            backup(&data.join("arka.db"), &data.join("arka.key"), &to, |_| {}),
            Err(Error::Exists(_))
        ));
        assert_eq!(check(&to).unwrap().0, store::latest_schema_version());
    }

    /// A data dir with a database and its key file, in `dir`.
    fn data_dir(dir: &Path) -> PathBuf {
        let data = dir.join("data");
        let store = store::Store::open(&data.join("arka.db")).unwrap();
        KeyFile::load_or_create(&data.join("arka.key")).unwrap();
        store.write_blocking(|tx| store::health::probe(tx)).unwrap();
        data
    }

    #[test]
    fn a_database_too_big_to_copy_while_the_shop_waits_is_upgraded_without_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        store::create_at_version(&data.join("arka.db"), store::downgrade::PREVIOUS_RELEASE_SCHEMA).unwrap();
        KeyFile::load_or_create(&data.join("arka.key")).unwrap();
        let out = dir.path().join("backups");
        let schedule = BackupSchedule { backup_dir: Some(out.clone()), ..BackupSchedule::default() };
        let bytes = std::fs::metadata(data.join("arka.db")).unwrap().len();
        assert!(before_upgrade_up_to(&data, &schedule, bytes - 1).unwrap().is_none(), "too big: no copy");
        assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none());
        let made = before_upgrade_up_to(&data, &schedule, bytes).unwrap().unwrap();
        assert!(made.db.exists(), "small enough: copied as before");
    }

    #[test]
    fn a_leftover_the_sweep_cannot_remove_does_not_stop_the_nightly_backup() {
        let dir = tempfile::tempdir().unwrap();
        let data = data_dir(dir.path());
        let out = dir.path().join("backups");
        // A directory with a leftover's name: `remove_file` refuses it.
        std::fs::create_dir_all(out.join("arka-20260101-030000-nightly.db.partial/inside")).unwrap();
        assert!(sweep_leftovers(&out).is_err());
        let schedule = BackupSchedule { backup_dir: Some(out.clone()), ..BackupSchedule::default() };
        let made = automatic(&data, &schedule, Occasion::Nightly).unwrap().unwrap();
        assert!(made.db.exists(), "the backup is taken all the same");
    }

    #[test]
    fn the_sweep_removes_leftovers_but_never_the_partial_a_running_backup_writes() {
        let dir = tempfile::tempdir().unwrap();
        let data = data_dir(dir.path());
        let out = dir.path().join("backups");
        std::fs::create_dir_all(&out).unwrap();
        let stale = "arka-20260101-030000-nightly.db.partial";
        std::fs::write(out.join(stale), [1u8; 10]).unwrap();
        std::fs::write(out.join("mine.db.partial"), [1u8; 10]).unwrap();
        let to = out.join("arka-20261127-031500.db");
        let mut during = Vec::new();
        backup(&data.join("arka.db"), &data.join("arka.key"), &to, |_| {
            during.push((sweep_leftovers(&out).unwrap(), sibling(&to, PARTIAL).exists()))
        })
        .unwrap();
        assert!(!during.is_empty());
        assert!(
            during.iter().all(|(swept, partial)| swept.is_empty() && *partial),
            "a sweep while the backup writes removes nothing: {during:?}"
        );
        assert_eq!(sweep_leftovers(&out).unwrap(), [Leftover { file: stale.into(), bytes: 10 }]);
        assert!(to.exists() && out.join("mine.db.partial").exists() && !out.join(stale).exists());
        assert!(sweep_leftovers(&dir.path().join("none")).unwrap().is_empty(), "no folder, nothing to sweep");
    }

    #[test]
    fn a_copy_kept_unchecked_says_so_until_its_check_passes_or_renames_it_when_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let data = data_dir(dir.path());
        let (db, key) = (data.join("arka.db"), data.join("arka.key"));
        let kept = |name: &str| {
            let to = dir.path().join("backups").join(name);
            let made = take(&db, &key, &to, &mut |_| {}, When::Later).unwrap();
            assert_eq!(made.db, to);
            assert!(sibling(&to, UNCHECKED).exists(), "marked unchecked");
            to
        };
        let good = kept("arka-20261127-090000-before-upgrade.db");
        let stopped = CheckStop::default();
        stopped.stop();
        assert_eq!(check_kept(&good, &stopped).unwrap(), Checked::Stopped(good.clone()));
        assert_eq!(
            unchecked(&dir.path().join("backups")).unwrap(),
            std::slice::from_ref(&good),
            "still unchecked"
        );
        assert_eq!(check_kept(&good, &CheckStop::default()).unwrap(), Checked::Passed(good.clone()));
        assert!(!sibling(&good, UNCHECKED).exists() && good.exists());

        // A stop in the middle of the check interrupts it: the copy stays unchecked.
        let cut = kept("arka-20261127-093000-before-upgrade.db");
        let mut conn = Connection::open_with_flags(&cut, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let (halt, checking) = (CheckStop::default(), Arc::new(std::sync::atomic::AtomicBool::new(false)));
        let (on_the_way, seen) = (halt.clone(), checking.clone());
        conn.progress_handler(
            100,
            Some(move || {
                seen.store(true, std::sync::atomic::Ordering::Relaxed);
                on_the_way.stop();
                false
            }),
        )
        .unwrap();
        assert_eq!(check_kept_on(conn, &cut, &halt).unwrap(), Checked::Stopped(cut.clone()));
        assert!(checking.load(std::sync::atomic::Ordering::Relaxed), "the stop came while the check ran");
        assert!(sibling(&cut, UNCHECKED).exists() && cut.exists());

        let bad = kept("arka-20261127-100000-before-upgrade.db");
        let bytes = std::fs::read(&bad).unwrap();
        let page = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
        let mut damaged = bytes.clone();
        let middle = page * (bytes.len() / page / 2);
        damaged[middle..middle + page * 4].fill(0xA5);
        std::fs::write(&bad, damaged).unwrap();
        let Checked::Damaged { copy, renamed, report } = check_kept(&bad, &CheckStop::default()).unwrap()
        else {
            panic!("the damage was not found")
        };
        assert_eq!((copy, renamed.clone()), (bad.clone(), sibling(&bad, DAMAGED)));
        assert!(!report.is_empty() && report != "ok", "{report}");
        assert!(!bad.exists() && renamed.exists() && key_path_of(&renamed).exists());
        assert_eq!(unchecked(&dir.path().join("backups")).unwrap(), std::slice::from_ref(&cut));
        assert!(matches!(check(&renamed), Err(Error::Damaged(..))), "restore refuses it");
    }

    #[test]
    fn a_predated_sequence_reads_as_a_sentence() {
        use crate::domain::numbering::SequenceName;
        let last = |sequence, backup, replaced| SideBySide {
            company_id: 1,
            nuis: "L41323036D".into(),
            sequence,
            year: 2026,
            backup,
            replaced,
        };
        let till = SequenceName::Till("ab123ab123".into());
        let lines = [
            Predated {
                last: last(till.clone(), 9, 12),
                documents: 3,
                registered: 2,
                company_in_backup: true,
            },
            Predated {
                last: last(SequenceName::NonCash, 0, 1),
                documents: 1,
                registered: 1,
                company_in_backup: false,
            },
            Predated { last: last(till, 9, 14), documents: 0, registered: 0, company_in_backup: true },
        ]
        .map(|p| p.to_string());
        assert_eq!(
            lines,
            [
                "L41323036D (company 1), cash TCR ab123ab123, 2026: the backup ends at 9/2026, the replaced database \
                 at 12/2026: 3 newer (10/2026 to 12/2026), 2 registered by the CIS",
                "L41323036D (company 1), non-cash, 2026: the backup has none, the replaced database ends at 1/2026: \
                 1 newer (1/2026), 1 registered by the CIS; the company is not in the backup",
                "L41323036D (company 1), cash TCR ab123ab123, 2026: the backup ends at 9/2026, the replaced database \
                 at 14/2026 (its floor, no documents)",
            ]
        );
    }
}
