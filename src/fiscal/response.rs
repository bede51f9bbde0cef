//! What the CIS answered: an accepted document, a SOAP fault, or nothing usable.
//!
//! The three outcomes are kept apart in the types because the caller must treat them
//! differently: an accepted document is done, a rejected one must be fixed (re-sending it
//! unchanged only earns the same fault), and one that was not delivered goes to the deferred
//! queue and is sent again later.
//!
//! Elements are matched by local name only: the CIS and its sister systems answer with
//! different envelope prefixes (`env:`, `soap:`, `S:`) and fault details in no documented
//! namespace.

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use rust_decimal::Decimal;
use std::str::FromStr;

use super::dsig;

/// The result of one exchange with the CIS.
#[derive(Debug)]
pub enum Outcome<T> {
    /// The CIS accepted the request and answered with its result.
    Accepted(T),
    /// The CIS refused the request with a SOAP fault.
    Rejected(Fault),
    /// No answer from the CIS could be read: the request may or may not have reached it.
    NotDelivered(NotDelivered),
}

impl<T> Outcome<T> {
    /// Keeps the outcome, transforming what was accepted.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        match self {
            Outcome::Accepted(t) => Outcome::Accepted(f(t)),
            Outcome::Rejected(fault) => Outcome::Rejected(fault),
            Outcome::NotDelivered(reason) => Outcome::NotDelivered(reason),
        }
    }
}

/// A SOAP 1.1 fault from the CIS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// `faultcode`, e.g. `env:Client` or `env:Server`.
    pub faultcode: String,
    /// `detail/code`: `11` for schema and business-rule failures, 34..58 for the rest.
    pub code: Option<String>,
    /// `faultstring`: the CIS's own explanation.
    pub faultstring: String,
    /// `detail/requestUUID`: our `Header@UUID`, echoed.
    pub request_uuid: Option<String>,
    /// `detail/responseUUID`
    pub response_uuid: Option<String>,
}

impl Fault {
    /// Whether the CIS blames itself rather than the request: a `Server` fault, or a code of
    /// the 9xx family the CIS uses for its own failures (900 internal error, 920 outage,
    /// PROTOCOL.md section 9). Such a fault may go away when the same request is sent again
    /// later; any other fault (`Client`, or an unknown class) blames the request.
    pub fn blames_the_cis(&self) -> bool {
        let local = self.faultcode.rsplit_once(':').map_or(self.faultcode.as_str(), |(_, local)| local);
        let own_code = self
            .code
            .as_deref()
            .is_some_and(|c| c.len() == 3 && c.starts_with('9') && c.bytes().all(|b| b.is_ascii_digit()));
        local.eq_ignore_ascii_case("server") || own_code
    }
}

/// Why no answer of the CIS could be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotDelivered {
    /// No connection could be made (DNS, refused, unreachable, TLS handshake).
    Connect(String),
    /// A connect or overall time limit ran out.
    Timeout(String),
    /// The connection failed after it was made.
    Io(String),
    /// An HTTP error status without a SOAP fault (a proxy's or a load balancer's page).
    HttpStatus { status: u16, body_excerpt: String },
    /// A reply came but it is not a SOAP answer to this request.
    Unparseable(String),
}

/// `Header` of every response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseHeader {
    /// `UUID`: the CIS's id of its answer.
    pub uuid: String,
    /// `RequestUUID`: our `Header@UUID`, echoed.
    pub request_uuid: String,
    /// `SendDateTime`, as the CIS wrote it.
    pub send_date_time: String,
}

/// What became of the response's own XML signature.
#[derive(Debug)]
pub enum SignatureCheck {
    /// The response carried no `Signature`.
    Absent,
    /// The signature verified against the certificate the response carried. (An answer whose
    /// signature does not verify never reaches a caller: it is `NotDelivered`.)
    Verified(dsig::Verified),
}

impl SignatureCheck {
    pub fn is_verified(&self) -> bool {
        matches!(self, SignatureCheck::Verified(_))
    }
}

/// `RegisterInvoiceResponse`
#[derive(Debug)]
pub struct InvoiceAccepted {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `FIC`
    pub fic: String,
}

/// `RegisterTCRResponse`
#[derive(Debug)]
pub struct TcrAccepted {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `TCRCode`
    pub tcr_code: String,
}

