//! One request, one body, read one way (the book's "The body of a request"): a body is one JSON
//! value and whitespace, and anything after it is 422 naming `body` with nothing done, on every
//! operation of assets/openapi.yaml alike; a route that takes no body and changes something takes
//! nothing or `{}`; the routes where what is not sent is kept refuse a key they do not know and
//! an empty body.

use crate::common::sim::SimServer;
use crate::common::snapshot::{changed, snapshot};
use crate::common::till::{Till, coffee_and_water, open_till, open_till_with};
use crate::common::{Reply, TestServer};
use serde_json::{Value, json};

/// Wide enough that no budget or interval answers before the body is read.
const LIMITS: &str = "token=60000/m;ip=60000/m;general=60000/m;fiscal=60000/m,600000/h;\
    registration=60000/m,600000/h;cancel=60000/m;bulk=60000/m;print=60000/m;reports=60000/m;\
    search=60000/m;marketplace.reads=60000/m;marketplace.writes=60000/m;interval.products=1s";

const MARKET: &str = "/api/partner/v1/marketplace";

/// `bytes` sent to `path` with `method` as `token`, typed as JSON.
fn send(server: &TestServer, method: &str, path: &str, token: Option<&str>, bytes: &[u8]) -> Reply {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers: Vec<(&str, &str)> = bearer.iter().map(|b| ("Authorization", b.as_str())).collect();
    headers.push(("Idempotency-Key", "one-body-1"));
    server.request(method, path, &headers, Some(("application/json", bytes)))
}

/// 422 naming `body` alone, in the envelope of its path.
fn assert_body_refused(reply: &Reply, path: &str, what: &str) {
    assert_eq!(reply.status, 422, "{what}: {}", reply.text);
    if path.starts_with(MARKET) {
        assert_eq!(reply.body["code"], json!("invalid_data"), "{what}: {}", reply.text);
    } else {
        assert_eq!(reply.body["success"], json!(false), "{what}: {}", reply.text);
    }
    let keys: Vec<&String> = reply.body["errors"].as_object().map(|e| e.keys().collect()).unwrap_or_default();
    assert_eq!(keys, ["body"], "{what}: {}", reply.text);
}

/// Sends `bytes` to `path` and checks it is refused naming `body` and that no table changed.
fn refused_changing_nothing(till: &Till, method: &str, path: &str, bytes: &str) -> Reply {
    let db = till.server.data_dir().join("arka.db");
    let before = snapshot(&db);
    let reply = send(&till.server, method, path, Some(&till.token), bytes.as_bytes());
    let what = format!("{method} {path} with {bytes}");
    assert_body_refused(&reply, path, &what);
    let tables = changed(&before, &snapshot(&db));
    assert!(tables.is_empty(), "{what} was refused but changed {tables:?}");
    reply
}

