//! The owner's page in the person's language. The API keeps its English envelopes; the page says
//! each of the server's messages through its table (`assets/web/messages.js`). Here the source
//! is read for every message the server can answer the page with, and one without its Albanian
//! fails, so a message added later without its words is seen at once. The page's pure modules
//! (the amount reader, the message words) run in Chromium as the page runs them, table by table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::TestServer;
use crate::common::browser::Browser;
use crate::source::{literal_end, rust_files};

/// The rooms and files whose messages never reach the owner's page, each with why. Everything
/// else under `src/`, `core/src/`, `edge/src/` and `hq/src/` is the page's to say: a new file is in by default.
const NOT_THE_PAGES: &[(&str, &str)] = &[
    ("src/sim/", "the CIS and Wolt simulators answer Arka, not the page"),
    ("src/cli/", "the command line prints to the console"),
    ("src/main.rs", "the command line"),
    ("src/config", "settings are read at start; a bad one stops the start on the console"),
    ("src/wolt/", "the marketplace's client: its words go to Wolt"),
    ("src/fiscal/", "the CIS's documents; a refusal reaches the page through services"),
    ("src/ops/windows/", "the Windows service manager"),
    ("hq/src/store/apply.rs", "a shop's changes, as the shop's Arka sends them to the head office"),
    ("hq/src/store/catalog.rs", "the head office's catalog, sent down to the shops"),
    ("hq/src/server/shop_routes.rs", "a shop's calls to its head office, answered to the shop's Arka"),
    ("hq/src/cli.rs", "the head office's command line"),
    ("src/api/marketplace.rs", "the marketplace's partner API (Wolt, its POS apps)"),
    ("core/src/domain/marketplace.rs", "the marketplace's partner API"),
    ("src/services/marketplace.rs", "the marketplace's partner API"),
    ("src/api/wtn.rs", "warehouse transfer notes, issued by POS apps"),
    ("core/src/domain/wtn.rs", "warehouse transfer notes, issued by POS apps"),
    ("src/services/wtn/", "warehouse transfer notes, issued by POS apps"),
    ("src/api/einvoice.rs", "e-invoices, issued by POS apps"),
    ("core/src/domain/einvoice.rs", "e-invoices, issued by POS apps"),
    ("src/services/invoices/einvoice.rs", "e-invoices, issued by POS apps"),
    ("src/api/purchase.rs", "purchase invoices, read by POS apps"),
    ("src/services/purchase.rs", "purchase invoices, read by POS apps"),
    ("src/api/clients.rs", "the clients' register, kept by POS apps"),
    ("core/src/domain/client.rs", "the clients' register, kept by POS apps"),
    ("src/services/clients.rs", "the clients' register, kept by POS apps"),
    ("src/api/currencies.rs", "currencies and rates, set by POS apps"),
    ("core/src/domain/currency.rs", "currencies and rates, set by POS apps"),
    ("src/services/rates.rs", "currencies and rates, set by POS apps"),
    ("src/rates/", "the exchange rates' sources"),
    ("src/ai.rs", "the assistant's endpoint, called by POS apps"),
    ("src/api/ai.rs", "the assistant's endpoint, called by POS apps"),
    ("core/src/domain/chat.rs", "the assistant's endpoint, called by POS apps"),
    ("src/api/invoices/bulk.rs", "bulk invoices, sent by POS apps"),
    ("core/src/domain/invoice.rs", "a sale as a POS app sends it; the page's test sale is the server's own"),
    ("core/src/domain/invoice/", "a sale as a POS app sends it; the page's test sale is the server's own"),
    ("core/src/domain/payments.rs", "a sale's payments as a POS app sends them"),
    ("core/src/domain/discount.rs", "a sale's discounts as a POS app sends them"),
    ("core/src/domain/table.rs", "a restaurant's orders and summary invoices, sent by POS apps"),
    ("src/services/invoices/table.rs", "a restaurant's orders and summary invoices, sent by POS apps"),
    ("src/api/ops.rs", "the metrics, read by a monitoring system"),
    ("src/api/docs.rs", "the book, served as its own pages"),
];

