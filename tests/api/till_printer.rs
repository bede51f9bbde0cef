//! The till's printer, held against the invoice the API returns: a listener on 127.0.0.1 plays
//! the shop's network thermal printer and decodes what it gets (the text on its code page, the
//! cut, the QR command's payload, the drawer's pulse); a file under /dev/shm plays a USB
//! printer's device file. Printers off and out of paper are said, and the receipt prints again.

use crate::common::printer::{TestPrinter, decode, qr_read_back};
use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use serde_json::{Value, json};

/// A sale with the Albanian letters the code page must carry.
fn albanian_sale(internal_id: &str, payment_method: &str) -> Value {
    json!({
        "internalId": internal_id,
        "lines": [
            {"product_name": "Kafe me qumësht", "product_code": "K2", "unit": "copë", "quantity": 2, "price": 150, "total": 300, "vat": 20},
            {"product_name": "Çaj mali i egër nga Tomorri, paketë e madhe për familjen", "product_code": "C7", "unit": "kg", "quantity": 0.5, "price": 1200, "total": 540, "discount": 10, "vat": 6}
        ],
        "payment_method": payment_method,
    })
}

fn set_printer(till: &Till, body: Value) -> Value {
    till.server
        .put_json(&format!("/api/v1/printers/{}", till.tcr_code), Some(&till.token), &body)
        .data(200)
        .clone()
}

fn print(till: &Till, id: &Value, body: Value) -> crate::common::Reply {
    till.server.post_json(&format!("/api/v1/invoice/{id}/receipt"), Some(&till.token), &body)
}

fn details(till: &Till, id: &Value) -> Value {
    till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"].clone()
}

/// The API's amount as printed: two decimals.
fn printed(v: &Value) -> String {
    format!("{:.2}", v.as_f64().unwrap())
}

