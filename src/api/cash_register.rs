//! Cash register: open and close the day, deposit, withdraw, the actions list and the balance
//! (v1, and v2 for the balance). Every route acts on the user's TCR, or on the one a manager or
//! an owner names in `?tcr=`: without either the answer is HTTP 200 with status false.

use std::collections::BTreeMap;

use axum::extract::State;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, created, ok};
use super::extract::{Body, Query};
use super::fields;
use super::onboarding::PageView;
use crate::domain::cash_register::ActionType;
use crate::domain::drawer::{self, Count, Drawer};
use crate::domain::spelled::Spelled;
use crate::domain::time::{local_text, parse_stored};
use crate::domain::validation::FieldErrors;
use crate::services::cash_register::{ActionRequest, CloseCount, DaySummary, Opened};
use crate::store::cash_register::{Action, ListFilter};

fn stored_time(text: &str) -> String {
    parse_stored(text).map(local_text).unwrap_or_else(|| text.to_string())
}

/// The spec's cash-register action; the same shape in the list.
#[derive(Serialize)]
struct ActionView<'a> {
    id: i64,
    action_type: &'a str,
    amount: Decimal,
    currency: &'a str,
    transaction_date: String,
    transaction_no: i64,
    cash_action_no: &'a str,
    fiscal_status: &'a str,
    fiscal_uuid: &'a str,
    fiscal_fic: Option<&'a str>,
    description: &'a str,
}

impl<'a> From<&'a Action> for ActionView<'a> {
    fn from(a: &'a Action) -> Self {
        ActionView {
            id: a.id,
            action_type: a.action_type.as_str(),
            amount: a.amount,
            currency: &a.currency,
            transaction_date: stored_time(&a.transacted_at),
            transaction_no: a.transaction_no,
            cash_action_no: &a.cash_action_no,
            fiscal_status: &a.fiscal_status,
            fiscal_uuid: &a.fiscal_uuid,
            fiscal_fic: a.fiscal_fic.as_deref(),
            description: a.description.as_deref().unwrap_or_default(),
        }
    }
}

/// A closed day: its figures, what was counted and what left the drawer (in lek). `expected`
/// is the drawer's (banknotes); `balance` is the spec's, card sales included.
#[derive(Serialize)]
struct SummaryView<'a> {
    fiscal_tcr_code: &'a str,
    business_day: &'a str,
    opened_at: String,
    opened_automatically: bool,
    closed_at: Option<String>,
    currency: &'static str,
    carried_over: Decimal,
    opening: Decimal,
    cash_sales: Decimal,
    deposits: Decimal,
    withdrawals: Decimal,
    drawer: Drawer,
    /// The day's documents, sales less cancellations, by payment method (banknotes included).
    by_payment_method: BTreeMap<String, Decimal>,
    /// The same, every method but banknotes: not in the drawer.
    not_in_drawer: BTreeMap<String, Decimal>,
    expected: Decimal,
    counted: Decimal,
    denominations: Option<&'a Count>,
    difference: Decimal,
    withdrawn: Decimal,
    left_in_drawer: Decimal,
    balance: Decimal,
    balance_after: Decimal,
    opening_actions: Vec<ActionView<'a>>,
    closing_action: Option<ActionView<'a>>,
}

impl<'a> SummaryView<'a> {
    fn of(s: &'a DaySummary) -> Result<Self, ApiError> {
        let c = &s.closing;
        let f = &s.figures;
        let overflow = |_| ApiError::from(crate::services::Error::from(crate::store::Error::Overflow));
        Ok(SummaryView {
            fiscal_tcr_code: &s.day.tcr_code,
            business_day: &s.day.business_day,
            opened_at: stored_time(&s.day.opened_at),
            opened_automatically: s.day.opened_automatically,
            closed_at: s.day.closed_at.as_deref().map(stored_time),
            currency: "ALL",
            carried_over: c.carried_over,
            opening: f.opening,
            cash_sales: f.cash_sales,
            deposits: f.deposits,
            withdrawals: f.withdrawals,
            drawer: Drawer::of(f, c.expected).map_err(overflow)?,
            by_payment_method: f.takings.by_method().map_err(overflow)?,
            not_in_drawer: f.takings.not_in_drawer().map_err(overflow)?,
            expected: c.expected,
            counted: c.counted,
            denominations: s.count.as_ref(),
            difference: c.difference,
            withdrawn: c.withdraw,
            left_in_drawer: c.left_in_drawer,
            balance: c.balance,
            balance_after: c.balance_after,
            opening_actions: s.opening_actions.iter().map(ActionView::from).collect(),
            closing_action: s.closing_action.as_ref().map(ActionView::from),
        })
    }
}

#[derive(Serialize)]
struct Actions<'a> {
    items: Vec<ActionView<'a>>,
    pagination: PageView,
}

#[derive(Serialize)]
struct Balance<'a> {
    fiscal_tcr_code: &'a str,
    currency: &'static str,
    to_date: Option<String>,
    balance: Decimal,
}

/// `?tcr=`: the till a manager or an owner acts on (one's own without it; a cashier's is always
/// their own).
#[derive(Deserialize)]
pub struct TillQuery {
    tcr: Option<String>,
}

#[derive(Deserialize)]
pub struct OpenBody {
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    amount: Option<Decimal>,
    description: Option<String>,
}

