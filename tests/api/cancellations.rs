//! Cancellations as a cashier tells them: the water goes back, then the whole receipt; the till
//! gives the cash back; the CIS sees corrective documents naming the receipt; a cancellation
//! made while the CIS is away reaches it later, once; what cannot be cancelled is refused.

use std::time::Duration;

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::xml::assert_valid_request;
use crate::common::*;
use chrono::Utc;
use serde_json::{Value, json};

fn year() -> String {
    Utc::now().format("%Y").to_string()
}

fn balance(till: &Till) -> f64 {
    till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"].as_f64().unwrap()
}

fn details(till: &Till, id: &Value) -> Value {
    till.server.get(&format!("/api/v2/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"].clone()
}

fn sell(till: &Till, internal_id: &str) -> Value {
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water(internal_id)).data(201)
        ["invoice"]
        .clone()
}

fn water(quantity: Value) -> Value {
    json!({"lines": [{"product_name": "Ujë", "product_code": "U1", "quantity": quantity}]})
}

#[test]
fn the_water_then_the_whole_receipt_go_back_and_the_till_gives_the_cash_back() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let sale = sell(&till, "c-1");
    assert_eq!(balance(&till), 285.0);

    // Part of it, by internalId, in v2: the water (45.00) goes back.
    let reply = till.server.post_json(
        "/api/v2/invoice/cancel-by-internal-id/c-1",
        Some(&till.token),
        &water(json!(1)),
    );
    let water_back = reply.data(200)["invoice"].clone();
    assert_eq!(water_back["number"], format!("2/{}", year()), "the till's cash sequence");
    assert!(water_back["fic"].is_string());
    assert_eq!(water_back["original_invoice_id"], sale["id"]);
    assert_eq!(
        water_back["payment_methods"],
        json!([{"type": "BANKNOTE", "amount": -45.0, "company_card": null, "vouchers": []}])
    );
    assert_eq!(balance(&till), 240.0);

    // Nothing is cancelled twice: the water again, or more than what is left, is 422.
    let reply = till.server.post_json(
        "/api/v2/invoice/cancel-by-internal-id/c-1",
        Some(&till.token),
        &water(json!(1)),
    );
    reply.assert_invalid("lines.0.quantity");
    let reply = till.server.post_json(
        "/api/v2/invoice/cancel-by-internal-id/c-1",
        Some(&till.token),
        &water(json!(0.5)),
    );
    reply.assert_invalid("lines.0.quantity");
    let three_coffees = json!({"lines": [{"product_name": "Kafe", "product_code": "K1", "quantity": 3}]});
    let reply = till.server.post_json(
        &format!("/api/v1/invoice/cancel/{}", sale["id"]),
        Some(&till.token),
        &three_coffees,
    );
    reply.assert_invalid("lines.0.quantity");
    assert!(reply.text.contains("2"), "says what remains: {}", reply.text);

    // The rest, by id, in v1, with no body at all.
    let reply = till.server.post_raw(
        &format!("/api/v1/invoice/cancel/{}", sale["id"]),
        Some(&till.token),
        "application/json",
        b"",
    );
    let rest = reply.data(200)["invoice"].clone();
    assert!(rest.get("payment_methods").is_none(), "v1");
    assert_eq!(balance(&till), 0.0);
    let again = till.server.post_json(
        &format!("/api/v1/invoice/cancel/{}", sale["id"]),
        Some(&till.token),
        &json!({}),
    );
    again.assert_invalid("invoice");

    // The list shows the reversal on the original and the original on each corrective.
    let original = details(&till, &sale["id"]);
    assert!(original["reversed_at"].is_string(), "{original}");
    let corrective = details(&till, &rest["id"]);
    assert_eq!(corrective["document_kind"], "CORRECTIVE");
    assert_eq!(corrective["type"], "CASH");
    assert_eq!(corrective["reversed_by"], sale["id"]);
    assert_eq!(corrective["original_invoice_id"], sale["id"]);
    assert_eq!(corrective["amount"]["gross"], json!(-240.0));
    assert_eq!(corrective["lines"][0]["quantity"], json!(-2.0));
    assert_eq!(corrective["lines"][0]["unitPrice"], json!(120.0));
    let listed = till.server.get("/api/v1/invoice?limit=10", Some(&till.token)).data(200)["items"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 3, "the sale and its two corrective documents");

    // The CIS saw two CORRECTIVE documents naming the sale, with negative totals.
    let registered = sim.registered()["invoices"].clone();
    let correctives: Vec<&Value> =
        registered.as_array().unwrap().iter().filter(|i| i["corrects"] == sale["iic"]).collect();
    assert_eq!(correctives.len(), 2);
    assert!(correctives.iter().all(|c| c["corrective_type"] == "CORRECTIVE"));
    let totals: Vec<f64> = correctives.iter().map(|c| c["tot_price"].as_f64().unwrap()).collect();
    assert_eq!(totals, [-45.0, -240.0]);
    let request =
        sim.requests().into_iter().find(|r| r["iic"] == rest["iic"] && r["outcome"] == "accepted").unwrap();
    assert_valid_request(&request, &till.cert_pem);
}

