//! The delivery marketplace as a POS and Wolt tell it: orders arrive by webhook, the POS accepts,
//! prepares, hands over and fiscalizes them; Wolt refuses, goes away and comes back; keys are
//! replayed; forged webhooks and callers without the add-on, right or venue are turned away.

use std::time::Duration;

use crate::common;
use crate::common::sim::SimServer;
use crate::common::till::coffee_and_water;
use crate::common::wolt::*;
use crate::common::*;
use serde_json::{Value, json};

fn order_of(reply: &Reply, status: u16) -> Value {
    reply.data(status)["order"].clone()
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

/// `data.invoice` of the v1 details of an invoice.
fn invoice_details(shop: &Shop, id: &Value) -> Value {
    shop.till.server.get(&format!("/api/v1/invoice/{id}/details"), shop.token()).data(200)["invoice"].clone()
}

/// The PUT actions Wolt answered, oldest first.
fn answered_actions(shop: &Shop) -> Vec<String> {
    shop.wolt.actions().into_iter().filter(|(_, outcome)| outcome == "answered").map(|(a, _)| a).collect()
}

#[test]
fn a_takeaway_order_goes_from_webhook_to_delivered_and_fiscalized() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (wolt_id, id) = shop.new_order("takeaway");

    // The feed shows it at once.
    let feed = shop.get("/events");
    let events = feed.data(200)["items"].as_array().unwrap().clone();
    assert_eq!(events.len(), 1, "{}", feed.text);
    assert_eq!(events[0]["type"], "order.received");
    assert_eq!(events[0]["order_id"], id);
    assert_eq!(feed.body["data"]["cursor"], events[0]["id"]);

    // The spec's order shape, in major units: 2 x 150.00 + 120.00.
    let order = order_of(&shop.get(&format!("/orders/{id}")), 200);
    assert_eq!(order["status"], "received");
    assert_eq!(order["type"], "takeaway");
    assert_eq!(order["actions"], json!(["accept", "reject"]));
    assert_eq!(order["customer"]["name"], "Ana H.");
    assert_eq!(order["customer"]["phone"], Value::Null, "no phone on a takeaway order");
    assert_eq!(order["company"], Value::Null);
    assert_eq!(order["preorder"], Value::Null);
    assert_eq!(order["lines"][0]["name"], "Byrek me spinaq");
    assert_eq!(number(&order["lines"][0]["unit_price"]), 150.0);
    assert_eq!(number(&order["lines"][0]["total"]), 300.0);
    assert_eq!(number(&order["totals"]["subtotal_before_discount"]), 420.0);
    assert_eq!(number(&order["totals"]["total"]), 420.0);
    assert_eq!(order["totals"]["currency"], "ALL");
    assert_eq!(order["invoice"], Value::Null);

    let accepted = order_of(
        &shop.post(&format!("/orders/{id}/accept"), "k-accept", json!({"preparation_time": 15})),
        201,
    );
    assert_eq!(accepted["status"], "accepted");
    assert_eq!(accepted["preparation_time"], 15);
    let ready = order_of(&shop.post(&format!("/orders/{id}/ready"), "k-ready", json!({})), 201);
    assert_eq!(ready["status"], "ready");
    assert_eq!(ready["actions"], json!(["delivered", "fiscalize"]));
    let delivered = order_of(&shop.post(&format!("/orders/{id}/delivered"), "k-delivered", json!({})), 201);
    assert_eq!(delivered["status"], "delivered");
    assert_eq!(delivered["actions"], json!(["fiscalize"]));

    // Wolt saw accept (with the pickup time), ready and delivered, in that order.
    let calls = shop.wolt.calls();
    let puts: Vec<&Value> = calls.iter().filter(|c| c["method"] == "PUT").collect();
    let actions: Vec<&str> = puts.iter().map(|c| c["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["accept", "ready", "delivered"]);
    assert!(puts[0]["body"]["adjusted_pickup_time"].is_string(), "{}", puts[0]);
    assert_eq!(shop.wolt.wolt_order(&wolt_id)["order_status"], "delivered");

    let fiscalized = order_of(&shop.post(&format!("/orders/{id}/fiscalize"), "k-fiscal", json!({})), 201);
    let invoice = &fiscalized["invoice"];
    assert!(invoice["id"].is_i64(), "{fiscalized}");
    assert!(
        invoice["number"]
            .as_str()
            .is_some_and(|n| n.ends_with(&format!("/{}", chrono::Utc::now().format("%Y"))))
    );
    assert_eq!(invoice["iic"].as_str().map(str::len), Some(32));
    assert!(invoice["fic"].is_string(), "the CIS answered: {invoice}");
    assert_eq!(invoice["type"], "cash");
    assert_eq!(fiscalized["actions"], json!([]));

    // The invoice is the till's, with the order's lines, paid by card in the Wolt app.
    let details = invoice_details(&shop, &invoice["id"]);
    assert_eq!(details["type"], "CASH");
    assert_eq!(number(&details["amount"]["gross"]), 420.0);
    assert_eq!(details["payment_method"], "CARD");
    assert_eq!(details["lines"][0]["product_name"], "Byrek me spinaq");
    assert_eq!(details["lines"][0]["product_code"], "BYREK-S");
    let registered = sim.registered();
    assert_eq!(registered["invoices"].as_array().map(Vec::len), Some(1), "{registered}");

    // The feed tells the whole story, resumable from any cursor.
    let feed = shop.get("/events");
    let kinds: Vec<&str> =
        feed.body["data"]["items"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["order.received", "order.accepted", "order.ready", "order.delivered", "order.fiscalized"]
    );
    let second = feed.body["data"]["items"][1]["id"].as_i64().unwrap();
    let rest = shop.get(&format!("/events?cursor={second}&limit=2"));
    assert_eq!(rest.data(200)["items"].as_array().unwrap().len(), 2);
    assert_eq!(rest.body["data"]["has_more"], true);
}

#[test]
fn a_self_delivery_order_goes_through_the_courier_steps() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (wolt_id, id) = shop.new_order("self_delivery");
    let order = order_of(&shop.get(&format!("/orders/{id}")), 200);
    assert_eq!(order["type"], "self_delivery");
    assert_eq!(order["customer"]["phone"], "+355691234567", "shared for self-delivery");
    // 3 x 350.00 with one free (a campaign), 2 x 60.00 water, 200.00 delivery: 1020.00.
    assert_eq!(number(&order["lines"][0]["discount"]), 350.0);
    assert_eq!(number(&order["totals"]["discount"]), 350.0);
    assert_eq!(number(&order["totals"]["delivery_fee"]), 200.0);
    assert_eq!(number(&order["totals"]["total"]), 1020.0);
    assert_eq!(order["totals"]["campaigns"], json!(["1+1 e martë"]));

    shop.post(&format!("/orders/{id}/accept"), "s-1", json!({})).data(201);
    shop.post(&format!("/orders/{id}/ready"), "s-2", json!({})).data(201);
    // Handing over comes after the courier's steps.
    assert_market_error(
        &shop.post(&format!("/orders/{id}/delivered"), "s-3", json!({})),
        409,
        "invalid_transition",
    );
    let picked = order_of(&shop.post(&format!("/orders/{id}/courier-picked-up"), "s-4", json!({})), 201);
    assert_eq!(picked["status"], "picked_up");
    let at = order_of(&shop.post(&format!("/orders/{id}/courier-at-customer"), "s-5", json!({})), 201);
    assert_eq!(at["status"], "at_customer");
    let done = order_of(&shop.post(&format!("/orders/{id}/delivered"), "s-6", json!({})), 201);
    assert_eq!(done["status"], "delivered");
    assert_eq!(
        answered_actions(&shop),
        ["self-delivery/accept", "ready", "pickup-completed", "courier-at-customer", "delivered"]
    );
    assert_eq!(shop.wolt.wolt_order(&wolt_id)["delivery"]["status"], "delivered");

    // The courier collected cash: a cash invoice in banknotes, the delivery fee as its own line.
    let fiscalized = order_of(&shop.post(&format!("/orders/{id}/fiscalize"), "s-7", json!({})), 201);
    let details = invoice_details(&shop, &fiscalized["invoice"]["id"]);
    assert_eq!(number(&details["amount"]["gross"]), 1020.0);
    assert_eq!(details["payment_method"], "BANKNOTE");
    let lines = details["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["product_code"], "SUFLLAQE");
    assert_eq!(number(&lines[0]["total"]), 700.0);
    assert_eq!(lines[2]["product_code"], "DELIVERY");
    assert_eq!(number(&lines[2]["total"]), 200.0);
}

#[test]
fn an_invalid_transition_relays_nothing_and_wolt_moves_its_own_couriers_orders() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (wolt_id, id) = shop.new_order("wolt_delivery");
    let before = shop.wolt.calls().len();

    for (path, key) in
        [("ready", "i-1"), ("delivered", "i-2"), ("courier-picked-up", "i-3"), ("fiscalize", "i-4")]
    {
        assert_market_error(
            &shop.post(&format!("/orders/{id}/{path}"), key, json!({})),
            409,
            "invalid_transition",
        );
    }
    assert_eq!(shop.wolt.calls().len(), before, "nothing reached Wolt: {:?}", shop.wolt.calls());

    shop.post(&format!("/orders/{id}/accept"), "i-5", json!({})).data(201);
    shop.post(&format!("/orders/{id}/ready"), "i-6", json!({})).data(201);
    let refused = shop.post(&format!("/orders/{id}/delivered"), "i-7", json!({}));
    assert_market_error(&refused, 409, "invalid_transition");
    assert!(refused.body["message"].as_str().unwrap().contains("Wolt marks"), "{}", refused.text);
    assert_eq!(answered_actions(&shop), ["accept", "ready"]);

    // Wolt's courier delivers: the webhook moves the order, and the feed says Wolt did it.
    shop.wolt.wolt_moves(&wolt_id, "delivered");
    let order = order_of(&shop.get(&format!("/orders/{id}")), 200);
    assert_eq!(order["status"], "delivered");
    let feed = shop.get("/events");
    let last = feed.data(200)["items"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((last["type"].as_str(), last["source"].as_str()), (Some("order.delivered"), Some("wolt")));
    // The basket campaign is the order's discount: 800 + 2 x 150 - 110.
    assert_eq!(number(&order["totals"]["total"]), 990.0);
    assert_eq!(number(&order["totals"]["delivery_fee"]), 0.0, "Wolt keeps its courier's fee");
    assert_eq!(order["lines"][0]["options"][0]["value"], "shtesë");
    assert_eq!(number(&order["lines"][0]["unit_price"]), 800.0);
}

#[test]
fn wolt_down_is_a_502_and_a_retry_with_the_same_key_goes_through_once() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (wolt_id, id) = shop.new_order("takeaway");

    shop.wolt.mode("down", None);
    let down = shop.post(&format!("/orders/{id}/accept"), "d-1", json!({}));
    assert_market_error(&down, 502, "wolt_upstream_error");
    assert_eq!(order_of(&shop.get(&format!("/orders/{id}")), 200)["status"], "received", "nothing moved");
    assert_eq!(shop.wolt.actions(), [("accept".to_string(), "dropped".to_string())]);

    shop.wolt.mode("ok", None);
    let retried = shop.post(&format!("/orders/{id}/accept"), "d-1", json!({}));
    assert_eq!(order_of(&retried, 201)["status"], "accepted");
    assert!(retried.header("idempotent-replayed").is_none(), "the retry ran, it was not replayed");
    assert_eq!(answered_actions(&shop), ["accept"]);
    assert_eq!(shop.wolt.wolt_order(&wolt_id)["order_status"], "production");

    // Wolt took a call but its answer never came (slower than Arka waits): the retry reads the
    // order from Wolt first and does not accept twice.
    shop.wolt.mode("slow", Some(3_000));
    let lost = shop.post(&format!("/orders/{id}/ready"), "d-2", json!({}));
    assert_market_error(&lost, 502, "wolt_upstream_error");
    shop.wolt.mode("ok", None);
    eventually("Wolt applied the slow ready", Duration::from_secs(10), || {
        shop.wolt.wolt_order(&wolt_id)["order_status"] == "ready"
    });
    let retried = shop.post(&format!("/orders/{id}/ready"), "d-2", json!({}));
    assert_eq!(order_of(&retried, 201)["status"], "ready");
    assert_eq!(answered_actions(&shop), ["accept", "ready"], "ready reached Wolt once");
}

#[test]
fn a_repeat_with_the_same_key_is_replayed_even_after_a_restart() {
    let sim = SimServer::start();
    let mut shop = open_shop(&sim);
    let (_, id) = shop.new_order("takeaway");

    let first = shop.post(&format!("/orders/{id}/accept"), "r-1", json!({"preparation_time": 10}));
    let order = order_of(&first, 201);
    let again = shop.post(&format!("/orders/{id}/accept"), "r-1", json!({"preparation_time": 10}));
    assert_eq!(again.status, 201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body, "the first answer, as it was");
    assert_eq!(answered_actions(&shop), ["accept"]);
    // The same key for another request is refused, naming the header.
    let other = shop.post(&format!("/orders/{id}/ready"), "r-1", json!({}));
    assert_market_error(&other, 422, "invalid_data");
    assert!(other.body["errors"]["Idempotency-Key"].is_array(), "{}", other.text);

    // A refusal is an answer too: kept and replayed.
    let refused = shop.post(&format!("/orders/{id}/reject"), "r-2", json!({"reason": "Mbyllur"}));
    assert_market_error(&refused, 409, "invalid_transition");
    let refused_again = shop.post(&format!("/orders/{id}/reject"), "r-2", json!({"reason": "Mbyllur"}));
    assert_eq!(refused_again.header("idempotent-replayed"), Some("true"));
    assert_eq!(refused_again.body, refused.body);

    // The key store survives a restart.
    shop.till.server.restart();
    shop.wolt.target(&shop.till.server);
    let after = shop.post(&format!("/orders/{id}/accept"), "r-1", json!({"preparation_time": 10}));
    assert_eq!(after.header("idempotent-replayed"), Some("true"));
    assert_eq!(after.body["data"]["order"]["id"], order["id"]);
    assert_eq!(answered_actions(&shop), ["accept"]);
}

#[test]
fn a_repeat_while_the_first_is_in_flight_is_409() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (_, id) = shop.new_order("takeaway");
    shop.wolt.mode("slow", Some(1_500));
    std::thread::scope(|scope| {
        let first = scope.spawn(|| shop.post(&format!("/orders/{id}/accept"), "f-1", json!({})));
        eventually("the accept reached Wolt", Duration::from_secs(10), || !shop.wolt.actions().is_empty());
        let second = shop.post(&format!("/orders/{id}/accept"), "f-1", json!({}));
        assert_market_error(&second, 409, "idempotency_in_progress");
        assert_eq!(order_of(&first.join().unwrap(), 201)["status"], "accepted");
    });
    assert_eq!(shop.wolt.actions().len(), 1);
}

