//! Arka: a local fiscal server for Albanian shops. `main.rs` parses the command line; this
//! crate holds the program.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod api;
pub mod cis_sim;
pub mod config;
pub mod domain;
pub mod fiscal;
pub mod secrets;
pub mod services;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use api::AppState;
use api::limits::Limiters;
use config::ServeArgs;
use services::accounts::{SANDBOX_NUIS, Services};

/// Why the server could not start.
#[derive(Debug)]
pub enum StartError {
    Store(store::Error),
    KeyFile(secrets::Error),
    Setup(services::Error),
    Io(std::io::Error),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Store(e) => write!(f, "opening the database: {e}"),
            StartError::KeyFile(e) => write!(f, "{e}"),
            StartError::Setup(e) => write!(f, "preparing the sandbox: {e}"),
            StartError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for StartError {}

/// Opens the store (applying migrations) and the key file, and prepares the sandbox.
pub fn open_services(args: &ServeArgs) -> Result<Services, StartError> {
    let store = store::Store::open(&args.data.db_path()).map_err(StartError::Store)?;
    let key_file = secrets::KeyFile::load_or_create(&args.data.data_dir.join("arka.key"))
        .map_err(StartError::KeyFile)?;
    let services = Services { store, key_file: Arc::new(key_file), sandbox: args.sandbox };
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
    let services = open_services(&args)?;
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
    served.map_err(StartError::Io)
}
