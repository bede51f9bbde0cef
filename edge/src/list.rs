//! A list's query string: the shop's invoice list and the head office's read one model, so
//! the same query answers alike on either (and a bad one is refused alike, naming its field).

use axum::http::StatusCode;
use serde::Deserialize;

use crate::error::ApiError;
use crate::extract::search_query;

/// `GET /api/v1/invoice`'s query: a page (`limit`, `offset`), the document types (`type`, a
/// comma-separated list), the days (`fromDate`, `toDate`) and a search (`query`).
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[serde(rename = "fromDate")]
    pub from_date: Option<String>,
    #[serde(rename = "toDate")]
    pub to_date: Option<String>,
    pub query: Option<String>,
}

/// A list's query read: the page, the days as `YYYY-MM-DD`, and the search without its spaces
/// (none when blank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListPage {
    pub limit: i64,
    pub offset: i64,
    pub from_date: Option<String>,
    pub to_date: Option<String>,
    pub search: Option<String>,
}

/// The page a list answers when the query names none.
pub const DEFAULT_LIMIT: i64 = 20;

impl ListQuery {
    /// The page, the search and the days, each refused in this order naming its field.
    pub fn read(&self) -> Result<ListPage, ApiError> {
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        let offset = self.offset.unwrap_or(0);
        if limit < 1 {
            return Err(ApiError::field("limit", "The limit must be at least 1."));
        }
        if offset < 0 {
            return Err(ApiError::field("offset", "The offset must be at least 0."));
        }
        search_query(self.query.as_deref())?;
        Ok(ListPage {
            limit,
            offset,
            from_date: list_date("fromDate", self.from_date.clone())?,
            to_date: list_date("toDate", self.to_date.clone())?,
            search: self.query.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string),
        })
    }
}

/// A list's day, `YYYY-MM-DD` (spaces around it taken off; blank is none); anything else a 422
/// naming `field`.
pub fn list_date(field: &str, value: Option<String>) -> Result<Option<String>, ApiError> {
    match value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => match chrono::NaiveDate::parse_from_str(&v, "%Y-%m-%d") {
            Ok(d) => Ok(Some(d.to_string())),
            Err(_) => Err(ApiError::Status {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                message: format!("The {field} must be a date in the format YYYY-MM-DD."),
                errors: Some(vec![format!("{field}: expected YYYY-MM-DD, got {v}")]),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(query: ListQuery) -> String {
        match query.read() {
            Err(ApiError::Validation(errors)) => errors.into_map().into_keys().collect::<Vec<_>>().join(","),
            Err(ApiError::Status { status, errors, .. }) => format!("{status} {errors:?}"),
            other => panic!("{other:?} was taken"),
        }
    }

    #[test]
    fn a_list_query_reads_its_page_days_and_search_or_names_what_is_wrong() {
        let read = ListQuery {
            from_date: Some(" 2026-12-01 ".into()),
            query: Some("  pos-7 ".into()),
            ..ListQuery::default()
        }
        .read()
        .unwrap();
        let expected = ListPage {
            limit: DEFAULT_LIMIT,
            offset: 0,
            from_date: Some("2026-12-01".into()),
            to_date: None,
            search: Some("pos-7".into()),
        };
        assert_eq!(read, expected);
        assert_eq!(
            ListQuery { query: Some("   ".into()), ..ListQuery::default() }.read().unwrap().search,
            None
        );
        assert_eq!(refused(ListQuery { limit: Some(0), offset: Some(-1), ..ListQuery::default() }), "limit");
        assert_eq!(refused(ListQuery { offset: Some(-1), ..ListQuery::default() }), "offset");
        assert_eq!(refused(ListQuery { query: Some("a\u{0}b".into()), ..ListQuery::default() }), "query");
        assert_eq!(
            refused(ListQuery { to_date: Some("1.12.2026".into()), ..ListQuery::default() }),
            "422 Unprocessable Entity Some([\"toDate: expected YYYY-MM-DD, got 1.12.2026\"])"
        );
    }
}
