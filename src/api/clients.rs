//! Clients: the look-up of a business in the fiscal register.

use axum::extract::State;
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiResult, ok};
use super::extract::Query;

#[derive(Deserialize)]
pub struct SearchQuery {
    nipt: Option<String>,
}

pub async fn search(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<SearchQuery>,
) -> ApiResult {
    let taxpayer = state.services.find_taxpayer(&caller, q.nipt).await?;
    ok(json!({
        "nipt": taxpayer.tin,
        "name": taxpayer.name,
        "address": taxpayer.address,
        "city": taxpayer.town,
        "country": taxpayer.country,
        "verified": true,
    }))
}
