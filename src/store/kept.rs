//! The request a document was registered with, as the fiscal queue keeps it: compressed, and
//! given back byte for byte.
//!
//! A kept request is a BLOB of one format byte and a raw DEFLATE stream (RFC 1951) written with
//! a preset dictionary, `kept_request_v1.xml`: a typical request of each kind, so the stream
//! holds little more than what is particular to the document (its numbers, codes, times, amounts,
//! buyer). Any zlib decodes it (`inflateSetDictionary`, Python's
//! `zlib.decompressobj(-15, zdict=...)`). The dictionary of a format never changes: a new one
//! comes with a new format byte, and every earlier one stays readable. A TEXT value is a request
//! kept as it is (a database before V27 until its migration packs it, or a shop restored from
//! its head office).
//!
//! Format 2 (issue 34) keeps an invoice's IIC signature, 512 random hex digits that no
//! dictionary shortens, as its 256 bytes: the format byte, the offset of the signature's digits
//! in the request (4 bytes, little-endian), the signature, then the stream of format 1's
//! dictionary over the request without those digits. It is the only copy of the signature: the
//! invoice's row reads it from here (`signature`).
//!
//! Format 3 (issue 34, what a queue entry writes since) holds the format byte, the signature's
//! 256 bytes, the id of its shop's dictionary (a row of `kept_dictionaries`, LEB128; 0 for none),
//! then a stream without the signature's digits (they go back after the request's first
//! ` IICSignature="`, where `pack_entry` found them). The stream's dictionary is format 1's,
//! then the shop's (one whole earlier request of the company: its seller, codes and items), then
//! the entry's own keys (`EntryKeys`: its TCR code, document number and Header UUID, and the IIC,
//! which is the MD5 of the signature): the request repeats them all, so the stream holds little
//! more than its times, numbers and amounts. Its reader needs those columns and that row beside
//! the value (`unpack_entry`); an entry's keys and a shop's dictionary never change once written.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use rusqlite::types::{ToSql, ToSqlOutput, ValueRef};

/// The format byte of a request compressed with `DICTIONARY_V1`.
const FORMAT_V1: u8 = 1;
/// The format byte of a request whose IIC signature is kept as bytes beside the stream.
const FORMAT_V2: u8 = 2;
/// The attribute whose value format 2 lifts out of the request.
const SIGNATURE_ATTRIBUTE: &str = " IICSignature=\"";
/// An IIC signature's bytes (RSA-2048) and its hex digits in a request.
const SIGNATURE_BYTES: usize = 256;
const SIGNATURE_DIGITS: usize = 2 * SIGNATURE_BYTES;
/// The format byte of a request whose stream is written with its entry's keys (`EntryKeys`).
const FORMAT_V3: u8 = 3;
/// Format 2's head: the format byte, the signature's offset and the signature.
const V2_HEAD: usize = 1 + 4 + SIGNATURE_BYTES;
/// Format 3's head: the format byte and the signature.
const V3_HEAD: usize = 1 + SIGNATURE_BYTES;
const DICTIONARY_V1: &[u8] = include_bytes!("kept_request_v1.xml");

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the kept request could not be compressed: {0}")]
    Compress(#[from] flate2::CompressError),
    #[error("the kept request could not be read: {0}")]
    Decompress(#[from] flate2::DecompressError),
    #[error("the kept request is cut short or damaged")]
    Truncated,
    #[error("the kept request has the unknown format {0}")]
    Format(u8),
    #[error("the kept request is not UTF-8 text")]
    Text,
    #[error("the kept request needs its shop's dictionary {0}, which was not given")]
    Dictionary(i64),
    #[error("the kept request's IIC could not be made: {0}")]
    Digest(#[from] openssl::error::ErrorStack),
}

/// What format 3's stream is written with beside format 1's dictionary: the entry's own columns
/// and its shop's dictionary. None of it changes once written.
#[derive(Debug, Clone, Copy)]
pub struct EntryKeys<'a> {
    pub header_uuid: &'a str,
    pub tcr_code: Option<&'a str>,
    pub document_number: Option<&'a str>,
    /// The row of `kept_dictionaries` the entry is (to be) written with.
    pub shop: Option<ShopDictionary<'a>>,
}

/// A row of `kept_dictionaries`: its id and its dictionary.
#[derive(Debug, Clone, Copy)]
pub struct ShopDictionary<'a> {
    pub id: i64,
    pub dictionary: &'a [u8],
}

