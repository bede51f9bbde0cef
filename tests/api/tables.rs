//! A restaurant's table as the waiters tell it: two waiters open orders on one till, the table
//! pays them with one summary (a discount, banknotes and a card), the orders are settled, and
//! a second summary of the same order is refused; two summaries racing for one order settle it
//! once; the CIS goes away in between.

use std::time::Duration;

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::xml::assert_valid_request;
use crate::common::*;
use chrono::Utc;
use serde_json::{Value, json};

/// Two coffees, and a water with 10 % off (285.00); or a pizza (600.00).
fn order_body(internal_id: &str, pizza: bool) -> Value {
    let lines = if pizza {
        json!([{"product_name": "Pica", "product_code": "P1", "unit": "copë", "quantity": 1, "price": 600, "total": 600, "vat": 20}])
    } else {
        coffee_and_water("x")["lines"].clone()
    };
    json!({"internalId": internal_id, "lines": lines})
}

fn year() -> String {
    Utc::now().format("%Y").to_string()
}

fn balance(till: &Till) -> f64 {
    till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"].as_f64().unwrap()
}

fn list(till: &Till) -> Vec<Value> {
    till.server.get("/api/v1/invoice?limit=100", Some(&till.token)).data(200)["items"]
        .as_array()
        .unwrap()
        .clone()
}

/// The simulator's request for the document with this IIC.
fn request_of(sim: &SimServer, iic: &Value) -> Value {
    sim.requests().into_iter().rev().find(|r| r["iic"] == *iic && r["outcome"] == "accepted").unwrap()
}

fn summary_body(internal_id: &str, orders: &[&Value], payments: Value) -> Value {
    json!({
        "internalId": internal_id,
        "order_invoices": orders.iter().map(|o| o["iic"].clone()).collect::<Vec<_>>(),
        "invoice_discount_type": "percent",
        "invoice_discount_value": 10,
        "payment_methods": payments,
    })
}

