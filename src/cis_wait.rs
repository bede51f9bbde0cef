//! How long a request waited for the CIS. The answer's `Server-Timing` carries it as `cis` beside
//! Arka's whole time (`app`), so a POS developer, and the benchmark, can tell Arka's own time from
//! the CIS's, one document at a time.
//!
//! The edge runs each request in `timed`; whatever calls the CIS for it makes the call through the
//! request's `Recorder`, which a task or thread doing the call for the request takes along (a call
//! on the blocking pool: `spawn_blocking`). Only
//! the exchanges count (`exchange`: the request sent, the CIS's answer received), not Arka signing
//! the request nor reading and checking the answer. An exchange still under way when the request
//! is answered (its time budget ran out) counts until then.

use std::cell::RefCell;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

tokio::task_local! {
    static WAITED: Arc<Mutex<Waited>>;
}

thread_local! {
    /// The recorder of the CIS call this thread is making (`Recorder::call`).
    static CALLING_FOR: RefCell<Option<Recorder>> = const { RefCell::new(None) };
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

    /// Makes `call`, a CIS call for the request, on this thread: its exchanges count for the
    /// request. Blocks like `call` does.
    pub fn call<T>(&self, call: impl FnOnce() -> T) -> T {
        struct Restore(Option<Recorder>);
        impl Drop for Restore {
            fn drop(&mut self) {
                CALLING_FOR.with(|calling| *calling.borrow_mut() = self.0.take());
            }
        }
        let _restore = Restore(CALLING_FOR.with(|calling| calling.replace(Some(self.clone()))));
        call()
    }

    fn time<T>(&self, exchange: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        lock(&self.0).calling_since = Some(started);
        let outcome = exchange();
        let mut waited = lock(&self.0);
        waited.calling_since = None;
        // At least a microsecond, so an exchange is never taken for none.
        waited.ended += started.elapsed().max(Duration::from_micros(1));
        outcome
    }

    /// `task`, spawned to do the request's work, records to the request.
    pub fn scope<F: Future>(self, task: F) -> impl Future<Output = F::Output> {
        WAITED.scope(self.0, task)
    }
}

/// `call`, a CIS call for the request this task runs for, made on the blocking pool: its
/// exchanges count for the request.
pub fn spawn_blocking<T: Send + 'static>(
    call: impl FnOnce() -> T + Send + 'static,
) -> tokio::task::JoinHandle<T> {
    let recorder = Recorder::current();
    tokio::task::spawn_blocking(move || recorder.call(call))
}

/// One exchange with the CIS: the request sent and its answer received. It counts for the request
/// whose call this thread is making, if any.
pub fn exchange<T>(exchange: impl FnOnce() -> T) -> T {
    match CALLING_FOR.with(|calling| calling.borrow().clone()) {
        Some(recorder) => recorder.time(exchange),
        None => exchange(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call whose exchange takes `ms`, after a millisecond of work of Arka's own.
    fn wait(ms: u64) -> impl FnOnce() {
        move || {
            std::thread::sleep(Duration::from_millis(1));
            exchange(|| std::thread::sleep(Duration::from_millis(ms)));
        }
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
        let waited = waited.unwrap();
        assert!(waited >= Duration::from_millis(10), "{waited:?}");
    }

    #[tokio::test]
    async fn only_the_exchange_counts_and_a_thread_forgets_the_request_after_its_call() {
        let recorder = timed(async { Recorder::current() }).await.0;
        let work = || {
            std::thread::sleep(Duration::from_millis(200));
            exchange(|| ());
        };
        let ((), waited) = timed(async { Recorder::current().call(work) }).await;
        assert!(waited.unwrap() < Duration::from_millis(200), "Arka's own work is not the CIS's: {waited:?}");
        let _ = std::panic::catch_unwind(|| recorder.call(|| panic!("a call that fails")));
        assert!(CALLING_FOR.with(|calling| calling.borrow().is_none()), "even after a panic");
    }

    #[tokio::test]
    async fn a_call_under_way_when_the_request_is_answered_counts_until_the_answer() {
        let (call, waited) = timed(async {
            let recorder = Recorder::current();
            let call = std::thread::spawn(move || recorder.call(wait(300)));
            tokio::time::sleep(Duration::from_millis(100)).await;
            call
        })
        .await;
        assert!(waited.unwrap() >= Duration::from_millis(50), "{waited:?}");
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
