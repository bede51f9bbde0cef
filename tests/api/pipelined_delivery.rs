//! A TCR that does not wait for the CIS: several documents of one till at the CIS at once, the
//! receipt's time budget (`--cis-wait`), numbers held for a refused document's retry, the day's
//! opening ahead of the till's invoices, and a kill -9 with documents in flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::common::process::ServerProcess;
use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use arka::config::CisWait;
use chrono::Utc;
use serde_json::{Value, json};

fn year() -> String {
    Utc::now().format("%Y").to_string()
}

fn sell(till: &Till, internal_id: &str) -> Reply {
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water(internal_id))
}

/// A receipt saved for late delivery: 503 with the invoice, for the POS to print.
fn deferred(reply: &Reply) -> Value {
    assert_eq!(reply.status, 503, "{}", reply.text);
    assert_eq!(reply.body["status"], false);
    reply.body["data"]["invoice"].clone()
}

/// The operations the simulator saw for documents (not the till's registration), oldest first.
fn documents_seen(sim: &SimServer) -> Vec<String> {
    sim.requests()
        .iter()
        .map(|r| r["operation"].as_str().unwrap_or_default().to_string())
        .filter(|op| op != "RegisterTCR")
        .collect()
}

/// A till whose POS may wait long enough for a slow simulator on a busy machine: these stories
/// are about order and numbers, not about the budget.
fn patient_till(sim: &SimServer) -> Till {
    open_till_with(sim, |args| {
        args.cis_wait = CisWait(Duration::from_secs(20));
        args.cis_timeout = 20;
    })
}

/// The cash invoices' ordinals in the database, in order.
fn cash_ordinals(db: &std::path::Path) -> Vec<i64> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare("SELECT ord_num FROM invoices WHERE kind = 'CASH' ORDER BY ord_num").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn with_several_sales_at_the_cis_a_refused_one_keeps_its_number_for_its_retry() {
    let sim = SimServer::start();
    let till = patient_till(&sim);
    let db = till.server.data_dir().join("arka.db");
    let data_dir = till.server.data_dir();
    sell(&till, "first").data(201);
    let at_the_cis = |n: usize| {
        eventually("the sale at the CIS", Duration::from_secs(20), || sim.requests().len() >= n);
    };
    // The day's opening and the first sale are at the CIS already.
    let before = sim.requests().len();
    let (a, b, c) = std::thread::scope(|scope| {
        sim.set_mode(json!({"mode": "slow", "delay_ms": 1500}));
        let a = scope.spawn(|| sell(&till, "a"));
        at_the_cis(before + 1);
        // The middle one is refused while the others are still at the CIS.
        sim.set_mode(json!({"mode": "fault", "fault_code": "11", "delay_ms": 800}));
        let b = scope.spawn(|| sell(&till, "b"));
        at_the_cis(before + 2);
        sim.set_mode(json!({"mode": "slow", "delay_ms": 1500}));
        let c = scope.spawn(|| sell(&till, "c"));
        at_the_cis(before + 3);
        (a.join().unwrap(), b.join().unwrap(), c.join().unwrap())
    });
    assert_eq!(a.data(201)["invoice"]["number"], format!("2/{}", year()));
    b.assert_error(200);
    assert!(b.body["message"].as_str().unwrap().starts_with("[11] "), "{}", b.text);
    assert_eq!(c.data(201)["invoice"]["number"], format!("4/{}", year()));
    sim.mode("ok");

    // Number 3 is nobody's but the refused sale's: the owner sees it, held, with the reason.
    till.server.post_json("/api/v1/invoice/details/b", Some(&till.token), &json!({})).assert_error(404);
    let refused = till.account()["fiscalQueue"]["refused"].clone();
    let held = refused
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["number"] == format!("3/{}", year()))
        .unwrap_or_else(|| panic!("number 3 is shown as refused: {refused}"))
        .clone();
    assert_eq!(held["numberHeld"], true);
    assert_eq!(held["code"], "11");
    let listed = arka_ok(&["queue", "--data-dir", data_dir.to_str().unwrap()]);
    assert!(listed.contains("held") && listed.contains(&format!("3/{}", year())), "{listed}");
    assert_eq!(sell(&till, "d").data(201)["invoice"]["number"], format!("5/{}", year()));
    assert_eq!(cash_ordinals(&db), [1, 2, 4, 5], "3 is held, not issued");

    // The POS retries the refused sale with its internalId: it is issued under its number.
    let retried = sell(&till, "b");
    assert_eq!(retried.data(201)["invoice"]["number"], format!("3/{}", year()));
    assert_eq!(cash_ordinals(&db), [1, 2, 3, 4, 5]);
    assert_eq!(till.account()["fiscalQueue"]["refused"], json!([]), "nothing is held any more");
    let registered = sim.registered()["invoices"].as_array().unwrap().clone();
    let mut numbers: Vec<String> =
        registered.iter().map(|i| i["inv_num"].as_str().unwrap().to_string()).collect();
    numbers.sort();
    let expected: Vec<String> = (1..=5).map(|n| format!("{n}/{}/{}", year(), till.tcr_code)).collect();
    assert_eq!(numbers, expected, "the CIS has each number once");
}

