//! Differential test of the demo reader and the snapshot layer against
//! libtw2 (heinrich5991; the crates.io packages `pre-rfc3243-libtw2-demo` and
//! `pre-rfc3243-libtw2-snapshot` 0.2, dev-dependencies only).
//!
//! For every demo under `corpus/demo/` (but `malformed/`):
//!
//! * Chunk layer: libtw2's `demo::Reader::read_chunk` and teeoracle's
//!   `Demo::decode` must give the same chunk sequence: tick markers (tick and
//!   keyframe flag) and data chunks (kind, and data). libtw2 hands out
//!   snapshot and delta chunks as the Huffman-decompressed varint bytes, and
//!   messages as the varints turned back into little-endian int32s (so a
//!   message's zero padding to 4 bytes is part of its last int, as on
//!   teeoracle's side). Here libtw2's varint bytes are unpacked with a copy of
//!   libtw2_packer's `read_int` (the packer crate is not a dev-dependency),
//!   and every chunk is compared as little-endian int32 bytes against
//!   `payload_bytes(decode_payload(..).ints)`.
//!
//! * Snapshot layer: at every snapshot or delta chunk, teeoracle's full
//!   snapshot (`Demo::replay_snapshots`) and libtw2's must hold the same set
//!   of (key, data) items and the same CRC. Keyframes are read with libtw2's
//!   `RawSnap::read`. libtw2's `Delta::read` takes a `libtw2_packer::Unpacker`,
//!   which cannot be built without the packer crate as a dependency, so the
//!   delta is parsed here following `Delta::read_impl` line by line (with
//!   DDNet's 0.6 object sizes) and applied as `RawSnap::read_with_delta`
//!   does: items of the base not deleted are kept, updates go through
//!   libtw2's `format::apply_item_delta`, and the result is built by libtw2's
//!   `RawBuilder` (which sorts by key) and summed by libtw2's `crc()`.
//!
//! Known disagreements are listed in `KNOWN`; any other one fails the test,
//! and so does a listed one that no longer happens.

use libtw2_demo::RawChunk;
use libtw2_snapshot::format::{RawItem, apply_item_delta, key, key_to_id, key_to_raw_type_id};
use libtw2_snapshot::snap::{RawBuilder, RawSnap};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use teeoracle::demo::{Chunk, ChunkKind, Demo, decode_payload, payload_bytes};

/// (demo file relative to `corpus/demo`, what differs, why).
///
/// | demo | what | reason |
/// |------|------|--------|
/// | `ddnet-20.1/F_crash_truncated.demo` | truncated tail | the recorder crashed inside the last chunk: libtw2's `read_chunk` ends with an I/O error ("failed to fill whole buffer"), teeoracle keeps the 118 cut bytes in `Demo::truncated`; every chunk before the cut agrees |
/// | `edge/truncated_mid_chunk.demo` | truncated tail | the same, for the hand-made cut |
/// | `edge/tick_backwards.demo` | chunk count, stream end, snapshot count | libtw2's reader stops at a tick marker that does not increase (`NotIncreasingTick`); DDNet's player and teeoracle do not check the order |
/// | `edge/unknown_chunk_type.demo` | chunk, stream end, snapshot fault, snapshot count | libtw2's reader returns `RawChunk::Unknown` for a type-0 chunk without reading its payload, so it reads the payload bytes as chunks; teeoracle (like DDNet's player) skips the payload |
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "ddnet-20.1/F_crash_truncated.demo",
        "truncated tail",
        "crashed recorder: libtw2 stops with an I/O error, teeoracle keeps the cut bytes",
    ),
    (
        "edge/truncated_mid_chunk.demo",
        "truncated tail",
        "cut chunk: libtw2 stops with an I/O error, teeoracle keeps the cut bytes",
    ),
    (
        "edge/tick_backwards.demo",
        "chunk count",
        "libtw2 stops at a tick that does not increase",
    ),
    (
        "edge/tick_backwards.demo",
        "stream end",
        "libtw2 stops at a tick that does not increase",
    ),
    (
        "edge/tick_backwards.demo",
        "snapshot count",
        "libtw2 stops at a tick that does not increase",
    ),
    (
        "edge/unknown_chunk_type.demo",
        "chunk",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
    (
        "edge/unknown_chunk_type.demo",
        "stream end",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
    (
        "edge/unknown_chunk_type.demo",
        "snapshot fault",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
    (
        "edge/unknown_chunk_type.demo",
        "snapshot count",
        "libtw2 does not skip a type-0 chunk's payload",
    ),
];

fn corpus_demos() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                // Malformed on purpose: tests/malformed_demos.rs checks them.
                if !path.ends_with("malformed") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "demo") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), &mut out);
    out.sort();
    out
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/demo")
}

