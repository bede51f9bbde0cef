//! The rooms of the house and their one-way imports, read off the sources (the book's chapter
//! "The rooms and what each may import", docs/src/development/rooms.md, says the same in prose).
//!
//! What is read: every `use` line, and every path in code that starts with `crate::`, `super::`,
//! `self::`, the name of a child module or a name a `use` line brought in, in src/**/*.rs outside
//! `#[cfg(test)]` items. Each is resolved to the deepest module it names: an arrow from the
//! file's module to that module.
//!
//! Two kinds of circle fail the test:
//! - between rooms: A -> B when a file of room A names a module of room B. Each arrow must also be
//!   one its room's rule allows (`RULES`), so the rules, not only the absence of circles, hold;
//! - inside a room, folder by folder: the folder's entries (its files, and each sub-folder as one)
//!   with X -> Y when a file under X names a module under Y. The folder's own `mod.rs` is its
//!   front door (it declares, wires and re-exports its entries, and they use what it defines for
//!   all of them: the error enum, `AppState`, `Store`), so arrows to and from it do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn name(module: &[String]) -> String {
    if module.is_empty() { "crate".to_string() } else { module.join("::") }
}

fn parse_module(text: &str) -> Module {
    if text == "crate" { Vec::new() } else { text.split("::").map(str::to_string).collect() }
}

/// The rooms of `arka` and what each may import (the edge's rooms, mounted at its root, are
/// `EDGE_RULES`'s: `shop_rules`). A room is a module and everything under it, except what a
/// deeper room claims. `=store` allows only the module `store` itself (its
/// `mod.rs`: the `Store` handle and its error), not the queries under it.
const RULES: &[(&str, &[&str])] = &[
    ("crate", &["*"]),
    ("domain", &[]),
    ("panics", &[]),
    ("clock", &[]),
    ("print", &[]),
    ("printer", &["print"]),
    ("ops", &[]),
    ("ops::files", &["files"]),
    ("ops::windows", &["acl"]),
    ("ops::metrics", &[]),
    ("ops::secrets", &["files", "secrets"]),
    ("ops::data_lock", &["ops::files"]),
    ("row", &["domain"]),
    ("invoice", &["domain", "row"]),
    ("report", &["domain", "invoice", "row"]),
    ("wire", &["domain", "invoice"]),
    ("columns", &["domain"]),
    ("store", &["domain", "row", "invoice", "report", "columns", "ops::files", "panics", "wire"]),
    ("cis_wait", &[]),
    ("fiscal", &["domain", "store", "ops::secrets", "ops::metrics", "cis_wait", "error_chain"]),
    ("rates", &["domain"]),
    ("wolt", &["domain", "config", "ops::secrets"]),
    ("ai", &["domain"]),
    ("config", &["clock", "ops::windows", "tls"]),
    (
        "backup",
        &[
            "clock",
            "config",
            "domain",
            "store",
            "ops::data_lock",
            "ops::files",
            "ops::secrets",
            "error_chain",
        ],
    ),
    ("copy", &["domain", "store", "ops::data_lock", "ops::files", "ops::secrets", "error_chain"]),
    (
        "services",
        &[
            "domain",
            "store",
            "fiscal",
            "print",
            "printer",
            "rates",
            "wolt",
            "ai",
            "ops::secrets",
            "ops::metrics",
            "cis_wait",
            "panics",
            "error_chain",
            "wire",
            "report",
            "hq_client",
        ],
    ),
    (
        "api",
        &[
            "services",
            "domain",
            "store",
            "fiscal",
            "print",
            "wolt",
            "ai",
            "config",
            "ops::secrets",
            "ops::metrics",
            "cis_wait",
            "panics",
            "error_chain",
            "clock",
            "error",
            "extract",
            "list",
            "web",
            "serve",
            "reports",
            "report",
            "invoice",
            "wire",
        ],
    ),
    ("hq_client", &["wire"]),
    ("hq", HQ_BUILDS_ON),
    ("sim", &[]),
    ("sim::http", &[]),
    ("sim::cis", &["domain", "fiscal", "print", "sim::http"]),
    ("sim::wolt", &["domain", "wolt", "sim::http"]),
    (
        "cli",
        &[
            "crate",
            "config",
            "services",
            "=store",
            "domain",
            "fiscal",
            "api",
            "sim",
            "sim::cis",
            "sim::wolt",
            "backup",
            "copy",
            "ops::data_lock",
            "ops::secrets",
            "tls",
            "ops::windows",
            "hq",
        ],
    ),
];

