//! Issuing cash and non-cash invoices: rules, numbering, idempotency, the CIS, offline mode.
//!
//! The way one travels: the body's rules are checked (domain), the per-business (+TCR for cash)
//! lock is taken (1 s, then 429), the number is MAX+1, the IIC is signed, and the invoice is saved
//! in one transaction together with its entry in the late-delivery queue, so nothing answered is
//! ever lost. Then the CIS is asked (unless the breaker says it is away): accepted sets the FIC;
//! refused deletes the invoice, giving its number back; no answer leaves a cash invoice queued
//! (503 with the invoice) and deletes a non-cash one (503, retry with the same internalId).

use std::sync::Arc;

use chrono::{DateTime, Datelike, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::locks::LOCK_WAIT;
use super::{Error, Result, Services, fault_message};
use crate::domain::currency::RateBasis;
use crate::domain::invoice::{self as rules, InvoiceInput, VatClass};
use crate::domain::money::round2;
use crate::domain::numbering::{cis_invoice_number, invoice_number};
use crate::domain::validation::FieldErrors;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::iic::{IicInput, iic};
use crate::fiscal::model::{
    self, Buyer, CorrectiveInv, CorrectiveInvType, Currency, Fee, FeeType, Header, IdType,
    Invoice as CisInvoice, Item, ItemExemption, PayMethod, SameTax, SameTaxExemption, Seller,
    SupplyDateOrPeriod, TypeOfInv, TypeOfSelfIss,
};
use crate::fiscal::queue::{backoff, subseq_for};
use crate::fiscal::requests;
use crate::fiscal::response::{NotDelivered, Outcome};
use crate::fiscal::verify::verify_url;
use crate::store::accounts::Caller;
use crate::store::fiscal_queue::{self, NewQueued};
use crate::store::invoices::{self as db, Invoice};

/// Cash or non-cash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Cash,
    NonCash,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Cash => "CASH",
            Kind::NonCash => "NONCASH",
        }
    }
}

/// The buyer as sent (`client`); all optional, as the spec's body.
#[derive(Debug, Clone, Default)]
pub struct ClientInput {
    pub internal_id: Option<i64>,
    pub name: Option<String>,
    pub id_type: Option<String>,
    pub id_value: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
}

impl ClientInput {
    fn is_empty(&self) -> bool {
        self.internal_id.is_none()
            && [&self.name, &self.id_type, &self.id_value, &self.address, &self.city, &self.country]
                .iter()
                .all(|f| f.as_deref().is_none_or(|v| v.trim().is_empty()))
    }
}

/// An issue request after the edge read v1 or v2.
#[derive(Debug, Clone)]
pub struct IssueRequest {
    pub kind: Kind,
    pub api_version: i64,
    pub internal_id: String,
    pub client: Option<ClientInput>,
    pub rules: InvoiceInput,
    pub currency: Option<String>,
    pub due_date: Option<String>,
    pub supply_start_date: Option<String>,
    pub supply_end_date: Option<String>,
    pub reverse_charge: bool,
    pub periodic_invoice: bool,
    pub notes: Option<String>,
    pub self_issue_type: Option<String>,
    pub doc_type: Option<String>,
    pub original_invoice_iic: Option<String>,
    pub bank_account_id: Option<i64>,
}

/// What an issue came to.
pub enum Issued {
    /// Registered with the CIS: FIC set.
    Fiscalized(Invoice),
    /// Saved with its IIC and queued for late delivery (cash only): the edge answers 503 with it.
    Deferred(Invoice),
}

fn date(errors: &mut FieldErrors, field: &str, value: &Option<String>) -> Option<chrono::NaiveDate> {
    let value = value.as_deref().map(str::trim).filter(|v| !v.is_empty())?;
    match chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d") {
        Ok(d) => Some(d),
        Err(_) => {
            errors.add(field, format!("The {field} must be a date in the format YYYY-MM-DD."));
            None
        }
    }
}

fn id_type(value: &str) -> Option<IdType> {
    match value.trim().to_uppercase().as_str() {
        "NUIS" | "NIPT" => Some(IdType::Nuis),
        "ID" => Some(IdType::Id),
        "PASS" | "PASSPORT" => Some(IdType::Pass),
        "VAT" => Some(IdType::Vat),
        "TAX" => Some(IdType::Tax),
        "SOC" | "SOCIAL" => Some(IdType::Soc),
        _ => None,
    }
}

