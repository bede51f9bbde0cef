//! Counters for `GET /metrics` (Prometheus text). One process-wide set, as Prometheus clients
//! keep them, so that the places that count need only a one-line call and no extra plumbing.
//! What the store already knows (the queue's depth and age) is read at scrape time instead.

use std::sync::LazyLock;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The CIS latency buckets, in seconds: the real CIS answers in ~0.13 s, the simulator in a few
/// ms, and a call is cut at the configured timeout (6 s by default).
const CIS_BUCKETS: [f64; 12] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeliveryLabels {
    operation: String,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PlaceLabel {
    place: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HttpLabels {
    route: String,
    status: u16,
}

struct Metrics {
    registry: Registry,
    documents_issued: Family<KindLabel, Counter>,
    cis_deliveries: Family<DeliveryLabels, Counter>,
    cis_latency: Histogram,
    http_requests: Family<HttpLabels, Counter>,
    queue_depth: Gauge,
    queue_oldest_age: Gauge,
    breaker_open: Gauge,
    wal_frames: Gauge,
    hq_backlog: Gauge,
    hq_backlog_oldest_age: Gauge,
    copy_lag: Family<PlaceLabel, Gauge>,
    copy_sent: Family<PlaceLabel, Gauge>,
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let mut registry = Registry::default();
    let documents_issued = Family::<KindLabel, Counter>::default();
    registry.register(
        "arka_documents_issued",
        "Documents issued (numbered and saved), by kind",
        documents_issued.clone(),
    );
    let cis_deliveries = Family::<DeliveryLabels, Counter>::default();
    registry.register(
        "arka_cis_deliveries",
        "Calls to the CIS by request and outcome (accepted, rejected, not_delivered)",
        cis_deliveries.clone(),
    );
    let cis_latency = Histogram::new(CIS_BUCKETS);
    registry.register("arka_cis_latency_seconds", "Time of a CIS call, answered or not", cis_latency.clone());
    let http_requests = Family::<HttpLabels, Counter>::default();
    registry.register(
        "arka_http_requests",
        "HTTP requests by matched route and status",
        http_requests.clone(),
    );
    let queue_depth = Gauge::default();
    registry.register(
        "arka_queue_depth",
        "Documents waiting for late delivery to the CIS",
        queue_depth.clone(),
    );
    let queue_oldest_age = Gauge::default();
    registry.register(
        "arka_queue_oldest_age_seconds",
        "Age of the oldest document waiting for the CIS (0 when none waits)",
        queue_oldest_age.clone(),
    );
    let breaker_open = Gauge::default();
    registry.register(
        "arka_cis_breaker_open",
        "1 while new documents go straight to the late-delivery queue because the CIS does not answer",
        breaker_open.clone(),
    );
    let wal_frames = Gauge::default();
    registry.register(
        "arka_wal_frames",
        "Frames (database pages) the writer has appended to the SQLite log since the server started",
        wal_frames.clone(),
    );
    let hq_backlog = Gauge::default();
    registry.register(
        "arka_hq_backlog",
        "Changes noted for the chain's head office and not yet acknowledged by it (0 for a lone shop)",
        hq_backlog.clone(),
    );
    let hq_backlog_oldest_age = Gauge::default();
    registry.register(
        "arka_hq_backlog_oldest_age_seconds",
        "Age of the oldest change waiting for the head office (0 when none waits)",
        hq_backlog_oldest_age.clone(),
    );
    let copy_lag = Family::<PlaceLabel, Gauge>::default();
    registry.register(
        "arka_copy_lag_seconds",
        "Seconds since the oldest sale a place of the off-box copy does not hold yet committed (0 when it holds all)",
        copy_lag.clone(),
    );
    let copy_sent = Family::<PlaceLabel, Gauge>::default();
    registry.register(
        "arka_copy_sent_bytes",
        "Bytes the off-box copy has sent to a place since the server started",
        copy_sent.clone(),
    );
    Metrics {
        copy_lag,
        copy_sent,
        hq_backlog,
        hq_backlog_oldest_age,
        registry,
        documents_issued,
        cis_deliveries,
        cis_latency,
        http_requests,
        queue_depth,
        queue_oldest_age,
        breaker_open,
        wal_frames,
    }
});

/// A document was numbered and saved (fiscalized or waiting for late delivery).
pub fn document_issued(kind: &'static str) {
    METRICS.documents_issued.get_or_create(&KindLabel { kind }).inc();
}

/// How a CIS call ended, for the deliveries counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    Accepted,
    Rejected,
    NotDelivered,
}

impl Delivery {
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Accepted => "accepted",
            Delivery::Rejected => "rejected",
            Delivery::NotDelivered => "not_delivered",
        }
    }
}