impl EntryKeys<'_> {
    /// Format 1's dictionary followed by the keys and the IIC of `signature`: what the request
    /// repeats comes last, nearest to the stream.
    fn dictionary(&self, signature: &[u8]) -> Result<Vec<u8>, Error> {
        let iic = openssl::hash::hash(openssl::hash::MessageDigest::md5(), signature)?;
        let keys = [
            self.tcr_code.unwrap_or(""),
            self.document_number.unwrap_or(""),
            &upper_hex(&iic),
            self.header_uuid,
        ];
        let mut dictionary = DICTIONARY_V1.to_vec();
        dictionary.extend_from_slice(self.shop.map_or(&[][..], |shop| shop.dictionary));
        for key in keys {
            dictionary.push(b' ');
            dictionary.extend_from_slice(key.as_bytes());
        }
        Ok(dictionary)
    }
}

/// `request`, packed as the queue keeps it: format 2 when it holds an IIC signature in upper-case
/// hex (every request this program makes), format 1 otherwise.
pub fn pack(request: &str) -> Result<Vec<u8>, Error> {
    match lifted_signature(request) {
        Some((offset, signature)) => {
            let mut packed = Vec::with_capacity(V2_HEAD + request.len() / 4 + 64);
            packed.push(FORMAT_V2);
            packed.extend_from_slice(&u32::try_from(offset).map_err(|_| Error::Truncated)?.to_le_bytes());
            packed.extend_from_slice(&signature);
            let rest =
                [&request.as_bytes()[..offset], &request.as_bytes()[offset + SIGNATURE_DIGITS..]].concat();
            deflate(&rest, packed)
        }
        None => deflate(request.as_bytes(), vec![FORMAT_V1]),
    }
}

/// `request`, packed as a queue entry with `keys` keeps it: format 3 when it holds an IIC
/// signature in upper-case hex, format 1 otherwise.
pub fn pack_entry(request: &str, keys: &EntryKeys) -> Result<Vec<u8>, Error> {
    let Some((offset, signature)) = lifted_signature(request) else {
        return deflate(request.as_bytes(), vec![FORMAT_V1]);
    };
    let mut packed = Vec::with_capacity(V3_HEAD + request.len() / 4 + 64);
    packed.push(FORMAT_V3);
    packed.extend_from_slice(&signature);
    let mut id = u64::try_from(keys.shop.map_or(0, |shop| shop.id)).map_err(|_| Error::Truncated)?;
    loop {
        let low = (id & 0x7f) as u8;
        id >>= 7;
        packed.push(if id == 0 { low } else { low | 0x80 });
        if id == 0 {
            break;
        }
    }
    let rest = [&request.as_bytes()[..offset], &request.as_bytes()[offset + SIGNATURE_DIGITS..]].concat();
    deflate_with(&rest, packed, &keys.dictionary(&signature)?)
}

/// What a shop's dictionary is made of: `request` (one of the shop's own) without its IIC
/// signature's digits, which are particular to it; none for a request without a signature.
pub fn shop_dictionary(request: &str) -> Option<Vec<u8>> {
    let (offset, _) = lifted_signature(request)?;
    Some([&request.as_bytes()[..offset], &request.as_bytes()[offset + SIGNATURE_DIGITS..]].concat())
}

/// The `<Seller …>` tag of `request` (the company's name and NUIS, its unit's address), which
/// names the shop's dictionary it is packed with; empty when it has none.
pub fn seller(request: &str) -> &str {
    request
        .find("<Seller ")
        .and_then(|start| request[start..].split_inclusive('>').next())
        .unwrap_or_default()
}

