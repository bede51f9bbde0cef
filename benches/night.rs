//! Figures for issue 46's nightly check (`cargo bench --bench night`; it prints, it asserts
//! nothing), over a kept database (`ARKA_BENCH_NIGHT_DB`, default `target/decade/arka.db`, the
//! decade bench's file, opened read-only).
//!
//! By default, the nights as `arka serve` runs them over the night's copy: `backup::night::share`
//! with the night's budget (`NIGHT_BUDGET`), night after night, its round kept in a temporary
//! folder, until a round is whole (at most `ARKA_BENCH_NIGHTS`, default 12): each night's time
//! and what it passed. With `ARKA_BENCH_NIGHT_BACKUP_DIR` (a folder on a disk with room for a
//! copy of the file), each night is the nightly job itself, `backup::automatic`: the copy, then
//! its share of the check, timed together (the file's folder is the data dir, its key beside it);
//! the night's copy is removed after it, to leave room for the next. With `ARKA_BENCH_NIGHT_STEPS=1`, instead: each table's size and, for every
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
    let backups = std::env::var_os("ARKA_BENCH_NIGHT_BACKUP_DIR").map(PathBuf::from);
    let scratch = tempfile::tempdir().unwrap();
    let folder = backups.clone().unwrap_or_else(|| scratch.path().to_path_buf());
    let all = Instant::now();
    for n in 1..=most {
        let started = Instant::now();
        let night = match &backups {
            Some(dir) => nightly_job(db, dir),
            None => night::share(db, &folder, NIGHT_BUDGET, usize::MAX).unwrap(),
        };
        let seconds = started.elapsed().as_secs_f64();
        if let Night::Damaged { table, report } = night {
            println!("night {n}: {seconds:.1} s, damage in {table}: {report}");
            return;
        }
        let check = arka::backup::full_check(&folder).unwrap();
        println!(
            "night {n}: {seconds:.1} s (the check's budget {} s), the round's tables passed {}/{}",
            NIGHT_BUDGET.as_secs(),
            check.round_passed,
            check.round_of,
        );
        if check.last_full_pass.is_some() {
            println!("a whole round in {n} nights, {:.1} s of checking", all.elapsed().as_secs_f64());
            return;
        }
    }
    println!("no whole round in {most} nights ({:.1} s)", all.elapsed().as_secs_f64());
}

/// The nightly job over the data dir holding `db`: the copy into `dir` and its share of the
/// check (damage is the job's error). The copy is removed afterwards.
fn nightly_job(db: &Path, dir: &Path) -> Night {
    use arka::backup::{Error, Occasion};
    let schedule = arka::config::BackupSchedule {
        backup_dir: Some(dir.to_path_buf()),
        backup_keep: 1,
        ..arka::config::BackupSchedule::default()
    };
    let copied = Instant::now();
    match arka::backup::automatic(db.parent().unwrap(), &schedule, Occasion::Nightly) {
        Ok(Some(made)) => {
            println!(
                "  the night's copy and its share: {:.1} s, {:.2} GiB",
                copied.elapsed().as_secs_f64(),
                made.bytes as f64 / f64::from(1u32 << 30)
            );
            std::fs::remove_file(&made.db).unwrap();
            let _ = std::fs::remove_file(&made.key);
            Night::Passed { tables: Vec::new(), complete: false }
        }
        Err(Error::Damaged(copy, report)) => Night::Damaged { table: copy.display().to_string(), report },
        other => panic!("the nightly job: {other:?}"),
    }
}

/// Each step of the check by sums, timed.
fn steps(db: &Path) {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let tables: Vec<String> = match std::env::var("ARKA_BENCH_NIGHT_TABLES") {
        Ok(named) => named.split(',').map(str::to_string).collect(),
        Err(_) => night::tables(&conn).unwrap(),
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
