//! Request bodies and queries: anything that does not parse becomes a 422 naming the field
//! (dotted keys such as `lines.0.quantity`), a body over the size limit a 413. Never a 500.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use arka_core::domain::document::ApiVersion;
use arka_core::domain::validation::{self, FieldErrors};

use crate::error::ApiError;

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

/// Parses JSON into `T`, naming the failing field. An empty body reads as `{}`. Every string
/// of every body must be text XML can carry (`validation::xml_text`), as any of them may end up
/// in a fiscal document: a product or client stored now is printed on a later invoice. A body
/// that is not UTF-8 is refused whole, even where its bad bytes sit in a key `T` would ignore.
/// A `T` that denies unknown fields gets each one named by its dotted key (`line`, `lines.0.qty`).
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let bytes: &[u8] = if blank(bytes) { b"{}" } else { bytes };
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(ApiError::field("body", "The request body must be a JSON object."));
    }
    if std::str::from_utf8(bytes).is_err() {
        return Err(ApiError::field("body", "The request body is not UTF-8 text, as JSON must be."));
    }
    if may_hold_non_xml_text(bytes)
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes)
    {
        let mut errors = FieldErrors::new();
        non_xml_strings(&value, &mut String::new(), &mut errors);
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize(&mut de) {
        Ok(value) => de.end().map(|()| value).map_err(|e| more_than_one_value(&e)),
        Err(e) => Err(ApiError::Validation(describe(&e))),
    }
}

/// A body is one JSON value and whitespace: bytes after the value are not taken as nothing
/// (nor as the value they begin), they refuse the whole request.
fn more_than_one_value(e: &serde_json::Error) -> ApiError {
    ApiError::field(
        "body",
        format!(
            "The request body must be one JSON value: something follows it at line {}, column {}; nothing was done.",
            e.line(),
            e.column()
        ),
    )
}

fn blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

/// Whether nothing but whitespace follows the body's first JSON value; `None` when that value
/// does not parse.
fn nothing_after_the_value(bytes: &[u8]) -> Option<Result<(), ApiError>> {
    if blank(bytes) {
        return Some(Ok(()));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde::de::IgnoredAny::deserialize(&mut de).ok()?;
    Some(de.end().map_err(|e| more_than_one_value(&e)))
}

/// The gate's check of a body its route reads as JSON: nothing after the first value. A first
/// value that does not parse is left to the route's reader, which names the field it breaks in.
pub fn one_json_value(bytes: &[u8]) -> Result<(), ApiError> {
    nothing_after_the_value(bytes).unwrap_or(Ok(()))
}

/// The gate's check of a body a read ignores: nothing, or one JSON value and whitespace.
pub fn only_one_json_value(bytes: &[u8]) -> Result<(), ApiError> {
    nothing_after_the_value(bytes)
        .unwrap_or_else(|| Err(ApiError::field("body", "The request body is not valid JSON.")))
}

/// The gate's check of a body where a route that changes something takes none: nothing, or `{}`.
pub fn nothing_but_an_empty_object(bytes: &[u8]) -> Result<(), ApiError> {
    let empty_object = || serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(bytes);
    if blank(bytes) || empty_object().is_ok_and(|o| o.is_empty()) {
        return Ok(());
    }
    Err(ApiError::field("body", "This request takes no body (send none, or {}); nothing was done."))
}

/// Parses the body of a route where what is not sent is left as it is (a settings PUT): as
/// `parse_json`, but an empty body is refused rather than read as "change nothing", so a body
/// that never arrived as JSON (empty, or text of another type) is not answered 200.
pub fn parse_changes<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if blank(bytes) {
        return Err(ApiError::field(
            "body",
            "The request body is empty: send a JSON object with what to change ({} changes nothing).",
        ));
    }
    parse_json(bytes)
}

