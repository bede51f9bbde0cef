//! Sealed secrets (the key file), setup codes and passwords; tokens and their hashes are the
//! edge's (`arka_edge::secrets`, shared with the head office) and read here as before.

use std::fmt;
use std::path::Path;

use openssl::symm::{Cipher, decrypt_aead, encrypt_aead};

pub use arka_edge::files::write_private;
pub use arka_edge::secrets::{Error, hash_token, hex_lower, new_token, same_hash, token_prefix};

/// The letters of a setup code: no 0/O, 1/I/L, so a code read off a screen is typed right.
const SETUP_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const SETUP_CODE_LEN: usize = 10;

/// A one-time setup code, `XXXXX-XXXXX` (10 letters of 31: about 50 bits).
pub fn new_setup_code() -> Result<String, Error> {
    let mut code = String::with_capacity(SETUP_CODE_LEN + 1);
    let n = SETUP_ALPHABET.len();
    // Bytes at or above the largest multiple of 31 are drawn again, so every letter is as likely.
    let fair = u8::try_from(256 - 256 % n).unwrap_or(u8::MAX);
    while code.len() < SETUP_CODE_LEN + 1 {
        let mut byte = [0u8; 1];
        openssl::rand::rand_bytes(&mut byte)?;
        if byte[0] >= fair {
            continue;
        }
        if code.len() == SETUP_CODE_LEN / 2 {
            code.push('-');
        }
        code.push(char::from(SETUP_ALPHABET[usize::from(byte[0]) % n]));
    }
    Ok(code)
}

/// A setup code as typed, in the form it was hashed in: capitals, no dash or spaces.
pub fn setup_code_key(typed: &str) -> String {
    typed.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_uppercase()).collect()
}

/// A password as stored: argon2id with the `argon2` crate's default cost (19 MiB, 2 passes, one
/// lane: OWASP's recommended minimum), a random salt, as a PHC string.
pub fn hash_password(password: &str) -> Result<String, Error> {
    use argon2::PasswordHasher;
    let mut salt = [0u8; 16];
    openssl::rand::rand_bytes(&mut salt)?;
    let salt =
        argon2::password_hash::SaltString::encode_b64(&salt).map_err(|e| Error::Crypto(e.to_string()))?;
    argon2::Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::Crypto(e.to_string()))
}

/// Whether `password` is the one `stored` (a PHC string) was made from.
pub fn verify_password(password: &str, stored: &str) -> bool {
    use argon2::PasswordVerifier;
    argon2::password_hash::PasswordHash::new(stored)
        .is_ok_and(|hash| argon2::Argon2::default().verify_password(password.as_bytes(), &hash).is_ok())
}

const KEY_LEN: usize = 32;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;

/// The AES-256 key that seals certificate private keys at rest; kept beside the database in a
/// file only its owner can read (0600), so a copied database alone reveals no private key.
pub struct KeyFile {
    key: [u8; KEY_LEN],
}

impl fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyFile(..)")
    }
}

impl KeyFile {
    /// Reads the key file, creating it with a fresh random key the first time.
    pub fn load_or_create(path: &Path) -> Result<KeyFile, Error> {
        match std::fs::read(path) {
            Ok(bytes) => {
                arka_edge::files::private_if_present(path).map_err(Error::Io)?;
                let key: [u8; KEY_LEN] = bytes
                    .as_slice()
                    .try_into()
                    .map_err(|_| Error::Crypto(format!("{} is not a {KEY_LEN}-byte key", path.display())))?;
                Ok(KeyFile { key })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent() {
                    arka_edge::files::private_dir(dir).map_err(Error::Io)?;
                }
                let mut key = [0u8; KEY_LEN];
                openssl::rand::rand_bytes(&mut key)?;
                write_private(path, &key).map_err(Error::Io)?;
                Ok(KeyFile { key })
            }
            Err(e) => Err(Error::Io(e)),
        }
    }

    /// nonce | tag | ciphertext
    pub fn seal(&self, plain: &[u8]) -> Result<Vec<u8>, Error> {
        let mut nonce = [0u8; NONCE_LEN];
        openssl::rand::rand_bytes(&mut nonce)?;
        let mut tag = [0u8; TAG_LEN];
        let cipher = encrypt_aead(Cipher::aes_256_gcm(), &self.key, Some(&nonce), &[], plain, &mut tag)?;
        let mut out = Vec::with_capacity(NONCE_LEN + TAG_LEN + cipher.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&tag);
        out.extend_from_slice(&cipher);
        Ok(out)
    }

    pub fn open(&self, sealed: &[u8]) -> Result<Vec<u8>, Error> {
        if sealed.len() < NONCE_LEN + TAG_LEN {
            return Err(Error::Crypto("sealed value too short".into()));
        }
        let (nonce, rest) = sealed.split_at(NONCE_LEN);
        let (tag, cipher) = rest.split_at(TAG_LEN);
        decrypt_aead(Cipher::aes_256_gcm(), &self.key, Some(nonce), &[], cipher, tag)
            .map_err(|_| Error::Crypto("sealed value does not open with this key file".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_codes_are_ten_unambiguous_letters_and_read_back_as_typed() {
        let code = new_setup_code().unwrap();
        assert_eq!(code.len(), 11, "{code}");
        assert_eq!(&code[5..6], "-");
        let key = setup_code_key(&code);
        assert_eq!(key.len(), 10);
        assert!(key.bytes().all(|b| SETUP_ALPHABET.contains(&b)), "{code}");
        assert_eq!(setup_code_key(&format!(" {} ", code.to_lowercase().replace('-', " "))), key);
        assert_ne!(new_setup_code().unwrap(), code);
    }

    #[test]
    fn a_password_verifies_against_its_own_hash_only() {
        let stored = hash_password("correct horse").unwrap();
        assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{stored}");
        assert!(verify_password("correct horse", &stored));
        assert!(!verify_password("correct horsE", &stored));
        assert!(!verify_password("correct horse", "not a hash"));
        assert_ne!(hash_password("correct horse").unwrap(), stored, "a fresh salt each time");
    }

    #[test]
    fn key_file_is_private_and_seals_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arka.key");
        let k = KeyFile::load_or_create(&path).unwrap();
        let sealed = k.seal(b"private key").unwrap();
        assert_ne!(&sealed[NONCE_LEN + TAG_LEN..], b"private key");
        let again = KeyFile::load_or_create(&path).unwrap();
        assert_eq!(again.open(&sealed).unwrap(), b"private key");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let mut tampered = sealed.clone();
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        assert!(again.open(&tampered).is_err());
    }
}