#[test]
fn a_cash_receipt_on_the_network_printer_is_the_invoice_the_api_returns() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let printer = TestPrinter::start();
    let saved = set_printer(&till, json!({"connection": "network", "address": printer.address.to_string()}));
    assert_eq!(
        saved["printer"],
        json!({"connection": "network", "address": printer.address.to_string(), "columns": 48})
    );

    let invoice = till
        .server
        .post_json("/api/v1/invoice/cash", Some(&till.token), &albanian_sale("r-1", "BANKNOTE"))
        .data(201)["invoice"]
        .clone();
    let answer = print(&till, &invoice["id"], json!({"tendered": 1000})).data(200).clone();
    assert_eq!((answer["copy"].clone(), answer["drawer"].clone()), (json!(false), json!(true)));
    let receipt = printer.wait_for(1);
    assert_eq!(receipt.code_page, Some(19), "code page 858");
    assert_eq!(receipt.cuts, 1);
    assert_eq!(receipt.drawer_pulses, 1, "a cash sale opens the drawer");
    assert_eq!(printer.receipts()[0].bytes.len() as i64, answer["bytes"].as_i64().unwrap());
    for line in &receipt.lines {
        assert!(line.chars().count() <= 48, "a line wider than 48 columns: {line:?}");
    }
    let full = details(&till, &invoice["id"]);
    let text = receipt.text();
    for expected in [
        format!("NUIS: {NUIS}"),
        format!("Kodi i TCR / TCR code: {}", till.tcr_code),
        "Operatori / Operator: op123op123".to_string(),
        format!("Nr. {}", invoice["number"].as_str().unwrap()),
        "Kafe me qumësht".to_string(),
        "Çaj mali i egër nga Tomorri, paketë e madhe".to_string(),
        "NSLF / IIC".to_string(),
        invoice["iic"].as_str().unwrap().to_string(),
        full["fic"].as_str().unwrap().to_string(),
    ] {
        assert!(text.contains(&expected), "the receipt has {expected:?}:\n{text}");
    }
    let issued = receipt.lines.iter().find(|l| l.starts_with("Data dhe ora / Date and time")).unwrap();
    assert!(issued.ends_with(invoice["fiscalizedAt"].as_str().unwrap()), "{text}");
    let company = till.server.get("/api/v1/session", Some(&till.token)).data(200)["company"]["name"].clone();
    assert!(receipt.has_line(company.as_str().unwrap()), "the seller's name: {text}");
    // Lines, VAT groups and totals are the API's figures.
    assert!(
        receipt
            .lines
            .iter()
            .any(|l| l.starts_with("  K2 2 copë x 150.00 TVSH 20%") && l.ends_with(" 300.00")),
        "{text}"
    );
    assert!(
        receipt
            .lines
            .iter()
            .any(|l| l.starts_with("  C7 0.5 kg x 1200.00 -10% TVSH 6%") && l.ends_with(" 540.00")),
        "{text}"
    );
    let amount = &full["amount"];
    let total = format!("{} ALL", printed(&amount["gross"]));
    assert!(receipt.bold.iter().any(|l| l.starts_with("TOTALI / TOTAL") && l.ends_with(&total)), "{text}");
    assert!(
        receipt
            .lines
            .iter()
            .any(|l| l.starts_with("TVSH / VAT") && l.ends_with(&format!("{} ALL", printed(&amount["vat"])))),
        "{text}"
    );
    assert!(
        receipt.lines.iter().any(|l| l.starts_with("TVSH 20%"))
            && receipt.lines.iter().any(|l| l.starts_with("TVSH 6%")),
        "{text}"
    );
    assert!(receipt.lines.iter().any(|l| l.starts_with("BANKNOTE") && l.ends_with(&total)), "{text}");
    assert!(
        receipt
            .lines
            .iter()
            .any(|l| l.starts_with("Paguar në dorë / Cash tendered") && l.ends_with("1000.00 ALL")),
        "{text}"
    );
    let change = format!("{:.2} ALL", 1000.0 - amount["gross"].as_f64().unwrap());
    assert!(receipt.bold.iter().any(|l| l.starts_with("Kusuri / Change") && l.ends_with(&change)), "{text}");
    // The QR command carries the verification URL, and a phone reads it back.
    assert_eq!(receipt.qr_payloads, [invoice["verifyURL"].as_str().unwrap().to_string()]);
    assert_eq!(qr_read_back(&receipt.qr_payloads[0]), invoice["verifyURL"].as_str().unwrap());

    // Printed again: a copy, the drawer shut, no change.
    let again = print(&till, &invoice["id"], json!({"tendered": 1000})).data(200).clone();
    assert_eq!((again["copy"].clone(), again["drawer"].clone()), (json!(true), json!(false)));
    let copy = printer.wait_for(2);
    assert!(copy.has_line("KOPJE / COPY") && !receipt.has_line("KOPJE / COPY"));
    assert_eq!((copy.drawer_pulses, copy.cuts), (0, 1));
    assert!(!copy.text().contains("Kusuri"), "{}", copy.text());
}

#[test]
fn a_card_sale_on_42_columns_opens_no_drawer_and_a_late_one_prints_its_mark() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let printer = TestPrinter::start();
    set_printer(
        &till,
        json!({"connection": "network", "address": printer.address.to_string(), "columns": 42}),
    );
    let card = till
        .server
        .post_json("/api/v1/invoice/cash", Some(&till.token), &albanian_sale("c-1", "CARD"))
        .data(201)["invoice"]
        .clone();
    assert_eq!(print(&till, &card["id"], json!({})).data(200)["drawer"], false);
    let receipt = printer.wait_for(1);
    assert_eq!(receipt.drawer_pulses, 0, "a card sale leaves the drawer shut");
    assert!(receipt.lines.iter().all(|l| l.chars().count() <= 42), "{}", receipt.text());
    assert!(receipt.lines.iter().any(|l| l.chars().count() == 42), "the rules fill the 42 columns");

    // The CIS does not answer: the sale prints with its IIC and the late mark; the FIC follows.
    sim.mode("down");
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("late-1"));
    assert_eq!(reply.status, 503, "{}", reply.text);
    let late = reply.body["data"]["invoice"].clone();
    assert!(late["fic"].is_null());
    print(&till, &late["id"], json!({})).data(200);
    let receipt = printer.wait_for(2);
    let text = receipt.text();
    assert!(
        text.contains(late["iic"].as_str().unwrap()) && receipt.has_line("në pritje / pending"),
        "{text}"
    );
    assert_eq!(receipt.qr_payloads, [late["verifyURL"].as_str().unwrap().to_string()]);
}

