//! Stock of inventory articles per business unit: how documents and the owner move it.
//!
//! A sale or a note leaving a unit takes goods off its shelf; a cancellation gives back what its
//! sale took; a note between the company's units puts them on the other unit's shelf; the owner
//! counts the shelf (the quantity becomes what was counted), books a delivery received, or
//! corrects a mistake. With `enforce` on, nothing may take more than is on the shelf: the line
//! that would is named with what is left. With it off the shelf may go negative.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::money::{self, MAX_QUANTITY, Overflow};
use super::spelled::{Spelled, spelled};
use super::validation::FieldErrors;

/// The longest note an owner may give a movement.
pub const MAX_NOTE: usize = 255;

spelled! {
    /// Why a quantity changed.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Reason {
        Sale = "sale",
        Cancellation = "cancellation",
        /// A note took the goods out of the unit (to another unit, or to a client).
        WtnOut = "wtn_out",
        /// A note between the company's units brought them in.
        WtnIn = "wtn_in",
        /// The owner counted the shelf.
        Count = "count",
        /// The owner booked a delivery received.
        Delivery = "delivery",
        /// The owner corrected a quantity.
        Correction = "correction",
    }
}

/// One line of a document asking for an article: its position in the body, the article, and
/// how many.
#[derive(Debug, Clone, PartialEq)]
pub struct Want {
    pub index: usize,
    pub product_id: i64,
    pub code: String,
    pub quantity: Decimal,
}

/// A line asking for more than is left on the shelf.
#[derive(Debug, Clone, PartialEq)]
pub struct Shortage {
    pub index: usize,
    pub code: String,
    pub asked: Decimal,
    /// What was left for this line (never below 0).
    pub left: Decimal,
}

impl Shortage {
    /// One entry of the 400 answer's `errors`: `lines.0.quantity: 5 of K1 asked, 3 left in Qendër`.
    pub fn message(&self, lines_field: &str, unit_name: &str) -> String {
        format!(
            "{lines_field}.{}.quantity: {} of {} asked, {} left in {unit_name}",
            self.index,
            self.asked.normalize(),
            self.code,
            self.left.normalize()
        )
    }
}

/// Why goods could not be taken.
#[derive(Debug, Clone, PartialEq)]
pub enum TakeError {
    /// With enforce on, these lines ask for more than is left.
    Short(Vec<Shortage>),
    /// A level left the range of a decimal.
    Overflow,
}

impl From<Overflow> for TakeError {
    fn from(_: Overflow) -> Self {
        TakeError::Overflow
    }
}

/// The levels after taking `wants` off a shelf holding `levels` (an article without an entry
/// holds 0). Lines of the same article take in order, so the line named short is the first one
/// the shelf cannot serve, with what was left for it.
pub fn take(
    levels: &BTreeMap<i64, Decimal>,
    wants: &[Want],
    enforce: bool,
) -> Result<BTreeMap<i64, Decimal>, TakeError> {
    let mut after = levels.clone();
    let mut short = Vec::new();
    for want in wants {
        let level = after.get(&want.product_id).copied().unwrap_or_default();
        let next = money::sub(level, want.quantity)?;
        if enforce && next < Decimal::ZERO {
            short.push(Shortage {
                index: want.index,
                code: want.code.clone(),
                asked: want.quantity,
                left: level.max(Decimal::ZERO),
            });
            continue;
        }
        after.insert(want.product_id, next);
    }
    if short.is_empty() { Ok(after) } else { Err(TakeError::Short(short)) }
}

/// The levels after putting `wants` on a shelf holding `levels` (a cancellation, a note's
/// arrival).
pub fn put(levels: &BTreeMap<i64, Decimal>, wants: &[Want]) -> Result<BTreeMap<i64, Decimal>, Overflow> {
    let mut after = levels.clone();
    for want in wants {
        let level = after.get(&want.product_id).copied().unwrap_or_default();
        after.insert(want.product_id, money::add(level, want.quantity)?);
    }
    Ok(after)
}

