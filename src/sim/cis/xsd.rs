//! The rules of the tax administration's schemas that a client can get wrong, checked by hand
//! and reported in the words of the CIS's Java validator (Xerces), so a fault from the
//! simulator reads like one from the real service.
//!
//! Not a general XSD engine: every element a request may contain is walked here explicitly,
//! with its required attributes, lexical patterns, enumerations and child counts. Attributes
//! the schema does not know are tolerated (the c14n tree cannot list them, and the 2021
//! service accepts `IsEinvoice` and `Source`, which the bundled schema lacks).

use std::sync::LazyLock;

use chrono::{DateTime, NaiveDate};

use super::{EINVOICE_XSD, FISCALIZATION_XSD};
use crate::fiscal::c14n::{Element, XMLDSIG_NS};
use crate::fiscal::requests::{FISCALIZATION_NS, Operation, Service};

/// The codes `Einvoice@DocType` may carry in the 2020 schema. A credit note (381, a UBL
/// CreditNote) is listed as 381 all the same: the platform registers credit notes, and a buyer
/// must be able to tell one from an invoice.
pub const DOC_TYPES: &[&str] = &["80", "82", "84", "380", "383", "386", "393", "395", "575", "623", "780"];

/// A schema violation, worded as Xerces words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation(pub String);

pub type Checked = Result<(), Violation>;

pub const SUBSEQ_DELIV_TYPES: &[&str] = &["NOINTERNET", "BOUNDBOOK", "SERVICE", "TECHNICALERROR"];
const INVOICE_TYPES: &[&str] = &["CASH", "NONCASH"];
const SELF_ISS_TYPES: &[&str] = &["AGREEMENT", "DOMESTIC", "ABROAD", "SELF", "OTHER"];
const PAY_METHOD_TYPES: &[&str] = &[
    "BANKNOTE",
    "CARD",
    "CHECK",
    "SVOUCHER",
    "COMPANY",
    "ORDER",
    "ACCOUNT",
    "FACTORING",
    "COMPENSATION",
    "TRANSFER",
    "WAIVER",
    "KIND",
    "OTHER",
];
const CORRECTIVE_TYPES: &[&str] = &["CORRECTIVE", "DEBIT", "CREDIT"];
const ID_TYPES: &[&str] = &["NUIS", "ID", "PASS", "VAT", "TAX", "SOC"];
const ITEM_EXEMPTIONS: &[&str] = &["TYPE_1", "TYPE_2", "TAX_FREE", "MARGIN_SCHEME", "EXPORT_OF_GOODS"];
const SAME_TAX_EXEMPTIONS: &[&str] = &["TYPE_1", "TYPE_2"];
const FEE_TYPES: &[&str] = &["PACK", "BOTTLE", "COMMISSION", "OTHER"];
const CASH_DEPOSIT_OPERATIONS: &[&str] = &["INITIAL", "WITHDRAW", "DEPOSIT"];
const TCR_TYPES: &[&str] = &["REGULAR", "VENDING"];
const WTN_TYPES: &[&str] = &["WTN", "SALE"];
const WTN_TRANSACTIONS: &[&str] = &["SALES", "EXAMINATION", "TRANSFER", "DOOR"];
const WTN_START_POINTS: &[&str] =
    &["WAREHOUSE", "EXHIBITION", "STORE", "SALE", "ANOTHER", "CUSTOMS", "OTHER"];
const WTN_DESTIN_POINTS: &[&str] = &["WAREHOUSE", "EXHIBITION", "STORE", "SALE", "OTHER"];
const VEH_OWNERSHIPS: &[&str] = &["OWNER", "THIRDPARTY"];
const CARRIER_ID_TYPES: &[&str] = &["NUIS", "ID"];
const PARTY_TYPES: &[&str] = &["BUYER", "SELLER"];
pub const EINVOICE_STATUSES: &[&str] = &["ACCEPTED", "REFUSED", "PAID", "PARTIALLY_PAID"];

/// The 250 countries and 161 currencies are read from the embedded schema rather than
/// copied here, so the two can never disagree.
static COUNTRIES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| enumeration_in(FISCALIZATION_XSD.text(), "CountryCodeSType"));
static CURRENCIES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| enumeration_in(FISCALIZATION_XSD.text(), "CurrencyCodeSType"));
static EINVOICE_COUNTRIES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| enumeration_in(EINVOICE_XSD.text(), "CountryCodeSType"));

