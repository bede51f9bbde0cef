//! The Bank of Albania's official rate page ("Kursi zyrtar i këmbimit"): a table of the main
//! currencies fixed every working day and one of those fixed twice a month, each after a
//! "last update" line with its date; rows of name, ISO code, lek rate and change.

use chrono::NaiveDate;

use super::html::{self, Table};
use super::{Error, RatePage};
use crate::domain::currency::{Quote, Source};

/// Quoted per 100 units by the central bank's regulation, whether or not the label says so.
const PER_HUNDRED: [&str; 3] = ["JPY", "HUF", "RUB"];

pub struct Boa;

impl RatePage for Boa {
    fn source(&self) -> Source {
        Source::Boa
    }

    fn read(&self, page: &str, today: NaiveDate) -> Result<Vec<Quote>, Error> {
        let quotes: Vec<Quote> = html::tables(page).iter().flat_map(|t| table_quotes(t, today)).collect();
        if quotes.is_empty() {
            return Err(Error::Unreadable("no rate table on the central bank's page".into()));
        }
        Ok(quotes)
    }
}

fn table_quotes(table: &Table, today: NaiveDate) -> Vec<Quote> {
    let date = html::last_date(&table.before).unwrap_or(today);
    table.rows.iter().filter_map(|row| row_quote(row, date)).collect()
}

/// `name | CODE | rate | change`: the code is the cell that is exactly a code, the rate the cell
/// after it, the name the cell before it.
fn row_quote(row: &[String], date: NaiveDate) -> Option<Quote> {
    let at =
        row.iter().position(|cell| cell.len() == 3 && html::currency_code(cell).as_deref() == Some(cell))?;
    let sell = html::number(row.get(at + 1)?).filter(|r| r.is_sign_positive() && !r.is_zero())?;
    let currency = row[at].clone();
    let label = at.checked_sub(1).and_then(|i| row.get(i)).map(String::as_str).unwrap_or_default();
    let unit = html::unit_in(label)
        .filter(|u| *u > 0)
        .unwrap_or(if PER_HUNDRED.contains(&currency.as_str()) { 100 } else { 1 });
    Some(Quote { currency, unit, sell, buy: None, date })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    const PAGE: &str = include_str!("../../tests/fixtures/rates/boa.html");

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn reads_both_tables_of_the_saved_page_with_their_dates() {
        let quotes = Boa.read(PAGE, day("2026-11-23")).unwrap();
        let find = |code: &str| quotes.iter().find(|q| q.currency == code).unwrap().clone();
        // | code | unit | quoted     | date       |
        let table = [
            ("USD", 1, "84.12", "2026-11-20"),
            ("EUR", 1, "97.35", "2026-11-20"),
            ("GBP", 1, "110.51", "2026-11-20"),
            ("CHF", 1, "104.20", "2026-11-20"),
            ("JPY", 100, "54.31", "2026-11-20"),
            ("XAU", 1, "341102.48", "2026-11-20"),
            ("TRY", 1, "1.99", "2026-11-20"),
            ("BGN", 1, "49.77", "2026-11-13"),
            ("HUF", 100, "25.30", "2026-11-13"),
            ("RUB", 100, "104.10", "2026-11-13"),
            ("MKD", 1, "1.58", "2026-11-13"),
        ];
        for (code, unit, quoted, date) in table {
            let q = find(code);
            assert_eq!((q.unit, q.sell, q.buy, q.date), (unit, d(quoted), None, day(date)), "{code}");
        }
        assert_eq!(quotes.len(), 21, "16 main currencies and 5 fixed twice a month");
        assert!(quotes.iter().all(|q| q.currency != "NO"), "the script's fake row is not read");
    }

    #[test]
    fn a_page_without_its_table_is_unreadable() {
        let moved =
            "<html><body><h1>Faqja nuk u gjet</h1><table><tr><td>Kontakt</td></tr></table></body></html>";
        assert!(matches!(Boa.read(moved, day("2026-11-23")), Err(Error::Unreadable(_))));
        assert!(matches!(Boa.read("", day("2026-11-23")), Err(Error::Unreadable(_))));
    }

    #[test]
    fn a_table_without_a_date_is_for_the_day_it_was_read() {
        let page = "<table><tr><td>Euro</td><td>EUR</td><td>97.35</td><td>0.00</td></tr></table>";
        assert_eq!(Boa.read(page, day("2026-11-23")).unwrap()[0].date, day("2026-11-23"));
    }
}
