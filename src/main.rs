//! The `arka` command line. It parses, then calls the library.

use std::path::PathBuf;
use std::process::ExitCode;

use arka::config::{DataArgs, LogFormat, ServeArgs};
use arka::secrets::{hash_token, new_token};
use arka::store::{Store, accounts};
use clap::{Parser, Subcommand};

/// Arka: the shop's fiscal server. Point-of-sale apps on the shop's network call it over HTTP;
/// it fiscalizes sales with the Albanian tax administration (CIS), keeps the books in SQLite,
/// and keeps selling when the internet is down.
#[derive(Parser)]
#[command(name = "arka", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API (try `arka serve --sandbox` first: it needs no setup at all).
    Serve(Box<ServeArgs>),
    /// Create or upgrade the database, then exit (serve does this by itself too).
    Migrate(DataArgs),
    /// Applications (point-of-sale programs) allowed to send X-Client-Id/X-Client-Secret.
    Apps {
        #[command(subcommand)]
        action: AppsAction,
    },
    /// List the documents waiting for the CIS (late delivery) and those it refused, oldest first;
    /// `arka queue resend ID` sends a refused one again.
    Queue {
        #[command(subcommand)]
        action: Option<QueueAction>,
        #[command(flatten)]
        data: DataArgs,
    },
    /// The daily totals reports read: check them against the documents, or build them again.
    /// The server must be stopped.
    Reports {
        #[command(subcommand)]
        action: ReportsAction,
    },
    /// Run the CIS simulator alone (both services, their WSDLs, and the /control API for tests).
    CisSim {
        /// Address and port to listen on; keep it on loopback.
        #[arg(long, env = "ARKA_CIS_SIM_LISTEN", default_value = "127.0.0.1:8090")]
        listen: std::net::SocketAddr,
        /// Also verify every IIC and WTNIC against the signing certificate.
        #[arg(long, env = "ARKA_CIS_SIM_STRICT_IIC", default_value_t = false)]
        strict_iic: bool,
    },
    /// Copy the database and its key file while the server runs, and check the copy.
    /// The copy holds the sealed certificate keys and the key that opens them: keep it safe.
    Backup {
        #[command(flatten)]
        data: DataArgs,
        /// Where to write the database copy (the key file goes beside it as FILE.key). Default:
        /// arka-YYYYMMDD-HHMMSS.db in --backup-dir, or in the data dir's backups folder.
        #[arg(long)]
        to: Option<PathBuf>,
        /// Folder for backups (shared with `serve`'s automatic backups).
        #[arg(long, env = "ARKA_BACKUP_DIR")]
        backup_dir: Option<PathBuf>,
    },
    /// Put a backup (FILE and FILE.key) in place of the data dir's database; the server must be
    /// stopped. What it replaces is kept beside it. Refused when the database it replaces holds
    /// documents numbered after the backup's, unless --force. With --from-hq instead of FILE: a
    /// new data dir filled from the chain's head office.
    Restore {
        /// The backup's database file, as `arka backup` wrote it.
        #[arg(required_unless_present = "from_hq")]
        file: Option<PathBuf>,
        /// Bring the shop back from its head office (e.g. https://hq.example:8443) into an empty
        /// data dir: documents, numbering, catalog, users. Upload the certificate again after.
        #[arg(long, conflicts_with_all = ["file", "force"], requires = "hq_token")]
        from_hq: Option<String>,
        /// The shop's token at the head office.
        #[arg(long, env = "ARKA_HQ_TOKEN", hide_env_values = true)]
        hq_token: Option<String>,
        /// PEM file of root certificates to trust for the head office instead of the system's.
        #[arg(long, env = "ARKA_HQ_CA_FILE")]
        hq_ca_file: Option<PathBuf>,
        /// Restore even over documents numbered after the backup's: they stay in the replaced
        /// file only, and the restored database numbers after them.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Wait until the server's GET /healthz answers 200 (systemd runs it after start).
    Healthcheck {
        /// The server's listen address, as `serve` takes it; a wildcard address is checked on loopback.
        #[arg(long, env = "ARKA_LISTEN", default_value = arka::config::DEFAULT_LISTEN)]
        listen: std::net::SocketAddr,
        /// Seconds to keep trying before giving up.
        #[arg(long, default_value_t = 30)]
        wait: u64,
        #[command(flatten)]
        tls: arka::config::TlsArgs,
    },
    /// Partners allowed to register new companies through POST /api/v1/register.
    Partners {
        #[command(subcommand)]
        action: PartnersAction,
    },
    /// Run the Wolt simulator alone (merchant order API, signed webhooks, and /control for tests).
    WoltSim(WoltSimArgs),
    /// The delivery marketplace (Wolt) of a company: add-on, token rights, venue (the owner's settings).
    Marketplace {
        #[command(subcommand)]
        action: MarketplaceAction,
    },
    /// The head office of a chain of shops, over PostgreSQL (`arka hq serve`, `arka hq shops add`).
    Hq {
        #[command(subcommand)]
        action: arka::hq::cli::HqCommand,
    },
}

