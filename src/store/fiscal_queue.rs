//! The durable queue of documents on their way to the CIS. Every fiscal document gets its entry
//! in the transaction that saves it, so nothing a POS is answered with is ever lost:
//!
//! - `sending`: its first call owns it (a new document; the queue's worker leaves it alone);
//! - `waiting`: a late delivery (subsequent delivery), the worker's to send;
//! - `delivered`: the CIS registered it; `rejected`: the CIS refused a document a POS already
//!   had, kept for its owner to correct and send again;
//! - `held`: given up on its first call (the document is gone), its number held for the same
//!   document's retry (`held_numbers`); `reissued` once the retry took the number.
//!
//! Every query by status also says `status <> 'delivered'`: the index by status (V28) holds the
//! entries not delivered only, and SQLite takes a partial index for a query naming its condition.

use rusqlite::{Connection, OptionalExtension, Row, named_params};

use super::kept::{self, EntryKeys, Packed, SHOP_DICTIONARY_SQL, ShopDictionary};
use super::{Result, now_text};
use crate::domain::spelled::spelled;

spelled! {
    /// Which table a queued document lives in (the queue's `document_kind`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Document {
        /// A row of `invoices`: any invoice kind, order, summary or corrective document.
        Invoice = "invoice",
        /// A row of `cash_actions`.
        CashAction = "cash_action",
        /// The e-invoice registration (RegisterEinvoiceRequest) of a fiscalized row of `invoices`.
        Einvoice = "einvoice",
        /// A row of `wtns`: a warehouse transfer note.
        Wtn = "wtn",
    }
}

spelled! {
    /// Where an entry stands (the module's documentation tells the story).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Status {
        Sending = "sending",
        Waiting = "waiting",
        Delivered = "delivered",
        Rejected = "rejected",
        Held = "held",
        Reissued = "reissued",
    }
}

impl Status {
    /// Refused by the CIS and waiting for someone: its owner (`rejected`) or its POS's retry
    /// (`held`).
    pub fn is_refused(self) -> bool {
        matches!(self, Status::Rejected | Status::Held)
    }
}

#[derive(Debug, Clone)]
pub struct Queued {
    pub id: i64,
    pub company_id: i64,
    /// Request root, e.g. `RegisterInvoiceRequest`.
    pub operation: String,
    pub document: Document,
    pub document_id: Option<i64>,
    pub document_number: Option<String>,
    pub tcr_code: Option<String>,
    pub header_uuid: String,
    /// IssueDateTime of the document (UTC, RFC 3339): the 48-hour clock runs from here.
    pub issued_at: String,
    pub unsigned_request: String,
    pub subseq_deliv_type: Option<String>,
    pub status: Status,
    pub attempts: i64,
    pub next_attempt_at: String,
    pub last_error: Option<String>,
    pub fault_code: Option<String>,
    pub result_code: Option<String>,
    pub created_at: String,
}

pub struct NewQueued<'a> {
    pub company_id: i64,
    pub operation: &'a str,
    pub document: Document,
    pub document_id: Option<i64>,
    pub document_number: Option<&'a str>,
    pub tcr_code: Option<&'a str>,
    pub header_uuid: &'a str,
    pub issued_at: &'a str,
    pub unsigned_request: &'a str,
    pub subseq_deliv_type: Option<&'a str>,
    pub next_attempt_at: &'a str,
    pub last_error: Option<&'a str>,
}

const COLUMNS: &str = "id, company_id, operation, document_kind, document_id, document_number, tcr_code,
    header_uuid, issued_at, unsigned_request, subseq_deliv_type, status, attempts, next_attempt_at,
    last_error, fault_code, result_code, created_at";

