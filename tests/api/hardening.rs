//! What trying Arka from outside broke (issue 9), told as the stories that broke it: a POS
//! sending absurd amounts and control characters, a shop that had already stored an
//! overflowing balance, a partner registering a NUIS twice, an owner handing out another
//! company's till, and a receipt with a very long note.

use crate::common;
use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use serde_json::{Value, json};

/// The issue's amount: a hundredth of the largest decimal, so that 105 of them overflow a sum.
const HUNDREDTH_OF_DECIMAL: &str = "792281625142643375935439503.35";

fn cash_register(till: &Till, path: &str, body: Value) -> Reply {
    till.server.post_json(&format!("/api/v1/cash-register/{path}"), Some(&till.token), &body)
}

fn balance(server: &TestServer, token: &str) -> Reply {
    server.get("/api/v1/cash-register/balance", Some(token))
}

/// A JSON body with a raw number token (`1e30`, `9223372036854775808`) where `{}` stands.
fn with_number(template: &str, number: &str) -> Vec<u8> {
    template.replace("{}", number).into_bytes()
}

#[test]
fn the_issues_huge_deposits_and_every_other_absurd_amount_are_refused_naming_the_field() {
    let sim = SimServer::start();
    let till = open_till(&sim);

    for amount in [json!(HUNDREDTH_OF_DECIMAL), json!("9223372036854775807"), json!("100000000000.01")] {
        for path in ["deposit", "withdraw", "open-balance"] {
            cash_register(&till, path, json!({ "amount": amount })).assert_invalid("amount");
        }
    }
    // Raw JSON numbers beyond i64 and beyond any decimal.
    for number in ["9223372036854775808", "1e30", "1E+300"] {
        let reply = till.server.post_raw(
            "/api/v1/cash-register/deposit",
            Some(&till.token),
            "application/json",
            &with_number(r#"{"amount": {}}"#, number),
        );
        reply.assert_invalid("amount");
    }
    assert!(
        sim.requests().iter().all(|r| r["operation"] != "RegisterCashDeposit"),
        "nothing reached the CIS"
    );

    // A day opened with nothing in the drawer cannot be closed with an absurd count.
    cash_register(&till, "open-balance", json!({"amount": 0})).data(201);
    let close = json!({"counted": "9223372036854775807", "withdraw": HUNDREDTH_OF_DECIMAL});
    let reply = cash_register(&till, "close-balance", close);
    reply.assert_invalid("counted");
    reply.assert_invalid("withdraw");

    // The largest amount is accepted, and the balance reads it back.
    cash_register(&till, "deposit", json!({"amount": 100_000_000_000_i64})).data(201);
    assert_eq!(balance(&till.server, &till.token).data(200)["balance"], json!(100000000000.0));

    // Invoices: price, quantity, total, exchange rate, discount and v2 payments.
    // 1e30 is no decimal at all (refused as it is read); 2^63 is one, above the bound.
    let mut line = coffee_and_water("huge-1");
    line["lines"][0]["price"] = json!("1e30");
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &line);
    reply.assert_invalid("lines.0.price");
    let mut line = coffee_and_water("huge-1");
    line["lines"][0]["price"] = json!("9223372036854775808");
    line["lines"][1]["quantity"] = json!("9223372036854775808");
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &line);
    reply.assert_invalid("lines.0.price");
    reply.assert_invalid("lines.1.quantity");
    let mut total = coffee_and_water("huge-2");
    total["lines"][0]["total"] = json!(HUNDREDTH_OF_DECIMAL);
    total["invoice_discount_type"] = json!("amount");
    total["invoice_discount_value"] = json!("9223372036854775807");
    total["exchange_rate"] = json!("1000000.01");
    total["currency"] = json!("EUR");
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &total);
    for field in ["lines.0.total", "invoice_discount_value", "exchange_rate"] {
        reply.assert_invalid(field);
    }
    let mut v2 = coffee_and_water("huge-3");
    v2.as_object_mut().unwrap().remove("payment_method");
    v2["payment_methods"] = json!([{"type": "BANKNOTE", "amount": HUNDREDTH_OF_DECIMAL}]);
    till.server
        .post_json("/api/v2/invoice/cash", Some(&till.token), &v2)
        .assert_invalid("payment_methods.0.amount");

    // A product's prices reach invoice lines: the same bound.
    let product =
        json!({"name": "Kafe", "last_price": "1e30", "cost_price": "9223372036854775807", "vat_rate": "20"});
    let reply =
        till.server.post_json("/api/v1/products", Some(&manager(&till.server, till.company_id)), &product);
    reply.assert_invalid("last_price");
    reply.assert_invalid("cost_price");

    // Nothing of it was written: the opening and one deposit are all there is.
    let actions = till.server.get("/api/v1/cash-register/actions", Some(&till.token));
    assert_eq!(actions.data(200)["items"].as_array().unwrap().len(), 2);
}

