//! Products and product categories (v1 only, as the spec keeps them there).

use axum::extract::State;
use axum::http::StatusCode;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

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

/// A category as its own routes answer it.
#[derive(Serialize)]
struct CategoryView<'a> {
    id: i64,
    name: &'a str,
    color: Option<&'a str>,
    created_at: &'a str,
    updated_at: &'a str,
}

impl<'a> From<&'a StoredCategory> for CategoryView<'a> {
    fn from(c: &'a StoredCategory) -> Self {
        CategoryView {
            id: c.id,
            name: &c.category.name,
            color: c.category.color.as_deref(),
            created_at: &c.created_at,
            updated_at: &c.updated_at,
        }
    }
}

/// A product's category, inside the product.
#[derive(Serialize)]
struct ProductCategory<'a> {
    id: i64,
    name: &'a str,
    color: Option<&'a str>,
}

/// A product as every product route answers it; amounts are JSON numbers.
#[derive(Serialize)]
struct ProductView<'a> {
    id: i64,
    code: Option<&'a str>,
    name: &'a str,
    description: &'a str,
    last_price: Decimal,
    cost_price: Option<Decimal>,
    vat_rate: &'a str,
    currency: &'a str,
    service: bool,
    unit_code: &'a str,
    unit: &'a str,
    id_category: Option<i64>,
    category: Option<ProductCategory<'a>>,
    vat_exempt_type: Option<&'a str>,
    created_at: &'a str,
    updated_at: &'a str,
}

impl<'a> From<&'a StoredProduct> for ProductView<'a> {
    fn from(s: &'a StoredProduct) -> Self {
        let p = &s.product;
        ProductView {
            id: s.id,
            code: p.code.as_deref(),
            name: &p.name,
            description: &p.description,
            last_price: p.last_price,
            cost_price: p.cost_price,
            vat_rate: &p.vat_rate,
            currency: &p.currency,
            service: p.service,
            unit_code: &p.unit_code,
            unit: unit_name(&p.unit_code),
            id_category: p.category_id,
            category: s.category.as_ref().map(|c| ProductCategory {
                id: c.id,
                name: &c.category.name,
                color: c.category.color.as_deref(),
            }),
            vat_exempt_type: p.vat_exempt_type.as_deref(),
            created_at: &s.created_at,
            updated_at: &s.updated_at,
        }
    }
}

/// `data` of a route answering one product.
#[derive(Serialize)]
struct OneProduct<'a> {
    product: ProductView<'a>,
}

impl<'a> OneProduct<'a> {
    fn of(product: &'a StoredProduct) -> Self {
        OneProduct { product: product.into() }
    }
}

/// `data` of a route answering one category.
#[derive(Serialize)]
struct OneCategory<'a> {
    category: CategoryView<'a>,
}

#[derive(Serialize)]
struct Categories<'a> {
    items: Vec<CategoryView<'a>>,
}

/// Beside the catalog's `data`: where the page sits in the whole catalog.
#[derive(Serialize)]
struct Paginated {
    pagination: Pagination,
}

#[derive(Serialize)]
struct Pagination {
    records: usize,
    total: i64,
    limit: Option<i64>,
    offset: i64,
}

/// What an import did (or would do) to one line of the file.
#[derive(Serialize)]
struct ImportRow<'a> {
    line: usize,
    action: &'static str,
    id: Option<i64>,
    code: Option<&'a str>,
    name: &'a str,
    last_price: Decimal,
    vat_rate: &'a str,
}

#[derive(Serialize)]
struct Imported<'a> {
    applied: bool,
    creates: usize,
    updates: usize,
    rows: Vec<ImportRow<'a>>,
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
    auth.interval_as(state, Interval::Products, &format!("u:{}:product-writes", auth.0.user.id))
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
    let (items, total) = state.services.catalog().products(&auth.0, limit, offset).await?;
    let items: Vec<ProductView> = items.iter().map(ProductView::from).collect();
    let pagination = Pagination { records: items.len(), total, limit, offset };
    ok_with(items, Paginated { pagination })
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
    let product = state.services.catalog().save_product(&auth.0, None, b.into()).await?;
    created(OneProduct::of(&product))
}

pub async fn update(
    State(state): State<AppState>,
    auth: Auth,
    PathId(id): PathId,
    Body(b): Body<ProductBody>,
) -> ApiResult {
    write_interval(&state, &auth)?;
    let product = state.services.catalog().save_product(&auth.0, Some(id), b.into()).await?;
    ok(OneProduct::of(&product))
}

pub async fn details(State(state): State<AppState>, Auth(caller): Auth, PathId(id): PathId) -> ApiResult {
    let product = state.services.catalog().product(&caller, id).await?;
    ok(OneProduct::of(&product))
}

// --- categories ------------------------------------------------------------------------------

pub async fn categories(State(state): State<AppState>, auth: Auth) -> ApiResult {
    read_interval(&state, &auth)?;
    let items = state.services.catalog().categories(&auth.0).await?;
    ok(Categories { items: items.iter().map(CategoryView::from).collect() })
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
    let category = state.services.catalog().save_category(&caller, None, b.into()).await?;
    created(OneCategory { category: (&category).into() })
}

pub async fn update_category(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Body(b): Body<CategoryBody>,
) -> ApiResult {
    let category = state.services.catalog().save_category(&caller, Some(id), b.into()).await?;
    ok(OneCategory { category: (&category).into() })
}

#[derive(Deserialize)]
pub struct ImportQuery {
    apply: Option<String>,
}

/// `POST /api/v1/products/import`: a CSV file of products (the body, UTF-8), matched by `code`.
/// Without `apply=true` (`apply` absent, or `false`; anything else is 422) it only checks the
/// file and says what each line would do (a preview); with it every line is written in one
/// transaction. A bad line is a 422 naming `line.<n>.<column>`, and nothing is written until
/// every line is right. The owner (or a manager) only.
pub async fn import(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<ImportQuery>,
    body: axum::body::Bytes,
) -> ApiResult {
    let apply = match q.apply.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => return Err(ApiError::field("apply", "The apply must be true or false.")),
    };
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::field("file", "The file must be UTF-8 text (save it as CSV UTF-8)."))?;
    let rows = crate::domain::product_import::parse(text).map_err(ApiError::Validation)?;
    let plans = state.services.catalog().import_products(&caller, rows, apply).await?;
    let creates = plans.iter().filter(|p| p.id.is_none()).count();
    let rows = plans
        .iter()
        .map(|p| ImportRow {
            line: p.line,
            action: if p.id.is_some() { "update" } else { "create" },
            id: p.id,
            code: p.product.code.as_deref(),
            name: &p.product.name,
            last_price: p.product.last_price,
            vat_rate: &p.product.vat_rate,
        })
        .collect();
    ok(Imported { applied: apply, creates, updates: plans.len() - creates, rows })
}
