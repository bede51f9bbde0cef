//! The HTTP edge: router, authentication, limits, envelopes. One file per group of the spec.

pub mod ai;
mod audit;
pub mod auth;
pub mod backups;
mod bodies;
mod callers;
mod cash_register;
mod clients;
mod currencies;
pub mod docs;
mod einvoice;
pub mod error;
pub mod invoices;
pub mod limits;
pub mod marketplace;
mod misc;
mod onboarding;
pub mod ops;
pub(crate) mod owner;
mod pairing;
pub mod people;
pub mod permissions;
mod products;
mod purchase;
pub mod reports;
mod session;
mod setup;
mod stock;
mod till;
pub mod till_web;
mod tracing_layers;
mod unread_body;
mod users;
mod wtn;

// The edge shared with the head office: the request readers, the owner's page's files, serving.
pub use arka_edge::serve::serve;
pub use arka_edge::{extract, web};

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state, map_response};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post, put};
use tower_http::catch_panic::CatchPanicLayer;

use self::error::ApiError;
use self::limits::{Group, Limiters};
// The body readers live with the domain inputs that derive `Deserialize` through them.
use crate::domain::fields;
use crate::services::Services;

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub services: Services,
    pub limiters: Arc<Limiters>,
    pub marketplace: crate::services::marketplace::Marketplace,
    /// The callers of tokens seen lately (`callers`).
    pub callers: Arc<callers::Callers>,
    /// Sessions, sign-in lock-outs and the setup wizard's settings (`people`).
    pub people: Arc<people::People>,
    /// The time windows are measured on (`crate::clock`).
    pub clock: crate::clock::Clock,
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
    let ops_routes = ops_routes.with_state(ops::Ops::new(
        state.services.clone(),
        state.clock.clone(),
        state.people.backups.copy.clone(),
    ));
    let https = state.people.https;
    // The owner's page is static and public (it signs in through the API), so no limiter counts it;
    // nor the book at /docs, the manual a technician reads in the shop.
    let outside_the_api = ops_routes
        .merge(web::routes())
        .merge(till_web::routes())
        .merge(docs::routes())
        .route_layer(from_fn(bodies::gate));
    let app =
        api_router(state, options.max_body_bytes).merge(outside_the_api).layer(from_fn(unread_body::drain));
    let app = if https { app.layer(map_response(strict_transport)) } else { app };
    tracing_layers::layered(app)
}

/// HSTS on every answer over HTTPS: a browser that reached the box once over HTTPS (without a
/// certificate warning) never again sends the session cookie or a password over plain HTTP to
/// that name, for a year. No `includeSubDomains`: the box's name says nothing of its neighbours.
pub const STRICT_TRANSPORT: &str = "max-age=31536000";

async fn strict_transport(mut response: Response) -> Response {
    response.headers_mut().insert(
        axum::http::header::STRICT_TRANSPORT_SECURITY,
        axum::http::HeaderValue::from_static(STRICT_TRANSPORT),
    );
    response
}

/// The API: every route, then what every request goes through (outermost last).
fn api_router(state: AppState, max_body_bytes: usize) -> Router {
    routes(&state)
        .merge(till_routes(&state))
        .merge(marketplace::routes())
        // Every body is read here before its handler: one reader, so no route can differ.
        .route_layer(from_fn(bodies::gate))
        // Outermost of the routes' layers: a call its rule refuses costs no budget and reaches
        // no handler. Every route above has a rule (a route without one is refused).
        .route_layer(from_fn(permissions::check))
        .merge(marketplace::unknown_paths())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(map_response(json_for_axum_rejections))
        .layer(from_fn_with_state(state.clone(), auth::identify))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(CatchPanicLayer::custom(error::panic_answer))
        .with_state(state)
}

/// The budget groups of the spec's "Budgets per group", each a layer over a route's handlers.
struct Budgets<'a>(&'a AppState);

impl Budgets<'_> {
    fn of(&self, group: Group, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        route.layer(from_fn_with_state((self.0.clone(), group), auth::budget))
    }

    fn general(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.of(Group::General, route)
    }

    fn registration(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.of(Group::Registration, route)
    }

    fn fiscal(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.of(Group::Fiscal, route)
    }

    /// Cancellations count in the fiscal budget and in their own limit.
    fn cancel(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.fiscal(self.of(Group::Cancel, route))
    }

    fn bulk(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.of(Group::Bulk, route)
    }

    fn print(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.of(Group::Print, route)
    }

    fn reports(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.of(Group::Reports, route)
    }

    fn search(&self, route: MethodRouter<AppState>) -> MethodRouter<AppState> {
        self.of(Group::Search, route)
    }
}

