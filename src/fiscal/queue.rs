//! Deferred fiscalization: documents the CIS did not register wait in `fiscal_queue` and a
//! worker in the same process re-sends them, oldest first per TCR, with capped exponential
//! backoff and jitter. A re-sent document keeps its IssueDateTime, number, IIC and Header UUID;
//! only SendDateTime changes and SubseqDelivType is set (see `delivery::subseq_for`).
//!
//! A new document's entry belongs to its first call (`sending`) until that call is settled; the
//! worker sends only `waiting` entries, so the two never send one document at the same time.
//! The hand-off is a write (`record_failure` when the first call did not get through), and an
//! entry whose first call a stop cut short is handed over at the next start
//! (`fiscal_queue::release_interrupted`).
//!
//! The queue only delivers: what each attempt came to is handed to `Settle` (services), which
//! writes it to the document and its queue entry in one transaction. A document the CIS
//! refuses (a client fault) is kept, refused, until its owner sends it again; one the CIS could
//! not take (no answer, or the CIS's own fault) is tried again.
//!
//! While the breaker is open the worker probes the CIS every `PROBE_EVERY`; once the CIS
//! answers (the probe or any other call), the waiting documents are due at once.

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Error;
use super::delivery::Delivery;
use super::gateway::{Breaker, Gateway};
use super::model::{Header, PlainHeader, SubseqDelivType};
use super::requests::{Operation, Service, replace_header, replace_plain_header};
use crate::store::{Store, fiscal_queue};

/// The law allows 48 hours for late delivery (PROTOCOL.md section 8); warn well before.
pub const LEGAL_LIMIT_HOURS: i64 = 48;
pub const WARN_AFTER_HOURS: i64 = 36;

const FIRST_RETRY: Duration = Duration::from_secs(2);
const MAX_RETRY: Duration = Duration::from_secs(120);
/// Documents looked at per pass; the rest wait for the next pass.
const BATCH: i64 = 200;
/// How often the CIS is asked for a sign of life while the breaker is open.
pub const PROBE_EVERY: Duration = Duration::from_secs(5);

fn subseq_from_text(s: Option<&str>) -> SubseqDelivType {
    match s {
        Some("SERVICE") => SubseqDelivType::Service,
        Some("BOUNDBOOK") => SubseqDelivType::BoundBook,
        Some("TECHNICALERROR") => SubseqDelivType::TechnicalError,
        _ => SubseqDelivType::NoInternet,
    }
}

/// Delay before attempt number `attempts + 1`: doubling from 2 s up to 2 min, then 50-100 %
/// of that at random so that many shops coming back online do not retry in step.
pub fn backoff(attempts: i64, jitter: f64) -> Duration {
    let doublings = u32::try_from(attempts.clamp(0, 16)).unwrap_or(16);
    let base = FIRST_RETRY.saturating_mul(1u32 << doublings).min(MAX_RETRY);
    base.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
}

fn jitter() -> f64 {
    let mut b = [0u8; 2];
    match openssl::rand::rand_bytes(&mut b) {
        Ok(()) => f64::from(u16::from_le_bytes(b)) / f64::from(u16::MAX),
        Err(_) => 1.0,
    }
}

/// When an entry that just failed for the `attempts`-th time is tried again.
pub fn retry_at(now: DateTime<Utc>, attempts: i64) -> DateTime<Utc> {
    now + chrono::Duration::from_std(backoff(attempts, jitter())).unwrap_or(chrono::Duration::seconds(2))
}

/// Hours since the document was issued, when the stored time reads.
pub fn age_hours(issued_at: &str, now: DateTime<Utc>) -> Option<i64> {
    crate::domain::time::parse_stored(issued_at).map(|t| (now - t).num_hours())
}

/// Services settle what a delivery of a queued document came to: its code, its refusal, or its
/// next try at `retry_at`, written with the document in one transaction.
pub trait Settle: Send + Sync {
    fn settle(
        &self,
        entry: &fiscal_queue::Queued,
        delivery: &Delivery,
        retry_at: DateTime<Utc>,
    ) -> Result<(), Error>;
}

/// What one pass of the worker did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub delivered: usize,
    pub failed: usize,
    pub rejected: usize,
}

/// What the worker remembers between passes.
#[derive(Debug, Clone, Copy)]
struct Watch {
    last_probe: Option<Instant>,
    breaker_was_open: bool,
}

pub struct Queue {
    gateway: Arc<Gateway>,
    store: Store,
    wake: tokio::sync::Notify,
    stopping: AtomicBool,
}

impl Queue {
    pub fn new(gateway: Arc<Gateway>, store: Store) -> Queue {
        Queue { gateway, store, wake: tokio::sync::Notify::new(), stopping: AtomicBool::new(false) }
    }

