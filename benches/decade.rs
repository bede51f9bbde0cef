//! Figures for issue 34's decade: a shop's database after ten years of selling, and what the
//! real server does over it (`cargo bench --bench decade`; it prints, it asserts nothing).
//!
//! The generator makes `ARKA_BENCH_RECEIPTS` documents (default 10,000,000) over 2016-2025 for
//! one company with 4 TCRs, through the store's own functions (`store::invoices::insert` keeps the
//! report totals, `store::fiscal_queue::enqueue` packs each kept request, `store::cash_register`
//! opens and closes each till's day), so the file follows the schema as it changes: 1-10 lines
//! at 20, 10, 6 % and TYPE_1, cash and card, 15 % non-cash to 3,000 buyers, a named buyer on some
//! cash receipts, 1 % cancellations; each document's RegisterInvoiceRequest built by the product's
//! `fiscal::requests`, kept, delivered with its FIC; a closed day per TCR and day with its opening
//! and closing cash actions, delivered too. Deterministic (a seeded xorshift), one transaction
//! per 50,000 documents. The file is kept at `ARKA_BENCH_DECADE_DB` (default
//! `target/tmp/decade/arka.db`, its key beside it) with a marker of its schema version, size and
//! generator, and reused while the marker matches.
//!
//! The figures, each through the real binary (`arka serve` as its own process, the CIS simulator
//! in this one) and HTTP on loopback as a POS: start-up to the first 200 of `/healthz`; every
//! report route for one month and one year; the invoice list's first page and its searches; the
//! server's peak RSS (VmHWM) while 16 POS sell; a sale's p50 with one POS and the throughput of
//! 16, over the decade and over a fresh database; `arka backup` of the file. Then, over a smaller
//! pair (`ARKA_BENCH_PAGES_RECEIPTS`, default 1,000,000, generated the same way): the reports
//! with this release's pages and with SQLite's 4 KiB, and `arka migrate --small-pages` over the
//! 4 KiB copy, timed. `ARKA_BENCH_SECONDS` (default 20)
//! is the length of each selling run; `ARKA_BENCH_ONLY=generate` stops after the generator,
//! `ARKA_BENCH_ONLY=sales` (or `list`) after the start-ups and the sales (or the list's figures)
//! over the decade. `ARKA_BENCH_ARKA` names another server binary (the static musl one, for its
//! RSS). A kept file made by an earlier schema is upgraded by its first start, whose time and
//! migrations' log lines are printed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arka::domain::cash_register::{ActionType, Purpose};
use arka::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use arka::domain::payments::PaymentType;
use arka::domain::verify::{IicInput, TEST_VERIFY_BASE, verify_url};
use arka::fiscal::model::{self, CorrectiveInv, CorrectiveInvType, IdType, SameTaxExemption};
use arka::fiscal::requests;
use arka::store::cash_register::{self, Action, Closed, Queueing};
use arka::store::fiscal_queue::{self, Document, NewQueued};
use arka::store::invoices::{self, Buyer, Invoice, Line, Payment, Totals};
use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use common::{
    LIMITS, Sim, add_till, agent, get, load_average, machine, ms, open_till, peak_rss_mib, percentile, sell,
    server_args, setting,
};
use rusqlite::Connection;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{Value, json};

/// Changes whenever what the generator writes changes, so a kept file is made again.
const GENERATOR: u32 = 1;
const FIRST_DAY: (i32, u32, u32) = (2016, 1, 1);
const YEARS: i32 = 10;
const BATCH: u64 = 50_000;
const OPERATOR: &str = "op123op123";
const UNIT_CODE: &str = "ab123cd456";
const SELLER: &str = "Dyqani Ana sh.p.k.";

