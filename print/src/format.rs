//! Numbers as printed, and text fitted into a width: wrapped at spaces, broken inside a word
//! only when the word alone is too wide, and cut with an ellipsis when lines run out.

use rust_decimal::{Decimal, RoundingStrategy};

use super::canvas::Style;
use super::winansi::{ELLIPSIS, encode};

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
    let mut used = 0;
    for (index, byte) in text.iter().enumerate() {
        used += style.units(&[*byte]);
        if !style.fits(used, width) {
            return index;
        }
    }
    text.len()
}

/// `text` broken into lines no wider than `width`, at most `max_lines` of them; when the
/// text needs more, the last line kept ends with an ellipsis. Empty text gives no lines.
/// Linear in the length of what is kept: every byte is measured once, and nothing past the
/// line after the last one kept is looked at.
pub fn wrap(text: &[u8], style: Style, width: f32, max_lines: usize) -> Vec<Vec<u8>> {
    let space = style.units(b" ");
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let mut current_units = 0;
    for word in text.split(|byte| *byte == b' ').filter(|word| !word.is_empty()) {
        if lines.len() > max_lines {
            break;
        }
        let word_units = style.units(word);
        if !current.is_empty() && style.fits(current_units + space + word_units, width) {
            current.push(b' ');
            current.extend_from_slice(word);
            current_units += space + word_units;
            continue;
        }
        if !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        if style.fits(word_units, width) {
            current = word.to_vec();
            current_units = word_units;
            continue;
        }
        // A word wider than the whole line (a long code, a URL) is broken where it overflows;
        // at least one byte per line so even an absurdly narrow width makes progress.
        let (mut start, mut used) = (0, 0);
        for (index, byte) in word.iter().enumerate() {
            let byte_units = style.units(&[*byte]);
            if index > start && !style.fits(used + byte_units, width) {
                lines.push(word[start..index].to_vec());
                (start, used) = (index, 0);
                if lines.len() > max_lines {
                    break;
                }
            }
            used += byte_units;
        }
        current = word[start..].to_vec();
        current_units = used;
    }
    if !current.is_empty() && lines.len() <= max_lines {
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

/// Paragraphs (one per line of `text`) wrapped as `wrap` does, at most `max_lines` in all; when
/// more were needed, the last line kept ends with an ellipsis.
pub fn wrap_paragraphs(text: &str, style: Style, width: f32, max_lines: usize) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for paragraph in text.lines() {
        // One line more than there is room for tells whether anything is left out.
        let room = max_lines.saturating_sub(lines.len());
        lines.extend(wrap(&encode(paragraph), style, width, room + 1));
        if lines.len() > max_lines {
            lines.truncate(max_lines);
            if let Some(last) = lines.last_mut() {
                last.push(ELLIPSIS);
                *last = truncate(last, style, width);
            }
            break;
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::winansi::encode;
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
    fn paragraphs_share_one_budget_of_lines() {
        let style = Style::regular(10.0);
        let lines = wrap_paragraphs("one\ntwo\n\nthree", style, 100.0, 10);
        assert_eq!(lines, vec![b"one".to_vec(), b"two".to_vec(), b"three".to_vec()]);
        let cut = wrap_paragraphs("one\ntwo\nthree", style, 100.0, 2);
        assert_eq!(cut.len(), 2);
        assert_eq!(cut[0], b"one");
        assert_eq!(cut[1].last(), Some(&ELLIPSIS));
        assert_eq!(
            wrap_paragraphs("exactly\ntwo", style, 100.0, 2),
            vec![b"exactly".to_vec(), b"two".to_vec()]
        );
        assert!(wrap_paragraphs("anything", style, 100.0, 0).is_empty());
    }

    #[test]
    fn an_unbroken_text_is_wrapped_in_one_pass_and_stops_at_the_last_line_kept() {
        let style = Style::regular(9.0);
        // 1.9 MB without a space, as in the issue: every line is measured once, and nothing
        // after the 41st line is looked at.
        let text = vec![b'x'; 1_900_000];
        let lines = wrap(&text, style, 500.0, 40);
        assert_eq!(lines.len(), 40);
        assert!(lines.iter().all(|line| style.width(line) <= 500.0));
        assert_eq!(lines[39].last(), Some(&ELLIPSIS));
        let all = wrap(&text[..20_000], style, 500.0, usize::MAX);
        assert_eq!(all.concat(), text[..20_000].to_vec());
        assert!(all.iter().all(|line| style.width(line) <= 500.0));
        // Each full line holds as many bytes as fit: one more would not.
        assert!(style.width(&[all[0].as_slice(), b"x"].concat()) > 500.0);
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
