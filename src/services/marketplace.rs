//! The delivery marketplace's use cases: who may use it, the orders Wolt's webhook brings, the
//! event feed, the POS's actions relayed to Wolt, and an order's invoice.
//!
//! A write travels like this: the order must exist for the caller's venue (404); the
//! Idempotency-Key is claimed in the store (a finished key replays its answer, one in flight is
//! 409); the order's lock is taken; the transition table (domain) decides the Wolt call or
//! refuses (409, nothing relayed); Wolt is called on the blocking pool; its answer moves the
//! order in one transaction with its event. The work runs in its own task, so a POS that hangs
//! up does not leave its key in flight. An answer that a retry could change (Wolt did not
//! answer, the CIS or the till was busy) frees the key instead of keeping it, and the retry
//! reads the order back from Wolt before calling it again.

use std::sync::Arc;
use std::time::Duration;

use chrono::{Datelike, Utc};
use chrono_tz::Europe::Tirane;
use serde_json::{Value, json};

use super::invoices::{ClientInput, IssueRequest};
use super::pipeline::Issued;
use super::{Services, audit};
use crate::domain::audit::Action as Audited;
use crate::domain::document::{ApiVersion, DocumentKind};
use crate::domain::invoice::InvoiceInput;
use crate::domain::invoice::{
    MAX_CLIENT_ADDRESS, MAX_CLIENT_CITY, MAX_CLIENT_NAME, MAX_LINE_TEXT, MAX_NOTES,
};
use crate::domain::marketplace::{
    Action, EventSource, FISCALIZED_EVENT, FiscalOrder, OrderState, PreorderStatus, WoltCall, WoltStatus,
    already_applied, check_venue, fiscal_draft, may_fiscalize, moved_by_wolt, step,
};
use crate::domain::payments::PaymentsInput;
use crate::domain::validation::{FieldErrors, clean_text};
use crate::ops::secrets::KeyFile;
use crate::services;
use crate::store::accounts::Caller;
use crate::store::marketplace::{self as db, Claim, Event, NewVenue, OrderFilter, StoredOrder, Venue};
use crate::store::{self, Store};
use crate::wolt::client::{Failure, WoltClient};
use crate::wolt::model::{Notification, OrderV2};
use crate::wolt::signature;

/// The longest an event-feed read waits for a new event (`wait`).
pub const MAX_FEED_WAIT: Duration = Duration::from_secs(25);

/// Errors of the marketplace use cases; each has the spec's marketplace `code`, which its text
/// starts with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The webhook's signature did not verify (or its venue is unknown).
    #[error("unauthenticated: the webhook signature did not verify")]
    Unverified,
    /// The company has no marketplace add-on.
    #[error("wolt_not_enabled")]
    NotEnabled,
    /// The token has no marketplace right, or the caller is not the owner.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The company has no single active venue.
    #[error("no_venue")]
    NoVenue,
    #[error("order_not_found")]
    OrderNotFound,
    /// Something other than an order is not there (a user of the rights route).
    #[error("not_found: {0}")]
    NotFound(String),
    /// The order's status does not allow the action; nothing was relayed.
    #[error("invalid_transition: {0}")]
    InvalidTransition(String),
    #[error("invalid_data: {}", .0.fields())]
    InvalidData(FieldErrors),
    /// The action failed: Wolt refused it (`kept`), or the invoice could not be issued now.
    #[error("action_failed: {message}")]
    ActionFailed { message: String, kept: bool },
    /// Wolt did not answer.
    #[error("wolt_upstream_error: {0}")]
    Upstream(String),
    #[error("idempotency_key_required")]
    KeyRequired,
    #[error("idempotency_in_progress")]
    KeyInProgress,
    /// A failure underneath (store, key file, a task, the invoice's issue): logged with its
    /// cause, answered 500.
    #[error("internal_error: {0}")]
    Internal(#[source] services::Error),
}

impl Error {
    /// The spec's marketplace `code`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Unverified => "unauthenticated",
            Error::NotEnabled => "wolt_not_enabled",
            Error::Forbidden(_) => "forbidden",
            Error::NoVenue => "no_venue",
            Error::OrderNotFound => "order_not_found",
            Error::NotFound(_) => "not_found",
            Error::InvalidTransition(_) => "invalid_transition",
            Error::InvalidData(_) => "invalid_data",
            Error::ActionFailed { .. } => "action_failed",
            Error::Upstream(_) => "wolt_upstream_error",
            Error::KeyRequired => "idempotency_key_required",
            Error::KeyInProgress => "idempotency_in_progress",
            Error::Internal(_) => "internal_error",
        }
    }

    /// Whether the answer is final for its Idempotency-Key (replayed to a retry).
    fn is_kept(&self) -> bool {
        match self {
            Error::InvalidTransition(_) => true,
            Error::ActionFailed { kept, .. } => *kept,
            _ => false,
        }
    }
}

