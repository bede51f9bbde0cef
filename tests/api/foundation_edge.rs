//! The HTTP edge as a POS developer meets it: the envelopes, the Authorization header and the
//! application credentials, and the rate limits.

use crate::common;
use crate::common::{TestServer, arka_ok, bank_account_body, branch_body, printed_value, register_sandbox};
use serde_json::json;

// --- envelopes --------------------------------------------------------------------------------

#[test]
fn an_unknown_route_is_404_in_the_error_envelope() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);

    let reply = server.get("/api/v1/no-such-thing", Some(&shop.token));
    reply.assert_error(404);
    assert!(reply.body.get("errors").is_none());
    server.get("/api/v3/account", None).assert_error(404);
    // A known path with the wrong method is an error in the same envelope.
    let wrong_method = server.get("/api/v1/on-boarding/branch", Some(&shop.token));
    wrong_method.assert_error(405);
}

#[test]
fn a_body_that_is_not_json_is_422_on_body_never_500() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);

    for (content_type, body) in [
        ("application/json", &b"{\"name\": \"Dyqani\","[..]),
        ("text/plain", &b"name=Dyqani"[..]),
        ("application/json", &b"[1, 2, 3]"[..]),
    ] {
        let reply = server.post_raw("/api/v1/on-boarding/branch", Some(&shop.token), content_type, body);
        reply.assert_invalid("body");
    }
}

#[test]
fn json_of_the_wrong_shape_names_the_field() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);

    let mut branch = branch_body("Dyqani", "ab123cd456");
    branch["name"] = json!(5);
    let reply = server.post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch);
    reply.assert_invalid("name");
    assert_eq!(reply.invalid_fields(), ["name"]);

    let mut account = bank_account_body("BKT");
    account["iban"] = json!({"country": "AL"});
    let reply = server.post_json("/api/v1/on-boarding/bank-account", Some(&shop.token), &account);
    reply.assert_invalid("iban");
}

#[test]
fn every_validation_failure_has_the_same_summary_line() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);
    let a = server.post_json("/api/v1/on-boarding/branch", Some(&shop.token), &json!({}));
    let b = server.post_json("/api/v1/on-boarding/bank-account", Some(&shop.token), &json!({"iban": "x"}));
    a.assert_invalid("name");
    b.assert_invalid("iban");
    assert_eq!(a.body["message"], b.body["message"]);
}

#[test]
fn a_body_over_the_size_limit_is_413() {
    let server = TestServer::start_with(|args| {
        args.sandbox = true;
        args.max_body_bytes = 1024;
    });
    let shop = register_sandbox(&server);

    let mut branch = branch_body("Dyqani", "ab123cd456");
    branch["administrator"] = json!("x".repeat(4096));
    let reply = server.post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch);
    reply.assert_error(413);

    // A body under the limit still goes through.
    server
        .post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch_body("Dyqani", "ab123cd456"))
        .data(201);
}

// --- authentication ---------------------------------------------------------------------------

#[test]
fn without_a_readable_bearer_token_the_answer_is_401_message_only() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);
    let token_scheme = format!("Token {}", shop.token);
    let no_scheme = shop.token.clone();

    for authorization in
        [None, Some(token_scheme.as_str()), Some(no_scheme.as_str()), Some("Bearer"), Some("Bearer ")]
    {
        let headers: Vec<(&str, &str)> = authorization.iter().map(|a| ("Authorization", *a)).collect();
        let reply = server.request("GET", "/api/v1/account", &headers, None);
        reply.assert_unauthenticated();
    }
    server.get("/api/v1/account", Some("arka_u_0123456789abcdef")).assert_unauthenticated();
    // The same token in the right header works.
    server.get("/api/v1/account", Some(&shop.token)).data(200);
}

