//! The owner's day: receipts and money of a till, of the non-cash invoices, or of the whole day,
//! in the shape of the owner's page at a shop and, each shop's and the chain's, at its head
//! office.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::Serialize;

use crate::domain::sales_day::{DaySales, TillSales};

#[derive(Debug, Clone, Serialize)]
pub struct SalesView {
    receipts: u64,
    /// Of those, still waiting for the CIS (no FIC yet).
    waiting: u64,
    gross: Decimal,
    by_payment_method: BTreeMap<String, Decimal>,
}

impl SalesView {
    pub fn of_till(t: &TillSales) -> SalesView {
        SalesView {
            receipts: t.receipts,
            waiting: t.waiting,
            gross: t.gross,
            by_payment_method: t.by_method.clone(),
        }
    }

    pub fn of_day(d: &DaySales) -> SalesView {
        SalesView {
            receipts: d.receipts,
            waiting: d.waiting,
            gross: d.gross,
            by_payment_method: d.by_method.clone(),
        }
    }
}
