//! Differential test of the demo reader and the snapshot replay against
//! libtw2 (heinrich5991; crates.io `pre-rfc3243-libtw2-*` 0.2,
//! dev-dependencies only). libtw2's own code does all the work on its side:
//! nothing of it is copied here.
//!
//! For every demo under `corpus/demo/` (recursively, but not under a
//! `malformed/` folder: those are for the error paths, not for agreement),
//! and under the shared upstream corpus when it is present (see
//! `common::upstream_corpus`):
//!
//! * Chunk layer: libtw2's `demo::Reader::read_chunk` and teeoracle's
//!   `Demo::decode` must give the same chunk sequence: tick markers (tick and
//!   keyframe flag) and data chunks (kind, and data). libtw2 hands out
//!   snapshot and delta chunks as the Huffman-decompressed varint bytes,
//!   which are unpacked here with `libtw2_packer::Unpacker`, and messages as
//!   the varints turned back into little-endian int32s (so a message's zero
//!   padding to 4 bytes is part of its last int, as on teeoracle's side).
//!   Every chunk is compared as little-endian int32 bytes against
//!   `payload_bytes(payload.ints())` (the payload `Demo::decode` decoded).
//!
//! * Snapshot layer: libtw2 keeps its own full snapshot per tick. A keyframe
//!   is read with `RawSnap::read`; a delta with `Delta::read`, sized by
//!   libtw2's item-size table for the demo's protocol (`snap_obj::obj_size`
//!   of `libtw2-gamenet-ddnet` for 0.6 demos, of
//!   `libtw2-gamenet-teeworlds-0-7` when the net version starts with "0.7",
//!   as DDNet's demo player chooses), and applied to the previous snapshot
//!   with `RawSnap::read_with_delta`. A snapshot that fails is skipped and
//!   the next delta applies to the last good one, as in DDNet's player and
//!   `Demo::replay_snapshots`. At every snapshot or delta chunk both sides
//!   must keep or drop the snapshot alike, and a kept one must hold the same
//!   set of (key, data) items and the same CRC. `RawSnap` (not `Snap`) is
//!   used because it keeps raw keys, like teeoracle; `Snap` would turn
//!   extended types into UUIDs.
//!
//!   Items are compared sorted by key: teeoracle keeps DDNet's item order
//!   (kept base items in base order, then new ones in delta order), which
//!   later byte-exact deltas depend on, while libtw2 holds items in a
//!   `BTreeMap` by key. The order is not part of a snapshot's meaning and
//!   the CRC (the wrapping sum of the item data) does not depend on it.
//!
//!   A latent difference in the 0.7 size tables: libtw2's also fixes the
//!   size of types 23 (PlayerInfoRace, 1 int) and 24 (GameDataRace, 3 ints),
//!   but Teeworlds 0.7 and DDNet's sixup register fixed sizes only for the
//!   first 23 types (`OLD_NUM_NETOBJTYPES = 23`, "so new items don't break
//!   the snapshot delta"), so their deltas carry these two types' size, and
//!   teeoracle's 0.7 table does the same. A delta that updates such an item
//!   would make libtw2 misread it. In the upstream corpus one GameDataRace
//!   item occurs (`075_ddnet_tinycave_other_player_join`), but it never
//!   changes after its keyframe, so no delta carries it and both agree. If
//!   a demo ever has such a delta, this test fails and it belongs in `KNOWN`.
//!
//! Known disagreements are listed in `KNOWN`; any other one fails the test,
//! and so does a listed one that no longer happens. The test counts what it
//! compared and checks the counts, so it cannot pass on an empty corpus.

use crate::common::{self, Test};

use libtw2_demo::RawChunk;
use libtw2_packer::Unpacker;
use libtw2_snapshot::snap::{Delta, RawSnap};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use teeoracle::demo::{Chunk, ChunkKind, Demo, payload_bytes};
use teeoracle::snapshot::replay::FaultKind;

