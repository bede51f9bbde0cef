//! How an invoice is paid: v1 names one `payment_method` that pays the whole total; v2 sends a
//! `payment_methods` list whose amounts add up to the total. Reading checks every field rule
//! (422 with dotted keys such as `payment_methods.1.company_card`); settling against the invoice
//! total, once it is known, checks the sum (key `payment_methods`).

use rust_decimal::Decimal;
use serde::Deserialize;

use super::fields;
use super::money::{self, MAX_INVOICE_TOTAL, is_cents};
use super::spelled::{Spelled, spelled};
use super::validation::{FieldErrors, is_nuis};

/// At most this many elements in `payment_methods` (the CIS's `PayMethods` holds 1..10).
pub const MAX_PAYMENT_METHODS: usize = 10;
/// At most this many voucher numbers in one SVOUCHER payment.
pub const MAX_VOUCHERS: usize = 20;
/// The longest company card number.
pub const MAX_COMPANY_CARD: usize = 50;

spelled! {
    /// The CIS's payment methods (`PayMethod@Type`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum PaymentType {
        Banknote = "BANKNOTE",
        Card = "CARD",
        Check = "CHECK",
        Svoucher = "SVOUCHER",
        Company = "COMPANY",
        Order = "ORDER",
        Account = "ACCOUNT",
        Factoring = "FACTORING",
        Compensation = "COMPENSATION",
        Transfer = "TRANSFER",
        Waiver = "WAIVER",
        Kind = "KIND",
        Other = "OTHER",
    }
}

/// One element of v2 `payment_methods[]` as sent, read straight from the body (`PaymentBody`
/// to serde, the name a wrong-typed element has always been refused with).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename = "PaymentBody")]
pub struct PaymentElementInput {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub amount: Option<Decimal>,
    pub company_card: Option<String>,
    pub vouchers: Option<Vec<String>>,
}

/// The payment fields of an issue body, as sent (absent or null is `None`).
#[derive(Debug, Clone, PartialEq)]
pub enum PaymentsInput {
    V1 {
        payment_method: Option<String>,
        company_card: Option<String>,
        vouchers: Option<Vec<String>>,
    },
    V2 {
        payment_methods: Option<Vec<PaymentElementInput>>,
        /// Refused in v2 when sent, like the two fields below.
        payment_method: Option<String>,
        company_card: Option<String>,
        vouchers: Option<Vec<String>>,
    },
}

/// A payment as it goes to the CIS and back in v2 `payment_methods`.
#[derive(Debug, Clone, PartialEq)]
pub struct Payment {
    pub kind: PaymentType,
    /// With VAT, in the invoice currency; may be 0 or negative.
    pub amount: Decimal,
    /// Only on COMPANY.
    pub company_card: Option<String>,
    /// Only on SVOUCHER, else empty.
    pub vouchers: Vec<String>,
}

/// Payments that passed the field rules, waiting for the invoice total.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadPayments {
    /// v1: one method pays the whole total.
    Whole { kind: PaymentType, company_card: Option<String>, vouchers: Vec<String> },
    /// v2: the amounts must add up to the total.
    Split(Vec<Payment>),
}

impl ReadPayments {
    /// The payments of an invoice whose total (with VAT, after the discount, fee included) is
    /// `total`. In v2 the amounts must add up to it exactly, to the cent.
    pub fn settle(self, total: Decimal) -> Result<Vec<Payment>, FieldErrors> {
        match self {
            ReadPayments::Whole { kind, company_card, vouchers } => {
                Ok(vec![Payment { kind, amount: total, company_card, vouchers }])
            }
            ReadPayments::Split(payments) => {
                // Checked: amounts are any numbers the POS sends, and a sum must not panic.
                match payments.iter().try_fold(Decimal::ZERO, |sum, p| sum.checked_add(p.amount)) {
                    Some(paid) if paid == total => Ok(payments),
                    Some(paid) => Err(FieldErrors::one(
                        "payment_methods",
                        format!(
                            "The sum of the payment_methods amounts ({paid}) must equal the invoice total \
                             after discount ({total})."
                        ),
                    )),
                    None => Err(FieldErrors::one(
                        "payment_methods",
                        format!(
                            "The sum of the payment_methods amounts must equal the invoice total ({total})."
                        ),
                    )),
                }
            }
        }
    }
}

