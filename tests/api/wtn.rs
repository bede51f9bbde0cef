//! Warehouse transfer notes as a shop lives them: flour leaves the main unit's warehouse for the
//! Durrës shop with a note, the shelves follow; a note written while the CIS is away travels
//! with the goods and reaches the CIS later; the printed note carries every default; a POS that
//! retries sends the same note once. Every RegisterWTNRequest Arka sends is judged by xmllint
//! against the tax authority's schema and by xmlsec1.

use std::time::Duration;

use crate::common;
use crate::common::depot::*;
use crate::common::sim::SimServer;
use crate::common::till::onboard;
use crate::common::*;
use chrono::{Datelike, Utc};
use chrono_tz::Europe::Tirane;
use serde_json::{Value, json};

fn year() -> i32 {
    Utc::now().with_timezone(&Tirane).year()
}

#[test]
fn a_note_from_the_main_unit_to_a_second_unit_moves_stock_between_them() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let flour = depot.product("MIELL", "Miell gruri", false);
    let delivery = depot.product("TRANSPORT", "Transport", true);
    depot.adjust(flour, None, "count", 10.0).data(201);

    let mut body = note(Some("w-1"), &[("MIELL", "Miell gruri", 4.0), ("TRANSPORT", "Transport", 1.0)]);
    body["destination_unit_id"] = json!(depot.second_unit);
    body["carrier"] =
        json!({"name": "Transport Ana", "id_type": "NUIS", "id_num": "K81234001A", "town": "Durrës"});
    body["vehicle_ownership"] = json!("THIRDPARTY");
    let clerk = depot.clerk().to_string();
    let issued = depot.wtn_as(&clerk, 1, &body);
    let note = issued.data(201)["invoice"].clone();
    assert_eq!(note["number"], format!("1/{}", year()));
    assert_eq!(note["fiscalStatus"], "FISCALIZED");
    assert!(note["fic"].as_str().is_some_and(|f| f.len() == 36), "{note}");
    assert!(note["iic"].as_str().is_some_and(|i| i.len() == 32 && i.chars().all(|c| c.is_ascii_hexdigit())));
    // Issued with the clerk's own unit and operator code; the clerk has no TCR.
    assert_eq!(note["operatorCode"], "op201op201");
    assert_eq!(note["businessCode"], "ab123cd456");
    assert_eq!(note["deviceCode"], Value::Null);
    assert_eq!(note["destinationUnit"], json!({"id": depot.second_unit, "name": "Durrës"}));
    // Lines go in as invoice_lines and come back as lines.
    assert_eq!(
        note["lines"],
        json!([
            {"name": "Miell gruri", "code": "MIELL", "unit": "copë", "quantity": 4.0},
            {"name": "Transport", "code": "TRANSPORT", "unit": "copë", "quantity": 1.0},
        ])
    );
    // The receiving unit's place is the destination's default.
    assert_eq!(note["destination"]["city"], "Durrës");
    assert_eq!(note["destination"]["address"], "Lagjja 1, Rruga Tregtare");
    assert_eq!(note["carrier"]["idType"], "NUIS");
    assert_eq!(note["vehiclePlates"], "AA123BB");

    // The flour moved from the main unit's shelf to Durrës'; the service moved nothing.
    assert_eq!(depot.shelf(depot.owner(), flour), 6.0);
    assert_eq!(depot.shelf(&depot.second_clerk, flour), 4.0);
    let history = depot.get(&format!("/api/v1/stock/products/{flour}"), depot.owner());
    let history = history.data(200);
    let reasons: Vec<(&str, f64)> = history["movements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["reason"].as_str().unwrap(), m["change"].as_f64().unwrap()))
        .collect();
    assert_eq!(reasons, [("wtn_in", 4.0), ("wtn_out", -4.0), ("count", 10.0)]);
    let moved = &history["movements"][0];
    assert_eq!(moved["document"], json!({"kind": "wtn", "id": note["id"]}));
    assert_eq!(moved["user"]["name"], "Magazinier");
    assert_eq!(moved["business_unit"]["id"], depot.second_unit);
    let levels: Vec<f64> =
        history["levels"].as_array().unwrap().iter().map(|l| l["quantity"].as_f64().unwrap()).collect();
    assert_eq!(levels, [6.0, 4.0]);
    let service = depot.get(&format!("/api/v1/stock/products/{delivery}"), depot.owner());
    service.assert_invalid("product_id");

    // The CIS has it, and what was sent passes the outside tools.
    let registered = sim.registered()["wtns"].as_array().unwrap().clone();
    assert_eq!(registered.len(), 1);
    assert_eq!(registered[0]["wtn_num"], format!("1/{}", year()));
    assert_eq!(registered[0]["fwtnic"], note["fic"]);
    assert_eq!(depot.assert_every_wtn_request_passes_outside_tools(), 1);

    // The next note of the unit takes the next number; the Durrës unit numbers its own.
    let next = depot.wtn(1, &note_to_client(None));
    assert_eq!(next.data(201)["invoice"]["number"], format!("2/{}", year()));
    let from_durres = depot.wtn_as(&depot.second_clerk, 1, &note_to_client(None));
    assert_eq!(from_durres.data(201)["invoice"]["number"], format!("1/{}", year()));
    assert_eq!(from_durres.data(201)["invoice"]["businessCode"], "cd456ef789");
    assert_eq!(depot.assert_every_wtn_request_passes_outside_tools(), 3);
}

