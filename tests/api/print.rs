//! The printed invoice read back by an outside tool: Debian's `pdftotext` (poppler-utils) must
//! find the number, the IIC, the totals, the Albanian letters and the FIC (or "pending") on
//! both the A4 page and the receipt.

use crate::common;
use std::process::Command;
use std::str::FromStr;

use arka::print::{
    BusinessUnit, Buyer, InvoiceDiscount, Layout, Line, Payment, PrintInvoice, Seller, Totals, VatGroup,
    render,
};
use rust_decimal::Decimal;

fn dec(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap()
}

/// A shop in Tirana sells to a company in euro: a line discount, an invoice discount, two VAT
/// groups and two payments.
fn invoice() -> PrintInvoice {
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
        invoice_type: "NONCASH".to_string(),
        buyer: Some(Buyer {
            name: "Ndërtimi Shqiptar sh.a.".to_string(),
            id_type: "NUIS".to_string(),
            id_value: "K98765432B".to_string(),
            address: "Rruga Myslym Shyri 5".to_string(),
            city: "Durrës".to_string(),
            country: "ALB".to_string(),
        }),
        lines: vec![
            Line {
                name: "Çelës dyshe me kokë të gjatë prej çeliku të farkëtuar, model profesional për ndërtim"
                    .to_string(),
                code: "CEL-0042".to_string(),
                unit: "copë".to_string(),
                quantity: dec("3"),
                unit_price: dec("12.00"),
                discount_percent: Some(dec("10")),
                vat_rate: dec("20"),
                total: dec("32.40"),
            },
            Line {
                name: "Libër udhëzues".to_string(),
                code: "LIB-7".to_string(),
                unit: "copë".to_string(),
                quantity: dec("1"),
                unit_price: dec("8.00"),
                discount_percent: None,
                vat_rate: dec("0"),
                total: dec("8.00"),
            },
        ],
        vat_groups: vec![
            VatGroup { label: "TVSH 20%".to_string(), net: dec("25.50"), vat: dec("5.10"), gross: dec("30.60") },
            VatGroup {
                label: "Përjashtuar (TYPE_1)".to_string(),
                net: dec("7.56"),
                vat: dec("0.00"),
                gross: dec("7.56"),
            },
        ],
        invoice_discount: Some(InvoiceDiscount { amount: dec("2.24"), description: "Klient besnik".to_string() }),
        fee: None,
        totals: Totals { net: dec("33.06"), vat: dec("5.10"), gross: dec("38.16") },
        currency: "EUR".to_string(),
        exchange_rate: Some(dec("100.25")),
        totals_all: Some(Totals { net: dec("3314.27"), vat: dec("511.28"), gross: dec("3825.54") }),
        payments: vec![
            Payment { method: "Transfertë bankare / Bank transfer".to_string(), amount: dec("30.00") },
            Payment { method: "Kartë / Card".to_string(), amount: dec("8.16") },
        ],
        iic: "0123456789ABCDEF0123456789ABCDEF".to_string(),
        fic: None,
        eic: None,
        verify_url: "https://efiskalizimi-app.tatime.gov.al/invoice-check/#/verify?iic=0123456789ABCDEF0123456789ABCDEF&tin=L12345678A&crtd=2026-03-14T10:25:07+01:00&ord=12&bu=ab123cd456&cr=tc123tc456&sw=ss123ss123&prc=38.16".to_string(),
        notes: Some("Malli u dorëzua në magazinën e blerësit.".to_string()),
        footer_lines: vec!["Lëshuar me Arka".to_string(), "Faleminderit!".to_string()],
    }
}

fn assert_contains_all(text: &str, wanted: &[&str], what: &str) {
    for needle in wanted {
        assert!(text.contains(needle), "{what}: {needle:?} not found in:\n{text}");
    }
}

