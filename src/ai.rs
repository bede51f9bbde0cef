//! The owner's OpenAI-compatible chat endpoint (a model server on the shop's network, or a hosted
//! one): Arka forwards POS apps' chat completions to it. Blocking (ureq): run off the async threads.
//! The key goes only into the Authorization header, never into a log line or an answer.

use std::io::Read;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use ureq::Agent;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};

/// Largest completion read in one piece.
const MAX_COMPLETION_BYTES: u64 = 16 * 1024 * 1024;

/// How long connecting may take at most, within the call's own time limit.
const MAX_CONNECT: Duration = Duration::from_secs(10);

/// Why no completion came: the spec's `error` object, answered with 201.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub message: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub param: Option<String>,
    pub code: Option<String>,
}

impl Failure {
    fn new(kind: &str, code: &str, message: impl Into<String>) -> Failure {
        Failure { message: message.into(), kind: kind.into(), param: None, code: Some(code.into()) }
    }

    pub fn not_configured() -> Failure {
        Failure::new(
            "service_unavailable",
            "ai_not_configured",
            "No AI endpoint is configured: the owner sets one with --ai-url (ARKA_AI_URL).",
        )
    }

    pub fn internal(why: &str) -> Failure {
        Failure::new("server_error", "ai_internal", format!("The completion could not be relayed: {why}."))
    }

    /// The failure as a server-sent event, for a stream that breaks after it started.
    pub fn as_event(&self) -> Vec<u8> {
        let body = serde_json::json!({"error": self});
        format!("data: {body}\n\n").into_bytes()
    }

    fn timeout(timeout: Duration) -> Failure {
        Failure::new(
            "timeout",
            "ai_timeout",
            format!("The AI endpoint did not answer within {} seconds.", timeout.as_secs()),
        )
    }

    fn transport(e: ureq::Error, timeout: Duration) -> Failure {
        match e {
            ureq::Error::Timeout(_) => Failure::timeout(timeout),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Failure::timeout(timeout),
            other => Failure::new(
                "service_unavailable",
                "ai_unreachable",
                format!("The AI endpoint could not be reached: {other}."),
            ),
        }
    }

    fn broken(e: &std::io::Error, timeout: Duration) -> Failure {
        if e.kind() == std::io::ErrorKind::TimedOut {
            return Failure::timeout(timeout);
        }
        Failure::new(
            "upstream_error",
            "ai_stream_broken",
            format!("The AI endpoint's stream broke off: {e}."),
        )
    }

    /// An error answer: the endpoint's own `error` object when it sent one (OpenAI-compatible
    /// servers do), else its status.
    fn refused(status: u16, body: &[u8]) -> Failure {
        let sent = serde_json::from_slice::<Value>(body).ok().and_then(|v| v.get("error").cloned());
        let text = |v: Option<&Value>| match v {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        match sent {
            Some(Value::Object(e)) => Failure {
                message: text(e.get("message"))
                    .unwrap_or_else(|| format!("The AI endpoint answered HTTP {status}.")),
                kind: text(e.get("type")).unwrap_or_else(|| "upstream_error".into()),
                param: text(e.get("param")),
                code: text(e.get("code")),
            },
            Some(Value::String(message)) => Failure::new("upstream_error", "ai_upstream_status", message),
            _ => Failure::new(
                "upstream_error",
                "ai_upstream_status",
                format!("The AI endpoint answered HTTP {status}."),
            ),
        }
    }
}

/// What the endpoint answered a streaming request with.
pub enum Opened {
    /// Server-sent events, to be relayed as they come.
    Events(ureq::BodyReader<'static>),
    /// A whole completion (the endpoint does not stream).
    Whole(Value),
}

struct Endpoint {
    url: String,
    key: Option<String>,
    plain: Agent,
    streaming: Agent,
    timeout: Duration,
}

/// The configured endpoint, or none.
pub struct AiClient {
    endpoint: Option<Endpoint>,
}

/// `--ai-url` names the API base (`http://10.0.0.5:11434/v1`) or the completions address itself.
pub fn completions_url(base: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    if base.ends_with("/chat/completions") { base.to_string() } else { format!("{base}/chat/completions") }
}

fn agent(
    configure: impl FnOnce(
        ureq::config::ConfigBuilder<ureq::typestate::AgentScope>,
    ) -> ureq::config::ConfigBuilder<ureq::typestate::AgentScope>,
) -> Agent {
    let tls =
        TlsConfig::builder().provider(TlsProvider::NativeTls).root_certs(RootCerts::PlatformVerifier).build();
    let builder = Agent::config_builder().tls_config(tls).http_status_as_error(false);
    configure(builder).build().into()
}

impl AiClient {
    /// `timeout` bounds a whole plain completion, and for a stream the wait for its start and
    /// for each of its chunks.
    pub fn new(url: Option<&str>, key: Option<&str>, timeout: Duration) -> AiClient {
        let endpoint = url.map(str::trim).filter(|u| !u.is_empty()).map(|url| {
            let connect = Some(timeout.min(MAX_CONNECT));
            Endpoint {
                url: completions_url(url),
                key: key.map(str::to_string).filter(|k| !k.is_empty()),
                plain: agent(|b| b.timeout_connect(connect).timeout_global(Some(timeout))),
                streaming: agent(|b| {
                    b.timeout_connect(connect)
                        .timeout_recv_response(Some(timeout))
                        .timeout_per_read(Some(timeout))
                }),
                timeout,
            }
        });
        AiClient { endpoint }
    }

