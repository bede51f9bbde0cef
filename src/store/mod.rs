//! SQLite: one writer connection for every write (each write one transaction), a small pool
//! of read connections running in parallel (WAL). Blocking work runs on tokio's blocking pool.

pub mod accounts;
pub mod audit;
pub mod cash_register;
pub mod clients;
pub mod credit_notes;
pub mod devices;
pub mod downgrade;
pub mod einvoices;
pub mod fiscal_queue;
#[cfg(test)]
pub mod fixtures;
pub mod health;
pub mod held_numbers;
pub mod hq_outbox;
pub mod invoices;
pub mod kept;
mod log_sync;
pub mod marketplace;
pub mod money;
pub mod numbering;
pub mod people;
pub mod print_settings;
pub mod products;
pub mod purchase;
pub mod rates;
pub mod reports;
pub mod sales_day;
pub mod stock;
pub mod tables;
mod text_column;
pub mod till;
mod with_payments;
pub mod wtn;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Errors of the store layer. Each keeps what failed underneath as its `source()`; its text
/// quotes it too, as the CLI's messages always did (`crate::error_chain` repeats no level).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("sqlite: {0}")]
    Sqlite(#[source] rusqlite::Error),
    /// A UNIQUE constraint refused the write; carries SQLite's text (names the column).
    #[error("duplicate: {0}")]
    Duplicate(String),
    #[error("migration: {0}")]
    Migration(#[source] refinery::Error),
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    /// A blocking task did not complete (panicked or was cancelled).
    #[error("task: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// A write closure panicked: its transaction was rolled back and the writer kept serving.
    #[error("a write panicked and was rolled back: {0}")]
    Panicked(String),
    /// Stored amounts add up beyond what a decimal holds.
    #[error("{}", crate::domain::money::Overflow)]
    Overflow,
    /// A kept request could not be packed or read back.
    #[error("{0}")]
    Kept(#[from] kept::Error),
    /// `arka downgrade` cannot go back as asked.
    #[error("{0}")]
    Way(String),
    /// A stored row could not be read by its mapper (`arka_core::row`): the column and the cause.
    #[error("{0}")]
    Column(#[from] arka_core::row::ColumnError),
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        match &e {
            rusqlite::Error::SqliteFailure(code, msg)
                if code.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || code.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
            {
                Error::Duplicate(msg.clone().unwrap_or_default())
            }
            _ => Error::Sqlite(e),
        }
    }
}

impl From<crate::domain::money::Overflow> for Error {
    fn from(_: crate::domain::money::Overflow) -> Self {
        Error::Overflow
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// Every row `stmt` finds with `params`, each through `map` (a mapper of the core's, by column
/// name, shared with the head office).
pub fn mapped<T>(
    stmt: &mut rusqlite::Statement<'_>,
    params: impl rusqlite::Params,
    map: impl Fn(&rusqlite::Row<'_>) -> arka_core::row::Result<T>,
) -> Result<Vec<T>> {
    stmt.query_and_then(params, |r| map(r).map_err(Error::from))?.collect()
}

/// Read connections kept open; more are opened on demand and dropped when the pool is full.
const READERS_KEPT: usize = 4;

#[derive(Clone)]
pub struct Store {
    path: PathBuf,
    writer: Arc<Mutex<Connection>>,
    readers: Arc<Mutex<Vec<Connection>>>,
    log: Arc<log_sync::LogSync>,
    accounts: Arc<AccountsVersion>,
    wal_frames: Arc<AtomicU64>,
    /// Set when the off-box copy reads the log (`copied`): what the writer tells it.
    copy: Option<Arc<CommitWatch>>,
}

/// Beside the database, the off-box copy's own folder (`copy`): while it exists, the copy
/// is the only one that folds the log back into the file (it reads every frame first), so no
/// connection of this data dir checkpoints, at a commit or at its close.
pub const COPY_DIR: &str = "copy";

/// Whether the off-box copy reads the log of the database at `path`.
pub fn copied(path: &Path) -> bool {
    path.parent().is_some_and(|dir| dir.join(COPY_DIR).is_dir())
}

/// What the writer tells the off-box copy at each commit: when the first transaction it has not
/// read yet committed (for its lag), and that the log has grown long enough to be read and folded
/// back now rather than at the copy's next turn.
#[derive(Debug)]
pub struct CommitWatch {
    first_unread_ms: AtomicI64,
    /// Commits so far: a reading that began after the last one has read them all.
    commits: AtomicU64,
    long_log: Mutex<bool>,
    nudged: Condvar,
    /// The copy reads the log; when it could not start, the writer folds the log back itself
    /// (the copy's next start then finds the file changed and makes a new base).
    reading: AtomicBool,
}

impl Default for CommitWatch {
    fn default() -> Self {
        CommitWatch {
            first_unread_ms: AtomicI64::new(0),
            commits: AtomicU64::new(0),
            long_log: Mutex::new(false),
            nudged: Condvar::new(),
            reading: AtomicBool::new(true),
        }
    }
}

impl CommitWatch {
    /// The copy does not read the log (it could not start, or it stopped): the writer folds it
    /// back again.
    pub fn not_reading(&self) {
        self.reading.store(false, Ordering::SeqCst);
    }

    fn reading(&self) -> bool {
        self.reading.load(Ordering::SeqCst)
    }

    fn committed(&self, now_ms: i64, long_log: bool) {
        let _ = self.first_unread_ms.compare_exchange(0, now_ms, Ordering::SeqCst, Ordering::SeqCst);
        self.commits.fetch_add(1, Ordering::SeqCst);
        if long_log && let Ok(mut long) = self.long_log.lock() {
            *long = true;
            self.nudged.notify_all();
        }
    }

    /// Before a reading of the log: the commits so far, and when the oldest not yet read was
    /// made (ms since the epoch; None when none waits).
    pub fn unread(&self) -> (u64, Option<i64>) {
        let commits = self.commits.load(Ordering::SeqCst);
        (commits, self.first_unread())
    }

    /// After a reading that began at `unread`'s `(commits, first)` and whose segments are where
    /// the status reads them: when no commit came since, nothing waits any more. Otherwise the
    /// oldest time stays (a later commit may not have been read): the lag is then said too long
    /// for one turn, never too short.
    pub fn read_through(&self, commits: u64, first: Option<i64>) {
        if self.commits.load(Ordering::SeqCst) == commits {
            let _ = self.first_unread_ms.compare_exchange(
                first.unwrap_or(0),
                0,
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
        }
    }

    /// As `take_first_unread`, without starting the count again.
    pub fn first_unread(&self) -> Option<i64> {
        Some(self.first_unread_ms.load(Ordering::SeqCst)).filter(|ms| *ms != 0)
    }

    /// Waits up to `most` for the log to grow long (or for `wake`); whether it did.
    pub fn wait_for_long_log(&self, most: std::time::Duration) -> bool {
        let Ok(long) = self.long_log.lock() else { return false };
        let Ok((mut long, _)) = self.nudged.wait_timeout_while(long, most, |long| !*long) else {
            return false;
        };
        std::mem::replace(&mut *long, false)
    }

    /// Ends a wait at once (the server is stopping).
    pub fn wake(&self) {
        if let Ok(mut long) = self.long_log.lock() {
            *long = true;
            self.nudged.notify_all();
        }
    }
}

/// The tables a token's caller is read from (`accounts::caller_by_token`, `partner_by_token`).
const ACCOUNT_TABLES: [&str; 4] = ["users", "companies", "business_units", "partners"];

/// Counts the committed writes that touched `ACCOUNT_TABLES`, so what was read from them can be
/// kept until the next one. The writer's update hook marks a transaction that touches them; the
/// count moves once that transaction has ended, so a reader that sees the old count may only
/// have read rows from before it.
#[derive(Default)]
struct AccountsVersion {
    touched: AtomicBool,
    version: AtomicU64,
}

impl AccountsVersion {
    fn ended_transaction(&self) {
        if self.touched.swap(false, Ordering::SeqCst) {
            self.version.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn configure(conn: &Connection) -> Result<()> {
    if copied(Path::new(conn.path().unwrap_or_default())) {
        // The copy folds the log back itself, after reading it: a close must not do it first.
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    }
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // Room for every statement of an issue, so none is parsed again per document.
    conn.set_prepared_statement_cache_capacity(64);
    // Plans that do not depend on the values bound: otherwise SQLite (built with STAT4) marks a
    // statement whose parameter meets an index to be compiled again at each new binding, and
    // every cached statement of an issue was parsed and planned again per document.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    kept::register_sql_functions(conn)?;
    invoices::register_sql_functions(conn)?;
    Ok(())
}

impl Store {
    /// Opens (creating if needed) the database at `path` and applies pending migrations. The
    /// directory and the database files are its owner's alone (see `files`). A database with
    /// other pages than `PAGE_SIZE` is rewritten with them only when that takes seconds.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with(path, PageRewrite::UpTo(REWRITE_AT_START_MAX_BYTES))
    }

    /// `open`, rewriting a database with other pages whatever its size (`arka migrate
    /// --small-pages`, run while the shop is closed: minutes for millions of documents).
    pub fn open_with_small_pages(path: &Path) -> Result<Store> {
        Store::open_with(path, PageRewrite::Always)
    }

    fn open_with(path: &Path, rewrite: PageRewrite) -> Result<Store> {
        if let Some(dir) = path.parent() {
            crate::ops::files::private_dir(dir)?;
        }
        crate::ops::files::private_file(path)?;
        for suffix in ["-wal", "-shm"] {
            let mut companion = path.as_os_str().to_owned();
            companion.push(suffix);
            crate::ops::files::private_if_present(Path::new(&companion))?;
        }
        let mut writer = Connection::open(path)?;
        use_page_size(&writer, path, rewrite)?;
        let accounts = Arc::new(AccountsVersion::default());
        let marks = accounts.clone();
        writer.update_hook(Some(move |_: rusqlite::hooks::Action, _: &str, table: &str, _: i64| {
            if ACCOUNT_TABLES.contains(&table) {
                marks.touched.store(true, Ordering::SeqCst);
            }
        }))?;
        writer.pragma_update(None, "journal_mode", "WAL")?;
        let copy = copied(path).then(|| Arc::new(CommitWatch::default()));
        let wal_frames = count_wal_frames(&mut writer, copy.clone())?;
        // FULL while the schema is brought up to date: each step on the disk before the next.
        writer.pragma_update(None, "synchronous", "FULL")?;
        configure(&writer)?;
        migrate(&mut writer)?;
        build_report_totals(&mut writer)?;
        // From here the log is synced by `LogSync`, outside the writer connection: a durable
        // write syncs it after its commit (`write_blocking`), a document's after its lane is
        // joined. NORMAL for good: switching per transaction re-compiled both PRAGMAs each time.
        writer.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(Store {
            path: path.to_path_buf(),
            writer: Arc::new(Mutex::new(writer)),
            readers: Arc::new(Mutex::new(Vec::new())),
            log: Arc::new(log_sync::LogSync::new(path)),
            accounts,
            wal_frames,
            copy,
        })
    }

    /// What the writer tells the off-box copy, when the copy reads this database's log.
    pub fn commit_watch(&self) -> Option<Arc<CommitWatch>> {
        self.copy.clone()
    }

    /// The database's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` while no write can begin (the writer is held): the off-box copy's last reading
    /// of the log at a stop, so that nothing is written between it and the log's folding back.
    pub fn with_writes_held<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        let _writer = self.writer()?;
        Ok(f())
    }

    /// The frames the writer has appended to the WAL since the store was opened (each a page of
    /// the database and its 24-byte header): what the writes cost the disk before checkpoints.
    pub fn wal_frames(&self) -> u64 {
        self.wal_frames.load(Ordering::Relaxed)
    }

    /// Moves whenever a write that changed users, companies, business units or partners has
    /// ended: what was read from them under an older value may be out of date.
    pub fn accounts_version(&self) -> u64 {
        self.accounts.version.load(Ordering::SeqCst)
    }

    fn take_reader(&self) -> Result<Connection> {
        let pooled = self.readers.lock().ok().and_then(|mut pool| pool.pop());
        match pooled {
            Some(conn) => Ok(conn),
            None => {
                let conn = Connection::open_with_flags(
                    &self.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                configure(&conn)?;
                Ok(conn)
            }
        }
    }

    fn give_back(&self, conn: Connection) {
        if let Ok(mut pool) = self.readers.lock()
            && pool.len() < READERS_KEPT
        {
            pool.push(conn);
        }
    }

    /// Runs `f` on a read connection, blocking the calling thread.
    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.take_reader()?;
        let result = f(&conn);
        self.give_back(conn);
        result
    }

    /// The writer connection. A panic can only poison its lock between statements of a closure
    /// that `write_blocking` did not get to catch; the transaction it left open is rolled back
    /// here, so the connection is always usable again.
    fn writer(&self) -> Result<MutexGuard<'_, Connection>> {
        match self.writer.lock() {
            Ok(conn) => Ok(conn),
            Err(poisoned) => {
                self.writer.clear_poison();
                let conn = poisoned.into_inner();
                if !conn.is_autocommit() {
                    conn.execute_batch("ROLLBACK")?;
                }
                tracing::warn!("the writer connection was recovered after a panic");
                Ok(conn)
            }
        }
    }

    /// Runs `f` inside one write transaction (BEGIN IMMEDIATE), committing when it returns Ok
    /// and rolling back on every Err, and returns once the commit is on the disk: the log is
    /// synced after the writer connection is free again, so the next writes go on meanwhile and
    /// one sync serves them all. `f` fails with any error a store error converts into: a use
    /// case's refusal (`services::Error`) rolls back everything `f` wrote before it, as a failure
    /// of SQLite does. Blocks the calling thread. A panic inside `f` rolls the transaction back
    /// and comes back as `Error::Panicked` for this caller alone: every other write goes on as
    /// before.
    pub fn write_blocking<T, E: From<Error>>(
        &self,
        f: impl FnOnce(&Transaction) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let value = self.write_blocking_unsynced(f)?;
        self.log.durable()?;
        Ok(value)
    }

    /// `write_blocking`, returning once committed, without waiting for the disk: it survives a
    /// crash of Arka at once, and a power cut from the next durable write or `durable_blocking`
    /// on (in WAL mode each sync of the log covers everything written before it). Only for what
    /// nothing relies on before `durable_blocking` returns (a new document, sent and answered
    /// only then), or what is done again if a power cut loses it (the CIS's code of a document
    /// still in the queue, fetched again by re-sending the same message).
    pub fn write_blocking_unsynced<T, E: From<Error>>(
        &self,
        f: impl FnOnce(&Transaction) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let mut conn = self.writer()?;
        let result = Self::transaction(&mut conn, f);
        self.accounts.ended_transaction();
        result
    }

    fn transaction<T, E: From<Error>>(
        conn: &mut Connection,
        f: impl FnOnce(&Transaction) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(Error::from)?;
        // Unwind safety: on a panic nothing `f` touched is used again; the transaction is
        // rolled back below and the connection holds no state of it afterwards.
        match catch_unwind(AssertUnwindSafe(|| f(&tx))) {
            Ok(Ok(value)) => {
                tx.commit().map_err(Error::from)?;
                Ok(value)
            }
            Ok(Err(e)) => {
                tx.rollback().map_err(Error::from)?;
                Err(e)
            }
            Err(payload) => {
                let message = crate::panics::text(payload.as_ref());
                tx.rollback().map_err(Error::from)?;
                tracing::error!(panic = %message, "a write panicked; its transaction was rolled back");
                Err(Error::Panicked(message).into())
            }
        }
    }

    /// Runs `f` inside one write transaction that is always rolled back: for checks that change
    /// the database to compare (`invoices::report_totals::verify`). Blocks the calling thread.
    pub fn trial_blocking<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn = self.writer()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let result = catch_unwind(AssertUnwindSafe(|| f(&tx)));
        tx.rollback()?;
        self.accounts.ended_transaction();
        result.map_err(|payload| Error::Panicked(crate::panics::text(payload.as_ref())))?
    }

    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.on_blocking_pool(move |store| store.read_blocking(f)).await
    }

    /// Runs `f` on a read connection inside one read transaction: every statement of `f` reads
    /// the same snapshot of the books (a sale's checks before its write, a report's parts), in
    /// one call to the blocking pool.
    pub async fn read_snapshot<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.read(move |conn| {
            let tx = conn.unchecked_transaction()?;
            let result = f(&tx);
            tx.finish()?;
            result
        })
        .await
    }

    pub async fn write<T: Send + 'static, E: From<Error> + Send + 'static>(
        &self,
        f: impl FnOnce(&Transaction) -> std::result::Result<T, E> + Send + 'static,
    ) -> std::result::Result<T, E> {
        self.on_blocking_pool(move |store| store.write_blocking(f)).await
    }

    /// Returns once every transaction committed before the call is on the disk: one fsync of
    /// the log, shared by everyone who asks meanwhile, run outside the writer connection. Blocks
    /// the calling thread.
    pub fn durable_blocking(&self) -> Result<()> {
        self.log.durable()
    }

    /// `write_blocking_unsynced` on the blocking pool.
    pub async fn write_unsynced<T: Send + 'static, E: From<Error> + Send + 'static>(
        &self,
        f: impl FnOnce(&Transaction) -> std::result::Result<T, E> + Send + 'static,
    ) -> std::result::Result<T, E> {
        self.on_blocking_pool(move |store| store.write_blocking_unsynced(f)).await
    }

    /// Runs `f` with this store on the blocking pool, off the async workers.
    async fn on_blocking_pool<T: Send + 'static, E: From<Error> + Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> std::result::Result<T, E> + Send + 'static,
    ) -> std::result::Result<T, E> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || f(&store)).await.map_err(Error::Task)?
    }
}

