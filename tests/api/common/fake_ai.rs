//! A small OpenAI-compatible chat endpoint on loopback: it answers a completion, streams one as
//! server-sent events (holding the rest back until the test releases it), refuses, answers
//! garbage, or never answers; and it keeps what it was sent.

use std::sync::{Arc, Mutex};

use arka::api::ai::Chunks;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

use super::stub::Stub;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A completion, or with `stream: true` its events (two chunks and [DONE], the second held
    /// back until `release`).
    Answer,
    /// A whole completion even when asked to stream.
    NeverStreams,
    /// 404 with an OpenAI error object.
    UnknownModel,
    /// 500 with an HTML page.
    Broken,
    /// 200 with something that is not a completion.
    Garbage,
    /// Accepts the request and never answers.
    Silent,
    /// 401 whose OpenAI error quotes the Authorization header it got, as hosted APIs do.
    EchoesKey,
    /// Answers, quoting the Authorization header: in the completion, or in events that cut it
    /// between two chunks, spelled as is, JSON-escaped, every character `\u`-escaped and
    /// percent-encoded.
    EchoesKeyInAnswer,
}

/// What one request carried.
#[derive(Debug, Clone)]
pub struct Seen {
    pub body: Value,
    pub authorization: Option<String>,
}

struct Endpoint {
    mode: Mutex<Mode>,
    seen: Mutex<Vec<Seen>>,
    release: Notify,
}

pub struct FakeAi {
    endpoint: Arc<Endpoint>,
    stub: Stub,
}

pub const FIRST_CHUNK: &str = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"llama3.1:8b","choices":[{"index":0,"delta":{"role":"assistant","content":"Mirë"}}]}"#;
pub const SECOND_CHUNK: &str = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"llama3.1:8b","choices":[{"index":0,"delta":{"content":"dita!"},"finish_reason":"stop"}]}"#;

pub fn completion() -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1795000000,
        "model": "llama3.1:8b",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Mirëdita!"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
    })
}

async fn completions(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_string);
    let stream = body["stream"] == json!(true);
    endpoint.seen.lock().unwrap().push(Seen { body, authorization: authorization.clone() });
    let mode = *endpoint.mode.lock().unwrap();
    match mode {
        Mode::Answer if stream => {
            let (tx, rx) = mpsc::channel(4);
            let endpoint = endpoint.clone();
            tokio::spawn(async move {
                let _ = tx.send(format!("{FIRST_CHUNK}\n\n").into_bytes()).await;
                endpoint.release.notified().await;
                let _ = tx.send(format!("{SECOND_CHUNK}\n\n").into_bytes()).await;
                let _ = tx.send(b"data: [DONE]\n\n".to_vec()).await;
            });
            ([(header::CONTENT_TYPE, "text/event-stream")], Body::new(Chunks(rx))).into_response()
        }
        Mode::Answer | Mode::NeverStreams => axum::Json(completion()).into_response(),
        Mode::UnknownModel => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"error": {
                "message": "model 'gpt-9' not found, try pulling it first",
                "type": "invalid_request_error",
                "param": "model",
                "code": "model_not_found",
            }})),
        )
            .into_response(),
        Mode::Broken => (StatusCode::INTERNAL_SERVER_ERROR, "<html><h1>500</h1></html>").into_response(),
        Mode::Garbage => ([(header::CONTENT_TYPE, "text/plain")], "hello").into_response(),
        Mode::Silent => std::future::pending().await,
        Mode::EchoesKey => {
            let sent = authorization.unwrap_or_default();
            let error = json!({"error": {
                "message": format!("Incorrect API key provided: {sent}. You can find your API key at https://example.com."),
                "type": "invalid_request_error",
                "param": sent,
                "code": "invalid_api_key",
            }});
            (StatusCode::UNAUTHORIZED, axum::Json(error)).into_response()
        }
        Mode::EchoesKeyInAnswer if stream => {
            let sent = authorization.unwrap_or_default();
            let escaped = Value::String(format!("You sent {sent}")).to_string();
            let cut = escaped.len() / 2 + 3;
            let every_char: String = sent.encode_utf16().map(|u| format!("\\u{u:04x}")).collect();
            let percent: String = sent.bytes().map(|b| format!("%{b:02X}")).collect();
            let chunks = vec![
                format!("data: {{\"choices\":[{{\"delta\":{{\"content\":{}", &escaped[..cut]),
                format!("{}}}}}]}}\n\n", &escaped[cut..]),
                format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{every_char}\"}}}}]}}\n\n"),
                format!("data: {{\"note\":\"{percent}\"}}\n\ndata: [DONE]\n\n"),
            ];
            let (tx, rx) = mpsc::channel(4);
            tokio::spawn(async move {
                for chunk in chunks {
                    let _ = tx.send(chunk.into_bytes()).await;
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            });
            ([(header::CONTENT_TYPE, "text/event-stream")], Body::new(Chunks(rx))).into_response()
        }
        Mode::EchoesKeyInAnswer => {
            let sent = authorization.unwrap_or_default();
            let mut answer = completion();
            answer["id"] = json!(sent);
            answer["choices"][0]["message"]["content"] = json!(format!("You sent {sent}"));
            axum::Json(answer).into_response()
        }
    }
}

impl FakeAi {
    pub fn start() -> FakeAi {
        let endpoint = Arc::new(Endpoint {
            mode: Mutex::new(Mode::Answer),
            seen: Mutex::new(Vec::new()),
            release: Notify::new(),
        });
        let router =
            axum::Router::new().route("/v1/chat/completions", post(completions)).with_state(endpoint.clone());
        FakeAi { endpoint, stub: Stub::start(router) }
    }

    /// The API base, as an owner gives it to `--ai-url`.
    pub fn base(&self) -> String {
        self.stub.url("/v1")
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.endpoint.mode.lock().unwrap() = mode;
    }

    /// Lets a held-back stream go on.
    pub fn release(&self) {
        self.endpoint.release.notify_one();
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.endpoint.seen.lock().unwrap().clone()
    }
}
