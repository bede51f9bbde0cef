//! Currencies and exchange rates (v1): the currencies the company invoices in, the sources'
//! rates, and the owner's manual rates and currency switches.

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::extract::{Changes, Query};
use super::fields;
use crate::domain::currency::{LEK, ManualRate, ManualRateInput, RateLine, Source, per_unit};
use crate::domain::time::local_text;
use crate::services::rates::CurrencyLine;

/// One currency's rate in `rates`.
#[derive(Serialize)]
struct RateView {
    /// Selling rate, lek per one unit.
    rate: Decimal,
    /// Units the source quotes for.
    unit: u32,
    /// The selling rate as the source writes it: lek for `unit` units.
    quoted: Decimal,
    /// Buying rate, lek per one unit; null when the source has none.
    buy: Option<Decimal>,
    date: String,
    /// The source, or MANUAL for the owner's rate of the day.
    source: &'static str,
}

impl From<&RateLine> for RateView {
    fn from(line: &RateLine) -> Self {
        RateView {
            rate: line.rate,
            unit: line.unit,
            quoted: line.quoted,
            buy: line.buy,
            date: line.date.to_string(),
            source: line.origin.as_str(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RatesData {
    rates: BTreeMap<String, RateView>,
    source: &'static str,
    /// When the source's page was last read successfully (local time); null when never.
    fetched_at: Option<String>,
    /// The last read of the page failed: these are the last good rates.
    stale: bool,
}

#[derive(Deserialize)]
pub struct RatesQuery {
    source: Option<String>,
}

pub async fn exchange_rates(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<RatesQuery>,
) -> ApiResult {
    let view =
        state.services.exchange().exchange_rates(&caller, Source::from_query(q.source.as_deref())).await?;
    ok(RatesData {
        rates: view.rates.iter().map(|(code, line)| (code.clone(), RateView::from(line))).collect(),
        source: view.source.as_str(),
        fetched_at: view.fetched_at.map(local_text),
        stale: view.stale,
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CurrencyView {
    code: &'static str,
    name: &'static str,
    symbol: &'static str,
    enabled: bool,
    /// Today's rate, lek per one unit: the central bank's or the owner's; 1 for the lek, null
    /// when none is known.
    rate: Option<Decimal>,
    rate_source: Option<&'static str>,
    rate_date: Option<String>,
}

impl From<&CurrencyLine> for CurrencyView {
    fn from(line: &CurrencyLine) -> Self {
        let c = line.currency;
        let lek = c.code == LEK;
        CurrencyView {
            code: c.code,
            name: c.name,
            symbol: c.symbol,
            enabled: line.enabled,
            rate: if lek { Some(Decimal::ONE) } else { line.rate.as_ref().map(|r| r.rate) },
            rate_source: line.rate.as_ref().map(|r| r.origin.as_str()),
            rate_date: line.rate.as_ref().map(|r| r.date.to_string()),
        }
    }
}

#[derive(Serialize)]
struct CurrencyList {
    items: Vec<CurrencyView>,
}

#[derive(Deserialize)]
pub struct CurrenciesQuery {
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    all: Option<bool>,
}

pub async fn currencies(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<CurrenciesQuery>,
) -> ApiResult {
    let lines = state.services.exchange().currencies(&caller, q.all.unwrap_or(false)).await?;
    ok(CurrencyList { items: lines.iter().map(CurrencyView::from).collect() })
}

/// A currency code in the path, upper-cased; a path that cannot be read names no currency (404).
pub struct CurrencyCode(String);

impl<S: Send + Sync> FromRequestParts<S> for CurrencyCode {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::not_found("Currency"))?;
        Ok(CurrencyCode(raw.trim().to_uppercase()))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurrencyBody {
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    enabled: Option<bool>,
}

#[derive(Serialize)]
struct CurrencyData {
    currency: CurrencyView,
}

pub async fn set_currency(
    State(state): State<AppState>,
    Auth(caller): Auth,
    CurrencyCode(code): CurrencyCode,
    Changes(body): Changes<CurrencyBody>,
) -> ApiResult {
    let enabled = body.enabled.ok_or_else(|| ApiError::field("enabled", "The enabled field is required."))?;
    let line = state.services.exchange().set_currency_enabled(&caller, &code, enabled).await?;
    ok(CurrencyData { currency: CurrencyView::from(&line) })
}

#[derive(Serialize)]
struct ManualRateView {
    currency: String,
    /// Lek per one unit.
    rate: Decimal,
    unit: u32,
    /// As the owner entered it: lek for `unit` units.
    quoted: Decimal,
    date: String,
}

impl From<&ManualRate> for ManualRateView {
    fn from(m: &ManualRate) -> Self {
        ManualRateView {
            currency: m.currency.clone(),
            rate: per_unit(m.rate, m.unit),
            unit: m.unit,
            quoted: m.rate,
            date: m.date.to_string(),
        }
    }
}

#[derive(Serialize)]
struct ManualRateList {
    items: Vec<ManualRateView>,
}

pub async fn manual_rates(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let rates = state.services.exchange().manual_rates(&caller).await?;
    ok(ManualRateList { items: rates.iter().map(ManualRateView::from).collect() })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManualRateBody {
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    rate: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_integer")]
    unit: Option<i64>,
    #[serde(default, deserialize_with = "fields::opt_text")]
    date: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ManualRateData {
    manual_rate: ManualRateView,
}

pub async fn set_manual_rate(
    State(state): State<AppState>,
    Auth(caller): Auth,
    CurrencyCode(code): CurrencyCode,
    Changes(body): Changes<ManualRateBody>,
) -> ApiResult {
    let input = ManualRateInput { rate: body.rate, unit: body.unit, date: body.date };
    let rate = state.services.exchange().set_manual_rate(&caller, &code, input).await?;
    ok(ManualRateData { manual_rate: ManualRateView::from(&rate) })
}

#[derive(Deserialize)]
pub struct DayQuery {
    date: Option<String>,
}

#[derive(Serialize)]
struct Removed {
    currency: String,
}

pub async fn delete_manual_rate(
    State(state): State<AppState>,
    Auth(caller): Auth,
    CurrencyCode(code): CurrencyCode,
    Query(q): Query<DayQuery>,
) -> ApiResult {
    state.services.exchange().delete_manual_rate(&caller, &code, q.date).await?;
    ok(Removed { currency: code })
}
