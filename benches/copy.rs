//! Figures for issue 46's copy off the box, side by side in one run (`cargo bench --bench copy`;
//! it prints, it asserts nothing): a sale's p50 with one POS without the copy and with it, the
//! copy's lag (p50, p99) while 16 POS sell, and the bytes sent per receipt to each place.
//!
//! A real server (`arka::run`, one TCR) and the CIS simulator in this process; the copy goes to a
//! folder on this disk and, when `target/moto` holds moto's server (as `./test` installs it), to
//! its S3 bucket on loopback. The shops without and with the copy run alternately, twice each
//! (`--copy-every` 10, the default), then once more with `--copy-every 1`. The lag is sampled from
//! `/healthz` every 100 ms while the 16 sell (to the millisecond: since the oldest sale a place
//! does not hold); the bytes are `arka_copy_sent_bytes` over the 16's receipts, the copy's base
//! sent before. `ARKA_BENCH_SECONDS` (default 15) is each selling run's length.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{
    LIMITS, Server, Sim, agent, load_average, machine, ms, open_till, percentile, sell, server_args, setting,
};
use serde_json::{Value, json};

const BUCKET: &str = "bench-copy";

/// moto's S3 server from `target/moto`, when there.
struct Moto {
    child: Child,
    url: String,
}

