//! Figures for issue 16: every report over a year of receipts. Seeds 1,000,000 invoices with
//! their lines over the 12 months of 2025 for one company with 4 TCRs, directly through the
//! store's insert (which keeps the report totals, as issuing does), plus a closed cash day per
//! TCR and day; then times each report through the services (what a request runs, without the
//! HTTP hop) for a one-month and a twelve-month period, and prints p50 and p99 and the database
//! size. Run with `cargo bench --bench reports`; it prints, it asserts nothing.
//!
//! `ARKA_BENCH_INVOICES` changes how many invoices are seeded (default 1,000,000).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use arka::config::ServeArgs;
use arka::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use arka::domain::payments::PaymentType;
use arka::domain::report::Period;
use arka::services::reports::ReportQuery;
use arka::store::invoices::{self, Buyer, Invoice, Line, Payment, Totals};
use chrono::NaiveDate;
use rusqlite::{Connection, named_params};
use rust_decimal::{Decimal, RoundingStrategy};

const TCRS: [&str; 4] = ["tc101tc101", "tc202tc202", "tc303tc303", "tc404tc404"];
const PRODUCTS: u64 = 300;
const CLIENTS: u64 = 2_000;

/// A small deterministic generator (xorshift), so every run seeds the same year.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn round2(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// The company, its two branches, four TCRs (two a branch) and eight operators (two a TCR).
fn seed_shop(conn: &Connection) -> (i64, Vec<(i64, i64, String, String)>) {
    conn.execute_batch(
        "INSERT INTO companies (nuis, name, created_at) VALUES ('L41323036D', 'Dyqani Ana', '2025-01-01T00:00:00Z');",
    )
    .unwrap();
    let company = conn.last_insert_rowid();
    let mut operators = Vec::new();
    for branch in 0..2 {
        conn.execute(
            "INSERT INTO business_units (company_id, name, business_unit_code, created_at, updated_at)
             VALUES (?1, ?2, ?3, 'now', 'now')",
            rusqlite::params![company, format!("Dyqani {branch}"), format!("bu{branch}00bu{branch}00")],
        )
        .unwrap();
        let unit = conn.last_insert_rowid();
        for tcr in &TCRS[branch * 2..branch * 2 + 2] {
            conn.execute(
                "INSERT INTO fiscal_devices (company_id, business_unit_id, name, tcr_int_id, tcr_code,
                     business_unit_code, valid_from, created_at)
                 VALUES (?1, ?2, ?3, ?3, ?3, 'bu', '2025-01-01', 'now')",
                rusqlite::params![company, unit, tcr],
            )
            .unwrap();
            for n in 0..2 {
                let code = format!("op{n}{}", &tcr[2..]);
                conn.execute(
                    "INSERT INTO users (company_id, business_unit_id, name, email, operator_code, tcr_code,
                         token_hash, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'now', 'now')",
                    rusqlite::params![
                        company,
                        unit,
                        format!("Arkëtar {code}"),
                        format!("{code}@dyqani.al"),
                        code,
                        tcr,
                        arka::ops::secrets::hash_token(&format!("token-{code}"))
                    ],
                )
                .unwrap();
                operators.push((unit, conn.last_insert_rowid(), tcr.to_string(), code));
            }
        }
    }
    (company, operators)
}

fn line(dice: &mut Dice, sign: i64) -> Line {
    let product = dice.below(PRODUCTS);
    let (rate, exemption) = match product % 10 {
        0 => (Decimal::from(6), None),
        1 => (Decimal::from(10), None),
        2 if product % 20 == 2 => (Decimal::ZERO, Some("TYPE_1".to_string())),
        _ => (Decimal::from(20), None),
    };
    let price = Decimal::from(50 + (product * 37) % 950);
    let quantity = Decimal::from((1 + dice.below(3)) as i64 * sign);
    let gross = price * quantity;
    let net = round2(gross * Decimal::ONE_HUNDRED / (Decimal::ONE_HUNDRED + rate));
    Line {
        product_name: format!("Artikull {product}"),
        product_code: format!("P{product:04}"),
        unit: "copë".into(),
        unit_code: None,
        quantity,
        price,
        total: gross,
        discount_rate: Decimal::ZERO,
        discount: Decimal::ZERO,
        vat_rate: rate,
        exemption,
        unit_price_net: round2(price * Decimal::ONE_HUNDRED / (Decimal::ONE_HUNDRED + rate)),
        rebate: None,
        net,
        vat: gross - net,
        gross,
        original_position: None,
    }
}

