//! The invoice list and details at the HQ, in a shop's shapes: the page is chosen in PostgreSQL
//! (each shop's documents read in the shop's own order off an index, stopping after the page),
//! then only the shop's rows of the page's documents (and what they name: lines, payments, a
//! summary's orders, a bank account, a note), each found through an index, are read through the
//! core's mappers the shop reads its own rows with (`arka_core::invoice::shipped`) and rendered
//! in the shop's shapes (`arka_core::wire::invoices`), so nothing of the shape is written twice.

use deadpool_postgres::Pool;
use serde::Serialize;
use serde_json::{Map, Value};

use arka_core::domain::document::ApiVersion;
use arka_core::domain::numbering;
use arka_core::invoice::Invoice;
use arka_core::invoice::shipped::Shipped;
use arka_core::report::{BookEntry, book_entry, kind_of};
use arka_core::wire::invoices::{self as views, Links};

use super::Result;
use super::columns::Typed;
use super::filter::{Filter, ON_INVOICES, refs};

/// Which documents of the period the list shows: their type, a page.
#[derive(Debug, Clone)]
pub struct ListAsk {
    /// CASH / NONCASH / EINVOICE; empty for all.
    pub kinds: Vec<String>,
    /// The shop's search (number, buyer name, buyer id), as its list matches it.
    pub query: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// A shop's document as the HQ answers it: the shop's own item, and whose it is.
#[derive(Serialize)]
pub struct AtShop<T: Serialize> {
    pub shop: String,
    #[serde(flatten)]
    pub document: T,
}

/// The page's documents, newest first: (shop id, shop name, the shop's id). Each shop's newest
/// `offset + limit` are read off its (shop, day, time) index (a document's day is its issue
/// time's, so by day then time is by time), then the shops' put in one order: the page never
/// reads the period's other documents.
pub async fn page(pool: &Pool, f: &Filter, ask: &ListAsk) -> Result<Vec<(i64, String, i64)>> {
    let client = pool.get().await?;
    let (mut conditions, mut values) = f.on(ON_INVOICES);
    let kinds: Vec<&str> = ask
        .kinds
        .iter()
        .filter_map(|k| match k.as_str() {
            "CASH" => Some("i.kind = 'CASH'"),
            "NONCASH" => Some(
                "(i.kind = 'NONCASH' AND NOT EXISTS (SELECT 1 FROM einvoices e WHERE e.shop_id = i.shop_id AND e.invoice_id = i.id))",
            ),
            "EINVOICE" => Some("EXISTS (SELECT 1 FROM einvoices e WHERE e.shop_id = i.shop_id AND e.invoice_id = i.id)"),
            _ => None,
        })
        .collect();
    if !kinds.is_empty() {
        conditions.push_str(&format!(" AND ({})", kinds.join(" OR ")));
    }
    if let Some(text) = ask.query.as_deref() {
        // The shop's own search text of the document, as it shipped it; LIKE's own characters
        // are matched as typed, as the shop's list does (a backslash is PostgreSQL's escape
        // without an ESCAPE clause, which the trigram index reads only without one).
        let pattern = format!(
            "%{}%",
            text.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
        );
        values.push(Box::new(pattern));
        conditions.push_str(&format!(" AND i.search_text LIKE ${}", values.len()));
        // A query shaped like a number's end finds the numbers ending in it, not a buyer's name
        // holding the same text, as the shop's list does (`store::invoices::list`).
        if let Some((digits, year)) = numbering::number_end(text) {
            values.push(Box::new(i64::from(year)));
            conditions.push_str(&format!(" AND i.year = ${}", values.len()));
            values.push(Box::new(format!("%{digits}")));
            conditions.push_str(&format!(" AND i.ord_num::text LIKE ${}", values.len()));
        }
    }
    let shops = of_shops(f, &mut values);
    values.push(Box::new(ask.offset.saturating_add(ask.limit)));
    values.push(Box::new(ask.limit));
    values.push(Box::new(ask.offset));
    let (at_each, at_limit, at_offset) = (values.len() - 2, values.len() - 1, values.len());
    let rows = client
        .query(
            &format!(
                "SELECT x.shop_id, s.name AS shop, x.id FROM shops s CROSS JOIN LATERAL (
                     SELECT i.shop_id, i.id, i.issued_at FROM invoices i WHERE i.shop_id = s.id AND {conditions}
                     ORDER BY i.issue_date DESC, i.issued_at COLLATE \"C\" DESC, i.id DESC LIMIT ${at_each}
                 ) x WHERE {shops}
                 ORDER BY x.issued_at COLLATE \"C\" DESC, s.name, x.id DESC LIMIT ${at_limit} OFFSET ${at_offset}"
            ),
            &refs(&values),
        )
        .await?;
    rows.iter().map(|r| Ok((r.col("shop_id")?, r.col("shop")?, r.col("id")?))).collect()
}

