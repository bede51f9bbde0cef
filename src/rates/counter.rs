//! The rates board of a bank or an exchange bureau: a table with one row per currency, its code
//! (sometimes after a flag, sometimes with "(100)"), then a buying and a selling rate in lek. Pages
//! put the two in either order, so the higher one is taken as the selling rate: a counter always
//! sells dearer than it buys.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::Error;
use super::html::{self, Table};
use crate::domain::currency::Quote;

/// The quotes of every table of `page`; `who` names the page in the error when there are none.
pub fn read(page: &str, today: NaiveDate, who: &str) -> Result<Vec<Quote>, Error> {
    let quotes: Vec<Quote> = html::tables(page).iter().flat_map(|t| table_quotes(t, today)).collect();
    if quotes.is_empty() {
        return Err(Error::Unreadable(format!("no rates board on {who}'s page")));
    }
    Ok(quotes)
}

fn table_quotes(table: &Table, today: NaiveDate) -> Vec<Quote> {
    let date = html::last_date(&table.before).unwrap_or(today);
    table.rows.iter().filter_map(|row| row_quote(row, date)).collect()
}

/// The first two positive rates among `texts`, as (selling, buying): the higher one sells.
pub fn sell_and_buy<'a>(texts: impl IntoIterator<Item = &'a String>) -> Option<(Decimal, Decimal)> {
    let rates: Vec<Decimal> = texts
        .into_iter()
        .filter_map(|text| html::number(text))
        .filter(|r| r.is_sign_positive() && !r.is_zero())
        .take(2)
        .collect();
    let [a, b] = rates[..] else { return None };
    Some((a.max(b), a.min(b)))
}

fn row_quote(row: &[String], date: NaiveDate) -> Option<Quote> {
    let at = row.iter().position(|cell| html::currency_code(cell).is_some())?;
    let currency = html::currency_code(&row[at])?;
    let (sell, buy) = sell_and_buy(&row[at + 1..])?;
    let unit = html::unit_in(&row[at]).filter(|u| *u > 0).unwrap_or(1);
    Some(Quote { currency, unit, sell, buy: Some(buy), date })
}
