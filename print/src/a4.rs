//! The A4 invoice: header (seller, invoice number and date, business unit, TCR, operator),
//! buyer, the line table (its header repeated on every page it spans), VAT groups and payments
//! beside the totals, the fiscal block with the QR code, notes, and page numbers.

use super::canvas::{Sheet, Style};
use super::format::{amount, percent, plain, truncate, wrap, wrap_paragraphs};
use super::qr::Qr;
use super::rows::{self, Emphasis, Row};
use super::winansi::encode;
use super::{BusinessUnit, Line, MAX_NOTE_LINES, PrintInvoice, Seller, labels};

pub(super) const PAGE_WIDTH: f32 = 595.0;
pub(super) const PAGE_HEIGHT: f32 = 842.0;
pub(super) const MARGIN_X: f32 = 40.0;
pub(super) const TOP_MARGIN: f32 = 40.0;
/// Leaves room under the content for the page number.
pub(super) const BOTTOM_MARGIN: f32 = 50.0;
pub(super) const RIGHT: f32 = PAGE_WIDTH - MARGIN_X;
pub(super) const CONTENT_WIDTH: f32 = PAGE_WIDTH - 2.0 * MARGIN_X;

pub(super) const BODY: Style = Style::regular(8.5);
pub(super) const LABEL: Style = Style::regular(7.0).muted();
pub(super) const HEADER_SQ: Style = Style::bold(7.0);
pub(super) const HEADER_EN: Style = Style::regular(6.5).muted();
pub(super) const TABLE: Style = Style::regular(8.0);

/// Space between a cell's edge and its text.
pub(super) const CELL_PAD: f32 = 3.0;
/// Baseline-to-baseline distance of table text.
pub(super) const TABLE_LEADING: f32 = 10.0;
pub(super) const TABLE_HEADER_HEIGHT: f32 = 22.0;
/// A long product name wraps onto at most this many lines before it is cut.
const NAME_LINES: usize = 3;

pub(super) const RULE_GRAY: f32 = 0.6;
pub(super) const HAIRLINE_GRAY: f32 = 0.85;
const SHADE_GRAY: f32 = 0.93;
const PANEL_GRAY: f32 = 0.96;

const QR_SIZE: f32 = 118.0;

#[derive(Clone, Copy)]
pub(super) enum Align {
    Left,
    Right,
}

/// A column of the line table.
pub(super) struct Column {
    pub(super) width: f32,
    pub(super) header: (&'static str, &'static str),
    pub(super) align: Align,
}

/// The widths add up to the content width (515 pt).
const COLUMNS: [Column; 9] = [
    Column { width: 20.0, header: labels::LINE_NUMBER, align: Align::Right },
    Column { width: 160.0, header: labels::LINE_NAME, align: Align::Left },
    Column { width: 52.0, header: labels::LINE_CODE, align: Align::Left },
    Column { width: 35.0, header: labels::LINE_UNIT, align: Align::Left },
    Column { width: 40.0, header: labels::LINE_QUANTITY, align: Align::Right },
    Column { width: 66.0, header: labels::LINE_PRICE, align: Align::Right },
    Column { width: 37.0, header: labels::LINE_DISCOUNT, align: Align::Right },
    Column { width: 35.0, header: labels::LINE_VAT, align: Align::Right },
    Column { width: 70.0, header: labels::LINE_TOTAL, align: Align::Right },
];

/// The index of the description column, the only one that wraps.
const NAME_COLUMN: usize = 1;

/// Lays the whole invoice out on A4 pages.
pub fn lay_out(invoice: &PrintInvoice, qr: &Qr) -> Sheet {
    let mut sheet = Sheet::paged(PAGE_WIDTH, PAGE_HEIGHT, TOP_MARGIN, BOTTOM_MARGIN);
    header(&mut sheet, invoice);
    buyer(&mut sheet, invoice);
    line_table(&mut sheet, invoice);
    summary(&mut sheet, invoice);
    fiscal(&mut sheet, invoice, qr);
    notes_and_footer(&mut sheet, invoice);
    number_pages(&mut sheet);
    sheet
}