/// libtw2_packer's `read_int`, without the warnings.
fn read_int(iter: &mut std::slice::Iter<u8>) -> Option<i32> {
    let mut src = *iter.next()?;
    let sign = ((src >> 6) & 1) as i32;
    let mut result = (src & 0b0011_1111) as i32;
    for i in 0..4 {
        if src & 0b1000_0000 == 0 {
            break;
        }
        src = *iter.next()?;
        result |= ((src & 0b0111_1111) as i32) << (6 + 7 * i);
    }
    Some(result ^ -sign)
}

/// Unpacks varint bytes as `RawSnap::read` does: ints until the data ends,
/// a cut last int dropped. Returns the ints and whether one was cut.
fn unpack(data: &[u8]) -> (Vec<i32>, bool) {
    let mut iter = data.iter();
    let mut ints = Vec::new();
    while !iter.as_slice().is_empty() {
        match read_int(&mut iter) {
            Some(i) => ints.push(i),
            None => return (ints, true),
        }
    }
    (ints, false)
}

/// DDNet's 0.6 `GetObjSize`: types 1..=20.
fn obj_size_06(type_id: u16) -> Option<u32> {
    const SIZES: [u32; 20] = [
        10, 6, 5, 4, 3, 8, 4, 15, 22, 5, 17, 3, 2, 2, 2, 2, 3, 3, 3, 3,
    ];
    SIZES.get(usize::from(type_id).wrapping_sub(1)).copied()
}

/// A delta as libtw2's `Delta` holds it.
struct Lt2Delta {
    deleted: BTreeSet<i32>,
    updated: BTreeMap<i32, Vec<i32>>,
}

/// `Delta::read_impl`, over ints.
fn read_delta(ints: &[i32]) -> Result<Lt2Delta, String> {
    let mut p = ints.iter().copied();
    let mut next = |what: &str| p.next().ok_or_else(|| format!("unexpected end ({what})"));
    let num_deleted = next("header")?;
    let _num_updated = next("header")?;
    let _padding = next("header")?;
    if num_deleted < 0 {
        return Err("negative deletions".into());
    }
    let mut deleted = BTreeSet::new();
    for _ in 0..num_deleted {
        deleted.insert(next("deleted")?);
    }
    let mut updated = BTreeMap::new();
    let mut rest = p.collect::<Vec<i32>>().into_iter();
    while rest.len() != 0 {
        let mut next = |what: &str| {
            rest.next()
                .ok_or_else(|| format!("unexpected end ({what})"))
        };
        let raw_type_id = u16::try_from(next("type")?).map_err(|_| "type id range")?;
        let id = u16::try_from(next("id")?).map_err(|_| "id range")?;
        let size = match obj_size_06(raw_type_id) {
            Some(s) => s,
            None => u32::try_from(next("size")?).map_err(|_| "negative size")?,
        };
        let mut data = Vec::with_capacity(size as usize);
        for _ in 0..size {
            data.push(next("item data")?);
        }
        updated.insert(key(raw_type_id, id), data);
    }
    Ok(Lt2Delta { deleted, updated })
}

