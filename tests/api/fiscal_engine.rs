//! The fiscal engine seen from outside: a shop registers its till with the CIS, looks up a
//! business in the fiscal register, and keeps going while the CIS is away; late documents are
//! delivered once the CIS is back, across a restart, exactly once, with SubseqDelivType set.

use std::time::Duration;

use crate::common::sim::SimServer;
use crate::common::*;
use arka::fiscal::certificate::Certificate;
use arka::fiscal::model::{CashDeposit, CashDepositOperation, Header};
use arka::fiscal::requests;
use arka::store::Store;
use arka::store::fiscal_queue::{self, NewQueued};
use chrono::Utc;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use uuid::Uuid;

const NUIS: &str = "L41323036D";
const BUSINESS_UNIT: &str = "ab123cd456";

/// A production-like shop: registered by a partner, with a business unit code and its own
/// certificate, talking to the simulator as its CIS.
struct Shop {
    server: TestServer,
    token: String,
    branch_id: i64,
}

fn upload_certificate(server: &TestServer, token: &str, certificate: &Certificate) -> Reply {
    let p12 = certificate.to_p12("sekret").unwrap();
    server.post_multipart(
        "/api/v1/on-boarding/certificate",
        Some(token),
        &[Part::File("certificate_file", "shop.p12", &p12), Part::Text("password", "sekret")],
    )
}

fn open_shop(sim: &SimServer) -> Shop {
    let server = TestServer::start_with(|args| sim.configure(args));
    let partner = server.create_partner("desk");
    let registered = register_company(&server, &partner, NUIS);
    let token = registered.token;
    server
        .post_json(
            &format!("/api/v1/on-boarding/branch/{}", registered.branch_id),
            Some(&token),
            &branch_body("Dyqani qendër", BUSINESS_UNIT),
        )
        .data(200);
    let certificate = Certificate::generate_self_signed(NUIS, "Shop", chrono::Duration::days(365)).unwrap();
    upload_certificate(&server, &token, &certificate).data(201);
    Shop { server, token, branch_id: registered.branch_id }
}

fn device_body(branch_id: i64) -> Value {
    json!({"branchId": branch_id, "name": "Kasa 1", "fromDate": Utc::now().date_naive().to_string()})
}

#[test]
fn a_shop_registers_its_till_and_the_code_lands_on_the_user() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);

    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    let device = &reply.data(201)["device"];
    assert_eq!(
        object_keys(device),
        ["businessUnitCode", "fiscalTcrCode", "id", "name", "validFrom", "validTo"]
    );
    let code = device["fiscalTcrCode"].as_str().unwrap();
    assert!(arka::domain::validation::is_registration_code(code), "{code}");
    assert_eq!(device["businessUnitCode"], BUSINESS_UNIT);
    assert_eq!(device["name"], "Kasa 1");
    assert_eq!(device["validTo"], Value::Null);

    let account = shop.server.get("/api/v1/account", Some(&shop.token));
    assert_eq!(account.data(200)["user"]["fiscalTcrCode"], code);
    let account = account.data(200);
    assert_eq!(
        object_keys(account),
        ["branch", "cert", "cisConnection", "company", "fiscalQueue", "nipt", "user", "vatConfigs"]
    );
    assert_eq!(
        object_keys(&account["user"]),
        ["email", "fiscalTcrCode", "id", "name", "operatorCode", "role"]
    );
    assert_eq!(object_keys(&account["branch"]), ["businessUnitCode", "id", "name"]);
    assert_eq!(object_keys(&account["cert"]), ["expiresAt", "expiresSoon", "subject"], "no warning");
    assert_eq!(account["cisConnection"], json!({"state": "online"}));
    assert_eq!(object_keys(&account["vatConfigs"]), ["issuerInVat"]);

    let tcrs = sim.registered()["tcrs"].clone();
    let registered =
        tcrs.as_array().unwrap().iter().find(|t| t["tcr_code"] == code).expect("the CIS knows the till");
    assert_eq!(registered["issuer_nuis"], NUIS);
    assert_eq!(registered["busin_unit_code"], BUSINESS_UNIT);
    let request = sim.requests().into_iter().find(|r| r["operation"] == "RegisterTCR").unwrap();
    assert_eq!(request["signature_verified"], true);
}

