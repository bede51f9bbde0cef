//! The delivery marketplace partner API (`/api/partner/v1/marketplace/...`): the event feed,
//! the order board, the POS's actions relayed to Wolt, fiscalize, Wolt's webhook, and the
//! owner's settings. Every error here is the marketplace envelope `{status:false, message,
//! code}`.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequestParts, MatchedPath, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, any, get, post, put};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Identity;
use super::error::{ApiError, MarketplaceFailure, marketplace_parts, success_body};
use super::extract::{PathId, Query, body_rejection, parse_changes, parse_json};
use super::limits::Group;
use crate::domain::document::InvoiceType;
use crate::domain::marketplace::{
    Action, OrderState, OrderStatus, allowed_actions, idempotency_key_problem, may_fiscalize,
};
use crate::domain::spelled::Spelled;
use crate::domain::time::{local_text, parse_stored};
use crate::domain::validation::FieldErrors;
use crate::services::marketplace::{
    Access, Command, Error as MarketplaceError, Rendered, Settings, SettingsUpdate, VenueInput, WriteRequest,
    Written, fingerprint,
};
use crate::store::accounts::Caller;
use crate::store::marketplace::{Event, OrderFilter, StoredOrder};

/// Where the partner API lives.
pub const PREFIX: &str = super::error::MARKETPLACE_PREFIX;

type MarketplaceResult = Result<Response, MarketplaceFailure>;

/// The writes on an order, each a route of its own (`/orders/{id}/<write>`).
fn writes() -> impl Iterator<Item = &'static str> {
    Action::ALL.into_iter().map(Action::as_str).chain(["fiscalize"])
}

/// Every marketplace route; unknown methods answer in its envelope.
pub fn routes() -> Router<AppState> {
    let route = |r: MethodRouter<AppState>| r.fallback(method_not_allowed);
    let mut routes = Router::new()
        .route(&format!("{PREFIX}/events"), route(get(events)))
        .route(&format!("{PREFIX}/orders"), route(get(orders)))
        .route(&format!("{PREFIX}/orders/{{id}}"), route(get(order)))
        .route(&format!("{PREFIX}/webhooks/wolt"), route(post(webhook)))
        .route(&format!("{PREFIX}/settings"), route(get(settings).put(update_settings)))
        .route(&format!("{PREFIX}/rights/{{user_id}}"), route(put(set_right)));
    for name in writes() {
        routes = routes.route(&format!("{PREFIX}/orders/{{id}}/{name}"), route(post(write)));
    }
    routes
}

/// Unknown paths under the prefix, answered in its envelope: no route, so no rule of who may
/// call it (`permissions`).
pub fn unknown_paths() -> Router<AppState> {
    Router::new().route(&format!("{PREFIX}/{{*rest}}"), any(not_found)).route(PREFIX, any(not_found))
}

async fn not_found() -> MarketplaceFailure {
    ApiError::status(StatusCode::NOT_FOUND, "Not found.").into()
}

async fn method_not_allowed() -> MarketplaceFailure {
    ApiError::status(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed.").into()
}

// ---------------------------------------------------------------------------------------------
// Who is calling
// ---------------------------------------------------------------------------------------------

/// Reads (180 per minute per token) or writes (60).
pub trait Budget {
    const GROUP: Group;
}

pub struct Reads;
pub struct Writes;

impl Budget for Reads {
    const GROUP: Group = Group::MarketplaceReads;
}

impl Budget for Writes {
    const GROUP: Group = Group::MarketplaceWrites;
}

/// A user token, counted against the marketplace budget `B`.
pub struct Token<B>(Arc<Caller>, PhantomData<B>);

impl<B: Budget> FromRequestParts<AppState> for Token<B> {
    type Rejection = MarketplaceFailure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Some(Identity::User(caller)) = parts.extensions.get::<Identity>() else {
            return Err(ApiError::Unauthenticated.into());
        };
        let key = format!("u:{}", caller.user.id);
        if let Err(denied) = state.limiters.group(B::GROUP, &key) {
            return Err(ApiError::Throttled { limit: denied.limit, retry_after: denied.retry_after }.into());
        }
        Ok(Token(super::auth::with_request_id(caller, &parts.headers), PhantomData))
    }
}

