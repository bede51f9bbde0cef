//! The audit trail as the use cases write and read it. Each audited use case builds its entry
//! with `by` (or `by_cli`) and appends it with `store::audit::append` inside its own write
//! transaction, so the entry and the action commit together or not at all: a refusal or a
//! failure rolls both back.

use super::{Result, Services};
pub use crate::domain::audit::Entry;
use crate::domain::audit::{Action, Actor, Broken, Stored};
use crate::store::accounts::{Caller, User};
use crate::store::audit::{self as db, Filter};
use crate::store::{self, Store};

/// An entry of `caller`'s, with their role and the request's id.
pub fn by(caller: &Caller, action: Action, object: impl ToString) -> Entry {
    Entry {
        company_id: Some(caller.company.id),
        actor: Actor::User { id: caller.user.id, role: caller.role() },
        request_id: caller.request_id.clone(),
        action,
        object: object.to_string(),
        before: None,
        after: None,
    }
}

/// An entry of the command line's (the person at the server's machine), for `company_id` or,
/// with none, the whole database.
pub fn by_cli(company_id: Option<i64>, action: Action, object: impl ToString) -> Entry {
    Entry {
        company_id,
        actor: Actor::Cli,
        request_id: None,
        action,
        object: object.to_string(),
        before: None,
        after: None,
    }
}

/// What the trail keeps of a user: who they are and what they may do, never their token.
pub fn user_fields(user: &User) -> serde_json::Value {
    serde_json::json!({
        "name": user.name,
        "email": user.email,
        "role": user.role.as_str(),
        "branch": user.business_unit_id,
        "operatorCode": user.operator_code,
        "fiscalTcrCode": user.tcr_code,
    })
}

impl Services {
    /// A backup taken from the page (a file holding the certificate's sealed keys and the key
    /// that opens them): into the trail once the file is written and checked.
    pub async fn record_backup(&self, caller: &Caller, file: &str, bytes: u64) -> Result<()> {
        let entry = by(caller, Action::BackupCreate, file)
            .after(serde_json::json!({ "bytes": bytes, "keyFile": format!("{file}.key") }));
        self.store.write(move |tx| db::append(tx, &entry)).await?;
        Ok(())
    }

    /// `GET /api/v1/audit`: the company's entries, newest first, with how many match.
    /// A page of the trail, its total, and the names of the company's people by id (the one who
    /// acted, and the person a `user.*`/`token.*` entry acted on), read in one snapshot: whoever
    /// may read the trail reads it with names, whether or not they may list the people.
    pub async fn audit_entries(
        &self,
        caller: &Caller,
        filter: Filter,
    ) -> Result<(Vec<Stored>, i64, std::collections::HashMap<i64, String>)> {
        let company_id = caller.company.id;
        Ok(self
            .store
            .read(move |c| {
                let (entries, total) = db::list(c, company_id, &filter)?;
                let names = crate::store::accounts::users_of(c, company_id)?
                    .into_iter()
                    .map(|u| (u.id, u.name))
                    .collect();
                Ok((entries, total, names))
            })
            .await?)
    }
}

/// `arka audit verify`: how many entries hold, or the first that does not.
pub fn verify(store: &Store) -> store::Result<std::result::Result<u64, Broken>> {
    store.read_blocking(db::verify)
}