#[test]
fn wolt_refusing_is_action_failed() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (_, id) = shop.new_order("takeaway");
    shop.wolt.mode("refuse", None);
    let refused = shop.post(&format!("/orders/{id}/accept"), "w-1", json!({}));
    assert_market_error(&refused, 422, "action_failed");
    assert!(refused.body["message"].as_str().unwrap().contains("Simulated refusal"), "{}", refused.text);
    assert_eq!(order_of(&shop.get(&format!("/orders/{id}")), 200)["status"], "received");
    shop.wolt.mode("ok", None);
    let replayed = shop.post(&format!("/orders/{id}/accept"), "w-1", json!({}));
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"), "Wolt's refusal is the key's answer");
    // A new key tries again.
    assert_eq!(
        order_of(&shop.post(&format!("/orders/{id}/accept"), "w-2", json!({})), 201)["status"],
        "accepted"
    );
}

#[test]
fn a_forged_webhook_is_refused_and_a_replayed_one_creates_nothing_twice() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let made = shop.wolt.order_with(json!({"type": "takeaway", "notify": false}));
    let wolt_id = made["order"]["id"].as_str().unwrap().to_string();

    let forged = shop.wolt.notify(&wolt_id, Some("not-the-venue-secret-at-all"));
    assert_eq!(forged["answer_status"], 401, "{forged}");
    let body: Value = serde_json::from_str(forged["answer_body"].as_str().unwrap()).unwrap();
    assert_eq!((body["status"].clone(), body["code"].clone()), (json!(false), json!("unauthenticated")));
    // Without a signature at all, straight to the route.
    let raw = shop.till.server.post_raw(
        &format!("{MARKET}/webhooks/wolt"),
        None,
        "application/json",
        forged["body"].as_str().unwrap().as_bytes(),
    );
    assert_market_error(&raw, 401, "unauthenticated");
    assert_eq!(shop.get("/orders").data(200)["pagination"]["total"], 0, "nothing stored");
    assert_eq!(shop.get("/events").data(200)["items"], json!([]));
    assert!(shop.wolt.calls().is_empty(), "Arka did not even fetch the order");

    let genuine = shop.wolt.notify(&wolt_id, None);
    assert_eq!(genuine["answer_status"], 200, "{genuine}");
    let replay = shop.wolt.resend(genuine["notification_id"].as_str().unwrap());
    assert_eq!(replay["answer_status"], 200);
    let replay_body: Value = serde_json::from_str(replay["answer_body"].as_str().unwrap()).unwrap();
    assert_eq!(replay_body["data"]["duplicate"], true);
    // A new notification of the same order (Wolt retrying) does not make a second order either.
    shop.wolt.notify(&wolt_id, None);
    assert_eq!(shop.get("/orders").data(200)["pagination"]["total"], 1);
    assert_eq!(shop.get("/events").data(200)["items"].as_array().unwrap().len(), 1);
}

