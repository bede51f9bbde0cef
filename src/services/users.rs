//! Users and their tokens as people manage them: the owner's list (role, last use, the token by
//! its first characters), a token rotated, and a user's access revoked and restored. Every change
//! of who may do what goes through one function per action (`create_user` and `update_user` in
//! `accounts`, `rotate_token` and `revoke_access` here), each one write transaction.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use chrono::{DateTime, SecondsFormat, Utc};

use super::{Error, NotAllowed, People, Result, audit};
use crate::domain::audit::Action;
use crate::domain::role::{self, Refusal, Role};
use crate::ops::secrets::{hash_token, new_token, token_prefix};
use crate::store::accounts::{self as db, Caller, Listed, TokenUse, User};
use crate::store::people;

/// The last use of each token seen since the last flush: kept in memory so that a request
/// costs no write, written in one transaction every `FLUSH_EVERY` and at the stop, and laid
/// over what is stored when the list is read, so the list is always current.
#[derive(Default)]
pub struct TokenUses {
    pending: Mutex<HashMap<i64, (DateTime<Utc>, IpAddr)>>,
}

/// How often the uses seen are written.
pub const FLUSH_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

impl TokenUses {
    /// Notes that `user_id`'s token was used from `ip` `at` (now).
    pub fn seen(&self, user_id: i64, ip: IpAddr, at: DateTime<Utc>) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(user_id, (at, ip));
        }
    }

    fn as_use(user_id: i64, (at, ip): (DateTime<Utc>, IpAddr)) -> TokenUse {
        TokenUse { user_id, at: at.to_rfc3339_opts(SecondsFormat::Millis, true), ip: ip.to_string() }
    }

    /// The uses seen since the last flush, without taking them.
    fn peek(&self) -> HashMap<i64, TokenUse> {
        self.pending
            .lock()
            .map(|p| p.iter().map(|(id, seen)| (*id, Self::as_use(*id, *seen))).collect())
            .unwrap_or_default()
    }

    fn take(&self) -> Vec<TokenUse> {
        self.pending
            .lock()
            .map(|mut p| p.drain().map(|(id, seen)| Self::as_use(id, seen)).collect())
            .unwrap_or_default()
    }
}

impl From<Refusal> for Error {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Forbidden(rule) => Error::Forbidden(NotAllowed::Role(rule)),
            Refusal::LastOwner => Error::Taken {
                field: "role",
                message: "The company must keep at least one owner whose access works: make another \
                          owner first."
                    .into(),
            },
        }
    }
}

/// A new token, as shown once, with what is stored of it.
struct NewToken {
    token: String,
    hash: String,
}

fn fresh_token() -> Result<NewToken> {
    let token = new_token("u")?;
    Ok(NewToken { hash: hash_token(&token), token })
}

impl People<'_> {
    /// Writes the uses seen since the last flush. A failed write puts nothing back: a last use
    /// is a hint, and the next request brings a newer one.
    pub async fn flush_token_uses(&self) {
        let uses = self.services.token_uses.take();
        if uses.is_empty() {
            return;
        }
        let count = uses.len();
        if let Err(e) = self.services.store.write_unsynced(move |tx| db::record_token_uses(tx, &uses)).await {
            tracing::warn!(error = %e, count, "the tokens' last uses could not be written");
        }
    }

    /// The company's users with their roles, their tokens' prefixes and last uses.
    pub async fn list_users(&self, caller: &Caller) -> Result<Vec<Listed>> {
        let company_id = caller.company.id;
        let mut listed = self.services.store.read(move |c| db::list_users(c, company_id)).await?;
        let fresh = self.services.token_uses.peek();
        for entry in &mut listed {
            if let Some(seen) = fresh.get(&entry.user.id)
                && entry.last_use.as_ref().is_none_or(|stored| stored.at < seen.at)
            {
                entry.last_use = Some(seen.clone());
            }
        }
        Ok(listed)
    }

    /// Gives `user_id` a new token, shown once in the answer; the old one answers 401 from the
    /// next request on (the callers' cache is read again after any write to `users`). An owner
    /// rotates anyone's token, and so restores a revoked user (their password signs in again);
    /// any user their own.
    pub async fn rotate_token(&self, caller: &Caller, user_id: i64) -> Result<(User, String)> {
        if user_id != caller.user.id && caller.role() < Role::Owner {
            return Err(Error::Forbidden(NotAllowed::OthersToken));
        }
        let company_id = caller.company.id;
        let NewToken { token, hash } = fresh_token()?;
        let prefix = token_prefix(&token).to_string();
        let entry = audit::by(caller, Action::TokenRotate, user_id);
        let user = self
            .services
            .store
            .write(move |tx| {
                let before = db::token_revoked(tx, company_id, user_id)?;
                if !db::set_token(tx, company_id, user_id, &hash, &prefix)? {
                    return Ok(None);
                }
                let action = if before { Action::UserRestore } else { Action::TokenRotate };
                let entry = audit::Entry { action, ..entry }
                    .before(serde_json::json!({ "revoked": before }))
                    .after(serde_json::json!({ "tokenPrefix": prefix, "revoked": false }));
                crate::store::audit::append(tx, &entry)?;
                db::user(tx, company_id, user_id)
            })
            .await?
            .ok_or_else(|| Error::NotFound("User".into()))?;
        tracing::info!(company = company_id, user = user_id, by = caller.user.id, "token rotated");
        Ok((user, token))
    }

    /// Takes `user_id`'s access away, everywhere at once: their token answers 401 from the next
    /// request on, every session of theirs ends, their password signs in no more and a reset
    /// code of theirs is void, until an owner restores them with a new token. The company keeps
    /// at least one owner whose access works (409 on `role`). How many sessions ended.
    pub async fn revoke_access(&self, caller: &Caller, user_id: i64) -> Result<(User, usize)> {
        if caller.role() < Role::Owner {
            return Err(Error::Forbidden(NotAllowed::Revoking));
        }
        let company_id = caller.company.id;
        let entry = audit::by(caller, Action::TokenRevoke, user_id);
        let revoked = self
            .services
            .store
            .write(move |tx| {
                let Some(user) = db::user(tx, company_id, user_id)? else {
                    return Err(Error::NotFound("User".into()));
                };
                let works = !db::token_revoked(tx, company_id, user_id)?;
                let (_, working_owners) = db::owners(tx, company_id)?;
                role::may_revoke_token(user.role, works, working_owners)?;
                db::revoke_token(tx, company_id, user_id)?;
                let sessions = people::end_sessions_of(tx, user_id)?;
                people::drop_reset_code(tx, user_id)?;
                let entry = entry
                    .before(serde_json::json!({ "revoked": !works }))
                    .after(serde_json::json!({ "revoked": true, "sessionsEnded": sessions }));
                crate::store::audit::append(tx, &entry)?;
                Ok((user, sessions))
            })
            .await?;
        tracing::info!(company = company_id, user = user_id, by = caller.user.id, "access revoked");
        Ok(revoked)
    }
}
