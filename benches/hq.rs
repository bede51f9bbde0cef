//! Figures for issue 30, the chain's head office (`cargo bench --bench hq`; it prints, it asserts
//! nothing). Needs a PostgreSQL: `ARKA_TEST_PG_URL` (what `.ci/postgres` exports), on which it
//! makes and drops databases of its own.
//!
//! 1. Backfill: a shop's database with `ARKA_BENCH_HQ_DOCS` documents (default 100,000; each an
//!    invoice row with 3 lines and 1 payment, written by SQL as the store would hold them) joins
//!    the HQ: the backfill notes every row, and the worker's `ship_once` ships them to an HQ
//!    serving on loopback, batch after batch, until none is left. Documents per second.
//! 2. Reports: the HQ's typed tables for `ARKA_BENCH_HQ_SHOPS` shops (default 10) with
//!    `ARKA_BENCH_HQ_SHOP_DOCS` documents each (default 1,000,000) over a year, and their daily
//!    totals (4 TCRs, 2 operators each, 3 kinds, 2 currencies a day), written by SQL; then the
//!    sales summary of one month over every shop and of one shop, p50 and p99 of 50 runs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use arka::domain::report::Period;
use arka::hq::client::HqClient;
use arka::hq::reports::Filter;
use arka::store::{Store, hq_outbox};

fn env_number(name: &str, default: i64) -> i64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn admin_url() -> String {
    std::env::var("ARKA_TEST_PG_URL")
        .expect("ARKA_TEST_PG_URL: a PostgreSQL to measure on (source .ci/postgres)")
}

/// A database of the bench's own; its URL.
async fn fresh_database(name: &str) -> String {
    let admin = admin_url();
    let (client, connection) = tokio_postgres::connect(&admin, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.simple_query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await.unwrap();
    client.simple_query(&format!("CREATE DATABASE {name}")).await.unwrap();
    format!("{}/{name}", admin.rsplit_once('/').unwrap().0)
}

/// `count` documents as the shop's store holds them, written by SQL in one transaction.
fn seed_shop(store: &Store, count: i64) {
    store
        .write_blocking(|tx| {
            tx.execute_batch(
                "INSERT INTO companies (id, nuis, name, created_at) VALUES (1, 'L41323036D', 'Dyqani', '2025-01-01T00:00:00Z');",
            )?;
            tx.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
                 INSERT INTO invoices (id, company_id, internal_id, year, kind, api_version, tcr_code, ord_num, number,
                     inv_num, issued_at, issue_date, issue_date_time, operator_code, business_unit_code, currency,
                     exchange_rate, gross, net, vat, discount, discount_gross, fee, total, gross_all, net_all, vat_all,
                     discount_all, buyer_name, iic, iic_signature, header_uuid, fic, verify_url, search_text, created_at)
                 SELECT i, 1, 'pos-' || i, 2025, 'CASH', 1, 'tc101tc101', i, i || '/2025/tc101tc101', i || '/2025',
                     '2025-03-14T09:26:53+00:00', '2025-03-14', '2025-03-14T10:26:53+01:00', 'op101op101', 'bu100bu100',
                     'ALL', '1', '285.00', '240.80', '44.20', '5.00', '5.00', '0', '285.00', '285.00', '240.80',
                     '44.20', '5.00', NULL, printf('%032X', i), printf('%0512X', i), printf('%036d', i),
                     printf('%036d', i), 'https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify?iic=' || i,
                     'pos-' || i || ' kafe uje', '2025-03-14T09:26:53+00:00'
                 FROM n",
                [count],
            )?;
            for position in 1..=3 {
                tx.execute(
                    "INSERT INTO invoice_lines (invoice_id, position, product_name, product_code, unit, quantity, price,
                         total, discount_rate, discount, vat_rate, unit_price_net, net, vat, gross)
                     SELECT id, ?1, 'Kafe', 'K1', 'copë', '2', '120', '240', '0', '0', '20', '100', '200', '40', '240'
                     FROM invoices",
                    [position],
                )?;
            }
            tx.execute(
                "INSERT INTO invoice_payments (invoice_id, position, type, amount) SELECT id, 1, 'BANKNOTE', '285.00' FROM invoices",
                [],
            )?;
            Ok(())
        })
        .unwrap();
}

async fn serve_hq(url: &str) -> (String, deadpool_postgres::Pool) {
    let pool = arka::hq::db::pool(url, 8).unwrap();
    arka::hq::db::migrate(&pool).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = arka::hq::server::router(arka::hq::server::HqState { pool: pool.clone() });
    tokio::spawn(arka::api::serve(listener, app, std::future::pending()));
    (format!("http://{address}"), pool)
}

