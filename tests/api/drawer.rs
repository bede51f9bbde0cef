//! The drawer a person counts, as a shop owner tells it: banknotes in, banknotes out, change
//! given, apart from card sales; a shortage counted once and the next day starting from the
//! count; two tills, one closed by a manager counting notes and coins; the Z report an owner and
//! an inspector read, its figures checked against the documents the API lists and against its
//! PDFs (pdftotext as the outside judge).

use std::collections::BTreeMap;

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use serde_json::{Value, json};

/// A cash sale of one line of `price` lek paid by `method` (v1).
fn sell(till: &Till, token: &str, internal_id: &str, method: &str, price: f64) -> Value {
    let body = json!({
        "internalId": internal_id,
        "payment_method": method,
        "lines": [{"product_name": "Mall", "product_code": "M1", "unit": "copë", "quantity": 1, "price": price, "total": price, "vat": 20}],
    });
    till.server.post_json("/api/v1/invoice/cash", Some(token), &body).data(201)["invoice"].clone()
}

fn cash(till: &Till, token: &str, path: &str, body: Value) -> Reply {
    till.server.post_json(&format!("/api/v1/cash-register/{path}"), Some(token), &body)
}

fn lek(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn today(till: &Till, token: &str) -> Value {
    till.server.get("/api/v1/owner/today", Some(token)).data(200).clone()
}

fn till_of<'a>(today: &'a Value, tcr: &str) -> &'a Value {
    today["tills"].as_array().unwrap().iter().find(|t| t["fiscal_tcr_code"] == tcr).unwrap()
}

/// The X/Z report's days of `tcr` today, oldest first.
fn days(till: &Till, token: &str, tcr: &str) -> Vec<Value> {
    let day = chrono::Utc::now().with_timezone(&chrono_tz::Europe::Tirane).date_naive();
    let path = format!("/api/v1/reports/cash-register/closing?from={day}&to={day}&tcr={tcr}");
    till.server.get(&path, Some(token)).data(200)["items"].as_array().unwrap().clone()
}

/// What the documents of a till say the drawer took, read from the API's own invoice list (v2,
/// with its payment_methods) as an accountant would: banknotes in, out and change given, and
/// every other method by name.
struct FromDocuments {
    banknotes_in: f64,
    banknotes_out: f64,
    change_given: f64,
    others: BTreeMap<String, f64>,
}

fn from_documents(till: &Till, token: &str) -> FromDocuments {
    let items = till.server.get("/api/v2/invoice?limit=100", Some(token)).data(200)["items"].clone();
    let mut seen =
        FromDocuments { banknotes_in: 0.0, banknotes_out: 0.0, change_given: 0.0, others: BTreeMap::new() };
    for item in items.as_array().unwrap() {
        let corrective = item["document_kind"] == "CORRECTIVE";
        for payment in item["payment_methods"].as_array().unwrap() {
            let amount = lek(&payment["amount"]);
            match payment["type"].as_str().unwrap() {
                "BANKNOTE" if amount > 0.0 => seen.banknotes_in += amount,
                "BANKNOTE" if corrective => seen.banknotes_out -= amount,
                "BANKNOTE" => seen.change_given -= amount,
                other => *seen.others.entry(other.to_string()).or_default() += amount,
            }
        }
    }
    seen
}

fn cents(a: f64) -> i64 {
    (a * 100.0).round() as i64
}

