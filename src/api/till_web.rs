//! The till: the files of `assets/till/` and the few of `assets/web/` it shares with the owner's
//! page, served on the API's own port as the owner's page is
//! (`web.rs`: embedded packed, `/till/` revalidated, its files immutable under
//! `/till/<version>/`, the same Content-Security-Policy). The till is a client of the API and
//! nothing more: it signs in, sells and prints through the routes any POS app calls.

use std::sync::OnceLock;

use axum::Router;
use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::{Redirect, Response};
use axum::routing::get;

use arka_edge::asset;
use arka_edge::web::{Asset, Bundle};

/// Every file of `assets/till/` but index.html (a test checks that none is left out), then the
/// owner's page's files the till shares (`SHARED`), served beside the till's own under its
/// version: one amount reader, one table of the server's messages in words, one element builder.
pub const ASSETS: &[Asset] = &[
    asset!("till", "till.css", "text/css; charset=utf-8"),
    asset!("till", "main.js", "text/javascript; charset=utf-8"),
    asset!("till", "api.js", "text/javascript; charset=utf-8"),
    asset!("till", "words.js", "text/javascript; charset=utf-8"),
    asset!("till", "sale.js", "text/javascript; charset=utf-8"),
    asset!("till", "pay.js", "text/javascript; charset=utf-8"),
    asset!("till", "day.js", "text/javascript; charset=utf-8"),
    asset!("till", "tables.js", "text/javascript; charset=utf-8"),
    asset!("web", "amount.js", "text/javascript; charset=utf-8"),
    asset!("web", "ask.js", "text/javascript; charset=utf-8"),
    asset!("web", "dom.js", "text/javascript; charset=utf-8"),
    asset!("web", "messages.js", "text/javascript; charset=utf-8"),
];

/// The files of `assets/web/` among `ASSETS`.
pub const SHARED: &[&str] = &["amount.js", "ask.js", "dom.js", "messages.js"];

pub const INDEX_HTML: &str = include_str!("../../assets/till/index.html");

fn bundle() -> &'static Bundle {
    static BUNDLE: OnceLock<Bundle> = OnceLock::new();
    BUNDLE.get_or_init(|| Bundle::of(ASSETS, INDEX_HTML))
}

/// The till's routes (no token: the till signs in with the API afterwards).
pub fn routes() -> Router {
    Router::new()
        .route("/till", get(|| async { Redirect::permanent("/till/") }))
        .route("/till/", get(index))
        .route("/till/{version}/{name}", get(file))
}

async fn index(headers: HeaderMap) -> Response {
    bundle().page(&headers)
}

async fn file(headers: HeaderMap, Path((version, name)): Path<(String, String)>) -> Response {
    bundle().file(ASSETS, &headers, &version, &name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arka_edge::web::outside_references;

    fn text(bytes: &[u8]) -> &str {
        std::str::from_utf8(bytes).unwrap()
    }

    #[test]
    fn every_file_of_assets_till_is_embedded_with_the_shared_ones_and_names_nothing_outside_the_box() {
        let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let mut on_disk: Vec<String> = std::fs::read_dir(assets.join("till"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "index.html")
            .collect();
        on_disk.sort();
        let mut own: Vec<String> =
            ASSETS.iter().map(|a| a.name.to_string()).filter(|n| !SHARED.contains(&n.as_str())).collect();
        own.sort();
        assert_eq!(own, on_disk);
        assert!(SHARED.iter().all(|s| ASSETS.iter().any(|a| a.name == *s)));
        let b = bundle();
        assert_eq!(outside_references(&b.index), Vec::<String>::new(), "index.html");
        for (a, bytes) in ASSETS.iter().zip(&b.files) {
            let dir = if SHARED.contains(&a.name) { "web" } else { "till" };
            let file = std::fs::read(assets.join(dir).join(a.name)).unwrap();
            assert!(bytes == &file, "{dir}/{} is embedded as it is", a.name);
            assert_eq!(outside_references(text(bytes)), Vec::<String>::new(), "{}", a.name);
        }
        assert!(
            !b.index.contains("{{version}}") && b.index.contains(&format!("/till/{}/main.js", b.version))
        );
    }
}
