//! Roles and tokens people can manage (the book's "Roles and tokens"): every operation of
//! assets/openapi.yaml against an owner's, a manager's, a cashier's, another company's owner's,
//! the partner's and no token, as the permission table says; what a cashier may do on their own
//! till; the rules of who gives which role; tokens listed, rotated and revoked.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;

use crate::common::depot::note;
use crate::common::people::Browser;
use crate::common::sim::SimServer;
use crate::common::snapshot::{changed, snapshot};
use crate::common::till::{Till, coffee_and_water, on_board, open_till, open_till_with};
use crate::common::{Reply, TestServer, bank_account_body, object_keys, register_sandbox};
use chrono::Utc;
use serde_json::{Value, json};

/// Wide enough that no budget answers before a rule (the intervals of a few routes still do).
const LIMITS: &str = "token=60000/m;ip=60000/m;general=60000/m;fiscal=60000/m,600000/h;\
    registration=60000/m,600000/h;cancel=60000/m;bulk=60000/m;print=60000/m;reports=60000/m;\
    search=60000/m;marketplace.reads=60000/m;marketplace.writes=60000/m;interval.products=1s";

const MARKET: &str = "/api/partner/v1/marketplace";

fn today() -> String {
    Utc::now().date_naive().to_string()
}

/// A user of the company made by `by` through on-boarding: (id, token).
fn make_user(server: &TestServer, by: &str, extra: Value) -> (i64, String) {
    let mut body = json!({"name": "Blerim", "branchId": extra["branchId"], "operatorCode": "op321op321"});
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    let reply = server.post_json("/api/v1/on-boarding/user", Some(by), &body);
    let user = &reply.data(201)["user"];
    (user["id"].as_i64().unwrap(), user["token"].as_str().unwrap().to_string())
}

/// A fiscal device registered in `branch`: its TCR code.
fn device(server: &TestServer, owner: &str, branch: i64, name: &str) -> String {
    let body = json!({"branchId": branch, "name": name, "fromDate": today()});
    let reply = server.post_json("/api/v1/on-boarding/fiscal-device", Some(owner), &body);
    reply.data(201)["device"]["fiscalTcrCode"].as_str().unwrap().to_string()
}

/// Who calls, in the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Nobody,
    Partner,
    Cashier,
    Manager,
    OtherOwner,
    Owner,
    /// A manager the owner revoked: the token they had.
    RevokedToken,
    /// The same revoked manager's page: the session cookie and CSRF token they had.
    RevokedSession,
}

impl Who {
    const ALL: [Who; 8] = [
        Who::Nobody,
        Who::Partner,
        Who::Cashier,
        Who::Manager,
        Who::OtherOwner,
        Who::Owner,
        Who::RevokedToken,
        Who::RevokedSession,
    ];

    fn name(self) -> &'static str {
        match self {
            Who::Nobody => "nobody",
            Who::Partner => "partner",
            Who::Cashier => "cashier",
            Who::Manager => "manager",
            Who::OtherOwner => "another company's owner",
            Who::Owner => "owner",
            Who::RevokedToken => "revoked manager's token",
            Who::RevokedSession => "revoked manager's session",
        }
    }

    /// What the table's `x-arka-role` lets this caller do: a revoked user is nobody.
    fn may(self, role: &str) -> bool {
        let rank = |r: &str| ["cashier", "manager", "owner"].iter().position(|x| *x == r);
        match (role, self) {
            ("public", _) => true,
            ("partner", who) => who == Who::Partner,
            (_, Who::Nobody | Who::Partner | Who::RevokedToken | Who::RevokedSession) => false,
            (role, Who::Cashier) => rank(role) <= Some(0),
            (role, Who::Manager) => rank(role) <= Some(1),
            (_, Who::OtherOwner | Who::Owner) => true,
        }
    }

    /// The status of a refusal: no user token where one is needed is 401, a role too low 403.
    fn refused_with(self, role: &str) -> u16 {
        match (role, self) {
            ("partner", Who::Nobody | Who::RevokedToken | Who::RevokedSession) => 401,
            ("partner", _) => 403,
            (_, Who::Nobody | Who::Partner | Who::RevokedToken | Who::RevokedSession) => 401,
            _ => 403,
        }
    }
}

