//! One place for every setting: flags > environment (`ARKA_*`) > defaults. The environment file
//! read by the systemd unit (`install/arka.env`) is the configuration file.

pub mod limits;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use clap::{Args, ValueEnum};
use limits::LimitSettings;

pub use arka_edge::tls::TlsArgs;

/// Production base URL of Wolt's merchant API, `--wolt-url`'s default.
pub const WOLT_URL: &str = "https://pos-integration-service.wolt.com";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CisEnv {
    Test,
    Production,
}

/// Which requests count as made from the box itself (`--setup-from-box`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BoxPeers {
    /// A TCP peer on loopback (127.0.0.0/8 or ::1).
    Loopback,
    /// None: the first company needs the setup code from everywhere.
    None,
}

impl BoxPeers {
    /// Whether a request from `peer` (the TCP peer: the server knows no other) is the box's own.
    pub fn includes(self, peer: std::net::IpAddr) -> bool {
        match self {
            BoxPeers::Loopback => peer.is_loopback() || peer.to_canonical().is_loopback(),
            BoxPeers::None => false,
        }
    }
}

/// `--session-idle`'s default: a day.
pub const DEFAULT_SESSION_IDLE_SECS: u64 = 24 * 60 * 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Pretty,
    Json,
}

/// `--listen`'s default, shared by `serve` and `healthcheck`.
pub const DEFAULT_LISTEN: &str = "0.0.0.0:8080";

/// Where the store lives. Shared by every command that opens the database.
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// Folder holding the database (arka.db) and the key file that encrypts certificate keys
    /// (on Windows: %ProgramData%\Arka\data).
    #[arg(long, env = "ARKA_DATA_DIR", default_value_os_t = default_data_dir())]
    pub data_dir: PathBuf,
}

/// `--data-dir`'s default: beside where Arka is started on Unix (the systemd unit names its own),
/// the machine's place for programs' data on Windows, where the service and the installer keep it.
pub fn default_data_dir() -> PathBuf {
    #[cfg(windows)]
    {
        crate::ops::windows::service::data_dir(&crate::ops::windows::service::home(std::env::var_os(
            "ProgramData",
        )))
    }
    #[cfg(not(windows))]
    {
        PathBuf::from("./arka-data")
    }
}

impl DataArgs {
    pub fn db_path(&self) -> PathBuf {
        self.data_dir.join("arka.db")
    }
}

/// `--cis-in-flight`'s default.
pub const DEFAULT_CIS_IN_FLIGHT: u16 = 16;

/// `--cis-wait`: more than 0 and at most 60 seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CisWait(pub Duration);

impl CisWait {
    pub const DEFAULT: CisWait = CisWait(Duration::from_secs(2));
    const MAX_SECONDS: f64 = 60.0;
}

impl std::str::FromStr for CisWait {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let seconds: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{text}' is not a number of seconds (e.g. 2 or 1.5)"))?;
        if !(seconds > 0.0 && seconds <= Self::MAX_SECONDS) {
            return Err(format!("the wait must be more than 0 and at most {} seconds", Self::MAX_SECONDS));
        }
        Ok(CisWait(Duration::from_secs_f64(seconds)))
    }
}

impl std::fmt::Display for CisWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

