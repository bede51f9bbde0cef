//! The shop owner's page: the files of `assets/web/`, embedded in the binary at build time and
//! served on the API's own port. `/` is the page (never cached without asking: `no-cache` with
//! an ETag); its scripts and styles live under `/web/<version>/`, where the version is a hash of
//! every file, so they are cached for a year as immutable and a new binary changes their URLs.
//! Every answer carries a Content-Security-Policy that lets the page load and call nothing but
//! this server.

use std::sync::OnceLock;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::secrets::hex_lower;

/// Nothing from outside the box: scripts, styles and calls from this server only; PDFs shown in
/// a frame from `blob:` URLs the page made itself; no plugins, no forms posting elsewhere, no
/// framing by other pages.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data: blob:; connect-src 'self'; frame-src blob:; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// Where the page's files are served, before the version.
pub const ASSET_PREFIX: &str = "/web/";

/// The mark in index.html that becomes the version.
const VERSION_MARK: &str = "{{version}}";

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
pub const REVALIDATE: &str = "no-cache";

/// A file of `assets/web/`, embedded as raw DEFLATE by `build.rs` (the binary's size, issue 34)
/// and inflated once, with the page's other files, when the page is first served.
pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    packed: &'static [u8],
}

impl Asset {
    /// The file as it is in `assets/web/`.
    pub fn bytes(&self) -> &'static [u8] {
        let b = bundle();
        ASSETS.iter().position(|a| a.name == self.name).map_or(&[], |i| b.files[i].as_slice())
    }
}

/// A file packed by the calling crate's `build.rs` into its `OUT_DIR`, under `dir` (`web`, the
/// till's `till`).
#[macro_export]
macro_rules! asset {
    ($name:literal, $content_type:literal) => {
        $crate::asset!("web", $name, $content_type)
    };
    ($dir:literal, $name:literal, $content_type:literal) => {
        $crate::web::Asset::packed(
            $name,
            $content_type,
            include_bytes!(concat!(env!("OUT_DIR"), "/", $dir, "/", $name, ".deflate")),
        )
    };
}

impl Asset {
    pub const fn packed(name: &'static str, content_type: &'static str, packed: &'static [u8]) -> Asset {
        Asset { name, content_type, packed }
    }
}

/// Every file of `assets/web/` but index.html (a test checks that none is left out).
pub const ASSETS: &[Asset] = &[
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("app.js", "text/javascript; charset=utf-8"),
    asset!("api.js", "text/javascript; charset=utf-8"),
    asset!("form.js", "text/javascript; charset=utf-8"),
    asset!("signin.js", "text/javascript; charset=utf-8"),
    asset!("setup.js", "text/javascript; charset=utf-8"),
    asset!("products.js", "text/javascript; charset=utf-8"),
    asset!("admin.js", "text/javascript; charset=utf-8"),
    asset!("i18n.js", "text/javascript; charset=utf-8"),
    asset!("format.js", "text/javascript; charset=utf-8"),
    asset!("today.js", "text/javascript; charset=utf-8"),
    asset!("cis.js", "text/javascript; charset=utf-8"),
    asset!("invoices.js", "text/javascript; charset=utf-8"),
    asset!("reports.js", "text/javascript; charset=utf-8"),
    asset!("chart.js", "text/javascript; charset=utf-8"),
    asset!("audit.js", "text/javascript; charset=utf-8"),
    asset!("amount.js", "text/javascript; charset=utf-8"),
    asset!("ask.js", "text/javascript; charset=utf-8"),
    asset!("dom.js", "text/javascript; charset=utf-8"),
    asset!("messages.js", "text/javascript; charset=utf-8"),
    asset!("profile.js", "text/javascript; charset=utf-8"),
];

pub const INDEX_HTML: &str = include_str!("../../assets/web/index.html");

/// The served forms of a page's files, computed once.
pub struct Bundle {
    pub files: Vec<Vec<u8>>,
    /// Each file as gzip, what a browser downloads: the packed DEFLATE stream as it is, in
    /// gzip's frame (no second compression at start).
    gzipped: Vec<Vec<u8>>,
    pub version: String,
    pub index: String,
    index_etag: String,
    etags: Vec<String>,
}

/// What `build.rs` packed as raw DEFLATE (the book's chapters, the OpenAPI document), as it was.
pub fn inflate(packed: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(packed.len() * 5);
    std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(packed), &mut bytes)?;
    Ok(bytes)
}

/// `packed` (raw DEFLATE of `bytes`) framed as gzip (RFC 1952): a header with no name and no
/// time, the stream, then the CRC-32 and length of `bytes`.
fn gzip_frame(packed: &[u8], bytes: &[u8]) -> Vec<u8> {
    let mut crc = flate2::Crc::new();
    crc.update(bytes);
    let mut framed = Vec::with_capacity(packed.len() + 18);
    framed.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    framed.extend_from_slice(packed);
    framed.extend_from_slice(&crc.sum().to_le_bytes());
    framed.extend_from_slice(&crc.amount().to_le_bytes());
    framed
}

