//! The commands of `arka` besides the parsing (`src/main.rs`): each opens what it needs, calls
//! the services (never the store's queries) and says what it did for the person at the terminal.

pub mod accounts;
pub mod audit;
pub mod backup;
pub mod chain;
pub mod copy;
pub mod marketplace;
pub mod queue;
pub mod reports;
pub mod serve;
pub mod service;

use crate::config::DataArgs;
use crate::store::Store;

/// The data dir's database, migrated to the latest schema.
pub fn open_store(data: &DataArgs) -> Result<Store, String> {
    Store::open(&data.db_path()).map_err(|e| format!("cannot open {}: {e}", data.db_path().display()))
}

/// `open_store`, also rewriting a big database with small pages (`arka migrate --small-pages`).
pub fn open_store_with_small_pages(data: &DataArgs) -> Result<Store, String> {
    Store::open_with_small_pages(&data.db_path())
        .map_err(|e| format!("cannot open {}: {e}", data.db_path().display()))
}
