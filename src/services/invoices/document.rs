//! An invoice as a document of the pipeline: numbered in its till's or its business's sequence,
//! admitted once per internalId and year, written with the day's automatic opening when it is
//! a till's first document of the day.

use rusqlite::Connection;

use super::super::cash_register::{automatic_opening, open_day_if_needed};
use super::super::pipeline::{Ahead, Document, InternalId, Issuer, QueuePlan, Written};
use super::super::sequence::Sequence;
use super::super::stock::{self, Goods, GoodsLine, NoteLink};
use super::super::{Error, Held, Result};
use super::content::{InvoiceDocument, Links};
use super::message::{Draft, draft, stored_invoice};
use serde_json::json;

use crate::domain::audit::Action;
use crate::domain::document::DocumentKind;
use crate::fiscal::requests::Operation;
use crate::store::{self, fiscal_queue, invoices as db, tables};

impl InvoiceDocument {
    fn internal_id(&self) -> InternalId {
        super::content::internal_id(&self.issuer.caller, self.year, &self.content.internal_id)
    }

    /// The sale takes its lines off the issuing unit's shelf (`services::stock`).
    /// The shelf follows the document in its own transaction: a sale or an order takes its
    /// articles from the issuing unit (what the note it names did not carry), a cancellation
    /// puts back on the original's unit (or on the original's note) what it reverses, and a
    /// summary moves nothing (its orders took the goods).
    fn move_stock(&self, tx: &Connection, invoice: &db::Invoice) -> Result<()> {
        let Some(unit) = &self.issuer.caller.unit else {
            return Ok(());
        };
        let lines: Vec<GoodsLine> = invoice
            .lines
            .iter()
            .map(|l| GoodsLine { code: l.product_code.clone(), quantity: l.quantity.abs() })
            .collect();
        let goods = |business_unit_id: i64| Goods {
            company_id: invoice.company_id,
            user_id: invoice.user_id,
            document: (fiscal_queue::Document::Invoice, invoice.id),
            business_unit_id,
            unit_name: &unit.name,
            to_unit: None,
            lines: &lines,
            lines_field: "lines",
            note: None,
        };
        match &self.content.links {
            Links::None | Links::ForTable(_) => {
                let note = invoice.wtn_id.map(|wtn_id| NoteLink { wtn_id, sale_id: invoice.id });
                stock::take(tx, &Goods { note, ..goods(unit.id) })
            }
            Links::Settles { .. } => Ok(()),
            Links::Reverses { original_id, .. } => {
                let original = db::get(tx, invoice.company_id, *original_id)?;
                let from = original.as_ref().and_then(|o| o.business_unit_id).unwrap_or(unit.id);
                let note =
                    original.and_then(|o| o.wtn_id).map(|wtn_id| NoteLink { wtn_id, sale_id: *original_id });
                stock::give_back(tx, &Goods { note, ..goods(from) })?;
                Ok(())
            }
        }
    }
}

