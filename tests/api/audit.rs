//! The audit trail (the book's "The audit trail"): each action that moves money or changes who
//! may do what leaves one entry, written with it (a refused one leaves none); the hash chain
//! verifies, and a row edited with the sqlite3 tool is named by `arka audit verify` and fails
//! `arka reports verify`; a restore is the command line's entry; `GET /api/v1/audit` filters,
//! pages, answers CSV, and is the owner's and the managers' only.

use std::process::Command;

use crate::common::sim::SimServer;
use crate::common::till::{Till, coffee_and_water, open_till};
use crate::common::{TestServer, arka, arka_ok, cashier, manager, oracle};
use chrono::Utc;
use serde_json::{Value, json};

fn entries(server: &TestServer, token: &str, query: &str) -> Value {
    server.get(&format!("/api/v1/audit{query}"), Some(token)).data(200).clone()
}

fn actions(page: &Value) -> Vec<String> {
    page["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap().to_string()).collect()
}

fn post_with_id(till: &Till, path: &str, token: &str, body: &Value, request_id: &str) -> Value {
    let bytes = serde_json::to_vec(body).unwrap();
    let auth = format!("Bearer {token}");
    let reply = till.server.request(
        "POST",
        path,
        &[("Authorization", &auth), ("X-Request-Id", request_id)],
        Some(("application/json", &bytes)),
    );
    assert!(reply.status < 300, "{path}: {} {}", reply.status, reply.text);
    reply.body
}

/// The till's owner sells, cancels, opens, deposits, withdraws and closes the day; gives a
/// user, changes their role, rotates and revokes a token; changes a currency, a manual rate and
/// the marketplace's settings. Returns the new user's id and the token their rotation gave.
fn every_action(till: &Till) -> (i64, String) {
    let (server, owner) = (&till.server, till.token.as_str());
    let path = |p: &str| format!("/api/v1/cash-register/{p}");
    post_with_id(till, &path("open-balance"), owner, &json!({"amount": 1000}), "pos-open-1");
    let sale =
        server.post_json("/api/v1/invoice/cash", Some(owner), &coffee_and_water("a-1")).data(201)["invoice"]
            .clone();
    post_with_id(till, &format!("/api/v1/invoice/cancel/{}", sale["id"]), owner, &json!({}), "pos-cancel-1");
    post_with_id(till, &path("deposit"), owner, &json!({"amount": 200.5}), "pos-deposit-1");
    post_with_id(till, &path("withdraw"), owner, &json!({"amount": 300}), "pos-withdraw-1");
    post_with_id(till, &path("close-balance"), owner, &json!({"counted": 900}), "pos-close-1");

    let body = json!({"name": "Blerim", "email": "blerim@shop.al", "branchId": till.branch_id,
        "operatorCode": "op321op321", "role": "cashier"});
    let user = server.post_json("/api/v1/on-boarding/user", Some(owner), &body).data(201)["user"]["id"]
        .as_i64()
        .unwrap();
    server
        .post_json(&format!("/api/v1/on-boarding/user/{user}"), Some(owner), &json!({"name": "Blerimi"}))
        .data(200);
    server
        .post_json(&format!("/api/v1/on-boarding/user/{user}"), Some(owner), &json!({"role": "manager"}))
        .data(200);
    let rotated = server.post_json(&format!("/api/v1/users/{user}/token"), Some(owner), &json!({}));
    let token = rotated.data(201)["user"]["token"].as_str().unwrap().to_string();
    server.delete(&format!("/api/v1/users/{user}/token"), Some(owner)).data(200);

    server.put_json("/api/v1/currencies/EUR", Some(owner), &json!({"enabled": false})).data(200);
    server.put_json("/api/v1/exchange-rates/manual/USD", Some(owner), &json!({"rate": "92.10"})).data(200);
    server.put_json("/api/partner/v1/marketplace/settings", Some(owner), &json!({"enabled": true})).data(200);
    (user, token)
}

#[test]
fn every_action_writes_its_entry_with_the_user_their_role_the_request_id_and_what_changed() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (user, token) = every_action(&till);
    let page = entries(&till.server, &till.token, "?limit=100");
    let mut listed = actions(&page);
    listed.reverse();
    assert_eq!(
        listed,
        [
            "unit.update",
            "certificate.upload",
            "device.register",
            "user.update",
            "day.open",
            "invoice.cancel",
            "cash.deposit",
            "cash.withdraw",
            "day.close",
            "cash.difference",
            "user.create",
            "user.update",
            "user.role",
            "token.rotate",
            "token.revoke",
            "settings.currency",
            "settings.manual_rate",
            "settings.marketplace",
        ],
        "oldest first: the on-boarding's unit, certificate, till and the owner's operator code, then the story"
    );
    assert_eq!(page["total"], 18);
    let find = |action: &str| {
        page["entries"].as_array().unwrap().iter().find(|e| e["action"] == action).unwrap().clone()
    };
    for entry in page["entries"].as_array().unwrap() {
        assert_eq!(entry["userId"], till.user_id, "{entry}");
        assert_eq!(entry["role"], "owner", "{entry}");
        assert!(entry["requestId"].as_str().is_some_and(|id| !id.is_empty()), "{entry}");
        assert_eq!(entry["hash"].as_str().unwrap().len(), 64);
    }
    let deposit = find("cash.deposit");
    assert_eq!(deposit["requestId"], "pos-deposit-1");
    assert_eq!(deposit["after"]["amount"], "200.5");
    assert_eq!(find("invoice.cancel")["requestId"], "pos-cancel-1");
    let close = find("day.close");
    let amount = |v: &Value| v.as_str().unwrap().parse::<f64>().unwrap();
    assert_eq!(amount(&close["after"]["counted"]), 900.0);
    assert_eq!(amount(&close["before"]["expected"]), 900.5, "1000 + 285 - 285 + 200.50 - 300: {close}");
    assert_eq!(amount(&close["after"]["difference"]), -0.5);
    // The difference is booked in an entry of its own, on the day, naming the till.
    let booked = find("cash.difference");
    assert_eq!(
        (booked["object"].clone(), amount(&booked["after"]["difference"])),
        (close["object"].clone(), -0.5)
    );
    assert_eq!(booked["after"]["tcr"], till.tcr_code.as_str());
    assert_eq!(find("day.open")["after"]["opening"], "1000");
    let role = find("user.role");
    assert_eq!(role["object"], user.to_string());
    assert_eq!(
        (role["before"]["role"].clone(), role["after"]["role"].clone()),
        (json!("cashier"), json!("manager"))
    );
    let renamed = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "user.update" && e["object"].as_str() == Some(&*user.to_string()));
    let renamed = renamed.unwrap();
    assert_eq!(
        (renamed["before"]["name"].clone(), renamed["after"]["name"].clone()),
        (json!("Blerim"), json!("Blerimi"))
    );
    assert_eq!(find("token.revoke")["after"]["revoked"], true);
    assert_eq!(find("token.revoke")["after"]["sessionsEnded"], 0);
    assert_eq!(find("unit.update")["after"]["businessUnitCode"], "ab123cd456");
    assert_eq!(find("device.register")["after"]["tcr"], till.tcr_code.as_str());
    assert_eq!(find("settings.currency")["object"], "EUR");
    assert_eq!(find("settings.currency")["after"]["enabled"], false);
    assert_eq!(find("settings.manual_rate")["after"]["rate"], "92.10");
    assert_eq!(find("settings.marketplace")["after"]["enabled"], true);
    assert!(!page.to_string().contains(&token), "a token is never in the trail, only its prefix");
    assert_eq!(find("token.rotate")["after"]["tokenPrefix"], token[..15]);
}

