//! The HTTP edge: router, authentication, limits, envelopes. One file per group of the spec.

pub mod ai;
pub mod auth;
mod callers;
mod cash_register;
mod clients;
mod currencies;
pub mod docs;
mod einvoice;
pub mod error;
pub mod extract;
mod fields;
mod invoices;
pub mod limits;
pub mod marketplace;
mod misc;
mod onboarding;
pub mod ops;
pub(crate) mod owner;
mod products;
mod purchase;
pub mod reports;
mod stock;
mod tracing_layers;
mod unread_body;
pub mod web;
mod wtn;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state, map_response};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::serve::{Listener, ListenerExt};
use tower_http::catch_panic::CatchPanicLayer;

use self::error::ApiError;
use self::limits::{Group, Limiters};
use crate::services::Services;

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub services: Services,
    pub limiters: Arc<Limiters>,
    pub marketplace: crate::services::marketplace::Marketplace,
    /// The callers of tokens seen lately (`callers`).
    pub callers: Arc<callers::Callers>,
}

/// Installs a group budget on every route of `routes`.
fn in_group(state: &AppState, group: Group, routes: Router<AppState>) -> Router<AppState> {
    routes.route_layer(from_fn_with_state((state.clone(), group), auth::budget))
}

/// What the router serves beside the spec's API.
#[derive(Debug, Clone, Copy, Default)]
pub struct RouterOptions {
    pub max_body_bytes: usize,
    /// `--metrics`: serve GET /metrics.
    pub metrics: bool,
}

pub fn router(state: AppState, options: RouterOptions) -> Router {
    // Outside authentication and limits: monitors and systemd call these without a token.
    let mut ops_routes = Router::new().route("/healthz", get(ops::healthz));
    if options.metrics {
        ops_routes = ops_routes.route("/metrics", get(ops::metrics));
    }
    let ops_routes = ops_routes.with_state(ops::Ops::new(state.services.clone()));
    // The owner's page is static and public (it signs in through the API), so no limiter counts it;
    // nor the book at /docs, the manual a technician reads in the shop.
    let app = api_router(state, options.max_body_bytes)
        .merge(ops_routes)
        .merge(web::routes())
        .merge(docs::routes())
        .layer(from_fn(unread_body::drain));
    tracing_layers::layered(app)
}

