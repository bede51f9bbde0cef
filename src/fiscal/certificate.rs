//! The shop's signing certificate: an RSA private key and its X.509 certificate.
//!
//! Shops bring PKCS#12 files written by old tools (3DES/RC2, SHA-1 MAC) and by OpenSSL 3
//! (PBES2/AES-256, SHA-256 MAC). OpenSSL reads both (RC2 through its legacy provider, loaded
//! beside the default one) and does the signing, being the fastest signer measured on the target
//! machine; a pure-Rust reader beside it carried 0.4 MB of its own ASN.1 and ciphers (issue 34).

use std::fmt;
use std::sync::OnceLock;

use chrono::{DateTime, Duration, Utc};
use openssl::asn1::{Asn1Time, Asn1TimeRef};
use openssl::bn::{BigNum, MsbOption};
use openssl::error::ErrorStack;
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkcs12::Pkcs12;
use openssl::pkey::{Id, PKey, Private};
use openssl::provider::Provider;
use openssl::rsa::Rsa;
use openssl::sign::Signer;
use openssl::x509::extension::{BasicConstraints, KeyUsage, SubjectKeyIdentifier};
use openssl::x509::{X509, X509Name, X509NameBuilder, X509NameRef};

use super::Error;

/// A private RSA key with the certificate that carries its public half.
#[derive(Clone)]
pub struct Certificate {
    key: PKey<Private>,
    cert: X509,
    cert_der: Vec<u8>,
    subject_values: Vec<(String, String)>,
    serial_hex: String,
    valid_from: DateTime<Utc>,
    valid_to: DateTime<Utc>,
}

impl fmt::Debug for Certificate {
    // Deliberately leaves the private key out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Certificate")
            .field("subject", &self.subject())
            .field("serial", &self.serial_hex)
            .field("valid_to", &self.valid_to)
            .finish_non_exhaustive()
    }
}

impl Certificate {
    /// Reads a PKCS#12 (.p12/.pfx) file.
    pub fn from_p12(der: &[u8], password: &str) -> Result<Self, Error> {
        // openssl only parses the outer structure here (no password needed), which tells
        // "this is not a PKCS#12 file" apart from "the password is wrong".
        let Ok(archive) = Pkcs12::from_der(der) else {
            return Err(Error::Certificate("not a PKCS#12 file".into()));
        };
        // No password holds a NUL (OpenSSL takes it as a C string): it cannot be this file's.
        if password.contains('\0') {
            return Err(Error::Certificate("wrong password".into()));
        }
        legacy_provider();
        let parsed = archive.parse2(password).map_err(p12_error)?;
        let key = parsed
            .pkey
            .filter(|key| key.id() == Id::RSA)
            .ok_or_else(|| Error::Certificate("no RSA private key in the PKCS#12 file".into()))?;
        // OpenSSL returns the certificate whose key ID or public key matches the private key.
        let cert = parsed.cert.filter(|cert| public_key_matches(cert, &key)).ok_or_else(|| {
            Error::Certificate("no certificate for the private key in the PKCS#12 file".into())
        })?;
        Self::new(key, cert)
    }

    /// Reads a PEM private key (PKCS#1 or PKCS#8) and a PEM certificate.
    pub fn from_pem(key_pem: &[u8], cert_pem: &[u8]) -> Result<Self, Error> {
        let key = PKey::private_key_from_pem(key_pem)
            .map_err(|_| Error::Certificate("unreadable PEM private key".into()))?;
        let cert =
            X509::from_pem(cert_pem).map_err(|_| Error::Certificate("unreadable PEM certificate".into()))?;
        Self::new(key, cert)
    }

    /// The inverse of [`Certificate::private_key_pkcs8_der`] and [`Certificate::cert_der`].
    pub fn from_der_parts(pkcs8_key_der: &[u8], cert_der: &[u8]) -> Result<Self, Error> {
        let key = PKey::private_key_from_pkcs8(pkcs8_key_der)
            .map_err(|_| Error::Certificate("unreadable PKCS#8 private key".into()))?;
        let cert =
            X509::from_der(cert_der).map_err(|_| Error::Certificate("unreadable DER certificate".into()))?;
        Self::new(key, cert)
    }