/// Settings of `arka serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address and port the HTTP API listens on. Use 127.0.0.1:8080 to accept only this computer.
    #[arg(long, env = "ARKA_LISTEN", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,

    #[command(flatten)]
    pub data: DataArgs,

    /// Run with a built-in CIS simulator and a ready sandbox company; needs no other setup.
    /// Never use it for real sales: nothing is sent to the tax administration.
    #[arg(long, env = "ARKA_SANDBOX", default_value_t = false)]
    pub sandbox: bool,

    /// Which CIS to talk to: the tax administration's test or production service.
    #[arg(long, env = "ARKA_CIS_ENV", value_enum, default_value = "test")]
    pub cis_env: CisEnv,

    /// Fiscalization service URL; overrides the preset's.
    /// Example: https://efiskalizimi-test.tatime.gov.al/FiscalizationService-v3
    #[arg(long, env = "ARKA_CIS_URL")]
    pub cis_url: Option<String>,

    /// E-invoice service URL; overrides the preset's.
    /// Example: https://einvoice-test.tatime.gov.al/EinvoiceService-v1
    #[arg(long, env = "ARKA_EINVOICE_URL")]
    pub einvoice_url: Option<String>,

    /// PEM file of root certificates to trust for the CIS instead of the system's.
    #[arg(long, env = "ARKA_CIS_CA_FILE")]
    pub cis_ca_file: Option<PathBuf>,

    /// Seconds allowed to connect to the CIS.
    #[arg(long, env = "ARKA_CIS_CONNECT_TIMEOUT", default_value_t = 3)]
    pub cis_connect_timeout: u64,

    /// Seconds allowed for a whole CIS call; after that a cash document is kept and sent later.
    #[arg(long, env = "ARKA_CIS_TIMEOUT", default_value_t = 6)]
    pub cis_timeout: u64,

    /// Seconds a POS waits for its receipt to reach the CIS (decimals allowed, e.g. 1.5); then it
    /// is answered with the receipt saved for late delivery while the delivery goes on.
    #[arg(long, env = "ARKA_CIS_WAIT", default_value_t = CisWait::DEFAULT)]
    pub cis_wait: CisWait,

    /// How many documents of one TCR (or of one business's non-cash sequence) may be at the CIS
    /// at once.
    #[arg(long, env = "ARKA_CIS_IN_FLIGHT", default_value_t = DEFAULT_CIS_IN_FLIGHT,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub cis_in_flight: u16,

    /// Software code the tax administration issued for this software (sent as SoftCode).
    #[arg(long, env = "ARKA_SOFT_CODE")]
    pub soft_code: Option<String>,

    /// Maintainer code the tax administration issued to the software's maintainer.
    #[arg(long, env = "ARKA_MAINTAINER_CODE")]
    pub maintainer_code: Option<String>,

    /// Address POS apps reach this server on, used in invoice `pdf` links
    /// (e.g. http://192.168.1.10:8080). Without it, the Host of each request is used.
    #[arg(long, env = "ARKA_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// How log lines are written: pretty (for people) or json (for log collectors).
    #[arg(long, env = "ARKA_LOG_FORMAT", value_enum, default_value = "pretty")]
    pub log_format: LogFormat,

    /// Largest request body accepted, in bytes (larger bodies get 413).
    #[arg(long, env = "ARKA_MAX_BODY_BYTES", default_value_t = 2 * 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Rate limits, as `name=rate[,rate]` pairs separated by `;`. Rates are `N/s`, `N/m` or `N/h`
    /// for budgets and `Ns` for minimum intervals. Unnamed limits keep their defaults.
    /// Names: token, ip, general, fiscal, bulk, print, reports, search, registration, cancel,
    /// marketplace.reads, marketplace.writes, interval.products, interval.clients,
    /// interval.bank_accounts, interval.wtn.
    /// Example: "token=600/m;fiscal=60/m,1200/h;interval.products=5s".
    #[arg(long, env = "ARKA_LIMITS", default_value = "")]
    pub limits: LimitSettings,

    #[command(flatten)]
    pub tls: TlsArgs,

    /// Serve GET /metrics (Prometheus text) without a token. Off by default.
    #[arg(long, env = "ARKA_METRICS", default_value_t = false)]
    pub metrics: bool,

    #[command(flatten)]
    pub backups: BackupSchedule,

    #[command(flatten)]
    pub copy: CopyArgs,

    /// Base URL of Wolt's merchant order API. With --sandbox the built-in Wolt simulator is used
    /// instead.
    #[arg(long, env = "ARKA_WOLT_URL", default_value = WOLT_URL)]
    pub wolt_url: Option<String>,

    /// Seconds allowed for a whole call to Wolt; after that the POS gets 502 and may retry.
    #[arg(long, env = "ARKA_WOLT_TIMEOUT", default_value_t = 8)]
    pub wolt_timeout: u64,

    /// With --sandbox: seconds between the simulated Wolt orders of the sandbox venue (0: none).
    #[arg(long, env = "ARKA_SANDBOX_ORDER_EVERY", default_value_t = 180)]
    pub sandbox_order_every: u64,

    #[command(flatten)]
    pub rates: RatesArgs,

    #[command(flatten)]
    pub ai: AiArgs,

    /// Seconds a signed-in browser (the owner's page) may stay idle before its session ends.
    #[arg(long, env = "ARKA_SESSION_IDLE", default_value_t = DEFAULT_SESSION_IDLE_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub session_idle: u64,

    /// Which requests may set up the first company without the setup code: `loopback` (a browser
    /// on the box itself) or `none`. Only the TCP peer is known: behind a reverse proxy on the same
    /// box every request comes from loopback, so use `none` there.
    #[arg(long, env = "ARKA_SETUP_FROM_BOX", value_enum, default_value = "loopback")]
    pub setup_from_box: BoxPeers,
    /// The time rate-limit windows and the health probe are measured on: the system's, which a
    /// test moves forward instead of sleeping. Not a setting.
    #[arg(skip)]
    pub clock: Clock,

    #[command(flatten)]
    pub hq: HqLinkArgs,
}

