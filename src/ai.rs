//! The owner's OpenAI-compatible chat endpoint (a model server on the shop's network, or a hosted
//! one): Arka forwards POS apps' chat completions to it. Blocking (ureq): run off the async threads.
//! The key goes only into the Authorization header, never into a log line or an answer: an
//! endpoint that echoes it back (an error quoting the header it got) has it taken out of
//! everything relayed, its error, its completion and its events (`Secrets`).

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

/// What stands in for a secret an endpoint echoed.
pub const REDACTED: &str = "[redacted]";

/// What Arka sent the endpoint that must not come back to a POS: the key, the only secret among
/// the headers it sends (the others are `Accept`, `Content-Type` and ureq's `User-Agent`, fixed
/// public text); taking the key out also takes it out of `Bearer <key>`, the Authorization
/// header whole. An endpoint may echo it in any spelling JSON or a URL allows, so each byte of a
/// secret matches as is, as a JSON escape (`\"`, `\/`, `\u0041`, a surrogate pair) or as a
/// percent-encoded byte, in any mix.
#[derive(Debug, Clone, Default)]
struct Secrets(Vec<Vec<u8>>);

/// How far a secret matches from a place in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    No,
    /// The text ends while it still could be the secret; `most` when it already holds at least
    /// half of it (a text that ends there has it redacted all the same).
    Partial {
        most: bool,
    },
    /// The secret ends here (exclusive).
    Full(usize),
}

impl Match {
    fn best(self, other: Match) -> Match {
        match (self, other) {
            (Match::Full(a), Match::Full(b)) => Match::Full(a.max(b)),
            (Match::Full(a), _) | (_, Match::Full(a)) => Match::Full(a),
            (Match::Partial { most: a }, Match::Partial { most: b }) => Match::Partial { most: a || b },
            (partial @ Match::Partial { .. }, Match::No) | (Match::No, partial) => partial,
        }
    }
}

/// What one escape at the start of a text stands for.
enum Escape {
    /// Not an escape.
    None,
    /// The text ends inside one.
    Cut,
    /// The bytes it stands for, and its length in the text.
    Bytes(Vec<u8>, usize),
}

fn hex(digits: &[u8]) -> Option<u32> {
    let digits = std::str::from_utf8(digits).ok().filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))?;
    u32::from_str_radix(digits, 16).ok()
}

/// A `%XX` or a JSON escape at the start of `text`.
fn unescape(text: &[u8]) -> Escape {
    match text.first() {
        Some(b'%') => match text.get(1..3) {
            None if text[1..].iter().all(u8::is_ascii_hexdigit) => Escape::Cut,
            Some(digits) => match hex(digits).and_then(|b| u8::try_from(b).ok()) {
                Some(byte) => Escape::Bytes(vec![byte], 3),
                None => Escape::None,
            },
            None => Escape::None,
        },
        Some(b'\\') => {
            let short = match text.get(1) {
                None => return Escape::Cut,
                Some(b'u') => return unicode_escape(text),
                Some(b'"') => b'"',
                Some(b'\\') => b'\\',
                Some(b'/') => b'/',
                Some(b'b') => 0x08,
                Some(b'f') => 0x0C,
                Some(b'n') => b'\n',
                Some(b'r') => b'\r',
                Some(b't') => b'\t',
                Some(_) => return Escape::None,
            };
            Escape::Bytes(vec![short], 2)
        }
        _ => Escape::None,
    }
}

/// The UTF-16 unit of a `\uXXXX` at `text[at..]`: Err(true) when the text ends inside it.
fn utf16_unit(text: &[u8], at: usize) -> Result<u32, bool> {
    let Some(rest) = text.get(at..) else {
        return Err(false);
    };
    let whole = rest.len() >= 6;
    let head = &rest[..rest.len().min(6)];
    let prefix_ok = head.iter().zip(b"\\u").all(|(a, b)| a == b);
    let digits_ok = head.iter().skip(2).all(u8::is_ascii_hexdigit);
    match (whole, prefix_ok && digits_ok) {
        (_, false) => Err(false),
        (false, true) => Err(true),
        (true, true) => hex(&head[2..6]).ok_or(false),
    }
}

/// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`, as UTF-8.
fn unicode_escape(text: &[u8]) -> Escape {
    let first = match utf16_unit(text, 0) {
        Ok(unit) => unit,
        Err(true) => return Escape::Cut,
        Err(false) => return Escape::None,
    };
    let (code, length) = if (0xD800..0xDC00).contains(&first) {
        match utf16_unit(text, 6) {
            Ok(low) if (0xDC00..0xE000).contains(&low) => {
                (0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00), 12)
            }
            Err(true) => return Escape::Cut,
            Ok(_) | Err(false) => return Escape::None,
        }
    } else {
        (first, 6)
    };
    match char::from_u32(code) {
        Some(c) => Escape::Bytes(c.encode_utf8(&mut [0u8; 4]).as_bytes().to_vec(), length),
        None => Escape::None,
    }
}

