//! The shop's outbox to its head office (V26): notes written by triggers in each writing
//! transaction, read here oldest first, forgotten once the HQ acknowledged them.

use rusqlite::{Connection, OptionalExtension, Transaction, named_params};

use super::Result;
use arka_core::wire::TABLES;

/// One note of the outbox as the trigger wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noted {
    pub seq: i64,
    pub table: String,
    /// The row's primary key as a JSON object's text.
    pub key: String,
    pub op: String,
}

/// What waits for the HQ: how many notes, and when the oldest was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backlog {
    pub notes: i64,
    pub oldest_noted_at: Option<String>,
}

/// The HQ this shop feeds, once `serve --hq-url` started (none for a lone shop).
pub fn linked_url(conn: &Connection) -> Result<Option<String>> {
    Ok(conn.query_row("SELECT url FROM hq_link WHERE id = 1", [], |r| r.get("url")).optional()?)
}

/// This box's identity at its head office (none for a lone shop).
pub fn box_id(conn: &Connection) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT box_id FROM hq_link WHERE id = 1", [], |r| r.get("box_id"))
        .optional()?
        .flatten())
}

/// A new box identity: every call to the head office names it.
pub fn new_box_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Links the shop to the HQ at `url`, under this box's identity (made the first time). The first
/// time (or for another HQ) every row a shop ships is noted once, in key order, so the HQ receives
/// what was written before it was there; from then on the triggers note each change. Returns
/// whether that backfill was noted.
pub fn link(tx: &Transaction, url: &str, now: &str) -> Result<bool> {
    if linked_url(tx)?.as_deref() == Some(url) {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO hq_link (id, url, joined_at, box_id) VALUES (1, :url, :now, :box)
         ON CONFLICT (id) DO UPDATE SET url = excluded.url, joined_at = excluded.joined_at,
             box_id = COALESCE(hq_link.box_id, excluded.box_id)",
        named_params! {":url": url, ":now": now, ":box": new_box_id()},
    )?;
    note_everything(tx)?;
    Ok(true)
}

/// Notes every row a shop ships, in key order: what a new head office, or one whose database
/// was brought back from a backup, is sent (the HQ keeps each row by its key, so a row it
/// holds already stays one row). How many rows.
pub fn note_everything(tx: &Transaction) -> Result<usize> {
    let mut noted = 0;
    for (table, key) in TABLES {
        let pairs = key.iter().map(|c| format!("'{c}', {c}")).collect::<Vec<_>>().join(", ");
        let order = key.join(", ");
        noted += tx.execute(
            &format!(
                "INSERT INTO hq_outbox (tbl, key, op)
                 SELECT '{table}', json_object({pairs}), 'upsert' FROM {table} ORDER BY {order}"
            ),
            [],
        )?;
    }
    Ok(noted)
}

/// Leaves the chain: the link and the notes waiting for the HQ go; the triggers note nothing
/// from then on. What the link was (its URL, its box, the notes dropped), for the audit trail.
pub fn unlink(tx: &Transaction) -> Result<Option<(String, Option<String>, i64)>> {
    let Some(url) = linked_url(tx)? else { return Ok(None) };
    let box_id = box_id(tx)?;
    let dropped = backlog(tx)?.notes;
    tx.execute("DELETE FROM hq_link", [])?;
    tx.execute("DELETE FROM hq_outbox", [])?;
    Ok(Some((url, box_id, dropped)))
}

/// Sets the note `seq` aside, with the HQ's reason: it leaves the outbox (with the earlier notes
/// of its row), kept with its row as it is now. Whether there was such a note.
pub fn set_aside(tx: &Transaction, seq: i64, reason: &str, now: &str) -> Result<bool> {
    let Some(note) = tx
        .query_row(
            "SELECT seq, tbl, key, op FROM hq_outbox WHERE seq = :seq",
            named_params! {":seq": seq},
            |r| Ok(Noted { seq: r.get("seq")?, table: r.get("tbl")?, key: r.get("key")?, op: r.get("op")? }),
        )
        .optional()?
    else {
        return Ok(false);
    };
    let shipped = match arka_core::wire::key_columns(&note.table) {
        Some(columns) if note.op == "upsert" => row(tx, &row_query(tx, &note.table, columns)?, &note.key)?,
        _ => None,
    };
    tx.execute(
        "INSERT INTO hq_set_aside (seq, tbl, key, op, row, reason, set_aside_at)
         VALUES (:seq, :tbl, :key, :op, :row, :reason, :now)",
        named_params! {
            ":seq": note.seq, ":tbl": note.table, ":key": note.key, ":op": note.op, ":row": shipped,
            ":reason": reason, ":now": now,
        },
    )?;
    // The row's earlier notes were folded into this one: they go with it.
    tx.execute(
        "DELETE FROM hq_outbox WHERE tbl = :tbl AND key = :key AND seq <= :seq",
        named_params! {":tbl": note.table, ":key": note.key, ":seq": seq},
    )?;
    Ok(true)
}