/// `POST /api/v1/cash-register/open-balance`: 201 with the registered action, or 200 with the
/// day's opening when the day is already open with this amount.
pub async fn open_balance(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(till): Query<TillQuery>,
    Body(b): Body<OpenBody>,
) -> ApiResult {
    match state.services.cash().open_balance(&caller, till.tcr.as_deref(), b.amount, b.description).await? {
        Opened::Registered(action) => created(ActionView::from(&action)),
        Opened::Unchanged(action) => ok(ActionView::from(&action)),
    }
}

#[derive(Deserialize)]
pub struct ActionBody {
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    amount: Option<Decimal>,
    description: Option<String>,
    third_party: Option<String>,
    id_client: Option<i64>,
}

async fn action(
    state: AppState,
    auth: Auth,
    till: TillQuery,
    b: ActionBody,
    action_type: ActionType,
) -> ApiResult {
    let request = ActionRequest {
        amount: b.amount,
        description: b.description,
        third_party: b.third_party,
        id_client: b.id_client,
    };
    let saved = state.services.cash().cash_action(&auth.0, till.tcr.as_deref(), request, action_type).await?;
    created(ActionView::from(&saved))
}

/// `POST /api/v1/cash-register/deposit` (MONEY_IN).
pub async fn deposit(
    State(s): State<AppState>,
    auth: Auth,
    Query(till): Query<TillQuery>,
    Body(b): Body<ActionBody>,
) -> ApiResult {
    action(s, auth, till, b, ActionType::MoneyIn).await
}

/// `POST /api/v1/cash-register/withdraw` (MONEY_OUT).
pub async fn withdraw(
    State(s): State<AppState>,
    auth: Auth,
    Query(till): Query<TillQuery>,
    Body(b): Body<ActionBody>,
) -> ApiResult {
    action(s, auth, till, b, ActionType::MoneyOut).await
}

/// Strict: `withdraw` left out takes everything counted, so a misspelt key must not read as
/// "withdraw all".
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseBody {
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    counted: Option<Decimal>,
    /// The count by lek notes and coins: pieces by denomination (`{"5000": 2, "100": 3}`).
    denominations: Option<BTreeMap<String, serde_json::Value>>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    withdraw: Option<Decimal>,
}

/// `POST /api/v1/cash-register/close-balance`: 200 with the day's summary.
pub async fn close_balance(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(till): Query<TillQuery>,
    Body(b): Body<CloseBody>,
) -> ApiResult {
    let by_denomination = match &b.denominations {
        Some(sent) => Some(drawer::read_count("denominations", sent).map_err(ApiError::Validation)?),
        None => None,
    };
    let count = CloseCount { counted: b.counted, by_denomination, withdraw: b.withdraw };
    let summary = state.services.cash().close_balance(&caller, till.tcr.as_deref(), count).await?;
    ok(SummaryView::of(&summary)?)
}

fn date(field: &str, value: Option<&str>) -> Result<Option<chrono::NaiveDate>, ApiError> {
    let mut errors = FieldErrors::new();
    let day = errors.date(field, value);
    errors.into_result().map_err(ApiError::Validation)?;
    Ok(day)
}

#[derive(Deserialize)]
pub struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "fromDate")]
    from_date: Option<String>,
    #[serde(rename = "toDate")]
    to_date: Option<String>,
    tcr: Option<String>,
}

/// `GET /api/v1/cash-register/actions`: newest first; `type` is one or more of INITIAL,
/// MONEY_IN, MONEY_OUT (the CIS's DEPOSIT and WITHDRAW are read as the latter two).
pub async fn actions(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<ListQuery>,
) -> ApiResult {
    let limit = q.limit.unwrap_or(20);
    let offset = q.offset.unwrap_or(0);
    if limit < 1 {
        return Err(ApiError::field("limit", "The limit must be at least 1."));
    }
    if offset < 0 {
        return Err(ApiError::field("offset", "The offset must be at least 0."));
    }
    let mut action_types = Vec::new();
    for kind in q.kind.as_deref().unwrap_or("").split(',').map(|k| k.trim().to_uppercase()) {
        let read = match kind.as_str() {
            "" => continue,
            "DEPOSIT" => ActionType::MoneyIn,
            "WITHDRAW" => ActionType::MoneyOut,
            other => <ActionType as Spelled>::parse(other).ok_or_else(|| {
                ApiError::field("type", "The type must be one or more of INITIAL, MONEY_IN, MONEY_OUT.")
            })?,
        };
        action_types.push(read);
    }
    let filter = ListFilter {
        action_types,
        from_date: date("fromDate", q.from_date.as_deref())?.map(|d| d.to_string()),
        to_date: date("toDate", q.to_date.as_deref())?.map(|d| d.to_string()),
        limit,
        offset,
    };
    let actions = state.services.cash().cash_actions(&caller, q.tcr.as_deref(), filter).await?;
    let items: Vec<ActionView> = actions.iter().map(ActionView::from).collect();
    ok(Actions { pagination: PageView { records: items.len(), limit, offset }, items })
}

#[derive(Deserialize)]
pub struct BalanceQuery {
    #[serde(rename = "toDate")]
    to_date: Option<String>,
    tcr: Option<String>,
}

/// `GET /api/v1/cash-register/balance` and `GET /api/v2/cash-register/balance`.
pub async fn balance(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<BalanceQuery>,
) -> ApiResult {
    let to_date = date("toDate", q.to_date.as_deref())?;
    let (tcr_code, balance) = state.services.cash().cash_balance(&caller, q.tcr.as_deref(), to_date).await?;
    ok(Balance { fiscal_tcr_code: &tcr_code, currency: "ALL", to_date: q.to_date, balance })
}