/// A linked document's lines split between a warehouse transfer note and the shelf.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgainstNote {
    /// Per article, how much the note accounts for.
    pub counted: BTreeMap<i64, Decimal>,
    /// What is left for the shelf, line by line (lines the note covers in full are gone).
    pub rest: Vec<Want>,
}

/// Lines of an invoice linked to a note, against what is `open` of each article on the note:
/// each line counts against the note first, up to what is still open of its article (lines of
/// one article in order), and only the rest is the shelf's. The same split serves a sale (open:
/// what the note moved that no invoice counted yet) and its cancellation (open: what the sale
/// still counts against the note, which goes back to the note before the shelf gets anything).
pub fn against_note(open: &BTreeMap<i64, Decimal>, wants: &[Want]) -> AgainstNote {
    let mut left = open.clone();
    let mut split = AgainstNote::default();
    for want in wants {
        let available = left.get(&want.product_id).copied().unwrap_or_default().max(Decimal::ZERO);
        let counted = available.min(want.quantity);
        if counted > Decimal::ZERO {
            left.insert(want.product_id, available - counted);
            *split.counted.entry(want.product_id).or_default() += counted;
        }
        if want.quantity > counted {
            split.rest.push(Want { quantity: want.quantity - counted, ..want.clone() });
        }
    }
    split
}

spelled! {
    /// What the owner does to a shelf.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Adjustment {
        /// The shelf was counted: the quantity becomes what was counted.
        Count = "count",
        /// A delivery arrived: the quantity goes up by it.
        Delivery = "delivery",
        /// A mistake is put right: the quantity goes up or down by it.
        Correction = "correction",
    }
}

impl Adjustment {
    pub fn reason(self) -> Reason {
        match self {
            Adjustment::Count => Reason::Count,
            Adjustment::Delivery => Reason::Delivery,
            Adjustment::Correction => Reason::Correction,
        }
    }
}

/// An owner's adjustment as sent.
#[derive(Debug, Clone, Default)]
pub struct AdjustmentInput {
    pub kind: Option<String>,
    pub quantity: Option<Decimal>,
    pub note: Option<String>,
}

/// An owner's adjustment, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedAdjustment {
    pub kind: Adjustment,
    pub quantity: Decimal,
    pub note: Option<String>,
}

/// The body's rules: `kind` count, delivery or correction; a count is 0 or more, a delivery
/// more than 0, a correction anything but 0; at most `MAX_QUANTITY` either way and 3 decimals.
pub fn check_adjustment(input: &AdjustmentInput) -> Result<CheckedAdjustment, FieldErrors> {
    let mut errors = FieldErrors::new();
    let kind = match input.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        None => {
            errors.add("kind", "The kind field is required.");
            None
        }
        Some(text) => Adjustment::parse_any_case(text).or_else(|| {
            errors.add("kind", "The kind must be one of count, delivery, correction.");
            None
        }),
    };
    let quantity = match input.quantity {
        None => {
            errors.add("quantity", "The quantity field is required.");
            None
        }
        Some(q) if q.normalize().scale() > 3 => {
            errors.add("quantity", "The quantity field must have at most 3 decimal places.");
            None
        }
        Some(q) => money::within(&mut errors, "quantity", q, MAX_QUANTITY).then_some(q),
    };
    if let (Some(kind), Some(q)) = (kind, quantity) {
        let fits = match kind {
            Adjustment::Count => q >= Decimal::ZERO,
            Adjustment::Delivery => q > Decimal::ZERO,
            Adjustment::Correction => q != Decimal::ZERO,
        };
        if !fits {
            let rule = match kind {
                Adjustment::Count => "A count must be at least 0.",
                Adjustment::Delivery => "A delivery must be greater than 0.",
                Adjustment::Correction => "A correction must not be 0.",
            };
            errors.add("quantity", rule);
        }
    }
    let note = input.note.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(str::to_string);
    errors.max_len("note", note.as_deref(), MAX_NOTE);
    errors.into_result()?;
    match (kind, quantity) {
        (Some(kind), Some(quantity)) => Ok(CheckedAdjustment { kind, quantity, note }),
        _ => Err(FieldErrors::one("body", "The adjustment could not be read.")),
    }
}

