//! Exchange rates: the rates read from the sources' pages (with the day they are for and when
//! they were fetched), the owners' manual rates, and which currencies each company invoices in.

use chrono::NaiveDate;
use rusqlite::{Connection, Row, named_params};

use super::money::Money;
use super::{Result, now_text};
use crate::domain::currency::{ManualRate, Quote, Source};

/// Writes what a fetch read; a day already stored for a currency is rewritten.
pub fn save_fetched(conn: &Connection, source: Source, quotes: &[Quote], fetched_at: &str) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO exchange_rates (source, currency, rate_date, unit, sell, buy, fetched_at)
         VALUES (:source, :currency, :date, :unit, :sell, :buy, :fetched)
         ON CONFLICT (source, currency, rate_date) DO UPDATE SET
             unit = excluded.unit, sell = excluded.sell, buy = excluded.buy, fetched_at = excluded.fetched_at",
    )?;
    for q in quotes {
        stmt.execute(named_params! {
            ":source": source.as_str(), ":currency": q.currency, ":date": q.date.to_string(), ":unit": q.unit,
            ":sell": Money(q.sell), ":buy": q.buy.map(Money), ":fetched": fetched_at,
        })?;
    }
    Ok(())
}

fn date(r: &Row, column: &str) -> rusqlite::Result<NaiveDate> {
    let text: String = r.get(column)?;
    text.parse()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e)))
}

fn quote_from(r: &Row) -> rusqlite::Result<Quote> {
    Ok(Quote {
        currency: r.get("currency")?,
        unit: r.get("unit")?,
        sell: r.get::<_, Money>("sell")?.0,
        buy: r.get::<_, Option<Money>>("buy")?.map(|m| m.0),
        date: date(r, "rate_date")?,
    })
}