#[test]
fn an_overflowing_balance_fails_its_own_requests_and_every_other_write_goes_on() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let partner = till.server.create_partner("second desk");
    let neighbour = onboard(&till.server, &partner, "M01234567A", "xy987zw654");

    // What an older Arka let in: 105 deposits of the issue's amount on the shop's till.
    let first = cash_register(&till, "deposit", json!({"amount": 100}));
    let id = first.data(201)["id"].as_i64().unwrap();
    arka::store::Store::open(&till.server.data_dir().join("arka.db"))
        .unwrap()
        .write_blocking(|tx| -> arka::store::Result<_> {
            tx.execute_batch(&format!(
                "UPDATE cash_actions SET amount = '{HUNDREDTH_OF_DECIMAL}' WHERE id = {id};
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 104)
                 INSERT INTO cash_actions (company_id, tcr_code, user_id, cash_day_id, action_type, operation,
                     purpose, automatic, amount, currency, transacted_at, business_day, year, transaction_no,
                     cash_action_no, description, third_party, client_id, fiscal_status, fiscal_uuid, fiscal_fic,
                     created_at)
                 SELECT company_id, tcr_code, user_id, cash_day_id, action_type, operation, purpose, automatic,
                     amount, currency, transacted_at, business_day, year, transaction_no + i,
                     cash_action_no, description, third_party, client_id, fiscal_status, fiscal_uuid || '-' || i,
                     fiscal_fic, created_at
                 FROM cash_actions, n WHERE id = {id}"
            ))?;
            Ok(())
        })
        .unwrap();

    // The shop's own balance cannot be summed: 500 for these requests, never a panic.
    balance(&till.server, &till.token).assert_error(500);
    cash_register(&till, "withdraw", json!({"amount": 50})).assert_error(500);

    // Everyone else keeps writing: another company's cash sale, the shop's own catalog and sales,
    // a new registration.
    let sale =
        till.server.post_json("/api/v1/invoice/cash", Some(&neighbour.token), &coffee_and_water("n-1"));
    assert!(sale.data(201)["invoice"]["fic"].is_string(), "{}", sale.text);
    let category = till.server.post_json(
        "/api/v1/product/categories",
        Some(&till.token),
        &json!({"name": "Pije", "color": "#336699"}),
    );
    category.data(201);
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("own-1")).data(201);
    register_company(&till.server, &partner, "N01234567B");
    // The sale opened the shop's day; closing it needs the balance too.
    cash_register(&till, "close-balance", json!({})).assert_error(500);
    cash_register(&till, "withdraw", json!({"amount": 50})).assert_error(500);
    let theirs = cash_register_of(&till.server, &neighbour.token, "deposit", json!({"amount": 10}));
    theirs.data(201);
    assert_eq!(balance(&till.server, &neighbour.token).data(200)["balance"], json!(295.0));
}

fn cash_register_of(server: &TestServer, token: &str, path: &str, body: Value) -> Reply {
    server.post_json(&format!("/api/v1/cash-register/{path}"), Some(token), &body)
}

