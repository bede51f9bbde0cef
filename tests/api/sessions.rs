//! People sign in to the owner's page as people: e-mail and password, a session cookie
//! (HttpOnly, SameSite=Strict), CSRF on every change, guesses slowed per account and address
//! (never the owner elsewhere), an idle expiry, sign-out, passwords changed, reset and set anew
//! with a code printed on the box, weak ones refused, a revoked user out everywhere, each
//! person's own profile; POS tokens work as before.

use std::net::Ipv4Addr;
use std::time::Duration;

use crate::common;
use crate::common::people::{
    Browser, FromAddress, OWNER_EMAIL, OWNER_PASSWORD, owner_from_the_box, set_cookie,
};
use crate::common::sim::SimServer;
use crate::common::till::open_till;
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
    assert_eq!(reply.header("strict-transport-security"), None, "HSTS is for HTTPS answers only");
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

/// A server whose general limiter lets a stranger's every guess reach the sign-in: only its
/// throttle stands in the way.
fn wide_open() -> TestServer {
    TestServer::start_with(|args| args.limits = "token=60000/m;ip=60000/m;general=60000/m".parse().unwrap())
}

fn sign_in_body(email: &str, password: &str) -> serde_json::Value {
    json!({"email": email, "password": password})
}

#[test]
fn wrong_passwords_slow_this_account_from_this_address_and_never_the_owner_elsewhere() {
    let server = wide_open();
    owner_from_the_box(&server);
    let mut page = Browser::new(&server);
    let wrong = page.sign_in(OWNER_EMAIL, "not the password");
    wrong.assert_error(401);
    assert_eq!(wrong.header("retry-after"), None, "one mistake costs no wait");
    assert!(set_cookie(&wrong).is_none());
    let unknown = page.sign_in("nobody@dyqani-ana.al", "not the password");
    assert_eq!((unknown.status, &unknown.body), (401, &wrong.body), "an unknown e-mail reads the same");

    // The first failures of a pair are free; from the third, each next guess waits, longer each time.
    page.sign_in(OWNER_EMAIL, "still not it").assert_error(401);
    let third = page.sign_in(OWNER_EMAIL, "still not it");
    assert_eq!((third.status, &third.body), (401, &wrong.body));
    assert_eq!(third.header("retry-after"), Some("1"), "the next guess waits a second");
    let right = page.sign_in(OWNER_EMAIL, OWNER_PASSWORD);
    right.assert_throttled();
    assert!(set_cookie(&right).is_none() && page.cookie.is_none(), "not checked: no session");

    // The owner elsewhere, and another account here, are not slowed by it.
    let mut elsewhere = FromAddress::new(&server, Ipv4Addr::new(127, 0, 0, 2));
    let owner = elsewhere.post("/api/v1/session", &sign_in_body(OWNER_EMAIL, OWNER_PASSWORD));
    assert_eq!(owner.status, 200, "{}", owner.body);
    assert!(owner.cookie.is_some_and(|c| c.starts_with("arka_session=")));
    let other = page.sign_in("besa@dyqani-ana.al", "nope nope nope");
    assert_eq!((other.status, other.header("retry-after")), (401, None));

    // Once the wait is over the right password works here too, and the pair starts afresh.
    server.advance_clock(Duration::from_secs(1));
    page.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
    page.sign_in(OWNER_EMAIL, "wrong again").assert_error(401);
    assert_eq!(page.sign_in(OWNER_EMAIL, "wrong again").header("retry-after"), None);
}

#[test]
fn failures_from_a_shops_one_address_slow_only_the_accounts_that_failed() {
    let server = wide_open();
    owner_from_the_box(&server);
    let mut page = Browser::new(&server);
    // Four people behind the shop's one address mistype five times each, half a minute apart:
    // twenty failures in two and a half minutes, and the owner signs in from the same address.
    for _ in 0..5 {
        for person in 0..4 {
            page.sign_in(&format!("kasa{person}@dyqani-ana.al"), "not a password").assert_error(401);
        }
        server.advance_clock(Duration::from_secs(30));
    }
    page.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
}