impl Moto {
    fn start() -> Option<Moto> {
        let server = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/moto/bin/moto_server");
        if !server.exists() {
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(reply) = agent().put(format!("{url}/{BUCKET}")).send(&[][..])
                && reply.status().as_u16() == 200
            {
                return Some(Moto { child, url });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A one-line cash receipt.
fn receipt(internal_id: &str) -> Value {
    json!({
        "internalId": internal_id,
        "lines": [{"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 2, "price": 120, "total": 240, "vat": 20}],
        "payment_method": "BANKNOTE",
    })
}

fn health(base: &str) -> Value {
    let mut reply = agent().get(format!("{base}/healthz")).call().unwrap();
    serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap()
}

/// `arka_copy_sent_bytes` of every place, from `/metrics`.
fn sent_bytes(base: &str) -> Vec<(String, f64)> {
    let mut reply = agent().get(format!("{base}/metrics")).call().unwrap();
    let text = reply.body_mut().read_to_string().unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("arka_copy_sent_bytes{place=\""))
        .filter_map(|rest| {
            let (place, value) = rest.split_once("\"} ")?;
            Some((place.to_string(), value.trim().parse().ok()?))
        })
        .collect()
}

/// Waits until every place holds every sale (at most 10 minutes).
fn caught_up(base: &str) {
    let deadline = Instant::now() + Duration::from_secs(600);
    while Instant::now() < deadline {
        let copy = &health(base)["copy"];
        let places = copy["places"].as_array().cloned().unwrap_or_default();
        if !places.is_empty()
            && places.iter().all(|p| p["restorable"] == true && p["lag_seconds"].as_f64() == Some(0.0))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the copy did not catch up: {}", health(base));
}

/// What a shop without or with the copy measured.
struct Figures {
    one_p50: Duration,
    sixteen: usize,
    sixteen_rate: f64,
    lags: Vec<Duration>,
    sent: Vec<(String, f64)>,
}

#[derive(Clone, Copy)]
enum Variant {
    Plain,
    Copy { every: u64 },
}

fn run(sim: &Sim, moto: Option<&Moto>, variant: Variant, seconds: u64) -> Figures {
    let dir = tempfile::Builder::new().prefix("arka-bench-copy-").tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut args = server_args(&data);
    sim.configure(&mut args);
    args.metrics = true;
    args.limits = LIMITS.parse().unwrap();
    if let Variant::Copy { every } = variant {
        arka::copy::make_key(&data.join(arka::copy::KEY_FILE)).unwrap();
        args.copy.copy_every = every;
        args.copy.places.copy_dir = Some(dir.path().join("copy"));
        if let Some(moto) = moto {
            let c = &mut args.copy.places;
            c.copy_s3_url = Some(moto.url.clone());
            c.copy_s3_bucket = Some(BUCKET.into());
            c.copy_s3_access_key = Some("bench".into());
            c.copy_s3_secret_key = Some(arka::config::Secret("bench".into()));
            c.copy_s3_prefix = format!("run-{}", chrono::Utc::now().timestamp_micros());
        }
    }
    let server = Server::start(args);
    let base = server.base();
    let till = open_till(&base, &data.join("arka.db"));
    let copied = matches!(variant, Variant::Copy { .. });
    if copied {
        caught_up(&base);
    }
    let limit = Duration::from_secs(seconds);
    let tag = format!("{}", chrono::Utc::now().timestamp_micros());
    sell(&base, &till.token, &format!("{tag}-warm"), 1, Duration::from_secs(2), receipt);
    let (one, _) = sell(&base, &till.token, &format!("{tag}-one"), 1, limit, receipt);
    if copied {
        caught_up(&base);
    }
    let before = if copied { sent_bytes(&base) } else { Vec::new() };
    let sampling = Arc::new(AtomicBool::new(copied));
    let sampler = {
        let (sampling, base) = (sampling.clone(), base.clone());
        std::thread::spawn(move || {
            let mut lags = Vec::new();
            while sampling.load(Ordering::SeqCst) {
                if let Some(lag) = health(&base)["copy"]["lag_seconds"].as_f64() {
                    lags.push(Duration::from_secs_f64(lag));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            lags
        })
    };
    let started = Instant::now();
    let (sixteen, _) = sell(&base, &till.token, &format!("{tag}-sixteen"), 16, limit, receipt);
    let took = started.elapsed();
    sampling.store(false, Ordering::SeqCst);
    let mut lags = sampler.join().unwrap();
    lags.sort_unstable();
    let sent = if copied {
        caught_up(&base);
        let after = sent_bytes(&base);
        after
            .into_iter()
            .map(|(place, bytes)| {
                let was = before.iter().find(|(p, _)| *p == place).map_or(0.0, |(_, b)| *b);
                (place, bytes - was)
            })
            .collect()
    } else {
        Vec::new()
    };
    drop(server);
    Figures {
        one_p50: percentile(&one, 50.0),
        sixteen: sixteen.len(),
        sixteen_rate: sixteen.len() as f64 / took.as_secs_f64(),
        lags,
        sent,
    }
}

fn print(label: &str, f: &Figures) {
    let mut line = format!(
        "{label}: 1 POS p50 {:.2} ms; 16 POS {} sales, {:.0}/s",
        ms(f.one_p50),
        f.sixteen,
        f.sixteen_rate
    );
    if !f.lags.is_empty() {
        line.push_str(&format!(
            "; lag while 16 sell p50 {:.2} s, p99 {:.2} s ({} samples)",
            percentile(&f.lags, 50.0).as_secs_f64(),
            percentile(&f.lags, 99.0).as_secs_f64(),
            f.lags.len()
        ));
        for (place, bytes) in &f.sent {
            line.push_str(&format!("; {place} {:.0} bytes sent a receipt", bytes / f.sixteen.max(1) as f64));
        }
    }
    println!("{line}; load {}", load_average());
}

fn main() {
    println!("machine: {}; load average {} at start", machine(), load_average());
    let seconds = setting("ARKA_BENCH_SECONDS", 15);
    let sim = Sim::start();
    let moto = Moto::start();
    match &moto {
        Some(moto) => println!("places: a folder on this disk and moto's S3 bucket at {}", moto.url),
        None => println!("places: a folder on this disk (no moto in target/moto: ./test installs it)"),
    }
    let mut plain = Vec::new();
    let mut copied = Vec::new();
    for round in 1..=2 {
        let f = run(&sim, moto.as_ref(), Variant::Plain, seconds);
        print(&format!("round {round}, without the copy"), &f);
        plain.push(f);
        let f = run(&sim, moto.as_ref(), Variant::Copy { every: 10 }, seconds);
        print(&format!("round {round}, with the copy (--copy-every 10)"), &f);
        copied.push(f);
    }
    let f = run(&sim, moto.as_ref(), Variant::Copy { every: 1 }, seconds);
    print("with the copy (--copy-every 1)", &f);
    let p50 = |runs: &[Figures]| runs.iter().map(|f| ms(f.one_p50)).sum::<f64>() / runs.len() as f64;
    let rate = |runs: &[Figures]| runs.iter().map(|f| f.sixteen_rate).sum::<f64>() / runs.len() as f64;
    println!(
        "side by side (mean of the two rounds): a sale's p50 {:.2} ms without the copy, {:.2} ms with it ({:+.1} %); \
         16 POS {:.0}/s without, {:.0}/s with ({:+.1} %)",
        p50(&plain),
        p50(&copied),
        (p50(&copied) - p50(&plain)) / p50(&plain) * 100.0,
        rate(&plain),
        rate(&copied),
        (rate(&copied) - rate(&plain)) / rate(&plain) * 100.0
    );
    println!("load average at the end: {}", load_average());
}
