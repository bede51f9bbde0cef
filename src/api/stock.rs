//! Stock: the spec's mobile stock list, and the owner's routes Arka adds (settings, counts,
//! deliveries and corrections, an article's quantities and history).

use axum::extract::State;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, created, ok};
use super::extract::{Body, Changes, PathId, Query};
use super::fields;
use super::onboarding::{PageView, paging};
use crate::domain::product::unit_name;
use crate::domain::stock::{AdjustmentInput, parse_ids};
use crate::domain::time::{local_text, parse_stored};
use crate::services::stock::SettingsUpdate;
use crate::store::stock::{Article, Movement, Settings};

#[derive(Serialize)]
struct ProductView {
    id: i64,
    code: String,
    name: String,
    unit: String,
}

fn product_view(a: &Article) -> ProductView {
    ProductView {
        id: a.id,
        code: a.code.clone(),
        name: a.name.clone(),
        unit: unit_name(&a.unit_code).to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// The mobile stock list
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize)]
pub struct StockQuery {
    ids: Option<String>,
}

#[derive(Serialize)]
struct WarehouseView {
    id: i64,
    name: String,
}

#[derive(Serialize)]
struct ShelfView {
    #[serde(flatten)]
    product: ProductView,
    quantity: Decimal,
}

#[derive(Serialize)]
struct MobileStockView {
    enabled: bool,
    enforce: bool,
    warehouse: WarehouseView,
    products: Vec<ShelfView>,
}

pub async fn mobile_stock(
    State(state): State<AppState>,
    auth: Auth,
    Query(q): Query<StockQuery>,
) -> ApiResult {
    let ids = parse_ids(q.ids.as_deref()).map_err(ApiError::Validation)?;
    let stock = state.services.catalog().mobile_stock(&auth.0, ids).await?;
    ok(MobileStockView {
        enabled: stock.settings.enabled,
        enforce: stock.settings.enforce,
        warehouse: WarehouseView { id: stock.unit_id, name: stock.unit_name },
        products: stock
            .shelves
            .iter()
            .map(|s| ShelfView { product: product_view(&s.article), quantity: s.quantity })
            .collect(),
    })
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct SettingsView {
    enabled: bool,
    enforce: bool,
}

fn settings_view(s: Settings) -> SettingsView {
    SettingsView { enabled: s.enabled, enforce: s.enforce }
}

/// What is not sent is kept, so a key it does not know is refused rather than ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsBody {
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    enabled: Option<bool>,
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    enforce: Option<bool>,
}

pub async fn settings(State(state): State<AppState>, auth: Auth) -> ApiResult {
    ok(settings_view(state.services.catalog().stock_settings(&auth.0).await?))
}

pub async fn update_settings(
    State(state): State<AppState>,
    auth: Auth,
    Changes(b): Changes<SettingsBody>,
) -> ApiResult {
    let update = SettingsUpdate { enabled: b.enabled, enforce: b.enforce };
    ok(settings_view(state.services.catalog().update_stock_settings(&auth.0, update).await?))
}

// ---------------------------------------------------------------------------------------------
// Adjustments and history
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct UnitView {
    id: i64,
    name: String,
}

#[derive(Serialize)]
struct DocumentView {
    kind: &'static str,
    id: i64,
}

#[derive(Serialize)]
struct UserView {
    id: i64,
    name: Option<String>,
}

#[derive(Serialize)]
struct MovementView {
    id: i64,
    business_unit: UnitView,
    reason: &'static str,
    change: Decimal,
    quantity_after: Decimal,
    note: Option<String>,
    document: Option<DocumentView>,
    user: Option<UserView>,
    created_at: String,
}

fn movement_view(m: &Movement) -> MovementView {
    MovementView {
        id: m.id,
        business_unit: UnitView { id: m.business_unit_id, name: m.unit_name.clone() },
        reason: m.reason.as_str(),
        change: m.change,
        quantity_after: m.quantity_after,
        note: m.note.clone(),
        document: m.document.map(|(kind, id)| DocumentView { kind: kind.as_str(), id }),
        user: m.user_id.map(|id| UserView { id, name: m.user_name.clone() }),
        created_at: parse_stored(&m.created_at).map(local_text).unwrap_or_else(|| m.created_at.clone()),
    }
}

#[derive(Deserialize)]
pub struct AdjustmentBody {
    kind: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    quantity: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_integer")]
    business_unit_id: Option<i64>,
    note: Option<String>,
}

#[derive(Serialize)]
struct AdjustedView {
    product: ProductView,
    movement: MovementView,
}

pub async fn adjust(
    State(state): State<AppState>,
    auth: Auth,
    PathId(id): PathId,
    Body(b): Body<AdjustmentBody>,
) -> ApiResult {
    let input = AdjustmentInput { kind: b.kind, quantity: b.quantity, note: b.note };
    let adjusted = state.services.catalog().adjust_stock(&auth.0, id, b.business_unit_id, input).await?;
    created(AdjustedView {
        product: product_view(&adjusted.article),
        movement: movement_view(&adjusted.movement),
    })
}

#[derive(Deserialize)]
pub struct HistoryQuery {
    business_unit_id: Option<i64>,
    limit: Option<i64>,
    offset: Option<i64>,
}

#[derive(Serialize)]
struct LevelView {
    business_unit: UnitView,
    quantity: Decimal,
}

#[derive(Serialize)]
struct HistoryView {
    product: ProductView,
    levels: Vec<LevelView>,
    movements: Vec<MovementView>,
    pagination: PageView,
}

pub async fn history(
    State(state): State<AppState>,
    auth: Auth,
    PathId(id): PathId,
    Query(q): Query<HistoryQuery>,
) -> ApiResult {
    let (limit, offset) = paging(q.limit, q.offset, 500)?;
    let history =
        state.services.catalog().stock_history(&auth.0, id, q.business_unit_id, limit, offset).await?;
    let movements: Vec<MovementView> = history.movements.iter().map(movement_view).collect();
    ok(HistoryView {
        product: product_view(&history.article),
        levels: history
            .levels
            .iter()
            .map(|l| LevelView {
                business_unit: UnitView { id: l.business_unit_id, name: l.unit_name.clone() },
                quantity: l.quantity,
            })
            .collect(),
        pagination: PageView { records: movements.len(), limit, offset },
        movements,
    })
}
