//! Invoices as a POS tells it: a shop with a till sells for cash and on account, through v1 and
//! v2, loses the CIS for a while, and reads its invoices back.

use std::time::{Duration, Instant};

use crate::common;
use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use arka::fiscal::certificate::Certificate;
use chrono::Utc;
use serde_json::{Value, json};

fn v2(mut body: Value, payments: Value) -> Value {
    body.as_object_mut().unwrap().remove("payment_method");
    body["payment_methods"] = payments;
    body
}

/// 503 in the error envelope, with the saved invoice in `data` so the POS can print it.
fn assert_saved_for_later(reply: &Reply) {
    assert_eq!(reply.status, 503, "{}", reply.text);
    assert_eq!(reply.body["status"], false);
    assert!(reply.body["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(reply.body["data"]["invoice"]["iic"].is_string(), "{}", reply.text);
}

#[test]
fn a_cash_sale_is_fiscalized_and_answered_in_the_v1_and_v2_shapes() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("r-1"));
    let invoice = reply.data(201)["invoice"].clone();
    assert_eq!(
        object_keys(&invoice),
        [
            "businessCode",
            "fic",
            "fiscalizedAt",
            "id",
            "iic",
            "number",
            "operatorCode",
            "pdf",
            "tcrCode",
            "verifyURL"
        ]
    );
    let year = Utc::now().format("%Y").to_string();
    assert_eq!(invoice["number"], format!("1/{year}"));
    assert_eq!(invoice["iic"].as_str().unwrap().len(), 32);
    assert!(invoice["fic"].as_str().is_some());
    assert_eq!(invoice["businessCode"], "ab123cd456");
    assert_eq!(invoice["operatorCode"], "op123op123");
    assert!(
        invoice["verifyURL"].as_str().unwrap().contains("%2B01:00")
            || invoice["verifyURL"].as_str().unwrap().contains("%2B02:00")
    );
    assert!(invoice["pdf"].as_str().unwrap().ends_with(&format!("/api/v1/invoice/print/{}", invoice["id"])));
    assert!(invoice.get("eic").is_none(), "eic is absent, not null");

    let body = v2(
        coffee_and_water("r-2"),
        json!([{"type": "BANKNOTE", "amount": 200}, {"type": "CARD", "amount": 85}]),
    );
    let reply = till.server.post_json("/api/v2/invoice/cash", Some(&till.token), &body);
    let invoice = reply.data(200)["invoice"].clone();
    assert_eq!(invoice["number"], format!("2/{year}"));
    let methods = invoice["payment_methods"].as_array().unwrap();
    assert_eq!(methods.len(), 2);
    assert_eq!(
        methods[0],
        json!({"type": "BANKNOTE", "amount": 200.0, "company_card": null, "vouchers": []})
    );
    let accepted = sim
        .requests()
        .iter()
        .filter(|r| r["operation"] == "RegisterInvoice" && r["outcome"] == "accepted")
        .count();
    assert_eq!(accepted, 2);
}

#[test]
fn the_same_internal_id_is_issued_once_and_read_back_by_it() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let first = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("pos-77"));
    let issued = first.data(201)["invoice"].clone();
    till.server
        .post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("pos-77"))
        .assert_error(409);
    let body = v2(coffee_and_water("pos-77"), json!([{"type": "BANKNOTE", "amount": 285}]));
    till.server.post_json("/api/v2/invoice/cash", Some(&till.token), &body).assert_error(409);

    let again = till.server.post_json("/api/v1/invoice/details/pos-77", Some(&till.token), &json!({}));
    assert_eq!(again.data(200)["invoice"], issued);
    till.server
        .post_json("/api/v1/invoice/details/never-sent", Some(&till.token), &json!({}))
        .assert_error(404);
    let v2_again = till.server.post_json("/api/v2/invoice/details/pos-77", Some(&till.token), &json!({}));
    assert_eq!(v2_again.data(200)["invoice"]["payment_methods"][0]["type"], "BANKNOTE");
}