#[test]
fn control_characters_are_refused_on_every_route_that_feeds_a_fiscal_document() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let server = &till.server;
    let sent_before = sim.requests().len();

    let mut invoice = coffee_and_water("ctl-\u{0}1");
    invoice["lines"][0]["product_name"] = json!("a\u{0}b");
    invoice["lines"][0]["product_code"] = json!("K\u{1f}1");
    invoice["lines"][1]["unit"] = json!("cop\u{0}ë");
    invoice["lines"][1]["unit_code"] = json!("C\u{1f}");
    invoice["client"] = json!({"name": "Ana\u{1f}", "address": "Rruga\u{0}", "city": "Tiranë", "id": {"type": "ID", "id": "I\u{1f}"}});
    invoice["notes"] = json!("shënim\u{0}");
    let reply = server.post_json("/api/v1/invoice/cash", Some(&till.token), &invoice);
    for field in [
        "internalId",
        "lines.0.product_name",
        "lines.0.product_code",
        "lines.1.unit",
        "lines.1.unit_code",
        "client.name",
        "client.address",
        "client.id.id",
        "notes",
    ] {
        reply.assert_invalid(field);
    }
    let v2 = server.post_json("/api/v2/invoice/noncash", Some(&till.token), &invoice);
    v2.assert_invalid("lines.0.product_name");

    cash_register(&till, "deposit", json!({"amount": 10, "description": "x\u{0}", "third_party": "\u{1f}"}))
        .assert_invalid("description");
    let branch = branch_body("Qendër\u{1f}", "ab123cd456");
    server
        .post_json(&format!("/api/v1/on-boarding/branch/{}", till.branch_id), Some(&till.token), &branch)
        .assert_invalid("name");
    let partner = server.create_partner("desk 2");
    let company = registration_body("M01234567A", "Dyqani\u{0}", "m@shop.al");
    server.post_json("/api/v1/register", Some(&partner), &company).assert_invalid("name");
    let product = json!({"name": "Kafe\u{0}", "last_price": 100, "vat_rate": "20"});
    server
        .post_json("/api/v1/products", Some(&manager(server, till.company_id)), &product)
        .assert_invalid("name");
    let client = json!({"type": "company", "company": {"name": "Ushqimore\u{1f}"}, "address": {"line": "Rr.", "city": "Tiranë"}});
    server
        .post_json("/api/v2/clients", Some(&cashier(server, till.company_id)), &client)
        .assert_invalid("company.name");
    let flat = json!({"client_type": "COMPANY", "name": "Ushqimore", "address": "Rruga\u{0}"});
    server
        .post_json("/api/v1/clients", Some(&cashier(server, till.company_id)), &flat)
        .assert_invalid("address");
    assert_eq!(sim.requests().len(), sent_before, "nothing reached the CIS");

    // Tabs and line breaks are text XML carries: the sale goes through.
    let mut fine = coffee_and_water("ctl-ok");
    fine["lines"][0]["product_name"] = json!("Kafe\te zezë");
    fine["notes"] = json!("rreshti 1\nrreshti 2");
    assert!(
        server.post_json("/api/v1/invoice/cash", Some(&till.token), &fine).data(201)["invoice"]["fic"]
            .is_string()
    );
}

