//! A shop ready to sell: registered by a partner, with a business unit code, its certificate,
//! a till registered with the CIS (the simulator) and an operator code.

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
    pub company_id: i64,
    pub tcr_code: String,
    /// The shop's signing certificate, PEM, for outside checks of its signatures.
    pub cert_pem: Vec<u8>,
}

/// A company ready to sell on a server: its owner's token, unit, user, till and certificate.
pub struct Shop {
    pub token: String,
    pub company_id: i64,
    pub branch_id: i64,
    pub user_id: i64,
    pub tcr_code: String,
    pub cert_pem: Vec<u8>,
}

/// Limits wide enough for concurrency stories (the spec's figures are tested with the limits).
pub const ROOMY_LIMITS: &str = "token=6000/m;general=6000/m;fiscal=3000/m,30000/h;interval.products=1s";

pub fn open_till(sim: &SimServer) -> Till {
    open_till_with(sim, |_| {})
}

/// A till whose server settings `configure` adjusts further (after the roomy limits).
pub fn open_till_with(sim: &SimServer, configure: impl FnOnce(&mut arka::config::ServeArgs)) -> Till {
    open_till_configured(sim, 0, configure)
}

/// A shop that moved to Arka mid-year: its last non-cash invoice of the year before Arka was
/// `last_noncash_number` (`lastNonCashEInvoiceNumber` at registration).
pub fn open_till_carrying(sim: &SimServer, last_noncash_number: i64) -> Till {
    open_till_configured(sim, last_noncash_number, |_| {})
}

/// A shop on a server of its own with `limits` (the `--limits` syntax).
pub fn open_till_limited(sim: &SimServer, limits: &str) -> Till {
    let limits = limits.to_string();
    open_till_configured(sim, 0, move |args| args.limits = limits.parse().unwrap())
}

fn open_till_configured(
    sim: &SimServer,
    last_noncash_number: i64,
    configure: impl FnOnce(&mut arka::config::ServeArgs),
) -> Till {
    let server = TestServer::start_with(|args| {
        sim.configure(args);
        args.limits = ROOMY_LIMITS.parse().unwrap();
        configure(args);
    });
    onboard_till(server, last_noncash_number)
}

/// Registers and on-boards the shop on `server` (already pointed at a simulator).
pub fn onboard_till(server: TestServer, last_noncash_number: i64) -> Till {
    let partner = server.create_partner("desk");
    let shop = onboard_carrying(&server, &partner, NUIS, "ab123cd456", last_noncash_number);
    Till {
        server,
        token: shop.token,
        branch_id: shop.branch_id,
        user_id: shop.user_id,
        company_id: shop.company_id,
        tcr_code: shop.tcr_code,
        cert_pem: shop.cert_pem,
    }
}

/// Registers the company `nuis` through `partner` and on-boards it: the registration's unit
/// gets `unit_code`, then a certificate for the NUIS, a till registered with the CIS, and an
/// operator code on the owner, who sells.
pub fn onboard(server: &TestServer, partner: &str, nuis: &str, unit_code: &str) -> Shop {
    onboard_carrying(server, partner, nuis, unit_code, 0)
}

/// Another company on board of `server`, through a partner of its own.
pub fn on_board(server: &TestServer, nuis: &str, last_noncash_number: i64) -> Shop {
    let partner = server.create_partner("desk");
    onboard_carrying(server, &partner, nuis, "ab123cd456", last_noncash_number)
}

/// [`onboard`] for a company whose last non-cash invoice before Arka was `last_noncash_number`.
pub fn onboard_carrying(
    server: &TestServer,
    partner: &str,
    nuis: &str,
    unit_code: &str,
    last_noncash_number: i64,
) -> Shop {
    let email = format!("owner.{}@shop.al", nuis.to_lowercase());
    let mut body = registration_body(nuis, &format!("Shop {nuis}"), &email);
    body["lastNonCashEInvoiceNumber"] = json!(last_noncash_number);
    let shop = registered(&server.post_json("/api/v1/register", Some(partner), &body));
    let token = shop.token;
    server
        .post_json(
            &format!("/api/v1/on-boarding/branch/{}", shop.branch_id),
            Some(&token),
            &branch_body("Qendër", unit_code),
        )
        .data(200);
    let cert_pem = upload_certificate(server, &token, nuis, 365);
    let device = json!({"branchId": shop.branch_id, "name": "Kasa 1", "fromDate": Utc::now().date_naive().to_string()});
    let reply = server.post_json("/api/v1/on-boarding/fiscal-device", Some(&token), &device);
    let tcr_code = reply.data(201)["device"]["fiscalTcrCode"].as_str().unwrap().to_string();
    server
        .post_json(
            &format!("/api/v1/on-boarding/user/{}", shop.user_id),
            Some(&token),
            &json!({"operatorCode": "op123op123"}),
        )
        .data(200);
    Shop {
        token,
        company_id: shop.company_id,
        branch_id: shop.branch_id,
        user_id: shop.user_id,
        tcr_code,
        cert_pem,
    }
}