#[derive(clap::Args)]
struct WoltSimArgs {
    /// Address and port to listen on; keep it on loopback.
    #[arg(long, env = "ARKA_WOLT_SIM_LISTEN", default_value = "127.0.0.1:8091")]
    listen: std::net::SocketAddr,
    /// The venue the simulator plays Wolt for.
    #[arg(long, env = "ARKA_WOLT_SIM_VENUE_ID", default_value = "sim-venue")]
    venue_id: String,
    /// The API key merchant calls must carry (WOLT-API-KEY).
    #[arg(long, env = "ARKA_WOLT_SIM_API_KEY", default_value = "sim-api-key")]
    api_key: String,
    /// The secret webhooks are signed with (HMAC-SHA256, WOLT-SIGNATURE).
    #[arg(long, env = "ARKA_WOLT_SIM_WEBHOOK_SECRET", default_value = "sim-webhook-secret")]
    webhook_secret: String,
    /// Where webhooks go, e.g. http://127.0.0.1:8080/api/partner/v1/marketplace/webhooks/wolt.
    #[arg(long, env = "ARKA_WOLT_SIM_WEBHOOK_URL")]
    webhook_url: Option<String>,
    /// Seconds between automatic orders (0: only orders made through /control).
    #[arg(long, env = "ARKA_WOLT_SIM_ORDER_EVERY", default_value_t = 0)]
    order_every: u64,
}

