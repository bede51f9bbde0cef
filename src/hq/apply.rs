//! The HQ applies a shop's batch exactly once: entries at or below the shop's highest applied
//! sequence are skipped (a batch sent again after a lost answer changes nothing), and each row is
//! kept by its natural key (shop, table, key), so a row shipped twice is one row. The raw rows
//! (`shop_rows`, jsonb) are the truth a restore reads back; the typed tables the reports read
//! are derived from them in the same transaction. A batch is a few set-based statements however
//! many entries it holds.

use std::collections::HashMap;

use deadpool_postgres::Pool;
use serde_json::{Value, json};

use super::Result;
use super::wire::{Batch, Op, key_columns, key_text};

/// The typed tables derived from shipped rows: same name and columns (or some of them) as the
/// shop's table, plus `shop_id`.
pub const DERIVED: &[&str] = &[
    "report_sales",
    "report_vat",
    "report_payments",
    "report_products",
    "report_clients",
    "invoices",
    "invoice_payments",
    "einvoices",
];

/// What is wrong with a batch, by the entry's place (`entries.3.table`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: String,
    pub message: String,
}

/// The entries as one JSON array for PostgreSQL: table, key text, key object, op, row, seq; each
/// row once (its last entry), those the HQ already holds left out.
pub fn prepare(batch: &Batch, acked: i64) -> std::result::Result<Value, Invalid> {
    let mut last: HashMap<(String, String), usize> = HashMap::new();
    let mut keys = Vec::with_capacity(batch.entries.len());
    for (i, entry) in batch.entries.iter().enumerate() {
        let invalid = |field: &str, message: &str| Invalid {
            field: format!("entries.{i}.{field}"),
            message: message.to_string(),
        };
        if key_columns(&entry.table).is_none() {
            return Err(invalid("table", "The table is not one a shop ships."));
        }
        let key = key_text(&entry.table, &entry.key)
            .ok_or_else(|| invalid("key", "The key must hold every key column of the table."))?;
        if entry.op == Op::Upsert && entry.row.is_none() {
            return Err(invalid("row", "An upsert carries its row."));
        }
        if entry.seq > batch.upto {
            return Err(invalid("seq", "An entry's seq is at most the batch's upto."));
        }
        last.insert((entry.table.clone(), key.clone()), i);
        keys.push(key);
    }
    let mut rows = Vec::new();
    for (i, (entry, key)) in batch.entries.iter().zip(keys).enumerate() {
        if entry.seq <= acked || last.get(&(entry.table.clone(), key.clone())) != Some(&i) {
            continue;
        }
        rows.push(json!({
            "t": entry.table,
            "k": key,
            "ko": entry.key,
            "o": entry.op.as_str(),
            "r": entry.row,
            "s": entry.seq,
        }));
    }
    Ok(Value::Array(rows))
}

/// Applies `batch` for `shop_id` in one transaction; the highest sequence the HQ then holds.
pub async fn apply(pool: &Pool, shop_id: i64, batch: &Batch) -> Result<std::result::Result<i64, Invalid>> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let acked: i64 =
        tx.query_one("SELECT acked_seq FROM shops WHERE id = $1 FOR UPDATE", &[&shop_id]).await?.get(0);
    let entries = match prepare(batch, acked) {
        Ok(entries) => entries,
        Err(invalid) => return Ok(Err(invalid)),
    };
    if batch.upto <= acked {
        return Ok(Ok(acked));
    }
    tx.execute(
        "INSERT INTO shop_rows (shop_id, tbl, key, row, seq)
         SELECT $1, e->>'t', e->>'k', e->'r', (e->>'s')::bigint FROM jsonb_array_elements($2::jsonb) e
         WHERE e->>'o' = 'upsert'
         ON CONFLICT (shop_id, tbl, key) DO UPDATE SET row = EXCLUDED.row, seq = EXCLUDED.seq",
        &[&shop_id, &entries],
    )
    .await?;
    tx.execute(
        "DELETE FROM shop_rows s USING jsonb_array_elements($2::jsonb) e
         WHERE e->>'o' = 'delete' AND s.shop_id = $1 AND s.tbl = e->>'t' AND s.key = e->>'k'",
        &[&shop_id, &entries],
    )
    .await?;
    for table in DERIVED {
        let Some(key) = key_columns(table) else { continue };
        let matched = key.iter().map(|c| format!("t.{c} = d.{c}")).collect::<Vec<_>>().join(" AND ");
        // Every entry of the table takes its old row away; an upsert puts the new one in.
        tx.execute(
            &format!(
                "DELETE FROM {table} t USING (
                     SELECT d.* FROM jsonb_array_elements($2::jsonb) e,
                         jsonb_populate_record(NULL::{table}, e->'ko') d WHERE e->>'t' = '{table}'
                 ) d WHERE t.shop_id = $1 AND {matched}"
            ),
            &[&shop_id, &entries],
        )
        .await?;
        tx.execute(
            &format!(
                "INSERT INTO {table} SELECT d.* FROM jsonb_array_elements($2::jsonb) e,
                     jsonb_populate_record(NULL::{table}, (e->'r') || jsonb_build_object('shop_id', $1::bigint)) d
                 WHERE e->>'t' = '{table}' AND e->>'o' = 'upsert'"
            ),
            &[&shop_id, &entries],
        )
        .await?;
    }
    tx.execute("UPDATE shops SET acked_seq = $2, synced_at = now() WHERE id = $1", &[&shop_id, &batch.upto])
        .await?;
    tx.commit().await?;
    Ok(Ok(batch.upto))
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;
    use crate::hq::wire::Entry;

    fn entry(seq: i64, table: &str, id: i64, op: Op) -> Entry {
        let mut key = Map::new();
        key.insert("id".into(), Value::from(id));
        let row = (op == Op::Upsert).then(|| key.clone());
        Entry { seq, table: table.into(), key, op, row }
    }

    #[test]
    fn a_batch_keeps_each_rows_last_entry_and_leaves_out_what_the_hq_holds() {
        let batch = Batch {
            upto: 9,
            entries: vec![
                entry(3, "invoices", 1, Op::Upsert),
                entry(5, "invoices", 2, Op::Upsert),
                entry(7, "invoices", 1, Op::Delete),
                entry(9, "products", 1, Op::Upsert),
            ],
        };
        let prepared = prepare(&batch, 5).unwrap();
        let seqs: Vec<_> =
            prepared.as_array().unwrap().iter().map(|e| (e["s"].clone(), e["o"].clone())).collect();
        assert_eq!(seqs, [(json!(7), json!("delete")), (json!(9), json!("upsert"))]);
        assert_eq!(prepared[0]["k"], "[1]");
    }

    #[test]
    fn a_bad_entry_is_named_by_its_place() {
        let mut batch = Batch { upto: 2, entries: vec![entry(1, "invoices", 1, Op::Upsert)] };
        batch.entries.push(entry(2, "certificates", 1, Op::Upsert));
        assert_eq!(prepare(&batch, 0).unwrap_err().field, "entries.1.table");
        batch.entries[1] = Entry { row: None, ..entry(2, "invoices", 2, Op::Upsert) };
        assert_eq!(prepare(&batch, 0).unwrap_err().field, "entries.1.row");
        batch.entries[1] = entry(3, "invoices", 2, Op::Upsert);
        assert_eq!(prepare(&batch, 0).unwrap_err().field, "entries.1.seq");
    }
}
