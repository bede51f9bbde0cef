//! The server's one clock, for wall time as for monotonic windows: the time documents, sessions,
//! codes and certificates are judged by (`utc`), and the rate limiters' budgets and intervals and
//! how long a health probe's answer stays fresh (`now`). A running server reads the system's
//! clocks through it; a test keeps a clone and moves both forward together instead of sleeping
//! until a certificate expires or a session idles out; what waits for a wall time (the nightly
//! backup at 03:00) wakes when a test moves it there. No flag or setting reaches it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

/// The system's monotonic clock, plus however far a test has moved it (shared by every clone).
#[derive(Debug, Clone, Default)]
pub struct Clock {
    ahead_nanos: Arc<AtomicU64>,
    /// Wakes `sleep_until` when a test moves the clock.
    moved: Arc<tokio::sync::Notify>,
}

impl Clock {
    pub fn now(&self) -> Instant {
        Instant::now() + Duration::from_nanos(self.ahead_nanos.load(Ordering::Relaxed))
    }

    /// The wall time (UTC), as far ahead of the system's as the monotonic time.
    pub fn utc(&self) -> DateTime<Utc> {
        let ahead = chrono::Duration::nanoseconds(
            i64::try_from(self.ahead_nanos.load(Ordering::Relaxed)).unwrap_or(i64::MAX),
        );
        Utc::now() + ahead
    }

    /// Moves this clock and every clone of it `by` forward.
    pub fn advance(&self, by: Duration) {
        let nanos = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        self.ahead_nanos.fetch_add(nanos, Ordering::Relaxed);
        self.moved.notify_waiters();
    }

    /// Waits until the wall time (`utc`) is `at`: the system's time passing, or a test moving
    /// this clock there.
    pub async fn sleep_until(&self, at: DateTime<Utc>) {
        loop {
            let moved = self.moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            let Ok(left) = (at - self.utc()).to_std() else { return };
            if left.is_zero() {
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep(left) => {}
                _ = moved => {}
            }
        }
    }

    /// The time since `earlier` (a reading of this clock).
    pub fn since(&self, earlier: Instant) -> Duration {
        self.now().saturating_duration_since(earlier)
    }
}

impl governor::clock::Clock for Clock {
    type Instant = Instant;

    fn now(&self) -> Instant {
        Clock::now(self)
    }
}

impl governor::clock::ReasonablyRealtime for Clock {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_advance_moves_every_clone_and_never_goes_back() {
        let clock = Clock::default();
        let seen = clock.clone();
        let before = seen.now();
        clock.advance(Duration::from_secs(30));
        assert!(seen.since(before) >= Duration::from_secs(30));
        assert!(Clock::default().now() < seen.now(), "another clock keeps the system's time");
    }

    #[tokio::test]
    async fn a_wait_for_a_wall_time_ends_when_the_clock_is_moved_there() {
        let clock = Clock::default();
        let at = clock.utc() + chrono::Duration::hours(5);
        let waiting = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep_until(at).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "five hours are not up");
        clock.advance(Duration::from_secs(5 * 3600));
        tokio::time::timeout(Duration::from_secs(10), waiting).await.unwrap().unwrap();
        assert!(clock.utc() >= at);
    }

    #[test]
    fn the_wall_time_moves_with_the_monotonic_time() {
        let clock = Clock::default();
        let before = clock.utc();
        clock.advance(Duration::from_secs(3600));
        let after = clock.utc();
        assert!(after - before >= chrono::Duration::hours(1), "{before} then {after}");
        assert!(Clock::default().utc() < after, "another clock keeps the system's wall time");
    }
}