/// Literals of the page's rooms shaped like messages that are none, each with why.
const NOT_MESSAGES: &[(&str, &str)] = &[
    ("Arka Sandbox sh.p.k.", "the sandbox company's name"),
    (
        "Restoring the backup as it is would rewind these numbers: the next documents would take numbers the CIS already holds. If the database in the data dir still works, keep it and take a new backup (arka backup) instead. If it must be replaced, run the restore again with --force: the numbering then continues after the replaced database's last numbers, and the newer documents stay in the replaced file only (docs, \"Backup and restore\": /docs/operations.html#backup-and-restore).",
        "a restore runs from the command line",
    ),
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The text of a Rust string literal as the program holds it: escapes read, a line continued by
/// `\` joined without its next line's indentation.
fn unescape(literal: &str) -> Option<String> {
    if let Some(raw) = literal.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        return Some(raw[hashes + 1..raw.len() - hashes - 1].to_string());
    }
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            '\n' => while chars.next_if(|c| c.is_whitespace()).is_some() {},
            'u' => {
                let code: String = chars.by_ref().skip(1).take_while(|c| *c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&code, 16).ok()?)?);
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// The byte ranges of `source` that are test code: each item after a `#[cfg(test)]`.
fn test_items(source: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < source.len() {
        if let Some(end) = literal_end(source, i) {
            i = end;
            continue;
        }
        if !source[i..].starts_with("#[cfg(test)]") {
            i += source[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let start = i;
        let mut depth = 0usize;
        let mut j = i + "#[cfg(test)]".len();
        while j < source.len() {
            if let Some(end) = literal_end(source, j) {
                j = end;
                continue;
            }
            match source.as_bytes()[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b';' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        ranges.push(start..j + 1);
        i = j + 1;
    }
    ranges
}

/// Every string literal of `source` outside its test code, with where it starts.
fn literals(source: &str) -> Vec<(usize, String)> {
    let tests = test_items(source);
    let mut found = Vec::new();
    let mut i = 0;
    while i < source.len() {
        let Some(end) = literal_end(source, i) else {
            i += source[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let text = &source[i..end];
        if (text.starts_with('"') || text.starts_with("r\"") || text.starts_with("r#"))
            && !tests.iter().any(|r| r.contains(&i))
            && let Some(value) = unescape(text)
        {
            found.push((i, value));
        }
        i = end;
    }
    found
}

/// A message as the server's answers carry them: one line, a capital (or a placeholder) first,
/// words, a full stop last; SQL is none.
fn is_message(text: &str) -> bool {
    let first = text.chars().next();
    !text.contains('\n')
        && first.is_some_and(|c| c.is_ascii_uppercase() || c == '{')
        && text.contains(' ')
        && text.ends_with('.')
        && !["SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH ", "CREATE "]
            .iter()
            .any(|k| text.starts_with(k))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repo()).unwrap().display().to_string()
}

fn the_pages(file: &str) -> bool {
    !NOT_THE_PAGES.iter().any(|(room, _)| file.starts_with(room))
        && !file.ends_with("/tests.rs")
        && !file.ends_with("/testing.rs")
}

fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    rust_files(&repo().join("core").join("src"), &mut files);
    rust_files(&repo().join("edge").join("src"), &mut files);
    rust_files(&repo().join("hq").join("src"), &mut files);
    files.sort();
    assert!(files.len() > 100, "the sources were found: {}", files.len());
    files
}

/// What the server can answer the page with: its messages (by the first file that says each)
/// and the nouns it names in "{what} not found.".
fn server_messages() -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let mut messages = BTreeMap::new();
    let mut nouns = BTreeMap::new();
    for path in sources() {
        let file = relative(&path);
        if !the_pages(&file) {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for (at, text) in literals(&source) {
            let before = source[..at].trim_end();
            if (before.ends_with("NotFound(") || before.ends_with("not_found(")) && !text.ends_with('.') {
                nouns.entry(text).or_insert_with(|| file.clone());
            } else if is_message(&text) && !NOT_MESSAGES.iter().any(|(m, _)| *m == text) {
                messages.entry(text).or_insert_with(|| file.clone());
            }
        }
    }
    (messages, nouns)
}

/// Every string literal of the whole source: what a table's entry must still be.
fn every_literal() -> BTreeSet<String> {
    sources()
        .iter()
        .flat_map(|p| literals(&std::fs::read_to_string(p).unwrap()))
        .map(|(_, text)| text)
        .collect()
}

fn messages_js() -> String {
    std::fs::read_to_string(repo().join("assets/web/messages.js")).unwrap()
}

/// A table of messages.js, `export const NAME = {` to `};`, one `"key": [...]` line an entry.
fn js_table(js: &str, name: &str) -> BTreeMap<String, Vec<String>> {
    let opening = format!("export const {name} = {{\n");
    let start = js.find(&opening).unwrap_or_else(|| panic!("messages.js has no {name}")) + opening.len();
    let mut table = BTreeMap::new();
    for line in js[start..].lines().take_while(|l| *l != "};") {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let entry: BTreeMap<String, Vec<String>> =
            serde_json::from_str(&format!("{{{}}}", line.trim_end_matches(','))).unwrap_or_else(|e| {
                panic!("messages.js, {name}: not a `\"key\": [\"…\"]` line ({e}): {line}")
            });
        for (key, words) in entry {
            assert!(table.insert(key.clone(), words).is_none(), "messages.js, {name}: {key:?} twice");
        }
    }
    assert!(!table.is_empty(), "messages.js, {name}: no entries read");
    table
}

/// The placeholders of a server's message, in order: `Some(name)`, or `None` for `{}`.
fn placeholders(key: &str) -> Vec<Option<String>> {
    let mut found = Vec::new();
    let mut rest = key;
    while let Some(open) = rest.find('{') {
        if rest[open..].starts_with("{{") {
            rest = &rest[open + 2..];
            continue;
        }
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        let name = rest[open + 1..close].split(':').next().unwrap_or("");
        found.push((!name.is_empty()).then(|| name.to_string()));
        rest = &rest[(close + 1).min(rest.len())..];
    }
    found
}

/// The words of `text` that are an API field's key as the server spells it: `last_price`,
/// `fiscalTcrCode` (an environment variable, `ARKA_SOFT_CODE`, is none).
fn raw_keys(text: &str) -> Vec<String> {
    let mut plain = text.to_string();
    for name in placeholders(text).into_iter().flatten() {
        plain = plain.replace(&format!("{{{name}}}"), " ");
    }
    plain
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            let snake = w.contains('_') && w.chars().any(|c| c.is_ascii_lowercase());
            let camel =
                w.starts_with(|c: char| c.is_ascii_lowercase()) && w.chars().any(|c| c.is_ascii_uppercase());
            snake || camel
        })
        .map(str::to_string)
        .collect()
}

/// What is wrong with one entry of MESSAGES: its Albanian missing, a placeholder the server's
/// text does not have, an API key left in the words, no English where the server's names a key.
fn entry_faults(key: &str, words: &[String], fields: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut faults = Vec::new();
    if words.is_empty() || words.len() > 2 || words[0].trim().is_empty() {
        faults.push("needs [\"shqip\"] or [\"shqip\", \"English\"]".to_string());
        return faults;
    }
    let slots = placeholders(key);
    for (language, said) in ["sq", "en"].iter().zip(words) {
        for name in placeholders(said) {
            let known = match name.as_deref().map(str::parse::<usize>) {
                Some(Ok(n)) => (1..=slots.len()).contains(&n),
                Some(Err(_)) => slots.contains(&name),
                None => false,
            };
            if !known {
                faults.push(format!(
                    "{language}: {{{}}} is no placeholder of the server's text",
                    name.unwrap_or_default()
                ));
            }
        }
        for raw in raw_keys(said) {
            faults.push(format!("{language}: the API's key {raw:?} is left in the words"));
        }
    }
    let mut albanian = words[0].clone();
    for slot in placeholders(&words[0]).into_iter().flatten() {
        albanian = albanian.replace(&format!("{{{slot}}}"), " ");
    }
    let albanian_words: BTreeSet<&str> = albanian.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
    for field in fields.keys().filter(|f| albanian_words.contains(f.as_str())) {
        faults.push(format!("sq: the field {field:?} is named by its key, not in words"));
    }
    if words.len() == 1 && !raw_keys(key).is_empty() {
        faults.push(format!("the server's text names {:?}: give the English its words", raw_keys(key)));
    }
    faults
}

#[test]
fn the_reader_finds_messages_past_continuations_and_test_code() {
    let source = "fn a() { e(\"The amount must be \\\n        at least 0.\"); }\n\
                  #[cfg(test)]\nmod tests { fn b() { e(\"The test's own text.\"); } }\n\
                  fn c() -> E { E::NotFound(\"Invoice\".into()) }";
    let found: Vec<String> = literals(source).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["The amount must be at least 0.", "Invoice"]);
    assert!(is_message("The {field} must be greater than 0.") && is_message("{what} not found."));
    assert!(!is_message("SELECT id FROM x WHERE a = ?.") && !is_message("Invoice") && !is_message("a b."));
    assert_eq!(
        placeholders("The {} is {name:.2} {{literal}} {MAX}."),
        [None, Some("name".into()), Some("MAX".into())]
    );
    assert_eq!(
        raw_keys("The last_price and fiscalTcrCode, not ARKA_SOFT_CODE nor {name_field}."),
        ["last_price", "fiscalTcrCode"]
    );
}

/// Every message the server can answer the page with has its Albanian in messages.js, and each
/// noun it names as not found; the table's entries are well made and none is left over.
#[test]
fn every_server_message_that_reaches_the_page_has_words_in_its_language() {
    let (messages, nouns) = server_messages();
    assert!(messages.len() > 150, "the server's messages were found: {}", messages.len());
    let js = messages_js();
    let table = js_table(&js, "MESSAGES");
    let fields = js_table(&js, "FIELDS");
    let noun_words = js_table(&js, "NOUNS");
    let missing: Vec<String> = messages
        .iter()
        .filter(|(m, _)| !table.contains_key(*m))
        .map(|(m, file)| format!("  {}: [\"…\"],   ({file})", serde_json::to_string(m).unwrap()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} message(s) the server can answer the page with have no words in assets/web/messages.js \
         (MESSAGES; see docs/src/owner-page.md):\n{}",
        missing.len(),
        missing.join("\n")
    );
    let missing_nouns: Vec<String> = nouns
        .iter()
        .filter(|(n, _)| !noun_words.contains_key(*n))
        .map(|(n, file)| format!("  {n:?} ({file})"))
        .collect();
    assert!(
        missing_nouns.is_empty(),
        "nouns of \"{{what}} not found.\" without words (NOUNS):\n{}",
        missing_nouns.join("\n")
    );
    let mut faults = Vec::new();
    for (key, words) in &table {
        faults.extend(entry_faults(key, words, &fields).into_iter().map(|f| format!("  {key:?}: {f}")));
    }
    for (table_name, entries) in [("FIELDS", &fields), ("NOUNS", &noun_words)] {
        for (key, words) in entries {
            if words.len() != 2 || words.iter().any(|w| w.trim().is_empty()) {
                faults.push(format!("  {table_name} {key:?}: needs [\"shqip\", \"English\"]"));
            }
        }
    }
    assert!(faults.is_empty(), "messages.js:\n{}", faults.join("\n"));
    let said = every_literal();
    let stale: Vec<&String> = table.keys().filter(|k| !said.contains(*k)).collect();
    assert!(stale.is_empty(), "messages.js has words for messages the server no longer says: {stale:#?}");
}

/// The API keys the page's own forms send each have words, so a refusal naming one says it.
#[test]
fn every_field_of_the_pages_forms_has_words() {
    let fields = js_table(&messages_js(), "FIELDS");
    let mut keys = BTreeSet::new();
    for entry in std::fs::read_dir(repo().join("assets/web")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let js = std::fs::read_to_string(&path).unwrap();
        for call in js.split("ield(").skip(1).filter(|c| c.starts_with(['\'', '`'])) {
            // `field('id', 'key', …)`, `amountField(`…`, 'key', …)`: the id, then the key.
            if let Some(after) = call.split_once(", '").map(|(_, a)| a)
                && let Some((key, _)) = after.split_once('\'')
                && !key.contains(' ')
            {
                keys.insert(key.to_string());
            }
        }
    }
    assert!(keys.len() > 20, "the page's fields were found: {keys:?}");
    let without: Vec<&String> = keys.iter().filter(|k| !fields.contains_key(*k)).collect();
    assert!(
        without.is_empty(),
        "fields of the page's forms without words in messages.js (FIELDS): {without:?}"
    );
}

/// Runs `call` (a function of the module and the cases) on every case, in Chromium, with the
/// page's own module `name` as the server serves it.
async fn in_the_page(page: &Browser, name: &str, call: &str, cases: Value) -> Vec<Value> {
    let module = format!("/web/{}/{name}", arka::api::web::version());
    let script = format!(
        "const [module, cases] = arguments; const done = arguments[arguments.length - 1];
         import(module).then((m) => done(cases.map((c) => ({call})(m, c))), (e) => done(String(e)));"
    );
    let answer = page.client.execute_async(&script, vec![json!(module), cases]).await.unwrap();
    answer.as_array().unwrap_or_else(|| panic!("{name}: {answer}")).clone()
}

fn run_in_chromium(test: impl AsyncFnOnce(&Browser)) {
    let server = TestServer::sandbox();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1280, 900).await;
        page.client.goto(&server.base_url()).await.unwrap();
        test(&page).await;
        page.stop().await;
    });
}