impl From<store::Error> for Error {
    fn from(e: store::Error) -> Self {
        Error::Internal(e.into())
    }
}

impl From<crate::ops::secrets::Error> for Error {
    fn from(e: crate::ops::secrets::Error) -> Self {
        Error::Internal(e.into())
    }
}

impl From<tokio::task::JoinError> for Error {
    fn from(e: tokio::task::JoinError) -> Self {
        Error::Internal(e.into())
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// Who is calling, with the venue their company sells through.
#[derive(Debug, Clone)]
pub struct Access {
    pub caller: Arc<Caller>,
    pub venue: Venue,
}

/// A POS write on an order.
#[derive(Debug, Clone)]
pub enum Command {
    Act { action: Action, preparation_time: Option<i64>, reason: Option<String> },
    Fiscalize,
}

/// A write with its Idempotency-Key and the fingerprint of the request (method, path, body).
#[derive(Debug, Clone)]
pub struct WriteRequest {
    pub key: String,
    pub fingerprint: String,
    pub order_id: i64,
    pub command: Command,
}

/// An HTTP answer the edge rendered: what is kept under an Idempotency-Key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub status: u16,
    pub body: String,
}

/// The answer of a write: fresh, or the first answer again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Fresh(Rendered),
    Replayed(Rendered),
}

/// What the webhook did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    pub order_id: i64,
    /// The notification had been taken before: nothing changed.
    pub duplicate: bool,
}

/// The owner's view of the marketplace settings (never the credentials themselves).
#[derive(Debug, Clone)]
pub struct Settings {
    pub enabled: bool,
    pub venue: Option<Venue>,
    pub users_with_right: Vec<i64>,
}

/// A venue and its Wolt API credentials, as the owner gives them.
#[derive(Clone)]
pub struct VenueInput {
    pub wolt_venue_id: String,
    pub name: String,
    pub api_key: String,
    pub webhook_secret: String,
}

/// Changes to the settings; `None` leaves a setting as it is.
#[derive(Clone, Default)]
pub struct SettingsUpdate {
    pub enabled: Option<bool>,
    pub venue: Option<VenueInput>,
    /// Leave the company without an active venue.
    pub remove_venue: bool,
}

struct Inner {
    services: Services,
    wolt: WoltClient,
    /// Names this process in the Idempotency-Key store.
    run_id: String,
    /// How long to wait for an order's lock (a Wolt call takes at most the Wolt timeout).
    lock_wait: Duration,
    /// Bumped after every new event, so feed reads waiting for one wake up.
    feed: tokio::sync::watch::Sender<u64>,
}

/// The marketplace use cases; cheap to clone.
#[derive(Clone)]
pub struct Marketplace {
    inner: Arc<Inner>,
}

/// A venue checked, its credentials sealed, ready to be written.
struct SealedVenue {
    wolt_venue_id: String,
    name: String,
    key: Vec<u8>,
    secret: Vec<u8>,
}

fn seal_venue(key_file: &KeyFile, venue: &VenueInput) -> Result<SealedVenue> {
    check_venue(&venue.wolt_venue_id, &venue.name, &venue.api_key, &venue.webhook_secret)
        .map_err(Error::InvalidData)?;
    let name = if venue.name.trim().is_empty() { venue.wolt_venue_id.trim() } else { venue.name.trim() };
    Ok(SealedVenue {
        wolt_venue_id: venue.wolt_venue_id.trim().to_string(),
        name: name.to_string(),
        key: key_file.seal(venue.api_key.trim().as_bytes())?,
        secret: key_file.seal(venue.webhook_secret.trim().as_bytes())?,
    })
}

/// In the caller's transaction: `sealed` as the company's one active venue.
fn write_venue(
    tx: &rusqlite::Connection,
    company_id: i64,
    sealed: &SealedVenue,
    now: chrono::DateTime<Utc>,
) -> Result<i64> {
    let new = NewVenue {
        wolt_venue_id: &sealed.wolt_venue_id,
        name: &sealed.name,
        api_key_sealed: &sealed.key,
        webhook_secret_sealed: &sealed.secret,
    };
    db::put_venue(tx, company_id, &new, now).map_err(|e| match e {
        store::Error::Duplicate(_) => Error::InvalidData(FieldErrors::one(
            "venue.wolt_venue_id",
            "This Wolt venue belongs to another company.",
        )),
        other => Error::from(other),
    })
}

/// Seals and stores `venue` as the company's one active venue (the CLI and the sandbox).
pub fn put_venue(store: &Store, key_file: &KeyFile, company_id: i64, venue: &VenueInput) -> Result<i64> {
    let sealed = seal_venue(key_file, venue)?;
    // The sandbox's and the command line's venue, set once at the box's real time.
    store.write_blocking(|tx| write_venue(tx, company_id, &sealed, Utc::now()))
}

