//! The report model a shop and its head office share: the rows a report reads (`rows`, one
//! mapper per row over `row::Columns`), the reports' shapes (`model`) and their pure summing
//! (`summing`, `book`). The SQL stays in each store.

mod book;
mod model;
pub mod rows;
mod summing;
mod today;
pub mod wtn;

pub use book::*;
pub use model::*;
pub use rows::{
    Action, ClientRow, DayRow, MovementRow, PaymentRow, ProductRow, SalesBy, SalesRow, SalesSums, VatRow,
    WaitingRow,
};
pub use summing::*;
pub use today::SalesView;
pub use wtn::{WtnReport, wtn_report_of};

use rust_decimal::Decimal;

/// A sum of cents (the report totals keep whole cents) back as an amount.
pub fn amount(cents: i64) -> Decimal {
    Decimal::new(cents, 2)
}

/// A sum of thousandths (the report totals' quantities) back as a quantity.
pub fn quantity(thousandths: i64) -> Decimal {
    Decimal::new(thousandths, 3).normalize()
}
