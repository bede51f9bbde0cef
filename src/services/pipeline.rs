//! One pipeline for every fiscal document. A document travels named steps:
//!
//! 0. **look up the internalId** (before anything else, `Services::first_look`): one being
//!    issued or issued this year is 409, whatever the first request changed since (`InternalId`);
//! 1. **check** (before the pipeline): the kind's rules in `domain`, giving a `Document`;
//! 2. **enter**: its internalId joins the in-flight set (released by `InFlight`'s `Drop`);
//! 3. **lock**: the lock of its numbering `Sequence` (1 s, then 429);
//! 4. **reserve the number** and 5. **sign and persist**: in one write transaction, the kind
//!    `admit`s the document (its internalId asked again, the state it needs), the number is
//!    read (MAX+1 of the sequence, `reserve_number`, or the number held for this very
//!    document's retry), the kind `draft`s it (its signed IIC and its request, whose signing starts on another thread) and
//!    `write`s it, and its queue entry is written beside it (`sending`: its first call's), so
//!    nothing a POS is answered with is ever lost; the document then joins its sequence's lane
//!    (`lanes`), the lock is released and the log synced, on the request's own thread made a
//!    blocking one (`block_in_place`);
//! 6. **deliver**, in the request's task until the POS is answered (then a task of its own):
//!    behind the day's opening if one is still on its way, in one of the lane's
//!    `--cis-in-flight` places at the CIS (unless the breaker is open), the call itself on a
//!    thread of the blocking pool;
//! 7. **settle**: the delivery's outcome is written (`settle_first_call`): the CIS's code, the
//!    document given up with its number held for its retry (refused while its POS waited, or
//!    not delivered for a kind that is not kept), kept refused for its owner (refused after its
//!    POS was answered), or handed to the queue's worker for its next try. The worker hands its
//!    later deliveries to the same settlement (`services::queue`).
//!
//! The POS waits for step 7 at most `--cis-wait` (`budget`) when its document is kept when not
//! delivered: then it is answered with the document as deferred while the delivery goes on.
//!
//! A kind plugs in by implementing `Document`: what it is numbered in, how it is admitted and
//! written, and what is undone when it is given up. The pipeline runs in the HTTP request's task
//! but detached from it (`Detachable`): a POS that hangs up mid-issue never leaves a document
//! half-settled or its internalId held, and a POS that waits gets its answer without a crossing
//! between tasks.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use tokio::sync::OwnedMutexGuard;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::budget::{self, Handover};
use super::lanes::{Gate, Opening, Place};
use super::locks::LOCK_WAIT;
use super::sequence::{Sequence, reserve_number};
use super::{Clash, Error, Held, NotNow, Result, Services};
use crate::domain::validation::{FieldErrors, is_xml_char};
use crate::fiscal;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::delivery::{Delivery, Refusal};
use crate::fiscal::gateway::SignedRegistration;
use crate::fiscal::model::SubseqDelivType;
use crate::fiscal::requests::Operation;
use crate::store::accounts::Caller;
use crate::store::fiscal_queue::{self, NewQueued};
use crate::store::held_numbers::{self, NewHeld};
use crate::store::{self, invoices};

/// Which documents share a space of internalIds: every kind of invoice (cash, non-cash, order,
/// summary, corrective, e-invoice) one, warehouse transfer notes another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespace {
    Invoice,
    Wtn,
}

/// A document's internalId in its company's calendar year: its idempotency key. The one rule
/// every kind follows: a request whose internalId is being issued or was issued this year
/// creates nothing and is 409, looked at before anything the first request's success changes
/// (the orders it settled, what is left of an invoice, the goods it took, the breaker), so a
/// retry is told what happened to its first request whatever happened since.
#[derive(Debug, Clone)]
pub struct InternalId {
    pub namespace: Namespace,
    pub company_id: i64,
    pub year: i32,
    pub value: String,
}

impl InternalId {
    /// Its key in the in-flight set.
    pub fn in_flight_key(&self) -> String {
        let prefix = match self.namespace {
            Namespace::Invoice => "invoice",
            Namespace::Wtn => "wtn",
        };
        format!("{prefix}:{}:{}:{}", self.company_id, self.year, self.value)
    }

