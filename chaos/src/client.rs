//! The campaign's HTTP client: what a POS app on the LAN does (keep-alive connections, a bearer
//! token, JSON bodies), plus the raw bodies the fuzzer sends, each call timed.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::Error;

/// What the server answered, and how long it took.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
    pub elapsed: Duration,
}

impl Answer {
    /// `data` of the answer.
    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    /// A string at `pointer` (`/data/invoice/number`), or an error naming what was missing.
    pub fn text_at(&self, pointer: &str) -> Result<String, Error> {
        self.body
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| Error::Unexpected(format!("no {pointer} in HTTP {}: {}", self.status, self.body)))
    }

    /// An integer at `pointer`.
    pub fn int_at(&self, pointer: &str) -> Result<i64, Error> {
        self.body
            .pointer(pointer)
            .and_then(Value::as_i64)
            .ok_or_else(|| Error::Unexpected(format!("no {pointer} in HTTP {}: {}", self.status, self.body)))
    }

    /// Fails unless the status is `status`.
    pub fn expect(self, status: u16, what: &str) -> Result<Answer, Error> {
        if self.status == status {
            Ok(self)
        } else {
            Err(Error::Unexpected(format!(
                "{what}: expected HTTP {status}, got {}: {}",
                self.status, self.body
            )))
        }
    }
}

/// A request body.
#[derive(Debug, Clone, Copy)]
pub enum Sent<'a> {
    Nothing,
    Json(&'a Value),
    Raw { content_type: &'a str, bytes: &'a [u8] },
}

/// How a call failed below HTTP.
#[derive(Debug)]
pub enum Failure {
    /// No answer within the client's time limit: the server hung.
    Timeout,
    /// The connection failed (refused, reset, closed without an answer).
    Transport(String),
}

/// One POS app's connections to one server.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    base: String,
}

impl Client {
    /// A client of `base` (`http://127.0.0.1:PORT`) giving up on a call after `timeout`.
    pub fn new(base: &str, timeout: Duration) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .allow_non_standard_methods(true)
            .build()
            .new_agent();
        Client { agent, base: base.to_string() }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// Any call; a transport failure is a `Failure`, every HTTP answer an `Answer`.
    pub fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Sent<'_>,
    ) -> Result<Answer, Failure> {
        self.call_with(method, path, token, &[], body)
    }

    /// A call with more headers (an `Idempotency-Key`).
    pub fn call_with(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
        body: Sent<'_>,
    ) -> Result<Answer, Failure> {
        let mut request = ureq::http::Request::builder().method(method).uri(format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let (content_type, bytes) = match body {
            Sent::Nothing => (None, Vec::new()),
            Sent::Json(value) => (Some("application/json"), value.to_string().into_bytes()),
            Sent::Raw { content_type, bytes } => (Some(content_type), bytes.to_vec()),
        };
        if let Some(content_type) = content_type.filter(|c| !c.is_empty()) {
            request = request.header("Content-Type", content_type);
        }
        let request = request.body(bytes).map_err(|e| Failure::Transport(format!("request: {e}")))?;
        let started = Instant::now();
        let mut response = self.agent.run(request).map_err(|e| match e {
            ureq::Error::Timeout(_) => Failure::Timeout,
            other => Failure::Transport(other.to_string()),
        })?;
        let status = response.status().as_u16();
        // Bytes, not text: a print answers with a PDF.
        let bytes = response.body_mut().with_config().limit(64 * 1024 * 1024).read_to_vec();
        let elapsed = started.elapsed();
        let bytes = bytes.map_err(|e| match e {
            ureq::Error::Timeout(_) => Failure::Timeout,
            other => Failure::Transport(other.to_string()),
        })?;
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Ok(Answer { status, body, elapsed })
    }

    /// A call that must get an answer (set-up steps and checks).
    pub fn must(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Sent<'_>,
    ) -> Result<Answer, Error> {
        self.call(method, path, token, body)
            .map_err(|f| Error::Unexpected(format!("{method} {path}: no answer: {f:?}")))
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> Result<Answer, Error> {
        self.must("GET", path, token, Sent::Nothing)
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Result<Answer, Error> {
        self.must("POST", path, token, Sent::Json(body))
    }
}
