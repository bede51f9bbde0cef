//! The HQ's HTTP edge: the shops' sync (`/hq/v1/*`, a shop's token), the owner's reports and
//! invoice list across shops (`/api/v1/*`, an owner's token, the shop's shapes with a `shop`
//! filter), and `/healthz`. HTTPS with the same TLS settings as a shop's server.

pub mod metrics;
pub mod shop_routes;
pub mod throttle;

use std::future::Future;

use axum::Router;
use axum::extract::{DefaultBodyLimit, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use deadpool_postgres::Pool;
use serde::Deserialize;
use serde_json::json;

use super::store::db;
use super::store::filter::Filter;
use super::store::reports;
use arka_core::domain::document::ApiVersion;
use arka_core::domain::validation::FieldErrors;
use arka_core::wire::{
    HEARTBEAT_PATH, NONCASH_PATH, NONCASH_RELEASE_PATH, PRODUCTS_PATH, ROWS_PATH, SYNC_PATH, TAKE_OVER_PATH,
};
use arka_edge::error::{ApiError, ApiResult, ok};
use arka_edge::error_chain;
use arka_edge::extract::{Body, PathId, Query};
use arka_edge::list::ListQuery;
use arka_edge::reports::{ReportParams, ReportRequest, answer_as, read_request};
use arka_edge::serve::serve;
use arka_edge::tls::TlsListener;

/// The largest batch a shop may send (its notes hold whole rows).
pub const MAX_BATCH_BYTES: usize = 64 * 1024 * 1024;

#[derive(Clone)]
pub struct HqState {
    pub pool: Pool,
    pub metrics: std::sync::Arc<metrics::HqMetrics>,
    /// The owner's sign-ins, throttled per name and address.
    pub sign_ins: std::sync::Arc<throttle::SignInThrottle>,
    /// `--metrics`: `GET /metrics` is served.
    pub serve_metrics: bool,
}

impl HqState {
    pub fn new(pool: Pool, serve_metrics: bool) -> HqState {
        HqState { pool, metrics: Default::default(), sign_ins: Default::default(), serve_metrics }
    }
}

/// Logs the cause, answers the spec's message: PostgreSQL away (no connection, or one lost
/// under a statement) is a 503 (`retry_after` adds when to try again), anything else a 500.
pub(super) fn failed(e: super::Error) -> ApiError {
    if e.is_unreachable() {
        tracing::warn!(error = %error_chain(&e), "the HQ's database is not reachable");
        return ApiError::status(
            StatusCode::SERVICE_UNAVAILABLE,
            "The head office's database is not reachable.",
        );
    }
    tracing::error!(error = %error_chain(&e), "the HQ's database failed");
    ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
}

/// How long a caller waits before trying again when the HQ's database is away.
const RETRY_AFTER_SECONDS: &str = "5";

/// Every 503 of the HQ says when to try again.
async fn retry_after(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let mut response = next.run(request).await;
    if response.status() == StatusCode::SERVICE_UNAVAILABLE
        && !response.headers().contains_key(axum::http::header::RETRY_AFTER)
    {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from_static(RETRY_AFTER_SECONDS),
        );
    }
    response
}

pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme == "Bearer" && !token.is_empty()).then_some(token)
}

/// The chain's owner, by name: reads every shop.
pub struct OwnerAuth(pub String);

impl FromRequestParts<HqState> for OwnerAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &HqState) -> Result<Self, Self::Rejection> {
        let token = bearer(&parts.headers).ok_or(ApiError::Unauthenticated)?;
        match db::owner(&state.pool, token).await.map_err(failed)? {
            Some(name) => Ok(OwnerAuth(name)),
            None => Err(ApiError::Unauthenticated),
        }
    }
}