/// The condition on the shops (`s`) a page reads: the one asked for, or all.
fn of_shops(f: &Filter, values: &mut super::filter::Values) -> String {
    match f.shop_id {
        Some(shop) => {
            values.push(Box::new(shop));
            format!("s.id = ${}", values.len())
        }
        None => "true".to_string(),
    }
}

/// The shops holding a document of this id (ids are each shop's own): (shop id, name).
pub async fn holders(pool: &Pool, id: i64, shop_id: Option<i64>) -> Result<Vec<(i64, String)>> {
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT s.id AS shop_id, s.name AS shop FROM shops s JOIN invoices i ON i.shop_id = s.id AND i.id = $1
             WHERE $2::bigint IS NULL OR s.id = $2 ORDER BY s.name",
            &[&id, &shop_id],
        )
        .await?;
    rows.iter().map(|r| Ok((r.col("shop_id")?, r.col("shop")?))).collect()
}

/// The shop's rows of the documents `ids` and of what they name, table by table, each found by
/// its key (`wire::key_text`'s: `[id]`, `[invoice_id,position]`) or an index: with the corrective
/// documents of each and their lines, which say what its cancellations left of it.
async fn rows_of(pool: &Pool, shop_id: i64, ids: &[i64]) -> Result<Vec<(String, Map<String, Value>)>> {
    let client = pool.get().await?;
    let keys: Vec<String> = ids.iter().map(|id| format!("[{id}]")).collect();
    let rows = client
        .query(
            "SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl IN ('invoice_wtns', 'einvoices', 'invoices')
                 AND key = ANY($3)
             UNION ALL
             SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl = 'invoices' AND key IN (
                 SELECT '[' || o.id || ']' FROM invoices o WHERE o.shop_id = $1 AND o.settled_by_invoice_id = ANY($2)
                     AND o.id <> ALL($2))
             UNION ALL
             SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl = 'invoices' AND key IN (
                 SELECT '[' || c.id || ']' FROM invoices c WHERE c.shop_id = $1 AND c.original_invoice_id = ANY($2)
                     AND c.id <> ALL($2))
             UNION ALL
             SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl = 'invoice_lines'
                 AND (row->>'invoice_id')::bigint = ANY($2)
             UNION ALL
             SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl = 'invoice_lines'
                 AND (row->>'invoice_id')::bigint IN (
                     SELECT c.id FROM invoices c WHERE c.shop_id = $1 AND c.original_invoice_id = ANY($2)
                         AND c.id <> ALL($2))
             UNION ALL
             SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl = 'invoice_payments' AND key IN (
                 SELECT '[' || p.invoice_id || ',' || p.position || ']' FROM invoice_payments p
                 WHERE p.shop_id = $1 AND p.invoice_id = ANY($2))
             UNION ALL
             SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl = 'bank_accounts'
             UNION ALL
             SELECT tbl, row FROM shop_rows WHERE shop_id = $1 AND tbl = 'wtns' AND key IN (
                 SELECT '[' || (l.row->>'wtn_id') || ']' FROM shop_rows l
                 WHERE l.shop_id = $1 AND l.tbl = 'invoice_wtns' AND l.key = ANY($3))",
            &[&shop_id, &ids, &keys],
        )
        .await?;
    rows.iter()
        .filter_map(|r| match r.col::<Value>("row") {
            Ok(Value::Object(row)) => Some(r.col("tbl").map(|tbl| (tbl, row))),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
        .collect()
}

/// The shop's documents `ids`, read as the shop reads them, in the order asked.
pub async fn documents(pool: &Pool, shop_id: i64, ids: Vec<i64>) -> Result<Vec<Invoice>> {
    let shipped = Shipped::new(rows_of(pool, shop_id, &ids).await?);
    let mut found = Vec::with_capacity(ids.len());
    for id in ids {
        found.extend(shipped.invoice(id)?);
    }
    Ok(found)
}

/// A page of the sales book of the period, oldest first, as the shop's own reads it (its sales
/// and reversals, no order nor an order's cancellation): (shop id, the shop's id, what it reverses).
/// Each shop's first `offset + limit` are read off its (shop, day) index, then put in one order.
async fn book_page(pool: &Pool, f: &Filter, limit: i64, offset: i64) -> Result<Vec<(i64, i64, Option<i64>)>> {
    let client = pool.get().await?;
    let (conditions, mut values) = f.on(ON_INVOICES);
    let shops = of_shops(f, &mut values);
    values.push(Box::new(offset.saturating_add(limit)));
    values.push(Box::new(limit));
    values.push(Box::new(offset));
    let (at_each, at_limit, at_offset) = (values.len() - 2, values.len() - 1, values.len());
    let rows = client
        .query(
            &format!(
                "SELECT x.shop_id, x.id, x.original_invoice_id FROM shops s CROSS JOIN LATERAL (
                     SELECT i.shop_id, i.id, i.issue_date, i.original_invoice_id FROM invoices i
                     WHERE i.shop_id = s.id AND {conditions} AND i.document_kind <> 'ORDER' AND NOT EXISTS (
                         SELECT 1 FROM invoices o WHERE o.shop_id = i.shop_id AND o.id = i.original_invoice_id
                             AND o.document_kind = 'ORDER')
                     ORDER BY i.issue_date, i.id LIMIT ${at_each}
                 ) x WHERE {shops}
                 ORDER BY x.issue_date, s.name, x.id LIMIT ${at_limit} OFFSET ${at_offset}"
            ),
            &refs(&values),
        )
        .await?;
    rows.iter().map(|r| Ok((r.col("shop_id")?, r.col("id")?, r.col("original_invoice_id")?))).collect()
}

/// The sales book's page: each document the shop's own entry, its kind read as the shop reads it
/// (a reversal by what it reverses, which is read along).
pub async fn sales_book(pool: &Pool, f: &Filter, limit: i64, offset: i64) -> Result<Vec<BookEntry>> {
    let page = book_page(pool, f, limit, offset).await?;
    let mut shops: Vec<i64> = page.iter().map(|(shop, _, _)| *shop).collect();
    shops.sort_unstable();
    shops.dedup();
    let mut read: Vec<(i64, BookEntry)> = Vec::with_capacity(page.len());
    for shop in shops {
        let ids: Vec<i64> = page.iter().filter(|(s, _, _)| *s == shop).map(|(_, id, _)| *id).collect();
        let mut with_originals = ids.clone();
        with_originals.extend(page.iter().filter(|(s, _, _)| *s == shop).filter_map(|(_, _, o)| *o));
        let shipped = Shipped::new(rows_of(pool, shop, &with_originals).await?);
        let mut entries = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(invoice) = shipped.invoice(id)? {
                let original = match invoice.original_invoice_id {
                    Some(original) => shipped.document_kind(original)?,
                    None => None,
                };
                entries.push(book_entry(&invoice, kind_of(&invoice, original)));
            }
        }
        read.extend(entries.into_iter().map(|e| (shop, e)));
    }
    let mut book = Vec::with_capacity(read.len());
    for (shop, id, _) in &page {
        if let Some(at) = read.iter().position(|(s, e)| s == shop && e.id == *id) {
            book.push(read.swap_remove(at).1);
        }
    }
    Ok(book)
}

