//! A demo re-recorded through [`DemoRecorder`] from what it holds, and
//! compared with the file chunk by chunk: is this demo what DDNet's
//! recorder would have written?
//!
//! The recorder is given the header fields, the map, the full snapshot at
//! each tick marker (rebuilt by the snapshot replay), every message's bytes
//! and the timeline markers, with the Huffman flavour the file's writer
//! used. What must come out identical: the header and everything before
//! the chunks, every tick marker (tick, keyframe flag, relative or
//! absolute form: the keyframe and empty-delta rules), every keyframe and
//! message chunk, byte for byte. A delta chunk is identical too, unless
//! the server's snapshot had its items in another order than the rebuilt
//! one (the demo player puts new items last; DDNet's recorder diffs the
//! server's own snapshot, whose order the file does not keep): then the
//! two deltas must hold the same removed keys and the same (key, data)
//! updates, as sets. Older writers left the unused timeline marker slots
//! uninitialised (DDNet zeroes them since); that is noted, not a
//! difference.

use super::chunk::compress_ints;
use super::header::HEADER_FIELDS;
use super::{
    Chunk, ChunkKind, Demo, DemoRecorder, DemoStart, HEADER_LEN, Payload, SnapshotReplay,
    payload_bytes,
};
use crate::codec::{DecodeError, encode_to_vec, first_difference};
use crate::huffman::Flavor;
use crate::snapshot::replay::FaultKind;
use crate::snapshot::{Delta, ItemSizes, Snapshot};
use serde::Serialize;
use std::collections::BTreeSet;

/// Most differences a report lists (all are counted).
pub const MAX_DIFFERENCES: usize = 100;

/// Something in the file that DDNet's recorder would have written
/// otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// Byte offset in the file.
    pub offset: u64,
    /// What differs, as a line for people (the report's text).
    pub what: String,
}

/// What re-recording a demo found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RerecordReport {
    /// The Huffman writer detected (and used).
    pub flavor: &'static str,
    /// Chunks of the file compared with the re-recorded ones.
    pub chunks: usize,
    /// Identical tick markers.
    pub ticks: usize,
    /// Identical keyframe (snapshot) chunks.
    pub keyframes: usize,
    /// Identical message chunks.
    pub messages: usize,
    /// Identical delta chunks.
    pub deltas_exact: usize,
    /// Deltas with the same updates in another order.
    pub deltas_reordered: usize,
    /// The offset of the first reordered delta.
    pub first_reordered: Option<u64>,
    /// The unused timeline marker slots are not zero in the file.
    pub stale_timeline_slots: bool,
    /// Bytes of a chunk cut by the end of the file (a recorder that was
    /// killed): not re-recorded, the rest is compared with what the
    /// recorder had written.
    pub truncated: Option<usize>,
    /// The recorder was never stopped ([`Demo::unfinished`]): the file is
    /// compared with what the recorder had written before `Stop`, which
    /// fills in the header's length and timeline markers.
    pub unfinished: bool,
    /// Everything else that differs (the first [`MAX_DIFFERENCES`] found,
    /// by offset).
    pub differences: Vec<Difference>,
    /// How many differences there are in all.
    pub difference_count: usize,
    /// The re-recorded file is the file, byte for byte (up to the cut
    /// or damaged chunk, if any).
    pub identical: bool,
}

impl RerecordReport {
    /// True if nothing differs but reordered deltas and stale timeline
    /// slots (or nothing at all).
    pub fn equivalent(&self) -> bool {
        self.difference_count == 0
    }

    fn differ(&mut self, offset: u64, what: impl Into<String>) {
        self.difference_count += 1;
        if self.differences.len() < MAX_DIFFERENCES {
            self.differences.push(Difference {
                offset,
                what: what.into(),
            });
        }
    }
}

/// A re-recorded demo and how it compares.
#[derive(Clone, Debug)]
pub struct Rerecorded {
    /// The file as DDNet's recorder writes it (for a cut file, what it had
    /// written when it was killed).
    pub bytes: Vec<u8>,
    /// How it compares with the file.
    pub report: RerecordReport,
}

