//! Printing an issued invoice as PDF bytes: an A4 document (pages break and repeat the table
//! header) or an 80 mm receipt whose length follows its content.
//!
//! Pure: the caller gathers and formats what the law asks on a fiscal invoice into a
//! [`PrintInvoice`], and [`render`] returns the bytes. No font is embedded: the base-14 Helvetica
//! faces with WinAnsiEncoding already carry ë, Ë, ç, Ç and €, so the files stay small and every
//! viewer draws them.
//!
//! Amounts print with two decimals, a point and no thousands separator (`1234.50`), exactly as
//! the CIS message carries them: a buyer comparing the paper with the tax administration's
//! verification page sees the same digits.

mod a4;
mod canvas;
mod day;
pub mod format;
pub mod labels;
mod qr;
mod receipt;
pub mod rows;
mod winansi;
mod wtn;

use rust_decimal::Decimal;

pub use day::{DayLine, DayReport, render_days};

pub use labels::WTN as WTN_TITLE;

/// The longest a caller waits for one PDF. Rendering runs on the blocking pool; the bounds on
/// what is printed (`MAX_NOTE_LINES`, three lines per item name, `canvas::MAX_PAGES`) keep the
/// largest invoice well under it.
pub const RENDER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The most lines of notes printed: the API takes up to 1000 characters of notes, and lines
/// past this (short lines, many of them) end in an ellipsis, so no text makes a page run on.
const MAX_NOTE_LINES: usize = 40;

/// The seller as registered with the tax administration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seller {
    pub name: String,
    pub nuis: String,
    pub address: String,
    pub city: String,
}

/// The business unit (premise) the invoice was issued in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BusinessUnit {
    pub name: String,
    pub code: String,
    pub address: String,
}

/// An identified buyer. Empty strings are left off the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Buyer {
    pub name: String,
    /// The kind of identifier as the CIS names it, e.g. "NUIS" or "ID".
    pub id_type: String,
    pub id_value: String,
    pub address: String,
    pub city: String,
    /// ISO 3166-1 alpha-3, e.g. "ALB".
    pub country: String,
}

/// One invoice line; amounts include VAT.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub name: String,
    pub code: String,
    pub unit: String,
    pub quantity: Decimal,
    pub unit_price: Decimal,
    pub discount_percent: Option<Decimal>,
    /// Percent, e.g. 20.
    pub vat_rate: Decimal,
    pub total: Decimal,
}

/// One VAT group as the CIS sums it.
#[derive(Debug, Clone, PartialEq)]
pub struct VatGroup {
    /// Caller-made, e.g. "TVSH 20%" or "Përjashtuar (TYPE_1)".
    pub label: String,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

/// The invoice-level discount, with VAT, in the invoice currency.
#[derive(Debug, Clone, PartialEq)]
pub struct InvoiceDiscount {
    pub amount: Decimal,
    pub description: String,
}

/// Net, VAT and gross totals of one currency.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

/// One payment element.
#[derive(Debug, Clone, PartialEq)]
pub struct Payment {
    /// Caller-made, e.g. "Kartë / Card".
    pub method: String,
    pub amount: Decimal,
}

/// Everything printed on a fiscal invoice, already in the words and formats the caller wants
/// where they are text. The default is an empty invoice: empty texts are left off the page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrintInvoice {
    pub seller: Seller,
    pub business_unit: BusinessUnit,
    pub tcr_code: Option<String>,
    pub operator_code: String,
    /// e.g. "12/2026".
    pub number: String,
    /// Local (Europe/Tirane) time, "YYYY-MM-DD HH:MM:SS".
    pub issued_at: String,
    /// "CASH" or "NONCASH".
    pub invoice_type: String,
    pub buyer: Option<Buyer>,
    pub lines: Vec<Line>,
    pub vat_groups: Vec<VatGroup>,
    pub invoice_discount: Option<InvoiceDiscount>,
    /// The non-cash fee, with VAT, in the invoice currency.
    pub fee: Option<Decimal>,
    /// Totals in the invoice currency.
    pub totals: Totals,
    /// ISO 4217, e.g. "ALL" or "EUR".
    pub currency: String,
    /// Lek for one unit of `currency`; printed when the invoice is in a foreign currency.
    pub exchange_rate: Option<Decimal>,
    /// Totals in lek, when the invoice is in a foreign currency.
    pub totals_all: Option<Totals>,
    pub payments: Vec<Payment>,
    pub iic: String,
    /// `None` until the CIS has answered; printed as pending.
    pub fic: Option<String>,
    pub eic: Option<String>,
    /// The verification URL the QR code carries.
    pub verify_url: String,
    pub notes: Option<String>,
    /// Closing lines: software, maintainer, a thank-you; printed small at the end.
    pub footer_lines: Vec<String>,
}

