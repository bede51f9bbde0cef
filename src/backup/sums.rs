//! A table too big for `PRAGMA integrity_check(T)` in a night (the invoices of a decade: it looks
//! every row up in each of its indexes, one random read each; `quick_check` of a fifth of the
//! decade took over 11 minutes on this box) checked in steps, each a sequential read of one
//! b-tree: the table's rows read whole (a record SQLite cannot read is damage; NOT NULL columns
//! held), then, for each index, a sum of a hash of every entry's values and rowid taken over the
//! index alone (a covering scan, `INDEXED BY`) and over the table's rows (`NOT INDEXED`, the
//! index's own expressions and `WHERE`), with the counts: an entry missing, extra or different
//! makes them differ. A UNIQUE index's entries are grouped in its own order to find one twice.
//! What it does not look at that `integrity_check` does: pages no b-tree uses (the free list) and
//! the order of keys within a page that still reads.

use std::hash::{Hash, Hasher};

use rusqlite::functions::{Aggregate, Context, FunctionFlags};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};

/// The aggregate both sides are summed with: `arka_entries(v1, …, vn)` is the count and the
/// wrapping sum of a 64-bit hash of each row's values, as text `count:sum`.
const AGGREGATE: &str = "arka_entries";

struct Entries;

impl Aggregate<(u64, u64), String> for Entries {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<(u64, u64)> {
        Ok((0, 0))
    }

    fn step(&self, ctx: &mut Context<'_>, acc: &mut (u64, u64)) -> rusqlite::Result<()> {
        // Fixed keys: both sides of one comparison hash alike in one process.
        let mut h = std::hash::DefaultHasher::new();
        for i in 0..ctx.len() {
            match ctx.get_raw(i) {
                ValueRef::Null => 0u8.hash(&mut h),
                ValueRef::Integer(v) => (1u8, v).hash(&mut h),
                ValueRef::Real(v) => (2u8, v.to_bits()).hash(&mut h),
                ValueRef::Text(v) => (3u8, v).hash(&mut h),
                ValueRef::Blob(v) => (4u8, v).hash(&mut h),
            }
        }
        acc.0 = acc.0.wrapping_add(1);
        acc.1 = acc.1.wrapping_add(h.finish());
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, acc: Option<(u64, u64)>) -> rusqlite::Result<String> {
        let (count, sum) = acc.unwrap_or((0, 0));
        Ok(format!("{count}:{sum:016x}"))
    }
}