/// A note taking 2 sacks of flour to a client's shop, with two priced lines.
fn note_to_client(internal_id: Option<&str>) -> Value {
    let mut body = note(internal_id, &[("MIELL", "Miell gruri", 2.0)]);
    body["type"] = json!("SALE");
    body["destination"] = json!({"point": "SALE", "city": "Tiranë", "address": "Rruga e Kavajës 112"});
    body
}

#[test]
fn a_note_written_while_the_cis_is_away_travels_and_is_delivered_later_with_subseq_deliv_type() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let flour = depot.product("MIELL", "Miell gruri", false);
    depot.adjust(flour, None, "count", 5.0).data(201);
    sim.mode("down");

    let clerk = depot.clerk().to_string();
    let reply = depot.wtn_as(&clerk, 2, &note_to_client(Some("away-1")));
    assert_eq!(reply.status, 503, "{}", reply.text);
    assert_eq!(reply.body["status"], false);
    let note = reply.body["data"]["invoice"].clone();
    assert_eq!(note["fic"], Value::Null);
    assert_eq!(note["fiscalStatus"], "UNFISCALIZED");
    // The goods left with the printed note: the shelf went down at once.
    assert_eq!(depot.shelf(depot.owner(), flour), 3.0);
    let printed = depot.get(&format!("/api/v2/invoice/wtn/print/{}", note["id"]), depot.owner());
    let printed = printed.data(200)["invoice"].clone();
    assert_eq!((printed["fiscalStatus"].as_str(), &printed["fic"]), (Some("UNFISCALIZED"), &Value::Null));
    assert!(
        printed["footer"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("Awaiting fiscalization"))
    );
    // A retry of the POS returns the saved note.
    let again = depot.wtn_as(&clerk, 2, &note_to_client(Some("away-1")));
    assert_eq!(again.data(200)["invoice"]["id"], note["id"]);

    sim.mode("ok");
    let details = |id: &str| depot.get(&format!("/api/v2/invoice/wtn/details/{id}"), depot.owner());
    eventually("the late delivery", Duration::from_secs(60), || {
        details("away-1").data(200)["invoice"]["fiscalStatus"] == "FISCALIZED"
    });
    let delivered = details("away-1").data(200)["invoice"].clone();
    assert!(delivered["fic"].is_string());
    let tries: Vec<Value> = sim.requests().into_iter().filter(|r| r["iic"] == note["iic"]).collect();
    let accepted: Vec<&Value> = tries.iter().filter(|r| r["outcome"] == "accepted").collect();
    assert_eq!(accepted.len(), 1, "delivered once: {tries:?}");
    assert!(accepted[0]["subseq_deliv_type"].is_string(), "a late delivery says so: {tries:?}");
    let registered = sim.registered()["wtns"].as_array().unwrap().clone();
    assert_eq!(registered.len(), 1);
    assert_eq!(registered[0]["fwtnic"], delivered["fic"]);
    assert_eq!(depot.shelf(depot.owner(), flour), 3.0, "the delivery moves nothing again");
    // The first try (no SubseqDelivType) and the late one both pass the outside tools.
    let sent = depot.wire.requests("RegisterWTNRequest");
    assert!(sent.iter().any(|s| s.contains("SubseqDelivType=")), "the late delivery was on the wire");
    assert!(depot.assert_every_wtn_request_passes_outside_tools() >= 2);
}

