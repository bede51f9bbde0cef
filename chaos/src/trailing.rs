//! Bad input, one more way: every operation of `assets/openapi.yaml` called once with a body its
//! schema allows (or `{}` where it takes none, a valid file where it takes CSV) and then more:
//! a second JSON value, or a NUL after the file. A body is one value, so every answer must be a
//! 4xx, and not one table of the books may change (read beside the running server, by name).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::client::{Client, Sent};
use super::fuzz::{document, operations, plausible};
use super::procs::{Stage, panics_in};
use super::shop::onboard;
use super::table::Row;
use super::{Error, Plan};

/// What follows the valid JSON body.
const MORE: &str = r#" {"trailing": true}"#;

/// A file the product import takes, with a NUL after its last cell.
const CSV_AND_MORE: &str = "code,name,last_price,vat_rate\nT1,Trailing,10,20\u{0}";

/// Every table's rows as one digest, but what the server writes whoever calls (the tokens' last
/// uses, the search index it keeps in the background). Columns are read by name.
fn books(db: &Path) -> Result<BTreeMap<String, String>, Error> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
               AND name NOT LIKE 'invoices_search%' AND name <> 'user_token_uses'",
        )?
        .query_map([], |r| r.get("name"))?
        .collect::<rusqlite::Result<_>>()?;
    let mut digest = BTreeMap::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\""))?;
        let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                names
                    .iter()
                    .map(|n| r.get_ref(n.as_str()).map(|v| format!("{v:?}")))
                    .collect::<rusqlite::Result<Vec<_>>>()
            })?
            .map(|row| row.map(|cells| cells.join("|")))
            .collect::<rusqlite::Result<_>>()?;
        rows.sort();
        digest.insert(table, rows.join("\n"));
    }
    Ok(digest)
}

/// The operation's path with a plausible value in each of its path parameters.
fn filled(
    doc: &Value,
    path: &str,
    parameters: &[(String, String, Value)],
    rng: &mut fastrand::Rng,
) -> String {
    let mut filled = path.to_string();
    for (name, _, schema) in parameters.iter().filter(|(_, location, _)| location == "path") {
        let value = match plausible(doc, schema, rng, 0) {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let value: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
        filled = filled.replace(&format!("{{{name}}}"), &value);
    }
    filled
}

pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    let doc = document()?;
    let operations = operations(&doc);
    progress(&format!("trailing data: {} operations", operations.len()));
    let stage = Stage::start(&plan.arka, "trailing", &[])?;
    let client = Client::new(&stage.server.base, Duration::from_secs(30));
    let shop = onboard(&client, &stage.partner, "L41323036D", 1)?;
    let mut rng = fastrand::Rng::with_seed(plan.seed);
    let before = books(&stage.db())?;
    let (mut findings, mut statuses) = (Vec::new(), BTreeMap::<u16, usize>::new());
    let (mut server_errors, mut hangs) = (0, 0);
    for operation in &operations {
        let path = filled(&doc, &operation.path, &operation.parameters, &mut rng);
        let described =
            &doc["paths"][&operation.path][operation.method.to_lowercase()]["requestBody"]["content"];
        let (content_type, bytes) = match &operation.body {
            _ if described.get("text/csv").is_some() => ("text/csv", CSV_AND_MORE.to_string()),
            Some(schema) => ("application/json", format!("{}{MORE}", plausible(&doc, schema, &mut rng, 0))),
            None => ("application/json", format!("{{}}{MORE}")),
        };
        let token =
            if doc["paths"][&operation.path][operation.method.to_lowercase()]["x-arka-role"] == "partner" {
                stage.partner.as_str()
            } else {
                shop.token.as_str()
            };
        let sent = Sent::Raw { content_type, bytes: bytes.as_bytes() };
        let headers = [("Idempotency-Key", "trailing-1")];
        match client.call_with(&operation.method, &path, Some(token), &headers, sent) {
            Ok(answer) => {
                *statuses.entry(answer.status).or_default() += 1;
                server_errors += usize::from(answer.status >= 500);
                if !(400..500).contains(&answer.status) {
                    findings.push(format!(
                        "{} {} with a body and more: HTTP {} {}",
                        operation.method, operation.path, answer.status, answer.body
                    ));
                }
            }
            Err(e) => {
                hangs += 1;
                findings.push(format!("{} {} with a body and more: {e:?}", operation.method, operation.path));
            }
        }
    }
    let after = books(&stage.db())?;
    let mut changed: Vec<&String> =
        before.keys().chain(after.keys()).filter(|t| before.get(*t) != after.get(*t)).collect();
    changed.sort();
    changed.dedup();
    if !changed.is_empty() {
        findings.push(format!("refused calls changed the tables {changed:?}"));
    }
    let statuses: Vec<String> = statuses.iter().map(|(status, n)| format!("{n}×{status}")).collect();
    let mut row = Row::new(
        "bad input: trailing data",
        format!(
            "{} operations of assets/openapi.yaml, each with a valid body and more after it",
            operations.len()
        ),
        format!("answers {}; tables changed: {}", statuses.join(" "), changed.len()),
    );
    row.server_errors = server_errors;
    row.hangs_and_panics = hangs + panics_in(&stage.server.log_text());
    row.findings = findings;
    Ok(vec![row])
}
