//! The box's backup from the owner's page: one taken now (the database and its key file, to
//! download both), when the last automatic one ran and whether its check passed, and the copies
//! the check found damaged. A backup copies the whole box, every company on it, so only the owner
//! of the box's one company may take or fetch one.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde::Serialize;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, created, ok};
use crate::domain::backup_files::{self, Check, FullCheck};
use crate::domain::copy::{CopyStatus, TargetStatus};

/// What the README says of every backup.
pub const WARNING: &str = "The backup holds the sealed certificate keys and the key file that opens them: whoever has \
     both can sign fiscal documents as the shop. Keep both files together and as safe as the server.";

/// Takes a backup named `file` into `dir` (the root's `backup`, handed in at start):
/// its size in bytes, or why not.
pub type TakeBackup = Arc<dyn Fn(&str) -> Result<u64, String> + Send + Sync>;

/// Where the backups are, and how one is taken.
pub struct Backups {
    /// `--backup-dir`, else the data dir's `backups`.
    pub dir: PathBuf,
    /// `--backup-dir` is set: nightly backups run.
    pub automatic: bool,
    pub take: TakeBackup,
    pub copy: Copy,
    /// The nightly check spread over nights (the root's `backup::full_check`).
    pub full_check: Arc<dyn Fn() -> Option<FullCheck> + Send + Sync>,
}

/// The off-box copy as the root's `copy` shows it (handed in at start), and how a verified
/// restore of it is asked for (false: one is under way, or there is no copy).
#[derive(Clone)]
pub struct Copy {
    pub status: Arc<dyn Fn() -> CopyStatus + Send + Sync>,
    pub verify: Arc<dyn Fn() -> bool + Send + Sync>,
}

impl Copy {
    /// No copy set up.
    pub fn off() -> Copy {
        Copy { status: Arc::new(|| CopyStatus::Off), verify: Arc::new(|| false) }
    }
}

async fn owner_of_the_box(state: &AppState, auth: &Auth) -> Result<(), ApiError> {
    if state.services.people().owns_the_box(&auth.0).await? {
        return Ok(());
    }
    Err(ApiError::status(
        StatusCode::FORBIDDEN,
        "Only the owner of the box's one company may take or fetch its backups: a backup holds every company on it.",
    ))
}

/// A name this route made or the nightly schedule made: `arka-YYYYMMDD-HHMMSS[-occasion].db`,
/// or its `.key`. Nothing else of the folder is ever served.
fn backup_name(name: &str) -> bool {
    let base = name.strip_suffix(".key").unwrap_or(name);
    let Some(stem) = base.strip_prefix("arka-").and_then(|b| b.strip_suffix(".db")) else { return false };
    let (stamp, occasion) = stem.split_at(stem.len().min(15));
    let digits = stamp.len() == 15
        && stamp.char_indices().all(|(i, c)| if i == 8 { c == '-' } else { c.is_ascii_digit() });
    digits && ["", "-nightly", "-before-upgrade"].contains(&occasion)
}

/// The names in the backup folder (none when it does not exist yet).
fn folder(backups: &Backups) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(&backups.dir) else { return Vec::new() };
    entries.filter_map(|e| e.ok().and_then(|e| e.file_name().into_string().ok())).collect()
}

/// The newest automatic backup of the folder's `names`: its file name, when it was taken (local
/// time, from its UTC name) and its check.
fn last_automatic(names: &[String]) -> Option<Taken> {
    let mut automatic: Vec<&String> = names
        .iter()
        .filter(|n| {
            backup_name(n)
                && !n.ends_with(".key")
                && (n.contains("-nightly") || n.contains("-before-upgrade"))
        })
        .collect();
    automatic.sort();
    let file = automatic.pop()?.clone();
    let at = chrono::NaiveDateTime::parse_from_str(&file[5..20], "%Y%m%d-%H%M%S").ok()?;
    let check = backup_files::check_of(names, &file);
    Some(Taken { file, at: crate::domain::time::local_text(at.and_utc()), check })
}

