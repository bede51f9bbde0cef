//! One pipeline for every fiscal document. A document travels named steps:
//!
//! 1. **check** (before the pipeline): the kind's rules in `domain`, giving a `Document`;
//! 2. **enter**: its internalId joins the in-flight set (released by `InFlight`'s `Drop`);
//! 3. **lock**: the lock of its numbering `Sequence` (1 s, then 429);
//! 4. **reserve the number** and 5. **sign and persist**: in one write transaction, the kind
//!    `admit`s the document (idempotency, the state it needs), the number is read (MAX+1 of the
//!    sequence, `reserve_number`), the kind signs and `write`s it, and its queue entry is written
//!    beside it, so nothing a POS is answered with is ever lost;
//! 6. **deliver**: the CIS is asked (unless the breaker is open);
//! 7. **settle**: the delivery's outcome is written (`settle_first_call`): the CIS's code, or
//!    the document given up (refused, or not delivered for a kind that is not kept), or its
//!    next try in the queue. The queue's worker hands its later deliveries to the same
//!    settlement (`services::queue`).
//!
//! A kind plugs in by implementing `Document`: what it is numbered in, how it is admitted and
//! written, and what is undone when it is given up. The pipeline runs detached from the HTTP
//! request, so a POS that hangs up mid-issue never leaves a document half-settled or its
//! internalId held.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Datelike, Utc};
use chrono_tz::Europe::Tirane;
use rusqlite::Connection;
use tokio::sync::OwnedMutexGuard;

use super::cash_register::Saved as SavedAction;
use super::locks::LOCK_WAIT;
use super::{Error, Result, Services};
use crate::domain::numbering::{CarriedOver, next_ordinal};
use crate::fiscal::certificate::Certificate;
use crate::fiscal::delivery::Delivery;
use crate::fiscal::model::SubseqDelivType;
use crate::fiscal::requests::Operation;
use crate::store::fiscal_queue::{self, NewQueued};
use crate::store::{self, invoices};

/// How long the first CIS call of a new document has before the queue's worker may re-send it.
const FIRST_CALL_SECONDS: i64 = 30;

/// The numbering sequence a document takes its number from. Its lock serializes the documents
/// of the sequence, so numbers are consecutive and a refused one can be given back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sequence {
    /// The TCR's cash sequence (`<n>/<year>/<TCR>` at the CIS): cash invoices, orders, summaries
    /// and the corrective documents of cash invoices.
    Till(String),
    /// The business's non-cash sequence: non-cash invoices and their corrective documents.
    Business,
    /// A business unit's warehouse transfer notes (`<n>/<year>` at the CIS, no TCR), by the
    /// unit's id.
    WtnUnit(i64),
}

impl Sequence {
    fn lock_key(&self, company_id: i64) -> String {
        match self {
            Sequence::Till(tcr) => format!("cash:{company_id}:{tcr}"),
            Sequence::Business => format!("noncash:{company_id}"),
            Sequence::WtnUnit(unit) => format!("wtn:{company_id}:{unit}"),
        }
    }

    /// The TCR of a till's sequence.
    pub fn tcr_code(&self) -> Option<&str> {
        match self {
            Sequence::Till(tcr) => Some(tcr),
            Sequence::Business | Sequence::WtnUnit(_) => None,
        }
    }
}

/// The next number of `sequence` in `year`, read by the transaction that writes it.
pub fn reserve_number(
    tx: &Connection,
    company_id: i64,
    year: i32,
    sequence: &Sequence,
) -> store::Result<i64> {
    let (kind, carried) = match sequence {
        Sequence::WtnUnit(unit) => {
            return Ok(next_ordinal(
                crate::store::wtn::max_ord_num(tx, company_id, *unit, year)?,
                None,
                year,
            ));
        }
        Sequence::Till(_) => ("CASH", None),
        Sequence::Business => (
            "NONCASH",
            invoices::noncash_carried_over(tx, company_id)?.and_then(|(last, registered)| {
                crate::domain::time::parse_stored(&registered)
                    .map(|at| CarriedOver { year: at.with_timezone(&Tirane).year(), last })
            }),
        ),
    };
    let max = invoices::max_ord_num(tx, company_id, year, kind, sequence.tcr_code())?;
    Ok(next_ordinal(max, carried, year))
}

