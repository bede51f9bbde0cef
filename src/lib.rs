//! Arka: a local fiscal server for Albanian shops. `main.rs` parses the command line; this
//! crate holds the program.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod ai;
pub mod api;
pub mod backup;
pub mod cis_wait;
pub mod cli;
pub mod clock;
pub mod config;
pub mod copy;
#[cfg(test)]
mod error_chain_tests;
pub mod fiscal;
pub use arka_hq as hq;
pub mod hq_client;
pub mod ops;
pub mod panics;
pub use arka_print as print;
pub mod printer;
pub mod rates;
pub mod services;
pub mod sim;
pub mod store;
pub use arka_edge::tls;
pub mod wolt;

pub use arka_core::domain;
pub use arka_edge::{ErrorChain, error_chain};

use std::sync::Arc;
use std::time::Duration;

use api::AppState;
use api::limits::Limiters;
use config::CisEnv;
use config::ServeArgs;
use fiscal::gateway::{Gateway, SoftwareCodes};
use fiscal::queue::Queue;
use fiscal::transport::{CisConfig, Endpoint};
use ops::{data_lock, secrets};
use services::Services;
use services::accounts::SANDBOX_NUIS;
use services::marketplace::{Marketplace, VenueInput};

/// Why the server could not start; each keeps what failed underneath as its `source()`.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("opening the database: {0}")]
    Store(#[source] store::Error),
    #[error("{0}")]
    KeyFile(#[source] secrets::Error),
    #[error("preparing the server: {0}")]
    Setup(#[source] services::Error),
    #[error("{0}")]
    Io(#[source] std::io::Error),
    /// The file of trusted roots `--cis-ca-file` names could not be read.
    #[error("CIS settings: {}: {source}", .path.display())]
    CaFile { path: std::path::PathBuf, source: std::io::Error },
    #[error("CIS settings: {0}")]
    Cis(#[source] fiscal::Error),
    #[error("CIS settings: {0}")]
    Simulator(#[source] sim::cis::Error),
    #[error("{0}")]
    Tls(#[source] tls::Error),
    #[error("{0}")]
    Locked(#[source] data_lock::Error),
    #[error("the backup before the upgrade failed, nothing was migrated: {0}")]
    Backup(#[source] backup::Error),
    #[error("Wolt simulator: {0}")]
    WoltIo(#[source] std::io::Error),
    #[error("Wolt simulator: {0}")]
    WoltVenue(#[source] services::marketplace::Error),
    #[error("Wolt simulator: {0}")]
    WoltToken(#[source] secrets::Error),
    /// The file of trusted roots `--hq-ca-file` names could not be read.
    #[error("head office: {}: {source}", .path.display())]
    HqCaFile { path: std::path::PathBuf, source: std::io::Error },
    #[error("head office: {0}")]
    Hq(#[source] services::hq_sync::Error),
}

/// The software codes `--sandbox` uses (any well-formed code does for the simulator).
pub const SANDBOX_SOFT_CODE: &str = "ss123ss123";
pub const SANDBOX_MAINTAINER_CODE: &str = "mm123mm123";

/// How to reach the CIS from the settings (presets, explicit URLs, timeouts, trusted roots).
fn cis_config(args: &ServeArgs, endpoint: Endpoint) -> Result<CisConfig, StartError> {
    let mut config = CisConfig::new(endpoint);
    config.connect_timeout = Duration::from_secs(args.cis_connect_timeout.max(1));
    config.call_timeout = Duration::from_secs(args.cis_timeout.max(1));
    config.kept_connections = usize::from(args.cis_in_flight);
    if let Some(path) = &args.cis_ca_file {
        let pem = std::fs::read(path).map_err(|source| StartError::CaFile { path: path.clone(), source })?;
        config.trusted_roots_pem = Some(pem);
    }
    Ok(config)
}

/// The configured CIS endpoint: a preset, with either URL overridden when given.
pub fn configured_endpoint(args: &ServeArgs) -> Endpoint {
    let preset = match args.cis_env {
        CisEnv::Test => Endpoint::Test,
        CisEnv::Production => Endpoint::Production,
    };
    match (&args.cis_url, &args.einvoice_url) {
        (None, None) => preset,
        (fiscalization, einvoice) => Endpoint::Custom {
            fiscalization: fiscalization
                .clone()
                .unwrap_or_else(|| preset.url(fiscal::requests::Service::Fiscalization).to_string()),
            einvoice: einvoice
                .clone()
                .unwrap_or_else(|| preset.url(fiscal::requests::Service::Einvoice).to_string()),
        },
    }
}

async fn start_sandbox_simulator(args: &ServeArgs) -> Result<sim::cis::CisSimHandle, StartError> {
    let store = store::Store::open(&args.data.db_path()).map_err(StartError::Store)?;
    let tcrs = store
        .read_blocking(store::devices::all_with_issuer)
        .map_err(StartError::Store)?
        .into_iter()
        .map(|(tcr_code, issuer_nuis, busin_unit_code)| sim::cis::KnownTcr {
            tcr_code,
            issuer_nuis,
            busin_unit_code,
        })
        .collect();
    // Strict: the sandbox is where integrators find mistakes, so it checks every IIC too.
    let config = sim::cis::SimConfig { strict_iic: true, tcrs };
    let (addr, handle) = sim::cis::spawn_loopback(config).await.map_err(StartError::Simulator)?;
    tracing::info!(%addr, "sandbox CIS simulator running in this process");
    Ok(handle)
}

/// Hands the sandbox simulator the e-invoices two suppliers sent the sandbox company, received
/// when the company was made (its first start), so its purchase invoices show them.
fn seed_sandbox_einvoices(
    simulator: &sim::cis::CisSimHandle,
    services: &services::Services,
) -> Result<(), StartError> {
    let company = services.onboarding().ensure_sandbox().map_err(StartError::Setup)?;
    let made = services
        .store
        .read_blocking(|conn| store::invoices::noncash_carried_over(conn, company.id))
        .map_err(StartError::Store)?
        .and_then(|(_, created_at)| domain::time::parse_stored(&created_at))
        .unwrap_or_else(chrono::Utc::now);
    for seed in sim::cis::sandbox_incoming(&company.nuis, made) {
        simulator.sim().seed_einvoice(seed).map_err(StartError::Simulator)?;
    }
    Ok(())
}

/// The sandbox's Wolt venue: the simulator plays Wolt for it and sends its webhooks to this
/// server; fresh credentials each start.
async fn start_sandbox_wolt(
    args: &ServeArgs,
    listening: std::net::SocketAddr,
) -> Result<(sim::wolt::WoltSimHandle, VenueInput), StartError> {
    let token = |prefix| secrets::new_token(prefix).map_err(StartError::WoltToken);
    let venue = VenueInput {
        wolt_venue_id: SANDBOX_WOLT_VENUE.to_string(),
        name: "Sandbox shop on Wolt".to_string(),
        api_key: token("wk")?,
        webhook_secret: token("ws")?,
    };
    // The simulator runs on this machine: a wildcard listen address is reached on loopback.
    let host = match listening.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => {
            std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)
        }
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => {
            std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)
        }
        ip => ip,
    };
    let config = sim::wolt::SimConfig {
        venues: vec![sim::wolt::SimVenue {
            venue_id: venue.wolt_venue_id.clone(),
            api_key: venue.api_key.clone(),
            webhook_secret: venue.webhook_secret.clone(),
        }],
        webhook_url: Some(format!(
            "http://{}{}/webhooks/wolt",
            std::net::SocketAddr::new(host, listening.port()),
            api::marketplace::PREFIX
        )),
        order_every: (args.sandbox_order_every > 0).then(|| Duration::from_secs(args.sandbox_order_every)),
    };
    let (addr, handle) = sim::wolt::spawn_loopback(config).await.map_err(StartError::WoltIo)?;
    tracing::info!(%addr, "sandbox Wolt simulator running in this process");
    Ok((handle, venue))
}

/// The Wolt venue id of the sandbox company.
pub const SANDBOX_WOLT_VENUE: &str = "sandbox-venue";

/// The wall time of `clock`, as the rooms below the edge read it.
fn wall_clock(clock: &clock::Clock) -> domain::time::WallClock {
    let clock = clock.clone();
    domain::time::WallClock::new(move || clock.utc())
}

/// Opens the store (applying migrations) and the key file, connects the fiscal gateway to
/// `endpoint`, and prepares the sandbox.
pub fn open_services(args: &ServeArgs, endpoint: Endpoint) -> Result<Services, StartError> {
    let store = store::Store::open(&args.data.db_path()).map_err(StartError::Store)?;
    // Nothing is issued yet: a first call still marked as under way was cut short by a stop.
    let now = args.clock.utc().to_rfc3339();
    let interrupted = store
        .write_blocking(|tx| store::fiscal_queue::release_interrupted(tx, &now))
        .map_err(StartError::Store)?;
    if interrupted > 0 {
        tracing::warn!(
            interrupted,
            "documents whose first CIS call was cut short by a stop go to the queue (TECHNICALERROR)"
        );
    }
    let key_file = Arc::new(
        secrets::KeyFile::load_or_create(&args.data.data_dir.join("arka.key"))
            .map_err(StartError::KeyFile)?,
    );
    let codes = if args.sandbox {
        SoftwareCodes {
            soft_code: Some(SANDBOX_SOFT_CODE.to_string()),
            maintainer_code: Some(SANDBOX_MAINTAINER_CODE.to_string()),
        }
    } else {
        SoftwareCodes { soft_code: args.soft_code.clone(), maintainer_code: args.maintainer_code.clone() }
    };
    let gateway = Arc::new(
        Gateway::new(
            cis_config(args, endpoint)?,
            codes,
            store.clone(),
            key_file.clone(),
            wall_clock(&args.clock),
        )
        .map_err(StartError::Cis)?,
    );
    let queue = Arc::new(Queue::new(gateway.clone(), store.clone()));
    let verify_base = match args.cis_env {
        CisEnv::Production if !args.sandbox => domain::verify::PRODUCTION_VERIFY_BASE,
        _ => domain::verify::TEST_VERIFY_BASE,
    };
    let chain = open_chain(args, &store)?;
    let services = Services {
        clock: wall_clock(&args.clock),
        store,
        key_file,
        sandbox: args.sandbox,
        gateway,
        queue,
        verify_base: verify_base.to_string(),
        public_url: args.public_url.as_ref().map(|u| u.trim_end_matches('/').to_string()),
        locks: Arc::new(services::locks::Locks::new()),
        in_flight: Arc::default(),
        balances: Arc::default(),
        lanes: Arc::new(services::lanes::Lanes::new(usize::from(args.cis_in_flight))),
        cis_wait: args.cis_wait.0,
        rates: Arc::new(services::rates::RateBook::new(
            rates::Fetcher::new(
                rates::SourceUrls {
                    boa: args.rates.rates_boa_url.clone(),
                    bkt: args.rates.rates_bkt_url.clone(),
                    iliria98: args.rates.rates_iliria98_url.clone(),
                    adon: args.rates.rates_adon_url.clone(),
                },
                Duration::from_secs(args.rates.rates_timeout.max(1)),
            ),
            Duration::from_secs(args.rates.rates_cache),
        )),
        ai: Arc::new(ai::AiClient::new(
            args.ai.ai_url.as_deref(),
            args.ai.ai_key.as_ref().map(|k| k.0.as_str()),
            Duration::from_secs(args.ai.ai_timeout.max(1)),
        )),
        hq: chain,
        token_uses: Arc::default(),
    };
    if args.sandbox {
        services.onboarding().ensure_sandbox().map_err(StartError::Setup)?;
    }
    Ok(services)
}

/// The shop's place in its chain: linked with `--hq-url`, or known linked from its database.
fn open_chain(args: &ServeArgs, store: &store::Store) -> Result<services::hq_sync::Chain, StartError> {
    let ca_pem = match &args.hq.hq_ca_file {
        Some(path) => {
            Some(std::fs::read(path).map_err(|source| StartError::HqCaFile { path: path.clone(), source })?)
        }
        None => None,
    };
    let settings = services::hq_sync::JoinSettings {
        url: args.hq.hq_url.as_deref(),
        token: args.hq.hq_token.as_deref(),
        ca_pem,
        allow_http: args.hq.hq_allow_http,
    };
    services::hq_sync::open_chain(store, &settings).map_err(StartError::Hq)
}

/// How long documents in flight may take to finish once a stop is asked for.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Where a start writes what the person at the server's console must read (the setup code),
/// beside the log: `arka serve` prints it on stdout; the tests keep it.
pub type Console = Arc<dyn Fn(&str) + Send + Sync>;

/// A console that prints on stdout.
pub fn stdout_console() -> Console {
    Arc::new(|line: &str| println!("{line}"))
}

/// Runs the HTTP API on `listener` until `shutdown` completes (HTTPS when the settings ask).
pub async fn run(
    args: ServeArgs,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    let tls = tls::configure(&args.tls, &args.data.data_dir).map_err(StartError::Tls)?;
    run_with_tls(args, listener, tls, stdout_console(), shutdown).await
}

/// A production server whose box has no owner yet gets a new setup code: in the log and on
/// the console, like a router's first start.
fn announce_setup_code(services: &Services, console: &Console) -> Result<(), StartError> {
    let Some((code, expires)) = services.setup().issue_setup_code().map_err(StartError::Setup)? else {
        return Ok(());
    };
    let until = domain::time::local_text(expires);
    tracing::warn!(
        setup_code = %code,
        valid_until = %until,
        "no owner yet: open this server's page in a browser and enter the setup code (it works once)"
    );
    console(&format!(
        "  setup code:            {code} (valid until {until}; open the page to set up the shop)"
    ));
    Ok(())
}

/// `run` with the TLS settings already made ready (`arka serve` prints their fingerprint first)
/// and the console the setup code goes to.
///
/// When `shutdown` completes: no new connection is accepted, requests in flight get up to
/// `SHUTDOWN_GRACE` to finish, and the late-delivery worker stops between two deliveries.
pub async fn run_with_tls(
    args: ServeArgs,
    listener: tokio::net::TcpListener,
    tls: Option<tls::Tls>,
    console: Console,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    let _lock = data_lock::lock(&args.data.data_dir).map_err(StartError::Locked)?;
    sweep_backup_leftovers(&args);
    if let Some(made) =
        backup::before_upgrade(&args.data.data_dir, &args.backups).map_err(StartError::Backup)?
    {
        tracing::info!(
            path = %made.db.display(),
            bytes = made.bytes,
            "backup taken before the upgrade migrates the database; its integrity check runs once the server answers"
        );
    }
    let address = listener.local_addr().map_err(StartError::Io)?;
    let copy_settings = copy_settings(&args);
    prepare_copy(&args, copy_settings.is_some());
    let Opened { simulators, services, marketplace } = Opened::open(&args, address).await?;
    let (copy, copy_watch) = start_copy(copy_settings, &services);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stop_tx = Arc::new(stop_tx);
    let limiters = Arc::new(Limiters::new(&args.limits, &args.clock));
    let background = Background::spawn(&args, &services, &limiters, &stop_rx, copy);
    if args.sandbox {
        tracing::info!(
            nuis = SANDBOX_NUIS,
            "sandbox: register with this NUIS and the sandbox partner token; nothing reaches the tax administration"
        );
    }
    let session_idle = Duration::from_secs(args.session_idle.max(1));
    services.people().forget_idle_sessions(session_idle).map_err(StartError::Setup)?;
    announce_setup_code(&services, &console)?;
    let people = Arc::new(api::people::People {
        session_idle,
        https: tls.is_some(),
        tls_fingerprint: tls.as_ref().map(|t| t.fingerprint.clone()),
        setup_from_box: args.setup_from_box,
        throttle: Default::default(),
        backups: page_backups(&args, &copy_watch),
    });
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!(%address, scheme, data_dir = %args.data.data_dir.display(), "arka is listening");
    let signal = {
        let (queue, stop_tx) = (services.queue.clone(), stop_tx.clone());
        tokio::spawn(async move {
            shutdown.await;
            tracing::info!("stopping: no new connections; requests in flight may finish");
            queue.stop();
            let _ = stop_tx.send(true);
        })
    };
    let lanes = services.lanes.clone();
    let state = AppState {
        services,
        limiters,
        marketplace,
        callers: Default::default(),
        people,
        clock: args.clock.clone(),
    };
    let app =
        api::router(state, api::RouterOptions { max_body_bytes: args.max_body_bytes, metrics: args.metrics });
    let served = serve_until_stopped(listener, tls.as_ref(), app, stop_rx).await;
    signal.abort();
    let _ = stop_tx.send(true);
    background.wind_down(&args, lanes).await;
    simulators.stop().await;
    tracing::info!("stopped");
    served.map_err(StartError::Io)
}

/// What a server opens before it listens: the sandbox's simulators, the services over the
/// store, the marketplace.
struct Opened {
    simulators: Simulators,
    services: Services,
    marketplace: Marketplace,
}

/// The sandbox's CIS and Wolt, in this process.
struct Simulators {
    cis: Option<sim::cis::CisSimHandle>,
    wolt: Option<sim::wolt::WoltSimHandle>,
}

impl Simulators {
    async fn stop(self) {
        if let Some(sim) = self.cis {
            let _ = sim.stop().await;
        }
        if let Some(sim) = self.wolt {
            let _ = sim.stop().await;
        }
    }
}

impl Opened {
    async fn open(args: &ServeArgs, address: std::net::SocketAddr) -> Result<Opened, StartError> {
        // The sandbox talks to a simulator in this process, told about the TCRs registered before.
        let simulator = if args.sandbox { Some(start_sandbox_simulator(args).await?) } else { None };
        let endpoint = match &simulator {
            Some(sim) => sim.endpoint(),
            None => configured_endpoint(args),
        };
        let wolt = if args.sandbox { Some(start_sandbox_wolt(args, address).await?) } else { None };
        let services = open_services(args, endpoint)?;
        if let Some(simulator) = &simulator {
            seed_sandbox_einvoices(simulator, &services)?;
        }
        let wolt_url = wolt.as_ref().map(|(sim, _)| sim.url()).or_else(|| args.wolt_url.clone());
        let marketplace = Marketplace::new(
            services.clone(),
            wolt::client::WoltClient::new(wolt_url.as_deref(), args.wolt_timeout()),
            args.wolt_timeout(),
        );
        if let Some((_, venue)) = &wolt {
            let company = services.onboarding().ensure_sandbox().map_err(StartError::Setup)?;
            marketplace.ensure_sandbox(company.id, venue).map_err(StartError::WoltVenue)?;
        }
        let simulators = Simulators { cis: simulator, wolt: wolt.map(|(sim, _)| sim) };
        Ok(Opened { simulators, services, marketplace })
    }
}

/// The tasks a server runs beside the requests: the late-delivery worker, the nightly backup,
/// the search index, the sweep of idle rate-limit keys, and the writes of the tokens' last uses.
struct Background {
    worker: tokio::task::JoinHandle<()>,
    nightly: Option<tokio::task::JoinHandle<()>>,
    /// The integrity check of the copies kept unchecked (before an upgrade), and its stop.
    checks: Option<(tokio::task::JoinHandle<()>, backup::CheckStop)>,
    search_index: tokio::task::JoinHandle<()>,
    /// Finds the credit notes the books held before V44, a step at a time (`store::credit_notes`).
    credit_notes: tokio::task::JoinHandle<()>,
    tcrs: tokio::task::JoinHandle<()>,
    sweeper: tokio::task::JoinHandle<()>,
    token_uses: tokio::task::JoinHandle<()>,
    /// Ships the outbox to the chain's head office (`--hq-url`).
    hq: Option<tokio::task::JoinHandle<()>>,
    /// The copy off the box: its last turn comes once nothing writes any more.
    copy: Option<copy::Copy>,
    /// Writes the last uses still in memory at the stop.
    services: Services,
}

/// What backups stopped midway left in the backup folder goes at each start (it is logged); a
/// folder that cannot be swept does not keep the shop closed.
fn sweep_backup_leftovers(args: &ServeArgs) {
    let dir = page_backups_dir(args);
    if let Err(e) = backup::sweep_leftovers(&dir) {
        tracing::warn!(dir = %dir.display(), error = %error_chain(&e), "the backup folder's leftovers could not be swept");
    }
}

/// `--backup-dir`, else the data dir's `backups` (where `arka backup` and the owner's page write).
fn page_backups_dir(args: &ServeArgs) -> std::path::PathBuf {
    args.backups.backup_dir.clone().unwrap_or_else(|| args.data.data_dir.join("backups"))
}

/// The copy off the box's settings, when a place for it is set.
fn copy_settings(args: &ServeArgs) -> Option<copy::Settings> {
    if !args.copy.places.enabled() {
        return None;
    }
    Some(copy_places(
        &args.copy.places,
        &args.data.data_dir,
        Duration::from_secs(args.copy.copy_every),
        Duration::from_secs(args.copy.copy_verify_every.saturating_mul(3600)),
    ))
}

/// The copy's places and key as set (for `serve`, and for `arka restore --from-copy`, which
/// reads from them).
pub fn copy_places(
    c: &config::CopyPlaces,
    data_dir: &std::path::Path,
    every: Duration,
    verify_every: Duration,
) -> copy::Settings {
    let s3 = c.copy_s3_url.as_ref().map(|endpoint| copy::S3Settings {
        endpoint: endpoint.clone(),
        bucket: c.copy_s3_bucket.clone().unwrap_or_default(),
        region: c.copy_s3_region.clone(),
        access_key: c.copy_s3_access_key.clone().unwrap_or_default(),
        secret_key: c.copy_s3_secret_key.clone().map(|s| s.0).unwrap_or_default(),
        prefix: c.copy_s3_prefix.clone(),
        path_style: !c.copy_s3_virtual_host,
        timeout: Duration::from_secs(c.copy_s3_timeout),
    });
    copy::Settings {
        folder: c.copy_dir.clone(),
        s3,
        every,
        key_file: c.copy_key_file.clone().unwrap_or_else(|| data_dir.join(copy::KEY_FILE)),
        verify_every,
    }
}

/// Before the store opens: with a copy set up, its folder (so the store leaves the folding back
/// of the log to it); without one, a folder an earlier copy left goes (the store folds the log
/// back itself again; a copy set up later starts with a new base).
fn prepare_copy(args: &ServeArgs, copied: bool) {
    let dir = copy::dir_of(&args.data.data_dir);
    if copied {
        if let Err(e) = copy::prepare(&args.data.data_dir) {
            tracing::error!(error = %error_chain(&e), "the copy's folder could not be made");
        }
    } else if dir.is_dir() {
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => {
                tracing::info!(dir = %dir.display(), "no copy off the box is set up any more: its folder was removed")
            }
            Err(e) => {
                tracing::error!(dir = %dir.display(), error = %e, "the folder of a copy no longer set up could not be removed")
            }
        }
    }
}

/// Starts the copy off the box, when set up; its handle and what the page and `/healthz` read.
fn start_copy(settings: Option<copy::Settings>, services: &Services) -> (Option<copy::Copy>, copy::Watch) {
    let Some(settings) = settings else { return (None, copy::Watch::off()) };
    match copy::Copy::start(&settings, &services.store) {
        Ok(copy) => {
            let watch = copy.watch();
            (Some(copy), watch)
        }
        Err(e) => {
            tracing::error!(error = %error_chain(&e), "the copy off the box does not run");
            if let Some(watch) = services.store.commit_watch() {
                watch.not_reading();
            }
            (None, copy::Watch::not_running(e.to_string()))
        }
    }
}

/// The owner's page takes a backup as `arka backup` does, into `--backup-dir` or the data dir's
/// `backups` (this root holds `backup`; the page's routes get only this), and reads the copy off
/// the box.
fn page_backups(args: &ServeArgs, copy: &copy::Watch) -> api::backups::Backups {
    let data_dir = args.data.data_dir.clone();
    let dir = page_backups_dir(args);
    let into = dir.clone();
    let take: api::backups::TakeBackup = Arc::new(move |file: &str| {
        let (db, key) = (data_dir.join("arka.db"), data_dir.join("arka.key"));
        backup::backup(&db, &key, &into.join(file), |_| {}).map(|made| made.bytes).map_err(|e| e.to_string())
    });
    let (status, verify) = (copy.clone(), copy.clone());
    let copy = api::backups::Copy {
        status: Arc::new(move || status.status()),
        verify: Arc::new(move || verify.verify_now()),
    };
    let folder = dir.clone();
    let full_check = Arc::new(move || backup::full_check(&folder));
    api::backups::Backups { dir, automatic: args.backups.backup_dir.is_some(), take, copy, full_check }
}

impl Background {
    fn spawn(
        args: &ServeArgs,
        services: &Services,
        limiters: &Arc<Limiters>,
        stop: &tokio::sync::watch::Receiver<bool>,
        copy: Option<copy::Copy>,
    ) -> Background {
        let settle: Arc<dyn fiscal::queue::Settle> = Arc::new(services.clone());
        let worker = tokio::spawn(services.queue.clone().run(settle, stop.clone()));
        let nightly = args.backups.backup_dir.as_ref().map(|dir| {
            tracing::info!(dir = %dir.display(), keep = args.backups.backup_keep, "nightly backups at 03:00");
            tokio::spawn(backup::nightly(
                args.data.data_dir.clone(),
                args.backups.clone(),
                args.clock.clone(),
                stop.clone(),
            ))
        });
        let checks = args.backups.backup_dir.as_ref().map(|dir| {
            let halt = backup::CheckStop::default();
            let gate = args.backups.check_gate.clone();
            (tokio::spawn(backup::check_pending(dir.clone(), gate, halt.clone(), stop.clone())), halt)
        });
        let search_index = tokio::spawn(services.clone().keep_search_index());
        let credit_notes = tokio::spawn(store::credit_notes::find_all(services.store.clone()));
        // After a restore: the retired tills go on on new TCRs once the CIS registers them.
        let tcrs = tokio::spawn(services.clone().keep_tcrs_continued(stop.clone()));
        let sweeper = {
            let limiters = limiters.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(60));
                loop {
                    tick.tick().await;
                    limiters.forget_idle();
                }
            })
        };
        let token_uses = {
            let services = services.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(crate::services::users::FLUSH_EVERY);
                loop {
                    tick.tick().await;
                    services.people().flush_token_uses().await;
                }
            })
        };
        let hq = services.hq.link().map(|link| {
            tokio::spawn(services::hq_sync::run(
                services.store.clone(),
                link.clone(),
                services.clock.clone(),
                stop.clone(),
            ))
        });
        Background {
            worker,
            nightly,
            checks,
            search_index,
            credit_notes,
            tcrs,
            sweeper,
            token_uses,
            hq,
            copy,
            services: services.clone(),
        }
    }

    /// Stops the tasks; the worker and the first calls still on their way to the CIS get the
    /// time a CIS call may take.
    async fn wind_down(self, args: &ServeArgs, lanes: Arc<services::lanes::Lanes>) {
        self.sweeper.abort();
        self.search_index.abort();
        self.credit_notes.abort();
        self.tcrs.abort();
        self.token_uses.abort();
        self.services.people().flush_token_uses().await;
        if let Some(nightly) = self.nightly {
            nightly.abort();
        }
        if let Some((checks, halt)) = self.checks {
            // An interrupted check leaves its copy marked unchecked: it runs again at the next start.
            halt.stop();
            if tokio::time::timeout(SHUTDOWN_GRACE, checks).await.is_err() {
                tracing::warn!(
                    "the integrity check of a backup did not stop in time; it runs again at the next start"
                );
            }
        }
        if let Some(hq) = self.hq {
            // A batch under way ends within the HQ client's time limit; unacknowledged notes stay.
            if tokio::time::timeout(services::hq_sync::CALL_TIMEOUT + SHUTDOWN_GRACE, hq).await.is_err() {
                tracing::warn!("the HQ worker did not stop in time; its notes stay in the outbox");
            }
        }
        // A delivery under way ends within the CIS call's own time limit.
        let worker_limit = Duration::from_secs(args.cis_connect_timeout + args.cis_timeout) + SHUTDOWN_GRACE;
        // First calls still on their way after their POS was answered (deferred) get the same time;
        // one cut short is sent again by the queue at the next start.
        if tokio::time::timeout(worker_limit, lanes.settled()).await.is_err() {
            tracing::warn!(
                "documents were still on their way to the CIS at the stop; the queue sends them at the next start"
            );
        }
        if tokio::time::timeout(worker_limit, self.worker).await.is_err() {
            tracing::warn!("the late-delivery worker did not stop in time; its documents stay queued");
        }
        if let Some(copy) = self.copy {
            // Whatever the places have not taken waits in the spool for the next start.
            let _ = tokio::task::spawn_blocking(move || copy.stop(SHUTDOWN_GRACE)).await;
        }
    }
}

/// Serves `app` until `stop` turns true, then gives requests in flight `SHUTDOWN_GRACE`.
async fn serve_until_stopped(
    listener: tokio::net::TcpListener,
    tls: Option<&tls::Tls>,
    app: axum::Router,
    stop: tokio::sync::watch::Receiver<bool>,
) -> std::io::Result<()> {
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };
    let serving: std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<()>> + Send>> = match tls
    {
        Some(tls) => Box::pin(api::serve(tls::TlsListener::new(listener, tls), app, stopped(stop.clone()))),
        None => Box::pin(api::serve(listener, app, stopped(stop.clone()))),
    };
    let grace_over = {
        let stopped = stopped(stop);
        async move {
            stopped.await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        }
    };
    tokio::select! {
        served = serving => served,
        () = grace_over => {
            tracing::warn!("requests still in flight after {SHUTDOWN_GRACE:?}: stopping without them");
            Ok(())
        }
    }
}

/// The URL of GET /healthz for a server listening on `listen`: a wildcard address is reached
/// on loopback.
pub fn health_url(listen: std::net::SocketAddr, https: bool) -> String {
    let host = match listen.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => "127.0.0.1".to_string(),
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => "[::1]".to_string(),
        std::net::IpAddr::V4(ip) => ip.to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
    };
    format!("{}://{host}:{}/healthz", if https { "https" } else { "http" }, listen.port())
}

/// One call of GET /healthz: Ok on 200, the reason otherwise. The certificate is not verified:
/// this checks that the server on this machine is alive, not who it is.
pub fn check_health(url: &str) -> Result<(), String> {
    let tls = ureq::tls::TlsConfig::builder()
        .provider(ureq::tls::TlsProvider::NativeTls)
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .disable_verification(true)
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .tls_config(tls)
        .build()
        .into();
    let mut response = agent.get(url).call().map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    if status == 200 {
        return Ok(());
    }
    let body = response.body_mut().read_to_string().unwrap_or_default();
    Err(format!("HTTP {status} {}", body.chars().take(300).collect::<String>()))
}