#[test]
fn the_print_document_carries_every_default_and_sum_and_the_pdf_prints_it() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let body = json!({
        "internalId": "print-1",
        "vehicle_plates": "tr 555 ab",
        "invoice_lines": [
            {"product_name": "Miell", "product_code": "MIELL", "unit": "kg", "quantity": 2.5, "price": 80},
            {"name": "Vaj ulliri", "code": "VAJ", "unit": "l", "quantity": 1, "price": 950.505},
        ],
    });
    // The owner carries the till's TCR: it is the note's device code.
    let issued = depot.wtn_as(depot.owner(), 1, &body);
    let note = issued.data(201)["invoice"].clone();
    let id = note["id"].as_i64().unwrap();
    assert_eq!(note["print"], format!("{}/api/v1/invoice/wtn/print/{id}", depot.till.server.base_url()));
    assert_eq!(note["pdf"], format!("{}/api/v1/invoice/wtn/pdf/{id}", depot.till.server.base_url()));

    let doc = depot.get(&format!("/api/v1/invoice/wtn/print/{id}"), depot.owner());
    let doc = doc.data(200).clone();
    assert_eq!(
        object_keys(&doc),
        ["carrier", "company", "destination", "invoice", "logo", "origin", "title"]
    );
    assert_eq!(doc["logo"], Value::Null, "no logo on record");
    assert_eq!(doc["title"], "FLETË-SHOQËRIMI / WAREHOUSE TRANSFER NOTE");
    assert_eq!(
        doc["company"],
        json!({"name": "Shop L41323036D", "nuis": "L41323036D", "address": "Rruga Myslym Shyri 5"})
    );
    assert_eq!(
        doc["carrier"],
        json!({"name": null, "idType": null, "idNum": null, "town": null, "address": null,
               "vehicleOwnership": "OWNER", "vehiclePlates": "TR555AB"})
    );
    let issued_at = note["createdAt"].as_str().unwrap();
    // Origin WAREHOUSE, destination STORE, the company's city (the unit's, as the company has
    // none), the unit's address, the issue time.
    for (place, point) in [("origin", "WAREHOUSE"), ("destination", "STORE")] {
        assert_eq!(
            doc[place],
            json!({"point": point, "city": "Tiranë", "address": "Rruga Myslym Shyri 5", "dateTime": issued_at}),
            "{place}"
        );
    }
    let invoice = &doc["invoice"];
    assert_eq!(invoice["issueDate"], issued_at[..10]);
    assert_eq!(invoice["businessCode"], "ab123cd456");
    assert_eq!(invoice["operatorCode"], "op123op123");
    assert_eq!(invoice["deviceCode"], depot.till.tcr_code);
    assert_eq!(invoice["number"], format!("1/{}", year()));
    assert_eq!((invoice["type"].as_str(), invoice["transaction"].as_str()), (Some("WTN"), Some("TRANSFER")));
    assert_eq!(
        invoice["lines"][1],
        json!({"name": "Vaj ulliri", "code": "VAJ", "unit": "l", "quantity": 1.0})
    );
    // 2.5 x 80 + 1 x 950.505 (950.51 to the cent); 3.5 items count as 4.
    assert_eq!(invoice["amounts"], json!({"valueOfGoods": 1150.51, "currency": "ALL", "itemsNum": 4}));
    assert_eq!(invoice["iic"], note["iic"]);
    assert_eq!(invoice["fic"], note["fic"]);
    assert_eq!(invoice["fiscalStatus"], "FISCALIZED");
    let verify = invoice["verifyUrl"].as_str().unwrap();
    assert!(
        verify.contains(&format!("iic={}", note["iic"].as_str().unwrap()))
            && verify.contains("tin=L41323036D"),
        "{verify}"
    );
    assert!(invoice["footer"][0].as_str().unwrap().starts_with("Arka "));
    assert_eq!(
        depot.till.server.get(&format!("/api/v2/invoice/wtn/print/{id}"), Some(depot.owner())).data(200),
        &doc
    );

    // The owner gives the company a logo and prints the unit's name.
    let png: Vec<u8> =
        [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'].into_iter().chain(vec![7; 40]).collect();
    let settings = json!({"logo": base64(&png), "unit_name": true});
    depot.till.server.put_json("/api/v1/print-settings", Some(depot.clerk()), &settings).assert_error(403);
    let saved = depot.till.server.put_json("/api/v1/print-settings", Some(depot.owner()), &settings);
    assert_eq!(saved.data(200)["logo_type"], "image/png");
    let doc = depot.get(&format!("/api/v1/invoice/wtn/print/{id}"), depot.owner());
    let doc = doc.data(200);
    assert_eq!(doc["logo"], base64(&png).replace('\n', ""));
    assert_eq!(doc["company"]["name"], "Qendër");

    // The A4 PDF says the same.
    let pdf = depot.till.server.get_bytes(&format!("/api/v1/invoice/wtn/pdf/{id}"), Some(depot.owner()));
    assert!(pdf.starts_with(b"%PDF-"));
    let text = pdftotext(&pdf);
    for expected in [
        "WAREHOUSE TRANSFER NOTE",
        &format!("Nr. 1/{}", year()),
        note["iic"].as_str().unwrap(),
        note["fic"].as_str().unwrap(),
        "Vaj ulliri",
        "1150.51 ALL",
        "TR555AB",
        "Faqja 1 nga 1",
    ] {
        assert!(text.contains(expected), "{expected} is printed: {text}");
    }
    assert_eq!(depot.assert_every_wtn_request_passes_outside_tools(), 1);
}

