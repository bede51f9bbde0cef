//! Arka as a Windows service: what the service control manager is told (name, account, command
//! line, restarts) and the settings file it starts `serve` with. The file is
//! `%ProgramData%\Arka\arka.env`, beside the data dir `%ProgramData%\Arka\data`, in the same
//! `KEY=VALUE` format and with the same settings as Linux's `/etc/arka/arka.env`.
//!
//! Everything here but the calls to the service control manager is pure and tested on every
//! platform.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The service's name (`sc query Arka`, `net stop Arka`); its virtual account is `NT SERVICE\Arka`.
pub const SERVICE_NAME: &str = "Arka";
pub const DISPLAY_NAME: &str = "Arka fiscal server";
pub const DESCRIPTION: &str = "Fiscalizes the shop's sales with the tax administration (CIS) and serves the tills on the shop's network.";
/// The settings file's name in Arka's folder under `%ProgramData%`.
pub const CONFIG_FILE: &str = "arka.env";
/// The folder inside the data dir the service logs into, one file a day.
pub const LOG_DIR: &str = "logs";
/// Days of log files kept; older ones are deleted.
pub const LOG_FILES_KEPT: usize = 14;
/// The service is restarted after a failure after this long, and failures are forgotten after a
/// day without one.
pub const RESTART_DELAY: Duration = Duration::from_secs(5);
pub const FAILURES_FORGOTTEN_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// What the installer from the settings file template stands for Arka's folder.
const TEMPLATE_HOME: &str = r"C:\ProgramData\Arka";
const TEMPLATE: &str = include_str!("../../../install/windows/arka.env");

/// The account the service runs as: its own virtual account, which the data dir's list names.
pub fn account() -> String {
    format!(r"NT SERVICE\{SERVICE_NAME}")
}

/// Arka's folder: `%ProgramData%\Arka` (`C:\ProgramData\Arka` when the variable is missing).
pub fn home(program_data: Option<OsString>) -> PathBuf {
    program_data.map(PathBuf::from).unwrap_or_else(|| PathBuf::from(r"C:\ProgramData")).join("Arka")
}

/// The default data dir on Windows: `data` inside Arka's folder.
pub fn data_dir(home: &Path) -> PathBuf {
    home.join("data")
}

/// The service's registration: what `arka service install` hands the service control manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub display_name: String,
    pub description: String,
    pub account: String,
    pub executable: PathBuf,
    /// After the executable: `service run --config FILE`.
    pub arguments: Vec<OsString>,
    /// Started with Windows, restarted after each of these failures (the last repeats).
    pub restarts: Vec<Duration>,
    pub failures_forgotten_after: Duration,
}

pub fn definition(executable: &Path, config: &Path) -> Definition {
    Definition {
        name: SERVICE_NAME.to_string(),
        display_name: DISPLAY_NAME.to_string(),
        description: DESCRIPTION.to_string(),
        account: account(),
        executable: executable.to_path_buf(),
        arguments: vec!["service".into(), "run".into(), "--config".into(), config.as_os_str().to_os_string()],
        restarts: vec![RESTART_DELAY; 3],
        failures_forgotten_after: FAILURES_FORGOTTEN_AFTER,
    }
}

/// The settings file a fresh install writes: `install/windows/arka.env` with `home` for Arka's
/// folder.
pub fn default_config(home: &Path) -> String {
    TEMPLATE.replace(TEMPLATE_HOME, &home.display().to_string())
}

/// One `KEY=VALUE` line of the settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub line: usize,
    pub key: String,
    pub value: String,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("line {0}: expected KEY=VALUE")]
    NotASetting(usize),
    #[error("line {0}: {1} is not a setting of `arka serve` (see the book's Settings)")]
    Unknown(usize, String),
}

