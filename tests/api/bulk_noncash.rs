//! An office sends its month's non-cash invoices in one call: each is issued on its own, a bad
//! one among them gets its own envelope, and the good ones go through.

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use chrono::Utc;
use serde_json::{Value, json};

/// A sale on account, in v1 or v2 shape.
fn noncash(internal_id: &str, v2: bool) -> Value {
    let mut body = on_account(internal_id);
    if v2 {
        body.as_object_mut().unwrap().remove("payment_method");
        body["payment_methods"] = json!([{"type": "ACCOUNT", "amount": 285}]);
    }
    body
}

#[test]
fn a_bad_invoice_among_good_ones_gets_its_own_envelope_and_the_good_ones_go_through() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let year = Utc::now().format("%Y").to_string();
    let mut no_lines = noncash("b-2", true);
    no_lines.as_object_mut().unwrap().remove("lines");
    let mut huge = noncash("b-5", true);
    huge["fee"] = json!(1e30);
    // Another company's bank account, and an id no account has (2^63 - 1).
    let neighbour = on_board(&till.server, "K12345678L", 0);
    let account = till.server.post_json(
        "/api/v1/on-boarding/bank-account",
        Some(&neighbour.token),
        &bank_account_body("BKT"),
    );
    let mut theirs = noncash("b-6", true);
    theirs["bank_account_id"] = account.data(201)["bankAccount"]["id"].clone();
    let mut unknown = noncash("b-7", true);
    unknown["bank_account_id"] = json!(9_223_372_036_854_775_807_i64);
    let mut no_id = noncash("", true);
    no_id.as_object_mut().unwrap().remove("internalId");
    let body = json!({"invoices": [noncash("b-1", true), no_lines, noncash("b-3", true), noncash("b-1", true), no_id, huge, 7, theirs, unknown]});
    let reply = till.server.post_json("/api/v2/invoice/bulk-noncash", Some(&till.token), &body);
    let answers = reply.data(200).clone();
    assert_eq!(
        object_keys(&answers),
        ["b-1", "b-2", "b-3", "b-5", "b-6", "b-7", "invoices.3", "invoices.4", "invoices.6"]
    );

    assert_eq!(answers["b-1"]["status"], true);
    assert_eq!(answers["b-1"]["data"]["invoice"]["number"], format!("1/{year}"));
    assert!(answers["b-1"]["data"]["invoice"]["payment_methods"].is_array(), "v2");
    assert_eq!(answers["b-3"]["data"]["invoice"]["number"], format!("2/{year}"), "the good ones, in order");
    assert_eq!(answers["b-2"]["success"], false);
    assert!(answers["b-2"]["errors"]["lines"].is_array(), "{}", answers["b-2"]);
    assert!(answers["b-5"]["errors"]["fee"].is_array(), "{}", answers["b-5"]);
    for key in ["b-6", "b-7"] {
        assert!(answers[key]["errors"]["bank_account_id"].is_array(), "{}", answers[key]);
    }
    assert_eq!(answers["invoices.3"]["status"], false, "a repeated internalId is not issued twice");
    assert_eq!(
        answers["invoices.4"],
        json!({"status": false, "message": "The internalId field is required."})
    );
    assert!(answers["invoices.6"]["errors"]["body"].is_array(), "{}", answers["invoices.6"]);
    let issued = sim.registered()["invoices"].as_array().unwrap().len();
    assert_eq!(issued, 2);

    // Each entry is what that invoice alone would have been answered: read back, it is the same.
    let alone = till.server.post_json("/api/v2/invoice/details/b-1", Some(&till.token), &json!({}));
    assert_eq!(alone.data(200)["invoice"], answers["b-1"]["data"]["invoice"]);

    // v1, and the CIS away: the invoice is not saved, as alone.
    sim.mode("down");
    let reply = till.server.post_json(
        "/api/v1/invoice/bulk-noncash",
        Some(&till.token),
        &json!({"invoices": [noncash("b-9", false)]}),
    );
    let answers = reply.data(200).clone();
    assert_eq!(answers["b-9"]["status"], false);
    till.server.post_json("/api/v1/invoice/details/b-9", Some(&till.token), &json!({})).assert_error(404);
    sim.mode("ok");
    eventually("the probe to find the CIS back", std::time::Duration::from_secs(15), || {
        till.account()["cisConnection"]["state"] == "online"
    });

    // At most 100 invoices a call, and the bulk budget is 3 calls a minute.
    let many: Vec<Value> = (0..101).map(|i| noncash(&format!("m-{i}"), false)).collect();
    till.server
        .post_json("/api/v1/invoice/bulk-noncash", Some(&till.token), &json!({"invoices": many}))
        .assert_invalid("invoices");
    till.server.post_json("/api/v1/invoice/bulk-noncash", Some(&till.token), &json!({})).assert_throttled();
    till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &noncash("single", false)).data(201);
}

#[test]
fn a_bulk_sent_again_is_answered_409_per_invoice_even_while_the_cis_is_away() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let first = till.server.post_json(
        "/api/v1/invoice/bulk-noncash",
        Some(&till.token),
        &json!({"invoices": [noncash("a-1", false), noncash("a-2", false)]}),
    );
    let first = first.data(200).clone();
    assert_eq!(first["a-1"]["status"], true, "{first}");
    assert_eq!(first["a-2"]["status"], true, "{first}");

    // The office's program timed out and sends the batch again, in v2: nothing is issued twice.
    let again = till.server.post_json(
        "/api/v2/invoice/bulk-noncash",
        Some(&till.token),
        &json!({"invoices": [noncash("a-1", true), noncash("a-2", true)]}),
    );
    let again = again.data(200).clone();
    for key in ["a-1", "a-2"] {
        assert_eq!(again[key]["status"], false, "{again}");
        assert!(again[key]["message"].as_str().unwrap().contains("already issued"), "{again}");
    }

    // And once more while the CIS is away: the invoice was saved, so it is not "not saved".
    sim.mode("down");
    let opened =
        till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &noncash("probe", false));
    assert_eq!(opened.status, 503, "{}", opened.text);
    let offline = till.server.post_json(
        "/api/v1/invoice/bulk-noncash",
        Some(&till.token),
        &json!({"invoices": [noncash("a-1", false)]}),
    );
    let offline = offline.data(200).clone();
    assert_eq!(offline["a-1"]["status"], false, "{offline}");
    assert!(offline["a-1"]["message"].as_str().unwrap().contains("already issued"), "{offline}");
    till.server
        .post_json("/api/v1/invoice/noncash", Some(&till.token), &noncash("a-2", false))
        .assert_error(409);
    let alone = till.server.post_json("/api/v1/invoice/details/a-1", Some(&till.token), &json!({}));
    assert_eq!(alone.data(200)["invoice"]["id"], first["a-1"]["data"]["invoice"]["id"]);
    sim.mode("ok");
    assert_eq!(sim.registered()["invoices"].as_array().unwrap().len(), 2);
}
