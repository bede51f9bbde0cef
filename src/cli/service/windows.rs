//! The Windows side of `arka service`: the installation steps (Arka's folder and its access list,
//! the settings file, the registration, the firewall rule) and the service's own life (`run`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use clap::{Args, FromArgMatches};
use windows_service::service::{
    ServiceControl, ServiceControlAccept, ServiceExitCode, ServiceState, ServiceStatus, ServiceType,
};
use windows_service::service_control_handler::{self, ServiceControlHandlerResult, ServiceStatusHandle};
use windows_service::{define_windows_service, service_dispatcher};

use crate::config::ServeArgs;
use crate::ops::windows::service::{self as definition, SERVICE_NAME};
use crate::ops::windows::{acl, firewall, start_menu};

/// The settings file: the one named, or `%ProgramData%\Arka\arka.env`.
fn config_path(config: Option<PathBuf>) -> PathBuf {
    config.unwrap_or_else(|| definition::home(std::env::var_os("ProgramData")).join(definition::CONFIG_FILE))
}

/// `serve`'s settings from the file, and its log filter.
fn settings(config: &Path) -> Result<(ServeArgs, Option<String>), String> {
    let text = std::fs::read_to_string(config).map_err(|e| format!("{}: {e}", config.display()))?;
    let at = |e: definition::ConfigError| format!("{}: {e}", config.display());
    let parsed = definition::parse_config(&text).map_err(at)?;
    let serve = || ServeArgs::augment_args(clap::Command::new("serve"));
    let line = definition::serve_command_line(&parsed, &serve()).map_err(at)?;
    let first_line = |e: clap::Error| {
        format!("{}: {}", config.display(), e.to_string().lines().next().unwrap_or_default())
    };
    let matches = serve().try_get_matches_from(&line.arguments).map_err(first_line)?;
    let args = ServeArgs::from_arg_matches(&matches).map_err(first_line)?;
    Ok((args, line.log_filter))
}

/// A folder for the service's account, the Administrators and the system alone.
fn private_folder(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    acl::restrict_dir(dir, &acl::service_sid(SERVICE_NAME))
        .map_err(|e| format!("cannot restrict {} to the service and Administrators: {e}", dir.display()))
}

/// The Start-menu link to the owner's page, made again from the settings; the page's address.
fn page_link(args: &ServeArgs) -> Result<String, String> {
    let page = start_menu::owner_page(args.listen, args.tls.enabled());
    let link = start_menu::link_path(std::env::var_os("ProgramData"));
    if let Some(dir) = link.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&link, start_menu::internet_shortcut(&page))
        .map_err(|e| format!("{}: {e}", link.display()))?;
    Ok(page)
}

fn netsh(args: &[OsString]) -> Result<std::process::Output, String> {
    std::process::Command::new("netsh").args(args).output().map_err(|e| format!("netsh: {e}"))
}

/// `arka service install`: Arka's folder (kept if it exists, its list set again), the settings
/// file (kept if it exists), the registration (updated on an upgrade), the firewall rule and the
/// Start-menu link to the owner's page (both from the settings: run it again after changing
/// ARKA_LISTEN or TLS).
pub fn install(config: Option<PathBuf>) -> Result<(), String> {
    let config = config_path(config);
    let home = config.parent().map(Path::to_path_buf).unwrap_or_default();
    private_folder(&home)?;
    if config.exists() {
        println!("kept the existing settings {}", config.display());
    } else {
        std::fs::write(&config, definition::default_config(&home))
            .map_err(|e| format!("{}: {e}", config.display()))?;
        println!("wrote the settings {}", config.display());
    }
    let (args, _) = settings(&config)?;
    private_folder(&args.data.data_dir)?;
    let executable = std::env::current_exe().map_err(|e| format!("where is arka.exe? {e}"))?;
    definition::install(&definition::definition(&executable, &config))?;
    let _ = netsh(&firewall::delete_rule_args());
    let added = netsh(&firewall::add_rule_args(args.listen.port(), &executable))?;
    if !added.status.success() {
        return Err(format!(
            "the firewall rule for port {} was not added: {}",
            args.listen.port(),
            String::from_utf8_lossy(&added.stdout).trim()
        ));
    }
    println!(
        "installed the service {SERVICE_NAME} ({}), data in {}, port {} open on private networks",
        definition::account(),
        args.data.data_dir.display(),
        args.listen.port()
    );
    let page = page_link(&args)?;
    println!("the Start-menu link \"Arka - owner's page\" opens {page}");
    println!("start it with: arka service start");
    Ok(())
}