/// Users and their tokens (the book's "Roles and tokens") and the audit trail of what they
/// did, in the `general` group.
fn user_routes(g: &Budgets) -> Router<AppState> {
    Router::new()
        .route("/api/v1/audit", g.general(get(audit::list)))
        .route("/api/v1/users", g.general(get(users::list)))
        .route("/api/v1/users/me/token", g.general(post(users::rotate_own)))
        .route("/api/v1/users/{id}/token", g.general(post(users::rotate).delete(users::revoke)))
}

/// Every route of the spec, with the budget group it counts in (the minimum intervals are the
/// handlers' own). The marketplace's routes answer in their own envelope and count their budgets
/// in their handlers (`marketplace::routes`).
fn routes(state: &AppState) -> Router<AppState> {
    let g = Budgets(state);
    user_routes(&g)
        // Registration and on-boarding
        .route("/api/v1/register", g.registration(post(onboarding::register)))
        .route("/api/v1/register", g.general(get(onboarding::register_ping)))
        .route("/api/v1/on-boarding/certificate", g.registration(post(onboarding::certificate)))
        .route("/api/v1/on-boarding/branch", g.registration(post(onboarding::create_branch)))
        .route("/api/v1/on-boarding/branch/{id}", g.registration(post(onboarding::update_branch)))
        .route("/api/v1/on-boarding/user", g.registration(post(onboarding::create_user)))
        .route("/api/v1/on-boarding/user/{id}", g.registration(post(onboarding::update_user)))
        .route("/api/v1/on-boarding/bank-account", g.registration(post(onboarding::create_bank_account)))
        .route("/api/v1/on-boarding/fiscal-device", g.registration(post(onboarding::fiscal_device)))
        .route("/api/v1/bank-accounts", g.general(get(onboarding::bank_accounts)))
        .route("/api/v1/bank-accounts/{id}", g.general(get(onboarding::bank_account)))
        .route("/api/openapi.yaml", g.general(get(misc::openapi)))
        .route("/api/v1/ping", g.general(get(misc::ping)))
        .route("/api/v1/account", g.general(get(misc::account)))
        // Clients and products
        .route("/api/v1/clients", g.general(get(clients::list).post(clients::v1_create)))
        .route("/api/v1/clients/{id}", g.general(put(clients::v1_update)))
        .route("/api/v1/clients/{id}/details", g.general(get(clients::v1_details)))
        .route("/api/v2/clients", g.general(get(clients::list).post(clients::v2_create)))
        .route("/api/v2/clients/{id}", g.general(get(clients::v2_show).patch(clients::v2_update)))
        .route("/api/v1/client/search", g.search(get(clients::search)))
        .route("/api/v1/products", g.general(get(products::list).post(products::create)))
        .route("/api/v1/products/{id}", g.general(put(products::update)))
        .route("/api/v1/products/import", g.general(post(products::import)))
        .route("/api/v1/products/{id}/details", g.general(get(products::details)))
        .route(
            "/api/v1/product/categories",
            g.general(get(products::categories).post(products::create_category)),
        )
        .route("/api/v1/product/categories/{id}", g.general(put(products::update_category)))
        // Cash register
        .route("/api/v1/cash-register/open-balance", g.general(post(cash_register::open_balance)))
        .route("/api/v1/cash-register/close-balance", g.general(post(cash_register::close_balance)))
        .route("/api/v1/cash-register/deposit", g.general(post(cash_register::deposit)))
        .route("/api/v1/cash-register/withdraw", g.general(post(cash_register::withdraw)))
        .route("/api/v1/cash-register/actions", g.general(get(cash_register::actions)))
        .route("/api/v1/cash-register/balance", g.general(get(cash_register::balance)))
        .route("/api/v2/cash-register/balance", g.general(get(cash_register::balance)))
        // Invoices
        .route("/api/v1/invoice/cash", g.fiscal(post(invoices::cash)))
        .route("/api/v2/invoice/cash", g.fiscal(post(invoices::cash)))
        .route("/api/v1/invoice/noncash", g.fiscal(post(invoices::noncash)))
        .route("/api/v2/invoice/noncash", g.fiscal(post(invoices::noncash)))
        .route("/api/v1/invoice/order", g.fiscal(post(invoices::order)))
        .route("/api/v2/invoice/order", g.fiscal(post(invoices::order)))
        .route("/api/v1/invoice/summary", g.fiscal(post(invoices::summary)))
        .route("/api/v2/invoice/summary", g.fiscal(post(invoices::summary)))
        .route("/api/v1/invoice/bulk-noncash", g.bulk(post(invoices::bulk_noncash)))
        .route("/api/v2/invoice/bulk-noncash", g.bulk(post(invoices::bulk_noncash)))
        .route("/api/v1/invoice/cancel/{id}", g.cancel(post(invoices::cancel)))
        .route("/api/v2/invoice/cancel/{id}", g.cancel(post(invoices::cancel)))
        .route(
            "/api/v1/invoice/cancel-by-internal-id/{internalId}",
            g.cancel(post(invoices::cancel_by_internal_id)),
        )
        .route(
            "/api/v2/invoice/cancel-by-internal-id/{internalId}",
            g.cancel(post(invoices::cancel_by_internal_id)),
        )
        .route("/api/v1/invoice", g.general(get(invoices::list)))
        .route("/api/v2/invoice", g.general(get(invoices::list)))
        .route("/api/v1/invoice/{id}/details", g.general(get(invoices::details)))
        .route("/api/v2/invoice/{id}/details", g.general(get(invoices::details)))
        .route("/api/v1/invoice/details/{internalId}", g.general(post(invoices::by_internal_id)))
        .route("/api/v2/invoice/details/{internalId}", g.general(post(invoices::by_internal_id)))
        .route("/api/v1/invoice/print/{id}", g.print(get(invoices::print)))
        .route("/api/v2/invoice/print/{id}", g.print(get(invoices::print)))
        // E-invoices and purchase invoices
        .route("/api/v1/invoice/e-invoice", g.fiscal(post(einvoice::issue_einvoice)))
        .route("/api/v2/invoice/e-invoice", g.fiscal(post(einvoice::issue_einvoice)))
        .route("/api/v1/invoice/print-eic/{eic}", g.print(get(einvoice::print_eic)))
        .route("/api/v2/invoice/print-eic/{eic}", g.print(get(einvoice::print_eic)))
        .route("/api/v1/purchase-invoices", g.fiscal(get(purchase::list)))
        .route("/api/v1/purchase-invoices/{eic}/status", g.fiscal(post(purchase::change_status)))
        // Warehouse transfer notes (the list shares the issue's interval, not its budget) and stock
        .route("/api/v1/invoice/wtn", g.fiscal(post(wtn::issue)))
        .route("/api/v2/invoice/wtn", g.fiscal(post(wtn::issue)))
        .route("/api/v1/invoice/wtn", g.general(get(wtn::list)))
        .route("/api/v1/invoice/wtn/details/{internalId}", g.general(get(wtn::details)))
        .route("/api/v2/invoice/wtn/details/{internalId}", g.general(get(wtn::details)))
        .route("/api/v1/invoice/wtn/print/{id}", g.print(get(wtn::print)))
        .route("/api/v2/invoice/wtn/print/{id}", g.print(get(wtn::print)))
        .route("/api/v1/invoice/wtn/pdf/{id}", g.print(get(wtn::pdf)))
        .route("/api/v2/invoice/wtn/pdf/{id}", g.print(get(wtn::pdf)))
        .route("/api/v1/print-settings", g.general(get(wtn::print_settings).put(wtn::update_print_settings)))
        .route("/api/v1/mobile/products/stock", g.general(get(stock::mobile_stock)))
        .route("/api/v1/stock/settings", g.general(get(stock::settings).put(stock::update_settings)))
        .route("/api/v1/stock/products/{id}", g.general(get(stock::history)))
        .route("/api/v1/stock/products/{id}/adjustments", g.general(post(stock::adjust)))
        // Reports, and the owner's page's own two (docs "The owner's page")
        .route("/api/v1/reports/sales-summary", g.reports(get(reports::sales_summary)))
        .route("/api/v1/reports/vat", g.reports(get(reports::vat)))
        .route("/api/v1/reports/daily-trend", g.reports(get(reports::daily_trend)))
        .route("/api/v1/reports/top-clients", g.reports(get(reports::top_clients)))
        .route("/api/v1/reports/top-products", g.reports(get(reports::top_products)))
        .route("/api/v1/reports/by-operator", g.reports(get(reports::by_operator)))
        .route("/api/v1/reports/by-tcr", g.reports(get(reports::by_tcr)))
        .route("/api/v1/reports/cash-register", g.reports(get(reports::cash_register)))
        .route("/api/v1/reports/cash-register/closing", g.reports(get(reports::closing)))
        .route("/api/v1/reports/cash-register/closing/pdf", g.reports(get(reports::closing_pdf)))
        .route("/api/v1/reports/reversals", g.reports(get(reports::reversals)))
        .route("/api/v1/reports/wtn", g.reports(get(reports::wtn)))
        .route("/api/v1/dashboard/summary", g.reports(get(reports::dashboard)))
        // Currencies, exchange rates and the AI proxy: in no group of the spec's own
        .route("/api/v1/currencies", g.general(get(currencies::currencies)))
        .route("/api/v1/currencies/{code}", g.general(put(currencies::set_currency)))
        .route("/api/v1/exchange-rates", g.general(get(currencies::exchange_rates)))
        .route("/api/v1/exchange-rates/manual", g.general(get(currencies::manual_rates)))
        .route(
            "/api/v1/exchange-rates/manual/{code}",
            g.general(put(currencies::set_manual_rate).delete(currencies::delete_manual_rate)),
        )
        .route("/api/v1/ai/chat/completions", g.general(post(ai::chat_completions)))
        .merge(people_routes(state))
        .merge(owner_routes(state))
}