fn main() {
    println!("machine: {}; load average {} at start", machine(), load_average());
    let receipts = setting("ARKA_BENCH_RECEIPTS", 10_000_000);
    let db = std::env::var_os("ARKA_BENCH_DECADE_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("decade").join("arka.db"));
    let decade = prepared(&db, receipts);
    let only = std::env::var("ARKA_BENCH_ONLY").unwrap_or_default();
    if only == "generate" {
        return;
    }
    let sim = Sim::start_knowing(known_tcrs(&db));
    startup_figures(&decade, &sim);
    if only == "sales" || only == "list" {
        let arka = Arka::start(&decade.dir(), &sim);
        if only == "sales" {
            sale_figures("decade", &arka, &decade.token);
        } else {
            list_figures(&arka.base, &decade.token);
        }
        return;
    }
    let arka = Arka::start(&decade.dir(), &sim);
    report_figures("decade", &arka.base, &decade.token, 20);
    list_figures(&arka.base, &decade.token);
    backup_figures(&decade, &arka);
    println!(
        "the server's peak RSS over the reports, the list and the backup: {:.1} MiB",
        peak_rss_mib(&arka.pid())
    );
    drop(arka);
    // Selling on a server just started, as over the fresh database: what the reports left in
    // its memory is not a sale's.
    let arka = Arka::start(&decade.dir(), &sim);
    let over_decade = sale_figures("decade", &arka, &decade.token);
    drop(arka);
    let fresh = fresh_shop(&sim);
    let over_fresh = sale_figures("fresh", &fresh.arka, &fresh.token);
    drop(fresh);
    compare_sales(&over_decade, &over_fresh);
    drop(sim);
    page_figures(&db);
    println!("load average at the end: {}", load_average());
}

// ---------------------------------------------------------------------------------------------
// The kept file
// ---------------------------------------------------------------------------------------------

/// A generated database: its file, how many documents it was made with, the owner's token.
struct Decade {
    db: PathBuf,
    receipts: u64,
    token: String,
    /// The schema the kept file was made with, when older than this build's.
    upgrade_from: Option<i64>,
}

impl Decade {
    fn dir(&self) -> PathBuf {
        self.db.parent().unwrap().to_path_buf()
    }
}

fn marker_path(db: &Path) -> PathBuf {
    let mut marker = db.as_os_str().to_owned();
    marker.push(".decade");
    PathBuf::from(marker)
}

fn marker_text(receipts: u64) -> String {
    format!("schema {} receipts {receipts} generator {GENERATOR}\n", arka::store::latest_schema_version())
}

/// The decade at `db`: the kept one when its marker matches this size and generator (made by an
/// earlier schema, it is upgraded by its first start, as a shop's is), else made anew (the data
/// directory's database, key and marker removed first).
fn prepared(db: &Path, receipts: u64) -> Decade {
    let marker = marker_path(db);
    let kept = std::fs::read_to_string(&marker).unwrap_or_default();
    if let Some((line, token)) = kept.split_once("token ")
        && let Some(schema) = kept_schema(line, receipts)
        && db.exists()
    {
        println!("decade: reusing {} ({})", db.display(), line.trim());
        let upgrade_from = (schema < arka::store::latest_schema_version()).then_some(schema);
        return Decade { db: db.to_path_buf(), receipts, token: token.trim().to_string(), upgrade_from };
    }
    let dir = db.parent().unwrap();
    std::fs::create_dir_all(dir).unwrap();
    for file in ["arka.key", "arka.db-wal", "arka.db-shm"]
        .map(|f| dir.join(f))
        .into_iter()
        .chain([db.to_path_buf(), marker.clone()])
    {
        let _ = std::fs::remove_file(file);
    }
    let token = generate(db, receipts);
    write_marker(db, receipts, &token);
    Decade { db: db.to_path_buf(), receipts, token, upgrade_from: None }
}

/// The schema a kept file was made (or last upgraded) with, when its size and generator are
/// this run's and its schema is not newer than this build's.
fn kept_schema(line: &str, receipts: u64) -> Option<i64> {
    let rest = line.trim().strip_prefix("schema ")?;
    let (schema, rest) = rest.split_once(' ')?;
    let schema: i64 = schema.parse().ok()?;
    let same = rest == format!("receipts {receipts} generator {GENERATOR}");
    (same && schema <= arka::store::latest_schema_version()).then_some(schema)
}

/// Marks the file as made (or upgraded) by this build's schema.
fn write_marker(db: &Path, receipts: u64, token: &str) {
    std::fs::write(marker_path(db), format!("{}token {token}\n", marker_text(receipts))).unwrap();
}

/// The TCRs the file's shop registered, for a simulator started after them (read as the file
/// is: opening it as a `Store` would migrate it, which its first start is to do).
fn known_tcrs(db: &Path) -> Vec<arka::sim::cis::KnownTcr> {
    let conn = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    arka::store::devices::all_with_issuer(&conn)
        .unwrap()
        .into_iter()
        .map(|(tcr_code, issuer_nuis, busin_unit_code)| arka::sim::cis::KnownTcr {
            tcr_code,
            issuer_nuis,
            busin_unit_code,
        })
        .collect()
}

fn file_bytes(db: &Path) -> u64 {
    ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum()
}

/// The bytes free on the disk of `dir` (`df`; 0 when it cannot say).
fn free_bytes(dir: &Path) -> u64 {
    let out = Command::new("df").args(["--output=avail", "-B1"]).arg(dir).output();
    out.ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().nth(1).and_then(|l| l.trim().parse().ok()))
        .unwrap_or(0)
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0 * 1024.0)
}

// ---------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift), so every run makes the same decade.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `digits` upper-case hex digits.
    fn hex(&mut self, digits: usize) -> String {
        let mut text = String::with_capacity(digits + 16);
        while text.len() < digits {
            text.push_str(&format!("{:016X}", self.next()));
        }
        text.truncate(digits);
        text
    }
}

/// The shop the decade belongs to, as on-boarding over HTTP left it.
struct Shop {
    company_id: i64,
    unit_id: i64,
    user_id: i64,
    tcrs: Vec<String>,
    token: String,
}

/// Opens the shop on a server of this process (its simulator too): the company, its branch,
/// certificate and four registered TCRs.
fn open_shop(db: &Path) -> Shop {
    let sim = Sim::start();
    let mut args = server_args(db.parent().unwrap());
    sim.configure(&mut args);
    let server = common::Server::start(args);
    let base = server.base();
    let till = open_till(&base, db);
    for n in 2..=4 {
        add_till(&base, &till.token, till.branch_id, &format!("Kasa {n}"));
    }
    drop(server);
    let store = arka::store::Store::open(db).unwrap();
    let tcrs = store
        .read_blocking(|c| arka::store::devices::of_company(c, till.company_id))
        .unwrap()
        .into_iter()
        .map(|d| d.tcr_code)
        .collect();
    Shop {
        company_id: till.company_id,
        unit_id: till.branch_id,
        user_id: till.user_id,
        tcrs,
        token: till.token,
    }
}

