//! The first start of a production box: it prints a one-time setup code, and a browser sets
//! the shop up step by step (the business, the owner, the certificate, the business unit, the
//! tills, the cashiers with their pairing cards, a test sale), each step kept as it is done.

use std::time::Duration;

use crate::common;
use crate::common::people::{Browser, OWNER_EMAIL, OWNER_PASSWORD, SHOP_NUIS, business_body, owner_body};
use crate::common::process::ServerProcess;
use crate::common::sim::SimServer;
use crate::common::{Part, TestServer, object_keys, setup_code_in};
use arka::config::BoxPeers;
use arka::fiscal::certificate::Certificate;
use serde_json::{Value, json};

/// A production server where no request counts as made from the box (all tests run on
/// loopback), so only the setup code opens the wizard.
fn code_only(sim: Option<&SimServer>) -> TestServer {
    TestServer::start_with(|args| {
        args.setup_from_box = BoxPeers::None;
        if let Some(sim) = sim {
            sim.configure(args);
        }
    })
}

fn with_code(code: &str) -> Vec<(&str, &str)> {
    vec![("X-Setup-Code", code)]
}

fn post_with_code(server: &TestServer, path: &str, code: &str, body: &Value) -> common::Reply {
    server.request("POST", path, &with_code(code), Some(("application/json", body.to_string().as_bytes())))
}

/// The setup code `arka serve` printed on its console (read from its stdout).
fn printed_code(server: &mut ServerProcess) -> String {
    let mut code = None;
    common::eventually("the setup code is printed", Duration::from_secs(10), || {
        code = server.printed_now().iter().find_map(|l| setup_code_in(l));
        code.is_some()
    });
    code.unwrap()
}

fn step_done(setup: &Value, step: &str) -> bool {
    setup["steps"].as_array().unwrap().iter().any(|s| s["step"] == step && s["done"] == true)
}

#[test]
fn a_fresh_production_server_prints_a_setup_code_on_its_console_and_in_its_log() {
    let data = tempfile::tempdir().unwrap();
    let mut first = ServerProcess::start(data.path(), &[]);
    let code = printed_code(&mut first);
    assert_eq!(code.len(), 11, "{code}");
    assert!(code.chars().all(|c| c == '-' || c.is_ascii_uppercase() || c.is_ascii_digit()), "{code}");
    assert!(!code.contains(['0', 'O', '1', 'I', 'L']), "no letter read two ways: {code}");
    assert!(first.stderr().contains(&code), "the log has it too: {}", first.stderr());
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut reply = agent.get(format!("{}/api/v1/setup", first.base_url)).call().unwrap();
    let setup: Value = serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(setup["data"]["claimed"], false);
    assert_eq!(setup["data"]["next"], "business");
    assert!(setup["data"]["setupCodeExpiresAt"].is_string(), "{setup}");
    assert!(first.terminate().success());

    // Each start while the box has no owner prints a new one; the old one stops working.
    let mut second = ServerProcess::start(data.path(), &[]);
    let again = printed_code(&mut second);
    assert_ne!(again, code);
    let check = |code: &str| {
        let mut reply = agent
            .post(format!("{}/api/v1/setup/code", second.base_url))
            .header("Content-Type", "application/json")
            .send(json!({"code": code}).to_string())
            .unwrap();
        (reply.status().as_u16(), reply.body_mut().read_to_string().unwrap())
    };
    assert_eq!(check(&code).0, 422, "the first start's code is replaced");
    assert_eq!(check(&again.to_lowercase().replace('-', " ")).0, 200, "typed in any case, with a space");
    assert!(second.terminate().success());

    // A sandbox has its company: no code.
    let sandbox_data = tempfile::tempdir().unwrap();
    let mut sandbox = ServerProcess::start(sandbox_data.path(), &["--sandbox"]);
    assert!(sandbox.printed_now().iter().all(|l| setup_code_in(l).is_none()), "{:?}", sandbox.printed);
    assert!(sandbox.terminate().success());
}