#[test]
fn a_repeat_in_v1_is_409_and_in_v2_returns_the_first_note() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let flour = depot.product("MIELL", "Miell gruri", false);

    let first = depot.wtn(1, &note_to_client(Some("r-1")));
    let first = first.data(201)["invoice"].clone();
    let repeat = depot.wtn(1, &note_to_client(Some("r-1")));
    repeat.assert_error(409);
    // Without internalId, v1 issues every time.
    depot.wtn(1, &note_to_client(None)).data(201);
    depot.wtn(1, &note_to_client(None)).data(201);

    let clerk = depot.clerk().to_string();
    let v2 = depot.wtn_as(&clerk, 2, &note_to_client(Some("r-2")));
    let v2 = v2.data(200)["invoice"].clone();
    let again = depot.wtn_as(&clerk, 2, &note_to_client(Some("r-2")));
    assert_eq!(again.data(200)["invoice"], v2, "the first note, unchanged");
    // In v2 a note with v1's internalId of this year is the same note too (to the owner, who
    // reads every note).
    let owner = depot.owner();
    assert_eq!(depot.wtn_as(owner, 2, &note_to_client(Some("r-1"))).data(200)["invoice"]["id"], first["id"]);
    // v2 needs an internalId: the standard envelope, as for v2 invoices.
    depot.wtn(2, &note_to_client(None)).assert_error(422);

    // Four notes reached the CIS and took 2 sacks each, once.
    assert_eq!(sim.registered()["wtns"].as_array().unwrap().len(), 4);
    assert_eq!(depot.shelf(depot.owner(), flour), -8.0, "stock may go negative with enforce off");
    let details = depot.get("/api/v1/invoice/wtn/details/r-1", depot.owner());
    assert_eq!(details.data(200)["invoice"]["id"], first["id"]);
    depot.get("/api/v1/invoice/wtn/details/never", depot.owner()).assert_error(404);
    assert_eq!(depot.assert_every_wtn_request_passes_outside_tools(), 4);
}

