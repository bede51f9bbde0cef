//! The receipt's time budget (`--cis-wait`): a POS waits for its own document's delivery at most
//! that long, then it is answered with the document as deferred (saved, fiscalized later) while
//! the delivery goes on. Exactly one of the two answers the POS: `Handover` is that decision.

use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;
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

/// Waits for the delivery's answer (`outcome`, sent by whoever `take`s the document) until
/// `deadline`, when there is one; then answers `deferred(document)` unless the delivery has
/// taken it, in which case its answer is moments away.
pub async fn wait<S, T>(
    outcome: oneshot::Receiver<Result<T>>,
    handover: &Handover<S>,
    deadline: Option<Instant>,
    deferred: impl FnOnce(S) -> T,
) -> Result<T> {
    let lost = |_| Error::Internal("the delivery of a document ended without an answer".into());
    let mut outcome = outcome;
    if let Some(deadline) = deadline {
        tokio::select! {
            answer = &mut outcome => return answer.map_err(lost)?,
            () = tokio::time::sleep_until(deadline) => {
                if let Some(document) = handover.defer() {
                    return Ok(deferred(document));
                }
            }
        }
    }
    outcome.await.map_err(lost)?
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn the_outcome_answers_within_the_budget() {
        let handover = Handover::new("receipt");
        let (send, outcome) = oneshot::channel();
        let document = handover.take().unwrap();
        send.send(Ok(format!("{document} fiscalized"))).unwrap();
        let deadline = Some(Instant::now() + Duration::from_secs(5));
        let answer = wait(outcome, &handover, deadline, |d| format!("{d} deferred")).await.unwrap();
        assert_eq!(answer, "receipt fiscalized");
    }

    #[tokio::test]
    async fn past_the_budget_the_pos_is_answered_deferred_and_the_delivery_learns_it() {
        let handover = Handover::new("receipt");
        let (_send, outcome) = oneshot::channel::<Result<String>>();
        let deadline = Some(Instant::now() + Duration::from_millis(50));
        let answer = wait(outcome, &handover, deadline, |d| format!("{d} deferred")).await.unwrap();
        assert_eq!(answer, "receipt deferred");
        assert_eq!(handover.take(), None, "the delivery keeps its outcome for the queue");
    }

    #[tokio::test]
    async fn an_outcome_taken_before_the_budget_ran_out_is_waited_for() {
        let handover = Handover::new("receipt");
        let (send, outcome) = oneshot::channel();
        let document = handover.take().unwrap();
        let delivery = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            send.send(Err::<String, _>(Error::Refused(format!("{document}: [11] refused")))).unwrap();
        });
        let deadline = Some(Instant::now() + Duration::from_millis(50));
        let answer = wait(outcome, &handover, deadline, |d| format!("{d} deferred")).await;
        assert!(matches!(answer, Err(Error::Refused(m)) if m == "receipt: [11] refused"));
        delivery.await.unwrap();
    }

    #[tokio::test]
    async fn without_a_budget_the_pos_waits_for_the_outcome() {
        let handover = Handover::new("invoice");
        let (send, outcome) = oneshot::channel();
        let waiting =
            tokio::spawn(async move { wait(outcome, &handover, None, |d: &str| d.to_string()).await });
        send.send(Err(Error::Unavailable("not saved".into()))).unwrap();
        assert!(matches!(waiting.await.unwrap(), Err(Error::Unavailable(_))));
    }
}
