//! Issue 34: the fiscal queue keeps each document's request packed, and what was sent to the CIS
//! stays provable byte for byte. `arka queue requests --out DIR` writes every kept request signed
//! as it was sent; here it is compared with what the simulator received and judged by
//! `xmlsec1 --verify`, on a new shop and on a database an earlier release wrote (upgraded by V27).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use serde_json::json;

/// Runs `arka queue requests --out DIR` over `data_dir`; returns each written file.
fn kept_requests(data_dir: &Path) -> Vec<PathBuf> {
    let out = tempfile::tempdir().unwrap().keep();
    let run = Command::new(env!("CARGO_BIN_EXE_arka"))
        .args(["queue", "requests", "--out"])
        .arg(&out)
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// The request element (`<...Request ...>...</...Request>`) of a SOAP envelope.
fn request_element(soap: &str) -> (String, String) {
    let start = soap.find("<Register").unwrap_or_else(|| panic!("no request in {soap}"));
    let root: String = soap[start + 1..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    let end = soap.find(&format!("</{root}>")).unwrap() + root.len() + 3;
    (root, soap[start..end].to_string())
}

/// `xmlsec1 --verify` of a signed envelope, with the certificate it carries.
fn assert_signature_verifies(file: &Path) {
    let soap = std::fs::read_to_string(file).unwrap();
    let (root, _) = request_element(&soap);
    let start = soap.find("<X509Certificate>").expect("a KeyInfo certificate") + "<X509Certificate>".len();
    let end = start + soap[start..].find("</X509Certificate>").unwrap();
    let der = openssl::base64::decode_block(&soap[start..end]).unwrap();
    let pem = file.with_extension("pem");
    std::fs::write(&pem, openssl::x509::X509::from_der(&der).unwrap().to_pem().unwrap()).unwrap();
    let out = oracle(
        Command::new("xmlsec1")
            .args(["--verify", "--id-attr:Id", &root, "--pubkey-cert-pem"])
            .arg(&pem)
            .arg(file),
        "xmlsec1",
    );
    assert!(
        out.status.success(),
        "xmlsec1 refused {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// How the database holds the queue's kept requests: `typeof` and count.
fn request_types(db: &Path) -> String {
    let out = oracle(
        Command::new("sqlite3")
            .arg(db)
            .arg("SELECT typeof(unsigned_request), COUNT(*) FROM fiscal_queue GROUP BY 1"),
        "sqlite3",
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The answer of `sqlite3` to `query` over the database at `db`, one row a line.
fn sqlite(db: &Path, query: &str) -> String {
    let out = oracle(Command::new("sqlite3").arg(db).arg(query), "sqlite3");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The kept requests' formats (their first byte, in hex) and how many of each.
fn request_formats(db: &Path) -> String {
    sqlite(db, "SELECT hex(substr(unsigned_request, 1, 1)), COUNT(*) FROM fiscal_queue GROUP BY 1")
}

/// `expression` of every invoice of the database at `db`, by id.
fn column_by_id(db: &Path, expression: &str) -> std::collections::BTreeMap<String, String> {
    let out = oracle(
        Command::new("sqlite3")
            .arg("-separator")
            .arg("\t")
            .arg(db)
            .arg(format!("SELECT id, {expression} FROM invoices")),
        "sqlite3",
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(id, value)| (id.to_string(), value.to_string()))
        .collect()
}

#[test]
fn every_kept_request_is_what_the_cis_received_byte_for_byte_and_its_signature_verifies() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let token = Some(till.token.as_str());
    for i in 0..3 {
        till.server.post_json("/api/v1/invoice/cash", token, &coffee_and_water(&format!("k-{i}"))).data(201);
    }
    till.server.post_json("/api/v1/invoice/noncash", token, &on_account("k-account")).data(201);
    till.server.post_json("/api/v2/invoice/cancel-by-internal-id/k-0", token, &json!({})).data(200);

    let files = kept_requests(&till.server.data_dir());
    let received: Vec<String> = sim
        .requests()
        .iter()
        .filter_map(|r| r["body"].as_str())
        .filter(|b| b.contains("<Register"))
        .map(|b| request_element(b).1)
        .collect();
    // The day's opening deposit, three sales, the sale on account, the corrective document.
    assert_eq!(files.len(), 6, "{files:?}");
    for file in &files {
        let (_, kept) = request_element(&std::fs::read_to_string(file).unwrap());
        assert!(received.contains(&kept), "{} is not what the CIS received:\n{kept}", file.display());
        assert_signature_verifies(file);
    }
    let db = till.server.data_dir().join("arka.db");
    assert_eq!(request_types(&db), "blob|6");
    // The deposit has no IIC signature (format 1); the five invoices' entries are format 3,
    // written with the shop's one dictionary of invoice requests, and keep no next attempt
    // once delivered.
    assert_eq!(request_formats(&db), "01|1\n03|5");
    assert_eq!(
        sqlite(&db, "SELECT operation, COUNT(*) FROM kept_dictionaries GROUP BY 1"),
        "RegisterInvoiceRequest|1"
    );
    assert_eq!(
        sqlite(&db, "SELECT COUNT(*) FROM fiscal_queue WHERE status = 'delivered' AND next_attempt_at <> ''"),
        "0"
    );
    // An invoice's signature is kept once (by its queue entry, which gave it to the CIS above),
    // and its row keeps a few characters of its verify URL, whole again in its details.
    assert!(column_by_id(&db, "length(iic_signature)").values().all(|n| n == "0"));
    for (id, kept) in column_by_id(&db, "verify_url") {
        assert!(kept.starts_with("T ") && kept.len() < 30, "{kept}");
        let details = till.server.get(&format!("/api/v1/invoice/{id}/details"), token).data(200).clone();
        let invoice = &details["invoice"];
        let url = invoice["verifyURL"].as_str().unwrap_or("?");
        let head = format!(
            "https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify?iic={}&tin=",
            invoice["iic"]
        );
        assert!(url.starts_with(&head.replace('"', "")), "{url}");
        assert!(
            url.ends_with(&format!(
                "&sw=ss123ss123&prc={:.2}",
                invoice["amount"]["gross"].as_f64().unwrap_or(-1.0)
            )),
            "{url}"
        );
    }
}

#[test]
fn a_database_of_the_release_before_v27_upgrades_and_every_document_reads_back() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upgrade");
    let mut server = TestServer::sandbox();
    server.restart_after(|data| {
        for file in ["arka.db", "arka.db-wal", "arka.db-shm"] {
            let _ = std::fs::remove_file(data.join(file));
        }
        std::fs::copy(fixture.join("arka-v25.db"), data.join("arka.db")).unwrap();
        std::fs::copy(fixture.join("arka.key"), data.join("arka.key")).unwrap();
    });
    let verify_urls = column_by_id(&fixture.join("arka-v25.db"), "verify_url");
    assert!(verify_urls.values().all(|url| url.starts_with("https://") && url.len() > 150));
    // An owner of the sandbox company reads every document through the routes.
    let partner = Some("arka_p_sandbox");
    let shop = server.post_json(
        "/api/v1/register",
        partner,
        &registration_body("K00000001S", "Dyqani", "upgrade@dyqani.al"),
    );
    let token = shop.data(201)["api_token"].as_str().unwrap().to_string();
    let token = Some(token.as_str());
    // The server answered: it opened the database and brought it up to date.
    let db = server.data_dir().join("arka.db");
    assert_eq!(request_types(&db), "blob|17", "V27 packed every kept request");
    assert!(!request_formats(&db).contains("03|"), "V30 rewrote no entry: {}", request_formats(&db));
    let page_size = oracle(Command::new("sqlite3").arg(&db).arg("PRAGMA page_size"), "sqlite3");
    assert_eq!(String::from_utf8_lossy(&page_size.stdout).trim(), "512", "rewritten with 512-byte pages");
    // V28: each invoice's signature is kept once, by its queue entry, and its row keeps a few
    // characters of its verify URL.
    assert!(column_by_id(&db, "length(iic_signature)").values().all(|n| n == "0"));
    assert!(column_by_id(&db, "length(verify_url)").values().all(|n| n.parse::<usize>().unwrap() < 30));

    let list = server.get("/api/v1/invoice?limit=100", token).data(200).clone();
    let items = list["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 11, "{list}");
    for item in &items {
        let details = server.get(&format!("/api/v1/invoice/{}/details", item["id"]), token);
        assert!(
            details.text.contains(item["iic"].as_str().unwrap()),
            "the details of {item}: {}",
            details.text
        );
        let url = &verify_urls[&item["id"].to_string()];
        assert!(
            details.text.contains(url.as_str()),
            "the verify URL in the details of {item}: {}",
            details.text
        );
        let pdf = server.get_bytes(&format!("/api/v1/invoice/print/{}", item["id"]), token);
        assert!(pdf.starts_with(b"%PDF"), "the PDF of {item}");
        let text = pdftotext(&pdf);
        assert!(text.contains(item["iic"].as_str().unwrap_or("?")), "the IIC on the PDF of {item}");
        let printed: String = text.split_whitespace().collect();
        assert!(printed.contains(url.as_str()), "the verify URL on the PDF of {item}: {text}");
    }
    server.get("/api/v2/invoice/wtn/details/w-1", token).data(200);
    let files = kept_requests(&server.data_dir());
    assert_eq!(files.len(), 17);
    for file in files.iter().filter(|f| !f.to_string_lossy().contains("RegisterEinvoice")) {
        assert_signature_verifies(file);
    }
}
