//! Figures for issue 34: what a receipt costs the disk. A real Arka server (`arka::run`, one TCR)
//! and the CIS simulator in this process, POS clients on loopback selling cash receipts, then:
//! bytes per receipt (database and WAL after a checkpoint, less the database as it was before the
//! sales; per table and index from SQLite's `dbstat`), the same for ten-line receipts, and bytes
//! written per receipt (`/proc/self/io` `write_bytes` over the run: the simulator and the clients
//! keep nothing on disk, so it is the server's; and the WAL frames the server's writer appended,
//! from its `arka_wal_frames_total`). Run with `cargo bench --bench storage`; it prints, it
//! asserts nothing.
//!
//! `ARKA_BENCH_RECEIPTS` (default 4,000) bounds the receipts of each part, `ARKA_BENCH_SECONDS`
//! (default 25) its time, `ARKA_BENCH_CLIENTS` (default 16) the POS selling at once.
//! `ARKA_BENCH_PAGE_SIZE` makes each new database with that page size before the server opens it
//! (to compare page sizes; a server converts a database to its own page size when it opens it).
//! `ARKA_BENCH_KEEP=DIR` copies each part's database there (`one-line.db`, `ten-line.db`) for a
//! look with `sqlite3` and `dbstat`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Server, Sim, agent, machine, open_till, post_json, server_args, setting};
use rusqlite::Connection;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Selling
// ---------------------------------------------------------------------------------------------

/// A cash receipt of `lines` lines, each a product of its own.
fn receipt(internal_id: &str, lines: usize) -> Value {
    let lines: Vec<Value> = (0..lines)
        .map(|l| {
            json!({"product_name": format!("Kafe {l}"), "product_code": format!("K{l}"), "unit": "copë",
                   "quantity": 2, "price": 120, "total": 240, "vat": 20})
        })
        .collect();
    json!({"internalId": internal_id, "lines": lines, "payment_method": "BANKNOTE"})
}

/// `clients` POS sell receipts of `lines` lines until `max` are answered in all or `limit` has
/// passed; returns how many were answered with the receipt (201 fiscalized or 503 saved).
fn sell(
    base: &str,
    token: &str,
    tag: &str,
    lines: usize,
    clients: usize,
    max: usize,
    limit: Duration,
) -> usize {
    let next = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + limit;
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (next, url, token, tag) =
                (next.clone(), format!("{base}/api/v1/invoice/cash"), token.to_string(), tag.to_string());
            std::thread::spawn(move || {
                let agent = agent();
                let mut kept = 0;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= max || Instant::now() >= deadline {
                        return kept;
                    }
                    let (status, reply) =
                        post_json(&agent, &url, &token, &receipt(&format!("{tag}-{c}-{i}"), lines));
                    if matches!(status, 201 | 503) && reply["data"]["invoice"]["iic"].is_string() {
                        kept += 1;
                    }
                }
            })
        })
        .collect();
    workers.into_iter().map(|w| w.join().unwrap()).sum()
}