    /// A self-signed RSA-2048 certificate for the sandbox and for tests, valid from now.
    pub fn generate_self_signed(nuis: &str, name: &str, valid_for: Duration) -> Result<Self, Error> {
        let key = PKey::from_rsa(Rsa::generate(2048)?)?;
        let subject = self_signed_subject(nuis, name)?;
        let now = Utc::now();
        let mut builder = X509::builder()?;
        builder.set_version(2)?;
        let serial = random_serial()?.to_asn1_integer()?;
        builder.set_serial_number(&serial)?;
        builder.set_subject_name(&subject)?;
        builder.set_issuer_name(&subject)?;
        builder.set_pubkey(&key)?;
        let not_before = Asn1Time::from_unix(now.timestamp())?;
        let not_after = Asn1Time::from_unix((now + valid_for).timestamp())?;
        builder.set_not_before(&not_before)?;
        builder.set_not_after(&not_after)?;
        builder.append_extension(BasicConstraints::new().critical().build()?)?;
        builder
            .append_extension(KeyUsage::new().critical().digital_signature().non_repudiation().build()?)?;
        let key_id = SubjectKeyIdentifier::new().build(&builder.x509v3_context(None, None))?;
        builder.append_extension(key_id)?;
        builder.sign(&key, MessageDigest::sha256())?;
        Self::new(key, builder.build())
    }

    /// A PKCS#12 file holding the key and certificate (openssl's default algorithms).
    pub fn to_p12(&self, password: &str) -> Result<Vec<u8>, Error> {
        let mut builder = Pkcs12::builder();
        builder.name(&self.subject()).pkey(&self.key).cert(&self.cert);
        Ok(builder.build2(password)?.to_der()?)
    }

    /// The private key as unencrypted PKCS#8 DER; the caller encrypts it before storing.
    pub fn private_key_pkcs8_der(&self) -> Result<Vec<u8>, Error> {
        Ok(self.key.private_key_to_pkcs8()?)
    }

    pub fn cert_der(&self) -> &[u8] {
        &self.cert_der
    }