#[test]
fn a_table_opened_by_two_waiters_is_paid_by_one_summary_with_a_discount_and_a_split_payment() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let tcr = till.account()["user"]["fiscalTcrCode"].as_str().unwrap().to_string();
    let second = till.server.post_json(
        "/api/v1/on-boarding/user",
        Some(&till.token),
        &json!({"name": "Besa", "email": "besa@shop.al", "branchId": till.branch_id,
                "operatorCode": "op234op234", "fiscalTcrCode": tcr}),
    );
    let besa = second.data(201)["user"]["token"].as_str().unwrap().to_string();

    // Two waiters open the table on one till: orders on the till's cash sequence.
    let first = till.server.post_json("/api/v1/invoice/order", Some(&till.token), &order_body("t-1", false));
    let first = first.data(201)["invoice"].clone();
    assert_eq!(first["number"], format!("1/{}", year()));
    assert!(first["fic"].is_string());
    let reply = till.server.post_json("/api/v2/invoice/order", Some(&besa), &order_body("t-2", true));
    let pizza = reply.data(200)["invoice"].clone();
    assert_eq!(pizza["number"], format!("2/{}", year()));
    assert_eq!(pizza["operatorCode"], "op234op234");
    assert_eq!(
        pizza["payment_methods"],
        json!([{"type": "ORDER", "amount": 600.0, "company_card": null, "vouchers": []}])
    );
    assert_eq!(balance(&till), 0.0, "an open table holds no cash");
    let open: Vec<Value> = list(&till).into_iter().filter(|i| i["document_kind"] == "ORDER").collect();
    assert_eq!(open.len(), 2);
    assert!(open.iter().all(|o| o["order_state"] == "open" && o["payment"]["state"] == "UNPAID"));

    // The table pays: 885.00 less 10 % is 796.50, in banknotes and by card.
    let payments = json!([{"type": "BANKNOTE", "amount": 500}, {"type": "CARD", "amount": 296.5}]);
    let reply = till.server.post_json(
        "/api/v2/invoice/summary",
        Some(&till.token),
        &summary_body("s-1", &[&first, &pizza], payments),
    );
    let summary = reply.data(200)["invoice"].clone();
    assert_eq!(summary["isSummaryInvoice"], true);
    assert_eq!(summary["number"], format!("3/{}", year()));
    let settled = summary["settledOrderInvoices"].as_array().unwrap();
    assert_eq!(settled.len(), 2);
    assert_eq!(object_keys(&settled[0]), ["amountGross", "currency", "date", "id", "iic", "number"]);
    assert_eq!(settled[0]["iic"], first["iic"]);
    assert_eq!(settled[0]["amountGross"], json!(285.0));
    assert_eq!(settled[1]["amountGross"], json!(600.0));
    assert_eq!(
        summary["payment_methods"][1],
        json!({"type": "CARD", "amount": 296.5, "company_card": null, "vouchers": []})
    );
    assert_eq!(balance(&till), 796.5, "the summary is the table's cash");

    let items = list(&till);
    for order in items.iter().filter(|i| i["document_kind"] == "ORDER") {
        assert_eq!(order["order_state"], "settled", "{order}");
        assert_eq!(order["settled_by"], summary["id"]);
        assert_eq!(order["payment"]["state"], "PAID");
    }
    let details = till.server.get(&format!("/api/v2/invoice/{}/details", summary["id"]), Some(&till.token));
    let details = details.data(200)["invoice"].clone();
    assert_eq!(details["document_kind"], "SUMMARY");
    assert_eq!(details["isSummaryInvoice"], true);
    assert_eq!(details["lines"].as_array().unwrap().len(), 3, "the orders' lines, their discounts kept");
    assert_eq!(details["lines"][1]["discount_rate"], json!(10.0));
    assert_eq!(details["amount"]["gross"], json!(796.5));
    let again = till.server.post_json("/api/v1/invoice/details/s-1", Some(&till.token), &json!({}));
    assert_eq!(again.data(200)["invoice"]["settledOrderInvoices"].as_array().unwrap().len(), 2);

    // A second summary of a settled order is refused, naming it.
    let reply = till.server.post_json(
        "/api/v1/invoice/summary",
        Some(&till.token),
        &json!({"internalId": "s-2", "order_invoices": [first["iic"]], "payment_method": "BANKNOTE"}),
    );
    reply.assert_error(400);
    assert!(
        reply.body["errors"][0]
            .as_str()
            .unwrap()
            .starts_with("order_invoices.0: the order is already settled"),
        "{}",
        reply.text
    );

    // The CIS saw orders paid with ORDER and one summary naming both.
    let registered = sim.registered()["invoices"].clone();
    let of = |iic: &Value| registered.as_array().unwrap().iter().find(|i| i["iic"] == *iic).unwrap().clone();
    assert_eq!(of(&first["iic"])["pay_methods"], json!(["ORDER"]));
    assert_eq!(of(&first["iic"])["settled_by"], summary["iic"]);
    assert_eq!(of(&summary["iic"])["sum_inv_iic_refs"], json!([first["iic"], pizza["iic"]]));
    assert_eq!(of(&summary["iic"])["type_of_inv"], "CASH");
    for document in [&first, &pizza, &summary] {
        assert_valid_request(&request_of(&sim, &document["iic"]), &till.cert_pem);
    }
}

