//! The QR code of the verification URL, drawn as filled rectangles: no image object, so it
//! stays sharp at any zoom and on any printer.

use qrcode::{Color, EcLevel, QrCode};

use super::Error;
use super::canvas::{Run, Sheet};

/// Light modules around the symbol, as the QR specification asks, so scanners find its edge.
const QUIET_ZONE: u16 = 4;

/// An encoded QR symbol, as runs of dark modules.
pub struct Qr {
    /// Modules per side, quiet zone excluded.
    width: u16,
    runs: Vec<Run>,
}

impl Qr {
    /// Medium error correction: thermal paper fades and creases, and the URL stays short
    /// enough for a symbol that scans from a receipt.
    pub fn encode(url: &str) -> Result<Self, Error> {
        let code = QrCode::with_error_correction_level(url.as_bytes(), EcLevel::M).map_err(Error::QrCode)?;
        // The largest symbol (version 40) is 177 modules wide, far inside u16.
        let width = code.width();
        let mut runs = Vec::new();
        for (row, modules) in (0u16..).zip(code.to_colors().chunks(width.max(1))) {
            let mut start = None;
            // A light module past the end closes a run that reaches the right edge.
            for (column, color) in (0u16..).zip(modules.iter().chain([&Color::Light])) {
                match (color, start) {
                    (Color::Dark, None) => start = Some(column),
                    (Color::Light, Some(first)) => {
                        runs.push(Run { row, column: first, length: column - first });
                        start = None;
                    }
                    _ => {}
                }
            }
        }
        Ok(Qr { width: u16::try_from(width).unwrap_or(u16::MAX), runs })
    }

    /// Draws the symbol, quiet zone included, in a `size` point square whose top left corner
    /// is at (`x`, `top`).
    pub fn draw(&self, sheet: &mut Sheet, x: f32, top: f32, size: f32) {
        let module = size / f32::from(self.width + 2 * QUIET_ZONE);
        let offset = f32::from(QUIET_ZONE) * module;
        sheet.modules(x + offset, top + offset, module, self.runs.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_cover_exactly_the_dark_modules() {
        let url = "https://efiskalizimi-app.tatime.gov.al/invoice-check/#/verify?iic=0123456789ABCDEF";
        let qr = Qr::encode(url).unwrap();
        let code = QrCode::with_error_correction_level(url, EcLevel::M).unwrap();
        let width = code.width();
        assert_eq!(usize::from(qr.width), width);
        let mut grid = vec![Color::Light; width * width];
        for run in &qr.runs {
            for column in run.column..run.column + run.length {
                grid[usize::from(run.row) * width + usize::from(column)] = Color::Dark;
            }
        }
        assert_eq!(grid, code.to_colors());
    }
}
