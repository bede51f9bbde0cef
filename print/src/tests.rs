use std::str::FromStr;

use rust_decimal::Decimal;

use super::*;

fn dec(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap()
}

fn line(name: &str, quantity: &str, price: &str, total: &str) -> Line {
    Line {
        name: name.to_string(),
        code: "P-001".to_string(),
        unit: "copë".to_string(),
        quantity: dec(quantity),
        unit_price: dec(price),
        discount_percent: None,
        vat_rate: dec("20"),
        total: dec(total),
    }
}

fn sample(lines: Vec<Line>) -> PrintInvoice {
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
        lines,
        vat_groups: vec![VatGroup {
            label: "TVSH 20%".to_string(),
            net: dec("100.00"),
            vat: dec("20.00"),
            gross: dec("120.00"),
        }],
        invoice_discount: None,
        fee: None,
        totals: Totals { net: dec("100.00"), vat: dec("20.00"), gross: dec("120.00") },
        currency: "ALL".to_string(),
        exchange_rate: None,
        totals_all: None,
        payments: vec![Payment { method: "Para në dorë / Cash".to_string(), amount: dec("120.00") }],
        iic: "0123456789ABCDEF0123456789ABCDEF".to_string(),
        fic: None,
        eic: None,
        verify_url: "https://efiskalizimi-app.tatime.gov.al/invoice-check/#/verify?iic=0123456789ABCDEF0123456789ABCDEF&tin=L12345678A&crtd=2026-03-14T10:25:07+01:00&ord=12&bu=ab123cd456&cr=tc123tc456&sw=ss123ss123&prc=120.00".to_string(),
        notes: None,
        footer_lines: vec!["Arka".to_string()],
    }
}

fn many_lines(count: usize) -> Vec<Line> {
    (1..=count)
        .map(|n| {
            line(
                &format!("Artikull numër {n} me një emër mjaft të gjatë për t'u mbështjellë në dy rreshta"),
                "1",
                "1.00",
                "1.00",
            )
        })
        .collect()
}

fn page_count(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    text.matches("/Type /Page").count() - text.matches("/Type /Pages").count()
}

/// The height of the first page's media box.
fn first_page_height(pdf: &[u8]) -> f32 {
    let text = String::from_utf8_lossy(pdf);
    let start = text.find("/MediaBox [").unwrap() + "/MediaBox [".len();
    let end = start + text[start..].find(']').unwrap();
    text[start..end].split_whitespace().nth(3).unwrap().parse().unwrap()
}

fn assert_is_pdf(pdf: &[u8]) {
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"));
}

#[test]
fn albanian_letters_and_the_euro_sign_have_winansi_bytes() {
    assert_eq!(winansi::encode("Ç ë € ß"), vec![0xC7, b' ', 0xEB, b' ', 0x80, b' ', 0xDF]);
    assert_eq!(winansi::encode("Ë ç"), vec![0xCB, b' ', 0xE7]);
    // Outside the encoding: Turkish Ş, an arrow, an emoji; tabs become spaces.
    assert_eq!(winansi::encode("Ş→😀\tx"), b"??? x".to_vec());
    assert_eq!(winansi::encode("“ok” – …"), vec![0x93, b'o', b'k', 0x94, b' ', 0x96, b' ', 0x85]);
}

#[test]
fn a_two_line_invoice_is_a_one_page_pdf_on_both_papers() {
    let invoice =
        sample(vec![line("Kafe ekspres", "2", "50.00", "100.00"), line("Ujë", "1", "20.00", "20.00")]);
    for layout in [Layout::A4, Layout::Receipt80mm] {
        let pdf = render(&invoice, layout).unwrap();
        assert_is_pdf(&pdf);
        assert_eq!(page_count(&pdf), 1, "{layout:?}");
    }
    let a4 = render(&invoice, Layout::A4).unwrap();
    assert_eq!(first_page_height(&a4), 842.0);
}

#[test]
fn the_invoice_number_is_the_document_title() {
    let invoice = sample(vec![line("Kafe", "1", "1.00", "1.00")]);
    let pdf = render(&invoice, Layout::A4).unwrap();
    let text = String::from_utf8_lossy(&pdf);
    assert!(text.contains("/Title (12/2026)"), "{text}");
}

