//! The shelves of a shop: sales take from them in the same transaction as the invoice, the owner
//! counts them, books deliveries and corrects mistakes, the mobile list shows them; with
//! `enforce` on, the last sack of flour is sold once even when two tills sell it at once.

use crate::common::depot::*;
use crate::common::sim::SimServer;
use crate::common::till::{coffee_and_water, on_board};
use crate::common::*;
use serde_json::{Value, json};

/// A sale of `quantity` of KAFE (coffee beans, an inventory article) at 120 ALL each.
fn sale(internal_id: &str, quantity: u32) -> Value {
    let total = 120 * quantity;
    json!({
        "internalId": internal_id,
        "lines": [{"product_name": "Kafe kokërr", "product_code": "KAFE", "unit": "kg", "quantity": quantity,
                   "price": 120, "total": total, "vat": 20}],
        "payment_method": "BANKNOTE",
    })
}

fn on_account(internal_id: &str, quantity: u32) -> Value {
    let mut body = sale(internal_id, quantity);
    body["payment_method"] = json!("ACCOUNT");
    body["client"] = json!({"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": "K81234001A"},
                            "address": "Rruga e Kavajës 112", "city": "Tiranë"});
    body
}

#[test]
fn two_concurrent_sales_of_the_last_article_with_enforce_on_one_wins_one_gets_400() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let server = &depot.till.server;
    let beans = depot.product("KAFE", "Kafe kokërr", false);
    let enforce = server.put_json("/api/v1/stock/settings", Some(depot.owner()), &json!({"enforce": true}));
    assert_eq!(enforce.data(200), &json!({"enabled": true, "enforce": true}));

    for round in 0..3 {
        depot.adjust(beans, None, "count", 1.0).data(201);
        // The till's cash sale and the office's non-cash sale take different locks: only the
        // write transaction stands between them.
        let (cash, noncash) = std::thread::scope(|scope| {
            let cash = scope.spawn(|| {
                server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &sale(&format!("c-{round}"), 1))
            });
            let noncash = scope.spawn(|| {
                server.post_json(
                    "/api/v1/invoice/noncash",
                    Some(depot.owner()),
                    &on_account(&format!("n-{round}"), 1),
                )
            });
            (cash.join().unwrap(), noncash.join().unwrap())
        });
        let mut statuses = [cash.status, noncash.status];
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 400], "one wins, one is refused: {} / {}", cash.text, noncash.text);
        let refused = if cash.status == 400 { &cash } else { &noncash };
        refused.assert_error(400);
        assert_eq!(refused.body["errors"], json!(["lines.0.quantity: 1 of KAFE asked, 0 left in Qendër"]));
        assert_eq!(depot.shelf(depot.owner(), beans), 0.0);
        // The refused sale was not saved: its internalId is free for a retry.
        let refused_id = if cash.status == 400 { format!("c-{round}") } else { format!("n-{round}") };
        let details = format!("/api/v1/invoice/details/{refused_id}");
        server.post_json(&details, Some(depot.owner()), &json!({})).assert_error(404);
    }
    // A note beyond the shelf is refused the same way, naming its line.
    depot.adjust(beans, None, "delivery", 2.0).data(201);
    let too_much = depot
        .wtn(1, &note(Some("w-too-much"), &[("KAFE", "Kafe kokërr", 1.0), ("KAFE", "Kafe kokërr", 1.5)]));
    too_much.assert_error(400);
    assert_eq!(
        too_much.body["errors"],
        json!(["invoice_lines.1.quantity: 1.5 of KAFE asked, 1 left in Qendër"])
    );
    depot.get("/api/v1/invoice/wtn/details/w-too-much", depot.owner()).assert_error(404);
    assert_eq!(depot.shelf(depot.owner(), beans), 2.0);
    // Nothing was sent to the CIS for it.
    assert_eq!(depot.assert_every_wtn_request_passes_outside_tools(), 0);
    // The shelf's last two go, and then nothing.
    server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &sale("last", 2)).data(201);
    server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &sale("none-left", 1)).assert_error(400);
}

