//! The Windows Firewall rule that lets the shop's tills reach Arka: inbound TCP on the port it
//! listens on, for `arka.exe` alone, on the private profile only (the shop's own network; a café's
//! public Wi-Fi the laptop joins stays closed). Built as `netsh` arguments by pure functions, so
//! what the installer asks Windows for is tested on every platform.

use std::ffi::OsString;
use std::path::Path;

/// The rule's name in Windows Defender Firewall: one rule, replaced on every install.
pub const RULE_NAME: &str = "Arka fiscal server";

/// `netsh` arguments adding the rule for `program` listening on `port`.
pub fn add_rule_args(port: u16, program: &Path) -> Vec<OsString> {
    let mut program_arg = OsString::from("program=");
    program_arg.push(program.as_os_str());
    let mut args: Vec<OsString> = [
        "advfirewall",
        "firewall",
        "add",
        "rule",
        &format!("name={RULE_NAME}"),
        "dir=in",
        "action=allow",
        "protocol=TCP",
        &format!("localport={port}"),
        "profile=private",
        "enable=yes",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    args.push(program_arg);
    args
}

/// `netsh` arguments removing the rule (every rule of that name).
pub fn delete_rule_args() -> Vec<OsString> {
    ["advfirewall", "firewall", "delete", "rule", &format!("name={RULE_NAME}")]
        .iter()
        .map(OsString::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_rule_opens_the_listening_port_inbound_for_arka_on_the_private_profile_only() {
        let args = text(&add_rule_args(8080, Path::new(r"C:\Program Files\Arka\arka.exe")));
        assert_eq!(&args[..4], ["advfirewall", "firewall", "add", "rule"]);
        for wanted in [
            "name=Arka fiscal server",
            "dir=in",
            "action=allow",
            "protocol=TCP",
            "localport=8080",
            "profile=private",
            r"program=C:\Program Files\Arka\arka.exe",
        ] {
            assert!(args.iter().any(|a| a == wanted), "{wanted} in {args:?}");
        }
        assert!(!args.iter().any(|a| a.contains("public") || a.contains("domain") || a == "profile=any"));
        assert_eq!(
            text(&delete_rule_args()),
            ["advfirewall", "firewall", "delete", "rule", "name=Arka fiscal server"]
        );
    }
}