/// The amount reader (assets/web/amount.js) as a table: an entry both languages read alike is
/// taken, one they read differently is a question with the readings that fit (the page
/// language's first), more than two decimals of lek are refused.
#[test]
fn the_amount_reader_reads_the_pages_language_and_asks_when_an_entry_reads_two_ways() {
    let ask = |readings: Value| json!({"ok": false, "reason": "ambiguous", "readings": readings});
    // A whole value comes back from the page as an integer.
    let ok = |units: i64, value: f64| {
        let value = if value.fract() == 0.0 { json!(value as i64) } else { json!(value) };
        json!({"ok": true, "units": units, "value": value})
    };
    let refused = |reason: &str| json!({"ok": false, "reason": reason});
    // text, language, places, negative allowed, what it reads as
    let cases: Vec<(&str, &str, u32, bool, Value)> = vec![
        ("5.000", "sq", 2, false, ask(json!([500_000, 500]))),
        ("5.000", "en", 2, false, ask(json!([500, 500_000]))),
        ("1.200", "sq", 2, false, ask(json!([120_000, 120]))),
        ("1.200", "en", 2, false, ask(json!([120, 120_000]))),
        ("12,345", "sq", 2, false, ask(json!([1_234_500]))),
        ("12,345", "en", 2, false, ok(1_234_500, 12345.0)),
        ("5,000", "en", 2, false, ask(json!([500_000, 500]))),
        ("1.234,56", "sq", 2, false, ok(123_456, 1234.56)),
        ("1.234,56", "en", 2, false, ok(123_456, 1234.56)),
        ("1,234.56", "sq", 2, false, ok(123_456, 1234.56)),
        ("1.234.567", "en", 2, false, ok(123_456_700, 1_234_567.0)),
        ("5 000", "sq", 2, false, ok(500_000, 5000.0)),
        ("5\u{202f}000,50", "sq", 2, false, ok(500_050, 5000.5)),
        ("130,50", "sq", 2, false, ok(13_050, 130.5)),
        ("130.5", "sq", 2, false, ok(13_050, 130.5)),
        ("0,5", "en", 2, false, ok(50, 0.5)),
        ("1234.500", "sq", 2, false, ok(123_450, 1234.5)),
        ("10,505", "en", 2, false, ok(1_050_500, 10505.0)),
        ("12,345", "sq", 3, false, ask(json!([12_345, 12_345_000]))),
        ("0,505", "sq", 2, false, refused("places")),
        ("12.3456", "en", 2, false, refused("places")),
        ("1,5", "sq", 3, false, ok(1_500, 1.5)),
        ("-2,5", "sq", 3, true, ok(-2_500, -2.5)),
        ("-5", "sq", 2, false, refused("negative")),
        ("", "sq", 2, false, refused("empty")),
        ("pesë", "sq", 2, false, refused("shape")),
        ("12.34.56", "sq", 2, false, refused("shape")),
        ("1 23", "sq", 2, false, refused("shape")),
        ("5.", "en", 2, false, refused("shape")),
        ("1.234,5.6", "sq", 2, false, refused("shape")),
    ];
    let input = json!(cases.iter().map(|(t, l, p, n, _)| json!([t, l, p, n])).collect::<Vec<_>>());
    run_in_chromium(async |page: &Browser| {
        let read = "(m, [text, lang, places, negative]) => m.readNumber(text, lang, {places, negative})";
        let answers = in_the_page(page, "amount.js", read, input).await;
        for ((text, lang, places, _, expected), answer) in cases.iter().zip(&answers) {
            assert_eq!(answer, expected, "{text:?} in {lang}, {places} places");
        }
        let write = "(m, [units, lang, places]) => m.writeNumber(units, lang, places)";
        let written = in_the_page(
            page,
            "amount.js",
            write,
            json!([[500_000, "sq", 2], [500_000, "en", 2], [-1_234_500, "en", 3], [5, "sq", 2]]),
        )
        .await;
        assert_eq!(
            written,
            [json!("5\u{202f}000,00"), json!("5\u{202f}000.00"), json!("-1\u{202f}234.500"), json!("0,05")]
        );
    });
}

