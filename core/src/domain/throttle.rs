//! Guesses at a secret (a password, the setup code, a one-time reset code) slowed down per
//! account and address pair, with delays that grow with each failure (OWASP's Authentication
//! Cheat Sheet: throttle rather than lock, and per pair, so that a stranger who knows the owner's
//! e-mail slows only their own address and never locks the owner out of theirs).
//!
//! A pair's first `FREE_FAILURES` failures cost nothing (people mistype); after that each try
//! waits for the one before: 1 s after the third failure, then 2, 4, 8 … up to `LONGEST_DELAY`.
//! At full speed that is `TRIES_IN_FIRST_HOUR` tries in the first hour from one address, then 4 an
//! hour. A success forgets the pair; so does a day without a failure.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Failures of a pair that cost no wait.
pub const FREE_FAILURES: u32 = 3;
/// The wait after the first failure past the free ones; each further failure doubles it.
pub const FIRST_DELAY: Duration = Duration::from_secs(1);
/// The longest wait between two tries of a pair.
pub const LONGEST_DELAY: Duration = Duration::from_secs(15 * 60);
/// A pair without a failure for this long starts afresh.
pub const FORGET_AFTER: Duration = Duration::from_secs(24 * 60 * 60);
/// The tries one pair gets in its first hour at full speed (the schedule above, counted by the
/// unit test `an_hour_at_full_speed_gets_the_stated_tries`).
pub const TRIES_IN_FIRST_HOUR: u32 = 15;
/// Pairs kept at most: past it, pairs quiet for `FORGET_AFTER` go first, then the quietest.
pub const MAX_PAIRS: usize = 10_000;

/// The wait a pair owes after `failures` failures in a row.
pub fn delay_after(failures: u32) -> Duration {
    if failures < FREE_FAILURES {
        return Duration::ZERO;
    }
    let doublings = failures - FREE_FAILURES;
    // 2^10 s is past the longest delay already: no need to count higher.
    let delay = FIRST_DELAY.saturating_mul(1 << doublings.min(10));
    delay.min(LONGEST_DELAY)
}

/// What is guessed at: an account (its e-mail, any case: its password or a reset code for it),
/// or the setup code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret<'a> {
    Account(&'a str),
    SetupCode,
}

/// The key of a secret and the address guessing at it.
pub fn pair(secret: Secret, address: IpAddr) -> String {
    let address = address.to_canonical();
    match secret {
        Secret::Account(email) => format!("a:{}|{address}", email.trim().to_lowercase()),
        Secret::SetupCode => format!("setup|{address}"),
    }
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
}

/// The failures of every pair, in memory: a restart (which only the box's owner can cause)
/// forgets them.
#[derive(Debug, Default)]
pub struct Throttle {
    pairs: HashMap<String, Failures>,
}

impl Throttle {
    /// How long `pair` must still wait before its next try, if it must.
    pub fn wait(&self, pair: &str, now: Instant) -> Option<Duration> {
        let failures = self.pairs.get(pair)?;
        let since = now.saturating_duration_since(failures.last);
        if since >= FORGET_AFTER {
            return None;
        }
        let owed = delay_after(failures.count);
        (since < owed).then(|| owed - since)
    }

    /// Counts a failure of `pair`; the wait it now owes before its next try, if any.
    pub fn failed(&mut self, pair: String, now: Instant) -> Option<Duration> {
        if self.pairs.len() >= MAX_PAIRS && !self.pairs.contains_key(&pair) {
            self.make_room(now);
        }
        let entry = self.pairs.entry(pair).or_insert(Failures { count: 0, last: now });
        if now.saturating_duration_since(entry.last) >= FORGET_AFTER {
            entry.count = 0;
        }
        entry.count = entry.count.saturating_add(1);
        entry.last = now;
        let owed = delay_after(entry.count);
        (!owed.is_zero()).then_some(owed)
    }

    /// A right guess: the pair starts afresh.
    pub fn succeeded(&mut self, pair: &str) {
        self.pairs.remove(pair);
    }

    /// Every pair of the account (its password was just set anew: the owner's reset).
    pub fn forget_account(&mut self, email: &str) {
        let prefix = format!("a:{}|", email.trim().to_lowercase());
        self.pairs.retain(|key, _| !key.starts_with(&prefix));
    }

