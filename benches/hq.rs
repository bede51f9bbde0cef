//! Figures for issue 30, the chain's head office (`cargo bench --bench hq`; it prints, it asserts
//! nothing). Needs a PostgreSQL: `ARKA_TEST_PG_URL` (what `.ci/postgres` exports), on which it
//! makes and drops databases of its own.
//!
//! 1. Backfill: a shop's database with `ARKA_BENCH_HQ_DOCS` documents (default 100,000; each an
//!    invoice row with 3 lines and 1 payment, written by SQL as the store would hold them) joins
//!    the HQ: the backfill notes every row, and the worker's `ship_once` ships them to an HQ
//!    serving on loopback, batch after batch, until none is left. Documents per second.
//! 2. Steady state: `ARKA_BENCH_HQ_STEADY_SHOPS` shops (default 3), real Arka servers in this
//!    process against the CIS simulator, each sold to at `ARKA_BENCH_HQ_RATE` cash invoices a
//!    second (default 50) for `ARKA_BENCH_HQ_SECS` seconds (default 10), on a fixed schedule;
//!    as lone shops, linked to an HQ that is away (what the outbox's notes alone cost), and
//!    linked to an HQ on loopback, in alternating rounds (`ARKA_BENCH_HQ_ROUNDS`, default 6).
//!    A sale's time is its POST as the POS sees it (p50, p99 over the runs); a document's lag is
//!    from its answer to the first moment the HQ's PostgreSQL holds it (polled every 20 ms, so
//!    up to 20 ms too high).
//! 3. Reports: the HQ's typed tables for `ARKA_BENCH_HQ_SHOPS` shops (default 10) with
//!    `ARKA_BENCH_HQ_SHOP_DOCS` documents each (default 1,000,000) over a year, and their daily
//!    totals (4 TCRs, 2 operators each, 3 kinds, 2 currencies a day), written by SQL; then the
//!    VAT, products and clients tables, each TCR's day of the year with its float and a deposit,
//!    2 transfer notes a day, and the rows as shipped (invoice, 3 lines, 1 payment: a shop's own
//!    rows, copied) of the documents of the first `ARKA_BENCH_HQ_ROW_MONTHS` months (default 3;
//!    the in-memory copy of the list and the sales book reads them); the secondary indexes are
//!    built after the load. Then every report route of the HQ and the invoice list's first page
//!    (plain and searched) for one month over every shop and of one shop, through HTTP, p50 and
//!    p99 of 50 runs, as seeded (no page all-visible yet) and after a VACUUM (as autovacuum
//!    leaves a past month).
//! 4. Catch-up (`-- catchup`, or `-- figures` with the steady state): 3 shops at 50 cash
//!    invoices a second; the HQ stops for `ARKA_BENCH_HQ_OUTAGE_SECS` (default 600) while they sell
//!    on, then comes back: how long until it holds every document sold before its return.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arka::hq_client::HqClient;
use arka::store::{Store, hq_outbox};
use common::{Server, agent, ms, open_till, percentile, post_json, server_args};

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
            Ok::<_, arka::store::Error>(())
        })
        .unwrap();
}

async fn serve_hq(url: &str) -> (String, deadpool_postgres::Pool) {
    let pool = arka::hq::store::db::pool(url, 8).unwrap();
    arka::hq::store::db::migrate(&pool).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = arka::hq::server::router(arka::hq::server::HqState::new(pool.clone(), false));
    tokio::spawn(arka::api::serve(listener, app, std::future::pending()));
    (format!("http://{address}"), pool)
}