/// When a new document is issued and how it meets the CIS: with a first call, or (the breaker
/// being open) straight into the queue as a late delivery.
#[derive(Debug, Clone)]
pub struct QueuePlan {
    pub at: DateTime<Utc>,
    /// The late-delivery type when the document goes to the queue at once.
    pub late: Option<SubseqDelivType>,
}

impl QueuePlan {
    pub fn next_attempt_at(&self) -> String {
        match self.late {
            Some(_) => self.at.to_rfc3339(),
            // The worker leaves the entry alone while the first call may still run.
            None => (self.at + chrono::Duration::seconds(FIRST_CALL_SECONDS)).to_rfc3339(),
        }
    }

    pub fn last_error(&self) -> Option<&'static str> {
        self.late.map(|_| "the CIS was not answering (breaker open)")
    }
}

/// A document written by its transaction, as the pipeline needs it afterwards.
pub struct Written<S> {
    pub stored: S,
    pub document_id: i64,
    /// The number shown in `arka queue`.
    pub number: String,
    pub header_uuid: String,
    /// UTC, RFC 3339: the 48-hour clock of late delivery runs from here.
    pub issued_at: String,
    pub unsigned_request: String,
    /// A document the CIS must see first (the day's automatic opening of a till).
    pub ahead: Option<SavedAction>,
}

/// A fiscal document kind's part in the pipeline.
pub trait Document: Send + Sync + 'static {
    /// What is stored and answered (an invoice).
    type Stored: Send + 'static;
    /// The CIS request that registers it.
    const OPERATION: Operation;
    /// Its table, as the queue names it.
    const QUEUED_AS: fiscal_queue::Document;

    fn company_id(&self) -> i64;
    fn year(&self) -> i32;
    fn sequence(&self) -> &Sequence;
    fn certificate(&self) -> Arc<Certificate>;
    /// Its key in the in-flight set, and what a second request with it meets.
    fn in_flight(&self) -> (String, Error);
    /// Whether a document the CIS did not register on its first call is kept and queued (the
    /// POS is answered with it) rather than given up (nothing saved; retry).
    fn kept_when_not_delivered(&self) -> bool;
    /// What the POS reads when it is given up because the CIS could not take it.
    fn not_saved(&self) -> String;
    /// In the write transaction, before its number: the idempotency key and the state it
    /// needs. `Err` leaves nothing written.
    fn admit(&self, tx: &Connection) -> store::Result<Result<()>>;
    /// In the same transaction: the document numbered `ord_num` at `plan.at`, signed, written
    /// with whatever else changes with it.
    fn write(
        &self,
        tx: &Connection,
        ord_num: u32,
        plan: &QueuePlan,
    ) -> store::Result<Result<Written<Self::Stored>>>;
    /// Undoes `write` (with what changed with it) when the document is given up.
    fn forget(tx: &Connection, document_id: i64) -> store::Result<()>;
    /// The stored document once the CIS registered it with `code`.
    fn registered(stored: Self::Stored, code: String) -> Self::Stored;
    /// Its `kind` label in `arka_documents_issued_total`.
    fn metrics_kind(&self) -> &'static str {
        Self::QUEUED_AS.as_str()
    }
}

/// What an issue came to.
pub enum Issued<S> {
    /// Registered with the CIS.
    Fiscalized(S),
    /// Saved with its protection code and queued for late delivery.
    Deferred(S),
}

/// Keys of the documents being issued; a second request with the same key meets its kind's
/// error at once.
pub type InFlightSet = Arc<Mutex<HashSet<String>>>;

/// A key in the in-flight set, released when dropped: when the issue ends, fails, or its task
/// is dropped.
pub struct InFlight {
    set: InFlightSet,
    key: String,
}

impl InFlight {
    pub fn enter(set: &InFlightSet, key: String, taken: Error) -> Result<InFlight> {
        let mut keys = set.lock().map_err(|_| Error::Internal("the in-flight set was poisoned".into()))?;
        if !keys.insert(key.clone()) {
            return Err(taken);
        }
        Ok(InFlight { set: set.clone(), key })
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut keys = match self.set.lock() {
            Ok(keys) => keys,
            Err(poisoned) => poisoned.into_inner(),
        };
        keys.remove(&self.key);
    }
}