pub const TESTS: &[Test] = tests![
    demos_agree_with_libtw2 also SharedCorpus,
];

/// (demo, what differs, why). The demo is named `corpus/<path under
/// corpus/demo>` or `upstream/<path under the upstream corpus>`.
///
/// | demo | what | reason |
/// |------|------|--------|
/// | `corpus/ddnet-20.1/F_crash_truncated.demo` | truncated tail | the recorder crashed inside the last chunk: libtw2's `read_chunk` ends with an I/O error ("failed to fill whole buffer"), teeoracle keeps the 118 cut bytes in `Demo::truncated`; every chunk before the cut agrees, and so does every snapshot |
/// | `corpus/edge/truncated_mid_chunk.demo` | truncated tail | the same, for a hand-made cut |
/// | `corpus/edge/delta_removes_absent_key.demo` | snapshot fault | libtw2 warns `UnknownDelete` for a removed key the base does not have; DDNet's `UnpackDelta` ignores it, and so does teeoracle (the snapshots agree) |
/// | `corpus/edge/tick_backwards.demo` | chunk count, stream end, snapshot count | libtw2's reader stops at a tick marker that does not increase ("Tick number did not increase"); DDNet's player does not check the order, nor does teeoracle |
/// | `corpus/edge/unknown_chunk_type.demo` | chunk, stream end, snapshot fault, snapshot tick | libtw2 returns a type-0 chunk without reading its payload, then reads the payload as chunks; DDNet's player reads the payload and ignores the chunk, as teeoracle does |
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "corpus/ddnet-20.1/F_crash_truncated.demo",
        "truncated tail",
        "crashed recorder: libtw2 stops with an I/O error, teeoracle keeps the cut bytes",
    ),
    (
        "corpus/edge/truncated_mid_chunk.demo",
        "truncated tail",
        "cut chunk: libtw2 stops with an I/O error, teeoracle keeps the cut bytes",
    ),
    (
        "corpus/edge/delta_removes_absent_key.demo",
        "snapshot fault",
        "libtw2 warns on removing an absent key; DDNet ignores it",
    ),
    (
        "corpus/edge/tick_backwards.demo",
        "chunk count",
        "libtw2 stops at a tick that does not increase",
    ),
    (
        "corpus/edge/tick_backwards.demo",
        "stream end",
        "libtw2 stops at a tick that does not increase",
    ),
    (
        "corpus/edge/tick_backwards.demo",
        "snapshot count",
        "libtw2 stops at a tick that does not increase",
    ),
    (
        "corpus/edge/unknown_chunk_type.demo",
        "chunk",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
    (
        "corpus/edge/unknown_chunk_type.demo",
        "stream end",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
    (
        "corpus/edge/unknown_chunk_type.demo",
        "snapshot fault",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
    (
        "corpus/edge/unknown_chunk_type.demo",
        "snapshot tick",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
];

/// Demos in the repository's corpus (asserted, so a lost file is noticed):
/// our 6 of DDNet 20.1 and 13 of DDNet 16.4 (`ddnet-16.4/phys_*`), DDNet's
/// 2 bench demos, the 5 hand-made ones in `edge/` and the 5 `demo build`
/// wrote in `synthetic/` (2 of them unfinished).
const CORPUS_DEMOS: usize = 31;

fn corpus_root() -> PathBuf {
    common::root().join("corpus/demo")
}

/// Every `.demo` below `root`, sorted, skipping `malformed/` folders.
fn demos_under(root: &Path) -> Vec<PathBuf> {
    common::files_under(root)
        .into_iter()
        .filter(|p| common::has_ext(p, "demo") && !p.parent().unwrap().ends_with("malformed"))
        .collect()
}

/// Varint bytes to ints with libtw2's unpacker, as `RawSnap::read` does:
/// ints until the data ends, a cut last int dropped.
fn unpack(data: &[u8]) -> Vec<i32> {
    let mut unpacker = Unpacker::new(data);
    let mut warnings: Vec<libtw2_packer::Warning> = Vec::new();
    let mut ints = Vec::new();
    while !unpacker.is_empty() {
        match unpacker.read_int(&mut warnings) {
            Ok(i) => ints.push(i),
            Err(_) => break,
        }
    }
    ints
}

/// One chunk, as either side reports it.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Tick { tick: i32, keyframe: bool },
    Data { kind: &'static str, bytes: Vec<u8> },
    Unknown,
}

fn kind_name(kind: ChunkKind) -> &'static str {
    match kind {
        ChunkKind::Snapshot => "snapshot",
        ChunkKind::Message => "message",
        ChunkKind::Delta => "delta",
        ChunkKind::Unknown => "unknown",
    }
}

/// What became of one snapshot or delta chunk: the full snapshot (its
/// items sorted by key, and its CRC), or the snapshot was dropped.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Kept {
        items: Vec<(i32, Vec<i32>)>,
        crc: i32,
    },
    Dropped,
}