/// The owner sets a product of a business: the shops of that NUIS take it on their next sync.
async fn set_product(
    State(state): State<HqState>,
    _owner: OwnerAuth,
    axum::extract::Path(code): axum::extract::Path<String>,
    Body(body): Body<super::store::catalog::ProductBody>,
) -> ApiResult {
    let mut product = super::store::catalog::read(&code, body).map_err(ApiError::Validation)?;
    let set = super::store::catalog::set(&state.pool, &product).await.map_err(failed)?;
    product.version = set.version;
    let mut view = serde_json::to_value(&product).map_err(|e| failed(super::Error::Read(e.to_string())))?;
    view["taken_over"] = json!(set.taken_over);
    ok(view)
}

/// A report's call at the HQ: the owner, the query as a shop reads it, and `shop` (by its name
/// at the HQ). A branch id is a shop's own: it needs the shop.
struct HqReport {
    filter: Filter,
    request: ReportRequest,
    params: ReportParams,
}

impl FromRequestParts<HqState> for HqReport {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &HqState) -> Result<Self, Self::Rejection> {
        OwnerAuth::from_request_parts(parts, state).await?;
        let Query(params) = Query::<ReportParams>::from_request_parts(parts, state).await?;
        let Query(shop) = Query::<ShopParam>::from_request_parts(parts, state).await?;
        let request = read_request(&params, &parts.headers)?;
        let shop_id = shop_id(state, shop.shop.as_deref()).await?;
        if request.query.branch.is_some() && shop_id.is_none() {
            return Err(ApiError::field("branch", "A branch is one shop's: name the shop too."));
        }
        let filter = Filter {
            period: request.query.period,
            shop_id,
            business_unit_id: request.query.branch,
            tcr_code: request.query.tcr.clone(),
            operator_code: request.query.operator.clone(),
        };
        Ok(HqReport { filter, request, params })
    }
}

/// The HQ's id of the shop named `shop`; none for every shop; 422 for a name not the chain's.
async fn shop_id(state: &HqState, shop: Option<&str>) -> Result<Option<i64>, ApiError> {
    let Some(name) = shop.map(str::trim).filter(|s| !s.is_empty()) else { return Ok(None) };
    let shops = db::shops(&state.pool).await.map_err(failed)?;
    match shops.into_iter().find(|s| s.name == name) {
        Some(shop) => Ok(Some(shop.id)),
        None => Err(ApiError::Validation(FieldErrors::one("shop", "The shop is not one of the chain's."))),
    }
}

#[derive(Debug, Deserialize)]
struct ShopParam {
    shop: Option<String>,
}

async fn sales_summary(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let data = reports::sales_summary(&state.pool, &call.filter).await.map_err(failed)?;
    answer_as(&call.request, "sales-summary", data)
}

/// The VAT report across shops; `documents=true` adds a page of the sales book (`limit`,
/// `offset`), every shop's documents oldest first.
async fn vat(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let book = arka_core::domain::report::flag("documents", call.params.documents())
        .map_err(ApiError::Validation)?;
    let page = book.then_some((call.request.limit, call.request.offset));
    let name = if book { "sales-book" } else { "vat" };
    answer_as(&call.request, name, reports::vat(&state.pool, &call.filter, page).await.map_err(failed)?)
}

async fn daily_trend(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let period = call.filter.period.for_trend().map_err(ApiError::Validation)?;
    let f = Filter { period, ..call.filter.clone() };
    answer_as(&call.request, "daily-trend", reports::daily_trend(&state.pool, &f).await.map_err(failed)?)
}

async fn top_clients(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let data = reports::top_clients(&state.pool, &call.filter, call.request.limit).await.map_err(failed)?;
    answer_as(&call.request, "top-clients", data)
}

async fn top_products(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let data = reports::top_products(&state.pool, &call.filter, call.request.limit).await.map_err(failed)?;
    answer_as(&call.request, "top-products", data)
}

async fn by_operator(State(state): State<HqState>, call: HqReport) -> ApiResult {
    answer_as(
        &call.request,
        "by-operator",
        reports::by_operator(&state.pool, &call.filter).await.map_err(failed)?,
    )
}