    fn post(
        &self,
        agent: impl Fn(&Endpoint) -> &Agent,
        body: &Value,
    ) -> Result<(u16, ureq::http::Response<ureq::Body>, &Endpoint), Failure> {
        let endpoint = self.endpoint.as_ref().ok_or_else(Failure::not_configured)?;
        let mut request =
            agent(endpoint).post(&endpoint.url).header("Accept", "application/json, text/event-stream");
        if let Some(key) = &endpoint.key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let response = request
            .content_type("application/json")
            .send(body.to_string())
            .map_err(|e| Failure::transport(e, endpoint.timeout))?;
        Ok((response.status().as_u16(), response, endpoint))
    }

    fn whole(
        response: &mut ureq::http::Response<ureq::Body>,
        endpoint: &Endpoint,
    ) -> Result<Vec<u8>, Failure> {
        response
            .body_mut()
            .with_config()
            .limit(MAX_COMPLETION_BYTES)
            .read_to_vec()
            .map_err(|e| Failure::transport(e, endpoint.timeout))
    }

    fn completion(status: u16, bytes: &[u8]) -> Result<Value, Failure> {
        if !(200..300).contains(&status) {
            return Err(Failure::refused(status, bytes));
        }
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(o)) => Ok(Value::Object(o)),
            _ => Err(Failure::new(
                "upstream_error",
                "ai_bad_response",
                "The AI endpoint's answer is not a JSON completion.",
            )),
        }
    }

    /// One whole completion.
    pub fn complete(&self, body: &Value) -> Result<Value, Failure> {
        let (status, mut response, endpoint) = self.post(|e| &e.plain, body)?;
        let bytes = Self::whole(&mut response, endpoint)?;
        Self::completion(status, &bytes)
    }

    /// Starts a streaming completion: its events, or the endpoint's whole answer when it does
    /// not stream.
    pub fn open_stream(&self, body: &Value) -> Result<Opened, Failure> {
        let (status, mut response, endpoint) = self.post(|e| &e.streaming, body)?;
        let is_events = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if (200..300).contains(&status) && is_events {
            return Ok(Opened::Events(response.into_body().into_reader()));
        }
        let bytes = Self::whole(&mut response, endpoint)?;
        Self::completion(status, &bytes).map(Opened::Whole)
    }

    /// Reads `events` in the pieces they arrive in, handing each to `relay` until the stream ends,
    /// breaks (its failure is relayed as a last event) or `relay` says the caller has gone.
    pub fn pump(&self, mut events: impl Read, mut relay: impl FnMut(Vec<u8>) -> bool) {
        let timeout = self.endpoint.as_ref().map_or(Duration::ZERO, |e| e.timeout);
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            match events.read(&mut buffer) {
                Ok(0) => return,
                Ok(n) => {
                    if !relay(buffer[..n].to_vec()) {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    relay(Failure::broken(&e, timeout).as_event());
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_url_gets_the_completions_path_once() {
        assert_eq!(completions_url("http://10.0.0.5:11434/v1"), "http://10.0.0.5:11434/v1/chat/completions");
        assert_eq!(completions_url("http://10.0.0.5:11434/v1/"), "http://10.0.0.5:11434/v1/chat/completions");
        assert_eq!(completions_url("http://h/v1/chat/completions"), "http://h/v1/chat/completions");
    }

    #[test]
    fn an_endpoints_error_object_is_passed_on() {
        let body = br#"{"error":{"message":"model 'x' not found","type":"invalid_request_error","param":"model","code":404}}"#;
        assert_eq!(
            Failure::refused(404, body),
            Failure {
                message: "model 'x' not found".into(),
                kind: "invalid_request_error".into(),
                param: Some("model".into()),
                code: Some("404".into()),
            }
        );
        let plain = Failure::refused(502, b"<html>Bad gateway</html>");
        assert_eq!(
            (plain.kind.as_str(), plain.code.as_deref()),
            ("upstream_error", Some("ai_upstream_status"))
        );
        assert!(plain.message.contains("502"));
    }

    #[test]
    fn nothing_configured_fails_without_a_call() {
        let client = AiClient::new(None, Some("sk-secret"), Duration::from_secs(1));
        let body = serde_json::json!({"model": "m", "messages": []});
        assert_eq!(client.complete(&body), Err(Failure::not_configured()));
        assert!(matches!(client.open_stream(&body), Err(f) if f == Failure::not_configured()));
    }

    #[test]
    fn a_broken_stream_ends_with_an_error_event() {
        struct Breaks(bool);
        impl Read for Breaks {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if std::mem::replace(&mut self.0, true) {
                    return Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset"));
                }
                let event = b"data: {\"choices\":[]}\n\n";
                buf[..event.len()].copy_from_slice(event);
                Ok(event.len())
            }
        }
        let client = AiClient::new(Some("http://127.0.0.1:9/v1"), None, Duration::from_secs(1));
        let mut relayed = Vec::new();
        client.pump(Breaks(false), |chunk| {
            relayed.push(String::from_utf8(chunk).unwrap());
            true
        });
        assert_eq!(relayed.len(), 2);
        assert!(
            relayed[1].starts_with("data: {\"error\":{") && relayed[1].contains("ai_stream_broken"),
            "{relayed:?}"
        );
    }
}