/// The buyer's rules: a named client needs address and city (400), any sent field needs a name
/// (422), the country is ISO alpha-3 (default ALB), a self-issued invoice needs an identified
/// seller and a country.
fn buyer_of(req: &IssueRequest) -> Result<db::Buyer> {
    let Some(client) = req.client.as_ref().filter(|c| !c.is_empty()) else {
        if req.self_issue_type.is_some() {
            return Err(
                FieldErrors::one("client", "A self-issued invoice needs the seller as client.").into()
            );
        }
        if req.kind == Kind::NonCash {
            return Err(FieldErrors::one("client.name", "A non-cash invoice needs a buyer.").into());
        }
        return Ok(db::Buyer::default());
    };
    let trimmed =
        |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_string);
    let mut errors = FieldErrors::new();
    let name = trimmed(&client.name);
    if name.is_none() {
        errors.add("client.name", "The client.name field is required when a client is sent.");
    }
    let country = trimmed(&client.country).map(|c| c.to_uppercase()).unwrap_or_else(|| "ALB".to_string());
    if country.len() != 3 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        errors.add("client.country", "The client.country must be a three-letter ISO 3166-1 alpha-3 code.");
    }
    let id_value = trimmed(&client.id_value);
    let id_type_text = match (&id_value, trimmed(&client.id_type)) {
        (Some(v), None) if crate::domain::validation::is_nuis(v) => Some("NUIS".to_string()),
        (Some(_), None) => Some("ID".to_string()),
        (_, Some(t)) => match id_type(&t) {
            Some(t) => Some(t.as_str().to_string()),
            None => {
                errors.add(
                    "client.id.type",
                    "The client.id.type must be one of NUIS, ID, PASS, VAT, TAX, SOC.",
                );
                None
            }
        },
        (None, None) => None,
    };
    if req.kind == Kind::NonCash && id_type_text.as_deref() != Some("NUIS") {
        errors.add("client.id", "A non-cash invoice's buyer is identified by NUIS.");
    }
    if id_type_text.as_deref() == Some("NUIS")
        && !id_value.as_deref().is_some_and(crate::domain::validation::is_nuis)
    {
        errors.add("client.id", "The client's NUIS must be a letter, eight digits and a letter.");
    }
    if let Some(kind) = &req.self_issue_type {
        if !matches!(kind.as_str(), "DOMESTIC" | "ABROAD" | "OTHER" | "AGREEMENT" | "SELF") {
            errors.add(
                "self_issue_type",
                "The self_issue_type must be one of DOMESTIC, ABROAD, OTHER, AGREEMENT, SELF.",
            );
        }
        if id_value.is_none() {
            errors.add("client.id", "A self-issued invoice needs the seller's NUIS or document number.");
        }
        if trimmed(&client.country).is_none() {
            errors.add("client.country", "A self-issued invoice needs the seller's country.");
        }
    }
    errors.into_result()?;
    let address = trimmed(&client.address);
    let city = trimmed(&client.city);
    let mut missing = Vec::new();
    if address.is_none() {
        missing.push("client.address: the address of a named client is required.".to_string());
    }
    if city.is_none() {
        missing.push("client.city: the city of a named client is required.".to_string());
    }
    if !missing.is_empty() {
        return Err(Error::Incomplete {
            message: "The client's address and city are required.".into(),
            errors: missing,
        });
    }
    Ok(db::Buyer {
        client_id: client.internal_id,
        name,
        id_type: id_type_text,
        id_value,
        address,
        city,
        country: Some(country),
    })
}

fn item_exemption(e: rules::Exemption) -> ItemExemption {
    match e {
        rules::Exemption::Type1 => ItemExemption::Type1,
        rules::Exemption::Type2 => ItemExemption::Type2,
        rules::Exemption::ExportOfGoods => ItemExemption::ExportOfGoods,
        rules::Exemption::TaxFree => ItemExemption::TaxFree,
    }
}

/// Everything checked and read before the issue's lock is taken.
struct Prepared {
    computed: rules::Invoice,
    buyer: db::Buyer,
    /// The invoice a credit (381) or debit (383) note corrects.
    corrective: Option<CorrectiveInv>,
    certificate: Arc<Certificate>,
    due: Option<chrono::NaiveDate>,
    supply_start: Option<chrono::NaiveDate>,
    supply_end: Option<chrono::NaiveDate>,
    currency: String,
    soft_code: String,
    operator_code: String,
    unit_code: String,
    /// The till, for a cash invoice (numbering and InvNum are per TCR only for cash).
    tcr_code: Option<String>,
    year: i32,
    /// Where a foreign-currency invoice's rate came from.
    rate_basis: Option<RateBasis>,
}

/// Everything the CIS message and the stored invoice share.
struct Draft {
    number: String,
    inv_num: String,
    issue_date_time: String,
    header_uuid: Uuid,
    iic: String,
    iic_signature: String,
    verify_url: String,
    unsigned_request: String,
}

impl Services {
    pub async fn list_invoices(&self, caller: &Caller, filter: db::ListFilter) -> Result<Vec<Invoice>> {
        let company_id = caller.company.id;
        Ok(self.store.read(move |conn| db::list(conn, company_id, &filter)).await?)
    }

    pub async fn invoice(&self, caller: &Caller, id: i64) -> Result<Invoice> {
        let company_id = caller.company.id;
        self.store
            .read(move |conn| db::get(conn, company_id, id))
            .await?
            .ok_or_else(|| Error::NotFound("Invoice".into()))
    }

    /// The invoice issued this year with `internal_id`; integrators read 404 as "not issued
    /// yet, safe to retry".
    pub async fn invoice_by_internal_id(&self, caller: &Caller, internal_id: &str) -> Result<Invoice> {
        let company_id = caller.company.id;
        let year = Utc::now().with_timezone(&Tirane).year();
        let internal_id = internal_id.to_string();
        self.store
            .read(move |conn| match db::id_by_internal_id(conn, company_id, year, &internal_id)? {
                Some(id) => db::get(conn, company_id, id),
                None => Ok(None),
            })
            .await?
            .ok_or_else(|| Error::NotFound("Invoice".into()))
    }

