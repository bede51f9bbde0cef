//! The README's walk-through "From nothing to an on-boarded sandbox user", run exactly as it is
//! written: its shell block (curl and jq, as a reader runs it) against a sandbox server, from
//! registration to a cash sale the simulator fiscalized, by the cashier and by the owner.

use std::process::Command;

use crate::common;
use crate::common::TestServer;
use serde_json::Value;

/// The first `sh` block after the walk-through's heading.
fn walk_through() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section =
        &readme[readme.find("## From nothing to an on-boarded sandbox user").expect("the heading")..];
    let start = section.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let end = start + section[start..].find("```").expect("the block's end");
    section[start..end].to_string()
}

#[test]
fn the_readme_walk_through_runs_as_written_and_ends_with_fiscalized_cash_sales() {
    for tool in ["bash", "curl", "jq"] {
        let found = Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().unwrap();
        assert!(
            found.status.success(),
            "{tool} is missing: it comes with Debian's {tool}; ./test installs every tool the tests use"
        );
    }
    let script = walk_through();
    assert!(script.starts_with("A=http://127.0.0.1:8080/api/v1\n"), "{script}");
    let server = TestServer::sandbox();
    let script = script.replacen("http://127.0.0.1:8080", &server.base_url(), 1);
    let dir = tempfile::tempdir().unwrap();

    let run = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the walk-through failed: {}\n{stdout}",
        String::from_utf8_lossy(&run.stderr)
    );

    // Every answer it printed (curl prints them back to back) is a success.
    let answers: Vec<Value> =
        serde_json::Deserializer::from_str(&stdout).into_iter::<Value>().map(Result::unwrap).collect();
    assert_eq!(answers.len(), 11, "one answer per request printed: {stdout}");
    for answer in &answers {
        assert_eq!(answer["status"], true, "{answer}");
    }
    let sales: Vec<&Value> = answers.iter().filter_map(|a| a["data"].get("invoice")).collect();
    assert_eq!(sales.len(), 2, "the cashier's sale and the owner's");
    for sale in &sales {
        assert!(sale["fic"].as_str().is_some_and(|fic| !fic.is_empty()), "fiscalized at once: {sale}");
        assert_eq!(sale["businessCode"], "ab123cd456");
    }
    assert_ne!(sales[0]["operatorCode"], sales[1]["operatorCode"]);
    assert_eq!(sales[0]["tcrCode"], sales[1]["tcrCode"], "the one till of the unit");
    let receipt = std::fs::read(dir.path().join("receipt.pdf")).unwrap();
    assert!(receipt.starts_with(b"%PDF-"), "the receipt was printed");

    // The registering user ended up in the unit of step 3, able to sell.
    let owner = answers[0]["data"]["api_token"].as_str().unwrap();
    let account = server.get("/api/v1/account", Some(owner));
    let account = account.data(200);
    assert_eq!(account["branch"]["businessUnitCode"], "ab123cd456");
    assert_eq!(
        account["branch"]["id"], answers[0]["data"]["branch"]["id"],
        "step 3 filled in the owner's unit"
    );
    assert_eq!(account["user"]["operatorCode"], "an123an123");
    assert_eq!(account["user"]["fiscalTcrCode"], sales[0]["tcrCode"]);
}

/// The first `sh` block after "Run the tests" in the README's two commands.
fn readme_test_command() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = &readme[readme.find("Run the tests").expect("the README says how to run the tests")..];
    let start = section.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let end = start + section[start..].find("```").expect("the block's end");
    section[start..end].trim().to_string()
}

#[test]
fn the_readmes_test_command_is_what_ci_runs_and_its_scripts_pass_shellcheck() {
    assert_eq!(readme_test_command(), "./test");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ci = std::fs::read_to_string(repo.join(".ci/run")).unwrap();
    let commands: Vec<&str> =
        ci.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert_eq!(commands, ["set -euo pipefail", "cd \"$(dirname \"$0\")/..\"", "./test"], "{ci}");
    let scripts =
        ["test", ".ci/run", ".ci/ubl-schema", ".ci/postgres", "tests/fixtures/cis/check-request.sh"];
    let out = common::oracle(Command::new("shellcheck").args(scripts).current_dir(repo), "shellcheck");
    assert!(out.status.success(), "shellcheck: {}", String::from_utf8_lossy(&out.stdout));
}