/// How a caller of the matrix proves who they are.
#[derive(Clone)]
enum Credential {
    Bearer(String),
    /// A page's session: the cookie and the CSRF token every change carries.
    Session {
        cookie: String,
        csrf: String,
    },
}

/// What the matrix's paths point at: the cashier's own sale, so that every role that may read or
/// cancel it meets no scope rule; the other ids are the company's.
struct Fixtures {
    sale_id: i64,
    sale_internal_id: String,
    client_id: i64,
    product_id: i64,
    category_id: i64,
    bank_account_id: i64,
    branch_id: i64,
    cashier_id: i64,
    spare_id: i64,
}

fn fill(template: &str, f: &Fixtures) -> String {
    let id = if template.contains("/wtn/") || template.contains("/marketplace/") {
        999_999
    } else if template.contains("/invoice/") {
        f.sale_id
    } else if template.contains("/clients/") {
        f.client_id
    } else if template.contains("/products/") {
        f.product_id
    } else if template.contains("/categories/") {
        f.category_id
    } else if template.contains("/bank-accounts/") {
        f.bank_account_id
    } else if template.contains("/branch/") {
        f.branch_id
    } else if template.contains("/on-boarding/user/") {
        f.cashier_id
    } else if template.contains("/users/") {
        f.spare_id
    } else {
        999_999
    };
    template
        .replace("{id}", &id.to_string())
        .replace("{internalId}", &f.sale_internal_id)
        .replace("{eic}", "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")
        .replace("{code}", "EUR")
        .replace("{user_id}", &f.cashier_id.to_string())
        .replace("{version}", "0")
        .replace("{name}", "app.js")
}

fn call(server: &TestServer, method: &str, path: &str, credential: Option<&Credential>) -> Reply {
    let bearer = match credential {
        Some(Credential::Bearer(token)) => Some(format!("Bearer {token}")),
        _ => None,
    };
    let mut headers: Vec<(&str, &str)> = bearer.iter().map(|b| ("Authorization", b.as_str())).collect();
    if let Some(Credential::Session { cookie, csrf }) = credential {
        headers.push(("Cookie", cookie));
        headers.push(("X-CSRF-Token", csrf));
    }
    let body = matches!(method, "POST" | "PUT" | "PATCH").then_some(("application/json", b"{}".as_slice()));
    server.request(method, path, &headers, body)
}

/// A refusal in the envelope of its path: the marketplace's `{status, message, code}`, else the
/// standard one (403) or `{message}` (401).
fn assert_refused(reply: &Reply, status: u16, path: &str, what: &str) {
    assert_eq!(reply.status, status, "{what}: {}", reply.text);
    if path.starts_with(MARKET) {
        let code = if status == 401 { "unauthenticated" } else { "forbidden" };
        assert_eq!(reply.body["status"], json!(false), "{what}: {}", reply.text);
        assert_eq!(reply.body["code"], json!(code), "{what}: {}", reply.text);
    } else if status == 401 {
        reply.assert_unauthenticated();
    } else {
        reply.assert_error(403);
    }
}

/// The marketplace's own rule met for `user`: the add-on, one venue (set by `owner`) and the right.
fn marketplace_for(server: &TestServer, owner: &str, venue: &str, users: &[i64]) {
    let settings = json!({"enabled": true, "venue": {"wolt_venue_id": venue, "name": venue,
                          "api_key": format!("key-{venue}"), "webhook_secret": format!("secret-{venue}")}});
    server.put_json(&format!("{MARKET}/settings"), Some(owner), &settings).data(200);
    for user in users {
        server
            .put_json(&format!("{MARKET}/rights/{user}"), Some(owner), &json!({"marketplace": true}))
            .data(200);
    }
}