/// Tick of the chunk, and its outcome.
type Snapshot = (i32, Outcome);

/// libtw2's view of one demo.
struct Lt2 {
    chunks: Vec<Seen>,
    /// The error that ended the chunk stream, if any.
    end: Option<String>,
    snapshots: Vec<Snapshot>,
    /// Why libtw2 dropped snapshots (for the failure message).
    errors: Vec<String>,
}

fn lt2_outcome(snap: &RawSnap) -> Outcome {
    // `items()` walks libtw2's BTreeMap: already sorted by key.
    Outcome::Kept {
        items: snap.items().map(|i| (i.key(), i.data.to_vec())).collect(),
        crc: snap.crc(),
    }
}

fn read_libtw2(bytes: &[u8]) -> Result<Lt2, String> {
    let mut warn: Vec<libtw2_demo::Warning> = Vec::new();
    let mut reader = libtw2_demo::Reader::new(std::io::Cursor::new(bytes), &mut warn)
        .map_err(|e| format!("header: {e}"))?;
    let obj_size: fn(u16) -> Option<u32> = if reader.net_version().starts_with(b"0.7") {
        libtw2_gamenet_teeworlds_0_7::snap_obj::obj_size
    } else {
        libtw2_gamenet_ddnet::snap_obj::obj_size
    };
    let mut out = Lt2 {
        chunks: Vec::new(),
        end: None,
        snapshots: Vec::new(),
        errors: Vec::new(),
    };
    // The last good full snapshot, which the next delta applies to.
    let mut current: Option<RawSnap> = None;
    let mut snap_warn: Vec<libtw2_snapshot::format::Warning> = Vec::new();
    let mut buf = Vec::new();
    let mut tick = -1;
    loop {
        let chunk = match reader.read_chunk(&mut warn) {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) => {
                out.end = Some(e.to_string());
                break;
            }
        };
        let data_seen = |kind, data: &[u8]| Seen::Data {
            kind,
            bytes: payload_bytes(&unpack(data)),
        };
        let (seen, snap) = match chunk {
            RawChunk::Tick { tick: t, keyframe } => {
                tick = t;
                (Seen::Tick { tick: t, keyframe }, None)
            }
            RawChunk::Message(b) => (
                Seen::Data {
                    kind: "message",
                    bytes: b.to_vec(),
                },
                None,
            ),
            RawChunk::Unknown => (Seen::Unknown, None),
            RawChunk::Snapshot(b) => {
                let mut snap = RawSnap::empty();
                let r = snap
                    .read(&mut snap_warn, &mut buf, b)
                    .map(|()| snap)
                    .map_err(|e| format!("keyframe: {e:?}"));
                (data_seen("snapshot", b), Some(r))
            }
            RawChunk::SnapshotDelta(b) => {
                let r = match &current {
                    None => Err("a delta before any keyframe".to_string()),
                    Some(base) => {
                        let mut delta = Delta::new();
                        let mut snap = RawSnap::empty();
                        delta
                            .read(&mut snap_warn, obj_size, &mut Unpacker::new(b))
                            .map_err(|e| format!("delta read: {e:?}"))
                            .and_then(|()| {
                                snap.read_with_delta(&mut snap_warn, base, &delta)
                                    .map_err(|e| format!("delta apply: {e:?}"))
                            })
                            .map(|()| snap)
                    }
                };
                (data_seen("delta", b), Some(r))
            }
        };
        out.chunks.push(seen);
        match snap {
            Some(Ok(s)) => {
                out.snapshots.push((tick, lt2_outcome(&s)));
                current = Some(s);
            }
            Some(Err(e)) => {
                out.snapshots.push((tick, Outcome::Dropped));
                out.errors.push(format!("tick {tick}: {e}"));
            }
            None => {}
        }
    }
    if !snap_warn.is_empty() {
        out.errors.push(format!("warnings: {snap_warn:?}"));
    }
    Ok(out)
}