/// What a continued page says at its top: whose document of what number it continues.
pub(super) fn heading(issuer: &str, title: &str, number: &str) -> String {
    format!("{issuer}  |  {title} {} {number}  |  {}", labels::NUMBER, labels::CONTINUED)
}

/// Starts a new page headed with `heading`, so loose pages can be matched.
pub(super) fn new_page(sheet: &mut Sheet, heading: &str) {
    sheet.new_page();
    sheet.text(MARGIN_X, sheet.y + 8.0, LABEL, truncate(&encode(heading), LABEL, CONTENT_WIDTH));
    sheet.y += 16.0;
}

/// Moves to a new page headed with `heading` unless `height` still fits on this one.
pub(super) fn keep_on_page(sheet: &mut Sheet, heading: &str, height: f32) {
    if !sheet.fits(height) {
        new_page(sheet, heading);
    }
}

/// Moves to a new page unless `height` still fits on this one.
fn keep_together(sheet: &mut Sheet, invoice: &PrintInvoice, height: f32) {
    keep_on_page(sheet, &heading(&invoice.seller.name, labels::INVOICE, &invoice.number), height);
}

fn header(sheet: &mut Sheet, invoice: &PrintInvoice) {
    document_header(
        sheet,
        &Heading {
            seller: &invoice.seller,
            seller_width: CONTENT_WIDTH * 0.58,
            title: labels::INVOICE,
            title_size: 15.0,
            number: &invoice.number,
            facts: &[(labels::ISSUED_AT, &invoice.issued_at), (labels::INVOICE_TYPE, &invoice.invoice_type)],
            unit: &invoice.business_unit,
            tcr_code: invoice.tcr_code.as_deref(),
            operator_code: &invoice.operator_code,
        },
    );
}

/// What the top of a document says.
pub(super) struct Heading<'a> {
    pub(super) seller: &'a Seller,
    /// How wide the seller's block may run on the left.
    pub(super) seller_width: f32,
    pub(super) title: &'a str,
    pub(super) title_size: f32,
    pub(super) number: &'a str,
    /// Label and value pairs under the number, on the right.
    pub(super) facts: &'a [(&'a str, &'a str)],
    pub(super) unit: &'a BusinessUnit,
    pub(super) tcr_code: Option<&'a str>,
    pub(super) operator_code: &'a str,
}

/// The seller down the left; the title, number and facts on the right; then the business unit,
/// the TCR when there is one, and the operator, between rules.
pub(super) fn document_header(sheet: &mut Sheet, h: &Heading) {
    let top = sheet.y;
    let mut left = top;
    let name_style = Style::bold(13.0);
    for line in wrap(&encode(&h.seller.name), name_style, h.seller_width, 2) {
        left += 14.0;
        sheet.text(MARGIN_X, left, name_style, line);
    }
    left += 2.0;
    let seller = h.seller;
    let details = [format!("{}: {}", labels::NUIS, seller.nuis), seller.address.clone(), seller.city.clone()];
    for detail in details.iter().filter(|text| !text.trim().is_empty()) {
        left += 11.0;
        sheet.text(MARGIN_X, left, BODY, truncate(&encode(detail), BODY, h.seller_width));
    }

    let mut right = top + 15.0;
    sheet.text_right(RIGHT, right, Style::bold(h.title_size), encode(h.title));
    right += 15.0;
    let number = Style::bold(11.0);
    sheet.text_right(RIGHT, right, number, encode(&format!("{} {}", labels::NUMBER, h.number)));
    for (label, value) in h.facts {
        right += 11.0;
        sheet.text_right(RIGHT, right, BODY, encode(&format!("{label}: {value}")));
    }

    sheet.y = left.max(right) + 8.0;
    sheet.rule(MARGIN_X, RIGHT, sheet.y, 0.8, RULE_GRAY);
    sheet.y += 4.0;

    let unit = h.unit;
    let unit_lines = [format!("{} ({})", unit.name, unit.code), unit.address.clone()];
    let mut height = labeled_cell(sheet, MARGIN_X, 265.0, labels::BUSINESS_UNIT, &unit_lines);
    if let Some(tcr_code) = h.tcr_code {
        let cell = labeled_cell(sheet, MARGIN_X + 275.0, 120.0, labels::TCR, &[tcr_code.to_string()]);
        height = height.max(cell);
    }
    let operator = [h.operator_code.to_string()];
    height = height.max(labeled_cell(sheet, MARGIN_X + 405.0, 110.0, labels::OPERATOR, &operator));
    sheet.y += height + 6.0;
    sheet.rule(MARGIN_X, RIGHT, sheet.y, 0.8, RULE_GRAY);
    sheet.y += 4.0;
}