#[test]
fn the_list_is_newest_first_without_total_and_the_report_sums_by_status_and_destination() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let mut to_durres = note(None, &[("MIELL", "Miell gruri", 1.0)]);
    to_durres["destination_unit_id"] = json!(depot.second_unit);
    to_durres["value_of_goods"] = json!(100.5);
    for body in [&to_durres, &note_to_client(None), &to_durres] {
        depot.wtn(1, body).data(201);
    }
    let page = depot.get("/api/v1/invoice/wtn?limit=2", depot.owner());
    let page = page.data(200).clone();
    let numbers: Vec<&str> =
        page["items"].as_array().unwrap().iter().map(|n| n["number"].as_str().unwrap()).collect();
    let y = year();
    assert_eq!(numbers, [format!("3/{y}"), format!("2/{y}")]);
    assert_eq!(page["pagination"], json!({"records": 2, "limit": 2, "offset": 0}));
    assert!(
        page["items"][0]["print"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/invoice/wtn/print/{}", page["items"][0]["id"]))
    );
    let rest = depot.get("/api/v1/invoice/wtn?limit=2&offset=2", depot.owner());
    assert_eq!(rest.data(200)["items"].as_array().unwrap().len(), 1);
    let today = Utc::now().with_timezone(&Tirane).date_naive();
    let tomorrow = today.succ_opt().unwrap();
    let later = depot.get(&format!("/api/v1/invoice/wtn?fromDate={tomorrow}"), depot.owner());
    assert!(later.data(200)["items"].as_array().unwrap().is_empty());
    let dated = depot.get(&format!("/api/v1/invoice/wtn?fromDate={today}&toDate={today}"), depot.owner());
    assert_eq!(dated.data(200)["items"].as_array().unwrap().len(), 3);
    depot.get("/api/v1/invoice/wtn?fromDate=14.03.2026", depot.owner()).assert_error(422);
    depot.get("/api/v1/invoice/wtn?limit=0", depot.owner()).assert_invalid("limit");

    let report = depot.get(&format!("/api/v1/reports/wtn?from={today}&to={today}"), depot.owner());
    let report = report.data(200).clone();
    assert_eq!(report["period"], json!({"from": today.to_string(), "to": today.to_string()}));
    assert_eq!(report["totals"], json!({"count": 3, "value_of_goods": 201.0}));
    assert_eq!(report["by_status"], json!([{"status": "FISCALIZED", "count": 3, "value_of_goods": 201.0}]));
    assert_eq!(report["unique_destinations"], 2);
    assert_eq!(
        report["destinations"][0]["business_unit"],
        json!({"id": depot.second_unit, "name": "Durrës"})
    );
    assert_eq!(report["destinations"][0]["count"], 2);
    assert_eq!(report["destinations"][1]["address"], "Rruga e Kavajës 112");
    // The same report as CSV, like every report: totals, statuses, destinations, one row each.
    let csv = depot.get(&format!("/api/v1/reports/wtn?from={today}&to={today}&format=csv"), depot.owner());
    assert_eq!(csv.status, 200);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        csv.header("content-disposition"),
        Some(format!("attachment; filename=\"arka-wtn-{today}-{today}.csv\"").as_str())
    );
    let mut reader = csv::Reader::from_reader(csv.text.trim_start_matches('\u{feff}').as_bytes());
    let columns = reader.headers().unwrap().clone();
    assert_eq!(
        columns.iter().collect::<Vec<_>>(),
        [
            "section",
            "status",
            "business_unit_id",
            "business_unit",
            "point",
            "city",
            "address",
            "count",
            "value_of_goods"
        ]
    );
    let rows: Vec<Vec<String>> =
        reader.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
    assert_eq!(rows.len(), 1 + 1 + 2, "{rows:?}");
    assert_eq!(rows[0], ["totals", "", "", "", "", "", "", "3", "201.00"]);
    assert_eq!(rows[1], ["by_status", "FISCALIZED", "", "", "", "", "", "3", "201.00"]);
    let unit = depot.second_unit.to_string();
    assert_eq!(rows[2][0..4], ["destinations".to_string(), String::new(), unit, "Durrës".to_string()]);
    assert_eq!(rows[2][7], "2");
    assert_eq!(rows[3][6], "Rruga e Kavajës 112");
    for (query, field) in [
        ("", "from"),
        (&*format!("from={today}"), "to"),
        ("from=2026-02-30&to=2026-03-01", "from"),
        ("from=2026-03-02&to=2026-03-01", "from"),
        ("from=2026-03-01&to=tomorrow", "to"),
        // Notes are no till's or operator's sales: the sales filters are refused, not ignored.
        (&*format!("from={today}&to={today}&branch=1"), "branch"),
        (&*format!("from={today}&to={today}&tcr=ab123cd456"), "tcr"),
        (&*format!("from={today}&to={today}&operator=op1"), "operator"),
    ] {
        depot.get(&format!("/api/v1/reports/wtn?{query}"), depot.owner()).assert_invalid(field);
    }
    let empty = depot.get("/api/v1/reports/wtn?from=2020-01-01&to=2020-12-31", depot.owner());
    assert_eq!(empty.data(200)["totals"], json!({"count": 0, "value_of_goods": 0.0}));
}

