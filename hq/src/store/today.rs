//! The owner's page in chain mode: the day of every shop side by side, each added up by the very
//! rules a shop's own page uses (`domain::sales_day`, `domain::cash_register::day_state`) over what
//! the shop shipped, so a shop's column at the HQ is its own page's figures.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use deadpool_postgres::Pool;
use rust_decimal::Decimal;
use serde::Serialize;
use tokio_postgres::Row;

use arka_core::domain::cash_register::{Day, DayState, day_state};
use arka_core::domain::sales_day::{DaySales, Sale, TillSales, summarize};
use arka_core::domain::time::local_text;
use arka_core::report::{SalesView, rows, stored_time};
use arka_core::row::Columns;

use super::Result;
use super::columns::Typed;

/// One till of a shop: its latest day as shipped, with the counted cash of a closed one.
#[derive(Debug, Clone)]
pub struct TillDay {
    pub tcr_code: String,
    pub name: String,
    pub business_unit_code: String,
    pub state: DayState,
    pub day: Option<Day>,
    /// At a close: what was counted, and what the drawer should have held.
    pub counted: Option<String>,
    pub expected: Option<String>,
}

/// One shop's day at the HQ.
#[derive(Debug, Clone)]
pub struct ShopDay {
    pub name: String,
    /// When its last batch arrived: its figures are as of then.
    pub synced_at: Option<DateTime<Utc>>,
    /// When it was last heard from (its heartbeat), and what it said: what waits at it for the HQ
    /// and for the CIS.
    pub last_heard_at: Option<DateTime<Utc>>,
    pub heartbeat: Option<serde_json::Value>,
    /// Boxes refused on its token (a second box, or one a restore replaced, calling).
    pub refused_boxes: Vec<super::shops::Refusal>,
    pub sales: DaySales,
    pub tills: Vec<TillDay>,
}

/// Each shop's invoices of `day` (orders left out, as on a shop's page), with their payments.
async fn sales(client: &deadpool_postgres::Client, day: &str) -> Result<BTreeMap<i64, Vec<Sale>>> {
    let rows = client
        .query(
            "SELECT i.shop_id, i.id, i.tcr_code, i.gross_all, i.exchange_rate, i.fic IS NULL AS waiting,
                 p.type AS payment_type, p.amount AS payment_amount
             FROM shops s JOIN invoices i ON i.shop_id = s.id AND i.issue_date = $1
                 LEFT JOIN invoice_payments p ON p.shop_id = i.shop_id AND p.invoice_id = i.id
             WHERE i.document_kind <> 'ORDER'
             ORDER BY i.shop_id, i.id, p.position",
            &[&day],
        )
        .await?;
    let mut by_shop: BTreeMap<i64, Vec<Sale>> = BTreeMap::new();
    let mut last = None;
    for r in &rows {
        let (shop_id, id): (i64, i64) = (r.col("shop_id")?, r.col("id")?);
        let sales = by_shop.entry(shop_id).or_default();
        if last != Some((shop_id, id)) {
            last = Some((shop_id, id));
            sales.push(sale_row(r)?);
        }
        let method: Option<String> = r.col("payment_type")?;
        if let (Some(method), Some(sale)) = (method, sales.last_mut()) {
            sale.payments.push((method, r.decimal_opt("payment_amount")?.unwrap_or_default()));
        }
    }
    Ok(by_shop)
}

/// A row of `invoices` as a shop's page adds it up. A shop's amounts are decimals as it stored
/// them; a row shipped before its invoice's columns were derived here (NULL) counts as nothing
/// rather than failing the whole page.
fn sale_row(r: &Row) -> Result<Sale> {
    Ok(Sale {
        tcr_code: r.col("tcr_code")?,
        gross_all: r.decimal_opt("gross_all")?.unwrap_or_default(),
        exchange_rate: r.decimal_opt("exchange_rate")?.unwrap_or_default(),
        waiting: r.col("waiting")?,
        payments: Vec::new(),
    })
}

/// Each shop's TCRs with their latest day (read off the rows the shop shipped).
async fn tills(client: &deadpool_postgres::Client, today: NaiveDate) -> Result<BTreeMap<i64, Vec<TillDay>>> {
    let rows = client
        .query(
            "SELECT s.id, d.row->>'tcr_code' AS tcr_code, d.row->>'name' AS name,
                 d.row->>'business_unit_code' AS business_unit_code, c.row AS latest
             FROM shops s
             JOIN shop_rows d ON d.shop_id = s.id AND d.tbl = 'fiscal_devices'
             LEFT JOIN LATERAL (
                 SELECT r.row FROM shop_rows r
                 WHERE r.shop_id = s.id AND r.tbl = 'cash_days' AND r.row->>'tcr_code' = d.row->>'tcr_code'
                 ORDER BY (r.row->>'id')::bigint DESC LIMIT 1
             ) c ON true
             ORDER BY s.id, (d.row->>'id')::bigint",
            &[],
        )
        .await?;
    let mut by_shop: BTreeMap<i64, Vec<TillDay>> = BTreeMap::new();
    for r in &rows {
        let latest = match r.col::<Option<serde_json::Value>>("latest")? {
            Some(serde_json::Value::Object(row)) => Some(row),
            _ => None,
        };
        let day = latest.as_ref().map(rows::cash_day).transpose()?;
        let closed = day.as_ref().is_some_and(|d| d.closed_at.is_some());
        by_shop.entry(r.col("id")?).or_default().push(TillDay {
            tcr_code: r.col::<Option<String>>("tcr_code")?.unwrap_or_default(),
            name: r.col::<Option<String>>("name")?.unwrap_or_default(),
            business_unit_code: r.col::<Option<String>>("business_unit_code")?.unwrap_or_default(),
            state: day_state(day.as_ref(), today),
            counted: latest.as_ref().filter(|_| closed).map(|c| c.text_opt("counted")).transpose()?.flatten(),
            expected: latest
                .as_ref()
                .filter(|_| closed)
                .map(|c| c.text_opt("expected"))
                .transpose()?
                .flatten(),
            day,
        });
    }
    Ok(by_shop)
}

