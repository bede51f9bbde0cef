//! The business runs on Europe/Tirane time; everything is stored in UTC and shown locally.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Europe::Tirane;

/// Where the rooms below the edge read the wall time: the server's one clock (`crate::clock`),
/// which a test moves forward instead of sleeping. Handed down from the start, as the store is.
#[derive(Clone)]
pub struct WallClock(Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>);

impl WallClock {
    /// The wall time as `read` tells it.
    pub fn new(read: impl Fn() -> DateTime<Utc> + Send + Sync + 'static) -> Self {
        WallClock(Arc::new(read))
    }

    pub fn utc(&self) -> DateTime<Utc> {
        (self.0)()
    }
}

/// `YYYY-MM-DD HH:MM:SS` in Tirane time, the spec's format for times shown to callers.
pub fn local_text(utc: DateTime<Utc>) -> String {
    utc.with_timezone(&Tirane).format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Reads a stored RFC 3339 time back.
pub fn parse_stored(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn shows_tirane_time_in_summer_and_winter() {
        let summer = Utc.with_ymd_and_hms(2026, 7, 1, 10, 0, 0).unwrap();
        let winter = Utc.with_ymd_and_hms(2026, 1, 1, 23, 30, 0).unwrap();
        assert_eq!(local_text(summer), "2026-07-01 12:00:00");
        assert_eq!(local_text(winter), "2026-01-02 00:30:00");
        assert_eq!(parse_stored("2026-07-01T10:00:00Z"), Some(summer));
    }

    #[test]
    fn a_wall_clock_tells_what_it_is_handed() {
        let noon = Utc.with_ymd_and_hms(2026, 7, 1, 10, 0, 0).unwrap();
        let clock = WallClock::new(move || noon);
        assert_eq!((clock.utc(), clock.clone().utc()), (noon, noon));
    }
}
