//! The rules of an invoice request around its lines and payments (`super::issue` checks those):
//! what is answered before anything is looked up (`check_body`), and the dates, currency,
//! internalId and document type checked with the lines (`check_details`). What needs the store
//! (a stored client, a credit note's original, a bank account, a transfer note) is the service's.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Deserialize;

use super::super::document::{DocumentKind, InvoiceType};
use super::super::fields;
use super::super::spelled::spelled;
use super::super::validation::{self, FieldErrors, is_currency_code, is_nuis};
use super::{IssueTexts, LineInput, check_texts};

/// Why a body is refused before anything is looked up.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyRefusal {
    /// No internalId, or a blank one: v1 names the field, v2 answers in the standard envelope.
    NoInternalId,
    Invalid(FieldErrors),
}

/// What `check_body` reads of an issue body.
#[derive(Debug, Clone, Copy, Default)]
pub struct SentBody<'a> {
    pub internal_id: Option<&'a str>,
    pub lines: Option<&'a [LineInput]>,
    pub fee: Option<Decimal>,
    pub texts: IssueTexts<'a>,
}

/// The internalId sent, trimmed; blank is none.
pub fn sent_internal_id(sent: Option<&str>) -> Option<String> {
    sent.map(str::trim).filter(|i| !i.is_empty()).map(str::to_string)
}

/// The rules of a cash, non-cash or order body answered first, one at a time in this order:
/// an internalId, at least one line, a fee only on a non-cash invoice, then the free texts'
/// lengths (all of them at once). Returns the internalId, trimmed.
pub fn check_body(kind: DocumentKind, body: &SentBody) -> Result<String, BodyRefusal> {
    let internal_id = sent_internal_id(body.internal_id).ok_or(BodyRefusal::NoInternalId)?;
    if body.lines.is_none_or(<[LineInput]>::is_empty) {
        return Err(BodyRefusal::Invalid(FieldErrors::one(
            "lines",
            "The lines field is required and must hold at least one line.",
        )));
    }
    if kind != DocumentKind::NonCash && body.fee.is_some_and(|f| f != Decimal::ZERO) {
        return Err(BodyRefusal::Invalid(FieldErrors::one(
            "fee",
            "A fee is only accepted on a non-cash invoice.",
        )));
    }
    check_texts(&body.texts).map_err(BodyRefusal::Invalid)?;
    Ok(internal_id)
}

/// An order is paid by its summary invoice, which takes the invoice discount: each payment or
/// discount field `sent` (its key, whether the body has it) is 422 naming it.
pub fn check_order_body(sent: &[(&str, bool)]) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    for (field, _) in sent.iter().filter(|(_, sent)| *sent) {
        errors.add(
            *field,
            format!("An order invoice takes no {field}: it is paid by its summary invoice, which takes the invoice discount."),
        );
    }
    errors.into_result()
}

/// What `check_details` reads of a request.
#[derive(Debug, Clone, Copy, Default)]
pub struct Details<'a> {
    pub internal_id: &'a str,
    pub due_date: Option<&'a str>,
    pub supply_start_date: Option<&'a str>,
    pub supply_end_date: Option<&'a str>,
    pub currency: Option<&'a str>,
    pub doc_type: Option<&'a str>,
    pub original_invoice_iic: Option<&'a str>,
}

/// The details read: the days parsed and the currency upper-cased (`ALL` when absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedDetails {
    pub due: Option<NaiveDate>,
    pub supply_start: Option<NaiveDate>,
    pub supply_end: Option<NaiveDate>,
    pub currency: String,
}

/// The details of an invoice of `invoice_type`, their problems added to `errors` (merged with
/// the lines' by the caller, so that one answer names them all): the days are YYYY-MM-DD, the
/// currency ISO 4217, the internalId at most 255 characters and not a name Arka gives a
/// cancellation (`validation::is_cancellation_name`), and a non-cash invoice's
/// `doc_type` one of 380, 381 (a credit note, with the 32 characters of its original's IIC) or
/// 383.
pub fn check_details(invoice_type: InvoiceType, d: &Details, errors: &mut FieldErrors) -> CheckedDetails {
    let due = errors.date("due_date", d.due_date);
    let supply_start = errors.date("supply_start_date", d.supply_start_date);
    let supply_end = errors.date("supply_end_date", d.supply_end_date);
    let currency = currency(errors, d.currency);
    validation::internal_id_length(errors, d.internal_id);
    validation::not_a_cancellation_name(errors, d.internal_id);
    if invoice_type == InvoiceType::NonCash {
        match d.doc_type {
            None | Some("380") | Some("383") => {}
            Some("381") if d.original_invoice_iic.is_some_and(|i| i.len() == 32) => {}
            Some("381") => {
                errors.add("original_invoice_iic", "A credit note (381) needs original_invoice_iic.")
            }
            Some(_) => errors.add("doc_type", "The doc_type must be one of 380, 381, 383."),
        }
    }
    CheckedDetails { due, supply_start, supply_end, currency }
}

