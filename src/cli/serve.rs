//! `arka serve` and the simulators alone: logging, the signals that stop them, and the banner
//! that says where they listen.

use tracing_subscriber::filter::{LevelFilter, ParseError, Targets};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::{LogFormat, ServeArgs, TlsArgs};

/// `arka wolt-sim`'s settings.
#[derive(clap::Args)]
pub struct WoltSimArgs {
    /// Address and port to listen on; keep it on loopback.
    #[arg(long, env = "ARKA_WOLT_SIM_LISTEN", default_value = "127.0.0.1:8091")]
    pub listen: std::net::SocketAddr,
    /// The venue the simulator plays Wolt for.
    #[arg(long, env = "ARKA_WOLT_SIM_VENUE_ID", default_value = "sim-venue")]
    pub venue_id: String,
    /// The API key merchant calls must carry (WOLT-API-KEY).
    #[arg(long, env = "ARKA_WOLT_SIM_API_KEY", default_value = "sim-api-key")]
    pub api_key: String,
    /// The secret webhooks are signed with (HMAC-SHA256, WOLT-SIGNATURE).
    #[arg(long, env = "ARKA_WOLT_SIM_WEBHOOK_SECRET", default_value = "sim-webhook-secret")]
    pub webhook_secret: String,
    /// Where webhooks go, e.g. http://127.0.0.1:8080/api/partner/v1/marketplace/webhooks/wolt.
    #[arg(long, env = "ARKA_WOLT_SIM_WEBHOOK_URL")]
    pub webhook_url: Option<String>,
    /// Seconds between automatic orders (0: only orders made through /control).
    #[arg(long, env = "ARKA_WOLT_SIM_ORDER_EVERY", default_value_t = 0)]
    pub order_every: u64,
}

/// The log filter `RUST_LOG` holds: a level (`info`), targets with their levels (`arka=debug`,
/// `arka=debug,hyper=warn`), or both (`warn,arka=debug`); unset or empty is `info`. tracing's
/// `Targets` rather than its `EnvFilter`, whose span and field filters (unused here) carry a regex
/// engine into the binary (its size, issue 34).
pub(crate) fn log_filter(spec: Option<&str>) -> Result<Targets, ParseError> {
    let directives: Vec<&str> =
        spec.unwrap_or_default().split(',').map(str::trim).filter(|d| !d.is_empty()).collect();
    if directives.is_empty() {
        return Ok(Targets::new().with_default(LevelFilter::INFO));
    }
    directives.join(",").parse()
}

fn init_logging(format: LogFormat) {
    let filter = log_filter(std::env::var("RUST_LOG").ok().as_deref())
        .unwrap_or_else(|_| Targets::new().with_default(LevelFilter::INFO));
    // Colours only for a person at a terminal: journald and log files get plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(ansi);
    match format {
        LogFormat::Pretty => builder.finish().with(filter).init(),
        LogFormat::Json => builder.json().finish().with(filter).init(),
    }
}

/// The Windows service's log: files in `dir`, a new one each day, the last
/// [`LOG_FILES_KEPT`](crate::ops::windows::service::LOG_FILES_KEPT) kept. `filter` is the settings
/// file's `RUST_LOG`.
#[cfg(windows)]
pub(crate) fn init_file_logging(
    format: LogFormat,
    filter: Option<&str>,
    dir: &std::path::Path,
) -> Result<(), String> {
    use tracing_appender::rolling::{Builder, Rotation};
    let files = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("arka")
        .filename_suffix("log")
        .max_log_files(crate::ops::windows::service::LOG_FILES_KEPT)
        .build(dir)
        .map_err(|e| format!("cannot log into {}: {e}", dir.display()))?;
    let filter = log_filter(filter).map_err(|e| format!("RUST_LOG: {e}"))?;
    let builder = tracing_subscriber::fmt().with_writer(files).with_ansi(false);
    match format {
        LogFormat::Pretty => builder.finish().with(filter).init(),
        LogFormat::Json => builder.json().finish().with(filter).init(),
    }
    Ok(())
}

