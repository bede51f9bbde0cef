//! A database file rebuilt from a copy: the base of the newest generation that began before the
//! chosen time, then its segments in order, each frame's page written where it belongs and the
//! file cut to the size the last transaction left. The base was read from the live file while
//! the shop sold (pages of several instants, some torn); every page written to that file after
//! the base's first segment is in a later segment, so applying them makes the file exactly the
//! database as it was after the last transaction applied (what `pg_basebackup` does with a
//! database's files and its WAL).

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use super::format::{self, Latest, Manifest, Segment};
use super::sealed::{self, CopyKey};
use super::target::Target;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Target(#[from] super::target::Error),
    #[error(transparent)]
    Sealed(#[from] sealed::Error),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// The target holds no generation whose base is complete (or none as old as asked).
    #[error("the copy holds no complete copy{0}")]
    Nothing(String),
    /// An object is missing or not what its name says.
    #[error("the copy is not whole: {0}")]
    Broken(String),
}

/// What a rebuild made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebuilt {
    pub generation: String,
    pub segments: u64,
    /// The newest transaction in the file was captured then (ms; the base's when no segment).
    pub through_ms: i64,
    pub bytes: u64,
    /// The data dir's key file, as the copy carried it.
    pub key_file: Vec<u8>,
}

fn json<T: serde::de::DeserializeOwned>(
    key: &CopyKey,
    target: &Target,
    name: &str,
) -> Result<Option<T>, Error> {
    let Some(sealed) = target.get(name)? else { return Ok(None) };
    let plain = sealed::open(key, name, &sealed)?;
    serde_json::from_slice(&plain).map(Some).map_err(|e| Error::Broken(format!("{name}: {e}")))
}

/// The generations `target` lists.
pub fn latest(key: &CopyKey, target: &Target) -> Result<Latest, Error> {
    Ok(json(key, target, format::LATEST)?.unwrap_or_default())
}

/// Rebuilds into `into` (a new file) the database as the copy on `target` holds it: its newest
/// state, or the last state captured at or before `at_ms`.
pub fn rebuild(key: &CopyKey, target: &Target, at_ms: Option<i64>, into: &Path) -> Result<Rebuilt, Error> {
    let latest = latest(key, target)?;
    let chosen =
        latest.generations.iter().rev().find(|g| at_ms.is_none_or(|at| g.base_from_ms <= at)).ok_or_else(
            || {
                Error::Nothing(match at_ms {
                    Some(_) => " as old as the time asked".into(),
                    None => String::new(),
                })
            },
        )?;
    let manifest: Manifest = json(key, target, &format::manifest_name(&chosen.generation))?
        .ok_or_else(|| Error::Broken(format!("{} has no manifest", chosen.generation)))?;
    let io = |e: std::io::Error| Error::Io(into.display().to_string(), e);
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(into).map_err(io)?;
    for part in 0..manifest.parts {
        let name = format::part_name(&manifest.generation, part);
        let sealed = target.get(&name)?.ok_or_else(|| Error::Broken(format!("{name} is missing")))?;
        let bytes = sealed::open(key, &name, &sealed)?;
        file.seek(SeekFrom::Start(part * format::PART_BYTES)).map_err(io)?;
        file.write_all(&bytes).map_err(io)?;
    }
    file.set_len(manifest.file_bytes).map_err(io)?;
    let mut seq = manifest.after_segment + 1;
    let mut through_ms = manifest.base_from_ms;
    let mut size_pages = None;
    let mut applied = 0;
    loop {
        let name = format::segment_name(&manifest.generation, seq);
        let Some(sealed) = target.get(&name)? else { break };
        let segment = Segment::decode(&sealed::open(key, &name, &sealed)?)
            .filter(|s| s.seq == seq && s.page_size == manifest.page_size)
            .ok_or_else(|| Error::Broken(format!("{name} is not segment {seq}")))?;
        // Up to the base's point of consistency every segment is applied, whatever the time.
        if seq > manifest.consistent_after && at_ms.is_some_and(|at| segment.captured_ms > at) {
            break;
        }
        // A transaction that runs over several segments is applied whole or not at all: the
        // copy's end may have come before its last segment was sent.
        if segment.run_end > seq
            && !target.exists(&format::segment_name(&manifest.generation, segment.run_end))?
        {
            break;
        }
        let page = u64::from(segment.page_size);
        for (number, commit, data) in &segment.frames {
            file.seek(SeekFrom::Start(u64::from(number.saturating_sub(1)) * page)).map_err(io)?;
            file.write_all(data).map_err(io)?;
            if *commit != 0 {
                size_pages = Some(u64::from(*commit));
            }
        }
        through_ms = segment.captured_ms;
        applied += 1;
        seq += 1;
    }
    if seq <= manifest.consistent_after {
        return Err(Error::Broken(format!(
            "{} lacks segment {seq}, which its base needs to be whole",
            manifest.generation
        )));
    }
    if let Some(pages) = size_pages {
        file.set_len(pages * u64::from(manifest.page_size)).map_err(io)?;
    }
    file.sync_all().map_err(io)?;
    let bytes = file.metadata().map_err(io)?.len();
    let key_file = hex_bytes(&manifest.key_file)
        .ok_or_else(|| Error::Broken(format!("{} carries no key file", manifest.generation)))?;
    Ok(Rebuilt { generation: manifest.generation, segments: applied, through_ms, bytes, key_file })
}

fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect()
}