fn round2(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

#[rustfmt::skip]
const GOODS: [&str; 20] = [
    "Kafe", "Ujë", "Bukë", "Qumësht", "Djathë", "Vaj ulliri", "Oriz", "Makarona", "Sheqer", "Kripë",
    "Miell", "Vezë", "Mollë", "Portokall", "Domate", "Patate", "Çokollatë", "Lëng frutash", "Sapun",
    "Detergjent",
];
#[rustfmt::skip]
const SURNAMES: [&str; 20] = [
    "Hoxha", "Shehu", "Dervishi", "Leka", "Gjoka", "Kola", "Çela", "Marku", "Basha", "Prifti", "Dedja",
    "Kelmendi", "Berisha", "Duka", "Muça", "Topalli", "Bregu", "Koçi", "Lika", "Zeneli",
];
#[rustfmt::skip]
const TRADES: [&str; 15] = [
    "Ndërtim", "Tregti", "Transport", "Konsulencë", "Market", "Restorant", "Farmaci", "Auto", "Print",
    "Mobilieri", "Elektrik", "Hidraulik", "Turizëm", "Bar", "Agro",
];
const BUYERS: u64 = 3_000;
const PRODUCTS: u64 = 400;

/// Buyer `c` of the 3,000: a business with its NUIS.
fn buyer(c: u64) -> Buyer {
    Buyer {
        name: Some(format!(
            "{} {} {} sh.p.k.",
            SURNAMES[(c % 20) as usize],
            TRADES[((c / 20) % 15) as usize],
            c / 300 + 1
        )),
        id_type: Some("NUIS".into()),
        id_value: Some(format!("K{:08}{}", 10_000_000 + c * 7, (b'A' + (c % 26) as u8) as char)),
        address: Some(format!("Rruga {} {}", SURNAMES[((c / 7) % 20) as usize], 1 + c % 90)),
        city: Some("Tiranë".into()),
        country: Some("ALB".into()),
        ..Buyer::default()
    }
}

/// One line of product `product`, `quantity` of it (negative on a cancellation).
fn line(product: u64, quantity: Decimal) -> Line {
    let (rate, exemption) = match product % 10 {
        0 => (Decimal::from(6), None),
        1 => (Decimal::from(10), None),
        2 if product % 20 == 2 => (Decimal::ZERO, Some("TYPE_1".to_string())),
        _ => (Decimal::from(20), None),
    };
    let price = Decimal::new((50 + (product * 37) % 2_950) as i64 * 10, 1);
    let gross = price * quantity;
    let net = round2(gross * Decimal::ONE_HUNDRED / (Decimal::ONE_HUNDRED + rate));
    Line {
        product_name: format!("{} {}", GOODS[(product % 20) as usize], product / 20 + 1),
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

/// How many lines a receipt has: most have one to three, a few up to ten.
fn line_count(dice: &mut Dice) -> u64 {
    match dice.below(100) {
        0..40 => 1,
        40..62 => 2,
        62..76 => 3,
        76..85 => 4,
        _ => 5 + dice.below(6),
    }
}

/// The instant of `second` after midnight of `day` in Tirane.
fn local(day: NaiveDate, second: u64) -> DateTime<Utc> {
    let time = day.and_hms_opt(0, 0, 0).unwrap() + chrono::Duration::seconds(second as i64);
    let tirane = chrono_tz::Europe::Tirane;
    // A time the spring's change skips is an hour later.
    tirane
        .from_local_datetime(&time)
        .earliest()
        .or_else(|| tirane.from_local_datetime(&(time + chrono::Duration::hours(1))).earliest())
        .unwrap()
        .with_timezone(&Utc)
}

/// One document as made: the row, the request it was registered with, its CIS code, and what it
/// does to its till's day.
struct Made {
    invoice: Invoice,
    request: String,
    fic: String,
    /// The TCR (index) whose day it belongs to; none for a non-cash invoice.
    till: Option<usize>,
    /// The sale it cancels.
    cancels: Option<i64>,
    /// What it put in the drawer (banknotes).
    cash: Decimal,
}

/// A sale a cancellation may reverse: its id, IIC and time.
type Sale = (i64, String, DateTime<Utc>);

/// Where the generator is: the numbering of each sequence this year, each TCR's cash actions and
/// last sale, how much it made.
struct Generator<'s> {
    shop: &'s Shop,
    dice: Dice,
    year: i32,
    /// The last ordinal of each TCR's cash sequence, and of the business's non-cash one (last).
    ords: Vec<u32>,
    transaction_nos: Vec<i64>,
    last_sale: Vec<Option<Sale>>,
    made: u64,
    lines: u64,
}

impl<'s> Generator<'s> {
    fn new(shop: &'s Shop) -> Generator<'s> {
        let tills = shop.tcrs.len();
        Generator {
            shop,
            dice: Dice(0x2545_F491_4F6C_DD1D),
            year: 0,
            ords: vec![0; tills + 1],
            transaction_nos: vec![0; tills],
            last_sale: vec![None; tills],
            made: 0,
            lines: 0,
        }
    }

    fn uuid(&mut self) -> uuid::Uuid {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.dice.next().to_le_bytes());
        bytes[8..].copy_from_slice(&self.dice.next().to_le_bytes());
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }

    /// A business day of every TCR: opened with 2,000 lek, `count` documents spread over the
    /// shop's hours, closed with the drawer taken out.
    fn day(&mut self, tx: &Connection, day: NaiveDate, count: u64) {
        use chrono::Datelike;
        if day.year() != self.year {
            self.year = day.year();
            self.ords.iter_mut().for_each(|o| *o = 0);
            self.transaction_nos.iter_mut().for_each(|n| *n = 0);
        }
        let float = Decimal::from(2_000);
        let mut days = Vec::new();
        for t in 0..self.shop.tcrs.len() {
            let at = local(day, 7 * 3600 + t as u64 * 60);
            let tcr = &self.shop.tcrs[t];
            let id = cash_register::insert_day(
                tx,
                self.shop.company_id,
                tcr,
                &day.to_string(),
                &at.to_rfc3339(),
                false,
            )
            .unwrap();
            self.cash_action(tx, (t, id, day), Purpose::Open, float, at);
            days.push((id, Decimal::ZERO));
        }
        for i in 0..count {
            let at = local(day, 8 * 3600 + i * 13 * 3600 / count);
            let till = self.dice.below(self.shop.tcrs.len() as u64) as usize;
            let made = self.document(at, till);
            let id = invoices::insert(tx, &made.invoice).unwrap();
            if let Some(t) = made.till {
                cash_register::link_to_day(tx, id, days[t].0).unwrap();
                days[t].1 += made.cash;
            }
            match made.cancels {
                Some(original) => invoices::refresh_reversal(tx, original).unwrap(),
                None if made.till.is_some() => {
                    self.last_sale[till] = Some((id, made.invoice.iic.clone(), at))
                }
                None => {}
            }
            self.keep_request(tx, id, &made);
        }
        for (t, (id, cash_sales)) in days.into_iter().enumerate() {
            let at = local(day, 21 * 3600 + t as u64 * 60);
            self.cash_action(tx, (t, id, day), Purpose::Close, float + cash_sales, at);
            let closed = Closed {
                expected: float + cash_sales,
                counted: float + cash_sales,
                count: None,
                book: Some(arka::store::reports::day_book_of(tx, self.shop.company_id, id).unwrap()),
                cash_sales,
                balance: float + cash_sales,
                mark: cash_register::newest_action(tx, self.shop.company_id, &self.shop.tcrs[t]).unwrap(),
            };
            cash_register::close_day(tx, id, &at.to_rfc3339(), &closed).unwrap();
        }
    }

    /// The document's queue entry as issuing leaves it: its request kept, delivered with its FIC.
    fn keep_request(&mut self, tx: &Connection, id: i64, made: &Made) {
        let invoice = &made.invoice;
        let queue_id = fiscal_queue::enqueue(
            tx,
            &NewQueued {
                company_id: invoice.company_id,
                operation: "RegisterInvoiceRequest",
                document: Document::Invoice,
                document_id: Some(id),
                document_number: Some(&invoice.number),
                tcr_code: invoice.tcr_code.as_deref(),
                header_uuid: &invoice.header_uuid,
                issued_at: &invoice.issued_at,
                unsigned_request: &made.request,
                subseq_deliv_type: None,
                next_attempt_at: &invoice.issued_at,
                last_error: None,
            },
        )
        .unwrap();
        fiscal_queue::mark_delivered(tx, queue_id, &made.fic).unwrap();
    }

    /// A cash action of TCR `t` on its day `day_id`, sent and delivered: the day's opening float
    /// (INITIAL) or its closing withdrawal.
    fn cash_action(
        &mut self,
        tx: &Connection,
        (t, day_id, day): (usize, i64, NaiveDate),
        purpose: Purpose,
        amount: Decimal,
        at: DateTime<Utc>,
    ) {
        let (action_type, operation) = match purpose {
            Purpose::Open => (ActionType::Initial, model::CashDepositOperation::Initial),
            _ => (ActionType::MoneyOut, model::CashDepositOperation::Withdraw),
        };
        self.transaction_nos[t] += 1;
        let (no, year, tcr) = (self.transaction_nos[t], self.year, self.shop.tcrs[t].clone());
        let uuid = self.uuid();
        let request = requests::register_cash_deposit(
            &model::Header { uuid, send_date_time: at, subseq_deliv_type: None },
            &model::CashDeposit {
                change_date_time: at,
                operation,
                cash_amt: amount,
                tcr_code: tcr.clone(),
                issuer_nuis: common::NUIS.into(),
            },
        );
        let action = Action {
            id: 0,
            company_id: self.shop.company_id,
            tcr_code: tcr,
            user_id: Some(self.shop.user_id),
            cash_day_id: Some(day_id),
            action_type,
            operation: operation.as_str().to_string(),
            purpose,
            automatic: false,
            amount,
            currency: "ALL".into(),
            transacted_at: at.to_rfc3339(),
            business_day: day.to_string(),
            year,
            transaction_no: no,
            cash_action_no: format!("{no}/{year}"),
            description: None,
            third_party: None,
            client_id: None,
            fiscal_status: "PENDING".into(),
            fiscal_uuid: uuid.to_string(),
            fiscal_fic: None,
            created_at: String::new(),
        };
        let queueing = Queueing {
            unsigned_request: &request,
            subseq_deliv_type: None,
            next_attempt_at: &action.transacted_at,
            last_error: None,
        };
        let (id, queue_id) = cash_register::insert(tx, &action, &queueing).unwrap();
        let fcdc = self.uuid().to_string();
        fiscal_queue::mark_delivered(tx, queue_id, &fcdc).unwrap();
        cash_register::set_fiscalized(tx, id, &fcdc).unwrap();
    }
}

#[rustfmt::skip]
const FIRST_NAMES: [&str; 12] = [
    "Ana", "Arben", "Besnik", "Elona", "Genti", "Ilir", "Jonida", "Ledia", "Olsi", "Sokol", "Teuta",
    "Ylli",
];

impl Generator<'_> {
    /// The next document on TCR `till` at `at`: 84 % cash (a quarter by card, one in thirty to a
    /// named buyer), 15 % non-cash to one of the buyers, 1 % the cancellation of the till's last
    /// sale.
    fn document(&mut self, at: DateTime<Utc>, till: usize) -> Made {
        let roll = self.dice.below(100);
        let cancels = if roll == 0 { self.last_sale[till].take() } else { None };
        let noncash = cancels.is_none() && roll >= 85;
        let sign = if cancels.is_some() { -1 } else { 1 };
        let lines: Vec<Line> = (0..line_count(&mut self.dice))
            .map(|_| {
                let product = self.dice.below(PRODUCTS);
                line(product, Decimal::from((1 + self.dice.below(3)) as i64 * sign))
            })
            .collect();
        self.lines += lines.len() as u64;
        self.made += 1;
        let sequence = if noncash { self.shop.tcrs.len() } else { till };
        self.ords[sequence] += 1;
        let ord = self.ords[sequence];
        let tcr = (!noncash).then(|| self.shop.tcrs[till].clone());
        let net: Decimal = lines.iter().map(|l| l.net).sum();
        let vat: Decimal = lines.iter().map(|l| l.vat).sum();
        let gross = net + vat;
        let method = match self.dice.below(4) {
            _ if noncash => PaymentType::Account,
            0 => PaymentType::Card,
            _ => PaymentType::Banknote,
        };
        let buyer = if noncash {
            buyer(self.dice.below(BUYERS))
        } else if self.dice.below(30) == 0 {
            let n = self.dice.below(240) as usize;
            Buyer { name: Some(format!("{} {}", FIRST_NAMES[n % 12], SURNAMES[n / 12])), ..Buyer::default() }
        } else {
            Buyer::default()
        };
        let (iic, iic_signature) = (self.dice.hex(32), self.dice.hex(512));
        let (header_uuid, fic) = (self.uuid(), self.uuid().to_string());
        let drawn = Drawn {
            at,
            ord,
            tcr: tcr.clone(),
            lines,
            method,
            buyer,
            iic,
            iic_signature,
            header_uuid,
            fic: fic.clone(),
            original: cancels.as_ref().map(|c| (c.0, c.1.clone())),
        };
        let invoice = self.row(drawn);
        let corrects = cancels.as_ref().map(|c| (c.1.as_str(), c.2));
        let request = request(&invoice, at, header_uuid, corrects);
        let cash = if method == PaymentType::Banknote { gross } else { Decimal::ZERO };
        Made {
            invoice,
            request,
            fic,
            till: tcr.is_some().then_some(till),
            cancels: cancels.map(|c| c.0),
            cash,
        }
    }
}

/// What `Generator::document` drew for a document, before it is a row.
struct Drawn {
    at: DateTime<Utc>,
    ord: u32,
    tcr: Option<String>,
    lines: Vec<Line>,
    method: PaymentType,
    buyer: Buyer,
    iic: String,
    iic_signature: String,
    header_uuid: uuid::Uuid,
    fic: String,
    /// The sale it cancels: its id and IIC.
    original: Option<(i64, String)>,
}

impl Generator<'_> {
    /// The row of `drawn` as issuing stores it.
    fn row(&self, drawn: Drawn) -> Invoice {
        let Drawn { at, ord, tcr, lines, method, buyer, iic, iic_signature, header_uuid, fic, original } =
            drawn;
        let (year, noncash) = (self.year, tcr.is_none());
        let net: Decimal = lines.iter().map(|l| l.net).sum();
        let vat: Decimal = lines.iter().map(|l| l.vat).sum();
        let gross = net + vat;
        let issue_date_time = model::datetime(at);
        let tot_price = model::money(gross);
        let verify_url = verify_url(
            TEST_VERIFY_BASE,
            &iic,
            &IicInput {
                nuis: common::NUIS,
                issue_date_time: &issue_date_time,
                ord_num: u64::from(ord),
                business_unit_code: UNIT_CODE,
                tcr_code: tcr.as_deref(),
                soft_code: "ss123ss123",
                tot_price: &tot_price,
            },
        );
        let document_kind = match (&original, noncash) {
            (Some(_), _) => DocumentKind::Corrective,
            (None, true) => DocumentKind::NonCash,
            (None, false) => DocumentKind::Cash,
        };
        Invoice {
            id: 0,
            company_id: self.shop.company_id,
            business_unit_id: Some(self.shop.unit_id),
            user_id: Some(self.shop.user_id),
            internal_id: format!("pos-{}", self.made),
            year,
            kind: if noncash { InvoiceType::NonCash } else { InvoiceType::Cash },
            document_kind,
            api_version: ApiVersion::V1,
            doc_type: None,
            original_invoice_iic: original.as_ref().map(|c| c.1.clone()),
            tcr_code: tcr.clone(),
            ord_num: i64::from(ord),
            number: arka::domain::numbering::invoice_number(ord, year),
            inv_num: arka::domain::numbering::cis_invoice_number(ord, year, tcr.as_deref()),
            issued_at: at.to_rfc3339(),
            issue_date: at.with_timezone(&chrono_tz::Europe::Tirane).date_naive().to_string(),
            issue_date_time,
            operator_code: Some(OPERATOR.into()),
            business_unit_code: Some(UNIT_CODE.into()),
            currency: "ALL".into(),
            exchange_rate: Decimal::ONE,
            exchange_rate_origin: None,
            exchange_rate_date: None,
            totals: Totals {
                gross,
                net,
                vat,
                total: gross,
                gross_all: gross,
                net_all: net,
                vat_all: vat,
                ..Totals::default()
            },
            invoice_discount_type: None,
            invoice_discount_value: None,
            buyer,
            self_issue_type: None,
            due_date: None,
            delivery_date: None,
            supply_start_date: None,
            supply_end_date: None,
            reverse_charge: false,
            periodic_invoice: false,
            notes: None,
            bank_account_id: None,
            iic,
            iic_signature,
            header_uuid: header_uuid.to_string(),
            fic: Some(fic),
            eic: None,
            verify_url,
            created_at: String::new(),
            payments: vec![Payment { kind: method, amount: gross, company_card: None, vouchers: vec![] }],
            lines,
            bank_account: None,
            wtn_id: None,
            wtn: None,
            process: None,
            original_invoice_id: original.map(|c| c.0),
            reversed_at: None,
            remains: None,
            settled_by: None,
            settled_orders: Vec::new(),
        }
    }
}

