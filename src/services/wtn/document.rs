//! A warehouse transfer note as a document of the pipeline: numbered in its business unit's
//! sequence of the year, admitted once per internalId and year, written with the stock it
//! moves, kept and queued when the CIS cannot take it.

use rusqlite::Connection;

use super::super::pipeline::{Document, InternalId, Issuer, Namespace, QueuePlan, Written};
use super::super::sequence::Sequence;
use super::super::stock::{self, Goods, GoodsLine};
use super::super::{Error, Result};
use super::message::{Content, Draft, draft, stored};
use crate::fiscal::requests::Operation;
use crate::store::{self, fiscal_queue, wtn as db};

/// A note on its way through the pipeline.
pub struct WtnDocument {
    pub issuer: Issuer,
    pub content: Content,
    pub sequence: Sequence,
    pub year: i32,
    /// The in-flight key of a note without an internalId (v1): one of its own.
    pub request_key: String,
}

impl WtnDocument {
    /// `value` as a note's internalId of this company and year.
    fn keyed(&self, value: &str) -> InternalId {
        InternalId {
            namespace: Namespace::Wtn,
            company_id: self.company_id(),
            year: self.year,
            value: value.to_string(),
        }
    }

    fn unit(&self) -> (i64, &str) {
        match &self.issuer.caller.unit {
            Some(unit) => (unit.id, unit.name.as_str()),
            None => (0, ""),
        }
    }
}

impl Document for WtnDocument {
    type Stored = db::Wtn;
    type Draft = Draft;
    const OPERATION: Operation = Operation::RegisterWtn;
    const QUEUED_AS: fiscal_queue::Document = fiscal_queue::Document::Wtn;

    fn issuer(&self) -> &Issuer {
        &self.issuer
    }

    fn year(&self) -> i32 {
        self.year
    }

    fn sequence(&self) -> &Sequence {
        &self.sequence
    }

    fn in_flight(&self) -> (String, Error) {
        let key = self.keyed(self.content.internal_id.as_deref().unwrap_or(&self.request_key));
        (key.in_flight_key(), key.being_issued())
    }

    fn kept_when_not_delivered(&self) -> bool {
        // The goods leave with the printed note; the CIS gets it later (subsequent delivery).
        true
    }

    fn not_saved(&self) -> &'static str {
        "The fiscalization service (CIS) is not reachable; the note was not saved."
    }

    fn admit(&self, tx: &Connection) -> Result<()> {
        match &self.content.internal_id {
            Some(internal_id) => self.keyed(internal_id).admit(tx),
            None => Ok(()),
        }
    }

    fn draft(&self, ord_num: u32, plan: &QueuePlan) -> Result<Draft> {
        draft(&self.issuer, &self.content.note, ord_num, self.year, plan.at)
    }

    fn request(draft: &Draft) -> &str {
        &draft.unsigned_request
    }

    fn write(
        &self,
        tx: &Connection,
        ord_num: u32,
        plan: &QueuePlan,
        draft: Draft,
    ) -> Result<Written<db::Wtn>> {
        let mut note = stored(&self.issuer, &self.content, &draft, (ord_num, self.year), plan.at);
        note.id = db::insert(tx, &note)?;
        let lines: Vec<GoodsLine> = note
            .lines
            .iter()
            .filter_map(|l| {
                l.code.as_ref().map(|code| GoodsLine { code: code.clone(), quantity: l.quantity })
            })
            .collect();
        let (unit_id, unit_name) = self.unit();
        let goods = Goods {
            company_id: note.company_id,
            user_id: note.user_id,
            document: (fiscal_queue::Document::Wtn, note.id),
            business_unit_id: unit_id,
            unit_name,
            to_unit: self.content.destination_unit_id,
            lines: &lines,
            lines_field: "invoice_lines",
            note: None,
        };
        stock::take(tx, &goods)?;
        Ok(Written {
            document_id: note.id,
            number: note.number.clone(),
            header_uuid: note.header_uuid.clone(),
            issued_at: note.issued_at.to_rfc3339(),
            unsigned_request: draft.unsigned_request,
            ahead: None,
            stored: note,
        })
    }

    fn forget(tx: &Connection, document_id: i64) -> store::Result<()> {
        stock::forget(tx, fiscal_queue::Document::Wtn, document_id)?;
        db::delete(tx, document_id)
    }

    fn registered(mut stored: db::Wtn, code: String) -> db::Wtn {
        stored.fwtnic = Some(code);
        stored
    }
}