#[test]
fn the_application_pair_comes_whole_and_right() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);
    let data_dir = server.data_dir();
    let printed =
        arka_ok(&["apps", "create", "--name", "Kasa POS 3", "--data-dir", data_dir.to_str().unwrap()]);
    let client_id = printed_value(&printed, "X-Client-Id:");
    let secret = printed_value(&printed, "X-Client-Secret:");
    let bearer = format!("Bearer {}", shop.token);
    let account = |extra: &[(&str, &str)]| {
        let mut headers = vec![("Authorization", bearer.as_str())];
        headers.extend_from_slice(extra);
        server.request("GET", "/api/v1/account", &headers, None)
    };

    account(&[("X-Client-Id", &client_id), ("X-Client-Secret", &secret)]).data(200);
    account(&[]).data(200);

    account(&[("X-Client-Id", &client_id)]).assert_unauthenticated();
    account(&[("X-Client-Secret", &secret)]).assert_unauthenticated();
    account(&[("X-Client-Id", &client_id), ("X-Client-Secret", "secret_wrong")]).assert_unauthenticated();
    account(&[("X-Client-Id", "app_unknown"), ("X-Client-Secret", &secret)]).assert_unauthenticated();
}

// --- limits -----------------------------------------------------------------------------------

#[test]
fn successful_answers_carry_the_rate_headers() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);

    let first = server.get("/api/v1/account", Some(&shop.token));
    first.data(200);
    assert_eq!(first.header("x-ratelimit-limit"), Some("300"));
    assert_eq!(first.header("x-ratelimit-remaining"), Some("299"));
    let second = server.get("/api/v1/ping", Some(&shop.token));
    assert_eq!(second.header("x-ratelimit-remaining"), Some("298"));
}

#[test]
fn the_general_limiter_counts_per_token() {
    let server = TestServer::start_with(|args| {
        args.sandbox = true;
        args.limits = "token=3/m".parse().unwrap();
    });
    let shop = register_sandbox(&server);
    let colleague = register_sandbox(&server);

    for left in ["2", "1", "0"] {
        let reply = server.get("/api/v1/account", Some(&shop.token));
        reply.data(200);
        assert_eq!(reply.header("x-ratelimit-limit"), Some("3"));
        assert_eq!(reply.header("x-ratelimit-remaining"), Some(left));
    }
    let fourth = server.get("/api/v1/account", Some(&shop.token));
    fourth.assert_throttled();
    assert_eq!(fourth.header("x-ratelimit-limit"), Some("3"));
    assert_eq!(fourth.header("x-ratelimit-remaining"), Some("0"));

    // Another token of the same company has a budget of its own.
    server.get("/api/v1/account", Some(&colleague.token)).data(200);
}

#[test]
fn unidentified_callers_are_counted_per_ip() {
    let server = TestServer::start_with(|args| args.limits = "ip=2/m".parse().unwrap());

    server.get("/api/v1/ping", None).assert_unauthenticated();
    server.get("/api/v1/account", Some("arka_u_unknown")).assert_unauthenticated();
    let third = server.get("/api/v1/ping", None);
    third.assert_throttled();
    assert_eq!(third.header("x-ratelimit-limit"), Some("2"));
    assert_eq!(third.header("x-ratelimit-remaining"), Some("0"));
}

#[test]
fn guessing_application_secrets_is_counted_per_ip() {
    // Spec, Authentication 5: unauthenticated callers are counted by IP. A wrong pair is one.
    let server = TestServer::start_with(|args| args.limits = "ip=2/m".parse().unwrap());
    let guess = |secret: &str| {
        server.request(
            "GET",
            "/api/v1/account",
            &[("X-Client-Id", "app_guess"), ("X-Client-Secret", secret)],
            None,
        )
    };

    guess("secret_1").assert_unauthenticated();
    guess("secret_2").assert_unauthenticated();
    guess("secret_3").assert_throttled();
}

#[test]
fn the_registration_budget_is_counted_per_token() {
    let server = TestServer::start_with(|args| {
        args.sandbox = true;
        args.limits = "registration=2/m".parse().unwrap();
    });
    let shop = register_sandbox(&server);
    register_sandbox(&server);

    let third = server.post_json(
        "/api/v1/register",
        Some(common::SANDBOX_PARTNER_TOKEN),
        &common::registration_body(common::SANDBOX_NUIS, "Dyqani", "c@dyqani.al"),
    );
    third.assert_throttled();

    // The shop's own token has its own registration budget; the general group is apart.
    server
        .post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch_body("A", "ab123cd456"))
        .data(201);
    server
        .post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch_body("B", "ab123cd457"))
        .data(201);
    server
        .post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch_body("C", "ab123cd458"))
        .assert_throttled();
    server.get("/api/v1/account", Some(&shop.token)).data(200);
}