/// The currency of a body: ISO 4217, upper-cased, `ALL` when absent.
pub fn currency(errors: &mut FieldErrors, sent: Option<&str>) -> String {
    let currency = sent.map(str::trim).filter(|c| !c.is_empty()).unwrap_or("ALL").to_uppercase();
    if !is_currency_code(&currency) {
        errors.add("currency", "The currency must be a three-letter ISO 4217 code.");
    }
    currency
}

/// The buyer as sent (`client`); all optional, as the spec's body. Its identifier arrives as an
/// object (`{"id": .., "type": ..}`) or as the bare identifier.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "ClientBody")]
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
    pub fn is_empty(&self) -> bool {
        self.internal_id.is_none()
            && [&self.name, &self.id_type, &self.id_value, &self.address, &self.city, &self.country]
                .iter()
                .all(|f| f.as_deref().is_none_or(|v| v.trim().is_empty()))
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ClientIdBody {
    Object {
        #[serde(default, deserialize_with = "fields::opt_text")]
        id: Option<String>,
        #[serde(rename = "type")]
        kind: Option<String>,
    },
    Text(String),
}

/// The `client` of a body as JSON has it.
#[derive(Deserialize)]
struct ClientBody {
    internal_id: Option<i64>,
    name: Option<String>,
    id: Option<ClientIdBody>,
    address: Option<String>,
    city: Option<String>,
    country: Option<String>,
}

impl From<ClientBody> for ClientInput {
    fn from(c: ClientBody) -> ClientInput {
        let (id_value, id_type) = match c.id {
            Some(ClientIdBody::Object { id, kind }) => (id, kind),
            Some(ClientIdBody::Text(t)) => (Some(t), None),
            None => (None, None),
        };
        ClientInput {
            internal_id: c.internal_id,
            name: c.name,
            id_type,
            id_value,
            address: c.address,
            city: c.city,
            country: c.country,
        }
    }
}

spelled! {
    /// `SelfIssSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum TypeOfSelfIss {
        /// Prior agreement with the supplier.
        Agreement = "AGREEMENT",
        /// Purchase from domestic farmers.
        Domestic = "DOMESTIC",
        /// Services bought abroad.
        Abroad = "ABROAD",
        /// Self-consumption.
        SelfConsumption = "SELF",
        Other = "OTHER",
    }
}

spelled! {
    /// How a buyer or seller is identified: the CIS's `IDTypeSType`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum BuyerIdType {
        Nuis = "NUIS",
        Id = "ID",
        Pass = "PASS",
        Vat = "VAT",
        Tax = "TAX",
        Soc = "SOC",
    }
}

impl BuyerIdType {
    /// The type as a POS app sends it: any case, and NIPT, PASSPORT and SOCIAL for NUIS, PASS
    /// and SOC.
    pub fn sent(text: &str) -> Option<BuyerIdType> {
        match text.trim().to_uppercase().as_str() {
            "NIPT" => Some(BuyerIdType::Nuis),
            "PASSPORT" => Some(BuyerIdType::Pass),
            "SOCIAL" => Some(BuyerIdType::Soc),
            other => BuyerIdType::ALL.into_iter().find(|t| t.as_str() == other),
        }
    }
}

/// The buyer of an invoice as stored: its client when one is named, its identifier's type
/// spelled as the CIS spells it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Buyer {
    pub client_id: Option<i64>,
    pub name: Option<String>,
    pub id_type: Option<String>,
    pub id_value: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
}

/// Why `buyer` refuses.
#[derive(Debug, Clone, PartialEq)]
pub enum BuyerRefusal {
    /// 422, the fields named.
    Invalid(FieldErrors),
    /// A named client without address or city (400 with the list).
    Incomplete { message: String, errors: Vec<String> },
}

