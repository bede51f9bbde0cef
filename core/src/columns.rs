//! The domain's enumerations as the shop's SQLite columns (`domain::spelled`): each is written as
//! its `as_str` and read back with `Spelled::parse`, so a column holds exactly the words the
//! domain spells and a query binds or reads the enumeration itself (`r.get::<_, ReportKind>("kind")`).
//! The API version, the one enumeration stored as a number, sits here too. Only the shop turns
//! this on (the feature `rusqlite`): the orphan rule puts these impls in the types' own crate.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::domain::cash_register::{ActionType, Purpose};
use crate::domain::client::{ClientType, CompanyCategory, Gender, IdType};
use crate::domain::currency::{Origin, Source};
use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use crate::domain::einvoice::Process;
use crate::domain::marketplace::{DeliveryType, EventSource, OrderStatus};
use crate::domain::payments::PaymentType;
use crate::domain::report::ReportKind;
use crate::domain::role::Role;
use crate::domain::spelled::Spelled;
use crate::domain::stock::Reason;
use crate::domain::wtn::{CarrierIdType, NoteType, Point, Transaction, VehicleOwnership};

/// The stored text read as `T`; text that is none of its values (never written by Arka) fails
/// the read.
pub fn read<T: Spelled>(value: ValueRef<'_>) -> FromSqlResult<T> {
    let text = value.as_str()?;
    T::parse(text).ok_or_else(|| FromSqlError::Other(format!("unknown value `{text}`").into()))
}

/// Makes each `Spelled` type a column: written as its text, read back exactly (the shop's own
/// enumerations use it too, in their own crate).
#[doc(hidden)]
#[macro_export]
macro_rules! __text_column {
    ($($t:ty),+ $(,)?) => {$(
        impl rusqlite::types::ToSql for $t {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from($crate::domain::spelled::Spelled::as_str(*self)))
            }
        }

        impl rusqlite::types::FromSql for $t {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                $crate::columns::read(value)
            }
        }
    )+};
}

pub use crate::__text_column as text_column;

text_column!(
    ActionType,
    CarrierIdType,
    ClientType,
    CompanyCategory,
    DeliveryType,
    DocumentKind,
    EventSource,
    Gender,
    IdType,
    InvoiceType,
    NoteType,
    OrderStatus,
    PaymentType,
    Point,
    Process,
    Purpose,
    Reason,
    ReportKind,
    Source,
    Transaction,
    VehicleOwnership,
);

impl ToSql for ApiVersion {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.number()))
    }
}

impl FromSql for ApiVersion {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let number = value.as_i64()?;
        ApiVersion::from_number(number).ok_or(FromSqlError::OutOfRange(number))
    }
}

impl ToSql for Role {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Role {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        Role::parse(text).ok_or_else(|| FromSqlError::Other(format!("unknown role `{text}`").into()))
    }
}

impl ToSql for Origin {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Origin {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        Origin::parse(value.as_str()?).ok_or(FromSqlError::InvalidType)
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn a_value_is_stored_as_its_text_and_read_back() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (kind TEXT)").unwrap();
        conn.execute("INSERT INTO t (kind) VALUES (?1)", [ReportKind::OrderCorrective]).unwrap();
        let text: String = conn.query_row("SELECT kind FROM t", [], |r| r.get("kind")).unwrap();
        assert_eq!(text, "ORDER_CORRECTIVE");
        let kind: ReportKind = conn.query_row("SELECT kind FROM t", [], |r| r.get("kind")).unwrap();
        assert_eq!(kind, ReportKind::OrderCorrective);
    }

    #[test]
    fn text_that_is_no_value_fails_the_read() {
        let conn = Connection::open_in_memory().unwrap();
        let read =
            conn.query_row("SELECT 'order_corrective' AS kind", [], |r| r.get::<_, ReportKind>("kind"));
        assert!(read.is_err(), "{read:?}");
    }

    #[test]
    fn the_api_version_is_stored_as_its_number() {
        let conn = Connection::open_in_memory().unwrap();
        let stored: i64 =
            conn.query_row("SELECT ?1 AS version", [ApiVersion::V2], |r| r.get("version")).unwrap();
        assert_eq!(stored, 2);
        let read: ApiVersion = conn.query_row("SELECT 1 AS version", [], |r| r.get("version")).unwrap();
        assert_eq!(read, ApiVersion::V1);
        assert!(conn.query_row("SELECT 3 AS version", [], |r| r.get::<_, ApiVersion>("version")).is_err());
    }
}
