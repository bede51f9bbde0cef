//! Purchase invoices, as a shop reads them over HTTP: the e-invoices suppliers sent it, found on
//! the e-invoice platform (the simulator, seeded through its control API), paged newest first,
//! accepted and paid; served from Arka's copy while the platform is away; and the sandbox's
//! own three on its first start.

use crate::common::einvoice::assert_valid_request;
use crate::common::sim::SimServer;
use crate::common::till::{NUIS, Till, open_till, upload_certificate};
use crate::common::{SANDBOX_NUIS, TestServer, object_keys, register_sandbox};
use chrono::{Duration, Utc};
use chrono_tz::Europe::Tirane;
use serde_json::{Value, json};

/// A supplier the simulator's taxpayer register knows.
const SUPPLIER: &str = "K81234001A";

/// `count` e-invoices `SUPPLIER` sent the till's company today, a minute apart, the last one
/// sent last; returns their EICs newest first.
fn sent_today(sim: &SimServer, count: usize) -> Vec<String> {
    let start = Utc::now().with_timezone(&Tirane).date_naive().and_hms_opt(0, 1, 0).unwrap();
    let mut eics: Vec<String> = (0..count)
        .map(|i| {
            let at = start + Duration::minutes(i64::try_from(i).unwrap());
            let at = at.and_local_timezone(Tirane).unwrap().format("%Y-%m-%dT%H:%M:%S%:z").to_string();
            let held = sim.seed_einvoice(json!({
                "buyer_nuis": NUIS, "seller_nuis": SUPPLIER, "doc_number": format!("{}/2026", 100 + i),
                "amount": 1000 + i, "received_at": at,
            }));
            held["eic"].as_str().unwrap().to_string()
        })
        .collect();
    eics.reverse();
    eics
}

fn page(till: &Till, query: &str) -> Value {
    till.server.get(&format!("/api/v1/purchase-invoices{query}"), Some(&till.token)).data(200).clone()
}

fn eics(data: &Value) -> Vec<String> {
    data["items"].as_array().unwrap().iter().map(|i| i["eic"].as_str().unwrap().to_string()).collect()
}

#[test]
fn purchase_invoices_are_paged_newest_first_then_accepted_and_paid() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let sent = sent_today(&sim, 23);
    let yesterday = (Utc::now().with_timezone(&Tirane) - Duration::days(1)).format("%Y-%m-%dT10:00:00%:z");
    let older = sim.seed_einvoice(json!({
        "buyer_nuis": NUIS, "seller_nuis": "K51234006F", "doc_number": "9/2026", "amount": 60000,
        "received_at": yesterday.to_string(), "status": "PARTIALLY_PAID",
    }));
    sim.seed_einvoice(
        json!({"buyer_nuis": "L01234567B", "seller_nuis": SUPPLIER, "doc_number": "1/2026", "amount": 5}),
    );

    // Today only by default, 20 a page, newest first; an empty page ends the walk.
    let first = page(&till, "");
    assert_eq!(first["pagination"], json!({"records": 20, "page": 1}));
    assert_eq!(first["source"], "platform");
    assert_eq!(eics(&first), sent[..20]);
    let second = page(&till, "?page=2");
    assert_eq!(second["pagination"], json!({"records": 3, "page": 2}));
    assert_eq!(eics(&second), sent[20..]);
    assert!(eics(&page(&till, "?page=3")).is_empty());
    let item = &first["items"][0];
    assert_eq!(item["number"], "122/2026");
    assert_eq!((item["doc_type"].as_str(), item["status"].as_str()), (Some("380"), Some("DELIVERED")));
    assert_eq!(
        (item["seller_nuis"].as_str(), item["seller_name"].as_str()),
        (Some(SUPPLIER), Some("Ushqimore Dardania sh.p.k."))
    );
    assert_eq!((item["amount"].as_f64(), item["currency"].as_str()), (Some(1022.0), Some("ALL")));
    let today = Utc::now().with_timezone(&Tirane).date_naive();
    assert_eq!(item["issue_date"], today.to_string());
    assert_eq!(item["due_date"], (today + Duration::days(30)).to_string());

    // A window of days finds yesterday's too, from another supplier.
    let both_days = page(&till, &format!("?fromDate={}&toDate={today}&page=2", today - Duration::days(1)));
    assert_eq!(eics(&both_days), [&sent[20..], &[older["eic"].as_str().unwrap().to_string()]].concat());
    assert_eq!(both_days["items"][3]["status"], "PARTIALLY_PAID");

    // Accepted, then paid: each next read shows it.
    let eic = &sent[0];
    let path = format!("/api/v1/purchase-invoices/{eic}/status");
    let changed = till.server.post_json(&path, Some(&till.token), &json!({"status": "accepted"}));
    assert_eq!(changed.data(200)["purchase_invoice"]["status"], "ACCEPTED");
    assert_eq!(object_keys(changed.data(200)), ["purchase_invoice"]);
    assert_eq!(changed.data(200)["purchase_invoice"], page(&till, "")["items"][0], "the list's item");
    assert_eq!(page(&till, "")["items"][0]["status"], "ACCEPTED");
    till.server.post_json(&path, Some(&till.token), &json!({"status": "PAID"})).data(200);
    assert_eq!(page(&till, "")["items"][0]["status"], "PAID");
    let held = sim.registered()["einvoices"].as_array().unwrap().clone();
    assert_eq!(held.iter().find(|e| e["eic"] == eic.as_str()).unwrap()["status"], "PAID");

    for operation in ["GetEinvoices", "GetTaxpayers", "EinvoiceChangeStatus"] {
        let requests: Vec<Value> =
            sim.requests().into_iter().filter(|r| r["operation"] == operation).collect();
        assert!(!requests.is_empty(), "{operation} was sent");
        requests.iter().for_each(assert_valid_request);
    }
}

