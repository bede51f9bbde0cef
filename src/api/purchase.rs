//! Purchase invoices (v1): the e-invoices addressed to the company, page by page, and the
//! company's answer to one of them.

use axum::extract::{Path, State};
use chrono_tz::Europe::Tirane;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::{Body, Query};
use crate::domain::time::{local_text, parse_stored};
use crate::domain::validation::FieldErrors;
use crate::services::purchase::Source;
use crate::store::purchase::PurchaseInvoice;

/// The widest window one read may ask the platform for.
const MAX_DAYS: i64 = 366;
/// The highest page: far beyond what a window of the platform's answers holds.
const MAX_PAGE: i64 = 1_000_000;

#[derive(Deserialize)]
pub struct ListQuery {
    #[serde(rename = "fromDate")]
    from_date: Option<String>,
    #[serde(rename = "toDate")]
    to_date: Option<String>,
    page: Option<i64>,
}

/// One item of the list (and the answer of a status change).
#[derive(Serialize)]
struct Item<'a> {
    eic: &'a str,
    number: &'a str,
    doc_type: &'a str,
    seller_nuis: Option<&'a str>,
    seller_name: Option<&'a str>,
    issue_date: &'a str,
    due_date: Option<&'a str>,
    #[serde(with = "rust_decimal::serde::float")]
    amount: Decimal,
    currency: &'a str,
    status: &'a str,
}

impl<'a> From<&'a PurchaseInvoice> for Item<'a> {
    fn from(p: &'a PurchaseInvoice) -> Self {
        Item {
            eic: &p.eic,
            number: &p.doc_number,
            doc_type: &p.doc_type,
            seller_nuis: p.seller_nuis.as_deref(),
            seller_name: p.seller_name.as_deref(),
            issue_date: &p.received_date,
            due_date: p.due_date.as_deref(),
            amount: p.amount,
            currency: &p.currency,
            status: &p.status,
        }
    }
}

#[derive(Serialize)]
struct Pagination {
    records: usize,
    page: i64,
}

#[derive(Serialize)]
struct Page<'a> {
    items: Vec<Item<'a>>,
    pagination: Pagination,
    /// `platform`, or `cache` when the platform did not answer.
    source: &'static str,
    /// When the platform gave what is shown, `YYYY-MM-DD HH:MM:SS` Tirane time.
    fetched_at: String,
}

pub async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<ListQuery>,
) -> ApiResult {
    let today = state.clock.utc().with_timezone(&Tirane).date_naive();
    let mut errors = FieldErrors::new();
    let from = errors.date("fromDate", q.from_date.as_deref()).unwrap_or(today);
    let to = errors.date("toDate", q.to_date.as_deref()).unwrap_or(today);
    if errors.is_empty() && to < from {
        errors.add("toDate", "The toDate must be a date after or equal to fromDate.");
    }
    if errors.is_empty() && (to - from).num_days() >= MAX_DAYS {
        errors.add("toDate", format!("At most {MAX_DAYS} days are read at once."));
    }
    let page = q.page.unwrap_or(1);
    if !(1..=MAX_PAGE).contains(&page) {
        errors.add("page", format!("The page must be between 1 and {MAX_PAGE}."));
    }
    errors.into_result().map_err(ApiError::Validation)?;
    let read = state.services.purchases().purchase_invoices(&caller, from, to, page).await?;
    let (source, fetched_at) = match &read.source {
        Source::Platform => ("platform", local_text(state.clock.utc())),
        Source::Cache { fetched_at } => {
            ("cache", parse_stored(fetched_at).map(local_text).unwrap_or_else(|| fetched_at.clone()))
        }
    };
    let items: Vec<Item> = read.items.iter().map(Item::from).collect();
    ok(Page { pagination: Pagination { records: items.len(), page }, items, source, fetched_at })
}

#[derive(Deserialize)]
pub struct StatusBody {
    status: Option<String>,
}

pub async fn change_status(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(eic): Path<String>,
    Body(body): Body<StatusBody>,
) -> ApiResult {
    let Some(status) = body.status.filter(|s| !s.trim().is_empty()) else {
        return Err(ApiError::field(
            "status",
            "The status field is required: ACCEPTED, REFUSED, PAID or PARTIALLY_PAID.",
        ));
    };
    let changed = state.services.purchases().change_purchase_status(&caller, &eic, &status).await?;
    ok(StatusChanged { purchase_invoice: Item::from(&changed) })
}

#[derive(Serialize)]
struct StatusChanged<'a> {
    purchase_invoice: Item<'a>,
}