fn backfill(runtime: &tokio::runtime::Runtime) {
    let count = env_number("ARKA_BENCH_HQ_DOCS", 100_000);
    let url = runtime.block_on(fresh_database("arka_bench_backfill"));
    let (base, pool) = runtime.block_on(serve_hq(&url));
    let token = runtime.block_on(arka::hq::store::db::add_shop(&pool, "bench", common::NUIS)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("arka.db")).unwrap();
    let started = Instant::now();
    seed_shop(&store, count);
    println!("backfill: {count} documents seeded in {:.1} s", started.elapsed().as_secs_f64());
    let started = Instant::now();
    store.write_blocking(|tx| hq_outbox::link(tx, &base, "now")).unwrap();
    let notes = store.read_blocking(hq_outbox::backlog).unwrap().notes;
    println!("backfill: {notes} rows noted in {:.1} s", started.elapsed().as_secs_f64());
    let hq = Arc::new(HqClient::new(&base, &token, "bench-box", None, Duration::from_secs(120)).unwrap());
    let started = Instant::now();
    let mut batches = 0;
    // `ship_once`'s three steps, timed apart: reading the batch at the shop, the HQ's answer
    // (serializing, HTTP, applying in PostgreSQL), forgetting what it acknowledged.
    let (mut reading, mut at_hq, mut forgetting) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    loop {
        let step = Instant::now();
        let batch = store
            .read_blocking(|conn| {
                Ok(arka::services::hq_sync::next_batch(conn, arka::services::hq_sync::BATCH_NOTES).unwrap())
            })
            .unwrap();
        reading += step.elapsed();
        let Some(batch) = batch else { break };
        let step = Instant::now();
        let acked = hq.ship(&batch).unwrap();
        at_hq += step.elapsed();
        let step = Instant::now();
        store.write_blocking_unsynced(|tx| hq_outbox::forget_upto(tx, acked.acked)).unwrap();
        forgetting += step.elapsed();
        batches += 1;
    }
    let took = started.elapsed().as_secs_f64();
    println!(
        "backfill: reading at the shop {:.1} s, the HQ's answers {:.1} s, forgetting {:.1} s",
        reading.as_secs_f64(),
        at_hq.as_secs_f64(),
        forgetting.as_secs_f64()
    );
    println!(
        "backfill: {count} documents ({notes} rows) shipped and applied in {took:.1} s, {batches} batches: {:.0} documents/s, {:.0} rows/s",
        count as f64 / took,
        notes as f64 / took
    );
}

/// Every report route of the HQ and the invoice list's first page, for March 2025 over every
/// shop and over one, through HTTP as the owner's page calls them: p50 and p99 of 50 runs each.
const ROUTES: [&str; 15] = [
    "reports/sales-summary?",
    "reports/vat?",
    "reports/vat?documents=true&",
    "reports/daily-trend?",
    "reports/top-clients?",
    "reports/top-products?",
    "reports/by-operator?",
    "reports/by-tcr?",
    "reports/cash-register?",
    "reports/cash-register/closing?",
    "reports/cash-register/closing/pdf?",
    "reports/reversals?",
    "reports/wtn?",
    "invoice?list&",
    "invoice?list&query=pos-7&",
];

fn time_reports(base: &str, token: &str, when: &str) {
    let agent = agent();
    for (what, shop) in [("every shop", ""), ("one shop", "shop=shop-3&")] {
        for route in ROUTES {
            let (path, dates) = match route.strip_prefix("invoice?list&") {
                Some(rest) => (format!("invoice?{rest}"), "fromDate=2025-03-01&toDate=2025-03-31"),
                None => (route.to_string(), "from=2025-03-01&to=2025-03-31"),
            };
            let url = format!("{base}/api/v1/{path}{shop}{dates}");
            let mut times = Vec::new();
            let mut status = 0;
            for _ in 0..50 {
                let started = Instant::now();
                let mut reply =
                    agent.get(&url).header("Authorization", format!("Bearer {token}")).call().unwrap();
                reply.body_mut().read_to_vec().unwrap();
                times.push(started.elapsed());
                status = reply.status().as_u16();
            }
            times.sort();
            println!(
                "reports: {path}{dates} of March 2025, {what}, {when}: HTTP {status}, p50 {:.1} ms, p99 {:.1} ms",
                ms(percentile(&times, 50.0)),
                ms(percentile(&times, 99.0))
            );
        }
    }
}