async fn by_tcr(State(state): State<HqState>, call: HqReport) -> ApiResult {
    answer_as(&call.request, "by-tcr", reports::by_tcr(&state.pool, &call.filter).await.map_err(failed)?)
}

async fn cash_register(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let data = reports::cash_register(&state.pool, &call.filter).await.map_err(failed)?;
    answer_as(&call.request, "cash-register", data)
}

async fn closing(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let (limit, offset) = (call.request.limit, call.request.offset);
    let data = super::store::days::closing(&state.pool, &call.filter, limit, offset).await.map_err(failed)?;
    answer_as(&call.request, "cash-register-closing", data)
}

/// The closing report's PDF at the HQ, printed by the shop's own code: under one shop's company
/// (its name and NUIS, as the shop prints it), or the chain's.
async fn closing_pdf(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let layout = arka_edge::reports::paper(&call.params)?;
    let (limit, offset) = (call.request.limit, call.request.offset);
    let data = super::store::days::closing(&state.pool, &call.filter, limit, offset).await.map_err(failed)?;
    let company = match call.filter.shop_id {
        Some(shop) => db::company(&state.pool, shop).await.map_err(failed)?,
        None => None,
    };
    let heading = match company {
        Some((name, nuis)) => format!("{name} · NUIS {nuis}"),
        None => "HQ · every shop".to_string(),
    };
    arka_edge::reports::closing_pdf_of(&heading, call.filter.period, &data, layout)
}

/// The notes report: a note is not a sale of a till or an operator, so the sales filters are
/// refused, as at a shop.
async fn wtn(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let mut errors = FieldErrors::new();
    let f = &call.filter;
    for (field, sent) in [
        ("branch", f.business_unit_id.is_some()),
        ("tcr", f.tcr_code.is_some()),
        ("operator", f.operator_code.is_some()),
    ] {
        if sent {
            errors.add(field, format!("The wtn report has no {field} filter."));
        }
    }
    errors.into_result().map_err(ApiError::Validation)?;
    answer_as(&call.request, "wtn", reports::wtn(&state.pool, f).await.map_err(failed)?)
}

async fn reversals(State(state): State<HqState>, call: HqReport) -> ApiResult {
    let (limit, offset) = (call.request.limit, call.request.offset);
    let data = reports::reversals(&state.pool, &call.filter, limit, offset).await.map_err(failed)?;
    answer_as(&call.request, "reversals", data)
}

/// `GET /api/v1/invoice` at the HQ: a shop's list (its query and its items), every shop's
/// documents newest first, each with its `shop`; `query` searches as the shop's list does.
async fn invoices(
    State(state): State<HqState>,
    _owner: OwnerAuth,
    Query(q): Query<ListQuery>,
    Query(shop): Query<ShopParam>,
) -> ApiResult {
    let asked = q.read()?;
    let day = |text: Option<String>| -> Option<chrono::NaiveDate> { text.and_then(|t| t.parse().ok()) };
    // Without dates, every day the documents' text dates can hold.
    let (first, last) =
        (chrono::NaiveDate::from_ymd_opt(1, 1, 1), chrono::NaiveDate::from_ymd_opt(9999, 12, 31));
    let from = day(asked.from_date).or(first).unwrap_or_default();
    let to = day(asked.to_date).or(last).unwrap_or_default();
    let kinds: Vec<String> = q
        .kind
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(|k| k.trim().to_uppercase())
        .filter(|k| matches!(k.as_str(), "CASH" | "NONCASH" | "EINVOICE"))
        .collect();
    let period = arka_core::domain::report::Period { from, to };
    let f = Filter::of(period, shop_id(&state, shop.shop.as_deref()).await?);
    let (limit, offset) = (asked.limit, asked.offset);
    let ask = super::store::invoices::ListAsk { kinds: kinds.clone(), query: asked.search, limit, offset };
    let page = super::store::invoices::page(&state.pool, &f, &ask).await.map_err(failed)?;
    let items = super::store::invoices::list(&state.pool, &page, ApiVersion::V1).await.map_err(failed)?;
    ok(json!({
        "items": items,
        "pagination": {
            "records": items.len(),
            "limit": limit,
            "offset": offset,
            "type": if kinds.is_empty() { serde_json::Value::Null } else { json!(kinds.join(",")) },
            "query": q.query,
        },
    }))
}

