//! The routes a shop calls with its token (`/hq/v1/*`): its batches, its rows back for a
//! restore, the business's non-cash numbers, the central catalog, its heartbeat, and a restored
//! box taking the shop over. A shop is its token's, never the body's: the NUIS it numbers and
//! reads the catalog of is the shop's own record, and only the shop's box is heard.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use chrono::Datelike;
use serde::Deserialize;
use serde_json::json;

use super::{HqState, OwnerAuth, bearer, failed};
use crate::store::db::{self, Shop};
use crate::store::numbering::{Given, MAX_ORD_NUM};
use crate::store::shops::BoxCheck;
use arka_core::domain::validation::FieldErrors;
use arka_core::wire::{Acked, BOX_HEADER, Batch, Heartbeat, NumberAsk, NumberGiven, RowsPage, key_columns};
use arka_edge::error::{ApiError, ApiResult, ok};
use arka_edge::extract::{Body, Query};

/// Rows per page of a restore.
const ROWS_PER_PAGE: i64 = 5000;
/// Central products per answer of the catalog's pull.
const PRODUCTS_PER_PAGE: i64 = 1000;
/// The longest box identity a shop may send.
const MAX_BOX_ID: usize = 64;

/// A shop calling with its token, whichever box it calls from (a restored box taking over).
pub struct ShopToken(pub Shop);

impl FromRequestParts<HqState> for ShopToken {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &HqState) -> Result<Self, Self::Rejection> {
        let token = bearer(&parts.headers).ok_or(ApiError::Unauthenticated)?;
        match db::shop_by_token(&state.pool, token).await.map_err(failed)? {
            Some(shop) => Ok(ShopToken(shop)),
            None => Err(ApiError::Unauthenticated),
        }
    }
}

/// A shop calling with its token from its own box: it writes and reads its own rows only.
pub struct ShopAuth {
    pub shop: Shop,
    pub box_id: String,
}

/// The box a call names (`x-arka-box`), or a 422 naming the header.
fn box_of(headers: &HeaderMap) -> Result<String, ApiError> {
    let named = headers.get(BOX_HEADER).and_then(|v| v.to_str().ok()).map(str::trim).unwrap_or_default();
    if named.is_empty()
        || named.len() > MAX_BOX_ID
        || !named.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(ApiError::field(
            BOX_HEADER,
            "Every call of a shop names its box (letters, digits and -).",
        ));
    }
    Ok(named.to_string())
}

impl FromRequestParts<HqState> for ShopAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &HqState) -> Result<Self, Self::Rejection> {
        let ShopToken(shop) = ShopToken::from_request_parts(parts, state).await?;
        let box_id = box_of(&parts.headers)?;
        let address = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| peer.ip().to_string())
            .unwrap_or_default();
        match crate::store::shops::check_box(&state.pool, &shop, &box_id, &address).await.map_err(failed)? {
            BoxCheck::Ours => Ok(ShopAuth { shop, box_id }),
            BoxCheck::Refused { reason } => Err(ApiError::status(
                StatusCode::CONFLICT,
                format!(
                    "The head office refuses this box for the shop \"{}\": {reason}. Nothing was taken; the \
                     owner sees this box at the head office.",
                    shop.name
                ),
            )),
        }
    }
}

pub async fn sync(State(state): State<HqState>, auth: ShopAuth, Body(batch): Body<Batch>) -> ApiResult {
    match crate::store::apply::apply(&state.pool, &auth.shop, &batch).await.map_err(failed)? {
        crate::store::apply::Applied::Acked(acked) => Ok(axum::Json(Acked { acked }).into_response()),
        crate::store::apply::Applied::Invalid(invalid) => {
            Err(ApiError::field(&invalid.field, invalid.message))
        }
        crate::store::apply::Applied::OtherBusiness { entry, nuis } => Err(ApiError::status(
            StatusCode::CONFLICT,
            format!(
                "entries.{entry}: this box's company (NUIS {nuis}) is not the business of the shop \"{}\" ({}): \
                 nothing was taken. The box has another shop's token.",
                auth.shop.name,
                auth.shop.nuis.as_deref().unwrap_or_default()
            ),
        )),
    }
}

