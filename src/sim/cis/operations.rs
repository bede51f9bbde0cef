//! One SOAP request, from its bytes to the simulator's answer: envelope, schema, signature,
//! business rules, registration, and a signed response or a fault.
//!
//! Fault codes (PROTOCOL.md section 9; Albania documents only 11 and 900, the rest follow the
//! same vendor's Montenegrin CIS):
//!
//! | code | faultcode  | when                                                                  |
//! |------|------------|-----------------------------------------------------------------------|
//! | 11   | env:Client | not SOAP, unknown operation, schema violation ("XML validation against |
//! |      |            | XSD failed, ..."), XML signature that does not verify, totals, VAT     |
//! |      |            | groups, numbering, IIC/WTNIC mismatch (strict mode), IIC or WTNIC     |
//! |      |            | already registered under another message UUID; negative quantities or |
//! |      |            | total without CorrectiveInv; a CorrectiveInv or SumInvIICRef naming   |
//! |      |            | no registered invoice of the issuer or the wrong IssueDateTime;       |
//! |      |            | CORRECTIVE documents reversing more than their invoice; a summary     |
//! |      |            | paying an invoice not paid with ORDER, one already paid in full,      |
//! |      |            | items its orders left no such unpaid, or nothing of an order it names; |
//! |      |            | an invoice paid with ORDER that names orders itself                   |
//! | 34   | env:Client | signing certificate not valid yet, or carrying no NUIS at all        |
//! | 36   | env:Client | signing certificate expired                                           |
//! | 37   | env:Client | the issuer's NUIS in the message is not in the signing certificate    |
//! | 41   | env:Client | BusinUnitCode differs from the one the TCR was registered with        |
//! | 51   | env:Client | WITHDRAW of a zero amount                                             |
//! | 53   | env:Client | TCR code not issued by this simulator, or issued to another NUIS      |
//! | 900  | env:Server | the simulator failed to build its answer                             |
//! | any  | by code    | `fault` mode: the configured code; 9xx codes are server faults       |

use std::str::FromStr;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use openssl::x509::X509;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::Inner;
use super::rules;
use super::state::{
    CashDepositRecord, InvoiceRecord, RequestOutcome, RequestRecord, State, StoredEinvoice, TcrRecord,
    WtnRecord,
};
use super::xsd::{self, DOC_TYPES, each};
use crate::domain::validation::is_xml_char;
use crate::fiscal::c14n::{Element, Select};
use crate::fiscal::dsig;
use crate::fiscal::iic::{IicInput, WtnicInput};
use crate::fiscal::model;
use crate::fiscal::requests::{EINVOICE_NS, FISCALIZATION_NS, Operation, SOAP_ENV_NS, Service};
use crate::fiscal::xml::{CanonicalWriter, escape_text};

/// The most taxpayers or e-invoices one answer lists (the schema's `maxOccurs`).
const MAX_LISTED: usize = 100;

/// A SOAP fault, before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub code: String,
    pub message: String,
}

impl Fault {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Fault { code: code.to_string(), message: message.into() }
    }

    fn schema(violation: xsd::Violation) -> Self {
        Fault::new("11", format!("XML validation against XSD failed, with exception: {}", violation.0))
    }

    /// 9xx codes are the CIS's own failures; everything else blames the request.
    fn faultcode(&self) -> &'static str {
        if self.code.starts_with('9') && self.code.len() == 3 { "env:Server" } else { "env:Client" }
    }
}

/// A request as far as it could be read, with what the log shows of it.
#[derive(Debug)]
pub struct Incoming {
    pub record: RequestRecord,
    read: Result<Readable, Fault>,
}

#[derive(Debug)]
struct Readable {
    op: Operation,
    root: Element,
    signature: Result<X509, String>,
}

/// What the simulator answers.
#[derive(Debug)]
pub enum Reply {
    /// HTTP 200 with this SOAP envelope.
    Answer(String),
    /// HTTP 500 with this SOAP fault envelope.
    Fault(String),
}

/// Reads the envelope and the request's identifying fields; nothing is checked yet.
pub fn read(body: &[u8], service: Service) -> Incoming {
    let mut record = RequestRecord {
        operation: "(unreadable)".to_string(),
        uuid: None,
        subseq_deliv_type: None,
        iic: None,
        tcr_code: None,
        signature_verified: false,
        outcome: RequestOutcome::Fault,
        fault_code: None,
        fault_string: None,
        duplicate: false,
        received_at: model::datetime(Utc::now()),
        body: Some(String::from_utf8_lossy(body).into_owned()),
    };
    let read = readable(body, service, &mut record);
    Incoming { record, read }
}

fn readable(body: &[u8], service: Service, record: &mut RequestRecord) -> Result<Readable, Fault> {
    let text = std::str::from_utf8(body)
        .map_err(|_| Fault::new("11", "Invalid byte sequence: the message is not UTF-8"))?;
    if let Some(code) = non_xml_character(text) {
        return Err(Fault::new(
            "11",
            format!("Unable to parse the message: an invalid XML character (Unicode: 0x{code:X}) was found"),
        ));
    }
    let envelope = Element::parse_document(text)
        .map_err(|e| Fault::new("11", format!("Unable to parse the message: {e}")))?;
    if envelope.namespace() != SOAP_ENV_NS || envelope.local_name() != "Envelope" {
        return Err(Fault::new("11", "The message is not a SOAP 1.1 envelope"));
    }
    let root = envelope
        .child(SOAP_ENV_NS, "Body")
        .and_then(|soap_body| soap_body.children().next())
        .ok_or_else(|| Fault::new("11", "The SOAP body is empty"))?;
    record.operation = root.local_name().to_string();
    let op = operation(service, root.local_name()).ok_or_else(|| {
        Fault::new(
            "11",
            format!("Cannot find dispatch method for {{{}}}{}", root.namespace(), root.local_name()),
        )
    })?;
    record.operation = op.request_root().trim_end_matches("Request").to_string();
    let ns = op.namespace();
    if let Some(header) = root.child(ns, "Header") {
        record.uuid = header.attribute("UUID").map(str::to_string);
        record.subseq_deliv_type = header.attribute("SubseqDelivType").map(str::to_string);
    }
    let payload = match op {
        Operation::RegisterInvoice => root.child(ns, "Invoice"),
        Operation::RegisterCashDeposit => root.child(ns, "CashDeposit"),
        Operation::RegisterWtn => root.child(ns, "WTN"),
        _ => None,
    };
    if let Some(payload) = payload {
        record.iic = payload.attribute("IIC").or_else(|| payload.attribute("WTNIC")).map(str::to_string);
        record.tcr_code = payload.attribute("TCRCode").map(str::to_string);
    }
    let signature = dsig::verify_enveloped(text, op.request_root())
        .map(|verified| verified.cert)
        .map_err(|e| e.to_string());
    record.signature_verified = signature.is_ok();
    Ok(Readable { op, root: root.clone(), signature })
}

