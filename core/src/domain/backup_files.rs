//! What the names in a backup folder say of its backups. A copy taken before an upgrade is kept
//! before its `PRAGMA integrity_check` has run (the check of a large file takes many minutes and
//! the shop should not wait for it): a marker file beside it says so until the check passes; a
//! copy the check found damaged is renamed, so that nothing takes it for a backup.

/// The file a backup writes before it has its name.
pub const PARTIAL: &str = ".partial";
/// Beside a copy whose check has not passed yet (`NAME.db.unchecked`).
pub const UNCHECKED: &str = ".unchecked";
/// A copy the check found damaged is `NAME.db.damaged` (and its key file `NAME.db.damaged.key`).
pub const DAMAGED: &str = ".damaged";
/// Held shared by each backup writing an `arka-*` file in the folder, exclusively by the sweep of
/// leftovers.
pub const FOLDER_LOCK: &str = "arka-backup.lock";

/// Where a backup's check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Passed,
    /// Not run yet, under way, or cut short by a stop (it runs again at the next start).
    Pending,
}

impl Check {
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Passed => "passed",
            Check::Pending => "pending",
        }
    }
}

/// The check of the backup `file`, as the folder's `names` say it.
pub fn check_of(names: &[String], file: &str) -> Check {
    let marker = format!("{file}{UNCHECKED}");
    if names.contains(&marker) { Check::Pending } else { Check::Passed }
}

/// The copies of `names` the check found damaged, sorted.
pub fn damaged(names: &[String]) -> Vec<String> {
    let mut found: Vec<String> = names
        .iter()
        .filter(|n| n.starts_with("arka-") && n.ends_with(&format!(".db{DAMAGED}")))
        .cloned()
        .collect();
    found.sort();
    found
}

/// What a backup stopped midway (killed, power cut) leaves of an automatic or page backup,
/// `arka-*.db.partial`: no later backup has its name (names carry the time).
pub fn is_leftover(name: &str) -> bool {
    name.starts_with("arka-") && name.ends_with(&format!(".db{PARTIAL}"))
}

/// A backup named `file` writes a partial the sweep of leftovers would match: it holds the
/// folder's lock while it writes.
pub fn takes_folder_lock(file: &str) -> bool {
    is_leftover(&format!("{file}{PARTIAL}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_marker_beside_a_copy_says_its_check_is_pending_and_damaged_copies_are_named_so() {
        let folder = names(&[
            "arka-20261127-120000-before-upgrade.db",
            "arka-20261127-120000-before-upgrade.db.key",
            "arka-20261127-120000-before-upgrade.db.unchecked",
            "arka-20261126-020000-nightly.db",
            "arka-20261120-090000-before-upgrade.db.damaged",
            "arka-20261120-090000-before-upgrade.db.damaged.key",
            "mine.db.damaged",
        ]);
        assert_eq!(check_of(&folder, "arka-20261127-120000-before-upgrade.db"), Check::Pending);
        assert_eq!(check_of(&folder, "arka-20261126-020000-nightly.db"), Check::Passed);
        assert_eq!(damaged(&folder), ["arka-20261120-090000-before-upgrade.db.damaged"]);
    }

    #[test]
    fn only_the_partials_of_arka_named_backups_are_leftovers() {
        assert!(is_leftover("arka-20261127-030000-nightly.db.partial"));
        assert!(is_leftover("arka-20261127-031500.db.partial"));
        for other in
            ["arka-20261127-030000-nightly.db", "mine.db.partial", "arka.db.partial", "arka-x.db.partial.key"]
        {
            assert!(!is_leftover(other), "{other}");
        }
        assert!(takes_folder_lock("arka-20261127-030000-nightly.db"));
        assert!(!takes_folder_lock("mine.db"));
    }
}

/// The nightly check spread over nights, as the owner sees it: when the last whole round of it
/// passed, how far the round under way is, and damage it found (the table and the check's lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullCheck {
    pub last_full_pass: Option<chrono::DateTime<chrono::Utc>>,
    pub round_passed: usize,
    pub round_of: usize,
    pub damage: Option<(String, String)>,
}