#[test]
fn the_drawer_expects_banknotes_and_names_card_sales_apart() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let owner = till.token.as_str();
    let opened = cash(&till, owner, "open-balance", json!({"amount": 4919.50}));
    opened.data(201);
    // The day: 240 and 350 in banknotes, 480 by card.
    sell(&till, owner, "d-1", "BANKNOTE", 240.0);
    let second = sell(&till, owner, "d-2", "BANKNOTE", 350.0);
    sell(&till, owner, "d-3", "CARD", 480.0);

    let day = till_of(&today(&till, owner), &till.tcr_code).clone();
    assert_eq!(lek(&day["day"]["expected"]), 5509.50, "{day}");
    assert_eq!(lek(&day["day"]["drawer"]["banknotes_in"]), 590.0, "{day}");
    assert_eq!(day["day"]["not_in_drawer"], json!({"CARD": 480.0}), "{day}");
    assert_eq!(lek(&day["balance"]), 5989.50, "the spec's balance keeps the card: {day}");
    let balance = till.server.get("/api/v1/cash-register/balance", Some(owner)).data(200).clone();
    assert_eq!(lek(&balance["balance"]), 5989.50);
    let x = &days(&till, owner, &till.tcr_code)[0];
    assert_eq!((x["status"].as_str(), lek(&x["expected"])), (Some("open"), 5509.50), "{x}");
    assert_eq!(x["sales_by_payment_method"], json!({"BANKNOTE": 590.0, "CARD": 480.0}), "{x}");
    assert_eq!(x["not_in_drawer"], json!({"CARD": 480.0}));
    assert_eq!(x["counted_against"], "drawer");

    // Cash back on a card (a negative banknote payment) and a sale given back in banknotes.
    let cash_back = json!({
        "internalId": "d-4",
        "lines": [{"product_name": "Mall", "product_code": "M1", "unit": "copë", "quantity": 1, "price": 240, "total": 240, "vat": 20}],
        "payment_methods": [{"type": "CARD", "amount": 500}, {"type": "BANKNOTE", "amount": -260}],
    });
    till.server.post_json("/api/v2/invoice/cash", Some(owner), &cash_back).data(200);
    till.server
        .post_json(&format!("/api/v1/invoice/cancel/{}", second["id"]), Some(owner), &json!({}))
        .data(200);

    // The figures, checked against the documents the API lists and the day's actions.
    let documents = from_documents(&till, owner);
    assert_eq!(
        (documents.banknotes_in, documents.banknotes_out, documents.change_given),
        (590.0, 350.0, 260.0)
    );
    let opening: f64 = till.server.get("/api/v1/cash-register/actions", Some(owner)).data(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action_type"] == "INITIAL")
        .map(|a| lek(&a["amount"]))
        .sum();
    let expected = opening + documents.banknotes_in - documents.banknotes_out - documents.change_given;
    assert_eq!(cents(expected), 489_950, "4919.50 + 590 - 350 - 260");
    let day = till_of(&today(&till, owner), &till.tcr_code).clone();
    let drawer = &day["day"]["drawer"];
    assert_eq!(
        [&drawer["opening"], &drawer["banknotes_in"], &drawer["banknotes_out"], &drawer["change_given"]]
            .map(|v| cents(lek(v))),
        [cents(opening), 59_000, 35_000, 26_000],
        "{drawer}"
    );
    assert_eq!(cents(lek(&day["day"]["expected"])), cents(expected));
    assert_eq!(day["day"]["not_in_drawer"], json!({"CARD": documents.others["CARD"]}));
    assert_eq!(documents.others["CARD"], 980.0);

    // An honest count is no difference; card money is not asked of the drawer.
    let balance = lek(&till.server.get("/api/v1/cash-register/balance", Some(owner)).data(200)["balance"]);
    let closed = cash(&till, owner, "close-balance", json!({"counted": expected})).data(200).clone();
    assert_eq!(cents(lek(&closed["expected"])), cents(expected), "{closed}");
    assert_eq!(lek(&closed["difference"]), 0.0, "{closed}");
    assert_eq!(cents(lek(&closed["balance"])), cents(balance), "{closed}");
    assert_eq!(closed["not_in_drawer"], json!({"CARD": 980.0}));
    assert_eq!(closed["by_payment_method"], json!({"BANKNOTE": -20.0, "CARD": 980.0}), "{closed}");
    assert_eq!(cents(lek(&closed["withdrawn"])), cents(expected));
    assert_eq!(lek(&closed["left_in_drawer"]), 0.0);
    assert_eq!(
        cents(lek(&closed["balance_after"])),
        cents(balance - expected),
        "the card stays in the balance"
    );
    let z = &days(&till, owner, &till.tcr_code)[0];
    assert_eq!((z["status"].as_str(), lek(&z["difference"])), (Some("closed"), 0.0), "{z}");
    assert_eq!(cents(lek(&z["drawer"]["expected"])), cents(expected));
}