/// `GET /api/v1/owner/backup`: whether nightly backups run, and the last automatic one.
pub async fn status(State(state): State<AppState>, auth: Auth) -> ApiResult {
    owner_of_the_box(&state, &auth).await?;
    let backups = &state.people.backups;
    let names = folder(backups);
    ok(Status {
        automatic: backups.automatic,
        last_automatic: last_automatic(&names),
        damaged: backup_files::damaged(&names),
        warning: WARNING,
        copy: CopyView::of(&(backups.copy.status)(), state.clock.utc()),
        full_check: (backups.full_check)().map(|c| FullCheckView {
            last_passed_at: c.last_full_pass.map(crate::domain::time::local_text),
            round: [c.round_passed, c.round_of],
            damage: c.damage.map(|(table, report)| format!("{table}: {report}")),
        }),
    })
}

/// The nightly check spread over nights: when its last whole round passed (local time), the
/// round under way (tables passed, of tables), damage it found.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FullCheckView {
    last_passed_at: Option<String>,
    round: [usize; 2],
    damage: Option<String>,
}

/// Whether nightly backups run, the last automatic one, the copies found damaged, and the copy
/// off the box.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Status {
    automatic: bool,
    last_automatic: Option<Taken>,
    damaged: Vec<String>,
    warning: &'static str,
    copy: CopyView,
    /// Null before the first nightly check.
    full_check: Option<FullCheckView>,
}

/// The copy off the box: `off`, `stopped` (set up, not running: `why`) or `running` with its
/// places; `behind` when the page shows its banner.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CopyView {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
    behind: bool,
    places: Vec<PlaceView>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaceView {
    place: &'static str,
    /// It holds every sale committed so far.
    up_to_date: bool,
    lag_seconds: i64,
    behind: bool,
    restorable: bool,
    /// When it last took something (local time).
    last_sent_at: Option<String>,
    /// A full copy on its way: parts sent, of parts.
    base: Option<[u64; 2]>,
    /// Why it fails now (`full`, `unreachable`, `denied`, `refused`, `settings`, `local`).
    failing: Option<&'static str>,
    verified: Option<VerifiedView>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedView {
    /// When the restore was made and checked (local time).
    at: String,
    /// The newest sale it held was copied then (local time).
    through: String,
    invoices: i64,
    passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
}

impl CopyView {
    pub fn of(status: &CopyStatus, now: chrono::DateTime<chrono::Utc>) -> CopyView {
        let behind = status.behind(now);
        match status {
            CopyStatus::Off => CopyView { state: "off", why: None, behind, places: Vec::new() },
            CopyStatus::NotRunning(why) => {
                CopyView { state: "stopped", why: Some(why.clone()), behind, places: Vec::new() }
            }
            CopyStatus::Running(places) => {
                let places = places.iter().map(|p| PlaceView::of(p, now)).collect();
                CopyView { state: "running", why: None, behind, places }
            }
        }
    }
}

impl PlaceView {
    fn of(t: &TargetStatus, now: chrono::DateTime<chrono::Utc>) -> PlaceView {
        let local = crate::domain::time::local_text;
        PlaceView {
            place: t.target,
            up_to_date: t.missing_since.is_none(),
            lag_seconds: t.lag_seconds(now),
            behind: t.behind(now),
            restorable: t.restorable,
            last_sent_at: t.last_sent_at.map(local),
            base: t.base.map(|(sent, parts)| [sent, parts]),
            failing: t.failing.as_ref().map(|(kind, _)| *kind),
            verified: t.verified.as_ref().map(|v| VerifiedView {
                at: local(v.at),
                through: local(v.through),
                invoices: v.invoices,
                passed: v.outcome.is_ok(),
                why: v.outcome.clone().err(),
            }),
        }
    }
}

/// `POST /api/v1/owner/backup/copy/verify`: a restore of the copy made and checked now, in the
/// background (202); 409 when one is under way or there is no copy.
pub async fn verify_copy(State(state): State<AppState>, auth: Auth) -> ApiResult {
    owner_of_the_box(&state, &auth).await?;
    let copy = state.people.backups.copy.clone();
    if !matches!((copy.status)(), CopyStatus::Running(_)) {
        return Err(ApiError::status(StatusCode::CONFLICT, "There is no copy off the box to verify."));
    }
    if !(copy.verify)() {
        return Err(ApiError::status(
            StatusCode::CONFLICT,
            "A verification of the copy is already under way.",
        ));
    }
    tracing::info!(user = auth.0.user.id, "a verified restore of the copy was asked from the page");
    Ok((StatusCode::ACCEPTED, axum::Json(serde_json::json!({ "status": true, "verifying": true })))
        .into_response())
}

/// A backup file, when it was taken (local time) and its check.
#[derive(Serialize)]
struct Taken {
    file: String,
    at: String,
    #[serde(serialize_with = "check_text")]
    check: Check,
}

fn check_text<S: serde::Serializer>(check: &Check, to: S) -> Result<S::Ok, S::Error> {
    to.serialize_str(check.as_str())
}

/// A backup taken from the page: its file, the key file beside it and its size.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TakenNow {
    file: String,
    key_file: String,
    bytes: u64,
    warning: &'static str,
}

