//! The objects of a copy and their names. A target holds generations; a generation is a base (the
//! database file read page by page, in parts) and the segments that follow it (the log's frames
//! of whole transactions, in the order they were committed), and a manifest written once its base
//! is complete. `latest` names the generations a target holds. Every object is sealed
//! (`sealed.rs`) under its own name.
//!
//! ```text
//! latest                          the generations, oldest first
//! <generation>/manifest           its base's shape, the segment it follows, the data dir's key file
//! <generation>/base/000000        the database file's bytes, PART_BYTES a part
//! <generation>/wal/000000000042   segment 42: frames of whole transactions
//! ```

use serde::{Deserialize, Serialize};

/// The database file's bytes in one base part (before compression).
pub const PART_BYTES: u64 = 16 * 1024 * 1024;
const SEGMENT_MAGIC: &[u8; 8] = b"ARKASEG1";

pub const LATEST: &str = "latest";

pub fn manifest_name(generation: &str) -> String {
    format!("{generation}/manifest")
}

pub fn part_name(generation: &str, part: u64) -> String {
    format!("{generation}/base/{part:06}")
}

pub fn segment_name(generation: &str, seq: u64) -> String {
    format!("{generation}/wal/{seq:012}")
}

/// A new generation's name: when it was begun (sorts by time) and a random tail.
pub fn generation_name(at: chrono::DateTime<chrono::Utc>, random: u32) -> String {
    format!("g{}-{random:08x}", at.format("%Y%m%dT%H%M%SZ"))
}

/// A generation's manifest: what a restore needs besides the parts and the segments.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub generation: String,
    /// The base holds every transaction of the segments up to this one; a restore applies those
    /// after it.
    pub after_segment: u64,
    /// The base was read page by page while the shop sold: the file is the database as it was
    /// only once the segments up to this one are applied (its pages are of several instants).
    pub consistent_after: u64,
    /// When that segment was read (ms since the epoch): the earliest time this generation
    /// restores to.
    pub base_from_ms: i64,
    pub file_bytes: u64,
    pub parts: u64,
    pub page_size: u32,
    /// The data dir's `arka.key` (hexadecimal), which opens the certificate keys sealed in the
    /// database: sealed here with the rest, so the copy's key alone restores the shop.
    pub key_file: String,
    pub arka_version: String,
}

/// A generation as `latest` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub generation: String,
    pub after_segment: u64,
    /// The earliest time it restores to (ms).
    pub base_from_ms: i64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Latest {
    pub generations: Vec<Listed>,
}

/// The transactions captured from the log at one time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    /// The last segment of the same reading of the log: a transaction larger than a segment
    /// runs over several, and a restore applies none of them unless it has them all.
    pub run_end: u64,
    /// When the frames were read from the log (ms since the epoch).
    pub captured_ms: i64,
    /// When the first of its transactions committed, as the writer noted it (ms).
    pub first_commit_ms: i64,
    pub page_size: u32,
    pub frames: Vec<(u32, u32, Vec<u8>)>,
}

impl Segment {
    pub fn encode(&self) -> Vec<u8> {
        let page = usize::try_from(self.page_size).unwrap_or(0);
        let mut out = Vec::with_capacity(40 + self.frames.len() * (8 + page));
        out.extend_from_slice(SEGMENT_MAGIC);
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(&self.run_end.to_le_bytes());
        out.extend_from_slice(&self.captured_ms.to_le_bytes());
        out.extend_from_slice(&self.first_commit_ms.to_le_bytes());
        out.extend_from_slice(&self.page_size.to_le_bytes());
        out.extend_from_slice(&u32::try_from(self.frames.len()).unwrap_or(u32::MAX).to_le_bytes());
        for (page, commit, data) in &self.frames {
            out.extend_from_slice(&page.to_le_bytes());
            out.extend_from_slice(&commit.to_le_bytes());
            out.extend_from_slice(data);
        }
        out
    }

    /// A segment from its bytes; None when they are not one (the seal already proved they are
    /// what was written, so this only guards against a foreign format).
    pub fn decode(bytes: &[u8]) -> Option<Segment> {
        let rest = bytes.strip_prefix(SEGMENT_MAGIC.as_slice())?;
        let mut at = 0usize;
        let mut take = |n: usize| {
            let piece = rest.get(at..at + n);
            at += n;
            piece
        };
        let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or([0; 4]));
        let seq = u64_of(take(8)?);
        let run_end = u64_of(take(8)?);
        let captured_ms = i64::from_le_bytes(take(8)?.try_into().ok()?);
        let first_commit_ms = i64::from_le_bytes(take(8)?.try_into().ok()?);
        let page_size = u32_of(take(4)?);
        let count = u32_of(take(4)?);
        let page = usize::try_from(page_size).ok()?;
        let mut frames = Vec::with_capacity(usize::try_from(count).ok()?.min(1 << 20));
        for _ in 0..count {
            let number = u32_of(take(4)?);
            let commit = u32_of(take(4)?);
            frames.push((number, commit, take(page)?.to_vec()));
        }
        (at == rest.len()).then_some(Segment {
            seq,
            run_end,
            captured_ms,
            first_commit_ms,
            page_size,
            frames,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_reads_back_as_written_and_names_sort_by_order() {
        let segment = Segment {
            seq: 42,
            run_end: 43,
            captured_ms: 1_700_000_000_123,
            first_commit_ms: 1_700_000_000_001,
            page_size: 512,
            frames: vec![(1, 0, vec![7; 512]), (9, 12, vec![8; 512])],
        };
        let bytes = segment.encode();
        assert_eq!(Segment::decode(&bytes), Some(segment));
        assert_eq!(Segment::decode(&bytes[..bytes.len() - 1]), None);
        assert_eq!(Segment::decode(b"ARKASEG2"), None);
        assert!(segment_name("g", 9) < segment_name("g", 10));
        assert!(part_name("g", 99) < part_name("g", 100));
        let at = chrono::DateTime::parse_from_rfc3339("2026-12-07T10:15:30Z").unwrap().to_utc();
        assert_eq!(generation_name(at, 0xab), "g20261207T101530Z-000000ab");
    }
}
