//! The spec's serialized operations: one lock per key (business, business + TCR, token, ...),
//! waited on for a bounded time, after which the caller answers 429.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// How long an operation waits for its lock before giving up (the spec's 1 s).
pub const LOCK_WAIT: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct Locks {
    by_key: Mutex<HashMap<String, Arc<AsyncMutex<()>>>>,
}

impl Locks {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock_for(&self, key: &str) -> Arc<AsyncMutex<()>> {
        let mut map = match self.by_key.lock() {
            Ok(map) => map,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Locks nobody holds or waits for are dropped, so the map stays as small as the
        // number of keys in use.
        map.retain(|_, lock| Arc::strong_count(lock) > 1);
        map.entry(key.to_string()).or_default().clone()
    }

    /// The lock for `key`, or None when it was not free within `wait`.
    pub async fn acquire(&self, key: &str, wait: Duration) -> Option<OwnedMutexGuard<()>> {
        let lock = self.lock_for(key);
        tokio::time::timeout(wait, lock.lock_owned()).await.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_held_lock_makes_the_next_caller_give_up_after_the_wait() {
        let locks = Locks::new();
        let held = locks.acquire("company:1:tcr:a", LOCK_WAIT).await.unwrap();
        assert!(locks.acquire("company:1:tcr:a", Duration::from_millis(50)).await.is_none());
        assert!(locks.acquire("company:1:tcr:b", Duration::from_millis(50)).await.is_some());
        drop(held);
        assert!(locks.acquire("company:1:tcr:a", Duration::from_millis(50)).await.is_some());
    }

    #[tokio::test]
    async fn unused_keys_are_forgotten() {
        let locks = Locks::new();
        for i in 0..100 {
            drop(locks.acquire(&format!("k{i}"), LOCK_WAIT).await);
        }
        drop(locks.acquire("last", LOCK_WAIT).await);
        assert!(locks.by_key.lock().unwrap().len() <= 1);
    }
}
