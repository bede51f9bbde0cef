//! The HQ's reports: the shop's report shapes (`arka_core::report`) over every shop's totals,
//! or one shop's. The sums read the shops' own daily totals as they shipped them, so the HQ's
//! figure is the sum of the shops' figures to the cent.

use deadpool_postgres::Pool;
use tokio_postgres::{GenericClient, Row};

use arka_core::report::{
    self as rules, ByOperator, ByTcr, CashRegisterReport, DailyTrend, PaymentRow, Reversals, SalesBy,
    SalesRow, SalesSummary, TopClients, TopProducts, VatReport, WaitingRow, WtnReport, rows, summarize_sales,
    wtn_report_of,
};

use super::Result;
use super::columns::{Typed, mapped};
use super::filter::{Filter, ON_INVOICES, TOTALS, refs};
use super::report_rows;

/// The sums of `report_sales`, each summed into a column of its own name.
const SUMS: &str = "SUM(documents)::bigint AS documents, SUM(net)::bigint AS net, SUM(vat)::bigint AS vat,
    SUM(gross)::bigint AS gross, SUM(discount)::bigint AS discount, SUM(fee)::bigint AS fee,
    SUM(net_currency)::bigint AS net_currency, SUM(vat_currency)::bigint AS vat_currency,
    SUM(gross_currency)::bigint AS gross_currency, SUM(till)::bigint AS till";

/// A row of `report_sales`, summed (`SUMS`), with its shop (`sales_shop`).
fn sales_row(r: &Row) -> Result<(i64, SalesRow)> {
    Ok((r.col("sales_shop")?, rows::sales_row(r)?))
}

/// Sales grouped as the shop's store groups them (`by`), every shop of the filter together;
/// with `per_shop` each shop's groups apart (a user id is its shop's own), its id first.
pub async fn sales<C: GenericClient>(
    client: &C,
    f: &Filter,
    by: SalesBy,
    per_shop: bool,
) -> Result<Vec<(i64, SalesRow)>> {
    let key = by.key();
    let mut groups: Vec<&str> = Vec::new();
    if per_shop {
        groups.push("shop_id");
    }
    if by != SalesBy::Kind {
        groups.push(key);
    }
    if by == SalesBy::Operator {
        groups.push("user_id");
    }
    groups.push("kind");
    // In the byte order SQLite sorts text in, as the shop's own report lists them.
    let order = groups.iter().map(|g| format!("{g} COLLATE \"C\"")).collect::<Vec<_>>().join(", ");
    let order = order.replace("shop_id COLLATE \"C\"", "shop_id").replace("user_id COLLATE \"C\"", "user_id");
    let groups = groups.join(", ");
    let shop = if per_shop { "shop_id" } else { "0::bigint" };
    let user = if by == SalesBy::Operator { "user_id" } else { "0::bigint" };
    let (conditions, values) = f.on(TOTALS);
    let rows = client
        .query(
            &format!(
                "SELECT {shop} AS sales_shop, kind, {key} AS sales_key, {user} AS sales_user, {SUMS}
                 FROM report_sales WHERE {conditions} GROUP BY {groups} ORDER BY {order}"
            ),
            &refs(&values),
        )
        .await?;
    rows.iter().map(sales_row).collect()
}

/// Sales by currency and kind, every shop of the filter together.
pub async fn sales_by_currency<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<SalesRow>> {
    Ok(sales(client, f, SalesBy::Currency, false).await?.into_iter().map(|(_, row)| row).collect())
}

pub async fn payments<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<PaymentRow>> {
    let (conditions, values) = f.on(TOTALS);
    let rows = client
        .query(
            &format!(
                "SELECT kind, payment_method, SUM(documents)::bigint AS documents, SUM(amount)::bigint AS amount
                 FROM report_payments
                 WHERE {conditions} GROUP BY kind, payment_method
                 ORDER BY payment_method COLLATE \"C\", kind COLLATE \"C\""
            ),
            &refs(&values),
        )
        .await?;
    mapped(&rows, rows::payment_row)
}

/// The documents of the period still waiting for the CIS (as their shop last shipped them).
pub async fn waiting<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<WaitingRow>> {
    let (conditions, values) = f.on(ON_INVOICES);
    let rows = client
        .query(
            &format!(
                "SELECT i.document_kind, o.document_kind AS original_kind,
                     EXISTS (SELECT 1 FROM einvoices e WHERE e.shop_id = i.shop_id AND e.invoice_id = i.id) AS einvoice,
                     i.issue_date, COALESCE(i.tcr_code, '') AS tcr_code, COALESCE(i.user_id, 0) AS user_id,
                     COALESCE(i.operator_code, '') AS operator_code, i.currency
                 FROM invoices i LEFT JOIN invoices o ON o.shop_id = i.shop_id AND o.id = i.original_invoice_id
                 WHERE i.fic IS NULL AND {conditions}"
            ),
            &refs(&values),
        )
        .await?;
    mapped(&rows, rows::waiting_row)
}

pub async fn open_orders<C: GenericClient>(client: &C, f: &Filter) -> Result<i64> {
    let (conditions, values) = f.on(ON_INVOICES);
    let row = client
        .query_one(
            &format!(
                "SELECT COUNT(*) AS orders FROM invoices i WHERE i.document_kind = 'ORDER'
                     AND i.settled_by_invoice_id IS NULL AND i.reversed_at IS NULL AND {conditions}"
            ),
            &refs(&values),
        )
        .await?;
    row.col("orders")
}

/// One read snapshot: a report's parts agree with each other, as at a shop.
pub(super) async fn snapshot(
    client: &mut deadpool_postgres::Client,
) -> Result<deadpool_postgres::Transaction<'_>> {
    Ok(client
        .build_transaction()
        .read_only(true)
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await?)
}