/// The RegisterInvoiceRequest `invoice` was registered with, as issuing builds it
/// (`fiscal::requests`), unsigned as the queue keeps it.
fn request(
    invoice: &Invoice,
    at: DateTime<Utc>,
    uuid: uuid::Uuid,
    corrects: Option<(&str, DateTime<Utc>)>,
) -> String {
    let mut same: BTreeMap<(String, Option<String>), model::SameTax> = BTreeMap::new();
    let items: Vec<model::Item> = invoice
        .lines
        .iter()
        .map(|l| {
            let exempt = l.exemption.is_some();
            let group = same.entry((l.vat_rate.to_string(), l.exemption.clone())).or_insert(model::SameTax {
                num_of_items: 0,
                price_bef_vat: Decimal::ZERO,
                vat_rate: (!exempt).then_some(l.vat_rate),
                exempt_from_vat: exempt.then_some(SameTaxExemption::Type1),
                vat_amt: Some(Decimal::ZERO),
            });
            group.num_of_items += 1;
            group.price_bef_vat += l.net;
            group.vat_amt = group.vat_amt.map(|v| v + l.vat);
            model::Item {
                name: l.product_name.clone(),
                code: Some(l.product_code.clone()),
                unit: l.unit.clone(),
                quantity: l.quantity,
                unit_price_before_vat: l.unit_price_net,
                unit_price_after_vat: l.price,
                rebate: None,
                rebate_reducing: None,
                price_before_vat: l.net,
                vat_rate: (!exempt).then_some(l.vat_rate),
                vat_amount: (!exempt).then_some(l.vat),
                is_investment: None,
                price_after_vat: l.gross,
                exemption: exempt.then_some(model::ItemExemption::Type1),
                vouchers_sold: None,
            }
        })
        .collect();
    let b = &invoice.buyer;
    let cis = model::Invoice {
        type_of_inv: invoice.kind,
        is_simplified_inv: false,
        type_of_self_iss: None,
        issue_date_time: at,
        inv_num: invoice.inv_num.clone(),
        inv_ord_num: invoice.ord_num as u32,
        tcr_code: invoice.tcr_code.clone(),
        is_issuer_in_vat: true,
        tax_free_amt: None,
        mark_up_amt: None,
        goods_ex_amt: None,
        tot_price_wo_vat: invoice.totals.net,
        tot_vat_amt: Some(invoice.totals.vat),
        tot_price: invoice.totals.gross,
        operator_code: OPERATOR.into(),
        busin_unit_code: UNIT_CODE.into(),
        soft_code: "ss123ss123".into(),
        imp_cust_dec_num: None,
        iic: invoice.iic.clone(),
        iic_signature: invoice.iic_signature.clone(),
        is_reverse_charge: false,
        pay_deadline: None,
        is_einvoice: None,
        supply_date_or_period: None,
        corrective_inv: corrects.map(|(iic, when)| CorrectiveInv {
            iic_ref: iic.to_string(),
            issue_date_time: when,
            kind: CorrectiveInvType::Corrective,
        }),
        pay_methods: invoice
            .payments
            .iter()
            .map(|p| model::PayMethod { kind: p.kind, amt: p.amount, comp_card: None, vouchers: vec![] })
            .collect(),
        currency: None,
        seller: model::Seller {
            id_type: IdType::Nuis,
            id_num: common::NUIS.into(),
            name: SELLER.into(),
            address: Some("Rruga e Durrësit 12".into()),
            town: Some("Tiranë".into()),
            country: Some("ALB".into()),
        },
        buyer: b.name.as_ref().map(|_| model::Buyer {
            id_type: b.id_value.as_ref().map(|_| IdType::Nuis),
            id_num: b.id_value.clone(),
            name: b.name.clone(),
            address: b.address.clone(),
            town: b.city.clone(),
            country: b.country.clone(),
        }),
        items,
        same_taxes: same.into_values().collect(),
        cons_taxes: Vec::new(),
        fees: Vec::new(),
        sum_inv_iic_refs: Vec::new(),
        bad_debt_inv: None,
    };
    requests::register_invoice(&model::Header { uuid, send_date_time: at, subseq_deliv_type: None }, &cis)
}

