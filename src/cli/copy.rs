//! `arka copy key` and `arka restore --from-copy`: the copy off the box's key, printed once, and
//! a new box filled from the copy.

use std::path::PathBuf;
use std::time::Duration;

use crate::config::{CopyPlaces, DataArgs};
use crate::copy::{self, CopyKey, restore};

/// `arka copy key`: makes the copy's key file and prints the key once.
pub fn key(data: &DataArgs, key_file: Option<PathBuf>) -> Result<(), String> {
    let path = key_file.unwrap_or_else(|| data.data_dir.join(copy::KEY_FILE));
    if path.exists() {
        return Err(format!(
            "{} exists: the copy already has a key (it is never replaced: the copies sealed with it would not open)",
            path.display()
        ));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let typed = copy::make_key(&path).map_err(|e| e.to_string())?;
    println!("The key of the copy off the box (shown this once):");
    println!();
    println!("    {typed}");
    println!();
    println!("Write it down and keep it away from this computer (a safe, a password manager).");
    println!("With it, and only with it, `arka restore --from-copy` brings the shop back on a new");
    println!("computer when this one is lost. The server reads it from {}.", path.display());
    Ok(())
}

/// A time the owner typed: RFC 3339, or `YYYY-MM-DD HH:MM[:SS]` in Tirana's time.
fn parse_at(text: &str) -> Result<i64, String> {
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(text.trim()) {
        return Ok(at.timestamp_millis());
    }
    let local = ["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(text.trim(), f).ok())
        .ok_or_else(|| {
            format!("--at {text:?}: give a time as 2026-12-07 10:30 (Tirana) or 2026-12-07T09:30:00Z")
        })?;
    use chrono::TimeZone;
    chrono_tz::Europe::Tirane
        .from_local_datetime(&local)
        .earliest()
        .map(|t| t.timestamp_millis())
        .ok_or_else(|| format!("--at {text:?} does not exist in Tirana (the clocks skip it)"))
}

/// `arka restore --from-copy`: an empty data dir filled from the copy.
pub fn restore(
    data: &DataArgs,
    places: &CopyPlaces,
    at: Option<&str>,
    typed_key: Option<&str>,
) -> Result<(), String> {
    let at_ms = at.map(parse_at).transpose()?;
    let settings = crate::copy_places(places, &data.data_dir, Duration::from_secs(1), Duration::from_secs(1));
    let key = match typed_key {
        Some(typed) => CopyKey::from_typed(typed),
        None => CopyKey::load(&settings.key_file),
    }
    .map_err(|e| format!("{e} (give the key you kept with --copy-key, or its file with --copy-key-file)"))?;
    let targets = settings.places().map_err(|e| e.to_string())?;
    if targets.is_empty() {
        return Err("name where the copy is: --copy-dir, or --copy-s3-url with its bucket and keys".into());
    }
    let done = restore::into_data_dir(&data.data_dir, &key, &targets, at_ms).map_err(|e| e.to_string())?;
    let through = chrono::DateTime::from_timestamp_millis(done.rebuilt.through_ms)
        .map(crate::domain::time::local_text)
        .unwrap_or_else(|| "?".into());
    println!(
        "restored {} from the copy at the {} (generation {}, {} segments after its base; {} invoices)",
        done.db.display(),
        done.place,
        done.rebuilt.generation,
        done.rebuilt.segments,
        done.invoices
    );
    println!("  the newest sale in it was copied at {through} (Tirana)");
    println!("  the key file that opens the certificate keys came with the copy (arka.key)");
    println!("  the restore is written in its audit trail, by the command line (arka audit verify)");
    println!();
    println!("The lost computer may have issued documents after {through} that the copy never got:");
    println!("their numbers are with the tax administration, not here. So every TCR of the copy is retired:");
    println!("at its start the server goes on on a new TCR registered at the CIS for each (the owner's page");
    println!("shows them, with the e-invoices the CIS lists that the books lack). Before the first non-cash");
    println!("invoice, compare its last number with the tax administration's portal: see \"A restore from");
    println!("the copy\" in the docs (/docs/operations.html#a-restore-from-the-copy).");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_rfc_3339_or_tirana_s_wall_clock() {
        let utc = chrono::DateTime::parse_from_rfc3339("2026-12-07T09:30:00Z").unwrap().timestamp_millis();
        assert_eq!(parse_at("2026-12-07T09:30:00Z"), Ok(utc));
        assert_eq!(parse_at("2026-12-07 10:30"), Ok(utc), "UTC+1 in December");
        assert_eq!(parse_at("2026-07-07 10:30:00"), parse_at("2026-07-07T08:30:00Z"), "UTC+2 in July");
        assert!(parse_at("2026-03-29 02:30").is_err(), "skipped by the spring change");
        assert!(parse_at("yesterday").is_err());
    }
}