/// A small gray label over one or more lines of values, at the cursor; returns its height.
pub(super) fn labeled_cell(sheet: &mut Sheet, x: f32, width: f32, label: &str, values: &[String]) -> f32 {
    let mut baseline = sheet.y + 8.0;
    sheet.text(x, baseline, LABEL, truncate(&encode(label), LABEL, width));
    for value in values.iter().filter(|value| !value.trim().is_empty()) {
        baseline += 11.0;
        sheet.text(x, baseline, BODY, truncate(&encode(value), BODY, width));
    }
    baseline + 3.0 - sheet.y
}

fn buyer(sheet: &mut Sheet, invoice: &PrintInvoice) {
    let Some(buyer) = &invoice.buyer else {
        return;
    };
    let place = [buyer.address.as_str(), buyer.city.as_str(), buyer.country.as_str()]
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let identifier = if buyer.id_value.trim().is_empty() {
        String::new()
    } else {
        format!("{}: {}", buyer.id_type, buyer.id_value)
    };

    let mut baseline = sheet.y + 8.0;
    sheet.text(MARGIN_X, baseline, LABEL, encode(labels::BUYER));
    baseline += 12.0;
    let name_style = Style::bold(9.5);
    sheet.text(MARGIN_X, baseline, name_style, truncate(&encode(&buyer.name), name_style, CONTENT_WIDTH));
    for detail in [identifier, place].iter().filter(|text| !text.is_empty()) {
        baseline += 11.0;
        sheet.text(MARGIN_X, baseline, BODY, truncate(&encode(detail), BODY, CONTENT_WIDTH));
    }
    sheet.y = baseline + 7.0;
    sheet.rule(MARGIN_X, RIGHT, sheet.y, 0.8, RULE_GRAY);
    sheet.y += 4.0;
}

/// The cells of one line, each already fitted: the name wrapped, the others cut.
fn line_cells(index: usize, line: &Line) -> Vec<Vec<Vec<u8>>> {
    let texts = [
        (index + 1).to_string(),
        line.name.clone(),
        line.code.clone(),
        line.unit.clone(),
        plain(line.quantity),
        amount(line.unit_price),
        line.discount_percent.filter(|discount| !discount.is_zero()).map(percent).unwrap_or_default(),
        percent(line.vat_rate),
        amount(line.total),
    ];
    fit_cells(&texts, &COLUMNS, NAME_COLUMN)
}

/// The cells of one table row, each fitted to its column: the `wrapped` column's text on up to
/// `NAME_LINES` lines, the others cut.
pub(super) fn fit_cells(texts: &[String], columns: &[Column], wrapped: usize) -> Vec<Vec<Vec<u8>>> {
    texts
        .iter()
        .zip(columns)
        .enumerate()
        .map(|(column_index, (text, column))| {
            let width = column.width - 2.0 * CELL_PAD;
            let bytes = encode(text);
            if column_index == wrapped {
                wrap(&bytes, TABLE, width, NAME_LINES)
            } else {
                vec![truncate(&bytes, TABLE, width)]
            }
        })
        .collect()
}