/// `RegisterCashDepositResponse`
#[derive(Debug)]
pub struct CashDepositAccepted {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `FCDC`
    pub fcdc: String,
}

/// `RegisterWTNResponse`
#[derive(Debug)]
pub struct WtnAccepted {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `FWTNIC`
    pub fwtnic: String,
}

/// `RegisterEinvoiceResponse`
#[derive(Debug)]
pub struct EinvoiceAccepted {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `EIC`
    pub eic: String,
    /// `Warnings/Warning`
    pub warnings: Vec<Warning>,
}

/// `Warning`: both attributes are optional in the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// `Code`
    pub code: Option<String>,
    /// `Description`
    pub description: Option<String>,
}

/// `GetTaxpayersResponse`
#[derive(Debug)]
pub struct Taxpayers {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `Taxpayers/Taxpayer`
    pub taxpayers: Vec<Taxpayer>,
}

/// `Taxpayer`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taxpayer {
    /// `Name`
    pub name: String,
    /// `Tin`: the NUIS.
    pub tin: String,
    /// `Address`
    pub address: Option<String>,
    /// `Town`
    pub town: Option<String>,
    /// `Country`
    pub country: Option<String>,
}

/// `GetEinvoicesResponse`
#[derive(Debug)]
pub struct Einvoices {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `Einvoices/Einvoice`
    pub einvoices: Vec<EinvoiceRecord>,
}

/// `Einvoice` of a `GetEinvoicesResponse`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EinvoiceRecord {
    /// `EIC`
    pub eic: String,
    /// `DocNumber`
    pub doc_number: String,
    /// `DocType`: UNCL1001 code, e.g. `380`.
    pub doc_type: String,
    /// `RecDateTime`
    pub rec_date_time: String,
    /// `DueDateTime`
    pub due_date_time: String,
    /// `Status`: `ACCEPTED`, `REFUSED`, `PAID` or `PARTIALLY_PAID`.
    pub status: String,
    /// `Amount`
    pub amount: Decimal,
    /// `PartyType`: `BUYER` or `SELLER`.
    pub party_type: String,
    /// `SellerTin`: the seller's NUIS. Not in the 2020 schema; the live platform answers it
    /// (clients read it), so it is read when present.
    pub seller_tin: Option<String>,
    /// `Pdf`: the PDF in base64, as sent; only when asked for one EIC.
    pub pdf: Option<String>,
}

/// `EinvoiceChangeStatusResponse`
#[derive(Debug)]
pub struct StatusChanged {
    pub header: ResponseHeader,
    pub signature: SignatureCheck,
    /// `ResponseCode`: `ACCEPTED` is the only value the schema allows.
    pub response_code: String,
}

pub fn parse_register_invoice(body: &str) -> Outcome<InvoiceAccepted> {
    parse_answer(body, "RegisterInvoiceResponse", |answer, header, signature| {
        Ok(InvoiceAccepted { fic: answer.required_text("FIC")?, header, signature })
    })
}

pub fn parse_register_tcr(body: &str) -> Outcome<TcrAccepted> {
    parse_answer(body, "RegisterTCRResponse", |answer, header, signature| {
        Ok(TcrAccepted { tcr_code: answer.required_text("TCRCode")?, header, signature })
    })
}

pub fn parse_register_cash_deposit(body: &str) -> Outcome<CashDepositAccepted> {
    parse_answer(body, "RegisterCashDepositResponse", |answer, header, signature| {
        Ok(CashDepositAccepted { fcdc: answer.required_text("FCDC")?, header, signature })
    })
}

pub fn parse_register_wtn(body: &str) -> Outcome<WtnAccepted> {
    parse_answer(body, "RegisterWTNResponse", |answer, header, signature| {
        Ok(WtnAccepted { fwtnic: answer.required_text("FWTNIC")?, header, signature })
    })
}