    /// The subject, most specific attribute first: `CN=..., serialNumber=..., O=..., C=AL`.
    pub fn subject(&self) -> String {
        self.subject_values
            .iter()
            .rev()
            .map(|(field, value)| format!("{field}={}", escape_dn_value(value)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The certificate serial number in upper-case hex.
    pub fn serial_hex(&self) -> String {
        self.serial_hex.clone()
    }

    pub fn valid_from(&self) -> DateTime<Utc> {
        self.valid_from
    }

    pub fn valid_to(&self) -> DateTime<Utc> {
        self.valid_to
    }

    /// Whether any subject attribute (CN, serialNumber, OU, O, ...) contains the NUIS. Issuers put
    /// it in different attributes, so every one is searched.
    pub fn carries_nuis(&self, nuis: &str) -> bool {
        let wanted = nuis.trim().to_ascii_uppercase();
        !wanted.is_empty()
            && self.subject_values.iter().any(|(_, value)| value.to_ascii_uppercase().contains(&wanted))
    }

    /// The first NUIS-shaped token (`[A-Za-z][0-9]{8}[A-Za-z]`) in the subject attributes.
    pub fn nuis(&self) -> Option<String> {
        self.subject_values
            .iter()
            .flat_map(|(_, value)| value.split(|c: char| !c.is_ascii_alphanumeric()))
            .find(|token| is_nuis(token))
            .map(str::to_string)
    }

    pub fn expires_within(&self, now: DateTime<Utc>, window: Duration) -> bool {
        now + window >= self.valid_to
    }

    /// Refuses a certificate outside its validity period: the CIS rejects such signatures.
    pub fn ensure_valid_at(&self, now: DateTime<Utc>) -> Result<(), Error> {
        if now > self.valid_to {
            return Err(Error::CertificateExpired);
        }
        if now < self.valid_from {
            return Err(Error::Certificate(format!("not valid before {}", self.valid_from.to_rfc3339())));
        }
        Ok(())
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256.
    pub fn sign_sha256(&self, data: &[u8]) -> Result<Vec<u8>, Error> {
        let mut signer = Signer::new(MessageDigest::sha256(), &self.key)?;
        Ok(signer.sign_oneshot_to_vec(data)?)
    }

    fn new(key: PKey<Private>, cert: X509) -> Result<Self, Error> {
        if key.id() != Id::RSA {
            return Err(Error::Certificate("the private key is not an RSA key".into()));
        }
        if !public_key_matches(&cert, &key) {
            return Err(Error::Certificate("the certificate does not belong to the private key".into()));
        }
        Ok(Self {
            cert_der: cert.to_der()?,
            subject_values: subject_values(cert.subject_name())?,
            serial_hex: cert.serial_number().to_bn()?.to_hex_str()?.to_string(),
            valid_from: to_utc(cert.not_before())?,
            valid_to: to_utc(cert.not_after())?,
            key,
            cert,
        })
    }
}

/// OpenSSL's legacy provider, loaded once for the process beside the default one (which stays):
/// old tools encrypt the certificate bag with RC2-40, which only the legacy provider has. Built
/// into the static release binaries; a dynamically linked build loads the system's module, and
/// without one such files are refused as unreadable, naming OpenSSL's reason.
fn legacy_provider() {
    static LEGACY: OnceLock<Option<Provider>> = OnceLock::new();
    LEGACY.get_or_init(|| match Provider::try_load(None, "legacy", true) {
        Ok(provider) => Some(provider),
        Err(e) => {
            tracing::warn!(error = %e, "OpenSSL's legacy provider is not available: RC2 certificate files cannot be read");
            None
        }
    });
}

/// OpenSSL's codes for a password that does not open the file: the MAC does not verify, or, in a
/// file without a MAC, the decrypted bag's padding is wrong.
const ERR_LIB_PKCS12: i32 = 35;
const PKCS12_R_MAC_VERIFY_FAILURE: i32 = 113;
/// OpenSSL 3.0 refuses a file without a MAC (password integrity is required by RFC 7292 and
/// nearly every tool writes one); 3.1 and later read it.
const PKCS12_R_MAC_ABSENT: i32 = 108;
const PKCS12_R_PKCS12_CIPHERFINAL_ERROR: i32 = 116;
const ERR_LIB_EVP: i32 = 6;
const EVP_R_BAD_DECRYPT: i32 = 100;

fn p12_error(e: ErrorStack) -> Error {
    let codes = |library: i32, reasons: &[i32]| {
        e.errors()
            .iter()
            .any(|error| error.library_code() == library && reasons.contains(&error.reason_code()))
    };
    if codes(ERR_LIB_PKCS12, &[PKCS12_R_MAC_ABSENT]) {
        return Error::Certificate(format!(
            "unreadable PKCS#12 file: it has no MAC, which {} does not read; export it again with one",
            openssl::version::version()
        ));
    }
    if codes(ERR_LIB_PKCS12, &[PKCS12_R_MAC_VERIFY_FAILURE, PKCS12_R_PKCS12_CIPHERFINAL_ERROR])
        || codes(ERR_LIB_EVP, &[EVP_R_BAD_DECRYPT])
    {
        Error::Certificate("wrong password".into())
    } else {
        Error::Certificate(format!("unreadable PKCS#12 file: {e}"))
    }
}

fn public_key_matches(cert: &X509, key: &PKey<Private>) -> bool {
    cert.public_key().is_ok_and(|public| public.public_eq(key))
}

fn subject_values(name: &X509NameRef) -> Result<Vec<(String, String)>, Error> {
    name.entries()
        .map(|entry| {
            let nid = entry.object().nid();
            let field = match nid.short_name() {
                Ok(short) => short.to_string(),
                Err(_) => entry.object().to_string(),
            };
            Ok((field, entry.data().to_string()?))
        })
        .collect()
}

fn self_signed_subject(nuis: &str, name: &str) -> Result<X509Name, Error> {
    // X.509 stores the most general attribute first; subject() prints them the other way round.
    let mut builder = X509NameBuilder::new()?;
    builder.append_entry_by_nid(Nid::COUNTRYNAME, "AL")?;
    builder.append_entry_by_nid(Nid::ORGANIZATIONNAME, name)?;
    builder.append_entry_by_nid(Nid::SERIALNUMBER, nuis)?;
    builder.append_entry_by_nid(Nid::COMMONNAME, &format!("{nuis} {name}"))?;
    Ok(builder.build())
}

fn random_serial() -> Result<BigNum, Error> {
    let mut serial = BigNum::new()?;
    serial.rand(127, MsbOption::MAYBE_ZERO, false)?;
    Ok(serial)
}

fn to_utc(time: &Asn1TimeRef) -> Result<DateTime<Utc>, Error> {
    let epoch = Asn1Time::from_unix(0)?;
    let diff = epoch.diff(time)?;
    let seconds = i64::from(diff.days) * 86_400 + i64::from(diff.secs);
    DateTime::from_timestamp(seconds, 0)
        .ok_or_else(|| Error::Certificate("certificate date out of range".into()))
}

fn is_nuis(token: &str) -> bool {
    let bytes = token.as_bytes();
    bytes.len() == 10
        && bytes[0].is_ascii_alphabetic()
        && bytes[1..9].iter().all(u8::is_ascii_digit)
        && bytes[9].is_ascii_alphabetic()
}

/// RFC 4514 escaping, so that a name with a comma still reads unambiguously.
fn escape_dn_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::testing::outside_tool;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Writes key and cert PEM files of a fresh certificate into `dir`.
    fn write_pems(dir: &Path, cert: &Certificate) -> (PathBuf, PathBuf) {
        let key_path = dir.join("key.pem");
        let cert_path = dir.join("cert.pem");
        let key_pem = cert.key.private_key_to_pem_pkcs8().unwrap();
        std::fs::write(&key_path, key_pem).unwrap();
        std::fs::write(&cert_path, cert.cert.to_pem().unwrap()).unwrap();
        (key_path, cert_path)
    }

    fn openssl_p12(extra: &[&str]) -> (Certificate, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let original =
            Certificate::generate_self_signed("K12345678L", "Dyqani Test", Duration::days(30)).unwrap();
        let (key_path, cert_path) = write_pems(dir.path(), &original);
        let p12_path = dir.path().join("shop.p12");
        let output = outside_tool(
            Command::new("openssl")
                .args(["pkcs12", "-export", "-passout", "pass:sekret", "-inkey"])
                .arg(&key_path)
                .arg("-in")
                .arg(&cert_path)
                .arg("-out")
                .arg(&p12_path)
                .args(extra),
            "openssl",
        );
        assert!(output.status.success(), "openssl pkcs12: {}", String::from_utf8_lossy(&output.stderr));
        (original, std::fs::read(p12_path).unwrap())
    }

    #[test]
    fn loads_an_openssl3_default_p12() {
        let (original, p12) = openssl_p12(&[]);
        let loaded = Certificate::from_p12(&p12, "sekret").unwrap();
        assert_eq!(loaded.cert_der(), original.cert_der());
        assert_eq!(loaded.nuis().as_deref(), Some("K12345678L"));
    }

    #[test]
    fn wrong_password_and_garbage_are_told_apart() {
        let cert = Certificate::generate_self_signed("K12345678L", "Dyqani", Duration::days(1)).unwrap();
        let p12 = cert.to_p12("right").unwrap();
        let wrong = Certificate::from_p12(&p12, "wrong").unwrap_err();
        assert_eq!(wrong.to_string(), "certificate: wrong password");
        let garbage = Certificate::from_p12(b"this is not a p12 file", "right").unwrap_err();
        assert_eq!(garbage.to_string(), "certificate: not a PKCS#12 file");
    }

    #[test]
    fn old_and_new_formats_load_and_a_wrong_password_is_told() {
        // OpenSSL 3's default (AES-256, PBKDF2), `-legacy` (RC2-40 certificate bag, 3DES key), 3DES.
        for extra in [
            &[][..],
            &["-legacy"][..],
            &["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1"][..],
        ] {
            let (original, p12) = openssl_p12(extra);
            let loaded = Certificate::from_p12(&p12, "sekret").unwrap_or_else(|e| panic!("{extra:?}: {e}"));
            assert_eq!(loaded.cert_der(), original.cert_der(), "{extra:?}");
            assert_eq!(loaded.sign_sha256(b"x").unwrap(), original.sign_sha256(b"x").unwrap(), "{extra:?}");
            let wrong = Certificate::from_p12(&p12, "sekrer").unwrap_err();
            assert_eq!(wrong.to_string(), "certificate: wrong password", "{extra:?}");
        }
    }

    #[test]
    fn a_file_without_a_mac_loads_where_openssl_reads_it_and_is_named_where_not() {
        let (original, p12) = openssl_p12(&["-nomac"]);
        // OpenSSL reads MAC-less files since 3.1 (the release binaries carry 3.6); 3.0 refuses them.
        if openssl::version::number() >= 0x3010_0000 {
            assert_eq!(Certificate::from_p12(&p12, "sekret").unwrap().cert_der(), original.cert_der());
        } else {
            let err = Certificate::from_p12(&p12, "sekret").unwrap_err().to_string();
            assert!(err.contains("no MAC"), "{err}");
        }
    }

    #[test]
    fn a_password_holding_a_nul_is_a_wrong_one_not_a_panic() {
        let cert = Certificate::generate_self_signed("K12345678L", "Dyqani", Duration::days(1)).unwrap();
        let p12 = cert.to_p12("right").unwrap();
        let err = Certificate::from_p12(&p12, "rig\0ht").unwrap_err();
        assert_eq!(err.to_string(), "certificate: wrong password");
    }

    #[test]
    fn own_p12_round_trips() {
        let cert = Certificate::generate_self_signed("K12345678L", "Dyqani", Duration::days(1)).unwrap();
        let loaded = Certificate::from_p12(&cert.to_p12("pw").unwrap(), "pw").unwrap();
        assert_eq!(loaded.cert_der(), cert.cert_der());
        assert_eq!(loaded.serial_hex(), cert.serial_hex());
    }

    #[test]
    fn p12_without_rsa_key_is_refused() {
        let ec_group = openssl::ec::EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
        let ec_key = PKey::from_ec_key(openssl::ec::EcKey::generate(&ec_group).unwrap()).unwrap();
        let subject = self_signed_subject("K12345678L", "Dyqani").unwrap();
        let mut builder = X509::builder().unwrap();
        builder.set_subject_name(&subject).unwrap();
        builder.set_issuer_name(&subject).unwrap();
        builder.set_pubkey(&ec_key).unwrap();
        builder.set_not_before(&Asn1Time::days_from_now(0).unwrap()).unwrap();
        builder.set_not_after(&Asn1Time::days_from_now(1).unwrap()).unwrap();
        builder.sign(&ec_key, MessageDigest::sha256()).unwrap();
        let cert = builder.build();
        let mut p12 = Pkcs12::builder();
        p12.name("ec").pkey(&ec_key).cert(&cert);
        let der = p12.build2("pw").unwrap().to_der().unwrap();
        let err = Certificate::from_p12(&der, "pw").unwrap_err();
        assert_eq!(err.to_string(), "certificate: no RSA private key in the PKCS#12 file");
    }

    #[test]
    fn der_parts_round_trip() {
        let cert = Certificate::generate_self_signed("K12345678L", "Dyqani", Duration::days(1)).unwrap();
        let key_der = cert.private_key_pkcs8_der().unwrap();
        let again = Certificate::from_der_parts(&key_der, cert.cert_der()).unwrap();
        assert_eq!(again.sign_sha256(b"a").unwrap(), cert.sign_sha256(b"a").unwrap());
    }

    #[test]
    fn subject_and_nuis_of_a_generated_certificate() {
        let cert =
            Certificate::generate_self_signed("L91234567A", "Dyqani, sh.p.k.", Duration::days(1)).unwrap();
        assert_eq!(
            cert.subject(),
            "CN=L91234567A Dyqani\\, sh.p.k., serialNumber=L91234567A, O=Dyqani\\, sh.p.k., C=AL"
        );
        assert_eq!(cert.nuis().as_deref(), Some("L91234567A"));
        assert!(cert.carries_nuis("l91234567a"));
        assert!(!cert.carries_nuis("K00000000K"));
        assert!(!cert.carries_nuis(""));
        assert_eq!(cert.serial_hex(), cert.serial_hex().to_ascii_uppercase());
    }

    fn cert_with_subject(entries: &[(Nid, &str)]) -> Certificate {
        let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        for (nid, value) in entries {
            name.append_entry_by_nid(*nid, value).unwrap();
        }
        let name = name.build();
        let mut builder = X509::builder().unwrap();
        builder.set_subject_name(&name).unwrap();
        builder.set_issuer_name(&name).unwrap();
        builder.set_pubkey(&key).unwrap();
        builder.set_not_before(&Asn1Time::days_from_now(0).unwrap()).unwrap();
        builder.set_not_after(&Asn1Time::days_from_now(1).unwrap()).unwrap();
        builder.sign(&key, MessageDigest::sha256()).unwrap();
        Certificate::new(key, builder.build()).unwrap()
    }

    #[test]
    fn nuis_found_in_common_name_only() {
        let cert = cert_with_subject(&[(Nid::COUNTRYNAME, "AL"), (Nid::COMMONNAME, "J81609010U Shop")]);
        assert_eq!(cert.nuis().as_deref(), Some("J81609010U"));
        assert!(cert.carries_nuis("J81609010U"));
    }

    #[test]
    fn nuis_found_in_serial_number_only() {
        let cert = cert_with_subject(&[
            (Nid::COUNTRYNAME, "AL"),
            (Nid::SERIALNUMBER, "J81609010U"),
            (Nid::COMMONNAME, "Arben Hoxha"),
        ]);
        assert_eq!(cert.nuis().as_deref(), Some("J81609010U"));
        assert!(cert.carries_nuis("j81609010u"));
        assert_eq!(cert.subject(), "CN=Arben Hoxha, serialNumber=J81609010U, C=AL");
    }

    #[test]
    fn expired_certificate_is_refused() {
        let cert = Certificate::generate_self_signed("K12345678L", "Dyqani", Duration::days(1)).unwrap();
        let now = Utc::now();
        assert!(cert.ensure_valid_at(now).is_ok());
        assert!(matches!(cert.ensure_valid_at(now + Duration::days(2)), Err(Error::CertificateExpired)));
        assert!(cert.expires_within(now, Duration::days(2)));
        assert!(!cert.expires_within(now, Duration::hours(1)));
        assert!(cert.ensure_valid_at(now - Duration::days(1)).is_err());
    }

    #[test]
    fn pem_key_and_cert_must_belong_together() {
        let a = Certificate::generate_self_signed("K12345678L", "A", Duration::days(1)).unwrap();
        let b = Certificate::generate_self_signed("K12345678L", "B", Duration::days(1)).unwrap();
        let key_pem = a.key.private_key_to_pem_pkcs8().unwrap();
        let err = Certificate::from_pem(&key_pem, &b.cert.to_pem().unwrap()).unwrap_err();
        assert!(err.to_string().contains("does not belong"));
    }
}