/// `RawSnap::read_with_delta`.
fn apply_delta(from: &RawSnap, delta: &Lt2Delta) -> Result<RawSnap, String> {
    let mut items: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for item in from.items() {
        if !delta.deleted.contains(&item.key()) {
            items.insert(item.key(), item.data.to_vec());
        }
    }
    for (&k, diff) in &delta.updated {
        let in_ = from.item(key_to_raw_type_id(k), key_to_id(k));
        let mut out = vec![0; diff.len()];
        apply_item_delta(in_, diff, &mut out).map_err(|_| "delta differing sizes")?;
        items.insert(k, out);
    }
    let mut builder = RawBuilder::new();
    for (k, data) in &items {
        builder
            .add_item(key_to_raw_type_id(*k), key_to_id(*k), data)
            .map_err(|e| format!("builder: {e:?}"))?;
    }
    Ok(builder.finish())
}

fn lt2_items(snap: &RawSnap) -> Vec<(i32, Vec<i32>)> {
    let mut v: Vec<_> = snap
        .items()
        .map(|i: RawItem| (i.key(), i.data.to_vec()))
        .collect();
    v.sort();
    v
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

/// One full snapshot: tick, sorted items, CRC.
type Full = (i32, Vec<(i32, Vec<i32>)>, i32);

struct Lt2Result {
    chunks: Vec<Seen>,
    /// The error that ended the chunk stream, if any.
    end: Option<String>,
    snaps: Vec<Full>,
    snap_error: Option<String>,
}

fn read_libtw2(bytes: &[u8], stats: &mut Stats) -> Result<Lt2Result, String> {
    let mut warn: Vec<libtw2_demo::Warning> = Vec::new();
    let mut reader = libtw2_demo::Reader::new(std::io::Cursor::new(bytes), &mut warn)
        .map_err(|e| format!("header: {e}"))?;
    let mut out = Lt2Result {
        chunks: Vec::new(),
        end: None,
        snaps: Vec::new(),
        snap_error: None,
    };
    let mut current: Option<RawSnap> = None;
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
                let (ints, _) = unpack(b);
                let mut snap = RawSnap::empty();
                let mut w: Vec<libtw2_snapshot::format::Warning> = Vec::new();
                let mut buf = Vec::new();
                let r = snap
                    .read(&mut w, &mut buf, b)
                    .map(|()| snap)
                    .map_err(|e| format!("keyframe: {e:?}"));
                (
                    Seen::Data {
                        kind: "snapshot",
                        bytes: payload_bytes(&ints),
                    },
                    Some(r),
                )
            }
            RawChunk::SnapshotDelta(b) => {
                let (ints, _) = unpack(b);
                let r = match &current {
                    None => Err("a delta before any keyframe".to_string()),
                    Some(base) => read_delta(&ints).and_then(|d| apply_delta(base, &d)),
                };
                (
                    Seen::Data {
                        kind: "delta",
                        bytes: payload_bytes(&ints),
                    },
                    Some(r),
                )
            }
        };
        out.chunks.push(seen);
        match snap {
            Some(Ok(s)) if out.snap_error.is_none() => {
                stats.lt2_items += s.items().len();
                out.snaps.push((tick, lt2_items(&s), s.crc()));
                current = Some(s);
            }
            Some(Err(e)) if out.snap_error.is_none() => {
                out.snap_error = Some(format!("tick {tick}: {e}"));
            }
            _ => {}
        }
    }
    Ok(out)
}

#[derive(Default, Debug)]
struct Stats {
    demos: usize,
    ticks: usize,
    data: usize,
    messages: usize,
    keyframes: usize,
    deltas: usize,
    snapshots: usize,
    lt2_items: usize,
}