#[test]
fn pdftotext_reads_every_fiscal_field_on_both_papers() {
    let pending = invoice();
    let mut fiscalized = invoice();
    fiscalized.fic = Some("8c6b2f7e-3d1a-4c55-9e0f-7a2b1c3d4e5f".to_string());
    fiscalized.eic = Some("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0".to_string());

    for (layout, name) in [(Layout::A4, "a4"), (Layout::Receipt80mm, "receipt")] {
        let text = common::pdftotext(&render(&pending, layout).unwrap());
        let shared = [
            "12/2026",
            "0123456789ABCDEF0123456789ABCDEF",
            "38.16 EUR",
            "33.06 EUR",
            "5.10 EUR",
            "3825.54 ALL",
            "1 EUR = 100.25 ALL",
            "-2.24 EUR",
            "32.40",
            "30.60",
            "Tiranë",
            "Çelësi i Artë",
            "Përjashtuar (TYPE_1)",
            "Ndërtimi Shqiptar",
            "K98765432B",
            "L12345678A",
            "tc123tc456",
            "op123op456",
            "2026-03-14 10:25:07",
            "Transfertë bankare",
            "Faleminderit!",
        ];
        assert_contains_all(&text, &shared, name);
        assert_contains_all(&text, &["në pritje / pending"], name);

        let fiscalized_name = format!("{name}-fiscalized");
        let text = common::pdftotext(&render(&fiscalized, layout).unwrap());
        assert_contains_all(
            &text,
            &["8c6b2f7e-3d1a-4c55-9e0f-7a2b1c3d4e5f", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "12/2026"],
            &fiscalized_name,
        );
        assert!(!text.contains("pending"), "{fiscalized_name}: still pending:\n{text}");
    }
}

#[test]
fn pdfinfo_sees_the_title_and_the_pages() {
    let directory = tempfile::tempdir().unwrap();
    let mut long = invoice();
    long.lines =
        (1..=120).map(|n| Line { name: format!("Artikull {n}"), ..invoice().lines[1].clone() }).collect();
    // 120 lines fill three A4 pages; the receipt just grows.
    for (layout, name, min_pages, max_pages) in
        [(Layout::A4, "a4", 3, 5), (Layout::Receipt80mm, "receipt", 1, 1)]
    {
        let path = directory.path().join(format!("{name}.pdf"));
        std::fs::write(&path, render(&long, layout).unwrap()).unwrap();
        let output = common::oracle(Command::new("pdfinfo").arg(&path), "poppler-utils");
        assert!(
            output.status.success(),
            "pdfinfo failed on {name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let info = String::from_utf8_lossy(&output.stdout);
        let field = |key: &str| {
            info.lines()
                .find_map(|line| line.strip_prefix(key))
                .map(|value| value.trim().to_string())
                .unwrap_or_default()
        };
        assert_eq!(field("Title:"), "12/2026", "{name}:\n{info}");
        let pages: usize = field("Pages:").parse().unwrap();
        assert!((min_pages..=max_pages).contains(&pages), "{name}: {pages} pages");
    }
}

#[test]
fn the_qr_code_scans_back_to_the_verify_url() {
    let directory = tempfile::tempdir().unwrap();
    let invoice = invoice();
    for (layout, name) in [(Layout::A4, "a4"), (Layout::Receipt80mm, "receipt")] {
        let pdf_path = directory.path().join(format!("{name}.pdf"));
        std::fs::write(&pdf_path, render(&invoice, layout).unwrap()).unwrap();
        let image_prefix = directory.path().join(name);
        let rasterized = common::oracle(
            Command::new("pdftoppm")
                .args(["-png", "-r", "150", "-singlefile"])
                .arg(&pdf_path)
                .arg(&image_prefix),
            "poppler-utils",
        );
        assert!(rasterized.status.success(), "pdftoppm failed on {name}");
        let image_path = directory.path().join(format!("{name}.png"));
        let scanned =
            common::oracle(Command::new("zbarimg").args(["--quiet", "--raw"]).arg(&image_path), "zbar-tools");
        assert!(scanned.status.success(), "zbarimg found no code on {name}");
        let decoded = String::from_utf8_lossy(&scanned.stdout);
        assert_eq!(decoded.trim_end(), invoice.verify_url, "{name}");
    }
}
