//! The few ESC/POS commands a receipt needs, written as Epson's command reference gives them.
//! Every Epson-compatible thermal printer (and the test's printer) reads them.

use super::cp858;

const ESC: u8 = 0x1B;
const GS: u8 = 0x1D;
const DLE: u8 = 0x10;
const EOT: u8 = 0x04;

/// `DLE EOT 4`: the paper roll sensor's status, answered at once with one byte.
pub const PAPER_STATUS: [u8; 3] = [DLE, EOT, 4];

/// Whether a `DLE EOT 4` answer says the roll has run out (bits 5 and 6).
pub fn paper_out(status: u8) -> bool {
    status & 0x60 != 0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
}

/// A receipt's bytes as they go to the printer.
#[derive(Debug, Default)]
pub struct Commands {
    bytes: Vec<u8>,
}

impl Commands {
    /// `ESC @` (the printer's defaults), then `ESC t 19`: code page 858.
    pub fn new() -> Commands {
        Commands { bytes: vec![ESC, b'@', ESC, b't', 19] }
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// `ESC p 0 25 250`: a 50 ms pulse on the drawer kick-out connector's pin 2.
    pub fn open_drawer(&mut self) -> &mut Self {
        self.bytes.extend([ESC, b'p', 0, 25, 250]);
        self
    }

    /// `ESC a n`.
    pub fn align(&mut self, align: Align) -> &mut Self {
        self.bytes.extend([ESC, b'a', if align == Align::Center { 1 } else { 0 }]);
        self
    }

    /// `ESC E n`: emphasized.
    pub fn bold(&mut self, on: bool) -> &mut Self {
        self.bytes.extend([ESC, b'E', u8::from(on)]);
        self
    }

    /// `GS ! n`: double height (and width) or normal characters.
    pub fn double(&mut self, height: bool, width: bool) -> &mut Self {
        let n = if height { 0x01 } else { 0 } | if width { 0x10 } else { 0 };
        self.bytes.extend([GS, b'!', n]);
        self
    }

    /// One line of text on code page 858, ended by LF.
    pub fn line(&mut self, text: &str) -> &mut Self {
        self.bytes.extend(cp858::encode(text));
        self.bytes.push(b'\n');
        self
    }

    /// `ESC d n`: feeds `lines` lines.
    pub fn feed(&mut self, lines: u8) -> &mut Self {
        self.bytes.extend([ESC, b'd', lines]);
        self
    }

    /// The QR code of `data` with the printer's own command (`GS ( k`): model 2, modules of
    /// `module` dots, error correction M, stored then printed. Data longer than the command's
    /// 7089 bytes is cut (a verification URL is a few hundred).
    pub fn qr(&mut self, data: &str, module: u8) -> &mut Self {
        let data = &data.as_bytes()[..data.len().min(7089)];
        let stored = data.len() + 3;
        let (low, high) = ((stored % 256) as u8, (stored / 256) as u8);
        self.bytes.extend([GS, b'(', b'k', 4, 0, 49, 65, 50, 0]);
        self.bytes.extend([GS, b'(', b'k', 3, 0, 49, 67, module]);
        self.bytes.extend([GS, b'(', b'k', 3, 0, 49, 69, 49]);
        self.bytes.extend([GS, b'(', b'k', low, high, 49, 80, 48]);
        self.bytes.extend(data);
        self.bytes.extend([GS, b'(', b'k', 3, 0, 49, 81, 48]);
        self
    }

    /// `GS V 66 n`: feeds to the cutter, plus `n` dots, and cuts leaving a hinge.
    pub fn cut(&mut self) -> &mut Self {
        self.bytes.extend([GS, b'V', 66, 0]);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qr_command_carries_the_data_with_its_length() {
        let mut c = Commands::new();
        c.qr("https://x", 5);
        let bytes = c.into_bytes();
        let at = bytes.windows(8).position(|w| w == [GS, b'(', b'k', 12, 0, 49, 80, 48]).unwrap();
        assert_eq!(&bytes[at + 8..at + 17], b"https://x");
        assert_eq!(&bytes[at + 17..], [GS, b'(', b'k', 3, 0, 49, 81, 48]);
    }

    #[test]
    fn the_paper_sensor_says_the_roll_has_ended() {
        assert!(!paper_out(0x12));
        assert!(!paper_out(0x1E), "near its end is not out");
        assert!(paper_out(0x72));
    }
}
