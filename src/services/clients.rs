//! Clients: one model whatever view (v1 flat, v2 structured) the caller speaks; the views
//! translate at the edge.

use super::{Buyers, Error, Result};
use crate::domain::client::{self, ClientPatch, Rejection, search_term};
use crate::store;
use crate::store::accounts::Caller;
use crate::store::clients::{self as db, StoredClient};

/// Why a client was not saved: the rules refused it (each view names the fields its own
/// way), or anything a use case can fail with.
#[derive(Debug)]
pub enum SaveError {
    Rejected(Rejection),
    Failed(Error),
}

impl From<Error> for SaveError {
    fn from(e: Error) -> Self {
        SaveError::Failed(e)
    }
}

/// What a client saved with another's identifier answers: POS apps keep the register, so its
/// words stay with it (not the owner's page's to say).
pub const DUPLICATE_CLIENT: &str = "A client with the same identifier already exists in this company.";

/// A duplicate identifier is the caller's 409; any other store failure is internal.
impl From<store::Error> for SaveError {
    fn from(e: store::Error) -> Self {
        match e {
            duplicate @ store::Error::Duplicate(_) => {
                SaveError::Failed(Error::Clash(super::Clash::DuplicateClient(duplicate)))
            }
            other => SaveError::Failed(other.into()),
        }
    }
}

fn not_found() -> Error {
    Error::NotFound("Client".into())
}

impl Buyers<'_> {
    /// A page of the company's clients matching `query`, newest first, and how many match.
    pub async fn clients(
        &self,
        caller: &Caller,
        query: Option<&str>,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<StoredClient>, i64)> {
        let company_id = caller.company.id;
        let term = search_term(query);
        Ok(self
            .services
            .store
            .read(move |conn| {
                let total = db::count(conn, company_id, term.as_deref())?;
                let items = db::list(conn, company_id, term.as_deref(), limit, offset)?;
                Ok((items, total))
            })
            .await?)
    }

    /// A client of the caller's company.
    pub async fn client(&self, caller: &Caller, id: i64) -> Result<StoredClient> {
        let company_id = caller.company.id;
        self.services.store.read(move |conn| db::get(conn, company_id, id)).await?.ok_or_else(not_found)
    }

    pub async fn create_client(
        &self,
        caller: &Caller,
        patch: ClientPatch,
    ) -> std::result::Result<StoredClient, SaveError> {
        let new = client::create(&patch).map_err(SaveError::Rejected)?;
        let company_id = caller.company.id;
        self.services
            .store
            .write(move |tx| {
                let id = db::insert(tx, company_id, &new)?;
                db::get(tx, company_id, id)?
                    .ok_or_else(|| SaveError::Failed(Error::Vanished("the client just saved")))
            })
            .await
    }

    /// Applies `patch` to a client of the caller's company, inside one transaction so two
    /// updates of the same client never lose each other's fields.
    pub async fn update_client(
        &self,
        caller: &Caller,
        id: i64,
        patch: ClientPatch,
    ) -> std::result::Result<StoredClient, SaveError> {
        let company_id = caller.company.id;
        self.services
            .store
            .write(move |tx| {
                let Some(stored) = db::get(tx, company_id, id)? else {
                    return Err(SaveError::Failed(not_found()));
                };
                let changed = client::update(&stored.client, &patch).map_err(SaveError::Rejected)?;
                // A confirmation holds for the identifier that was looked up, not a new one.
                let verified = stored.verified
                    && stored.client.id_type == changed.id_type
                    && stored.client.id_value == changed.id_value;
                db::update(tx, company_id, id, &changed, verified)?;
                db::get(tx, company_id, id)?.ok_or_else(|| SaveError::Failed(not_found()))
            })
            .await
    }
}
