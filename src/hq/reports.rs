//! The HQ's reports: the shop's report shapes (`services::reports`) over every shop's totals,
//! or one shop's. The sums read the shops' own daily totals as they shipped them, so the HQ's
//! figure is the sum of the shops' figures to the cent.

use deadpool_postgres::Pool;
use tokio_postgres::{GenericClient, Row};

use super::Result;
use crate::domain::document::DocumentKind;
use crate::domain::report::{Period, ReportKind};
use crate::services::reports::{SalesSummary, summarize_sales};
use crate::store::invoices::report_totals::amount;
use crate::store::reports::{PaymentRow, SalesRow, SalesSums, WaitingRow};

/// Which documents a report of the HQ covers: the period's, of one shop or of all.
#[derive(Debug, Clone)]
pub struct Filter {
    pub period: Period,
    pub shop_id: Option<i64>,
}

impl Filter {
    fn from(&self) -> String {
        self.period.from.to_string()
    }

    fn to(&self) -> String {
        self.period.to.to_string()
    }
}

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

const FILTER: &str = "day >= $1 AND day <= $2 AND ($3::bigint IS NULL OR shop_id = $3)";

/// Sales by currency and kind, every shop of the filter together.
pub async fn sales_by_currency<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<SalesRow>> {
    let rows = client
        .query(
            &format!(
                "SELECT kind, currency, SUM(documents)::bigint, SUM(net)::bigint, SUM(vat)::bigint,
                     SUM(gross)::bigint, SUM(discount)::bigint, SUM(fee)::bigint, SUM(net_currency)::bigint,
                     SUM(vat_currency)::bigint, SUM(gross_currency)::bigint, SUM(till)::bigint
                 FROM report_sales WHERE {FILTER}
                 GROUP BY currency, kind ORDER BY currency COLLATE \"C\", kind COLLATE \"C\""
            ),
            &[&f.from(), &f.to(), &f.shop_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| SalesRow { kind: kind(r.get(0)), key: r.get(1), user_id: 0, sums: sums(r, 2) })
        .collect())
}

pub async fn payments<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<PaymentRow>> {
    let rows = client
        .query(
            &format!(
                "SELECT kind, payment_method, SUM(documents)::bigint, SUM(amount)::bigint FROM report_payments
                 WHERE {FILTER} GROUP BY kind, payment_method
                 ORDER BY payment_method COLLATE \"C\", kind COLLATE \"C\""
            ),
            &[&f.from(), &f.to(), &f.shop_id],
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

const ON_INVOICES: &str =
    "i.issue_date >= $1 AND i.issue_date <= $2 AND ($3::bigint IS NULL OR i.shop_id = $3)";

/// The documents of the period still waiting for the CIS (as their shop last shipped them).
pub async fn waiting<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<WaitingRow>> {
    let rows = client
        .query(
            &format!(
                "SELECT i.document_kind, o.document_kind,
                     EXISTS (SELECT 1 FROM einvoices e WHERE e.shop_id = i.shop_id AND e.invoice_id = i.id),
                     i.issue_date, COALESCE(i.tcr_code, ''), COALESCE(i.user_id, 0), COALESCE(i.operator_code, ''),
                     i.currency
                 FROM invoices i LEFT JOIN invoices o ON o.shop_id = i.shop_id AND o.id = i.original_invoice_id
                 WHERE i.fic IS NULL AND {ON_INVOICES}"
            ),
            &[&f.from(), &f.to(), &f.shop_id],
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
    let row = client
        .query_one(
            &format!(
                "SELECT COUNT(*) FROM invoices i WHERE i.document_kind = 'ORDER'
                     AND i.settled_by_invoice_id IS NULL AND i.reversed_at IS NULL AND {ON_INVOICES}"
            ),
            &[&f.from(), &f.to(), &f.shop_id],
        )
        .await?;
    Ok(row.get(0))
}

/// `GET /api/v1/reports/sales-summary` at the HQ: one read snapshot, the shop's shape.
pub async fn sales_summary(pool: &Pool, f: &Filter) -> Result<SalesSummary> {
    let mut client = pool.get().await?;
    let tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await?;
    let by_currency = sales_by_currency(&*tx, f).await?;
    let payments = payments(&*tx, f).await?;
    let waiting = waiting(&*tx, f).await?;
    let open = open_orders(&*tx, f).await?;
    tx.commit().await?;
    Ok(summarize_sales(f.period, &by_currency, &payments, &waiting, open))
}

/// One document in the HQ's invoice list.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InvoiceLine {
    pub shop: String,
    pub id: i64,
    pub internal_id: String,
    pub number: String,
    pub document_kind: String,
    pub kind: String,
    pub tcr_code: Option<String>,
    pub issue_date: String,
    pub issued_at: String,
    pub currency: String,
    pub total: String,
    pub buyer_name: Option<String>,
    pub iic: String,
    pub fic: Option<String>,
}

/// A page of the documents of the filter, newest first.
pub async fn invoices(pool: &Pool, f: &Filter, limit: i64, offset: i64) -> Result<(Vec<InvoiceLine>, i64)> {
    let client = pool.get().await?;
    let total: i64 = client
        .query_one(
            &format!("SELECT COUNT(*) FROM invoices i WHERE {ON_INVOICES}"),
            &[&f.from(), &f.to(), &f.shop_id],
        )
        .await?
        .get(0);
    let rows = client
        .query(
            &format!(
                "SELECT s.name, i.id, i.internal_id, i.number, i.document_kind, i.kind, i.tcr_code, i.issue_date,
                     i.issued_at, i.currency, i.total, i.buyer_name, i.iic, i.fic
                 FROM invoices i JOIN shops s ON s.id = i.shop_id WHERE {ON_INVOICES}
                 ORDER BY i.issued_at DESC, s.name, i.id DESC LIMIT $4 OFFSET $5"
            ),
            &[&f.from(), &f.to(), &f.shop_id, &limit, &offset],
        )
        .await?;
    let lines = rows
        .iter()
        .map(|r| InvoiceLine {
            shop: r.get(0),
            id: r.get(1),
            internal_id: r.get(2),
            number: r.get(3),
            document_kind: r.get(4),
            kind: r.get(5),
            tcr_code: r.get(6),
            issue_date: r.get(7),
            issued_at: r.get(8),
            currency: r.get(9),
            total: r.get(10),
            buyer_name: r.get(11),
            iic: r.get(12),
            fic: r.get(13),
        })
        .collect();
    Ok((lines, total))
}
