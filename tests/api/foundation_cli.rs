//! The shop owner's side: the `arka` command line, and a server that restarts without losing
//! anything.

use crate::common;
use crate::common::{
    Part, TestServer, arka, arka_ok, bank_account_body, branch_body, make_certificate, printed_value,
    register_company, registration_body,
};
use serde_json::json;

#[test]
fn arka_tells_its_version() {
    let out = arka_ok(&["--version"]);
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
    assert!(out.starts_with("arka"), "{out}");
}

#[test]
fn help_lists_the_commands_and_serve_help_every_setting() {
    let help = arka_ok(&["--help"]);
    for command in ["serve", "migrate", "apps", "partners"] {
        assert!(help.contains(command), "--help mentions {command}: {help}");
    }

    let serve = arka_ok(&["serve", "--help"]);
    for setting in [
        "--listen",
        "ARKA_LISTEN",
        "0.0.0.0:8080",
        "--data-dir",
        "ARKA_DATA_DIR",
        "./arka-data",
        "--sandbox",
        "ARKA_SANDBOX",
        "--cis-url",
        "ARKA_CIS_URL",
        "--log-format",
        "ARKA_LOG_FORMAT",
        "--max-body-bytes",
        "--limits",
    ] {
        assert!(serve.contains(setting), "serve --help mentions {setting}: {serve}");
    }

    for sub in [["apps", "create"], ["partners", "create"]] {
        let help = arka_ok(&[sub[0], sub[1], "--help"]);
        assert!(help.contains("--name") && help.contains("--data-dir"), "{help}");
    }
}

#[test]
fn an_unknown_command_fails_with_a_message() {
    let out = arka(&["sell-everything"]);
    assert!(!out.status.success());
    assert!(!out.stderr.is_empty());
}

#[test]
fn migrate_creates_the_database_and_can_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("shop-data");
    let data = data_dir.to_str().unwrap();

    arka_ok(&["migrate", "--data-dir", data]);
    assert!(data_dir.join("arka.db").is_file(), "arka.db is created");
    arka_ok(&["migrate", "--data-dir", data]);
}

#[test]
fn a_partner_created_on_the_command_line_registers_shops() {
    let server = TestServer::start();
    let data_dir = server.data_dir();
    let data = data_dir.to_str().unwrap();

    let printed = arka_ok(&["partners", "create", "--name", "Onboarding desk", "--data-dir", data]);
    let token = printed_value(&printed, "Authorization: Bearer");
    assert!(printed.contains("only"), "the owner is told it is shown once: {printed}");

    let reply = server.post_json(
        "/api/v1/register",
        Some(&token),
        &registration_body("L41323036D", "Dyqani", "a@d.al"),
    );
    reply.data(201);

    // Only its hash is kept.
    let db = std::fs::read(data_dir.join("arka.db")).unwrap();
    let wal = std::fs::read(data_dir.join("arka.db-wal")).unwrap_or_default();
    assert!(
        !common::contains_bytes(&db, token.as_bytes()) && !common::contains_bytes(&wal, token.as_bytes())
    );

    // A second partner gets a different token.
    let other = arka_ok(&["partners", "create", "--name", "Second desk", "--data-dir", data]);
    assert_ne!(printed_value(&other, "Authorization: Bearer"), token);
}

#[test]
fn an_application_created_on_the_command_line_gets_an_id_and_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let printed = arka_ok(&["apps", "create", "--name", "Kasa POS 3", "--data-dir", data]);
    let id = printed_value(&printed, "X-Client-Id:");
    let secret = printed_value(&printed, "X-Client-Secret:");
    assert!(!id.is_empty() && !secret.is_empty() && id != secret, "{printed}");

    let db = std::fs::read(dir.path().join("arka.db")).unwrap();
    let wal = std::fs::read(dir.path().join("arka.db-wal")).unwrap_or_default();
    assert!(
        !common::contains_bytes(&db, secret.as_bytes()) && !common::contains_bytes(&wal, secret.as_bytes())
    );
}