#[test]
fn a_printer_off_or_out_of_paper_is_said_and_the_receipt_prints_again_as_the_first() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let invoice =
        till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("p-1")).data(201)
            ["invoice"]
            .clone();
    // No printer set: the till prints the PDF instead.
    print(&till, &invoice["id"], json!({})).assert_error(409);

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    set_printer(&till, json!({"connection": "network", "address": closed.to_string()}));
    let off = print(&till, &invoice["id"], json!({}));
    off.assert_error(503);
    assert!(off.body["message"].as_str().unwrap().starts_with("The printer does not answer"), "{}", off.text);

    let printer = TestPrinter::start();
    printer.set_paper_out(true);
    set_printer(&till, json!({"connection": "network", "address": printer.address.to_string()}));
    let out = print(&till, &invoice["id"], json!({}));
    out.assert_error(503);
    assert!(out.body["message"].as_str().unwrap().starts_with("The printer is out of paper"), "{}", out.text);
    assert!(printer.receipts().is_empty(), "nothing printed without paper");

    printer.set_paper_out(false);
    let printed = print(&till, &invoice["id"], json!({})).data(200).clone();
    assert_eq!(
        (printed["copy"].clone(), printed["drawer"].clone()),
        (json!(false), json!(true)),
        "still the first print"
    );
    assert_eq!(printer.wait_for(1).drawer_pulses, 1);
}

#[test]
fn a_usb_printers_device_file_gets_the_receipt_and_a_missing_one_is_off() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let device = tempfile::Builder::new().prefix("arka-lp").tempfile_in("/dev/shm").unwrap();
    let path = device.path().to_str().unwrap().to_string();
    set_printer(&till, json!({"connection": "device", "address": path, "columns": 42}));
    let invoice = till
        .server
        .post_json("/api/v1/invoice/cash", Some(&till.token), &albanian_sale("u-1", "BANKNOTE"))
        .data(201)["invoice"]
        .clone();
    print(&till, &invoice["id"], json!({"tendered": 900})).data(200);
    let receipt = decode(&std::fs::read(&path).unwrap());
    assert_eq!((receipt.cuts, receipt.drawer_pulses), (1, 1));
    assert_eq!(receipt.qr_payloads, [invoice["verifyURL"].as_str().unwrap().to_string()]);
    assert!(receipt.text().contains("Kafe me qumësht"));

    set_printer(&till, json!({"connection": "device", "address": "/dev/shm/arka-no-such-printer"}));
    let off = print(&till, &invoice["id"], json!({}));
    off.assert_error(503);
    assert!(
        !std::path::Path::new("/dev/shm/arka-no-such-printer").exists(),
        "a missing device file is never made"
    );
}