/// One document as a shop ships it (its invoice, 3 lines and 1 payment, by table), each row's
/// JSON as the shop's outbox reads it: the template the rows seeded at the HQ copy.
fn shipped_document() -> Vec<(&'static str, &'static [&'static str], String)> {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("template.db")).unwrap();
    seed_shop(&store, 1);
    let conn = rusqlite::Connection::open(dir.path().join("template.db")).unwrap();
    let mut rows = Vec::new();
    for (table, key, keys) in [
        ("invoices", &["id"][..], vec![r#"{"id":1}"#.to_string()]),
        (
            "invoice_lines",
            &["invoice_id", "position"][..],
            (1..=3).map(|p| format!(r#"{{"invoice_id":1,"position":{p}}}"#)).collect(),
        ),
        (
            "invoice_payments",
            &["invoice_id", "position"][..],
            vec![r#"{"invoice_id":1,"position":1}"#.to_string()],
        ),
    ] {
        let query = hq_outbox::row_query(&conn, table, key).unwrap();
        for k in keys {
            rows.push((table, key, hq_outbox::row(&conn, &query, &k).unwrap().unwrap()));
        }
    }
    rows
}

/// The rows as shipped of the documents of the first `months` months (the in-memory copy of the
/// list and the sales book reads them; the tills' reports scan the shops' rows), copies of the
/// template with each document's id, number, days and search text.
async fn seed_rows(client: &deadpool_postgres::Client, shops: i64, per_shop: i64, months: i64) {
    let last = format!("2025-{:02}-31", months.clamp(1, 12));
    for (table, key, row) in shipped_document() {
        let position = if key.len() == 2 { "|| ',' || (t.row->>'position')" } else { "" };
        let document = if table == "invoices" { "'id'" } else { "'invoice_id'" };
        client
            .execute(
                &format!(
                    "INSERT INTO shop_rows (shop_id, tbl, key, row, seq)
                     SELECT s, $4, '[' || i {position} || ']', t.row || jsonb_build_object({document}, i) || (CASE WHEN $4 = 'invoices'
                         THEN jsonb_build_object('number', i || '/2025', 'internal_id', 'pos-' || i, 'ord_num', i,
                             'issue_date', d, 'issued_at', d || 'T10:00:00+00:00', 'search_text', 'pos-' || i || ' kafe uje',
                             'iic', md5(s || '-' || i), 'header_uuid', md5('header-' || i), 'fic', md5('fic-' || i))
                         ELSE '{{}}'::jsonb END), i
                     FROM (SELECT $3::text::jsonb AS row) t, generate_series(1, $1::bigint) s, generate_series(1, $2::bigint) i,
                         LATERAL (SELECT to_char(DATE '2025-01-01' + (i * 365 / $2)::int, 'YYYY-MM-DD') AS d) day
                     WHERE day.d <= $5"
                ),
                &[&shops, &per_shop, &row, &table, &last],
            )
            .await
            .unwrap();
    }
}

fn reports(runtime: &tokio::runtime::Runtime) {
    let shops = env_number("ARKA_BENCH_HQ_SHOPS", 10);
    let per_shop = env_number("ARKA_BENCH_HQ_SHOP_DOCS", 1_000_000);
    let url = runtime.block_on(fresh_database("arka_bench_reports"));
    let row_months = env_number("ARKA_BENCH_HQ_ROW_MONTHS", 3);
    let (base, pool) = runtime.block_on(serve_hq(&url));
    let token = runtime.block_on(arka::hq::store::db::add_owner(&pool, "bench")).unwrap();
    let started = Instant::now();
    runtime.block_on(async {
        let client = pool.get().await.unwrap();
        let indexes = without_indexes(&client).await;
        for shop in 1..=shops {
            client.execute("INSERT INTO shops (name, token_hash) VALUES ($1, $1)", &[&format!("shop-{shop}")]).await.unwrap();
        }
        client
            .execute(
                "INSERT INTO invoices (shop_id, id, company_id, internal_id, year, kind, document_kind, tcr_code, ord_num,
                     number, issued_at, issue_date, operator_code, currency, total, iic, fic, gross_all, exchange_rate,
                     cash_day_id, search_text, original_invoice_id)
                 SELECT s, i, 1, 'pos-' || i, 2025, 'CASH',
                     CASE WHEN i % 50 = 0 THEN 'ORDER' WHEN i % 500 = 7 THEN 'CORRECTIVE' ELSE 'CASH' END,
                     'tc10' || (i % 4), i, i || '/2025',
                     to_char(DATE '2025-01-01' + (i * 365 / $2)::int, 'YYYY-MM-DD') || 'T10:00:00+00:00',
                     to_char(DATE '2025-01-01' + (i * 365 / $2)::int, 'YYYY-MM-DD'), 'op', 'ALL', '285.00',
                     md5(s || '-' || i), CASE WHEN i % 1000 = 0 THEN NULL ELSE 'fic' END, '285.00', '1',
                     (i * 365 / $2) * 4 + i % 4 + 1, 'pos-' || i || ' kafe uje', CASE WHEN i % 500 = 7 THEN i - 1 END
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
        seed_typed(&client, shops, per_shop).await;
        seed_tills(&client, shops).await;
        seed_rows(&client, shops, per_shop, row_months).await;
        for index in indexes {
            client.simple_query(&index).await.unwrap();
        }
        client.simple_query("ANALYZE").await.unwrap();
    });
    println!(
        "reports: {shops} shops x {per_shop} documents seeded at the HQ in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    time_reports(&base, &token, "as seeded, no page all-visible yet");
    runtime.block_on(async { pool.get().await.unwrap().simple_query("VACUUM ANALYZE").await.unwrap() });
    time_reports(&base, &token, "after VACUUM, as autovacuum leaves a past month");
}

/// The secondary indexes of the tables the bench loads, taken away for the load (as one loads a
/// database in bulk) and given back by the statements returned: the reads are timed on the same
/// indexes, built at once rather than row by row.
async fn without_indexes(client: &deadpool_postgres::Client) -> Vec<String> {
    let rows = client
        .query(
            "SELECT i.indexname, i.indexdef FROM pg_indexes i
             WHERE i.schemaname = 'public' AND NOT EXISTS (
                 SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype IN ('p', 'u'))",
            &[],
        )
        .await
        .unwrap();
    let mut defs = Vec::new();
    for row in &rows {
        client.simple_query(&format!("DROP INDEX {}", row.get::<_, String>(0))).await.unwrap();
        defs.push(row.get(1));
    }
    defs
}

/// Every shop's 4 TCRs and 2 operators each, one branch, and each TCR's day of the year: opened
/// on a float, a deposit, closed on a count (the last day left open); 2 transfer notes a day.
async fn seed_tills(client: &deadpool_postgres::Client, shops: i64) {
    let days = "generate_series(DATE '2025-01-01', DATE '2025-12-31', INTERVAL '1 day') d";
    let day_id = "(d::date - DATE '2025-01-01') * 4 + t + 1";
    for sql in [
        "INSERT INTO business_units SELECT s, 1, 'Dyqani ' || s FROM generate_series(1, $1::bigint) s".to_string(),
        "INSERT INTO fiscal_devices SELECT s, t + 1, 1, 'Arka ' || t, 'tc10' || t
         FROM generate_series(1, $1::bigint) s, generate_series(0, 3) t"
            .to_string(),
        "INSERT INTO users SELECT s, t * 10 + o, 'Shitësi ' || t || o, 'op' || t || o
         FROM generate_series(1, $1::bigint) s, generate_series(0, 3) t, generate_series(0, 1) o"
            .to_string(),
        format!(
            "INSERT INTO cash_days SELECT s, {day_id}, 'tc10' || t, to_char(d, 'YYYY-MM-DD'),
                 to_char(d, 'YYYY-MM-DD') || 'T07:00:00+00:00', 0,
                 CASE WHEN d < DATE '2025-12-31' THEN to_char(d, 'YYYY-MM-DD') || 'T20:00:00+00:00' END,
                 '78500.00', '78500.00', '78000.00'
             FROM generate_series(1, $1::bigint) s, {days}, generate_series(0, 3) t"
        ),
        format!(
            "INSERT INTO cash_actions SELECT s, ({day_id}) * 2 + a, {day_id}, 'tc10' || t, to_char(d, 'YYYY-MM-DD'),
                 CASE a WHEN 0 THEN 'INITIAL' ELSE 'MONEY_IN' END, CASE a WHEN 0 THEN 'open' ELSE 'deposit' END,
                 'SENT', CASE a WHEN 0 THEN '500.00' ELSE '200.50' END
             FROM generate_series(1, $1::bigint) s, {days}, generate_series(0, 3) t, generate_series(0, 1) a"
        ),
        format!(
            "INSERT INTO wtns SELECT s, (d::date - DATE '2025-01-01') * 2 + n + 1, to_char(d, 'YYYY-MM-DD'),
                 CASE WHEN n = 0 THEN 'fwtnic' END, '1200.00', 1, 'STORE', 'Tiranë', 'Rruga ' || n
             FROM generate_series(1, $1::bigint) s, {days}, generate_series(0, 1) n"
        ),
    ] {
        client.execute(&sql, &[&shops]).await.unwrap();
    }
}

/// The typed tables the VAT, products and clients reports sum: a day of each TCR and operator
/// by kind (VAT), of each TCR by 50 products, and 20 buyers a day.
async fn seed_typed(client: &deadpool_postgres::Client, shops: i64, per_shop: i64) {
    let days = "generate_series(DATE '2025-01-01', DATE '2025-12-31', INTERVAL '1 day') d";
    for sql in [
        format!(
            "INSERT INTO report_vat SELECT s, 1, to_char(d, 'YYYY-MM-DD'), 1, 'tc10' || t, t * 10 + o, 'op' || t || o, k,
                 '20', '', $2::bigint / 365 / 24, $2::bigint / 365 / 8, 1000000, 200000
             FROM generate_series(1, $1::bigint) s, {days}, generate_series(0, 3) t, generate_series(0, 1) o,
                 unnest(ARRAY['CASH', 'NONCASH', 'CORRECTIVE']) k"
        ),
        format!(
            "INSERT INTO report_products SELECT s, 1, to_char(d, 'YYYY-MM-DD'), 1, 'tc10' || t, 'P' || p, 'Produkt ' || p,
                 'copë', $2::bigint / 365 / 200, $2::bigint / 365 / 100, 100000, 20000
             FROM generate_series(1, $1::bigint) s, {days}, generate_series(0, 3) t, generate_series(1, 50) p"
        ),
        format!(
            "INSERT INTO report_clients SELECT s, 1, to_char(d, 'YYYY-MM-DD'), 1, 'NUIS:K' || b, NULL, 'Blerësi ' || b,
                 'NUIS', 'K' || b, $2::bigint / 365 / 40, 10, 100000, 20000, 120000
             FROM generate_series(1, $1::bigint) s, {days}, generate_series(1, 20) b"
        ),
    ] {
        client.execute(&sql, &[&shops, &per_shop]).await.unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Steady state
// ---------------------------------------------------------------------------------------------

/// A real shop server (`common::Server`) with a data directory of its own.
struct Shop {
    server: Server,
    _dir: tempfile::TempDir,
}

impl Shop {
    fn start(configure: impl FnOnce(&mut arka::config::ServeArgs)) -> Shop {
        let dir = tempfile::tempdir().unwrap();
        let mut args = server_args(&dir.path().join("data"));
        configure(&mut args);
        Shop { server: Server::start(args), _dir: dir }
    }
}

fn call(agent: &ureq::Agent, url: &str, token: &str, body: &serde_json::Value) -> serde_json::Value {
    let (status, reply) = post_json(agent, url, token, body);
    assert!((200..300).contains(&status), "POST {url}: {status} {reply}");
    reply["data"].clone()
}

fn sale(internal_id: &str) -> serde_json::Value {
    serde_json::json!({
        "internalId": internal_id,
        "lines": [
            {"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 2, "price": 120, "total": 240, "vat": 20},
            {"product_name": "Ujë", "product_code": "U1", "unit": "copë", "quantity": 1, "price": 50, "total": 45, "discount": 10, "vat": 6}
        ],
        "payment_method": "BANKNOTE",
    })
}

/// One shop's sales: each invoice's id, the time its POST took, and when its answer came.
struct Sold {
    ids: Vec<i64>,
    took: Vec<Duration>,
    answered: Vec<Instant>,
}

/// Sells at `rate` a second for `secs` on a fixed schedule (a late sale is sent at once, the
/// schedule does not slip).
fn sell_steadily(shop: &Shop, token: &str, name: &str, rate: u64, secs: u64) -> Sold {
    let agent = agent();
    let url = format!("{}/api/v1/invoice/cash", shop.server.base());
    let mut sold = Sold { ids: Vec::new(), took: Vec::new(), answered: Vec::new() };
    let start = Instant::now();
    for i in 0..rate * secs {
        let due = start + Duration::from_micros(i * 1_000_000 / rate);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let sent = Instant::now();
        let answer = call(&agent, &url, token, &sale(&format!("{name}-{i}")));
        sold.took.push(sent.elapsed());
        sold.answered.push(Instant::now());
        sold.ids.push(answer["invoice"]["id"].as_i64().unwrap());
    }
    sold
}

/// When each shop's invoice ids first showed at the HQ: polls the highest id per shop.
fn watch_hq(
    pool: deadpool_postgres::Pool,
    runtime: tokio::runtime::Handle,
    done: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<(i64, i64, Instant)>>>,
) {
    let client = runtime.block_on(pool.get()).unwrap();
    while !done.load(Ordering::Relaxed) {
        let rows = runtime
            .block_on(client.query("SELECT shop_id, MAX(id) FROM invoices GROUP BY shop_id", &[]))
            .unwrap();
        let now = Instant::now();
        let mut seen = seen.lock().unwrap();
        for r in rows {
            seen.push((r.get(0), r.get(1), now));
        }
        drop(seen);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Each document's lag: from its answer to the first poll that saw its id (or a later one) at the HQ.
fn lags(sold: &Sold, shop_id: i64, seen: &[(i64, i64, Instant)]) -> Vec<Duration> {
    let polls: Vec<(i64, Instant)> =
        seen.iter().filter(|(s, _, _)| *s == shop_id).map(|(_, id, at)| (*id, *at)).collect();
    sold.ids
        .iter()
        .zip(&sold.answered)
        .map(|(id, answered)| {
            let at = polls.iter().find(|(max, at)| max >= id && at >= answered).map(|(_, at)| *at);
            at.map_or(Duration::MAX, |at| at - *answered)
        })
        .collect()
}

fn print_sales(label: &str, sold: &[Sold]) -> Duration {
    let mut took: Vec<Duration> = sold.iter().flat_map(|s| s.took.iter().copied()).collect();
    took.sort();
    let p50 = percentile(&took, 50.0);
    println!(
        "steady: {label}: {} sales, p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms",
        took.len(),
        ms(p50),
        ms(percentile(&took, 90.0)),
        ms(percentile(&took, 99.0))
    );
    p50
}

/// `shops` shops selling at once, each on a thread; linked to the HQ at `hq` when given.
fn steady_run(
    sim: &arka::sim::cis::CisSimHandle,
    hq: Option<(&str, &[String])>,
    shops: usize,
    rate: u64,
    secs: u64,
) -> Vec<(Shop, Sold)> {
    let addr = sim.addr();
    let opened: Vec<(Shop, String)> = (0..shops)
        .map(|i| {
            let shop = Shop::start(|args| {
                args.cis_url = Some(arka::sim::cis::fiscalization_url(addr));
                args.einvoice_url = Some(arka::sim::cis::einvoice_url(addr));
                args.soft_code = Some("ss123ss123".into());
                args.maintainer_code = Some("mm123mm123".into());
                if let Some((url, tokens)) = hq {
                    args.hq.hq_url = Some(url.to_string());
                    args.hq.hq_token = Some(tokens[i].clone());
                    args.hq.hq_allow_http = true;
                }
            });
            let token = open_till(&shop.server.base(), &shop.server.db).token;
            (shop, token)
        })
        .collect();
    // The on-boarding's own rows reach the HQ before the clock starts.
    std::thread::sleep(Duration::from_secs(1));
    let sold: Vec<Sold> = std::thread::scope(|scope| {
        let handles: Vec<_> = opened
            .iter()
            .enumerate()
            .map(|(i, (shop, token))| {
                scope.spawn(move || sell_steadily(shop, token, &format!("shop{i}"), rate, secs))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    opened.into_iter().map(|(shop, _)| shop).zip(sold).collect()
}

/// The linked run: its sales, and each document's lag to the HQ.
fn linked_run(
    runtime: &tokio::runtime::Runtime,
    sim: &arka::sim::cis::CisSimHandle,
    (base, pool): (&str, &deadpool_postgres::Pool),
    round: usize,
    (shops, rate, secs): (usize, u64, u64),
) -> (Vec<Sold>, Vec<Duration>) {
    let names: Vec<String> = (0..shops).map(|i| format!("round{round}-shop{i}")).collect();
    let tokens: Vec<String> = names
        .iter()
        .map(|n| runtime.block_on(arka::hq::store::db::add_shop(pool, n, common::NUIS)).unwrap())
        .collect();
    let ids: BTreeMap<String, i64> = runtime
        .block_on(arka::hq::store::db::shops(pool))
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.id))
        .collect();
    let done = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let watcher = {
        let (pool, handle, done, seen) = (pool.clone(), runtime.handle().clone(), done.clone(), seen.clone());
        std::thread::spawn(move || watch_hq(pool, handle, done, seen))
    };
    let linked = steady_run(sim, Some((base, &tokens)), shops, rate, secs);
    let expected: Vec<(i64, i64)> =
        linked.iter().enumerate().map(|(i, (_, sold))| (ids[&names[i]], *sold.ids.last().unwrap())).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !expected
        .iter()
        .all(|(shop, id)| seen.lock().unwrap().iter().any(|(s, max, _)| s == shop && max >= id))
    {
        assert!(Instant::now() < deadline, "the HQ did not catch up within a minute");
        std::thread::sleep(Duration::from_millis(50));
    }
    done.store(true, Ordering::Relaxed);
    watcher.join().unwrap();
    let seen = seen.lock().unwrap();
    let lag =
        linked.iter().enumerate().flat_map(|(i, (_, sold))| lags(sold, ids[&names[i]], &seen)).collect();
    (linked.into_iter().map(|(_, sold)| sold).collect(), lag)
}

fn steady(runtime: &tokio::runtime::Runtime) {
    let shops = env_number("ARKA_BENCH_HQ_STEADY_SHOPS", 3) as usize;
    let rate = env_number("ARKA_BENCH_HQ_RATE", 50) as u64;
    let secs = env_number("ARKA_BENCH_HQ_SECS", 10) as u64;
    let rounds = env_number("ARKA_BENCH_HQ_ROUNDS", 6) as usize;
    let (_, sim) = runtime
        .block_on(arka::sim::cis::spawn_loopback(arka::sim::cis::SimConfig {
            strict_iic: false,
            tcrs: Vec::new(),
        }))
        .unwrap();
    let url = runtime.block_on(fresh_database("arka_bench_steady"));
    let hq = runtime.block_on(serve_hq(&url));
    println!(
        "steady: {shops} shops x {rate} cash invoices/s for {secs} s, {rounds} rounds of (lone, linked with the HQ away, linked), \
         fresh shops every run; the HQ and its PostgreSQL on this same box"
    );
    // The HQ away: the shops note every change in their transactions and cannot ship them, so
    // this is what the notes alone cost a sale.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let nowhere = (format!("http://{closed}"), vec!["arka_hqs_nobody".to_string(); shops]);
    let (mut without, mut away, mut with, mut lag) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        without.extend(steady_run(&sim, None, shops, rate, secs).into_iter().map(|(_, sold)| sold));
        let noting = steady_run(&sim, Some((&nowhere.0, &nowhere.1)), shops, rate, secs);
        away.extend(noting.into_iter().map(|(_, sold)| sold));
        let (sold, lags) = linked_run(runtime, &sim, (&hq.0, &hq.1), round, (shops, rate, secs));
        with.extend(sold);
        lag.extend(lags);
    }
    let without = print_sales("without an HQ", &without);
    let away = print_sales("linked, the HQ away (the notes alone)", &away);
    let with = print_sales("with the HQ", &with);
    lag.sort();
    println!(
        "steady: the HQ's lag over {} documents: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        lag.len(),
        ms(percentile(&lag, 50.0)),
        ms(percentile(&lag, 99.0)),
        ms(*lag.last().unwrap())
    );
    let change = |p50: Duration| (ms(p50) / ms(without) - 1.0) * 100.0;
    println!(
        "steady: a sale's p50 against a lone shop's: {:+.1} % with the HQ, {:+.1} % with the notes alone",
        change(with),
        change(away)
    );
    runtime.block_on(async { tokio::time::timeout(Duration::from_secs(5), sim.stop()).await }).ok();
}

// ---------------------------------------------------------------------------------------------
// 4. Catch-up after an outage
// ---------------------------------------------------------------------------------------------

/// The HQ served in this process on `address` until the sender is used.
fn serve_hq_on(
    runtime: &tokio::runtime::Runtime,
    pool: &deadpool_postgres::Pool,
    address: std::net::SocketAddr,
) -> tokio::sync::oneshot::Sender<()> {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let listener = runtime.block_on(tokio::net::TcpListener::bind(address)).unwrap();
    let app = arka::hq::server::router(arka::hq::server::HqState::new(pool.clone(), false));
    runtime.spawn(arka::api::serve(listener, app, async move {
        let _ = stopped.await;
    }));
    stop
}

/// `ARKA_BENCH_HQ_STEADY_SHOPS` shops sell at `ARKA_BENCH_HQ_RATE` a second; after
/// `ARKA_BENCH_HQ_WARM_SECS` the HQ stops for `ARKA_BENCH_HQ_OUTAGE_SECS` (default 600: the issue's
/// ten minutes, run for real: the shops' pauses between tries are tokio's own time, no clock to
/// move) while they sell on, then comes back; they sell on for `ARKA_BENCH_HQ_AFTER_SECS`. The
/// catch-up: from the HQ's return to the first moment it holds, for every shop, every document
/// sold before it came back.
fn catchup(runtime: &tokio::runtime::Runtime) {
    let shops = env_number("ARKA_BENCH_HQ_STEADY_SHOPS", 3) as usize;
    let rate = env_number("ARKA_BENCH_HQ_RATE", 50) as u64;
    let warm = env_number("ARKA_BENCH_HQ_WARM_SECS", 10) as u64;
    let outage = env_number("ARKA_BENCH_HQ_OUTAGE_SECS", 600) as u64;
    let after = env_number("ARKA_BENCH_HQ_AFTER_SECS", 60) as u64;
    let (_, sim) = runtime
        .block_on(arka::sim::cis::spawn_loopback(arka::sim::cis::SimConfig {
            strict_iic: false,
            tcrs: Vec::new(),
        }))
        .unwrap();
    let url = runtime.block_on(fresh_database("arka_bench_catchup"));
    let pool = arka::hq::store::db::pool(&url, 8).unwrap();
    runtime.block_on(arka::hq::store::db::migrate(&pool)).unwrap();
    let address = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let mut stop = Some(serve_hq_on(runtime, &pool, address));
    let names: Vec<String> = (0..shops).map(|i| format!("catchup-shop{i}")).collect();
    let tokens: Vec<String> = names
        .iter()
        .map(|n| runtime.block_on(arka::hq::store::db::add_shop(&pool, n, common::NUIS)).unwrap())
        .collect();
    let ids: BTreeMap<String, i64> = runtime
        .block_on(arka::hq::store::db::shops(&pool))
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.id))
        .collect();
    println!(
        "catchup: {shops} shops x {rate} cash invoices/s; the HQ away for {outage} s after {warm} s, then {after} s more"
    );
    let done = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let watcher = {
        let (pool, handle, done, seen) = (pool.clone(), runtime.handle().clone(), done.clone(), seen.clone());
        std::thread::spawn(move || watch_hq(pool, handle, done, seen))
    };
    let base = format!("http://{address}");
    let (sold, returned) = std::thread::scope(|scope| {
        let selling =
            scope.spawn(|| steady_run(&sim, Some((&base, &tokens)), shops, rate, warm + outage + after));
        std::thread::sleep(Duration::from_secs(warm + 1));
        if let Some(stop) = stop.take() {
            let _ = stop.send(());
        }
        std::thread::sleep(Duration::from_secs(outage));
        stop = Some(serve_hq_on(runtime, &pool, address));
        let returned = Instant::now();
        (selling.join().unwrap(), returned)
    });
    let caught_up = |shop: &str, sold: &Sold| -> Option<Duration> {
        let last =
            sold.ids.iter().zip(&sold.answered).filter(|(_, at)| **at < returned).map(|(id, _)| *id).max()?;
        let seen = seen.lock().unwrap();
        seen.iter()
            .filter(|(s, max, at)| *s == ids[shop] && *max >= last && *at >= returned)
            .map(|(_, _, at)| *at - returned)
            .min()
    };
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut times = Vec::new();
    for (i, (_, sold)) in sold.iter().enumerate() {
        loop {
            if let Some(t) = caught_up(&names[i], sold) {
                times.push(t);
                break;
            }
            assert!(Instant::now() < deadline, "the HQ did not catch up within 10 minutes");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    done.store(true, Ordering::Relaxed);
    watcher.join().unwrap();
    let backlog: usize =
        sold.iter().map(|(_, s)| s.answered.iter().filter(|at| **at < returned).count()).sum::<usize>();
    let slowest = times.iter().max().copied().unwrap_or_default();
    println!(
        "catchup: {backlog} documents sold before the HQ came back; every shop's caught up {:.1} s after its return \
         (each shop: {})",
        slowest.as_secs_f64(),
        times.iter().map(|t| format!("{:.1} s", t.as_secs_f64())).collect::<Vec<_>>().join(", ")
    );
    drop(stop);
    runtime.block_on(async { tokio::time::timeout(Duration::from_secs(5), sim.stop()).await }).ok();
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    if only.as_deref().is_none_or(|o| o == "backfill") {
        backfill(&runtime);
    }
    // `figures`: the chain's figures of the book side by side in one run (steady, then catch-up).
    if only.as_deref().is_none_or(|o| o == "steady" || o == "figures") {
        steady(&runtime);
    }
    if only.as_deref().is_none_or(|o| o == "catchup" || o == "figures") {
        catchup(&runtime);
    }
    if only.as_deref().is_none_or(|o| o == "reports") {
        reports(&runtime);
    }
}