#[test]
fn the_rules_of_a_table_are_enforced() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let post = |path: &str, body: &Value| till.server.post_json(path, Some(&till.token), body);

    let mut discounted = order_body("r-1", false);
    discounted["invoice_discount_type"] = json!("percent");
    discounted["invoice_discount_value"] = json!(5);
    let reply = post("/api/v1/invoice/order", &discounted);
    reply.assert_invalid("invoice_discount_type");
    reply.assert_invalid("invoice_discount_value");
    let mut paid = order_body("r-1", false);
    paid["payment_method"] = json!("BANKNOTE");
    post("/api/v1/invoice/order", &paid).assert_invalid("payment_method");
    let mut huge = order_body("r-1", false);
    huge["lines"][0]["quantity"] = json!(1e30);
    post("/api/v1/invoice/order", &huge).assert_invalid("lines.0.quantity");

    let order = post("/api/v1/invoice/order", &order_body("r-1", false)).data(201)["invoice"].clone();
    post("/api/v1/invoice/order", &order_body("r-1", false)).assert_error(409);
    let sale = post("/api/v1/invoice/cash", &coffee_and_water("r-cash")).data(201)["invoice"].clone();

    let mut no_id = summary_body("", &[&order], json!([{"type": "BANKNOTE", "amount": 256.5}]));
    no_id.as_object_mut().unwrap().remove("internalId");
    post("/api/v2/invoice/summary", &no_id).assert_error(422);
    post("/api/v1/invoice/summary", &no_id).assert_invalid("internalId");
    post("/api/v2/invoice/summary", &json!({"internalId": "s", "order_invoices": [], "payment_methods": []}))
        .assert_invalid("order_invoices");
    let account = json!({"internalId": "s", "order_invoices": [order["iic"]], "payment_method": "ACCOUNT"});
    post("/api/v1/invoice/summary", &account).assert_invalid("payment_method");
    let cheque = summary_body("s", &[&order], json!([{"type": "CHECK", "amount": 256.5}]));
    post("/api/v2/invoice/summary", &cheque).assert_invalid("payment_methods.0.type");
    let short = summary_body("s", &[&order], json!([{"type": "BANKNOTE", "amount": 200}]));
    post("/api/v2/invoice/summary", &short).assert_invalid("payment_methods");
    let mut rate = summary_body("s", &[&order], json!([{"type": "BANKNOTE", "amount": 256.5}]));
    rate["exchange_rate"] = json!(1e30);
    post("/api/v2/invoice/summary", &rate).assert_invalid("exchange_rate");
    for (iic, why) in [
        (sale["iic"].clone(), "not an order invoice"),
        (json!("0123456789ABCDEF0123456789ABCDEF"), "no invoice of the company"),
    ] {
        let reply = post(
            "/api/v1/invoice/summary",
            &json!({"internalId": "s", "order_invoices": [iic], "payment_method": "CARD"}),
        );
        reply.assert_error(400);
        assert!(reply.text.contains(why), "{}", reply.text);
    }
    post(
        "/api/v1/invoice/summary",
        &json!({"internalId": "s", "order_invoices": ["\u{0}"], "payment_method": "CARD"}),
    )
    .assert_invalid("order_invoices.0");
    // Another company's order is not this company's to settle.
    let neighbour = on_board(&till.server, "K12345678L", 0);
    let theirs =
        till.server.post_json("/api/v1/invoice/order", Some(&neighbour.token), &order_body("n-1", true));
    let theirs = theirs.data(201)["invoice"].clone();
    let reply = post(
        "/api/v1/invoice/summary",
        &json!({"internalId": "s", "order_invoices": [theirs["iic"]], "payment_method": "CARD"}),
    );
    reply.assert_error(400);

    // A user without a till gets the soft refusal.
    let reply = post(
        "/api/v1/on-boarding/user",
        &json!({"name": "Pa kasë", "email": "pakase@shop.al", "branchId": till.branch_id, "operatorCode": "op999op999"}),
    );
    let no_till = reply.data(201)["user"]["token"].as_str().unwrap().to_string();
    let reply = till.server.post_json(
        "/api/v1/invoice/summary",
        Some(&no_till),
        &json!({"internalId": "s", "order_invoices": [order["iic"]], "payment_method": "CARD"}),
    );
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().contains("fiscal device"), "{}", reply.text);

    // The CIS refuses a summary: nothing is kept, the table is open again.
    sim.set_mode(json!({"mode": "fault", "fault_code": "11"}));
    let refused = summary_body("s-refused", &[&order], json!([{"type": "BANKNOTE", "amount": 256.5}]));
    let reply = post("/api/v2/invoice/summary", &refused);
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().starts_with("[11] "), "{}", reply.text);
    sim.mode("ok");
    let state = till.server.get(&format!("/api/v1/invoice/{}/details", order["id"]), Some(&till.token));
    assert_eq!(state.data(200)["invoice"]["order_state"], "open");
    post("/api/v1/invoice/details/s-refused", &json!({})).assert_error(404);

    // The CIS away: an order is kept like a receipt, a summary is not saved at all.
    sim.mode("down");
    let reply = post(
        "/api/v2/invoice/summary",
        &summary_body("s-down", &[&order], json!([{"type": "BANKNOTE", "amount": 256.5}])),
    );
    reply.assert_error(503);
    post("/api/v1/invoice/details/s-down", &json!({})).assert_error(404);
    let late = post("/api/v1/invoice/order", &order_body("r-late", true));
    assert_eq!(late.status, 503, "{}", late.text);
    let late = late.body["data"]["invoice"].clone();
    assert_eq!(late["fic"], Value::Null);
    sim.mode("ok");
    // The summary must reach the CIS after its orders: it waits for the late one.
    eventually("the late order", Duration::from_secs(30), || {
        till.server.get(&format!("/api/v1/invoice/{}/details", late["id"]), Some(&till.token)).data(200)["invoice"]["fic"]
            .is_string()
    });
    let reply = post(
        "/api/v2/invoice/summary",
        &summary_body("s-down", &[&order, &late], json!([{"type": "CARD", "amount": 796.5}])),
    );
    assert_eq!(reply.data(200)["invoice"]["settledOrderInvoices"].as_array().unwrap().len(), 2);
    // The server keeps writing for everyone after all of it.
    post("/api/v1/invoice/cash", &coffee_and_water("r-after")).data(201);
}