#[test]
fn a_restart_keeps_every_shop_detail() {
    let mut server = TestServer::start();
    let partner = server.create_partner("Onboarding desk");
    let shop = register_company(&server, &partner, "L41323036D");
    let branch = server.post_json(
        "/api/v1/on-boarding/branch",
        Some(&shop.token),
        &branch_body("Dyqani Blloku", "ab123cd456"),
    );
    let branch_id = branch.data(201)["branch"]["id"].as_i64().unwrap();
    let cashier = server.post_json(
        "/api/v1/on-boarding/user",
        Some(&shop.token),
        &json!({"name": "Arben", "email": "arben@shop.al", "branchId": branch_id, "operatorCode": "op123op123"}),
    );
    let cashier_token = cashier.data(201)["user"]["token"].as_str().unwrap().to_string();
    let account = server.post_json(
        "/api/v1/on-boarding/bank-account",
        Some(&shop.token),
        &bank_account_body("BKT lekë"),
    );
    let bank_account = account.data(201)["bankAccount"].clone();
    let cert = make_certificate("/CN=L41323036D/O=Dyqani", "pw");
    let uploaded = server.post_multipart(
        "/api/v1/on-boarding/certificate",
        Some(&shop.token),
        &[Part::File("certificate_file", "shop.p12", &cert.modern_p12), Part::Text("password", "pw")],
    );
    let expires_at = uploaded.data(201)["cert"]["expiresAt"].clone();
    let owner_before = server.get("/api/v1/account", Some(&shop.token)).data(200).clone();
    let cashier_before = server.get("/api/v1/account", Some(&cashier_token)).data(200).clone();

    server.restart();

    assert_eq!(server.get("/api/v1/account", Some(&shop.token)).data(200), &owner_before);
    let cashier_after = server.get("/api/v1/account", Some(&cashier_token));
    let cashier_after = cashier_after.data(200);
    assert_eq!(cashier_after, &cashier_before);
    assert_eq!(cashier_after["user"]["operatorCode"], "op123op123");
    assert_eq!(cashier_after["branch"]["businessUnitCode"], "ab123cd456");
    assert_eq!(cashier_after["cert"]["expiresAt"], expires_at);

    let list = server.get("/api/v1/bank-accounts", Some(&shop.token));
    let list = list.data(200);
    assert_eq!(list["pagination"]["total"], 1);
    assert_eq!(list["items"][0]["id"], bank_account["id"]);
    assert_eq!(list["items"][0]["iban"], bank_account["iban"]);

    // The unit is still there to update, and the partner still registers shops.
    server
        .post_json(
            &format!("/api/v1/on-boarding/branch/{branch_id}"),
            Some(&shop.token),
            &branch_body("Dyqani Blloku", "ab123cd456"),
        )
        .data(200);
    register_company(&server, &partner, "M01234567A");
    // The e-mail is still taken.
    server
        .post_json(
            "/api/v1/on-boarding/user",
            Some(&shop.token),
            &json!({"name": "Again", "email": "arben@shop.al", "branchId": branch_id, "operatorCode": "op123op123"}),
        )
        .assert_error(200);
}

#[test]
fn a_sandbox_restart_keeps_the_one_sandbox_company() {
    let mut server = TestServer::sandbox();
    let before = common::register_sandbox(&server);

    server.restart();

    server.get("/api/v1/account", Some(&before.token)).data(200);
    let after = common::register_sandbox(&server);
    assert_eq!(after.company_id, before.company_id, "the sandbox company is not made twice");
}

/// `arka serve --sandbox` started the way a shop owner does by hand: a shell whose umask is
/// 022, stderr into a log file. Stopped (killed) when dropped.
struct ServedByHand {
    child: std::process::Child,
    data_dir: std::path::PathBuf,
    log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl ServedByHand {
    fn start() -> ServedByHand {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().join("arka-data");
        let log = dir.path().join("arka.log");
        let mut command = std::process::Command::new("sh");
        command
            .arg("-c")
            .arg("umask 022 && exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_arka"))
            .args(["serve", "--sandbox", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(&data_dir)
            .env("RUST_LOG", "info")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        for (key, _) in std::env::vars() {
            if key.starts_with("ARKA_") {
                command.env_remove(key);
            }
        }
        let served = ServedByHand { child: command.spawn().unwrap(), data_dir, log, _dir: dir };
        common::eventually("arka serve is listening", std::time::Duration::from_secs(30), || {
            served.log_text().contains("arka is listening")
        });
        served
    }

    fn log_text(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.log).unwrap_or_default()).into_owned()
    }
}

impl Drop for ServedByHand {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(unix)]
#[test]
fn served_by_hand_under_umask_022_its_data_dir_and_files_are_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let served = ServedByHand::start();
    let mode = |name: &str| {
        let path = served.data_dir.join(name);
        std::fs::metadata(&path).unwrap_or_else(|e| panic!("{name}: {e}")).permissions().mode() & 0o777
    };
    assert_eq!(mode(""), 0o700, "the data dir");
    for file in ["arka.db", "arka.db-wal", "arka.db-shm", "arka.key"] {
        assert_eq!(mode(file), 0o600, "{file}");
    }
    let others: Vec<String> = std::fs::read_dir(&served.data_dir)
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.metadata().unwrap().permissions().mode() & 0o077 != 0)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(others.is_empty(), "files others can read: {others:?}");
}

#[test]
fn logs_written_to_a_file_carry_no_colour_codes() {
    let served = ServedByHand::start();
    let log = served.log_text();
    assert!(log.contains("INFO"), "{log}");
    assert!(!log.contains("\x1b["), "ANSI escape codes in the log file: {log:?}");
}
