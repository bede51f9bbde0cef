//! An invoice request checked and computed: the issuing user's codes, the body's rules
//! (domain), the buyer, the stored client, the credit note's original, the bank account. What
//! comes out is an `InvoiceDocument` the pipeline numbers, signs and delivers.

use chrono::{Datelike, NaiveDate, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::Decimal;

use super::super::pipeline::{InternalId, Issuer, Namespace};
use super::super::sequence::Sequence;
use super::super::{Error, Result, Services};
use super::{ClientInput, IssueRequest};
use crate::domain::currency::RateBasis;
use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use crate::domain::invoice as rules;
use crate::domain::invoice::request::{BuyerRefusal, CheckedDetails, Details, check_details};
use crate::domain::role;
use crate::domain::role::Role;
use crate::domain::validation::FieldErrors;
use crate::fiscal::model::{CorrectiveInv, CorrectiveInvType};
use crate::store::accounts::{BankAccount, Caller};
use crate::store::invoices::{self as db, SettledOrder};

/// An invoice on its way through the pipeline.
pub struct InvoiceDocument {
    pub issuer: Issuer,
    pub content: Content,
    pub sequence: Sequence,
    pub year: i32,
    /// The owner who made this sale in the issuer's name (the setup wizard's test sale): the
    /// trail says so in the sale's own transaction.
    pub test_sale_by: Option<Caller>,
}

/// The issuing user's operator code, business unit code and TCR; a missing one is the spec's
/// soft refusal (HTTP 200, status false). `needs_tcr` for a till's document.
pub fn user_codes(caller: &Caller, needs_tcr: bool) -> Result<(String, String, Option<String>)> {
    let (operator_code, unit_code) = match (&caller.user.operator_code, caller.unit.as_ref()) {
        (Some(op), Some(unit)) => match &unit.business_unit_code {
            Some(code) => (op.clone(), code.clone()),
            None => return Err(Error::Refused("The user's business unit has no business unit code.".into())),
        },
        (None, _) => return Err(Error::Refused("The user has no operator code.".into())),
        (_, None) => return Err(Error::Refused("The user has no business unit.".into())),
    };
    if needs_tcr && caller.user.tcr_code.is_none() {
        return Err(Error::Refused("The user has no fiscal device (TCR).".into()));
    }
    Ok((operator_code, unit_code, caller.user.tcr_code.clone()))
}

/// The business day the invoice `id` was issued on (its `issue_date`), and today's: who may
/// take a sale back depends on both.
pub(super) fn sale_day_and_today(id: i64, issue_date: &str) -> Result<(NaiveDate, NaiveDate)> {
    let sale_day = issue_date
        .parse()
        .map_err(|_| Error::Internal(format!("invoice {id} has no readable issue date")))?;
    Ok((sale_day, Utc::now().with_timezone(&Tirane).date_naive()))
}

/// What an invoice document changes besides itself.
#[derive(Debug, Clone, Default)]
pub enum Links {
    #[default]
    None,
    /// A corrective document: its original, the original's line each of its lines reverses, and
    /// how many corrective documents the original had when this one was computed.
    Reverses { original_id: i64, positions: Vec<i64>, corrections_seen: i64 },
    /// A summary: the orders it pays.
    Settles(Vec<SettledOrder>),
}

/// An invoice checked and computed: everything but its number and issue time.
#[derive(Debug, Clone)]
pub struct Content {
    pub document_kind: DocumentKind,
    pub invoice_type: InvoiceType,
    pub links: Links,
    pub internal_id: String,
    pub api_version: ApiVersion,
    pub computed: rules::Invoice,
    pub buyer: db::Buyer,
    /// The invoice a credit (381) or debit (383) note, or a cancellation's corrective
    /// document, corrects.
    pub corrective: Option<CorrectiveInv>,
    pub due: Option<NaiveDate>,
    pub supply_start: Option<NaiveDate>,
    pub supply_end: Option<NaiveDate>,
    pub currency: String,
    pub self_issue_type: Option<String>,
    pub reverse_charge: bool,
    pub periodic_invoice: bool,
    pub notes: Option<String>,
    pub doc_type: Option<String>,
    pub original_invoice_iic: Option<String>,
    /// The account the buyer pays into, read once here so that every view of the document,
    /// the UBL of an e-invoice first, has it.
    pub bank_account: Option<BankAccount>,
    /// The warehouse transfer note the goods already left with (`wtn_id`): the sale takes off
    /// the shelf only what the note did not carry.
    pub wtn: Option<db::WtnRef>,
    pub invoice_discount_type: Option<String>,
    pub invoice_discount_value: Option<Decimal>,
    /// Where a foreign-currency invoice's rate came from.
    pub rate_basis: Option<RateBasis>,
    /// The process of an e-invoice (a non-cash invoice registered with the e-invoice platform
    /// after its FIC, `services::invoices::einvoice`).
    pub einvoice: Option<crate::domain::einvoice::Process>,
    /// The company's invoice (its id) a credit or debit note, or an e-invoice of a correction
    /// process, corrects: the correction is audited with the document.
    pub corrects: Option<i64>,
}

/// The domain's verdict on an invoice body, with `errors` found around it merged in.
pub fn computed(input: &rules::InvoiceInput, errors: FieldErrors) -> Result<rules::Invoice> {
    match rules::issue(input) {
        Ok(c) if errors.is_empty() => Ok(c),
        Ok(_) => Err(errors.into()),
        Err(crate::domain::error::Error::Invalid(mut e)) => {
            e.merge(errors);
            Err(e.into())
        }
        Err(crate::domain::error::Error::LineTotals(mismatches)) => Err(Error::Incomplete {
            message: "A line total does not match price x quantity x (100 - discount) / 100.".into(),
            errors: mismatches.iter().map(|m| m.message()).collect(),
        }),
    }
}

/// The calendar year (Tirane) an issue happens in: the year of its number and internalId.
pub fn this_year() -> i32 {
    Utc::now().with_timezone(&Tirane).year()
}

/// `value` as the internalId of an invoice of `caller`'s company issued in `year`.
pub fn internal_id(caller: &Caller, year: i32, value: &str) -> InternalId {
    InternalId {
        namespace: Namespace::Invoice,
        company_id: caller.company.id,
        year,
        value: value.to_string(),
    }
}

/// The buyer's rules (domain) over the client sent or stored.
pub fn buyer_of(req: &IssueRequest) -> Result<db::Buyer> {
    rules::request::buyer(req.kind, req.self_issue_type.as_deref(), req.client.as_ref()).map_err(
        |r| match r {
            BuyerRefusal::Invalid(errors) => errors.into(),
            BuyerRefusal::Incomplete { message, errors } => Error::Incomplete { message, errors },
        },
    )
}

impl Issuer {
    /// The sequence a document of `invoice_type` issued by this user is numbered in.
    pub fn sequence(&self, invoice_type: InvoiceType) -> Sequence {
        match (invoice_type, &self.tcr_code) {
            (InvoiceType::Cash, Some(tcr)) => Sequence::Till(tcr.clone()),
            _ => Sequence::Business,
        }
    }
}

impl Services {
    /// A cash, non-cash or order invoice request, checked in the order the docs' "Errors of an
    /// issue" lists, ready for the pipeline.
    /// A cashier's line discounts stay within the shop's limit (`cashier_max_discount` of the
    /// till's settings); a manager's or an owner's are not limited.
    async fn discounts_within_role(&self, caller: &Caller, lines: &[rules::LineInput]) -> Result<()> {
        let discounts: Vec<Option<Decimal>> = lines.iter().map(|l| l.discount).collect();
        if caller.user.role != Role::Cashier || discounts.iter().all(|d| d.is_none_or(|d| d.is_zero())) {
            return Ok(());
        }
        let company_id = caller.company.id;
        let limit =
            self.store.read(move |c| crate::store::till::settings(c, company_id)).await?.cashier_max_discount;
        match crate::domain::till::discount_beyond_limit(limit, &discounts) {
            Some(at) => Err(Error::Forbidden(format!(
                "lines.{at}.discount: a cashier gives at most {limit}% off a line; a manager or an owner can give more."
            ))),
            None => Ok(()),
        }
    }

    pub(super) async fn invoice_document(
        &self,
        caller: &Caller,
        mut req: IssueRequest,
    ) -> Result<InvoiceDocument> {
        let year = this_year();
        self.first_look(&internal_id(caller, year, &req.internal_id)).await?;
        self.discounts_within_role(caller, &req.rules.lines).await?;
        let rate_basis = self.resolve_exchange_rate(caller, &mut req).await?;
        let invoice_type = req.kind.invoice_type().unwrap_or(InvoiceType::Cash);
        let (operator_code, unit_code, tcr_code) = user_codes(caller, invoice_type == InvoiceType::Cash)?;
        let mut errors = FieldErrors::new();
        let details = Details {
            internal_id: &req.internal_id,
            due_date: req.due_date.as_deref(),
            supply_start_date: req.supply_start_date.as_deref(),
            supply_end_date: req.supply_end_date.as_deref(),
            currency: req.currency.as_deref(),
            doc_type: req.doc_type.as_deref(),
            original_invoice_iic: req.original_invoice_iic.as_deref(),
        };
        let CheckedDetails { due, supply_start: start, supply_end: end, currency } =
            check_details(invoice_type, &details, &mut errors);
        let mut rules_input = req.rules.clone();
        rules_input.issuer_in_vat = caller.company.issuer_in_vat;
        let computed = computed(&rules_input, errors)?;
        let req = self.with_stored_client(caller, req).await?;
        let (corrective, corrects) = match self.corrective_of(caller, &req).await? {
            Some((corrective, original)) => (Some(corrective), Some(original)),
            None => (None, None),
        };
        let buyer = buyer_of(&req)?;
        let bank_account = match req.bank_account_id {
            Some(account) => Some(self.bank_account(caller, account).await.map_err(|_| {
                Error::from(FieldErrors::one("bank_account_id", "The selected bank account does not exist."))
            })?),
            None => None,
        };
        let wtn = match req.wtn_id {
            Some(id) => Some(self.linked_wtn(caller, id).await?),
            None => None,
        };
        let issuer = self.issuer(caller, operator_code, unit_code, tcr_code).await?;
        let sequence = issuer.sequence(invoice_type);
        let content = Content {
            document_kind: req.kind,
            invoice_type,
            links: Links::None,
            internal_id: req.internal_id,
            api_version: req.api_version,
            computed,
            buyer,
            corrective,
            due,
            supply_start: start,
            supply_end: end,
            currency,
            self_issue_type: req.self_issue_type,
            reverse_charge: req.reverse_charge,
            periodic_invoice: req.periodic_invoice,
            notes: req.notes,
            doc_type: req.doc_type,
            original_invoice_iic: req.original_invoice_iic,
            bank_account,
            wtn,
            invoice_discount_type: req.rules.invoice_discount_type,
            invoice_discount_value: req.rules.invoice_discount_value,
            rate_basis,
            einvoice: None,
            corrects,
        };
        Ok(InvoiceDocument { issuer, content, sequence, year, test_sale_by: None })
    }

    /// What the issuer signs with, checked after the body: the software code and a current
    /// certificate (a missing one is the spec's soft refusal).
    pub(in crate::services) async fn issuer(
        &self,
        caller: &Caller,
        operator_code: String,
        unit_code: String,
        tcr_code: Option<String>,
    ) -> Result<Issuer> {
        let soft_code = self
            .gateway
            .codes()
            .soft_code
            .clone()
            .ok_or_else(|| Error::Refused("Arka has no software code: set ARKA_SOFT_CODE.".into()))?;
        let certificate = self.signer(caller.company.id).await?;
        Ok(Issuer {
            caller: caller.clone(),
            operator_code,
            unit_code,
            tcr_code,
            soft_code,
            certificate,
            verify_base: self.verify_base.clone(),
        })
    }

    /// A credit (381) or debit (383) note refers to the company's invoice it corrects (and its
    /// id, for the audit trail).
    async fn corrective_of(
        &self,
        caller: &Caller,
        req: &IssueRequest,
    ) -> Result<Option<(CorrectiveInv, i64)>> {
        let kind = match req.doc_type.as_deref() {
            Some("381") => CorrectiveInvType::Credit,
            Some("383") => CorrectiveInvType::Debit,
            _ => return Ok(None),
        };
        let Some(iic) = req.original_invoice_iic.clone() else {
            return Ok(None);
        };
        let original = self.corrected(caller, &iic).await?;
        let issued = crate::domain::time::parse_stored(&original.issued_at)
            .ok_or_else(|| Error::Internal(format!("invoice {} has no readable issue time", original.id)))?;
        let corrective = CorrectiveInv { iic_ref: iic.to_uppercase(), issue_date_time: issued, kind };
        Ok(Some((corrective, original.id)))
    }

    /// The company's invoice `iic` names, when the caller may correct it: the cancellation's
    /// scope (a manager any, a cashier their own sale of the same business day).
    pub(super) async fn corrected(&self, caller: &Caller, iic: &str) -> Result<db::Corrected> {
        let (company_id, lookup) = (caller.company.id, iic.to_string());
        let original = self.store.read(move |conn| db::corrected_by_iic(conn, company_id, &lookup)).await?;
        let original = original.ok_or_else(|| {
            Error::from(FieldErrors::one("original_invoice_iic", "No invoice of the company has this IIC."))
        })?;
        let (sale_day, today) = sale_day_and_today(original.id, &original.issue_date)?;
        role::may_correct(caller.reader(), original.user_id, sale_day, today)?;
        Ok(original)
    }

    /// `client.internal_id` names a stored client: its fields replace whatever else was sent.
    async fn with_stored_client(&self, caller: &Caller, mut req: IssueRequest) -> Result<IssueRequest> {
        let Some(id) = req.client.as_ref().and_then(|c| c.internal_id) else {
            return Ok(req);
        };
        let company_id = caller.company.id;
        let stored =
            self.store.read(move |conn| crate::store::clients::get(conn, company_id, id)).await?.ok_or_else(
                || Error::from(FieldErrors::one("client.internal_id", "The selected client does not exist.")),
            )?;
        let c = &stored.client;
        req.client = Some(ClientInput {
            internal_id: Some(id),
            name: Some(c.full_name()),
            id_type: c.id_value.as_ref().map(|_| c.id_type.as_str().to_uppercase()),
            id_value: c.id_value.clone(),
            address: c.address.clone(),
            city: c.city.clone(),
            country: c.country.clone(),
        });
        Ok(req)
    }
}
