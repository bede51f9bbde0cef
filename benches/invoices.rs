//! Figures for issues 5 and 12: cash invoices issued through HTTP against the CIS simulator
//! (durable commits), and `GET /invoice` over 1,000,000 stored invoices. Everything runs in this
//! process on loopback: a real Arka server (`arka::run`), the simulator, the clients. Run with
//! `cargo bench --bench invoices`; it prints, it asserts nothing.
//!
//! The issue part measures, in the same run and in alternating rounds, the floor of a document
//! on this machine (two RSA-2048 signatures and one durable SQLite commit of a document's size,
//! one after the other as a document meets them, and the same work batched for comparison) and
//! Arka's own time per document (what Arka took for each less its CIS call, both by its
//! `Server-Timing`; beside it the same as the client sees it), then the cases of issue 12: the
//! simulator at full speed with 1 and 16 clients on one TCR, answering after 150 ms with 8 (and
//! 16) clients, and after 3 s with 4 clients and the default `--cis-wait` of 2 s; each printed
//! beside its goal.
//!
//! `ARKA_BENCH_LIST_ROWS` changes how many invoices the list part seeds (default 1,000,000);
//! `ARKA_BENCH_ONLY=issue` or `list` runs one part; with `issue`, `ARKA_BENCH_OWN=1` prints only
//! Arka's own time per document and the floor (20 rounds, about 10 s), and `ARKA_BENCH_SALE=1`
//! only a sale's 1-client p50 and 16-client rate, to compare two builds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use arka::fiscal::certificate::Certificate;
use chrono::{Datelike, NaiveDate, Utc};
use common::{
    NUIS, Server, Sim, agent, get, load_average, ms, open_till, peak_rss_mib, percentile, post_json_timed,
    read, reset_peak_rss, server_args,
};
use rusqlite::{Connection, named_params};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Process figures
// ---------------------------------------------------------------------------------------------

/// CPU time this process has used (user + system, all threads), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which ends with the last ')').
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, r)| r.split_whitespace().collect()).unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; USER_HZ is 100.
    (ticks(11) + ticks(12)) / 100.0
}

// ---------------------------------------------------------------------------------------------
// The simulator, HTTP
// ---------------------------------------------------------------------------------------------