/// Reads the settings file as systemd reads an environment file: `KEY=VALUE` lines, blank lines
/// and `#` comments skipped, one pair of quotes around a value dropped. A key given twice counts
/// once, with its last value.
pub fn parse_config(text: &str) -> Result<Vec<Setting>, ConfigError> {
    let mut settings: Vec<Setting> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim().trim_start_matches('\u{feff}');
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else { return Err(ConfigError::NotASetting(line)) };
        let key = key.trim();
        let valid = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(ConfigError::NotASetting(line));
        }
        let value = value.trim();
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
            .unwrap_or(value);
        settings.retain(|s| s.key != key);
        settings.push(Setting { line, key: key.to_string(), value: unquoted.to_string() });
    }
    Ok(settings)
}

/// `serve`'s command line for the settings, and the log filter (`RUST_LOG`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeCommandLine {
    /// Starting with `serve`, as clap parses it.
    pub arguments: Vec<OsString>,
    pub log_filter: Option<String>,
}

/// Turns each setting into the flag `serve` reads that variable for (`serve` is clap's command
/// of `arka serve`): the same names, checks and defaults as on Linux, where systemd hands the
/// file to the environment. An empty value is no setting, as there; a switch is on unless its
/// value is one of clap's false words.
pub fn serve_command_line(
    settings: &[Setting],
    serve: &clap::Command,
) -> Result<ServeCommandLine, ConfigError> {
    let mut arguments: Vec<OsString> = vec!["serve".into()];
    let mut log_filter = None;
    for setting in settings {
        if setting.key == "RUST_LOG" {
            log_filter = Some(setting.value.clone()).filter(|v| !v.is_empty());
            continue;
        }
        let flag = serve
            .get_arguments()
            .find(|arg| arg.get_env().is_some_and(|env| env == setting.key.as_str()))
            .and_then(|arg| arg.get_long().map(|long| (long, arg.get_action().takes_values())));
        let Some((long, takes_value)) = flag else {
            return Err(ConfigError::Unknown(setting.line, setting.key.clone()));
        };
        if setting.value.is_empty() {
            continue;
        }
        if takes_value {
            arguments.push(format!("--{long}={}", setting.value).into());
        } else if !is_false(&setting.value) {
            arguments.push(format!("--{long}").into());
        }
    }
    Ok(ServeCommandLine { arguments, log_filter })
}

/// clap's words for off in a switch's variable.
fn is_false(value: &str) -> bool {
    ["n", "no", "f", "false", "off", "0"].contains(&value.to_ascii_lowercase().as_str())
}

#[cfg(windows)]
pub use control::{install, start, status, stop, uninstall};

/// The calls to the service control manager (Windows only; they need an administrator).
#[cfg(windows)]
mod control {
    use std::ffi::OsStr;
    use std::time::{Duration, Instant};

    use windows_service::service::{
        ServiceAccess, ServiceAction, ServiceActionType, ServiceErrorControl, ServiceFailureActions,
        ServiceFailureResetPeriod, ServiceInfo, ServiceStartType, ServiceState, ServiceType,
    };
    use windows_service::service_manager::{ServiceManager, ServiceManagerAccess};

    use super::{Definition, SERVICE_NAME};

    fn manager(access: ServiceManagerAccess) -> Result<ServiceManager, String> {
        ServiceManager::local_computer(None::<&str>, access).map_err(|e| {
            format!("cannot reach the service control manager ({e}); run it as an administrator")
        })
    }

    fn say(e: windows_service::Error) -> String {
        format!("service {SERVICE_NAME}: {e}")
    }

