//! Documents read with their payments in one query (a LEFT JOIN of `invoice_payments`, ordered by
//! the document's id then the payment's position): one row per payment, folded back into one
//! value per document.

use rusqlite::{Row, Rows};
use rust_decimal::Decimal;

use super::Result;
use super::money::Money;

/// A document that carries its payments as (method, amount).
pub trait Paid {
    fn payments(&mut self) -> &mut Vec<(String, Decimal)>;
}

/// Folds `rows` (columns `id`, `method`, `amount`, and what `head` reads) into one value per
/// document, `head` making it from its first row.
pub fn fold<T: Paid>(rows: &mut Rows, head: impl Fn(&Row) -> rusqlite::Result<T>) -> Result<Vec<T>> {
    let mut documents: Vec<T> = Vec::new();
    let mut last_id = None;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get("id")?;
        if last_id != Some(id) {
            last_id = Some(id);
            documents.push(head(r)?);
        }
        let method: Option<String> = r.get("method")?;
        let amount: Option<Money> = r.get("amount")?;
        if let (Some(method), Some(amount), Some(document)) = (method, amount, documents.last_mut()) {
            document.payments().push((method, amount.0));
        }
    }
    Ok(documents)
}
