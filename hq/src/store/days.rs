//! The tills' days at the head office as a shop's X and Z reports read them: the typed days and
//! actions, and the shop's own documents of each day read back as the shop reads them, so a
//! shop's closing report at the HQ is its own, figure for figure.

use arka_core::domain::day_book;
use arka_core::domain::drawer::{self, Takings};
use arka_core::report::{self as rules, ClosingReport, DayRow, day_document, till_document};
use deadpool_postgres::Pool;

use super::filter::Filter;
use super::report_rows::{self, ShopDay};
use super::reports::snapshot;
use super::{Error, Result, invoices};

/// `GET /api/v1/reports/cash-register/closing` at the HQ.
pub async fn closing(pool: &Pool, f: &Filter, limit: i64, offset: i64) -> Result<ClosingReport> {
    let f = Filter { operator_code: None, ..f.clone() };
    let shop_days = {
        let mut client = pool.get().await?;
        let tx = snapshot(&mut client).await?;
        let days = report_rows::days(&*tx, &f, limit, offset).await?;
        tx.commit().await?;
        days
    };
    let mut days = Vec::with_capacity(shop_days.len());
    for shop_day in shop_days {
        days.push(read_day(pool, shop_day).await?);
    }
    rules::closing_of(f.period, &days, limit, offset).map_err(|_| Error::Overflow)
}

/// A day with what its documents came to (kept by the shop at the close, else read and summed)
/// and its drawer so far while open.
async fn read_day(pool: &Pool, day: ShopDay) -> Result<DayRow> {
    let ShopDay { shop_id, mut row, kept, action_users, document_ids, originals, users, drawer } = day;
    row.book = match kept {
        Some(book) => book,
        None => {
            let read = invoices::documents(pool, shop_id, document_ids).await?;
            let documents: Vec<_> = read.iter().map(|i| day_document(i, &originals)).collect();
            day_book::summarize(&documents, day_book::people_of(&documents, &action_users, &users))
                .map_err(|_| Error::Overflow)?
        }
    };
    if let Some(since) = drawer {
        let after = invoices::documents(pool, shop_id, since.document_ids).await?;
        let takings =
            Takings::of(&after.iter().map(till_document).collect::<Vec<_>>()).map_err(|_| Error::Overflow)?;
        row.expected_now =
            Some(drawer::expected(since.left, &since.movements, &takings).map_err(|_| Error::Overflow)?);
    }
    Ok(row)
}