#[test]
fn a_till_is_not_registered_while_the_cis_is_away_or_refuses() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);

    sim.mode("down");
    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    reply.assert_error(503);
    let account = shop.server.get("/api/v1/account", Some(&shop.token));
    assert_eq!(account.data(200)["user"]["fiscalTcrCode"], Value::Null, "nothing stored");

    sim.set_mode(json!({"mode": "fault", "fault_code": "48"}));
    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().starts_with("[48] "), "{}", reply.text);

    // The CIS's own fault is not a refusal of the till: try again later.
    sim.set_mode(json!({"mode": "fault", "fault_code": "900"}));
    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    reply.assert_error(503);

    sim.mode("ok");
    shop.server
        .post_json("/api/v1/on-boarding/fiscal-device", Some(&shop.token), &device_body(shop.branch_id))
        .data(201);
}

#[test]
fn a_till_needs_a_business_unit_code_a_valid_body_and_a_certificate() {
    let sim = SimServer::start();
    let server = TestServer::start_with(|args| sim.configure(args));
    let partner = server.create_partner("desk");
    let shop = register_company(&server, &partner, NUIS);
    let path = "/api/v1/on-boarding/fiscal-device";

    server
        .post_json(path, Some(&shop.token), &json!({"name": "Kasa", "fromDate": "2026-11-22"}))
        .assert_invalid("branchId");
    server
        .post_json(path, Some(&shop.token), &json!({"branchId": shop.branch_id, "fromDate": "2026-11-22"}))
        .assert_invalid("name");
    server
        .post_json(
            path,
            Some(&shop.token),
            &json!({"branchId": shop.branch_id, "name": "Kasa", "fromDate": "22.11.2026"}),
        )
        .assert_invalid("fromDate");
    server
        .post_json(
            path,
            Some(&shop.token),
            &json!({"branchId": shop.branch_id, "name": "Kasa", "fromDate": "2026-11-22", "toDate": "2026-01-01"}),
        )
        .assert_invalid("toDate");
    // The unit made at registration has no code from the tax portal yet.
    server.post_json(path, Some(&shop.token), &device_body(shop.branch_id)).assert_invalid("branchId");

    server
        .post_json(
            &format!("/api/v1/on-boarding/branch/{}", shop.branch_id),
            Some(&shop.token),
            &branch_body("Qendër", BUSINESS_UNIT),
        )
        .data(200);
    let reply = server.post_json(path, Some(&shop.token), &device_body(shop.branch_id));
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().contains("certificate"), "{}", reply.text);

    let other = register_company(&server, &partner, "K12345678L");
    server.post_json(path, Some(&other.token), &device_body(shop.branch_id)).assert_invalid("branchId");
    assert!(sim.requests().is_empty(), "nothing reached the CIS");
}

#[test]
fn an_expired_certificate_is_never_used_and_one_near_its_end_is_called_out() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let soon = Certificate::generate_self_signed(NUIS, "Shop", chrono::Duration::days(10)).unwrap();
    upload_certificate(&shop.server, &shop.token, &soon).data(201);
    let cert = shop.server.get("/api/v1/account", Some(&shop.token)).data(200)["cert"].clone();
    assert_eq!(cert["expiresSoon"], true);
    assert_eq!(object_keys(&cert), ["expiresAt", "expiresSoon", "subject", "warning"]);
    assert!(cert["warning"].as_str().unwrap().contains("expires"), "{cert}");

    // An expired certificate is refused at upload, so this one expires after it is stored.
    let expired = Certificate::generate_self_signed(NUIS, "Shop", chrono::Duration::seconds(4)).unwrap();
    upload_certificate(&shop.server, &shop.token, &expired).data(201);
    shop.server.advance_clock(Duration::from_secs(5));
    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().contains("expired"), "{}", reply.text);
    assert!(sim.requests().is_empty(), "no CIS round trip with an expired certificate");
}