/// Completes on SIGTERM or Ctrl-C (on Windows: Ctrl-C, Ctrl-Break or the console closing),
/// saying which. The handlers are installed at once (not when first awaited), so a signal that
/// comes while the server is still starting is not lost. Must be called inside the runtime.
fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut interrupt), Ok(mut terminate)) => tokio::select! {
                    _ = interrupt.recv() => tracing::info!("SIGINT received, stopping"),
                    _ = terminate.recv() => tracing::info!("SIGTERM received, stopping"),
                },
                (interrupt, terminate) => {
                    let error =
                        interrupt.err().or(terminate.err()).map(|e| e.to_string()).unwrap_or_default();
                    tracing::warn!(%error, "cannot listen for SIGTERM; stop with Ctrl-C");
                    let _ = tokio::signal::ctrl_c().await;
                    tracing::info!("SIGINT received, stopping");
                }
            }
        }
    }
    #[cfg(windows)]
    {
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
        let (interrupt, brk, close) = (ctrl_c(), ctrl_break(), ctrl_close());
        async move {
            match (interrupt, brk, close) {
                (Ok(mut interrupt), Ok(mut brk), Ok(mut close)) => tokio::select! {
                    _ = interrupt.recv() => tracing::info!("Ctrl-C received, stopping"),
                    _ = brk.recv() => tracing::info!("Ctrl-Break received, stopping"),
                    _ = close.recv() => tracing::info!("the console is closing, stopping"),
                },
                (interrupt, brk, close) => {
                    let error = interrupt.err().or(brk.err()).or(close.err()).map(|e| e.to_string());
                    tracing::warn!(error = %error.unwrap_or_default(), "cannot listen for Ctrl-C");
                    std::future::pending::<()>().await;
                }
            }
        }
    }
}

/// `arka serve`: the HTTP API until SIGTERM or Ctrl-C.
pub fn serve(args: ServeArgs) -> Result<(), String> {
    init_logging(args.log_format);
    run_until(args, shutdown_signal)
}

/// Runs the HTTP API until the future `stop` makes (inside the runtime) completes: then requests
/// in flight finish and the queue worker stops, as on SIGTERM.
pub(crate) fn run_until<S, F>(args: ServeArgs, stop: S) -> Result<(), String>
where
    S: FnOnce() -> F,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let result = runtime.block_on(async move {
        let shutdown = stop();
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let tls = crate::tls::configure(&args.tls, &args.data.data_dir).map_err(|e| e.to_string())?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        if args.sandbox {
            println!("Arka sandbox on {scheme}://{address}");
            println!("  sandbox NUIS:          {}", crate::services::accounts::SANDBOX_NUIS);
            println!("  sandbox partner token: {}", crate::services::accounts::SANDBOX_PARTNER_TOKEN);
            if args.sandbox_order_every > 0 {
                println!(
                    "  Wolt orders:           one every {} s on {}/orders (simulated)",
                    args.sandbox_order_every,
                    crate::api::marketplace::PREFIX
                );
            }
        } else {
            println!("Arka on {scheme}://{address}");
        }
        if let Some(tls) = &tls {
            println!("  TLS certificate:       {}", tls.cert_path.display());
            println!("  SHA-256 fingerprint:   {}", tls.fingerprint);
        }
        crate::run_with_tls(args, listener, tls, crate::stdout_console(), shutdown)
            .await
            .map_err(|e| e.to_string())
    });
    // Requests cut off after the grace period may hold a blocking task (a CIS call): bounded.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    result
}

