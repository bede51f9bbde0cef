//! The owner's routes: what the owner's page needs that no route of the spec gives, for the
//! caller's company: the day and the queue (any user of it), and the re-send of a document the
//! CIS refused (the owner).

use std::collections::BTreeMap;

use axum::extract::State;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::Query;
use crate::domain::drawer::{DayFigures, Drawer};
use crate::domain::sales_day::TillSales;
// The owner's day's shape is the core's: the head office answers it too.
use crate::domain::time::{local_text, parse_stored};
use crate::fiscal::queue::{LEGAL_LIMIT_HOURS, WARN_AFTER_HOURS, age_hours};
use crate::services::owner::Till;
use crate::services::queue::RefusedDocument;
use crate::store::fiscal_queue::Queued;
pub(crate) use arka_core::report::SalesView;

fn stored_time(text: &str) -> String {
    parse_stored(text).map(local_text).unwrap_or_else(|| text.to_string())
}

#[derive(Serialize)]
struct DayView {
    state: &'static str,
    /// The latest day's date (an open day may have started on an earlier date).
    business_day: Option<String>,
    opened_at: Option<String>,
    opened_automatically: Option<bool>,
    closed_at: Option<String>,
    /// While open: the day's figures as close-balance will count them.
    opening: Option<Decimal>,
    /// The day's cash documents in full, as the spec's balance counts them (card included).
    cash_sales: Option<Decimal>,
    deposits: Option<Decimal>,
    withdrawals: Option<Decimal>,
    /// While open: the drawer, move by move.
    drawer: Option<Drawer>,
    /// While open: the day's documents, sales less cancellations, by every payment method but
    /// banknotes: not in the drawer.
    not_in_drawer: Option<BTreeMap<String, Decimal>>,
    /// While open: what the drawer should hold (close-balance's `expected`), banknotes only.
    expected: Option<Decimal>,
}

#[derive(Serialize)]
struct TillView {
    fiscal_tcr_code: String,
    name: String,
    business_unit_code: String,
    /// The caller's own TCR: the one the cash-register routes act on without `?tcr=`.
    mine: bool,
    /// The spec's balance (`GET /cash-register/balance`): card sales included.
    balance: Decimal,
    day: DayView,
    sales: SalesView,
}

fn till_view(till: &Till, sales: Option<&TillSales>, mine: Option<&str>) -> Result<TillView, ApiError> {
    let day = till.day.as_ref();
    let open: Option<&(DayFigures, Drawer)> = day.and_then(|(_, f)| f.as_ref());
    let not_in_drawer = match open {
        Some((figures, _)) => Some(
            figures
                .takings
                .not_in_drawer()
                .map_err(|_| ApiError::from(crate::services::Error::from(crate::store::Error::Overflow)))?,
        ),
        None => None,
    };
    Ok(TillView {
        fiscal_tcr_code: till.device.tcr_code.clone(),
        name: till.device.name.clone(),
        business_unit_code: till.device.business_unit_code.clone(),
        mine: mine == Some(till.device.tcr_code.as_str()),
        balance: till.balance,
        day: DayView {
            state: till.state.as_str(),
            business_day: day.map(|(d, _)| d.business_day.clone()),
            opened_at: day.map(|(d, _)| stored_time(&d.opened_at)),
            opened_automatically: day.map(|(d, _)| d.opened_automatically),
            closed_at: day.and_then(|(d, _)| d.closed_at.as_deref().map(stored_time)),
            opening: open.map(|(f, _)| f.opening),
            cash_sales: open.map(|(f, _)| f.cash_sales),
            deposits: open.map(|(f, _)| f.deposits),
            withdrawals: open.map(|(f, _)| f.withdrawals),
            drawer: open.map(|(_, d)| *d),
            not_in_drawer,
            expected: open.map(|(_, d)| d.expected),
        },
        sales: SalesView::of_till(sales.unwrap_or(&TillSales::default())),
    })
}

