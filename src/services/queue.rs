//! Settling deliveries, and the late-delivery queue as its owner sees it.
//!
//! Whoever delivered a document (the first call of an issue, or the queue's worker), what it
//! came to is written here: the CIS's code on the document and its queue entry; a refusal kept
//! on record; or the next try. Each in one transaction.

use chrono::{DateTime, Utc};

use super::sequence::Sequence;
use super::{Error, Result, Services};
use crate::domain::audit::Action;
use crate::fiscal::delivery::{Delivery, Refusal};
use crate::fiscal::model::SubseqDelivType;
use crate::fiscal::queue::{Settle, WARN_AFTER_HOURS, age_hours};
use crate::fiscal::{self, certificate::Certificate, gateway::SignedRegistration, requests::Operation};
use crate::ops::secrets::KeyFile;
use crate::store::accounts::{self, Caller};
use crate::store::fiscal_queue::{self, Document};
pub use crate::store::fiscal_queue::{Queued, Status};
use crate::store::{self, cash_register, einvoices, invoices, wtn};

/// The CIS registered the document: its code goes on the document and on its queue entry.
pub(super) fn accepted(
    tx: &rusqlite::Connection,
    document: Document,
    document_id: Option<i64>,
    queue_id: i64,
    code: &str,
) -> store::Result<()> {
    if fiscal_queue::mark_delivered(tx, queue_id, code)?
        && let Some(id) = document_id
    {
        match document {
            Document::Invoice => invoices::set_fic(tx, id, code)?,
            Document::CashAction => cash_register::set_fiscalized(tx, id, code)?,
            Document::Einvoice => einvoices::set_eic(tx, id, code)?,
            Document::Wtn => wtn::set_fwtnic(tx, id, code)?,
        }
    }
    Ok(())
}

/// The CIS refused a document a POS was already answered with: it stays, refused with the
/// CIS's reason, for the owner to correct and send again (`arka queue resend`).
pub(super) fn refused(
    tx: &rusqlite::Connection,
    document: Document,
    document_id: Option<i64>,
    queue_id: i64,
    refusal: &Refusal,
) -> store::Result<()> {
    fiscal_queue::mark_rejected(tx, queue_id, refusal.code.as_deref(), &refusal.message())?;
    if let (Document::CashAction, Some(id)) = (document, document_id) {
        cash_register::set_rejected(tx, id)?;
    }
    Ok(())
}

/// Not registered, not the document's fault: it waits for its next try at `retry_at`.
pub(super) fn not_delivered(
    tx: &rusqlite::Connection,
    queue_id: i64,
    subseq: SubseqDelivType,
    reason: &str,
    retry_at: DateTime<Utc>,
) -> store::Result<()> {
    let next = retry_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    fiscal_queue::record_failure(tx, queue_id, subseq.as_str(), &next, reason)
}

/// What a delivery of a queued document came to, in one transaction.
fn settle(
    tx: &rusqlite::Connection,
    entry: &Queued,
    delivery: &Delivery,
    retry_at: DateTime<Utc>,
) -> store::Result<()> {
    match delivery {
        Delivery::Accepted(code) => accepted(tx, entry.document, entry.document_id, entry.id, code),
        Delivery::Refused(refusal) => refused(tx, entry.document, entry.document_id, entry.id, refusal),
        Delivery::NotDelivered { subseq, reason } => not_delivered(tx, entry.id, *subseq, reason, retry_at),
    }
}

impl Settle for Services {
    fn settle(
        &self,
        entry: &Queued,
        delivery: &Delivery,
        retry_at: DateTime<Utc>,
    ) -> std::result::Result<(), crate::fiscal::Error> {
        self.store.write_blocking(|tx| settle(tx, entry, delivery, retry_at))?;
        // A day's opening the queue got to the CIS no longer holds its till's documents back.
        if let (Document::CashAction, Some(tcr), Delivery::Accepted(_) | Delivery::Refused(_)) =
            (entry.document, &entry.tcr_code, delivery)
        {
            self.lanes.reached_the_cis(&Sequence::Till(tcr.clone()).lock_key(entry.company_id), entry.id);
        }
        Ok(())
    }
}

/// A document the CIS refused, as the owner sees it.
#[derive(Debug, Clone)]
pub struct RefusedDocument {
    pub queue_id: i64,
    /// Request root, e.g. `RegisterInvoiceRequest`.
    pub operation: String,
    pub number: Option<String>,
    pub issued_at: Option<DateTime<Utc>>,
    pub fault_code: Option<String>,
    /// `[code] text` of the CIS.
    pub reason: String,
    /// Refused on its first call while its POS waited: the document is gone and its number is
    /// held for the POS's retry of the same document (`held`); otherwise the POS already had
    /// it and it waits for its owner (`rejected`, `arka queue resend`).
    pub number_held: bool,
}

/// What waits for the CIS, as shown in GET /account and by `arka queue`.
pub struct QueueSummary {
    pub waiting: usize,
    pub refused: Vec<RefusedDocument>,
    pub oldest_waiting_issued_at: Option<DateTime<Utc>>,
    /// Waiting documents past the warning mark of the 48-hour limit for late delivery.
    pub near_legal_limit: Vec<String>,
}