/// The first character XML 1.0 cannot carry, raw or as a character reference (`&#0;`,
/// `&#x1F;`): a real parser stops there, before any schema or signature is looked at.
fn non_xml_character(text: &str) -> Option<u32> {
    if let Some(c) = text.chars().find(|c| !is_xml_char(*c)) {
        return Some(u32::from(c));
    }
    text.split("&#").skip(1).find_map(|reference| {
        let (digits, radix) = match reference.strip_prefix('x') {
            Some(hex) => (hex, 16),
            None => (reference, 10),
        };
        let code = u32::from_str_radix(&digits[..digits.find(';')?], radix).ok()?;
        char::from_u32(code).is_none_or(|c| !is_xml_char(c)).then_some(code)
    })
}

fn operation(service: Service, root: &str) -> Option<Operation> {
    Operation::from_request_root(root).filter(|op| op.service() == service)
}

/// A registration's result code and whether it repeats an earlier answer.
struct Registered {
    code: String,
    duplicate: bool,
}

/// Checks and answers a request in `ok` (or `slow`) mode, and fills in the log record.
pub fn answer(sim: &Inner, incoming: &mut Incoming) -> Reply {
    let request_uuid = incoming.record.uuid.clone();
    let outcome = match &incoming.read {
        Ok(readable) => respond(sim, readable, &mut incoming.record),
        Err(fault) => Err(fault.clone()),
    };
    match outcome {
        Ok(envelope) => {
            incoming.record.outcome = RequestOutcome::Accepted;
            Reply::Answer(envelope)
        }
        Err(fault) => {
            incoming.record.outcome = RequestOutcome::Fault;
            incoming.record.fault_code = Some(fault.code.clone());
            incoming.record.fault_string = Some(fault.message.clone());
            Reply::Fault(fault_envelope(&fault, request_uuid.as_deref()))
        }
    }
}

fn respond(sim: &Inner, readable: &Readable, record: &mut RequestRecord) -> Result<String, Fault> {
    let op = readable.op;
    let root = &readable.root;
    xsd::request(root, op).map_err(Fault::schema)?;
    let cert = match &readable.signature {
        Ok(cert) => cert,
        Err(reason) => return Err(Fault::new("11", format!("Signature is not valid: {reason}"))),
    };
    certificate_in_force(cert)?;
    let ns = op.namespace();
    let request_uuid = root.child(ns, "Header").and_then(|h| h.attribute("UUID")).unwrap_or_default();
    let subseq = root.child(ns, "Header").and_then(|h| h.attribute("SubseqDelivType")).map(str::to_string);
    let strict = sim.config.strict_iic;
    let element =
        |name: &str| root.child(ns, name).ok_or_else(|| Fault::new("11", format!("{name} is missing")));
    let (result, body): (Registered, Body) = match op {
        Operation::RegisterInvoice => {
            let invoice = element("Invoice")?;
            let registered = register_invoice(sim, invoice, cert, request_uuid, subseq, strict)?;
            let body = Body::Code("FIC", registered.code.clone());
            (registered, body)
        }
        Operation::RegisterTcr => {
            let registered = register_tcr(sim, element("TCR")?, cert, request_uuid)?;
            let body = Body::Code("TCRCode", registered.code.clone());
            (registered, body)
        }
        Operation::RegisterCashDeposit => {
            let registered = register_cash_deposit(sim, element("CashDeposit")?, cert, request_uuid, subseq)?;
            let body = Body::Code("FCDC", registered.code.clone());
            (registered, body)
        }
        Operation::RegisterWtn => {
            let registered = register_wtn(sim, element("WTN")?, cert, request_uuid, subseq, strict)?;
            let body = Body::Code("FWTNIC", registered.code.clone());
            (registered, body)
        }
        Operation::RegisterEinvoice => {
            let registered = register_einvoice(sim, element("EinvoiceEnvelope")?, cert, request_uuid)?;
            let body = Body::Code("EIC", registered.code.clone());
            (registered, body)
        }
        Operation::GetTaxpayers => (no_registration(), get_taxpayers(sim, element("Filter")?)),
        Operation::GetEinvoices => (no_registration(), get_einvoices(sim, root, cert)?),
        Operation::EinvoiceChangeStatus => {
            change_status(sim, root, cert)?;
            (no_registration(), Body::Code("ResponseCode", "ACCEPTED".to_string()))
        }
    };
    record.duplicate = result.duplicate;
    response(sim, op, request_uuid, &body)
}

fn no_registration() -> Registered {
    Registered { code: String::new(), duplicate: false }
}

/// The certificate's validity period must cover the present.
fn certificate_in_force(cert: &X509) -> Result<(), Fault> {
    let now = openssl::asn1::Asn1Time::days_from_now(0)
        .map_err(|e| Fault::new("900", format!("Internal error: {e}")))?;
    if cert.not_after() < now {
        return Err(Fault::new("36", "The certificate has expired"));
    }
    if cert.not_before() > now {
        return Err(Fault::new("34", "The certificate is not valid yet"));
    }
    Ok(())
}