fn queued_from(r: &Row) -> rusqlite::Result<Queued> {
    let (header_uuid, tcr_code, document_number): (String, Option<String>, Option<String>) =
        (r.get("header_uuid")?, r.get("tcr_code")?, r.get("document_number")?);
    let keys = EntryKeys {
        header_uuid: &header_uuid,
        tcr_code: tcr_code.as_deref(),
        document_number: document_number.as_deref(),
        shop: None,
    };
    let dictionary: Option<Vec<u8>> = r.get("kept_dictionary")?;
    let unsigned_request = kept::read(r.get_ref("unsigned_request")?, keys, dictionary.as_deref())
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Blob, e.into()))?;
    Ok(Queued {
        id: r.get("id")?,
        company_id: r.get("company_id")?,
        operation: r.get("operation")?,
        document: r.get("document_kind")?,
        document_id: r.get("document_id")?,
        document_number,
        tcr_code,
        header_uuid,
        issued_at: r.get("issued_at")?,
        unsigned_request,
        subseq_deliv_type: r.get("subseq_deliv_type")?,
        status: r.get("status")?,
        attempts: r.get("attempts")?,
        next_attempt_at: r.get("next_attempt_at")?,
        last_error: r.get("last_error")?,
        fault_code: r.get("fault_code")?,
        result_code: r.get("result_code")?,
        created_at: r.get("created_at")?,
    })
}

/// A new document's entry: `sending` (its first call's) without a late-delivery type, `waiting`
/// (the worker's, due at `next_attempt_at`) with one.
pub fn enqueue(conn: &Connection, q: &NewQueued) -> Result<i64> {
    let status = if q.subseq_deliv_type.is_some() { Status::Waiting } else { Status::Sending };
    let shop = shop_dictionary(conn, q.company_id, q.operation, q.unsigned_request)?;
    let keys = EntryKeys {
        header_uuid: q.header_uuid,
        tcr_code: q.tcr_code,
        document_number: q.document_number,
        shop: shop.as_ref().map(|(id, dictionary)| ShopDictionary { id: *id, dictionary }),
    };
    let request = Packed::entry(q.unsigned_request, &keys)?;
    conn.prepare_cached(
        "INSERT INTO fiscal_queue (company_id, operation, document_kind, document_id, document_number, tcr_code,
             header_uuid, issued_at, unsigned_request, subseq_deliv_type, status, next_attempt_at, last_error,
             created_at)
         VALUES (:company, :op, :kind, :doc, :number, :tcr, :uuid, :issued, :request, :subseq, :status, :next,
             :error, :now)",
    )?
    .execute(named_params! {
        ":company": q.company_id, ":op": q.operation, ":kind": q.document, ":doc": q.document_id,
        ":number": q.document_number, ":tcr": q.tcr_code, ":uuid": q.header_uuid, ":issued": to_the_second(q.issued_at),
        ":request": request, ":subseq": q.subseq_deliv_type, ":status": status,
        ":next": to_the_second(q.next_attempt_at), ":error": q.last_error, ":now": now_text(),
    })?;
    Ok(conn.last_insert_rowid())
}

/// The dictionary of the company's own that `request` is packed with (`kept::pack_entry`): the
/// one kept for its operation and seller (a unit's address is the seller's), else a new one made
/// of the request itself. None for a request format 3 does not keep (no IIC signature).
fn shop_dictionary(
    conn: &Connection,
    company_id: i64,
    operation: &str,
    request: &str,
) -> Result<Option<(i64, Vec<u8>)>> {
    let Some(made) = kept::shop_dictionary(request) else { return Ok(None) };
    let seller = kept::seller(request);
    let kept: Option<(i64, Vec<u8>)> = conn
        .prepare_cached(
            "SELECT id, dictionary FROM kept_dictionaries
             WHERE company_id = :company AND operation = :op AND seller = :seller",
        )?
        .query_row(named_params! {":company": company_id, ":op": operation, ":seller": seller}, |r| {
            Ok((r.get("id")?, r.get("dictionary")?))
        })
        .optional()?;
    if kept.is_some() {
        return Ok(kept);
    }
    conn.prepare_cached(
        "INSERT INTO kept_dictionaries (company_id, operation, seller, dictionary)
         VALUES (:company, :op, :seller, :dictionary)",
    )?
    .execute(
        named_params! {":company": company_id, ":op": operation, ":seller": seller, ":dictionary": made},
    )?;
    Ok(Some((conn.last_insert_rowid(), made)))
}

