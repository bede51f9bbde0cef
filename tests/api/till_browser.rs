//! The till in a real browser (Debian's headless Chromium over WebDriver), at a tablet's 1024 px
//! and a phone's 390 px, on a shop with a printer in the tests: a cashier opens it from their
//! pairing card, sells by buttons, by search and by scanned codes (a scale's EAN-13 among them,
//! an unknown one said), pays cash with change, by card, split, for a business buyer found by
//! NUIS and with the keyboard alone; a table of two rounds is settled; a sale is cancelled; the
//! day is closed by notes and coins. Each receipt is held against what the API says, axe-core
//! runs on every screen, and the figures of speed are printed (and kept in the book).

use std::time::{Duration, SystemTime};

use crate::common::browser::Browser;
use crate::common::printer::TestPrinter;
use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::owner_browser::screenshots;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use serde_json::{Value, json};

#[test]
fn a_cashier_sells_prints_and_closes_the_day_on_a_tablet() {
    story("tablet", 1024, 768);
}

#[test]
fn a_cashier_sells_prints_and_closes_the_day_on_a_phone() {
    story("phone", 390, 844);
}

/// The EAN-13 code of the first twelve digits, with its check digit.
fn ean13(twelve: &str) -> String {
    let sum: u32 = twelve
        .chars()
        .enumerate()
        .map(|(i, d)| d.to_digit(10).unwrap() * if i % 2 == 1 { 3 } else { 1 })
        .sum();
    format!("{twelve}{}", (10 - sum % 10) % 10)
}

/// A shop's catalog: two categories, a weighed cheese whose item code the scale prints.
fn catalog(till: &Till) {
    let category = |name: &str| {
        till.server.advance_clock(Duration::from_secs(2));
        let reply =
            till.server.post_json("/api/v1/product/categories", Some(&till.token), &json!({"name": name}));
        reply.data(201)["category"]["id"].clone()
    };
    let (drinks, food) = (category("Pije"), category("Ushqime"));
    for (code, name, price, vat, unit, cat) in [
        ("K1", "Kafe", 120, "20", "C62", &drinks),
        ("K2", "Kafe me qumësht", 150, "20", "C62", &drinks),
        ("3830001234567", "Ujë 0.5 L", 80, "6", "C62", &drinks),
        ("12345", "Djathë i bardhë", 800, "20", "KGM", &food),
        ("B7", "Bukë misri", 100, "6", "C62", &food),
    ] {
        till.server.advance_clock(Duration::from_secs(2));
        let body = json!({"code": code, "name": name, "last_price": price, "vat_rate": vat, "unit_code": unit, "id_category": cat, "service": false});
        till.server.post_json("/api/v1/products", Some(&till.token), &body).data(201);
    }
    till.server.advance_clock(Duration::from_secs(11));
}

/// The scanner: the keys of `code` and Enter, as fast as it types, wherever the focus is.
async fn scan(page: &Browser, code: &str) {
    let mut keys = KeyActions::new("scanner".to_string());
    for c in code.chars().chain([char::from(Key::Enter)]) {
        keys = keys.then(KeyAction::Down { value: c }).then(KeyAction::Up { value: c });
    }
    page.client.perform_actions(keys).await.unwrap();
}

/// What a person's hand takes between typing and pressing Enter: WebDriver types faster than a
/// barcode scanner, and the till tells a scanner by its speed.
async fn human_pause() {
    tokio::time::sleep(Duration::from_millis(120)).await;
}

/// The machine's load average over the last minute, printed beside each figure.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split(' ').next().unwrap_or("?").to_string()
}

fn p95(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() as f64 * 0.95).ceil() as usize).saturating_sub(1).min(values.len() - 1)]
}

