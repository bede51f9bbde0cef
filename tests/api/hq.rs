//! Issue 30: a chain's head office (HQ) on PostgreSQL. Stories over real processes: the HQ is
//! the real `arka hq serve` on a database of its own in the cluster `.ci/postgres` started;
//! the shops are real servers with `--hq-url`, selling against the CIS simulator.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common;
use crate::common::hq::{Hq, around_today, hq_numbers, normalised, numbers_in, restore_from, sql, summed};
use crate::common::process::ServerProcess;
use crate::common::sim::SimServer;
use crate::common::till::{
    NUIS, ROOMY_LIMITS, Till, coffee_and_water, issuing_load, on_account, open_till_with, post_at_once,
    upload_certificate,
};
use crate::common::{eventually, pdftotext};
use serde_json::{Value, json};

/// A shop of the chain on a server of its own, shipping to `hq`.
fn shop_of(sim: &SimServer, hq: &Hq, name: &str) -> Till {
    shop_of_with(sim, hq, name, |_| {})
}

/// A shop of the chain with `more` settings of its own (the CA it trusts the HQ by).
fn shop_of_with(sim: &SimServer, hq: &Hq, name: &str, more: impl Fn(&mut arka::config::ServeArgs)) -> Till {
    let token = hq.add_shop(name);
    let url = hq.url();
    open_till_with(sim, move |args| {
        args.hq.hq_allow_http = url.starts_with("http://");
        args.hq.hq_url = Some(url);
        args.hq.hq_token = Some(token);
        args.metrics = true;
        more(args);
    })
}

/// The shop's backlog to the HQ as `/healthz`, `/metrics` and the owner's page each show it.
fn backlogs(till: &Till) -> (Value, i64, Value) {
    let health = till.server.get("/healthz", None).body["hq"].clone();
    let metrics = till.server.get("/metrics", None).text;
    let gauge = metrics
        .lines()
        .find_map(|l| l.strip_prefix("arka_hq_backlog "))
        .unwrap_or_else(|| panic!("no arka_hq_backlog in {metrics}"))
        .trim()
        .parse()
        .unwrap();
    let page = till.server.get("/api/v1/owner/today", Some(&till.token)).data(200)["hq"].clone();
    (health, gauge, page)
}

fn sell(till: &Till, internal_id: &str) -> Value {
    till.server
        .post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water(internal_id))
        .data(201)
        .clone()
}