#[test]
fn a_difference_is_booked_once_and_the_next_day_starts_from_what_was_counted() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let owner = till.token.as_str();
    cash(&till, owner, "open-balance", json!({"amount": 1000})).data(201);
    sell(&till, owner, "n-1", "BANKNOTE", 285.0);
    // 37.50 short; 1000 leaves the drawer, 247.50 stays in it.
    let first =
        cash(&till, owner, "close-balance", json!({"counted": 1247.50, "withdraw": 1000})).data(200).clone();
    assert_eq!((lek(&first["expected"]), lek(&first["difference"])), (1285.0, -37.50), "{first}");
    assert_eq!(lek(&first["left_in_drawer"]), 247.50);

    // The next day opens with nothing added and sells 285: the drawer holds 247.50 + 285.
    cash(&till, owner, "open-balance", json!({"amount": 0})).data(201);
    sell(&till, owner, "n-2", "BANKNOTE", 285.0);
    let day = till_of(&today(&till, owner), &till.tcr_code).clone();
    assert_eq!(lek(&day["day"]["drawer"]["carried_over"]), 247.50, "{day}");
    assert_eq!(lek(&day["day"]["expected"]), 532.50, "{day}");
    let second = cash(&till, owner, "close-balance", json!({"counted": 532.50})).data(200).clone();
    assert_eq!((lek(&second["expected"]), lek(&second["difference"])), (532.50, 0.0), "{second}");
    assert_eq!(lek(&second["carried_over"]), 247.50);

    // The difference is an entry of its own, once, on the day it was counted.
    let trail = till.server.get("/api/v1/audit?action=cash.difference", Some(owner)).data(200).clone();
    let entries = trail["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{trail}");
    let booked: f64 = entries[0]["after"]["difference"].as_str().unwrap().parse().unwrap();
    assert_eq!(booked, -37.50);
    assert_eq!(entries[0]["after"]["tcr"], till.tcr_code.as_str());
    assert_eq!(entries[0]["object"], first_day_id(&till, owner));
    let z = days(&till, owner, &till.tcr_code);
    let differences: Vec<f64> = z.iter().map(|d| lek(&d["difference"])).collect();
    assert_eq!(differences, [-37.50, 0.0]);
}

fn first_day_id(till: &Till, token: &str) -> String {
    days(till, token, &till.tcr_code)[0]["id"].to_string()
}

