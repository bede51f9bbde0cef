//! The owner's page in a real browser (Debian's headless Chromium over WebDriver), from an empty
//! production server: the wizard (the setup code, the business, the owner, the certificate, the
//! unit, a till, a cashier with a pairing card, a test sale and its PDF), resumed after reloads;
//! signing in and out as people; then the cashier's day: two sales through the API and the page's
//! totals the API's, the day opened and closed through the page with the count checked against
//! what is expected, an invoice with its PDF, the reports in words carrying the API's figures.
//! The screens are saved at desktop and phone width: under the target dir, or into the directory
//! `ARKA_SCREENSHOTS` names (`ARKA_SCREENSHOTS=docs/screenshots` refreshes the README's and the docs').

use std::path::PathBuf;

use crate::common::TestServer;
use crate::common::browser::Browser;
use crate::common::people::{Browser as People, OWNER_EMAIL, OWNER_PASSWORD};
use crate::common::sim::SimServer;
use crate::common::till::coffee_and_water;
use arka::config::BoxPeers;
use fantoccini::key::Key;
use serde_json::{Value, json};
/// Where the screens are saved: `ARKA_SCREENSHOTS` (relative to the crate), else target/tmp, so
/// that a plain `cargo test` leaves the committed screenshots alone.
pub(crate) fn screenshots() -> PathBuf {
    match std::env::var_os("ARKA_SCREENSHOTS").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir),
        None => PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots"),
    }
}

/// A lek amount as the page shows it ("1 234.50", grouped with narrow spaces) in cents.
fn shown_cents(text: &str) -> i64 {
    let plain: String = text.chars().filter(|c| c.is_ascii_digit() || *c == '-').collect();
    plain.parse().unwrap_or_else(|_| panic!("not an amount: {text:?}"))
}

/// An amount of the API (a JSON number) in cents.
fn api_cents(value: &Value) -> i64 {
    (value.as_f64().unwrap_or_else(|| panic!("not a number: {value}")) * 100.0).round() as i64
}

