//! One sender per place: it keeps the generation the place holds current (the segments after
//! what it has), sends a new base when the place needs one (none yet, it lost its copy, the
//! segments since outweigh the base) while the held one stays current, and removes what the
//! place no longer needs. A failure (the network cut, the server down, the disk full) is tried
//! again, sooner at first: the segments wait in the spool, so the place catches up when it can.
//! Now and then (and once each base is complete) a restore of each place is made and checked.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::format::{self, Latest, Listed, Manifest};
use super::sealed;
use super::state::{self, Generation, State, VerifiedRestore};
use super::target::{self, Target};
use super::{Shared, restore};

/// Generations a place keeps whole (each a restore point back to its base).
const KEEP: usize = 2;
/// The spool holds at most this much for a place that cannot be reached; beyond it that place
/// is given a new base when it is back (what it holds stays a restore point).
const SPOOL_MAX_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Segments since a base may outweigh it by this much before a new base is sent: a young shop's
/// base is a few hundred kilobytes, which a morning's sales outweigh.
const NEW_BASE_AFTER_BYTES: u64 = 64 * 1024 * 1024;
/// How often a place is asked whether it still holds its generation (its manifest), besides
/// after each failure (at least ten turns apart).
const HOLDS_CHECKED_EVERY: Duration = Duration::from_secs(60);
/// The longest wait between two tries at a place that fails.
const RETRY_AT_MOST: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(transparent)]
    Target(#[from] target::Error),
    #[error(transparent)]
    Sealed(#[from] sealed::Error),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
}

impl Error {
    fn kind(&self) -> &'static str {
        match self {
            Error::Target(e) => e.kind(),
            Error::Sealed(_) | Error::Io(..) => "local",
        }
    }
}

/// What a sender does next.
enum Action {
    /// After a failure: is the held generation still there (the place may have lost it)?
    CheckHolds(String),
    Segment {
        generation: String,
        seq: u64,
    },
    Part {
        generation: String,
        part: u64,
        file_bytes: u64,
    },
    Finish {
        manifest: Box<Manifest>,
        own: Vec<Listed>,
    },
    Prune(Vec<Generation>),
    Idle,
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

pub fn run(shared: &Arc<Shared>, index: usize) {
    let (target, live) = &shared.places[index];
    let mut failures: u32 = 0;
    let mut checked = std::time::Instant::now();
    while !shared.halted() {
        // A server that lost what it held may answer again before any call failed (a bucket
        // emptied, a NAS replaced): the held generation is looked for now and then too.
        let check = failures > 0 || checked.elapsed() >= HOLDS_CHECKED_EVERY.max(shared.every * 10);
        if check {
            checked = std::time::Instant::now();
        }
        match step(shared, target, check) {
            Ok(worked) => {
                if failures > 0 {
                    tracing::info!(place = target.name(), failures, "the copy reaches its place again");
                }
                failures = 0;
                if let Ok(mut failing) = live.failing.lock() {
                    *failing = None;
                }
                match worked {
                    Some(bytes) => {
                        live.sent_bytes.fetch_add(bytes, Ordering::Relaxed);
                    }
                    None => {
                        if shared.draining() {
                            break;
                        }
                        if verification_due(shared, target) {
                            verify_all(shared.clone());
                        }
                        shared.wait(shared.every);
                    }
                }
            }
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_power_of_two() {
                    tracing::warn!(place = target.name(), failures, error = %crate::error_chain(&e), "the copy cannot reach its place; it tries again");
                }
                if let Ok(mut failing) = live.failing.lock() {
                    *failing = Some((e.kind(), e.to_string()));
                }
                // At a stop a place that fails takes nothing more: its segments wait in the spool
                // for the next start rather than hold the stop for the whole grace.
                if shared.draining() {
                    break;
                }
                shared.wait(Duration::from_secs(1 << failures.min(4)).min(RETRY_AT_MOST));
            }
        }
    }
}

