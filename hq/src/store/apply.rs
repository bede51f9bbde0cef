//! The HQ applies a shop's batch exactly once: entries at or below the shop's highest applied
//! sequence are skipped (a batch sent again after a lost answer changes nothing), and each row is
//! kept by its natural key (shop, table, key), so a row shipped twice is one row. The raw rows
//! (`shop_rows`, jsonb) are the truth a restore reads back; the typed tables the reports read
//! are derived from them in the same transaction. A batch is a few set-based statements however
//! many entries it holds.

use std::collections::HashMap;

use deadpool_postgres::Pool;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_postgres::types::Json;

use super::Result;
use super::columns::Typed;
use arka_core::wire::{Batch, Op, key_columns, key_text};

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
    "users",
    "business_units",
    "fiscal_devices",
    "cash_days",
    "cash_actions",
    "wtns",
];

/// What is wrong with a batch, by the entry's place (`entries.3.table`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: String,
    pub message: String,
}

/// One entry as PostgreSQL reads it (one JSON array for the batch): table, key text, key object,
/// op, row (as the shop wrote it), seq.
#[derive(Debug, Serialize)]
pub struct Prepared<'a> {
    /// The entry's place in the batch, which a refusal names.
    i: usize,
    t: &'a str,
    k: String,
    ko: &'a Map<String, Value>,
    o: &'static str,
    r: Option<&'a RawValue>,
    s: i64,
}

/// The entries for PostgreSQL: each row once (its last entry), those the HQ already holds left
/// out.
pub fn prepare(batch: &Batch, acked: i64) -> std::result::Result<Vec<Prepared<'_>>, Invalid> {
    let mut last: HashMap<(&str, String), usize> = HashMap::new();
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
        match (&entry.op, &entry.row) {
            (Op::Upsert, None) => return Err(invalid("row", "An upsert carries its row.")),
            (Op::Upsert, Some(row)) if !row.get().trim_start().starts_with('{') => {
                return Err(invalid("row", "A row is a JSON object, column to value."));
            }
            _ => {}
        }
        if entry.seq > batch.upto {
            return Err(invalid("seq", "An entry's seq is at most the batch's upto."));
        }
        if i + 1 == batch.entries.len() && entry.seq != batch.upto {
            return Err(invalid(
                "seq",
                "The batch's last entry's seq is its upto: the HQ acknowledges only what it applies.",
            ));
        }
        last.insert((entry.table.as_str(), key.clone()), i);
        keys.push(key);
    }
    if batch.entries.is_empty() && batch.upto > acked {
        return Err(Invalid {
            field: "upto".to_string(),
            message:
                "A batch without entries acknowledges nothing: the HQ acknowledges only what it applies."
                    .to_string(),
        });
    }
    let mut rows = Vec::new();
    for (i, (entry, key)) in batch.entries.iter().zip(keys).enumerate() {
        if entry.seq <= acked || last.get(&(entry.table.as_str(), key.clone())) != Some(&i) {
            continue;
        }
        rows.push(Prepared {
            i,
            t: &entry.table,
            k: key,
            ko: &entry.key,
            o: entry.op.as_str(),
            r: entry.row.as_deref(),
            s: entry.seq,
        });
    }
    Ok(rows)
}

/// The tables a prepared batch touches.
fn tables_of<'a>(entries: &[Prepared<'a>]) -> std::collections::BTreeSet<&'a str> {
    entries.iter().map(|e| e.t).collect()
}

/// What a batch came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Applied (or held already): the highest sequence the HQ now holds of the shop.
    Acked(i64),
    /// An entry the HQ cannot take, named by its place; nothing of the batch was applied.
    Invalid(Invalid),
    /// The batch carries a company of another business than the shop's: nothing was applied.
    OtherBusiness { entry: usize, nuis: String },
}