/// A shop in a chain: the head office (`arka hq serve`) its outbox goes to.
#[derive(Debug, Clone, Default, Args)]
pub struct HqLinkArgs {
    /// The chain's head office, e.g. https://hq.example:8443; with it the shop ships every
    /// document and catalog change there (a sale never waits for it).
    #[arg(long, env = "ARKA_HQ_URL", requires = "hq_token")]
    pub hq_url: Option<String>,

    /// The shop's token at the head office, from `arka hq shops add` (better through the
    /// environment, so it stays out of `ps`).
    #[arg(long, env = "ARKA_HQ_TOKEN", hide_env_values = true)]
    pub hq_token: Option<String>,

    /// PEM file of root certificates to trust for the head office instead of the system's.
    #[arg(long, env = "ARKA_HQ_CA_FILE")]
    pub hq_ca_file: Option<PathBuf>,

    /// Take a plain http:// head office address (its traffic readable on the network); said at
    /// every start. Without it such an address is refused.
    #[arg(long, env = "ARKA_HQ_ALLOW_HTTP", default_value_t = false)]
    pub hq_allow_http: bool,
}

pub const DEFAULT_BACKUP_KEEP: u16 = 7;

/// Automatic backups: one each night and one before the migrations of an upgrade.
#[derive(Debug, Clone, Args)]
pub struct BackupSchedule {
    /// Folder for automatic backups (nightly at 03:00 Tirana time, and before an upgrade migrates
    /// the database). Without it, no automatic backups are taken.
    #[arg(long, env = "ARKA_BACKUP_DIR")]
    pub backup_dir: Option<PathBuf>,

    /// Automatic backups kept in --backup-dir; older ones are deleted.
    #[arg(long, env = "ARKA_BACKUP_KEEP", default_value_t = DEFAULT_BACKUP_KEEP,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub backup_keep: u16,

    /// The background check of the copies taken before an upgrade starts once this is open: it
    /// always is, except in a test that holds it to see the server answer meanwhile. Not a
    /// setting.
    #[arg(skip)]
    pub check_gate: CheckGate,
}

impl Default for BackupSchedule {
    fn default() -> Self {
        BackupSchedule {
            backup_dir: None,
            backup_keep: DEFAULT_BACKUP_KEEP,
            check_gate: CheckGate::default(),
        }
    }
}