/// The shop's own numbers of its documents, read in its database.
fn shop_numbers(till: &Till) -> BTreeSet<String> {
    let db = rusqlite::Connection::open(till.server.data_dir().join("arka.db")).unwrap();
    let mut stmt = db.prepare("SELECT number FROM invoices").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

fn shop_summary(till: &Till) -> Value {
    let (from, to) = around_today();
    till.server
        .get(&format!("/api/v1/reports/sales-summary?from={from}&to={to}"), Some(&till.token))
        .data(200)
        .clone()
}

fn hq_summary(hq: &Hq, shop: Option<&str>) -> Value {
    let (from, to) = around_today();
    let filter = shop.map(|s| format!("&shop={s}")).unwrap_or_default();
    let (status, body) = hq.get(&format!("/api/v1/reports/sales-summary?from={from}&to={to}{filter}"));
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// Every document of every shop at the HQ exactly once, and the HQ's sales summary the sum of
/// the shops' own, to the cent (and each shop's alone equal to its own).
fn assert_the_hq_holds_every_shop(hq: &Hq, shops: &[(&str, &Till)]) {
    for (name, till) in shops {
        let own = shop_numbers(till);
        eventually(&format!("{name}'s documents at the HQ"), Duration::from_secs(60), || {
            let held = hq_numbers(hq, name);
            held.len() == own.len() && held.iter().cloned().collect::<BTreeSet<_>>() == own
        });
        // A document's FIC comes in a later transaction than the document: it travels after it.
        eventually(&format!("{name}'s summary at the HQ"), Duration::from_secs(30), || {
            normalised(&hq_summary(hq, Some(name))) == normalised(&shop_summary(till))
        });
    }
    eventually("the chain's summary the sum of its shops'", Duration::from_secs(30), || {
        let own: Vec<Value> = shops.iter().map(|(_, till)| shop_summary(till)).collect();
        normalised(&hq_summary(hq, None)) == summed(&own)
    });
}

/// How long the HQ is away in the story of three shops selling without it: the issue's minute.
const HQ_AWAY: Duration = Duration::from_secs(60);

#[test]
fn three_shops_sell_while_the_hq_is_away_for_a_minute_and_it_ends_up_with_every_document_once() {
    let sim = SimServer::start();
    let mut hq = Hq::start();
    let names = ["tirana", "durres", "vlora"];
    let tills: Vec<Till> = names.iter().map(|name| shop_of(&sim, &hq, name)).collect();
    for (i, till) in tills.iter().enumerate() {
        for n in 0..3 {
            sell(till, &format!("before-{i}-{n}"));
        }
    }
    let shops: Vec<(&str, &Till)> = names.iter().copied().zip(tills.iter()).collect();
    assert_the_hq_holds_every_shop(&hq, &shops);

    // The HQ stops for a minute while the shops sell on, cancellations among the sales: each
    // shop's backlog and its age show on /healthz, /metrics and the owner's page, and it is
    // shipped once the HQ is back.
    hq.process.terminate();
    let away = std::time::Instant::now();
    let mut round = 0;
    while away.elapsed() < HQ_AWAY {
        for (i, till) in tills.iter().enumerate() {
            sell(till, &format!("away-{i}-{round}"));
            if round % 5 == 0 {
                let reversed = sell(till, &format!("reversed-{i}-{round}"));
                let id = reversed["invoice"]["id"].as_i64().unwrap();
                till.server
                    .post_json(&format!("/api/v1/invoice/cancel/{id}"), Some(&till.token), &json!({}))
                    .data(200);
            }
        }
        round += 1;
        // A selling shop's pace over the minute away: the outbox's age grows in real time.
        std::thread::sleep(Duration::from_secs(2).min(HQ_AWAY.saturating_sub(away.elapsed())));
    }
    for till in &tills {
        let (health, gauge, page) = backlogs(till);
        assert!(health["backlog"].as_i64().unwrap() > 0, "{health}");
        let age = HQ_AWAY.as_secs() as i64 - 5;
        assert!(
            health["oldest_age_seconds"].as_i64().unwrap() >= age,
            "the oldest waited the minute: {health}"
        );
        assert!(gauge > 0, "/metrics: {gauge}");
        assert!(page["backlog"].as_i64().unwrap() > 0, "the owner's page: {page}");
        assert!(page["oldest_age_seconds"].as_i64().unwrap() >= age, "{page}");
        assert!(page["oldest_noted_at"].is_string(), "{page}");
    }
    hq.start_again();
    assert_the_hq_holds_every_shop(&hq, &shops);
    assert_the_chains_reports_are_its_shops(&hq, &names, &tills);
    for till in &tills {
        eventually("the backlog shipped", Duration::from_secs(30), || {
            let (health, gauge, page) = backlogs(till);
            health["backlog"] == json!(0) && gauge == 0 && page["backlog"] == json!(0)
        });
    }
    let rows = sql(&hq.db.url, "SELECT COUNT(*), COUNT(DISTINCT (shop_id, id)) FROM invoices");
    assert_eq!(rows[0][0], rows[0][1], "no document twice");
}

/// A shop of the chain as the real binary over `data` (a till on-boarded before).
fn shop_process(sim: &SimServer, hq: &Hq, data: &std::path::Path, token: &str) -> ServerProcess {
    let mut flags: Vec<String> = sim.flags();
    flags.extend([
        format!("--limits={ROOMY_LIMITS}"),
        format!("--hq-url={}", hq.url()),
        format!("--hq-token={token}"),
        "--hq-allow-http".to_string(),
    ]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    ServerProcess::start(data, &flags)
}

fn summary_at(base_url: &str, token: &str) -> Value {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let (from, to) = around_today();
    let (status, body) = common::hq::get(
        &agent,
        &format!("{base_url}/api/v1/reports/sales-summary?from={from}&to={to}"),
        token,
    );
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// The HQ holds exactly the documents of the shop's database at `data`, each once, and, once
/// the last changes have travelled (a restarted shop delivers what waited for the CIS, and ships
/// it after), the shop's sales summary as `summary` reads it.
fn assert_the_hq_holds(hq: &Hq, shop: &str, data: &std::path::Path, summary: impl Fn() -> Value) {
    let own = numbers_in(data);
    eventually(&format!("{shop}'s documents at the HQ"), Duration::from_secs(60), || {
        let held = hq_numbers(hq, shop);
        held.len() == own.len() && held.into_iter().collect::<BTreeSet<_>>() == own
    });
    eventually(&format!("{shop}'s summary at the HQ"), Duration::from_secs(30), || {
        normalised(&hq_summary(hq, Some(shop))) == normalised(&summary())
    });
}

#[test]
fn a_kill_9_of_the_hq_and_of_the_shop_mid_batch_loses_nothing_and_doubles_nothing() {
    let sim = SimServer::start();
    let mut hq = Hq::start();
    let shop_token = hq.add_shop("korca");
    let till = {
        let (url, token) = (hq.url(), shop_token.clone());
        open_till_with(&sim, move |args| {
            args.hq.hq_url = Some(url);
            args.hq.hq_token = Some(token);
            args.hq.hq_allow_http = true;
        })
    };
    sell(&till, "warm-up");
    let token = till.token.clone();
    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");

    let mut shop = shop_process(&sim, &hq, &data, &shop_token);
    let stop = AtomicBool::new(false);
    let base_url = shop.base_url.clone();
    let acknowledged = std::thread::scope(|scope| {
        let load = scope.spawn(|| issuing_load(&base_url, &token, 4, 60, &stop));
        eventually("sales at the HQ", Duration::from_secs(60), || hq_numbers(&hq, "korca").len() >= 20);
        hq.process.kill();
        eventually("more sales while the HQ is dead", Duration::from_secs(60), || {
            numbers_in(&data).len() >= 60
        });
        hq.start_again();
        eventually("the HQ catching up", Duration::from_secs(60), || hq_numbers(&hq, "korca").len() >= 70);
        shop.kill();
        stop.store(true, Ordering::SeqCst);
        load.join().unwrap()
    });
    assert!(acknowledged.len() >= 60, "sales went on while the HQ was dead: {}", acknowledged.len());
    let shop = shop_process(&sim, &hq, &data, &shop_token);
    assert_the_hq_holds(&hq, "korca", &data, || summary_at(&shop.base_url, &token));
    let rows = sql(&hq.db.url, "SELECT COUNT(*), COUNT(DISTINCT iic) FROM invoices");
    assert_eq!(rows[0][0], rows[0][1], "no document twice");
    assert_eq!(rows[0][0].as_deref(), Some(numbers_in(&data).len().to_string().as_str()));
}

#[test]
fn a_shop_killed_for_good_mid_sale_comes_back_from_the_hq_on_a_new_box_and_sells_on() {
    let sim = SimServer::start();
    let hq = Hq::start();
    let shop_token = hq.add_shop("shkoder");
    let hq_args = |args: &mut arka::config::ServeArgs| {
        args.hq.hq_url = Some(hq.url());
        args.hq.hq_token = Some(shop_token.clone());
        args.hq.hq_allow_http = true;
    };
    let till = open_till_with(&sim, hq_args);
    sell(&till, "warm-up");
    let (token, tcr_code) = (till.token.clone(), till.tcr_code.clone());
    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");

    let mut shop = shop_process(&sim, &hq, &data, &shop_token);
    let stop = AtomicBool::new(false);
    let base_url = shop.base_url.clone();
    std::thread::scope(|scope| {
        let load = scope.spawn(|| issuing_load(&base_url, &token, 4, 100, &stop));
        eventually("sales at the HQ", Duration::from_secs(60), || hq_numbers(&hq, "shkoder").len() >= 30);
        shop.kill();
        stop.store(true, Ordering::SeqCst);
        load.join().unwrap();
    });
    // The killed shop's last batch, already sent, lands at the HQ: nothing to poll for.
    std::thread::sleep(Duration::from_secs(1));
    let held: BTreeSet<String> = hq_numbers(&hq, "shkoder").into_iter().collect();

    // A new box: an empty data dir filled from the HQ, then the certificate uploaded again.
    let mut new_box = common::TestServer::start_with(|args| {
        sim.configure(args);
        args.limits = ROOMY_LIMITS.parse().unwrap();
        hq_args(args);
    });
    new_box.restart_after(|dir| {
        let out = restore_from(&hq, &shop_token, dir);
        assert!(out.contains("upload the company's certificate again"), "{out}");
    });
    let restored = {
        let db = rusqlite::Connection::open(new_box.data_dir().join("arka.db")).unwrap();
        let mut stmt =
            db.prepare("SELECT ord_num FROM invoices WHERE tcr_code = ?1 ORDER BY ord_num").unwrap();
        stmt.query_map([&tcr_code], |r| r.get::<_, i64>(0)).unwrap().map(Result::unwrap).collect::<Vec<_>>()
    };
    assert_eq!(restored.len(), held.len(), "every document the HQ held");
    assert_eq!(restored, (1..=restored.len() as i64).collect::<Vec<_>>(), "gapless, each number once");
    let refused = new_box.post_json("/api/v1/invoice/cash", Some(&token), &coffee_and_water("after-no-cert"));
    assert_ne!(refused.status, 201, "no sale before the certificate is uploaded again: {}", refused.text);
    upload_certificate(&new_box, &token, NUIS, 365);
    // The restored till goes on on a new TCR (issue 43: the numbers after the HQ's last may be
    // at the CIS): its first receipt is 1 there.
    eventually("the till on its new TCR", Duration::from_secs(60), || {
        let today = new_box.get("/api/v1/owner/today", Some(&token)).data(200).clone();
        today["restored"]["retired_tcrs"][0]["continued_by"].is_string()
    });
    let next = new_box
        .post_json("/api/v1/invoice/cash", Some(&token), &coffee_and_water("after-restore"))
        .data(201)
        .clone();
    assert_eq!(next["invoice"]["number"], json!(format!("1/{}", chrono::Utc::now().format("%Y"))));
    // The new box ships on to the HQ, after what the HQ held.
    eventually("the new sale at the HQ", Duration::from_secs(30), || {
        hq_numbers(&hq, "shkoder").len() == held.len() + 1
    });
}

#[test]
fn postgresql_stopped_and_started_under_the_hq_costs_the_shops_nothing() {
    let cluster = common::hq::OwnCluster::start();
    let sim = SimServer::start();
    let hq = Hq::start_on(common::hq::TestDatabase::create_on(&cluster.url));
    let till = shop_of(&sim, &hq, "berat");
    for n in 0..3 {
        sell(&till, &format!("before-{n}"));
    }
    eventually("the first sales at the HQ", Duration::from_secs(30), || hq_numbers(&hq, "berat").len() == 3);

    cluster.stop();
    let (status, body) = hq.get("/healthz");
    assert_eq!((status, body["database"]["reachable"].clone()), (503, json!(false)), "{body}");
    for n in 0..5 {
        sell(&till, &format!("while-down-{n}"));
    }
    eventually("a backlog while the HQ's database is down", Duration::from_secs(10), || {
        till.server.get("/healthz", None).body["hq"]["backlog"].as_i64().unwrap() > 0
    });
    cluster.start_again();
    for n in 0..2 {
        sell(&till, &format!("after-{n}"));
    }
    assert_the_hq_holds_every_shop(&hq, &[("berat", &till)]);
    assert_eq!(hq.get("/healthz").0, 200);
}

/// The non-cash numbers (ord_num) of the shop's database.
fn noncash_numbers(till: &Till) -> Vec<i64> {
    let db = rusqlite::Connection::open(till.server.data_dir().join("arka.db")).unwrap();
    let mut stmt =
        db.prepare("SELECT ord_num FROM invoices WHERE kind = 'NONCASH' ORDER BY ord_num").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn two_shops_of_one_nuis_issuing_noncash_invoices_at_once_share_one_gapless_sequence() {
    let sim = SimServer::start();
    let mut hq = Hq::start();
    let first = shop_of(&sim, &hq, "elbasan-1");
    let second = shop_of(&sim, &hq, "elbasan-2");
    assert_eq!(first.account()["company"]["nuis"], second.account()["company"]["nuis"], "one business");

    let issue = |till: &Till, shop: usize| {
        post_at_once(till, "/api/v1/invoice/noncash", 8, move |i| on_account(&format!("nc-{shop}-{i}")))
    };
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| issue(&first, 1));
        let b = scope.spawn(|| issue(&second, 2));
        (a.join().unwrap(), b.join().unwrap())
    });
    for (status, body) in a.iter().chain(&b) {
        assert_eq!(*status, 201, "{body}");
    }
    let mut all: Vec<i64> = noncash_numbers(&first).into_iter().chain(noncash_numbers(&second)).collect();
    all.sort();
    assert_eq!(all, (1..=16).collect::<Vec<_>>(), "each number once, none skipped, across both shops");

    // A retry of a document already numbered keeps its number: nothing new is taken.
    let again = first.server.post_json("/api/v1/invoice/noncash", Some(&first.token), &on_account("nc-1-0"));
    assert_eq!(again.status, 409, "{}", again.text);

    // Without the head office no non-cash number can be had: the spec's 503, nothing written;
    // cash sales, numbered per TCR, go on.
    hq.process.terminate();
    let refused =
        first.server.post_json("/api/v1/invoice/noncash", Some(&first.token), &on_account("nc-away"));
    refused.assert_error(503);
    assert!(refused.text.contains("head office"), "{}", refused.text);
    assert_eq!(noncash_numbers(&first).len() + noncash_numbers(&second).len(), 16);
    sell(&first, "cash-while-away");

    hq.start_again();
    first.server.post_json("/api/v1/invoice/noncash", Some(&first.token), &on_account("nc-back")).data(201);
    assert_eq!(noncash_numbers(&first).last(), Some(&17), "the sequence goes on where it was");
}

/// The shop's product of `code`: its id and price, as its database holds them.
fn product_in(till: &Till, code: &str) -> Option<(i64, String)> {
    let db = rusqlite::Connection::open(till.server.data_dir().join("arka.db")).unwrap();
    db.query_row("SELECT id, last_price FROM products WHERE code = ?1", [code], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .ok()
}

#[test]
fn products_set_at_the_hq_come_down_to_every_shop_and_a_local_change_of_one_is_refused() {
    let sim = SimServer::start();
    let hq = Hq::start();
    let first = shop_of(&sim, &hq, "fier-1");
    let second = shop_of(&sim, &hq, "fier-2");

    let espresso =
        json!({"nuis": NUIS, "name": "Espresso", "price": 150, "vat_rate": "20", "unit_code": "C62"});
    let (status, body) = hq.put("/hq/v1/products/ESP1", &espresso);
    assert_eq!(status, 200, "{body}");
    for till in [&first, &second] {
        eventually("the product at the shop", Duration::from_secs(30), || {
            product_in(till, "ESP1").is_some_and(|(_, price)| price == "150")
        });
    }
    let mut dearer = espresso.clone();
    dearer["price"] = json!(165.5);
    assert_eq!(hq.put("/hq/v1/products/ESP1", &dearer).0, 200);
    for till in [&first, &second] {
        eventually("the new price at the shop", Duration::from_secs(30), || {
            product_in(till, "ESP1").is_some_and(|(_, price)| price == "165.5")
        });
    }

    // The shop may not change it: the reason says where it is changed.
    let (id, _) = product_in(&first, "ESP1").unwrap();
    let change = json!({"name": "Espresso i shtrenjtë", "last_price": 300, "vat_rate": "20"});
    let refused = first.server.put_json(&format!("/api/v1/products/{id}"), Some(&first.token), &change);
    refused.assert_error(409);
    assert!(refused.text.contains("head office"), "{}", refused.text);
    assert_eq!(product_in(&first, "ESP1").unwrap().1, "165.5");
    // Its own products stay its own (after the catalog's one write a second per token).
    first.server.advance_clock(Duration::from_millis(1100));
    let own = first.server.post_json(
        "/api/v1/products",
        Some(&first.token),
        &json!({"name": "Byrek", "last_price": 80, "vat_rate": "20"}),
    );
    own.data(201);

    // Bad input at the HQ is a 422 naming the field.
    let (status, body) =
        hq.put("/hq/v1/products/ESP2", &json!({"nuis": NUIS, "name": "X", "price": -1, "vat_rate": "7"}));
    assert_eq!(status, 422, "{body}");
    assert!(body["errors"]["price"].is_array() && body["errors"]["vat_rate"].is_array(), "{body}");
}

/// A shop's own `today` as the HQ's chain mode shows it: its totals, its non-cash invoices, and
/// each till's sales and day.
fn day_of(today: &Value) -> Value {
    let tills: Vec<Value> = today["tills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            json!([t["fiscal_tcr_code"], t["name"], t["sales"], t["day"]["state"], t["day"]["closed_at"]])
        })
        .collect();
    json!({"totals": today["totals"], "noncash": today["noncash"], "tills": tills})
}

#[test]
fn the_owners_page_at_the_hq_shows_every_shops_day_side_by_side() {
    let sim = SimServer::start();
    let hq = Hq::start();
    let names = ["elbasan", "korce"];
    let tills: Vec<Till> = names.iter().map(|name| shop_of(&sim, &hq, name)).collect();
    let cash = |till: &Till, path: &str, body: Value, status: u16| {
        till.server
            .post_json(&format!("/api/v1/cash-register/{path}"), Some(&till.token), &body)
            .data(status)
            .clone()
    };
    // elbasan: a float, two sales (one by card), a non-cash invoice, and the day closed on a count;
    // korce: one sale, its day left open.
    cash(&tills[0], "open-balance", json!({"amount": 1000}), 201);
    sell(&tills[0], "elbasan-1");
    let mut card = coffee_and_water("elbasan-2");
    card["payment_method"] = json!("CARD");
    tills[0].server.post_json("/api/v1/invoice/cash", Some(&tills[0].token), &card).data(201);
    tills[0]
        .server
        .post_json("/api/v1/invoice/noncash", Some(&tills[0].token), &on_account("elbasan-3"))
        .data(201);
    cash(&tills[0], "close-balance", json!({"counted": 1280}), 200);
    sell(&tills[1], "korce-1");

    let own: Vec<Value> = tills
        .iter()
        .map(|till| till.server.get("/api/v1/owner/today", Some(&till.token)).data(200).clone())
        .collect();
    eventually("every shop's day at the HQ", Duration::from_secs(60), || {
        let (status, body) = hq.get("/api/v1/owner/today");
        status == 200
            && body["data"]["shops"].as_array().is_some_and(|shops| {
                shops.len() == 2 && shops.iter().zip(&own).all(|(at_hq, own)| day_of(at_hq) == day_of(own))
            })
    });
    let (_, body) = hq.get("/api/v1/owner/today");
    let chain = &body["data"];
    assert_eq!(chain["chain"], true);
    assert_eq!(chain["business_day"], own[0]["business_day"]);
    let shops: Vec<&str> =
        chain["shops"].as_array().unwrap().iter().map(|s| s["shop"].as_str().unwrap()).collect();
    assert_eq!(shops, names, "side by side, by name");
    assert!(chain["shops"][0]["synced_at"].is_string());
    let closed = &chain["shops"][0]["tills"][0]["day"];
    assert_eq!(
        (closed["state"].as_str(), closed["counted"].as_f64()),
        (Some("closed"), Some(1280.0)),
        "{closed}"
    );
    assert!(closed["expected"].is_number(), "the close's expected cash: {closed}");
    assert_eq!(chain["shops"][1]["tills"][0]["day"]["state"], "open");
    let receipts = |d: &Value| d["totals"]["receipts"].as_u64().unwrap();
    assert_eq!(receipts(chain), receipts(&own[0]) + receipts(&own[1]));
    assert_eq!(receipts(chain), 4);
    let gross = |d: &Value| d["totals"]["gross"].as_f64().unwrap();
    assert_eq!(gross(chain), gross(&own[0]) + gross(&own[1]), "the chain's day is its shops' added up");
    for method in ["BANKNOTE", "CARD", "ACCOUNT"] {
        let of = |d: &Value| d["totals"]["by_payment_method"][method].as_f64().unwrap_or(0.0);
        assert_eq!(of(chain), of(&own[0]) + of(&own[1]), "{method}");
    }

    // The page itself is served by the HQ, and signs in with the owner's token as a chain's.
    let page = ureq::get(format!("{}/", hq.url())).call().unwrap().into_body().read_to_string().unwrap();
    assert!(page.contains("app.js"), "{page}");
    let (status, account) = hq.get("/api/v1/account");
    assert_eq!((status, &account["data"]["chain"]), (200, &json!(true)), "{account}");
    assert_eq!(account["data"]["shops"], json!(names));
    let (status, _) = common::hq::get(
        &ureq::Agent::config_builder().http_status_as_error(false).build().new_agent(),
        &format!("{}/api/v1/owner/today", hq.url()),
        "nope",
    );
    assert_eq!(status, 401);
    // A number the HQ reserved for elbasan five minutes ago with no document: the page lists it.
    sql(
        &hq.db.url,
        &format!(
            "INSERT INTO noncash_numbers (nuis, year, ord_num, shop_id, held_for, box_id, reserved_at)
             SELECT '{NUIS}', {year}, 99, id, 'killed-mid-write', box_id, now() - interval '5 minutes'
             FROM shops WHERE name = 'elbasan'",
            year = chrono::Utc::now().format("%Y")
        ),
    );
    the_owner_reads_the_chain_in_a_browser(&hq, chain);
}

/// The owner's page at the HQ in headless Chromium: signed in with the owner's name and token, each
/// shop's column carries the API's figures, and what the HQ does not serve is not offered.
fn the_owner_reads_the_chain_in_a_browser(hq: &Hq, chain: &Value) {
    use crate::common::browser::Browser;
    let cents = |text: &str| -> i64 {
        text.chars().filter(char::is_ascii_digit).collect::<String>().parse().unwrap()
    };
    let api_cents = |v: &Value| (v.as_f64().unwrap() * 100.0).round() as i64;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1280, 900).await;
        page.client.goto(&hq.url()).await.unwrap();
        // The HQ's own sign-in: the owner's name and token as `arka hq owners add` made them;
        // a wrong token is refused beside its field, and nothing is kept in the browser's storage.
        page.text_when("#signin-form", |_| true).await;
        page.type_into("#signin-name", "owner").await;
        page.type_into("#signin-token", "arka_nope").await;
        page.click("#signin-form button[type=submit]").await;
        page.text_when("#signin-token-error", |t| !t.is_empty()).await;
        page.type_into("#signin-token", &hq.owner).await;
        page.click("#signin-form button[type=submit]").await;
        for shop in chain["shops"].as_array().unwrap() {
            let css = format!("[data-shop-gross=\"{}\"]", shop["shop"].as_str().unwrap());
            let shown = page.text_when(&css, |t| !t.is_empty()).await;
            assert_eq!(cents(&shown), api_cents(&shop["totals"]["gross"]), "{css}");
        }
        let total = page.text_when("#chain-gross", |t| !t.is_empty()).await;
        assert_eq!(cents(&total), api_cents(&chain["totals"]["gross"]));
        page.text_when("[data-tcr] ", |t| t.starts_with("E mbyllur")).await;
        let held = format!("[data-held=\"99/{}\"]", chrono::Utc::now().format("%Y"));
        page.text_when(&held, |t| t.contains(NUIS)).await;
        page.text_when("[data-shop-heard=\"elbasan\"]", |t| !t.is_empty()).await;
        let cis = page.find("nav button[data-view=cis]").await;
        assert!(cis.attr("hidden").await.unwrap().is_some(), "the CIS view is a shop's, not the HQ's");
        let stored = page
            .client
            .execute(
                "return JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie])",
                vec![],
            )
            .await
            .unwrap();
        assert!(!stored.to_string().contains(&hq.owner), "the token is kept in memory only: {stored}");
        page.stop().await;
    });
}

