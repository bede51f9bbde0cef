//! Registration and on-boarding, told the way a POS developer lives it: a partner registers a
//! shop, the shop gets its token, adds business units, cashiers and bank accounts, and checks the
//! connection with /account and /ping.

use crate::common;
use crate::common::{
    Registered, SANDBOX_NUIS, SANDBOX_PARTNER_TOKEN, TestServer, bank_account_body, branch_body, object_keys,
    register_company, register_sandbox, registration_body,
};
use serde_json::{Value, json};

const NUIS: &str = "L41323036D";
const OTHER_NUIS: &str = "M01234567A";

/// A production-like server with a partner, and a shop the partner registered.
fn shop() -> (TestServer, String, Registered) {
    let server = TestServer::start();
    let partner = server.create_partner("Onboarding desk");
    let shop = register_company(&server, &partner, NUIS);
    (server, partner, shop)
}

// --- POST /api/v1/register --------------------------------------------------------------------

#[test]
fn a_partner_registers_a_shop_and_its_token_works_at_once() {
    let server = TestServer::start();
    let partner = server.create_partner("Onboarding desk");

    let reply = server.post_json(
        "/api/v1/register",
        Some(&partner),
        &registration_body(NUIS, "Dyqani Ana sh.p.k.", "ana@dyqani.al"),
    );

    let data = reply.data(201);
    assert_eq!(object_keys(data), ["api_token", "branch", "company", "user"]);
    assert_eq!(object_keys(&data["company"]), ["id", "name", "nuis"]);
    assert_eq!(object_keys(&data["user"]), ["email", "id", "name", "role", "token"]);
    assert_eq!(object_keys(&data["branch"]), ["id", "name"]);
    assert_eq!(data["user"]["role"], "owner");
    assert!(data["company"]["id"].is_i64());
    assert_eq!(data["company"]["nuis"], NUIS);
    assert_eq!(data["company"]["name"], "Dyqani Ana sh.p.k.");
    for key in ["id", "name", "email", "token"] {
        assert!(data["user"].get(key).is_some(), "user.{key}: {data}");
    }
    assert_eq!(data["user"]["email"], "ana@dyqani.al");
    assert!(data["branch"]["id"].is_i64() && data["branch"]["name"].is_string(), "{data}");
    let token = data["api_token"].as_str().expect("api_token");
    assert!(!token.is_empty());
    assert_eq!(data["user"]["token"], data["api_token"], "user.token is the api_token");

    let account = server.get("/api/v1/account", Some(token));
    let account = account.data(200);
    assert_eq!(account["company"], "Dyqani Ana sh.p.k.");
    assert_eq!(account["nipt"], NUIS);
    assert_eq!(account["user"]["id"], data["user"]["id"]);
    assert_eq!(account["user"]["email"], "ana@dyqani.al");
    assert_eq!(account["branch"]["id"], data["branch"]["id"]);
}

#[test]
fn issuer_in_vat_arrives_as_a_boolean_or_as_text() {
    let server = TestServer::start();
    let partner = server.create_partner("Onboarding desk");
    let cases = [
        ("A11111111A", json!(true), true),
        ("B22222222B", json!("true"), true),
        ("C33333333C", json!("false"), false),
        ("D44444444D", json!(false), false),
    ];
    for (nuis, sent, expected) in cases {
        let mut body = registration_body(nuis, "Shop", &format!("{}@shop.al", nuis.to_lowercase()));
        body["issuerInVat"] = sent.clone();
        let reply = server.post_json("/api/v1/register", Some(&partner), &body);
        let token = reply.data(201)["api_token"].as_str().unwrap().to_string();

        let account = server.get("/api/v1/account", Some(&token));
        assert_eq!(
            account.data(200)["vatConfigs"]["issuerInVat"],
            json!(expected),
            "issuerInVat sent as {sent}"
        );
    }

    let mut unclear = registration_body("E55555555E", "Shop", "e@shop.al");
    unclear["issuerInVat"] = json!("maybe");
    server.post_json("/api/v1/register", Some(&partner), &unclear).assert_invalid("issuerInVat");
    unclear.as_object_mut().unwrap().remove("issuerInVat");
    server.post_json("/api/v1/register", Some(&partner), &unclear).assert_invalid("issuerInVat");
}

