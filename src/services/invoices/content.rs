//! An invoice request checked and computed: the issuing user's codes, the body's rules
//! (domain), the buyer, the stored client, the credit note's original, the bank account. What
//! comes out is an `InvoiceDocument` the pipeline numbers, signs and delivers.

use std::sync::Arc;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::Decimal;

use super::super::pipeline::{InternalId, Issuer, Namespace};
use super::super::sequence::Sequence;
use super::super::{Corrections, Error, NotAllowed, Result, Selling, Services};
use super::{ClientInput, IssueRequest};
use crate::domain::currency::RateBasis;
use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use crate::domain::invoice as rules;
use crate::domain::invoice::request::{BuyerRefusal, CheckedDetails, Details, check_details};
use crate::domain::role;
use crate::domain::role::Role;
use crate::domain::validation::FieldErrors;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::model::{CorrectiveInv, CorrectiveInvType};
use crate::store::accounts::{BankAccount, Caller};
use crate::store::clients::StoredClient;
use crate::store::invoices::{self as db, SettledOrder};
use crate::store::tables::Part;
use crate::store::wtn::Wtn;

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
pub(super) fn sale_day_and_today(
    id: i64,
    issue_date: &str,
    now: DateTime<Utc>,
) -> Result<(NaiveDate, NaiveDate)> {
    let sale_day = issue_date.parse().map_err(|e: chrono::ParseError| Error::Unreadable {
        what: "issue date",
        id,
        cause: Some(Box::new(e)),
    })?;
    Ok((sale_day, now.with_timezone(&Tirane).date_naive()))
}

