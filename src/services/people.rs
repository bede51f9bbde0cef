//! People at the owner's page: sign-in with e-mail and password (argon2id), sessions, passwords
//! changed by their user, set by the owner or set anew with a one-time code printed on the box,
//! and each person's own profile. How fast guesses may come is the edge's (`api::people`, over
//! `domain::throttle`); what is right or wrong is decided here.

use chrono::{DateTime, Utc};

use super::audit;
use super::{Clash, Error, NotAllowed, People, Result};
use crate::domain::audit::Action;
use crate::domain::password::{self, MAX_PASSWORD, Weakness};
use crate::domain::validation::{FieldErrors, is_registration_code};
use crate::ops::secrets::{
    hash_password, hash_token, new_setup_code, new_token, same_hash, setup_code_key, verify_password,
};
use crate::store::accounts::{self as db, Caller, User, UserPatch};
use crate::store::people;
use crate::store::{self, Store};

/// What a password change by token alone answers for a user who has none.
pub const NO_PASSWORD_YET: &str = "This user has no password yet, and a token alone does not set one: an owner sets it \
     (POST /api/v1/users/{id}/password), or a code of `arka users reset-password` on the server.";

/// How long a code of `arka users reset-password` works.
pub const RESET_CODE_MINUTES: i64 = 60;

/// Why a sign-in or a reset with a code was refused. Wrong, unknown and revoked all read the same
/// to the caller.
#[derive(Debug)]
pub enum Refused {
    Wrong,
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
    .map_err(Error::from)
}

async fn hash_blocking(password: String) -> Result<String> {
    tokio::task::spawn_blocking(move || hash_password(&password)).await?.map_err(Error::from)
}

/// The list of the most common passwords (`assets/passwords/common.txt`), inflated for one check:
/// it costs memory only while a password is being set.
fn common_passwords() -> String {
    const PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/common-passwords.deflate"));
    let mut text = String::new();
    if let Err(e) = std::io::Read::read_to_string(&mut flate2::read::DeflateDecoder::new(PACKED), &mut text) {
        tracing::error!(error = %e, "the list of common passwords could not be read");
    }
    text
}

/// What a person is told to do instead of a guessable password.
const CHOOSE_ANOTHER: &str =
    "choose another: a few words of your own are easy to remember and hard to guess.";

/// A new password's rules, under `field`.
pub fn check_new_password(errors: &mut FieldErrors, field: &str, password: Option<&str>, email: &str) {
    let Some(password) = password.filter(|p| !p.is_empty()) else {
        errors.add(field, format!("The {field} field is required."));
        return;
    };
    let message = match password::weakness(password, email, &common_passwords()) {
        None => return,
        Some(Weakness::TooShort) => {
            format!("The {field} must be at least {} characters long.", password::MIN_PASSWORD)
        }
        Some(Weakness::TooLong) => format!("The {field} may be at most {MAX_PASSWORD} characters long."),
        Some(Weakness::TheEmail) => format!("The {field} must not be the e-mail address."),
        Some(Weakness::Common) => {
            format!("The {field} is one of the most common passwords: {CHOOSE_ANOTHER}")
        }
        Some(Weakness::Pattern) => {
            format!("The {field} is a pattern that is easy to guess: {CHOOSE_ANOTHER}")
        }
    };
    errors.add(field, message);
}

fn text_at(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A new session id and its hash as stored.
pub(crate) fn new_session_id() -> Result<(String, String)> {
    let id = new_token("s")?;
    let hash = hash_token(&id);
    Ok((id, hash))
}

/// How a person's own password change came: the page's session or a bearer token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Session,
    Token,
}

/// A reset code printed on the box: for whom, and until when.
pub struct ResetCode {
    pub code: String,
    pub email: String,
    pub expires_at: DateTime<Utc>,
}

/// A person's own profile: who they are, and whether they have a password.
pub struct Profile {
    pub user: User,
    pub password_set: bool,
}

/// What a person may change of their own profile; `None` keeps it.
pub struct ProfileUpdate {
    pub name: Option<String>,
    pub operator_code: Option<String>,
}

