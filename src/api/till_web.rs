//! The till: the files of `assets/till/`, served on the API's own port as the owner's page is
//! (`web.rs`: embedded packed, `/till/` revalidated, its files immutable under
//! `/till/<version>/`, the same Content-Security-Policy). The till is a client of the API and
//! nothing more: it signs in, sells and prints through the routes any POS app calls.

use std::sync::OnceLock;

use axum::Router;
use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::{Redirect, Response};
use axum::routing::get;

use super::web::{Asset, Bundle, asset};

/// Every file of `assets/till/` but index.html (a test checks that none is left out).
pub const ASSETS: &[Asset] = &[
    asset!("till", "till.css", "text/css; charset=utf-8"),
    asset!("till", "main.js", "text/javascript; charset=utf-8"),
    asset!("till", "api.js", "text/javascript; charset=utf-8"),
    asset!("till", "words.js", "text/javascript; charset=utf-8"),
    asset!("till", "sale.js", "text/javascript; charset=utf-8"),
    asset!("till", "pay.js", "text/javascript; charset=utf-8"),
    asset!("till", "day.js", "text/javascript; charset=utf-8"),
    asset!("till", "tables.js", "text/javascript; charset=utf-8"),
];

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
    use super::super::web::tests::{outside_references, text};
    use super::*;

    #[test]
    fn every_file_of_assets_till_is_embedded_and_names_nothing_outside_the_box() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/till");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "index.html")
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = ASSETS.iter().map(|a| a.name.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
        let b = bundle();
        assert_eq!(outside_references(&b.index), Vec::<String>::new(), "index.html");
        for (a, bytes) in ASSETS.iter().zip(&b.files) {
            assert!(bytes == &std::fs::read(dir.join(a.name)).unwrap(), "{} is embedded as it is", a.name);
            assert_eq!(outside_references(text(bytes)), Vec::<String>::new(), "{}", a.name);
        }
        assert!(
            !b.index.contains("{{version}}") && b.index.contains(&format!("/till/{}/main.js", b.version))
        );
    }
}
