//! Figures for the exchange-rate sources: how long reading each source's page takes on one core
//! (the reconstructed pages of tests/fixtures/rates/). Run with `cargo bench --bench rates`; it
//! prints, it asserts nothing.

use std::time::{Duration, Instant};

use arka::domain::currency::Source;
use arka::rates::page_reader;

const ROUNDS: u32 = 2000;

fn main() {
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap_or_default();
    println!("reading a source's page, {ROUNDS} rounds each (one core)");
    for (source, file) in
        [(Source::Boa, "boa"), (Source::Bkt, "bkt"), (Source::Iliria98, "iliria98"), (Source::Adon, "adon")]
    {
        let path = format!("{}/tests/fixtures/rates/{file}.html", env!("CARGO_MANIFEST_DIR"));
        let page = std::fs::read_to_string(&path).unwrap_or_default();
        let reader = page_reader(source);
        let mut quotes = 0;
        let started = Instant::now();
        for _ in 0..ROUNDS {
            quotes = reader.read(&page, today).map(|q| q.len()).unwrap_or(0);
        }
        let each: Duration = started.elapsed() / ROUNDS;
        println!(
            "  {:<9} {:>6} bytes  {:>3} rates  {:>8.1} µs per read",
            source.as_str(),
            page.len(),
            quotes,
            each.as_secs_f64() * 1e6
        );
    }
}