/// The `value`s of one `simpleType`'s enumeration in a schema text.
fn enumeration_in(xsd: &'static str, type_name: &str) -> Vec<&'static str> {
    let opening = format!("<simpleType name=\"{type_name}\">");
    let Some(start) = xsd.find(&opening) else {
        return Vec::new();
    };
    let rest = &xsd[start..];
    let body = rest.find("</simpleType>").map_or(rest, |end| &rest[..end]);
    body.split("value=\"").skip(1).filter_map(|piece| piece.split('"').next()).collect()
}

/// A simple type of the schemas, named as the schemas name it (the names appear in faults).
#[derive(Debug, Clone, Copy)]
pub enum SType {
    /// `DecimalSType`: non-negative money.
    Decimal,
    /// `DecimalNegSType`: signed money.
    DecimalNeg,
    /// `DoubleNegForQuantitySType`
    Quantity,
    /// `DoubleSType`: a double above zero.
    Double,
    /// `IntSType`: an int above zero.
    Int,
    /// `RegistrationCodeSType`
    RegistrationCode,
    /// `NUISSType` (fiscalization) or `NUISType` (e-invoice).
    Nuis(&'static str),
    /// `InvNumSType`
    InvNum,
    /// `WTNNumSType`
    WtnNum,
    /// `Hex32SType`
    Hex32,
    /// `Hex512SType`
    Hex512,
    /// `VoucherNumSType`
    VoucherNum,
    /// `VehPlatesSType`
    VehPlates,
    /// `UUIDSType`
    Uuid,
    /// `UTCSType`
    Utc,
    /// `DateSType`
    Date,
    /// `xs:boolean`
    Boolean,
    /// `xs:base64Binary`
    Base64,
    /// A `StringNNSType` with its length bounds.
    Text { name: &'static str, min: usize, max: usize },
    /// A string enumeration.
    Enumeration(&'static [&'static str]),
    /// `CountryCodeSType` of the fiscalization or e-invoice schema.
    Country(Service),
    /// `CurrencyCodeSType`
    Currency,
}

const NUIS: SType = SType::Nuis("NUISSType");
const STRING20: SType = SType::Text { name: "String20SType", min: 1, max: 20 };
const STRING50: SType = SType::Text { name: "String50SType", min: 1, max: 50 };
const STRING100: SType = SType::Text { name: "String100SType", min: 1, max: 100 };
const STRING200: SType = SType::Text { name: "String200SType", min: 1, max: 200 };

const DECIMAL_PATTERN: &str = "([1-9][0-9]*|0)\\.[0-9]{2}|0";
const DECIMAL_NEG_PATTERN: &str = "-?([1-9][0-9]*|0)\\.[0-9]{2}|0";
const QUANTITY_PATTERN: &str = "-?([1-9][0-9]*|0)(\\.[0-9]{1,3})?";
const REGISTRATION_CODE_PATTERN: &str = "[a-z]{2}[0-9]{3}[a-z]{2}[0-9]{3}";
const NUIS_PATTERN: &str = "[a-zA-Z]{1}[0-9]{8}[a-zA-Z]{1}";
const INV_NUM_PATTERN: &str = "[1-9]{1}[0-9]{0,14}\\/[0-9]{4}(\\/[a-z]{2}[0-9]{3}[a-z]{2}[0-9]{3})?";
const WTN_NUM_PATTERN: &str = "[1-9]{1}[0-9]{0,14}\\/[0-9]{4}";
const VOUCHER_NUM_PATTERN: &str = "[1-9]{1}[0-9]{0,7}-[0-9]{4}-[a-zA-Z]{1}[0-9]{8}[a-zA-Z]{1}";
const UUID_PATTERN: &str =
    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}";
const UTC_PATTERN: &str = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}";
const DATE_PATTERN: &str = "[0-9]{4}-[0-9]{2}-[0-9]{2}";

/// Checks one lexical value against its type.
pub fn check_value(value: &str, ty: SType) -> Checked {
    match ty {
        SType::Decimal => decimal_type(value, DECIMAL_PATTERN, "DecimalSType", is_money(value, false)),
        SType::DecimalNeg => {
            decimal_type(value, DECIMAL_NEG_PATTERN, "DecimalNegSType", is_money(value, true))
        }
        SType::Quantity => {
            if value.parse::<f64>().is_err() {
                return Err(not_valid(value, "double"));
            }
            pattern(value, QUANTITY_PATTERN, "DoubleNegForQuantitySType", is_quantity(value))
        }
        SType::Double => match value.parse::<f64>() {
            Ok(number) if number > 0.0 => Ok(()),
            Ok(_) => Err(min_exclusive(value, "DoubleSType")),
            Err(_) => Err(not_valid(value, "double")),
        },
        SType::Int => match value.parse::<i32>() {
            Ok(number) if number > 0 => Ok(()),
            Ok(_) => Err(min_exclusive(value, "IntSType")),
            Err(_) => Err(not_valid(value, "integer")),
        },
        SType::RegistrationCode => {
            pattern(value, REGISTRATION_CODE_PATTERN, "RegistrationCodeSType", is_registration_code(value))
        }
        SType::Nuis(name) => pattern(value, NUIS_PATTERN, name, is_nuis(value)),
        SType::InvNum => pattern(value, INV_NUM_PATTERN, "InvNumSType", is_inv_num(value)),
        SType::WtnNum => pattern(value, WTN_NUM_PATTERN, "WTNNumSType", is_wtn_num(value)),
        SType::Hex32 => pattern(value, "[0-9a-fA-F]{32}", "Hex32SType", is_hex(value, 32)),
        SType::Hex512 => pattern(value, "[0-9a-fA-F]{512}", "Hex512SType", is_hex(value, 512)),
        SType::VoucherNum => pattern(value, VOUCHER_NUM_PATTERN, "VoucherNumSType", is_voucher_num(value)),
        SType::VehPlates => pattern(
            value,
            "[a-zA-Z0-9-]+",
            "VehPlatesSType",
            !value.is_empty() && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
        ),
        SType::Uuid => pattern(value, UUID_PATTERN, "UUIDSType", is_uuid(value)),
        SType::Utc => {
            pattern(value, UTC_PATTERN, "UTCSType", is_utc_shape(value))?;
            if DateTime::parse_from_rfc3339(value).is_err() {
                return Err(not_valid(value, "dateTime"));
            }
            Ok(())
        }
        SType::Date => {
            pattern(value, DATE_PATTERN, "DateSType", is_date_shape(value))?;
            if NaiveDate::parse_from_str(value, "%Y-%m-%d").is_err() {
                return Err(not_valid(value, "date"));
            }
            Ok(())
        }
        SType::Boolean => match value {
            "true" | "false" | "1" | "0" => Ok(()),
            _ => Err(not_valid(value, "boolean")),
        },
        SType::Base64 => {
            let compact: String = value.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            if compact.is_empty() || openssl::base64::decode_block(&compact).is_err() {
                return Err(not_valid(&shortened(value), "base64Binary"));
            }
            Ok(())
        }
        SType::Text { name, min, max } => {
            let length = value.chars().count();
            if length < min {
                return Err(Violation(format!(
                    "cvc-minLength-valid: Value '{value}' with length = '{length}' is not facet-valid with respect to minLength '{min}' for type '{name}'."
                )));
            }
            if length > max {
                return Err(Violation(format!(
                    "cvc-maxLength-valid: Value '{value}' with length = '{length}' is not facet-valid with respect to maxLength '{max}' for type '{name}'."
                )));
            }
            Ok(())
        }
        SType::Enumeration(values) => enumeration(value, values),
        SType::Country(Service::Fiscalization) => enumeration(value, &COUNTRIES),
        SType::Country(Service::Einvoice) => enumeration(value, &EINVOICE_COUNTRIES),
        SType::Currency => enumeration(value, &CURRENCIES),
    }
}