/// The business day `today` of every shop of the chain, shops by name; and the chain's day, the
/// shops' added up.
pub async fn chain_today(pool: &Pool, today: NaiveDate) -> Result<(Vec<ShopDay>, DaySales)> {
    let client = pool.get().await?;
    let shops = client
        .query("SELECT id, name, synced_at, last_heard_at, heartbeat FROM shops ORDER BY name", &[])
        .await?;
    let mut sales = sales(&client, &today.to_string()).await?;
    let mut tills = tills(&client, today).await?;
    let mut all = Vec::new();
    let mut days = Vec::new();
    for shop in &shops {
        let id: i64 = shop.col("id")?;
        let of_shop = sales.remove(&id).unwrap_or_default();
        let day = summarize(&of_shop).map_err(|_| super::Error::Overflow)?;
        all.extend(of_shop);
        days.push(ShopDay {
            name: shop.col("name")?,
            synced_at: shop.col("synced_at")?,
            last_heard_at: shop.col("last_heard_at")?,
            heartbeat: shop.col("heartbeat")?,
            refused_boxes: super::shops::refusals(pool, id).await?,
            sales: day,
            tills: tills.remove(&id).unwrap_or_default(),
        });
    }
    let chain = summarize(&all).map_err(|_| super::Error::Overflow)?;
    Ok((days, chain))
}

/// `GET /api/v1/owner/today` at the HQ: every shop's day side by side, each in the shape of a
/// shop's own `today`, and the chain's day, the shops' added up.
#[derive(Serialize)]
pub struct ChainTodayView {
    business_day: String,
    currency: &'static str,
    /// Always true here: the page shows the shops side by side.
    chain: bool,
    totals: SalesView,
    shops: Vec<ShopDayView>,
    /// Non-cash numbers reserved a minute ago or more and never turned into documents: gaps at
    /// the CIS until the owner resolves them (`arka hq numbers held`).
    held_numbers: Vec<super::held::Held>,
}

#[derive(Serialize)]
struct ShopDayView {
    shop: String,
    /// When the shop's last batch arrived: its figures are as of then.
    synced_at: Option<String>,
    /// When it was last heard from (its heartbeat), and how long ago in seconds.
    last_heard_at: Option<String>,
    silent_seconds: Option<i64>,
    /// What waits at it, as its last heartbeat said: changes for the HQ, documents for the CIS
    /// (and the age of the oldest), changes the HQ refused and it set aside.
    heartbeat: Option<serde_json::Value>,
    refused_boxes: Vec<super::shops::Refusal>,
    totals: SalesView,
    tills: Vec<ChainTillView>,
    noncash: Option<SalesView>,
}

#[derive(Serialize)]
struct ChainTillView {
    fiscal_tcr_code: String,
    name: String,
    business_unit_code: String,
    day: ChainDayView,
    sales: SalesView,
}

#[derive(Serialize)]
struct ChainDayView {
    state: &'static str,
    business_day: Option<String>,
    opened_at: Option<String>,
    opened_automatically: Option<bool>,
    closed_at: Option<String>,
    /// A closed day's count, and what the drawer should have held.
    counted: Option<Decimal>,
    expected: Option<Decimal>,
}

fn till_view(till: &TillDay, sales: &DaySales) -> ChainTillView {
    let amount = |text: &Option<String>| text.as_deref().and_then(|t| t.parse::<Decimal>().ok());
    let day = till.day.as_ref();
    ChainTillView {
        fiscal_tcr_code: till.tcr_code.clone(),
        name: till.name.clone(),
        business_unit_code: till.business_unit_code.clone(),
        day: ChainDayView {
            state: till.state.as_str(),
            business_day: day.map(|d| d.business_day.clone()),
            opened_at: day.map(|d| stored_time(&d.opened_at)),
            opened_automatically: day.map(|d| d.opened_automatically),
            closed_at: day.and_then(|d| d.closed_at.as_deref().map(stored_time)),
            counted: amount(&till.counted),
            expected: amount(&till.expected),
        },
        sales: SalesView::of_till(
            sales
                .tills
                .iter()
                .find(|t| t.tcr_code.as_deref() == Some(till.tcr_code.as_str()))
                .unwrap_or(&TillSales::default()),
        ),
    }
}

/// The chain's day as the owner's page reads it.
pub fn view(
    business_day: NaiveDate,
    shops: &[ShopDay],
    chain: &DaySales,
    held_numbers: Vec<super::held::Held>,
) -> ChainTodayView {
    let now = Utc::now();
    ChainTodayView {
        held_numbers,
        business_day: business_day.to_string(),
        currency: "ALL",
        chain: true,
        totals: SalesView::of_day(chain),
        shops: shops
            .iter()
            .map(|shop| ShopDayView {
                shop: shop.name.clone(),
                synced_at: shop.synced_at.map(local_text),
                last_heard_at: shop.last_heard_at.map(local_text),
                silent_seconds: shop.last_heard_at.map(|at| (now - at).num_seconds().max(0)),
                heartbeat: shop.heartbeat.clone(),
                refused_boxes: shop.refused_boxes.clone(),
                totals: SalesView::of_day(&shop.sales),
                tills: shop.tills.iter().map(|till| till_view(till, &shop.sales)).collect(),
                noncash: shop.sales.tills.iter().find(|t| t.tcr_code.is_none()).map(SalesView::of_till),
            })
            .collect(),
    }
}