/// Makes the decade at `db`; returns the owner's token.
fn generate(db: &Path, receipts: u64) -> String {
    let started = Instant::now();
    let shop = open_shop(db);
    let mut conn = Connection::open(db).unwrap();
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    conn.pragma_update(None, "cache_size", -262_144).unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    let first = NaiveDate::from_ymd_opt(FIRST_DAY.0, FIRST_DAY.1, FIRST_DAY.2).unwrap();
    let end = NaiveDate::from_ymd_opt(FIRST_DAY.0 + YEARS, FIRST_DAY.1, FIRST_DAY.2).unwrap();
    let days = (end - first).num_days() as u64;
    let mut generator = Generator::new(&shop);
    let mut tx = conn.transaction().unwrap();
    let (mut committed, mut reported) = (0, 0);
    for d in 0..days {
        let count = receipts * (d + 1) / days - receipts * d / days;
        generator.day(&tx, first + chrono::Duration::days(d as i64), count);
        if generator.made - committed >= BATCH {
            tx.commit().unwrap();
            tx = conn.transaction().unwrap();
            committed = generator.made;
            if committed - reported >= receipts / 20 {
                reported = committed;
                let seconds = started.elapsed().as_secs_f64();
                eprintln!("  {committed} documents, {seconds:.0} s, {:.0}/s", committed as f64 / seconds);
            }
        }
    }
    tx.commit().unwrap();
    let made = started.elapsed();
    // The search index as the server keeps it (written in batches after the documents).
    loop {
        let tx = conn.transaction().unwrap();
        let indexed = invoices::index_pending(&tx, 200_000).unwrap();
        tx.commit().unwrap();
        if indexed == 0 {
            break;
        }
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    let bytes = file_bytes(db);
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "decade: {} documents ({} lines) over {days} days of 4 TCRs in {seconds:.0} s ({:.0} documents/s; the \
         documents {:.0} s, the search index {:.0} s); {:.2} GiB, {:.0} bytes a document",
        generator.made,
        generator.lines,
        generator.made as f64 / seconds,
        made.as_secs_f64(),
        seconds - made.as_secs_f64(),
        gib(bytes),
        bytes as f64 / generator.made.max(1) as f64,
    );
    shop.token.clone()
}