/// Invoice `n` of the year on `day`: 84 % cash, 12 % non-cash to a client (one in ten in euro),
/// 2 % summaries, 1 % orders, 1 % cancellations of an earlier sale; 1 in 200 still waiting.
fn invoice(
    dice: &mut Dice,
    n: i64,
    company: i64,
    day: NaiveDate,
    operator: &(i64, i64, String, String),
    last_sale: i64,
) -> Invoice {
    let roll = dice.below(100);
    let kind = match roll {
        0..84 => DocumentKind::Cash,
        84..96 => DocumentKind::NonCash,
        96..98 => DocumentKind::Summary,
        98 => DocumentKind::Order,
        _ if last_sale > 0 => DocumentKind::Corrective,
        _ => DocumentKind::Cash,
    };
    let corrective = kind == DocumentKind::Corrective;
    let lines: Vec<Line> =
        (0..1 + dice.below(5)).map(|_| line(dice, if corrective { -1 } else { 1 })).collect();
    let net: Decimal = lines.iter().map(|l| l.net).sum();
    let vat: Decimal = lines.iter().map(|l| l.vat).sum();
    let gross = net + vat;
    let noncash = kind == DocumentKind::NonCash;
    let euro = noncash && dice.below(10) == 0;
    let rate = if euro { Decimal::new(10052, 2) } else { Decimal::ONE };
    let client = dice.below(CLIENTS);
    let second = dice.below(12 * 3600) + 7 * 3600;
    let time = format!("{:02}:{:02}:{:02}", second / 3600, (second / 60) % 60, second % 60);
    let method = match kind {
        DocumentKind::NonCash => PaymentType::Account,
        DocumentKind::Order => PaymentType::Order,
        _ if dice.below(3) == 0 => PaymentType::Card,
        _ => PaymentType::Banknote,
    };
    Invoice {
        id: 0,
        company_id: company,
        business_unit_id: Some(operator.0),
        user_id: Some(operator.1),
        internal_id: format!("bench-{n}"),
        year: 2025,
        kind: if noncash { InvoiceType::NonCash } else { InvoiceType::Cash },
        document_kind: kind,
        api_version: ApiVersion::V1,
        doc_type: None,
        original_invoice_iic: None,
        tcr_code: (!noncash).then(|| operator.2.clone()),
        ord_num: n,
        number: format!("{n}/2025"),
        inv_num: format!("{n}/2025/{}", operator.2),
        issued_at: format!("{day}T{time}+00:00"),
        issue_date: day.to_string(),
        issue_date_time: format!("{day}T{time}+01:00"),
        operator_code: Some(operator.3.clone()),
        business_unit_code: Some("bu000bu000".into()),
        currency: if euro { "EUR".into() } else { "ALL".into() },
        exchange_rate: rate,
        totals: Totals {
            gross,
            net,
            vat,
            total: gross,
            gross_all: round2(gross * rate),
            net_all: round2(net * rate),
            vat_all: round2(vat * rate),
            ..Totals::default()
        },
        invoice_discount_type: None,
        invoice_discount_value: None,
        buyer: if noncash {
            Buyer {
                name: Some(format!("Klient {client}")),
                id_type: Some("NUIS".into()),
                id_value: Some(format!("K{client:08}A")),
                ..Buyer::default()
            }
        } else {
            Buyer::default()
        },
        self_issue_type: None,
        due_date: None,
        delivery_date: None,
        supply_start_date: None,
        supply_end_date: None,
        reverse_charge: false,
        periodic_invoice: false,
        notes: None,
        bank_account_id: None,
        iic: format!("{:032X}", (n as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)),
        iic_signature: "S".repeat(512),
        header_uuid: format!("00000000-0000-4000-8000-{n:012}"),
        fic: (dice.below(200) != 0).then(|| format!("{n:08x}-0000-4000-8000-000000000000")),
        eic: None,
        verify_url: "https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify".into(),
        created_at: String::new(),
        payments: vec![Payment { kind: method, amount: gross, company_card: None, vouchers: vec![] }],
        lines,
        bank_account: None,
        wtn_id: None,
        wtn: None,
        exchange_rate_origin: None,
        exchange_rate_date: None,
        process: None,
        original_invoice_id: corrective.then_some(last_sale),
        reversed_at: None,
        remains: None,
        settled_by: None,
        settled_orders: Vec::new(),
    }
}