/// Builds the report totals of a database that has documents but not yet their totals (the
/// first open after the upgrade that brings them), saying how far it got every tenth.
/// Pages of 512 bytes, SQLite's smallest, not its 4 KiB: a sale's transactions change about 40
/// pages (a leaf of each table and index a document touches), and each goes to the log and back to
/// the file whole, so the page's size sets what a sale writes (issue 34: 120 KB a receipt with
/// 4 KiB pages, 38 KB with 1 KiB ones, 27 KB with 512-byte ones). A row longer than a page's room
/// (a queue entry, about 0.7 KB) spills into an overflow page, which a small page leaves little of
/// unused: with 1 KiB pages each queue entry and each invoice row took a page of its own or half
/// of one, 1.9 KB a receipt, with 512-byte ones 1.7 KB.
const PAGE_SIZE: i64 = 512;

/// The log is folded into the file once it holds this many frames (about 10 MB of 512-byte pages,
/// a few hundred sales) rather than SQLite's 1,000: a page every sale touches (the newest leaf of
/// each index) is then copied back once per few hundred sales instead of once per thirty.
pub const AUTOCHECKPOINT_FRAMES: i32 = 20_000;

/// The largest database a start rewrites with `PAGE_SIZE` pages: a few seconds of work. A bigger
/// one (45-130 s per million documents, docs/src/records/decade.md) would keep the shop from
/// selling for minutes after an upgrade, so it keeps its pages until its owner runs
/// `arka migrate --small-pages` while the shop is closed; it works as before, writing more a sale.
const REWRITE_AT_START_MAX_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Clone, Copy)]
enum PageRewrite {
    /// Only a database file of at most this many bytes.
    UpTo(u64),
    Always,
}

