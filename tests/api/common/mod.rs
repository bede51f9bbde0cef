//! Shared test support: a real Arka server per test (its own port, its own data dir), a tiny
//! HTTP client, the envelope checks of the spec, and the on-boarding steps every story starts with.

pub mod browser;
pub mod depot;
pub mod einvoice;
pub mod fake_ai;
pub mod hq;
pub mod pages;
pub mod people;
pub mod printer;
pub mod process;
pub mod s3;
pub mod sim;
pub mod snapshot;
pub mod stub;
pub mod till;
pub mod wire;
pub mod wolt;
pub mod xml;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arka::config::ServeArgs;
use serde_json::{Value, json};
use tempfile::TempDir;

/// The sandbox's tax id and partner token, as `arka serve --sandbox` prints them.
pub const SANDBOX_NUIS: &str = "K00000001S";
pub const SANDBOX_PARTNER_TOKEN: &str = "arka_p_sandbox";

/// How long a server may take to start or to stop.
const START_STOP_WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

struct Running {
    address: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    // In a Mutex so that a TestServer can be shared by the threads of a concurrency story.
    finished: std::sync::Mutex<mpsc::Receiver<Result<(), String>>>,
    thread: Option<JoinHandle<()>>,
}

/// A real Arka server on 127.0.0.1 with a temporary data dir, removed when dropped.
pub struct TestServer {
    args: ServeArgs,
    running: Option<Running>,
    /// What the running server wrote to its console (`arka::Console`) since it started.
    console: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    agent: ureq::Agent,
    // Declared last: removed only after the server has stopped (see Drop).
    dir: TempDir,
}

fn new_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .new_agent()
}

impl TestServer {
    /// A production-like server (no sandbox) with every setting at its default.
    pub fn start() -> TestServer {
        Self::start_with(|_| {})
    }

    /// A server whose settings `configure` adjusts first (sandbox, limits, body size, ...).
    pub fn start_with(configure: impl FnOnce(&mut ServeArgs)) -> TestServer {
        let dir = tempfile::Builder::new().prefix("arka-test-").tempdir().expect("a temporary data dir");
        let mut args = ServeArgs::defaults("127.0.0.1:0".parse().unwrap(), dir.path().join("data"));
        // No test reaches the internet: the rate sources point at a loopback port nobody listens
        // on, unless the test serves their pages (`pages::RatePages`).
        let nowhere = stub::closed_url();
        args.rates.rates_boa_url = nowhere.clone();
        args.rates.rates_bkt_url = nowhere.clone();
        args.rates.rates_iliria98_url = nowhere.clone();
        args.rates.rates_adon_url = nowhere;
        configure(&mut args);
        let mut server =
            TestServer { args, running: None, console: Default::default(), agent: new_agent(), dir };
        server.launch();
        server
    }

    /// A sandbox server (`arka serve --sandbox`).
    pub fn sandbox() -> TestServer {
        Self::start_with(|args| args.sandbox = true)
    }

