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

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// The format byte of a request compressed with `DICTIONARY_V1`.
const FORMAT_V1: u8 = 1;
/// The format byte of a request whose IIC signature is kept as bytes beside the stream.
const FORMAT_V2: u8 = 2;
/// The attribute whose value format 2 lifts out of the request.
const SIGNATURE_ATTRIBUTE: &str = " IICSignature=\"";
/// An IIC signature's bytes (RSA-2048) and its hex digits in a request.
const SIGNATURE_BYTES: usize = 256;
const SIGNATURE_DIGITS: usize = 2 * SIGNATURE_BYTES;
/// Format 2's head: the format byte, the signature's offset and the signature.
const V2_HEAD: usize = 1 + 4 + SIGNATURE_BYTES;
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

/// `input` compressed with the dictionary after `packed`'s head.
fn deflate(input: &[u8], mut packed: Vec<u8>) -> Result<Vec<u8>, Error> {
    let mut deflate = Compress::new(Compression::best(), false);
    deflate.set_dictionary(DICTIONARY_V1)?;
    loop {
        let read = usize::try_from(deflate.total_in()).map_err(|_| Error::Truncated)?;
        packed.reserve(256);
        match deflate.compress_vec(&input[read..], &mut packed, FlushCompress::Finish)? {
            Status::StreamEnd => return Ok(packed),
            Status::Ok | Status::BufError => {}
        }
    }
}

/// The request `packed` holds, byte for byte as it was packed.
pub fn unpack(packed: &[u8]) -> Result<String, Error> {
    let (&format, stream) = packed.split_first().ok_or(Error::Truncated)?;
    match format {
        FORMAT_V1 => String::from_utf8(inflate(stream)?).map_err(|_| Error::Text),
        FORMAT_V2 => {
            let (offset, signature) = v2_head(packed)?;
            let mut request = inflate(&packed[V2_HEAD..])?;
            if offset > request.len() {
                return Err(Error::Truncated);
            }
            request.splice(offset..offset, upper_hex(signature).into_bytes());
            String::from_utf8(request).map_err(|_| Error::Text)
        }
        other => Err(Error::Format(other)),
    }
}

/// The signature's offset and bytes of a format 2 value.
fn v2_head(packed: &[u8]) -> Result<(usize, &[u8]), Error> {
    let head = packed.get(..V2_HEAD).ok_or(Error::Truncated)?;
    let offset = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    Ok((usize::try_from(offset).map_err(|_| Error::Truncated)?, &head[5..]))
}

fn inflate(stream: &[u8]) -> Result<Vec<u8>, Error> {
    let mut inflate = Decompress::new(false);
    inflate.set_dictionary(DICTIONARY_V1)?;
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
/// a format 2 value's head, found in any other; none when it holds none.
pub fn signature(kept: ValueRef<'_>) -> Result<Option<String>, Error> {
    let text = match kept {
        ValueRef::Blob(packed) if packed.first() == Some(&FORMAT_V2) => {
            return Ok(Some(upper_hex(v2_head(packed)?.1)));
        }
        ValueRef::Blob(packed) => unpack(packed)?,
        ValueRef::Text(text) => String::from_utf8(text.to_vec()).map_err(|_| Error::Text)?,
        _ => return Ok(None),
    };
    Ok(lifted_signature(&text).map(|(_, signature)| upper_hex(&signature)))
}

/// A kept request as a column of `fiscal_queue` holds it: packed (BLOB) or as it is (TEXT).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptRequest(pub String);

impl FromSql for KeptRequest {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value {
            ValueRef::Text(text) => {
                Ok(KeptRequest(String::from_utf8(text.to_vec()).map_err(|e| FromSqlError::Other(e.into()))?))
            }
            ValueRef::Blob(packed) => {
                unpack(packed).map(KeptRequest).map_err(|e| FromSqlError::Other(e.into()))
            }
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

/// `request` packed for an INSERT.
pub struct Packed(Vec<u8>);

impl Packed {
    pub fn of(request: &str) -> Result<Packed, Error> {
        pack(request).map(Packed)
    }
}

impl ToSql for Packed {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.as_slice()))
    }
}

/// Whether `table.column` holds kept requests: rows shipped as JSON (to the head office) carry
/// them as text, through `arka_unpack_request`, since JSON holds no BLOB.
pub fn holds_kept_requests(table: &str, column: &str) -> bool {
    (table, column) == ("fiscal_queue", "unsigned_request")
}

/// The store's SQL functions, on every connection: `arka_pack_request(text)` for V27, which packs
/// the requests an earlier release kept as text, and `arka_unpack_request(value)`, a kept request
/// as text. Each passes a value of another type (NULL, or a request already as wanted) through.
/// `arka_kept_signature(value)` is the IIC signature a kept request holds, or NULL.
pub fn register_sql_functions(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    // Each function's one argument (the value to pack or unpack).
    const ARGUMENT: usize = 0;
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
}