#[test]
fn with_two_tills_a_manager_picks_the_till_and_closes_it_by_notes_and_coins() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (server, owner) = (&till.server, till.token.as_str());
    let device = json!({"branchId": till.branch_id, "name": "Kasa 2", "fromDate": chrono::Utc::now().date_naive().to_string()});
    let second = server.post_json("/api/v1/on-boarding/fiscal-device", Some(owner), &device).data(201)["device"]
        ["fiscalTcrCode"]
        .as_str()
        .unwrap()
        .to_string();
    // The owner's till is still the first one: a second device does not silently take its place.
    let me = today(&till, owner);
    assert_eq!(me["tills"].as_array().unwrap().len(), 2);
    assert_eq!(till_of(&me, &till.tcr_code)["mine"], true);
    assert_eq!(till_of(&me, &second)["mine"], false);

    let body = json!({"name": "Drita", "email": "drita@shop.al", "branchId": till.branch_id, "fiscalTcrCode": second, "operatorCode": "dr123dr123"});
    let cashier = server.post_json("/api/v1/on-boarding/user", Some(owner), &body).data(201)["user"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let body = json!({"name": "Besa", "email": "besa@shop.al", "branchId": till.branch_id, "role": "manager", "operatorCode": "bs123bs123"});
    let manager = server.post_json("/api/v1/on-boarding/user", Some(owner), &body).data(201)["user"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    cash(&till, &cashier, "open-balance", json!({"amount": 500})).data(201);
    sell(&till, &cashier, "k2-1", "BANKNOTE", 1200.0);
    sell(&till, &cashier, "k2-2", "CARD", 300.0);

    // A cashier acts on their own till only; a till not the company's is no till at all.
    let other = format!("?tcr={}", till.tcr_code);
    cash(&till, &cashier, &format!("deposit{other}"), json!({"amount": 1, "description": "x"}))
        .assert_error(403);
    cash(&till, &cashier, &format!("close-balance{other}"), json!({})).assert_error(403);
    cash(&till, &manager, "close-balance?tcr=zz999zz999", json!({})).assert_invalid("tcr");
    // The manager has no till of their own: without `tcr` there is nothing to act on.
    let none = cash(&till, &manager, "close-balance", json!({}));
    assert_eq!(none.status, 200);
    assert_eq!(none.body["status"], false, "{}", none.text);

    // The manager sees every till's day, and the second one's drawer: 500 + 1200, card apart.
    let seen = today(&till, &manager);
    let theirs = till_of(&seen, &second);
    assert_eq!(lek(&theirs["day"]["expected"]), 1700.0, "{theirs}");
    assert_eq!(theirs["day"]["not_in_drawer"], json!({"CARD": 300.0}));
    assert_eq!(till_of(&seen, &till.tcr_code)["day"]["state"], "not_opened");
    let balance = server.get(&format!("/api/v1/cash-register/balance?tcr={second}"), Some(&manager));
    assert_eq!(lek(&balance.data(200)["balance"]), 2000.0);

    // Counted by notes and coins: 1000 + 500 + 2 x 100 = 1700, the count sent as it was made.
    let pieces = json!({"1000": 1, "500": 1, "100": 2, "50": 0});
    let refused =
        cash(&till, &manager, &format!("close-balance?tcr={second}"), json!({"denominations": {"3": 1}}));
    refused.assert_invalid("denominations.3");
    let disagreeing = json!({"denominations": pieces, "counted": 1650});
    cash(&till, &manager, &format!("close-balance?tcr={second}"), disagreeing).assert_invalid("counted");
    let closed =
        cash(&till, &manager, &format!("close-balance?tcr={second}"), json!({"denominations": pieces}))
            .data(200)
            .clone();
    assert_eq!(closed["fiscal_tcr_code"], second.as_str());
    assert_eq!((lek(&closed["counted"]), lek(&closed["difference"])), (1700.0, 0.0), "{closed}");
    assert_eq!(closed["denominations"], json!({"1000": 1, "500": 1, "100": 2, "50": 0}));
    assert_eq!(till_of(&today(&till, owner), &second)["day"]["state"], "closed");
    assert_eq!(till_of(&today(&till, owner), &till.tcr_code)["day"]["state"], "not_opened");
    let z = &days(&till, &manager, &second)[0];
    assert_eq!(z["denominations"], json!({"100": 2, "1000": 1, "50": 0, "500": 1}), "{z}");

    // The audit trail names the till of each action, and who acted.
    let trail = server.get("/api/v1/audit?action=day.close", Some(owner)).data(200).clone();
    let close = &trail["entries"][0];
    assert_eq!(close["after"]["tcr"], second.as_str(), "{close}");
    assert_eq!(close["role"], "manager");
    let opened = server.get("/api/v1/audit?action=day.open", Some(owner)).data(200).clone();
    assert_eq!(opened["entries"][0]["after"]["tcr"], second.as_str());
}

/// `value` as a PDF prints an amount: two decimals, a point.
fn printed(value: f64) -> String {
    format!("{value:.2}")
}

#[test]
fn the_z_report_holds_what_an_owner_and_an_inspector_read_in_json_a4_and_80_mm() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (server, owner) = (&till.server, till.token.as_str());
    let body = json!({"name": "Drita Hoxha", "email": "drita@shop.al", "branchId": till.branch_id, "fiscalTcrCode": till.tcr_code, "operatorCode": "dr123dr123"});
    let cashier = server.post_json("/api/v1/on-boarding/user", Some(owner), &body).data(201)["user"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    cash(&till, owner, "open-balance", json!({"amount": 2000})).data(201);
    // Coffee at 20 % and water at 6 %, in banknotes; a card sale; the water given back.
    let mixed = server.post_json("/api/v1/invoice/cash", Some(&cashier), &coffee_and_water("z-1")).data(201)
        ["invoice"]
        .clone();
    sell(&till, owner, "z-2", "CARD", 600.0);
    sell(&till, &cashier, "z-3", "BANKNOTE", 120.0);
    let water = json!({"lines": [{"product_name": "Ujë", "product_code": "U1", "quantity": 1}]});
    server.post_json(&format!("/api/v1/invoice/cancel/{}", mixed["id"]), Some(owner), &water).data(200);
    cash(&till, owner, "deposit", json!({"amount": 300, "description": "Kusur nga banka"})).data(201);
    cash(&till, &cashier, "withdraw", json!({"amount": 150, "description": "Furra"})).data(201);
    // 2000 + 285 + 120 - 45 + 300 - 150 = 2510 expected; counted 2500 by notes and coins.
    let pieces = json!({"2000": 1, "200": 2, "50": 2});
    let closed = cash(&till, owner, "close-balance", json!({"denominations": pieces, "withdraw": 2000}))
        .data(200)
        .clone();
    assert_eq!((lek(&closed["expected"]), lek(&closed["counted"])), (2510.0, 2500.0), "{closed}");

    // The documents as the API lists them: receipts, numbers, VAT by rate from their lines.
    let items =
        server.get("/api/v2/invoice?limit=100", Some(owner)).data(200)["items"].as_array().unwrap().clone();
    let mut receipts: Vec<&Value> = items.iter().filter(|i| i["document_kind"] != "CORRECTIVE").collect();
    receipts.sort_by_key(|i| i["id"].as_i64());
    let correctives: Vec<&Value> = items.iter().filter(|i| i["document_kind"] == "CORRECTIVE").collect();
    let mut vat: BTreeMap<i64, (f64, f64)> = BTreeMap::new();
    for item in &items {
        let details =
            server.get(&format!("/api/v2/invoice/{}/details", item["id"]), Some(owner)).data(200).clone();
        for line in details["invoice"]["lines"].as_array().unwrap() {
            let rate = vat.entry(lek(&line["vat"]) as i64).or_default();
            rate.0 += lek(&line["net"]);
            rate.1 += lek(&line["vat_amount"]);
        }
    }

    let z = days(&till, owner, &till.tcr_code)[0].clone();
    assert_eq!(z["status"], "closed");
    assert_eq!(z["name"], "Kasa 1");
    let names: Vec<&str> =
        z["cashiers"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"Drita Hoxha") && names.len() == 2, "{z}");
    assert_eq!(z["receipts"]["count"], receipts.len());
    assert_eq!(z["receipts"]["first"], receipts[0]["number"]);
    assert_eq!(z["receipts"]["last"], receipts[receipts.len() - 1]["number"]);
    let sold: f64 = receipts.iter().map(|i| lek(&i["amount"]["gross"])).sum();
    assert_eq!(cents(lek(&z["receipts"]["gross"])), cents(sold));
    assert_eq!(z["sales_by_payment_method"], json!({"BANKNOTE": 405.0, "CARD": 600.0}));
    assert_eq!(z["cancellations"]["count"], correctives.len());
    assert_eq!(z["cancellations"]["documents"][0]["number"], correctives[0]["number"]);
    assert_eq!(z["cancellations"]["documents"][0]["corrects"], mixed["number"]);
    assert_eq!(lek(&z["cancellations"]["gross"]), -45.0);
    let by_rate: BTreeMap<i64, (i64, i64)> = z["vat"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (lek(&l["vat_rate"]) as i64, (cents(lek(&l["net"])), cents(lek(&l["vat"])))))
        .collect();
    let from_lines: BTreeMap<i64, (i64, i64)> =
        vat.iter().map(|(r, (n, v))| (*r, (cents(*n), cents(*v)))).collect();
    assert_eq!(by_rate, from_lines);
    assert_eq!((lek(&z["deposits"]), lek(&z["withdrawals"])), (300.0, 150.0));
    assert_eq!(z["drawer"]["banknotes_in"], json!(405.0));
    assert_eq!(z["drawer"]["banknotes_out"], json!(45.0));
    assert_eq!(z["not_in_drawer"], json!({"CARD": 600.0}));
    assert_eq!(z["denominations"], json!({"2000": 1, "200": 2, "50": 2}));
    assert_eq!((lek(&z["expected"]), lek(&z["counted"]), lek(&z["difference"])), (2510.0, 2500.0, -10.0));
    assert_eq!(lek(&z["withdrawn"]), 2000.0);

    // The same figures on paper, A4 and 80 mm, read back by pdftotext.
    let day = z["business_day"].as_str().unwrap();
    for paper in ["a4", "receipt"] {
        let path = format!(
            "/api/v1/reports/cash-register/closing/pdf?from={day}&to={day}&tcr={}&paper={paper}",
            till.tcr_code
        );
        let text = pdftotext(&server.get_bytes(&path, Some(owner)));
        let mut wanted = vec![
            "Raporti Z / Z report".to_string(),
            "Kasa 1".to_string(),
            "Drita Hoxha".to_string(),
            format!(
                "{} - {}",
                receipts[0]["number"].as_str().unwrap(),
                receipts[receipts.len() - 1]["number"].as_str().unwrap()
            ),
            "Kartë / Card".to_string(),
            printed(600.0),
            printed(405.0),
            correctives[0]["number"].as_str().unwrap().to_string(),
            printed(-45.0),
            printed(300.0),
            printed(150.0),
            "Pritet në arkë / Expected in the drawer".to_string(),
            printed(2510.0),
            printed(2500.0),
            printed(-10.0),
            "2000 L x 1".to_string(),
            "200 L x 2".to_string(),
            "50 L x 2".to_string(),
            "Nënshkrimi i arkëtarit / Cashier's signature".to_string(),
        ];
        for (rate, (net, vat)) in &vat {
            wanted.push(format!("{rate} %"));
            wanted.push(printed(*net));
            wanted.push(printed(*vat));
        }
        for needle in wanted {
            assert!(text.contains(&needle), "{paper}: {needle:?} not in\n{text}");
        }
    }
}
