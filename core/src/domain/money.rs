//! Money: amounts are `Decimal`, rounded to the cent half away from zero, the way the CIS
//! clients round (PROTOCOL.md section 8), and converted to lek with the invoice's exchange rate.
//!
//! Bounds: the CIS's money type is an `xsd:decimal` with two decimals, which a schema processor
//! need only hold to 18 digits (XSD 1.0, section 3.2.3), and CIS clients keep amounts as
//! DECIMAL(18,2): at most 16 digits before the point. Every amount the API accepts is bounded
//! so that an invoice's totals, sums of 1000 lines, stay inside that, and no arithmetic on
//! accepted input can leave `Decimal`'s range. Sums over stored rows (a balance over years of
//! actions) are taken with `checked_sum`, which answers `Overflow` instead of panicking.

use std::fmt;

use rust_decimal::{Decimal, RoundingStrategy};

use super::validation::FieldErrors;

/// The largest amount accepted in one field: a price, a line's price x quantity and total, a
/// fee, a discount, a cash-register amount, a product's price. 100 billion lek.
pub const MAX_AMOUNT: i64 = 100_000_000_000;
/// The largest invoice total: 1000 lines of `MAX_AMOUNT`, 15 digits before the point; also the
/// bound of one v2 payment element, positive or negative.
pub const MAX_INVOICE_TOTAL: i64 = 100_000_000_000_000;
/// The largest quantity of a line (3 decimals on top stay exact in the CIS's `xsd:double`).
pub const MAX_QUANTITY: i64 = 1_000_000_000;
/// The largest exchange rate accepted, in lek per unit (no currency comes near it).
pub const MAX_EXCHANGE_RATE: i64 = 1_000_000;

/// A sum or product of amounts outside `Decimal`'s range (about 7.9e28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow;

impl fmt::Display for Overflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the amounts add up beyond the range of a decimal")
    }
}

impl std::error::Error for Overflow {}

/// `a + b`, or `Overflow`.
pub fn add(a: Decimal, b: Decimal) -> Result<Decimal, Overflow> {
    a.checked_add(b).ok_or(Overflow)
}

/// `a - b`, or `Overflow`.
pub fn sub(a: Decimal, b: Decimal) -> Result<Decimal, Overflow> {
    a.checked_sub(b).ok_or(Overflow)
}

/// `a * b`, or `Overflow`.
pub fn mul(a: Decimal, b: Decimal) -> Result<Decimal, Overflow> {
    a.checked_mul(b).ok_or(Overflow)
}

/// The sum of `amounts`, or `Overflow` as soon as it leaves `Decimal`'s range.
pub fn checked_sum(amounts: impl IntoIterator<Item = Decimal>) -> Result<Decimal, Overflow> {
    amounts.into_iter().try_fold(Decimal::ZERO, add)
}

/// Adds a field error when `value` is above `max` in absolute value; true when it is within.
pub fn within(errors: &mut FieldErrors, field: &str, value: Decimal, max: i64) -> bool {
    if value.abs() > Decimal::from(max) {
        errors.add(field, format!("The {field} field must not be greater than {max}."));
        return false;
    }
    true
}

