//! Enveloped XML signatures in the CIS profile (PROTOCOL.md section 3): exclusive c14n,
//! RSA-SHA256, one SHA-256 reference to the root's `Id`, the signing certificate in KeyInfo.
//! Requests and the CIS's responses are signed the same way.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use openssl::base64;
use openssl::hash::{MessageDigest, hash};
use openssl::pkey::Id;
use openssl::sign::Verifier;
use openssl::x509::X509;

use super::Error;
use super::c14n::{Element, EnvelopedSignature, Select, XMLDSIG_NS};
use super::certificate::Certificate;
use super::xml::CanonicalWriter;

const EXC_C14N: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";
const RSA_SHA256: &str = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const ENVELOPED_SIGNATURE: &str = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
const SHA256: &str = "http://www.w3.org/2001/04/xmlenc#sha256";

/// What a valid signature vouches for.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The certificate from KeyInfo; whether it is trusted is the caller's decision.
    pub cert: X509,
    /// The `Id` of the signed element (`Request` or `Response`).
    pub reference_id: String,
}

/// Signs an element that is already in exclusive-c14n form and returns it with the
/// `Signature` as its last child. The result is itself canonical.
pub fn sign_enveloped(canonical_element: &str, cert: &Certificate) -> Result<String, Error> {
    let root = Element::parse_document(canonical_element)?;
    // The digest covers these exact bytes, so they must be what a verifier will recompute.
    if root.canonicalize(EnvelopedSignature::Keep) != canonical_element {
        return Err(Error::Xml("the element to sign is not in canonical form".into()));
    }
    let id =
        root.attribute("Id").ok_or_else(|| Error::Xml("the element to sign has no Id attribute".into()))?;
    let digest = hash(MessageDigest::sha256(), canonical_element.as_bytes())?;
    let signature = signature_element(&format!("#{id}"), &digest, cert)?;
    // A canonical element ends with its own end tag.
    let close_at = canonical_element
        .rfind("</")
        .ok_or_else(|| Error::Xml("the element to sign has no end tag".into()))?;
    Ok(format!("{}{signature}{}", &canonical_element[..close_at], &canonical_element[close_at..]))
}

/// Signs a whole document (`Reference URI=""`) whose signature goes inside it, at byte
/// `insert_at` (a UBL e-invoice's `ExtensionContent`), and returns the document with it. The
/// digest covers the document's canonical form without the signature, which is the document
/// as given: it must carry no signature yet, and `insert_at` must fall between two elements so
/// that no text is added.
pub fn sign_document(document: &str, insert_at: usize, cert: &Certificate) -> Result<String, Error> {
    let root = Element::parse_document(document)?;
    if root.find(Select::LocalName("Signature")).is_some_and(Element::is_signature) {
        return Err(Error::Xml("the document to sign is signed already".into()));
    }
    if !document.is_char_boundary(insert_at) || !document[..insert_at].ends_with('>') {
        return Err(Error::Xml("the signature must go between two elements".into()));
    }
    let canonical = root.canonicalize(EnvelopedSignature::Keep);
    let digest = hash(MessageDigest::sha256(), canonical.as_bytes())?;
    let signature = signature_element("", &digest, cert)?;
    Ok(format!("{}{signature}{}", &document[..insert_at], &document[insert_at..]))
}

/// The `Signature` element (default dsig namespace, canonical) over `digest`, referring to `uri`.
fn signature_element(uri: &str, digest: &[u8], cert: &Certificate) -> Result<String, Error> {
    let signed_info_body = signed_info_body(uri, &base64::encode_block(digest));
    // Standing alone, SignedInfo declares the dsig namespace; inside Signature it inherits it.
    let canonical_signed_info = format!("<SignedInfo xmlns=\"{XMLDSIG_NS}\">{signed_info_body}</SignedInfo>");
    let signature_value = cert.sign_sha256(canonical_signed_info.as_bytes())?;
    let mut w = CanonicalWriter::new();
    w.start("Signature", Some(XMLDSIG_NS), &[]);
    w.start("SignedInfo", None, &[]);
    w.raw(&signed_info_body);
    w.end();
    w.text_element("SignatureValue", &base64::encode_block(&signature_value));
    w.start("KeyInfo", None, &[]);
    w.start("X509Data", None, &[]);
    w.text_element("X509Certificate", &base64::encode_block(cert.cert_der()));
    Ok(w.finish())
}

