//! The request a document was registered with, as the fiscal queue keeps it: compressed, and
//! given back byte for byte.
//!
//! A kept request is a BLOB of one format byte and a raw DEFLATE stream (RFC 1951) written with
//! a preset dictionary, `kept_request_v1.xml`: a typical request of each kind, so the stream
//! holds little more than what is particular to the document (its numbers, codes, times, amounts,
//! buyer). Any zlib decodes it (`inflateSetDictionary`, Python's
//! `zlib.decompressobj(-15, zdict=...)`). The dictionary of a format never changes: a new one
//! comes with a new format byte, and every earlier one stays readable. A TEXT value is a request
//! kept as it is (a database before V27 until its migration packs it).

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// The format byte of a request compressed with `DICTIONARY_V1`.
const FORMAT_V1: u8 = 1;
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

/// `request`, packed as the queue keeps it.
pub fn pack(request: &str) -> Result<Vec<u8>, Error> {
    let mut deflate = Compress::new(Compression::best(), false);
    deflate.set_dictionary(DICTIONARY_V1)?;
    let mut packed = Vec::with_capacity(request.len() / 2 + 64);
    packed.push(FORMAT_V1);
    let input = request.as_bytes();
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
    if format != FORMAT_V1 {
        return Err(Error::Format(format));
    }
    let mut inflate = Decompress::new(false);
    inflate.set_dictionary(DICTIONARY_V1)?;
    let mut request = Vec::with_capacity(stream.len() * 4 + 256);
    loop {
        let read = usize::try_from(inflate.total_in()).map_err(|_| Error::Truncated)?;
        let written = request.len();
        request.reserve(1024);
        match inflate.decompress_vec(&stream[read..], &mut request, FlushDecompress::Finish)? {
            Status::StreamEnd => break,
            // No progress with room to write: the stream ends before its last block.
            Status::Ok | Status::BufError
                if request.len() == written && inflate.total_in() as usize == read =>
            {
                return Err(Error::Truncated);
            }
            Status::Ok | Status::BufError => {}
        }
    }
    String::from_utf8(request).map_err(|_| Error::Text)
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
}
