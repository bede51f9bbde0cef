//! A stored row read by column NAME, the same way over the shop's SQLite, the head office's
//! PostgreSQL and the rows a shop shipped it (JSON): each table's mapper (`report::rows`, `invoice::rows`) is written once over
//! `Columns`, and each store keeps only its SQL. The impls normalise what the two databases keep
//! differently (SQLite's decimals as TEXT or INTEGER and booleans as 0/1; PostgreSQL's `bigint`,
//! `integer`, `boolean` and the shops' decimals as text), so a mapper sees one value. A column the
//! query lacks, a type the impl does not take or a value Arka never writes there fails the read
//! with the column and the cause: never a default, never a panic.

mod json;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "rusqlite")]
mod sqlite;

use std::str::FromStr;

use rust_decimal::Decimal;

use crate::domain::spelled::Spelled;

/// Why a column could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Cause {
    /// The database's own refusal: no such column, or a type the impl does not read.
    #[error("{0}")]
    Read(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// NULL where the mapper needs a value.
    #[error("it is NULL")]
    Null,
    /// A value Arka never writes there.
    #[error("it holds `{text}`, which is not {what}")]
    Value { text: String, what: &'static str },
}

/// A column that could not be read, with its name and the cause.
#[derive(Debug, thiserror::Error)]
#[error("the column {column}: {cause}")]
pub struct ColumnError {
    pub column: String,
    #[source]
    pub cause: Cause,
}

impl ColumnError {
    pub fn read(column: &str, source: impl std::error::Error + Send + Sync + 'static) -> ColumnError {
        ColumnError { column: column.to_string(), cause: Cause::Read(Box::new(source)) }
    }

    pub fn null(column: &str) -> ColumnError {
        ColumnError { column: column.to_string(), cause: Cause::Null }
    }

    pub fn value(column: &str, text: impl Into<String>, what: &'static str) -> ColumnError {
        ColumnError { column: column.to_string(), cause: Cause::Value { text: text.into(), what } }
    }
}

pub type Result<T> = std::result::Result<T, ColumnError>;

/// A row whose columns are read by name. The four `_opt` reads are each database's; the rest is
/// built on them, so a rule about a value (NULL refused, an amount in cents, an enumeration's
/// spelling) is written once.
pub trait Columns {
    /// Text; NULL is none.
    fn text_opt(&self, name: &str) -> Result<Option<String>>;

    /// A whole number (SQLite's INTEGER; PostgreSQL's `bigint`, `integer` or `smallint`).
    fn int_opt(&self, name: &str) -> Result<Option<i64>>;

    /// A boolean (SQLite's 0 or 1; PostgreSQL's `boolean`, or a whole number 0 or 1 a shop
    /// shipped).
    fn bool_opt(&self, name: &str) -> Result<Option<bool>>;

    /// An exact decimal: kept as text (both), or a whole number.
    fn decimal_opt(&self, name: &str) -> Result<Option<Decimal>>;

    fn text(&self, name: &str) -> Result<String> {
        self.text_opt(name)?.ok_or_else(|| ColumnError::null(name))
    }

    fn int(&self, name: &str) -> Result<i64> {
        self.int_opt(name)?.ok_or_else(|| ColumnError::null(name))
    }

    fn bool(&self, name: &str) -> Result<bool> {
        self.bool_opt(name)?.ok_or_else(|| ColumnError::null(name))
    }

    fn decimal(&self, name: &str) -> Result<Decimal> {
        self.decimal_opt(name)?.ok_or_else(|| ColumnError::null(name))
    }

    /// An enumeration kept as its text (`domain::spelled`); NULL is none.
    fn spelled_opt<T: Spelled>(&self, name: &str, what: &'static str) -> Result<Option<T>> {
        match self.text_opt(name)? {
            None => Ok(None),
            Some(text) => T::parse(&text).map(Some).ok_or_else(|| ColumnError::value(name, text, what)),
        }
    }

    /// An enumeration kept as its text, never NULL.
    fn spelled<T: Spelled>(&self, name: &str, what: &'static str) -> Result<T> {
        self.spelled_opt(name, what)?.ok_or_else(|| ColumnError::null(name))
    }

    /// JSON Arka wrote as text (a day's book, a count by notes and coins); NULL is none.
    fn json_opt<T: serde::de::DeserializeOwned>(&self, name: &str, what: &'static str) -> Result<Option<T>> {
        match self.text_opt(name)? {
            None => Ok(None),
            Some(text) => {
                serde_json::from_str(&text).map(Some).map_err(|_| ColumnError::value(name, text, what))
            }
        }
    }
}

/// A decimal kept as text, read exactly.
fn parse_decimal(name: &str, text: &str) -> Result<Decimal> {
    Decimal::from_str(text).map_err(|_| ColumnError::value(name, text, "a decimal"))
}

/// A boolean kept as a whole number: 0 or 1, nothing else.
fn int_bool(name: &str, value: i64) -> Result<bool> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(ColumnError::value(name, other.to_string(), "a boolean (0 or 1)")),
    }
}
