//! The owner's page as the browser and the owner's routes meet it: the page and its files served
//! with their types, caching and Content-Security-Policy; today's sales per till and payment
//! method, each till's cash and day; the documents waiting for the CIS with their ages.

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use serde_json::{Value, json};

fn header<'a>(reply: &'a Reply, name: &str) -> &'a str {
    reply.header(name).unwrap_or_else(|| panic!("no {name} header"))
}

/// The `/web/<version>/<file>` URLs the page loads.
fn page_files(page: &str) -> Vec<String> {
    page.split(['"', '\''])
        .filter(|part| part.starts_with(arka::api::web::ASSET_PREFIX))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_page_and_its_files_are_served_with_their_types_caching_and_policy() {
    let server = TestServer::sandbox();
    let page = server.get("/", None);
    assert_eq!(page.status, 200);
    assert_eq!(header(&page, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(&page, "cache-control"), "no-cache", "the page is revalidated every time");
    let policy = header(&page, "content-security-policy");
    assert_eq!(policy, arka::api::web::CONTENT_SECURITY_POLICY);
    for directive in
        ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]
    {
        assert!(policy.contains(directive), "{directive} in {policy}");
    }
    assert!(!policy.contains("http"), "the policy names no outside origin: {policy}");
    assert_eq!(header(&page, "x-content-type-options"), "nosniff");

    // Unchanged since the browser's copy: 304 without a body.
    let etag = header(&page, "etag").to_string();
    let again = server.request("GET", "/", &[("If-None-Match", &etag)], None);
    assert_eq!(again.status, 304);
    assert!(again.text.is_empty());

    let files = page_files(&page.text);
    let version = arka::api::web::version();
    assert!(files.iter().any(|f| f.ends_with("/app.js")) && files.iter().any(|f| f.ends_with("/style.css")));
    for a in arka::api::web::ASSETS {
        let path = format!("/web/{version}/{}", a.name);
        let reply = server.get(&path, None);
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(header(&reply, "content-type"), a.content_type, "{path}");
        assert_eq!(header(&reply, "cache-control"), "public, max-age=31536000, immutable", "{path}");
        assert_eq!(reply.text.as_bytes(), a.bytes, "{path} is the embedded file");
        let etag = header(&reply, "etag").to_string();
        assert_eq!(server.request("GET", &path, &[("If-None-Match", &etag)], None).status, 304);
    }
    // A page loaded before an upgrade asks for the old version: it gets the file, not cached for good.
    let stale = server.get("/web/0000000000000000/app.js", None);
    assert_eq!(stale.status, 200);
    assert_eq!(header(&stale, "cache-control"), "no-cache");
    // Nothing else is served from there; the answer is the API's 404 envelope.
    let missing = server.get(&format!("/web/{version}/secrets.txt"), None);
    assert_eq!(missing.status, 404);
    assert_eq!(missing.body["status"], false);
    let traversal = server.get(&format!("/web/{version}/..%2F..%2FCargo.toml"), None);
    assert_eq!(traversal.status, 404);
}

#[test]
fn the_api_stays_behind_its_token_beside_the_page() {
    let server = TestServer::sandbox();
    server.get("/api/v1/owner/today", None).assert_unauthenticated();
    server.get("/api/v1/owner/queue", None).assert_unauthenticated();
    server.get("/api/v1/owner/today", Some("not-a-token")).assert_unauthenticated();
}

fn sell(till: &Till, internal_id: &str, method: &str, price: u32) -> Value {
    let body = json!({
        "internalId": internal_id,
        "payment_method": method,
        "lines": [{"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 1, "price": price, "total": price, "vat": 20}],
    });
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &body).data(201)["invoice"].clone()
}

#[test]
fn today_shows_sales_by_till_and_payment_method_each_tills_cash_and_day() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    assert_eq!(today["totals"]["receipts"], 0);
    assert_eq!(today["totals"]["gross"], 0.0);
    assert_eq!(today["tills"][0]["fiscal_tcr_code"], till.tcr_code.as_str());
    assert_eq!(today["tills"][0]["mine"], true);
    assert_eq!(today["tills"][0]["day"]["state"], "not_opened");
    assert_eq!(today["noncash"], Value::Null);

    till.server
        .post_json("/api/v1/cash-register/open-balance", Some(&till.token), &json!({"amount": 1000}))
        .data(201);
    sell(&till, "s-1", "BANKNOTE", 240);
    sell(&till, "s-2", "CARD", 120);
    sell(&till, "s-3", "BANKNOTE", 60);
    let noncash = json!({
        "internalId": "n-1", "payment_method": "ACCOUNT",
        "client": {"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": "K81234001A"}, "address": "Rruga e Kavajës 112", "city": "Tiranë"},
        "lines": [{"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 10, "price": 100, "total": 1000, "vat": 20}],
    });
    till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &noncash).data(201);

    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    //  till        | receipts | BANKNOTE | CARD | ACCOUNT | gross
    //  Kasa 1      | 3        | 300      | 120  |         | 420
    //  non-cash    | 1        |          |      | 1000    | 1000
    //  total       | 4        | 300      | 120  | 1000    | 1420
    assert_eq!(
        today["totals"],
        json!({"receipts": 4, "waiting": 0, "gross": 1420.0, "by_payment_method": {"ACCOUNT": 1000.0, "BANKNOTE": 300.0, "CARD": 120.0}})
    );
    let kasa = &today["tills"][0];
    assert_eq!(
        kasa["sales"],
        json!({"receipts": 3, "waiting": 0, "gross": 420.0, "by_payment_method": {"BANKNOTE": 300.0, "CARD": 120.0}})
    );
    assert_eq!(
        today["noncash"],
        json!({"receipts": 1, "waiting": 0, "gross": 1000.0, "by_payment_method": {"ACCOUNT": 1000.0}})
    );
    // The cash register's own balance is the till's: the float plus every cash invoice.
    let balance =
        till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"].clone();
    assert_eq!(kasa["balance"], balance);
    assert_eq!(kasa["balance"], 1420.0);
    assert_eq!(kasa["day"]["state"], "open");
    assert_eq!(kasa["day"]["opening"], 1000.0);
    assert_eq!(kasa["day"]["cash_sales"], 420.0);
    assert_eq!(kasa["day"]["expected"], balance);

    // The page's totals are the invoice list's.
    let list = till.server.get("/api/v1/invoice?limit=100", Some(&till.token)).data(200).clone();
    let listed: f64 =
        list["items"].as_array().unwrap().iter().map(|i| i["amount"]["gross_all"].as_f64().unwrap()).sum();
    assert_eq!(today["totals"]["gross"].as_f64(), Some(listed));

    till.server
        .post_json("/api/v1/cash-register/close-balance", Some(&till.token), &json!({"counted": 1400}))
        .data(200);
    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    assert_eq!(today["tills"][0]["day"]["state"], "closed");
    assert_eq!(today["tills"][0]["day"]["expected"], Value::Null, "a closed day has no expected cash");
    assert_eq!(today["tills"][0]["balance"], 20.0, "1420 in the drawer, 1400 counted and taken out");
}

#[test]
fn another_companys_token_sees_only_its_own_day_and_queue() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sell(&till, "s-1", "BANKNOTE", 240);
    let partner = till.server.create_partner("other desk");
    let other = onboard(&till.server, &partner, "M01234567A", "zz999zz999");
    let theirs = till.server.get("/api/v1/owner/today", Some(&other.token)).data(200).clone();
    assert_eq!(theirs["totals"]["receipts"], 0);
    let codes: Vec<&str> =
        theirs["tills"].as_array().unwrap().iter().map(|t| t["fiscal_tcr_code"].as_str().unwrap()).collect();
    assert_eq!(codes, [other.tcr_code.as_str()], "only the company's own till");
    let queue = till.server.get("/api/v1/owner/queue", Some(&other.token)).data(200).clone();
    assert_eq!(queue["waiting"], 0);
}