#[test]
fn the_first_company_needs_the_code_when_no_request_counts_as_the_box() {
    let server = code_only(None);
    let code = server.setup_code();
    let anonymous = Browser::new(&server);
    assert_eq!(anonymous.get("/api/v1/setup").data(200)["fromBox"], false);

    let refused = server.post_json("/api/v1/setup/business", None, &business_body());
    refused.assert_error(403);
    assert!(refused.body["message"].as_str().unwrap().contains("setup code"), "{}", refused.text);
    post_with_code(&server, "/api/v1/setup/business", "ABCDE-FGHJK", &business_body()).assert_error(403);
    server.post_json("/api/v1/setup/owner", None, &owner_body()).assert_error(403);
    server.post_json("/api/v1/setup/code", None, &json!({"code": "ABCDE-FGHJK"})).assert_invalid("code");
    assert!(server.get("/api/v1/setup", None).data(200)["business"].is_null(), "nothing was saved");

    // The wizard's first screen checks the code; the steps carry it in X-Setup-Code.
    assert_eq!(
        server.post_json("/api/v1/setup/code", None, &json!({"code": code})).data(200),
        &json!({"accepted": true})
    );
    let bad = post_with_code(
        &server,
        "/api/v1/setup/business",
        &code,
        &json!({"nuis": "123", "name": "", "issuerInVat": true}),
    );
    bad.assert_invalid("nuis");
    bad.assert_invalid("name");
    let saved = post_with_code(&server, "/api/v1/setup/business", &code, &business_body());
    assert_eq!(saved.data(200)["business"]["nuis"], SHOP_NUIS);
    assert_eq!(object_keys(saved.data(200)), ["business"]);
    assert_eq!(object_keys(&saved.data(200)["business"]), ["address", "issuerInVat", "name", "nuis"]);
    let weak = post_with_code(
        &server,
        "/api/v1/setup/owner",
        &code,
        &json!({"name": "Ana", "email": "ana@x", "password": "short"}),
    );
    weak.assert_invalid("email");
    weak.assert_invalid("password");

    let owner = post_with_code(&server, "/api/v1/setup/owner", &code, &owner_body());
    let data = owner.data(201).clone();
    assert_eq!((data["owner"].clone(), data["via"].clone()), (json!(true), json!("session")));
    assert_eq!(data["company"]["nuis"], SHOP_NUIS);
    assert!(common::people::set_cookie(&owner).is_some(), "the owner is signed in");

    // Used: the code makes nothing more, and the box is claimed for anyone who asks.
    let second = post_with_code(
        &server,
        "/api/v1/setup/owner",
        &code,
        &json!({"name": "Eve", "email": "eve@x.al", "password": "Eve-takes-over-1"}),
    );
    second.assert_error(409);
    post_with_code(&server, "/api/v1/setup/business", &code, &business_body()).assert_error(409);
    let setup = server.get("/api/v1/setup", None).data(200).clone();
    assert_eq!(setup["claimed"], true);
    assert_eq!(setup["steps"], json!([]), "the steps are the owner's to see");
    assert!(setup["setupCodeExpiresAt"].is_null());
    let mut page = Browser::new(&server);
    page.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
}

#[test]
fn wrong_setup_codes_slow_the_address_that_guesses() {
    let server = code_only(None);
    let code = server.setup_code();
    for n in 0..3 {
        let reply = server.post_json("/api/v1/setup/code", None, &json!({"code": format!("WRONG-{n:05}")}));
        reply.assert_invalid("code");
    }
    // The next guess waits, even the right code; once the wait is over the right code works.
    let waiting = server.post_json("/api/v1/setup/code", None, &json!({"code": code}));
    waiting.assert_throttled();
    server.advance_clock(Duration::from_secs(1));
    server.post_json("/api/v1/setup/code", None, &json!({"code": code})).data(200);
}