/// The rooms of `arka-core` (`core/src`): the domain, a stored row read by name, the invoice as
/// stored, the report model, the wire format, the domain's SQLite columns.
const CORE_RULES: &[(&str, &[&str])] = &[
    ("crate", &["*"]),
    ("domain", &[]),
    ("row", &["domain"]),
    ("invoice", &["domain", "row"]),
    ("report", &["domain", "invoice", "row"]),
    ("wire", &["domain", "invoice"]),
    ("columns", &["domain"]),
];

/// The rooms of `arka-edge` (`edge/src`), the HTTP edge a shop and its head office answer
/// through; of ours it builds on the core alone (its manifest names no other crate of ours).
const EDGE_RULES: &[(&str, &[&str])] = &[
    ("crate", &["*"]),
    ("domain", &[]),
    ("error_chain", &[]),
    ("acl", &[]),
    ("files", &["acl"]),
    ("secrets", &[]),
    ("error", &["domain"]),
    ("extract", &["error", "domain"]),
    ("list", &["error", "extract"]),
    ("web", &["error", "secrets"]),
    ("serve", &[]),
    ("tls", &["files"]),
    ("reports", &["error", "domain", "report"]),
    ("report", &[]),
];

/// One arrow, with where it was seen first.
#[derive(Clone)]
struct Seen {
    file: String,
    line: usize,
    path: String,
}

