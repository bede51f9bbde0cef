//! Late delivery as a shop lives it: the CIS answers with its own faults for a while, refuses a
//! receipt the till already printed, or stays away long enough for the queue's backoff to grow.
//! Nothing a POS was answered with is ever dropped, and the queue drains within seconds of the
//! CIS coming back.

use std::time::Duration;

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use chrono::Utc;
use serde_json::{Value, json};

fn sale_saved_for_later(till: &Till, internal_id: &str) -> Value {
    let reply =
        till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water(internal_id));
    assert_eq!(reply.status, 503, "{}", reply.text);
    assert_eq!(reply.body["status"], false);
    reply.body["data"]["invoice"].clone()
}

fn details(till: &Till, id: &Value) -> Value {
    till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"].clone()
}

/// The simulator's requests for the document with this IIC.
fn tries_of(sim: &SimServer, iic: &Value) -> Vec<Value> {
    sim.requests().into_iter().filter(|r| r["iic"] == *iic).collect()
}

#[test]
fn a_sale_answered_with_the_cis_own_fault_is_saved_retried_and_delivered_once_it_recovers() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sim.set_mode(json!({"mode": "fault", "fault_code": "900"}));

    // The CIS blames itself: the receipt is not refused, it waits like an outage.
    let invoice = sale_saved_for_later(&till, "f-1");
    assert_eq!(invoice["fic"], Value::Null);
    let deposit =
        till.server.post_json("/api/v1/cash-register/deposit", Some(&till.token), &json!({"amount": 500}));
    assert_eq!(deposit.data(201)["fiscal_status"], "PENDING");
    // A non-cash invoice is not kept while the CIS cannot take it, as in an outage.
    till.server
        .post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account("nc-1"))
        .assert_error(503);
    till.server.post_json("/api/v1/invoice/details/nc-1", Some(&till.token), &json!({})).assert_error(404);

    // The queue keeps trying through the faults (the day's opening first: the sale waits
    // behind it), and refuses nothing.
    eventually("a retry through the fault", Duration::from_secs(20), || {
        sim.requests().iter().any(|r| r["subseq_deliv_type"] == "SERVICE" && r["fault_code"] == "900")
    });
    let queue = till.account()["fiscalQueue"].clone();
    assert_eq!(queue["rejected"], 0, "{queue}");
    assert!(queue["waiting"].as_u64().unwrap() >= 2, "{queue}");

    sim.mode("ok");
    let id = invoice["id"].clone();
    eventually("the late delivery", Duration::from_secs(30), || details(&till, &id)["fic"].is_string());
    let accepted: Vec<Value> =
        tries_of(&sim, &invoice["iic"]).into_iter().filter(|r| r["outcome"] == "accepted").collect();
    assert_eq!(accepted.len(), 1, "delivered exactly once");
    assert_eq!(accepted[0]["subseq_deliv_type"], "SERVICE", "the CIS's own trouble is a SERVICE delay");
    eventually("an empty queue", Duration::from_secs(30), || till.account()["fiscalQueue"]["waiting"] == 0);
    till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account("nc-1")).data(201);
}

#[test]
fn offline_sales_are_not_refused_for_good_when_the_cis_comes_back_with_its_own_faults() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sim.mode("down");
    let invoices: Vec<Value> = (0..3).map(|i| sale_saved_for_later(&till, &format!("off-{i}"))).collect();
    sim.set_mode(json!({"mode": "fault", "fault_code": "900"}));
    eventually("the queue meeting the fault", Duration::from_secs(30), || {
        sim.requests().iter().any(|r| r["outcome"] == "fault" && r["fault_code"] == "900")
    });
    sim.set_mode(json!({"mode": "fault", "fault_code": "920"}));
    eventually("the queue meeting the next fault", Duration::from_secs(30), || {
        sim.requests().iter().any(|r| r["outcome"] == "fault" && r["fault_code"] == "920")
    });
    assert_eq!(till.account()["fiscalQueue"]["rejected"], 0);
    sim.mode("ok");
    for invoice in &invoices {
        let id = invoice["id"].clone();
        eventually("each late delivery", Duration::from_secs(40), || details(&till, &id)["fic"].is_string());
        let accepted = tries_of(&sim, &invoice["iic"]).iter().filter(|r| r["outcome"] == "accepted").count();
        assert_eq!(accepted, 1);
    }
}