impl Demo<'_> {
    /// The Huffman writer that made the chunks: from the first payload
    /// that tells (one whose bits end on a byte boundary, where only one
    /// writer gives its bytes: the two writers' outputs differ). `None`
    /// if no payload tells.
    pub fn huffman_flavor(&self) -> Option<Flavor> {
        let mut varints = Vec::new();
        self.chunks.iter().find_map(|c| match c {
            Chunk::Data {
                payload: Payload::Ints { ints, flavor, .. },
                ..
            } => {
                let [ddnet, legacy] = [Flavor::Ddnet, Flavor::Legacy].map(|f| {
                    let mut out = Vec::new();
                    compress_ints(ints, f, &mut varints, &mut out);
                    out
                });
                (ddnet != legacy).then_some(*flavor)
            }
            _ => None,
        })
    }

    /// A recorder started as this demo's was: its header fields, map and
    /// SHA-256 item, its item size table and Huffman writer (DDNet's when
    /// no payload tells).
    pub fn recorder(&self) -> DemoRecorder {
        let h = &self.header;
        let (net_version, map_name, kind, timestamp) = (
            h.net_version.text(),
            h.map_name.text(),
            h.kind.text(),
            h.timestamp.text(),
        );
        DemoRecorder::new(
            &DemoStart {
                version: h.version,
                net_version: &net_version,
                map_name: &map_name,
                map_crc: h.map_crc,
                map_sha256: self.map_sha256.map(|s| s.0),
                map: self.map,
                kind: &kind,
                timestamp: &timestamp,
                flavor: self.huffman_flavor().unwrap_or(Flavor::Ddnet),
            },
            self.item_sizes(),
        )
    }
}

/// The update set of a delta chunk: removed keys, and (key, data) updates.
type Updates = (BTreeSet<i32>, BTreeSet<(i32, Vec<i32>)>);

fn updates(payload: &Payload<'_>, sizes: &ItemSizes) -> Option<Updates> {
    let delta = Delta::from_ints(payload.ints()?, sizes).ok()?;
    let set = delta
        .updates
        .iter()
        .map(|u| (u.type_id << 16 | u.id, u.data.clone()))
        .collect();
    Some((delta.removed.iter().copied().collect(), set))
}

