//! Money: amounts are `Decimal`, rounded to the cent half away from zero, the way the CIS
//! clients round (PROTOCOL.md section 8), and converted to lek with the invoice's exchange rate.

use rust_decimal::{Decimal, RoundingStrategy};

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
    fn cents_have_at_most_two_decimals() {
        assert!(is_cents(d("10")));
        assert!(is_cents(d("10.5")));
        assert!(is_cents(d("10.500")));
        assert!(is_cents(d("-0.01")));
        assert!(!is_cents(d("10.005")));
    }
}
