//! An invoice as a document of the pipeline: numbered in its till's or its business's sequence,
//! admitted once per internalId and year, written with the day's automatic opening when it is
//! a till's first document of the day.

use std::sync::Arc;

use rusqlite::Connection;

use super::super::cash_register::{automatic_opening, open_day_if_needed};
use super::super::pipeline::{Document, QueuePlan, Sequence, Written};
use super::super::stock::{self, Goods, GoodsLine};
use super::super::{Error, Result};
use super::content::{Content, Issuer};
use super::message::{draft, stored_invoice};
use crate::domain::document::InvoiceType;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::requests::Operation;
use crate::store::{self, fiscal_queue, invoices as db};

/// An invoice on its way through the pipeline.
pub struct InvoiceDocument {
    pub issuer: Issuer,
    pub content: Content,
    pub sequence: Sequence,
    pub year: i32,
}

impl InvoiceDocument {
    /// The sale takes its lines off the issuing unit's shelf (`services::stock`).
    fn take_stock(&self, tx: &Connection, invoice: &db::Invoice) -> store::Result<Result<()>> {
        let Some(unit) = &self.issuer.caller.unit else {
            return Ok(Ok(()));
        };
        let lines: Vec<GoodsLine> = invoice
            .lines
            .iter()
            .map(|l| GoodsLine { code: l.product_code.clone(), quantity: l.quantity })
            .collect();
        stock::take(
            tx,
            &Goods {
                company_id: invoice.company_id,
                user_id: invoice.user_id,
                document: (fiscal_queue::Document::Invoice, invoice.id),
                business_unit_id: unit.id,
                unit_name: &unit.name,
                to_unit: None,
                lines: &lines,
                lines_field: "lines",
            },
        )
    }
}

impl Document for InvoiceDocument {
    type Stored = db::Invoice;
    const OPERATION: Operation = Operation::RegisterInvoice;
    const QUEUED_AS: fiscal_queue::Document = fiscal_queue::Document::Invoice;

    fn company_id(&self) -> i64 {
        self.issuer.caller.company.id
    }

    fn year(&self) -> i32 {
        self.year
    }

    fn sequence(&self) -> &Sequence {
        &self.sequence
    }

    fn certificate(&self) -> Arc<Certificate> {
        self.issuer.certificate.clone()
    }

    fn in_flight(&self) -> (String, Error) {
        (
            format!("invoice:{}:{}:{}", self.company_id(), self.year, self.content.internal_id),
            Error::Conflict("An invoice with this internalId is being issued.".into()),
        )
    }

    fn metrics_kind(&self) -> &'static str {
        match self.content.invoice_type {
            InvoiceType::Cash => "cash_invoice",
            InvoiceType::NonCash => "noncash_invoice",
        }
    }

    fn kept_when_not_delivered(&self) -> bool {
        // A cash receipt is printed at once and the sale goes on; a non-cash invoice waits.
        self.content.invoice_type == InvoiceType::Cash
    }

    fn not_saved(&self) -> String {
        "The fiscalization service (CIS) is not reachable; the invoice was not saved. Retry with the same internalId."
            .into()
    }

    fn admit(&self, tx: &Connection) -> store::Result<Result<()>> {
        if db::id_by_internal_id(tx, self.company_id(), self.year, &self.content.internal_id)?.is_some() {
            return Ok(Err(Error::Conflict(
                "An invoice with this internalId was already issued this year.".into(),
            )));
        }
        Ok(Ok(()))
    }

    fn write(
        &self,
        tx: &Connection,
        ord_num: u32,
        plan: &QueuePlan,
    ) -> store::Result<Result<Written<db::Invoice>>> {
        let tcr_code = self.sequence.tcr_code();
        let draft = match draft(&self.issuer, &self.content, tcr_code, ord_num, self.year, plan.at) {
            Ok(draft) => draft,
            Err(e) => return Ok(Err(e)),
        };
        let mut invoice =
            stored_invoice(&self.issuer, &self.content, tcr_code, &draft, (ord_num, self.year), plan.at);
        invoice.id = db::insert(tx, &invoice)?;
        if let Err(short) = self.take_stock(tx, &invoice)? {
            // Nothing of a refused sale stays: its row goes in the same transaction.
            db::delete(tx, invoice.id)?;
            return Ok(Err(short));
        }
        // A till's document on a day that is not open opens it first with an INITIAL of 0,
        // queued (and sent) ahead of it.
        let ahead = match tcr_code {
            Some(tcr) => open_day_if_needed(tx, automatic_opening(&self.issuer.caller, tcr, plan))?,
            None => None,
        };
        Ok(Ok(Written {
            document_id: invoice.id,
            number: invoice.number.clone(),
            header_uuid: invoice.header_uuid.clone(),
            issued_at: invoice.issued_at.clone(),
            unsigned_request: draft.unsigned_request,
            ahead,
            stored: invoice,
        }))
    }

    fn forget(tx: &Connection, document_id: i64) -> store::Result<()> {
        stock::forget(tx, fiscal_queue::Document::Invoice, document_id)?;
        db::delete(tx, document_id)
    }

    fn registered(mut stored: db::Invoice, code: String) -> db::Invoice {
        stored.fic = Some(code);
        stored
    }
}
