//! Routes for the people and programs that run Arka, not for POS apps: `GET /healthz` and
//! `GET /metrics`. No token, no rate limit; they reveal no document and no company's data.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::error::ApiError;
use crate::clock::Clock;
use crate::domain::copy::CopyStatus;
use crate::domain::time::parse_stored;
use crate::fiscal::gateway::Breaker;
use crate::services::Services;
use crate::store::health;

/// A write probe answers for this long, so that however often /healthz is called, the single
/// writer sees at most one probe a second.
const PROBE_FRESH_FOR: Duration = Duration::from_secs(1);

/// State of the operations routes.
#[derive(Clone)]
pub struct Ops {
    pub services: Services,
    clock: Clock,
    last_probe: Arc<Mutex<Option<(Instant, bool)>>>,
    copy: super::backups::Copy,
}

impl Ops {
    pub fn new(services: Services, clock: Clock, copy: super::backups::Copy) -> Self {
        Ops { services, clock, last_probe: Arc::default(), copy }
    }

    /// Whether a write commits now (or did less than a second ago).
    async fn writable(&self) -> bool {
        if let Ok(last) = self.last_probe.lock()
            && let Some((at, writable)) = *last
            && self.clock.since(at) < PROBE_FRESH_FOR
        {
            return writable;
        }
        let writable = match self.services.store.write(|tx| health::probe(tx)).await {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(error = %crate::error_chain(&e), "health probe: the database does not take writes");
                false
            }
        };
        if let Ok(mut last) = self.last_probe.lock() {
            *last = Some((self.clock.now(), writable));
        }
        writable
    }

    /// The outbox to the chain's head office: none for a lone shop.
    async fn hq(&self, now: DateTime<Utc>) -> Option<HqBacklog> {
        match self.services.head_office().hq_backlog(now).await {
            Ok(waiting) => waiting.map(|w| HqBacklog {
                backlog: w.notes,
                oldest_age_seconds: w.oldest_age_seconds,
                set_aside: w.set_aside,
                problem: w.problem,
                retry_in_seconds: w.retry_in_seconds,
                plain_http: w.plain_http,
            }),
            Err(e) => {
                tracing::error!(error = %crate::error_chain(&e), "health: cannot read the outbox to the head office");
                None
            }
        }
    }

    async fn queue(&self) -> Option<health::QueueSummary> {
        match self.services.store.read(health::queue_summary).await {
            Ok(summary) => Some(summary),
            Err(e) => {
                tracing::error!(error = %crate::error_chain(&e), "health: cannot read the late-delivery queue");
                None
            }
        }
    }
}

#[derive(Debug, Serialize)]
struct Health {
    /// `ok` or `unavailable`.
    status: &'static str,
    version: &'static str,
    database: Database,
    queue: Option<Queue>,
    breaker: BreakerView,
    /// The current certificate that ends first among the companies; null when none has one.
    certificate: Option<CertificateView>,
    /// What waits for the chain's head office (`--hq-url`); absent for a lone shop.
    #[serde(skip_serializing_if = "Option::is_none")]
    hq: Option<HqBacklog>,
    /// The copy off the box (`--copy-dir`, `--copy-s3-url`); absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    copy: Option<CopyHealth>,
}

#[derive(Debug, Serialize)]
struct CopyHealth {
    /// `running` or `stopped` (set up, not running).
    state: &'static str,
    /// Seconds the furthest place is behind the shop, to the millisecond (null when stopped).
    lag_seconds: Option<f64>,
    /// Further behind than a minute, a place without a whole copy, or stopped.
    behind: bool,
    places: Vec<CopyPlace>,
}

#[derive(Debug, Serialize)]
struct CopyPlace {
    place: &'static str,
    lag_seconds: f64,
    restorable: bool,
    failing: Option<&'static str>,
}

/// Seconds since `since`, to the millisecond; 0 for none.
fn seconds_since(since: Option<DateTime<Utc>>, now: DateTime<Utc>) -> f64 {
    since.map_or(0.0, |t| (now - t).num_milliseconds().max(0) as f64 / 1000.0)
}

fn copy_health(status: &CopyStatus, now: DateTime<Utc>) -> Option<CopyHealth> {
    let behind = status.behind(now);
    match status {
        CopyStatus::Off => None,
        CopyStatus::NotRunning(_) => {
            Some(CopyHealth { state: "stopped", lag_seconds: None, behind, places: Vec::new() })
        }
        CopyStatus::Running(places) => Some(CopyHealth {
            state: "running",
            lag_seconds: Some(places.iter().map(|p| seconds_since(p.missing_since, now)).fold(0.0, f64::max)),
            behind,
            places: places
                .iter()
                .map(|p| CopyPlace {
                    place: p.target,
                    lag_seconds: seconds_since(p.missing_since, now),
                    restorable: p.restorable,
                    failing: p.failing.as_ref().map(|(kind, _)| *kind),
                })
                .collect(),
        }),
    }
}