/// A screen of the story: saved as `till-<name>-<form>.png`, axe-core on it, nothing wider
/// than the window.
async fn screen(page: &Browser, form: &str, name: &str) {
    page.screenshot(&screenshots().join(format!("till-{name}-{form}.png"))).await;
    page.axe(&format!("till {name} ({form})")).await;
    let past: Value = page
        .client
        .execute(
            "const w = document.documentElement.clientWidth;
             return [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1)
               .map((e) => `${e.tagName}#${e.id}.${e.className}`).slice(0, 5);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(past, json!([]), "{name} ({form}): nothing wider than the window");
}

fn shown_cents(text: &str) -> i64 {
    let plain: String = text.chars().filter(|c| c.is_ascii_digit() || *c == '-').collect();
    plain.parse().unwrap_or_else(|_| panic!("not an amount: {text:?}"))
}

fn api_cents(v: &Value) -> i64 {
    (v.as_f64().unwrap_or_else(|| panic!("not a number: {v}")) * 100.0).round() as i64
}

/// Pays the open receipt: `method` (`cash`, `card`, `split`), with `tendered` typed when given.
async fn pay(page: &Browser, method: &str, tendered: Option<&str>, card_part: Option<&str>) {
    page.click("#pay").await;
    page.click(&format!("#pay-{method}")).await;
    if let Some(part) = card_part {
        page.type_into("#card-part", part).await;
    }
    if let Some(given) = tendered {
        page.type_into("#tendered", given).await;
    }
    page.click("#pay-confirm").await;
}

fn story(form: &'static str, width: u32, height: u32) {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| {
        args.limits = format!("{ROOMY_LIMITS};print=600/m").parse().unwrap();
    });
    let printer = TestPrinter::start();
    let owner = Some(till.token.as_str());
    let path = format!("/api/v1/printers/{}", till.tcr_code);
    till.server
        .put_json(&path, owner, &json!({"connection": "network", "address": printer.address.to_string()}))
        .data(200);
    catalog(&till);
    till.server.put_json("/api/v1/till/settings", owner, &json!({"cashier_max_discount": 10})).data(200);
    let body = json!({"name": "Besa Kola", "email": "besa@shop.al", "branchId": till.branch_id, "operatorCode": "op222op222", "fiscalTcrCode": till.tcr_code});
    let besa = till.server.post_json("/api/v1/on-boarding/user", owner, &body).data(201)["user"].clone();
    let card = till
        .server
        .post_json(&format!("/api/v1/users/{}/token", besa["id"]), owner, &json!({}))
        .data(201)
        .clone();
    let token = card["user"]["token"].as_str().unwrap().to_string();
    let pairing_url = card["pairingCard"]["pairingUrl"].as_str().unwrap().to_string();

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(width.max(500), height).await;
        page.client.set_window_size(width, height).await.unwrap();
        page.client.goto(&pairing_url).await.unwrap();
        let shop = Shop { page, printer, sim: &sim, till: &till, token, form };
        open_and_sell(&shop).await;
        let sold = pay_cash(&shop).await;
        card_split_and_business(&shop).await;
        paper_out_and_table(&shop).await;
        cancel_and_copy(&shop, &sold).await;
        speed(&shop).await;
        close_the_day(&shop).await;
        shop.page.stop().await;
    });
}

/// What the story's steps share.
struct Shop<'a> {
    page: Browser,
    printer: TestPrinter,
    sim: &'a SimServer,
    till: &'a Till,
    token: String,
    form: &'static str,
}

impl Shop<'_> {
    /// The `data` of a GET as the cashier.
    fn api(&self, path: &str) -> Value {
        self.till.server.get(path, Some(&self.token)).data(200).clone()
    }
}

