//! The A4 warehouse transfer note: the issuer and the note's number, date, type and purpose;
//! the business unit, operator and device; where the goods leave and arrive, the carrier and
//! the vehicle; the goods (name, code, unit, quantity); how many and what they are worth; the
//! fiscal block with the QR code; the footer; page numbers. It uses the invoice page's parts.

use super::a4::{self, Align, BODY, CONTENT_WIDTH, Column, MARGIN_X, RIGHT, RULE_GRAY};
use super::canvas::{Sheet, Style};
use super::format::{amount_in, plain};
use super::qr::Qr;
use super::rows::Row;
use super::winansi::encode;
use super::{PrintWtn, labels};

/// The widths add up to the content width (515 pt).
const COLUMNS: [Column; 5] = [
    Column { width: 25.0, header: labels::LINE_NUMBER, align: Align::Right },
    Column { width: 255.0, header: labels::LINE_NAME, align: Align::Left },
    Column { width: 100.0, header: labels::LINE_CODE, align: Align::Left },
    Column { width: 60.0, header: labels::LINE_UNIT, align: Align::Left },
    Column { width: 75.0, header: labels::LINE_QUANTITY, align: Align::Right },
];
const NAME_COLUMN: usize = 1;

/// Lays the whole note out on A4 pages.
pub fn lay_out(note: &PrintWtn, qr: &Qr) -> Sheet {
    let mut sheet = Sheet::paged(a4::PAGE_WIDTH, a4::PAGE_HEIGHT, a4::TOP_MARGIN, a4::BOTTOM_MARGIN);
    let heading = a4::heading(&note.issuer.name, labels::WTN, &note.number);
    header(&mut sheet, note);
    journey(&mut sheet, note);
    line_table(&mut sheet, note, &heading);
    totals(&mut sheet, note, &heading);
    let fic = note.fic.clone().unwrap_or_else(|| labels::FIC_PENDING.to_string());
    let identifiers = [
        Row { label: labels::WTNIC.into(), value: note.iic.clone(), emphasis: super::rows::Emphasis::Normal },
        Row { label: labels::FWTNIC.into(), value: fic, emphasis: super::rows::Emphasis::Normal },
    ];
    a4::fiscal_panel(&mut sheet, &identifiers, &note.verify_url, qr, &heading);
    a4::footer(&mut sheet, &note.footer_lines, &heading);
    a4::number_pages(&mut sheet);
    sheet
}

fn header(sheet: &mut Sheet, note: &PrintWtn) {
    a4::document_header(
        sheet,
        &a4::Heading {
            seller: &note.issuer,
            seller_width: CONTENT_WIDTH * 0.5,
            title: labels::WTN,
            title_size: 12.0,
            number: &note.number,
            facts: &[
                (labels::ISSUED_AT, &note.issued_at),
                (labels::WTN_TYPE, &note.note_type),
                (labels::WTN_TRANSACTION, &note.transaction),
            ],
            unit: &note.business_unit,
            tcr_code: note.device_code.as_deref(),
            operator_code: &note.operator_code,
        },
    );
}

fn rule(sheet: &mut Sheet) {
    sheet.rule(MARGIN_X, RIGHT, sheet.y, 0.8, RULE_GRAY);
    sheet.y += 4.0;
}