/// `arka healthcheck`: waits until the server's GET /healthz answers 200.
pub fn healthcheck(listen: std::net::SocketAddr, wait: u64, tls: &TlsArgs) -> Result<(), String> {
    let url = crate::health_url(listen, tls.enabled());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(wait);
    loop {
        let why = match crate::check_health(&url) {
            Ok(()) => {
                println!("{url}: healthy");
                return Ok(());
            }
            Err(why) => why,
        };
        if std::time::Instant::now() >= deadline {
            return Err(format!("{url} is not healthy after {wait} s: {why}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
}

/// `arka cis-sim`: the CIS simulator alone.
pub fn cis_sim(listen: std::net::SocketAddr, strict_iic: bool) -> Result<(), String> {
    init_logging(LogFormat::Pretty);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let sim = crate::sim::cis::CisSim::new(crate::sim::cis::SimConfig { strict_iic, tcrs: Vec::new() })
            .map_err(|e| e.to_string())?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        // The bound address, so that `--listen 127.0.0.1:0` tells where it went.
        let listen = listener.local_addr().map_err(|e| e.to_string())?;
        println!("CIS simulator on http://{listen}");
        println!("  fiscalization: {}", crate::sim::cis::fiscalization_url(listen));
        println!("  e-invoice:     {}", crate::sim::cis::einvoice_url(listen));
        sim.serve(listener, shutdown_signal()).await.map_err(|e| e.to_string())
    })
}

/// `arka wolt-sim`: the Wolt simulator alone.
pub fn wolt_sim(args: WoltSimArgs) -> Result<(), String> {
    use crate::sim::wolt::{SimConfig, SimVenue, WoltSim};
    init_logging(LogFormat::Pretty);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let sim = WoltSim::new(SimConfig {
            venues: vec![SimVenue {
                venue_id: args.venue_id.clone(),
                api_key: args.api_key,
                webhook_secret: args.webhook_secret,
            }],
            webhook_url: args.webhook_url.clone(),
            order_every: (args.order_every > 0).then(|| std::time::Duration::from_secs(args.order_every)),
        });
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        // The bound address, so that `--listen 127.0.0.1:0` tells where it went.
        let listen = listener.local_addr().map_err(|e| e.to_string())?;
        println!("Wolt simulator on http://{listen}");
        println!("  venue:    {}", args.venue_id);
        println!(
            "  webhooks: {}",
            args.webhook_url.as_deref().unwrap_or("none until PUT /control/webhook-target")
        );
        sim.serve(listener, shutdown_signal()).await.map_err(|e| e.to_string())
    })
}

/// `arka hq ...`: the chain's head office and its shops and owners.
pub fn hq(action: crate::hq::cli::HqCommand) -> Result<(), String> {
    init_logging(LogFormat::Pretty);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let result = runtime.block_on(async move { crate::hq::cli::run(action, shutdown_signal()).await });
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    result
}

#[cfg(test)]
mod tests {
    use tracing::Level;

    use super::log_filter;

    #[test]
    fn rust_log_takes_a_level_targets_with_levels_or_both_and_defaults_to_info() {
        for unset in [None, Some(""), Some(" , ")] {
            let filter = log_filter(unset).unwrap();
            assert!(filter.would_enable("arka::api", &Level::INFO), "{unset:?}");
            assert!(!filter.would_enable("arka::api", &Level::DEBUG), "{unset:?}");
        }
        let warn = log_filter(Some("warn")).unwrap();
        assert!(warn.would_enable("hyper", &Level::WARN));
        assert!(!warn.would_enable("arka", &Level::INFO));

        let arka = log_filter(Some("arka=debug")).unwrap();
        assert!(arka.would_enable("arka::services::pipeline", &Level::DEBUG));
        assert!(!arka.would_enable("arka", &Level::TRACE));
        assert!(!arka.would_enable("hyper", &Level::ERROR), "only the targets named");

        let both = log_filter(Some("warn, arka=debug,hyper=error")).unwrap();
        assert!(both.would_enable("arka::store", &Level::DEBUG));
        assert!(both.would_enable("tokio", &Level::WARN));
        assert!(!both.would_enable("tokio", &Level::INFO));
        assert!(!both.would_enable("hyper::proto", &Level::WARN));

        assert!(log_filter(Some("arka=loud")).is_err());
    }
}