// ---------------------------------------------------------------------------------------------
// The real server
// ---------------------------------------------------------------------------------------------

/// The server's binary: this package's, or `ARKA_BENCH_ARKA` (a release build, as the static musl
/// one `install/build-release.sh` makes, whose malloc is not glibc's).
fn arka_binary() -> PathBuf {
    std::env::var_os("ARKA_BENCH_ARKA")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_arka")), PathBuf::from)
}

/// `arka serve` as its own process (`arka_binary`), its CIS the simulator of
/// this process, its log in a file of the data directory; stopped with SIGTERM when dropped.
struct Arka {
    child: Child,
    base: String,
    log: PathBuf,
    /// From the process's start to the first 200 of `/healthz`.
    ready_after: Duration,
}

impl Arka {
    fn start(data_dir: &Path, sim: &Sim) -> Arka {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let log = data_dir.join(format!("serve-{port}.log"));
        let out = std::fs::File::create(&log).unwrap();
        let started = Instant::now();
        let mut child = Command::new(arka_binary())
            .arg("serve")
            .arg(format!("--data-dir={}", data_dir.display()))
            .arg(format!("--listen=127.0.0.1:{port}"))
            .arg(format!("--limits={LIMITS}"))
            .arg("--log-format=json")
            .args(sim.flags())
            // As install/arka.service runs it: glibc's malloc with two arenas, not one per thread.
            .env("MALLOC_ARENA_MAX", "2")
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let agent = agent();
        let deadline = started + Duration::from_secs(1800);
        loop {
            if let Ok(reply) = agent.get(format!("{base}/healthz")).call()
                && reply.status().as_u16() == 200
            {
                break;
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!("arka serve stopped while starting ({status}); see {}", log.display());
            }
            assert!(Instant::now() < deadline, "arka serve did not answer /healthz; see {}", log.display());
            std::thread::sleep(Duration::from_millis(2));
        }
        Arka { ready_after: started.elapsed(), child, base, log }
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    /// The log lines that say how long a migration or the page rewrite took, or why it waits.
    fn timed_lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("per_million") || l.contains("keeps its page size"))
            .map(str::to_string)
            .collect()
    }
}

impl Drop for Arka {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.pid()).status();
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// The figures
// ---------------------------------------------------------------------------------------------

/// Start-up to the first answer, three starts in a row (the first after the generator or an
/// earlier run, the file in the page cache as far as it fits). A file made by an earlier schema
/// is upgraded by the first: its time is the upgrade's, with the migrations' own log lines.
fn startup_figures(decade: &Decade, sim: &Sim) {
    println!(
        "decade: {} documents asked, {:.2} GiB ({} bytes a document)",
        decade.receipts,
        gib(file_bytes(&decade.db)),
        file_bytes(&decade.db) / decade.receipts.max(1)
    );
    for start in 1..=3 {
        let arka = Arka::start(&decade.dir(), sim);
        match decade.upgrade_from.filter(|_| start == 1) {
            Some(schema) => {
                println!(
                    "upgrade: the first start over the file of schema {schema} migrated it to {} and answered /healthz after {:.1} s",
                    arka::store::latest_schema_version(),
                    arka.ready_after.as_secs_f64()
                );
                write_marker(&decade.db, decade.receipts, &decade.token);
            }
            None => println!(
                "start-up {start}: process start to the first 200 of /healthz {:.0} ms (goal < 1,000 ms); RSS at rest {:.1} MiB",
                ms(arka.ready_after),
                peak_rss_mib(&arka.pid())
            ),
        }
        for line in arka.timed_lines() {
            println!("  log: {line}");
        }
    }
}