#[test]
fn the_rules_of_lines_clients_and_devices_are_enforced() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let path = "/api/v1/invoice/cash";

    let mut wrong_total = coffee_and_water("x-1");
    wrong_total["lines"][1]["total"] = json!(50);
    let reply = till.server.post_json(path, Some(&till.token), &wrong_total);
    reply.assert_error(400);
    let errors = reply.body["errors"].to_string();
    assert!(errors.contains("lines.1") && errors.contains("45.00"), "{errors}");

    let mut bad_discount = coffee_and_water("x-2");
    bad_discount["lines"][0]["discount"] = json!(101);
    till.server.post_json(path, Some(&till.token), &bad_discount).assert_invalid("lines.0.discount");

    let mut empty_discount = coffee_and_water("x-3");
    empty_discount["lines"][0]["discount"] = json!("");
    till.server.post_json(path, Some(&till.token), &empty_discount).data(201);

    let mut no_address = coffee_and_water("x-4");
    no_address["client"] = json!({"name": "Arben Gashi"});
    till.server.post_json(path, Some(&till.token), &no_address).assert_error(400);

    let mut unnamed = coffee_and_water("x-5");
    unnamed["client"] = json!({"address": "Rruga 1"});
    till.server.post_json(path, Some(&till.token), &unnamed).assert_invalid("client.name");

    let mut company_card_with_cash = coffee_and_water("x-6");
    company_card_with_cash["company_card"] = json!("1234");
    let reply = till.server.post_json(path, Some(&till.token), &company_card_with_cash);
    assert_eq!(reply.status, 422, "{}", reply.text);

    let body = v2(coffee_and_water("x-7"), json!([{"type": "BANKNOTE", "amount": 100}]));
    till.server.post_json("/api/v2/invoice/cash", Some(&till.token), &body).assert_invalid("payment_methods");
    let mut no_id = coffee_and_water("");
    no_id.as_object_mut().unwrap().remove("internalId");
    till.server.post_json(path, Some(&till.token), &no_id).assert_invalid("internalId");
    let reply = till.server.post_json("/api/v2/invoice/cash", Some(&till.token), &v2(no_id, json!([])));
    reply.assert_error(422);

    // A cashier without a till gets the soft refusal.
    let cashier = till.server.post_json(
        "/api/v1/on-boarding/user",
        Some(&till.token),
        &json!({"name": "Pa kasë", "email": "pakase@shop.al", "branchId": 1, "operatorCode": "op999op999"}),
    );
    let cashier_token = cashier.data(201)["user"]["token"].as_str().unwrap().to_string();
    let reply = till.server.post_json(path, Some(&cashier_token), &coffee_and_water("x-8"));
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().contains("fiscal device"));
}

#[test]
fn a_refused_invoice_keeps_its_number_for_its_retry() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let year = Utc::now().format("%Y").to_string();
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("a")).data(201);
    sim.set_mode(json!({"mode": "fault", "fault_code": "11"}));
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("b"));
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().starts_with("[11] "), "{}", reply.text);
    till.server.post_json("/api/v1/invoice/details/b", Some(&till.token), &json!({})).assert_error(404);
    sim.mode("ok");
    let other = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("c"));
    assert_eq!(other.data(201)["invoice"]["number"], format!("3/{year}"), "another sale never takes it");
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("b"));
    assert_eq!(reply.data(201)["invoice"]["number"], format!("2/{year}"));
}