    fn what(&self) -> &'static str {
        match self.namespace {
            Namespace::Invoice => "An invoice",
            Namespace::Wtn => "A warehouse transfer note",
        }
    }

    /// What a request meets while another with the same internalId is on its way.
    pub fn being_issued(&self) -> Error {
        Error::Clash(Clash::BeingIssued(self.what()))
    }

    pub(in crate::services) fn already_issued(&self) -> Error {
        Error::Clash(Clash::IssuedThisYear(self.what()))
    }

    /// The company's document issued this year with it.
    pub(in crate::services) fn issued(&self, conn: &Connection) -> store::Result<Option<i64>> {
        match self.namespace {
            Namespace::Invoice => invoices::id_by_internal_id(conn, self.company_id, self.year, &self.value),
            Namespace::Wtn => {
                crate::store::wtn::id_by_internal_id(conn, self.company_id, self.year, &self.value)
            }
        }
    }

    /// In the write transaction (a kind's `admit`): a request that took the internalId since
    /// `Services::first_look` makes this one 409 too.
    pub fn admit(&self, tx: &Connection) -> Result<()> {
        match self.issued(tx)? {
            Some(_) => Err(self.already_issued()),
            None => Ok(()),
        }
    }
}

impl Services {
    /// The first step of every issue with an internalId: 409 when one is being issued (in the
    /// in-flight set) or was issued this year. The write transaction asks again (`admit`).
    pub async fn first_look(&self, internal_id: &InternalId) -> Result<()> {
        self.not_in_flight(internal_id)?;
        let looked_up = internal_id.clone();
        match self.store.read(move |conn| looked_up.issued(conn)).await? {
            Some(_) => Err(internal_id.already_issued()),
            None => Ok(()),
        }
    }

    /// An internalId being issued right now by another request is refused at once (409).
    pub(in crate::services) fn not_in_flight(&self, internal_id: &InternalId) -> Result<()> {
        let in_flight = self
            .in_flight
            .lock()
            .map_err(|_| Error::Broken("the in-flight set was poisoned"))?
            .contains(&internal_id.in_flight_key());
        if in_flight { Err(internal_id.being_issued()) } else { Ok(()) }
    }
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
    /// A first call sends at once; a late delivery is due at once too (the worker's next turn).
    pub fn next_attempt_at(&self) -> String {
        self.at.to_rfc3339()
    }

    pub fn last_error(&self) -> Option<&'static str> {
        self.late.map(|_| "the CIS was not answering (breaker open)")
    }
}

/// Who issues a document and with what: the user's codes, the till, the certificate.
#[derive(Clone)]
pub struct Issuer {
    pub caller: Caller,
    pub operator_code: String,
    pub unit_code: String,
    /// The user's TCR; `None` for a user without one (a non-cash invoice needs none).
    pub tcr_code: Option<String>,
    pub soft_code: String,
    pub certificate: Arc<Certificate>,
    pub verify_base: String,
}

/// A document the CIS must see before the one it goes ahead of (a till's automatic opening of
/// the day), saved by the same transaction. Its kind delivers it; the pipeline only orders the
/// calls, and so knows no kind.
pub trait Ahead: Send {
    /// Its queue entry, which the lane's later documents wait behind.
    fn queue_id(&self) -> i64;

    /// Its first CIS call: whether the documents behind it may go.
    fn register<'a>(
        self: Box<Self>,
        services: &'a Services,
        certificate: Arc<Certificate>,
        place: &'a Place,
    ) -> Pin<Box<dyn Future<Output = Gate> + Send + 'a>>;

    /// Left to the queue with the document behind it, for this reason.
    fn defer<'a>(
        self: Box<Self>,
        services: &'a Services,
        subseq: SubseqDelivType,
        reason: &'a str,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
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
    pub ahead: Option<Box<dyn Ahead>>,
}

