//! The till's rules of a shop: how its scale prints weights and prices into EAN-13 codes, and
//! how much of a line a cashier may take off.

use rust_decimal::Decimal;

use super::spelled::spelled;
use super::validation::FieldErrors;

spelled! {
    /// What the digits after a scale code's item code hold.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ScaleValue {
        /// The weight in grams (five digits: up to 99.999 kg).
        Weight = "weight",
        /// The line's price in lek.
        Price = "price",
    }
}

/// A scale's EAN-13 code: two digits of prefix (one of `prefixes`, 20 to 29), `item_digits`
/// of the product's code, the value in the digits left before the check digit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleLayout {
    pub prefixes: Vec<u8>,
    pub item_digits: u8,
    pub value: ScaleValue,
}

impl Default for ScaleLayout {
    /// The common layout: prefixes 20 to 29, five digits of item, five of grams.
    fn default() -> Self {
        ScaleLayout { prefixes: (20..=29).collect(), item_digits: 5, value: ScaleValue::Weight }
    }
}

/// A shop's till settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TillSettings {
    pub scale: ScaleLayout,
    /// The highest line discount, in percent, a cashier may give (a manager or an owner: any).
    pub cashier_max_discount: Decimal,
}

impl Default for TillSettings {
    fn default() -> Self {
        TillSettings { scale: ScaleLayout::default(), cashier_max_discount: Decimal::ONE_HUNDRED }
    }
}

/// What a body asks to change; `None` keeps the stored value.
#[derive(Debug, Clone, Default)]
pub struct TillSettingsInput {
    pub scale_prefixes: Option<Vec<i64>>,
    pub scale_item_digits: Option<i64>,
    pub scale_value: Option<String>,
    pub cashier_max_discount: Option<Decimal>,
}

/// The settings `input` makes of `stored`, or every field it gets wrong.
pub fn settings(stored: &TillSettings, input: &TillSettingsInput) -> Result<TillSettings, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut next = stored.clone();
    if let Some(prefixes) = &input.scale_prefixes {
        let mut kept: Vec<u8> = Vec::new();
        for p in prefixes {
            match u8::try_from(*p).ok().filter(|p| (20..=29).contains(p)) {
                Some(p) if !kept.contains(&p) => kept.push(p),
                Some(_) => {}
                None => {
                    errors.add("scale_prefixes", "Each prefix is a number from 20 to 29.");
                    break;
                }
            }
        }
        if kept.is_empty() && !prefixes.is_empty() && errors.is_empty() {
            errors.add("scale_prefixes", "Each prefix is a number from 20 to 29.");
        }
        kept.sort_unstable();
        next.scale.prefixes = kept;
    }
    if let Some(digits) = input.scale_item_digits {
        match u8::try_from(digits).ok().filter(|d| (4..=6).contains(d)) {
            Some(d) => next.scale.item_digits = d,
            None => errors.add("scale_item_digits", "The item code has 4, 5 or 6 digits."),
        }
    }
    if let Some(value) = &input.scale_value {
        match ScaleValue::parse(value) {
            Some(v) => next.scale.value = v,
            None => errors.add("scale_value", "The value is weight or price."),
        }
    }
    if let Some(max) = input.cashier_max_discount {
        if max < Decimal::ZERO || max > Decimal::ONE_HUNDRED {
            errors.add("cashier_max_discount", "The discount is a percent from 0 to 100.");
        } else {
            next.cashier_max_discount = max.normalize();
        }
    }
    if errors.is_empty() { Ok(next) } else { Err(errors) }
}

/// The first line discount above what a cashier may give, as `lines.N.discount`.
pub fn discount_beyond_limit(limit: Decimal, discounts: &[Option<Decimal>]) -> Option<usize> {
    discounts.iter().position(|d| d.is_some_and(|d| d > limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> TillSettingsInput {
        TillSettingsInput::default()
    }

    #[test]
    fn a_layout_takes_prefixes_20_to_29_and_4_to_6_item_digits() {
        let stored = TillSettings::default();
        let cases: [(TillSettingsInput, Option<&str>); 6] = [
            (TillSettingsInput { scale_prefixes: Some(vec![22, 21, 21]), ..input() }, None),
            (TillSettingsInput { scale_prefixes: Some(vec![19]), ..input() }, Some("scale_prefixes")),
            (TillSettingsInput { scale_prefixes: Some(vec![300]), ..input() }, Some("scale_prefixes")),
            (TillSettingsInput { scale_item_digits: Some(7), ..input() }, Some("scale_item_digits")),
            (TillSettingsInput { scale_value: Some("volume".into()), ..input() }, Some("scale_value")),
            (
                TillSettingsInput { cashier_max_discount: Some(Decimal::new(101, 0)), ..input() },
                Some("cashier_max_discount"),
            ),
        ];
        for (input, refused) in cases {
            match (settings(&stored, &input), refused) {
                (Ok(s), None) => assert_eq!(s.scale.prefixes, [21, 22]),
                (Err(e), Some(field)) => assert!(e.fields().contains(field), "{e:?}"),
                (other, _) => panic!("{input:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_discount_beyond_the_limit_is_found_by_its_line() {
        let ten = Decimal::new(10, 0);
        assert_eq!(discount_beyond_limit(ten, &[None, Some(ten)]), None);
        assert_eq!(discount_beyond_limit(ten, &[None, Some(Decimal::new(105, 1))]), Some(1));
    }
}