/// Compares one demo; returns the disagreements as (what, detail).
fn compare(bytes: &[u8], stats: &mut Stats) -> Vec<(String, String)> {
    let mut diffs = Vec::new();
    let (demo, offsets) = match Demo::decode(bytes) {
        Ok(d) => d,
        Err(e) => return vec![("teeoracle decode".into(), e.to_string())],
    };
    let lt2 = match read_libtw2(bytes, stats) {
        Ok(r) => r,
        Err(e) => return vec![("libtw2 header".into(), e)],
    };

    // Chunk layer.
    let mut ours = Vec::new();
    for (chunk, &offset) in demo.chunks.iter().zip(&offsets) {
        ours.push(match chunk {
            Chunk::Tick { tick, keyframe, .. } => {
                stats.ticks += 1;
                Seen::Tick {
                    tick: *tick,
                    keyframe: *keyframe,
                }
            }
            Chunk::Data {
                kind: ChunkKind::Unknown,
                ..
            } => Seen::Unknown,
            Chunk::Data { kind, payload, .. } => {
                stats.data += 1;
                match kind {
                    ChunkKind::Message => stats.messages += 1,
                    ChunkKind::Snapshot => stats.keyframes += 1,
                    _ => stats.deltas += 1,
                }
                match decode_payload(payload, offset) {
                    Ok(p) => Seen::Data {
                        kind: kind_name(*kind),
                        bytes: payload_bytes(&p.ints),
                    },
                    Err(e) => {
                        diffs.push(("teeoracle payload".into(), format!("@{offset}: {e}")));
                        Seen::Unknown
                    }
                }
            }
        });
    }
    if let Some(i) = ours.iter().zip(&lt2.chunks).position(|(a, b)| a != b) {
        diffs.push((
            "chunk".into(),
            format!(
                "chunk {i} @{}: teeoracle {:?} libtw2 {:?}",
                offsets[i], ours[i], lt2.chunks[i]
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

    // Snapshot layer.
    let mut snaps: Vec<Full> = Vec::new();
    let replay = demo.replay_snapshots(&offsets, |tick, s| {
        let mut items: Vec<_> = s.items().map(|i| (i.key, i.data.to_vec())).collect();
        items.sort();
        snaps.push((tick, items, s.crc()));
    });
    stats.snapshots += snaps.len();
    match (replay.faults.first(), &lt2.snap_error) {
        (None, None) => {}
        (f, e) => diffs.push((
            "snapshot fault".into(),
            format!("teeoracle {f:?} libtw2 {e:?}"),
        )),
    }
    let n = snaps.len().min(lt2.snaps.len());
    if snaps.len() != lt2.snaps.len() {
        diffs.push((
            "snapshot count".into(),
            format!("teeoracle {} libtw2 {}", snaps.len(), lt2.snaps.len()),
        ));
    }
    for (i, (a, b)) in snaps[..n].iter().zip(&lt2.snaps[..n]).enumerate() {
        if a.0 != b.0 || a.1 != b.1 {
            let only_a = a.1.iter().filter(|x| !b.1.contains(x)).count();
            let only_b = b.1.iter().filter(|x| !a.1.contains(x)).count();
            diffs.push((
                "snapshot items".into(),
                format!(
                    "snapshot {i} tick {} / {}: {only_a} items only in teeoracle, {only_b} only in libtw2",
                    a.0, b.0
                ),
            ));
            break;
        }
        if a.2 != b.2 {
            diffs.push((
                "snapshot crc".into(),
                format!("snapshot {i} tick {}: {} vs {}", a.0, a.2, b.2),
            ));
            break;
        }
    }
    diffs
}

#[test]
fn demos_agree_with_libtw2() {
    let mut stats = Stats::default();
    let mut unlisted = Vec::new();
    let mut seen_known = BTreeSet::new();
    for path in corpus_demos() {
        let name = path
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&path).unwrap();
        stats.demos += 1;
        for (what, detail) in compare(&bytes, &mut stats) {
            match KNOWN.iter().position(|k| k.0 == name && k.1 == what) {
                Some(i) => {
                    eprintln!("known: {name}: {what}: {detail} ({})", KNOWN[i].2);
                    seen_known.insert(i);
                }
                None => unlisted.push(format!("{name}: {what}: {detail}")),
            }
        }
    }
    eprintln!("{stats:?}");
    // Our 6, DDNet's 2 bench demos, and the 5 hand-made ones in edge/.
    assert_eq!(stats.demos, 13, "corpus demo count");
    let stale: Vec<_> = (0..KNOWN.len())
        .filter(|i| !seen_known.contains(i))
        .map(|i| KNOWN[i])
        .collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "unlisted disagreements:\n{}\nlisted but not seen: {stale:?}",
        unlisted.join("\n")
    );
}
