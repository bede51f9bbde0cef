//! The head office under a chain's mistakes (issue 43). Three shops (two of one NUIS, one of
//! another), each the real `arka serve` linked to one `arka hq serve` on a PostgreSQL of the
//! section's own, one simulator; POS apps sell cash and non-cash and cancel on every shop while,
//! phase after phase: the HQ is SIGKILLed while the shops drain to it, PostgreSQL restarts under
//! load, a shop is SIGKILLed mid-sale and started again (its POS retry), a twin box sells on one
//! shop's token, and a shop dies with an unshipped tail (its HQ away) and is restored on a new box
//! from the HQ mid-day. Then the ledger: every acknowledged document once at the HQ (but the dead
//! box's tail, listed, each at the CIS), each shop's books at the HQ exactly, no number twice at
//! the CIS, and no gap in a sequence that the HQ does not list as held.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

use super::client::Client;
use super::pg::Cluster;
use super::pos::{self, Ack, Mix, Outcome, Request, Shift};
use super::procs::{HqServer, Logging, Server, Sim, arka_output, create_partner};
use super::shop::{Shop, onboard};
use super::table::Row;
use super::{Error, Plan};

const NUIS_A: &str = "L41323036D";
const NUIS_B: &str = "K12345678B";
const CALL_LIMIT: Duration = Duration::from_secs(15);
/// How long the shops may take to ship and deliver everything at the end.
const DRAIN_WAIT: Duration = Duration::from_secs(90);

/// The HQ of the section: its PostgreSQL, its process on a fixed address, its owner.
struct Hq {
    server: Option<HqServer>,
    listen: String,
    url_file: PathBuf,
    owner: String,
    arka: PathBuf,
    dir: PathBuf,
    starts: usize,
}

impl Hq {
    fn start(arka: &Path, pg: &Cluster, dir: &Path) -> Result<Hq, Error> {
        let url_file = dir.join("database-url");
        std::fs::write(&url_file, &pg.url)?;
        let file = url_file.to_string_lossy().to_string();
        let out = arka_output(arka, &["hq", "owners", "add", "owner", "--database-url-file", &file])?;
        let owner = out
            .lines()
            .find_map(|l| l.strip_prefix("Authorization: Bearer "))
            .map(str::to_string)
            .ok_or_else(|| Error::Setup(format!("no owner's token: {out}")))?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let mut hq = Hq {
            server: None,
            listen: format!("127.0.0.1:{port}"),
            url_file,
            owner,
            arka: arka.to_path_buf(),
            dir: dir.to_path_buf(),
            starts: 0,
        };
        hq.start_again()?;
        Ok(hq)
    }

    fn start_again(&mut self) -> Result<(), Error> {
        self.starts += 1;
        let log = self.dir.join(format!("hq-{}.log", self.starts));
        self.server = Some(HqServer::start(&self.arka, &self.listen, &self.url_file, &log)?);
        Ok(())
    }

    fn kill(&mut self) {
        if let Some(server) = self.server.take() {
            server.kill();
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.listen)
    }

    fn add_shop(&self, name: &str, nuis: &str) -> Result<String, Error> {
        let file = self.url_file.to_string_lossy().to_string();
        let out = arka_output(
            &self.arka,
            &["hq", "shops", "add", name, "--nuis", nuis, "--database-url-file", &file],
        )?;
        out.lines()
            .find_map(|l| l.strip_prefix("ARKA_HQ_TOKEN="))
            .map(str::to_string)
            .ok_or_else(|| Error::Setup(format!("no shop token: {out}")))
    }

    fn owner_get(&self, path: &str) -> Result<Value, Error> {
        Ok(Client::new(&self.url(), CALL_LIMIT).get(path, Some(&self.owner))?.expect(200, path)?.body)
    }

    fn logs(&self) -> String {
        (1..=self.starts)
            .map(|n| std::fs::read_to_string(self.dir.join(format!("hq-{n}.log"))).unwrap_or_default())
            .collect()
    }
}

/// A shop's box: its data dir, its server, the shop on board and its token at the HQ.
struct ShopBox {
    name: String,
    data: PathBuf,
    server: Option<Server>,
    shop: Shop,
    hq_token: String,
    flags: Vec<String>,
    starts: usize,
    dir: PathBuf,
}

