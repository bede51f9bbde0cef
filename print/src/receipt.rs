//! The 80 mm receipt: one column on a 226 pt wide page as long as its content. Seller and
//! invoice centred on top, then lines, VAT groups, totals, payments, the fiscal identifiers
//! and the QR code at the bottom where the buyer tears the paper.

use super::canvas::{Sheet, Style};
use super::format::{amount, percent, plain, truncate, wrap, wrap_paragraphs};
use super::qr::Qr;
use super::rows::{self, Emphasis, Row};
use super::winansi::encode;
use super::{Line, MAX_NOTE_LINES, PrintInvoice, labels};

/// 80 mm paper; thermal printers print about 72 mm of it, which the margins leave.
const WIDTH: f32 = 226.0;
const MARGIN: f32 = 10.0;
const CONTENT_WIDTH: f32 = WIDTH - 2.0 * MARGIN;
const RIGHT: f32 = WIDTH - MARGIN;
const CENTER: f32 = WIDTH / 2.0;

const BODY: Style = Style::regular(7.5);
const BODY_BOLD: Style = Style::bold(7.5);
const SMALL: Style = Style::regular(6.5);
const LABEL: Style = Style::regular(6.5).muted();
const COLUMN_HEADER: Style = Style::bold(6.5);
/// Line details sit indented under the name.
const DETAIL_INDENT: f32 = 6.0;
const LEADING: f32 = 9.5;
const NAME_LINES: usize = 3;
const QR_SIZE: f32 = 150.0;

/// Lays the whole invoice out on one receipt.
pub fn lay_out(invoice: &PrintInvoice, qr: &Qr) -> Sheet {
    let mut sheet = Sheet::growing(WIDTH, 12.0, 16.0);
    header(&mut sheet, invoice);
    buyer(&mut sheet, invoice);
    lines(&mut sheet, invoice);
    vat_groups(&mut sheet, invoice);
    summary(&mut sheet, invoice);
    fiscal(&mut sheet, invoice, qr);
    closing(&mut sheet, invoice);
    sheet
}

/// Centred text, wrapped over as many lines as it needs.
fn centered(sheet: &mut Sheet, text: &str, style: Style, leading: f32) {
    for line in wrap(&encode(text), style, CONTENT_WIDTH, usize::MAX) {
        sheet.y += leading;
        sheet.text_center(CENTER, sheet.y, style, line);
    }
}

/// Left-aligned text, wrapped over as many lines as it needs.
fn paragraph(sheet: &mut Sheet, text: &str, style: Style, leading: f32) {
    for line in wrap(&encode(text), style, CONTENT_WIDTH, usize::MAX) {
        sheet.y += leading;
        sheet.text(MARGIN, sheet.y, style, line);
    }
}

fn separator(sheet: &mut Sheet) {
    sheet.y += 5.0;
    sheet.rule(MARGIN, RIGHT, sheet.y, 0.6, 0.4);
    sheet.y += 2.0;
}

fn header(sheet: &mut Sheet, invoice: &PrintInvoice) {
    centered(sheet, &invoice.seller.name, Style::bold(10.0), 12.0);
    let seller = &invoice.seller;
    let unit = &invoice.business_unit;
    let mut details = vec![
        format!("{}: {}", labels::NUIS, seller.nuis),
        seller.address.clone(),
        seller.city.clone(),
        format!("{}: {} ({})", labels::BUSINESS_UNIT, unit.name, unit.code),
        unit.address.clone(),
    ];
    if let Some(tcr_code) = &invoice.tcr_code {
        details.push(format!("{}: {tcr_code}", labels::TCR));
    }
    details.push(format!("{}: {}", labels::OPERATOR, invoice.operator_code));
    for detail in details.iter().filter(|text| !text.trim().is_empty()) {
        centered(sheet, detail, BODY, LEADING);
    }
    separator(sheet);
    centered(sheet, labels::INVOICE, Style::bold(10.0), 13.0);
    centered(sheet, &format!("{} {}", labels::NUMBER, invoice.number), Style::bold(9.0), 11.0);
    centered(sheet, &format!("{}: {}", labels::ISSUED_AT, invoice.issued_at), BODY, LEADING);
    centered(sheet, &format!("{}: {}", labels::INVOICE_TYPE, invoice.invoice_type), BODY, LEADING);
}

fn buyer(sheet: &mut Sheet, invoice: &PrintInvoice) {
    let Some(buyer) = &invoice.buyer else {
        return;
    };
    separator(sheet);
    paragraph(sheet, labels::BUYER, LABEL, LEADING);
    paragraph(sheet, &buyer.name, BODY_BOLD, LEADING);
    if !buyer.id_value.trim().is_empty() {
        paragraph(sheet, &format!("{}: {}", buyer.id_type, buyer.id_value), BODY, LEADING);
    }
    let place = [buyer.address.as_str(), buyer.city.as_str(), buyer.country.as_str()]
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    if !place.is_empty() {
        paragraph(sheet, &place, BODY, LEADING);
    }
}