#[test]
fn while_the_cis_is_away_cash_is_saved_and_delivered_later_but_non_cash_is_not() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sim.mode("down");
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("off-1"));
    assert_saved_for_later(&reply);
    let invoice = reply.body["data"]["invoice"].clone();
    assert_eq!(invoice["fic"], Value::Null);
    assert_eq!(invoice["iic"].as_str().unwrap().len(), 32);
    let account = till.server.get("/api/v1/account", Some(&till.token)).data(200).clone();
    assert_eq!(account["cisConnection"]["state"], "offline");
    assert_eq!(object_keys(&account["cisConnection"]), ["reason", "since", "state"]);

    // The breaker is open: the next receipt does not wait for the CIS.
    let started = Instant::now();
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("off-2"));
    assert_saved_for_later(&reply);
    assert!(started.elapsed() < Duration::from_millis(900), "queued straight away");

    let mut on_account = coffee_and_water("nc-1");
    on_account["payment_method"] = json!("ACCOUNT");
    on_account["client"] = json!({"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": "K81234001A"}, "address": "Rruga e Kavajës 112", "city": "Tiranë"});
    till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account).assert_error(503);
    till.server.post_json("/api/v1/invoice/details/nc-1", Some(&till.token), &json!({})).assert_error(404);

    sim.mode("ok");
    let id = invoice["id"].as_i64().unwrap();
    eventually("the late delivery", Duration::from_secs(30), || {
        till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"]["fic"].is_string()
    });
    let late: Vec<Value> = sim
        .requests()
        .into_iter()
        .filter(|r| {
            r["operation"] == "RegisterInvoice" && r["iic"] == invoice["iic"] && r["outcome"] == "accepted"
        })
        .collect();
    assert_eq!(late.len(), 1, "delivered exactly once");
    assert!(matches!(late[0]["subseq_deliv_type"].as_str(), Some("NOINTERNET") | Some("SERVICE")));
    eventually("the breaker to close", Duration::from_secs(10), || {
        till.server.get("/api/v1/account", Some(&till.token)).data(200)["cisConnection"]["state"] == "online"
    });
    till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account).data(201);
}

/// 50 sales at once from 50 POS connections; the ordinals of their numbers.
fn fifty_sales_at_once(till: &Till, expect_status: u16) -> Vec<u32> {
    let replies = post_at_once(till, "/api/v1/invoice/cash", 50, |i| coffee_and_water(&format!("c-{i}")));
    let mut ordinals: Vec<u32> = replies
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, expect_status, "{body}");
            body["data"]["invoice"]["number"].as_str().unwrap().split('/').next().unwrap().parse().unwrap()
        })
        .collect();
    ordinals.sort_unstable();
    ordinals
}

#[test]
fn fifty_concurrent_sales_get_fifty_consecutive_numbers() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    assert_eq!(fifty_sales_at_once(&till, 201), (1..=50).collect::<Vec<_>>());
}

#[test]
fn fifty_concurrent_sales_offline_get_fifty_consecutive_numbers_and_all_reach_the_cis_later() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sim.mode("down");
    assert_eq!(fifty_sales_at_once(&till, 503), (1..=50).collect::<Vec<_>>());
    sim.mode("ok");
    eventually("fifty late deliveries", Duration::from_secs(60), || {
        sim.registered()["invoices"].as_array().is_some_and(|i| i.len() == 50)
    });
    let invoices = sim.registered()["invoices"].clone();
    for invoice in invoices.as_array().unwrap() {
        assert_eq!(invoice["deliveries"], 1, "{invoice}");
    }
}