fn api_router(state: AppState, max_body_bytes: usize) -> Router {
    let registration = Router::new()
        .route("/api/v1/register", post(onboarding::register))
        .route("/api/v1/on-boarding/certificate", post(onboarding::certificate))
        .route("/api/v1/on-boarding/branch", post(onboarding::create_branch))
        .route("/api/v1/on-boarding/branch/{id}", post(onboarding::update_branch))
        .route("/api/v1/on-boarding/user", post(onboarding::create_user))
        .route("/api/v1/on-boarding/user/{id}", post(onboarding::update_user))
        .route("/api/v1/on-boarding/bank-account", post(onboarding::create_bank_account))
        .route("/api/v1/on-boarding/fiscal-device", post(onboarding::fiscal_device));

    let fiscal = Router::new()
        .route("/api/v1/invoice/cash", post(invoices::cash::<1>))
        .route("/api/v2/invoice/cash", post(invoices::cash::<2>))
        .route("/api/v1/invoice/noncash", post(invoices::noncash::<1>))
        .route("/api/v2/invoice/noncash", post(invoices::noncash::<2>))
        .route("/api/v1/invoice/order", post(invoices::order::<1>))
        .route("/api/v2/invoice/order", post(invoices::order::<2>))
        .route("/api/v1/invoice/summary", post(invoices::summary::<1>))
        .route("/api/v2/invoice/summary", post(invoices::summary::<2>));

    // Cancellations count in the fiscal budget and in their own limit.
    let cancellations = Router::new()
        .route("/api/v1/invoice/cancel/{id}", post(invoices::cancel::<1>))
        .route("/api/v2/invoice/cancel/{id}", post(invoices::cancel::<2>))
        .route(
            "/api/v1/invoice/cancel-by-internal-id/{internal_id}",
            post(invoices::cancel_by_internal_id::<1>),
        )
        .route(
            "/api/v2/invoice/cancel-by-internal-id/{internal_id}",
            post(invoices::cancel_by_internal_id::<2>),
        );

    let bulk = Router::new()
        .route("/api/v1/invoice/bulk-noncash", post(invoices::bulk_noncash::<1>))
        .route("/api/v2/invoice/bulk-noncash", post(invoices::bulk_noncash::<2>));

    let einvoices = Router::new()
        .route("/api/v1/invoice/e-invoice", post(einvoice::issue_v1))
        .route("/api/v2/invoice/e-invoice", post(einvoice::issue_v2))
        .route("/api/v1/purchase-invoices", get(purchase::list))
        .route("/api/v1/purchase-invoices/{eic}/status", post(purchase::change_status));
    let einvoice_prints = Router::new()
        .route("/api/v1/invoice/print-eic/{eic}", get(einvoice::print_eic))
        .route("/api/v2/invoice/print-eic/{eic}", get(einvoice::print_eic));

    let invoice_reads = Router::new()
        .route("/api/v1/invoice", get(invoices::list::<1>))
        .route("/api/v2/invoice", get(invoices::list::<2>))
        .route("/api/v1/invoice/{id}/details", get(invoices::details::<1>))
        .route("/api/v2/invoice/{id}/details", get(invoices::details::<2>))
        .route("/api/v1/invoice/details/{internal_id}", post(invoices::by_internal_id::<1>))
        .route("/api/v2/invoice/details/{internal_id}", post(invoices::by_internal_id::<2>));

    let print = Router::new()
        .route("/api/v1/invoice/print/{id}", get(invoices::print))
        .route("/api/v2/invoice/print/{id}", get(invoices::print));

    let cash_register = Router::new()
        .route("/api/v1/cash-register/open-balance", post(cash_register::open_balance))
        .route("/api/v1/cash-register/close-balance", post(cash_register::close_balance))
        .route("/api/v1/cash-register/deposit", post(cash_register::deposit))
        .route("/api/v1/cash-register/withdraw", post(cash_register::withdraw))
        .route("/api/v1/cash-register/actions", get(cash_register::actions))
        .route("/api/v1/cash-register/balance", get(cash_register::balance))
        .route("/api/v2/cash-register/balance", get(cash_register::balance));

    // The owner's page: what no route of the spec gives (docs "The owner's page").
    let owner_reads = Router::new()
        .route("/api/v1/owner/today", get(owner::today))
        .route("/api/v1/owner/queue", get(owner::queue));
    let reports = Router::new()
        .route("/api/v1/reports/sales-summary", get(reports::sales_summary))
        .route("/api/v1/reports/vat", get(reports::vat))
        .route("/api/v1/reports/daily-trend", get(reports::daily_trend))
        .route("/api/v1/reports/top-clients", get(reports::top_clients))
        .route("/api/v1/reports/top-products", get(reports::top_products))
        .route("/api/v1/reports/by-operator", get(reports::by_operator))
        .route("/api/v1/reports/by-tcr", get(reports::by_tcr))
        .route("/api/v1/reports/cash-register", get(reports::cash_register))
        .route("/api/v1/reports/cash-register/closing", get(reports::closing))
        .route("/api/v1/reports/reversals", get(reports::reversals))
        .route("/api/v1/reports/wtn", get(reports::wtn))
        .route("/api/v1/dashboard/summary", get(reports::dashboard));

    let search = Router::new().route("/api/v1/client/search", get(clients::search));

    let general = Router::new()
        .route("/api/v1/register", get(onboarding::register_ping))
        .route("/api/openapi.yaml", get(misc::openapi))
        .route("/api/v1/ping", get(misc::ping))
        .route("/api/v1/account", get(misc::account))
        .route("/api/v1/bank-accounts", get(onboarding::bank_accounts))
        .route("/api/v1/bank-accounts/{id}", get(onboarding::bank_account))
        .route("/api/v1/clients", get(clients::list).post(clients::v1_create))
        .route("/api/v1/clients/{id}", put(clients::v1_update))
        .route("/api/v1/clients/{id}/details", get(clients::v1_details))
        .route("/api/v2/clients", get(clients::list).post(clients::v2_create))
        .route("/api/v2/clients/{id}", get(clients::v2_show).patch(clients::v2_update))
        .route("/api/v1/products", get(products::list).post(products::create))
        .route("/api/v1/products/{id}", put(products::update))
        .route("/api/v1/products/{id}/details", get(products::details))
        .route("/api/v1/product/categories", get(products::categories).post(products::create_category))
        .route("/api/v1/product/categories/{id}", put(products::update_category));

    // Currencies, exchange rates and the AI proxy: the spec puts them in no group of their own.
    let currencies = Router::new()
        .route("/api/v1/currencies", get(currencies::currencies))
        .route("/api/v1/currencies/{code}", put(currencies::set_currency))
        .route("/api/v1/exchange-rates", get(currencies::exchange_rates))
        .route("/api/v1/exchange-rates/manual", get(currencies::manual_rates))
        .route(
            "/api/v1/exchange-rates/manual/{code}",
            put(currencies::set_manual_rate).delete(currencies::delete_manual_rate),
        )
        .route("/api/v1/ai/chat/completions", post(ai::chat_completions));

    Router::new()
        .merge(in_group(&state, Group::General, currencies))
        .merge(in_group(&state, Group::Registration, registration))
        .merge(in_group(&state, Group::General, general))
        .merge(in_group(&state, Group::Search, search))
        .merge(in_group(&state, Group::Fiscal, fiscal))
        .merge(in_group(&state, Group::Fiscal, in_group(&state, Group::Cancel, cancellations)))
        .merge(in_group(&state, Group::Bulk, bulk))
        .merge(in_group(&state, Group::Print, print))
        .merge(in_group(&state, Group::Fiscal, einvoices))
        .merge(in_group(&state, Group::Print, einvoice_prints))
        .merge(in_group(&state, Group::Reports, reports))
        .merge(in_group(&state, Group::General, invoice_reads))
        .merge(in_group(&state, Group::General, cash_register))
        .merge(in_group(&state, Group::General, owner_reads))
        .merge(wtn::routes(&state))
        .merge(stock::routes(&state))
        .merge(marketplace::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(map_response(json_for_axum_rejections))
        .layer(from_fn_with_state(state.clone(), auth::identify))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(CatchPanicLayer::custom(error::panic_answer))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::status(StatusCode::NOT_FOUND, "Not found.")
}

async fn method_not_allowed() -> ApiError {
    ApiError::status(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed.")
}

/// axum answers a few rejections itself in plain text (a multipart body that cannot be read);
/// give them the spec's envelope too.
async fn json_for_axum_rejections(response: Response) -> Response {
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let status = response.status();
    if is_json || status.is_success() || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let message = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "The request body is too large.",
        StatusCode::BAD_REQUEST => "The request could not be read.",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "The request body must be JSON.",
        _ => status.canonical_reason().unwrap_or("Error"),
    };
    ApiError::status(status, message).into_response()
}

/// Serves until `shutdown` completes, then lets the requests in flight finish. Used by
/// `arka serve` and by the tests alike, over plain TCP or TLS (`crate::tls::TlsListener`).
pub async fn serve<L>(
    listener: L,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: Listener<Addr = SocketAddr>,
{
    // tap_io gives any listener's connections their peer address (the IP limiter reads it).
    axum::serve(listener.tap_io(|_| {}), app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn panics() -> &'static str {
        let lines: Vec<u32> = Vec::new();
        // Out of bounds, the way a slip in a handler would panic.
        let _ = lines[std::hint::black_box(3)];
        "unreachable"
    }

    async fn fine() -> &'static str {
        "fine"
    }

    #[test]
    fn a_panicking_handler_answers_500_in_the_envelope_and_the_server_goes_on() {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let address = listener.local_addr().unwrap();
        let app = Router::new()
            .route("/panics", get(panics))
            .route("/fine", get(fine))
            .layer(CatchPanicLayer::custom(error::panic_answer));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = runtime.spawn(serve(listener, app, async move {
            let _ = stopped.await;
        }));
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut reply = agent.get(format!("http://{address}/panics")).call().unwrap();
        assert_eq!(reply.status().as_u16(), 500);
        let body: serde_json::Value =
            serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap();
        assert_eq!(body, serde_json::json!({"status": false, "message": "Server Error"}));
        let mut reply = agent.get(format!("http://{address}/fine")).call().unwrap();
        assert_eq!(reply.body_mut().read_to_string().unwrap(), "fine");
        let _ = stop.send(());
        runtime.block_on(server).unwrap().unwrap();
    }
}