    fn launch(&mut self) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap();
        let mut args = self.args.clone();
        args.listen = address;
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let (done, finished) = mpsc::channel();
        self.console.lock().unwrap().clear();
        let lines = self.console.clone();
        let console: arka::Console =
            std::sync::Arc::new(move |line: &str| lines.lock().unwrap().push(line.to_string()));
        let thread = std::thread::Builder::new()
            .name(format!("arka-test-{}", address.port()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("a tokio runtime");
                let result = runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?;
                    let tls =
                        arka::tls::configure(&args.tls, &args.data.data_dir).map_err(|e| e.to_string())?;
                    arka::run_with_tls(args, listener, tls, console, async move {
                        let _ = stop.await;
                    })
                    .await
                    .map_err(|e| e.to_string())
                });
                runtime.shutdown_timeout(Duration::from_secs(5));
                let _ = done.send(result);
            })
            .expect("a server thread");
        self.running = Some(Running {
            address,
            shutdown: Some(shutdown),
            finished: std::sync::Mutex::new(finished),
            thread: Some(thread),
        });
        self.wait_until_listening();
    }

    /// The port is bound before the server thread starts, so connections queue; wait until the
    /// server has opened its store (the key file exists) and answers on the port, or has failed.
    fn wait_until_listening(&self) {
        let running = self.running.as_ref().unwrap();
        let key_file = self.data_dir().join("arka.key");
        let deadline = Instant::now() + START_STOP_WAIT;
        loop {
            if let Ok(result) = running.finished.lock().unwrap().try_recv() {
                panic!("the server stopped while starting: {result:?}");
            }
            if key_file.exists()
                && TcpStream::connect_timeout(&running.address, Duration::from_millis(200)).is_ok()
            {
                return;
            }
            assert!(Instant::now() < deadline, "the server did not start within {START_STOP_WAIT:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn stop(&mut self) {
        let Some(mut running) = self.running.take() else { return };
        // Idle keep-alive connections go with the old client.
        self.agent = new_agent();
        if let Some(shutdown) = running.shutdown.take() {
            let _ = shutdown.send(());
        }
        match running.finished.lock().unwrap().recv_timeout(START_STOP_WAIT) {
            Ok(result) => {
                if let Some(thread) = running.thread.take() {
                    let _ = thread.join();
                }
                if let Err(e) = result
                    && !std::thread::panicking()
                {
                    panic!("the server stopped with an error: {e}");
                }
            }
            Err(_) if !std::thread::panicking() => {
                panic!("the server did not stop within {START_STOP_WAIT:?}")
            }
            Err(_) => {}
        }
    }

    /// Stops the server cleanly and hands over its temporary folder (the data dir is its `data`),
    /// for a story that goes on with the real binary or a restore over the same data.
    pub fn stop_and_keep(mut self) -> TempDir {
        self.stop();
        std::mem::replace(&mut self.dir, tempfile::tempdir().expect("a temporary dir"))
    }

    /// Stops the server cleanly and starts a new one over the same data dir (on a new port).
    pub fn restart(&mut self) {
        self.stop();
        self.launch();
    }

    /// Stops the server cleanly, runs `between` on its data dir (a restore, say) and starts a
    /// new one over it (on a new port).
    pub fn restart_after(&mut self, between: impl FnOnce(&Path)) {
        self.stop();
        between(&self.data_dir());
        self.launch();
    }

    /// What the running server wrote to its console since it started.
    pub fn console(&self) -> Vec<String> {
        self.console.lock().unwrap().clone()
    }

    /// The setup code the running server printed at its start (as `arka serve` prints it on
    /// its console), waiting for it a little: it is printed once the store is open.
    pub fn setup_code(&self) -> String {
        let mut code = None;
        eventually("the setup code is printed", START_STOP_WAIT, || {
            code = self.console().iter().find_map(|line| setup_code_in(line));
            code.is_some()
        });
        code.unwrap()
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.running.as_ref().expect("a running server").address)
    }

    /// Moves the server's clock (its rate-limit windows, the health probe's freshness) `by`
    /// forward: a story that waits for a window to pass says so instead of sleeping.
    pub fn advance_clock(&self, by: Duration) {
        self.args.clock.advance(by);
    }

    /// The folder holding arka.db and arka.key.
    pub fn data_dir(&self) -> PathBuf {
        self.args.data.data_dir.clone()
    }

    /// Creates a partner the way `arka partners create` does and returns its token.
    pub fn create_partner(&self, name: &str) -> String {
        let store = arka::store::Store::open(&self.data_dir().join("arka.db")).expect("the store opens");
        let token = arka::ops::secrets::new_token("p").unwrap();
        let hash = arka::ops::secrets::hash_token(&token);
        store.write_blocking(|tx| arka::store::accounts::insert_partner(tx, name, &hash)).unwrap();
        token
    }

    // --- the client ---------------------------------------------------------------------------

    /// Any request: method GET, DELETE, POST, PUT or PATCH, extra headers as given, an optional body
    /// with its type (sent on a GET or a DELETE too, as a careless client may).
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<(&str, &[u8])>,
    ) -> Reply {
        let url = format!("{}{path}", self.base_url());
        let result = match method {
            "GET" | "DELETE" => {
                let mut rb = if method == "GET" { self.agent.get(&url) } else { self.agent.delete(&url) };
                for (k, v) in headers {
                    rb = rb.header(*k, *v);
                }
                match body {
                    Some((content_type, bytes)) => {
                        rb.force_send_body().content_type(content_type).send(bytes)
                    }
                    None => rb.call(),
                }
            }
            "POST" | "PUT" | "PATCH" => {
                let mut rb = match method {
                    "POST" => self.agent.post(&url),
                    "PUT" => self.agent.put(&url),
                    _ => self.agent.patch(&url),
                };
                for (k, v) in headers {
                    rb = rb.header(*k, *v);
                }
                match body {
                    Some((content_type, bytes)) => rb.content_type(content_type).send(bytes),
                    None => rb.send_empty(),
                }
            }
            other => panic!("the test client knows GET, DELETE, POST, PUT and PATCH, not {other}"),
        };
        let mut response = result.unwrap_or_else(|e| panic!("{method} {path} failed: {e}"));
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply { status, headers, body, text }
    }

    /// The raw body of a GET (a PDF), failing the test on any status but 200.
    pub fn get_bytes(&self, path: &str, token: Option<&str>) -> Vec<u8> {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer.iter().map(|b| ("Authorization", b.as_str())).collect();
        self.get_bytes_with(path, &headers)
    }

    /// The raw body of a GET sent with `headers` (a browser's cookie), failing on any status but 200.
    pub fn get_bytes_with(&self, path: &str, headers: &[(&str, &str)]) -> Vec<u8> {
        let mut request = self.agent.get(format!("{}{path}", self.base_url()));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut response = request.call().unwrap_or_else(|e| panic!("GET {path} failed: {e}"));
        assert_eq!(response.status().as_u16(), 200, "GET {path}");
        response.body_mut().with_config().limit(50 * 1024 * 1024).read_to_vec().unwrap()
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> Reply {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer.iter().map(|b| ("Authorization", b.as_str())).collect();
        self.request("GET", path, &headers, None)
    }

    pub fn delete(&self, path: &str, token: Option<&str>) -> Reply {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer.iter().map(|b| ("Authorization", b.as_str())).collect();
        self.request("DELETE", path, &headers, None)
    }

    pub fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        self.post_raw(path, token, "application/json", body.to_string().as_bytes())
    }

    pub fn put_json(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        self.send_json("PUT", path, token, body)
    }

    pub fn patch_json(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        self.send_json("PATCH", path, token, body)
    }

    fn send_json(&self, method: &str, path: &str, token: Option<&str>, body: &Value) -> Reply {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer.iter().map(|b| ("Authorization", b.as_str())).collect();
        self.request(method, path, &headers, Some(("application/json", body.to_string().as_bytes())))
    }

    pub fn post_raw(&self, path: &str, token: Option<&str>, content_type: &str, bytes: &[u8]) -> Reply {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer.iter().map(|b| ("Authorization", b.as_str())).collect();
        self.request("POST", path, &headers, Some((content_type, bytes)))
    }

    /// multipart/form-data, built by hand.
    pub fn post_multipart(&self, path: &str, token: Option<&str>, parts: &[Part]) -> Reply {
        const BOUNDARY: &str = "arka-test-boundary-5f1c0e7a";
        let mut body = Vec::new();
        for part in parts {
            body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
            match part {
                Part::Text(name, value) => {
                    body.extend_from_slice(
                        format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
                    );
                    body.extend_from_slice(value.as_bytes());
                }
                Part::File(name, filename, bytes) => {
                    body.extend_from_slice(
                        format!(
                            "Content-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n\
                             Content-Type: application/x-pkcs12\r\n\r\n"
                        )
                        .as_bytes(),
                    );
                    body.extend_from_slice(bytes);
                }
            }
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
        self.post_raw(path, token, &format!("multipart/form-data; boundary={BOUNDARY}"), &body)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One part of a multipart/form-data body.
pub enum Part<'a> {
    /// name, value
    Text(&'a str, &'a str),
    /// name, file name, bytes
    File(&'a str, &'a str, &'a [u8]),
}

/// What the server answered.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: ureq::http::HeaderMap,
    /// The body as JSON (Null when it is not JSON; `text` keeps it raw).
    pub body: Value,
    pub text: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// `data` of a success envelope `{status:true, data}` answered with `status`.
    pub fn data(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "expected HTTP {status}, got {}: {}", self.status, self.text);
        assert_eq!(self.body["status"], json!(true), "a success envelope: {}", self.text);
        let keys = object_keys(&self.body);
        assert!(keys.contains(&"data".to_string()), "a success envelope has data: {}", self.text);
        &self.body["data"]
    }

    /// The standard error envelope `{status:false, message, errors?}` with `status`.
    pub fn assert_error(&self, status: u16) {
        assert_eq!(self.status, status, "expected HTTP {status}, got {}: {}", self.status, self.text);
        assert_eq!(self.body["status"], json!(false), "the error envelope: {}", self.text);
        assert!(self.body["message"].is_string(), "the error envelope has a message: {}", self.text);
        for key in object_keys(&self.body) {
            assert!(
                ["status", "message", "errors"].contains(&key.as_str()),
                "unexpected key {key}: {}",
                self.text
            );
        }
        if let Some(errors) = self.body.get("errors") {
            assert!(errors.is_array(), "errors is an array of strings: {}", self.text);
        }
    }

    /// 422 `{success:false, message, errors:{field:[...]}}` naming `field` (among others).
    pub fn assert_invalid(&self, field: &str) {
        assert_eq!(self.status, 422, "expected HTTP 422, got {}: {}", self.status, self.text);
        assert_eq!(
            object_keys(&self.body),
            ["errors", "message", "success"],
            "the validation envelope: {}",
            self.text
        );
        assert_eq!(self.body["success"], json!(false));
        assert!(self.body["message"].as_str().is_some_and(|m| !m.is_empty()), "{}", self.text);
        let messages = &self.body["errors"][field];
        assert!(
            messages.as_array().is_some_and(|m| !m.is_empty() && m.iter().all(Value::is_string)),
            "errors names `{field}` with its messages: {}",
            self.text
        );
    }

    /// The field keys of a validation envelope.
    pub fn invalid_fields(&self) -> Vec<String> {
        object_keys(&self.body["errors"])
    }

    /// 401 `{message}` and nothing else.
    pub fn assert_unauthenticated(&self) {
        assert_eq!(self.status, 401, "expected HTTP 401, got {}: {}", self.status, self.text);
        assert_eq!(object_keys(&self.body), ["message"], "401 is {{message}} only: {}", self.text);
        assert!(self.body["message"].is_string());
    }

    /// 429 from the general limiter or a group budget: `{message}` only, with Retry-After.
    pub fn assert_throttled(&self) {
        assert_eq!(self.status, 429, "expected HTTP 429, got {}: {}", self.status, self.text);
        assert_eq!(
            object_keys(&self.body),
            ["message"],
            "429 from a limiter is {{message}} only: {}",
            self.text
        );
        let retry_after: u64 = self
            .header("retry-after")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("a Retry-After in whole seconds: {:?}", self.headers));
        assert!((1..=3600).contains(&retry_after), "Retry-After {retry_after}");
    }
}