/// Waits (bounded) until every sale's queue entry has been delivered.
fn wait_delivered(db: &Path, limit: Duration) -> i64 {
    let conn = Connection::open(db).unwrap();
    let deadline = Instant::now() + limit;
    loop {
        let open: i64 = conn
            .query_row("SELECT COUNT(*) FROM fiscal_queue WHERE status IN ('waiting', 'sending')", [], |r| {
                r.get(0)
            })
            .unwrap();
        if open == 0 || Instant::now() >= deadline {
            return open;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ---------------------------------------------------------------------------------------------
// What the disk holds and what was written
// ---------------------------------------------------------------------------------------------

/// Bytes this process has caused to be written to the disk so far (`/proc/self/io`).
fn write_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("write_bytes:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The frames the server's writer has appended to the WAL, from its metrics.
fn wal_frames(base: &str) -> u64 {
    let mut reply = agent().get(format!("{base}/metrics")).call().unwrap();
    let text = reply.body_mut().read_to_string().unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("arka_wal_frames "))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map_or(0, |v| v as u64)
}

/// The database at rest: file and WAL after a checkpoint, and bytes per table and index.
struct Footprint {
    file: u64,
    page_size: u64,
    by_name: BTreeMap<String, u64>,
}

fn footprint(db: &Path) -> Footprint {
    let conn = Connection::open(db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    let page_size: u64 = conn.query_row("PRAGMA page_size", [], |r| r.get::<_, i64>(0)).unwrap() as u64;
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let file = std::fs::metadata(db).unwrap().len() + std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    let by_name = match conn.prepare("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name") {
        Ok(mut stmt) => stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap(),
        Err(e) => {
            println!("  (no dbstat in this SQLite: {e}; the file's size only)");
            BTreeMap::new()
        }
    };
    Footprint { file, page_size, by_name }
}

// ---------------------------------------------------------------------------------------------
// One part: a fresh shop, a run, its figures
// ---------------------------------------------------------------------------------------------

struct Part {
    receipts: usize,
    elapsed: Duration,
    written: u64,
    frames: u64,
    before: Footprint,
    after: Footprint,
}

fn run_part(lines: usize, clients: usize, max: usize, limit: Duration) -> Part {
    let sim = Sim::start();
    let dir = tempfile::Builder::new().prefix("arka-bench-storage-").tempdir().unwrap();
    let data = dir.path().join("data");
    if let Ok(size) = std::env::var("ARKA_BENCH_PAGE_SIZE") {
        std::fs::create_dir_all(&data).unwrap();
        let conn = Connection::open(data.join("arka.db")).unwrap();
        conn.pragma_update(None, "page_size", size.parse::<i64>().unwrap()).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    }
    let mut args = server_args(&data);
    sim.configure(&mut args);
    args.metrics = true;
    let server = Server::start(args);
    let base = server.base();
    let token = open_till(&base, &server.db).token;
    // The day's opening and the first receipt's one-time rows are not the cost of a receipt.
    sell(&base, &token, "warm", lines, 1, 1, Duration::from_secs(30));
    wait_delivered(&server.db, Duration::from_secs(30));
    let before = footprint(&server.db);
    let (written_before, frames_before) = (write_bytes(), wal_frames(&base));
    let start = Instant::now();
    let receipts = sell(&base, &token, "sale", lines, clients, max, limit);
    let open = wait_delivered(&server.db, Duration::from_secs(120));
    let elapsed = start.elapsed();
    let (written, frames) = (write_bytes() - written_before, wal_frames(&base) - frames_before);
    if open > 0 {
        println!("  ({open} receipts were still on their way to the CIS when the run was measured)");
    }
    let db = server.db.clone();
    drop(server);
    let after = footprint(&db);
    if let Ok(keep) = std::env::var("ARKA_BENCH_KEEP") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(
            &db,
            Path::new(&keep).join(format!("{}.db", if lines == 1 { "one-line" } else { "ten-line" })),
        )
        .unwrap();
    }
    Part { receipts, elapsed, written, frames, before, after }
}

fn kb(bytes: f64) -> String {
    format!("{:.2} KB", bytes / 1000.0)
}

fn print_part(label: &str, part: &Part) {
    let n = part.receipts.max(1) as f64;
    let grown = part.after.file.saturating_sub(part.before.file) as f64;
    println!(
        "{label}: {} receipts in {:.1} s; database + WAL after a checkpoint {:.1} MB ({:.1} MB before the sales), \
         page size {} B\n  bytes per receipt: {} (the file's growth over the receipts)\n  written per receipt: {} \
         (write_bytes), {:.1} WAL frames = {} of frames",
        part.receipts,
        part.elapsed.as_secs_f64(),
        part.after.file as f64 / 1e6,
        part.before.file as f64 / 1e6,
        part.after.page_size,
        kb(grown / n),
        kb(part.written as f64 / n),
        part.frames as f64 / n,
        kb(part.frames as f64 * (part.after.page_size as f64 + 24.0) / n),
    );
    let mut rows: Vec<(String, f64)> = part
        .after
        .by_name
        .iter()
        .map(|(name, bytes)| {
            (name.clone(), bytes.saturating_sub(*part.before.by_name.get(name).unwrap_or(&0)) as f64 / n)
        })
        .filter(|(_, per)| *per > 0.0)
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!("  | table or index | bytes per receipt |\n  |---|---:|");
    for (name, per) in rows {
        println!("  | {name} | {per:.0} |");
    }
}

fn main() {
    let max = setting("ARKA_BENCH_RECEIPTS", 4000) as usize;
    let limit = Duration::from_secs(setting("ARKA_BENCH_SECONDS", 25));
    let clients = setting("ARKA_BENCH_CLIENTS", 16) as usize;
    println!("machine: {}", machine());
    println!("{clients} POS on one TCR, at most {max} receipts or {} s per part", limit.as_secs());
    let one = run_part(1, clients, max, limit);
    print_part("one-line cash receipts", &one);
    let ten = run_part(10, clients, max, limit);
    print_part("ten-line cash receipts", &ten);
}