/// The migrations main released before the outbox: V25 (the audit trail) went out first, so a
/// shop's database made by main holds exactly these, and the outbox is V26.
const RELEASED_BY_MAIN: [i64; 22] =
    [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 25];

fn applied_migrations(db: &rusqlite::Connection) -> Vec<i64> {
    let mut stmt = db.prepare("SELECT version FROM refinery_schema_history ORDER BY version").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

/// The shop's database at `db` as main's binary leaves it: the outbox's migration taken back
/// (its triggers and tables dropped, its line of the history removed), the tables of the later
/// migrations that create one dropped, and every later line of the history removed: each later
/// migration runs again over what is left (a new table made again, an index or a rewrite that is
/// a no-op over its own result), everything else kept.
fn as_main_left_it(db: &std::path::Path) {
    let db = rusqlite::Connection::open(db).unwrap();
    let triggers: Vec<String> = {
        let mut stmt = db
            .prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'hq\\_%' ESCAPE '\\'",
            )
            .unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert!(!triggers.is_empty());
    for trigger in triggers {
        db.execute_batch(&format!("DROP TRIGGER {trigger}")).unwrap();
    }
    // V35 (the drawer counted) and V43 (retired TCRs) came after main too: their columns go, and
    // they add them again; V44's credit notes kept apart go with their trigger.
    db.execute_batch(
        "DROP TABLE hq_outbox; DROP TABLE hq_link; DROP TABLE central_products;
         DROP TABLE password_reset_codes; DROP TABLE hq_set_aside; DROP TABLE cis_only_einvoices;
         ALTER TABLE cash_days DROP COLUMN balance; ALTER TABLE cash_days DROP COLUMN drawer_mark;
         ALTER TABLE cash_days DROP COLUMN counted_by_denomination; ALTER TABLE cash_days DROP COLUMN day_book;
         ALTER TABLE fiscal_devices DROP COLUMN retired_at; ALTER TABLE fiscal_devices DROP COLUMN retired_why;
         ALTER TABLE fiscal_devices DROP COLUMN continued_by;
         DROP TRIGGER credit_notes_kept; DROP TABLE credit_notes_found; DROP TABLE credit_notes;
         DELETE FROM refinery_schema_history WHERE version > 25;",
    )
    .unwrap();
    assert_eq!(applied_migrations(&db), RELEASED_BY_MAIN, "the database is main's");
}

/// Every migration this binary carries after the ones main released: V26 (the outbox) and on,
/// read from `migrations/` as refinery embeds them.
fn migrations_after_main() -> Vec<i64> {
    let mut versions: Vec<i64> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_prefix('V')?.split_once("__")?.0.parse().ok()
        })
        .filter(|v| *v > 25)
        .collect();
    versions.sort_unstable();
    versions
}