/// Rounds to 2 decimals, half away from zero: 0.005 -> 0.01, -0.005 -> -0.01.
pub fn round2(amount: Decimal) -> Decimal {
    amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// The exchange rate an invoice uses: lek per one unit of its currency. Absent, zero or
/// negative means 1, as the spec says, so an invoice in lek needs nothing.
pub fn exchange_rate(sent: Option<Decimal>) -> Decimal {
    match sent {
        Some(rate) if rate > Decimal::ZERO => rate,
        _ => Decimal::ONE,
    }
}

/// An amount in the invoice currency converted to lek, rounded to the cent. Each `_all` figure
/// is converted on its own, so `gross_all` need not equal `net_all + vat_all` to the cent.
pub fn to_lek(amount: Decimal, exchange_rate: Decimal) -> Decimal {
    round2(amount * exchange_rate)
}

/// An amount as the CIS registers it: an invoice in another currency goes to the CIS in lek,
/// each amount converted at the invoice's rate and rounded to the cent; one in lek as it is.
pub fn registered_in_lek(amount: Decimal, exchange_rate: Decimal, foreign: bool) -> Decimal {
    if foreign { to_lek(amount, exchange_rate) } else { amount }
}

/// The payments as the CIS registers them (`registered_in_lek` each); converting each one
/// separately can leave a cent off `total` (the invoice's `TotPrice` in lek), which the first
/// payment takes.
pub fn payments_in_lek(
    amounts: &[Decimal],
    exchange_rate: Decimal,
    foreign: bool,
    total: Decimal,
) -> Vec<Decimal> {
    let mut converted: Vec<Decimal> =
        amounts.iter().map(|a| registered_in_lek(*a, exchange_rate, foreign)).collect();
    let paid: Decimal = converted.iter().sum();
    if let Some(first) = converted.first_mut() {
        *first += total - paid;
    }
    converted
}

/// Whether an amount is whole cents (a CIS money attribute has exactly two decimals).
pub fn is_cents(amount: Decimal) -> bool {
    amount.normalize().scale() <= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn rounds_half_away_from_zero() {
        // | amount  | rounded |
        let table = [
            (d("0.005"), d("0.01")),
            (d("0.004999"), d("0.00")),
            (d("2.675"), d("2.68")),
            (d("82.508333"), d("82.51")),
            (d("-0.005"), d("-0.01")),
            (d("-1.234"), d("-1.23")),
            (d("10"), d("10")),
        ];
        for (amount, rounded) in table {
            assert_eq!(round2(amount), rounded, "round2({amount})");
        }
    }

    #[test]
    fn exchange_rate_absent_or_not_positive_is_one() {
        assert_eq!(exchange_rate(None), d("1"));
        assert_eq!(exchange_rate(Some(d("0"))), d("1"));
        assert_eq!(exchange_rate(Some(d("-3"))), d("1"));
        assert_eq!(exchange_rate(Some(d("100.52"))), d("100.52"));
        // Currencies worth less than a lek send a rate below 1.
        assert_eq!(exchange_rate(Some(d("0.0125"))), d("0.0125"));
    }

    #[test]
    fn converts_to_lek_rounded_per_figure() {
        // 12.34 EUR at 100.52 = 1240.4168 ALL
        assert_eq!(to_lek(d("12.34"), d("100.52")), d("1240.42"));
        assert_eq!(to_lek(d("12.34"), d("1")), d("12.34"));
    }

    #[test]
    fn bounds_name_the_field_and_keep_sums_of_invoices_inside_eighteen_digits() {
        // | value                          | within 100 000 000 000 |
        let table = [
            ("100000000000", true),
            ("-100000000000", true),
            ("100000000000.01", false),
            ("9223372036854775807", false),
            ("792281625142643375935439503.35", false),
        ];
        for (value, ok) in table {
            let mut errors = FieldErrors::new();
            assert_eq!(within(&mut errors, "amount", d(value), MAX_AMOUNT), ok, "{value}");
            assert_eq!(errors.is_empty(), ok);
        }
        let mut errors = FieldErrors::new();
        within(&mut errors, "lines.0.price", d("1e12"), MAX_AMOUNT);
        assert_eq!(errors.into_map().into_keys().collect::<Vec<_>>(), ["lines.0.price"]);
        // 1000 lines of the largest amount: 16 digits with the cents, inside DECIMAL(18,2).
        let total = Decimal::from(MAX_AMOUNT) * Decimal::from(1000);
        assert_eq!(total, Decimal::from(MAX_INVOICE_TOTAL));
        assert!(format!("{:.2}", total).replace('.', "").len() <= 18);
    }

    #[test]
    fn checked_arithmetic_answers_overflow_instead_of_panicking() {
        // The deposits: a hundredth of Decimal's range each, so 105 of them overflow.
        let deposit = d("792281625142643375935439503.35");
        assert_eq!(checked_sum(vec![deposit; 105]), Err(Overflow));
        assert_eq!(checked_sum([d("1.10"), d("2.20"), d("-0.30")]), Ok(d("3.00")));
        assert_eq!(checked_sum(std::iter::empty()), Ok(d("0")));
        assert_eq!(add(Decimal::MAX, d("1")), Err(Overflow));
        assert_eq!(sub(Decimal::MIN, d("1")), Err(Overflow));
        assert_eq!(mul(Decimal::MAX, d("2")), Err(Overflow));
        assert_eq!(mul(d("2.5"), d("4")), Ok(d("10.0")));
    }

    #[test]
    fn the_cis_registers_foreign_amounts_in_lek_and_the_first_payment_takes_the_lost_cent() {
        // | amount | rate   | foreign | registered |
        assert_eq!(registered_in_lek(d("12.34"), d("100.52"), true), d("1240.42"));
        assert_eq!(registered_in_lek(d("12.34"), d("100.52"), false), d("12.34"));
        // 0.05 + 0.05 EUR at 100.1: each rounds up to 5.01, one cent over the registered 10.01.
        let paid = payments_in_lek(&[d("0.05"), d("0.05")], d("100.1"), true, d("10.01"));
        assert_eq!(paid, vec![d("5.00"), d("5.01")]);
        assert_eq!(payments_in_lek(&[d("285")], d("1"), false, d("285")), vec![d("285")]);
        assert!(payments_in_lek(&[], d("100"), true, d("0")).is_empty());
    }

    #[test]
    fn cents_have_at_most_two_decimals() {
        assert!(is_cents(d("10")));
        assert!(is_cents(d("10.5")));
        assert!(is_cents(d("10.500")));
        assert!(is_cents(d("-0.01")));
        assert!(!is_cents(d("10.005")));
    }
}
