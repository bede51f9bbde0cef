//! What the copy keeps of itself between two starts, in `DATA_DIR/copy/state.json` (written
//! whole and renamed): where its reading of the log is, the segments waiting in the spool, and
//! what each place holds. A start trusts it only while the database file is the one it describes
//! (`FileStamp`): a file changed by anything but the copy's own folding of the log (a restore,
//! a rewrite, a close that folded the log) starts a new generation everywhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::wal::Position;

#[derive(Debug, thiserror::Error)]
#[error("{0}: {1}")]
pub struct Error(pub String, #[source] pub std::io::Error);

/// The database file as the copy last left it: a change by anything else shows here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub len: u64,
    pub modified_ns: i128,
    pub inode: u64,
}

impl FileStamp {
    pub fn of(path: &Path) -> std::io::Result<FileStamp> {
        let meta = std::fs::metadata(path)?;
        let modified_ns = meta
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
            .unwrap_or(0);
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Ok(FileStamp { len: meta.len(), modified_ns, inode })
    }
}

/// Where the reading of the current log is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPosition {
    pub salts: (u32, u32),
    pub frames: u32,
    pub checksum: (u32, u32),
}

impl From<Position> for LogPosition {
    fn from(p: Position) -> Self {
        LogPosition { salts: p.salts, frames: p.frames, checksum: p.checksum }
    }
}

impl From<LogPosition> for Position {
    fn from(p: LogPosition) -> Self {
        Position { salts: p.salts, frames: p.frames, checksum: p.checksum }
    }
}

/// A segment in the spool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spooled {
    pub captured_ms: i64,
    pub first_commit_ms: i64,
    /// Its frames end here in the log it was read from (for the base's starting point).
    pub log_frames: u32,
    pub salts: (u32, u32),
    pub bytes: u64,
}

/// A generation a place holds (or is being sent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Generation {
    pub name: String,
    pub after_segment: u64,
    pub base_from_ms: i64,
    pub file_bytes: u64,
    pub parts: u64,
    pub parts_sent: u64,
    /// The manifest is there and `latest` lists it.
    pub complete: bool,
    pub shipped_through: u64,
    /// Sealed bytes of its base, and of the segments sent after it: a new base is made once the
    /// segments outweigh it (a restore then reads at most about twice the file).
    pub base_bytes: u64,
    pub segment_bytes: u64,
    /// No longer followed (the copy lost the thread, or the place was away too long): it stays a
    /// restore point up to `shipped_through`.
    #[serde(default)]
    pub frozen: bool,
    /// The base was read while the shop sold: it is the database as it was only once the
    /// segments up to this one are applied on it (read when its last part was), captured then.
    pub consistent_after: u64,
    pub consistent_ms: i64,
}

/// What a place holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    /// Oldest first; the last may be a base on its way.
    pub generations: Vec<Generation>,
    /// A new base is wanted (none yet, the place lost its copy, or the segments outweigh it).
    pub needs_base: bool,
    pub last_sent_ms: Option<i64>,
    pub verified: Option<VerifiedRestore>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedRestore {
    pub at_ms: i64,
    pub through_ms: i64,
    pub invoices: i64,
    pub failure: Option<String>,
}

impl Place {
    /// The newest generation it holds whole and still follows.
    pub fn complete(&self) -> Option<&Generation> {
        self.generations.iter().rev().find(|g| g.complete && !g.frozen)
    }

    pub fn building(&self) -> Option<&Generation> {
        self.generations.last().filter(|g| !g.complete)
    }

    /// The first segment some generation of this place still waits for.
    pub fn needs_from(&self) -> Option<u64> {
        self.generations
            .iter()
            .filter(|g| !g.frozen)
            .map(|g| g.shipped_through.max(g.after_segment) + 1)
            .min()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The next segment's number (never reused, across generations).
    pub next_seq: u64,
    /// Where the reading of the current log is; None before the first log.
    pub log: Option<LogPosition>,
    /// Frames of the current log the last folding back reached.
    pub folded: u32,
    /// Every frame read from the current log is folded back and the log held no other: it may
    /// start anew (the next log's frames all come after).
    pub folded_all: bool,
    pub file: FileStamp,
    /// The last segment whose frames are all in the database file: a base may start after it,
    /// and when that segment was read (ms).
    pub base_point: Option<u64>,
    pub base_point_ms: i64,
    /// When the last segment was read (ms).
    pub last_captured_ms: i64,
    pub spool: BTreeMap<u64, Spooled>,
    pub places: BTreeMap<String, Place>,
}

pub fn path(dir: &Path) -> PathBuf {
    dir.join("state.json")
}

pub fn spool_file(dir: &Path, seq: u64) -> PathBuf {
    dir.join("spool").join(format!("{seq:012}"))
}

/// The state kept in `dir`, None when there is none (or it does not read: a new start).
pub fn load(dir: &Path) -> Option<State> {
    let bytes = std::fs::read(path(dir)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Writes the state whole: a new file, synced, then renamed over the old one.
pub fn save(dir: &Path, state: &State) -> Result<(), Error> {
    let target = path(dir);
    let partial = dir.join("state.json.partial");
    let io = |e| Error(partial.display().to_string(), e);
    let bytes = serde_json::to_vec(state).map_err(|e| io(std::io::Error::other(e)))?;
    let _ = std::fs::remove_file(&partial);
    crate::ops::secrets::write_private(&partial, &bytes).map_err(io)?;
    std::fs::rename(&partial, &target).map_err(|e| Error(target.display().to_string(), e))
}