/// Format 3's head: the shop's dictionary's id (0 for none) and where the stream starts.
fn v3_head(packed: &[u8]) -> Result<(i64, usize), Error> {
    let mut id: u64 = 0;
    for (n, byte) in packed.iter().skip(V3_HEAD).take(9).enumerate() {
        id |= u64::from(byte & 0x7f) << (7 * n);
        if byte & 0x80 == 0 {
            return Ok((i64::try_from(id).map_err(|_| Error::Truncated)?, V3_HEAD + n + 1));
        }
    }
    Err(Error::Truncated)
}

/// The id of the shop's dictionary a kept request was written with, if any.
pub fn dictionary_id(packed: &[u8]) -> Option<i64> {
    if packed.first() != Some(&FORMAT_V3) {
        return None;
    }
    v3_head(packed).ok().map(|(id, _)| id).filter(|id| *id != 0)
}

/// Whether `request`, packed, keeps `signature` (upper-case hex) beside its stream.
pub fn keeps_signature(request: &str, signature: &str) -> bool {
    lifted_signature(request).is_some_and(|(_, lifted)| upper_hex(&lifted) == signature)
}

/// The offset of the first IIC signature's digits in `request` and its bytes, when they are
/// 512 upper-case hex digits (what `unpack` writes back).
fn lifted_signature(request: &str) -> Option<(usize, [u8; SIGNATURE_BYTES])> {
    let offset = request.find(SIGNATURE_ATTRIBUTE)? + SIGNATURE_ATTRIBUTE.len();
    let digits = request.as_bytes().get(offset..offset + SIGNATURE_DIGITS + 1)?;
    if digits[SIGNATURE_DIGITS] != b'"' {
        return None;
    }
    let mut signature = [0u8; SIGNATURE_BYTES];
    for (byte, pair) in signature.iter_mut().zip(digits[..SIGNATURE_DIGITS].chunks_exact(2)) {
        *byte = upper_hex_digit(pair[0])? << 4 | upper_hex_digit(pair[1])?;
    }
    Some((offset, signature))
}

fn upper_hex_digit(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// `bytes` in upper-case hex, as a request holds a signature.
fn upper_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    bytes
        .iter()
        .flat_map(|b| [char::from(DIGITS[usize::from(b >> 4)]), char::from(DIGITS[usize::from(b & 15)])])
        .collect()
}

/// `input` compressed with format 1's dictionary after `packed`'s head.
fn deflate(input: &[u8], packed: Vec<u8>) -> Result<Vec<u8>, Error> {
    deflate_with(input, packed, DICTIONARY_V1)
}

/// `input` compressed with `dictionary` after `packed`'s head.
fn deflate_with(input: &[u8], mut packed: Vec<u8>, dictionary: &[u8]) -> Result<Vec<u8>, Error> {
    let mut deflate = Compress::new(Compression::best(), false);
    deflate.set_dictionary(dictionary)?;
    loop {
        let read = usize::try_from(deflate.total_in()).map_err(|_| Error::Truncated)?;
        packed.reserve(256);
        match deflate.compress_vec(&input[read..], &mut packed, FlushCompress::Finish)? {
            Status::StreamEnd => return Ok(packed),
            Status::Ok | Status::BufError => {}
        }
    }
}

/// The request `packed` holds, byte for byte as it was packed, when its format needs no more
/// than the value (1 and 2).
pub fn unpack(packed: &[u8]) -> Result<String, Error> {
    let (&format, stream) = packed.split_first().ok_or(Error::Truncated)?;
    match format {
        FORMAT_V1 => String::from_utf8(inflate(stream, DICTIONARY_V1)?).map_err(|_| Error::Text),
        FORMAT_V2 => {
            let (offset, signature) = v2_head(packed)?;
            let mut request = inflate(&packed[V2_HEAD..], DICTIONARY_V1)?;
            if offset > request.len() {
                return Err(Error::Truncated);
            }
            request.splice(offset..offset, upper_hex(signature).into_bytes());
            String::from_utf8(request).map_err(|_| Error::Text)
        }
        other => Err(Error::Format(other)),
    }
}