fn decimal_type(value: &str, pattern_text: &str, type_name: &str, matches: bool) -> Checked {
    // xs:decimal is checked before the pattern, as Xerces does.
    let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let decimal = !(whole.is_empty() && fraction.is_empty())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit());
    if !decimal {
        return Err(not_valid(value, "decimal"));
    }
    pattern(value, pattern_text, type_name, matches)
}

fn pattern(value: &str, pattern: &str, type_name: &str, matches: bool) -> Checked {
    if matches {
        Ok(())
    } else {
        Err(Violation(format!(
            "cvc-pattern-valid: Value '{value}' is not facet-valid with respect to pattern '{pattern}' for type '{type_name}'."
        )))
    }
}

fn enumeration(value: &str, values: &[&str]) -> Checked {
    if values.contains(&value) {
        Ok(())
    } else {
        Err(Violation(format!(
            "cvc-enumeration-valid: Value '{value}' is not facet-valid with respect to enumeration '[{}]'. It must be a value from the enumeration.",
            values.join(", ")
        )))
    }
}

fn not_valid(value: &str, base: &str) -> Violation {
    Violation(format!("cvc-datatype-valid.1.2.1: '{value}' is not a valid value for '{base}'."))
}

fn min_exclusive(value: &str, type_name: &str) -> Violation {
    Violation(format!(
        "cvc-minExclusive-valid: Value '{value}' is not facet-valid with respect to minExclusive '0' for type '{type_name}'."
    ))
}

/// Faults quote the value; a whole base64 document would drown the message.
fn shortened(value: &str) -> String {
    const KEEP: usize = 40;
    if value.chars().count() <= KEEP {
        value.to_string()
    } else {
        format!("{}...", value.chars().take(KEEP).collect::<String>())
    }
}

fn all_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn all_lower(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_lowercase())
}

/// `([1-9][0-9]*|0)`
fn is_whole_number(s: &str) -> bool {
    s == "0" || (!s.is_empty() && !s.starts_with('0') && all_digits(s))
}

/// `DecimalSType` / `DecimalNegSType`: two decimals, or a bare `0`.
pub fn is_money(s: &str, signed: bool) -> bool {
    if s == "0" {
        return true;
    }
    let unsigned = if signed { s.strip_prefix('-').unwrap_or(s) } else { s };
    match unsigned.split_once('.') {
        Some((whole, fraction)) => is_whole_number(whole) && fraction.len() == 2 && all_digits(fraction),
        None => false,
    }
}

/// `DoubleNegForQuantitySType`: at most three decimals.
pub fn is_quantity(s: &str) -> bool {
    let unsigned = s.strip_prefix('-').unwrap_or(s);
    match unsigned.split_once('.') {
        Some((whole, fraction)) => {
            is_whole_number(whole) && (1..=3).contains(&fraction.len()) && all_digits(fraction)
        }
        None => is_whole_number(unsigned),
    }
}

/// `RegistrationCodeSType`: `[a-z]{2}[0-9]{3}[a-z]{2}[0-9]{3}`.
pub fn is_registration_code(s: &str) -> bool {
    s.len() == 10
        && s.is_char_boundary(2)
        && all_lower(&s[0..2])
        && all_digits(&s[2..5])
        && all_lower(&s[5..7])
        && all_digits(&s[7..10])
}

/// `NUISSType`: `[a-zA-Z][0-9]{8}[a-zA-Z]`.
pub fn is_nuis(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[0].is_ascii_alphabetic()
        && b[1..9].iter().all(u8::is_ascii_digit)
        && b[9].is_ascii_alphabetic()
}

/// `[1-9][0-9]{0,14}/[0-9]{4}`
fn is_ordinal_and_year(s: &str) -> bool {
    match s.split_once('/') {
        Some((ordinal, year)) => {
            (1..=15).contains(&ordinal.len())
                && !ordinal.starts_with('0')
                && all_digits(ordinal)
                && year.len() == 4
                && all_digits(year)
        }
        None => false,
    }
}

/// `InvNumSType`: `ord/yyyy` with an optional `/tcrCode`.
pub fn is_inv_num(s: &str) -> bool {
    let mut parts = s.splitn(3, '/');
    let (Some(ordinal), Some(year)) = (parts.next(), parts.next()) else {
        return false;
    };
    let tcr_ok = parts.next().is_none_or(is_registration_code);
    tcr_ok && is_ordinal_and_year(&format!("{ordinal}/{year}"))
}

/// `WTNNumSType`: `ord/yyyy`.
pub fn is_wtn_num(s: &str) -> bool {
    s.matches('/').count() == 1 && is_ordinal_and_year(s)
}