/// What the audit trail keeps of the settings: never the credentials.
fn settings_fields(tx: &rusqlite::Connection, company_id: i64) -> Result<serde_json::Value> {
    let venue = db::active_venues(tx, company_id)?.into_iter().next();
    Ok(serde_json::json!({
        "enabled": db::addon_enabled(tx, company_id)?,
        "venue": venue.map(|v| v.wolt_venue_id),
        "usersWithRight": db::users_with_right(tx, company_id)?,
    }))
}

/// The owner's command line (`arka marketplace ...`): the same settings as the route, on the
/// store directly.
///
/// Its stamps are the box's real time (`Utc::now()`): a command runs once, no test moves its clock.
pub mod owner_cli {
    use super::*;

    /// The company with this NUIS; none or several is an error naming it.
    pub fn company(store: &Store, nuis: &str) -> Result<i64> {
        let ids = store.read_blocking(|c| db::companies_by_nuis(c, nuis))?;
        match ids.as_slice() {
            [id] => Ok(*id),
            [] => Err(Error::NotFound(format!("no company has the NUIS {nuis}"))),
            _ => Err(Error::InvalidData(FieldErrors::one(
                "nuis",
                format!("several companies have the NUIS {nuis}"),
            ))),
        }
    }

    /// Writes `change` with its entry of the command line's in the same transaction, the
    /// settings before and after as the route's entry keeps them.
    fn audited<T>(
        store: &Store,
        company_id: i64,
        change: impl FnOnce(&rusqlite::Connection) -> Result<T>,
    ) -> Result<T> {
        let entry = audit::by_cli(Some(company_id), Audited::SettingsMarketplace, company_id);
        store.write_blocking(move |tx| {
            let before = settings_fields(tx, company_id)?;
            let done = change(tx)?;
            let entry = entry.before(before).after(settings_fields(tx, company_id)?);
            store::audit::append(tx, &entry)?;
            Ok(done)
        })
    }

    pub fn set_addon(store: &Store, company_id: i64, enabled: bool) -> Result<()> {
        audited(store, company_id, |tx| Ok(db::set_addon(tx, company_id, enabled, Utc::now())?))
    }

    /// Grants or withdraws the marketplace right of the token of the user with this e-mail.
    pub fn set_right(store: &Store, email: &str, granted: bool) -> Result<i64> {
        let found = store.read_blocking(|c| match db::user_by_email(c, email)? {
            Some(user) => Ok(db::company_of_user(c, user)?.map(|company| (user, company))),
            None => Ok(None),
        })?;
        let (user, company_id) =
            found.ok_or_else(|| Error::NotFound(format!("no user has the e-mail {email}")))?;
        audited(store, company_id, |tx| Ok(db::set_right(tx, user, granted, Utc::now())?))?;
        Ok(user)
    }

    /// Makes this venue the company's one active venue, its credentials sealed.
    pub fn put_venue(store: &Store, key_file: &KeyFile, company_id: i64, venue: &VenueInput) -> Result<i64> {
        let sealed = seal_venue(key_file, venue)?;
        audited(store, company_id, |tx| write_venue(tx, company_id, &sealed, Utc::now()))
    }

    pub fn remove_venue(store: &Store, company_id: i64) -> Result<usize> {
        audited(store, company_id, |tx| Ok(db::deactivate_venues(tx, company_id, Utc::now())?))
    }

    pub fn settings(store: &Store, company_id: i64) -> Result<Settings> {
        Ok(store.read_blocking(|c| {
            Ok(Settings {
                enabled: db::addon_enabled(c, company_id)?,
                venue: db::active_venues(c, company_id)?.into_iter().next(),
                users_with_right: db::users_with_right(c, company_id)?,
            })
        })?)
    }
}

fn opened(key_file: &KeyFile, sealed: &[u8]) -> Result<String> {
    String::from_utf8(key_file.open(sealed)?).map_err(|e| {
        Error::Internal(services::Error::PlatformAnswer {
            what: "sealed Wolt credential",
            cause: Box::new(e),
        })
    })
}

/// The fingerprint of a write: method, path and body, hashed.
pub fn fingerprint(method: &str, path: &str, body: &[u8]) -> String {
    let mut hasher = openssl::sha::Sha256::new();
    hasher.update(method.as_bytes());
    hasher.update(b"\n");
    hasher.update(path.as_bytes());
    hasher.update(b"\n");
    hasher.update(body);
    crate::ops::secrets::hex_lower(&hasher.finish())
}