#[test]
fn the_queue_lists_what_waits_oldest_first_with_those_near_the_limit_flagged() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sim.mode("down");
    let mut numbers = Vec::new();
    for id in ["late-1", "late-2"] {
        let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water(id));
        assert_eq!(reply.status, 503, "saved for late delivery: {}", reply.text);
        numbers.push(reply.body["data"]["invoice"]["number"].clone());
    }
    // The day's opening and the first sale have waited 40 hours (the CIS stayed away).
    let long_ago = (chrono::Utc::now() - chrono::Duration::hours(40)).to_rfc3339();
    till.sql(&[format!(
        "UPDATE fiscal_queue SET issued_at = '{long_ago}' WHERE id IN (SELECT id FROM fiscal_queue ORDER BY id LIMIT 2)"
    )]);
    let queue = till.server.get("/api/v1/owner/queue", Some(&till.token)).data(200).clone();
    assert_eq!(queue["waiting"], 3, "the automatic opening and the two sales");
    assert_eq!((queue["warnAfterHours"].as_i64(), queue["legalLimitHours"].as_i64()), (Some(36), Some(48)));
    assert_eq!(queue["oldestAgeHours"], 40);
    let items = queue["items"].as_array().unwrap();
    let near: Vec<bool> = items.iter().map(|i| i["nearLegalLimit"].as_bool().unwrap()).collect();
    assert_eq!(near, [true, true, false], "oldest first");
    assert_eq!(items[0]["document"], "RegisterCashDepositRequest");
    assert_eq!(items[1]["document"], "RegisterInvoiceRequest");
    assert_eq!(items[1]["tcrCode"], till.tcr_code.as_str());
    assert_eq!(items[2]["ageHours"], 0);
    assert_eq!([&items[1]["number"], &items[2]["number"]], [&numbers[0], &numbers[1]]);
    let account = till.account();
    assert_eq!(account["fiscalQueue"]["waiting"], 3, "the account's summary says the same");

    let first = till.server.get("/api/v1/owner/queue?limit=1", Some(&till.token)).data(200).clone();
    assert_eq!(first["items"].as_array().unwrap().len(), 1);
    assert_eq!(first["waiting"], 3, "the count is of everything waiting");

    // A sale made later shows as waiting in today's figures until it is delivered.
    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    assert_eq!(today["totals"]["waiting"], 2);
}

#[test]
fn a_bad_limit_is_refused_naming_it_and_the_server_keeps_writing() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    for limit in ["0", "501", "1e30", "9223372036854775808", "%00", "abc", "-1"] {
        let reply = till.server.get(&format!("/api/v1/owner/queue?limit={limit}"), Some(&till.token));
        reply.assert_invalid("limit");
    }
    // Unknown parameters, control characters among them, change nothing.
    till.server.get("/api/v1/owner/today?date=%00&tcr=1e30", Some(&till.token)).data(200);
    sell(&till, "after", "BANKNOTE", 100);
    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    assert_eq!(today["totals"]["receipts"], 1);
}