/// Origin and destination side by side, then the carrier and the vehicle.
fn journey(sheet: &mut Sheet, note: &PrintWtn) {
    let half = CONTENT_WIDTH / 2.0 - 5.0;
    let place =
        |p: &super::WtnPlace| vec![p.point.clone(), p.address.clone(), p.city.clone(), p.date_time.clone()];
    let origin = a4::labeled_cell(sheet, MARGIN_X, half, labels::ORIGIN, &place(&note.origin));
    let destination =
        a4::labeled_cell(sheet, MARGIN_X + half + 10.0, half, labels::DESTINATION, &place(&note.destination));
    sheet.y += origin.max(destination) + 4.0;
    let carrier = match &note.carrier {
        Some(c) => vec![
            c.name.clone(),
            c.id.clone(),
            [c.address.as_str(), c.town.as_str()]
                .iter()
                .filter(|t| !t.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(", "),
        ],
        None => vec!["-".to_string()],
    };
    let carrier = a4::labeled_cell(sheet, MARGIN_X, half, labels::CARRIER, &carrier);
    let vehicle = a4::labeled_cell(
        sheet,
        MARGIN_X + half + 10.0,
        half,
        labels::VEHICLE,
        std::slice::from_ref(&note.vehicle),
    );
    sheet.y += carrier.max(vehicle) + 6.0;
    rule(sheet);
}

fn line_table(sheet: &mut Sheet, note: &PrintWtn, heading: &str) {
    let rows = note
        .lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let texts = [
                (index + 1).to_string(),
                line.name.clone(),
                line.code.clone(),
                line.unit.clone(),
                plain(line.quantity),
            ];
            a4::fit_cells(&texts, &COLUMNS, NAME_COLUMN)
        })
        .collect();
    a4::table(sheet, &COLUMNS, rows, heading);
}

/// How many items and what they are worth, on the right.
fn totals(sheet: &mut Sheet, note: &PrintWtn, heading: &str) {
    a4::keep_on_page(sheet, heading, 30.0);
    let left = MARGIN_X + 300.0;
    for (label, value, style) in [
        (labels::ITEMS_NUM, note.items_num.to_string(), BODY),
        (labels::VALUE_OF_GOODS, amount_in(note.value_of_goods, "ALL"), Style::bold(10.5)),
    ] {
        let baseline = sheet.y + 9.0;
        sheet.text(left, baseline, style, encode(label));
        sheet.text_right(RIGHT, baseline, style, encode(&value));
        sheet.y += 13.0;
    }
    sheet.y += 8.0;
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn note(lines: usize) -> PrintWtn {
        PrintWtn {
            issuer: Seller { name: "Dyqani Çelësi sh.p.k.".into(), nuis: "L12345678A".into(), ..Seller::default() },
            business_unit: BusinessUnit { name: "Qendër".into(), code: "ab123cd456".into(), address: "Rruga 1".into() },
            operator_code: "op123op456".into(),
            number: "3/2026".into(),
            issued_at: "2026-03-14 10:25:07".into(),
            note_type: "WTN".into(),
            transaction: "TRANSFER".into(),
            origin: WtnPlace { point: "WAREHOUSE".into(), ..WtnPlace::default() },
            destination: WtnPlace { point: "STORE".into(), ..WtnPlace::default() },
            vehicle: "OWNER, AA123BB".into(),
            lines: (0..lines)
                .map(|i| WtnLine {
                    name: format!("Artikulli {i} me një emër të gjatë që mbështillet në më shumë se një rresht të tabelës"),
                    code: format!("A{i}"),
                    unit: "copë".into(),
                    quantity: Decimal::from(i + 1),
                })
                .collect(),
            items_num: 7,
            value_of_goods: Decimal::new(12050, 2),
            iic: "0123456789ABCDEF0123456789ABCDEF".into(),
            verify_url: "https://efiskalizimi-app.tatime.gov.al/invoice-check/#/verify?iic=0123".into(),
            footer_lines: vec!["Arka".into()],
            ..PrintWtn::default()
        }
    }

    #[test]
    fn a_long_note_runs_on_to_numbered_pages_with_its_header_repeated() {
        let sheet = super::lay_out(&note(150), &super::Qr::encode("https://verify").unwrap());
        assert!(sheet.page_count() >= 3, "{} pages", sheet.page_count());
        let pdf = render_wtn(&note(150)).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        assert_eq!(super::lay_out(&note(1), &super::Qr::encode("https://verify").unwrap()).page_count(), 1);
    }
}