#[test]
fn a_user_is_given_only_a_till_of_the_company_and_of_the_users_own_unit() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let server = &till.server;
    let partner = server.create_partner("second desk");
    let neighbour = onboard(server, &partner, "M01234567A", "xy987zw654");
    let owner = format!("/api/v1/on-boarding/user/{}", till.user_id);

    for code in [neighbour.tcr_code.as_str(), "zz999zz999"] {
        let reply = server.post_json(&owner, Some(&till.token), &json!({ "fiscalTcrCode": code }));
        reply.assert_invalid("fiscalTcrCode");
        let cashier = json!({"name": "Blerim", "email": format!("b.{code}@shop.al"), "branchId": till.branch_id,
                             "operatorCode": "op123op123", "fiscalTcrCode": code});
        server
            .post_json("/api/v1/on-boarding/user", Some(&till.token), &cashier)
            .assert_invalid("fiscalTcrCode");
    }
    // The neighbour's balance and actions stay the neighbour's.
    assert_eq!(balance(server, &till.token).data(200)["fiscal_tcr_code"], json!(till.tcr_code));

    // The shop's own till, but for a user of its second unit: refused too.
    let second = server.post_json(
        "/api/v1/on-boarding/branch",
        Some(&till.token),
        &branch_body("Dyqani Kombinat", "kb111kb111"),
    );
    let second_unit = second.data(201)["branch"]["id"].as_i64().unwrap();
    assert_ne!(second_unit, till.branch_id, "the registration's unit already has a code");
    let elsewhere = json!({"name": "Drita", "email": "drita@shop.al", "branchId": second_unit,
                           "operatorCode": "op124op124", "fiscalTcrCode": till.tcr_code});
    server
        .post_json("/api/v1/on-boarding/user", Some(&till.token), &elsewhere)
        .assert_invalid("fiscalTcrCode");

    // In the till's own unit it is fine.
    let here = json!({"name": "Drita", "email": "drita@shop.al", "branchId": till.branch_id,
                      "operatorCode": "op124op124", "fiscalTcrCode": till.tcr_code});
    let cashier = server.post_json("/api/v1/on-boarding/user", Some(&till.token), &here);
    let cashier = cashier.data(201)["user"].clone();
    assert_eq!(cashier["fiscalTcrCode"], json!(till.tcr_code));
    let path = format!("/api/v1/on-boarding/user/{}", cashier["id"]);

    // Moving her to the second unit must leave the first unit's till behind, in the same request.
    let moved = server.post_json(&path, Some(&till.token), &json!({"branchId": second_unit}));
    moved.assert_invalid("fiscalTcrCode");
    let moved =
        server.post_json(&path, Some(&till.token), &json!({"branchId": second_unit, "fiscalTcrCode": null}));
    let moved = moved.data(200)["user"].clone();
    assert_eq!(
        (moved["branchId"].as_i64(), moved["fiscalTcrCode"].clone()),
        (Some(second_unit), Value::Null)
    );
    // Back in the till's unit she gets it again; an update without the field keeps it.
    server
        .post_json(
            &path,
            Some(&till.token),
            &json!({"branchId": till.branch_id, "fiscalTcrCode": till.tcr_code}),
        )
        .data(200);
    let renamed = server.post_json(&path, Some(&till.token), &json!({"name": "Drita H."}));
    assert_eq!(renamed.data(200)["user"]["fiscalTcrCode"], json!(till.tcr_code));
}

#[test]
fn a_nuis_is_registered_once_in_production_and_the_sandbox_keeps_its_rule() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let first = register_company(&server, &partner, "L41323036D");

    for nuis in ["L41323036D", "l41323036d"] {
        let again = registration_body(nuis, "Dyqani i Dytë", &format!("other.{nuis}@shop.al"));
        let reply = server.post_json("/api/v1/register", Some(&partner), &again);
        reply.assert_error(409);
        let errors = reply.body["errors"].as_array().unwrap();
        assert!(errors.iter().any(|e| e.as_str().unwrap().starts_with("nuis: ")), "{}", reply.text);
    }
    assert_eq!(server.get("/api/v1/account", Some(&first.token)).data(200)["nipt"], "L41323036D");
    register_company(&server, &partner, "M01234567A");

    // The sandbox: the sandbox NUIS joins the one sandbox company again and again; any other
    // NUIS is a company of its own, once.
    let sandbox = TestServer::sandbox();
    let a = register_sandbox(&sandbox);
    let b = register_sandbox(&sandbox);
    assert_eq!(a.company_id, b.company_id);
    let own = registration_body("L41323036D", "Dyqani", "x@shop.al");
    sandbox.post_json("/api/v1/register", Some(SANDBOX_PARTNER_TOKEN), &own).data(201);
    let own = registration_body("L41323036D", "Dyqani", "y@shop.al");
    sandbox.post_json("/api/v1/register", Some(SANDBOX_PARTNER_TOKEN), &own).assert_error(409);
}