/// Every entry on its way (`waiting` or `sending`), oldest first: the worker sends the waiting
/// ones and keeps each TCR's documents in order behind any still in their first call.
pub fn on_the_way(conn: &Connection, limit: i64) -> Result<Vec<Queued>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, {SHOP_DICTIONARY_SQL} AS kept_dictionary FROM fiscal_queue WHERE status IN ('waiting', 'sending') AND status <> 'delivered' ORDER BY id LIMIT :limit"
    ))?;
    let rows = stmt.query_map(named_params! {":limit": limit}, queued_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// What waits and what the CIS refused (kept for the owner, or its number held for a retry),
/// oldest first: for `arka queue` and GET /account.
pub fn open_items(conn: &Connection, company_id: Option<i64>) -> Result<Vec<Queued>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS}, {SHOP_DICTIONARY_SQL} AS kept_dictionary FROM fiscal_queue
         WHERE status IN ('waiting', 'rejected', 'held') AND status <> 'delivered' AND (:company IS NULL OR company_id = :company)
         ORDER BY id"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, queued_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Entries of every status after `after_id`, by id, `limit` at a time: `arka queue requests`.
pub fn page(conn: &Connection, after_id: i64, limit: i64) -> Result<Vec<Queued>> {
    let mut stmt = conn
        .prepare(&format!("SELECT {COLUMNS}, {SHOP_DICTIONARY_SQL} AS kept_dictionary FROM fiscal_queue WHERE id > :after ORDER BY id LIMIT :limit"))?;
    let rows = stmt.query_map(named_params! {":after": after_id, ":limit": limit}, queued_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<Queued>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .query_row(
            &format!(
                "SELECT {COLUMNS}, {SHOP_DICTIONARY_SQL} AS kept_dictionary FROM fiscal_queue WHERE id = :id"
            ),
            named_params! {":id": id},
            queued_from,
        )
        .optional()?)
}

/// A failed attempt: the document waits (its first call hands it to the worker here) until
/// `next_attempt_at`, as a late delivery of type `subseq_deliv_type` unless it already has one.
pub fn record_failure(
    conn: &Connection,
    id: i64,
    subseq_deliv_type: &str,
    next_attempt_at: &str,
    error: &str,
) -> Result<()> {
    conn.prepare_cached(
        "UPDATE fiscal_queue SET status = 'waiting', attempts = attempts + 1,
             subseq_deliv_type = COALESCE(subseq_deliv_type, :subseq), next_attempt_at = :next, last_error = :error
         WHERE id = :id AND status IN ('waiting', 'sending')",
    )?
    .execute(named_params! {":id": id, ":subseq": subseq_deliv_type, ":next": next_attempt_at, ":error": error})?;
    Ok(())
}

