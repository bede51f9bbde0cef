//! Field validation shared by every request: collected per field under dotted keys
//! (`lines.0.quantity`), as the spec's 422 envelope shows them.

use std::collections::BTreeMap;

/// Messages per field, in key order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FieldErrors(BTreeMap<String, Vec<String>>);

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.entry(field.into()).or_default().push(message.into());
    }

    pub fn one(field: impl Into<String>, message: impl Into<String>) -> Self {
        let mut e = Self::new();
        e.add(field, message);
        e
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_map(self) -> BTreeMap<String, Vec<String>> {
        self.0
    }

    /// The keys of the fields in error, comma-separated: what a log line names (the messages
    /// may repeat what was sent).
    pub fn fields(&self) -> String {
        self.0.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
    }

    /// Adds every message of `other` under its own key.
    pub fn merge(&mut self, other: FieldErrors) {
        for (key, messages) in other.0 {
            self.0.entry(key).or_default().extend(messages);
        }
    }

    /// Ok when nothing was collected.
    pub fn into_result(self) -> Result<(), FieldErrors> {
        if self.is_empty() { Ok(()) } else { Err(self) }
    }

    /// A required, non-blank string; returns it trimmed.
    pub fn required<'a>(&mut self, field: &str, value: Option<&'a str>) -> Option<&'a str> {
        match value.map(str::trim) {
            Some(v) if !v.is_empty() => Some(v),
            _ => {
                self.add(field, format!("The {field} field is required."));
                None
            }
        }
    }

    /// An optional calendar day, `YYYY-MM-DD`; `None` when absent, blank or not a date (then
    /// with the field's message).
    pub fn date(&mut self, field: &str, value: Option<&str>) -> Option<chrono::NaiveDate> {
        let value = value.map(str::trim).filter(|v| !v.is_empty())?;
        let parsed = chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d").ok();
        if parsed.is_none() {
            self.add(field, format!("The {field} must be a date in the format YYYY-MM-DD."));
        }
        parsed
    }

    /// A quantity sent: required, greater than 0, at most 3 decimals (the CIS's quantity).
    pub fn quantity(
        &mut self,
        field: &str,
        value: Option<rust_decimal::Decimal>,
    ) -> Option<rust_decimal::Decimal> {
        match value {
            None => self.add(field, format!("The {field} field is required.")),
            Some(q) if q <= rust_decimal::Decimal::ZERO => {
                self.add(field, format!("The {field} field must be greater than 0."));
            }
            Some(q) if q.normalize().scale() > 3 => {
                self.add(field, format!("The {field} field must have at most 3 decimal places."));
            }
            Some(q) => return Some(q),
        }
        None
    }

    /// A string no longer than `max` characters.
    pub fn max_len(&mut self, field: &str, value: Option<&str>, max: usize) {
        if value.is_some_and(|v| v.chars().count() > max) {
            self.add(field, format!("The {field} field must not be greater than {max} characters."));
        }
    }
}

/// The message of a missing internalId, in whichever envelope the version answers it.
pub const INTERNAL_ID_REQUIRED: &str = "The internalId field is required.";

/// The longest internalId of a document (invoice, corrective document, note).
pub const MAX_INTERNAL_ID: usize = 255;

/// A document's internalId is at most `MAX_INTERNAL_ID` characters.
pub fn internal_id_length(errors: &mut FieldErrors, internal_id: &str) {
    if internal_id.chars().count() > MAX_INTERNAL_ID {
        errors.add(
            "internalId",
            format!("The internalId must not be greater than {MAX_INTERNAL_ID} characters."),
        );
    }
}

/// Whether `internal_id` is a name Arka gives a cancellation sent without an internalId of its
/// own: `<the sale's internalId>/cancel-<n>`, n counting from 1 (no leading zero).
pub fn is_cancellation_name(internal_id: &str) -> bool {
    internal_id.rsplit_once("/cancel-").is_some_and(|(sale, n)| {
        !sale.is_empty() && !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit())
    })
}

/// A document's own internalId may not be a name Arka gives a cancellation: taken first, it
/// would block the cancellation of a sale that is not the caller's.
pub fn not_a_cancellation_name(errors: &mut FieldErrors, internal_id: &str) {
    if is_cancellation_name(internal_id) {
        errors.add(
            "internalId",
            "An internalId ending in /cancel-<number> is the name Arka gives a cancellation: choose another.",
        );
    }
}

