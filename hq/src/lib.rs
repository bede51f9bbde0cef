//! The head office (HQ) of a chain of shops: `arka hq serve --database-url postgres://…`. Every
//! shop's Arka ships its documents, catalog and accounts here (the shop calls; the HQ never
//! calls a shop), and the owner reads every shop's reports in one place. It keeps everything in
//! PostgreSQL and holds no SQLite. A crate of its own (`arka-hq`): it builds on the core (the
//! domain, the invoice and the report model, rows read by name) and the edge (envelopes, readers,
//! reports' answers, the page, TLS), never on the shop's crate, which runs its commands. The
//! shop's side is the shop's `services::hq_sync` and `store::hq_outbox`.

pub mod cli;
pub mod server;
pub mod store;

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

    /// HTTPS with the chain's certificate (`--tls-cert`/`--tls-key`); without them the HQ makes
    /// a self-signed one in `--state-dir` (as `--tls-self-signed`), to copy to each shop as its
    /// `--hq-ca-file`.
    #[command(flatten)]
    pub tls: arka_edge::tls::TlsArgs,

    /// Serve plain HTTP instead of HTTPS (a shop then needs `--hq-allow-http`): the shops' tokens
    /// and documents cross the network readable. Said at every start.
    #[arg(long, env = "ARKA_HQ_PLAIN_HTTP", default_value_t = false, conflicts_with_all = ["tls_cert", "tls_self_signed"])]
    pub plain_http: bool,

    /// Serve `GET /metrics` (Prometheus text: requests, and each shop's silence, backlog and CIS
    /// queue, by shop name; no document).
    #[arg(long, env = "ARKA_HQ_METRICS", default_value_t = false)]
    pub metrics: bool,

    /// Folder for the HQ's self-signed TLS certificate; nothing else is kept on the HQ's disk.
    #[arg(long, env = "ARKA_HQ_STATE_DIR", default_value = "./arka-hq")]
    pub state_dir: PathBuf,
}

impl HqServeArgs {
    /// HTTPS unless asked otherwise: the chain's certificate, else a self-signed one.
    pub fn tls(&self) -> arka_edge::tls::TlsArgs {
        let mut tls = self.tls.clone();
        if !self.plain_http && tls.tls_cert.is_none() {
            tls.tls_self_signed = true;
        }
        tls
    }
}

/// Where the HQ's PostgreSQL is. The URL holds the database's password: give it through the
/// environment or a file, never as a flag (every local user reads flags in `ps`).
#[derive(Debug, Clone, clap::Args)]
pub struct DatabaseArgs {
    /// PostgreSQL's URL, e.g. postgres://arka:secret@db.example/arka_hq?sslmode=require
    /// (TLS through the system's native TLS; `sslmode=prefer` by default). Better set as
    /// ARKA_HQ_DATABASE_URL or in --database-url-file than as this flag.
    #[arg(long, env = "ARKA_HQ_DATABASE_URL", hide_env_values = true, conflicts_with = "database_url_file")]
    pub database_url: Option<String>,

    /// A file holding PostgreSQL's URL on its first line (readable by the HQ's user only).
    #[arg(long, env = "ARKA_HQ_DATABASE_URL_FILE")]
    pub database_url_file: Option<PathBuf>,
}

impl DatabaseArgs {
    /// The URL, from the flag or the environment, else from the file.
    pub fn url(&self) -> std::result::Result<String, String> {
        if let Some(url) = self.database_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
            return Ok(url.to_string());
        }
        let Some(path) = &self.database_url_file else {
            return Err("no database: set ARKA_HQ_DATABASE_URL or --database-url-file".to_string());
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("the database URL file {}: {e}", path.display()))?;
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string)
            .ok_or_else(|| format!("the database URL file {} is empty", path.display()))
    }
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
    /// The name is taken (a shop or an owner), or the act is not one its state allows.
    #[error("{0}")]
    Taken(String),
    /// No shop, owner or number of that name.
    #[error("{0}")]
    Unknown(String),
    /// No token could be made (the system's random source).
    #[error("making a token: {0}")]
    Token(#[source] arka_edge::secrets::Error),
    /// A shop's shipped documents could not be read back as the shop reads them.
    #[error("reading a shop's documents: {0}")]
    Read(String),
    /// A row's column could not be read as its mapper reads it (no such column, another type).
    #[error("the column {column}: {source}")]
    Column {
        column: String,
        #[source]
        source: tokio_postgres::Error,
    },
    /// A shop's row could not be read by its mapper (`arka_core::row`): a column it lacks, a type
    /// it does not hold, or a value Arka never writes there; the read is refused, never defaulted.
    #[error("{0}")]
    Row(#[from] arka_core::row::ColumnError),
    /// A sum went past what a decimal holds.
    #[error("a sum went past what a decimal holds")]
    Overflow,
}

impl Error {
    /// Whether PostgreSQL is away (no connection, a connection lost, the server shutting down or
    /// starting): the caller may try again, as opposed to a statement that failed.
    pub fn is_unreachable(&self) -> bool {
        match self {
            Error::Pool(_) => true,
            Error::Postgres(e) => postgres_away(e),
            _ => false,
        }
    }
}

fn postgres_away(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        let code = code.code();
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03");
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(e) = cause {
        if e.is::<std::io::Error>() {
            return true;
        }
        cause = e.source();
    }
    e.to_string().starts_with("error connecting") || e.to_string().contains("timed out")
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
