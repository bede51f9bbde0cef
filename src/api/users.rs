//! The company's users and their tokens: the owner's list, a token rotated by the owner (which
//! also restores a revoked user), a user's access revoked, and a user's own token rotated
//! (`GET /api/v1/users`, `/api/v1/users/{id}/token`, `/api/v1/users/me/token`). Who may call
//! which is `permissions`' table.

use axum::extract::State;
use axum::http::HeaderMap;
use serde::Serialize;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiResult, created, ok};
use super::extract::PathId;
use super::onboarding::{UserView, WithToken};
use super::pairing::pairing_card;
use crate::domain::time::{local_text, parse_stored};
use crate::store::accounts::{Listed, User};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokenView {
    /// The token's first characters; null for one made before roles, until it is rotated.
    prefix: Option<String>,
    revoked: bool,
    revoked_at: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LastUseView {
    at: Option<String>,
    ip: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListedView {
    id: i64,
    name: String,
    email: String,
    role: &'static str,
    branch_id: Option<i64>,
    operator_code: Option<String>,
    fiscal_tcr_code: Option<String>,
    token: TokenView,
    last_use: Option<LastUseView>,
    created_at: Option<String>,
}

fn local(stored: &str) -> Option<String> {
    parse_stored(stored).map(local_text)
}

impl ListedView {
    fn of(l: Listed) -> Self {
        ListedView {
            id: l.user.id,
            name: l.user.name,
            email: l.user.email,
            role: l.user.role.as_str(),
            branch_id: l.user.business_unit_id,
            operator_code: l.user.operator_code,
            fiscal_tcr_code: l.user.tcr_code,
            token: TokenView {
                prefix: l.token_prefix,
                revoked: l.token_revoked_at.is_some(),
                revoked_at: l.token_revoked_at.as_deref().and_then(local),
            },
            last_use: l.last_use.map(|u| LastUseView { at: local(&u.at), ip: u.ip }),
            created_at: local(&l.created_at),
        }
    }
}

#[derive(Serialize)]
struct Users {
    items: Vec<ListedView>,
}

pub async fn list(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let listed = state.services.people().list_users(&caller).await?;
    ok(Users { items: listed.into_iter().map(ListedView::of).collect() })
}

/// The user with the new token (shown this once), and its pairing card to print for the POS
/// that will use it.
fn with_token(state: &AppState, headers: &HeaderMap, user: &User, token: &str) -> ApiResult {
    let card = pairing_card(state, headers, user, token)?;
    created(Rotated { user: WithToken { user: user.into(), token }, pairing_card: card })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rotated<'a, C> {
    user: WithToken<'a>,
    pairing_card: C,
}

/// A user whose access was just taken away: their token, their sessions, their sign-in.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RevokedUser<'a> {
    #[serde(flatten)]
    user: UserView<'a>,
    token_revoked: bool,
    /// How many of the user's signed-in pages were signed out.
    sessions_ended: usize,
}

#[derive(Serialize)]
struct Revoked<'a> {
    user: RevokedUser<'a>,
}

pub async fn rotate(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    headers: HeaderMap,
) -> ApiResult {
    let (user, token) = state.services.people().rotate_token(&caller, id).await?;
    with_token(&state, &headers, &user, &token)
}

pub async fn rotate_own(State(state): State<AppState>, Auth(caller): Auth, headers: HeaderMap) -> ApiResult {
    let (user, token) = state.services.people().rotate_token(&caller, caller.user.id).await?;
    with_token(&state, &headers, &user, &token)
}

/// `DELETE /api/v1/users/{id}/token`: the user is out at once, everywhere, until an owner gives
/// them a new token.
pub async fn revoke(State(state): State<AppState>, Auth(caller): Auth, PathId(id): PathId) -> ApiResult {
    let (user, sessions_ended) = state.services.people().revoke_access(&caller, id).await?;
    ok(Revoked { user: RevokedUser { user: (&user).into(), token_revoked: true, sessions_ended } })
}
