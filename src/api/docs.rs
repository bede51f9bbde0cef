//! The book (`docs/`, an mdBook) served at `/docs`, so a technician has the manual in the shop
//! while the line is down. Every chapter and every screenshot is embedded at build time
//! (`build.rs` lists them); the chapters are rendered to HTML once, at the first request, with
//! pulldown-cmark, the parser mdBook uses, so headings get mdBook's ids and tables read the same.
//! Every page carries the SUMMARY as its navigation. Links between chapters are rewritten as
//! mdBook rewrites them (`x.md` becomes `x.html`) and made absolute under `/docs/`; the
//! screenshots beside the book (`docs/screenshots/`) are served under `/docs/screenshots/`.
//! Public like the owner's page (no token, no limiter), and nothing is loaded from elsewhere:
//! the policy allows this server's stylesheet and images and no script at all.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use super::error::ApiError;
use super::web::{REVALIDATE, answer, inflate, short_hash};

mod embedded {
    use super::Packed;
    include!(concat!(env!("OUT_DIR"), "/book_files.rs"));
}

/// How `build.rs` embedded a file of the book: text as raw DEFLATE, images as they are.
#[derive(Clone, Copy)]
enum Packed {
    Plain,
    Deflate,
}

/// Where the book is served.
pub const PREFIX: &str = "/docs";

/// This server's stylesheet and images, nothing else: no script, no font, no frame.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLESHEET: &str = include_str!("../../assets/docs/book.css");
const SUMMARY: &str = "src/SUMMARY.md";
const HTML: &str = "text/html; charset=utf-8";

/// Every file of the book as `build.rs` found it, named by its path below `docs/`. A chapter
/// that would not inflate (a test inflates every one) reads as empty rather than stopping the
/// server.
pub fn files() -> Vec<(&'static str, Cow<'static, [u8]>)> {
    embedded::FILES
        .iter()
        .map(|&(name, packed, bytes)| match packed {
            Packed::Plain => (name, Cow::Borrowed(bytes)),
            Packed::Deflate => (name, Cow::Owned(inflate(bytes).unwrap_or_default())),
        })
        .collect()
}