/// A fiscal document kind's part in the pipeline.
pub trait Document: Send + Sync + 'static {
    /// What is stored and answered (an invoice).
    type Stored: Send + 'static;
    /// The document numbered, with its protection code and unsigned request.
    type Draft;
    /// The CIS request that registers it.
    const OPERATION: Operation;
    /// Its table, as the queue names it.
    const QUEUED_AS: fiscal_queue::Document;

    /// Who issues it: the caller's company, the till, the certificate.
    fn issuer(&self) -> &Issuer;
    fn year(&self) -> i32;
    fn sequence(&self) -> &Sequence;

    fn company_id(&self) -> i64 {
        self.issuer().caller.company.id
    }

    fn certificate(&self) -> Arc<Certificate> {
        self.issuer().certificate.clone()
    }
    /// Its key in the in-flight set, and what a second request with it meets.
    fn in_flight(&self) -> (String, Error);
    /// Whether a document the CIS did not register on its first call is kept and queued (the
    /// POS is answered with it) rather than given up (nothing saved; retry).
    fn kept_when_not_delivered(&self) -> bool;
    /// What the POS reads when it is given up because the CIS could not take it.
    fn not_saved(&self) -> &'static str;
    /// In the write transaction, before its number: the idempotency key and the state it
    /// needs. `Err` rolls the transaction back.
    fn admit(&self, tx: &Connection) -> Result<()>;
    /// The document numbered `ord_num` at `plan.at`: its protection code signed and its CIS
    /// request built, without the database.
    fn draft(&self, ord_num: u32, plan: &QueuePlan) -> Result<Self::Draft>;
    /// The unsigned CIS request of `draft`, signed by the pipeline while `write` runs.
    fn request(draft: &Self::Draft) -> &str;
    /// In the same transaction: the document of `draft` written with whatever else changes
    /// with it. `Err` (goods short, say) rolls the transaction back: nothing of it stays.
    fn write(
        &self,
        tx: &Connection,
        ord_num: u32,
        plan: &QueuePlan,
        draft: Self::Draft,
    ) -> Result<Written<Self::Stored>>;
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
        let mut keys = set.lock().map_err(|_| Error::Broken("the in-flight set was poisoned"))?;
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

/// A future run by the task that awaits it, going on in a task of its own when that task drops
/// it before it ends (its POS hung up): the rest of its work is done, its answer reaches no one.
/// Awaited to its end, its answer reaches the request without crossing to another task, as a
/// spawned task's would.
struct Detachable<F: Future + Send + 'static>(Option<Pin<Box<F>>>)
where
    F::Output: Send + 'static;

impl<F: Future + Send + 'static> Detachable<F>
where
    F::Output: Send + 'static,
{
    fn new(future: F) -> Detachable<F> {
        Detachable(Some(Box::pin(future)))
    }
}

impl<F: Future + Send + 'static> Future for Detachable<F>
where
    F::Output: Send + 'static,
{
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let Some(future) = self.0.as_mut() else {
            // Never polled again once it has answered (`Future`'s contract).
            return Poll::Pending;
        };
        let output = std::task::ready!(future.as_mut().poll(cx));
        self.0 = None;
        Poll::Ready(output)
    }
}

impl<F: Future + Send + 'static> Drop for Detachable<F>
where
    F::Output: Send + 'static,
{
    fn drop(&mut self) {
        // A future that panicked is not run again; outside a runtime nothing runs anyway.
        if let (Some(rest), false) = (self.0.take(), std::thread::panicking())
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(rest);
        }
    }
}

/// Where a document's number came from and whose it is, to hold it if the document is given up.
struct Numbered {
    company_id: i64,
    /// `Sequence::key`.
    sequence: String,
    year: i32,
    ord_num: i64,
    /// The document's in-flight key: its retry's.
    held_for: String,
}

/// A document saved by its transaction, waiting for its first call.
struct Saved<S> {
    stored: S,
    document_id: i64,
    queue_id: i64,
    /// Its request being signed (not for a document that goes to the queue at once).
    signing: Option<JoinHandle<std::result::Result<SignedRegistration, fiscal::Error>>>,
    ahead: Option<Box<dyn Ahead>>,
    numbered: Numbered,
    /// Its place in its lane and the day's opening it waits behind; none for a document that
    /// went to the queue at once.
    place: Option<(Place, Option<Opening>)>,
}

/// A saved document's first call, run on a task of its own once the sequence's lock is free.
struct FirstCall<S> {
    certificate: Arc<Certificate>,
    document_id: i64,
    queue_id: i64,
    /// Its registration, signed (or why it could not be).
    signed: std::result::Result<SignedRegistration, Delivery>,
    ahead: Option<Box<dyn Ahead>>,
    numbered: Numbered,
    /// Whether it is kept and queued when the CIS does not take it (else given up).
    kept: bool,
    not_saved: &'static str,
    place: Place,
    opening: Option<Opening>,
    handover: Arc<Handover<S>>,
}

/// What one delivery came to, with who answers the POS about it.
type Answered<S> = Option<Result<Issued<S>>>;