#[test]
fn the_list_filters_and_pages_and_the_pdf_carries_the_fiscal_fields() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    for i in 0..5 {
        till.server
            .post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water(&format!("l-{i}")))
            .data(201);
    }
    let mut on_account = coffee_and_water("l-nc");
    on_account["payment_method"] = json!("ACCOUNT");
    on_account["client"] = json!({"name": "Furra Korça", "id": {"type": "NUIS", "id": "L91234002B"}, "address": "Bulevardi Republika 8", "city": "Korçë"});
    till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account).data(201);

    let page =
        |q: &str| till.server.get(&format!("/api/v1/invoice?{q}"), Some(&till.token)).data(200).clone();
    let all = page("limit=100");
    assert_eq!(all["items"].as_array().unwrap().len(), 6);
    assert_eq!(all["items"][0]["type"], "NONCASH", "newest first");
    assert_eq!(page("type=NONCASH")["items"].as_array().unwrap().len(), 1);
    assert_eq!(page("type=CASH,BOGUS")["items"].as_array().unwrap().len(), 5);
    assert_eq!(page("type=BOGUS&limit=100")["items"].as_array().unwrap().len(), 6);
    assert_eq!(page("query=furra")["items"].as_array().unwrap().len(), 1, "found before it is indexed");
    assert_eq!(page("query=L91234002B")["items"][0]["client"]["id"]["type"], "NUIS");
    // The search index is written in batches off the documents' transactions: within seconds
    // it covers every invoice, and the search finds the same through it.
    let db = rusqlite::Connection::open(till.server.data_dir().join("arka.db")).unwrap();
    eventually("the search index covers every invoice", Duration::from_secs(10), || {
        db.query_row(
            "SELECT (SELECT indexed_to FROM invoices_search_mark) >= (SELECT MAX(id) FROM invoices)",
            [],
            |r| r.get::<_, bool>(0),
        )
        .unwrap()
    });
    assert_eq!(page("query=furra")["items"].as_array().unwrap().len(), 1, "found through the index");
    // Issue dates are Tirane's: between 23:00 and midnight UTC it is already tomorrow there.
    let today = Utc::now().with_timezone(&chrono_tz::Europe::Tirane).date_naive();
    assert_eq!(
        page(&format!("fromDate={today}&toDate={today}&limit=100"))["items"].as_array().unwrap().len(),
        6
    );
    assert_eq!(page("fromDate=2001-01-01&toDate=2001-12-31")["items"].as_array().unwrap().len(), 0);
    till.server.get("/api/v1/invoice?fromDate=22.11.2026", Some(&till.token)).assert_error(422);
    let mut seen = Vec::new();
    for offset in [0, 2, 4] {
        for item in page(&format!("limit=2&offset={offset}"))["items"].as_array().unwrap() {
            seen.push(item["id"].as_i64().unwrap());
        }
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 6);
    let item = &page("limit=1&type=CASH")["items"][0];
    assert_eq!(item["payment_method"], "BANKNOTE");
    assert_eq!(item["amount"]["currency"], "ALL");
    assert_eq!(item["payment"]["state"], "PAID");
    let v2_page = till.server.get("/api/v2/invoice?limit=1", Some(&till.token));
    let v2_item = &v2_page.data(200)["items"][0];
    assert!(v2_item.get("payment_method").is_none());
    assert_eq!(v2_item["payment_methods"][0]["type"], "ACCOUNT");

    let id = item["id"].as_i64().unwrap();
    let details =
        till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"]
            .clone();
    let pdf = till.server.get(&format!("/api/v1/invoice/print/{id}"), Some(&till.token));
    assert_eq!(pdf.status, 200);
    assert_eq!(pdf.header("content-type"), Some("application/pdf"));
    for format in ["", "?format=receipt"] {
        let bytes = till.server.get_bytes(&format!("/api/v1/invoice/print/{id}{format}"), Some(&till.token));
        let text = common::pdftotext(&bytes);
        assert!(text.contains(details["number"].as_str().unwrap()), "{text}");
        assert!(text.contains(details["iic"].as_str().unwrap()), "{text}");
        assert!(text.contains(details["fic"].as_str().unwrap()), "{text}");
        assert!(text.contains("285.00"), "{text}");
    }
}