fn is_hex(s: &str, length: usize) -> bool {
    s.len() == length && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `VoucherNumSType`: `[1-9][0-9]{0,7}-[0-9]{4}-NUIS`.
fn is_voucher_num(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    match parts.as_slice() {
        [number, year, nuis] => {
            (1..=8).contains(&number.len())
                && !number.starts_with('0')
                && all_digits(number)
                && year.len() == 4
                && all_digits(year)
                && is_nuis(nuis)
        }
        _ => false,
    }
}

/// `UUIDSType`: versions 1 to 5, RFC 4122 variant.
pub fn is_uuid(s: &str) -> bool {
    crate::domain::validation::is_uuid(s)
}

/// `YYYY-MM-DD`, digits only.
fn is_date_shape(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && [0, 1, 2, 3, 5, 6, 8, 9].iter().all(|&i| b[i].is_ascii_digit())
}

/// `YYYY-MM-DDThh:mm:ss±hh:mm`: no fraction, no `Z`.
pub fn is_utc_shape(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 25
        && s.is_char_boundary(10)
        && is_date_shape(&s[..10])
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && (b[19] == b'+' || b[19] == b'-')
        && b[22] == b':'
        && [11, 12, 14, 15, 17, 18, 20, 21, 23, 24].iter().all(|&i| b[i].is_ascii_digit())
}

/// An attribute of an element: its name, type and whether the schema requires it.
struct Attr {
    name: &'static str,
    ty: SType,
    required: bool,
}

const fn req(name: &'static str, ty: SType) -> Attr {
    Attr { name, ty, required: true }
}

const fn opt(name: &'static str, ty: SType) -> Attr {
    Attr { name, ty, required: false }
}

/// A child element and how often it may occur.
struct Child {
    name: &'static str,
    min: usize,
    max: usize,
}

const fn one(name: &'static str) -> Child {
    Child { name, min: 1, max: 1 }
}

const fn maybe(name: &'static str) -> Child {
    Child { name, min: 0, max: 1 }
}

const fn many(name: &'static str, min: usize, max: usize) -> Child {
    Child { name, min, max }
}

fn attributes(element: &Element, attrs: &[Attr]) -> Checked {
    for attr in attrs {
        match element.attribute(attr.name) {
            Some(value) => check_value(value, attr.ty)?,
            None if attr.required => {
                return Err(Violation(format!(
                    "cvc-complex-type.4: Attribute '{}' must appear on element '{}'.",
                    attr.name,
                    element.local_name()
                )));
            }
            None => {}
        }
    }
    Ok(())
}

/// Every child must be one of `allowed` (in `ns`), each within its occurrence bounds.
fn children(element: &Element, ns: &str, allowed: &[Child]) -> Checked {
    children_of(element, ns, allowed, false)
}

/// `skip_signature`: the request roots hold a `ds:Signature` besides their own children, which
/// [`request`] counts on its own.
fn children_of(element: &Element, ns: &str, allowed: &[Child], skip_signature: bool) -> Checked {
    let mut counts = vec![0usize; allowed.len()];
    for child in element.children() {
        if skip_signature && child.namespace() == XMLDSIG_NS && child.local_name() == "Signature" {
            continue;
        }
        let position = if child.namespace() == ns {
            allowed.iter().position(|a| a.name == child.local_name())
        } else {
            None
        };
        let Some(position) = position else {
            let expected: Vec<String> = allowed.iter().map(|a| format!("\"{ns}\":{}", a.name)).collect();
            return Err(Violation(format!(
                "cvc-complex-type.2.4.a: Invalid content was found starting with element '{}'. One of '{{{}}}' is expected.",
                child.local_name(),
                expected.join(", ")
            )));
        };
        counts[position] += 1;
        if counts[position] > allowed[position].max {
            return Err(Violation(format!(
                "cvc-complex-type.2.4.d: Invalid content was found starting with element '{}'. No child element is expected at this point.",
                child.local_name()
            )));
        }
    }
    for (child, count) in allowed.iter().zip(counts) {
        if count < child.min {
            return Err(incomplete(element, ns, child.name));
        }
    }
    Ok(())
}

fn incomplete(element: &Element, ns: &str, missing: &str) -> Violation {
    Violation(format!(
        "cvc-complex-type.2.4.b: The content of element '{}' is not complete. One of '{{\"{ns}\":{missing}}}' is expected.",
        element.local_name()
    ))
}

/// The children named `name` in `ns`.
pub fn each<'a>(element: &'a Element, ns: &'a str, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
    element.children().filter(move |c| c.namespace() == ns && c.local_name() == name)
}

fn text(element: &Element, ty: SType) -> Checked {
    check_value(element.text().trim(), ty)
}

/// `<unique>` constraints: no two children share the attribute's value.
fn unique(element: &Element, ns: &str, name: &str, attribute: &str, constraint: &str) -> Checked {
    let mut seen: Vec<&str> = Vec::new();
    for child in each(element, ns, name) {
        if let Some(value) = child.attribute(attribute) {
            if seen.contains(&value) {
                return Err(Violation(format!(
                    "cvc-identity-constraint.4.1: Duplicate unique value [{value}] declared for identity constraint \"{constraint}\" of element \"{}\".",
                    element.local_name()
                )));
            }
            seen.push(value);
        }
    }
    Ok(())
}