/// A change set aside, as the owner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    pub seq: i64,
    pub table: String,
    pub key: String,
    pub reason: String,
    pub set_aside_at: String,
}

/// How many changes are set aside, and the newest few.
pub fn set_aside_list(conn: &Connection, limit: i64) -> Result<(i64, Vec<SetAside>)> {
    let count: i64 = conn.query_row("SELECT COUNT(*) AS n FROM hq_set_aside", [], |r| r.get("n"))?;
    let mut stmt = conn.prepare_cached(
        "SELECT seq, tbl, key, reason, set_aside_at FROM hq_set_aside ORDER BY seq DESC LIMIT :limit",
    )?;
    let rows = stmt.query_map(named_params! {":limit": limit}, |r| {
        Ok(SetAside {
            seq: r.get("seq")?,
            table: r.get("tbl")?,
            key: r.get("key")?,
            reason: r.get("reason")?,
            set_aside_at: r.get("set_aside_at")?,
        })
    })?;
    Ok((count, rows.collect::<rusqlite::Result<_>>()?))
}

/// The oldest `limit` notes.
pub fn oldest(conn: &Connection, limit: i64) -> Result<Vec<Noted>> {
    let mut stmt =
        conn.prepare_cached("SELECT seq, tbl, key, op FROM hq_outbox ORDER BY seq LIMIT :limit")?;
    let rows = stmt.query_map(named_params! {":limit": limit}, |r| {
        Ok(Noted { seq: r.get("seq")?, table: r.get("tbl")?, key: r.get("key")?, op: r.get("op")? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The query reading one row of `table` as a JSON object (column → value) by its key's JSON.
pub fn row_query(conn: &Connection, table: &str, key: &[&str]) -> Result<String> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(:table) ORDER BY cid")?;
    let columns = stmt
        .query_map(named_params! {":table": table}, |r| r.get::<_, String>("name"))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let value = |c: &str| super::kept::as_text_sql(table, c).unwrap_or_else(|| format!("\"{c}\""));
    let pairs = columns.iter().map(|c| format!("'{c}', {}", value(c))).collect::<Vec<_>>().join(", ");
    let by_key = key.iter().map(|c| format!("\"{c}\" = json_extract(?1, '$.{c}')")).collect::<Vec<_>>();
    Ok(format!("SELECT json_object({pairs}) AS shipped FROM \"{table}\" WHERE {}", by_key.join(" AND ")))
}

/// The row `key` names, read with `row_query`'s query; none when it is gone.
pub fn row(conn: &Connection, query: &str, key: &str) -> Result<Option<String>> {
    let mut stmt = conn.prepare_cached(query)?;
    Ok(stmt.query_row([key], |r| r.get("shipped")).optional()?)
}

/// Forgets the notes the HQ holds (at or below `acked`).
pub fn forget_upto(tx: &Transaction, acked: i64) -> Result<usize> {
    Ok(tx.execute("DELETE FROM hq_outbox WHERE seq <= :acked", named_params! {":acked": acked})?)
}

/// The backlog, read off the ends of the sequence (notes are only ever taken from the front, and
/// a rolled-back transaction gives its sequence back, so the notes between are all there).
pub fn backlog(conn: &Connection) -> Result<Backlog> {
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(seq) - MIN(seq) + 1, 0) AS notes,
             (SELECT noted_at FROM hq_outbox ORDER BY seq LIMIT 1) AS oldest FROM hq_outbox",
        [],
        |r| Ok(Backlog { notes: r.get("notes")?, oldest_noted_at: r.get("oldest")? }),
    )?)
}

/// After a restore from the HQ at `url`: linked without a backfill (the HQ holds every row) under
/// the new box's identity, and the next note numbered after `acked`, the last the HQ holds, so
/// the HQ takes it as new.
pub fn restored(tx: &Transaction, url: &str, now: &str, acked: i64, box_id: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO hq_link (id, url, joined_at, box_id) VALUES (1, :url, :now, :box)
         ON CONFLICT (id) DO UPDATE SET url = excluded.url, joined_at = excluded.joined_at, box_id = excluded.box_id",
        named_params! {":url": url, ":now": now, ":box": box_id},
    )?;
    tx.execute("DELETE FROM hq_outbox", [])?;
    tx.execute("DELETE FROM sqlite_sequence WHERE name = 'hq_outbox'", [])?;
    tx.execute(
        "INSERT INTO sqlite_sequence (name, seq) VALUES ('hq_outbox', :acked)",
        named_params! {":acked": acked},
    )?;
    Ok(())
}