#[test]
fn a_bad_nuis_or_a_missing_name_is_named_in_a_422() {
    let server = TestServer::start();
    let partner = server.create_partner("Onboarding desk");

    let bad_nuis = registration_body("12345", "Shop", "a@shop.al");
    server.post_json("/api/v1/register", Some(&partner), &bad_nuis).assert_invalid("nuis");

    let mut no_name = registration_body(NUIS, "Shop", "a@shop.al");
    no_name.as_object_mut().unwrap().remove("name");
    let reply = server.post_json("/api/v1/register", Some(&partner), &no_name);
    reply.assert_invalid("name");
    assert_eq!(reply.invalid_fields(), ["name"], "only the missing field is named");
}

#[test]
fn registration_is_closed_without_a_partner_token() {
    let (server, _partner, shop) = shop();
    let body = registration_body(OTHER_NUIS, "Shop", "b@shop.al");

    server.post_json("/api/v1/register", None, &body).assert_unauthenticated();
    server.post_json("/api/v1/register", Some("arka_p_not_a_partner"), &body).assert_unauthenticated();
    // A shop's own token is known, but it may not register companies.
    server.post_json("/api/v1/register", Some(&shop.token), &body).assert_error(403);
}

#[test]
fn get_register_is_a_ping_for_partners() {
    let server = TestServer::start();
    let partner = server.create_partner("Onboarding desk");
    let pong = server.get("/api/v1/register", Some(&partner));
    assert_eq!(object_keys(pong.data(200)), ["pong"]);
    assert!(pong.data(200)["pong"].as_i64().unwrap() > 1_700_000_000, "a Unix time");
    server.get("/api/v1/register", None).assert_unauthenticated();
}

#[test]
fn in_the_sandbox_registration_repeats_under_the_sandbox_company() {
    let server = TestServer::sandbox();

    let first = register_sandbox(&server);
    let second = register_sandbox(&server);

    assert_eq!(first.company_id, second.company_id, "both land in the sandbox company");
    assert_ne!(first.user_id, second.user_id);
    assert_ne!(first.token, second.token);
    assert_ne!(first.email, second.email, "each e-mail gets a unique suffix");
    for r in [&first, &second] {
        let account = server.get("/api/v1/account", Some(&r.token));
        let account = account.data(200);
        assert_eq!(account["nipt"], SANDBOX_NUIS);
        assert_eq!(account["user"]["email"], json!(r.email));
    }
}

#[test]
fn the_sandbox_partner_token_means_nothing_on_a_production_server() {
    let server = TestServer::start();
    let body = registration_body(SANDBOX_NUIS, "Shop", "a@shop.al");
    server.post_json("/api/v1/register", Some(SANDBOX_PARTNER_TOKEN), &body).assert_unauthenticated();
}

// --- business units ---------------------------------------------------------------------------

#[test]
fn a_shop_adds_a_business_unit_and_renames_it() {
    let (server, _partner, shop) = shop();

    let reply = server.post_json(
        "/api/v1/on-boarding/branch",
        Some(&shop.token),
        &branch_body("Dyqani Blloku", "ab123cd456"),
    );
    let branch = &reply.data(201)["branch"];
    assert_eq!(object_keys(branch), ["address", "businessUnitCode", "city", "id", "name"]);
    assert_eq!(branch["name"], "Dyqani Blloku");
    assert_eq!(branch["businessUnitCode"], "ab123cd456");
    assert_eq!(branch["address"], "Rruga Myslym Shyri 5");
    let id = branch["id"].as_i64().unwrap();

    let reply = server.post_json(
        &format!("/api/v1/on-boarding/branch/{id}"),
        Some(&shop.token),
        &branch_body("Dyqani Blloku 2", "xy987zw654"),
    );
    let updated = &reply.data(200)["branch"];
    assert_eq!(updated["id"], json!(id));
    assert_eq!(updated["name"], "Dyqani Blloku 2");
    assert_eq!(updated["businessUnitCode"], "xy987zw654");
    assert_eq!(updated["address"], "Rruga Myslym Shyri 5");
}

#[test]
fn a_business_unit_needs_a_proper_code_and_an_address() {
    let (server, _partner, shop) = shop();

    let bad_code = branch_body("Dyqani", "AB-123");
    server
        .post_json("/api/v1/on-boarding/branch", Some(&shop.token), &bad_code)
        .assert_invalid("businessUnitCode");

    let mut no_address = branch_body("Dyqani", "ab123cd456");
    no_address.as_object_mut().unwrap().remove("address");
    server.post_json("/api/v1/on-boarding/branch", Some(&shop.token), &no_address).assert_invalid("address");
}

