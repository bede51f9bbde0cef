/// Errors of the fiscal layer. The HTTP edge decides how each one is answered. A failure of
/// another room keeps its cause as `source()`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The PKCS#12 file could not be read (bad password, not PKCS#12, no RSA key, ...).
    #[error("certificate: {0}")]
    Certificate(String),
    /// The certificate's validity has ended; nothing is signed with it.
    #[error("the certificate has expired")]
    CertificateExpired,
    /// A cryptographic operation failed.
    #[error("crypto: {0}")]
    Crypto(#[from] openssl::error::ErrorStack),
    /// The certificate's sealed key did not open with the key file.
    #[error("key file: {0}")]
    KeyFile(#[from] crate::ops::secrets::Error),
    /// An XML document could not be read or does not have the expected shape.
    #[error("xml: {0}")]
    Xml(String),
    /// An XML signature did not verify.
    #[error("signature: {0}")]
    Signature(String),
    /// The company has uploaded no certificate, so nothing can be signed.
    #[error("no certificate has been uploaded")]
    NoCertificate,
    /// The store could not be read or written.
    #[error("store: {0}")]
    Store(#[from] crate::store::Error),
}
