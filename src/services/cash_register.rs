//! The TCR as the shop's cash register: every lek in or out of the drawer is registered with the
//! CIS (RegisterCashDepositRequest) and the balance is known locally, online or not.
//!
//! An action travels like a cash invoice: the TCR's lock `cash:{company}:{tcr}` is taken (the
//! same one cash invoices take, so sales, deposits and withdrawals of a till are numbered one at
//! a time), the balance is checked and the action saved with its queue entry in one
//! transaction, then the CIS is asked through the till's lane (its places at the CIS; an INITIAL
//! goes ahead of the till's later documents). Unlike a sale, an explicit action keeps the till's
//! lock while its POS waits (at most `--cis-wait`): accepted sets the FCDC; refused deletes the
//! action and undoes what it did to the day (the caller reads `[code] reason`, the number goes
//! back); no answer, or no answer within the budget, leaves it PENDING for the queue (a refusal
//! that comes after that keeps it, REJECTED). The balance counts an action from the moment it
//! is saved.
//!
//! The day: open-balance (or, before the first cash invoice of a day that is not open, an
//! automatic INITIAL of 0 in the invoice's own transaction) opens it; close-balance closes it.
//! A day left open past midnight stays open on record until close-balance, but the next cash
//! invoice or open-balance of the new date opens a new day.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{Datelike, NaiveDate};
use chrono_tz::Europe::Tirane;
use rusqlite::Connection;
use rust_decimal::Decimal;
use tokio::sync::{OwnedMutexGuard, oneshot};
use uuid::Uuid;

use super::budget::{self, Handover};
use super::lanes::{Gate, Opening, Place};
use super::locks::LOCK_WAIT;
use super::pipeline::{Ahead, QueuePlan, log_unsettled};
use super::sequence::Sequence;
use super::{Cash, Error, Held, Result, Services, audit};
use crate::domain::audit::Action as Audited;
use crate::domain::cash_register::{self as rules, ActionType, CashSale, Movement, Purpose, Reopening};
use crate::domain::drawer::{self, CloseError, Closing, Count, DayFigures, Takings};
use crate::domain::validation::FieldErrors;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::delivery::{Delivery, Refusal};
use crate::fiscal::model::{CashDeposit, CashDepositOperation, Header, SubseqDelivType};
use crate::fiscal::requests::{self, Operation};
use crate::store;
use crate::store::accounts::Caller;
use crate::store::cash_register::{self as db, Action, Day, ListFilter, Queueing};
use crate::store::fiscal_queue::{self, Document};

/// The spec caches the balance for 5 seconds.
const BALANCE_TTL: Duration = Duration::from_secs(5);

/// A deposit or withdrawal as the edge read it.
#[derive(Debug, Clone, Default)]
pub struct ActionRequest {
    pub amount: Option<Decimal>,
    pub description: Option<String>,
    pub third_party: Option<String>,
    pub id_client: Option<i64>,
}

/// What open-balance came to.
pub enum Opened {
    /// A new action was registered: the INITIAL, or the DEPOSIT of the difference.
    Registered(Action),
    /// The day is already open with this amount; the opening action is returned as it is.
    Unchanged(Action),
}

/// What close-balance was sent: the counted cash, its count by lek notes and coins (either or
/// both), and what to take out.
#[derive(Debug, Clone, Default)]
pub struct CloseCount {
    pub counted: Option<Decimal>,
    pub by_denomination: Option<Count>,
    pub withdraw: Option<Decimal>,
}

/// The closed day, as close-balance answers it.
pub struct DaySummary {
    pub day: Day,
    pub figures: DayFigures,
    pub closing: Closing,
    /// The count by notes and coins, when it was sent.
    pub count: Option<Count>,
    /// The day's INITIAL (automatic or not) and any DEPOSIT of a later open-balance.
    pub opening_actions: Vec<Action>,
    /// The withdrawal of what left the drawer; none when nothing did.
    pub closing_action: Option<Action>,
}

/// Balances by (company, TCR, toDate), kept 5 s. Every write that moves a TCR's balance bumps
/// the TCR's generation, and a value read under an older generation is never stored, so a POS
/// always sees its own action or sale at once.
#[derive(Default)]
pub struct BalanceCache {
    inner: Mutex<CacheInner>,
}

type TcrKey = (i64, String);

#[derive(Default)]
struct CacheInner {
    generations: HashMap<TcrKey, u64>,
    values: HashMap<(TcrKey, Option<NaiveDate>), (Instant, u64, Decimal)>,
}

