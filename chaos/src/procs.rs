//! The real binaries as child processes on loopback: `arka serve` and `arka cis-sim`. Each is a
//! guard: dropped (a trial's end, an error, a panic), it kills its process and waits for it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Error;
use super::client::{Client, Sent};
use super::shop::ROOMY_LIMITS;

/// How long a child may take to start and answer.
const START_WAIT: Duration = Duration::from_secs(30);

/// The software codes the campaign's servers use (any well-formed code does for the simulator).
pub const SOFT_CODE: &str = "ss123ss123";
pub const MAINTAINER_CODE: &str = "mm123mm123";

/// A loopback URL nobody listens on: the exchange-rate sources and Wolt, so nothing leaves the box.
const NOWHERE: &str = "http://127.0.0.1:9";

/// A child process, killed when dropped.
struct Guarded {
    child: Child,
}

impl Guarded {
    fn kill(&mut self) {
        // SIGKILL on unix: no chance to flush or finish anything.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `command` with stdout piped and waits for the line `... on http://ADDR`; returns the
/// guarded child and the URL.
fn start_printing_address(mut command: Command, log: &Path) -> Result<(Guarded, String), Error> {
    for (key, _) in std::env::vars() {
        if key.starts_with("ARKA_") {
            command.env_remove(key);
        }
    }
    command.env("NO_COLOR", "1");
    command.stdout(Stdio::piped()).stderr(std::fs::File::create(log)?).stdin(Stdio::null());
    let mut child = Guarded { child: command.spawn()? };
    let stdout =
        child.child.stdout.take().ok_or_else(|| Error::Setup("the child has no stdout".to_string()))?;
    let (lines_tx, lines_rx) = mpsc::channel();
    std::thread::spawn(move || {
        // Read to the end even once nobody listens: a closed pipe would kill the child at its
        // next line (the simulators print more after their address).
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let deadline = Instant::now() + START_WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines_rx.recv_timeout(left) {
            Ok(line) => {
                if let Some(url) = line.split(" on ").nth(1).map(str::trim).filter(|u| u.starts_with("http"))
                {
                    return Ok((child, url.to_string()));
                }
            }
            Err(_) => {
                child.kill();
                let logged = std::fs::read_to_string(log).unwrap_or_default();
                return Err(Error::Setup(format!("the child printed no address: {logged}")));
            }
        }
    }
}

/// `arka cis-sim` on 127.0.0.1, strict about IICs.
pub struct Sim {
    child: Guarded,
    pub base: String,
    control: Client,
    _dir: tempfile::TempDir,
}

impl Sim {
    pub fn start(arka: &Path) -> Result<Sim, Error> {
        let dir = tempfile::Builder::new().prefix("arka-chaos-sim-").tempdir()?;
        let mut command = Command::new(arka);
        command.args(["cis-sim", "--listen", "127.0.0.1:0", "--strict-iic"]);
        let (child, base) = start_printing_address(command, &dir.path().join("sim.log"))?;
        let control = Client::new(&base, Duration::from_secs(10));
        Ok(Sim { child, base, control, _dir: dir })
    }

    /// `ok`, `down`, `slow` (with `delay_ms`), `fault` (with `fault_code`) or `garbage`.
    pub fn set_mode(&self, mode: &str, delay_ms: Option<u64>, fault_code: Option<&str>) -> Result<(), Error> {
        let body = json!({"mode": mode, "delay_ms": delay_ms, "fault_code": fault_code});
        self.control.post("/control", None, &body)?.expect(200, "the simulator's mode")?;
        Ok(())
    }

    /// `POST /control/einvoices`: an e-invoice a supplier sent; what the simulator holds.
    pub fn seed_einvoice(&self, einvoice: &Value) -> Result<Value, Error> {
        Ok(self
            .control
            .post("/control/einvoices", None, einvoice)?
            .expect(201, "an incoming e-invoice")?
            .body)
    }

    /// What the simulator registered (tcrs, invoices, cash_deposits, wtns, einvoices).
    pub fn registered(&self) -> Result<Value, Error> {
        Ok(self.control.get("/control/registered", None)?.body)
    }

    /// `--cis-url` and the other flags pointing `arka serve` at this simulator.
    pub fn flags(&self) -> Vec<String> {
        vec![
            format!("--cis-url={}/FiscalizationService-v3", self.base),
            format!("--einvoice-url={}/EinvoiceService-v1", self.base),
            format!("--soft-code={SOFT_CODE}"),
            format!("--maintainer-code={MAINTAINER_CODE}"),
        ]
    }

    pub fn pid(&self) -> u32 {
        self.child.child.id()
    }
}

/// `arka wolt-sim` on 127.0.0.1: Wolt for the default venue (`WOLT_VENUE`), more added on demand.
pub struct Wolt {
    _child: Guarded,
    pub base: String,
    control: Client,
    _dir: tempfile::TempDir,
}

/// The `arka wolt-sim` defaults: its venue, API key and webhook secret.
pub const WOLT_VENUE: (&str, &str, &str) = ("sim-venue", "sim-api-key", "sim-webhook-secret");

impl Wolt {
    pub fn start(arka: &Path) -> Result<Wolt, Error> {
        let dir = tempfile::Builder::new().prefix("arka-chaos-wolt-").tempdir()?;
        let mut command = Command::new(arka);
        command.args(["wolt-sim", "--listen", "127.0.0.1:0"]);
        let (child, base) = start_printing_address(command, &dir.path().join("wolt.log"))?;
        let control = Client::new(&base, Duration::from_secs(10));
        Ok(Wolt { _child: child, base, control, _dir: dir })
    }

    /// A control call that must answer `status`.
    pub fn control(&self, method: &str, path: &str, body: &Value, status: u16) -> Result<Value, Error> {
        Ok(self.control.must(method, path, None, Sent::Json(body))?.expect(status, path)?.body)
    }

    /// The `--wolt-url` flag pointing `arka serve` here.
    pub fn flag(&self) -> String {
        format!("--wolt-url={}", self.base)
    }
}

/// How `arka serve` logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Logging {
    pub json: bool,
    pub debug: bool,
}

impl Logging {
    pub const PLAIN: Logging = Logging { json: false, debug: false };
}

/// `arka serve` on 127.0.0.1:0 over a data dir the caller keeps (restarts reuse it).
pub struct Server {
    child: Guarded,
    pub base: String,
    log: PathBuf,
}

impl Server {
    /// Starts the binary with `flags` (after the listen address and data dir) and waits until
    /// `GET /healthz` answers 200.
    pub fn start(
        arka: &Path,
        data_dir: &Path,
        log: &Path,
        logging: Logging,
        flags: &[String],
    ) -> Result<Server, Error> {
        let mut command = Command::new(arka);
        command.args(["serve", "--listen", "127.0.0.1:0", "--data-dir"]).arg(data_dir);
        command.args([
            format!("--log-format={}", if logging.json { "json" } else { "pretty" }),
            format!("--rates-boa-url={NOWHERE}"),
            format!("--rates-bkt-url={NOWHERE}"),
            format!("--rates-iliria98-url={NOWHERE}"),
            format!("--rates-adon-url={NOWHERE}"),
        ]);
        if !flags.iter().any(|f| f.starts_with("--wolt-url=")) {
            command.arg(format!("--wolt-url={NOWHERE}"));
        }
        command.args(flags);
        command.env("RUST_LOG", if logging.debug { "debug" } else { "info" });
        let (child, base) = start_printing_address(command, log)?;
        let server = Server { child, base, log: log.to_path_buf() };
        server.wait_healthy()?;
        Ok(server)
    }

    fn wait_healthy(&self) -> Result<(), Error> {
        let client = Client::new(&self.base, Duration::from_secs(5));
        let deadline = Instant::now() + START_WAIT;
        while Instant::now() < deadline {
            if client.call("GET", "/healthz", None, Sent::Nothing).is_ok_and(|a| a.status == 200) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(Error::Setup(format!("arka serve was not healthy within {START_WAIT:?}: {}", self.log_text())))
    }

    /// SIGKILL, at once.
    pub fn kill(mut self) {
        self.child.kill();
    }

    /// SIGTERM, as systemd stops it, and a bounded wait (then SIGKILL); true when it exited on
    /// its own.
    pub fn terminate(mut self) -> bool {
        let pid = self.pid().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().is_ok_and(|s| s.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        while sent && Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.child.kill();
        false
    }

    pub fn pid(&self) -> u32 {
        self.child.child.id()
    }

    /// The process's peak resident memory so far (VmHWM), in bytes.
    pub fn peak_rss(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    /// Everything it logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The queue's depth as `GET /healthz` says.
    pub fn queue_depth(&self, client: &Client) -> Result<i64, Error> {
        client.get("/healthz", None)?.body["queue"]["depth"]
            .as_i64()
            .ok_or_else(|| Error::Unexpected("healthz without queue.depth".to_string()))
    }

    /// Waits, bounded, until the late-delivery queue is empty; false when it did not drain.
    pub fn wait_drained(&self, within: Duration) -> Result<bool, Error> {
        let client = Client::new(&self.base, Duration::from_secs(10));
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self.queue_depth(&client)? == 0 {
                return Ok(true);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(false)
    }
}

/// Lines of a log that tell of a panic.
pub fn panics_in(log: &str) -> usize {
    log.lines().filter(|l| l.contains("panicked")).count()
}

/// Runs `arka partners create` over `data_dir` and returns the partner token it printed.
pub fn create_partner(arka: &Path, data_dir: &Path) -> Result<String, Error> {
    let mut command = Command::new(arka);
    for (key, _) in std::env::vars() {
        if key.starts_with("ARKA_") {
            command.env_remove(key);
        }
    }
    let out =
        command.args(["partners", "create", "--name", "chaos desk", "--data-dir"]).arg(data_dir).output()?;
    let printed = String::from_utf8_lossy(&out.stdout);
    printed
        .split_whitespace()
        .find(|w| w.starts_with("arka_p_"))
        .map(str::to_string)
        .ok_or_else(|| Error::Setup(format!("arka partners create printed no token: {printed}")))
}

/// A section's stage: a simulator, a data dir with a partner, and `arka serve` over it with
/// limits wide enough for many POS apps.
pub struct Stage {
    // Fields drop in order: the server stops before the folder it writes to goes.
    pub server: Server,
    pub sim: Sim,
    pub partner: String,
    pub data: PathBuf,
    _dir: tempfile::TempDir,
}

impl Stage {
    /// Starts everything in a folder named for `section`; `more` are further server flags.
    pub fn start(arka: &Path, section: &str, more: &[String]) -> Result<Stage, Error> {
        let sim = Sim::start(arka)?;
        let dir = tempfile::Builder::new().prefix(&format!("arka-chaos-{section}-")).tempdir()?;
        let data = dir.path().join("data");
        let partner = create_partner(arka, &data)?;
        let mut flags = sim.flags();
        flags.push(format!("--limits={ROOMY_LIMITS}"));
        flags.extend_from_slice(more);
        let server = Server::start(arka, &data, &dir.path().join("arka.log"), Logging::PLAIN, &flags)?;
        Ok(Stage { server, sim, partner, data, _dir: dir })
    }

    /// The server's database.
    pub fn db(&self) -> PathBuf {
        self.data.join("arka.db")
    }
}

/// Runs `arka ARGS...` to its end (no ARKA_* from the environment); what it printed, or why it failed.
pub fn arka_output(arka: &Path, args: &[&str]) -> Result<String, Error> {
    let mut command = Command::new(arka);
    for (key, _) in std::env::vars() {
        if key.starts_with("ARKA_") {
            command.env_remove(key);
        }
    }
    let out = command.args(args).output()?;
    if !out.status.success() {
        return Err(Error::Setup(format!(
            "arka {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).to_string())
}

/// `arka hq serve --plain-http` on a fixed loopback address (the shops know it), its database's
/// URL in a file.
pub struct HqServer {
    child: Guarded,
    pub base: String,
    log: PathBuf,
}

impl HqServer {
    /// Starts it on `listen` and waits until `GET /healthz` answers 200.
    pub fn start(arka: &Path, listen: &str, url_file: &Path, log: &Path) -> Result<HqServer, Error> {
        let mut command = Command::new(arka);
        command
            .args(["hq", "serve", "--plain-http", "--listen", listen, "--database-url-file"])
            .arg(url_file);
        command.env("RUST_LOG", "info");
        let (child, base) = start_printing_address(command, log)?;
        let hq = HqServer { child, base, log: log.to_path_buf() };
        let client = Client::new(&hq.base, Duration::from_secs(5));
        let deadline = Instant::now() + START_WAIT;
        while Instant::now() < deadline {
            if client.call("GET", "/healthz", None, Sent::Nothing).is_ok_and(|a| a.status == 200) {
                return Ok(hq);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(Error::Setup(format!("arka hq serve was not healthy within {START_WAIT:?}: {}", hq.log_text())))
    }

    /// SIGKILL, at once.
    pub fn kill(mut self) {
        self.child.kill();
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}