impl Services {
    /// Issues `document` through the steps, detached from the request: a POS that hangs up does
    /// not stop it half-way, and what it came to is settled all the same. A document kept when not
    /// delivered is answered within `--cis-wait` of now: deferred when its delivery is not done
    /// by then, which goes on.
    pub async fn issue<D: Document>(&self, document: D) -> Result<Issued<D::Stored>> {
        let services = self.clone();
        let kind = document.metrics_kind();
        let deadline = Instant::now() + self.cis_wait;
        let issued = Detachable::new(async move { services.run(document, deadline).await }).await;
        if issued.is_ok() {
            crate::ops::metrics::document_issued(kind);
        }
        issued
    }

    async fn run<D: Document>(&self, document: D, deadline: Instant) -> Result<Issued<D::Stored>> {
        let (key, taken) = document.in_flight();
        let in_flight = InFlight::enter(&self.in_flight, key.clone(), taken)?;
        let guard = self.lock(&document).await?;
        let plan = self.queue_plan(self.clock.utc());
        let kept = document.kept_when_not_delivered();
        if plan.late.is_some() && !kept {
            return Err(Error::Unavailable(NotNow::DocumentNotSaved(document.not_saved())));
        }
        let certificate = document.certificate();
        let company_id = document.company_id();
        let year = document.year();
        let tcr = document.sequence().tcr_code().map(str::to_string);
        let not_saved = document.not_saved();
        // In a chain, the business's non-cash number comes from the head office.
        let reserved = match (&self.hq, document.sequence()) {
            (super::hq_sync::Chain::Linked(link), Sequence::Business) => {
                Some(super::hq_sync::noncash_number(self, link.client.clone(), company_id, year, &key).await?)
            }
            (super::hq_sync::Chain::Unreached { .. }, Sequence::Business) => {
                return Err(Error::Unavailable(NotNow::HeadOfficeNotLinked));
            }
            _ => None,
        };
        let saved = match self.persist(document, plan.clone(), key.clone(), guard, reserved) {
            Ok(saved) => saved,
            Err(e) => {
                if let (Some(link), Some(ord_num)) = (self.hq.link(), reserved) {
                    super::hq_sync::give_back_noncash(
                        self,
                        link.client.clone(),
                        company_id,
                        year,
                        &key,
                        ord_num,
                    )
                    .await;
                }
                return Err(e);
            }
        };
        let Saved { stored, document_id, queue_id, signing, ahead, numbered, place } = saved;
        let Some((place, opening)) = place else {
            self.queue.wake();
            return Ok(Issued::Deferred(stored));
        };
        let signed = signed(D::OPERATION, signing).await;
        let handover = Handover::new(stored);
        let call = FirstCall {
            certificate,
            document_id,
            queue_id,
            signed,
            ahead,
            numbered,
            kept,
            not_saved,
            place,
            opening,
            handover: handover.clone(),
        };
        let services = self.clone();
        let delivery = async move {
            let outcome = services.first_call::<D>(call).await;
            if let Some(tcr) = &tcr {
                services.balances.invalidate(company_id, tcr);
            }
            // Free before the POS hears: a retry of a refused document finds it free.
            drop(in_flight);
            outcome
        };
        // This task is detached from the request (`issue`): a POS that hangs up stops nothing.
        budget::wait(delivery, &handover, kept.then_some(deadline), Issued::Deferred).await
    }

    /// Step 3: the sequence's lock.
    async fn lock<D: Document>(&self, document: &D) -> Result<OwnedMutexGuard<()>> {
        self.locks
            .acquire(&document.sequence().lock_key(document.company_id()), LOCK_WAIT)
            .await
            .ok_or_else(|| Error::Busy(Held::Sequence))
    }

    /// How a document issued `at` meets the CIS, by the breaker.
    pub(super) fn queue_plan(&self, at: DateTime<Utc>) -> QueuePlan {
        let late = self.gateway.breaker_open().then(|| self.breaker_subseq());
        QueuePlan { at, late }
    }