/// The owner's step takes their operator code (issue 42: without one the owner could not cancel
/// a sale); the test sale, made in the cashier's name, is the owner's entry in the trail; the
/// owner cancels it.
#[test]
fn the_owner_gives_an_operator_code_in_the_wizard_and_cancels_the_test_sale() {
    let sim = SimServer::start();
    let server = TestServer::start_with(|args| sim.configure(args));
    let mut page = Browser::new(&server);
    page.post("/api/v1/setup/business", &business_body()).data(200);
    let mut owner = owner_body();
    owner["operatorCode"] = json!("ab12");
    page.post("/api/v1/setup/owner", &owner).assert_invalid("operatorCode");
    owner["operatorCode"] = json!("op111op111");
    let me = page.post("/api/v1/setup/owner", &owner).data(201)["user"].clone();
    assert_eq!(me["operatorCode"], "op111op111");
    let mine =
        Certificate::generate_self_signed(SHOP_NUIS, "Dyqani Ana", chrono::Duration::days(365)).unwrap();
    upload(&mut page, &mine.to_p12("pw").unwrap(), "pw").data(201);
    let unit =
        json!({"name": "Dyqani qendër", "businessUnitCode": "xy123xy123", "address": "Rruga e Durrësit 12"});
    page.post("/api/v1/setup/unit", &unit).data(201);
    let till =
        page.post("/api/v1/setup/devices", &json!({"name": "Kasa 1"})).data(201)["device"]["fiscalTcrCode"]
            .as_str()
            .unwrap()
            .to_string();
    let cashier = json!({"name": "Besa Kola", "email": "besa@dyqani-ana.al", "operatorCode": "op123op123", "fiscalTcrCode": till});
    let cashier_id = page.post("/api/v1/setup/cashiers", &cashier).data(201)["user"]["id"].as_i64().unwrap();
    let sale = page.post("/api/v1/setup/test-sale", &json!({"cashierId": cashier_id})).data(201).clone();
    let sale_id = sale["invoice"]["id"].as_i64().unwrap();

    let trail = page.get("/api/v1/audit?action=invoice.test_sale").data(200).clone();
    let entry = &trail["entries"][0];
    assert_eq!((entry["userId"].clone(), entry["role"].clone()), (me["id"].clone(), json!("owner")));
    assert_eq!(entry["object"], sale_id.to_string());
    assert_eq!(entry["after"]["cashier"], cashier_id);
    assert_eq!(trail["total"], 1);

    let cancelled = page.post(&format!("/api/v1/invoice/cancel/{sale_id}"), &json!({}));
    assert_eq!(cancelled.status, 200, "{}", cancelled.text);
    assert_ne!(
        cancelled.body["status"], false,
        "the owner's operator code signs the cancellation: {}",
        cancelled.text
    );
}

#[test]
fn a_browser_on_the_box_itself_needs_no_code() {
    let server = TestServer::start();
    let mut page = Browser::new(&server);
    let setup = page.get("/api/v1/setup").data(200).clone();
    assert_eq!((setup["fromBox"].clone(), setup["next"].clone()), (json!(true), json!("business")));
    page.post("/api/v1/setup/business", &business_body()).data(200);
    page.post("/api/v1/setup/owner", &owner_body()).data(201);
    let setup = page.get("/api/v1/setup").data(200).clone();
    assert!(step_done(&setup, "owner"));
    assert_eq!(setup["next"], "certificate");
    assert_eq!(setup["details"]["company"]["nuis"], SHOP_NUIS);
}

