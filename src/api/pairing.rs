//! A cashier's pairing card: what a POS app needs to reach this server as that cashier, made
//! at the moment the token is made (only its hash is kept, so the card cannot be made later).
//!
//! The QR code holds one URL: the server's address with the token in the fragment (never sent
//! to a server by a browser or logged by a proxy), and, when HTTPS is on, the TLS certificate's
//! SHA-256 fingerprint for the app to pin:
//! `http://192.168.1.20:8080/#token=arka_u_…` or
//! `https://192.168.1.20:8443/#token=arka_u_…&sha256=AB:CD:…`.

use axum::http::{HeaderMap, StatusCode};
use qrcode::{Color, EcLevel, QrCode};
use serde::Serialize;

use super::AppState;
use super::error::ApiError;
use crate::store::accounts::User;

/// Light modules around the symbol, as the QR specification asks.
const QUIET_ZONE: usize = 4;
/// Pixels per module: a card printed at 96 dpi holds a symbol a phone's camera reads at once.
const MODULE_PX: usize = 6;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PairingCard {
    /// The address POS apps reach this server on.
    pub server_url: String,
    pub token: String,
    /// What the QR code holds.
    pub pairing_url: String,
    pub tls_fingerprint: Option<String>,
    /// The QR code of `pairing_url`, an SVG image.
    pub qr_svg: String,
    pub cashier: CardCashier,
    /// Why the card may not work as printed (an address only the server itself reaches).
    pub warning: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardCashier {
    pub id: i64,
    pub name: String,
    pub operator_code: Option<String>,
    pub fiscal_tcr_code: Option<String>,
}

/// A Host header as an address to print: host name or IP and port only.
fn plain_host(host: &str) -> Option<&str> {
    let host = host.trim();
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
    (!host.is_empty() && host.len() <= 255 && host.chars().all(allowed)).then_some(host)
}

/// Loopback names a POS on the network cannot reach.
fn only_the_box(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) && !name.ends_with(':') => name,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The server's address as POS apps should use it: `--public-url`, else the address this
/// request came in on (its Host), with the scheme the server speaks.
pub fn server_url(state: &AppState, headers: &HeaderMap) -> String {
    if let Some(public) = &state.services.public_url {
        return public.clone();
    }
    let scheme = if state.people.https { "https" } else { "http" };
    let host = super::invoices::host(headers).and_then(plain_host).unwrap_or("localhost");
    format!("{scheme}://{host}")
}

/// The URL a POS app scans.
pub fn pairing_url(server_url: &str, token: &str, fingerprint: Option<&str>) -> String {
    let mut url = format!("{}/#token={token}", server_url.trim_end_matches('/'));
    if let Some(fingerprint) = fingerprint {
        url.push_str("&sha256=");
        url.push_str(fingerprint);
    }
    url
}

/// The QR code of `text` as an SVG: one path of dark runs on white, with its quiet zone, in
/// whole pixels (renderers that scale a small viewBox blur the modules' edges into each other).
pub fn qr_svg(text: &str) -> Result<String, qrcode::types::QrError> {
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)?;
    let width = code.width();
    let px = (width + 2 * QUIET_ZONE) * MODULE_PX;
    let mut path = String::new();
    for (row, modules) in code.to_colors().chunks(width.max(1)).enumerate() {
        let mut start = None;
        // A light module past the end closes a run that reaches the right edge.
        for (column, color) in modules.iter().chain([&Color::Light]).enumerate() {
            match (color, start) {
                (Color::Dark, None) => start = Some(column),
                (Color::Light, Some(first)) => {
                    let (x, y) = ((first + QUIET_ZONE) * MODULE_PX, (row + QUIET_ZONE) * MODULE_PX);
                    let run = (column - first) * MODULE_PX;
                    path.push_str(&format!("M{x} {y}h{run}v{MODULE_PX}h-{run}z"));
                    start = None;
                }
                _ => {}
            }
        }
    }
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {px} {px}\" width=\"{px}\" \
         height=\"{px}\" role=\"img\" aria-label=\"QR code\">\
         <rect width=\"{px}\" height=\"{px}\" fill=\"#fff\"/><path d=\"{path}\" fill=\"#000\"/></svg>"
    ))
}

/// The card of `user` with its new `token`.
pub fn pairing_card(
    state: &AppState,
    headers: &HeaderMap,
    user: &User,
    token: &str,
) -> Result<PairingCard, ApiError> {
    let server_url = server_url(state, headers);
    let fingerprint = state.people.tls_fingerprint.clone();
    let pairing_url = pairing_url(&server_url, token, fingerprint.as_deref());
    let qr_svg = qr_svg(&pairing_url).map_err(|e| {
        tracing::error!(error = %e, "the pairing QR code could not be made");
        ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
    })?;
    let host = server_url.split_once("://").map_or(server_url.as_str(), |(_, rest)| rest);
    let warning = only_the_box(host).then(|| {
        "This address reaches the server only from the server itself: open the page from the shop's \
         network, or set --public-url, before printing this card."
            .to_string()
    });
    Ok(PairingCard {
        server_url,
        token: token.to_string(),
        pairing_url,
        tls_fingerprint: fingerprint,
        qr_svg,
        cashier: CardCashier {
            id: user.id,
            name: user.name.clone(),
            operator_code: user.operator_code.clone(),
            fiscal_tcr_code: user.tcr_code.clone(),
        },
        warning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pairing_url_carries_the_token_in_the_fragment_and_the_fingerprint_with_https() {
        assert_eq!(
            pairing_url("http://192.168.1.20:8080", "arka_u_x", None),
            "http://192.168.1.20:8080/#token=arka_u_x"
        );
        assert_eq!(
            pairing_url("https://kasa.local:8443/", "arka_u_x", Some("AB:CD")),
            "https://kasa.local:8443/#token=arka_u_x&sha256=AB:CD"
        );
    }

    #[test]
    fn a_host_is_printed_only_when_it_is_a_plain_address() {
        assert_eq!(plain_host("192.168.1.20:8080"), Some("192.168.1.20:8080"));
        assert_eq!(plain_host("[fe80::1]:8080"), Some("[fe80::1]:8080"));
        assert_eq!(plain_host("evil.example/path?x"), None);
        assert_eq!(plain_host(""), None);
        assert!(only_the_box("127.0.0.1:8080"));
        assert!(only_the_box("localhost"));
        assert!(only_the_box("[::1]:8080"));
        assert!(!only_the_box("192.168.1.20:8080"));
        assert!(!only_the_box("kasa.local"));
    }

    #[test]
    fn the_qr_svg_is_square_with_a_quiet_zone() {
        let svg = qr_svg("http://192.168.1.20:8080/#token=arka_u_x").unwrap();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "), "{svg}");
        // The finder pattern's top row (seven dark modules) starts at the quiet zone's edge.
        assert!(svg.contains("M24 24h42v6h-42z"), "{svg}");
    }
}