    /// Steps 4 and 5: admitted, numbered, signed and written with its queue entry, in one
    /// transaction committed without waiting for the disk; its place taken in its lane, the
    /// sequence's lock released, then the log synced (the till's next documents are numbered
    /// while the disk works, and one sync serves them all). All on this task's own thread made a
    /// blocking one (`block_in_place`), so a document crosses between threads as few times as it
    /// can. The retry of a document given up on its first call takes the number held for it.
    fn persist<D: Document>(
        &self,
        document: D,
        plan: QueuePlan,
        held_for: String,
        lock: OwnedMutexGuard<()>,
        reserved: Option<i64>,
    ) -> Result<Saved<D::Stored>> {
        let persisted = tokio::task::block_in_place(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let company_id = document.company_id();
                let written =
                    self.store.write_blocking_unsynced(|tx| save(tx, &document, &plan, held_for, reserved));
                if let Some(tcr) = document.sequence().tcr_code() {
                    // A till's document moves its balance (or opened its day).
                    self.balances.invalidate(company_id, tcr);
                }
                let mut saved = written?;
                if plan.late.is_none() {
                    // Under the lock still, so the lane learns its documents in the order of
                    // their numbers.
                    let lane = document.sequence().lock_key(company_id);
                    saved.place =
                        Some(self.lanes.join(&lane, saved.ahead.as_ref().map(|ahead| ahead.queue_id())));
                }
                drop(lock);
                // Nothing is sent nor answered before the document is on the disk.
                self.store.durable_blocking()?;
                Ok(saved)
            }))
        });
        persisted.unwrap_or_else(|panic| {
            Err(Error::Panicked { what: "the save", panic: crate::panics::text(panic.as_ref()).to_string() })
        })
    }

    /// Steps 6 and 7 for the first call, outside the sequence's lock: behind the day's opening
    /// when one is on its way (or first its own opening), in one of its lane's places at the
    /// CIS, delivered, then settled. Returns the POS's answer, or None when the POS was already
    /// answered (deferred) and the outcome was kept for the queue.
    async fn first_call<D: Document>(&self, call: FirstCall<D::Stored>) -> Answered<D::Stored> {
        let FirstCall {
            certificate,
            document_id,
            queue_id,
            signed,
            ahead,
            numbered,
            kept,
            not_saved,
            mut place,
            opening,
            handover,
        } = call;
        let mut gate = place.behind_opening().await;
        if let (Some(ahead), Some(opening)) = (ahead, opening) {
            gate = match gate {
                Gate::Passed => ahead.register(self, certificate.clone(), &place).await,
                Gate::Closed { subseq, reason } => {
                    ahead.defer(self, subseq, &reason).await;
                    Gate::Closed { subseq, reason }
                }
            };
            opening.done(gate.clone());
        }
        let called = match gate {
            // The CIS sees what goes ahead first: when it did not get there, the document waits
            // behind it in the queue.
            Gate::Closed { subseq, reason } => Called::NotDelivered { subseq, reason },
            Gate::Passed => {
                let _at_the_cis = place.at_the_cis().await;
                self.call::<D>(signed, document_id, queue_id).await
            }
        };
        let settled = Settled { document_id, queue_id, numbered, kept, not_saved };
        self.settle_first_call::<D>(settled, called, &handover).await
    }

    /// Sends the signed registration (one that could not be signed is not delivered) and, when
    /// the CIS registers it, writes its code, on one thread of the blocking pool: the POS's
    /// answer crosses between threads once fewer. Not on this task's own thread
    /// (`block_in_place`): the task also keeps the receipt's time budget, which must run out
    /// while the CIS is still answering. The code is written unsynced: a power cut that loses
    /// it costs a re-send of the same message, answered with the same code.
    async fn call<D: Document>(
        &self,
        signed: std::result::Result<SignedRegistration, Delivery>,
        document_id: i64,
        queue_id: i64,
    ) -> Called {
        let services = self.clone();
        let called = crate::cis_wait::spawn_blocking(move || {
            let delivery = match signed {
                Ok(signed) => services.gateway.deliver_signed(&signed),
                Err(not_signed) => not_signed,
            };
            match delivery {
                Delivery::Accepted(code) => {
                    let written = services.store.write_blocking_unsynced(|tx| {
                        super::queue::accepted(tx, D::QUEUED_AS, Some(document_id), queue_id, &code)
                    });
                    Called::Registered { code, written }
                }
                Delivery::Refused(refusal) => Called::Refused(refusal),
                Delivery::NotDelivered { subseq, reason } => Called::NotDelivered { subseq, reason },
            }
        })
        .await;
        called.unwrap_or_else(|e| {
            let (subseq, reason) = super::not_sent(D::OPERATION, &e.to_string());
            Called::NotDelivered { subseq, reason }
        })
    }

    /// Step 7 for the first call: what it came to is written (the CIS's code already is, by
    /// `call`), then (when its POS still waits) answered. A refusal while the POS waits gives
    /// the document up and holds its number for the POS's retry; a refusal after the POS was
    /// answered keeps the document, refused, for its owner.
    async fn settle_first_call<D: Document>(
        &self,
        settled: Settled,
        called: Called,
        handover: &Handover<D::Stored>,
    ) -> Answered<D::Stored> {
        let Settled { document_id, queue_id, numbered, kept, not_saved } = settled;
        match called {
            Called::Registered { code, written } => {
                let stored = handover.take()?;
                Some(written.map(|()| Issued::Fiscalized(D::registered(stored, code))).map_err(Error::from))
            }
            Called::Refused(refusal) => match handover.take() {
                Some(_) => {
                    let given_up = self.give_up::<D>(document_id, queue_id, numbered, &refusal).await;
                    Some(given_up.and(Err(Error::Refused(refusal.message()))))
                }
                None => {
                    self.keep_refused(D::QUEUED_AS, document_id, queue_id, refusal).await;
                    None
                }
            },
            Called::NotDelivered { subseq, reason } => {
                // A kind that is not kept has no time budget: its POS is still waiting.
                if !kept && let Some(_) = handover.take() {
                    let refusal = Refusal { code: None, text: format!("not delivered: {reason}") };
                    let given_up = self.give_up::<D>(document_id, queue_id, numbered, &refusal).await;
                    return Some(given_up.and(Err(Error::Unavailable(NotNow::DocumentNotSaved(not_saved)))));
                }
                let deferred = self.defer(queue_id, subseq, &reason).await;
                match handover.take() {
                    Some(stored) => Some(deferred.map(|()| Issued::Deferred(stored))),
                    None => {
                        log_unsettled(queue_id, deferred);
                        None
                    }
                }
            }
        }
    }

    /// A document given up while its POS waited goes (with what changed with it, its kind's
    /// `forget`), and its number is held for its retry; its queue entry stays, `held`, to show
    /// the owner the number and why.
    async fn give_up<D: Document>(
        &self,
        document_id: i64,
        queue_id: i64,
        numbered: Numbered,
        why: &Refusal,
    ) -> Result<()> {
        let (code, reason) = (why.code.clone(), why.message());
        self.store
            .write(move |tx| {
                D::forget(tx, document_id)?;
                fiscal_queue::mark_held(tx, queue_id, code.as_deref(), &reason)?;
                held_numbers::hold(
                    tx,
                    &NewHeld {
                        company_id: numbered.company_id,
                        sequence: &numbered.sequence,
                        year: numbered.year,
                        ord_num: numbered.ord_num,
                        held_for: &numbered.held_for,
                        queue_id,
                    },
                )
            })
            .await?;
        Ok(())
    }

    /// A document refused after its POS was answered with it stays, refused, for its owner
    /// (`services::queue::refused`); nobody waits for this outcome, so a failure is logged.
    pub(super) async fn keep_refused(
        &self,
        document: fiscal_queue::Document,
        document_id: i64,
        queue_id: i64,
        refusal: Refusal,
    ) {
        let kept = self
            .store
            .write(move |tx| super::queue::refused(tx, document, Some(document_id), queue_id, &refusal))
            .await;
        log_unsettled(queue_id, kept.map_err(Error::from));
    }

    /// The late-delivery type of a document saved while the breaker is open.
    pub(super) fn breaker_subseq(&self) -> SubseqDelivType {
        match self.gateway.breaker() {
            crate::fiscal::gateway::Breaker::Open { subseq, .. } => subseq,
            crate::fiscal::gateway::Breaker::Closed => SubseqDelivType::NoInternet,
        }
    }

    /// The CIS did not register the document, through no fault of it: its first call hands it
    /// to the queue's worker, with the right late-delivery type.
    pub(super) async fn defer(&self, queue_id: i64, subseq: SubseqDelivType, reason: &str) -> Result<()> {
        let reason = reason.to_string();
        let retry_at = crate::fiscal::queue::retry_at(self.clock.utc(), 0);
        self.store
            .write(move |tx| super::queue::not_delivered(tx, queue_id, subseq, &reason, retry_at))
            .await?;
        self.queue.wake();
        Ok(())
    }
}