fn refused(failure: Failure) -> Error {
    match failure {
        Failure::Refused { status, message } => Error::ActionFailed {
            message: format!("Wolt refused the action (HTTP {status}): {message}"),
            kept: true,
        },
        Failure::Upstream(why) => {
            Error::Upstream(format!("Wolt did not answer ({why}); retry with the same Idempotency-Key."))
        }
    }
}

impl Marketplace {
    pub fn new(services: Services, wolt: WoltClient, wolt_timeout: Duration) -> Marketplace {
        let (feed, _) = tokio::sync::watch::channel(0);
        Marketplace {
            inner: Arc::new(Inner {
                services,
                wolt,
                run_id: uuid::Uuid::new_v4().to_string(),
                lock_wait: wolt_timeout * 2 + Duration::from_secs(1),
                feed,
            }),
        }
    }

    fn store(&self) -> &Store {
        &self.inner.services.store
    }

    /// The time orders, venues and rights are stamped with.
    fn clock(&self) -> &crate::domain::time::WallClock {
        &self.inner.services.clock
    }

    fn key_file(&self) -> &KeyFile {
        &self.inner.services.key_file
    }

    fn events_changed(&self) {
        self.inner.feed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Runs a Wolt call on the blocking pool.
    async fn wolt<T: Send + 'static>(
        &self,
        call: impl FnOnce(&WoltClient) -> std::result::Result<T, Failure> + Send + 'static,
    ) -> Result<std::result::Result<T, Failure>> {
        let me = self.clone();
        Ok(tokio::task::spawn_blocking(move || call(&me.inner.wolt)).await?)
    }

    // --- who may call -------------------------------------------------------------------------

    /// The company's add-on, the token's right (every token of the sandbox company has it),
    /// and exactly one active venue, checked in that order.
    pub async fn access(&self, caller: Arc<Caller>) -> Result<Access> {
        let company_id = caller.company.id;
        let user_id = caller.user.id;
        let (enabled, right, venues) = self
            .store()
            .read(move |c| {
                Ok((
                    db::addon_enabled(c, company_id)?,
                    db::has_right(c, user_id)?,
                    db::active_venues(c, company_id)?,
                ))
            })
            .await?;
        if !enabled {
            return Err(Error::NotEnabled);
        }
        if !right && !caller.company.is_sandbox {
            return Err(Error::Forbidden(
                "This token has no marketplace right; the company's owner can grant it.".into(),
            ));
        }
        match <[Venue; 1]>::try_from(venues) {
            Ok([venue]) => Ok(Access { caller, venue }),
            Err(_) => Err(Error::NoVenue),
        }
    }

    // --- settings (the owner) -----------------------------------------------------------------

    pub async fn settings(&self, caller: &Caller) -> Result<Settings> {
        let (store, company_id) = (self.store().clone(), caller.company.id);
        tokio::task::spawn_blocking(move || owner_cli::settings(&store, company_id)).await?
    }

    pub async fn update_settings(&self, caller: &Caller, update: SettingsUpdate) -> Result<Settings> {
        let company_id = caller.company.id;
        if update.venue.is_some() && update.remove_venue {
            return Err(Error::InvalidData(FieldErrors::one(
                "remove_venue",
                "Send either venue or remove_venue, not both.",
            )));
        }
        let sealed = match &update.venue {
            Some(venue) => Some(seal_venue(&self.inner.services.key_file, venue)?),
            None => None,
        };
        let now = self.clock().utc();
        let entry = audit::by(caller, Audited::SettingsMarketplace, company_id);
        self.store()
            .write(move |tx| -> Result<()> {
                let before = settings_fields(tx, company_id)?;
                if let Some(sealed) = &sealed {
                    write_venue(tx, company_id, sealed, now)?;
                }
                if let Some(enabled) = update.enabled {
                    db::set_addon(tx, company_id, enabled, now)?;
                }
                if update.remove_venue {
                    db::deactivate_venues(tx, company_id, now)?;
                }
                let entry = entry.before(before).after(settings_fields(tx, company_id)?);
                store::audit::append(tx, &entry)?;
                Ok(())
            })
            .await?;
        self.settings(caller).await
    }

    /// Grants or withdraws the marketplace right of one of the company's users' tokens.
    pub async fn set_right(&self, caller: &Caller, user_id: i64, granted: bool) -> Result<Settings> {
        let company_id = caller.company.id;
        let entry = audit::by(caller, Audited::SettingsMarketplace, company_id);
        let clock = self.clock().clone();
        self.store()
            .write(move |tx| {
                if db::company_of_user(tx, user_id)? != Some(company_id) {
                    return Err(Error::NotFound("No such user in this company.".into()));
                }
                let before = settings_fields(tx, company_id)?;
                db::set_right(tx, user_id, granted, clock.utc())?;
                let entry = entry.before(before).after(settings_fields(tx, company_id)?);
                store::audit::append(tx, &entry)?;
                Ok(())
            })
            .await?;
        self.settings(caller).await
    }