#[test]
fn each_cause_of_403_is_named() {
    let sim = SimServer::start();
    let wolt = WoltServer::start();
    let till = common::till::open_till_with(&sim, |args| wolt.configure(args));
    let server = &till.server;
    let owner = Some(till.token.as_str());
    let board = format!("{MARKET}/orders");

    assert_market_error(&server.get(&board, None), 401, "unauthenticated");
    assert_market_error(&server.get(&board, Some("arka_u_unknown")), 401, "unauthenticated");
    assert_market_error(&server.get(&board, owner), 403, "wolt_not_enabled");

    server.put_json(&format!("{MARKET}/settings"), owner, &json!({"enabled": true})).data(200);
    assert_market_error(&server.get(&board, owner), 403, "forbidden");
    server
        .put_json(&format!("{MARKET}/rights/{}", till.user_id), owner, &json!({"marketplace": true}))
        .data(200);
    assert_market_error(&server.get(&board, owner), 403, "no_venue");
    server.put_json(&format!("{MARKET}/settings"), owner, &venue_settings()).data(200);
    server.get(&board, owner).data(200);

    // A cashier's token has no right until the owner grants it, and cannot change settings.
    let cashier = common::cashier(server, company_of(server, owner));
    assert_market_error(&server.get(&board, Some(&cashier)), 403, "forbidden");
    assert_market_error(
        &server.put_json(&format!("{MARKET}/settings"), Some(&cashier), &json!({"enabled": false})),
        403,
        "forbidden",
    );
    let settings = server.get(&format!("{MARKET}/settings"), owner);
    let settings = settings.data(200);
    assert_eq!(settings["venue"]["wolt_venue_id"], VENUE_ID);
    assert!(
        !settings.to_string().contains(API_KEY) && !settings.to_string().contains(WEBHOOK_SECRET),
        "no credentials shown"
    );

    // The venue removed: no_venue again; the add-on off: wolt_not_enabled, webhooks included.
    server.put_json(&format!("{MARKET}/settings"), owner, &json!({"remove_venue": true})).data(200);
    assert_market_error(&server.get(&board, owner), 403, "no_venue");
    server.put_json(&format!("{MARKET}/settings"), owner, &venue_settings()).data(200);
    server.put_json(&format!("{MARKET}/settings"), owner, &json!({"enabled": false})).data(200);
    assert_market_error(&server.get(&board, owner), 403, "wolt_not_enabled");
    wolt.target(server);
    let made = wolt.order("takeaway");
    assert_eq!(made["webhook"]["answer_status"], 403, "{made}");
    let db = arka::store::Store::open(&server.data_dir().join("arka.db")).unwrap();
    let stored: i64 = db
        .read_blocking(|c| Ok(c.query_row("SELECT COUNT(*) FROM marketplace_orders", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(stored, 0);
}

/// The company id behind a token (from GET /api/v1/account).
fn company_of(server: &TestServer, token: Option<&str>) -> i64 {
    let db = arka::store::Store::open(&server.data_dir().join("arka.db")).unwrap();
    let hash = arka::ops::secrets::hash_token(token.unwrap());
    db.read_blocking(|c| Ok(arka::store::accounts::caller_by_token(c, &hash)?.unwrap().company.id)).unwrap()
}

#[test]
fn reads_and_writes_have_their_own_limits_per_token() {
    let sim = SimServer::start();
    let shop = open_shop_with(&sim, |args| {
        // The owner's two setup calls (settings, right) are writes too: 2 + accept + ready.
        args.limits = "token=6000/m;marketplace.reads=3/m;marketplace.writes=4/m".parse().unwrap();
    });
    let (_, id) = shop.new_order("takeaway");
    for _ in 0..3 {
        shop.get("/orders").data(200);
    }
    let limited = shop.get("/events");
    assert_market_error(&limited, 429, "rate_limited");
    let retry_after: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");

    shop.post(&format!("/orders/{id}/accept"), "l-1", json!({})).data(201);
    shop.post(&format!("/orders/{id}/ready"), "l-2", json!({})).data(201);
    let limited = shop.post(&format!("/orders/{id}/delivered"), "l-3", json!({}));
    assert_market_error(&limited, 429, "rate_limited");
    assert!(limited.header("retry-after").is_some());
    assert_eq!(answered_actions(&shop), ["accept", "ready"], "a limited write relays nothing");
}

#[test]
fn orders_keep_arriving_while_the_cis_is_away_and_their_invoice_waits_for_it() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    sim.mode("down");
    let (_, id) = shop.new_order("takeaway");
    assert_eq!(shop.get("/events").data(200)["items"][0]["type"], "order.received");
    shop.post(&format!("/orders/{id}/accept"), "c-1", json!({})).data(201);
    let fiscalized = order_of(&shop.post(&format!("/orders/{id}/fiscalize"), "c-2", json!({})), 201);
    assert!(fiscalized["invoice"]["iic"].is_string(), "{fiscalized}");
    assert_eq!(fiscalized["invoice"]["fic"], Value::Null, "deferred like any cash invoice");

    sim.mode("ok");
    eventually("the late delivery brought the FIC", Duration::from_secs(60), || {
        order_of(&shop.get(&format!("/orders/{id}")), 200)["invoice"]["fic"].is_string()
    });
}

#[test]
fn a_b2b_order_is_a_noncash_invoice_to_its_company() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (_, id) = shop.new_order("b2b");
    let order = order_of(&shop.get(&format!("/orders/{id}")), 200);
    assert_eq!(order["company"]["tax_id"], "K81234001A");
    shop.post(&format!("/orders/{id}/accept"), "b-1", json!({})).data(201);
    let fiscalized = order_of(&shop.post(&format!("/orders/{id}/fiscalize"), "b-2", json!({})), 201);
    assert_eq!(fiscalized["invoice"]["type"], "noncash");
    assert!(fiscalized["invoice"]["fic"].is_string());
    let details = invoice_details(&shop, &fiscalized["invoice"]["id"]);
    assert_eq!(details["type"], "NONCASH");
    assert_eq!(details["client"]["id"]["id"], "K81234001A");
    assert_eq!(details["payment_method"], "ACCOUNT");
    // 10 x 100 + 10 x 120; the Wolt courier's fee is not the shop's.
    assert_eq!(number(&details["amount"]["gross"]), 2200.0);
}

#[test]
fn a_preorder_is_confirmed_then_wolt_starts_it() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (wolt_id, id) = shop.new_order("preorder");
    let order = order_of(&shop.get(&format!("/orders/{id}")), 200);
    assert_eq!(order["preorder"]["status"], "waiting");
    assert!(order["preorder"]["time"].is_string());
    let confirmed = order_of(&shop.post(&format!("/orders/{id}/accept"), "p-1", json!({})), 201);
    assert_eq!(
        (confirmed["status"].as_str(), confirmed["preorder"]["status"].as_str()),
        (Some("scheduled"), Some("confirmed"))
    );
    assert_eq!(answered_actions(&shop), ["confirm-preorder"]);
    assert_market_error(
        &shop.post(&format!("/orders/{id}/ready"), "p-2", json!({})),
        409,
        "invalid_transition",
    );
    shop.wolt.wolt_moves(&wolt_id, "production");
    assert_eq!(order_of(&shop.get(&format!("/orders/{id}")), 200)["status"], "accepted");
    shop.post(&format!("/orders/{id}/ready"), "p-3", json!({})).data(201);
}