/// The shaded two-language header row of a table of `columns`.
pub(super) fn table_header(sheet: &mut Sheet, columns: &[Column]) {
    sheet.fill(MARGIN_X, sheet.y, CONTENT_WIDTH, TABLE_HEADER_HEIGHT, SHADE_GRAY);
    let mut x = MARGIN_X;
    for column in columns {
        let width = column.width - 2.0 * CELL_PAD;
        let (albanian, english) = column.header;
        for (text, style, offset) in [(albanian, HEADER_SQ, 9.0), (english, HEADER_EN, 18.0)] {
            let bytes = truncate(&encode(text), style, width);
            place(sheet, x, column.width, column.align, sheet.y + offset, style, bytes);
        }
        x += column.width;
    }
    sheet.y += TABLE_HEADER_HEIGHT;
}

/// Puts `bytes` in the column of `width` starting at `x`, aligned as the column wants.
pub(super) fn place(
    sheet: &mut Sheet,
    x: f32,
    width: f32,
    align: Align,
    baseline: f32,
    style: Style,
    bytes: Vec<u8>,
) {
    match align {
        Align::Left => sheet.text(x + CELL_PAD, baseline, style, bytes),
        Align::Right => sheet.text_right(x + width - CELL_PAD, baseline, style, bytes),
    }
}

fn line_table(sheet: &mut Sheet, invoice: &PrintInvoice) {
    let heading = heading(&invoice.seller.name, labels::INVOICE, &invoice.number);
    let rows = invoice.lines.iter().enumerate().map(|(index, line)| line_cells(index, line)).collect();
    table(sheet, &COLUMNS, rows, &heading);
}

/// A table of `columns` with its header, its rows of fitted cells, and the header again on each
/// page it runs on to.
pub(super) fn table(sheet: &mut Sheet, columns: &[Column], rows: Vec<Vec<Vec<Vec<u8>>>>, heading: &str) {
    sheet.y += 6.0;
    let first_row = TABLE_LEADING + 2.0 * CELL_PAD;
    keep_on_page(sheet, heading, TABLE_HEADER_HEIGHT + first_row);
    table_header(sheet, columns);
    for cells in rows {
        let lines = cells.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let height = lines as f32 * TABLE_LEADING + 2.0 * CELL_PAD;
        if !sheet.fits(height) {
            new_page(sheet, heading);
            table_header(sheet, columns);
        }
        let mut x = MARGIN_X;
        for (cell, column) in cells.into_iter().zip(columns) {
            let mut baseline = sheet.y + CELL_PAD + 7.5;
            for text in cell {
                place(sheet, x, column.width, column.align, baseline, TABLE, text);
                baseline += TABLE_LEADING;
            }
            x += column.width;
        }
        sheet.y += height;
        sheet.rule(MARGIN_X, RIGHT, sheet.y, 0.4, HAIRLINE_GRAY);
    }
    sheet.y += 10.0;
}

const SUMMARY_LEADING: f32 = 12.0;
const LEFT_BLOCK_WIDTH: f32 = 290.0;
const TOTALS_X: f32 = MARGIN_X + 300.0;
const TOTAL_STYLE: Style = Style::bold(10.5);

