//! The documents of one numbering sequence (a TCR's, or a business's non-cash one) on their way
//! to the CIS, outside the sequence's lock: at most `--cis-in-flight` of them at the CIS at once,
//! and none ahead of a day's opening still on its way (the CIS must see a TCR's INITIAL before
//! its invoices). A document joins its lane under the sequence's lock, so the lane knows the
//! documents in the order of their numbers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use crate::fiscal::model::SubseqDelivType;

/// What became of a day's opening, for the documents behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// It reached the CIS (registered, or refused and kept on record): the documents go.
    Passed,
    /// It did not: the documents behind it wait in the queue behind it, as late deliveries of
    /// this type.
    Closed { subseq: SubseqDelivType, reason: String },
}

type Opened = watch::Receiver<Option<Gate>>;

/// An opening that went ahead of a lane's documents.
#[derive(Clone)]
struct Ahead {
    /// Its queue entry.
    queue_id: i64,
    opened: Opened,
}

impl Ahead {
    fn passed(&self) -> bool {
        matches!(*self.opened.borrow(), Some(Gate::Passed))
    }
}

struct Lane {
    at_the_cis: Arc<Semaphore>,
    /// The latest opening ahead of the lane's documents, until it is known to have reached the
    /// CIS: on its first call, or later through the queue (`reached_the_cis`).
    opening: Mutex<Option<Ahead>>,
}

impl Lane {
    /// Whether the lane must be kept though no document is on its way: an opening that did not
    /// reach the CIS still holds back the documents that come after it.
    fn holds_back(&self) -> bool {
        lock(&self.opening).as_ref().is_some_and(|ahead| !ahead.passed())
    }
}

pub struct Lanes {
    in_flight: usize,
    by_key: Mutex<HashMap<String, Arc<Lane>>>,
    /// How many documents of all lanes are on their way.
    on_the_way: Arc<watch::Sender<usize>>,
}

/// A document's place in its lane, held until its first call is settled.
pub struct Place {
    lane: Arc<Lane>,
    behind: Option<Opened>,
    _counted: OnTheWay,
}

/// Counts a document on its way until dropped.
struct OnTheWay(Arc<watch::Sender<usize>>);

impl OnTheWay {
    fn new(count: &Arc<watch::Sender<usize>>) -> OnTheWay {
        count.send_modify(|n| *n += 1);
        OnTheWay(count.clone())
    }
}

