//! The AI chat proxy, as a POS developer using an OpenAI client library meets it: Arka forwards
//! the request to the owner's OpenAI-compatible endpoint (a fake one on loopback here) and answers
//! its completion, its events as they come, or an `error` object saying why there is none.

use std::io::Read;
use std::time::Duration;

use crate::common::fake_ai::{FIRST_CHUNK, FakeAi, Mode, SECOND_CHUNK, completion};
use crate::common::pages::RatePages;
use crate::common::stub::closed_url;
use crate::common::{Reply, TestServer, object_keys, register_company};
use arka::config::Secret;
use serde_json::{Value, json};

const CHAT: &str = "/api/v1/ai/chat/completions";

fn shop(configure: impl FnOnce(&mut arka::config::ServeArgs)) -> (TestServer, String) {
    let server = TestServer::start_with(configure);
    let partner = server.create_partner("desk");
    let token = register_company(&server, &partner, "L41323036D").token;
    (server, token)
}

fn question() -> Value {
    json!({
        "model": "llama3.1:8b",
        "messages": [
            {"role": "system", "content": "Je asistenti i dyqanit."},
            {"role": "user", "content": "Sa kushton kafeja?"}
        ],
        "temperature": 0.2,
    })
}

/// 201 with `{error: {message, type, param, code}}` and nothing else; returns the error.
fn failure(reply: &Reply) -> Value {
    assert_eq!(reply.status, 201, "{}", reply.text);
    assert_eq!(object_keys(&reply.body), ["error"], "{}", reply.text);
    let error = reply.body["error"].clone();
    assert_eq!(object_keys(&error), ["code", "message", "param", "type"], "{error}");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{error}");
    error
}

#[test]
fn a_completion_is_forwarded_with_the_owners_key_and_relayed_with_201() {
    let ai = FakeAi::start();
    let (server, token) = shop(|args| {
        args.ai.ai_url = Some(ai.base());
        args.ai.ai_key = Some(Secret("sk-shop-123".into()));
    });
    let reply = server.post_json(CHAT, Some(&token), &question());
    assert_eq!(reply.status, 201, "{}", reply.text);
    assert_eq!(reply.body, completion());

    let seen = ai.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].body, question(), "forwarded as sent, temperature included");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer sk-shop-123"));
    server.post_json(CHAT, None, &question()).assert_unauthenticated();
    assert_eq!(ai.seen().len(), 1);
}

#[test]
fn a_stream_is_relayed_event_by_event_as_it_comes() {
    let ai = FakeAi::start();
    let (server, token) = shop(|args| args.ai.ai_url = Some(ai.base()));
    let mut body = question();
    body["stream"] = json!(true);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let response = agent
        .post(format!("{}{CHAT}", server.base_url()))
        .header("Authorization", format!("Bearer {token}"))
        .content_type("application/json")
        .send(body.to_string())
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let content_type =
        response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    assert!(content_type.starts_with("text/event-stream"), "{content_type}");
    let mut events = response.into_body().into_reader();

    // The endpoint holds the rest of its answer back: the first event must arrive on its own.
    let first = format!("{FIRST_CHUNK}\n\n");
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    while received.len() < first.len() {
        let n = events.read(&mut buffer).unwrap();
        assert!(n > 0, "the stream ended early: {}", String::from_utf8_lossy(&received));
        received.extend_from_slice(&buffer[..n]);
    }
    assert_eq!(String::from_utf8(received.clone()).unwrap(), first);

    ai.release();
    let mut rest = String::new();
    events.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, format!("{SECOND_CHUNK}\n\ndata: [DONE]\n\n"));
    assert_eq!(ai.seen()[0].body, body);

    // `stream` spelled as text reaches the endpoint as the boolean it means.
    ai.set_mode(Mode::NeverStreams);
    let mut spelled = question();
    spelled["stream"] = json!("false");
    assert_eq!(server.post_json(CHAT, Some(&token), &spelled).body, completion());
    assert_eq!(ai.seen()[1].body["stream"], json!(false));
}

#[test]
fn without_an_endpoint_the_answer_is_503_in_the_standard_envelope() {
    let (bare, token) = shop(|_| {});
    for stream in [false, true] {
        let mut body = question();
        body["stream"] = json!(stream);
        let reply = bare.post_json(CHAT, Some(&token), &body);
        reply.assert_error(503);
        assert!(reply.body["message"].as_str().unwrap().contains("--ai-url"), "{}", reply.text);
    }
    // The body is still checked first.
    bare.post_json(CHAT, Some(&token), &json!({"messages": []})).assert_invalid("model");
}

