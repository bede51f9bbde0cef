//! Outside judges of what Arka sent the CIS: `xmllint` against the tax administration's schema
//! and `xmlsec1` for the XML signature (Debian's libxml2-utils and xmlsec1; `./test` installs
//! them).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The schema libxml2 compiles (see assets/cis/README.md).
fn schema() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cis/alimc-fiscalization-service.libxml2.xsd")
}

/// Runs a tool (from Debian's `package`) and fails the test with its output unless it succeeds.
fn judged(what: &str, package: &str, command: &mut Command) {
    let out = super::oracle(command, package);
    assert!(
        out.status.success(),
        "{what} refused the request: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The signed SOAP request in `record` (an entry of the simulator's request log) passes
/// `xmllint --schema` and `xmlsec1 --verify` with the shop's certificate.
pub fn assert_valid_request(record: &Value, cert_pem: &[u8]) {
    let body = record["body"].as_str().unwrap_or_else(|| panic!("the simulator kept the body: {record}"));
    let root = format!("{}Request", record["operation"].as_str().unwrap());
    let start = body.find(&format!("<{root}")).unwrap_or_else(|| panic!("no {root} in {body}"));
    let end = body.find(&format!("</{root}>")).map(|e| e + root.len() + 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (soap, request, cert) =
        (dir.path().join("soap.xml"), dir.path().join("request.xml"), dir.path().join("cert.pem"));
    std::fs::write(&soap, body).unwrap();
    std::fs::write(&request, &body[start..end]).unwrap();
    std::fs::write(&cert, cert_pem).unwrap();
    judged(
        "xmllint",
        "libxml2-utils",
        Command::new("xmllint").arg("--noout").arg("--schema").arg(schema()).arg(&request),
    );
    judged(
        "xmlsec1",
        "xmlsec1",
        Command::new("xmlsec1")
            .args(["--verify", "--id-attr:Id", &root, "--pubkey-cert-pem"])
            .arg(&cert)
            .arg(&soap),
    );
}
