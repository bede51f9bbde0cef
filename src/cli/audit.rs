//! `arka audit verify`: walks the audit trail's hash chain. Only reads, so it runs beside a
//! server (the chain is read in one read transaction: what a running server appends meanwhile
//! is left for the next run).

use super::open_store;
use crate::config::DataArgs;
use crate::services::audit;

/// Prints whether the chain is whole or names its first broken entry; `Err` when broken.
pub fn verify(data: &DataArgs) -> Result<(), String> {
    check(&open_store(data)?)
}

/// The chain's check, shared with `arka reports verify`.
pub fn check(store: &crate::store::Store) -> Result<(), String> {
    match audit::verify(store).map_err(|e| e.to_string())? {
        Ok(entries) => {
            println!("the audit trail is whole ({entries} entries)");
            Ok(())
        }
        Err(broken) => Err(format!("the audit trail is broken at entry {}: it {}", broken.id, broken.why)),
    }
}
