//! Load held: 16 POS apps on 4 TCRs selling for 60 s while the CIS answers every request after
//! 150 ms (about what the real one takes): invoices a second, latency, peak memory, and not one
//! error.

use std::time::{Duration, Instant};

use super::client::Client;
use super::ledger;
use super::pos::{Fleet, Mix};
use super::procs::{Stage, panics_in};
use super::shop::onboard;
use super::table::Row;
use super::{Error, Plan, quantile_ms};

pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    progress(&format!("load: {} POS on {} TCRs for {:?}", plan.load_pos, plan.load_tcrs, plan.load_time));
    let stage = Stage::start(&plan.arka, "load", &[])?;
    let (sim, server, partner) = (&stage.sim, &stage.server, stage.partner.as_str());
    let client = Client::new(&server.base, Duration::from_secs(30));
    let shop = onboard(&client, partner, "L41323036D", plan.load_tcrs)?;
    sim.set_mode("slow", Some(150), None)?;

    let fleet = Fleet {
        base: &server.base,
        tills: &shop.tills,
        count: plan.load_pos,
        mix: Mix::CASH_ONLY,
        deadline: Instant::now() + plan.load_time,
        stop_on_silence: false,
        call_limit: Duration::from_secs(30),
    };
    let started = Instant::now();
    let (outcomes, ()) = fleet.work(|| std::thread::sleep(plan.load_time));
    let elapsed = started.elapsed();
    let peak_rss = server.peak_rss().unwrap_or(0);

    let mut times: Vec<Duration> = Vec::new();
    let (mut busy, mut errors, mut hangs) = (0, 0, 0);
    let mut findings = Vec::new();
    let mut acks = Vec::new();
    for outcome in &outcomes {
        busy += outcome.answers.iter().filter(|a| a.status == 429).count();
        times.extend(outcome.answers.iter().filter(|a| a.status == 201).map(|a| a.elapsed));
        errors += outcome.refused.len() + outcome.unanswered.len();
        hangs += outcome.hangs;
        findings.extend(outcome.refused.iter().take(3).map(|r| format!("HTTP {}: {}", r.status, r.body)));
        acks.extend(outcome.acks.iter().cloned());
    }
    let queued = acks.iter().filter(|a| a.queued).count();
    sim.set_mode("ok", None, None)?;
    server.wait_drained(Duration::from_secs(60))?;
    let (ledger_findings, counts) = ledger::check(&stage.db(), &acks, &[], &sim.registered()?)?;
    if counts.refused > 0 {
        findings.push(format!("{} documents refused by the CIS", counts.refused));
    }
    let rate = acks.len() as f64 / elapsed.as_secs_f64();
    let mut row = Row::new(
        "load held",
        format!(
            "{} POS on {} TCRs, {:.0} s, CIS answering after 150 ms",
            plan.load_pos,
            plan.load_tcrs,
            elapsed.as_secs_f64()
        ),
        format!(
            "{} invoices, {rate:.1}/s, p50 {:.0} ms, p99 {:.0} ms, peak RSS {:.1} MiB; {errors} errors, {queued} saved for later, {busy} busy 429s retried",
            acks.len(),
            quantile_ms(&mut times, 0.5),
            quantile_ms(&mut times, 0.99),
            peak_rss as f64 / (1024.0 * 1024.0)
        ),
    );
    row.hangs_and_panics = hangs + panics_in(&server.log_text());
    if errors > 0 {
        findings.insert(0, format!("{errors} POS calls ended in an error"));
    }
    row.findings = findings;
    ledger_findings.fill(&mut row);
    Ok(vec![row])
}