impl BalanceCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        match self.inner.lock() {
            Ok(inner) => inner,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The cached balance, or the generation to store a fresh one under.
    fn get(&self, tcr: &TcrKey, to_date: Option<NaiveDate>) -> std::result::Result<Decimal, u64> {
        let inner = self.lock();
        let generation = inner.generations.get(tcr).copied().unwrap_or_default();
        match inner.values.get(&(tcr.clone(), to_date)) {
            Some((at, stored, value)) if *stored == generation && at.elapsed() < BALANCE_TTL => Ok(*value),
            _ => Err(generation),
        }
    }

    fn put(&self, tcr: &TcrKey, to_date: Option<NaiveDate>, generation: u64, value: Decimal) {
        let mut inner = self.lock();
        if inner.generations.get(tcr).copied().unwrap_or_default() != generation {
            return;
        }
        // Expired values go, so the map holds no more than the last 5 s of queries.
        inner.values.retain(|_, (at, _, _)| at.elapsed() < BALANCE_TTL);
        inner.values.insert((tcr.clone(), to_date), (Instant::now(), generation, value));
    }

    /// The TCR's balance moved: every cached value of it is stale.
    pub fn invalidate(&self, company_id: i64, tcr_code: &str) {
        let mut inner = self.lock();
        let key = (company_id, tcr_code.to_string());
        *inner.generations.entry(key.clone()).or_default() += 1;
        inner.values.retain(|(tcr, _), _| *tcr != key);
    }
}

/// The balance of a TCR from the store: everything registered before `before` (UTC), or all.
pub(super) fn balance_at(
    conn: &Connection,
    company_id: i64,
    tcr_code: &str,
    before: Option<&str>,
) -> crate::store::Result<Decimal> {
    let movements: Vec<Movement> = db::movements(conn, company_id, tcr_code, before)?
        .into_iter()
        .map(|(action_type, amount)| Movement { action_type, amount })
        .collect();
    let sales: Vec<CashSale> = db::cash_sales(conn, company_id, tcr_code, before)?
        .into_iter()
        .map(|(gross_all, self_issued)| CashSale { gross_all, self_issued })
        .collect();
    Ok(rules::balance(&movements, &sales)?)
}

/// The day's figures: its actions by purpose, the cash sales written while it was open, and
/// what those documents took by payment method and in the drawer.
pub(super) fn day_figures(
    conn: &Connection,
    day: &Day,
    actions: &[Action],
) -> crate::store::Result<DayFigures> {
    let mut figures = DayFigures::default();
    for a in actions {
        figures.add(a.purpose, a.action_type, a.amount)?;
    }
    let sales: Vec<CashSale> = db::day_cash_sales(conn, day.id)?
        .into_iter()
        .map(|(gross_all, self_issued)| CashSale { gross_all, self_issued })
        .collect();
    figures.cash_sales = rules::balance(&[], &sales)?;
    figures.takings = Takings::of(&db::day_documents(conn, day.id)?)?;
    Ok(figures)
}

/// The TCR's day that is open on `today`, if any.
fn open_day_on(
    conn: &Connection,
    company_id: i64,
    tcr_code: &str,
    today: NaiveDate,
) -> crate::store::Result<Option<Day>> {
    Ok(db::latest_day(conn, company_id, tcr_code)?
        .filter(|d| d.closed_at.is_none() && d.business_day == today.to_string()))
}

/// Numbers the action (MAX+1 per TCR and year) and saves it with its queue entry.
fn save(
    conn: &Connection,
    mut action: Action,
    plan: &QueuePlan,
    unsigned: &str,
) -> crate::store::Result<(Action, i64)> {
    action.transaction_no =
        db::max_transaction_no(conn, action.company_id, &action.tcr_code, action.year)? + 1;
    action.cash_action_no = format!("{}/{}", action.transaction_no, action.year);
    let (id, queue_id) = db::insert(
        conn,
        &action,
        &Queueing {
            unsigned_request: unsigned,
            subseq_deliv_type: plan.late.map(|s| s.as_str()),
            next_attempt_at: &plan.next_attempt_at(),
            last_error: plan.last_error(),
        },
    )?;
    action.id = id;
    Ok((action, queue_id))
}

/// A new action with its unsigned CIS request, before it is numbered and saved.
pub(super) struct Draft {
    action: Action,
    unsigned: String,
    plan: QueuePlan,
}

/// An action saved by its transaction, waiting for its first CIS call.
pub struct Saved {
    action: Action,
    queue_id: i64,
    unsigned: String,
}

impl Ahead for Saved {
    fn queue_id(&self) -> i64 {
        self.queue_id
    }

    fn register<'a>(
        self: Box<Self>,
        services: &'a Services,
        certificate: Arc<Certificate>,
        place: &'a Place,
    ) -> Pin<Box<dyn Future<Output = Gate> + Send + 'a>> {
        Box::pin(async move { services.cash().register_automatic_opening(certificate, *self, place).await })
    }

    fn defer<'a>(
        self: Box<Self>,
        services: &'a Services,
        subseq: SubseqDelivType,
        reason: &'a str,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(async move { services.cash().defer_action(*self, subseq, reason).await })
    }
}