fn chunk_name(c: &Chunk<'_>) -> &'static str {
    match c {
        Chunk::Tick { keyframe: true, .. } => "a keyframe tick marker",
        Chunk::Tick { .. } => "a tick marker",
        Chunk::Data { kind, .. } => match kind {
            ChunkKind::Snapshot => "a keyframe (snapshot) chunk",
            ChunkKind::Message => "a message chunk",
            ChunkKind::Delta => "a delta chunk",
            ChunkKind::Unknown => "a type-0 chunk",
        },
    }
}

fn tick_text(c: &Chunk<'_>) -> String {
    match (c, c.tick_marker_text()) {
        (Chunk::Tick { byte, .. }, Some(marker)) => format!("{marker}, byte 0x{byte:02x}"),
        _ => chunk_name(c).to_string(),
    }
}

/// Re-records the demo in `bytes` through DDNet's recorder and compares.
/// Fails only if the file does not decode.
pub fn rerecord(bytes: &[u8]) -> Result<Rerecorded, DecodeError> {
    let (demo, offsets) = Demo::decode(bytes)?;
    Ok(rerecord_decoded(&demo, &offsets, bytes).0)
}

/// [`rerecord`] of a demo already decoded from `bytes` (with the chunk
/// offsets [`Demo::decode`] gave); also returns the snapshot replay the
/// re-recording is fed from, so that a caller needs no second one.
pub fn rerecord_decoded(
    demo: &Demo<'_>,
    offsets: &[u64],
    bytes: &[u8],
) -> (Rerecorded, SnapshotReplay) {
    let sizes = demo.item_sizes();
    let mut report = RerecordReport::default();

    let mut recorder = demo.recorder();
    report.flavor = match demo.huffman_flavor().unwrap_or(Flavor::Ddnet) {
        Flavor::Ddnet => "ddnet",
        Flavor::Legacy => "legacy",
    };
    // Fed in file order as the replay goes (no snapshot is kept but the
    // last): at a tick marker, the snapshot of the chunk after it, or the
    // last one again (an empty delta writes only the marker).
    let mut last = Snapshot::new();
    let mut fed = 0;
    let mut feed = |upto: usize,
                    next: Option<&Snapshot>,
                    recorder: &mut DemoRecorder,
                    report: &mut RerecordReport| {
        let pending = demo.chunks.iter().zip(offsets).enumerate();
        for (i, (chunk, &offset)) in pending.take(upto).skip(fed) {
            match chunk {
                Chunk::Tick { tick, .. } => match next.filter(|_| i + 1 == upto) {
                    Some(s) => recorder.record_snapshot(*tick, s),
                    None => recorder.record_snapshot(*tick, &last),
                },
                Chunk::Data {
                    kind: ChunkKind::Message,
                    payload,
                    ..
                } => {
                    // An undecodable payload is a replay fault, reported.
                    if let Some(ints) = payload.ints()
                        && !recorder.record_message(&payload_bytes(ints))
                    {
                        report.differ(offset, "a message DDNet's recorder drops (over 64 KiB)");
                    }
                }
                Chunk::Data { .. } => {}
            }
        }
        if let Some(s) = next {
            last.clone_from(s);
        }
        fed = upto.max(fed);
    };
    let replay = demo.replay_snapshots(offsets, |i, _, s| {
        feed(i, Some(s), &mut recorder, &mut report);
        feed(i + 1, None, &mut recorder, &mut report);
    });
    feed(demo.chunks.len(), None, &mut recorder, &mut report);
    for f in &replay.faults {
        if !matches!(f.kind, FaultKind::InvalidItem { .. }) {
            report.differ(f.offset, format!("the snapshot replay fails: {f}"));
        }
    }
    let info = demo.info();
    for (k, &m) in info.timeline_markers.iter().enumerate() {
        if !recorder.add_marker(m) {
            report.differ(
                (HEADER_LEN + 4 + 4 * k) as u64,
                format!("timeline marker {k} (tick {m}): DDNet's recorder refuses it"),
            );
        }
    }
    // A recorder that never stopped (killed, or shut down without Stop)
    // left its header as Start wrote it: its file is what it had written,
    // up to a chunk it was cut in. A damaged file is compared up to the
    // damaged chunk.
    report.truncated = demo.truncated.map(<[u8]>::len);
    report.unfinished = demo.unfinished().is_some();
    let tail = report.truncated.unwrap_or(0) + demo.damage.as_ref().map_or(0, |d| d.rest.len());
    let their_file = &bytes[..bytes.len() - tail];
    let ours_file = match super::as_started(&demo.header, demo.timeline.as_ref()) {
        true => recorder.written().to_vec(),
        false => recorder.finish(),
    };
    report.identical = ours_file == their_file;

    // The unused timeline slots, copied over for the comparison.
    let mut patched = ours_file.clone();
    if let Some(t) = demo.timeline {
        let t = encode_to_vec(&t, ());
        let timeline = HEADER_LEN..HEADER_LEN + t.len();
        let used = 4 + 4 * info.timeline_markers.len();
        if let Some(at) = first_difference(&patched[timeline.start..][..used], &t[..used]) {
            report.differ(
                (HEADER_LEN + at) as u64,
                "the timeline markers (count and ticks)",
            );
        }
        if patched[timeline.clone()] != t {
            report.stale_timeline_slots = true;
            patched[timeline].copy_from_slice(&t);
        }
    }
    let (again, _) = match Demo::decode(&patched) {
        Ok(d) => d,
        Err(e) => {
            // Not expected: the recorder writes what the reader reads.
            report.differ(
                e.offset,
                format!("the re-recorded file does not decode ({e})"),
            );
            return (done(ours_file, report), replay);
        }
    };
    let (ours_header, their_header) = (
        encode_to_vec(&again.header, ()),
        encode_to_vec(&demo.header, ()),
    );
    for &(name, from, to) in HEADER_FIELDS {
        let (a, b) = (&ours_header[from..to], &their_header[from..to]);
        if a != b {
            report.differ(
                from as u64,
                format!(
                    "header field {name}: {} in the file, {} re-recorded",
                    hex::encode(b),
                    hex::encode(a)
                ),
            );
        }
    }
    let prefix = (HEADER_LEN + demo.timeline.map_or(0, |_| super::TIMELINE_LEN)) as u64;
    if again.map_sha256 != demo.map_sha256 {
        report.differ(prefix, "the SHA-256 item");
    }
    if again.map != demo.map {
        report.differ(prefix, "the map");
    }

    let mut ours_iter = again.chunks.iter();
    for (i, theirs) in demo.chunks.iter().enumerate() {
        let at = offsets[i];
        if let Chunk::Data {
            kind: ChunkKind::Unknown,
            ..
        } = theirs
        {
            report.differ(at, "a type-0 chunk, which DDNet's recorder never writes");
            continue;
        }
        let Some(ours) = ours_iter.next() else {
            report.differ(
                at,
                format!(
                    "{}: the re-recorded file has no more chunks ({} in the file, {} re-recorded)",
                    chunk_name(theirs),
                    demo.chunks.len(),
                    again.chunks.len()
                ),
            );
            break;
        };
        report.chunks += 1;
        match (ours, theirs) {
            (Chunk::Tick { .. }, Chunk::Tick { .. }) if ours == theirs => report.ticks += 1,
            (Chunk::Tick { .. }, Chunk::Tick { .. }) => report.differ(
                at,
                format!(
                    "tick marker: {} in the file, {} re-recorded",
                    tick_text(theirs),
                    tick_text(ours)
                ),
            ),
            (Chunk::Data { kind: a, .. }, Chunk::Data { kind: b, .. }) if a != b => report.differ(
                at,
                format!(
                    "{} where DDNet's recorder writes {}",
                    chunk_name(theirs),
                    chunk_name(ours)
                ),
            ),
            (Chunk::Data { kind, .. }, Chunk::Data { .. }) if ours == theirs => match kind {
                ChunkKind::Snapshot => report.keyframes += 1,
                ChunkKind::Message => report.messages += 1,
                ChunkKind::Delta => report.deltas_exact += 1,
                ChunkKind::Unknown => {}
            },
            (
                Chunk::Data {
                    kind: ChunkKind::Delta,
                    payload: pa,
                    ..
                },
                Chunk::Data { payload: pb, .. },
            ) => match (updates(pa, &sizes), updates(pb, &sizes)) {
                (Some(a), Some(b)) if a == b => {
                    report.deltas_reordered += 1;
                    report.first_reordered.get_or_insert(at);
                }
                _ => report.differ(at, "a delta chunk with other updates"),
            },
            (Chunk::Data { .. }, Chunk::Data { .. }) => {
                report.differ(at, format!("{}'s bytes", chunk_name(theirs)))
            }
            _ => {
                report.differ(
                    at,
                    format!(
                        "{} where DDNet's recorder writes {}; the chunks are out of step, \
                         not compared further",
                        chunk_name(theirs),
                        chunk_name(ours)
                    ),
                );
                return (done(ours_file, report), replay);
            }
        }
    }
    if ours_iter.len() > 0 {
        report.differ(
            their_file.len() as u64,
            format!(
                "the file ends where DDNet's recorder writes {} more chunk(s)",
                ours_iter.len()
            ),
        );
    }
    // A safety net: with every part compared equal, the bytes must be.
    if report.equivalent()
        && report.deltas_reordered == 0
        && let Some(at) = first_difference(&patched, their_file)
    {
        report.differ(at as u64, "the bytes");
    }
    (done(ours_file, report), replay)
}

/// The result, its differences listed by offset.
fn done(bytes: Vec<u8>, mut report: RerecordReport) -> Rerecorded {
    report.differences.sort_by_key(|d| d.offset);
    Rerecorded { bytes, report }
}
