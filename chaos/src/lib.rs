//! The reliability campaign (`arka-chaos`, docs "Reliability campaign"): the real `arka`
//! binary and its CIS simulator as child processes on loopback, driven the way POS apps drive
//! them, and one table of figures. Six sections:
//!
//! * `crash`: POS apps issue on two TCRs, the server is SIGKILLed at a random moment (half the
//!   time with the CIS down) and restarted on the same data dir; the books are then checked.
//! * `faults`: under load the simulator goes down, slow, faulty and garbled and back.
//! * `fuzz`: every route of `assets/openapi.yaml` with bodies, paths and queries built from its
//!   schema and then broken; and each once with a valid body and more after it (`trailing`).
//! * `isolation`: one company's ids, codes and internalIds tried with another's token.
//! * `leaks`: tokens, the certificate password and the private key looked for in the logs and
//!   the data dir, in every encoding.
//! * `load`: 16 POS on 4 TCRs against a CIS answering after 150 ms.
//!
//! Every loop is bounded in requests and time; every child process and folder goes when its
//! trial ends, also on an error or a panic (guards).

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod client;
pub mod crash;
pub mod faults;
pub mod fuzz;
pub mod hq;
pub mod isolation;
pub mod leaks;
pub mod ledger;
pub mod load;
pub mod pg;
pub mod pos;
pub mod procs;
pub mod shop;
pub mod table;
pub mod trailing;

use std::path::PathBuf;
use std::time::Duration;

pub use table::{Report, Row};

/// Why the campaign could not run a part (a finding is not an error: it is a row's figure).
#[derive(Debug)]
pub enum Error {
    Io(std::io::Error),
    Sqlite(rusqlite::Error),
    /// A child process or a trial's set-up failed.
    Setup(String),
    /// The server answered something no check expects.
    Unexpected(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Io(e) => write!(f, "{e}"),
            Error::Sqlite(e) => write!(f, "reading the books: {e}"),
            Error::Setup(m) => write!(f, "setting up: {m}"),
            Error::Unexpected(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            Error::Sqlite(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Sqlite(e)
    }
}

/// The sections, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Section {
    Crash,
    Faults,
    Fuzz,
    Isolation,
    Leaks,
    Load,
    /// A chain's head office under kill -9s, PostgreSQL restarts, a twin box and a restore.
    Hq,
}

impl Section {
    pub const ALL: [Section; 7] = [
        Section::Crash,
        Section::Faults,
        Section::Fuzz,
        Section::Isolation,
        Section::Leaks,
        Section::Load,
        Section::Hq,
    ];
}

/// How much of each section runs.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The `arka` binary under test.
    pub arka: PathBuf,
    /// Seeds every random choice (kill moments, fuzzed values), printed with the table.
    pub seed: u64,
    pub crash_trials: usize,
    /// Each crash trial runs between these many POS apps (inclusive).
    pub crash_pos: (usize, usize),
    /// Seconds of each simulator mode in the fault run.
    pub fault_phase: Duration,
    pub fuzz_requests: usize,
    pub load_pos: usize,
    pub load_tcrs: usize,
    pub load_time: Duration,
    /// POS apps per shop, and each phase's time, in the HQ section.
    pub hq_pos: usize,
    pub hq_phase: Duration,
}

impl Plan {
    /// The full run whose table the docs show ("The full run").
    pub fn full(arka: PathBuf, seed: u64) -> Plan {
        Plan {
            arka,
            seed,
            crash_trials: 50,
            crash_pos: (8, 16),
            fault_phase: Duration::from_secs(8),
            fuzz_requests: 10_000,
            load_pos: 16,
            load_tcrs: 4,
            load_time: Duration::from_secs(60),
            hq_pos: 4,
            hq_phase: Duration::from_secs(10),
        }
    }

    /// The short run CI makes (tests/api/chaos.rs): every section, smaller.
    pub fn short(arka: PathBuf, seed: u64) -> Plan {
        Plan {
            arka,
            seed,
            crash_trials: 4,
            crash_pos: (8, 8),
            fault_phase: Duration::from_secs(3),
            fuzz_requests: 1_500,
            load_pos: 8,
            load_tcrs: 4,
            load_time: Duration::from_secs(5),
            hq_pos: 2,
            hq_phase: Duration::from_secs(3),
        }
    }
}

/// Runs `sections` of `plan`, telling `progress` what it is doing, and returns the table.
pub fn run(plan: &Plan, sections: &[Section], progress: &dyn Fn(&str)) -> Result<Report, Error> {
    let mut report = Report::new(plan.seed);
    for section in sections {
        let rows = match section {
            Section::Crash => crash::run(plan, progress)?,
            Section::Faults => faults::run(plan, progress)?,
            Section::Fuzz => {
                let mut rows = fuzz::run(plan, progress)?;
                rows.extend(trailing::run(plan, progress)?);
                rows
            }
            Section::Isolation => isolation::run(plan, progress)?,
            Section::Leaks => leaks::run(plan, progress)?,
            Section::Load => load::run(plan, progress)?,
            Section::Hq => hq::run(plan, progress)?,
        };
        report.rows.extend(rows);
    }
    Ok(report)
}

/// The `q`-th quantile (0..=1) of `durations` in milliseconds; 0 when there are none.
pub fn quantile_ms(durations: &mut [Duration], q: f64) -> f64 {
    if durations.is_empty() {
        return 0.0;
    }
    durations.sort_unstable();
    let last = durations.len() - 1;
    // The nearest rank: a small sample's p99 is its largest value.
    let rank = ((last as f64) * q).ceil() as usize;
    durations[rank.min(last)].as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_take_the_nearest_rank_above() {
        let mut d: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(quantile_ms(&mut d, 0.5), 51.0);
        assert_eq!(quantile_ms(&mut d, 0.99), 100.0);
        assert_eq!(quantile_ms(&mut [], 0.5), 0.0);
        assert_eq!(quantile_ms(&mut [Duration::from_millis(7)], 0.99), 7.0);
    }
}