/// The request a queue entry with `keys` keeps as `packed`, in any format.
pub fn unpack_entry(packed: &[u8], keys: &EntryKeys) -> Result<String, Error> {
    if packed.first() != Some(&FORMAT_V3) {
        return unpack(packed);
    }
    let signature = packed.get(1..V3_HEAD).ok_or(Error::Truncated)?;
    let (id, stream) = v3_head(packed)?;
    if id != keys.shop.map_or(0, |shop| shop.id) {
        return Err(Error::Dictionary(id));
    }
    let mut request = inflate(&packed[stream..], &keys.dictionary(signature)?)?;
    let offset = request
        .windows(SIGNATURE_ATTRIBUTE.len())
        .position(|w| w == SIGNATURE_ATTRIBUTE.as_bytes())
        .ok_or(Error::Truncated)?
        + SIGNATURE_ATTRIBUTE.len();
    request.splice(offset..offset, upper_hex(signature).into_bytes());
    String::from_utf8(request).map_err(|_| Error::Text)
}

/// The signature's offset and bytes of a format 2 value.
fn v2_head(packed: &[u8]) -> Result<(usize, &[u8]), Error> {
    let head = packed.get(..V2_HEAD).ok_or(Error::Truncated)?;
    let offset = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    Ok((usize::try_from(offset).map_err(|_| Error::Truncated)?, &head[5..]))
}

fn inflate(stream: &[u8], dictionary: &[u8]) -> Result<Vec<u8>, Error> {
    let mut inflate = Decompress::new(false);
    inflate.set_dictionary(dictionary)?;
    let mut request = Vec::with_capacity(stream.len() * 4 + 256);
    loop {
        let read = usize::try_from(inflate.total_in()).map_err(|_| Error::Truncated)?;
        let written = request.len();
        request.reserve(1024);
        match inflate.decompress_vec(&stream[read..], &mut request, FlushDecompress::Finish)? {
            Status::StreamEnd => return Ok(request),
            // No progress with room to write: the stream ends before its last block.
            Status::Ok | Status::BufError
                if request.len() == written && inflate.total_in() as usize == read =>
            {
                return Err(Error::Truncated);
            }
            Status::Ok | Status::BufError => {}
        }
    }
}

/// The IIC signature (upper-case hex) of the request a column of `fiscal_queue` keeps: read off
/// a format 2 or 3 value's head, found in any other; none when it holds none.
pub fn signature(kept: ValueRef<'_>) -> Result<Option<String>, Error> {
    let text = match kept {
        ValueRef::Blob(packed) if packed.first() == Some(&FORMAT_V2) => {
            return Ok(Some(upper_hex(v2_head(packed)?.1)));
        }
        ValueRef::Blob(packed) if packed.first() == Some(&FORMAT_V3) => {
            return Ok(Some(upper_hex(packed.get(1..V3_HEAD).ok_or(Error::Truncated)?)));
        }
        ValueRef::Blob(packed) => unpack(packed)?,
        ValueRef::Text(text) => String::from_utf8(text.to_vec()).map_err(|_| Error::Text)?,
        _ => return Ok(None),
    };
    Ok(lifted_signature(&text).map(|(_, signature)| upper_hex(&signature)))
}

/// The request a `fiscal_queue` entry with `keys` keeps as `value`: packed (BLOB) or as it is
/// (TEXT). `dictionary` is the shop's dictionary its head names (`SHOP_DICTIONARY_SQL`).
pub fn read(value: ValueRef<'_>, keys: EntryKeys, dictionary: Option<&[u8]>) -> Result<String, Error> {
    match value {
        ValueRef::Text(text) => String::from_utf8(text.to_vec()).map_err(|_| Error::Text),
        ValueRef::Blob(packed) => {
            let id = dictionary_id(packed).unwrap_or(0);
            unpack_entry(
                packed,
                &EntryKeys { shop: dictionary.map(|dictionary| ShopDictionary { id, dictionary }), ..keys },
            )
        }
        _ => Err(Error::Truncated),
    }
}

/// `request` packed for the INSERT of a queue entry with `keys`.
pub struct Packed(Vec<u8>);