/// `arka users reset-password EMAIL`: a one-time code (its hash kept, `RESET_CODE_MINUTES`
/// valid, in place of an earlier one) with which the user sets a new password at the page. The
/// person at the box holds the shop: the trail says the command line made it. A revoked user
/// gets none: an owner restores them first.
pub fn issue_reset_code(store: &Store, email: &str, now: DateTime<Utc>) -> Result<ResetCode> {
    let code = new_setup_code()?;
    let hash = hash_token(&setup_code_key(&code));
    let expires_at = now + chrono::Duration::minutes(RESET_CODE_MINUTES);
    let expires = text_at(expires_at);
    let email = email.trim().to_string();
    let found = email.clone();
    store.write_blocking(move |tx| -> Result<()> {
        let Some(user) = people::credentials(tx, &found)? else {
            return Err(Error::NotFound(format!("no user has the e-mail {found}")));
        };
        if user.revoked {
            return Err(Error::Forbidden(NotAllowed::Revoked { found }));
        }
        people::replace_reset_code(tx, user.user_id, &hash, &expires)?;
        let entry = audit::by_cli(Some(user.company_id), Action::UserResetCode, user.user_id)
            .after(serde_json::json!({ "expiresAt": expires }));
        crate::store::audit::append(tx, &entry)?;
        Ok(())
    })?;
    tracing::info!("a one-time password reset code was printed on the box");
    Ok(ResetCode { code, email, expires_at })
}