impl ShopBox {
    fn start(
        arka: &Path,
        sim: &Sim,
        hq: &Hq,
        (name, nuis, hq_token): (&str, &str, &str),
        dir: &Path,
    ) -> Result<ShopBox, Error> {
        let data = dir.join(name).join("data");
        let partner = create_partner(arka, &data)?;
        let mut flags = super::crash::server_flags(sim);
        flags.extend([
            format!("--hq-url={}", hq.url()),
            format!("--hq-token={hq_token}"),
            "--hq-allow-http".to_string(),
        ]);
        let log = dir.join(name).join("arka-1.log");
        let server = Server::start(arka, &data, &log, Logging::PLAIN, &flags)?;
        let shop = onboard(&Client::new(&server.base, CALL_LIMIT), &partner, nuis, 1)?;
        Ok(ShopBox {
            name: name.to_string(),
            data,
            server: Some(server),
            shop,
            hq_token: hq_token.to_string(),
            flags,
            starts: 1,
            dir: dir.join(name),
        })
    }

    fn base(&self) -> String {
        self.server.as_ref().map(|s| s.base.clone()).unwrap_or_default()
    }

    fn restart(&mut self, arka: &Path) -> Result<(), Error> {
        self.starts += 1;
        let log = self.dir.join(format!("arka-{}.log", self.starts));
        self.server = Some(Server::start(arka, &self.data, &log, Logging::PLAIN, &self.flags)?);
        Ok(())
    }

    fn kill(&mut self) {
        if let Some(server) = self.server.take() {
            server.kill();
        }
    }

    fn logs(&self) -> String {
        (1..=self.starts)
            .map(|n| std::fs::read_to_string(self.dir.join(format!("arka-{n}.log"))).unwrap_or_default())
            .collect()
    }
}

/// What the POS apps of every phase saw, by shop name (a box's POS under the shop's name).
#[derive(Default)]
struct Seen {
    acks: BTreeMap<String, Vec<Ack>>,
    server_errors: usize,
    hangs: usize,
}

impl Seen {
    fn file(&mut self, shop: &str, outcome: Outcome) -> Vec<Request> {
        self.hangs += outcome.hangs;
        self.server_errors += outcome.refused.iter().filter(|r| r.status >= 500 && r.status != 503).count();
        self.acks.entry(shop.to_string()).or_default().extend(outcome.acks);
        outcome.unanswered
    }
}

/// `pos` POS apps on each of `shops` for `time`, while `during` runs; what each shop's POS saw.
fn phase(
    shops: &[(&str, String, &Shop)],
    (label, pos_count, time): (&str, usize, Duration),
    during: impl FnOnce() -> Result<(), Error>,
) -> Result<Vec<(String, Outcome)>, Error> {
    let stop = AtomicBool::new(false);
    let deadline = Instant::now() + time + Duration::from_secs(30);
    std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for (name, base, shop) in shops {
            for n in 0..pos_count {
                let Some(till) = shop.tills.get(n % shop.tills.len().max(1)) else { continue };
                let client = Client::new(base, CALL_LIMIT);
                let shift = Shift {
                    prefix: format!("{name}-{label}-pos{n}"),
                    mix: Mix::CHAIN,
                    stop: &stop,
                    deadline,
                    max_requests: 1_000_000,
                    stop_on_silence: true,
                };
                let name = name.to_string();
                workers.push(scope.spawn(move || (name, pos::run(&client, till, &shift))));
            }
        }
        let started = Instant::now();
        let done = during();
        std::thread::sleep(time.saturating_sub(started.elapsed()));
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let outcomes = workers.into_iter().filter_map(|w| w.join().ok()).collect();
        done.map(|()| outcomes)
    })
}

/// Sends again, on the shop's restarted server, what got no answer (same keys).
fn retry(base: &str, unanswered: Vec<Request>, shop: &str, seen: &mut Seen) {
    let client = Client::new(base, CALL_LIMIT);
    let mut outcome = Outcome::default();
    for request in unanswered {
        let result = pos::send(&client, &request, &mut outcome);
        pos::file(&request, result, &mut outcome);
    }
    outcome.unanswered.clear();
    seen.file(shop, outcome);
}