#[derive(Debug, Deserialize)]
struct DetailsParams {
    shop: Option<String>,
}

/// `GET /api/v1/invoice/{id}/details` at the HQ: a shop's details and its `shop`. An id is its
/// shop's own: when two shops hold one, `shop` says which (422 naming it until it does).
async fn invoice_details(
    State(state): State<HqState>,
    _owner: OwnerAuth,
    PathId(id): PathId,
    Query(p): Query<DetailsParams>,
) -> ApiResult {
    let shop = shop_id(&state, p.shop.as_deref()).await?;
    let holders = super::store::invoices::holders(&state.pool, id, shop).await.map_err(failed)?;
    let (shop_id, name) = match holders.as_slice() {
        [] => return Err(ApiError::status(StatusCode::NOT_FOUND, "Invoice not found.")),
        [one] => one.clone(),
        _ => return Err(ApiError::field("shop", "Several shops have a document of this id: name the shop.")),
    };
    match super::store::invoices::details(&state.pool, shop_id, &name, id, ApiVersion::V1)
        .await
        .map_err(failed)?
    {
        Some(invoice) => ok(json!({"invoice": invoice})),
        None => Err(ApiError::status(StatusCode::NOT_FOUND, "Invoice not found.")),
    }
}

/// `GET /api/v1/account` at the HQ: who signed in to the owner's page, and that it is a chain's.
async fn account(State(state): State<HqState>, OwnerAuth(owner): OwnerAuth) -> ApiResult {
    let shops = db::shops(&state.pool).await.map_err(failed)?;
    let names: Vec<String> = shops.into_iter().map(|s| s.name).collect();
    ok(json!({"company": "HQ", "chain": true, "user": {"name": owner}, "shops": names}))
}

/// `GET /api/v1/setup` at the HQ: no wizard here, the page signs its owner in as a chain's.
async fn setup() -> ApiResult {
    ok(json!({"chain": true, "claimed": true, "complete": true, "steps": [], "next": null}))
}

#[derive(Debug, Deserialize)]
struct SignIn {
    name: Option<String>,
    token: Option<String>,
}

/// `POST /api/v1/session` at the HQ: the owner's page signs in with the name and token `arka hq
/// owners add` printed, and gets the shape of a shop's signed-in view. The HQ keeps no session:
/// the page sends the token with each call, from its memory. Throttled per name and address:
/// after five wrong tokens each further one waits a growing delay (`throttle`).
async fn sign_in(
    State(state): State<HqState>,
    axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
    Body(body): Body<SignIn>,
) -> ApiResult {
    let name = body.name.as_deref().map(str::trim).unwrap_or_default();
    let token = body.token.as_deref().map(str::trim).unwrap_or_default();
    if name.is_empty() {
        return Err(ApiError::field("name", "The owner's name is required."));
    }
    if token.is_empty() {
        return Err(ApiError::field("token", "The owner's token is required."));
    }
    let now = std::time::Instant::now();
    if let Some(wait) = state.sign_ins.wait(name, peer.ip(), now) {
        return Ok(held_back(wait));
    }
    match db::owner(&state.pool, token).await.map_err(failed)? {
        Some(owner) if owner == name => {
            state.sign_ins.succeeded(name, peer.ip());
            let shops = db::shops(&state.pool).await.map_err(failed)?;
            let names: Vec<String> = shops.into_iter().map(|s| s.name).collect();
            ok(json!({
                "user": {"name": owner, "role": "owner"},
                "company": {"name": "HQ"},
                "owner": true,
                "via": "token",
                "chain": true,
                "shops": names,
            }))
        }
        _ => {
            let delay = state.sign_ins.failed(name, peer.ip(), now);
            tracing::warn!(name, address = %peer.ip(), delay_seconds = delay.as_secs(), "a wrong owner's sign-in at the head office");
            if delay.is_zero() { Err(ApiError::Unauthenticated) } else { Ok(held_back(delay)) }
        }
    }
}