    /// The sandbox company's add-on and venue, with the simulator's credentials.
    pub fn ensure_sandbox(&self, company_id: i64, venue: &VenueInput) -> Result<()> {
        put_venue(self.store(), self.key_file(), company_id, venue)?;
        self.store().write_blocking(|tx| db::set_addon(tx, company_id, true, self.clock().utc()))?;
        Ok(())
    }

    // --- reads --------------------------------------------------------------------------------

    /// The venue's events after `after`, oldest first; with `wait`, holds the read until one
    /// arrives or the wait is over.
    pub async fn events(
        &self,
        access: &Access,
        after: i64,
        limit: i64,
        wait: Duration,
    ) -> Result<Vec<Event>> {
        let mut changes = self.inner.feed.subscribe();
        let deadline = tokio::time::Instant::now() + wait.min(MAX_FEED_WAIT);
        let (company_id, venue_id) = (access.caller.company.id, access.venue.id);
        loop {
            changes.mark_unchanged();
            let events =
                self.store().read(move |c| db::events_after(c, company_id, venue_id, after, limit)).await?;
            if !events.is_empty() || tokio::time::Instant::now() >= deadline {
                return Ok(events);
            }
            if tokio::time::timeout_at(deadline, changes.changed()).await.is_err() {
                return Ok(Vec::new());
            }
        }
    }

    pub async fn orders(&self, access: &Access, mut filter: OrderFilter) -> Result<(Vec<StoredOrder>, i64)> {
        filter.venue_id = access.venue.id;
        let company_id = access.caller.company.id;
        Ok(self.store().read(move |c| db::orders(c, company_id, &filter)).await?)
    }

    pub async fn order(&self, access: &Access, id: i64) -> Result<StoredOrder> {
        let (company_id, venue_id) = (access.caller.company.id, access.venue.id);
        self.store()
            .read(move |c| db::order(c, company_id, id))
            .await?
            .filter(|o| o.venue_id == venue_id)
            .ok_or(Error::OrderNotFound)
    }

    // --- writes -------------------------------------------------------------------------------

    /// Runs a POS write under its Idempotency-Key; `render` turns the outcome into the answer
    /// that is kept for replays.
    #[tracing::instrument(skip_all, fields(order = request.order_id, company = access.caller.company.id), err(level = "info"))]
    pub async fn write(
        &self,
        access: Access,
        request: WriteRequest,
        render: fn(Result<StoredOrder>) -> Rendered,
    ) -> Result<Written> {
        self.order(&access, request.order_id).await?;
        let user_id = access.caller.user.id;
        let (key, fingerprint, run_id) =
            (request.key.clone(), request.fingerprint.clone(), self.inner.run_id.clone());
        let clock = self.clock().clone();
        let claim = self
            .store()
            .write(move |tx| db::claim(tx, user_id, &key, &fingerprint, &run_id, clock.utc()))
            .await?;
        let resumed = match claim {
            Claim::Fresh => false,
            Claim::Resumed => true,
            Claim::Replay { status, body } => return Ok(Written::Replayed(Rendered { status, body })),
            Claim::InProgress => return Err(Error::KeyInProgress),
            Claim::Mismatch => {
                return Err(Error::InvalidData(FieldErrors::one(
                    "Idempotency-Key",
                    "This Idempotency-Key was already used for another request.",
                )));
            }
        };
        // In its own task: a POS that hangs up must not leave the key in flight.
        let me = self.clone();
        let task = tokio::spawn(async move {
            let outcome = me.perform(&access, &request, resumed).await;
            let kept = match &outcome {
                Ok(_) => true,
                Err(e) => e.is_kept(),
            };
            if let Err(e) = &outcome {
                tracing::info!(order = request.order_id, code = e.code(), error = %crate::error_chain(e), "marketplace write refused");
            }
            let rendered = render(outcome);
            let (key, answer) = (request.key.clone(), rendered.clone());
            let saved = me
                .store()
                .write(move |tx| match kept {
                    true => db::finish(tx, user_id, &key, answer.status, &answer.body),
                    false => db::release(tx, user_id, &key),
                })
                .await;
            if let Err(e) = saved {
                tracing::error!(error = %crate::error_chain(&e), "the Idempotency-Key outcome could not be saved");
            }
            rendered
        });
        Ok(task.await.map(Written::Fresh)?)
    }