/// The request's root element name, e.g. `RegisterInvoiceRequest`, read off the signed XML.
pub fn request_root(xml: &str) -> &str {
    let start = xml.find('<').map_or(xml.len(), |i| i + 1);
    let rest = &xml[start..];
    let end = rest.find(|c: char| c.is_whitespace() || c == '>' || c == '/').unwrap_or(rest.len());
    let name = &rest[..end];
    name.rsplit(':').next().unwrap_or(name)
}

/// A CIS call for `operation` ended with `outcome` after `elapsed`.
pub fn cis_call(operation: &str, outcome: Delivery, elapsed: Duration) {
    METRICS
        .cis_deliveries
        .get_or_create(&DeliveryLabels { operation: operation.to_string(), outcome: outcome.as_str() })
        .inc();
    METRICS.cis_latency.observe(elapsed.as_secs_f64());
}

/// An HTTP request on `route` (the matched route template, never the raw path) got `status`.
pub fn http_request(route: &str, status: u16) {
    METRICS.http_requests.get_or_create(&HttpLabels { route: route.to_string(), status }).inc();
}

/// What is read from the store, the gateway and the copy at scrape time.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub queue_depth: i64,
    pub queue_oldest_age_seconds: i64,
    pub breaker_open: bool,
    pub wal_frames: u64,
    pub hq_backlog: i64,
    pub hq_backlog_oldest_age_seconds: i64,
    /// Each place of the off-box copy: its lag in seconds and the bytes sent to it.
    pub copy: Vec<(&'static str, i64, u64)>,
}

/// The text exposition of every metric, with `snapshot` as the current gauges.
pub fn render(snapshot: Snapshot) -> Result<String, std::fmt::Error> {
    METRICS.queue_depth.set(snapshot.queue_depth);
    METRICS.queue_oldest_age.set(snapshot.queue_oldest_age_seconds);
    METRICS.breaker_open.set(i64::from(snapshot.breaker_open));
    METRICS.wal_frames.set(i64::try_from(snapshot.wal_frames).unwrap_or(i64::MAX));
    METRICS.hq_backlog.set(snapshot.hq_backlog);
    METRICS.hq_backlog_oldest_age.set(snapshot.hq_backlog_oldest_age_seconds);
    for (place, lag, sent) in snapshot.copy {
        METRICS.copy_lag.get_or_create(&PlaceLabel { place }).set(lag);
        METRICS.copy_sent.get_or_create(&PlaceLabel { place }).set(i64::try_from(sent).unwrap_or(i64::MAX));
    }
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &METRICS.registry)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operation_is_the_root_element_of_the_request() {
        assert_eq!(
            request_root(r#"<RegisterInvoiceRequest xmlns="x" Id="Request">"#),
            "RegisterInvoiceRequest"
        );
        assert_eq!(request_root("<tns:RegisterTCRRequest>"), "RegisterTCRRequest");
        assert_eq!(request_root("<Empty/>"), "Empty");
        assert_eq!(request_root(""), "");
    }

    #[test]
    fn counts_show_in_the_text_exposition() {
        document_issued("test_kind");
        cis_call("TestRequest", Delivery::Rejected, Duration::from_millis(30));
        http_request("/test/{id}", 204);
        let text = render(Snapshot {
            queue_depth: 3,
            queue_oldest_age_seconds: 42,
            breaker_open: true,
            wal_frames: 7,
            hq_backlog: 7,
            hq_backlog_oldest_age_seconds: 5,
            copy: vec![("s3", 12, 4096)],
        })
        .unwrap();
        assert!(text.contains(r#"arka_copy_lag_seconds{place="s3"} 12"#), "{text}");
        assert!(text.contains(r#"arka_copy_sent_bytes{place="s3"} 4096"#), "{text}");
        assert!(text.contains(r#"arka_documents_issued_total{kind="test_kind"} 1"#), "{text}");
        assert!(
            text.contains(r#"arka_cis_deliveries_total{operation="TestRequest",outcome="rejected"} 1"#),
            "{text}"
        );
        assert!(text.contains(r#"arka_http_requests_total{route="/test/{id}",status="204"} 1"#), "{text}");
        assert!(text.contains("arka_queue_depth 3"), "{text}");
        assert!(text.contains("arka_queue_oldest_age_seconds 42"), "{text}");
        assert!(text.contains("arka_hq_backlog 7"), "{text}");
        assert!(text.contains("arka_hq_backlog_oldest_age_seconds 5"), "{text}");
        assert!(text.contains("arka_cis_breaker_open 1"), "{text}");
        assert!(text.contains("arka_wal_frames 7"), "{text}");
        assert!(text.contains("# TYPE arka_cis_latency_seconds histogram"), "{text}");
        assert!(text.contains(r#"arka_cis_latency_seconds_bucket{le="0.05"}"#), "{text}");
    }
}
