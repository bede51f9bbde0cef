//! Bad input: every operation of `assets/openapi.yaml`, called with paths, queries and bodies
//! built from its own schema and then broken: wrong types, nulls, huge and tiny numbers, control
//! characters, invalid UTF-8, very long strings, deep nesting, duplicate keys, other content
//! types. Not one answer may be a 5xx, none may hang, the log must hold no panic, and afterwards
//! another company still sells.
//!
//! A fuzzer of our own rather than schemathesis: it runs in `cargo test` with nothing to install
//! (CI's one command), it breaks bytes below JSON (invalid UTF-8, duplicate keys, deep nesting)
//! where schemathesis generates valid JSON, and it knows Arka's tokens and rate limits.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::client::{Client, Failure, Sent};
use super::procs::{Stage, panics_in};
use super::shop::{cash_sale, onboard};
use super::table::Row;
use super::{Error, Plan};

/// The OpenAPI document the server serves.
const OPENAPI: &str = include_str!("../../assets/openapi.yaml");

/// One operation of the document.
#[derive(Debug, Clone)]
pub struct Operation {
    pub method: String,
    /// The path template, `/api/v1/clients/{id}`.
    pub path: String,
    /// Parameters as (name, `path` or `query`, schema).
    pub parameters: Vec<(String, String, Value)>,
    /// The JSON (or multipart) body's schema, when it takes one.
    pub body: Option<Value>,
}

/// The document as JSON.
pub fn document() -> Result<Value, Error> {
    serde_yaml_ng::from_str(OPENAPI).map_err(|e| Error::Setup(format!("assets/openapi.yaml: {e}")))
}

/// `value`, or what its `$ref` points at (followed a few times).
fn resolve<'a>(doc: &'a Value, mut value: &'a Value) -> &'a Value {
    for _ in 0..8 {
        let Some(reference) = value.get("$ref").and_then(Value::as_str) else { break };
        let Some(pointer) = reference.strip_prefix('#') else { break };
        match doc.pointer(pointer) {
            Some(target) => value = target,
            None => break,
        }
    }
    value
}

/// Every operation of the document.
pub fn operations(doc: &Value) -> Vec<Operation> {
    let mut operations = Vec::new();
    let Some(paths) = doc["paths"].as_object() else { return operations };
    for (path, item) in paths {
        let Some(item) = item.as_object() else { continue };
        for (method, operation) in item {
            if !["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                continue;
            }
            let mut parameters = Vec::new();
            let declared = item.get("parameters").into_iter().chain(operation.get("parameters"));
            for parameter in declared.filter_map(Value::as_array).flatten() {
                let parameter = resolve(doc, parameter);
                let (Some(name), Some(location)) = (parameter["name"].as_str(), parameter["in"].as_str())
                else {
                    continue;
                };
                let mut schema = resolve(doc, &parameter["schema"]).clone();
                if let Some(example) = parameter.get("example") {
                    schema["example"] = example.clone();
                }
                parameters.push((name.to_string(), location.to_string(), schema));
            }
            let content = &resolve(doc, &operation["requestBody"])["content"];
            let body = ["application/json", "multipart/form-data"]
                .iter()
                .find_map(|kind| content.get(*kind))
                .map(|media| resolve(doc, &media["schema"]).clone());
            operations.push(Operation {
                method: method.to_uppercase(),
                path: path.clone(),
                parameters,
                body,
            });
        }
    }
    operations
}