/// Validates a request element (the body's root) as the CIS does before anything else.
pub fn request(root: &Element, op: Operation) -> Checked {
    let ns = op.namespace();
    if root.namespace() != ns || root.local_name() != op.request_root() {
        return Err(Violation(format!(
            "cvc-elt.1.a: Cannot find the declaration of element '{}'.",
            root.local_name()
        )));
    }
    let version = match op.service() {
        Service::Fiscalization => "3",
        Service::Einvoice => "1",
    };
    fixed(root, "Id", "Request")?;
    fixed(root, "Version", version)?;
    let payload: &[Child] = match op {
        Operation::RegisterInvoice => &[one("Header"), one("Invoice")],
        Operation::RegisterTcr => &[one("Header"), one("TCR")],
        Operation::RegisterCashDeposit => &[one("Header"), one("CashDeposit")],
        Operation::RegisterWtn => &[one("Header"), one("WTN")],
        Operation::RegisterEinvoice => &[one("Header"), one("EinvoiceEnvelope")],
        Operation::GetTaxpayers => &[one("Header"), one("Filter")],
        Operation::GetEinvoices => &[
            one("Header"),
            maybe("EIC"),
            maybe("PartyType"),
            maybe("RecDateTimeFrom"),
            maybe("RecDateTimeTo"),
        ],
        Operation::EinvoiceChangeStatus => &[one("Header"), one("EICs"), one("EinStatus")],
    };
    // The signature lives in another namespace; it is checked on its own.
    let signatures = root.children().filter(|c| c.namespace() == XMLDSIG_NS && c.local_name() == "Signature");
    match signatures.count() {
        0 => return Err(incomplete(root, XMLDSIG_NS, "Signature")),
        1 => {}
        _ => {
            return Err(Violation(
                "cvc-complex-type.2.4.d: Invalid content was found starting with element 'Signature'. No child element is expected at this point.".to_string(),
            ));
        }
    }
    children_of(root, ns, payload, true)?;
    let header = root.child(ns, "Header").ok_or_else(|| incomplete(root, ns, "Header"))?;
    let late_delivery =
        matches!(op, Operation::RegisterInvoice | Operation::RegisterCashDeposit | Operation::RegisterWtn);
    attributes(header, &[req("UUID", SType::Uuid), req("SendDateTime", SType::Utc)])?;
    if late_delivery {
        attributes(header, &[opt("SubseqDelivType", SType::Enumeration(SUBSEQ_DELIV_TYPES))])?;
    }
    match op {
        Operation::RegisterInvoice => invoice(required(root, ns, "Invoice")?),
        Operation::RegisterTcr => tcr(required(root, ns, "TCR")?),
        Operation::RegisterCashDeposit => cash_deposit(required(root, ns, "CashDeposit")?),
        Operation::RegisterWtn => wtn(required(root, ns, "WTN")?),
        Operation::RegisterEinvoice => {
            let envelope = required(root, ns, "EinvoiceEnvelope")?;
            let documents = envelope.children().count();
            children(envelope, ns, &[maybe("UblInvoice"), maybe("UblCreditNote"), maybe("CiiInvoice")])?;
            match documents {
                0 => Err(incomplete(envelope, ns, "UblInvoice")),
                1 => envelope.children().try_for_each(|document| text(document, SType::Base64)),
                _ => Err(Violation(
                    "cvc-complex-type.2.4.d: Invalid content was found in element 'EinvoiceEnvelope'. No child element is expected at this point.".to_string(),
                )),
            }
        }
        Operation::GetTaxpayers => {
            let filter = required(root, ns, "Filter")?;
            children(filter, ns, &[maybe("Tin"), maybe("Name")])?;
            match (filter.child(ns, "Tin"), filter.child(ns, "Name")) {
                (Some(tin), None) => text(tin, SType::Nuis("NUISType")),
                (None, Some(name)) => text(name, SType::Text { name: "String100Min3SType", min: 3, max: 100 }),
                (None, None) => Err(incomplete(filter, ns, "Tin")),
                (Some(_), Some(_)) => Err(Violation(
                    "cvc-complex-type.2.4.d: Invalid content was found starting with element 'Name'. No child element is expected at this point.".to_string(),
                )),
            }
        }
        Operation::GetEinvoices => {
            for (name, ty) in [
                ("EIC", SType::Uuid),
                ("PartyType", SType::Enumeration(PARTY_TYPES)),
                ("RecDateTimeFrom", SType::Utc),
                ("RecDateTimeTo", SType::Utc),
            ] {
                if let Some(element) = root.child(ns, name) {
                    text(element, ty)?;
                }
            }
            Ok(())
        }
        Operation::EinvoiceChangeStatus => {
            let eics = required(root, ns, "EICs")?;
            children(eics, ns, &[many("EIC", 1, 100)])?;
            each(eics, ns, "EIC").try_for_each(|eic| text(eic, SType::Uuid))?;
            text(required(root, ns, "EinStatus")?, SType::Enumeration(EINVOICE_STATUSES))
        }
    }
}

fn fixed(element: &Element, name: &str, value: &str) -> Checked {
    match element.attribute(name) {
        None => Err(Violation(format!(
            "cvc-complex-type.4: Attribute '{name}' must appear on element '{}'.",
            element.local_name()
        ))),
        Some(actual) if actual == value => Ok(()),
        Some(actual) => Err(Violation(format!(
            "cvc-complex-type.3.1: Value '{actual}' of attribute '{name}' of element '{}' is not valid with respect to the corresponding attribute use. Attribute '{name}' has a fixed value of '{value}'.",
            element.local_name()
        ))),
    }
}

fn required<'a>(parent: &'a Element, ns: &str, name: &str) -> Result<&'a Element, Violation> {
    parent.child(ns, name).ok_or_else(|| incomplete(parent, ns, name))
}

const INVOICE_ATTRS: &[Attr] = &[
    req("TypeOfInv", SType::Enumeration(INVOICE_TYPES)),
    req("IsSimplifiedInv", SType::Boolean),
    opt("TypeOfSelfIss", SType::Enumeration(SELF_ISS_TYPES)),
    req("IssueDateTime", SType::Utc),
    req("InvNum", SType::InvNum),
    req("InvOrdNum", SType::Int),
    opt("TCRCode", SType::RegistrationCode),
    req("IsIssuerInVAT", SType::Boolean),
    opt("TaxFreeAmt", SType::DecimalNeg),
    opt("MarkUpAmt", SType::DecimalNeg),
    opt("GoodsExAmt", SType::DecimalNeg),
    req("TotPriceWoVAT", SType::DecimalNeg),
    opt("TotVATAmt", SType::DecimalNeg),
    req("TotPrice", SType::DecimalNeg),
    req("OperatorCode", SType::RegistrationCode),
    req("BusinUnitCode", SType::RegistrationCode),
    req("SoftCode", SType::RegistrationCode),
    opt("ImpCustDecNum", STRING50),
    req("IIC", SType::Hex32),
    req("IICSignature", SType::Hex512),
    req("IsReverseCharge", SType::Boolean),
    opt("PayDeadline", SType::Date),
    opt("IsEinvoice", SType::Boolean),
];

const ITEM_ATTRS: &[Attr] = &[
    req("N", STRING50),
    opt("C", STRING50),
    req("U", STRING50),
    req("Q", SType::Quantity),
    req("UPB", SType::Decimal),
    req("UPA", SType::Decimal),
    opt("R", SType::Decimal),
    opt("RR", SType::Boolean),
    req("PB", SType::DecimalNeg),
    opt("VR", SType::Decimal),
    opt("VA", SType::DecimalNeg),
    opt("IN", SType::Boolean),
    req("PA", SType::DecimalNeg),
    opt("EX", SType::Enumeration(ITEM_EXEMPTIONS)),
];

fn invoice(invoice: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    attributes(invoice, INVOICE_ATTRS)?;
    children(
        invoice,
        ns,
        &[
            maybe("SupplyDateOrPeriod"),
            maybe("CorrectiveInv"),
            one("PayMethods"),
            maybe("Currency"),
            one("Seller"),
            maybe("Buyer"),
            one("Items"),
            maybe("SameTaxes"),
            maybe("ConsTaxes"),
            maybe("Fees"),
            maybe("SumInvIICRefs"),
            maybe("BadDebtInv"),
        ],
    )?;
    supply_and_correction(invoice)?;
    pay_methods(invoice)?;
    currency_and_parties(invoice)?;
    items(invoice)?;
    taxes_and_fees(invoice)?;
    references(invoice)
}

