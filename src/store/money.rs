//! Amounts in SQLite: exact decimal TEXT, never a float.

use std::str::FromStr;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rust_decimal::Decimal;

/// A Decimal stored as TEXT, so money stays exact in SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Money(pub Decimal);

impl ToSql for Money {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.normalize().to_string()))
    }
}

impl FromSql for Money {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value {
            ValueRef::Text(t) => std::str::from_utf8(t)
                .ok()
                .and_then(|s| Decimal::from_str(s).ok())
                .map(Money)
                .ok_or(FromSqlError::InvalidType),
            ValueRef::Integer(i) => Ok(Money(Decimal::from(i))),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}