thread_local! {
    /// The story's screen: "desktop" (1280 x 900) or "phone" (390 x 844), and its size.
    static FORM: std::cell::Cell<(&'static str, u32, u32)> = const { std::cell::Cell::new(("desktop", 1280, 900)) };
}

/// The story's screen, as `FORM` says.
pub(crate) fn form() -> (&'static str, u32, u32) {
    FORM.with(std::cell::Cell::get)
}

/// A screen of the story: saved as `<name>-<form>.png`, checked by axe-core, and on a phone
/// nothing wider than its screen.
pub(crate) async fn screen(page: &Browser, name: &str) {
    let (form, width, _) = form();
    page.screenshot(&screenshots().join(format!("{name}-{form}.png"))).await;
    page.axe(&format!("{name}-{form}")).await;
    // What reaches past the screen's right edge (a table scrolls in its own box), if anything.
    let past: Value = page
        .client
        .execute(
            "const w = document.documentElement.clientWidth;
             return [...document.querySelectorAll('body *')]
               .filter((e) => e.getBoundingClientRect().right > w + 1 && !e.closest('.scroll'))
               .map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
               .slice(0, 5);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(past, json!([]), "{name}: nothing wider than the screen ({width} px)");
}

pub(crate) fn keys(key: Key) -> String {
    char::from(key).to_string()
}

/// The cashier the wizard makes, as the rest of the story uses them.
pub(crate) struct Cashier<'a> {
    pub server: &'a TestServer,
    pub token: String,
    pub tcr_code: String,
}

const CASHIER_EMAIL: &str = "besa@dyqani-ana.al";
pub(crate) const CASHIER_PASSWORD: &str = "Besa-shet-mire-7";
const MANAGER_PASSWORD: &str = "Drita-numeron-arken-9";

#[test]
fn from_an_empty_production_server_to_a_closed_day_in_a_browser() {
    story("desktop", 1280, 900);
}

#[test]
fn from_an_empty_production_server_to_a_closed_day_on_a_phone() {
    story("phone", 390, 844);
}

/// The whole story on one server, in a browser window `width` x `height` (`form` names it).
fn story(form: &'static str, width: u32, height: u32) {
    FORM.with(|f| f.set((form, width, height)));
    let sim = SimServer::start();
    let server = TestServer::start_with(|args| {
        args.setup_from_box = BoxPeers::None;
        sim.configure(args);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(width, height).await;
        // Chromium starts no narrower than 500 px: the phone's width is set once it runs.
        page.client.set_window_size(width, height).await.unwrap();
        page.client.goto(&server.base_url()).await.unwrap();
        let mut cashier = crate::owner_wizard::the_wizard(&page, &server).await;
        crate::owner_console::the_products(&page, &server).await;
        crate::owner_console::the_administration(&page, &server, &mut cashier).await;
        signing_in_as_people(&page, &server).await;
        let state = open_the_day(&page, &cashier).await;
        let (items, _) = two_sales_on_the_days_totals(&page, &cashier).await;
        let expected = cash_in_and_out_and_the_x_report(&page, &cashier).await;
        let counted = close_the_day(&page, &cashier, &expected, &state).await;
        an_invoice(&page, &items, &server, &cashier.token).await;
        the_owner_signs_in(&page).await;
        five_thousand_in_english(&page, &server).await;
        two_tills_closed_by_a_manager(&page, &server, &cashier, &counted).await;
        the_cis(&page).await;
        the_reports_in_words(&page).await;
        if form == "desktop" {
            a_phones_width(&page).await;
        }
        the_audit_trail(&page, &server).await;
        sign_out(&page).await;
        page.stop().await;
    });
}

/// Sign-in as people: the owner signs out, a wrong password is said beside the field, a guess that
/// must wait with its seconds, the cashier (whose password the owner set) signs in with the
/// keyboard alone.
async fn signing_in_as_people(page: &Browser, server: &TestServer) {
    page.click("#signout").await;
    page.find("#signin-form").await;
    assert_eq!(page.find("#signin h2").await.text().await.unwrap(), "Hyni");
    let kept: Value = page
        .client
        .execute("return [localStorage.length, sessionStorage.length, document.cookie]", vec![])
        .await
        .unwrap();
    assert_eq!(kept, json!([1, 0, ""]), "only the language is stored; the cookie is HttpOnly");
    page.type_into("#signin-email", CASHIER_EMAIL).await;
    page.type_into("#signin-password", &format!("wrong-password{}", keys(Key::Enter))).await;
    let said = page.text_when("#signin-password-error", |t| !t.is_empty()).await;
    assert_eq!(said, "E-maili ose fjalëkalimi është i gabuar.");
    screen(page, "signin").await;
    page.axe("signin refused").await;
    // Guesses at one e-mail from this address are slowed, longer each time (a minute between
    // them on the server's clock): the page says how long the next one waits.
    for n in 0..8 {
        let body = json!({"email": "mira@dyqani-ana.al", "password": "not-hers-at-all"});
        server.post_json("/api/v1/session", None, &body).assert_error(401);
        if n < 7 {
            server.advance_clock(std::time::Duration::from_secs(60));
        }
    }
    page.type_into("#signin-email", "mira@dyqani-ana.al").await;
    page.type_into("#signin-password", &format!("not-hers-at-all{}", keys(Key::Enter))).await;
    let said = page.text_when("#signin-password-error", |t| t.contains("Provoni")).await;
    assert!(
        said.starts_with("Shumë përpjekje të gabuara për këtë e-mail nga kjo pajisje. Provoni përsëri pas ")
            && said.ends_with(" s."),
        "{said}"
    );
    page.sign_in(CASHIER_EMAIL, CASHIER_PASSWORD).await;
    page.text_when("#who", |t| t == "Besa Kola · Arkëtar").await;
    // A cashier's menu has no CIS queue, reports or administration: the server refuses them.
    let hidden: Value = page
        .client
        .execute(
            "return ['cis', 'reports', 'audit', 'admin', 'setup'].map((v) => document.querySelector(`nav button[data-view=${v}]`).hidden)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(hidden, json!([true, true, true, true, true]), "the cashier's menu");
    // The catalog to read, with the stock: no form the server refuses a cashier. The view is
    // rendered again for the cashier once the catalog arrives: what it offers is read until then.
    page.click("nav button[data-view=products]").await;
    page.text_when("#product-list", |t| t.contains("Ujë")).await;
    let deadline = std::time::Instant::now() + crate::common::browser::PAGE_WAIT;
    let mut offered = Value::Null;
    while offered != json!([0, 0, 0]) && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        offered = page
            .client
            .execute("return ['#product-form-new', '[data-edit]', '#import-form'].map((s) => document.querySelectorAll(s).length)", vec![])
            .await
            .unwrap();
    }
    assert_eq!(offered, json!([0, 0, 0]), "a cashier is offered no new product, no change, no import");
    page.click("nav button[data-view=today]").await;
    page.find("#till-actions").await;
}

/// The wizard's test sale opened the day by itself with nothing in the drawer: the float goes in
/// through the page. Returns the selector of the till's state.
async fn open_the_day(page: &Browser, cashier: &Cashier<'_>) -> String {
    let state = format!("[data-tcr=\"{}\"]", cashier.tcr_code);
    page.text_when(&state, |t| t.starts_with("E hapur")).await;
    // The day is open: the page offers its float, not "Hap ditën".
    let actions = page.find("#till-actions").await.text().await.unwrap();
    assert!(!actions.contains("Hap ditën") && actions.contains("Vendos fondin fillestar"), "{actions}");
    // "1.000" reads two ways: one thousand lek (the Albanian reading, first) or one.
    page.type_into("#open-amount", "1.000").await;
    page.click("#open-form button[type=submit]").await;
    let asked = page.text_when("#open-amount-question", |t| !t.is_empty()).await;
    assert!(
        asked.contains("«1.000»") && asked.contains("1\u{202f}000,00 lekë") && asked.contains("1,00 lekë"),
        "{asked}"
    );
    screen(page, "amount-question").await;
    page.click("#open-amount-question [data-reading=\"100000\"]").await;
    page.text_when("#status", |t| t.starts_with("Fondi fillestar u vendos.")).await;
    // The float is in: nothing to open is offered any more.
    page.text_when("#till-actions", |t| !t.contains("Vendos fondin fillestar")).await;
    let reply = cashier.server.get("/api/v1/cash-register/balance", Some(&cashier.token));
    let balance = api_cents(&reply.data(200)["balance"]);
    assert_eq!(balance, 100_000 + 1_000, "the float and the test sale");
    let shown = page.text_when("#my-balance", |t| shown_cents(t) == 101_000).await;
    assert_eq!(shown_cents(&shown), balance);
    state
}

/// Two sales come in from the POS: the page's totals are the invoice list's, its cash the
/// balance's. Returns the invoices listed and the balance.
async fn two_sales_on_the_days_totals(page: &Browser, till: &Cashier<'_>) -> (Vec<Value>, Value) {
    let cash = |body: Value| {
        till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &body).data(201).clone()
    };
    cash(coffee_and_water("pos-1"));
    cash(json!({
        "internalId": "pos-2", "payment_method": "CARD",
        "lines": [{"product_name": "Ujë", "product_code": "U1", "unit": "copë", "quantity": 3, "price": 50.5, "total": 151.5, "vat": 6}],
    }));
    page.click("nav button[data-view=today]").await;
    let listed = till.server.get("/api/v1/invoice?limit=100", Some(&till.token)).data(200).clone();
    let items = listed["items"].as_array().unwrap();
    let api_gross: i64 = items.iter().map(|i| api_cents(&i["amount"]["gross_all"])).sum();
    // The view may still show the day before the two sales (the wizard's test sale) until its
    // refresh answers: wait for the list's total, which fails naming what it showed.
    let gross = page.text_when("#today-gross", |t| shown_cents(t) == api_gross).await;
    assert_eq!(shown_cents(&gross), api_gross, "the page's sales are the invoice list's");
    assert_eq!(api_gross, 28_500 + 15_150 + 1_000, "the two sales and the wizard's test sale");
    let receipts = page.find("#today-receipts").await.text().await.unwrap();
    assert_eq!(receipts, items.len().to_string());
    let balance =
        till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"].clone();
    let shown_balance = page.find("#my-balance").await.text().await.unwrap();
    assert_eq!(shown_cents(&shown_balance), api_cents(&balance), "the till's cash is the API's balance");
    screen(page, "today").await;
    (items.clone(), balance)
}