#[test]
fn printers_and_till_settings_are_the_owners_and_a_cashier_gets_what_the_table_allows() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let printer = TestPrinter::start();
    let path = format!("/api/v1/printers/{}", till.tcr_code);
    let owner = Some(till.token.as_str());
    till.server
        .put_json(&path, owner, &json!({"connection": "network", "address": "a b"}))
        .assert_invalid("address");
    till.server.put_json(&path, owner, &json!({"connection": "serial"})).assert_invalid("connection");
    till.server
        .put_json(&path, owner, &json!({"connection": "network", "address": "10.0.0.9", "columns": 40}))
        .assert_invalid("columns");
    till.server
        .put_json(&path, owner, &json!({"connection": "device", "address": "/etc/passwd"}))
        .assert_invalid("address");
    till.server
        .put_json("/api/v1/printers/zz999zz999", owner, &json!({"connection": "none"}))
        .assert_error(404);
    set_printer(&till, json!({"connection": "network", "address": printer.address.to_string()}));

    let listed = till.server.get("/api/v1/printers", owner).data(200).clone();
    assert_eq!(listed["items"][0]["tcrCode"], till.tcr_code.as_str());
    assert_eq!(listed["items"][0]["printer"]["address"], printer.address.to_string());
    let test = till.server.post_json(&format!("{path}/test"), owner, &json!({})).data(200).clone();
    let page = printer.wait_for(1);
    assert_eq!(test["bytes"].as_u64().unwrap() as usize, printer.receipts()[0].bytes.len());
    assert!(page.has_line("ë Ë ç Ç €") && page.cuts == 1 && page.drawer_pulses == 0, "{}", page.text());

    let cashier = cashier(&till.server, till.company_id);
    let cashier = Some(cashier.as_str());
    till.server.put_json(&path, cashier, &json!({"connection": "none"})).assert_error(403);
    till.server.post_json(&format!("{path}/test"), cashier, &json!({})).assert_error(403);
    till.server.get("/api/v1/printers", cashier).assert_error(403);
    assert_eq!(
        till.server.get("/api/v1/printers/mine", cashier).data(200)["printer"],
        Value::Null,
        "a cashier without a till"
    );
    assert_eq!(till.server.get("/api/v1/printers/mine", owner).data(200)["printer"]["columns"], 48);

    let settings = till.server.get("/api/v1/till/settings", cashier).data(200).clone();
    assert_eq!(
        settings,
        json!({"scale_prefixes": [20, 21, 22, 23, 24, 25, 26, 27, 28, 29], "scale_item_digits": 5, "scale_value": "weight", "cashier_max_discount": 100.0})
    );
    till.server
        .put_json("/api/v1/till/settings", cashier, &json!({"cashier_max_discount": 50}))
        .assert_error(403);
    till.server
        .put_json("/api/v1/till/settings", owner, &json!({"scale_prefixes": [19]}))
        .assert_invalid("scale_prefixes");
    let saved = till
        .server
        .put_json(
            "/api/v1/till/settings",
            owner,
            &json!({"scale_prefixes": [21, 28], "cashier_max_discount": 10}),
        )
        .data(200)
        .clone();
    assert_eq!(saved["scale_prefixes"], json!([21, 28]));
    assert_eq!(till.server.get("/api/v1/till/settings", cashier).data(200)["cashier_max_discount"], 10.0);
    // The limit holds on the server for a cashier's token, whatever the client: a POS app too.
    let mut discounted = albanian_sale("d-1", "BANKNOTE");
    discounted["lines"][1]["discount"] = json!(15);
    discounted["lines"][1]["total"] = json!(510);
    let refused = till.server.post_json("/api/v1/invoice/cash", cashier, &discounted);
    refused.assert_error(403);
    assert!(refused.body["message"].as_str().unwrap().starts_with("lines.1.discount"), "{}", refused.text);
    till.server.post_json("/api/v1/invoice/cash", owner, &discounted).data(201);

    // The till's page is served, with every file, within its budget.
    let page = till.server.get("/till/", None);
    assert_eq!(page.status, 200);
    let script = page.text.split("src=\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let version = script.trim_start_matches("/till/").split('/').next().unwrap().to_string();
    let mut total = page.text.len();
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/till")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name != "index.html" {
            let file = till.server.get(&format!("/till/{version}/{name}"), None);
            assert_eq!(file.status, 200, "{name}");
            total += file.text.len();
        }
    }
    assert!(total < 150_000, "the till's files weigh {total} bytes");
}