#[test]
fn the_bank_account_list_may_be_read_once_in_ten_seconds() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);

    server.get("/api/v1/bank-accounts", Some(&shop.token)).data(200);
    let again = server.get("/api/v1/bank-accounts", Some(&shop.token));
    again.assert_error(429);
    assert!(again.body["message"].as_str().is_some_and(|m| !m.is_empty()), "{}", again.text);
}

#[test]
fn an_endpoint_interval_answers_without_rate_headers() {
    // Spec, Errors: 429 "from an endpoint's own limit: standard envelope, no such headers".
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);

    server.get("/api/v1/bank-accounts", Some(&shop.token)).data(200);
    let again = server.get("/api/v1/bank-accounts", Some(&shop.token));
    again.assert_error(429);
    for header in ["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining"] {
        assert_eq!(again.header(header), None, "an endpoint's own limit sends no {header}");
    }
}

#[test]
fn a_spent_budget_reports_the_budget_that_was_hit() {
    let server = TestServer::start_with(|args| {
        args.sandbox = true;
        args.limits = "registration=1/m".parse().unwrap();
    });
    let shop = register_sandbox(&server);

    server
        .post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch_body("A", "ab123cd456"))
        .data(201);
    let second =
        server.post_json("/api/v1/on-boarding/branch", Some(&shop.token), &branch_body("B", "ab123cd457"));
    second.assert_throttled();
    assert_eq!(second.header("x-ratelimit-limit"), Some("1"), "the limit that was hit");
    assert_eq!(second.header("x-ratelimit-remaining"), Some("0"), "a 429 has nothing left");
}

#[test]
fn the_bank_account_interval_is_configurable_and_passes() {
    let server = TestServer::start_with(|args| {
        args.sandbox = true;
        args.limits = "interval.bank_accounts=1s".parse().unwrap();
    });
    let shop = register_sandbox(&server);

    server.get("/api/v1/bank-accounts", Some(&shop.token)).data(200);
    server.get("/api/v1/bank-accounts", Some(&shop.token)).assert_error(429);
    server.advance_clock(std::time::Duration::from_secs(1));
    server.get("/api/v1/bank-accounts", Some(&shop.token)).data(200);
}

// --- early answers on a kept-alive connection ----------------------------------------------------

/// One request on `stream` as a POS writes it (headers, then the whole body), and its answer's
/// status and `Connection` header; the answer's body is read to its end so the next request can
/// follow on the same connection.
fn exchange(stream: &mut std::net::TcpStream, path: &str, body: &[u8]) -> (u16, Option<String>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status: u16 = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        panic!("an answer on the kept-alive connection, got {status_line:?}");
    });
    let (mut length, mut connection) = (0usize, None);
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap(),
            "connection" => connection = Some(value.trim().to_ascii_lowercase()),
            _ => {}
        }
    }
    let mut answer = vec![0; length];
    reader.read_exact(&mut answer).unwrap();
    (status, connection)
}

#[test]
fn answers_given_before_the_body_is_read_leave_the_connection_usable() {
    let server = TestServer::start_with(|args| {
        args.limits = "ip=100000/m;registration=100000/m,1000000/h;general=100000/m".parse().unwrap();
    });
    let address = server.base_url().trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    stream.set_write_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    // Without a token: the client routes and registration answer 401 before reading the body, an
    // unknown route 404; small bodies and ones larger than a socket buffer.
    let calls = [("/api/v1/clients", 401), ("/api/v1/register", 401), ("/api/v1/no-such-route", 404)];
    let sizes = [2, 700, 64 * 1024, 512 * 1024];
    for round in 0..300 {
        let (path, expected) = calls[round % calls.len()];
        let size = sizes[(round / calls.len()) % sizes.len()];
        let body = format!("{{\"name\":\"{}\"}}", "x".repeat(size));
        let (status, connection) = exchange(&mut stream, path, body.as_bytes());
        assert_eq!(status, expected, "round {round}: {path} with {size} bytes");
        assert_eq!(connection, None, "round {round}: the connection stays open");
    }
}