impl Secrets {
    fn new(secrets: impl IntoIterator<Item = String>) -> Secrets {
        Secrets(secrets.into_iter().filter(|s| !s.is_empty()).map(String::into_bytes).collect())
    }

    /// How far `secret[matched..]` matches `text` from its start.
    fn matches(text: &[u8], secret: &[u8], matched: usize) -> Match {
        let Some(&wanted) = secret.get(matched) else {
            return Match::Full(0);
        };
        let Some(&first) = text.first() else {
            return Match::Partial { most: matched * 2 >= secret.len() };
        };
        let advance = |used: usize, bytes: usize| match Self::matches(&text[used..], secret, matched + bytes)
        {
            Match::Full(end) => Match::Full(used + end),
            other => other,
        };
        let literal = if first == wanted { advance(1, 1) } else { Match::No };
        let escaped = match unescape(text) {
            Escape::None => Match::No,
            Escape::Cut => Match::Partial { most: matched * 2 >= secret.len() },
            Escape::Bytes(bytes, used) if secret[matched..].starts_with(&bytes) => advance(used, bytes.len()),
            Escape::Bytes(..) => Match::No,
        };
        literal.best(escaped)
    }

    /// `text` with every secret in it replaced, up to where a secret may begin that only more
    /// text can tell: the output, where it stopped (`text.len()` when it did not) and whether
    /// what is left holds at least half a secret.
    fn scrub_bytes(&self, text: &[u8]) -> (Vec<u8>, usize, bool) {
        let mut out = Vec::with_capacity(text.len());
        let mut at = 0;
        while at < text.len() {
            let found = self.0.iter().fold(Match::No, |best, s| best.best(Self::matches(&text[at..], s, 0)));
            match found {
                Match::Full(length) if length > 0 => {
                    out.extend_from_slice(REDACTED.as_bytes());
                    at += length;
                }
                Match::Partial { most } => return (out, at, most),
                _ => {
                    out.push(text[at]);
                    at += 1;
                }
            }
        }
        (out, at, false)
    }

    /// The whole of a text: a secret that its end cuts is redacted when most of it is there.
    fn scrub_end(&self, text: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len());
        let mut from = 0;
        while from < text.len() {
            let (scrubbed, stopped, most) = self.scrub_bytes(&text[from..]);
            out.extend_from_slice(&scrubbed);
            from += stopped;
            if most {
                out.extend_from_slice(REDACTED.as_bytes());
                break;
            }
            if let Some(&byte) = text.get(from) {
                out.push(byte);
                from += 1;
            }
        }
        out
    }

    /// `text` with every secret in it replaced.
    fn scrub(&self, text: &str) -> String {
        if self.0.is_empty() {
            return text.to_string();
        }
        String::from_utf8_lossy(&self.scrub_end(text.as_bytes())).into_owned()
    }

    /// Every string of `value`, keys included.
    fn scrub_value(&self, value: Value) -> Value {
        if self.0.is_empty() {
            return value;
        }
        match value {
            Value::String(text) => Value::String(self.scrub(&text)),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.scrub_value(v)).collect()),
            Value::Object(fields) => Value::Object(
                fields.into_iter().map(|(k, v)| (self.scrub(&k), self.scrub_value(v))).collect(),
            ),
            other => other,
        }
    }

    fn scrub_failure(&self, failure: Failure) -> Failure {
        Failure {
            message: self.scrub(&failure.message),
            kind: self.scrub(&failure.kind),
            param: failure.param.map(|p| self.scrub(&p)),
            code: failure.code.map(|c| self.scrub(&c)),
        }
    }
}

/// Events relayed with the secrets taken out. A secret cut between two reads is caught: the
/// end of a read that may begin one waits for the next read (or the stream's end).
struct ScrubbedEvents<'a> {
    secrets: &'a Secrets,
    pending: Vec<u8>,
}

impl ScrubbedEvents<'_> {
    fn next(&mut self, chunk: &[u8]) -> Vec<u8> {
        if self.secrets.0.is_empty() {
            return chunk.to_vec();
        }
        self.pending.extend_from_slice(chunk);
        let (out, stopped, _) = self.secrets.scrub_bytes(&self.pending);
        self.pending.drain(..stopped);
        out
    }

    /// What waited for more when the stream ended.
    fn rest(&mut self) -> Vec<u8> {
        let pending = std::mem::take(&mut self.pending);
        if pending.is_empty() { pending } else { self.secrets.scrub_end(&pending) }
    }
}