/// The book's figure (`domain::throttle::TRIES_IN_FIRST_HOUR`), held over HTTP: a stranger who
/// knows the owner's e-mail guesses ten times a second for an hour from three addresses, the
/// server's clock moved a tenth of a second a guess; the owner signs in from the shop every five
/// minutes all the while.
#[test]
fn a_strangers_hour_of_guesses_from_several_addresses_never_keeps_the_owner_out() {
    let server = wide_open();
    owner_from_the_box(&server);
    let mut strangers: Vec<FromAddress> =
        (2..5).map(|last| FromAddress::new(&server, Ipv4Addr::new(127, 0, 0, last))).collect();
    let mut tries = vec![0u32; strangers.len()];
    let mut owner_signed_in = 0;
    for tenth in 0..36_000usize {
        let who = tenth % strangers.len();
        let guess =
            strangers[who].post("/api/v1/session", &sign_in_body(OWNER_EMAIL, &format!("guess-{tenth}")));
        match guess.status {
            401 => tries[who] += 1,
            429 => {
                assert!(guess.retry_after.is_some_and(|s| (1..=900).contains(&s)), "{:?}", guess.retry_after)
            }
            other => panic!("guess {tenth}: {other} {}", guess.body),
        }
        if tenth % 3_000 == 0 {
            Browser::new(&server).sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
            owner_signed_in += 1;
        }
        server.advance_clock(Duration::from_millis(100));
    }
    assert_eq!(owner_signed_in, 12, "every five minutes of the hour");
    let stated = arka::domain::throttle::TRIES_IN_FIRST_HOUR;
    for (address, count) in tries.iter().enumerate() {
        assert!(*count <= stated, "address {address} had {count} tries, more than {stated}");
        assert!(
            *count > arka::domain::throttle::FREE_FAILURES,
            "address {address} was slowed, not shut: {count}"
        );
    }
    // A guess that waits is not checked: even the right password from a stranger's address (a
    // last wrong guess first, in case the hour ended on the address's turn).
    let stranger = &mut strangers[0];
    stranger.post("/api/v1/session", &sign_in_body(OWNER_EMAIL, "one more guess"));
    let waiting = stranger.post("/api/v1/session", &sign_in_body(OWNER_EMAIL, OWNER_PASSWORD));
    assert_eq!(waiting.status, 429, "{}", waiting.body);
    Browser::new(&server).sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
}