pub async fn acked(auth: ShopAuth) -> ApiResult {
    Ok(axum::Json(Acked { acked: auth.shop.acked_seq }).into_response())
}

/// The shop's business: its own record, never the body's. A body's NUIS, when sent, must be it.
fn business_of(shop: &Shop, sent: Option<&str>) -> Result<String, ApiError> {
    let Some(own) = shop.nuis.clone() else {
        return Err(ApiError::status(
            StatusCode::CONFLICT,
            "The head office does not know this shop's business (NUIS) yet: it learns it from `arka hq shops add \
             --nuis` or from the shop's first shipped company.",
        ));
    };
    match sent.map(str::trim) {
        Some("") => Err(ApiError::field("nuis", "The nuis is required.")),
        Some(sent) if !sent.eq_ignore_ascii_case(&own) => {
            Err(ApiError::status(StatusCode::FORBIDDEN, "The NUIS is not this shop's business."))
        }
        _ => Ok(own),
    }
}

/// Every field of a number's ask that is wrong: the year is this year or its neighbour, the
/// document's key is short text, `at_least` a number the CIS takes.
fn checked_ask(ask: &NumberAsk) -> Result<(), ApiError> {
    let mut errors = FieldErrors::new();
    let this_year = chrono::Utc::now().with_timezone(&chrono_tz::Europe::Tirane).year();
    if (ask.year - this_year).abs() > 1 {
        errors.add("year", format!("The year must be {} to {}.", this_year - 1, this_year + 1));
    }
    let held_for = ask.held_for.trim();
    if held_for.is_empty() || held_for.chars().count() > 255 || held_for.chars().any(char::is_control) {
        errors.add("held_for", "The held_for is required, at most 255 characters.");
    }
    if !(0..=MAX_ORD_NUM).contains(&ask.at_least) {
        errors.add(
            "at_least",
            format!("The at_least must be from 0 to {MAX_ORD_NUM}, the CIS's largest number."),
        );
    }
    errors.into_result().map_err(ApiError::Validation)
}

/// What a box's number ask comes to once checked: its business is the shop's.
fn checked<'a>(auth: &'a ShopAuth, ask: &'a NumberAsk, nuis: &'a str) -> crate::store::numbering::Ask<'a> {
    crate::store::numbering::Ask {
        shop_id: auth.shop.id,
        box_id: &auth.box_id,
        nuis,
        year: ask.year,
        held_for: ask.held_for.trim(),
    }
}

pub async fn reserve_noncash(
    State(state): State<HqState>,
    auth: ShopAuth,
    Body(ask): Body<NumberAsk>,
) -> ApiResult {
    let nuis = business_of(&auth.shop, Some(&ask.nuis))?;
    checked_ask(&ask)?;
    let given =
        crate::store::numbering::reserve(&state.pool, checked(&auth, &ask, &nuis), ask.at_least.max(1))
            .await
            .map_err(failed)?;
    let year = ask.year;
    match given {
        Given::Number(ord_num) => Ok(axum::Json(NumberGiven { ord_num }).into_response()),
        Given::Full => Err(ApiError::status(
            StatusCode::CONFLICT,
            format!("The business's non-cash numbers of {year} reached {MAX_ORD_NUM}, the CIS's largest."),
        )),
        Given::HeldByReplacedBox(ord_num) => Err(ApiError::status(
            StatusCode::CONFLICT,
            format!(
                "This document was numbered {ord_num}/{year} by the box this one replaced, and it never reached the \
                 head office: it may be at the CIS. It is not numbered again until the owner resolves that number \
                 (arka hq numbers held)."
            ),
        )),
    }
}

pub async fn release_noncash(
    State(state): State<HqState>,
    auth: ShopAuth,
    Body(ask): Body<NumberAsk>,
) -> ApiResult {
    let nuis = business_of(&auth.shop, Some(&ask.nuis))?;
    checked_ask(&ask)?;
    let released =
        crate::store::numbering::release(&state.pool, checked(&auth, &ask, &nuis)).await.map_err(failed)?;
    Ok(axum::Json(json!({"released": released})).into_response())
}