#[test]
fn the_setup_steps_resume_after_a_restart_and_end_with_a_test_sale_whose_receipt_is_a_pdf() {
    let sim = SimServer::start();
    let mut server = code_only(Some(&sim));
    let code = server.setup_code();
    post_with_code(&server, "/api/v1/setup/business", &code, &business_body()).data(200);

    // A restart: the business is kept, the old code is gone, the new one goes on.
    server.restart();
    let fresh = server.setup_code();
    assert_ne!(fresh, code);
    let setup = server.get("/api/v1/setup", None).data(200).clone();
    assert_eq!(setup["business"]["nuis"], SHOP_NUIS);
    assert_eq!(object_keys(&setup["business"]), ["address", "issuerInVat", "name", "nuis"]);
    assert!(step_done(&setup, "business"));
    assert_eq!(setup["next"], "owner");
    post_with_code(&server, "/api/v1/setup/owner", &code, &owner_body()).assert_error(403);
    let owner = post_with_code(&server, "/api/v1/setup/owner", &fresh, &owner_body());
    owner.data(201);
    let mut page = Browser::new(&server);
    page.adopt(&owner);

    // The certificate: another NUIS's and an expired one are refused in words.
    let other =
        Certificate::generate_self_signed("K12345678L", "Another shop", chrono::Duration::days(365)).unwrap();
    let refused = upload(&mut page, &other.to_p12("pw").unwrap(), "pw");
    refused.assert_invalid("certificate_file");
    assert!(refused.text.contains("K12345678L") && refused.text.contains(SHOP_NUIS), "{}", refused.text);
    let expired = openssl_p12_expired(SHOP_NUIS);
    let refused = upload(&mut page, &expired, "pw");
    refused.assert_invalid("certificate_file");
    assert!(refused.text.contains("expired on"), "{}", refused.text);
    upload(&mut page, b"not a p12", "pw").assert_invalid("certificate_file");
    let mine =
        Certificate::generate_self_signed(SHOP_NUIS, "Dyqani Ana", chrono::Duration::days(365)).unwrap();
    upload(&mut page, &mine.to_p12("pw").unwrap(), "nope").assert_invalid("password");
    let cert = upload(&mut page, &mine.to_p12("pw").unwrap(), "pw").data(201)["cert"].clone();
    assert_eq!(cert["nuis"], SHOP_NUIS);
    assert!(cert["subject"].as_str().unwrap().contains(SHOP_NUIS), "{cert}");
    assert!(cert["validFrom"].is_string() && cert["expiresAt"].is_string(), "{cert}");

    // Another restart: the signed-in page goes on where it was.
    let cookie = page.cookie.clone();
    let csrf = page.csrf.clone();
    drop(page);
    server.restart();
    let mut page = Browser { server: &server, cookie, csrf };
    let setup = page.get("/api/v1/setup").data(200).clone();
    assert!(step_done(&setup, "certificate"));
    assert_eq!(setup["next"], "unit");
    assert!(server.console().iter().all(|l| setup_code_in(l).is_none()), "a claimed box prints no code");

    page.post("/api/v1/setup/unit", &json!({"name": "Dyqani qendër", "businessUnitCode": "ab12"}))
        .assert_invalid("businessUnitCode");
    let unit = page.post(
        "/api/v1/setup/unit",
        &json!({"name": "Dyqani qendër", "businessUnitCode": "xy123xy123", "address": "Rruga e Durrësit 12", "city": "Tiranë"}),
    );
    let branch_id = unit.data(201)["branch"]["id"].as_i64().unwrap();
    assert_eq!(page.get("/api/v1/setup").data(200)["next"], "devices");

    let device = page.post("/api/v1/setup/devices", &json!({"name": "Kasa 1"}));
    let device = device.data(201)["device"].clone();
    assert_eq!(
        object_keys(&device),
        ["branchId", "businessUnitCode", "fiscalTcrCode", "id", "name", "validFrom", "validTo"]
    );
    assert_eq!(device["branchId"], branch_id);
    let till = device["fiscalTcrCode"].as_str().unwrap().to_string();
    assert_eq!(page.get("/api/v1/setup").data(200)["next"], "cashiers");

    let no_till = page.post(
        "/api/v1/setup/cashiers",
        &json!({"name": "Besa", "email": "besa@dyqani-ana.al", "operatorCode": "op123op123"}),
    );
    no_till.assert_invalid("fiscalTcrCode");
    let cashier = page.post(
        "/api/v1/setup/cashiers",
        &json!({"name": "Besa Kola", "email": "besa@dyqani-ana.al", "operatorCode": "op123op123", "fiscalTcrCode": till}),
    );
    let cashier = cashier.data(201).clone();
    assert_eq!(cashier["user"]["fiscalTcrCode"], till.as_str());
    assert_eq!(cashier["user"]["branchId"], branch_id, "the till's unit");
    assert_eq!(cashier["pairingCard"]["token"], cashier["token"]);
    assert_eq!(page.get("/api/v1/setup").data(200)["next"], "testSale");

    let sale = page.post("/api/v1/setup/test-sale", &json!({}));
    let sale = sale.data(201).clone();
    assert_eq!(sale["fiscalized"], true, "{sale}");
    assert_eq!(sale["cashierId"], cashier["user"]["id"]);
    assert!(sale["invoice"]["fic"].as_str().is_some_and(|f| !f.is_empty()), "{sale}");
    let pdf = page.get_bytes(sale["printUrl"].as_str().unwrap());
    assert!(pdf.starts_with(b"%PDF"), "a PDF the page opens");
    let text = common::pdftotext(&pdf);
    assert!(text.contains("Shitje prove"), "{text}");

    let setup = page.get("/api/v1/setup").data(200).clone();
    assert_eq!(setup["complete"], true, "{setup}");
    assert!(setup["next"].is_null());
    assert_eq!(setup["details"]["devices"][0]["fiscalTcrCode"], till.as_str());
    let details = &setup["details"];
    assert_eq!(object_keys(details), ["certificate", "company", "devices", "units", "users"]);
    assert_eq!(object_keys(&details["company"]), ["address", "id", "issuerInVat", "name", "nuis"]);
    assert_eq!(object_keys(&details["certificate"]), ["expiresAt", "nuis", "serial", "subject", "validFrom"]);
    assert_eq!(object_keys(&details["units"][0]), ["address", "businessUnitCode", "city", "id", "name"]);
    assert_eq!(
        object_keys(&details["devices"][0]),
        ["branchId", "businessUnitCode", "fiscalTcrCode", "id", "name"]
    );
    assert_eq!(setup["details"]["users"].as_array().unwrap().len(), 2);
    assert_eq!(sim.registered()["invoices"].as_array().map(Vec::len), Some(1), "the CIS has the receipt");
}