#[test]
fn a_session_idle_longer_than_the_setting_ends() {
    let server = TestServer::start_with(|args| args.session_idle = 2);
    let mut page = owner_from_the_box(&server);
    // Used within the idle time, it lives on.
    for _ in 0..3 {
        server.advance_clock(Duration::from_millis(800));
        page.get("/api/v1/session").data(200);
    }
    server.advance_clock(Duration::from_millis(3200));
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
fn a_token_alone_sets_no_first_password() {
    let server = TestServer::sandbox();
    let shop = common::register_sandbox(&server);
    let first = server.post_json(
        "/api/v1/session/password",
        Some(&shop.token),
        &json!({"newPassword": "Sandbox-owner-1"}),
    );
    first.assert_error(409);
    assert!(first.body["message"].as_str().unwrap().contains("reset-password"), "{}", first.text);
    let with_a_guess = server.post_json(
        "/api/v1/session/password",
        Some(&shop.token),
        &json!({"currentPassword": "anything", "newPassword": "Sandbox-owner-1"}),
    );
    with_a_guess.assert_error(409);
    Browser::new(&server).sign_in(&shop.email, "Sandbox-owner-1").assert_error(401);
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

/// The audit trail's entries of `action`, newest first, as the owner's page reads them.
fn trail(page: &Browser, action: &str) -> Vec<serde_json::Value> {
    page.get(&format!("/api/v1/audit?action={action}")).data(200)["entries"].as_array().unwrap().clone()
}

#[test]
fn revoking_a_user_signs_them_out_everywhere_and_blocks_sign_in_until_an_owner_restores_them() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (server, owner) = (&till.server, till.token.as_str());
    let body = json!({"name": "Besa Kola", "email": "besa@dyqani-ana.al", "branchId": till.branch_id,
                      "operatorCode": "op555op555", "fiscalTcrCode": till.tcr_code});
    let besa = server.post_json("/api/v1/on-boarding/user", Some(owner), &body).data(201)["user"].clone();
    let (besa_id, token) = (besa["id"].as_i64().unwrap(), besa["token"].as_str().unwrap().to_string());
    let password = json!({"newPassword": "Besa-fjalekalim-1"});
    server.post_json(&format!("/api/v1/users/{besa_id}/password"), Some(owner), &password).data(200);
    let mut page = Browser::new(server);
    page.sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1").data(200);
    let mut phone = Browser::new(server);
    phone.sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1").data(200);
    page.post("/api/v1/cash-register/deposit", &json!({"amount": 100})).data(201);
    server.get("/api/v1/account", Some(&token)).data(200);

    // She left the shop: the owner revokes her, and she is out at once, everywhere.
    let revoked = server.delete(&format!("/api/v1/users/{besa_id}/token"), Some(owner));
    assert_eq!(revoked.data(200)["user"]["sessionsEnded"], 2, "{}", revoked.text);
    page.get("/api/v1/account").assert_unauthenticated();
    phone.get("/api/v1/session").assert_unauthenticated();
    page.post("/api/v1/cash-register/deposit", &json!({"amount": 100})).assert_unauthenticated();
    page.post("/api/v1/users/me/token", &json!({})).assert_unauthenticated();
    server.get("/api/v1/account", Some(&token)).assert_unauthenticated();
    server
        .post_json(
            "/api/v1/session/password",
            Some(&token),
            &json!({"currentPassword": "Besa-fjalekalim-1", "newPassword": "Besa-e-re-2025"}),
        )
        .assert_unauthenticated();
    let again = Browser::new(server).sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1");
    again.assert_error(401);
    assert!(set_cookie(&again).is_none(), "her right password signs in no more");
    let reset = common::arka(&[
        "users",
        "reset-password",
        "besa@dyqani-ana.al",
        "--data-dir",
        server.data_dir().to_str().unwrap(),
    ]);
    assert!(!reset.status.success(), "the box prints no code for a revoked user");
    assert!(
        String::from_utf8_lossy(&reset.stderr).contains("revoked"),
        "{}",
        String::from_utf8_lossy(&reset.stderr)
    );

    // An owner restores her with a new token: her password signs in again.
    let restored = server.post_json(&format!("/api/v1/users/{besa_id}/token"), Some(owner), &json!({}));
    let new_token = restored.data(201)["user"]["token"].as_str().unwrap().to_string();
    server.get("/api/v1/account", Some(&new_token)).data(200);
    let mut back = Browser::new(server);
    back.sign_in("besa@dyqani-ana.al", "Besa-fjalekalim-1").data(200);
    let audit = |action: &str| {
        server.get(&format!("/api/v1/audit?action={action}"), Some(owner)).data(200)["entries"][0].clone()
    };
    let revoke = audit("token.revoke");
    assert_eq!(
        (revoke["object"].clone(), revoke["after"]["sessionsEnded"].clone()),
        (json!(besa_id.to_string()), json!(2))
    );
    let restore = audit("user.restore");
    assert_eq!(restore["object"], besa_id.to_string());
    assert_eq!(
        (restore["before"]["revoked"].clone(), restore["after"]["revoked"].clone()),
        (json!(true), json!(false))
    );
}

#[test]
fn weak_passwords_are_refused_wherever_a_password_is_set() {
    let server = shop();
    let mut page = Browser::new(&server);
    page.post("/api/v1/setup/business", &common::people::business_body()).data(200);
    for weak in ["password12", "1234567890", "            ", "qwertyuiop", "Dragon2024!"] {
        let mut body = common::people::owner_body();
        body["password"] = json!(weak);
        let refused = page.post("/api/v1/setup/owner", &body);
        refused.assert_invalid("password");
    }
    let mut owner = page;
    owner.post("/api/v1/setup/owner", &common::people::owner_body()).data(201);
    let branch_id = owner.get("/api/v1/session").data(200)["user"]["branchId"].as_i64().unwrap();
    let besa = owner
        .post("/api/v1/on-boarding/user", &json!({"name": "Besa", "email": "besa@dyqani-ana.al", "branchId": branch_id, "operatorCode": "ab123ab123"}))
        .data(201)["user"]["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/v1/users/{besa}/password");
    let common_one = owner.post(&path, &json!({"newPassword": "sunshine123"}));
    common_one.assert_invalid("newPassword");
    assert!(common_one.text.contains("most common passwords"), "{}", common_one.text);
    owner.post(&path, &json!({"newPassword": "Besa-fjalekalim-1"})).data(200);
    let own = owner.post(
        "/api/v1/session/password",
        &json!({"currentPassword": OWNER_PASSWORD, "newPassword": "ana@dyqani-ana.al"}),
    );
    own.assert_invalid("newPassword");
    let pattern = owner.post(
        "/api/v1/session/password",
        &json!({"currentPassword": OWNER_PASSWORD, "newPassword": "abababababab"}),
    );
    assert!(pattern.text.contains("pattern"), "{}", pattern.text);
}

#[test]
fn a_code_printed_on_the_box_sets_a_new_password_once() {
    let server = shop();
    let left_open = owner_from_the_box(&server);
    let data = server.data_dir();
    let printed =
        common::arka_ok(&["users", "reset-password", OWNER_EMAIL, "--data-dir", data.to_str().unwrap()]);
    let code = common::printed_value(&printed, &format!("one-time code for {OWNER_EMAIL}:"));
    let code = code.split_whitespace().next().unwrap().to_string();
    assert_eq!(code.len(), 11, "{printed}");
    let unknown = common::arka(&[
        "users",
        "reset-password",
        "nobody@dyqani-ana.al",
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert!(!unknown.status.success());

    let mut forgot = Browser::new(&server);
    let reset = |page: &mut Browser, code: &str, password: &str| {
        page.post(
            "/api/v1/session/reset",
            &json!({"email": OWNER_EMAIL, "code": code, "newPassword": password}),
        )
    };
    reset(&mut forgot, "ABCDE-FGHJK", "Kafe-e-re-2025").assert_invalid("code");
    reset(&mut forgot, &code, "password12").assert_invalid("newPassword");
    let done = reset(&mut forgot, &code.to_lowercase(), "Kafe-e-re-2025");
    assert_eq!(done.data(200)["user"]["email"], OWNER_EMAIL);
    assert!(set_cookie(&done).is_some(), "signed in with the new password's session");
    forgot.get("/api/v1/owner/today").data(200);
    left_open.get("/api/v1/session").assert_unauthenticated();
    reset(&mut Browser::new(&server), &code, "Kafe-e-tjeter-7").assert_invalid("code");
    Browser::new(&server).sign_in(OWNER_EMAIL, OWNER_PASSWORD).assert_error(401);
    Browser::new(&server).sign_in(OWNER_EMAIL, "Kafe-e-re-2025").data(200);

    let issued = &trail(&forgot, "user.reset_code")[0];
    assert_eq!((issued["role"].clone(), issued["userId"].clone()), (json!("cli"), json!(null)));
    let set = &trail(&forgot, "user.password")[0];
    assert_eq!(set["after"]["passwordSetBy"], "reset code");
    assert_eq!(set["role"], "owner");

    // The owner's own token changes it too, proving the current one: in the trail, by token.
    let token = forgot.post("/api/v1/users/me/token", &json!({})).data(201)["user"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .post_json(
            "/api/v1/session/password",
            Some(&token),
            &json!({"currentPassword": "Kafe-e-re-2025", "newPassword": "Kafe-e-trete-3"}),
        )
        .data(200);
    let changed = &trail(&Browser::new(&server).signed_in(OWNER_EMAIL, "Kafe-e-trete-3"), "user.password")[0];
    assert_eq!(
        (changed["after"]["passwordSetBy"].clone(), changed["after"]["via"].clone()),
        (json!("self"), json!("token"))
    );
}

#[test]
fn each_person_sees_and_changes_their_own_profile() {
    let server = shop();
    let mut owner = owner_from_the_box(&server);
    let me = owner.get("/api/v1/users/me").data(200).clone();
    assert_eq!(object_keys(&me), ["passwordSet", "user"]);
    assert_eq!((me["user"]["email"].clone(), me["passwordSet"].clone()), (json!(OWNER_EMAIL), json!(true)));
    assert!(me["user"]["operatorCode"].is_null(), "the wizard's owner gave none");
    let branch_id = me["user"]["branchId"].as_i64().unwrap();
    let besa = owner
        .post("/api/v1/on-boarding/user", &json!({"name": "Besa", "email": "besa@dyqani-ana.al", "branchId": branch_id, "operatorCode": "ab123ab123"}))
        .data(201)["user"]
        .clone();
    let token = besa["token"].as_str().unwrap();
    assert_eq!(server.get("/api/v1/users/me", Some(token)).data(200)["passwordSet"], false);

    // The owner gives their own operator code, so that they can cancel a sale.
    let patched = owner.patch("/api/v1/users/me", &json!({"operatorCode": "op777op777", "name": "Ana H."}));
    assert_eq!(patched.data(200)["user"]["operatorCode"], "op777op777");
    assert_eq!(owner.get("/api/v1/session").data(200)["user"]["name"], "Ana H.");
    let entry = &trail(&owner, "user.update")[0];
    assert_eq!(
        (entry["before"]["operatorCode"].clone(), entry["after"]["operatorCode"].clone()),
        (json!(null), json!("op777op777"))
    );
    assert_eq!(entry["object"], me["user"]["id"].to_string());

    // A cashier edits theirs with their token; never their role, nor a badly shaped code.
    let mine = server.patch_json("/api/v1/users/me", Some(token), &json!({"name": "Besa Kola"}));
    assert_eq!(mine.data(200)["user"]["name"], "Besa Kola");
    server.patch_json("/api/v1/users/me", Some(token), &json!({"role": "owner"})).assert_invalid("role");
    server
        .patch_json("/api/v1/users/me", Some(token), &json!({"operatorCode": "12"}))
        .assert_invalid("operatorCode");
    server.patch_json("/api/v1/users/me", Some(token), &json!({"name": "  "})).assert_invalid("name");
    assert_eq!(server.get("/api/v1/users/me", Some(token)).data(200)["user"]["role"], "cashier");
    server.get("/api/v1/users/me", None).assert_unauthenticated();
}
