//! A shop ready to sell: registered by a partner, with a business unit code, its certificate,
//! a till registered with the CIS (the simulator) and an operator code.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arka::config::ServeArgs;
use arka::fiscal::certificate::Certificate;
use chrono::Utc;
use std::time::Duration;

use serde_json::{Value, json};

use super::sim::SimServer;
use super::{Part, TestServer, branch_body, register_company};

pub const NUIS: &str = "L41323036D";

pub struct Till {
    pub server: TestServer,
    pub token: String,
    pub branch_id: i64,
    pub user_id: i64,
}

/// Limits wide enough for concurrency stories (the spec's figures are tested with the limits).
const ROOMY_LIMITS: &str = "token=6000/m;general=6000/m;fiscal=3000/m,30000/h;interval.products=1s";

pub fn open_till(sim: &SimServer) -> Till {
    open_till_with(sim, |_| {})
}

/// A till whose server settings `configure` adjusts after the simulator's (rate sources, ...).
pub fn open_till_with(sim: &SimServer, configure: impl FnOnce(&mut ServeArgs)) -> Till {
    let server = TestServer::start_with(|args| {
        sim.configure(args);
        args.limits = ROOMY_LIMITS.parse().unwrap();
        configure(args);
    });
    let partner = server.create_partner("desk");
    let shop = register_company(&server, &partner, NUIS);
    let token = shop.token;
    server
        .post_json(
            &format!("/api/v1/on-boarding/branch/{}", shop.branch_id),
            Some(&token),
            &branch_body("Qendër", "ab123cd456"),
        )
        .data(200);
    let p12 = Certificate::generate_self_signed(NUIS, "Shop", chrono::Duration::days(365))
        .unwrap()
        .to_p12("pw")
        .unwrap();
    server
        .post_multipart(
            "/api/v1/on-boarding/certificate",
            Some(&token),
            &[Part::File("certificate_file", "c.p12", &p12), Part::Text("password", "pw")],
        )
        .data(201);
    let device = json!({"branchId": shop.branch_id, "name": "Kasa 1", "fromDate": Utc::now().date_naive().to_string()});
    server.post_json("/api/v1/on-boarding/fiscal-device", Some(&token), &device).data(201);
    server
        .post_json(
            &format!("/api/v1/on-boarding/user/{}", shop.user_id),
            Some(&token),
            &json!({"operatorCode": "op123op123"}),
        )
        .data(200);
    Till { server, token, branch_id: shop.branch_id, user_id: shop.user_id }
}

/// Two coffees at 20 % VAT and a water at 6 % with 10 % off: 285.00 ALL, paid in banknotes.
pub fn coffee_and_water(internal_id: &str) -> Value {
    json!({
        "internalId": internal_id,
        "lines": [
            {"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 2, "price": 120, "total": 240, "vat": 20},
            {"product_name": "Ujë", "product_code": "U1", "unit": "copë", "quantity": 1, "price": 50, "total": 45, "discount": 10, "vat": 6}
        ],
        "payment_method": "BANKNOTE",
    })
}

/// `count` POS connections POSTing at once (the body of each from its index); a 429 (the till's
/// lock was busy) is retried. Returns each call's final status and body, in index order.
pub fn post_at_once(
    till: &Till,
    path: &str,
    count: usize,
    body: impl Fn(usize) -> Value + Sync,
) -> Vec<(u16, Value)> {
    let url = format!("{}{path}", till.server.base_url());
    let token = till.token.as_str();
    let (url, body) = (&url, &body);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..count)
            .map(|i| {
                scope.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .http_status_as_error(false)
                        .timeout_global(Some(Duration::from_secs(60)))
                        .build()
                        .into();
                    for _ in 0..200 {
                        let mut reply = agent
                            .post(url)
                            .header("Authorization", format!("Bearer {token}"))
                            .content_type("application/json")
                            .send(body(i).to_string())
                            .unwrap();
                        let status = reply.status().as_u16();
                        if status == 429 {
                            std::thread::sleep(Duration::from_millis(50));
                            continue;
                        }
                        let text = reply.body_mut().read_to_string().unwrap();
                        return (status, serde_json::from_str(&text).unwrap());
                    }
                    panic!("call {i} never got the lock");
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}