#[test]
fn another_companys_business_unit_does_not_exist_for_me() {
    let (server, partner, shop) = shop();
    let neighbour = register_company(&server, &partner, OTHER_NUIS);

    let reply = server.post_json(
        &format!("/api/v1/on-boarding/branch/{}", neighbour.branch_id),
        Some(&shop.token),
        &branch_body("Taken over", "ab123cd456"),
    );
    reply.assert_error(404);
    let missing = server.post_json(
        "/api/v1/on-boarding/branch/999999",
        Some(&shop.token),
        &branch_body("Nowhere", "ab123cd456"),
    );
    missing.assert_error(404);
}

// --- users ------------------------------------------------------------------------------------

fn cashier_body(email: &str, branch_id: i64) -> Value {
    json!({
        "name": "Arben Kasa",
        "email": email,
        "branchId": branch_id,
        "operatorCode": "op123op123",
    })
}

#[test]
fn a_shop_adds_a_cashier_whose_own_token_carries_the_operator_code() {
    let (server, _partner, shop) = shop();

    let reply = server.post_json(
        "/api/v1/on-boarding/user",
        Some(&shop.token),
        &cashier_body("arben@shop.al", shop.branch_id),
    );
    let user = &reply.data(201)["user"];
    assert_eq!(
        object_keys(user),
        ["branchId", "fiscalTcrCode", "id", "name", "operatorCode", "role", "token"]
    );
    assert_eq!(user["branchId"], json!(shop.branch_id));
    assert_eq!(user["name"], "Arben Kasa");
    assert_eq!(user["operatorCode"], "op123op123");
    let token = user["token"].as_str().unwrap();
    assert_ne!(token, shop.token);

    let account = server.get("/api/v1/account", Some(token));
    let account = account.data(200);
    assert_eq!(account["user"]["id"], user["id"]);
    assert_eq!(account["user"]["email"], "arben@shop.al");
    assert_eq!(account["user"]["operatorCode"], "op123op123");
    assert_eq!(account["user"]["fiscalTcrCode"], Value::Null, "no device until one is registered");
    assert_eq!(account["branch"]["id"], json!(shop.branch_id));
    assert_eq!(account["nipt"], NUIS);
}

#[test]
fn a_taken_email_or_an_unknown_unit_is_a_soft_failure() {
    let (server, partner, shop) = shop();
    let neighbour = register_company(&server, &partner, OTHER_NUIS);

    let taken = server.post_json(
        "/api/v1/on-boarding/user",
        Some(&shop.token),
        &cashier_body(&shop.email, shop.branch_id),
    );
    taken.assert_error(200);
    assert!(!taken.body["message"].as_str().unwrap().is_empty());

    let nowhere =
        server.post_json("/api/v1/on-boarding/user", Some(&shop.token), &cashier_body("x@shop.al", 999_999));
    nowhere.assert_error(200);

    // E-mails are compared without regard to case.
    let shouted = server.post_json(
        "/api/v1/on-boarding/user",
        Some(&shop.token),
        &cashier_body(&shop.email.to_uppercase(), shop.branch_id),
    );
    shouted.assert_error(200);

    // The neighbour's unit is as unknown as one that does not exist.
    let theirs = server.post_json(
        "/api/v1/on-boarding/user",
        Some(&shop.token),
        &cashier_body("y@shop.al", neighbour.branch_id),
    );
    theirs.assert_error(200);
}

