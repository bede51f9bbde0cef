//! People at the owner's page: sign-in with e-mail and password (a session cookie), who is
//! signed in, sign-out, passwords (one's own, the owner's reset, the box's one-time code), each
//! person's own profile, and guesses slowed per account and address (`domain::throttle`).
//!
//! The session cookie is a random id (only its hash is stored), HttpOnly and SameSite=Strict,
//! Secure when the server speaks HTTPS. Every change made with it carries `X-CSRF-Token`, a
//! hash of the id the page reads from `GET /api/v1/session` (checked in `auth::identify`).
//! The session speaks as the user's token does, so every route and limit applies the same.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::{Auth, SessionAuth};
use super::error::{ApiError, ApiResult, ok};
use super::extract::{Body, PathId};
use super::session::{SESSION_COOKIE, csrf_token};
use crate::config::BoxPeers;
use crate::domain::role::Role;
use crate::domain::throttle::{self, Secret, Throttle};
use crate::services::people::{Profile, ProfileUpdate, Refused, Session, Via};
use crate::store::accounts::{Caller, User};

/// What the people routes and the setup wizard need beside the services.
pub struct People {
    /// `--session-idle`.
    pub session_idle: Duration,
    /// The server speaks HTTPS: cookies are Secure, addresses are https.
    pub https: bool,
    /// The TLS certificate's SHA-256 fingerprint (AB:CD:...), when HTTPS is on.
    pub tls_fingerprint: Option<String>,
    /// `--setup-from-box`.
    pub setup_from_box: BoxPeers,
    /// Guesses at passwords, reset codes and the setup code, per secret and address.
    pub throttle: Mutex<Throttle>,
    /// The page's backups (`backups`).
    pub backups: super::backups::Backups,
}

fn cookie(people: &People, value: &str, max_age: Option<u64>) -> Option<HeaderValue> {
    let mut text = format!("{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict");
    if people.https {
        text.push_str("; Secure");
    }
    if let Some(age) = max_age {
        text.push_str(&format!("; Max-Age={age}"));
    }
    HeaderValue::from_str(&text).ok()
}

