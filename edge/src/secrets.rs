//! Tokens and their hashes, a shop's and the head office's. Tokens are random and long, so a
//! plain SHA-256 is the right hash: nothing to brute-force, and a lookup by hash stays one
//! indexed query. `Error` is also the shop's key file's (`arka::ops::secrets`).

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("key file: {0}")]
    Io(#[source] std::io::Error),
    /// The key file or a sealed value is not what it should be.
    #[error("sealing: {0}")]
    Crypto(String),
    /// OpenSSL failed.
    #[error("sealing: {0}")]
    Openssl(#[from] openssl::error::ErrorStack),
}

fn random_hex(bytes: usize) -> Result<String, Error> {
    let mut buf = vec![0u8; bytes];
    openssl::rand::rand_bytes(&mut buf)?;
    Ok(hex_lower(&buf))
}

pub fn hex_lower(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new secret token with a readable prefix (`arka_u_…` for users, `arka_p_…` for partners).
pub fn new_token(prefix: &str) -> Result<String, Error> {
    Ok(format!("arka_{prefix}_{}", random_hex(24)?))
}

/// The first characters of a token, which the owner's list shows so a person can tell tokens
/// apart: the kind (`arka_u_`) and 8 of the 48 hex digits, leaving 160 bits unknown.
pub fn token_prefix(token: &str) -> &str {
    token.get(..15).unwrap_or(token)
}

/// What is stored instead of a token or secret.
pub fn hash_token(token: &str) -> String {
    hex_lower(&openssl::sha::sha256(token.as_bytes()))
}

/// Compares two hashes without leaking where they differ.
pub fn same_hash(a: &str, b: &str) -> bool {
    a.len() == b.len() && openssl::memcmp::eq(a.as_bytes(), b.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_and_hash_stably() {
        let a = new_token("u").unwrap();
        let b = new_token("u").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("arka_u_"));
        assert_eq!(token_prefix(&a), &a[..15]);
        assert_eq!(hash_token(&a), hash_token(&a));
        assert!(same_hash(&hash_token(&a), &hash_token(&a)));
        assert!(!same_hash(&hash_token(&a), &hash_token(&b)));
    }
}
