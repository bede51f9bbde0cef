//! The cost of the permission check (issue 28: under 0.05 ms a request). Two figures, in this
//! process: the table's look-up and decision alone, and a request through a router with and
//! without the check's middleware, in alternating rounds so that the box's noise falls on both
//! alike. Run with `cargo bench --bench permissions`; it prints, it asserts nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arka::api::auth::Identity;
use arka::api::permissions;
use arka::domain::role::Role;
use arka::store::accounts::{Caller, Company, User};
use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request};
use axum::middleware::from_fn;
use axum::routing::post;
use tower::ServiceExt;

const PATH: &str = "/api/v1/invoice/cash";

fn cashier() -> Identity {
    let company = Company {
        id: 1,
        nuis: "L41323036D".into(),
        name: "Dyqani".into(),
        address: None,
        city: None,
        issuer_in_vat: true,
        is_sandbox: false,
    };
    let user = User {
        id: 7,
        company_id: 1,
        business_unit_id: Some(1),
        name: "Blerim".into(),
        email: "blerim@dyqani.al".into(),
        operator_code: Some("op123op123".into()),
        tcr_code: Some("tc123tc123".into()),
        role: Role::Cashier,
    };
    Identity::User(Arc::new(Caller { user, company, unit: None, request_id: None, session: false }))
}

/// Nanoseconds per call of `decide` for `path`, over `n` calls.
fn decide_ns(method: &Method, path: &str, identity: &Identity, n: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        let _ = black_box(permissions::decide(black_box(method), black_box(path), Some(black_box(identity))));
    }
    start.elapsed().as_nanos() as f64 / f64::from(n)
}

fn router(checked: bool) -> Router {
    let routes = Router::new().route(PATH, post(|| async { "ok" }));
    if checked { routes.route_layer(from_fn(permissions::check)) } else { routes }
}

/// Microseconds per request through `app`, over `n` requests, each carrying the caller as
/// `auth::identify` leaves it.
async fn request_us(app: &Router, identity: &Identity, n: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        let mut request = Request::builder().method(Method::POST).uri(PATH).body(Body::empty()).unwrap();
        request.extensions_mut().insert(identity.clone());
        let response = app.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200);
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let identity = cashier();
    let manager_only = "/api/v1/reports/sales-summary";
    for _ in 0..2 {
        decide_ns(&Method::POST, PATH, &identity, 100_000);
    }
    let allowed = median((0..9).map(|_| decide_ns(&Method::POST, PATH, &identity, 1_000_000)).collect());
    let refused = median((0..9).map(|_| decide_ns(&Method::GET, manager_only, &identity, 200_000)).collect());
    println!("permission table, look-up and decision alone (median of 9 rounds):");
    println!("  allowed (a cashier's cash sale):          {allowed:8.1} ns");
    println!("  refused (a cashier's sales summary, 403): {refused:8.1} ns  (builds the refusal's message)");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (plain, checked) = (router(false), router(true));
    let rounds = 21;
    let per_round = 20_000;
    let (mut without, mut with, mut added) = (Vec::new(), Vec::new(), Vec::new());
    runtime.block_on(async {
        request_us(&plain, &identity, per_round).await;
        request_us(&checked, &identity, per_round).await;
        for round in 0..rounds {
            // Alternate which goes first, so that neither always meets a warmer cache.
            let (a, b) = if round % 2 == 0 {
                let a = request_us(&plain, &identity, per_round).await;
                (a, request_us(&checked, &identity, per_round).await)
            } else {
                let b = request_us(&checked, &identity, per_round).await;
                (request_us(&plain, &identity, per_round).await, b)
            };
            without.push(a);
            with.push(b);
            added.push(b - a);
        }
    });
    let goal = Duration::from_micros(50);
    println!(
        "a request through a router, {rounds} alternating rounds of {per_round} (median; in-process, no socket):"
    );
    println!("  without the check: {:6.2} µs", median(without));
    println!("  with the check:    {:6.2} µs", median(with));
    println!("  the check adds:    {:6.2} µs a request (goal: under {} µs)", median(added), goal.as_micros());
}