/// A closed day per TCR and day, with its opening and closing withdrawal.
fn seed_days(conn: &Connection, company: i64, first: NaiveDate, days: i64) {
    let mut transaction_no = 0;
    for d in 0..days {
        let day = first + chrono::Duration::days(d);
        for tcr in TCRS {
            conn.execute(
                "INSERT INTO cash_days (company_id, tcr_code, business_day, opened_at, closed_at, counted, expected,
                     cash_sales, created_at)
                 VALUES (:company, :tcr, :day, :opened, :closed, '52000', '52010.50', '51010.50', 'now')",
                named_params! {
                    ":company": company, ":tcr": tcr, ":day": day.to_string(),
                    ":opened": format!("{day}T06:00:00+00:00"), ":closed": format!("{day}T20:00:00+00:00"),
                },
            )
            .unwrap();
            let day_id = conn.last_insert_rowid();
            for (action_type, purpose, amount) in
                [("INITIAL", "open", "1000"), ("MONEY_OUT", "close", "52000")]
            {
                transaction_no += 1;
                conn.execute(
                    "INSERT INTO cash_actions (company_id, tcr_code, cash_day_id, action_type, operation, purpose,
                         amount, transacted_at, business_day, year, transaction_no, cash_action_no, fiscal_status,
                         fiscal_uuid, created_at)
                     VALUES (:company, :tcr, :day_id, :type, :type, :purpose, :amount, :at, :day, 2025, :no, :no,
                         'FISCALIZED', :uuid, 'now')",
                    named_params! {
                        ":company": company, ":tcr": tcr, ":day_id": day_id, ":type": action_type,
                        ":purpose": purpose, ":amount": amount, ":at": format!("{day}T06:00:00+00:00"),
                        ":day": day.to_string(), ":no": transaction_no, ":uuid": format!("uuid-{transaction_no}"),
                    },
                )
                .unwrap();
            }
        }
    }
}