#[test]
fn the_owners_steps_need_the_owner() {
    let server = TestServer::start();
    let mut owner = Browser::new(&server);
    owner.post("/api/v1/setup/business", &business_body()).data(200);
    owner.post("/api/v1/setup/owner", &owner_body()).data(201);
    let branch_id = owner.get("/api/v1/session").data(200)["user"]["branchId"].as_i64().unwrap();
    let user = owner
        .post("/api/v1/on-boarding/user", &json!({"name": "Besa", "email": "besa@dyqani-ana.al", "branchId": branch_id, "operatorCode": "op123op123"}))
        .data(201)["user"]
        .clone();
    let token = user["token"].as_str().unwrap();
    let unit = json!({"name": "Dyqani", "businessUnitCode": "xy123xy123", "address": "Rruga 1"});
    server.post_json("/api/v1/setup/unit", Some(token), &unit).assert_error(403);
    server.post_json("/api/v1/setup/unit", None, &unit).assert_unauthenticated();
    server.post_json("/api/v1/setup/test-sale", Some(token), &json!({})).assert_error(403);
    // The cashier sees no steps; the owner does.
    assert_eq!(server.get("/api/v1/setup", Some(token)).data(200)["steps"], json!([]));
    assert!(owner.get("/api/v1/setup").data(200)["steps"].as_array().is_some_and(|s| s.len() == 7));
}

