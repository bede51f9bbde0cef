//! Arka: a local fiscal server for Albanian shops. `main.rs` parses the command line; this
//! crate holds the program.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod ai;
pub mod api;
pub mod backup;
pub mod chaos;
pub mod cis_sim;
pub mod cis_wait;
pub mod config;
pub mod data_lock;
pub mod domain;
pub mod files;
pub mod fiscal;
pub mod hq;
pub mod metrics;
pub mod print;
pub mod rates;
pub mod secrets;
pub mod services;
pub mod sim_http;
pub mod store;
pub mod tls;
pub mod wolt;
pub mod wolt_sim;

use std::sync::Arc;
use std::time::Duration;

use api::AppState;
use api::limits::Limiters;
use config::CisEnv;
use config::ServeArgs;
use fiscal::gateway::{Gateway, SoftwareCodes};
use fiscal::queue::Queue;
use fiscal::transport::{CisConfig, Endpoint};
use services::Services;
use services::accounts::SANDBOX_NUIS;
use services::marketplace::{Marketplace, VenueInput};

/// Why the server could not start.
#[derive(Debug)]
pub enum StartError {
    Store(store::Error),
    KeyFile(secrets::Error),
    Setup(services::Error),
    Io(std::io::Error),
    Cis(String),
    Tls(tls::Error),
    Locked(data_lock::Error),
    Backup(backup::Error),
    Wolt(String),
    Hq(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Store(e) => write!(f, "opening the database: {e}"),
            StartError::KeyFile(e) => write!(f, "{e}"),
            StartError::Setup(e) => write!(f, "preparing the sandbox: {e}"),
            StartError::Io(e) => write!(f, "{e}"),
            StartError::Cis(m) => write!(f, "CIS settings: {m}"),
            StartError::Tls(e) => write!(f, "{e}"),
            StartError::Locked(e) => write!(f, "{e}"),
            StartError::Backup(e) => {
                write!(f, "the backup before the upgrade failed, nothing was migrated: {e}")
            }
            StartError::Wolt(m) => write!(f, "Wolt simulator: {m}"),
            StartError::Hq(m) => write!(f, "head office: {m}"),
        }
    }
}

impl std::error::Error for StartError {}

/// The text a panic was raised with (`panic!("...")` carries a `&str` or a `String`), for the
/// log line of a panic caught at the store's or the HTTP edge's boundary.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|m| m.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
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
        let pem = std::fs::read(path).map_err(|e| StartError::Cis(format!("{}: {e}", path.display())))?;
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

async fn start_sandbox_simulator(args: &ServeArgs) -> Result<cis_sim::CisSimHandle, StartError> {
    let store = store::Store::open(&args.data.db_path()).map_err(StartError::Store)?;
    let tcrs = store
        .read_blocking(store::devices::all_with_issuer)
        .map_err(StartError::Store)?
        .into_iter()
        .map(|(tcr_code, issuer_nuis, busin_unit_code)| cis_sim::KnownTcr {
            tcr_code,
            issuer_nuis,
            busin_unit_code,
        })
        .collect();
    // Strict: the sandbox is where integrators find mistakes, so it checks every IIC too.
    let config = cis_sim::SimConfig { strict_iic: true, tcrs };
    let (addr, handle) = cis_sim::spawn_loopback(config).await.map_err(|e| StartError::Cis(e.to_string()))?;
    tracing::info!(%addr, "sandbox CIS simulator running in this process");
    Ok(handle)
}

/// Hands the sandbox simulator the e-invoices two suppliers sent the sandbox company, received
/// when the company was made (its first start), so its purchase invoices show them.
fn seed_sandbox_einvoices(
    simulator: &cis_sim::CisSimHandle,
    services: &services::Services,
) -> Result<(), StartError> {
    let company = services.ensure_sandbox().map_err(StartError::Setup)?;
    let made = services
        .store
        .read_blocking(|conn| store::invoices::noncash_carried_over(conn, company.id))
        .map_err(StartError::Store)?
        .and_then(|(_, created_at)| domain::time::parse_stored(&created_at))
        .unwrap_or_else(chrono::Utc::now);
    for seed in cis_sim::sandbox_incoming(&company.nuis, made) {
        simulator.sim().seed_einvoice(seed).map_err(|e| StartError::Cis(e.to_string()))?;
    }
    Ok(())
}