struct Crate {
    /// The modules with a file, and the file.
    files: BTreeMap<Module, PathBuf>,
    /// Modules whose items are tests only (`#[cfg(test)] mod x;`).
    test_only: BTreeSet<Module>,
    /// from -> to -> first sighting
    arrows: BTreeMap<Module, BTreeMap<Module, Seen>>,
    /// The modules of the `arka` library a crate beside it names (`arka::fiscal`), first sighting.
    of_arka: BTreeMap<String, Seen>,
    /// The modules of the crates it builds on (`arka_core`), at the names it reaches them by: a
    /// crate's name (`arka_core::domain`) or its root's re-export (`crate::domain`). Their files
    /// are judged as their own crate.
    mounted: BTreeSet<Module>,
    /// The names of those crates as a path starts with them.
    crates_below: BTreeSet<String>,
    /// `#[macro_export]` macros (Rust puts them at the crate's root, `crate::__spelled`) and the
    /// module that defines them, where their paths lead.
    macros: BTreeMap<String, Module>,
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shop's rules: its own rooms' and the edge's (mounted at its root, under the edge's rules).
fn shop_rules() -> Vec<(&'static str, &'static [&'static str])> {
    let edge = EDGE_RULES.iter().filter(|(room, _)| !RULES.iter().any(|(ours, _)| ours == room));
    RULES.iter().chain(edge).copied().collect()
}

/// Where a crate below is mounted in the crate that builds on it: the core's and the edge's
/// rooms at the root (the shop re-exports them there), printing and the head office as one room
/// each (`crate::print`, `crate::hq`, the shop's re-exports of `arka_print` and `arka_hq`).
fn mount_point(krate: &str) -> Module {
    match krate {
        "arka_print" => parse_module("print"),
        "arka_hq" => parse_module("hq"),
        _ => Vec::new(),
    }
}

/// The shop's crate (`src`), with the crates it builds on mounted.
fn shop() -> Crate {
    let below = [
        ("arka_core", manifest_dir().join("core/src")),
        ("arka_edge", manifest_dir().join("edge/src")),
        ("arka_print", manifest_dir().join("print/src")),
        ("arka_hq", manifest_dir().join("hq/src")),
    ];
    let below: Vec<(&str, &Path)> = below.iter().map(|(name, src)| (*name, src.as_path())).collect();
    Crate::read(&manifest_dir().join("src"), &below)
}

/// The modules of the library rooted at `src/lib.rs` (binaries' roots, `main.rs` and `bin/`, are
/// crates of their own that use the library as any client does).
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(src).unwrap().to_path_buf();
            if path.is_dir() {
                if relative != Path::new("bin") {
                    dirs.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || relative == Path::new("main.rs") {
                continue;
            }
            let mut module: Module =
                relative.with_extension("").iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if module.last().is_some_and(|m| m == "mod") || module == ["lib"] {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// The text with comments, string and character literals blanked (newlines kept, so that line
/// numbers stay true).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !ident_char(chars.get(i.wrapping_sub(1)))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &k in &chars[i..j.min(chars.len())] {
                blank(&mut out, k);
            }
            i = j;
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            if i < chars.len() {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), or else a lifetime.
            let end = if next == Some('\\') {
                (i + 2..chars.len()).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for &k in &chars[i..=end] {
                        blank(&mut out, k);
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// The end (exclusive) of the item starting at `start`: its first `;` outside brackets, or its
/// first braced block.
fn item_end(code: &[u8], start: usize) -> usize {
    let mut depth = 0i32;
    let mut i = start;
    while i < code.len() {
        match code[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b';' if depth == 0 => return i + 1,
            b'{' if depth == 0 => {
                let mut braces = 0;
                while i < code.len() {
                    match code[i] {
                        b'{' => braces += 1,
                        b'}' => {
                            braces -= 1;
                            if braces == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return i;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The code without `#[cfg(test)]` items, and the names of test-only child modules declared
/// with `#[cfg(test)] mod name;`.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let bytes = code.as_bytes();
    let mut out = code.as_bytes().to_vec();
    let mut test_modules = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]") {
        let start = from + at;
        let mut item = start + "#[cfg(test)]".len();
        // Further attributes, then the item itself.
        loop {
            while item < bytes.len() && bytes[item].is_ascii_whitespace() {
                item += 1;
            }
            if code[item..].starts_with("#[") {
                item = item_end_bracket(bytes, item + 1);
            } else {
                break;
            }
        }
        let end = item_end(bytes, item);
        let words: Vec<&str> = code[item..end].split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
        let words: Vec<&str> = words.into_iter().filter(|w| !w.is_empty()).collect();
        if let Some(i) = words.iter().position(|w| *w == "mod")
            && code[item..end].trim_end().ends_with(';')
            && let Some(module) = words.get(i + 1)
        {
            test_modules.push(module.to_string());
        }
        for b in &mut out[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        from = end;
    }
    (String::from_utf8(out).unwrap(), test_modules)
}

/// The end (exclusive) of the bracketed group opening at `open` (`[`).
fn item_end_bracket(code: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (i, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The paths of a use tree: `a::{b, c::{d, e as f}, self}` -> `a::b`, `a::c::d`, `a::c::e`, `a`;
/// each with the local name it brings in.
fn use_paths(tree: &str) -> Vec<(String, String)> {
    fn expand(prefix: &str, tree: &str, out: &mut Vec<(String, String)>) {
        let mut depth = 0;
        let mut part = String::new();
        let mut parts = Vec::new();
        for c in tree.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if c == ',' && depth == 0 {
                parts.push(std::mem::take(&mut part));
            } else {
                part.push(c);
            }
        }
        parts.push(part);
        for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            if let Some(open) = part.find('{') {
                let inner = &part[open + 1..part.rfind('}').unwrap_or(part.len())];
                expand(&format!("{prefix}{}", &part[..open]), inner, out);
                continue;
            }
            let (path, alias) = match part.split_once(" as ") {
                Some((path, alias)) => (path.trim(), Some(alias.trim())),
                None => (part, None),
            };
            let full = if path == "self" {
                prefix.trim_end_matches("::").to_string()
            } else {
                format!("{prefix}{path}")
            };
            let local = alias.unwrap_or_else(|| full.rsplit("::").next().unwrap_or("")).to_string();
            out.push((full, local));
        }
    }
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree.replace(":: ", "::").replace(" ::", "::").replace("{ ", "{").replace(" }", "}");
    let mut out = Vec::new();
    expand("", tree.trim_start_matches("::"), &mut out);
    out
}

impl Crate {
    /// The crate rooted at `src/lib.rs`, with the crates it builds on (a path's first name, and
    /// their `src`) mounted at its root.
    fn read(src: &Path, below: &[(&str, &Path)]) -> Crate {
        let files = modules(src);
        let mounted = below.iter().flat_map(|(name, src)| {
            let at = mount_point(name);
            modules(src).into_keys().map(move |m| at.iter().cloned().chain(m).collect::<Module>())
        });
        let mut krate = Crate {
            files,
            test_only: BTreeSet::new(),
            arrows: BTreeMap::new(),
            of_arka: BTreeMap::new(),
            mounted: mounted.collect(),
            crates_below: below.iter().map(|(name, _)| name.to_string()).collect(),
            macros: BTreeMap::new(),
        };
        let mut texts = BTreeMap::new();
        for (module, path) in &krate.files {
            let text = std::fs::read_to_string(path).unwrap();
            let (code, test_modules) = without_tests(&code_only(&text));
            for child in test_modules {
                let mut m = module.clone();
                m.push(child);
                krate.test_only.insert(m);
            }
            for (at, _) in code.match_indices("#[macro_export]") {
                let rest = code[at..].split_once("macro_rules!").map_or("", |(_, rest)| rest).trim_start();
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                krate.macros.insert(name, module.clone());
            }
            texts.insert(module.clone(), code);
        }
        // A test-only module's own children are test-only too.
        let test_only = krate.test_only.clone();
        krate.files.retain(|m, _| !test_only.iter().any(|t| m.starts_with(t)));
        for (module, code) in &texts {
            if !krate.files.contains_key(module) {
                continue;
            }
            let file = krate.files[module].strip_prefix(manifest_dir()).unwrap().display().to_string();
            krate.read_file(module, &file, code);
        }
        krate
    }

    /// The deepest module a path names, seen from `module` (with its `use` names `aliases`).
    fn resolve(&self, module: &Module, aliases: &BTreeMap<String, Module>, path: &str) -> Option<Module> {
        let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let (mut base, rest): (Module, &[&str]) = match segments.first().copied()? {
            "crate" if segments.get(1).is_some_and(|m| self.macros.contains_key(*m)) => {
                return Some(self.macros[segments[1]].clone());
            }
            "crate" => (Vec::new(), &segments[1..]),
            "self" => (module.clone(), &segments[1..]),
            "super" => {
                let mut base = module.clone();
                let supers = segments.iter().take_while(|s| **s == "super").count();
                for _ in 0..supers {
                    base.pop()?;
                }
                (base, &segments[supers..])
            }
            // A crate below's own root (a macro it exports, an item it re-exports) is none of ours.
            first if self.crates_below.contains(first) => {
                let at = mount_point(first);
                if !at.is_empty() {
                    (at, &segments[1..])
                } else {
                    let deeper = segments.get(1).map(|m| vec![m.to_string()]);
                    if !deeper.as_ref().is_some_and(|m| self.knows(m)) {
                        return None;
                    }
                    (Vec::new(), &segments[1..])
                }
            }
            first => {
                let mut child = module.clone();
                child.push(first.to_string());
                if self.knows(&child) {
                    (module.clone(), &segments[..])
                } else if let Some(target) = aliases.get(first) {
                    (target.clone(), &segments[1..])
                } else {
                    return None;
                }
            }
        };
        for segment in rest {
            let mut deeper = base.clone();
            deeper.push(segment.to_string());
            if self.knows(&deeper) {
                base = deeper;
            } else {
                break;
            }
        }
        Some(base)
    }

    /// A module of this crate or of one mounted, with a file or a folder.
    fn knows(&self, module: &Module) -> bool {
        self.files.contains_key(module)
            || self.mounted.contains(module)
            || self.files.keys().chain(&self.mounted).any(|m| m.len() > module.len() && m.starts_with(module))
    }

    fn read_file(&mut self, module: &Module, file: &str, code: &str) {
        let line_of = |at: usize| code[..at].matches('\n').count() + 1;
        // `use` items first: they give the names the code's paths start with.
        let mut aliases = BTreeMap::new();
        let mut uses = Vec::new();
        let mut rest = code.to_string().into_bytes();
        let mut from = 0;
        while let Some(at) = find_word(code, "use", from) {
            let end = code[at..].find(';').map_or(code.len(), |e| at + e + 1);
            for (path, local) in use_paths(&code[at + 3..end - 1]) {
                self.note_arka(&path, Seen { file: file.to_string(), line: line_of(at), path: path.clone() });
                if let Some(target) = self.resolve(module, &aliases, &path) {
                    let full: Vec<&str> = path.split("::").collect();
                    let names_module = target.last().map(String::as_str) == full.last().copied()
                        || (full.last() == Some(&"crate") && target.is_empty());
                    if names_module {
                        aliases.insert(local, target.clone());
                    }
                    uses.push((at, path, target));
                }
            }
            for b in &mut rest[at..end] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            from = end;
        }
        for (at, path, target) in uses {
            self.arrow(module, target, Seen { file: file.to_string(), line: line_of(at), path });
        }
        let rest = String::from_utf8(rest).unwrap();
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts_path = (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_')
                && (i == 0
                    || !(bytes[i - 1].is_ascii_alphanumeric()
                        || bytes[i - 1] == b'_'
                        || bytes[i - 1] == b':'
                        || bytes[i - 1] == b'$'));
            if !starts_path {
                i += 1;
                continue;
            }
            let mut end = i;
            loop {
                while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                    end += 1;
                }
                if rest[end..].starts_with("::")
                    && rest[end + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                {
                    end += 2;
                } else {
                    break;
                }
            }
            let path = &rest[i..end];
            self.note_arka(path, Seen { file: file.to_string(), line: line_of(i), path: path.to_string() });
            if path.contains("::")
                && let Some(target) = self.resolve(module, &aliases, path)
            {
                self.arrow(
                    module,
                    target,
                    Seen { file: file.to_string(), line: line_of(i), path: path.to_string() },
                );
            }
            i = end.max(i + 1);
        }
    }

    fn note_arka(&mut self, path: &str, seen: Seen) {
        let mut segments = path.split("::");
        if segments.next() == Some("arka")
            && let Some(module) = segments.next()
        {
            self.of_arka.entry(module.to_string()).or_insert(seen);
        }
    }

    fn arrow(&mut self, from: &Module, to: Module, seen: Seen) {
        if &to != from {
            self.arrows.entry(from.clone()).or_default().entry(to).or_insert(seen);
        }
    }
}

/// Where `word` next stands alone as a word at or after `from`.
fn find_word(text: &str, word: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut start = from;
    while let Some(at) = text[start..].find(word) {
        let at = start + at;
        let before = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let after = bytes.get(at + word.len()).is_none_or(|b| b.is_ascii_whitespace());
        if before && after {
            return Some(at);
        }
        start = at + word.len();
    }
    None
}

/// A circle of a graph as its arrows, each with where it is seen, or none.
fn circles<N: Ord + Clone>(arrows: &BTreeMap<N, BTreeMap<N, Seen>>) -> Vec<Vec<(N, N, Seen)>> {
    // Tarjan's strongly connected components; one circle named per component.
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        components: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(v: &N, arrows: &BTreeMap<N, BTreeMap<N, Seen>>, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on_stack.insert(v.clone());
        for w in arrows.get(v).into_iter().flat_map(|m| m.keys()) {
            if !s.index.contains_key(w) {
                visit(w, arrows, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v.clone(), low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v.clone(), low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(&w);
                let done = &w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                s.components.push(component);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in arrows.keys() {
        if !s.index.contains_key(v) {
            visit(v, arrows, &mut s);
        }
    }
    s.components
        .into_iter()
        .map(|component| {
            // A shortest way back to the first node, inside the component (breadth first).
            let members: BTreeSet<N> = component.iter().cloned().collect();
            let start = component.iter().min().unwrap().clone();
            let mut came_from: BTreeMap<N, N> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start.clone()]);
            let mut last = None;
            'search: while let Some(v) = queue.pop_front() {
                for w in arrows[&v].keys().filter(|w| members.contains(*w)) {
                    if *w == start {
                        last = Some(v.clone());
                        break 'search;
                    }
                    if !came_from.contains_key(w) {
                        came_from.insert(w.clone(), v.clone());
                        queue.push_back(w.clone());
                    }
                }
            }
            let mut way = vec![start.clone()];
            let mut v = last.unwrap();
            while v != start {
                way.push(v.clone());
                v = came_from[&v].clone();
            }
            way.push(start.clone());
            way.reverse();
            way.windows(2).map(|p| (p[0].clone(), p[1].clone(), arrows[&p[0]][&p[1]].clone())).collect()
        })
        .collect()
}

fn say_circle<N>(circle: &[(N, N, Seen)], name: impl Fn(&N) -> String) -> String {
    let mut text = String::new();
    for (from, to, seen) in circle {
        text.push_str(&format!(
            "\n    {} -> {}   ({}:{} `{}`)",
            name(from),
            name(to),
            seen.file,
            seen.line,
            seen.path
        ));
    }
    text
}

/// The room a module lives in: the deepest room that is it or holds it.
fn room_of<'a>(rooms: &'a [Module], module: &Module) -> Option<&'a Module> {
    rooms
        .iter()
        .filter(|r| module.starts_with(r) && (!r.is_empty() || module.is_empty()))
        .max_by_key(|r| r.len())
}

/// Circles between the entries of each folder that `judged` picks (see the top of this file).
fn folder_circles(krate: &Crate, judged: impl Fn(&Module) -> bool) -> Vec<String> {
    let mut folders: BTreeSet<Module> = BTreeSet::new();
    for module in krate.files.keys() {
        for depth in 0..module.len() {
            folders.insert(module[..depth].to_vec());
        }
    }
    let mut found = Vec::new();
    for folder in folders.into_iter().filter(|f| judged(f)) {
        let entry = |m: &Module| -> Option<Module> {
            (m.len() > folder.len() && m.starts_with(&folder)).then(|| m[..=folder.len()].to_vec())
        };
        let mut arrows: BTreeMap<Module, BTreeMap<Module, Seen>> = BTreeMap::new();
        for (from, targets) in &krate.arrows {
            let Some(x) = entry(from) else { continue };
            for (to, seen) in targets {
                if let Some(y) = entry(to)
                    && x != y
                {
                    arrows.entry(x.clone()).or_default().entry(y).or_insert_with(|| seen.clone());
                }
            }
        }
        for circle in circles(&arrows) {
            found.push(format!("in {}:{}", name(&folder), say_circle(&circle, |m| name(m))));
        }
    }
    found
}

/// What breaks a crate's rules (`rules`: each room and what it may import), its rooms' circles
/// and its folders' circles.
fn problems(krate: &Crate, rules: &[(&str, &[&str])]) -> Vec<String> {
    let rooms: Vec<Module> = rules.iter().map(|(room, _)| parse_module(room)).collect();
    let mut problems = Vec::new();

    for module in krate.files.keys() {
        if room_of(&rooms, module).is_none() {
            problems.push(format!("{} is in no room: give it one in RULES and in the book", name(module)));
        }
    }
    for room in &rooms {
        if !krate.files.keys().chain(&krate.mounted).any(|m| m.starts_with(room)) {
            problems.push(format!("the room {} has no file", name(room)));
        }
    }

    let mut between: BTreeMap<Module, BTreeMap<Module, Seen>> = BTreeMap::new();
    for (from, targets) in &krate.arrows {
        let Some(a) = room_of(&rooms, from) else { continue };
        let allowed = rules.iter().find(|(r, _)| parse_module(r) == *a).map(|(_, allowed)| *allowed).unwrap();
        for (to, seen) in targets {
            let Some(b) = room_of(&rooms, to) else { continue };
            if a == b {
                continue;
            }
            between.entry(a.clone()).or_default().entry(b.clone()).or_insert_with(|| seen.clone());
            let ok = allowed.iter().any(|rule| match rule.strip_prefix('=') {
                _ if *rule == "*" => true,
                Some(exact) => parse_module(exact) == *to,
                None => parse_module(rule) == *b,
            });
            if !ok {
                problems.push(format!(
                    "{} may not import {} ({}:{} `{}`); its rule allows {:?}",
                    name(a),
                    name(to),
                    seen.file,
                    seen.line,
                    seen.path,
                    allowed
                ));
            }
        }
    }
    for circle in circles(&between) {
        problems.push(format!("a circle between rooms:{}", say_circle(&circle, |m| name(m))));
    }
    // Every folder, the crate's root and those of rooms (`ops`, `sim`) too: each one floor, so
    // no arrow goes back up between its entries.
    problems.extend(folder_circles(krate, |_| true));
    problems
}

#[test]
fn the_rooms_import_one_way_and_only_what_their_rule_allows() {
    let krate = shop();
    let problems = problems(&krate, &shop_rules());
    assert!(
        problems.is_empty(),
        "the rooms' imports (docs/src/development/rooms.md):\n{}",
        problems.join("\n")
    );
}

/// The core (`core/`, the crate `arka-core`) builds on no crate of ours; inside, its rooms import
/// one way too.
#[test]
fn the_core_imports_one_way() {
    let krate = Crate::read(&manifest_dir().join("core/src"), &[]);
    assert!(krate.files.len() > 20, "{:?}", krate.files.keys());
    assert_below_the_shop("the core", &krate, CORE_RULES);
}

/// A crate below the shop (`who`) keeps its `rules` and names nothing of the shop's crate.
fn assert_below_the_shop(who: &str, krate: &Crate, rules: &[(&str, &[&str])]) {
    let mut problems = problems(krate, rules);
    let named = krate.of_arka.values();
    problems.extend(
        named.map(|seen| format!("{who} names the shop: {}:{} `{}`", seen.file, seen.line, seen.path)),
    );
    assert!(problems.is_empty(), "{who}'s imports (docs/src/development/rooms.md):\n{}", problems.join("\n"));
}

/// What the head office (`arka-hq`) may name of ours, the core's rooms and the edge's: its row in
/// the shop's table, and the bound of every rule in `HQ_RULES`.
const HQ_BUILDS_ON: &[&str] = &[
    "wire",
    "domain",
    "row",
    "invoice",
    "report",
    "error",
    "extract",
    "list",
    "reports",
    "web",
    "serve",
    "tls",
    "secrets",
    "error_chain",
];

/// The rooms of `arka-hq` (`hq/src`), the head office: its root (settings, commands' errors),
/// its PostgreSQL (`store`), its HTTP server (`server`) and its commands (`cli`); of ours it builds
/// on the core and the edge alone (its manifest names no other crate of ours), mounted at its root
/// as the shop mounts them. The core's and the edge's rooms are judged in their own crates.
const HQ_RULES: &[(&str, &[&str])] = &[
    ("crate", &["*"]),
    ("store", &["crate", "domain", "row", "invoice", "report", "wire", "secrets"]),
    (
        "server",
        &[
            "crate",
            "store",
            "domain",
            "invoice",
            "report",
            "wire",
            "error",
            "extract",
            "list",
            "reports",
            "web",
            "serve",
            "tls",
            "secrets",
            "error_chain",
        ],
    ),
    ("cli", &["crate", "store", "server", "domain", "wire", "secrets", "error_chain"]),
    ("domain", &[]),
    ("row", &[]),
    ("invoice", &[]),
    ("report", &[]),
    ("wire", &[]),
    ("columns", &[]),
    ("error", &[]),
    ("extract", &[]),
    ("list", &[]),
    ("reports", &[]),
    ("web", &[]),
    ("serve", &[]),
    ("tls", &[]),
    ("secrets", &[]),
    ("files", &[]),
    ("acl", &[]),
    ("error_chain", &[]),
];

/// The head office (`hq/`, the crate `arka-hq`) builds on the core and the edge alone: it names
/// nothing of the shop's crate (the compiler holds it: its manifest names no `arka`), and inside,
/// its rooms import one way.
#[test]
fn the_head_office_builds_on_the_core_and_the_edge_alone_and_imports_one_way() {
    let below =
        [("arka_core", manifest_dir().join("core/src")), ("arka_edge", manifest_dir().join("edge/src"))];
    let below: Vec<(&str, &Path)> = below.iter().map(|(name, src)| (*name, src.as_path())).collect();
    let krate = Crate::read(&manifest_dir().join("hq/src"), &below);
    assert!(krate.files.len() > 15, "{:?}", krate.files.keys());
    assert_below_the_shop("the head office", &krate, HQ_RULES);
    let own = ["crate", "store", "server", "cli"];
    for (room, allowed) in HQ_RULES.iter().filter(|(room, _)| own.contains(room)) {
        for name in allowed.iter().filter(|a| !own.contains(a) && **a != "*") {
            assert!(
                HQ_BUILDS_ON.contains(name),
                "hq's {room} may name {name}, which HQ_BUILDS_ON leaves out"
            );
        }
    }
    let manifest = std::fs::read_to_string(manifest_dir().join("hq/Cargo.toml")).unwrap();
    let ours: Vec<&str> = manifest.lines().filter(|l| l.starts_with("arka")).collect();
    assert!(
        ours.len() == 2 && ours[0].starts_with("arka-core ") && ours[1].starts_with("arka-edge "),
        "{ours:?}"
    );
}

/// The HTTP edge (`edge/`, the crate `arka-edge`) builds on the core alone: it names nothing of
/// the shop's crate, and inside, its rooms import one way.
#[test]
fn the_edge_imports_the_core_alone_and_one_way() {
    let krate =
        Crate::read(&manifest_dir().join("edge/src"), &[("arka_core", &manifest_dir().join("core/src"))]);
    assert!(krate.files.len() > 8, "{:?}", krate.files.keys());
    assert_below_the_shop("the edge", &krate, EDGE_RULES);
}

/// The campaign (`chaos/`, the crate `arka-chaos`) drives the real binary over HTTP: of the
/// library it may know only what a client may (`fiscal`, for the certificate it makes), and its
/// own modules import one way too.
#[test]
fn the_campaign_knows_of_arka_only_what_a_client_may_and_imports_one_way() {
    let krate = Crate::read(&manifest_dir().join("chaos/src"), &[]);
    assert!(krate.files.len() > 5, "{:?}", krate.files.keys());
    let mut problems: Vec<String> = krate
        .of_arka
        .iter()
        .filter(|(module, _)| module.as_str() != "fiscal")
        .map(|(module, seen)| {
            format!("arka-chaos may not import arka::{module} ({}:{} `{}`)", seen.file, seen.line, seen.path)
        })
        .collect();
    assert!(krate.of_arka.contains_key("fiscal"), "{:?}", krate.of_arka.keys());
    problems.extend(folder_circles(&krate, |_| true));
    assert!(problems.is_empty(), "the campaign's imports:\n{}", problems.join("\n"));
}

/// The book's table (docs/src/development/rooms.md) says each room's rule as the test holds it:
/// a row per room, and in its last column exactly the rooms it may import, in backquotes
/// ("everything" for `*`, "nothing of ours" for none).
#[test]
fn the_books_table_of_rooms_says_the_rules_the_test_holds() {
    let book = std::fs::read_to_string(manifest_dir().join("docs/src/development/rooms.md")).unwrap();
    let quoted = |cell: &str| -> Vec<String> {
        cell.split('`').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>()
    };
    let mut said: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in book.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 3, "a row of three cells: {line}");
        let room = quoted(cells[0]).first().cloned().unwrap_or_default();
        let allowed: BTreeSet<String> = match cells[2] {
            "everything" => BTreeSet::from(["*".to_string()]),
            "nothing of ours" => BTreeSet::new(),
            cell => quoted(cell).into_iter().collect(),
        };
        assert!(said.insert(room.clone(), allowed).is_none(), "the room {room} has two rows");
    }
    let held: BTreeMap<String, BTreeSet<String>> = shop_rules()
        .iter()
        .map(|(room, allowed)| (room.to_string(), allowed.iter().map(|a| a.to_string()).collect()))
        .collect();
    let mut problems = Vec::new();
    for (room, allowed) in &held {
        match said.get(room) {
            None => problems.push(format!("the book has no row for the room `{room}`")),
            Some(book) if book != allowed => problems
                .push(format!("the book says `{room}` may import {book:?}; the rule says {allowed:?}")),
            Some(_) => {}
        }
    }
    for room in said.keys().filter(|r| !held.contains_key(*r)) {
        problems.push(format!("the book has a row for `{room}`, which is no room of RULES"));
    }
    // The core's rooms are mounted in the shop's graph under the same rules.
    for (room, allowed) in CORE_RULES.iter().filter(|(room, _)| *room != "crate") {
        let allowed: BTreeSet<String> = allowed.iter().map(|a| a.to_string()).collect();
        if held.get(*room) != Some(&allowed) {
            problems.push(format!("the core's room `{room}` has another rule in RULES"));
        }
    }
    assert!(problems.is_empty(), "docs/src/development/rooms.md:\n{}", problems.join("\n"));
}