/// VAT groups and payments on the left, totals on the right, kept on one page.
fn summary(sheet: &mut Sheet, invoice: &PrintInvoice) {
    let totals = rows::totals(invoice);
    let payments = rows::payments(invoice);
    let vat_height = TABLE_HEADER_HEIGHT + invoice.vat_groups.len() as f32 * SUMMARY_LEADING;
    let payments_height =
        if payments.is_empty() { 0.0 } else { 18.0 + payments.len() as f32 * SUMMARY_LEADING };
    let totals_height = totals.len() as f32 * SUMMARY_LEADING + 8.0;
    let height = (vat_height + payments_height).max(totals_height);
    keep_together(sheet, invoice, height);

    let top = sheet.y;
    vat_table(sheet, invoice);
    if !payments.is_empty() {
        sheet.y += 6.0;
        sheet.text(MARGIN_X, sheet.y + 8.0, LABEL, encode(labels::PAYMENTS));
        sheet.y += 12.0;
        for payment in &payments {
            row(sheet, MARGIN_X, MARGIN_X + LEFT_BLOCK_WIDTH, payment, BODY);
        }
    }
    let left_bottom = sheet.y;

    sheet.y = top;
    for total in &totals {
        if total.emphasis == Emphasis::Total {
            sheet.rule(TOTALS_X, RIGHT, sheet.y + 1.0, 0.8, RULE_GRAY);
            sheet.y += 3.0;
        }
        let style = match total.emphasis {
            Emphasis::Normal => BODY,
            Emphasis::Total => TOTAL_STYLE,
            Emphasis::Heading => LABEL,
        };
        row(sheet, TOTALS_X, RIGHT, total, style);
        if total.emphasis == Emphasis::Total {
            sheet.y += 3.0;
        }
    }
    sheet.y = sheet.y.max(left_bottom) + 10.0;
}

/// A label at `left` and its value ending at `right`, one summary line down from the cursor.
fn row(sheet: &mut Sheet, left: f32, right: f32, row: &Row, style: Style) {
    let baseline = sheet.y + 9.0;
    let value = encode(&row.value);
    let value_width = style.width(&value);
    let label_width = right - left - value_width - 8.0;
    let label_style = if row.emphasis == Emphasis::Heading { LABEL } else { style };
    sheet.text(left, baseline, label_style, truncate(&encode(&row.label), label_style, label_width));
    sheet.text_right(right, baseline, style, value);
    sheet.y += SUMMARY_LEADING;
}

fn vat_table(sheet: &mut Sheet, invoice: &PrintInvoice) {
    // Label column, then net, VAT and gross right-aligned.
    let widths = [110.0, 60.0, 60.0, 60.0];
    let headers = [labels::VAT_GROUP, labels::NET, labels::VAT, labels::GROSS];
    sheet.fill(MARGIN_X, sheet.y, LEFT_BLOCK_WIDTH, TABLE_HEADER_HEIGHT, SHADE_GRAY);
    let mut x = MARGIN_X;
    for (index, ((albanian, english), width)) in headers.into_iter().zip(widths).enumerate() {
        let align = if index == 0 { Align::Left } else { Align::Right };
        for (text, style, offset) in [(albanian, HEADER_SQ, 9.0), (english, HEADER_EN, 18.0)] {
            place(sheet, x, width, align, sheet.y + offset, style, encode(text));
        }
        x += width;
    }
    sheet.y += TABLE_HEADER_HEIGHT;
    for group in &invoice.vat_groups {
        let baseline = sheet.y + 9.0;
        let label_width = widths[0] - 2.0 * CELL_PAD;
        sheet.text(MARGIN_X + CELL_PAD, baseline, BODY, truncate(&encode(&group.label), BODY, label_width));
        let mut right = MARGIN_X + widths[0];
        for (value, width) in rows::vat_amounts(group).iter().zip(&widths[1..]) {
            right += width;
            sheet.text_right(right - CELL_PAD, baseline, BODY, encode(value));
        }
        sheet.y += SUMMARY_LEADING;
        sheet.rule(MARGIN_X, MARGIN_X + LEFT_BLOCK_WIDTH, sheet.y, 0.4, HAIRLINE_GRAY);
    }
}

/// IIC, FIC (or pending), EIC and the verification URL beside the QR code, on a shaded panel.
fn fiscal(sheet: &mut Sheet, invoice: &PrintInvoice, qr: &Qr) {
    let heading = heading(&invoice.seller.name, labels::INVOICE, &invoice.number);
    fiscal_panel(sheet, &rows::fiscal(invoice), &invoice.verify_url, qr, &heading);
}

