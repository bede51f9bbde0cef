//! A shop in a chain: ships its outbox to the head office (HQ) and, on a new box, comes back
//! from it (`arka restore --from-hq`). A sale never waits for any of it: the triggers note each
//! change in the sale's own transaction, and the worker ships the notes later, oldest first,
//! at least once, backing off while the HQ is away.
//!
//! A shop that was ever linked knows it from its database (`hq_link`), not from a flag: started
//! without its head office it sells cash on, keeps noting, and refuses non-cash documents (their
//! numbers are the chain's), until it is started with it again or unlinked (`arka unlink-hq`,
//! audited).

mod numbers;
mod restore;
mod worker;

use std::sync::{Arc, Mutex};

pub use numbers::{NO_NUMBER, NOT_REACHED, give_back_noncash, noncash_number};
pub use restore::{RestoreFrom, Restored, restore_data_dir};
pub use worker::{BATCH_NOTES, CALL_TIMEOUT, next_backoff, next_batch, pull_catalog, run, ship_once};

use crate::hq_client::{self as client, HqClient};
use crate::store::{self, Store, hq_outbox};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Hq(#[from] client::Error),
    /// A note the outbox holds that cannot be shipped (a bug, not the HQ's absence).
    #[error("an outbox note: {0}")]
    Note(String),
    /// `restore --from-hq` over a database that already holds rows.
    #[error("{0}")]
    NotEmpty(String),
    /// The file of trusted roots `--hq-ca-file` names could not be read.
    #[error("the head office's CA file {}: {source}", .path.display())]
    CaFile { path: std::path::PathBuf, source: std::io::Error },
    /// A head office's address this shop does not take (plain HTTP unless allowed).
    #[error("{0}")]
    Address(String),
    /// `arka unlink-hq` on a shop that is not linked.
    #[error("this shop is not linked to a head office")]
    NotLinked,
}

/// The shop's place in a chain, as its start found it.
#[derive(Clone, Default)]
pub enum Chain {
    /// Never linked: no outbox, non-cash numbered by the shop itself.
    #[default]
    Lone,
    /// Linked and started with its head office.
    Linked(Arc<Link>),
    /// Linked (its database says so) but started without its head office: non-cash documents
    /// are refused, as when the HQ is away.
    Unreached { url: String },
}

impl Chain {
    /// The link, when started with its head office.
    pub fn link(&self) -> Option<&Arc<Link>> {
        match self {
            Chain::Linked(link) => Some(link),
            Chain::Lone | Chain::Unreached { .. } => None,
        }
    }
}

/// A shop's link to its head office while it runs: the client, and what the worker last met.
pub struct Link {
    pub client: Arc<HqClient>,
    pub url: String,
    /// The HQ's address is plain HTTP (`--hq-allow-http`).
    pub plain_http: bool,
    status: Mutex<Status>,
}

/// What keeps the outbox from the head office now, and when the worker tries again.
#[derive(Debug, Clone, Default)]
struct Status {
    problem: Option<String>,
    retry_at: Option<std::time::Instant>,
}

impl Link {
    fn set_status(&self, problem: Option<String>, retry_at: Option<std::time::Instant>) {
        if let Ok(mut status) = self.status.lock() {
            *status = Status { problem, retry_at };
        }
    }

    fn status(&self) -> Status {
        self.status.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// How `serve` was asked to join its head office.
pub struct JoinSettings<'a> {
    pub url: Option<&'a str>,
    pub token: Option<&'a str>,
    /// The roots to trust the HQ by (`--hq-ca-file`), else the system's.
    pub ca_pem: Option<Vec<u8>>,
    /// `--hq-allow-http`: a plain HTTP address is taken (and said at every start).
    pub allow_http: bool,
}

/// Whether `url` is an address this shop takes: HTTPS, or plain HTTP when allowed.
fn checked_address(url: &str, allow_http: bool) -> Result<bool, Error> {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return Ok(false);
    }
    if lower.starts_with("http://") {
        return match allow_http {
            true => Ok(true),
            false => Err(Error::Address(format!(
                "the head office's address {url} is plain HTTP: the shop's token and documents would cross the \
                 network readable. Use its https:// address (with --hq-ca-file for its own certificate), or \
                 --hq-allow-http on a network of your own"
            ))),
        };
    }
    Err(Error::Address(format!("the head office's address {url} is not an https:// URL")))
}

