//! Deferred fiscalization: documents the CIS did not answer for wait in `fiscal_queue` and a
//! worker in the same process re-sends them, oldest first per TCR, with capped exponential
//! backoff and jitter. A re-sent document keeps its IssueDateTime, number, IIC and Header UUID;
//! only SendDateTime changes and SubseqDelivType is set:
//! - NOINTERNET when no answer came at all (connect error, timeout, connection lost): from the
//!   shop's side this is indistinguishable from the internet being down;
//! - SERVICE when something answered but not the CIS (an HTTP error page, garbage): the
//!   fiscalization service itself is failing.
//!
//! A document the CIS refuses is kept with its reason (`rejected`) and never retried.

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Error;
use super::gateway::Gateway;
use super::model::{Header, SubseqDelivType};
use super::requests::{Operation, replace_header};
use super::response::{NotDelivered, Outcome};
use crate::store::{Store, cash_register, fiscal_queue};

/// The law allows 48 hours for late delivery (PROTOCOL.md section 8); warn well before.
pub const LEGAL_LIMIT_HOURS: i64 = 48;
pub const WARN_AFTER_HOURS: i64 = 36;

const FIRST_RETRY: Duration = Duration::from_secs(2);
const MAX_RETRY: Duration = Duration::from_secs(120);
/// Documents looked at per pass; the rest wait for the next pass.
const BATCH: i64 = 200;

/// The late-delivery type for what the first attempt saw.
pub fn subseq_for(reason: &NotDelivered) -> SubseqDelivType {
    match reason {
        NotDelivered::Connect(_) | NotDelivered::Timeout(_) | NotDelivered::Io(_) => {
            SubseqDelivType::NoInternet
        }
        NotDelivered::HttpStatus { .. } | NotDelivered::Unparseable(_) => SubseqDelivType::Service,
    }
}

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

/// Hours since the document was issued, when the stored time reads.
pub fn age_hours(issued_at: &str, now: DateTime<Utc>) -> Option<i64> {
    crate::domain::time::parse_stored(issued_at).map(|t| (now - t).num_hours())
}

/// What one pass of the worker did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub delivered: usize,
    pub failed: usize,
    pub rejected: usize,
}

/// What a delivery attempt came to.
enum Attempt {
    Delivered(String),
    Rejected { code: Option<String>, reason: String },
    Failed { subseq: SubseqDelivType, reason: String },
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

    fn attempt(&self, doc: &fiscal_queue::Queued, now: DateTime<Utc>) -> Result<Attempt, Error> {
        let operation = Operation::from_request_root(&doc.operation)
            .ok_or_else(|| Error::Xml(format!("unknown queued operation {}", doc.operation)))?;
        let uuid = Uuid::from_str(&doc.header_uuid).map_err(|e| Error::Xml(e.to_string()))?;
        let subseq = subseq_from_text(doc.subseq_deliv_type.as_deref());
        let header = Header { uuid, send_date_time: now, subseq_deliv_type: Some(subseq) };
        let unsigned = replace_header(&doc.unsigned_request, &header)?;
        let certificate = self.gateway.certificate(doc.company_id)?;
        let outcome = match operation {
            Operation::RegisterInvoice => {
                self.gateway.send(&certificate, &unsigned, |c, b| c.register_invoice(b))?.map(|a| a.fic)
            }
            Operation::RegisterCashDeposit => {
                self.gateway.send(&certificate, &unsigned, |c, b| c.register_cash_deposit(b))?.map(|a| a.fcdc)
            }
            Operation::RegisterWtn => {
                self.gateway.send(&certificate, &unsigned, |c, b| c.register_wtn(b))?.map(|a| a.fwtnic)
            }
            other => return Err(Error::Xml(format!("{} is never queued", other.request_root()))),
        };
        Ok(match outcome {
            Outcome::Accepted(code) => Attempt::Delivered(code),
            Outcome::Rejected(fault) => Attempt::Rejected {
                reason: format!("[{}] {}", fault.code.as_deref().unwrap_or("?"), fault.faultstring),
                code: fault.code,
            },
            Outcome::NotDelivered(reason) => Attempt::Failed { subseq, reason: format!("{reason:?}") },
        })
    }