/// Applies `batch` for `shop` in one transaction. The batch's JSON is parsed once, into a
/// temporary table the statements then read, and each derived table is touched only when the
/// batch holds rows of it. An entry whose key disagrees with its row, or whose row a typed table
/// cannot take, is named and nothing is applied: the shop sets that one entry aside.
pub async fn apply(pool: &Pool, shop: &super::db::Shop, batch: &Batch) -> Result<Applied> {
    let shop_id = shop.id;
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let acked: i64 = tx
        .query_one("SELECT acked_seq FROM shops WHERE id = $1 FOR UPDATE", &[&shop_id])
        .await?
        .col("acked_seq")?;
    if batch.upto <= acked {
        return Ok(Applied::Acked(acked));
    }
    let entries = match prepare(batch, acked) {
        Ok(entries) => entries,
        Err(invalid) => return Ok(Applied::Invalid(invalid)),
    };
    let tables = tables_of(&entries);
    tx.batch_execute(
        "CREATE TEMPORARY TABLE IF NOT EXISTS batch_entries
             (i INTEGER NOT NULL, t TEXT NOT NULL, k TEXT NOT NULL, ko JSONB NOT NULL, o TEXT NOT NULL, r JSONB,
              s BIGINT NOT NULL)
             ON COMMIT DELETE ROWS",
    )
    .await?;
    tx.execute(
        "INSERT INTO batch_entries
         SELECT (e->>'i')::integer, e->>'t', e->>'k', e->'ko', e->>'o', e->'r', (e->>'s')::bigint
         FROM jsonb_array_elements($1::jsonb) e",
        &[&Json(&entries)],
    )
    .await?;
    if let Some(refused) = checked(&tx, shop).await? {
        return Ok(refused);
    }
    tx.execute(
        "INSERT INTO shop_rows (shop_id, tbl, key, row, seq)
         SELECT $1, t, k, r, s FROM batch_entries WHERE o = 'upsert'
         ON CONFLICT (shop_id, tbl, key) DO UPDATE SET row = EXCLUDED.row, seq = EXCLUDED.seq",
        &[&shop_id],
    )
    .await?;
    tx.execute(
        "DELETE FROM shop_rows s USING batch_entries e
         WHERE e.o = 'delete' AND s.shop_id = $1 AND s.tbl = e.t AND s.key = e.k",
        &[&shop_id],
    )
    .await?;
    let derived_tables: Vec<&str> = DERIVED.iter().copied().filter(|t| tables.contains(t)).collect();
    if let Some(invalid) = derived(&tx, shop_id, &derived_tables).await? {
        return Ok(Applied::Invalid(invalid));
    }
    if tables.contains("invoices") {
        // The non-cash numbers these documents carry are no longer held (`held`).
        tx.execute(
            "UPDATE noncash_numbers n SET documented = true
             FROM batch_entries e, shops s
             WHERE s.id = $1 AND e.t = 'invoices' AND e.o = 'upsert' AND e.r->>'kind' = 'NONCASH'
               AND n.nuis = s.nuis AND n.year = (e.r->>'year')::integer AND n.ord_num = (e.r->>'ord_num')::bigint
               AND NOT n.documented",
            &[&shop_id],
        )
        .await?;
    }
    tx.execute(
        "UPDATE shops SET acked_seq = $2, synced_at = now(), last_heard_at = now() WHERE id = $1",
        &[&shop_id, &batch.upto],
    )
    .await?;
    tx.commit().await?;
    Ok(Applied::Acked(batch.upto))
}

/// What the batch holds that the HQ refuses before applying anything: an upsert whose key is
/// not its row's own, or a company of another business than the shop's. A shop that never said
/// its business learns it from its first company.
async fn checked(tx: &tokio_postgres::Transaction<'_>, shop: &super::db::Shop) -> Result<Option<Applied>> {
    let mismatch = tx
        .query_opt("SELECT i FROM batch_entries WHERE o = 'upsert' AND NOT (r @> ko) ORDER BY i LIMIT 1", &[])
        .await?;
    if let Some(row) = mismatch {
        let i: i32 = row.col("i")?;
        return Ok(Some(Applied::Invalid(Invalid {
            field: format!("entries.{i}.key"),
            message: "The key does not match the row's own key columns.".to_string(),
        })));
    }
    let companies = tx
        .query("SELECT i, r->>'nuis' AS nuis FROM batch_entries WHERE t = 'companies' AND o = 'upsert' ORDER BY i", &[])
        .await?;
    let mut nuis = shop.nuis.clone();
    for company in &companies {
        let (i, shipped): (i32, Option<String>) = (company.col("i")?, company.col("nuis")?);
        let shipped = shipped.unwrap_or_default();
        match &nuis {
            Some(own) if *own != shipped => {
                return Ok(Some(Applied::OtherBusiness {
                    entry: usize::try_from(i).unwrap_or_default(),
                    nuis: shipped,
                }));
            }
            Some(_) => {}
            None => {
                tx.execute(
                    "UPDATE shops SET nuis = $2 WHERE id = $1 AND nuis IS NULL",
                    &[&shop.id, &shipped],
                )
                .await?;
                nuis = Some(shipped);
            }
        }
    }
    Ok(None)
}

/// Whether a statement failed on the data it was given (a text where a number goes, a missing
/// NOT NULL, a duplicate key), not on the database's state.
fn data_refused(e: &tokio_postgres::Error) -> bool {
    e.code().is_some_and(|code| code.code().starts_with("22") || code.code().starts_with("23"))
}

