//! The webhook signature: HMAC-SHA256 of the raw body keyed by the venue's client secret, as
//! lower-case hex in `WOLT-SIGNATURE`.

use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::sign::Signer;

use crate::ops::secrets::{hex_lower, same_hash};

/// The hex HMAC-SHA256 of `body` under `secret`.
pub fn sign(secret: &[u8], body: &[u8]) -> Result<String, openssl::error::ErrorStack> {
    let key = PKey::hmac(secret)?;
    let mut signer = Signer::new(MessageDigest::sha256(), &key)?;
    signer.update(body)?;
    Ok(hex_lower(&signer.sign_to_vec()?))
}

/// Whether `header` is the signature of `body` under `secret`; compared in constant time.
pub fn verify(secret: &[u8], body: &[u8], header: &str) -> bool {
    match sign(secret, body) {
        Ok(expected) => same_hash(&expected, &header.trim().to_ascii_lowercase()),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_rfc_4231_test_vector() {
        // RFC 4231, test case 2.
        let mac = sign(b"Jefe", b"what do ya want for nothing?").unwrap();
        assert_eq!(mac, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn a_changed_body_or_secret_fails() {
        let body = br#"{"id":"n1","type":"order.notification"}"#;
        let good = sign(b"secret", body).unwrap();
        assert!(verify(b"secret", body, &good));
        assert!(verify(b"secret", body, &good.to_uppercase()));
        assert!(!verify(b"other", body, &good));
        assert!(!verify(b"secret", br#"{"id":"n2","type":"order.notification"}"#, &good));
        assert!(!verify(b"secret", body, ""));
        assert!(!verify(b"secret", body, &good[..63]));
    }
}
