//! Outside judges of what Arka sent the e-invoice platform: `xmllint` against the tax
//! administration's e-invoice schema and the OASIS UBL 2.1 schema (fetched by
//! `.ci/ubl-schema`, which `./test` runs), and `xmlsec1` for the XML signatures, checked with the certificate each
//! message carries in its KeyInfo.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a tool (from Debian's `package`) and fails the test with its output unless it succeeds.
fn judged(what: &str, package: &str, command: &mut Command) {
    let out = super::oracle(command, package);
    assert!(
        out.status.success(),
        "{what} refused it: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The certificate of a signature's KeyInfo, as PEM.
fn key_info_pem(xml: &str) -> String {
    let start = xml.find("<X509Certificate>").expect("a KeyInfo certificate") + "<X509Certificate>".len();
    let end = start + xml[start..].find("</X509Certificate>").unwrap();
    let der = openssl::base64::decode_block(&xml[start..end]).unwrap();
    String::from_utf8(openssl::x509::X509::from_der(&der).unwrap().to_pem().unwrap()).unwrap()
}

/// The request element of a logged SOAP body (`record` from the simulator's request log).
fn request_element(record: &Value) -> (String, String, String) {
    let body = record["body"].as_str().unwrap_or_else(|| panic!("the simulator kept the body: {record}"));
    let root = format!("{}Request", record["operation"].as_str().unwrap());
    let start = body.find(&format!("<{root}")).unwrap_or_else(|| panic!("no {root} in {body}"));
    let end = body.find(&format!("</{root}>")).map(|e| e + root.len() + 3).unwrap();
    (body.to_string(), body[start..end].to_string(), root)
}

/// The signed e-invoice service request in `record` passes `xmllint --schema` (the e-invoice
/// service's schema) and `xmlsec1 --verify`.
pub fn assert_valid_request(record: &Value) {
    let (soap, element, root) = request_element(record);
    let dir = tempfile::tempdir().unwrap();
    let (soap_file, element_file, pem) =
        (dir.path().join("soap.xml"), dir.path().join("request.xml"), dir.path().join("cert.pem"));
    std::fs::write(&soap_file, &soap).unwrap();
    std::fs::write(&element_file, &element).unwrap();
    std::fs::write(&pem, key_info_pem(&element)).unwrap();
    let xsd = manifest().join("assets/cis/alimc-einvoice-service.xsd");
    judged(
        "xmllint",
        "libxml2-utils",
        Command::new("xmllint").arg("--noout").arg("--schema").arg(xsd).arg(&element_file),
    );
    judged(
        "xmlsec1",
        "xmlsec1",
        Command::new("xmlsec1")
            .args(["--verify", "--id-attr:Id", &root, "--pubkey-cert-pem"])
            .arg(&pem)
            .arg(&soap_file),
    );
}

/// The UBL document a logged RegisterEinvoice request carried, and whether it is a CreditNote.
pub fn ubl_of(record: &Value) -> (String, bool) {
    let (_, element, _) = request_element(record);
    for (tag, credit_note) in [("UblInvoice", false), ("UblCreditNote", true)] {
        if let Some(start) = element.find(&format!("<{tag}>")) {
            let start = start + tag.len() + 2;
            let end = start + element[start..].find(&format!("</{tag}>")).unwrap();
            let bytes = openssl::base64::decode_block(&element[start..end]).unwrap();
            return (String::from_utf8(bytes).unwrap(), credit_note);
        }
    }
    panic!("no UBL document in {element}")
}

/// The OASIS UBL 2.1 schema of an Invoice or a CreditNote.
fn ubl_schema(credit_note: bool) -> PathBuf {
    let file = if credit_note { "UBL-CreditNote-2.1.xsd" } else { "UBL-Invoice-2.1.xsd" };
    let path = manifest().join("target/ubl-2.1/maindoc").join(file);
    assert!(path.is_file(), "the UBL 2.1 schema is missing ({path:?}): ./test fetches it (.ci/ubl-schema)");
    path
}

/// The UBL document passes `xmllint --schema` (UBL 2.1) and `xmlsec1 --verify` (its enveloped
/// signature over the whole document).
pub fn assert_valid_ubl(ubl: &str, credit_note: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (file, pem) = (dir.path().join("ubl.xml"), dir.path().join("cert.pem"));
    std::fs::write(&file, ubl).unwrap();
    std::fs::write(&pem, key_info_pem(ubl)).unwrap();
    judged(
        "xmllint",
        "libxml2-utils",
        Command::new("xmllint").arg("--noout").arg("--schema").arg(ubl_schema(credit_note)).arg(&file),
    );
    judged(
        "xmlsec1",
        "xmlsec1",
        Command::new("xmlsec1").arg("--verify").arg("--pubkey-cert-pem").arg(&pem).arg(&file),
    );
}