/// The sandbox's Wolt venue: the simulator plays Wolt for it and sends its webhooks to this
/// server; fresh credentials each start.
async fn start_sandbox_wolt(
    args: &ServeArgs,
    listening: std::net::SocketAddr,
) -> Result<(wolt_sim::WoltSimHandle, VenueInput), StartError> {
    let token = |prefix| secrets::new_token(prefix).map_err(|e| StartError::Wolt(e.to_string()));
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
    let config = wolt_sim::SimConfig {
        venues: vec![wolt_sim::SimVenue {
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
    let (addr, handle) =
        wolt_sim::spawn_loopback(config).await.map_err(|e| StartError::Wolt(e.to_string()))?;
    tracing::info!(%addr, "sandbox Wolt simulator running in this process");
    Ok((handle, venue))
}

/// The Wolt venue id of the sandbox company.
pub const SANDBOX_WOLT_VENUE: &str = "sandbox-venue";

/// Opens the store (applying migrations) and the key file, connects the fiscal gateway to
/// `endpoint`, and prepares the sandbox.
pub fn open_services(args: &ServeArgs, endpoint: Endpoint) -> Result<Services, StartError> {
    let store = store::Store::open(&args.data.db_path()).map_err(StartError::Store)?;
    // Nothing is issued yet: a first call still marked as under way was cut short by a stop.
    let now = chrono::Utc::now().to_rfc3339();
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
        Gateway::new(cis_config(args, endpoint)?, codes, store.clone(), key_file.clone())
            .map_err(|e| StartError::Cis(e.to_string()))?,
    );
    let queue = Arc::new(Queue::new(gateway.clone(), store.clone()));
    let verify_base = match args.cis_env {
        CisEnv::Production if !args.sandbox => fiscal::verify::PRODUCTION_VERIFY_BASE,
        _ => fiscal::verify::TEST_VERIFY_BASE,
    };
    let services = Services {
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
        hq: hq_client(args)?,
    };
    if args.sandbox {
        services.ensure_sandbox().map_err(StartError::Setup)?;
    }
    Ok(services)
}

/// The client of the chain's head office, with `--hq-url`.
fn hq_client(args: &ServeArgs) -> Result<Option<Arc<hq::client::HqClient>>, StartError> {
    let (Some(url), Some(token)) = (&args.hq.hq_url, &args.hq.hq_token) else { return Ok(None) };
    let ca = match &args.hq.hq_ca_file {
        Some(path) => {
            Some(std::fs::read(path).map_err(|e| StartError::Hq(format!("{}: {e}", path.display())))?)
        }
        None => None,
    };
    let client = hq::client::HqClient::new(url, token, ca.as_deref(), services::hq_sync::CALL_TIMEOUT)
        .map_err(|e| StartError::Hq(e.to_string()))?;
    Ok(Some(Arc::new(client)))
}

/// With `--hq-url`: the shop is linked to its head office (the first time, everything written
/// before is noted for it).
fn start_hq_link(
    args: &ServeArgs,
    services: &Services,
) -> Result<Option<Arc<hq::client::HqClient>>, StartError> {
    let (Some(url), Some(client)) = (&args.hq.hq_url, &services.hq) else { return Ok(None) };
    let now = chrono::Utc::now().to_rfc3339();
    let url = url.trim().trim_end_matches('/').to_string();
    if services
        .store
        .write_blocking(|tx| store::hq_outbox::link(tx, &url, &now))
        .map_err(StartError::Store)?
    {
        tracing::info!(%url, "linked to the head office: every document and catalog row is noted for it");
    }
    tracing::info!(%url, "shipping to the head office");
    Ok(Some(client.clone()))
}

/// How long documents in flight may take to finish once a stop is asked for.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Runs the HTTP API on `listener` until `shutdown` completes (HTTPS when the settings ask).
pub async fn run(
    args: ServeArgs,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    let tls = tls::configure(&args.tls, &args.data.data_dir).map_err(StartError::Tls)?;
    run_with_tls(args, listener, tls, shutdown).await
}

/// `run` with the TLS settings already made ready (`arka serve` prints their fingerprint first).
///
/// When `shutdown` completes: no new connection is accepted, requests in flight get up to
/// `SHUTDOWN_GRACE` to finish, and the late-delivery worker stops between two deliveries.
pub async fn run_with_tls(
    args: ServeArgs,
    listener: tokio::net::TcpListener,
    tls: Option<tls::Tls>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    let _lock = data_lock::lock(&args.data.data_dir).map_err(StartError::Locked)?;
    if let Some(made) =
        backup::before_upgrade(&args.data.data_dir, &args.backups).map_err(StartError::Backup)?
    {
        tracing::info!(path = %made.db.display(), "backup taken before the upgrade migrates the database");
    }
    // The sandbox talks to a simulator in this process, told about the TCRs registered before.
    let simulator = if args.sandbox { Some(start_sandbox_simulator(&args).await?) } else { None };
    let endpoint = match &simulator {
        Some(sim) => sim.endpoint(),
        None => configured_endpoint(&args),
    };
    let address = listener.local_addr().map_err(StartError::Io)?;
    let wolt = if args.sandbox { Some(start_sandbox_wolt(&args, address).await?) } else { None };
    let services = open_services(&args, endpoint)?;
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
        let company = services.ensure_sandbox().map_err(StartError::Setup)?;
        marketplace.ensure_sandbox(company.id, venue).map_err(|e| StartError::Wolt(e.to_string()))?;
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stop_tx = Arc::new(stop_tx);
    let settle: Arc<dyn fiscal::queue::Settle> = Arc::new(services.clone());
    let worker = tokio::spawn(services.queue.clone().run(settle, stop_rx.clone()));
    let hq_worker = match start_hq_link(&args, &services)? {
        Some(hq) => Some(tokio::spawn(services::hq_sync::run(services.store.clone(), hq, stop_rx.clone()))),
        None => None,
    };
    let nightly = args.backups.backup_dir.as_ref().map(|dir| {
        tracing::info!(dir = %dir.display(), keep = args.backups.backup_keep, "nightly backups at 03:00");
        tokio::spawn(backup::nightly(args.data.data_dir.clone(), args.backups.clone(), stop_rx.clone()))
    });
    let search_index = tokio::spawn(services.clone().keep_search_index());
    let limiters = Arc::new(Limiters::new(&args.limits));
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
    if args.sandbox {
        tracing::info!(
            nuis = SANDBOX_NUIS,
            "sandbox: register with this NUIS and the sandbox partner token; nothing reaches the tax administration"
        );
    }
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
    let state = AppState { services, limiters, marketplace, callers: Default::default() };
    let app =
        api::router(state, api::RouterOptions { max_body_bytes: args.max_body_bytes, metrics: args.metrics });
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };
    let serving: std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<()>> + Send>> = match &tls
    {
        Some(tls) => {
            Box::pin(api::serve(tls::TlsListener::new(listener, tls), app, stopped(stop_rx.clone())))
        }
        None => Box::pin(api::serve(listener, app, stopped(stop_rx.clone()))),
    };
    let grace_over = {
        let stopped = stopped(stop_rx.clone());
        async move {
            stopped.await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        }
    };
    let served = tokio::select! {
        served = serving => served,
        () = grace_over => {
            tracing::warn!("requests still in flight after {SHUTDOWN_GRACE:?}: stopping without them");
            Ok(())
        }
    };
    signal.abort();
    let _ = stop_tx.send(true);
    sweeper.abort();
    search_index.abort();
    if let Some(nightly) = nightly {
        nightly.abort();
    }
    if let Some(hq_worker) = hq_worker {
        // A batch under way ends within the HQ client's time limit; unacknowledged notes stay.
        if tokio::time::timeout(services::hq_sync::CALL_TIMEOUT + SHUTDOWN_GRACE, hq_worker).await.is_err() {
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
    if tokio::time::timeout(worker_limit, worker).await.is_err() {
        tracing::warn!("the late-delivery worker did not stop in time; its documents stay queued");
    }
    if let Some(sim) = simulator {
        let _ = sim.stop().await;
    }
    if let Some((sim, _)) = wolt {
        let _ = sim.stop().await;
    }
    tracing::info!("stopped");
    served.map_err(StartError::Io)
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