/// What becomes of a document the CIS could not take on its first call.
struct IfNotDelivered {
    kept: bool,
    not_saved: String,
}

/// A document saved by its transaction, waiting for its first call.
struct Saved<S> {
    stored: S,
    document_id: i64,
    queue_id: i64,
    unsigned: String,
    ahead: Option<SavedAction>,
}

impl Services {
    /// Issues `document` through the steps, on a task of its own: a POS that hangs up does not
    /// stop it half-way, and what it came to is settled all the same.
    pub async fn issue<D: Document>(&self, document: D) -> Result<Issued<D::Stored>> {
        let services = self.clone();
        let kind = document.metrics_kind();
        let issued = tokio::spawn(async move { services.run(document).await })
            .await
            .map_err(|e| Error::Internal(format!("the issue task failed: {e}")))?;
        if issued.is_ok() {
            crate::metrics::document_issued(kind);
        }
        issued
    }

    async fn run<D: Document>(&self, document: D) -> Result<Issued<D::Stored>> {
        let (key, taken) = document.in_flight();
        let _in_flight = InFlight::enter(&self.in_flight, key, taken)?;
        let guard = self.lock(&document).await?;
        let plan = self.queue_plan(Utc::now());
        if plan.late.is_some() && !document.kept_when_not_delivered() {
            return Err(Error::Unavailable(document.not_saved()));
        }
        let certificate = document.certificate();
        let (company_id, tcr) = (document.company_id(), document.sequence().tcr_code().map(str::to_string));
        let if_lost =
            IfNotDelivered { kept: document.kept_when_not_delivered(), not_saved: document.not_saved() };
        let saved = self.persist(document, plan.clone()).await;
        if let Some(tcr) = &tcr {
            // A till's document moves its balance (or opened its day).
            self.balances.invalidate(company_id, tcr);
        }
        let saved = saved?;
        if plan.late.is_some() {
            self.queue.wake();
            return Ok(Issued::Deferred(saved.stored));
        }
        let issued = self.first_call::<D>(certificate, saved, guard, if_lost).await;
        if let Some(tcr) = &tcr {
            self.balances.invalidate(company_id, tcr);
        }
        issued
    }

    /// Step 3: the sequence's lock.
    async fn lock<D: Document>(&self, document: &D) -> Result<OwnedMutexGuard<()>> {
        self.locks.acquire(&document.sequence().lock_key(document.company_id()), LOCK_WAIT).await.ok_or_else(
            || Error::Busy("Another document of this sequence is being issued; try again.".into()),
        )
    }

    /// How a document issued `at` meets the CIS, by the breaker.
    pub(super) fn queue_plan(&self, at: DateTime<Utc>) -> QueuePlan {
        let late = self.gateway.breaker_open().then(|| self.breaker_subseq());
        QueuePlan { at, late }
    }

    /// Steps 4 and 5: admitted, numbered, signed and written with its queue entry, in one
    /// transaction.
    async fn persist<D: Document>(&self, document: D, plan: QueuePlan) -> Result<Saved<D::Stored>> {
        self.store
            .write(move |tx| {
                if let Err(e) = document.admit(tx)? {
                    return Ok(Err(e));
                }
                let ord_num =
                    reserve_number(tx, document.company_id(), document.year(), document.sequence())?;
                let Ok(ord_num) = u32::try_from(ord_num) else {
                    return Ok(Err(Error::Internal("the sequence's numbers are exhausted".into())));
                };
                let written = match document.write(tx, ord_num, &plan)? {
                    Ok(written) => written,
                    Err(e) => return Ok(Err(e)),
                };
                let next = plan.next_attempt_at();
                let queue_id = fiscal_queue::enqueue(
                    tx,
                    &NewQueued {
                        company_id: document.company_id(),
                        operation: D::OPERATION.request_root(),
                        document: D::QUEUED_AS,
                        document_id: Some(written.document_id),
                        document_number: Some(&written.number),
                        tcr_code: document.sequence().tcr_code(),
                        header_uuid: &written.header_uuid,
                        issued_at: &written.issued_at,
                        unsigned_request: &written.unsigned_request,
                        subseq_deliv_type: plan.late.map(|s| s.as_str()),
                        next_attempt_at: &next,
                        last_error: plan.last_error(),
                    },
                )?;
                Ok(Ok(Saved {
                    stored: written.stored,
                    document_id: written.document_id,
                    queue_id,
                    unsigned: written.unsigned_request,
                    ahead: written.ahead,
                }))
            })
            .await?
    }