pub const DEFAULT_COPY_EVERY_SECS: u64 = 10;
pub const DEFAULT_COPY_S3_REGION: &str = "us-east-1";
pub const DEFAULT_COPY_S3_PREFIX: &str = "arka";
pub const DEFAULT_COPY_S3_TIMEOUT_SECS: u64 = 60;
pub const DEFAULT_COPY_VERIFY_EVERY_HOURS: u64 = 168;

/// The copy of the database kept off the box while the server runs: to a folder on another disk
/// or share, to an S3-compatible bucket, or both. Sealed with the copy's key before it leaves.
#[derive(Debug, Clone, Args)]
pub struct CopyArgs {
    #[command(flatten)]
    pub places: CopyPlaces,

    /// Seconds between two readings of the database's log for the copy (sooner when it grows
    /// long); the copy is about this far behind while its places can be reached.
    #[arg(long, env = "ARKA_COPY_EVERY", default_value_t = DEFAULT_COPY_EVERY_SECS,
          value_parser = clap::value_parser!(u64).range(1..=60))]
    pub copy_every: u64,

    /// Hours between two restores of the copy made and checked (verified restores).
    #[arg(long, env = "ARKA_COPY_VERIFY_EVERY", default_value_t = DEFAULT_COPY_VERIFY_EVERY_HOURS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub copy_verify_every: u64,
}

/// Where the copy off the box is, and the key it is sealed with: what `serve` writes to and
/// `arka restore --from-copy` reads from.
#[derive(Debug, Clone, Args)]
pub struct CopyPlaces {
    /// Folder on another disk or a network share for the continuous copy (seconds behind).
    #[arg(long, env = "ARKA_COPY_DIR")]
    pub copy_dir: Option<PathBuf>,

    /// S3-compatible endpoint for the continuous copy, e.g. https://s3.eu-central-1.amazonaws.com
    /// or http://nas.local:9000 (with --copy-s3-bucket and the keys).
    #[arg(long, env = "ARKA_COPY_S3_URL", requires_all = ["copy_s3_bucket", "copy_s3_access_key", "copy_s3_secret_key"])]
    pub copy_s3_url: Option<String>,

    /// The bucket the copy goes to (made beforehand by its owner).
    #[arg(long, env = "ARKA_COPY_S3_BUCKET")]
    pub copy_s3_bucket: Option<String>,

    /// The bucket's region (a NAS takes any).
    #[arg(long, env = "ARKA_COPY_S3_REGION", default_value = DEFAULT_COPY_S3_REGION)]
    pub copy_s3_region: String,

    /// The access key that may write to the bucket.
    #[arg(long, env = "ARKA_COPY_S3_ACCESS_KEY")]
    pub copy_s3_access_key: Option<String>,

    /// Its secret (better through the environment, so it stays out of `ps`). Never logged.
    #[arg(long, env = "ARKA_COPY_S3_SECRET_KEY", hide_env_values = true)]
    pub copy_s3_secret_key: Option<Secret>,

    /// Objects' names in the bucket start with this, so one bucket may hold several shops.
    #[arg(long, env = "ARKA_COPY_S3_PREFIX", default_value = DEFAULT_COPY_S3_PREFIX)]
    pub copy_s3_prefix: String,

    /// Address the bucket as bucket.host (virtual-hosted style) instead of host/bucket.
    #[arg(long, env = "ARKA_COPY_S3_VIRTUAL_HOST", default_value_t = false)]
    pub copy_s3_virtual_host: bool,

    /// Seconds one call to the bucket may take.
    #[arg(long, env = "ARKA_COPY_S3_TIMEOUT", default_value_t = DEFAULT_COPY_S3_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub copy_s3_timeout: u64,

    /// The key file the copy is sealed with. Default: the data dir's arka-copy.key, made and
    /// printed once by `arka copy key`. The data dir's arka.key may be named instead.
    #[arg(long, env = "ARKA_COPY_KEY_FILE")]
    pub copy_key_file: Option<PathBuf>,
}