#[test]
fn every_operation_answers_each_role_as_the_permission_table_says() {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| args.limits = LIMITS.parse().unwrap());
    let server = &till.server;
    let owner = till.token.clone();
    let partner = server.create_partner("matrix");
    let other = on_board(server, "K12345678L", 0);

    let tcr = device(server, &owner, till.branch_id, "Kasa 2");
    let (manager_id, manager) = make_user(
        server,
        &owner,
        json!({"email": "manager@shop.al", "branchId": till.branch_id, "role": "manager"}),
    );
    let (cashier_id, cashier) = make_user(
        server,
        &owner,
        json!({"email": "cashier@shop.al", "branchId": till.branch_id, "fiscalTcrCode": tcr}),
    );
    let (spare_id, _) =
        make_user(server, &owner, json!({"email": "spare@shop.al", "branchId": till.branch_id}));
    let sale = server.post_json("/api/v1/invoice/cash", Some(&cashier), &coffee_and_water("matrix-sale-1"));
    let sale_id = sale.data(201)["invoice"]["id"].as_i64().unwrap();
    let client = json!({"type": "company", "company": {"name": "Klienti", "id": {"type": "nuis", "value": "K81234001A"}},
                        "address": {"line": "Rruga 1", "city": "Tiranë", "country": "ALB"}});
    let client_id = server.post_json("/api/v2/clients", Some(&owner), &client).data(201)["client"]["id"]
        .as_i64()
        .unwrap();
    let category = json!({"name": "Pije", "color": "#aa0000"});
    let category_id =
        server.post_json("/api/v1/product/categories", Some(&manager), &category).data(201)["category"]["id"]
            .as_i64()
            .unwrap();
    let product = json!({"name": "Ujë", "last_price": 50, "vat_rate": "20", "service": false});
    let product_id = server.post_json("/api/v1/products", Some(&owner), &product).data(201)["product"]["id"]
        .as_i64()
        .unwrap();
    let bank_account_id = server
        .post_json("/api/v1/on-boarding/bank-account", Some(&owner), &bank_account_body("BKT"))
        .data(201)["bankAccount"]["id"]
        .as_i64()
        .unwrap();
    marketplace_for(server, &owner, "venue-matrix", &[till.user_id, manager_id, cashier_id]);
    marketplace_for(server, &other.token, "venue-other", &[other.user_id]);
    let fixtures = Fixtures {
        sale_id,
        sale_internal_id: "matrix-sale-1".into(),
        client_id,
        product_id,
        category_id,
        bank_account_id,
        branch_id: till.branch_id,
        cashier_id,
        spare_id,
    };

    let (gone_token, gone_session) = a_revoked_manager(server, &owner, till.branch_id);
    let bearer = |token: String| Credential::Bearer(token);
    let mut tokens: BTreeMap<&str, Credential> = BTreeMap::from([
        (Who::Partner.name(), bearer(partner)),
        (Who::Cashier.name(), bearer(cashier)),
        (Who::Manager.name(), bearer(manager)),
        (Who::OtherOwner.name(), bearer(other.token.clone())),
        (Who::Owner.name(), bearer(owner.clone())),
        (Who::RevokedToken.name(), gone_token),
        (Who::RevokedSession.name(), gone_session),
    ]);
    let doc: Value = serde_yaml_ng::from_str(include_str!("../../assets/openapi.yaml")).unwrap();
    let db = server.data_dir().join("arka.db");
    let (mut allowed, mut refused) = (0, 0);
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let method = method.to_uppercase();
            if !["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&method.as_str()) {
                continue;
            }
            let role = operation["x-arka-role"].as_str().unwrap_or_else(|| panic!("{method} {template}"));
            let path = fill(template, &fixtures);
            for who in Who::ALL {
                let token = tokens.get(who.name()).cloned();
                let what = format!("{method} {path} as the {} (x-arka-role {role})", who.name());
                if who.may(role) {
                    let reply = call(server, &method, &path, token.as_ref());
                    if template.starts_with("/api/v1/owner/backup") {
                        // The backups' scope: the owner of the box's one company, and this box
                        // holds two (owner_page's stories take them on a box of one).
                        assert_eq!(reply.status, 403, "{what}: the box has two companies: {}", reply.text);
                        assert!(reply.text.contains("the box's one company"), "{what}: {}", reply.text);
                        allowed += 1;
                        continue;
                    }
                    assert_ne!(reply.status, 403, "{what} is allowed: {}", reply.text);
                    if !matches!(role, "public" | "partner") {
                        assert_ne!(reply.status, 401, "{what}: the token works: {}", reply.text);
                    }
                    if template == "/api/v1/users/me/token" {
                        let rotated = reply.data(201)["user"]["token"].as_str().unwrap().to_string();
                        tokens.insert(who.name(), Credential::Bearer(rotated));
                    }
                    allowed += 1;
                } else {
                    let before = snapshot(&db);
                    let reply = call(server, &method, &path, token.as_ref());
                    assert_refused(&reply, who.refused_with(role), &path, &what);
                    let after = snapshot(&db);
                    let tables = changed(&before, &after);
                    assert!(tables.is_empty(), "{what} was refused but changed the tables {tables:?}");
                    refused += 1;
                }
            }
        }
    }
    assert!(allowed > 300 && refused > 400, "{allowed} allowed and {refused} refused calls");

    the_last_working_owner_stays(server, &tokens[Who::Owner.name()], &till, &db);
}