    /// A credit (381) or debit (383) note refers to the company's invoice it corrects.
    async fn corrective_of(&self, caller: &Caller, req: &IssueRequest) -> Result<Option<CorrectiveInv>> {
        let kind = match req.doc_type.as_deref() {
            Some("381") => CorrectiveInvType::Credit,
            Some("383") => CorrectiveInvType::Debit,
            _ => return Ok(None),
        };
        let Some(iic) = req.original_invoice_iic.clone() else {
            return Ok(None);
        };
        let company_id = caller.company.id;
        let lookup = iic.clone();
        let issued = self.store.read(move |conn| db::issued_at_by_iic(conn, company_id, &lookup)).await?;
        let issued = issued.and_then(|t| crate::domain::time::parse_stored(&t)).ok_or_else(|| {
            Error::from(FieldErrors::one("original_invoice_iic", "No invoice of the company has this IIC."))
        })?;
        Ok(Some(CorrectiveInv { iic_ref: iic.to_uppercase(), issue_date_time: issued, kind }))
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
        use crate::domain::client::Spelled;
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

    /// The invoice as a PDF: A4, or an 80 mm receipt.
    pub async fn invoice_pdf(
        &self,
        caller: &Caller,
        id: i64,
        layout: crate::print::Layout,
    ) -> Result<Vec<u8>> {
        let invoice = self.invoice(caller, id).await?;
        let printable = printable(caller, &invoice);
        tokio::task::spawn_blocking(move || crate::print::render(&printable, layout))
            .await
            .map_err(|e| Error::Internal(e.to_string()))?
            .map_err(|e| Error::Internal(e.to_string()))
    }

    fn pdf_base(&self, host: Option<&str>) -> String {
        match (&self.public_url, host) {
            (Some(base), _) => base.clone(),
            (None, Some(host)) => format!("http://{host}"),
            (None, None) => "http://localhost".to_string(),
        }
    }

    /// Absolute URL of an invoice's PDF.
    pub fn pdf_url(&self, host: Option<&str>, version: i64, id: i64) -> String {
        format!("{}/api/v{version}/invoice/print/{id}", self.pdf_base(host))
    }

    /// Issues an invoice; see the module's description for the way it travels.
    pub async fn issue_invoice(&self, caller: &Caller, mut req: IssueRequest) -> Result<Issued> {
        let rate_basis = self.resolve_exchange_rate(caller, &mut req).await?;
        let (operator_code, unit_code) = match (&caller.user.operator_code, caller.unit.as_ref()) {
            (Some(op), Some(unit)) => match &unit.business_unit_code {
                Some(code) => (op.clone(), code.clone()),
                None => {
                    return Err(Error::Refused("The user's business unit has no business unit code.".into()));
                }
            },
            (None, _) => return Err(Error::Refused("The user has no operator code.".into())),
            (_, None) => return Err(Error::Refused("The user has no business unit.".into())),
        };
        let tcr_code = match (req.kind, &caller.user.tcr_code) {
            (Kind::Cash, None) => return Err(Error::Refused("The user has no fiscal device (TCR).".into())),
            (_, tcr) => tcr.clone(),
        };
        let mut errors = FieldErrors::new();
        let due = date(&mut errors, "due_date", &req.due_date);
        let start = date(&mut errors, "supply_start_date", &req.supply_start_date);
        let end = date(&mut errors, "supply_end_date", &req.supply_end_date);
        let currency =
            req.currency.as_deref().map(str::trim).filter(|c| !c.is_empty()).unwrap_or("ALL").to_uppercase();
        if !crate::domain::validation::is_currency_code(&currency) {
            errors.add("currency", "The currency must be a three-letter ISO 4217 code.");
        }
        if req.internal_id.chars().count() > 255 {
            errors.add("internalId", "The internalId must not be greater than 255 characters.");
        }
        if req.kind == Kind::NonCash {
            match req.doc_type.as_deref() {
                None | Some("380") | Some("383") => {}
                Some("381") if req.original_invoice_iic.as_deref().is_some_and(|i| i.len() == 32) => {}
                Some("381") => {
                    errors.add("original_invoice_iic", "A credit note (381) needs original_invoice_iic.")
                }
                Some(_) => errors.add("doc_type", "The doc_type must be one of 380, 381, 383."),
            }
        }
        let mut rules_input = req.rules.clone();
        rules_input.issuer_in_vat = caller.company.issuer_in_vat;
        let computed = match rules::issue(&rules_input) {
            Ok(c) if errors.is_empty() => c,
            Ok(_) => return Err(errors.into()),
            Err(crate::domain::error::Error::Invalid(mut e)) => {
                for (k, msgs) in errors.into_map() {
                    for m in msgs {
                        e.add(k.clone(), m);
                    }
                }
                return Err(e.into());
            }
            Err(crate::domain::error::Error::LineTotals(mismatches)) => {
                return Err(Error::Incomplete {
                    message: "A line total does not match price x quantity x (100 - discount) / 100.".into(),
                    errors: mismatches.iter().map(|m| m.message()).collect(),
                });
            }
        };
        let req = self.with_stored_client(caller, req).await?;
        let corrective = self.corrective_of(caller, &req).await?;
        let buyer = buyer_of(&req)?;
        if let Some(account) = req.bank_account_id {
            self.bank_account(caller, account).await.map_err(|_| {
                Error::from(FieldErrors::one("bank_account_id", "The selected bank account does not exist."))
            })?;
        }
        let soft_code = self
            .gateway
            .codes()
            .soft_code
            .clone()
            .ok_or_else(|| Error::Refused("Arka has no software code: set ARKA_SOFT_CODE.".into()))?;
        let certificate = self.signer(caller.company.id).await?;

        let now = Utc::now();
        let year = now.with_timezone(&Tirane).year();
        let flight_key = (caller.company.id, year, req.internal_id.clone());
        let already = |services: &Services| -> Result<()> {
            let mut in_flight =
                services.in_flight.lock().map_err(|_| Error::Internal("in-flight set poisoned".into()))?;
            if !in_flight.insert(flight_key.clone()) {
                return Err(Error::Conflict("An invoice with this internalId is being issued.".into()));
            }
            Ok(())
        };
        already(self)?;
        let result = self
            .issue_locked(
                caller,
                &req,
                Prepared {
                    computed,
                    buyer,
                    corrective,
                    certificate,
                    due,
                    supply_start: start,
                    supply_end: end,
                    currency,
                    soft_code,
                    operator_code,
                    unit_code,
                    tcr_code: if req.kind == Kind::Cash { tcr_code.clone() } else { None },
                    year,
                    rate_basis,
                },
            )
            .await;
        if let Ok(mut in_flight) = self.in_flight.lock() {
            in_flight.remove(&flight_key);
        }
        // A cash sale moves its TCR's balance (and a refused one may have opened the day).
        if let (Kind::Cash, Some(tcr)) = (req.kind, tcr_code.as_deref()) {
            self.balances.invalidate(caller.company.id, tcr);
        }
        result
    }

    async fn issue_locked(&self, caller: &Caller, req: &IssueRequest, p: Prepared) -> Result<Issued> {
        let (operator_code, unit_code, cash_tcr) =
            (p.operator_code.as_str(), p.unit_code.as_str(), p.tcr_code.as_deref());
        let (computed, year) = (&p.computed, p.year);
        let dates = (p.due, p.supply_start, p.supply_end);
        let company_id = caller.company.id;
        let lock_key = match req.kind {
            Kind::Cash => format!("cash:{company_id}:{}", cash_tcr.unwrap_or_default()),
            Kind::NonCash => format!("noncash:{company_id}"),
        };
        let guard = self
            .locks
            .acquire(&lock_key, LOCK_WAIT)
            .await
            .ok_or_else(|| Error::Busy("Another invoice is being issued; try again.".into()))?;

        let internal_id = req.internal_id.clone();
        let kind = req.kind.as_str();
        let tcr = cash_tcr.map(str::to_string);
        let (existing, max) = self
            .store
            .read(move |conn| {
                let existing = db::id_by_internal_id(conn, company_id, year, &internal_id)?;
                Ok((existing, db::max_ord_num(conn, company_id, year, kind, tcr.as_deref())?))
            })
            .await?;
        if existing.is_some() {
            return Err(Error::Conflict(
                "An invoice with this internalId was already issued this year.".into(),
            ));
        }
        let ord_num =
            u32::try_from(max + 1).map_err(|_| Error::Internal("invoice numbers exhausted".into()))?;
        let issued_at = Utc::now();
        let draft = self.draft(caller, req, &p, ord_num, issued_at)?;

        let mut invoice = Invoice {
            id: 0,
            company_id,
            business_unit_id: caller.unit.as_ref().map(|u| u.id),
            user_id: Some(caller.user.id),
            internal_id: req.internal_id.clone(),
            year,
            kind: req.kind.as_str().to_string(),
            api_version: req.api_version,
            doc_type: req.doc_type.clone(),
            original_invoice_iic: req.original_invoice_iic.clone(),
            tcr_code: cash_tcr.map(str::to_string),
            ord_num: i64::from(ord_num),
            number: draft.number.clone(),
            inv_num: draft.inv_num.clone(),
            issued_at: issued_at.to_rfc3339(),
            issue_date: issued_at.with_timezone(&Tirane).date_naive().to_string(),
            issue_date_time: draft.issue_date_time.clone(),
            operator_code: Some(operator_code.to_string()),
            business_unit_code: Some(unit_code.to_string()),
            currency: p.currency.clone(),
            exchange_rate: computed.totals.exchange_rate,
            exchange_rate_origin: p.rate_basis.as_ref().map(|b| b.origin),
            exchange_rate_date: p.rate_basis.as_ref().and_then(|b| b.date).map(|d| d.to_string()),
            totals: db::Totals {
                gross: computed.totals.gross,
                net: computed.totals.net,
                vat: computed.totals.vat,
                discount: computed.totals.discount,
                discount_gross: computed.totals.discount_gross,
                fee: computed.totals.fee,
                total: computed.totals.total,
                // In lek, like every _all figure: what is payable, the fee included.
                gross_all: crate::domain::money::to_lek(computed.totals.total, computed.totals.exchange_rate),
                net_all: computed.totals.net_all,
                vat_all: computed.totals.vat_all,
                discount_all: computed.totals.discount_all,
            },
            invoice_discount_type: req.rules.invoice_discount_type.clone(),
            invoice_discount_value: req.rules.invoice_discount_value,
            buyer: p.buyer.clone(),
            self_issue_type: req.self_issue_type.clone(),
            due_date: dates.0.map(|d| d.to_string()),
            delivery_date: None,
            supply_start_date: dates.1.map(|d| d.to_string()),
            supply_end_date: dates.2.map(|d| d.to_string()),
            reverse_charge: req.reverse_charge,
            periodic_invoice: req.periodic_invoice,
            notes: req.notes.clone(),
            bank_account_id: req.bank_account_id,
            bank_account: None,
            iic: draft.iic.clone(),
            iic_signature: draft.iic_signature.clone(),
            header_uuid: draft.header_uuid.to_string(),
            fic: None,
            eic: None,
            verify_url: draft.verify_url.clone(),
            created_at: String::new(),
            lines: computed
                .lines
                .iter()
                .map(|l| db::Line {
                    product_name: l.product_name.clone(),
                    product_code: l.product_code.clone(),
                    unit: l.unit.clone(),
                    unit_code: l.unit_code.clone(),
                    quantity: l.quantity,
                    price: l.unit_price,
                    total: l.total,
                    discount_rate: l.discount_rate,
                    discount: l.discount,
                    vat_rate: l.vat_rate,
                    exemption: l.exemption.map(|e| e.as_str().to_string()),
                    unit_price_net: l.unit_price_before_vat,
                    rebate: l.rebate,
                    net: l.price_before_vat,
                    vat: l.vat_amount,
                    gross: l.price_after_vat,
                })
                .collect(),
            payments: computed
                .payments
                .iter()
                .map(|p| db::Payment {
                    kind: p.kind.as_str().to_string(),
                    amount: p.amount,
                    company_card: p.company_card.clone(),
                    vouchers: p.vouchers.clone(),
                })
                .collect(),
        };

        // Saved with its queue entry before the CIS is asked: whatever happens next, the
        // document is not lost. The worker leaves the entry alone while this call may still run.
        let breaker_open = self.gateway.breaker_open();
        let first_try_ends = issued_at + chrono::Duration::seconds(30);
        let (next_attempt, subseq) = if breaker_open && req.kind == Kind::Cash {
            (issued_at, Some(self.breaker_subseq()))
        } else {
            (first_try_ends, None)
        };
        // A cash invoice on a TCR whose day is not open opens it first with an INITIAL of 0, in
        // the same transaction and ahead of the invoice in the queue (issue 6).
        let opening = match (req.kind, cash_tcr) {
            (Kind::Cash, Some(tcr)) => Some(self.automatic_opening(caller, tcr, issued_at, breaker_open)),
            _ => None,
        };
        let to_store = invoice.clone();
        let unsigned = draft.unsigned_request.clone();
        let (invoice_id, queue_id, opened) = self
            .store
            .write(move |tx| {
                let opened = match opening {
                    Some(opening) => super::cash_register::open_day_if_needed(tx, opening)?,
                    None => None,
                };
                let id = db::insert(tx, &to_store)?;
                let next = next_attempt.to_rfc3339();
                let queue_id = fiscal_queue::enqueue(
                    tx,
                    &NewQueued {
                        company_id: to_store.company_id,
                        operation: "RegisterInvoiceRequest",
                        document_kind: "invoice",
                        document_id: Some(id),
                        document_number: Some(&to_store.number),
                        tcr_code: to_store.tcr_code.as_deref(),
                        header_uuid: &to_store.header_uuid,
                        issued_at: &to_store.issued_at,
                        unsigned_request: &unsigned,
                        subseq_deliv_type: subseq.map(|s| s.as_str()),
                        next_attempt_at: &next,
                        last_error: subseq.map(|_| "the CIS was not answering (breaker open)"),
                    },
                )?;
                Ok((id, queue_id, opened))
            })
            .await?;
        invoice.id = invoice_id;

        if breaker_open {
            return match req.kind {
                Kind::Cash => {
                    self.queue.wake();
                    Ok(Issued::Deferred(invoice))
                }
                Kind::NonCash => {
                    self.forget(invoice_id).await?;
                    Err(Error::Unavailable("The fiscalization service (CIS) is not reachable; the invoice was not saved. Retry with the same internalId.".into()))
                }
            };
        }

        // The CIS sees the day's opening before the invoice: when the opening does not get
        // there, the invoice waits behind it in the queue.
        if let Some(opened) = opened
            && let Some(reason) = self.register_automatic_opening(p.certificate.clone(), opened).await?
        {
            self.defer(queue_id, &reason).await?;
            return Ok(Issued::Deferred(invoice));
        }

        let outcome = self
            .call_cis(p.certificate.clone(), draft.unsigned_request, |c, b| c.register_invoice(b))
            .await?;
        match outcome {
            Outcome::Accepted(accepted) => {
                // The number is final once the CIS has it: the next sale need not wait for
                // the FIC to be written.
                drop(guard);
                let fic = accepted.fic.clone();
                self.store
                    .write(move |tx| {
                        db::set_fic(tx, invoice_id, &fic)?;
                        fiscal_queue::mark_delivered(tx, queue_id, &fic)?;
                        Ok(())
                    })
                    .await?;
                invoice.fic = Some(accepted.fic);
                Ok(Issued::Fiscalized(invoice))
            }
            Outcome::Rejected(fault) => {
                self.forget(invoice_id).await?;
                Err(Error::Refused(fault_message(&fault)))
            }
            Outcome::NotDelivered(reason) => match req.kind {
                Kind::Cash => {
                    self.defer(queue_id, &reason).await?;
                    Ok(Issued::Deferred(invoice))
                }
                Kind::NonCash => {
                    self.forget(invoice_id).await?;
                    Err(Error::Unavailable("The fiscalization service (CIS) did not answer; the invoice was not saved. Retry with the same internalId.".into()))
                }
            },
        }
    }

    pub(super) fn breaker_subseq(&self) -> model::SubseqDelivType {
        match self.gateway.breaker() {
            crate::fiscal::gateway::Breaker::Open { reason, .. }
                if reason.starts_with("HttpStatus") || reason.starts_with("Unparseable") =>
            {
                model::SubseqDelivType::Service
            }
            _ => model::SubseqDelivType::NoInternet,
        }
    }

    /// The CIS did not answer: the invoice waits in the queue with the right late-delivery type.
    pub(super) async fn defer(&self, queue_id: i64, reason: &NotDelivered) -> Result<()> {
        let subseq = subseq_for(reason);
        let next =
            (Utc::now() + chrono::Duration::from_std(backoff(0, 1.0)).unwrap_or_default()).to_rfc3339();
        let why = format!("{reason:?}");
        self.store
            .write(move |tx| fiscal_queue::record_failure(tx, queue_id, subseq.as_str(), &next, &why))
            .await?;
        self.queue.wake();
        Ok(())
    }

    /// Deletes an invoice that must not stay (refused, or non-cash not delivered), with its
    /// queue entry, so its number is given back.
    async fn forget(&self, invoice_id: i64) -> Result<()> {
        self.store
            .write(move |tx| {
                fiscal_queue::delete_for_document(tx, "invoice", invoice_id)?;
                db::delete(tx, invoice_id)
            })
            .await?;
        Ok(())
    }

    fn draft(
        &self,
        caller: &Caller,
        req: &IssueRequest,
        p: &Prepared,
        ord_num: u32,
        issued_at: DateTime<Utc>,
    ) -> Result<Draft> {
        let (operator_code, unit_code, tcr_code) =
            (p.operator_code.as_str(), p.unit_code.as_str(), p.tcr_code.as_deref());
        let (computed, buyer, certificate) = (&p.computed, &p.buyer, p.certificate.as_ref());
        let (currency, soft_code, year) = (p.currency.as_str(), p.soft_code.as_str(), p.year);
        let dates = (p.due, p.supply_start, p.supply_end);
        let issue_date_time = model::datetime(issued_at);
        let totals = &computed.totals;
        let in_vat = computed.issuer_in_vat;
        let lek = |d: Decimal| round2(d * totals.exchange_rate);
        let foreign = currency != "ALL";
        let items = computed
            .lines
            .iter()
            .map(|l| {
                let amount = |d: Decimal| if foreign { lek(d) } else { d };
                Item {
                    name: l.product_name.chars().take(50).collect(),
                    code: Some(l.product_code.chars().take(50).collect()),
                    unit: l.unit.chars().take(50).collect(),
                    quantity: l.quantity,
                    unit_price_before_vat: amount(l.unit_price_before_vat),
                    unit_price_after_vat: amount(l.unit_price),
                    rebate: l.rebate,
                    rebate_reducing: l.rebate_reducing(),
                    price_before_vat: amount(l.price_before_vat),
                    vat_rate: if in_vat && l.exemption.is_none() { Some(l.vat_rate) } else { None },
                    vat_amount: if in_vat && l.exemption.is_none() {
                        Some(amount(l.vat_amount))
                    } else {
                        None
                    },
                    is_investment: None,
                    price_after_vat: amount(l.price_after_vat),
                    exemption: l.exemption.map(item_exemption),
                    vouchers_sold: None,
                }
            })
            .collect::<Vec<_>>();
        // In a foreign-currency invoice every amount goes to the CIS in lek; the totals are
        // re-added from the converted lines so they still add up to the cent.
        let net_sum: Decimal = items.iter().map(|i| i.price_before_vat).sum();
        let vat_sum: Decimal = items.iter().filter_map(|i| i.vat_amount).sum();
        let fee = if foreign { lek(totals.fee) } else { totals.fee };
        let tot_price_value = net_sum + vat_sum + fee;
        let tot_price = model::money(tot_price_value);
        let iic_input = IicInput {
            nuis: &caller.company.nuis,
            issue_date_time: &issue_date_time,
            ord_num: u64::from(ord_num),
            business_unit_code: unit_code,
            tcr_code,
            soft_code,
            tot_price: &tot_price,
        };
        let code = iic(certificate, &iic_input)?;
        let inv_num = cis_invoice_number(ord_num, year, tcr_code);
        let verify = verify_url(&self.verify_base, &code.iic, &iic_input);
        let same_taxes = computed
            .vat_groups
            .iter()
            .filter(|g| g.class.is_same_tax())
            .map(|g| {
                let members = items.iter().zip(&computed.lines).filter(|(_, l)| l.vat_class() == g.class);
                let (net, vat) = members.fold((Decimal::ZERO, Decimal::ZERO), |(n, v), (i, _)| {
                    (n + i.price_before_vat, v + i.vat_amount.unwrap_or_default())
                });
                SameTax {
                    num_of_items: g.num_items,
                    price_bef_vat: net,
                    vat_rate: match g.class {
                        VatClass::Rate(r) => Some(r),
                        VatClass::Exempt(_) => None,
                    },
                    exempt_from_vat: match g.class {
                        VatClass::Exempt(rules::Exemption::Type1) => Some(SameTaxExemption::Type1),
                        VatClass::Exempt(rules::Exemption::Type2) => Some(SameTaxExemption::Type2),
                        _ => None,
                    },
                    vat_amt: Some(vat),
                }
            })
            .collect();
        let amount_of = |exemption: rules::Exemption| -> Option<Decimal> {
            let sum: Decimal = items
                .iter()
                .zip(&computed.lines)
                .filter(|(_, l)| l.exemption == Some(exemption))
                .map(|(i, _)| i.price_before_vat)
                .sum();
            (sum != Decimal::ZERO).then_some(sum)
        };
        let mut pay_methods: Vec<PayMethod> = computed
            .payments
            .iter()
            .map(|p| PayMethod {
                kind: p.kind,
                amt: if foreign { lek(p.amount) } else { p.amount },
                comp_card: p.company_card.clone(),
                vouchers: p.vouchers.clone(),
            })
            .collect();
        // Converting each payment separately can leave a cent off the converted total.
        if let Some(first) = pay_methods.first_mut() {
            let paid: Decimal =
                computed.payments.iter().map(|p| if foreign { lek(p.amount) } else { p.amount }).sum();
            first.amt += tot_price_value - paid;
        }
        let cis_invoice = CisInvoice {
            type_of_inv: match req.kind {
                Kind::Cash => TypeOfInv::Cash,
                Kind::NonCash => TypeOfInv::NonCash,
            },
            is_simplified_inv: false,
            type_of_self_iss: req.self_issue_type.as_deref().and_then(|t| match t {
                "AGREEMENT" => Some(TypeOfSelfIss::Agreement),
                "DOMESTIC" => Some(TypeOfSelfIss::Domestic),
                "ABROAD" => Some(TypeOfSelfIss::Abroad),
                "SELF" => Some(TypeOfSelfIss::SelfConsumption),
                "OTHER" => Some(TypeOfSelfIss::Other),
                _ => None,
            }),
            issue_date_time: issued_at,
            inv_num: inv_num.clone(),
            inv_ord_num: ord_num,
            tcr_code: tcr_code.map(str::to_string),
            is_issuer_in_vat: in_vat,
            tax_free_amt: amount_of(rules::Exemption::TaxFree),
            mark_up_amt: None,
            goods_ex_amt: amount_of(rules::Exemption::ExportOfGoods),
            tot_price_wo_vat: net_sum,
            tot_vat_amt: in_vat.then_some(vat_sum),
            tot_price: tot_price_value,
            operator_code: operator_code.to_string(),
            busin_unit_code: unit_code.to_string(),
            soft_code: soft_code.to_string(),
            imp_cust_dec_num: None,
            iic: code.iic.clone(),
            iic_signature: code.signature.clone(),
            is_reverse_charge: req.reverse_charge,
            pay_deadline: dates.0,
            is_einvoice: None,
            supply_date_or_period: dates
                .1
                .map(|start| SupplyDateOrPeriod { start, end: dates.2.unwrap_or(start) }),
            corrective_inv: p.corrective.clone(),
            pay_methods,
            currency: foreign.then(|| Currency {
                code: currency.to_string(),
                ex_rate: totals.exchange_rate,
                is_buying: false,
            }),
            seller: Seller {
                id_type: IdType::Nuis,
                id_num: caller.company.nuis.clone(),
                name: caller.company.name.chars().take(100).collect(),
                address: caller
                    .unit
                    .as_ref()
                    .and_then(|u| u.address.clone())
                    .or_else(|| caller.company.address.clone()),
                town: caller
                    .unit
                    .as_ref()
                    .and_then(|u| u.city.clone())
                    .or_else(|| caller.company.city.clone()),
                country: Some("ALB".to_string()),
            },
            buyer: buyer.name.as_ref().map(|name| Buyer {
                id_type: buyer.id_type.as_deref().and_then(id_type),
                id_num: buyer.id_value.clone(),
                name: Some(name.chars().take(100).collect()),
                address: buyer.address.clone(),
                town: buyer.city.clone(),
                country: buyer.country.clone(),
            }),
            items,
            same_taxes: if in_vat { same_taxes } else { Vec::new() },
            cons_taxes: vec![],
            fees: if fee == Decimal::ZERO { vec![] } else { vec![Fee { kind: FeeType::Other, amt: fee }] },
            sum_inv_iic_refs: vec![],
            bad_debt_inv: None,
        };
        let header_uuid = Uuid::new_v4();
        let unsigned_request = requests::register_invoice(
            &Header { uuid: header_uuid, send_date_time: issued_at, subseq_deliv_type: None },
            &cis_invoice,
        );
        Ok(Draft {
            number: invoice_number(ord_num, year),
            inv_num,
            issue_date_time,
            header_uuid,
            iic: code.iic,
            iic_signature: code.signature,
            verify_url: verify,
            unsigned_request,
        })
    }
}

fn vat_label(rate: Decimal, exemption: Option<&str>) -> String {
    match exemption {
        Some(e) => format!("Përjashtuar ({e})"),
        None => format!("TVSH {}%", rate.normalize()),
    }
}

/// What the printed invoice shows, from the stored one.
fn printable(caller: &Caller, invoice: &Invoice) -> crate::print::PrintInvoice {
    use crate::print::{self as p};
    let unit = caller.unit.as_ref();
    let mut groups: Vec<p::VatGroup> = Vec::new();
    for line in &invoice.lines {
        let label = vat_label(line.vat_rate, line.exemption.as_deref());
        match groups.iter_mut().find(|g| g.label == label) {
            Some(g) => {
                g.net += line.net;
                g.vat += line.vat;
                g.gross += line.gross;
            }
            None => groups.push(p::VatGroup { label, net: line.net, vat: line.vat, gross: line.gross }),
        }
    }
    let t = &invoice.totals;
    let foreign = invoice.currency != "ALL";
    let b = &invoice.buyer;
    p::PrintInvoice {
        seller: p::Seller {
            name: caller.company.name.clone(),
            nuis: caller.company.nuis.clone(),
            address: caller.company.address.clone().unwrap_or_default(),
            city: caller.company.city.clone().unwrap_or_default(),
        },
        business_unit: p::BusinessUnit {
            name: unit.map(|u| u.name.clone()).unwrap_or_default(),
            code: invoice.business_unit_code.clone().unwrap_or_default(),
            address: unit.and_then(|u| u.address.clone()).unwrap_or_default(),
        },
        tcr_code: invoice.tcr_code.clone(),
        operator_code: invoice.operator_code.clone().unwrap_or_default(),
        number: invoice.number.clone(),
        issued_at: crate::domain::time::parse_stored(&invoice.issued_at)
            .map(crate::domain::time::local_text)
            .unwrap_or_default(),
        invoice_type: invoice.kind.clone(),
        buyer: b.name.as_ref().map(|name| p::Buyer {
            name: name.clone(),
            id_type: b.id_type.clone().unwrap_or_default(),
            id_value: b.id_value.clone().unwrap_or_default(),
            address: b.address.clone().unwrap_or_default(),
            city: b.city.clone().unwrap_or_default(),
            country: b.country.clone().unwrap_or_default(),
        }),
        lines: invoice
            .lines
            .iter()
            .map(|l| p::Line {
                name: l.product_name.clone(),
                code: l.product_code.clone(),
                unit: l.unit.clone(),
                quantity: l.quantity,
                unit_price: l.price,
                discount_percent: (l.discount_rate != Decimal::ZERO).then_some(l.discount_rate),
                vat_rate: l.vat_rate,
                total: l.gross,
            })
            .collect(),
        vat_groups: groups,
        invoice_discount: (t.discount_gross != Decimal::ZERO).then(|| p::InvoiceDiscount {
            amount: t.discount_gross,
            description: match (&invoice.invoice_discount_type, invoice.invoice_discount_value) {
                (Some(kind), Some(value)) if kind == "percent" => {
                    format!("Zbritje / Discount {}%", value.normalize())
                }
                _ => "Zbritje / Discount".to_string(),
            },
        }),
        fee: (t.fee != Decimal::ZERO).then_some(t.fee),
        totals: p::Totals { net: t.net, vat: t.vat, gross: t.total },
        currency: invoice.currency.clone(),
        exchange_rate: foreign.then_some(invoice.exchange_rate),
        totals_all: foreign.then_some(p::Totals { net: t.net_all, vat: t.vat_all, gross: t.gross_all }),
        payments: invoice
            .payments
            .iter()
            .map(|p| p::Payment { method: p.kind.clone(), amount: p.amount })
            .collect(),
        iic: invoice.iic.clone(),
        fic: invoice.fic.clone(),
        eic: invoice.eic.clone(),
        verify_url: invoice.verify_url.clone(),
        notes: invoice.notes.clone(),
        footer_lines: vec![format!("Arka {}", env!("CARGO_PKG_VERSION"))],
    }
}
