//! The chain's head office for the tests: a fresh PostgreSQL database per test on the cluster
//! `.ci/postgres` started (`ARKA_TEST_PG_URL`), the real `arka hq serve`, its commands, and the
//! comparisons every story ends with. A test that needs PostgreSQL and finds none fails.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use serde_json::Value;

use super::process::ServerProcess;
use super::{arka_ok, printed_value};

/// The cluster's URL; a test without it fails (it never skips).
pub fn pg_url() -> String {
    std::env::var("ARKA_TEST_PG_URL").unwrap_or_else(|_| {
        panic!(
            "ARKA_TEST_PG_URL is not set: the head office's tests need PostgreSQL. Run them through \
             .ci/run, or first `set -euo pipefail; source .ci/postgres` in the shell that runs cargo test"
        )
    })
}

/// Runs `statement` on `url`; the rows as text.
pub fn sql(url: &str, statement: &str) -> Vec<Vec<Option<String>>> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
        let connection = tokio::spawn(connection);
        let messages = client.simple_query(statement).await.unwrap();
        drop(client);
        let _ = connection.await;
        messages
            .into_iter()
            .filter_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(row) => {
                    Some((0..row.len()).map(|i| row.get(i).map(str::to_string)).collect())
                }
                _ => None,
            })
            .collect()
    })
}

/// A database of its own for one test, dropped with it.
pub struct TestDatabase {
    pub url: String,
    name: String,
    admin: String,
}

impl TestDatabase {
    pub fn create() -> TestDatabase {
        Self::create_on(&pg_url())
    }

    pub fn create_on(admin: &str) -> TestDatabase {
        let name =
            format!("arka_hq_{}", &arka::ops::secrets::hash_token(&uuid::Uuid::new_v4().to_string())[..16]);
        sql(admin, &format!("CREATE DATABASE {name}"));
        let base = admin.rsplit_once('/').map(|(base, _)| base).unwrap();
        TestDatabase { url: format!("{base}/{name}"), name, admin: admin.to_string() }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (admin, name) = (self.admin.clone(), self.name.clone());
        runtime.block_on(async move {
            if let Ok((client, connection)) = tokio_postgres::connect(&admin, tokio_postgres::NoTls).await {
                let connection = tokio::spawn(connection);
                let _ = client.simple_query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
                drop(client);
                let _ = connection.await;
            }
        });
    }
}

/// `arka hq serve` on its own database, with an owner.
pub struct Hq {
    pub process: ServerProcess,
    pub owner: String,
    agent: ureq::Agent,
    /// What `serve` was started with beyond the database (TLS), for a start again.
    serve: Vec<String>,
    // Declared last: dropped after the process has stopped.
    pub db: TestDatabase,
}

impl Hq {
    pub fn start() -> Hq {
        Self::start_on(TestDatabase::create())
    }

    /// On plain HTTP (`--plain-http`, which the shops then take with `--hq-allow-http`).
    pub fn start_on(db: TestDatabase) -> Hq {
        Self::start_with(db, vec!["--plain-http".to_string()], None)
    }

