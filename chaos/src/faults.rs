//! The CIS misbehaving under load: POS apps sell on two TCRs while the simulator goes through
//! every mode it has and back. The server runs with its production time limits. Afterwards every
//! acknowledged document is fiscalized exactly once, and no sale was refused because of the
//! CIS's own trouble (only its client fault, which says the request is wrong, refuses).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::client::Client;
use super::ledger;
use super::pos::{Fleet, Kind, Mix};
use super::procs::{Stage, panics_in};
use super::shop::onboard;
use super::table::Row;
use super::{Error, Plan, quantile_ms};

/// One mode of the simulator: its row label, and how to set it.
struct Phase {
    label: &'static str,
    mode: &'static str,
    delay_ms: Option<u64>,
    fault_code: Option<&'static str>,
    /// Whether a refusal is right in this mode (the CIS said the request itself is wrong).
    refusals_expected: bool,
}

/// The simulator's client fault refuses whatever reaches it, also documents saved earlier and
/// delivered late, which the real CIS would have taken. So that phase comes right after the
/// first, once the queue is empty.
const PHASES: [Phase; 8] = [
    Phase { label: "ok", mode: "ok", delay_ms: None, fault_code: None, refusals_expected: false },
    Phase {
        label: "client fault (11)",
        mode: "fault",
        delay_ms: None,
        fault_code: Some("11"),
        refusals_expected: true,
    },
    Phase { label: "down", mode: "down", delay_ms: None, fault_code: None, refusals_expected: false },
    Phase {
        label: "slow 150 ms",
        mode: "slow",
        delay_ms: Some(150),
        fault_code: None,
        refusals_expected: false,
    },
    Phase {
        label: "slow 3 s",
        mode: "slow",
        delay_ms: Some(3000),
        fault_code: None,
        refusals_expected: false,
    },
    Phase {
        label: "server fault (999)",
        mode: "fault",
        delay_ms: None,
        fault_code: Some("999"),
        refusals_expected: false,
    },
    Phase { label: "garbage", mode: "garbage", delay_ms: None, fault_code: None, refusals_expected: false },
    Phase { label: "back to ok", mode: "ok", delay_ms: None, fault_code: None, refusals_expected: false },
];

/// What a POS got in one phase.
#[derive(Default)]
struct Seen {
    statuses: BTreeMap<u16, usize>,
    times: Vec<Duration>,
}

const DRAIN_WAIT: Duration = Duration::from_secs(90);

pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    progress("faults: the simulator through every mode under load");
    let stage = Stage::start(&plan.arka, "faults", &[])?;
    let (sim, server, partner) = (&stage.sim, &stage.server, stage.partner.as_str());
    let client = Client::new(&server.base, Duration::from_secs(30));
    let shop = onboard(&client, partner, "L41323036D", 2)?;

    let fleet = Fleet {
        base: &server.base,
        tills: &shop.tills,
        count: 8,
        mix: Mix { deposits: true, cancellations: false, wtns: true, noncash: false },
        deadline: Instant::now() + plan.fault_phase * (PHASES.len() as u32 + 2) + DRAIN_WAIT,
        stop_on_silence: false,
        call_limit: Duration::from_secs(30),
    };
    let (outcomes, starts) = fleet.work(|| {
        let mut starts = Vec::new();
        for phase in &PHASES {
            if phase.refusals_expected {
                server.wait_drained(DRAIN_WAIT)?;
            }
            starts.push((Instant::now(), phase.label));
            sim.set_mode(phase.mode, phase.delay_ms, phase.fault_code)?;
            std::thread::sleep(plan.fault_phase);
        }
        Ok::<_, Error>(starts)
    });
    let starts = starts?;
    let phase_at = |at: Instant| starts.iter().rev().find(|(start, _)| *start <= at).map(|(_, label)| *label);

    let mut seen: BTreeMap<&str, Seen> = BTreeMap::new();
    let mut acks = Vec::new();
    let (mut hangs, mut refused_for_cis_trouble, mut server_errors) = (0, 0, 0);
    let mut findings = Vec::new();
    for outcome in &outcomes {
        hangs += outcome.hangs;
        for answer in &outcome.answers {
            let entry = seen.entry(phase_at(answer.sent_at).unwrap_or("ok")).or_default();
            *entry.statuses.entry(answer.status).or_default() += 1;
            // A 429 (the till busy, a token's WTN interval) is waited out and sent again: the
            // times are those of the answers a POS keeps.
            if answer.status != 429 {
                entry.times.push(answer.elapsed);
            }
        }
        acks.extend(outcome.acks.iter().cloned());
    }
    for refusal in outcomes.iter().flat_map(|o| &o.refused) {
        let label = phase_at(refusal.sent_at).unwrap_or("ok");
        // A request sent in one phase may meet the CIS of the next one (a 3 s answer).
        let answered_in = phase_at(refusal.answered_at).unwrap_or("ok");
        let expected =
            PHASES.iter().any(|p| (p.label == label || p.label == answered_in) && p.refusals_expected);
        if refusal.status >= 500 {
            server_errors += 1;
            findings.push(format!("{label}: HTTP {}: {}", refusal.status, refusal.body));
        } else if !expected {
            refused_for_cis_trouble += 1;
            findings.push(format!("{label}: refused with HTTP {}: {}", refusal.status, refusal.body));
        }
    }
    let drained = server.wait_drained(DRAIN_WAIT)?;
    if !drained {
        findings.push(format!("the queue did not drain within {DRAIN_WAIT:?} after the CIS came back"));
    }
    let registered = sim.registered()?;
    let (ledger_findings, counts) = ledger::check(&stage.db(), &acks, &[], &registered)?;
    let panics = panics_in(&server.log_text());

    let mut rows = Vec::new();
    for phase in &PHASES {
        let Some(s) = seen.get_mut(phase.label) else { continue };
        let answers: usize = s.statuses.values().sum();
        let statuses: Vec<String> = s.statuses.iter().map(|(status, n)| format!("{n}×{status}")).collect();
        rows.push(Row::new(
            &format!("faults: {}", phase.label),
            format!("{answers} answers"),
            format!(
                "{}; without the 429s p50 {:.0} ms, p99 {:.0} ms",
                statuses.join(" "),
                quantile_ms(&mut s.times, 0.5),
                quantile_ms(&mut s.times, 0.99)
            ),
        ));
    }
    let queued = acks.iter().filter(|a| a.queued).count();
    let sales = acks.iter().filter(|a| a.kind == Kind::Cash).count();
    let mut row = Row::new(
        "faults: after recovery",
        format!("{} phases of {:?}, 8 POS on 2 TCRs", PHASES.len(), plan.fault_phase),
        format!(
            "{} acknowledged ({sales} sales, {queued} saved for later), {} documents fiscalized once, {} refused by the client fault; {refused_for_cis_trouble} refused for the CIS's trouble",
            acks.len(),
            counts.invoices + counts.deposits + counts.wtns - counts.refused,
            counts.refused
        ),
    );
    row.server_errors = server_errors;
    row.hangs_and_panics = hangs + panics;
    row.findings = findings;
    ledger_findings.fill(&mut row);
    rows.push(row);
    Ok(rows)
}