/// The pairing card's URL opens the till; products go on the receipt by buttons, by search and
/// by scanned codes, a scale's among them, an unknown one said.
async fn open_and_sell(s: &Shop<'_>) {
    let (page, form) = (&s.page, s.form);
    // The pairing card's QR opened the till with the cashier's token.
    page.text_when("#who", |t| t.starts_with("Besa Kola · Arkëtar")).await;
    let url = page.client.current_url().await.unwrap();
    assert_eq!((url.path(), url.fragment()), ("/till/", None), "the token leaves the address bar");
    page.find("button.product[data-code=\"K1\"]").await;

    // By buttons, by category, by search, by scanned codes.
    page.click("button.product[data-code=\"K1\"]").await;
    page.click("button.product[data-code=\"K1\"]").await;
    page.type_into("#search", "qum").await;
    human_pause().await;
    page.find("#search").await.send_keys(&char::from(Key::Enter).to_string()).await.unwrap();
    page.text_when("#lines", |t| t.contains("Kafe me qumësht")).await;
    page.type_into("#search", "xy").await;
    human_pause().await;
    scan(page, "3830001234567").await;
    let scale = ean13("211234500750");
    scan(page, &scale).await;
    page.text_when("#lines", |t| t.contains("Djathë i bardhë") && t.contains("0.75")).await;
    let search = page.find("#search").await.prop("value").await.unwrap();
    assert_eq!(search.as_deref(), Some("xy"), "the scans were never typed into the search field");
    // Emptied as a person does: everything selected, then deleted.
    let select_all =
        format!("{}a{}{}", char::from(Key::Control), char::from(Key::Null), char::from(Key::Backspace));
    page.find("#search").await.send_keys(&select_all).await.unwrap();
    page.text_when("#products", |t| t.contains("Bukë misri")).await;
    scan(page, "9999999999994").await;
    page.text_when("#status", |t| t == "Kod i panjohur: 9999999999994").await;
    assert!(
        page.client.find(fantoccini::Locator::Css("#add-product")).await.is_err(),
        "a cashier adds no product"
    );
    let total = page.find("#total").await.text().await.unwrap();
    assert_eq!(
        shown_cents(&total),
        24_000 + 15_000 + 8_000 + 60_000,
        "2 Kafe, Kafe me qumësht, Ujë, 0.75 kg of cheese"
    );
    screen(page, form, "sale").await;
}

/// Cash with change: the receipt at the printer and the API agree. Returns the sale.
async fn pay_cash(s: &Shop<'_>) -> Value {
    let (page, printer, form) = (&s.page, &s.printer, s.form);
    let api = |p: &str| s.api(p);
    // Cash with change.
    page.click("#pay").await;
    page.type_into("#tendered", "1500").await;
    page.text_when("#change", |t| shown_cents(t) == 150_000 - 107_000).await;
    screen(page, form, "pay").await;
    page.click("#pay-confirm").await;
    let receipt = printer.wait_for(1);
    let sold = api("/api/v2/invoice?limit=1")["items"][0].clone();
    assert_eq!(api_cents(&sold["amount"]["gross"]), 107_000);
    assert_eq!(receipt.drawer_pulses, 1);
    assert!(
        receipt.lines.iter().any(|l| l.starts_with("Kusuri / Change") && l.ends_with("430.00 ALL")),
        "{}",
        receipt.text()
    );
    assert!(receipt.text().contains(sold["number"].as_str().unwrap()));
    assert!(
        receipt
            .lines
            .iter()
            .any(|l| l.starts_with("  12345 0.75 kg x 800.00") || l.starts_with("  12345 0.75")),
        "{}",
        receipt.text()
    );
    page.text_when("#status", |t| t.contains("U printua")).await;

    sold
}

