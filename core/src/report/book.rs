//! What a report reads of one stored document: its figures in lek, its sales-book entry, what a
//! reversal takes back, how a day's report and its drawer read it. Over the invoice model, so
//! the shop and the head office read a document alike.

use std::collections::HashMap;

use rust_decimal::Decimal;

use super::model::{BookEntry, BookRate};
use super::summing::stored_time;
use crate::domain::day_book::DayDocument;
use crate::domain::document::DocumentKind;
use crate::domain::drawer::TillDocument;
use crate::domain::report::{self, DocumentInput, Figures, LineInput, ReportKind};
use crate::invoice::Invoice;

/// What the document is in reports (a corrective document by what it reverses: `original`, its
/// original's kind). An e-invoice is one with a UBL process, whether or not the platform has
/// answered with its EIC yet.
pub fn kind_of(invoice: &Invoice, original: Option<DocumentKind>) -> ReportKind {
    ReportKind::of(invoice.document_kind, original, invoice.process.is_some())
}

/// The document's figures, as reports count them.
pub fn figures_of(invoice: &Invoice) -> Figures {
    let lines: Vec<LineInput> = invoice
        .lines
        .iter()
        .map(|l| LineInput {
            quantity: l.quantity,
            net: l.net,
            vat: l.vat,
            discount: l.discount,
            vat_rate: l.vat_rate,
            exemption: l.exemption.clone(),
        })
        .collect();
    let payments: Vec<Decimal> = invoice.payments.iter().map(|p| p.amount).collect();
    report::figures(&DocumentInput {
        currency: &invoice.currency,
        exchange_rate: invoice.exchange_rate,
        fee: invoice.totals.fee,
        invoice_discount: invoice.totals.discount,
        lines: &lines,
        payments: &payments,
    })
}

/// A sales-book row: the document's lines by VAT rate, in lek.
pub fn book_entry(invoice: &Invoice, kind: ReportKind) -> BookEntry {
    let f = figures_of(invoice);
    BookEntry {
        id: invoice.id,
        number: invoice.number.clone(),
        invoice_type: invoice.kind.as_str(),
        kind: kind.as_str(),
        issue_date: invoice.issue_date.clone(),
        issued_at: stored_time(&invoice.issued_at),
        buyer_name: invoice.buyer.name.clone(),
        buyer_id_type: invoice.buyer.id_type.clone(),
        buyer_id: invoice.buyer.id_value.clone(),
        currency: invoice.currency.clone(),
        exchange_rate: invoice.exchange_rate,
        waiting: invoice.fic.is_none(),
        rates: f
            .classes
            .iter()
            .map(|c| BookRate {
                vat_rate: c.vat_rate,
                exemption: c.exemption.clone(),
                taxable_base: c.amounts.net,
                vat: c.amounts.vat,
            })
            .collect(),
        taxable_base: f.lek.net,
        vat: f.lek.vat,
        gross: f.lek.gross,
    }
}

/// What a reversal takes back of the period's sales, in lek: a corrective document's gross
/// (negative already); a credit note's, which carries the amounts it credits as positive ones.
pub fn taken_back(invoice: &Invoice) -> Decimal {
    let gross = figures_of(invoice).lek.gross;
    if invoice.document_kind == DocumentKind::Corrective { gross } else { -gross.abs() }
}

/// A cash document as a day's report reads it: paid how, by VAT class in lek, by whom, and for a
/// corrective document the number of what it cancels (`numbers`: the originals' by id). The
/// shop's and the head office's alike.
pub fn day_document(invoice: &Invoice, numbers: &HashMap<i64, String>) -> DayDocument {
    let figures = figures_of(invoice);
    DayDocument {
        number: invoice.number.clone(),
        user_id: invoice.user_id,
        operator_code: invoice.operator_code.clone(),
        waiting: invoice.fic.is_none(),
        corrects: invoice.original_invoice_id.and_then(|id| numbers.get(&id).cloned()),
        paid: till_document(invoice),
        gross: figures.lek.gross,
        classes: figures.classes,
    }
}

/// How a cash document paid, as the drawer reads it.
pub fn till_document(invoice: &Invoice) -> TillDocument {
    TillDocument {
        corrective: invoice.document_kind == DocumentKind::Corrective,
        self_issued: invoice.self_issue_type.is_some(),
        foreign: invoice.currency != "ALL",
        exchange_rate: invoice.exchange_rate,
        payments: invoice.payments.iter().map(|p| (p.kind.as_str().to_string(), p.amount)).collect(),
    }
}