#[test]
fn bytes_after_the_json_value_are_refused_on_every_route_the_report_named_and_nothing_is_done() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let server = &till.server;
    server
        .post_json("/api/v1/cash-register/open-balance", Some(&till.token), &json!({"amount": 100}))
        .data(201);
    let sale = server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("b-1"));
    let sale = sale.data(201)["invoice"].clone();
    let lines = json!({"lines": [{"product_name": "Kafe", "product_code": "K1", "quantity": 1}]});

    let reply = refused_changing_nothing(
        &till,
        "POST",
        &format!("/api/v1/invoice/cancel/{}", sale["id"]),
        &format!("{{}} {lines}"),
    );
    let message = reply.body["errors"]["body"][0].as_str().unwrap();
    assert!(message.contains("one JSON value"), "the refusal says what is wrong: {message}");
    refused_changing_nothing(
        &till,
        "POST",
        "/api/v1/cash-register/close-balance",
        r#"{"counted":100} , "withdraw": 0}"#,
    );
    let two_sales = format!("{}{}", coffee_and_water("b-2"), coffee_and_water("b-3"));
    refused_changing_nothing(&till, "POST", "/api/v1/invoice/cash", &two_sales);
    refused_changing_nothing(&till, "POST", "/api/v2/invoice/cash", &format!("{two_sales}\n"));
    refused_changing_nothing(&till, "POST", "/api/v1/cash-register/deposit", r#"{"amount":5}{"amount":500}"#);
    refused_changing_nothing(&till, "PUT", "/api/v1/print-settings", r#"{"unit_name":false} x"#);
    refused_changing_nothing(
        &till,
        "POST",
        &format!("/api/v1/on-boarding/user/{}", till.user_id),
        r#"{"name":"Ana"}{"operatorCode":"op999op999"}"#,
    );
    refused_changing_nothing(&till, "POST", "/api/v1/setup/test-sale", "{}{}");
    refused_changing_nothing(&till, "POST", "/api/v1/invoice/bulk-noncash", r#"{"invoices":[]}]"#);

    // Whitespace after the value is fine, and the routes still work.
    let closed = send(
        server,
        "POST",
        "/api/v1/cash-register/close-balance",
        Some(&till.token),
        b" {\"counted\": 160}\r\n\t ",
    );
    closed.data(200);
}

#[test]
fn every_operation_of_the_document_refuses_a_second_value_and_a_body_where_it_takes_none() {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| {
        args.limits = LIMITS.parse().unwrap();
        args.metrics = true;
    });
    let server = &till.server;
    let partner = server.create_partner("bodies");
    let db = server.data_dir().join("arka.db");
    let doc: Value = serde_yaml_ng::from_str(include_str!("../../assets/openapi.yaml")).unwrap();
    let before = snapshot(&db);
    let (mut second_values, mut bodies_where_none) = (0, 0);
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let method = method.to_uppercase();
            if !["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&method.as_str()) {
                continue;
            }
            let token = if operation["x-arka-role"] == "partner" { &partner } else { &till.token };
            let path = template.replace(['{', '}'], "").replace("internalId", "x-1").replace("version", "0");
            let path = path.replace("/id", "/1").replace("user_id", "1").replace("queueId", "1");
            let content = &operation["requestBody"]["content"];
            let takes = |kind: &str| content.get(kind).is_some();
            let changes = method != "GET" && !template.contains("/invoice/details/");
            let body: &str = if takes("application/json") {
                second_values += 1;
                r#"{"a": 1} {"b": 2}"#
            } else if takes("text/csv") {
                continue;
            } else if changes {
                bodies_where_none += 1;
                r#"{"a": 1}"#
            } else {
                second_values += 1;
                "{}{}"
            };
            let reply = send(server, &method, &path, Some(token), body.as_bytes());
            assert_body_refused(&reply, &path, &format!("{method} {template} with {body}"));
        }
    }
    let tables = changed(&before, &snapshot(&db));
    assert!(tables.is_empty(), "the refused calls changed {tables:?}");
    assert!(second_values > 100 && bodies_where_none > 8, "{second_values} and {bodies_where_none} calls");

    // A route that takes no body still takes nothing, or `{}`.
    let whoami = send(server, "GET", "/api/v1/session", Some(&till.token), b" {} ");
    whoami.data(200);
    let rotated = send(server, "POST", "/api/v1/users/me/token", Some(&till.token), b"{}");
    rotated.data(201);
}

#[test]
fn the_routes_that_keep_what_is_not_sent_refuse_unknown_keys_empty_bodies_and_deep_objects() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let (server, owner) = (&till.server, till.token.as_str());
    let db = server.data_dir().join("arka.db");
    let before = snapshot(&db);

    let new_user = json!({"name": "Besa", "email": "besa@shop.al", "branchId": till.branch_id,
                          "operatorCode": "op321op321", "nickname": "B"});
    server.post_json("/api/v1/on-boarding/user", Some(owner), &new_user).assert_invalid("nickname");
    let user = format!("/api/v1/on-boarding/user/{}", till.user_id);
    server.post_json(&user, Some(owner), &json!({"name": "Ana", "Role": "cashier"})).assert_invalid("Role");
    server
        .request("POST", &user, &[("Authorization", &format!("Bearer {owner}"))], None)
        .assert_invalid("body");
    let deep = format!("{{\"name\":\"Ana\",\"x\":{}1{}}}", "{\"x\":".repeat(5_000), "}".repeat(5_000));
    let reply = send(server, "POST", &user, Some(owner), deep.as_bytes());
    assert_eq!(reply.status, 422, "{}", reply.text);
    let deep_name = format!("{{\"name\":{}\"Ana\"{}}}", "[".repeat(5_000), "]".repeat(5_000));
    send(server, "POST", &user, Some(owner), deep_name.as_bytes()).assert_invalid("name");

    let test_sale = server.request(
        "POST",
        "/api/v1/setup/test-sale",
        &[("Authorization", &format!("Bearer {owner}"))],
        Some(("application/json", b"")),
    );
    test_sale.assert_invalid("body");
    let rotate = send(server, "POST", "/api/v1/users/me/token", Some(owner), br#"{"role":"owner"}"#);
    rotate.assert_invalid("body");
    let tables = changed(&before, &snapshot(&db));
    assert!(tables.is_empty(), "the refused calls changed {tables:?}");
    server.get("/api/v1/account", Some(owner)).data(200);

    // Sent as the book says, each works.
    let mut fine = new_user.clone();
    fine.as_object_mut().unwrap().remove("nickname");
    server.post_json("/api/v1/on-boarding/user", Some(owner), &fine).data(201);
    assert_eq!(
        server.post_json(&user, Some(owner), &json!({"name": "Ana"})).data(200)["user"]["name"],
        "Ana"
    );
}