/// The children of SignedInfo, in canonical form.
fn signed_info_body(uri: &str, digest_base64: &str) -> String {
    let mut w = CanonicalWriter::new();
    w.empty("CanonicalizationMethod", &[("Algorithm", EXC_C14N)]);
    w.empty("SignatureMethod", &[("Algorithm", RSA_SHA256)]);
    w.start("Reference", None, &[("URI", uri)]);
    w.start("Transforms", None, &[]);
    w.empty("Transform", &[("Algorithm", ENVELOPED_SIGNATURE)]);
    w.empty("Transform", &[("Algorithm", EXC_C14N)]);
    w.end();
    w.empty("DigestMethod", &[("Algorithm", SHA256)]);
    w.text_element("DigestValue", digest_base64);
    w.finish()
}

/// Verifies the enveloped signature of the first element named `root_local_name` (found
/// anywhere, for example inside a SOAP envelope) against the certificate in its KeyInfo.
pub fn verify_enveloped(document: &str, root_local_name: &str) -> Result<Verified, Error> {
    let doc = Element::parse_document(document)?;
    let root = doc
        .find(Select::LocalName(root_local_name))
        .ok_or_else(|| Error::Xml(format!("no {root_local_name} element")))?;
    let id = root.attribute("Id").ok_or_else(|| invalid("the signed element has no Id attribute"))?;
    let signature = single_signature(root)?;
    let cert = check_signature(signature, &format!("#{id}"), &root.canonicalize(EnvelopedSignature::Omit))?;
    Ok(Verified { cert, reference_id: id.to_string() })
}

/// Verifies a document signed as a whole (`Reference URI=""`, `sign_document`), its one
/// signature anywhere inside it, against the certificate in its KeyInfo.
pub fn verify_document(document: &str) -> Result<Verified, Error> {
    let root = Element::parse_document(document)?;
    let signature = root
        .find(Select::LocalName("Signature"))
        .filter(|s| s.is_signature())
        .ok_or_else(|| invalid("the document has no Signature"))?;
    let cert = check_signature(signature, "", &root.canonicalize(EnvelopedSignature::OmitNested))?;
    Ok(Verified { cert, reference_id: String::new() })
}

/// Checks `signature` (the CIS profile, one reference to `uri`) against `canonical`, the signed
/// content with the signature left out; returns the KeyInfo certificate.
fn check_signature(signature: &Element, uri: &str, canonical: &str) -> Result<X509, Error> {
    let signed_info = dsig_child(signature, "SignedInfo")?;
    check_algorithm(signed_info, "CanonicalizationMethod", EXC_C14N)?;
    check_algorithm(signed_info, "SignatureMethod", RSA_SHA256)?;
    let reference = single_reference(signed_info)?;
    check_reference_uri(reference, uri)?;
    check_transforms(reference)?;
    check_algorithm(reference, "DigestMethod", SHA256)?;
    check_digest(reference, canonical)?;
    let cert = key_info_certificate(signature)?;
    check_signature_value(signature, signed_info, &cert)?;
    Ok(cert)
}

fn invalid(message: &str) -> Error {
    Error::Signature(message.to_string())
}

fn single_signature(root: &Element) -> Result<&Element, Error> {
    let mut signatures =
        root.children().filter(|c| c.namespace() == XMLDSIG_NS && c.local_name() == "Signature");
    match (signatures.next(), signatures.next()) {
        (Some(signature), None) => Ok(signature),
        (None, _) => Err(invalid("the signed element has no Signature")),
        (Some(_), Some(_)) => Err(invalid("the signed element has more than one Signature")),
    }
}

fn dsig_child<'a>(parent: &'a Element, local_name: &str) -> Result<&'a Element, Error> {
    parent.child(XMLDSIG_NS, local_name).ok_or_else(|| Error::Signature(format!("missing {local_name}")))
}

fn check_algorithm(parent: &Element, local_name: &str, expected: &str) -> Result<(), Error> {
    let algorithm = dsig_child(parent, local_name)?.attribute("Algorithm");
    if algorithm == Some(expected) {
        Ok(())
    } else {
        Err(Error::Signature(format!("unsupported {local_name} {}", algorithm.unwrap_or("(none)"))))
    }
}

fn single_reference(signed_info: &Element) -> Result<&Element, Error> {
    let mut references =
        signed_info.children().filter(|c| c.namespace() == XMLDSIG_NS && c.local_name() == "Reference");
    match (references.next(), references.next()) {
        (Some(reference), None) => Ok(reference),
        _ => Err(invalid("wrong reference: exactly one Reference is required")),
    }
}

