//! People at the owner's page: sign-in with e-mail and password (argon2id), its lock-out,
//! sessions, and passwords changed by their user or reset by the owner.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::audit;
use super::{Error, Result, Services};
use crate::domain::audit::Action;
use crate::domain::validation::FieldErrors;
use crate::ops::secrets::{hash_password, hash_token, new_token, verify_password};
use crate::store;
use crate::store::accounts::{self as db, Caller, User};
use crate::store::people;

/// The shortest password accepted: long enough that a stolen database's hashes are not worth
/// guessing at argon2id's cost.
pub const MIN_PASSWORD: usize = 10;
/// The longest: the hash's cost grows with it.
pub const MAX_PASSWORD: usize = 256;

/// Failed sign-ins counted per account (its e-mail) in `LOCK_WINDOW` before it is locked.
pub const ACCOUNT_FAILURES: usize = 5;
/// Failed sign-ins (and wrong setup codes) counted per address in `LOCK_WINDOW` before it is
/// locked: a shop's one network address may hold several people mistyping.
pub const ADDRESS_FAILURES: usize = 20;
/// The window failures are counted in; a lock ends when the oldest counted failure leaves it.
pub const LOCK_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Keys kept at most; past it, keys with nothing left in the window are dropped.
const MAX_KEYS: usize = 10_000;

/// Recent failures per account and per address, in memory: a restart forgets them, which only
/// the box's owner can cause.
#[derive(Default)]
pub struct Lockout {
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

fn account_key(email: &str) -> String {
    format!("a:{}", email.trim().to_lowercase())
}

fn address_key(ip: IpAddr) -> String {
    format!("ip:{}", ip.to_canonical())
}

impl Lockout {
    fn limit(key: &str) -> usize {
        if key.starts_with("a:") { ACCOUNT_FAILURES } else { ADDRESS_FAILURES }
    }

    /// How long `key` stays locked, if it is.
    fn locked(&self, key: &str, now: Instant) -> Option<Duration> {
        let failures = self.failures.lock().ok()?;
        let times = failures.get(key)?;
        let recent: Vec<&Instant> = times.iter().filter(|t| now.duration_since(**t) < LOCK_WINDOW).collect();
        let limit = Self::limit(key);
        if recent.len() < limit {
            return None;
        }
        // Unlocked when only limit - 1 failures are left in the window.
        let oldest_that_counts = recent[recent.len() - limit];
        Some(LOCK_WINDOW.saturating_sub(now.duration_since(*oldest_that_counts)).max(Duration::from_secs(1)))
    }

    fn fail(&self, key: String, now: Instant) {
        let Ok(mut failures) = self.failures.lock() else { return };
        if failures.len() >= MAX_KEYS {
            failures.retain(|_, times| times.back().is_some_and(|t| now.duration_since(*t) < LOCK_WINDOW));
        }
        let times = failures.entry(key).or_default();
        times.retain(|t| now.duration_since(*t) < LOCK_WINDOW);
        times.push_back(now);
    }

    fn forget(&self, key: &str) {
        if let Ok(mut failures) = self.failures.lock() {
            failures.remove(key);
        }
    }

    /// How long the address stays locked, if it is (sign-ins and setup codes).
    pub fn address_locked(&self, ip: IpAddr) -> Option<Duration> {
        self.locked(&address_key(ip), Instant::now())
    }

    /// Counts a wrong setup code against the address.
    pub fn wrong_setup_code(&self, ip: IpAddr) {
        self.fail(address_key(ip), Instant::now());
    }
}

/// Why a sign-in was refused. Wrong, unknown and locked all read the same to the caller; a
/// lock adds how long it lasts.
#[derive(Debug)]
pub enum Refused {
    Wrong { retry_after: Option<Duration> },
    Failed(Error),
}

impl From<Error> for Refused {
    fn from(e: Error) -> Self {
        Refused::Failed(e)
    }
}

impl From<store::Error> for Refused {
    fn from(e: store::Error) -> Self {
        Refused::Failed(e.into())
    }
}

/// A new session: the id for the cookie (never stored) and who it speaks for.
pub struct Session {
    pub id: String,
    pub caller: Caller,
}

/// A PHC string no password matches, verified against for unknown accounts so that a sign-in
/// takes as long whether the e-mail exists or not.
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_password("no account has this password").unwrap_or_default())
}

async fn verify_blocking(password: String, stored: Option<String>) -> Result<bool> {
    tokio::task::spawn_blocking(move || match stored {
        Some(stored) => verify_password(&password, &stored),
        None => {
            let _ = verify_password(&password, decoy_hash());
            false
        }
    })
    .await
    .map_err(|e| Error::Internal(e.to_string()))
}

async fn hash_blocking(password: String) -> Result<String> {
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| Error::Internal(e.to_string()))?
        .map_err(Error::from)
}