/// A new database gets `PAGE_SIZE` before its first page is written; one made with another page
/// size is rewritten with it once (VACUUM, which changes the page size only outside WAL), saying
/// how long that took per million documents. A database another process has open stays as it is
/// until the next start.
fn use_page_size(writer: &Connection, path: &Path, rewrite: PageRewrite) -> Result<()> {
    let current: i64 = writer.query_row("PRAGMA page_size", [], |r| r.get("page_size"))?;
    if current == PAGE_SIZE {
        return Ok(());
    }
    let tables: i64 = writer.query_row("SELECT COUNT(*) AS n FROM sqlite_schema", [], |r| r.get("n"))?;
    if tables == 0 {
        writer.pragma_update(None, "page_size", PAGE_SIZE)?;
        return Ok(());
    }
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(u64::MAX);
    if let PageRewrite::UpTo(most) = rewrite
        && bytes > most
    {
        tracing::warn!(
            from = current,
            to = PAGE_SIZE,
            bytes,
            "the database keeps its pages: rewriting it would stop the shop for minutes; run \
             `arka migrate --small-pages` while the shop is closed"
        );
        return Ok(());
    }
    let started = std::time::Instant::now();
    let rewritten = writer
        .pragma_update(None, "journal_mode", "DELETE")
        .and_then(|()| writer.pragma_update(None, "synchronous", "FULL"))
        .and_then(|()| writer.pragma_update(None, "page_size", PAGE_SIZE))
        .and_then(|()| writer.execute_batch("VACUUM"));
    match rewritten {
        Ok(()) => {
            // A database from before the invoices table (V4) has none to count.
            let documents: i64 =
                writer.query_row("SELECT COUNT(*) AS n FROM invoices", [], |r| r.get("n")).unwrap_or(0);
            let seconds = started.elapsed().as_secs_f64();
            tracing::info!(
                from = current,
                to = PAGE_SIZE,
                documents,
                seconds = format!("{seconds:.3}"),
                seconds_per_million_documents = format!("{:.1}", seconds * 1e6 / documents.max(1) as f64),
                "the database was rewritten with smaller pages (once)"
            );
        }
        Err(e) => {
            tracing::warn!(error = %e, from = current, to = PAGE_SIZE, "the database keeps its page size until the next start");
        }
    }
    Ok(())
}