/// The keys of a JSON object, sorted.
pub fn object_keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    keys.sort();
    keys
}

// ---------------------------------------------------------------------------------------------
// The on-boarding steps of every story
// ---------------------------------------------------------------------------------------------

/// What POST /register gave back.
#[derive(Debug, Clone)]
pub struct Registered {
    pub token: String,
    pub company_id: i64,
    pub branch_id: i64,
    pub user_id: i64,
    pub email: String,
}

/// The registration body real integrators send.
pub fn registration_body(nuis: &str, name: &str, email: &str) -> Value {
    json!({
        "nuis": nuis,
        "name": name,
        "address": "Rruga e Durrësit 12, Tiranë",
        "administrator": "Ana Hoxha",
        "phone": "+355 69 123 4567",
        "email": email,
        "issuerInVat": true,
        "lastNonCashEInvoiceNumber": 0,
    })
}

/// What a successful POST /register answered.
pub fn registered(reply: &Reply) -> Registered {
    let data = reply.data(201);
    Registered {
        token: data["api_token"].as_str().expect("api_token").to_string(),
        company_id: data["company"]["id"].as_i64().expect("company.id"),
        branch_id: data["branch"]["id"].as_i64().expect("branch.id"),
        user_id: data["user"]["id"].as_i64().expect("user.id"),
        email: data["user"]["email"].as_str().expect("user.email").to_string(),
    }
}