#[test]
fn a_cashiers_pairing_card_is_a_qr_code_of_the_documented_url() {
    let sim = SimServer::start();
    let server = TestServer::start_with(|args| sim.configure(args));
    let mut page = Browser::new(&server);
    page.post("/api/v1/setup/business", &business_body()).data(200);
    page.post("/api/v1/setup/owner", &owner_body()).data(201);
    let mine =
        Certificate::generate_self_signed(SHOP_NUIS, "Dyqani Ana", chrono::Duration::days(365)).unwrap();
    upload(&mut page, &mine.to_p12("pw").unwrap(), "pw").data(201);
    page.post(
        "/api/v1/setup/unit",
        &json!({"name": "Dyqani", "businessUnitCode": "xy123xy123", "address": "Rruga 1"}),
    )
    .data(201);
    let till =
        page.post("/api/v1/setup/devices", &json!({"name": "Kasa 1"})).data(201)["device"]["fiscalTcrCode"]
            .as_str()
            .unwrap()
            .to_string();
    let made = page.post(
        "/api/v1/setup/cashiers",
        &json!({"name": "Besa Kola", "email": "besa@dyqani-ana.al", "operatorCode": "op123op123", "fiscalTcrCode": till}),
    );
    let made = made.data(201).clone();
    let card = &made["pairingCard"];
    let token = made["token"].as_str().unwrap();
    let expected = format!("{}/#token={token}", server.base_url());
    assert_eq!(card["serverUrl"], server.base_url());
    assert_eq!(card["pairingUrl"], expected.as_str());
    assert!(card["tlsFingerprint"].is_null(), "plain HTTP");
    assert!(
        card["warning"].as_str().is_some_and(|w| w.contains("--public-url")),
        "127.0.0.1 is the box's own: {card}"
    );
    assert_eq!(decode_qr(card["qrSvg"].as_str().unwrap()), expected);
    assert_eq!(server.get("/api/v1/session", Some(token)).data(200)["user"]["name"], "Besa Kola");

    // A rotation: a new token and card, the old token is dead at once.
    let cashier_id = made["user"]["id"].as_i64().unwrap();
    let rotated = page.post(&format!("/api/v1/users/{cashier_id}/token"), &json!({})).data(201).clone();
    let new_token = rotated["user"]["token"].as_str().unwrap();
    assert_ne!(new_token, token);
    assert_eq!(
        decode_qr(rotated["pairingCard"]["qrSvg"].as_str().unwrap()),
        format!("{}/#token={new_token}", server.base_url())
    );
    server.get("/api/v1/session", Some(token)).assert_unauthenticated();
    server.get("/api/v1/session", Some(new_token)).data(200);
    // The cashier may not rotate tokens.
    server
        .post_json(&format!("/api/v1/users/{cashier_id}/token"), Some(new_token), &json!({}))
        .assert_error(403);
}

#[test]
fn with_a_public_url_and_https_the_card_names_them_and_the_fingerprint() {
    let server = TestServer::start_with(|args| {
        args.public_url = Some("https://kasa.dyqani-ana.al:8443".to_string());
    });
    let mut page = common::people::owner_from_the_box(&server);
    let owner_id = page.get("/api/v1/session").data(200)["user"]["id"].as_i64().unwrap();
    let card =
        page.post(&format!("/api/v1/users/{owner_id}/token"), &json!({})).data(201)["pairingCard"].clone();
    let token = card["token"].as_str().unwrap();
    assert_eq!(card["pairingUrl"], format!("https://kasa.dyqani-ana.al:8443/#token={token}"));
    assert!(card["warning"].is_null());

    let data = tempfile::tempdir().unwrap();
    let mut tls = ServerProcess::start(data.path(), &["--tls-self-signed"]);
    let fingerprint = tls
        .printed
        .iter()
        .find_map(|l| l.trim().strip_prefix("SHA-256 fingerprint:").map(|f| f.trim().to_string()))
        .expect("the fingerprint is printed");
    let agent = insecure_agent();
    let post = |path: &str, body: Value, cookie: Option<&str>, csrf: Option<&str>| {
        let mut request =
            agent.post(format!("{}{path}", tls.base_url)).header("Content-Type", "application/json");
        if let Some(cookie) = cookie {
            request = request.header("Cookie", cookie);
        }
        if let Some(csrf) = csrf {
            request = request.header("X-CSRF-Token", csrf);
        }
        let mut reply = request.send(body.to_string()).unwrap();
        let set_cookie = reply.headers().get("set-cookie").and_then(|v| v.to_str().ok()).map(str::to_string);
        let body: Value = serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap();
        (body, set_cookie)
    };
    post("/api/v1/setup/business", business_body(), None, None);
    let (owner, set_cookie) = post("/api/v1/setup/owner", owner_body(), None, None);
    let set_cookie = set_cookie.expect("a session cookie");
    assert!(set_cookie.split(';').any(|a| a.trim() == "Secure"), "HTTPS: Secure: {set_cookie}");
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    let csrf = owner["data"]["csrfToken"].as_str().unwrap().to_string();
    let id = owner["data"]["user"]["id"].as_i64().unwrap();
    let (rotated, _) = post(&format!("/api/v1/users/{id}/token"), json!({}), Some(&cookie), Some(&csrf));
    let card = &rotated["data"]["pairingCard"];
    let token = card["token"].as_str().unwrap();
    assert_eq!(card["tlsFingerprint"], fingerprint.as_str());
    let url = format!("{}/#token={token}&sha256={fingerprint}", tls.base_url);
    assert_eq!(card["pairingUrl"], url.as_str());
    assert_eq!(decode_qr(card["qrSvg"].as_str().unwrap()), url);
    assert!(tls.terminate().success());
}

