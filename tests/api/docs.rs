//! The book (`docs/`) as a technician meets it at `/docs` on a running server: every chapter of the
//! SUMMARY served, every internal link of every page answering 200 and every `#fragment` naming
//! an id of its page, nothing loaded from elsewhere. And the book's sources as a reader meets them
//! in the repository: every relative link of README.md and docs/**/*.md names a file that exists
//! and, into a chapter, a heading it has.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::common::TestServer;
use arka::api::docs::{CONTENT_SECURITY_POLICY, heading_ids, link_targets};
use html5gum::{Token, Tokenizer};

/// The links of a page (the element, the attribute's value) and the ids it has.
struct Page {
    links: Vec<(String, String)>,
    ids: BTreeSet<String>,
}

fn parse(html: &str) -> Page {
    let mut links = Vec::new();
    let mut ids = BTreeSet::new();
    for token in Tokenizer::new(html).flatten() {
        if let Token::StartTag(tag) = token {
            let element = String::from_utf8_lossy(&tag.name).into_owned();
            for (name, value) in &tag.attributes {
                let value = String::from_utf8_lossy(value).into_owned();
                match String::from_utf8_lossy(name).as_ref() {
                    "href" | "src" => links.push((element.clone(), value)),
                    "id" => {
                        ids.insert(value);
                    }
                    _ => {}
                }
            }
        }
    }
    Page { links, ids }
}

/// `https:`, `mailto:`, `//host`: a link that leaves this server.
fn external(link: &str) -> bool {
    link.starts_with("//")
        || link.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
}

/// An internal link of the page at `page` (a path) as a path and a fragment, as a browser reads it.
fn resolve(page: &str, link: &str) -> (String, Option<String>) {
    let (path, fragment) = match link.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment.to_string())),
        None => (link, None),
    };
    if path.is_empty() {
        return (page.to_string(), fragment);
    }
    let mut parts: Vec<&str> = if path.starts_with('/') {
        Vec::new()
    } else {
        let mut base: Vec<&str> = page.split('/').filter(|p| !p.is_empty()).collect();
        if !page.ends_with('/') {
            base.pop();
        }
        base
    };
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let mut resolved = format!("/{}", parts.join("/"));
    if path.ends_with('/') && !resolved.ends_with('/') {
        resolved.push('/');
    }
    (resolved, fragment)
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
fn the_book_is_served_at_docs_and_every_internal_link_of_every_page_answers_200() {
    let server = TestServer::start();
    let mut pages: BTreeMap<String, Page> = BTreeMap::new();
    let mut linked_from: BTreeMap<String, String> = BTreeMap::from([("/docs".into(), "the start".into())]);
    let mut fragments: Vec<(String, String, String)> = Vec::new();
    let mut queue = VecDeque::from(["/docs".to_string()]);
    let mut fetched = 0;
    while let Some(path) = queue.pop_front() {
        fetched += 1;
        assert!(fetched <= 500, "the book has fewer than 500 pages and files");
        let reply = server.get(&path, None);
        let from = &linked_from[&path];
        assert_eq!(reply.status, 200, "{path}, linked from {from}: {}", reply.text);
        assert_eq!(reply.header("content-security-policy"), Some(CONTENT_SECURITY_POLICY), "{path}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"), "{path}");
        let content_type = reply.header("content-type").unwrap_or_default().to_string();
        if path.ends_with(".png") {
            assert_eq!(content_type, "image/png", "{path}");
            assert!(server.get_bytes(&path, None).starts_with(b"\x89PNG"), "{path} is a PNG");
        }
        if !content_type.starts_with("text/html") {
            continue;
        }
        let page = parse(&reply.text);
        for (element, link) in &page.links {
            if external(link) {
                // A reader may follow a link out; the page itself loads nothing from elsewhere.
                assert_eq!(element, "a", "{path} loads {link} from outside the box");
                continue;
            }
            let (target, fragment) = resolve(&path, link);
            assert!(target.starts_with("/docs"), "{path} links {link} outside the book");
            if let Some(fragment) = fragment {
                fragments.push((path.clone(), target.clone(), fragment));
            }
            if !linked_from.contains_key(&target) {
                linked_from.insert(target.clone(), path.clone());
                queue.push_back(target);
            }
        }
        pages.insert(path, page);
    }

    for (from, target, fragment) in &fragments {
        let ids = &pages.get(target).unwrap_or_else(|| panic!("{target} is a page")).ids;
        assert!(ids.contains(fragment), "{from} links {target}#{fragment}, which has no such id");
    }
    // The navigation reaches every chapter the SUMMARY names, each on its own page.
    let summary = std::fs::read_to_string(repo("docs/src/SUMMARY.md")).unwrap();
    let chapters = link_targets(&summary);
    assert!(chapters.len() >= 20, "{chapters:?}");
    for chapter in &chapters {
        let url = format!("/docs/{}", chapter.replace(".md", ".html"));
        let page = pages.get(&url).unwrap_or_else(|| panic!("{chapter} is not reached from /docs"));
        assert!(page.links.iter().any(|(_, l)| l == "/docs/book.css"), "{url} has the stylesheet");
    }
    assert!(fragments.len() > 20, "links into chapters' headings are followed too: {}", fragments.len());
    for screenshot in ["today-desktop", "close-desktop", "reports-phone"] {
        let url = format!("/docs/screenshots/{screenshot}.png");
        assert!(linked_from.contains_key(&url), "the owner's page chapter shows {url}");
    }

    // /docs/ is /docs; the first chapter is the book's front page; anything else is 404.
    let front = server.get("/docs", None).text;
    assert_eq!(server.get("/docs/", None).text, front);
    assert_eq!(server.get("/docs/introduction.html", None).text, front);
    assert!(front.contains("<h1 id=\"arka\">Arka</h1>"), "{front}");
    for missing in ["/docs/nothing.html", "/docs/api/invoices.md", "/docs/../README.md", "/docs/SUMMARY.md"] {
        assert_eq!(server.get(missing, None).status, 404, "{missing}");
    }
    // The OpenAPI document names the book's two routes, and is served byte for byte as it is in
    // assets/ (the binary keeps it packed, as it keeps the chapters).
    let openapi = server.get("/api/openapi.yaml", None).text;
    assert!(openapi.contains("\n  /docs:\n") && openapi.contains("\n  /docs/{path}:\n"));
    assert!(openapi == std::fs::read_to_string(repo("assets/openapi.yaml")).unwrap(), "served as in assets/");
    // A browser that has the page gets 304.
    let reply = server.get("/docs/api/invoices.html", None);
    let etag = reply.header("etag").unwrap().to_string();
    assert_eq!(
        server.request("GET", "/docs/api/invoices.html", &[("If-None-Match", &etag)], None).status,
        304
    );
}