/// The page of the list in the shop's shape, each with its shop.
pub async fn list(pool: &Pool, page: &[(i64, String, i64)], version: ApiVersion) -> Result<Vec<Value>> {
    let links = Links { base: String::new() };
    let mut items = Vec::with_capacity(page.len());
    let mut shops: Vec<i64> = page.iter().map(|(shop, _, _)| *shop).collect();
    shops.sort_unstable();
    shops.dedup();
    let mut read: Vec<(i64, Invoice)> = Vec::new();
    for shop in shops {
        let ids = page.iter().filter(|(s, _, _)| *s == shop).map(|(_, _, id)| *id).collect();
        read.extend(documents(pool, shop, ids).await?.into_iter().map(|i| (shop, i)));
    }
    for (shop, name, id) in page {
        if let Some((_, invoice)) = read.iter().find(|(s, i)| s == shop && i.id == *id) {
            let item = AtShop { shop: name.clone(), document: views::list_item_at(&links, invoice, version) };
            items.push(serde_json::to_value(item).map_err(|e| super::Error::Read(e.to_string()))?);
        }
    }
    Ok(items)
}

/// One document's details in the shop's shape, with its shop.
pub async fn details(
    pool: &Pool,
    shop_id: i64,
    shop: &str,
    id: i64,
    version: ApiVersion,
) -> Result<Option<Value>> {
    let links = Links { base: String::new() };
    let Some(invoice) = documents(pool, shop_id, vec![id]).await?.pop() else { return Ok(None) };
    let view = AtShop { shop: shop.to_string(), document: views::details_at(&links, &invoice, version) };
    Ok(Some(serde_json::to_value(view).map_err(|e| super::Error::Read(e.to_string()))?))
}
