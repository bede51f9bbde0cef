//! The durable queue of documents waiting for the CIS (subsequent delivery).

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{Connection, Row, named_params};

use super::{Result, now_text};

/// Which table a queued document lives in (the queue's `document_kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Document {
    /// A row of `invoices`: any invoice kind, order, summary or corrective document.
    Invoice,
    /// A row of `cash_actions`.
    CashAction,
    /// The e-invoice registration (RegisterEinvoiceRequest) of a fiscalized row of `invoices`.
    Einvoice,
    /// A row of `wtns`: a warehouse transfer note.
    Wtn,
}

impl Document {
    pub fn as_str(self) -> &'static str {
        match self {
            Document::Invoice => "invoice",
            Document::CashAction => "cash_action",
            Document::Einvoice => "einvoice",
            Document::Wtn => "wtn",
        }
    }

    pub fn parse(text: &str) -> Option<Document> {
        [Document::Invoice, Document::CashAction, Document::Einvoice, Document::Wtn]
            .into_iter()
            .find(|d| d.as_str() == text)
    }
}

impl ToSql for Document {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Document {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        Document::parse(text)
            .ok_or_else(|| FromSqlError::Other(format!("unknown document kind {text}").into()))
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
    pub status: String,
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
    Ok(Queued {
        id: r.get(0)?,
        company_id: r.get(1)?,
        operation: r.get(2)?,
        document: r.get(3)?,
        document_id: r.get(4)?,
        document_number: r.get(5)?,
        tcr_code: r.get(6)?,
        header_uuid: r.get(7)?,
        issued_at: r.get(8)?,
        unsigned_request: r.get(9)?,
        subseq_deliv_type: r.get(10)?,
        status: r.get(11)?,
        attempts: r.get(12)?,
        next_attempt_at: r.get(13)?,
        last_error: r.get(14)?,
        fault_code: r.get(15)?,
        result_code: r.get(16)?,
        created_at: r.get(17)?,
    })
}

pub fn enqueue(conn: &Connection, q: &NewQueued) -> Result<i64> {
    conn.execute(
        "INSERT INTO fiscal_queue (company_id, operation, document_kind, document_id, document_number, tcr_code,
             header_uuid, issued_at, unsigned_request, subseq_deliv_type, next_attempt_at, last_error, created_at)
         VALUES (:company, :op, :kind, :doc, :number, :tcr, :uuid, :issued, :request, :subseq, :next, :error, :now)",
        named_params! {
            ":company": q.company_id, ":op": q.operation, ":kind": q.document, ":doc": q.document_id,
            ":number": q.document_number, ":tcr": q.tcr_code, ":uuid": q.header_uuid, ":issued": q.issued_at,
            ":request": q.unsigned_request, ":subseq": q.subseq_deliv_type, ":next": q.next_attempt_at,
            ":error": q.last_error, ":now": now_text(),
        },
    )?;
    Ok(conn.last_insert_rowid())
}

/// Every waiting document, oldest first (the worker keeps per-TCR order from this).
pub fn waiting(conn: &Connection, limit: i64) -> Result<Vec<Queued>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM fiscal_queue WHERE status = 'waiting' ORDER BY id LIMIT :limit"
    ))?;
    let rows = stmt.query_map(named_params! {":limit": limit}, queued_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// What waits and what the CIS refused, oldest first: for `arka queue` and GET /account.
pub fn open_items(conn: &Connection, company_id: Option<i64>) -> Result<Vec<Queued>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM fiscal_queue
         WHERE status IN ('waiting', 'rejected') AND (:company IS NULL OR company_id = :company)
         ORDER BY id"
    ))?;
    let rows = stmt.query_map(named_params! {":company": company_id}, queued_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<Queued>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM fiscal_queue WHERE id = :id"),
            named_params! {":id": id},
            queued_from,
        )
        .optional()?)
}

/// A failed attempt: the document stays waiting until `next_attempt_at`.
pub fn record_failure(
    conn: &Connection,
    id: i64,
    subseq_deliv_type: &str,
    next_attempt_at: &str,
    error: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE fiscal_queue SET attempts = attempts + 1, subseq_deliv_type = COALESCE(subseq_deliv_type, :subseq),
             next_attempt_at = :next, last_error = :error
         WHERE id = :id AND status = 'waiting'",
        named_params! {":id": id, ":subseq": subseq_deliv_type, ":next": next_attempt_at, ":error": error},
    )?;
    Ok(())
}

/// The CIS accepted the document; returns false when it was no longer waiting.
pub fn mark_delivered(conn: &Connection, id: i64, result_code: &str) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE fiscal_queue SET status = 'delivered', attempts = attempts + 1, result_code = :code,
             delivered_at = :now, last_error = NULL
         WHERE id = :id AND status = 'waiting'",
        named_params! {":id": id, ":code": result_code, ":now": now_text()},
    )?;
    Ok(changed == 1)
}

/// The CIS refused the document: kept with its reason and never retried.
pub fn mark_rejected(conn: &Connection, id: i64, fault_code: Option<&str>, reason: &str) -> Result<()> {
    conn.execute(
        "UPDATE fiscal_queue SET status = 'rejected', attempts = attempts + 1, fault_code = :code, last_error = :reason
         WHERE id = :id AND status = 'waiting'",
        named_params! {":id": id, ":code": fault_code, ":reason": reason},
    )?;
    Ok(())
}

/// The CIS is back: documents waiting as late deliveries are due now, whatever their backoff.
/// Entries still within their first call (no late-delivery type yet) are left alone.
pub fn make_due(conn: &Connection, now: &str) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE fiscal_queue SET next_attempt_at = :now
         WHERE status = 'waiting' AND subseq_deliv_type IS NOT NULL",
        named_params! {":now": now},
    )?)
}

/// The owner's re-send of a document the CIS refused: it waits again, due now, as a late
/// delivery (TECHNICALERROR when it never had a type: it was refused on its first call).
/// Returns false when no refused entry has this id.
pub fn resend(conn: &Connection, id: i64, now: &str) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE fiscal_queue SET status = 'waiting', next_attempt_at = :now, fault_code = NULL,
             subseq_deliv_type = COALESCE(subseq_deliv_type, 'TECHNICALERROR'),
             last_error = 'sent again by the owner after: ' || COALESCE(last_error, '')
         WHERE id = :id AND status = 'rejected'",
        named_params! {":id": id, ":now": now},
    )?;
    Ok(changed == 1)
}

/// Drops the queue entry of a document that is not kept (refused, or never to be delivered).
pub fn delete_for_document(conn: &Connection, kind: Document, document_id: i64) -> Result<()> {
    conn.execute(
        "DELETE FROM fiscal_queue WHERE document_kind = :kind AND document_id = :id",
        named_params! {":kind": kind, ":id": document_id},
    )?;
    Ok(())
}