#[test]
fn two_summaries_racing_for_the_same_order_settle_it_once() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let order = till.server.post_json("/api/v1/invoice/order", Some(&till.token), &order_body("race", false));
    let order = order.data(201)["invoice"].clone();
    let replies = post_at_once(&till, "/api/v2/invoice/summary", 8, |i| {
        summary_body(&format!("race-{i}"), &[&order], json!([{"type": "BANKNOTE", "amount": 256.5}]))
    });
    let won: Vec<&(u16, Value)> = replies.iter().filter(|(status, _)| *status == 200).collect();
    assert_eq!(won.len(), 1, "{replies:?}");
    assert!(replies.iter().all(|(status, _)| *status == 200 || *status == 400), "{replies:?}");
    let summaries = sim.registered()["invoices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["sum_inv_iic_refs"].as_array().is_some_and(|r| !r.is_empty()))
        .count();
    assert_eq!(summaries, 1);
}

/// A summary of one order of `total` paid in banknotes, as v1 or v2 sends it.
fn paid_in_banknotes(version: u8, internal_id: &str, order: &Value, total: f64) -> Value {
    let mut body = json!({"internalId": internal_id, "order_invoices": [order["iic"]]});
    if version == 1 {
        body["payment_method"] = json!("BANKNOTE");
    } else {
        body["payment_methods"] = json!([{"type": "BANKNOTE", "amount": total}]);
    }
    body
}

/// The details by internalId of a summary, in v1 or v2: the summary with the orders it paid.
fn summary_details(till: &Till, version: u8, internal_id: &str) -> Value {
    let path = format!("/api/v{version}/invoice/details/{internal_id}");
    till.server.post_json(&path, Some(&till.token), &json!({})).data(200)["invoice"].clone()
}

#[test]
fn a_summary_sent_again_is_answered_409_as_a_sale_is_and_read_back_by_its_internal_id() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let post = |path: &str, body: &Value| till.server.post_json(path, Some(&till.token), body);
    let order = post("/api/v1/invoice/order", &order_body("o-1", false)).data(201)["invoice"].clone();
    let v1 = paid_in_banknotes(1, "s-1", &order, 285.0);
    let summary = post("/api/v1/invoice/summary", &v1).data(201)["invoice"].clone();

    // The POS timed out and sends it again, in v1 or v2: the table is paid, once.
    for version in [1, 2] {
        let body = paid_in_banknotes(version, "s-1", &order, 285.0);
        let again = post(&format!("/api/v{version}/invoice/summary"), &body);
        again.assert_error(409);
        assert!(again.body["message"].as_str().unwrap().contains("already issued"), "{}", again.text);
        let read = summary_details(&till, version, "s-1");
        assert_eq!(read["id"], summary["id"]);
        assert_eq!(read["settledOrderInvoices"][0]["iic"], order["iic"]);
    }
    // An order sent again too, in both versions: 409, and its details answer it.
    for version in [1, 2] {
        post(&format!("/api/v{version}/invoice/order"), &order_body("o-1", false)).assert_error(409);
    }
    assert_eq!(summary_details(&till, 2, "o-1")["id"], order["id"]);

    // While the CIS is away (the breaker open), a retry still reads 409, not "not saved".
    sim.mode("down");
    let late = post("/api/v1/invoice/cash", &coffee_and_water("opens-the-breaker"));
    assert_eq!(late.status, 503, "{}", late.text);
    post("/api/v2/invoice/summary", &paid_in_banknotes(2, "s-1", &order, 285.0)).assert_error(409);
    post("/api/v1/invoice/order", &order_body("o-1", false)).assert_error(409);
    sim.mode("ok");

    let summaries = sim.registered()["invoices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["sum_inv_iic_refs"].as_array().is_some_and(|r| !r.is_empty()))
        .count();
    assert_eq!(summaries, 1);
}