/// A value the schema allows, as a careful client would send it.
pub fn plausible(doc: &Value, schema: &Value, rng: &mut fastrand::Rng, depth: usize) -> Value {
    let schema = resolve(doc, schema);
    if let Some(example) = schema.get("example") {
        return example.clone();
    }
    if let Some(values) = schema["enum"].as_array().filter(|v| !v.is_empty()) {
        return values[rng.usize(..values.len())].clone();
    }
    if let Some(parts) = schema["allOf"].as_array() {
        let mut merged = Map::new();
        for part in parts {
            if let Value::Object(o) = plausible(doc, part, rng, depth + 1) {
                merged.extend(o);
            }
        }
        return Value::Object(merged);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema[key].as_array().and_then(|a| a.first()) {
            return plausible(doc, first, rng, depth + 1);
        }
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.as_str(),
        Value::Array(types) => {
            types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null")
        }
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" if depth < 6 => {
            let mut object = Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                object.insert(name.clone(), plausible(doc, property, rng, depth + 1));
            }
            Value::Object(object)
        }
        "array" if depth < 6 => json!([plausible(doc, &schema["items"], rng, depth + 1)]),
        "integer" => json!(schema["minimum"].as_i64().unwrap_or(1).max(1)),
        "number" => json!(schema["minimum"].as_f64().map_or(12.5, |m| m.max(1.0))),
        "boolean" => json!(rng.bool()),
        "null" => Value::Null,
        _ => match schema["format"].as_str() {
            Some("date") => json!("2026-11-20"),
            Some("date-time") => json!("2026-11-20T10:00:00+01:00"),
            Some("email") => json!("fuzz@shop.al"),
            _ => json!("Fuzz"),
        },
    }
}

/// Numbers no field expects.
const ODD_NUMBERS: [&str; 12] = [
    "1e30",
    "-1e30",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e308",
    "5e-324",
    "-0.0",
    "1e-30",
    "123.45678901234567890123456789",
    "0.000000000000000000000000001",
];

/// Strings no field expects.
fn odd_string(rng: &mut fastrand::Rng) -> Value {
    match rng.usize(..8) {
        0 => json!("\u{0}"),
        1 => json!("a\u{0}b\u{1b}[31m\r\n\t\u{7f}"),
        2 => json!("\u{202e}\u{feff}\u{200b}ë ç 😀"),
        3 => json!("x".repeat(70_000)),
        4 => json!("' OR 1=1; DROP TABLE invoices; --"),
        5 => json!("../../../../etc/passwd"),
        6 => json!("%00%FF%FE"),
        _ => json!(""),
    }
}

/// A value of another type than `value`.
fn other_type(value: &Value, rng: &mut fastrand::Rng) -> Value {
    let choices = [
        json!("1"),
        json!(1),
        json!(true),
        json!([]),
        json!({}),
        json!([1, "a", null]),
        json!({"a": {"b": 1}}),
    ];
    loop {
        let candidate = choices[rng.usize(..choices.len())].clone();
        if std::mem::discriminant(&candidate) != std::mem::discriminant(value) {
            return candidate;
        }
    }
}

/// Paths to every value inside `value` (object keys and array indexes).
fn leaves(value: &Value, at: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
    match value {
        Value::Object(o) => {
            for (k, v) in o {
                at.push(k.clone());
                found.push(at.clone());
                leaves(v, at, found);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                at.push(i.to_string());
                found.push(at.clone());
                leaves(v, at, found);
                at.pop();
            }
        }
        _ => {}
    }
}

fn slot<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |v, key| match v {
        Value::Object(o) => o.get_mut(key),
        Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
        _ => None,
    })
}

/// A body: its content type and bytes.
pub struct Body {
    pub content_type: Option<&'static str>,
    pub bytes: Vec<u8>,
}

fn json_body(value: &Value) -> Body {
    Body { content_type: Some("application/json"), bytes: value.to_string().into_bytes() }
}

