//! The QR code of the verification URL, drawn as filled rectangles: no image object, so it
//! stays sharp at any zoom and on any printer.

use qrcode::{Color, EcLevel, QrCode};

use super::Error;
use super::canvas::Sheet;

/// Light modules around the symbol, as the QR specification asks, so scanners find its edge.
const QUIET_ZONE: usize = 4;

/// An encoded QR symbol.
pub struct Qr {
    code: QrCode,
}

impl Qr {
    /// Medium error correction: thermal paper fades and creases, and the URL stays short
    /// enough for a symbol that scans from a receipt.
    pub fn encode(url: &str) -> Result<Self, Error> {
        let code = QrCode::with_error_correction_level(url.as_bytes(), EcLevel::M).map_err(Error::QrCode)?;
        Ok(Qr { code })
    }

    /// Draws the symbol, quiet zone included, in a `size` point square whose top left corner
    /// is at (`x`, `top`). Each run of dark modules in a row is one rectangle.
    pub fn draw(&self, sheet: &mut Sheet, x: f32, top: f32, size: f32) {
        let width = self.code.width();
        let module = size / (width + 2 * QUIET_ZONE) as f32;
        let colors = self.code.to_colors();
        for (row, modules) in colors.chunks(width.max(1)).enumerate() {
            let row_top = top + (QUIET_ZONE + row) as f32 * module;
            let mut column = 0;
            while column < modules.len() {
                if modules[column] != Color::Dark {
                    column += 1;
                    continue;
                }
                let start = column;
                while column < modules.len() && modules[column] == Color::Dark {
                    column += 1;
                }
                let run_x = x + (QUIET_ZONE + start) as f32 * module;
                sheet.fill(run_x, row_top, (column - start) as f32 * module, module, 0.0);
            }
        }
    }
}