#[test]
fn a_receipt_is_answered_within_the_budget_and_its_code_arrives_later() {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| {
        args.cis_wait = CisWait(Duration::from_secs(1));
        args.cis_timeout = 20;
    });
    sell(&till, "warm-up").data(201);

    // The CIS answers after 5 s: the POS has its receipt (503 with the invoice) long before.
    sim.set_mode(json!({"mode": "slow", "delay_ms": 5000}));
    let started = Instant::now();
    let reply = sell(&till, "slow-1");
    let waited = started.elapsed();
    let invoice = deferred(&reply);
    assert!(waited < Duration::from_secs(4), "answered within the budget, not after the CIS: {waited:?}");
    assert_eq!(invoice["number"], format!("2/{}", year()));
    assert_eq!(invoice["fic"], Value::Null);
    assert_eq!(invoice["iic"].as_str().unwrap().len(), 32);
    // The same first call brings the code: stored when it comes, never sent twice.
    let id = invoice["id"].as_i64().unwrap();
    eventually("the code of the deferred receipt", Duration::from_secs(30), || {
        till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"]["fic"]
            .is_string()
    });
    let sent: Vec<Value> = sim.requests().into_iter().filter(|r| r["iic"] == invoice["iic"]).collect();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["subseq_deliv_type"], Value::Null, "it reached the CIS on its first call");
    let registered = sim.registered()["invoices"].clone();
    let record = registered.as_array().unwrap().iter().find(|i| i["iic"] == invoice["iic"]).unwrap().clone();
    assert_eq!(record["deliveries"], 1);
    assert_eq!(till.account()["fiscalQueue"]["waiting"], 0);

    // Refused after its POS had it: the receipt is kept, refused, for the owner.
    sim.set_mode(json!({"mode": "fault", "fault_code": "11", "delay_ms": 3000}));
    let kept = deferred(&sell(&till, "slow-2"));
    eventually("the late refusal", Duration::from_secs(30), || {
        till.account()["fiscalQueue"]["refused"].as_array().is_some_and(|r| !r.is_empty())
    });
    let refused = till.account()["fiscalQueue"]["refused"][0].clone();
    assert_eq!(refused["number"], kept["number"]);
    assert_eq!(refused["numberHeld"], false, "its POS printed it: it waits for its owner");
    let id = kept["id"].as_i64().unwrap();
    let details =
        till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200).clone();
    assert_eq!(details["invoice"]["iic"], kept["iic"], "the printed receipt stays on record");
}

