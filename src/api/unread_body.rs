//! Early answers keep the connection usable. A 401 from the token check, a 404, a 429 or a 413
//! is answered before the request body is read (or read whole). hyper then closes the
//! keep-alive connection without saying so, and a POS that reuses it, or that is still sending
//! the body, sees "connection reset" instead of the answer. So the body a handler left unread is
//! read to its end here (bounded in bytes and time) before the answer leaves; when that is not
//! possible the answer says `Connection: close`, so no client reuses the connection.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;

/// The most of a left-over body read to keep its connection; beyond it the connection closes.
pub const DRAIN_BYTES: usize = 4 * 1024 * 1024;
/// How long a left-over body may take to arrive.
const DRAIN_TIME: Duration = Duration::from_secs(2);

/// Where a body its handler dropped unread is handed back.
type Slot = Arc<Mutex<Option<Body>>>;

/// The request body, which gives itself back to `slot` when dropped before its end.
struct Tracked {
    inner: Option<Body>,
    slot: Slot,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let Some(inner) = self.inner.as_mut() else { return Poll::Ready(None) };
        let polled = Pin::new(inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None) | Poll::Ready(Some(Err(_)))) {
            // Read to its end (or broken): nothing is left to hand back.
            self.inner = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(http_body::Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.as_ref().map_or_else(|| SizeHint::with_exact(0), http_body::Body::size_hint)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take().filter(|b| !http_body::Body::is_end_stream(b)) {
            *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(inner);
        }
    }
}

/// Reads `body` to its end, giving up past `limit` bytes; true when it ended.
async fn read_to_end(mut body: Body, limit: usize) -> bool {
    let mut read = 0usize;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => {
                read += frame.data_ref().map_or(0, Bytes::len);
                if read > limit {
                    return false;
                }
            }
            Err(_) => return false,
        }
    }
    true
}

/// The middleware: runs the request, then reads what its handler left of the body.
pub async fn drain(request: Request, next: Next) -> Response {
    let slot: Slot = Arc::default();
    let (parts, body) = request.into_parts();
    let tracked = Body::new(Tracked { inner: Some(body), slot: slot.clone() });
    let mut response = next.run(Request::from_parts(parts, tracked)).await;
    let left = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(left) = left {
        let ended = tokio::time::timeout(DRAIN_TIME, read_to_end(left, DRAIN_BYTES)).await.unwrap_or(false);
        if !ended {
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_left_over_body_is_read_to_its_end_up_to_the_limit() {
        assert!(read_to_end(Body::from(vec![b'x'; 1000]), 1000).await);
        assert!(read_to_end(Body::empty(), 0).await);
        assert!(!read_to_end(Body::from(vec![b'x'; 1001]), 1000).await);
    }

    #[tokio::test]
    async fn a_body_dropped_before_its_end_is_handed_back_and_one_read_whole_is_not() {
        let slot: Slot = Arc::default();
        drop(Tracked { inner: Some(Body::from("unread")), slot: slot.clone() });
        let left = slot.lock().unwrap().take().unwrap();
        assert_eq!(left.collect().await.unwrap().to_bytes(), "unread");

        let mut read = Body::new(Tracked { inner: Some(Body::from("read")), slot: slot.clone() });
        while read.frame().await.is_some() {}
        drop(read);
        assert!(slot.lock().unwrap().is_none());
    }
}