impl Default for CopyArgs {
    fn default() -> Self {
        CopyArgs {
            places: CopyPlaces::default(),
            copy_every: DEFAULT_COPY_EVERY_SECS,
            copy_verify_every: DEFAULT_COPY_VERIFY_EVERY_HOURS,
        }
    }
}

impl Default for CopyPlaces {
    fn default() -> Self {
        CopyPlaces {
            copy_dir: None,
            copy_s3_url: None,
            copy_s3_bucket: None,
            copy_s3_region: DEFAULT_COPY_S3_REGION.to_string(),
            copy_s3_access_key: None,
            copy_s3_secret_key: None,
            copy_s3_prefix: DEFAULT_COPY_S3_PREFIX.to_string(),
            copy_s3_virtual_host: false,
            copy_s3_timeout: DEFAULT_COPY_S3_TIMEOUT_SECS,
            copy_key_file: None,
        }
    }
}

impl CopyPlaces {
    /// A place for the copy is set.
    pub fn enabled(&self) -> bool {
        self.copy_dir.is_some() || self.copy_s3_url.is_some()
    }
}

/// Open unless its write side is held (shared by every clone).
#[derive(Debug, Clone, Default)]
pub struct CheckGate(pub Arc<tokio::sync::RwLock<()>>);

impl ServeArgs {
    /// Settings for a server on `listen` with everything else at its default.
    pub fn defaults(listen: SocketAddr, data_dir: PathBuf) -> Self {
        ServeArgs {
            listen,
            data: DataArgs { data_dir },
            sandbox: false,
            cis_env: CisEnv::Test,
            cis_url: None,
            einvoice_url: None,
            cis_ca_file: None,
            cis_connect_timeout: 3,
            cis_timeout: 6,
            cis_wait: CisWait::DEFAULT,
            cis_in_flight: DEFAULT_CIS_IN_FLIGHT,
            soft_code: None,
            maintainer_code: None,
            public_url: None,
            log_format: LogFormat::Pretty,
            max_body_bytes: 2 * 1024 * 1024,
            limits: LimitSettings::default(),
            tls: TlsArgs::default(),
            metrics: false,
            backups: BackupSchedule::default(),
            copy: CopyArgs::default(),
            wolt_url: None,
            wolt_timeout: 8,
            sandbox_order_every: 180,
            rates: RatesArgs::default(),
            ai: AiArgs::default(),
            session_idle: DEFAULT_SESSION_IDLE_SECS,
            setup_from_box: BoxPeers::Loopback,
            clock: Clock::default(),
            hq: HqLinkArgs::default(),
        }
    }

    pub fn wolt_timeout(&self) -> Duration {
        Duration::from_secs(self.wolt_timeout.max(1))
    }

    /// How long a request may wait for the single database writer.
    pub fn busy_timeout(&self) -> Duration {
        Duration::from_secs(5)
    }
}

/// The pages exchange rates are read from, preset to each source's public page; an owner points
/// one elsewhere when a site moves it.
pub const BOA_RATES_URL: &str = "https://www.bankofalbania.org/Tregjet/Kursi_zyrtar_i_kembimit/";
pub const BKT_RATES_URL: &str = "https://www.bkt.com.al/";
pub const ILIRIA98_RATES_URL: &str = "https://iliria98.com/";
pub const ADON_RATES_URL: &str = "https://www.adon.al/";
pub const RATES_TIMEOUT_SECS: u64 = 5;
pub const RATES_CACHE_SECS: u64 = 3600;

/// Exchange-rate sources: where their pages are and how long a read may take and is kept.
#[derive(Debug, Clone, Args)]
pub struct RatesArgs {
    /// Page of the Bank of Albania's official exchange rates (source BOA).
    #[arg(long, env = "ARKA_RATES_BOA_URL", default_value = BOA_RATES_URL)]
    pub rates_boa_url: String,

    /// Page of BKT's exchange rates (source BKT).
    #[arg(long, env = "ARKA_RATES_BKT_URL", default_value = BKT_RATES_URL)]
    pub rates_bkt_url: String,