/// `arka service uninstall`: stops and removes the service, its firewall rule and its Start-menu
/// link; the data and the settings stay.
pub fn uninstall() -> Result<(), String> {
    definition::uninstall()?;
    let _ = netsh(&firewall::delete_rule_args());
    let link = start_menu::link_path(std::env::var_os("ProgramData"));
    let _ = std::fs::remove_file(&link);
    if let Some(dir) = link.parent() {
        let _ = std::fs::remove_dir(dir);
    }
    println!("removed the service {SERVICE_NAME} and its firewall rule; the data and settings are kept");
    Ok(())
}

pub fn start() -> Result<(), String> {
    definition::start()?;
    println!("service {SERVICE_NAME} is running");
    Ok(())
}

pub fn stop() -> Result<(), String> {
    definition::stop()?;
    println!("service {SERVICE_NAME} is stopped");
    Ok(())
}

pub fn status() -> Result<(), String> {
    println!("{}", definition::status()?);
    Ok(())
}

static CONFIG: OnceLock<PathBuf> = OnceLock::new();

define_windows_service!(ffi_service_main, service_main);

/// `arka service run`: what the service control manager starts; hands this thread to it.
pub fn run(config: Option<PathBuf>) -> Result<(), String> {
    let _ = CONFIG.set(config_path(config));
    service_dispatcher::start(SERVICE_NAME, ffi_service_main).map_err(|e| {
        format!("`arka service run` is for the service control manager ({e}); use `arka service start`")
    })
}

fn report(status: ServiceStatusHandle, state: ServiceState, exit_code: u32) {
    let controls_accepted = match state {
        ServiceState::Running => ServiceControlAccept::STOP | ServiceControlAccept::SHUTDOWN,
        _ => ServiceControlAccept::empty(),
    };
    let _ = status.set_service_status(ServiceStatus {
        service_type: ServiceType::OWN_PROCESS,
        current_state: state,
        controls_accepted,
        exit_code: if exit_code == 0 {
            ServiceExitCode::Win32(0)
        } else {
            ServiceExitCode::ServiceSpecific(exit_code)
        },
        checkpoint: 0,
        // Requests in flight get the server's grace period, the runtime five seconds more.
        wait_hint: crate::SHUTDOWN_GRACE + Duration::from_secs(10),
        process_id: None,
    });
}

fn service_main(_arguments: Vec<OsString>) {
    let config = CONFIG.get().cloned().unwrap_or_else(|| config_path(None));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let stop_tx = Mutex::new(Some(stop_tx));
    let handler = move |control| match control {
        ServiceControl::Stop | ServiceControl::Shutdown => {
            if let Some(tx) = stop_tx.lock().ok().and_then(|mut tx| tx.take()) {
                let _ = tx.send(());
            }
            ServiceControlHandlerResult::NoError
        }
        ServiceControl::Interrogate => ServiceControlHandlerResult::NoError,
        _ => ServiceControlHandlerResult::NotImplemented,
    };
    let Ok(status) = service_control_handler::register(SERVICE_NAME, handler) else { return };
    report(status, ServiceState::Running, 0);
    let exit_code = match serve_as_service(&config, status, stop_rx) {
        Ok(()) => 0,
        Err(why) => {
            tracing::error!(error = %why, "the service stopped");
            1
        }
    };
    report(status, ServiceState::Stopped, exit_code);
}

/// `serve` with the file's settings, logging into the data dir, until the service is stopped: the
/// stop request does what SIGTERM does on Linux.
fn serve_as_service(
    config: &Path,
    status: ServiceStatusHandle,
    stop: tokio::sync::oneshot::Receiver<()>,
) -> Result<(), String> {
    let (args, filter) = match settings(config) {
        Ok(settings) => settings,
        Err(why) => {
            let home = config.parent().unwrap_or(Path::new("."));
            let _ = crate::cli::serve::init_file_logging(
                crate::config::LogFormat::Pretty,
                None,
                &home.join(definition::LOG_DIR),
            );
            return Err(why);
        }
    };
    let logs = args.data.data_dir.join(definition::LOG_DIR);
    crate::cli::serve::init_file_logging(args.log_format, filter.as_deref(), &logs)?;
    tracing::info!(config = %config.display(), "the service is starting");
    crate::cli::serve::run_until(args, move || async move {
        let _ = stop.await;
        tracing::info!("the service control manager asked to stop, stopping");
        report(status, ServiceState::StopPending, 0);
    })
}