struct Endpoint {
    url: String,
    key: Option<String>,
    secrets: Secrets,
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
            let key = key.map(str::to_string).filter(|k| !k.is_empty());
            Endpoint {
                url: completions_url(url),
                secrets: Secrets::new(key.clone()),
                key,
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

    /// What the endpoint answered, with the secrets Arka sent it taken out.
    fn scrubbed<T>(
        &self,
        answer: Result<T, Failure>,
        scrub: impl FnOnce(&Secrets, T) -> T,
    ) -> Result<T, Failure> {
        let Some(endpoint) = &self.endpoint else {
            return answer;
        };
        match answer {
            Ok(answer) => Ok(scrub(&endpoint.secrets, answer)),
            Err(failure) => Err(endpoint.secrets.scrub_failure(failure)),
        }
    }

    /// One whole completion.
    pub fn complete(&self, body: &Value) -> Result<Value, Failure> {
        let answer = self.post(|e| &e.plain, body).and_then(|(status, mut response, endpoint)| {
            let bytes = Self::whole(&mut response, endpoint)?;
            Self::completion(status, &bytes)
        });
        self.scrubbed(answer, Secrets::scrub_value)
    }

    /// Starts a streaming completion: its events, or the endpoint's whole answer when it does
    /// not stream.
    pub fn open_stream(&self, body: &Value) -> Result<Opened, Failure> {
        let answer = self.post(|e| &e.streaming, body).and_then(|(status, mut response, endpoint)| {
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
        });
        self.scrubbed(answer, |secrets, opened| match opened {
            Opened::Whole(value) => Opened::Whole(secrets.scrub_value(value)),
            events => events,
        })
    }

    /// Reads `events` in the pieces they arrive in, handing each to `relay` (with the secrets
    /// Arka sent taken out) until the stream ends, breaks (its failure is relayed as a last
    /// event) or `relay` says the caller has gone.
    pub fn pump(&self, mut events: impl Read, mut relay: impl FnMut(Vec<u8>) -> bool) {
        let no_secrets = Secrets::default();
        let (timeout, secrets) =
            self.endpoint.as_ref().map_or((Duration::ZERO, &no_secrets), |e| (e.timeout, &e.secrets));
        let mut scrubbed = ScrubbedEvents { secrets, pending: Vec::new() };
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            match events.read(&mut buffer) {
                Ok(0) => {
                    let rest = scrubbed.rest();
                    if !rest.is_empty() {
                        relay(rest);
                    }
                    return;
                }
                Ok(n) => {
                    let chunk = scrubbed.next(&buffer[..n]);
                    if !chunk.is_empty() && !relay(chunk) {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let rest = scrubbed.rest();
                    if !rest.is_empty() {
                        relay(rest);
                    }
                    relay(secrets.scrub_failure(Failure::broken(&e, timeout)).as_event());
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

    const KEY: &str = r#"AIKEY-7f3a/"q"\x9ë"#;

    fn scrubbed(text: &str) -> String {
        Secrets::new([KEY.to_string()]).scrub(text)
    }

    #[test]
    fn the_key_is_taken_out_in_every_spelling_an_endpoint_may_echo_it_in() {
        let json = serde_json::to_string(KEY).unwrap();
        let json = &json[1..json.len() - 1];
        let every_char_escaped: String = KEY.encode_utf16().map(|u| format!("\\u{u:04X}")).collect();
        let mixed = r#"AIKEY-7f3a\/\"q%22%5cx9%C3%AB"#;
        for spelling in [KEY, json, &json.replace('/', "\\/"), &every_char_escaped, mixed] {
            let text = format!("Incorrect API key provided: Bearer {spelling}.");
            assert_eq!(scrubbed(&text), "Incorrect API key provided: Bearer [redacted].", "{spelling}");
        }
        // Cut at the end of a text: redacted once most of it is there, else left alone.
        assert_eq!(scrubbed(&format!("key: {}", &KEY[..12])), "key: [redacted]");
        assert_eq!(scrubbed("grade A"), "grade A");
        assert_eq!(scrubbed("100% \\ done\\"), "100% \\ done\\");
        let value = serde_json::json!({"error": {"message": format!("bad {KEY}"), KEY: [KEY]}});
        let clean = Secrets::new([KEY.to_string()]).scrub_value(value).to_string();
        assert!(!clean.contains("7f3a"), "{clean}");
    }

    #[test]
    fn a_key_cut_between_two_reads_of_a_stream_is_caught() {
        let secrets = Secrets::new([KEY.to_string()]);
        let json = serde_json::to_string(&format!("Bearer {KEY}")).unwrap();
        let event = format!("data: {{\"content\":{json}}}\n\n");
        for cut in 1..event.len() {
            let mut events = ScrubbedEvents { secrets: &secrets, pending: Vec::new() };
            let mut relayed = events.next(&event.as_bytes()[..cut]);
            relayed.extend(events.next(&event.as_bytes()[cut..]));
            relayed.extend(events.rest());
            assert_eq!(
                String::from_utf8(relayed).unwrap(),
                "data: {\"content\":\"Bearer [redacted]\"}\n\n",
                "cut at {cut}"
            );
        }
        let mut events = ScrubbedEvents { secrets: &secrets, pending: Vec::new() };
        assert_eq!(events.next(b"data: [DONE]\n\n"), b"data: [DONE]\n\n", "nothing held back");
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