#[test]
fn the_tills_sales_wait_behind_the_days_opening_still_on_its_way() {
    let sim = SimServer::start();
    let till = patient_till(&sim);
    // The day's opening (ahead of the first sale) is at the CIS for 5 s.
    sim.set_mode(json!({"mode": "slow", "delay_ms": 5000}));
    std::thread::scope(|scope| {
        let first = scope.spawn(|| sell(&till, "first"));
        eventually("the opening at the CIS", Duration::from_secs(20), || !documents_seen(&sim).is_empty());
        let second = scope.spawn(|| sell(&till, "second"));
        eventually("the second sale saved", Duration::from_secs(20), || {
            till.server.post_json("/api/v1/invoice/details/second", Some(&till.token), &json!({})).status
                == 200
        });
        sim.mode("ok");
        // An absence (nothing else delivered ahead of the opening) is seen only by waiting.
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(
            documents_seen(&sim),
            ["RegisterCashDeposit"],
            "only the opening reached the CIS while it was on its way"
        );
        first.join().unwrap().data(201);
        second.join().unwrap().data(201);
    });
    assert_eq!(documents_seen(&sim), ["RegisterCashDeposit", "RegisterInvoice", "RegisterInvoice"]);
}

#[test]
fn after_a_kill_with_sales_in_flight_every_acknowledged_sale_is_registered_once() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sell(&till, "warm-up").data(201);
    let token = till.token.clone();
    let kept = till.server.stop_and_keep();
    let data = kept.path().join("data");
    let mut flags: Vec<String> =
        sim.flags().into_iter().filter(|f| !f.starts_with("--cis-timeout=")).collect();
    flags.extend([format!("--limits={ROOMY_LIMITS}"), "--cis-timeout=20".into(), "--cis-wait=20".into()]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();

    sim.set_mode(json!({"mode": "slow", "delay_ms": 700}));
    let mut server = ServerProcess::start(&data, &flags);
    let stop = AtomicBool::new(false);
    let base_url = server.base_url.clone();
    let acknowledged = std::thread::scope(|scope| {
        let load = scope.spawn(|| issuing_load(&base_url, &token, 8, 400, &stop));
        eventually("sales at the CIS", Duration::from_secs(30), || sim.requests().len() >= 20);
        let killed =
            std::process::Command::new("kill").args(["-KILL", &server.pid().to_string()]).status().unwrap();
        assert!(killed.success());
        stop.store(true, Ordering::SeqCst);
        load.join().unwrap()
    });
    server.wait_for_exit();
    assert!(!acknowledged.is_empty(), "sales were acknowledged before the kill");
    let at_the_kill = sim.requests().len();

    sim.mode("ok");
    let server = ServerProcess::start(&data, &flags);
    let db = data.join("arka.db");
    let stored = || {
        let conn =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut stmt = conn.prepare("SELECT iic, fic FROM invoices").unwrap();
        stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
    };
    eventually("every saved sale fiscalized after the restart", Duration::from_secs(60), || {
        stored().iter().all(|(_, fic)| fic.is_some())
    });
    assert_all_present_and_gapless(&db, &acknowledged);

    let registered = sim.registered()["invoices"].as_array().unwrap().clone();
    let by_iic: HashMap<String, &Value> =
        registered.iter().map(|i| (i["iic"].as_str().unwrap().to_uppercase(), i)).collect();
    assert_eq!(by_iic.len(), registered.len(), "no document is registered twice");
    let stored = stored();
    assert_eq!(registered.len(), stored.len(), "the CIS has every saved sale and nothing else");
    for (iic, fic) in &stored {
        let record = by_iic.get(&iic.to_uppercase()).unwrap_or_else(|| panic!("{iic} is registered"));
        assert_eq!(record["fic"].as_str(), fic.as_deref(), "Arka keeps the code the CIS gave it");
    }
    // A sale acknowledged with its code was sent once; one cut short by the kill was sent again,
    // as a late delivery of a technical error, and got the code the CIS had given it.
    let conn =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    for ack in &acknowledged {
        let iic: String =
            conn.query_row("SELECT iic FROM invoices WHERE id = ?1", [ack.id], |r| r.get(0)).unwrap();
        assert_eq!(by_iic[&iic.to_uppercase()]["deliveries"], 1, "acknowledged {} was sent once", ack.number);
    }
    let resent: Vec<Value> = sim.requests().into_iter().skip(at_the_kill).collect();
    assert!(
        resent.iter().all(|r| r["subseq_deliv_type"] == "TECHNICALERROR"),
        "what the kill cut short is sent again as a late delivery: {resent:?}"
    );
    drop(server);
}
