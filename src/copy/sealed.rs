//! What leaves the box: every object of the copy is compressed (raw DEFLATE) and then sealed
//! with AES-256-GCM under the copy's key, its name bound in as associated data, so an object put
//! in another's place (an older segment, another generation's part) does not open. The key is 32
//! random bytes kept in a file of the data dir (0600) and by the owner off the box: `arka copy
//! key` prints it once, as 64 hexadecimal digits in groups. The key file may also be the data
//! dir's `arka.key` (the one that seals the certificate keys): the copy then opens with that file.
//! Either way a subkey is used (HMAC-SHA256 of the file's key), never the file's bytes directly.

use std::io::{Read, Write};
use std::path::Path;

use openssl::symm::{Cipher, decrypt_aead, encrypt_aead};

const MAGIC: &[u8; 8] = b"ARKACPY1";
const NONCE: usize = 12;
const TAG: usize = 16;
const KEY: usize = 32;
/// Fast DEFLATE: a sale's pages compress about as well at level 1 as at 6, for a third of the
/// time on the box's two cores.
const LEVEL: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    #[error("the copy's key: {0}")]
    Key(String),
    #[error("sealing: {0}")]
    Openssl(#[from] openssl::error::ErrorStack),
    /// The object is not one of the copy's, was changed, or the key is another.
    #[error("{0} does not open with this key (another key, or the object was changed)")]
    DoesNotOpen(String),
}

/// The key every object of the copy is sealed with.
#[derive(Clone)]
pub struct CopyKey([u8; KEY]);

impl std::fmt::Debug for CopyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CopyKey(..)")
    }
}

impl CopyKey {
    /// The key of the 32-byte key file `bytes` (the copy's own, or `arka.key`).
    fn from_file_bytes(bytes: &[u8]) -> Result<CopyKey, Error> {
        let file: [u8; KEY] = bytes
            .try_into()
            .map_err(|_| Error::Key(format!("a key file holds {KEY} bytes, not {}", bytes.len())))?;
        let pkey = openssl::pkey::PKey::hmac(&file)?;
        let mut signer = openssl::sign::Signer::new(openssl::hash::MessageDigest::sha256(), &pkey)?;
        signer.update(b"arka off-box copy v1")?;
        let sub = signer.sign_to_vec()?;
        let key: [u8; KEY] =
            sub.as_slice().try_into().map_err(|_| Error::Key("HMAC-SHA256 gave no 32 bytes".into()))?;
        Ok(CopyKey(key))
    }

    /// Reads the key file at `path`.
    pub fn load(path: &Path) -> Result<CopyKey, Error> {
        let bytes = std::fs::read(path).map_err(|e| Error::Io(path.display().to_string(), e))?;
        CopyKey::from_file_bytes(&bytes)
    }

    /// The key as the owner typed it back (64 hexadecimal digits; spaces and dashes ignored).
    pub fn from_typed(typed: &str) -> Result<CopyKey, Error> {
        CopyKey::from_file_bytes(&file_bytes_of_typed(typed)?)
    }
}

/// The key file's 32 bytes from the 64 hexadecimal digits the owner kept.
pub fn file_bytes_of_typed(typed: &str) -> Result<Vec<u8>, Error> {
    let digits: Vec<u8> =
        typed.bytes().filter(|b| !matches!(b, b' ' | b'-' | b'\t' | b'\n' | b'\r')).collect();
    if digits.len() != KEY * 2 {
        return Err(Error::Key(format!("the key is {} hexadecimal digits, not {}", KEY * 2, digits.len())));
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| Error::Key("the key holds a character that is not a hexadecimal digit".into()))
        })
        .collect()
}

/// A new key file at `path` (0600; refused when one exists); returns the key as the owner
/// writes it down: 64 hexadecimal digits in 8 groups.
pub fn create_key_file(path: &Path) -> Result<String, Error> {
    let mut bytes = [0u8; KEY];
    openssl::rand::rand_bytes(&mut bytes)?;
    crate::ops::secrets::write_private(path, &bytes).map_err(|e| Error::Io(path.display().to_string(), e))?;
    Ok(typed_form(&bytes))
}