/// The subject attributes of a certificate, as text.
fn subject_values(cert: &X509) -> Vec<String> {
    cert.subject_name().entries().filter_map(|entry| entry.data().to_string().ok()).collect()
}

/// Whether any subject attribute contains the NUIS, as `Certificate::carries_nuis` decides.
fn carries_nuis(cert: &X509, nuis: &str) -> bool {
    let wanted = nuis.trim().to_ascii_uppercase();
    !wanted.is_empty()
        && subject_values(cert).iter().any(|value| value.to_ascii_uppercase().contains(&wanted))
}

/// The first NUIS-shaped token of the subject: whose messages a query is about.
fn certificate_nuis(cert: &X509) -> Result<String, Fault> {
    subject_values(cert)
        .iter()
        .flat_map(|value| {
            value.split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_string).collect::<Vec<_>>()
        })
        .find(|token| xsd::is_nuis(token))
        .ok_or_else(|| Fault::new("34", "The certificate carries no NUIS"))
}

fn organization_name(cert: &X509) -> Option<String> {
    cert.subject_name()
        .entries_by_nid(openssl::nid::Nid::ORGANIZATIONNAME)
        .next()
        .and_then(|entry| entry.data().to_string().ok())
}

fn nuis_in_certificate(cert: &X509, nuis: &str) -> Result<(), Fault> {
    if carries_nuis(cert, nuis) {
        Ok(())
    } else {
        Err(Fault::new("37", format!("NUIS {nuis} in the message differs from the NUIS in the certificate")))
    }
}

fn attr<'a>(element: &'a Element, name: &str) -> &'a str {
    // Only read after the schema check, which guarantees the required ones.
    element.attribute(name).unwrap_or_default()
}

fn decimal(element: &Element, name: &str) -> Decimal {
    Decimal::from_str(attr(element, name)).unwrap_or(Decimal::ZERO)
}

/// The TCR must be one this simulator issued, to this issuer, for this business unit.
fn check_tcr(state: &State, tcr_code: &str, nuis: &str, busin_unit_code: Option<&str>) -> Result<(), Fault> {
    let Some(tcr) = state.tcr(tcr_code) else {
        return Err(Fault::new("53", format!("TCR code {tcr_code} is not registered")));
    };
    if !tcr.issuer_nuis.eq_ignore_ascii_case(nuis) {
        return Err(Fault::new("53", format!("TCR code {tcr_code} does not belong to the issuer {nuis}")));
    }
    if let Some(busin_unit_code) = busin_unit_code
        && tcr.busin_unit_code != busin_unit_code
    {
        return Err(Fault::new(
            "41",
            format!("Business unit code {busin_unit_code} is not the business unit of TCR {tcr_code}"),
        ));
    }
    Ok(())
}

fn register_invoice(
    sim: &Inner,
    invoice: &Element,
    cert: &X509,
    request_uuid: &str,
    subseq_deliv_type: Option<String>,
    strict: bool,
) -> Result<Registered, Fault> {
    let seller =
        invoice.child(FISCALIZATION_NS, "Seller").ok_or_else(|| Fault::new("11", "Seller is missing"))?;
    let nuis = attr(seller, "IDNum");
    nuis_in_certificate(cert, nuis)?;
    rules::numbering(invoice).map_err(|m| Fault::new("11", m))?;
    rules::totals(invoice).map_err(|m| Fault::new("11", m))?;
    let refs = rules::references(invoice);
    rules::signs_and_roles(invoice, &refs).map_err(|m| Fault::new("11", m))?;
    let iic = attr(invoice, "IIC");
    let tcr_code = invoice.attribute("TCRCode");
    let busin_unit_code = attr(invoice, "BusinUnitCode");
    if strict {
        let input = IicInput {
            nuis,
            issue_date_time: attr(invoice, "IssueDateTime"),
            ord_num: attr(invoice, "InvOrdNum").parse().unwrap_or(0),
            business_unit_code: busin_unit_code,
            tcr_code,
            soft_code: attr(invoice, "SoftCode"),
            tot_price: attr(invoice, "TotPrice"),
        };
        rules::protection_code(&input.text(), iic, attr(invoice, "IICSignature"), cert)
            .map_err(|m| Fault::new("11", format!("IIC is not valid: {m}")))?;
    }
    let mut state = sim.state();
    if let Some(tcr_code) = tcr_code {
        check_tcr(&state, tcr_code, nuis, Some(busin_unit_code))?;
    }
    if let Some(earlier) = state.registry.invoice_mut(iic) {
        if earlier.uuid != request_uuid {
            return Err(Fault::new("11", format!("IIC {iic} already registered")));
        }
        earlier.deliveries += 1;
        return Ok(Registered { code: earlier.fic.clone(), duplicate: true });
    }
    let items = rules::items(invoice);
    let paid = check_references(&state, nuis, &refs, decimal(invoice, "TotPrice"), &items)?;
    let iic_upper = iic.to_ascii_uppercase();
    for (order, paid) in refs.summarized.iter().zip(paid) {
        if let Some(order) = state.registry.invoice_mut(&order.iic) {
            for (item, paid) in order.unpaid_items.iter_mut().zip(paid) {
                item.quantity -= paid;
            }
            if order.unpaid_items.iter().all(|i| i.quantity <= Decimal::ZERO) {
                order.settled_by = Some(iic_upper.clone());
            }
        }
    }
    let fic = Uuid::new_v4().to_string();
    state.registry.push_invoice(InvoiceRecord {
        uuid: request_uuid.to_string(),
        iic: iic.to_string(),
        fic: fic.clone(),
        issuer_nuis: nuis.to_string(),
        inv_num: attr(invoice, "InvNum").to_string(),
        type_of_inv: attr(invoice, "TypeOfInv").to_string(),
        tcr_code: tcr_code.map(str::to_string),
        busin_unit_code: busin_unit_code.to_string(),
        subseq_deliv_type,
        tot_price: decimal(invoice, "TotPrice"),
        issue_date_time: attr(invoice, "IssueDateTime").to_string(),
        deliveries: 1,
        pay_methods: refs.pay_methods.clone(),
        corrects: refs.corrects.as_ref().map(|(named, _)| named.iic.clone()),
        corrective_type: refs.corrects.as_ref().map(|(_, kind)| kind.clone()),
        sum_inv_iic_refs: refs.summarized.iter().map(|r| r.iic.clone()).collect(),
        settled_by: None,
        unpaid_items: if refs.is_order() { items } else { Vec::new() },
    });
    Ok(Registered { code: fic, duplicate: false })
}

