//! The head office (HQ) of a chain of shops: `arka hq serve --database-url postgres://…`. Every
//! shop's Arka ships its documents, catalog and accounts here (the shop calls; the HQ never
//! calls a shop), and the owner reads every shop's reports in one place. It keeps everything in
//! PostgreSQL and holds no SQLite: it shares `domain/` and the report shapes with the shop,
//! never the shop's store. The shop's side is `services::hq_sync` and `store::hq_outbox`.

pub mod apply;
pub mod catalog;
pub mod cli;
pub mod client;
pub mod days;
pub mod db;
pub mod invoices;
pub mod numbering;
pub mod report_rows;
pub mod reports;
pub mod server;
pub mod today;
pub mod wire;

use std::net::SocketAddr;
use std::path::PathBuf;

/// `arka hq serve`'s settings.
#[derive(Debug, Clone, clap::Args)]
pub struct HqServeArgs {
    /// Address and port the HQ listens on for its shops and its owner.
    #[arg(long, env = "ARKA_HQ_LISTEN", default_value = "0.0.0.0:8443")]
    pub listen: SocketAddr,

    #[command(flatten)]
    pub database: DatabaseArgs,

    /// Connections to PostgreSQL kept in the pool.
    #[arg(long, env = "ARKA_HQ_POOL", default_value_t = 16)]
    pub pool: usize,

    #[command(flatten)]
    pub tls: crate::config::TlsArgs,

    /// Folder for the HQ's self-signed TLS certificate (`--tls-self-signed`); nothing else is
    /// kept on the HQ's disk.
    #[arg(long, env = "ARKA_HQ_STATE_DIR", default_value = "./arka-hq")]
    pub state_dir: PathBuf,
}

/// Where the HQ's PostgreSQL is.
#[derive(Debug, Clone, clap::Args)]
pub struct DatabaseArgs {
    /// PostgreSQL's URL, e.g. postgres://arka:secret@db.example/arka_hq?sslmode=require
    /// (TLS through the system's native TLS; `sslmode=prefer` by default).
    #[arg(long, env = "ARKA_HQ_DATABASE_URL", hide_env_values = true)]
    pub database_url: String,
}

/// Why the HQ could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// PostgreSQL refused or failed a statement.
    #[error("postgres: {}", postgres_text(.0))]
    Postgres(#[source] tokio_postgres::Error),
    /// No connection could be had from the pool (PostgreSQL away, or the pool exhausted).
    #[error("postgres is not reachable: {0}")]
    Pool(String),
    /// The URL of `--database-url` is not one PostgreSQL takes.
    #[error("the database URL: {0}")]
    Url(#[source] tokio_postgres::Error),
    #[error("migrating the HQ's database: {0}")]
    Migration(#[source] refinery::Error),
    #[error("TLS: {0}")]
    Tls(#[source] native_tls::Error),
    /// The name is taken (a shop or an owner).
    #[error("{0}")]
    Taken(String),
    /// No token could be made (the system's random source).
    #[error("making a token: {0}")]
    Token(#[source] crate::ops::secrets::Error),
    /// A shop's shipped documents could not be read back as the shop reads them.
    #[error("reading a shop's documents: {0}")]
    Read(String),
    /// A sum went past what a decimal holds.
    #[error("a sum went past what a decimal holds")]
    Overflow,
}

/// A statement's failure as PostgreSQL words it (its SQLSTATE and message), else as the client does.
fn postgres_text(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => e.to_string(),
    }
}

impl From<tokio_postgres::Error> for Error {
    fn from(e: tokio_postgres::Error) -> Self {
        Error::Postgres(e)
    }
}

impl From<deadpool_postgres::PoolError> for Error {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        match e {
            deadpool_postgres::PoolError::Backend(e) => Error::Postgres(e),
            other => Error::Pool(other.to_string()),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
