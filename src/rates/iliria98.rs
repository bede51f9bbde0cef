//! The Iliria98 exchange bureau's page: no table, but one element per currency marked with a
//! `rate` attribute, holding the currency's flag (`EUR.png`) or code, then buying and selling
//! rates. Its rates are live, so they are for the day they are read.

use chrono::NaiveDate;

use super::html::{self, Block};
use super::{Error, RatePage, counter};
use crate::domain::currency::{Quote, Source};

pub struct Iliria98;

impl RatePage for Iliria98 {
    fn source(&self) -> Source {
        Source::Iliria98
    }

    fn read(&self, page: &str, today: NaiveDate) -> Result<Vec<Quote>, Error> {
        let quotes: Vec<Quote> =
            html::blocks_with_attribute(page, "rate").iter().filter_map(|b| block_quote(b, today)).collect();
        if quotes.is_empty() {
            return Err(Error::Unreadable("no rates on Iliria98's page".into()));
        }
        Ok(quotes)
    }
}

/// The code from the flag's file name (`/images/flags/EUR.png`), else from the text.
fn code(block: &Block) -> Option<String> {
    let from_flag = block.image_sources.iter().find_map(|src| {
        let file = src.rsplit('/').next().unwrap_or_default();
        let stem = file.split('.').next().unwrap_or_default().to_ascii_uppercase();
        html::currency_code(&stem).filter(|c| *c == stem)
    });
    from_flag.or_else(|| block.texts.iter().find_map(|t| html::currency_code(t)))
}

fn block_quote(block: &Block, today: NaiveDate) -> Option<Quote> {
    let currency = code(block)?;
    let (sell, buy) = counter::sell_and_buy(&block.texts)?;
    let unit = block.texts.iter().find_map(|t| html::unit_in(t)).filter(|u| *u > 0).unwrap_or(1);
    Some(Quote { currency, unit, sell, buy: Some(buy), date: today })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    const PAGE: &str = include_str!("../../tests/fixtures/rates/iliria98.html");

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn reads_the_saved_page_by_its_flags() {
        let today: NaiveDate = "2026-11-23".parse().unwrap();
        let quotes = Iliria98.read(PAGE, today).unwrap();
        let rows: Vec<(&str, u32, Decimal, Option<Decimal>)> =
            quotes.iter().map(|q| (q.currency.as_str(), q.unit, q.sell, q.buy)).collect();
        assert_eq!(
            rows,
            vec![
                ("USD", 1, d("84.40"), Some(d("83.50"))),
                ("EUR", 1, d("97.60"), Some(d("96.90"))),
                ("CHF", 1, d("104.90"), Some(d("103.20"))),
                ("GBP", 1, d("111.20"), Some(d("109.40"))),
                ("CAD", 1, d("60.80"), Some(d("59.20"))),
                ("AUD", 1, d("55.50"), Some(d("53.90"))),
                ("JPY", 100, d("55.60"), Some(d("53.40"))),
            ]
        );
        assert!(quotes.iter().all(|q| q.date == today));
        assert!(matches!(Iliria98.read("<div>Kursi</div>", today), Err(Error::Unreadable(_))));
    }
}
