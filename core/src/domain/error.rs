//! The domain's one error type. The edge turns `Invalid` into the 422 validation envelope
//! (field keys such as `lines.0.discount`) and `LineTotals` into a 400 whose `errors` name
//! each line and the total it should have had.

use std::fmt;

use rust_decimal::Decimal;

use super::validation::FieldErrors;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Fields that are missing or out of range (422).
    Invalid(FieldErrors),
    /// Lines whose `total` is not price x quantity x (100 - discount) / 100 (400).
    LineTotals(Vec<LineTotalMismatch>),
}

/// A line whose sent total disagrees with its price, quantity and discount.
#[derive(Debug, Clone, PartialEq)]
pub struct LineTotalMismatch {
    /// Position of the line in `lines`, from 0, as in the field keys.
    pub index: usize,
    /// What the total should be, rounded to the cent.
    pub expected: Decimal,
    /// What was sent.
    pub sent: Decimal,
}

impl LineTotalMismatch {
    /// One entry of the 400 envelope's `errors`.
    pub fn message(&self) -> String {
        format!(
            "lines.{}.total: expected {:.2} (price x quantity x (100 - discount) / 100), got {}",
            self.index, self.expected, self.sent
        )
    }
}

impl Error {
    /// The messages of a 400 answer (for `Invalid`, each field key with its message).
    pub fn messages(&self) -> Vec<String> {
        match self {
            Error::Invalid(fields) => fields
                .clone()
                .into_map()
                .into_iter()
                .flat_map(|(key, messages)| messages.into_iter().map(move |m| format!("{key}: {m}")))
                .collect(),
            Error::LineTotals(lines) => lines.iter().map(LineTotalMismatch::message).collect(),
        }
    }
}

impl From<FieldErrors> for Error {
    fn from(fields: FieldErrors) -> Self {
        Error::Invalid(fields)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.messages().join("; "))
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_mismatch_names_the_line_and_the_expected_value() {
        let error = Error::LineTotals(vec![LineTotalMismatch {
            index: 1,
            expected: "108.00".parse().unwrap(),
            sent: "120".parse().unwrap(),
        }]);
        assert_eq!(
            error.messages(),
            vec!["lines.1.total: expected 108.00 (price x quantity x (100 - discount) / 100), got 120"]
        );
    }

    #[test]
    fn field_errors_read_key_then_message() {
        let error =
            Error::from(FieldErrors::one("lines.0.discount", "The discount must be between 0 and 100."));
        assert_eq!(error.to_string(), "lines.0.discount: The discount must be between 0 and 100.");
    }
}
