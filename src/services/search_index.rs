//! The invoice list's search index, written in batches after the documents' own transactions
//! (V19): a document's transaction does not wait for it, and the list reads the invoices it does
//! not cover yet from the table, so a search finds a document the moment it is issued.

use std::time::Duration;

use super::{Result, Services};
use crate::store::invoices;

/// Invoices added per transaction: a busy till's second of documents, a few milliseconds of the
/// writer's time.
const BATCH: i64 = 1000;

/// How often the index is brought up to date.
const EVERY: Duration = Duration::from_secs(1);

impl Services {
    /// Brings the search index up to date every second, from the server's start (what a stop
    /// left behind) until the task is dropped.
    pub async fn keep_search_index(self) {
        let mut tick = tokio::time::interval(EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if let Err(e) = self.index_pending().await {
                tracing::warn!(error = %crate::error_chain(&e), "the search index could not be brought up to date; the next turn tries again");
            }
        }
    }

    /// Adds every invoice the search index does not cover yet, a batch per transaction. Written
    /// without waiting for the disk: the next document's sync covers it, and a power cut that
    /// loses it loses the index's mark with it, so those invoices are indexed again.
    async fn index_pending(&self) -> Result<()> {
        while self.store.read(invoices::search_pending).await? {
            let indexed = self.store.write_unsynced(|tx| invoices::index_pending(tx, BATCH)).await?;
            if indexed < BATCH as usize {
                break;
            }
        }
        Ok(())
    }
}
