//! Crash trials: 8-16 POS apps issue cash sales, deposits, cancellations and WTNs on two TCRs;
//! the server is SIGKILLed at a random moment (in half the trials with the CIS down, so documents
//! wait in the late-delivery queue) and started again on the same data dir. The POS apps retry
//! what got no answer with the same internalId; once the CIS answers the queue must drain and
//! the books must hold every acknowledged document, each key once, without gaps.

use std::time::{Duration, Instant};

use super::client::Client;
use super::ledger::{self, Findings};
use super::pos::{self, Ack, Fleet, Kind, Mix, Outcome};
use super::procs::{Logging, Server, Sim, create_partner};
use super::shop::{ROOMY_LIMITS, onboard};
use super::table::Row;
use super::{Error, Plan};

/// How long the queue may take to drain once the CIS answers.
const DRAIN_WAIT: Duration = Duration::from_secs(60);
/// A POS call's time limit (a server that was killed answers at once: the connection is reset).
const CALL_LIMIT: Duration = Duration::from_secs(15);

/// What one trial found.
struct Trial {
    findings: Findings,
    acknowledged: usize,
    retried: usize,
    documents: i64,
    hangs: usize,
    server_errors: usize,
    panics: usize,
    drained: bool,
}

/// The flags of a trial's server: the simulator, short CIS time limits, roomy limits.
pub fn server_flags(sim: &Sim) -> Vec<String> {
    let mut flags = sim.flags();
    flags.push("--cis-connect-timeout=1".to_string());
    flags.push("--cis-timeout=2".to_string());
    flags.push(format!("--limits={ROOMY_LIMITS}"));
    flags
}

fn trial(plan: &Plan, rng: &mut fastrand::Rng, cis_down_at_kill: bool) -> Result<Trial, Error> {
    let sim = Sim::start(&plan.arka)?;
    let dir = tempfile::Builder::new().prefix("arka-chaos-crash-").tempdir()?;
    let data = dir.path().join("data");
    let log = dir.path().join("arka.log");
    let partner = create_partner(&plan.arka, &data)?;
    let flags = server_flags(&sim);
    let server = Server::start(&plan.arka, &data, &log, Logging::PLAIN, &flags)?;
    let setup = Client::new(&server.base, CALL_LIMIT);
    let shop = onboard(&setup, &partner, "L41323036D", 2)?;

    let pos_count = rng.usize(plan.crash_pos.0..=plan.crash_pos.1);
    let run_for = Duration::from_millis(rng.u64(400..2500));
    let down_before_kill = Duration::from_millis(rng.u64(200..800));
    let base = server.base.clone();
    let fleet = Fleet {
        base: &base,
        tills: &shop.tills,
        count: pos_count,
        mix: Mix::EVERYTHING,
        deadline: Instant::now() + Duration::from_secs(60),
        stop_on_silence: true,
        call_limit: CALL_LIMIT,
    };
    let (outcomes, moment) = fleet.work(|| {
        std::thread::sleep(run_for);
        let moment = if cis_down_at_kill {
            let set = sim.set_mode("down", None, None);
            std::thread::sleep(down_before_kill);
            set
        } else {
            Ok(())
        };
        // The kill, whatever the simulator said.
        server.kill();
        moment
    });
    moment?;

    let restarted_log = dir.path().join("arka-restarted.log");
    let server = Server::start(&plan.arka, &data, &restarted_log, Logging::PLAIN, &flags)?;
    let client = Client::new(&server.base, CALL_LIMIT);
    let mut acks: Vec<Ack> = Vec::new();
    let mut retried: Vec<(Kind, String)> = Vec::new();
    let mut hangs = 0;
    let mut server_errors = 0;
    for outcome in outcomes {
        hangs += outcome.hangs;
        server_errors += outcome.refused.iter().filter(|r| r.status >= 500).count();
        acks.extend(outcome.acks);
        for request in outcome.unanswered {
            // A deposit has no key to retry it by: the POS asks the owner instead.
            let Some(key) = request.key.clone() else { continue };
            let mut again = Outcome::default();
            let result = pos::send(&client, &request, &mut again);
            match result {
                Ok(answer) if answer.status < 500 || answer.status == 503 => {
                    if let Some(ack) = pos::acknowledged(request.kind, Some(&key), &answer) {
                        acks.push(ack);
                    }
                }
                Ok(_) => server_errors += 1,
                Err(_) => hangs += 1,
            }
            retried.push((request.kind, key));
        }
    }
    sim.set_mode("ok", None, None)?;
    let drained = server.wait_drained(DRAIN_WAIT)?;
    let registered = sim.registered()?;
    let (mut findings, counts) = ledger::check(&data.join("arka.db"), &acks, &retried, &registered)?;
    if counts.refused > 0 {
        // The simulator never faults in these trials: nothing may be refused.
        findings.unfiscalized.push(format!("{} documents refused by the CIS", counts.refused));
    }
    let panics = super::procs::panics_in(&std::fs::read_to_string(&log).unwrap_or_default())
        + super::procs::panics_in(&server.log_text());
    Ok(Trial {
        findings,
        acknowledged: acks.len(),
        retried: retried.len(),
        documents: counts.invoices + counts.deposits + counts.wtns,
        hangs,
        server_errors,
        panics,
        drained,
    })
}

/// Runs the crash trials and gives their row.
pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    let mut rng = fastrand::Rng::with_seed(plan.seed);
    let mut findings = Findings::default();
    let (mut acknowledged, mut retried, mut documents) = (0, 0, 0);
    let (mut hangs, mut server_errors, mut panics, mut undrained) = (0, 0, 0, 0);
    for n in 0..plan.crash_trials {
        let cis_down = n % 2 == 1;
        progress(&format!(
            "crash trial {}/{} (CIS {} at the kill)",
            n + 1,
            plan.crash_trials,
            if cis_down { "down" } else { "up" }
        ));
        let t = trial(plan, &mut rng, cis_down)?;
        acknowledged += t.acknowledged;
        retried += t.retried;
        documents += t.documents;
        hangs += t.hangs;
        server_errors += t.server_errors;
        panics += t.panics;
        if !t.drained {
            undrained += 1;
        }
        findings.merge(t.findings);
    }
    let mut row = Row::new(
        "crash",
        format!(
            "{} SIGKILLs, half with the CIS down, {}-{} POS on 2 TCRs",
            plan.crash_trials, plan.crash_pos.0, plan.crash_pos.1
        ),
        format!(
            "{acknowledged} acknowledged, {retried} unanswered retried, {documents} documents; queue drained in {}/{} trials",
            plan.crash_trials - undrained,
            plan.crash_trials
        ),
    );
    row.server_errors = server_errors;
    row.hangs_and_panics = hangs + panics;
    findings.fill(&mut row);
    if undrained > 0 {
        row.findings.push(format!("the queue did not drain within {DRAIN_WAIT:?} in {undrained} trials"));
    }
    Ok(vec![row])
}