/// The extensions mdBook turns on, so a chapter reads here as it reads in `mdbook build`.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// A heading's id as mdBook makes it (and, for the headings of this book, as GitHub does):
/// lower case, letters, digits, `_` and `-` kept, white space made `-`, the rest dropped.
pub fn heading_id(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// A second heading of the same text gets `-1`, a third `-2`, as in mdBook.
fn unique_id(id: String, used: &mut HashSet<String>) -> String {
    if used.insert(id.clone()) {
        return id;
    }
    let mut n = 1u32;
    loop {
        let candidate = format!("{id}-{n}");
        if used.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
}

/// The text of the heading (or link) whose content starts `events`, up to its end.
fn inline_text(events: &[Event]) -> String {
    let mut text = String::new();
    for event in events {
        match event {
            Event::Text(t) | Event::Code(t) => text.push_str(t),
            Event::End(TagEnd::Heading(_) | TagEnd::Link) => break,
            _ => {}
        }
    }
    text
}

/// The ids of a chapter's headings, in order: what a `#fragment` of a link to it may name.
pub fn heading_ids(markdown: &str) -> Vec<String> {
    let mut used = HashSet::new();
    let events: Vec<Event> = Parser::new_ext(markdown, options()).collect();
    let mut ids = Vec::new();
    for (i, event) in events.iter().enumerate() {
        if let Event::Start(Tag::Heading { id, .. }) = event {
            let id = match id {
                Some(id) => id.to_string(),
                None => heading_id(&inline_text(&events[i + 1..])),
            };
            ids.push(unique_id(id, &mut used));
        }
    }
    ids
}

/// Where every link and image of a markdown text points, as written.
pub fn link_targets(markdown: &str) -> Vec<String> {
    Parser::new_ext(markdown, options())
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

/// `https:`, `mailto:`: a link that leaves the book.
fn has_scheme(dest: &str) -> bool {
    dest.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// Where a link written in `chapter` (a path below `docs/src`) points once served: a chapter's
/// `.md` becomes its `.html` and every path is made absolute under `/docs/`. A link to the same
/// page, an absolute one or one that leaves the book is kept as written, and so is one that
/// climbs out of `docs/` (it is not served, and the served book's test finds it).
pub fn served_link(chapter: &str, dest: &str) -> String {
    if dest.is_empty() || dest.starts_with('#') || dest.starts_with('/') || has_scheme(dest) {
        return dest.to_string();
    }
    let (path, fragment) = match dest.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (dest, None),
    };
    let mut parts: Vec<&str> = std::iter::once("src").chain(chapter.split('/')).collect();
    parts.pop();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return dest.to_string();
                }
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    let below = joined.strip_prefix("src/").unwrap_or(&joined);
    let page = match below.strip_suffix(".md") {
        Some(stem) if joined.starts_with("src/") => format!("{stem}.html"),
        _ => below.to_string(),
    };
    match fragment {
        Some(fragment) => format!("{PREFIX}/{page}#{fragment}"),
        None => format!("{PREFIX}/{page}"),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A chapter as the SUMMARY names it.
struct Chapter {
    /// Its file below `docs/src`.
    file: String,
    title: String,
}

/// The chapters in the SUMMARY's order, and the SUMMARY as the navigation of every page: its
/// own title left out, its part titles as headings of the list.
fn summary(markdown: &str) -> (Vec<Chapter>, String) {
    let events: Vec<Event> = Parser::new_ext(markdown, options()).collect();
    let mut chapters = Vec::new();
    let mut nav = Vec::with_capacity(events.len());
    let mut in_title = false;
    let mut first_heading = true;
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::Start(Tag::Heading { .. }) if first_heading => in_title = true,
            Event::End(TagEnd::Heading(_)) if in_title => {
                in_title = false;
                first_heading = false;
            }
            _ if in_title => {}
            Event::Start(Tag::Heading { .. }) => {
                first_heading = false;
                nav.push(Event::Html(CowStr::Borrowed("<p class=\"part\">")));
            }
            Event::End(TagEnd::Heading(_)) => nav.push(Event::Html(CowStr::Borrowed("</p>\n"))),
            Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
                chapters.push(Chapter { file: dest_url.to_string(), title: inline_text(&events[i + 1..]) });
                nav.push(Event::Start(Tag::Link {
                    link_type: *link_type,
                    dest_url: served_link("SUMMARY.md", dest_url).into(),
                    title: title.clone(),
                    id: id.clone(),
                }));
            }
            other => nav.push(other.clone()),
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, nav.into_iter());
    (chapters, html)
}

/// A chapter's body: every heading with its id, every link where it is served.
fn chapter_html(file: &str, markdown: &str) -> String {
    let mut events: Vec<Event> = Parser::new_ext(markdown, options()).collect();
    let mut used = HashSet::new();
    for i in 0..events.len() {
        let text = match &events[i] {
            Event::Start(Tag::Heading { id: None, .. }) => Some(inline_text(&events[i + 1..])),
            _ => None,
        };
        match &mut events[i] {
            Event::Start(Tag::Heading { id, .. }) => {
                let given = match (id.take(), text) {
                    (Some(own), _) => own.to_string(),
                    (None, Some(text)) => heading_id(&text),
                    (None, None) => String::new(),
                };
                *id = Some(unique_id(given, &mut used).into());
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                *dest_url = served_link(file, dest_url).into();
            }
            _ => {}
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

fn page_url(file: &str) -> String {
    served_link("SUMMARY.md", file)
}

fn page(
    nav: &str,
    chapter: &Chapter,
    body: &str,
    previous: Option<&Chapter>,
    next: Option<&Chapter>,
) -> String {
    let here = format!("href=\"{}\"", page_url(&chapter.file));
    let nav = nav.replacen(&here, &format!("{here} aria-current=\"page\""), 1);
    let step = |label: &str, other: Option<&Chapter>, class: &str| match other {
        Some(c) => {
            format!("<a class=\"{class}\" href=\"{}\">{label}: {}</a>", page_url(&c.file), escape(&c.title))
        }
        None => String::new(),
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} · Arka</title>\n<link rel=\"stylesheet\" href=\"{PREFIX}/book.css\">\n</head>\n\
         <body>\n<a class=\"skip\" href=\"#chapter\">Skip to the chapter</a>\n\
         <nav aria-label=\"Chapters\">\n<p class=\"book\"><a href=\"{PREFIX}/\">Arka</a></p>\n{nav}</nav>\n\
         <main id=\"chapter\">\n{body}<footer>{previous}{next}</footer>\n</main>\n</body>\n</html>\n",
        title = escape(&chapter.title),
        previous = step("Previous", previous, "previous"),
        next = step("Next", next, "next"),
    )
}

struct Served {
    content_type: &'static str,
    body: Vec<u8>,
    etag: String,
}

impl Served {
    fn new(content_type: &'static str, body: Vec<u8>) -> Served {
        let etag = format!("\"{}\"", short_hash(&body));
        Served { content_type, body, etag }
    }
}

/// The book as served: its pages, stylesheet and images by their path below `/docs/`.
struct Book {
    files: HashMap<String, Served>,
    /// The first chapter, also served at `/docs` itself.
    index: String,
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().map(str::to_ascii_lowercase).as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("svg") => "image/svg+xml",
        Some("css") => "text/css; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn build() -> Book {
    let files = files();
    let source: HashMap<&str, &[u8]> = files.iter().map(|(name, bytes)| (*name, bytes.as_ref())).collect();
    let (chapters, nav) = summary(&text(source.get(SUMMARY).copied().unwrap_or_default()));
    let mut served = HashMap::new();
    for (i, chapter) in chapters.iter().enumerate() {
        let markdown =
            text(source.get(format!("src/{}", chapter.file).as_str()).copied().unwrap_or_default());
        let body = chapter_html(&chapter.file, &markdown);
        let previous = i.checked_sub(1).and_then(|p| chapters.get(p));
        let html = page(&nav, chapter, &body, previous, chapters.get(i + 1));
        let key = page_url(&chapter.file).trim_start_matches(PREFIX).trim_start_matches('/').to_string();
        served.insert(key, Served::new(HTML, html.into_bytes()));
    }
    for (name, bytes) in &files {
        let key = name.strip_prefix("src/").unwrap_or(name);
        if !key.ends_with(".md") {
            served.insert(key.to_string(), Served::new(content_type(key), bytes.to_vec()));
        }
    }
    served.insert("book.css".to_string(), Served::new(content_type("book.css"), STYLESHEET.into()));
    let index = chapters
        .first()
        .map(|c| page_url(&c.file).trim_start_matches(PREFIX).trim_start_matches('/').to_string())
        .unwrap_or_default();
    Book { files: served, index }
}

fn book() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(build)
}

/// The book's routes (no token: it is the manual, nothing of a company's).
pub fn routes() -> Router {
    Router::new()
        .route(PREFIX, get(index))
        .route(&format!("{PREFIX}/"), get(index))
        .route(&format!("{PREFIX}/{{*path}}"), get(file))
}

fn serve(headers: &HeaderMap, key: &str) -> Response {
    match book().files.get(key) {
        Some(f) => answer(headers, f.content_type, &f.body, &f.etag, REVALIDATE, CONTENT_SECURITY_POLICY),
        None => ApiError::status(StatusCode::NOT_FOUND, "Not found.").into_response(),
    }
}

async fn index(headers: HeaderMap) -> Response {
    serve(&headers, &book().index)
}

async fn file(headers: HeaderMap, Path(path): Path<String>) -> Response {
    serve(&headers, &path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(name: &str) -> String {
        let (_, bytes) = files().into_iter().find(|(n, _)| *n == name).unwrap();
        text(&bytes)
    }

    #[test]
    fn every_embedded_file_is_the_file_in_docs_byte_for_byte_and_text_is_packed() {
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        for (name, bytes) in files() {
            assert_eq!(bytes.as_ref(), std::fs::read(docs.join(name)).unwrap(), "{name}");
        }
        let (packed, plain) =
            embedded::FILES.iter().fold((0, 0), |(packed, plain), (name, how, bytes)| match how {
                Packed::Deflate => {
                    (packed + bytes.len(), plain + std::fs::read(docs.join(name)).unwrap().len())
                }
                Packed::Plain => (packed, plain),
            });
        assert!(embedded::FILES.iter().any(|(n, how, _)| *n == SUMMARY && matches!(how, Packed::Deflate)));
        assert!(packed * 2 < plain, "the chapters take {packed} bytes packed, {plain} as text");
    }

    #[test]
    fn ids_are_mdbooks() {
        assert_eq!(
            heading_id("Documents in flight: a TCR that does not wait for the CIS"),
            "documents-in-flight-a-tcr-that-does-not-wait-for-the-cis"
        );
        assert_eq!(heading_id("Delivery marketplace (Wolt)"), "delivery-marketplace-wolt");
        assert_eq!(heading_id("  The owner's page "), "the-owners-page");
        assert_eq!(heading_id("Sot / Today"), "sot--today");
        assert_eq!(heading_id("Fletë-shoqërimi"), "fletë-shoqërimi");
        assert_eq!(heading_ids("# A\n\n## A\n\n### `A`\n\n## B {#own}\n"), ["a", "a-1", "a-2", "own"]);
    }

    #[test]
    fn links_are_served_where_mdbook_puts_them() {
        assert_eq!(
            served_link("api/invoices.md", "currencies.md#the-rate"),
            "/docs/api/currencies.html#the-rate"
        );
        assert_eq!(served_link("api/invoices.md", "../cis/cis.md"), "/docs/cis/cis.html");
        assert_eq!(
            served_link("owner-page.md", "../screenshots/today-desktop.png"),
            "/docs/screenshots/today-desktop.png"
        );
        assert_eq!(served_link("api/x.md", "../../screenshots/a.png"), "/docs/screenshots/a.png");
        assert_eq!(served_link("SUMMARY.md", "introduction.md"), "/docs/introduction.html");
        assert_eq!(served_link("api/x.md", "#limits"), "#limits");
        assert_eq!(served_link("api/x.md", "https://example.org/a.md"), "https://example.org/a.md");
        assert_eq!(served_link("api/x.md", "mailto:a@b"), "mailto:a@b");
        // Out of docs/: not served, left for the served book's test to find.
        assert_eq!(served_link("x.md", "../../README.md"), "../../README.md");
    }

    #[test]
    fn every_chapter_file_is_in_the_summary_and_every_summary_entry_is_a_file() {
        let (chapters, _) = summary(&source(SUMMARY));
        let named: HashSet<String> = chapters.iter().map(|c| format!("src/{}", c.file)).collect();
        let on_disk: HashSet<String> = files()
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| n.starts_with("src/") && n.ends_with(".md") && n != SUMMARY)
            .collect();
        assert_eq!(named, on_disk, "SUMMARY.md names every chapter once, and only files of docs/src");
        assert_eq!(chapters.len(), named.len(), "no chapter named twice");
    }

    #[test]
    fn a_page_has_the_navigation_its_headings_ids_and_no_script() {
        let b = book();
        let page = text(&b.files["api/invoices.html"].body);
        assert!(page.contains("<h1 id=\"invoices\">Invoices</h1>"), "{page}");
        assert!(page.contains("id=\"the-non-cash-body\""));
        assert!(page.contains("href=\"/docs/api/invoices.html\" aria-current=\"page\""));
        assert!(page.contains("<p class=\"part\">The API</p>"));
        assert!(!page.contains("Summary</"), "the SUMMARY's own title is not in the navigation");
        assert!(page.contains("<table>"));
        assert!(!page.to_lowercase().contains("<script"));
        assert_eq!(b.index, "introduction.html");
        assert!(b.files.contains_key("screenshots/today-desktop.png"));
        assert_eq!(b.files["screenshots/today-desktop.png"].content_type, "image/png");
    }
}