/// One step; the bytes sent when it sent something, None when there was nothing to do.
fn step(shared: &Shared, target: &Target, check_holds_first: bool) -> Result<Option<u64>, Error> {
    match decide(shared, target, check_holds_first) {
        Action::Idle => Ok(None),
        Action::CheckHolds(generation) => check_holds(shared, target, &generation).map(Some),
        Action::Segment { generation, seq } => send_segment(shared, target, &generation, seq).map(Some),
        Action::Part { generation, part, file_bytes } => {
            send_part(shared, target, &generation, part, file_bytes).map(Some)
        }
        Action::Finish { manifest, own } => finish(shared, target, &manifest, own).map(Some),
        Action::Prune(old) => prune(shared, target, &old).map(Some),
    }
}

/// After a failure: a place whose server lost the held generation (its manifest is gone) gets
/// a new one.
fn check_holds(shared: &Shared, target: &Target, generation: &str) -> Result<u64, Error> {
    if !target.exists(&format::manifest_name(generation))? {
        tracing::warn!(
            place = target.name(),
            generation,
            "the place no longer holds the copy: it gets a new one"
        );
        let mut state = shared.lock();
        if let Some(place) = state.places.get_mut(target.name()) {
            place.generations.clear();
            place.needs_base = true;
        }
        shared.save(&state);
    }
    Ok(0)
}

fn send_segment(shared: &Shared, target: &Target, generation: &str, seq: u64) -> Result<u64, Error> {
    let file = state::spool_file(&shared.dir, seq);
    let plain = std::fs::read(&file).map_err(|e| Error::Io(file.display().to_string(), e))?;
    let name = format::segment_name(generation, seq);
    let sealed = sealed::seal(&shared.key, &name, &plain)?;
    target.put(&name, &sealed)?;
    let bytes = u64::try_from(sealed.len()).unwrap_or(u64::MAX);
    let mut state = shared.lock();
    if let Some(place) = state.places.get_mut(target.name()) {
        let mut outweighed = false;
        if let Some(g) = place.generations.iter_mut().find(|g| g.name == generation) {
            g.shipped_through = g.shipped_through.max(seq);
            g.segment_bytes += bytes;
            outweighed = g.complete && g.segment_bytes > g.base_bytes.max(NEW_BASE_AFTER_BYTES);
        }
        place.last_sent_ms = Some(now_ms());
        if outweighed && place.building().is_none() && !place.needs_base {
            tracing::info!(
                place = target.name(),
                generation,
                "the segments since the base outweigh it: a new base follows"
            );
            place.needs_base = true;
        }
    }
    sweep_spool(shared, &mut state);
    shared.save(&state);
    Ok(bytes)
}

fn send_part(
    shared: &Shared,
    target: &Target,
    generation: &str,
    part: u64,
    file_bytes: u64,
) -> Result<u64, Error> {
    let plain = read_part(&shared.db, part, file_bytes)?;
    let name = format::part_name(generation, part);
    let sealed = sealed::seal(&shared.key, &name, &plain)?;
    target.put(&name, &sealed)?;
    let bytes = u64::try_from(sealed.len()).unwrap_or(u64::MAX);
    let mut state = shared.lock();
    let (next_seq, last_captured_ms) = (state.next_seq, state.last_captured_ms);
    if let Some(g) = state
        .places
        .get_mut(target.name())
        .and_then(|p| p.generations.iter_mut().find(|g| g.name == generation))
    {
        g.parts_sent = g.parts_sent.max(part + 1);
        g.base_bytes += bytes;
        if g.parts_sent == g.parts {
            // Every page read since the base began was in the log first: the base is whole
            // once the segments read by now are applied.
            g.consistent_after = next_seq.saturating_sub(1).max(g.after_segment);
            g.consistent_ms = last_captured_ms.max(g.base_from_ms);
        }
    }
    shared.save(&state);
    Ok(bytes)
}