/// The shop's place in a chain at its start. With `--hq-url` it is linked (the first time,
/// everything written before is noted for the HQ) under this box's identity; without it, a shop
/// linked before is `Unreached` and says so.
pub fn open_chain(store: &Store, settings: &JoinSettings) -> Result<Chain, Error> {
    let (Some(url), Some(token)) = (settings.url, settings.token) else {
        return Ok(match store.read_blocking(hq_outbox::linked_url)? {
            Some(url) => {
                tracing::warn!(
                    %url,
                    "this shop is linked to a head office but was started without it (--hq-url): non-cash documents \
                     are refused until it is started with it, or unlinked (arka unlink-hq); its changes wait"
                );
                Chain::Unreached { url }
            }
            None => Chain::Lone,
        });
    };
    let url = url.trim().trim_end_matches('/').to_string();
    let plain_http = checked_address(&url, settings.allow_http)?;
    if plain_http {
        tracing::warn!(%url, "the head office is reached over plain HTTP (--hq-allow-http): the shop's token and documents cross the network readable");
    }
    // The link's stamp, written as the server starts, before its clock is handed out.
    let now = chrono::Utc::now().to_rfc3339();
    if store.write_blocking(|tx| hq_outbox::link(tx, &url, &now))? {
        tracing::info!(%url, "linked to the head office: every document and catalog row is noted for it");
    }
    let box_id = store
        .read_blocking(hq_outbox::box_id)?
        .ok_or_else(|| Error::Note("the link to the head office has no box identity".to_string()))?;
    let client = HqClient::new(&url, token, &box_id, settings.ca_pem.as_deref(), CALL_TIMEOUT)?;
    tracing::info!(%url, box_id, "shipping to the head office");
    Ok(Chain::Linked(Arc::new(Link { client: Arc::new(client), url, plain_http, status: Mutex::default() })))
}

/// `arka unlink-hq`: the shop leaves its chain. The link and the notes waiting for the HQ go,
/// and from then on the shop numbers its non-cash documents itself, after `noncash_after` (the
/// chain's last number of the business, which the shop's own books do not know) for every
/// company and this year. Audited, in the same transaction. The notes it dropped.
pub fn unlink(store: &Store, reason: &str, noncash_after: i64) -> Result<i64, Error> {
    use chrono::Datelike;
    // A command (`arka unlink-hq`): the box's real time, no server's clock to move.
    let now = chrono::Utc::now();
    let year = now.with_timezone(&chrono_tz::Europe::Tirane).year();
    store.write_blocking(|tx| {
        let (url, box_id, dropped) = hq_outbox::unlink(tx)?.ok_or(Error::NotLinked)?;
        for (company_id, _) in hq_outbox::companies(tx)? {
            let floor = store::numbering::Floor {
                company_id,
                sequence: super::sequence::Sequence::Business.key(),
                year,
                ord_num: noncash_after,
                replaced: format!("the chain's numbering at {url}"),
            };
            store::numbering::record(tx, &floor)?;
        }
        let entry = super::audit::by_cli(None, crate::domain::audit::Action::HqUnlink, &url)
            .before(serde_json::json!({"url": url, "box": box_id, "waiting": dropped}))
            .after(serde_json::json!({"reason": reason, "noncash_after": noncash_after, "year": year}));
        store::audit::append(tx, &entry)?;
        Ok(dropped)
    })
}

/// `arka hq-resend`: every row the shop ships is noted again for its head office (one whose
/// database was restored from a backup lacks what the shop shipped after it, and the shop forgot
/// it once acknowledged). How many rows.
pub fn resend(store: &Store) -> Result<usize, Error> {
    store.write_blocking(|tx| {
        hq_outbox::linked_url(tx)?.ok_or(Error::NotLinked)?;
        Ok(hq_outbox::note_everything(tx)?)
    })
}

/// What waits for the head office, with the age of the oldest note; none for a lone shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub notes: i64,
    /// When the oldest note was written, as stored.
    pub oldest_noted_at: Option<String>,
    pub oldest_age_seconds: Option<i64>,
    /// Changes the head office refused, set aside (kept here).
    pub set_aside: i64,
    /// What keeps the changes from the head office now (started without it, refused, away).
    pub problem: Option<String>,
    /// When the worker tries again, while something keeps it from the HQ.
    pub retry_in_seconds: Option<u64>,
    /// The head office is reached over plain HTTP.
    pub plain_http: bool,
}

impl super::HeadOffice<'_> {
    /// The outbox to the chain's head office as `/healthz`, `/metrics` and the owner's page show
    /// it; none for a lone shop.
    pub async fn hq_backlog(&self, now: chrono::DateTime<chrono::Utc>) -> super::Result<Option<Waiting>> {
        let backlog = self
            .services
            .store
            .read(|conn| match hq_outbox::linked_url(conn)? {
                Some(_) => Ok(Some((hq_outbox::backlog(conn)?, hq_outbox::set_aside_list(conn, 0)?.0))),
                None => Ok(None),
            })
            .await?;
        let Some((backlog, set_aside)) = backlog else { return Ok(None) };
        let (problem, retry_in_seconds, plain_http) = match &self.services.hq {
            Chain::Linked(link) => {
                let status = link.status();
                let retry = status.retry_at.map(|at| at.saturating_duration_since(std::time::Instant::now()));
                (status.problem, retry.map(|r| r.as_secs_f64().ceil() as u64), link.plain_http)
            }
            Chain::Unreached { .. } => (Some(NOT_REACHED.to_string()), None, false),
            Chain::Lone => (None, None, false),
        };
        Ok(Some(Waiting {
            notes: backlog.notes,
            oldest_age_seconds: backlog
                .oldest_noted_at
                .as_deref()
                .and_then(crate::domain::time::parse_stored)
                .map(|t| (now - t).num_seconds().max(0)),
            oldest_noted_at: backlog.oldest_noted_at,
            set_aside,
            problem,
            retry_in_seconds,
            plain_http,
        }))
    }
}
