//! Wolt's merchant order API as Arka speaks it (../shared/wolt/ORDER-API.md): the order and
//! webhook shapes on the wire, the webhook signature, and the blocking client that fetches
//! orders and relays the partner API's actions. The simulator in `sim::wolt` serves the same
//! shapes.

pub mod client;
pub mod model;
pub mod signature;

/// Production base URL of the merchant API: `--wolt-url`'s default, defined once with the setting.
pub use crate::config::WOLT_URL as PRODUCTION_URL;
/// The header a legacy venue's API key travels in.
pub const API_KEY_HEADER: &str = "WOLT-API-KEY";
/// The header carrying a webhook's HMAC-SHA256 (hex) of its body.
pub const SIGNATURE_HEADER: &str = "WOLT-SIGNATURE";