#[test]
fn a_rejected_order_leaves_the_board_with_its_reason() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (wolt_id, id) = shop.new_order("takeaway");
    let (_, kept) = shop.new_order("takeaway");
    assert_market_error(&shop.post(&format!("/orders/{id}/reject"), "x-1", json!({})), 422, "invalid_data");
    let rejected = order_of(
        &shop.post(&format!("/orders/{id}/reject"), "x-2", json!({"reason": "Na mbaroi byreku"})),
        201,
    );
    assert_eq!(
        (rejected["status"].as_str(), rejected["reject_reason"].as_str()),
        (Some("rejected"), Some("Na mbaroi byreku"))
    );
    let calls = shop.wolt.calls();
    let put = calls.iter().find(|c| c["action"] == "reject").unwrap();
    assert_eq!(put["body"]["reason"], "Na mbaroi byreku");
    assert_eq!(shop.wolt.wolt_order(&wolt_id)["order_status"], "rejected");

    let active = shop.get("/orders?status=active");
    let ids: Vec<i64> =
        active.data(200)["items"].as_array().unwrap().iter().map(|o| o["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [kept]);
    let history = shop.get("/orders?status=history");
    assert_eq!(history.data(200)["items"][0]["id"], id);
    let today = chrono::Utc::now().with_timezone(&chrono_tz::Europe::Tirane).date_naive();
    let dated = shop.get(&format!("/orders?status=rejected,received&from={today}&to={today}"));
    assert_eq!(dated.data(200)["pagination"]["total"], 2);
    let tomorrow = today.succ_opt().unwrap();
    assert_eq!(shop.get(&format!("/orders?from={tomorrow}")).data(200)["pagination"]["total"], 0);
}

#[test]
fn hostile_input_gets_a_clear_4xx_and_the_server_keeps_writing() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let (_, id) = shop.new_order("takeaway");
    let server = &shop.till.server;
    let neighbour = Neighbour::selling_beside(&shop);
    let neighbour_token = Some(neighbour.registered.token.as_str());
    let (foreign, foreign_wolt_id) = (neighbour.order_id, neighbour.wolt_order_id.clone());
    assert_ne!(foreign, id);
    let cases = hostile_requests(&shop, id, &neighbour);
    for (reply, status, code) in &cases {
        assert_market_error(reply, *status, code);
    }
    assert!(cases[0].0.body["errors"]["preparation_time"].is_array(), "{}", cases[0].0.text);
    // No key, and a key that is not text.
    let bearer = format!("Bearer {}", shop.till.token);
    let keyless = shop.till.server.request(
        "POST",
        &format!("{MARKET}/orders/{id}/accept"),
        &[("Authorization", &bearer)],
        None,
    );
    assert_market_error(&keyless, 400, "idempotency_key_required");
    let spaced = shop.post(&format!("/orders/{id}/accept"), "has space", json!({}));
    assert_market_error(&spaced, 422, "invalid_data");
    // Another company's order was left alone, and both still work.
    let theirs = server.get(&format!("{MARKET}/orders/{foreign}"), neighbour_token);
    assert_eq!(order_of(&theirs, 200)["status"], "received");
    assert_eq!(
        order_of(&shop.post(&format!("/orders/{id}/accept"), "h-7", json!({"preparation_time": 20})), 201)["status"],
        "accepted"
    );
    assert_eq!(answered_actions(&shop), ["accept"]);
    assert_eq!(shop.wolt.wolt_order(&foreign_wolt_id)["order_status"], "created");
}