/// `base` broken one way (which way, `rng` says); also the label of the way.
pub fn broken_body(base: &Value, rng: &mut fastrand::Rng) -> (&'static str, Body) {
    let mut value = base.clone();
    let mut paths = Vec::new();
    leaves(&value, &mut Vec::new(), &mut paths);
    let target = (!paths.is_empty()).then(|| paths[rng.usize(..paths.len())].clone());
    let replace = |value: &mut Value, with: Value| match target.as_ref().and_then(|p| slot(value, p)) {
        Some(place) => *place = with,
        None => *value = with,
    };
    match rng.usize(..13) {
        0 => ("as the schema says", json_body(&value)),
        1 => {
            let with = other_type(&value, rng);
            replace(&mut value, with);
            ("a wrong type", json_body(&value))
        }
        2 => {
            replace(&mut value, Value::Null);
            ("a null", json_body(&value))
        }
        3 => {
            let number = ODD_NUMBERS[rng.usize(..ODD_NUMBERS.len())];
            replace(&mut value, json!("\u{1}NUMBER\u{1}"));
            let text = value.to_string().replace("\"\\u0001NUMBER\\u0001\"", number);
            (
                "a huge or tiny number",
                Body { content_type: Some("application/json"), bytes: text.into_bytes() },
            )
        }
        4 | 5 => {
            let with = odd_string(rng);
            replace(&mut value, with);
            ("control characters, long or odd text", json_body(&value))
        }
        6 => {
            replace(&mut value, json!("\u{1}UTF8\u{1}"));
            let text = value.to_string();
            let mut bytes = Vec::new();
            for (i, part) in text.split("\\u0001UTF8\\u0001").enumerate() {
                if i > 0 {
                    bytes.extend_from_slice(&[0xff, 0xfe, b'a', 0xc3, 0x28, 0xed, 0xa0, 0x80]);
                }
                bytes.extend_from_slice(part.as_bytes());
            }
            ("invalid UTF-8", Body { content_type: Some("application/json"), bytes })
        }
        7 => {
            let depth = [100, 127, 129, 5_000, 100_000][rng.usize(..5)];
            let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            replace(&mut value, json!("\u{1}NEST\u{1}"));
            let text = value.to_string().replace("\"\\u0001NEST\\u0001\"", &nested);
            ("deep nesting", Body { content_type: Some("application/json"), bytes: text.into_bytes() })
        }
        8 => {
            let text = value.to_string();
            let duplicated =
                match (value.as_object().and_then(|o| o.keys().next().cloned()), text.strip_suffix('}')) {
                    (Some(key), Some(open)) => {
                        format!("{open},\"{key}\":{}}}", other_type(&Value::Null, rng))
                    }
                    _ => format!("{{\"a\":1,\"a\":{text}}}"),
                };
            (
                "duplicate keys",
                Body { content_type: Some("application/json"), bytes: duplicated.into_bytes() },
            )
        }
        9 => {
            let content_type = [
                "text/plain",
                "application/xml",
                "application/x-www-form-urlencoded",
                "multipart/form-data",
                "application/json; charset=latin1",
                "image/png",
            ][rng.usize(..6)];
            (
                "another content type",
                Body { content_type: Some(content_type), bytes: value.to_string().into_bytes() },
            )
        }
        10 => ("no content type", Body { content_type: None, bytes: value.to_string().into_bytes() }),
        11 => {
            let text =
                ["", "null", "[]", "\"text\"", "42", "{", "{\"a\":", "<xml/>", "{\"a\":1}}"][rng.usize(..9)];
            (
                "not a JSON object",
                Body { content_type: Some("application/json"), bytes: text.as_bytes().to_vec() },
            )
        }
        _ => {
            let mut wide = Map::new();
            for n in 0..2_000 {
                wide.insert(format!("k{n}"), json!(n));
            }
            replace(&mut value, Value::Object(wide));
            ("a wide object", json_body(&value))
        }
    }
}

/// A path or query value, plausible or broken, already percent-encoded.
fn parameter_value(schema: &Value, plausible_value: &Value, ids: &[i64], rng: &mut fastrand::Rng) -> String {
    let plain = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    match rng.usize(..10) {
        0..=2 => encode(&plain(plausible_value)),
        3 if schema["type"] == "integer" && !ids.is_empty() => ids[rng.usize(..ids.len())].to_string(),
        3 | 4 => [
            "99999999999999999999",
            "9223372036854775807",
            "-9223372036854775808",
            "-1",
            "0",
            "1e3",
            "0x10",
            "1.5",
        ][rng.usize(..8)]
        .to_string(),
        5 => ["%00", "%FF%FE", "%C3%28", "a%0Ab", "%E2%80%AE", "%ED%A0%80"][rng.usize(..6)].to_string(),
        6 => encode(&"9".repeat(5_000)),
        7 => encode("' OR 1=1 --"),
        8 => "..%2F..%2Fetc%2Fpasswd".to_string(),
        _ => encode(&plain(&odd_string(rng))).chars().take(3_000).collect(),
    }
}