/// The times an entry keeps of its document's issue and of its first try: the 48-hour clock and
/// the worker need no finer than the second, and the document's own row keeps its time whole (30
/// bytes a new entry, which then fits its page whole, issue 46). A time that does not read is kept
/// as it is.
fn to_the_second(issued_at: &str) -> String {
    crate::domain::time::parse_stored(issued_at)
        .map_or_else(|| issued_at.to_string(), |t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// The CIS accepted the document; returns false when it was no longer on its way. A delivered
/// entry keeps no next attempt (no worker reads it again): its time would be 35 bytes kept for
/// nothing in every entry (issue 34). Nor does it keep the CIS's code when it belongs to a
/// document, whose own row holds it (`services::queue::accepted` writes it there in the same
/// transaction), nor its delivery time when it is its creation's (delivered by the sale's own
/// call, the second it was made): with them, a one-line receipt's entry spilled into an overflow
/// page (issue 46).
pub fn mark_delivered(conn: &Connection, id: i64, result_code: &str) -> Result<bool> {
    let changed = conn
        .prepare_cached(
            "UPDATE fiscal_queue SET status = 'delivered', attempts = attempts + 1,
                 result_code = CASE WHEN document_id IS NULL THEN :code END,
                 delivered_at = NULLIF(:now, created_at), last_error = NULL, next_attempt_at = ''
             WHERE id = :id AND status IN ('waiting', 'sending')",
        )?
        .execute(named_params! {":id": id, ":code": result_code, ":now": now_text()})?;
    Ok(changed == 1)
}

/// The CIS refused a document its POS already had: kept with its reason and never retried
/// unless its owner sends it again.
pub fn mark_rejected(conn: &Connection, id: i64, fault_code: Option<&str>, reason: &str) -> Result<()> {
    conn.execute(
        "UPDATE fiscal_queue SET status = 'rejected', attempts = attempts + 1, fault_code = :code, last_error = :reason
         WHERE id = :id AND status IN ('waiting', 'sending')",
        named_params! {":id": id, ":code": fault_code, ":reason": reason},
    )?;
    Ok(())
}

/// The document was given up on its first call (and deleted): its entry stays, with why, to
/// show the owner the number held for the document's retry.
pub fn mark_held(conn: &Connection, id: i64, fault_code: Option<&str>, reason: &str) -> Result<()> {
    conn.execute(
        "UPDATE fiscal_queue SET status = 'held', document_id = NULL, attempts = attempts + 1,
             fault_code = :code, last_error = :reason
         WHERE id = :id AND status = 'sending'",
        named_params! {":id": id, ":code": fault_code, ":reason": reason},
    )?;
    Ok(())
}

/// The retry of a held document took its number: the old entry is history.
pub fn mark_reissued(conn: &Connection, id: i64) -> Result<()> {
    conn.execute(
        "UPDATE fiscal_queue SET status = 'reissued' WHERE id = :id AND status = 'held'",
        named_params! {":id": id},
    )?;
    Ok(())
}

/// At start, before anything is issued: entries whose first call a stop (or a crash) cut short
/// go to the worker at once, as late deliveries of type TECHNICALERROR (PROTOCOL.md section 8:
/// a temporary technical error on the TCR's side). Whether the CIS got the cut-short call is
/// unknown; the re-sent message carries the same Header UUID and IIC, which the CIS answers with
/// the code it gave the first time. Returns how many.
pub fn release_interrupted(conn: &Connection, now: &str) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE fiscal_queue SET status = 'waiting', subseq_deliv_type = COALESCE(subseq_deliv_type, 'TECHNICALERROR'),
             next_attempt_at = :now, last_error = 'its first call was cut short when Arka stopped'
         WHERE status = 'sending' AND status <> 'delivered'",
        named_params! {":now": now},
    )?)
}

/// The CIS is back: documents waiting as late deliveries are due now, whatever their backoff.
/// Entries still in their first call (`sending`) are left to it.
pub fn make_due(conn: &Connection, now: &str) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE fiscal_queue SET next_attempt_at = :now WHERE status = 'waiting' AND status <> 'delivered'",
        named_params! {":now": now},
    )?)
}

/// The owner's re-send of a document the CIS refused: it waits again, due now, as a late
/// delivery (TECHNICALERROR when it never had a type: it was refused on its first call).
/// Returns false when no refused entry has this id (of `company`, when one is named: the page's
/// owner acts on their own company's documents only; `arka queue` on the box's).
pub fn resend(conn: &Connection, id: i64, company: Option<i64>, now: &str) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE fiscal_queue SET status = 'waiting', next_attempt_at = :now, fault_code = NULL,
             subseq_deliv_type = COALESCE(subseq_deliv_type, 'TECHNICALERROR'),
             last_error = 'sent again by the owner after: ' || COALESCE(last_error, '')
         WHERE id = :id AND status = 'rejected' AND (:company IS NULL OR company_id = :company)",
        named_params! {":id": id, ":now": now, ":company": company},
    )?;
    Ok(changed == 1)
}

/// A queue entry as the audit trail describes it.
pub struct Described {
    pub company_id: i64,
    pub document_number: Option<String>,
    pub fault_code: Option<String>,
}

/// A queue entry's company, document number and last fault code, for the audit trail.
pub fn described(conn: &Connection, id: i64) -> Result<Option<Described>> {
    Ok(conn
        .query_row(
            "SELECT company_id, document_number, fault_code FROM fiscal_queue WHERE id = :id",
            named_params! {":id": id},
            |r| {
                Ok(Described {
                    company_id: r.get("company_id")?,
                    document_number: r.get("document_number")?,
                    fault_code: r.get("fault_code")?,
                })
            },
        )
        .optional()?)
}