/// What the test compared (only where both sides agree to compare).
#[derive(Default, Debug)]
struct Counts {
    demos: usize,
    /// Chunks compared, of every kind.
    chunks: usize,
    ticks: usize,
    messages: usize,
    keyframes: usize,
    deltas: usize,
    /// Full snapshots compared item by item (kept by both sides).
    snapshots: usize,
    /// Snapshot or delta chunks both sides dropped.
    dropped: usize,
    /// Items in the compared snapshots.
    items: usize,
    /// Demos with a (known) disagreement; their counts are left out, as
    /// comparing stops at the first disagreeing chunk or snapshot.
    disagreeing: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.demos += o.demos;
        self.chunks += o.chunks;
        self.ticks += o.ticks;
        self.messages += o.messages;
        self.keyframes += o.keyframes;
        self.deltas += o.deltas;
        self.snapshots += o.snapshots;
        self.dropped += o.dropped;
        self.items += o.items;
        self.disagreeing += o.disagreeing;
    }
}

/// Compares one demo; returns the disagreements as (what, detail).
fn compare(bytes: &[u8], counts: &mut Counts) -> Vec<(String, String)> {
    let mut diffs = Vec::new();
    let (demo, offsets) = match Demo::decode(bytes) {
        Ok(d) => d,
        Err(e) => return vec![("teeoracle decode".into(), e.to_string())],
    };
    let lt2 = match read_libtw2(bytes) {
        Ok(r) => r,
        Err(e) => return vec![("libtw2 header".into(), e)],
    };
    counts.demos += 1;

    // Chunk layer.
    let mut ours = Vec::new();
    for (chunk, &offset) in demo.chunks.iter().zip(&offsets) {
        ours.push(match chunk {
            Chunk::Tick { tick, keyframe, .. } => Seen::Tick {
                tick: *tick,
                keyframe: *keyframe,
            },
            Chunk::Data {
                kind: ChunkKind::Unknown,
                ..
            } => Seen::Unknown,
            Chunk::Data { kind, payload, .. } => match (payload.ints(), payload.error()) {
                (Some(ints), _) => Seen::Data {
                    kind: kind_name(*kind),
                    bytes: payload_bytes(ints),
                },
                (None, e) => {
                    let e = e.map(ToString::to_string).unwrap_or_default();
                    diffs.push(("teeoracle payload".into(), format!("@{offset}: {e}")));
                    Seen::Unknown
                }
            },
        });
    }
    let agreeing = ours
        .iter()
        .zip(&lt2.chunks)
        .take_while(|(a, b)| a == b)
        .count();
    for seen in &ours[..agreeing] {
        counts.chunks += 1;
        match seen {
            Seen::Tick { .. } => counts.ticks += 1,
            Seen::Data {
                kind: "message", ..
            } => counts.messages += 1,
            Seen::Data {
                kind: "snapshot", ..
            } => counts.keyframes += 1,
            Seen::Data { kind: "delta", .. } => counts.deltas += 1,
            _ => {}
        }
    }
    if agreeing < ours.len().min(lt2.chunks.len()) {
        diffs.push((
            "chunk".into(),
            format!(
                "chunk {agreeing} @{}: teeoracle {:?} libtw2 {:?}",
                offsets[agreeing], ours[agreeing], lt2.chunks[agreeing]
            ),
        ));
    }
    if ours.len() != lt2.chunks.len() {
        diffs.push((
            "chunk count".into(),
            format!("teeoracle {} libtw2 {}", ours.len(), lt2.chunks.len()),
        ));
    }
    match (&lt2.end, demo.truncated) {
        (None, None) => {}
        (Some(e), Some(t)) => diffs.push((
            "truncated tail".into(),
            format!(
                "libtw2 stops with {e:?}; teeoracle keeps {} cut bytes",
                t.len()
            ),
        )),
        (e, t) => diffs.push((
            "stream end".into(),
            format!(
                "libtw2 error {e:?}; teeoracle truncated {:?}",
                t.map(<[u8]>::len)
            ),
        )),
    }

    // Snapshot layer: one entry per snapshot or delta chunk on both sides.
    // teeoracle reports kept snapshots through the callback and dropped
    // ones as faults (an invalid item is a fault that keeps the snapshot).
    let mut ours: Vec<(usize, Snapshot)> = Vec::new();
    let replay = demo.replay_snapshots(&offsets, |index, tick, s| {
        let mut items: Vec<_> = s.items().map(|i| (i.key, i.data.to_vec())).collect();
        items.sort();
        let crc = s.crc();
        ours.push((index, (tick, Outcome::Kept { items, crc })));
    });
    let mut faults = Vec::new();
    for fault in &replay.faults {
        faults.push(fault.to_string());
        let index = offsets.partition_point(|&o| o < fault.offset);
        let snapshot_chunk = matches!(
            demo.chunks.get(index),
            Some(Chunk::Data {
                kind: ChunkKind::Snapshot | ChunkKind::Delta,
                ..
            })
        );
        if snapshot_chunk && !matches!(fault.kind, FaultKind::InvalidItem { .. }) {
            ours.push((index, (fault.tick, Outcome::Dropped)));
        }
    }
    // Faults come after the callbacks: restore file order.
    ours.sort_by_key(|s| s.0);
    let ours: Vec<Snapshot> = ours.into_iter().map(|(_, s)| s).collect();
    if !lt2.errors.is_empty() || !faults.is_empty() {
        diffs.push((
            "snapshot fault".into(),
            format!("teeoracle {faults:?} libtw2 {:?}", lt2.errors),
        ));
    }
    if ours.len() != lt2.snapshots.len() {
        diffs.push((
            "snapshot count".into(),
            format!("teeoracle {} libtw2 {}", ours.len(), lt2.snapshots.len()),
        ));
    }
    for (i, (a, b)) in ours.iter().zip(&lt2.snapshots).enumerate() {
        match (a, b) {
            _ if a.0 != b.0 => diffs.push((
                "snapshot tick".into(),
                format!("snapshot {i}: teeoracle tick {} libtw2 tick {}", a.0, b.0),
            )),
            ((_, Outcome::Dropped), (_, Outcome::Dropped)) => {
                counts.dropped += 1;
                continue;
            }
            (
                (_, Outcome::Kept { items: ia, crc: ca }),
                (_, Outcome::Kept { items: ib, crc: cb }),
            ) => {
                if ia != ib {
                    let only_a = ia.iter().filter(|x| !ib.contains(x)).count();
                    let only_b = ib.iter().filter(|x| !ia.contains(x)).count();
                    diffs.push((
                        "snapshot items".into(),
                        format!(
                            "snapshot {i} tick {}: {only_a} items only in teeoracle, \
                             {only_b} only in libtw2",
                            a.0
                        ),
                    ));
                } else if ca != cb {
                    diffs.push((
                        "snapshot crc".into(),
                        format!("snapshot {i} tick {}: {ca} vs {cb}", a.0),
                    ));
                } else {
                    counts.snapshots += 1;
                    counts.items += ia.len();
                    continue;
                }
            }
            _ => diffs.push((
                "snapshot dropped".into(),
                format!(
                    "snapshot {i} tick {}: teeoracle {} libtw2 {}",
                    a.0,
                    matches!(a.1, Outcome::Kept { .. }),
                    matches!(b.1, Outcome::Kept { .. })
                ),
            )),
        }
        // Report the first disagreeing snapshot only: later ones follow.
        break;
    }
    diffs
}

