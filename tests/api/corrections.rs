//! Documents that correct another: a credit note (`doc_type` 381 with `original_invoice_iic`, on
//! a non-cash invoice or an e-invoice of process P9) or a debit note follows the cancellation's
//! scope (a cashier corrects their own invoices of the day, a manager any), is audited, and the
//! reversals report lists a credit note; and the name Arka gives a cancellation without one of
//! its own, `<sale's internalId>/cancel-<n>`, is never a name a cashier can take first.

use crate::common::bank_account_body;
use crate::common::sim::SimServer;
use crate::common::snapshot::{changed, snapshot};
use crate::common::till::{Till, coffee_and_water, on_account, open_till};
use chrono::Utc;
use serde_json::{Value, json};

/// A cashier of the shop with a till of their own: their token.
fn cashier_with_till(till: &Till, email: &str, till_name: &str) -> String {
    let server = &till.server;
    let device = json!({"branchId": till.branch_id, "name": till_name, "fromDate": Utc::now().date_naive().to_string()});
    let reply = server.post_json("/api/v1/on-boarding/fiscal-device", Some(&till.token), &device);
    let tcr = reply.data(201)["device"]["fiscalTcrCode"].as_str().unwrap().to_string();
    let body = json!({"name": "Arkëtar", "email": email, "branchId": till.branch_id,
                      "operatorCode": "op321op321", "fiscalTcrCode": tcr});
    let reply = server.post_json("/api/v1/on-boarding/user", Some(&till.token), &body);
    reply.data(201)["user"]["token"].as_str().unwrap().to_string()
}

/// `base` as a credit note (381) of the invoice `iic`.
fn credit_note(base: Value, internal_id: &str, iic: &Value) -> Value {
    let mut body = base;
    body["internalId"] = json!(internal_id);
    body["doc_type"] = json!("381");
    body["original_invoice_iic"] = iic.clone();
    body
}

/// Two coffees sold on account as an e-invoice of `process`.
fn einvoice(internal_id: &str, bank_account_id: i64, process: &str) -> Value {
    json!({
        "internalId": internal_id,
        "doc_type": "380",
        "process": process,
        "due_date": (Utc::now() + chrono::Duration::days(30)).date_naive().to_string(),
        "bank_account_id": bank_account_id,
        "payment_method": "ACCOUNT",
        "client": {"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": "K81234001A"}, "address": "Rruga e Kavajës 112", "city": "Tiranë"},
        "lines": [{"product_name": "Kafe", "product_code": "K1", "unit": "copë", "unit_code": "C62", "quantity": 2, "price": 120, "total": 240, "vat": 20}],
    })
}