/// What the first CIS call of an action came to.
enum FirstCall {
    Fiscalized(Box<Action>),
    Refused(Refusal),
    /// Not registered (no answer, or the CIS's own fault): queued with this late-delivery type.
    Deferred(SubseqDelivType, String),
}

/// What to undo when the CIS refuses an action at once.
enum Undo {
    Nothing,
    /// The action opened the day: without it the day was never opened.
    DeleteDay(i64),
    /// The action was the close's withdrawal: the day is open again.
    ReopenDay(i64),
}

fn trimmed(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

fn insufficient(balance: Decimal) -> Error {
    Error::Refused(format!(
        "Insufficient funds in the cash register: the balance is {} ALL.",
        crate::fiscal::model::money(balance)
    ))
}

/// A new action of `caller` on `tcr_code` at `plan.at`, with its signed-to-be CIS request.
fn cash_draft(
    caller: &Caller,
    tcr_code: &str,
    (action_type, purpose): (ActionType, Purpose),
    amount: Decimal,
    plan: &QueuePlan,
    details: ActionRequest,
) -> Draft {
    let at = plan.at;
    let operation = match action_type {
        ActionType::Initial => CashDepositOperation::Initial,
        ActionType::MoneyIn => CashDepositOperation::Deposit,
        ActionType::MoneyOut => CashDepositOperation::Withdraw,
    };
    let uuid = Uuid::new_v4();
    let unsigned = requests::register_cash_deposit(
        &Header { uuid, send_date_time: at, subseq_deliv_type: None },
        &CashDeposit {
            change_date_time: at,
            operation,
            cash_amt: amount,
            tcr_code: tcr_code.to_string(),
            issuer_nuis: caller.company.nuis.clone(),
        },
    );
    let action = Action {
        id: 0,
        company_id: caller.company.id,
        tcr_code: tcr_code.to_string(),
        user_id: Some(caller.user.id),
        cash_day_id: None,
        action_type,
        operation: operation.as_str().to_string(),
        purpose,
        automatic: false,
        amount,
        currency: "ALL".to_string(),
        transacted_at: at.to_rfc3339(),
        business_day: rules::business_day(at).to_string(),
        year: at.with_timezone(&Tirane).year(),
        transaction_no: 0,
        cash_action_no: String::new(),
        description: details.description,
        third_party: details.third_party,
        client_id: details.id_client,
        fiscal_status: "PENDING".to_string(),
        fiscal_uuid: uuid.to_string(),
        fiscal_fic: None,
        created_at: String::new(),
    };
    Draft { action, unsigned, plan: plan.clone() }
}

impl Cash<'_> {
    /// The till an action acts on: the caller's own, or the one named in `tcr` (a manager's or
    /// an owner's pick, one of the company's TCRs: else 422 `tcr`). Without either, every
    /// cash-register route is the spec's soft refusal.
    async fn till_of(&self, caller: &Caller, asked: Option<&str>) -> Result<String> {
        let asked = asked.map(str::trim).filter(|t| !t.is_empty());
        let Some(tcr_code) = crate::domain::role::till_to_act_on(caller.reader(), asked)? else {
            return Err(Error::Refused("The user has no fiscal device (TCR).".into()));
        };
        if Some(tcr_code) == caller.user.tcr_code.as_deref() {
            return Ok(tcr_code.to_string());
        }
        let (company_id, code) = (caller.company.id, tcr_code.to_string());
        let device = self
            .services
            .store
            .read(move |conn| crate::store::devices::by_code(conn, company_id, &code))
            .await?;
        match device {
            Some(device) => Ok(device.tcr_code),
            None => Err(FieldErrors::one("tcr", "The tcr is not one of the company's TCRs.").into()),
        }
    }

    async fn tcr_lock(&self, company_id: i64, tcr_code: &str) -> Result<OwnedMutexGuard<()>> {
        self.services
            .locks
            .acquire(&till(company_id, tcr_code), LOCK_WAIT)
            .await
            .ok_or_else(|| Error::Busy(Held::CashRegister))
    }

    /// The first CIS call of a saved action, in one of its lane's places at the CIS; the result
    /// is written back (FCDC, or the queue's late-delivery type). A refusal is only reported:
    /// the caller decides what stays.
    async fn deliver_action(
        &self,
        certificate: Arc<Certificate>,
        saved: Saved,
        place: &Place,
    ) -> Result<FirstCall> {
        let Saved { mut action, queue_id, unsigned } = saved;
        let delivery = {
            let _at_the_cis = place.at_the_cis().await;
            self.services.deliver(certificate, Operation::RegisterCashDeposit, unsigned).await
        };
        match delivery {
            Delivery::Accepted(fcdc) => {
                let (id, code) = (action.id, fcdc.clone());
                self.services
                    .store
                    .write_unsynced(move |tx| {
                        super::queue::accepted(tx, Document::CashAction, Some(id), queue_id, &code)
                    })
                    .await?;
                action.fiscal_status = "FISCALIZED".to_string();
                action.fiscal_fic = Some(fcdc);
                Ok(FirstCall::Fiscalized(Box::new(action)))
            }
            Delivery::Refused(refusal) => Ok(FirstCall::Refused(refusal)),
            Delivery::NotDelivered { subseq, reason } => {
                self.services.defer(queue_id, subseq, &reason).await?;
                Ok(FirstCall::Deferred(subseq, reason))
            }
        }
    }

    /// An action that cannot go to the CIS before the opening ahead of it: it waits in the
    /// queue behind it.
    pub(super) async fn defer_action(&self, saved: Saved, subseq: SubseqDelivType, reason: &str) {
        log_unsettled(saved.queue_id, self.services.defer(saved.queue_id, subseq, reason).await);
    }

    /// Sends a new explicit action to the CIS and answers for it. The till's lock (`guard`) is
    /// held while its POS waits (at most `--cis-wait`): a refusal is undone with nothing numbered
    /// after it, and the next withdrawal is checked against what the CIS took. Past the budget
    /// the POS is answered with the action pending while its delivery goes on; a refusal then
    /// keeps it on record (REJECTED), as for any action the CIS refuses after its POS had it.
    async fn register_new(
        &self,
        certificate: Arc<Certificate>,
        saved: Saved,
        (breaker_open, undo): (bool, Undo),
        guard: OwnedMutexGuard<()>,
        deadline: tokio::time::Instant,
    ) -> Result<Action> {
        let (company_id, tcr_code) = (saved.action.company_id, saved.action.tcr_code.clone());
        self.services.balances.invalidate(company_id, &tcr_code);
        if breaker_open {
            self.services.queue.wake();
            crate::ops::metrics::document_issued(Document::CashAction.as_str());
            return Ok(saved.action);
        }
        let opens = (saved.action.action_type == ActionType::Initial).then_some(saved.queue_id);
        let (place, opening) = self.services.lanes.join(&till(company_id, &tcr_code), opens);
        let handover = Handover::new(saved.action.clone());
        let (answer, answered) = oneshot::channel();
        let (services, waiting) = (self.services.clone(), handover.clone());
        tokio::spawn(crate::cis_wait::Recorder::current().scope(async move {
            let call = ActionCall { certificate, saved, place, opening, undo };
            let outcome = services.cash().first_call_of_action(call, &waiting).await;
            services.balances.invalidate(company_id, &tcr_code);
            if let Some(outcome) = outcome {
                // A POS that hung up is no one's concern here.
                let _ = answer.send(outcome);
            }
        }));
        // The delivery runs in a task of its own: this request's task may be dropped with its POS.
        let answer =
            budget::wait(async move { answered.await.ok() }, &handover, Some(deadline), |pending| pending)
                .await;
        drop(guard);
        if answer.is_ok() {
            crate::ops::metrics::document_issued(Document::CashAction.as_str());
        }
        answer
    }

    /// An explicit action's first call, behind the day's opening if one is on its way (an
    /// INITIAL of its own lets the till's later documents go once it is through). Returns its
    /// POS's answer, or None when the POS was already answered (pending).
    async fn first_call_of_action(
        &self,
        call: ActionCall,
        handover: &Handover<Action>,
    ) -> Option<Result<Action>> {
        let ActionCall { certificate, saved, mut place, opening, undo } = call;
        let (id, queue_id) = (saved.action.id, saved.queue_id);
        let first_call = match place.behind_opening().await {
            Gate::Passed => self.deliver_action(certificate, saved, &place).await,
            Gate::Closed { subseq, reason } => {
                self.defer_action(saved, subseq, &reason).await;
                Ok(FirstCall::Deferred(subseq, reason))
            }
        };
        if let Some(opening) = opening {
            opening.done(match &first_call {
                Ok(FirstCall::Fiscalized(_) | FirstCall::Refused(_)) => Gate::Passed,
                Ok(FirstCall::Deferred(subseq, reason)) => {
                    Gate::Closed { subseq: *subseq, reason: reason.clone() }
                }
                Err(e) => Gate::Closed { subseq: SubseqDelivType::TechnicalError, reason: e.to_string() },
            });
        }
        match first_call {
            Ok(FirstCall::Fiscalized(action)) => handover.take().map(|_| Ok(*action)),
            Ok(FirstCall::Deferred(..)) => handover.take().map(Ok),
            Ok(FirstCall::Refused(refusal)) => match handover.take() {
                Some(_) => Some(
                    self.undo_refused((id, queue_id), undo).await.and(Err(Error::Refused(refusal.message()))),
                ),
                None => {
                    self.services.keep_refused(Document::CashAction, id, queue_id, refusal).await;
                    None
                }
            },
            Err(e) => handover.take().map(|_| Err(e)),
        }
    }

    /// An action the CIS refused while its POS waited goes, with its queue entry (its number is
    /// given back: the till's lock is still held), and what it did to the day is undone.
    async fn undo_refused(&self, (id, queue_id): (i64, i64), undo: Undo) -> Result<()> {
        self.services
            .store
            .write(move |tx| {
                db::delete(tx, id, queue_id)?;
                match undo {
                    Undo::Nothing => Ok(()),
                    Undo::DeleteDay(day) => db::delete_day(tx, day),
                    Undo::ReopenDay(day) => db::reopen_day(tx, day),
                }
            })
            .await?;
        Ok(())
    }

    /// description and third_party up to 255 characters; id_client one of the company's.
    async fn action_details(&self, caller: &Caller, req: &ActionRequest) -> Result<ActionRequest> {
        let mut errors = FieldErrors::new();
        let description = trimmed(req.description.clone());
        let third_party = trimmed(req.third_party.clone());
        errors.max_len("description", description.as_deref(), 255);
        errors.max_len("third_party", third_party.as_deref(), 255);
        if let Some(id) = req.id_client {
            let company_id = caller.company.id;
            let found = self
                .services
                .store
                .read(move |conn| crate::store::clients::get(conn, company_id, id))
                .await?;
            if found.is_none() {
                errors.add("id_client", "The selected id_client is invalid.");
            }
        }
        errors.into_result()?;
        Ok(ActionRequest { amount: req.amount, description, third_party, id_client: req.id_client })
    }

    /// `POST /cash-register/deposit` (MONEY_IN) and `/withdraw` (MONEY_OUT).
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn cash_action(
        &self,
        caller: &Caller,
        tcr: Option<&str>,
        req: ActionRequest,
        action_type: ActionType,
    ) -> Result<Action> {
        let tcr_code = self.till_of(caller, tcr).await?;
        let amount = rules::amount("amount", req.amount, false);
        let details = self.action_details(caller, &req).await;
        let (amount, details) = match (amount, details) {
            (Ok(a), Ok(d)) => (a, d),
            (Err(mut e), Err(Error::Invalid(more))) => {
                e.merge(more);
                return Err(e.into());
            }
            (Err(e), _) => return Err(e.into()),
            (_, Err(e)) => return Err(e),
        };
        let purpose = if action_type == ActionType::MoneyOut { Purpose::Withdraw } else { Purpose::Deposit };
        let company_id = caller.company.id;
        let deadline = tokio::time::Instant::now() + self.services.cis_wait;
        let certificate = self.services.signer(company_id).await?;
        let guard = self.tcr_lock(company_id, &tcr_code).await?;
        let plan = self.services.queue_plan(self.services.clock.utc());
        let (now, breaker_open) = (plan.at, plan.late.is_some());
        let draft = cash_draft(caller, &tcr_code, (action_type, purpose), amount, &plan, details);
        let audited =
            if action_type == ActionType::MoneyOut { Audited::CashWithdraw } else { Audited::CashDeposit };
        let mut entry = audit::by(caller, audited, "");
        let saved = self
            .services
            .store
            .write(move |tx| {
                let Draft { mut action, unsigned, plan } = draft;
                // Checked in the write transaction, under the TCR's lock: concurrent withdrawals
                // see each other and never take the register below zero.
                if action_type == ActionType::MoneyOut {
                    let balance = balance_at(tx, company_id, &action.tcr_code, None)?;
                    if balance < amount {
                        return Err(insufficient(balance));
                    }
                }
                let today = rules::business_day(now);
                action.cash_day_id = open_day_on(tx, company_id, &action.tcr_code, today)?.map(|d| d.id);
                let (action, queue_id) = save(tx, action, &plan, &unsigned)?;
                entry.object = action.id.to_string();
                let entry =
                    entry.after(serde_json::json!({ "tcr": action.tcr_code, "amount": amount.to_string() }));
                store::audit::append(tx, &entry)?;
                Ok(Saved { action, queue_id, unsigned })
            })
            .await?;
        self.register_new(certificate, saved, (breaker_open, Undo::Nothing), guard, deadline).await
    }

    /// `POST /cash-register/open-balance`: the INITIAL deposit of the day, or on a day already
    /// open a DEPOSIT of the difference.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn open_balance(
        &self,
        caller: &Caller,
        tcr: Option<&str>,
        amount: Option<Decimal>,
        description: Option<String>,
    ) -> Result<Opened> {
        let tcr_code = self.till_of(caller, tcr).await?;
        let amount = rules::amount("amount", amount, true)?;
        let details =
            self.action_details(caller, &ActionRequest { description, ..Default::default() }).await?;
        let company_id = caller.company.id;
        let deadline = tokio::time::Instant::now() + self.services.cis_wait;
        let certificate = self.services.signer(company_id).await?;
        let guard = self.tcr_lock(company_id, &tcr_code).await?;
        let plan = self.services.queue_plan(self.services.clock.utc());
        let (now, breaker_open) = (plan.at, plan.late.is_some());
        let initial = cash_draft(
            caller,
            &tcr_code,
            (ActionType::Initial, Purpose::Open),
            amount,
            &plan,
            details.clone(),
        );
        let caller_copy = caller.clone();
        let entry = audit::by(caller, Audited::DayOpen, "");
        enum Step {
            Saved(Saved, Undo),
            Unchanged(Action),
        }
        let lower = |opened_with: Decimal| {
            Error::Refused(format!(
                "The day is already open with {} ALL; take cash out with a withdrawal.",
                crate::fiscal::model::money(opened_with)
            ))
        };
        let step = self
            .services
            .store
            .write(move |tx| {
                let today = rules::business_day(now);
                let Some(day) = open_day_on(tx, company_id, &tcr_code, today)? else {
                    let day_id = db::insert_day(
                        tx,
                        company_id,
                        &tcr_code,
                        &today.to_string(),
                        &now.to_rfc3339(),
                        false,
                    )?;
                    let Draft { mut action, unsigned, plan } = initial;
                    action.cash_day_id = Some(day_id);
                    let (action, queue_id) = save(tx, action, &plan, &unsigned)?;
                    let entry = audit::Entry { object: day_id.to_string(), ..entry }
                        .after(serde_json::json!({ "tcr": tcr_code, "opening": amount.to_string() }));
                    store::audit::append(tx, &entry)?;
                    return Ok(Step::Saved(Saved { action, queue_id, unsigned }, Undo::DeleteDay(day_id)));
                };
                let openings: Vec<Action> =
                    db::day_actions(tx, day.id)?.into_iter().filter(|a| a.purpose == Purpose::Open).collect();
                let mut figures = DayFigures::default();
                for a in &openings {
                    figures.add(Purpose::Open, a.action_type, a.amount).map_err(store::Error::from)?;
                }
                match rules::reopening(figures.opening, amount).map_err(store::Error::from)? {
                    Reopening::Deposit(difference) => {
                        let Draft { mut action, unsigned, plan } = cash_draft(
                            &caller_copy,
                            &tcr_code,
                            (ActionType::MoneyIn, Purpose::Open),
                            difference,
                            &plan,
                            details,
                        );
                        action.cash_day_id = Some(day.id);
                        let (action, queue_id) = save(tx, action, &plan, &unsigned)?;
                        let entry = audit::Entry { object: day.id.to_string(), ..entry }
                            .before(serde_json::json!({ "opening": figures.opening.to_string() }))
                            .after(serde_json::json!({ "tcr": tcr_code, "opening": amount.to_string() }));
                        store::audit::append(tx, &entry)?;
                        Ok(Step::Saved(Saved { action, queue_id, unsigned }, Undo::Nothing))
                    }
                    Reopening::Unchanged => match openings.into_iter().last() {
                        Some(action) => Ok(Step::Unchanged(action)),
                        None => Err(lower(Decimal::ZERO)),
                    },
                    Reopening::Lower { opened_with } => Err(lower(opened_with)),
                }
            })
            .await?;
        match step {
            Step::Saved(saved, undo) => Ok(Opened::Registered(
                self.register_new(certificate, saved, (breaker_open, undo), guard, deadline).await?,
            )),
            Step::Unchanged(action) => Ok(Opened::Unchanged(action)),
        }
    }

    /// `POST /cash-register/close-balance`: counts the drawer against what it should hold,
    /// registers the withdrawal of what leaves it and closes the day. A difference is booked
    /// once, on this day (its own entry in the audit trail): the next day's drawer starts from
    /// what was counted.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn close_balance(
        &self,
        caller: &Caller,
        tcr: Option<&str>,
        count: CloseCount,
    ) -> Result<DaySummary> {
        let tcr_code = self.till_of(caller, tcr).await?;
        let CloseCount { counted, by_denomination, withdraw } = count;
        let counted = drawer::counted_cash(counted, by_denomination.as_ref(), "denominations")?;
        let company_id = caller.company.id;
        let deadline = tokio::time::Instant::now() + self.services.cis_wait;
        let certificate = self.services.signer(company_id).await?;
        let guard = self.tcr_lock(company_id, &tcr_code).await?;
        let plan = self.services.queue_plan(self.services.clock.utc());
        let (now, breaker_open) = (plan.at, plan.late.is_some());
        let caller_copy = caller.clone();
        let entry = audit::by(caller, Audited::DayClose, "");
        let difference_entry = audit::by(caller, Audited::CashDifference, "");
        let (mut summary, saved) = self
            .services
            .store
            .write(move |tx| {
                let Some(mut day) =
                    db::latest_day(tx, company_id, &tcr_code)?.filter(|d| d.closed_at.is_none())
                else {
                    return Err(Error::Refused("The cash register has no open day to close.".into()));
                };
                let balance = balance_at(tx, company_id, &tcr_code, None)?;
                let expected = db::drawer_expected(tx, company_id, &tcr_code)?;
                let actions = db::day_actions(tx, day.id)?;
                let figures = day_figures(tx, &day, &actions)?;
                let closing = match drawer::close(&figures, (expected, balance), counted, withdraw) {
                    Ok(c) => c,
                    Err(CloseError::Invalid(e)) => return Err(e.into()),
                    Err(CloseError::Overflow(e)) => return Err(store::Error::from(e).into()),
                };
                if closing.withdraw > balance {
                    return Err(insufficient(balance));
                }
                let saved = if closing.withdraw > Decimal::ZERO {
                    let Draft { mut action, unsigned, plan } = cash_draft(
                        &caller_copy,
                        &tcr_code,
                        (ActionType::MoneyOut, Purpose::Close),
                        closing.withdraw,
                        &plan,
                        ActionRequest {
                            description: Some("Closing of the day".to_string()),
                            ..Default::default()
                        },
                    );
                    action.cash_day_id = Some(day.id);
                    let (action, queue_id) = save(tx, action, &plan, &unsigned)?;
                    Some(Saved { action, queue_id, unsigned })
                } else {
                    None
                };
                let closed_at = now.to_rfc3339();
                let closed = db::Closed {
                    expected: closing.expected,
                    counted: closing.counted,
                    count: by_denomination.clone(),
                    book: Some(store::reports::day_book_of(tx, company_id, day.id)?),
                    cash_sales: figures.cash_sales,
                    balance: closing.balance,
                    mark: db::newest_action(tx, company_id, &tcr_code)?,
                };
                db::close_day(tx, day.id, &closed_at, &closed)?;
                let entry = audit::Entry { object: day.id.to_string(), ..entry }
                    .before(serde_json::json!({ "expected": closing.expected.to_string() }))
                    .after(serde_json::json!({
                        "tcr": tcr_code,
                        "counted": closing.counted.to_string(),
                        "difference": closing.difference.to_string(),
                        "withdrawn": closing.withdraw.to_string(),
                    }));
                store::audit::append(tx, &entry)?;
                if !closing.difference.is_zero() {
                    let booked = audit::Entry { object: day.id.to_string(), ..difference_entry }.after(
                        serde_json::json!({
                            "tcr": tcr_code,
                            "business_day": day.business_day,
                            "expected": closing.expected.to_string(),
                            "counted": closing.counted.to_string(),
                            "difference": closing.difference.to_string(),
                        }),
                    );
                    store::audit::append(tx, &booked)?;
                }
                day.closed_at = Some(closed_at);
                let opening_actions = actions.into_iter().filter(|a| a.purpose == Purpose::Open).collect();
                let summary = DaySummary {
                    day,
                    figures,
                    closing,
                    count: by_denomination,
                    opening_actions,
                    closing_action: None,
                };
                Ok((summary, saved))
            })
            .await?;
        match saved {
            None => self.services.balances.invalidate(company_id, &summary.day.tcr_code),
            Some(saved) => {
                let undo = Undo::ReopenDay(summary.day.id);
                summary.closing_action =
                    Some(self.register_new(certificate, saved, (breaker_open, undo), guard, deadline).await?);
            }
        }
        Ok(summary)
    }

    /// `GET /cash-register/actions`: the TCR's actions, newest first.
    pub async fn cash_actions(
        &self,
        caller: &Caller,
        tcr: Option<&str>,
        filter: ListFilter,
    ) -> Result<Vec<Action>> {
        let tcr_code = self.till_of(caller, tcr).await?;
        let company_id = caller.company.id;
        Ok(self.services.store.read(move |conn| db::list(conn, company_id, &tcr_code, &filter)).await?)
    }

    /// `GET /cash-register/balance`: now, or at 23:59:59 (Tirane) of `to_date`; cached 5 s.
    pub async fn cash_balance(
        &self,
        caller: &Caller,
        tcr: Option<&str>,
        to_date: Option<NaiveDate>,
    ) -> Result<(String, Decimal)> {
        let tcr_code = self.till_of(caller, tcr).await?;
        let company_id = caller.company.id;
        let before = match to_date {
            None => None,
            Some(day) => Some(
                rules::end_of_day(day)
                    .ok_or_else(|| {
                        Error::from(FieldErrors::one("toDate", "The toDate is not a valid date."))
                    })?
                    .to_rfc3339(),
            ),
        };
        let key = (company_id, tcr_code.clone());
        let generation = match self.services.balances.get(&key, to_date) {
            Ok(balance) => return Ok((tcr_code, balance)),
            Err(generation) => generation,
        };
        let tcr = tcr_code.clone();
        let balance = self
            .services
            .store
            .read(move |conn| balance_at(conn, company_id, &tcr, before.as_deref()))
            .await?;
        self.services.balances.put(&key, to_date, generation, balance);
        Ok((tcr_code, balance))
    }

    /// Registers the automatic opening before its invoice, and says what became of it for the
    /// documents behind it. A refusal is kept on record (REJECTED) and logged: a cash invoice is
    /// never refused for its day's opening.
    pub(super) async fn register_automatic_opening(
        &self,
        certificate: Arc<Certificate>,
        saved: Saved,
        place: &Place,
    ) -> Gate {
        let (id, queue_id) = (saved.action.id, saved.queue_id);
        match self.deliver_action(certificate, saved, place).await {
            Ok(FirstCall::Fiscalized(_)) => Gate::Passed,
            Ok(FirstCall::Deferred(subseq, reason)) => Gate::Closed { subseq, reason },
            Ok(FirstCall::Refused(refusal)) => {
                let reason = refusal.message();
                tracing::error!(action_id = id, %reason, "the CIS refused the automatic opening of the day");
                let kept = self
                    .services
                    .store
                    .write(move |tx| {
                        db::set_rejected(tx, id)?;
                        fiscal_queue::mark_rejected(tx, queue_id, refusal.code.as_deref(), &reason)
                    })
                    .await;
                log_unsettled(queue_id, kept.map_err(Error::from));
                Gate::Passed
            }
            Err(e) => Gate::Closed { subseq: SubseqDelivType::TechnicalError, reason: e.to_string() },
        }
    }
}