#[test]
fn a_shop_database_made_by_main_upgrades_to_the_outbox_and_ships_its_history_to_the_hq() {
    let sim = SimServer::start();
    let hq = Hq::start();
    // A shop that sold on main, without a head office; its box stopped for the upgrade.
    let till = open_till_with(&sim, |_| {});
    for n in 0..3 {
        sell(&till, &format!("on-main-{n}"));
    }
    let token = till.token.clone();
    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");
    as_main_left_it(&data.join("arka.db"));

    // This binary on main's database, joining the head office: migrated, then its history and
    // what it sells next shipped.
    let shop_token = hq.add_shop("lezhe");
    let shop = shop_process(&sim, &hq, &data, &shop_token);
    {
        let db = rusqlite::Connection::open(data.join("arka.db")).unwrap();
        let mut expected = RELEASED_BY_MAIN.to_vec();
        expected.extend(migrations_after_main());
        assert_eq!(
            applied_migrations(&db),
            expected,
            "upgraded by the outbox's migration and every later one"
        );
    }
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let reply = agent
        .post(format!("{}/api/v1/invoice/cash", shop.base_url))
        .header("Authorization", format!("Bearer {token}"))
        .content_type("application/json")
        .send(coffee_and_water("after-the-upgrade").to_string())
        .unwrap();
    assert_eq!(reply.status(), 201);
    assert_eq!(numbers_in(&data).len(), 4);
    assert_the_hq_holds(&hq, "lezhe", &data, || summary_at(&shop.base_url, &token));
}