/// The invoice of the issuer registered with this IIC, as another names it: known, and issued
/// at the time given.
fn named_invoice<'a>(
    state: &'a State,
    nuis: &str,
    named: &rules::Named,
    role: &str,
) -> Result<&'a InvoiceRecord, Fault> {
    let found = state
        .registry
        .invoices
        .iter()
        .find(|i| i.iic.eq_ignore_ascii_case(&named.iic) && i.issuer_nuis.eq_ignore_ascii_case(nuis))
        .ok_or_else(|| {
            Fault::new("11", format!("{role} {} is not a registered invoice of the issuer", named.iic))
        })?;
    if !rules::same_instant(&found.issue_date_time, &named.issue_date_time) {
        return Err(Fault::new(
            "11",
            format!(
                "{role} {}: IssueDateTime {} differs from the invoice's {}",
                named.iic, named.issue_date_time, found.issue_date_time
            ),
        ));
    }
    Ok(found)
}

/// A corrective document corrects a registered invoice of its issuer, and CORRECTIVE ones
/// never reverse more than the invoice; a summary pays registered order invoices not yet paid
/// in full, with items they left unpaid (`rules::allocate`). Answers what a summary pays of
/// each item of each order it names.
fn check_references(
    state: &State,
    nuis: &str,
    refs: &rules::References,
    tot_price: Decimal,
    items: &[rules::Item],
) -> Result<Vec<Vec<Decimal>>, Fault> {
    if let Some((named, kind)) = &refs.corrects {
        let original = named_invoice(state, nuis, named, "CorrectiveInv IICRef")?;
        if kind == "CORRECTIVE" {
            let reversed: Decimal = state
                .registry
                .invoices
                .iter()
                .filter(|i| {
                    i.corrective_type.as_deref() == Some("CORRECTIVE")
                        && i.corrects.as_deref() == Some(&original.iic.to_ascii_uppercase())
                })
                .map(|i| -i.tot_price)
                .sum();
            if reversed - tot_price > original.tot_price {
                return Err(Fault::new(
                    "11",
                    format!("The corrective invoices reverse more than the invoice {}", named.iic),
                ));
            }
        }
    }
    let mut orders: Vec<(&str, &[rules::Item])> = Vec::new();
    for named in &refs.summarized {
        let order = named_invoice(state, nuis, named, "SumInvIICRef")?;
        if !order.pay_methods.iter().any(|m| m == "ORDER") {
            return Err(Fault::new(
                "11",
                format!("SumInvIICRef {} is not an invoice paid with ORDER", named.iic),
            ));
        }
        if let Some(summary) = &order.settled_by {
            return Err(Fault::new(
                "11",
                format!("SumInvIICRef {} is already settled by the invoice {summary}", named.iic),
            ));
        }
        orders.push((named.iic.as_str(), order.unpaid_items.as_slice()));
    }
    if orders.is_empty() {
        return Ok(Vec::new());
    }
    rules::allocate(items, &orders).map_err(|m| Fault::new("11", m))
}

fn register_tcr(sim: &Inner, tcr: &Element, cert: &X509, request_uuid: &str) -> Result<Registered, Fault> {
    let nuis = attr(tcr, "IssuerNUIS");
    nuis_in_certificate(cert, nuis)?;
    let mut state = sim.state();
    if let Some(earlier) =
        state.registry.tcrs.iter().find(|t| t.request_uuid.as_deref() == Some(request_uuid))
    {
        return Ok(Registered { code: earlier.tcr_code.clone(), duplicate: true });
    }
    let tcr_code = new_tcr_code(&state);
    state.registry.tcrs.push(TcrRecord {
        tcr_code: tcr_code.clone(),
        issuer_nuis: nuis.to_string(),
        busin_unit_code: attr(tcr, "BusinUnitCode").to_string(),
        tcr_int_id: tcr.attribute("TCRIntID").map(str::to_string),
        soft_code: tcr.attribute("SoftCode").map(str::to_string),
        tcr_type: tcr.attribute("Type").map(str::to_string),
        request_uuid: Some(request_uuid.to_string()),
    });
    state.remember_taxpayer(nuis, organization_name(cert));
    Ok(Registered { code: tcr_code, duplicate: false })
}

/// A fresh `[a-z]{2}[0-9]{3}[a-z]{2}[0-9]{3}` code, random so that codes from an earlier
/// run of the sandbox are not handed out again.
pub fn new_tcr_code(state: &State) -> String {
    let mut code = String::new();
    // 26^4 * 10^6 codes: a clash is rare, and a few tries always find a free one.
    for _ in 0..64 {
        let bytes = *Uuid::new_v4().as_bytes();
        let letter = |i: usize| char::from(b'a' + bytes[i] % 26);
        let digit = |i: usize| char::from(b'0' + bytes[i] % 10);
        code = [
            letter(0),
            letter(1),
            digit(2),
            digit(3),
            digit(4),
            letter(5),
            letter(7),
            digit(8),
            digit(9),
            digit(10),
        ]
        .iter()
        .collect();
        if state.tcr(&code).is_none() {
            break;
        }
    }
    code
}