/// Adds the session's cookie to an answer, and keeps the answer out of every cache.
pub(super) fn with_session(mut response: Response, people: &People, session_id: &str) -> Response {
    let headers = response.headers_mut();
    if let Some(value) = cookie(people, session_id, None) {
        headers.append(header::SET_COOKIE, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn without_session(mut response: Response, people: &People) -> Response {
    if let Some(value) = cookie(people, "", Some(0)) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UserView {
    id: i64,
    name: String,
    email: String,
    /// `owner`, `manager` or `cashier`: what the page shows and offers.
    role: &'static str,
    operator_code: Option<String>,
    fiscal_tcr_code: Option<String>,
    branch_id: Option<i64>,
}

impl UserView {
    pub(super) fn of(u: &User) -> UserView {
        UserView {
            id: u.id,
            name: u.name.clone(),
            email: u.email.clone(),
            role: u.role.as_str(),
            operator_code: u.operator_code.clone(),
            fiscal_tcr_code: u.tcr_code.clone(),
            branch_id: u.business_unit_id,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CompanyView {
    id: i64,
    nuis: String,
    name: String,
    issuer_in_vat: bool,
}

/// Who is signed in, and how.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SignedInView {
    user: UserView,
    company: CompanyView,
    /// The user is one of the company's owners (`user.role` says which role).
    owner: bool,
    /// `session` (the page's cookie) or `token` (a bearer token).
    via: &'static str,
    /// What `X-CSRF-Token` must hold on every change made with the session (session only).
    csrf_token: Option<String>,
}

pub(super) fn signed_in_view(caller: &Caller, csrf_token: Option<String>) -> SignedInView {
    SignedInView {
        user: UserView::of(&caller.user),
        company: CompanyView {
            id: caller.company.id,
            nuis: caller.company.nuis.clone(),
            name: caller.company.name.clone(),
            issuer_in_vat: caller.company.issuer_in_vat,
        },
        owner: caller.user.role == Role::Owner,
        via: if csrf_token.is_some() { "session" } else { "token" },
        csrf_token,
    }
}

/// A new session's answer: who, the CSRF token, and the cookie.
pub(super) async fn session_answer(state: &AppState, session: Session, status: StatusCode) -> ApiResult {
    let view = signed_in_view(&session.caller, Some(csrf_token(&session.id)));
    let response = super::error::success(status, view);
    Ok(with_session(response, &state.people, &session.id))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignInBody {
    email: Option<String>,
    password: Option<String>,
}

const WRONG_SIGN_IN: &str = "The e-mail or the password is wrong.";

/// Whole seconds, rounded up, at least one.
fn seconds(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

impl People {
    /// Takes one guess of `pair` at `now`: refused (429, with how long to wait) while the pair
    /// owes a wait; else counted as a failure until `right` forgives it, so that guesses sent
    /// side by side cannot all pass before the first is answered.
    pub(super) fn guess(&self, pair: &str, now: std::time::Instant) -> Result<(), ApiError> {
        let Ok(mut throttle) = self.throttle.lock() else {
            return Err(ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "Server Error"));
        };
        if let Some(wait) = throttle.wait(pair, now) {
            tracing::info!(wait_seconds = seconds(wait), "a guess waits its turn");
            return Err(ApiError::Throttled { limit: throttle::FREE_FAILURES, retry_after: wait });
        }
        throttle.failed(pair.to_string(), now);
        Ok(())
    }

    /// The guess of `pair` was right: the pair starts afresh.
    pub(super) fn right(&self, pair: &str) {
        if let Ok(mut throttle) = self.throttle.lock() {
            throttle.succeeded(pair);
        }
    }

    /// How long `pair` now waits before its next guess, if it does.
    fn owed(&self, pair: &str, now: std::time::Instant) -> Option<Duration> {
        self.throttle.lock().ok().and_then(|t| t.wait(pair, now))
    }

    fn forget_account(&self, email: &str) {
        if let Ok(mut throttle) = self.throttle.lock() {
            throttle.forget_account(email);
        }
    }
}

/// What a guess at an account's secret came to: a right one signs the person in and forgives
/// the pair; a wrong one is `refusal`, with `Retry-After` when the next guess must wait; a right
/// one with a refused new password (422) forgives the pair too.
async fn guessed(
    state: &AppState,
    pair: &str,
    outcome: Result<Session, Refused>,
    refusal: ApiError,
) -> ApiResult {
    match outcome {
        Ok(session) => {
            state.people.right(pair);
            session_answer(state, session, StatusCode::OK).await
        }
        Err(Refused::Wrong) => {
            let mut response = refusal.into_response();
            if let Some(wait) = state.people.owed(pair, state.clock.now()) {
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds(wait)));
            }
            Ok(response)
        }
        Err(Refused::Failed(e)) => {
            if matches!(e, crate::services::Error::Invalid(_)) {
                state.people.right(pair);
            }
            Err(e.into())
        }
    }
}

/// A password `field` of a body: required, and no longer than any password may be.
fn password_sent(errors: &mut crate::domain::validation::FieldErrors, field: &str, value: Option<&str>) {
    if value.is_none_or(str::is_empty) {
        errors.add(field, format!("The {field} field is required."));
    }
    errors.max_len(field, value, crate::domain::password::MAX_PASSWORD);
}

/// `POST /api/v1/session`: e-mail and password; a session cookie. Wrong, unknown, token-only
/// and revoked all answer 401 alike; a guess that must wait is 429 with `Retry-After`, even with
/// the right password, for this e-mail from this address only.
pub async fn sign_in(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Body(b): Body<SignInBody>,
) -> ApiResult {
    let mut errors = crate::domain::validation::FieldErrors::new();
    let email = errors.required("email", b.email.as_deref()).map(str::to_string);
    password_sent(&mut errors, "password", b.password.as_deref());
    errors.max_len("email", b.email.as_deref(), 255);
    errors.into_result().map_err(ApiError::Validation)?;
    let (Some(email), Some(password)) = (email, b.password) else {
        return Err(ApiError::field("email", "The email field is required."));
    };
    let pair = throttle::pair(Secret::Account(&email), peer.ip());
    state.people.guess(&pair, state.clock.now())?;
    let outcome = state.services.people().sign_in(&email, &password).await;
    guessed(&state, &pair, outcome, ApiError::status(StatusCode::UNAUTHORIZED, WRONG_SIGN_IN)).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResetWithCodeBody {
    email: Option<String>,
    code: Option<String>,
    new_password: Option<String>,
}

const WRONG_CODE: &str =
    "The code is wrong or has expired: `arka users reset-password EMAIL` on the server prints a new one.";

/// `POST /api/v1/session/reset`: a new password with the one-time code `arka users
/// reset-password` printed on the box; the person is signed in (a session, as at sign-in). A
/// wrong code counts as a wrong password of the account from this address.
pub async fn reset_with_code(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Body(b): Body<ResetWithCodeBody>,
) -> ApiResult {
    let mut errors = crate::domain::validation::FieldErrors::new();
    let email = errors.required("email", b.email.as_deref()).map(str::to_string);
    let code = errors.required("code", b.code.as_deref()).map(str::to_string);
    password_sent(&mut errors, "newPassword", b.new_password.as_deref());
    errors.max_len("email", b.email.as_deref(), 255);
    errors.max_len("code", b.code.as_deref(), 64);
    errors.into_result().map_err(ApiError::Validation)?;
    let (Some(email), Some(code)) = (email, code) else {
        return Err(ApiError::field("email", "The email field is required."));
    };
    let pair = throttle::pair(Secret::Account(&email), peer.ip());
    state.people.guess(&pair, state.clock.now())?;
    let outcome = state.services.people().reset_with_code(&email, &code, b.new_password).await;
    guessed(&state, &pair, outcome, ApiError::field("code", WRONG_CODE)).await
}

/// `GET /api/v1/session`: who is calling (a session or a token), and the session's CSRF token.
pub async fn whoami(Auth(caller): Auth, session: Option<axum::Extension<SessionAuth>>) -> ApiResult {
    let csrf = session.map(|axum::Extension(s)| s.csrf);
    let mut response = ok(signed_in_view(&caller, csrf))?;
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// `DELETE /api/v1/session`: signs the page out (the session ends, the cookie is cleared).
pub async fn sign_out(
    State(state): State<AppState>,
    session: Option<axum::Extension<SessionAuth>>,
) -> ApiResult {
    // A bearer token has no session to end (rotate or revoke it for that): nothing changes.
    let Some(axum::Extension(session)) = session else {
        return ok(SignedOut { signed_out: false });
    };
    state.services.people().sign_out(session.id_hash).await?;
    Ok(without_session(ok(SignedOut { signed_out: true })?, &state.people))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SignedOut {
    signed_out: bool,
}

/// A user whose password the owner set; their sessions ended with it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PasswordReset {
    user: UserView,
    sessions_ended: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PasswordBody {
    current_password: Option<String>,
    new_password: Option<String>,
}

/// `POST /api/v1/session/password`: the caller's own password, the current one proved. Every
/// session of the user ends; a page that changed it gets a new session (and CSRF token) at once.
pub async fn change_password(
    State(state): State<AppState>,
    Auth(caller): Auth,
    session: Option<axum::Extension<SessionAuth>>,
    Body(b): Body<PasswordBody>,
) -> ApiResult {
    let via = if session.is_some() { Via::Session } else { Via::Token };
    let new_session =
        state.services.people().change_password(&caller, b.current_password, b.new_password, via).await?;
    match new_session {
        Some(id) => {
            let caller = (*caller).clone();
            session_answer(&state, Session { id, caller }, StatusCode::OK).await
        }
        None => ok(signed_in_view(&caller, None)),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResetBody {
    new_password: Option<String>,
}

/// `POST /api/v1/users/{id}/password`: the owner sets another user's password (the way a user
/// with only a token gets one, or one who forgot theirs). That user's sessions end.
pub async fn reset_password(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Body(b): Body<ResetBody>,
) -> ApiResult {
    let user = state.services.people().reset_password(&caller, id, b.new_password).await?;
    state.people.forget_account(&user.email);
    ok(PasswordReset { user: UserView::of(&user), sessions_ended: true })
}

/// A person's own profile.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProfileView {
    user: UserView,
    /// The person signs in with a password (a POS user may have only a token).
    password_set: bool,
}

impl ProfileView {
    fn of(profile: &Profile) -> ProfileView {
        ProfileView { user: UserView::of(&profile.user), password_set: profile.password_set }
    }
}

/// `GET /api/v1/users/me`: the caller's own profile.
pub async fn profile(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let profile = state.services.people().profile(&caller).await?;
    ok(ProfileView::of(&profile))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProfileBody {
    name: Option<String>,
    operator_code: Option<String>,
}

/// `PATCH /api/v1/users/me`: the caller changes their own name or operator code (their password
/// is `POST /api/v1/session/password`).
pub async fn update_profile(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<ProfileBody>,
) -> ApiResult {
    let update = ProfileUpdate { name: b.name, operator_code: b.operator_code };
    let profile = state.services.people().update_profile(&caller, update).await?;
    ok(ProfileView::of(&profile))
}
