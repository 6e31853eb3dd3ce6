//! The demo recorder against real demos: every corpus demo is re-recorded
//! from what it holds (header fields, map, the full snapshot at each tick
//! marker, message bytes, timeline markers) and the result compared with
//! the file, chunk by chunk.
//!
//! What must be identical: the header and everything before the chunks,
//! every tick marker (tick, keyframe flag, relative or absolute form, so
//! the keyframe and empty-delta rules are DDNet's), every keyframe chunk
//! and every message chunk, byte for byte. A delta chunk must be identical
//! too, unless the server's snapshot had its items in another order than
//! the rebuilt one (the demo player puts new items last; DDNet's recorder
//! diffs the server's own snapshot, whose order the file does not keep).
//! Then the two deltas must hold the same removed keys and the same (key,
//! data) updates, as sets.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use teeoracle::demo::{
    Chunk, ChunkKind, Demo, DemoRecorder, DemoStart, HEADER_LEN, TIMELINE_LEN, decode_payload,
    payload_bytes,
};
use teeoracle::huffman::Flavor;
use teeoracle::snapshot::{Delta, Snapshot};

fn demos() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/demo");
    let mut out = Vec::new();
    for dir in ["ddnet-20.1", "ddnet-bench"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            out.push(entry.unwrap().path());
        }
    }
    out.sort();
    out
}

/// How the comparison of one demo went.
#[derive(Debug, Default)]
struct Outcome {
    ticks: usize,
    keyframes: usize,
    messages: usize,
    /// Delta chunks byte-identical to the file's.
    deltas_exact: usize,
    /// Delta chunks with the same updates in another order.
    deltas_reordered: usize,
    /// The unused timeline marker slots are not zero in the file.
    stale_timeline_slots: bool,
}

/// The update set of a delta chunk: removed keys, and (key, data) updates.
fn updates(
    payload: &[u8],
    sizes: &teeoracle::snapshot::ItemSizes,
) -> (BTreeSet<i32>, BTreeSet<(i32, Vec<i32>)>) {
    let ints = decode_payload(payload, 0).unwrap().ints;
    let delta = Delta::from_ints(&ints, sizes).unwrap();
    let set = delta
        .updates
        .iter()
        .map(|u| (u.type_id << 16 | u.id, u.data.clone()))
        .collect();
    (delta.removed.iter().copied().collect(), set)
}