#[test]
fn a_refused_or_failed_action_writes_no_entry() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let server = &till.server;
    let before = entries(server, &till.token, "")["total"].as_i64().unwrap();
    let clerk = cashier(server, till.company_id);
    let boss = manager(server, till.company_id);
    // Refused before the handler (the permission table), in the use case, and in its transaction.
    server.delete(&format!("/api/v1/users/{}/token", till.user_id), Some(&clerk)).assert_error(403);
    server
        .post_json(
            &format!("/api/v1/on-boarding/user/{}", till.user_id),
            Some(&boss),
            &json!({"role": "cashier"}),
        )
        .assert_error(403);
    server.delete(&format!("/api/v1/users/{}/token", till.user_id), Some(&till.token)).assert_error(409);
    let withdraw =
        server.post_json("/api/v1/cash-register/withdraw", Some(&till.token), &json!({"amount": 5}));
    assert!(withdraw.status >= 400 || withdraw.body["status"] == false, "{}", withdraw.text);
    server.post_json("/api/v1/cash-register/close-balance", Some(&till.token), &json!({})).assert_error(200);
    server
        .put_json("/api/v1/currencies/ALL", Some(&till.token), &json!({"enabled": false}))
        .assert_invalid("enabled");
    assert_eq!(entries(server, &till.token, "")["total"].as_i64().unwrap(), before);
}