/// A shelf after an adjustment: the change and the new level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adjusted {
    pub change: Decimal,
    pub after: Decimal,
}

/// Applies an owner's adjustment to a shelf holding `level`. With `enforce` on a correction
/// may not take the shelf below 0 (the same rule as a sale).
pub fn adjust(level: Decimal, adjustment: &CheckedAdjustment, enforce: bool) -> Result<Adjusted, TakeError> {
    let after = match adjustment.kind {
        Adjustment::Count => adjustment.quantity,
        Adjustment::Delivery | Adjustment::Correction => money::add(level, adjustment.quantity)?,
    };
    if enforce && after < Decimal::ZERO {
        return Err(TakeError::Short(vec![Shortage {
            index: 0,
            code: String::new(),
            asked: -adjustment.quantity,
            left: level.max(Decimal::ZERO),
        }]));
    }
    Ok(Adjusted { change: money::sub(after, level)?, after })
}

/// The `ids` of the mobile stock list: product ids separated by commas; blank means all.
pub fn parse_ids(text: Option<&str>) -> Result<Option<Vec<i64>>, FieldErrors> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let mut ids = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.parse::<i64>() {
            Ok(id) if id > 0 => {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            _ => {
                return Err(FieldErrors::one(
                    "ids",
                    format!("The ids must be product ids separated by commas; `{part}` is not one."),
                ));
            }
        }
    }
    if ids.len() > 1000 {
        return Err(FieldErrors::one("ids", "The ids may name at most 1000 products."));
    }
    Ok(Some(ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn want(index: usize, product_id: i64, quantity: &str) -> Want {
        Want { index, product_id, code: format!("P{product_id}"), quantity: d(quantity) }
    }

    fn levels(pairs: &[(i64, &str)]) -> BTreeMap<i64, Decimal> {
        pairs.iter().map(|(id, q)| (*id, d(q))).collect()
    }

    #[test]
    fn taking_lowers_each_article_and_an_unknown_shelf_starts_at_zero() {
        // | shelf      | lines             | enforce | after          |
        let after = take(&levels(&[(1, "5")]), &[want(0, 1, "2"), want(1, 2, "1.5")], false).unwrap();
        assert_eq!(after, levels(&[(1, "3"), (2, "-1.5")]));
        let after = take(&levels(&[(1, "5")]), &[want(0, 1, "5")], true).unwrap();
        assert_eq!(after, levels(&[(1, "0")]));
    }

    #[test]
    fn with_enforce_on_the_first_line_the_shelf_cannot_serve_is_named_with_what_was_left() {
        // Two lines of the same article: 3 on the shelf, 2 then 2 asked.
        let short = take(&levels(&[(1, "3")]), &[want(0, 1, "2"), want(1, 1, "2")], true);
        assert_eq!(
            short,
            Err(TakeError::Short(vec![Shortage {
                index: 1,
                code: "P1".into(),
                asked: d("2"),
                left: d("1")
            }]))
        );
        // A shelf already below zero shows 0 left.
        let Err(TakeError::Short(lines)) = take(&levels(&[(1, "-4")]), &[want(0, 1, "1")], true) else {
            panic!("short expected");
        };
        assert_eq!(lines[0].left, d("0"));
        assert_eq!(
            lines[0].message("invoice_lines", "Qendër"),
            "invoice_lines.0.quantity: 1 of P1 asked, 0 left in Qendër"
        );
    }

    #[test]
    fn putting_raises_the_shelf() {
        assert_eq!(
            put(&levels(&[(1, "-1")]), &[want(0, 1, "3"), want(1, 3, "0.25")]).unwrap(),
            levels(&[(1, "2"), (3, "0.25")])
        );
    }

    #[test]
    fn a_linked_document_counts_against_the_note_first_and_the_shelf_gets_the_rest() {
        // The note holds 5 of article 1 and 2 of article 2 open.
        let open = levels(&[(1, "5"), (2, "2")]);
        // | lines                          | counted        | shelf              |
        // | 1: 3, 1: 3, 2: 1.5, 3: 1       | 1: 5, 2: 1.5   | 1: 1, 3: 1         |
        let split =
            against_note(&open, &[want(0, 1, "3"), want(1, 1, "3"), want(2, 2, "1.5"), want(3, 3, "1")]);
        assert_eq!(split.counted, levels(&[(1, "5"), (2, "1.5")]));
        assert_eq!(split.rest, [want(1, 1, "1"), want(3, 3, "1")], "the shelf's lines keep their index");
        // Nothing open: every line is the shelf's; a negative entry counts as nothing open.
        let split = against_note(&levels(&[(1, "-1")]), &[want(0, 1, "2")]);
        assert!(split.counted.is_empty());
        assert_eq!(split.rest, [want(0, 1, "2")]);
        // Fewer than the note carried: the rest of the note stays open for another invoice.
        let split = against_note(&open, &[want(0, 2, "0.5")]);
        assert_eq!((split.counted, split.rest), (levels(&[(2, "0.5")]), Vec::new()));
    }

    #[test]
    fn a_level_beyond_a_decimal_is_an_overflow_not_a_panic() {
        let huge = levels(&[(1, "-79228162514264337593543950335")]);
        assert_eq!(take(&huge, &[want(0, 1, "1")], false), Err(TakeError::Overflow));
    }

    #[test]
    fn adjustments_read_like_the_owner_s_table() {
        let check = |kind: &str, q: &str| {
            check_adjustment(&AdjustmentInput { kind: Some(kind.into()), quantity: Some(d(q)), note: None })
        };
        // | kind       | sent | shelf | after | change |
        let rows = [
            ("count", "7", "3", "7", "4"),
            ("count", "0", "3", "0", "-3"),
            ("delivery", "10", "-2", "8", "10"),
            ("correction", "-1", "3", "2", "-1"),
        ];
        for (kind, sent, shelf, after, change) in rows {
            let adjusted = adjust(d(shelf), &check(kind, sent).unwrap(), false).unwrap();
            assert_eq!(adjusted, Adjusted { change: d(change), after: d(after) }, "{kind} {sent}");
        }
        // Refused: a negative count, an empty delivery, a zero correction, 4 decimals, 1e10.
        for (kind, sent) in [
            ("count", "-1"),
            ("delivery", "0"),
            ("correction", "0"),
            ("count", "1.0001"),
            ("delivery", "10000000000"),
        ] {
            let errors = check(kind, sent).unwrap_err().into_map();
            assert!(errors.contains_key("quantity"), "{kind} {sent}: {errors:?}");
        }
        let errors = check("stolen", "1").unwrap_err().into_map();
        assert!(errors.contains_key("kind"));
        // With enforce on a correction may not go below zero.
        assert!(matches!(
            adjust(d("1"), &check("correction", "-2").unwrap(), true),
            Err(TakeError::Short(_))
        ));
    }

    #[test]
    fn ids_are_positive_integers_separated_by_commas() {
        assert_eq!(parse_ids(None).unwrap(), None);
        assert_eq!(parse_ids(Some(" ")).unwrap(), None);
        assert_eq!(parse_ids(Some("1, 2,,2,3")).unwrap(), Some(vec![1, 2, 3]));
        for bad in ["1,x", "-1", "9223372036854775808", "1e3"] {
            assert!(parse_ids(Some(bad)).unwrap_err().into_map().contains_key("ids"), "{bad}");
        }
    }

    #[test]
    fn reasons_read_back_as_written() {
        for r in Reason::ALL {
            assert_eq!(Reason::parse(r.as_str()), Some(r));
        }
    }
}