#[test]
fn what_cannot_be_cancelled_is_refused_and_a_refusal_leaves_nothing() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let post = |path: &str, body: &Value| till.server.post_json(path, Some(&till.token), body);

    // An invoice discount: whole only.
    let mut discounted = coffee_and_water("d-1");
    discounted["invoice_discount_type"] = json!("amount");
    discounted["invoice_discount_value"] = json!(5);
    let sale = post("/api/v1/invoice/cash", &discounted).data(201)["invoice"].clone();
    post(&format!("/api/v1/invoice/cancel/{}", sale["id"]), &water(json!(1))).assert_invalid("lines");

    // A non-cash invoice: whole only, on the business's sequence.
    let invoice = post("/api/v1/invoice/noncash", &on_account("n-1")).data(201)["invoice"].clone();
    post(&format!("/api/v1/invoice/cancel/{}", invoice["id"]), &water(json!(1))).assert_invalid("lines");
    let corrective =
        post(&format!("/api/v2/invoice/cancel/{}", invoice["id"]), &json!({})).data(200)["invoice"].clone();
    assert_eq!(corrective["number"], format!("2/{}", year()));
    assert_eq!(corrective["tcrCode"], Value::Null);
    post(&format!("/api/v1/invoice/cancel/{}", corrective["id"]), &json!({})).assert_invalid("invoice");

    // What names nothing: 404; numbers and characters no line has: 422.
    let other = sell(&till, "o-1");
    post("/api/v1/invoice/cancel/999999", &json!({})).assert_error(404);
    post("/api/v1/invoice/cancel/9223372036854775808", &json!({})).assert_error(404);
    post("/api/v1/invoice/cancel-by-internal-id/never-sent", &json!({})).assert_error(404);
    post(&format!("/api/v1/invoice/cancel/{}", other["id"]), &water(json!(1e30)))
        .assert_invalid("lines.0.quantity");
    let control = json!({"lines": [{"product_name": "Uj\u{0}ë", "product_code": "U1", "quantity": 1}]});
    post(&format!("/api/v1/invoice/cancel/{}", other["id"]), &control).assert_invalid("lines.0.product_name");
    post(&format!("/api/v1/invoice/cancel/{}", other["id"]), &json!({"lines": []})).assert_invalid("lines");
    let neighbour = on_board(&till.server, "K12345678L", 0);
    let reply = till.server.post_json(
        &format!("/api/v1/invoice/cancel/{}", other["id"]),
        Some(&neighbour.token),
        &json!({}),
    );
    reply.assert_error(404);

    // The CIS refuses: nothing is kept, the receipt is as it was.
    let before = till.server.get("/api/v1/invoice?limit=100", Some(&till.token)).data(200)["items"]
        .as_array()
        .unwrap()
        .len();
    sim.set_mode(json!({"mode": "fault", "fault_code": "11"}));
    let reply = post(&format!("/api/v1/invoice/cancel/{}", other["id"]), &json!({}));
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().starts_with("[11] "), "{}", reply.text);
    sim.mode("ok");
    let after = till.server.get("/api/v1/invoice?limit=100", Some(&till.token)).data(200)["items"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(before, after);
    assert_eq!(details(&till, &other["id"])["reversed_at"], Value::Null);
    post(&format!("/api/v1/invoice/cancel/{}", other["id"]), &json!({})).data(200);
    post("/api/v1/invoice/cash", &coffee_and_water("after")).data(201);
}

