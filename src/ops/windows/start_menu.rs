//! The Start-menu link to the owner's page, written by `arka service install` from the settings
//! the service serves with: the installer cannot know a port or an address changed in
//! `arka.env`, the install command reads them (as it does for the firewall rule).

use std::ffi::OsString;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// The link inside the all-users Start menu (`%ProgramData%\Microsoft\Windows\Start Menu\Programs`),
/// where the installer's uninstaller looks for it too (`PAGE_LINK` in install/windows/arka.nsi).
pub const LINK: &str = r"Microsoft\Windows\Start Menu\Programs\Arka\Arka - owner's page.url";

/// Where the link is: under `%ProgramData%` (`C:\ProgramData` when the variable is missing).
pub fn link_path(program_data: Option<OsString>) -> PathBuf {
    let base = program_data.map(PathBuf::from).unwrap_or_else(|| PathBuf::from(r"C:\ProgramData"));
    LINK.split('\\').fold(base, |path, part| path.join(part))
}

/// The owner's page on this PC as the settings serve it: HTTPS when TLS is on, the listening
/// port, and `localhost` when Arka listens on every address (else the one it listens on).
pub fn owner_page(listen: SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    let host = match listen.ip() {
        ip if ip.is_unspecified() => "localhost".to_string(),
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    format!("{scheme}://{host}:{}/", listen.port())
}

/// The text of an Internet shortcut (`.url`) to `url`, as Windows writes one.
pub fn internet_shortcut(url: &str) -> String {
    format!("[InternetShortcut]\r\nURL={url}\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_opens_the_page_where_the_settings_serve_it() {
        // | ARKA_LISTEN            | TLS   | the owner's page              |
        let table = [
            ("0.0.0.0:8080", false, "http://localhost:8080/"),
            ("0.0.0.0:9443", true, "https://localhost:9443/"),
            ("[::]:8080", false, "http://localhost:8080/"),
            ("192.168.1.20:8080", false, "http://192.168.1.20:8080/"),
            ("127.0.0.1:80", true, "https://127.0.0.1:80/"),
            ("[fd00::20]:8080", false, "http://[fd00::20]:8080/"),
        ];
        for (listen, tls, page) in table {
            assert_eq!(owner_page(listen.parse().unwrap(), tls), page, "{listen} {tls}");
        }
        assert_eq!(
            internet_shortcut("http://localhost:8080/"),
            "[InternetShortcut]\r\nURL=http://localhost:8080/\r\n"
        );
    }

    #[test]
    fn the_link_is_where_the_uninstaller_deletes_it() {
        let script = include_str!("../../../install/windows/arka.nsi");
        let define = r#"!define PAGE_LINK "$SMPROGRAMS\"#;
        let line = script.lines().find(|l| l.starts_with(define)).unwrap_or_default();
        let relative = line.trim_start_matches(define).trim_end_matches('"');
        assert!(LINK.ends_with(&format!(r"Programs\{relative}")), "{line} vs {LINK}");
        assert!(script.contains(r#"Delete "${PAGE_LINK}""#), "the uninstaller deletes the link");
        let path = link_path(Some(r"C:\ProgramData".into()));
        assert!(path.ends_with("Arka - owner's page.url"), "{}", path.display());
        assert!(path.to_string_lossy().starts_with(r"C:\ProgramData"));
    }
}
