//! Products and product categories (v1 only, as the spec keeps them there).

use axum::extract::State;
use axum::http::StatusCode;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, created, ok, ok_with};
use super::extract::{Body, PathId, Query};
use super::fields;
use super::limits::Interval;
use super::onboarding::paging;
use crate::domain::client::Patch;
use crate::domain::product::{CategoryInput, ProductInput, unit_name};
use crate::store::products::{StoredCategory, StoredProduct};

/// An amount as a JSON number. serde_json holds numbers as f64, so this is the one place an
/// amount passes through f64: exact for any price with up to 15 significant digits.
fn amount(value: Decimal) -> Value {
    value.to_f64().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number)
}

fn category_json(c: &StoredCategory) -> Value {
    json!({
        "id": c.id,
        "name": c.category.name,
        "color": c.category.color,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
    })
}

fn product_json(s: &StoredProduct) -> Value {
    let p = &s.product;
    json!({
        "id": s.id,
        "code": p.code,
        "name": p.name,
        "description": p.description,
        "last_price": amount(p.last_price),
        "cost_price": p.cost_price.map(amount),
        "vat_rate": p.vat_rate,
        "currency": p.currency,
        "service": p.service,
        "unit_code": p.unit_code,
        "unit": unit_name(&p.unit_code),
        "id_category": p.category_id,
        "category": s.category.as_ref().map(|c| json!({
            "id": c.id,
            "name": c.category.name,
            "color": c.category.color,
        })),
        "vat_exempt_type": p.vat_exempt_type,
        "created_at": s.created_at,
        "updated_at": s.updated_at,
    })
}

/// GET /products and GET /product/categories share one interval, and a call inside it is a
/// soft failure (HTTP 200, status false), as the spec's interval table says.
fn read_interval(state: &AppState, auth: &Auth) -> Result<(), ApiError> {
    auth.interval(state, Interval::Products).map_err(|e| match e {
        ApiError::Status { message, errors, .. } => {
            ApiError::Status { status: StatusCode::OK, message, errors }
        }
        other => other,
    })
}

/// POST and PUT /products have their own row in the spec's interval table: counted apart from
/// the reads, over the same configured period, and answered 429.
fn write_interval(state: &AppState, auth: &Auth) -> Result<(), ApiError> {
    state
        .limiters
        .interval(Interval::Products, &format!("u:{}:product-writes", auth.0.user.id))
        .map_err(|d| ApiError::too_soon(d.retry_after))
}

#[derive(Deserialize)]
pub struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
}

/// The catalog: `data` is the array itself, `pagination` sits beside it. Without a limit the
/// whole catalog comes back and `limit` is null.
pub async fn list(State(state): State<AppState>, auth: Auth, Query(q): Query<ListQuery>) -> ApiResult {
    read_interval(&state, &auth)?;
    let (limit, offset) = match q.limit {
        Some(limit) => {
            let (limit, offset) = paging(Some(limit), q.offset, 500)?;
            (Some(limit), offset)
        }
        None => (None, paging(None, q.offset, 500)?.1),
    };
    let (items, total) = state.services.products(&auth.0, limit, offset).await?;
    let items: Vec<Value> = items.iter().map(product_json).collect();
    let pagination = json!({"records": items.len(), "total": total, "limit": limit, "offset": offset});
    ok_with(Value::Array(items), json!({"pagination": pagination}))
}

#[derive(Deserialize)]
pub struct ProductBody {
    #[serde(default, deserialize_with = "fields::text")]
    code: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    description: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    last_price: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    cost_price: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    vat_rate: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    currency: Patch<String>,
    #[serde(default, deserialize_with = "fields::boolean")]
    service: Patch<bool>,
    #[serde(default, deserialize_with = "fields::text")]
    unit_code: Patch<String>,
    #[serde(default, deserialize_with = "fields::integer")]
    id_category: Patch<i64>,
    #[serde(default, deserialize_with = "fields::text")]
    vat_exempt_type: Patch<String>,
}

