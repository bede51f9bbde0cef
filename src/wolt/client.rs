//! The blocking client of Wolt's merchant API: fetch an order, relay an action. Callers run it
//! on tokio's blocking pool. Which answers mean what (ORDER-API.md section 3.5):
//!
//! * 2xx: done.
//! * 4xx (but 408 and 429): Wolt refused; `Failure::Refused` with its status and message.
//! * 5xx, 408, 429, a timeout, a refused or dropped connection: Wolt did not answer usefully;
//!   `Failure::Upstream`, safe to retry after reading the order back.

use std::time::Duration;

use serde_json::Value;
use ureq::Agent;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};

use super::model::OrderV2;
use super::{API_KEY_HEADER, PRODUCTION_URL};
use crate::domain::marketplace::WoltCall;
use crate::domain::validation::clean_text;

/// Larger answers are not read (an order is a few kilobytes).
const MAX_ANSWER_BYTES: u64 = 2 * 1024 * 1024;
/// How much of a refusal's text is kept for the caller and the log.
const MAX_MESSAGE_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Wolt answered and refused.
    Refused { status: u16, message: String },
    /// Wolt did not answer, or answered with a server error.
    Upstream(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Refused { status, message } => write!(f, "Wolt refused (HTTP {status}): {message}"),
            Failure::Upstream(why) => write!(f, "Wolt did not answer: {why}"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct WoltClient {
    agent: Agent,
    base: String,
}

/// Percent-encodes one path segment, so an order id can never change the path.
fn segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// The readable part of a refusal: Wolt's `msg`/`message`/`error_code`, or the text itself.
fn refusal_message(text: &str) -> String {
    let from_json = serde_json::from_str::<Value>(text).ok().and_then(|v| {
        ["msg", "message", "error", "error_code", "detail"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_string))
    });
    let message = from_json.unwrap_or_else(|| text.trim().to_string());
    let message: String = message.chars().filter(|c| !c.is_control()).take(MAX_MESSAGE_CHARS).collect();
    if message.is_empty() { "no reason given".to_string() } else { message }
}

impl WoltClient {
    /// A client of `base_url` (default: Wolt's production URL) giving up after `timeout`.
    pub fn new(base_url: Option<&str>, timeout: Duration) -> WoltClient {
        // ureq's bundled WebPki roots are not compiled in with native-tls.
        let tls = TlsConfig::builder()
            .provider(TlsProvider::NativeTls)
            .root_certs(RootCerts::PlatformVerifier)
            .build();
        let agent: Agent = Agent::config_builder()
            .tls_config(tls)
            .timeout_connect(Some(timeout))
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into();
        let base = base_url.unwrap_or(PRODUCTION_URL).trim_end_matches('/').to_string();
        WoltClient { agent, base }
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// `GET /v2/orders/{id}`, every text in it cleaned (`clean_strings`).
    pub fn order(&self, api_key: &str, order_id: &str) -> Result<OrderV2, Failure> {
        let url = format!("{}/v2/orders/{}", self.base, segment(order_id));
        let sent =
            self.agent.get(&url).header(API_KEY_HEADER, api_key).header("Accept", "application/json").call();
        let text = answer(sent)?;
        let unreadable = |e: serde_json::Error| Failure::Upstream(format!("the order is not readable: {e}"));
        let mut order: Value = serde_json::from_str(&text).map_err(unreadable)?;
        clean_strings(&mut order);
        serde_json::from_value(order).map_err(unreadable)
    }

    /// `PUT /orders/{id}/<call>` with `body` (JSON) or none.
    pub fn act(
        &self,
        api_key: &str,
        order_id: &str,
        call: WoltCall,
        body: Option<&Value>,
    ) -> Result<(), Failure> {
        let url = format!("{}/orders/{}/{}", self.base, segment(order_id), call.path());
        let request = self.agent.put(&url).header(API_KEY_HEADER, api_key);
        let sent = match body {
            Some(body) => request.header("Content-Type", "application/json").send(body.to_string()),
            None => request.send_empty(),
        };
        answer(sent).map(|_| ())
    }
}

/// Wolt's texts end up in the order's invoice (an item's name, a campaign, a B2B company), and
/// a character XML cannot carry there makes the CIS refuse it, with the order's number held for
/// a retry that would fail the same way. So they are cleaned as they enter
/// (`validation::clean_text`), every string of the order, which Arka cannot send back to Wolt.
fn clean_strings(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let std::borrow::Cow::Owned(clean) = clean_text(text) {
                *text = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean_strings),
        Value::Object(fields) => fields.values_mut().for_each(clean_strings),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The body of a 2xx answer, or what went wrong.
fn answer(sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Result<String, Failure> {
    let mut response = sent.map_err(|e| Failure::Upstream(e.to_string()))?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER_BYTES)
        .read_to_string()
        .map_err(|e| Failure::Upstream(format!("the answer could not be read: {e}")))?;
    match status {
        200..=299 => Ok(text),
        408 | 429 | 500..=599 => Err(Failure::Upstream(format!("HTTP {status}: {}", refusal_message(&text)))),
        _ => Err(Failure::Refused { status, message: refusal_message(&text) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_escaped() {
        assert_eq!(segment("5f3a-b_c.d~"), "5f3a-b_c.d~");
        assert_eq!(segment("../admin?x=1"), "..%2Fadmin%3Fx%3D1");
    }

    #[test]
    fn refusal_messages_are_short_and_plain() {
        assert_eq!(
            refusal_message(r#"{"error_code":"X","msg":"Order already accepted"}"#),
            "Order already accepted"
        );
        assert_eq!(refusal_message("  Bad Gateway \n"), "Bad Gateway");
        assert_eq!(refusal_message(""), "no reason given");
        assert_eq!(refusal_message(&"x".repeat(1000)).len(), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn every_text_of_an_order_is_cleaned() {
        let mut order = serde_json::json!({"id": "w-1", "items": [{"name": "Byrek\u{1}\u{0}\u{1b}[31m",
            "options": [{"name": "Djathë\u{7}"}]}], "count": 2, "company": {"name": "\u{ffff}Shpk"}});
        clean_strings(&mut order);
        assert_eq!(
            order,
            serde_json::json!({"id": "w-1", "items": [{"name": "Byrek", "options": [{"name": "Djathë"}]}],
                "count": 2, "company": {"name": "Shpk"}})
        );
    }

    #[test]
    fn an_unreachable_wolt_is_an_upstream_failure() {
        // A port nothing listens on: bind one, then free it.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let client = WoltClient::new(Some(&format!("http://127.0.0.1:{port}/")), Duration::from_secs(2));
        assert_eq!(client.base_url(), format!("http://127.0.0.1:{port}"));
        assert!(matches!(client.order("k", "o"), Err(Failure::Upstream(_))));
        assert!(matches!(client.act("k", "o", WoltCall::Ready, None), Err(Failure::Upstream(_))));
    }
}
