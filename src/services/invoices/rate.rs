//! The rate of a sale in a foreign currency: the company's currencies as the sale read them in
//! its snapshot, a rate sent, today's manual rate or the central bank's.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::super::{Result, Selling};
use super::IssueRequest;
use crate::domain::currency::{self, KnownRates, LEK, ManualRate, Quote, RateBasis, Source};
use crate::domain::validation::is_currency_code;
use crate::store::rates as db;

impl Selling<'_> {
    /// Settles the rate of a foreign-currency invoice before its rules run, from what the sale
    /// read in its snapshot (`sale_rates_read`): the currency must be one the company invoices
    /// in; a positive `exchange_rate` sent is kept, else today's manual rate or the central
    /// bank's is put in the request. Lek invoices are left as they are.
    pub(in crate::services) async fn exchange_rate_of_sale(
        &self,
        read: Option<SaleRatesRead>,
        req: &mut IssueRequest,
    ) -> Result<Option<RateBasis>> {
        let Some(SaleRatesRead { code, changes, manual }) = read else {
            return Ok(None);
        };
        if !currency::is_enabled(&code, &changes) {
            return Err(crate::services::rates::not_invoiced_in(&code));
        }
        let sent = sent_rate(req);
        let known = match sent {
            Some(_) => KnownRates::default(),
            None => {
                let official = self.services.exchange().source_rates(Source::Boa).await?;
                let per_unit = |q: &Quote| (currency::per_unit(q.sell, q.unit), q.date);
                KnownRates {
                    manual: manual
                        .iter()
                        .find(|m| m.currency == code)
                        .map(|m| (currency::per_unit(m.rate, m.unit), m.date)),
                    official: official.quotes.iter().find(|q| q.currency == code).map(per_unit),
                }
            }
        };
        let basis = currency::invoice_rate(&code, sent, &known)?;
        req.rules.exchange_rate = Some(basis.rate);
        Ok(Some(basis))
    }
}

/// A rate the request sent itself (positive).
fn sent_rate(req: &IssueRequest) -> Option<Decimal> {
    req.rules.exchange_rate.filter(|r| r.is_sign_positive() && !r.is_zero())
}

/// What a sale in a foreign currency reads of the company's currencies: which it enabled, and
/// today's manual rates when the request sent no rate.
pub struct SaleRatesRead {
    code: String,
    changes: Vec<(String, bool)>,
    manual: Vec<ManualRate>,
}

/// The currency reads of a sale `req` of `company_id` on `day`, on `conn` (the sale's snapshot);
/// None in lek or in a code that is no currency's (the domain's rules name it).
pub(in crate::services) fn sale_rates_read(
    conn: &rusqlite::Connection,
    company_id: i64,
    req: &IssueRequest,
    day: NaiveDate,
) -> crate::store::Result<Option<SaleRatesRead>> {
    let code = req.currency.as_deref().map(str::trim).filter(|c| !c.is_empty()).unwrap_or(LEK).to_uppercase();
    if code == LEK || !is_currency_code(&code) {
        return Ok(None);
    }
    let changes = db::currency_changes(conn, company_id)?;
    let manual = match sent_rate(req) {
        Some(_) => Vec::new(),
        None => db::manual_rates_of(conn, company_id, day)?,
    };
    Ok(Some(SaleRatesRead { code, changes, manual }))
}
