//! The README's walk-through "From nothing to an on-boarded sandbox user", run exactly as it is
//! written: its shell block (curl and jq, as a reader runs it) against a sandbox server, from
//! registration to a cash sale the simulator fiscalized, by the cashier and by the owner.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::TestServer;
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
            "{tool} is needed (Debian: apt-get install {tool}); .ci/run installs it"
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
