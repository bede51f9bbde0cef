//! The nightly check, spread over nights. A full `PRAGMA integrity_check` looks every index entry
//! up against its table; over a decade's 25 GiB it ran past 45 minutes unfinished (its cost is per
//! row, docs/src/records/decade.md). So each night checks the night's copy table by table
//! (`PRAGMA integrity_check(T)`: the table and its indexes) for at most `NIGHT_BUDGET`, going on
//! the next night where it stopped (a table cut short is checked again whole); a round ends when
//! every table has passed, and the owner sees when the last round did. A small shop's round fits
//! one night: every night is a full check, as before. A table whose check does not fit a night
//! (the invoices of a decade) is checked from the next night on by sums (`sums`): its pages and
//! records, then each index against the table by a sequential read of each. What the rounds are
//! is kept beside the backups in `arka-check.json`.

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, ErrorCode, OpenFlags};
use serde::{Deserialize, Serialize};

use crate::domain::backup_files::FullCheck;

/// The time a night's share of the check may take on the night's copy (the copy itself, 146 s at
/// a decade's size, comes first): the night is 30 minutes.
pub const NIGHT_BUDGET: Duration = Duration::from_secs(25 * 60);
const STATE: &str = "arka-check.json";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Round {
    started_ms: i64,
    /// Every table of the database when the round began, in the order they are checked.
    tables: Vec<String>,
    passed: Vec<Passed>,
    last_full_pass_ms: Option<i64>,
    damage: Option<Damage>,
    /// Tables whose `integrity_check(T)` did not fit a night: checked by sums from then on
    /// (`sums`), in this round and the next.
    #[serde(default)]
    by_sums: Vec<String>,
    /// The steps of those tables' checks passed in this round (`sums::Step::key`).
    #[serde(default)]
    steps_passed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Passed {
    table: String,
    at_ms: i64,
    seconds: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Damage {
    table: String,
    at_ms: i64,
    report: String,
}

/// What a night's share found.
#[derive(Debug, Clone, PartialEq)]
pub enum Night {
    /// These tables passed tonight; `complete` when the round is whole.
    Passed {
        tables: Vec<String>,
        complete: bool,
    },
    Damaged {
        table: String,
        report: String,
    },
}

fn load(folder: &Path) -> Round {
    std::fs::read(folder.join(STATE)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

fn save(folder: &Path, round: &Round) -> std::io::Result<()> {
    let partial = folder.join(format!("{STATE}.partial"));
    std::fs::write(&partial, serde_json::to_vec(round).map_err(std::io::Error::other)?)?;
    std::fs::rename(&partial, folder.join(STATE))
}

/// Every table of the database a round checks, in the order it checks them.
pub fn tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    conn.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY rowid",
    )?
    .query_map([], |r| r.get("name"))?
    .collect()
}

/// One table's check: Ok(None) passed, Ok(Some(report)) damaged, Err interrupted or failed.
fn check_table(conn: &Connection, table: &str) -> rusqlite::Result<Option<String>> {
    let pragma = format!("PRAGMA integrity_check('{}')", table.replace('\'', "''"));
    let lines: Vec<String> = conn
        .prepare(&pragma)?
        .query_map([], |r| r.get("integrity_check"))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((lines != ["ok"]).then(|| lines.into_iter().take(5).collect::<Vec<_>>().join("; ")))
}

/// `table`'s check by sums, going on after the steps passed on the nights before.
fn by_sums(conn: &Connection, table: &str, passed: &mut Vec<String>) -> rusqlite::Result<Option<String>> {
    for step in super::sums::steps(conn, table)? {
        let key = step.key(table);
        if passed.contains(&key) {
            continue;
        }
        let started = Instant::now();
        if let Some(damage) = super::sums::check_step(conn, table, &step)? {
            return Ok(Some(damage));
        }
        tracing::info!(step = %key, seconds = started.elapsed().as_secs_f64(), "a step of the nightly check passed");
        passed.push(key);
    }
    Ok(None)
}

/// Tonight's share of the check over `copy`, at most `budget` and `most_tables` tables, its
/// round kept in `folder`.
pub fn share(copy: &Path, folder: &Path, budget: Duration, most_tables: usize) -> rusqlite::Result<Night> {
    let mut conn = Connection::open_with_flags(
        copy,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let deadline = Instant::now() + budget;
    conn.progress_handler(10_000, Some(move || Instant::now() > deadline))?;
    let now = || Utc::now().timestamp_millis();
    let mut round = load(folder);
    let whole =
        !round.tables.is_empty() && round.tables.iter().all(|t| round.passed.iter().any(|p| &p.table == t));
    if round.tables.is_empty() || whole {
        round = Round {
            started_ms: now(),
            tables: tables(&conn)?,
            passed: Vec::new(),
            last_full_pass_ms: round.last_full_pass_ms,
            damage: None,
            by_sums: round.by_sums,
            steps_passed: Vec::new(),
        };
    }
    let mut tonight = Vec::new();
    let pending: Vec<String> =
        round.tables.iter().filter(|t| !round.passed.iter().any(|p| &p.table == *t)).cloned().collect();
    let mut night = None;
    for table in pending.into_iter().take(most_tables) {
        if Instant::now() >= deadline {
            break;
        }
        let started = Instant::now();
        let checked = if round.by_sums.contains(&table) {
            by_sums(&conn, &table, &mut round.steps_passed)
        } else {
            check_table(&conn, &table)
        };
        match checked {
            Ok(None) => {
                round.passed.push(Passed {
                    table: table.clone(),
                    at_ms: now(),
                    seconds: started.elapsed().as_secs_f64(),
                });
                tonight.push(table);
            }
            Ok(Some(report)) => {
                round.damage = Some(Damage { table: table.clone(), at_ms: now(), report: report.clone() });
                night = Some(Night::Damaged { table, report });
                break;
            }
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) => {
                // A table whose whole check the night's end cut short is checked by sums from the
                // next night on: a sequential read of each b-tree, not a lookup a row.
                if !round.by_sums.contains(&table) {
                    tracing::info!(%table, "the table's check does not fit a night: it is checked by sums from the next night");
                    round.by_sums.push(table);
                }
                break;
            }
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
                ) =>
            {
                let report = e.to_string();
                round.damage = Some(Damage { table: table.clone(), at_ms: now(), report: report.clone() });
                night = Some(Night::Damaged { table, report });
                break;
            }
            Err(e) => return Err(e),
        }
    }
    let complete = round.tables.iter().all(|t| round.passed.iter().any(|p| &p.table == t));
    if complete && night.is_none() {
        round.last_full_pass_ms = Some(now());
    }
    if let Err(e) = save(folder, &round) {
        tracing::error!(error = %e, "the nightly check's round could not be saved");
    }
    Ok(night.unwrap_or(Night::Passed { tables: tonight, complete }))
}

/// The round as the owner sees it: when the last full check passed, how far this round is, and
/// damage found (None when no night has checked yet).
pub fn full_check(folder: &Path) -> Option<FullCheck> {
    let round = load(folder);
    if round.tables.is_empty() {
        return None;
    }
    let at = |ms: i64| DateTime::<Utc>::from_timestamp_millis(ms);
    Some(FullCheck {
        last_full_pass: round.last_full_pass_ms.and_then(at),
        round_passed: round.passed.len(),
        round_of: round.tables.len(),
        damage: round.damage.map(|d| (d.table, d.report)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database(path: &Path) {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(
            "CREATE TABLE a (x TEXT); CREATE INDEX a_x ON a(x);
             CREATE TABLE b (y TEXT); CREATE TABLE c (z TEXT);
             INSERT INTO a VALUES ('1'), ('2'); INSERT INTO b VALUES ('3'); INSERT INTO c VALUES ('4');",
        )
        .unwrap();
    }

    #[test]
    fn a_round_spreads_over_nights_and_the_owner_sees_when_it_last_passed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("copy.db");
        database(&copy);
        assert_eq!(full_check(dir.path()), None, "no night yet");
        let hour = Duration::from_secs(3600);
        assert_eq!(
            share(&copy, dir.path(), hour, 2).unwrap(),
            Night::Passed { tables: vec!["a".into(), "b".into()], complete: false }
        );
        let half = full_check(dir.path()).unwrap();
        assert_eq!((half.round_passed, half.round_of, half.last_full_pass), (2, 3, None));
        assert_eq!(
            share(&copy, dir.path(), hour, 2).unwrap(),
            Night::Passed { tables: vec!["c".into()], complete: true }
        );
        let whole = full_check(dir.path()).unwrap();
        assert!(whole.last_full_pass.is_some() && whole.round_passed == 3);
        // The next night begins a new round; the last full pass stays until it is whole again.
        assert_eq!(
            share(&copy, dir.path(), hour, 1).unwrap(),
            Night::Passed { tables: vec!["a".into()], complete: false }
        );
        assert_eq!(full_check(dir.path()).unwrap().last_full_pass, whole.last_full_pass);
        // A night over at once checks nothing and loses nothing.
        assert_eq!(
            share(&copy, dir.path(), Duration::ZERO, 9).unwrap(),
            Night::Passed { tables: vec![], complete: false }
        );
        assert_eq!(full_check(dir.path()).unwrap().round_passed, 1);
    }

    #[test]
    fn a_table_whose_check_does_not_fit_a_night_is_checked_by_sums_the_next_nights() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("copy.db");
        let conn = Connection::open(&copy).unwrap();
        conn.execute_batch(
            "CREATE TABLE big (x TEXT, y TEXT); CREATE INDEX big_x ON big(x); CREATE INDEX big_y ON big(y, x);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
             INSERT INTO big SELECT hex(randomblob(8)), hex(randomblob(8)) FROM n;
             CREATE TABLE small (z TEXT);",
        )
        .unwrap();
        drop(conn);
        // Nights of a few milliseconds, until one is cut short inside the big table's check.
        for _ in 0..200 {
            assert_eq!(
                share(&copy, dir.path(), Duration::from_millis(5), 1).unwrap(),
                Night::Passed { tables: vec![], complete: false }
            );
            if load(dir.path()).by_sums == ["big"] {
                break;
            }
        }
        assert_eq!(load(dir.path()).by_sums, ["big"], "cut short, the table goes to sums");
        // Its steps go on from night to night: one cut short leaves the ones before it passed.
        for night in 1..=400 {
            share(&copy, dir.path(), Duration::from_millis(night), 1).unwrap();
            if !load(dir.path()).steps_passed.is_empty() {
                break;
            }
        }
        assert!(load(dir.path()).steps_passed.contains(&"big:rows:1".to_string()), "{:?}", load(dir.path()));
        assert_eq!(
            share(&copy, dir.path(), Duration::from_secs(3600), usize::MAX).unwrap(),
            Night::Passed { tables: vec!["big".into(), "small".into()], complete: true }
        );
        assert!(full_check(dir.path()).unwrap().last_full_pass.is_some());
    }

    #[test]
    fn a_damaged_table_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("copy.db");
        let conn = Connection::open(&copy).unwrap();
        conn.execute_batch("PRAGMA page_size = 512; CREATE TABLE a (x TEXT); CREATE INDEX a_x ON a(x);")
            .unwrap();
        for i in 0..400 {
            conn.execute("INSERT INTO a VALUES (?1)", [format!("row {i} {}", "v".repeat(40))]).unwrap();
        }
        let root: i64 = conn
            .query_row("SELECT rootpage FROM sqlite_schema WHERE name = 'a_x'", [], |r| r.get("rootpage"))
            .unwrap();
        drop(conn);
        let mut bytes = std::fs::read(&copy).unwrap();
        // The index's entries point at rows that are not there: scrambled keys in its root page.
        let page = usize::try_from(root - 1).unwrap() * 512;
        for b in &mut bytes[page + 100..page + 400] {
            *b = b.wrapping_add(7);
        }
        std::fs::write(&copy, bytes).unwrap();
        match share(&copy, dir.path(), Duration::from_secs(60), 9).unwrap() {
            Night::Damaged { table, report } => assert!(table == "a" && !report.is_empty()),
            other => panic!("the damage was not found: {other:?}"),
        }
        assert!(full_check(dir.path()).unwrap().damage.is_some());
    }
}