#[test]
fn when_the_endpoint_fails_the_answer_is_201_with_an_error_object() {
    let ai = FakeAi::start();
    let (server, token) = shop(|args| {
        args.ai.ai_url = Some(format!("{}/chat/completions", ai.base()));
        args.ai.ai_timeout = 1;
    });
    let ask = |stream: bool| {
        let mut body = question();
        body["stream"] = json!(stream);
        server.post_json(CHAT, Some(&token), &body)
    };

    ai.set_mode(Mode::UnknownModel);
    let error = failure(&ask(false));
    assert_eq!(
        error,
        json!({"message": "model 'gpt-9' not found, try pulling it first", "type": "invalid_request_error", "param": "model", "code": "model_not_found"})
    );
    assert_eq!(failure(&ask(true))["code"], "model_not_found");

    ai.set_mode(Mode::Broken);
    let error = failure(&ask(false));
    assert_eq!((&error["type"], &error["code"]), (&json!("upstream_error"), &json!("ai_upstream_status")));
    assert!(error["message"].as_str().unwrap().contains("500"), "{error}");

    ai.set_mode(Mode::Garbage);
    assert_eq!(failure(&ask(false))["code"], "ai_bad_response");
    assert_eq!(failure(&ask(true))["code"], "ai_bad_response");

    ai.set_mode(Mode::NeverStreams);
    let whole = ask(true);
    assert_eq!(
        (whole.status, &whole.body),
        (201, &completion()),
        "an endpoint that does not stream is answered whole"
    );

    ai.set_mode(Mode::Silent);
    assert_eq!(failure(&ask(false))["code"], "ai_timeout");
    assert_eq!(failure(&ask(true))["code"], "ai_timeout");

    let (unreachable, token) = shop(|args| args.ai.ai_url = Some(closed_url()));
    let error = failure(&unreachable.post_json(CHAT, Some(&token), &question()));
    assert_eq!((&error["type"], &error["code"]), (&json!("service_unavailable"), &json!("ai_unreachable")));

    // The server goes on answering.
    ai.set_mode(Mode::Answer);
    assert_eq!(ask(false).body, completion());
}

#[test]
fn a_request_without_a_model_or_messages_gets_422_naming_the_field_and_is_not_forwarded() {
    let ai = FakeAi::start();
    let (server, token) = shop(|args| args.ai.ai_url = Some(ai.base()));
    let with = |key: &str, value: Value| {
        let mut body = question();
        body[key] = value;
        body
    };
    let without = |key: &str| {
        let mut body = question();
        body.as_object_mut().unwrap().remove(key);
        body
    };
    // | body                                                 | field              |
    let table = [
        (without("model"), "model"),
        (with("model", Value::Null), "model"),
        (with("model", json!("")), "model"),
        (with("model", json!("m".repeat(65))), "model"),
        (with("model", json!(1e30)), "model"),
        (with("model", json!(9223372036854775808u64)), "model"),
        (with("model", json!("llama\u{0}")), "model"),
        (without("messages"), "messages"),
        (with("messages", json!([])), "messages"),
        (with("messages", json!("Përshëndetje")), "messages"),
        (with("messages", json!([{"content": "a"}])), "messages.0.role"),
        (
            with("messages", json!([{"role": "user", "content": "a"}, {"role": "boss", "content": "b"}])),
            "messages.1.role",
        ),
        (with("messages", json!([{"role": "user"}])), "messages.0.content"),
        (with("messages", json!([{"role": "user", "content": 1e30}])), "messages.0.content"),
        (with("messages", json!([{"role": "user", "content": "a\u{0}"}])), "messages.0.content"),
        (with("stream", json!("maybe")), "stream"),
    ];
    for (body, field) in table {
        server.post_json(CHAT, Some(&token), &body).assert_invalid(field);
    }
    let long = server.post_json(CHAT, Some(&token), &with("model", json!("m".repeat(65))));
    assert!(long.body["errors"]["model"][0].as_str().unwrap().contains("64"), "{}", long.text);
    server.post_raw(CHAT, Some(&token), "application/json", b"[1]").assert_invalid("body");
    assert!(ai.seen().is_empty(), "nothing invalid was forwarded");

    assert_eq!(server.post_json(CHAT, Some(&token), &with("model", json!("m".repeat(64)))).status, 201);
    assert_eq!(ai.seen().len(), 1);
}