/// The fiscal identifiers and the verification URL beside the QR code, on a shaded panel kept
/// on one page.
pub(super) fn fiscal_panel(sheet: &mut Sheet, identifiers: &[Row], verify_url: &str, qr: &Qr, heading: &str) {
    let pad = 8.0;
    let text_width = CONTENT_WIDTH - QR_SIZE - 3.0 * pad;
    let url_style = Style::regular(6.5);
    let url_lines = wrap(&encode(verify_url), url_style, text_width, 4);
    let text_height = identifiers.len() as f32 * 24.0 + 12.0 + url_lines.len() as f32 * 8.0;
    let height = text_height.max(QR_SIZE) + 2.0 * pad;
    keep_on_page(sheet, heading, height);

    let top = sheet.y;
    sheet.fill(MARGIN_X, top, CONTENT_WIDTH, height, PANEL_GRAY);
    let qr_x = RIGHT - pad - QR_SIZE;
    // The quiet zone must be white, not the panel's gray, for scanners to find the symbol.
    sheet.fill(qr_x, top + pad, QR_SIZE, QR_SIZE, 1.0);
    qr.draw(sheet, qr_x, top + pad, QR_SIZE);

    let x = MARGIN_X + pad;
    let mut baseline = top + pad + 7.0;
    let value_style = Style::bold(9.5);
    for identifier in identifiers {
        sheet.text(x, baseline, LABEL, encode(&identifier.label));
        baseline += 12.0;
        sheet.text(x, baseline, value_style, truncate(&encode(&identifier.value), value_style, text_width));
        baseline += 12.0;
    }
    sheet.text(x, baseline, LABEL, encode(labels::VERIFY));
    for line in url_lines {
        baseline += 8.0;
        sheet.text(x, baseline, url_style, line);
    }
    sheet.y = top + height + 10.0;
}

/// Notes paragraphs, then the footer lines centred in small print; both may break pages.
fn notes_and_footer(sheet: &mut Sheet, invoice: &PrintInvoice) {
    let notes = invoice.notes.as_deref().map(str::trim).filter(|notes| !notes.is_empty());
    if let Some(notes) = notes {
        keep_together(sheet, invoice, 24.0);
        sheet.text(MARGIN_X, sheet.y + 8.0, LABEL, encode(labels::NOTES));
        sheet.y += 10.0;
        for line in wrap_paragraphs(notes, BODY, CONTENT_WIDTH, MAX_NOTE_LINES) {
            keep_together(sheet, invoice, 11.0);
            sheet.text(MARGIN_X, sheet.y + 9.0, BODY, line);
            sheet.y += 11.0;
        }
        sheet.y += 8.0;
    }
    footer(sheet, &invoice.footer_lines, &heading(&invoice.seller.name, labels::INVOICE, &invoice.number));
}

/// The footer lines centred in small print, breaking pages as they need.
pub(super) fn footer(sheet: &mut Sheet, lines: &[String], heading: &str) {
    let style = Style::regular(7.0).muted();
    for text in lines {
        for line in wrap(&encode(text), style, CONTENT_WIDTH, usize::MAX) {
            keep_on_page(sheet, heading, 9.0);
            sheet.text_center(MARGIN_X + CONTENT_WIDTH / 2.0, sheet.y + 8.0, style, line);
            sheet.y += 9.0;
        }
    }
}

/// "Page n of m" at the foot of every page, now that m is known.
pub(super) fn number_pages(sheet: &mut Sheet) {
    let pages = sheet.page_count();
    let style = Style::regular(7.0).muted();
    for index in 0..pages {
        sheet.select_page(index);
        sheet.text_right(RIGHT, PAGE_HEIGHT - 25.0, style, encode(&labels::page_of(index + 1, pages)));
    }
}
