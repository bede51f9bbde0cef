//! The `arka` command line. It parses, then calls the library's commands (`arka::cli`).

use std::path::PathBuf;
use std::process::ExitCode;

use arka::cli::serve::WoltSimArgs;
use arka::cli::{self, accounts, audit, backup, copy, marketplace, queue, reports, serve, service};
use arka::config::{CopyPlaces, DataArgs, ServeArgs};
use arka::services::marketplace::VenueInput;
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
    Migrate {
        #[command(flatten)]
        data: DataArgs,
        /// Also rewrite a database of over 256 MiB with small pages, which a start leaves alone
        /// (minutes for millions of documents: run it while the shop is closed).
        #[arg(long)]
        small_pages: bool,
    },
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
    /// The audit trail of what moved money or changed who may do what: check its hash chain.
    Audit {
        #[command(subcommand)]
        action: AuditAction,
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
    /// The copy kept off the box while the server runs (--copy-dir, --copy-s3-url): `arka copy
    /// key` makes its key and prints it once.
    Copy {
        #[command(subcommand)]
        action: CopyAction,
    },
    /// Put a backup (FILE and FILE.key) in place of the data dir's database; the server must be
    /// stopped. What it replaces is kept beside it. Refused when the database it replaces holds
    /// documents numbered after the backup's, unless --force. With --from-hq instead of FILE: a
    /// new data dir filled from the chain's head office; with --from-copy, from the copy off
    /// the box.
    Restore {
        /// The backup's database file, as `arka backup` wrote it.
        #[arg(required_unless_present_any = ["from_hq", "from_copy"])]
        file: Option<PathBuf>,
        /// Fill an empty data dir (a new box) from the copy off the box, at --copy-dir or the
        /// bucket of --copy-s3-url: its newest state, or the last at or before --at.
        #[arg(long, conflicts_with_all = ["file", "force", "from_hq"])]
        from_copy: bool,
        /// With --from-copy: the time to go back to, as 2026-12-07 10:30 (Tirana) or RFC 3339.
        #[arg(long, requires = "from_copy")]
        at: Option<String>,
        /// With --from-copy: the copy's key as it was printed (64 hexadecimal digits), instead of
        /// its key file.
        #[arg(long, env = "ARKA_COPY_KEY", hide_env_values = true, requires = "from_copy")]
        copy_key: Option<String>,
        #[command(flatten)]
        copy: Box<CopyPlaces>,
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
        /// Take a plain http:// head office address (its traffic readable on the network).
        #[arg(long, env = "ARKA_HQ_ALLOW_HTTP", default_value_t = false)]
        hq_allow_http: bool,
        /// Restore even over documents numbered after the backup's: they stay in the replaced
        /// file only, and the restored database numbers after them.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Bring the database back to the previous release's schema, keeping every document, before
    /// starting the previous release's binary (the server must be stopped).
    Downgrade {
        #[command(flatten)]
        data: DataArgs,
        /// The schema to go back to: the previous release's.
        #[arg(long, default_value_t = arka::store::downgrade::PREVIOUS_RELEASE_SCHEMA)]
        to: i32,
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
    /// Arka as a Windows service: install (with its settings file, the data dir's access list and
    /// the firewall rule), uninstall (the data stays), start, stop, status. Windows only.
    Service {
        #[command(subcommand)]
        action: ServiceAction,
    },
    /// The people of the companies on this box: `arka users reset-password EMAIL`.
    Users {
        #[command(subcommand)]
        action: UsersAction,
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
    /// Take the data dir's shop out of its chain (the server stopped): it numbers its non-cash
    /// documents itself again, after the chain's last number; what had not reached the head office
    /// is dropped there. Audited. A linked shop started without its head office refuses non-cash
    /// documents until it is unlinked or started with it.
    UnlinkHq {
        /// Why the shop leaves its chain (kept in the audit trail).
        #[arg(long)]
        reason: String,
        /// The chain's last non-cash number of the business this year (`arka hq numbers last`):
        /// the shop's next one comes after it.
        #[arg(long)]
        noncash_after: i64,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Send every row of the data dir's shop to its head office again (the server stopped): after
    /// the head office's database was restored from a backup, what the shop shipped after that
    /// backup is sent again at its next start (a row the head office holds stays one row).
    HqResend {
        #[command(flatten)]
        data: DataArgs,
    },
    /// The head office of a chain of shops, over PostgreSQL (`arka hq serve`, `arka hq shops add`).
    Hq {
        #[command(subcommand)]
        action: arka::hq::cli::HqCommand,
    },
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
enum ServiceAction {
    /// Register the service (run as an administrator): creates %ProgramData%\Arka (for the
    /// service's account and Administrators only) and its settings file arka.env, kept if they
    /// exist; opens the listening port in Windows Firewall for private networks.
    Install(ServiceConfig),
    /// Stop and remove the service and its firewall rule; the data and the settings stay.
    Uninstall,
    /// Start the service and wait until it runs.
    Start,
    /// Stop the service (requests in flight finish) and wait until it has.
    Stop,
    /// Say whether the service runs.
    Status,
    /// What the service control manager starts: `serve` with the settings file.
    #[command(hide = true)]
    Run(ServiceConfig),
}

#[derive(clap::Args)]
struct ServiceConfig {
    /// The settings file (ARKA_*=value lines, as /etc/arka/arka.env on Linux). Default:
    /// %ProgramData%\Arka\arka.env, beside the data dir %ProgramData%\Arka\data.
    #[arg(long)]
    config: Option<PathBuf>,
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
enum CopyAction {
    /// Make the copy's key file (DATA_DIR/arka-copy.key) and print the key once, to keep off
    /// the box: a restore from the copy needs it.
    Key {
        #[command(flatten)]
        data: DataArgs,
        /// Where to write the key file instead.
        #[arg(long, env = "ARKA_COPY_KEY_FILE")]
        copy_key_file: Option<PathBuf>,
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
    /// Write every request the queue keeps (delivered ones too), signed as it was sent to the
    /// CIS, one SOAP envelope per file: what was sent stays provable (`xmlsec1 --verify`).
    Requests {
        /// The folder to write them into (created if missing).
        #[arg(long)]
        out: std::path::PathBuf,
        #[command(flatten)]
        data: DataArgs,
    },
}

#[derive(Subcommand)]
enum AuditAction {
    /// Check that no entry was changed, removed or reordered (by hand, with the sqlite3 tool);
    /// names the first broken entry and fails then. Only reads: the server may run.
    Verify {
        #[command(flatten)]
        data: DataArgs,
    },
}

#[derive(Subcommand)]
enum ReportsAction {
    /// Compare the report totals with totals rebuilt from the stored documents and check the
    /// audit trail's chain (nothing is changed); fails when they differ or the chain is broken.
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
enum UsersAction {
    /// Print a one-time code (valid one hour) with which the user of EMAIL sets a new password
    /// at the page ("Forgot the password?"): whoever holds the box holds the shop. Audited; the
    /// server may run.
    ResetPassword {
        /// The user's e-mail, as they sign in with it.
        email: String,
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

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Serve(args) => serve::serve(*args),
        Command::Migrate { data, small_pages } => {
            if small_pages {
                cli::open_store_with_small_pages(&data)?;
            } else {
                cli::open_store(&data)?;
            }
            println!("database {} is up to date", data.db_path().display());
            Ok(())
        }
        Command::Queue { action: None, data } => queue::list(&data),
        Command::Queue { action: Some(QueueAction::Resend { ids, data }), .. } => queue::resend(&data, &ids),
        Command::Queue { action: Some(QueueAction::Requests { out, data }), .. } => {
            queue::requests(&data, &out)
        }
        Command::Reports { action: ReportsAction::Verify { data } } => reports::verify(&data),
        Command::Reports { action: ReportsAction::Rebuild { data } } => reports::rebuild(&data),
        Command::Audit { action: AuditAction::Verify { data } } => audit::verify(&data),
        Command::CisSim { listen, strict_iic } => serve::cis_sim(listen, strict_iic),
        Command::Backup { data, to, backup_dir } => backup::backup(data, to, backup_dir),
        Command::Copy { action: CopyAction::Key { data, copy_key_file } } => copy::key(&data, copy_key_file),
        Command::Downgrade { data, to } => backup::downgrade(&data, to),
        Command::Restore { from_copy: true, at, copy_key, copy, data, .. } => {
            copy::restore(&data, &copy, at.as_deref(), copy_key.as_deref())
        }
        Command::Restore { from_hq: Some(url), hq_token, hq_ca_file, hq_allow_http, data, .. } => {
            let token = hq_token.unwrap_or_default();
            let from = arka::services::hq_sync::RestoreFrom {
                url: &url,
                token: &token,
                ca_file: hq_ca_file.as_deref(),
                allow_http: hq_allow_http,
            };
            backup::restore_from_hq(&from, &data)
        }
        Command::UnlinkHq { reason, noncash_after, data } => {
            arka::cli::chain::unlink(&data, &reason, noncash_after)
        }
        Command::HqResend { data } => arka::cli::chain::resend(&data),
        Command::Restore { file: Some(file), force, data, .. } => backup::restore(file, force, data),
        Command::Restore { .. } => Err("name the backup file to restore, or --from-hq".to_string()),
        Command::Hq { action } => serve::hq(action),
        Command::Healthcheck { listen, wait, tls } => serve::healthcheck(listen, wait, &tls),
        Command::WoltSim(args) => serve::wolt_sim(args),
        Command::Marketplace { action } => marketplace_command(action),
        Command::Service { action } => service_command(action),
        Command::Apps { action: AppsAction::Create { name, data } } => accounts::create_app(&data, &name),
        Command::Partners { action: PartnersAction::Create { name, data } } => {
            accounts::create_partner(&data, &name)
        }
        Command::Users { action: UsersAction::ResetPassword { email, data } } => {
            accounts::reset_password(&data, &email)
        }
    }
}

fn service_command(action: ServiceAction) -> Result<(), String> {
    match action {
        ServiceAction::Install(ServiceConfig { config }) => service::install(config),
        ServiceAction::Uninstall => service::uninstall(),
        ServiceAction::Start => service::start(),
        ServiceAction::Stop => service::stop(),
        ServiceAction::Status => service::status(),
        ServiceAction::Run(ServiceConfig { config }) => service::run(config),
    }
}

fn marketplace_command(action: MarketplaceAction) -> Result<(), String> {
    match action {
        MarketplaceAction::Enable { nuis, data } => marketplace::set_addon(&data, &nuis, true),
        MarketplaceAction::Disable { nuis, data } => marketplace::set_addon(&data, &nuis, false),
        MarketplaceAction::Grant { email, data } => marketplace::set_right(&data, &email, true),
        MarketplaceAction::Revoke { email, data } => marketplace::set_right(&data, &email, false),
        MarketplaceAction::Venue { nuis, wolt_venue_id, name, api_key, webhook_secret, data } => {
            let venue = VenueInput { wolt_venue_id, name, api_key, webhook_secret };
            marketplace::put(&data, &nuis, &venue)
        }
        MarketplaceAction::RemoveVenue { nuis, data } => marketplace::remove_venue(&data, &nuis),
        MarketplaceAction::Show { nuis, data } => marketplace::show(&data, &nuis),
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
