//! The shop uploads its electronic certificate: the .p12 file the tax administration issued,
//! written by an old tool or by OpenSSL 3, as a multipart form or as JSON with base64.

use crate::common;
use crate::common::{
    Part, Registered, TestServer, base64, contains_bytes, make_certificate, object_keys, register_company,
    register_sandbox,
};
use chrono::{NaiveDateTime, TimeZone, Utc};
use chrono_tz::Europe::Tirane;
use serde_json::json;

const NUIS: &str = "L41323036D";
const PASSWORD: &str = "s3cret-p12";
const UPLOAD: &str = "/api/v1/on-boarding/certificate";

fn shop() -> (TestServer, Registered) {
    let server = TestServer::start();
    let partner = server.create_partner("Onboarding desk");
    let shop = register_company(&server, &partner, NUIS);
    (server, shop)
}

fn upload(server: &TestServer, token: &str, file: &[u8], password: &str) -> common::Reply {
    server.post_multipart(
        UPLOAD,
        Some(token),
        &[Part::File("certificate_file", "shop.p12", file), Part::Text("password", password)],
    )
}

/// An `expiresAt`/`validFrom` as the API shows it: Tirane time, `YYYY-MM-DD HH:MM:SS`.
fn shown_time(text: &serde_json::Value) -> chrono::DateTime<Utc> {
    let text = text.as_str().unwrap_or_else(|| panic!("a time as text: {text}"));
    let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .unwrap_or_else(|e| panic!("`{text}` is YYYY-MM-DD HH:MM:SS: {e}"));
    Tirane.from_local_datetime(&naive).earliest().unwrap().with_timezone(&Utc)
}

fn assert_about_a_year_from_now(expires_at: &serde_json::Value) {
    let days = (shown_time(expires_at) - Utc::now()).num_days();
    assert!((363..=366).contains(&days), "expires in {days} days: {expires_at}");
}

#[test]
fn certificates_written_by_old_tools_and_by_openssl_3_both_load() {
    let (server, shop) = shop();
    let cert = make_certificate(&format!("/CN={NUIS}/O=Dyqani Ana/C=AL"), PASSWORD);

    for (kind, file) in [
        ("legacy RC2/3DES, SHA-1 MAC", &cert.legacy_p12),
        ("3DES, SHA-1 MAC", &cert.triple_des_p12),
        ("OpenSSL 3 default, AES-256/PBKDF2", &cert.modern_p12),
    ] {
        let reply = upload(&server, &shop.token, file, PASSWORD);
        assert_eq!(reply.status, 201, "{kind}: {}", reply.text);
        let c = &reply.data(201)["cert"];
        for key in ["subject", "serial", "expiresAt", "validFrom"] {
            assert!(c.get(key).is_some(), "{kind}: cert.{key}: {c}");
        }
        assert!(c["subject"].as_str().unwrap().contains(NUIS), "{kind}: {c}");
        assert!(!c["serial"].as_str().unwrap().is_empty());
        assert_about_a_year_from_now(&c["expiresAt"]);
        assert!(shown_time(&c["validFrom"]) <= Utc::now() + chrono::Duration::minutes(1));
    }

    let account = server.get("/api/v1/account", Some(&shop.token));
    assert_about_a_year_from_now(&account.data(200)["cert"]["expiresAt"]);
}

#[test]
fn the_certificate_may_come_as_json_with_base64() {
    let (server, shop) = shop();
    let cert = make_certificate(&format!("/CN={NUIS}"), PASSWORD);

    let body = json!({"certificate_file": base64(&cert.modern_p12), "password": PASSWORD});
    let reply = server.post_json(UPLOAD, Some(&shop.token), &body);
    let c = &reply.data(201)["cert"];
    assert!(c["subject"].as_str().unwrap().contains(NUIS), "{c}");
}

#[test]
fn json_that_is_not_base64_or_lacks_a_field_is_named() {
    let (server, shop) = shop();
    let not_base64 = json!({"certificate_file": "%%% not base64 %%%", "password": PASSWORD});
    server.post_json(UPLOAD, Some(&shop.token), &not_base64).assert_invalid("certificate_file");
    let no_password = json!({"certificate_file": base64(b"anything")});
    server.post_json(UPLOAD, Some(&shop.token), &no_password).assert_invalid("password");
}

#[test]
fn a_wrong_password_is_named() {
    let (server, shop) = shop();
    let cert = make_certificate(&format!("/CN={NUIS}"), PASSWORD);

    for file in [&cert.legacy_p12, &cert.triple_des_p12, &cert.modern_p12] {
        let reply = upload(&server, &shop.token, file, "not-the-password");
        reply.assert_invalid("password");
        assert_eq!(reply.invalid_fields(), ["password"]);
    }
}