/// Every report route, `runs` times each over one month (June 2025) and one year (2025).
fn report_figures(label: &str, base: &str, token: &str, runs: usize) {
    let routes = [
        "reports/sales-summary?",
        "reports/vat?",
        "reports/vat?documents=true&limit=500&",
        "reports/daily-trend?",
        "reports/top-clients?",
        "reports/top-products?",
        "reports/by-operator?",
        "reports/by-tcr?",
        "reports/cash-register?",
        "reports/cash-register/closing?limit=500&",
        "reports/reversals?limit=500&",
        "reports/wtn?",
        "reports/sales-summary?format=csv&",
    ];
    let periods = [("June 2025", "from=2025-06-01&to=2025-06-30"), ("2025", "from=2025-01-01&to=2025-12-31")];
    let agent = agent();
    println!(
        "| {label}: route | period | HTTP | p50 ms | p99 ms | runs |\n| --- | --- | --- | --- | --- | --- |"
    );
    for route in routes {
        for (period, dates) in periods {
            let url = format!("{base}/api/v1/{route}{dates}");
            let (status, times) = timed_gets(&agent, &url, token, runs);
            println!(
                "| {route}{dates} | {period} | {status} | {:.1} | {:.1} | {} |",
                ms(percentile(&times, 50.0)),
                ms(percentile(&times, 99.0)),
                times.len()
            );
        }
    }
    for date in ["2025-06-30", "2025-12-31"] {
        let url = format!("{base}/api/v1/dashboard/summary?date={date}");
        let (status, times) = timed_gets(&agent, &url, token, runs);
        println!(
            "| dashboard/summary?date={date} | today, week, month | {status} | {:.1} | {:.1} | {} |",
            ms(percentile(&times, 50.0)),
            ms(percentile(&times, 99.0)),
            times.len()
        );
    }
}

/// `runs` GETs of `url` (within 60 s), after one not counted; the last status and the sorted times.
fn timed_gets(agent: &ureq::Agent, url: &str, token: &str, runs: usize) -> (u16, Vec<Duration>) {
    let call = || {
        let started = Instant::now();
        let mut reply = agent.get(url).header("Authorization", format!("Bearer {token}")).call().unwrap();
        reply.body_mut().with_config().limit(256 * 1024 * 1024).read_to_vec().unwrap();
        (reply.status().as_u16(), started.elapsed())
    };
    let (mut status, _) = call();
    let mut times = Vec::new();
    let budget = Instant::now();
    while times.len() < runs && (times.len() < 5 || budget.elapsed() < Duration::from_secs(60)) {
        let (s, took) = call();
        status = s;
        times.push(took);
    }
    times.sort_unstable();
    (status, times)
}

/// The invoice list's first page, and searches by number and by buyer.
fn list_figures(base: &str, token: &str) {
    let agent = agent();
    let (_, first) = get(&agent, &format!("{base}/api/v1/invoice?limit=1&type=NONCASH"), token);
    let noncash = &first["data"]["items"][0];
    let buyer =
        noncash["buyer_name"].as_str().or(noncash["buyer"]["name"].as_str()).unwrap_or("Hoxha").to_string();
    let surname = buyer.split(' ').next().unwrap_or("Hoxha").to_string();
    let nuis = self::buyer(100).id_value.unwrap_or_default();
    let searches = [
        ("first page (20 newest)".to_string(), String::new()),
        ("query=1234/2019 (a number)".to_string(), "query=1234%2F2019".to_string()),
        ("query=777 (part of numbers)".to_string(), "query=777".to_string()),
        (format!("query={buyer} (a buyer)"), format!("query={}", buyer.replace(' ', "%20"))),
        (format!("query={surname} (a surname)"), format!("query={surname}")),
        (format!("query={nuis} (a buyer's NUIS)"), format!("query={nuis}")),
    ];
    for (label, query) in searches {
        let url = format!("{base}/api/v1/invoice?{query}");
        let (status, times) = timed_gets(&agent, &url, token, 100);
        let (_, page) = get(&agent, &url, token);
        println!(
            "list GET /api/v1/invoice {label}: HTTP {status}, p50 {:.2} ms, p99 {:.2} ms ({} runs, {} on the page)",
            ms(percentile(&times, 50.0)),
            ms(percentile(&times, 99.0)),
            times.len(),
            page["data"]["items"].as_array().map_or(0, Vec::len)
        );
    }
}