/// "C-001  2 kg x 150.00  -10%  TVSH 20%": everything about a line but its name and total.
fn line_detail(line: &Line) -> String {
    let mut detail = String::new();
    if !line.code.trim().is_empty() {
        detail.push_str(line.code.trim());
        detail.push_str("  ");
    }
    detail.push_str(&plain(line.quantity));
    if !line.unit.trim().is_empty() {
        detail.push(' ');
        detail.push_str(line.unit.trim());
    }
    detail.push_str(" x ");
    detail.push_str(&amount(line.unit_price));
    if let Some(discount) = line.discount_percent.filter(|discount| !discount.is_zero()) {
        detail.push_str("  -");
        detail.push_str(&percent(discount));
    }
    detail.push_str("  ");
    detail.push_str(labels::LINE_VAT.0);
    detail.push(' ');
    detail.push_str(&percent(line.vat_rate));
    detail
}

fn lines(sheet: &mut Sheet, invoice: &PrintInvoice) {
    separator(sheet);
    for line in &invoice.lines {
        for name_line in wrap(&encode(&line.name), BODY, CONTENT_WIDTH, NAME_LINES) {
            sheet.y += LEADING;
            sheet.text(MARGIN, sheet.y, BODY, name_line);
        }
        sheet.y += LEADING;
        let total = encode(&amount(line.total));
        let detail_width = CONTENT_WIDTH - DETAIL_INDENT - BODY_BOLD.width(&total) - 6.0;
        let detail = truncate(&encode(&line_detail(line)), SMALL, detail_width);
        sheet.text(MARGIN + DETAIL_INDENT, sheet.y, SMALL, detail);
        sheet.text_right(RIGHT, sheet.y, BODY_BOLD, total);
        sheet.y += 2.0;
    }
}

fn vat_groups(sheet: &mut Sheet, invoice: &PrintInvoice) {
    if invoice.vat_groups.is_empty() {
        return;
    }
    separator(sheet);
    // Label column, then net, VAT and gross right-aligned.
    let widths = [74.0, 44.0, 44.0, 44.0];
    let headers = [labels::VAT_GROUP, labels::NET, labels::VAT, labels::GROSS];
    let albanian_row = sheet.y + 8.0;
    let english_row = albanian_row + 8.0;
    let mut right = MARGIN;
    for (index, ((albanian, english), width)) in headers.into_iter().zip(widths).enumerate() {
        right += width;
        if index == 0 {
            sheet.text(MARGIN, albanian_row, COLUMN_HEADER, encode(albanian));
            sheet.text(MARGIN, english_row, LABEL, encode(english));
        } else {
            sheet.text_right(right, albanian_row, COLUMN_HEADER, encode(albanian));
            sheet.text_right(right, english_row, LABEL, encode(english));
        }
    }
    sheet.y = english_row;
    for group in &invoice.vat_groups {
        let label_lines = wrap(&encode(&group.label), SMALL, widths[0] - 4.0, 2);
        let first_baseline = sheet.y + LEADING;
        for label_line in label_lines {
            sheet.y += LEADING;
            sheet.text(MARGIN, sheet.y, SMALL, label_line);
        }
        sheet.y = sheet.y.max(first_baseline);
        let mut right = MARGIN + widths[0];
        for (value, width) in rows::vat_amounts(group).iter().zip(&widths[1..]) {
            right += width;
            sheet.text_right(right, first_baseline, SMALL, encode(value));
        }
    }
}

/// A label on the left, its value on the right, one line down.
fn row(sheet: &mut Sheet, row: &Row) {
    let (style, leading) = match row.emphasis {
        Emphasis::Normal => (BODY, LEADING),
        Emphasis::Total => (Style::bold(10.0), 14.0),
        Emphasis::Heading => (LABEL, LEADING + 2.0),
    };
    sheet.y += leading;
    let value = encode(&row.value);
    let label_width = CONTENT_WIDTH - style.width(&value) - 6.0;
    sheet.text(MARGIN, sheet.y, style, truncate(&encode(&row.label), style, label_width));
    sheet.text_right(RIGHT, sheet.y, style, value);
}

fn summary(sheet: &mut Sheet, invoice: &PrintInvoice) {
    separator(sheet);
    for total in rows::totals(invoice) {
        row(sheet, &total);
    }
    let payments = rows::payments(invoice);
    if !payments.is_empty() {
        separator(sheet);
        paragraph(sheet, labels::PAYMENTS, LABEL, LEADING);
        for payment in &payments {
            row(sheet, payment);
        }
    }
}

fn fiscal(sheet: &mut Sheet, invoice: &PrintInvoice, qr: &Qr) {
    separator(sheet);
    for identifier in rows::fiscal(invoice) {
        paragraph(sheet, &identifier.label, LABEL, LEADING);
        paragraph(sheet, &identifier.value, BODY_BOLD, LEADING);
    }
    sheet.y += 6.0;
    qr.draw(sheet, CENTER - QR_SIZE / 2.0, sheet.y, QR_SIZE);
    sheet.y += QR_SIZE;
}

fn closing(sheet: &mut Sheet, invoice: &PrintInvoice) {
    let notes = invoice.notes.as_deref().map(str::trim).filter(|notes| !notes.is_empty());
    if let Some(notes) = notes {
        separator(sheet);
        paragraph(sheet, labels::NOTES, LABEL, LEADING);
        for line in wrap_paragraphs(notes, SMALL, CONTENT_WIDTH, MAX_NOTE_LINES) {
            sheet.y += 8.5;
            sheet.text(MARGIN, sheet.y, SMALL, line);
        }
    }
    if !invoice.footer_lines.is_empty() {
        sheet.y += 4.0;
        for text in &invoice.footer_lines {
            centered(sheet, text, LABEL, 8.5);
        }
    }
}