#[test]
fn a_business_is_looked_up_in_the_fiscal_register() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let found = shop.server.get("/api/v1/client/search?nipt=K81234001A", Some(&shop.token));
    let data = found.data(200);
    assert_eq!(data["nipt"], "K81234001A");
    assert_eq!(data["name"], "Ushqimore Dardania sh.p.k.");
    assert_eq!(data["city"], "Tiranë");
    assert_eq!(data["verified"], true);
    assert!(data["address"].as_str().is_some());

    shop.server.get("/api/v1/client/search?nipt=K99999999Z", Some(&shop.token)).assert_error(404);
    shop.server.get("/api/v1/client/search?nipt=12345", Some(&shop.token)).assert_invalid("nipt");
    shop.server.get("/api/v1/client/search", Some(&shop.token)).assert_invalid("nipt");
    sim.mode("down");
    shop.server.get("/api/v1/client/search?nipt=K81234001A", Some(&shop.token)).assert_error(503);
}

/// Puts a cash deposit in the queue the way an issue path does when the CIS did not answer.
fn queue_cash_deposit(server: &TestServer, tcr_code: &str, amount: &str) -> String {
    queue_cash_deposit_issued(server, tcr_code, amount, Utc::now())
}

fn queue_cash_deposit_issued(
    server: &TestServer,
    tcr_code: &str,
    amount: &str,
    issued: chrono::DateTime<Utc>,
) -> String {
    let store = Store::open(&server.data_dir().join("arka.db")).unwrap();
    let uuid = Uuid::new_v4();
    let unsigned = requests::register_cash_deposit(
        &Header { uuid, send_date_time: issued, subseq_deliv_type: None },
        &CashDeposit {
            change_date_time: issued,
            operation: CashDepositOperation::Deposit,
            cash_amt: amount.parse::<Decimal>().unwrap(),
            tcr_code: tcr_code.to_string(),
            issuer_nuis: NUIS.to_string(),
        },
    );
    let company_id: i64 = store
        .read_blocking(|c| Ok(c.query_row("SELECT id FROM companies WHERE nuis = ?1", [NUIS], |r| r.get(0))?))
        .unwrap();
    let issued_text = issued.to_rfc3339();
    let uuid_text = uuid.to_string();
    store
        .write_blocking(|tx| {
            fiscal_queue::enqueue(
                tx,
                &NewQueued {
                    company_id,
                    operation: "RegisterCashDepositRequest",
                    document: fiscal_queue::Document::CashAction,
                    document_id: None,
                    document_number: None,
                    tcr_code: Some(tcr_code),
                    header_uuid: &uuid_text,
                    issued_at: &issued_text,
                    unsigned_request: &unsigned,
                    subseq_deliv_type: Some("NOINTERNET"),
                    next_attempt_at: &issued_text,
                    last_error: Some("Timeout"),
                },
            )
        })
        .unwrap();
    uuid_text
}