fn seed(db: &Path, count: i64) -> (i64, String) {
    drop(arka::store::Store::open(db).unwrap());
    let mut conn = Connection::open(db).unwrap();
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    conn.pragma_update(None, "cache_size", -400_000).unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    let tx = conn.transaction().unwrap();
    let (company, operators) = seed_shop(&tx);
    let first = NaiveDate::from_ymd_opt(2025, 1, 1).unwrap();
    seed_days(&tx, company, first, 365);
    tx.commit().unwrap();
    let mut dice = Dice(0x2545_F491_4F6C_DD1D);
    let mut last_sale = 0;
    let started = Instant::now();
    for batch in 0..(count + 19_999) / 20_000 {
        let tx = conn.transaction().unwrap();
        for n in batch * 20_000..((batch + 1) * 20_000).min(count) {
            let day = first + chrono::Duration::days(n * 365 / count);
            let operator = &operators[dice.below(operators.len() as u64) as usize];
            let invoice = invoice(&mut dice, n + 1, company, day, operator, last_sale);
            let id = invoices::insert(&tx, &invoice).unwrap();
            if matches!(invoice.document_kind, DocumentKind::Cash) && invoice.fic.is_some() {
                last_sale = id;
            }
        }
        tx.commit().unwrap();
        if batch % 10 == 9 {
            eprintln!(
                "  seeded {} invoices ({:.0} s)",
                (batch + 1) * 20_000,
                started.elapsed().as_secs_f64()
            );
        }
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    (company, format!("token-{}", operators[0].3))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// What the seeder made: the invoices, their lines, the report totals kept beside them, the size.
fn describe_seed(db: &std::path::Path, count: i64, seeding: Duration) {
    let size = ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum::<u64>() as f64
        / (1024.0 * 1024.0);
    let (lines, totals_rows): (i64, i64) = Connection::open(db)
        .unwrap()
        .query_row(
            "SELECT (SELECT COUNT(*) FROM invoice_lines),
                    (SELECT COUNT(*) FROM report_sales) + (SELECT COUNT(*) FROM report_vat)
                    + (SELECT COUNT(*) FROM report_payments) + (SELECT COUNT(*) FROM report_products)
                    + (SELECT COUNT(*) FROM report_clients)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    println!(
        "reports: seeded {count} invoices ({lines} lines) over 2025 for one company with 4 TCRs in {:.0} s through \
         the store's insert (report totals kept as issuing keeps them: {totals_rows} rows); database {size:.0} MiB",
        seeding.as_secs_f64()
    );
}

fn main() {
    let count: i64 =
        std::env::var("ARKA_BENCH_INVOICES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let dir = tempfile::Builder::new().prefix("arka-bench-reports-").tempdir().unwrap();
    let data_dir = dir.path().join("data");
    std::fs::create_dir_all(&data_dir).unwrap();
    let db = data_dir.join("arka.db");
    let started = Instant::now();
    let (_, token) = seed(&db, count);
    describe_seed(&db, count, started.elapsed());

    let args = ServeArgs::defaults("127.0.0.1:0".parse().unwrap(), data_dir.clone());
    let services = arka::open_services(&args, arka::configured_endpoint(&args)).unwrap();
    let caller = services
        .store
        .read_blocking(|c| arka::store::accounts::caller_by_token(c, &arka::ops::secrets::hash_token(&token)))
        .unwrap()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let day = |m: u32, d: u32| NaiveDate::from_ymd_opt(2025, m, d).unwrap();
    let periods = [
        ("one month", Period { from: day(6, 1), to: day(6, 30) }),
        ("twelve months", Period { from: day(1, 1), to: day(12, 31) }),
    ];
    type Run<'a> = Box<dyn Fn(ReportQuery) -> Result<(), arka::services::Error> + 'a>;
    let s = &services;
    let c = &caller;
    let rt = &runtime;
    let reports: Vec<(&str, Run)> = vec![
        ("sales-summary", Box::new(move |q| rt.block_on(s.reports().sales_summary(c, q)).map(drop))),
        ("vat", Box::new(move |q| rt.block_on(s.reports().vat_report(c, q, None)).map(drop))),
        (
            "vat?documents=true (500)",
            Box::new(move |q| rt.block_on(s.reports().vat_report(c, q, Some((500, 0)))).map(drop)),
        ),
        ("daily-trend", Box::new(move |q| rt.block_on(s.reports().daily_trend(c, q)).map(drop))),
        ("top-clients", Box::new(move |q| rt.block_on(s.reports().top_clients(c, q, 20)).map(drop))),
        ("top-products", Box::new(move |q| rt.block_on(s.reports().top_products(c, q, 20)).map(drop))),
        ("by-operator", Box::new(move |q| rt.block_on(s.reports().by_operator(c, q)).map(drop))),
        ("by-tcr", Box::new(move |q| rt.block_on(s.reports().by_tcr(c, q)).map(drop))),
        ("cash-register", Box::new(move |q| rt.block_on(s.reports().cash_register_report(c, q)).map(drop))),
        (
            "cash-register/closing (500)",
            Box::new(move |q| rt.block_on(s.reports().closing_report(c, q, 500, 0)).map(drop)),
        ),
        (
            "reversals (500)",
            Box::new(move |q| rt.block_on(s.reports().reversals_report(c, q, 500, 0)).map(drop)),
        ),
        (
            "sales-summary tcr= (one TCR)",
            Box::new(move |q| {
                rt.block_on(s.reports().sales_summary(c, ReportQuery { tcr: Some(TCRS[0].into()), ..q }))
                    .map(drop)
            }),
        ),
    ];
    println!("| report | period | p50 ms | p99 ms | runs |");
    println!("| --- | --- | --- | --- | --- |");
    for (name, run) in &reports {
        for (label, period) in periods {
            let query = ReportQuery { period, branch: None, tcr: None, operator: None };
            run(query.clone()).unwrap();
            let mut times = Vec::new();
            let budget = Instant::now();
            while times.len() < 50 && (times.len() < 5 || budget.elapsed() < Duration::from_secs(10)) {
                let t = Instant::now();
                run(query.clone()).unwrap();
                times.push(t.elapsed());
            }
            times.sort_unstable();
            println!(
                "| {name} | {label} | {:.1} | {:.1} | {} |",
                ms(percentile(&times, 50.0)),
                ms(percentile(&times, 99.0)),
                times.len()
            );
        }
    }
    let mut times = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        runtime.block_on(services.reports().dashboard(&caller, Some(day(12, 31)))).unwrap();
        times.push(t.elapsed());
    }
    times.sort_unstable();
    println!(
        "| dashboard/summary | today, week, month vs before | {:.1} | {:.1} | {} |",
        ms(percentile(&times, 50.0)),
        ms(percentile(&times, 99.0)),
        times.len()
    );
    let rebuild = Instant::now();
    services
        .store
        .write_blocking(|tx| arka::store::invoices::report_totals::rebuild(tx, &mut |_, _| {}))
        .unwrap();
    println!(
        "rebuilding the report totals from all {count} documents (`arka reports rebuild`, once after the upgrade): {:.0} s",
        rebuild.elapsed().as_secs_f64()
    );
    drop(reports);
    drop(services);
    drop(dir);
}