/// Whether the request's `Accept-Encoding` takes gzip (a `q=0` refuses it).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).any(|v| {
        v.split(',').any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts
                .any(|p| p.strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()).is_some_and(|q| q <= 0.0));
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
    })
}

pub fn short_hash(bytes: &[u8]) -> String {
    let mut hex = hex_lower(&openssl::sha::sha256(bytes));
    hex.truncate(16);
    hex
}

impl Bundle {
    /// `assets` inflated, their version (a hash of every file and the page) and the page
    /// `index_html` with the version filled in.
    pub fn of(assets: &[Asset], index_html: &str) -> Bundle {
        let mut all = openssl::sha::Sha256::new();
        let files: Vec<Vec<u8>> = assets.iter().map(|a| inflate(a.packed).unwrap_or_default()).collect();
        let gzipped = assets.iter().zip(&files).map(|(a, bytes)| gzip_frame(a.packed, bytes)).collect();
        let mut etags = Vec::with_capacity(assets.len());
        for (a, bytes) in assets.iter().zip(&files) {
            all.update(a.name.as_bytes());
            all.update(bytes);
            etags.push(format!("\"{}\"", short_hash(bytes)));
        }
        all.update(index_html.as_bytes());
        let mut version = hex_lower(&all.finish());
        version.truncate(16);
        let index = index_html.replace(VERSION_MARK, &version);
        let index_etag = format!("\"{}\"", short_hash(index.as_bytes()));
        Bundle { files, gzipped, version, index, index_etag, etags }
    }

    /// The page, `no-cache` with its ETag.
    pub fn page(&'static self, headers: &HeaderMap) -> Response {
        let policy = CONTENT_SECURITY_POLICY;
        answer(
            headers,
            "text/html; charset=utf-8",
            self.index.as_bytes(),
            &self.index_etag,
            REVALIDATE,
            policy,
        )
    }

    /// A file of the current version is immutable; one asked for under another version (a page
    /// loaded before an upgrade) is served as it is now, to be revalidated.
    pub fn file(&'static self, assets: &[Asset], headers: &HeaderMap, version: &str, name: &str) -> Response {
        match assets.iter().position(|a| a.name == name) {
            Some(i) => {
                let cache = if version == self.version { IMMUTABLE } else { REVALIDATE };
                let a = &assets[i];
                if !accepts_gzip(headers) {
                    let mut response = answer(
                        headers,
                        a.content_type,
                        &self.files[i],
                        &self.etags[i],
                        cache,
                        CONTENT_SECURITY_POLICY,
                    );
                    response.headers_mut().insert(header::VARY, HeaderValue::from_static("accept-encoding"));
                    return response;
                }
                // Another representation, so another strong ETag (RFC 9110, 8.8.3).
                let etag = format!("{}-gzip\"", self.etags[i].trim_end_matches('"'));
                let mut response =
                    answer(headers, a.content_type, &self.gzipped[i], &etag, cache, CONTENT_SECURITY_POLICY);
                let h = response.headers_mut();
                h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
                if response.status() == StatusCode::OK {
                    response.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                }
                response
            }
            None => crate::error::ApiError::status(StatusCode::NOT_FOUND, "Not found.").into_response(),
        }
    }
}

fn bundle() -> &'static Bundle {
    static BUNDLE: OnceLock<Bundle> = OnceLock::new();
    BUNDLE.get_or_init(|| Bundle::of(ASSETS, INDEX_HTML))
}

/// The version the page's files are served under now.
pub fn version() -> &'static str {
    &bundle().version
}

/// The page as served, its version filled in.
pub fn index_html() -> &'static str {
    &bundle().index
}

/// The page's routes (no token: the page signs in with the API afterwards).
pub fn routes() -> Router {
    Router::new().route("/", get(index)).route("/web/{version}/{name}", get(file))
}

fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == etag || tag.trim() == "*"))
}

/// An embedded file as served: its type, caching, ETag (a 304 when the browser has it) and the
/// headers that keep a page from loading anything the `policy` does not allow.
pub fn answer(
    headers: &HeaderMap,
    content_type: &'static str,
    body: &'static [u8],
    etag: &str,
    cache: &'static str,
    policy: &'static str,
) -> Response {
    let status = if not_modified(headers, etag) { StatusCode::NOT_MODIFIED } else { StatusCode::OK };
    let mut response = if status == StatusCode::OK { body.into_response() } else { status.into_response() };
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Ok(etag) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, etag);
    }
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

async fn index(headers: HeaderMap) -> Response {
    bundle().page(&headers)
}

async fn file(headers: HeaderMap, Path((version, name)): Path<(String, String)>) -> Response {
    bundle().file(ASSETS, &headers, &version, &name)
}