#[test]
fn discounts_payments_and_currencies_follow_the_spec_tables() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let details = |reply: &Reply, success: u16| -> Value {
        let id = reply.data(success)["invoice"]["id"].as_i64().unwrap();
        till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"]
            .clone()
    };
    let cash = "/api/v1/invoice/cash";

    // Percent on the total with VAT: 10 % of 285.00.
    let mut body = coffee_and_water("d-1");
    body["invoice_discount_type"] = json!("percent");
    body["invoice_discount_value"] = json!(10);
    let d = details(&till.server.post_json(cash, Some(&till.token), &body), 201);
    assert_eq!(d["amount"]["gross"], json!(256.5));
    assert!(d["amount"]["discount"].as_f64().unwrap() > 0.0, "net-denominated invoice discount");

    // Above 100 counts as 100; an amount above the total counts as the total.
    body["internalId"] = json!("d-2");
    body["invoice_discount_value"] = json!(150);
    assert_eq!(
        details(&till.server.post_json(cash, Some(&till.token), &body), 201)["amount"]["gross"],
        json!(0.0)
    );
    body["internalId"] = json!("d-3");
    body["invoice_discount_type"] = json!("amount");
    body["invoice_discount_value"] = json!(85);
    assert_eq!(
        details(&till.server.post_json(cash, Some(&till.token), &body), 201)["amount"]["gross"],
        json!(200.0)
    );

    // Half a pair, or a value of 0, is no discount and no error.
    let mut half = coffee_and_water("d-4");
    half["invoice_discount_type"] = json!("percent");
    let d = details(&till.server.post_json(cash, Some(&till.token), &half), 201);
    assert_eq!(d["amount"]["discount"], json!(0.0));
    assert_eq!(d["amount"]["gross"], json!(285.0));

    // v2 payments: the sum is the total after discount; 0 and negative amounts are fine.
    let v2_cash = "/api/v2/invoice/cash";
    let mut body = v2(
        coffee_and_water("p-1"),
        json!([{"type": "BANKNOTE", "amount": 300}, {"type": "CARD", "amount": -15}]),
    );
    till.server.post_json(v2_cash, Some(&till.token), &body).data(200);
    body["internalId"] = json!("p-2");
    body["payment_methods"] = json!([{"type": "BANKNOTE", "amount": 285}, {"type": "BANKNOTE", "amount": 0}]);
    till.server.post_json(v2_cash, Some(&till.token), &body).assert_invalid("payment_methods.1.type");
    body["payment_methods"] = json!([{"type": "COMPANY", "amount": 285}]);
    till.server.post_json(v2_cash, Some(&till.token), &body).assert_invalid("payment_methods.0.company_card");
    body["payment_methods"] = json!([{"type": "COMPANY", "amount": 285, "company_card": "C-77"}]);
    till.server.post_json(v2_cash, Some(&till.token), &body).data(200);
    body["internalId"] = json!("p-3");
    body["payment_methods"] =
        json!([{"type": "SVOUCHER", "amount": 285, "vouchers": ["12-2026-L41323036D"]}]);
    till.server.post_json(v2_cash, Some(&till.token), &body).data(200);
    body["internalId"] = json!("p-4");
    body["payment_method"] = json!("BANKNOTE");
    till.server.post_json(v2_cash, Some(&till.token), &body).assert_invalid("payment_method");
    let mut v1_company = coffee_and_water("p-5");
    v1_company["payment_method"] = json!("COMPANY");
    till.server.post_json(cash, Some(&till.token), &v1_company).assert_invalid("company_card");

    // A euro invoice: every _all amount in lek.
    let mut euro = coffee_and_water("e-1");
    euro["currency"] = json!("EUR");
    euro["exchange_rate"] = json!(100);
    let d = details(&till.server.post_json(cash, Some(&till.token), &euro), 201);
    assert_eq!(d["amount"]["currency"], "EUR");
    assert_eq!(d["amount"]["exchange_rate"], json!(100.0));
    assert_eq!(d["amount"]["gross_all"], json!(28500.0));
    assert!(d["amount"]["local_currency"].is_object());
    let request = sim.requests().into_iter().last().unwrap();
    assert_eq!(request["outcome"], "accepted", "{request}");
}

