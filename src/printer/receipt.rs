//! The receipt in the printer's own characters: what the 80 mm PDF carries (`print::receipt`),
//! in 48 or 42 columns, the verification QR as the printer's QR command, then the cut. The facts
//! and their wording are `print`'s (its rows and labels), so paper and PDF never differ.

use rust_decimal::Decimal;

use super::escpos::{Align, Commands};
use crate::print::format::{amount, amount_in, percent, plain};
use crate::print::rows::{self, Emphasis, Row};
use crate::print::{Line, PrintInvoice, labels};

/// What is printed besides the invoice itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras {
    /// A reprint: marked as a copy, and the drawer stays shut.
    pub copy: bool,
    /// Pulse the cash drawer open (a first print of a sale paid in cash).
    pub open_drawer: bool,
    /// The cash the buyer handed over, when the till took it: tendered and change are printed.
    pub tendered: Option<Decimal>,
}

pub const COPY: &str = "KOPJE / COPY";
pub const TENDERED: &str = "Paguar në dorë / Cash tendered";
pub const CHANGE: &str = "Kusuri / Change";
/// The payment method of cash, as the invoice names it.
pub const CASH: &str = "BANKNOTE";

/// Module size of the QR code in dots: a URL of a few hundred characters is a version 10 symbol
/// (57 modules), 285 dots, inside the 512 dots of a 42-column printer.
const QR_MODULE: u8 = 5;

/// `text` in lines of at most `width` characters, broken at spaces (inside a word only when
/// the word alone is wider).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let used = current.chars().count();
            let room = if used == 0 { width } else { width.saturating_sub(used + 1) };
            if word.len() <= room {
                if used > 0 {
                    current.push(' ');
                }
                current.extend(word.iter());
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut current));
                continue;
            }
            let rest = word.split_off(width.max(1));
            lines.push(word.into_iter().collect());
            word = rest;
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `left` and `right` on one line `width` wide, `right` flush right; on two when they do not fit.
pub fn two_sides(left: &str, right: &str, width: usize) -> Vec<String> {
    let (l, r) = (left.chars().count(), right.chars().count());
    if l + 1 + r <= width {
        return vec![format!("{left}{}{right}", " ".repeat(width - l - r))];
    }
    let mut lines = wrap(left, width);
    lines.push(format!("{right:>width$}"));
    lines
}

struct Receipt<'a> {
    c: Commands,
    width: usize,
    invoice: &'a PrintInvoice,
}

