//! `arka queue`: the late-delivery queue as its owner sees it on the server's computer.

use std::path::Path;

use super::open_store;
use crate::config::DataArgs;
use crate::domain::time::{local_text, parse_stored};
use crate::fiscal::queue::{LEGAL_LIMIT_HOURS, WARN_AFTER_HOURS, age_hours};
use crate::ops::secrets::KeyFile;
use crate::services::queue::{self, Status};

/// `arka queue`: what waits for the CIS and what it refused, oldest first.
pub fn list(data: &DataArgs) -> Result<(), String> {
    let store = open_store(data)?;
    let items = queue::open_items(&store).map_err(|e| e.to_string())?;
    if items.is_empty() {
        println!("Nothing waits for the CIS.");
        return Ok(());
    }
    let now = chrono::Utc::now();
    println!(
        "{:>5}  {:<9} {:<27} {:<22} {:<19} {:>5} {:>8}  why",
        "id", "status", "document", "number", "issued", "age h", "attempts"
    );
    for q in &items {
        let age = age_hours(&q.issued_at, now);
        let issued = parse_stored(&q.issued_at).map(local_text).unwrap_or_else(|| q.issued_at.clone());
        let mut why = q.last_error.clone().unwrap_or_default();
        if q.status == Status::Waiting {
            if let Some(next) = parse_stored(&q.next_attempt_at) {
                why = format!("{why} (next try {})", local_text(next));
            }
            if age.is_some_and(|h| h >= WARN_AFTER_HOURS) {
                why = format!("NEAR THE {LEGAL_LIMIT_HOURS} h LIMIT FOR LATE DELIVERY; {why}");
            }
        }
        println!(
            "{:>5}  {:<9} {:<27} {:<22} {:<19} {:>5} {:>8}  {}",
            q.id,
            q.status.as_str(),
            q.operation,
            q.document_number.as_deref().unwrap_or("-"),
            issued,
            age.map(|h| h.to_string()).unwrap_or_default(),
            q.attempts,
            why.trim()
        );
    }
    if items.iter().any(|q| q.status == Status::Rejected) {
        println!();
        println!("The CIS refused the documents marked rejected; they stay until their cause is corrected.");
        println!("Then send them again with: arka queue resend ID...");
    }
    if items.iter().any(|q| q.status == Status::Held) {
        println!();
        println!(
            "The documents marked held were given up while their POS waited (the CIS refused them, or did"
        );
        println!(
            "not answer for a non-cash invoice): the POS was told and nothing was handed over. Each number is"
        );
        println!(
            "held for the POS's retry of the same document (same internalId), which is issued under it; a"
        );
        println!("held number is never given to another document.");
    }
    Ok(())
}

/// `arka queue requests --out DIR`: every request the queue keeps, signed as it was sent, one
/// file each (`<queue id>-<request>.xml`, a SOAP envelope), for an auditor or `xmlsec1 --verify`.
pub fn requests(data: &DataArgs, out: &Path) -> Result<(), String> {
    let store = open_store(data)?;
    let key_file = KeyFile::load_or_create(&data.data_dir.join("arka.key")).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let written = queue::signed_kept_requests(&store, &key_file, |kept| {
        std::fs::write(out.join(format!("{:08}-{}.xml", kept.queue_id, kept.operation)), kept.envelope)
    })
    .map_err(|e| e.to_string())?;
    println!("{written} kept requests, signed as sent, written to {}", out.display());
    Ok(())
}

/// `arka queue resend ID...`: refused documents wait for the CIS again.
pub fn resend(data: &DataArgs, ids: &[i64]) -> Result<(), String> {
    let store = open_store(data)?;
    let mut unknown = Vec::new();
    for &id in ids {
        if queue::resend(&store, id, chrono::Utc::now()).map_err(|e| e.to_string())? {
            println!("{id}: waits for the CIS again");
        } else {
            unknown.push(id.to_string());
        }
    }
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(format!("no refused document has the queue id {} (see `arka queue`)", unknown.join(", ")))
    }
}
