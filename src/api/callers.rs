//! The callers of the tokens seen lately, so that a POS issuing receipt after receipt is not
//! looked up in the database on each request. An entry is used only while nothing was written
//! to the tables it was read from (`Store::accounts_version`), so a revoked token, a changed
//! company or a moved user is seen by the very next request; and only for `KEPT_FOR`, so a
//! change made by another process (the CLI while the server runs) is seen soon too. Unknown
//! tokens are never kept: guessing fills nothing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::auth::Identity;

/// How long an entry is used at most, whatever the version says.
const KEPT_FOR: Duration = Duration::from_secs(2);

/// Entries kept at most; past it the cache starts again empty.
const MAX_ENTRIES: usize = 4096;

struct Entry {
    identity: Identity,
    version: u64,
    read_at: Instant,
}

#[derive(Default)]
pub struct Callers {
    /// By the token's hash, never the token.
    entries: Mutex<HashMap<String, Entry>>,
}

impl Callers {
    /// The caller of the token with `hash`, when it was read at the accounts' `version`
    /// (taken now) less than `KEPT_FOR` ago.
    pub fn get(&self, hash: &str, version: u64) -> Option<Identity> {
        let entries = self.entries.lock().ok()?;
        let entry = entries.get(hash)?;
        (entry.version == version && entry.read_at.elapsed() < KEPT_FOR).then(|| entry.identity.clone())
    }

    /// Keeps `identity` as read from the database at `version`, taken before the read began.
    pub fn keep(&self, hash: String, identity: Identity, version: u64) {
        if matches!(identity, Identity::Anonymous(_)) {
            return;
        }
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(hash, Entry { identity, version, read_at: Instant::now() });
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};

    use super::*;

    #[test]
    fn an_entry_serves_only_its_version_and_unknown_tokens_are_not_kept() {
        let callers = Callers::default();
        callers.keep("a".into(), Identity::Partner(7), 3);
        assert!(matches!(callers.get("a", 3), Some(Identity::Partner(7))));
        assert!(callers.get("a", 4).is_none(), "a write to the accounts since the read");
        assert!(callers.get("b", 3).is_none());
        callers.keep("c".into(), Identity::Anonymous(IpAddr::V4(Ipv4Addr::LOCALHOST)), 3);
        assert!(callers.get("c", 3).is_none());
    }

    #[test]
    fn the_cache_is_bounded() {
        let callers = Callers::default();
        for i in 0..MAX_ENTRIES + 10 {
            callers.keep(format!("h{i}"), Identity::Partner(1), 0);
        }
        assert!(callers.entries.lock().unwrap().len() <= MAX_ENTRIES);
    }
}