#[test]
fn sales_take_from_the_shelf_and_with_enforce_off_it_may_go_negative() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let server = &depot.till.server;
    let beans = depot.product("KAFE", "Kafe kokërr", false);
    depot.adjust(beans, None, "count", 3.0).data(201);

    server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &sale("s-1", 2)).data(201);
    assert_eq!(depot.shelf(depot.owner(), beans), 1.0);
    server.post_json("/api/v1/invoice/noncash", Some(depot.owner()), &on_account("s-2", 3)).data(201);
    assert_eq!(depot.shelf(depot.owner(), beans), -2.0, "enforce is off: the list shows the debt");
    // A line whose code is not an inventory article moves nothing.
    server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &coffee_and_water("s-3")).data(201);
    assert_eq!(depot.shelf(depot.owner(), beans), -2.0);

    // A sale the CIS refuses is given up: what it took is back on the shelf.
    sim.set_mode(json!({"mode": "fault", "fault_code": "11"}));
    let refused = server.post_json("/api/v1/invoice/noncash", Some(depot.owner()), &on_account("s-4", 1));
    refused.assert_error(200);
    sim.mode("ok");
    assert_eq!(depot.shelf(depot.owner(), beans), -2.0);

    // With stock off, sales leave the shelf alone.
    server.put_json("/api/v1/stock/settings", Some(depot.owner()), &json!({"enabled": false})).data(200);
    server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &sale("s-5", 1)).data(201);
    let list = depot.get(&format!("/api/v1/mobile/products/stock?ids={beans}"), depot.owner());
    assert_eq!(list.data(200)["enabled"], false);
    assert_eq!(list.data(200)["products"][0]["quantity"], -2.0);

    let history = depot.get(&format!("/api/v1/stock/products/{beans}"), depot.owner());
    let history = history.data(200).clone();
    let sales: Vec<(&str, f64)> = history["movements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["reason"].as_str().unwrap(), m["change"].as_f64().unwrap()))
        .collect();
    assert_eq!(sales, [("sale", -3.0), ("sale", -2.0), ("count", 3.0)]);
    assert_eq!(history["movements"][0]["document"]["kind"], "invoice");
    assert_eq!(history["movements"][0]["quantity_after"], -2.0);
}