/// The last version of the HQ's products this shop took.
pub fn catalog_version(conn: &Connection) -> Result<i64> {
    Ok(conn
        .query_row("SELECT catalog_version FROM hq_link WHERE id = 1", [], |r| r.get("catalog_version"))
        .optional()?
        .unwrap_or(0))
}

/// The companies (id, NUIS) whose products the shop pulls.
pub fn companies(conn: &Connection) -> Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare("SELECT id, nuis FROM companies ORDER BY id")?;
    let rows = stmt.query_map([], |r| Ok((r.get("id")?, r.get("nuis")?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Takes a product set at the HQ into the company's catalog (by its code), marked central.
pub fn take_central(
    tx: &Transaction,
    company_id: i64,
    p: &arka_core::wire::CentralProduct,
    now: &str,
) -> Result<Taken> {
    if p.withdrawn {
        tx.execute(
            "DELETE FROM central_products
             WHERE product_id IN (SELECT id FROM products WHERE company_id = :company AND code = :code)",
            named_params! {":company": company_id, ":code": p.code},
        )?;
        return Ok(Taken::Withdrawn);
    }
    let own: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM products p WHERE p.company_id = :company AND p.code = :code
             AND NOT EXISTS (SELECT 1 FROM central_products c WHERE c.product_id = p.id)) AS own",
        named_params! {":company": company_id, ":code": p.code},
        |r| r.get("own"),
    )?;
    let id: i64 = tx.query_row(
        "INSERT INTO products (company_id, code, name, description, last_price, vat_rate, currency, service, unit_code,
             created_at, updated_at)
         VALUES (:company, :code, :name, :description, :price, :vat_rate, :currency, :service, :unit_code, :now, :now)
         ON CONFLICT (company_id, code) DO UPDATE SET name = excluded.name, description = excluded.description,
             last_price = excluded.last_price, vat_rate = excluded.vat_rate, currency = excluded.currency,
             service = excluded.service, unit_code = excluded.unit_code, updated_at = excluded.updated_at
         RETURNING id",
        named_params! {
            ":company": company_id, ":code": p.code, ":name": p.name, ":description": p.description,
            ":price": p.price, ":vat_rate": p.vat_rate, ":currency": p.currency, ":service": p.service,
            ":unit_code": p.unit_code, ":now": now,
        },
        |r| r.get("id"),
    )?;
    tx.execute(
        "INSERT INTO central_products (product_id, version) VALUES (:id, :version)
         ON CONFLICT (product_id) DO UPDATE SET version = excluded.version",
        named_params! {":id": id, ":version": p.version},
    )?;
    Ok(if own { Taken::OwnTakenOver(id) } else { Taken::Set(id) })
}

/// What taking a central product did to the shop's catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// Set (made or changed) as the head office's, by its id.
    Set(i64),
    /// A product of the shop's own of that code, the head office's from now on.
    OwnTakenOver(i64),
    /// No longer the head office's: the shop keeps it as its own.
    Withdrawn,
}

pub fn set_catalog_version(tx: &Transaction, version: i64) -> Result<()> {
    tx.execute(
        "UPDATE hq_link SET catalog_version = :v WHERE id = 1 AND catalog_version < :v",
        named_params! {":v": version},
    )?;
    Ok(())
}

