use std::fmt;

/// Errors of the fiscal layer. The HTTP edge decides how each one is answered.
#[derive(Debug)]
pub enum Error {
    /// The PKCS#12 file could not be read (bad password, not PKCS#12, no RSA key, ...).
    Certificate(String),
    /// The certificate's validity has ended; nothing is signed with it.
    CertificateExpired,
    /// A cryptographic operation failed.
    Crypto(String),
    /// An XML document could not be read or does not have the expected shape.
    Xml(String),
    /// An XML signature did not verify.
    Signature(String),
    /// The company has uploaded no certificate, so nothing can be signed.
    NoCertificate,
    /// The store could not be read or written.
    Store(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Certificate(m) => write!(f, "certificate: {m}"),
            Error::CertificateExpired => write!(f, "the certificate has expired"),
            Error::Crypto(m) => write!(f, "crypto: {m}"),
            Error::Xml(m) => write!(f, "xml: {m}"),
            Error::Signature(m) => write!(f, "signature: {m}"),
            Error::NoCertificate => write!(f, "no certificate has been uploaded"),
            Error::Store(m) => write!(f, "store: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<openssl::error::ErrorStack> for Error {
    fn from(e: openssl::error::ErrorStack) -> Self {
        Error::Crypto(e.to_string())
    }
}
