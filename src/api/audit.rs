//! `GET /api/v1/audit`: the company's audit trail, newest first, for its owner and managers
//! (`permissions`' table), filtered by `from`/`to` (Tirane days, inclusive), `user` and `action`,
//! paged by `limit`/`offset`, as JSON or as CSV (`Accept: text/csv` or `?format=csv`) like the
//! reports.

use axum::extract::State;
use axum::http::header::{ACCEPT, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use std::collections::HashMap;

use chrono::{Days, NaiveDate};
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::Query;
use super::reports::Table;
use crate::domain::audit::{Action, Stored, day_start};
use crate::domain::report;
use crate::domain::time::{local_text, parse_stored};
use crate::domain::validation::FieldErrors;
use crate::store::audit::Filter;

/// The query as sent; every value read as text and checked here, so a bad one is a 422 naming it.
#[derive(Debug, Default, Deserialize)]
pub struct AuditParams {
    from: Option<String>,
    to: Option<String>,
    user: Option<String>,
    action: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
    format: Option<String>,
}

fn sent(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

fn day(errors: &mut FieldErrors, field: &str, value: Option<&str>) -> Option<NaiveDate> {
    let text = sent(value)?;
    let parsed = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok().filter(|_| text.len() == 10);
    if parsed.is_none() {
        errors.add(field, format!("The {field} must be a date in the format YYYY-MM-DD."));
    }
    parsed
}

/// `format=csv|json`, else `Accept: text/csv`, else JSON.
fn wants_csv(errors: &mut FieldErrors, params: &AuditParams, headers: &HeaderMap) -> bool {
    match sent(params.format.as_deref()).map(str::to_ascii_lowercase).as_deref() {
        Some("csv") => true,
        Some("json") => false,
        Some(_) => {
            errors.add("format", "The format must be json or csv.");
            false
        }
        None => headers
            .get(ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.to_ascii_lowercase().contains("text/csv")),
    }
}

/// The filter of a query, or every field's errors together.
fn read(params: &AuditParams, headers: &HeaderMap) -> Result<(Filter, bool), FieldErrors> {
    let mut errors = FieldErrors::new();
    let from = day(&mut errors, "from", params.from.as_deref());
    let to = day(&mut errors, "to", params.to.as_deref());
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        errors.add("from", "The from date must not be after the to date.");
    }
    let user_id = sent(params.user.as_deref()).and_then(|text| match text.parse::<i64>() {
        Ok(id) if id > 0 => Some(id),
        _ => {
            errors.add("user", "The user must be the id of one of the company's users.");
            None
        }
    });
    let action = sent(params.action.as_deref()).and_then(|text| match Action::parse(text) {
        Some(action) => Some(action.as_str().to_string()),
        None => {
            let known: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
            errors.add("action", format!("The action must be one of {}.", known.join(", ")));
            None
        }
    });
    let mut number = |read: Result<i64, FieldErrors>| {
        read.unwrap_or_else(|e| {
            errors.merge(e);
            0
        })
    };
    let limit = number(report::limit(params.limit.as_deref()));
    let offset = number(report::offset(params.offset.as_deref()));
    let csv = wants_csv(&mut errors, params, headers);
    errors.into_result()?;
    let filter = Filter {
        from: from.map(day_start),
        to: to.and_then(|to| to.checked_add_days(Days::new(1))).map(day_start),
        user_id,
        action,
        limit,
        offset,
    };
    Ok((filter, csv))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryView {
    id: i64,
    /// Tirane time, as every time the API shows.
    at: String,
    user_id: Option<i64>,
    /// The name of the one who acted, as the company's people list it now.
    user_name: Option<String>,
    role: String,
    request_id: Option<String>,
    action: String,
    object: String,
    /// For an entry that acted on a person (`user.*`, `token.*`): their name.
    object_name: Option<String>,
    before: Option<serde_json::Value>,
    after: Option<serde_json::Value>,
    hash: String,
}

fn json_of(text: Option<&String>) -> Option<serde_json::Value> {
    text.map(|t| serde_json::from_str(t).unwrap_or_else(|_| serde_json::Value::String(t.clone())))
}

impl EntryView {
    fn of(s: &Stored, names: &HashMap<i64, String>) -> EntryView {
        let on_a_person = s.action.starts_with("user.") || s.action.starts_with("token.");
        let object_name =
            s.object.parse::<i64>().ok().filter(|_| on_a_person).and_then(|id| names.get(&id).cloned());
        EntryView {
            id: s.id,
            at: parse_stored(&s.at).map_or_else(|| s.at.clone(), local_text),
            user_id: s.user_id,
            user_name: s.user_id.and_then(|id| names.get(&id).cloned()),
            object_name,
            role: s.role.clone(),
            request_id: s.request_id.clone(),
            action: s.action.clone(),
            object: s.object.clone(),
            before: json_of(s.before.as_ref()),
            after: json_of(s.after.as_ref()),
            hash: s.hash.clone(),
        }
    }
}

#[derive(Serialize)]
struct Page {
    entries: Vec<EntryView>,
    total: i64,
    limit: i64,
    offset: i64,
}

fn table(entries: &[EntryView]) -> Table {
    let mut table = Table::new(&[
        "id",
        "at",
        "user_id",
        "user_name",
        "role",
        "request_id",
        "action",
        "object",
        "before",
        "after",
        "hash",
    ]);
    let text = |v: &Option<serde_json::Value>| v.as_ref().map(ToString::to_string).unwrap_or_default();
    for e in entries {
        table.rows.push(vec![
            e.id.to_string(),
            e.at.clone(),
            e.user_id.map(|u| u.to_string()).unwrap_or_default(),
            e.user_name.clone().unwrap_or_default(),
            e.role.clone(),
            e.request_id.clone().unwrap_or_default(),
            e.action.clone(),
            e.object.clone(),
            text(&e.before),
            text(&e.after),
            e.hash.clone(),
        ]);
    }
    table
}

pub async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    Query(params): Query<AuditParams>,
) -> ApiResult {
    let (filter, csv) = read(&params, &headers).map_err(ApiError::Validation)?;
    let (limit, offset) = (filter.limit, filter.offset);
    let (stored, total, names) = state.services.audit_entries(&caller, filter).await?;
    let entries: Vec<EntryView> = stored.iter().map(|s| EntryView::of(s, &names)).collect();
    if !csv {
        return ok(Page { entries, total, limit, offset });
    }
    let body = table(&entries).to_csv()?;
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
    headers.insert(CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"arka-audit.csv\""));
    Ok(response)
}
