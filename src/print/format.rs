//! Numbers as printed, and text fitted into a width: wrapped at spaces, broken inside a word
//! only when the word alone is too wide, and cut with an ellipsis when lines run out.

use rust_decimal::{Decimal, RoundingStrategy};

use super::canvas::Style;
use super::winansi::ELLIPSIS;

/// An amount with exactly two decimals, rounded half away from zero as the CIS rounds, never
/// `-0.00`.
pub fn amount(value: Decimal) -> String {
    let mut rounded = value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    if rounded.is_zero() {
        rounded = Decimal::ZERO;
    }
    rounded.rescale(2);
    rounded.to_string()
}

/// An amount followed by its currency code.
pub fn amount_in(value: Decimal, currency: &str) -> String {
    format!("{} {currency}", amount(value))
}

/// A quantity, exchange rate or percentage without trailing zeros: `2`, `1.5`, `0.125`.
pub fn plain(value: Decimal) -> String {
    let normalized = value.normalize();
    if normalized.is_zero() { "0".to_string() } else { normalized.to_string() }
}

/// A percentage: `20%`, `7.5%`.
pub fn percent(value: Decimal) -> String {
    format!("{}%", plain(value))
}

/// `text` as it fits in `width`: unchanged, or cut and ended with an ellipsis.
pub fn truncate(text: &[u8], style: Style, width: f32) -> Vec<u8> {
    if style.width(text) <= width {
        return text.to_vec();
    }
    let budget = width - style.width(&[ELLIPSIS]);
    let mut kept = text[..fitting_prefix(text, style, budget)].to_vec();
    while kept.last() == Some(&b' ') {
        kept.pop();
    }
    kept.push(ELLIPSIS);
    kept
}

/// How many leading bytes of `text` fit in `width`.
fn fitting_prefix(text: &[u8], style: Style, width: f32) -> usize {
    let mut used = 0.0;
    for (index, byte) in text.iter().enumerate() {
        used += style.width(&[*byte]);
        if used > width {
            return index;
        }
    }
    text.len()
}

/// `text` broken into lines no wider than `width`, at most `max_lines` of them; when the
/// text needs more, the last line kept ends with an ellipsis. Empty text gives no lines.
pub fn wrap(text: &[u8], style: Style, width: f32, max_lines: usize) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    for word in text.split(|byte| *byte == b' ').filter(|word| !word.is_empty()) {
        let candidate =
            if current.is_empty() { word.to_vec() } else { [current.as_slice(), b" ", word].concat() };
        if style.width(&candidate) <= width {
            current = candidate;
            continue;
        }
        if !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        // A word wider than the whole line (a long code, a URL) is broken where it overflows;
        // at least one byte per line so even an absurdly narrow width makes progress.
        let mut rest = word;
        while style.width(rest) > width {
            let cut = fitting_prefix(rest, style, width).max(1);
            lines.push(rest[..cut].to_vec());
            rest = &rest[cut..];
        }
        current = rest.to_vec();
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        if let Some(last) = lines.last_mut() {
            last.push(ELLIPSIS);
            *last = truncate(last, style, width);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::winansi::encode;
    use std::str::FromStr;

    fn dec(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    #[test]
    fn amounts_have_two_decimals_rounded_half_away_from_zero() {
        assert_eq!(amount(dec("1234.5")), "1234.50");
        assert_eq!(amount(dec("0.005")), "0.01");
        assert_eq!(amount(dec("-0.005")), "-0.01");
        assert_eq!(amount(dec("-0.001")), "0.00");
        assert_eq!(amount(dec("7")), "7.00");
        assert_eq!(amount_in(dec("12.3"), "EUR"), "12.30 EUR");
    }

    #[test]
    fn quantities_and_rates_drop_trailing_zeros() {
        assert_eq!(plain(dec("2.500")), "2.5");
        assert_eq!(plain(dec("0.000")), "0");
        assert_eq!(percent(dec("20.00")), "20%");
    }

    #[test]
    fn wrapping_keeps_words_and_marks_what_was_cut() {
        let style = Style::regular(10.0);
        let text = encode("Çokollatë e zezë me lajthi të pjekura dhe kripë deti");
        let lines = wrap(&text, style, 80.0, 2);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|line| style.width(line) <= 80.0));
        assert_eq!(lines[0], encode("Çokollatë e zezë"));
        assert_eq!(lines[1].last(), Some(&ELLIPSIS));

        let all = wrap(&text, style, 80.0, usize::MAX);
        assert!(all.len() > 2);
        assert!(wrap(b"", style, 80.0, 3).is_empty());
    }

    #[test]
    fn a_word_wider_than_the_line_is_broken() {
        let style = Style::regular(10.0);
        let iic = encode("0123456789ABCDEF0123456789ABCDEF");
        let lines = wrap(&iic, style, 60.0, usize::MAX);
        assert!(lines.len() > 1);
        assert_eq!(lines.concat(), iic);
    }

    #[test]
    fn truncation_fits_the_width() {
        let style = Style::bold(8.0);
        let cut = truncate(&encode("Përjashtuar nga TVSH sipas nenit 51"), style, 50.0);
        assert!(style.width(&cut) <= 50.0);
        assert_eq!(cut.last(), Some(&ELLIPSIS));
        assert_eq!(truncate(b"ok", style, 50.0), b"ok".to_vec());
    }
}
