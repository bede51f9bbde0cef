//! The rate sources' pages (the reconstructed ones in tests/fixtures/rates/) served on loopback,
//! so that no test reaches the internet. A page can be replaced, and the site taken down.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arka::config::ServeArgs;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use super::stub::Stub;

pub const SOURCES: [&str; 4] = ["boa", "bkt", "iliria98", "adon"];

#[derive(Default)]
struct Site {
    pages: Mutex<HashMap<String, String>>,
    down: AtomicBool,
    hits: AtomicUsize,
}

pub struct RatePages {
    site: Arc<Site>,
    stub: Stub,
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/rates/{name}.html", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
}

async fn page(State(site): State<Arc<Site>>, Path(name): Path<String>) -> axum::response::Response {
    site.hits.fetch_add(1, Ordering::SeqCst);
    if site.down.load(Ordering::SeqCst) {
        return (StatusCode::SERVICE_UNAVAILABLE, "<h1>Service Unavailable</h1>").into_response();
    }
    match site.pages.lock().unwrap().get(&name) {
        Some(html) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html.clone()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

impl RatePages {
    /// Every source's saved page, up.
    pub fn start() -> RatePages {
        let site = Arc::new(Site::default());
        for name in SOURCES {
            site.pages.lock().unwrap().insert(name.to_string(), fixture(name));
        }
        let router = axum::Router::new().route("/{name}", get(page)).with_state(site.clone());
        RatePages { site, stub: Stub::start(router) }
    }

    /// Points a server's sources at these pages.
    pub fn configure(&self, args: &mut ServeArgs) {
        args.rates.rates_boa_url = self.stub.url("/boa");
        args.rates.rates_bkt_url = self.stub.url("/bkt");
        args.rates.rates_iliria98_url = self.stub.url("/iliria98");
        args.rates.rates_adon_url = self.stub.url("/adon");
    }

    /// The site answers 503 while down.
    pub fn set_down(&self, down: bool) {
        self.site.down.store(down, Ordering::SeqCst);
    }

    /// Replaces a source's page (`boa`, `bkt`, `iliria98`, `adon`).
    pub fn set_page(&self, name: &str, html: &str) {
        self.site.pages.lock().unwrap().insert(name.to_string(), html.to_string());
    }

    /// The saved page of a source, for a test to edit.
    pub fn saved(name: &str) -> String {
        fixture(name)
    }

    /// How many times any page was asked for.
    pub fn hits(&self) -> usize {
        self.site.hits.load(Ordering::SeqCst)
    }
}