/// `arka backup` of the decade while the server runs: seconds and MB/s. Skipped, and said so,
/// when the disk has not the file's size and a tenth free: a full disk stops every build beside.
fn backup_figures(decade: &Decade, _serving: &Arka) {
    let to = decade.dir().join("backup.db");
    let needed = file_bytes(&decade.db) / 10 * 11;
    let free = free_bytes(&decade.dir());
    if free < needed {
        println!(
            "arka backup of the decade: skipped, {:.1} GiB free for a copy of {:.1} GiB",
            gib(free),
            gib(file_bytes(&decade.db))
        );
        return;
    }
    let started = Instant::now();
    let status = Command::new(arka_binary())
        .arg("backup")
        .arg(format!("--to={}", to.display()))
        .arg(format!("--data-dir={}", decade.dir().display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&to).map(|m| m.len()).unwrap_or(0);
    println!(
        "arka backup of the decade (server running): {status}, {seconds:.1} s, {:.2} GiB written, {:.0} MB/s",
        gib(bytes),
        bytes as f64 / 1e6 / seconds
    );
    let _ = std::fs::remove_file(&to);
    let _ = std::fs::remove_file(decade.dir().join("backup.db.key"));
}

/// What selling measured over one database.
struct Sales {
    one_p50: Duration,
    one_rate: f64,
    sixteen_rate: f64,
    sixteen_p50: Duration,
    rss_mib: f64,
}

/// A two-line cash receipt.
fn receipt(internal_id: &str) -> Value {
    json!({
        "internalId": internal_id,
        "lines": [
            {"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 2, "price": 120, "total": 240, "vat": 20},
            {"product_name": "Ujë", "product_code": "U1", "unit": "copë", "quantity": 1, "price": 50, "total": 45, "discount": 10, "vat": 6}
        ],
        "payment_method": "BANKNOTE",
    })
}

/// One POS, then 16, selling for `ARKA_BENCH_SECONDS` each; the server's peak RSS over the 16.
fn sale_figures(label: &str, arka: &Arka, token: &str) -> Sales {
    let limit = Duration::from_secs(setting("ARKA_BENCH_SECONDS", 20));
    let tag = format!("{label}-{}", Utc::now().timestamp());
    sell(&arka.base, token, &format!("{tag}-warm"), 1, Duration::from_secs(2), receipt);
    let (one, one_took) = sell(&arka.base, token, &format!("{tag}-one"), 1, limit, receipt);
    let _ = std::fs::write(format!("/proc/{}/clear_refs", arka.pid()), "5");
    let (sixteen, sixteen_took) = sell(&arka.base, token, &format!("{tag}-sixteen"), 16, limit, receipt);
    let sales = Sales {
        one_p50: percentile(&one, 50.0),
        one_rate: one.len() as f64 / one_took.as_secs_f64(),
        sixteen_rate: sixteen.len() as f64 / sixteen_took.as_secs_f64(),
        sixteen_p50: percentile(&sixteen, 50.0),
        rss_mib: peak_rss_mib(&arka.pid()),
    };
    println!(
        "sales over the {label} database: 1 POS {} sales, p50 {:.2} ms, p99 {:.2} ms, {:.0}/s; 16 POS {} sales, \
         {:.0}/s, p50 {:.1} ms, p99 {:.1} ms; the server's peak RSS while 16 sold {:.1} MiB (goal < 64 MB); load {}",
        one.len(),
        ms(sales.one_p50),
        ms(percentile(&one, 99.0)),
        sales.one_rate,
        sixteen.len(),
        sales.sixteen_rate,
        ms(sales.sixteen_p50),
        ms(percentile(&sixteen, 99.0)),
        sales.rss_mib,
        load_average()
    );
    sales
}

/// A fresh shop on a server of its own (the real binary), opened as the decade's was.
struct Fresh {
    arka: Arka,
    token: String,
    _dir: tempfile::TempDir,
}

fn fresh_shop(sim: &Sim) -> Fresh {
    let dir = tempfile::Builder::new().prefix("arka-bench-fresh-").tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let arka = Arka::start(&data, sim);
    let token = open_till(&arka.base, &data.join("arka.db")).token;
    Fresh { arka, token, _dir: dir }
}

fn compare_sales(decade: &Sales, fresh: &Sales) {
    let change = |d: f64, f: f64| (d - f) / f * 100.0;
    println!(
        "the cost of a sale, decade vs fresh (goal: within 10 %): 1-POS p50 {:.2} vs {:.2} ms ({:+.1} %); \
         16-POS throughput {:.0} vs {:.0}/s ({:+.1} %); peak RSS {:.1} vs {:.1} MiB",
        ms(decade.one_p50),
        ms(fresh.one_p50),
        change(ms(decade.one_p50), ms(fresh.one_p50)),
        decade.sixteen_rate,
        fresh.sixteen_rate,
        change(decade.sixteen_rate, fresh.sixteen_rate),
        decade.rss_mib,
        fresh.rss_mib
    );
}

// ---------------------------------------------------------------------------------------------
// Page sizes and the upgrade, over a smaller decade
// ---------------------------------------------------------------------------------------------

/// Copies the database of `from` (and its key) to the data directory `to`.
fn copy_data(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for file in ["arka.db", "arka.key"] {
        std::fs::copy(from.join(file), to.join(file)).unwrap();
    }
}

/// The reports over a smaller decade with the pages this release writes and a copy with
/// SQLite's 4 KiB (served while this process holds it open, so the server keeps its pages);
/// then `arka migrate --small-pages` over the copy, the server stopped, timed. Skipped when
/// `ARKA_BENCH_PAGES_RECEIPTS` is 0.
fn page_figures(big: &Path) {
    let receipts = setting("ARKA_BENCH_PAGES_RECEIPTS", 1_000_000);
    if receipts == 0 {
        println!("pages: skipped (ARKA_BENCH_PAGES_RECEIPTS=0)");
        return;
    }
    let root = big.parent().unwrap().parent().unwrap().to_path_buf();
    let small = prepared(&root.join(format!("decade-pages-{receipts}")).join("arka.db"), receipts);
    let sim = Sim::start_knowing(known_tcrs(&small.db));
    let large = root.join("decade-pages-4k");
    copy_data(&small.dir(), &large);
    let started = Instant::now();
    let conn = Connection::open(large.join("arka.db")).unwrap();
    conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    conn.pragma_update(None, "page_size", 4096).unwrap();
    conn.execute_batch("VACUUM").unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    // A read maps the log's index: while this connection is open, no other leaves WAL mode.
    conn.query_row("SELECT COUNT(*) AS n FROM companies", [], |r| r.get::<_, i64>("n")).unwrap();
    let own: i64 = Connection::open(&small.db)
        .unwrap()
        .query_row("PRAGMA page_size", [], |r| r.get("page_size"))
        .unwrap();
    let own = format!("{own}-byte pages");
    println!(
        "pages: {receipts} documents, {:.2} GiB with {own}, {:.2} GiB with 4 KiB (rewritten in {:.0} s)",
        gib(file_bytes(&small.db)),
        gib(file_bytes(&large.join("arka.db"))),
        started.elapsed().as_secs_f64()
    );
    {
        let arka = Arka::start(&small.dir(), &sim);
        report_figures(&own, &arka.base, &small.token, 20);
    }
    {
        let arka = Arka::start(&large, &sim);
        let pages: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get("page_size")).unwrap();
        println!("pages: the copy served with pages of {pages} bytes (this process holds it open)");
        for line in arka.timed_lines() {
            println!("  log: {line}");
        }
        report_figures("4 KiB pages", &arka.base, &small.token, 20);
    }
    drop(conn);
    small_pages_figure(&large, receipts);
    let _ = std::fs::remove_dir_all(&large);
}

/// `arka migrate --small-pages` over the 4 KiB copy (what a start leaves to the owner above
/// 256 MiB): its time in all and per million documents.
fn small_pages_figure(data: &Path, receipts: u64) {
    let started = Instant::now();
    let status = Command::new(arka_binary())
        .arg("migrate")
        .arg("--small-pages")
        .arg(format!("--data-dir={}", data.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let pages: i64 = Connection::open(data.join("arka.db"))
        .unwrap()
        .query_row("PRAGMA page_size", [], |r| r.get("page_size"))
        .unwrap();
    println!(
        "upgrade: arka migrate --small-pages over the 4 KiB copy: {status}, {seconds:.1} s ({:.1} s per million documents), pages now {pages} bytes",
        seconds / (receipts as f64 / 1e6)
    );
}