fn rows_of(rows: Vec<(i64, SalesRow)>) -> Vec<SalesRow> {
    rows.into_iter().map(|(_, row)| row).collect()
}

/// `GET /api/v1/reports/sales-summary` at the HQ: one read snapshot, the shop's shape.
pub async fn sales_summary(pool: &Pool, f: &Filter) -> Result<SalesSummary> {
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let by_currency = sales_by_currency(&*tx, f).await?;
    let payments = payments(&*tx, f).await?;
    let waiting = waiting(&*tx, f).await?;
    let open = open_orders(&*tx, f).await?;
    tx.commit().await?;
    Ok(summarize_sales(f.period, &by_currency, &payments, &waiting, open))
}

/// `GET /api/v1/reports/vat` at the HQ; `book` (limit, offset) adds a page of the sales book.
pub async fn vat(pool: &Pool, f: &Filter, book: Option<(i64, i64)>) -> Result<VatReport> {
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let (rows, waiting) = (report_rows::vat(&*tx, f).await?, waiting(&*tx, f).await?);
    tx.commit().await?;
    let book = match book {
        Some((limit, offset)) => {
            Some((super::invoices::sales_book(pool, f, limit, offset).await?, limit, offset))
        }
        None => None,
    };
    Ok(rules::vat_of(f.period, &rows, &waiting, book))
}

/// `GET /api/v1/reports/daily-trend` at the HQ; `f.period` is already checked for a trend.
pub async fn daily_trend(pool: &Pool, f: &Filter) -> Result<DailyTrend> {
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let (rows, waiting) = (sales(&*tx, f, SalesBy::Day, false).await?, waiting(&*tx, f).await?);
    tx.commit().await?;
    Ok(rules::trend_of(f.period, &rows_of(rows), &waiting))
}

pub async fn top_clients(pool: &Pool, f: &Filter, limit: i64) -> Result<TopClients> {
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let only_branch = Filter { tcr_code: None, operator_code: None, ..f.clone() };
    let clients = report_rows::clients(&*tx, f).await?;
    let sales = sales(&*tx, &only_branch, SalesBy::Kind, false).await?;
    tx.commit().await?;
    Ok(rules::top_clients_of(f.period, clients, &rows_of(sales), limit))
}

pub async fn top_products(pool: &Pool, f: &Filter, limit: i64) -> Result<TopProducts> {
    let client = pool.get().await?;
    let products = report_rows::products(&**client, f).await?;
    Ok(rules::top_products_of(f.period, products, limit))
}

/// Each shop's operators by the shop's own rule (a user id is its shop's), then all of them in
/// the shop's order.
pub async fn by_operator(pool: &Pool, f: &Filter) -> Result<ByOperator> {
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let rows = sales(&*tx, f, SalesBy::Operator, true).await?;
    let waiting = waiting(&*tx, f).await?;
    let users = report_rows::users(&*tx, f.shop_id).await?;
    tx.commit().await?;
    let mut report = rules::by_operator_of(f.period, &[], &waiting, &std::collections::HashMap::new());
    let mut shops: Vec<i64> = rows.iter().map(|(shop, _)| *shop).collect();
    shops.dedup();
    let none = std::collections::HashMap::new();
    for shop in shops {
        let mine: Vec<SalesRow> = rows.iter().filter(|(s, _)| *s == shop).map(|(_, r)| r.clone()).collect();
        let of_shop = rules::by_operator_of(f.period, &mine, &[], users.get(&shop).unwrap_or(&none));
        report.items.extend(of_shop.items);
    }
    report.items.sort_by(|a, b| {
        b.gross
            .cmp(&a.gross)
            .then_with(|| a.id_user.cmp(&b.id_user))
            .then_with(|| a.operator_code.cmp(&b.operator_code))
    });
    Ok(report)
}

pub async fn by_tcr(pool: &Pool, f: &Filter) -> Result<ByTcr> {
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let rows = sales(&*tx, f, SalesBy::Tcr, false).await?;
    let waiting = waiting(&*tx, f).await?;
    let tcrs = report_rows::tcrs(&*tx, f.shop_id).await?;
    tx.commit().await?;
    Ok(rules::by_tcr_of(f.period, &rows_of(rows), &waiting, &tcrs))
}

pub async fn cash_register(pool: &Pool, f: &Filter) -> Result<CashRegisterReport> {
    let f = Filter { operator_code: None, ..f.clone() };
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let movements = report_rows::movements(&*tx, &f).await?;
    let sales = sales(&*tx, &f, SalesBy::Tcr, false).await?;
    let tcrs = report_rows::tcrs(&*tx, f.shop_id).await?;
    tx.commit().await?;
    Ok(rules::cash_register_of(f.period, &movements, &rows_of(sales), &tcrs))
}

pub async fn reversals(pool: &Pool, f: &Filter, limit: i64, offset: i64) -> Result<Reversals> {
    let mut client = pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let rows = sales(&*tx, f, SalesBy::Kind, false).await?;
    let waiting = waiting(&*tx, f).await?;
    let items = report_rows::reversals(&*tx, f, limit, offset).await?;
    tx.commit().await?;
    Ok(rules::reversals_of(f.period, &rows_of(rows), &waiting, items))
}

/// `GET /api/v1/reports/wtn` at the HQ: every shop's notes together.
pub async fn wtn(pool: &Pool, f: &Filter) -> Result<WtnReport> {
    let client = pool.get().await?;
    let notes = report_rows::wtn_notes(&**client, f).await?;
    wtn_report_of(f.period, &notes).map_err(|_| super::Error::Overflow)
}
