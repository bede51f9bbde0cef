//! Figures for issue 46's nightly check (`cargo bench --bench night`; it prints, it asserts
//! nothing): over a kept database (`ARKA_BENCH_NIGHT_DB`, default `target/decade/arka.db`, the
//! decade bench's file, opened read-only), each table's size in rows and, for every table, the
//! time of each step of its check by sums (`backup::sums`: its rows read whole, then each
//! index against the table), the steps a nightly check goes through once a table's whole
//! `integrity_check` does not fit a night. `ARKA_BENCH_NIGHT_TABLES` (comma-separated) names the
//! tables to time; all of them by default.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::time::Instant;

use arka::backup::sums;
use rusqlite::{Connection, OpenFlags};

fn main() {
    let db = std::env::var("ARKA_BENCH_NIGHT_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/decade/arka.db"));
    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let bytes = std::fs::metadata(&db).unwrap().len();
    println!("{}: {:.2} GiB", db.display(), bytes as f64 / f64::from(1u32 << 30));
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
