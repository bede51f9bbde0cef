//! The owner's page in a real browser (Debian's headless Chromium over WebDriver): the owner
//! signs in with the keyboard, two sales come in through the API and the page's totals are the
//! API's, the day is opened and closed through the page with the count checked against what is
//! expected, an invoice opens with its PDF, and the screens are saved at desktop and phone width
//! into docs/screenshots/ (shown in the README).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::browser::{self, Browser};
use common::sim::SimServer;
use common::till::*;
use fantoccini::key::Key;
use serde_json::{Value, json};

fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots")
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
    if !browser::available() {
        eprintln!(
            "\n*** SKIPPED the browser story: {} or {} is missing. Install Debian's chromium and \
             chromium-driver (.ci/run does) to run it. ***\n",
            browser::CHROMIUM,
            browser::CHROMEDRIVER
        );
        return;
    }
    let sim = SimServer::start();
    let till = open_till(&sim);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1280, 900).await;
        page.client.goto(&till.server.base_url()).await.unwrap();

        // Albanian first; signing in takes the keyboard alone (the token, then Enter).
        assert_eq!(page.find("#signin h2").await.text().await.unwrap(), "Hyni");
        page.type_into("#token", &format!("{}{}", till.token, keys(Key::Enter))).await;
        page.find("#till-actions").await;
        let state = format!("[data-tcr=\"{}\"]", till.tcr_code);
        page.text_when(&state, |t| t == "E pahapur").await;

        // The day opens through the page with the float.
        page.type_into("#open-amount", "1000").await;
        page.click("#open-form button[type=submit]").await;
        page.text_when(&state, |t| t.starts_with("E hapur")).await;

        // Two sales come in from the POS.
        let cash = |body: Value| till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &body).data(201).clone();
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
        let balance = till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"].clone();
        let shown_balance = page.find("#my-balance").await.text().await.unwrap();
        assert_eq!(shown_cents(&shown_balance), api_cents(&balance), "the till's cash is the API's balance");
        page.screenshot(&screenshots().join("today-desktop.png")).await;

        // The close: the page shows counted against expected and the difference before sending.
        page.type_into("#close-amount", "1430,00").await;
        page.click("#close-form button[type=submit]").await;
        let expected = page.find("#close-expected").await.text().await.unwrap();
        assert_eq!(shown_cents(&expected), api_cents(&balance));
        assert_eq!(shown_cents(&page.find("#close-counted").await.text().await.unwrap()), 143_000);
        let difference = page.find("#close-difference").await.text().await.unwrap();
        assert_eq!(shown_cents(&difference), 143_000 - api_cents(&balance));
        page.screenshot(&screenshots().join("close-desktop.png")).await;
        page.click("#confirm-close").await;
        let closed = page.text_when("#closed-difference", |t| !t.is_empty()).await;
        assert_eq!(shown_cents(&closed), 143_000 - api_cents(&balance));
        let today = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone();
        assert_eq!(today["tills"][0]["day"]["state"], "closed", "the page closed the day");
        page.click("#dialog-close").await;
        page.text_when(&state, |t| t.starts_with("E mbyllur")).await;

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
        assert!(frame.attr("src").await.unwrap().unwrap().starts_with("blob:"), "the PDF is the API's, fetched with the token");
        page.screenshot(&screenshots().join("invoice-desktop.png")).await;
        // The cancellation asks first; the server answers it or says it does not offer it yet.
        page.click("#cancel-invoice").await;
        page.click("#confirm-cancel").await;
        page.text_when("#status", |t| {
            t.starts_with("The invoice is cancelled") || t == "This server does not offer cancellation yet."
        })
        .await;

        // Reports: each of the three answers, or says it is not offered yet.
        page.click("nav button[data-view=reports]").await;
        for report in ["sales-summary", "vat", "daily-trend"] {
            page.text_when(&format!("#report-{report}"), |t| t.lines().count() > 1).await;
        }
        page.screenshot(&screenshots().join("reports-desktop.png")).await;

        // A phone's width: the same page, the menu wrapped under the title.
        page.client.set_window_size(390, 844).await.unwrap();
        page.click("nav button[data-view=today]").await;
        page.find("#till-actions").await;
        let width: Value = page.client.execute("return document.documentElement.scrollWidth", vec![]).await.unwrap();
        assert!(width.as_i64().unwrap() <= 400, "nothing wider than the phone's screen: {width}");
        page.screenshot(&screenshots().join("today-phone.png")).await;

        // Signing out forgets the token.
        page.click("#signout").await;
        page.find("#signin:not([hidden])").await;
        let kept: Value = page.client.execute("return sessionStorage.getItem('arka.token')", vec![]).await.unwrap();
        assert_eq!(kept, Value::Null);
        page.stop().await;
    });
}