    /// Registers the service, or updates its registration when it exists (an upgrade).
    pub fn install(definition: &Definition) -> Result<(), String> {
        let info = ServiceInfo {
            name: definition.name.clone().into(),
            display_name: definition.display_name.clone().into(),
            service_type: ServiceType::OWN_PROCESS,
            start_type: ServiceStartType::AutoStart,
            error_control: ServiceErrorControl::Normal,
            executable_path: definition.executable.clone(),
            launch_arguments: definition.arguments.clone(),
            dependencies: Vec::new(),
            account_name: Some(definition.account.clone().into()),
            account_password: None,
        };
        let manager = manager(ServiceManagerAccess::CONNECT | ServiceManagerAccess::CREATE_SERVICE)?;
        let access = ServiceAccess::CHANGE_CONFIG | ServiceAccess::QUERY_CONFIG | ServiceAccess::START;
        let service = match manager.open_service(&definition.name, access) {
            Ok(service) => {
                service.change_config(&info).map_err(say)?;
                service
            }
            Err(_) => manager.create_service(&info, access).map_err(say)?,
        };
        service.set_description(&definition.description).map_err(say)?;
        let actions = definition
            .restarts
            .iter()
            .map(|delay| ServiceAction { action_type: ServiceActionType::Restart, delay: *delay })
            .collect();
        service
            .update_failure_actions(ServiceFailureActions {
                reset_period: ServiceFailureResetPeriod::After(definition.failures_forgotten_after),
                reboot_msg: None,
                command: None,
                actions: Some(actions),
            })
            .map_err(say)?;
        // A stop with an error exit code (a setting that does not parse) counts as a failure too.
        service.set_failure_actions_on_non_crash_failures(true).map_err(say)
    }

    pub fn uninstall() -> Result<(), String> {
        stop()?;
        let manager = manager(ServiceManagerAccess::CONNECT)?;
        let service = manager.open_service(SERVICE_NAME, ServiceAccess::DELETE).map_err(say)?;
        service.delete().map_err(say)
    }

