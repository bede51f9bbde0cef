//! The business's non-cash numbers in a chain: reserved from the head office before the write
//! transaction (`hq::store::numbering`), given back when the document was not written.

use std::sync::Arc;

use crate::hq_client::{self as client, HqClient};
use crate::services::{Error, Result, Services};
use arka_core::wire::NumberAsk;

/// The 503's message when the head office cannot give a non-cash number.
pub const NO_NUMBER: &str = "The head office, which keeps the business's non-cash numbering for the chain, cannot be reached: nothing was issued. Try again.";

/// The 503's message of a shop linked to a head office but started without it.
pub const NOT_REACHED: &str = "This shop belongs to a chain whose head office keeps the business's non-cash numbering, but it was started without it (--hq-url): nothing was issued. Start it with its head office, or unlink it (arka unlink-hq).";

/// The business's next non-cash number for the document `held_for`, from the chain's head
/// office (`hq::store::numbering`), asked under the sequence's lock before the write transaction. The
/// HQ away is the spec's 503: nothing is issued; a number it refuses (the document was numbered
/// by the box this one replaced) is a 409 in its words.
pub async fn noncash_number(
    services: &Services,
    hq: Arc<HqClient>,
    company_id: i64,
    year: i32,
    held_for: &str,
) -> Result<i64> {
    let held_for = held_for.to_string();
    let (nuis, at_least) = services
        .store
        .read(move |conn| {
            let nuis: String =
                conn.query_row("SELECT nuis FROM companies WHERE id = ?1", [company_id], |r| r.get("nuis"))?;
            let next = crate::services::sequence::reserve_number(
                conn,
                company_id,
                year,
                &crate::services::sequence::Sequence::Business,
            )?;
            Ok((nuis, next))
        })
        .await?;
    let ask = NumberAsk { nuis, year, held_for, at_least };
    let given = tokio::task::spawn_blocking(move || hq.reserve_noncash(&ask))
        .await
        .map_err(|e| Error::HeadOffice(Box::new(e)))?;
    match given {
        Ok(given) => Ok(given.ord_num),
        Err(refused @ client::Error::Refused { status: 409, .. }) => {
            Err(Error::Clash(super::super::Clash::NumberRefused(refused)))
        }
        Err(e) => {
            tracing::warn!(error = %crate::error_chain(&e), "no non-cash number from the head office");
            Err(Error::Unavailable(super::super::NotNow::HeadOffice))
        }
    }
}

/// Gives the number back when its document was not written (a document written keeps it, held
/// for its retry as any other). Nobody waits for this: a failure is logged and the number stays
/// reserved for this document's retry.
pub async fn give_back_noncash(
    services: &Services,
    hq: Arc<HqClient>,
    company_id: i64,
    year: i32,
    held_for: &str,
    ord_num: i64,
) {
    let held_for = held_for.to_string();
    let read = services
        .store
        .read(move |conn| {
            let written: bool = conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM invoices WHERE company_id = ?1 AND year = ?2 AND kind = 'NONCASH'
                     AND ord_num = ?3) AS written",
                rusqlite::params![company_id, year, ord_num],
                |r| r.get("written"),
            )?;
            let nuis: String =
                conn.query_row("SELECT nuis FROM companies WHERE id = ?1", [company_id], |r| r.get("nuis"))?;
            Ok((written, nuis))
        })
        .await;
    let nuis = match read {
        Ok((false, nuis)) => nuis,
        Ok((true, _)) => return,
        Err(e) => {
            tracing::warn!(error = %crate::error_chain(&e), "cannot tell whether a non-cash number was used; it stays reserved");
            return;
        }
    };
    let ask = NumberAsk { nuis, year, held_for, at_least: 0 };
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || hq.release_noncash(&ask)).await {
        tracing::warn!(error = %crate::error_chain(&e), ord_num, "the head office did not take a non-cash number back; it stays reserved");
    }
}
