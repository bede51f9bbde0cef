//! The ADON exchange bureau's rates board: the bureau's buy/sell table (see `counter`), selling
//! rate first.

use chrono::NaiveDate;

use super::{Error, RatePage, counter};
use crate::domain::currency::{Quote, Source};

pub struct Adon;

impl RatePage for Adon {
    fn source(&self) -> Source {
        Source::Adon
    }

    fn read(&self, page: &str, today: NaiveDate) -> Result<Vec<Quote>, Error> {
        counter::read(page, today, "ADON")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    const PAGE: &str = include_str!("../../tests/fixtures/rates/adon.html");

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn reads_the_saved_board_with_its_date() {
        let quotes = Adon.read(PAGE, "2026-11-23".parse().unwrap()).unwrap();
        let rows: Vec<(&str, Decimal, Option<Decimal>)> =
            quotes.iter().map(|q| (q.currency.as_str(), q.sell, q.buy)).collect();
        assert_eq!(
            rows,
            vec![
                ("EUR", d("97.90"), Some(d("97.20"))),
                ("USD", d("84.80"), Some(d("83.70"))),
                ("GBP", d("111.50"), Some(d("109.80"))),
                ("CHF", d("105.20"), Some(d("103.10"))),
            ]
        );
        assert!(quotes.iter().all(|q| q.date == "2026-11-22".parse::<NaiveDate>().unwrap()));
    }
}