#[test]
fn a_cancellation_while_the_cis_is_away_is_kept_and_delivered_later_exactly_once() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let sale = sell(&till, "away-1");
    sim.mode("down");
    let reply = till.server.post_json(
        &format!("/api/v2/invoice/cancel/{}", sale["id"]),
        Some(&till.token),
        &water(json!(1)),
    );
    let corrective = reply.data(200)["invoice"].clone();
    assert_eq!(corrective["fic"], Value::Null, "saved, queued, answered 200");
    assert_eq!(balance(&till), 240.0, "the cash went back at once");
    sim.mode("ok");
    eventually("the late corrective document", Duration::from_secs(30), || {
        details(&till, &corrective["id"])["fic"].is_string()
    });
    let accepted: Vec<Value> = sim
        .requests()
        .into_iter()
        .filter(|r| r["iic"] == corrective["iic"] && r["outcome"] == "accepted")
        .collect();
    assert_eq!(accepted.len(), 1, "delivered exactly once");
    assert!(matches!(accepted[0]["subseq_deliv_type"].as_str(), Some("NOINTERNET") | Some("SERVICE")));
    let registered = sim.registered()["invoices"].clone();
    let delivered =
        registered.as_array().unwrap().iter().find(|i| i["iic"] == corrective["iic"]).unwrap().clone();
    assert_eq!(delivered["deliveries"], 1);
    assert_eq!(delivered["corrects"], sale["iic"]);
}

#[test]
fn cancellations_have_their_own_limit() {
    let sim = SimServer::start();
    let till = open_till_limited(&sim, &format!("{ROOMY_LIMITS};cancel=2/m"));
    let sales: Vec<Value> = (0..3).map(|i| sell(&till, &format!("l-{i}"))).collect();
    for sale in &sales[..2] {
        till.server
            .post_json(&format!("/api/v1/invoice/cancel/{}", sale["id"]), Some(&till.token), &json!({}))
            .data(200);
    }
    let reply = till.server.post_json(
        &format!("/api/v1/invoice/cancel/{}", sales[2]["id"]),
        Some(&till.token),
        &json!({}),
    );
    reply.assert_throttled();
    sell(&till, "l-after");
}

/// Whether the CIS registered a corrective document of the sale with this IIC, how many.
fn correctives_of(sim: &SimServer, sale: &Value) -> usize {
    sim.registered()["invoices"].as_array().unwrap().iter().filter(|i| i["corrects"] == sale["iic"]).count()
}

#[test]
fn a_cancellation_sent_again_never_issues_a_second_corrective_document() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let post = |path: &str, body: &Value| till.server.post_json(path, Some(&till.token), body);
    let sale = sell(&till, "r-1");
    let one_coffee = json!({"lines": [{"product_name": "Kafe", "product_code": "K1", "quantity": 1}]});

    // With an internalId of its own, a partial cancellation is safe to send again, by
    // internalId or by id, v1 or v2: 409, and details by internalId answer the first document.
    let mut first_coffee = one_coffee.clone();
    first_coffee["internalId"] = json!("return-7");
    let first = post("/api/v2/invoice/cancel-by-internal-id/r-1", &first_coffee).data(200)["invoice"].clone();
    for path in [
        "/api/v1/invoice/cancel-by-internal-id/r-1".to_string(),
        format!("/api/v2/invoice/cancel/{}", sale["id"]),
    ] {
        let again = post(&path, &first_coffee);
        again.assert_error(409);
        assert!(again.body["message"].as_str().unwrap().contains("already issued"), "{}", again.text);
    }
    let read = post("/api/v2/invoice/details/return-7", &json!({}));
    assert_eq!(read.data(200)["invoice"]["id"], first["id"]);
    assert_eq!(read.data(200)["invoice"]["original_invoice_id"], sale["id"]);
    assert_eq!(correctives_of(&sim, &sale), 1);
    assert_eq!(balance(&till), 165.0);

    // Without one, the same lines again while some are left are a second coffee given back,
    // as the cloud service makes it: Arka names it `<original>/cancel-<n>`.
    let second =
        post(&format!("/api/v1/invoice/cancel/{}", sale["id"]), &one_coffee).data(200)["invoice"].clone();
    let read = post("/api/v1/invoice/details/r-1%2Fcancel-2", &json!({}));
    assert_eq!(read.data(200)["invoice"]["id"], second["id"]);
    assert_eq!(correctives_of(&sim, &sale), 2);

    // The whole of what is left, then the same again: 422 naming the last corrective document,
    // not a third document.
    let rest =
        post(&format!("/api/v1/invoice/cancel/{}", sale["id"]), &json!({})).data(200)["invoice"].clone();
    let again = post("/api/v1/invoice/cancel-by-internal-id/r-1", &json!({}));
    again.assert_invalid("invoice");
    assert!(again.body["errors"]["invoice"][0].as_str().unwrap().contains("r-1/cancel-3"), "{}", again.text);
    assert_eq!(correctives_of(&sim, &sale), 3);
    assert_eq!(balance(&till), 0.0);
    assert_eq!(details(&till, &rest["id"])["amount"]["gross"], json!(-45.0));

    // A corrective document's internalId is checked as an invoice's.
    let other = sell(&till, "r-2");
    let path = format!("/api/v1/invoice/cancel/{}", other["id"]);
    post(&path, &json!({"internalId": "  "})).assert_invalid("internalId");
    post(&path, &json!({"internalId": "x".repeat(256)})).assert_invalid("internalId");
    post(&path, &json!({"internalId": "r-1"})).assert_error(409);
    assert_eq!(correctives_of(&sim, &other), 0);
}