/// Another company on the same server, selling through its own venue, with an order of its own.
struct Neighbour {
    registered: Registered,
    order_id: i64,
    wolt_order_id: String,
}

impl Neighbour {
    fn selling_beside(shop: &Shop) -> Neighbour {
        let server = &shop.till.server;
        let partner = server.create_partner("desk 2");
        let neighbour = register_company(server, &partner, "K12345678B");
        let neighbour_token = Some(neighbour.token.as_str());
        shop.wolt.add_venue("venue-durres-2", "wolt-api-key-0002", "wolt-webhook-secret-0002");
        let neighbour_venue = json!({"enabled": true, "venue": {"wolt_venue_id": "venue-durres-2",
            "api_key": "wolt-api-key-0002", "webhook_secret": "wolt-webhook-secret-0002"}});
        server.put_json(&format!("{MARKET}/settings"), neighbour_token, &neighbour_venue).data(200);
        server
            .put_json(
                &format!("{MARKET}/rights/{}", neighbour.user_id),
                neighbour_token,
                &json!({"marketplace": true}),
            )
            .data(200);
        let made = shop.wolt.order_with(json!({"type": "takeaway", "venue_id": "venue-durres-2"}));
        let foreign_wolt_id = made["order"]["id"].as_str().unwrap().to_string();
        let foreign = server.get(&format!("{MARKET}/orders"), neighbour_token).data(200)["items"][0]["id"]
            .as_i64()
            .unwrap();
        Neighbour { registered: neighbour, order_id: foreign, wolt_order_id: foreign_wolt_id }
    }
}

