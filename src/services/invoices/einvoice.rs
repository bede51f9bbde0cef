//! E-invoices: a non-cash invoice fiscalized with `IsEinvoice="true"` (the pipeline, like any
//! invoice), then, with its FIC, written as a signed UBL 2.1 document and registered with the
//! e-invoice platform (RegisterEinvoiceRequest), whose EIC goes on the invoice.
//!
//! The registration is a queued operation of its own (`fiscal_queue::Document::Einvoice`),
//! written with the signed document before the platform is asked: when the platform does not
//! answer, the invoice stays issued with its FIC and the queue's worker registers it later;
//! its settlement (`services::queue`) puts the EIC on the invoice.

use std::sync::Arc;

use chrono::NaiveDate;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::super::pipeline::Issued;
use super::super::{Error, NotNow, Result, Selling};
use super::IssueRequest;
use crate::domain::einvoice::{self as rules, DocType, Process};
use crate::domain::payments::PaymentsInput;
use crate::domain::validation::FieldErrors;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::delivery::Delivery;
use crate::fiscal::model::{GetEinvoices, PlainHeader, RegisterEinvoice};
use crate::fiscal::requests::{self, Operation};
use crate::fiscal::ubl;
use crate::store::accounts::Caller;
use crate::store::einvoices;
use crate::store::fiscal_queue::{self, NewQueued};
use crate::store::invoices::Invoice;

/// The e-invoice platform did not answer the buyer's check (`NotNow::PlatformForBuyer`), said to
/// POS apps.
pub const PLATFORM_FOR_BUYER: &str = "The e-invoice platform could not be reached to check the buyer; nothing was saved. Retry with the same internalId.";

/// What an e-invoice issue came to; both are answered as issued (the invoice has its FIC).
pub enum EinvoiceIssued {
    /// Registered with the platform: the invoice carries its EIC.
    Registered(Invoice),
    /// The platform did not answer: the registration waits in the queue, the EIC follows.
    Queued(Invoice),
}

/// Whether a payment of the body asks the buyer to pay into an account.
fn paid_into_account(payments: &PaymentsInput) -> bool {
    let into_account = |kind: &str| matches!(kind.trim().to_uppercase().as_str(), "ACCOUNT" | "TRANSFER");
    match payments {
        PaymentsInput::V1 { payment_method, .. } => payment_method.as_deref().is_some_and(into_account),
        PaymentsInput::V2 { payment_methods, .. } => {
            payment_methods.iter().flatten().any(|p| p.kind.as_deref().is_some_and(into_account))
        }
    }
}

/// The UBL VAT category of a stored line: its rate, or its exemption.
fn tax_category(rate: Decimal, exemption: Option<&str>) -> ubl::TaxCategory {
    let (id, exemption) = match exemption {
        Some(code @ ("TYPE_1" | "TYPE_2")) => ("E", Some(code.to_string())),
        Some("EXPORT_OF_GOODS") => ("G", None),
        _ if rate > Decimal::ZERO => ("S", None),
        _ => ("Z", None),
    };
    ubl::TaxCategory { id, percent: rate, exemption }
}

/// UNCL 4461 payment means of the CIS's first payment method.
fn payment_means_code(kind: Option<&str>) -> &'static str {
    match kind {
        Some("ACCOUNT" | "TRANSFER") => "30",
        Some("BANKNOTE") => "10",
        Some("CARD") => "48",
        Some("CHECK") => "20",
        _ => "ZZZ",
    }
}

fn day(text: Option<&str>) -> Option<NaiveDate> {
    text.and_then(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
}

/// What the UBL document of a fiscalized invoice says.
pub struct UblFacts<'a> {
    pub caller: &'a Caller,
    pub soft_code: &'a str,
    pub doc_type: DocType,
    pub process: Process,
    pub original: Option<ubl::Original>,
}

