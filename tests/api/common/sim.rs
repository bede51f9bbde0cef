//! The CIS simulator as a real server on 127.0.0.1:0, for stories where the CIS misbehaves.

use std::time::Duration;

use arka::config::ServeArgs;
use arka::sim::cis::{self, CisSimHandle, SimConfig};
use serde_json::{Value, json};

/// The codes the tests give Arka (any well-formed code does for the simulator).
pub const SOFT_CODE: &str = "ss123ss123";
pub const MAINTAINER_CODE: &str = "mm123mm123";

pub struct SimServer {
    runtime: tokio::runtime::Runtime,
    handle: Option<CisSimHandle>,
    agent: ureq::Agent,
}

impl SimServer {
    pub fn start() -> SimServer {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let config = SimConfig { strict_iic: true, tcrs: Vec::new() };
        let (_, handle) = runtime.block_on(cis::spawn_loopback(config)).unwrap();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(10)))
            .build()
            .new_agent();
        SimServer { runtime, handle: Some(handle), agent }
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.handle.as_ref().unwrap().addr())
    }

    /// Points a server's settings at this simulator, with short CIS time limits.
    pub fn configure(&self, args: &mut ServeArgs) {
        let addr = self.handle.as_ref().unwrap().addr();
        args.cis_url = Some(cis::fiscalization_url(addr));
        args.einvoice_url = Some(cis::einvoice_url(addr));
        args.soft_code = Some(SOFT_CODE.to_string());
        args.maintainer_code = Some(MAINTAINER_CODE.to_string());
        args.cis_connect_timeout = 1;
        args.cis_timeout = 2;
    }

    /// `configure` as `arka serve` flags, for the real binary.
    pub fn flags(&self) -> Vec<String> {
        let mut args = ServeArgs::defaults("127.0.0.1:0".parse().unwrap(), "unused".into());
        self.configure(&mut args);
        vec![
            format!("--cis-url={}", args.cis_url.unwrap()),
            format!("--einvoice-url={}", args.einvoice_url.unwrap()),
            format!("--soft-code={}", args.soft_code.unwrap()),
            format!("--maintainer-code={}", args.maintainer_code.unwrap()),
            format!("--cis-connect-timeout={}", args.cis_connect_timeout),
            format!("--cis-timeout={}", args.cis_timeout),
        ]
    }

    /// `ok`, `down`, `slow`, `fault` or `garbage` (see src/sim/cis/mod.rs).
    pub fn set_mode(&self, mode: Value) {
        let reply = self
            .agent
            .post(format!("{}/control", self.base()))
            .header("Content-Type", "application/json")
            .send(mode.to_string())
            .unwrap();
        assert_eq!(reply.status().as_u16(), 200, "the simulator took the mode");
    }

    pub fn mode(&self, mode: &str) {
        self.set_mode(json!({ "mode": mode }));
    }

    /// `POST /control/einvoices`: an e-invoice a supplier sent (see src/sim/cis/mod.rs).
    pub fn seed_einvoice(&self, einvoice: Value) -> Value {
        let mut reply = self
            .agent
            .post(format!("{}/control/einvoices", self.base()))
            .header("Content-Type", "application/json")
            .send(einvoice.to_string())
            .unwrap();
        let text = reply.body_mut().read_to_string().unwrap();
        assert_eq!(reply.status().as_u16(), 201, "the simulator took the e-invoice: {text}");
        serde_json::from_str(&text).unwrap()
    }

    fn get(&self, path: &str) -> Value {
        let mut reply = self.agent.get(format!("{}{path}", self.base())).call().unwrap();
        serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap()
    }

    /// Every SOAP request the simulator received, oldest first.
    pub fn requests(&self) -> Vec<Value> {
        let v = self.get("/control/requests");
        v.as_array().cloned().or_else(|| v["requests"].as_array().cloned()).unwrap_or_default()
    }

    /// What the simulator registered (tcrs, invoices, cash_deposits, wtns, einvoices).
    pub fn registered(&self) -> Value {
        self.get("/control/registered")
    }
}

impl Drop for SimServer {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = self
                .runtime
                .block_on(async { tokio::time::timeout(Duration::from_secs(5), handle.stop()).await });
        }
    }
}