fn trimmed(value: &Option<String>) -> Option<String> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_string)
}

/// The buyer's rules: a named client needs address and city (400), any sent field needs a name
/// (422), the country is ISO alpha-3 (default ALB), a non-cash invoice's buyer is identified by
/// NUIS, a self-issued invoice needs an identified seller and a country. `client` is what was
/// sent, or the stored client it names.
pub fn buyer(
    kind: DocumentKind,
    self_issue_type: Option<&str>,
    client: Option<&ClientInput>,
) -> Result<Buyer, BuyerRefusal> {
    let Some(client) = client.filter(|c| !c.is_empty()) else {
        if self_issue_type.is_some() {
            let errors = FieldErrors::one("client", "A self-issued invoice needs the seller as client.");
            return Err(BuyerRefusal::Invalid(errors));
        }
        if kind == DocumentKind::NonCash {
            return Err(BuyerRefusal::Invalid(FieldErrors::one(
                "client.name",
                "A non-cash invoice needs a buyer.",
            )));
        }
        return Ok(Buyer::default());
    };
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
    let id_type = identification(&mut errors, kind, id_value.as_deref(), trimmed(&client.id_type));
    if let Some(kind) = self_issue_type {
        self_issued(&mut errors, kind, id_value.as_deref(), trimmed(&client.country).is_some());
    }
    errors.into_result().map_err(BuyerRefusal::Invalid)?;
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
        return Err(BuyerRefusal::Incomplete {
            message: "The client's address and city are required.".into(),
            errors: missing,
        });
    }
    Ok(Buyer {
        client_id: client.internal_id,
        name,
        id_type: id_type.map(|t| t.as_str().to_string()),
        id_value,
        address,
        city,
        country: Some(country),
    })
}

/// The identifier's type (NUIS for a bare NUIS, else ID, when none is sent) and its rules: a
/// non-cash invoice's buyer has a NUIS, and a NUIS is a letter, eight digits and a letter.
fn identification(
    errors: &mut FieldErrors,
    kind: DocumentKind,
    id_value: Option<&str>,
    sent_type: Option<String>,
) -> Option<BuyerIdType> {
    let id_type = match (id_value, sent_type) {
        (Some(v), None) if is_nuis(v) => Some(BuyerIdType::Nuis),
        (Some(_), None) => Some(BuyerIdType::Id),
        (_, Some(t)) => {
            let parsed = BuyerIdType::sent(&t);
            if parsed.is_none() {
                errors.add(
                    "client.id.type",
                    "The client.id.type must be one of NUIS, ID, PASS, VAT, TAX, SOC.",
                );
            }
            parsed
        }
        (None, None) => None,
    };
    if kind == DocumentKind::NonCash && id_type != Some(BuyerIdType::Nuis) {
        errors.add("client.id", "A non-cash invoice's buyer is identified by NUIS.");
    }
    if id_type == Some(BuyerIdType::Nuis) && !id_value.is_some_and(is_nuis) {
        errors.add("client.id", "The client's NUIS must be a letter, eight digits and a letter.");
    }
    id_type
}