fn verify(data: &std::path::Path) -> std::process::Output {
    arka(&["audit", "verify", "--data-dir", data.to_str().unwrap()])
}

#[test]
fn the_chain_verifies_and_a_row_edited_with_sqlite3_is_named_by_audit_verify_and_reports_verify() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    every_action(&till);
    let data = till.server.data_dir();
    let said = arka_ok(&["audit", "verify", "--data-dir", data.to_str().unwrap()]);
    assert!(said.contains("the audit trail is whole (18 entries)"), "{said}");

    // The application may not change the trail: SQLite itself refuses.
    let db = data.join("arka.db");
    let sqlite3 = |sql: &str| oracle(Command::new("sqlite3").arg(&db).arg(sql), "sqlite3");
    let refused = sqlite3("UPDATE audit SET after = '{\"amount\":\"2000\"}' WHERE id = 7");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("append-only"), "{refused:?}");

    // Someone with the file drops the guard and makes the deposit larger.
    let out = sqlite3(
        "DROP TRIGGER audit_no_update; UPDATE audit SET after = '{\"amount\":\"2000\"}' WHERE id = 7",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = verify(&data);
    assert!(!out.status.success());
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(told.contains("broken at entry 7"), "{told}");

    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");
    let out = arka(&["reports", "verify", "--data-dir", data.to_str().unwrap()]);
    assert!(!out.status.success(), "reports verify fails on a broken trail");
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken at entry 7"));
}

#[test]
fn entries_removed_from_the_middle_or_the_end_are_named_and_a_restore_is_the_command_lines_entry() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    every_action(&till);
    let dir = tempfile::tempdir().unwrap();
    let backup = dir.path().join("backup.db");
    let data = till.server.data_dir();
    arka_ok(&["backup", "--data-dir", data.to_str().unwrap(), "--to", backup.to_str().unwrap()]);
    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");
    let sqlite3 = |sql: &str| oracle(Command::new("sqlite3").arg(data.join("arka.db")).arg(sql), "sqlite3");
    let out = sqlite3("DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE id = 18");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&verify(&data).stderr).contains("broken at entry 18"));
    sqlite3("DELETE FROM audit WHERE id = 6");
    assert!(String::from_utf8_lossy(&verify(&data).stderr).contains("broken at entry 7"));

    let said = arka_ok(&["restore", backup.to_str().unwrap(), "--data-dir", data.to_str().unwrap()]);
    assert!(said.contains("audit trail"), "{said}");
    assert!(
        arka_ok(&["audit", "verify", "--data-dir", data.to_str().unwrap()]).contains("whole (19 entries)")
    );
    let conn = rusqlite::Connection::open(data.join("arka.db")).unwrap();
    let (company, user, role, action): (Option<i64>, Option<i64>, String, String) = conn
        .query_row("SELECT company_id, user_id, role, action FROM audit ORDER BY id DESC LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .unwrap();
    assert_eq!((company, user, role.as_str(), action.as_str()), (None, None, "cli", "backup.restore"));
}