fn deposits_for(sim: &SimServer, uuid: &str) -> Vec<Value> {
    sim.registered()["cash_deposits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["uuid"] == uuid)
        .cloned()
        .collect()
}

#[test]
fn late_documents_reach_the_cis_once_it_is_back_even_across_a_restart() {
    let sim = SimServer::start();
    let mut shop = open_shop(&sim);
    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    let tcr = reply.data(201)["device"]["fiscalTcrCode"].as_str().unwrap().to_string();

    sim.mode("down");
    let first = queue_cash_deposit(&shop.server, &tcr, "2500.00");
    eventually("a failed attempt", Duration::from_secs(10), || {
        sim.requests().iter().any(|r| r["uuid"] == first.as_str() && r["outcome"] == "dropped")
    });
    let queue = shop.server.get("/api/v1/account", Some(&shop.token)).data(200)["fiscalQueue"].clone();
    assert_eq!(
        object_keys(&queue),
        ["nearLegalLimit", "oldestWaitingSince", "refused", "rejected", "waiting"]
    );
    assert_eq!(queue["waiting"], 1);
    assert!(queue["oldestWaitingSince"].as_str().is_some());
    let listed = arka_ok(&["queue", "--data-dir", shop.server.data_dir().to_str().unwrap()]);
    assert!(listed.contains("RegisterCashDepositRequest") && listed.contains("waiting"), "{listed}");

    // The shop closes for the night; a second deposit waits too.
    let second = queue_cash_deposit(&shop.server, &tcr, "100.00");
    shop.server.restart();
    sim.mode("ok");
    eventually("both deliveries", Duration::from_secs(30), || {
        deposits_for(&sim, &first).len() == 1 && deposits_for(&sim, &second).len() == 1
    });
    for uuid in [&first, &second] {
        let deposit = &deposits_for(&sim, uuid)[0];
        assert_eq!(deposit["subseq_deliv_type"], "NOINTERNET");
        assert_eq!(deposit["deliveries"], 1, "delivered exactly once");
        assert_eq!(deposit["operation"], "DEPOSIT");
    }
    let first_amount = deposits_for(&sim, &first)[0]["cash_amt"].as_f64().unwrap();
    assert!((first_amount - 2500.0).abs() < 1e-9);
    // Oldest first: the first deposit reached the CIS before the second.
    let accepted: Vec<String> = sim
        .requests()
        .iter()
        .filter(|r| r["outcome"] == "accepted" && r["operation"] == "RegisterCashDeposit")
        .map(|r| r["uuid"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(accepted, [first.clone(), second.clone()]);

    eventually("an empty queue", Duration::from_secs(5), || {
        shop.server.get("/api/v1/account", Some(&shop.token)).data(200)["fiscalQueue"]["waiting"] == 0
    });
    // An absence (no second delivery) is seen only by waiting past the queue's next try.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(deposits_for(&sim, &first)[0]["deliveries"], 1, "never delivered twice");
    let listed = arka_ok(&["queue", "--data-dir", shop.server.data_dir().to_str().unwrap()]);
    assert!(listed.contains("Nothing waits"), "{listed}");
}

#[test]
fn a_document_the_cis_refuses_is_kept_with_its_reason_and_not_retried() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    let tcr = reply.data(201)["device"]["fiscalTcrCode"].as_str().unwrap().to_string();

    sim.set_mode(json!({"mode": "fault", "fault_code": "56"}));
    let uuid = queue_cash_deposit(&shop.server, &tcr, "10.00");
    eventually("the refusal", Duration::from_secs(10), || {
        shop.server.get("/api/v1/account", Some(&shop.token)).data(200)["fiscalQueue"]["rejected"] == 1
    });
    // An absence (no retry) is seen only by waiting past the queue's first pause.
    std::thread::sleep(Duration::from_millis(2500));
    let tries = sim.requests().iter().filter(|r| r["uuid"] == uuid.as_str()).count();
    assert_eq!(tries, 1, "a refused document is not retried");
    let listed = arka_ok(&["queue", "--data-dir", shop.server.data_dir().to_str().unwrap()]);
    assert!(listed.contains("rejected") && listed.contains("[56]"), "{listed}");
}

#[test]
fn a_document_close_to_the_48_hour_limit_is_called_out() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let reply = shop.server.post_json(
        "/api/v1/on-boarding/fiscal-device",
        Some(&shop.token),
        &device_body(shop.branch_id),
    );
    let tcr = reply.data(201)["device"]["fiscalTcrCode"].as_str().unwrap().to_string();
    sim.mode("down");
    let uuid =
        queue_cash_deposit_issued(&shop.server, &tcr, "40.00", Utc::now() - chrono::Duration::hours(40));
    let queue = shop.server.get("/api/v1/account", Some(&shop.token)).data(200)["fiscalQueue"].clone();
    assert_eq!(queue["nearLegalLimit"], json!([uuid]));
    let listed = arka_ok(&["queue", "--data-dir", shop.server.data_dir().to_str().unwrap()]);
    assert!(listed.contains("NEAR THE 48 h LIMIT"), "{listed}");
}