/// The source's last good rates: each currency's most recent day, by currency code.
pub fn latest(conn: &Connection, source: Source) -> Result<Vec<Quote>> {
    let mut stmt = conn.prepare_cached(
        "SELECT currency, rate_date, unit, sell, buy FROM exchange_rates e
         WHERE source = :source
           AND rate_date = (SELECT MAX(rate_date) FROM exchange_rates
                            WHERE source = e.source AND currency = e.currency)
         ORDER BY currency",
    )?;
    let rows = stmt.query_map(named_params! {":source": source.as_str()}, quote_from)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// When the source's page was last read successfully (UTC, RFC 3339).
pub fn last_fetched_at(conn: &Connection, source: Source) -> Result<Option<String>> {
    Ok(conn.query_row(
        "SELECT MAX(fetched_at) AS fetched_at FROM exchange_rates WHERE source = :source",
        named_params! {":source": source.as_str()},
        |r| r.get("fetched_at"),
    )?)
}

fn manual_from(r: &Row) -> rusqlite::Result<ManualRate> {
    Ok(ManualRate {
        currency: r.get("currency")?,
        rate: r.get::<_, Money>("rate")?.0,
        unit: r.get("unit")?,
        date: date(r, "rate_date")?,
    })
}

/// The company's manual rates from `from` on, by day then currency.
pub fn manual_rates(conn: &Connection, company_id: i64, from: NaiveDate) -> Result<Vec<ManualRate>> {
    let mut stmt = conn.prepare_cached(
        "SELECT currency, rate_date, unit, rate FROM manual_exchange_rates
         WHERE company_id = :company AND rate_date >= :from ORDER BY rate_date, currency",
    )?;
    let rows =
        stmt.query_map(named_params! {":company": company_id, ":from": from.to_string()}, manual_from)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The company's manual rates of one day.
pub fn manual_rates_of(conn: &Connection, company_id: i64, day: NaiveDate) -> Result<Vec<ManualRate>> {
    Ok(manual_rates(conn, company_id, day)?.into_iter().filter(|m| m.date == day).collect())
}

pub fn set_manual_rate(conn: &Connection, company_id: i64, user_id: i64, rate: &ManualRate) -> Result<()> {
    conn.execute(
        "INSERT INTO manual_exchange_rates (company_id, currency, rate_date, unit, rate, user_id, updated_at)
         VALUES (:company, :currency, :date, :unit, :rate, :user, :now)
         ON CONFLICT (company_id, currency, rate_date) DO UPDATE SET
             unit = excluded.unit, rate = excluded.rate, user_id = excluded.user_id, updated_at = excluded.updated_at",
        named_params! {
            ":company": company_id, ":currency": rate.currency, ":date": rate.date.to_string(), ":unit": rate.unit,
            ":rate": Money(rate.rate), ":user": user_id, ":now": now_text(),
        },
    )?;
    Ok(())
}

/// Removes a manual rate; false when there was none.
pub fn delete_manual_rate(
    conn: &Connection,
    company_id: i64,
    currency: &str,
    day: NaiveDate,
) -> Result<bool> {
    let removed = conn.execute(
        "DELETE FROM manual_exchange_rates WHERE company_id = :company AND currency = :currency AND rate_date = :date",
        named_params! {":company": company_id, ":currency": currency, ":date": day.to_string()},
    )?;
    Ok(removed > 0)
}

/// What the owner changed from the default currencies: (code, enabled).
pub fn currency_changes(conn: &Connection, company_id: i64) -> Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT currency, enabled FROM company_currencies WHERE company_id = :company ORDER BY currency",
    )?;
    let rows = stmt
        .query_map(named_params! {":company": company_id}, |r| Ok((r.get("currency")?, r.get("enabled")?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn set_currency_enabled(conn: &Connection, company_id: i64, currency: &str, enabled: bool) -> Result<()> {
    conn.execute(
        "INSERT INTO company_currencies (company_id, currency, enabled, updated_at)
         VALUES (:company, :currency, :enabled, :now)
         ON CONFLICT (company_id, currency) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
        named_params! {":company": company_id, ":currency": currency, ":enabled": enabled, ":now": now_text()},
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use rust_decimal::Decimal;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn quote(currency: &str, sell: &str, date: &str) -> Quote {
        Quote { currency: currency.into(), unit: 1, sell: d(sell), buy: None, date: day(date) }
    }

    fn company(store: &Store) -> (i64, i64) {
        store
            .write_blocking(|tx| -> Result<_> {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L41323036D', 'Shop', '2026-11-23')",
                    [],
                )?;
                let company = tx.last_insert_rowid();
                tx.execute(
                    "INSERT INTO users (company_id, name, email, token_hash, created_at, updated_at)
                     VALUES (?1, 'Ana', 'ana@shop.al', 'h', '2026-11-23', '2026-11-23')",
                    [company],
                )?;
                Ok((company, tx.last_insert_rowid()))
            })
            .unwrap()
    }

    #[test]
    fn the_last_good_rates_are_each_currencys_latest_day() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| {
                save_fetched(
                    tx,
                    Source::Boa,
                    &[quote("EUR", "97.10", "2026-11-19"), quote("HUF", "25.30", "2026-11-13")],
                    "2026-11-19T11:00:00Z",
                )?;
                save_fetched(
                    tx,
                    Source::Boa,
                    &[quote("EUR", "97.35", "2026-11-20")],
                    "2026-11-20T11:00:00Z",
                )?;
                // The same day read again is rewritten, not added.
                save_fetched(
                    tx,
                    Source::Boa,
                    &[quote("EUR", "97.36", "2026-11-20")],
                    "2026-11-20T12:00:00Z",
                )?;
                save_fetched(tx, Source::Bkt, &[quote("EUR", "98.20", "2026-11-21")], "2026-11-21T09:00:00Z")
            })
            .unwrap();
        let (boa, fetched) = store
            .read_blocking(|conn| Ok((latest(conn, Source::Boa)?, last_fetched_at(conn, Source::Boa)?)))
            .unwrap();
        assert_eq!(boa, vec![quote("EUR", "97.36", "2026-11-20"), quote("HUF", "25.30", "2026-11-13")]);
        assert_eq!(fetched.as_deref(), Some("2026-11-20T12:00:00Z"));
        let never = store.read_blocking(|conn| last_fetched_at(conn, Source::Adon)).unwrap();
        assert_eq!(never, None);
        let rows: i64 = store
            .read_blocking(|conn| {
                Ok(conn.query_row("SELECT COUNT(*) AS rates FROM exchange_rates", [], |r| r.get("rates"))?)
            })
            .unwrap();
        assert_eq!(rows, 4, "the history is kept");
    }

    #[test]
    fn manual_rates_and_currency_changes_belong_to_one_company() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let (shop, ana) = company(&store);
        let (other, _) = store
            .write_blocking(|tx| -> Result<_> {
                tx.execute("INSERT INTO companies (nuis, name, created_at) VALUES ('K1', 'Other', 'x')", [])?;
                Ok((tx.last_insert_rowid(), 0))
            })
            .unwrap();
        let eur = ManualRate { currency: "EUR".into(), rate: d("99.5"), unit: 1, date: day("2026-11-23") };
        let jpy = ManualRate { currency: "JPY".into(), rate: d("55"), unit: 100, date: day("2026-11-24") };
        store
            .write_blocking(|tx| {
                set_manual_rate(tx, shop, ana, &eur)?;
                set_manual_rate(tx, shop, ana, &ManualRate { rate: d("99.6"), ..eur.clone() })?;
                set_manual_rate(tx, shop, ana, &jpy)?;
                set_currency_enabled(tx, shop, "USD", false)?;
                set_currency_enabled(tx, shop, "JPY", true)?;
                set_currency_enabled(tx, shop, "JPY", false)
            })
            .unwrap();
        let (today, upcoming, changes, others) = store
            .read_blocking(|conn| {
                Ok((
                    manual_rates_of(conn, shop, day("2026-11-23"))?,
                    manual_rates(conn, shop, day("2026-11-23"))?,
                    currency_changes(conn, shop)?,
                    (manual_rates(conn, other, day("2026-01-01"))?, currency_changes(conn, other)?),
                ))
            })
            .unwrap();
        assert_eq!(today, vec![ManualRate { rate: d("99.6"), ..eur.clone() }]);
        assert_eq!(upcoming.len(), 2);
        assert_eq!(changes, vec![("JPY".to_string(), false), ("USD".to_string(), false)]);
        assert!(others.0.is_empty() && others.1.is_empty());
        let removed =
            store.write_blocking(|tx| delete_manual_rate(tx, shop, "EUR", day("2026-11-23"))).unwrap();
        let again =
            store.write_blocking(|tx| delete_manual_rate(tx, shop, "EUR", day("2026-11-23"))).unwrap();
        assert!(removed && !again);
    }
}
