//! The invoice-level discount: read from its (type, value) pair, taken off the total with VAT
//! after the line discounts, and split into cents over VAT groups and lines.
//!
//! Where the cents go: the invoice discount is split first over the VAT groups in proportion to
//! each group's total with VAT, then inside each group over its lines in proportion to each
//! line's total with VAT. At both steps every share is its exact proportion rounded down to the
//! cent, and the cents still missing go one at a time to the shares with the largest remainders
//! (the earlier group or line, in the order of `lines`, on a tie). So the shares add up to the
//! discount to the cent, no group or line is reduced below zero, and no share differs from its
//! exact proportion by a cent or more. Each line then computes its net and VAT from its reduced
//! total with VAT (`PB = round2(PA / (1 + VR/100))`, `VA = PA - PB`), and every VAT group and
//! invoice total is the sum of its lines.

use rust_decimal::{Decimal, RoundingStrategy};

use super::money::{self, MAX_AMOUNT, round2};
use super::validation::FieldErrors;

/// A discount on the whole invoice, read on its total with VAT after the line discounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvoiceDiscount {
    /// Percent of the total, 0 < p <= 100.
    Percent(Decimal),
    /// An amount with VAT in the invoice currency (not in lek), > 0.
    Amount(Decimal),
}

impl InvoiceDiscount {
    /// Reads `invoice_discount_type` and `invoice_discount_value`. The discount works only as a
    /// pair: one without the other, or a value of 0, is no discount and no error. A type other
    /// than `percent`/`amount` or a negative value is still a field error (422). A percent above
    /// 100 counts as 100; an amount above the total is capped later, by `gross_off`.
    pub fn from_pair(kind: Option<&str>, value: Option<Decimal>) -> Result<Option<Self>, FieldErrors> {
        let mut errors = FieldErrors::new();
        let kind = kind.map(str::trim).filter(|k| !k.is_empty());
        let is_percent = match kind {
            None => None,
            Some(k) if k.eq_ignore_ascii_case("percent") => Some(true),
            Some(k) if k.eq_ignore_ascii_case("amount") => Some(false),
            Some(_) => {
                errors.add("invoice_discount_type", "The selected invoice_discount_type is invalid.");
                None
            }
        };
        match value {
            Some(v) if v < Decimal::ZERO => {
                errors.add("invoice_discount_value", "The invoice_discount_value field must be at least 0.");
            }
            Some(v) => {
                money::within(&mut errors, "invoice_discount_value", v, MAX_AMOUNT);
            }
            None => {}
        }
        errors.into_result()?;
        Ok(match (is_percent, value) {
            (Some(_), Some(v)) if v.is_zero() => None,
            (Some(true), Some(v)) => Some(InvoiceDiscount::Percent(v.min(Decimal::ONE_HUNDRED))),
            (Some(false), Some(v)) => Some(InvoiceDiscount::Amount(v)),
            _ => None,
        })
    }

    /// The amount with VAT this discount takes off `total` (the total with VAT after line
    /// discounts, fee excluded), in cents, never more than the total nor less than zero.
    pub fn gross_off(self, total: Decimal) -> Decimal {
        let off = match self {
            InvoiceDiscount::Percent(percent) => round2(total * percent / Decimal::ONE_HUNDRED),
            InvoiceDiscount::Amount(amount) => round2(amount),
        };
        off.min(total).max(Decimal::ZERO)
    }
}