#[test]
fn list_and_issue_keep_30_seconds_between_calls_and_reports_keep_their_budget() {
    let sim = SimServer::start();
    // The spec's intervals and budgets, untouched.
    let till = common::till::open_till_with(&sim, |args| {
        args.limits = "token=6000/m;general=6000/m".parse().unwrap()
    });
    let server = &till.server;
    server.post_json("/api/v1/invoice/wtn", Some(&till.token), &note(None, &[("A", "A", 1.0)])).data(201);
    for reply in [
        server.get("/api/v1/invoice/wtn", Some(&till.token)),
        server.post_json("/api/v2/invoice/wtn", Some(&till.token), &note(Some("x"), &[("A", "A", 1.0)])),
    ] {
        reply.assert_error(429);
        assert!(reply.header("retry-after").is_none(), "an interval answers without rate headers");
    }
    let today = Utc::now().with_timezone(&Tirane).date_naive();
    let path = format!("/api/v1/reports/wtn?from={today}&to={today}");
    for _ in 0..30 {
        server.get(&path, Some(&till.token)).data(200);
    }
    server.get(&path, Some(&till.token)).assert_throttled();
}

#[test]
fn bad_input_gets_a_clear_4xx_and_the_server_keeps_writing() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let server = &depot.till.server;
    let partner = server.create_partner("desk 2");
    let other = onboard(server, &partner, "M01234567A", "ef123gh456");
    let theirs = server
        .post_json("/api/v1/invoice/wtn", Some(&other.token), &note(Some("theirs"), &[("A", "A", 1.0)]))
        .data(201)["invoice"]["id"]
        .clone();
    let their_product = retrying(|| {
        server.post_json(
            "/api/v1/products",
            Some(&other.token),
            &json!({"code": "X", "name": "X", "last_price": 1, "vat_rate": "20", "service": false}),
        )
    })
    .data(201)["product"]["id"]
        .clone();

    let with = |change: &dyn Fn(&mut Value)| {
        let mut body = note(Some("bad"), &[("MIELL", "Miell", 1.0)]);
        change(&mut body);
        body
    };
    let cases: Vec<(Value, &str)> = vec![
        (with(&|b| b["invoice_lines"][0]["quantity"] = json!(1e30)), "invoice_lines.0.quantity"),
        (
            with(&|b| b["invoice_lines"][0]["quantity"] = json!(9_223_372_036_854_775_808u64)),
            "invoice_lines.0.quantity",
        ),
        (
            with(&|b| b["invoice_lines"][0]["product_name"] = json!("Miell\u{0}")),
            "invoice_lines.0.product_name",
        ),
        (with(&|b| b["vehicle_plates"] = json!("AA\u{1}1")), "vehicle_plates"),
        (with(&|b| b["destination_unit_id"] = json!(9_223_372_036_854_775_808u64)), "destination_unit_id"),
        (with(&|b| b["destination_unit_id"] = json!(other.branch_id)), "destination_unit_id"),
        (with(&|b| b["destination_unit_id"] = json!(depot.till.branch_id)), "destination_unit_id"),
        (with(&|b| b["value_of_goods"] = json!(1e30)), "value_of_goods"),
        (with(&|b| b["pack_num"] = json!(4_294_967_296u64)), "pack_num"),
        (with(&|b| b["destination"] = json!({"point": "CUSTOMS"})), "destination.point"),
        (with(&|b| b["origin"] = json!({"date_time": "2026-13-01 10:00:00"})), "origin.date_time"),
        (with(&|b| b["invoice_lines"] = json!([])), "invoice_lines"),
    ];
    for (body, field) in &cases {
        depot.wtn(1, body).assert_invalid(field);
    }
    // Another company's note, by id or internalId, is not there.
    for path in [
        format!("/api/v1/invoice/wtn/print/{theirs}"),
        format!("/api/v2/invoice/wtn/pdf/{theirs}"),
        "/api/v1/invoice/wtn/details/theirs".to_string(),
        "/api/v1/invoice/wtn/print/9223372036854775808".to_string(),
        "/api/v1/invoice/wtn/print/%00".to_string(),
    ] {
        depot.get(&path, depot.owner()).assert_error(404);
    }
    // Stock routes: another company's article, huge numbers, control characters.
    let adjust = |product: &Value, body: Value| {
        server.post_json(&format!("/api/v1/stock/products/{product}/adjustments"), Some(depot.owner()), &body)
    };
    adjust(&their_product, json!({"kind": "count", "quantity": 1})).assert_error(404);
    depot.get(&format!("/api/v1/stock/products/{their_product}"), depot.owner()).assert_error(404);
    let flour = json!(depot.product("MIELL", "Miell", false));
    adjust(&flour, json!({"kind": "count", "quantity": 1e30})).assert_invalid("quantity");
    adjust(&flour, json!({"kind": "count", "quantity": 1, "note": "a\u{0}b"})).assert_invalid("note");
    adjust(&flour, json!({"kind": "count", "quantity": 1, "business_unit_id": other.branch_id}))
        .assert_invalid("business_unit_id");
    adjust(&flour, json!({"kind": "count", "quantity": 1, "business_unit_id": 9_223_372_036_854_775_808u64}))
        .assert_invalid("business_unit_id");
    for ids in ["9223372036854775808", &their_product.to_string(), "1,\u{0}"] {
        let path = format!("/api/v1/mobile/products/stock?ids={}", ids.replace('\u{0}', "%00"));
        depot.get(&path, depot.owner()).assert_invalid("ids");
    }
    server
        .put_json("/api/v1/print-settings", Some(depot.owner()), &json!({"logo": "\u{0}"}))
        .assert_invalid("logo");
    server
        .put_json("/api/v1/stock/settings", Some(depot.owner()), &json!({"enforce": 1e30}))
        .assert_invalid("enforce");
    let put = |path: &str, body: Value| server.put_json(path, Some(depot.owner()), &body);
    put("/api/v1/print-settings", json!({"unit_name": 1e30})).assert_invalid("unit_name");
    put("/api/v1/stock/settings", json!({"enabled": "\u{0}"})).assert_invalid("enabled");
    for (path, field) in [
        ("/api/v1/invoice/wtn?limit=9223372036854775808", "limit"),
        ("/api/v1/invoice/wtn?offset=1e30", "offset"),
        ("/api/v1/reports/wtn?from=%00&to=2026-01-01", "from"),
        ("/api/v1/reports/wtn?from=2026-01-01&to=1e30", "to"),
    ] {
        depot.get(path, depot.owner()).assert_invalid(field);
    }
    depot.get("/api/v1/invoice/wtn?fromDate=%00", depot.owner()).assert_error(422);
    depot.get("/api/v1/invoice/wtn/details/%00", depot.owner()).assert_error(404);
    let flour_id = flour.as_i64().unwrap();
    for query in
        ["business_unit_id=9223372036854775808".to_string(), format!("business_unit_id={}", other.branch_id)]
    {
        let path = format!("/api/v1/stock/products/{flour_id}?{query}");
        depot.get(&path, depot.owner()).assert_invalid("business_unit_id");
    }

    // Nothing half-written: no note of this company, no movement; and the server writes on.
    let list = depot.get("/api/v1/invoice/wtn", depot.owner());
    assert!(list.data(200)["items"].as_array().unwrap().is_empty());
    adjust(&flour, json!({"kind": "count", "quantity": 3})).data(201);
    depot.wtn(1, &note(Some("good"), &[("MIELL", "Miell", 1.0)])).data(201);
    assert_eq!(depot.shelf(depot.owner(), flour.as_i64().unwrap()), 2.0);
    // Theirs and the good one.
    assert_eq!(depot.assert_every_wtn_request_passes_outside_tools(), 2);
}