/// The UBL document of `invoice` (fiscalized: it has its FIC).
pub fn ubl_document(invoice: &Invoice, facts: &UblFacts) -> Result<ubl::Document> {
    let fic = invoice.fic.clone().ok_or_else(|| Error::Broken("an e-invoice is written after its FIC"))?;
    let company = &facts.caller.company;
    let unit = facts.caller.unit.as_ref();
    let lines: Vec<ubl::Line> = invoice
        .lines
        .iter()
        .map(|l| ubl::Line {
            name: l.product_name.clone(),
            code: l.product_code.clone(),
            quantity: l.quantity,
            unit_code: l.unit_code.clone().unwrap_or_else(|| "C62".to_string()),
            net: l.net,
            price: l.unit_price_net,
            category: tax_category(l.vat_rate, l.exemption.as_deref()),
        })
        .collect();
    let mut subtotals: Vec<ubl::TaxSubtotal> = Vec::new();
    for (line, stored) in lines.iter().zip(&invoice.lines) {
        match subtotals.iter_mut().find(|s| s.category == line.category) {
            Some(group) => {
                group.taxable += line.net;
                group.tax += stored.vat;
            }
            None => subtotals.push(ubl::TaxSubtotal {
                taxable: line.net,
                tax: stored.vat,
                category: line.category.clone(),
            }),
        }
    }
    let account = invoice.bank_account.as_ref();
    let buyer = &invoice.buyer;
    Ok(ubl::Document {
        kind: if facts.doc_type == DocType::CreditNote { ubl::Kind::CreditNote } else { ubl::Kind::Invoice },
        type_code: facts.doc_type.as_str().to_string(),
        profile: facts.process.as_str().to_string(),
        number: invoice.number.clone(),
        issue_date: day(Some(&invoice.issue_date)).ok_or(Error::Unreadable {
            what: "issue date",
            id: invoice.id,
            cause: None,
        })?,
        due_date: day(invoice.due_date.as_deref()),
        codes: ubl::FiscalCodes {
            issue_date_time: invoice.issue_date_time.clone(),
            operator_code: invoice.operator_code.clone().unwrap_or_default(),
            business_unit_code: invoice.business_unit_code.clone().unwrap_or_default(),
            soft_code: facts.soft_code.to_string(),
            iic: invoice.iic.clone(),
            iic_signature: invoice.iic_signature.clone(),
            fic,
        },
        notes: invoice.notes.clone(),
        currency: invoice.currency.clone(),
        period: day(invoice.supply_start_date.as_deref())
            .map(|start| (start, day(invoice.supply_end_date.as_deref()).unwrap_or(start))),
        original: facts.original.clone(),
        supplier: ubl::Party {
            nuis: company.nuis.clone(),
            name: company.name.clone(),
            address: unit.and_then(|u| u.address.clone()).or_else(|| company.address.clone()),
            city: unit.and_then(|u| u.city.clone()).or_else(|| company.city.clone()),
        },
        customer: ubl::Party {
            nuis: buyer.id_value.clone().unwrap_or_default(),
            name: buyer.name.clone().unwrap_or_default(),
            address: buyer.address.clone(),
            city: buyer.city.clone(),
        },
        payment: ubl::PaymentMeans {
            code: payment_means_code(invoice.payments.first().map(|p| p.kind.as_str())),
            iban: account.map(|a| a.iban.clone()),
            account_name: account.map(|a| a.holder.clone()),
            swift: account.and_then(|a| a.swift.clone()),
        },
        fee: invoice.totals.fee,
        subtotals,
        vat_in_lek: (invoice.currency != "ALL").then_some(invoice.totals.vat_all),
        lines,
    })
}

