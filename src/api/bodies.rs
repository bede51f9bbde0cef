//! What each route's body may be, and the gate every request passes on its way to the handler.
//!
//! A body is one JSON value and whitespace. Bytes after the value (`{} {"lines":[…]}`, two sales
//! back to back) were once read as nothing by one route and as the first value by another; now
//! no route sees such a body at all: the gate reads every body before its handler and refuses it
//! (422 `body`, nothing done), so a route cannot take more than one value however it reads its
//! body. A route that takes no body and changes something takes nothing or `{}`: a body it would
//! not read is not taken as nothing. The document's `requestBody` of each operation is the
//! contract `kind` is checked against.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, MatchedPath, Request};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::extract::{body_rejection, nothing_but_an_empty_object, one_json_value, only_one_json_value};
use super::permissions::{self, Lookup};

/// What a route's body may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A JSON body, read by the route (`extract::parse_json`).
    Json,
    /// A route that changes something and takes no body: nothing, or `{}`.
    Nothing,
    /// A read that takes no body: one it ignores must still be one JSON value.
    Read,
    /// The product import's CSV file.
    Csv,
    /// A certificate upload: multipart, or a JSON body.
    Certificate,
}

/// The operations whose body is not a JSON value, and the POSTs that take none.
#[rustfmt::skip]
const NOT_JSON: &[(&str, &str, Kind)] = &[
    ("POST", "/api/v1/products/import", Kind::Csv),
    ("POST", "/api/v1/on-boarding/certificate", Kind::Certificate),
    ("POST", "/api/v1/setup/certificate", Kind::Certificate),
    ("POST", "/api/v1/invoice/details/{internalId}", Kind::Read),
    ("POST", "/api/v2/invoice/details/{internalId}", Kind::Read),
    ("POST", "/api/v1/users/{id}/token", Kind::Nothing),
    ("POST", "/api/v1/users/me/token", Kind::Nothing),
    ("POST", "/api/v1/owner/backup", Kind::Nothing),
    ("POST", "/api/v1/owner/backup/copy/verify", Kind::Nothing),
    ("POST", "/api/v1/owner/queue/{queueId}/resend", Kind::Nothing),
    ("POST", "/api/v1/printers/{tcrCode}/test", Kind::Nothing),
    ("POST", "/api/partner/v1/marketplace/orders/{id}/ready", Kind::Nothing),
    ("POST", "/api/partner/v1/marketplace/orders/{id}/courier-picked-up", Kind::Nothing),
    ("POST", "/api/partner/v1/marketplace/orders/{id}/courier-at-customer", Kind::Nothing),
    ("POST", "/api/partner/v1/marketplace/orders/{id}/delivered", Kind::Nothing),
    ("POST", "/api/partner/v1/marketplace/orders/{id}/fiscalize", Kind::Nothing),
];

/// The body `method` on the route `path` (its template) takes: every GET is a read and every
/// DELETE takes none; `NOT_JSON` names the rest that do not take a JSON value.
pub fn kind(method: &Method, path: &str) -> Kind {
    if method == Method::GET || method == Method::HEAD {
        return Kind::Read;
    }
    if method == Method::DELETE {
        return Kind::Nothing;
    }
    NOT_JSON
        .iter()
        .find(|(m, p, _)| *m == method.as_str() && *p == path)
        .map_or(Kind::Json, |(_, _, kind)| *kind)
}

fn is_multipart(req: &Request) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("multipart/form-data"))
}

/// The gate, a layer of every route (inside the permission check): it reads the body once,
/// refuses one its route may not take, and hands the same bytes on.
pub async fn gate(req: Request, next: Next) -> Response {
    let Some(path) = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string()) else {
        return next.run(req).await;
    };
    let method = req.method().clone();
    // A method the route does not have is the router's 405, whatever the body.
    let known = method == Method::GET
        || method == Method::HEAD
        || matches!(permissions::lookup(&method, &path), Lookup::Rule(_));
    let kind = kind(&method, &path);
    let streamed = kind == Kind::Csv || (kind == Kind::Certificate && is_multipart(&req));
    if !known || streamed || http_body::Body::is_end_stream(req.body()) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes = match Bytes::from_request(Request::from_parts(parts.clone(), body), &()).await {
        Ok(bytes) => bytes,
        Err(e) => return refusal(&path, body_rejection(e)),
    };
    let checked = match kind {
        Kind::Nothing => nothing_but_an_empty_object(&bytes),
        Kind::Read => only_one_json_value(&bytes),
        Kind::Json | Kind::Certificate => one_json_value(&bytes),
        Kind::Csv => Ok(()),
    };
    match checked {
        Ok(()) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Err(e) => refusal(&path, e),
    }
}

/// A refusal in the envelope of its path.
fn refusal(path: &str, e: ApiError) -> Response {
    if path.starts_with(super::marketplace::PREFIX) { e.into_marketplace() } else { e }.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENAPI: &str = include_str!("../../assets/openapi.yaml");

    /// What the document's `requestBody` says the operation takes.
    fn documented(method: &str, path: &str, operation: &serde_json::Value) -> Kind {
        let content = &operation["requestBody"]["content"];
        let takes = |media: &str| content.get(media).is_some();
        match (takes("application/json"), takes("multipart/form-data"), takes("text/csv")) {
            (true, true, _) => Kind::Certificate,
            (true, false, _) => Kind::Json,
            (false, _, true) => Kind::Csv,
            _ if method == "get" => Kind::Read,
            // A POST that takes no body reads (details) or changes something.
            _ if path.contains("/details/") => Kind::Read,
            _ => Kind::Nothing,
        }
    }

    #[test]
    fn every_operations_body_kind_is_what_the_document_says_it_takes() {
        let doc: serde_json::Value = serde_yaml_ng::from_str(OPENAPI).unwrap();
        let mut checked = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let Ok(parsed) = method.to_uppercase().parse::<Method>() else { continue };
                if !["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                    continue;
                }
                assert_eq!(kind(&parsed, path), documented(method, path, operation), "{method} {path}");
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked} operations");
        for (method, path, _) in NOT_JSON {
            assert!(doc["paths"][path][method.to_lowercase()].is_object(), "{method} {path} is an operation");
        }
    }
}