fn register_cash_deposit(
    sim: &Inner,
    deposit: &Element,
    cert: &X509,
    request_uuid: &str,
    subseq_deliv_type: Option<String>,
) -> Result<Registered, Fault> {
    let nuis = attr(deposit, "IssuerNUIS");
    nuis_in_certificate(cert, nuis)?;
    let operation = attr(deposit, "Operation");
    let cash_amt = decimal(deposit, "CashAmt");
    if operation == "WITHDRAW" && cash_amt.is_zero() {
        return Err(Fault::new("51", "Cash amount cannot be zero for WITHDRAW"));
    }
    let tcr_code = attr(deposit, "TCRCode");
    let mut state = sim.state();
    check_tcr(&state, tcr_code, nuis, None)?;
    if let Some(earlier) = state.registry.cash_deposits.iter_mut().find(|d| d.uuid == request_uuid) {
        earlier.deliveries += 1;
        return Ok(Registered { code: earlier.fcdc.clone(), duplicate: true });
    }
    let fcdc = Uuid::new_v4().to_string();
    state.registry.cash_deposits.push(CashDepositRecord {
        uuid: request_uuid.to_string(),
        fcdc: fcdc.clone(),
        issuer_nuis: nuis.to_string(),
        tcr_code: tcr_code.to_string(),
        operation: operation.to_string(),
        cash_amt,
        change_date_time: attr(deposit, "ChangeDateTime").to_string(),
        subseq_deliv_type,
        deliveries: 1,
    });
    Ok(Registered { code: fcdc, duplicate: false })
}

fn register_wtn(
    sim: &Inner,
    wtn: &Element,
    cert: &X509,
    request_uuid: &str,
    subseq_deliv_type: Option<String>,
    strict: bool,
) -> Result<Registered, Fault> {
    let issuer =
        wtn.child(FISCALIZATION_NS, "Issuer").ok_or_else(|| Fault::new("11", "Issuer is missing"))?;
    let nuis = attr(issuer, "NUIS");
    nuis_in_certificate(cert, nuis)?;
    let wtnic = attr(wtn, "WTNIC");
    if strict {
        // Sources disagree on whether the ordinal or the whole WTNNum is signed
        // (PROTOCOL.md section 5), so either is accepted.
        let mut last_error = String::new();
        let valid = [attr(wtn, "WTNOrdNum"), attr(wtn, "WTNNum")].into_iter().any(|number| {
            let input = WtnicInput {
                nuis,
                issue_date_time: attr(wtn, "IssueDateTime"),
                wtn_number: number,
                business_unit_code: attr(wtn, "BusinUnitCode"),
                soft_code: attr(wtn, "SoftCode"),
            };
            match rules::protection_code(&input.text(), wtnic, attr(wtn, "WTNICSignature"), cert) {
                Ok(()) => true,
                Err(e) => {
                    last_error = e;
                    false
                }
            }
        });
        if !valid {
            return Err(Fault::new("11", format!("WTNIC is not valid: {last_error}")));
        }
    }
    let mut state = sim.state();
    if let Some(earlier) = state.registry.wtns.iter_mut().find(|w| w.wtnic.eq_ignore_ascii_case(wtnic)) {
        if earlier.uuid != request_uuid {
            return Err(Fault::new("11", format!("WTNIC {wtnic} already registered")));
        }
        earlier.deliveries += 1;
        return Ok(Registered { code: earlier.fwtnic.clone(), duplicate: true });
    }
    let fwtnic = Uuid::new_v4().to_string();
    state.registry.wtns.push(WtnRecord {
        uuid: request_uuid.to_string(),
        wtnic: wtnic.to_string(),
        fwtnic: fwtnic.clone(),
        issuer_nuis: nuis.to_string(),
        wtn_num: attr(wtn, "WTNNum").to_string(),
        busin_unit_code: attr(wtn, "BusinUnitCode").to_string(),
        value_of_goods: decimal(wtn, "ValueOfGoods"),
        subseq_deliv_type,
        deliveries: 1,
    });
    Ok(Registered { code: fwtnic, duplicate: false })
}

/// What the simulator reads of an e-invoice document (UBL or CII), by local names.
struct EinvoiceDocument {
    doc_number: String,
    doc_type: String,
    seller_nuis: Option<String>,
    seller_name: Option<String>,
    buyer_nuis: Option<String>,
    amount: Decimal,
    currency: String,
    due_date: Option<NaiveDate>,
    iic: Option<String>,
    fic: Option<String>,
}

/// Every text of the elements named `local` in `element`'s subtree, in document order.
fn texts_named(element: &Element, local: &str, out: &mut Vec<String>) {
    if element.local_name() == local {
        out.push(element.text());
    }
    for child in element.children() {
        texts_named(child, local, out);
    }
}