/// Requests no POS should send, each with the status and code it is answered: numbers too
/// large, NUL bytes, unknown paths and states, another company's order and user.
fn hostile_requests(shop: &Shop, id: i64, neighbour: &Neighbour) -> Vec<(Reply, u16, &'static str)> {
    let foreign = neighbour.order_id;
    vec![
        (
            shop.post(&format!("/orders/{id}/accept"), "h-1", json!({"preparation_time": 1e30})),
            422,
            "invalid_data",
        ),
        (
            shop.post(
                &format!("/orders/{id}/accept"),
                "h-2",
                json!({"preparation_time": 9223372036854775808u64}),
            ),
            422,
            "invalid_data",
        ),
        (
            shop.post(&format!("/orders/{id}/reject"), "h-3", json!({"reason": "mbyllur\u{0}"})),
            422,
            "invalid_data",
        ),
        (shop.post("/orders/9223372036854775808/accept", "h-4", json!({})), 404, "order_not_found"),
        (shop.post("/orders/1e30/ready", "h-5", json!({})), 404, "order_not_found"),
        (shop.post(&format!("/orders/{foreign}/accept"), "h-6", json!({})), 404, "order_not_found"),
        (shop.get(&format!("/orders/{foreign}")), 404, "order_not_found"),
        (shop.get("/events?cursor=1e30"), 422, "invalid_data"),
        (shop.get("/events?cursor=9223372036854775808"), 422, "invalid_data"),
        (shop.get("/orders?limit=%00"), 422, "invalid_data"),
        (shop.get("/orders?status=lost"), 422, "invalid_data"),
        (shop.get("/orders?from=2026-13-45"), 422, "invalid_data"),
        (shop.get("/nowhere"), 404, "not_found"),
        (shop.post(&format!("/orders/{id}/teleport"), "h-8", json!({})), 404, "not_found"),
        (
            shop.till.server.put_json(&format!("{MARKET}/settings"), shop.token(), &json!({"enabled": 1e30})),
            422,
            "invalid_data",
        ),
        (
            shop.till.server.put_json(
                &format!("{MARKET}/rights/9223372036854775808"),
                shop.token(),
                &json!({"marketplace": true}),
            ),
            404,
            "not_found",
        ),
        (
            shop.till.server.put_json(
                &format!("{MARKET}/rights/{}", shop.till.user_id),
                shop.token(),
                &json!({"marketplace": "\u{0}"}),
            ),
            422,
            "invalid_data",
        ),
        (
            shop.till.server.put_json(
                &format!("{MARKET}/rights/{}", neighbour.registered.user_id),
                shop.token(),
                &json!({"marketplace": true}),
            ),
            404,
            "not_found",
        ),
        (
            shop.till.server.put_json(
                &format!("{MARKET}/settings"),
                shop.token(),
                &json!({"venue": {"wolt_venue_id": VENUE_ID, "api_key": "k\u{0}", "webhook_secret": "s"}}),
            ),
            422,
            "invalid_data",
        ),
    ]
}

#[test]
fn the_feed_resumes_from_its_cursor_and_can_wait_for_the_next_order() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let empty = shop.get("/events");
    assert_eq!(empty.data(200)["items"], json!([]));
    assert_eq!(empty.body["data"]["cursor"], 0);
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| shop.get("/events?cursor=0&wait=20"));
        // The read is waiting (no order exists yet) when Wolt sends one.
        std::thread::sleep(Duration::from_millis(300));
        shop.new_order("takeaway");
        let woke = waiting.join().unwrap();
        assert_eq!(woke.data(200)["items"][0]["type"], "order.received");
    });
    let cursor = shop.get("/events").data(200)["cursor"].as_i64().unwrap();
    shop.new_order("self_delivery");
    let next = shop.get(&format!("/events?cursor={cursor}"));
    let items = next.data(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert!(items[0]["id"].as_i64().unwrap() > cursor);
}

