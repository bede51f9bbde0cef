//! The text a panic was raised with, for the log line of a panic caught at a boundary: the
//! store's writer, the pipeline's save, the HTTP edge. A room of its own, importing nothing of
//! ours, so that the store can use it without reaching up to the crate root.

/// The text a panic was raised with (`panic!("...")` carries a `&str` or a `String`).
pub fn text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|m| m.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}