/// The server's messages in the page's words (assets/web/messages.js), as a table: fields in
/// words (never the API's key, never first in the Albanian as a key), values kept, a noun said.
#[test]
fn server_messages_are_said_in_the_pages_words() {
    let cases: Vec<(&str, &str, &str)> = vec![
        (
            "The nuis must be a letter, eight digits and a letter (e.g. L41323036D).",
            "sq",
            "NIPT-i duhet të jetë një shkronjë, tetë shifra dhe një shkronjë (p.sh. L41323036D).",
        ),
        ("The last_price field is required.", "sq", "Fusha «Çmimi me TVSH» është e detyrueshme."),
        ("The last_price field is required.", "en", "The price with VAT is required."),
        ("The amount must be greater than 0.", "sq", "«Shuma» duhet të jetë mbi 0."),
        ("The amount must be greater than 0.", "en", "The “Amount” must be greater than 0."),
        (
            "The lines.0.quantity is above what remains to cancel of Ujë (U1): 3.",
            "sq",
            "«Sasia» (rreshti 1) është më shumë se sa mbetet për t'u anuluar nga Ujë (U1): 3.",
        ),
        (
            "Insufficient funds in the cash register: the balance is 1234.50 ALL.",
            "sq",
            "Nuk ka mjaftueshëm para në arkë: gjendja është 1234.50 lekë.",
        ),
        ("The cash register has no open day to close.", "sq", "Arka nuk ka ditë të hapur për ta mbyllur."),
        (
            "Too many requests. Try again in 10 seconds.",
            "sq",
            "Shumë kërkesa: provoni përsëri pas 10 sekondash.",
        ),
        (
            "This needs a manager's token or an owner's; this token is a cashier's.",
            "sq",
            "Këtë e bën vetëm një menaxher ose pronarin; ju jeni arkëtar.",
        ),
        (
            "This needs a manager's token or an owner's; this token is a cashier's.",
            "en",
            "Only a manager or an owner may do this; you are a cashier.",
        ),
        ("Product not found.", "sq", "Produkti nuk u gjet."),
        ("The vat_rate must be one of: 0, 6, 10, 20.", "sq", "TVSH duhet të jetë një nga: 0, 6, 10, 20."),
        (
            "The newPassword must be at least 10 characters long.",
            "sq",
            "«Fjalëkalimi i ri» duhet të ketë të paktën 10 shenja.",
        ),
        ("A file may hold at most 5000 products.", "sq", "Një skedar mban deri në 5000 produkte."),
        ("The code field is required.", "sq", "Fusha «Kodi» është e detyrueshme."),
    ];
    let input = json!(cases.iter().map(|(t, l, _)| json!([t, l])).collect::<Vec<_>>());
    run_in_chromium(async |page: &Browser| {
        let say = "(m, [text, lang]) => m.serverWords(text, lang)";
        let answers = in_the_page(page, "messages.js", say, input).await;
        for ((text, lang, expected), answer) in cases.iter().zip(&answers) {
            assert_eq!(answer, expected, "{text:?} in {lang}");
        }
        let unknown =
            in_the_page(page, "messages.js", say, json!([["Something the table does not know.", "sq"]]))
                .await;
        assert_eq!(unknown, [Value::Null], "a message without words is told apart");
    });
}
