//! How long a request waited for the CIS. The answer's `Server-Timing` carries it as `cis` beside
//! Arka's whole time (`app`), so a POS developer, and the benchmark, can tell Arka's own time from
//! the CIS's, one document at a time.
//!
//! The edge runs each request in `timed`; whatever calls the CIS for it makes the call through the
//! request's `Recorder`, which a task or thread doing the call for the request takes along. A call
//! still under way when the request is answered (its time budget ran out) counts until then.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

tokio::task_local! {
    static WAITED: Arc<Mutex<Waited>>;
}

#[derive(Default)]
struct Waited {
    /// The calls that ended.
    ended: Duration,
    /// When the call under way began.
    calling_since: Option<Instant>,
}

impl Waited {
    fn until(&self, now: Instant) -> Duration {
        self.ended + self.calling_since.map_or(Duration::ZERO, |since| now.saturating_duration_since(since))
    }
}

/// Runs `request` and returns its outcome with the time it waited for CIS calls, if it made any.
pub async fn timed<F: Future>(request: F) -> (F::Output, Option<Duration>) {
    let waited = Arc::new(Mutex::new(Waited::default()));
    let outcome = WAITED.scope(waited.clone(), request).await;
    let total = lock(&waited).until(Instant::now());
    (outcome, (total > Duration::ZERO).then_some(total))
}

fn lock(waited: &Mutex<Waited>) -> std::sync::MutexGuard<'_, Waited> {
    match waited.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The recorder of the request this task runs for; outside a request it records nowhere.
#[derive(Clone)]
pub struct Recorder(Arc<Mutex<Waited>>);

impl Recorder {
    pub fn current() -> Recorder {
        Recorder(WAITED.try_with(Arc::clone).unwrap_or_default())
    }

    /// Makes `call`, a CIS call for the request, counting its time. Blocks like `call` does.
    pub fn call<T>(&self, call: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        lock(&self.0).calling_since = Some(started);
        let outcome = call();
        let mut waited = lock(&self.0);
        waited.calling_since = None;
        // At least a microsecond, so a call is never taken for none.
        waited.ended += started.elapsed().max(Duration::from_micros(1));
        outcome
    }

    /// `task`, spawned to do the request's work, records to the request.
    pub fn scope<F: Future>(self, task: F) -> impl Future<Output = F::Output> {
        WAITED.scope(self.0, task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(ms: u64) -> impl FnOnce() {
        move || std::thread::sleep(Duration::from_millis(ms))
    }

    #[tokio::test]
    async fn calls_made_for_a_request_add_up_in_its_own_task_a_spawned_one_and_a_thread() {
        let ((), waited) = timed(async {
            Recorder::current().call(wait(2));
            tokio::spawn(Recorder::current().scope(async { Recorder::current().call(wait(3)) }))
                .await
                .unwrap();
            let recorder = Recorder::current();
            std::thread::spawn(move || recorder.call(wait(5))).join().unwrap();
        })
        .await;
        assert!(waited.unwrap() >= Duration::from_millis(10), "{waited:?}");
    }

    #[tokio::test]
    async fn a_call_under_way_when_the_request_is_answered_counts_until_the_answer() {
        let (call, waited) = timed(async {
            let recorder = Recorder::current();
            let call = std::thread::spawn(move || recorder.call(wait(300)));
            tokio::time::sleep(Duration::from_millis(20)).await;
            call
        })
        .await;
        assert!(waited.unwrap() >= Duration::from_millis(20), "{waited:?}");
        call.join().unwrap();
    }

    #[tokio::test]
    async fn a_request_without_a_call_waited_for_none_and_a_call_outside_a_request_goes_nowhere() {
        let ((), waited) = timed(async {
            tokio::spawn(async { Recorder::current().call(wait(3)) }).await.unwrap();
        })
        .await;
        assert_eq!(waited, None, "the spawned task did not take the request's recorder along");
        Recorder::current().call(wait(1));
    }
}
