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
//!
//! The comparison is `teeoracle::demo::rerecord`, which `teeoracle demo
//! rerecord` runs too.

use crate::common::{self, Test};

use std::path::PathBuf;
use teeoracle::demo::RerecordReport;

pub const TESTS: &[Test] = tests![
    rerecording_real_demos_gives_their_bytes,
    rerecording_upstream_demos needs SharedCorpus,
];

fn demos() -> Vec<PathBuf> {
    let mut out = common::corpus_files("demo/ddnet-20.1");
    out.extend(common::corpus_files("demo/ddnet-bench"));
    out
}

/// Re-records `bytes` with `teeoracle::demo::rerecord` (what `teeoracle
/// demo rerecord` runs) and requires nothing to differ but reordered
/// deltas and stale timeline slots; without reordered deltas, the bytes
/// are the file's but for those slots.
fn rerecord(name: &str, bytes: &[u8]) -> RerecordReport {
    let done = teeoracle::demo::rerecord(bytes).unwrap();
    let o = done.report;
    assert!(o.equivalent(), "{name}: {:?}", o.differences);
    if o.deltas_reordered == 0 {
        assert_eq!(o.identical, !o.stale_timeline_slots, "{name}");
    }
    // Re-recording the re-recorded file gives it back (but for a cut
    // file: the recorder that stops writes the length a killed one left 0).
    if o.truncated.is_some() {
        return o;
    }
    let again = teeoracle::demo::rerecord(&done.bytes).unwrap();
    assert!(again.report.identical, "{name}: {:?}", again.report);
    o
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

fn rerecording_real_demos_gives_their_bytes() {
    let (mut deltas, mut reordered) = (0, 0);
    for path in demos() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let o = rerecord(&name, &bytes);
        eprintln!("{name}: {o:?}");
        // The bench demos were written by DDNet's legacy Huffman writer.
        let legacy = name.ends_with("_bench.demo");
        assert_eq!(o.flavor, if legacy { "legacy" } else { "ddnet" }, "{name}");
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
fn rerecording_upstream_demos() {
    let root = common::upstream_corpus().expect("needs SharedCorpus");
    let files: Vec<PathBuf> = common::files_under(&root)
        .into_iter()
        .filter(|p| common::has_ext(p, "demo"))
        .collect();
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