#[test]
fn the_owner_counts_books_deliveries_and_corrects_and_each_movement_says_who_when_why() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let server = &depot.till.server;
    let flour = depot.product("MIELL", "Miell gruri", false);
    let adjust = |token: &str, body: Value| {
        server.post_json(&format!("/api/v1/stock/products/{flour}/adjustments"), Some(token), &body)
    };

    // Only the owner sets and corrects quantities, or changes the settings.
    adjust(depot.clerk(), json!({"kind": "count", "quantity": 5})).assert_error(403);
    server
        .put_json("/api/v1/stock/settings", Some(depot.clerk()), &json!({"enforce": true}))
        .assert_error(403);
    assert_eq!(
        depot.get("/api/v1/stock/settings", depot.clerk()).data(200),
        &json!({"enabled": true, "enforce": false})
    );

    let counted =
        adjust(depot.owner(), json!({"kind": "count", "quantity": 12.5, "note": "inventari i vitit"}));
    let counted = counted.data(201).clone();
    assert_eq!(
        counted["product"],
        json!({"id": flour, "code": "MIELL", "name": "Miell gruri", "unit": "copë"})
    );
    let movement = &counted["movement"];
    assert_eq!(movement["reason"], "count");
    assert_eq!((movement["change"].as_f64(), movement["quantity_after"].as_f64()), (Some(12.5), Some(12.5)));
    assert_eq!(movement["note"], "inventari i vitit");
    assert_eq!(movement["user"]["id"], depot.till.user_id);
    assert_eq!(movement["document"], Value::Null);
    assert_eq!(movement["created_at"].as_str().unwrap().len(), 19, "YYYY-MM-DD HH:MM:SS");

    adjust(depot.owner(), json!({"kind": "delivery", "quantity": 20, "business_unit_id": depot.second_unit}))
        .data(201);
    adjust(depot.owner(), json!({"kind": "correction", "quantity": -0.5, "note": "thes i grisur"})).data(201);
    adjust(depot.owner(), json!({"kind": "count", "quantity": 10})).data(201);
    for (body, field) in [
        (json!({"kind": "count", "quantity": -1}), "quantity"),
        (json!({"kind": "delivery", "quantity": 0}), "quantity"),
        (json!({"kind": "correction", "quantity": 0}), "quantity"),
        (json!({"kind": "count", "quantity": 1.0001}), "quantity"),
        (json!({"kind": "stolen", "quantity": 1}), "kind"),
        (json!({"quantity": 1}), "kind"),
        (json!({"kind": "count", "quantity": 1, "note": "x".repeat(256)}), "note"),
    ] {
        adjust(depot.owner(), body).assert_invalid(field);
    }

    let history = depot.get(&format!("/api/v1/stock/products/{flour}?limit=3"), depot.clerk());
    let history = history.data(200).clone();
    let movements: Vec<(&str, f64, f64)> = history["movements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["reason"].as_str().unwrap(),
                m["change"].as_f64().unwrap(),
                m["quantity_after"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(movements, [("count", -2.0, 10.0), ("correction", -0.5, 12.0), ("delivery", 20.0, 20.0)]);
    assert_eq!(history["pagination"], json!({"records": 3, "limit": 3, "offset": 0}));
    assert_eq!(
        history["levels"],
        json!([
            {"business_unit": {"id": depot.till.branch_id, "name": "Qendër"}, "quantity": 10.0},
            {"business_unit": {"id": depot.second_unit, "name": "Durrës"}, "quantity": 20.0},
        ])
    );
    let durres = depot.get(
        &format!("/api/v1/stock/products/{flour}?business_unit_id={}", depot.second_unit),
        depot.owner(),
    );
    assert_eq!(durres.data(200)["movements"].as_array().unwrap().len(), 1);
    assert_eq!(depot.shelf(&depot.second_clerk, flour), 20.0);

    // With enforce on, a correction may not take the shelf below zero.
    server.put_json("/api/v1/stock/settings", Some(depot.owner()), &json!({"enforce": true})).data(200);
    let below = adjust(depot.owner(), json!({"kind": "correction", "quantity": -11}));
    below.assert_error(400);
    assert_eq!(below.body["errors"], json!(["quantity: 11 taken, 10 left in Qendër"]));
}

#[test]
fn the_mobile_stock_list_shows_the_caller_s_unit_and_its_articles() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let flour = depot.product("MIELL", "Miell gruri", false);
    let oil = depot.product("VAJ", "Vaj ulliri", false);
    let service = depot.product("TRANSPORT", "Transport", true);
    depot.adjust(flour, None, "count", 7.0).data(201);
    depot.adjust(oil, Some(depot.second_unit), "count", 3.0).data(201);

    let all = depot.get("/api/v1/mobile/products/stock", depot.owner());
    assert_eq!(
        all.data(200),
        &json!({
            "enabled": true,
            "enforce": false,
            "warehouse": {"id": depot.till.branch_id, "name": "Qendër"},
            "products": [
                {"id": flour, "code": "MIELL", "name": "Miell gruri", "unit": "copë", "quantity": 7.0},
                {"id": oil, "code": "VAJ", "name": "Vaj ulliri", "unit": "copë", "quantity": 0.0},
            ],
        })
    );
    let durres = depot.get(&format!("/api/v1/mobile/products/stock?ids={oil},{flour}"), &depot.second_clerk);
    let durres = durres.data(200);
    assert_eq!(durres["warehouse"]["name"], "Durrës");
    let quantities: Vec<(i64, f64)> = durres["products"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_i64().unwrap(), p["quantity"].as_f64().unwrap()))
        .collect();
    assert_eq!(quantities, [(oil, 3.0), (flour, 0.0)], "in the order asked");
    // A service has no shelf; a user without a unit has no warehouse.
    depot.get(&format!("/api/v1/mobile/products/stock?ids={service}"), depot.owner()).assert_invalid("ids");
    depot.get("/api/v1/mobile/products/stock?ids=1,x", depot.owner()).assert_invalid("ids");
    let unitless = cashier(&depot.till.server, depot.till.company_id);
    depot.get("/api/v1/mobile/products/stock", &unitless).assert_error(200);
    depot.till.server.get("/api/v1/mobile/products/stock", None).assert_unauthenticated();
}