/// The spec's cancellation routes list no 409: an invoice with nothing left to cancel "cannot be
/// cancelled in its state", 422, whichever way it is asked, and the message names the
/// corrective document a POS retrying after a timeout reads back by its internalId.
#[test]
fn an_invoice_already_wholly_cancelled_is_422_naming_its_corrective_document_every_way_it_is_asked() {
    let sim = SimServer::start();
    let till = open_till_limited(&sim, &format!("{ROOMY_LIMITS};cancel=600/m"));
    let post = |path: &str, body: &Value| till.server.post_json(path, Some(&till.token), body);
    let sale = sell(&till, "w-1");
    let whole =
        post(&format!("/api/v2/invoice/cancel/{}", sale["id"]), &json!({})).data(200)["invoice"].clone();
    let named = whole["number"].as_str().unwrap().to_string();
    let one_coffee = json!({"lines": [{"product_name": "Kafe", "product_code": "K1", "quantity": 1}]});
    let mut with_own_id = json!({});
    with_own_id["internalId"] = json!("w-1-again");
    for version in ["v1", "v2"] {
        for path in [
            format!("/api/{version}/invoice/cancel/{}", sale["id"]),
            format!("/api/{version}/invoice/cancel-by-internal-id/w-1"),
        ] {
            for body in [json!({}), one_coffee.clone(), water(json!(1)), with_own_id.clone()] {
                let again = post(&path, &body);
                again.assert_invalid("invoice");
                let message = again.body["errors"]["invoice"][0].as_str().unwrap();
                assert!(message.contains("already wholly cancelled"), "{path} {body}: {message}");
                assert!(
                    message.contains("w-1/cancel-1") && message.contains(&named),
                    "{path} {body}: {message}"
                );
            }
        }
    }
    // The message's internalId reads the corrective document back.
    let read = post("/api/v2/invoice/details/w-1%2Fcancel-1", &json!({}));
    assert_eq!(read.data(200)["invoice"]["id"], whole["id"]);
    assert_eq!(correctives_of(&sim, &sale), 1);

    // Cancelled in part down to nothing: the same.
    let parted = sell(&till, "w-2");
    let path = format!("/api/v1/invoice/cancel/{}", parted["id"]);
    post(&path, &json!({"lines": [{"product_name": "Kafe", "product_code": "K1", "quantity": 2}]})).data(200);
    post(&path, &water(json!(1))).data(200);
    for body in [water(json!(1)), json!({})] {
        let again = post(&path, &body);
        again.assert_invalid("invoice");
        assert!(
            again.body["errors"]["invoice"][0].as_str().unwrap().contains("w-2/cancel-2"),
            "{}",
            again.text
        );
    }
    assert_eq!(correctives_of(&sim, &parted), 2);
}