/// A manager who left: signed in on the page and on a POS, then revoked by the owner. Their old
/// token and their old session (cookie and CSRF token).
fn a_revoked_manager(server: &TestServer, owner: &str, branch_id: i64) -> (Credential, Credential) {
    let (gone_id, gone_token) =
        make_user(server, owner, json!({"email": "gone@shop.al", "branchId": branch_id, "role": "manager"}));
    let password = json!({"newPassword": "Iku-nga-dyqani-7"});
    server.post_json(&format!("/api/v1/users/{gone_id}/password"), Some(owner), &password).data(200);
    let mut page = Browser::new(server);
    page.sign_in("gone@shop.al", "Iku-nga-dyqani-7").data(200);
    page.get("/api/v1/owner/today").data(200);
    let revoked = server.delete(&format!("/api/v1/users/{gone_id}/token"), Some(owner));
    assert_eq!(revoked.data(200)["user"]["sessionsEnded"], 1);
    let session =
        Credential::Session { cookie: page.cookie.clone().unwrap(), csrf: page.csrf.clone().unwrap() };
    (Credential::Bearer(gone_token), session)
}

/// The last owner whose access works stays one: a second owner revoked first counts for nothing,
/// so the owner's own demotion is refused and changes nothing, until the other is restored.
fn the_last_working_owner_stays(server: &TestServer, owner: &Credential, till: &Till, db: &Path) {
    let Credential::Bearer(owner) = owner else { panic!("the owner calls with a token") };
    let (second_id, _) = make_user(
        server,
        owner,
        json!({"email": "second.owner@shop.al", "branchId": till.branch_id, "role": "owner"}),
    );
    server.delete(&format!("/api/v1/users/{second_id}/token"), Some(owner)).data(200);
    let myself = format!("/api/v1/on-boarding/user/{}", till.user_id);
    let before = snapshot(db);
    for role in ["manager", "cashier"] {
        let demoted = server.post_json(&myself, Some(owner), &json!({"role": role}));
        demoted.assert_error(409);
        assert!(demoted.body["errors"][0].as_str().unwrap().starts_with("role: "), "{}", demoted.text);
    }
    server.delete(&format!("/api/v1/users/{}/token", till.user_id), Some(owner)).assert_error(409);
    assert_eq!(snapshot(db), before, "the refused demotions changed nothing");
    server.post_json(&format!("/api/v1/users/{second_id}/token"), Some(owner), &json!({})).data(201);
    let demoted = server.post_json(&myself, Some(owner), &json!({"role": "manager"}));
    assert_eq!(demoted.data(200)["user"]["role"], "manager", "another owner's access works again");
}

/// Two requests on one kept-alive connection: the status of each.
struct KeptAlive {
    reader: BufReader<TcpStream>,
}

impl KeptAlive {
    fn open(server: &TestServer) -> KeptAlive {
        let address = server.base_url().trim_start_matches("http://").to_string();
        KeptAlive { reader: BufReader::new(TcpStream::connect(address).unwrap()) }
    }

