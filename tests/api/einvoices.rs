//! E-invoices, as a POS issues them over HTTP: fiscalized by the CIS, registered with the
//! e-invoice platform (the simulator, a real server on loopback) under an EIC, found in the
//! list and details, printed from the platform's PDF; corrected with a credit note; kept with
//! its FIC when the platform does not answer, and registered later by the queue.

use std::time::Duration;

use crate::common;
use crate::common::einvoice::{assert_valid_request, assert_valid_ubl, ubl_of};
use crate::common::sim::SimServer;
use crate::common::till::{Till, open_till};
use crate::common::{bank_account_body, eventually, pdftotext};
use serde_json::{Value, json};

/// A buyer the simulator's taxpayer register knows.
const BUYER: &str = "K81234001A";

/// Opens a till with a bank account; returns it and the account's id.
fn shop(sim: &SimServer) -> (Till, i64) {
    let till = open_till(sim);
    let account = till.server.post_json(
        "/api/v1/on-boarding/bank-account",
        Some(&till.token),
        &bank_account_body("BKT"),
    );
    let id = account.data(201)["bankAccount"]["id"].as_i64().unwrap();
    (till, id)
}

/// Two coffees sold on account to `BUYER`: 240.00 ALL, due in a month.
fn einvoice(internal_id: &str, bank_account_id: i64) -> Value {
    json!({
        "internalId": internal_id,
        "doc_type": "380",
        "process": "P1",
        "due_date": (chrono::Utc::now() + chrono::Duration::days(30)).date_naive().to_string(),
        "bank_account_id": bank_account_id,
        "payment_method": "ACCOUNT",
        "notes": "Pagesa brenda muajit",
        "client": {"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": BUYER}, "address": "Rruga e Kavajës 112", "city": "Tiranë"},
        "lines": [{"product_name": "Kafe", "product_code": "K1", "unit": "copë", "unit_code": "C62", "quantity": 2, "price": 120, "total": 240, "vat": 20}],
    })
}

/// `einvoice` as a v2 body: the payment in `payment_methods`, of `kind`.
fn einvoice_v2(internal_id: &str, bank_account_id: i64, kind: &str) -> Value {
    let mut body = einvoice(internal_id, bank_account_id);
    body.as_object_mut().unwrap().remove("payment_method");
    body["payment_methods"] = json!([{"type": kind, "amount": 240}]);
    body
}

/// The simulator's logged requests of `operation`.
fn logged(sim: &SimServer, operation: &str) -> Vec<Value> {
    sim.requests().into_iter().filter(|r| r["operation"] == operation).collect()
}