impl Packed {
    pub fn entry(request: &str, keys: &EntryKeys) -> Result<Packed, Error> {
        pack_entry(request, keys).map(Packed)
    }
}

impl ToSql for Packed {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.as_slice()))
    }
}

/// The dictionary a `fiscal_queue` entry's kept request was written with, in SQL over the
/// entry's row: NULL when it names none.
pub const SHOP_DICTIONARY_SQL: &str = "(SELECT kept_dictionaries.dictionary FROM kept_dictionaries
    WHERE kept_dictionaries.id = arka_kept_dictionary(fiscal_queue.unsigned_request))";

/// The SQL reading `table.column` as text when it holds kept requests: rows shipped as JSON (to
/// the head office) carry them as text, since JSON holds no BLOB.
pub fn as_text_sql(table: &str, column: &str) -> Option<String> {
    ((table, column) == ("fiscal_queue", "unsigned_request")).then(|| {
        format!(
            "arka_unpack_request(\"{column}\", header_uuid, tcr_code, document_number, {SHOP_DICTIONARY_SQL})"
        )
    })
}

/// The store's SQL functions, on every connection: `arka_pack_request(text)` for V27, which packs
/// the requests an earlier release kept as text, and `arka_unpack_request(value)`, a kept request
/// as text, or `arka_unpack_request(value, header_uuid, tcr_code, document_number, dictionary)`
/// with what format 3 needs beside the value (the entry's keys, the shop's dictionary its head
/// names: `SHOP_DICTIONARY_SQL`). Each passes a value of another type (NULL, or a request already
/// as wanted) through. `arka_kept_signature(value)` is the IIC signature a kept request holds, or
/// NULL; `arka_kept_dictionary(value)` the id of the shop's dictionary it names, or NULL.
pub fn register_sql_functions(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    // Each function's first argument (the value to pack or unpack), then the entry's keys and
    // its shop's dictionary.
    const ARGUMENT: usize = 0;
    const KEYS: [usize; 4] = [1, 2, 3, 4];
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let failed = |e: Error| rusqlite::Error::UserFunctionError(e.into());
    conn.create_scalar_function("arka_pack_request", 1, flags, move |ctx| {
        Ok(match ctx.get_raw(ARGUMENT) {
            ValueRef::Text(text) => {
                let text = std::str::from_utf8(text).map_err(|_| failed(Error::Text))?;
                rusqlite::types::Value::Blob(pack(text).map_err(failed)?)
            }
            _ => ctx.get::<rusqlite::types::Value>(ARGUMENT)?,
        })
    })?;
    conn.create_scalar_function("arka_unpack_request", 1, flags, move |ctx| {
        Ok(match ctx.get_raw(ARGUMENT) {
            ValueRef::Blob(packed) => rusqlite::types::Value::Text(unpack(packed).map_err(failed)?),
            _ => ctx.get::<rusqlite::types::Value>(ARGUMENT)?,
        })
    })?;
    conn.create_scalar_function("arka_unpack_request", 5, flags, move |ctx| {
        Ok(match ctx.get_raw(ARGUMENT) {
            ValueRef::Blob(packed) => {
                let [uuid, tcr, number, dictionary] = KEYS;
                let header_uuid: String = ctx.get(uuid)?;
                let (tcr_code, document_number): (Option<String>, Option<String>) =
                    (ctx.get(tcr)?, ctx.get(number)?);
                let dictionary: Option<Vec<u8>> = ctx.get(dictionary)?;
                let keys = EntryKeys {
                    header_uuid: &header_uuid,
                    tcr_code: tcr_code.as_deref(),
                    document_number: document_number.as_deref(),
                    shop: None,
                };
                let request = read(ValueRef::Blob(packed), keys, dictionary.as_deref()).map_err(failed)?;
                rusqlite::types::Value::Text(request)
            }
            _ => ctx.get::<rusqlite::types::Value>(ARGUMENT)?,
        })
    })?;
    conn.create_scalar_function("arka_kept_dictionary", 1, flags, move |ctx| {
        Ok(match ctx.get_raw(ARGUMENT) {
            ValueRef::Blob(packed) => dictionary_id(packed),
            _ => None,
        })
    })?;
    conn.create_scalar_function("arka_kept_signature", 1, flags, move |ctx| {
        signature(ctx.get_raw(ARGUMENT)).map_err(failed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUEST: &str = include_str!("kept_request_v1.xml");

    #[test]
    fn a_request_comes_back_byte_for_byte_and_small() {
        let request = REQUEST.replace("ab123cd456", "zz999zz999").replace("2026-", "2031-");
        let packed = pack(&request).unwrap();
        assert_eq!(unpack(&packed).unwrap(), request);
        assert!(packed.len() * 4 < request.len(), "{} of {}", packed.len(), request.len());
        for text in ["", "<a/>", "ë ç € 𝄞"] {
            assert_eq!(unpack(&pack(text).unwrap()).unwrap(), text);
        }
    }

    #[test]
    fn the_sql_functions_pack_and_unpack_and_pass_other_values_through() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        register_sql_functions(&conn).unwrap();
        let back: String = conn
            .query_row("SELECT arka_unpack_request(arka_pack_request(?1)) AS back", [REQUEST], |r| {
                r.get("back")
            })
            .unwrap();
        assert_eq!(back, REQUEST);
        let kinds: (String, String, String) = conn
            .query_row(
                "SELECT typeof(arka_pack_request(?1)) AS packed, typeof(arka_pack_request(NULL)) AS null_value,
                     typeof(arka_unpack_request('x')) AS text_value",
                [REQUEST],
                |r| Ok((r.get("packed")?, r.get("null_value")?, r.get("text_value")?)),
            )
            .unwrap();
        assert_eq!(kinds, ("blob".into(), "null".into(), "text".into()));
    }

    #[test]
    fn a_damaged_or_unknown_value_is_an_error_not_a_wrong_request() {
        let packed = pack(REQUEST).unwrap();
        assert!(unpack(&packed[..packed.len() / 2]).is_err());
        assert!(unpack(&[]).is_err());
        let mut other = packed.clone();
        other[0] = 9;
        assert!(matches!(unpack(&other), Err(Error::Format(9))));
    }

    /// One invoice's request of the dictionary with a signature of its own (random digits, as
    /// a real one is to the dictionary), as the queue keeps a cash sale's.
    fn invoice_request() -> String {
        let line = REQUEST.lines().find(|l| l.contains("TypeOfInv=\"CASH\"")).unwrap();
        let start = line.find("IICSignature=\"").unwrap() + "IICSignature=\"".len();
        let mut state = 0x2545_f491_u32;
        let bytes: Vec<u8> = (0..SIGNATURE_BYTES)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state.to_le_bytes()[0]
            })
            .collect();
        let request = format!("{}{}{}", &line[..start], upper_hex(&bytes), &line[start + SIGNATURE_DIGITS..]);
        request.replace("2026-", "2031-")
    }

    #[test]
    fn the_signature_is_kept_as_its_256_bytes_and_written_back_in_place() {
        let request = invoice_request();
        let packed = pack(&request).unwrap();
        assert_eq!(packed[0], FORMAT_V2);
        assert_eq!(unpack(&packed).unwrap(), request);
        let as_text = deflate(request.as_bytes(), vec![FORMAT_V1]).unwrap();
        assert!(packed.len() + 40 < as_text.len(), "{} against {}", packed.len(), as_text.len());
        assert_eq!(unpack(&as_text).unwrap(), request, "format 1 stays readable");
        let start = request.find("IICSignature=\"").unwrap() + "IICSignature=\"".len();
        let digits = &request[start..start + SIGNATURE_DIGITS];
        for kept in [ValueRef::Blob(&packed), ValueRef::Blob(&as_text), ValueRef::Text(request.as_bytes())] {
            assert_eq!(signature(kept).unwrap().as_deref(), Some(digits));
        }
        assert_eq!(signature(ValueRef::Text(b"<RegisterWTNRequest/>")).unwrap(), None);
        assert!(keeps_signature(&request, digits));
        assert!(!keeps_signature(&request, &digits.to_lowercase()));
        assert!(!keeps_signature("<RegisterWTNRequest/>", digits));
    }

    #[test]
    fn a_signature_not_in_upper_case_hex_stays_in_the_stream() {
        let request = invoice_request();
        let start = request.find("IICSignature=\"").unwrap() + "IICSignature=\"".len();
        let lower = format!("{}{}", &request[..start], request[start..].replacen('A', "a", 1));
        let cut = format!("{}\"{}", &request[..start + 10], &request[start + SIGNATURE_DIGITS + 1..]);
        for request in [lower, cut] {
            let packed = pack(&request).unwrap();
            assert_eq!(packed[0], FORMAT_V1);
            assert_eq!(unpack(&packed).unwrap(), request);
        }
        let mut packed = pack(&invoice_request()).unwrap();
        packed[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(unpack(&packed).is_err(), "an offset past the request's end");
    }

    const KEYS: EntryKeys<'static> = EntryKeys {
        header_uuid: "fea0973f-2fd3-4e3d-a83c-f8c727c42773",
        tcr_code: Some("gi878mb200"),
        document_number: Some("99/2026"),
        shop: None,
    };

    /// `request` with `attribute`'s first value replaced by `value`.
    fn with_value(request: &str, attribute: &str, value: &str) -> String {
        let start = request.find(attribute).unwrap() + attribute.len();
        let end = start + request[start..].find('"').unwrap();
        format!("{}{value}{}", &request[..start], &request[end..])
    }

    /// `invoice_request` as this program makes it for the entry of `KEYS`: its IIC the MD5 of
    /// its signature, its Header UUID, TCR code and number the entry's.
    fn entry_request() -> String {
        let request = invoice_request();
        let (_, signature) = lifted_signature(&request).unwrap();
        let iic = upper_hex(&openssl::hash::hash(openssl::hash::MessageDigest::md5(), &signature).unwrap());
        let request = with_value(&request, " IIC=\"", &iic);
        let request = with_value(&request, " UUID=\"", KEYS.header_uuid);
        let request = with_value(&request, " TCRCode=\"", "gi878mb200");
        with_value(&request, " InvNum=\"", "99/2026/gi878mb200")
    }

    #[test]
    fn an_entry_is_kept_with_its_keys_and_comes_back_byte_for_byte() {
        let request = entry_request();
        let packed = pack_entry(&request, &KEYS).unwrap();
        assert_eq!(packed[0], FORMAT_V3);
        assert_eq!(unpack_entry(&packed, &KEYS).unwrap(), request);
        assert_eq!(read(ValueRef::Blob(&packed), KEYS, None).unwrap(), request);
        let v2 = pack(&request).unwrap();
        assert!(packed.len() + 60 < v2.len(), "format 3 {} against format 2 {}", packed.len(), v2.len());
        assert!(matches!(unpack(&packed), Err(Error::Format(FORMAT_V3))), "format 3 needs the keys");
        let start = request.find(SIGNATURE_ATTRIBUTE).unwrap() + SIGNATURE_ATTRIBUTE.len();
        let digits = &request[start..start + SIGNATURE_DIGITS];
        assert_eq!(signature(ValueRef::Blob(&packed)).unwrap().as_deref(), Some(digits));
        let other = EntryKeys { header_uuid: "00000000-0000-0000-0000-000000000000", ..KEYS };
        assert_ne!(unpack_entry(&packed, &other).ok().as_deref(), Some(request.as_str()));
    }

    #[test]
    fn every_format_reads_back_as_an_entry_whatever_its_keys() {
        let request = entry_request();
        let none = EntryKeys { header_uuid: "", tcr_code: None, document_number: None, shop: None };
        for keys in [KEYS, none] {
            let packed = pack_entry(&request, &keys).unwrap();
            assert_eq!(unpack_entry(&packed, &keys).unwrap(), request);
            for old in [pack(&request).unwrap(), deflate(request.as_bytes(), vec![FORMAT_V1]).unwrap()] {
                assert_eq!(read(ValueRef::Blob(&old), keys, None).unwrap(), request);
            }
            assert_eq!(read(ValueRef::Text(request.as_bytes()), keys, None).unwrap(), request);
        }
        let without_signature = "<RegisterWTNRequest/>";
        let packed = pack_entry(without_signature, &KEYS).unwrap();
        assert_eq!(packed[0], FORMAT_V1);
        assert_eq!(unpack_entry(&packed, &KEYS).unwrap(), without_signature);
        let packed = pack_entry(&request, &KEYS).unwrap();
        assert!(unpack_entry(&packed[..packed.len() / 2], &KEYS).is_err());
        assert!(unpack_entry(&packed[..100], &KEYS).is_err());
    }

    #[test]
    fn the_sql_function_unpacks_an_entry_with_its_keys() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        register_sql_functions(&conn).unwrap();
        let request = entry_request();
        let packed = pack_entry(&request, &KEYS).unwrap();
        let dictionary = shop_dictionary(&invoice_request()).unwrap();
        let with_shop = pack_entry(
            &request,
            &EntryKeys { shop: Some(ShopDictionary { id: 7, dictionary: &dictionary }), ..KEYS },
        )
        .unwrap();
        for (packed, dictionary, id) in [(&packed, None, None), (&with_shop, Some(&dictionary), Some(7))] {
            let (back, named): (String, Option<i64>) = conn
                .query_row(
                    "SELECT arka_unpack_request(?1, ?2, ?3, ?4, ?5) AS back, arka_kept_dictionary(?1) AS named",
                    rusqlite::params![packed, KEYS.header_uuid, KEYS.tcr_code, KEYS.document_number, dictionary],
                    |r| Ok((r.get("back")?, r.get("named")?)),
                )
                .unwrap();
            assert_eq!((back.as_str(), named), (request.as_str(), id));
        }
        assert!(as_text_sql("fiscal_queue", "unsigned_request").unwrap().contains("kept_dictionaries"));
        assert_eq!(as_text_sql("invoices", "unsigned_request"), None);
    }

    #[test]
    fn a_shops_dictionary_takes_what_its_requests_repeat_and_is_needed_to_read_them() {
        // A shop of its own (its seller's details not in format 1's dictionary), and another of
        // its sales: its own signature, times and number.
        let own = |request: &str| {
            let request = with_value(request, " Name=\"", "Farmacia Lulebora sh.p.k.");
            let request = with_value(&request, " Address=\"", "Rruga e Kavajës 112/4");
            with_value(&request, " IDNum=\"", "K91726354B")
        };
        let request = own(&entry_request());
        let earlier = own(&invoice_request().replace("2031-", "2030-"));
        let dictionary = shop_dictionary(&earlier).unwrap();
        assert!(!dictionary.windows(SIGNATURE_DIGITS).any(|w| w.iter().all(u8::is_ascii_hexdigit)));
        assert_eq!(seller(&request), seller(&earlier));
        assert!(seller(&request).starts_with("<Seller ") && seller(&request).ends_with("Town=\"Tiranë\">"));
        assert_eq!(seller("<RegisterWTNRequest/>"), "");
        let shop = ShopDictionary { id: 300, dictionary: &dictionary };
        let packed = pack_entry(&request, &EntryKeys { shop: Some(shop), ..KEYS }).unwrap();
        let without = pack_entry(&request, &KEYS).unwrap();
        assert!(
            packed.len() + 30 < without.len(),
            "{} with the shop's, {} without",
            packed.len(),
            without.len()
        );
        assert_eq!(dictionary_id(&packed), Some(300));
        assert_eq!(dictionary_id(&without), None);
        assert_eq!(read(ValueRef::Blob(&packed), KEYS, Some(&dictionary)).unwrap(), request);
        assert!(matches!(unpack_entry(&packed, &KEYS), Err(Error::Dictionary(300))));
        let other = ShopDictionary { id: 301, dictionary: &dictionary };
        assert!(matches!(
            unpack_entry(&packed, &EntryKeys { shop: Some(other), ..KEYS }),
            Err(Error::Dictionary(300))
        ));
        assert_eq!(shop_dictionary("<RegisterWTNRequest/>"), None);
    }
}
