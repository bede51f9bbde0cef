//! The owner's page in a real browser (Debian's headless Chromium over WebDriver): the owner
//! signs in with the keyboard, two sales come in through the API and the page's totals are the
//! API's, the day is opened and closed through the page with the count checked against what is
//! expected, an invoice opens with its PDF, the reports in words carry the API's figures, and the
//! screens are saved at desktop and phone width: under the target dir, or into the directory
//! `ARKA_SCREENSHOTS` names (`ARKA_SCREENSHOTS=docs/screenshots` refreshes the README's and the docs').

use std::path::PathBuf;

use crate::common::browser::Browser;
use crate::common::sim::SimServer;
use crate::common::till::*;
use fantoccini::key::Key;
use serde_json::{Value, json};

/// Where the screens are saved: `ARKA_SCREENSHOTS` (relative to the crate), else target/tmp, so
/// that a plain `cargo test` leaves the committed screenshots alone.
fn screenshots() -> PathBuf {
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

fn keys(key: Key) -> String {
    char::from(key).to_string()
}

#[test]
fn the_owner_signs_in_checks_the_days_totals_and_opens_and_closes_the_day_in_a_browser() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1280, 900).await;
        page.client.goto(&till.server.base_url()).await.unwrap();
        let state = sign_in_and_open_the_day(&page, &till).await;
        let (items, balance) = two_sales_on_the_days_totals(&page, &till).await;
        close_the_day(&page, &till, &balance, &state).await;
        the_cis_and_an_invoice(&page, &items).await;
        the_reports_in_words(&page, &till).await;
        a_phones_width(&page).await;
        sign_out(&page).await;
        page.stop().await;
    });
}

/// Albanian first; signing in takes the keyboard alone (the token, then Enter); the day opens
/// through the page with the float. Returns the selector of the till's state.
async fn sign_in_and_open_the_day(page: &Browser, till: &Till) -> String {
    assert_eq!(page.find("#signin h2").await.text().await.unwrap(), "Hyni");
    page.type_into("#token", &format!("{}{}", till.token, keys(Key::Enter))).await;
    page.find("#till-actions").await;
    let state = format!("[data-tcr=\"{}\"]", till.tcr_code);
    page.text_when(&state, |t| t == "E pahapur").await;

    // The day opens through the page with the float.
    page.type_into("#open-amount", "1000").await;
    page.click("#open-form button[type=submit]").await;
    page.text_when(&state, |t| t.starts_with("E hapur")).await;
    state
}

/// Two sales come in from the POS: the page's totals are the invoice list's, its cash the
/// balance's. Returns the invoices listed and the balance.
async fn two_sales_on_the_days_totals(page: &Browser, till: &Till) -> (Vec<Value>, Value) {
    let cash = |body: Value| {
        till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &body).data(201).clone()
    };
    cash(coffee_and_water("pos-1"));
    cash(json!({
        "internalId": "pos-2", "payment_method": "CARD",
        "lines": [{"product_name": "Ujë", "product_code": "U1", "unit": "copë", "quantity": 3, "price": 50.5, "total": 151.5, "vat": 6}],
    }));
    page.click("nav button[data-view=today]").await;
    let gross = page.text_when("#today-gross", |t| shown_cents(t) != 0).await;
    let listed = till.server.get("/api/v1/invoice?limit=100", Some(&till.token)).data(200).clone();
    let items = listed["items"].as_array().unwrap();
    let api_gross: i64 = items.iter().map(|i| api_cents(&i["amount"]["gross_all"])).sum();
    assert_eq!(shown_cents(&gross), api_gross, "the page's sales are the invoice list's");
    assert_eq!(api_gross, 28_500 + 15_150);
    let receipts = page.find("#today-receipts").await.text().await.unwrap();
    assert_eq!(receipts, items.len().to_string());
    let balance =
        till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"].clone();
    let shown_balance = page.find("#my-balance").await.text().await.unwrap();
    assert_eq!(shown_cents(&shown_balance), api_cents(&balance), "the till's cash is the API's balance");
    page.screenshot(&screenshots().join("today-desktop.png")).await;
    (items.clone(), balance)
}

