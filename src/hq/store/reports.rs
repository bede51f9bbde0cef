//! The HQ's reports: the shop's report shapes (`services::reports`) over every shop's totals,
//! or one shop's. The sums read the shops' own daily totals as they shipped them, so the HQ's
//! figure is the sum of the shops' figures to the cent.

use deadpool_postgres::Pool;
use tokio_postgres::{GenericClient, Row};

use super::Result;
use super::filter::{Filter, ON_INVOICES, TOTALS, refs};
use super::report_rows;
use crate::domain::document::DocumentKind;
use crate::domain::report::ReportKind;
use crate::services::reports::{
    self as rules, ByOperator, ByTcr, CashRegisterReport, DailyTrend, Reversals, SalesSummary, TopClients,
    TopProducts, VatReport, summarize_sales,
};
use crate::store::invoices::report_totals::amount;
use crate::store::reports::{PaymentRow, SalesBy, SalesRow, SalesSums, WaitingRow};

fn kind(text: &str) -> ReportKind {
    // Unknown kinds cannot come from a shop's totals (a CHECK of the shop's schema); as a sale
    // they would still be counted rather than lost.
    ReportKind::parse(text).unwrap_or(ReportKind::Cash)
}

fn sums(r: &Row, first: usize) -> SalesSums {
    let cents = |i: usize| amount(r.get::<_, i64>(first + i));
    SalesSums {
        documents: r.get(first),
        net: cents(1),
        vat: cents(2),
        gross: cents(3),
        discount: cents(4),
        fee: cents(5),
        net_currency: cents(6),
        vat_currency: cents(7),
        gross_currency: cents(8),
        till: cents(9),
    }
}

/// Sales grouped as the shop's store groups them (`by`), every shop of the filter together;
/// with `per_shop` each shop's groups apart (a user id is its shop's own), its id first.
pub async fn sales<C: GenericClient>(
    client: &C,
    f: &Filter,
    by: SalesBy,
    per_shop: bool,
) -> Result<Vec<(i64, SalesRow)>> {
    let key = match by {
        SalesBy::Kind => "''",
        SalesBy::Currency => "currency",
        SalesBy::Day => "day",
        SalesBy::Tcr => "tcr_code",
        SalesBy::Operator => "operator_code",
    };
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
                "SELECT {shop}, kind, {key}, {user}, SUM(documents)::bigint, SUM(net)::bigint, SUM(vat)::bigint,
                     SUM(gross)::bigint, SUM(discount)::bigint, SUM(fee)::bigint, SUM(net_currency)::bigint,
                     SUM(vat_currency)::bigint, SUM(gross_currency)::bigint, SUM(till)::bigint
                 FROM report_sales WHERE {conditions} GROUP BY {groups} ORDER BY {order}"
            ),
            &refs(&values),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            (r.get(0), SalesRow { kind: kind(r.get(1)), key: r.get(2), user_id: r.get(3), sums: sums(r, 4) })
        })
        .collect())
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
                "SELECT kind, payment_method, SUM(documents)::bigint, SUM(amount)::bigint FROM report_payments
                 WHERE {conditions} GROUP BY kind, payment_method
                 ORDER BY payment_method COLLATE \"C\", kind COLLATE \"C\""
            ),
            &refs(&values),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| PaymentRow {
            kind: kind(r.get(0)),
            payment_method: r.get(1),
            documents: r.get(2),
            amount: amount(r.get(3)),
        })
        .collect())
}

/// The documents of the period still waiting for the CIS (as their shop last shipped them).
pub async fn waiting<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<WaitingRow>> {
    let (conditions, values) = f.on(ON_INVOICES);
    let rows = client
        .query(
            &format!(
                "SELECT i.document_kind, o.document_kind,
                     EXISTS (SELECT 1 FROM einvoices e WHERE e.shop_id = i.shop_id AND e.invoice_id = i.id),
                     i.issue_date, COALESCE(i.tcr_code, ''), COALESCE(i.user_id, 0), COALESCE(i.operator_code, ''),
                     i.currency
                 FROM invoices i LEFT JOIN invoices o ON o.shop_id = i.shop_id AND o.id = i.original_invoice_id
                 WHERE i.fic IS NULL AND {conditions}"
            ),
            &refs(&values),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let document = DocumentKind::parse(r.get(0)).unwrap_or(DocumentKind::Cash);
            let original = r.get::<_, Option<&str>>(1).and_then(DocumentKind::parse);
            WaitingRow {
                kind: ReportKind::of(document, original, r.get(2)),
                day: r.get(3),
                tcr_code: r.get(4),
                user_id: r.get(5),
                operator_code: r.get(6),
                currency: r.get(7),
            }
        })
        .collect())
}

pub async fn open_orders<C: GenericClient>(client: &C, f: &Filter) -> Result<i64> {
    let (conditions, values) = f.on(ON_INVOICES);
    let row = client
        .query_one(
            &format!(
                "SELECT COUNT(*) FROM invoices i WHERE i.document_kind = 'ORDER'
                     AND i.settled_by_invoice_id IS NULL AND i.reversed_at IS NULL AND {conditions}"
            ),
            &refs(&values),
        )
        .await?;
    Ok(row.get(0))
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
pub async fn wtn(pool: &Pool, f: &Filter) -> Result<crate::services::wtn::WtnReport> {
    let client = pool.get().await?;
    let notes = report_rows::wtn_notes(&**client, f).await?;
    crate::services::wtn::wtn_report_of(f.period, &notes).map_err(|_| super::Error::Overflow)
}
