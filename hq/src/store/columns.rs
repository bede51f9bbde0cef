//! A PostgreSQL row's columns read by name, never by position and never with a panic. The rows
//! a shop shipped are read through the core's mappers (`arka_core::row::Columns`, the same as the
//! shop's store); the head office's own tables (shops, owners, numbers, the catalog) through
//! `Typed`, in PostgreSQL's own types (`timestamptz`, `jsonb`). A column the query does not have,
//! a type it does not hold, or a value Arka never writes there fails the read with its cause.

use tokio_postgres::Row;
use tokio_postgres::types::FromSql;

use super::{Error, Result};

/// A column of the head office's own tables, in PostgreSQL's type for it.
pub trait Typed {
    /// The column `name` as `T` (an `Option` where the column may be NULL).
    fn col<'a, T: FromSql<'a>>(&'a self, name: &str) -> Result<T>;
}

impl Typed for Row {
    fn col<'a, T: FromSql<'a>>(&'a self, name: &str) -> Result<T> {
        self.try_get(name).map_err(|source| Error::Column { column: name.to_string(), source })
    }
}

/// Every row through `map` (a mapper of the core's).
pub fn mapped<T>(rows: &[Row], map: impl Fn(&Row) -> arka_core::row::Result<T>) -> Result<Vec<T>> {
    rows.iter().map(|r| map(r).map_err(Error::from)).collect()
}