/// The 32 bytes of a key file as 8 groups of 8 hexadecimal digits.
pub fn typed_form(bytes: &[u8]) -> String {
    let hex = crate::ops::secrets::hex_lower(bytes);
    hex.as_bytes().chunks(8).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>().join("-")
}

/// `plain` compressed and sealed as the object `name`.
pub fn seal(key: &CopyKey, name: &str, plain: &[u8]) -> Result<Vec<u8>, Error> {
    let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(LEVEL));
    deflate.write_all(plain).map_err(|e| Error::Io(name.to_string(), e))?;
    let packed = deflate.finish().map_err(|e| Error::Io(name.to_string(), e))?;
    let mut nonce = [0u8; NONCE];
    openssl::rand::rand_bytes(&mut nonce)?;
    let mut tag = [0u8; TAG];
    let cipher =
        encrypt_aead(Cipher::aes_256_gcm(), &key.0, Some(&nonce), name.as_bytes(), &packed, &mut tag)?;
    let mut out = Vec::with_capacity(MAGIC.len() + NONCE + TAG + cipher.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&tag);
    out.extend_from_slice(&cipher);
    Ok(out)
}

/// The plain bytes of the sealed object `name`.
pub fn open(key: &CopyKey, name: &str, sealed: &[u8]) -> Result<Vec<u8>, Error> {
    let refused = || Error::DoesNotOpen(name.to_string());
    let rest = sealed.strip_prefix(MAGIC.as_slice()).ok_or_else(refused)?;
    if rest.len() < NONCE + TAG {
        return Err(refused());
    }
    let (nonce, rest) = rest.split_at(NONCE);
    let (tag, cipher) = rest.split_at(TAG);
    let packed = decrypt_aead(Cipher::aes_256_gcm(), &key.0, Some(nonce), name.as_bytes(), cipher, tag)
        .map_err(|_| refused())?;
    let mut plain = Vec::new();
    flate2::read::DeflateDecoder::new(packed.as_slice())
        .read_to_end(&mut plain)
        .map_err(|e| Error::Io(name.to_string(), e))?;
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_opens_under_its_own_name_and_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let typed = create_key_file(&dir.path().join("copy.key")).unwrap();
        assert_eq!(typed.len(), 64 + 7, "{typed}");
        let key = CopyKey::load(&dir.path().join("copy.key")).unwrap();
        let plain = b"page ".repeat(400);
        let sealed = seal(&key, "g1/wal/000000000001", &plain).unwrap();
        assert!(sealed.len() < plain.len() / 4, "compressed: {}", sealed.len());
        assert!(!sealed.windows(5).any(|w| w == b"page "), "nothing in clear");
        assert_eq!(open(&key, "g1/wal/000000000001", &sealed).unwrap(), plain);
        assert_eq!(
            open(&CopyKey::from_typed(&typed.to_uppercase()).unwrap(), "g1/wal/000000000001", &sealed)
                .unwrap(),
            plain
        );
        assert!(matches!(open(&key, "g1/wal/000000000002", &sealed), Err(Error::DoesNotOpen(_))));
        let other = CopyKey::from_typed(&"ab".repeat(32)).unwrap();
        assert!(matches!(open(&other, "g1/wal/000000000001", &sealed), Err(Error::DoesNotOpen(_))));
        let mut changed = sealed.clone();
        let last = changed.len() - 1;
        changed[last] ^= 1;
        assert!(matches!(open(&key, "g1/wal/000000000001", &changed), Err(Error::DoesNotOpen(_))));
        assert!(create_key_file(&dir.path().join("copy.key")).is_err(), "never overwritten");
    }

    #[test]
    fn a_typed_key_is_64_hexadecimal_digits() {
        assert!(CopyKey::from_typed(&"0f".repeat(32)).is_ok());
        assert!(CopyKey::from_typed(&"0f".repeat(31)).is_err());
        assert!(CopyKey::from_typed(&"zz".repeat(32)).is_err());
        assert!(CopyKey::from_typed("é").is_err());
    }
}