/// A line taken off, a discount beyond the cashier's limit refused, a card sale; a split; a
/// business buyer by NUIS with the keyboard alone.
async fn card_split_and_business(s: &Shop<'_>) {
    let (page, printer) = (&s.page, &s.printer);
    let api = |p: &str| s.api(p);
    // A line taken off before payment, a discount beyond the cashier's limit refused, then
    // one within it; paid by card.
    page.text_when("#products", |t| t.contains("Kafe")).await;
    page.click("button.product[data-code=\"K1\"]").await;
    page.click("button.product[data-code=\"B7\"]").await;
    page.click("#remove-0").await;
    page.text_when("#lines", |t| !t.contains("Kafe")).await;
    page.type_into("#disc-0", &format!("15{}", char::from(Key::Tab))).await;
    page.text_when("#status", |t| t == "Zbritja më e madhe që mund të jepni është 10%.").await;
    page.type_into("#disc-0", &format!("10{}", char::from(Key::Tab))).await;
    page.text_when("#total", |t| shown_cents(t) == 9_000).await;
    pay(page, "card", None, None).await;
    let card = printer.wait_for(2);
    assert_eq!(card.drawer_pulses, 0, "card: the drawer stays shut");
    assert!(
        card.lines.iter().any(|l| l.starts_with("  B7 1 copë x 100.00 -10%") && l.ends_with(" 90.00")),
        "{}",
        card.text()
    );
    page.click("button.product[data-code=\"K2\"]").await;
    page.click("button.product[data-code=\"K1\"]").await;
    pay(page, "split", None, Some("100")).await;
    let split = printer.wait_for(3);
    assert!(
        split.lines.iter().any(|l| l.starts_with("BANKNOTE") && l.ends_with("170.00 ALL")),
        "{}",
        split.text()
    );
    assert!(
        split.lines.iter().any(|l| l.starts_with("CARD") && l.ends_with("100.00 ALL")),
        "{}",
        split.text()
    );
    let listed = api("/api/v2/invoice?limit=1")["items"][0]["payment_methods"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");

    // A business buyer, found by NUIS, with the keyboard alone.
    page.type_into("#search", "Bukë").await;
    human_pause().await;
    page.find("#search").await.send_keys(&char::from(Key::Enter).to_string()).await.unwrap();
    page.text_when("#lines", |t| t.contains("Bukë misri")).await;
    page.find("#pay").await.send_keys(&char::from(Key::Enter).to_string()).await.unwrap();
    page.find("#buyer summary").await.send_keys(&char::from(Key::Enter).to_string()).await.unwrap();
    page.type_into("#buyer-nuis", "K81234001A").await;
    human_pause().await;
    page.find("#buyer-find").await.send_keys(&char::from(Key::Enter).to_string()).await.unwrap();
    let found = page.text_when("#buyer-found", |t| t.contains("K81234001A")).await;
    page.type_into("#tendered", &format!("100{}", char::from(Key::Enter))).await;
    let business = printer.wait_for(4);
    assert!(
        business.has_line("Blerësi / Buyer") && business.text().contains("K81234001A"),
        "{found}\n{}",
        business.text()
    );
}

/// The paper runs out and the receipt prints again; a table of two rounds is settled.
async fn paper_out_and_table(s: &Shop<'_>) {
    let (page, printer, form) = (&s.page, &s.printer, s.form);
    // The printer runs out of paper: said on the till, and printed again once the roll is in.
    printer.set_paper_out(true);
    page.click("button.product[data-code=\"K1\"]").await;
    pay(page, "cash", None, None).await;
    page.text_when("#status", |t| t.starts_with("Printerit i ka mbaruar letra")).await;
    printer.set_paper_out(false);
    page.click("#print-again").await;
    let reprinted = printer.wait_for(5);
    assert_eq!(reprinted.drawer_pulses, 1, "the first print that reached the paper opens the drawer");
    assert!(!reprinted.has_line("KOPJE / COPY"));

    // A table of two rounds, settled with one summary.
    page.click("button.product[data-code=\"K1\"]").await;
    page.click("button.product[data-code=\"K1\"]").await;
    page.click("#nav-tables").await;
    let sale_shown: Value = page
        .client
        .execute("return document.getElementById('view-sale').getClientRects().length > 0", vec![])
        .await
        .unwrap();
    assert_eq!(sale_shown, json!(false), "the tables' view alone is on the screen");
    page.type_into("#table-name", "T4").await;
    page.click("#table-form button[type=submit]").await;
    page.text_when("#status", |t| t.contains("T4")).await;
    page.click("#nav-sale").await;
    page.click("button.product[data-code=\"K2\"]").await;
    page.click("#nav-tables").await;
    page.click("[data-table=\"T4\"] .buttons button").await;
    page.text_when("[data-table=\"T4\"] ul", |t| t.lines().count() == 2).await;
    screen(page, form, "tables").await;
    page.click("[data-table=\"T4\"] .buttons button.primary").await;
    let table = printer.wait_for(6);
    assert!(
        table.lines.iter().any(|l| l.starts_with("TOTALI / TOTAL") && l.ends_with("390.00 ALL")),
        "{}",
        table.text()
    );
    page.text_when("#view-tables", |t| t.contains("Asnjë tavolinë")).await;
}

/// The card sale cancelled and its corrective document printed; a copy of the first sale.
async fn cancel_and_copy(s: &Shop<'_>, sold: &Value) {
    let (page, printer, form) = (&s.page, &s.printer, s.form);
    let api = |p: &str| s.api(p);
    // A cancellation of the card sale, its corrective document printed.
    page.click("#nav-receipts").await;
    let card_sale = api("/api/v2/invoice?limit=20&type=CASH")["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| {
            i["payment_methods"][0]["type"] == "CARD" && i["payment_methods"].as_array().unwrap().len() == 1
        })
        .unwrap()
        .clone();
    page.click(&format!("#cancel-{}", card_sale["id"])).await;
    page.client.accept_alert().await.unwrap();
    page.text_when("#status", |t| t.starts_with("Fatura u anulua")).await;
    let corrective = printer.wait_for(7);
    assert!(
        corrective.lines.iter().any(|l| l.starts_with("TOTALI / TOTAL") && l.ends_with("-90.00 ALL")),
        "{}",
        corrective.text()
    );
    // A copy of the first sale.
    page.click(&format!("#reprint-{}", sold["id"])).await;
    let copy = printer.wait_for(8);
    assert!(copy.has_line("KOPJE / COPY") && copy.drawer_pulses == 0, "{}", copy.text());
    screen(page, form, "receipts").await;
}