/// Compares every demo below `root`, named `<prefix>/<relative path>`.
/// Returns the counts and the disagreements, each with the `KNOWN` entry it
/// matched, if any.
fn compare_all(prefix: &str, root: &Path) -> (Counts, Vec<(String, Option<usize>)>) {
    let mut counts = Counts::default();
    let mut found = Vec::new();
    for path in demos_under(root) {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy();
        let name = format!("{prefix}/{rel}");
        let bytes = std::fs::read(&path).unwrap();
        let mut one = Counts::default();
        let diffs = compare(&bytes, &mut one);
        if diffs.is_empty() {
            counts.add(&one);
        } else {
            counts.demos += 1;
            counts.disagreeing += 1;
        }
        for (what, detail) in diffs {
            let known = KNOWN.iter().position(|k| k.0 == name && k.1 == what);
            found.push((format!("{name}: {what}: {detail}"), known));
        }
    }
    eprintln!("{prefix}: {counts:?}");
    (counts, found)
}

/// The counts must show real work: every demo read, and whole snapshots of
/// a plausible size compared at every snapshot or delta chunk.
fn check_counts(prefix: &str, c: &Counts, demos: usize) {
    assert!(c.demos == demos && demos > 0, "{prefix}: demos {c:?}");
    let clean = c.demos - c.disagreeing;
    assert!(
        clean > 0 && c.ticks >= clean && c.messages > 0,
        "{prefix}: {c:?}"
    );
    assert!(c.keyframes >= clean, "{prefix}: a keyframe per demo: {c:?}");
    assert_eq!(
        c.snapshots + c.dropped,
        c.keyframes + c.deltas,
        "{prefix}: every snapshot or delta chunk compared"
    );
    // libtw2's and DDNet's limit is 1024 items; a real game has a few.
    assert!(
        c.items >= c.snapshots && c.items <= 1024 * c.snapshots,
        "{prefix}: {c:?}"
    );
}

fn demos_agree_with_libtw2() {
    let (corpus, mut found) = compare_all("corpus", &corpus_root());
    let upstream = common::upstream_corpus().map(|root| {
        let (counts, f) = compare_all("upstream", &root);
        found.extend(f);
        (counts, demos_under(&root).len())
    });

    let mut unlisted = Vec::new();
    let mut seen_known = BTreeSet::new();
    for (detail, known) in found {
        match known {
            Some(i) => {
                eprintln!("known: {detail} ({})", KNOWN[i].2);
                seen_known.insert(i);
            }
            None => unlisted.push(detail),
        }
    }
    let stale: Vec<_> = (0..KNOWN.len())
        .filter(|i| !seen_known.contains(i))
        .map(|i| KNOWN[i])
        .collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "unlisted disagreements:\n{}\nlisted but not seen: {stale:?}",
        unlisted.join("\n")
    );

    check_counts("corpus", &corpus, CORPUS_DEMOS);
    // The corpus holds long demos (the DDNet bench ones).
    assert!(corpus.deltas > 1000 && corpus.items > 10_000, "{corpus:?}");
    if let Some((counts, demos)) = upstream {
        check_counts("upstream", &counts, demos);
    }
}