    fn wait_for(wanted: ServiceState, within: Duration) -> Result<(), String> {
        let manager = manager(ServiceManagerAccess::CONNECT)?;
        let service = manager.open_service(SERVICE_NAME, ServiceAccess::QUERY_STATUS).map_err(say)?;
        let deadline = Instant::now() + within;
        loop {
            let state = service.query_status().map_err(say)?.current_state;
            if state == wanted {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!("service {SERVICE_NAME} is {state:?} after {} s", within.as_secs()));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Starts the service and waits (30 s at most) until it runs.
    pub fn start() -> Result<(), String> {
        let manager = manager(ServiceManagerAccess::CONNECT)?;
        let service = manager
            .open_service(SERVICE_NAME, ServiceAccess::START | ServiceAccess::QUERY_STATUS)
            .map_err(say)?;
        if service.query_status().map_err(say)?.current_state != ServiceState::Running {
            service.start::<&OsStr>(&[]).map_err(say)?;
        }
        wait_for(ServiceState::Running, Duration::from_secs(30))
    }

    /// Asks the service to stop (requests in flight finish) and waits until it has, when it runs.
    pub fn stop() -> Result<(), String> {
        let manager = manager(ServiceManagerAccess::CONNECT)?;
        let Ok(service) =
            manager.open_service(SERVICE_NAME, ServiceAccess::STOP | ServiceAccess::QUERY_STATUS)
        else {
            return Ok(());
        };
        if service.query_status().map_err(say)?.current_state == ServiceState::Stopped {
            return Ok(());
        }
        service.stop().map_err(say)?;
        wait_for(ServiceState::Stopped, Duration::from_secs(60))
    }

    /// The service's state and process, in a line.
    pub fn status() -> Result<String, String> {
        let manager = manager(ServiceManagerAccess::CONNECT)?;
        let service = manager
            .open_service(SERVICE_NAME, ServiceAccess::QUERY_STATUS | ServiceAccess::QUERY_CONFIG)
            .map_err(|e| format!("service {SERVICE_NAME} is not installed ({e})"))?;
        let status = service.query_status().map_err(say)?;
        let config = service.query_config().map_err(say)?;
        let process = status.process_id.map(|pid| format!(", process {pid}")).unwrap_or_default();
        Ok(format!(
            "service {SERVICE_NAME}: {:?}{process}; runs {} as {}",
            status.current_state,
            config.executable_path.display(),
            config.account_name.map(|a| a.to_string_lossy().into_owned()).unwrap_or_default()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    fn serve_command() -> clap::Command {
        crate::config::ServeArgs::augment_args(clap::Command::new("serve"))
    }

    fn serve_args(settings: &[Setting]) -> crate::config::ServeArgs {
        let line = serve_command_line(settings, &serve_command()).unwrap();
        let matches = serve_command().try_get_matches_from(&line.arguments).unwrap();
        crate::config::ServeArgs::from_arg_matches(&matches).unwrap()
    }

    #[test]
    fn the_service_runs_serve_with_its_settings_file_as_its_own_account_and_restarts_on_failure() {
        let exe = Path::new(r"C:\Program Files\Arka\arka.exe");
        let config = Path::new(r"C:\ProgramData\Arka\arka.env");
        let d = definition(exe, config);
        assert_eq!(d.name, "Arka");
        assert_eq!(d.account, r"NT SERVICE\Arka");
        assert_eq!(d.executable, exe);
        assert_eq!(d.arguments, ["service", "run", "--config", r"C:\ProgramData\Arka\arka.env"]);
        assert_eq!(d.restarts, [Duration::from_secs(5); 3]);
        assert_eq!(home(Some(r"D:\Data".into())), Path::new(r"D:\Data").join("Arka"));
        assert_eq!(home(None), Path::new(r"C:\ProgramData").join("Arka"));
    }

    #[test]
    fn the_settings_file_reads_like_systemds_environment_file_and_says_which_line_is_wrong() {
        let text = "\u{feff}# comment\n\nARKA_LISTEN = 0.0.0.0:9090\nARKA_SOFT_CODE=\"ab 12\"\r\nARKA_LISTEN=127.0.0.1:8080\n";
        let settings = parse_config(text).unwrap();
        assert_eq!(
            settings,
            [
                Setting { line: 4, key: "ARKA_SOFT_CODE".into(), value: "ab 12".into() },
                Setting { line: 5, key: "ARKA_LISTEN".into(), value: "127.0.0.1:8080".into() },
            ]
        );
        assert_eq!(parse_config("ARKA_LISTEN\n"), Err(ConfigError::NotASetting(1)));
        assert_eq!(parse_config("\n9X=1\n"), Err(ConfigError::NotASetting(2)));
        let unknown = parse_config("ARKA_LISTN=1").unwrap();
        let error = serve_command_line(&unknown, &serve_command()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 1: ARKA_LISTN is not a setting of `arka serve` (see the book's Settings)"
        );
    }

    #[test]
    fn settings_become_serves_flags_with_switches_and_empty_values_as_systemd_has_them() {
        let settings = parse_config(
            "ARKA_LISTEN=0.0.0.0:9090\nARKA_SANDBOX=true\nARKA_METRICS=false\nARKA_SOFT_CODE=\nRUST_LOG=arka=debug\nARKA_DATA_DIR=C:\\Arka data\n",
        )
        .unwrap();
        let line = serve_command_line(&settings, &serve_command()).unwrap();
        assert_eq!(
            line.arguments,
            ["serve", "--listen=0.0.0.0:9090", "--sandbox", r"--data-dir=C:\Arka data"]
        );
        assert_eq!(line.log_filter.as_deref(), Some("arka=debug"));
        let args = serve_args(&settings);
        assert_eq!(args.listen.port(), 9090);
        assert!(args.sandbox && !args.metrics);
        assert_eq!(args.data.data_dir, Path::new(r"C:\Arka data"));
    }

    #[test]
    fn the_windows_settings_file_has_linuxs_settings_and_points_into_arkas_folder() {
        let keys = |text: &str| -> std::collections::BTreeSet<String> {
            text.lines()
                .map(|l| l.trim_start_matches('#').trim())
                .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_string()))
                .filter(|k| k.chars().all(|c| c.is_ascii_uppercase() || c == '_') && !k.is_empty())
                .collect()
        };
        let linux = include_str!("../../../install/arka.env");
        assert_eq!(keys(TEMPLATE), keys(linux), "install/windows/arka.env and install/arka.env");

        let home = Path::new(r"E:\Arka");
        let args = serve_args(&parse_config(&default_config(home)).unwrap());
        assert_eq!(args.data.data_dir, Path::new(r"E:\Arka\data"));
        assert_eq!(args.backups.backup_dir.as_deref(), Some(Path::new(r"E:\Arka\data\backups")));
        assert_eq!(args.listen.to_string(), "0.0.0.0:8080");
    }
}
