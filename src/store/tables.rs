//! A café's tables: the table an order was taken for, and what each summary paid of each line of
//! its orders (V39), so that a table's bill is split by lines and the rest stays open.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, named_params};
use rust_decimal::Decimal;

use super::Result;
use super::money::Money;

/// The order `order_id` was taken for the table `name`.
pub fn name_table(tx: &Connection, order_id: i64, name: &str) -> Result<()> {
    tx.prepare_cached("INSERT INTO order_tables (order_id, table_name) VALUES (:order, :name)")?
        .execute(named_params! {":order": order_id, ":name": name})?;
    Ok(())
}

/// The table the order was taken for, if one was named.
pub fn table_of(conn: &Connection, order_id: i64) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT table_name FROM order_tables WHERE order_id = :order")?
        .query_row(named_params! {":order": order_id}, |r| r.get("table_name"))
        .optional()?)
}

/// What summaries paid so far of each line of the order, by the line's position.
pub fn paid_by_position(conn: &Connection, order_id: i64) -> Result<BTreeMap<i64, Decimal>> {
    let mut stmt =
        conn.prepare_cached("SELECT position, quantity FROM order_line_settlements WHERE order_id = :order")?;
    let rows = stmt.query_map(named_params! {":order": order_id}, |r| {
        Ok((r.get::<_, i64>("position")?, r.get::<_, Money>("quantity")?.0))
    })?;
    let mut paid = BTreeMap::new();
    for row in rows {
        let (position, quantity) = row?;
        *paid.entry(position).or_insert(Decimal::ZERO) += quantity;
    }
    Ok(paid)
}

/// What a summary pays of one line of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    pub order_id: i64,
    pub position: i64,
    pub quantity: Decimal,
}

/// The summary `summary_id` pays `parts`; each order whose every line is then paid in full is
/// settled by it. Returns the orders it settled.
pub fn pay_parts(tx: &Connection, summary_id: i64, parts: &[Part]) -> Result<Vec<i64>> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO order_line_settlements (order_id, position, summary_id, quantity)
         VALUES (:order, :position, :summary, :quantity)",
    )?;
    for part in parts {
        insert.execute(named_params! {
            ":order": part.order_id, ":position": part.position, ":summary": summary_id,
            ":quantity": Money(part.quantity),
        })?;
    }
    let mut orders: Vec<i64> = parts.iter().map(|p| p.order_id).collect();
    orders.sort_unstable();
    orders.dedup();
    let mut settled = Vec::new();
    for order in orders {
        let paid = paid_by_position(tx, order)?;
        let quantities = line_quantities(tx, order)?;
        let whole =
            quantities.iter().all(|(position, quantity)| paid.get(position).is_some_and(|p| p >= quantity));
        if whole && super::invoices::settle_orders(tx, summary_id, &[order])? == 1 {
            settled.push(order);
        }
    }
    Ok(settled)
}

/// Each line's quantity by its position.
fn line_quantities(conn: &Connection, invoice_id: i64) -> Result<Vec<(i64, Decimal)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT position, quantity FROM invoice_lines WHERE invoice_id = :invoice ORDER BY position",
    )?;
    let rows = stmt.query_map(named_params! {":invoice": invoice_id}, |r| {
        Ok((r.get::<_, i64>("position")?, r.get::<_, Money>("quantity")?.0))
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A summary given up (the CIS did not take it): what it paid is open again.
pub fn forget_parts(tx: &Connection, summary_id: i64) -> Result<()> {
    tx.prepare_cached("DELETE FROM order_line_settlements WHERE summary_id = :summary")?
        .execute(named_params! {":summary": summary_id})?;
    Ok(())
}

/// Whether a summary paid any of the order's lines.
pub fn partly_paid(conn: &Connection, order_id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM order_line_settlements WHERE order_id = :order LIMIT 1")?
        .query_row(named_params! {":order": order_id}, |_| Ok(()))
        .optional()?
        .is_some())
}