/// The base and its segments are all there: its manifest, then `latest` naming it.
fn finish(shared: &Shared, target: &Target, manifest: &Manifest, own: Vec<Listed>) -> Result<u64, Error> {
    let name = format::manifest_name(&manifest.generation);
    let plain =
        serde_json::to_vec(manifest).map_err(|e| Error::Io(name.clone(), std::io::Error::other(e)))?;
    target.put(&name, &sealed::seal(&shared.key, &name, &plain)?)?;
    publish(shared, target, own, &[])?;
    let mut state = shared.lock();
    if let Some(place) = state.places.get_mut(target.name()) {
        if let Some(g) = place.generations.iter_mut().find(|g| g.name == manifest.generation) {
            g.complete = true;
        }
        place.needs_base = false;
        place.last_sent_ms = Some(now_ms());
        place.verified = None;
    }
    sweep_spool(shared, &mut state);
    shared.save(&state);
    tracing::info!(
        place = target.name(),
        generation = manifest.generation,
        bytes = manifest.file_bytes,
        "the copy's place holds a new base"
    );
    Ok(0)
}

/// Generations beyond `KEEP`: out of `latest` first, then their objects.
fn prune(shared: &Shared, target: &Target, old: &[Generation]) -> Result<u64, Error> {
    let kept: Vec<Listed> = {
        let state = shared.lock();
        listed(state.places.get(target.name()).map(|p| p.generations.as_slice()).unwrap_or_default(), old)
    };
    publish(shared, target, kept, old)?;
    for g in old {
        for part in 0..g.parts_sent {
            target.delete(&format::part_name(&g.name, part))?;
        }
        for seq in g.after_segment + 1..=g.shipped_through {
            target.delete(&format::segment_name(&g.name, seq))?;
        }
        target.delete(&format::manifest_name(&g.name))?;
    }
    let mut state = shared.lock();
    if let Some(place) = state.places.get_mut(target.name()) {
        place.generations.retain(|g| !old.iter().any(|o| o.name == g.name));
    }
    shared.save(&state);
    Ok(0)
}

/// Writes `latest`: this box's generations `own`, after those the place lists that this box
/// does not follow (an earlier box's, before a restore: restore points still) but `dropped`.
fn publish(shared: &Shared, target: &Target, own: Vec<Listed>, dropped: &[Generation]) -> Result<(), Error> {
    let listed = match restore::latest(&shared.key, target) {
        Ok(latest) => latest.generations,
        Err(restore::Error::Target(e)) => return Err(Error::Target(e)),
        Err(_) => Vec::new(),
    };
    let mut generations: Vec<Listed> = listed
        .into_iter()
        .filter(|l| {
            !own.iter().any(|o| o.generation == l.generation)
                && !dropped.iter().any(|d| d.name == l.generation)
        })
        .collect();
    generations.extend(own);
    generations.sort_by(|a, b| a.generation.cmp(&b.generation));
    let latest = Latest { generations };
    let plain = serde_json::to_vec(&latest)
        .map_err(|e| Error::Io(format::LATEST.into(), std::io::Error::other(e)))?;
    target.put(format::LATEST, &sealed::seal(&shared.key, format::LATEST, &plain)?)?;
    Ok(())
}

/// The complete generations of `generations` but `without`, as `latest` lists them.
fn listed(generations: &[Generation], without: &[Generation]) -> Vec<Listed> {
    generations
        .iter()
        .filter(|g| g.complete && !without.iter().any(|o| o.name == g.name))
        .map(|g| Listed {
            generation: g.name.clone(),
            after_segment: g.after_segment,
            base_from_ms: g.consistent_ms,
        })
        .collect()
}