#[test]
fn a_cancellation_body_with_a_key_it_does_not_know_is_refused_and_cancels_nothing() {
    let sim = SimServer::start();
    let till = open_till_limited(&sim, &format!("{ROOMY_LIMITS};cancel=600/m"));
    let sale = sell(&till, "typo-1");
    let coffee = json!([{"product_name": "Kafe", "product_code": "K1", "quantity": 1}]);
    let deep = json!({"a": {"b": {"c": [1, {"d": null}]}}});
    // (body, the key the 422 names): a typo of `lines` would otherwise cancel the whole sale.
    let cases = [
        (json!({"line": coffee}), "line"),
        (json!({"Lines": coffee}), "Lines"),
        (json!({"lines ": coffee}), "lines "),
        (json!({"items": coffee}), "items"),
        (json!({"junk": deep}), "junk"),
        (json!({"lines": coffee, "reason": "x"}), "reason"),
        (json!({"lines": [{"product_name": "Kafe", "product_code": "K1", "qty": 1}]}), "lines.0.qty"),
        (json!({"lines": null}), "lines"),
    ];
    let paths = [
        format!("/api/v1/invoice/cancel/{}", sale["id"]),
        format!("/api/v2/invoice/cancel/{}", sale["id"]),
        "/api/v1/invoice/cancel-by-internal-id/typo-1".to_string(),
        "/api/v2/invoice/cancel-by-internal-id/typo-1".to_string(),
    ];
    for path in &paths {
        for (body, key) in &cases {
            let reply = till.server.post_json(path, Some(&till.token), body);
            reply.assert_invalid(key);
            assert_eq!(reply.invalid_fields(), [*key], "{path} {body}: {}", reply.text);
        }
    }
    // Text that is not JSON, or not UTF-8, is not an empty body either.
    let path = &paths[0];
    for (content_type, bytes) in [
        ("text/plain", &b"lines=all"[..]),
        ("application/json", &b"{\"lines\": [{\"product_name\": \"\xff\"}]}"[..]),
        ("application/json", &b"{\"\xff\": 1}"[..]),
    ] {
        till.server.post_raw(path, Some(&till.token), content_type, bytes).assert_invalid("body");
    }

    // Nothing was cancelled: the sale is whole, the till's cash untouched, no corrective sent.
    assert_eq!(details(&till, &sale["id"])["reversed_at"], Value::Null);
    assert_eq!(balance(&till), 285.0);
    assert_eq!(sim.registered()["invoices"].as_array().map(Vec::len), Some(1), "only the sale");

    // The meant part, then exactly `{}` for the rest.
    till.server.post_json(path, Some(&till.token), &json!({"lines": coffee})).data(200);
    assert_eq!(balance(&till), 165.0);
    till.server.post_json(&paths[3], Some(&till.token), &json!({})).data(200);
    assert_eq!(balance(&till), 0.0);
}

/// A part-cancelled invoice is told from a wholly cancelled one, in the list and the details
/// (v1 and v2), with what its cancellations gave back and what remains; the spec's fields keep
/// their meaning.
#[test]
fn a_part_cancelled_invoice_is_listed_as_part_cancelled_with_what_remains() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let sale = sell(&till, "p-1");
    let untouched = sell(&till, "p-2");
    let listed = |version: &str, id: &Value| -> Value {
        let page =
            till.server.get(&format!("/api/{version}/invoice?limit=50"), Some(&till.token)).data(200).clone();
        page["items"].as_array().unwrap().iter().find(|i| &i["id"] == id).unwrap().clone()
    };
    let cancellation = |id: &Value| -> Vec<Value> {
        let mut seen: Vec<Value> =
            ["v1", "v2"].iter().map(|v| listed(v, id)["cancellation"].clone()).collect();
        for version in ["v1", "v2"] {
            let path = format!("/api/{version}/invoice/{id}/details");
            seen.push(till.server.get(&path, Some(&till.token)).data(200)["invoice"]["cancellation"].clone());
        }
        seen
    };
    assert!(cancellation(&sale["id"]).iter().all(Value::is_null), "never cancelled");

    till.server
        .post_json(&format!("/api/v1/invoice/cancel/{}", sale["id"]), Some(&till.token), &water(json!(1)))
        .data(200);
    let part = json!({"state": "partial", "cancelled": 45.0, "remaining": 240.0});
    assert_eq!(cancellation(&sale["id"]), vec![part; 4]);
    assert!(listed("v2", &sale["id"])["reversed_at"].is_string(), "the spec's field as before");
    assert!(cancellation(&untouched["id"]).iter().all(Value::is_null));

    till.server
        .post_json(&format!("/api/v1/invoice/cancel/{}", sale["id"]), Some(&till.token), &json!({}))
        .data(200);
    let whole = json!({"state": "whole", "cancelled": 285.0, "remaining": 0.0});
    assert_eq!(cancellation(&sale["id"]), vec![whole; 4]);
}