#[test]
fn the_currency_and_ai_routes_count_in_the_general_budget() {
    let pages = RatePages::start();
    let ai = FakeAi::start();
    let (server, token) = shop(|args| {
        pages.configure(args);
        args.ai.ai_url = Some(ai.base());
        args.limits = "general=4/m".parse().unwrap();
    });
    let t = Some(token.as_str());
    server.get("/api/v1/currencies", t).data(200);
    server.get("/api/v1/exchange-rates", t).data(200);
    server.put_json("/api/v1/exchange-rates/manual/EUR", t, &json!({"rate": 98})).data(200);
    assert_eq!(server.post_json(CHAT, t, &question()).status, 201);
    server.post_json(CHAT, t, &question()).assert_throttled();
    server.get("/api/v1/currencies", t).assert_throttled();
}

/// Every string of a relayed answer, JSON-decoded: a whole body, or each event's data.
fn decoded_strings(text: &str) -> Vec<String> {
    fn collect(value: &Value, into: &mut Vec<String>) {
        match value {
            Value::String(s) => into.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| collect(v, into)),
            Value::Object(fields) => fields.iter().for_each(|(k, v)| {
                into.push(k.clone());
                collect(v, into);
            }),
            _ => {}
        }
    }
    let mut strings = Vec::new();
    let events = text.lines().filter_map(|l| l.strip_prefix("data: "));
    for part in std::iter::once(text).chain(events) {
        if let Ok(value) = serde_json::from_str::<Value>(part) {
            collect(&value, &mut strings);
        }
    }
    strings
}

#[test]
fn an_endpoint_that_echoes_the_key_never_gets_it_to_a_pos() {
    const KEY: &str = r#"AIKEY-7f3a/"q"\x9"#;
    let ai = FakeAi::start();
    let (server, token) = shop(|args| {
        args.ai.ai_url = Some(ai.base());
        args.ai.ai_key = Some(Secret(KEY.into()));
    });
    let leaks = |text: &str| {
        let percent_decoded: String =
            form_urlencoded::parse(format!("x={text}").as_bytes()).map(|(_, v)| v.into_owned()).collect();
        text.contains("7f3a")
            || percent_decoded.contains("7f3a")
            || decoded_strings(text).iter().any(|s| s.contains("7f3a") || s.contains(r#""q"\x9"#))
    };
    let ask = |stream: bool| {
        let mut body = question();
        body["stream"] = json!(stream);
        server.post_json(CHAT, Some(&token), &body)
    };

    // A 401 quoting the Authorization header, plain and streamed.
    ai.set_mode(Mode::EchoesKey);
    for stream in [false, true] {
        let reply = ask(stream);
        let error = failure(&reply);
        assert!(!leaks(&reply.text), "the key reached the POS: {}", reply.text);
        assert_eq!(error["code"], "invalid_api_key");
        assert_eq!(error["param"], "Bearer [redacted]");
        assert!(
            error["message"].as_str().unwrap().starts_with("Incorrect API key provided: Bearer [redacted]. "),
            "{error}"
        );
    }
    // A completion quoting it, whole and as events that cut it between two chunks.
    ai.set_mode(Mode::EchoesKeyInAnswer);
    let whole = ask(false);
    assert_eq!(whole.status, 201, "{}", whole.text);
    assert!(!leaks(&whole.text), "the key reached the POS: {}", whole.text);
    assert_eq!(whole.body["choices"][0]["message"]["content"], "You sent Bearer [redacted]");
    let streamed = ask(true);
    assert_eq!(streamed.status, 201, "{}", streamed.text);
    assert!(!leaks(&streamed.text), "the key reached the POS: {}", streamed.text);
    assert_eq!(streamed.text.matches("[redacted]").count(), 3, "{}", streamed.text);
    assert!(streamed.text.ends_with("data: [DONE]\n\n"), "{}", streamed.text);

    // The endpoint itself got the key each time.
    let seen = ai.seen();
    assert_eq!(seen.len(), 4);
    assert!(seen.iter().all(|s| s.authorization.as_deref() == Some(&format!("Bearer {KEY}") as &str)));
}