impl Sim {
    /// Each registered invoice's IIC and how many times its message arrived.
    fn deliveries(&self) -> std::collections::HashMap<String, u64> {
        let (_, registered) = read(agent().get(self.control("/control/registered")).call().unwrap());
        registered["invoices"]
            .as_array()
            .map(|all| {
                all.iter()
                    .map(|i| {
                        (
                            i["iic"].as_str().unwrap_or_default().to_uppercase(),
                            i["deliveries"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Issue
// ---------------------------------------------------------------------------------------------

fn cash_body(internal_id: &str) -> Value {
    json!({
        "internalId": internal_id,
        "lines": [
            {"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 2, "price": 120, "total": 240, "vat": 20},
            {"product_name": "Ujë", "product_code": "U1", "unit": "copë", "quantity": 1, "price": 50, "total": 45, "discount": 10, "vat": 6}
        ],
        "payment_method": "BANKNOTE",
    })
}

#[derive(Default)]
struct IssueRun {
    latencies: Vec<Duration>,
    /// Arka's own time of each: what it took less its CIS call (its `Server-Timing`), sorted.
    own: Vec<Duration>,
    /// The same as the client sees it: its wait less Arka's CIS call, sorted.
    own_seen: Vec<Duration>,
    elapsed: Duration,
    /// HTTP 201 with `fic` set.
    fiscalized: usize,
    /// HTTP 503 with the invoice: saved, delivered later.
    deferred: usize,
    /// HTTP 429: the till's lock was not free within 1 s.
    busy: usize,
    /// Anything else, by status.
    other: Vec<(u16, String)>,
    /// The IICs of every invoice answered (fiscalized or deferred).
    iics: Vec<String>,
    /// CPU seconds the whole process used during the run.
    cpu: f64,
}

impl IssueRun {
    fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64()
    }

    fn p50(&self) -> Duration {
        percentile(&self.latencies, 50.0)
    }

    fn max(&self) -> Duration {
        self.latencies.last().copied().unwrap_or_default()
    }
}

/// `clients` threads, each with its own agent (keep-alive), issue cash invoices until `max` are
/// issued in all or `time_limit` has passed.
fn issue_run(
    base: &str,
    token: &str,
    tag: &str,
    clients: usize,
    max: usize,
    time_limit: Duration,
) -> IssueRun {
    let next = Arc::new(AtomicUsize::new(0));
    let cpu_before = cpu_seconds();
    let start = Instant::now();
    let deadline = start + time_limit;
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (next, url, token, tag) =
                (next.clone(), format!("{base}/api/v1/invoice/cash"), token.to_string(), tag.to_string());
            std::thread::spawn(move || {
                let agent = agent();
                let mut run = IssueRun::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= max || Instant::now() >= deadline {
                        break;
                    }
                    let body = cash_body(&format!("{tag}-{c}-{i}"));
                    let sent = Instant::now();
                    let (status, reply, timing) = post_json_timed(&agent, &url, &token, &body);
                    let waited = sent.elapsed();
                    run.latencies.push(waited);
                    if let Some(timing) = timing {
                        run.own.push(timing.app.saturating_sub(timing.cis));
                        run.own_seen.push(waited.saturating_sub(timing.cis));
                    }
                    let invoice = &reply["data"]["invoice"];
                    match status {
                        201 if invoice["fic"].as_str().is_some_and(|f| !f.is_empty()) => run.fiscalized += 1,
                        503 if invoice["iic"].is_string() => run.deferred += 1,
                        429 => run.busy += 1,
                        _ => run
                            .other
                            .push((status, reply["message"].as_str().unwrap_or_default().to_string())),
                    }
                    if let Some(iic) = invoice["iic"].as_str() {
                        run.iics.push(iic.to_uppercase());
                    }
                }
                run
            })
        })
        .collect();
    let mut run = IssueRun::default();
    for worker in workers {
        let part = worker.join().unwrap();
        run.latencies.extend(part.latencies);
        run.own.extend(part.own);
        run.own_seen.extend(part.own_seen);
        run.fiscalized += part.fiscalized;
        run.deferred += part.deferred;
        run.busy += part.busy;
        run.other.extend(part.other);
        run.iics.extend(part.iics);
    }
    run.elapsed = start.elapsed();
    run.cpu = cpu_seconds() - cpu_before;
    run.latencies.sort_unstable();
    run.own.sort_unstable();
    run.own_seen.sort_unstable();
    run
}

fn print_issue(label: &str, run: &IssueRun) {
    let n = run.latencies.len();
    let mut statuses: Vec<String> = Vec::new();
    for (status, message) in run.other.iter().take(3) {
        statuses.push(format!("{status} {message}"));
    }
    println!(
        "issue cash, {label}: {n} invoices in {:.2} s = {:.0} invoices/s; latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; \
         fiscalized (201, fic set) {}/{n}, deferred (503 with the invoice) {}, 429 {}{}; CPU {:.2} ms per invoice \
         (server + simulator + clients); peak RSS {:.1} MiB; load average {}",
        run.elapsed.as_secs_f64(),
        run.rate(),
        ms(run.p50()),
        ms(percentile(&run.latencies, 99.0)),
        ms(run.max()),
        run.fiscalized,
        run.deferred,
        run.busy,
        if statuses.is_empty() { String::new() } else { format!(" (others: {})", statuses.join("; ")) },
        run.cpu * 1000.0 / n.max(1) as f64,
        peak_rss_mib("self"),
        load_average(),
    );
}

/// The sum and count of `arka_cis_latency_seconds` (every CIS call) from GET /metrics.
fn cis_time(base: &str) -> (f64, f64) {
    let mut reply = agent().get(format!("{base}/metrics")).call().unwrap();
    let text = reply.body_mut().read_to_string().unwrap_or_default();
    let value = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.trim().parse::<f64>().ok()))
            .unwrap_or(0.0)
    };
    (value("arka_cis_latency_seconds_sum"), value("arka_cis_latency_seconds_count"))
}

/// The database's size in bytes (pages in use).
fn db_bytes(db: &Path) -> f64 {
    let conn = Connection::open(db).unwrap();
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
    let size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    ((pages - free) * size) as f64
}

/// The floor of one document on this machine: two RSA-2048 signatures (the IIC and the XML
/// signature) and one durable commit (WAL, synchronous=FULL) of a row of a document's size.
#[derive(Clone, Copy)]
struct Floor {
    signature: Duration,
    commit: Duration,
}

impl Floor {
    fn total(&self) -> Duration {
        self.signature * 2 + self.commit
    }
}

/// Measures the floor: a certificate like a shop's, and a database past its log's first
/// checkpoint, as in a server that has been running (the log is then written over in place
/// instead of growing).
struct FloorMeter {
    cert: Certificate,
    /// A connection of its own committing as plain SQLite does when each commit must be on the
    /// disk before it returns (WAL, synchronous=FULL), on a database with Arka's schema.
    conn: Connection,
    row: String,
    rows: usize,
    _dir: tempfile::TempDir,
}

impl FloorMeter {
    fn new(row_bytes: usize) -> FloorMeter {
        let cert =
            Certificate::generate_self_signed(NUIS, "Dyqani Ana", chrono::Duration::days(365)).unwrap();
        let dir = tempfile::Builder::new().prefix("arka-bench-commit-").tempdir().unwrap();
        let path = dir.path().join("arka.db");
        drop(arka::store::Store::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "synchronous", "FULL").unwrap();
        let mut meter = FloorMeter { cert, conn, row: "x".repeat(row_bytes), rows: 0, _dir: dir };
        for _ in 0..800 {
            meter.commit();
        }
        meter
    }

    fn commit(&mut self) -> Duration {
        self.rows += 1;
        let (name, hash) = (format!("{}{}", self.rows, self.row), format!("h{}", self.rows));
        let start = Instant::now();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        arka::store::accounts::insert_partner(&tx, &name, &hash).unwrap();
        tx.commit().unwrap();
        start.elapsed()
    }

    fn sign(&self, input: &str) -> Duration {
        let start = Instant::now();
        self.cert.sign_sha256(input.as_bytes()).unwrap();
        start.elapsed()
    }

    /// The floor as a minimal document meets it: `n` times two signatures then a commit, in
    /// turn. The medians of the signatures and of the commits; also returns the commits' p99.
    fn sample(&mut self, n: u32) -> (Floor, Duration) {
        let (mut signatures, mut commits) = (Vec::new(), Vec::new());
        for i in 0..n {
            signatures.push(self.sign(&iic_input(i, "iic")));
            signatures.push(self.sign(&iic_input(i, "xml")));
            commits.push(self.commit());
        }
        floor_of(signatures, commits)
    }

    /// The same work in two runs, `n` signatures then `n` commits back to back: each commit
    /// then finds a disk that has just flushed, which no document's commit does (it comes after
    /// two signatures at least, and a virtual disk's flush takes longer after an idle moment).
    fn sample_batched(&mut self, n: u32) -> (Floor, Duration) {
        let signatures = (0..n).map(|i| self.sign(&iic_input(i, "batch"))).collect();
        let commits = (0..n).map(|_| self.commit()).collect();
        floor_of(signatures, commits)
    }
}

fn iic_input(i: u32, what: &str) -> String {
    format!("{NUIS}|2026-01-10T10:00:00+01:00|{i}|ab123cd456|ab123ab123|ss123ss123|285.00|{what}")
}

fn floor_of(mut signatures: Vec<Duration>, mut commits: Vec<Duration>) -> (Floor, Duration) {
    signatures.sort_unstable();
    commits.sort_unstable();
    let floor = Floor { signature: percentile(&signatures, 50.0), commit: percentile(&commits, 50.0) };
    (floor, percentile(&commits, 99.0))
}

fn print_floor(meter: &mut FloorMeter, row_bytes: usize) {
    let (floor, commit_p99) = meter.sample(300);
    let (batched, batched_p99) = meter.sample_batched(300);
    println!(
        "floor: as a document meets it (two signatures then a commit, in turn, 300 times): one RSA-2048 signature \
         p50 {:.3} ms; one durable commit of a {row_bytes}-byte row (WAL, synchronous=FULL, after 800 others) p50 \
         {:.3} ms (p99 {:.3} ms); two signatures and a commit: {:.3} ms",
        ms(floor.signature),
        ms(floor.commit),
        ms(commit_p99),
        ms(floor.total()),
    );
    println!(
        "  the same work batched (300 signatures, then 300 commits back to back): signature {:.3} ms, commit {:.3} \
         ms (p99 {:.3} ms); {:.3} ms",
        ms(batched.signature),
        ms(batched.commit),
        ms(batched_p99),
        ms(batched.total()),
    );
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Arka's own time per document and the floor, measured in alternating rounds (the floor, then
/// 100 invoices from 1 client) so that both see the machine at the same speed: on this shared
/// box a signature takes 0.24 ms one minute and 0.34 ms the next. The own time is the median over
/// the documents of the time Arka took for each less its own CIS call, both from its
/// `Server-Timing` (`app`, from the request's head to the answer's, and `cis`); the POS's own side
/// (its JSON, its HTTP client, loopback TCP) is not Arka's, and is shown apart: the median of each
/// wait as the POS sees it, less the CIS call.
struct OwnTime {
    arka: Duration,
    as_the_pos_sees_it: Duration,
    floor: Floor,
    ratio: f64,
    /// The floor and ratio with the floor's work batched (`FloorMeter::sample_batched`), as the
    /// benchmark measured it before, printed beside for comparison.
    floor_batched: Floor,
    ratio_batched: f64,
}

fn own_time_rounds(base: &str, token: &str, meter: &mut FloorMeter, rounds: usize) -> OwnTime {
    let (mut owns, mut seen, mut floors, mut batched_floors, mut ratios, mut batched_ratios) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (floor, _) = meter.sample(100);
        let (batched, _) = meter.sample_batched(100);
        let run = issue_run(base, token, &format!("own{round}"), 1, 100, Duration::from_secs(20));
        // Medians, not means: a busy shared disk adds rare long commits that are not Arka's.
        let own = percentile(&run.own, 50.0).as_secs_f64();
        owns.push(own);
        seen.push(percentile(&run.own_seen, 50.0).as_secs_f64());
        ratios.push(own / floor.total().as_secs_f64());
        batched_ratios.push(own / batched.total().as_secs_f64());
        floors.push(floor);
        batched_floors.push(batched);
    }
    let seconds = |values: Vec<f64>| Duration::from_secs_f64(median(values).max(0.0));
    let medians = |floors: &[Floor]| Floor {
        signature: seconds(floors.iter().map(|f| f.signature.as_secs_f64()).collect()),
        commit: seconds(floors.iter().map(|f| f.commit.as_secs_f64()).collect()),
    };
    OwnTime {
        arka: seconds(owns),
        as_the_pos_sees_it: seconds(seen),
        floor: medians(&floors),
        ratio: median(ratios),
        floor_batched: medians(&batched_floors),
        ratio_batched: median(batched_ratios),
    }
}

/// Waits (up to `limit`) until every invoice in the database has its FIC; returns how many do not.
fn wait_fiscalized(db: &Path, limit: Duration) -> i64 {
    let conn = Connection::open(db).unwrap();
    let deadline = Instant::now() + limit;
    loop {
        let missing: i64 =
            conn.query_row("SELECT COUNT(*) FROM invoices WHERE fic IS NULL", [], |r| r.get(0)).unwrap();
        if missing == 0 || Instant::now() >= deadline {
            return missing;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One row of the goals table.
fn goal(case: &str, goal: &str, measured: String, met: bool) {
    println!("| {case} | {goal} | {measured} | {} |", if met { "met" } else { "NOT met" });
}

fn issue_figures() {
    let sim = Sim::start();
    let dir = tempfile::Builder::new().prefix("arka-bench-issue-").tempdir().unwrap();
    let mut args = server_args(&dir.path().join("data"));
    sim.configure(&mut args);
    args.metrics = true;
    let cis_wait = args.cis_wait.0;
    let server = Server::start(args);
    let token = open_till(&server.base(), &server.db).token;
    let base = server.base();
    // Warm up: connections, certificate cache, statement caches, the day's opening.
    issue_run(&base, &token, "warm", 1, 50, Duration::from_secs(10));
    if std::env::var("ARKA_BENCH_SALE").is_ok() {
        sale_only(&base, &token);
        return;
    }
    let mut meter = FloorMeter::new(6000);
    if std::env::var("ARKA_BENCH_OWN").is_ok() {
        own_time_only(&base, &token, &mut meter);
        return;
    }
    print_floor(&mut meter, 6000);
    let (one, own) = one_client(&base, &token, &mut meter);
    let sixteen = sixteen_clients(&base, &token, &server.db);
    let (slow8, slow16) = slow_simulator(&base, &token, &sim);
    let late = late_simulator(&base, &token, &sim, &server.db);
    println!();
    goals(&Cases { one, own, sixteen, slow8, slow16, late, cis_wait });
    println!();
    drop(server);
    drop(sim);
}

/// Only a sale's two figures, 1 client's p50 and 16 clients' rate, for comparing two builds run
/// one after the other.
fn sale_only(base: &str, token: &str) {
    let one = issue_run(base, token, "s1", 1, 1000, Duration::from_secs(20));
    let sixteen = issue_run(base, token, "s16", 16, 2000, Duration::from_secs(30));
    println!(
        "sale: 1 client p50 {:.3} ms ({:.0}/s); 16 clients {:.0} invoices/s (p50 {:.2} ms); load {}",
        ms(one.p50()),
        one.rate(),
        sixteen.rate(),
        ms(sixteen.p50()),
        load_average(),
    );
}

/// Only the own time and the floor, for comparing two builds run one after the other.
fn own_time_only(base: &str, token: &str, meter: &mut FloorMeter) {
    let own = own_time_rounds(base, token, meter, 20);
    println!(
        "own time {:.3} ms (as the POS sees it {:.3} ms); floor {:.3} ms; ratio {:.3}; floor batched {:.3} ms, \
         ratio {:.3}",
        ms(own.arka),
        ms(own.as_the_pos_sees_it),
        ms(own.floor.total()),
        own.ratio,
        ms(own.floor_batched.total()),
        own.ratio_batched,
    );
}

/// One client at the simulator's full speed, and Arka's own time per document against the floor.
fn one_client(base: &str, token: &str, meter: &mut FloorMeter) -> (IssueRun, OwnTime) {
    reset_peak_rss();
    let (cis_before, calls_before) = cis_time(base);
    let one = issue_run(base, token, "c1", 1, 1000, Duration::from_secs(20));
    let (cis_after, calls_after) = cis_time(base);
    print_issue("simulator at full speed, 1 client (sequential, keep-alive)", &one);
    let calls = calls_after - calls_before;
    println!(
        "  of which the CIS call (sending, the simulator's work on this same CPU, reading and checking its \
         signed answer; measured by Arka): {:.2} ms per document on average ({calls:.0} calls)",
        (cis_after - cis_before) * 1000.0 / calls.max(1.0)
    );
    let own = own_time_rounds(base, token, meter, 10);
    println!(
        "Arka's own time per document (1 client: the median of the time Arka took for each less its CIS call, both \
         by its Server-Timing; medians of 10 rounds of 100 invoices, each after its own measure of the floor) {:.2} \
         ms; as the client sees it (the median of its waits less the CIS call) {:.2} ms; floor {:.2} ms (two signatures {:.2} ms, a \
         commit {:.2} ms); ratio {:.2}; with the floor's work batched {:.2} ms (a commit {:.2} ms), ratio {:.2}",
        ms(own.arka),
        ms(own.as_the_pos_sees_it),
        ms(own.floor.total()),
        ms(own.floor.signature * 2),
        ms(own.floor.commit),
        own.ratio,
        ms(own.floor_batched.total()),
        ms(own.floor_batched.commit),
        own.ratio_batched,
    );
    (one, own)
}

/// Sixteen clients on one TCR at full speed, and what the database grows by.
fn sixteen_clients(base: &str, token: &str, db: &Path) -> IssueRun {
    reset_peak_rss();
    let bytes_before = db_bytes(db);
    let sixteen = issue_run(base, token, "c16", 16, 2000, Duration::from_secs(30));
    let bytes_per_document = (db_bytes(db) - bytes_before) / sixteen.latencies.len().max(1) as f64;
    print_issue("simulator at full speed, 16 clients, one TCR", &sixteen);
    println!(
        "  the database grows {bytes_per_document:.0} bytes per document (rows, indexes, search index, queue entry)"
    );
    sixteen
}

/// Eight and sixteen clients while the simulator answers after 150 ms.
fn slow_simulator(base: &str, token: &str, sim: &Sim) -> (IssueRun, IssueRun) {
    sim.set_mode(json!({"mode": "slow", "delay_ms": 150}));
    let slow8 = issue_run(base, token, "s8", 8, 100_000, Duration::from_secs(15));
    print_issue("simulator answering after 150 ms, 8 clients, one TCR", &slow8);
    let slow16 = issue_run(base, token, "s16", 16, 100_000, Duration::from_secs(15));
    print_issue("simulator answering after 150 ms, 16 clients, one TCR", &slow16);
    (slow8, slow16)
}

/// The case of the simulator answering late, and what became of its documents.
struct Late {
    run: IssueRun,
    without_fic: i64,
    registered_once: usize,
}

/// Four clients while the simulator answers after 3 s (past --cis-wait), then everything
/// fiscalized once it is back.
fn late_simulator(base: &str, token: &str, sim: &Sim, db: &Path) -> Late {
    sim.set_mode(json!({"mode": "slow", "delay_ms": 3000}));
    let late = issue_run(base, token, "late", 4, 100_000, Duration::from_secs(12));
    print_issue("simulator answering after 3 s, 4 clients, --cis-wait 2 s", &late);
    sim.set_mode(json!({"mode": "ok"}));
    let missing = wait_fiscalized(db, Duration::from_secs(60));
    let deliveries = sim.deliveries();
    let once = late.iics.iter().filter(|iic| deliveries.get(*iic) == Some(&1)).count();
    println!(
        "  afterwards: invoices without FIC {missing}; of the {} answered in this case, registered exactly once {once}",
        late.iics.len()
    );
    Late { run: late, without_fic: missing, registered_once: once }
}

/// What `goals` judges.
struct Cases {
    one: IssueRun,
    own: OwnTime,
    sixteen: IssueRun,
    slow8: IssueRun,
    slow16: IssueRun,
    late: Late,
    cis_wait: Duration,
}

/// The goals table.
fn goals(cases: &Cases) {
    let Cases { one, own, sixteen, slow8, slow16, late, cis_wait } = cases;
    let (missing, once) = (late.without_fic, late.registered_once);
    let late = &late.run;
    println!("| Case | Goal | Measured | |");
    println!("| --- | --- | --- | --- |");
    goal(
        "simulator at full speed, 1 client",
        "p50 < 5 ms",
        format!("p50 {:.2} ms", ms(one.p50())),
        one.p50() < Duration::from_millis(5),
    );
    goal(
        "simulator at full speed, 16 clients, one TCR",
        ">= 400 invoices/s, all fiscalized",
        format!("{:.0}/s, {}/{} fiscalized", sixteen.rate(), sixteen.fiscalized, sixteen.latencies.len()),
        sixteen.rate() >= 400.0 && sixteen.fiscalized == sixteen.latencies.len(),
    );
    goal(
        "simulator after 150 ms, 8 clients, one TCR",
        ">= 100 invoices/s, p50 < 250 ms, no 429",
        format!("{:.0}/s, p50 {:.0} ms, {} x 429", slow8.rate(), ms(slow8.p50()), slow8.busy),
        slow8.rate() >= 100.0 && slow8.p50() < Duration::from_millis(250) && slow8.busy == 0,
    );
    goal(
        "(same, 16 clients)",
        "",
        format!("{:.0}/s, p50 {:.0} ms, {} x 429", slow16.rate(), ms(slow16.p50()), slow16.busy),
        slow16.rate() >= 100.0 && slow16.p50() < Duration::from_millis(250) && slow16.busy == 0,
    );
    let budget = *cis_wait + Duration::from_millis(100);
    goal(
        "simulator after 3 s, 4 clients",
        "every answer within --cis-wait + 100 ms; all fiscalized afterwards exactly once",
        format!(
            "max {:.0} ms (budget {:.0} ms); {missing} without FIC; {once}/{} registered once",
            ms(late.max()),
            ms(budget),
            late.iics.len()
        ),
        late.max() <= budget && missing == 0 && once == late.iics.len(),
    );
    goal(
        "Arka's own time per document / floor",
        "<= 2",
        format!(
            "{:.2} ms / {:.2} ms = {:.2} (as the client sees it {:.2} ms; against the floor's work batched {:.2})",
            ms(own.arka),
            ms(own.floor.total()),
            own.ratio,
            ms(own.as_the_pos_sees_it),
            own.ratio_batched,
        ),
        own.ratio <= 2.0,
    );
}

// ---------------------------------------------------------------------------------------------
// 2. List over 1,000,000 invoices
// ---------------------------------------------------------------------------------------------

const FIRST_NAMES: [&str; 40] = [
    "Ana", "Arben", "Besnik", "Blerina", "Dritan", "Elona", "Ermal", "Fatjona", "Genti", "Gentiana", "Ilir",
    "Jonida", "Klodian", "Ledia", "Lorenc", "Marsela", "Mirela", "Ndriçim", "Olsi", "Orjola", "Petrit",
    "Rezarta", "Sokol", "Suela", "Teuta", "Valbona", "Xhensila", "Ylli", "Zamira", "Agron", "Alketa",
    "Bujar", "Dorina", "Endrit", "Flutura", "Gëzim", "Hysen", "Irena", "Klajdi", "Luljeta",
];
const SURNAMES: [&str; 40] = [
    "Hoxha",
    "Shehu",
    "Dervishi",
    "Leka",
    "Gjoka",
    "Kola",
    "Çela",
    "Marku",
    "Basha",
    "Prifti",
    "Dedja",
    "Kelmendi",
    "Berisha",
    "Duka",
    "Muça",
    "Rama",
    "Meta",
    "Topalli",
    "Bregu",
    "Koçi",
    "Lika",
    "Hysa",
    "Zeneli",
    "Mema",
    "Kurti",
    "Pllumi",
    "Malaj",
    "Hasani",
    "Tafa",
    "Bushati",
    "Frashëri",
    "Vlora",
    "Gjika",
    "Ndreu",
    "Osmani",
    "Qosja",
    "Ruci",
    "Sula",
    "Vata",
    "Xhafa",
];

fn buyer_name(i: u64) -> String {
    let n = (i.wrapping_mul(2_654_435_761) >> 7) as usize;
    format!("{} {}", FIRST_NAMES[n % 40], SURNAMES[(n / 40) % 40])
}

/// What was seeded, for the printout.
struct Seeded {
    rows: u64,
    days: i64,
    first: NaiveDate,
    last: NaiveDate,
    seconds: f64,
}

/// `rows` invoices of `company_id`, spread evenly over the `days` days up to today (ids grow
/// with the date, as issuing gives them): 80 % CASH on the till (20 % of them with a named
/// buyer), 20 % NONCASH with a named buyer and NUIS; one payment each, two lines on one in
/// four; all fiscalized, with signatures and verify URLs as long as real ones. One
/// transaction, prepared statements.
fn seed(db: &Path, company_id: i64, unit_id: i64, user_id: i64, tcr: &str, rows: u64, days: i64) {
    let mut conn = Connection::open(db).unwrap();
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    conn.pragma_update(None, "cache_size", -1_000_000).unwrap();
    let today = Utc::now().date_naive();
    let first = today - chrono::Duration::days(days - 1);
    let tx = conn.transaction().unwrap();
    {
        let mut seeder = Seeder::prepare(&tx, (company_id, unit_id, user_id), tcr);
        // Ids above whatever the server already wrote.
        let base_id: i64 =
            tx.query_row("SELECT COALESCE(MAX(id), 0) FROM invoices", [], |r| r.get(0)).unwrap();
        for i in 0..rows {
            let day = first + chrono::Duration::days((i as i64 * days) / rows as i64);
            seeder.invoice(base_id + 1 + i as i64, i, day);
        }
    }
    tx.commit().unwrap();
    // The search index as the server keeps it (V19: written in batches after the documents).
    let tx = conn.transaction().unwrap();
    while arka::store::invoices::index_pending(&tx, 100_000).unwrap() > 0 {}
    tx.commit().unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
}

/// The prepared inserts of `seed` and the numbering so far, per year and kind.
struct Seeder<'t> {
    invoice: rusqlite::Statement<'t>,
    line: rusqlite::Statement<'t>,
    payment: rusqlite::Statement<'t>,
    /// Company, unit and user.
    owner: (i64, i64, i64),
    tcr: &'t str,
    ord_cash: std::collections::HashMap<i32, i64>,
    ord_noncash: std::collections::HashMap<i32, i64>,
}

const PRODUCTS: [(&str, &str, i64); 4] =
    [("Kafe", "K1", 120), ("Ujë", "U1", 50), ("Bukë", "B1", 80), ("Qumësht", "Q1", 140)];

impl<'t> Seeder<'t> {
    fn prepare(tx: &'t rusqlite::Transaction, owner: (i64, i64, i64), tcr: &'t str) -> Seeder<'t> {
        let invoice = tx
            .prepare(
                "INSERT INTO invoices (id, company_id, business_unit_id, user_id, internal_id, year, kind, api_version,
                     tcr_code, ord_num, number, inv_num, issued_at, issue_date, issue_date_time, operator_code,
                     business_unit_code, currency, exchange_rate, gross, net, vat, discount, discount_gross, fee, total,
                     gross_all, net_all, vat_all, discount_all, buyer_name, buyer_id_type, buyer_id_value,
                     buyer_address, buyer_city, buyer_country, reverse_charge, periodic_invoice, iic,
                     iic_signature, header_uuid, fic, verify_url, search_text, created_at)
                 VALUES (:id, :company, :unit, :user, :internal, :year, :kind, 1, :tcr, :ord, :number, :inv_num,
                     :issued_at, :issue_date, :issue_dt, 'op123op123', 'ab123cd456', 'ALL', '1', :gross, :net,
                     :vat, '0', '0', '0', :gross, :gross, :net, :vat, '0', :buyer, :id_type, :id_value, :address,
                     :city, :country, 0, 0, :iic, :iic_sig, :uuid, :fic, :verify, :search, :issued_at)",
            )
            .unwrap();
        let line = tx
            .prepare(
                "INSERT INTO invoice_lines (invoice_id, position, product_name, product_code, unit, quantity, price,
                     total, discount_rate, discount, vat_rate, unit_price_net, net, vat, gross)
                 VALUES (:invoice, :pos, :name, :code, 'copë', :qty, :price, :total, '0', '0', '20', :upn, :net,
                     :vat, :total)",
            )
            .unwrap();
        let payment = tx
            .prepare(
                "INSERT INTO invoice_payments (invoice_id, position, type, amount)
                 VALUES (:invoice, 0, :type, :amount)",
            )
            .unwrap();
        Seeder {
            invoice,
            line,
            payment,
            owner,
            tcr,
            ord_cash: Default::default(),
            ord_noncash: Default::default(),
        }
    }

    /// The `i`th invoice, issued on `day`, with the id `id`.
    fn invoice(&mut self, id: i64, i: u64, day: NaiveDate) {
        let ((company_id, unit_id, user_id), tcr, products) = (self.owner, self.tcr, PRODUCTS);
        let (ord_cash, ord_noncash) = (&mut self.ord_cash, &mut self.ord_noncash);
        let (invoice, line, payment) = (&mut self.invoice, &mut self.line, &mut self.payment);
        let second = (i * 7919) % 36_000 + 8 * 3600;
        let time = format!("{:02}:{:02}:{:02}", second / 3600, (second / 60) % 60, second % 60);
        let year = day.year();
        let noncash = i % 5 == 4;
        let named = noncash || i % 25 == 3;
        let (kind, ord) = if noncash {
            let n = ord_noncash.entry(year).or_insert(0);
            *n += 1;
            ("NONCASH", *n)
        } else {
            let n = ord_cash.entry(year).or_insert(0);
            *n += 1;
            ("CASH", *n)
        };
        let (p1, p2) = (products[(i % 4) as usize], products[((i / 4) % 4) as usize]);
        let (q1, q2) = (1 + i % 3, 1 + (i / 3) % 2);
        let (t1, t2) = (p1.2 * q1 as i64, p2.2 * q2 as i64);
        let gross = t1 + t2;
        let net = gross as f64 / 1.2;
        let (net, vat) = (format!("{net:.2}"), format!("{:.2}", gross as f64 - net));
        let number = format!("{ord}/{year}");
        let buyer = named.then(|| buyer_name(i));
        let nuis = noncash.then(|| format!("L{:08}A", i % 100_000_000));
        let search = [Some(number.clone()), buyer.clone(), nuis.clone()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        let iic = format!("{:032X}", (id as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835));
        let issued_at = format!("{day}T{time}+00:00");
        // As long as the real ones: 512 hex digits of signature, a verify URL with its query.
        let signature = iic.repeat(16);
        let verify = format!(
            "https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify?iic={iic}&tin={NUIS}\
             &crtd={day}T{time}%2B01:00&ord={ord}&bu=ab123cd456&cr={tcr}&sw=ss123ss123&prc={gross}.00"
        );
        invoice
            .execute(named_params! {
                ":id": id, ":company": company_id, ":unit": unit_id, ":user": user_id,
                ":internal": format!("seed-{i}"), ":year": year, ":kind": kind,
                ":tcr": (!noncash).then_some(tcr), ":ord": ord, ":number": number,
                ":inv_num": if noncash { number.clone() } else { format!("{ord}/{year}/{tcr}") },
                ":issued_at": issued_at, ":issue_date": day.to_string(),
                ":issue_dt": format!("{day}T{time}+01:00"), ":gross": gross.to_string(), ":net": net,
                ":vat": vat, ":buyer": buyer, ":id_type": nuis.as_ref().map(|_| "NUIS"), ":id_value": nuis,
                ":address": named.then_some("Rruga e Kavajës 10"), ":city": named.then_some("Tiranë"),
                ":country": named.then_some("ALB"), ":iic": iic, ":iic_sig": signature,
                ":uuid": format!("00000000-0000-4000-8000-{id:012}"),
                ":fic": format!("{id:08x}-0000-4000-8000-000000000000"),
                ":verify": verify,
                ":search": search,
            })
            .unwrap();
        // Lines on one invoice in four keeps the seeding near two minutes.
        let lines = if i.is_multiple_of(4) { 2 } else { 0 };
        for (pos, (p, q, t)) in [(p1, q1, t1), (p2, q2, t2)].into_iter().take(lines).enumerate() {
            let net = t as f64 / 1.2;
            line.execute(named_params! {
                ":invoice": id, ":pos": pos as i64, ":name": p.0, ":code": p.1, ":qty": q.to_string(),
                ":price": p.2.to_string(), ":total": t.to_string(), ":upn": format!("{:.2}", p.2 as f64 / 1.2),
                ":net": format!("{net:.2}"), ":vat": format!("{:.2}", t as f64 - net),
            })
            .unwrap();
        }
        payment
            .execute(named_params! {
                ":invoice": id, ":type": if noncash { "ACCOUNT" } else { "BANKNOTE" },
                ":amount": gross.to_string(),
            })
            .unwrap();
    }
}

fn list_figures() {
    let rows: u64 =
        std::env::var("ARKA_BENCH_LIST_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let days = 730;
    let sim = Sim::start();
    let dir = tempfile::Builder::new().prefix("arka-bench-list-").tempdir().unwrap();
    let mut args = server_args(&dir.path().join("data"));
    sim.configure(&mut args);
    let db = args.data.db_path();
    let server = Server::start(args.clone());
    let token = open_till(&server.base(), &server.db).token;
    drop(server);
    let (company_id, unit_id, user_id, tcr): (i64, i64, i64, String) = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT u.company_id, u.business_unit_id, u.id, u.tcr_code FROM users u WHERE u.operator_code = 'op123op123'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    // In a child process, so the seeding's page cache does not count in the server's peak RSS.
    let started = Instant::now();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .env(
            "ARKA_BENCH_SEED",
            format!("{}|{company_id}|{unit_id}|{user_id}|{tcr}|{rows}|{days}", db.display()),
        )
        .status()
        .unwrap();
    assert!(status.success(), "seeding failed: {status}");
    let today = Utc::now().date_naive();
    let seeded = Seeded {
        rows,
        days,
        first: today - chrono::Duration::days(days - 1),
        last: today,
        seconds: started.elapsed().as_secs_f64(),
    };
    let size_mib = std::fs::metadata(&db).map(|m| m.len() as f64 / (1024.0 * 1024.0)).unwrap_or(0.0);
    println!(
        "list: seeded {} invoices for one company in {:.1} s ({} days {}..{}, ids growing with the date; 80% CASH, \
         20% NONCASH; a named buyer on every NONCASH and 1 in 25 CASH, from 1,600 names; 1 payment each, 2 lines on 1 in 4); \
         database {size_mib:.0} MiB",
        seeded.rows, seeded.seconds, seeded.days, seeded.first, seeded.last
    );
    reset_peak_rss();
    let server = Server::start(args);
    let base = server.base();
    let agent = agent();
    let week_to = seeded.first + chrono::Duration::days(days / 2);
    let week_from = week_to - chrono::Duration::days(6);
    let name = buyer_name(4);
    let query = name.replace(' ', "%20");
    let filters = [
        ("no filter".to_string(), String::new()),
        ("type=CASH".to_string(), "type=CASH".to_string()),
        ("type=NONCASH".to_string(), "type=NONCASH".to_string()),
        (
            format!("fromDate={week_from}&toDate={week_to} (one week, mid-history)"),
            format!("fromDate={week_from}&toDate={week_to}"),
        ),
        (
            "fromDate..toDate, last week".to_string(),
            format!("fromDate={}&toDate={}", seeded.last - chrono::Duration::days(6), seeded.last),
        ),
        (format!("query={name} (a buyer name)"), format!("query={query}")),
        ("query=hoxha (a surname)".to_string(), "query=hoxha".to_string()),
    ];
    for (label, q) in &filters {
        let url = format!("{base}/api/v1/invoice?{q}");
        let (status, first) = get(&agent, &url, &token);
        assert_eq!(status, 200, "{url}: {first}");
        let records = first["data"]["pagination"]["records"].as_i64().unwrap_or(-1);
        let mut latencies = Vec::new();
        let started = Instant::now();
        for _ in 0..200 {
            let sent = Instant::now();
            let (status, _) = get(&agent, &url, &token);
            latencies.push(sent.elapsed());
            assert_eq!(status, 200);
            if started.elapsed() > Duration::from_secs(60) {
                break;
            }
        }
        latencies.sort_unstable();
        println!(
            "list GET /api/v1/invoice {label}: {} calls, p50 {:.2} ms, p99 {:.2} ms ({records} items a page)",
            latencies.len(),
            ms(percentile(&latencies, 50.0)),
            ms(percentile(&latencies, 99.0)),
        );
    }
    println!("list: peak RSS while serving {:.1} MiB", peak_rss_mib("self"));
    drop(server);
    drop(sim);
}

/// The child process of `list_figures`: `ARKA_BENCH_SEED=db|company|unit|user|tcr|rows|days`.
fn seed_child(spec: &str) {
    let parts: Vec<&str> = spec.split('|').collect();
    let int = |i: usize| parts[i].parse::<i64>().unwrap();
    seed(Path::new(parts[0]), int(1), int(2), int(3), parts[4], int(5) as u64, int(6));
}

fn main() {
    if let Ok(spec) = std::env::var("ARKA_BENCH_SEED") {
        seed_child(&spec);
        return;
    }
    println!(
        "machine: {} cores, load average {} at start",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        load_average()
    );
    let only = std::env::var("ARKA_BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "issue" {
        issue_figures();
    }
    if only.is_empty() || only == "list" {
        list_figures();
    }
    println!("load average at the end: {}", load_average());
}