/// Drops the queue entry of a document that is not kept (a cash-register action refused while
/// its till's lock was still held, so its number goes back).
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("DELETE FROM fiscal_queue WHERE id = :id", named_params! {":id": id})?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Error, Store, fixtures};

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        (dir, store)
    }

    /// An invoice's entry for the company; `late` makes it a late delivery of that type.
    fn entry<'a>(company_id: i64, uuid: &'a str, late: Option<&'a str>) -> NewQueued<'a> {
        NewQueued {
            company_id,
            operation: "RegisterInvoiceRequest",
            document: Document::Invoice,
            document_id: Some(7),
            document_number: Some("7/2026/tc111tc111"),
            tcr_code: Some("tc111tc111"),
            header_uuid: uuid,
            issued_at: "2026-11-23T10:00:00Z",
            unsigned_request: "<RegisterInvoiceRequest/>",
            subseq_deliv_type: late,
            next_attempt_at: "2026-11-23T10:00:00Z",
            last_error: None,
        }
    }

    fn status(conn: &Connection, id: i64) -> Status {
        get(conn, id).unwrap().unwrap().status
    }

    #[test]
    fn a_first_call_owns_its_entry_and_a_late_delivery_waits_for_the_worker() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let company = fixtures::company(tx, "L1");
                let first = enqueue(tx, &entry(company, "u1", None))?;
                let late = enqueue(tx, &entry(company, "u2", Some("NOINTERNET")))?;
                let read = get(tx, first)?.unwrap();
                assert_eq!((read.status, read.attempts, read.subseq_deliv_type), (Status::Sending, 0, None));
                assert_eq!(
                    (read.document, read.document_id, read.company_id),
                    (Document::Invoice, Some(7), company)
                );
                assert_eq!(
                    (read.operation.as_str(), read.header_uuid.as_str()),
                    ("RegisterInvoiceRequest", "u1")
                );
                assert_eq!(read.document_number.as_deref(), Some("7/2026/tc111tc111"));
                assert_eq!(read.unsigned_request, "<RegisterInvoiceRequest/>");
                assert_eq!(status(tx, late), Status::Waiting);
                assert!(get(tx, late + 1)?.is_none());
                assert!(
                    matches!(enqueue(tx, &entry(company, "u1", None)), Err(Error::Duplicate(_))),
                    "one UUID, one entry"
                );
                let ids: Vec<i64> = on_the_way(tx, 10)?.iter().map(|q| q.id).collect();
                assert_eq!(ids, [first, late], "oldest first, first calls too");
                assert_eq!(on_the_way(tx, 1)?.len(), 1);
                let open: Vec<i64> = open_items(tx, Some(company))?.iter().map(|q| q.id).collect();
                assert_eq!(open, [late], "a first call is not the owner's business yet");
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_delivered_entry_keeps_its_issue_to_the_second_and_the_code_only_when_no_document_holds_it() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let company = fixtures::company(tx, "L1");
                let mut of_invoice = entry(company, "u1", None);
                of_invoice.issued_at = "2026-12-07T10:25:42.812887305+00:00";
                let invoice = enqueue(tx, &of_invoice)?;
                let mut alone = entry(company, "u2", None);
                alone.document_id = None;
                let lone = enqueue(tx, &alone)?;
                let kept = get(tx, invoice)?.unwrap();
                assert_eq!(
                    (kept.issued_at.as_str(), kept.next_attempt_at.as_str()),
                    ("2026-12-07T10:25:42Z", "2026-11-23T10:00:00Z")
                );
                assert!(mark_delivered(tx, invoice, "FIC-1")? && mark_delivered(tx, lone, "FIC-2")?);
                assert_eq!(get(tx, invoice)?.unwrap().result_code, None);
                assert_eq!(get(tx, lone)?.unwrap().result_code.as_deref(), Some("FIC-2"));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_failure_keeps_the_first_late_delivery_type_and_counts_the_attempt() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let company = fixtures::company(tx, "L1");
                let id = enqueue(tx, &entry(company, "u1", None))?;
                record_failure(tx, id, "NOINTERNET", "2026-11-23T10:01:00Z", "timeout")?;
                record_failure(tx, id, "BOUNDBOOK", "2026-11-23T10:05:00Z", "timeout again")?;
                let read = get(tx, id)?.unwrap();
                assert_eq!((read.status, read.attempts), (Status::Waiting, 2));
                assert_eq!(read.subseq_deliv_type.as_deref(), Some("NOINTERNET"), "its first type stays");
                assert_eq!(read.next_attempt_at, "2026-11-23T10:05:00Z");
                assert_eq!(read.last_error.as_deref(), Some("timeout again"));
                assert_eq!(make_due(tx, "2026-11-23T10:02:00Z")?, 1);
                assert_eq!(get(tx, id)?.unwrap().next_attempt_at, "2026-11-23T10:02:00Z");
                assert!(mark_delivered(tx, id, "FIC-1")?);
                let read = get(tx, id)?.unwrap();
                assert_eq!(
                    (read.status, read.attempts, read.result_code.as_deref()),
                    (Status::Delivered, 3, None),
                    "the code is the document's: its row keeps it"
                );
                assert_eq!(read.last_error, None);
                assert!(!mark_delivered(tx, id, "FIC-2")?, "no longer on its way");
                record_failure(tx, id, "NOINTERNET", "2026-11-23T11:00:00Z", "late")?;
                assert_eq!(status(tx, id), Status::Delivered, "a delivered entry stays delivered");
                assert!(on_the_way(tx, 10)?.is_empty() && open_items(tx, None)?.is_empty());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_refused_entry_waits_for_its_owner_who_sends_it_again() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let mine = fixtures::company(tx, "L1");
                let theirs = fixtures::company(tx, "L2");
                let id = enqueue(tx, &entry(mine, "u1", Some("NOINTERNET")))?;
                mark_rejected(tx, id, Some("58"), "bad NUIS")?;
                let read = get(tx, id)?.unwrap();
                assert_eq!(
                    (read.status, read.fault_code.as_deref(), read.last_error.as_deref()),
                    (Status::Rejected, Some("58"), Some("bad NUIS"))
                );
                assert!(read.status.is_refused());
                assert_eq!(open_items(tx, Some(mine))?.len(), 1);
                assert!(open_items(tx, Some(theirs))?.is_empty());
                assert!(on_the_way(tx, 10)?.is_empty(), "the worker leaves it alone");
                let d = described(tx, id)?.unwrap();
                assert_eq!(
                    (d.company_id, d.document_number.as_deref(), d.fault_code.as_deref()),
                    (mine, Some("7/2026/tc111tc111"), Some("58"))
                );
                assert!(described(tx, id + 1)?.is_none());
                assert!(!resend(tx, id, Some(theirs), "2026-11-24T08:00:00Z")?, "not another company's");
                assert!(resend(tx, id, Some(mine), "2026-11-24T08:00:00Z")?);
                let read = get(tx, id)?.unwrap();
                assert_eq!(
                    (read.status, read.fault_code, read.next_attempt_at.as_str()),
                    (Status::Waiting, None, "2026-11-24T08:00:00Z")
                );
                assert_eq!(read.last_error.as_deref(), Some("sent again by the owner after: bad NUIS"));
                assert_eq!(read.subseq_deliv_type.as_deref(), Some("NOINTERNET"));
                assert!(!resend(tx, id, None, "2026-11-24T08:00:00Z")?, "only a refused entry");
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_held_number_is_reissued_once_and_a_refused_first_call_goes_again_as_a_technical_error() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let company = fixtures::company(tx, "L1");
                let held = enqueue(tx, &entry(company, "u1", None))?;
                mark_held(tx, held, Some("11"), "refused")?;
                let read = get(tx, held)?.unwrap();
                assert_eq!((read.status, read.document_id, read.attempts), (Status::Held, None, 1));
                assert!(read.status.is_refused());
                mark_reissued(tx, held)?;
                assert_eq!(status(tx, held), Status::Reissued);
                mark_held(tx, held, None, "again")?;
                assert_eq!(status(tx, held), Status::Reissued, "only a first call is held");
                let refused = enqueue(tx, &entry(company, "u2", None))?;
                mark_rejected(tx, refused, None, "no")?;
                assert!(resend(tx, refused, None, "2026-11-24T08:00:00Z")?);
                assert_eq!(get(tx, refused)?.unwrap().subseq_deliv_type.as_deref(), Some("TECHNICALERROR"));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_first_call_cut_short_by_a_stop_goes_to_the_worker_at_once_and_a_dropped_entry_is_gone() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let company = fixtures::company(tx, "L1");
                let cut = enqueue(tx, &entry(company, "u1", None))?;
                let late = enqueue(tx, &entry(company, "u2", Some("NOINTERNET")))?;
                assert_eq!(release_interrupted(tx, "2026-11-24T08:00:00Z")?, 1);
                let read = get(tx, cut)?.unwrap();
                assert_eq!(
                    (read.status, read.subseq_deliv_type.as_deref()),
                    (Status::Waiting, Some("TECHNICALERROR"))
                );
                assert_eq!(read.next_attempt_at, "2026-11-24T08:00:00Z");
                assert_eq!(get(tx, late)?.unwrap().subseq_deliv_type.as_deref(), Some("NOINTERNET"));
                assert_eq!(release_interrupted(tx, "2026-11-24T09:00:00Z")?, 0);
                delete(tx, cut)?;
                assert!(get(tx, cut)?.is_none());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn kinds_and_statuses_are_stored_as_their_words_and_other_words_fail_the_read() {
        for d in [Document::Invoice, Document::CashAction, Document::Einvoice, Document::Wtn] {
            assert_eq!(Document::parse(d.as_str()), Some(d));
        }
        assert_eq!(Document::parse("order"), None);
        let (_dir, store) = store();
        let read = store.write_blocking(|tx| -> Result<_> {
            let company = fixtures::company(tx, "L1");
            let id = enqueue(tx, &entry(company, "u1", None))?;
            tx.execute("UPDATE fiscal_queue SET status = 'lost' WHERE id = ?1", [id])?;
            get(tx, id)
        });
        assert!(matches!(read, Err(Error::Sqlite(_))), "{read:?}");
    }

    /// A signed cash sale's request of the seller at `address`, as this program writes one.
    fn signed_request(address: &str, number: u32) -> String {
        format!(
            "<RegisterInvoiceRequest><Header UUID=\"u-{number}\"></Header><Invoice IIC=\"00\" IICSignature=\"{}\" \
             InvOrdNum=\"{number}\"><Seller Address=\"{address}\" IDNum=\"L1\" Name=\"Dyqani\"></Seller></Invoice>\
             </RegisterInvoiceRequest>",
            format!("{number:02X}").repeat(256)
        )
    }

    #[test]
    fn each_seller_of_a_company_gets_one_dictionary_and_every_entry_reads_back() {
        let (_dir, store) = store();
        store
            .write_blocking(|tx| -> Result<_> {
                let company = fixtures::company(tx, "L1");
                // Two units at two addresses selling in turn, then the first unit moves.
                let addresses =
                    ["Rruga A 1", "Rruga B 2", "Rruga A 1", "Rruga B 2", "Rruga C 3", "Rruga A 1"];
                let mut kept = Vec::new();
                for (n, address) in (10..).zip(addresses) {
                    let request = signed_request(address, n);
                    let uuid = format!("u-{n}");
                    let id = enqueue(
                        tx,
                        &NewQueued { unsigned_request: &request, ..entry(company, &uuid, None) },
                    )?;
                    kept.push((id, request));
                }
                let dictionaries: i64 =
                    tx.query_row("SELECT COUNT(*) AS n FROM kept_dictionaries", [], |r| r.get("n"))?;
                assert_eq!(dictionaries, 3, "one a seller, not one a change of seller");
                let named: Vec<Option<i64>> = kept
                    .iter()
                    .map(|(id, _)| {
                        tx.query_row(
                            "SELECT arka_kept_dictionary(unsigned_request) AS named FROM fiscal_queue WHERE id = ?1",
                            [id],
                            |r| r.get("named"),
                        )
                    })
                    .collect::<rusqlite::Result<_>>()?;
                assert_eq!(named, [Some(1), Some(2), Some(1), Some(2), Some(3), Some(1)]);
                for (id, request) in &kept {
                    assert_eq!(&get(tx, *id)?.unwrap().unsigned_request, request);
                }
                let from_page: Vec<String> =
                    page(tx, 0, 10)?.into_iter().map(|q| q.unsigned_request).collect();
                assert_eq!(from_page, kept.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>());
                Ok(())
            })
            .unwrap();
    }
}