#[test]
fn the_list_filters_by_day_user_and_action_pages_answers_csv_and_refuses_a_cashier() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (user, _) = every_action(&till);
    let (server, owner) = (&till.server, till.token.as_str());
    let today = Utc::now().date_naive();
    let tomorrow = today.succ_opt().unwrap();

    let cash = entries(server, owner, "?action=cash.withdraw");
    assert_eq!((actions(&cash), cash["total"].clone()), (vec!["cash.withdraw".to_string()], json!(1)));
    assert_eq!(entries(server, owner, &format!("?user={}", till.user_id))["total"], 18);
    assert_eq!(entries(server, owner, &format!("?user={user}"))["total"], 0, "the user did nothing");
    assert_eq!(entries(server, owner, &format!("?from={today}&to={today}"))["total"], 18);
    assert_eq!(entries(server, owner, &format!("?from={tomorrow}"))["total"], 0);

    let first = entries(server, owner, "?limit=5");
    let second = entries(server, owner, "?limit=5&offset=5");
    assert_eq!((first["entries"].as_array().unwrap().len(), first["total"].clone()), (5, json!(18)));
    let ids = |page: &Value| {
        page["entries"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&first), [18, 17, 16, 15, 14]);
    assert_eq!(ids(&second), [13, 12, 11, 10, 9]);

    let csv = server.get("/api/v1/audit?format=csv&action=day.close", Some(owner));
    assert_eq!(csv.status, 200);
    assert!(csv.header("content-type").unwrap().starts_with("text/csv"));
    let text = csv.text.trim_start_matches('\u{feff}');
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("id,at,user_id,user_name,role,request_id,action,object,before,after,hash"));
    let row = lines.next().unwrap();
    assert!(row.contains(",owner,pos-close-1,day.close,"), "{row}");
    assert_eq!(lines.next(), None);
    let accepted = server.request(
        "GET",
        "/api/v1/audit",
        &[("Authorization", &format!("Bearer {owner}")), ("Accept", "text/csv")],
        None,
    );
    assert!(accepted.text.contains("certificate.upload"));

    server.get("/api/v1/audit?action=invoice.issue", Some(owner)).assert_invalid("action");
    server.get("/api/v1/audit?from=2026-13-01", Some(owner)).assert_invalid("from");
    server.get(&format!("/api/v1/audit?from={tomorrow}&to={today}"), Some(owner)).assert_invalid("from");
    server.get("/api/v1/audit?user=x", Some(owner)).assert_invalid("user");
    server.get("/api/v1/audit?limit=0", Some(owner)).assert_invalid("limit");
    server.get("/api/v1/audit", Some(&cashier(server, till.company_id))).assert_error(403);
    // A manager, who may not list the people, reads the trail with their names: the one who
    // acted, and the person a user's entry acted on.
    let read = entries(server, &manager(server, till.company_id), "?limit=100");
    assert_eq!(read["total"], 18);
    let users = server.get("/api/v1/users", Some(owner)).data(200)["items"].clone();
    let name_of = |id: &Value| {
        users.as_array().unwrap().iter().find(|u| &u["id"] == id).map(|u| u["name"].clone()).unwrap()
    };
    for entry in read["entries"].as_array().unwrap() {
        assert_eq!(entry["userName"], name_of(&entry["userId"]), "{entry}");
        let action = entry["action"].as_str().unwrap();
        if action.starts_with("user.") || action.starts_with("token.") {
            let object = json!(entry["object"].as_str().unwrap().parse::<i64>().unwrap());
            assert_eq!(entry["objectName"], name_of(&object), "{entry}");
        } else {
            assert_eq!(entry["objectName"], Value::Null, "{entry}");
        }
    }
}

/// The one entry of `action` on `page` (the newest first).
fn only(page: &Value, action: &str) -> Value {
    let found: Vec<&Value> =
        page["entries"].as_array().unwrap().iter().filter(|e| e["action"] == action).collect();
    assert_eq!(found.len(), 1, "one {action}: {page}");
    found[0].clone()
}

