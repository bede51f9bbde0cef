//! People sign in to the owner's page as people: e-mail and password, a session cookie
//! (HttpOnly, SameSite=Strict), CSRF on every change, a lock-out after repeated failures, an
//! idle expiry, sign-out, passwords changed and reset; POS tokens work as before.

use std::time::Duration;

use crate::common;
use crate::common::people::{Browser, OWNER_EMAIL, OWNER_PASSWORD, owner_from_the_box, set_cookie};
use crate::common::{TestServer, bank_account_body, object_keys};
use serde_json::json;

/// A production server whose owner was made by the wizard, signed in.
fn shop() -> TestServer {
    TestServer::start()
}

#[test]
fn the_owner_signs_in_and_the_cookie_is_httponly_and_samesite_strict() {
    let server = shop();
    owner_from_the_box(&server);
    let mut page = Browser::new(&server);
    let reply = page.sign_in(OWNER_EMAIL, OWNER_PASSWORD);
    let data = reply.data(200);
    assert_eq!(data["user"]["email"], OWNER_EMAIL);
    assert_eq!(data["owner"], true);
    assert_eq!(data["via"], "session");
    let csrf = data["csrfToken"].as_str().unwrap().to_string();
    assert_eq!(csrf.len(), 64);
    assert_eq!(reply.header("cache-control"), Some("no-store"));

    let (pair, attributes) = set_cookie(&reply).expect("a session cookie");
    let (name, value) = pair.split_once('=').unwrap();
    assert_eq!(name, "arka_session");
    assert!(value.len() >= 40, "a long random id: {value}");
    assert!(!reply.text.contains(value), "the session id is only in the cookie");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(attributes.iter().any(|a| a == flag), "{flag} in {attributes:?}");
    }
    assert!(!attributes.iter().any(|a| a == "Secure"), "plain HTTP: no Secure flag");
    assert!(
        !attributes.iter().any(|a| a.starts_with("Max-Age") || a.starts_with("Expires")),
        "{attributes:?}"
    );

    // The session speaks as the owner's token would: the routes of the page work with it.
    let me = page.get("/api/v1/session");
    assert_eq!(me.data(200)["csrfToken"], csrf.as_str(), "the page reads its CSRF token back");
    let today = page.get("/api/v1/owner/today");
    assert_eq!(today.data(200)["currency"], "ALL");
    let account = page.get("/api/v1/account");
    assert_eq!(account.status, 200, "{}", account.text);
    // A stored session survives a restart of the server.
    let cookie = page.cookie.clone();
    drop(page);
    let mut server = server;
    server.restart();
    let mut again = Browser::new(&server);
    again.cookie = cookie;
    assert_eq!(again.get("/api/v1/session").data(200)["user"]["email"], OWNER_EMAIL);
}

#[test]
fn every_change_made_with_the_session_needs_the_csrf_header() {
    let server = shop();
    let mut page = owner_from_the_box(&server);
    let account = bank_account_body("Llogaria kryesore");

    let forged = page.post_without_csrf("/api/v1/on-boarding/bank-account", &account);
    forged.assert_error(403);
    assert!(forged.body["message"].as_str().unwrap().contains("X-CSRF-Token"), "{}", forged.text);
    let wrong = server.request(
        "POST",
        "/api/v1/on-boarding/bank-account",
        &[("Cookie", page.cookie.as_deref().unwrap()), ("X-CSRF-Token", &"0".repeat(64))],
        Some(("application/json", account.to_string().as_bytes())),
    );
    wrong.assert_error(403);

    page.post("/api/v1/on-boarding/bank-account", &account).data(201);
    // Signing in again from a signed-in page needs no CSRF token: it acts with no session.
    let again =
        page.post_without_csrf("/api/v1/session", &json!({"email": OWNER_EMAIL, "password": OWNER_PASSWORD}));
    again.data(200);
    // Reads need no CSRF token; only the change sent with it was made.
    let listed = page.get("/api/v1/bank-accounts");
    assert_eq!(listed.data(200)["pagination"]["total"], 1, "{}", listed.text);
}

#[test]
fn a_pos_bearer_token_works_as_before_whatever_cookie_comes_with_it() {
    let server = TestServer::sandbox();
    let shop = common::register_sandbox(&server);
    let bearer = format!("Bearer {}", shop.token);
    let body = bank_account_body("Llogaria e POS").to_string();
    // No CSRF header is asked of a token, with or without a cookie beside it.
    let plain = server.request(
        "POST",
        "/api/v1/on-boarding/bank-account",
        &[("Authorization", &bearer)],
        Some(("application/json", body.as_bytes())),
    );
    plain.data(201);
    let with_cookie = server.request(
        "POST",
        "/api/v1/on-boarding/bank-account",
        &[("Authorization", &bearer), ("Cookie", "arka_session=arka_s_not-a-session")],
        Some(("application/json", body.as_bytes())),
    );
    with_cookie.data(201);
    let me = server.get("/api/v1/session", Some(&shop.token)).data(200).clone();
    assert_eq!(me["via"], "token");
    assert_eq!(me["csrfToken"], serde_json::Value::Null);
    assert_eq!(me["user"]["id"], shop.user_id);
}