    /// Asks the worker to stop: it finishes the delivery under way and starts no other.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Asks the worker to look at the queue now (something was queued).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    fn attempt(&self, doc: &fiscal_queue::Queued, now: DateTime<Utc>) -> Result<Delivery, Error> {
        let operation = Operation::from_request_root(&doc.operation)
            .ok_or_else(|| Error::Xml(format!("unknown queued operation {}", doc.operation)))?;
        let uuid = Uuid::from_str(&doc.header_uuid).map_err(|e| Error::Xml(e.to_string()))?;
        let unsigned = match operation.service() {
            Service::Fiscalization => {
                let subseq = subseq_from_text(doc.subseq_deliv_type.as_deref());
                let header = Header { uuid, send_date_time: now, subseq_deliv_type: Some(subseq) };
                replace_header(&doc.unsigned_request, &header)?
            }
            // The e-invoice service knows no late delivery: the same message, sent again.
            Service::Einvoice => {
                replace_plain_header(&doc.unsigned_request, &PlainHeader { uuid, send_date_time: now })?
            }
        };
        let certificate = self.gateway.certificate(doc.company_id)?;
        self.gateway.deliver(&certificate, operation, &unsigned)
    }

    /// Tries every due document once, oldest first. A TCR whose oldest document fails, is not
    /// due yet or is still in its first call waits with the rest of its documents, so the CIS
    /// sees each register's documents in order (a day's opening before its invoices). The
    /// e-invoice platform's registrations wait apart: one service away holds up only its own.
    pub fn run_once(&self, now: DateTime<Utc>, settle: &dyn Settle) -> Result<Pass, Error> {
        let on_the_way = self.store.read_blocking(|conn| fiscal_queue::on_the_way(conn, BATCH))?;
        let mut held: HashSet<(i64, bool, Option<String>)> = HashSet::new();
        let mut pass = Pass::default();
        for doc in on_the_way {
            if self.stopping() {
                break;
            }
            let line = (
                doc.company_id,
                doc.operation == Operation::RegisterEinvoice.request_root(),
                doc.tcr_code.clone(),
            );
            if held.contains(&line) {
                continue;
            }
            let due = crate::domain::time::parse_stored(&doc.next_attempt_at).is_none_or(|t| t <= now);
            if doc.status == fiscal_queue::Status::Sending || !due {
                held.insert(line);
                continue;
            }
            if age_hours(&doc.issued_at, now).is_some_and(|h| h >= WARN_AFTER_HOURS) {
                tracing::warn!(
                    queue_id = doc.id,
                    number = doc.document_number.as_deref().unwrap_or(""),
                    issued_at = %doc.issued_at,
                    "a document waiting for the CIS is close to the 48-hour limit for late delivery"
                );
            }
            let delivery = self.attempt(&doc, now).unwrap_or_else(|e| Delivery::NotDelivered {
                subseq: subseq_from_text(doc.subseq_deliv_type.as_deref()),
                reason: e.to_string(),
            });
            settle.settle(&doc, &delivery, retry_at(now, doc.attempts))?;
            match delivery {
                Delivery::Accepted(_) => {
                    tracing::info!(queue_id = doc.id, operation = %doc.operation, "late document delivered");
                    pass.delivered += 1;
                }
                Delivery::Refused(refusal) => {
                    tracing::error!(
                        queue_id = doc.id,
                        reason = %refusal.message(),
                        "the CIS refused a late document; it is kept for its owner to correct and send again"
                    );
                    pass.rejected += 1;
                }
                Delivery::NotDelivered { reason, .. } => {
                    tracing::debug!(queue_id = doc.id, %reason, "late delivery failed; will retry");
                    held.insert(line);
                    pass.failed += 1;
                }
            }
        }
        Ok(pass)
    }

    /// One turn of the worker: the probe while the breaker is open, everything due at once
    /// when the CIS has just come back, then a pass.
    fn turn(&self, settle: &dyn Settle, mut watch: Watch) -> (Watch, Result<Pass, Error>) {
        if let Breaker::Open { since, .. } = self.gateway.breaker()
            && (self.gateway.clock().utc() - since).to_std().is_ok_and(|open_for| open_for >= PROBE_EVERY)
            && watch.last_probe.is_none_or(|t| t.elapsed() >= PROBE_EVERY)
        {
            watch.last_probe = Some(Instant::now());
            self.gateway.probe();
        }
        let open = self.gateway.breaker_open();
        let now = self.gateway.clock().utc();
        if watch.breaker_was_open && !open {
            let now_text = now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            match self.store.write_blocking(|tx| fiscal_queue::make_due(tx, &now_text)) {
                Ok(due) => tracing::info!(due, "the CIS is back: waiting documents are sent now"),
                Err(e) => return (watch, Err(e.into())),
            }
        }
        watch.breaker_was_open = open;
        (watch, self.run_once(now, settle))
    }

    /// The worker: a turn every second, or at once when woken, until `shutdown` fires or `stop`
    /// is called (then between two deliveries).
    pub async fn run(
        self: Arc<Self>,
        settle: Arc<dyn Settle>,
        mut shutdown: tokio::sync::watch::Receiver<bool>,
    ) {
        let mut watch = Watch { last_probe: None, breaker_was_open: false };
        while !self.stopping() {
            let (queue, settle) = (self.clone(), settle.clone());
            match tokio::task::spawn_blocking(move || queue.turn(settle.as_ref(), watch)).await {
                Ok((next, result)) => {
                    watch = next;
                    match result {
                        Ok(pass) if pass != Pass::default() => tracing::debug!(?pass, "queue pass"),
                        Ok(_) => {}
                        Err(e) => tracing::error!(error = %crate::error_chain(&e), "queue pass failed"),
                    }
                }
                Err(e) => tracing::error!(error = %e, "queue pass did not complete"),
            }
            tokio::select! {
                _ = self.wake.notified() => {}
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                _ = shutdown.changed() => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter() {
        assert_eq!(backoff(0, 1.0), Duration::from_secs(2));
        assert_eq!(backoff(1, 1.0), Duration::from_secs(4));
        assert_eq!(backoff(3, 1.0), Duration::from_secs(16));
        assert_eq!(backoff(10, 1.0), MAX_RETRY);
        assert_eq!(backoff(10_000, 1.0), MAX_RETRY);
        assert_eq!(backoff(0, 0.0), Duration::from_secs(1));
    }
}