/// Arka's own routes for the till (docs "The till"): printers, receipts, the till's settings,
/// the open tables.
fn till_routes(state: &AppState) -> Router<AppState> {
    let g = Budgets(state);
    Router::new()
        .route("/api/v2/invoice/open-orders", g.general(get(invoices::open_orders)))
        .route("/api/v1/printers", g.general(get(till::printers)))
        .route("/api/v1/printers/mine", g.general(get(till::my_printer)))
        .route("/api/v1/printers/{tcrCode}", g.general(put(till::set_printer)))
        .route("/api/v1/printers/{tcrCode}/test", g.print(post(till::test_print)))
        .route("/api/v1/invoice/{id}/receipt", g.print(post(till::print_receipt)))
        .route("/api/v1/till/settings", g.general(get(till::settings).put(till::update_settings)))
}

/// Arka's own routes for the owner's page (docs "The owner's page"): the day, the queue and the
/// re-send of a refused document, the box's backups.
fn owner_routes(state: &AppState) -> Router<AppState> {
    let g = Budgets(state);
    Router::new()
        .route("/api/v1/owner/today", g.general(get(owner::today)))
        .route("/api/v1/owner/queue", g.general(get(owner::queue)))
        .route("/api/v1/owner/queue/{queueId}/resend", g.general(post(owner::resend)))
        .route("/api/v1/owner/backup", g.general(get(backups::status).post(backups::take)))
        .route("/api/v1/owner/backup/copy/verify", g.general(post(backups::verify_copy)))
        .route("/api/v1/owner/backup/{file}", g.general(get(backups::download)))
}