/// A self-issued invoice names its kind, and its seller (the client) by identifier and country.
fn self_issued(errors: &mut FieldErrors, kind: &str, id_value: Option<&str>, country_sent: bool) {
    if TypeOfSelfIss::parse(kind).is_none() {
        errors.add(
            "self_issue_type",
            "The self_issue_type must be one of DOMESTIC, ABROAD, OTHER, AGREEMENT, SELF.",
        );
    }
    if id_value.is_none() {
        errors.add("client.id", "A self-issued invoice needs the seller's NUIS or document number.");
    }
    if !country_sent {
        errors.add("client.country", "A self-issued invoice needs the seller's country.");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::validation::INTERNAL_ID_REQUIRED;

    /// The key and message a row expects, or none when it passes.
    type Expected = Option<(&'static str, &'static str)>;

    fn line() -> LineInput {
        LineInput { product_name: Some("Kafe".into()), ..LineInput::default() }
    }

    fn refusal(kind: DocumentKind, body: SentBody) -> Option<(String, String)> {
        match check_body(kind, &body) {
            Ok(_) => None,
            Err(BodyRefusal::NoInternalId) => Some(("(envelope)".into(), INTERNAL_ID_REQUIRED.into())),
            Err(BodyRefusal::Invalid(errors)) => {
                errors.into_map().into_iter().next().map(|(key, messages)| (key, messages.join(" | ")))
            }
        }
    }

    #[test]
    fn the_body_rules_answered_first() {
        let lines = [line()];
        let long_notes = "n".repeat(1001);
        let ok = SentBody { internal_id: Some(" a-1 "), lines: Some(&lines), ..SentBody::default() };
        // | rule                         | body                       | key      | message
        let table: Vec<(&str, DocumentKind, SentBody, Expected)> = vec![
            ("a full body passes", DocumentKind::Cash, ok, None),
            (
                "no internalId",
                DocumentKind::Cash,
                SentBody { internal_id: None, ..ok },
                Some(("(envelope)", "The internalId field is required.")),
            ),
            (
                "a blank internalId",
                DocumentKind::NonCash,
                SentBody { internal_id: Some("  "), ..ok },
                Some(("(envelope)", "The internalId field is required.")),
            ),
            (
                "no lines",
                DocumentKind::Cash,
                SentBody { lines: None, ..ok },
                Some(("lines", "The lines field is required and must hold at least one line.")),
            ),
            (
                "an empty list of lines",
                DocumentKind::Cash,
                SentBody { lines: Some(&[]), ..ok },
                Some(("lines", "The lines field is required and must hold at least one line.")),
            ),
            (
                "a fee on a cash invoice",
                DocumentKind::Cash,
                SentBody { fee: Some(Decimal::ONE), ..ok },
                Some(("fee", "A fee is only accepted on a non-cash invoice.")),
            ),
            (
                "a fee on an order",
                DocumentKind::Order,
                SentBody { fee: Some(Decimal::ONE), ..ok },
                Some(("fee", "A fee is only accepted on a non-cash invoice.")),
            ),
            (
                "a zero fee on a cash invoice",
                DocumentKind::Cash,
                SentBody { fee: Some(Decimal::ZERO), ..ok },
                None,
            ),
            (
                "a fee on a non-cash invoice",
                DocumentKind::NonCash,
                SentBody { fee: Some(Decimal::ONE), ..ok },
                None,
            ),
            (
                "notes over 1000 characters",
                DocumentKind::Cash,
                SentBody { texts: IssueTexts { notes: Some(&long_notes), ..IssueTexts::default() }, ..ok },
                Some(("notes", "The notes field must not be greater than 1000 characters.")),
            ),
        ];
        for (rule, kind, body, expected) in table {
            let expected = expected.map(|(k, m)| (k.to_string(), m.to_string()));
            assert_eq!(refusal(kind, body), expected, "{rule}");
        }
        assert_eq!(check_body(DocumentKind::Cash, &ok), Ok("a-1".to_string()));
    }

    #[test]
    fn an_order_takes_no_payment_and_no_invoice_discount() {
        // | sent                                     | keys refused
        let message = |field: &str| {
            format!(
                "An order invoice takes no {field}: it is paid by its summary invoice, which takes the invoice discount."
            )
        };
        assert_eq!(check_order_body(&[("payment_method", false), ("vouchers", false)]), Ok(()));
        let refused =
            check_order_body(&[("payment_method", true), ("vouchers", false), ("company_card", true)])
                .unwrap_err()
                .into_map();
        let expected: Vec<(String, Vec<String>)> = ["company_card", "payment_method"]
            .into_iter()
            .map(|field| (field.to_string(), vec![message(field)]))
            .collect();
        assert_eq!(refused.into_iter().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn the_details_checked_with_the_lines() {
        let long_id = "i".repeat(256);
        let iic = "A".repeat(32);
        let ok = Details { internal_id: "a-1", ..Details::default() };
        // | rule                              | type    | details            | key                  | message
        let table: Vec<(&str, InvoiceType, Details, Expected)> = vec![
            ("nothing but an internalId", InvoiceType::Cash, ok, None),
            (
                "a due date not YYYY-MM-DD",
                InvoiceType::NonCash,
                Details { due_date: Some("01.03.2026"), ..ok },
                Some(("due_date", "The due_date must be a date in the format YYYY-MM-DD.")),
            ),
            (
                "a supply start not a day",
                InvoiceType::Cash,
                Details { supply_start_date: Some("2026-02-30"), ..ok },
                Some(("supply_start_date", "The supply_start_date must be a date in the format YYYY-MM-DD.")),
            ),
            (
                "a supply end not a day",
                InvoiceType::Cash,
                Details { supply_end_date: Some("x"), ..ok },
                Some(("supply_end_date", "The supply_end_date must be a date in the format YYYY-MM-DD.")),
            ),
            (
                "a currency not ISO 4217",
                InvoiceType::Cash,
                Details { currency: Some("EURO"), ..ok },
                Some(("currency", "The currency must be a three-letter ISO 4217 code.")),
            ),
            (
                "an internalId over 255 characters",
                InvoiceType::Cash,
                Details { internal_id: &long_id, ..ok },
                Some(("internalId", "The internalId must not be greater than 255 characters.")),
            ),
            (
                "a doc_type outside 380, 381, 383",
                InvoiceType::NonCash,
                Details { doc_type: Some("384"), ..ok },
                Some(("doc_type", "The doc_type must be one of 380, 381, 383.")),
            ),
            (
                "a credit note without its original",
                InvoiceType::NonCash,
                Details { doc_type: Some("381"), ..ok },
                Some(("original_invoice_iic", "A credit note (381) needs original_invoice_iic.")),
            ),
            (
                "a credit note with its original",
                InvoiceType::NonCash,
                Details { doc_type: Some("381"), original_invoice_iic: Some(&iic), ..ok },
                None,
            ),
            (
                "a doc_type on a cash invoice is not read",
                InvoiceType::Cash,
                Details { doc_type: Some("1"), ..ok },
                None,
            ),
        ];
        for (rule, invoice_type, details, expected) in table {
            let mut errors = FieldErrors::new();
            check_details(invoice_type, &details, &mut errors);
            let found =
                errors.into_map().into_iter().next().map(|(key, messages)| (key, messages.join(" | ")));
            assert_eq!(found, expected.map(|(k, m)| (k.to_string(), m.to_string())), "{rule}");
        }
    }

    #[test]
    fn the_details_read_days_and_an_upper_case_currency() {
        let details = Details {
            internal_id: "a-1",
            due_date: Some(" 2026-03-31 "),
            currency: Some(" eur "),
            ..Details::default()
        };
        let mut errors = FieldErrors::new();
        let checked = check_details(InvoiceType::NonCash, &details, &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(checked.due, NaiveDate::from_ymd_opt(2026, 3, 31));
        assert_eq!(checked.currency, "EUR");
        assert_eq!(currency(&mut errors, None), "ALL");
    }

    /// A rule, the document kind, its self-issue type, the client sent, the keys and messages.
    type BuyerRow<'a> =
        (&'a str, DocumentKind, Option<&'a str>, Option<&'a ClientInput>, Vec<(&'a str, &'a str)>);

    fn client(id: Option<&str>, id_type: Option<&str>) -> ClientInput {
        ClientInput {
            name: Some("Bar Kalaja".into()),
            id_value: id.map(str::to_string),
            id_type: id_type.map(str::to_string),
            address: Some("Rruga e Kavajës 10".into()),
            city: Some("Tiranë".into()),
            ..ClientInput::default()
        }
    }

    fn verdict(
        kind: DocumentKind,
        self_issue: Option<&str>,
        sent: Option<&ClientInput>,
    ) -> Vec<(String, String)> {
        match buyer(kind, self_issue, sent) {
            Ok(_) => vec![],
            Err(BuyerRefusal::Invalid(errors)) => {
                errors.into_map().into_iter().map(|(k, m)| (k, m.join(" | "))).collect()
            }
            Err(BuyerRefusal::Incomplete { message, errors }) => vec![(message, errors.join(" | "))],
        }
    }

    #[test]
    fn the_buyer_rules() {
        let nuis = Some("K12345678L");
        let named = client(nuis, None);
        let no_name = ClientInput { name: None, ..named.clone() };
        let bad_country = ClientInput { country: Some("AL".into()), ..named.clone() };
        let no_address = ClientInput { address: None, city: None, ..named.clone() };
        let abroad = ClientInput { country: Some("ITA".into()), ..client(Some("X1"), Some("PASS")) };
        let passport = client(Some("X1"), Some("passport"));
        let odd_type = client(Some("X1"), Some("card"));
        let bad_nuis = client(Some("123"), Some("NIPT"));
        // | rule                                   | kind    | self-issue | client       | key: message
        let table: Vec<BuyerRow> = vec![
            ("a cash sale needs no buyer", DocumentKind::Cash, None, None, vec![]),
            (
                "a non-cash invoice needs a buyer",
                DocumentKind::NonCash,
                None,
                None,
                vec![("client.name", "A non-cash invoice needs a buyer.")],
            ),
            (
                "a self-issued invoice needs its seller",
                DocumentKind::Cash,
                Some("AGREEMENT"),
                None,
                vec![("client", "A self-issued invoice needs the seller as client.")],
            ),
            ("a named buyer with a NUIS", DocumentKind::NonCash, None, Some(&named), vec![]),
            (
                "a client without a name",
                DocumentKind::Cash,
                None,
                Some(&no_name),
                vec![("client.name", "The client.name field is required when a client is sent.")],
            ),
            (
                "a country not ISO alpha-3",
                DocumentKind::Cash,
                None,
                Some(&bad_country),
                vec![(
                    "client.country",
                    "The client.country must be a three-letter ISO 3166-1 alpha-3 code.",
                )],
            ),
            (
                "an identifier type outside the CIS's",
                DocumentKind::Cash,
                None,
                Some(&odd_type),
                vec![("client.id.type", "The client.id.type must be one of NUIS, ID, PASS, VAT, TAX, SOC.")],
            ),
            (
                "a non-cash buyer without a NUIS",
                DocumentKind::NonCash,
                None,
                Some(&passport),
                vec![("client.id", "A non-cash invoice's buyer is identified by NUIS.")],
            ),
            (
                "a NUIS that is not one",
                DocumentKind::Cash,
                None,
                Some(&bad_nuis),
                vec![("client.id", "The client's NUIS must be a letter, eight digits and a letter.")],
            ),
            (
                "a self-issue kind outside the CIS's",
                DocumentKind::Cash,
                Some("GIFT"),
                Some(&abroad),
                vec![(
                    "self_issue_type",
                    "The self_issue_type must be one of DOMESTIC, ABROAD, OTHER, AGREEMENT, SELF.",
                )],
            ),
            (
                "a self-issued invoice names its seller's country",
                DocumentKind::Cash,
                Some("ABROAD"),
                Some(&passport),
                vec![("client.country", "A self-issued invoice needs the seller's country.")],
            ),
            ("a self-issued invoice from abroad", DocumentKind::Cash, Some("ABROAD"), Some(&abroad), vec![]),
            (
                "a named client without address and city (400)",
                DocumentKind::Cash,
                None,
                Some(&no_address),
                vec![(
                    "The client's address and city are required.",
                    "client.address: the address of a named client is required. | client.city: the city of a named client is required.",
                )],
            ),
        ];
        for (rule, kind, self_issue, sent, expected) in table {
            let expected: Vec<(String, String)> =
                expected.into_iter().map(|(k, m)| (k.to_string(), m.to_string())).collect();
            assert_eq!(verdict(kind, self_issue, sent), expected, "{rule}");
        }
    }

    #[test]
    fn a_buyer_is_stored_in_the_cis_spelling() {
        let stored = buyer(DocumentKind::Cash, None, Some(&client(Some("X1"), Some("passport")))).unwrap();
        assert_eq!(stored.id_type.as_deref(), Some("PASS"));
        assert_eq!(stored.country.as_deref(), Some("ALB"));
        let bare_nuis = buyer(DocumentKind::NonCash, None, Some(&client(Some("K12345678L"), None))).unwrap();
        assert_eq!(bare_nuis.id_type.as_deref(), Some("NUIS"));
        let bare_other = buyer(DocumentKind::Cash, None, Some(&client(Some("A1"), None))).unwrap();
        assert_eq!(bare_other.id_type.as_deref(), Some("ID"));
        for (sent, read) in
            [("nipt", BuyerIdType::Nuis), ("Social", BuyerIdType::Soc), (" vat ", BuyerIdType::Vat)]
        {
            assert_eq!(BuyerIdType::sent(sent), Some(read), "{sent}");
        }
    }

    #[test]
    fn a_client_reads_its_identifier_as_an_object_or_bare() {
        let object: ClientInput =
            serde_json::from_str(r#"{"name": "A", "id": {"id": 12345, "type": "ID"}}"#).unwrap();
        assert_eq!((object.id_value.as_deref(), object.id_type.as_deref()), (Some("12345"), Some("ID")));
        let bare: ClientInput = serde_json::from_str(r#"{"name": "A", "id": "K12345678L"}"#).unwrap();
        assert_eq!((bare.id_value.as_deref(), bare.id_type), (Some("K12345678L"), None));
    }
}