    /// Tries every due document once, oldest first; a TCR whose oldest document fails waits
    /// with the rest of its documents, so the CIS sees each register's documents in order.
    pub fn run_once(&self, now: DateTime<Utc>) -> Result<Pass, Error> {
        let store_error = |e: crate::store::Error| Error::Store(e.to_string());
        let waiting =
            self.store.read_blocking(|conn| fiscal_queue::waiting(conn, BATCH)).map_err(store_error)?;
        let mut held: HashSet<Option<String>> = HashSet::new();
        let mut pass = Pass::default();
        for doc in waiting {
            if self.stopping() {
                break;
            }
            if held.contains(&doc.tcr_code) {
                continue;
            }
            let due = crate::domain::time::parse_stored(&doc.next_attempt_at).is_none_or(|t| t <= now);
            if !due {
                held.insert(doc.tcr_code.clone());
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
            let attempt = match self.attempt(&doc, now) {
                Ok(a) => a,
                Err(e) => Attempt::Failed {
                    subseq: subseq_from_text(doc.subseq_deliv_type.as_deref()),
                    reason: e.to_string(),
                },
            };
            match attempt {
                Attempt::Delivered(code) => {
                    self.store
                        .write_blocking(|tx| {
                            if fiscal_queue::mark_delivered(tx, doc.id, &code)?
                                && let Some(document_id) = doc.document_id
                            {
                                match doc.document_kind.as_str() {
                                    "invoice" => crate::store::invoices::set_fic(tx, document_id, &code)?,
                                    cash_register::DOCUMENT_KIND => {
                                        cash_register::set_fiscalized(tx, document_id, &code)?
                                    }
                                    _ => {}
                                }
                            }
                            Ok(())
                        })
                        .map_err(store_error)?;
                    tracing::info!(queue_id = doc.id, operation = %doc.operation, "late document delivered");
                    pass.delivered += 1;
                }
                Attempt::Rejected { code, reason } => {
                    self.store
                        .write_blocking(|tx| {
                            fiscal_queue::mark_rejected(tx, doc.id, code.as_deref(), &reason)?;
                            // A refused cash-register action stays on record (the cash did
                            // move) and says it was refused.
                            if doc.document_kind == cash_register::DOCUMENT_KIND
                                && let Some(action_id) = doc.document_id
                            {
                                cash_register::set_rejected(tx, action_id)?;
                            }
                            Ok(())
                        })
                        .map_err(store_error)?;
                    tracing::error!(queue_id = doc.id, %reason, "the CIS refused a late document; it is kept, not retried");
                    pass.rejected += 1;
                }
                Attempt::Failed { subseq, reason } => {
                    let next = now
                        + chrono::Duration::from_std(backoff(doc.attempts, jitter()))
                            .unwrap_or(chrono::Duration::seconds(2));
                    let next = next.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                    self.store
                        .write_blocking(|tx| {
                            fiscal_queue::record_failure(tx, doc.id, subseq.as_str(), &next, &reason)
                        })
                        .map_err(store_error)?;
                    tracing::debug!(queue_id = doc.id, %reason, "late delivery failed; will retry");
                    held.insert(doc.tcr_code.clone());
                    pass.failed += 1;
                }
            }
        }
        Ok(pass)
    }

    /// The worker: a pass every second, or at once when woken, until `shutdown` fires or `stop`
    /// is called (then between two deliveries).
    pub async fn run(self: Arc<Self>, mut shutdown: tokio::sync::watch::Receiver<bool>) {
        while !self.stopping() {
            let queue = self.clone();
            match tokio::task::spawn_blocking(move || queue.run_once(Utc::now())).await {
                Ok(Ok(pass)) if pass != Pass::default() => tracing::debug!(?pass, "queue pass"),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::error!(error = %e, "queue pass failed"),
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

    #[test]
    fn what_the_first_attempt_saw_sets_the_late_delivery_type() {
        assert_eq!(subseq_for(&NotDelivered::Timeout("t".into())), SubseqDelivType::NoInternet);
        assert_eq!(subseq_for(&NotDelivered::Connect("c".into())), SubseqDelivType::NoInternet);
        assert_eq!(subseq_for(&NotDelivered::Unparseable("u".into())), SubseqDelivType::Service);
        assert_eq!(
            subseq_for(&NotDelivered::HttpStatus { status: 502, body_excerpt: String::new() }),
            SubseqDelivType::Service
        );
    }
}