#[test]
fn a_cancellation_puts_back_what_it_reverses_and_a_table_takes_its_goods_once() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let server = &depot.till.server;
    let beans = depot.product("KAFE", "Kafe kokërr", false);
    depot.adjust(beans, None, "count", 10.0).data(201);

    let sold = server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &sale("c-1", 4));
    let id = sold.data(201)["invoice"]["id"].as_i64().unwrap();
    assert_eq!(depot.shelf(depot.owner(), beans), 6.0);
    // Part of the sale comes back, then the rest: the shelf follows each corrective document.
    let part = json!({"lines": [{"product_name": "Kafe kokërr", "product_code": "KAFE", "quantity": 1}]});
    server.post_json(&format!("/api/v1/invoice/cancel/{id}"), Some(depot.owner()), &part).data(200);
    assert_eq!(depot.shelf(depot.owner(), beans), 7.0);
    server.post_json(&format!("/api/v1/invoice/cancel/{id}"), Some(depot.owner()), &json!({})).data(200);
    assert_eq!(depot.shelf(depot.owner(), beans), 10.0);

    // An order takes the goods when the table orders them; its summary moves nothing more.
    let mut order = sale("o-1", 2);
    order.as_object_mut().unwrap().remove("payment_method");
    let order = server.post_json("/api/v1/invoice/order", Some(depot.owner()), &order);
    let iic = order.data(201)["invoice"]["iic"].as_str().unwrap().to_string();
    assert_eq!(depot.shelf(depot.owner(), beans), 8.0);
    let summary = json!({"internalId": "t-1", "order_invoices": [iic], "payment_method": "CARD"});
    server.post_json("/api/v1/invoice/summary", Some(depot.owner()), &summary).data(201);
    assert_eq!(depot.shelf(depot.owner(), beans), 8.0);

    let history = depot.get(&format!("/api/v1/stock/products/{beans}"), depot.owner());
    let reasons: Vec<(String, f64)> = history.data(200)["movements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["reason"].as_str().unwrap().to_string(), m["change"].as_f64().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("sale".to_string(), -2.0),
            ("cancellation".to_string(), 3.0),
            ("cancellation".to_string(), 1.0),
            ("sale".to_string(), -4.0),
            ("count".to_string(), 10.0),
        ]
    );
}

/// A v2 cash sale of MIELL and KAFE, paid in banknotes.
fn sale_v2(internal_id: &str, flour: u32, beans: u32) -> Value {
    let mut lines = Vec::new();
    if flour > 0 {
        lines.push(json!({"product_name": "Miell gruri", "product_code": "MIELL", "unit": "copë",
                          "quantity": flour, "price": 100, "total": 100 * flour, "vat": 20}));
    }
    if beans > 0 {
        lines.push(json!({"product_name": "Kafe kokërr", "product_code": "KAFE", "unit": "kg",
                          "quantity": beans, "price": 120, "total": 120 * beans, "vat": 20}));
    }
    let total = 100 * flour + 120 * beans;
    json!({"internalId": internal_id, "lines": lines,
           "payment_methods": [{"type": "BANKNOTE", "amount": total}]})
}