impl Receipt<'_> {
    fn text(&mut self, text: &str) {
        for line in wrap(text, self.width) {
            self.c.line(&line);
        }
    }

    fn centered(&mut self, text: &str) {
        self.c.align(Align::Center);
        self.text(text);
        self.c.align(Align::Left);
    }

    fn rule(&mut self) {
        let rule = "-".repeat(self.width);
        self.c.line(&rule);
    }

    fn row(&mut self, row: &Row) {
        match row.emphasis {
            Emphasis::Heading => self.text(&row.label),
            Emphasis::Normal => {
                for line in two_sides(&row.label, &row.value, self.width) {
                    self.c.line(&line);
                }
            }
            Emphasis::Total => {
                self.c.bold(true);
                for line in two_sides(&row.label, &row.value, self.width) {
                    self.c.line(&line);
                }
                self.c.bold(false);
            }
        }
    }

    fn header(&mut self, copy: bool) {
        let i = self.invoice;
        self.c.align(Align::Center).bold(true).double(true, false);
        self.text(&i.seller.name);
        self.c.double(false, false).bold(false);
        let mut details = vec![
            format!("{}: {}", labels::NUIS, i.seller.nuis),
            i.seller.address.clone(),
            i.seller.city.clone(),
            format!("{}: {} ({})", labels::BUSINESS_UNIT, i.business_unit.name, i.business_unit.code),
            i.business_unit.address.clone(),
        ];
        if let Some(tcr_code) = &i.tcr_code {
            details.push(format!("{}: {tcr_code}", labels::TCR));
        }
        details.push(format!("{}: {}", labels::OPERATOR, i.operator_code));
        for detail in details.iter().filter(|d| !d.trim().is_empty()) {
            self.text(detail);
        }
        self.c.align(Align::Left);
        self.rule();
        self.c.align(Align::Center).bold(true);
        self.text(labels::INVOICE);
        self.text(&format!("{} {}", labels::NUMBER, i.number));
        if copy {
            self.c.double(true, true);
            self.text(COPY);
            self.c.double(false, false);
        }
        self.c.bold(false).align(Align::Left);
        self.row(&Row::normal(labels::ISSUED_AT, i.issued_at.clone()));
        self.row(&Row::normal(labels::INVOICE_TYPE, i.invoice_type.clone()));
    }

    fn buyer(&mut self) {
        let Some(buyer) = &self.invoice.buyer else {
            return;
        };
        self.rule();
        self.text(labels::BUYER);
        self.c.bold(true);
        self.text(&buyer.name);
        self.c.bold(false);
        if !buyer.id_value.trim().is_empty() {
            self.text(&format!("{}: {}", buyer.id_type, buyer.id_value));
        }
        let place: Vec<&str> = [&buyer.address, &buyer.city, &buyer.country]
            .into_iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect();
        if !place.is_empty() {
            self.text(&place.join(", "));
        }
    }

    fn lines(&mut self) {
        self.rule();
        for line in &self.invoice.lines {
            self.text(&line.name);
            for row in two_sides(&format!("  {}", line_detail(line)), &amount(line.total), self.width) {
                self.c.line(&row);
            }
        }
    }

    fn vat_groups(&mut self) {
        if self.invoice.vat_groups.is_empty() {
            return;
        }
        self.rule();
        // The label, then net, VAT and gross in columns of equal width, right-aligned.
        let column = (self.width - 6) / 4;
        let label = self.width - 3 * column;
        let heads = [labels::VAT_GROUP, labels::NET, labels::VAT, labels::GROSS];
        for pick in [0, 1] {
            let mut head = String::new();
            for (at, words) in heads.iter().enumerate() {
                let word = if pick == 0 { words.0 } else { words.1 };
                if at == 0 {
                    head.push_str(&fit(word, label - 1));
                    head.push_str(&" ".repeat(label - head.chars().count()));
                } else {
                    head.push_str(&format!("{:>column$}", fit(word, column - 1)));
                }
            }
            self.c.line(&head);
        }
        for group in &self.invoice.vat_groups {
            let mut row = fit(&group.label, label - 1);
            row.push_str(&" ".repeat(label - row.chars().count()));
            for value in rows::vat_amounts(group) {
                row.push_str(&format!("{value:>column$}"));
            }
            self.c.line(&row);
        }
    }

    fn summary(&mut self, tendered: Option<Decimal>) {
        self.rule();
        for total in rows::totals(self.invoice) {
            self.row(&total);
        }
        let payments = rows::payments(self.invoice);
        if !payments.is_empty() {
            self.rule();
            self.text(labels::PAYMENTS);
            for payment in &payments {
                self.row(payment);
            }
        }
        if let Some(tendered) = tendered {
            let currency = self.invoice.currency.clone();
            let cash: Decimal =
                self.invoice.payments.iter().filter(|p| p.method == CASH).map(|p| p.amount).sum();
            let tendered_row = Row::normal(TENDERED, amount_in(tendered, &currency));
            let change_row = Row::normal(CHANGE, amount_in(tendered - cash, &currency));
            self.row(&tendered_row);
            self.row(&Row { emphasis: Emphasis::Total, ..change_row });
        }
    }

    fn fiscal(&mut self) {
        self.rule();
        for identifier in rows::fiscal(self.invoice) {
            self.text(&identifier.label);
            self.c.bold(true);
            self.text(&identifier.value);
            self.c.bold(false);
        }
        self.c.align(Align::Center);
        self.c.qr(&self.invoice.verify_url, QR_MODULE);
        self.c.line("");
        self.c.align(Align::Left);
    }

    fn closing(&mut self) {
        let notes = self.invoice.notes.as_deref().map(str::trim).filter(|n| !n.is_empty());
        if let Some(notes) = notes {
            self.rule();
            self.text(labels::NOTES);
            for paragraph in notes.lines() {
                self.text(paragraph);
            }
        }
        for footer in &self.invoice.footer_lines {
            self.centered(footer);
        }
    }
}