/// Reads the payment fields and checks every rule that does not need the total.
pub fn read(input: &PaymentsInput) -> Result<ReadPayments, FieldErrors> {
    match input {
        PaymentsInput::V1 { payment_method, company_card, vouchers } => {
            read_v1(payment_method.as_deref(), company_card.as_deref(), vouchers.as_deref())
        }
        PaymentsInput::V2 { payment_methods, payment_method, company_card, vouchers } => {
            read_v2(payment_methods.as_deref(), payment_method, company_card, vouchers)
        }
    }
}

/// `read` then `settle`, for a caller that already knows the total.
pub fn payments(input: &PaymentsInput, total: Decimal) -> Result<Vec<Payment>, FieldErrors> {
    read(input)?.settle(total)
}

fn read_v1(
    payment_method: Option<&str>,
    company_card: Option<&str>,
    vouchers: Option<&[String]>,
) -> Result<ReadPayments, FieldErrors> {
    let mut errors = FieldErrors::new();
    let kind = read_kind("payment_method", payment_method, &mut errors);
    let (company_card, vouchers) = match kind {
        Some(kind) => check_extras(kind, company_card, vouchers, "", "payment_method", &mut errors),
        None => (None, Vec::new()),
    };
    errors.into_result()?;
    match kind {
        Some(kind) => Ok(ReadPayments::Whole { kind, company_card, vouchers }),
        None => Err(FieldErrors::one("payment_method", "The payment_method field is required.")),
    }
}

fn read_v2(
    payment_methods: Option<&[PaymentElementInput]>,
    payment_method: &Option<String>,
    company_card: &Option<String>,
    vouchers: &Option<Vec<String>>,
) -> Result<ReadPayments, FieldErrors> {
    let mut errors = FieldErrors::new();
    // In v2 these belong inside the elements; sent on the invoice they are refused, not ignored,
    // so a v1 body sent to v2 fails loudly instead of being paid in cash by default.
    if payment_method.is_some() {
        errors.add("payment_method", "The payment_method field is not accepted in v2; send payment_methods.");
    }
    if company_card.is_some() {
        errors.add(
            "company_card",
            "The company_card field is not accepted on the invoice; send it in the COMPANY element of \
             payment_methods.",
        );
    }
    if vouchers.is_some() {
        errors.add(
            "vouchers",
            "The vouchers field is not accepted on the invoice; send it in the SVOUCHER element of \
             payment_methods.",
        );
    }
    let elements = payment_methods.unwrap_or_default();
    if elements.is_empty() {
        errors.add("payment_methods", "The payment_methods field is required.");
    }
    if elements.len() > MAX_PAYMENT_METHODS {
        errors.add(
            "payment_methods",
            format!("The payment_methods field must not have more than {MAX_PAYMENT_METHODS} items."),
        );
    }
    let mut payments = Vec::new();
    let mut seen: Vec<PaymentType> = Vec::new();
    for (index, element) in elements.iter().enumerate() {
        let prefix = format!("payment_methods.{index}.");
        let type_key = format!("{prefix}type");
        let kind = read_kind(&type_key, element.kind.as_deref(), &mut errors);
        if let Some(kind) = kind {
            if seen.contains(&kind) {
                errors.add(&type_key, format!("The {type_key} field has a duplicate value."));
            }
            seen.push(kind);
        }
        let amount_key = format!("{prefix}amount");
        let amount = match element.amount {
            None => {
                errors.add(&amount_key, format!("The {amount_key} field is required."));
                None
            }
            Some(amount) if !is_cents(amount) => {
                errors
                    .add(&amount_key, format!("The {amount_key} field must have at most 2 decimal places."));
                None
            }
            // Positive or negative, no element can be beyond the largest invoice total.
            Some(amount) => {
                money::within(&mut errors, &amount_key, amount, MAX_INVOICE_TOTAL).then_some(amount)
            }
        };
        if let Some(kind) = kind {
            let (company_card, vouchers) = check_extras(
                kind,
                element.company_card.as_deref(),
                element.vouchers.as_deref(),
                &prefix,
                &type_key,
                &mut errors,
            );
            if let Some(amount) = amount {
                payments.push(Payment { kind, amount, company_card, vouchers });
            }
        }
    }
    errors.into_result()?;
    Ok(ReadPayments::Split(payments))
}