/// The report routes the HQ serves as a shop does, and how the chain's answer comes from the
/// shops': their figures added up (`None`), or their lists put together, merged by `key` when
/// the same thing (a product, a buyer, a VAT rate, a day) can be in several shops.
type Merge = fn(&Value) -> Value;
type Lists = &'static [(&'static str, Option<Merge>)];
const REPORTS: [(&str, Lists); 11] = [
    (
        "sales-summary",
        &[
            ("by_kind", Some(|l| l["kind"].clone())),
            ("by_payment", Some(|l| l["payment_method"].clone())),
            ("by_currency", Some(|l| l["currency"].clone())),
        ],
    ),
    ("vat", &[("rates", Some(|l| json!([l["vat_rate"], l["exemption"]])))]),
    ("daily-trend", &[("items", Some(|l| l["date"].clone()))]),
    ("top-clients", &[("items", Some(|l| json!([l["id_type"], l["id_value"], l["name"]])))]),
    ("top-products", &[("items", Some(|l| l["product_code"].clone()))]),
    ("by-operator", &[("items", None)]),
    // The documents of no TCR (non-cash) are one line, the chain's as a shop's.
    ("by-tcr", &[("items", Some(|l| l["tcr_code"].clone()))]),
    ("cash-register", &[("items", None)]),
    ("cash-register/closing", &[("items", None)]),
    ("reversals", &[("items", None)]),
    (
        "wtn",
        &[
            ("by_status", Some(|l| l["status"].clone())),
            ("destinations", Some(|l| json!([l["business_unit"], l["point"], l["city"], l["address"]]))),
        ],
    ),
];

/// A JSON value with every number as its exact decimal, normalised (14.50 is 14.5).
fn canon(v: &Value) -> Value {
    use std::str::FromStr;
    match v {
        Value::Number(n) => {
            json!(rust_decimal::Decimal::from_str(&n.to_string()).unwrap().normalize().to_string())
        }
        Value::Array(items) => Value::Array(items.iter().map(canon).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), canon(v))).collect()),
        other => other.clone(),
    }
}

/// Several answers added up: numbers summed (exactly), objects key by key, anything else the
/// same in each (the first kept); a list by `lists` (by its field name), else put together.
fn added(values: &[&Value], lists: &[(&str, Option<Merge>)], name: &str) -> Value {
    use std::str::FromStr;
    match values[0] {
        // What names a merged line (its rate) is the same in each, not a figure to add.
        Value::Number(_) if name == "vat_rate" => canon(values[0]),
        Value::Number(_) => {
            let sum: rust_decimal::Decimal =
                values.iter().map(|v| rust_decimal::Decimal::from_str(&v.to_string()).unwrap()).sum();
            json!(sum.normalize().to_string())
        }
        Value::Object(first) => Value::Object(
            first
                .keys()
                .map(|k| {
                    let each: Vec<&Value> = values.iter().map(|v| &v[k]).collect();
                    (k.clone(), added(&each, lists, k))
                })
                .collect(),
        ),
        Value::Array(_) => {
            let all: Vec<&Value> = values.iter().flat_map(|v| v.as_array().unwrap()).collect();
            let merge = lists.iter().find(|(list, _)| *list == name).and_then(|(_, key)| *key);
            let mut out: Vec<Value> = match merge {
                None => all.into_iter().map(canon).collect(),
                Some(key) => {
                    let mut groups: Vec<(Value, Vec<&Value>)> = Vec::new();
                    for item in all {
                        match groups.iter_mut().find(|(k, _)| *k == key(item)) {
                            Some((_, group)) => group.push(item),
                            None => groups.push((key(item), vec![item])),
                        }
                    }
                    groups.iter().map(|(_, group)| added(group, lists, "")).collect()
                }
            };
            out.sort_by_key(Value::to_string);
            Value::Array(out)
        }
        other => canon(other),
    }
}

