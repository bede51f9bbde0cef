//! A shop with two units and a stock of articles: the owner (who counts the shelves), clerks in
//! the main unit who send the goods out with warehouse transfer notes, a clerk in the second
//! unit, and a recorder on the wire to the CIS simulator.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use super::Reply;
use super::sim::SimServer;
use super::till::{ROOMY_LIMITS, Till, open_till_with};
use super::wire::{Wire, assert_outside_tools_accept};

/// The spec's 30 s between two WTN calls of a token, brought down for stories that issue many.
pub const DEPOT_LIMITS: &str = "interval.wtn=1s";

pub struct Depot {
    pub till: Till,
    pub wire: Wire,
    pub second_unit: i64,
    /// A clerk of the second unit.
    pub second_clerk: String,
    /// Clerks of the main unit, with operator codes and no TCR.
    pub clerks: Vec<String>,
    next: AtomicUsize,
}

/// Retries a call the token's interval (or a busy lock) answered 429, for at most 10 s.
pub fn retrying(mut call: impl FnMut() -> Reply) -> Reply {
    for _ in 0..100 {
        let reply = call();
        if reply.status != 429 {
            return reply;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("still 429 after 10 s");
}

/// A note from the main unit: `lines` as (code, name, quantity), plates and nothing else.
pub fn note(internal_id: Option<&str>, lines: &[(&str, &str, f64)]) -> Value {
    let mut body = json!({
        "vehicle_plates": "aa 123 bb",
        "invoice_lines": lines.iter().map(|(code, name, quantity)| json!({
            "product_name": name, "product_code": code, "unit": "copë", "quantity": quantity,
        })).collect::<Vec<_>>(),
    });
    if let Some(id) = internal_id {
        body["internalId"] = json!(id);
    }
    body
}

pub fn open_depot(sim: &SimServer) -> Depot {
    let wire = Wire::in_front_of(sim);
    let till = open_till_with(sim, |args| {
        wire.configure(args);
        args.limits = format!("{ROOMY_LIMITS};{DEPOT_LIMITS}").parse().unwrap();
    });
    let server = &till.server;
    let branch = json!({
        "name": "Durrës", "businessUnitCode": "cd456ef789", "address": "Lagjja 1, Rruga Tregtare", "city": "Durrës",
    });
    let reply = server.post_json("/api/v1/on-boarding/branch", Some(&till.token), &branch);
    let second_unit = reply.data(201)["branch"]["id"].as_i64().unwrap();
    let user = |name: &str, branch: i64, operator: &str| {
        let body = json!({
            "name": name, "email": format!("{operator}@shop.al"), "branchId": branch, "operatorCode": operator,
        });
        let reply = server.post_json("/api/v1/on-boarding/user", Some(&till.token), &body);
        reply.data(201)["user"]["token"].as_str().unwrap().to_string()
    };
    let clerks = ["op201op201", "op202op202", "op203op203"]
        .iter()
        .map(|op| user("Magazinier", till.branch_id, op))
        .collect();
    let second_clerk = user("Arkëtar Durrës", second_unit, "op301op301");
    Depot { till, wire, second_unit, second_clerk, clerks, next: AtomicUsize::new(0) }
}

impl Depot {
    pub fn owner(&self) -> &str {
        &self.till.token
    }

    /// The next clerk of the main unit, in turn.
    pub fn clerk(&self) -> &str {
        &self.clerks[self.next.fetch_add(1, Ordering::SeqCst) % self.clerks.len()]
    }

    /// Issues a note through `/api/v{version}/invoice/wtn` as `token`.
    pub fn wtn_as(&self, token: &str, version: u8, body: &Value) -> Reply {
        let path = format!("/api/v{version}/invoice/wtn");
        retrying(|| self.till.server.post_json(&path, Some(token), body))
    }

    /// Issues a note as the next clerk.
    pub fn wtn(&self, version: u8, body: &Value) -> Reply {
        self.wtn_as(self.clerk(), version, body)
    }

    pub fn get(&self, path: &str, token: &str) -> Reply {
        retrying(|| self.till.server.get(path, Some(token)))
    }

    /// A product of the catalog; `service: false` makes it an inventory article. Its id.
    pub fn product(&self, code: &str, name: &str, service: bool) -> i64 {
        let body =
            json!({"code": code, "name": name, "last_price": 120, "vat_rate": "20", "service": service});
        let reply = retrying(|| self.till.server.post_json("/api/v1/products", Some(self.owner()), &body));
        reply.data(201)["product"]["id"].as_i64().unwrap()
    }

    /// The owner's count, delivery or correction of `product` in `unit` (the owner's when None).
    pub fn adjust(&self, product: i64, unit: Option<i64>, kind: &str, quantity: f64) -> Reply {
        let mut body = json!({"kind": kind, "quantity": quantity, "note": "inventar"});
        if let Some(unit) = unit {
            body["business_unit_id"] = json!(unit);
        }
        self.till.server.post_json(
            &format!("/api/v1/stock/products/{product}/adjustments"),
            Some(self.owner()),
            &body,
        )
    }

    /// What the unit of `token`'s user holds of `product`, from the mobile stock list.
    pub fn shelf(&self, token: &str, product: i64) -> f64 {
        let reply = self.get(&format!("/api/v1/mobile/products/stock?ids={product}"), token);
        reply.data(200)["products"][0]["quantity"].as_f64().unwrap()
    }

    /// Every RegisterWTNRequest Arka sent passes xmllint against the schema and xmlsec1; their count.
    pub fn assert_every_wtn_request_passes_outside_tools(&self) -> usize {
        let sent = self.wire.requests("RegisterWTNRequest");
        for soap in &sent {
            assert_outside_tools_accept("RegisterWTNRequest", soap);
        }
        sent.len()
    }
}
