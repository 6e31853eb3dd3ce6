//! Demo files over the bundled corpus (`corpus/demo`): byte-exact round
//! trip with every chunk recompressed, the counts and message histograms
//! the corpus authors computed independently, and snapshot replay. Each
//! demo's verdict and golden output are in `tests/harness/golden.rs`.

use crate::common;

use std::collections::BTreeMap;
use teeoracle::codec::{encode_to_vec, first_difference};
use teeoracle::demo::{Chunk, ChunkKind, Demo, Payload, payload_bytes};
use teeoracle::huffman::Flavor;
use teeoracle::packet::msg::{self, MsgId};

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(common::root().join("corpus/demo").join(rel)).unwrap()
}

/// One row of the corpus summary: name, tick markers, keyframes, SNAPSHOT,
/// DELTA and MESSAGE chunks, last tick, message histogram.
type Expected = (
    &'static str,
    usize,
    usize,
    usize,
    usize,
    usize,
    i32,
    &'static str,
);

/// From `../shared/corpus/ddnet-20.1/README.md`: tick markers, keyframes,
/// SNAPSHOT, DELTA and MESSAGE chunks, first and last tick, and the message
/// histogram (`sys:N`/`game:N`, 0.6 numbering, UUID messages as id 0).
const DDNET_20_1: &[Expected] = &[
    (
        "A_join_move_leave",
        1055,
        5,
        5,
        329,
        2198,
        1055,
        "game:0 x1, game:1 x1, game:10 x1, game:11 x1, game:4 x2, game:6 x1058, game:8 x1, game:9 x1, sys:0 x3, sys:2 x1, sys:3 x7, sys:4 x1, sys:6 x171, sys:7 x250, sys:9 x699",
    ),
    (
        "B_eight_bots_dm1",
        3027,
        13,
        13,
        2497,
        29775,
        3027,
        "game:0 x45, game:1 x10, game:10 x23, game:11 x10, game:28 x6, game:30 x7, game:4 x96, game:6 x3054, game:8 x10, game:9 x17, sys:0 x30, sys:2 x10, sys:3 x21, sys:4 x10, sys:5 x48, sys:6 x370, sys:7 x9626, sys:9 x16382",
    ),
    (
        "C_rcon_auth",
        1777,
        8,
        8,
        1241,
        8088,
        1777,
        "game:0 x5, game:1 x3, game:11 x3, game:2 x3, game:4 x6, game:6 x1789, game:8 x3, game:9 x3, sys:0 x15, sys:10 x5, sys:11 x38, sys:2 x3, sys:25 x226, sys:4 x3, sys:6 x189, sys:7 x2060, sys:9 x3734",
    ),
    (
        "E_map_change.1_dm1",
        478,
        2,
        2,
        312,
        2154,
        478,
        "game:0 x6, game:1 x3, game:11 x3, game:4 x3, game:6 x485, game:8 x3, sys:0 x10, sys:10 x1, sys:11 x4, sys:2 x3, sys:25 x32, sys:3 x7, sys:4 x3, sys:5 x2, sys:6 x59, sys:7 x540, sys:9 x990",
    ),
    (
        "E_map_change.2_ctf1",
        1049,
        5,
        5,
        758,
        5050,
        1049,
        "game:0 x7, game:1 x3, game:10 x3, game:11 x3, game:4 x9, game:6 x1056, game:8 x3, game:9 x9, sys:11 x10, sys:25 x112, sys:3 x6, sys:4 x3, sys:6 x271, sys:7 x1166, sys:9 x2389",
    ),
    (
        "F_crash_truncated",
        1024,
        5,
        5,
        747,
        6126,
        1024,
        "game:0 x4, game:1 x4, game:10 x12, game:11 x4, game:4 x16, game:6 x1035, game:8 x4, game:9 x4, sys:0 x12, sys:2 x4, sys:4 x4, sys:5 x2, sys:6 x193, sys:7 x1698, sys:9 x3130",
    ),
];

#[test]
fn real_demos_match_the_independent_corpus_summary() {
    for &(name, markers, keyframes, snapshots, deltas, messages, last_tick, histogram) in DDNET_20_1
    {
        let bytes = read(&format!("ddnet-20.1/{name}.demo"));
        let (demo, replay) = common::sound_demo(name, &bytes);
        let mut counts = (0, 0, 0, 0, 0);
        let mut hist: BTreeMap<String, usize> = BTreeMap::new();
        let mut ticks = Vec::new();
        for chunk in &demo.chunks {
            match chunk {
                Chunk::Tick { tick, keyframe, .. } => {
                    counts.0 += 1;
                    counts.1 += usize::from(*keyframe);
                    ticks.push(*tick);
                }
                Chunk::Data { kind, payload, .. } => match kind {
                    ChunkKind::Snapshot => counts.2 += 1,
                    ChunkKind::Delta => counts.3 += 1,
                    ChunkKind::Message => {
                        counts.4 += 1;
                        let data = payload_bytes(payload.ints().unwrap());
                        let (h, _) = msg::split(&data).unwrap();
                        let id = match h.id {
                            MsgId::Ordinal(id) => id,
                            MsgId::Uuid(_) => 0,
                        };
                        *hist
                            .entry(format!("{}:{id}", if h.sys { "sys" } else { "game" }))
                            .or_default() += 1;
                    }
                    ChunkKind::Unknown => panic!("{name}: unknown chunk"),
                },
            }
        }
        assert_eq!(
            counts,
            (markers, keyframes, snapshots, deltas, messages),
            "{name}"
        );
        assert_eq!(
            (ticks.first(), ticks.last()),
            (Some(&1), Some(&last_tick)),
            "{name}"
        );
        let hist: Vec<String> = hist.iter().map(|(k, n)| format!("{k} x{n}")).collect();
        assert_eq!(hist.join(", "), histogram, "{name}");
        assert_eq!(
            (replay.counts.keyframes, replay.counts.deltas),
            (snapshots, deltas),
            "{name}"
        );
        // F's recorder was killed: the last chunk is cut at byte 380810.
        match name {
            "F_crash_truncated" => {
                assert_eq!(demo.truncated.map(<[u8]>::len), Some(380928 - 380810))
            }
            _ => assert!(demo.truncated.is_none(), "{name}"),
        }
    }
}

