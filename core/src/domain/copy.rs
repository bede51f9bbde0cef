//! The off-box copy as the owner and the monitoring see it: for each place it goes, how far
//! behind the shop it is, when it last received something, whether its first full copy is still
//! on its way, the last failure, and the last restore of it that was verified.

use chrono::{DateTime, Utc};

/// A copy further behind than this is shown as behind (the page's banner, `/healthz`): the issue
/// asks for at most a minute of sales while the network is up.
pub const BEHIND_AFTER_SECONDS: i64 = 60;

/// One place the copy goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetStatus {
    /// `folder` or `s3`.
    pub target: &'static str,
    /// When the oldest sale the place does not hold yet was committed; None when it holds all.
    pub missing_since: Option<DateTime<Utc>>,
    /// When it last took an object.
    pub last_sent_at: Option<DateTime<Utc>>,
    /// A full copy (a base) on its way: parts sent of parts.
    pub base: Option<(u64, u64)>,
    /// It holds a complete copy to restore from.
    pub restorable: bool,
    /// Why the last attempt failed, while it keeps failing (`full`, `unreachable`, `denied`, ...),
    /// and the whole text for the log.
    pub failing: Option<(&'static str, String)>,
    pub verified: Option<Verified>,
    /// Bytes sent to it since the start.
    pub sent_bytes: u64,
}

/// A restore of the copy that was made and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub at: DateTime<Utc>,
    /// The newest sale in it was then.
    pub through: DateTime<Utc>,
    pub invoices: i64,
    /// `passed`, or what was wrong.
    pub outcome: Result<(), String>,
}

/// The copy as a whole: off (not set up), not running (set up, but why not), or its places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyStatus {
    Off,
    NotRunning(String),
    Running(Vec<TargetStatus>),
}

impl TargetStatus {
    /// Seconds behind the shop at `now`: since the oldest sale it does not hold; 0 when it holds
    /// every one.
    pub fn lag_seconds(&self, now: DateTime<Utc>) -> i64 {
        self.missing_since.map_or(0, |since| (now - since).num_seconds().max(0))
    }

    /// Too far behind at `now`, or without a complete copy yet.
    pub fn behind(&self, now: DateTime<Utc>) -> bool {
        self.lag_seconds(now) > BEHIND_AFTER_SECONDS || !self.restorable
    }
}

impl CopyStatus {
    /// Seconds the furthest place is behind at `now`; None when the copy is off or not running.
    pub fn lag_seconds(&self, now: DateTime<Utc>) -> Option<i64> {
        match self {
            CopyStatus::Off | CopyStatus::NotRunning(_) => None,
            CopyStatus::Running(targets) => {
                Some(targets.iter().map(|t| t.lag_seconds(now)).max().unwrap_or(0))
            }
        }
    }

    /// Whether the owner should be told (a banner) at `now`: a copy set up that is not running,
    /// or a place too far behind.
    pub fn behind(&self, now: DateTime<Utc>) -> bool {
        match self {
            CopyStatus::Off => false,
            CopyStatus::NotRunning(_) => true,
            CopyStatus::Running(targets) => targets.iter().any(|t| t.behind(now)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-07T10:00:00Z").unwrap().to_utc()
    }

    fn place(lag_seconds: i64, restorable: bool) -> TargetStatus {
        TargetStatus {
            target: "s3",
            missing_since: (lag_seconds > 0).then(|| now() - chrono::Duration::seconds(lag_seconds)),
            last_sent_at: None,
            base: None,
            restorable,
            failing: None,
            verified: None,
            sent_bytes: 0,
        }
    }

    #[test]
    fn a_copy_is_behind_past_a_minute_or_without_a_whole_copy() {
        for (lag, restorable, behind) in
            [(0, true, false), (60, true, false), (61, true, true), (0, false, true), (3600, false, true)]
        {
            assert_eq!(place(lag, restorable).behind(now()), behind, "{lag} {restorable}");
            assert_eq!(place(lag, restorable).lag_seconds(now()), lag);
        }
        assert!(!CopyStatus::Off.behind(now()));
        assert_eq!(CopyStatus::Off.lag_seconds(now()), None);
        assert!(CopyStatus::NotRunning("no key".into()).behind(now()));
        let two = CopyStatus::Running(vec![place(5, true), place(70, true)]);
        assert_eq!(two.lag_seconds(now()), Some(70));
        assert!(two.behind(now()));
        assert!(!CopyStatus::Running(vec![place(5, true)]).behind(now()));
        let later = now() + chrono::Duration::seconds(56);
        assert!(CopyStatus::Running(vec![place(5, true)]).behind(later), "a minute later it is behind");
    }
}
