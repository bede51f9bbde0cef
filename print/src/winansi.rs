//! Text for the base-14 Helvetica fonts: Unicode to WinAnsiEncoding bytes, and the advance
//! widths needed to right-align, wrap and truncate without embedding any font.

/// The byte written for a character the encoding cannot show.
const REPLACEMENT: u8 = b'?';

/// WinAnsiEncoding (Windows-1252) bytes 0x80..=0x9F hold typographic characters instead of the
/// Latin-1 control codes; five of them are unassigned. Indexed by `byte - 0x80`.
const HIGH_CONTROL_RANGE: [Option<char>; 32] = [
    Some('€'),
    None,
    Some('‚'),
    Some('ƒ'),
    Some('„'),
    Some('…'),
    Some('†'),
    Some('‡'),
    Some('ˆ'),
    Some('‰'),
    Some('Š'),
    Some('‹'),
    Some('Œ'),
    None,
    Some('Ž'),
    None,
    None,
    Some('‘'),
    Some('’'),
    Some('“'),
    Some('”'),
    Some('•'),
    Some('–'),
    Some('—'),
    Some('˜'),
    Some('™'),
    Some('š'),
    Some('›'),
    Some('œ'),
    None,
    Some('ž'),
    Some('Ÿ'),
];

/// The byte for one character, if WinAnsiEncoding has it.
fn encode_char(c: char) -> Option<u8> {
    let code = u32::from(c);
    match code {
        // Printable ASCII and the Latin-1 letters (ë, Ë, ç, Ç, ...) keep their code point.
        0x20..=0x7E | 0xA0..=0xFF => u8::try_from(code).ok(),
        _ => HIGH_CONTROL_RANGE
            .iter()
            .position(|candidate| *candidate == Some(c))
            .and_then(|index| u8::try_from(0x80 + index).ok()),
    }
}

/// Encodes `text` to WinAnsiEncoding. Tabs and line breaks become spaces (a caller that wants
/// separate lines splits first); anything else the fonts cannot show becomes `?`, so a label
/// never silently loses a character.
pub fn encode(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match encode_char(c) {
            Some(byte) => byte,
            None if c.is_whitespace() => b' ',
            None => REPLACEMENT,
        })
        .collect()
}

/// The ellipsis byte in WinAnsiEncoding, used to mark truncated text.
pub const ELLIPSIS: u8 = 0x85;

/// Which of the two faces a run of text uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Face {
    Regular,
    Bold,
}

/// Width of `bytes` at `size` points in `face`.
pub fn width(bytes: &[u8], face: Face, size: f32) -> f32 {
    points(units(bytes, face), size)
}

/// Width of `bytes` in thousandths of the font size: whole numbers, so the widths of pieces
/// add up to the width of the whole exactly.
pub fn units(bytes: &[u8], face: Face) -> u64 {
    bytes.iter().map(|&b| u64::from(glyph_width(b, face))).sum()
}

/// `units` thousandths of the font size, at `size` points.
pub fn points(units: u64, size: f32) -> f32 {
    units as f32 * size / 1000.0
}

/// Advance width of one byte in thousandths of the font size. Bytes below 0x20 never leave
/// `encode`, but get the width of a space rather than an out-of-range index.
fn glyph_width(byte: u8, face: Face) -> u16 {
    let table = match face {
        Face::Regular => &HELVETICA_WIDTHS,
        Face::Bold => &HELVETICA_BOLD_WIDTHS,
    };
    match byte.checked_sub(FIRST_CHAR) {
        Some(index) => table[usize::from(index)],
        None => table[0],
    }
}

/// The first byte the width tables (and the PDF font dictionaries) describe.
pub const FIRST_CHAR: u8 = 0x20;

/// Widths of the bytes 0x20..=0xFF in Helvetica under WinAnsiEncoding, from Adobe's Core14 AFM
/// metrics. Unassigned bytes carry the width of the bullet, as viewers draw them.
pub const HELVETICA_WIDTHS: [u16; 224] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556,
    556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278,
    500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469,
    556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500,
    278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 350, 556, 350, 222, 556, 333, 1000, 556, 556, 333,
    1000, 667, 333, 1000, 350, 611, 350, 350, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944,
    350, 500, 667, 278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333, 400, 584,
    333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611, 667, 667, 667, 667, 667, 667, 1000,
    722, 667, 667, 667, 667, 278, 278, 278, 278, 722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722,
    722, 667, 667, 611, 556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278, 556,
    556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,
];

/// Widths of the bytes 0x20..=0xFF in Helvetica-Bold under WinAnsiEncoding (Adobe Core14 AFM).
pub const HELVETICA_BOLD_WIDTHS: [u16; 224] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556,
    556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278,
    556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584,
    556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556,
    333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, 350, 556, 350, 278, 556, 500, 1000, 556, 556, 333,
    1000, 667, 333, 1000, 350, 611, 350, 350, 278, 278, 500, 500, 350, 556, 1000, 333, 1000, 556, 333, 944,
    350, 500, 667, 278, 333, 556, 556, 556, 556, 280, 556, 333, 737, 370, 556, 584, 333, 737, 333, 400, 584,
    333, 333, 333, 611, 556, 278, 333, 333, 365, 556, 834, 834, 834, 611, 722, 722, 722, 722, 722, 722, 1000,
    722, 667, 667, 667, 667, 278, 278, 278, 278, 722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722,
    722, 667, 667, 611, 556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556, 556, 278, 278, 278, 278, 611,
    611, 611, 611, 611, 611, 611, 584, 611, 611, 611, 611, 611, 556, 611, 556,
];
