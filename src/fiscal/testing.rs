//! What the fiscal unit tests share: the CIS test vectors (tests/fixtures/cis), the schemas Arka
//! ships (assets/cis), and the outside tools that judge what Arka writes. A missing tool fails the
//! test rather than skipping it: `./test` installs every one.

use std::path::PathBuf;
use std::process::{Command, Output};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The published and generated vectors (see their README.md).
pub(crate) fn testvectors() -> PathBuf {
    manifest().join("tests/fixtures/cis/testvectors")
}

/// `check-request.sh`, the two outside judges of a signed request in one script.
pub(crate) fn check_request_script() -> PathBuf {
    manifest().join("tests/fixtures/cis/check-request.sh")
}

/// The tax administration's schemas, as Arka ships them.
pub(crate) fn schemas() -> PathBuf {
    manifest().join("assets/cis")
}

/// Runs an outside tool (from Debian's `package`), failing the test when it cannot start.
pub(crate) fn outside_tool(command: &mut Command, package: &str) -> Output {
    let program = command.get_program().to_string_lossy().into_owned();
    command.output().unwrap_or_else(|e| {
        panic!("{program} did not run ({e}): it comes with Debian's {package}; ./test installs every tool the tests use")
    })
}