/// An index as the comparison reads it: its terms (columns or expressions, as its `CREATE INDEX`
/// names them) and its `WHERE`.
struct Index {
    name: String,
    unique: bool,
    terms: Vec<String>,
    filter: Option<String>,
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The top-level parts of `text` split at `sep` (outside brackets and quotes).
fn split_top(text: &str, sep: char) -> Vec<String> {
    let (mut parts, mut part, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None::<char>);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`' | '[') => quote = Some(if c == '[' { ']' } else { c }),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                parts.push(std::mem::take(&mut part));
                continue;
            }
            _ => {}
        }
        part.push(c);
    }
    parts.push(part);
    parts.into_iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

/// The terms and `WHERE` of `CREATE [UNIQUE] INDEX name ON table (terms) [WHERE filter]`.
fn parse_index(sql: &str) -> Option<(Vec<String>, Option<String>)> {
    let open = sql.find('(')?;
    let mut depth = 0;
    let mut close = None;
    for (i, c) in sql[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let terms = split_top(&sql[open + 1..close], ',')
        .into_iter()
        .map(|t| {
            // The order and collation of a term change where an entry sits, not its values.
            let words: Vec<&str> = t.split_whitespace().collect();
            let mut keep = words.len();
            while keep > 0 && ["ASC", "DESC"].contains(&words[keep - 1].to_ascii_uppercase().as_str()) {
                keep -= 1;
            }
            if keep >= 2 && words[keep - 2].eq_ignore_ascii_case("COLLATE") {
                keep -= 2;
            }
            words[..keep].join(" ")
        })
        .collect();
    let rest = sql[close + 1..].trim();
    let filter = rest
        .get(..5)
        .filter(|w| w.eq_ignore_ascii_case("WHERE"))
        .map(|_| rest[5..].trim().to_string())
        .filter(|f| !f.is_empty());
    Some((terms, filter))
}

fn indexes(conn: &Connection, table: &str) -> rusqlite::Result<Vec<Index>> {
    let listed: Vec<(String, bool)> = conn
        .prepare("SELECT name, \"unique\" AS u FROM pragma_index_list(?1) ORDER BY name")?
        .query_map([table], |r| Ok((r.get("name")?, r.get("u")?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut found = Vec::new();
    for (name, unique) in listed {
        let sql: Option<String> = conn
            .query_row("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1", [&name], |r| {
                r.get("sql")
            })
            .optional()?
            .flatten();
        let (terms, filter) = match sql.as_deref().and_then(parse_index) {
            Some(parsed) => parsed,
            // A constraint's own index: plain columns.
            None => (
                conn.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?
                    .query_map([&name], |r| r.get::<_, String>("name"))?
                    .map(|n| n.map(|n| quoted(&n)))
                    .collect::<rusqlite::Result<_>>()?,
                None,
            ),
        };
        found.push(Index { name, unique, terms, filter });
    }
    Ok(found)
}

/// Whether `query` reads the index alone (every value from its entries, none from the table).
fn covering(conn: &Connection, query: &str, index: &str) -> rusqlite::Result<bool> {
    let plan: Vec<String> = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {query}"))?
        .query_map([], |r| r.get("detail"))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(plan.iter().any(|d| d.contains(&format!("USING COVERING INDEX {index}"))))
}

/// The rows a step of rows reads (by rowid).
pub const ROWS_PER_STEP: i64 = 1_000_000;

/// A part of a table's check by sums: each is one sequential read, and a night that ends inside
/// one leaves the parts before it passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The rows whose rowid is in `from..from + ROWS_PER_STEP` read whole (a record SQLite
    /// cannot read is damage), their NOT NULL columns held.
    Rows { from: i64 },
    /// The index's entries against the table's rows.
    Index(String),
    /// A table without rowids: `integrity_check(T)`.
    Whole,
}

impl Step {
    /// The step's name in the round kept beside the backups.
    pub fn key(&self, table: &str) -> String {
        match self {
            Step::Rows { from } => format!("{table}:rows:{from}"),
            Step::Index(index) => format!("{table}:index:{index}"),
            Step::Whole => format!("{table}:whole"),
        }
    }
}

/// The steps of `table`'s check by sums, in order.
pub fn steps(conn: &Connection, table: &str) -> rusqlite::Result<Vec<Step>> {
    let without_rowid: bool = conn.query_row(
        "SELECT sql LIKE '%WITHOUT ROWID%' AS w FROM sqlite_schema WHERE type = 'table' AND name = ?1",
        [table],
        |r| r.get("w"),
    )?;
    if without_rowid {
        return Ok(vec![Step::Whole]);
    }
    // The rows in ranges of rowids: a decade's invoices are ten steps, each a read of a tenth of
    // the table, so that each fits a night even when the disk is shared.
    let (first, last): (i64, i64) = conn.query_row(
        &format!(
            "SELECT COALESCE(MIN(rowid), 0) AS first, COALESCE(MAX(rowid), 0) AS last FROM {}",
            quoted(table)
        ),
        [],
        |r| Ok((r.get("first")?, r.get("last")?)),
    )?;
    let mut steps: Vec<Step> = std::iter::successors(Some(first), |from| {
        from.checked_add(ROWS_PER_STEP).filter(|next| *next <= last)
    })
    .map(|from| Step::Rows { from })
    .collect();
    steps.extend(indexes(conn, table)?.into_iter().map(|i| Step::Index(i.name)));
    Ok(steps)
}

fn report(lines: Vec<String>) -> Option<String> {
    (lines != ["ok"]).then(|| lines.into_iter().take(5).collect::<Vec<_>>().join("; "))
}

fn integrity_check(conn: &Connection, table: &str) -> rusqlite::Result<Option<String>> {
    let lines = conn
        .prepare(&format!("PRAGMA integrity_check('{}')", table.replace('\'', "''")))?
        .query_map([], |r| r.get("integrity_check"))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(report(lines))
}

/// One step of `table`'s check by sums: Ok(None) when it passed, Ok(Some(report)) when it found
/// damage. An index the comparison cannot read alone is checked with `integrity_check(T)`.
pub fn check_step(conn: &Connection, table: &str, step: &Step) -> rusqlite::Result<Option<String>> {
    conn.create_aggregate_function(
        AGGREGATE,
        -1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        Entries,
    )?;
    let found = match step {
        Step::Whole => integrity_check(conn, table),
        Step::Rows { from } => rows(conn, table, *from),
        Step::Index(name) => match indexes(conn, table)?.into_iter().find(|i| &i.name == name) {
            Some(index) => compare(conn, table, &index),
            None => Ok(Some(format!("index {name} of table {table} is gone"))),
        },
    };
    conn.remove_function(AGGREGATE, -1)?;
    found
}

/// The check of `table` by sums, every step: Ok(None) when it passed.
pub fn check(conn: &Connection, table: &str) -> rusqlite::Result<Option<String>> {
    for step in steps(conn, table)? {
        if let Some(damage) = check_step(conn, table, &step)? {
            return Ok(Some(damage));
        }
    }
    Ok(None)
}

fn rows(conn: &Connection, table: &str, from: i64) -> rusqlite::Result<Option<String>> {
    let columns: Vec<(String, bool)> = conn
        .prepare("SELECT name, \"notnull\" AS nn FROM pragma_table_info(?1) ORDER BY cid")?
        .query_map([table], |r| Ok((r.get("name")?, r.get("nn")?)))?
        .collect::<rusqlite::Result<_>>()?;
    let all = columns.iter().map(|(c, _)| quoted(c)).collect::<Vec<_>>().join(", ");
    let nulls = columns
        .iter()
        .filter(|(_, nn)| *nn)
        .map(|(c, _)| format!("({} IS NULL)", quoted(c)))
        .chain(std::iter::once("0".to_string()))
        .collect::<Vec<_>>()
        .join(" + ");
    let (_, held): (String, i64) = conn.query_row(
        &format!(
            "SELECT {AGGREGATE}(rowid, {all}) AS entries, COALESCE(SUM({nulls}), 0) AS held FROM {} NOT INDEXED
             WHERE rowid >= ?1 AND rowid < ?2",
            quoted(table)
        ),
        [from, from.saturating_add(ROWS_PER_STEP)],
        |r| Ok((r.get("entries")?, r.get("held")?)),
    )?;
    Ok((held > 0).then(|| format!("{held} NULL values in NOT NULL columns of table {table}")))
}

fn compare(conn: &Connection, table: &str, index: &Index) -> rusqlite::Result<Option<String>> {
    let (t, i) = (quoted(table), quoted(&index.name));
    let values = format!("{}, rowid", index.terms.join(", "));
    let filter = index.filter.as_deref().map(|f| format!(" WHERE {f}")).unwrap_or_default();
    let in_index = format!("SELECT {AGGREGATE}({values}) AS entries FROM {t} INDEXED BY {i}{filter}");
    if !covering(conn, &in_index, &index.name)? {
        return integrity_check(conn, table);
    }
    let in_table = format!("SELECT {AGGREGATE}({values}) AS entries FROM {t} NOT INDEXED{filter}");
    let (a, b): (String, String) = (
        conn.query_row(&in_index, [], |r| r.get("entries"))?,
        conn.query_row(&in_table, [], |r| r.get("entries"))?,
    );
    if a != b {
        return Ok(Some(format!(
            "index {} does not match table {table} (entries {a}, rows {b})",
            index.name
        )));
    }
    if index.unique {
        let terms = index.terms.join(", ");
        let mut wheres: Vec<String> = index.filter.iter().cloned().collect();
        wheres.extend(index.terms.iter().map(|term| format!("{term} IS NOT NULL")));
        let twice: i64 = conn.query_row(
            &format!(
                "SELECT COUNT(*) AS twice FROM (SELECT 1 FROM {t} INDEXED BY {i} WHERE {} GROUP BY {terms} HAVING COUNT(*) > 1)",
                wheres.join(" AND ")
            ),
            [],
            |r| r.get("twice"),
        )?;
        if twice > 0 {
            return Ok(Some(format!("index {}: {twice} values found twice in a UNIQUE index", index.name)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shop(conn: &Connection) {
        conn.execute_batch(
            "PRAGMA page_size = 512;
             CREATE TABLE inv (id INTEGER PRIMARY KEY, company INTEGER NOT NULL, tcr TEXT, num INTEGER, kind TEXT,
                               code TEXT UNIQUE);
             CREATE UNIQUE INDEX inv_number ON inv(company, COALESCE(tcr, ''), num);
             CREATE INDEX inv_kind ON inv(company, kind COLLATE NOCASE DESC, id) WHERE kind = 'CORRECTIVE';
             CREATE TABLE kept (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;",
        )
        .unwrap();
        for n in 1..=3000 {
            conn.execute(
                "INSERT INTO inv (company, tcr, num, kind, code) VALUES (1, ?1, ?2, ?3, ?4)",
                rusqlite::params![
                    (n % 3 != 0).then_some("ab123ab123"),
                    n,
                    if n % 7 == 0 { "CORRECTIVE" } else { "CASH" },
                    format!("c{n}")
                ],
            )
            .unwrap();
        }
        conn.execute("INSERT INTO kept VALUES ('a', 'b')", []).unwrap();
    }

    #[test]
    fn a_whole_table_and_its_indexes_pass_by_sums() {
        let conn = Connection::open_in_memory().unwrap();
        shop(&conn);
        assert_eq!(check(&conn, "inv").unwrap(), None);
        assert_eq!(check(&conn, "kept").unwrap(), None);
    }

    #[test]
    fn the_rows_are_read_in_steps_of_rowids_that_cover_each_row_once() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (x TEXT NOT NULL); CREATE INDEX t_x ON t(x);
             INSERT INTO t (rowid, x) VALUES (1, 'a'), (999999, 'b'), (1000001, 'c'), (2500000, 'd');",
        )
        .unwrap();
        let steps = steps(&conn, "t").unwrap();
        assert_eq!(
            steps,
            [
                Step::Rows { from: 1 },
                Step::Rows { from: 1_000_001 },
                Step::Rows { from: 2_000_001 },
                Step::Index("t_x".into())
            ]
        );
        for step in &steps {
            assert_eq!(check_step(&conn, "t", step).unwrap(), None, "{step:?}");
        }
    }

    #[test]
    fn an_index_that_differs_from_its_table_is_found_as_integrity_check_finds_it() {
        for (index, change) in [
            ("inv_number", "UPDATE inv SET num = 99999 WHERE id = 1500"),
            ("inv_kind", "UPDATE inv SET kind = 'CORRECTIVE' WHERE id = 701"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("shop.db");
            let conn = Connection::open(&path).unwrap();
            shop(&conn);
            let root: i64 = conn
                .query_row("SELECT rootpage FROM sqlite_schema WHERE name = ?1", [index], |r| {
                    r.get("rootpage")
                })
                .unwrap();
            // The table changed behind the index's back: the index's pages as they were put back.
            let before = std::fs::read(&path).unwrap();
            let pages: Vec<i64> = conn
                .prepare("SELECT pageno FROM dbstat WHERE name = ?1")
                .unwrap()
                .query_map([index], |r| r.get("pageno"))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(pages.contains(&root));
            conn.execute_batch(change).unwrap();
            drop(conn);
            let mut after = std::fs::read(&path).unwrap();
            for page in pages {
                let at = usize::try_from(page - 1).unwrap() * 512;
                after[at..at + 512].copy_from_slice(&before[at..at + 512]);
            }
            std::fs::write(&path, after).unwrap();
            let conn = Connection::open(&path).unwrap();
            let whole: Vec<String> = conn
                .prepare("PRAGMA integrity_check")
                .unwrap()
                .query_map([], |r| r.get("integrity_check"))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert_ne!(whole, ["ok"], "{change}: integrity_check finds it");
            let quick: String = conn.query_row("PRAGMA quick_check", [], |r| r.get("quick_check")).unwrap();
            assert_eq!(quick, "ok", "{change}: the pages are sound, only the sums can find it");
            let found = check(&conn, "inv").unwrap();
            assert!(found.is_some(), "{change}: found by sums");
        }
    }
}