#[derive(Debug, Serialize)]
struct HqBacklog {
    /// Changes noted and not yet acknowledged by the head office.
    backlog: i64,
    oldest_age_seconds: Option<i64>,
    /// Changes the head office refused, set aside at the shop.
    set_aside: i64,
    /// What keeps the changes from the head office now (started without it, refused, away).
    problem: Option<String>,
    /// When the shop tries again, while something keeps it from the head office.
    retry_in_seconds: Option<u64>,
    /// The head office is reached over plain HTTP (`--hq-allow-http`).
    plain_http: bool,
}

#[derive(Debug, Serialize)]
struct Database {
    writable: bool,
}

#[derive(Debug, Serialize)]
struct Queue {
    depth: i64,
    oldest_age_seconds: Option<i64>,
}

#[derive(Debug, Serialize)]
struct BreakerView {
    /// `closed` (documents go to the CIS) or `open` (they go to the late-delivery queue).
    state: &'static str,
    since: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize)]
struct CertificateView {
    valid_to: DateTime<Utc>,
    days_left: i64,
}

fn age_seconds(issued_at: Option<&str>, now: DateTime<Utc>) -> Option<i64> {
    issued_at.and_then(parse_stored).map(|t| (now - t).num_seconds().max(0))
}

/// `GET /healthz`: 200 while the database takes writes, 503 when it does not.
pub async fn healthz(State(ops): State<Ops>) -> Response {
    let writable = ops.writable().await;
    let now = ops.clock.utc();
    let queue = ops.queue().await.map(|q| Queue {
        depth: q.depth,
        oldest_age_seconds: age_seconds(q.oldest_issued_at.as_deref(), now),
    });
    let breaker = match ops.services.gateway.breaker() {
        Breaker::Closed => BreakerView { state: "closed", since: None },
        Breaker::Open { since, .. } => BreakerView { state: "open", since: Some(since) },
    };
    let certificate = match ops.services.store.read(health::soonest_certificate_end).await {
        Ok(end) => end
            .as_deref()
            .and_then(parse_stored)
            .map(|valid_to| CertificateView { valid_to, days_left: (valid_to - now).num_days() }),
        Err(e) => {
            tracing::error!(error = %crate::error_chain(&e), "health: cannot read the certificates");
            None
        }
    };
    let status = if writable { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    let body = Health {
        status: if writable { "ok" } else { "unavailable" },
        version: env!("CARGO_PKG_VERSION"),
        database: Database { writable },
        queue,
        breaker,
        certificate,
        hq: ops.hq(now).await,
        copy: copy_health(&(ops.copy.status)(), ops.clock.utc()),
    };
    (status, Json(body)).into_response()
}

/// `GET /metrics` (only with `--metrics`): Prometheus text.
pub async fn metrics(State(ops): State<Ops>) -> Response {
    let queue = ops.queue().await;
    let now = ops.clock.utc();
    let hq = ops.hq(now).await;
    let snapshot = crate::ops::metrics::Snapshot {
        hq_backlog: hq.as_ref().map_or(0, |h| h.backlog),
        hq_backlog_oldest_age_seconds: hq.as_ref().and_then(|h| h.oldest_age_seconds).unwrap_or(0),
        queue_depth: queue.as_ref().map_or(0, |q| q.depth),
        queue_oldest_age_seconds: queue
            .as_ref()
            .and_then(|q| age_seconds(q.oldest_issued_at.as_deref(), ops.clock.utc()))
            .unwrap_or(0),
        breaker_open: ops.services.gateway.breaker_open(),
        wal_frames: ops.services.store.wal_frames(),
        copy: match (ops.copy.status)() {
            CopyStatus::Running(places) => {
                let now = ops.clock.utc();
                places.iter().map(|p| (p.target, p.lag_seconds(now), p.sent_bytes)).collect()
            }
            CopyStatus::Off | CopyStatus::NotRunning(_) => Vec::new(),
        },
    };
    match crate::ops::metrics::render(snapshot) {
        Ok(text) => {
            ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], text)
                .into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "cannot render the metrics");
            ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "The metrics could not be rendered.")
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_age_counts_from_the_oldest_issue_time() {
        let now = parse_stored("2026-11-23T10:00:00+00:00").unwrap();
        assert_eq!(age_seconds(Some("2026-11-23T09:58:30+00:00"), now), Some(90));
        assert_eq!(age_seconds(Some("2026-11-23T10:00:05+00:00"), now), Some(0));
        assert_eq!(age_seconds(None, now), None);
        assert_eq!(age_seconds(Some("garbage"), now), None);
    }
}