/// Scans to lines, and payments to the printer's bytes with the CIS answering at once and slowly.
async fn speed(s: &Shop<'_>) {
    let (page, printer, form) = (&s.page, &s.printer, s.form);
    // The speed: scans to lines, and payments to the printer's bytes (CIS at once, then slow).
    let mut pay_ms = Vec::new();
    for (mode, label) in
        [(json!({"mode": "ok"}), "at once"), (json!({"mode": "slow", "delay_ms": 150}), "after 150 ms")]
    {
        s.sim.set_mode(mode);
        let before = printer.receipts().len();
        let mut figures = Vec::new();
        for n in 0..10 {
            page.click("#nav-sale").await;
            scan(page, "3830001234567").await;
            page.text_when("#lines", |t| t.contains("Ujë")).await;
            page.click("#pay").await;
            page.click("#pay-confirm").await;
            printer.wait_for(before + n + 1);
            page.text_when("#status", |t| t.contains("U printua")).await;
            let started: Value =
                page.client.execute("return window.tillTimings.pay.at(-1)", vec![]).await.unwrap();
            let at = printer.receipts()[before + n]
                .at
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_secs_f64()
                * 1000.0;
            figures.push(at - started.as_f64().unwrap());
        }
        let median = {
            let mut f = figures.clone();
            f.sort_by(f64::total_cmp);
            f[f.len() / 2]
        };
        println!(
            "till ({form}): pay to the printer's bytes, CIS answering {label}: median {median:.0} ms, p95 {:.0} ms over {} sales (load {})",
            p95(figures.clone()),
            figures.len(),
            load()
        );
        pay_ms.push(figures);
    }
    s.sim.mode("ok");
    let scans: Value = page.client.execute("return window.tillTimings.scan", vec![]).await.unwrap();
    let scans: Vec<f64> = scans.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    println!(
        "till ({form}): scan to line on screen: p95 {:.1} ms over {} scans (load {})",
        p95(scans.clone()),
        scans.len(),
        load()
    );
}