/// The close: the page shows counted against what the drawer should hold and the difference
/// before sending, then sends the count by notes and coins. Returns the ids of the documents the
/// count covered.
async fn close_the_day(page: &Browser, till: &Cashier<'_>, expected: &Value, state: &str) -> Vec<i64> {
    // Counted by denomination: a 1000 note, two 200 notes, two 20 coins.
    page.click("#denominations summary").await;
    // The 11 notes and coins are a grid: several to a row, at either width.
    let rows: Value = page
        .client
        .execute(
            "const tops = [...document.querySelectorAll('#denominations input')].map((i) => Math.round(i.getBoundingClientRect().top));
             return [tops.length, new Set(tops).size];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(rows[0], 11, "five notes and six coins");
    assert!(
        rows[1].as_i64().unwrap() <= 6,
        "the count's fields are a grid, not one long column: {rows} (fields, rows)"
    );
    for (value, count) in [(1000, "1"), (200, "2"), (20, "2")] {
        page.type_into(&format!("#den-{value}"), count).await;
    }
    let counted = page.text_when("#den-total", |t| shown_cents(t) == 144_000).await;
    assert_eq!(
        page.find("#close-amount").await.prop("value").await.unwrap().as_deref(),
        Some("1\u{202f}440,00"),
        "{counted}"
    );
    page.click("#close-form button[type=submit]").await;
    let shown = page.find("#close-expected").await.text().await.unwrap();
    assert_eq!(shown_cents(&shown), api_cents(expected));
    assert_eq!(shown_cents(&page.find("#close-counted").await.text().await.unwrap()), 144_000);
    let difference = page.find("#close-difference").await.text().await.unwrap();
    assert_eq!(shown_cents(&difference), 144_000 - api_cents(expected));
    assert_eq!(shown_cents(&difference), -500, "five lek are missing, the card's money is not asked for");
    screen(page, "close").await;
    page.click("#confirm-close").await;
    let closed = page.text_when("#closed-difference", |t| !t.is_empty()).await;
    assert_eq!(shown_cents(&closed), -500);
    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    assert_eq!(today["tills"][0]["day"]["state"], "closed", "the page closed the day");
    let day = today["business_day"].as_str().unwrap();
    let z = till.server.get(
        &format!("/api/v1/reports/cash-register/closing?from={day}&to={day}&tcr={}", till.tcr_code),
        Some(&till.token),
    );
    let z = z.data(200)["items"][0].clone();
    assert_eq!(api_cents(&z["difference"]), -500, "the API's Z report");
    assert_eq!(z["denominations"], json!({"1000": 1, "200": 2, "20": 2}), "the count as the page made it");
    assert_eq!(z["not_in_drawer"], json!({"CARD": 151.5}));
    // The Z report as an 80 mm PDF, in the page.
    page.click("#day-pdf-receipt").await;
    let frame = page.find("iframe.day-pdf.receipt").await;
    assert!(frame.attr("src").await.unwrap().unwrap().starts_with("blob:"));
    page.click("#dialog-close").await;
    page.text_when(state, |t| t.starts_with("E mbyllur")).await;
    let listed = till.server.get("/api/v1/invoice?limit=100", Some(&till.token)).data(200).clone();
    listed["items"].as_array().unwrap().iter().map(|i| i["id"].as_i64().unwrap()).collect()
}

/// A deposit and a withdrawal, each with its reason (none is refused beside the field), then the
/// X report of the till: its figures are the API's, its expected cash the drawer's (the card sale
/// named apart). Returns what the drawer should hold.
async fn cash_in_and_out_and_the_x_report(page: &Browser, till: &Cashier<'_>) -> Value {
    page.type_into("#deposit-amount", "200").await;
    page.click("#deposit-form button[type=submit]").await;
    let said = page.text_when("#deposit-description-error", |t| !t.is_empty()).await;
    assert_eq!(said, "Shkruani arsyen.");
    page.type_into("#deposit-description", "Kusur nga banka").await;
    page.click("#deposit-form button[type=submit]").await;
    page.text_when("#status", |t| t.starts_with("Paratë u futën.")).await;
    page.type_into("#withdraw-amount", "50").await;
    page.type_into("#withdraw-description", &format!("Blerje qumësht{}", keys(Key::Enter))).await;
    page.text_when("#status", |t| t.starts_with("Paratë u nxorën.")).await;
    let actions = till.server.get("/api/v1/cash-register/actions", Some(&till.token)).data(200).clone();
    let reasons: Vec<&str> =
        actions["items"].as_array().unwrap().iter().filter_map(|a| a["description"].as_str()).collect();
    assert!(reasons.contains(&"Kusur nga banka") && reasons.contains(&"Blerje qumësht"), "{reasons:?}");
    five_thousand_in_albanian(page, till).await;

    let balance =
        till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"].clone();
    assert_eq!(
        api_cents(&balance),
        101_000 + 28_500 + 15_150 + 20_000 - 5_000,
        "float, test sale, the two sales (cash receipts, whatever the payment), in, out"
    );
    // What the drawer should hold, from the documents the API lists and the till's actions: the
    // banknotes, not the card's 151.50, which the spec's balance counts.
    let expected = drawer_from_documents(till.server, &till.token, &[]);
    assert_eq!(expected, api_cents(&balance) - 15_150);
    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    assert_eq!(api_cents(&today["tills"][0]["day"]["expected"]), expected, "the API's drawer");
    page.click(&format!("[data-x-report=\"{}\"]", till.tcr_code)).await;
    let shown = page.text_when("#report-expected", |t| !t.is_empty()).await;
    assert_eq!(shown_cents(&shown), expected, "the X report's expected cash is the drawer's");
    let apart = page.find("#report-not-in-drawer").await.text().await.unwrap();
    assert_eq!(apart, "Kartë 151,50", "card sales named apart, never expected in the drawer");
    screen(page, "x-report").await;
    page.click("#dialog-close").await;
    let shown = page.text_when("#drawer-expected", |t| shown_cents(t) == expected).await;
    assert_eq!(shown_cents(&shown), expected, "Today's drawer");
    json!(expected as f64 / 100.0)
}

/// What a till's drawer should hold, in cents, read from the API's own lists as an accountant
/// would: the actions since its last close (newest first, up to the closing withdrawal) and the
/// banknote payments of its documents but those counted at that close (`counted`: their ids),
/// a sale's in, a corrective document's out.
fn drawer_from_documents(server: &TestServer, token: &str, counted: &[i64]) -> i64 {
    let actions = server.get("/api/v1/cash-register/actions?limit=100", Some(token)).data(200).clone();
    let mut cents = 0;
    for action in actions["items"].as_array().unwrap() {
        if action["description"] == "Closing of the day" {
            break;
        }
        let amount = api_cents(&action["amount"]);
        cents += if action["action_type"] == "MONEY_OUT" { -amount } else { amount };
    }
    let items = server.get("/api/v2/invoice?limit=100", Some(token)).data(200)["items"].clone();
    for item in items.as_array().unwrap().iter().filter(|i| !counted.contains(&i["id"].as_i64().unwrap())) {
        for payment in item["payment_methods"].as_array().unwrap().iter().filter(|p| p["type"] == "BANKNOTE")
        {
            cents += api_cents(&payment["amount"]);
        }
    }
    cents
}

/// The till's cash as the API has it, in cents.
fn till_cents(till: &Cashier<'_>) -> i64 {
    api_cents(&till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"])
}

/// "5.000" on the Albanian page reads two ways, five thousand lek (the page language's reading,
/// offered first) or five: the page asks before moving the money, and the API keeps the amount
/// chosen; a withdrawal of as much takes it out again. A refusal, the page's or the server's, is
/// said beside the form in Albanian and the status line no longer says the last success.
async fn five_thousand_in_albanian(page: &Browser, till: &Cashier<'_>) {
    let before = till_cents(till);
    page.type_into("#deposit-amount", "5.000").await;
    page.type_into("#deposit-description", "Kusur i madh nga banka").await;
    page.click("#deposit-form button[type=submit]").await;
    let asked = page.text_when("#deposit-amount-question", |t| !t.is_empty()).await;
    let (thousands, five) = (asked.find("5\u{202f}000,00 lekë"), asked.find("5,00 lekë"));
    assert!(thousands.is_some() && thousands < five, "both readings, the Albanian first: {asked}");
    assert_eq!(till_cents(till), before, "nothing moves before the answer");
    page.click("#deposit-amount-question [data-reading=\"500000\"]").await;
    page.text_when("#status", |t| t.starts_with("Paratë u futën.")).await;
    let actions = till.server.get("/api/v1/cash-register/actions", Some(&till.token)).data(200).clone();
    let deposit = actions["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["description"] == "Kusur i madh nga banka")
        .unwrap();
    assert_eq!(api_cents(&deposit["amount"]), 500_000, "the API's deposit is the reading chosen: {deposit}");
    assert_eq!(till_cents(till), before + 500_000);

    // More than two decimals of lek: refused beside the field before anything is sent.
    page.type_into("#withdraw-amount", "12,3456").await;
    page.type_into("#withdraw-description", "Provë").await;
    page.click("#withdraw-form button[type=submit]").await;
    let said = page.text_when("#withdraw-amount-error", |t| !t.is_empty()).await;
    assert_eq!(said, "Lekët kanë deri në dy shifra pas presjes.");
    assert_eq!(
        page.find("#status").await.text().await.unwrap(),
        "",
        "the deposit's success is not said of this"
    );
    // More than the drawer holds: the server's refusal, in Albanian, at the top of the form.
    page.type_into("#withdraw-amount", "999 999").await;
    page.click("#withdraw-form button[type=submit]").await;
    let said = page.text_when("#withdraw-form .form-error", |t| !t.is_empty()).await;
    assert!(said.starts_with("Nuk ka mjaftueshëm para në arkë: gjendja është "), "{said}");
    assert_eq!(page.find("#status").await.text().await.unwrap(), "");
    screen(page, "refused-withdrawal").await;
    page.type_into("#withdraw-amount", "5.000").await;
    page.type_into("#withdraw-description", "Te banka").await;
    page.click("#withdraw-form button[type=submit]").await;
    page.click("#withdraw-amount-question [data-reading=\"500000\"]").await;
    page.text_when("#status", |t| t.starts_with("Paratë u nxorën.")).await;
    assert_eq!(till_cents(till), before, "five thousand in, five thousand out");
}

/// In English, the cashier: the latest invoice opened with the keyboard, its PDF and the
/// cancellations (their own sales of the day).
async fn an_invoice(page: &Browser, items: &[Value], server: &TestServer, token: &str) {
    // English on the switch.
    page.click("#lang").await;
    page.text_when("nav button[data-view=today]", |t| t == "Today").await;

    // Invoices, latest first; the first opens with the keyboard and shows its PDF.
    page.click("nav button[data-view=invoices]").await;
    invoices_at_this_width(page).await;
    let first = page.find("button[data-invoice]").await;
    assert_eq!(first.attr("data-invoice").await.unwrap(), items[0]["id"].as_i64().map(|i| i.to_string()));
    first.send_keys(&keys(Key::Enter)).await.unwrap();
    let details_gross = page.find("#details-gross").await.text().await.unwrap();
    assert_eq!(shown_cents(&details_gross), api_cents(&items[0]["amount"]["gross"]));
    page.click("#pdf-receipt").await;
    let frame = page.find("iframe.pdf.receipt").await;
    assert!(
        frame.attr("src").await.unwrap().unwrap().starts_with("blob:"),
        "the PDF is the API's, fetched with the token"
    );
    screen(page, "invoice").await;

    // Part of it given back: more than was sold is refused beside the line, then one water.
    page.type_into("#cancel-q-0", &format!("5{}", keys(Key::Enter))).await;
    page.client.accept_alert().await.unwrap();
    let said = page.text_when("#cancel-q-0-error", |t| !t.is_empty()).await;
    assert!(said.contains('3'), "what remains is said: {said}");
    page.type_into("#cancel-q-0", &format!("1{}", keys(Key::Enter))).await;
    page.client.accept_alert().await.unwrap();
    let said = page.text_when("#status", |t| t.starts_with("The invoice is cancelled")).await;
    let corrective = said.rsplit(' ').next().unwrap().to_string();
    let listed = server.get("/api/v1/invoice?limit=100", Some(token)).data(200)["items"].clone();
    let first = &listed[0];
    assert_eq!(first["number"], corrective.as_str(), "the page names the corrective document");
    assert_eq!(api_cents(&first["amount"]["gross"]), -5_050, "one water of 50.50 given back");

    // The list says the invoice is part cancelled, with what remains: the API's figure.
    page.text_when("#view-invoices table", |t| t.contains(&corrective)).await;
    let part = listed.as_array().unwrap().iter().find(|i| i["id"] == items[0]["id"]).unwrap()["cancellation"]
        .clone();
    assert_eq!(part["state"], "partial", "{part}");
    assert_eq!(api_cents(&part["remaining"]), 15_150 - 5_050);
    let state = format!("[data-state=\"{}\"]", items[0]["id"]);
    let said = page.text_when(&state, |t| t.starts_with("part cancelled")).await;
    assert_eq!(said, "part cancelled · remaining 101.00 ALL");

    // The whole of the other sale, after a confirmation.
    page.click(&format!("button[data-invoice=\"{}\"]", items[1]["id"])).await;
    let number = items[1]["number"].as_str().unwrap();
    page.text_when("#dialog-title", |t| t.ends_with(number)).await;
    page.click("#cancel-invoice").await;
    page.find("#confirm-cancel").await;
    page.axe("cancel-confirmation").await;
    page.click("#confirm-cancel").await;
    page.text_when("#status", |t| t.starts_with("The invoice is cancelled") && !t.ends_with(&corrective))
        .await;
    let listed = server.get("/api/v1/invoice?limit=100", Some(token)).data(200)["items"].clone();
    assert_eq!(api_cents(&listed[0]["amount"]["gross"]), -api_cents(&items[1]["amount"]["gross"]));
    let whole =
        listed.as_array().unwrap().iter().find(|i| i["id"] == items[1]["id"]).unwrap()["cancellation"]
            .clone();
    assert_eq!(whole["state"], "whole", "{whole}");
    page.text_when(&format!("[data-state=\"{}\"]", items[1]["id"]), |t| t == "cancelled").await;
}

/// Reports in words: the summary's, the VAT table's and the trend's figures are the API's for
/// the period the page shows, and no raw key of the answers is left on the screen.
async fn the_reports_in_words(page: &Browser) {
    page.click("nav button[data-view=reports]").await;
    let shown_gross = page.text_when("#rep-gross", |t| !t.is_empty()).await;
    let mut period = Vec::new();
    for field in ["from", "to"] {
        let value = page.find(&format!("#rep-{field}")).await.prop("value").await.unwrap().unwrap();
        period.push(format!("{field}={value}"));
    }
    let report = |name: &str| format!("/api/v1/reports/{name}?{}", period.join("&"));
    let summary = page.api_data(&report("sales-summary")).await;
    let vat = page.api_data(&report("vat")).await;
    let trend = page.api_data(&report("daily-trend")).await;
    assert_eq!(shown_cents(&shown_gross), api_cents(&summary["totals"]["gross"]), "the summary's gross");
    assert_ne!(api_cents(&summary["totals"]["gross"]), 0, "the period holds the day's sales");
    let documents = page.find("#rep-documents").await.text().await.unwrap();
    assert_eq!(documents, summary["totals"]["documents"].to_string());
    let vat_gross = page.find("#vat-total-gross").await.text().await.unwrap();
    assert_eq!(shown_cents(&vat_gross), api_cents(&vat["totals"]["gross"]), "the VAT table's total");
    let vat_amount = page.find("#vat-total-vat").await.text().await.unwrap();
    assert_eq!(shown_cents(&vat_amount), api_cents(&vat["totals"]["vat"]));
    let trend_gross = page.find("#trend-total-gross").await.text().await.unwrap();
    assert_eq!(shown_cents(&trend_gross), api_cents(&trend["totals"]["gross"]), "the trend's total");
    page.find("#report-daily-trend figure.chart svg rect.bar").await;
    let by_kind = page.find("#rep-by-kind").await.text().await.unwrap();
    assert!(by_kind.contains("Cash invoices"), "document kinds in words: {by_kind}");
    let by_payment = page.find("#rep-by-payment").await.text().await.unwrap();
    assert!(by_payment.contains("Card"), "payment methods in words: {by_payment}");
    let shown = page.find("#view-reports").await.text().await.unwrap();
    for raw in ["totals.", "by_kind", "by_payment", "by_currency", "taxable_base", "gross_all", "CASH"] {
        assert!(!shown.contains(raw), "the reports screen shows the raw key {raw:?}:\n{shown}");
    }
    // The whole screen in one picture: a taller window for the shot, then the usual one again.
    let (_, width, height) = form();
    page.client.set_window_size(width, 2400).await.unwrap();
    screen(page, "reports").await;
    page.client.set_window_size(width, height).await.unwrap();
}

/// A phone's width: the same page, the menu wrapped under the title; back to Albanian.
async fn a_phones_width(page: &Browser) {
    page.client.set_window_size(390, 844).await.unwrap();
    page.click("nav button[data-view=today]").await;
    page.find("#till-actions").await;
    let width: Value =
        page.client.execute("return document.documentElement.scrollWidth", vec![]).await.unwrap();
    assert!(width.as_i64().unwrap() <= 400, "nothing wider than the phone's screen: {width}");
    page.axe("today at 390 px").await;
    page.click("nav button[data-view=reports]").await;
    page.text_when("#rep-gross", |t| !t.is_empty()).await;
    let width: Value =
        page.client.execute("return document.documentElement.scrollWidth", vec![]).await.unwrap();
    assert!(width.as_i64().unwrap() <= 400, "the reports fit the phone's screen: {width}");
    // Back to Albanian: the same reports in the page's first language.
    page.click("#lang").await;
    page.text_when("#report-sales-summary h3", |t| t.starts_with("Përmbledhja e shitjeve")).await;
    let by_kind = page.text_when("#rep-by-kind", |t| !t.is_empty()).await;
    assert!(by_kind.contains("Fatura me para në dorë"), "document kinds in Albanian: {by_kind}");
    page.client.set_window_size(390, 2400).await.unwrap();
    page.axe("reports at 390 px").await;
}

/// The audit trail (the owner signed in): the entries the API lists for the cancellations and
/// the day's close with their figures, filtered by action, a refused filter beside its field,
/// and the same list as CSV.
async fn the_audit_trail(page: &Browser, server: &TestServer) {
    let (_, width, height) = form();
    page.client.set_window_size(width, height).await.unwrap();
    let mut owner = crate::common::people::Browser::new(server);
    owner.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
    let figures: [(&str, i64, &[&str]); 3] = [
        ("invoice.cancel", 2, &["corrective", "total"]),
        ("day.close", 3, &["tcr", "counted", "difference"]),
        ("user.password", 2, &["passwordSetBy"]),
    ];
    the_audit_view(page, &owner, &figures).await;
}

/// A key of the audit trail as the page says it, in `lang`, with its value as the page writes it
/// (amounts in the language's decimal mark, a role in words).
fn audit_pair(key: &str, value: &str, lang: &str) -> String {
    let en = lang == "en";
    let words = match key {
        "corrective" => ["Dokumenti korrigjues", "Corrective document"],
        "total" => ["Totali", "Total"],
        "counted" => ["Numëruar", "Counted"],
        "difference" => ["Diferenca", "Difference"],
        "passwordSetBy" => ["Fjalëkalimi u vendos nga", "Password set by"],
        "tcr" => ["Arka", "Till"],
        other => panic!("no words for {other} in this story"),
    }[usize::from(en)];
    let shown = match key {
        "total" | "counted" | "difference" => page_amount(value, lang),
        "passwordSetBy" => ["Pronar", "Owner"][usize::from(en)].to_string(),
        _ => value.to_string(),
    };
    format!("{words}: {shown}")
}

/// An amount of the API ("-6.50", 1590) as the page writes it in `lang`: "-6,50", "1 590,00".
fn page_amount(value: &str, lang: &str) -> String {
    let cents =
        (value.parse::<f64>().unwrap_or_else(|_| panic!("not an amount: {value}")) * 100.0).round() as i64;
    let whole = (cents.abs() / 100).to_string();
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push('\u{202f}');
        }
        grouped.push(digit);
    }
    let mark = if lang == "en" { '.' } else { ',' };
    format!("{}{grouped}{mark}{:02}", if cents < 0 { "-" } else { "" }, cents.abs() % 100)
}

/// The Audit view (the owner signed in): newest first as the API lists them, then each action's
/// entries with the figures `after` names, `count` of them, in words (no key of the trail shown
/// as the API spells it, a person by name); the CSV; a refused filter.
pub(crate) async fn the_audit_view(page: &Browser, owner: &People<'_>, actions: &[(&str, i64, &[&str])]) {
    page.click("nav button[data-view=audit]").await;
    let all = owner.get("/api/v1/audit").data(200).clone();
    let newest = all["entries"][0]["id"].to_string();
    page.text_when("#audit-entries tbody [data-entry]", |_| true).await;
    let first: Value = page
        .client
        .execute("return document.querySelector('#audit-entries tbody [data-entry]').dataset.entry", vec![])
        .await
        .unwrap();
    assert_eq!(first.as_str(), Some(newest.as_str()), "newest first, as the API lists them");
    screen(page, "audit").await;
    for &(action, count, figures) in actions {
        page.find("#audit-action").await.select_by_value(action).await.unwrap();
        page.click("#audit-filters button[type=submit]").await;
        let listed = owner.get(&format!("/api/v1/audit?action={action}")).data(200).clone();
        let total = listed["total"].as_i64().unwrap();
        assert_eq!(total, count, "{action}: {listed}");
        page.text_when("#audit-shown", |t| t == format!("1–{total} / {total}")).await;
        let rows: Value = page
            .client
            .execute(
                "return [...document.querySelectorAll('#audit-entries tbody tr')].map((r) =>
                   [r.querySelector('[data-entry]').dataset.entry, r.querySelector('[data-action]').dataset.action, r.innerText]);",
                vec![],
            )
            .await
            .unwrap();
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len() as i64, total, "{action}: only its entries");
        let lang: Value = page.client.execute("return document.documentElement.lang", vec![]).await.unwrap();
        let lang = lang.as_str().unwrap();
        let users = owner.get("/api/v1/users").data(200)["items"].clone();
        for (row, entry) in rows.iter().zip(listed["entries"].as_array().unwrap()) {
            assert_eq!(row[0], entry["id"].to_string(), "the API's order");
            assert_eq!(row[1], action);
            let text = row[2].as_str().unwrap();
            assert!(text.contains(entry["at"].as_str().unwrap()) && !text.contains(action), "{text}");
            for &key in figures {
                let value = entry["after"][key].as_str().unwrap();
                let pair = audit_pair(key, value, lang);
                assert!(text.contains(&pair), "{action}'s {key} {value} as {pair:?}: {text}");
            }
            for side in ["before", "after"] {
                for key in entry[side].as_object().into_iter().flat_map(|o| o.keys()) {
                    assert!(
                        !text.contains(&format!("{key}:")),
                        "{action}: the trail's key {key} shown raw: {text}"
                    );
                }
            }
            if action.starts_with("user.") {
                let id = entry["object"].as_str().unwrap().parse::<i64>().unwrap();
                let name = users.as_array().unwrap().iter().find(|u| u["id"] == id).unwrap()["name"]
                    .as_str()
                    .unwrap();
                assert!(
                    text.contains(name) && !text.contains(&format!("\t{id}\t")),
                    "{action}: the person by name: {text}"
                );
            }
        }
    }
    // The CSV link carries the filter; the file is the route's.
    let href = page.find("#audit-csv").await.attr("href").await.unwrap().unwrap();
    let (last, count, _) = actions[actions.len() - 1];
    assert!(href.contains(&format!("action={last}")) && href.contains("format=csv"), "{href}");
    let csv = String::from_utf8(owner.get_bytes(&href)).unwrap();
    assert!(csv.starts_with("\u{feff}id,at,user_id") && csv.lines().count() as i64 == count + 1, "{csv}");
    // A period that ends before it starts: refused beside the field the route names.
    page.client
        .execute("document.getElementById('audit-from').value = '2030-01-02'; document.getElementById('audit-to').value = '2030-01-01';", vec![])
        .await
        .unwrap();
    page.click("#audit-filters button[type=submit]").await;
    let said = page.text_when("#audit-from-error", |t| !t.is_empty()).await;
    let lang: Value = page.client.execute("return document.documentElement.lang", vec![]).await.unwrap();
    let words = if lang == "en" {
        "The from date must not be after the to date."
    } else {
        "Data «Nga» nuk mund të jetë pas datës «Deri»."
    };
    assert_eq!(said, words, "the route's refusal in the page's words");
}