    /// Page of the Iliria98 exchange bureau's rates (source Iliria98).
    #[arg(long, env = "ARKA_RATES_ILIRIA98_URL", default_value = ILIRIA98_RATES_URL)]
    pub rates_iliria98_url: String,

    /// Page of the ADON exchange bureau's rates (source ADON).
    #[arg(long, env = "ARKA_RATES_ADON_URL", default_value = ADON_RATES_URL)]
    pub rates_adon_url: String,

    /// Seconds a source's page may take to load; after that its last good rates are served.
    #[arg(long, env = "ARKA_RATES_TIMEOUT", default_value_t = RATES_TIMEOUT_SECS)]
    pub rates_timeout: u64,

    /// Seconds rates read from a page are used before the page is read again.
    #[arg(long, env = "ARKA_RATES_CACHE", default_value_t = RATES_CACHE_SECS)]
    pub rates_cache: u64,
}

impl Default for RatesArgs {
    fn default() -> Self {
        RatesArgs {
            rates_boa_url: BOA_RATES_URL.to_string(),
            rates_bkt_url: BKT_RATES_URL.to_string(),
            rates_iliria98_url: ILIRIA98_RATES_URL.to_string(),
            rates_adon_url: ADON_RATES_URL.to_string(),
            rates_timeout: RATES_TIMEOUT_SECS,
            rates_cache: RATES_CACHE_SECS,
        }
    }
}

/// A setting never to be shown: `Debug` prints a placeholder, so a logged `ServeArgs` keeps it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

pub const AI_TIMEOUT_SECS: u64 = 120;

/// The owner's OpenAI-compatible chat endpoint behind `POST /api/v1/ai/chat/completions`.
#[derive(Debug, Clone, Args)]
pub struct AiArgs {
    /// API base of an OpenAI-compatible server (e.g. http://192.168.1.20:11434/v1 for a model
    /// server on the shop's network); /chat/completions is added. Without it the route answers
    /// that no endpoint is configured.
    #[arg(long, env = "ARKA_AI_URL")]
    pub ai_url: Option<String>,

    /// Bearer key the endpoint expects, if any. Never logged.
    #[arg(long, env = "ARKA_AI_KEY", hide_env_values = true)]
    pub ai_key: Option<Secret>,

    /// Seconds a completion may take (for a stream: until it starts, and between two chunks).
    #[arg(long, env = "ARKA_AI_TIMEOUT", default_value_t = AI_TIMEOUT_SECS)]
    pub ai_timeout: u64,
}

impl Default for AiArgs {
    fn default() -> Self {
        AiArgs { ai_url: None, ai_key: None, ai_timeout: AI_TIMEOUT_SECS }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cis_wait_is_a_bounded_number_of_seconds() {
        assert_eq!("2".parse::<CisWait>(), Ok(CisWait::DEFAULT));
        assert_eq!("1.5".parse::<CisWait>(), Ok(CisWait(Duration::from_millis(1500))));
        assert_eq!(" 60 ".parse::<CisWait>(), Ok(CisWait(Duration::from_secs(60))));
        for bad in ["0", "-1", "60.5", "1e30", "NaN", "inf", "2s", "", "\u{0}"] {
            assert!(bad.parse::<CisWait>().is_err(), "{bad:?}");
        }
        assert_eq!(CisWait::DEFAULT.to_string(), "2");
        assert_eq!(CisWait::DEFAULT.to_string().parse::<CisWait>(), Ok(CisWait::DEFAULT));
    }

    #[test]
    fn the_ai_key_never_shows_in_debug_output() {
        let mut args = ServeArgs::defaults("127.0.0.1:0".parse().unwrap(), PathBuf::from("d"));
        args.ai.ai_key = Some("sk-very-secret".parse().unwrap());
        let printed = format!("{args:?}");
        assert!(!printed.contains("sk-very-secret"), "{printed}");
        assert!(printed.contains("Secret(..)"));
    }
}
