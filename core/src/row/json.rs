//! `Columns` over a row a shop shipped to its head office (`wire`): a JSON object of the row's
//! columns as SQLite held them (text, whole numbers, NULL). The head office reads the shipped
//! rows it keeps as they are through the same mappers as the shop, with no database of the
//! shop's schema in between. A column the row lacks is an error, as in a query.

use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::{ColumnError, Columns, Result, int_bool, parse_decimal};

/// The column `name` of the row, or the error of a column the row lacks.
fn value<'a>(row: &'a Map<String, Value>, name: &str) -> Result<&'a Value> {
    row.get(name).ok_or_else(|| ColumnError::value(name, "nothing", "a column of the shipped row"))
}

fn wrong(name: &str, found: &Value, what: &'static str) -> ColumnError {
    ColumnError::value(name, found.to_string(), what)
}

impl Columns for Map<String, Value> {
    fn text_opt(&self, name: &str) -> Result<Option<String>> {
        match value(self, name)? {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            other => Err(wrong(name, other, "text")),
        }
    }

    fn int_opt(&self, name: &str) -> Result<Option<i64>> {
        match value(self, name)? {
            Value::Null => Ok(None),
            Value::Number(n) => {
                n.as_i64().map(Some).ok_or_else(|| wrong(name, &Value::Number(n.clone()), "a whole number"))
            }
            other => Err(wrong(name, other, "a whole number")),
        }
    }

    fn bool_opt(&self, name: &str) -> Result<Option<bool>> {
        match value(self, name)? {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(*b)),
            Value::Number(n) => match n.as_i64() {
                Some(i) => int_bool(name, i).map(Some),
                None => Err(wrong(name, &Value::Number(n.clone()), "a boolean (0 or 1)")),
            },
            other => Err(wrong(name, other, "a boolean (0 or 1)")),
        }
    }

    fn decimal_opt(&self, name: &str) -> Result<Option<Decimal>> {
        match value(self, name)? {
            Value::Null => Ok(None),
            Value::String(s) => parse_decimal(name, s).map(Some),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Ok(Some(Decimal::from(i))),
                None => Err(wrong(name, &Value::Number(n.clone()), "a decimal")),
            },
            other => Err(wrong(name, other, "a decimal")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::Cause;

    fn row(json: &str) -> Map<String, Value> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_shipped_row_reads_as_the_shop_held_it() {
        let r = row(r#"{"t": "a", "i": 7, "b": 1, "d": "12.50", "w": 3, "n": null}"#);
        assert_eq!(r.text("t").unwrap(), "a");
        assert_eq!(r.int("i").unwrap(), 7);
        assert!(r.bool("b").unwrap());
        assert_eq!(r.decimal("d").unwrap(), "12.50".parse::<Decimal>().unwrap());
        assert_eq!(r.decimal("w").unwrap(), Decimal::from(3));
        assert_eq!(r.int_opt("n").unwrap(), None);
    }

    #[test]
    fn a_missing_column_or_a_value_arka_never_ships_is_an_error_naming_the_column() {
        let r = row(r#"{"b": 2, "d": "x", "f": 1.5, "n": null}"#);
        let cases: [(&str, Result<()>); 5] = [
            ("b", r.bool("b").map(drop)),
            ("d", r.decimal("d").map(drop)),
            ("f", r.int("f").map(drop)),
            ("n", r.text("n").map(drop)),
            ("missing", r.text_opt("missing").map(drop)),
        ];
        for (column, read) in cases {
            let e = read.unwrap_err();
            assert_eq!(e.column, column);
            assert!(matches!(e.cause, Cause::Value { .. } | Cause::Null), "{column}: {e}");
        }
    }
}
