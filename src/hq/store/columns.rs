//! A PostgreSQL row's columns read by name, never by position and never with a panic: a column
//! the query does not have, a type it does not hold, or a value Arka never writes there fails the
//! read with its cause (`Error::Column`, `Error::Value`), so a report is refused rather than wrong.

use std::str::FromStr;

use rust_decimal::Decimal;
use tokio_postgres::Row;
use tokio_postgres::types::FromSql;

use super::{Error, Result};
use crate::domain::spelled::Spelled;

/// How a row of the HQ's tables is read: each table's mapper names its columns through these.
pub trait Columns {
    /// The column `name` as `T` (an `Option` where the column may be NULL).
    fn col<'a, T: FromSql<'a>>(&'a self, name: &str) -> Result<T>;

    /// A decimal kept as text (a shop's amounts, rates); NULL is zero, as a sum of nothing.
    fn decimal(&self, name: &str) -> Result<Decimal>;

    /// A decimal kept as text that may be absent (NULL).
    fn decimal_opt(&self, name: &str) -> Result<Option<Decimal>>;

    /// An enumeration kept as its text (`domain::spelled`); NULL is none.
    fn spelled_opt<T: Spelled>(&self, name: &str, what: &'static str) -> Result<Option<T>>;

    /// An enumeration kept as its text, never NULL.
    fn spelled<T: Spelled>(&self, name: &str, what: &'static str) -> Result<T> {
        self.spelled_opt(name, what)?.ok_or_else(|| unknown(name, "NULL", what))
    }
}

impl Columns for Row {
    fn col<'a, T: FromSql<'a>>(&'a self, name: &str) -> Result<T> {
        self.try_get(name).map_err(|source| Error::Column { column: name.to_string(), source })
    }

    fn decimal(&self, name: &str) -> Result<Decimal> {
        Ok(self.decimal_opt(name)?.unwrap_or_default())
    }

    fn decimal_opt(&self, name: &str) -> Result<Option<Decimal>> {
        let Some(text) = self.col::<Option<&str>>(name)? else { return Ok(None) };
        Decimal::from_str(text).map(Some).map_err(|_| unknown(name, text, "a decimal"))
    }

    fn spelled_opt<T: Spelled>(&self, name: &str, what: &'static str) -> Result<Option<T>> {
        let Some(text) = self.col::<Option<&str>>(name)? else { return Ok(None) };
        T::parse(text).map(Some).ok_or_else(|| unknown(name, text, what))
    }
}

fn unknown(column: &str, text: &str, what: &'static str) -> Error {
    Error::Value { column: column.to_string(), text: text.to_string(), what }
}
