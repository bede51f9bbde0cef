//! Arka: a local fiscal server for Albanian shops. `main.rs` parses the command line; this
//! crate holds the program.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod ai;
pub mod api;
pub mod cis_sim;
pub mod config;
pub mod domain;
pub mod fiscal;
pub mod print;
pub mod rates;
pub mod secrets;
pub mod services;
pub mod store;

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

/// Why the server could not start.
#[derive(Debug)]
pub enum StartError {
    Store(store::Error),
    KeyFile(secrets::Error),
    Setup(services::Error),
    Io(std::io::Error),
    Cis(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Store(e) => write!(f, "opening the database: {e}"),
            StartError::KeyFile(e) => write!(f, "{e}"),
            StartError::Setup(e) => write!(f, "preparing the sandbox: {e}"),
            StartError::Io(e) => write!(f, "{e}"),
            StartError::Cis(m) => write!(f, "CIS settings: {m}"),
        }
    }
}

impl std::error::Error for StartError {}

/// The software codes `--sandbox` uses (any well-formed code does for the simulator).
pub const SANDBOX_SOFT_CODE: &str = "ss123ss123";
pub const SANDBOX_MAINTAINER_CODE: &str = "mm123mm123";

/// How to reach the CIS from the settings (presets, explicit URLs, timeouts, trusted roots).
fn cis_config(args: &ServeArgs, endpoint: Endpoint) -> Result<CisConfig, StartError> {
    let mut config = CisConfig::new(endpoint);
    config.connect_timeout = Duration::from_secs(args.cis_connect_timeout.max(1));
    config.call_timeout = Duration::from_secs(args.cis_timeout.max(1));
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

/// Opens the store (applying migrations) and the key file, connects the fiscal gateway to
/// `endpoint`, and prepares the sandbox.
pub fn open_services(args: &ServeArgs, endpoint: Endpoint) -> Result<Services, StartError> {
    let store = store::Store::open(&args.data.db_path()).map_err(StartError::Store)?;
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
    };
    if args.sandbox {
        services.ensure_sandbox().map_err(StartError::Setup)?;
    }
    Ok(services)
}

/// Runs the HTTP API on `listener` until `shutdown` completes.
pub async fn run(
    args: ServeArgs,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    // The sandbox talks to a simulator in this process, told about the TCRs registered before.
    let simulator = if args.sandbox { Some(start_sandbox_simulator(&args).await?) } else { None };
    let endpoint = match &simulator {
        Some(sim) => sim.endpoint(),
        None => configured_endpoint(&args),
    };
    let services = open_services(&args, endpoint)?;
    let (stop_worker, worker_stop) = tokio::sync::watch::channel(false);
    let worker = tokio::spawn(services.queue.clone().run(worker_stop));
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
    let address = listener.local_addr().map_err(StartError::Io)?;
    tracing::info!(%address, data_dir = %args.data.data_dir.display(), "arka is listening");
    let state = AppState { services, limiters };
    let app = api::router(state, args.max_body_bytes);
    let served = api::serve(listener, app, shutdown).await;
    sweeper.abort();
    let _ = stop_worker.send(true);
    let _ = worker.await;
    if let Some(sim) = simulator {
        let _ = sim.stop().await;
    }
    served.map_err(StartError::Io)
}
