//! A sheet of pages the layouts draw on, measured from the top left corner as one reads, and
//! written out as PDF at the end. Keeping the marks until the end lets a receipt learn its
//! height from its content, and an A4 document number its pages "n of m".

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use super::Error;
use super::winansi::{self, Face};

/// The most pages an invoice may have: the largest the API accepts (1000 lines whose names take
/// three lines each) fills 54 A4 pages, so this bounds the time and memory one print takes
/// without refusing any invoice the API accepts.
const MAX_PAGES: usize = 500;

const REGULAR_FONT: Name<'static> = Name(b"F1");
const BOLD_FONT: Name<'static> = Name(b"F2");

/// How a run of text looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub face: Face,
    pub size: f32,
    /// 0 is black, 1 is white.
    pub gray: f32,
}

impl Style {
    pub const fn regular(size: f32) -> Self {
        Style { face: Face::Regular, size, gray: 0.0 }
    }

    pub const fn bold(size: f32) -> Self {
        Style { face: Face::Bold, size, gray: 0.0 }
    }

    /// The same style in gray, for labels and small print.
    pub const fn muted(self) -> Self {
        Style { gray: 0.35, ..self }
    }

    pub fn width(&self, bytes: &[u8]) -> f32 {
        winansi::width(bytes, self.face, self.size)
    }

    /// Width in thousandths of the size (see `winansi::units`).
    pub fn units(&self, bytes: &[u8]) -> u64 {
        winansi::units(bytes, self.face)
    }

    /// Whether text `units` wide fits in `width` points; the same answer `width` gives.
    pub fn fits(&self, units: u64, width: f32) -> bool {
        winansi::points(units, self.size) <= width
    }
}

/// One thing drawn on a page; `y` values count down from the top edge.
#[derive(Debug, Clone, PartialEq)]
enum Mark {
    Text {
        x: f32,
        baseline: f32,
        style: Style,
        bytes: Vec<u8>,
    },
    Rule {
        x1: f32,
        x2: f32,
        y: f32,
        thickness: f32,
        gray: f32,
    },
    Fill {
        x: f32,
        top: f32,
        width: f32,
        height: f32,
        gray: f32,
    },
    /// Black runs on a grid of square modules whose top left corner is at (`x`, `top`).
    Modules {
        x: f32,
        top: f32,
        module: f32,
        runs: Vec<Run>,
    },
}

/// A horizontal run of dark modules: `length` modules from `column` in `row`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub row: u16,
    pub column: u16,
    pub length: u16,
}

/// Pages being drawn, with a cursor `y` the layouts move down as they place content.
#[derive(Debug)]
pub struct Sheet {
    width: f32,
    /// `None` for a receipt: one page that grows with its content.
    page_height: Option<f32>,
    top_margin: f32,
    bottom_margin: f32,
    pages: Vec<Vec<Mark>>,
    current: usize,
    pub y: f32,
}

impl Sheet {
    /// Fixed-size pages; content that does not fit goes to the next page.
    pub fn paged(width: f32, height: f32, top_margin: f32, bottom_margin: f32) -> Self {
        Sheet {
            width,
            page_height: Some(height),
            top_margin,
            bottom_margin,
            pages: vec![Vec::new()],
            current: 0,
            y: top_margin,
        }
    }

    /// One page whose height is where the content ends plus the bottom margin.
    pub fn growing(width: f32, top_margin: f32, bottom_margin: f32) -> Self {
        Sheet {
            width,
            page_height: None,
            top_margin,
            bottom_margin,
            pages: vec![Vec::new()],
            current: 0,
            y: top_margin,
        }
    }

    /// Whether `height` more points fit on the current page below the cursor.
    pub fn fits(&self, height: f32) -> bool {
        match self.page_height {
            Some(page_height) => self.y + height <= page_height - self.bottom_margin,
            None => true,
        }
    }

    /// Starts a new page and puts the cursor at its top margin.
    pub fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.current = self.pages.len().saturating_sub(1);
        self.y = self.top_margin;
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Sends the following marks to page `index` (counting from 0), e.g. to stamp page numbers
    /// once the count is known. An index past the end selects the last page.
    pub fn select_page(&mut self, index: usize) {
        self.current = index.min(self.pages.len().saturating_sub(1));
    }

    fn push(&mut self, mark: Mark) {
        if let Some(page) = self.pages.get_mut(self.current) {
            page.push(mark);
        }
    }

    /// Text starting at `x`.
    pub fn text(&mut self, x: f32, baseline: f32, style: Style, bytes: Vec<u8>) {
        if !bytes.is_empty() {
            self.push(Mark::Text { x, baseline, style, bytes });
        }
    }