#[test]
fn a_cashier_gets_a_new_operator_code_and_unit() {
    let (server, partner, shop) = shop();
    let neighbour = register_company(&server, &partner, OTHER_NUIS);
    let reply = server.post_json(
        "/api/v1/on-boarding/user",
        Some(&shop.token),
        &cashier_body("arben@shop.al", shop.branch_id),
    );
    let cashier_id = reply.data(201)["user"]["id"].as_i64().unwrap();
    let cashier_token = reply.body["data"]["user"]["token"].as_str().unwrap().to_string();
    let second_unit = server.post_json(
        "/api/v1/on-boarding/branch",
        Some(&shop.token),
        &branch_body("Dyqani Kombinat", "kb111kb111"),
    );
    let second_unit = second_unit.data(201)["branch"]["id"].as_i64().unwrap();
    // The cashier's token is in use (its caller is kept between requests) when the change comes.
    let before = server.get("/api/v1/account", Some(&cashier_token));
    assert_eq!(before.data(200)["user"]["operatorCode"], "op123op123");

    let reply = server.post_json(
        &format!("/api/v1/on-boarding/user/{cashier_id}"),
        Some(&shop.token),
        &json!({"operatorCode": "nw456nw456", "branchId": second_unit}),
    );
    let user = &reply.data(200)["user"];
    assert_eq!(user["id"], json!(cashier_id));
    assert_eq!(user["name"], "Arben Kasa");
    assert_eq!(user["operatorCode"], "nw456nw456");
    assert_eq!(
        object_keys(user),
        ["branchId", "fiscalTcrCode", "id", "name", "operatorCode", "role"],
        "no token"
    );

    // The very next request sees the change.
    let account = server.get("/api/v1/account", Some(&cashier_token));
    let account = account.data(200);
    assert_eq!(account["user"]["operatorCode"], "nw456nw456");
    assert_eq!(account["branch"]["id"], json!(second_unit));
    assert_eq!(account["branch"]["businessUnitCode"], "kb111kb111");

    // Someone else's user is not found.
    let reply = server.post_json(
        &format!("/api/v1/on-boarding/user/{}", neighbour.user_id),
        Some(&shop.token),
        &json!({"operatorCode": "zz999zz999"}),
    );
    reply.assert_error(404);
}

// --- bank accounts ----------------------------------------------------------------------------

#[test]
fn a_shop_stores_a_bank_account() {
    let (server, _partner, shop) = shop();

    let reply = server.post_json(
        "/api/v1/on-boarding/bank-account",
        Some(&shop.token),
        &bank_account_body("BKT lekë"),
    );
    assert_eq!(object_keys(reply.data(201)), ["bankAccount"]);
    let account = &reply.data(201)["bankAccount"];
    assert_eq!(object_keys(account), ["currency", "holder", "iban", "id", "name", "notes", "swift"]);
    assert_eq!(account["name"], "BKT lekë");
    assert_eq!(account["holder"], "Dyqani Ana sh.p.k.");
    assert_eq!(account["iban"], "AL47212110090000000235698741");
    assert_eq!(account["swift"], "BKTRALTR");
    assert_eq!(account["currency"], "ALL");
    assert_eq!(account["notes"], "main account");

    let id = account["id"].as_i64().unwrap();
    let one = server.get(&format!("/api/v1/bank-accounts/{id}"), Some(&shop.token));
    assert_eq!(&one.data(200)["bankAccount"], account);
}

#[test]
fn an_iban_with_a_wrong_checksum_is_refused() {
    let (server, _partner, shop) = shop();
    let mut body = bank_account_body("BKT");
    body["iban"] = json!("AL48212110090000000235698741");
    let reply = server.post_json("/api/v1/on-boarding/bank-account", Some(&shop.token), &body);
    reply.assert_invalid("iban");
    assert_eq!(reply.invalid_fields(), ["iban"]);
}

#[test]
fn the_bank_account_list_pages_with_a_total_and_caps_the_limit() {
    let (server, _partner, shop) = shop();
    let mut ids = Vec::new();
    for name in ["BKT lekë", "Raiffeisen euro", "Credins lekë"] {
        let reply =
            server.post_json("/api/v1/on-boarding/bank-account", Some(&shop.token), &bank_account_body(name));
        ids.push(reply.data(201)["bankAccount"]["id"].as_i64().unwrap());
    }

    let reply = server.get("/api/v1/bank-accounts?limit=500", Some(&shop.token));
    let data = reply.data(200);
    assert_eq!(object_keys(data), ["items", "pagination"]);
    let items = data["items"].as_array().expect("data.items");
    assert_eq!(items.len(), 3);
    assert_eq!(
        object_keys(&items[0]),
        ["bank_name", "currency", "holder", "iban", "id", "name", "notes", "swift"]
    );
    assert_eq!(items[0]["bank_name"], items[0]["name"]);
    assert_eq!(data["pagination"], json!({"records": 3, "total": 3, "limit": 100, "offset": 0}));
    let listed: Vec<i64> = items.iter().map(|i| i["id"].as_i64().unwrap()).collect();
    ids.reverse();
    assert_eq!(listed, ids, "newest first");
    assert_eq!(items[0]["iban"], "AL47212110090000000235698741");

    // A cashier of the same shop has an interval of their own, and reads a later page.
    let cashier = server.post_json(
        "/api/v1/on-boarding/user",
        Some(&shop.token),
        &cashier_body("arben@shop.al", shop.branch_id),
    );
    let cashier_token = cashier.data(201)["user"]["token"].as_str().unwrap().to_string();
    let reply = server.get("/api/v1/bank-accounts?limit=2&offset=1", Some(&cashier_token));
    let data = reply.data(200);
    assert_eq!(data["pagination"], json!({"records": 2, "total": 3, "limit": 2, "offset": 1}));
    assert_eq!(data["items"][0]["id"], json!(ids[1]));
}