#[test]
fn the_list_item_and_details_carry_every_field_of_the_spec() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("f-1")).data(201);
    let v1 = till.server.get("/api/v1/invoice", Some(&till.token));
    let item = v1.data(200)["items"][0].clone();
    let mut expected = vec![
        "id",
        "number",
        "type",
        "issue_date",
        "due_date",
        "delivery_date",
        "created_at",
        "supply_start_date",
        "supply_end_date",
        "client",
        "amount",
        "payment_method",
        "payment",
        "bank_account",
        "wtn",
        "notes",
        "iic",
        "fic",
        "eic",
        "doc_type",
        "process",
        "self_issue_type",
        "reversed_at",
        "cancellation",
        "reversed_by",
        "original_invoice_id",
        "document_kind",
        "order_state",
        "settled_by",
        "pdf_url",
        "reverse_charge",
        "periodic_invoice",
    ];
    expected.sort_unstable();
    assert_eq!(object_keys(&item), expected);
    assert_eq!(object_keys(&item["client"]), ["address", "id", "name"]);
    assert_eq!(object_keys(&item["client"]["address"]), ["city", "country", "street"]);
    assert_eq!(
        object_keys(&item["amount"]),
        [
            "currency",
            "discount",
            "discount_all",
            "exchange_rate",
            "gross",
            "gross_all",
            "net",
            "net_all",
            "vat",
            "vat_all"
        ]
    );
    assert_eq!(object_keys(&item["payment"]), ["amount_left", "amount_paid", "state"]);
    let pagination = v1.data(200)["pagination"].clone();
    assert_eq!(object_keys(&pagination), ["limit", "offset", "query", "records", "type"]);

    let id = item["id"].as_i64().unwrap();
    let details =
        till.server.get(&format!("/api/v2/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"]
            .clone();
    assert!(details.get("payment_method").is_none());
    assert!(details["payment_methods"].is_array());
    let line = &details["lines"][1];
    assert_eq!(line["discount_rate"], json!(10.0));
    assert_eq!(line["unitPrice"], json!(50.0));
    assert_eq!(line["total"], json!(45.0));
    assert!(line["discount"].as_f64().unwrap() > 0.0, "the net part of the line discount");
    till.server.get("/api/v1/invoice/999999/details", Some(&till.token)).assert_error(404);
}

#[test]
fn fees_credit_notes_method_limits_and_businesses_outside_vat() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let buyer = json!({"name": "Furra Korça", "id": {"type": "NUIS", "id": "L91234002B"}, "address": "Bulevardi Republika 8", "city": "Korçë"});
    let details = |reply: &Reply, success: u16| -> Value {
        let id = reply.data(success)["invoice"]["id"].as_i64().unwrap();
        till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"]
            .clone()
    };

    // The fee is outside the discount base: 10 % off 285.00, then 15.00 on top.
    let mut on_account = coffee_and_water("n-1");
    on_account["payment_method"] = json!("ACCOUNT");
    on_account["client"] = buyer.clone();
    on_account["fee"] = json!(15);
    on_account["invoice_discount_type"] = json!("percent");
    on_account["invoice_discount_value"] = json!(10);
    let d = details(&till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account), 201);
    assert_eq!(d["amount"]["gross"], json!(271.5));
    assert_eq!(d["type"], "NONCASH");
    assert_eq!(d["payment"]["state"], "UNPAID");

    // A value of 0 leaves the invoice without discount.
    let mut zero = coffee_and_water("n-2");
    zero["invoice_discount_type"] = json!("amount");
    zero["invoice_discount_value"] = json!(0);
    assert_eq!(
        details(&till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &zero), 201)["amount"]["discount"],
        json!(0.0)
    );

    // A credit note names the invoice it corrects.
    let mut credit = on_account.clone();
    credit["internalId"] = json!("n-3");
    credit["doc_type"] = json!(381);
    till.server
        .post_json("/api/v1/invoice/noncash", Some(&till.token), &credit)
        .assert_invalid("original_invoice_iic");
    credit["original_invoice_iic"] = json!(d["iic"]);
    assert_eq!(
        details(&till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &credit), 201)["doc_type"],
        "381"
    );

    // A non-cash buyer is identified by NUIS.
    let mut by_passport = on_account.clone();
    by_passport["internalId"] = json!("n-4");
    by_passport["client"]["id"] = json!({"type": "PASS", "id": "BA1234567"});
    till.server
        .post_json("/api/v1/invoice/noncash", Some(&till.token), &by_passport)
        .assert_invalid("client.id");

    // At most 10 payment methods.
    let eleven: Vec<Value> = [
        "BANKNOTE",
        "CARD",
        "CHECK",
        "ACCOUNT",
        "TRANSFER",
        "FACTORING",
        "COMPENSATION",
        "WAIVER",
        "KIND",
        "OTHER",
        "ORDER",
    ]
    .iter()
    .map(|t| json!({"type": t, "amount": 0}))
    .collect();
    let body = v2(coffee_and_water("n-5"), json!(eleven));
    till.server.post_json("/api/v2/invoice/cash", Some(&till.token), &body).assert_invalid("payment_methods");

    // A shop outside the VAT scheme: every line goes as VAT 0, TAX_FREE, whatever was sent.
    let partner = till.server.create_partner("desk 2");
    let mut outside = registration_body("K12345678L", "Dyqan i vogël", "vogel@shop.al");
    outside["issuerInVat"] = json!(false);
    let small = till.server.post_json("/api/v1/register", Some(&partner), &outside);
    let small_token = small.data(201)["api_token"].as_str().unwrap().to_string();
    let branch_id = small.data(201)["branch"]["id"].as_i64().unwrap();
    let user_id = small.data(201)["user"]["id"].as_i64().unwrap();
    till.server
        .post_json(
            &format!("/api/v1/on-boarding/branch/{branch_id}"),
            Some(&small_token),
            &branch_body("Vogël", "cd456ab123"),
        )
        .data(200);
    let p12 = Certificate::generate_self_signed("K12345678L", "Vogël", chrono::Duration::days(30))
        .unwrap()
        .to_p12("pw")
        .unwrap();
    till.server
        .post_multipart(
            "/api/v1/on-boarding/certificate",
            Some(&small_token),
            &[Part::File("certificate_file", "c.p12", &p12), Part::Text("password", "pw")],
        )
        .data(201);
    let device =
        json!({"branchId": branch_id, "name": "Kasa", "fromDate": Utc::now().date_naive().to_string()});
    till.server.post_json("/api/v1/on-boarding/fiscal-device", Some(&small_token), &device).data(201);
    till.server
        .post_json(
            &format!("/api/v1/on-boarding/user/{user_id}"),
            Some(&small_token),
            &json!({"operatorCode": "op555op555"}),
        )
        .data(200);
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&small_token), &coffee_and_water("v-1"));
    let id = reply.data(201)["invoice"]["id"].as_i64().unwrap();
    let d =
        till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&small_token)).data(200)["invoice"]
            .clone();
    for line in d["lines"].as_array().unwrap() {
        assert_eq!(line["vat"], json!(0.0));
        assert_eq!(line["vat_exempt_type"], "TAX_FREE");
    }
    assert_eq!(d["amount"]["vat"], json!(0.0));
    assert_eq!(d["amount"]["gross"], json!(285.0));
}