/// Re-records `bytes` and compares; panics with the first difference.
fn rerecord(name: &str, bytes: &[u8]) -> Outcome {
    let (demo, offsets) = Demo::decode(bytes).unwrap();
    let sizes = demo.item_sizes();
    // The full snapshot of every snapshot or delta chunk, by chunk index.
    let mut rebuilt: Vec<Option<Snapshot>> = vec![None; demo.chunks.len()];
    let replay = demo.replay_snapshots(&offsets, |i, _, s| rebuilt[i] = Some(s.clone()));
    assert!(replay.faults.is_empty(), "{name}: {:?}", replay.faults);

    // The writer's Huffman flavor: from the first payload that tells (one
    // whose bits end on a byte boundary).
    let flavor = demo
        .chunks
        .iter()
        .find_map(|c| match c {
            Chunk::Data { payload, .. } => {
                let h = decode_payload(payload, 0).ok()?.huffman;
                let (a, b) = (h.flavor(Flavor::Ddnet), h.flavor(Flavor::Legacy));
                a.filter(|_| a == b)
            }
            _ => None,
        })
        .unwrap_or(Flavor::Ddnet);
    let h = &demo.header;
    let sha = demo
        .sha256_item
        .map(|i| <[u8; 32]>::try_from(&i[16..]).unwrap());
    let (net_version, map_name, kind, timestamp) =
        (h.net_version(), h.map_name(), h.kind(), h.timestamp());
    let mut recorder = DemoRecorder::new(
        &DemoStart {
            version: h.version(),
            net_version: &net_version,
            map_name: &map_name,
            map_crc: h.map_crc(),
            map_sha256: sha,
            map: demo.map,
            kind: &kind,
            timestamp: &timestamp,
            flavor,
        },
        sizes.clone(),
    );
    let mut last = Snapshot::new();
    for (i, chunk) in demo.chunks.iter().enumerate() {
        match chunk {
            Chunk::Tick { tick, .. } => {
                // The snapshot of this tick: the next chunk's, or the last
                // one again (an empty delta writes only the marker).
                if let Some(Some(s)) = rebuilt.get(i + 1) {
                    last.clone_from(s);
                }
                recorder.record_snapshot(*tick, &last);
            }
            Chunk::Data {
                kind: ChunkKind::Message,
                payload,
                ..
            } => {
                let data = payload_bytes(&decode_payload(payload, 0).unwrap().ints);
                assert!(recorder.record_message(&data));
            }
            Chunk::Data { .. } => {}
        }
    }
    for &m in &demo.info().timeline_markers {
        assert!(recorder.add_marker(m as i32), "{name}: marker {m}");
    }
    // A crashed recorder never stopped: its file is what was written, up
    // to the chunk it was cut in.
    let (again, bytes) = match demo.truncated {
        Some(cut) => (
            recorder.written().to_vec(),
            &bytes[..bytes.len() - cut.len()],
        ),
        None => (recorder.finish(), bytes),
    };

    let mut again = again;
    let mut outcome = Outcome::default();
    // Older writers left the unused timeline marker slots uninitialised
    // (DDNet zeroes them since): the count and the markers must agree, the
    // rest is copied over for the byte comparison.
    if let Some(theirs) = demo.timeline {
        let timeline = HEADER_LEN..HEADER_LEN + TIMELINE_LEN;
        let used = 4 + 4 * demo.info().timeline_markers.len();
        assert!(
            again[timeline.start..][..used] == theirs[..used],
            "{name}: markers"
        );
        if again[timeline.clone()] != *theirs {
            outcome.stale_timeline_slots = true;
            again[timeline].copy_from_slice(theirs);
        }
    }
    let (ours, ours_offsets) = Demo::decode(&again).unwrap();
    assert_eq!(ours.header, demo.header, "{name}: header");
    assert!(ours.sha256_item == demo.sha256_item, "{name}: SHA-256 item");
    assert!(ours.map == demo.map, "{name}: map");
    // A crashed recorder's cut chunk is not data to re-record.
    assert_eq!(ours.chunks.len(), demo.chunks.len(), "{name}: chunk count");
    for (i, (a, b)) in ours.chunks.iter().zip(&demo.chunks).enumerate() {
        let at = offsets[i];
        match (a, b) {
            (Chunk::Tick { .. }, Chunk::Tick { .. }) => {
                assert_eq!(a, b, "{name}: tick marker at {at}");
                outcome.ticks += 1;
            }
            (
                Chunk::Data {
                    kind: ChunkKind::Delta,
                    payload: pa,
                    ..
                },
                Chunk::Data {
                    kind: ChunkKind::Delta,
                    payload: pb,
                    ..
                },
            ) if a != b => {
                let (ra, ua) = updates(pa, &sizes);
                let (rb, ub) = updates(pb, &sizes);
                assert_eq!((ra, ua), (rb, ub), "{name}: delta at {at}");
                outcome.deltas_reordered += 1;
            }
            (Chunk::Data { kind, .. }, _) => {
                assert_eq!(a, b, "{name}: chunk at {at} (ours at {})", ours_offsets[i]);
                match kind {
                    ChunkKind::Snapshot => outcome.keyframes += 1,
                    ChunkKind::Message => outcome.messages += 1,
                    ChunkKind::Delta => outcome.deltas_exact += 1,
                    ChunkKind::Unknown => {}
                }
            }
            _ => panic!("{name}: chunk {i} at {at}: {a:?} where the file has {b:?}"),
        }
    }
    if outcome.deltas_reordered == 0 {
        assert!(again == bytes, "{name}: the whole file");
    }
    outcome
}

/// Demos re-recorded byte for byte, whole files: our server's first demo
/// (no item ever moved in its snapshots) and DDNet's two client-recorded
/// bench demos (a client records the snapshots as it rebuilt them, in the
/// order the recorder's own deltas keep).
const WHOLE: &[&str] = &[
    "A_join_move_leave.demo",
    "Multeasymap_bench.demo",
    "RaiNyMore2_bench.demo",
];

#[test]
fn rerecording_real_demos_gives_their_bytes() {
    let (mut deltas, mut reordered) = (0, 0);
    for path in demos() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let o = rerecord(&name, &bytes);
        eprintln!("{name}: {o:?}");
        assert!(
            o.ticks > 400 && o.keyframes >= 2 && o.messages > 1000,
            "{name}: {o:?}"
        );
        assert_eq!(
            WHOLE.contains(&name.as_str()),
            o.deltas_reordered == 0,
            "{name}"
        );
        deltas += o.deltas_exact + o.deltas_reordered;
        reordered += o.deltas_reordered;
    }
    // Reordering is the exception: under 10% of the 8,000 or so deltas.
    assert!(
        deltas > 8000 && reordered * 10 < deltas,
        "{reordered} of {deltas}"
    );
}

/// The upstream demos (DDNet's web viewer samples, Teeworlds 0.7 and DDNet
/// captures), where the shared corpus is present.
#[test]
fn rerecording_upstream_demos() {
    let root = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/upstream"),
        PathBuf::from("/work/shared/corpus/upstream"),
    ]
    .into_iter()
    .find(|p| p.is_dir());
    let Some(root) = root else { return };
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "demo") {
                files.push(path);
            }
        }
    }
    files.sort();
    // DDNet's 2 bench demos, 4 web viewer samples, 6 Teeworlds/DDNet
    // client demos (0.6 and 0.7).
    assert_eq!(files.len(), 12, "{files:?}");
    for path in files {
        let name = path.to_string_lossy().into_owned();
        let o = rerecord(&name, &std::fs::read(&path).unwrap());
        eprintln!("{name}: {o:?}");
        assert!(o.ticks > 0 && o.keyframes > 0, "{name}: {o:?}");
    }
}
