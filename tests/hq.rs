//! Issue 30: a chain's head office (HQ) on PostgreSQL. Stories over real processes: the HQ is
//! the real `arka hq serve` on a database of its own in the cluster `.ci/postgres` started;
//! the shops are real servers with `--hq-url`, selling against the CIS simulator.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::eventually;
use common::hq::{Hq, around_today, normalised, sql, summed};
use common::sim::SimServer;
use common::till::{Till, coffee_and_water, open_till_with};
use serde_json::{Value, json};

/// A shop of the chain on a server of its own, shipping to `hq`.
fn shop_of(sim: &SimServer, hq: &Hq, name: &str) -> Till {
    let token = hq.add_shop(name);
    let url = hq.url();
    open_till_with(sim, move |args| {
        args.hq.hq_url = Some(url);
        args.hq.hq_token = Some(token);
    })
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

/// The numbers the HQ holds of `shop`, each counted: a number twice would be a duplicate.
fn hq_numbers(hq: &Hq, shop: &str) -> Vec<String> {
    let (from, to) = around_today();
    let (status, body) = hq.get(&format!("/api/v1/invoice?shop={shop}&from={from}&to={to}&limit=500"));
    assert_eq!(status, 200, "{body}");
    body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].as_str().unwrap().to_string())
        .collect()
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
        assert_eq!(normalised(&hq_summary(hq, Some(name))), normalised(&shop_summary(till)), "{name}");
    }
    let own: Vec<Value> = shops.iter().map(|(_, till)| shop_summary(till)).collect();
    assert_eq!(normalised(&hq_summary(hq, None)), summed(&own), "the chain is the sum of its shops");
}

#[test]
fn three_shops_sell_while_the_hq_is_away_and_it_ends_up_with_every_document_once() {
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

    // The HQ stops (a few seconds here; the story is the same for a minute): sales go on, each
    // shop's backlog and its age show on /healthz, and it is shipped once the HQ is back.
    hq.process.terminate();
    for (i, till) in tills.iter().enumerate() {
        for n in 0..4 {
            sell(till, &format!("away-{i}-{n}"));
        }
        let reversed = sell(till, &format!("reversed-{i}"));
        let id = reversed["invoice"]["id"].as_i64().unwrap();
        till.server
            .post_json(&format!("/api/v1/invoice/cancel/{id}"), Some(&till.token), &json!({}))
            .data(200);
    }
    std::thread::sleep(Duration::from_secs(2));
    for till in &tills {
        let health = till.server.get("/healthz", None).body;
        assert!(health["hq"]["backlog"].as_i64().unwrap() > 0, "{health}");
        assert!(health["hq"]["oldest_age_seconds"].as_i64().unwrap() >= 1, "{health}");
    }
    hq.start_again();
    assert_the_hq_holds_every_shop(&hq, &shops);
    for till in &tills {
        eventually("the backlog shipped", Duration::from_secs(30), || {
            till.server.get("/healthz", None).body["hq"]["backlog"] == json!(0)
        });
    }
    let rows = sql(&hq.db.url, "SELECT COUNT(*), COUNT(DISTINCT (shop_id, id)) FROM invoices");
    assert_eq!(rows[0][0], rows[0][1], "no document twice");
}