/// Counts the frames each commit appends to the WAL. The hook takes the place of SQLite's
/// automatic checkpoint, so it does what that one does: a PASSIVE checkpoint once the log holds
/// `AUTOCHECKPOINT_FRAMES`, whose failure (readers in the way) waits for the next commit. When
/// the off-box copy reads the log (`copy`), it folds the log back itself: the hook only tells it
/// when a commit was made and that the log is long.
fn count_wal_frames(writer: &mut Connection, copy: Option<Arc<CommitWatch>>) -> Result<Arc<AtomicU64>> {
    let frames = Arc::new(AtomicU64::new(0));
    let counted = frames.clone();
    let mut in_log = 0;
    writer.wal_hook(Some(move |wal: &mut rusqlite::hooks::Wal, pages: std::os::raw::c_int| {
        // After a checkpoint the log starts again from its first frame.
        let appended = if pages >= in_log { pages - in_log } else { pages };
        counted.fetch_add(u64::try_from(appended).unwrap_or(0), Ordering::Relaxed);
        in_log = pages;
        match &copy {
            Some(watch) if watch.reading() => {
                watch.committed(chrono::Utc::now().timestamp_millis(), pages >= AUTOCHECKPOINT_FRAMES)
            }
            _ if pages >= AUTOCHECKPOINT_FRAMES => {
                let _ = wal.checkpoint_v2(rusqlite::wal::CheckpointMode::PASSIVE);
            }
            _ => {}
        }
        Ok(())
    }))?;
    Ok(frames)
}

