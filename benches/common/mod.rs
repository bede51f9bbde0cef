//! The shop the benches sell in, set up once for all of them: the CIS simulator and a real Arka
//! server on loopback in the bench's process, a POS's HTTP client, the sandbox company's
//! registration (business unit, certificate, registered TCR, operator code), and the figures'
//! helpers (percentiles, peak RSS, the machine). Each bench compiles this module on its own and
//! uses part of it, hence `dead_code` allowed here.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arka::config::ServeArgs;
use arka::fiscal::certificate::Certificate;
use arka::sim::cis::{self, CisSimHandle, SimConfig};
use chrono::Utc;
use serde_json::{Value, json};

pub const NUIS: &str = "L41323036D";
/// Limits no bench reaches: the figures are Arka's work, not its budgets.
pub const LIMITS: &str = "token=1000000/m;ip=1000000/m;general=1000000/m;fiscal=1000000/m,10000000/h;\
                          registration=1000000/m,10000000/h;reports=1000000/m;print=1000000/m";

/// A number from the environment, or `default`.
pub fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

// ---------------------------------------------------------------------------------------------
// The simulator and the server
// ---------------------------------------------------------------------------------------------

/// The CIS simulator on loopback, on a runtime of one worker of its own.
pub struct Sim {
    runtime: tokio::runtime::Runtime,
    handle: Option<CisSimHandle>,
}

impl Sim {
    pub fn start() -> Sim {
        Sim::start_knowing(Vec::new())
    }

    /// A simulator that knows `tcrs` as registered (a shop's TCRs, registered before it started).
    pub fn start_knowing(tcrs: Vec<cis::KnownTcr>) -> Sim {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let config = SimConfig { strict_iic: false, tcrs };
        let (_, handle) = runtime.block_on(cis::spawn_loopback(config)).unwrap();
        Sim { runtime, handle: Some(handle) }
    }

    pub fn addr(&self) -> SocketAddr {
        self.handle.as_ref().unwrap().addr()
    }

    /// Points a server's settings at this simulator, with the sandbox's software codes.
    pub fn configure(&self, args: &mut ServeArgs) {
        let addr = self.addr();
        args.cis_url = Some(cis::fiscalization_url(addr));
        args.einvoice_url = Some(cis::einvoice_url(addr));
        args.soft_code = Some("ss123ss123".to_string());
        args.maintainer_code = Some("mm123mm123".to_string());
    }

    /// The same settings as `arka serve` flags, for a server run as its own process.
    pub fn flags(&self) -> Vec<String> {
        let addr = self.addr();
        vec![
            format!("--cis-url={}", cis::fiscalization_url(addr)),
            format!("--einvoice-url={}", cis::einvoice_url(addr)),
            "--soft-code=ss123ss123".to_string(),
            "--maintainer-code=mm123mm123".to_string(),
        ]
    }

    /// The simulator's mode (see src/sim/cis/mod.rs): `ok`, or `slow` with `delay_ms`.
    pub fn set_mode(&self, mode: Value) {
        let reply =
            agent().post(self.control("/control")).content_type("application/json").send(mode.to_string());
        assert_eq!(reply.unwrap().status().as_u16(), 200, "the simulator took the mode");
    }

