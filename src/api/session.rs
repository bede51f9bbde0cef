//! The page's session as a request carries it: the cookie with the session's id, and the CSRF
//! token every change made with it must send. `auth` reads them on every request and `people`
//! sets them at sign-in, so they live here, below both.

use axum::http::{HeaderMap, header};

use crate::ops::secrets::{hex_lower, same_hash};

/// The cookie the page's session travels in.
pub const SESSION_COOKIE: &str = "arka_session";

/// Where people sign in (the one change a session cookie may come to without its CSRF token).
pub const SIGN_IN: &str = "/api/v1/session";

/// The header every change made with the session carries.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The session id of the request's cookie, if it carries one.
pub fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The CSRF token of a session: a hash of its id, so it is never stored and a page that lost
/// it reads it again; no other site can compute it without the HttpOnly cookie.
pub fn csrf_token(session_id: &str) -> String {
    hex_lower(&openssl::sha::sha256(format!("arka-csrf:{session_id}").as_bytes()))
}

pub fn csrf_sent(headers: &HeaderMap, expected: &str) -> bool {
    headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|sent| same_hash(sent.trim(), expected))
}