/// Splits `amount` (whole cents, between 0 and the sum of the weights) over `weights` in
/// proportion to each weight: each share is rounded down to the cent, then the missing cents go
/// one each to the largest remainders, the earlier index first on a tie. The shares add up to
/// `amount` exactly and none exceeds the cent above its exact proportion, so with weights in
/// whole cents no share exceeds its weight.
pub fn spread(amount: Decimal, weights: &[Decimal]) -> Vec<Decimal> {
    let whole: Decimal = weights.iter().sum();
    if whole <= Decimal::ZERO || amount.is_zero() {
        return vec![Decimal::ZERO; weights.len()];
    }
    let exact: Vec<Decimal> = weights.iter().map(|weight| amount * weight / whole).collect();
    let mut shares: Vec<Decimal> =
        exact.iter().map(|e| e.round_dp_with_strategy(2, RoundingStrategy::ToZero)).collect();
    let remainders: Vec<Decimal> = exact.iter().zip(&shares).map(|(e, s)| e - s).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    // Stable sort: equal remainders keep index order.
    order.sort_by(|&a, &b| remainders[b].cmp(&remainders[a]));
    let cent = Decimal::new(1, 2);
    let mut missing = amount - shares.iter().sum::<Decimal>();
    for index in order {
        if missing < cent {
            break;
        }
        shares[index] += cent;
        missing -= cent;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn the_pair_rule() {
        // | type      | value | discount          |
        let table: [(Option<&str>, Option<&str>, Option<InvoiceDiscount>); 9] = [
            (Some("percent"), Some("10"), Some(InvoiceDiscount::Percent(d("10")))),
            (Some("amount"), Some("5.50"), Some(InvoiceDiscount::Amount(d("5.50")))),
            (Some("percent"), Some("150"), Some(InvoiceDiscount::Percent(d("100")))),
            (Some("PERCENT"), Some("12.5"), Some(InvoiceDiscount::Percent(d("12.5")))),
            (Some("percent"), None, None),
            (None, Some("10"), None),
            (Some(""), Some("10"), None),
            (Some("percent"), Some("0"), None),
            (Some("amount"), Some("0.00"), None),
        ];
        for (kind, value, expected) in table {
            assert_eq!(
                InvoiceDiscount::from_pair(kind, value.map(d)).unwrap(),
                expected,
                "type {kind:?}, value {value:?}"
            );
        }
    }

    #[test]
    fn an_unknown_type_or_a_negative_value_is_a_field_error() {
        let errors = InvoiceDiscount::from_pair(Some("fixed"), Some(d("10"))).unwrap_err().into_map();
        assert_eq!(errors.keys().collect::<Vec<_>>(), vec!["invoice_discount_type"]);
        let errors = InvoiceDiscount::from_pair(Some("amount"), Some(d("-1"))).unwrap_err().into_map();
        assert_eq!(errors.keys().collect::<Vec<_>>(), vec!["invoice_discount_value"]);
        // Above the bound of every amount, whatever the type.
        for kind in ["amount", "percent"] {
            let errors =
                InvoiceDiscount::from_pair(Some(kind), Some(d("100000000000.01"))).unwrap_err().into_map();
            assert_eq!(errors.keys().collect::<Vec<_>>(), vec!["invoice_discount_value"], "{kind}");
        }
    }

    #[test]
    fn gross_off_a_total() {
        // | discount     | total  | off    |
        let table = [
            (InvoiceDiscount::Percent(d("10")), "150.00", "15.00"),
            (InvoiceDiscount::Percent(d("100")), "150.00", "150.00"),
            // 33.333...% of 10.00 = 3.3333 -> 3.33
            (InvoiceDiscount::Percent(d("33.3333")), "10.00", "3.33"),
            // 12.5% of 0.20 = 0.025 -> 0.03 (half away from zero)
            (InvoiceDiscount::Percent(d("12.5")), "0.20", "0.03"),
            (InvoiceDiscount::Amount(d("20")), "150.00", "20.00"),
            (InvoiceDiscount::Amount(d("999")), "150.00", "150.00"),
            (InvoiceDiscount::Amount(d("0.005")), "1.00", "0.01"),
        ];
        for (discount, total, off) in table {
            assert_eq!(discount.gross_off(d(total)), d(off), "{discount:?} off {total}");
        }
    }

    #[test]
    fn spread_by_largest_remainder() {
        // 10.00 over 1:1:1 -> exact 3.333.. each -> 3.33 + 3.33 + 3.33 = 9.99, one cent missing,
        // all remainders equal -> the first share takes it.
        assert_eq!(spread(d("10.00"), &[d("1"), d("1"), d("1")]), vec![d("3.34"), d("3.33"), d("3.33")]);
        // 1.00 over 30:70 -> 0.30 + 0.70 exactly.
        assert_eq!(spread(d("1.00"), &[d("30"), d("70")]), vec![d("0.30"), d("0.70")]);
        // 0.05 over 1:2:2 -> exact 0.01, 0.02, 0.02: no cent missing.
        assert_eq!(spread(d("0.05"), &[d("1"), d("2"), d("2")]), vec![d("0.01"), d("0.02"), d("0.02")]);
        // 0.10 over 1:1:1 -> 0.0333 each -> 0.03 x 3 = 0.09; the first takes the cent.
        assert_eq!(spread(d("0.10"), &[d("1"), d("1"), d("1")]), vec![d("0.04"), d("0.03"), d("0.03")]);
        // 1.00 over 2.00:0.01 (a share may never pass its weight): exact 0.995.., 0.00497..
        // -> 0.99 + 0.00, the cent goes to the larger remainder (0.00497 < 0.00502).
        assert_eq!(spread(d("1.00"), &[d("2.00"), d("0.01")]), vec![d("1.00"), d("0.00")]);
        // The whole of it: each share is its weight.
        assert_eq!(spread(d("3.01"), &[d("1.50"), d("1.51")]), vec![d("1.50"), d("1.51")]);
        assert_eq!(spread(d("0"), &[d("1"), d("2")]), vec![d("0"), d("0")]);
        assert_eq!(spread(d("1"), &[d("0"), d("0")]), vec![d("0"), d("0")]);
    }
}