fn check_reference_uri(reference: &Element, expected: &str) -> Result<(), Error> {
    let uri = reference.attribute("URI").unwrap_or("");
    if uri == expected {
        Ok(())
    } else {
        Err(Error::Signature(format!(
            "wrong reference: URI \"{uri}\" does not point at the signed content (\"{expected}\")"
        )))
    }
}

/// Exactly enveloped-signature then exc-c14n, the latter without an inclusive prefix list:
/// anything else would digest different bytes than we compute.
fn check_transforms(reference: &Element) -> Result<(), Error> {
    let transforms: Vec<&Element> = dsig_child(reference, "Transforms")?
        .children()
        .filter(|c| c.namespace() == XMLDSIG_NS && c.local_name() == "Transform")
        .collect();
    let algorithms: Vec<Option<&str>> = transforms.iter().map(|t| t.attribute("Algorithm")).collect();
    if algorithms != [Some(ENVELOPED_SIGNATURE), Some(EXC_C14N)] {
        return Err(invalid("unsupported Transforms: enveloped-signature then exc-c14n are required"));
    }
    let inclusive_prefixes = transforms[1]
        .children()
        .filter(|c| c.local_name() == "InclusiveNamespaces")
        .any(|c| !c.attribute("PrefixList").unwrap_or("").trim().is_empty());
    if inclusive_prefixes {
        return Err(invalid("unsupported InclusiveNamespaces PrefixList"));
    }
    Ok(())
}

fn check_digest(reference: &Element, canonical: &str) -> Result<(), Error> {
    let claimed = decode_base64(&dsig_child(reference, "DigestValue")?.text(), "DigestValue")?;
    let actual = hash(MessageDigest::sha256(), canonical.as_bytes())?;
    if claimed.as_slice() == actual.as_ref() {
        Ok(())
    } else {
        Err(invalid("digest mismatch: the signed element was changed after signing"))
    }
}

fn key_info_certificate(signature: &Element) -> Result<X509, Error> {
    let encoded = signature
        .child(XMLDSIG_NS, "KeyInfo")
        .and_then(|key_info| key_info.child(XMLDSIG_NS, "X509Data"))
        .and_then(|data| data.child(XMLDSIG_NS, "X509Certificate"))
        .ok_or_else(|| invalid("missing KeyInfo/X509Data/X509Certificate"))?
        .text();
    let der = decode_base64(&encoded, "X509Certificate")?;
    read_certificate(der)
}

/// Certificates read lately, by their DER bytes: a peer signs every message with the same one,
/// and OpenSSL 3 takes about a tenth of a millisecond to read a certificate.
static CERTIFICATES_READ: LazyLock<Mutex<HashMap<Vec<u8>, X509>>> = LazyLock::new(Default::default);

/// Certificates kept at most; past it the cache starts again empty.
const CERTIFICATES_KEPT: usize = 64;

fn read_certificate(der: Vec<u8>) -> Result<X509, Error> {
    if let Some(cert) = CERTIFICATES_READ.lock().ok().and_then(|read| read.get(&der).cloned()) {
        return Ok(cert);
    }
    let cert = X509::from_der(&der)
        .map_err(|_| invalid("the KeyInfo certificate is not a valid X.509 certificate"))?;
    if let Ok(mut read) = CERTIFICATES_READ.lock() {
        if read.len() >= CERTIFICATES_KEPT {
            read.clear();
        }
        read.insert(der, cert.clone());
    }
    Ok(cert)
}

fn check_signature_value(signature: &Element, signed_info: &Element, cert: &X509) -> Result<(), Error> {
    let value = decode_base64(&dsig_child(signature, "SignatureValue")?.text(), "SignatureValue")?;
    let public_key = cert.public_key()?;
    if public_key.id() != Id::RSA {
        return Err(invalid("the KeyInfo certificate does not hold an RSA key"));
    }
    let canonical = signed_info.canonicalize(EnvelopedSignature::Keep);
    let mut verifier = Verifier::new(MessageDigest::sha256(), &public_key)?;
    // openssl reports a malformed signature as an error and a wrong one as false: both mean
    // the same to the peer.
    match verifier.verify_oneshot(&value, canonical.as_bytes()) {
        Ok(true) => Ok(()),
        Ok(false) | Err(_) => {
            Err(invalid("bad signature: SignatureValue does not verify with the KeyInfo certificate"))
        }
    }
}

