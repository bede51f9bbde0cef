//! The Wolt simulator as a real server on 127.0.0.1:0, and a shop that sells through it: a till
//! (see till.rs) whose owner enabled the marketplace add-on, set the Wolt venue and gave its own
//! token the marketplace right, with the simulator's webhooks pointed at the shop's server.

use std::time::Duration;

use arka::config::ServeArgs;
use arka::sim::wolt::{self, SimConfig, SimVenue, WoltSimHandle};
use serde_json::{Value, json};

use super::sim::SimServer;
use super::till::{Till, open_till_with};
use super::{Reply, TestServer};

pub const VENUE_ID: &str = "venue-tirana-1";
pub const API_KEY: &str = "wolt-api-key-0001";
pub const WEBHOOK_SECRET: &str = "wolt-webhook-secret-0001";
pub const MARKET: &str = "/api/partner/v1/marketplace";

pub struct WoltServer {
    runtime: tokio::runtime::Runtime,
    handle: Option<WoltSimHandle>,
    agent: ureq::Agent,
}

impl WoltServer {
    /// A simulator playing Wolt for `VENUE_ID`, sending no webhooks until `target` is set.
    pub fn start() -> WoltServer {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let config = SimConfig {
            venues: vec![SimVenue {
                venue_id: VENUE_ID.into(),
                api_key: API_KEY.into(),
                webhook_secret: WEBHOOK_SECRET.into(),
            }],
            webhook_url: None,
            order_every: None,
        };
        let (_, handle) = runtime.block_on(wolt::spawn_loopback(config)).unwrap();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .new_agent();
        WoltServer { runtime, handle: Some(handle), agent }
    }

    pub fn url(&self) -> String {
        self.handle.as_ref().unwrap().url()
    }

    /// Points a server's settings at this simulator, with a short Wolt time limit.
    pub fn configure(&self, args: &mut ServeArgs) {
        args.wolt_url = Some(self.url());
        args.wolt_timeout = 2;
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}{path}", self.url());
        let sent = match (method, body) {
            ("GET", _) => self.agent.get(&url).call(),
            ("DELETE", _) => self.agent.delete(&url).call(),
            ("PUT", body) => self
                .agent
                .put(&url)
                .content_type("application/json")
                .send(body.unwrap_or(json!({})).to_string()),
            (_, body) => self
                .agent
                .post(&url)
                .content_type("application/json")
                .send(body.unwrap_or(json!({})).to_string()),
        };
        let mut reply = sent.unwrap();
        let status = reply.status().as_u16();
        let text = reply.body_mut().read_to_string().unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Plays Wolt for one more venue.
    pub fn add_venue(&self, venue_id: &str, api_key: &str, webhook_secret: &str) {
        let venue = json!({"venue_id": venue_id, "api_key": api_key, "webhook_secret": webhook_secret});
        assert_eq!(self.call("POST", "/control/venues", Some(venue)).0, 200);
    }

    /// Sends webhooks to `server`'s marketplace webhook route from now on.
    pub fn target(&self, server: &TestServer) {
        let url = format!("{}{MARKET}/webhooks/wolt", server.base_url());
        assert_eq!(self.call("PUT", "/control/webhook-target", Some(json!({"url": url}))).0, 200);
    }

    /// `ok`, `refuse`, `down`, or `slow` with its delay.
    pub fn mode(&self, mode: &str, delay_ms: Option<u64>) {
        let (status, _) = self.call("POST", "/control", Some(json!({"mode": mode, "delay_ms": delay_ms})));
        assert_eq!(status, 200, "the simulator took the mode");
    }

    /// A new order of `kind` (its CREATED webhook delivered before this returns); the answer
    /// holds `order` (Wolt's OrderV2) and `webhook` (what Arka answered).
    pub fn order(&self, kind: &str) -> Value {
        self.order_with(json!({"type": kind}))
    }

    pub fn order_with(&self, spec: Value) -> Value {
        let (status, made) = self.call("POST", "/control/orders", Some(spec));
        assert_eq!(status, 201, "the simulator made the order: {made}");
        made
    }

    /// Wolt moving the order itself (production, ready, delivered, canceled), with its webhook.
    pub fn wolt_moves(&self, order_id: &str, status: &str) -> Value {
        let (code, moved) =
            self.call("POST", &format!("/control/orders/{order_id}/status"), Some(json!({"status": status})));
        assert_eq!(code, 200, "Wolt moved the order: {moved}");
        moved
    }

    /// A new notification for the order, signed with `secret` instead of the venue's when given.
    pub fn notify(&self, order_id: &str, secret: Option<&str>) -> Value {
        let (code, sent) =
            self.call("POST", &format!("/control/orders/{order_id}/notify"), Some(json!({"secret": secret})));
        assert_eq!(code, 200, "the simulator sent the webhook: {sent}");
        sent
    }

    /// Sends the same webhook (bytes and signature) again.
    pub fn resend(&self, notification_id: &str) -> Value {
        let (code, sent) = self.call("POST", &format!("/control/webhooks/{notification_id}/resend"), None);
        assert_eq!(code, 200, "{sent}");
        sent
    }

