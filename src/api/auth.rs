//! Who is calling: a user token, a partner token, a person signed in to the page (a session
//! cookie, with its CSRF token on every change), or nobody (counted by IP), plus the optional
//! application credential pair. Resolved once per request by `identify`, which also applies the
//! general limiter; handlers take `Auth` or `Partner` as an argument.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::ApiError;
use crate::api::limits::{Group, Interval};
use crate::ops::secrets::{hash_token, same_hash};
use crate::store::accounts::{self, Caller};

#[derive(Debug, Clone)]
pub enum Identity {
    User(Arc<Caller>),
    Partner(i64),
    Anonymous(IpAddr),
}

impl Identity {
    /// The key the limiters count this caller under.
    pub fn limit_key(&self) -> String {
        match self {
            Identity::User(c) => format!("u:{}", c.user.id),
            Identity::Partner(id) => format!("p:{id}"),
            Identity::Anonymous(ip) => format!("ip:{ip}"),
        }
    }

    fn identified(&self) -> bool {
        !matches!(self, Identity::Anonymous(_))
    }
}

/// The bearer token, when the header is exactly `Authorization: Bearer <token>`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme == "Bearer" && !token.is_empty()).then_some(token)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim).filter(|v| !v.is_empty())
}

async fn check_app_pair(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    match (header(headers, "x-client-id"), header(headers, "x-client-secret")) {
        (None, None) => Ok(()),
        (Some(id), Some(secret)) => {
            let id = id.to_string();
            let stored = state
                .services
                .store
                .read(move |conn| accounts::app_secret_hash(conn, &id))
                .await
                .map_err(|e| ApiError::from(crate::services::Error::from(e)))?;
            match stored {
                Some(hash) if same_hash(&hash, &hash_token(secret)) => Ok(()),
                _ => Err(ApiError::Unauthenticated),
            }
        }
        _ => Err(ApiError::Unauthenticated),
    }
}

/// A request authenticated by the page's session cookie rather than a token: every change it
/// makes must carry the session's CSRF token.
#[derive(Debug, Clone)]
pub struct SessionAuth {
    /// The session id's hash, as stored.
    pub id_hash: String,
    /// What `X-CSRF-Token` must hold.
    pub csrf: String,
}

/// The caller, and the session when the cookie (not a token) said who it is. A bearer token
/// wins over a cookie: POS apps never send one, and a page never sends a token.
async fn resolve(
    state: &AppState,
    headers: &HeaderMap,
    ip: IpAddr,
) -> Result<(Identity, Option<SessionAuth>), ApiError> {
    let Some(token) = bearer(headers) else {
        let Some(id) = super::session::session_cookie(headers) else {
            return Ok((Identity::Anonymous(ip), None));
        };
        let id_hash = hash_token(id);
        let idle = state.people.session_idle;
        let caller = state.services.people().session_caller(id_hash.clone(), idle).await?;
        return Ok(match caller {
            Some(caller) => {
                let session = SessionAuth { id_hash, csrf: super::session::csrf_token(id) };
                (Identity::User(Arc::new(Caller { session: true, ..caller })), Some(session))
            }
            None => (Identity::Anonymous(ip), None),
        });
    };
    resolve_token(state, token, ip).await.map(|identity| (identity, None))
}

async fn resolve_token(state: &AppState, token: &str, ip: IpAddr) -> Result<Identity, ApiError> {
    let hash = hash_token(token);
    let version = state.services.store.accounts_version();
    if let Some(identity) = state.callers.get(&hash, version) {
        return Ok(identity);
    }
    let key = hash.clone();
    let found = state
        .services
        .store
        .read(move |conn| {
            if let Some(caller) = accounts::caller_by_token(conn, &hash)? {
                return Ok(Some(Identity::User(Arc::new(caller))));
            }
            Ok(accounts::partner_by_token(conn, &hash)?.map(Identity::Partner))
        })
        .await
        .map_err(|e| ApiError::from(crate::services::Error::from(e)))?;
    match found {
        Some(identity) => {
            state.callers.keep(key, identity.clone(), version);
            Ok(identity)
        }
        None => Ok(Identity::Anonymous(ip)),
    }
}

