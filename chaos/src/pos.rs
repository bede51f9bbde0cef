//! A POS app at work: cash sales, now and then a deposit, a cancellation of one of its own sales
//! or a warehouse transfer note, each answer kept: what the server acknowledged (2xx, or 503 with
//! the document saved for late delivery), what it refused, what never got an answer.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::{Answer, Client, Failure, Sent};
use super::shop::{Till, cash_sale, on_account, transfer_note};

/// What a request issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Cash,
    /// A non-cash invoice on account: in a chain, its number comes from the head office.
    NonCash,
    Deposit,
    Cancel,
    Wtn,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Cash => "cash invoice",
            Kind::NonCash => "non-cash invoice",
            Kind::Deposit => "deposit",
            Kind::Cancel => "cancellation",
            Kind::Wtn => "WTN",
        }
    }
}

/// Which kinds besides cash sales a POS issues.
#[derive(Debug, Clone, Copy)]
pub struct Mix {
    pub deposits: bool,
    pub cancellations: bool,
    pub wtns: bool,
    pub noncash: bool,
}

impl Mix {
    pub const CASH_ONLY: Mix = Mix { deposits: false, cancellations: false, wtns: false, noncash: false };
    pub const EVERYTHING: Mix = Mix { deposits: true, cancellations: true, wtns: true, noncash: false };
    /// A chain's shop: cash sales, their cancellations, and non-cash invoices numbered by the HQ.
    pub const CHAIN: Mix = Mix { deposits: false, cancellations: true, wtns: false, noncash: true };
}

/// One request a POS makes: where, with what, under which key.
#[derive(Debug, Clone)]
pub struct Request {
    pub kind: Kind,
    /// The idempotency key (for a cancellation: the cancelled sale's internalId); none for a deposit.
    pub key: Option<String>,
    pub path: String,
    pub body: Value,
    pub token: String,
}

/// A document the server acknowledged.
#[derive(Debug, Clone)]
pub struct Ack {
    pub kind: Kind,
    pub key: Option<String>,
    pub id: i64,
    pub number: String,
    /// Its IIC, which names it across boxes (a restored box's ids start again after the copy's).
    pub iic: Option<String>,
    /// Answered 503 with the document: saved, to be fiscalized later.
    pub queued: bool,
}

/// One answer, for the tables of the fault run.
#[derive(Debug, Clone, Copy)]
pub struct Timed {
    pub sent_at: Instant,
    pub status: u16,
    pub elapsed: Duration,
}

/// An answer that acknowledged nothing.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub status: u16,
    pub body: Value,
    pub sent_at: Instant,
    pub answered_at: Instant,
}

/// Everything one POS saw.
#[derive(Debug, Default)]
pub struct Outcome {
    pub acks: Vec<Ack>,
    /// Requests that got no answer (the server died under them): a POS retries these.
    pub unanswered: Vec<Request>,
    /// Answers that were neither an acknowledgement nor a busy 429.
    pub refused: Vec<Refusal>,
    pub answers: Vec<Timed>,
    /// Calls with no answer within the client's time limit.
    pub hangs: usize,
}

/// The document an answer acknowledges, if it does.
pub fn acknowledged(kind: Kind, key: Option<&str>, answer: &Answer) -> Option<Ack> {
    let saved = (200..300).contains(&answer.status) || answer.status == 503;
    if !saved || answer.body["status"] == Value::Bool(false) && answer.status != 503 {
        return None;
    }
    let data = answer.data();
    let document = if data.get("invoice").is_some() { &data["invoice"] } else { data };
    let id = document["id"].as_i64()?;
    let number = document["number"]
        .as_str()
        .or_else(|| document["cash_action_no"].as_str())
        .map(str::to_string)
        .or_else(|| document["transaction_no"].as_i64().map(|n| n.to_string()))?;
    let iic = document["iic"].as_str().map(str::to_string);
    Some(Ack { kind, key: key.map(str::to_string), id, number, iic, queued: answer.status == 503 })
}

/// How long a POS waits out busy 429s (a till's lock, a token's interval) for one request.
const BUSY_WAIT: Duration = Duration::from_secs(30);
/// The pause between two tries of a busy request.
const BUSY_PAUSE: Duration = Duration::from_millis(50);

/// Sends `request`, waiting out busy 429s (bounded by `BUSY_WAIT`); the final answer, or the
/// failure.
pub fn send(client: &Client, request: &Request, outcome: &mut Outcome) -> Result<Answer, Failure> {
    let deadline = Instant::now() + BUSY_WAIT;
    loop {
        let sent_at = Instant::now();
        let answer = client.call("POST", &request.path, Some(&request.token), Sent::Json(&request.body))?;
        outcome.answers.push(Timed { sent_at, status: answer.status, elapsed: answer.elapsed });
        if answer.status != 429 || Instant::now() + BUSY_PAUSE >= deadline {
            return Ok(answer);
        }
        std::thread::sleep(BUSY_PAUSE);
    }
}