#[test]
fn a_summary_sent_again_while_the_first_is_at_the_cis_is_told_it_is_being_issued() {
    let sim = SimServer::start();
    // A POS patient enough for a slow CIS on a busy machine.
    let till = open_till_with(&sim, |args| {
        args.cis_timeout = 20;
        args.cis_wait = arka::config::CisWait(Duration::from_secs(20));
    });
    let order = till.server.post_json("/api/v1/invoice/order", Some(&till.token), &order_body("w-1", true));
    let order = order.data(201)["invoice"].clone();
    let body = paid_in_banknotes(1, "w-s", &order, 600.0);
    let at_the_cis =
        |sim: &SimServer| sim.requests().iter().filter(|r| r["operation"] == "RegisterInvoice").count();
    let before = at_the_cis(&sim);
    sim.set_mode(json!({"mode": "slow", "delay_ms": 1500}));
    std::thread::scope(|scope| {
        let first =
            scope.spawn(|| till.server.post_json("/api/v1/invoice/summary", Some(&till.token), &body));
        eventually("the summary at the CIS", Duration::from_secs(10), || at_the_cis(&sim) > before);
        // Saved, its order settled, its answer not yet in: the retry must not read "not settled".
        let v2 = paid_in_banknotes(2, "w-s", &order, 600.0);
        let again = till.server.post_json("/api/v2/invoice/summary", Some(&till.token), &v2);
        again.assert_error(409);
        assert!(again.body["message"].as_str().unwrap().contains("being issued"), "{}", again.text);
        first.join().unwrap().data(201);
    });
    sim.mode("ok");
    till.server.post_json("/api/v1/invoice/summary", Some(&till.token), &body).assert_error(409);
}