impl People<'_> {
    /// Signs a person in: a session for the user with this e-mail and password. An unknown
    /// e-mail, a user with only a token and a revoked user are refused as a wrong password is.
    pub async fn sign_in(&self, email: &str, password: &str) -> std::result::Result<Session, Refused> {
        let email_owned = email.trim().to_string();
        let found = self.services.store.read(move |conn| people::credentials(conn, &email_owned)).await?;
        let stored = found.as_ref().and_then(|c| c.password_hash.clone());
        let right = verify_blocking(password.to_string(), stored).await?;
        let Some(found) = found.filter(|c| right && !c.revoked) else {
            tracing::info!("a sign-in failed");
            return Err(Refused::Wrong);
        };
        let session = self.new_session(found.user_id, |_| Ok(())).await?;
        tracing::info!(user = session.caller.user.id, company = session.caller.company.id, "signed in");
        Ok(session)
    }

    /// A new session for `user_id`, written with whatever else `also` writes.
    async fn new_session(
        &self,
        user_id: i64,
        also: impl FnOnce(&rusqlite::Transaction) -> Result<()> + Send + 'static,
    ) -> Result<Session> {
        let (id, id_hash) = new_session_id()?;
        let now = crate::store::time_text(self.services.clock.utc());
        let caller = self
            .services
            .store
            .write(move |tx| -> Result<Option<Caller>> {
                also(tx)?;
                people::insert_session(tx, &id_hash, user_id, &now)?;
                Ok(db::caller_by_user(tx, user_id)?)
            })
            .await?
            .ok_or_else(|| Error::Vanished("the signed-in user"))?;
        Ok(Session { id, caller })
    }

    /// The caller of a session seen within `idle`, its last use moved to now (written at most
    /// every tenth of `idle`, a minute at most, so a busy page does not write on every call).
    pub async fn session_caller(&self, id_hash: String, idle: std::time::Duration) -> Result<Option<Caller>> {
        let now = self.services.clock.utc();
        let idle = chrono::Duration::from_std(idle).unwrap_or(chrono::Duration::MAX);
        let cutoff = text_at(now - idle);
        let key = id_hash.clone();
        let Some((user_id, last_seen)) =
            self.services.store.read(move |conn| people::session_user(conn, &key, &cutoff)).await?
        else {
            return Ok(None);
        };
        let every = (idle / 10).min(chrono::Duration::minutes(1));
        let stale = crate::domain::time::parse_stored(&last_seen).is_none_or(|seen| now - seen >= every);
        if stale {
            let now = text_at(now);
            self.services.store.write_unsynced(move |tx| people::touch_session(tx, &id_hash, &now)).await?;
        }
        Ok(self.services.store.read(move |conn| db::caller_by_user(conn, user_id)).await?)
    }

    pub async fn sign_out(&self, id_hash: String) -> Result<()> {
        Ok(self.services.store.write(move |tx| people::end_session(tx, &id_hash)).await?)
    }

    /// Drops the sessions idle longer than `idle` (at start).
    pub fn forget_idle_sessions(&self, idle: std::time::Duration) -> Result<usize> {
        let idle = chrono::Duration::from_std(idle).unwrap_or(chrono::Duration::MAX);
        let cutoff = text_at(self.services.clock.utc() - idle);
        Ok(self.services.store.write_blocking(|tx| people::forget_idle_sessions(tx, &cutoff))?)
    }

    /// The caller changes their own password, proving the current one. A user with only a token
    /// has none to prove: a token alone sets no password (a leaked POS token must not become a
    /// way back in after it is revoked); an owner sets the first one, or the box's reset code.
    /// Every session of the user ends; a new one is made when the change came from the page.
    pub async fn change_password(
        &self,
        caller: &Caller,
        current: Option<String>,
        new: Option<String>,
        via: Via,
    ) -> Result<Option<String>> {
        let user_id = caller.user.id;
        let stored = self.services.store.read(move |conn| people::password_hash(conn, user_id)).await?;
        if stored.is_none() {
            return Err(Error::Clash(Clash::NoPasswordYet));
        }
        let mut errors = FieldErrors::new();
        check_new_password(&mut errors, "newPassword", new.as_deref(), &caller.user.email);
        match current.filter(|c| !c.is_empty()) {
            None => errors.add("currentPassword", "The currentPassword field is required."),
            Some(current) => {
                if !verify_blocking(current, stored).await? {
                    errors.add("currentPassword", "The current password is wrong.");
                }
            }
        }
        errors.into_result()?;
        let hash = hash_blocking(new.unwrap_or_default()).await?;
        let session = if via == Via::Session { Some(new_session_id()?) } else { None };
        let company_id = caller.company.id;
        let session_hash = session.as_ref().map(|(_, hash)| hash.clone());
        let via_text = if via == Via::Session { "session" } else { "token" };
        let entry = audit::by(caller, Action::UserPassword, user_id)
            .after(serde_json::json!({"passwordSetBy": "self", "via": via_text, "sessionsEnded": true}));
        let now = crate::store::time_text(self.services.clock.utc());
        self.services
            .store
            .write(move |tx| -> Result<()> {
                people::set_password(tx, company_id, user_id, &hash)?;
                people::end_sessions_of(tx, user_id)?;
                if let Some(session_hash) = session_hash {
                    people::insert_session(tx, &session_hash, user_id, &now)?;
                }
                crate::store::audit::append(tx, &entry)?;
                Ok(())
            })
            .await?;
        tracing::info!(user = user_id, "password changed; the user's sessions ended");
        Ok(session.map(|(id, _)| id))
    }

    /// Sets another user's password (the owner's reset): that user's sessions end. Not one's
    /// own: a session left open must not change it without the current password. The edge
    /// lifts the user's throttled guesses.
    pub async fn reset_password(&self, caller: &Caller, user_id: i64, new: Option<String>) -> Result<User> {
        if user_id == caller.user.id {
            return Err(Error::Forbidden(NotAllowed::OwnPasswordReset));
        }
        let company_id = caller.company.id;
        let user = self
            .services
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
        self.services
            .store
            .write(move |tx| {
                people::set_password(tx, company_id, user_id, &hash)?;
                people::end_sessions_of(tx, user_id)?;
                crate::store::audit::append(tx, &entry)
            })
            .await?;
        tracing::info!(user = user_id, by = caller.user.id, "password reset; the user's sessions ended");
        Ok(user)
    }

    /// A new password with the one-time code the box printed: the code is used up, every
    /// session of the user ends and a new one starts here. A wrong or expired code, an unknown
    /// e-mail or a revoked user is `Wrong`; a right code with a weak password keeps the code.
    pub async fn reset_with_code(
        &self,
        email: &str,
        code: &str,
        new: Option<String>,
    ) -> std::result::Result<Session, Refused> {
        let email = email.trim().to_string();
        let found = email.clone();
        let now = text_at(self.services.clock.utc());
        let stored = self
            .services
            .store
            .read(move |conn| match people::credentials(conn, &found)? {
                Some(user) if !user.revoked => Ok(people::reset_code(conn, user.user_id, &now)?
                    .map(|hash| (user.user_id, user.company_id, hash))),
                _ => Ok(None),
            })
            .await?;
        let typed = hash_token(&setup_code_key(code));
        let Some((user_id, company_id, _)) = stored.filter(|(_, _, hash)| same_hash(hash, &typed)) else {
            tracing::info!("a password reset code was refused");
            return Err(Refused::Wrong);
        };
        let mut errors = FieldErrors::new();
        check_new_password(&mut errors, "newPassword", new.as_deref(), &email);
        errors.into_result().map_err(Error::from)?;
        let hash = hash_blocking(new.unwrap_or_default()).await?;
        let clock = self.services.clock.clone();
        let session = self
            .new_session(user_id, move |tx| {
                // The code is checked again inside the write: two browsers racing with one code
                // set one password.
                let now = text_at(clock.utc());
                if !people::reset_code(tx, user_id, &now)?.is_some_and(|h| same_hash(&h, &typed)) {
                    return Err(Error::Clash(Clash::CodeUsedMeanwhile));
                }
                people::drop_reset_code(tx, user_id)?;
                people::set_password(tx, company_id, user_id, &hash)?;
                people::end_sessions_of(tx, user_id)?;
                let Some(caller) = db::caller_by_user(tx, user_id)? else {
                    return Err(Error::Vanished("the user"));
                };
                let entry = audit::by(&caller, Action::UserPassword, user_id)
                    .after(serde_json::json!({"passwordSetBy": "reset code", "sessionsEnded": true}));
                crate::store::audit::append(tx, &entry)?;
                Ok(())
            })
            .await?;
        tracing::info!(user = user_id, "password set with a reset code; the user's sessions ended");
        Ok(session)
    }

    /// The caller's own profile.
    pub async fn profile(&self, caller: &Caller) -> Result<Profile> {
        let (company_id, user_id) = (caller.company.id, caller.user.id);
        let (user, hash) = self
            .services
            .store
            .read(move |conn| {
                Ok((db::user(conn, company_id, user_id)?, people::password_hash(conn, user_id)?))
            })
            .await?;
        let user = user.ok_or_else(|| Error::NotFound("User".into()))?;
        Ok(Profile { user, password_set: hash.is_some() })
    }

    /// The caller changes their own name or operator code (the tax portal's code of the person
    /// who sells and cancels): audited as any change of a user.
    pub async fn update_profile(&self, caller: &Caller, update: ProfileUpdate) -> Result<Profile> {
        let mut errors = FieldErrors::new();
        let name = update.name.as_deref().map(str::trim);
        if name.is_some_and(str::is_empty) {
            errors.add("name", "The name field must not be empty.");
        }
        errors.max_len("name", name, 255);
        let operator_code = update.operator_code.as_deref().map(str::trim);
        if operator_code.is_some_and(|code| !is_registration_code(code)) {
            errors.add("operatorCode", "The operatorCode must look like ab123cd456.");
        }
        errors.into_result()?;
        if name.is_none() && operator_code.is_none() {
            return self.profile(caller).await;
        }
        let (company_id, user_id) = (caller.company.id, caller.user.id);
        let (name, operator_code) = (name.map(str::to_string), operator_code.map(str::to_string));
        let entry = audit::by(caller, Action::UserUpdate, user_id);
        self.services
            .store
            .write(move |tx| {
                let Some(before) = db::user(tx, company_id, user_id)? else {
                    return Err(Error::NotFound("User".into()));
                };
                let patch = UserPatch {
                    name: name.as_deref(),
                    operator_code: operator_code.as_deref(),
                    ..Default::default()
                };
                db::update_user(tx, company_id, user_id, &patch)?;
                let Some(after) = db::user(tx, company_id, user_id)? else {
                    return Err(Error::NotFound("User".into()));
                };
                let entry = entry.before(audit::user_fields(&before)).after(audit::user_fields(&after));
                crate::store::audit::append(tx, &entry)?;
                let password_set = people::password_hash(tx, user_id)?.is_some();
                Ok(Profile { user: after, password_set })
            })
            .await
    }

    /// Whether the caller owns the whole box: an owner of its one company. A backup copies the
    /// box's database, every company in it, so a company's owner on a shared box may not take one.
    pub async fn owns_the_box(&self, caller: &Caller) -> Result<bool> {
        if caller.role() != crate::domain::role::Role::Owner {
            return Ok(false);
        }
        Ok(self.services.store.read(people::company_count).await? == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(password: Option<&str>) -> Option<String> {
        let mut errors = FieldErrors::new();
        check_new_password(&mut errors, "password", password, "ana@shop.al");
        errors.into_map().remove("password").map(|m| m.join(" "))
    }

    #[test]
    fn a_new_password_is_long_enough_not_the_email_and_not_common() {
        assert_eq!(refused(Some("kafe e mirë 2024")), None);
        assert_eq!(refused(None).as_deref(), Some("The password field is required."));
        assert_eq!(
            refused(Some("short")).as_deref(),
            Some("The password must be at least 10 characters long.")
        );
        assert_eq!(
            refused(Some("ANA@shop.al")).as_deref(),
            Some("The password must not be the e-mail address.")
        );
        assert!(refused(Some(&"x".repeat(MAX_PASSWORD + 1))).is_some_and(|m| m.contains("at most 256")));
        let common = refused(Some("sunshine2024")).unwrap();
        assert!(common.starts_with("The password is one of the most common passwords"), "{common}");
        let pattern = refused(Some("            ")).unwrap();
        assert!(pattern.starts_with("The password is a pattern"), "{pattern}");
    }

    #[test]
    fn the_bundled_list_holds_thirty_thousand_passwords() {
        let list = common_passwords();
        let passwords: Vec<&str> = list.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(passwords.len(), 30_000);
        assert_eq!(passwords[..3], ["123456", "password", "12345678"]);
        assert!(passwords.iter().all(|p| !p.is_empty() && *p == p.to_lowercase()));
    }
}