fn read_einvoice_document(xml: &str) -> Result<EinvoiceDocument, Fault> {
    let root = Element::parse_document(xml)
        .map_err(|e| Fault::new("11", format!("The e-invoice document is not well-formed XML: {e}")))?;
    let first_text = |names: &[&str]| {
        names.iter().find_map(|name| {
            root.find(Select::LocalName(name)).map(|e| e.text().trim().to_string()).filter(|t| !t.is_empty())
        })
    };
    let doc_number = root
        .children()
        .find(|c| c.local_name() == "ID")
        .map(|id| id.text().trim().to_string())
        .or_else(|| {
            root.find(Select::LocalName("ExchangedDocument"))
                .and_then(|d| d.children().find(|c| c.local_name() == "ID"))
                .map(|id| id.text().trim().to_string())
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "0".to_string());
    let doc_type = first_text(&["InvoiceTypeCode", "CreditNoteTypeCode", "TypeCode"])
        .filter(|code| DOC_TYPES.contains(&code.as_str()) || code == "381")
        .unwrap_or_else(|| "380".to_string());
    let amount = first_text(&["PayableAmount", "DuePayableAmount"])
        .and_then(|a| Decimal::from_str(&a).ok())
        .map(|a| a.abs().round_dp(2))
        .unwrap_or(Decimal::ZERO);
    let due_date = first_text(&["DueDate", "PaymentDueDate"])
        .and_then(|d| NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok());
    let party = |names: &[&str]| names.iter().find_map(|name| root.find(Select::LocalName(name)));
    let supplier = party(&["AccountingSupplierParty", "SellerTradeParty"]);
    let mut notes = Vec::new();
    texts_named(&root, "Note", &mut notes);
    texts_named(&root, "Content", &mut notes);
    let note = |key: &str| {
        crate::fiscal::ubl::fiscal_note(notes.iter().map(String::as_str), key).map(str::to_string)
    };
    Ok(EinvoiceDocument {
        doc_number,
        doc_type,
        seller_nuis: supplier.and_then(first_nuis),
        seller_name: supplier
            .and_then(|s| s.find(Select::LocalName("Name")))
            .map(|n| n.text().trim().to_string())
            .filter(|n| !n.is_empty()),
        buyer_nuis: party(&["AccountingCustomerParty", "BuyerTradeParty"]).and_then(first_nuis),
        amount,
        currency: first_text(&["DocumentCurrencyCode", "InvoiceCurrencyCode"])
            .unwrap_or_else(|| "ALL".to_string()),
        due_date,
        iic: note("IIC"),
        fic: note("FIC"),
    })
}

/// The first NUIS in a party's texts (`EndpointID`, or `CompanyID` written `AL` + NUIS).
fn first_nuis(party: &Element) -> Option<String> {
    let text = party.text();
    let candidate = text.trim();
    let own = [candidate, candidate.strip_prefix("AL").unwrap_or(candidate)]
        .into_iter()
        .find(|c| xsd::is_nuis(c))
        .map(str::to_string);
    own.or_else(|| party.children().find_map(first_nuis))
}

/// The document must be signed as a whole by whoever signed the request, and its fiscal codes
/// must be an invoice this simulator fiscalized for its seller.
fn check_einvoice_document(
    state: &State,
    xml: &str,
    read: &EinvoiceDocument,
    cert: &X509,
) -> Result<(), Fault> {
    let verified = dsig::verify_document(xml)
        .map_err(|e| Fault::new("11", format!("The e-invoice document's signature is not valid: {e}")))?;
    let same_signer = verified.cert.to_der().ok().zip(cert.to_der().ok()).is_some_and(|(a, b)| a == b);
    if !same_signer {
        return Err(Fault::new("11", "The e-invoice document is not signed with the request's certificate"));
    }
    let (Some(iic), Some(fic)) = (&read.iic, &read.fic) else {
        return Err(Fault::new(
            "11",
            "The e-invoice document carries no IIC and FIC (IIC=…#AAI#, FIC=…#AAI# notes)",
        ));
    };
    let fiscalized =
        state.registry.invoices.iter().find(|i| i.iic.eq_ignore_ascii_case(iic)).ok_or_else(|| {
            Fault::new("11", format!("No fiscalized invoice has the IIC {iic} of the e-invoice document"))
        })?;
    if !fiscalized.fic.eq_ignore_ascii_case(fic) {
        return Err(Fault::new(
            "11",
            format!("The FIC {fic} is not the one the invoice with IIC {iic} was given"),
        ));
    }
    if read.seller_nuis.as_deref().is_some_and(|seller| !seller.eq_ignore_ascii_case(&fiscalized.issuer_nuis))
    {
        return Err(Fault::new(
            "11",
            format!("The invoice with IIC {iic} was fiscalized by another taxpayer"),
        ));
    }
    Ok(())
}

fn register_einvoice(
    sim: &Inner,
    envelope: &Element,
    cert: &X509,
    request_uuid: &str,
) -> Result<Registered, Fault> {
    let document = envelope.children().next().ok_or_else(|| Fault::new("11", "EinvoiceEnvelope is empty"))?;
    let encoded: String = document.text().chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = openssl::base64::decode_block(&encoded)
        .map_err(|_| Fault::new("11", "The e-invoice document is not base64"))?;
    let xml =
        String::from_utf8(bytes).map_err(|_| Fault::new("11", "The e-invoice document is not UTF-8"))?;
    let read = read_einvoice_document(&xml)?;
    let seller_nuis = match &read.seller_nuis {
        Some(nuis) => nuis.clone(),
        None => certificate_nuis(cert)?,
    };
    nuis_in_certificate(cert, &seller_nuis)?;
    let mut state = sim.state();
    if let Some(earlier) =
        state.registry.einvoices.iter().find(|e| e.request_uuid.as_deref() == Some(request_uuid))
    {
        return Ok(Registered { code: earlier.eic.clone(), duplicate: true });
    }
    check_einvoice_document(&state, &xml, &read, cert)?;
    if let Some(iic) = &read.iic
        && state
            .registry
            .einvoices
            .iter()
            .any(|e| e.iic.as_deref().is_some_and(|i| i.eq_ignore_ascii_case(iic)))
    {
        return Err(Fault::new("11", format!("An e-invoice with the IIC {iic} is already registered")));
    }
    let now = Utc::now();
    let due = read
        .due_date
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .map(|midnight| midnight.and_utc())
        .unwrap_or(now + Duration::days(30));
    let eic = Uuid::new_v4().to_string();
    let mut einvoice = StoredEinvoice {
        eic: eic.clone(),
        request_uuid: Some(request_uuid.to_string()),
        seller_nuis,
        seller_name: read.seller_name,
        buyer_nuis: read.buyer_nuis,
        iic: read.iic,
        fic: read.fic,
        currency: read.currency,
        doc_number: read.doc_number,
        doc_type: read.doc_type,
        amount: read.amount,
        rec_date_time: model::datetime(now),
        due_date_time: model::datetime(due),
        status: "DELIVERED".to_string(),
        seeded: false,
        pdf: Vec::new(),
    };
    einvoice.pdf = super::state::einvoice_pdf(&einvoice);
    state.registry.einvoices.push(einvoice);
    Ok(Registered { code: eic, duplicate: false })
}

fn get_taxpayers(sim: &Inner, filter: &Element) -> Body {
    let taxpayers = sim.state().taxpayers();
    let by_tin = filter.child(EINVOICE_NS, "Tin").map(|t| t.text().trim().to_ascii_uppercase());
    let by_name = filter.child(EINVOICE_NS, "Name").map(|n| n.text().trim().to_lowercase());
    let found = taxpayers
        .into_iter()
        .filter(|t| match (&by_tin, &by_name) {
            (Some(tin), _) => t.nuis.eq_ignore_ascii_case(tin),
            (None, Some(name)) => t.name.to_lowercase().contains(name),
            (None, None) => false,
        })
        .take(MAX_LISTED)
        .collect();
    Body::Taxpayers(found)
}

/// A listed e-invoice, from the requester's side.
struct Listed {
    einvoice: StoredEinvoice,
    party_type: &'static str,
    with_pdf: bool,
}

fn get_einvoices(sim: &Inner, root: &Element, cert: &X509) -> Result<Body, Fault> {
    let nuis = certificate_nuis(cert)?;
    let text = |name: &str| root.child(EINVOICE_NS, name).map(|e| e.text().trim().to_string());
    let eic = text("EIC");
    let party = text("PartyType");
    let instant = |name: &str| text(name).and_then(|t| DateTime::parse_from_rfc3339(&t).ok());
    let (from, to) = (instant("RecDateTimeFrom"), instant("RecDateTimeTo"));
    let state = sim.state();
    let listed = state
        .registry
        .einvoices
        .iter()
        .filter_map(|e| {
            let as_buyer = e.buyer_nuis.as_deref().is_some_and(|b| b.eq_ignore_ascii_case(&nuis));
            let as_seller = e.seller_nuis.eq_ignore_ascii_case(&nuis);
            let party_type = match party.as_deref() {
                Some("BUYER") if as_buyer => "BUYER",
                Some("SELLER") if as_seller => "SELLER",
                None if as_buyer => "BUYER",
                None if as_seller => "SELLER",
                _ => return None,
            };
            if eic.as_deref().is_some_and(|wanted| !wanted.eq_ignore_ascii_case(&e.eic)) {
                return None;
            }
            let received = DateTime::parse_from_rfc3339(&e.rec_date_time).ok();
            let in_window = received.is_none_or(|r| from.is_none_or(|f| r >= f) && to.is_none_or(|t| r <= t));
            in_window.then(|| Listed { einvoice: e.clone(), party_type, with_pdf: eic.is_some() })
        })
        .take(MAX_LISTED)
        .collect();
    Ok(Body::Einvoices(listed))
}

fn change_status(sim: &Inner, root: &Element, cert: &X509) -> Result<(), Fault> {
    let nuis = certificate_nuis(cert)?;
    let status =
        root.child(EINVOICE_NS, "EinStatus").map(|s| s.text().trim().to_string()).unwrap_or_default();
    let eics: Vec<String> = root
        .child(EINVOICE_NS, "EICs")
        .map(|list| each(list, EINVOICE_NS, "EIC").map(|e| e.text().trim().to_string()).collect())
        .unwrap_or_default();
    // EICs the simulator does not hold (from before a restart, say) are acknowledged too:
    // the sandbox must not fail on what it forgot.
    let mut state = sim.state();
    for einvoice in state.registry.einvoices.iter_mut() {
        let party = einvoice.seller_nuis.eq_ignore_ascii_case(&nuis)
            || einvoice.buyer_nuis.as_deref().is_some_and(|b| b.eq_ignore_ascii_case(&nuis));
        if party && eics.iter().any(|eic| eic.eq_ignore_ascii_case(&einvoice.eic)) {
            einvoice.status = status.clone();
        }
    }
    Ok(())
}

/// The result element(s) of an answer.
enum Body {
    /// One element holding a code: `FIC`, `TCRCode`, `FCDC`, `FWTNIC`, `EIC`, `ResponseCode`.
    Code(&'static str, String),
    Taxpayers(Vec<super::state::Taxpayer>),
    Einvoices(Vec<Listed>),
}

/// The signed response element inside an `env:` envelope.
fn response(sim: &Inner, op: Operation, request_uuid: &str, body: &Body) -> Result<String, Fault> {
    let version = match op.service() {
        Service::Fiscalization => "3",
        Service::Einvoice => "1",
    };
    let uuid = Uuid::new_v4().to_string();
    let now = model::datetime(Utc::now());
    let mut w = CanonicalWriter::new();
    // The e-invoice schema fixes `Id="Request"` on its responses too, a quirk no client
    // relies on; every answer here carries `Id="Response"` as PROTOCOL.md section 2 shows.
    w.start(op.response_root(), Some(op.namespace()), &[("Id", "Response"), ("Version", version)]);
    w.empty("Header", &[("RequestUUID", request_uuid), ("SendDateTime", &now), ("UUID", &uuid)]);
    match body {
        Body::Code(name, code) => w.text_element(name, code),
        Body::Taxpayers(taxpayers) => {
            w.start("Taxpayers", None, &[]);
            for t in taxpayers {
                let mut attrs = vec![("Country", "ALB"), ("Name", t.name.as_str()), ("Tin", t.nuis.as_str())];
                if let Some(address) = &t.address {
                    attrs.push(("Address", address));
                }
                if let Some(town) = &t.town {
                    attrs.push(("Town", town));
                }
                w.empty("Taxpayer", &attrs);
            }
            w.end();
        }
        Body::Einvoices(listed) => {
            w.start("Einvoices", None, &[]);
            for l in listed {
                let e = &l.einvoice;
                let amount = model::money(e.amount);
                w.start(
                    "Einvoice",
                    None,
                    &[
                        ("Amount", &amount),
                        ("DocNumber", &e.doc_number),
                        ("DocType", &e.doc_type),
                        ("DueDateTime", &e.due_date_time),
                        ("EIC", &e.eic),
                        ("PartyType", l.party_type),
                        ("RecDateTime", &e.rec_date_time),
                        ("SellerTin", &e.seller_nuis),
                        ("Status", &e.status),
                    ],
                );
                if l.with_pdf {
                    w.text_element("Pdf", &openssl::base64::encode_block(&e.pdf));
                }
                w.end();
            }
            w.end();
        }
    }
    let element = w.finish();
    let signed = dsig::sign_enveloped(&element, &sim.certificate)
        .map_err(|e| Fault::new("900", format!("Internal error while signing the answer: {e}")))?;
    Ok(envelope(&signed))
}

fn envelope(payload: &str) -> String {
    format!(
        "<env:Envelope xmlns:env=\"{SOAP_ENV_NS}\"><env:Header/><env:Body>{payload}</env:Body></env:Envelope>"
    )
}

/// The SOAP 1.1 fault of PROTOCOL.md section 9.
pub fn fault_envelope(fault: &Fault, request_uuid: Option<&str>) -> String {
    let request_uuid = request_uuid.map(escape_text).unwrap_or_default();
    envelope(&format!(
        "<env:Fault><faultcode>{}</faultcode><faultstring>{}</faultstring><detail><code>{}</code><requestUUID>{request_uuid}</requestUUID><responseUUID>{}</responseUUID></detail></env:Fault>",
        fault.faultcode(),
        escape_text(&fault.message),
        escape_text(&fault.code),
        Uuid::new_v4()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::response::{self, Outcome};

    #[test]
    fn faults_are_read_back_by_the_client() {
        let fault = Fault::new("53", "TCR code <x> is not registered");
        let body = fault_envelope(&fault, Some("5f7c8a3e-2b1d-4c6e-9a8b-1234567890ab"));
        let Outcome::Rejected(read) = response::parse_register_invoice(&body) else {
            panic!("not a fault: {body}");
        };
        assert_eq!(read.faultcode, "env:Client");
        assert_eq!(read.code.as_deref(), Some("53"));
        assert_eq!(read.faultstring, "TCR code <x> is not registered");
        assert_eq!(read.request_uuid.as_deref(), Some("5f7c8a3e-2b1d-4c6e-9a8b-1234567890ab"));
        assert!(read.response_uuid.is_some_and(|u| xsd::is_uuid(&u)));
        let server = fault_envelope(&Fault::new("900", "Internal error"), None);
        let Outcome::Rejected(read) = response::parse_register_tcr(&server) else {
            panic!("not a fault");
        };
        assert!(read.blames_the_cis());
    }

    #[test]
    fn a_character_xml_cannot_carry_is_a_parse_error_like_the_real_cis_gives() {
        // | message                          | refused at  |
        let table = [
            ("<a>x\u{0}y</a>", Some(0x0)),
            ("<a N=\"\u{1F}\"/>", Some(0x1F)),
            ("<a>&#0;</a>", Some(0x0)),
            ("<a>&#x1f;</a>", Some(0x1F)),
            ("<a>\u{FFFE}</a>", Some(0xFFFE)),
            ("<a>&#55296;</a>", Some(0xD800)),
            ("<a>ë&#xEB;&#10;&amp;\t\r\n</a>", None),
        ];
        for (text, refused) in table {
            assert_eq!(non_xml_character(text), refused, "{text:?}");
        }
        let body = "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>a\u{0}b</s:Body></s:Envelope>";
        let incoming = read(body.as_bytes(), Service::Fiscalization);
        let fault = incoming.read.unwrap_err();
        assert_eq!(fault.code, "11");
        assert!(fault.message.contains("0x0"), "{}", fault.message);
    }

    #[test]
    fn tcr_codes_have_the_registration_code_shape() {
        let state = State::new();
        for _ in 0..50 {
            assert!(xsd::is_registration_code(&new_tcr_code(&state)));
        }
    }

    #[test]
    fn an_einvoice_document_gives_its_parties_number_and_amount() {
        let ubl = "<Invoice xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\" xmlns:cbc=\"urn:cbc\" xmlns:cac=\"urn:cac\"><cbc:ID>22/2025</cbc:ID><cbc:DueDate>2025-03-01</cbc:DueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode><cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID=\"9923\">I12345678I</cbc:EndpointID></cac:Party></cac:AccountingSupplierParty><cac:AccountingCustomerParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>ALK81234001A</cbc:CompanyID></cac:PartyTaxScheme></cac:Party></cac:AccountingCustomerParty><cac:LegalMonetaryTotal><cbc:PayableAmount currencyID=\"ALL\">120.5</cbc:PayableAmount></cac:LegalMonetaryTotal></Invoice>";
        let read = read_einvoice_document(ubl).unwrap();
        assert_eq!(read.doc_number, "22/2025");
        assert_eq!(read.doc_type, "380");
        assert_eq!(read.seller_nuis.as_deref(), Some("I12345678I"));
        assert_eq!(read.buyer_nuis.as_deref(), Some("K81234001A"));
        assert_eq!(read.amount, Decimal::from_str("120.50").unwrap());
        assert_eq!(read.due_date, NaiveDate::from_ymd_opt(2025, 3, 1));
        let minimal = read_einvoice_document(
            "<Invoice><ID>1/2025</ID><CreditNoteTypeCode>381</CreditNoteTypeCode></Invoice>",
        )
        .unwrap();
        assert_eq!(minimal.doc_type, "381");
        assert_eq!(minimal.seller_nuis, None);
        assert!(read_einvoice_document("not xml").is_err());
    }
}