    /// Steps 6 and 7 for the first call: delivered, then settled.
    async fn first_call<D: Document>(
        &self,
        certificate: Arc<Certificate>,
        saved: Saved<D::Stored>,
        guard: OwnedMutexGuard<()>,
        if_lost: IfNotDelivered,
    ) -> Result<Issued<D::Stored>> {
        let Saved { stored, document_id, queue_id, unsigned, ahead } = saved;
        // The CIS sees what goes ahead first: when it does not get there, the document waits
        // behind it in the queue.
        if let Some(ahead) = ahead
            && let Some((subseq, reason)) =
                self.register_automatic_opening(certificate.clone(), ahead).await?
        {
            self.defer(queue_id, subseq, &reason).await?;
            return Ok(Issued::Deferred(stored));
        }
        let delivery = self.deliver(certificate, D::OPERATION, unsigned).await?;
        if let Delivery::Accepted(_) = delivery {
            // The number is final once the CIS has it: the next document need not wait for
            // the code to be written.
            drop(guard);
        }
        self.settle_first_call::<D>(stored, document_id, queue_id, delivery, if_lost).await
    }

    /// Step 7 for the first call: what the POS is answered with.
    async fn settle_first_call<D: Document>(
        &self,
        stored: D::Stored,
        document_id: i64,
        queue_id: i64,
        delivery: Delivery,
        if_lost: IfNotDelivered,
    ) -> Result<Issued<D::Stored>> {
        match delivery {
            Delivery::Accepted(code) => {
                let written = code.clone();
                self.store
                    .write(move |tx| {
                        super::queue::accepted(tx, D::QUEUED_AS, Some(document_id), queue_id, &written)
                    })
                    .await?;
                Ok(Issued::Fiscalized(D::registered(stored, code)))
            }
            Delivery::Refused(refusal) => {
                self.give_up::<D>(document_id).await?;
                Err(Error::Refused(refusal.message()))
            }
            Delivery::NotDelivered { subseq, reason } => {
                if if_lost.kept {
                    self.defer(queue_id, subseq, &reason).await?;
                    Ok(Issued::Deferred(stored))
                } else {
                    self.give_up::<D>(document_id).await?;
                    Err(Error::Unavailable(if_lost.not_saved))
                }
            }
        }
    }

    /// A document that must not stay goes with its queue entry, so its number is given back.
    async fn give_up<D: Document>(&self, document_id: i64) -> Result<()> {
        self.store
            .write(move |tx| {
                fiscal_queue::delete_for_document(tx, D::QUEUED_AS, document_id)?;
                D::forget(tx, document_id)
            })
            .await?;
        Ok(())
    }

    /// The late-delivery type of a document saved while the breaker is open.
    pub(super) fn breaker_subseq(&self) -> SubseqDelivType {
        match self.gateway.breaker() {
            crate::fiscal::gateway::Breaker::Open { subseq, .. } => subseq,
            crate::fiscal::gateway::Breaker::Closed => SubseqDelivType::NoInternet,
        }
    }

    /// The CIS did not register the document, through no fault of it: it waits in the queue
    /// with the right late-delivery type.
    pub(super) async fn defer(&self, queue_id: i64, subseq: SubseqDelivType, reason: &str) -> Result<()> {
        let reason = reason.to_string();
        let retry_at = crate::fiscal::queue::retry_at(Utc::now(), 0);
        self.store
            .write(move |tx| super::queue::not_delivered(tx, queue_id, subseq, &reason, retry_at))
            .await?;
        self.queue.wake();
        Ok(())
    }
}