/// The cashier's day is done: the owner signs in for what a cashier may not see (the CIS's
/// queue, every till's reports) and does not do (another's cancellation past the day).
async fn the_owner_signs_in(page: &Browser) {
    page.click("#signout").await;
    page.find("#signin-form").await;
    page.sign_in(OWNER_EMAIL, OWNER_PASSWORD).await;
    page.text_when("#who", |t| t.ends_with("· Owner")).await;
}

/// The invoice list at the story's width: each filter's label over its own field, the type in
/// words, and on a phone every amount on the screen.
async fn invoices_at_this_width(page: &Browser) {
    page.find("button[data-invoice]").await;
    let (form, width, _) = form();
    let layout: Value = page
        .client
        .execute(
            "const place = (e) => e.getBoundingClientRect();
             const labels = [...document.querySelectorAll('#inv-filters label')].map((l) => {
               const [a, b] = [place(l), place(document.getElementById(l.htmlFor))];
               return [l.htmlFor, a.bottom <= b.top + 1 && Math.abs(a.left - b.left) < 2];
             });
             const rows = [...document.querySelectorAll('#view-invoices tbody tr')];
             return {
               labels,
               types: rows.map((r) => r.children[2].textContent),
               amounts: rows.map((r) => Math.round(place(r.querySelector('td.num')).right)),
               screen: document.documentElement.clientWidth,
             };",
            vec![],
        )
        .await
        .unwrap();
    for label in layout["labels"].as_array().unwrap() {
        assert_eq!(
            label[1], true,
            "{form}: the filter {} has its label over its own field: {layout}",
            label[0]
        );
    }
    assert_eq!(layout["labels"].as_array().unwrap().len(), 4);
    let types: Vec<&str> = layout["types"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert!(!types.is_empty() && types.iter().all(|t| *t == "Cash"), "{form}: the type in words: {types:?}");
    let screen = layout["screen"].as_i64().unwrap();
    for right in layout["amounts"].as_array().unwrap() {
        assert!(
            right.as_i64().unwrap() <= screen,
            "{form} ({width} px): an amount runs off the screen: {layout}"
        );
    }
}

/// The owner in English changes a price to "5.000": five lek with the English decimal point,
/// or five thousand as an Albanian writes it; the page asks, and the API keeps the choice.
async fn five_thousand_in_english(page: &Browser, server: &TestServer) {
    page.click("nav button[data-view=products]").await;
    page.type_into("#product-search", "kafe").await;
    page.click("[data-edit=KAFE]").await;
    page.type_into("#product-edit-1-price", &format!("5.000{}", keys(Key::Enter))).await;
    let asked = page.text_when("#product-edit-1-price-question", |t| !t.is_empty()).await;
    let (five, thousands) = (asked.find("5.00 lek"), asked.find("5\u{202f}000.00 lek"));
    assert!(five.is_some() && five < thousands, "both readings, the English first: {asked}");
    page.axe("amount question in English").await;
    page.click("#product-edit-1-price-question [data-reading=\"500000\"]").await;
    page.text_when("[data-price=KAFE]", |t| t == "5\u{202f}000.00").await;
    let mut owner = crate::common::people::Browser::new(server);
    owner.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
    let listed = owner.get("/api/v1/products").data(200).clone();
    let kafe = listed.as_array().unwrap().iter().find(|p| p["code"] == "KAFE").unwrap();
    assert_eq!(api_cents(&kafe["last_price"]), 500_000, "the API's price is the reading chosen: {kafe}");
}

/// Two tills closed by a manager. A second till sells through the API (a card sale among its
/// sales); the first till's next day, opened by the cancellations above and given its float,
/// starts from what its count left (nothing), not from the five lek counted short. A manager
/// signs in, sees both tills' days with what each drawer should hold (the API's figures, and the
/// documents'), picks each till, counts it by notes and coins and closes it; the audit trail
/// names each till and the manager.
async fn two_tills_closed_by_a_manager(
    page: &Browser,
    server: &TestServer,
    first: &Cashier<'_>,
    counted: &[i64],
) {
    let mut owner = People::new(server);
    owner.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
    let users = owner.get("/api/v1/users").data(200)["items"].clone();
    let branch = users.as_array().unwrap().iter().find_map(|u| u["branchId"].as_i64()).unwrap();
    let device = json!({"branchId": branch, "name": "Kasa 2", "fromDate": chrono::Utc::now().date_naive().to_string()});
    let second =
        owner.post("/api/v1/on-boarding/fiscal-device", &device).data(201)["device"]["fiscalTcrCode"]
            .as_str()
            .unwrap()
            .to_string();
    let body = json!({"name": "Arben Dida", "email": "arben@dyqani-ana.al", "branchId": branch, "fiscalTcrCode": second, "operatorCode": "ar123ar123"});
    let arben = owner.post("/api/v1/on-boarding/user", &body).data(201)["user"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let body = json!({"name": "Drita Leka", "email": "drita@dyqani-ana.al", "branchId": branch, "role": "manager", "operatorCode": "dr123dr123"});
    let manager = owner.post("/api/v1/on-boarding/user", &body).data(201)["user"]["id"].as_i64().unwrap();
    owner
        .post(&format!("/api/v1/users/{manager}/password"), &json!({"newPassword": MANAGER_PASSWORD}))
        .data(200);
    let sell = |token: &str, internal_id: &str, method: &str, price: u32| {
        let body = json!({
            "internalId": internal_id, "payment_method": method,
            "lines": [{"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 1, "price": price, "total": price, "vat": 20}],
        });
        server.post_json("/api/v1/invoice/cash", Some(token), &body).data(201);
    };
    sell(&arben, "k2-1", "BANKNOTE", 600);
    sell(&arben, "k2-2", "CARD", 300);
    // The first till's next day: its float, and a sale.
    server
        .post_json("/api/v1/cash-register/open-balance", Some(&first.token), &json!({"amount": 1000}))
        .data(201);
    sell(&first.token, "pos-3", "BANKNOTE", 240);
    let first_expected = drawer_from_documents(server, &first.token, counted);
    let second_expected = drawer_from_documents(server, &arben, &[]);
    assert_eq!(second_expected, 60_000, "till 2 opened by its first sale, with nothing in it");

    // The manager signs in and sees every till's day, the API's and the documents' figures.
    page.click("#signout").await;
    page.find("#signin-form").await;
    page.sign_in("drita@dyqani-ana.al", MANAGER_PASSWORD).await;
    page.text_when("#who", |t| t.ends_with("· Manager")).await;
    page.click("nav button[data-view=today]").await;
    let today = page.api_data("/api/v1/owner/today").await;
    for (tcr, documents) in [(&first.tcr_code, first_expected), (&second, second_expected)] {
        let till = today["tills"].as_array().unwrap().iter().find(|t| &t["fiscal_tcr_code"] == tcr).unwrap();
        assert_eq!(
            api_cents(&till["day"]["expected"]),
            documents,
            "{tcr}: the API's drawer is the documents'"
        );
        let shown = page.text_when(&format!("[data-expected=\"{tcr}\"]"), |t| !t.is_empty()).await;
        assert_eq!(shown_cents(&shown), documents, "{tcr} on the page");
    }
    let first_day = today["tills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["fiscal_tcr_code"] == first.tcr_code.as_str())
        .unwrap();
    assert_eq!(
        api_cents(&first_day["day"]["drawer"]["carried_over"]),
        0,
        "the count left nothing; the -5 stays on its day"
    );
    let apart = page.find(&format!("[data-not-in-drawer=\"{second}\"]")).await.text().await.unwrap();
    assert_eq!(apart, "Card 300.00");

    // Each till picked, counted by notes and coins and closed: till 2 exactly, till 1 exactly.
    for (tcr, expected) in [(second.as_str(), second_expected), (first.tcr_code.as_str(), first_expected)] {
        let pieces = denominations_of(expected);
        page.find("#till-pick").await.select_by_value(tcr).await.unwrap();
        page.text_when("#till-actions p", |t| t.contains(tcr)).await;
        let shown = page.text_when("#drawer-expected", |t| shown_cents(t) == expected).await;
        assert_eq!(shown_cents(&shown), expected);
        if tcr == second {
            page.client
                .execute("document.getElementById('till-actions').scrollIntoView()", vec![])
                .await
                .unwrap();
            screen(page, "two-tills").await;
        }
        page.click("#denominations summary").await;
        for (value, count) in &pieces {
            page.type_into(&format!("#den-{value}"), count).await;
        }
        page.text_when("#den-total", |t| shown_cents(t) == expected).await;
        page.click("#close-form button[type=submit]").await;
        assert_eq!(shown_cents(&page.find("#close-difference").await.text().await.unwrap()), 0);
        page.click("#confirm-close").await;
        let closed = page.text_when("#closed-difference", |t| !t.is_empty()).await;
        assert_eq!(shown_cents(&closed), 0, "{tcr}");
        page.click("#dialog-close").await;
        page.text_when(&format!("[data-tcr=\"{tcr}\"]"), |t| t.starts_with("Closed")).await;
    }
    let today = owner.get("/api/v1/owner/today").data(200).clone();
    for till in today["tills"].as_array().unwrap() {
        assert_eq!(till["day"]["state"], "closed", "{till}");
    }
    let closes = owner.get("/api/v1/audit?action=day.close").data(200).clone();
    let named: Vec<(&str, &str)> = closes["entries"].as_array().unwrap()[..2]
        .iter()
        .map(|e| (e["after"]["tcr"].as_str().unwrap(), e["role"].as_str().unwrap()))
        .collect();
    assert_eq!(named, [(first.tcr_code.as_str(), "manager"), (second.as_str(), "manager")], "newest first");
}

/// Lek notes and coins adding up to `cents` (whole lek), largest first, as typed into the count.
fn denominations_of(cents: i64) -> Vec<(i64, String)> {
    assert_eq!(cents % 100, 0, "a drawer of whole lek: {cents}");
    let mut left = cents / 100;
    let mut pieces = Vec::new();
    for value in [5000, 2000, 1000, 500, 200, 100, 50, 20, 10, 5, 1] {
        if left >= value {
            pieces.push((value, (left / value).to_string()));
            left %= value;
        }
    }
    pieces
}

/// The owner's CIS screen: online, nothing waiting, the certificate's expiry.
async fn the_cis(page: &Browser) {
    page.click("nav button[data-view=cis]").await;
    page.text_when("#cis-connection h3", |t| t == "Online").await;
    assert_eq!(page.find("#cis-waiting").await.text().await.unwrap(), "0");
    page.find("#cis-certificate").await;
    screen(page, "cis").await;
}

/// Signing out ends the session: a reload shows the sign-in again.
async fn sign_out(page: &Browser) {
    page.click("#signout").await;
    page.find("#signin-form").await;
    page.client.refresh().await.unwrap();
    page.find("#signin-form").await;
}
