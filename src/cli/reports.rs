//! `arka reports verify|rebuild` (verify checks the audit trail too), with the data dir's lock held so no server writes meanwhile.

use super::open_store;
use crate::config::DataArgs;
use crate::ops::data_lock;
use crate::services::reports;

/// Compares the kept report totals with totals rebuilt from the documents, and checks the audit
/// trail's chain; fails when either does not hold.
pub fn verify(data: &DataArgs) -> Result<(), String> {
    let _lock = data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
    let store = open_store(data)?;
    let trail = super::audit::check(&store);
    let drifts = reports::verify_totals(&store).map_err(|e| e.to_string())?;
    if drifts.is_empty() {
        println!("the report totals agree with the documents");
        return trail;
    }
    for d in &drifts {
        println!("{}: {} rows kept differ, {} rows rebuilt differ", d.table, d.kept_only, d.rebuilt_only);
    }
    Err("the report totals differ from the documents: run `arka reports rebuild`".into())
}

/// Builds the report totals again from the stored documents.
pub fn rebuild(data: &DataArgs) -> Result<(), String> {
    let _lock = data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
    let documents = reports::rebuild_totals(&open_store(data)?).map_err(|e| e.to_string())?;
    println!("the report totals were rebuilt from {documents} documents");
    Ok(())
}