/// `data` with its lists in one order, for comparing lists put together in any order.
fn sorted(data: &Value) -> Value {
    match canon(data) {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| match v {
                    Value::Array(mut items) => {
                        items.sort_by_key(Value::to_string);
                        (k, Value::Array(items))
                    }
                    Value::Object(_) => (k, sorted(&v)),
                    v => (k, v),
                })
                .collect(),
        ),
        other => other,
    }
}

/// Two shops of the chain with a day of everything the reports read: a float, cash and card
/// sales, a sale on account to a buyer of each shop's own, a cancellation, a deposit, the day
/// closed on a count, and a warehouse transfer note.
fn a_day_of_sales(sim: &SimServer, hq: &Hq, name: &str, buyer: &str) -> Till {
    let till = shop_of(sim, hq, name);
    let cash = |path: &str, body: Value, status: u16| {
        till.server
            .post_json(&format!("/api/v1/cash-register/{path}"), Some(&till.token), &body)
            .data(status)
            .clone()
    };
    cash("open-balance", json!({"amount": 1000}), 201);
    sell(&till, &format!("{name}-1"));
    let mut card = coffee_and_water(&format!("{name}-2"));
    card["payment_method"] = json!("CARD");
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &card).data(201);
    let mut account = on_account(&format!("{name}-3"));
    account["client"]["id"]["id"] = json!(buyer);
    // A name that holds a number's end no document of the day has (the search below).
    account["client"]["name"] = json!(format!("Ushqimore 99/{}", this_year()));
    till.server.post_json("/api/v1/invoice/noncash", Some(&till.token), &account).data(201);
    let cancelled = sell(&till, &format!("{name}-4"))["invoice"]["id"].as_i64().unwrap();
    till.server
        .post_json(&format!("/api/v1/invoice/cancel/{cancelled}"), Some(&till.token), &json!({}))
        .data(200);
    cash("deposit", json!({"amount": "200.50", "description": "Kusur nga banka"}), 201);
    cash("close-balance", json!({"counted": 1500}), 200);
    let note = crate::common::depot::note(Some(&format!("{name}-wtn")), &[("K1", "Kafe", 2.0)]);
    till.server.post_json("/api/v1/invoice/wtn", Some(&till.token), &note).data(201);
    till
}

fn report_at(till: &Till, path: &str) -> Value {
    let (from, to) = around_today();
    till.server
        .get(&format!("/api/v1/reports/{path}?from={from}&to={to}"), Some(&till.token))
        .data(200)
        .clone()
}

fn hq_report(hq: &Hq, path: &str, shop: Option<&str>) -> Value {
    let (from, to) = around_today();
    let filter = shop.map(|s| format!("&shop={s}")).unwrap_or_default();
    let (status, body) = hq.get(&format!("/api/v1/reports/{path}?from={from}&to={to}{filter}"));
    assert_eq!(status, 200, "{path}: {body}");
    body["data"].clone()
}

