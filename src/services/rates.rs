//! Currencies and exchange rates: the sources' rates (kept one hour in memory, every good read
//! kept in SQLite, the last good one served when a page cannot be had), the owner's manual rates
//! and currencies, and the rate a foreign-currency invoice takes.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Europe::Tirane;

use super::{Error, Exchange, Result, audit};
use crate::domain::audit::Action;
use crate::domain::currency::{self, Currency, LEK, ManualRate, ManualRateInput, Quote, RateLine, Source};
use crate::domain::validation::FieldErrors;
use crate::rates::Fetcher;
use crate::store::accounts::Caller;
use crate::store::rates as db;

/// After a failed read, the next try waits this long (or the cache's own time, when shorter),
/// so an offline box does not make every request wait for a bank's site.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(300);

/// A source's rates as served.
#[derive(Debug, Clone)]
pub struct SourceRates {
    /// Each currency's most recent quote.
    pub quotes: Vec<Quote>,
    /// When the page was last read successfully; none when it never was.
    pub fetched_at: Option<DateTime<Utc>>,
    /// The last read failed: these are the last good rates.
    pub stale: bool,
}

struct Cached {
    rates: SourceRates,
    checked: Instant,
}

/// The sources' rates in memory, with one read of a page at a time per source.
pub struct RateBook {
    fetcher: Arc<Fetcher>,
    ttl: Duration,
    cached: std::sync::Mutex<HashMap<Source, Cached>>,
    reading: HashMap<Source, tokio::sync::Mutex<()>>,
}

impl RateBook {
    /// Rates are read again once they are `ttl` old.
    pub fn new(fetcher: Fetcher, ttl: Duration) -> RateBook {
        RateBook {
            fetcher: Arc::new(fetcher),
            ttl,
            cached: std::sync::Mutex::new(HashMap::new()),
            reading: Source::ALL.into_iter().map(|s| (s, tokio::sync::Mutex::new(()))).collect(),
        }
    }

    fn fresh(&self, source: Source) -> Option<SourceRates> {
        let cached = self.cached.lock().ok()?;
        let entry = cached.get(&source)?;
        let keep = if entry.rates.stale { self.ttl.min(RETRY_AFTER_FAILURE) } else { self.ttl };
        (entry.checked.elapsed() < keep).then(|| entry.rates.clone())
    }

    fn remember(&self, source: Source, rates: &SourceRates) {
        if let Ok(mut cached) = self.cached.lock() {
            cached.insert(source, Cached { rates: rates.clone(), checked: Instant::now() });
        }
    }
}

/// Today in Tirane, the day manual rates and invoices are for.
pub fn today(now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&Tirane).date_naive()
}

/// A currency as the company sees it.
#[derive(Debug, Clone)]
pub struct CurrencyLine {
    pub currency: &'static Currency,
    pub enabled: bool,
    /// Today's rate (the central bank's, or the owner's); none for the lek and when unknown.
    pub rate: Option<RateLine>,
}

/// A source's rates for a company: the day's manual rates laid over the fetched ones.
#[derive(Debug, Clone)]
pub struct RatesView {
    pub source: Source,
    pub rates: BTreeMap<String, RateLine>,
    pub fetched_at: Option<DateTime<Utc>>,
    pub stale: bool,
}

fn known_currency(code: &str) -> Result<&'static Currency> {
    currency::find(code).ok_or_else(|| Error::NotFound("Currency".into()))
}

fn not_lek(currency: &Currency) -> Result<()> {
    if currency.code == LEK {
        return Err(FieldErrors::one("currency", "The lek needs no exchange rate.").into());
    }
    Ok(())
}