/// What an explicit action's first call needs, on its task.
struct ActionCall {
    certificate: Arc<Certificate>,
    saved: Saved,
    place: Place,
    opening: Option<Opening>,
    undo: Undo,
}

/// The lock and lane key of a till: the same as its cash sequence's, so sales, deposits and
/// withdrawals of a till are numbered one at a time and share its places at the CIS.
fn till(company_id: i64, tcr_code: &str) -> String {
    Sequence::Till(tcr_code.to_string()).lock_key(company_id)
}

/// The INITIAL 0 a till's document needs when its TCR's day is not open; written by
/// `open_day_if_needed` inside the document's transaction.
pub(super) fn automatic_opening(caller: &Caller, tcr_code: &str, plan: &QueuePlan) -> Draft {
    let details = ActionRequest {
        description: Some("Opened automatically before the first cash invoice of the day".to_string()),
        ..Default::default()
    };
    let mut draft =
        cash_draft(caller, tcr_code, (ActionType::Initial, Purpose::Open), Decimal::ZERO, plan, details);
    draft.action.automatic = true;
    draft
}

/// Inside a till document's transaction: links the document to the TCR's day open on its
/// date, first opening one with the automatic INITIAL 0 when there is none. The INITIAL is
/// queued before the document, so the queue worker also delivers it first. `opening` drafts
/// it, only when it is needed.
pub(super) fn open_day_if_needed(
    conn: &Connection,
    invoice_id: i64,
    (company_id, tcr_code, at): (i64, &str, chrono::DateTime<chrono::Utc>),
    opening: impl FnOnce() -> Draft,
) -> crate::store::Result<Option<Saved>> {
    let latest = db::latest_day(conn, company_id, tcr_code)?;
    let business_day = rules::business_day(at).to_string();
    if let Some(day) = latest.filter(|d| d.closed_at.is_none() && d.business_day == business_day) {
        db::link_to_day(conn, invoice_id, day.id)?;
        return Ok(None);
    }
    let Draft { mut action, unsigned, plan } = opening();
    let day_id = db::insert_day(
        conn,
        action.company_id,
        &action.tcr_code,
        &action.business_day,
        &action.transacted_at,
        true,
    )?;
    db::link_to_day(conn, invoice_id, day_id)?;
    action.cash_day_id = Some(day_id);
    let (action, queue_id) = save(conn, action, &plan, &unsigned)?;
    tracing::info!(
        tcr = %action.tcr_code,
        day = %action.business_day,
        number = %action.cash_action_no,
        "the day was opened automatically with an INITIAL deposit of 0 before its first cash invoice"
    );
    Ok(Some(Saved { action, queue_id, unsigned }))
}