#[test]
fn wrong_passwords_lock_the_account_and_then_even_the_right_one_is_refused_alike() {
    let server = shop();
    owner_from_the_box(&server);
    let mut page = Browser::new(&server);
    let wrong = page.sign_in(OWNER_EMAIL, "not the password");
    wrong.assert_error(401);
    assert_eq!(wrong.header("retry-after"), None, "one mistake does not lock");
    assert!(set_cookie(&wrong).is_none());
    let unknown = page.sign_in("nobody@dyqani-ana.al", "not the password");
    assert_eq!((unknown.status, &unknown.body), (401, &wrong.body), "an unknown e-mail reads the same");

    // Five failures of one account in 15 minutes lock it: the fifth answer says for how long.
    for _ in 0..3 {
        page.sign_in(OWNER_EMAIL, "still not it").assert_error(401);
    }
    let fifth = page.sign_in(OWNER_EMAIL, "still not it");
    assert_eq!((fifth.status, &fifth.body), (401, &wrong.body));
    let retry: u64 = fifth.header("retry-after").expect("Retry-After once locked").parse().unwrap();
    assert!((890..=900).contains(&retry), "about 15 minutes: {retry}");

    let right = page.sign_in(OWNER_EMAIL, OWNER_PASSWORD);
    assert_eq!((right.status, &right.body), (401, &wrong.body), "locked: the right password reads as wrong");
    assert!(right.header("retry-after").is_some());
    assert!(set_cookie(&right).is_none() && page.cookie.is_none(), "no session while locked");
    // Another account from the same address is not locked by it.
    let other = page.sign_in("someone@dyqani-ana.al", "nope nope nope");
    assert_eq!(other.header("retry-after"), None);
}

#[test]
fn twenty_failures_from_one_address_lock_the_address_for_every_account() {
    let server = shop();
    owner_from_the_box(&server);
    let mut page = Browser::new(&server);
    // Four e-mails, four failures each (none reaches its own lock of five), plus four: twenty.
    for n in 0..20 {
        let reply = page.sign_in(&format!("guess{}@dyqani-ana.al", n % 5), "not a password");
        reply.assert_error(401);
        if n < 19 {
            assert_eq!(reply.header("retry-after"), None, "failure {}", n + 1);
        }
    }
    let owner = page.sign_in(OWNER_EMAIL, OWNER_PASSWORD);
    owner.assert_error(401);
    assert!(owner.header("retry-after").is_some(), "the address is locked: {:?}", owner.headers);
}

#[test]
fn a_session_idle_longer_than_the_setting_ends() {
    let server = TestServer::start_with(|args| args.session_idle = 2);
    let mut page = owner_from_the_box(&server);
    // Used within the idle time, it lives on.
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(800));
        page.get("/api/v1/session").data(200);
    }
    std::thread::sleep(Duration::from_millis(3200));
    page.get("/api/v1/session").assert_unauthenticated();
    page.get("/api/v1/owner/today").assert_unauthenticated();
    let made = page.post("/api/v1/on-boarding/bank-account", &bank_account_body("Llogaria"));
    made.assert_unauthenticated();
    // Signing in again starts a new one.
    page.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
    page.get("/api/v1/session").data(200);
}

#[test]
fn signing_out_ends_the_session_and_clears_the_cookie() {
    let server = shop();
    let mut page = owner_from_the_box(&server);
    let cookie = page.cookie.clone().unwrap();
    let refused = server.request("DELETE", "/api/v1/session", &[("Cookie", &cookie)], None);
    refused.assert_error(403);
    let out = page.delete("/api/v1/session");
    assert_eq!(out.data(200), &json!({"signedOut": true}));
    let (pair, attributes) = set_cookie(&out).unwrap();
    assert_eq!(pair, "arka_session=");
    assert!(attributes.iter().any(|a| a == "Max-Age=0"), "{attributes:?}");
    // The old cookie, kept by someone, no longer works.
    server.request("GET", "/api/v1/session", &[("Cookie", &cookie)], None).assert_unauthenticated();
}

#[test]
fn signing_out_with_a_bearer_token_ends_nothing() {
    let server = TestServer::sandbox();
    let shop = common::register_sandbox(&server);
    let bearer = format!("Bearer {}", shop.token);
    let out = server.request("DELETE", "/api/v1/session", &[("Authorization", &bearer)], None);
    assert_eq!(out.data(200), &json!({"signedOut": false}));
    assert!(set_cookie(&out).is_none(), "no cookie to clear");
    server.get("/api/v1/session", Some(&shop.token)).data(200);
}