fn audit_actions(till: &Till) -> Vec<Value> {
    till.server.get("/api/v1/audit?action=invoice.correct", Some(&till.token)).data(200)["entries"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_cashier_corrects_only_their_own_invoices_of_the_day_and_every_correction_is_audited_and_reported() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let server = &till.server;
    let (first, second) =
        (cashier_with_till(&till, "a@shop.al", "Kasa 2"), cashier_with_till(&till, "b@shop.al", "Kasa 3"));
    let account =
        server.post_json("/api/v1/on-boarding/bank-account", Some(&till.token), &bank_account_body("BKT"));
    let account = account.data(201)["bankAccount"]["id"].as_i64().unwrap();
    let sold = server.post_json("/api/v1/invoice/noncash", Some(&first), &on_account("n-1"));
    let sold = sold.data(201)["invoice"].clone();
    let einvoiced =
        server.post_json("/api/v1/invoice/e-invoice", Some(&first), &einvoice("e-1", account, "P1"));
    let einvoiced = einvoiced.data(201)["invoice"].clone();

    // Another cashier: refused, nothing issued, nothing at the CIS.
    let db = server.data_dir().join("arka.db");
    let before = (snapshot(&db), sim.registered());
    let theirs = credit_note(on_account("n-2"), "n-2", &sold["iic"]);
    server.post_json("/api/v1/invoice/noncash", Some(&second), &theirs).assert_error(403);
    let mut debit = theirs.clone();
    debit["doc_type"] = json!("383");
    server.post_json("/api/v1/invoice/noncash", Some(&second), &debit).assert_error(403);
    let p9 = credit_note(einvoice("e-2", account, "P9"), "e-2", &einvoiced["iic"]);
    server.post_json("/api/v1/invoice/e-invoice", Some(&second), &p9).assert_error(403);
    let mut p10 = einvoice("e-3", account, "P10");
    p10["original_invoice_iic"] = einvoiced["iic"].clone();
    server.post_json("/api/v1/invoice/e-invoice", Some(&second), &p10).assert_error(403);
    let tables = changed(&before.0, &snapshot(&db));
    assert!(tables.is_empty(), "a refused correction changed {tables:?}");
    assert_eq!(sim.registered(), before.1, "nothing reached the CIS");
    assert!(audit_actions(&till).is_empty());

    // The cashier who sold, on the day, and a manager or an owner at any time: each audited.
    let own = server.post_json(
        "/api/v1/invoice/noncash",
        Some(&first),
        &credit_note(on_account("n-3"), "n-3", &sold["iic"]),
    );
    let own = own.data(201)["invoice"].clone();
    let by_owner = server.post_json("/api/v1/invoice/e-invoice", Some(&till.token), &p9);
    let by_owner = by_owner.data(201)["invoice"].clone();
    let entries = audit_actions(&till);
    assert_eq!(entries.len(), 2, "{entries:?}");
    let credit = entries.iter().find(|e| e["after"]["number"] == own["number"]).unwrap();
    assert_eq!(credit["object"], json!(sold["id"].to_string()));
    assert_eq!(credit["before"]["iic"], sold["iic"]);
    assert_eq!(credit["after"]["doc_type"], "381");
    assert_eq!(credit["role"], "cashier");
    assert!(
        entries.iter().any(|e| e["object"] == json!(einvoiced["id"].to_string()) && e["role"] == "owner")
    );

    // The reversals report lists both credit notes beside the cancellations, taking back their gross.
    let day = Utc::now().date_naive();
    let reversals = server.get(&format!("/api/v1/reports/reversals?from={day}&to={day}"), Some(&till.token));
    let reversals = reversals.data(200).clone();
    let items = reversals["items"].as_array().unwrap();
    let listed: Vec<&Value> = items.iter().map(|i| &i["id"]).collect();
    assert!(listed.contains(&&own["id"]) && listed.contains(&&by_owner["id"]), "{reversals}");
    let of_own = items.iter().find(|i| i["id"] == own["id"]).unwrap();
    assert_eq!(of_own["gross"], json!(-285.0));
    assert_eq!(of_own["original_invoice_id"], sold["id"]);
    assert_eq!(reversals["totals"]["count"], json!(2));
    assert_eq!(reversals["totals"]["gross"], json!(-525.0));
}

#[test]
fn the_name_of_a_cancellation_cannot_be_taken_by_a_sale_first() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let server = &till.server;
    let (first, second) =
        (cashier_with_till(&till, "a@shop.al", "Kasa 2"), cashier_with_till(&till, "b@shop.al", "Kasa 3"));
    server.post_json("/api/v1/invoice/cash", Some(&first), &coffee_and_water("t-1")).data(201);

    // Another cashier tries to take the name the cancellation of t-1 will get: refused.
    for taken in ["t-1/cancel-1", "t-1/cancel-2", "x/cancel-10"] {
        let reply = server.post_json("/api/v1/invoice/cash", Some(&second), &coffee_and_water(taken));
        reply.assert_invalid("internalId");
        let v2 = server.post_json("/api/v2/invoice/cash", Some(&second), &coffee_and_water(taken));
        assert_eq!(v2.status, 422, "{}", v2.text);
    }
    server.post_json("/api/v1/invoice/cash", Some(&second), &coffee_and_water("t-2")).data(201);
    let own_name = server.post_json(
        "/api/v1/invoice/cancel-by-internal-id/t-2",
        Some(&second),
        &json!({"internalId": "t-1/cancel-1"}),
    );
    own_name.assert_invalid("internalId");
    // Names that only look alike are anyone's.
    for fine in ["t-1/cancel", "t-1/cancel-", "t-1/cancel-x", "t-1/cancel-1/more", "t-1/cancel-01"] {
        server.post_json("/api/v1/invoice/cash", Some(&second), &coffee_and_water(fine)).data(201);
    }

    // The cashier who sold cancels it under its name.
    let cancelled = server.post_json("/api/v1/invoice/cancel-by-internal-id/t-1", Some(&first), &json!({}));
    let corrective = cancelled.data(200)["invoice"].clone();
    let details = server.post_json("/api/v1/invoice/details/t-1%2Fcancel-1", Some(&till.token), &json!({}));
    assert_eq!(details.data(200)["invoice"]["id"], corrective["id"]);

    // A sale a version before this one named so does not block its cancellation: the next name.
    server.post_json("/api/v1/invoice/cash", Some(&first), &coffee_and_water("t-3")).data(201);
    server.post_json("/api/v1/invoice/cash", Some(&first), &coffee_and_water("planted")).data(201);
    till.sql(&["UPDATE invoices SET internal_id = 't-3/cancel-1' WHERE internal_id = 'planted'".to_string()]);
    let cancelled = server.post_json("/api/v1/invoice/cancel-by-internal-id/t-3", Some(&first), &json!({}));
    let corrective = cancelled.data(200)["invoice"].clone();
    let details = server.post_json("/api/v1/invoice/details/t-3%2Fcancel-2", Some(&till.token), &json!({}));
    assert_eq!(details.data(200)["invoice"]["id"], corrective["id"]);
}