/// Paper to print on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A4 portrait, as many pages as the lines need.
    A4,
    /// One 80 mm (226 pt) wide page as long as the content, for thermal printers.
    Receipt80mm,
}

/// Why an invoice could not be printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The verification URL does not fit in a QR code.
    QrCode(qrcode::types::QrError),
    /// More pages than a PDF written here may hold (the page count bounds object numbers).
    TooManyPages(usize),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::QrCode(e) => write!(f, "the verification URL cannot be drawn as a QR code: {e}"),
            Error::TooManyPages(pages) => write!(f, "the invoice would need {pages} pages"),
        }
    }
}

impl std::error::Error for Error {}

/// Renders `invoice` as a PDF document on `layout` paper.
pub fn render(invoice: &PrintInvoice, layout: Layout) -> Result<Vec<u8>, Error> {
    let qr = qr::Qr::encode(&invoice.verify_url)?;
    let sheet = match layout {
        Layout::A4 => a4::lay_out(invoice, &qr),
        Layout::Receipt80mm => receipt::lay_out(invoice, &qr),
    };
    sheet.into_pdf(&invoice.number)
}

/// A plain A4 page: a bold title and one line of text per entry (a word wider than the page is
/// cut). The CIS simulator prints its e-invoices with it, as the platform hands out PDFs.
pub fn text_page(title: &str, lines: &[String]) -> Result<Vec<u8>, Error> {
    const WIDTH: f32 = 595.0;
    const HEIGHT: f32 = 842.0;
    const MARGIN: f32 = 50.0;
    let mut sheet = canvas::Sheet::paged(WIDTH, HEIGHT, MARGIN, MARGIN);
    let bold = canvas::Style::bold(14.0);
    sheet.text(
        MARGIN,
        MARGIN + 14.0,
        bold,
        format::truncate(&winansi::encode(title), bold, WIDTH - 2.0 * MARGIN),
    );
    let regular = canvas::Style::regular(10.0);
    for (index, line) in lines.iter().enumerate() {
        let baseline = MARGIN + 40.0 + 14.0 * index as f32;
        if baseline > HEIGHT - MARGIN {
            break;
        }
        let bytes = format::truncate(&winansi::encode(line), regular, WIDTH - 2.0 * MARGIN);
        sheet.text(MARGIN, baseline, regular, bytes);
    }
    sheet.into_pdf(title)
}

/// A place on a warehouse transfer note, as printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WtnPlace {
    /// e.g. "WAREHOUSE".
    pub point: String,
    pub address: String,
    pub city: String,
    /// Local time, "YYYY-MM-DD HH:MM:SS".
    pub date_time: String,
}

/// Who carries the goods of a note.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WtnCarrier {
    pub name: String,
    /// e.g. "NUIS: K81234001A".
    pub id: String,
    pub address: String,
    pub town: String,
}

/// One line of goods on a note.
#[derive(Debug, Clone, PartialEq)]
pub struct WtnLine {
    pub name: String,
    pub code: String,
    pub unit: String,
    pub quantity: Decimal,
}

/// Everything printed on a warehouse transfer note.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrintWtn {
    /// The company (or its unit, when the company prints its units' names).
    pub issuer: Seller,
    pub business_unit: BusinessUnit,
    pub device_code: Option<String>,
    pub operator_code: String,
    /// e.g. "3/2026".
    pub number: String,
    /// Local time, "YYYY-MM-DD HH:MM:SS".
    pub issued_at: String,
    /// "WTN" or "SALE".
    pub note_type: String,
    /// "TRANSFER", "EXAMINATION", "SALES" or "DOOR".
    pub transaction: String,
    pub origin: WtnPlace,
    pub destination: WtnPlace,
    pub carrier: Option<WtnCarrier>,
    /// Ownership and plates, e.g. "OWNER, AA123BB".
    pub vehicle: String,
    pub lines: Vec<WtnLine>,
    pub items_num: i64,
    /// In lek.
    pub value_of_goods: Decimal,
    /// The WTNIC.
    pub iic: String,
    /// The FWTNIC; `None` until the CIS has answered.
    pub fic: Option<String>,
    pub verify_url: String,
    pub footer_lines: Vec<String>,
}

/// Renders a warehouse transfer note as an A4 PDF document.
pub fn render_wtn(note: &PrintWtn) -> Result<Vec<u8>, Error> {
    let qr = qr::Qr::encode(&note.verify_url)?;
    wtn::lay_out(note, &qr).into_pdf(&note.number)
}

#[cfg(test)]
mod tests;