    async fn perform(&self, access: &Access, request: &WriteRequest, resumed: bool) -> Result<StoredOrder> {
        let lock_key = format!("marketplace-order:{}", request.order_id);
        let Some(_lock) = self.inner.services.locks.acquire(&lock_key, self.inner.lock_wait).await else {
            return Err(Error::InvalidTransition(
                "Another action on this order is still waiting for Wolt; try again in a moment.".into(),
            ));
        };
        let order = self.order(access, request.order_id).await?;
        match &request.command {
            Command::Act { action, preparation_time, reason } => {
                self.act(access, order, *action, *preparation_time, reason.clone(), resumed).await
            }
            Command::Fiscalize => self.fiscalize(access, order).await,
        }
    }

    async fn act(
        &self,
        access: &Access,
        order: StoredOrder,
        action: Action,
        preparation_time: Option<i64>,
        reason: Option<String>,
        resumed: bool,
    ) -> Result<StoredOrder> {
        let state = OrderState {
            status: order.status,
            delivery: order.delivery,
            preorder: order.preorder.as_ref().map(|p| p.status),
        };
        let step = step(state, action).map_err(|r| Error::InvalidTransition(r.0))?;
        let api_key = opened(self.key_file(), &access.venue.api_key_sealed)?;
        let wolt_id = order.wolt_order_id.clone();
        let body = match (step.call, preparation_time, &reason) {
            (WoltCall::Accept | WoltCall::SelfDeliveryAccept, Some(minutes), _) => {
                Some(accept_body(minutes, self.clock().utc()))
            }
            (WoltCall::Reject, _, Some(reason)) => Some(json!({"reason": reason})),
            _ => None,
        };
        // After a call that got no answer, Wolt may have done it: read the order first.
        let done_before = if resumed {
            let (key, id) = (api_key.clone(), wolt_id.clone());
            match self.wolt(move |w| w.order(&key, &id)).await? {
                Ok(now) => already_applied(step.call, now.progress()),
                Err(failure) => return Err(refused(failure)),
            }
        } else {
            false
        };
        if !done_before {
            let (key, id) = (api_key.clone(), wolt_id.clone());
            let sent = self.wolt(move |w| w.act(&key, &id, step.call, body.as_ref())).await?;
            match sent {
                Ok(()) => {}
                // Wolt answers 409 to an accept it already has: done, when Wolt's order agrees.
                Err(Failure::Refused { status: 409, message })
                    if matches!(
                        step.call,
                        WoltCall::Accept | WoltCall::SelfDeliveryAccept | WoltCall::ConfirmPreorder
                    ) =>
                {
                    let (key, id) = (api_key, wolt_id);
                    let agrees = matches!(
                        self.wolt(move |w| w.order(&key, &id)).await?,
                        Ok(now) if already_applied(step.call, now.progress())
                    );
                    if !agrees {
                        return Err(refused(Failure::Refused { status: 409, message }));
                    }
                }
                Err(failure) => return Err(refused(failure)),
            }
        }
        let (order_id, company_id) = (order.id, access.caller.company.id);
        let confirmed = step.call == WoltCall::ConfirmPreorder;
        let reject_reason = if action == Action::Reject { reason } else { None };
        let prep = if action == Action::Accept { preparation_time } else { None };
        let clock = self.clock().clone();
        self.store()
            .write(move |tx| -> Result<()> {
                let now = clock.utc();
                db::set_action_details(tx, order_id, prep, reject_reason.as_deref(), confirmed)?;
                if db::set_status(tx, order_id, step.next, now)? {
                    db::insert_event(
                        tx,
                        company_id,
                        order_id,
                        step.next.event_kind(),
                        step.next,
                        EventSource::Pos,
                        now,
                    )?;
                }
                Ok(())
            })
            .await?;
        self.events_changed();
        self.order(access, order_id).await
    }

    async fn fiscalize(&self, access: &Access, order: StoredOrder) -> Result<StoredOrder> {
        may_fiscalize(order.status, order.invoice.is_some()).map_err(|r| Error::InvalidTransition(r.0))?;
        if order.currency != "ALL" {
            return Err(Error::ActionFailed {
                message: format!(
                    "Only orders in lek (ALL) can be fiscalized; this one is in {}.",
                    order.currency
                ),
                kept: true,
            });
        }
        let request = issue_request(&order);
        let internal_id = request.internal_id.clone();
        let caller = access.caller.clone();
        let invoice_id = match self.inner.services.selling().issue_invoice(&caller, request).await {
            Ok(Issued::Fiscalized(invoice) | Issued::Deferred(invoice)) => invoice.id,
            // An earlier try issued it and stopped before linking it: link that invoice.
            Err(services::Error::Clash(clash)) => {
                let message = clash.to_string();
                let company_id = caller.company.id;
                let year = self.clock().utc().with_timezone(&Tirane).year();
                let found = self
                    .store()
                    .read(move |c| store::invoices::id_by_internal_id(c, company_id, year, &internal_id))
                    .await?;
                found.ok_or(Error::ActionFailed { message, kept: false })?
            }
            Err(e) => return Err(issue_failed(e)),
        };
        let (order_id, company_id, status) = (order.id, access.caller.company.id, order.status);
        let clock = self.clock().clone();
        self.store()
            .write(move |tx| -> Result<()> {
                let now = clock.utc();
                db::set_invoice(tx, order_id, invoice_id, now)?;
                db::insert_event(tx, company_id, order_id, FISCALIZED_EVENT, status, EventSource::Pos, now)?;
                Ok(())
            })
            .await?;
        self.events_changed();
        self.order(access, order_id).await
    }