/// A sign-in held back: it reads as a wrong token (as at a shop, the right one too while it
/// lasts), with how long to wait.
fn held_back(wait: std::time::Duration) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    (
        StatusCode::UNAUTHORIZED,
        [(axum::http::header::RETRY_AFTER, seconds.max(1).to_string())],
        axum::Json(json!({"message": "Unauthenticated."})),
    )
        .into_response()
}

/// `GET /metrics` (with `--metrics`): Prometheus text.
async fn metrics(State(state): State<HqState>) -> Response {
    if !state.serve_metrics {
        return ApiError::not_found("Route").into_response();
    }
    match metrics::render(&state.pool, &state.metrics).await {
        Ok(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(e) => failed(e).into_response(),
    }
}

/// `DELETE /api/v1/session` at the HQ: nothing is kept here; the page forgets the token.
async fn sign_out() -> StatusCode {
    StatusCode::NO_CONTENT
}

/// `GET /api/v1/owner/today` at the HQ: the owner's page in chain mode, every shop's day (today
/// in Tirane) side by side.
async fn owner_today(State(state): State<HqState>, _owner: OwnerAuth) -> ApiResult {
    let today = arka_core::domain::cash_register::business_day(chrono::Utc::now());
    let (shops, chain) = super::store::today::chain_today(&state.pool, today).await.map_err(failed)?;
    let held = super::store::held::held(&state.pool, HELD_AFTER_SECONDS, false).await.map_err(failed)?;
    ok(super::store::today::view(today, &shops, &chain, held))
}

/// `GET /hq/v1/shops`: every shop, when it was last heard from, what its heartbeat said, and the
/// boxes refused for it.
/// A reservation younger than this may still be on its way to its document: the owner's page
/// lists the older ones.
const HELD_AFTER_SECONDS: i64 = 60;

#[derive(Debug, Deserialize)]
struct HeldParams {
    older_than: Option<i64>,
    voided: Option<bool>,
}

/// `GET /hq/v1/numbers/held[?older_than=SECONDS][&voided=true]`: the non-cash numbers reserved
/// and not turned into documents, oldest first, with their shop and age.
async fn held_numbers(
    State(state): State<HqState>,
    _owner: OwnerAuth,
    Query(p): Query<HeldParams>,
) -> ApiResult {
    let older_than = p.older_than.unwrap_or(HELD_AFTER_SECONDS);
    if older_than < 0 {
        return Err(ApiError::field("older_than", "The older_than must be seconds from 0."));
    }
    ok(super::store::held::held(&state.pool, older_than, p.voided.unwrap_or(false)).await.map_err(failed)?)
}

async fn shops(State(state): State<HqState>, _owner: OwnerAuth) -> ApiResult {
    ok(super::store::shops::views(&state.pool).await.map_err(failed)?)
}

/// `GET /healthz`: 200 while PostgreSQL answers, 503 when it does not.
async fn healthz(State(state): State<HqState>) -> Response {
    let reachable = match state.pool.get().await {
        Ok(client) => client.query_one("SELECT 1", &[]).await.is_ok(),
        Err(_) => false,
    };
    let status = if reachable { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    let body = json!({
        "status": if reachable { "ok" } else { "unavailable" },
        "version": env!("CARGO_PKG_VERSION"),
        "role": "hq",
        "database": {"reachable": reachable},
    });
    (status, axum::Json(body)).into_response()
}

pub fn router(state: HqState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route(SYNC_PATH, get(shop_routes::acked).post(shop_routes::sync))
        .route(ROWS_PATH, get(shop_routes::rows))
        .route(NONCASH_PATH, axum::routing::post(shop_routes::reserve_noncash))
        .route(PRODUCTS_PATH, get(shop_routes::central_products))
        .route(
            "/hq/v1/products/{code}",
            axum::routing::put(set_product).delete(shop_routes::withdraw_product),
        )
        .route(NONCASH_RELEASE_PATH, axum::routing::post(shop_routes::release_noncash))
        .route(HEARTBEAT_PATH, axum::routing::post(shop_routes::heartbeat))
        .route(TAKE_OVER_PATH, axum::routing::post(shop_routes::take_over))
        .route("/api/v1/reports/sales-summary", get(sales_summary))
        .route("/api/v1/reports/vat", get(vat))
        .route("/api/v1/reports/daily-trend", get(daily_trend))
        .route("/api/v1/reports/top-clients", get(top_clients))
        .route("/api/v1/reports/top-products", get(top_products))
        .route("/api/v1/reports/by-operator", get(by_operator))
        .route("/api/v1/reports/by-tcr", get(by_tcr))
        .route("/api/v1/reports/cash-register", get(cash_register))
        .route("/api/v1/reports/cash-register/closing", get(closing))
        .route("/api/v1/reports/cash-register/closing/pdf", get(closing_pdf))
        .route("/api/v1/reports/reversals", get(reversals))
        .route("/api/v1/reports/wtn", get(wtn))
        .route("/api/v1/invoice", get(invoices))
        .route("/api/v1/invoice/{id}/details", get(invoice_details))
        .route("/hq/v1/shops", get(shops))
        .route("/hq/v1/numbers/held", get(held_numbers))
        .route("/api/v1/account", get(account))
        .route("/api/v1/owner/today", get(owner_today))
        .route("/api/v1/setup", get(setup))
        .route("/api/v1/session", axum::routing::post(sign_in).delete(sign_out))
        .layer(DefaultBodyLimit::max(MAX_BATCH_BYTES))
        .layer(axum::middleware::from_fn_with_state(state.metrics.clone(), metrics::observed))
        .with_state(state)
        // The owner's page, the shop's own files: in chain mode at the HQ.
        .merge(arka_edge::web::routes())
        .layer(axum::middleware::from_fn(retry_after))
}

/// `arka hq serve`: listens (HTTPS unless `--plain-http`, which it says at every start), then
/// `run`s until `shutdown`.
pub async fn start(
    args: &super::HqServeArgs,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let tls = arka_edge::tls::configure(&args.tls(), &args.state_dir).map_err(|e| e.to_string())?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    println!("Arka HQ on {scheme}://{address}");
    match &tls {
        Some(tls) => {
            println!("  TLS certificate:       {}", tls.cert_path.display());
            println!("  SHA-256 fingerprint:   {}", tls.fingerprint);
        }
        None => {
            println!("  PLAIN HTTP (--plain-http): shops' tokens and documents cross the network readable");
            tracing::warn!(
                "the head office serves plain HTTP (--plain-http): use it only on a network of your own"
            );
        }
    }
    tracing::info!(%address, scheme, role = "hq", "arka is listening");
    run(args, listener, tls, shutdown).await
}

/// Opens the pool, migrates, and serves on `listener` until `shutdown`.
pub async fn run(
    args: &super::HqServeArgs,
    listener: tokio::net::TcpListener,
    tls: Option<arka_edge::tls::Tls>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    let pool = db::pool(&args.database.url()?, args.pool).map_err(|e| e.to_string())?;
    db::migrate(&pool).await.map_err(|e| e.to_string())?;
    let app = router(HqState::new(pool, args.metrics));
    let served = match &tls {
        Some(tls) => serve(TlsListener::new(listener, tls), app, shutdown).await,
        None => serve(listener, app, shutdown).await,
    };
    served.map_err(|e| e.to_string())
}