#[derive(Debug, Deserialize)]
pub struct ProductsParams {
    nuis: Option<String>,
    after: Option<i64>,
}

/// `GET /hq/v1/products`: with a shop's token, the products of its own business changed after
/// the version it holds (`after`), a page at a time; with an owner's, every product the head
/// office sets (of `nuis`, or of every business).
pub async fn central_products(
    State(state): State<HqState>,
    parts: Parts,
    Query(p): Query<ProductsParams>,
) -> ApiResult {
    let mut parts = parts;
    let token = bearer(&parts.headers).ok_or(ApiError::Unauthenticated)?;
    if db::owner(&state.pool, token).await.map_err(failed)?.is_some() {
        let nuis = p.nuis.as_deref().map(str::trim).filter(|n| !n.is_empty());
        return ok(crate::store::catalog::list(&state.pool, nuis).await.map_err(failed)?);
    }
    let auth = ShopAuth::from_request_parts(&mut parts, &state).await?;
    let nuis = business_of(&auth.shop, p.nuis.as_deref())?;
    let after = p.after.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::field("after", "The after must be a version from 0."));
    }
    let changed =
        crate::store::catalog::changed(&state.pool, &nuis, after, PRODUCTS_PER_PAGE).await.map_err(failed)?;
    Ok(axum::Json(changed).into_response())
}

/// `DELETE /hq/v1/products/{code}?nuis=`: the owner withdraws a product; the shops keep it as
/// their own.
pub async fn withdraw_product(
    State(state): State<HqState>,
    _owner: OwnerAuth,
    axum::extract::Path(code): axum::extract::Path<String>,
    Query(p): Query<ProductsParams>,
) -> ApiResult {
    let nuis = p.nuis.as_deref().map(str::trim).unwrap_or_default();
    if nuis.is_empty() {
        return Err(ApiError::field("nuis", "The nuis is required."));
    }
    match crate::store::catalog::withdraw(&state.pool, nuis, &code).await.map_err(failed)? {
        Some(version) => ok(json!({"nuis": nuis, "code": code, "withdrawn": true, "version": version})),
        None => Err(ApiError::not_found("Product")),
    }
}

#[derive(Debug, Deserialize)]
pub struct RowsParams {
    table: Option<String>,
    after: Option<String>,
}

pub async fn rows(State(state): State<HqState>, auth: ShopAuth, Query(p): Query<RowsParams>) -> ApiResult {
    let table = p.table.unwrap_or_default();
    if key_columns(&table).is_none() {
        return Err(ApiError::field("table", "The table is not one a shop ships."));
    }
    let (found, next) = db::rows(&state.pool, auth.shop.id, &table, p.after.as_deref(), ROWS_PER_PAGE)
        .await
        .map_err(failed)?;
    let rows = found
        .into_iter()
        .filter_map(|row| match row {
            serde_json::Value::Object(map) => Some(map),
            _ => None,
        })
        .collect();
    Ok(axum::Json(RowsPage { acked: auth.shop.acked_seq, rows, next }).into_response())
}

/// `POST /hq/v1/heartbeat`: the shop is alive, and says what waits at it.
pub async fn heartbeat(
    State(state): State<HqState>,
    auth: ShopAuth,
    Body(said): Body<Heartbeat>,
) -> ApiResult {
    let said = serde_json::to_value(&said).map_err(|e| failed(crate::Error::Read(e.to_string())))?;
    crate::store::shops::heard(&state.pool, auth.shop.id, &said).await.map_err(failed)?;
    Ok(axum::Json(Acked { acked: auth.shop.acked_seq }).into_response())
}

/// `POST /hq/v1/boxes/take-over`: the calling box (restored from the HQ) ships for the shop
/// from now on; the box before it is refused.
pub async fn take_over(
    State(state): State<HqState>,
    ShopToken(shop): ShopToken,
    headers: HeaderMap,
) -> ApiResult {
    let box_id = box_of(&headers)?;
    crate::store::shops::take_over(&state.pool, &shop, &box_id).await.map_err(failed)?;
    Ok(axum::Json(Acked { acked: shop.acked_seq }).into_response())
}
