//! `Columns` over a PostgreSQL row: each read asks for the types the head office's tables hold a
//! value in (`hq/migrations/`) and normalises them.

use rust_decimal::Decimal;
use tokio_postgres::Row;
use tokio_postgres::types::{FromSql, Type};

use super::{ColumnError, Columns, Result, int_bool, parse_decimal};

/// The column `name` as `T`: a missing column or another type is the driver's error, kept.
fn get<'a, T: FromSql<'a>>(row: &'a Row, name: &str) -> Result<T> {
    row.try_get(name).map_err(|e| ColumnError::read(name, e))
}

/// The column's declared type, or the driver's error for a column the row lacks.
fn type_of<'a>(row: &'a Row, name: &str) -> Result<&'a Type> {
    match row.columns().iter().find(|c| c.name() == name) {
        Some(column) => Ok(column.type_()),
        None => Err(get::<Option<&str>>(row, name).err().unwrap_or_else(|| ColumnError::null(name))),
    }
}

fn whole(row: &Row, name: &str) -> Result<Option<i64>> {
    let column = type_of(row, name)?;
    if *column == Type::INT2 {
        Ok(get::<Option<i16>>(row, name)?.map(i64::from))
    } else if *column == Type::INT4 {
        Ok(get::<Option<i32>>(row, name)?.map(i64::from))
    } else {
        get::<Option<i64>>(row, name)
    }
}

impl Columns for Row {
    fn text_opt(&self, name: &str) -> Result<Option<String>> {
        get::<Option<String>>(self, name)
    }

    fn int_opt(&self, name: &str) -> Result<Option<i64>> {
        whole(self, name)
    }

    fn bool_opt(&self, name: &str) -> Result<Option<bool>> {
        if *type_of(self, name)? == Type::BOOL {
            return get::<Option<bool>>(self, name);
        }
        match whole(self, name)? {
            None => Ok(None),
            Some(i) => int_bool(name, i).map(Some),
        }
    }

    fn decimal_opt(&self, name: &str) -> Result<Option<Decimal>> {
        let column = type_of(self, name)?;
        if [Type::INT2, Type::INT4, Type::INT8].contains(column) {
            return Ok(whole(self, name)?.map(Decimal::from));
        }
        match get::<Option<&str>>(self, name)? {
            None => Ok(None),
            Some(text) => parse_decimal(name, text).map(Some),
        }
    }
}