#[test]
fn the_openapi_document_names_every_route_of_the_group() {
    let server = TestServer::start();
    let served = server.get("/api/openapi.yaml", None).text;
    for path in [
        "/api/v1/invoice/wtn",
        "/api/v2/invoice/wtn",
        "/api/v1/invoice/wtn/details/{internalId}",
        "/api/v2/invoice/wtn/details/{internalId}",
        "/api/v1/invoice/wtn/print/{id}",
        "/api/v2/invoice/wtn/print/{id}",
        "/api/v1/invoice/wtn/pdf/{id}",
        "/api/v2/invoice/wtn/pdf/{id}",
        "/api/v1/reports/wtn",
        "/api/v1/print-settings",
        "/api/v1/mobile/products/stock",
        "/api/v1/stock/settings",
        "/api/v1/stock/products/{id}",
        "/api/v1/stock/products/{id}/adjustments",
    ] {
        assert!(served.contains(&format!("\n  {path}:\n")), "OpenAPI documents {path}");
    }
}

#[test]
fn a_note_sent_again_is_looked_up_first_even_when_its_goods_are_gone_or_it_is_still_at_the_cis() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    let flour = depot.product("MIELL", "Miell gruri", false);
    depot.adjust(flour, None, "count", 2.0).data(201);
    let enforce =
        depot.till.server.put_json("/api/v1/stock/settings", Some(depot.owner()), &json!({"enforce": true}));
    enforce.data(200);

    // The note took the last two sacks; its retry is the same note, not "not enough flour".
    let first = depot.wtn(1, &note_to_client(Some("g-1"))).data(201)["invoice"].clone();
    let again = depot.wtn(1, &note_to_client(Some("g-1")));
    again.assert_error(409);
    assert!(again.body["message"].as_str().unwrap().contains("already issued"), "{}", again.text);
    let retry = depot.wtn_as(depot.owner(), 2, &note_to_client(Some("g-1")));
    assert_eq!(retry.data(200)["invoice"]["id"], first["id"]);
    assert_eq!(depot.shelf(depot.owner(), flour), 0.0);

    // A retry while the first is still at a slow CIS: v1 is told it is being issued, v2 too
    // until the first is saved, then gets it.
    depot.adjust(flour, None, "count", 2.0).data(201);
    let at_the_cis = || sim.requests().iter().filter(|r| r["operation"] == "RegisterWTN").count();
    let before = at_the_cis();
    sim.set_mode(json!({"mode": "slow", "delay_ms": 1500}));
    std::thread::scope(|scope| {
        let slow = scope.spawn(|| depot.wtn(1, &note_to_client(Some("g-2"))));
        eventually("the note at the CIS", Duration::from_secs(10), || at_the_cis() > before);
        let again = depot.wtn(1, &note_to_client(Some("g-2")));
        again.assert_error(409);
        assert!(again.body["message"].as_str().unwrap().contains("being issued"), "{}", again.text);
        let v2 = depot.wtn(2, &note_to_client(Some("g-2")));
        assert!(matches!(v2.status, 200 | 409), "{}", v2.text);
        let slow = slow.join().unwrap();
        assert!(matches!(slow.status, 201 | 503), "{}", slow.text);
    });
    sim.mode("ok");

    // And while the CIS is away: the note was saved, so the retry is still 409 (v2: the note).
    sim.mode("down");
    depot.adjust(flour, None, "count", 2.0).data(201);
    let deferred = depot.wtn(1, &note_to_client(Some("g-3")));
    assert_eq!(deferred.status, 503, "{}", deferred.text);
    depot.wtn(1, &note_to_client(Some("g-3"))).assert_error(409);
    let v2 = depot.wtn_as(depot.owner(), 2, &note_to_client(Some("g-3")));
    assert_eq!(v2.data(200)["invoice"]["id"], deferred.body["data"]["invoice"]["id"]);
    sim.mode("ok");
    assert_eq!(depot.shelf(depot.owner(), flour), 0.0, "every note took its sacks once");
}

