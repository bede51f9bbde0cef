//! A shop ready to sell: registered by a partner, with a business unit code, its certificate,
//! a till registered with the CIS (the simulator) and an operator code.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arka::fiscal::certificate::Certificate;
use chrono::Utc;
use std::time::Duration;

use serde_json::{Value, json};

use super::sim::SimServer;
use super::{Part, TestServer, branch_body, registered, registration_body};

pub const NUIS: &str = "L41323036D";

pub struct Till {
    pub server: TestServer,
    pub token: String,
    pub branch_id: i64,
    pub user_id: i64,
    /// The shop's signing certificate, PEM, for outside checks of its signatures.
    pub cert_pem: Vec<u8>,
}

/// Limits wide enough for concurrency stories (the spec's figures are tested with the limits).
pub const ROOMY_LIMITS: &str = "token=6000/m;general=6000/m;fiscal=3000/m,30000/h;interval.products=1s";

pub fn open_till(sim: &SimServer) -> Till {
    open_till_with(sim, 0, ROOMY_LIMITS)
}

/// A shop that moved to Arka mid-year: its last non-cash invoice of the year before Arka was
/// `last_noncash_number` (`lastNonCashEInvoiceNumber` at registration).
pub fn open_till_carrying(sim: &SimServer, last_noncash_number: i64) -> Till {
    open_till_with(sim, last_noncash_number, ROOMY_LIMITS)
}

/// A shop on a server of its own with `limits` (the `--limits` syntax).
pub fn open_till_with(sim: &SimServer, last_noncash_number: i64, limits: &str) -> Till {
    let server = TestServer::start_with(|args| {
        sim.configure(args);
        args.limits = limits.parse().unwrap();
    });
    let shop = on_board(&server, NUIS, last_noncash_number);
    Till {
        server,
        token: shop.token,
        branch_id: shop.branch_id,
        user_id: shop.user_id,
        cert_pem: shop.cert_pem,
    }
}

/// A company on board of `server`: registered by a partner, its business unit coded, its
/// certificate uploaded, its till registered with the CIS, its user with an operator code.
pub struct Shop {
    pub token: String,
    pub branch_id: i64,
    pub user_id: i64,
    pub cert_pem: Vec<u8>,
}

pub fn on_board(server: &TestServer, nuis: &str, last_noncash_number: i64) -> Shop {
    let partner = server.create_partner("desk");
    let mut body =
        registration_body(nuis, &format!("Shop {nuis}"), &format!("owner.{}@shop.al", nuis.to_lowercase()));
    body["lastNonCashEInvoiceNumber"] = json!(last_noncash_number);
    let shop = registered(&server.post_json("/api/v1/register", Some(&partner), &body));
    let token = shop.token;
    server
        .post_json(
            &format!("/api/v1/on-boarding/branch/{}", shop.branch_id),
            Some(&token),
            &branch_body("Qendër", "ab123cd456"),
        )
        .data(200);
    let certificate = Certificate::generate_self_signed(nuis, "Shop", chrono::Duration::days(365)).unwrap();
    let p12 = certificate.to_p12("pw").unwrap();
    let cert_pem = openssl::x509::X509::from_der(certificate.cert_der()).unwrap().to_pem().unwrap();
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
    Shop { token, branch_id: shop.branch_id, user_id: shop.user_id, cert_pem }
}

impl Till {
    /// Runs SQL on the server's database, for stories that need chosen times or states.
    pub fn sql(&self, statements: &[String]) {
        let store = arka::store::Store::open(&self.server.data_dir().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| {
                for s in statements {
                    tx.execute(s, ())?;
                }
                Ok(())
            })
            .unwrap();
    }

    /// `GET /api/v1/account`'s data.
    pub fn account(&self) -> Value {
        self.server.get("/api/v1/account", Some(&self.token)).data(200).clone()
    }
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

/// The same sale on account (non-cash, v1) to a business identified by NUIS: 285.00 ALL.
pub fn on_account(internal_id: &str) -> Value {
    let mut body = coffee_and_water(internal_id);
    body["payment_method"] = json!("ACCOUNT");
    body["client"] = json!({"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": "K81234001A"},
                            "address": "Rruga e Kavajës 112", "city": "Tiranë"});
    body
}