/// The first `width` characters of `text`.
fn fit(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

/// "C-001 2 kg x 150.00 -10% TVSH 20%": everything about a line but its name and total.
fn line_detail(line: &Line) -> String {
    let mut parts = Vec::new();
    if !line.code.trim().is_empty() {
        parts.push(line.code.trim().to_string());
    }
    let mut quantity = plain(line.quantity);
    if !line.unit.trim().is_empty() {
        quantity = format!("{quantity} {}", line.unit.trim());
    }
    parts.push(format!("{quantity} x {}", amount(line.unit_price)));
    if let Some(discount) = line.discount_percent.filter(|d| !d.is_zero()) {
        parts.push(format!("-{}", percent(discount)));
    }
    parts.push(format!("{} {}", labels::LINE_VAT.0, percent(line.vat_rate)));
    parts.join(" ")
}

/// The receipt of `invoice` for a printer `columns` characters wide (48 or 42).
pub fn render(invoice: &PrintInvoice, columns: usize, extras: &Extras) -> Vec<u8> {
    let mut r = Receipt { c: Commands::new(), width: columns.max(32), invoice };
    if extras.open_drawer {
        // First, so the drawer opens while the paper comes out.
        r.c.open_drawer();
    }
    r.header(extras.copy);
    r.buyer();
    r.lines();
    r.vat_groups();
    r.summary(extras.tendered);
    r.fiscal();
    r.closing();
    r.c.feed(3).cut();
    r.c.into_bytes()
}

/// A test page: the printer's columns and Albanian letters, as the owner sees them printed.
pub fn test_page(title: &str, columns: usize) -> Vec<u8> {
    let width = columns.max(32);
    let mut c = Commands::new();
    c.align(Align::Center).bold(true).line(title).bold(false);
    c.line("ë Ë ç Ç €");
    c.line(&format!("{columns} kolona / columns"));
    c.align(Align::Left).line(&"-".repeat(width));
    c.line(&(0..width).map(|i| char::from(b'0' + (i % 10) as u8)).collect::<String>());
    c.feed(3).cut();
    c.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wraps_at_spaces_and_breaks_only_a_word_too_wide() {
        assert_eq!(wrap("Kafe turke me qumësht", 10), ["Kafe turke", "me qumësht"]);
        assert_eq!(wrap("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(wrap("  ", 5), Vec::<String>::new());
    }

    #[test]
    fn two_sides_share_a_line_when_they_fit() {
        assert_eq!(two_sides("TOTALI", "120.00", 16), ["TOTALI    120.00"]);
        assert_eq!(two_sides("Totali pa TVSH", "120.00", 16), ["Totali pa TVSH", "          120.00"]);
    }

    #[test]
    fn a_line_shows_its_code_quantity_price_discount_and_vat() {
        let line = Line {
            name: "Djathë".into(),
            code: "D1".into(),
            unit: "kg".into(),
            quantity: Decimal::new(1250, 3),
            unit_price: Decimal::new(800, 0),
            discount_percent: Some(Decimal::new(10, 0)),
            vat_rate: Decimal::new(20, 0),
            total: Decimal::new(900, 0),
        };
        assert_eq!(line_detail(&line), "D1 1.25 kg x 800.00 -10% TVSH 20%");
    }
}