#[test]
fn notes_are_bounded_and_a_note_at_the_limit_prints_on_both_papers() {
    let sim = SimServer::start();
    let till = open_till(&sim);

    // The issue's note: a very long string without a space.
    let mut long = coffee_and_water("notes-1");
    long["notes"] = json!("x".repeat(1_900_000));
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &long).assert_invalid("notes");
    long["notes"] = json!("y".repeat(1001));
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &long).assert_invalid("notes");

    let mut at_limit = coffee_and_water("notes-2");
    let note = format!("SHENIMI{}", "z".repeat(993));
    at_limit["notes"] = json!(note);
    let id = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &at_limit).data(201)["invoice"]
        ["id"]
        .as_i64()
        .unwrap();
    for format in ["a4", "receipt"] {
        let pdf =
            till.server.get_bytes(&format!("/api/v1/invoice/print/{id}?format={format}"), Some(&till.token));
        assert!(pdf.starts_with(b"%PDF-"), "{format}");
        let text = pdftotext(&pdf);
        assert!(text.contains("SHENIMIzzz"), "{format}: the note's start is printed:\n{text}");
    }
}

#[test]
fn long_texts_are_refused_where_they_used_to_be_unbounded() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let server = &till.server;
    let mut invoice = coffee_and_water("long-1");
    invoice["lines"][0]["product_name"] = json!("n".repeat(256));
    invoice["lines"][0]["unit"] = json!("u".repeat(51));
    invoice["client"] = json!({"name": "n".repeat(256), "address": "a".repeat(201), "city": "c".repeat(101), "id": "1".repeat(21)});
    invoice["doc_type"] = json!("3".repeat(11));
    let reply = server.post_json("/api/v1/invoice/cash", Some(&till.token), &invoice);
    for field in ["client.name", "client.address", "client.city", "client.id", "doc_type"] {
        reply.assert_invalid(field);
    }
    let mut lines = coffee_and_water("long-2");
    lines["lines"][0]["product_name"] = json!("n".repeat(256));
    lines["lines"][0]["unit"] = json!("u".repeat(51));
    let reply = server.post_json("/api/v1/invoice/cash", Some(&till.token), &lines);
    reply.assert_invalid("lines.0.product_name");
    reply.assert_invalid("lines.0.unit");

    let partner = server.create_partner("desk 2");
    let long_email = format!("{}@shop.al", "a".repeat(300));
    let company = registration_body("M01234567A", "Dyqani", &long_email);
    server.post_json("/api/v1/register", Some(&partner), &company).assert_invalid("email");
    let cashier =
        json!({"name": "B", "email": long_email, "branchId": till.branch_id, "operatorCode": "op123op123"});
    server.post_json("/api/v1/on-boarding/user", Some(&till.token), &cashier).assert_invalid("email");

    // A list's search text.
    let query = "q".repeat(256);
    server.get(&format!("/api/v1/invoice?query={query}"), Some(&till.token)).assert_invalid("query");
    let reader = common::cashier(server, till.company_id);
    server.get(&format!("/api/v2/clients?query={query}"), Some(&reader)).assert_invalid("query");
    server.get(&format!("/api/v1/invoice?query={}", &query[..255]), Some(&till.token)).data(200);
}

#[test]
fn a_certificate_password_of_megabytes_is_refused_before_any_key_derivation() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = register_company(&server, &partner, "L41323036D");
    let cert = make_certificate("/CN=L41323036D/O=Dyqani", "pw");
    let huge = "p".repeat(1_000_000);
    let reply = server.post_multipart(
        "/api/v1/on-boarding/certificate",
        Some(&shop.token),
        &[Part::File("certificate_file", "shop.p12", &cert.legacy_p12), Part::Text("password", &huge)],
    );
    reply.assert_invalid("password");
    let json = json!({"certificate_file": base64(&cert.legacy_p12), "password": "p".repeat(257)});
    server.post_json("/api/v1/on-boarding/certificate", Some(&shop.token), &json).assert_invalid("password");
    let json = json!({"certificate_file": base64(&cert.legacy_p12), "password": "pw"});
    server.post_json("/api/v1/on-boarding/certificate", Some(&shop.token), &json).data(201);
}
