//! Figures for printing: how long one PDF takes for the largest invoice the API accepts (1000
//! lines with 255-character names, 1000 characters of notes), and for the note stored by
//! an older Arka (1.9 MB without a space; it took 9 s on A4 and 17 s on a receipt before line
//! breaking became linear). Run with `cargo bench --bench print`; it prints, it asserts nothing.

use std::time::{Duration, Instant};

use arka::print::{Layout, Line, PrintInvoice, render};
use rust_decimal::Decimal;

fn invoice(lines: usize, name: &str, notes: String) -> PrintInvoice {
    let line = Line {
        name: name.to_string(),
        code: "P-000001".to_string(),
        unit: "copë".to_string(),
        quantity: Decimal::ONE,
        unit_price: Decimal::ONE_HUNDRED,
        discount_percent: None,
        vat_rate: Decimal::from(20),
        total: Decimal::ONE_HUNDRED,
    };
    PrintInvoice {
        number: "12/2026".to_string(),
        lines: vec![line; lines],
        currency: "ALL".to_string(),
        iic: "0123456789ABCDEF0123456789ABCDEF".to_string(),
        verify_url: "https://efiskalizimi-app.tatime.gov.al/invoice-check/#/verify?iic=0123456789ABCDEF0123456789ABCDEF".to_string(),
        notes: Some(notes),
        ..PrintInvoice::default()
    }
}

/// The median of `runs` renders, and the size of the last PDF.
fn time(invoice: &PrintInvoice, layout: Layout, runs: usize) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut size = 0;
    for _ in 0..runs {
        let start = Instant::now();
        size = render(invoice, layout).map(|pdf| pdf.len()).unwrap_or_default();
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], size)
}

fn main() {
    let cases = [
        ("largest accepted invoice", invoice(1000, &"Ë".repeat(255), "x".repeat(1000))),
        ("1.9 MB note without a space", invoice(2, "Kafe", "x".repeat(1_900_000))),
    ];
    for (what, invoice) in &cases {
        for (layout, paper) in [(Layout::A4, "A4"), (Layout::Receipt80mm, "receipt")] {
            let (median, size) = time(invoice, layout, 5);
            println!(
                "{what:<30} {paper:<8} {:>8.1} ms  {:>8} KiB",
                median.as_secs_f64() * 1000.0,
                size / 1024
            );
        }
    }
}