#[test]
fn an_einvoice_is_issued_found_by_its_eic_and_printed_from_the_platform() {
    let sim = SimServer::start();
    let (till, account) = shop(&sim);
    let (server, token) = (&till.server, Some(till.token.as_str()));

    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-1", account));
    let invoice = reply.data(201)["invoice"].clone();
    let eic = invoice["eic"].as_str().expect("the EIC is in the answer").to_string();
    assert!(invoice["fic"].is_string() && invoice["tcrCode"].is_null(), "{invoice}");
    assert!(invoice["pdf"].as_str().unwrap().ends_with(&format!("/api/v1/invoice/print-eic/{eic}")));
    let registered = sim.registered();
    let held = &registered["einvoices"][0];
    assert_eq!((held["eic"].as_str(), held["doc_type"].as_str()), (Some(eic.as_str()), Some("380")));
    assert_eq!(held["fic"], invoice["fic"]);
    assert_eq!(held["buyer_nuis"], BUYER);

    // Found in the list by its type, and in the details, with its EIC and process.
    let list = server.get("/api/v1/invoice?type=EINVOICE", token);
    let items = list.data(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!((items[0]["eic"].as_str(), items[0]["process"].as_str()), (Some(eic.as_str()), Some("P1")));
    assert_eq!((items[0]["type"].as_str(), items[0]["doc_type"].as_str()), (Some("EINVOICE"), Some("380")));
    assert!(
        server.get("/api/v1/invoice?type=NONCASH", token).data(200)["items"].as_array().unwrap().is_empty()
    );
    let id = invoice["id"].as_i64().unwrap();
    let details = server.get(&format!("/api/v2/invoice/{id}/details"), token);
    assert_eq!(details.data(200)["invoice"]["eic"], eic.as_str());
    let by_internal_id = server.post_json("/api/v2/invoice/details/e-1", token, &json!({}));
    assert_eq!(by_internal_id.data(200)["invoice"]["eic"], eic.as_str());

    // The platform's PDF, by EIC; an EIC it does not know is 404.
    let pdf = server.get_bytes(&format!("/api/v1/invoice/print-eic/{eic}"), token);
    assert!(pdf.starts_with(b"%PDF-"));
    let text = pdftotext(&pdf);
    assert!(text.contains(&eic) && text.contains("240.00"), "{text}");
    let reply = server.get("/api/v2/invoice/print-eic/8a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d", token);
    reply.assert_error(404);
    server.get("/api/v1/invoice/print-eic/not-an-eic%00", token).assert_error(404);

    // v2: 200, with payment_methods.
    let reply = server.post_json("/api/v2/invoice/e-invoice", token, &einvoice_v2("e-2", account, "ACCOUNT"));
    let invoice = reply.data(200)["invoice"].clone();
    assert!(invoice["eic"].is_string());
    assert_eq!(invoice["payment_methods"][0]["type"], "ACCOUNT");

    // Every request Arka sent the e-invoice service passes its schema and the signature oracle,
    // and every UBL document passes the UBL 2.1 schema and the signature oracle too.
    for operation in ["GetTaxpayers", "RegisterEinvoice", "GetEinvoices"] {
        let requests = logged(&sim, operation);
        assert!(!requests.is_empty(), "{operation} was sent");
        for record in &requests {
            assert_valid_request(record);
        }
    }
    for record in logged(&sim, "RegisterEinvoice") {
        let (ubl, credit_note) = ubl_of(&record);
        assert!(!credit_note);
        assert!(ubl.contains("<cbc:ProfileID>P1</cbc:ProfileID>") && ubl.contains("#AAI#</cbc:Note>"));
        assert_valid_ubl(&ubl, credit_note);
    }
    let sent = logged(&sim, "RegisterInvoice");
    assert!(sent.iter().all(|r| r["body"].as_str().unwrap().contains("IsEinvoice=\"true\"")));
}

/// The `cac:PaymentMeans` element of a UBL document.
fn payment_means(ubl: &str) -> &str {
    let start = ubl.find("<cac:PaymentMeans>").unwrap_or_else(|| panic!("no PaymentMeans in {ubl}"));
    let end = start + ubl[start..].find("</cac:PaymentMeans>").unwrap() + "</cac:PaymentMeans>".len();
    &ubl[start..end]
}

/// The account of `bank_account_body`, as EN 16931 (BR-61) wants it for a credit transfer.
const PAYEE_ACCOUNT: &str = "<cac:PayeeFinancialAccount><cbc:ID>AL47212110090000000235698741</cbc:ID><cbc:Name>Dyqani Ana sh.p.k.</cbc:Name><cac:FinancialInstitutionBranch><cbc:ID>BKTRALTR</cbc:ID></cac:FinancialInstitutionBranch></cac:PayeeFinancialAccount>";

#[test]
fn the_registered_ubl_names_the_account_the_buyer_pays_into() {
    let sim = SimServer::start();
    let (till, account) = shop(&sim);
    let (server, token) = (&till.server, Some(till.token.as_str()));

    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-iban", account));
    assert!(reply.data(201)["invoice"]["eic"].is_string());
    server
        .post_json("/api/v2/invoice/e-invoice", token, &einvoice_v2("e-iban-2", account, "TRANSFER"))
        .data(200);

    // What the platform received, signed and registered, for v1 (ACCOUNT) and v2 (TRANSFER).
    let sent = logged(&sim, "RegisterEinvoice");
    assert_eq!(sent.len(), 2);
    for record in &sent {
        let (ubl, credit_note) = ubl_of(record);
        assert_eq!(
            payment_means(&ubl),
            format!(
                "<cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>{PAYEE_ACCOUNT}</cac:PaymentMeans>"
            )
        );
        assert_valid_ubl(&ubl, credit_note);
    }
}

#[test]
fn a_credit_note_corrects_an_einvoice_and_goes_to_the_platform_as_a_credit_note() {
    let sim = SimServer::start();
    let (till, account) = shop(&sim);
    let (server, token) = (&till.server, Some(till.token.as_str()));
    let original = server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-1", account));
    let original = original.data(201)["invoice"].clone();

    let mut credit = einvoice("e-1-credit", account);
    credit["doc_type"] = json!("381");
    credit["process"] = json!("P9");
    credit["original_invoice_iic"] = original["iic"].clone();
    credit.as_object_mut().unwrap().remove("due_date");
    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &credit);
    let note = reply.data(201)["invoice"].clone();
    assert!(note["eic"].is_string() && note["eic"] != original["eic"]);
    let held: Vec<Value> = sim.registered()["einvoices"].as_array().unwrap().clone();
    assert_eq!(held.iter().map(|e| e["doc_type"].as_str().unwrap()).collect::<Vec<_>>(), ["380", "381"]);
    let record = logged(&sim, "RegisterEinvoice").pop().unwrap();
    let (ubl, credit_note) = ubl_of(&record);
    assert!(credit_note, "a 381 is a UBL CreditNote");
    assert!(ubl.contains("<cac:InvoiceDocumentReference><cbc:ID>1/"), "it names the invoice it corrects");
    assert!(payment_means(&ubl).contains(PAYEE_ACCOUNT), "{ubl}");
    assert_valid_ubl(&ubl, true);
    let fiscal = logged(&sim, "RegisterInvoice").pop().unwrap();
    let iic = original["iic"].as_str().unwrap();
    assert!(fiscal["body"].as_str().unwrap().contains(&format!("<CorrectiveInv IICRef=\"{iic}\"")));

    // A credit note outside the correction processes, or without its original, is refused.
    let mut wrong = credit.clone();
    wrong["internalId"] = json!("e-wrong");
    wrong["process"] = json!("P1");
    wrong.as_object_mut().unwrap().remove("original_invoice_iic");
    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &wrong);
    reply.assert_invalid("process");
    reply.assert_invalid("original_invoice_iic");
}