    fn make_room(&mut self, now: Instant) {
        self.pairs.retain(|_, f| now.saturating_duration_since(f.last) < FORGET_AFTER);
        if self.pairs.len() < MAX_PAIRS {
            return;
        }
        // Full of pairs guessing now: the quietest goes, the one whose wait is the least worth.
        let quietest = self.pairs.iter().min_by_key(|(_, f)| f.last).map(|(key, _)| key.clone());
        if let Some(key) = quietest {
            self.pairs.remove(&key);
        }
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn the_delays_grow_from_the_fourth_failure_and_stop_at_fifteen_minutes() {
        let table = [
            (0, 0),
            (1, 0),
            (2, 0),
            (3, 1),
            (4, 2),
            (5, 4),
            (8, 32),
            (12, 512),
            (13, 900),
            (40, 900),
            (u32::MAX, 900),
        ];
        for (failures, seconds) in table {
            assert_eq!(delay_after(failures), Duration::from_secs(seconds), "after {failures} failures");
        }
    }

    #[test]
    fn an_hour_at_full_speed_gets_the_stated_tries() {
        let mut throttle = Throttle::default();
        let start = Instant::now();
        let key = pair(Secret::Account("ana@dyqani.al"), ip("192.0.2.7"));
        let mut tries = 0;
        // Ten guesses a second for an hour: only those the throttle lets through are tries.
        for tenth in 0..36_000u64 {
            let now = start + Duration::from_millis(tenth * 100);
            if throttle.wait(&key, now).is_none() {
                tries += 1;
                throttle.failed(key.clone(), now);
            }
        }
        assert_eq!(tries, TRIES_IN_FIRST_HOUR);
    }

    #[test]
    fn a_pair_is_one_account_and_one_address() {
        let mut throttle = Throttle::default();
        let now = Instant::now();
        let stranger = pair(Secret::Account("Ana@Dyqani.al "), ip("192.0.2.7"));
        for _ in 0..10 {
            throttle.failed(stranger.clone(), now);
        }
        assert!(throttle.wait(&stranger, now).is_some());
        assert!(
            throttle.wait(&pair(Secret::Account("ana@dyqani.al"), ip("192.0.2.7")), now).is_some(),
            "any case"
        );
        assert_eq!(throttle.wait(&pair(Secret::Account("ana@dyqani.al"), ip("192.0.2.8")), now), None);
        assert_eq!(throttle.wait(&pair(Secret::Account("besa@dyqani.al"), ip("192.0.2.7")), now), None);
        assert_eq!(throttle.wait(&pair(Secret::SetupCode, ip("192.0.2.7")), now), None);
        let mapped = pair(Secret::Account("ana@dyqani.al"), ip("::ffff:192.0.2.7"));
        assert!(throttle.wait(&mapped, now).is_some(), "an IPv4 address seen over IPv6 is the same");
    }

    #[test]
    fn a_success_or_a_quiet_day_forgets_a_pair() {
        let mut throttle = Throttle::default();
        let now = Instant::now();
        let key = pair(Secret::Account("ana@dyqani.al"), ip("192.0.2.7"));
        for _ in 0..5 {
            throttle.failed(key.clone(), now);
        }
        assert_eq!(throttle.wait(&key, now), Some(Duration::from_secs(4)));
        assert_eq!(throttle.wait(&key, now + Duration::from_secs(3)), Some(Duration::from_secs(1)));
        assert_eq!(throttle.wait(&key, now + Duration::from_secs(4)), None);
        let later = now + FORGET_AFTER;
        assert_eq!(throttle.failed(key.clone(), later), None, "a day later it starts afresh");
        throttle.succeeded(&key);
        assert!(throttle.is_empty());
        throttle.failed(key.clone(), now);
        throttle.forget_account("ANA@dyqani.al");
        assert!(throttle.is_empty());
    }

    #[test]
    fn a_full_table_drops_the_quiet_pairs_first_then_the_quietest() {
        let mut throttle = Throttle::default();
        let start = Instant::now();
        for n in 0..MAX_PAIRS {
            let at = start + Duration::from_millis(n as u64);
            throttle.failed(pair(Secret::Account(&format!("u{n}@x.al")), ip("192.0.2.1")), at);
        }
        let next = start + Duration::from_secs(60);
        throttle.failed(pair(Secret::Account("new@x.al"), ip("192.0.2.1")), next);
        assert_eq!(throttle.len(), MAX_PAIRS);
        assert!(!throttle.pairs.contains_key(&pair(Secret::Account("u0@x.al"), ip("192.0.2.1"))));
        let a_day_on = start + FORGET_AFTER + Duration::from_secs(120);
        throttle.failed(pair(Secret::Account("later@x.al"), ip("192.0.2.1")), a_day_on);
        assert_eq!(throttle.len(), 1, "every pair quiet for a day went");
    }
}
