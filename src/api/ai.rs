//! `POST /api/v1/ai/chat/completions`: the body is checked, then forwarded to the owner's
//! OpenAI-compatible endpoint. The answer is the endpoint's own (OpenAI-shaped, not the
//! `{status, data}` envelope, so OpenAI client libraries read it): its completion with 201, its
//! server-sent events as they come, or 201 with `{error: {message, type, param, code}}`. With no
//! endpoint configured there is no service to answer: 503 in the standard envelope.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Json;
use axum::body::{Body as HttpBodyOf, Bytes};
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use http_body::Frame;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult};
use super::extract::{body_rejection, parse_json, parse_value};
use super::fields;
use crate::ai::Failure;
use crate::domain::chat::{self, ChatRequest, Content, Message};
use crate::services::ai::Completion;

/// Present (even as null) or absent: `content: null` differs from no `content`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct MessageBody {
    role: Option<String>,
    #[serde(default, deserialize_with = "present")]
    content: Option<Value>,
}

#[derive(Deserialize)]
struct ChatBody {
    model: Option<String>,
    messages: Option<Vec<MessageBody>>,
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    stream: Option<bool>,
}

impl From<ChatBody> for ChatRequest {
    fn from(b: ChatBody) -> Self {
        let message = |m: MessageBody| Message {
            role: m.role,
            content: match m.content {
                None => Content::Absent,
                Some(Value::Null) => Content::Null,
                Some(Value::String(text)) => Content::Text(text),
                Some(Value::Array(_)) => Content::Parts,
                Some(_) => Content::Other,
            },
        };
        ChatRequest { model: b.model, messages: b.messages.map(|ms| ms.into_iter().map(message).collect()) }
    }
}

#[derive(Serialize)]
struct FailureAnswer {
    error: Failure,
}

/// A response body of chunks sent down a channel, each written as soon as it comes: the relayed
/// events. It ends when the sender is dropped.
pub struct Chunks(pub mpsc::Receiver<Vec<u8>>);

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|chunk| chunk.map(|bytes| Ok(Frame::data(Bytes::from(bytes)))))
    }
}

pub async fn chat_completions(
    State(state): State<AppState>,
    _auth: Auth,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let bytes = body.map_err(body_rejection)?;
    // Forwarded as sent, so the endpoint also gets what Arka does not check (temperature, tools);
    // only `stream` is written as the boolean Arka read, whichever way the POS spelled it.
    let mut forward: Value = parse_json(&bytes)?;
    let parsed: ChatBody = parse_value(forward.clone())?;
    let stream = parsed.stream.unwrap_or(false);
    chat::validate(&ChatRequest::from(parsed)).map_err(ApiError::Validation)?;
    if forward.get("stream").is_some() {
        forward["stream"] = Value::Bool(stream);
    }
    let answer = match state.services.chat_completion(forward, stream).await {
        Ok(Completion::Whole(completion)) => (StatusCode::CREATED, Json(completion)).into_response(),
        Ok(Completion::Events(events)) => (
            StatusCode::CREATED,
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
                (header::HeaderName::from_static("x-accel-buffering"), "no"),
            ],
            HttpBodyOf::new(Chunks(events)),
        )
            .into_response(),
        // No endpoint is the owner's choice, not a fault worth a warning on every call: the
        // service is not there, in the standard envelope (no endpoint answered anything).
        Err(failure) if failure == Failure::not_configured() => {
            tracing::debug!("AI chat completion asked for, but no endpoint is configured");
            return Err(ApiError::status(StatusCode::SERVICE_UNAVAILABLE, failure.message));
        }
        Err(failure) => {
            tracing::warn!(code = ?failure.code, message = %failure.message, "AI chat completion not relayed");
            (StatusCode::CREATED, Json(FailureAnswer { error: failure })).into_response()
        }
    };
    Ok(answer)
}