#[test]
fn a_bad_limit_or_offset_is_named() {
    let server = TestServer::sandbox();
    // Each call with a fresh token: the list has its 10 s interval per token.
    let cases = [("limit=abc", "limit"), ("limit=0", "limit"), ("offset=-1", "offset")];
    for (query, field) in cases {
        let shop = common::register_sandbox(&server);
        server.get(&format!("/api/v1/bank-accounts?{query}"), Some(&shop.token)).assert_invalid(field);
    }
}

#[test]
fn another_companys_bank_account_is_not_found() {
    let (server, partner, shop) = shop();
    let neighbour = register_company(&server, &partner, OTHER_NUIS);
    let reply = server.post_json(
        "/api/v1/on-boarding/bank-account",
        Some(&neighbour.token),
        &bank_account_body("Theirs"),
    );
    let theirs = reply.data(201)["bankAccount"]["id"].as_i64().unwrap();

    server.get(&format!("/api/v1/bank-accounts/{theirs}"), Some(&shop.token)).assert_error(404);
    server.get("/api/v1/bank-accounts/999999", Some(&shop.token)).assert_error(404);
    server.get("/api/v1/bank-accounts/abc", Some(&shop.token)).assert_error(404);
    let mine = server.get("/api/v1/bank-accounts", Some(&shop.token));
    assert_eq!(mine.data(200)["pagination"]["total"], 0, "the neighbour's account is not in my list");
}

// --- the connection test ----------------------------------------------------------------------

#[test]
fn account_shows_the_shop_as_pos_apps_read_it() {
    let (server, _partner, shop) = shop();

    let reply = server.get("/api/v1/account", Some(&shop.token));
    let data = reply.data(200);
    for key in ["company", "nipt", "branch", "user", "vatConfigs", "cert"] {
        assert!(data.get(key).is_some(), "data.{key}: {data}");
    }
    assert!(data["company"].is_string(), "company is the company's name: {data}");
    assert_eq!(data["company"], format!("Shop {NUIS}"));
    assert_eq!(data["nipt"], NUIS);
    for key in ["id", "name", "businessUnitCode"] {
        assert!(data["branch"].get(key).is_some(), "branch.{key}: {data}");
    }
    assert_eq!(data["branch"]["id"], json!(shop.branch_id));
    for key in ["id", "name", "email", "operatorCode", "fiscalTcrCode"] {
        assert!(data["user"].get(key).is_some(), "user.{key}: {data}");
    }
    assert_eq!(data["user"]["id"], json!(shop.user_id));
    assert_eq!(data["user"]["email"], json!(shop.email));
    assert_eq!(data["vatConfigs"], json!({"issuerInVat": true}));
}

#[test]
fn ping_answers_with_the_server_time_and_addresses() {
    let (server, _partner, shop) = shop();
    let before = chrono::Utc::now().timestamp();
    let reply = server.get("/api/v1/ping", Some(&shop.token));
    let after = chrono::Utc::now().timestamp();

    let data = reply.data(200);
    let pong = data["pong"].as_i64().expect("pong is an integer of unix seconds");
    assert!((before - 1..=after + 1).contains(&pong), "pong {pong} is now ({before}..{after})");
    let ips = data["ip"].as_array().expect("ip is an array");
    assert!(!ips.is_empty());
    for ip in ips {
        assert!(ip.as_str().is_some_and(|ip| ip.parse::<std::net::IpAddr>().is_ok()), "an address: {ip}");
    }
}