/// `SupplyDateOrPeriod` and `CorrectiveInv`.
fn supply_and_correction(invoice: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    if let Some(period) = invoice.child(ns, "SupplyDateOrPeriod") {
        attributes(period, &[req("Start", SType::Date), req("End", SType::Date)])?;
    }
    if let Some(corrective) = invoice.child(ns, "CorrectiveInv") {
        attributes(
            corrective,
            &[
                req("IICRef", SType::Hex32),
                req("IssueDateTime", SType::Utc),
                req("Type", SType::Enumeration(CORRECTIVE_TYPES)),
            ],
        )?;
    }
    Ok(())
}

/// `PayMethods`: one to ten, each type once, vouchers by number.
fn pay_methods(invoice: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    let pay_methods = required(invoice, ns, "PayMethods")?;
    children(pay_methods, ns, &[many("PayMethod", 1, 10)])?;
    for pay in each(pay_methods, ns, "PayMethod") {
        attributes(
            pay,
            &[
                req("Type", SType::Enumeration(PAY_METHOD_TYPES)),
                req("Amt", SType::DecimalNeg),
                opt("CompCard", STRING50),
            ],
        )?;
        children(pay, ns, &[maybe("Vouchers")])?;
        if let Some(vouchers) = pay.child(ns, "Vouchers") {
            children(vouchers, ns, &[many("Voucher", 1, 20)])?;
            for voucher in each(vouchers, ns, "Voucher") {
                attributes(voucher, &[req("Num", SType::VoucherNum)])?;
            }
        }
    }
    unique(pay_methods, ns, "PayMethod", "Type", "UniquePayMethodType")?;
    Ok(())
}

/// `Currency`, `Seller` and `Buyer`.
fn currency_and_parties(invoice: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    if let Some(currency) = invoice.child(ns, "Currency") {
        attributes(
            currency,
            &[req("Code", SType::Currency), req("ExRate", SType::Double), req("IsBuying", SType::Boolean)],
        )?;
    }
    // The seller must identify itself; every attribute of the buyer is optional.
    let party = |seller: bool| {
        let attr = if seller { req } else { opt };
        [
            attr("IDType", SType::Enumeration(ID_TYPES)),
            attr("IDNum", STRING20),
            attr("Name", STRING100),
            opt("Address", STRING200),
            opt("Town", STRING100),
            opt("Country", SType::Country(Service::Fiscalization)),
        ]
    };
    attributes(required(invoice, ns, "Seller")?, &party(true))?;
    if let Some(buyer) = invoice.child(ns, "Buyer") {
        attributes(buyer, &party(false))?;
    }
    Ok(())
}

/// `Items`, with the vouchers an item sold.
fn items(invoice: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    let items = required(invoice, ns, "Items")?;
    children(items, ns, &[many("I", 1, 1000)])?;
    for item in each(items, ns, "I") {
        attributes(item, ITEM_ATTRS)?;
        children(item, ns, &[maybe("VS")])?;
        if let Some(sold) = item.child(ns, "VS") {
            children(sold, ns, &[one("VD"), one("VN")])?;
            attributes(required(sold, ns, "VD")?, &[req("D", SType::Date), req("N", SType::Decimal)])?;
            let numbers = required(sold, ns, "VN")?;
            children(numbers, ns, &[many("V", 1, 1000)])?;
            for number in each(numbers, ns, "V") {
                attributes(number, &[req("Num", SType::VoucherNum)])?;
            }
        }
    }
    Ok(())
}

/// `SameTaxes`, `ConsTaxes` and `Fees` (each fee type once).
fn taxes_and_fees(invoice: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    if let Some(same_taxes) = invoice.child(ns, "SameTaxes") {
        children(same_taxes, ns, &[many("SameTax", 1, 20)])?;
        for tax in each(same_taxes, ns, "SameTax") {
            attributes(
                tax,
                &[
                    req("NumOfItems", SType::Int),
                    req("PriceBefVAT", SType::DecimalNeg),
                    opt("VATRate", SType::DecimalNeg),
                    opt("ExemptFromVAT", SType::Enumeration(SAME_TAX_EXEMPTIONS)),
                    opt("VATAmt", SType::DecimalNeg),
                ],
            )?;
        }
    }
    if let Some(cons_taxes) = invoice.child(ns, "ConsTaxes") {
        children(cons_taxes, ns, &[many("ConsTax", 1, 20)])?;
        for tax in each(cons_taxes, ns, "ConsTax") {
            attributes(
                tax,
                &[
                    req("NumOfItems", SType::Int),
                    req("PriceBefConsTax", SType::DecimalNeg),
                    req("ConsTaxRate", SType::DecimalNeg),
                    req("ConsTaxAmt", SType::DecimalNeg),
                ],
            )?;
        }
    }
    if let Some(fees) = invoice.child(ns, "Fees") {
        children(fees, ns, &[many("Fee", 1, 20)])?;
        for fee in each(fees, ns, "Fee") {
            attributes(fee, &[req("Type", SType::Enumeration(FEE_TYPES)), req("Amt", SType::DecimalNeg)])?;
        }
        unique(fees, ns, "Fee", "Type", "UniqueFeesType")?;
    }
    Ok(())
}

/// `SumInvIICRefs` (a summary's orders) and `BadDebtInv`.
fn references(invoice: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    if let Some(references) = invoice.child(ns, "SumInvIICRefs") {
        children(references, ns, &[many("SumInvIICRef", 1, 1000)])?;
        for reference in each(references, ns, "SumInvIICRef") {
            attributes(reference, &[req("IIC", SType::Hex32), req("IssueDateTime", SType::Utc)])?;
        }
    }
    if let Some(bad_debt) = invoice.child(ns, "BadDebtInv") {
        attributes(bad_debt, &[req("IICRef", SType::Hex32), req("IssueDateTime", SType::Utc)])?;
    }
    Ok(())
}