#[test]
fn the_owner_resets_a_cashiers_password_and_the_cashier_changes_it_after() {
    let server = shop();
    let mut owner = owner_from_the_box(&server);
    let me = owner.get("/api/v1/session").data(200).clone();
    let branch_id = me["user"]["branchId"].as_i64().unwrap();
    let cashier = owner
        .post(
            "/api/v1/on-boarding/user",
            &json!({"name": "Besa Kola", "email": "besa@dyqani-ana.al", "branchId": branch_id, "operatorCode": "ab123ab123"}),
        )
        .data(201)["user"]
        .clone();
    let cashier_id = cashier["id"].as_i64().unwrap();
    let cashier_token = cashier["token"].as_str().unwrap().to_string();

    // A user with only a token cannot sign in.
    let mut besa = Browser::new(&server);
    besa.sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1").assert_error(401);
    let short = owner.post(&format!("/api/v1/users/{cashier_id}/password"), &json!({"newPassword": "short"}));
    short.assert_invalid("newPassword");
    let reset = owner
        .post(&format!("/api/v1/users/{cashier_id}/password"), &json!({"newPassword": "Besa-fjalekalim-1"}));
    assert_eq!(reset.data(200)["sessionsEnded"], true);
    assert_eq!(object_keys(reset.data(200)), ["sessionsEnded", "user"]);
    assert_eq!(besa.sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1").data(200)["owner"], false);
    // The trail has the reset, by the owner, and the wizard's owner as its first entry.
    let trail = owner.get("/api/v1/audit").data(200).clone();
    let actions: Vec<&str> =
        trail["entries"].as_array().unwrap().iter().filter_map(|e| e["action"].as_str()).collect();
    assert_eq!(actions.first(), Some(&"user.password"), "{trail}");
    assert_eq!(actions.last(), Some(&"user.create"), "{trail}");
    let reset_entry = &trail["entries"][0];
    assert_eq!(reset_entry["object"], cashier_id.to_string());
    assert_eq!(reset_entry["role"], "owner");

    // The cashier may not reset others' passwords, with the session or with the token; nor the
    // owner their own (that needs the current one).
    let owner_id = me["user"]["id"].as_i64().unwrap();
    owner
        .post(&format!("/api/v1/users/{owner_id}/password"), &json!({"newPassword": "no-current-needed"}))
        .assert_error(403);
    besa.post(&format!("/api/v1/users/{owner_id}/password"), &json!({"newPassword": "taken-over-123"}))
        .assert_error(403);
    server
        .post_json(
            &format!("/api/v1/users/{owner_id}/password"),
            Some(&cashier_token),
            &json!({"newPassword": "taken-over-123"}),
        )
        .assert_error(403);
    owner.get("/api/v1/session").data(200);

    // The cashier changes their own: the current one is needed, and the other sessions end.
    let mut besa_elsewhere = Browser::new(&server);
    besa_elsewhere.sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1").data(200);
    let wrong = besa.post(
        "/api/v1/session/password",
        &json!({"currentPassword": "nope", "newPassword": "Besa-e-re-2025"}),
    );
    wrong.assert_invalid("currentPassword");
    let old_cookie = besa.cookie.clone();
    let changed = besa.post(
        "/api/v1/session/password",
        &json!({"currentPassword": "Besa-fjalekalim-1", "newPassword": "Besa-e-re-2025"}),
    );
    changed.data(200);
    assert_ne!(besa.cookie, old_cookie, "the page that changed it gets a new session");
    besa.get("/api/v1/session").data(200);
    besa_elsewhere.get("/api/v1/session").assert_unauthenticated();
    Browser::new(&server).sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1").assert_error(401);
    Browser::new(&server).sign_in("besa@dyqani-ana.al", "Besa-e-re-2025").data(200);
    // Her POS token never changed.
    assert_eq!(server.get("/api/v1/session", Some(&cashier_token)).data(200)["user"]["id"], cashier_id);
}

#[test]
fn a_token_only_owner_sets_a_first_password_with_the_token_and_signs_in() {
    let server = TestServer::sandbox();
    let shop = common::register_sandbox(&server);
    let first = server.post_json(
        "/api/v1/session/password",
        Some(&shop.token),
        &json!({"newPassword": "Sandbox-owner-1"}),
    );
    assert_eq!(first.data(200)["via"], "token");
    let mut page = Browser::new(&server);
    page.sign_in(&shop.email, "Sandbox-owner-1").data(200);
    // Once set, changing it needs the current one, token or not.
    let again = server.post_json(
        "/api/v1/session/password",
        Some(&shop.token),
        &json!({"newPassword": "Sandbox-owner-2"}),
    );
    again.assert_invalid("currentPassword");
}

#[test]
fn bad_sign_in_bodies_name_their_field() {
    let server = shop();
    let mut page = Browser::new(&server);
    let reply = page.post("/api/v1/session", &json!({"email": "", "password": ""}));
    reply.assert_invalid("email");
    reply.assert_invalid("password");
    let extra = page.post("/api/v1/session", &json!({"email": "a@b.al", "password": "x", "remember": true}));
    extra.assert_invalid("remember");
    assert_eq!(object_keys(&extra.body), ["errors", "message", "success"]);
}