/// A token with the marketplace right, of a company with the add-on and one active venue.
pub struct Venue<B>(Access, PhantomData<B>);

impl<B: Budget> FromRequestParts<AppState> for Venue<B> {
    type Rejection = MarketplaceFailure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Token(caller, _) = Token::<B>::from_request_parts(parts, state).await?;
        Ok(Venue(state.marketplace.access(caller).await?, PhantomData))
    }
}

// ---------------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------------

fn local(stored: &str) -> String {
    parse_stored(stored).map(local_text).unwrap_or_else(|| stored.to_string())
}

#[derive(Serialize)]
struct CustomerView {
    name: Option<String>,
    phone: Option<String>,
    note: Option<String>,
}

#[derive(Serialize)]
struct CompanyView {
    tax_id: Option<String>,
    name: Option<String>,
    address: Option<String>,
    city: Option<String>,
}

#[derive(Serialize)]
struct PreorderView {
    time: Option<String>,
    status: &'static str,
}

#[derive(Serialize)]
struct ProductView {
    id: i64,
    code: String,
    name: String,
}

#[derive(Serialize)]
struct OptionView {
    name: String,
    value: Option<String>,
    price: Decimal,
}

#[derive(Serialize)]
struct LineView {
    name: String,
    code: Option<String>,
    quantity: Decimal,
    unit_price: Decimal,
    total: Decimal,
    discount: Decimal,
    vat_rate: Option<Decimal>,
    product: Option<ProductView>,
    options: Vec<OptionView>,
}

#[derive(Serialize)]
struct TotalsView {
    subtotal_before_discount: Decimal,
    discount: Decimal,
    delivery_fee: Decimal,
    total: Decimal,
    currency: String,
    campaigns: Vec<String>,
}

#[derive(Serialize)]
struct InvoiceView {
    id: i64,
    number: String,
    iic: String,
    fic: Option<String>,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(rename = "fiscalizedAt")]
    fiscalized_at: String,
}

/// The spec's Marketplace order, with what a POS needs beside it (type, status, actions).
#[derive(Serialize)]
struct OrderView {
    id: i64,
    wolt_order_id: String,
    order_number: Option<String>,
    #[serde(rename = "type")]
    kind: &'static str,
    status: &'static str,
    actions: Vec<&'static str>,
    customer: CustomerView,
    company: Option<CompanyView>,
    preorder: Option<PreorderView>,
    lines: Vec<LineView>,
    totals: TotalsView,
    preparation_time: Option<i64>,
    reject_reason: Option<String>,
    invoice: Option<InvoiceView>,
    created_at: String,
    received_at: String,
    updated_at: String,
}

fn order_view(o: &StoredOrder) -> OrderView {
    let state = OrderState {
        status: o.status,
        delivery: o.delivery,
        preorder: o.preorder.as_ref().map(|p| p.status),
    };
    let mut actions: Vec<&'static str> = allowed_actions(state).into_iter().map(Action::as_str).collect();
    if may_fiscalize(o.status, o.invoice.is_some()).is_ok() {
        actions.push("fiscalize");
    }
    let self_delivery = o.delivery == crate::domain::marketplace::DeliveryType::SelfDelivery;
    OrderView {
        id: o.id,
        wolt_order_id: o.wolt_order_id.clone(),
        order_number: o.order_number.clone(),
        kind: o.delivery.as_str(),
        status: o.status.as_str(),
        actions,
        customer: CustomerView {
            name: o.customer.name.clone(),
            // Shared only for self-delivery orders, whose courier needs it.
            phone: if self_delivery { o.customer.phone.clone() } else { None },
            note: o.customer.note.clone(),
        },
        company: o.company.as_ref().map(|c| CompanyView {
            tax_id: c.tax_id.clone(),
            name: c.name.clone(),
            address: c.address.clone(),
            city: c.city.clone(),
        }),
        preorder: o
            .preorder
            .as_ref()
            .map(|p| PreorderView { time: p.time.clone(), status: p.status.as_str() }),
        lines: o
            .lines
            .iter()
            .map(|l| LineView {
                name: l.line.name.clone(),
                code: l.line.code.clone(),
                quantity: l.line.quantity,
                unit_price: l.line.unit_price,
                total: l.line.total,
                discount: l.line.discount,
                vat_rate: l.line.vat_rate,
                product: l.product.as_ref().map(|p| ProductView {
                    id: p.id,
                    code: p.code.clone(),
                    name: p.name.clone(),
                }),
                options: l
                    .line
                    .options
                    .iter()
                    .map(|x| OptionView { name: x.name.clone(), value: x.value.clone(), price: x.price })
                    .collect(),
            })
            .collect(),
        totals: TotalsView {
            subtotal_before_discount: o.totals.subtotal_before_discount,
            discount: o.totals.discount(),
            delivery_fee: o.totals.delivery_fee,
            total: o.totals.total,
            currency: o.currency.clone(),
            campaigns: o.campaigns.clone(),
        },
        preparation_time: o.preparation_time,
        reject_reason: o.reject_reason.clone(),
        invoice: o.invoice.as_ref().map(|i| InvoiceView {
            id: i.id,
            number: i.number.clone(),
            iic: i.iic.clone(),
            fic: i.fic.clone(),
            kind: match i.kind {
                InvoiceType::Cash => "cash",
                InvoiceType::NonCash => "noncash",
            },
            fiscalized_at: local(&i.issued_at),
        }),
        created_at: local(o.wolt_created_at.as_deref().unwrap_or(&o.received_at)),
        received_at: local(&o.received_at),
        updated_at: local(&o.updated_at),
    }
}

