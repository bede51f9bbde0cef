//! The owner's sign-in at the HQ, throttled per account and address: a few wrong tokens are
//! free, then each further one locks that name from that address for a growing delay (1 s,
//! doubling, at most 15 minutes); a right one clears it. The same policy as a shop's sign-in
//! (issue 41), kept here until the two are one.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong tokens allowed before the first delay.
const FREE_TRIES: u32 = 5;
const FIRST_DELAY: Duration = Duration::from_secs(1);
const MAX_DELAY: Duration = Duration::from_secs(15 * 60);
/// Pairs remembered at most; the idle ones are forgotten first.
const MAX_PAIRS: usize = 10_000;
/// A pair without a failure for this long starts over.
const FORGET_AFTER: Duration = Duration::from_secs(60 * 60);

/// The delay after the `failures`-th wrong token in a row: none for the free tries, then 1 s
/// doubling, never above 15 minutes.
pub fn delay_after(failures: u32) -> Duration {
    if failures <= FREE_TRIES {
        return Duration::ZERO;
    }
    let doublings = (failures - FREE_TRIES - 1).min(20);
    (FIRST_DELAY * 2u32.pow(doublings)).min(MAX_DELAY)
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
    locked_until: Instant,
}

/// The sign-in's failures by (name, address).
#[derive(Debug, Default)]
pub struct SignInThrottle {
    pairs: Mutex<HashMap<(String, IpAddr), Failures>>,
}

impl SignInThrottle {
    /// How long `name` from `address` must still wait before trying again, if it must.
    pub fn wait(&self, name: &str, address: IpAddr, now: Instant) -> Option<Duration> {
        let pairs = self.pairs.lock().ok()?;
        let failures = pairs.get(&(name.to_string(), address))?;
        (failures.locked_until > now).then(|| failures.locked_until - now)
    }

    /// A wrong token: counted, and the delay it starts (zero for a free try).
    pub fn failed(&self, name: &str, address: IpAddr, now: Instant) -> Duration {
        let Ok(mut pairs) = self.pairs.lock() else { return MAX_DELAY };
        if pairs.len() >= MAX_PAIRS {
            pairs.retain(|_, f| now.saturating_duration_since(f.last) < FORGET_AFTER);
        }
        let failures = pairs.entry((name.to_string(), address)).or_insert(Failures {
            count: 0,
            last: now,
            locked_until: now,
        });
        if now.saturating_duration_since(failures.last) >= FORGET_AFTER {
            failures.count = 0;
        }
        failures.count = failures.count.saturating_add(1);
        failures.last = now;
        let delay = delay_after(failures.count);
        failures.locked_until = now + delay;
        delay
    }

    /// A right token: the pair starts over.
    pub fn succeeded(&self, name: &str, address: IpAddr) {
        if let Ok(mut pairs) = self.pairs.lock() {
            pairs.remove(&(name.to_string(), address));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_tries_are_free_then_the_delay_doubles_up_to_fifteen_minutes() {
        let delays: Vec<u64> = (1..=18).map(|n| delay_after(n).as_secs()).collect();
        assert_eq!(delays, [0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
        assert_eq!(delay_after(u32::MAX), MAX_DELAY);
    }

    #[test]
    fn a_pair_is_locked_after_its_free_tries_and_others_are_not() {
        let throttle = SignInThrottle::default();
        let (here, there): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let now = Instant::now();
        for _ in 0..5 {
            assert_eq!(throttle.failed("ana", here, now), Duration::ZERO);
        }
        assert_eq!(throttle.wait("ana", here, now), None);
        assert_eq!(throttle.failed("ana", here, now), FIRST_DELAY);
        assert_eq!(throttle.wait("ana", here, now), Some(FIRST_DELAY));
        assert_eq!(throttle.wait("ana", there, now), None, "another address");
        assert_eq!(throttle.wait("ben", here, now), None, "another account");
        assert_eq!(throttle.wait("ana", here, now + FIRST_DELAY), None, "the delay passes");
        throttle.succeeded("ana", here);
        assert_eq!(throttle.failed("ana", here, now), Duration::ZERO, "a right token starts over");
    }
}