/// A JSON body for a route where what is not sent is left as it is (`parse_changes`).
pub struct Changes<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Changes<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(body_rejection)?;
        parse_changes(&bytes).map(Changes)
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
    let text = inner.to_string();
    let message = text.split(" at line ").next().unwrap_or(&text).to_string();
    // A raw control character or a lone surrogate inside a string: the field it is in is known.
    let broken_text = ["control character", "escape", "surrogate"].iter().any(|m| message.contains(m));
    if inner.is_syntax() && broken_text && !path.is_empty() {
        return FieldErrors::one(path.clone(), format!("The {path} field is not valid text: {message}."));
    }
    if inner.is_syntax() || inner.is_eof() {
        return FieldErrors::one("body", "The request body is not valid JSON.");
    }
    if let Some(field) = missing_field(&message) {
        let key = if path.is_empty() { field.to_string() } else { format!("{path}.{field}") };
        return FieldErrors::one(key.clone(), format!("The {key} field is required."));
    }
    if let Some((field, expected)) = unknown_field(&message) {
        // The path ends with the key itself when it was read before the refusal.
        let key = if path == field || path.ends_with(&format!(".{field}")) {
            path
        } else if path.is_empty() {
            field.to_string()
        } else {
            format!("{path}.{field}")
        };
        return FieldErrors::one(
            key.clone(),
            format!("The {key} field is not one this request takes ({expected}); nothing was done."),
        );
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

/// JSON cannot carry a control character raw inside a string, only as a `\u` escape, and
/// U+FFFE/U+FFFF arrive escaped or as their UTF-8 bytes; a body with neither needs no walk.
fn may_hold_non_xml_text(bytes: &[u8]) -> bool {
    bytes.windows(2).any(|w| w == b"\\u") || bytes.windows(3).any(|w| matches!(w, [0xEF, 0xBF, 0xBE | 0xBF]))
}

/// Checks every string in `value`, keyed by its dotted path (`lines.0.product_name`).
fn non_xml_strings(value: &serde_json::Value, path: &mut String, errors: &mut FieldErrors) {
    use serde_json::Value;
    let mut descend = |segment: &str, child: &Value, errors: &mut FieldErrors| {
        let restore = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(segment);
        non_xml_strings(child, path, errors);
        path.truncate(restore);
    };
    match value {
        Value::String(text) => validation::xml_text(errors, path, text),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                descend(&index.to_string(), item, errors);
            }
        }
        Value::Object(fields) => {
            for (key, child) in fields {
                descend(key, child, errors);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.strip_suffix('`')
}

/// serde's "unknown field `x`, expected `a`" (or "expected one of ...", or "there are no
/// fields"): the field and what was expected.
fn unknown_field(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("unknown field `")?;
    let end = rest.rfind("`, expected ").or_else(|| rest.rfind("`, there are no fields"))?;
    Some((&rest[..end], &rest[end + 3..]))
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

/// The longest `query` a list searches for: longer than any name, NIPT or number it could match,
/// and short enough that a search over a million rows stays a search.
pub const MAX_QUERY: usize = 255;

/// A list's `query` parameter: 422 `query` above `MAX_QUERY` characters.
pub fn search_query(query: Option<&str>) -> Result<(), ApiError> {
    let mut errors = FieldErrors::new();
    errors.max_len("query", query, MAX_QUERY);
    // The head office searches in PostgreSQL, whose text cannot hold U+0000: the shop refuses the
    // same so a search answers alike on either.
    if let Some(text) = query {
        validation::xml_text(&mut errors, "query", text);
    }
    errors.into_result().map_err(ApiError::Validation)
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

/// The version of the API a route belongs to, read once from its path (`/api/v1/…`,
/// `/api/v2/…`) and carried typed from the handler on. A route outside both is not found.
pub struct Version(pub ApiVersion);

impl<S: Send + Sync> FromRequestParts<S> for Version {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        api_version(parts.uri.path())
            .map(Version)
            .ok_or_else(|| ApiError::status(StatusCode::NOT_FOUND, "Not found."))
    }
}

fn api_version(path: &str) -> Option<ApiVersion> {
    match path.strip_prefix("/api/")?.split('/').next()? {
        "v1" => Some(ApiVersion::V1),
        "v2" => Some(ApiVersion::V2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn the_api_version_is_the_paths_first_segment_after_api() {
        assert_eq!(api_version("/api/v1/invoice/cash"), Some(ApiVersion::V1));
        assert_eq!(api_version("/api/v2/invoice/1/details"), Some(ApiVersion::V2));
        assert_eq!(api_version("/api/v3/invoice/cash"), None);
        assert_eq!(api_version("/api/v12/invoice"), None);
        assert_eq!(api_version("/v1/invoice"), None);
    }

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

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct StrictLine {
        quantity: Option<f64>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        lines: Option<Vec<StrictLine>>,
    }

    fn strict(body: &[u8]) -> Vec<(String, Vec<String>)> {
        match parse_json::<Strict>(body) {
            Err(ApiError::Validation(e)) => e.into_map().into_iter().collect(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn an_unknown_field_is_named_by_its_own_dotted_key() {
        let top = strict(br#"{"line":[{"quantity":1}]}"#);
        assert_eq!(top[0].0, "line");
        assert!(top[0].1[0].contains("expected `lines`"), "{top:?}");
        assert_eq!(strict(br#"{"lines":[{"quantity":1},{"qty":1}]}"#)[0].0, "lines.1.qty");
        assert_eq!(strict(br#"{"lines ":[], "x`, expected ":1}"#)[0].0, "lines ");
        assert_eq!(
            unknown_field("unknown field `a`, there are no fields"),
            Some(("a", "there are no fields"))
        );
        assert!(parse_json::<Strict>(b"").is_ok() && parse_json::<Strict>(b"{}").is_ok());
    }

    #[test]
    fn a_body_that_is_not_utf8_or_empty_where_changes_are_expected_is_refused() {
        assert_eq!(strict(b"{\"lines\":[],\"\xff\":1}")[0].0, "body");
        assert_eq!(keys(parse_json(b"{\"name\":\"a\",\"lines\":[],\"note\":\"\xc3\"}")), ["body"]);
        assert!(matches!(parse_changes::<Strict>(b" \n"), Err(ApiError::Validation(_))));
        assert!(parse_changes::<Strict>(b"{}").is_ok());
    }

    #[test]
    fn a_body_is_one_json_value_and_whitespace() {
        let refused = |r: Result<(), ApiError>| matches!(r, Err(ApiError::Validation(e)) if e.clone().into_map().contains_key("body"));
        for one in [&b""[..], b" \n", b"{}", b" {\"a\": [1]}\r\n\t", b"[1]", b"null"] {
            assert!(one_json_value(one).is_ok() && only_one_json_value(one).is_ok(), "{one:?}");
        }
        for more in [&b"{} {}"[..], b"{\"counted\":100} , \"withdraw\": 0}", b"{}x", b"[1]]", b"1 2", b"{}\0"]
        {
            assert!(refused(one_json_value(more)) && refused(only_one_json_value(more)), "{more:?}");
            assert_eq!(keys(parse_json(&[b"{\"name\":\"a\",\"lines\":[]}", more].concat())), ["body"]);
        }
        // A broken first value is the route's to name; a read that ignores it refuses it.
        assert!(one_json_value(b"{\"name\": \"a\x01\"} {}").is_ok());
        assert!(refused(only_one_json_value(b"{\"a\":")));
        for nothing in [&b""[..], b"{}", b" { } \n"] {
            assert!(nothing_but_an_empty_object(nothing).is_ok(), "{nothing:?}");
        }
        for something in [&b"{\"role\":\"owner\"}"[..], b"[]", b"null", b"{}{}", b"x"] {
            assert!(refused(nothing_but_an_empty_object(something)), "{something:?}");
        }
    }

    #[test]
    fn a_search_with_a_control_character_is_refused_naming_query() {
        assert!(search_query(Some("pos-7")).is_ok());
        let Err(ApiError::Validation(errors)) = search_query(Some("pos\u{0}7")) else {
            panic!("a NUL in the search was taken");
        };
        assert!(format!("{errors:?}").contains("query"), "{errors:?}");
    }

    #[test]
    fn control_characters_are_refused_in_any_string_under_its_dotted_key() {
        let body = br#"{"name":"a\u0000b","lines":[{"quantity":1},{"quantity":2,"note":"x\u001fy"}],"ok":"tab\tand\nline"}"#;
        assert_eq!(keys(parse_json(body)), ["lines.1.note", "name"]);
        assert_eq!(keys(parse_json("{\"name\":\"a\u{FFFF}\",\"lines\":[]}".as_bytes())), ["name"]);
        assert_eq!(keys(parse_json(br#"{"name":"\uFFFE","lines":[]}"#)), ["name"]);
        // Raw control characters and lone surrogates are not JSON; the field is still named.
        assert_eq!(keys(parse_json(b"{\"name\":\"a\x01b\",\"lines\":[]}")), ["name"]);
        assert_eq!(keys(parse_json(br#"{"name":"\ud800","lines":[]}"#)), ["name"]);
        // Escapes of ordinary characters are fine.
        let fine: Doc = parse_json(br#"{"name":"\u00eb\u0041\\u0000","lines":[]}"#).unwrap();
        assert_eq!(fine.name, "\u{eb}A\\u0000");
    }
}