#[derive(Serialize)]
struct EventView {
    id: i64,
    #[serde(rename = "type")]
    kind: String,
    order_id: i64,
    status: &'static str,
    source: &'static str,
    at: String,
}

fn event_view(e: &Event) -> EventView {
    EventView {
        id: e.id,
        kind: e.kind.clone(),
        order_id: e.order_id,
        status: e.status.as_str(),
        source: e.source.as_str(),
        at: local(&e.created_at),
    }
}

#[derive(Serialize)]
struct OrderData {
    order: OrderView,
}

#[derive(Serialize)]
struct Pagination {
    total: i64,
    limit: i64,
    offset: i64,
}

#[derive(Serialize)]
struct OrdersView {
    items: Vec<OrderView>,
    pagination: Pagination,
}

#[derive(Serialize)]
struct EventsView {
    items: Vec<EventView>,
    /// The last event's id: where the next read resumes.
    cursor: i64,
    has_more: bool,
}

#[derive(Serialize)]
struct TakenView {
    order_id: i64,
    duplicate: bool,
}

fn ok<T: Serialize>(status: StatusCode, data: T) -> MarketplaceResult {
    Ok(super::error::success(status, data))
}

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

/// Integers in a query: anything else (1e30, 2^63, text) is named as invalid.
fn query_int(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<&str>,
    range: std::ops::RangeInclusive<i64>,
) -> Option<i64> {
    let value = value.map(str::trim).filter(|v| !v.is_empty())?;
    match value.parse::<i64>() {
        Ok(n) if range.contains(&n) => Some(n),
        _ => {
            errors.add(
                field,
                format!("The {field} must be an integer from {} to {}.", range.start(), range.end()),
            );
            None
        }
    }
}

#[derive(Deserialize)]
struct EventsQuery {
    cursor: Option<String>,
    limit: Option<String>,
    wait: Option<String>,
}

/// The order events after `cursor`, oldest first, with the cursor to resume from.
async fn events(
    State(state): State<AppState>,
    Venue(access, _): Venue<Reads>,
    query: Result<Query<EventsQuery>, ApiError>,
) -> MarketplaceResult {
    let Query(q) = query?;
    let mut errors = FieldErrors::new();
    let cursor = query_int(&mut errors, "cursor", q.cursor.as_deref(), 0..=i64::MAX).unwrap_or(0);
    let limit = query_int(&mut errors, "limit", q.limit.as_deref(), 1..=200).unwrap_or(50);
    let wait = query_int(&mut errors, "wait", q.wait.as_deref(), 0..=25).unwrap_or(0);
    errors.into_result().map_err(MarketplaceError::InvalidData)?;
    let found = state
        .marketplace
        .events(&access, cursor, limit, Duration::from_secs(u64::try_from(wait).unwrap_or(0)))
        .await?;
    let next = found.last().map_or(cursor, |e| e.id);
    let has_more = i64::try_from(found.len()).is_ok_and(|n| n == limit);
    ok(StatusCode::OK, EventsView { items: found.iter().map(event_view).collect(), cursor: next, has_more })
}