#[derive(Serialize)]
struct TodayView {
    business_day: String,
    currency: &'static str,
    totals: SalesView,
    tills: Vec<TillView>,
    /// The non-cash invoices of the day (issued without a TCR).
    noncash: Option<SalesView>,
    /// In a chain (`--hq-url`): what waits for the head office; absent for a lone shop.
    #[serde(skip_serializing_if = "Option::is_none")]
    hq: Option<HqBacklogView>,
    /// After a restore: the tills retired (their last number in the restored books, and the TCR
    /// each goes on with), and the e-invoices the CIS lists that the books lack. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    restored: Option<RestoredView>,
}

#[derive(Serialize)]
struct RestoredView {
    retired_tcrs: Vec<RetiredTcrView>,
    cis_only_einvoices: Vec<CisOnlyView>,
}

#[derive(Serialize)]
struct RetiredTcrView {
    tcr_code: String,
    name: String,
    retired_at: String,
    /// The last cash number the restored books hold on it: the CIS may hold later ones.
    last_number: i64,
    /// The TCR the till goes on with; none until the CIS registered it.
    continued_by: Option<String>,
}

#[derive(Serialize)]
struct CisOnlyView {
    eic: String,
    doc_number: Option<String>,
    amount: Option<String>,
    received_at: Option<String>,
}

impl RestoredView {
    fn of(
        retired: Vec<crate::store::devices::Retired>,
        cis_only: Vec<crate::store::devices::CisOnly>,
    ) -> Option<Self> {
        (!retired.is_empty()).then(|| RestoredView {
            retired_tcrs: retired
                .into_iter()
                .map(|r| RetiredTcrView {
                    retired_at: stored_time(&r.retired_at),
                    tcr_code: r.tcr_code,
                    name: r.name,
                    last_number: r.last_number,
                    continued_by: r.continued_by,
                })
                .collect(),
            cis_only_einvoices: cis_only
                .into_iter()
                .map(|e| CisOnlyView {
                    eic: e.eic,
                    doc_number: e.doc_number,
                    amount: e.amount,
                    received_at: e.received_at,
                })
                .collect(),
        })
    }
}

#[derive(Serialize)]
struct HqBacklogView {
    /// Changes noted and not yet acknowledged by the head office.
    backlog: i64,
    oldest_noted_at: Option<String>,
    oldest_age_seconds: Option<i64>,
    /// Changes the head office refused, set aside here (kept, not lost).
    set_aside: i64,
    /// What keeps the changes from the head office now, in the shop's words.
    problem: Option<String>,
}

/// `GET /api/v1/owner/today`: today's sales per TCR and payment method, each TCR's balance and
/// day, for the caller's company.
pub async fn today(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let today = state.services.owner_today(&caller).await?;
    let hq = state.services.head_office().hq_backlog(state.clock.utc()).await?.map(|w| HqBacklogView {
        backlog: w.notes,
        oldest_noted_at: w.oldest_noted_at.as_deref().map(stored_time),
        oldest_age_seconds: w.oldest_age_seconds,
        set_aside: w.set_aside,
        problem: w.problem,
    });
    let mine = caller.user.tcr_code.as_deref();
    let sales_of = |code: &str| today.sales.tills.iter().find(|t| t.tcr_code.as_deref() == Some(code));
    ok(TodayView {
        business_day: today.business_day.to_string(),
        currency: "ALL",
        totals: SalesView::of_day(&today.sales),
        tills: today
            .tills
            .iter()
            .map(|t| till_view(t, sales_of(&t.device.tcr_code), mine))
            .collect::<Result<_, _>>()?,
        noncash: today.sales.tills.iter().find(|t| t.tcr_code.is_none()).map(SalesView::of_till),
        hq,
        restored: {
            let (retired, cis_only) = state.services.onboarding().restore_findings().await?;
            RestoredView::of(retired, cis_only)
        },
    })
}

#[derive(Deserialize)]
pub struct QueueQuery {
    limit: Option<i64>,
}

/// The most documents one answer lists.
const MAX_QUEUE_LIMIT: i64 = 500;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WaitingView {
    queue_id: i64,
    /// The CIS request, e.g. `RegisterInvoiceRequest`.
    document: String,
    number: Option<String>,
    tcr_code: Option<String>,
    issued_at: String,
    age_hours: Option<i64>,
    /// Past the warning mark (36 hours) of the 48-hour limit.
    near_legal_limit: bool,
    attempts: i64,
    /// Why the last try did not get through.
    last_error: Option<String>,
    /// When the 48 hours of late delivery end: the document's IssueDateTime plus the legal limit.
    deadline: Option<String>,
}

