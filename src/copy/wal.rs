//! SQLite's write-ahead log read from its file: the header, and the frames of whole transactions
//! after a position, each checked as SQLite checks it at recovery (the header's salts, the
//! running checksum). A frame holds one page as a transaction left it; the last frame of a
//! transaction carries the database's size in pages (a commit frame). Frames after the last
//! commit frame that checks are a transaction being written (or left by a crash): never read.
//!
//! The format is SQLite's own (https://www.sqlite.org/fileformat2.html#walformat): a 32-byte
//! header, then frames of a 24-byte header and one page.

use std::io::Read;

pub const HEADER_BYTES: usize = 32;
pub const FRAME_HEADER_BYTES: usize = 24;
const MAGIC_LITTLE: u32 = 0x377f_0682;
const MAGIC_BIG: u32 = 0x377f_0683;

/// A log's header: what every frame of this log carries (its salts) and how its checksums run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub page_size: u32,
    pub salts: (u32, u32),
    /// The checksums are over big-endian words (else little-endian).
    pub big_endian: bool,
    /// The checksum of the header, where the first frame's starts.
    pub checksum: (u32, u32),
}

/// Where the reading of one log is: how many of its frames were read, and the running checksum
/// after the last of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub salts: (u32, u32),
    pub frames: u32,
    pub checksum: (u32, u32),
}

impl Position {
    /// Before the first frame of the log `header` starts.
    pub fn start(header: &Header) -> Position {
        Position { salts: header.salts, frames: 0, checksum: header.checksum }
    }
}

/// One page of a transaction, and for the last page of a transaction the database's size after
/// it (in pages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub page: u32,
    pub commit_size: u32,
    pub data: Vec<u8>,
}

fn be(bytes: &[u8]) -> u32 {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// SQLite's WAL checksum of `data` (a multiple of 8 bytes) from `start`.
pub fn checksum(big_endian: bool, data: &[u8], start: (u32, u32)) -> (u32, u32) {
    let (mut s0, mut s1) = start;
    for pair in data.chunks_exact(8) {
        let word = |b: &[u8]| {
            let b = [b[0], b[1], b[2], b[3]];
            if big_endian { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) }
        };
        s0 = s0.wrapping_add(word(&pair[..4])).wrapping_add(s1);
        s1 = s1.wrapping_add(word(&pair[4..])).wrapping_add(s0);
    }
    (s0, s1)
}

/// The header of a log, None when `bytes` holds none that checks (an empty or new log file).
pub fn header(bytes: &[u8]) -> Option<Header> {
    let bytes = bytes.get(..HEADER_BYTES)?;
    let magic = be(&bytes[0..4]);
    let big_endian = match magic {
        MAGIC_BIG => true,
        MAGIC_LITTLE => false,
        _ => return None,
    };
    let page_size = be(&bytes[8..12]);
    if !(512..=65536).contains(&page_size) || !page_size.is_power_of_two() {
        return None;
    }
    let stored = (be(&bytes[24..28]), be(&bytes[28..32]));
    if checksum(big_endian, &bytes[..24], (0, 0)) != stored {
        return None;
    }
    Some(Header { page_size, salts: (be(&bytes[16..20]), be(&bytes[20..24])), big_endian, checksum: stored })
}

/// What a reading of the log found: the frames read (when kept), where the last frame that
/// checked ends, and where the last commit frame among them ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub frames: Vec<Frame>,
    pub end: Position,
    pub committed: Position,
}

/// Reads from `log` (positioned at the first frame after `from`) at most `limit` frames, keeping
/// them when `keep`. A frame that does not check ends the reading: what follows it is not (yet)
/// a frame of this log. Frames after the last commit frame belong to a transaction not yet
/// committed (or rolled back: its frames are written over): only `committed` is a place to stop.
pub fn read_frames(
    log: &mut impl Read,
    header: &Header,
    from: Position,
    limit: u32,
    keep: bool,
) -> std::io::Result<Reading> {
    let page = usize::try_from(header.page_size).unwrap_or(usize::MAX);
    let mut reading = Reading { frames: Vec::new(), end: from, committed: from };
    let mut buf = vec![0u8; FRAME_HEADER_BYTES + page];
    let mut read = 0u32;
    while read < limit {
        if !read_whole(log, &mut buf)? {
            break;
        }
        read += 1;
        let (head, data) = buf.split_at(FRAME_HEADER_BYTES);
        if (be(&head[8..12]), be(&head[12..16])) != header.salts {
            break;
        }
        let sum =
            checksum(header.big_endian, data, checksum(header.big_endian, &head[..8], reading.end.checksum));
        if sum != (be(&head[16..20]), be(&head[20..24])) {
            break;
        }
        reading.end = Position { salts: header.salts, frames: reading.end.frames + 1, checksum: sum };
        let commit_size = be(&head[4..8]);
        if commit_size != 0 {
            reading.committed = reading.end;
        }
        if keep {
            reading.frames.push(Frame { page: be(&head[0..4]), commit_size, data: data.to_vec() });
        }
    }
    Ok(reading)
}