fn backfill(runtime: &tokio::runtime::Runtime) {
    let count = env_number("ARKA_BENCH_HQ_DOCS", 100_000);
    let url = runtime.block_on(fresh_database("arka_bench_backfill"));
    let (base, pool) = runtime.block_on(serve_hq(&url));
    let token = runtime.block_on(arka::hq::db::add_shop(&pool, "bench")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("arka.db")).unwrap();
    let started = Instant::now();
    seed_shop(&store, count);
    println!("backfill: {count} documents seeded in {:.1} s", started.elapsed().as_secs_f64());
    let started = Instant::now();
    store.write_blocking(|tx| hq_outbox::link(tx, &base, "now")).unwrap();
    let notes = store.read_blocking(hq_outbox::backlog).unwrap().notes;
    println!("backfill: {notes} rows noted in {:.1} s", started.elapsed().as_secs_f64());
    let hq = Arc::new(HqClient::new(&base, &token, None, Duration::from_secs(120)).unwrap());
    let started = Instant::now();
    let mut batches = 0;
    while arka::services::hq_sync::ship_once(&store, &hq).unwrap() > 0 {
        batches += 1;
    }
    let took = started.elapsed().as_secs_f64();
    println!(
        "backfill: {count} documents ({notes} rows) shipped and applied in {took:.1} s, {batches} batches: {:.0} documents/s, {:.0} rows/s",
        count as f64 / took,
        notes as f64 / took
    );
}

fn reports(runtime: &tokio::runtime::Runtime) {
    let shops = env_number("ARKA_BENCH_HQ_SHOPS", 10);
    let per_shop = env_number("ARKA_BENCH_HQ_SHOP_DOCS", 1_000_000);
    let url = runtime.block_on(fresh_database("arka_bench_reports"));
    let (_, pool) = runtime.block_on(serve_hq(&url));
    let started = Instant::now();
    runtime.block_on(async {
        let client = pool.get().await.unwrap();
        for shop in 1..=shops {
            client.execute("INSERT INTO shops (name, token_hash) VALUES ($1, $1)", &[&format!("shop-{shop}")]).await.unwrap();
        }
        client
            .execute(
                "INSERT INTO invoices (shop_id, id, company_id, internal_id, year, kind, document_kind, tcr_code, ord_num,
                     number, issued_at, issue_date, operator_code, currency, total, iic, fic)
                 SELECT s, i, 1, 'pos-' || i, 2025, 'CASH', CASE WHEN i % 50 = 0 THEN 'ORDER' ELSE 'CASH' END,
                     'tc10' || (i % 4), i, i || '/2025', '2025-01-01T10:00:00+00:00',
                     to_char(DATE '2025-01-01' + (i * 365 / $2)::int, 'YYYY-MM-DD'), 'op', 'ALL', '285.00',
                     md5(s || '-' || i), CASE WHEN i % 1000 = 0 THEN NULL ELSE 'fic' END
                 FROM generate_series(1, $1::bigint) s, generate_series(1, $2::bigint) i",
                &[&shops, &per_shop],
            )
            .await
            .unwrap();
        client
            .execute(
                "INSERT INTO report_sales
                 SELECT s, 1, to_char(d, 'YYYY-MM-DD'), 1, 'tc10' || t, t * 10 + o, 'op' || t || o, k, c,
                     $2::bigint / 365 / 48, 1000000, 200000, 1200000, 1000, 0, 1000000, 200000, 1200000, 1200000
                 FROM generate_series(1, $1::bigint) s,
                     generate_series(DATE '2025-01-01', DATE '2025-12-31', INTERVAL '1 day') d,
                     generate_series(0, 3) t, generate_series(0, 1) o,
                     unnest(ARRAY['CASH', 'NONCASH', 'CORRECTIVE']) k, unnest(ARRAY['ALL', 'EUR']) c",
                &[&shops, &per_shop],
            )
            .await
            .unwrap();
        client
            .execute(
                "INSERT INTO report_payments
                 SELECT s, 1, to_char(d, 'YYYY-MM-DD'), 1, 'tc10' || t, t * 10 + o, 'op' || t || o, k, p,
                     $2::bigint / 365 / 48, 1200000
                 FROM generate_series(1, $1::bigint) s,
                     generate_series(DATE '2025-01-01', DATE '2025-12-31', INTERVAL '1 day') d,
                     generate_series(0, 3) t, generate_series(0, 1) o,
                     unnest(ARRAY['CASH', 'NONCASH', 'CORRECTIVE']) k, unnest(ARRAY['BANKNOTE', 'CARD']) p",
                &[&shops, &per_shop],
            )
            .await
            .unwrap();
        client.simple_query("ANALYZE").await.unwrap();
    });
    println!(
        "reports: {shops} shops x {per_shop} documents seeded at the HQ in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let month = Period { from: "2025-03-01".parse().unwrap(), to: "2025-03-31".parse().unwrap() };
    for (what, shop_id) in [("every shop", None), ("one shop", Some(3))] {
        let filter = Filter { period: month, shop_id };
        let mut times = Vec::new();
        for _ in 0..50 {
            let started = Instant::now();
            let summary = runtime.block_on(arka::hq::reports::sales_summary(&pool, &filter)).unwrap();
            times.push(started.elapsed());
            assert!(summary.totals.documents > 0);
        }
        times.sort();
        println!(
            "reports: sales summary of March 2025, {what}: p50 {:.1} ms, p99 {:.1} ms",
            times[25].as_secs_f64() * 1000.0,
            times[49].as_secs_f64() * 1000.0
        );
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    if only.as_deref().is_none_or(|o| o == "backfill") {
        backfill(&runtime);
    }
    if only.as_deref().is_none_or(|o| o == "reports") {
        reports(&runtime);
    }
}
