//! One log line per request (tower-http's trace layer): method, matched route, status, latency
//! and a request id, which the answer carries in `X-Request-Id`. Never the raw path, the query,
//! a header or a body: tokens and personal data stay out of the log. The same place counts
//! requests by route and status for /metrics, and tells the caller how long Arka took
//! (`Server-Timing`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderName, HeaderValue, Response};
use axum::middleware::{Next, from_fn};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use tracing::Span;

static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The route label of a request: the route template it matched, or `unmatched`.
fn route_of<B>(request: &axum::http::Request<B>) -> String {
    request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |m| m.as_str().to_string())
}

/// A caller's own request id is kept when it is a plain token (to correlate with its logs);
/// anything else is replaced by a fresh UUID.
pub fn acceptable_request_id(value: &[u8]) -> bool {
    (1..=64).contains(&value.len())
        && value.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

async fn drop_unacceptable_request_id(mut request: Request, next: Next) -> axum::response::Response {
    if request.headers().get(&REQUEST_ID).is_some_and(|v| !acceptable_request_id(v.as_bytes())) {
        request.headers_mut().remove(&REQUEST_ID);
    }
    next.run(request).await
}

async fn count_request(request: Request, next: Next) -> axum::response::Response {
    let route = route_of(&request);
    let response = next.run(request).await;
    crate::ops::metrics::http_request(&route, response.status().as_u16());
    response
}

static SERVER_TIMING: HeaderName = HeaderName::from_static("server-timing");

/// `Server-Timing: app;dur=<ms>` (W3C Server Timing): the time from the request's head to the
/// answer's, in milliseconds, so a POS developer on the LAN tells Arka's time (CIS calls
/// included) from the network's and their own; with `, cis;dur=<ms>`, the part of it spent
/// waiting for the CIS, when the request called it.
async fn server_timing(request: Request, next: Next) -> axum::response::Response {
    let start = Instant::now();
    let (mut response, cis) = crate::cis_wait::timed(next.run(request)).await;
    let mut took = format!("app;dur={:.3}", start.elapsed().as_secs_f64() * 1000.0);
    if let Some(cis) = cis {
        let _ = write!(took, ", cis;dur={:.3}", cis.as_secs_f64() * 1000.0);
    }
    if let Ok(value) = HeaderValue::from_str(&took) {
        response.headers_mut().insert(SERVER_TIMING.clone(), value);
    }
    response
}

/// `app` with the request id, the trace layer and the request counter around every route.
pub fn layered(app: Router) -> Router {
    let trace = TraceLayer::new_for_http()
        .make_span_with(|request: &axum::http::Request<_>| {
            let request_id = request.headers().get(&REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("");
            tracing::info_span!(
                "request",
                method = %request.method(),
                route = %route_of(request),
                request_id = %request_id,
            )
        })
        .on_request(())
        .on_response(|response: &Response<_>, latency: Duration, _span: &Span| {
            tracing::info!(
                status = response.status().as_u16(),
                latency_ms = latency.as_secs_f64() * 1000.0,
                "answered"
            );
        })
        .on_body_chunk(())
        .on_eos(())
        .on_failure(());
    app.layer(from_fn(count_request))
        .layer(trace)
        .layer(PropagateRequestIdLayer::new(REQUEST_ID.clone()))
        .layer(SetRequestIdLayer::new(REQUEST_ID.clone(), MakeRequestUuid))
        .layer(from_fn(drop_unacceptable_request_id))
        .layer(from_fn(server_timing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_short_request_ids_are_kept() {
        assert!(acceptable_request_id(b"pos-7f3a:42"));
        assert!(acceptable_request_id(b"0b6e1f0e-3c1e-4a55-9d3c-1a2b3c4d5e6f"));
        assert!(!acceptable_request_id(b""));
        assert!(!acceptable_request_id(&[b'a'; 65]));
        assert!(!acceptable_request_id(b"id with spaces"));
        assert!(!acceptable_request_id(b"Bearer\ttoken"));
    }
}