/// The close: the page shows counted against expected and the difference before sending.
async fn close_the_day(page: &Browser, till: &Till, balance: &Value, state: &str) {
    page.type_into("#close-amount", "1430,00").await;
    page.click("#close-form button[type=submit]").await;
    let expected = page.find("#close-expected").await.text().await.unwrap();
    assert_eq!(shown_cents(&expected), api_cents(balance));
    assert_eq!(shown_cents(&page.find("#close-counted").await.text().await.unwrap()), 143_000);
    let difference = page.find("#close-difference").await.text().await.unwrap();
    assert_eq!(shown_cents(&difference), 143_000 - api_cents(balance));
    page.screenshot(&screenshots().join("close-desktop.png")).await;
    page.click("#confirm-close").await;
    let closed = page.text_when("#closed-difference", |t| !t.is_empty()).await;
    assert_eq!(shown_cents(&closed), 143_000 - api_cents(balance));
    let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
    assert_eq!(today["tills"][0]["day"]["state"], "closed", "the page closed the day");
    page.click("#dialog-close").await;
    page.text_when(state, |t| t.starts_with("E mbyllur")).await;
}

/// In English: the CIS screen, then the latest invoice opened with the keyboard, its PDF and the
/// cancellation's confirmation.
async fn the_cis_and_an_invoice(page: &Browser, items: &[Value]) {
    // English on the switch.
    page.click("#lang").await;
    page.text_when("nav button[data-view=today]", |t| t == "Today").await;

    // The CIS: online, nothing waiting, the certificate's expiry.
    page.click("nav button[data-view=cis]").await;
    page.text_when("#cis-connection h3", |t| t == "Online").await;
    assert_eq!(page.find("#cis-waiting").await.text().await.unwrap(), "0");
    page.find("#cis-certificate").await;
    page.screenshot(&screenshots().join("cis-desktop.png")).await;

    // Invoices, latest first; the first opens with the keyboard and shows its PDF.
    page.click("nav button[data-view=invoices]").await;
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
    page.screenshot(&screenshots().join("invoice-desktop.png")).await;
    // The cancellation asks first; the server answers it or says it does not offer it yet.
    page.click("#cancel-invoice").await;
    page.click("#confirm-cancel").await;
    page.text_when("#status", |t| {
        t.starts_with("The invoice is cancelled") || t == "This server does not offer cancellation yet."
    })
    .await;
}

/// Reports in words: the summary's, the VAT table's and the trend's figures are the API's for
/// the period the page shows, and no raw key of the answers is left on the screen.
async fn the_reports_in_words(page: &Browser, till: &Till) {
    page.click("nav button[data-view=reports]").await;
    let shown_gross = page.text_when("#rep-gross", |t| !t.is_empty()).await;
    let mut period = Vec::new();
    for field in ["from", "to"] {
        let value = page.find(&format!("#rep-{field}")).await.prop("value").await.unwrap().unwrap();
        period.push(format!("{field}={value}"));
    }
    let report = |name: &str| {
        let path = format!("/api/v1/reports/{name}?{}", period.join("&"));
        till.server.get(&path, Some(&till.token)).data(200).clone()
    };
    let (summary, vat, trend) = (report("sales-summary"), report("vat"), report("daily-trend"));
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
    let screen = page.find("#view-reports").await.text().await.unwrap();
    for raw in ["totals.", "by_kind", "by_payment", "by_currency", "taxable_base", "gross_all", "CASH"] {
        assert!(!screen.contains(raw), "the reports screen shows the raw key {raw:?}:\n{screen}");
    }
    // The whole screen in one picture: a taller window for the shot, then the usual one again.
    page.client.set_window_size(1280, 2200).await.unwrap();
    page.screenshot(&screenshots().join("reports-desktop.png")).await;
    page.client.set_window_size(1280, 900).await.unwrap();
}

/// A phone's width: the same page, the menu wrapped under the title; back to Albanian.
async fn a_phones_width(page: &Browser) {
    page.client.set_window_size(390, 844).await.unwrap();
    page.click("nav button[data-view=today]").await;
    page.find("#till-actions").await;
    let width: Value =
        page.client.execute("return document.documentElement.scrollWidth", vec![]).await.unwrap();
    assert!(width.as_i64().unwrap() <= 400, "nothing wider than the phone's screen: {width}");
    page.screenshot(&screenshots().join("today-phone.png")).await;
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
    page.screenshot(&screenshots().join("reports-phone.png")).await;
}

/// Signing out forgets the token.
async fn sign_out(page: &Browser) {
    page.click("#signout").await;
    page.find("#signin:not([hidden])").await;
    let kept: Value =
        page.client.execute("return sessionStorage.getItem('arka.token')", vec![]).await.unwrap();
    assert_eq!(kept, Value::Null);
}
