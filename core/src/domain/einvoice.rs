//! The e-invoice's own rules: its document type (UNCL 1001), its business process (the UBL
//! profile P1..P12 of the EN 16931 CIUS the platform follows, PROTOCOL.md section 4.5) and what
//! each needs. Everything else an e-invoice must satisfy is the non-cash invoice's rules.

use super::spelled::{Spelled, spelled};
use super::validation::FieldErrors;

spelled! {
    /// `doc_type`: what the document is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum DocType {
        /// 380, a commercial invoice.
        Invoice = "380",
        /// 381, a credit note (a UBL CreditNote).
        CreditNote = "381",
        /// 383, a debit note.
        DebitNote = "383",
    }
}

spelled! {
    /// `process`: the business process the e-invoice belongs to (`cbc:ProfileID`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Process {
        P1 = "P1",
        P2 = "P2",
        P3 = "P3",
        P4 = "P4",
        P5 = "P5",
        P6 = "P6",
        P7 = "P7",
        P8 = "P8",
        P9 = "P9",
        P10 = "P10",
        P11 = "P11",
        P12 = "P12",
    }
}

impl Process {
    /// What the process is, as the docs list it ("E-invoices").
    pub fn meaning(self) -> &'static str {
        match self {
            Process::P1 => "invoicing the supply of goods and services ordered on a contract basis",
            Process::P2 => "periodic invoicing of contract-based delivery",
            Process::P3 => "invoicing delivery over an unforeseen order",
            Process::P4 => "advance payment",
            Process::P5 => "invoicing on the spot (payment on delivery)",
            Process::P6 => "payment before delivery, on an order",
            Process::P7 => "invoices with references to a dispatch note",
            Process::P8 => "invoices with references to a dispatch note and a receipt",
            Process::P9 => "approval or negative invoicing: credit notes",
            Process::P10 => "corrective invoicing",
            Process::P11 => "partial and final invoicing",
            Process::P12 => "self-billing",
        }
    }

    /// A correction of an earlier invoice: it names that invoice's IIC.
    pub fn corrects(self) -> bool {
        matches!(self, Process::P9 | Process::P10)
    }
}

/// What an e-invoice body says beyond the non-cash invoice, as sent.
#[derive(Debug, Clone, Default)]
pub struct Terms<'a> {
    pub doc_type: Option<&'a str>,
    pub process: Option<&'a str>,
    pub original_invoice_iic: Option<&'a str>,
    pub due_date: Option<&'a str>,
    /// Whether a payment asks the buyer to pay into an account (ACCOUNT or TRANSFER).
    pub paid_into_account: bool,
    pub bank_account_id: Option<i64>,
}

/// The e-invoice's type and process, or every field that is wrong with them.
pub fn check(terms: &Terms) -> Result<(DocType, Process), FieldErrors> {
    let mut errors = FieldErrors::new();
    let doc_type = match terms.doc_type.map(str::trim).filter(|t| !t.is_empty()) {
        None => {
            errors.add("doc_type", "The doc_type field is required: 380, 381 or 383.");
            None
        }
        Some(text) => DocType::parse(text).or_else(|| {
            errors.add("doc_type", "The doc_type must be one of 380, 381, 383.");
            None
        }),
    };
    let process = match terms.process.map(str::trim).filter(|p| !p.is_empty()) {
        None => {
            errors.add("process", "The process field is required: P1 to P12.");
            None
        }
        Some(text) => Process::parse_any_case(text).or_else(|| {
            errors.add("process", "The process must be one of P1 to P12.");
            None
        }),
    };
    if doc_type == Some(DocType::CreditNote) && process.is_some_and(|p| !p.corrects()) {
        errors.add("process", "A credit note (381) belongs to process P9 or P10.");
    }
    let has_original = terms.original_invoice_iic.is_some_and(|iic| !iic.trim().is_empty());
    let correction = doc_type == Some(DocType::CreditNote) || process.is_some_and(Process::corrects);
    if correction && !has_original {
        errors.add("original_invoice_iic", "A correction (381, P9 or P10) needs original_invoice_iic.");
    }
    let due_needed = doc_type.is_some_and(|t| t != DocType::CreditNote);
    if due_needed && terms.due_date.is_none_or(|d| d.trim().is_empty()) {
        errors.add("due_date", "The due_date field is required on an e-invoice (380, 383).");
    }
    if terms.paid_into_account && terms.bank_account_id.is_none() {
        errors.add("bank_account_id", "A payment into an account (ACCOUNT, TRANSFER) needs bank_account_id.");
    }
    match (doc_type, process) {
        (Some(doc_type), Some(process)) if errors.is_empty() => Ok((doc_type, process)),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms<'a>(doc_type: &'a str, process: &'a str, original: Option<&'a str>) -> Terms<'a> {
        Terms {
            doc_type: Some(doc_type),
            process: Some(process),
            original_invoice_iic: original,
            due_date: Some("2026-04-01"),
            paid_into_account: false,
            bank_account_id: None,
        }
    }

    fn fields(result: Result<(DocType, Process), FieldErrors>) -> Vec<String> {
        result.err().map(|e| e.into_map().into_keys().collect()).unwrap_or_default()
    }

    #[test]
    fn each_document_type_and_process_and_what_they_need() {
        let iic = Some("D04C13B4063D63A13B5D822A90178A7C");
        // | doc_type | process | original | verdict                       |
        assert_eq!(check(&terms("380", "P1", None)).unwrap(), (DocType::Invoice, Process::P1));
        assert_eq!(check(&terms("383", "p11", None)).unwrap(), (DocType::DebitNote, Process::P11));
        assert_eq!(check(&terms("381", "P9", iic)).unwrap(), (DocType::CreditNote, Process::P9));
        assert_eq!(check(&terms("381", "P10", iic)).unwrap(), (DocType::CreditNote, Process::P10));
        assert_eq!(check(&terms("380", "P10", iic)).unwrap(), (DocType::Invoice, Process::P10));
        assert_eq!(fields(check(&terms("381", "P1", iic))), ["process"]);
        assert_eq!(fields(check(&terms("381", "P9", None))), ["original_invoice_iic"]);
        assert_eq!(fields(check(&terms("380", "P9", None))), ["original_invoice_iic"]);
        assert_eq!(fields(check(&terms("382", "P13", None))), ["doc_type", "process"]);
        assert_eq!(fields(check(&Terms::default())), ["doc_type", "process"]);
    }

    #[test]
    fn an_invoice_needs_its_due_date_and_an_account_to_be_paid_into() {
        let no_due = Terms { due_date: None, ..terms("380", "P1", None) };
        assert_eq!(fields(check(&no_due)), ["due_date"]);
        let credit_note = Terms { due_date: None, ..terms("381", "P9", Some("X")) };
        assert!(check(&credit_note).is_ok(), "a credit note is paid back, it has no due date");
        let on_account = Terms { paid_into_account: true, ..terms("380", "P1", None) };
        assert_eq!(fields(check(&on_account)), ["bank_account_id"]);
        assert!(check(&Terms { bank_account_id: Some(1), ..on_account }).is_ok());
    }

    #[test]
    fn processes_read_back_and_say_what_they_are() {
        for process in Process::ALL {
            assert_eq!(Process::parse(process.as_str()), Some(process));
            assert!(!process.meaning().is_empty());
        }
        assert_eq!(Process::parse("P0"), None);
        assert_eq!(DocType::parse("381").map(DocType::as_str), Some("381"));
        assert_eq!(Process::parse_any_case(" p9 "), Some(Process::P9));
    }
}