/// `POST /api/v1/owner/backup`: a backup now, `arka-YYYYMMDD-HHMMSS.db` and its `.key`, written
/// and checked as `arka backup` does; 201 with the two files' names to download.
pub async fn take(State(state): State<AppState>, auth: Auth) -> ApiResult {
    owner_of_the_box(&state, &auth).await?;
    let file = format!("arka-{}.db", state.clock.utc().format("%Y%m%d-%H%M%S"));
    let take = state.people.backups.take.clone();
    let name = file.clone();
    let bytes = tokio::task::spawn_blocking(move || take(&name))
        .await
        .map_err(|e| {
            ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, format!("The backup stopped: {e}."))
        })?
        .map_err(|why| {
            tracing::error!(%why, "a backup from the page failed");
            ApiError::status(StatusCode::CONFLICT, format!("The backup could not be taken: {why}."))
        })?;
    let key_file = format!("{file}.key");
    if let Err(e) = state.services.record_backup(&auth.0, &file, bytes).await {
        // No backup the trail does not show: the files go with the failed entry.
        for name in [&file, &key_file] {
            let _ = std::fs::remove_file(state.people.backups.dir.join(name));
        }
        return Err(e.into());
    }
    tracing::info!(file, bytes, user = auth.0.user.id, "a backup was taken from the page");
    created(TakenNow { file, key_file, bytes, warning: WARNING })
}

/// `GET /api/v1/owner/backup/{file}`: one of the backup files, to save.
pub async fn download(State(state): State<AppState>, auth: Auth, Path(file): Path<String>) -> ApiResult {
    owner_of_the_box(&state, &auth).await?;
    let not_found = || ApiError::status(StatusCode::NOT_FOUND, "No such backup file.");
    if !backup_name(&file) {
        return Err(not_found());
    }
    let path = state.people.backups.dir.join(&file);
    let bytes = tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .map_err(|_| not_found())?
        .map_err(|_| not_found())?;
    let disposition = format!("attachment; filename=\"{file}\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_backup_names_are_served() {
        for good in
            ["arka-20261127-031500.db", "arka-20261127-031500.db.key", "arka-20261127-030000-nightly.db"]
        {
            assert!(backup_name(good), "{good}");
        }
        for bad in [
            "arka.db",
            "arka.key",
            "../arka.db",
            "arka-2026112-031500.db",
            "arka-20261127-031500-x.db",
            "arka-20261127x031500.db",
        ] {
            assert!(!backup_name(bad), "{bad}");
        }
    }
}