/// DDNet's two bench demos (CC-BY-SA 3.0, DDNet data): the counts libtw2's
/// demo reader reports for them (spec/peers.md), and DDNet's legacy Huffman
/// writer (the extra zero byte) in some chunks.
#[test]
fn ddnet_bench_demos() {
    for (name, ticks, keyframes, deltas, messages) in [
        ("Multeasymap_bench", 1912, 16, 1896, 2073),
        ("RaiNyMore2_bench", 1597, 13, 920, 1717),
    ] {
        let bytes = read(&format!("ddnet-bench/{name}.demo"));
        let (demo, replay) = common::sound_demo(name, &bytes);
        assert_eq!(
            (
                replay.ticks,
                replay.counts.keyframes,
                replay.counts.deltas,
                replay.messages
            ),
            (ticks, keyframes, deltas, messages),
            "{name}"
        );
        // Decoding takes DDNet's writer where both give the bytes: a
        // legacy payload is one only the legacy writer gives.
        let legacy_only = demo
            .chunks
            .iter()
            .filter(|c| {
                matches!(
                    c,
                    Chunk::Data {
                        payload: Payload::Ints {
                            flavor: Flavor::Legacy,
                            ..
                        },
                        ..
                    }
                )
            })
            .count();
        assert!(legacy_only > 0, "{name}: made by the legacy Huffman writer");
    }
}

#[test]
fn every_truncation_of_a_demo_is_kept_or_an_error_inside_it() {
    let bytes = read("ddnet-20.1/A_join_move_leave.demo");
    for cut in (0..bytes.len()).step_by(bytes.len() / 300) {
        let prefix = &bytes[..cut];
        match Demo::decode(prefix) {
            Ok((demo, _)) => {
                let encoded = encode_to_vec(&demo, ());
                assert!(
                    encoded == prefix,
                    "cut at {cut}: the re-encoding differs at byte {:?} (length {})",
                    first_difference(&encoded, prefix),
                    encoded.len()
                );
            }
            Err(e) => assert!(e.offset <= cut as u64, "cut at {cut}: {e}"),
        }
    }
}

mod properties {
    use super::*;
    use common::testing::{SEED, qc};
    use quickcheck::{Gen, TestResult};

    /// Arbitrary chunk bytes after a real header and map: decoding never
    /// panics, errors point inside the input, and whatever decodes
    /// re-encodes exactly, replays and re-records without panicking.
    #[test]
    fn prop_arbitrary_chunks_never_panic() {
        // A real header, timeline, sha256 item and map (ctf1, 4664 bytes).
        static PREFIX: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
            read("ddnet-20.1/E_map_change.2_ctf1.demo")[..176 + 260 + 48 + 4664].to_vec()
        });
        fn prop(tail: Vec<u8>) -> TestResult {
            let mut bytes = PREFIX.clone();
            bytes.extend_from_slice(&tail);
            match Demo::decode(&bytes) {
                Err(e) => TestResult::from_bool(e.offset <= bytes.len() as u64),
                Ok((demo, offsets)) => {
                    // Payloads that do not decode are kept as they were.
                    let again = encode_to_vec(&demo, ());
                    let _ = demo.replay_snapshots(&offsets, |_, _, _| {});
                    // Re-recording reports what differs, never panics.
                    let _ = teeoracle::demo::rerecord(&bytes);
                    TestResult::from_bool(again == bytes)
                }
            }
        }
        // Tails of up to 300 bytes: a few chunks each.
        qc().rng(Gen::from_size_and_seed(300, SEED))
            .tests(3_000)
            .quickcheck(prop as fn(Vec<u8>) -> TestResult);
    }

    /// Arbitrary bytes behind pcap and pcapng magic never panic the capture
    /// reader.
    #[test]
    fn prop_arbitrary_captures_never_panic() {
        fn prop(body: Vec<u8>, ng: bool) -> bool {
            let mut bytes = if ng {
                vec![0x0a, 0x0d, 0x0d, 0x0a]
            } else {
                vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]
            };
            bytes.extend_from_slice(&body);
            let _ = teeoracle::capture::read(&bytes);
            true
        }
        qc().rng(Gen::from_size_and_seed(300, SEED))
            .tests(3_000)
            .quickcheck(prop as fn(Vec<u8>, bool) -> bool);
    }
}