#[test]
fn a_page_already_read_is_served_from_the_copy_while_the_platform_is_away() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let sent = sent_today(&sim, 3);
    assert_eq!(eics(&page(&till, "")), sent);

    sim.set_mode(json!({"mode": "down", "service": "einvoice"}));
    let copy = page(&till, "");
    assert_eq!((copy["source"].as_str(), eics(&copy)), (Some("cache"), sent.clone()));
    assert!(copy["fetched_at"].as_str().unwrap().len() == 19, "since when: {copy}");
    let never_read =
        format!("?fromDate={}", Utc::now().with_timezone(&Tirane).date_naive() - Duration::days(3));
    till.server.get(&format!("/api/v1/purchase-invoices{never_read}"), Some(&till.token)).assert_error(503);
    let path = format!("/api/v1/purchase-invoices/{}/status", sent[0]);
    till.server.post_json(&path, Some(&till.token), &json!({"status": "REFUSED"})).assert_error(503);

    sim.set_mode(json!({"mode": "ok"}));
    let changed = till.server.post_json(&path, Some(&till.token), &json!({"status": "REFUSED"}));
    assert_eq!(changed.data(200)["purchase_invoice"]["status"], "REFUSED");
    assert_eq!(page(&till, "")["source"], "platform");
}

#[test]
fn bad_queries_and_statuses_get_a_clear_answer_and_the_server_goes_on() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let sent = sent_today(&sim, 1);
    let get = |query: &str| till.server.get(&format!("/api/v1/purchase-invoices{query}"), Some(&till.token));
    get("?page=0").assert_invalid("page");
    get("?page=1e30").assert_invalid("page");
    get("?page=9223372036854775807").assert_invalid("page");
    get("?fromDate=22.11.2026").assert_invalid("fromDate");
    get("?fromDate=2026-03-02&toDate=2026-03-01").assert_invalid("toDate");
    get("?fromDate=2020-01-01&toDate=2026-01-01").assert_invalid("toDate");
    get("?toDate=%00").assert_invalid("toDate");
    let post = |eic: &str, body: Value| {
        till.server.post_json(&format!("/api/v1/purchase-invoices/{eic}/status"), Some(&till.token), &body)
    };
    post(&sent[0], json!({"status": "DELIVERED"})).assert_invalid("status");
    post(&sent[0], json!({})).assert_invalid("status");
    post(&sent[0], json!({"status": 1e30})).assert_invalid("status");
    post("8a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d", json!({"status": "PAID"})).assert_error(404);
    post("x%00", json!({"status": "PAID"})).assert_error(404);
    // Another company's e-invoice is not this one's to answer.
    let other = sim.seed_einvoice(
        json!({"buyer_nuis": "L01234567B", "seller_nuis": SUPPLIER, "doc_number": "1/2026", "amount": 5}),
    );
    post(other["eic"].as_str().unwrap(), json!({"status": "PAID"})).assert_error(404);
    assert_eq!(eics(&page(&till, "")), sent);
}

#[test]
fn the_sandbox_company_finds_three_incoming_einvoices_from_two_suppliers() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);
    upload_certificate(&server, &shop.token, SANDBOX_NUIS, 365);
    let listed = server.get("/api/v1/purchase-invoices", Some(&shop.token)).data(200).clone();
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{listed}");
    let mut sellers: Vec<&str> = items.iter().map(|i| i["seller_nuis"].as_str().unwrap()).collect();
    sellers.dedup();
    assert_eq!(sellers.len(), 2, "{listed}");
    assert!(items.iter().all(|i| i["seller_name"].is_string() && i["status"] == "DELIVERED"));
}