#[derive(Deserialize)]
struct OrdersQuery {
    status: Option<String>,
    from: Option<String>,
    to: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
}

/// `active`, `history`, or statuses separated by commas.
fn statuses(errors: &mut FieldErrors, value: Option<&str>) -> Vec<OrderStatus> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for word in value.split(',').map(str::trim) {
        match word {
            "active" => found.extend(OrderStatus::ALL.into_iter().filter(|s| !s.is_final())),
            "history" => found.extend(OrderStatus::ALL.into_iter().filter(|s| s.is_final())),
            other => match <OrderStatus as Spelled>::parse(other) {
                Some(s) => found.push(s),
                None => {
                    errors.add(
                        "status",
                        "The status must be active, history, or statuses among received, scheduled, accepted, ready, \
                         picked_up, at_customer, delivered, rejected, canceled (separated by commas).",
                    );
                    return Vec::new();
                }
            },
        }
    }
    found
}

/// The board: newest first, filtered by status and by the local date the order arrived.
async fn orders(
    State(state): State<AppState>,
    Venue(access, _): Venue<Reads>,
    query: Result<Query<OrdersQuery>, ApiError>,
) -> MarketplaceResult {
    let Query(q) = query?;
    let mut errors = FieldErrors::new();
    let filter = OrderFilter {
        venue_id: access.venue.id,
        statuses: statuses(&mut errors, q.status.as_deref()),
        from_date: errors.date("from", q.from.as_deref()).map(|d| d.to_string()),
        to_date: errors.date("to", q.to.as_deref()).map(|d| d.to_string()),
        // Above 100 is lowered to 100, as the other lists do.
        limit: query_int(&mut errors, "limit", q.limit.as_deref(), 1..=i64::from(u32::MAX))
            .unwrap_or(20)
            .min(100),
        offset: query_int(&mut errors, "offset", q.offset.as_deref(), 0..=i64::from(u32::MAX)).unwrap_or(0),
    };
    errors.into_result().map_err(MarketplaceError::InvalidData)?;
    let (limit, offset) = (filter.limit, filter.offset);
    let (found, total) = state.marketplace.orders(&access, filter).await?;
    ok(
        StatusCode::OK,
        OrdersView {
            items: found.iter().map(order_view).collect(),
            pagination: Pagination { total, limit, offset },
        },
    )
}

fn order_id(id: Result<PathId, ApiError>) -> Result<i64, MarketplaceError> {
    id.map(|PathId(id)| id).map_err(|_| MarketplaceError::OrderNotFound)
}

async fn order(
    State(state): State<AppState>,
    Venue(access, _): Venue<Reads>,
    id: Result<PathId, ApiError>,
) -> MarketplaceResult {
    let found = state.marketplace.order(&access, order_id(id)?).await?;
    ok(StatusCode::OK, OrderData { order: order_view(&found) })
}

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

fn idempotency_key(headers: &HeaderMap) -> Result<String, MarketplaceError> {
    let Some(value) = headers.get("idempotency-key") else {
        return Err(MarketplaceError::KeyRequired);
    };
    let key = value.to_str().map(str::trim).unwrap_or("\u{0}");
    if key.is_empty() {
        return Err(MarketplaceError::KeyRequired);
    }
    match idempotency_key_problem(key) {
        Some(problem) => Err(MarketplaceError::InvalidData(FieldErrors::one("Idempotency-Key", problem))),
        None => Ok(key.to_string()),
    }
}

/// The answer of a write, kept under its Idempotency-Key.
fn render(outcome: Result<StoredOrder, MarketplaceError>) -> Rendered {
    let (status, body) = match outcome {
        Ok(order) => (StatusCode::CREATED, success_body(OrderData { order: order_view(&order) })),
        Err(e) => marketplace_parts(e),
    };
    Rendered { status: status.as_u16(), body: body.to_string() }
}

