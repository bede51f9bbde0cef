//! The receipt's time budget (`--cis-wait`): a POS waits for its own document's delivery at most
//! that long, then it is answered with the document as deferred (saved, fiscalized later) while
//! the delivery goes on. Exactly one of the two answers the POS: `Handover` is that decision.

use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::time::Instant;

use super::{Error, Result};

enum Slot<S> {
    /// The POS is waiting; the document is here for whoever answers it.
    Waiting(S),
    /// The delivery took it, to answer with its outcome.
    Taken,
    /// The budget ran out: the POS was answered with the document as deferred.
    Deferred,
}

/// The saved document a POS waits for, handed to whichever answers it.
pub struct Handover<S> {
    slot: Mutex<Slot<S>>,
}

impl<S> Handover<S> {
    pub fn new(document: S) -> Arc<Handover<S>> {
        Arc::new(Handover { slot: Mutex::new(Slot::Waiting(document)) })
    }

    fn replace(&self, with: Slot<S>) -> Option<S> {
        let mut slot = match self.slot.lock() {
            Ok(slot) => slot,
            Err(poisoned) => poisoned.into_inner(),
        };
        match std::mem::replace(&mut *slot, Slot::Taken) {
            Slot::Waiting(document) => {
                *slot = with;
                Some(document)
            }
            other => {
                *slot = other;
                None
            }
        }
    }

    /// The delivery's turn: the document, to answer its POS with the outcome; None when the
    /// POS was already answered (the outcome is then the queue's to keep).
    pub fn take(&self) -> Option<S> {
        self.replace(Slot::Taken)
    }

    /// The budget ran out: the document to answer as deferred; None when the delivery has
    /// already taken it (its answer is on its way).
    fn defer(&self) -> Option<S> {
        self.replace(Slot::Deferred)
    }
}

/// Runs `delivery` (whoever `take`s the document answers through it: Some(answer); None when the
/// POS was answered as deferred) until `deadline`, when there is one; then answers
/// `deferred(document)` and lets the delivery go on in a task of its own, unless it has taken
/// the document, in which case its answer is moments away. The delivery runs in the caller's
/// task until then: its answer reaches the POS without crossing to another task.
pub async fn wait<S, T, D>(
    delivery: D,
    handover: &Handover<S>,
    deadline: Option<Instant>,
    deferred: impl FnOnce(S) -> T,
) -> Result<T>
where
    D: Future<Output = Option<Result<T>>> + Send + 'static,
    T: Send + 'static,
{
    let lost = || Error::Broken("the delivery of a document ended without an answer");
    let mut delivery = Box::pin(delivery);
    if let Some(deadline) = deadline {
        tokio::select! {
            answer = &mut delivery => return answer.unwrap_or_else(|| Err(lost())),
            () = tokio::time::sleep_until(deadline) => {
                if let Some(document) = handover.defer() {
                    // Its outcome is the queue's to keep; nobody waits for it here.
                    tokio::spawn(delivery);
                    return Ok(deferred(document));
                }
            }
        }
    }
    delivery.await.unwrap_or_else(|| Err(lost()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::*;

    /// A delivery that takes the document after `after` and answers `outcome(document)`; it
    /// reports through the receiver whether it found the document still waiting.
    fn delivery(
        handover: &Arc<Handover<&'static str>>,
        after: Duration,
        outcome: impl FnOnce(&str) -> Result<String> + Send + 'static,
    ) -> (impl Future<Output = Option<Result<String>>> + Send + 'static, oneshot::Receiver<bool>) {
        let (found, report) = oneshot::channel();
        let handover = handover.clone();
        let run = async move {
            tokio::time::sleep(after).await;
            let taken = handover.take();
            let _ = found.send(taken.is_some());
            taken.map(outcome)
        };
        (run, report)
    }

    #[tokio::test]
    async fn the_outcome_answers_within_the_budget() {
        let handover = Handover::new("receipt");
        let (run, _) = delivery(&handover, Duration::ZERO, |d| Ok(format!("{d} fiscalized")));
        let deadline = Some(Instant::now() + Duration::from_secs(5));
        let answer = wait(run, &handover, deadline, |d| format!("{d} deferred")).await.unwrap();
        assert_eq!(answer, "receipt fiscalized");
    }

    #[tokio::test]
    async fn past_the_budget_the_pos_is_answered_deferred_and_the_delivery_goes_on() {
        let handover = Handover::new("receipt");
        let (run, found) = delivery(&handover, Duration::from_millis(200), |d| Ok(format!("{d} fiscalized")));
        let deadline = Some(Instant::now() + Duration::from_millis(50));
        let answer = wait(run, &handover, deadline, |d| format!("{d} deferred")).await.unwrap();
        assert_eq!(answer, "receipt deferred");
        assert_eq!(found.await, Ok(false), "the delivery ran on and keeps its outcome for the queue");
    }

    #[tokio::test]
    async fn an_outcome_taken_before_the_budget_ran_out_is_waited_for() {
        let handover = Handover::new("receipt");
        let (found, report) = oneshot::channel();
        let waiting = handover.clone();
        let run = async move {
            let document = waiting.take();
            let _ = found.send(document.is_some());
            tokio::time::sleep(Duration::from_millis(200)).await;
            document.map(|d| Err::<String, _>(Error::Refused(format!("{d}: [11] refused"))))
        };
        let deadline = Some(Instant::now() + Duration::from_millis(50));
        let answer = wait(run, &handover, deadline, |d| format!("{d} deferred")).await;
        assert!(matches!(answer, Err(Error::Refused(m)) if m == "receipt: [11] refused"));
        assert_eq!(report.await, Ok(true));
    }

    #[tokio::test]
    async fn without_a_budget_the_pos_waits_for_the_outcome() {
        let handover = Handover::new("invoice");
        let (run, _) = delivery(&handover, Duration::from_millis(100), |_| {
            Err(Error::Unavailable(crate::services::NotNow::Platform))
        });
        assert!(matches!(
            wait(run, &handover, None, |d: &str| d.to_string()).await,
            Err(Error::Unavailable(_))
        ));
    }
}