#[test]
fn a_long_invoice_spans_several_a4_pages_and_one_long_receipt() {
    let invoice = sample(many_lines(120));
    let a4 = render(&invoice, Layout::A4).unwrap();
    assert_is_pdf(&a4);
    assert!(page_count(&a4) >= 3, "{} pages", page_count(&a4));

    let short = render(&sample(many_lines(2)), Layout::Receipt80mm).unwrap();
    let long = render(&invoice, Layout::Receipt80mm).unwrap();
    assert_is_pdf(&long);
    assert_eq!(page_count(&long), 1);
    // Each extra line adds at least its name and its detail row.
    assert!(first_page_height(&long) > first_page_height(&short) + 118.0 * 19.0);
}

#[test]
fn every_a4_page_with_lines_repeats_the_table_header() {
    let pdf = render(&sample(many_lines(120)), Layout::A4).unwrap();
    let text = String::from_utf8_lossy(&pdf);
    // "Description" is the English header of the name column, drawn once per page of the
    // table; only the last page may hold nothing but the closing blocks.
    let pages = page_count(&pdf);
    let headers = text.matches("(Description)").count();
    assert!(headers >= 3 && headers + 1 >= pages, "{headers} headers on {pages} pages");
}

#[test]
fn a_url_too_long_for_a_qr_code_is_an_error() {
    let mut invoice = sample(vec![line("Kafe", "1", "1.00", "1.00")]);
    invoice.verify_url = "x".repeat(5000);
    assert!(matches!(render(&invoice, Layout::A4), Err(Error::QrCode(_))));
}

#[test]
fn the_summary_shows_only_what_the_invoice_has() {
    let lek = sample(vec![line("Kafe", "1", "1.00", "1.00")]);
    let labels_of = |invoice: &PrintInvoice| -> Vec<String> {
        rows::totals(invoice).into_iter().map(|row| row.label).collect()
    };
    assert_eq!(labels_of(&lek), [labels::TOTAL_NET, labels::TOTAL_VAT, labels::TOTAL_GROSS]);

    let mut foreign = lek.clone();
    foreign.fee = Some(dec("5"));
    foreign.invoice_discount = Some(InvoiceDiscount { amount: dec("2.5"), description: String::new() });
    foreign.currency = "EUR".to_string();
    foreign.exchange_rate = Some(dec("100.2500"));
    foreign.totals_all = Some(Totals { net: dec("10000"), vat: dec("2000"), gross: dec("12000") });
    let rows = rows::totals(&foreign);
    let values: Vec<&str> = rows.iter().map(|row| row.value.as_str()).collect();
    assert_eq!(
        values,
        [
            "-2.50 EUR",
            "5.00 EUR",
            "100.00 EUR",
            "20.00 EUR",
            "120.00 EUR",
            "1 EUR = 100.25 ALL",
            "",
            "10000.00 ALL",
            "2000.00 ALL",
            "12000.00 ALL"
        ]
    );
    assert_eq!(rows.iter().filter(|row| row.emphasis == rows::Emphasis::Total).count(), 1);

    let fiscalized = PrintInvoice { fic: Some("fic-1".to_string()), ..lek.clone() };
    assert_eq!(rows::fiscal(&lek)[1].value, labels::FIC_PENDING);
    assert_eq!(rows::fiscal(&fiscalized)[1].value, "fic-1");
}

#[test]
fn the_largest_invoice_the_api_takes_prints_within_the_page_bound() {
    // 1000 lines, each name 255 characters (three printed lines), notes of 1000 characters
    // without a space: what the API's limits allow at most.
    let name = "Ë".repeat(255);
    let mut invoice =
        sample((0..1000).map(|_| line(&name, "1000000000", "100000000000", "100000000000")).collect());
    invoice.notes = Some("x".repeat(1000));
    let pdf = render(&invoice, Layout::A4).unwrap();
    assert_is_pdf(&pdf);
    let pages = page_count(&pdf);
    // 54 pages when this was written: far inside canvas::MAX_PAGES.
    assert!((40..=80).contains(&pages), "{pages} pages");
    let receipt = render(&invoice, Layout::Receipt80mm).unwrap();
    assert_eq!(page_count(&receipt), 1);
}

#[test]
fn notes_print_at_most_their_lines_and_end_in_an_ellipsis_when_cut() {
    let mut invoice = sample(vec![line("Kafe", "1", "1.00", "1.00")]);
    invoice.notes = Some("rresht\n".repeat(500));
    let pdf = render(&invoice, Layout::A4).unwrap();
    let text = String::from_utf8_lossy(&pdf);
    assert_eq!(text.matches("(rresht)").count(), MAX_NOTE_LINES - 1);
    // pdf-writer writes a string with a byte above 0x7F in hex: "rresht" and the ellipsis.
    assert_eq!(text.matches("<72726573687485>").count(), 1, "the last kept line ends in an ellipsis");
}