fn answer(written: Written) -> Response {
    let (rendered, replayed) = match written {
        Written::Fresh(r) => (r, false),
        Written::Replayed(r) => (r, true),
    };
    let status = StatusCode::from_u16(rendered.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, rendered.body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if replayed {
        headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    response
}

/// A body read as JSON; a POS sending none is the same as `{}`.
fn body<T: for<'de> Deserialize<'de>>(bytes: Result<Bytes, BytesRejection>) -> Result<T, MarketplaceFailure> {
    let bytes = bytes.map_err(body_rejection)?;
    Ok(parse_json(&bytes)?)
}

/// The body of a settings write, where what is not sent is kept: an empty one is refused
/// (`parse_changes`).
fn changes<T: for<'de> Deserialize<'de>>(
    bytes: Result<Bytes, BytesRejection>,
) -> Result<T, MarketplaceFailure> {
    let bytes = bytes.map_err(body_rejection)?;
    Ok(parse_changes(&bytes)?)
}

#[derive(Deserialize)]
struct AcceptBody {
    preparation_time: Option<serde_json::Value>,
}

/// Minutes the kitchen needs; relayed to Wolt as the adjusted pickup time.
const PREPARATION_MINUTES: std::ops::RangeInclusive<i64> = 1..=240;

fn accept_command(
    bytes: Result<Bytes, BytesRejection>,
) -> Result<(serde_json::Value, Command), MarketplaceFailure> {
    let parsed: AcceptBody = body(bytes)?;
    let minutes = match &parsed.preparation_time {
        None | Some(serde_json::Value::Null) => None,
        Some(value) => match value.as_i64().filter(|m| PREPARATION_MINUTES.contains(m)) {
            Some(m) => Some(m),
            None => {
                return Err(MarketplaceError::InvalidData(FieldErrors::one(
                    "preparation_time",
                    "The preparation_time must be a whole number of minutes from 1 to 240.",
                ))
                .into());
            }
        },
    };
    let command = Command::Act { action: Action::Accept, preparation_time: minutes, reason: None };
    Ok((serde_json::json!({"preparation_time": minutes}), command))
}

#[derive(Deserialize)]
struct RejectBody {
    reason: Option<String>,
}

const MAX_REASON_CHARS: usize = 500;

fn reject_command(
    bytes: Result<Bytes, BytesRejection>,
) -> Result<(serde_json::Value, Command), MarketplaceFailure> {
    let parsed: RejectBody = body(bytes)?;
    let mut errors = FieldErrors::new();
    let reason = errors.required("reason", parsed.reason.as_deref()).map(str::to_string);
    errors.max_len("reason", reason.as_deref(), MAX_REASON_CHARS);
    if reason.as_deref().is_some_and(|r| r.chars().any(|c| c.is_control() && c != '\n' && c != '\t')) {
        errors.add("reason", "The reason must not contain control characters.");
    }
    errors.into_result().map_err(MarketplaceError::InvalidData)?;
    let canonical = serde_json::json!({"reason": reason});
    Ok((canonical, Command::Act { action: Action::Reject, preparation_time: None, reason }))
}

/// `POST /orders/{id}/{write}`: accept (optional `preparation_time`), reject (`reason`), ready,
/// courier-picked-up, courier-at-customer, delivered, and fiscalize (the order's invoice, with the
/// caller's till, or non-cash to a B2B order's company); the others take no body.
async fn write(
    State(state): State<AppState>,
    Venue(access, _): Venue<Writes>,
    path: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
    matched: MatchedPath,
    headers: HeaderMap,
    bytes: Result<Bytes, BytesRejection>,
) -> MarketplaceResult {
    let axum::extract::Path(id) = path.map_err(|_| MarketplaceError::OrderNotFound)?;
    // The route's last segment: one of `writes()`.
    let write = matched.as_str().rsplit('/').next().unwrap_or_default();
    let action = Action::ALL.into_iter().find(|a| a.as_str() == write);
    let key = idempotency_key(&headers)?;
    let (canonical, command) = match action {
        Some(Action::Accept) => accept_command(bytes)?,
        Some(Action::Reject) => reject_command(bytes)?,
        Some(action) => {
            (serde_json::Value::Null, Command::Act { action, preparation_time: None, reason: None })
        }
        None => (serde_json::Value::Null, Command::Fiscalize),
    };
    let order_id: i64 = id.parse().map_err(|_| MarketplaceError::OrderNotFound)?;
    let request = WriteRequest {
        key,
        fingerprint: fingerprint(
            "POST",
            &format!("{PREFIX}/orders/{order_id}/{write}"),
            canonical.to_string().as_bytes(),
        ),
        order_id,
        command,
    };
    Ok(answer(state.marketplace.write(access, request, render).await?))
}

// ---------------------------------------------------------------------------------------------
// Wolt's webhook
// ---------------------------------------------------------------------------------------------

async fn webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    bytes: Result<Bytes, BytesRejection>,
) -> MarketplaceResult {
    let bytes = bytes.map_err(body_rejection)?;
    let signature = headers.get(crate::wolt::SIGNATURE_HEADER).and_then(|v| v.to_str().ok());
    let taken = state.marketplace.webhook(&bytes, signature).await?;
    ok(StatusCode::OK, TakenView { order_id: taken.order_id, duplicate: taken.duplicate })
}

// ---------------------------------------------------------------------------------------------
// The owner's settings
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct VenueView {
    id: i64,
    wolt_venue_id: String,
    name: String,
    active: bool,
    updated_at: String,
}

/// The settings, never the credentials.
#[derive(Serialize)]
struct SettingsView {
    enabled: bool,
    venue: Option<VenueView>,
    users_with_right: Vec<i64>,
    webhook_path: String,
}

fn settings_view(s: &Settings) -> SettingsView {
    SettingsView {
        enabled: s.enabled,
        venue: s.venue.as_ref().map(|v| VenueView {
            id: v.id,
            wolt_venue_id: v.wolt_venue_id.clone(),
            name: v.name.clone(),
            active: v.active,
            updated_at: local(&v.updated_at),
        }),
        users_with_right: s.users_with_right.clone(),
        webhook_path: format!("{PREFIX}/webhooks/wolt"),
    }
}

async fn settings(State(state): State<AppState>, Token(caller, _): Token<Reads>) -> MarketplaceResult {
    let found = state.marketplace.settings(&caller).await?;
    ok(StatusCode::OK, settings_view(&found))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VenueBody {
    wolt_venue_id: Option<String>,
    name: Option<String>,
    api_key: Option<String>,
    webhook_secret: Option<String>,
}

/// What is not sent is kept, so a key it does not know is refused rather than ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsBody {
    enabled: Option<bool>,
    venue: Option<VenueBody>,
    #[serde(default)]
    remove_venue: bool,
}

async fn update_settings(
    State(state): State<AppState>,
    Token(caller, _): Token<Writes>,
    bytes: Result<Bytes, BytesRejection>,
) -> MarketplaceResult {
    let parsed: SettingsBody = changes(bytes)?;
    let update = SettingsUpdate {
        enabled: parsed.enabled,
        venue: parsed.venue.map(|v| VenueInput {
            wolt_venue_id: v.wolt_venue_id.unwrap_or_default(),
            name: v.name.unwrap_or_default(),
            api_key: v.api_key.unwrap_or_default(),
            webhook_secret: v.webhook_secret.unwrap_or_default(),
        }),
        remove_venue: parsed.remove_venue,
    };
    let saved = state.marketplace.update_settings(&caller, update).await?;
    ok(StatusCode::OK, settings_view(&saved))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RightBody {
    marketplace: Option<bool>,
}

async fn set_right(
    State(state): State<AppState>,
    Token(caller, _): Token<Writes>,
    user_id: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
    bytes: Result<Bytes, BytesRejection>,
) -> MarketplaceResult {
    let user_id = user_id
        .ok()
        .and_then(|axum::extract::Path(id)| id.parse::<i64>().ok())
        .ok_or_else(|| MarketplaceError::NotFound("No such user in this company.".into()))?;
    let parsed: RightBody = changes(bytes)?;
    let granted = parsed.marketplace.ok_or_else(|| {
        MarketplaceError::InvalidData(FieldErrors::one("marketplace", "The marketplace field is required."))
    })?;
    let saved = state.marketplace.set_right(&caller, user_id, granted).await?;
    ok(StatusCode::OK, settings_view(&saved))
}