fn open(db: &Path) -> Result<Connection, Error> {
    Ok(Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)?)
}

/// The IICs of the invoices in the books at `data`.
fn iics_in(data: &Path) -> Result<BTreeSet<String>, Error> {
    let conn = open(&data.join("arka.db"))?;
    let mut statement = conn.prepare("SELECT iic FROM invoices")?;
    let rows = statement.query_map([], |r| r.get::<_, String>("iic"))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The IICs of `shop`'s documents at the HQ, each as often as the HQ lists it.
fn iics_at_hq(hq: &Hq, shop: &str) -> Result<Vec<String>, Error> {
    let today = chrono::Utc::now().date_naive();
    let (from, to) = (today - chrono::Days::new(1), today + chrono::Days::new(1));
    let page =
        hq.owner_get(&format!("/api/v1/invoice?shop={shop}&fromDate={from}&toDate={to}&limit=1000000"))?;
    Ok(page["data"]["items"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|i| i["iic"].as_str().map(str::to_string))
        .collect())
}

/// Waits, bounded, until every shop's outbox and queue are empty.
fn drained(boxes: &[&ShopBox]) -> Result<bool, Error> {
    let deadline = Instant::now() + DRAIN_WAIT;
    for b in boxes {
        let client = Client::new(&b.base(), CALL_LIMIT);
        loop {
            let health = client.get("/healthz", None)?.body;
            if health["hq"]["backlog"] == json!(0) && health["queue"]["depth"] == json!(0) {
                break;
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    Ok(true)
}

/// A shop restored on a new box from the HQ: the restore, its start, its certificate uploaded
/// again, and its tills on their new TCRs.
fn restore(arka: &Path, hq: &Hq, dead: &ShopBox, sim: &Sim) -> Result<ShopBox, Error> {
    let dir = dead.dir.with_file_name(format!("{}-restored", dead.name));
    let data = dir.join("data");
    let data_text = data.to_string_lossy().to_string();
    arka_output(
        arka,
        &[
            "restore",
            "--from-hq",
            &hq.url(),
            "--hq-token",
            &dead.hq_token,
            "--hq-allow-http",
            "--data-dir",
            &data_text,
        ],
    )?;
    let mut flags = super::crash::server_flags(sim);
    flags.extend([
        format!("--hq-url={}", hq.url()),
        format!("--hq-token={}", dead.hq_token),
        "--hq-allow-http".to_string(),
    ]);
    let server = Server::start(arka, &data, &dir.join("arka-1.log"), Logging::PLAIN, &flags)?;
    let client = Client::new(&server.base, CALL_LIMIT);
    let upload = json!({"certificate_file": openssl::base64::encode_block(&dead.shop.p12), "password": dead.shop.password});
    client
        .post("/api/v1/on-boarding/certificate", Some(&dead.shop.token), &upload)?
        .expect(201, "the certificate again")?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let today = client.get("/api/v1/owner/today", Some(&dead.shop.token))?.expect(200, "today")?.body;
        let retired = today["data"]["restored"]["retired_tcrs"].as_array().cloned().unwrap_or_default();
        if !retired.is_empty() && retired.iter().all(|r| r["continued_by"].is_string()) {
            break;
        }
        if Instant::now() >= deadline {
            return Err(Error::Unexpected(format!("the restored box got no new TCR: {today}")));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let shop = clone_shop(&dead.shop);
    Ok(ShopBox {
        name: dead.name.clone(),
        data,
        server: Some(server),
        shop,
        hq_token: dead.hq_token.clone(),
        flags,
        starts: 1,
        dir,
    })
}

fn clone_shop(shop: &Shop) -> Shop {
    Shop {
        nuis: shop.nuis.clone(),
        token: shop.token.clone(),
        company_id: shop.company_id,
        branch_id: shop.branch_id,
        user_id: shop.user_id,
        tills: shop.tills.clone(),
        certificate: shop.certificate.clone(),
        password: shop.password.clone(),
        p12: shop.p12.clone(),
    }
}

/// The ledger's findings and figures.
#[derive(Default)]
struct Ledger {
    lost: Vec<String>,
    duplicated: Vec<String>,
    gaps: Vec<String>,
    other: Vec<String>,
    acknowledged: usize,
    window: usize,
    at_cis: usize,
    held: usize,
}

/// Each shop's books at the HQ exactly, each document once.
fn books_at_hq(
    hq: &Hq,
    boxes: &[&ShopBox],
    ledger: &mut Ledger,
) -> Result<BTreeMap<String, BTreeSet<String>>, Error> {
    let mut at_hq = BTreeMap::new();
    for b in boxes {
        let own = iics_in(&b.data)?;
        let listed = iics_at_hq(hq, &b.name)?;
        let held: BTreeSet<String> = listed.iter().cloned().collect();
        if held.len() != listed.len() {
            ledger.duplicated.push(format!(
                "{}: {} documents listed twice at the HQ",
                b.name,
                listed.len() - held.len()
            ));
        }
        for missing in own.difference(&held) {
            ledger.lost.push(format!("{}: document {missing} of its books not at the HQ", b.name));
        }
        for stranger in held.difference(&own) {
            ledger.other.push(format!("{}: document {stranger} at the HQ is not in its books", b.name));
        }
        at_hq.insert(b.name.clone(), held);
    }
    Ok(at_hq)
}

/// An invoice number at the CIS: its ordinal, year and TCR (none for a non-cash one).
fn parts(inv_num: &str) -> Option<(i64, String, Option<String>)> {
    let mut parts = inv_num.split('/');
    let ord = parts.next()?.parse().ok()?;
    let year = parts.next()?.to_string();
    Some((ord, year, parts.next().map(str::to_string)))
}

/// No number twice at the CIS; each TCR's cash numbers and each business's non-cash numbers
/// running 1..n but for the numbers the HQ lists as held (reserved, no document).
fn at_the_cis(registered: &Value, held: &Value, ledger: &mut Ledger) {
    let invoices = registered["invoices"].as_array().map(Vec::as_slice).unwrap_or_default();
    ledger.at_cis = invoices.len();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let mut sequences: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    for invoice in invoices {
        let nuis = invoice["issuer_nuis"].as_str().unwrap_or_default().to_string();
        let number = invoice["inv_num"].as_str().unwrap_or_default().to_string();
        *seen.entry((nuis.clone(), number.clone())).or_default() += 1;
        if let Some((ord, year, tcr)) = parts(&number) {
            let sequence = match tcr {
                Some(tcr) => format!("TCR {tcr} {year}"),
                None => format!("non-cash {nuis} {year}"),
            };
            sequences.entry(sequence).or_default().insert(ord);
        }
    }
    for ((nuis, number), times) in seen.iter().filter(|(_, t)| **t > 1) {
        ledger.duplicated.push(format!("{number} of {nuis} registered {times} times at the CIS"));
    }
    let mut listed: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    for h in held.as_array().map(Vec::as_slice).unwrap_or_default() {
        let sequence = format!("non-cash {} {}", h["nuis"].as_str().unwrap_or_default(), h["year"]);
        listed.entry(sequence).or_default().extend(h["ord_num"].as_i64());
        ledger.held += 1;
    }
    for (sequence, numbers) in &sequences {
        let max = numbers.iter().max().copied().unwrap_or(0);
        let empty = BTreeSet::new();
        let held = listed.get(sequence).unwrap_or(&empty);
        let missing: Vec<i64> = (1..=max).filter(|n| !numbers.contains(n) && !held.contains(n)).collect();
        if !missing.is_empty() {
            ledger.gaps.push(format!("{sequence}: {missing:?} neither at the CIS nor listed as held"));
        }
    }
}

/// Every acknowledged document once at the HQ, but the dead box's tail (`window`), each of
/// which must be at the CIS; no twin box's document in its shop's books.
fn acks_at_hq(
    seen: &Seen,
    at_hq: &BTreeMap<String, BTreeSet<String>>,
    window: &BTreeSet<String>,
    registered: &Value,
    ledger: &mut Ledger,
) {
    let at_cis: BTreeSet<&str> = registered["invoices"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|i| i["iic"].as_str())
        .collect();
    let empty = BTreeSet::new();
    for (shop, acks) in &seen.acks {
        if shop == "twin" {
            let books = at_hq.get("tirana-2").unwrap_or(&empty);
            for iic in acks.iter().filter_map(|a| a.iic.as_ref()).filter(|i| books.contains(*i)) {
                ledger.other.push(format!("the twin box's document {iic} is in tirana-2's books at the HQ"));
            }
            continue;
        }
        let books = at_hq.get(shop).unwrap_or(&empty);
        for ack in acks {
            let Some(iic) = &ack.iic else { continue };
            ledger.acknowledged += 1;
            if books.contains(iic) {
                continue;
            }
            if window.contains(iic) {
                ledger.window += 1;
                if !at_cis.contains(iic.as_str()) {
                    ledger
                        .lost
                        .push(format!("{shop}: the dead box's {} {iic} is not at the CIS", ack.number));
                }
                continue;
            }
            ledger.lost.push(format!(
                "{shop}: acknowledged {} {} ({iic}) not at the HQ",
                ack.kind.as_str(),
                ack.number
            ));
        }
    }
}

/// The shops as the POS apps see them: name, address, what is on board.
fn view(boxes: &[&ShopBox]) -> Vec<(String, String, Shop)> {
    boxes.iter().map(|b| (b.name.clone(), b.base(), clone_shop(&b.shop))).collect()
}

/// `phase` over `view`'s shops.
fn sell(
    shops: &[(String, String, Shop)],
    what: (&str, usize, Duration),
    during: impl FnOnce() -> Result<(), Error>,
    seen: &mut Seen,
) -> Result<BTreeMap<String, Vec<Request>>, Error> {
    let borrowed: Vec<(&str, String, &Shop)> =
        shops.iter().map(|(n, b, s)| (n.as_str(), b.clone(), s)).collect();
    let mut unanswered: BTreeMap<String, Vec<Request>> = BTreeMap::new();
    for (shop, outcome) in phase(&borrowed, what, during)? {
        let left = seen.file(&shop, outcome);
        unanswered.entry(shop).or_default().extend(left);
    }
    Ok(unanswered)
}

/// The phases of faults, in turn, with POS apps selling throughout; the dead box of the restore.
fn faults(
    plan: &Plan,
    pg: &Cluster,
    sim: &Sim,
    hq: &mut Hq,
    boxes: &mut [ShopBox],
    progress: &dyn Fn(&str),
) -> Result<(Seen, ShopBox, usize), Error> {
    let (arka, pos_n, time) = (&plan.arka, plan.hq_pos, plan.hq_phase);
    let mut seen = Seen::default();
    progress("hq: the HQ SIGKILLed while the shops drain to it");
    let shops = view(&boxes.iter().collect::<Vec<_>>());
    sell(
        &shops,
        ("hq-kill", pos_n, time),
        || {
            std::thread::sleep(time / 3);
            hq.kill();
            std::thread::sleep(time / 3);
            hq.start_again()
        },
        &mut seen,
    )?;
    progress("hq: PostgreSQL restarted under load");
    sell(
        &shops,
        ("pg-restart", pos_n, time),
        || {
            std::thread::sleep(time / 2);
            pg.restart()
        },
        &mut seen,
    )?;
    progress("hq: a shop SIGKILLed mid-sale and started again");
    let (first, _) = boxes.split_at_mut(1);
    let killed = &mut first[0];
    let mut unanswered = sell(
        &shops,
        ("shop-kill", pos_n, time),
        || {
            std::thread::sleep(time / 2);
            killed.kill();
            Ok(())
        },
        &mut seen,
    )?;
    killed.restart(arka)?;
    retry(
        &killed.base(),
        unanswered.remove(&killed.name).unwrap_or_default(),
        &killed.name.clone(),
        &mut seen,
    );
    progress("hq: a twin box on one shop's token");
    let dir = boxes[1].dir.with_file_name("twin");
    let mut twin = ShopBox::start(
        arka,
        sim,
        hq,
        ("twin", NUIS_A, &boxes[1].hq_token.clone()),
        dir.parent().unwrap_or(&dir),
    )?;
    let mut with_twin = view(&boxes.iter().collect::<Vec<_>>());
    with_twin.push(("twin".to_string(), twin.base(), clone_shop(&twin.shop)));
    sell(&with_twin, ("twin", pos_n, time), || Ok(()), &mut seen)?;
    twin.kill();
    let shops_now = hq.owner_get("/hq/v1/shops")?;
    let refused = shops_now["data"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|s| s["name"] == "tirana-2")
        .map(|s| s["refused_boxes"].as_array().map_or(0, Vec::len))
        .sum::<usize>();
    progress("hq: a shop dies with its HQ away and is restored on a new box mid-day");
    hq.kill();
    let vlora = view(&[&boxes[2]]);
    sell(&vlora, ("tail", pos_n, time / 2), || Ok(()), &mut seen)?;
    boxes[2].kill();
    hq.start_again()?;
    let restored = restore(arka, hq, &boxes[2], sim)?;
    let dead = std::mem::replace(&mut boxes[2], restored);
    let shops = view(&boxes.iter().collect::<Vec<_>>());
    sell(&shops, ("after-restore", pos_n, time), || Ok(()), &mut seen)?;
    Ok((seen, dead, refused))
}

/// Runs the HQ section and gives its row.
pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    let pg = Cluster::start()?;
    let sim = Sim::start(&plan.arka)?;
    let dir = tempfile::Builder::new().prefix("arka-chaos-hq-").tempdir()?;
    let mut hq = Hq::start(&plan.arka, &pg, dir.path())?;
    let mut boxes = Vec::new();
    for (name, nuis) in [("tirana-1", NUIS_A), ("tirana-2", NUIS_A), ("vlora", NUIS_B)] {
        let token = hq.add_shop(name, nuis)?;
        boxes.push(ShopBox::start(&plan.arka, &sim, &hq, (name, nuis, &token), dir.path())?);
    }
    let (seen, dead, refused) = faults(plan, &pg, &sim, &mut hq, &mut boxes, progress)?;
    progress("hq: draining, then the ledger");
    let all: Vec<&ShopBox> = boxes.iter().collect();
    let drained = drained(&all)?;
    let mut ledger = Ledger::default();
    let at_hq = books_at_hq(&hq, &all, &mut ledger)?;
    let window: BTreeSet<String> =
        iics_in(&dead.data)?.difference(at_hq.get("vlora").unwrap_or(&BTreeSet::new())).cloned().collect();
    let registered = sim.registered()?;
    acks_at_hq(&seen, &at_hq, &window, &registered, &mut ledger);
    let held = hq.owner_get("/hq/v1/numbers/held?older_than=0&voided=true")?;
    at_the_cis(&registered, &held["data"], &mut ledger);
    if refused == 0 {
        ledger.other.push("the twin box was not shown to the owner as refused".to_string());
    }
    let panics = super::procs::panics_in(&hq.logs())
        + boxes.iter().chain([&dead]).map(|b| super::procs::panics_in(&b.logs())).sum::<usize>();
    let mut row = Row::new(
        "hq",
        format!(
            "3 shops (2 of one NUIS), {} POS each, {:?} phases: HQ kill -9, PostgreSQL restart, shop kill -9, twin box, restore mid-day",
            plan.hq_pos, plan.hq_phase
        ),
        format!(
            "{} acknowledged, all once at the HQ but the dead box's tail of {} (each at the CIS, listed); {} numbers at the CIS once; {} held numbers listed; twin box refused and shown",
            ledger.acknowledged, ledger.window, ledger.at_cis, ledger.held
        ),
    );
    row.lost = ledger.lost.len();
    row.duplicated = ledger.duplicated.len();
    row.gaps = ledger.gaps.len();
    row.server_errors = seen.server_errors;
    row.hangs_and_panics = seen.hangs + panics;
    row.findings
        .extend(ledger.lost.into_iter().chain(ledger.duplicated).chain(ledger.gaps).chain(ledger.other));
    if !drained {
        row.findings.push(format!("the shops did not drain within {DRAIN_WAIT:?}"));
    }
    Ok(vec![row])
}
