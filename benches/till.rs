//! Figures for issue 45: a till's payment to the receipt's last byte at the printer, in the
//! optimised build, as the till makes it: the cash sale (`POST /api/v2/invoice/cash`), then its
//! receipt (`POST /api/v1/invoice/{id}/receipt`) to a printer on loopback that answers the paper
//! sensor as a receipt printer does; the CIS simulator answering at once, then after 150 ms.
//! Everything runs in this process: a real Arka server (`arka::run`), the simulator, the printer,
//! the till's HTTP client. The browser story (tests/api/till_browser.rs) measures the same with
//! Chromium in a debug build; this is the shipped code's share. Run with `cargo bench --bench
//! till`; `ARKA_BENCH_SALES` sets the sales of each case (default 200). It prints, it asserts
//! nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{
    Server, Sim, agent, get, load_average, machine, ms, open_till, percentile, post_json_timed, server_args,
    setting,
};
use serde_json::{Value, json};

/// One receipt as the printer got it: when its connection was accepted, when its last byte came.
struct Received {
    accepted: Instant,
    done: Instant,
}

/// A receipt printer on loopback: answers `DLE EOT 4` (paper present) as the first bytes of a
/// connection and reads to the end; one connection at a time, as a printer takes them.
fn printer() -> (SocketAddr, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let (sent, received) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let accepted = Instant::now();
            let (mut bytes, mut buffer, mut answered) = (Vec::new(), [0u8; 8192], false);
            while let Ok(n) = stream.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                bytes.extend_from_slice(&buffer[..n]);
                if !answered && bytes.starts_with(&[0x10, 0x04, 4]) {
                    answered = true;
                    let _ = stream.write_all(&[0x12]);
                }
            }
            if sent.send(Received { accepted, done: Instant::now() }).is_err() {
                return;
            }
        }
    });
    (address, received)
}

/// What the till sends for a sale of two coffees paid in cash.
fn sale(internal_id: &str) -> Value {
    json!({
        "internalId": internal_id,
        "lines": [{"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 2, "price": 120, "total": 240, "vat": 20}],
        "payment_methods": [{"type": "BANKNOTE", "amount": 240}],
    })
}

/// Where one payment's time went.
struct Steps {
    /// The sale's request to its answer (the CIS's round trip in it).
    issue: Duration,
    /// Of it, Arka's own time less its CIS call (the answer's `Server-Timing`).
    arka: Duration,
    /// The receipt's request to the printer accepting its connection.
    to_printer: Duration,
    /// The printer's connection to its last byte (the paper sensor's question in it).
    bytes: Duration,
    total: Duration,
}

fn sell(base: &str, token: &str, printed: &mpsc::Receiver<Received>, name: &str) -> Steps {
    let agent = agent();
    let start = Instant::now();
    let (status, reply, timing) =
        post_json_timed(&agent, &format!("{base}/api/v2/invoice/cash"), token, &sale(name));
    let issued = Instant::now();
    assert!(status == 201 || status == 200, "the sale: {status} {reply}");
    let id = reply["data"]["invoice"]["id"].as_i64().unwrap();
    let url = format!("{base}/api/v1/invoice/{id}/receipt");
    let (status, reply, _) = post_json_timed(&agent, &url, token, &json!({"tendered": 500}));
    assert_eq!(status, 200, "the receipt: {reply}");
    let receipt = printed.recv_timeout(Duration::from_secs(10)).expect("the printer got the receipt");
    let timing = timing.expect("the sale's Server-Timing");
    Steps {
        issue: issued - start,
        arka: timing.app.saturating_sub(timing.cis),
        to_printer: receipt.accepted.saturating_duration_since(issued),
        bytes: receipt.done - receipt.accepted,
        total: receipt.done - start,
    }
}

fn figures(label: &str, steps: &[Steps]) {
    let part = |f: fn(&Steps) -> Duration| {
        let mut values: Vec<Duration> = steps.iter().map(f).collect();
        values.sort();
        (ms(percentile(&values, 50.0)), ms(percentile(&values, 95.0)), ms(values[values.len() - 1]))
    };
    let (median, p95, slowest) = part(|s| s.total);
    println!(
        "pay to the printer's last byte, the CIS answering {label}: median {median:.1} ms, p95 {p95:.1} ms, slowest {slowest:.1} ms over {} sales (load {})",
        steps.len(),
        load_average()
    );
    for (what, f) in [
        ("the sale issued", (|s: &Steps| s.issue) as fn(&Steps) -> Duration),
        ("  of it Arka's own time", |s| s.arka),
        ("the receipt's request to the printer", |s| s.to_printer),
        ("the printer's bytes", |s| s.bytes),
    ] {
        let (median, p95, _) = part(f);
        println!("  {what:<38} median {median:>6.1} ms, p95 {p95:>6.1} ms");
    }
}

fn main() {
    let sales = usize::try_from(setting("ARKA_BENCH_SALES", 200)).unwrap_or(200);
    println!("{}", machine());
    let sim = Sim::start();
    let dir = tempfile::Builder::new().prefix("arka-bench-till-").tempdir().unwrap();
    let mut args = server_args(&dir.path().join("data"));
    sim.configure(&mut args);
    let server = Server::start(args);
    let base = server.base();
    let token = open_till(&base, &server.db).token;
    let (address, printed) = printer();
    let (_, listed) = get(&agent(), &format!("{base}/api/v1/printers"), &token);
    let tcr = listed["data"]["items"][0]["tcrCode"].as_str().unwrap().to_string();
    let reply = agent()
        .put(format!("{base}/api/v1/printers/{tcr}"))
        .header("Authorization", format!("Bearer {token}"))
        .content_type("application/json")
        .send(json!({"connection": "network", "address": address.to_string()}).to_string())
        .unwrap();
    assert_eq!(reply.status().as_u16(), 200, "the printer is set");
    // Warm up: the day's opening, connections, statement caches.
    for n in 0..10 {
        sell(&base, &token, &printed, &format!("warm-{n}"));
    }
    for (mode, label, goal) in [
        (json!({"mode": "ok"}), "at once", "< 150 ms"),
        (json!({"mode": "slow", "delay_ms": 150}), "after 150 ms", "< 400 ms"),
    ] {
        sim.set_mode(mode);
        let steps: Vec<Steps> = (0..sales)
            .map(|n| sell(&base, &token, &printed, &format!("{}-{n}", label.replace(' ', "-"))))
            .collect();
        println!("goal: p95 {goal}");
        figures(label, &steps);
    }
    drop(server);
    drop(sim);
}
