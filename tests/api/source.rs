//! The source read as text, for rules of the house no compiler checks: a function reads as
//! named steps, so none is longer than 120 lines (src, benches and these tests alike), and a
//! SQLite row is read by column name, never by position.

use std::path::{Path, PathBuf};

const LONGEST_FUNCTION: usize = 120;

pub(crate) fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir:?}: {e}")) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Where the string, character or comment starting at `i` ends, or `None` when code starts there.
pub(crate) fn literal_end(source: &str, i: usize) -> Option<usize> {
    let rest = &source[i..];
    let ident_before = source[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
    if rest.starts_with("//") {
        return Some(rest.find('\n').map_or(source.len(), |e| i + e));
    }
    if rest.starts_with("/*") {
        return Some(rest.find("*/").map_or(source.len(), |e| i + e + 2));
    }
    let raw = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r')).filter(|_| !ident_before);
    if let Some(after_r) = raw {
        let hashes = after_r.len() - after_r.trim_start_matches('#').len();
        if after_r[hashes..].starts_with('"') {
            let open = rest.len() - after_r.len() + hashes + 1;
            let close = format!("\"{}", "#".repeat(hashes));
            return Some(rest[open..].find(&close).map_or(source.len(), |e| i + open + e + close.len()));
        }
    }
    if rest.starts_with('"') {
        let mut escaped = false;
        for (at, c) in rest.char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => return Some(i + at + 1),
                _ => {}
            }
        }
        return Some(source.len());
    }
    if rest.starts_with('\'') {
        // A character ('x', '\n', '\u{e9}'), not a lifetime ('a).
        let mut chars = rest.char_indices().skip(1);
        return match chars.next() {
            Some((_, '\\')) => rest.get(3..).and_then(|r| r.find('\'')).map(|e| i + 3 + e + 1),
            Some((at, c)) => rest[at + c.len_utf8()..].starts_with('\'').then(|| i + at + c.len_utf8() + 1),
            None => None,
        };
    }
    None
}

/// `source` with its comments, strings and characters blanked, lines kept where they were, so
/// that every brace and `fn` left is the code's own.
pub(crate) fn code_only(source: &str) -> String {
    let mut code = String::with_capacity(source.len());
    let mut i = 0;
    while i < source.len() {
        match literal_end(source, i) {
            Some(end) => {
                code.extend(source[i..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
                i = end;
            }
            None => {
                let c = source[i..].chars().next().unwrap();
                code.push(c);
                i += c.len_utf8();
            }
        }
    }
    code
}

/// Every function with a body in `code`: its name, first line and length in lines.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("fn ").map(|e| from + e) {
        from = at + 3;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let name: String =
            code[from..].trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            continue;
        }
        // The body opens at the first `{` outside the signature's brackets; `;` means none.
        let mut depth = 0i32;
        let Some(open) = (from..bytes.len()).find_map(|j| {
            match bytes[j] {
                b'(' | b'<' | b'[' => depth += 1,
                b')' | b'>' | b']' => depth -= 1,
                b'{' if depth <= 0 => return Some(Some(j)),
                b';' if depth <= 0 => return Some(None),
                _ => {}
            }
            None
        }) else {
            continue;
        };
        let Some(open) = open else { continue };
        let mut braces = 0;
        let close = (open..bytes.len()).find(|&j| {
            match bytes[j] {
                b'{' => braces += 1,
                b'}' => braces -= 1,
                _ => {}
            }
            braces == 0
        });
        let line_of = |byte: usize| code[..byte].matches('\n').count() + 1;
        let first = line_of(at);
        found.push((name, first, line_of(close.unwrap_or(bytes.len() - 1)) - first + 1));
    }
    found
}

#[test]
fn the_reader_finds_functions_past_strings_comments_and_lifetimes() {
    let source = "fn a<'x>(s: &'x str) -> char {\n    let _ = \"fn b() {\";\n    // fn c() {\n    '{'\n}\n\
                  fn d() { let _ = (r#\"}\"#, '\\'', b'}'); }\nfn e();\n";
    let found = functions(&code_only(source));
    assert_eq!(found, [("a".to_string(), 1, 5), ("d".to_string(), 6, 1)]);
}

#[test]
fn no_function_is_longer_than_120_lines() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "core/src", "edge/src", "print/src", "hq/src", "benches", "tests"] {
        rust_files(&repo.join(dir), &mut files);
    }
    assert!(files.len() > 100, "the sources were found: {}", files.len());
    let mut long = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        for (name, line, length) in functions(&code_only(&source)) {
            if length > LONGEST_FUNCTION {
                long.push(format!(
                    "{}:{line} {name}: {length} lines",
                    file.strip_prefix(repo).unwrap().display()
                ));
            }
        }
    }
    assert!(long.is_empty(), "split these into named steps:\n{}", long.join("\n"));
}

/// The positional row reads in `code` (`r.get(3)`, `r.get::<_, Money>(9)`, `r.get_ref(0)`): the
/// 1-based lines they are on.
fn positional_reads(code: &str) -> Vec<usize> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices(".get") {
        let mut rest = code[at + 4..].strip_prefix("_ref").unwrap_or(&code[at + 4..]);
        if let Some(turbofish) = rest.strip_prefix("::<") {
            let mut depth = 1;
            let Some(close) = turbofish.char_indices().find_map(|(i, c)| {
                match c {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(i)
            }) else {
                continue;
            };
            rest = &turbofish[close + 1..];
        }
        let Some(argument) = rest.strip_prefix('(') else { continue };
        let digits = argument.len() - argument.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && argument[digits..].starts_with(')') {
            found.push(code[..at].matches('\n').count() + 1);
        }
    }
    found
}

#[test]
fn the_reader_finds_positional_reads_and_not_named_ones() {
    let code = "r.get(0)?;\nr.get::<_, Option<Money>>(12)?;\nr.get_ref(3)?;\nr.get(\"id\")?;\n\
                r.get::<_, Money>(\"amount\")?;\nr.get(at + 1)?;\nrow.get(10)";
    assert_eq!(positional_reads(code), [1, 2, 3, 7]);
}

/// A row read by position breaks silently when a column list changes; by name it fails loudly
/// or not at all. Files that speak to SQLite (they name `rusqlite`) or to the head office's
/// PostgreSQL (`tokio_postgres`, `deadpool_postgres`) read every column by name.
#[test]
fn no_row_is_read_by_position() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&repo.join("src"), &mut files);
    rust_files(&repo.join("core").join("src"), &mut files);
    rust_files(&repo.join("edge").join("src"), &mut files);
    rust_files(&repo.join("hq").join("src"), &mut files);
    // The campaign reads the product's file as an outside judge: by name too.
    rust_files(&repo.join("chaos").join("src"), &mut files);
    let mut positional = Vec::new();
    let (mut sqlite_files, mut postgres_files) = (0, 0);
    for file in &files {
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        if code.contains("rusqlite") {
            sqlite_files += 1;
        } else if code.contains("tokio_postgres") || code.contains("deadpool_postgres") {
            postgres_files += 1;
        } else {
            continue;
        }
        for line in positional_reads(&code) {
            positional.push(format!("{}:{line}", file.strip_prefix(repo).unwrap().display()));
        }
    }
    assert!(sqlite_files > 20, "the store's files were found: {sqlite_files}");
    assert!(postgres_files > 10, "the head office's files were found: {postgres_files}");
    assert!(
        positional.is_empty(),
        "read these {} columns by name (or through the table's row mapper):\n{}",
        positional.len(),
        positional.join("\n")
    );
}
