//! The spec's rate limits as one mechanism: budgets (N per period, per key) and minimum
//! intervals (one call per period, per key), each a keyed GCRA limiter from `governor`.
//! Routes only declare which group or interval they belong to (see `api::router`). Time is the
//! server's `Clock`, which a test moves forward instead of waiting for a window to pass.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use crate::clock::Clock;
pub use crate::config::limits::{Group, Interval, LimitSettings, Rate};

type KeyedLimiter = RateLimiter<String, DefaultKeyedStateStore<String>, Clock, StateInformationMiddleware>;

/// A call the limiter refused.
#[derive(Debug, Clone, Copy)]
pub struct Denied {
    pub limit: u32,
    pub retry_after: Duration,
}

/// A call the limiter let through, with what is left of the tightest rate.
#[derive(Debug, Clone, Copy)]
pub struct Allowed {
    pub limit: u32,
    pub remaining: u32,
}

struct Budget {
    rates: Vec<(Rate, KeyedLimiter)>,
    clock: Clock,
}

impl Budget {
    fn new(rates: &[Rate], clock: &Clock) -> Budget {
        let limiter = |quota| -> KeyedLimiter {
            RateLimiter::new(quota, DefaultKeyedStateStore::default(), clock.clone())
        };
        Budget {
            rates: rates.iter().filter_map(|r| quota(*r).map(|q| (*r, limiter(q)))).collect(),
            clock: clock.clone(),
        }
    }

    fn check(&self, key: &str) -> Result<Allowed, Denied> {
        let mut tightest: Option<Allowed> = None;
        let key = key.to_string();
        for (rate, limiter) in &self.rates {
            match limiter.check_key(&key) {
                Ok(snapshot) => {
                    let allowed =
                        Allowed { limit: rate.count, remaining: snapshot.remaining_burst_capacity() };
                    if tightest.is_none_or(|t| allowed.remaining < t.remaining) {
                        tightest = Some(allowed);
                    }
                }
                Err(not_until) => {
                    let wait = not_until.wait_time_from(self.clock.now());
                    return Err(Denied { limit: rate.count, retry_after: wait });
                }
            }
        }
        Ok(tightest.unwrap_or(Allowed { limit: 0, remaining: 0 }))
    }

    fn forget_idle(&self) {
        for (_, limiter) in &self.rates {
            limiter.retain_recent();
        }
    }
}

fn quota(rate: Rate) -> Option<Quota> {
    let burst = NonZeroU32::new(rate.count)?;
    let replenish = rate.period.checked_div(rate.count)?;
    Some(Quota::with_period(replenish)?.allow_burst(burst))
}

/// All limiters of a running server.
pub struct Limiters {
    token: Budget,
    ip: Budget,
    groups: HashMap<Group, Budget>,
    intervals: HashMap<Interval, Budget>,
}

impl Limiters {
    pub fn new(settings: &LimitSettings, clock: &Clock) -> Limiters {
        Limiters {
            token: Budget::new(&settings.token, clock),
            ip: Budget::new(&settings.ip, clock),
            groups: settings.groups.iter().map(|(g, r)| (*g, Budget::new(r, clock))).collect(),
            intervals: settings
                .intervals
                .iter()
                .map(|(i, period)| (*i, Budget::new(&[Rate { count: 1, period: *period }], clock)))
                .collect(),
        }
    }

    /// The general limiter: per token for identified callers, per IP for the others.
    pub fn general(&self, identity: &str, identified: bool) -> Result<Allowed, Denied> {
        if identified { self.token.check(identity) } else { self.ip.check(identity) }
    }

    pub fn group(&self, group: Group, identity: &str) -> Result<Allowed, Denied> {
        match self.groups.get(&group) {
            Some(budget) => budget.check(identity),
            None => Ok(Allowed { limit: 0, remaining: 0 }),
        }
    }

    pub fn interval(&self, interval: Interval, identity: &str) -> Result<(), Denied> {
        match self.intervals.get(&interval) {
            Some(budget) => budget.check(identity).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Drops the state of keys that are back at full capacity, so memory stays bounded.
    pub fn forget_idle(&self) {
        self.token.forget_idle();
        self.ip.forget_idle();
        self.groups.values().for_each(Budget::forget_idle);
        self.intervals.values().for_each(Budget::forget_idle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_refuses_past_its_count_per_key() {
        let l = Limiters::new(&"token=3/m".parse().unwrap(), &Clock::default());
        for expected_left in [2, 1, 0] {
            assert_eq!(l.general("a", true).unwrap().remaining, expected_left);
        }
        let denied = l.general("a", true).unwrap_err();
        assert_eq!(denied.limit, 3);
        assert!(denied.retry_after > Duration::from_secs(1));
        assert!(l.general("b", true).is_ok());
    }

    #[test]
    fn an_interval_allows_one_call_per_period() {
        let clock = Clock::default();
        let l = Limiters::new(&LimitSettings::default(), &clock);
        assert!(l.interval(Interval::Clients, "t").is_ok());
        let refused = l.interval(Interval::Clients, "t").unwrap_err();
        assert!(refused.retry_after <= Duration::from_secs(10));
        assert!(l.interval(Interval::Products, "t").is_ok());
        clock.advance(Duration::from_secs(10));
        assert!(l.interval(Interval::Clients, "t").is_ok(), "the window passed on the server's clock");
    }
}