impl Till {
    /// Runs SQL on the server's database, for stories that need chosen times or states.
    pub fn sql(&self, statements: &[String]) {
        let store = arka::store::Store::open(&self.server.data_dir().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> arka::store::Result<_> {
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

/// Uploads a new self-signed certificate for `nuis`, valid `days`, as the company's signing one.
pub fn upload_certificate(server: &TestServer, token: &str, nuis: &str, days: i64) -> Vec<u8> {
    let certificate = Certificate::generate_self_signed(nuis, "Shop", chrono::Duration::days(days)).unwrap();
    let p12 = certificate.to_p12("pw").unwrap();
    server
        .post_multipart(
            "/api/v1/on-boarding/certificate",
            Some(token),
            &[Part::File("certificate_file", "c.p12", &p12), Part::Text("password", "pw")],
        )
        .data(201);
    openssl::x509::X509::from_der(certificate.cert_der()).unwrap().to_pem().unwrap()
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

/// An invoice the server acknowledged, and when the answer arrived.
#[derive(Debug, Clone)]
pub struct Acknowledged {
    pub at: std::time::Instant,
    pub id: i64,
    pub number: String,
}

/// `clients` POS connections issuing cash invoices to `base_url` until `stop` is set or each has
/// issued `per_client`. A 429 (the till's lock was busy) is retried; a connection error ends that
/// client (the server stopped). Returns every acknowledged invoice.
pub fn issuing_load(
    base_url: &str,
    token: &str,
    clients: usize,
    per_client: usize,
    stop: &std::sync::atomic::AtomicBool,
) -> Vec<Acknowledged> {
    use std::sync::atomic::Ordering;
    let url = format!("{base_url}/api/v1/invoice/cash");
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|client| {
                let url = &url;
                scope.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .http_status_as_error(false)
                        .timeout_global(Some(Duration::from_secs(30)))
                        .build()
                        .into();
                    let mut acknowledged = Vec::new();
                    let mut attempts = 0;
                    while acknowledged.len() < per_client
                        && attempts < per_client * 50
                        && !stop.load(Ordering::SeqCst)
                    {
                        attempts += 1;
                        let body = coffee_and_water(&format!("load-{client}-{}", acknowledged.len()));
                        let Ok(mut reply) = agent
                            .post(url)
                            .header("Authorization", format!("Bearer {token}"))
                            .content_type("application/json")
                            .send(body.to_string())
                        else {
                            break;
                        };
                        let status = reply.status().as_u16();
                        let Ok(text) = reply.body_mut().read_to_string() else { break };
                        match status {
                            201 => {
                                let answer: Value = serde_json::from_str(&text).unwrap();
                                acknowledged.push(Acknowledged {
                                    at: std::time::Instant::now(),
                                    id: answer["data"]["invoice"]["id"].as_i64().unwrap(),
                                    number: answer["data"]["invoice"]["number"].as_str().unwrap().to_string(),
                                });
                            }
                            429 => std::thread::sleep(Duration::from_millis(20)),
                            other => panic!("client {client}: HTTP {other}: {text}"),
                        }
                    }
                    acknowledged
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

/// Checks, in the database at `db`, that every invoice in `acknowledged` is there with its number
/// and that the cash invoices' numbers run 1, 2, 3, ... without a gap.
pub fn assert_all_present_and_gapless(db: &std::path::Path, acknowledged: &[Acknowledged]) {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    for ack in acknowledged {
        let number: Option<String> =
            conn.query_row("SELECT number FROM invoices WHERE id = ?1", [ack.id], |r| r.get(0)).ok();
        assert_eq!(number.as_deref(), Some(ack.number.as_str()), "acknowledged invoice {} is there", ack.id);
    }
    let mut stmt = conn.prepare("SELECT ord_num FROM invoices WHERE kind = 'CASH' ORDER BY ord_num").unwrap();
    let numbers: Vec<i64> = stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    let expected: Vec<i64> = (1..=i64::try_from(numbers.len()).unwrap()).collect();
    assert_eq!(numbers, expected, "the cash invoices are numbered without a gap");
}

/// The same sale on account (non-cash, v1) to a business identified by NUIS: 285.00 ALL.
pub fn on_account(internal_id: &str) -> Value {
    let mut body = coffee_and_water(internal_id);
    body["payment_method"] = json!("ACCOUNT");
    body["client"] = json!({"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": "K81234001A"},
                            "address": "Rruga e Kavajës 112", "city": "Tiranë"});
    body
}