/// A new password's rules, under `field`.
pub fn check_new_password(errors: &mut FieldErrors, field: &str, password: Option<&str>, email: &str) {
    match password {
        None | Some("") => errors.add(field, format!("The {field} field is required.")),
        Some(p) if p.chars().count() < MIN_PASSWORD => {
            errors.add(field, format!("The {field} must be at least {MIN_PASSWORD} characters long."));
        }
        Some(p) if p.chars().count() > MAX_PASSWORD => {
            errors.add(field, format!("The {field} may be at most {MAX_PASSWORD} characters long."));
        }
        Some(p) if p.trim().eq_ignore_ascii_case(email.trim()) => {
            errors.add(field, format!("The {field} must not be the e-mail address."));
        }
        Some(_) => {}
    }
}

fn text_at(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A new session id and its hash as stored.
pub(crate) fn new_session_id() -> Result<(String, String)> {
    let id = new_token("s")?;
    let hash = hash_token(&id);
    Ok((id, hash))
}

impl Services {
    /// Signs a person in: a session for the user with this e-mail and password. Each failure
    /// counts against the account and the address; while either is locked, even the right
    /// password is refused.
    pub async fn sign_in(
        &self,
        lockout: &Arc<Lockout>,
        email: &str,
        password: &str,
        peer: IpAddr,
    ) -> std::result::Result<Session, Refused> {
        let (account, address) = (account_key(email), address_key(peer));
        let now = Instant::now();
        if let Some(wait) = lockout.locked(&account, now).or_else(|| lockout.locked(&address, now)) {
            return Err(Refused::Wrong { retry_after: Some(wait) });
        }
        let email_owned = email.trim().to_string();
        let found = self.store.read(move |conn| people::credentials(conn, &email_owned)).await?;
        let stored = found.as_ref().and_then(|c| c.password_hash.clone());
        let right = verify_blocking(password.to_string(), stored).await?;
        let Some(found) = found.filter(|_| right) else {
            let now = Instant::now();
            lockout.fail(account.clone(), now);
            lockout.fail(address.clone(), now);
            let retry_after = lockout.locked(&account, now).or_else(|| lockout.locked(&address, now));
            tracing::info!(locked = retry_after.is_some(), "a sign-in failed");
            return Err(Refused::Wrong { retry_after });
        };
        lockout.forget(&account);
        let (id, id_hash) = new_session_id()?;
        let user_id = found.user_id;
        let caller = self
            .store
            .write(move |tx| {
                people::insert_session(tx, &id_hash, user_id)?;
                db::caller_by_user(tx, user_id)
            })
            .await?
            .ok_or_else(|| Error::Internal("the signed-in user vanished".into()))?;
        tracing::info!(user = caller.user.id, company = caller.company.id, "signed in");
        Ok(Session { id, caller })
    }

    /// The caller of a session seen within `idle`, its last use moved to now (written at most
    /// every tenth of `idle`, a minute at most, so a busy page does not write on every call).
    pub async fn session_caller(&self, id_hash: String, idle: Duration) -> Result<Option<Caller>> {
        let now = chrono::Utc::now();
        let idle = chrono::Duration::from_std(idle).unwrap_or(chrono::Duration::MAX);
        let cutoff = text_at(now - idle);
        let key = id_hash.clone();
        let Some((user_id, last_seen)) =
            self.store.read(move |conn| people::session_user(conn, &key, &cutoff)).await?
        else {
            return Ok(None);
        };
        let every = (idle / 10).min(chrono::Duration::minutes(1));
        let stale = crate::domain::time::parse_stored(&last_seen).is_none_or(|seen| now - seen >= every);
        if stale {
            let now = text_at(now);
            self.store.write_unsynced(move |tx| people::touch_session(tx, &id_hash, &now)).await?;
        }
        Ok(self.store.read(move |conn| db::caller_by_user(conn, user_id)).await?)
    }

    pub async fn sign_out(&self, id_hash: String) -> Result<()> {
        Ok(self.store.write(move |tx| people::end_session(tx, &id_hash)).await?)
    }

    /// Drops the sessions idle longer than `idle` (at start).
    pub fn forget_idle_sessions(&self, idle: Duration) -> Result<usize> {
        let idle = chrono::Duration::from_std(idle).unwrap_or(chrono::Duration::MAX);
        let cutoff = text_at(chrono::Utc::now() - idle);
        Ok(self.store.write_blocking(|tx| people::forget_idle_sessions(tx, &cutoff))?)
    }

    /// The caller changes their own password: the current one is needed when one is set (a
    /// user with only a token sets a first password with it). Every session of the user ends;
    /// a new one is made when `new_session` (the change came from a signed-in browser).
    pub async fn change_password(
        &self,
        caller: &Caller,
        current: Option<String>,
        new: Option<String>,
        new_session: bool,
    ) -> Result<Option<String>> {
        let user_id = caller.user.id;
        let stored = self.store.read(move |conn| people::password_hash(conn, user_id)).await?;
        let mut errors = FieldErrors::new();
        check_new_password(&mut errors, "newPassword", new.as_deref(), &caller.user.email);
        if stored.is_some() {
            match current {
                None => errors.add("currentPassword", "The currentPassword field is required."),
                Some(current) => {
                    if !verify_blocking(current, stored).await? {
                        errors.add("currentPassword", "The current password is wrong.");
                    }
                }
            }
        }
        errors.into_result()?;
        let hash = hash_blocking(new.unwrap_or_default()).await?;
        let session = if new_session { Some(new_session_id()?) } else { None };
        let company_id = caller.company.id;
        let session_hash = session.as_ref().map(|(_, hash)| hash.clone());
        self.store
            .write(move |tx| -> Result<()> {
                people::set_password(tx, company_id, user_id, &hash)?;
                people::end_sessions_of(tx, user_id)?;
                if let Some(session_hash) = session_hash {
                    people::insert_session(tx, &session_hash, user_id)?;
                }
                Ok(())
            })
            .await?;
        tracing::info!(user = user_id, "password changed; the user's sessions ended");
        Ok(session.map(|(id, _)| id))
    }

    /// Sets another user's password (the owner's reset): that user's sessions end and their
    /// lock-out is lifted. Not one's own: a session left open must not change it without the
    /// current password.
    pub async fn reset_password(
        &self,
        caller: &Caller,
        lockout: &Lockout,
        user_id: i64,
        new: Option<String>,
    ) -> Result<User> {
        if user_id == caller.user.id {
            return Err(Error::Forbidden(
                "Your own password is changed with POST /api/v1/session/password: it needs the current one."
                    .into(),
            ));
        }
        let company_id = caller.company.id;
        let user = self
            .store
            .read(move |conn| db::user(conn, company_id, user_id))
            .await?
            .ok_or_else(|| Error::NotFound("User".into()))?;
        let mut errors = FieldErrors::new();
        check_new_password(&mut errors, "newPassword", new.as_deref(), &user.email);
        errors.into_result()?;
        let hash = hash_blocking(new.unwrap_or_default()).await?;
        let entry = audit::by(caller, Action::UserPassword, user_id)
            .after(serde_json::json!({"passwordSetBy": "owner", "sessionsEnded": true}));
        self.store
            .write(move |tx| {
                people::set_password(tx, company_id, user_id, &hash)?;
                people::end_sessions_of(tx, user_id)?;
                crate::store::audit::append(tx, &entry)
            })
            .await?;
        lockout.forget(&account_key(&user.email));
        tracing::info!(user = user_id, by = caller.user.id, "password reset; the user's sessions ended");
        Ok(user)
    }

    /// Whether the caller owns the whole box: an owner of its one company. A backup copies the
    /// box's database, every company in it, so a company's owner on a shared box may not take one.
    pub async fn owns_the_box(&self, caller: &Caller) -> Result<bool> {
        if caller.role() != crate::domain::role::Role::Owner {
            return Ok(false);
        }
        Ok(self.store.read(people::company_count).await? == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_locks_at_its_fifth_failure_until_the_oldest_leaves_the_window() {
        let lockout = Lockout::default();
        let start = Instant::now();
        let key = account_key("Ana@Shop.al");
        for i in 0..ACCOUNT_FAILURES {
            assert!(lockout.locked(&key, start).is_none(), "after {i} failures");
            lockout.fail(key.clone(), start);
        }
        let wait = lockout.locked(&key, start).unwrap();
        assert!(wait <= LOCK_WINDOW && wait > LOCK_WINDOW - Duration::from_secs(1), "{wait:?}");
        assert!(lockout.locked(&account_key(" ana@shop.AL "), start).is_some(), "one account, any case");
        assert!(lockout.locked(&key, start + LOCK_WINDOW).is_none(), "unlocked once the window passed");
        lockout.forget(&key);
        assert!(lockout.locked(&key, start).is_none());
    }

    #[test]
    fn an_address_takes_more_failures_than_an_account() {
        let lockout = Lockout::default();
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        let now = Instant::now();
        for _ in 0..ADDRESS_FAILURES - 1 {
            lockout.fail(address_key(ip), now);
        }
        assert!(lockout.locked(&address_key(ip), now).is_none());
        lockout.wrong_setup_code(ip);
        assert!(lockout.address_locked(ip).is_some());
    }

    #[test]
    fn a_new_password_is_long_enough_and_not_the_email() {
        let check = |p: Option<&str>| {
            let mut errors = FieldErrors::new();
            check_new_password(&mut errors, "password", p, "ana@shop.al");
            errors.is_empty()
        };
        assert!(check(Some("kafe e mirë 2024")));
        assert!(!check(None));
        assert!(!check(Some("short")));
        assert!(!check(Some("ANA@shop.al")));
        assert!(!check(Some(&"x".repeat(MAX_PASSWORD + 1))));
    }
}