#[test]
fn the_sandbox_company_sells_on_wolt_from_the_start() {
    let server = TestServer::start_with(|args| {
        args.sandbox = true;
        args.sandbox_order_every = 1;
    });
    let newcomer = register_sandbox(&server);
    let board = format!("{MARKET}/orders");
    eventually("the simulated Wolt sent an order", Duration::from_secs(20), || {
        server.get(&board, Some(&newcomer.token)).data(200)["pagination"]["total"].as_i64().unwrap() >= 1
    });
    let first = server.get(&format!("{board}?limit=100"), Some(&newcomer.token)).data(200)["items"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(first["type"], "takeaway");
    let bearer = format!("Bearer {}", newcomer.token);
    let accepted = server.request(
        "POST",
        &format!("{board}/{}/accept", first["id"]),
        &[("Authorization", &bearer), ("Idempotency-Key", "sandbox-1")],
        None,
    );
    assert_eq!(order_of(&accepted, 201)["status"], "accepted");
}

#[test]
fn the_owner_sets_up_the_marketplace_from_the_command_line() {
    let sim = SimServer::start();
    let wolt = WoltServer::start();
    let mut till = common::till::open_till_with(&sim, |args| wolt.configure(args));
    let data = till.server.data_dir();
    let data = data.to_str().unwrap();
    let owner_email = format!("owner.{}@shop.al", common::till::NUIS.to_lowercase());
    let nuis = common::till::NUIS;
    arka_ok(&["marketplace", "enable", "--nuis", nuis, "--data-dir", data]);
    arka_ok(&["marketplace", "grant", "--email", &owner_email, "--data-dir", data]);
    let shown = arka_ok(&[
        "marketplace",
        "venue",
        "--nuis",
        nuis,
        "--wolt-venue-id",
        VENUE_ID,
        "--api-key",
        API_KEY,
        "--webhook-secret",
        WEBHOOK_SECRET,
        "--data-dir",
        data,
    ]);
    assert!(shown.contains("enabled") && shown.contains(VENUE_ID), "{shown}");
    assert!(!shown.contains(API_KEY) && !shown.contains(WEBHOOK_SECRET), "credentials are never printed");
    let unknown = arka(&["marketplace", "enable", "--nuis", "Z99999999Z", "--data-dir", data]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("Z99999999Z"));

    // The sealed credentials work: a webhook verifies and the order is fetched with the key.
    till.server.restart();
    wolt.target(&till.server);
    let made = wolt.order("takeaway");
    assert_eq!(made["webhook"]["answer_status"], 200, "{made}");
    assert_eq!(
        till.server.get(&format!("{MARKET}/orders"), Some(&till.token)).data(200)["pagination"]["total"],
        1
    );
    let stored = std::fs::read(till.server.data_dir().join("arka.db")).unwrap();
    assert!(!contains_bytes(&stored, API_KEY.as_bytes()), "the API key is not stored in the clear");
    arka_ok(&["marketplace", "revoke", "--email", &owner_email, "--data-dir", data]);
    assert_market_error(&till.server.get(&format!("{MARKET}/orders"), Some(&till.token)), 403, "forbidden");
    the_command_lines_changes_are_in_the_audit_trail(&till);
}

/// Each of the command line's four changes is an entry of its own, the settings before and
/// after, never the credentials.
fn the_command_lines_changes_are_in_the_audit_trail(till: &common::till::Till) {
    let page =
        till.server.get("/api/v1/audit?action=settings.marketplace", Some(&till.token)).data(200).clone();
    let mut entries: Vec<Value> = page["entries"].as_array().unwrap().clone();
    entries.reverse();
    assert_eq!(entries.len(), 4, "enable, grant, venue, revoke: {page}");
    assert!(entries.iter().all(|e| e["role"] == "cli"), "{page}");
    assert_eq!(
        (entries[0]["before"]["enabled"].clone(), entries[0]["after"]["enabled"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(entries[1]["after"]["usersWithRight"].as_array().map(Vec::len), Some(1), "{page}");
    assert_eq!(
        (entries[2]["before"]["venue"].clone(), entries[2]["after"]["venue"].clone()),
        (Value::Null, json!(VENUE_ID))
    );
    assert_eq!(entries[3]["after"]["usersWithRight"], json!([]), "{page}");
    let text = page.to_string();
    assert!(!text.contains(API_KEY) && !text.contains(WEBHOOK_SECRET), "the trail keeps no credentials");
}

#[test]
fn unknown_paths_and_methods_answer_in_the_marketplace_envelope() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    assert_market_error(&shop.get("/orders/1/accept"), 405, "method_not_allowed");
    assert_market_error(&shop.get("/everything"), 404, "not_found");
    let served = shop.till.server.get("/api/openapi.yaml", None).text;
    for path in [
        "/events",
        "/orders",
        "/orders/{id}",
        "/orders/{id}/accept",
        "/orders/{id}/reject",
        "/orders/{id}/ready",
        "/orders/{id}/courier-picked-up",
        "/orders/{id}/courier-at-customer",
        "/orders/{id}/delivered",
        "/orders/{id}/fiscalize",
        "/webhooks/wolt",
        "/settings",
        "/rights/{user_id}",
    ] {
        assert!(served.contains(&format!("  {MARKET}{path}:")), "OpenAPI documents {path}");
    }
}

#[test]
fn the_wolt_simulator_runs_alone_from_the_command_line() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arka"))
        .args(["wolt-sim", "--listen", &listen, "--venue-id", "v-cli", "--api-key", "cli-key"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let base = format!("http://{listen}");
    let mut answered = false;
    for _ in 0..100 {
        if agent.get(format!("{base}/control")).call().is_ok() {
            answered = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let order = answered.then(|| {
        let mut made = agent
            .post(format!("{base}/control/orders"))
            .content_type("application/json")
            .send(r#"{"type":"b2b"}"#)
            .unwrap();
        let made: Value = serde_json::from_str(&made.body_mut().read_to_string().unwrap()).unwrap();
        let id = made["order"]["id"].as_str().unwrap().to_string();
        let with_key =
            agent.get(format!("{base}/v2/orders/{id}")).header("WOLT-API-KEY", "cli-key").call().unwrap();
        let without = agent.get(format!("{base}/v2/orders/{id}")).call().unwrap();
        (with_key.status().as_u16(), without.status().as_u16(), made["webhook"].clone())
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(answered, "arka wolt-sim listened on {listen}");
    assert_eq!(order, Some((200, 401, Value::Null)), "no webhook target: nothing sent");
}

#[test]
fn a_write_where_what_is_not_sent_is_kept_takes_only_its_own_json() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let server = &shop.till.server;
    let bearer = format!("Bearer {}", shop.till.token);
    let owner = [("Authorization", bearer.as_str())];
    let sale = coffee_and_water("s-1");
    server.post_json("/api/v1/invoice/cash", shop.token(), &sale).data(201);
    let (market, rights) = (format!("{MARKET}/settings"), format!("{MARKET}/rights/{}", shop.till.user_id));
    let settings = [
        ("/api/v1/stock/settings", "enforced"),
        ("/api/v1/print-settings", "unitName"),
        (market.as_str(), "enable"),
        (rights.as_str(), "market_place"),
        ("/api/v1/currencies/EUR", "enable"),
        ("/api/v1/exchange-rates/manual/EUR", "rates"),
    ];
    let read = |path: &str| {
        let path = if path.contains("/rights/") { format!("{MARKET}/settings") } else { path.to_string() };
        let path =
            if path.ends_with("/currencies/EUR") { "/api/v1/currencies?all=1".to_string() } else { path };
        server.get(&path, shop.token()).text
    };
    for (path, unknown) in settings {
        let before = read(path);
        let unknown_key = json!({unknown: true}).to_string();
        let bad: [(Option<&str>, &[u8], &str); 7] = [
            (None, b"", "body"),
            (Some("application/json"), b"", "body"),
            (Some("text/plain"), b"", "body"),
            (Some("text/plain"), b"enabled=true", "body"),
            (Some("application/json"), b"{\"enabled\": true, \"x\": \"\xff\"}", "body"),
            (Some("application/json"), b"{\"\xff\": true}", "body"),
            (Some("application/json"), unknown_key.as_bytes(), unknown),
        ];
        for (content_type, bytes, field) in bad {
            let reply = server.request("PUT", path, &owner, content_type.map(|t| (t, bytes)));
            let errors = &reply.body["errors"][field];
            assert_eq!(reply.status, 422, "PUT {path} {:?}: {}", String::from_utf8_lossy(bytes), reply.text);
            assert!(errors.as_array().is_some_and(|e| !e.is_empty()), "names {field}: {}", reply.text);
        }
        assert_eq!(read(path), before, "PUT {path} changed nothing");
    }
    // Closing the day: left out, `withdraw` takes everything counted, so a typo must not.
    let close =
        server.post_json("/api/v1/cash-register/close-balance", shop.token(), &json!({"withdrow": 5}));
    close.assert_invalid("withdrow");
    let balance = server.get("/api/v1/cash-register/balance", shop.token());
    assert_eq!(balance.data(200)["balance"], json!(285.0), "{}", balance.text);
}

/// Fiscalizes an order already accepted: the reply.
fn fiscalize(shop: &Shop, id: i64, key: &str) -> Reply {
    shop.post(&format!("/orders/{id}/fiscalize"), key, json!({}))
}

#[test]
fn wolts_control_characters_never_reach_the_invoice_nor_keep_a_number_held() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let year = chrono::Utc::now().format("%Y").to_string();
    let byrek = json!({"name": "Byrek\u{1}\u{0}\u{1b}[31m", "count": 2, "unit_price": 15000,
                       "pos_id": "BYREK\u{7}", "vat_percentage": 20});
    let made = shop.wolt.order_with(json!({"type": "takeaway", "items": [byrek]}));
    assert_eq!(made["webhook"]["answer_status"], 200, "{made}");
    let id = shop.order_id(made["order"]["id"].as_str().unwrap());

    // Cleaned where it entered: the board shows it as the invoice will.
    let order = order_of(&shop.get(&format!("/orders/{id}")), 200);
    assert_eq!((&order["lines"][0]["name"], &order["lines"][0]["code"]), (&json!("Byrek"), &json!("BYREK")));
    shop.post(&format!("/orders/{id}/accept"), "x-1", json!({})).data(201);
    let fiscalized = fiscalize(&shop, id, "x-2");
    let invoice = order_of(&fiscalized, 201)["invoice"].clone();
    assert!(invoice["fic"].is_string(), "{}", fiscalized.text);
    assert_eq!(invoice["number"], format!("1/{year}"));
    let details = invoice_details(&shop, &invoice["id"]);
    assert_eq!(
        (&details["lines"][0]["product_name"], &details["lines"][0]["product_code"]),
        (&json!("Byrek"), &json!("BYREK"))
    );

    // An order stored as Wolt sent it (before Arka cleaned its text), refused once by the CIS
    // with its number held for its retry: the retry is issued under that number.
    let (_, second) = shop.new_order("takeaway");
    shop.till.sql(&[format!(
        "UPDATE marketplace_order_lines SET name = 'Sufllaqe' || char(1) || char(27) || '[0m' WHERE order_id = {second}"
    )]);
    shop.post(&format!("/orders/{second}/accept"), "y-1", json!({})).data(201);
    sim.set_mode(json!({"mode": "fault", "fault_code": "11"}));
    assert_market_error(&fiscalize(&shop, second, "y-2"), 422, "action_failed");
    let held = shop.till.account()["fiscalQueue"]["refused"].clone();
    assert_eq!(held[0]["numberHeld"], true, "{held}");
    assert_eq!(held[0]["number"], format!("2/{year}"), "{held}");
    sim.mode("ok");
    let retried = fiscalize(&shop, second, "y-3");
    let invoice = order_of(&retried, 201)["invoice"].clone();
    assert_eq!(invoice["number"], format!("2/{year}"), "the held number: {}", retried.text);
    assert!(invoice["fic"].is_string(), "{}", retried.text);
    assert_eq!(invoice_details(&shop, &invoice["id"])["lines"][0]["product_name"], "Sufllaqe");
    let refused = shop.till.account()["fiscalQueue"]["refused"].clone();
    assert_eq!(refused, json!([]), "nothing stays held");
    let registered = sim.registered()["invoices"].as_array().map(Vec::len);
    assert_eq!(registered, Some(2), "{}", sim.registered());
}

#[test]
fn a_signed_webhook_with_an_id_arka_cannot_keep_is_refused_and_stores_nothing() {
    let sim = SimServer::start();
    let shop = open_shop(&sim);
    let made = shop.wolt.order_with(json!({"type": "takeaway", "notify": false}));
    let wolt_id = made["order"]["id"].as_str().unwrap().to_string();
    let url = format!("{MARKET}/webhooks/wolt");
    let send = |id: &str, order_id: &str| {
        let notification = json!({"id": id, "type": "order.notification", "created_at": "2026-01-01T10:00:00Z",
            "order": {"id": order_id, "venue_id": VENUE_ID, "status": "CREATED", "resource_url": ""}});
        let body = notification.to_string();
        let signature = arka::wolt::signature::sign(WEBHOOK_SECRET.as_bytes(), body.as_bytes()).unwrap();
        let headers = [(arka::wolt::SIGNATURE_HEADER, signature.as_str())];
        shop.till.server.request("POST", &url, &headers, Some(("application/json", body.as_bytes())))
    };
    let megabyte = "n".repeat(1024 * 1024);
    for (id, order_id, field) in [
        (megabyte.as_str(), wolt_id.as_str(), "id"),
        (&"n".repeat(129), wolt_id.as_str(), "id"),
        ("n-1\u{0}\u{1b}[31m", wolt_id.as_str(), "id"),
        ("n-2", "w\u{1}", "order.id"),
        ("n-3", &"w".repeat(129), "order.id"),
    ] {
        let reply = send(id, order_id);
        assert_market_error(&reply, 422, "invalid_data");
        assert!(reply.body["errors"][field].is_array(), "{}", reply.text);
    }
    let db = arka::store::Store::open(&shop.till.server.data_dir().join("arka.db")).unwrap();
    let (webhooks, orders): (i64, i64) = db
        .read_blocking(|c| {
            Ok(c.query_row(
                "SELECT (SELECT COUNT(*) FROM marketplace_webhooks), (SELECT COUNT(*) FROM marketplace_orders)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
        .unwrap();
    assert_eq!((webhooks, orders), (0, 0), "nothing stored");
    // The longest id Arka keeps, Wolt's own kind of text, is taken.
    assert_eq!(send(&"n".repeat(128), &wolt_id).data(200)["duplicate"], false);
}