#[test]
fn a_late_sale_the_cis_refuses_stays_on_record_until_the_owner_sends_it_again() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let data_dir = till.server.data_dir();
    let data_dir = data_dir.to_str().unwrap();
    sim.mode("down");
    let invoice = sale_saved_for_later(&till, "late-1");
    sim.set_mode(json!({"mode": "fault", "fault_code": "11"}));

    // The day's automatic opening and the sale, both refused, both kept.
    eventually("the refusals", Duration::from_secs(30), || {
        till.account()["fiscalQueue"]["refused"].as_array().is_some_and(|r| r.len() == 2)
    });
    let queue = till.account()["fiscalQueue"].clone();
    assert_eq!(queue["rejected"], 2);
    let refused = queue["refused"].as_array().unwrap().clone();
    let sale = refused
        .iter()
        .find(|r| r["document"] == "RegisterInvoiceRequest" && r["number"] == invoice["number"])
        .expect("the sale is listed");
    assert_eq!(
        object_keys(sale),
        ["code", "document", "issuedAt", "number", "numberHeld", "queueId", "reason"]
    );
    assert_eq!(sale["numberHeld"], false, "its POS had it: it waits for its owner");
    assert_eq!(sale["code"], "11");
    assert_eq!(sale["document"], "RegisterInvoiceRequest");
    assert!(sale["reason"].as_str().unwrap().starts_with("[11] "), "{sale}");
    let kept = details(&till, &invoice["id"]);
    assert_eq!(kept["iic"], invoice["iic"], "the printed receipt is still on record");
    assert_eq!(kept["fic"], Value::Null);
    let listed = arka_ok(&["queue", "--data-dir", data_dir]);
    assert!(
        listed.contains("rejected") && listed.contains("[11]") && listed.contains("arka queue resend"),
        "{listed}"
    );

    // Refused is final until the owner acts: no retries.
    let tries = tries_of(&sim, &invoice["iic"]).len();
    // An absence (no retry) is seen only by waiting past the queue's first pause.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(tries_of(&sim, &invoice["iic"]).len(), tries, "a refused document is not retried by itself");

    // The owner corrects the cause (here the CIS itself) and sends both again, opening first.
    sim.mode("ok");
    let mut ids: Vec<i64> = refused.iter().map(|r| r["queueId"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
    let mut args = vec!["queue", "resend"];
    args.extend(ids.iter().map(String::as_str));
    args.extend(["--data-dir", data_dir]);
    let out = arka_ok(&args);
    assert!(out.contains("waits for the CIS again"), "{out}");
    eventually("the re-sent sale", Duration::from_secs(20), || {
        details(&till, &invoice["id"])["fic"].is_string()
    });
    let queue = till.account()["fiscalQueue"].clone();
    assert_eq!(queue["rejected"], 0, "{queue}");
    assert_eq!(queue["refused"], json!([]));
    let actions =
        till.server.get("/api/v1/cash-register/actions", Some(&till.token)).data(200)["items"].clone();
    assert_eq!(actions[0]["fiscal_status"], "FISCALIZED", "{actions}");
    let again = arka(&["queue", "resend", &ids[0], "--data-dir", data_dir]);
    assert!(!again.status.success(), "only a refused document can be sent again");
}

#[test]
fn the_probe_closes_the_breaker_within_seconds_and_the_queue_drains_whatever_its_backoff() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sim.mode("down");
    let invoice = sale_saved_for_later(&till, "long-outage");
    assert_eq!(till.account()["cisConnection"]["state"], "offline");

    // As after a long outage: the queue's next tries are far away. An attempt already under
    // way ends within the CIS time limit (2 s here), so the second write sticks.
    let later = (Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let far_away = vec![format!(
        "UPDATE fiscal_queue SET next_attempt_at = '{later}', attempts = 12 WHERE status = 'waiting'"
    )];
    till.sql(&far_away);
    std::thread::sleep(Duration::from_millis(2500));
    till.sql(&far_away);

    sim.mode("ok");
    eventually("the breaker to close", Duration::from_secs(15), || {
        till.account()["cisConnection"]["state"] == "online"
    });
    eventually("the queue to drain", Duration::from_secs(10), || {
        details(&till, &invoice["id"])["fic"].is_string() && till.account()["fiscalQueue"]["waiting"] == 0
    });
}