#[test]
fn the_platform_not_answering_after_fiscalization_keeps_the_invoice_and_its_eic_arrives_later() {
    let sim = SimServer::start();
    let (till, account) = shop(&sim);
    let (server, token) = (&till.server, Some(till.token.as_str()));
    sim.set_mode(json!({"mode": "down", "operation": "RegisterEinvoice"}));

    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-late", account));
    let invoice = reply.data(201)["invoice"].clone();
    assert!(reply.body["message"].as_str().unwrap().contains("queued"), "{}", reply.text);
    assert!(invoice["fic"].is_string(), "fiscalized: {invoice}");
    assert!(invoice.get("eic").is_none(), "no EIC yet: {invoice}");
    let details =
        || server.post_json("/api/v1/invoice/details/e-late", token, &json!({})).data(200)["invoice"].clone();
    assert!(details().get("eic").is_none());
    assert_eq!(till.account()["cisConnection"]["state"], "online", "the platform away is not the CIS away");
    // A sale goes on meanwhile: the fiscalization service is there.
    let cash = server.post_json("/api/v1/invoice/cash", token, &common::till::coffee_and_water("cash-1"));
    assert!(cash.data(201)["invoice"]["fic"].is_string());

    sim.set_mode(json!({"mode": "ok", "operation": "RegisterEinvoice"}));
    eventually("the queue registers the e-invoice", Duration::from_secs(30), || {
        details().get("eic").is_some()
    });
    let eic = details()["eic"].as_str().unwrap().to_string();
    assert!(details()["pdf"].as_str().unwrap().ends_with(&format!("print-eic/{eic}")));
    let sent = logged(&sim, "RegisterEinvoice");
    assert!(sent.len() >= 2, "sent again: {sent:?}");
    assert!(sent.iter().all(|r| r["uuid"] == sent[0]["uuid"]), "the same message, sent again");
    assert_eq!(sent.last().unwrap()["outcome"], "accepted");
    for record in &sent {
        assert_valid_request(record);
    }
    assert_eq!(sim.registered()["einvoices"][0]["fic"], invoice["fic"]);
}

#[test]
fn nothing_is_kept_when_the_cis_or_the_platform_does_not_answer_and_a_refusal_is_a_soft_failure() {
    let sim = SimServer::start();
    let (till, account) = shop(&sim);
    let (server, token) = (&till.server, Some(till.token.as_str()));
    let not_issued = || server.post_json("/api/v1/invoice/details/e-1", token, &json!({})).assert_error(404);

    // The platform away before fiscalization (the buyer cannot be checked): 503, nothing kept.
    sim.set_mode(json!({"mode": "down", "service": "einvoice"}));
    server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-1", account)).assert_error(503);
    not_issued();
    // The CIS away: 503, nothing kept.
    sim.set_mode(json!({"mode": "ok"}));
    sim.set_mode(json!({"mode": "down", "service": "fiscalization"}));
    server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-1", account)).assert_error(503);
    not_issued();
    // The CIS refuses it: 200 with status false and the reason; nothing kept.
    sim.set_mode(json!({"mode": "fault", "fault_code": "11", "service": "fiscalization"}));
    let online = || till.account()["cisConnection"]["state"] == "online";
    eventually("the CIS answers the probe again", Duration::from_secs(20), online);
    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-1", account));
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().starts_with("[11]"));
    not_issued();
    // Back: the same internalId goes through.
    sim.set_mode(json!({"mode": "ok"}));
    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-1", account));
    assert!(reply.data(201)["invoice"]["eic"].is_string());
    server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-1", account)).assert_error(409);
}