/// Fills `buf`; false at the end of the file (a short last piece is not a frame).
fn read_whole(from: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    let mut filled = 0;
    while filled < buf.len() {
        match from.read(&mut buf[filled..]) {
            Ok(0) => return Ok(false),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// The byte offset of frame `frames` (0-based) in a log of `page_size` pages.
pub fn frame_offset(page_size: u32, frames: u32) -> u64 {
    HEADER_BYTES as u64 + u64::from(frames) * (FRAME_HEADER_BYTES as u64 + u64::from(page_size))
}

/// The running checksum stored in frame `frames` (1-based: the last frame read) of `log`, and
/// whether that frame carries `salts`: how a position read earlier is found again in the same
/// log after a restart.
pub fn stored_checksum(frame_header: &[u8], salts: (u32, u32)) -> Option<(u32, u32)> {
    let head = frame_header.get(..FRAME_HEADER_BYTES)?;
    ((be(&head[8..12]), be(&head[12..16])) == salts).then(|| (be(&head[16..20]), be(&head[20..24])))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database in WAL mode whose log is never folded back, with `rows` written in `commits`
    /// transactions; returns the log's bytes.
    fn log_of(dir: &std::path::Path, commits: usize) -> Vec<u8> {
        let db = dir.join("t.db");
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "page_size", 512).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch("CREATE TABLE t (x TEXT)").unwrap();
        for i in 0..commits {
            conn.execute("INSERT INTO t (x) VALUES (?1)", [format!("row {i} {}", "y".repeat(300))]).unwrap();
        }
        let bytes = std::fs::read(dir.join("t.db-wal")).unwrap();
        std::mem::forget(conn);
        bytes
    }

    #[test]
    fn the_transactions_of_a_real_log_read_back_whole_and_a_torn_one_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = log_of(dir.path(), 5);
        let header = header(&bytes).unwrap();
        assert_eq!(header.page_size, 512);
        let start = Position::start(&header);
        let all = read_frames(&mut &bytes[HEADER_BYTES..], &header, start, u32::MAX, true).unwrap();
        let commits = all.frames.iter().filter(|f| f.commit_size != 0).count();
        assert_eq!(commits, 6, "the table and five rows");
        assert_eq!(frame_offset(512, all.end.frames) as usize, bytes.len(), "every frame read");
        assert_eq!(all.committed, all.end, "the last frame is a commit frame");

        // Read in two steps from where the first stopped (mid-transaction): the same frames.
        let first = read_frames(&mut &bytes[HEADER_BYTES..], &header, start, 3, true).unwrap();
        assert!(first.committed.frames <= first.end.frames);
        let offset = frame_offset(512, first.end.frames) as usize;
        let rest = read_frames(&mut &bytes[offset..], &header, first.end, u32::MAX, true).unwrap();
        assert_eq!([first.frames, rest.frames].concat(), all.frames);
        assert_eq!(rest.end, all.end);
        let last = frame_offset(512, all.end.frames - 1) as usize;
        assert_eq!(stored_checksum(&bytes[last..], header.salts), Some(all.end.checksum));
        let scanned = read_frames(&mut &bytes[HEADER_BYTES..], &header, start, u32::MAX, false).unwrap();
        assert!(scanned.frames.is_empty() && scanned.committed == all.committed);

        // A transaction whose last frame is damaged ends the reading before it.
        let mut torn = bytes.clone();
        let last_byte = torn.len() - 1;
        torn[last_byte] ^= 0xFF;
        let cut = read_frames(&mut &torn[HEADER_BYTES..], &header, start, u32::MAX, true).unwrap();
        assert_eq!(cut.frames.iter().filter(|f| f.commit_size != 0).count(), 5);
        assert!(cut.committed.frames < all.committed.frames);

        // Another log's header (other salts) reads none of these frames.
        let mut other = header;
        other.salts.0 ^= 1;
        let none = read_frames(&mut &bytes[HEADER_BYTES..], &other, Position::start(&other), u32::MAX, true)
            .unwrap();
        assert!(none.frames.is_empty());
    }

    #[test]
    fn a_header_that_does_not_check_is_no_header() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = log_of(dir.path(), 1);
        assert!(header(&bytes).is_some());
        assert!(header(&bytes[..20]).is_none());
        let mut bad = bytes.clone();
        bad[17] ^= 1;
        assert!(header(&bad).is_none(), "a salt changed without its checksum");
        assert!(header(&[0u8; 32]).is_none());
    }
}
