//! Figures for printing: how long one PDF takes for the largest invoice the API accepts (1000
//! lines with 255-character names, 1000 characters of notes), and for the note stored by
//! an older Arka (1.9 MB without a space; it took 9 s on A4 and 17 s on a receipt before line
//! breaking became linear). Run with `cargo bench --bench print`; it prints, it asserts nothing.

use std::time::{Duration, Instant};

use arka::print::{BusinessUnit, Layout, Line, Payment, PrintInvoice, Seller, Totals, render};
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
        seller: Seller {
            name: "Dyqani Çelësi i Artë sh.p.k.".to_string(),
            nuis: "L12345678A".to_string(),
            address: "Rruga e Kavajës 12".to_string(),
            city: "Tiranë".to_string(),
        },
        business_unit: BusinessUnit {
            name: "Pika Qendër".to_string(),
            code: "ab123cd456".to_string(),
            address: "Bulevardi Dëshmorët e Kombit".to_string(),
        },
        tcr_code: Some("tc123tc456".to_string()),
        operator_code: "op123op456".to_string(),
        number: "12/2026".to_string(),
        issued_at: "2026-03-14 10:25:07".to_string(),
        invoice_type: "CASH".to_string(),
        buyer: None,
        lines: vec![line; lines],
        vat_groups: Vec::new(),
        invoice_discount: None,
        fee: None,
        totals: Totals { net: Decimal::ZERO, vat: Decimal::ZERO, gross: Decimal::ZERO },
        currency: "ALL".to_string(),
        exchange_rate: None,
        totals_all: None,
        payments: vec![Payment { method: "Para në dorë / Cash".to_string(), amount: Decimal::ZERO }],
        iic: "0123456789ABCDEF0123456789ABCDEF".to_string(),
        fic: None,
        eic: None,
        verify_url: "https://efiskalizimi-app.tatime.gov.al/invoice-check/#/verify?iic=0123456789ABCDEF0123456789ABCDEF&tin=L12345678A".to_string(),
        notes: Some(notes),
        footer_lines: vec!["Arka".to_string()],
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