pub fn parse_register_einvoice(body: &str) -> Outcome<EinvoiceAccepted> {
    parse_answer(body, "RegisterEinvoiceResponse", |answer, header, signature| {
        let warnings = answer
            .child("Warnings")
            .map(|list| {
                list.children_named("Warning")
                    .map(|w| Warning {
                        code: w.attr("Code").map(str::to_string),
                        description: w.attr("Description").map(str::to_string),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(EinvoiceAccepted { eic: answer.required_text("EIC")?, warnings, header, signature })
    })
}

pub fn parse_get_taxpayers(body: &str) -> Outcome<Taxpayers> {
    parse_answer(body, "GetTaxpayersResponse", |answer, header, signature| {
        let list = answer.required_child("Taxpayers")?;
        let taxpayers = list
            .children_named("Taxpayer")
            .map(|t| {
                Ok(Taxpayer {
                    name: t.required_attr("Name")?,
                    tin: t.required_attr("Tin")?,
                    address: t.attr("Address").map(str::to_string),
                    town: t.attr("Town").map(str::to_string),
                    country: t.attr("Country").map(str::to_string),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Taxpayers { taxpayers, header, signature })
    })
}

pub fn parse_get_einvoices(body: &str) -> Outcome<Einvoices> {
    parse_answer(body, "GetEinvoicesResponse", |answer, header, signature| {
        let list = answer.required_child("Einvoices")?;
        let einvoices = list
            .children_named("Einvoice")
            .map(|e| {
                let amount = e.required_attr("Amount")?;
                Ok(EinvoiceRecord {
                    eic: e.required_attr("EIC")?,
                    doc_number: e.required_attr("DocNumber")?,
                    doc_type: e.required_attr("DocType")?,
                    rec_date_time: e.required_attr("RecDateTime")?,
                    due_date_time: e.required_attr("DueDateTime")?,
                    status: e.required_attr("Status")?,
                    amount: Decimal::from_str(&amount)
                        .map_err(|_| format!("Einvoice@Amount is not a number: {amount}"))?,
                    party_type: e.required_attr("PartyType")?,
                    seller_tin: e.attr("SellerTin").map(str::to_string),
                    // Base64 may be wrapped over lines; the decoder of the caller's choice
                    // should not have to cope with that.
                    pdf: e
                        .child("Pdf")
                        .map(|p| p.text.chars().filter(|c| !c.is_ascii_whitespace()).collect()),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Einvoices { einvoices, header, signature })
    })
}

pub fn parse_einvoice_change_status(body: &str) -> Outcome<StatusChanged> {
    parse_answer(body, "EinvoiceChangeStatusResponse", |answer, header, signature| {
        Ok(StatusChanged { response_code: answer.required_text("ResponseCode")?, header, signature })
    })
}

/// Reads the SOAP body, tells a fault from an answer, reads the answer's header and checks
/// its signature; `extract` reads the operation's own result.
fn parse_answer<T>(
    body: &str,
    response_root: &str,
    extract: impl FnOnce(&Node, ResponseHeader, SignatureCheck) -> Result<T, String>,
) -> Outcome<T> {
    let envelope = match parse_tree(body) {
        Ok(root) => root,
        Err(e) => return Outcome::NotDelivered(NotDelivered::Unparseable(e)),
    };
    let payload = match soap_payload(&envelope) {
        Ok(payload) => payload,
        Err(e) => return Outcome::NotDelivered(NotDelivered::Unparseable(e)),
    };
    if payload.name == "Fault" {
        return Outcome::Rejected(read_fault(payload));
    }
    if payload.name != response_root {
        return Outcome::NotDelivered(NotDelivered::Unparseable(format!(
            "expected {response_root} in the SOAP body, found {}",
            payload.name
        )));
    }
    let header = match read_header(payload) {
        Ok(header) => header,
        Err(e) => return Outcome::NotDelivered(NotDelivered::Unparseable(e)),
    };
    // A signed answer that does not verify cannot be trusted: it is treated as no answer, so the
    // document is sent again (same UUID and IIC) rather than stored with a code the CIS never gave.
    let signature = if payload.child("Signature").is_some() {
        match dsig::verify_enveloped(body, response_root) {
            Ok(verified) => SignatureCheck::Verified(verified),
            Err(e) => {
                return Outcome::NotDelivered(NotDelivered::Unparseable(format!(
                    "the answer's signature does not verify: {e}"
                )));
            }
        }
    } else {
        SignatureCheck::Absent
    };
    match extract(payload, header, signature) {
        Ok(answer) => Outcome::Accepted(answer),
        Err(e) => Outcome::NotDelivered(NotDelivered::Unparseable(e)),
    }
}

fn soap_payload(envelope: &Node) -> Result<&Node, String> {
    if envelope.name != "Envelope" {
        return Err(format!("not a SOAP envelope: root is {}", envelope.name));
    }
    let body = envelope.child("Body").ok_or_else(|| "SOAP envelope without Body".to_string())?;
    body.children.first().ok_or_else(|| "empty SOAP Body".to_string())
}

fn read_fault(fault: &Node) -> Fault {
    let detail = fault.child("detail").or_else(|| fault.child("Detail"));
    let detail_text = |name: &str| {
        detail.and_then(|d| d.descendant(name)).map(|n| n.text.trim().to_string()).filter(|t| !t.is_empty())
    };
    Fault {
        faultcode: fault.child("faultcode").map(|n| n.text.trim().to_string()).unwrap_or_default(),
        code: detail_text("code"),
        faultstring: fault.child("faultstring").map(|n| n.text.trim().to_string()).unwrap_or_default(),
        request_uuid: detail_text("requestUUID"),
        response_uuid: detail_text("responseUUID"),
    }
}

fn read_header(answer: &Node) -> Result<ResponseHeader, String> {
    let header = answer.required_child("Header")?;
    Ok(ResponseHeader {
        uuid: header.required_attr("UUID")?,
        request_uuid: header.required_attr("RequestUUID")?,
        send_date_time: header.required_attr("SendDateTime")?,
    })
}

/// A parsed element: local names only, attributes unescaped, text concatenated.
#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
    text: String,
}

impl Node {
    fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    fn descendant(&self, name: &str) -> Option<&Node> {
        self.children.iter().find_map(|c| if c.name == name { Some(c) } else { c.descendant(name) })
    }

    fn required_child(&self, name: &str) -> Result<&Node, String> {
        self.child(name).ok_or_else(|| format!("{} without {name}", self.name))
    }

    fn required_text(&self, name: &str) -> Result<String, String> {
        let text = self.required_child(name)?.text.trim();
        if text.is_empty() {
            return Err(format!("{} has an empty {name}", self.name));
        }
        Ok(text.to_string())
    }

    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    fn required_attr(&self, name: &str) -> Result<String, String> {
        self.attr(name).map(str::to_string).ok_or_else(|| format!("{} without @{name}", self.name))
    }
}

fn parse_tree(body: &str) -> Result<Node, String> {
    let mut reader = Reader::from_str(body);
    let mut stack: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("not well-formed XML at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(start) => stack.push(open_node(&start)?),
            Event::Empty(start) => {
                let node = open_node(&start)?;
                attach(&mut stack, &mut root, node)?;
            }
            Event::End(_) => {
                let node = stack.pop().ok_or_else(|| "closing tag without an opening one".to_string())?;
                attach(&mut stack, &mut root, node)?;
            }
            Event::Text(text) => {
                if let Some(open) = stack.last_mut() {
                    open.text.push_str(&text.xml10_content());
                }
            }
            Event::CData(data) => {
                if let Some(open) = stack.last_mut() {
                    open.text.push_str(&data.xml10_content());
                }
            }
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => {
                        let name = reference.xml10_content();
                        resolve_predefined_entity(&name)
                            .ok_or_else(|| format!("unknown entity &{name};"))?
                            .to_string()
                    }
                    Err(e) => return Err(format!("bad character reference: {e}")),
                };
                if let Some(open) = stack.last_mut() {
                    open.text.push_str(&resolved);
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
    if !stack.is_empty() {
        return Err("the document ends inside an element".to_string());
    }
    root.ok_or_else(|| "no XML element in the reply".to_string())
}

fn open_node(start: &BytesStart) -> Result<Node, String> {
    let mut attrs = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| format!("bad attribute: {e}"))?;
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("bad attribute value: {e}"))?;
        let key = attribute.key.local_name();
        attrs.push((key.into_inner().to_string(), value.into_owned()));
    }
    Ok(Node { name: start.local_name().into_inner().to_string(), attrs, ..Node::default() })
}

fn attach(stack: &mut [Node], root: &mut Option<Node>, node: Node) -> Result<(), String> {
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None if root.is_none() => *root = Some(node),
        None => return Err("more than one root element".to_string()),
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fiscal::requests::tests::vector_certificate;
    use crate::fiscal::requests::{EINVOICE_NS, FISCALIZATION_NS};

    const REQUEST_UUID: &str = "5f7c8a3e-2b1d-4c6e-9a8b-1234567890ab";
    const CIS_UUID: &str = "0a7e3c1b-9d2f-4e8a-b6c5-3f2e1d0c9b8a";
    pub(crate) const FIC: &str = "8e3f6a9c-1b2d-4c5e-8f7a-6b5c4d3e2f1a";

    /// A canonical response element as the CIS builds it, before its signature.
    fn answer(root: &str, ns: &str, inner: &str) -> String {
        format!(
            "<{root} xmlns=\"{ns}\" Id=\"Response\" Version=\"3\"><Header RequestUUID=\"{REQUEST_UUID}\" SendDateTime=\"2024-11-22T10:15:01+01:00\" UUID=\"{CIS_UUID}\"></Header>{inner}</{root}>"
        )
    }

    fn signed(element: &str) -> String {
        crate::fiscal::dsig::sign_enveloped(element, &vector_certificate()).unwrap()
    }

    fn envelope(prefix: &str, payload: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<{prefix}:Envelope xmlns:{prefix}=\"http://schemas.xmlsoap.org/soap/envelope/\">\n  <{prefix}:Header/>\n  <{prefix}:Body>{payload}</{prefix}:Body>\n</{prefix}:Envelope>\n"
        )
    }

    /// A signed, accepted RegisterInvoiceResponse inside an `env:` envelope.
    pub(crate) fn accepted_invoice_body() -> String {
        let inner = format!("<FIC>{FIC}</FIC>");
        envelope("env", &signed(&answer("RegisterInvoiceResponse", FISCALIZATION_NS, &inner)))
    }

    /// The fault of PROTOCOL.md section 9 (schema validation failure, code 11).
    pub(crate) fn validation_fault_body() -> String {
        format!(
            "<env:Envelope xmlns:env=\"http://schemas.xmlsoap.org/soap/envelope/\"><env:Header/><env:Body><env:Fault><faultcode>env:Client</faultcode><faultstring>XML validation against XSD failed, with exception: cvc-pattern-valid: Value &apos;ns187ov411fdafd&apos; is not facet-valid with respect to pattern &apos;[a-z]{{2}}[0-9]{{3}}[a-z]{{2}}[0-9]{{3}}&apos; for type &apos;RegistrationCodeSType&apos;.</faultstring><detail><code>11</code><requestUUID>{REQUEST_UUID}</requestUUID><responseUUID>{CIS_UUID}</responseUUID></detail></env:Fault></env:Body></env:Envelope>"
        )
    }

    fn unparseable<T: std::fmt::Debug>(outcome: Outcome<T>) -> String {
        match outcome {
            Outcome::NotDelivered(NotDelivered::Unparseable(reason)) => reason,
            other => panic!("expected an unparseable answer, got {other:?}"),
        }
    }

    #[test]
    fn a_signed_invoice_answer_is_accepted_with_its_fic_header_and_verified_signature() {
        let Outcome::Accepted(accepted) = parse_register_invoice(&accepted_invoice_body()) else {
            panic!("not accepted");
        };
        assert_eq!(accepted.fic, FIC);
        assert_eq!(
            accepted.header,
            ResponseHeader {
                uuid: CIS_UUID.to_string(),
                request_uuid: REQUEST_UUID.to_string(),
                send_date_time: "2024-11-22T10:15:01+01:00".to_string(),
            }
        );
        let SignatureCheck::Verified(verified) = &accepted.signature else {
            panic!("signature not verified: {:?}", accepted.signature);
        };
        assert_eq!(verified.reference_id, "Response");
        assert!(accepted.signature.is_verified());
    }

    #[test]
    fn a_tampered_answer_is_not_trusted() {
        let body = accepted_invoice_body().replace(FIC, "11111111-1b2d-4c5e-8f7a-6b5c4d3e2f1a");
        let Outcome::NotDelivered(NotDelivered::Unparseable(why)) = parse_register_invoice(&body) else {
            panic!("a tampered answer was trusted");
        };
        assert!(why.contains("signature"), "{why}");
    }

    #[test]
    fn an_unsigned_answer_says_so() {
        let body = envelope(
            "soap",
            &answer("RegisterInvoiceResponse", FISCALIZATION_NS, &format!("<FIC>{FIC}</FIC>")),
        );
        let Outcome::Accepted(accepted) = parse_register_invoice(&body) else {
            panic!("not accepted");
        };
        assert!(matches!(accepted.signature, SignatureCheck::Absent));
    }

    #[test]
    fn a_validation_fault_is_rejected_with_code_and_uuids() {
        let Outcome::Rejected(fault) = parse_register_invoice(&validation_fault_body()) else {
            panic!("not rejected");
        };
        assert_eq!(fault.faultcode, "env:Client");
        assert!(!fault.blames_the_cis());
        assert_eq!(fault.code.as_deref(), Some("11"));
        assert!(fault.faultstring.starts_with(
            "XML validation against XSD failed, with exception: cvc-pattern-valid: Value 'ns187ov411fdafd'"
        ));
        assert_eq!(fault.request_uuid.as_deref(), Some(REQUEST_UUID));
        assert_eq!(fault.response_uuid.as_deref(), Some(CIS_UUID));
    }

    #[test]
    fn a_server_fault_with_namespaced_detail_is_rejected() {
        let body = "<S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\"><S:Body><S:Fault><faultcode>S:Server</faultcode><faultstring>Internal error &#x26; more</faultstring><detail><ns2:FiscalizationServiceFault xmlns:ns2=\"https://eFiskalizimi.tatime.gov.al/FiscalizationService/schema\"><ns2:code>900</ns2:code></ns2:FiscalizationServiceFault></detail></S:Fault></S:Body></S:Envelope>";
        let Outcome::Rejected(fault) = parse_register_tcr(body) else {
            panic!("not rejected");
        };
        assert!(fault.blames_the_cis());
        assert_eq!(fault.code.as_deref(), Some("900"));
        assert_eq!(fault.faultstring, "Internal error & more");
        assert_eq!(fault.request_uuid, None);
    }

    #[test]
    fn garbage_and_foreign_answers_are_unparseable() {
        assert!(unparseable(parse_register_invoice("")).contains("no XML element"));
        unparseable(parse_register_invoice("<html><body>502 Bad Gateway</body></html>"));
        unparseable(parse_register_invoice("<env:Envelope xmlns:env=\"x\"><env:Body>"));
        unparseable(parse_register_invoice("definitely not xml <<<"));
        unparseable(parse_register_invoice(
            "<env:Envelope xmlns:env=\"http://schemas.xmlsoap.org/soap/envelope/\"><env:Body></env:Body></env:Envelope>",
        ));
        let tcr_answer = envelope(
            "env",
            &answer("RegisterTCRResponse", FISCALIZATION_NS, "<TCRCode>ab123cd456</TCRCode>"),
        );
        assert!(
            unparseable(parse_register_invoice(&tcr_answer)).contains("expected RegisterInvoiceResponse")
        );
        let no_fic = envelope("env", &answer("RegisterInvoiceResponse", FISCALIZATION_NS, ""));
        assert!(unparseable(parse_register_invoice(&no_fic)).contains("without FIC"));
    }

    #[test]
    fn tcr_cash_deposit_and_wtn_answers_carry_their_codes() {
        let tcr = envelope(
            "env",
            &signed(&answer("RegisterTCRResponse", FISCALIZATION_NS, "<TCRCode>ab123cd456</TCRCode>")),
        );
        let Outcome::Accepted(tcr) = parse_register_tcr(&tcr) else {
            panic!("tcr not accepted");
        };
        assert_eq!(tcr.tcr_code, "ab123cd456");
        assert!(tcr.signature.is_verified());

        let deposit = envelope(
            "env",
            &answer("RegisterCashDepositResponse", FISCALIZATION_NS, &format!("<FCDC>{FIC}</FCDC>")),
        );
        let Outcome::Accepted(deposit) = parse_register_cash_deposit(&deposit) else {
            panic!("deposit not accepted");
        };
        assert_eq!(deposit.fcdc, FIC);

        let wtn = envelope(
            "env",
            &answer("RegisterWTNResponse", FISCALIZATION_NS, &format!("<FWTNIC>{FIC}</FWTNIC>")),
        );
        let Outcome::Accepted(wtn) = parse_register_wtn(&wtn) else {
            panic!("wtn not accepted");
        };
        assert_eq!(wtn.fwtnic, FIC);
        assert_eq!(wtn.header.request_uuid, REQUEST_UUID);
    }

    #[test]
    fn an_einvoice_answer_carries_its_eic_and_warnings() {
        let inner = format!(
            "<EIC>{FIC}</EIC><Warnings><Warning Code=\"W1\" Description=\"Buyer &lt;unknown>\"></Warning><Warning></Warning></Warnings>"
        );
        let body = envelope("env", &signed(&answer("RegisterEinvoiceResponse", EINVOICE_NS, &inner)));
        let Outcome::Accepted(accepted) = parse_register_einvoice(&body) else {
            panic!("not accepted");
        };
        assert_eq!(accepted.eic, FIC);
        assert_eq!(
            accepted.warnings,
            vec![
                Warning { code: Some("W1".to_string()), description: Some("Buyer <unknown>".to_string()) },
                Warning { code: None, description: None },
            ]
        );
        assert!(accepted.signature.is_verified());
    }

    #[test]
    fn taxpayers_are_listed() {
        let inner = "<Taxpayers><Taxpayer Address=\"Rruga 1\" Country=\"ALB\" Name=\"Çeliku &amp; Bijtë\" Tin=\"K91234567A\" Town=\"Tiranë\"></Taxpayer><Taxpayer Name=\"Tjetri\" Tin=\"L01234567B\"></Taxpayer></Taxpayers>";
        let body = envelope("env", &answer("GetTaxpayersResponse", EINVOICE_NS, inner));
        let Outcome::Accepted(found) = parse_get_taxpayers(&body) else {
            panic!("not accepted");
        };
        assert_eq!(
            found.taxpayers,
            vec![
                Taxpayer {
                    name: "Çeliku & Bijtë".to_string(),
                    tin: "K91234567A".to_string(),
                    address: Some("Rruga 1".to_string()),
                    town: Some("Tiranë".to_string()),
                    country: Some("ALB".to_string()),
                },
                Taxpayer {
                    name: "Tjetri".to_string(),
                    tin: "L01234567B".to_string(),
                    address: None,
                    town: None,
                    country: None,
                },
            ]
        );
        let none = envelope("env", &answer("GetTaxpayersResponse", EINVOICE_NS, "<Taxpayers></Taxpayers>"));
        let Outcome::Accepted(none) = parse_get_taxpayers(&none) else {
            panic!("not accepted");
        };
        assert!(none.taxpayers.is_empty());
    }

    #[test]
    fn einvoices_are_listed_with_their_pdf() {
        let inner = format!(
            "<Einvoices><Einvoice Amount=\"120.00\" DocNumber=\"17/2024\" DocType=\"380\" DueDateTime=\"2024-12-21T00:00:00+01:00\" EIC=\"{FIC}\" PartyType=\"BUYER\" RecDateTime=\"2024-11-21T09:00:05+01:00\" SellerTin=\"K81234001A\" Status=\"ACCEPTED\"><Pdf>JVBERi0x\n LjQK</Pdf></Einvoice></Einvoices>"
        );
        let body = envelope("env", &signed(&answer("GetEinvoicesResponse", EINVOICE_NS, &inner)));
        let Outcome::Accepted(listed) = parse_get_einvoices(&body) else {
            panic!("not accepted");
        };
        assert_eq!(
            listed.einvoices,
            vec![EinvoiceRecord {
                eic: FIC.to_string(),
                doc_number: "17/2024".to_string(),
                doc_type: "380".to_string(),
                rec_date_time: "2024-11-21T09:00:05+01:00".to_string(),
                due_date_time: "2024-12-21T00:00:00+01:00".to_string(),
                status: "ACCEPTED".to_string(),
                amount: Decimal::from_str("120.00").unwrap(),
                party_type: "BUYER".to_string(),
                seller_tin: Some("K81234001A".to_string()),
                pdf: Some("JVBERi0xLjQK".to_string()),
            }]
        );
        let bad_amount = body.replace("Amount=\"120.00\"", "Amount=\"a lot\"");
        unparseable(parse_get_einvoices(&bad_amount));
    }

    #[test]
    fn a_status_change_is_acknowledged() {
        let body = envelope(
            "env",
            &answer("EinvoiceChangeStatusResponse", EINVOICE_NS, "<ResponseCode>ACCEPTED</ResponseCode>"),
        );
        let Outcome::Accepted(changed) = parse_einvoice_change_status(&body) else {
            panic!("not accepted");
        };
        assert_eq!(changed.response_code, "ACCEPTED");
    }
}