/// Applies the pending migrations. V27 packs the requests earlier releases kept as text (with
/// `arka_pack_request`, see `configure`), V28 packs the invoices' again and rewrites every invoice
/// row (issue 34); each says how long it took per million rows. V33 is not run over books that
/// already hold V20's reversals index (`REVERSALS_INDEX_KEPT`).
fn migrate(writer: &mut Connection) -> Result<()> {
    let started = std::time::Instant::now();
    let mut applied_now = Vec::new();
    let current = schema_version(writer)?;
    if (i64::from(REVERSALS_INDEX_KEPT.0)..i64::from(REVERSALS_INDEX_KEPT.1)).contains(&current) {
        let before = embedded::migrations::runner()
            .set_target(refinery::Target::Version(REVERSALS_INDEX_KEPT.1 - 1))
            .run(writer)
            .map_err(Error::Migration)?;
        applied_now.extend(before.applied_migrations().iter().map(|m| m.version()));
        embedded::migrations::runner()
            .set_target(refinery::Target::FakeVersion(REVERSALS_INDEX_KEPT.1))
            .run(writer)
            .map_err(Error::Migration)?;
        tracing::info!(
            "V33 recorded as applied without rebuilding the reversals index: its build reads every \
             invoice; the credit notes are kept apart (V44), those of the books found after the start"
        );
    }
    let report = embedded::migrations::runner().run(writer).map_err(Error::Migration)?;
    applied_now.extend(report.applied_migrations().iter().map(|m| m.version()));
    let applied = |version: i32| applied_now.contains(&version);
    let rewrote = match (applied(27), applied(28)) {
        (_, true) => Some(("V28 kept the invoices' signatures and verify URLs shorter", "invoices")),
        (true, false) => Some(("V27 packed the fiscal queue's kept requests", "fiscal_queue")),
        (false, false) => None,
    };
    if let Some((what, table)) = rewrote {
        let rows: i64 =
            writer.query_row(&format!("SELECT COUNT(*) AS n FROM {table}"), [], |r| r.get("n"))?;
        // A new database has nothing rewritten: its time per million rows would read as a cost.
        if rows == 0 {
            return Ok(());
        }
        let seconds = started.elapsed().as_secs_f64();
        tracing::info!(
            rows,
            table,
            seconds = format!("{seconds:.3}"),
            seconds_per_million_rows = format!("{:.1}", seconds * 1e6 / rows as f64),
            "{what} (with the migrations applied with it)"
        );
    }
    Ok(())
}