#[test]
fn goods_sent_with_a_note_and_then_invoiced_with_its_wtn_id_leave_the_shelf_once() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let server = &depot.till.server;
    let beans = depot.product("KAFE", "Kafe kokërr", false);
    let flour = depot.product("MIELL", "Miell gruri", false);
    depot.adjust(beans, None, "count", 10.0).data(201);
    depot.adjust(flour, None, "count", 10.0).data(201);
    let shelves = || (depot.shelf(depot.owner(), beans), depot.shelf(depot.owner(), flour));

    // 5 kg of coffee and 2 sacks of flour go to a client's shop with a note, before the invoice.
    let sent =
        depot.wtn(1, &note(Some("w-1"), &[("KAFE", "Kafe kokërr", 5.0), ("MIELL", "Miell gruri", 2.0)]));
    let sent = sent.data(201)["invoice"].clone();
    let wtn_id = sent["id"].as_i64().unwrap();
    let after_the_note = shelves();
    assert_eq!(after_the_note, (5.0, 8.0));

    // The office invoices the coffee on account, naming the note: the shelf stays as the note
    // left it.
    let mut invoice = on_account("n-1", 5);
    invoice["wtn_id"] = json!(wtn_id);
    let issued = server.post_json("/api/v1/invoice/noncash", Some(depot.owner()), &invoice);
    let id = issued.data(201)["invoice"]["id"].as_i64().unwrap();
    assert_eq!(shelves(), after_the_note, "the goods left once, with the note");
    let link = json!({"id": wtn_id, "number": sent["number"], "iic": sent["iic"]});
    assert_eq!(issued.data(201)["invoice"]["wtn"], link);
    let details = depot.get(&format!("/api/v1/invoice/{id}/details"), depot.owner());
    assert_eq!(details.data(200)["invoice"]["wtn"], link);

    // A v2 cash sale of 3 sacks names the note too: 2 of them left with it, the third leaves the
    // shelf now; the coffee on it was invoiced already, so its 1 kg leaves the shelf.
    let mut cash = sale_v2("c-1", 3, 1);
    cash["wtn_id"] = json!(wtn_id);
    let cash = server.post_json("/api/v2/invoice/cash", Some(depot.owner()), &cash);
    let cash_id = cash.data(200)["invoice"]["id"].as_i64().unwrap();
    assert_eq!(shelves(), (4.0, 7.0));
    // Everything the note carried is invoiced now: another link to it is refused.
    let mut again = sale_v2("c-2", 2, 0);
    again["wtn_id"] = json!(wtn_id);
    server.post_json("/api/v2/invoice/cash", Some(depot.owner()), &again).assert_invalid("wtn_id");
    // Cancelling the cash sale gives the note back its 2 sacks and the shelf what the sale took.
    server.post_json(&format!("/api/v1/invoice/cancel/{cash_id}"), Some(depot.owner()), &json!({})).data(200);
    assert_eq!(shelves(), (5.0, 8.0));
    // So the corrected sale may name the note again, and takes nothing more off the shelf.
    server.post_json("/api/v2/invoice/cash", Some(depot.owner()), &again).data(200);
    assert_eq!(shelves(), (5.0, 8.0));

    // An invoice without the link takes its goods as before.
    server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &sale("plain", 1)).data(201);
    assert_eq!(shelves(), (4.0, 8.0));
    let history = depot.get(&format!("/api/v1/stock/products/{flour}"), depot.owner());
    let moved: Vec<(String, f64)> = history.data(200)["movements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["reason"].as_str().unwrap().to_string(), m["change"].as_f64().unwrap()))
        .collect();
    let moved: Vec<(&str, f64)> = moved.iter().map(|(r, c)| (r.as_str(), *c)).collect();
    assert_eq!(moved, [("cancellation", 1.0), ("sale", -1.0), ("wtn_out", -2.0), ("count", 10.0)]);

    // Bad links are 422 naming wtn_id: no such note, another company's, a transfer to one of the
    // company's own units (its goods are on that unit's shelf), not an id.
    let other = on_board(server, "K12345678L", 0);
    let theirs = server.post_json("/api/v1/invoice/wtn", Some(&other.token), &note(None, &[("X", "X", 1.0)]));
    let theirs = theirs.data(201)["invoice"]["id"].clone();
    let mut transfer = note(Some("w-2"), &[("KAFE", "Kafe kokërr", 1.0)]);
    transfer["destination_unit_id"] = json!(depot.second_unit);
    let transfer = depot.wtn(1, &transfer).data(201)["invoice"]["id"].clone();
    for bad in [json!(999_999), theirs, transfer, json!("w-1")] {
        let mut body = sale("bad-link", 1);
        body["wtn_id"] = bad.clone();
        let reply = server.post_json("/api/v1/invoice/cash", Some(depot.owner()), &body);
        assert_eq!(reply.invalid_fields(), ["wtn_id"], "{bad}: {}", reply.text);
    }
    assert_eq!(shelves(), (3.0, 8.0), "only the transfer moved the coffee");
}