/// Two shops of the chain, each with a day of sales, once the HQ holds their documents and days.
fn two_shops_with_their_day_at_the_hq(sim: &SimServer, hq: &Hq) -> ([&'static str; 2], [Till; 2]) {
    let names = ["gjirokaster", "sarande"];
    let tills =
        [a_day_of_sales(sim, hq, names[0], "K81234001A"), a_day_of_sales(sim, hq, names[1], "L91234002B")];
    for (name, till) in names.iter().zip(&tills) {
        let own = shop_numbers(till);
        eventually(&format!("{name}'s documents and day at the HQ"), Duration::from_secs(60), || {
            hq_numbers(hq, name).into_iter().collect::<BTreeSet<_>>() == own
                && canon(&hq_report(hq, "cash-register/closing", Some(name)))
                    == canon(&report_at(till, "cash-register/closing"))
        });
    }
    (names, tills)
}

#[test]
fn the_hq_answers_every_report_as_a_shop_does_each_shops_its_own_and_the_chains_their_sum() {
    let sim = SimServer::start();
    let hq = Hq::start();
    let (names, tills) = two_shops_with_their_day_at_the_hq(&sim, &hq);
    assert_the_chains_reports_are_its_shops(&hq, &names, &tills);
    the_hq_lists_and_details_every_shops_invoices_as_the_shop_does(&hq, &names, &tills);
    the_hq_keeps_the_sales_book_as_the_shop_does(&hq, &names, &tills);
    the_hq_searches_the_list_as_the_shop_does(&hq, &names, &tills);
    the_hq_prints_the_closing_report_as_the_shop_does(&hq, &names, &tills);
}

/// What V5 (hq/migrations/V5__typed_reports.sql), V6 (shops of their own) and V7 (numbers
/// documented) added, taken away again with their rows of the history: the database as an HQ of
/// V4 left it, holding every row it was shipped.
const BACK_TO_V4: &str = "
    DROP INDEX noncash_numbers_held;
    ALTER TABLE noncash_numbers DROP COLUMN documented;
    DROP TABLE box_refusals, hq_audit;
    DROP INDEX noncash_numbers_held_for;
    ALTER TABLE noncash_numbers DROP COLUMN box_id, DROP COLUMN voided_at, DROP COLUMN void_reason,
        ADD CONSTRAINT noncash_numbers_nuis_year_shop_id_held_for_key UNIQUE (nuis, year, shop_id, held_for);
    ALTER TABLE shops DROP COLUMN nuis, DROP COLUMN box_id, DROP COLUMN box_since, DROP COLUMN revoked_at,
        DROP COLUMN retired_at, DROP COLUMN last_heard_at, DROP COLUMN heartbeat;
    ALTER TABLE central_products DROP COLUMN withdrawn_at;
    DROP TABLE users, business_units, fiscal_devices, cash_days, cash_actions, wtns;
    DROP INDEX shop_rows_lines, invoices_shop_time, invoices_corrective, invoices_settled_by, invoices_cash_day,
        invoices_search;
    CREATE INDEX invoices_day ON invoices (issue_date, shop_id);
    ALTER TABLE invoices DROP COLUMN cash_day_id, DROP COLUMN self_issue_type, DROP COLUMN search_text;
    DROP EXTENSION pg_trgm;
    DELETE FROM refinery_schema_history WHERE version >= 5;";

/// An HQ that held the shops' documents before its reports read typed tables of days, notes,
/// users and TCRs (V5) upgrades to them and answers every report, the list, the details, the
/// sales book and the search as the shops do: the migration fills them from the rows it holds.
#[test]
fn an_hq_upgraded_with_the_shops_documents_answers_as_the_shops_do() {
    let sim = SimServer::start();
    let mut hq = Hq::start();
    let (names, tills) = two_shops_with_their_day_at_the_hq(&sim, &hq);
    hq.process.terminate();
    sql(&hq.db.url, BACK_TO_V4);
    assert_eq!(sql(&hq.db.url, "SELECT to_regclass('cash_days') IS NULL")[0][0].as_deref(), Some("t"));
    hq.start_again();
    // The HQ listens before it has migrated: its answers are the upgraded ones once V6 is in.
    eventually("the HQ upgraded past V4", Duration::from_secs(60), || {
        let applied = sql(&hq.db.url, "SELECT MAX(version) FROM refinery_schema_history");
        applied[0][0].as_deref().is_some_and(|v| v.parse::<i64>().unwrap() >= 7)
    });
    // V6 learns each shop's business from the company it shipped; V7 which numbers have documents.
    let businesses = sql(&hq.db.url, "SELECT DISTINCT nuis FROM shops");
    assert_eq!(businesses, [[Some(NUIS.to_string())]], "every shop's NUIS from its company");
    assert_the_chains_reports_are_its_shops(&hq, &names, &tills);
    the_hq_lists_and_details_every_shops_invoices_as_the_shop_does(&hq, &names, &tills);
    the_hq_keeps_the_sales_book_as_the_shop_does(&hq, &names, &tills);
    the_hq_searches_the_list_as_the_shop_does(&hq, &names, &tills);
}

/// The VAT report's sales book (`documents=true`): a shop's at the HQ is its own, the chain's
/// holds every shop's entries.
fn the_hq_keeps_the_sales_book_as_the_shop_does(hq: &Hq, names: &[&str], tills: &[Till]) {
    let path = "vat?documents=true&limit=50";
    let (from, to) = around_today();
    let mut every = Vec::new();
    for (name, till) in names.iter().zip(tills) {
        let own = till
            .server
            .get(&format!("/api/v1/reports/{path}&from={from}&to={to}"), Some(&till.token))
            .data(200)
            .clone();
        let entries = own["items"].as_array().unwrap();
        assert!(entries.len() >= 4, "the day's sales and its cancellation: {own}");
        let (status, at_hq) = hq.get(&format!("/api/v1/reports/{path}&from={from}&to={to}&shop={name}"));
        assert_eq!(status, 200, "{at_hq}");
        assert_eq!(canon(&at_hq["data"]), canon(&own), "{name}'s sales book");
        every.extend(entries.iter().map(|e| canon(e).to_string()));
    }
    let (status, chain) = hq.get(&format!("/api/v1/reports/{path}&from={from}&to={to}"));
    assert_eq!(status, 200, "{chain}");
    let mut listed: Vec<String> =
        chain["data"]["items"].as_array().unwrap().iter().map(|e| canon(e).to_string()).collect();
    listed.sort();
    every.sort();
    assert_eq!(listed, every, "the chain's sales book holds every shop's entries");
}

/// `query` on the list: a shop's buyer found at the HQ as the shop finds it, in that shop only.
fn the_hq_searches_the_list_as_the_shop_does(hq: &Hq, names: &[&str], tills: &[Till]) {
    let (from, to) = around_today();
    for (query, holder) in [("k81234001", 0), ("L91234002B", 1)] {
        let ask = format!("fromDate={from}&toDate={to}&limit=50&query={query}");
        let own = tills[holder]
            .server
            .get(&format!("/api/v1/invoice?{ask}"), Some(&tills[holder].token))
            .data(200)
            .clone();
        let own_ids: Vec<Value> = own["items"].as_array().unwrap().iter().map(|i| i["id"].clone()).collect();
        assert!(!own_ids.is_empty(), "{query}: {own}");
        let (status, chain) = hq.get(&format!("/api/v1/invoice?{ask}"));
        assert_eq!(status, 200, "{chain}");
        let found: Vec<(Value, Value)> = chain["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["shop"].clone(), i["id"].clone()))
            .collect();
        let expected: Vec<(Value, Value)> =
            own_ids.iter().map(|id| (json!(names[holder]), id.clone())).collect();
        assert_eq!(found, expected, "{query}: the chain finds the shop's own");
        assert_eq!(chain["data"]["pagination"], own["pagination"]);
        let (status, other) = hq.get(&format!("/api/v1/invoice?{ask}&shop={}", names[1 - holder]));
        assert_eq!(status, 200, "{other}");
        assert_eq!(other["data"]["items"], json!([]), "{query} is not the other shop's");
    }
    // A query shaped like a number's end finds numbers, never names, at the shop and at the HQ:
    // the day's first documents, and none for the end only a buyer's name holds.
    for (end, documents) in [("1", true), ("99", false)] {
        let query = format!("{end}/{}", this_year());
        let ask = format!("fromDate={from}&toDate={to}&limit=50&query={}", query.replace('/', "%2F"));
        let mut own = Vec::new();
        for (name, till) in names.iter().zip(tills) {
            let page =
                till.server.get(&format!("/api/v1/invoice?{ask}"), Some(&till.token)).data(200).clone();
            for item in page["items"].as_array().unwrap() {
                assert!(item["number"].as_str().unwrap().contains(&query), "{query}: {item}");
                own.push((json!(name), item["id"].clone()));
            }
        }
        assert_eq!(!own.is_empty(), documents, "{query}: the shops' own");
        let (status, chain) = hq.get(&format!("/api/v1/invoice?{ask}"));
        assert_eq!(status, 200, "{chain}");
        let mut found: Vec<(Value, Value)> = chain["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["shop"].clone(), i["id"].clone()))
            .collect();
        found.sort_by_key(|pair| pair.0.to_string() + &pair.1.to_string());
        own.sort_by_key(|pair| pair.0.to_string() + &pair.1.to_string());
        assert_eq!(found, own, "{query}: the chain finds the shops' numbers, not names");
    }
}

/// The year of a document issued now (Tirana's), which its number carries.
fn this_year() -> i32 {
    use chrono::Datelike;
    chrono::Utc::now().with_timezone(&chrono_tz::Europe::Tirane).year()
}

/// The closing report's PDF: a shop's at the HQ reads as its own (pdftotext); the chain's
/// prints every shop's days.
fn the_hq_prints_the_closing_report_as_the_shop_does(hq: &Hq, names: &[&str], tills: &[Till]) {
    let (from, to) = around_today();
    let path = format!("/api/v1/reports/cash-register/closing/pdf?from={from}&to={to}");
    let mut days = 0;
    for (name, till) in names.iter().zip(tills) {
        let own = pdftotext(&till.server.get_bytes(&path, Some(&till.token)));
        assert!(own.contains("Raporti Z"), "{own}");
        days += own.matches("Raporti Z").count();
        let at_hq = pdftotext(&hq.get_bytes(&format!("{path}&shop={name}")));
        assert_eq!(at_hq, own, "{name}'s closing report printed at the HQ");
    }
    let chain = pdftotext(&hq.get_bytes(&path));
    assert!(chain.contains("HQ · every shop"), "{chain}");
    assert_eq!(chain.matches("Raporti Z").count(), days, "{chain}");
    let (status, body) = hq.get(&format!("{path}&paper=roll"));
    assert_eq!(status, 422, "{body}");
    assert!(body["errors"]["paper"].is_array(), "{body}");
}

/// Every report at the HQ: each shop's its own report, the chain's the sum (or union) of the
/// shops' to the cent.
fn assert_the_chains_reports_are_its_shops(hq: &Hq, names: &[&str], tills: &[Till]) {
    for (path, lists) in REPORTS {
        let own: Vec<Value> = tills.iter().map(|till| report_at(till, path)).collect();
        for (name, shops) in names.iter().zip(&own) {
            eventually(&format!("{path} of {name}"), Duration::from_secs(30), || {
                canon(&hq_report(hq, path, Some(name))) == canon(shops)
            });
        }
        let chain = hq_report(hq, path, None);
        let mut expected = added(&own.iter().collect::<Vec<_>>(), lists, "");
        // A product or buyer in several shops is one line of the chain's; the period is one.
        for (count, list) in [("products", "items"), ("clients", "items")] {
            if expected["totals"].get(count).is_some() {
                expected["totals"][count] = json!(expected[list].as_array().unwrap().len().to_string());
            }
        }
        if expected.get("unique_destinations").is_some() {
            expected["unique_destinations"] =
                json!(expected["destinations"].as_array().unwrap().len().to_string());
        }
        expected["period"] = canon(&own[0]["period"]);
        if expected.get("pagination").is_some() {
            for key in ["limit", "offset"] {
                expected["pagination"][key] = canon(&own[0]["pagination"][key]);
            }
        }
        assert_eq!(sorted(&chain), sorted(&expected), "{path}: the chain's is the sum of its shops'");
    }
}

/// A shop's answer without its PDF links (the HQ prints nothing: it names the shop's route
/// under no host), after checking they name the same route.
fn without_links(mut v: Value, at_hq: &Value) -> Value {
    for key in ["pdf_url", "pdf"] {
        if let Some(link) = v.get(key).and_then(Value::as_str) {
            let route = &link[link.find("/api/").unwrap()..];
            assert_eq!(at_hq[key].as_str(), Some(route), "{key}");
            v[key] = Value::Null;
        }
    }
    v
}

/// The HQ's invoice list and details in the shop's shapes: a shop's page of the list at the HQ
/// is its own page with its `shop`, every shop's together is their union, and each document's
/// details are its shop's.
fn the_hq_lists_and_details_every_shops_invoices_as_the_shop_does(hq: &Hq, names: &[&str], tills: &[Till]) {
    let (from, to) = around_today();
    let mut every = Vec::new();
    for (name, till) in names.iter().zip(tills) {
        let query = format!("fromDate={from}&toDate={to}&limit=50");
        let own = till.server.get(&format!("/api/v1/invoice?{query}"), Some(&till.token)).data(200).clone();
        let (status, at_hq) = hq.get(&format!("/api/v1/invoice?{query}&shop={name}"));
        assert_eq!(status, 200, "{at_hq}");
        let items = at_hq["data"]["items"].as_array().unwrap();
        assert_eq!(items.len(), own["items"].as_array().unwrap().len());
        assert_eq!(at_hq["data"]["pagination"], own["pagination"]);
        for (at_hq, own) in items.iter().zip(own["items"].as_array().unwrap()) {
            assert_eq!(at_hq["shop"], json!(name));
            let mut bare = at_hq.clone();
            bare.as_object_mut().unwrap().remove("shop");
            assert_eq!(canon(&without_links(bare.clone(), at_hq)), canon(&without_links(own.clone(), at_hq)));
            let id = own["id"].as_i64().unwrap();
            let details = till
                .server
                .get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token))
                .data(200)
                .clone();
            let (status, body) = hq.get(&format!("/api/v1/invoice/{id}/details?shop={name}"));
            assert_eq!(status, 200, "{body}");
            let mut bare = body["data"]["invoice"].clone();
            assert_eq!(bare.as_object_mut().unwrap().remove("shop"), Some(json!(name)));
            let shown = body["data"]["invoice"].clone();
            assert_eq!(
                canon(&without_links(bare, &shown)),
                canon(&without_links(details["invoice"].clone(), &shown))
            );
            every.push((name.to_string(), id));
        }
    }
    let (status, chain) = hq.get(&format!("/api/v1/invoice?fromDate={from}&toDate={to}&limit=50"));
    assert_eq!(status, 200, "{chain}");
    let mut listed: Vec<(String, i64)> = chain["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["shop"].as_str().unwrap().to_string(), i["id"].as_i64().unwrap()))
        .collect();
    listed.sort();
    every.sort();
    assert_eq!(listed, every, "the chain's list is the union of its shops'");
    // Both shops have a document 1: its details need the shop, named in the 422.
    let (status, body) = hq.get("/api/v1/invoice/1/details");
    assert_eq!(status, 422, "{body}");
    assert!(body["errors"]["shop"].is_array(), "{body}");
    assert_eq!(hq.get("/api/v1/invoice/999999/details?shop=sarande").0, 404);
}

/// The chain's own CA and the HQ's certificate signed by it for 127.0.0.1 (openssl, as an
/// outside tool would make them): (the CA's PEM file, the HQ's certificate, its key).
fn chain_ca_and_hq_certificate(
    dir: &std::path::Path,
) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let path = |name: &str| dir.join(name);
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap_or_else(|e| panic!("openssl (./test installs it) could not run: {e}"));
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=Arka test chain CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=hq.test",
        "-keyout",
        "hq.key",
        "-out",
        "hq.csr",
    ]);
    std::fs::write(
        path("hq.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "hq.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        "hq.pem",
        "-extfile",
        "hq.ext",
    ]);
    (path("ca.pem"), path("hq.pem"), path("hq.key"))
}

