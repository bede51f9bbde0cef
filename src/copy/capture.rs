//! Reading the log beside the single writer, never inside a sale's transaction: each turn takes a
//! read transaction (so the log cannot start anew under it), reads the frames of the
//! transactions committed since the last turn into the spool, and folds the log back into the
//! database file (a PASSIVE checkpoint, which never waits for the writer) when it is long.
//!
//! Nothing else folds the log of a copied data dir (`store::copied`): so the log starts anew only
//! after a folding back by the copy, and the copy folds back only frames it has read. Its read
//! transaction holds a mark in the log only when some frame was not yet folded back when it began
//! (SQLite's reader slot 0 holds none); so a turn folds back only when the previous turn read
//! frames beyond the last folding back in the same log: then its mark is at least there, the
//! folding back stops at the mark, and every frame folded back was read.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::format::Segment;
use super::state::{self, FileStamp, LogPosition, Spooled, State};
use super::wal::{self, Header, Position};

/// Frames in one segment at most (8.6 MB of 512-byte pages): a larger transaction (a migration,
/// a rewrite) runs over several.
const SEGMENT_FRAMES: u32 = 16_384;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The database or its log were changed by something else than the shop's writer and this
    /// copy: the copy cannot follow them and starts a new generation.
    #[error("the copy lost the thread of the database: {0}")]
    Broken(String),
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    #[error(transparent)]
    State(#[from] state::Error),
}

pub struct Capture {
    db: PathBuf,
    wal: PathBuf,
    dir: PathBuf,
    /// Holds the read transaction of a turn.
    pin: Connection,
    /// Folds the log back.
    folder: Connection,
}

/// What a turn did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Turn {
    pub segments: u64,
    pub folded: bool,
}

fn no_fold_on_close(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    Ok(())
}

fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// The log's header, None when there is no log or it holds none yet (an empty log).
fn log_header(wal: &Path) -> Result<Option<Header>, Error> {
    let mut bytes = [0u8; wal::HEADER_BYTES];
    match std::fs::File::open(wal) {
        Ok(mut file) => match file.read_exact(&mut bytes) {
            Ok(()) => Ok(wal::header(&bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(Error::Io(wal.display().to_string(), e)),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::Io(wal.display().to_string(), e)),
    }
}

/// Whether `state` still describes the database at `db` (checked at a start, once the store is
/// open): its file as the copy left it, and its log either the one the copy was reading (the
/// frame where the reading stopped still there) or a new one begun after everything was folded
/// back. Why not, otherwise.
pub fn continues(state: &State, db: &Path) -> Result<(), String> {
    let file = FileStamp::of(db).map_err(|e| format!("{}: {e}", db.display()))?;
    if file != state.file {
        return Err("the database file was changed while the copy was not reading it".into());
    }
    let wal = wal_path(db);
    let header = log_header(&wal).map_err(|e| e.to_string())?;
    match (header, state.log) {
        (Some(h), Some(at)) if h.salts == at.salts => {
            if at.frames == 0 {
                return Ok(());
            }
            let mut head = [0u8; wal::FRAME_HEADER_BYTES];
            let read = std::fs::File::open(&wal).and_then(|mut f| {
                f.seek(SeekFrom::Start(wal::frame_offset(h.page_size, at.frames - 1)))?;
                f.read_exact(&mut head)
            });
            match read.ok().and_then(|()| wal::stored_checksum(&head, at.salts)) {
                Some(sum) if sum == at.checksum => Ok(()),
                _ => Err("the log is not the one the copy was reading".into()),
            }
        }
        (_, Some(_)) if !state.folded_all => {
            Err("the log was folded back before the copy had read all of it".into())
        }
        _ => Ok(()),
    }
}

impl Capture {
    pub fn open(db: &Path, dir: &Path) -> Result<Capture, Error> {
        let pin = Connection::open_with_flags(
            db,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        no_fold_on_close(&pin)?;
        let folder = Connection::open_with_flags(
            db,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        no_fold_on_close(&folder)?;
        folder.busy_timeout(std::time::Duration::from_secs(5))?;
        std::fs::create_dir_all(dir.join("spool")).map_err(|e| Error::Io(dir.display().to_string(), e))?;
        Ok(Capture { db: db.to_path_buf(), wal: wal_path(db), dir: dir.to_path_buf(), pin, folder })
    }

    /// One turn: reads what was committed since the last one into the spool and, when `fold`
    /// says so (the log is long, a base waits for a starting point) and it is safe, folds the
    /// log back. `first_commit_ms` is when the oldest commit not yet read was made. Updates
    /// `state` (saved by the caller).
    pub fn turn(
        &mut self,
        state: &mut State,
        fold: bool,
        first_commit_ms: Option<i64>,
    ) -> Result<Turn, Error> {
        self.pin.execute_batch("BEGIN")?;
        let turn = self
            .pin
            .query_row("SELECT COUNT(*) AS n FROM sqlite_schema", [], |r| r.get::<_, i64>("n"))
            .map_err(Error::from)
            .and_then(|_| self.read_and_fold(state, fold, first_commit_ms));
        self.pin.execute_batch("COMMIT")?;
        turn
    }

    fn read_and_fold(
        &mut self,
        state: &mut State,
        fold: bool,
        first_commit_ms: Option<i64>,
    ) -> Result<Turn, Error> {
        let Some(header) = log_header(&self.wal)? else {
            if state.log.is_some() && !state.folded_all {
                return Err(Error::Broken("the log is gone before the copy had read all of it".into()));
            }
            return Ok(Turn::default());
        };
        let (from, new_log) = match state.log {
            Some(at) if at.salts == header.salts => (Position::from(at), false),
            Some(_) if !state.folded_all => {
                return Err(Error::Broken("the log started anew before the copy had read all of it".into()));
            }
            _ => (Position::start(&header), true),
        };
        // Where the last turn stopped: this turn's mark is at least there.
        let previous_end = if new_log { 0 } else { from.frames };
        let io = |e| Error::Io(self.wal.display().to_string(), e);
        let mut log = BufReader::with_capacity(1 << 20, std::fs::File::open(&self.wal).map_err(io)?);
        log.seek(SeekFrom::Start(wal::frame_offset(header.page_size, from.frames))).map_err(io)?;
        let scanned = wal::read_frames(&mut log, &header, from, u32::MAX, false).map_err(io)?;
        let until = scanned.committed;
        let frames = until.frames - from.frames;
        let mut turn = Turn::default();
        if new_log {
            state.log = Some(LogPosition::from(from));
            state.folded = 0;
        }
        if frames > 0 {
            let captured_ms = chrono::Utc::now().timestamp_millis();
            let first_commit_ms = first_commit_ms.unwrap_or(captured_ms).min(captured_ms);
            let segments = u64::from(frames.div_ceil(SEGMENT_FRAMES));
            let run_end = state.next_seq + segments - 1;
            log.seek(SeekFrom::Start(wal::frame_offset(header.page_size, from.frames))).map_err(io)?;
            let mut at = from;
            while at.frames < until.frames {
                let take = (until.frames - at.frames).min(SEGMENT_FRAMES);
                let read = wal::read_frames(&mut log, &header, at, take, true).map_err(io)?;
                if read.end.frames != at.frames + take {
                    return Err(Error::Io(
                        self.wal.display().to_string(),
                        std::io::Error::other(
                            "the log changed while it was read; read again at the next turn",
                        ),
                    ));
                }
                let seq = state.next_seq;
                let segment = Segment {
                    seq,
                    run_end,
                    captured_ms,
                    first_commit_ms,
                    page_size: header.page_size,
                    frames: read.frames.into_iter().map(|f| (f.page, f.commit_size, f.data)).collect(),
                };
                let file = state::spool_file(&self.dir, seq);
                let bytes = segment.encode();
                std::fs::write(&file, &bytes)
                    .and_then(|()| std::fs::File::open(&file)?.sync_all())
                    .map_err(|e| Error::Io(file.display().to_string(), e))?;
                state.spool.insert(
                    seq,
                    Spooled {
                        captured_ms,
                        first_commit_ms,
                        log_frames: read.end.frames,
                        salts: header.salts,
                        bytes: u64::try_from(bytes.len()).unwrap_or(u64::MAX),
                    },
                );
                state.next_seq += 1;
                at = read.end;
            }
            state.log = Some(LogPosition::from(until));
            state.folded_all = false;
            state.last_captured_ms = captured_ms;
            turn.segments = segments;
        }
        // Safe only when this turn's mark is past the last folding back (see the module's text).
        let safe = !new_log && previous_end > state.folded;
        if fold && safe {
            let (log_frames, folded): (i64, i64) =
                self.folder.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                    Ok((r.get("log")?, r.get("checkpointed")?))
                })?;
            let folded = u32::try_from(folded).unwrap_or(0);
            state.folded = folded;
            state.folded_all = i64::from(folded) == log_frames && folded == until.frames;
            state.file = FileStamp::of(&self.db).map_err(|e| Error::Io(self.db.display().to_string(), e))?;
            if folded >= until.frames {
                state.base_point = state.next_seq.checked_sub(1);
                state.base_point_ms = state.last_captured_ms;
            } else if let Some((seq, spooled)) =
                state.spool.iter().rev().find(|(_, s)| s.salts == header.salts && s.log_frames <= folded)
                && Some(*seq) > state.base_point
            {
                state.base_point = Some(*seq);
                state.base_point_ms = spooled.captured_ms;
            }
            turn.folded = true;
        }
        Ok(turn)
    }

    /// The last turn at a stop, with no write under way (the caller holds the writer): reads
    /// what is left, then folds the whole log back and empties it, so that the next start finds
    /// the file the state describes.
    pub fn last(&mut self, state: &mut State) -> Result<(), Error> {
        self.turn(state, false, None)?;
        let (busy, log_frames, folded): (i64, i64, i64) =
            self.folder.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                Ok((r.get("busy")?, r.get("log")?, r.get("checkpointed")?))
            })?;
        state.file = FileStamp::of(&self.db).map_err(|e| Error::Io(self.db.display().to_string(), e))?;
        let read = state.log.map_or(0, |l| i64::from(l.frames));
        let all = (busy == 0 && log_frames <= 0) || (folded == log_frames && log_frames == read);
        if all {
            state.folded = u32::try_from(folded.max(0)).unwrap_or(0);
            state.folded_all = true;
            state.base_point = state.next_seq.checked_sub(1);
            state.base_point_ms = state.last_captured_ms;
        }
        Ok(())
    }
}