fn read_kind(key: &str, sent: Option<&str>, errors: &mut FieldErrors) -> Option<PaymentType> {
    match sent.map(str::trim).filter(|s| !s.is_empty()) {
        None => {
            errors.add(key, format!("The {key} field is required."));
            None
        }
        Some(name) => {
            let kind = PaymentType::parse_any_case(name);
            if kind.is_none() {
                errors.add(key, format!("The selected {key} is invalid."));
            }
            kind
        }
    }
}

/// The company card and voucher rules of one payment: each is required by its method and
/// refused on every other. A blank card or an empty voucher list counts as not sent. `prefix`
/// is where the fields live (`""` in v1, `payment_methods.1.` in v2) and `type_key` the field
/// naming the method, for the messages.
fn check_extras(
    kind: PaymentType,
    company_card: Option<&str>,
    vouchers: Option<&[String]>,
    prefix: &str,
    type_key: &str,
    errors: &mut FieldErrors,
) -> (Option<String>, Vec<String>) {
    let card_key = format!("{prefix}company_card");
    let vouchers_key = format!("{prefix}vouchers");
    let card = company_card.map(str::trim).filter(|c| !c.is_empty());
    let vouchers = vouchers.unwrap_or_default();
    match (kind, card) {
        (PaymentType::Company, None) => {
            errors.add(&card_key, format!("The {card_key} field is required when {type_key} is COMPANY."))
        }
        (PaymentType::Company, Some(card)) if card.chars().count() > MAX_COMPANY_CARD => errors.add(
            &card_key,
            format!("The {card_key} field must not be greater than {MAX_COMPANY_CARD} characters."),
        ),
        (PaymentType::Company, Some(_)) | (_, None) => {}
        (_, Some(_)) => {
            errors.add(&card_key, format!("The {card_key} field is only allowed when {type_key} is COMPANY."))
        }
    }
    match (kind, vouchers.is_empty()) {
        (PaymentType::Svoucher, true) => errors
            .add(&vouchers_key, format!("The {vouchers_key} field is required when {type_key} is SVOUCHER.")),
        (PaymentType::Svoucher, false) => check_vouchers(&vouchers_key, vouchers, errors),
        (_, true) => {}
        (_, false) => errors.add(
            &vouchers_key,
            format!("The {vouchers_key} field is only allowed when {type_key} is SVOUCHER."),
        ),
    }
    let card = if kind == PaymentType::Company { card.map(str::to_string) } else { None };
    let vouchers = if kind == PaymentType::Svoucher { vouchers.to_vec() } else { Vec::new() };
    (card, vouchers)
}

fn check_vouchers(key: &str, vouchers: &[String], errors: &mut FieldErrors) {
    if vouchers.len() > MAX_VOUCHERS {
        errors.add(key, format!("The {key} field must not have more than {MAX_VOUCHERS} items."));
    }
    for (index, number) in vouchers.iter().enumerate() {
        let item_key = format!("{key}.{index}");
        if !is_voucher_number(number) {
            errors
                .add(&item_key, format!("The {item_key} field must be a voucher number (number-year-NIPT)."));
        }
        if vouchers[..index].contains(number) {
            errors.add(&item_key, format!("The {item_key} field has a duplicate value."));
        }
    }
}

