//! AI chat completions, forwarded to the owner's endpoint: a whole completion, or its events
//! handed on as they arrive.

use serde_json::Value;
use tokio::sync::mpsc;

use super::Services;
use crate::ai::{Failure, Opened};

/// Chunks of events buffered between the endpoint and a slow POS before reading pauses.
const EVENTS_IN_FLIGHT: usize = 16;

/// What the endpoint gave back.
pub enum Completion {
    Whole(Value),
    /// Server-sent events in the pieces they arrived in; closed when the stream ends.
    Events(mpsc::Receiver<Vec<u8>>),
}

impl Services {
    /// Forwards a checked request body; `stream` asks for the events as they come.
    pub async fn chat_completion(&self, body: Value, stream: bool) -> Result<Completion, Failure> {
        let ai = self.ai.clone();
        let internal = |e: tokio::task::JoinError| Failure::internal(&e.to_string());
        if !stream {
            return tokio::task::spawn_blocking(move || ai.complete(&body))
                .await
                .map_err(internal)?
                .map(Completion::Whole);
        }
        match tokio::task::spawn_blocking(move || ai.open_stream(&body)).await.map_err(internal)?? {
            Opened::Whole(completion) => Ok(Completion::Whole(completion)),
            Opened::Events(events) => {
                let (relay, received) = mpsc::channel(EVENTS_IN_FLIGHT);
                let ai = self.ai.clone();
                // Ends with the stream, or as soon as the POS has gone (the receiver dropped).
                tokio::task::spawn_blocking(move || {
                    ai.pump(events, |chunk| relay.blocking_send(chunk).is_ok())
                });
                Ok(Completion::Events(received))
            }
        }
    }
}