/// A POST of JSON to a server run as a process; `None` when the connection broke (a kill).
fn post_to(base_url: &str, token: &str, path: &str, body: &Value) -> Option<(u16, Value)> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut reply = agent
        .post(format!("{base_url}{path}"))
        .header("Authorization", format!("Bearer {token}"))
        .content_type("application/json")
        .send(body.to_string())
        .ok()?;
    let status = reply.status().as_u16();
    let text = reply.body_mut().read_to_string().ok()?;
    Some((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

#[test]
fn a_summary_saved_just_before_a_kill_is_answered_409_on_its_retry_with_its_orders_settled() {
    use crate::common::process::ServerProcess;

    let sim = SimServer::start();
    let till = open_till(&sim);
    let order = till.server.post_json("/api/v1/invoice/order", Some(&till.token), &order_body("k-1", false));
    let order = order.data(201)["invoice"].clone();
    let token = till.token.clone();
    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");
    let mut flags: Vec<String> =
        sim.flags().into_iter().filter(|f| !f.starts_with("--cis-timeout=")).collect();
    flags.extend([format!("--limits={ROOMY_LIMITS}"), "--cis-timeout=30".into(), "--cis-wait=30".into()]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let body = |version: u8| paid_in_banknotes(version, "k-s", &order, 285.0);
    let at_the_cis = || sim.requests().iter().filter(|r| r["operation"] == "RegisterInvoice").count();

    // The summary is saved and on its way to a slow CIS when the server is killed.
    let before = at_the_cis();
    sim.set_mode(json!({"mode": "slow", "delay_ms": 20000}));
    let mut server = ServerProcess::start(&data, &flags);
    let base_url = server.base_url.clone();
    std::thread::scope(|scope| {
        let pos = scope.spawn(|| post_to(&base_url, &token, "/api/v1/invoice/summary", &body(1)));
        eventually("the summary at the CIS", Duration::from_secs(20), || at_the_cis() > before);
        let killed =
            std::process::Command::new("kill").args(["-KILL", &server.pid().to_string()]).status().unwrap();
        assert!(killed.success());
        assert_eq!(pos.join().unwrap(), None, "the POS got no answer");
    });
    server.wait_for_exit();

    // The POS retries after the restart: 409, and the details show the summary and its order.
    sim.mode("ok");
    let server = ServerProcess::start(&data, &flags);
    let base_url = server.base_url.clone();
    for version in [1, 2] {
        let (status, answer) =
            post_to(&base_url, &token, &format!("/api/v{version}/invoice/summary"), &body(version)).unwrap();
        assert_eq!(status, 409, "{answer}");
        assert!(answer["message"].as_str().unwrap().contains("already issued"), "{answer}");
    }
    eventually("the summary delivered after the restart", Duration::from_secs(60), || {
        let (status, answer) = post_to(&base_url, &token, "/api/v2/invoice/details/k-s", &json!({})).unwrap();
        assert_eq!(status, 200, "{answer}");
        let summary = &answer["data"]["invoice"];
        assert_eq!(summary["isSummaryInvoice"], true, "{answer}");
        assert_eq!(summary["settledOrderInvoices"][0]["iic"], order["iic"], "{answer}");
        summary["fic"].is_string()
    });
    let (_, listed) = post_to(&base_url, &token, "/api/v1/invoice/details/k-1", &json!({})).unwrap();
    assert_eq!(listed["data"]["invoice"]["id"], order["id"]);
    drop(server);
}

/// The table's open orders as any tablet reads them back.
fn open_orders(till: &Till, token: &str) -> Vec<Value> {
    till.server.get("/api/v2/invoice/open-orders", Some(token)).data(200)["items"].as_array().unwrap().clone()
}

/// A café's table of two rounds split by lines: one guest pays a coffee and the pizza, the
/// other what is left; each part is a summary with its own fiscal receipt, the rest stays open
/// (on the server, for every tablet) until the last of it is paid.
#[test]
fn a_table_is_split_by_lines_each_guest_paying_a_summary_and_the_rest_stays_open() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let post = |path: &str, body: &Value| till.server.post_json(path, Some(&till.token), body);

    // Two rounds for the table T4: two coffees and a water with 10 % off (285.00), a pizza.
    let mut round = order_body("t4-1", false);
    round["table"] = json!(" T4 ");
    let first = post("/api/v2/invoice/order", &round).data(200)["invoice"].clone();
    let mut round = order_body("t4-2", true);
    round["table"] = json!("T4");
    let pizza = post("/api/v2/invoice/order", &round).data(200)["invoice"].clone();
    let mut long = order_body("t5-1", true);
    long["table"] = json!("x".repeat(51));
    post("/api/v2/invoice/order", &long).assert_invalid("table");

    let open = open_orders(&till, &till.token);
    assert_eq!(open.len(), 2, "{open:?}");
    assert_eq!(open[0]["iic"], first["iic"]);
    assert_eq!(open[0]["table"], "T4");
    assert_eq!(open[0]["internalId"], "t4-1");
    assert_eq!(open[0]["amount"], json!({"gross": 285.0, "left": 285.0}));
    assert_eq!(open[0]["lines"][0]["line"], 0);
    assert_eq!(open[0]["lines"][0]["quantity"], json!(2.0));
    assert_eq!(open[0]["lines"][0]["left"], json!(2.0));
    assert_eq!(open[0]["lines"][1]["discount_rate"], json!(10.0));
    assert_eq!(open[1]["table"], "T4");

    // The first guest: one coffee and the pizza, 720.00 in banknotes.
    let guest = |internal_id: &str, lines: Value, amount: f64| {
        json!({
            "internalId": internal_id,
            "order_invoices": [first["iic"], pizza["iic"]],
            "order_lines": lines,
            "payment_methods": [{"type": "BANKNOTE", "amount": amount}],
        })
    };
    let lines = json!([
        {"order_invoice": first["iic"], "line": 0, "quantity": 1},
        {"order_invoice": pizza["iic"], "line": 0, "quantity": 1},
    ]);
    let reply = post("/api/v2/invoice/summary", &guest("g-1", lines.clone(), 720.0));
    let one = reply.data(200)["invoice"].clone();
    assert_eq!(one["isSummaryInvoice"], true);
    assert_eq!(one["payment_methods"][0]["amount"], json!(720.0));
    let settled = one["settledOrderInvoices"].as_array().unwrap();
    assert_eq!(
        settled.iter().map(|o| o["iic"].clone()).collect::<Vec<_>>(),
        [first["iic"].clone(), pizza["iic"].clone()]
    );
    let details = till.server.get(&format!("/api/v2/invoice/{}/details", one["id"]), Some(&till.token));
    let details = details.data(200)["invoice"].clone();
    assert_eq!(details["lines"].as_array().unwrap().len(), 2);
    assert_eq!(details["lines"][0]["product_code"], "K1");
    assert_eq!(details["lines"][0]["quantity"], json!(1.0));
    assert_eq!(details["lines"][0]["total"], json!(120.0));
    assert_eq!(details["amount"]["gross"], json!(720.0));

    // The pizza's order is paid in full; the first round is open with one coffee and the water.
    let open = open_orders(&till, &till.token);
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0]["iic"], first["iic"]);
    assert_eq!(open[0]["lines"][0]["paid"], json!(1.0));
    assert_eq!(open[0]["lines"][0]["left"], json!(1.0));
    assert_eq!(open[0]["lines"][0]["left_total"], json!(120.0));
    assert_eq!(open[0]["amount"], json!({"gross": 285.0, "left": 165.0}));
    let listed = list(&till);
    let state_of = |iic: &Value| listed.iter().find(|i| i["iic"] == *iic).unwrap().clone();
    assert_eq!(state_of(&pizza["iic"])["order_state"], "settled");
    assert_eq!(state_of(&pizza["iic"])["settled_by"], one["id"]);
    assert_eq!(state_of(&first["iic"])["order_state"], "open");

    // What is paid cannot be paid again, and the order half paid cannot be cancelled.
    let again = json!([{"order_invoice": first["iic"], "line": 0, "quantity": 2}]);
    let mut body = guest("g-x", again, 240.0);
    body["order_invoices"] = json!([first["iic"]]);
    post("/api/v2/invoice/summary", &body).assert_invalid("order_lines.0.quantity");
    let reply = post(&format!("/api/v2/invoice/cancel/{}", first["id"]), &json!({}));
    reply.assert_invalid("invoice");
    assert_eq!(
        reply.body["errors"]["invoice"][0],
        "Part of the order is paid by a summary invoice: cancel the summary."
    );
    let reply = post("/api/v2/invoice/summary", &guest("g-y", lines, 720.0));
    reply.assert_error(400);

    // The second guest pays what is left: the other coffee and the water, 165.00, by card.
    let body = json!({
        "internalId": "g-2",
        "order_invoices": [first["iic"]],
        "payment_methods": [{"type": "CARD", "amount": 165}],
    });
    let two = post("/api/v2/invoice/summary", &body).data(200)["invoice"].clone();
    assert_eq!(two["settledOrderInvoices"][0]["iic"], first["iic"]);
    assert!(open_orders(&till, &till.token).is_empty(), "the table is paid");
    let listed = list(&till);
    let first_now = listed.iter().find(|i| i["iic"] == first["iic"]).unwrap();
    assert_eq!(first_now["order_state"], "settled");
    assert_eq!(first_now["settled_by"], two["id"]);
    assert_eq!(balance(&till), 720.0 + 165.0, "both guests' bills are the table's cash");

    // The CIS saw each guest's summary name the orders it paid from, the first round settled by
    // the second guest's.
    let registered = sim.registered()["invoices"].clone();
    let of = |iic: &Value| registered.as_array().unwrap().iter().find(|i| i["iic"] == *iic).unwrap().clone();
    assert_eq!(of(&one["iic"])["sum_inv_iic_refs"], json!([first["iic"], pizza["iic"]]));
    assert_eq!(of(&pizza["iic"])["settled_by"], one["iic"]);
    assert_eq!(of(&first["iic"])["settled_by"], two["iic"]);
    for document in [&one, &two] {
        assert_valid_request(&request_of(&sim, &document["iic"]), &till.cert_pem);
    }
}

/// A cashier reads the open orders of their own till; a manager or an owner every till's.
#[test]
fn a_cashier_reads_the_open_orders_of_their_own_till() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let mut round = order_body("t-1", true);
    round["table"] = json!("Tarraca 2");
    till.server.post_json("/api/v2/invoice/order", Some(&till.token), &round).data(200);
    let body = json!({"name": "Arben", "email": "arben@shop.al", "branchId": till.branch_id, "operatorCode": "op345op345"});
    let other = till.server.post_json("/api/v1/on-boarding/user", Some(&till.token), &body);
    let other = other.data(201)["user"]["token"].as_str().unwrap().to_string();
    assert_eq!(till.server.get("/api/v2/invoice/open-orders", None).status, 401);
    assert_eq!(open_orders(&till, &till.token).len(), 1, "the owner");
    assert!(open_orders(&till, &other).is_empty(), "a cashier without this till sees none of its tables");
}