    // --- the webhook --------------------------------------------------------------------------

    /// Takes a Wolt notification: the signature is checked against the venue's secret before
    /// anything is stored, the order is fetched from Wolt, and the order and its event are
    /// stored in one transaction. A notification taken before changes nothing.
    #[tracing::instrument(skip_all, err(level = "info"))]
    pub async fn webhook(&self, body: &[u8], signature_header: Option<&str>) -> Result<Taken> {
        let notification: Notification = serde_json::from_slice(body).map_err(|_| Error::Unverified)?;
        let wolt_venue_id = notification.order.venue_id.trim().to_string();
        let venue = self
            .store()
            .read(move |c| db::venue_by_wolt_id(c, &wolt_venue_id))
            .await?
            .ok_or(Error::Unverified)?;
        let secret = opened(self.key_file(), &venue.webhook_secret_sealed)?;
        if !signature_header.is_some_and(|s| signature::verify(secret.as_bytes(), body, s)) {
            tracing::warn!(venue = %venue.wolt_venue_id, "a Wolt webhook with a bad signature was refused");
            return Err(Error::Unverified);
        }
        let company_id = venue.company_id;
        if !self.store().read(move |c| db::addon_enabled(c, company_id)).await? {
            return Err(Error::NotEnabled);
        }
        if !venue.active {
            return Err(Error::NoVenue);
        }
        let problems = notification.problems();
        if !problems.is_empty() {
            return Err(Error::InvalidData(problems));
        }
        let order_id = notification.order.id.trim().to_string();
        let (venue_id, notification_id) = (venue.id, notification.id.trim().to_string());
        let seen = {
            let id = notification_id.clone();
            self.store().read(move |c| db::webhook_seen(c, venue_id, &id)).await?
        };
        if let Some(order_id) = seen {
            return Ok(Taken { order_id, duplicate: true });
        }
        let api_key = opened(self.key_file(), &venue.api_key_sealed)?;
        let fetched: OrderV2 = {
            let id = order_id.clone();
            self.wolt(move |w| w.order(&api_key, &id)).await?.map_err(|f| {
                Error::Upstream(format!(
                    "The order could not be fetched from Wolt: {f}. Wolt may send the webhook again."
                ))
            })?
        };
        let mut incoming = fetched.incoming().map_err(|why| {
            Error::InvalidData(FieldErrors::one("order", format!("Wolt's order cannot be taken: {why}.")))
        })?;
        if !incoming.wolt_venue_id.is_empty() && incoming.wolt_venue_id != venue.wolt_venue_id {
            return Err(Error::InvalidData(FieldErrors::one(
                "order.venue_id",
                "The order belongs to another venue.",
            )));
        }
        if incoming.wolt_status.is_none() {
            incoming.wolt_status = WoltStatus::parse(&notification.order.status);
        }
        let clock = self.clock().clone();
        let taken = self
            .store()
            .write(move |tx| -> Result<_> {
                let now = clock.utc();
                if let Some(order_id) = db::webhook_seen(tx, venue_id, &notification_id)? {
                    return Ok(Taken { order_id, duplicate: true });
                }
                let order_id = match db::order_by_wolt_id(tx, venue_id, &incoming.wolt_order_id)? {
                    None => {
                        let id = db::insert_order(tx, company_id, venue_id, &incoming, now)?;
                        let status = incoming.first_status();
                        db::insert_event(
                            tx,
                            company_id,
                            id,
                            status.event_kind(),
                            status,
                            EventSource::Wolt,
                            now,
                        )?;
                        id
                    }
                    Some((id, current)) => {
                        let preorder = incoming.preorder.as_ref().map(|p| p.status);
                        if preorder == Some(PreorderStatus::Confirmed) {
                            db::set_preorder_status(tx, id, PreorderStatus::Confirmed)?;
                        }
                        let moved = incoming.wolt_status.and_then(|w| moved_by_wolt(current, w, preorder));
                        if let Some(next) = moved
                            && db::set_status(tx, id, next, now)?
                        {
                            db::insert_event(
                                tx,
                                company_id,
                                id,
                                next.event_kind(),
                                next,
                                EventSource::Wolt,
                                now,
                            )?;
                        }
                        id
                    }
                };
                db::remember_webhook(tx, venue_id, &notification_id, order_id, now)?;
                Ok(Taken { order_id, duplicate: false })
            })
            .await?;
        if !taken.duplicate {
            self.events_changed();
        }
        Ok(taken)
    }
}