    /// Wolt's view of the order.
    pub fn wolt_order(&self, order_id: &str) -> Value {
        let (code, order) = self.call("GET", &format!("/control/orders/{order_id}"), None);
        assert_eq!(code, 200);
        order["order"].clone()
    }

    /// The merchant API calls received, oldest first.
    pub fn calls(&self) -> Vec<Value> {
        self.call("GET", "/control/calls", None).1.as_array().cloned().unwrap_or_default()
    }

    /// The action PUTs received (`accept`, `ready`, ...), with their outcome, oldest first.
    pub fn actions(&self) -> Vec<(String, String)> {
        self.calls()
            .iter()
            .filter(|c| c["method"] == "PUT")
            .map(|c| {
                (
                    c["action"].as_str().unwrap_or("").to_string(),
                    c["outcome"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }
}

impl Drop for WoltServer {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = self
                .runtime
                .block_on(async { tokio::time::timeout(Duration::from_secs(5), handle.stop()).await });
        }
    }
}

/// A till that sells through Wolt.
pub struct Shop {
    pub till: Till,
    pub wolt: WoltServer,
}

/// The owner's settings body for the test venue.
pub fn venue_settings() -> Value {
    json!({"enabled": true, "venue": {"wolt_venue_id": VENUE_ID, "name": "Byrektore Tirana",
           "api_key": API_KEY, "webhook_secret": WEBHOOK_SECRET}})
}

/// A till, its owner's marketplace set up through the routes, and the simulator's webhooks
/// aimed at it. `configure` adjusts the server's settings further.
pub fn open_shop_with(sim: &SimServer, configure: impl FnOnce(&mut ServeArgs)) -> Shop {
    let wolt = WoltServer::start();
    let till = open_till_with(sim, |args| {
        wolt.configure(args);
        configure(args);
    });
    let owner = Some(till.token.as_str());
    till.server.put_json(&format!("{MARKET}/settings"), owner, &venue_settings()).data(200);
    till.server
        .put_json(&format!("{MARKET}/rights/{}", till.user_id), owner, &json!({"marketplace": true}))
        .data(200);
    wolt.target(&till.server);
    Shop { till, wolt }
}

pub fn open_shop(sim: &SimServer) -> Shop {
    open_shop_with(sim, |_| {})
}

impl Shop {
    pub fn token(&self) -> Option<&str> {
        Some(self.till.token.as_str())
    }

    pub fn get(&self, path: &str) -> Reply {
        self.till.server.get(&format!("{MARKET}{path}"), self.token())
    }

    /// A write with an Idempotency-Key.
    pub fn post(&self, path: &str, key: &str, body: Value) -> Reply {
        let bearer = format!("Bearer {}", self.till.token);
        let headers = [("Authorization", bearer.as_str()), ("Idempotency-Key", key)];
        self.till.server.request(
            "POST",
            &format!("{MARKET}{path}"),
            &headers,
            Some(("application/json", body.to_string().as_bytes())),
        )
    }

    /// Arka's id of the order Wolt knows as `wolt_order_id`, from the board.
    pub fn order_id(&self, wolt_order_id: &str) -> i64 {
        let board = self.get("/orders?limit=100");
        let items = board.data(200)["items"].as_array().unwrap().clone();
        items
            .iter()
            .find(|o| o["wolt_order_id"] == wolt_order_id)
            .unwrap_or_else(|| panic!("the board shows Wolt order {wolt_order_id}: {}", board.text))["id"]
            .as_i64()
            .unwrap()
    }

    /// An order of `kind` made at Wolt and taken by Arka: (Wolt's id, Arka's id).
    pub fn new_order(&self, kind: &str) -> (String, i64) {
        let made = self.wolt.order(kind);
        assert_eq!(made["webhook"]["answer_status"], 200, "Arka took the webhook: {made}");
        let wolt_id = made["order"]["id"].as_str().unwrap().to_string();
        let id = made["webhook"]["answer_body"]
            .as_str()
            .and_then(|b| serde_json::from_str::<Value>(b).ok())
            .unwrap()["data"]["order_id"]
            .as_i64()
            .unwrap();
        (wolt_id, id)
    }
}

/// The marketplace error envelope `{status:false, message, code}` (plus `errors` on
/// invalid_data) with `status` and `code`.
pub fn assert_market_error(reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "expected HTTP {status} {code}, got {}: {}", reply.status, reply.text);
    assert_eq!(reply.body["status"], json!(false), "{}", reply.text);
    assert_eq!(reply.body["code"], json!(code), "{}", reply.text);
    assert!(reply.body["message"].as_str().is_some_and(|m| !m.is_empty()), "{}", reply.text);
    for key in super::object_keys(&reply.body) {
        assert!(
            ["status", "message", "code", "errors"].contains(&key.as_str()),
            "unexpected key {key}: {}",
            reply.text
        );
    }
}