impl Drop for OnTheWay {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// The opening a document carries ahead of itself: its outcome lets the lane's later documents
/// go, or sends them to the queue behind it.
pub struct Opening {
    outcome: watch::Sender<Option<Gate>>,
}

impl Opening {
    pub fn done(self, gate: Gate) {
        // Nobody waiting behind it is fine.
        let _ = self.outcome.send(Some(gate));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Lanes {
    /// Lanes letting `in_flight` documents of each be at the CIS at once (at least one).
    pub fn new(in_flight: usize) -> Lanes {
        Lanes {
            in_flight: in_flight.max(1),
            by_key: Mutex::new(HashMap::new()),
            on_the_way: Arc::new(watch::Sender::new(0)),
        }
    }

    /// Returns once no document is on its way: a stop waits for this (within the CIS call's
    /// time limit), so a receipt answered as deferred still gets its code before Arka exits.
    pub async fn settled(&self) {
        // The sender lives as long as `self`, so this cannot fail while anyone awaits it.
        let _ = self.on_the_way.subscribe().wait_for(|n| *n == 0).await;
    }

    /// The document just numbered in sequence `key` takes its place; when it carries the day's
    /// opening (`opening`: that action's queue entry), the lane's later documents wait for it.
    /// Call it under the sequence's lock.
    pub fn join(&self, key: &str, opening: Option<i64>) -> (Place, Option<Opening>) {
        let lane = {
            let mut lanes = lock(&self.by_key);
            // Lanes without a document on its way are dropped, so the map stays as small as
            // the number of sequences in use.
            lanes.retain(|_, lane| Arc::strong_count(lane) > 1 || lane.holds_back());
            lanes
                .entry(key.to_string())
                .or_insert_with(|| {
                    Arc::new(Lane {
                        at_the_cis: Arc::new(Semaphore::new(self.in_flight)),
                        opening: Mutex::new(None),
                    })
                })
                .clone()
        };
        let mut latest = lock(&lane.opening);
        let behind = latest.take().filter(|ahead| !ahead.passed());
        let opening = match opening {
            Some(queue_id) => {
                let (outcome, opened) = watch::channel(None);
                *latest = Some(Ahead { queue_id, opened });
                Some(Opening { outcome })
            }
            None => {
                latest.clone_from(&behind);
                None
            }
        };
        drop(latest);
        let counted = OnTheWay::new(&self.on_the_way);
        (Place { lane, behind: behind.map(|ahead| ahead.opened), _counted: counted }, opening)
    }

    /// The queue delivered the opening whose entry is `queue_id` (or the CIS refused it, which
    /// reached it all the same): the documents of lane `key` need not wait for it any more.
    pub fn reached_the_cis(&self, key: &str, queue_id: i64) {
        let lane = lock(&self.by_key).get(key).cloned();
        if let Some(lane) = lane {
            let mut latest = lock(&lane.opening);
            if latest.as_ref().is_some_and(|ahead| ahead.queue_id == queue_id) {
                *latest = None;
            }
        }
    }
}

impl Place {
    /// Waits for the opening ahead of this document, if there is one.
    pub async fn behind_opening(&mut self) -> Gate {
        let Some(opened) = self.behind.as_mut() else {
            return Gate::Passed;
        };
        match opened.wait_for(Option::is_some).await {
            Ok(gate) => gate.clone().unwrap_or(Gate::Passed),
            // Its delivery ended without a word (its task failed): the queue sorts it out.
            Err(_) => Gate::Closed {
                subseq: SubseqDelivType::TechnicalError,
                reason: "the day's opening ahead of it ended without an outcome".into(),
            },
        }
    }

    /// Waits for one of the lane's places at the CIS; it is given back when dropped.
    pub async fn at_the_cis(&self) -> Option<OwnedSemaphorePermit> {
        // The semaphore is never closed, so this only fails if that changes: then go ahead.
        self.lane.at_the_cis.clone().acquire_owned().await.ok()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn no_more_than_the_bound_are_at_the_cis_and_lanes_are_apart() {
        let lanes = Lanes::new(2);
        let (a, _) = lanes.join("cash:1:t1", None);
        let (b, _) = lanes.join("cash:1:t1", None);
        let (c, _) = lanes.join("cash:1:t1", None);
        let (other, _) = lanes.join("cash:1:t2", None);
        let first = a.at_the_cis().await;
        let second = b.at_the_cis().await;
        assert!(
            tokio::time::timeout(Duration::from_millis(50), c.at_the_cis()).await.is_err(),
            "a third waits"
        );
        assert!(other.at_the_cis().await.is_some(), "another till has places of its own");
        drop(first);
        assert!(c.at_the_cis().await.is_some(), "a place given back is taken");
        drop(second);
    }

    #[tokio::test]
    async fn documents_wait_behind_the_opening_and_learn_what_became_of_it() {
        let lanes = Lanes::new(4);
        let (mut before, none) = lanes.join("cash:1:t1", None);
        assert!(none.is_none());
        assert_eq!(before.behind_opening().await, Gate::Passed, "nothing ahead of it");
        let (mut opener, opening) = lanes.join("cash:1:t1", Some(7));
        let (mut after, _) = lanes.join("cash:1:t1", None);
        assert_eq!(opener.behind_opening().await, Gate::Passed, "its own opening is not ahead of it");
        assert!(tokio::time::timeout(Duration::from_millis(50), after.behind_opening()).await.is_err());
        let closed = Gate::Closed { subseq: SubseqDelivType::NoInternet, reason: "no answer".into() };
        opening.unwrap().done(closed.clone());
        assert_eq!(after.behind_opening().await, closed);
        drop((before, opener, after));
        let (mut later, _) = lanes.join("cash:1:t1", None);
        assert_eq!(later.behind_opening().await, closed, "held back until the queue delivers it");
        lanes.reached_the_cis("cash:1:t1", 6);
        let (mut still, _) = lanes.join("cash:1:t1", None);
        assert_eq!(still.behind_opening().await, closed, "another entry's delivery changes nothing");
        lanes.reached_the_cis("cash:1:t1", 7);
        let (mut free, _) = lanes.join("cash:1:t1", None);
        assert_eq!(free.behind_opening().await, Gate::Passed);

        let (_, reopening) = lanes.join("cash:1:t1", Some(9));
        let (mut next, _) = lanes.join("cash:1:t1", None);
        reopening.unwrap().done(Gate::Passed);
        assert_eq!(next.behind_opening().await, Gate::Passed);
        let (mut last, _) = lanes.join("cash:1:t1", None);
        assert!(last.behind.is_none(), "a passed opening is forgotten");
        assert_eq!(last.behind_opening().await, Gate::Passed);
    }

    #[tokio::test]
    async fn an_opening_dropped_without_an_outcome_sends_the_rest_to_the_queue() {
        let lanes = Lanes::new(4);
        let (_opener, opening) = lanes.join("cash:1:t1", Some(1));
        let (mut after, _) = lanes.join("cash:1:t1", None);
        drop(opening);
        assert!(matches!(
            after.behind_opening().await,
            Gate::Closed { subseq: SubseqDelivType::TechnicalError, .. }
        ));
    }

    #[tokio::test]
    async fn a_stop_waits_until_no_document_is_on_its_way() {
        let lanes = Lanes::new(2);
        lanes.settled().await;
        let (first, _) = lanes.join("cash:1:t1", None);
        let (second, _) = lanes.join("noncash:1", None);
        assert!(tokio::time::timeout(Duration::from_millis(50), lanes.settled()).await.is_err());
        drop(first);
        assert!(tokio::time::timeout(Duration::from_millis(50), lanes.settled()).await.is_err());
        drop(second);
        lanes.settled().await;
    }

    #[test]
    fn lanes_nobody_uses_are_forgotten_unless_an_opening_holds_them_back() {
        let lanes = Lanes::new(1);
        for i in 0..100 {
            drop(lanes.join(&format!("cash:1:t{i}"), None));
        }
        let (_, opening) = lanes.join("held", Some(1));
        opening.unwrap().done(Gate::Closed { subseq: SubseqDelivType::Service, reason: "fault".into() });
        drop(lanes.join("last", None));
        let kept: Vec<String> = lock(&lanes.by_key).keys().cloned().collect();
        assert!(kept.contains(&"held".to_string()) && kept.len() <= 2, "{kept:?}");
    }
}