/// Registers a newcomer under the sandbox company (the server runs with `sandbox = true`).
pub fn register_sandbox(server: &TestServer) -> Registered {
    let body = registration_body(SANDBOX_NUIS, "Dyqani Ana", "ana@dyqani.al");
    registered(&server.post_json("/api/v1/register", Some(SANDBOX_PARTNER_TOKEN), &body))
}

/// A new cashier of the company, made in the store the way on-boarding makes one: the catalog
/// routes allow one call per interval per token, so a story that calls them often takes a fresh
/// user per call. Returns the cashier's token.
pub fn cashier(server: &TestServer, company_id: i64) -> String {
    user_with_role(server, company_id, arka::domain::role::Role::Cashier)
}

/// A new manager of the company (catalog writes need one), as [`cashier`] makes a cashier.
pub fn manager(server: &TestServer, company_id: i64) -> String {
    user_with_role(server, company_id, arka::domain::role::Role::Manager)
}

/// A new user of the company with `role`, without a unit or a till; returns their token.
pub fn user_with_role(server: &TestServer, company_id: i64, role: arka::domain::role::Role) -> String {
    let token = arka::ops::secrets::new_token("u").unwrap();
    let hash = arka::ops::secrets::hash_token(&token);
    let email = format!("{role}.{}@shop.al", &hash[..12]);
    arka::store::Store::open(&server.data_dir().join("arka.db"))
        .expect("the store opens")
        .write_blocking(|tx| {
            arka::store::accounts::insert_user(
                tx,
                &arka::store::accounts::NewUser {
                    company_id,
                    business_unit_id: None,
                    name: "Kasier",
                    email: &email,
                    operator_code: None,
                    tcr_code: None,
                    role,
                    token_hash: &hash,
                    token_prefix: &token[..15],
                },
            )
        })
        .unwrap();
    token
}