/// V33 (issue 41) rebuilt the reversals index to hold the credit notes too: a read of every
/// invoice, 8 s a million rows on this box, over a minute at a decade's size while the shop
/// waits. Its text is kept (databases applied it; refinery checks its checksum), but a database
/// from V20 (whose index holds the corrective documents) up to V32 gets it recorded as applied,
/// with refinery's own checksum, and keeps V20's index: the report reads the corrective documents
/// off either form and the credit notes off V44's `credit_notes` ([`reports::reversals`]).
const REVERSALS_INDEX_KEPT: (i32, i32) = (20, 33);

fn build_report_totals(writer: &mut Connection) -> Result<()> {
    let tx = writer.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut last_tenth = 0;
    let mut progress = |done: usize, total: usize| {
        let tenth = done * 10 / total.max(1);
        if tenth > last_tenth {
            last_tenth = tenth;
            tracing::info!(done, total, "building the report totals from the stored documents");
        }
    };
    let built = invoices::report_totals::build_if_needed(&tx, &mut progress)?;
    tx.commit()?;
    if let Some(documents) = built {
        tracing::info!(documents, "the report totals were built from the stored documents");
    }
    Ok(())
}

/// The newest migration this binary carries (the schema version it writes).
pub fn latest_schema_version() -> i64 {
    embedded::migrations::runner().get_migrations().iter().map(|m| i64::from(m.version())).max().unwrap_or(0)
}

/// Creates the database at `path` as an older Arka left it: migrated up to `version` only. For
/// trying an upgrade (tests, or a technician rehearsing one on a copy).
pub fn create_at_version(path: &Path, version: i32) -> Result<()> {
    let mut conn = Connection::open(path)?;
    configure(&conn)?;
    embedded::migrations::runner()
        .set_target(refinery::Target::Version(version))
        .run(&mut conn)
        .map_err(Error::Migration)?;
    Ok(())
}

/// The newest migration applied to the database behind `conn`; 0 for a database Arka never
/// migrated (no history table).
pub fn schema_version(conn: &Connection) -> Result<i64> {
    let has_history: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'refinery_schema_history')
             AS has_history",
        [],
        |r| r.get("has_history"),
    )?;
    if !has_history {
        return Ok(0);
    }
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(version), 0) AS version FROM refinery_schema_history",
        [],
        |r| r.get("version"),
    )?)
}

/// The schema version of the existing database at `path`, read without changing it; None when
/// there is no database there yet.
pub fn existing_schema_version(path: &Path) -> Result<Option<i64>> {
    if !path.exists() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    configure(&conn)?;
    Ok(Some(schema_version(&conn)?))
}

/// Current UTC time as stored in the database.
pub fn now_text() -> String {
    time_text(chrono::Utc::now())
}