#[derive(Subcommand)]
enum MarketplaceAction {
    /// Turn the company's marketplace add-on on.
    Enable {
        /// The company's NUIS.
        #[arg(long)]
        nuis: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Turn the company's marketplace add-on off (its venue and orders stay).
    Disable {
        #[arg(long)]
        nuis: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Give the token of the user with this e-mail the marketplace right.
    Grant {
        #[arg(long)]
        email: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Take the marketplace right away from the token of the user with this e-mail.
    Revoke {
        #[arg(long)]
        email: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Make this Wolt venue the company's one active venue; its credentials are stored sealed.
    Venue {
        #[arg(long)]
        nuis: String,
        /// Wolt's id of the venue.
        #[arg(long)]
        wolt_venue_id: String,
        /// A name to recognise it by (default: the venue id).
        #[arg(long, default_value = "")]
        name: String,
        /// The venue's API key (better through the environment, so it stays out of `ps`).
        #[arg(long, env = "ARKA_WOLT_API_KEY", hide_env_values = true)]
        api_key: String,
        /// The client secret Wolt signs webhooks with (at least 16 characters).
        #[arg(long, env = "ARKA_WOLT_WEBHOOK_SECRET", hide_env_values = true)]
        webhook_secret: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Leave the company without an active venue.
    RemoveVenue {
        #[arg(long)]
        nuis: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Show the company's marketplace settings (never the credentials).
    Show {
        #[arg(long)]
        nuis: String,
        #[command(flatten)]
        data: DataArgs,
    },
}

#[derive(Subcommand)]
enum AppsAction {
    /// Create an application and print its client id and secret (the secret is shown only once).
    Create {
        /// A name to recognise the application by, e.g. "Kasa POS 3".
        #[arg(long)]
        name: String,
        #[command(flatten)]
        data: DataArgs,
    },
}

#[derive(Subcommand)]
enum QueueAction {
    /// Send documents the CIS refused again, once their cause is corrected (a new certificate,
    /// the TCR or business unit fixed at the tax portal, ...). A running server sends them
    /// within a second, signed with the company's current certificate.
    Resend {
        /// Queue ids of refused documents (the first column of `arka queue`).
        #[arg(required = true)]
        ids: Vec<i64>,
        #[command(flatten)]
        data: DataArgs,
    },
}

#[derive(Subcommand)]
enum ReportsAction {
    /// Compare the report totals with totals rebuilt from the stored documents (nothing is
    /// changed); fails when they differ.
    Verify {
        #[command(flatten)]
        data: DataArgs,
    },
    /// Build the report totals again from the stored documents.
    Rebuild {
        #[command(flatten)]
        data: DataArgs,
    },
}

#[derive(Subcommand)]
enum PartnersAction {
    /// Create a partner and print its token (shown only once; keep it safe).
    Create {
        /// A name to recognise the partner by, e.g. "Shop onboarding desk".
        #[arg(long)]
        name: String,
        #[command(flatten)]
        data: DataArgs,
    },
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colours only for a person at a terminal: journald and log files get plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    match format {
        LogFormat::Pretty => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

/// Completes on SIGTERM or Ctrl-C, saying which. The handlers are installed at once (not when
/// first awaited), so a signal that comes while the server is still starting is not lost.
/// Must be called inside the runtime.
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
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("Ctrl-C received, stopping");
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), String> {
    init_logging(args.log_format);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let result = runtime.block_on(async move {
        let shutdown = shutdown_signal();
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let tls = arka::tls::configure(&args.tls, &args.data.data_dir).map_err(|e| e.to_string())?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        if args.sandbox {
            println!("Arka sandbox on {scheme}://{address}");
            println!("  sandbox NUIS:          {}", arka::services::accounts::SANDBOX_NUIS);
            println!("  sandbox partner token: {}", arka::services::accounts::SANDBOX_PARTNER_TOKEN);
            if args.sandbox_order_every > 0 {
                println!(
                    "  Wolt orders:           one every {} s on {}/orders (simulated)",
                    args.sandbox_order_every,
                    arka::api::marketplace::PREFIX
                );
            }
        } else {
            println!("Arka on {scheme}://{address}");
        }
        if let Some(tls) = &tls {
            println!("  TLS certificate:       {}", tls.cert_path.display());
            println!("  SHA-256 fingerprint:   {}", tls.fingerprint);
        }
        arka::run_with_tls(args, listener, tls, shutdown).await.map_err(|e| e.to_string())
    });
    // Requests cut off after the grace period may hold a blocking task (a CIS call): bounded.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    result
}

fn default_backup_path(data: &DataArgs, backup_dir: Option<PathBuf>) -> PathBuf {
    let dir = backup_dir.unwrap_or_else(|| data.data_dir.join("backups"));
    dir.join(format!("arka-{}.db", chrono::Utc::now().format("%Y%m%d-%H%M%S")))
}

/// Progress on a terminal as a bar, otherwise as a plain line every 10 %.
fn backup_progress() -> impl FnMut(arka::backup::Progress) {
    use std::io::IsTerminal;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {percent:>3}% {pos}/{len} pages")
        {
            bar.set_style(style);
        }
        bar
    });
    let mut last_tenth = None;
    move |p: arka::backup::Progress| match &bar {
        Some(bar) => {
            bar.set_length(p.total_pages);
            bar.set_position(p.copied_pages);
            if p.copied_pages >= p.total_pages {
                bar.finish_and_clear();
            }
        }
        None => {
            let tenth = (p.copied_pages * 10).checked_div(p.total_pages).unwrap_or(10);
            if last_tenth != Some(tenth) {
                last_tenth = Some(tenth);
                eprintln!("backup: {}% ({} of {} pages)", tenth * 10, p.copied_pages, p.total_pages);
            }
        }
    }
}

fn backup(data: DataArgs, to: Option<PathBuf>, backup_dir: Option<PathBuf>) -> Result<(), String> {
    let to = to.unwrap_or_else(|| default_backup_path(&data, backup_dir));
    let key = data.data_dir.join("arka.key");
    let made =
        arka::backup::backup(&data.db_path(), &key, &to, backup_progress()).map_err(|e| e.to_string())?;
    println!("backup written and checked (integrity_check ok, schema version {})", made.schema_version);
    println!("  database: {} ({} bytes)", made.db.display(), made.bytes);
    println!("  key file: {}", made.key.display());
    println!("Keep both together and safe: with the key file, the backup opens the certificate keys.");
    Ok(())
}

fn restore(file: PathBuf, force: bool, data: DataArgs) -> Result<(), String> {
    let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S").to_string();
    let done = arka::backup::restore(&data.data_dir, &file, &stamp, force).map_err(|e| e.to_string())?;
    println!(
        "restored {} (schema version {}, {} invoices) into {}",
        done.from.display(),
        done.schema_version,
        done.invoices,
        done.db.display()
    );
    match (&done.replaced_db, &done.replaced_key) {
        (None, _) => println!("  there was no database before"),
        (Some(db), key) => {
            println!("  the replaced database was kept as {}", db.display());
            if let Some(key) = key {
                println!("  the replaced key file was kept as {}", key.display());
            }
        }
    }
    print_numbering(&done);
    if done.schema_version < arka::store::latest_schema_version() && done.floors.is_empty() {
        println!("  the next start migrates it to schema version {}", arka::store::latest_schema_version());
    }
    println!("Start the server again (systemctl start arka).");
    Ok(())
}

/// What the restore found of the numbering: each sequence's last number in the backup and in
/// the replaced database, what the backup predates, and where the numbering continues.
fn print_numbering(done: &arka::backup::Restored) {
    use arka::backup::Numbering;
    let (sequences, predated) = match &done.numbering {
        Numbering::NothingReplaced => return,
        Numbering::Unreadable { why, backup } => {
            println!(
                "  the replaced database could not be read ({why}): the numbers it had reached are unknown;"
            );
            println!(
                "  before the first sale, compare the backup's last numbers with the CIS's (docs, \"Backup and restore\": /docs/operations.html#backup-and-restore):"
            );
            for l in backup {
                println!(
                    "    {} (company {}), {}, {}: {}/{}",
                    l.nuis, l.company_id, l.sequence, l.year, l.ord_num, l.year
                );
            }
            return;
        }
        Numbering::Compared { sequences, predated, damaged } => {
            if let Some(why) = damaged {
                println!(
                    "  the replaced database is damaged ({why}): it may have numbered more than what was read of it;"
                );
                println!(
                    "  before the first sale, compare the last numbers below with the CIS's (docs, \"Backup and restore\": /docs/operations.html#backup-and-restore)"
                );
            }
            (sequences, predated)
        }
    };
    println!("  last numbers (the backup / the replaced database):");
    for s in sequences {
        let number = |n: i64| if n == 0 { "none".to_string() } else { format!("{n}/{}", s.year) };
        println!(
            "    {} (company {}), {}, {}: {} / {}",
            s.nuis,
            s.company_id,
            s.sequence,
            s.year,
            number(s.backup),
            number(s.replaced)
        );
    }
    if predated.is_empty() {
        println!("  the backup holds every numbered document of the replaced database");
        return;
    }
    println!("  the backup predates, in the replaced database:");
    for p in predated {
        println!("    {p}");
    }
    for p in predated.iter().filter(|p| p.company_in_backup) {
        let l = &p.last;
        println!(
            "  {} (company {}), {}, {}: the numbering continues after {}/{}",
            l.nuis, l.company_id, l.sequence, l.year, l.replaced, l.year
        );
    }
    if predated.iter().any(|p| !p.company_in_backup) {
        println!(
            "  a company not in the backup keeps no floor: see \"Backup and restore\" in the docs (/docs/operations.html#backup-and-restore)"
        );
    }
    if !done.floors.is_empty() {
        println!(
            "  the restored database was brought to schema version {}",
            arka::store::latest_schema_version()
        );
    }
}

fn hq(action: arka::hq::cli::HqCommand) -> Result<(), String> {
    init_logging(LogFormat::Pretty);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let result = runtime.block_on(async move { arka::hq::cli::run(action, shutdown_signal()).await });
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    result
}

fn restore_from_hq(url: &str, token: &str, ca_file: Option<PathBuf>, data: &DataArgs) -> Result<(), String> {
    let _lock = arka::data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
    let done = arka::services::hq_sync::restore_data_dir(data, url, token, ca_file.as_deref())
        .map_err(|e| e.to_string())?;
    let mut tables: Vec<_> = done.rows.iter().filter(|(_, n)| **n > 0).collect();
    tables.sort();
    for (table, rows) in tables {
        println!("  {table}: {rows} rows");
    }
    println!("restored {} from {url} (its outbox goes on after {})", data.db_path().display(), done.acked);
    println!("upload the company's certificate again: it never leaves the shop");
    Ok(())
}

fn healthcheck(listen: std::net::SocketAddr, wait: u64, tls: &arka::config::TlsArgs) -> Result<(), String> {
    let url = arka::health_url(listen, tls.enabled());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(wait);
    loop {
        let why = match arka::check_health(&url) {
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

fn cis_sim(listen: std::net::SocketAddr, strict_iic: bool) -> Result<(), String> {
    init_logging(LogFormat::Pretty);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let sim = arka::cis_sim::CisSim::new(arka::cis_sim::SimConfig { strict_iic, tcrs: Vec::new() })
            .map_err(|e| e.to_string())?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        // The bound address, so that `--listen 127.0.0.1:0` tells where it went.
        let listen = listener.local_addr().map_err(|e| e.to_string())?;
        println!("CIS simulator on http://{listen}");
        println!("  fiscalization: {}", arka::cis_sim::fiscalization_url(listen));
        println!("  e-invoice:     {}", arka::cis_sim::einvoice_url(listen));
        sim.serve(listener, shutdown_signal()).await.map_err(|e| e.to_string())
    })
}

fn wolt_sim(args: WoltSimArgs) -> Result<(), String> {
    use arka::wolt_sim::{SimConfig, SimVenue, WoltSim};
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

fn marketplace(action: MarketplaceAction) -> Result<(), String> {
    use arka::services::marketplace::{VenueInput, owner_cli, put_venue};
    let fail = |e: arka::services::marketplace::Error| e.to_string();
    let show = |store: &Store, company: i64| -> Result<(), String> {
        let s = owner_cli::settings(store, company).map_err(fail)?;
        println!("add-on:           {}", if s.enabled { "enabled" } else { "disabled" });
        match &s.venue {
            Some(v) => {
                println!("venue:            {} ({}), credentials stored sealed", v.wolt_venue_id, v.name)
            }
            None => println!("venue:            none active"),
        }
        println!("users with right: {:?}", s.users_with_right);
        Ok(())
    };
    match action {
        MarketplaceAction::Enable { nuis, data } => {
            let store = open_store(&data)?;
            let company = owner_cli::company(&store, &nuis).map_err(fail)?;
            owner_cli::set_addon(&store, company, true).map_err(fail)?;
            show(&store, company)
        }
        MarketplaceAction::Disable { nuis, data } => {
            let store = open_store(&data)?;
            let company = owner_cli::company(&store, &nuis).map_err(fail)?;
            owner_cli::set_addon(&store, company, false).map_err(fail)?;
            show(&store, company)
        }
        MarketplaceAction::Grant { email, data } => {
            let user = owner_cli::set_right(&open_store(&data)?, &email, true).map_err(fail)?;
            println!("user {user} ({email}): its token has the marketplace right");
            Ok(())
        }
        MarketplaceAction::Revoke { email, data } => {
            let user = owner_cli::set_right(&open_store(&data)?, &email, false).map_err(fail)?;
            println!("user {user} ({email}): its token no longer has the marketplace right");
            Ok(())
        }
        MarketplaceAction::Venue { nuis, wolt_venue_id, name, api_key, webhook_secret, data } => {
            let store = open_store(&data)?;
            let company = owner_cli::company(&store, &nuis).map_err(fail)?;
            let key_file = arka::secrets::KeyFile::load_or_create(&data.data_dir.join("arka.key"))
                .map_err(|e| e.to_string())?;
            let venue = VenueInput { wolt_venue_id, name, api_key, webhook_secret };
            put_venue(&store, &key_file, company, &venue).map_err(fail)?;
            show(&store, company)
        }
        MarketplaceAction::RemoveVenue { nuis, data } => {
            let store = open_store(&data)?;
            let company = owner_cli::company(&store, &nuis).map_err(fail)?;
            owner_cli::remove_venue(&store, company).map_err(fail)?;
            show(&store, company)
        }
        MarketplaceAction::Show { nuis, data } => {
            let store = open_store(&data)?;
            let company = owner_cli::company(&store, &nuis).map_err(fail)?;
            show(&store, company)
        }
    }
}

fn open_store(data: &DataArgs) -> Result<Store, String> {
    Store::open(&data.db_path()).map_err(|e| format!("cannot open {}: {e}", data.db_path().display()))
}

fn print_queue(store: &Store) -> Result<(), String> {
    use arka::domain::time::{local_text, parse_stored};
    use arka::fiscal::queue::{LEGAL_LIMIT_HOURS, WARN_AFTER_HOURS, age_hours};
    let items = store
        .read_blocking(|conn| arka::store::fiscal_queue::open_items(conn, None))
        .map_err(|e| e.to_string())?;
    if items.is_empty() {
        println!("Nothing waits for the CIS.");
        return Ok(());
    }
    let now = chrono::Utc::now();
    println!(
        "{:>5}  {:<9} {:<27} {:<22} {:<19} {:>5} {:>8}  why",
        "id", "status", "document", "number", "issued", "age h", "attempts"
    );
    for q in &items {
        let age = age_hours(&q.issued_at, now);
        let issued = parse_stored(&q.issued_at).map(local_text).unwrap_or_else(|| q.issued_at.clone());
        let mut why = q.last_error.clone().unwrap_or_default();
        if q.status == arka::store::fiscal_queue::Status::Waiting {
            if let Some(next) = parse_stored(&q.next_attempt_at) {
                why = format!("{why} (next try {})", local_text(next));
            }
            if age.is_some_and(|h| h >= WARN_AFTER_HOURS) {
                why = format!("NEAR THE {LEGAL_LIMIT_HOURS} h LIMIT FOR LATE DELIVERY; {why}");
            }
        }
        println!(
            "{:>5}  {:<9} {:<27} {:<22} {:<19} {:>5} {:>8}  {}",
            q.id,
            q.status.as_str(),
            q.operation,
            q.document_number.as_deref().unwrap_or("-"),
            issued,
            age.map(|h| h.to_string()).unwrap_or_default(),
            q.attempts,
            why.trim()
        );
    }
    if items.iter().any(|q| q.status == arka::store::fiscal_queue::Status::Rejected) {
        println!();
        println!("The CIS refused the documents marked rejected; they stay until their cause is corrected.");
        println!("Then send them again with: arka queue resend ID...");
    }
    if items.iter().any(|q| q.status == arka::store::fiscal_queue::Status::Held) {
        println!();
        println!(
            "The documents marked held were given up while their POS waited (the CIS refused them, or did"
        );
        println!(
            "not answer for a non-cash invoice): the POS was told and nothing was handed over. Each number is"
        );
        println!(
            "held for the POS's retry of the same document (same internalId), which is issued under it; a"
        );
        println!("held number is never given to another document.");
    }
    Ok(())
}

fn resend(store: &Store, ids: &[i64]) -> Result<(), String> {
    let mut unknown = Vec::new();
    for &id in ids {
        if arka::services::queue::resend(store, id).map_err(|e| e.to_string())? {
            println!("{id}: waits for the CIS again");
        } else {
            unknown.push(id.to_string());
        }
    }
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(format!("no refused document has the queue id {} (see `arka queue`)", unknown.join(", ")))
    }
}

/// `arka reports verify|rebuild`, with the data dir's lock held so no server writes meanwhile.
fn reports(action: ReportsAction) -> Result<(), String> {
    use arka::store::report_totals;
    match action {
        ReportsAction::Verify { data } => {
            let _lock = arka::data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
            let drifts = open_store(&data)?
                .trial_blocking(|tx| report_totals::verify(tx))
                .map_err(|e| e.to_string())?;
            if drifts.is_empty() {
                println!("the report totals agree with the documents");
                return Ok(());
            }
            for d in &drifts {
                println!(
                    "{}: {} rows kept differ, {} rows rebuilt differ",
                    d.table, d.kept_only, d.rebuilt_only
                );
            }
            Err("the report totals differ from the documents: run `arka reports rebuild`".into())
        }
        ReportsAction::Rebuild { data } => {
            let _lock = arka::data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
            let documents = open_store(&data)?
                .write_blocking(|tx| report_totals::rebuild(tx, &mut |_, _| {}))
                .map_err(|e| e.to_string())?;
            println!("the report totals were rebuilt from {documents} documents");
            Ok(())
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Serve(args) => serve(*args),
        Command::Migrate(data) => {
            open_store(&data)?;
            println!("database {} is up to date", data.db_path().display());
            Ok(())
        }
        Command::Queue { action: None, data } => print_queue(&open_store(&data)?),
        Command::Queue { action: Some(QueueAction::Resend { ids, data }), .. } => {
            resend(&open_store(&data)?, &ids)
        }
        Command::Reports { action } => reports(action),
        Command::CisSim { listen, strict_iic } => cis_sim(listen, strict_iic),
        Command::Backup { data, to, backup_dir } => backup(data, to, backup_dir),
        Command::Restore { from_hq: Some(url), hq_token, hq_ca_file, data, .. } => {
            restore_from_hq(&url, hq_token.as_deref().unwrap_or_default(), hq_ca_file, &data)
        }
        Command::Restore { file: Some(file), force, data, .. } => restore(file, force, data),
        Command::Restore { .. } => Err("name the backup file to restore, or --from-hq".to_string()),
        Command::Hq { action } => hq(action),
        Command::Healthcheck { listen, wait, tls } => healthcheck(listen, wait, &tls),
        Command::WoltSim(args) => wolt_sim(args),
        Command::Marketplace { action } => marketplace(action),
        Command::Apps { action: AppsAction::Create { name, data } } => {
            let store = open_store(&data)?;
            let client_id = new_token("app").map_err(|e| e.to_string())?;
            let secret = new_token("secret").map_err(|e| e.to_string())?;
            store
                .write_blocking(|tx| accounts::insert_app(tx, &name, &client_id, &hash_token(&secret)))
                .map_err(|e| e.to_string())?;
            println!("application \"{name}\" created; the secret is shown only this once");
            println!("X-Client-Id: {client_id}");
            println!("X-Client-Secret: {secret}");
            Ok(())
        }
        Command::Partners { action: PartnersAction::Create { name, data } } => {
            let store = open_store(&data)?;
            let token = new_token("p").map_err(|e| e.to_string())?;
            store
                .write_blocking(|tx| accounts::insert_partner(tx, &name, &hash_token(&token)))
                .map_err(|e| e.to_string())?;
            println!("partner \"{name}\" created; the token is shown only this once");
            println!("Authorization: Bearer {token}");
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("arka: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use clap::CommandFactory;

    use super::Cli;

    /// A row of a settings table: `| `--flag` | `ARKA_FLAG` | default | meaning |`.
    struct Row {
        file: String,
        flag: String,
        variable: String,
        default: String,
    }

    fn cells(line: &str) -> Vec<String> {
        line.trim().trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect()
    }

    /// What the first code span of a cell holds, when the cell starts with one.
    fn leading_code(cell: &str) -> Option<&str> {
        cell.strip_prefix('`')?.split_once('`').map(|(code, _)| code)
    }

    /// The rows of every table headed `Flag | Variable | Default | Meaning` in the book.
    fn documented() -> Vec<Row> {
        let mut rows = Vec::new();
        let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let mut in_table = false;
                for line in text.lines() {
                    if !line.starts_with('|') {
                        in_table = false;
                        continue;
                    }
                    let cells = cells(line);
                    if cells.first().map(String::as_str) == Some("Flag") {
                        assert_eq!(cells, ["Flag", "Variable", "Default", "Meaning"], "{}", path.display());
                        in_table = true;
                        continue;
                    }
                    if !in_table || cells[0].starts_with("---") || cells[0].is_empty() {
                        continue;
                    }
                    assert_eq!(cells.len(), 4, "{}: {line}", path.display());
                    let code = |cell: &str| leading_code(cell).unwrap_or_default().to_string();
                    rows.push(Row {
                        file: path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string(),
                        flag: code(&cells[0]).trim_start_matches("--").to_string(),
                        variable: code(&cells[1]),
                        default: cells[2].clone(),
                    });
                }
            }
        }
        rows
    }

    /// The settings table of the book says what clap says of `arka serve`: every flag once, with
    /// its variable and its default (a switch is "off"; a setting clap gives no default shows
    /// none in code, e.g. "none" or "preset").
    #[test]
    fn the_settings_tables_of_the_book_are_the_flags_variables_and_defaults_of_serve() {
        let cli = Cli::command();
        let serve = cli.find_subcommand("serve").unwrap();
        let mut clap: BTreeMap<String, (String, Option<String>, bool)> = BTreeMap::new();
        for arg in serve.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if long == "help" {
                continue;
            }
            let variable = arg.get_env().map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
            let default = arg.get_default_values().first().map(|d| d.to_string_lossy().into_owned());
            let switch = matches!(arg.get_action(), clap::ArgAction::SetTrue);
            clap.insert(long.to_string(), (variable, default.filter(|d| !d.is_empty()), switch));
        }
        assert!(clap.len() >= 30, "{:?}", clap.keys());

        let rows = documented();
        let mut problems = Vec::new();
        let mut in_settings: BTreeMap<&str, usize> = BTreeMap::new();
        for row in &rows {
            let Some((variable, default, switch)) = clap.get(&row.flag) else {
                problems.push(format!("{}: --{} is not a flag of `arka serve`", row.file, row.flag));
                continue;
            };
            if row.file.ends_with("docs/src/settings.md") {
                *in_settings.entry(&row.flag).or_default() += 1;
            }
            if &row.variable != variable {
                problems.push(format!("{}: --{} reads {variable}, not {}", row.file, row.flag, row.variable));
            }
            let agrees = match (default, switch) {
                (_, true) => row.default == "off",
                (Some(default), false) => leading_code(&row.default) == Some(default.as_str()),
                (None, false) => leading_code(&row.default).is_none(),
            };
            if !agrees {
                let says = match (default, switch) {
                    (_, true) => "off".to_string(),
                    (Some(d), false) => format!("`{d}`"),
                    (None, false) => "nothing (no value in code)".to_string(),
                };
                problems.push(format!(
                    "{}: --{} defaults to {says}, the table says {}",
                    row.file, row.flag, row.default
                ));
            }
        }
        for (flag, (variable, default, switch)) in &clap {
            match in_settings.get(flag.as_str()) {
                Some(1) => {}
                Some(n) => problems.push(format!("docs/src/settings.md: --{flag} has {n} rows")),
                None => {
                    let default = match (default, switch) {
                        (_, true) => "off".to_string(),
                        (Some(d), false) => format!("`{d}`"),
                        (None, false) => "none".to_string(),
                    };
                    problems.push(format!(
                        "docs/src/settings.md has no row for --{flag}: | `--{flag}` | `{variable}` | {default} | … |"
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "the settings tables and clap differ:\n{}", problems.join("\n"));
    }
}