/// What an invoice document changes besides itself.
#[derive(Debug, Clone, Default)]
pub enum Links {
    #[default]
    None,
    /// A corrective document: its original, the original's line each of its lines reverses, and
    /// how many corrective documents the original had when this one was computed.
    Reverses { original_id: i64, positions: Vec<i64>, corrections_seen: i64 },
    /// A summary: the orders it pays (for `SumInvIICRefs` and its answer), and what it takes of
    /// each of their lines (all that is left of them, or a guest's share).
    Settles { orders: Vec<SettledOrder>, parts: Vec<Part> },
    /// An order taken for a table (its body's `table`).
    ForTable(String),
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

/// The calendar year (Tirane) an issue happening `now` happens in: the year of its number and
/// internalId.
pub fn this_year(now: DateTime<Utc>) -> i32 {
    now.with_timezone(&Tirane).year()
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

impl Selling<'_> {
    /// A cashier's line discounts stay within the shop's limit (`cashier_max_discount` of the
    /// till's settings); a manager's or an owner's are not limited.
    ///
    /// `limit` is the till's, read when `discounts_limited` says the sale needs it.
    fn discounts_within_role(lines: &[rules::LineInput], limit: Option<Decimal>) -> Result<()> {
        let Some(limit) = limit else {
            return Ok(());
        };
        let discounts: Vec<Option<Decimal>> = lines.iter().map(|l| l.discount).collect();
        match crate::domain::till::discount_beyond_limit(limit, &discounts) {
            Some(at) => Err(Error::Forbidden(NotAllowed::DiscountBeyondLimit { at, limit })),
            None => Ok(()),
        }
    }

    /// A cash, non-cash or order invoice request, checked in the order the docs' "Errors of an
    /// issue" lists, ready for the pipeline. What it reads of the books before the write is read
    /// once, in one snapshot (`SaleReads`).
    pub(super) async fn invoice_document(
        &self,
        caller: &Caller,
        mut req: IssueRequest,
    ) -> Result<InvoiceDocument> {
        let year = this_year(self.services.clock.utc());
        let internal_id = internal_id(caller, year, &req.internal_id);
        self.services.not_in_flight(&internal_id)?;
        let read = self.sale_reads(caller, &internal_id, &req).await?;
        if read.issued.is_some() {
            return Err(internal_id.already_issued());
        }
        Self::discounts_within_role(&req.rules.lines, read.cashier_max_discount)?;
        let rate_basis = self.exchange_rate_of_sale(read.rates, &mut req).await?;
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
        let req = with_stored_client(req, read.client)?;
        let (corrective, corrects) =
            match corrective_of(caller, &req, read.original, self.services.clock.utc())? {
                Some((corrective, original)) => (Some(corrective), Some(original)),
                None => (None, None),
            };
        let buyer = buyer_of(&req)?;
        let bank_account = match read.bank_account {
            Some(Some(account)) => Some(account),
            Some(None) => {
                return Err(
                    FieldErrors::one("bank_account_id", "The selected bank account does not exist.").into()
                );
            }
            None => None,
        };
        let wtn = read.wtn.map(linked_wtn).transpose()?;
        let issuer =
            self.issuer_signing_with(caller, (operator_code, unit_code, tcr_code), read.certificate)?;
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

    /// `issuer` with the certificate found already (`certificate`, as `signer` answers).
    fn issuer_signing_with(
        &self,
        caller: &Caller,
        (operator_code, unit_code, tcr_code): (String, String, Option<String>),
        certificate: Result<Arc<Certificate>>,
    ) -> Result<Issuer> {
        let soft_code = self
            .services
            .gateway
            .codes()
            .soft_code
            .clone()
            .ok_or_else(|| Error::Refused("Arka has no software code: set ARKA_SOFT_CODE.".into()))?;
        let certificate = certificate?;
        Ok(Issuer {
            caller: caller.clone(),
            operator_code,
            unit_code,
            tcr_code,
            soft_code,
            certificate,
            verify_base: self.services.verify_base.clone(),
        })
    }
}

impl Services {
    /// What the issuer signs with, checked after the body: the software code and a current
    /// certificate (a missing one is the spec's soft refusal).
    pub(in crate::services) async fn issuer(
        &self,
        caller: &Caller,
        operator_code: String,
        unit_code: String,
        tcr_code: Option<String>,
    ) -> Result<Issuer> {
        let certificate = self.signer(caller.company.id).await;
        self.selling().issuer_signing_with(caller, (operator_code, unit_code, tcr_code), certificate)
    }
}

impl Corrections<'_> {
    /// The company's invoice `iic` names, when the caller may correct it: the cancellation's
    /// scope (a manager any, a cashier their own sale of the same business day).
    pub(super) async fn corrected(&self, caller: &Caller, iic: &str) -> Result<db::Corrected> {
        let (company_id, lookup) = (caller.company.id, iic.to_string());
        let original =
            self.services.store.read(move |conn| db::corrected_by_iic(conn, company_id, &lookup)).await?;
        may_correct(caller, original, self.services.clock.utc())
    }
}

/// What a sale reads of the books before its write, in one snapshot (one call to the blocking
/// pool): each part only when the request names it, checked afterwards in the order of the
/// docs' "Errors of an issue".
struct SaleReads {
    /// The document already issued under the request's internalId.
    issued: Option<i64>,
    /// The till's limit on a cashier's line discount, when a cashier gives one.
    cashier_max_discount: Option<Decimal>,
    rates: Option<super::rate::SaleRatesRead>,
    /// The stored client `client.internal_id` names (None inside: no such client).
    client: Option<Option<StoredClient>>,
    /// The invoice a credit or debit note's `original_invoice_iic` names.
    original: Option<Option<db::Corrected>>,
    bank_account: Option<Option<BankAccount>>,
    wtn: Option<Option<Wtn>>,
    /// The company's current certificate, or why there is none to sign with.
    certificate: Result<Arc<Certificate>>,
}

impl Selling<'_> {
    /// Everything `invoice_document` reads of the books, in one snapshot.
    async fn sale_reads(
        &self,
        caller: &Caller,
        internal_id: &InternalId,
        req: &IssueRequest,
    ) -> Result<SaleReads> {
        let company_id = caller.company.id;
        let looked_up = internal_id.clone();
        let discounted = caller.user.role == Role::Cashier
            && req.rules.lines.iter().any(|l| l.discount.is_some_and(|d| !d.is_zero()));
        let client_id = req.client.as_ref().and_then(|c| c.internal_id);
        let original_iic = corrective_kind(req).and(req.original_invoice_iic.clone());
        let (bank_account_id, wtn_id) = (req.bank_account_id, req.wtn_id);
        let gateway = self.services.gateway.clone();
        let rates_of = req.clone();
        let day = crate::services::rates::today(self.services.clock.utc());
        self.services
            .store
            .read_snapshot(move |conn| {
                let rates = super::rate::sale_rates_read(conn, company_id, &rates_of, day)?;
                Ok(SaleReads {
                    issued: looked_up.issued(conn)?,
                    cashier_max_discount: match discounted {
                        true => Some(crate::store::till::settings(conn, company_id)?.cashier_max_discount),
                        false => None,
                    },
                    rates,
                    client: client_id
                        .map(|id| crate::store::clients::get(conn, company_id, id))
                        .transpose()?,
                    original: original_iic
                        .map(|iic| db::corrected_by_iic(conn, company_id, &iic))
                        .transpose()?,
                    bank_account: bank_account_id
                        .map(|id| crate::store::accounts::bank_account(conn, company_id, id))
                        .transpose()?,
                    wtn: wtn_id.map(|id| crate::store::wtn::get(conn, company_id, id)).transpose()?,
                    certificate: gateway.certificate_on(conn, company_id).map_err(Error::from),
                })
            })
            .await
            .map_err(Error::from)
    }
}