/// The day closed by notes and coins; one receipt for every document.
async fn close_the_day(s: &Shop<'_>) {
    let (page, printer, form) = (&s.page, &s.printer, s.form);
    let api = |p: &str| s.api(p);
    // The day, closed by notes and coins.
    page.click("#nav-day").await;
    page.text_when("#day-state", |t| t == "E hapur").await;
    // What the drawer should hold: the spec's balance less what was paid by card (and any
    // other method that never enters the drawer), as the owner's Today says.
    let balance = api_cents(&api("/api/v1/cash-register/balance")["balance"]);
    let day = api("/api/v1/owner/today")["tills"][0]["day"].clone();
    let elsewhere: i64 = day["not_in_drawer"].as_object().unwrap().values().map(api_cents).sum();
    assert!(elsewhere > 0, "the story paid by card: {day}");
    let drawer = api_cents(&day["expected"]);
    assert_eq!(drawer, balance - elsewhere, "the drawer is the balance less card: {day}");
    page.type_into("#den-1000", &(drawer / 100_000).to_string()).await;
    page.click("#close-form button[type=submit]").await;
    let expected = page.find("#close-expected").await.text().await.unwrap();
    assert_eq!(shown_cents(&expected), drawer, "the expected cash is what the drawer should hold");
    screen(page, form, "day").await;
    page.click("#confirm-close").await;
    page.text_when("#status", |t| t.starts_with("Dita u mbyll")).await;
    page.text_when("#day-state", |t| t == "E mbyllur").await;
    let today = api("/api/v1/owner/today");
    assert_eq!(today["tills"][0]["day"]["state"], "closed");
    assert_eq!(
        printer.receipts().len(),
        28,
        "one receipt per sale, the summary, the corrective document and the copy"
    );
}

/// The server killed with `kill -9` while a payment waits for the CIS: the till sends the same
/// internalId again until the server is back, reads the sale it had saved, and prints it once.
#[test]
fn a_payment_cut_by_kill_9_is_retried_with_its_internal_id_and_prints_one_receipt() {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| {
        args.limits = format!("{ROOMY_LIMITS};print=600/m").parse().unwrap();
    });
    let printer = TestPrinter::start();
    let owner = Some(till.token.clone());
    let path = format!("/api/v1/printers/{}", till.tcr_code);
    till.server
        .put_json(
            &path,
            owner.as_deref(),
            &json!({"connection": "network", "address": printer.address.to_string()}),
        )
        .data(200);
    catalog(&till);
    // The day is open (its opening delivered), so the sale is the next document for the CIS.
    till.server
        .post_json("/api/v1/cash-register/open-balance", owner.as_deref(), &json!({"amount": 500}))
        .data(201);
    let card = till
        .server
        .post_json(&format!("/api/v1/users/{}/token", till.user_id), owner.as_deref(), &json!({}))
        .data(201)
        .clone();
    let token = card["user"]["token"].as_str().unwrap().to_string();
    let kept = till.server.stop_and_keep();
    let data_dir = kept.path().join("data");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let mut flags = sim.flags();
    flags.push(format!("--limits={ROOMY_LIMITS};print=600/m"));
    flags.push("--cis-wait=20".to_string());
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let mut server = crate::common::process::ServerProcess::start_on(&listen, &data_dir, &flags);

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1024, 768).await;
        page.client.goto(&format!("http://{listen}/#token={token}")).await.unwrap();
        page.find("button.product[data-code=\"K2\"]").await;
        page.click("button.product[data-code=\"K2\"]").await;
        // The CIS answers in 10 s: the sale is saved and waits for it when the server dies.
        sim.set_mode(json!({"mode": "slow", "delay_ms": 10_000}));
        page.click("#pay").await;
        page.click("#pay-confirm").await;
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        while !sim.requests().iter().any(|r| r["operation"] == "RegisterInvoice") {
            assert!(std::time::Instant::now() < deadline, "the sale never reached the CIS");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        server.kill();
        page.text_when("#status", |t| t.contains("po provoj përsëri")).await;
        sim.mode("ok");
        server = crate::common::process::ServerProcess::start_on(&listen, &data_dir, &flags);
        page.text_when("#status", |t| t.contains("U printua")).await;
        let listed: Value = serde_json::from_str(
            &ureq::get(&format!("http://{listen}/api/v2/invoice?limit=10"))
                .header("Authorization", &format!("Bearer {token}"))
                .call()
                .unwrap()
                .body_mut()
                .read_to_string()
                .unwrap(),
        )
        .unwrap();
        let sales = listed["data"]["items"].as_array().unwrap();
        assert_eq!(sales.len(), 1, "one sale: {listed}");
        assert_eq!(printer.receipts().len(), 1, "one receipt");
        let receipt = printer.wait_for(1);
        assert!(receipt.text().contains(sales[0]["number"].as_str().unwrap()));
        assert_eq!(receipt.drawer_pulses, 1);
        page.stop().await;
    });
    drop(server);
}
