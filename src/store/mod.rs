//! SQLite: one writer connection for every write (each write one transaction), a small pool
//! of read connections running in parallel (WAL). Blocking work runs on tokio's blocking pool.

pub mod accounts;
pub mod cash_register;
pub mod clients;
pub mod devices;
pub mod fiscal_queue;
pub mod invoices;
pub mod products;
pub mod rates;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Errors of the store layer.
#[derive(Debug)]
pub enum Error {
    Sqlite(rusqlite::Error),
    /// A UNIQUE constraint refused the write; carries SQLite's text (names the column).
    Duplicate(String),
    Migration(String),
    Io(std::io::Error),
    /// A blocking task did not complete (panicked or was cancelled).
    Task(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Sqlite(e) => write!(f, "sqlite: {e}"),
            Error::Duplicate(m) => write!(f, "duplicate: {m}"),
            Error::Migration(m) => write!(f, "migration: {m}"),
            Error::Io(e) => write!(f, "io: {e}"),
            Error::Task(m) => write!(f, "task: {m}"),
        }
    }
}

impl std::error::Error for Error {}

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

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// Read connections kept open; more are opened on demand and dropped when the pool is full.
const READERS_KEPT: usize = 4;

#[derive(Clone)]
pub struct Store {
    path: PathBuf,
    writer: Arc<Mutex<Connection>>,
    readers: Arc<Mutex<Vec<Connection>>>,
}

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

impl Store {
    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut writer = Connection::open(path)?;
        writer.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: an acknowledged document must survive a power cut, not only a crash.
        writer.pragma_update(None, "synchronous", "FULL")?;
        configure(&writer)?;
        embedded::migrations::runner().run(&mut writer).map_err(|e| Error::Migration(e.to_string()))?;
        Ok(Store {
            path: path.to_path_buf(),
            writer: Arc::new(Mutex::new(writer)),
            readers: Arc::new(Mutex::new(Vec::new())),
        })
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

    /// Runs `f` inside one write transaction (BEGIN IMMEDIATE), committing when it returns Ok
    /// and rolling back otherwise. Blocks the calling thread.
    pub fn write_blocking<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn =
            self.writer.lock().map_err(|_| Error::Task("the writer connection was poisoned".into()))?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        tx.commit()?;
        Ok(value)
    }

    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.read_blocking(f))
            .await
            .map_err(|e| Error::Task(e.to_string()))?
    }

    pub async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Transaction) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write_blocking(f))
            .await
            .map_err(|e| Error::Task(e.to_string()))?
    }
}

/// Current UTC time as stored in the database.
pub fn now_text() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