    /// Started with `serve` beyond the database (`--tls-cert` ...); the owner's calls trust
    /// `root_pem` when given (the chain's own CA).
    pub fn start_with(db: TestDatabase, serve: Vec<String>, root_pem: Option<&[u8]>) -> Hq {
        let out = arka_ok(&["hq", "owners", "add", "owner", "--database-url", &db.url]);
        let owner = printed_value(&out, "Authorization: Bearer ");
        let process = ServerProcess::start_hq(&Self::args(&db, &serve));
        let mut agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)));
        if let Some(pem) = root_pem {
            let root = ureq::tls::Certificate::from_pem(pem).unwrap().to_owned();
            agent = agent.tls_config(
                ureq::tls::TlsConfig::builder()
                    .provider(ureq::tls::TlsProvider::NativeTls)
                    .root_certs(ureq::tls::RootCerts::new_with_certs(&[root]))
                    .build(),
            );
        }
        Hq { process, owner, agent: agent.build().new_agent(), serve, db }
    }

    /// On HTTPS by default: no TLS flag, so the HQ makes its self-signed certificate in
    /// `state_dir`; the owner's calls trust it, as a shop given it as `--hq-ca-file` does. The
    /// database's URL comes from a file (`--database-url-file`), as the book says to give it.
    pub fn start_https(
        db: TestDatabase,
        state_dir: &std::path::Path,
        more: &[&str],
    ) -> (Hq, std::path::PathBuf) {
        let url_file = state_dir.join("database-url");
        std::fs::create_dir_all(state_dir).unwrap();
        std::fs::write(&url_file, format!("{}\n", db.url)).unwrap();
        let out =
            arka_ok(&["hq", "owners", "add", "owner", "--database-url-file", url_file.to_str().unwrap()]);
        let owner = printed_value(&out, "Authorization: Bearer ");
        let mut serve = vec![
            "--database-url-file".to_string(),
            url_file.to_str().unwrap().to_string(),
            "--state-dir".to_string(),
            state_dir.to_str().unwrap().to_string(),
        ];
        serve.extend(more.iter().map(|a| a.to_string()));
        let args: Vec<&str> = serve.iter().map(String::as_str).collect();
        let process = ServerProcess::start_hq(&args);
        let cert = process
            .printed
            .iter()
            .find_map(|l| l.trim().strip_prefix("TLS certificate:"))
            .map(|p| std::path::PathBuf::from(p.trim()))
            .expect("the HQ prints its certificate's path");
        let root = ureq::tls::Certificate::from_pem(&std::fs::read(&cert).unwrap()).unwrap().to_owned();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .provider(ureq::tls::TlsProvider::NativeTls)
                    .root_certs(ureq::tls::RootCerts::new_with_certs(&[root]))
                    .build(),
            )
            .build()
            .new_agent();
        let mut again = vec!["--state-dir".to_string(), state_dir.to_str().unwrap().to_string()];
        again.extend(more.iter().map(|a| a.to_string()));
        (Hq { process, owner, agent, serve: again, db }, cert)
    }

    fn args<'a>(db: &'a TestDatabase, serve: &'a [String]) -> Vec<&'a str> {
        let mut args = vec!["--database-url", db.url.as_str()];
        args.extend(serve.iter().map(String::as_str));
        args
    }

    pub fn url(&self) -> String {
        self.process.base_url.clone()
    }

    /// `arka hq shops add NAME` of the tills' business: the shop's token.
    pub fn add_shop(&self, name: &str) -> String {
        self.add_shop_of(name, super::till::NUIS)
    }

    /// `arka hq shops add NAME --nuis NUIS`: the shop's token.
    pub fn add_shop_of(&self, name: &str, nuis: &str) -> String {
        let out = arka_ok(&["hq", "shops", "add", name, "--nuis", nuis, "--database-url", &self.db.url]);
        printed_value(&out, "ARKA_HQ_TOKEN=")
    }

    /// `arka hq ARGS... --database-url URL`: what it printed.
    pub fn command(&self, args: &[&str]) -> String {
        let mut all = vec!["hq"];
        all.extend(args);
        all.extend(["--database-url", self.db.url.as_str()]);
        arka_ok(&all)
    }

    /// A call to the HQ with `token` (and a box's name, as a shop's calls carry): status, the
    /// `Retry-After` header, and the body.
    pub fn call(
        &self,
        method: &str,
        path: &str,
        token: &str,
        box_id: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, Option<String>, Value) {
        let url = format!("{}{path}", self.url());
        let mut request = ureq::http::Request::builder()
            .method(method)
            .uri(url)
            .header("Authorization", format!("Bearer {token}"))
            .header("Content-Type", "application/json")
            // A refusal answered before its body was read closes the connection: no call rides on
            // a connection the HQ is closing.
            .header("Connection", "close");
        if let Some(box_id) = box_id {
            request = request.header("x-arka-box", box_id);
        }
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut reply = self.agent.run(request.body(body).unwrap()).unwrap();
        let status = reply.status().as_u16();
        let retry_after =
            reply.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
        let text = reply.body_mut().read_to_string().unwrap();
        (status, retry_after, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// The HQ again on the same database and address, after a stop or a kill.
    pub fn start_again(&mut self) {
        let listen = self.url().rsplit_once("://").map(|(_, address)| address.to_string()).unwrap();
        self.process = ServerProcess::start_hq_on(&listen, &Self::args(&self.db, &self.serve));
    }

    /// GET `path` with the owner's token: status and body.
    pub fn get(&self, path: &str) -> (u16, Value) {
        get(&self.agent, &format!("{}{path}", self.url()), &self.owner)
    }

    /// GET `path` with the owner's token: the raw body (a PDF), failing on any status but 200.
    pub fn get_bytes(&self, path: &str) -> Vec<u8> {
        let mut reply = self
            .agent
            .get(format!("{}{path}", self.url()))
            .header("Authorization", format!("Bearer {}", self.owner))
            .call()
            .unwrap();
        assert_eq!(reply.status().as_u16(), 200, "{path}");
        reply.body_mut().read_to_vec().unwrap()
    }
}

impl Hq {
    /// PUT `path` with the owner's token.
    pub fn put(&self, path: &str, body: &Value) -> (u16, Value) {
        let mut reply = self
            .agent
            .put(format!("{}{path}", self.url()))
            .header("Authorization", format!("Bearer {}", self.owner))
            .content_type("application/json")
            .send(body.to_string())
            .unwrap();
        let status = reply.status().as_u16();
        let text = reply.body_mut().read_to_string().unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }
}

pub fn get(agent: &ureq::Agent, url: &str, token: &str) -> (u16, Value) {
    let mut reply = agent.get(url).header("Authorization", format!("Bearer {token}")).call().unwrap();
    let status = reply.status().as_u16();
    let text = reply.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// Today and its neighbours (the shop's day is Tirane's; this covers it whatever the clock).
pub fn around_today() -> (String, String) {
    let today = chrono::Utc::now().date_naive();
    ((today - chrono::Days::new(1)).to_string(), (today + chrono::Days::new(1)).to_string())
}

/// The figures of a sales summary that must add up across shops, to the cent.
pub fn summary_figures(data: &Value) -> Vec<(String, String)> {
    let mut figures = Vec::new();
    for key in ["documents", "reversals", "waiting", "net", "vat", "gross"] {
        figures.push((format!("totals.{key}"), data["totals"][key].to_string()));
    }
    for key in ["discount", "fee"] {
        figures.push((key.to_string(), data[key].to_string()));
    }
    for line in data["by_payment"].as_array().unwrap() {
        figures.push((
            format!("payment {}", line["payment_method"]),
            format!("{} {}", line["documents"], line["amount"]),
        ));
    }
    figures.sort();
    figures
}

/// The figures of several summaries added up (amounts as decimals, exact).
pub fn summed(summaries: &[Value]) -> Vec<(String, String)> {
    use rust_decimal::Decimal;
    use std::collections::BTreeMap;
    use std::str::FromStr;
    let mut sums: BTreeMap<String, Vec<Decimal>> = BTreeMap::new();
    for data in summaries {
        for (key, value) in summary_figures(data) {
            let parts: Vec<Decimal> = value.split(' ').map(|p| Decimal::from_str(p).unwrap()).collect();
            let entry = sums.entry(key).or_insert_with(|| vec![Decimal::ZERO; parts.len()]);
            for (sum, part) in entry.iter_mut().zip(parts) {
                *sum += part;
            }
        }
    }
    sums.into_iter()
        .map(|(key, parts)| {
            (key, parts.iter().map(|p| p.normalize().to_string()).collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// `summary_figures` with amounts normalised the way `summed` writes them.
pub fn normalised(data: &Value) -> Vec<(String, String)> {
    summed(std::slice::from_ref(data))
}

/// A PostgreSQL cluster of one test's own, for stories that stop it (the shared one serves the
/// other tests meanwhile): the binaries and user `.ci/postgres` found (`ARKA_TEST_PG_CTL`,
/// `ARKA_TEST_PG_USER`).
pub struct OwnCluster {
    pub url: String,
    pg_ctl: std::path::PathBuf,
    user: Option<String>,
    data: std::path::PathBuf,
    options: String,
    log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl OwnCluster {
    pub fn start() -> OwnCluster {
        let pg_ctl: std::path::PathBuf = std::env::var("ARKA_TEST_PG_CTL")
            .unwrap_or_else(|_| panic!("ARKA_TEST_PG_CTL is not set: source .ci/postgres first"))
            .into();
        let user = std::env::var("ARKA_TEST_PG_USER").ok().filter(|u| !u.is_empty());
        let dir = tempfile::Builder::new().prefix("arka-pg-own-").tempdir().unwrap();
        if let Some(user) = &user {
            let status = std::process::Command::new("chown").arg(user).arg(dir.path()).status().unwrap();
            assert!(status.success());
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let data = dir.path().join("data");
        let cluster = OwnCluster {
            url: format!("postgres://arka@127.0.0.1:{port}/postgres"),
            options: format!(
                "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
                dir.path().display()
            ),
            log: dir.path().join("log"),
            pg_ctl: pg_ctl.clone(),
            user,
            data: data.clone(),
            _dir: dir,
        };
        let initdb = pg_ctl.with_file_name("initdb");
        cluster.run(&initdb, &["-D", data.to_str().unwrap(), "-U", "arka", "--auth=trust", "-E", "UTF8"]);
        cluster.pg_ctl_do("start");
        cluster
    }

    fn run(&self, program: &std::path::Path, args: &[&str]) {
        let mut command = match &self.user {
            Some(user) => {
                let mut c = std::process::Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => std::process::Command::new(program),
        };
        let out = command.args(args).output().unwrap();
        assert!(out.status.success(), "{}: {}", program.display(), String::from_utf8_lossy(&out.stderr));
    }

    fn pg_ctl_do(&self, action: &str) {
        let (data, log) = (self.data.to_str().unwrap(), self.log.to_str().unwrap());
        let mut args = vec!["-D", data, "-l", log, "-w", "-m", "fast"];
        if action == "start" {
            args.extend(["-o", self.options.as_str()]);
        }
        args.push(action);
        self.run(&self.pg_ctl.clone(), &args);
    }

    pub fn stop(&self) {
        self.pg_ctl_do("stop");
    }

    pub fn start_again(&self) {
        self.pg_ctl_do("start");
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let data = self.data.to_str().unwrap_or_default().to_string();
        let mut command = match &self.user {
            Some(user) => {
                let mut c = std::process::Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&self.pg_ctl);
                c
            }
            None => std::process::Command::new(&self.pg_ctl),
        };
        let _ = command.args(["-D", &data, "-m", "immediate", "-w", "stop"]).output();
    }
}

/// The numbers the HQ holds of `shop` (today and its neighbours), each as often as it is listed:
/// a number twice would be a duplicate.
pub fn hq_numbers(hq: &Hq, shop: &str) -> Vec<String> {
    let (from, to) = around_today();
    let (status, body) =
        hq.get(&format!("/api/v1/invoice?shop={shop}&fromDate={from}&toDate={to}&limit=500"));
    assert_eq!(status, 200, "{body}");
    body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].as_str().unwrap().to_string())
        .collect()
}

/// The numbers of the documents in the shop's database at `data`.
pub fn numbers_in(data: &std::path::Path) -> std::collections::BTreeSet<String> {
    let db = rusqlite::Connection::open(data.join("arka.db")).unwrap();
    let mut stmt = db.prepare("SELECT number FROM invoices").unwrap();
    stmt.query_map([], |r| r.get("number")).unwrap().map(Result::unwrap).collect()
}

/// `arka restore --from-hq` of the shop of `token` into `data_dir`, the HQ on plain HTTP: what it
/// printed.
pub fn restore_from(hq: &Hq, token: &str, data_dir: &std::path::Path) -> String {
    let dir = data_dir.to_str().unwrap();
    arka_ok(&["restore", "--from-hq", &hq.url(), "--hq-token", token, "--hq-allow-http", "--data-dir", dir])
}