fn tcr(tcr: &Element) -> Checked {
    attributes(
        tcr,
        &[
            req("IssuerNUIS", NUIS),
            req("BusinUnitCode", SType::RegistrationCode),
            req("TCRIntID", STRING50),
            opt("SoftCode", SType::RegistrationCode),
            opt("MaintainerCode", SType::RegistrationCode),
            opt("ValidFrom", SType::Date),
            opt("ValidTo", SType::Date),
            opt("Type", SType::Enumeration(TCR_TYPES)),
        ],
    )?;
    children(tcr, FISCALIZATION_NS, &[])
}

fn cash_deposit(deposit: &Element) -> Checked {
    attributes(
        deposit,
        &[
            req("ChangeDateTime", SType::Utc),
            req("Operation", SType::Enumeration(CASH_DEPOSIT_OPERATIONS)),
            req("CashAmt", SType::Decimal),
            req("TCRCode", SType::RegistrationCode),
            req("IssuerNUIS", NUIS),
        ],
    )?;
    children(deposit, FISCALIZATION_NS, &[])
}

fn wtn(wtn: &Element) -> Checked {
    let ns = FISCALIZATION_NS;
    attributes(
        wtn,
        &[
            req("Type", SType::Enumeration(WTN_TYPES)),
            req("Transaction", SType::Enumeration(WTN_TRANSACTIONS)),
            req("IssueDateTime", SType::Utc),
            req("OperatorCode", SType::RegistrationCode),
            req("BusinUnitCode", SType::RegistrationCode),
            req("SoftCode", SType::RegistrationCode),
            req("WTNOrdNum", SType::Int),
            req("WTNNum", SType::WtnNum),
            req("ValueOfGoods", SType::DecimalNeg),
            req("VehOwnership", SType::Enumeration(VEH_OWNERSHIPS)),
            req("VehPlates", SType::VehPlates),
            req("StartAddr", STRING200),
            req("StartCity", STRING100),
            req("StartDateTime", SType::Utc),
            req("StartPoint", SType::Enumeration(WTN_START_POINTS)),
            req("DestinAddr", STRING200),
            req("DestinCity", STRING100),
            req("DestinDateTime", SType::Utc),
            req("DestinPoint", SType::Enumeration(WTN_DESTIN_POINTS)),
            req("IsGoodsFlammable", SType::Boolean),
            req("IsEscortRequired", SType::Boolean),
            opt("PackType", STRING50),
            opt("PackNum", SType::Int),
            opt("ItemsNum", SType::Int),
            req("WTNIC", SType::Hex32),
            req("WTNICSignature", SType::Hex512),
            opt("IsEinvoice", SType::Boolean),
        ],
    )?;
    children(wtn, ns, &[one("Issuer"), maybe("Carrier"), one("Items")])?;
    attributes(
        required(wtn, ns, "Issuer")?,
        &[req("NUIS", NUIS), req("Name", STRING100), req("Address", STRING200), req("Town", STRING100)],
    )?;
    if let Some(carrier) = wtn.child(ns, "Carrier") {
        attributes(
            carrier,
            &[
                req("IDType", SType::Enumeration(CARRIER_ID_TYPES)),
                req("IDNum", STRING20),
                req("Name", STRING100),
                opt("Address", STRING200),
                opt("Town", STRING100),
            ],
        )?;
    }
    let items = required(wtn, ns, "Items")?;
    children(items, ns, &[many("I", 1, 1000)])?;
    for item in each(items, ns, "I") {
        attributes(
            item,
            &[req("N", STRING50), opt("C", STRING50), req("U", STRING50), req("Q", SType::Quantity)],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::dsig;
    use crate::fiscal::requests::register_invoice;
    use crate::fiscal::requests::tests::{vector_certificate, vector_header, vector_invoice};

    fn message(result: Checked) -> String {
        result.unwrap_err().0
    }

    #[test]
    fn money_patterns_follow_the_schema() {
        for good in ["0", "0.00", "99.01", "1234567.80"] {
            assert!(is_money(good, false), "{good}");
        }
        for bad in ["00.10", "1.5", "1.500", "-1.00", "01.00", ".50", "1.", "", "1e2"] {
            assert!(!is_money(bad, false), "{bad}");
        }
        assert!(is_money("-0.50", true));
        assert!(is_money("-120.00", true));
        assert!(!is_money("-0", true));
        assert!(!is_money("--1.00", true));
    }

    #[test]
    fn money_faults_read_like_xerces() {
        assert_eq!(
            message(check_value("99.1", SType::DecimalNeg)),
            "cvc-pattern-valid: Value '99.1' is not facet-valid with respect to pattern '-?([1-9][0-9]*|0)\\.[0-9]{2}|0' for type 'DecimalNegSType'."
        );
        assert_eq!(
            message(check_value("abc", SType::Decimal)),
            "cvc-datatype-valid.1.2.1: 'abc' is not a valid value for 'decimal'."
        );
    }

    #[test]
    fn quantities_have_up_to_three_decimals() {
        for good in ["1", "0", "-3", "2.5", "0.125", "1250.5"] {
            assert!(is_quantity(good), "{good}");
        }
        for bad in ["0.1255", "01", "1.", "", "-", "1,5"] {
            assert!(!is_quantity(bad), "{bad}");
        }
    }

    #[test]
    fn codes_and_identifiers() {
        assert!(is_registration_code("bb123bb123"));
        assert!(!is_registration_code("ns187ov411fdafd"));
        assert!(!is_registration_code("BB123bb123"));
        assert!(!is_registration_code("bb123bb12ë"));
        assert_eq!(
            message(check_value("ns187ov411fdafd", SType::RegistrationCode)),
            "cvc-pattern-valid: Value 'ns187ov411fdafd' is not facet-valid with respect to pattern '[a-z]{2}[0-9]{3}[a-z]{2}[0-9]{3}' for type 'RegistrationCodeSType'."
        );
        assert!(is_nuis("L41323036D"));
        assert!(!is_nuis("L4132303D"));
        assert!(is_uuid("5f7c8a3e-2b1d-4c6e-9a8b-1234567890ab"));
        assert!(!is_uuid("5f7c8a3e-2b1d-6c6e-9a8b-1234567890ab"));
        assert!(!is_uuid("5f7c8a3e-2b1d-4c6e-7a8b-1234567890ab"));
        assert!(is_inv_num("9952/2019/cc123cc123"));
        assert!(is_inv_num("1/2024"));
        assert!(!is_inv_num("0952/2019"));
        assert!(!is_inv_num("9952/19"));
        assert!(!is_inv_num("9952/2019/CC123cc123"));
        assert!(is_wtn_num("9952/2019"));
        assert!(!is_wtn_num("9952/2019/cc123cc123"));
        assert!(is_voucher_num("77-2024-K91234567A"));
        assert!(!is_voucher_num("077-2024-K91234567A"));
    }

    #[test]
    fn datetimes_carry_an_offset_and_no_fraction() {
        assert!(check_value("2019-06-12T17:05:43+02:00", SType::Utc).is_ok());
        assert!(check_value("2019-06-12T17:05:43Z", SType::Utc).is_err());
        assert!(check_value("2019-06-12T17:05:43.123+02:00", SType::Utc).is_err());
        assert_eq!(
            message(check_value("2019-13-12T17:05:43+02:00", SType::Utc)),
            "cvc-datatype-valid.1.2.1: '2019-13-12T17:05:43+02:00' is not a valid value for 'dateTime'."
        );
        assert!(check_value("2024-02-29", SType::Date).is_ok());
        assert!(check_value("2023-02-29", SType::Date).is_err());
    }

    #[test]
    fn enumerations_list_their_values() {
        assert_eq!(
            message(check_value("CREDIT", SType::Enumeration(INVOICE_TYPES))),
            "cvc-enumeration-valid: Value 'CREDIT' is not facet-valid with respect to enumeration '[CASH, NONCASH]'. It must be a value from the enumeration."
        );
        assert!(check_value("ALB", SType::Country(Service::Fiscalization)).is_ok());
        assert!(check_value("RKS", SType::Country(Service::Einvoice)).is_ok());
        assert!(check_value("XXX", SType::Country(Service::Fiscalization)).is_err());
        assert!(check_value("EUR", SType::Currency).is_ok());
        assert!(check_value("ALL", SType::Currency).is_err(), "the schema lists foreign currencies only");
        assert_eq!(COUNTRIES.len(), 250);
    }

    #[test]
    fn strings_and_numbers_have_bounds() {
        assert!(check_value("", STRING50).unwrap_err().0.starts_with("cvc-minLength-valid"));
        assert!(check_value(&"x".repeat(51), STRING50).unwrap_err().0.starts_with("cvc-maxLength-valid"));
        assert!(check_value("0", SType::Int).unwrap_err().0.starts_with("cvc-minExclusive-valid"));
        assert!(check_value("98.75", SType::Double).is_ok());
        assert!(check_value("yes", SType::Boolean).is_err());
    }

    fn parsed_vector() -> (String, Element) {
        let unsigned = register_invoice(&vector_header(), &vector_invoice());
        let signed = dsig::sign_enveloped(&unsigned, &vector_certificate()).unwrap();
        let root = Element::parse_document(&signed).unwrap();
        (signed, root)
    }

    #[test]
    fn the_client_s_testvector_invoice_is_valid() {
        let (_, root) = parsed_vector();
        request(&root, Operation::RegisterInvoice).unwrap();
    }

    #[test]
    fn faults_name_the_attribute_or_element() {
        let (signed, _) = parsed_vector();
        let check =
            |doc: &str| message(request(&Element::parse_document(doc).unwrap(), Operation::RegisterInvoice));
        assert_eq!(
            check(&signed.replace(" IIC=\"D04C13B4063D63A13B5D822A90178A7C\"", "")),
            "cvc-complex-type.4: Attribute 'IIC' must appear on element 'Invoice'."
        );
        assert!(
            check(&signed.replace("Version=\"3\"", "Version=\"2\""))
                .starts_with("cvc-complex-type.3.1: Value '2' of attribute 'Version'")
        );
        assert!(
            check(&signed.replace("Id=\"Request\"", "Id=\"Req\"")).contains("has a fixed value of 'Request'")
        );
        assert!(
            check(&signed.replace("TypeOfInv=\"CASH\"", "TypeOfInv=\"CARD\""))
                .starts_with("cvc-enumeration-valid")
        );
        assert!(check(&signed.replace("Type=\"BANKNOTE\"", "Type=\"ADVANCE\"")).contains("BANKNOTE, CARD"));
        let eleven = "<PayMethod Amt=\"9.00\" Type=\"CARD\"></PayMethod>".repeat(10);
        let too_many = signed.replace("</PayMethods>", &format!("{eleven}</PayMethods>"));
        assert!(check(&too_many).starts_with(
            "cvc-complex-type.2.4.d: Invalid content was found starting with element 'PayMethod'"
        ));
        let twice = signed
            .replace("</PayMethods>", "<PayMethod Amt=\"1.00\" Type=\"BANKNOTE\"></PayMethod></PayMethods>");
        assert!(check(&twice).contains("UniquePayMethodType"));
        let without_items = signed.replace(
            &signed[signed.find("<Items>").unwrap()..signed.find("</Items>").unwrap() + "</Items>".len()],
            "",
        );
        assert!(check(&without_items).contains(
            "One of '{\"https://eFiskalizimi.tatime.gov.al/FiscalizationService/schema\":Items}' is expected."
        ));
        assert!(
            check(
                &signed
                    .replace("SubseqDelivType", "X")
                    .replace("<Header ", "<Header SubseqDelivType=\"LATE\" ")
            )
            .starts_with("cvc-enumeration-valid")
        );
        let unsigned = register_invoice(&vector_header(), &vector_invoice());
        assert!(check(&unsigned).contains("\"http://www.w3.org/2000/09/xmldsig#\":Signature"));
        assert_eq!(
            request(&Element::parse_document(&signed).unwrap(), Operation::RegisterTcr).unwrap_err().0,
            "cvc-elt.1.a: Cannot find the declaration of element 'RegisterInvoiceRequest'."
        );
    }
}