/// Whether XML 1.0 can carry `c` (its `Char` production): tab, line feed, carriage return and
/// everything from U+0020 except U+FFFE and U+FFFF. Surrogates never reach a Rust `char`
/// (JSON's `"\ud800"` alone does not parse), so nothing else is left out.
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Text from a source Arka cannot send back to be fixed (Wolt's orders and webhooks), made fit
/// for a fiscal document: terminal escape sequences (`ESC [ 31 m`, `ESC c`) go whole, and then
/// every character XML 1.0 cannot carry (`is_xml_char`). Text that needs nothing comes back as is.
pub fn clean_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().all(is_xml_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [, parameter and intermediate bytes, one final byte (ECMA-48 5.4).
            if chars.next_if_eq(&'[').is_some() {
                while chars.next_if(|c| ('\u{20}'..='\u{3f}').contains(c)).is_some() {}
                chars.next_if(|c| ('\u{40}'..='\u{7e}').contains(c));
            } else {
                chars.next_if(|c| ('\u{40}'..='\u{7e}').contains(c));
            }
        } else if is_xml_char(c) {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Every text that may reach a fiscal document goes through this one rule: a character XML 1.0
/// cannot carry makes the whole document unreadable to the CIS. Adds an error naming the field
/// and the first such character.
pub fn xml_text(errors: &mut FieldErrors, field: &str, value: &str) {
    if let Some(c) = value.chars().find(|c| !is_xml_char(*c)) {
        errors.add(
            field,
            format!(
                "The {field} field contains the control character U+{:04X}, which a fiscal document cannot carry.",
                u32::from(c)
            ),
        );
    }
}

/// Albanian tax id: a letter, eight digits, a letter (the XSD's NUISSType).
/// A UUID as the CIS's schemas spell one (`UUIDSType`: an FIC, an EIC): hyphenated, versions 1
/// to 5, RFC 4122 variant.
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && uuid::Uuid::try_parse(s).is_ok_and(|u| {
            (1..=5).contains(&u.get_version_num()) && u.get_variant() == uuid::Variant::RFC4122
        })
}

pub fn is_nuis(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[0].is_ascii_alphabetic()
        && b[9].is_ascii_alphabetic()
        && b[1..9].iter().all(u8::is_ascii_digit)
}

/// A registration code issued by the tax portal (business unit, TCR, operator, software):
/// two letters, three digits, two letters, three digits, lowercase.
pub fn is_registration_code(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[0..2].iter().all(u8::is_ascii_lowercase)
        && b[2..5].iter().all(u8::is_ascii_digit)
        && b[5..7].iter().all(u8::is_ascii_lowercase)
        && b[7..10].iter().all(u8::is_ascii_digit)
}

/// A plausible e-mail address: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(char::is_whitespace)
}

/// IBAN with a valid ISO 13616 checksum (mod 97 == 1). Spaces are ignored.
pub fn is_iban(s: &str) -> bool {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let b = compact.as_bytes();
    if !(15..=34).contains(&b.len())
        || !b[0..2].iter().all(u8::is_ascii_uppercase)
        || !b[2..4].iter().all(u8::is_ascii_digit)
        || !b.iter().all(u8::is_ascii_alphanumeric)
    {
        return false;
    }
    let rearranged = compact[4..].chars().chain(compact[..4].chars());
    let mut remainder: u32 = 0;
    for c in rearranged {
        let value = match c.to_digit(36) {
            Some(v) => v,
            None => return false,
        };
        remainder = if value >= 10 { (remainder * 100 + value) % 97 } else { (remainder * 10 + value) % 97 };
    }
    remainder == 1
}

/// ISO 4217 shape: three uppercase letters.
pub fn is_currency_code(s: &str) -> bool {
    s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_a_calendar_day_or_absent() {
        let mut errors = FieldErrors::new();
        assert_eq!(errors.date("toDate", Some(" 2026-02-28 ")), chrono::NaiveDate::from_ymd_opt(2026, 2, 28));
        assert_eq!(errors.date("toDate", None), None);
        assert_eq!(errors.date("toDate", Some("  ")), None);
        assert!(errors.is_empty(), "absent and blank are not errors");
        assert_eq!(errors.date("fromDate", Some("2026-02-30")), None);
        assert_eq!(errors.date("fromDate", Some("28.02.2026")), None);
        assert_eq!(errors.into_map().get("fromDate").map(Vec::len), Some(2), "each bad date names its field");
    }

    #[test]
    fn nuis_is_letter_eight_digits_letter() {
        assert!(is_nuis("L41323036D"));
        assert!(is_nuis("k12345678s"));
        assert!(!is_nuis("L4132303D"));
        assert!(!is_nuis("141323036D"));
        assert!(!is_nuis("L41323036"));
        assert!(!is_nuis("L4132303XD"));
    }

    #[test]
    fn registration_codes() {
        assert!(is_registration_code("bb123bb123"));
        assert!(!is_registration_code("BB123bb123"));
        assert!(!is_registration_code("bb123bb12"));
    }

    #[test]
    fn iban_checksum() {
        assert!(is_iban("AL47212110090000000235698741"));
        assert!(is_iban("AL47 2121 1009 0000 0002 3569 8741"));
        assert!(is_iban("DE89370400440532013000"));
        assert!(!is_iban("AL48212110090000000235698741"));
        assert!(!is_iban("AL47"));
        assert!(!is_iban("al47212110090000000235698741"));
    }

    #[test]
    fn emails() {
        assert!(is_email("ana@shop.al"));
        assert!(!is_email("ana@shop"));
        assert!(!is_email("ana shop@x.al"));
        assert!(!is_email("@x.al"));
    }

    #[test]
    fn xml_carries_tab_newline_and_printable_text_but_no_other_control_character() {
        // | character        | XML 1.0 |
        let table = [
            ('\u{0}', false),
            ('\u{8}', false),
            ('\t', true),
            ('\n', true),
            ('\u{B}', false),
            ('\u{C}', false),
            ('\r', true),
            ('\u{E}', false),
            ('\u{1F}', false),
            (' ', true),
            ('ë', true),
            ('\u{7F}', true),
            ('\u{D7FF}', true),
            ('\u{E000}', true),
            ('\u{FFFD}', true),
            ('\u{FFFE}', false),
            ('\u{FFFF}', false),
            ('\u{10000}', true),
            ('\u{10FFFF}', true),
        ];
        for (c, allowed) in table {
            assert_eq!(is_xml_char(c), allowed, "U+{:04X}", u32::from(c));
        }
        let mut errors = FieldErrors::new();
        xml_text(&mut errors, "lines.0.product_name", "a\u{0}b");
        xml_text(&mut errors, "notes", "line one\nline two\ttabbed");
        xml_text(&mut errors, "client.name", "Ana\u{1F}");
        let map = errors.into_map();
        assert_eq!(map.keys().collect::<Vec<_>>(), ["client.name", "lines.0.product_name"]);
        assert!(map["lines.0.product_name"][0].contains("U+0000"), "{map:?}");
        assert!(map["client.name"][0].contains("U+001F"), "{map:?}");
    }

    #[test]
    fn text_from_outside_is_cleaned_of_what_a_fiscal_document_cannot_carry() {
        assert_eq!(clean_text("Byrek\u{1}\u{0}\u{1b}[31m"), "Byrek");
        assert_eq!(clean_text("\u{1b}[1;31mPica\u{1b}[0m e \u{1b}cmirë\u{FFFF}"), "Pica e mirë");
        assert_eq!(clean_text("Sufllaqe\t2\nx"), "Sufllaqe\t2\nx");
        assert!(matches!(clean_text("Kafe"), std::borrow::Cow::Borrowed("Kafe")));
        assert_eq!(clean_text("\u{1b}"), "");
    }

    #[test]
    fn the_names_arka_gives_cancellations_are_told_from_names_that_look_alike() {
        let table = [
            ("t-1/cancel-1", true),
            ("t-1/cancel-12", true),
            ("a/b/cancel-3", true),
            ("t-1/cancel-1/cancel-2", true),
            ("/cancel-1", false),
            ("t-1/cancel-", false),
            ("t-1/cancel-0", false),
            ("t-1/cancel-01", false),
            ("t-1/cancel-x", false),
            ("t-1/cancel-1/more", false),
            ("t-1/cancel", false),
            ("t-1", false),
        ];
        for (internal_id, reserved) in table {
            assert_eq!(is_cancellation_name(internal_id), reserved, "{internal_id}");
        }
    }

    #[test]
    fn field_errors_collect_by_key() {
        let mut e = FieldErrors::new();
        assert_eq!(e.required("name", Some("  ")), None);
        assert_eq!(e.required("nuis", Some(" L41323036D ")), Some("L41323036D"));
        e.max_len("phone", Some("12345"), 3);
        let map = e.into_map();
        assert_eq!(map.keys().collect::<Vec<_>>(), vec!["name", "phone"]);
    }
}