/// Text of a stored order as its invoice takes it: cleaned as Wolt's text is where it enters
/// (an order stored before that still fiscalizes, under the number held for it if one is) and
/// no longer than the invoice rules allow, so an order is never refused for Wolt's text.
fn invoice_text(text: &str, max: usize) -> String {
    clean_text(text).trim().chars().take(max).collect()
}

/// The invoice request an order becomes: a cash invoice, or a non-cash one to the company of
/// a B2B order; `internalId` `wolt-<Wolt order id>`, so it is issued once whatever happens.
fn issue_request(order: &StoredOrder) -> IssueRequest {
    let lines: Vec<_> = order.lines.iter().map(|l| l.line.clone()).collect();
    let company = order.company.as_ref().filter(|c| c.tax_id.is_some());
    let mut draft = fiscal_draft(&FiscalOrder {
        lines: &lines,
        totals: order.totals,
        cash_payment: order.cash_payment,
        billed_to_company: company.is_some(),
    });
    for line in &mut draft.lines {
        for text in [&mut line.product_name, &mut line.product_code] {
            *text = text.as_deref().map(|t| invoice_text(t, MAX_LINE_TEXT));
        }
    }
    let text = |t: &Option<String>, max: usize| t.as_deref().map(|t| invoice_text(t, max));
    let internal_id: String = format!("wolt-{}", order.wolt_order_id).chars().take(255).collect();
    IssueRequest {
        kind: if company.is_some() { DocumentKind::NonCash } else { DocumentKind::Cash },
        api_version: ApiVersion::V1,
        internal_id,
        client: company.map(|c| ClientInput {
            internal_id: None,
            name: text(&c.name, MAX_CLIENT_NAME),
            id_type: Some("NUIS".to_string()),
            id_value: c.tax_id.clone(),
            address: text(&c.address, MAX_CLIENT_ADDRESS),
            city: text(&c.city, MAX_CLIENT_CITY),
            country: None,
        }),
        rules: InvoiceInput {
            lines: draft.lines,
            issuer_in_vat: true,
            invoice_discount_type: draft.invoice_discount.map(|_| "amount".to_string()),
            invoice_discount_value: draft.invoice_discount,
            fee: None,
            exchange_rate: None,
            payments: PaymentsInput::V1 {
                payment_method: Some(draft.payment.as_str().to_string()),
                company_card: None,
                vouchers: None,
            },
        },
        currency: Some(order.currency.clone()),
        due_date: None,
        supply_start_date: None,
        supply_end_date: None,
        reverse_charge: false,
        periodic_invoice: false,
        notes: Some(match &order.order_number {
            Some(number) => invoice_text(&format!("Wolt {number}"), MAX_NOTES),
            None => "Wolt".to_string(),
        }),
        self_issue_type: None,
        doc_type: None,
        original_invoice_iic: None,
        bank_account_id: None,
        wtn_id: None,
    }
}

/// Why the invoice could not be issued, in the marketplace's terms. None of these is kept
/// under the Idempotency-Key: once the cause is fixed, the same key issues the invoice.
fn issue_failed(e: services::Error) -> Error {
    use services::Error as E;
    let failed = |message: String| Error::ActionFailed { message, kept: false };
    match e {
        E::Invalid(errors) => {
            let details: Vec<String> = errors
                .into_map()
                .into_iter()
                .map(|(field, messages)| format!("{field}: {}", messages.join(" ")))
                .collect();
            failed(format!("The invoice rules refused the order: {}", details.join("; ")))
        }
        E::Incomplete { message, errors } => {
            failed(format!("{message} {}", errors.join(" ")).trim().to_string())
        }
        E::Refused(message) | E::NotFound(message) => failed(message),
        E::Clash(clash) => failed(clash.to_string()),
        E::Forbidden(rule) => failed(rule.to_string()),
        E::Taken { field, message } => failed(format!("{field}: {message}")),
        E::Busy(message) => failed(format!("{message} Retry with the same Idempotency-Key.")),
        E::Unavailable(message) => failed(format!("{message} Retry with the same Idempotency-Key.")),
        // Every other error is a failure here or underneath, not an answer about the order.
        internal => Error::Internal(internal),
    }
}

/// What Wolt's accept carries for a preparation time: the pickup time it gives, RFC 3339.
fn accept_body(minutes: i64, now: chrono::DateTime<Utc>) -> Value {
    let at = now + chrono::Duration::minutes(minutes);
    json!({"adjusted_pickup_time": at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)})
}