/// Checks a rebuilt database `db` with its key file as the copy carried it (`scratch` holds
/// the key file for the check): `PRAGMA quick_check` (a full `integrity_check` of a decade's file
/// takes hours: the nightly check spreads it over nights), an Arka schema this binary knows, a key
/// that opens every certificate key sealed in it. Returns its invoices.
pub fn check(db: &Path, key_file: &[u8], scratch: &Path) -> Result<i64, String> {
    let conn = rusqlite::Connection::open_with_flags(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| e.to_string())?;
    let lines: Vec<String> = conn
        .prepare("PRAGMA quick_check")
        .and_then(|mut stmt| stmt.query_map([], |r| r.get::<_, String>("quick_check"))?.collect())
        .map_err(|e| e.to_string())?;
    if lines != ["ok"] {
        return Err(format!("quick_check: {}", lines.into_iter().take(3).collect::<Vec<_>>().join("; ")));
    }
    let version = crate::store::schema_version(&conn).map_err(|e| e.to_string())?;
    if version == 0 || version > crate::store::latest_schema_version() {
        return Err(format!(
            "schema version {version}, this Arka knows up to {}",
            crate::store::latest_schema_version()
        ));
    }
    let key_path = scratch.join("arka.key");
    let _ = std::fs::remove_file(&key_path);
    crate::ops::secrets::write_private(&key_path, key_file).map_err(|e| e.to_string())?;
    let key = crate::ops::secrets::KeyFile::load_or_create(&key_path).map_err(|e| e.to_string())?;
    let sealed: Vec<Vec<u8>> = conn
        .prepare("SELECT key_sealed FROM certificates")
        .and_then(|mut stmt| stmt.query_map([], |r| r.get::<_, Vec<u8>>("key_sealed"))?.collect())
        .map_err(|e| e.to_string())?;
    if sealed.iter().any(|s| key.open(s).is_err()) {
        return Err("the key file the copy carries does not open its certificate keys".into());
    }
    conn.query_row("SELECT COUNT(*) AS n FROM invoices", [], |r| r.get("n")).map_err(|e| e.to_string())
}

/// What `arka restore --from-copy` did.
#[derive(Debug, Clone)]
pub struct Restored {
    pub place: &'static str,
    pub rebuilt: Rebuilt,
    pub invoices: i64,
    pub db: std::path::PathBuf,
}

/// Why a restore from the copy retired the TCRs it restored (the owner's page shows it).
const RETIRED_WHY: &str = "restored from the copy off the box";

/// Fills the empty data dir `data_dir` from the first of `places` that holds a copy: the
/// database as the copy holds it (its newest state, or the last at or before `at_ms`), checked,
/// and the key file the copy carried. The restore is written in its audit trail.
pub fn into_data_dir(
    data_dir: &Path,
    key: &CopyKey,
    places: &[Target],
    at_ms: Option<i64>,
) -> Result<Restored, Error> {
    let db = data_dir.join("arka.db");
    if db.exists() {
        return Err(Error::Broken(format!(
            "{} exists: a restore from the copy fills an empty data dir (a new box); move the database away first",
            db.display()
        )));
    }
    crate::ops::files::private_dir(data_dir).map_err(|e| Error::Io(data_dir.display().to_string(), e))?;
    let _lock = crate::ops::data_lock::lock(data_dir).map_err(|e| Error::Broken(e.to_string()))?;
    let mut last_error = None;
    for target in places {
        match latest(key, target) {
            Ok(listed) if !listed.generations.is_empty() => {
                let partial = data_dir.join("arka.db.partial");
                let _ = std::fs::remove_file(&partial);
                let done = rebuild(key, target, at_ms, &partial)
                    .and_then(|rebuilt| {
                        let invoices = check(&partial, &rebuilt.key_file, data_dir).map_err(Error::Broken)?;
                        Ok((rebuilt, invoices))
                    })
                    .and_then(|(rebuilt, invoices)| {
                        let entry = restore_entry(target.name(), &rebuilt, invoices);
                        // Issue 43's rule: the lost box may have numbered on after the copy's
                        // last turn, so no till of the copy issues again; the server goes on
                        // on new TCRs (`Services::continue_on_new_tcrs`).
                        let now = chrono::Utc::now().to_rfc3339();
                        crate::store::audit::append_in_file_with(&partial, &entry, |tx| {
                            crate::store::devices::retire_all(tx, RETIRED_WHY, &now).map(|_| ())
                        })
                        .map_err(|e| Error::Broken(e.to_string()))?;
                        std::fs::rename(&partial, &db).map_err(|e| Error::Io(db.display().to_string(), e))?;
                        Ok(Restored { place: target.name(), rebuilt, invoices, db: db.clone() })
                    });
                if done.is_err() {
                    let _ = std::fs::remove_file(&partial);
                    let _ = std::fs::remove_file(data_dir.join("arka.key"));
                }
                return done;
            }
            Ok(_) => last_error = Some(Error::Nothing(format!(" at the {}", target.name()))),
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| Error::Nothing(": no place for the copy is set".into())))
}

fn restore_entry(place: &str, rebuilt: &Rebuilt, invoices: i64) -> crate::domain::audit::Entry {
    crate::domain::audit::Entry {
        company_id: None,
        actor: crate::domain::audit::Actor::Cli,
        request_id: None,
        action: crate::domain::audit::Action::BackupRestore,
        object: format!("copy:{place}:{}", rebuilt.generation),
        before: None,
        after: None,
    }
    .after(serde_json::json!({
        "fromCopy": place,
        "generation": rebuilt.generation,
        "segments": rebuilt.segments,
        "throughMs": rebuilt.through_ms,
        "invoices": invoices,
    }))
}