    /// Text ending at `right`.
    pub fn text_right(&mut self, right: f32, baseline: f32, style: Style, bytes: Vec<u8>) {
        let x = right - style.width(&bytes);
        self.text(x, baseline, style, bytes);
    }

    /// Text centred on `center`.
    pub fn text_center(&mut self, center: f32, baseline: f32, style: Style, bytes: Vec<u8>) {
        let x = center - style.width(&bytes) / 2.0;
        self.text(x, baseline, style, bytes);
    }

    /// A horizontal line.
    pub fn rule(&mut self, x1: f32, x2: f32, y: f32, thickness: f32, gray: f32) {
        self.push(Mark::Rule { x1, x2, y, thickness, gray });
    }

    /// A filled rectangle whose top edge is at `top`.
    pub fn fill(&mut self, x: f32, top: f32, width: f32, height: f32, gray: f32) {
        self.push(Mark::Fill { x, top, width, height, gray });
    }

    /// A grid of dark modules (a QR code) with `module` point squares.
    pub fn modules(&mut self, x: f32, top: f32, module: f32, runs: Vec<Run>) {
        self.push(Mark::Modules { x, top, module, runs });
    }

    /// Writes the pages as a PDF whose document title is `title`.
    pub fn into_pdf(self, title: &str) -> Result<Vec<u8>, Error> {
        if self.pages.len() > MAX_PAGES {
            return Err(Error::TooManyPages(self.pages.len()));
        }
        let page_height = self.page_height.unwrap_or(self.y + self.bottom_margin);

        let mut next = Ref::new(1);
        let catalog_id = next.bump();
        let tree_id = next.bump();
        let info_id = next.bump();
        let regular_id = next.bump();
        let bold_id = next.bump();
        let page_ids: Vec<(Ref, Ref)> = self.pages.iter().map(|_| (next.bump(), next.bump())).collect();

        let mut pdf = Pdf::new();
        pdf.catalog(catalog_id).pages(tree_id);
        // The bound above keeps the count far inside i32.
        let count = i32::try_from(page_ids.len()).map_err(|_| Error::TooManyPages(page_ids.len()))?;
        pdf.pages(tree_id).kids(page_ids.iter().map(|(page_id, _)| *page_id)).count(count);
        pdf.document_info(info_id).title(TextStr(title)).producer(TextStr("Arka"));
        for (id, base_font) in [(regular_id, Name(b"Helvetica")), (bold_id, Name(b"Helvetica-Bold"))] {
            pdf.type1_font(id).base_font(base_font).encoding_predefined(Name(b"WinAnsiEncoding"));
        }

        for (marks, (page_id, content_id)) in self.pages.iter().zip(&page_ids) {
            let mut page = pdf.page(*page_id);
            page.parent(tree_id)
                .media_box(Rect::new(0.0, 0.0, self.width, page_height))
                .contents(*content_id);
            page.resources().fonts().pair(REGULAR_FONT, regular_id).pair(BOLD_FONT, bold_id);
            page.finish();
            let content = draw(marks, page_height);
            pdf.stream(*content_id, &content);
        }
        Ok(pdf.finish())
    }
}

/// The content stream of one page. PDF counts `y` up from the bottom edge.
fn draw(marks: &[Mark], page_height: f32) -> Vec<u8> {
    let mut content = Content::new();
    for mark in marks {
        match mark {
            Mark::Text { x, baseline, style, bytes } => {
                let font = match style.face {
                    Face::Regular => REGULAR_FONT,
                    Face::Bold => BOLD_FONT,
                };
                content
                    .set_fill_gray(style.gray)
                    .begin_text()
                    .set_font(font, style.size)
                    .next_line(*x, page_height - baseline)
                    .show(Str(bytes))
                    .end_text();
            }
            Mark::Rule { x1, x2, y, thickness, gray } => {
                content
                    .set_stroke_gray(*gray)
                    .set_line_width(*thickness)
                    .move_to(*x1, page_height - y)
                    .line_to(*x2, page_height - y)
                    .stroke();
            }
            Mark::Fill { x, top, width, height, gray } => {
                content
                    .set_fill_gray(*gray)
                    .rect(*x, page_height - top - height, *width, *height)
                    .fill_nonzero();
            }
            Mark::Modules { x, top, module, runs } => {
                // In module units with y pointing down, every run is a rectangle with small
                // integer corners: a compact stream, and edges that meet exactly so no hairline
                // seams show between rows.
                content.save_state().transform([*module, 0.0, 0.0, -*module, *x, page_height - top]);
                content.set_fill_gray(0.0);
                for run in runs {
                    content.rect(f32::from(run.column), f32::from(run.row), f32::from(run.length), 1.0);
                }
                content.fill_nonzero().restore_state();
            }
        }
    }
    content.finish().into_vec()
}