/// Registers a company with its own NUIS, as a partner does on a production server.
pub fn register_company(server: &TestServer, partner_token: &str, nuis: &str) -> Registered {
    let email = format!("owner.{}@shop.al", nuis.to_lowercase());
    let body = registration_body(nuis, &format!("Shop {nuis}"), &email);
    registered(&server.post_json("/api/v1/register", Some(partner_token), &body))
}

/// A business unit body; `code` is the business unit code from the tax portal.
pub fn branch_body(name: &str, code: &str) -> Value {
    json!({
        "name": name,
        "businessUnitCode": code,
        "administrator": "Ana Hoxha",
        "address": "Rruga Myslym Shyri 5",
        "city": "Tiranë",
    })
}

/// A bank account body with a valid Albanian IBAN.
pub fn bank_account_body(name: &str) -> Value {
    json!({
        "name": name,
        "holder": "Dyqani Ana sh.p.k.",
        "iban": "AL47212110090000000235698741",
        "swift": "BKTRALTR",
        "currency": "ALL",
        "notes": "main account",
    })
}

// ---------------------------------------------------------------------------------------------
// Certificates made with the openssl CLI
// ---------------------------------------------------------------------------------------------

/// A self-signed RSA-2048 certificate exported as PKCS#12 both ways shops bring them.
pub struct TestCertificate {
    /// `openssl pkcs12 -legacy`: RC2-40 for the certificate, 3DES for the key, a SHA-1 MAC, as
    /// older tools (and Windows exports) write.
    pub legacy_p12: Vec<u8>,
    /// 3DES for both bags and a SHA-1 MAC.
    pub triple_des_p12: Vec<u8>,
    /// What OpenSSL 3 writes by default (PBES2/AES-256-CBC, PBKDF2, SHA-256 MAC).
    pub modern_p12: Vec<u8>,
    /// The private key as PKCS#8 DER and as PKCS#1 DER (the latter sits inside the former).
    pub key_pkcs8_der: Vec<u8>,
    pub key_pkcs1_der: Vec<u8>,
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = oracle(Command::new("openssl").args(args).current_dir(dir), "openssl");
    assert!(
        out.status.success(),
        "openssl {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `subject` as openssl takes it, e.g. "/CN=L41323036D/O=Dyqani Ana/C=AL".
pub fn make_certificate(subject: &str, password: &str) -> TestCertificate {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pass = format!("pass:{password}");
    #[rustfmt::skip]
    openssl(d, &["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem",
        "-out", "cert.pem", "-days", "365", "-subj", subject]);
    #[rustfmt::skip]
    openssl(d, &["pkcs12", "-export", "-legacy", "-inkey", "key.pem", "-in", "cert.pem", "-out", "legacy.p12",
        "-passout", &pass]);
    #[rustfmt::skip]
    openssl(d, &["pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-out", "3des.p12",
        "-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1", "-passout", &pass]);
    #[rustfmt::skip]
    openssl(d, &["pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-out", "modern.p12",
        "-passout", &pass]);
    openssl(d, &["pkcs8", "-topk8", "-nocrypt", "-in", "key.pem", "-outform", "DER", "-out", "key8.der"]);
    openssl(d, &["rsa", "-in", "key.pem", "-traditional", "-outform", "DER", "-out", "key1.der"]);
    let read = |name: &str| std::fs::read(d.join(name)).unwrap();
    TestCertificate {
        legacy_p12: read("legacy.p12"),
        triple_des_p12: read("3des.p12"),
        modern_p12: read("modern.p12"),
        key_pkcs8_der: read("key8.der"),
        key_pkcs1_der: read("key1.der"),
    }
}

/// Waits, polling every 100 ms, until `done` holds; fails the test after `limit`.
pub fn eventually(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what} did not happen within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Whether `needle` occurs in `haystack`.
pub fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// Runs one of the outside tools the tests judge Arka with (`package` is the Debian package that
/// has it). A missing tool fails the test, never skips it: `./test` installs every one.
pub fn oracle(command: &mut Command, package: &str) -> Output {
    let program = command.get_program().to_string_lossy().into_owned();
    command.output().unwrap_or_else(|e| {
        panic!("{program} did not run ({e}): it comes with Debian's {package}; ./test installs every tool the tests use")
    })
}

/// The text Debian's `pdftotext` (poppler-utils) extracts from `pdf`.
pub fn pdftotext(pdf: &[u8]) -> String {
    let directory = tempfile::tempdir().unwrap();
    let pdf_path = directory.path().join("invoice.pdf");
    let text_path = directory.path().join("invoice.txt");
    std::fs::write(&pdf_path, pdf).unwrap();
    let out = oracle(
        Command::new("pdftotext").args(["-enc", "UTF-8"]).arg(&pdf_path).arg(&text_path),
        "poppler-utils",
    );
    assert!(out.status.success(), "pdftotext failed: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(&text_path).unwrap()
}

/// Standard base64 (for the JSON form of the certificate upload).
pub fn base64(bytes: &[u8]) -> String {
    openssl::base64::encode_block(bytes)
}

// ---------------------------------------------------------------------------------------------
// The real binary
// ---------------------------------------------------------------------------------------------

/// Runs `arka` with `args`, without any ARKA_* setting from the environment.
pub fn arka(args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arka"));
    for (key, _) in std::env::vars() {
        if key.starts_with("ARKA_") {
            command.env_remove(key);
        }
    }
    command.args(args).output().expect("the arka binary runs")
}

/// Runs `arka` and returns its standard output, failing the test when it fails.
pub fn arka_ok(args: &[&str]) -> String {
    let out = arka(args);
    assert!(out.status.success(), "arka {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The setup code on a console line `  setup code:            ABCDE-FGHJK (valid until ...)`.
pub fn setup_code_in(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("setup code:")?;
    rest.split_whitespace().next().map(str::to_string)
}

/// The value after `label` on the line that starts with it, e.g. "X-Client-Secret: ".
pub fn printed_value(output: &str, label: &str) -> String {
    output
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|| panic!("`{label}` is printed: {output}"))
}
