//! Request bodies and queries: anything that does not parse becomes a 422 naming the field
//! (dotted keys such as `lines.0.quantity`), a body over the size limit a 413. Never a 500.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::domain::validation::FieldErrors;

/// A JSON body.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(body_rejection)?;
        parse_json(&bytes).map(Body)
    }
}

pub fn body_rejection(e: BytesRejection) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::status(StatusCode::PAYLOAD_TOO_LARGE, "The request body is too large.")
    } else {
        ApiError::status(StatusCode::BAD_REQUEST, "The request body could not be read.")
    }
}

/// Parses JSON into `T`, naming the failing field. An empty body reads as `{}`.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { bytes };
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(ApiError::field("body", "The request body must be a JSON object."));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize(&mut de) {
        Ok(value) => Ok(value),
        Err(e) => Err(ApiError::Validation(describe(&e))),
    }
}

/// Reads a JSON value already parsed (an entry of a bulk body) into `T`, naming the failing
/// field as `parse_json` does.
pub fn parse_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    if !value.is_object() {
        return Err(ApiError::field("body", "The invoice must be a JSON object."));
    }
    serde_path_to_error::deserialize(value).map_err(|e| ApiError::Validation(describe(&e)))
}

fn describe(e: &serde_path_to_error::Error<serde_json::Error>) -> FieldErrors {
    let inner = e.inner();
    let path = dotted(e.path());
    if inner.is_syntax() || inner.is_eof() {
        return FieldErrors::one("body", "The request body is not valid JSON.");
    }
    let text = inner.to_string();
    let message = text.split(" at line ").next().unwrap_or(&text).to_string();
    if let Some(field) = missing_field(&message) {
        let key = if path.is_empty() { field.to_string() } else { format!("{path}.{field}") };
        return FieldErrors::one(key.clone(), format!("The {key} field is required."));
    }
    let key = if path.is_empty() { "body".to_string() } else { path };
    // Lenient fields (a number or a numeric string, ...) are untagged enums, whose own error
    // names a Rust type the caller never sees.
    let message = if message.contains("did not match any variant") {
        "it has the wrong type or is out of range".to_string()
    } else {
        message
    };
    FieldErrors::one(key.clone(), format!("The {key} field is invalid: {message}."))
}

fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.strip_suffix('`')
}

/// `lines[0].quantity` -> `lines.0.quantity`; the root (`.`) -> empty.
fn dotted(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(index.to_string()),
            Segment::Map { key } => Some(key.clone()),
            Segment::Enum { variant } => Some(variant.clone()),
            Segment::Unknown => None,
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// A query string.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        let de = serde_urlencoded_deserializer(query);
        match serde_path_to_error::deserialize(de) {
            Ok(v) => Ok(Query(v)),
            Err(e) => {
                let key = dotted(e.path());
                let key = if key.is_empty() { "query".to_string() } else { key };
                Err(ApiError::field(&key, format!("The {key} parameter is invalid.")))
            }
        }
    }
}

fn serde_urlencoded_deserializer(query: &str) -> serde_urlencoded::Deserializer<'_> {
    serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()))
}

/// A numeric id in the path; anything else is 404, as no such resource exists.
pub struct PathId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let not_found = || ApiError::status(StatusCode::NOT_FOUND, "Not found.");
        let axum::extract::Path(raw) =
            axum::extract::Path::<String>::from_request_parts(parts, state).await.map_err(|_| not_found())?;
        raw.parse().map(PathId).map_err(|_| not_found())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Line {
        quantity: f64,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        name: String,
        lines: Vec<Line>,
    }

    fn keys(r: Result<Doc, ApiError>) -> Vec<String> {
        match r {
            Err(ApiError::Validation(e)) => e.into_map().into_keys().collect(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn names_nested_fields_with_dotted_keys() {
        assert_eq!(
            keys(parse_json(br#"{"name":"a","lines":[{"quantity":1},{"quantity":"x"}]}"#)),
            ["lines.1.quantity"]
        );
        assert_eq!(keys(parse_json(br#"{"name":"a","lines":[{}]}"#)), ["lines.0.quantity"]);
        assert_eq!(keys(parse_json(br#"{"lines":[]}"#)), ["name"]);
        assert_eq!(keys(parse_json(b"{not json")), ["body"]);
        assert_eq!(keys(parse_json(b"[1,2]")), ["body"]);
    }
}
