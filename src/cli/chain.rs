//! `arka unlink-hq`: a shop leaves its chain, on purpose and on the record.

use crate::config::DataArgs;

/// Notes every row of the data dir's shop again for its head office (the server stopped).
pub fn resend(data: &DataArgs) -> Result<(), String> {
    let _lock = crate::ops::data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
    let store = super::open_store(data)?;
    let noted = crate::services::hq_sync::resend(&store).map_err(|e| e.to_string())?;
    println!("{noted} rows noted for the head office: they go at the next start with --hq-url");
    Ok(())
}

/// Unlinks the data dir's shop from its head office (the server stopped): the link and the notes
/// waiting for the HQ go, non-cash documents are numbered by the shop again after
/// `noncash_after`, and the audit trail says who did it and why.
pub fn unlink(data: &DataArgs, reason: &str, noncash_after: i64) -> Result<(), String> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err("say why the shop leaves its chain (--reason): the audit trail keeps it".to_string());
    }
    if noncash_after < 0 {
        return Err("--noncash-after is the chain's last non-cash number of the business, from 0".to_string());
    }
    let _lock = crate::ops::data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
    let store = super::open_store(data)?;
    let dropped =
        crate::services::hq_sync::unlink(&store, reason, noncash_after).map_err(|e| e.to_string())?;
    println!("unlinked from the head office: {dropped} changes that had not reached it were dropped");
    println!("the shop numbers its non-cash documents itself from now on, after {noncash_after}");
    Ok(())
}
