//! The X and Z reports of a till's day as a PDF to print: an A4 page or an 80 mm strip, a heading
//! (the company, the period), then each day as a titled block of headings, label and amount
//! rows, and signature lines.

use rust_decimal::Decimal;

use super::canvas::{Sheet, Style};
use super::{Error, Layout, format, winansi};

/// One line of a day's report.
#[derive(Debug, Clone, PartialEq)]
pub enum DayLine {
    /// A label and an amount; `None` prints as a dash (a figure a day still open does not have).
    Amount(String, Option<Decimal>),
    /// A label and a text against the right margin.
    Text(String, String),
    /// A heading over the lines after it.
    Heading(String),
    /// A line to sign on, its label under it.
    Signature(String),
}

/// One day of a till as printed: "Raporti Z / Z report ..." and its lines.
#[derive(Debug, Clone, PartialEq)]
pub struct DayReport {
    pub title: String,
    pub rows: Vec<DayLine>,
}

struct Paper {
    width: f32,
    margin: f32,
    size: f32,
}

impl Paper {
    fn of(layout: Layout) -> Paper {
        match layout {
            Layout::A4 => Paper { width: 595.0, margin: 50.0, size: 11.0 },
            Layout::Receipt80mm => Paper { width: 226.0, margin: 10.0, size: 7.5 },
        }
    }

    /// One line: `left` (cut to leave room), and `right` against the right margin.
    fn line(&self, sheet: &mut Sheet, style: Style, left: &str, right: Option<&str>) {
        let height = self.size * 1.5;
        if !sheet.fits(height) {
            sheet.new_page();
        }
        sheet.y += height;
        let right = right.map(winansi::encode);
        let room = self.width - 2.0 * self.margin - right.as_ref().map_or(0.0, |r| style.width(r) + 6.0);
        sheet.text(self.margin, sheet.y, style, format::truncate(&winansi::encode(left), style, room));
        if let Some(bytes) = right {
            sheet.text_right(self.width - self.margin, sheet.y, style, bytes);
        }
    }
}

/// The days as one PDF titled `title`.
pub fn render_days(
    title: &str,
    heading: &[String],
    days: &[DayReport],
    layout: Layout,
) -> Result<Vec<u8>, Error> {
    let paper = Paper::of(layout);
    let mut sheet = match layout {
        Layout::A4 => Sheet::paged(paper.width, 842.0, paper.margin, paper.margin),
        Layout::Receipt80mm => Sheet::growing(paper.width, paper.margin, paper.margin),
    };
    let regular = Style::regular(paper.size);
    paper.line(&mut sheet, Style::bold(paper.size * 1.3), title, None);
    for text in heading {
        paper.line(&mut sheet, regular.muted(), text, None);
    }
    for day in days {
        sheet.y += paper.size;
        paper.line(&mut sheet, Style::bold(paper.size), &day.title, None);
        let rule = sheet.y + paper.size * 0.4;
        sheet.rule(paper.margin, paper.width - paper.margin, rule, 0.5, 0.0);
        for row in &day.rows {
            match row {
                DayLine::Amount(label, value) => {
                    let value = value.map_or_else(|| "-".to_string(), format::amount);
                    paper.line(&mut sheet, regular, label, Some(&value));
                }
                DayLine::Text(label, value) => paper.line(&mut sheet, regular, label, Some(value)),
                DayLine::Heading(text) => {
                    sheet.y += paper.size * 0.5;
                    paper.line(&mut sheet, Style::bold(paper.size), text, None);
                }
                DayLine::Signature(label) => {
                    sheet.y += paper.size * 3.0;
                    if !sheet.fits(paper.size * 2.0) {
                        sheet.new_page();
                        sheet.y += paper.size * 3.0;
                    }
                    let width = (paper.width - 2.0 * paper.margin).min(220.0);
                    sheet.rule(paper.margin, paper.margin + width, sheet.y, 0.5, 0.0);
                    paper.line(&mut sheet, regular.muted(), label, None);
                }
            }
        }
    }
    sheet.into_pdf(title)
}