#[test]
fn bad_einvoice_bodies_get_the_validation_envelope_and_the_server_goes_on() {
    let sim = SimServer::start();
    let (till, account) = shop(&sim);
    let (server, token) = (&till.server, Some(till.token.as_str()));
    let post = |body: &Value| server.post_json("/api/v1/invoice/e-invoice", token, body);

    let mut bare = einvoice("bad-1", account);
    for field in ["doc_type", "process", "due_date"] {
        bare.as_object_mut().unwrap().remove(field);
    }
    let reply = post(&bare);
    assert_eq!(reply.invalid_fields(), ["doc_type", "process"], "{}", reply.text);
    let mut no_due = einvoice("bad-1", account);
    no_due.as_object_mut().unwrap().remove("due_date");
    post(&no_due).assert_invalid("due_date");

    let mut body = einvoice("bad-2", account);
    body["process"] = json!("P13");
    body["doc_type"] = json!("382");
    let reply = post(&body);
    reply.assert_invalid("process");
    reply.assert_invalid("doc_type");

    let mut no_account = einvoice("bad-3", account);
    no_account.as_object_mut().unwrap().remove("bank_account_id");
    post(&no_account).assert_invalid("bank_account_id");

    let mut unknown_buyer = einvoice("bad-4", account);
    unknown_buyer["client"]["id"]["id"] = json!("L99999999Z");
    post(&unknown_buyer).assert_invalid("client.id");

    let mut huge = einvoice("bad-5", account);
    huge["lines"][0]["quantity"] = json!(1e30);
    post(&huge).assert_invalid("lines.0.quantity");
    let mut control = einvoice("bad-6", account);
    control["process"] = json!("P1\u{0}");
    assert_eq!(post(&control).status, 422);
    let mut foreign_account = einvoice("bad-7", account);
    foreign_account["bank_account_id"] = json!(i64::MAX);
    post(&foreign_account).assert_invalid("bank_account_id");
    let mut huge_account = einvoice("bad-8", account);
    huge_account["bank_account_id"] = json!(9.3e18);
    assert_eq!(post(&huge_account).status, 422);

    // Nothing was written, and the next good body goes through.
    assert!(sim.registered()["einvoices"].as_array().unwrap().is_empty());
    assert!(post(&einvoice("good", account)).data(201)["invoice"]["eic"].is_string());
}

#[test]
fn the_registers_own_fault_on_a_taxpayer_look_up_is_not_delivered_and_not_a_refusal() {
    let sim = SimServer::start();
    let (till, account) = shop(&sim);
    let (server, token) = (&till.server, Some(till.token.as_str()));
    let not_issued = |id: &str| {
        server.post_json(&format!("/api/v1/invoice/details/{id}"), token, &json!({})).assert_error(404)
    };

    // 900 (internal error) and 920 (outage) are the CIS's own trouble: 503 on both routes, as
    // when it does not answer; nothing is kept.
    for code in ["900", "920"] {
        sim.set_mode(json!({"mode": "fault", "fault_code": code, "operation": "GetTaxpayers"}));
        let search = server.get(&format!("/api/v1/client/search?nipt={BUYER}"), token);
        search.assert_error(503);
        assert!(!search.text.contains(&format!("[{code}]")), "{}", search.text);
        let (v1, v2) = (format!("e-{code}-1"), format!("e-{code}-2"));
        for (version, id, body) in
            [("v1", &v1, einvoice(&v1, account)), ("v2", &v2, einvoice_v2(&v2, account, "ACCOUNT"))]
        {
            let reply = server.post_json(&format!("/api/{version}/invoice/e-invoice"), token, &body);
            reply.assert_error(503);
            assert!(
                reply.body["message"].as_str().unwrap().contains("Retry with the same internalId"),
                "{}",
                reply.text
            );
            not_issued(id);
        }
    }
    let faults: Vec<Value> =
        logged(&sim, "GetTaxpayers").into_iter().filter(|r| r["outcome"] == "fault").collect();
    assert_eq!(faults.len(), 6, "every look-up met the fault: {faults:?}");

    // A fault that blames the request stays a refusal: 200 with status false and its code.
    sim.set_mode(json!({"mode": "fault", "fault_code": "11", "operation": "GetTaxpayers"}));
    let search = server.get(&format!("/api/v1/client/search?nipt={BUYER}"), token);
    search.assert_error(200);
    assert!(search.body["message"].as_str().unwrap().starts_with("[11]"), "{}", search.text);
    server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-11", account)).assert_error(200);
    not_issued("e-11");

    // Back: the same internalIds go through.
    sim.set_mode(json!({"mode": "ok", "operation": "GetTaxpayers"}));
    server.get(&format!("/api/v1/client/search?nipt={BUYER}"), token).data(200);
    let reply = server.post_json("/api/v1/invoice/e-invoice", token, &einvoice("e-900-1", account));
    assert!(reply.data(201)["invoice"]["eic"].is_string());
}