/// A folder of stand-ins for the programs `./test` calls; each records its arguments in `log`.
fn stand_ins(dir: &std::path::Path, uid: u32) -> std::path::PathBuf {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("log");
    let recorder = |name: &str, status: u8| {
        let path = bin.join(name);
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho \"{name} $*\" >> '{}'\nexit {status}\n", log.display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    for name in ["apt-get", "cargo", "mdbook", "npm"] {
        recorder(name, 0);
    }
    // Nothing is installed: dpkg and pip know of no package.
    recorder("dpkg", 1);
    recorder("python3", 1);
    // Except `python3 -m venv DIR`, which makes DIR/bin/pip: a recorder too.
    std::fs::write(
        bin.join("python3"),
        format!(
            "#!/bin/sh\necho \"python3 $*\" >> '{log}'\nif [ \"$1 $2\" = \"-m venv\" ]; then mkdir -p \"$3/bin\"; \
             printf '#!/bin/sh\\necho \"pip $*\" >> %s\\n' \"'{log}'\" > \"$3/bin/pip\"; chmod 755 \"$3/bin/pip\"; exit 0; fi\nexit 1\n",
            log = log.display()
        ),
    )
    .unwrap();
    std::fs::write(bin.join("id"), format!("#!/bin/sh\necho {uid}\n")).unwrap();
    std::fs::write(
        bin.join("sudo"),
        format!("#!/bin/sh\necho \"sudo $*\" >> '{}'\nexec \"$@\"\n", log.display()),
    )
    .unwrap();
    for name in ["id", "sudo"] {
        std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for name in ["bash", "env", "dirname", "grep", "mkdir", "chmod"] {
        let real =
            ["/usr/bin", "/bin"].iter().map(|d| std::path::Path::new(d).join(name)).find(|p| p.exists());
        symlink(real.unwrap_or_else(|| panic!("{name} on this machine")), bin.join(name)).unwrap();
    }
    bin
}

#[test]
fn the_test_command_installs_what_is_missing_through_sudo_fetches_the_schema_builds_the_book_then_runs_cargo_test()
 {
    for (uid, sudo) in [(1000, "sudo "), (0, "")] {
        let dir = tempfile::tempdir().unwrap();
        let checkout = dir.path().join("arka");
        std::fs::create_dir_all(checkout.join(".ci")).unwrap();
        std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/test"), checkout.join("test")).unwrap();
        let log = dir.path().join("log");
        std::fs::write(
            checkout.join(".ci/ubl-schema"),
            format!("echo \"ubl-schema\" >> '{}'\n", log.display()),
        )
        .unwrap();
        // The throwaway PostgreSQL cluster is sourced (it stops when ./test exits).
        std::fs::write(checkout.join(".ci/postgres"), format!("echo \"postgres\" >> '{}'\n", log.display()))
            .unwrap();
        let bin = stand_ins(dir.path(), uid);

        let out = Command::new(bin.join("bash"))
            .arg(checkout.join("test"))
            .args(["invoices::", "--", "--nocapture"])
            .env_clear()
            .env("PATH", &bin)
            .output()
            .unwrap();
        assert!(out.status.success(), "./test: {}", String::from_utf8_lossy(&out.stderr));
        let calls = std::fs::read_to_string(&log).unwrap();
        let calls: Vec<&str> = calls.lines().collect();
        let packages = "xmlsec1 libxml2-utils poppler-utils zbar-tools openssl sqlite3 libssl-dev pkg-config gcc curl \
                        jq shellcheck systemd chromium chromium-driver python3-pip python3-venv postgresql";
        let mut expected = vec![];
        if !sudo.is_empty() {
            expected.push("sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq".to_string());
        }
        expected.push("apt-get update -qq".to_string());
        if !sudo.is_empty() {
            expected
                .push(format!("sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq {packages}"));
        }
        expected.push(format!("apt-get install -y -qq {packages}"));
        expected.push("ubl-schema".to_string());
        expected.push(
            "npm install --prefix target/axe --no-save --no-audit --no-fund axe-core@4.14.1".to_string(),
        );
        expected.push("pip install --quiet moto[s3,server]==5.2.5".to_string());
        // mdbook answers no version, so the one the book is built with is installed first.
        expected.push("mdbook --version".to_string());
        expected.push("cargo install mdbook --version 0.5.4 --locked --no-default-features".to_string());
        expected.push("mdbook build docs".to_string());
        expected.push("postgres".to_string());
        expected.push("cargo test --locked invoices:: -- --nocapture".to_string());
        let checks: Vec<&str> =
            calls.iter().copied().filter(|c| !c.starts_with("dpkg") && !c.starts_with("python3")).collect();
        assert_eq!(checks, expected, "uid {uid}");
    }
}