#[test]
fn a_sale_in_flight_holds_its_internal_id_but_not_its_till() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("s-0")).data(201);
    let before = sim.requests().len();
    sim.set_mode(json!({"mode": "slow", "delay_ms": 1200}));
    std::thread::scope(|scope| {
        let first = scope.spawn(|| {
            till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("s-1"))
        });
        eventually("the first sale at the CIS", Duration::from_secs(10), || sim.requests().len() > before);
        let same_id =
            till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("s-1"));
        same_id.assert_error(409);
        // The till's lock covers the number and the save, not the CIS's answer: the next sale
        // of the till is numbered and sent while the first is still at the CIS.
        let same_till =
            till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("s-2"));
        assert_eq!(same_till.data(201)["invoice"]["number"], format!("3/{}", Utc::now().format("%Y")));
        assert_eq!(
            first.join().unwrap().data(201)["invoice"]["number"],
            format!("2/{}", Utc::now().format("%Y"))
        );
    });
}

#[test]
fn a_price_change_in_the_catalog_never_touches_an_issued_invoice() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let product = json!({"code": "K1", "name": "Kafe", "last_price": 120, "vat_rate": "20"});
    let id =
        till.server.post_json("/api/v1/products", Some(&till.token), &product).data(201)["product"]["id"]
            .as_i64()
            .unwrap();
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("pc-1"));
    let invoice_id = reply.data(201)["invoice"]["id"].as_i64().unwrap();
    let before = till
        .server
        .get(&format!("/api/v1/invoice/{invoice_id}/details"), Some(&till.token))
        .data(200)
        .clone();

    let cheaper = json!({"code": "K1", "name": "Kafe", "last_price": 90, "vat_rate": "20"});
    // The products interval (1 s here) passes.
    till.server.advance_clock(Duration::from_secs(1));
    till.server.put_json(&format!("/api/v1/products/{id}"), Some(&till.token), &cheaper).data(200);
    let after = till
        .server
        .get(&format!("/api/v1/invoice/{invoice_id}/details"), Some(&till.token))
        .data(200)
        .clone();
    assert_eq!(before, after);
    assert_eq!(after["invoice"]["lines"][0]["unitPrice"], json!(120.0));
}

