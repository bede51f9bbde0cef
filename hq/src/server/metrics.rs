//! The HQ's own `GET /metrics` (Prometheus text, with `--metrics`) and request log. Every
//! request is counted by matched route and status, timed, and logged in one line; what the shops
//! said in their heartbeats (backlog, CIS queue and their ages, changes set aside), how long each
//! has been silent, the boxes refused and the numbers held are read from PostgreSQL at scrape
//! time, so a silent shop or a growing backlog can be alerted on.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::Result;

/// Request time buckets, in seconds: a sync of a batch takes milliseconds, a backfill's batch
/// or a report over a year up to seconds.
const BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabel {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ShopLabel {
    shop: String,
}

fn request_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// The counters the HQ keeps while it runs.
pub struct HqMetrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Family<RouteLabel, Histogram, fn() -> Histogram>,
}

impl Default for HqMetrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "arka_hq_requests",
            "Requests to the HQ by method, matched route and status",
            requests.clone(),
        );
        let durations =
            Family::<RouteLabel, Histogram, fn() -> Histogram>::new_with_constructor(request_histogram);
        registry.register(
            "arka_hq_request_duration_seconds",
            "Time to answer, by matched route",
            durations.clone(),
        );
        HqMetrics { registry, requests, durations }
    }
}

/// Counts, times and logs each request in one line (method, route, status, milliseconds).
pub async fn observed(State(metrics): State<Arc<HqMetrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "other".to_string());
    let response = next.run(request).await;
    let status = response.status().as_u16();
    let elapsed = started.elapsed();
    metrics
        .requests
        .get_or_create(&RequestLabels { method: method.clone(), route: route.clone(), status })
        .inc();
    metrics.durations.get_or_create(&RouteLabel { route: route.clone() }).observe(elapsed.as_secs_f64());
    tracing::info!(
        target: "arka::hq::requests",
        %method,
        %route,
        status,
        ms = elapsed.as_secs_f64() * 1000.0,
        "request"
    );
    response
}

/// A gauge per shop, from the shops' rows.
fn per_shop(registry: &mut Registry, name: &str, help: &str, values: &[(String, i64)]) {
    let family = Family::<ShopLabel, Gauge>::default();
    for (shop, value) in values {
        family.get_or_create(&ShopLabel { shop: shop.clone() }).set(*value);
    }
    registry.register(name, help, family);
}

/// The text of `GET /metrics`: the counters, then what PostgreSQL says of the shops now.
pub async fn render(pool: &Pool, metrics: &HqMetrics) -> Result<String> {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &metrics.registry)
        .map_err(|e| crate::Error::Read(e.to_string()))?;
    let counters = text.trim_end().strip_suffix("# EOF").unwrap_or(&text).to_string();
    let mut now = Registry::default();
    let shops = crate::store::shops::views(pool).await?;
    let said = |key: &str| -> Vec<(String, i64)> {
        shops
            .iter()
            .filter(|v| v.shop.retired_at.is_none())
            .map(|v| {
                let value =
                    v.shop.heartbeat.as_ref().and_then(|h| h.get(key)).and_then(serde_json::Value::as_i64);
                (v.shop.name.clone(), value.unwrap_or(0))
            })
            .collect()
    };
    let open = shops.iter().filter(|v| v.shop.retired_at.is_none());
    let silent: Vec<(String, i64)> =
        open.clone().map(|v| (v.shop.name.clone(), v.silent_seconds.unwrap_or(i64::MAX))).collect();
    let acked: Vec<(String, i64)> = open.clone().map(|v| (v.shop.name.clone(), v.shop.acked_seq)).collect();
    let refused: Vec<(String, i64)> =
        open.map(|v| (v.shop.name.clone(), v.refused_boxes.iter().map(|r| r.calls).sum())).collect();
    per_shop(
        &mut now,
        "arka_hq_shop_silent_seconds",
        "Seconds since the shop was last heard from (its heartbeat)",
        &silent,
    );
    per_shop(
        &mut now,
        "arka_hq_shop_acked_seq",
        "The highest outbox sequence of the shop the HQ holds",
        &acked,
    );
    per_shop(
        &mut now,
        "arka_hq_shop_backlog",
        "Changes waiting at the shop for the HQ, as its heartbeat said",
        &said("backlog"),
    );
    per_shop(
        &mut now,
        "arka_hq_shop_backlog_oldest_age_seconds",
        "Age of the oldest change waiting at the shop for the HQ",
        &said("backlog_oldest_age_seconds"),
    );
    per_shop(
        &mut now,
        "arka_hq_shop_cis_queue",
        "Documents waiting at the shop for the CIS",
        &said("cis_queue"),
    );
    per_shop(
        &mut now,
        "arka_hq_shop_cis_queue_oldest_age_seconds",
        "Age of the oldest document waiting at the shop for the CIS",
        &said("cis_queue_oldest_age_seconds"),
    );
    per_shop(
        &mut now,
        "arka_hq_shop_set_aside",
        "Changes the HQ refused that the shop set aside",
        &said("set_aside"),
    );
    per_shop(
        &mut now,
        "arka_hq_shop_refused_box_calls",
        "Calls of boxes refused on the shop's token",
        &refused,
    );
    let held = crate::store::held::held(pool, 60, false).await?;
    let held_gauge = Gauge::<i64>::default();
    held_gauge.set(i64::try_from(held.len()).unwrap_or(i64::MAX));
    now.register(
        "arka_hq_held_numbers",
        "Non-cash numbers reserved a minute ago or more with no document",
        held_gauge,
    );
    let mut shops_text = String::new();
    prometheus_client::encoding::text::encode(&mut shops_text, &now)
        .map_err(|e| crate::Error::Read(e.to_string()))?;
    Ok(format!("{counters}{shops_text}"))
}