/// `at` as the database stores a time.
pub fn time_text(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking::<_, Error>(|tx| Ok(tx.execute_batch("CREATE TABLE notes (text TEXT NOT NULL)")?))
            .unwrap();
        (dir, store)
    }

    fn count(store: &Store) -> i64 {
        store
            .read_blocking(
                |c| Ok(c.query_row("SELECT COUNT(*) AS notes FROM notes", [], |r| r.get("notes"))?),
            )
            .unwrap()
    }

    fn insert(tx: &Transaction, text: &str) -> Result<()> {
        tx.execute("INSERT INTO notes (text) VALUES (?1)", [text])?;
        Ok(())
    }

    #[test]
    fn a_new_database_has_small_pages_and_every_frame_a_write_appends_is_counted() {
        let (_dir, store) = store();
        let before = store.wal_frames();
        store.write_blocking(|tx| insert(tx, "one")).unwrap();
        let page_size: i64 = store
            .read_blocking(|c| Ok(c.query_row("PRAGMA page_size", [], |r| r.get("page_size"))?))
            .unwrap();
        assert_eq!(page_size, PAGE_SIZE);
        assert!(store.wal_frames() > before, "{} frames after {before}", store.wal_frames());
    }

    #[test]
    fn a_database_with_larger_pages_is_rewritten_with_small_ones_and_keeps_its_rows() {
        let (_dir, path) = database_with_4k_pages();
        let store = Store::open(&path).unwrap();
        assert_eq!(page_size_and_mode(&store), (PAGE_SIZE, "wal".to_string()));
        assert_eq!(count(&store), 1);
    }

    /// A database of an older release: SQLite's default pages, one row.
    fn database_with_4k_pages() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        let old = Connection::open(&path).unwrap();
        old.pragma_update(None, "page_size", 4096).unwrap();
        old.pragma_update(None, "journal_mode", "WAL").unwrap();
        old.execute_batch("CREATE TABLE notes (text TEXT NOT NULL); INSERT INTO notes VALUES ('kept');")
            .unwrap();
        (dir, path)
    }

    fn page_size_and_mode(store: &Store) -> (i64, String) {
        store
            .read_blocking(|c| {
                Ok((
                    c.query_row("PRAGMA page_size", [], |r| r.get("page_size"))?,
                    c.query_row("PRAGMA journal_mode", [], |r| r.get("journal_mode"))?,
                ))
            })
            .unwrap()
    }

    #[test]
    fn a_database_too_big_to_rewrite_at_start_keeps_its_pages_until_asked() {
        let (_dir, path) = database_with_4k_pages();
        let store = Store::open_with(&path, PageRewrite::UpTo(1)).unwrap();
        assert_eq!(page_size_and_mode(&store), (4096, "wal".to_string()), "a start leaves it as it is");
        assert_eq!(count(&store), 1);
        drop(store);
        let store = Store::open_with_small_pages(&path).unwrap();
        assert_eq!(page_size_and_mode(&store), (PAGE_SIZE, "wal".to_string()), "asked: rewritten");
        assert_eq!(count(&store), 1);
    }

    #[test]
    fn an_unsynced_write_commits_and_leaves_the_next_writes_durable() {
        let (_dir, store) = store();
        let (asked, done) = store.log.tickets();
        store.write_blocking_unsynced(|tx| insert(tx, "the CIS's code")).unwrap();
        assert_eq!(count(&store), 1, "committed, visible at once");
        assert_eq!(store.log.tickets(), (asked, done), "no sync asked for");
        let failed = store.write_blocking_unsynced(|tx| -> Result<()> {
            insert(tx, "half-written")?;
            Err(Error::Overflow)
        });
        assert!(matches!(failed, Err(Error::Overflow)));
        assert_eq!(count(&store), 1, "a failed unsynced write is rolled back like any other");
        let (asked, _) = store.log.tickets();
        store.write_blocking(|tx| insert(tx, "a durable write")).unwrap();
        assert_eq!(
            store.log.tickets(),
            (asked + 1, asked + 1),
            "a durable write returns once a sync covers it"
        );
        let writer: i64 = store
            .write_blocking::<_, Error>(|tx| {
                Ok(tx.query_row("PRAGMA synchronous", [], |r| r.get("synchronous"))?)
            })
            .unwrap();
        assert_eq!(writer, 1, "the writer commits without syncing (NORMAL); `LogSync` syncs");
    }

    #[test]
    fn a_cached_statement_is_not_compiled_again_when_its_parameters_are_bound_again() {
        let (_dir, store) = store();
        store
            .write_blocking::<_, Error>(|tx| Ok(tx.execute_batch("CREATE INDEX notes_text ON notes(text)")?))
            .unwrap();
        for i in 0..5 {
            let reprepared = store
                .write_blocking(|tx| -> Result<_> {
                    let mut max = tx.prepare_cached(
                        "SELECT COALESCE(MAX(rowid), 0) AS last FROM notes WHERE text = :text",
                    )?;
                    let _: i64 = max
                        .query_row(rusqlite::named_params! {":text": format!("note {i}")}, |r| {
                            r.get("last")
                        })?;
                    insert(tx, &format!("note {i}"))?;
                    Ok(max.get_status(rusqlite::StatementStatus::RePrepare))
                })
                .unwrap();
            assert_eq!(reprepared, 0, "run {i}");
        }
    }

    #[test]
    fn the_accounts_version_moves_after_a_write_to_the_accounts_and_only_then() {
        let (_dir, store) = store();
        let before = store.accounts_version();
        store.write_blocking(|tx| insert(tx, "a sale")).unwrap();
        store.write_blocking_unsynced(|tx| insert(tx, "another")).unwrap();
        assert_eq!(store.accounts_version(), before, "documents leave what callers were read from alone");
        store.write_blocking(|tx| accounts::insert_partner(tx, "Desk", "hash")).unwrap();
        let after_insert = store.accounts_version();
        assert!(after_insert > before);
        store
            .write_blocking_unsynced(|tx| -> Result<_> {
                Ok(tx.execute("UPDATE partners SET name = 'Desk 2' WHERE token_hash = 'hash'", [])?)
            })
            .unwrap();
        assert!(store.accounts_version() > after_insert, "unsynced writes count too");
    }

    #[test]
    fn a_write_that_panics_is_rolled_back_and_the_next_write_goes_through() {
        let (_dir, store) = store();
        let failed = store.write_blocking(|tx| -> Result<()> {
            insert(tx, "half-written")?;
            let huge = rust_decimal::Decimal::MAX;
            // The way the balance overflowed: Decimal's `+` panics on overflow.
            let _ = std::hint::black_box(huge) + huge;
            Ok(())
        });
        match failed {
            Err(Error::Panicked(message)) => assert!(message.contains("overflow"), "{message}"),
            other => panic!("expected a caught panic, got {other:?}"),
        }
        assert_eq!(count(&store), 0, "nothing of the panicking write is kept");

        store.write_blocking(|tx| insert(tx, "next")).unwrap();
        assert_eq!(count(&store), 1);
    }

    #[test]
    fn a_writer_poisoned_in_the_middle_of_a_transaction_is_rolled_back_and_used_again() {
        let (_dir, store) = store();
        let writer = store.writer.clone();
        let crashed = std::thread::spawn(move || {
            let conn = writer.lock().unwrap();
            conn.execute_batch("BEGIN IMMEDIATE; INSERT INTO notes (text) VALUES ('left open')").unwrap();
            panic!("a thread dies holding the writer");
        })
        .join();
        assert!(crashed.is_err() && store.writer.is_poisoned());

        store.write_blocking(|tx| insert(tx, "after")).unwrap();
        assert_eq!(count(&store), 1, "the transaction left open was rolled back");
        assert!(!store.writer.is_poisoned());
    }

    /// A use case's own error, as `services::Error` is to the store: its refusals and what
    /// failed underneath.
    #[derive(Debug)]
    enum UseCase {
        Refused(&'static str),
        Store(Error),
    }

    impl From<Error> for UseCase {
        fn from(e: Error) -> Self {
            UseCase::Store(e)
        }
    }

    #[test]
    fn a_refusal_rolls_back_everything_written_before_it() {
        let (_dir, store) = store();
        let refused = store.write_blocking(|tx| {
            insert(tx, "a sale whose goods turn out short")?;
            Err::<(), _>(UseCase::Refused("goods short"))
        });
        assert!(matches!(refused, Err(UseCase::Refused("goods short"))), "{refused:?}");
        let refused = store.write_blocking_unsynced(|tx| {
            insert(tx, "a note whose goods turn out short")?;
            Err::<(), _>(UseCase::Refused("goods short"))
        });
        assert!(matches!(refused, Err(UseCase::Refused(_))), "{refused:?}");
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let refused = runtime.block_on(store.write(|tx| {
            insert(tx, "refused on the blocking pool")?;
            Err::<(), _>(UseCase::Refused("taken"))
        }));
        assert!(matches!(refused, Err(UseCase::Refused(_))), "{refused:?}");
        assert_eq!(count(&store), 0, "nothing of a refused write stays");

        let failed = store.write_blocking(|tx| -> std::result::Result<(), UseCase> {
            insert(tx, "half-written")?;
            tx.execute("INSERT INTO no_such_table VALUES (1)", []).map_err(Error::from)?;
            Ok(())
        });
        assert!(matches!(failed, Err(UseCase::Store(Error::Sqlite(_)))), "{failed:?}");
        assert_eq!(count(&store), 0, "a store failure inside comes back as the caller's error");

        store.write_blocking(|tx| -> std::result::Result<(), UseCase> { Ok(insert(tx, "kept")?) }).unwrap();
        assert_eq!(count(&store), 1, "an Ok commits");
    }

    #[test]
    fn an_error_rolls_back_and_keeps_its_cause() {
        let (_dir, store) = store();
        let failed = store.write_blocking(|tx| -> Result<()> {
            insert(tx, "kept?")?;
            Err(Error::Overflow)
        });
        assert!(matches!(failed, Err(Error::Overflow)));
        assert_eq!(count(&store), 0);
    }

    /// The SQLite instructions the first start of this release runs over a database the
    /// previous release left with `invoices` documents.
    fn upgrade_instructions(invoices: i64) -> u64 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.db");
        create_at_version(&path, downgrade::PREVIOUS_RELEASE_SCHEMA).unwrap();
        let mut conn = Connection::open(&path).unwrap();
        configure(&conn).unwrap();
        conn.execute_batch("INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Dyqani', 'now')")
            .unwrap();
        conn.execute(
            "INSERT INTO invoices (company_id, internal_id, year, kind, api_version, ord_num, number, inv_num,
                 issued_at, issue_date, issue_date_time, currency, exchange_rate, gross, net, vat, discount,
                 discount_gross, fee, total, gross_all, net_all, vat_all, discount_all, iic, iic_signature,
                 header_uuid, verify_url, search_text, created_at, document_kind)
             WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?1)
             SELECT 1, 'r-' || k, 2025, 'CASH', 2, k, k || '/2025', k || '/2025', '2025-03-01T10:00:00Z',
                 '2025-03-01', '2025-03-01T11:00:00+01:00', 'ALL', '1', '120', '100', '20', '0', '0', '0',
                 '120', '120', '100', '20', '0', printf('%032X', k), 's', 'u-' || k, 'v', '', 'now',
                 CASE k % 10 WHEN 0 THEN 'CORRECTIVE' ELSE 'CASH' END
             FROM n",
            [invoices],
        )
        .unwrap();
        let counted = Arc::new(AtomicU64::new(0));
        let steps = counted.clone();
        conn.progress_handler(
            100,
            Some(move || {
                steps.fetch_add(100, Ordering::Relaxed);
                false
            }),
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        assert_eq!(schema_version(&conn).unwrap(), latest_schema_version());
        counted.load(Ordering::Relaxed)
    }

    /// An upgrade's work does not grow with the books (the house rule, issue 46): twenty thousand
    /// more invoices cost its migrations fewer instructions than one per invoice, where reading
    /// them (an index built over them) would cost several each.
    #[test]
    fn the_upgrade_from_the_previous_release_reads_no_invoice() {
        let (few, many) = (upgrade_instructions(100), upgrade_instructions(20_100));
        assert!(many < few + 20_000, "{few} instructions over 100 invoices, {many} over 20,100");
    }
}