#[test]
fn a_v2_retry_answers_the_first_note_only_to_whoever_may_read_it() {
    let sim = SimServer::start();
    let depot = open_depot(&sim);
    depot.product("MIELL", "Miell gruri", false);
    let (first_clerk, second_clerk) = (depot.clerks[0].clone(), depot.clerks[1].clone());
    let first = depot.wtn_as(&first_clerk, 2, &note_to_client(Some("s-1")));
    let first = first.data(200)["invoice"].clone();
    depot.get("/api/v1/invoice/wtn/details/s-1", &second_clerk).assert_error(403);

    // Another cashier sending the same internalId learns it is taken, and nothing of the note.
    let taken = depot.wtn_as(&second_clerk, 2, &note_to_client(Some("s-1")));
    taken.assert_error(409);
    assert!(!taken.text.contains(first["iic"].as_str().unwrap()), "{}", taken.text);
    assert!(!taken.text.contains("Rruga e Kavajës"), "{}", taken.text);

    // Its cashier's retry and the owner's get it, unchanged.
    assert_eq!(depot.wtn_as(&first_clerk, 2, &note_to_client(Some("s-1"))).data(200)["invoice"], first);
    assert_eq!(depot.wtn_as(depot.owner(), 2, &note_to_client(Some("s-1"))).data(200)["invoice"], first);
    assert_eq!(sim.registered()["wtns"].as_array().unwrap().len(), 1, "one note reached the CIS");
}