impl Selling<'_> {
    /// Issues an e-invoice: the non-cash invoice's checks and the e-invoice's own, the buyer
    /// looked up in the taxpayer register, fiscalization, then its registration.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn issue_einvoice(
        &self,
        caller: &Caller,
        mut req: IssueRequest,
        process: Option<String>,
    ) -> Result<EinvoiceIssued> {
        let terms = rules::check(&rules::Terms {
            doc_type: req.doc_type.as_deref(),
            process: process.as_deref(),
            original_invoice_iic: req.original_invoice_iic.as_deref(),
            due_date: req.due_date.as_deref(),
            paid_into_account: paid_into_account(&req.rules.payments),
            bank_account_id: req.bank_account_id,
        });
        // Kept as the schema spells it, so that a credit note is one to every reader.
        if let Ok((doc_type, _)) = &terms {
            req.doc_type = Some(doc_type.as_str().to_string());
        }
        let original_iic = req.original_invoice_iic.clone();
        // The e-invoice's own 422s join the invoice's; they come before its 400s.
        let (mut document, (doc_type, process)) = match (self.invoice_document(caller, req).await, terms) {
            (Ok(document), Ok(terms)) => (document, terms),
            (Err(Error::Invalid(mut errors)), Err(more)) => {
                errors.merge(more);
                return Err(Error::Invalid(errors));
            }
            (Err(Error::Incomplete { .. }) | Ok(_), Err(errors)) => return Err(Error::Invalid(errors)),
            (Err(e), _) => return Err(e),
        };
        let original = match original_iic {
            Some(iic) => {
                // A correction process corrects whatever its document type: the credit note's
                // scope and audit (`corrective_of` covers 381 and 383).
                if process.corrects() && document.content.corrects.is_none() {
                    document.content.corrects =
                        Some(self.services.corrections().corrected(caller, &iic).await?.id);
                }
                Some(self.original_of(caller, &iic).await?)
            }
            None => None,
        };
        let buyer_nuis = document.content.buyer.id_value.clone();
        self.buyer_in_register(caller, buyer_nuis).await?;
        document.content.einvoice = Some(process);
        let invoice = match self.services.issue(document).await? {
            Issued::Fiscalized(invoice) => invoice,
            Issued::Deferred(_) => {
                return Err(Error::Broken("an e-invoice is never kept without its FIC"));
            }
        };
        let services = self.services.clone();
        let caller = caller.clone();
        // On a task of its own: a POS that hangs up does not stop the registration half-way.
        tokio::spawn(async move {
            let soft_code = services.gateway.codes().soft_code.clone().unwrap_or_default();
            let facts = UblFacts { caller: &caller, soft_code: &soft_code, doc_type, process, original };
            services.selling().register_einvoice(invoice, &facts).await
        })
        .await?
    }

    /// The company's invoice an e-invoice corrects, by its IIC.
    async fn original_of(&self, caller: &Caller, iic: &str) -> Result<ubl::Original> {
        let company_id = caller.company.id;
        let iic = iic.trim().to_uppercase();
        let found =
            self.services.store.read(move |conn| einvoices::number_by_iic(conn, company_id, &iic)).await?;
        let (number, issue_date) = found.ok_or_else(|| {
            Error::from(FieldErrors::one("original_invoice_iic", "No invoice of the company has this IIC."))
        })?;
        let issue_date = day(Some(&issue_date))
            .ok_or(Error::Broken("the corrected invoice's issue date cannot be read"))?;
        Ok(ubl::Original { number, issue_date })
    }

    /// The buyer must be in the taxpayer register (GetTaxpayers), as client/search looks it up.
    async fn buyer_in_register(&self, caller: &Caller, nuis: Option<String>) -> Result<()> {
        match self.services.onboarding().find_taxpayer(caller, nuis).await {
            Ok(_) => Ok(()),
            Err(Error::NotFound(_)) => Err(FieldErrors::one(
                "client.id",
                "No taxpayer with this NUIS is in the fiscal register: an e-invoice goes to a registered business.",
            )
            .into()),
            Err(Error::Unavailable(_)) => Err(Error::Unavailable(NotNow::PlatformForBuyer)),
            Err(other) => Err(other),
        }
    }

    /// The second step: the signed UBL document and its queued registration, written in one
    /// transaction, then the platform asked.
    async fn register_einvoice(&self, mut invoice: Invoice, facts: &UblFacts<'_>) -> Result<EinvoiceIssued> {
        let certificate: Arc<Certificate> = self.services.signer(invoice.company_id).await?;
        let document = ubl_document(&invoice, facts)?;
        let signed = ubl::signed(&document, &certificate)?;
        let envelope = match document.kind {
            ubl::Kind::Invoice => RegisterEinvoice::UblInvoice(signed.clone().into_bytes()),
            ubl::Kind::CreditNote => RegisterEinvoice::UblCreditNote(signed.clone().into_bytes()),
        };
        let now = self.services.clock.utc();
        let header = PlainHeader { uuid: Uuid::new_v4(), send_date_time: now };
        let unsigned = requests::register_einvoice(&header, &envelope);
        let (id, number, issued_at) = (invoice.id, invoice.number.clone(), invoice.issued_at.clone());
        let (company_id, request) = (invoice.company_id, unsigned.clone());
        // Its first call owns the entry (`sending`) and hands it to the worker explicitly.
        let next = now.to_rfc3339();
        let queue_id = self
            .services
            .store
            .write(move |tx| {
                einvoices::set_ubl(tx, id, &signed)?;
                fiscal_queue::enqueue(
                    tx,
                    &NewQueued {
                        company_id,
                        operation: Operation::RegisterEinvoice.request_root(),
                        document: fiscal_queue::Document::Einvoice,
                        document_id: Some(id),
                        document_number: Some(&number),
                        tcr_code: None,
                        header_uuid: &header.uuid.to_string(),
                        issued_at: &issued_at,
                        unsigned_request: &request,
                        subseq_deliv_type: None,
                        next_attempt_at: &next,
                        last_error: None,
                    },
                )
            })
            .await?;
        match self.services.deliver(certificate, Operation::RegisterEinvoice, unsigned).await {
            Delivery::Accepted(eic) => {
                let code = eic.clone();
                self.services
                    .store
                    .write(move |tx| {
                        super::super::queue::accepted(
                            tx,
                            fiscal_queue::Document::Einvoice,
                            Some(id),
                            queue_id,
                            &code,
                        )
                    })
                    .await?;
                invoice.eic = Some(eic);
                Ok(EinvoiceIssued::Registered(invoice))
            }
            Delivery::Refused(refusal) => {
                let kept = refusal.clone();
                self.services
                    .store
                    .write(move |tx| {
                        super::super::queue::refused(
                            tx,
                            fiscal_queue::Document::Einvoice,
                            Some(id),
                            queue_id,
                            &kept,
                        )
                    })
                    .await?;
                Err(Error::Refused(format!(
                    "{} The invoice {} was fiscalized (FIC {}); the e-invoice platform refused its registration, which is kept for the owner to correct and send again.",
                    refusal.message(),
                    invoice.number,
                    invoice.fic.unwrap_or_default()
                )))
            }
            Delivery::NotDelivered { subseq, reason } => {
                tracing::warn!(invoice = id, %reason, "the e-invoice platform did not answer; the registration is queued");
                self.services.defer(queue_id, subseq, &reason).await?;
                Ok(EinvoiceIssued::Queued(invoice))
            }
        }
    }

    /// The platform's PDF of the e-invoice `eic` (GetEinvoices with the EIC); 404 when the
    /// platform does not know it for this company (as seller or buyer).
    pub async fn einvoice_pdf(&self, caller: &Caller, eic: &str) -> Result<Vec<u8>> {
        let eic = eic.trim().to_lowercase();
        if !crate::domain::validation::is_uuid(&eic) {
            return Err(Error::NotFound("E-invoice".into()));
        }
        let query = GetEinvoices { eic: Some(eic.clone()), ..GetEinvoices::default() };
        let request = requests::get_einvoices(
            &PlainHeader { uuid: Uuid::new_v4(), send_date_time: self.services.clock.utc() },
            &query,
        );
        let certificate = self.services.signer(caller.company.id).await?;
        match self.services.call_cis(certificate, request, |c, b| c.get_einvoices(b)).await? {
            Delivery::Accepted(found) => {
                let pdf = found
                    .einvoices
                    .into_iter()
                    .find(|e| e.eic.eq_ignore_ascii_case(&eic))
                    .and_then(|e| e.pdf)
                    .ok_or_else(|| Error::NotFound("E-invoice".into()))?;
                openssl::base64::decode_block(&pdf)
                    .map_err(|e| Error::PlatformAnswer { what: "e-invoice PDF (base64)", cause: Box::new(e) })
            }
            Delivery::Refused(refusal) => Err(Error::Refused(refusal.message())),
            Delivery::NotDelivered { reason, .. } => {
                tracing::warn!(%reason, "e-invoice PDF not delivered");
                Err(Error::Unavailable(NotNow::Platform))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_take_the_vat_category_of_their_rate_or_exemption() {
        let twenty = Decimal::from(20);
        // | rate | exemption       | category |
        assert_eq!(tax_category(twenty, None).id, "S");
        assert_eq!(tax_category(Decimal::ZERO, None).id, "Z");
        assert_eq!(tax_category(Decimal::ZERO, Some("TAX_FREE")).id, "Z");
        assert_eq!(tax_category(Decimal::ZERO, Some("EXPORT_OF_GOODS")).id, "G");
        let exempt = tax_category(Decimal::ZERO, Some("TYPE_2"));
        assert_eq!((exempt.id, exempt.exemption.as_deref()), ("E", Some("TYPE_2")));
    }

    #[test]
    fn the_payment_means_follow_the_first_payment_method() {
        // | method   | UNCL 4461 |
        assert_eq!(payment_means_code(Some("ACCOUNT")), "30");
        assert_eq!(payment_means_code(Some("TRANSFER")), "30");
        assert_eq!(payment_means_code(Some("BANKNOTE")), "10");
        assert_eq!(payment_means_code(Some("CARD")), "48");
        assert_eq!(payment_means_code(Some("KIND")), "ZZZ");
        assert_eq!(payment_means_code(None), "ZZZ");
    }

    #[test]
    fn an_account_payment_is_seen_in_both_versions() {
        let v1 = |m: &str| PaymentsInput::V1 {
            payment_method: Some(m.into()),
            company_card: None,
            vouchers: None,
        };
        assert!(paid_into_account(&v1(" account ")));
        assert!(!paid_into_account(&v1("CARD")));
        let element = |m: &str| crate::domain::payments::PaymentElementInput {
            kind: Some(m.into()),
            amount: None,
            company_card: None,
            vouchers: None,
        };
        let v2 = PaymentsInput::V2 {
            payment_methods: Some(vec![element("CARD"), element("transfer")]),
            payment_method: None,
            company_card: None,
            vouchers: None,
        };
        assert!(paid_into_account(&v2));
    }
}