pub fn summarize(items: &[Queued], now: DateTime<Utc>) -> QueueSummary {
    let waiting: Vec<_> = items.iter().filter(|q| q.status == Status::Waiting).collect();
    QueueSummary {
        waiting: waiting.len(),
        refused: items
            .iter()
            .filter(|q| q.status.is_refused())
            .map(|q| RefusedDocument {
                queue_id: q.id,
                operation: q.operation.clone(),
                number: q.document_number.clone(),
                issued_at: crate::domain::time::parse_stored(&q.issued_at),
                fault_code: q.fault_code.clone(),
                reason: q.last_error.clone().unwrap_or_default(),
                number_held: q.status == Status::Held,
            })
            .collect(),
        oldest_waiting_issued_at: waiting
            .iter()
            .filter_map(|q| crate::domain::time::parse_stored(&q.issued_at))
            .min(),
        near_legal_limit: waiting
            .iter()
            .filter(|q| age_hours(&q.issued_at, now).is_some_and(|h| h >= WARN_AFTER_HOURS))
            .map(|q| q.document_number.clone().unwrap_or_else(|| q.header_uuid.clone()))
            .collect(),
    }
}

impl Services {
    pub async fn queue_summary(&self, caller: &Caller) -> Result<QueueSummary> {
        let company_id = caller.company.id;
        let items = self.store.read(move |conn| fiscal_queue::open_items(conn, Some(company_id))).await?;
        Ok(summarize(&items, self.clock.utc()))
    }
}

/// Every document waiting for the CIS or refused by it, of every company, oldest first (`arka
/// queue`).
pub fn open_items(store: &store::Store) -> store::Result<Vec<Queued>> {
    store.read_blocking(|conn| fiscal_queue::open_items(conn, None))
}

/// A kept request signed as its first call sent it.
pub struct SignedKept {
    pub queue_id: i64,
    pub operation: String,
    /// The SOAP envelope with the signed request.
    pub envelope: String,
}

/// Every request the queue keeps (every status: nothing is ever removed), signed again with the
/// certificate its company had when it was queued, one page at a time for `each`. The kept text
/// is what was signed byte for byte, and an RSA PKCS#1 v1.5 signature is deterministic, so the
/// envelope is the one the first call sent. A late delivery went with a newer header (its send
/// time and late-delivery type); its kept request is the one it was issued with.
pub fn signed_kept_requests(
    store: &store::Store,
    key_file: &KeyFile,
    mut each: impl FnMut(SignedKept) -> std::io::Result<()>,
) -> Result<usize> {
    let (mut after, mut count) = (0, 0);
    loop {
        let page = store.read_blocking(|conn| fiscal_queue::page(conn, after, 500))?;
        let Some(last) = page.last() else { return Ok(count) };
        after = last.id;
        for kept in page {
            let stored = store
                .read_blocking(|conn| accounts::certificate_at(conn, kept.company_id, &kept.created_at))?
                .ok_or(fiscal::Error::NoCertificate)?;
            let certificate =
                Certificate::from_der_parts(&key_file.open(&stored.key_sealed)?, &stored.cert_der)?;
            let operation = Operation::from_request_root(&kept.operation).ok_or(Error::Unreadable {
                what: "operation",
                id: kept.id,
                cause: None,
            })?;
            let signed = SignedRegistration::sign(&certificate, operation, &kept.unsigned_request)?;
            each(SignedKept {
                queue_id: kept.id,
                operation: kept.operation,
                envelope: signed.envelope().to_string(),
            })
            .map_err(|cause| Error::NotWritten { id: kept.id, cause })?;
            count += 1;
        }
    }
}

/// The owner's re-send (`arka queue resend ID`) of a document the CIS refused, once the cause
/// is corrected: it waits again and the worker of a running server sends it within a second,
/// signed with the company's current certificate. Returns false when no refused document has
/// this queue id.
pub fn resend(store: &store::Store, queue_id: i64, at: DateTime<Utc>) -> store::Result<bool> {
    let now = at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    store.write_blocking(|tx| {
        resend_in(tx, queue_id, None, &now, |company_id| {
            super::audit::by_cli(Some(company_id), Action::QueueResend, queue_id)
        })
    })
}

/// A refused document waits again, `company`'s only when one is named, and the trail says who
/// sent it again (`entry` of the document's company), in the same transaction. False when no
/// refused document has this queue id.
pub(super) fn resend_in(
    tx: &rusqlite::Transaction,
    queue_id: i64,
    company: Option<i64>,
    now: &str,
    entry: impl FnOnce(i64) -> super::audit::Entry,
) -> store::Result<bool> {
    let described = fiscal_queue::described(tx, queue_id)?;
    if !fiscal_queue::resend(tx, queue_id, company, now)? {
        return Ok(false);
    }
    if let Some(d) = described {
        let entry = entry(d.company_id)
            .before(serde_json::json!({
                "status": "rejected",
                "faultCode": d.fault_code,
                "document": d.document_number,
            }))
            .after(serde_json::json!({ "status": "waiting" }));
        store::audit::append(tx, &entry)?;
    }
    Ok(true)
}