/// In the write transaction: `document` admitted, numbered (the number held for its retry, the
/// number the chain's head office `reserved` for it, or the sequence's next), drafted with its
/// request's signing started beside, written, and queued. Any `Err` rolls it all back: the held
/// number stays held, nothing is written or queued.
fn save<D: Document>(
    tx: &Connection,
    document: &D,
    plan: &QueuePlan,
    held_for: String,
    reserved: Option<i64>,
) -> Result<Saved<D::Stored>> {
    let company_id = document.company_id();
    let (sequence, year) = (document.sequence().key(), document.year());
    if let Some(tcr) = document.sequence().tcr_code()
        && crate::store::devices::is_retired(tx, company_id, tcr)?
    {
        return Err(Error::Unavailable(NotNow::TcrRetired));
    }
    let held = held_numbers::held_for(tx, company_id, &sequence, year, &held_for)?;
    document.admit(tx)?;
    let ord_num = match (&held, reserved) {
        (Some(held), _) => held.ord_num,
        (None, Some(reserved)) => reserved,
        (None, None) => reserve_number(tx, company_id, year, document.sequence())?,
    };
    let Ok(number) = u32::try_from(ord_num) else {
        return Err(Error::Broken("the sequence's numbers are exhausted"));
    };
    let draft = document.draft(number, plan)?;
    // The CIS cannot parse a request holding such a character: refused while its POS waits,
    // the document would hold its number for a retry that fails the same way. Every kind's
    // text is checked where it enters; this is the one place none can pass.
    if let Some(c) = D::request(&draft).chars().find(|c| !is_xml_char(*c)) {
        return Err(Error::Invalid(FieldErrors::one(
            "body",
            format!(
                "The document holds the control character U+{:04X}, which a fiscal document cannot carry; nothing was issued.",
                u32::from(c)
            ),
        )));
    }
    // The request is signed on another thread while the rows are written, committed and
    // synced: none of that needs its signature. A document for the queue is signed when the
    // queue sends it.
    let signing = plan.late.is_none().then(|| {
        let (certificate, unsigned) = (document.certificate(), D::request(&draft).to_string());
        tokio::task::spawn_blocking(move || SignedRegistration::sign(&certificate, D::OPERATION, &unsigned))
    });
    let written = document.write(tx, number, plan, draft)?;
    let next = plan.next_attempt_at();
    let queue_id = fiscal_queue::enqueue(
        tx,
        &NewQueued {
            company_id,
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
    if let Some(held) = held {
        held_numbers::release(tx, held.id)?;
        fiscal_queue::mark_reissued(tx, held.queue_id)?;
    }
    Ok(Saved {
        stored: written.stored,
        document_id: written.document_id,
        queue_id,
        signing,
        ahead: written.ahead,
        numbered: Numbered { company_id, sequence, year, ord_num, held_for },
        place: None,
    })
}

/// What a first call came to: `Delivery`, with the CIS's code already written when it
/// registered the document.
enum Called {
    Registered { code: String, written: store::Result<()> },
    Refused(Refusal),
    NotDelivered { subseq: SubseqDelivType, reason: String },
}

/// What the settlement of a first call needs to know.
struct Settled {
    document_id: i64,
    queue_id: i64,
    numbered: Numbered,
    kept: bool,
    not_saved: &'static str,
}

/// An outcome nobody waits for could not be written: the entry stays `sending` until the next
/// start hands it to the queue, which sends it again.
pub(super) fn log_unsettled(queue_id: i64, written: Result<()>) {
    if let Err(e) = written {
        tracing::error!(queue_id, error = %crate::error_chain(&e), "the outcome of a first call could not be written; the queue sends it again after a restart");
    }
}

/// The request signed while its document was saved; one that could not be signed is not
/// delivered, as a technical error on the TCR's side, and waits in the queue.
async fn signed(
    operation: Operation,
    signing: Option<JoinHandle<std::result::Result<SignedRegistration, fiscal::Error>>>,
) -> std::result::Result<SignedRegistration, Delivery> {
    let signed = match signing {
        Some(signing) => signing.await.map_err(|e| e.to_string()).and_then(|s| s.map_err(|e| e.to_string())),
        None => Err("the request was not signed".to_string()),
    };
    signed.map_err(|e| {
        let (subseq, reason) = super::not_sent(operation, &e);
        Delivery::NotDelivered { subseq, reason }
    })
}