    fn account(&mut self, token: &str) -> u16 {
        self.get("/api/v1/account", token)
    }

    fn get(&mut self, path: &str, token: &str) -> u16 {
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: arka\r\nAuthorization: Bearer {token}\r\nConnection: keep-alive\r\n\r\n"
        );
        self.reader.get_mut().write_all(request.as_bytes()).unwrap();
        let mut status_line = String::new();
        self.reader.read_line(&mut status_line).unwrap();
        let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
            assert!(!line.to_ascii_lowercase().starts_with("connection: close"), "the connection stays open");
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).unwrap();
        status
    }
}

#[test]
fn a_rotated_or_revoked_token_answers_401_at_once_even_on_a_kept_alive_connection() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (server, owner) = (&till.server, &till.token);
    let (cashier_id, first) = make_user(
        server,
        owner,
        json!({"email": "kasa@dyqani.al", "branchId": till.branch_id, "fiscalTcrCode": till.tcr_code}),
    );
    let mut pos = KeptAlive::open(server);
    assert_eq!(pos.account(&first), 200);
    assert_eq!(pos.account(&first), 200, "read again from the callers' cache");
    // The till's balance is kept 5 seconds (the spec): the old token's next read is 401 all the same.
    let balance = "/api/v1/cash-register/balance";
    assert_eq!(pos.get(balance, &first), 200);
    assert_eq!(pos.get(balance, &first), 200, "read again from the balance's cache");

    let rotated = server.post_json(&format!("/api/v1/users/{cashier_id}/token"), Some(owner), &json!({}));
    let second = rotated.data(201)["user"]["token"].as_str().unwrap().to_string();
    assert_eq!(rotated.body["data"]["user"]["role"], json!("cashier"));
    assert_eq!(object_keys(rotated.data(201)), ["pairingCard", "user"]);
    assert_eq!(
        object_keys(&rotated.data(201)["user"]),
        ["branchId", "fiscalTcrCode", "id", "name", "operatorCode", "role", "token"]
    );
    assert_ne!(second, first);
    assert_eq!(pos.account(&first), 401, "the old token, on the same connection, at once");
    assert_eq!(pos.get(balance, &first), 401, "the old token, within the balance's 5 seconds");
    assert_eq!(pos.account(&second), 200);
    assert_eq!(pos.get(balance, &second), 200);

    let revoked = server.delete(&format!("/api/v1/users/{cashier_id}/token"), Some(owner));
    assert_eq!(
        object_keys(&revoked.data(200)["user"]),
        ["branchId", "fiscalTcrCode", "id", "name", "operatorCode", "role", "sessionsEnded", "tokenRevoked"]
    );
    assert_eq!(revoked.data(200)["user"]["tokenRevoked"], true);
    assert_eq!(pos.account(&second), 401, "a revoked token, on the same connection, at once");
    assert_eq!(pos.get(balance, &second), 401, "a revoked token, within the balance's 5 seconds");
    server.post_json("/api/v1/users/me/token", Some(&second), &json!({})).assert_unauthenticated();

    let third = server
        .post_json(&format!("/api/v1/users/{cashier_id}/token"), Some(owner), &json!({}))
        .data(201)["user"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(pos.account(&third), 200, "an owner gives a revoked user a working token again");
    let own = server.post_json("/api/v1/users/me/token", Some(&third), &json!({}));
    let fourth = own.data(201)["user"]["token"].as_str().unwrap().to_string();
    assert_eq!(own.body["data"]["user"]["id"], json!(cashier_id));
    assert_eq!(pos.account(&third), 401, "a user's own rotation too");
    assert_eq!(pos.account(&fourth), 200);

    // Stored as a hash and a prefix only.
    let conn = rusqlite::Connection::open(server.data_dir().join("arka.db")).unwrap();
    let (hash, prefix): (String, String) = conn
        .query_row("SELECT token_hash, token_prefix FROM users WHERE id = ?1", [cashier_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(hash, arka::ops::secrets::hash_token(&fourth));
    assert_eq!(prefix, fourth[..15]);
}

#[test]
fn the_owner_lists_users_with_role_last_use_and_token_prefix_never_the_token() {
    let server = TestServer::sandbox();
    let owner = register_sandbox(&server);
    let (manager_id, manager) = make_user(
        &server,
        &owner.token,
        json!({"email": "menaxher@dyqani.al", "branchId": owner.branch_id, "role": "manager"}),
    );
    let (cashier_id, cashier) =
        make_user(&server, &owner.token, json!({"email": "kasa@dyqani.al", "branchId": owner.branch_id}));
    server.get("/api/v1/account", Some(&cashier)).data(200);

    let reply = server.get("/api/v1/users", Some(&owner.token));
    let items = reply.data(200)["items"].as_array().unwrap().clone();
    let of = |id: i64| items.iter().find(|u| u["id"] == json!(id)).unwrap().clone();
    assert_eq!(items[0]["role"], json!("owner"), "owners first: {}", reply.text);
    assert_eq!(of(owner.user_id)["token"]["prefix"], json!(owner.token[..15]));
    assert_eq!(of(manager_id)["role"], json!("manager"));
    let listed = of(cashier_id);
    assert_eq!(listed["role"], json!("cashier"), "a user made without a role is a cashier");
    assert_eq!(listed["token"], json!({"prefix": cashier[..15], "revoked": false, "revokedAt": null}));
    assert_eq!(listed["lastUse"]["ip"], json!("127.0.0.1"), "{listed}");
    assert!(listed["lastUse"]["at"].as_str().is_some_and(|at| at.starts_with(&today()[..4])), "{listed}");
    for secret in [&owner.token, &manager, &cashier] {
        assert!(!reply.text.contains(secret.as_str()), "a token in the list");
        assert!(!reply.text.contains(&arka::ops::secrets::hash_token(secret)), "a token's hash in the list");
    }
    assert!(of(manager_id)["lastUse"].is_null(), "a token never used has no last use");

    server.get("/api/v1/users", Some(&manager)).assert_error(403);
    server.get("/api/v1/users", Some(&cashier)).assert_error(403);
    server.get("/api/v1/users", None).assert_unauthenticated();

    // The last use survives a restart: written at the stop.
    let mut server = server;
    server.restart();
    let reply = server.get("/api/v1/users", Some(&owner.token));
    let items = reply.data(200)["items"].as_array().unwrap().clone();
    let cashier_after = items.iter().find(|u| u["id"] == json!(cashier_id)).unwrap();
    assert_eq!(cashier_after["lastUse"], listed["lastUse"], "{}", reply.text);
}

#[test]
fn only_an_owner_gives_roles_and_the_company_keeps_an_owner() {
    let server = TestServer::sandbox();
    let owner = register_sandbox(&server);
    let branch = owner.branch_id;
    let registered = server.get("/api/v1/account", Some(&owner.token));
    assert_eq!(registered.data(200)["user"]["role"], json!("owner"), "the registration's user");
    let (manager_id, manager) = make_user(
        &server,
        &owner.token,
        json!({"email": "m@dyqani.al", "branchId": branch, "role": "manager"}),
    );
    let (cashier_id, cashier) =
        make_user(&server, &manager, json!({"email": "c@dyqani.al", "branchId": branch}));
    let users =
        || server.get("/api/v1/users", Some(&owner.token)).data(200)["items"].as_array().unwrap().len();
    let count = users();

    let body = |email: &str, role: Value| json!({"name": "X", "email": email, "branchId": branch, "operatorCode": "op999op999", "role": role});
    let refused =
        server.post_json("/api/v1/on-boarding/user", Some(&manager), &body("x1@dyqani.al", json!("manager")));
    refused.assert_error(403);
    server
        .post_json("/api/v1/on-boarding/user", Some(&manager), &body("x2@dyqani.al", json!("owner")))
        .assert_error(403);
    server
        .post_json("/api/v1/on-boarding/user", Some(&cashier), &body("x3@dyqani.al", json!(null)))
        .assert_error(403);
    server
        .post_json("/api/v1/on-boarding/user", Some(&owner.token), &body("x4@dyqani.al", json!("boss")))
        .assert_invalid("role");
    server
        .post_json("/api/v1/on-boarding/user", Some(&owner.token), &body("x5@dyqani.al", json!(7)))
        .assert_invalid("role");
    for spelled in [" owner", "owner ", "Owner", "OWNER"] {
        server
            .post_json("/api/v1/on-boarding/user", Some(&owner.token), &body("x6@dyqani.al", json!(spelled)))
            .assert_invalid("role");
    }
    assert_eq!(users(), count, "nothing written by a refusal");

    let user = |id: i64| format!("/api/v1/on-boarding/user/{id}");
    server.post_json(&user(cashier_id), Some(&manager), &json!({"role": "manager"})).assert_error(403);
    server.post_json(&user(cashier_id), Some(&owner.token), &json!({"role": "boss"})).assert_invalid("role");
    server
        .post_json(&user(cashier_id), Some(&owner.token), &json!({"role": " owner"}))
        .assert_invalid("role");
    server.post_json(&user(cashier_id), Some(&manager), &json!({"operatorCode": "op777op777"})).data(200);
    server.post_json(&user(manager_id), Some(&manager), &json!({"operatorCode": "op778op778"})).data(200);
    server.post_json(&user(owner.user_id), Some(&manager), &json!({"name": "Ana"})).assert_error(403);
    server.post_json(&user(manager_id), Some(&cashier), &json!({"name": "M"})).assert_error(403);

    let demoted = server.post_json(&user(owner.user_id), Some(&owner.token), &json!({"role": "manager"}));
    demoted.assert_error(409);
    assert!(demoted.body["errors"][0].as_str().unwrap().starts_with("role: "), "{}", demoted.text);
    let revoked = server.delete(&format!("/api/v1/users/{}/token", owner.user_id), Some(&owner.token));
    revoked.assert_error(409);
    assert!(revoked.body["errors"][0].as_str().unwrap().starts_with("role: "), "{}", revoked.text);

    let promoted = server.post_json(&user(manager_id), Some(&owner.token), &json!({"role": "owner"}));
    assert_eq!(promoted.data(200)["user"]["role"], json!("owner"));
    server.get("/api/v1/users", Some(&manager)).data(200);
    let stepped_down =
        server.post_json(&user(owner.user_id), Some(&owner.token), &json!({"role": "cashier"}));
    assert_eq!(stepped_down.data(200)["user"]["role"], json!("cashier"), "another owner is left");
    server.get("/api/v1/users", Some(&owner.token)).assert_error(403);
}

/// The company's till of `till` and a second till with two cashiers; each sells.
struct TwoTills {
    till: Till,
    second_tcr: String,
    cashier: String,
    colleague: String,
}

fn two_tills(sim: &SimServer) -> TwoTills {
    let till = open_till_with(sim, |args| args.limits = LIMITS.parse().unwrap());
    let server = &till.server;
    let second_tcr = device(server, &till.token, till.branch_id, "Kasa 2");
    // A device registered in the caller's unit goes on the caller: the owner keeps the first one.
    let keep = json!({"fiscalTcrCode": till.tcr_code});
    server
        .post_json(&format!("/api/v1/on-boarding/user/{}", till.user_id), Some(&till.token), &keep)
        .data(200);
    let (_, cashier) = make_user(
        server,
        &till.token,
        json!({"email": "kasa2@shop.al", "branchId": till.branch_id, "fiscalTcrCode": second_tcr}),
    );
    let (_, colleague) = make_user(
        server,
        &till.token,
        json!({"email": "kasa2b@shop.al", "branchId": till.branch_id, "fiscalTcrCode": second_tcr, "operatorCode": "op654op654"}),
    );
    TwoTills { till, second_tcr, cashier, colleague }
}

#[test]
fn a_cashier_reads_and_cancels_only_on_their_own_till_and_day() {
    let sim = SimServer::start();
    let shop = two_tills(&sim);
    let server = &shop.till.server;
    let owner = shop.till.token.as_str();
    let sell = |token: &str, internal_id: &str| {
        let reply = server.post_json("/api/v1/invoice/cash", Some(token), &coffee_and_water(internal_id));
        reply.data(201)["invoice"]["id"].as_i64().unwrap()
    };
    let owners_sale = sell(owner, "till-1-sale");
    let first = sell(&shop.cashier, "till-2-sale-1");
    let second = sell(&shop.cashier, "till-2-sale-2");
    let colleagues = sell(&shop.colleague, "till-2-colleague");

    let list = server.get("/api/v1/invoice?limit=100", Some(&shop.cashier));
    let ids: Vec<i64> =
        list.data(200)["items"].as_array().unwrap().iter().map(|i| i["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [colleagues, second, first], "their till's documents, not the owner's till's");
    let all = server.get("/api/v2/invoice?limit=100", Some(owner));
    assert_eq!(all.data(200)["items"].as_array().unwrap().len(), 4, "an owner reads every document");

    for path in [
        format!("/api/v1/invoice/{owners_sale}/details"),
        format!("/api/v2/invoice/{owners_sale}/details"),
        format!("/api/v1/invoice/print/{owners_sale}"),
    ] {
        server.get(&path, Some(&shop.cashier)).assert_error(403);
        assert_eq!(server.get(&path, Some(owner)).status, 200, "{path} as the owner");
    }
    server
        .post_json("/api/v1/invoice/details/till-1-sale", Some(&shop.cashier), &json!({}))
        .assert_error(403);
    server.get(&format!("/api/v1/invoice/{colleagues}/details"), Some(&shop.cashier)).data(200);

    // Cancellations: their own sales of the day only.
    let cancel = |token: &str, id: i64| {
        server.post_json(&format!("/api/v1/invoice/cancel/{id}"), Some(token), &json!({}))
    };
    cancel(&shop.cashier, colleagues).assert_error(403);
    cancel(&shop.cashier, owners_sale).assert_error(403);
    cancel(&shop.cashier, first).data(200);
    shop.till
        .sql(&[format!("UPDATE invoices SET issue_date = date(issue_date, '-1 day') WHERE id = {second}")]);
    let yesterday = cancel(&shop.cashier, second);
    yesterday.assert_error(403);
    assert!(yesterday.body["message"].as_str().unwrap().contains("manager"), "{}", yesterday.text);
    let count = |token: &str| {
        server.get("/api/v1/invoice?limit=100", Some(token)).data(200)["items"].as_array().unwrap().len()
    };
    assert_eq!(count(owner), 5, "only the cashier's own cancellation of the day was written");
    cancel(owner, second).data(200);
    cancel(owner, colleagues).data(200);

    // The X/Z report of their own till.
    let period = format!("from={}&to={}", today(), today());
    let report = server.get(&format!("/api/v1/reports/cash-register/closing?{period}"), Some(&shop.cashier));
    let tills: Vec<Value> =
        report.data(200)["items"].as_array().unwrap().iter().map(|d| d["tcr_code"].clone()).collect();
    assert!(!tills.is_empty() && tills.iter().all(|t| *t == json!(shop.second_tcr)), "{}", report.text);
    let other = format!("/api/v1/reports/cash-register/closing?{period}&tcr={}", shop.till.tcr_code);
    server.get(&other, Some(&shop.cashier)).assert_error(403);
    server.get(&other, Some(owner)).data(200);
    server.get(&format!("/api/v1/reports/sales-summary?{period}"), Some(&shop.cashier)).assert_error(403);

    // A note the owner sent: the cashier may not read it, but names it on a sale, as before roles.
    let sent = server.post_json(
        "/api/v1/invoice/wtn",
        Some(owner),
        &note(Some("till-1-note"), &[("K1", "Kafe", 2.0)]),
    );
    let note_id = sent.data(201)["invoice"]["id"].as_i64().unwrap();
    server.get(&format!("/api/v1/invoice/wtn/print/{note_id}"), Some(&shop.cashier)).assert_error(403);
    let mut linked = coffee_and_water("till-2-linked");
    linked["wtn_id"] = json!(note_id);
    let sold = server.post_json("/api/v1/invoice/cash", Some(&shop.cashier), &linked);
    assert_eq!(sold.data(201)["invoice"]["wtn"]["id"], json!(note_id), "{}", sold.text);
}
