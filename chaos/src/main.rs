//! `arka-chaos`: the reliability campaign against the real `arka` binary (docs "Reliability
//! campaign"). It parses, runs the library's campaign and prints its table; the exit code is 0
//! only when every row is clean.

use std::path::PathBuf;
use std::process::ExitCode;

use arka_chaos::{self as chaos, Plan, Section};
use clap::Parser;

/// Crash, fault, fuzz, isolation, leak and load trials against `arka serve` and `arka cis-sim`
/// on loopback; prints one table of figures.
#[derive(Parser)]
#[command(name = "arka-chaos", version, about, long_about = None)]
struct Args {
    /// The arka binary to try (a release build: `cargo build --release`).
    #[arg(long, default_value = "target/release/arka")]
    arka: PathBuf,
    /// The full run (50 crash trials, 10 000 fuzzed requests, 60 s of load); without it, the
    /// short run CI makes.
    #[arg(long)]
    full: bool,
    /// Only these sections (repeat the flag); all of them by default.
    #[arg(long, value_enum)]
    only: Vec<Section>,
    /// Seeds the random choices; a run with the same seed makes the same choices.
    #[arg(long)]
    seed: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.arka.is_file() {
        eprintln!(
            "arka-chaos: no arka binary at {} (build it first: cargo build --release)",
            args.arka.display()
        );
        return ExitCode::from(2);
    }
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let plan = if args.full { Plan::full(args.arka, seed) } else { Plan::short(args.arka, seed) };
    let sections = if args.only.is_empty() { Section::ALL.to_vec() } else { args.only };
    let started = std::time::Instant::now();
    let progress = |what: &str| eprintln!("[{:>5.0} s] {what}", started.elapsed().as_secs_f64());
    match chaos::run(&plan, &sections, &progress) {
        Ok(report) => {
            println!("{}", report.render());
            println!("ran in {:.0} s", started.elapsed().as_secs_f64());
            if report.clean() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        Err(e) => {
            eprintln!("arka-chaos: {e}");
            ExitCode::from(2)
        }
    }
}