impl Exchange<'_> {
    /// `source`'s rates: from memory while fresh, else read from its page now; when the page
    /// cannot be had, the last good rates kept in the store (never an error for the caller).
    pub async fn source_rates(&self, source: Source) -> Result<SourceRates> {
        if let Some(rates) = self.services.rates.fresh(source) {
            return Ok(rates);
        }
        let Some(reading) = self.services.rates.reading.get(&source) else {
            return Err(Error::Broken("a rate source has no reader slot"));
        };
        let _one_at_a_time = reading.lock().await;
        // Another request may have read the page while this one waited.
        if let Some(rates) = self.services.rates.fresh(source) {
            return Ok(rates);
        }
        let fetcher = self.services.rates.fetcher.clone();
        let day = today(self.services.clock.utc());
        let fetched = tokio::task::spawn_blocking(move || fetcher.fetch(source, day)).await?;
        let stale = match fetched {
            Ok(quotes) => {
                let at = crate::store::now_text();
                self.services.store.write(move |tx| db::save_fetched(tx, source, &quotes, &at)).await?;
                false
            }
            Err(e) => {
                tracing::warn!(source = source.as_str(), error = %e, "exchange rates not read; serving the last good ones");
                true
            }
        };
        let (quotes, fetched_at) = self
            .services
            .store
            .read(move |conn| Ok((db::latest(conn, source)?, db::last_fetched_at(conn, source)?)))
            .await?;
        let fetched_at = fetched_at.as_deref().and_then(crate::domain::time::parse_stored);
        let rates = SourceRates { quotes, fetched_at, stale };
        self.services.rates.remember(source, &rates);
        Ok(rates)
    }

    async fn manual_rates_today(&self, caller: &Caller) -> Result<Vec<ManualRate>> {
        let company_id = caller.company.id;
        let day = today(self.services.clock.utc());
        Ok(self.services.store.read(move |conn| db::manual_rates_of(conn, company_id, day)).await?)
    }

    pub async fn exchange_rates(&self, caller: &Caller, source: Source) -> Result<RatesView> {
        let fetched = self.source_rates(source).await?;
        let manual = self.manual_rates_today(caller).await?;
        Ok(RatesView {
            source,
            rates: currency::rate_lines(source, &fetched.quotes, &manual),
            fetched_at: fetched.fetched_at,
            stale: fetched.stale,
        })
    }

    /// The currencies the company invoices in (`all`: every currency Arka knows), with today's
    /// central bank rate or the owner's.
    pub async fn currencies(&self, caller: &Caller, all: bool) -> Result<Vec<CurrencyLine>> {
        let company_id = caller.company.id;
        let changes = self.services.store.read(move |conn| db::currency_changes(conn, company_id)).await?;
        let official = self.exchange_rates(caller, Source::Boa).await?;
        Ok(currency::CURRENCIES
            .iter()
            .map(|c| CurrencyLine {
                currency: c,
                enabled: currency::is_enabled(c.code, &changes),
                rate: official.rates.get(c.code).cloned(),
            })
            .filter(|line| all || line.enabled)
            .collect())
    }

    pub async fn set_currency_enabled(
        &self,
        caller: &Caller,
        code: &str,
        enabled: bool,
    ) -> Result<CurrencyLine> {
        let currency = known_currency(code)?;
        if currency.code == LEK && !enabled {
            return Err(FieldErrors::one("enabled", "The lek (ALL) is always enabled.").into());
        }
        let company_id = caller.company.id;
        let entry = audit::by(caller, Action::SettingsCurrency, currency.code);
        self.services
            .store
            .write(move |tx| {
                let before = db::currency_changes(tx, company_id)?
                    .into_iter()
                    .find(|(code, _)| code == currency.code)
                    .map(|(_, enabled)| enabled);
                db::set_currency_enabled(tx, company_id, currency.code, enabled)?;
                let entry = entry
                    .before(serde_json::json!({ "enabled": before }))
                    .after(serde_json::json!({ "enabled": enabled }));
                crate::store::audit::append(tx, &entry)
            })
            .await?;
        let official = self.exchange_rates(caller, Source::Boa).await?;
        Ok(CurrencyLine { currency, enabled, rate: official.rates.get(currency.code).cloned() })
    }

    /// The company's manual rates from today on.
    pub async fn manual_rates(&self, caller: &Caller) -> Result<Vec<ManualRate>> {
        let company_id = caller.company.id;
        let day = today(self.services.clock.utc());
        Ok(self.services.store.read(move |conn| db::manual_rates(conn, company_id, day)).await?)
    }

    pub async fn set_manual_rate(
        &self,
        caller: &Caller,
        code: &str,
        input: ManualRateInput,
    ) -> Result<ManualRate> {
        let currency = known_currency(code)?;
        not_lek(currency)?;
        let rate = currency::manual_rate(currency.code, &input, today(self.services.clock.utc()))?;
        let (company_id, user_id) = (caller.company.id, caller.user.id);
        let saved = rate.clone();
        let entry = audit::by(caller, Action::SettingsManualRate, currency.code);
        self.services
            .store
            .write(move |tx| {
                let before = db::manual_rates_of(tx, company_id, saved.date)?
                    .into_iter()
                    .find(|r| r.currency == saved.currency)
                    .map(|r| rate_fields(&r));
                db::set_manual_rate(tx, company_id, user_id, &saved)?;
                let mut entry = entry.after(rate_fields(&saved));
                if let Some(before) = before {
                    entry = entry.before(before);
                }
                crate::store::audit::append(tx, &entry)
            })
            .await?;
        Ok(rate)
    }

    pub async fn delete_manual_rate(&self, caller: &Caller, code: &str, date: Option<String>) -> Result<()> {
        let currency = known_currency(code)?;
        not_lek(currency)?;
        let day = match date.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
            None => today(self.services.clock.utc()),
            Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
                Error::from(FieldErrors::one("date", "The date must be a date in the format YYYY-MM-DD."))
            })?,
        };
        let company_id = caller.company.id;
        let entry = audit::by(caller, Action::SettingsManualRate, currency.code);
        let removed = self
            .services
            .store
            .write(move |tx| {
                let before = db::manual_rates_of(tx, company_id, day)?
                    .into_iter()
                    .find(|r| r.currency == currency.code);
                let removed = db::delete_manual_rate(tx, company_id, currency.code, day)?;
                if let (true, Some(before)) = (removed, before) {
                    crate::store::audit::append(tx, &entry.before(rate_fields(&before)))?;
                }
                Ok::<_, Error>(removed)
            })
            .await?;
        if removed { Ok(()) } else { Err(Error::NotFound("Manual rate".into())) }
    }
}

/// A sale in `code`, a currency the company has not enabled (422 on `currency`).
pub(in crate::services) fn not_invoiced_in(code: &str) -> Error {
    FieldErrors::one(
        "currency",
        format!(
            "The company does not invoice in {code}: the owner enables it with PUT /api/v1/currencies/{code}."
        ),
    )
    .into()
}

/// What the audit trail keeps of a manual rate.
fn rate_fields(rate: &ManualRate) -> serde_json::Value {
    serde_json::json!({ "date": rate.date.to_string(), "rate": rate.rate.to_string(), "unit": rate.unit })
}