/// One fuzzed request.
pub struct Fuzzed {
    pub method: String,
    pub path: String,
    pub how: &'static str,
    pub body: Option<Body>,
}

/// A request to `operation`, its parameters and body built from the schema and broken.
pub fn fuzzed(doc: &Value, operation: &Operation, ids: &[i64], rng: &mut fastrand::Rng) -> Fuzzed {
    let mut path = operation.path.clone();
    let mut query = Vec::new();
    for (name, location, schema) in &operation.parameters {
        let value = parameter_value(schema, &plausible(doc, schema, rng, 0), ids, rng);
        match location.as_str() {
            "path" => path = path.replace(&format!("{{{name}}}"), &value),
            "query" if rng.usize(..4) > 0 => query.push(format!("{name}={value}")),
            _ => {}
        }
    }
    if rng.usize(..20) == 0 {
        query.push(format!("unknown={}", "%FF".repeat(10)));
    }
    if !query.is_empty() {
        path = format!("{path}?{}", query.join("&"));
    }
    let (how, body) = match &operation.body {
        Some(schema) if operation.method != "GET" && operation.method != "DELETE" => {
            let (how, body) = broken_body(&plausible(doc, schema, rng, 0), rng);
            (how, Some(body))
        }
        _ => ("parameters", None),
    };
    Fuzzed { method: operation.method.clone(), path, how, body }
}

/// The campaign configures no AI endpoint, so the chat route's service is not there: its 503
/// (the standard envelope, every time) is the answer, not a failure.
fn no_ai_service(path: &str, status: u16) -> bool {
    path == "/api/v1/ai/chat/completions" && status == 503
}

/// What one fuzzing thread saw.
struct Tally {
    server_errors: usize,
    hangs: usize,
    findings: Vec<String>,
    statuses: BTreeMap<u16, usize>,
}

pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    let doc = document()?;
    // A token rotated or revoked by a fuzzed call would leave the rest of the run unidentified.
    let operations: Vec<Operation> =
        operations(&doc).into_iter().filter(|o| !o.path.starts_with("/api/v1/users/")).collect();
    progress(&format!("fuzz: {} requests over {} operations", plan.fuzz_requests, operations.len()));
    let stage = Stage::start(&plan.arka, "fuzz", &[])?;
    let (server, partner) = (&stage.server, stage.partner.as_str());
    let client = Client::new(&server.base, Duration::from_secs(30));
    let fuzzed_shop = onboard(&client, partner, "L41323036D", 1)?;
    let other_shop = onboard(&client, partner, "K12345678L", 1)?;
    let till = fuzzed_shop.tills.first().ok_or_else(|| Error::Setup("no till".into()))?;
    let sale = client.post("/api/v1/invoice/cash", Some(&till.token), &cash_sale("fuzz-sale", 100))?;
    let ids = vec![
        sale.int_at("/data/invoice/id").unwrap_or(1),
        fuzzed_shop.branch_id,
        fuzzed_shop.user_id,
        till.user_id,
    ];
    let tokens = [fuzzed_shop.token.clone(), till.token.clone(), partner.to_string(), String::new()];

    let next = AtomicUsize::new(0);
    let threads = 4;
    let results: Vec<Tally> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (doc, operations, ids, tokens, next) = (&doc, &operations, &ids, &tokens, &next);
                let client = Client::new(&server.base, Duration::from_secs(20));
                let mut rng = fastrand::Rng::with_seed(plan.seed.wrapping_add(t as u64 * 7919));
                scope.spawn(move || {
                    let (mut server_errors, mut hangs, mut findings) = (0, 0, Vec::new());
                    let mut statuses = BTreeMap::new();
                    loop {
                        let n = next.fetch_add(1, Ordering::SeqCst);
                        if n >= plan.fuzz_requests {
                            break;
                        }
                        let operation = &operations[n % operations.len()];
                        let request = fuzzed(doc, operation, ids, &mut rng);
                        let token = &tokens[[0, 0, 0, 0, 0, 1, 1, 2, 3][rng.usize(..9)]];
                        let token = (!token.is_empty()).then_some(token.as_str());
                        let sent = match &request.body {
                            Some(Body { content_type: Some(content_type), bytes }) => {
                                Sent::Raw { content_type, bytes }
                            }
                            Some(Body { content_type: None, bytes }) => Sent::Raw { content_type: "", bytes },
                            None => Sent::Nothing,
                        };
                        let answer = client.call(&request.method, &request.path, token, sent);
                        if let Ok(answer) = &answer {
                            *statuses.entry(answer.status).or_default() += 1;
                        }
                        match answer {
                            Ok(answer)
                                if answer.status >= 500 && !no_ai_service(&operation.path, answer.status) =>
                            {
                                server_errors += 1;
                                findings.push(format!(
                                    "{} {} ({}): HTTP {} {}",
                                    request.method, operation.path, request.how, answer.status, answer.body
                                ));
                            }
                            Ok(_) => {}
                            Err(Failure::Timeout) => {
                                hangs += 1;
                                findings.push(format!(
                                    "{} {} ({}): no answer in 20 s",
                                    request.method, operation.path, request.how
                                ));
                            }
                            Err(Failure::Transport(e)) => {
                                hangs += 1;
                                findings.push(format!(
                                    "{} {} ({}): {e}",
                                    request.method, operation.path, request.how
                                ));
                            }
                        }
                    }
                    Tally { server_errors, hangs, findings, statuses }
                })
            })
            .collect();
        workers.into_iter().filter_map(|w| w.join().ok()).collect()
    });
    let (mut server_errors, mut hangs, mut findings) = (0, 0, Vec::new());
    let mut by_status: BTreeMap<u16, usize> = BTreeMap::new();
    for tally in results {
        server_errors += tally.server_errors;
        hangs += tally.hangs;
        findings.extend(tally.findings);
        for (status, n) in tally.statuses {
            *by_status.entry(status).or_default() += n;
        }
    }
    let statuses: Vec<String> = by_status.iter().map(|(status, n)| format!("{n}×{status}")).collect();
    let other_till = other_shop.tills.first().ok_or_else(|| Error::Setup("no till".into()))?;
    let after =
        client.post("/api/v1/invoice/cash", Some(&other_till.token), &cash_sale("after-fuzz", 100))?;
    if after.status != 201 {
        findings.push(format!(
            "after the fuzzing another company's sale got HTTP {}: {}",
            after.status, after.body
        ));
    }
    let panics = panics_in(&server.log_text());
    let mut row = Row::new(
        "bad input",
        format!(
            "{} requests over {} operations of assets/openapi.yaml",
            plan.fuzz_requests,
            operations.len()
        ),
        format!("answers {}; another company's sale afterwards: HTTP {}", statuses.join(" "), after.status),
    );
    row.server_errors = server_errors;
    row.hangs_and_panics = hangs + panics;
    row.findings = findings;
    Ok(vec![row])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_of_the_document_is_read_with_its_parameters_and_body() {
        let doc = document().unwrap();
        let operations = operations(&doc);
        assert!(operations.len() > 100, "{} operations", operations.len());
        let cash =
            operations.iter().find(|o| o.method == "POST" && o.path == "/api/v1/invoice/cash").unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        let body = plausible(&doc, cash.body.as_ref().unwrap(), &mut rng, 0);
        assert!(body["lines"].is_array(), "{body}");
        let details = operations.iter().find(|o| o.path == "/api/v1/invoice/{id}/details").unwrap();
        assert_eq!(details.parameters[0].0, "id");
        assert_eq!(details.parameters[0].1, "path");
    }

    #[test]
    fn broken_bodies_break_what_they_say() {
        let base = json!({"name": "Kafe", "lines": [{"quantity": 1}]});
        let mut rng = fastrand::Rng::with_seed(3);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let (how, body) = broken_body(&base, &mut rng);
            seen.insert(how);
            if how == "invalid UTF-8" {
                assert!(std::str::from_utf8(&body.bytes).is_err());
            }
            if how == "as the schema says" {
                assert_eq!(serde_json::from_slice::<Value>(&body.bytes).unwrap(), base);
            }
        }
        assert_eq!(seen.len(), 12, "{seen:?}");
    }
}