/// Part `part` of the database file as it is now (the file may have grown or shrunk since the
/// base began: a segment after the base restores what changed).
fn read_part(db: &std::path::Path, part: u64, file_bytes: u64) -> Result<Vec<u8>, Error> {
    let io = |e| Error::Io(db.display().to_string(), e);
    let start = part * format::PART_BYTES;
    let len = file_bytes.saturating_sub(start).min(format::PART_BYTES);
    let mut file = std::fs::File::open(db).map_err(io)?;
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

fn decide(shared: &Shared, target: &Target, check_holds_first: bool) -> Action {
    let mut state = shared.lock();
    let next_seq = state.next_seq;
    let base_point = state.base_point;
    let base_point_ms = state.base_point_ms;
    let holds_from = |seq: u64| (seq..next_seq).all(|s| state.spool.contains_key(&s));
    let Some(place) = state.places.get(target.name()) else { return Action::Idle };
    if check_holds_first && let Some(g) = place.complete() {
        return Action::CheckHolds(g.name.clone());
    }
    if let Some(g) = place.complete()
        && g.shipped_through + 1 < next_seq
    {
        return Action::Segment { generation: g.name.clone(), seq: g.shipped_through + 1 };
    }
    if let Some(b) = place.building() {
        if b.parts_sent < b.parts {
            return Action::Part { generation: b.name.clone(), part: b.parts_sent, file_bytes: b.file_bytes };
        }
        if b.shipped_through + 1 < next_seq {
            return Action::Segment { generation: b.name.clone(), seq: b.shipped_through + 1 };
        }
        let manifest = Manifest {
            generation: b.name.clone(),
            after_segment: b.after_segment,
            consistent_after: b.consistent_after,
            base_from_ms: b.consistent_ms,
            file_bytes: b.file_bytes,
            parts: b.parts,
            page_size: page_size(&shared.db),
            key_file: crate::ops::secrets::hex_lower(&shared.key_file),
            arka_version: env!("CARGO_PKG_VERSION").to_string(),
        };
        let mut own = listed(&place.generations, &[]);
        own.push(Listed {
            generation: b.name.clone(),
            after_segment: b.after_segment,
            base_from_ms: b.consistent_ms,
        });
        return Action::Finish { manifest: Box::new(manifest), own };
    }
    if place.needs_base || place.complete().is_none() {
        match base_point {
            Some(p) if holds_from(p + 1) => {
                let file_bytes = std::fs::metadata(&shared.db).map(|m| m.len()).unwrap_or(0);
                let name = format::generation_name(chrono::Utc::now(), random());
                let generation = Generation {
                    name: name.clone(),
                    after_segment: p,
                    base_from_ms: base_point_ms,
                    file_bytes,
                    parts: file_bytes.div_ceil(format::PART_BYTES).max(1),
                    parts_sent: 0,
                    complete: false,
                    shipped_through: p,
                    base_bytes: 0,
                    segment_bytes: 0,
                    frozen: false,
                    consistent_after: p,
                    consistent_ms: base_point_ms,
                };
                tracing::info!(
                    place = target.name(),
                    generation = name,
                    file_bytes,
                    "the copy sends a new base"
                );
                if let Some(place) = state.places.get_mut(target.name()) {
                    place.generations.push(generation);
                }
                shared.save(&state);
                return Action::Part { generation: name, part: 0, file_bytes };
            }
            _ => {
                shared.wants_base.store(true, Ordering::SeqCst);
                shared.watch.wake();
                return Action::Idle;
            }
        }
    }
    let complete: Vec<&Generation> = place.generations.iter().filter(|g| g.complete).collect();
    if complete.len() > KEEP {
        return Action::Prune(complete[..complete.len() - KEEP].iter().map(|g| (*g).clone()).collect());
    }
    Action::Idle
}

fn random() -> u32 {
    let mut bytes = [0u8; 4];
    let _ = openssl::rand::rand_bytes(&mut bytes);
    u32::from_le_bytes(bytes)
}

fn page_size(db: &std::path::Path) -> u32 {
    let mut header = [0u8; 18];
    let read = std::fs::File::open(db).and_then(|mut f| f.read_exact(&mut header));
    match read.map(|()| u16::from_be_bytes([header[16], header[17]])) {
        Ok(1) => 65536,
        Ok(size) => u32::from(size),
        Err(_) => 0,
    }
}

/// Removes from the spool what no place waits for; a place away so long that the spool would
/// outgrow `SPOOL_MAX_BYTES` for it is given a new base when it is back.
fn sweep_spool(shared: &Shared, state: &mut State) {
    loop {
        let spooled: u64 = state.spool.values().map(|s| s.bytes).sum();
        let wanting_base = state.places.values().any(|p| p.needs_base || p.complete().is_none());
        let mut keep_from = state.next_seq;
        let mut furthest: Option<(u64, String)> = None;
        for (name, place) in &state.places {
            if let Some(from) = place.needs_from() {
                keep_from = keep_from.min(from);
                if furthest.as_ref().is_none_or(|(f, _)| from < *f) {
                    furthest = Some((from, name.clone()));
                }
            }
        }
        if wanting_base && let Some(p) = state.base_point {
            keep_from = keep_from.min(p + 1);
        }
        if spooled > SPOOL_MAX_BYTES
            && let Some((_, name)) = furthest
            && let Some(place) = state.places.get_mut(&name)
        {
            tracing::warn!(
                place = name,
                spooled,
                "the copy's place is away too long for the spool: it gets a new base when it is back"
            );
            place.needs_base = true;
            for g in &mut place.generations {
                g.frozen = true;
            }
            continue;
        }
        let old: Vec<u64> = state.spool.range(..keep_from).map(|(seq, _)| *seq).collect();
        for seq in old {
            state.spool.remove(&seq);
            let _ = std::fs::remove_file(state::spool_file(&shared.dir, seq));
        }
        return;
    }
}

fn verification_due(shared: &Shared, target: &Target) -> bool {
    let state = shared.lock();
    let Some(place) = state.places.get(target.name()) else { return false };
    place.complete().is_some()
        && place.verified.as_ref().is_none_or(|v| {
            now_ms() - v.at_ms > i64::try_from(shared.verify_every.as_millis()).unwrap_or(i64::MAX)
        })
}

/// Starts a verified restore of every place that holds a copy, one after another, in a thread
/// of its own (the senders go on); false when one is under way.
pub fn verify_all(shared: Arc<Shared>) -> bool {
    if shared.verifying.swap(true, Ordering::SeqCst) {
        return false;
    }
    let started = std::thread::Builder::new().name("arka-copy-verify".into()).spawn({
        let shared = shared.clone();
        move || {
            super::priority::below_sales();
            for (target, _) in &shared.places {
                if shared.halted() {
                    break;
                }
                let holds = shared.lock().places.get(target.name()).is_some_and(|p| p.complete().is_some());
                if holds {
                    verify(&shared, target);
                }
            }
            shared.verifying.store(false, Ordering::SeqCst);
        }
    });
    if started.is_err() {
        shared.verifying.store(false, Ordering::SeqCst);
    }
    started.is_ok()
}

/// Restores the copy at `target` into a scratch folder and checks it as `arka restore
/// --from-copy` would; records the outcome.
fn verify(shared: &Shared, target: &Target) {
    let scratch = shared.dir.join("verify");
    let _ = std::fs::remove_dir_all(&scratch);
    let outcome = (|| -> Result<(i64, i64), String> {
        std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
        let db = scratch.join("arka.db");
        let rebuilt = restore::rebuild(&shared.key, target, None, &db).map_err(|e| e.to_string())?;
        let invoices = restore::check(&db, &rebuilt.key_file, &scratch).map_err(|e| e.to_string())?;
        Ok((rebuilt.through_ms, invoices))
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    let at_ms = now_ms();
    let verified = match outcome {
        Ok((through_ms, invoices)) => {
            tracing::info!(place = target.name(), invoices, "a restore of the copy was made and checked");
            VerifiedRestore { at_ms, through_ms, invoices, failure: None }
        }
        Err(why) => {
            tracing::error!(place = target.name(), %why, "a restore of the copy failed its check");
            VerifiedRestore { at_ms, through_ms: 0, invoices: 0, failure: Some(why) }
        }
    };
    let mut state = shared.lock();
    if let Some(place) = state.places.get_mut(target.name()) {
        place.verified = Some(verified);
    }
    shared.save(&state);
}
