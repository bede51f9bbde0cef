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
        let name = format!("arka_hq_{}", &arka::secrets::hash_token(&uuid::Uuid::new_v4().to_string())[..16]);
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
    // Declared last: dropped after the process has stopped.
    pub db: TestDatabase,
}

impl Hq {
    pub fn start() -> Hq {
        Self::start_on(TestDatabase::create())
    }

    pub fn start_on(db: TestDatabase) -> Hq {
        let out = arka_ok(&["hq", "owners", "add", "owner", "--database-url", &db.url]);
        let owner = printed_value(&out, "Authorization: Bearer ");
        let process = ServerProcess::start_hq(&["--database-url", &db.url]);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .new_agent();
        Hq { process, owner, agent, db }
    }

    pub fn url(&self) -> String {
        self.process.base_url.clone()
    }

    /// `arka hq shops add NAME`: the shop's token.
    pub fn add_shop(&self, name: &str) -> String {
        let out = arka_ok(&["hq", "shops", "add", name, "--database-url", &self.db.url]);
        printed_value(&out, "--hq-token ")
    }

    /// The HQ again on the same database and address, after a stop or a kill.
    pub fn start_again(&mut self) {
        let listen = self.url().rsplit_once("://").map(|(_, address)| address.to_string()).unwrap();
        self.process = ServerProcess::start_hq_on(&listen, &["--database-url", &self.db.url]);
    }

    /// GET `path` with the owner's token: status and body.
    pub fn get(&self, path: &str) -> (u16, Value) {
        get(&self.agent, &format!("{}{path}", self.url()), &self.owner)
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