/// The credit notes issued before the upgrade that keeps them apart (V44): the server that
/// upgrades the books answers at once, lists them in the reversals report from its first answer,
/// finds them in the books after it (its database says where the search is) and the report stays
/// the same.
#[test]
fn the_credit_notes_already_in_the_books_are_found_by_the_upgraded_server_after_it_answers() {
    use crate::common::{arka_ok, eventually};

    let sim = SimServer::start();
    let mut till = open_till(&sim);
    let sold = till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &on_account("n-1"));
    let sold = sold.data(201)["invoice"].clone();
    let note = credit_note(on_account("n-2"), "n-2", &sold["iic"]);
    let note = till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &note);
    let note = note.data(201)["invoice"].clone();
    let day = Utc::now().date_naive();
    let path = format!("/api/v1/reports/reversals?from={day}&to={day}");
    let report = |till: &Till| till.server.get(&path, Some(&till.token)).data(200).clone();
    let before = report(&till);
    assert_eq!(before["items"][0]["id"], note["id"], "{before}");

    // The credit notes kept apart, and whether the search through the books has ended.
    let kept = |db: &std::path::Path| -> Option<(Vec<i64>, bool)> {
        let conn =
            rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut ids = conn.prepare("SELECT invoice_id FROM credit_notes ORDER BY invoice_id").ok()?;
        let ids = ids.query_map([], |r| r.get("invoice_id")).unwrap().map(Result::unwrap).collect();
        let ended = conn
            .query_row("SELECT next_id > until_id AS ended FROM credit_notes_found", [], |r| r.get("ended"))
            .unwrap();
        Some((ids, ended))
    };
    till.server.restart_after(|dir| {
        arka_ok(&["downgrade", "--data-dir", dir.to_str().unwrap(), "--to", "43"]);
        assert_eq!(kept(&dir.join("arka.db")), None, "the books as the release before V44 keeps them");
    });
    let db = till.server.data_dir().join("arka.db");
    let upgraded = report(&till);
    assert_eq!(upgraded, before, "the report from the first answer");
    eventually("the credit notes found after the start", std::time::Duration::from_secs(30), || {
        kept(&db).is_some_and(|(_, ended)| ended)
    });
    assert_eq!(kept(&db), Some((vec![note["id"].as_i64().unwrap()], true)), "the credit note, not the sale");
    assert_eq!(report(&till), before, "the report once they are found");
}
