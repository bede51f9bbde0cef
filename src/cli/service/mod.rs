//! `arka service install|uninstall|start|stop|status`: Arka as a Windows service (and `run`, the
//! command line the service control manager starts). Every platform's `arka` has the commands, so
//! the help and the book are one; off Windows they say where to look instead.

#[cfg(not(windows))]
use std::path::PathBuf;

#[cfg(windows)]
mod windows;

#[cfg(windows)]
pub use windows::{install, run, start, status, stop, uninstall};

/// What `arka service` answers off Windows.
#[cfg(not(windows))]
const NOT_WINDOWS: &str = "`arka service` registers Arka with the Windows service control manager and works on \
Windows only; on Linux, install/install.sh sets Arka up as a systemd service";

#[cfg(not(windows))]
pub fn install(_config: Option<PathBuf>) -> Result<(), String> {
    Err(NOT_WINDOWS.to_string())
}

#[cfg(not(windows))]
pub fn uninstall() -> Result<(), String> {
    Err(NOT_WINDOWS.to_string())
}

#[cfg(not(windows))]
pub fn start() -> Result<(), String> {
    Err(NOT_WINDOWS.to_string())
}

#[cfg(not(windows))]
pub fn stop() -> Result<(), String> {
    Err(NOT_WINDOWS.to_string())
}

#[cfg(not(windows))]
pub fn status() -> Result<(), String> {
    Err(NOT_WINDOWS.to_string())
}

#[cfg(not(windows))]
pub fn run(_config: Option<PathBuf>) -> Result<(), String> {
    Err(NOT_WINDOWS.to_string())
}