/// Resolves the caller and applies the general limiter (per token, or per IP when unidentified).
/// Its refusals on a marketplace path speak the marketplace's envelope.
pub async fn identify(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut req: Request,
    next: Next,
) -> Response {
    let marketplace = req.uri().path().starts_with(super::error::MARKETPLACE_PREFIX);
    let refuse = |e: ApiError| if marketplace { e.into_marketplace() } else { e }.into_response();
    let (identity, session) = match resolve(&state, req.headers(), peer.ip()).await {
        Ok(resolved) => resolved,
        Err(e) => return refuse(e),
    };
    if let Identity::User(caller) = &identity {
        state.services.token_uses.seen(caller.user.id, peer.ip(), state.services.clock.utc());
    }
    let allowed = match state.limiters.general(&identity.limit_key(), identity.identified()) {
        Ok(allowed) => allowed,
        Err(denied) => {
            return refuse(ApiError::Throttled { limit: denied.limit, retry_after: denied.retry_after });
        }
    };
    // Checked after the limiter, so guessing application secrets is counted like any call.
    if let Err(e) = check_app_pair(&state, req.headers()).await {
        return refuse(e);
    }
    if let Some(session) = session {
        // Signing in does not act with the session it may still carry: it starts a new one.
        let signing_in =
            req.method() == axum::http::Method::POST && req.uri().path() == super::session::SIGN_IN;
        if !req.method().is_safe() && !signing_in && !super::session::csrf_sent(req.headers(), &session.csrf)
        {
            return refuse(ApiError::status(
                StatusCode::FORBIDDEN,
                "A change made with the page's session needs its X-CSRF-Token header \
                 (GET /api/v1/session gives it).",
            ));
        }
        req.extensions_mut().insert(session);
    }
    req.extensions_mut().insert(identity);
    let mut response = next.run(req).await;
    // A 429 keeps what its own limit said: a budget's figures, or none for an interval.
    if response.status() != StatusCode::TOO_MANY_REQUESTS {
        let headers = response.headers_mut();
        headers.insert("x-ratelimit-limit", HeaderValue::from(allowed.limit));
        headers.insert("x-ratelimit-remaining", HeaderValue::from(allowed.remaining));
    }
    response
}

/// Applies a group budget; installed per route group by the router.
pub async fn budget(State((state, group)): State<(AppState, Group)>, req: Request, next: Next) -> Response {
    let key = req.extensions().get::<Identity>().map(Identity::limit_key).unwrap_or_default();
    match state.limiters.group(group, &key) {
        Ok(_) => next.run(req).await,
        Err(denied) => {
            ApiError::Throttled { limit: denied.limit, retry_after: denied.retry_after }.into_response()
        }
    }
}

/// The cached caller with this request's id (set by `tracing_layers` before any handler runs),
/// which the services write into the audit trail: one copy of the caller per request.
pub fn with_request_id(caller: &Arc<Caller>, headers: &HeaderMap) -> Arc<Caller> {
    let id = headers.get("x-request-id").and_then(|v| v.to_str().ok());
    match id {
        Some(id) => Arc::new(Caller { request_id: Some(id.to_string()), ..Caller::clone(caller) }),
        None => caller.clone(),
    }
}

/// A request made with a user's token.
pub struct Auth(pub Arc<Caller>);

impl Auth {
    /// The spec's minimum interval between two calls of this token; 429 when hit. A person at
    /// the page is not paced: the intervals are the spec's for POS apps.
    pub fn interval(&self, state: &AppState, interval: Interval) -> Result<(), ApiError> {
        self.interval_as(state, interval, &format!("u:{}", self.0.user.id))
    }

    /// `interval` counted under its own `key` (one route's writes apart from its reads).
    pub fn interval_as(&self, state: &AppState, interval: Interval, key: &str) -> Result<(), ApiError> {
        if self.0.session {
            return Ok(());
        }
        state.limiters.interval(interval, key).map_err(|d| ApiError::too_soon(d.retry_after))
    }
}

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &AppState) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Identity>() {
            Some(Identity::User(caller)) => Ok(Auth(with_request_id(caller, &parts.headers))),
            _ => Err(ApiError::Unauthenticated),
        }
    }
}

/// A request made with a partner token (registration).
pub struct Partner(pub i64);

impl FromRequestParts<AppState> for Partner {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &AppState) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Identity>() {
            Some(Identity::Partner(id)) => Ok(Partner(*id)),
            Some(Identity::User(_)) => {
                Err(ApiError::status(StatusCode::FORBIDDEN, "Registration needs a partner token."))
            }
            _ => Err(ApiError::Unauthenticated),
        }
    }
}
