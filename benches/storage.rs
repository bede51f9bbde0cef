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
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arka::config::ServeArgs;
use arka::fiscal::certificate::Certificate;
use arka::sim::cis::{self, CisSimHandle, SimConfig};
use chrono::Utc;
use rusqlite::Connection;
use serde_json::{Value, json};

const NUIS: &str = "L41323036D";
const LIMITS: &str = "token=1000000/m;ip=1000000/m;general=1000000/m;fiscal=1000000/m,10000000/h;\
                      registration=1000000/m,10000000/h";

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

// ---------------------------------------------------------------------------------------------
// The simulator and the server
// ---------------------------------------------------------------------------------------------

struct Sim {
    runtime: tokio::runtime::Runtime,
    handle: Option<CisSimHandle>,
}

impl Sim {
    fn start() -> Sim {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let config = SimConfig { strict_iic: false, tcrs: Vec::new() };
        let (_, handle) = runtime.block_on(cis::spawn_loopback(config)).unwrap();
        Sim { runtime, handle: Some(handle) }
    }

    fn configure(&self, args: &mut ServeArgs) {
        let addr = self.handle.as_ref().unwrap().addr();
        args.cis_url = Some(cis::fiscalization_url(addr));
        args.einvoice_url = Some(cis::einvoice_url(addr));
        args.soft_code = Some("ss123ss123".to_string());
        args.maintainer_code = Some("mm123mm123".to_string());
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = self
                .runtime
                .block_on(async { tokio::time::timeout(Duration::from_secs(5), handle.stop()).await });
        }
    }
}

/// A real Arka server on 127.0.0.1:0 in this process, on a runtime of two workers.
struct Server {
    address: SocketAddr,
    db: PathBuf,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    finished: mpsc::Receiver<Result<(), String>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start(args: ServeArgs) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap();
        let mut args = args;
        args.listen = address;
        let key_file = args.data.data_dir.join("arka.key");
        let db = args.data.db_path();
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let (done, finished) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            let result = runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?;
                arka::run(args, listener, async move {
                    let _ = stop.await;
                })
                .await
                .map_err(|e| e.to_string())
            });
            runtime.shutdown_timeout(Duration::from_secs(5));
            let _ = done.send(result);
        });
        let server = Server { address, db, shutdown: Some(shutdown), finished, thread: Some(thread) };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !(key_file.exists()
            && std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok())
        {
            if let Ok(result) = server.finished.try_recv() {
                panic!("the server stopped while starting: {result:?}");
            }
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
        server
    }

    fn base(&self) -> String {
        format!("http://{}", self.address)
    }

    fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        let _ = self.finished.recv_timeout(Duration::from_secs(30));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

fn agent() -> ureq::Agent {
    let limit = Some(Duration::from_secs(60));
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(limit)
        .timeout_send_request(limit)
        .timeout_send_body(limit)
        .timeout_recv_response(limit)
        .timeout_recv_body(limit)
        .build()
        .new_agent()
}

fn read(mut response: ureq::http::Response<ureq::Body>) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn post_json(agent: &ureq::Agent, url: &str, token: &str, body: &Value) -> (u16, Value) {
    read(
        agent
            .post(url)
            .header("Authorization", format!("Bearer {token}"))
            .content_type("application/json")
            .send(body.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("POST {url}: {e}")),
    )
}

fn expect(what: &str, reply: (u16, Value), status: u16) -> Value {
    assert_eq!(reply.0, status, "{what}: {}", reply.1);
    reply.1["data"].clone()
}

fn upload_certificate(base: &str, token: &str) {
    let p12 = Certificate::generate_self_signed(NUIS, "Dyqani Ana", chrono::Duration::days(365))
        .unwrap()
        .to_p12("pw")
        .unwrap();
    const BOUNDARY: &str = "arka-bench-boundary-5f1c0e7a";
    let mut multipart = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"certificate_file\"; filename=\"c.p12\"\r\n\
         Content-Type: application/x-pkcs12\r\n\r\n"
    )
    .into_bytes();
    multipart.extend_from_slice(&p12);
    multipart.extend_from_slice(
        format!("\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\npw\r\n--{BOUNDARY}--\r\n")
            .as_bytes(),
    );
    let reply = agent()
        .post(format!("{base}/api/v1/on-boarding/certificate"))
        .header("Authorization", format!("Bearer {token}"))
        .content_type(format!("multipart/form-data; boundary={BOUNDARY}"))
        .send(&multipart[..])
        .unwrap();
    expect("certificate", read(reply), 201);
}

/// A shop with a business unit code, a certificate, one registered till and an operator code;
/// returns the user's token.
fn open_till(server: &Server) -> String {
    let base = server.base();
    let agent = agent();
    let store = arka::store::Store::open(&server.db).unwrap();
    let partner = arka::ops::secrets::new_token("p").unwrap();
    let hash = arka::ops::secrets::hash_token(&partner);
    store.write_blocking(|tx| arka::store::accounts::insert_partner(tx, "bench", &hash)).unwrap();
    drop(store);
    let body = json!({
        "nuis": NUIS, "name": "Dyqani Ana sh.p.k.", "address": "Rruga e Durrësit 12, Tiranë",
        "administrator": "Ana Hoxha", "phone": "+355 69 123 4567", "email": "ana@dyqani.al",
        "issuerInVat": true, "lastNonCashEInvoiceNumber": 0,
    });
    let shop =
        expect("register", post_json(&agent, &format!("{base}/api/v1/register"), &partner, &body), 201);
    let token = shop["api_token"].as_str().unwrap().to_string();
    let branch_id = shop["branch"]["id"].as_i64().unwrap();
    let user_id = shop["user"]["id"].as_i64().unwrap();
    let branch = json!({
        "name": "Qendër", "businessUnitCode": "ab123cd456", "administrator": "Ana Hoxha",
        "address": "Rruga Myslym Shyri 5", "city": "Tiranë",
    });
    let url = format!("{base}/api/v1/on-boarding/branch/{branch_id}");
    expect("branch", post_json(&agent, &url, &token, &branch), 200);
    upload_certificate(&base, &token);
    let device =
        json!({"branchId": branch_id, "name": "Kasa 1", "fromDate": Utc::now().date_naive().to_string()});
    let url = format!("{base}/api/v1/on-boarding/fiscal-device");
    expect("fiscal device", post_json(&agent, &url, &token, &device), 201);
    let url = format!("{base}/api/v1/on-boarding/user/{user_id}");
    expect("operator code", post_json(&agent, &url, &token, &json!({"operatorCode": "op123op123"})), 200);
    token
}

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
    let mut args = ServeArgs::defaults("127.0.0.1:0".parse().unwrap(), data);
    args.limits = LIMITS.parse().unwrap();
    sim.configure(&mut args);
    args.metrics = true;
    let server = Server::start(args);
    let token = open_till(&server);
    let base = server.base();
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
    server.stop();
    let after = footprint(&db);
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

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name").map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let tmp = std::env::temp_dir();
    let disk = std::fs::read_to_string("/proc/mounts")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() > 2 && tmp.starts_with(f[1]))
                .then(|| (f[1].len(), format!("{} ({}) on {}", f[0], f[2], f[1])))
        })
        .max()
        .map(|(_, d)| d)
        .unwrap_or_default();
    format!("{cores} cores, {cpu}; data on {disk}")
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