fn waiting_view(q: &Queued, now: chrono::DateTime<chrono::Utc>) -> WaitingView {
    let age = age_hours(&q.issued_at, now);
    WaitingView {
        queue_id: q.id,
        document: q.operation.clone(),
        number: q.document_number.clone(),
        tcr_code: q.tcr_code.clone(),
        issued_at: stored_time(&q.issued_at),
        age_hours: age,
        near_legal_limit: age.is_some_and(|h| h >= WARN_AFTER_HOURS),
        attempts: q.attempts,
        last_error: q.last_error.clone(),
        deadline: parse_stored(&q.issued_at)
            .map(|t| local_text(t + chrono::Duration::hours(LEGAL_LIMIT_HOURS))),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct QueueView {
    waiting: usize,
    oldest_waiting_since: Option<String>,
    oldest_age_hours: Option<i64>,
    warn_after_hours: i64,
    legal_limit_hours: i64,
    /// Oldest first, at most `limit`.
    items: Vec<WaitingView>,
    /// What the CIS refused, as `GET /api/v1/account` lists it.
    refused: Vec<RefusedView>,
}

/// A document the CIS refused (here and in `GET /api/v1/account`'s `fiscalQueue.refused`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RefusedView {
    queue_id: i64,
    document: String,
    number: Option<String>,
    issued_at: Option<String>,
    code: Option<String>,
    reason: String,
    /// The number stays reserved for the document's retry with the same internalId.
    number_held: bool,
}

impl RefusedView {
    pub(super) fn of(r: &RefusedDocument) -> RefusedView {
        RefusedView {
            queue_id: r.queue_id,
            document: r.operation.clone(),
            number: r.number.clone(),
            issued_at: r.issued_at.map(local_text),
            code: r.fault_code.clone(),
            reason: r.reason.clone(),
            number_held: r.number_held,
        }
    }
}

/// `GET /api/v1/owner/queue`: the caller's company's documents waiting for the CIS, oldest
/// first, with their ages, and those the CIS refused with its reason.
pub async fn queue(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<QueueQuery>,
) -> ApiResult {
    let limit = q.limit.unwrap_or(100);
    if !(1..=MAX_QUEUE_LIMIT).contains(&limit) {
        return Err(ApiError::field("limit", format!("The limit must be between 1 and {MAX_QUEUE_LIMIT}.")));
    }
    let limit = usize::try_from(limit).unwrap_or(1);
    let found = state.services.owner_queue(&caller, limit).await?;
    let now = state.clock.utc();
    let summary = &found.summary;
    ok(QueueView {
        waiting: summary.waiting,
        oldest_waiting_since: summary.oldest_waiting_issued_at.map(local_text),
        oldest_age_hours: summary.oldest_waiting_issued_at.map(|t| (now - t).num_hours()),
        warn_after_hours: WARN_AFTER_HOURS,
        legal_limit_hours: LEGAL_LIMIT_HOURS,
        items: found.oldest_first.iter().map(|q| waiting_view(q, now)).collect(),
        refused: summary.refused.iter().map(RefusedView::of).collect(),
    })
}

/// `POST /api/v1/owner/queue/{queueId}/resend`: the owner sends a document the CIS refused
/// again, once its cause is corrected; it waits for the CIS as a late delivery and the queue sends
/// it within a second. 404 when the company has no refused document with this id.
pub async fn resend(
    State(state): State<AppState>,
    Auth(caller): Auth,
    super::extract::PathId(queue_id): super::extract::PathId,
) -> ApiResult {
    if !state.services.resend_refused(&caller, queue_id).await? {
        return Err(ApiError::status(
            axum::http::StatusCode::NOT_FOUND,
            "The company has no document the CIS refused with this queue id.",
        ));
    }
    ok(Resent { queue_id, resent: true })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Resent {
    queue_id: i64,
    resent: bool,
}