/// Arka's own routes for people, beside the spec's: the first start's wizard (docs "First
/// start") and people signing in to the page.
fn people_routes(state: &AppState) -> Router<AppState> {
    let g = Budgets(state);
    Router::new()
        .route("/api/v1/setup", g.registration(get(setup::status)))
        .route("/api/v1/setup/code", g.registration(post(setup::check_code)))
        .route("/api/v1/setup/business", g.registration(post(setup::business)))
        .route("/api/v1/setup/owner", g.registration(post(setup::owner)))
        .route("/api/v1/setup/certificate", g.registration(post(setup::certificate)))
        .route("/api/v1/setup/unit", g.registration(post(setup::unit)))
        .route("/api/v1/setup/devices", g.registration(post(setup::device)))
        .route("/api/v1/setup/cashiers", g.registration(post(setup::cashier)))
        .route("/api/v1/setup/test-sale", g.fiscal(post(setup::test_sale)))
        .route(
            session::SIGN_IN,
            g.general(get(people::whoami).post(people::sign_in).delete(people::sign_out)),
        )
        .route("/api/v1/session/password", g.general(post(people::change_password)))
        .route("/api/v1/session/reset", g.general(post(people::reset_with_code)))
        .route("/api/v1/users/me", g.general(get(people::profile).patch(people::update_profile)))
        .route("/api/v1/users/{id}/password", g.general(post(people::reset_password)))
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