/// The CIS's `VoucherNumSType`: `[1-9][0-9]{0,7}-[0-9]{4}-[A-Za-z][0-9]{8}[A-Za-z]`, that is an
/// ordinal without leading zero, a year and the issuer's NUIS.
pub fn is_voucher_number(number: &str) -> bool {
    let mut parts = number.split('-');
    let (Some(ordinal), Some(year), Some(nuis), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    (1..=8).contains(&ordinal.len())
        && ordinal.bytes().all(|b| b.is_ascii_digit())
        && !ordinal.starts_with('0')
        && year.len() == 4
        && year.bytes().all(|b| b.is_ascii_digit())
        && is_nuis(nuis)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn v1(method: Option<&str>, card: Option<&str>, vouchers: &[&str]) -> PaymentsInput {
        PaymentsInput::V1 {
            payment_method: method.map(str::to_string),
            company_card: card.map(str::to_string),
            vouchers: if vouchers.is_empty() {
                None
            } else {
                Some(vouchers.iter().map(|v| v.to_string()).collect())
            },
        }
    }

    fn element(kind: &str, amount: &str) -> PaymentElementInput {
        PaymentElementInput { kind: Some(kind.to_string()), amount: Some(d(amount)), ..Default::default() }
    }

    fn v2(elements: Vec<PaymentElementInput>) -> PaymentsInput {
        PaymentsInput::V2 {
            payment_methods: Some(elements),
            payment_method: None,
            company_card: None,
            vouchers: None,
        }
    }

    /// The field keys of a refusal.
    fn keys(result: Result<Vec<Payment>, FieldErrors>) -> Vec<String> {
        result.unwrap_err().into_map().into_keys().collect()
    }

    const VOUCHER: &str = "12-2026-L41323036D";

    #[test]
    fn payment_types_read_the_api_names() {
        for kind in PaymentType::ALL {
            assert_eq!(PaymentType::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(PaymentType::parse_any_case(" banknote "), Some(PaymentType::Banknote));
        assert_eq!(PaymentType::parse_any_case("ADVANCE"), None);
        assert_eq!(PaymentType::parse_any_case(""), None);
    }

    #[test]
    fn voucher_numbers_are_number_year_nipt() {
        // | number                  | valid |
        let table = [
            ("12-2026-L41323036D", true),
            ("1-2026-k12345678s", true),
            ("12345678-2026-L41323036D", true),
            ("123456789-2026-L41323036D", false),
            ("012-2026-L41323036D", false),
            ("12-26-L41323036D", false),
            ("12-2026-L4132303D", false),
            ("12-2026-L41323036D-1", false),
            ("12_2026_L41323036D", false),
        ];
        for (number, valid) in table {
            assert_eq!(is_voucher_number(number), valid, "{number}");
        }
    }

    // v1: payment_method pays the whole total.

    #[test]
    fn v1_one_method_pays_the_total() {
        let paid = payments(&v1(Some("BANKNOTE"), None, &[]), d("99.01")).unwrap();
        assert_eq!(
            paid,
            vec![Payment {
                kind: PaymentType::Banknote,
                amount: d("99.01"),
                company_card: None,
                vouchers: vec![]
            }]
        );
    }

    #[test]
    fn v1_payment_method_is_required_and_known() {
        assert_eq!(keys(payments(&v1(None, None, &[]), d("1"))), vec!["payment_method"]);
        assert_eq!(keys(payments(&v1(Some(" "), None, &[]), d("1"))), vec!["payment_method"]);
        assert_eq!(keys(payments(&v1(Some("ADVANCE"), None, &[]), d("1"))), vec!["payment_method"]);
    }

    #[test]
    fn v1_company_requires_company_card() {
        assert_eq!(keys(payments(&v1(Some("COMPANY"), None, &[]), d("1"))), vec!["company_card"]);
        let paid = payments(&v1(Some("COMPANY"), Some("CARD-001"), &[]), d("1")).unwrap();
        assert_eq!(paid[0].company_card.as_deref(), Some("CARD-001"));
        let long = "x".repeat(51);
        assert_eq!(keys(payments(&v1(Some("COMPANY"), Some(&long), &[]), d("1"))), vec!["company_card"]);
    }

    #[test]
    fn v1_svoucher_requires_vouchers() {
        assert_eq!(keys(payments(&v1(Some("SVOUCHER"), None, &[]), d("1"))), vec!["vouchers"]);
        let paid = payments(&v1(Some("SVOUCHER"), None, &[VOUCHER]), d("1")).unwrap();
        assert_eq!(paid[0].vouchers, vec![VOUCHER.to_string()]);
        assert_eq!(keys(payments(&v1(Some("SVOUCHER"), None, &["bad"]), d("1"))), vec!["vouchers.0"]);
    }

    #[test]
    fn v1_company_card_with_banknote_is_refused() {
        assert_eq!(
            keys(payments(&v1(Some("BANKNOTE"), Some("CARD-001"), &[]), d("1"))),
            vec!["company_card"]
        );
    }

    #[test]
    fn v1_vouchers_with_card_are_refused() {
        assert_eq!(keys(payments(&v1(Some("CARD"), None, &[VOUCHER]), d("1"))), vec!["vouchers"]);
    }

    #[test]
    fn v1_a_blank_card_counts_as_not_sent() {
        payments(&v1(Some("BANKNOTE"), Some(""), &[]), d("1")).unwrap();
    }

    // v2: one test per row of "Invoice payment rules (v2)", then the payment element's rules.

    #[test]
    fn v2_methods_per_invoice_at_most_10() {
        let kinds =
            ["BANKNOTE", "CARD", "CHECK", "ORDER", "ACCOUNT", "FACTORING", "COMPENSATION", "TRANSFER"];
        let mut elements: Vec<_> = kinds.iter().map(|k| element(k, "1.00")).collect();
        elements.push(element("WAIVER", "1.00"));
        elements.push(element("KIND", "1.00"));
        assert_eq!(payments(&v2(elements.clone()), d("10.00")).unwrap().len(), 10);
        elements.push(element("OTHER", "1.00"));
        assert_eq!(keys(payments(&v2(elements), d("11.00"))), vec!["payment_methods"]);
        // And at least one.
        assert_eq!(keys(payments(&v2(vec![]), d("0"))), vec!["payment_methods"]);
        let absent = PaymentsInput::V2 {
            payment_methods: None,
            payment_method: None,
            company_card: None,
            vouchers: None,
        };
        assert_eq!(keys(payments(&absent, d("0"))), vec!["payment_methods"]);
    }

    #[test]
    fn v2_amount_may_be_zero_or_negative() {
        let paid = payments(
            &v2(vec![element("BANKNOTE", "120.00"), element("CARD", "-20.00"), element("CHECK", "0")]),
            d("100"),
        )
        .unwrap();
        assert_eq!(paid.iter().map(|p| p.amount).collect::<Vec<_>>(), vec![d("120.00"), d("-20.00"), d("0")]);
        let nothing_due = payments(&v2(vec![element("BANKNOTE", "0")]), d("0.00")).unwrap();
        assert_eq!(nothing_due[0].amount, d("0"));
        // Whole cents only: the CIS's money has two decimals.
        assert_eq!(
            keys(payments(&v2(vec![element("BANKNOTE", "10.005")]), d("10.01"))),
            vec!["payment_methods.0.amount"]
        );
        // Bounded both ways by the largest invoice total.
        let huge = vec![
            element("BANKNOTE", "100000000000000.01"),
            element("CARD", "-792281625142643375935439503.35"),
        ];
        assert_eq!(
            keys(payments(&v2(huge), d("10"))),
            vec!["payment_methods.0.amount", "payment_methods.1.amount"]
        );
    }

    #[test]
    fn v2_same_method_twice_is_refused() {
        let twice =
            v2(vec![element("BANKNOTE", "50.00"), element("CARD", "25.00"), element("BANKNOTE", "25.00")]);
        assert_eq!(keys(payments(&twice, d("100.00"))), vec!["payment_methods.2.type"]);
    }

    #[test]
    fn v2_sum_equals_the_total_after_discount_to_the_cent() {
        let split = v2(vec![element("BANKNOTE", "50.00"), element("CARD", "49.01")]);
        assert_eq!(payments(&split, d("99.01")).unwrap().len(), 2);
        assert_eq!(keys(payments(&split, d("99.02"))), vec!["payment_methods"]);
        assert_eq!(keys(payments(&split, d("99.00"))), vec!["payment_methods"]);
        // Amounts too large to add up are refused by their bound, never a crash.
        let huge = v2(vec![
            element("BANKNOTE", "70000000000000000000000000000"),
            element("CARD", "70000000000000000000000000000"),
        ]);
        assert_eq!(
            keys(payments(&huge, d("1"))),
            vec!["payment_methods.0.amount", "payment_methods.1.amount"]
        );
    }

    #[test]
    fn v2_invoice_level_payment_fields_are_refused() {
        let body = PaymentsInput::V2 {
            payment_methods: Some(vec![element("BANKNOTE", "10.00")]),
            payment_method: Some("BANKNOTE".to_string()),
            company_card: Some("CARD-001".to_string()),
            vouchers: Some(vec![VOUCHER.to_string()]),
        };
        assert_eq!(keys(payments(&body, d("10.00"))), vec!["company_card", "payment_method", "vouchers"]);
    }

    #[test]
    fn v2_company_card_is_required_on_company_and_only_there() {
        assert_eq!(
            keys(payments(&v2(vec![element("COMPANY", "10.00")]), d("10.00"))),
            vec!["payment_methods.0.company_card"]
        );
        let company =
            PaymentElementInput { company_card: Some("CARD-001".to_string()), ..element("COMPANY", "10.00") };
        let paid = payments(&v2(vec![element("BANKNOTE", "0"), company.clone()]), d("10.00")).unwrap();
        assert_eq!(paid[1].company_card.as_deref(), Some("CARD-001"));
        let on_card =
            PaymentElementInput { company_card: Some("CARD-001".to_string()), ..element("CARD", "10.00") };
        assert_eq!(
            keys(payments(&v2(vec![element("BANKNOTE", "0"), on_card]), d("10.00"))),
            vec!["payment_methods.1.company_card"]
        );
        let long = PaymentElementInput { company_card: Some("x".repeat(51)), ..element("COMPANY", "10.00") };
        assert_eq!(keys(payments(&v2(vec![long]), d("10.00"))), vec!["payment_methods.0.company_card"]);
        let fifty = PaymentElementInput { company_card: Some("x".repeat(50)), ..element("COMPANY", "10.00") };
        payments(&v2(vec![fifty]), d("10.00")).unwrap();
    }

    #[test]
    fn v2_vouchers_are_required_on_svoucher_and_only_there() {
        let with = |kind: &str, vouchers: Vec<String>| PaymentElementInput {
            vouchers: Some(vouchers),
            ..element(kind, "10.00")
        };
        assert_eq!(
            keys(payments(&v2(vec![element("SVOUCHER", "10.00")]), d("10.00"))),
            vec!["payment_methods.0.vouchers"]
        );
        assert_eq!(
            keys(payments(&v2(vec![with("SVOUCHER", vec![])]), d("10.00"))),
            vec!["payment_methods.0.vouchers"]
        );
        let paid = payments(&v2(vec![with("SVOUCHER", vec![VOUCHER.to_string()])]), d("10.00")).unwrap();
        assert_eq!(paid[0].vouchers, vec![VOUCHER.to_string()]);
        assert_eq!(
            keys(payments(&v2(vec![with("CARD", vec![VOUCHER.to_string()])]), d("10.00"))),
            vec!["payment_methods.0.vouchers"]
        );
        // Up to 20, no repeats, each in the CIS's form.
        let twenty: Vec<String> = (1..=20).map(|n| format!("{n}-2026-L41323036D")).collect();
        payments(&v2(vec![with("SVOUCHER", twenty.clone())]), d("10.00")).unwrap();
        let mut twenty_one = twenty;
        twenty_one.push("21-2026-L41323036D".to_string());
        assert_eq!(
            keys(payments(&v2(vec![with("SVOUCHER", twenty_one)]), d("10.00"))),
            vec!["payment_methods.0.vouchers"]
        );
        let repeated = vec![VOUCHER.to_string(), "13-2026-L41323036D".to_string(), VOUCHER.to_string()];
        assert_eq!(
            keys(payments(&v2(vec![with("SVOUCHER", repeated)]), d("10.00"))),
            vec!["payment_methods.0.vouchers.2"]
        );
        assert_eq!(
            keys(payments(&v2(vec![with("SVOUCHER", vec!["12-2026".to_string()])]), d("10.00"))),
            vec!["payment_methods.0.vouchers.0"]
        );
    }

    #[test]
    fn v2_type_and_amount_are_required_in_each_element() {
        let empty = PaymentElementInput::default();
        assert_eq!(
            keys(payments(&v2(vec![empty]), d("1"))),
            vec!["payment_methods.0.amount", "payment_methods.0.type"]
        );
        assert_eq!(
            keys(payments(&v2(vec![element("ADVANCE", "1")]), d("1"))),
            vec!["payment_methods.0.type"]
        );
    }

    #[test]
    fn the_sum_is_checked_after_the_fields() {
        // A body with a field error answers with that error, not with a sum that cannot add up.
        let read_back = read(&v2(vec![element("COMPANY", "1.00")]));
        assert_eq!(
            read_back.unwrap_err().into_map().into_keys().collect::<Vec<_>>(),
            vec!["payment_methods.0.company_card"]
        );
    }
}
