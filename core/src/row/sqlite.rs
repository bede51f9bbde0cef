//! `Columns` over a SQLite row: a column's value taken as SQLite holds it (its storage class)
//! and normalised.

use rusqlite::types::ValueRef;
use rust_decimal::Decimal;

use super::{ColumnError, Columns, Result, int_bool, parse_decimal};

/// The column `name` as SQLite holds it.
fn value<'a>(row: &'a rusqlite::Row<'_>, name: &str) -> Result<ValueRef<'a>> {
    row.get_ref(name).map_err(|e| ColumnError::read(name, e))
}

fn text_of<'a>(name: &str, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| ColumnError::read(name, e))
}

fn wrong(name: &str, found: ValueRef<'_>, what: &'static str) -> ColumnError {
    ColumnError::value(name, format!("a value of type {}", found.data_type()), what)
}

impl Columns for rusqlite::Row<'_> {
    fn text_opt(&self, name: &str) -> Result<Option<String>> {
        match value(self, name)? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(t) => Ok(Some(text_of(name, t)?.to_string())),
            other => Err(wrong(name, other, "text")),
        }
    }

    fn int_opt(&self, name: &str) -> Result<Option<i64>> {
        match value(self, name)? {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(i) => Ok(Some(i)),
            other => Err(wrong(name, other, "a whole number")),
        }
    }

    fn bool_opt(&self, name: &str) -> Result<Option<bool>> {
        match value(self, name)? {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(i) => int_bool(name, i).map(Some),
            other => Err(wrong(name, other, "a boolean (0 or 1)")),
        }
    }

    fn decimal_opt(&self, name: &str) -> Result<Option<Decimal>> {
        match value(self, name)? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(t) => parse_decimal(name, text_of(name, t)?).map(Some),
            ValueRef::Integer(i) => Ok(Some(Decimal::from(i))),
            other => Err(wrong(name, other, "a decimal")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::Cause;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn with_row<T>(sql: &str, read: impl FnOnce(&rusqlite::Row<'_>) -> T) -> T {
        let conn = rusqlite::Connection::open_in_memory().expect("an in-memory database");
        conn.query_row(sql, [], |r| Ok(read(r))).expect("one row")
    }

    #[test]
    fn each_kind_of_column_reads_as_sqlite_keeps_it() {
        let sql = "SELECT 'a' AS t, 7 AS i, 1 AS b, '12.50' AS d, 3 AS whole, NULL AS n";
        with_row(sql, |r| {
            assert_eq!(r.text("t").unwrap(), "a");
            assert_eq!(r.int("i").unwrap(), 7);
            assert!(r.bool("b").unwrap());
            assert_eq!(r.decimal("d").unwrap(), d("12.50"));
            assert_eq!(r.decimal("whole").unwrap(), d("3"));
            assert_eq!(r.text_opt("n").unwrap(), None);
        });
    }

    #[test]
    fn a_bad_value_is_an_error_naming_the_column_and_the_cause() {
        let sql = "SELECT 2 AS b, 'x' AS d, NULL AS n, 1.5 AS r";
        with_row(sql, |r| {
            let e = r.bool("b").unwrap_err();
            assert_eq!(e.column, "b");
            assert!(matches!(e.cause, Cause::Value { ref text, .. } if text == "2"));
            assert!(
                matches!(r.decimal("d").unwrap_err().cause, Cause::Value { ref text, .. } if text == "x")
            );
            assert!(matches!(r.int("n").unwrap_err().cause, Cause::Null));
            assert!(matches!(r.decimal("r").unwrap_err().cause, Cause::Value { .. }));
            assert!(matches!(r.text("missing").unwrap_err().cause, Cause::Read(_)));
        });
    }
}