/// Every relative link in `files` that names no file, or a heading its chapter does not have.
fn broken_links(files: &[PathBuf]) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in files {
        let markdown = std::fs::read_to_string(file).unwrap();
        for link in link_targets(&markdown) {
            if external(&link) || link.starts_with('/') {
                continue;
            }
            checked += 1;
            let (path, fragment) = match link.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (link.as_str(), None),
            };
            let target = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            if !target.exists() {
                broken.push(format!("{}: {link} (no such file)", file.display()));
                continue;
            }
            let into_markdown = target.extension().is_some_and(|e| e == "md");
            if let Some(fragment) = fragment.filter(|_| into_markdown) {
                let ids = heading_ids(&std::fs::read_to_string(&target).unwrap());
                if !ids.iter().any(|id| id == fragment) {
                    broken.push(format!("{}: {link} (no such heading)", file.display()));
                }
            }
        }
    }
    (checked, broken)
}

fn markdown_under(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // mdbook's output, when built here.
            if path.file_name().is_some_and(|n| n != "book") {
                markdown_under(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(path);
        }
    }
}

#[test]
fn every_relative_link_of_the_readme_and_the_book_names_a_file_and_a_heading_that_exist() {
    let mut files = vec![repo("README.md")];
    markdown_under(&repo("docs"), &mut files);
    assert!(files.len() > 20, "{files:?}");
    let (checked, broken) = broken_links(&files);
    assert!(broken.is_empty(), "links that do not resolve:\n{}", broken.join("\n"));
    assert!(checked > 100, "the links of the README and the book were read: {checked}");

    // The check finds what it looks for.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/b.md"), "# B\n\n## Two words\n").unwrap();
    let a = dir.path().join("a.md");
    std::fs::write(
        &a,
        "# A\n\n[fine](sub/b.md#two-words) [self](#a) [out](https://example.org/x.md)\n\
         [gone](sub/c.md) [no heading](sub/b.md#three) [nor here](#b) ![pic](pic.png)\n",
    )
    .unwrap();
    let (checked, broken) = broken_links(&[a]);
    assert_eq!(checked, 6);
    let broken: Vec<&str> = broken.iter().map(|b| b.rsplit_once(": ").unwrap().1).collect();
    assert_eq!(
        broken,
        [
            "sub/c.md (no such file)",
            "sub/b.md#three (no such heading)",
            "#b (no such heading)",
            "pic.png (no such file)"
        ]
    );
}

/// The colour type of a PNG, byte 25 of the file (the IHDR chunk's), if it is one.
fn png_colour_type(bytes: &[u8]) -> Option<u8> {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n").then(|| bytes.get(25).copied()).flatten()
}

#[test]
fn every_screenshot_of_the_book_is_a_palette_png_the_release_binary_can_carry() {
    // The binary embeds the screenshots (issue 34's 15 MB goal): a browser test refresh writes
    // 24-bit PNGs three times the size, which `pngquant` must bring back to 256 colours.
    let mut total = 0;
    let mut screenshots = 0;
    for entry in std::fs::read_dir(repo("docs/screenshots")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            png_colour_type(&bytes),
            Some(3),
            "{} is not a palette PNG: pngquant --quality 80-95 --speed 1 --strip --force --output F F",
            path.display()
        );
        total += bytes.len();
        screenshots += 1;
    }
    assert!(screenshots >= 20, "{screenshots} screenshots");
    assert!(total < 800_000, "the screenshots take {total} bytes");
    assert_eq!(png_colour_type(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02"), Some(2));
}