/// The kind of correction a credit (381) or debit (383) note makes; None for any other invoice.
fn corrective_kind(req: &IssueRequest) -> Option<CorrectiveInvType> {
    match req.doc_type.as_deref() {
        Some("381") => Some(CorrectiveInvType::Credit),
        Some("383") => Some(CorrectiveInvType::Debit),
        _ => None,
    }
}

/// A credit (381) or debit (383) note refers to the company's invoice it corrects (and its id,
/// for the audit trail): `original` is what the sale read under its `original_invoice_iic`.
fn corrective_of(
    caller: &Caller,
    req: &IssueRequest,
    original: Option<Option<db::Corrected>>,
    now: DateTime<Utc>,
) -> Result<Option<(CorrectiveInv, i64)>> {
    let (Some(kind), Some(iic), Some(original)) =
        (corrective_kind(req), req.original_invoice_iic.clone(), original)
    else {
        return Ok(None);
    };
    let original = may_correct(caller, original, now)?;
    let issued = crate::domain::time::parse_stored(&original.issued_at).ok_or(Error::Unreadable {
        what: "issue time",
        id: original.id,
        cause: None,
    })?;
    let corrective = CorrectiveInv { iic_ref: iic.to_uppercase(), issue_date_time: issued, kind };
    Ok(Some((corrective, original.id)))
}

/// The invoice an `original_invoice_iic` named (`original`, as read), when the caller may correct
/// it: the cancellation's scope (a manager any, a cashier their own sale of the same business day).
fn may_correct(
    caller: &Caller,
    original: Option<db::Corrected>,
    now: DateTime<Utc>,
) -> Result<db::Corrected> {
    let original = original.ok_or_else(|| {
        Error::from(FieldErrors::one("original_invoice_iic", "No invoice of the company has this IIC."))
    })?;
    let (sale_day, today) = sale_day_and_today(original.id, &original.issue_date, now)?;
    role::may_correct(caller.reader(), original.user_id, sale_day, today)?;
    Ok(original)
}

/// `client.internal_id` names a stored client (`stored`, as the sale read it): its fields replace
/// whatever else was sent.
fn with_stored_client(mut req: IssueRequest, stored: Option<Option<StoredClient>>) -> Result<IssueRequest> {
    let Some(id) = req.client.as_ref().and_then(|c| c.internal_id) else {
        return Ok(req);
    };
    let stored = stored.flatten().ok_or_else(|| {
        Error::from(FieldErrors::one("client.internal_id", "The selected client does not exist."))
    })?;
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

/// The note an invoice names as the one its goods left with (`wtn_id`), as the sale read it
/// (`note`, the company's note of that id): one of the company's that took them out of its
/// hands. A note to one of the company's units put them on that unit's shelf, which its sale
/// takes them from: naming it is a mistake (422). Any user may name any note of the company, as
/// before roles: naming one is not reading it.
fn linked_wtn(note: Option<Wtn>) -> Result<db::WtnRef> {
    let Some(note) = note else {
        return Err(
            FieldErrors::one("wtn_id", "No warehouse transfer note of the company has this id.").into()
        );
    };
    if note.destination_unit_id.is_some() {
        let unit = note.destination_unit_name.as_deref();
        return Err(crate::domain::wtn::named_by_a_sale_in_another_unit(&note.number, unit).into());
    }
    Ok(db::WtnRef { id: note.id, number: note.number, iic: note.wtnic })
}
