//! HTTPS on the shop's network (and the head office's) through native-tls: a certificate and key from PEM files, or a
//! self-signed certificate made at first start for this computer's names and addresses and kept
//! in the data dir, so that its fingerprint (which a POS pins) stays the same across restarts.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use openssl::asn1::{Asn1Integer, Asn1Time};
use openssl::bn::BigNum;
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::x509::extension::{BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAlternativeName};
use openssl::x509::{X509, X509NameBuilder};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_native_tls::{TlsAcceptor, TlsStream};

use crate::files;

/// The self-signed certificate and its key, in the data dir.
pub const SELF_SIGNED_CERT: &str = "tls-cert.pem";
pub const SELF_SIGNED_KEY: &str = "tls-key.pem";
/// A client that has not finished its handshake by then is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
const SELF_SIGNED_DAYS: u32 = 3650;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {}", .0.display(), .1)]
    Io(PathBuf, #[source] std::io::Error),
    /// A PEM file that does not hold what it should.
    #[error("{}: {}", .0.display(), .1)]
    Pem(PathBuf, String),
    /// A PEM file that OpenSSL could not read as `what`.
    #[error("{}: no PEM {what}: {source}", .path.display())]
    Unreadable { path: PathBuf, what: &'static str, source: openssl::error::ErrorStack },
    #[error("TLS: {0}")]
    Openssl(#[from] openssl::error::ErrorStack),
    #[error("TLS: {0}")]
    NativeTls(#[from] native_tls::Error),
}

/// What the server serves HTTPS with.
#[derive(Clone)]
pub struct Tls {
    pub acceptor: Arc<TlsAcceptor>,
    /// SHA-256 of the server certificate, `AB:CD:...` as `openssl x509 -fingerprint -sha256` prints.
    pub fingerprint: String,
    /// Where the certificate came from (for the start-up message).
    pub cert_path: PathBuf,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("fingerprint", &self.fingerprint)
            .field("cert_path", &self.cert_path)
            .finish()
    }
}

/// HTTPS on the shop's network (or the head office's). Without these flags Arka speaks plain HTTP.
#[derive(Debug, Clone, Default, Args)]
pub struct TlsArgs {
    /// PEM file of the server certificate (its chain may follow); serves HTTPS with --tls-key.
    #[arg(long, env = "ARKA_TLS_CERT", requires = "tls_key", conflicts_with = "tls_self_signed")]
    pub tls_cert: Option<PathBuf>,

    /// PEM file of the certificate's private key (PKCS#8 or PKCS#1).
    #[arg(long, env = "ARKA_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Serve HTTPS with a certificate made at first start for this computer's names and addresses
    /// and kept in the data dir; its SHA-256 fingerprint is printed at every start for pinning.
    #[arg(long, env = "ARKA_TLS_SELF_SIGNED", default_value_t = false)]
    pub tls_self_signed: bool,
}

impl TlsArgs {
    pub fn enabled(&self) -> bool {
        self.tls_self_signed || self.tls_cert.is_some()
    }
}

/// The TLS settings made ready: None when HTTPS is off.
pub fn configure(args: &TlsArgs, data_dir: &Path) -> Result<Option<Tls>, Error> {
    let (cert_path, key_path) = match (&args.tls_cert, &args.tls_key, args.tls_self_signed) {
        (Some(cert), Some(key), _) => (cert.clone(), key.clone()),
        (_, _, true) => {
            let paths = (data_dir.join(SELF_SIGNED_CERT), data_dir.join(SELF_SIGNED_KEY));
            ensure_self_signed(&paths.0, &paths.1)?;
            paths
        }
        _ => return Ok(None),
    };
    let cert_pem = std::fs::read(&cert_path).map_err(|e| Error::Io(cert_path.clone(), e))?;
    let key_pem = std::fs::read(&key_path).map_err(|e| Error::Io(key_path.clone(), e))?;
    let chain = X509::stack_from_pem(&cert_pem).map_err(|source| Error::Unreadable {
        path: cert_path.clone(),
        what: "certificate",
        source,
    })?;
    let leaf = chain.first().ok_or_else(|| Error::Pem(cert_path.clone(), "no PEM certificate".into()))?;
    let key = PKey::private_key_from_pem(&key_pem).map_err(|source| Error::Unreadable {
        path: key_path.clone(),
        what: "private key",
        source,
    })?;
    if !leaf.public_key()?.public_eq(&key) {
        return Err(Error::Pem(key_path, "this key does not belong to the certificate".into()));
    }
    // native-tls takes the key as PKCS#8 only; keys often come as PKCS#1 ("RSA PRIVATE KEY").
    let identity = native_tls::Identity::from_pkcs8(&cert_pem, &key.private_key_to_pem_pkcs8()?)?;
    let acceptor = native_tls::TlsAcceptor::builder(identity)
        .min_protocol_version(Some(native_tls::Protocol::Tlsv12))
        .build()?;
    Ok(Some(Tls {
        acceptor: Arc::new(TlsAcceptor::from(acceptor)),
        fingerprint: fingerprint(leaf)?,
        cert_path,
    }))
}

/// `AB:CD:...`: the SHA-256 of the certificate's DER bytes.
pub fn fingerprint(cert: &X509) -> Result<String, Error> {
    let digest = cert.digest(MessageDigest::sha256())?;
    Ok(digest.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(":"))
}

/// Makes the self-signed certificate and key unless both are there already.
fn ensure_self_signed(cert_path: &Path, key_path: &Path) -> Result<(), Error> {
    if cert_path.exists() && key_path.exists() {
        return Ok(());
    }
    if let Some(dir) = cert_path.parent() {
        files::private_dir(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    }
    let (names, addresses) = local_names();
    let (cert, key) = self_signed(&names, &addresses)?;
    for stale in [cert_path, key_path] {
        if stale.exists() {
            std::fs::remove_file(stale).map_err(|e| Error::Io(stale.to_path_buf(), e))?;
        }
    }
    files::write_private(key_path, &key.private_key_to_pem_pkcs8()?)
        .map_err(|e| Error::Io(key_path.to_path_buf(), e))?;
    std::fs::write(cert_path, cert.to_pem()?).map_err(|e| Error::Io(cert_path.to_path_buf(), e))?;
    tracing::info!(path = %cert_path.display(), ?names, ?addresses, "made a self-signed TLS certificate");
    Ok(())
}

/// This computer's names (host name, `<host>.local`, localhost) and addresses (every interface's,
/// loopback included), for the certificate's subject alternative names.
pub fn local_names() -> (Vec<String>, Vec<IpAddr>) {
    let mut names = vec!["localhost".to_string()];
    if let Some(host) = gethostname::gethostname().into_string().ok().filter(|h| !h.is_empty()) {
        if !host.contains('.') {
            names.push(format!("{host}.local"));
        }
        names.insert(0, host);
    }
    let mut addresses = vec![IpAddr::V4(Ipv4Addr::LOCALHOST), IpAddr::V6(Ipv6Addr::LOCALHOST)];
    for interface in if_addrs::get_if_addrs().unwrap_or_default() {
        let ip = interface.ip();
        if !addresses.contains(&ip) {
            addresses.push(ip);
        }
    }
    names.dedup();
    (names, addresses)
}

/// An RSA-2048 certificate for a TLS server, signed by its own key, valid ten years.
pub fn self_signed(names: &[String], addresses: &[IpAddr]) -> Result<(X509, PKey<Private>), Error> {
    let key = PKey::from_rsa(Rsa::generate(2048)?)?;
    let mut subject = X509NameBuilder::new()?;
    subject.append_entry_by_nid(Nid::COMMONNAME, names.first().map_or("localhost", String::as_str))?;
    subject.append_entry_by_nid(Nid::ORGANIZATIONNAME, "Arka")?;
    let subject = subject.build();
    let mut serial = BigNum::new()?;
    serial.rand(127, openssl::bn::MsbOption::MAYBE_ZERO, false)?;
    let mut builder = X509::builder()?;
    builder.set_version(2)?;
    let serial = Asn1Integer::from_bn(&serial)?;
    builder.set_serial_number(&serial)?;
    builder.set_subject_name(&subject)?;
    builder.set_issuer_name(&subject)?;
    builder.set_pubkey(&key)?;
    let (not_before, not_after) = (Asn1Time::days_from_now(0)?, Asn1Time::days_from_now(SELF_SIGNED_DAYS)?);
    builder.set_not_before(&not_before)?;
    builder.set_not_after(&not_after)?;
    let mut san = SubjectAlternativeName::new();
    for name in names {
        san.dns(name);
    }
    for address in addresses {
        san.ip(&address.to_string());
    }
    let san = san.build(&builder.x509v3_context(None, None))?;
    builder.append_extension(san)?;
    builder.append_extension(BasicConstraints::new().critical().build()?)?;
    builder.append_extension(KeyUsage::new().critical().digital_signature().key_encipherment().build()?)?;
    builder.append_extension(ExtendedKeyUsage::new().server_auth().build()?)?;
    builder.sign(&key, MessageDigest::sha256())?;
    Ok((builder.build(), key))
}

/// A listener that hands axum connections once their TLS handshake is done. Handshakes run
/// side by side, so one slow or silent client never holds up the others.
pub struct TlsListener {
    tcp: TcpListener,
    acceptor: Arc<TlsAcceptor>,
    handshakes: JoinSet<Option<(TlsStream<TcpStream>, SocketAddr)>>,
}

impl TlsListener {
    pub fn new(tcp: TcpListener, tls: &Tls) -> Self {
        TlsListener { tcp, acceptor: tls.acceptor.clone(), handshakes: JoinSet::new() }
    }
}

fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(e.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset)
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            tokio::select! {
                accepted = self.tcp.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let acceptor = self.acceptor.clone();
                        self.handshakes.spawn(async move {
                            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                                Ok(Ok(tls)) => Some((tls, peer)),
                                Ok(Err(e)) => {
                                    tracing::debug!(%peer, error = %e, "TLS handshake failed");
                                    None
                                }
                                Err(_) => {
                                    tracing::debug!(%peer, "TLS handshake timed out");
                                    None
                                }
                            }
                        });
                    }
                    Err(e) if is_connection_error(&e) => {}
                    Err(e) => {
                        // Out of file descriptors and the like: wait rather than spin.
                        tracing::error!(error = %e, "cannot accept connections");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                },
                Some(done) = self.handshakes.join_next(), if !self.handshakes.is_empty() => {
                    if let Ok(Some(connection)) = done {
                        return connection;
                    }
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_self_signed_certificate_names_the_box_and_serves_tls() {
        let names = vec!["kasa".to_string(), "localhost".to_string()];
        let addresses = vec![IpAddr::V4(Ipv4Addr::new(192, 168, 1, 10)), IpAddr::V6(Ipv6Addr::LOCALHOST)];
        let (cert, key) = self_signed(&names, &addresses).unwrap();
        assert!(cert.public_key().unwrap().public_eq(&key));
        let san = cert.subject_alt_names().unwrap();
        let dns: Vec<&str> = san.iter().filter_map(|n| n.dnsname()).collect();
        assert_eq!(dns, ["kasa", "localhost"]);
        let ips: Vec<&[u8]> = san.iter().filter_map(|n| n.ipaddress()).collect();
        assert_eq!(ips[0], [192, 168, 1, 10]);
        assert_eq!(ips[1].len(), 16);
        let fp = fingerprint(&cert).unwrap();
        assert_eq!(fp.len(), 32 * 3 - 1);
        assert!(fp.split(':').all(|b| b.len() == 2 && b.chars().all(|c| c.is_ascii_hexdigit())));
    }

    #[test]
    fn a_key_that_is_not_the_certificates_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, _) = self_signed(&["a".into()], &[]).unwrap();
        let (_, other_key) = self_signed(&["b".into()], &[]).unwrap();
        let (cert_path, key_path) = (dir.path().join("c.pem"), dir.path().join("k.pem"));
        std::fs::write(&cert_path, cert.to_pem().unwrap()).unwrap();
        std::fs::write(&key_path, other_key.private_key_to_pem_pkcs8().unwrap()).unwrap();
        let args = TlsArgs { tls_cert: Some(cert_path), tls_key: Some(key_path), tls_self_signed: false };
        let error = configure(&args, dir.path()).unwrap_err();
        assert!(error.to_string().contains("does not belong"), "{error}");
    }

    #[test]
    fn the_self_signed_certificate_is_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let args = TlsArgs { tls_self_signed: true, ..TlsArgs::default() };
        let first = configure(&args, dir.path()).unwrap().unwrap();
        let again = configure(&args, dir.path()).unwrap().unwrap();
        assert_eq!(first.fingerprint, again.fingerprint);
        assert_eq!(first.cert_path, dir.path().join(SELF_SIGNED_CERT));
    }
}
