//! Banka Kombëtare Tregtare's rates board: a bank's buy/sell table (see `counter`).

use chrono::NaiveDate;

use super::{Error, RatePage, counter};
use crate::domain::currency::{Quote, Source};

pub struct Bkt;

impl RatePage for Bkt {
    fn source(&self) -> Source {
        Source::Bkt
    }

    fn read(&self, page: &str, today: NaiveDate) -> Result<Vec<Quote>, Error> {
        counter::read(page, today, "BKT")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    const PAGE: &str = include_str!("../../tests/fixtures/rates/bkt.html");

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn reads_the_saved_board_selling_above_buying() {
        let today: NaiveDate = "2026-11-23".parse().unwrap();
        let quotes = Bkt.read(PAGE, today).unwrap();
        let rows: Vec<(&str, u32, Decimal, Option<Decimal>)> =
            quotes.iter().map(|q| (q.currency.as_str(), q.unit, q.sell, q.buy)).collect();
        assert_eq!(
            rows,
            vec![
                ("EUR", 1, d("98.20"), Some(d("96.80"))),
                ("USD", 1, d("85.10"), Some(d("83.40"))),
                ("GBP", 1, d("112.30"), Some(d("109.00"))),
                ("CHF", 1, d("105.90"), Some(d("102.60"))),
                ("JPY", 100, d("55.90"), Some(d("53.10"))),
            ]
        );
        assert!(quotes.iter().all(|q| q.date == "2026-11-23".parse::<NaiveDate>().unwrap()));
        assert!(matches!(Bkt.read("<p>Mirëmbajtje</p>", today), Err(Error::Unreadable(_))));
    }
}