impl From<ProductBody> for ProductInput {
    fn from(b: ProductBody) -> Self {
        ProductInput {
            code: b.code,
            name: b.name.flatten(),
            description: b.description,
            last_price: b.last_price.flatten(),
            cost_price: b.cost_price,
            vat_rate: b.vat_rate.flatten(),
            currency: b.currency,
            service: b.service,
            unit_code: b.unit_code,
            id_category: b.id_category,
            vat_exempt_type: b.vat_exempt_type,
        }
    }
}

pub async fn create(State(state): State<AppState>, auth: Auth, Body(b): Body<ProductBody>) -> ApiResult {
    write_interval(&state, &auth)?;
    let product = state.services.save_product(&auth.0, None, b.into()).await?;
    created(json!({"product": product_json(&product)}))
}

pub async fn update(
    State(state): State<AppState>,
    auth: Auth,
    PathId(id): PathId,
    Body(b): Body<ProductBody>,
) -> ApiResult {
    write_interval(&state, &auth)?;
    let product = state.services.save_product(&auth.0, Some(id), b.into()).await?;
    ok(json!({"product": product_json(&product)}))
}

pub async fn details(State(state): State<AppState>, Auth(caller): Auth, PathId(id): PathId) -> ApiResult {
    let product = state.services.product(&caller, id).await?;
    ok(json!({"product": product_json(&product)}))
}

// --- categories ------------------------------------------------------------------------------

pub async fn categories(State(state): State<AppState>, auth: Auth) -> ApiResult {
    read_interval(&state, &auth)?;
    let items = state.services.categories(&auth.0).await?;
    ok(json!({"items": items.iter().map(category_json).collect::<Vec<_>>()}))
}

#[derive(Deserialize)]
pub struct CategoryBody {
    #[serde(default, deserialize_with = "fields::text")]
    name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    color: Patch<String>,
}

impl From<CategoryBody> for CategoryInput {
    fn from(b: CategoryBody) -> Self {
        CategoryInput { name: b.name.flatten(), color: b.color }
    }
}

pub async fn create_category(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<CategoryBody>,
) -> ApiResult {
    let category = state.services.save_category(&caller, None, b.into()).await?;
    created(json!({"category": category_json(&category)}))
}

pub async fn update_category(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Body(b): Body<CategoryBody>,
) -> ApiResult {
    let category = state.services.save_category(&caller, Some(id), b.into()).await?;
    ok(json!({"category": category_json(&category)}))
}

#[derive(Deserialize)]
pub struct ImportQuery {
    apply: Option<String>,
}

/// `POST /api/v1/products/import`: a CSV file of products (the body, UTF-8), matched by `code`.
/// Without `apply=true` it only checks the file and says what each line would do (a preview);
/// with it every line is written in one transaction. A bad line is a 422 naming
/// `line.<n>.<column>`, and nothing is written until every line is right. The owner (or a
/// manager) only.
pub async fn import(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<ImportQuery>,
    body: axum::body::Bytes,
) -> ApiResult {
    let apply = match q.apply.as_deref().map(str::trim) {
        None | Some("") | Some("false") | Some("0") => false,
        Some("true") | Some("1") => true,
        Some(_) => return Err(ApiError::field("apply", "The apply must be true or false.")),
    };
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::field("file", "The file must be UTF-8 text (save it as CSV UTF-8)."))?;
    let rows = crate::domain::product_import::parse(text).map_err(ApiError::Validation)?;
    let plans = state.services.import_products(&caller, rows, apply).await?;
    let creates = plans.iter().filter(|p| p.id.is_none()).count();
    let rows: Vec<Value> = plans
        .iter()
        .map(|p| {
            json!({
                "line": p.line,
                "action": if p.id.is_some() { "update" } else { "create" },
                "id": p.id,
                "code": p.product.code,
                "name": p.product.name,
                "last_price": amount(p.product.last_price),
                "vat_rate": p.product.vat_rate,
            })
        })
        .collect();
    ok(json!({"applied": apply, "creates": creates, "updates": plans.len() - creates, "rows": rows}))
}