fn insecure_agent() -> ureq::Agent {
    let tls = ureq::tls::TlsConfig::builder()
        .provider(ureq::tls::TlsProvider::NativeTls)
        .disable_verification(true)
        .build();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .tls_config(tls)
        .build()
        .into()
}

fn upload(page: &mut Browser, p12: &[u8], password: &str) -> common::Reply {
    const BOUNDARY: &str = "arka-setup-boundary";
    let mut body = Vec::new();
    for part in [Part::File("certificate_file", "shop.p12", p12), Part::Text("password", password)] {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match part {
            Part::File(name, file, bytes) => {
                body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\n\r\n")
                        .as_bytes(),
                );
                body.extend_from_slice(bytes);
            }
            Part::Text(name, value) => {
                body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
                );
                body.extend_from_slice(value.as_bytes());
            }
        }
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    page.post_bytes("/api/v1/setup/certificate", &format!("multipart/form-data; boundary={BOUNDARY}"), &body)
}

/// A certificate for `nuis` valid through 2020 only, as a PKCS#12 with the password `pw`.
fn openssl_p12_expired(nuis: &str) -> Vec<u8> {
    use openssl::asn1::Asn1Time;
    use openssl::hash::MessageDigest;
    use openssl::pkey::PKey;
    use openssl::rsa::Rsa;
    use openssl::x509::{X509, X509NameBuilder};
    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", nuis).unwrap();
    name.append_entry_by_text("O", "Dyqani Ana").unwrap();
    let name = name.build();
    let mut builder = X509::builder().unwrap();
    builder.set_version(2).unwrap();
    builder.set_subject_name(&name).unwrap();
    builder.set_issuer_name(&name).unwrap();
    builder.set_pubkey(&key).unwrap();
    builder.set_not_before(&Asn1Time::from_str("20200101000000Z").unwrap()).unwrap();
    builder.set_not_after(&Asn1Time::from_str("20210101000000Z").unwrap()).unwrap();
    builder.sign(&key, MessageDigest::sha256()).unwrap();
    let cert = builder.build();
    openssl::pkcs12::Pkcs12::builder()
        .name("old")
        .pkey(&key)
        .cert(&cert)
        .build2("pw")
        .unwrap()
        .to_der()
        .unwrap()
}

/// What zbarimg reads from an SVG QR code.
pub(crate) fn decode_qr(svg: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("card.svg");
    std::fs::write(&path, svg).unwrap();
    let out = std::process::Command::new("zbarimg")
        .args(["-q", "--raw"])
        .arg(&path)
        .output()
        .expect("zbarimg runs");
    assert!(out.status.success(), "zbarimg read nothing: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim_end().to_string()
}