/// Derives the typed rows of `tables` from the batch's entries of them: every entry takes its
/// old row away, an upsert puts the new one in, all under one savepoint. When a typed table
/// cannot take a row, the entry it came from is found (one entry at a time, each in a savepoint
/// of its own) and named.
async fn derived(
    tx: &tokio_postgres::Transaction<'_>,
    shop_id: i64,
    tables: &[&str],
) -> Result<Option<Invalid>> {
    tx.batch_execute("SAVEPOINT derived").await?;
    let mut refused = false;
    for table in tables {
        match derive(tx, shop_id, table, None).await {
            Ok(()) => {}
            Err(e) if data_refused(&e) => {
                refused = true;
                break;
            }
            Err(e) => return Err(e.into()),
        }
    }
    if !refused {
        tx.batch_execute("RELEASE SAVEPOINT derived").await?;
        return Ok(None);
    }
    tx.batch_execute("ROLLBACK TO SAVEPOINT derived").await?;
    for table in tables {
        let places = tx.query("SELECT i FROM batch_entries WHERE t = $1 ORDER BY i", &[table]).await?;
        for place in &places {
            let i: i32 = place.col("i")?;
            tx.batch_execute("SAVEPOINT one").await?;
            match derive(tx, shop_id, table, Some(i)).await {
                Ok(()) => tx.batch_execute("RELEASE SAVEPOINT one").await?,
                Err(e) if data_refused(&e) => {
                    let why =
                        e.as_db_error().map(|db| db.message().to_string()).unwrap_or_else(|| e.to_string());
                    return Ok(Some(Invalid {
                        field: format!("entries.{i}.row"),
                        message: format!("The head office's {table} cannot take this row: {why}."),
                    }));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
    Err(super::Error::Read("the batch's rows were refused together and taken one by one".to_string()))
}

async fn derive(
    tx: &tokio_postgres::Transaction<'_>,
    shop_id: i64,
    table: &str,
    only: Option<i32>,
) -> std::result::Result<(), tokio_postgres::Error> {
    let Some(key) = key_columns(table) else { return Ok(()) };
    let matched = key.iter().map(|c| format!("t.{c} = d.{c}")).collect::<Vec<_>>().join(" AND ");
    tx.execute(
        &format!(
            "DELETE FROM {table} t USING (
                 SELECT d.* FROM batch_entries e, jsonb_populate_record(NULL::{table}, e.ko) d
                 WHERE e.t = '{table}' AND ($2::integer IS NULL OR e.i = $2)
             ) d WHERE t.shop_id = $1 AND {matched}"
        ),
        &[&shop_id, &only],
    )
    .await?;
    tx.execute(
        &format!(
            "INSERT INTO {table} SELECT d.* FROM batch_entries e,
                 jsonb_populate_record(NULL::{table}, e.r || jsonb_build_object('shop_id', $1::bigint)) d
             WHERE e.t = '{table}' AND e.o = 'upsert' AND ($2::integer IS NULL OR e.i = $2)"
        ),
        &[&shop_id, &only],
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arka_core::wire::Entry;

    fn entry(seq: i64, table: &str, id: i64, op: Op) -> Entry {
        let mut key = Map::new();
        key.insert("id".into(), Value::from(id));
        let row = (op == Op::Upsert).then(|| RawValue::from_string(format!("{{\"id\":{id}}}")).unwrap());
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
        let prepared = serde_json::to_value(prepare(&batch, 5).unwrap()).unwrap();
        let seqs: Vec<_> =
            prepared.as_array().unwrap().iter().map(|e| (e["s"].clone(), e["o"].clone())).collect();
        assert_eq!(seqs, [(Value::from(7), Value::from("delete")), (Value::from(9), Value::from("upsert"))]);
        assert_eq!(prepared[0]["k"], "[1]");
        assert_eq!(prepared[1]["r"]["id"], 1, "the row as the shop wrote it");
    }

    #[test]
    fn a_bad_entry_is_named_by_its_place() {
        let mut batch = Batch { upto: 2, entries: vec![entry(1, "invoices", 1, Op::Upsert)] };
        batch.entries.push(entry(2, "certificates", 1, Op::Upsert));
        assert_eq!(prepare(&batch, 0).unwrap_err().field, "entries.1.table");
        batch.entries[1] = Entry { row: None, ..entry(2, "invoices", 2, Op::Upsert) };
        assert_eq!(prepare(&batch, 0).unwrap_err().field, "entries.1.row");
        batch.entries[1] = Entry {
            row: Some(RawValue::from_string("[1]".into()).unwrap()),
            ..entry(2, "invoices", 2, Op::Upsert)
        };
        assert_eq!(prepare(&batch, 0).unwrap_err().field, "entries.1.row");
        batch.entries[1] = entry(3, "invoices", 2, Op::Upsert);
        assert_eq!(prepare(&batch, 0).unwrap_err().field, "entries.1.seq");
    }
}