#[test]
fn a_shop_ships_to_the_hq_over_https_trusting_the_chains_own_ca_and_one_without_it_waits() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = chain_ca_and_hq_certificate(dir.path());
    let sim = SimServer::start();
    let tls = ["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()];
    let hq = Hq::start_with(
        common::hq::TestDatabase::create(),
        tls.iter().map(|a| a.to_string()).collect(),
        Some(&std::fs::read(&ca).unwrap()),
    );
    assert!(hq.url().starts_with("https://127.0.0.1:"), "{}", hq.url());

    // The shop given the chain's CA: its sales, and a non-cash number taken from the HQ, over HTTPS.
    let trusting = shop_of_with(&sim, &hq, "pogradec", |args| args.hq.hq_ca_file = Some(ca.clone()));
    for n in 0..3 {
        sell(&trusting, &format!("tls-{n}"));
    }
    assert_the_hq_holds_every_shop(&hq, &[("pogradec", &trusting)]);
    let noncash =
        trusting.server.post_json("/api/v1/invoice/noncash", Some(&trusting.token), &on_account("tls-nc"));
    let year = chrono::Utc::now().format("%Y");
    assert_eq!(noncash.data(201)["invoice"]["number"], json!(format!("1/{year}")), "numbered by the HQ");
    // (The non-cash sequence is the business's, so its 1 is the cash sequence's 1 too: counted.)
    eventually("the non-cash invoice at the HQ", Duration::from_secs(30), || {
        hq_numbers(&hq, "pogradec").len() == 4
    });

    // A shop that does not trust it (the system's roots do not know the chain's CA) reaches
    // nothing: it sells on, its backlog waits, and the HQ holds none of its documents.
    let stranger = shop_of(&sim, &hq, "librazhd");
    sell(&stranger, "untrusted");
    let refused = stranger.server.post_json(
        "/api/v1/invoice/noncash",
        Some(&stranger.token),
        &on_account("untrusted-nc"),
    );
    refused.assert_error(503);
    // An absence (the HQ takes nothing of an untrusted shop) is seen only by waiting past its tries.
    std::thread::sleep(Duration::from_secs(2));
    assert!(stranger.server.get("/healthz", None).body["hq"]["backlog"].as_i64().unwrap() > 0);
    assert!(hq_numbers(&hq, "librazhd").is_empty());
}