/// Files the answer to `request` in `outcome`.
pub fn file(request: &Request, result: Result<Answer, Failure>, outcome: &mut Outcome) {
    match result {
        Ok(answer) => match acknowledged(request.kind, request.key.as_deref(), &answer) {
            Some(ack) => outcome.acks.push(ack),
            None => {
                let answered_at = Instant::now();
                let sent_at = answered_at.checked_sub(answer.elapsed).unwrap_or(answered_at);
                outcome.refused.push(Refusal {
                    status: answer.status,
                    body: answer.body,
                    sent_at,
                    answered_at,
                });
            }
        },
        Err(Failure::Timeout) => {
            outcome.hangs += 1;
            outcome.unanswered.push(request.clone());
        }
        Err(Failure::Transport(_)) => outcome.unanswered.push(request.clone()),
    }
}

/// The `n`-th request of POS `pos` (named `prefix`), given what it issued so far.
fn next_request(
    n: usize,
    prefix: &str,
    till: &Till,
    mix: Mix,
    outcome: &Outcome,
    cancelled: &mut usize,
) -> Request {
    let key = format!("{prefix}-{n}");
    let token = till.token.clone();
    if mix.deposits && n % 20 == 5 {
        return Request {
            kind: Kind::Deposit,
            key: None,
            path: "/api/v1/cash-register/deposit".to_string(),
            body: json!({"amount": 100 + n, "description": "Kusur"}),
            token,
        };
    }
    if mix.wtns && n % 20 == 17 {
        return Request {
            kind: Kind::Wtn,
            key: Some(key.clone()),
            path: "/api/v2/invoice/wtn".to_string(),
            body: transfer_note(&key),
            token,
        };
    }
    if mix.noncash && n % 10 == 3 {
        return Request {
            kind: Kind::NonCash,
            key: Some(key.clone()),
            path: "/api/v1/invoice/noncash".to_string(),
            body: on_account(&key),
            token,
        };
    }
    if mix.cancellations && n % 20 == 11 {
        let sales: Vec<&Ack> = outcome.acks.iter().filter(|a| a.kind == Kind::Cash).collect();
        if let Some(sale) = sales.get(*cancelled).and_then(|a| a.key.clone()) {
            *cancelled += 1;
            return Request {
                kind: Kind::Cancel,
                key: Some(sale.clone()),
                path: format!("/api/v1/invoice/cancel-by-internal-id/{sale}"),
                body: json!({}),
                token,
            };
        }
    }
    let price = 100 + i64::try_from(n % 50).unwrap_or(0) * 10;
    Request {
        kind: Kind::Cash,
        key: Some(key.clone()),
        path: "/api/v1/invoice/cash".to_string(),
        body: cash_sale(&key, price),
        token,
    }
}

/// How long and how a POS works.
pub struct Shift<'a> {
    /// Its internalIds start with this.
    pub prefix: String,
    pub mix: Mix,
    pub stop: &'a AtomicBool,
    pub deadline: Instant,
    pub max_requests: usize,
    /// A call without an answer ends the shift (the server was killed); otherwise it goes on.
    pub stop_on_silence: bool,
}

/// A POS issuing on `till` until the shift ends.
pub fn run(client: &Client, till: &Till, shift: &Shift<'_>) -> Outcome {
    let mut outcome = Outcome::default();
    let mut cancelled = 0;
    for n in 0..shift.max_requests {
        if shift.stop.load(Ordering::SeqCst) || Instant::now() >= shift.deadline {
            break;
        }
        let request = next_request(n, &shift.prefix, till, shift.mix, &outcome, &mut cancelled);
        let result = send(client, &request, &mut outcome);
        let silent = result.is_err();
        file(&request, result, &mut outcome);
        if silent && shift.stop_on_silence {
            break;
        }
    }
    outcome
}

/// A team of POS apps at work.
pub struct Fleet<'a> {
    pub base: &'a str,
    pub tills: &'a [Till],
    pub count: usize,
    pub mix: Mix,
    /// Ends every shift, at the latest.
    pub deadline: Instant,
    pub stop_on_silence: bool,
    /// A call's time limit.
    pub call_limit: Duration,
}

impl Fleet<'_> {
    /// `count` POS apps, POS `n` on till `n % tills`, work while `during` runs on this thread;
    /// then they are stopped. Returns what each saw and what `during` gave.
    pub fn work<R>(&self, during: impl FnOnce() -> R) -> (Vec<Outcome>, R) {
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..self.count)
                .filter_map(|n| {
                    let till = self.tills.get(n % self.tills.len().max(1))?;
                    let client = Client::new(self.base, self.call_limit);
                    let shift = Shift {
                        prefix: format!("pos{n}"),
                        mix: self.mix,
                        stop: &stop,
                        deadline: self.deadline,
                        max_requests: 1_000_000,
                        stop_on_silence: self.stop_on_silence,
                    };
                    Some(scope.spawn(move || run(&client, till, &shift)))
                })
                .collect();
            let during = during();
            stop.store(true, Ordering::SeqCst);
            let outcomes = workers.into_iter().filter_map(|w| w.join().ok()).collect();
            (outcomes, during)
        })
    }
}