/// Any way a file could reach outside the box: an absolute or protocol-relative URL, a CSS
/// import, a font face. Every page's tests run it over every file the page embeds (the owner's
/// page's here, the till's in the shop).
pub fn outside_references(source: &str) -> Vec<String> {
    let lower = source.to_lowercase();
    let mut found = Vec::new();
    for scheme in ["http:", "https:", "ws:", "wss:", "ftp:"] {
        // A scheme starts a word: "rows:" is not "ws:".
        let starts_a_word = |(at, _): &(usize, &str)| {
            !lower[..*at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_')
        };
        if lower.match_indices(scheme).any(|m| starts_a_word(&m)) {
            found.push(scheme.to_string());
        }
    }
    for needle in ["\"//", "'//", "(//", "`//", "@import", "@font-face"] {
        if lower.contains(needle) {
            found.push(needle.to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8]) -> &str {
        std::str::from_utf8(bytes).unwrap()
    }

    #[test]
    fn every_file_as_gzip_is_the_file() {
        let b = bundle();
        for (i, a) in ASSETS.iter().enumerate() {
            let mut back = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(b.gzipped[i].as_slice()), &mut back)
                .unwrap();
            assert_eq!(back, a.bytes(), "{}", a.name);
            assert!(b.gzipped[i].len() < a.bytes().len(), "{} is smaller as gzip", a.name);
        }
    }

    #[test]
    fn gzip_is_sent_to_whoever_takes_it() {
        let cases: [(&[&str], bool); 8] = [
            (&[], false),
            (&["gzip"], true),
            (&["gzip, deflate, br, zstd"], true),
            (&["br", "GZip"], true),
            (&["*"], true),
            (&["gzip;q=0"], false),
            (&["gzip; q=0.5"], true),
            (&["identity"], false),
        ];
        for (values, takes) in cases {
            let mut headers = HeaderMap::new();
            for v in values {
                headers.append(header::ACCEPT_ENCODING, HeaderValue::from_static(v));
            }
            assert_eq!(accepts_gzip(&headers), takes, "{values:?}");
        }
    }

    #[test]
    fn every_file_of_assets_web_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/web");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "index.html")
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = ASSETS.iter().map(|a| a.name.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
    }

    #[test]
    fn every_asset_is_its_file_in_assets_web_byte_for_byte_and_packed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/web");
        for a in ASSETS {
            let file = std::fs::read(dir.join(a.name)).unwrap();
            assert_eq!(a.bytes(), file.as_slice(), "{}", a.name);
            assert!(a.packed.len() < file.len(), "{} is embedded packed", a.name);
        }
    }

    #[test]
    fn content_types_follow_the_file_kind() {
        for a in ASSETS {
            let expected = match a.name.rsplit('.').next() {
                Some("js") => "text/javascript; charset=utf-8",
                Some("css") => "text/css; charset=utf-8",
                other => panic!("no content type decided for {other:?}"),
            };
            assert_eq!(a.content_type, expected, "{}", a.name);
        }
    }

    #[test]
    fn no_asset_names_anything_outside_the_box() {
        assert_eq!(outside_references(INDEX_HTML), Vec::<String>::new(), "index.html");
        for a in ASSETS {
            assert_eq!(outside_references(text(a.bytes())), Vec::<String>::new(), "{}", a.name);
        }
        // The check itself finds what it looks for.
        assert_eq!(outside_references("<script src=\"https://cdn.example/x.js\">"), ["https:"]);
        assert_eq!(outside_references("url(//fonts.example/a.woff)"), ["(//"]);
        assert_eq!(outside_references("new WebSocket('wss://x')"), ["wss:"]);
        assert_eq!(outside_references("const rows: 1"), Vec::<String>::new());
    }

    #[test]
    fn the_page_has_no_inline_script_or_style_and_loads_its_files_from_the_version() {
        let page = index_html();
        assert!(!page.contains(VERSION_MARK));
        assert!(!page.contains(" style="), "inline style attributes are refused by the CSP");
        assert!(!page.contains("<style"), "inline styles are refused by the CSP");
        for script in page.split("<script").skip(1) {
            let tag = script.split('>').next().unwrap();
            assert!(tag.contains("src="), "an inline script is refused by the CSP: <script{tag}>");
            assert!(tag.contains(&format!("{ASSET_PREFIX}{}/", version())), "<script{tag}>");
        }
        assert!(page.contains(&format!("{ASSET_PREFIX}{}/style.css", version())));
    }

    #[test]
    fn the_version_is_a_hash_of_the_files() {
        assert_eq!(version().len(), 16);
        assert!(version().bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(bundle().etags.len(), ASSETS.len());
        assert_eq!(short_hash(b"abc"), "ba7816bf8f01cfea");
    }

    #[test]
    fn an_if_none_match_with_the_etag_or_a_star_is_not_modified() {
        let mut headers = HeaderMap::new();
        assert!(!not_modified(&headers, "\"a\""));
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"b\", \"a\""));
        assert!(not_modified(&headers, "\"a\""));
        assert!(!not_modified(&headers, "\"c\""));
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_static("*"));
        assert!(not_modified(&headers, "\"c\""));
    }
}