#[test]
fn a_business_moving_to_arka_mid_year_goes_on_after_its_last_non_cash_number() {
    let sim = SimServer::start();
    let till = open_till_carrying(&sim, 41);
    let year = Utc::now().format("%Y").to_string();
    let first = till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account("m-1"));
    assert_eq!(first.data(201)["invoice"]["number"], format!("42/{year}"));
    let second = till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account("m-2"));
    assert_eq!(second.data(201)["invoice"]["number"], format!("43/{year}"));
    // The cash sequence of the till is its own and starts at 1.
    let cash = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("m-3"));
    assert_eq!(cash.data(201)["invoice"]["number"], format!("1/{year}"));
    let registered = sim.registered()["invoices"].clone();
    assert!(
        registered.as_array().unwrap().iter().any(|i| i["inv_num"] == format!("42/{year}")),
        "{registered}"
    );
}

#[test]
fn a_pos_that_hangs_up_mid_issue_leaves_nothing_stuck_and_the_sale_is_settled_without_it() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    // The day's opening first, so that only the sale meets the slow CIS.
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("warm-up")).data(201);
    sim.set_mode(json!({"mode": "slow", "delay_ms": 1500}));
    let impatient: ureq::Agent =
        ureq::Agent::config_builder().timeout_global(Some(Duration::from_millis(500))).build().into();
    let gave_up = impatient
        .post(format!("{}/api/v1/invoice/cash", till.server.base_url()))
        .header("Authorization", format!("Bearer {}", till.token))
        .content_type("application/json")
        .send(coffee_and_water("hang-up").to_string());
    assert!(gave_up.is_err(), "the POS gave up after 0.5 s");

    // The issue went on without the POS: registered with the CIS and settled.
    eventually("the sale, settled", Duration::from_secs(10), || {
        let reply = till.server.post_json("/api/v1/invoice/details/hang-up", Some(&till.token), &json!({}));
        reply.status == 200 && reply.body["data"]["invoice"]["fic"].is_string()
    });
    sim.mode("ok");
    let again =
        till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("hang-up"));
    again.assert_error(409);
    assert!(again.body["message"].as_str().unwrap().contains("already issued"), "{}", again.text);
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("next")).data(201);
    let registered = sim.registered()["invoices"].as_array().unwrap().len();
    assert_eq!(registered, 3, "warm-up, hang-up and next, each once");
}

#[test]
fn a_stored_text_the_cis_cannot_parse_is_refused_before_the_invoice_takes_a_number() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let year = Utc::now().format("%Y").to_string();
    let client = json!({"client_type": "COMPANY", "company_name": "Ushqimore Dardania", "company_type": "BUSINESS",
                        "nipt": "K81234001A", "address": "Rruga e Kavajës 112", "city": "Tiranë", "country": "ALB"});
    let id = till.server.post_json("/api/v1/clients", Some(&till.token), &client).data(201)["client"]["id"]
        .clone();
    // A client's name written by something other than a POS body (a CIS lookup, an old import).
    till.sql(&[format!(
        "UPDATE clients SET company_name = 'Ushqimore' || char(1) || ' Dardania' WHERE id = {id}"
    )]);
    let mut body = on_account("bad-client");
    body["client"] = json!({"internal_id": id});
    let reply = till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &body);
    reply.assert_invalid("body");
    assert!(reply.text.contains("U+0001"), "{}", reply.text);
    // Nothing reached the CIS, nothing is held, and the next invoice takes the first number.
    assert!(sim.requests().iter().all(|r| r["operation"] != "RegisterInvoice"), "{:?}", sim.requests());
    assert_eq!(till.account()["fiscalQueue"]["refused"], json!([]));
    let next = till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account("good"));
    assert_eq!(next.data(201)["invoice"]["number"], format!("1/{year}"));
}
