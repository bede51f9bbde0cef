//! Figures for issue 46's nightly check (`cargo bench --bench night`; it prints, it asserts
//! nothing), over a kept database (`ARKA_BENCH_NIGHT_DB`, default `target/decade/arka.db`, the
//! decade bench's file, opened read-only).
//!
//! By default, the nights as `arka serve` runs them over the night's copy: `backup::night::share`
//! with the night's budget (`NIGHT_BUDGET`), night after night, its round kept in a temporary
//! folder, until a round is whole (at most `ARKA_BENCH_NIGHTS`, default 12): each night's time
//! and what it passed. With `ARKA_BENCH_NIGHT_STEPS=1`, instead: each table's size and, for every
//! table, the time of each step of its check by sums (`backup::sums`: its rows read whole, then
//! each index against the table), the steps a night goes through once a table's whole
//! `integrity_check` does not fit a night; `ARKA_BENCH_NIGHT_TABLES` (comma-separated) names the
//! tables to time, all of them by default.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use arka::backup::night::{self, Night};
use arka::backup::{NIGHT_BUDGET, sums};
use rusqlite::{Connection, OpenFlags};

fn main() {
    let db = std::env::var("ARKA_BENCH_NIGHT_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/decade/arka.db"));
    let bytes = std::fs::metadata(&db).unwrap().len();
    println!("{}: {:.2} GiB", db.display(), bytes as f64 / f64::from(1u32 << 30));
    if std::env::var("ARKA_BENCH_NIGHT_STEPS").is_ok_and(|v| v == "1") {
        steps(&db);
    } else {
        nights(&db);
    }
}

/// The nights of one round, as the server runs them.
fn nights(db: &Path) {
    let most: u32 = std::env::var("ARKA_BENCH_NIGHTS").ok().and_then(|n| n.parse().ok()).unwrap_or(12);
    let folder = tempfile::tempdir().unwrap();
    let all = Instant::now();
    for n in 1..=most {
        let started = Instant::now();
        let night = night::share(db, folder.path(), NIGHT_BUDGET, usize::MAX).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        let check = arka::backup::full_check(folder.path()).unwrap();
        match night {
            Night::Passed { tables, complete } => println!(
                "night {n}: {seconds:.1} s (budget {} s), {} tables passed, the round {}/{}{}",
                NIGHT_BUDGET.as_secs(),
                tables.len(),
                check.round_passed,
                check.round_of,
                if complete { ", whole" } else { "" }
            ),
            Night::Damaged { table, report } => {
                println!("night {n}: {seconds:.1} s, damage in {table}: {report}");
                return;
            }
        }
        if check.last_full_pass.is_some() {
            println!("a whole round in {n} nights, {:.1} s of checking", all.elapsed().as_secs_f64());
            return;
        }
    }
    println!("no whole round in {most} nights ({:.1} s)", all.elapsed().as_secs_f64());
}

/// Each step of the check by sums, timed.
fn steps(db: &Path) {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let tables: Vec<String> = match std::env::var("ARKA_BENCH_NIGHT_TABLES") {
        Ok(named) => named.split(',').map(str::to_string).collect(),
        Err(_) => conn
            .prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                 AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY rowid",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect(),
    };
    let all = Instant::now();
    for table in tables {
        for step in sums::steps(&conn, &table).unwrap() {
            let started = Instant::now();
            let found = sums::check_step(&conn, &table, &step).unwrap();
            println!(
                "{:<60} {:>9.1} s  {}",
                step.key(&table),
                started.elapsed().as_secs_f64(),
                found.as_deref().unwrap_or("ok")
            );
        }
    }
    println!("every step: {:.1} s", all.elapsed().as_secs_f64());
}