impl Document for InvoiceDocument {
    type Stored = db::Invoice;
    type Draft = Draft;
    const OPERATION: Operation = Operation::RegisterInvoice;
    const QUEUED_AS: fiscal_queue::Document = fiscal_queue::Document::Invoice;

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
        match &self.content.links {
            Links::Reverses { original_id, .. } => {
                (format!("cancel:{}:{original_id}", self.company_id()), Error::Busy(Held::Cancellation))
            }
            _ => {
                let internal_id = self.internal_id();
                (internal_id.in_flight_key(), internal_id.being_issued())
            }
        }
    }

    fn metrics_kind(&self) -> &'static str {
        if self.content.einvoice.is_some() {
            return "einvoice";
        }
        match self.content.document_kind {
            DocumentKind::Cash => "cash_invoice",
            DocumentKind::NonCash => "noncash_invoice",
            DocumentKind::Order => "order_invoice",
            DocumentKind::Summary => "summary_invoice",
            DocumentKind::Corrective => "corrective_invoice",
        }
    }

    fn kept_when_not_delivered(&self) -> bool {
        match self.content.document_kind {
            // A receipt, an order slip or a refund is handed over at once: it waits for the CIS.
            DocumentKind::Cash | DocumentKind::Order | DocumentKind::Corrective => true,
            // A non-cash invoice and a summary are issued again with the same internalId.
            DocumentKind::NonCash | DocumentKind::Summary => false,
        }
    }

    fn not_saved(&self) -> &'static str {
        "The fiscalization service (CIS) is not reachable; the invoice was not saved. Retry with the same internalId."
    }

    fn admit(&self, tx: &Connection) -> Result<()> {
        let company_id = self.company_id();
        self.internal_id().admit(tx)?;
        match &self.content.links {
            Links::None | Links::ForTable(_) => {
                if let Some(note) = &self.content.wtn {
                    stock::check_note(tx, company_id, note)?;
                }
            }
            Links::Settles { orders, parts } => {
                let mut closed = Vec::new();
                for (index, order) in orders.iter().enumerate() {
                    let found = db::get(tx, company_id, order.id)?;
                    let still_open =
                        found.as_ref().is_some_and(|o| o.settled_by.is_none() && o.reversed_at.is_none());
                    if !still_open {
                        closed.push(format!(
                            "order_invoices.{index}: the order {} is already settled.",
                            order.iic
                        ));
                        continue;
                    }
                    // Another summary may have paid some of the same lines since they were read.
                    let paid = tables::paid_by_position(tx, order.id)?;
                    let lines = found.map(|o| o.lines).unwrap_or_default();
                    for part in parts.iter().filter(|p| p.order_id == order.id) {
                        let quantity = usize::try_from(part.position)
                            .ok()
                            .and_then(|p| lines.get(p))
                            .map(|l| l.quantity);
                        let left = quantity.unwrap_or_default()
                            - paid.get(&part.position).copied().unwrap_or_default();
                        if part.quantity > left {
                            closed.push(format!(
                                "order_invoices.{index}: line {} of the order {} has {} left to pay.",
                                part.position,
                                order.iic,
                                left.normalize()
                            ));
                        }
                    }
                }
                if !closed.is_empty() {
                    return Err(Error::Incomplete {
                        message: "An order invoice is not open.".into(),
                        errors: closed,
                    });
                }
            }
            Links::Reverses { original_id, corrections_seen, .. } => {
                if db::corrective_count(tx, *original_id)? != *corrections_seen {
                    return Err(Error::Clash(crate::services::Clash::CancelledMeanwhile));
                }
                if tables::partly_paid(tx, *original_id)? {
                    return Err(crate::domain::validation::FieldErrors::one(
                        "invoice",
                        super::cancel::PARTLY_PAID,
                    )
                    .into());
                }
            }
        }
        Ok(())
    }

    fn draft(&self, ord_num: u32, plan: &QueuePlan) -> Result<Draft> {
        draft(&self.issuer, &self.content, self.sequence.tcr_code(), ord_num, self.year, plan.at)
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
    ) -> Result<Written<db::Invoice>> {
        let tcr_code = self.sequence.tcr_code();
        let mut invoice =
            stored_invoice(&self.issuer, &self.content, tcr_code, &draft, (ord_num, self.year), plan.at);
        invoice.id = db::insert_registered(tx, &invoice, &draft.unsigned_request)?;
        self.move_stock(tx, &invoice)?;
        // A till's document belongs to its TCR's open day; on a day that is not open it opens
        // it first with an INITIAL of 0, queued (and sent) ahead of it.
        let ahead = match tcr_code {
            Some(tcr) => {
                let till = (self.company_id(), tcr, plan.at);
                open_day_if_needed(tx, invoice.id, till, || {
                    automatic_opening(&self.issuer.caller, tcr, plan)
                })?
            }
            None => None,
        };
        match &self.content.links {
            Links::None => {}
            Links::ForTable(name) => tables::name_table(tx, invoice.id, name)?,
            Links::Settles { parts, .. } => {
                tables::pay_parts(tx, invoice.id, parts)?;
            }
            Links::Reverses { original_id, positions, .. } => {
                db::refresh_reversal(tx, *original_id)?;
                let entry =
                    crate::services::audit::by(&self.issuer.caller, Action::InvoiceCancel, original_id)
                        .before(json!({ "iic": invoice.original_invoice_iic }))
                        .after(json!({
                            "corrective": invoice.number,
                            "total": invoice.totals.total.to_string(),
                            "lines": positions,
                        }));
                crate::store::audit::append(tx, &entry)?;
            }
        }
        if let Some(owner) = &self.test_sale_by {
            let entry = crate::services::audit::by(owner, Action::TestSale, invoice.id).after(json!({
                "cashier": self.issuer.caller.user.id,
                "number": invoice.number,
                "total": invoice.totals.total.to_string(),
            }));
            crate::store::audit::append(tx, &entry)?;
        }
        if let Some(original_id) = self.content.corrects {
            let entry = crate::services::audit::by(&self.issuer.caller, Action::InvoiceCorrect, original_id)
                .before(json!({ "iic": invoice.original_invoice_iic }))
                .after(json!({
                    "number": invoice.number,
                    "doc_type": invoice.doc_type,
                    "total": invoice.totals.total.to_string(),
                }));
            crate::store::audit::append(tx, &entry)?;
        }
        if let Some(process) = self.content.einvoice {
            crate::store::einvoices::insert(tx, self.company_id(), invoice.id, process.as_str())?;
        }
        Ok(Written {
            document_id: invoice.id,
            number: invoice.number.clone(),
            header_uuid: invoice.header_uuid.clone(),
            issued_at: invoice.issued_at.clone(),
            unsigned_request: draft.unsigned_request,
            ahead: ahead.map(|saved| Box::new(saved) as Box<dyn Ahead>),
            stored: invoice,
        })
    }

    fn forget(tx: &Connection, document_id: i64) -> store::Result<()> {
        stock::forget(tx, fiscal_queue::Document::Invoice, document_id)?;
        db::reopen_orders(tx, document_id)?;
        tables::forget_parts(tx, document_id)?;
        let original = db::original_of(tx, document_id)?;
        db::delete(tx, document_id)?;
        match original {
            Some(original_id) => db::refresh_reversal(tx, original_id),
            None => Ok(()),
        }
    }

    fn registered(mut stored: db::Invoice, code: String) -> db::Invoice {
        stored.fic = Some(code);
        stored
    }
}