/// Whether the product is set by the head office.
pub fn is_central(conn: &Connection, product_id: i64) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM central_products WHERE product_id = ?1", [product_id], |_| Ok(()))
        .optional()?
        .is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn a_queue_entry_ships_its_kept_request_as_text() {
        let (_dir, store) = store();
        let request = "<RegisterInvoiceRequest Id=\"Request\"><Header/></RegisterInvoiceRequest>";
        store
            .write_blocking(|tx| -> Result<()> {
                tx.execute("INSERT INTO companies (id, nuis, name, created_at) VALUES (1, 'K12345678A', 'Shop', 'now')", [])?;
                let entry = crate::store::fiscal_queue::NewQueued {
                    company_id: 1,
                    operation: "RegisterInvoiceRequest",
                    document: crate::store::fiscal_queue::Document::Invoice,
                    document_id: None,
                    document_number: None,
                    tcr_code: None,
                    header_uuid: "u-1",
                    issued_at: "now",
                    unsigned_request: request,
                    subseq_deliv_type: None,
                    next_attempt_at: "now",
                    last_error: None,
                };
                crate::store::fiscal_queue::enqueue(tx, &entry)?;
                Ok(())
            })
            .unwrap();
        let shipped = store
            .read_blocking(|c| {
                let query = row_query(c, "fiscal_queue", &["id"])?;
                row(c, &query, "{\"id\":1}")
            })
            .unwrap()
            .unwrap();
        let shipped: serde_json::Value = serde_json::from_str(&shipped).unwrap();
        assert_eq!(shipped["unsigned_request"], request);
    }

    #[test]
    fn a_lone_shop_notes_nothing_and_a_linked_one_notes_every_change_in_its_transaction() {
        let (_dir, store) = store();
        let insert = |tx: &Transaction, id: i64| -> Result<()> {
            tx.execute(
                "INSERT INTO companies (id, nuis, name, created_at) VALUES (?1, 'K12345678A', 'Shop', 'now')",
                [id],
            )?;
            Ok(())
        };
        store.write_blocking(|tx| insert(tx, 1)).unwrap();
        assert_eq!(store.read_blocking(backlog).unwrap().notes, 0);

        assert!(store.write_blocking(|tx| link(tx, "http://hq", "now")).unwrap());
        assert!(!store.write_blocking(|tx| link(tx, "http://hq", "now")).unwrap());
        let noted = store.read_blocking(|c| oldest(c, 10)).unwrap();
        assert_eq!(noted.len(), 1, "the backfill notes the company written before: {noted:?}");
        assert_eq!((noted[0].table.as_str(), noted[0].key.as_str()), ("companies", "{\"id\":1}"));

        store.write_blocking(|tx| insert(tx, 2)).unwrap();
        let failed: Result<()> = store.write_blocking(|tx| {
            insert(tx, 3)?;
            Err(crate::store::Error::Overflow)
        });
        assert!(failed.is_err());
        store
            .write_blocking(|tx| {
                Ok::<_, crate::store::Error>(tx.execute("DELETE FROM companies WHERE id = 2", [])?)
            })
            .unwrap();
        let noted = store.read_blocking(|c| oldest(c, 10)).unwrap();
        let ops: Vec<_> = noted.iter().map(|n| (n.seq, n.key.as_str(), n.op.as_str())).collect();
        assert_eq!(ops[1..], [(2, "{\"id\":2}", "upsert"), (3, "{\"id\":2}", "delete")]);
        assert_eq!(store.read_blocking(backlog).unwrap().notes, 3);

        let query = store.read_blocking(|c| row_query(c, "companies", &["id"])).unwrap();
        let company = store.read_blocking(|c| row(c, &query, "{\"id\":1}")).unwrap().unwrap();
        let company: serde_json::Value = serde_json::from_str(&company).unwrap();
        assert_eq!(company["nuis"], "K12345678A");
        assert_eq!(store.read_blocking(|c| row(c, &query, "{\"id\":2}")).unwrap(), None);

        assert_eq!(store.write_blocking(|tx| forget_upto(tx, 2)).unwrap(), 2);
        let left = store.read_blocking(backlog).unwrap();
        assert_eq!(left.notes, 1);
        assert!(left.oldest_noted_at.is_some());
    }
}