    /// The address of one of the simulator's control routes.
    pub fn control(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr())
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

/// The settings of a bench's server: `data_dir`, limits no bench reaches.
pub fn server_args(data_dir: &Path) -> ServeArgs {
    let mut args = ServeArgs::defaults("127.0.0.1:0".parse().unwrap(), data_dir.to_path_buf());
    args.limits = LIMITS.parse().unwrap();
    args
}

/// A real Arka server (`arka::run`) on 127.0.0.1:0 in this process, on a runtime of two
/// workers; stopped when dropped.
pub struct Server {
    pub address: SocketAddr,
    pub db: PathBuf,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    /// Behind a lock so a server can be shared between the threads selling to it.
    finished: Mutex<mpsc::Receiver<Result<(), String>>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    pub fn start(args: ServeArgs) -> Server {
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
        let server = Server {
            address,
            db,
            shutdown: Some(shutdown),
            finished: Mutex::new(finished),
            thread: Some(thread),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !(key_file.exists()
            && std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok())
        {
            if let Ok(result) = server.finished.lock().unwrap().try_recv() {
                panic!("the server stopped while starting: {result:?}");
            }
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
        server
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.address)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Ok(finished) = self.finished.lock() {
            let _ = finished.recv_timeout(Duration::from_secs(30));
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

/// A POS's HTTP client. Time limits per step rather than one for the whole call: with the
/// latter ureq starts a thread per request to look the host up, a cost of the client (not of
/// Arka) that the figures would otherwise carry.
pub fn agent() -> ureq::Agent {
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

/// An answer's status and JSON body (null when it is not JSON).
pub fn read(mut response: ureq::http::Response<ureq::Body>) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.body_mut().with_config().limit(64 * 1024 * 1024).read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// The POST of `body` as JSON with `token`, not yet read.
pub fn send_json(
    agent: &ureq::Agent,
    url: &str,
    token: &str,
    body: &Value,
) -> ureq::http::Response<ureq::Body> {
    agent
        .post(url)
        .header("Authorization", format!("Bearer {token}"))
        .content_type("application/json")
        .send(body.to_string().as_bytes())
        .unwrap_or_else(|e| panic!("POST {url}: {e}"))
}

/// What an answer's `Server-Timing` says: the time Arka took (`app`) and, of it, the time its CIS
/// call took (`cis`, zero when it made none).
#[derive(Clone, Copy)]
pub struct ServerTiming {
    pub app: Duration,
    pub cis: Duration,
}

impl ServerTiming {
    pub fn parse(header: &str) -> Option<ServerTiming> {
        let metric = |name: &str| {
            header
                .split(", ")
                .find_map(|m| m.strip_prefix(name))
                .and_then(|ms| ms.parse::<f64>().ok())
                .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        };
        Some(ServerTiming { app: metric("app;dur=")?, cis: metric("cis;dur=").unwrap_or_default() })
    }
}

/// `post_json`, with the times Arka says it took (its `Server-Timing`).
pub fn post_json_timed(
    agent: &ureq::Agent,
    url: &str,
    token: &str,
    body: &Value,
) -> (u16, Value, Option<ServerTiming>) {
    let response = send_json(agent, url, token, body);
    let timing =
        response.headers().get("server-timing").and_then(|v| v.to_str().ok()).and_then(ServerTiming::parse);
    let (status, reply) = read(response);
    (status, reply, timing)
}

pub fn post_json(agent: &ureq::Agent, url: &str, token: &str, body: &Value) -> (u16, Value) {
    read(send_json(agent, url, token, body))
}

pub fn get(agent: &ureq::Agent, url: &str, token: &str) -> (u16, Value) {
    read(
        agent
            .get(url)
            .header("Authorization", format!("Bearer {token}"))
            .call()
            .unwrap_or_else(|e| panic!("GET {url}: {e}")),
    )
}

/// The answer's `data`, once its status is `status`.
pub fn expect(what: &str, reply: (u16, Value), status: u16) -> Value {
    assert_eq!(reply.0, status, "{what}: {}", reply.1);
    reply.1["data"].clone()
}

// ---------------------------------------------------------------------------------------------
// The shop
// ---------------------------------------------------------------------------------------------

fn upload_certificate(agent: &ureq::Agent, base: &str, token: &str) {
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
    let reply = agent
        .post(format!("{base}/api/v1/on-boarding/certificate"))
        .header("Authorization", format!("Bearer {token}"))
        .content_type(format!("multipart/form-data; boundary={BOUNDARY}"))
        .send(&multipart[..])
        .unwrap();
    expect("certificate", read(reply), 201);
}

/// The shop as opened: the owner's token and the ids on-boarding gave.
pub struct Till {
    pub token: String,
    pub company_id: i64,
    pub branch_id: i64,
    pub user_id: i64,
}

/// Opens the shop of the server at `base` (its database `db`), as tests/api/invoices.rs sets one
/// up: a partner, the company, a business unit code, a certificate, one registered TCR ("Kasa 1")
/// and the owner's operator code.
pub fn open_till(base: &str, db: &Path) -> Till {
    let agent = agent();
    let store = arka::store::Store::open(db).unwrap();
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
    let company_id = shop["company"]["id"].as_i64().unwrap();
    let user_id = shop["user"]["id"].as_i64().unwrap();
    let branch = json!({
        "name": "Qendër", "businessUnitCode": "ab123cd456", "administrator": "Ana Hoxha",
        "address": "Rruga Myslym Shyri 5", "city": "Tiranë",
    });
    let url = format!("{base}/api/v1/on-boarding/branch/{branch_id}");
    expect("branch", post_json(&agent, &url, &token, &branch), 200);
    upload_certificate(&agent, base, &token);
    add_till(base, &token, branch_id, "Kasa 1");
    let url = format!("{base}/api/v1/on-boarding/user/{user_id}");
    expect("operator code", post_json(&agent, &url, &token, &json!({"operatorCode": "op123op123"})), 200);
    Till { token, company_id, branch_id, user_id }
}

/// Registers one more TCR of the branch; returns its answer's `data`.
pub fn add_till(base: &str, token: &str, branch_id: i64, name: &str) -> Value {
    let device =
        json!({"branchId": branch_id, "name": name, "fromDate": Utc::now().date_naive().to_string()});
    let url = format!("{base}/api/v1/on-boarding/fiscal-device");
    expect("fiscal device", post_json(&agent(), &url, token, &device), 201)
}

// ---------------------------------------------------------------------------------------------
// Figures
// ---------------------------------------------------------------------------------------------

/// The `p`th percentile (0-100) of `sorted`; zero when there is none.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Peak resident set of process `pid` ("self" for this one), in MiB, from its VmHWM.
pub fn peak_rss_mib(pid: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Starts a new peak-RSS window of this process (Linux: writing 5 to clear_refs resets VmHWM to
/// the current RSS).
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Cores, CPU model, and the disk the temporary directory is on.
pub fn machine() -> String {
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

/// `clients` POS selling `receipt`s (made from an internal id) for `limit`; the time of every
/// sale answered with its receipt (sorted; a busy till's 429 is tried again, any other answer is
/// printed) and the run's length.
pub fn sell(
    base: &str,
    token: &str,
    tag: &str,
    clients: usize,
    limit: Duration,
    receipt: fn(&str) -> Value,
) -> (Vec<Duration>, Duration) {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (next, url, token, tag) =
                (next.clone(), format!("{base}/api/v1/invoice/cash"), token.to_string(), tag.to_string());
            std::thread::spawn(move || {
                let agent = agent();
                let mut times = Vec::new();
                while started.elapsed() < limit {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let sent = Instant::now();
                    let (status, reply) =
                        post_json(&agent, &url, &token, &receipt(&format!("{tag}-{c}-{i}")));
                    match status {
                        201 | 503 => times.push(sent.elapsed()),
                        429 => {}
                        _ => eprintln!("  a sale was answered {status}: {}", reply["message"]),
                    }
                }
                times
            })
        })
        .collect();
    let mut times: Vec<Duration> = workers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    let elapsed = started.elapsed();
    times.sort_unstable();
    (times, elapsed)
}
