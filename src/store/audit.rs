//! The audit trail (V25): appended inside the action's own write transaction, read by the
//! owner's list and walked by `arka audit verify`.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, Row, named_params};

use super::{Error, Result, configure, embedded};
use crate::domain::audit::{self, Broken, Chain, Entry, Stored};

/// Appends `entry` to the chain, inside the caller's transaction: it is written with the action
/// or not at all. The writer is one connection, so the last hash read here is the last one.
pub fn append(tx: &Connection, entry: &Entry) -> Result<i64> {
    let prev_hash: String = tx
        .prepare_cached("SELECT hash FROM audit ORDER BY id DESC LIMIT 1")?
        .query_row([], |r| r.get("hash"))
        .optional()?
        .unwrap_or_else(|| audit::GENESIS.to_string());
    let id: i64 = tx.query_row(
        "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0) + 1 AS id",
        [],
        |r| r.get("id"),
    )?;
    let mut stored = Stored {
        id,
        at: audit::at_text(chrono::Utc::now()),
        company_id: entry.company_id,
        user_id: entry.actor.user_id(),
        role: entry.actor.role_text().to_string(),
        request_id: entry.request_id.clone(),
        action: entry.action.as_str().to_string(),
        object: entry.object.clone(),
        before: entry.before.clone(),
        after: entry.after.clone(),
        prev_hash,
        hash: String::new(),
    };
    stored.hash = stored.content_hash();
    tx.prepare_cached(
        "INSERT INTO audit (id, at, company_id, user_id, role, request_id, action, object, before, after, prev_hash, hash)
         VALUES (:id, :at, :company, :user, :role, :request, :action, :object, :before, :after, :prev, :hash)",
    )?
    .execute(named_params! {
        ":id": stored.id, ":at": stored.at, ":company": stored.company_id, ":user": stored.user_id,
        ":role": stored.role, ":request": stored.request_id, ":action": stored.action,
        ":object": stored.object, ":before": stored.before, ":after": stored.after,
        ":prev": stored.prev_hash, ":hash": stored.hash,
    })?;
    Ok(id)
}

/// Appends `entry` to the database file at `path` (a restore's copy, before it is moved in),
/// bringing its schema up to date first.
pub fn append_in_file(path: &Path, entry: &Entry) -> Result<i64> {
    append_in_file_with(path, entry, |_| Ok(()))
}

/// As `append_in_file`, with `also` written in the entry's own transaction (what the restore
/// changes in what it restores).
pub fn append_in_file_with(
    path: &Path,
    entry: &Entry,
    also: impl FnOnce(&rusqlite::Transaction) -> Result<()>,
) -> Result<i64> {
    let mut conn = Connection::open(path)?;
    configure(&conn)?;
    embedded::migrations::runner().run(&mut conn).map_err(Error::Migration)?;
    let tx = conn.transaction()?;
    also(&tx)?;
    let id = append(&tx, entry)?;
    tx.commit()?;
    conn.close().map_err(|(_, e)| Error::Sqlite(e))?;
    Ok(id)
}

const COLUMNS: &str =
    "id, at, company_id, user_id, role, request_id, action, object, before, after, prev_hash, hash";

fn stored(r: &Row) -> rusqlite::Result<Stored> {
    Ok(Stored {
        id: r.get("id")?,
        at: r.get("at")?,
        company_id: r.get("company_id")?,
        user_id: r.get("user_id")?,
        role: r.get("role")?,
        request_id: r.get("request_id")?,
        action: r.get("action")?,
        object: r.get("object")?,
        before: r.get("before")?,
        after: r.get("after")?,
        prev_hash: r.get("prev_hash")?,
        hash: r.get("hash")?,
    })
}

/// An entry one of whose columns holds a value of another type than the table's (someone wrote
/// text where a number belongs): named like any other change, never the driver's words.
fn wrong_type(row: &Row, e: rusqlite::Error) -> Result<Broken> {
    let column = match &e {
        rusqlite::Error::InvalidColumnType(_, name, _) => name.clone(),
        rusqlite::Error::FromSqlConversionFailure(index, _, _)
        | rusqlite::Error::IntegralValueOutOfRange(index, _) => {
            row.as_ref().column_name(*index).map_or_else(|_| index.to_string(), str::to_string)
        }
        _ => return Err(e.into()),
    };
    Ok(Broken {
        id: row.get("id")?,
        why: format!("holds a value of the wrong type in its column {column} (it was changed)"),
    })
}

/// What the owner's list asks for; times are the trail's UTC text, `to` excluded.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub from: Option<String>,
    pub to: Option<String>,
    pub user_id: Option<i64>,
    pub action: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// The company's entries (and the database's own, a restore), newest first, with how many match.
pub fn list(conn: &Connection, company_id: i64, filter: &Filter) -> Result<(Vec<Stored>, i64)> {
    let condition = "(company_id = :company OR company_id IS NULL)
         AND (:from IS NULL OR at >= :from) AND (:to IS NULL OR at < :to)
         AND (:user IS NULL OR user_id = :user) AND (:action IS NULL OR action = :action)";
    let params = named_params! {
        ":company": company_id, ":from": filter.from, ":to": filter.to,
        ":user": filter.user_id, ":action": filter.action,
    };
    let total: i64 =
        conn.query_row(&format!("SELECT COUNT(*) AS entries FROM audit WHERE {condition}"), params, |r| {
            r.get("entries")
        })?;
    let sql =
        format!("SELECT {COLUMNS} FROM audit WHERE {condition} ORDER BY id DESC LIMIT :limit OFFSET :offset");
    let mut stmt = conn.prepare(&sql)?;
    let mut all = params.to_vec();
    all.push((":limit", &filter.limit));
    all.push((":offset", &filter.offset));
    let rows = stmt.query_map(all.as_slice(), stored)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((rows, total))
}

/// The chain walked front to back: how many entries hold, or the first that does not.
pub fn verify(conn: &Connection) -> Result<std::result::Result<u64, Broken>> {
    let mut chain = Chain::default();
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM audit ORDER BY id"))?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let entry = match stored(row) {
            Ok(entry) => entry,
            Err(e) => return wrong_type(row, e).map(Err),
        };
        if let Err(broken) = chain.check(&entry) {
            return Ok(Err(broken));
        }
    }
    let issued: Option<i64> = conn
        .query_row("SELECT seq FROM sqlite_sequence WHERE name = 'audit'", [], |r| r.get("seq"))
        .optional()?;
    Ok(chain.end(issued).map(|()| chain.entries))
}
