//! Code page 858 (PC858, the Latin-1 DOS page with the euro sign), the page the receipt selects
//! with `ESC t 19`: it has every Albanian letter (ë 0x89, Ë 0xD3, ç 0x87, Ç 0x80) and the euro
//! (0xD5), and Epson-compatible printers carry it in their firmware.

/// The upper half, 0x80 to 0xFF, as Unicode.
const UPPER: [char; 128] = [
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å', //
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', 'ø', '£', 'Ø', '×', 'ƒ', //
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '®', '¬', '½', '¼', '¡', '«', '»', //
    '░', '▒', '▓', '│', '┤', 'Á', 'Â', 'À', '©', '╣', '║', '╗', '╝', '¢', '¥', '┐', //
    '└', '┴', '┬', '├', '─', '┼', 'ã', 'Ã', '╚', '╔', '╩', '╦', '╠', '═', '╬', '¤', //
    'ð', 'Ð', 'Ê', 'Ë', 'È', '€', 'Í', 'Î', 'Ï', '┘', '┌', '█', '▄', '¦', 'Ì', '▀', //
    'Ó', 'ß', 'Ô', 'Ò', 'õ', 'Õ', 'µ', 'þ', 'Þ', 'Ú', 'Û', 'Ù', 'ý', 'Ý', '¯', '´', //
    '\u{ad}', '±', '‗', '¾', '¶', '§', '÷', '¸', '°', '¨', '·', '¹', '³', '²', '■', '\u{a0}',
];

/// The byte of `c` on the page; `?` for a character the page does not have, and a space for a
/// control character (a name cannot send the printer a command).
pub fn byte(c: char) -> u8 {
    match c {
        ' '..='~' => c as u8,
        c if c.is_control() => b' ',
        c => UPPER.iter().position(|u| *u == c).map_or(b'?', |at| 0x80 + at as u8),
    }
}

/// `text` on the page, one byte a character.
pub fn encode(text: &str) -> Vec<u8> {
    text.chars().map(byte).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn albanian_letters_and_the_euro_have_their_bytes() {
        assert_eq!(encode("ëËçÇ€"), [0x89, 0xD3, 0x87, 0x80, 0xD5]);
        assert_eq!(encode("Ujë 1.5 L"), b"Uj\x89 1.5 L");
        assert_eq!(encode("日\x1b"), b"? ");
    }
}