/// What changes where money goes or the shop's fiscal identity (issue 41): a bank account buyers
/// pay into, a unit, a till, the print and stock settings, a stock adjustment, a product import,
/// one's own password set with a token, a backup taken from the page: each its entry, by whom,
/// with what it became.
#[test]
fn money_ways_and_the_shops_fiscal_identity_are_audited() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (server, owner) = (&till.server, till.token.as_str());
    let account = crate::common::bank_account_body("Llogaria kryesore");
    let account_id =
        server.post_json("/api/v1/on-boarding/bank-account", Some(owner), &account).data(201)["bankAccount"]
            ["id"]
            .as_i64()
            .unwrap();
    let branch =
        json!({"name": "Dega 2", "businessUnitCode": "cd456cd456", "address": "Rruga 2", "city": "Durrës"});
    let unit = server.post_json("/api/v1/on-boarding/branch", Some(owner), &branch).data(201)["branch"]["id"]
        .as_i64()
        .unwrap();
    server.put_json("/api/v1/print-settings", Some(owner), &json!({"unit_name": true})).data(200);
    server.put_json("/api/v1/stock/settings", Some(owner), &json!({"enforce": true})).data(200);
    let product = json!({"name": "Ujë", "code": "UJE", "last_price": 50, "vat_rate": "20", "service": false});
    let product_id = server.post_json("/api/v1/products", Some(owner), &product).data(201)["product"]["id"]
        .as_i64()
        .unwrap();
    let adjust = json!({"kind": "delivery", "quantity": 24, "note": "furnizimi i së hënës"});
    server
        .post_json(&format!("/api/v1/stock/products/{product_id}/adjustments"), Some(owner), &adjust)
        .data(201);
    let csv = "code,name,last_price,vat_rate\nKAFE,Kafe,80,20\nUJE,Ujë i ftohtë,60,20\n";
    server.post_raw("/api/v1/products/import?apply=true", Some(owner), "text/csv", csv.as_bytes()).data(200);
    // A preview and a refused import write nothing.
    server.post_raw("/api/v1/products/import?apply=false", Some(owner), "text/csv", csv.as_bytes()).data(200);
    let refused = "code,name,last_price,vat_rate\nX,,80,20\n";
    let refused =
        server.post_raw("/api/v1/products/import?apply=true", Some(owner), "text/csv", refused.as_bytes());
    assert!(refused.status >= 400, "{}", refused.text);
    // A cashier given a password by the owner changes it with their POS token.
    let body = json!({"name": "Besa", "email": "besa@shop.al", "branchId": till.branch_id, "operatorCode": "op444op444"});
    let besa = server.post_json("/api/v1/on-boarding/user", Some(owner), &body).data(201)["user"].clone();
    let (besa_id, besa_token) = (besa["id"].as_i64().unwrap(), besa["token"].as_str().unwrap());
    let password = json!({"newPassword": "Besa-fjalekalim-1"});
    server.post_json(&format!("/api/v1/users/{besa_id}/password"), Some(owner), &password).data(200);
    let change = json!({"currentPassword": "Besa-fjalekalim-1", "newPassword": "Besa-e-re-2025"});
    server.post_json("/api/v1/session/password", Some(besa_token), &change).data(200);
    let backup = server.post_json("/api/v1/owner/backup", Some(owner), &json!({}));
    let file = backup.data(201)["file"].as_str().unwrap().to_string();

    let page = entries(server, owner, "?limit=100");
    let bank = only(&page, "bank_account.create");
    assert_eq!(bank["object"], account_id.to_string());
    assert_eq!(bank["after"]["iban"], account["iban"].as_str().unwrap().replace(' ', ""));
    let created = only(&page, "unit.create");
    assert_eq!(
        (created["object"].clone(), created["after"]["businessUnitCode"].clone()),
        (json!(unit.to_string()), json!("cd456cd456"))
    );
    let print = only(&page, "settings.print");
    assert_eq!(
        (print["before"]["unitName"].clone(), print["after"]["unitName"].clone()),
        (json!(false), json!(true))
    );
    let stock = only(&page, "settings.stock");
    assert_eq!(
        (stock["before"]["enforce"].clone(), stock["after"]["enforce"].clone()),
        (json!(false), json!(true))
    );
    let adjusted = only(&page, "stock.adjust");
    assert_eq!(adjusted["object"], product_id.to_string());
    assert_eq!(
        (adjusted["after"]["reason"].clone(), adjusted["after"]["change"].clone()),
        (json!("delivery"), json!("24"))
    );
    assert_eq!(adjusted["after"]["note"], "furnizimi i së hënës");
    let import = only(&page, "product.import");
    assert_eq!(
        (import["after"]["created"].clone(), import["after"]["updated"].clone()),
        (json!(1), json!(1))
    );
    let passwords: Vec<&Value> =
        page["entries"].as_array().unwrap().iter().filter(|e| e["action"] == "user.password").collect();
    assert_eq!(passwords.len(), 2, "the owner's and the cashier's own: {page}");
    let own = passwords[0];
    assert_eq!((own["userId"].clone(), own["role"].clone()), (json!(besa_id), json!("cashier")));
    assert_eq!(
        (own["after"]["passwordSetBy"].clone(), own["after"]["via"].clone()),
        (json!("self"), json!("token"))
    );
    let backed_up = only(&page, "backup.create");
    assert_eq!(
        (backed_up["object"].clone(), backed_up["userId"].clone()),
        (json!(file), json!(till.user_id))
    );
    assert!(!page.to_string().contains("Besa-e-re-2025"), "never a password in the trail");
    let said = arka_ok(&["audit", "verify", "--data-dir", server.data_dir().to_str().unwrap()]);
    assert!(said.contains("whole"), "{said}");
}

#[test]
fn a_column_holding_a_value_of_the_wrong_type_is_named_by_its_entry() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    every_action(&till);
    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");
    let sqlite3 = |sql: &str| oracle(Command::new("sqlite3").arg(data.join("arka.db")).arg(sql), "sqlite3");
    let out = sqlite3("DROP TRIGGER audit_no_update; UPDATE audit SET company_id = 'one' WHERE id = 3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for command in ["audit", "reports"] {
        let out = arka(&[command, "verify", "--data-dir", data.to_str().unwrap()]);
        assert!(!out.status.success(), "{command} verify fails");
        let told = String::from_utf8_lossy(&out.stderr);
        assert!(told.contains("broken at entry 3") && told.contains("company_id"), "{command}: {told}");
        assert!(!told.contains("sqlite"), "{command}: the entry, not the driver's words: {told}");
    }
}