/// Base64 as peers send it: Java wraps lines, so whitespace is ignored.
fn decode_base64(text: &str, what: &str) -> Result<Vec<u8>, Error> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::decode_block(&compact).map_err(|_| Error::Signature(format!("{what} is not base64")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::c14n::canonicalize_element;
    use crate::fiscal::testing::{check_request_script, outside_tool, testvectors};
    use chrono::Duration;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    const DIGEST: &str = "wOWyYWT52o3ayfaXa54x2N6JSgt1GU+fi2jD9odRBwM=";
    const SIGNATURE_VALUE: &str = "aWkoUD9DUmh1EeRsv/PqY2KkG8med+oTdbF13zF01lEL2RD3COH0ZfCz5tYe66KHmz/9d42yAPiWaQABaMv015PsaKpdMx2AsBcTy2IW++uqBv6HQjUbHZD0m1LwwBLOhaNAlf+G/S19xk/FShvLO/kLNuQS0ApwwXn6qeg7ueTgb85lBmj6ObPM2eHYEc4ZioV8sxQi/jPGg6giebn12JKW7sbhp/AZprBdzDxbZhrI4N34j7IJzU1A1uJEM21jWTMJ74kBc+b+wyKnM2hjil/ob2dZSyXQP5ENaMOkl8vutLHyUF0f70gwwEwVYiU2H95hBX71rTVUZFUXblFVcw==";

    fn vector(name: &str) -> String {
        std::fs::read_to_string(testvectors().join(name)).unwrap()
    }

    fn example_cert() -> Certificate {
        let dir = testvectors();
        let key = std::fs::read(dir.join("iic-example-key.pem")).unwrap();
        let cert = std::fs::read(dir.join("example-selfsigned-cert.pem")).unwrap();
        Certificate::from_pem(&key, &cert).unwrap()
    }

    fn fresh_cert() -> Certificate {
        Certificate::generate_self_signed("K12345678L", "Dyqani Arka", Duration::days(30)).unwrap()
    }

    fn in_soap(element: &str) -> String {
        format!(
            "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP-ENV:Header/><SOAP-ENV:Body>{element}</SOAP-ENV:Body></SOAP-ENV:Envelope>"
        )
    }

    fn small_request() -> String {
        let mut w = CanonicalWriter::new();
        w.start(
            "RegisterTCRRequest",
            Some("https://eFiskalizimi.tatime.gov.al/FiscalizationService/schema"),
            &[("Version", "3"), ("Id", "Request")],
        );
        w.empty(
            "Header",
            &[
                ("UUID", "5f7c8a3e-2b1d-4c6e-9a8b-1234567890ab"),
                ("SendDateTime", "2024-01-02T10:00:00+01:00"),
            ],
        );
        w.empty(
            "TCR",
            &[
                ("BusinUnitCode", "bb123bb123"),
                ("IssuerNUIS", "K12345678L"),
                ("Note", "Shitje & \"kthim\" <ë>\t"),
            ],
        );
        w.finish()
    }

    #[test]
    fn reproduces_the_testvector_signature() {
        let signed = sign_enveloped(&vector("RegisterInvoiceRequest.exc-c14n.xml"), &example_cert()).unwrap();
        assert!(signed.contains(&format!("<DigestValue>{DIGEST}</DigestValue>")));
        assert!(signed.contains(&format!("<SignatureValue>{SIGNATURE_VALUE}</SignatureValue>")));
        let signed_info =
            canonicalize_element(&signed, Select::LocalName("SignedInfo"), EnvelopedSignature::Keep).unwrap();
        assert_eq!(signed_info, vector("SignedInfo.exc-c14n.xml"));
        // The published signed request, canonicalized, is exactly our (canonical) output.
        let published = canonicalize_element(
            &vector("RegisterInvoiceRequest.signed.xml"),
            Select::LocalName("RegisterInvoiceRequest"),
            EnvelopedSignature::Keep,
        )
        .unwrap();
        assert_eq!(signed, published);
    }

    #[test]
    fn round_trip_sign_then_verify() {
        let cert = fresh_cert();
        let signed = sign_enveloped(&small_request(), &cert).unwrap();
        let verified = verify_enveloped(&in_soap(&signed), "RegisterTCRRequest").unwrap();
        assert_eq!(verified.reference_id, "Request");
        assert_eq!(verified.cert.to_der().unwrap(), cert.cert_der());
    }

    #[test]
    fn refuses_to_sign_non_canonical_input() {
        let err = sign_enveloped("<R Id=\"Request\"><a/></R>", &fresh_cert()).unwrap_err();
        assert!(err.to_string().contains("not in canonical form"));
        let err = sign_enveloped("<R></R>", &fresh_cert()).unwrap_err();
        assert!(err.to_string().contains("no Id"));
    }

    #[test]
    fn testvector_soap_verifies() {
        let verified =
            verify_enveloped(&vector("RegisterInvoiceRequest.soap.xml"), "RegisterInvoiceRequest").unwrap();
        assert_eq!(verified.reference_id, "Request");
        assert_eq!(verified.cert.to_der().unwrap(), example_cert().cert_der());
    }

    fn verify_error(document: &str) -> String {
        verify_enveloped(document, "RegisterInvoiceRequest").unwrap_err().to_string()
    }

    #[test]
    fn tampered_attribute_is_a_digest_mismatch() {
        let tampered =
            vector("RegisterInvoiceRequest.soap.xml").replace("TotPrice=\"99.01\"", "TotPrice=\"9.01\"");
        assert!(verify_error(&tampered).contains("digest mismatch"), "{}", verify_error(&tampered));
    }

    #[test]
    fn tampered_signature_value_is_a_bad_signature() {
        let tampered =
            vector("RegisterInvoiceRequest.soap.xml").replace("<SignatureValue>aWko", "<SignatureValue>bWko");
        assert!(verify_error(&tampered).contains("bad signature"));
    }

    #[test]
    fn missing_key_info_is_reported() {
        let soap = vector("RegisterInvoiceRequest.soap.xml");
        let start = soap.find("<KeyInfo>").unwrap();
        let end = soap.find("</KeyInfo>").unwrap() + "</KeyInfo>".len();
        let without = format!("{}{}", &soap[..start], &soap[end..]);
        assert!(verify_error(&without).contains("missing KeyInfo"));
    }

    #[test]
    fn reference_to_another_id_is_refused() {
        let moved = vector("RegisterInvoiceRequest.soap.xml").replace("Id=\"Request\"", "Id=\"Other\"");
        assert!(verify_error(&moved).contains("wrong reference"));
    }

    #[test]
    fn other_algorithms_are_refused() {
        let sha1 = vector("RegisterInvoiceRequest.soap.xml").replace("xmlenc#sha256", "xmldsig#sha1");
        assert!(verify_error(&sha1).contains("unsupported DigestMethod"));
    }

    fn write_signed(dir: &Path, cert: &Certificate, element: &str) -> (PathBuf, PathBuf) {
        let signed = sign_enveloped(element, cert).unwrap();
        let file = dir.join("request.xml");
        std::fs::write(&file, in_soap(&signed)).unwrap();
        let pem = X509::from_der(cert.cert_der()).unwrap().to_pem().unwrap();
        let cert_file = dir.join("cert.pem");
        std::fs::write(&cert_file, pem).unwrap();
        (file, cert_file)
    }

    #[test]
    fn xmlsec1_verifies_our_signature() {
        let dir = tempfile::tempdir().unwrap();
        for (cert, element, root) in [
            (fresh_cert(), small_request(), "RegisterTCRRequest"),
            (example_cert(), vector("RegisterInvoiceRequest.exc-c14n.xml"), "RegisterInvoiceRequest"),
        ] {
            let (file, cert_file) = write_signed(dir.path(), &cert, &element);
            let output = outside_tool(
                Command::new("xmlsec1")
                    .args(["--verify", "--id-attr:Id", root, "--pubkey-cert-pem"])
                    .arg(&cert_file)
                    .arg(&file),
                "xmlsec1",
            );
            assert!(output.status.success(), "xmlsec1: {}", String::from_utf8_lossy(&output.stderr));
        }
    }

    #[test]
    fn check_request_script_accepts_a_fresh_certificate() {
        let dir = tempfile::tempdir().unwrap();
        let (file, cert_file) =
            write_signed(dir.path(), &fresh_cert(), &vector("RegisterInvoiceRequest.exc-c14n.xml"));
        let output = outside_tool(
            Command::new("bash").arg(check_request_script()).arg(&file).arg(&cert_file),
            "xmlsec1 and libxml2-utils",
        );
        assert!(output.status.success(), "check-request.sh: {}", String::from_utf8_lossy(&output.stdout));
    }
}