#[test]
fn a_password_that_is_not_utf8_or_holds_a_nul_is_named_not_taken_for_a_wrong_one() {
    let (server, shop) = shop();
    let cert = make_certificate(&format!("/CN={NUIS}/O=Dyqani Ana/C=AL"), PASSWORD);
    // "s3cret-p12" with a Latin-1 "ë" (0xEB) at its end: not UTF-8.
    let latin1 = [PASSWORD.as_bytes(), &[0xEB]].concat();
    let reply = server.post_multipart(
        UPLOAD,
        Some(&shop.token),
        &[
            Part::File("certificate_file", "shop.p12", &cert.modern_p12),
            Part::File("password", "password.txt", &latin1),
        ],
    );
    reply.assert_invalid("password");
    assert!(reply.text.contains("UTF-8"), "the message says what is wrong: {}", reply.text);
    // A NUL is refused as in a JSON body, not passed on to the file's decryption.
    let reply = server.post_multipart(
        UPLOAD,
        Some(&shop.token),
        &[
            Part::File("certificate_file", "shop.p12", &cert.modern_p12),
            Part::Text("password", "s3cret\0p12"),
        ],
    );
    reply.assert_invalid("password");
    assert!(reply.text.contains("U+0000"), "the message names the character: {}", reply.text);
    let account = server.get("/api/v1/account", Some(&shop.token));
    assert!(account.data(200)["cert"].is_null(), "nothing was stored: {}", account.text);
}

#[test]
fn a_file_that_is_not_pkcs12_is_named() {
    let (server, shop) = shop();
    let reply = upload(&server, &shop.token, b"this is the shop's price list, not a certificate\n", PASSWORD);
    reply.assert_invalid("certificate_file");

    let missing = server.post_multipart(UPLOAD, Some(&shop.token), &[Part::Text("password", PASSWORD)]);
    missing.assert_invalid("certificate_file");
}

#[test]
fn a_certificate_of_another_tax_id_is_refused() {
    let (server, shop) = shop();
    let cert = make_certificate("/CN=M01234567A/O=Someone else/C=AL", PASSWORD);

    let reply = upload(&server, &shop.token, &cert.modern_p12, PASSWORD);
    reply.assert_invalid("certificate_file");
    let account = server.get("/api/v1/account", Some(&shop.token));
    assert!(account.data(200)["cert"].is_null(), "nothing was stored: {}", account.text);
}

#[test]
fn the_nuis_may_sit_in_any_subject_attribute() {
    let (server, shop) = shop();
    let cert = make_certificate(&format!("/CN=Dyqani Ana/serialNumber={NUIS}/C=AL"), PASSWORD);
    upload(&server, &shop.token, &cert.legacy_p12, PASSWORD).data(201);
}

#[test]
fn the_private_key_is_never_stored_in_clear() {
    let (server, shop) = shop();
    let cert = make_certificate(&format!("/CN={NUIS}"), PASSWORD);
    upload(&server, &shop.token, &cert.modern_p12, PASSWORD).data(201);

    let key_file = server.data_dir().join("arka.key");
    let mode = std::os::unix::fs::MetadataExt::mode(&std::fs::metadata(&key_file).expect("arka.key exists"));
    assert_eq!(mode & 0o777, 0o600, "arka.key is readable by its owner only");

    // The database and its WAL, whatever has been checkpointed or not.
    let mut checked = 0;
    for entry in std::fs::read_dir(server.data_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("arka.db") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        assert!(!contains_bytes(&bytes, &cert.key_pkcs8_der), "{name} holds the PKCS#8 key");
        assert!(!contains_bytes(&bytes, &cert.key_pkcs1_der), "{name} holds the PKCS#1 key");
        checked += 1;
    }
    assert!(checked >= 1, "arka.db was checked");
}

#[test]
fn in_the_sandbox_any_file_and_password_succeed_for_a_year() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);

    let reply = upload(&server, &shop.token, b"not even a p12", "whatever");
    let c = &reply.data(201)["cert"];
    assert_eq!(object_keys(c), ["expiresAt", "nuis", "serial", "subject", "validFrom"]);
    assert_eq!(c["nuis"], common::SANDBOX_NUIS, "the NUIS found in the subject");
    assert_about_a_year_from_now(&c["expiresAt"]);

    let account = server.get("/api/v1/account", Some(&shop.token));
    assert_about_a_year_from_now(&account.data(200)["cert"]["expiresAt"]);
}

#[test]
fn a_sandbox_rule_does_not_leak_into_production() {
    let (server, shop) = shop();
    let reply = upload(&server, &shop.token, b"not even a p12", "whatever");
    reply.assert_invalid("certificate_file");
}

#[test]
fn an_oversize_certificate_upload_is_413() {
    let server = TestServer::start_with(|args| args.max_body_bytes = 4096);
    let partner = server.create_partner("Onboarding desk");
    let shop = register_company(&server, &partner, NUIS);
    let big = vec![b'x'; 16 * 1024];

    let as_json = json!({"certificate_file": base64(&big), "password": PASSWORD});
    server.post_json(UPLOAD, Some(&shop.token), &as_json).assert_error(413);

    let multipart = upload(&server, &shop.token, &big, PASSWORD);
    multipart.assert_error(413);
}
