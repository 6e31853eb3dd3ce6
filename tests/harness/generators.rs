//! The hand-made corpus files are their generators' output, byte for
//! byte: `corpus/make_capture_corpus.py`, `make_demo_corpus.py` and
//! `make_packet_corpus.py` (Python standard library only). The generators
//! are not needed to run the other tests; these need `python3` and are
//! reported ignored without it. What each file reads as is in its golden
//! (`golden`).

use crate::common::{self, Test};
use std::path::{Path, PathBuf};

pub const TESTS: &[Test] = tests![
    damaged_captures_are_the_generator_output needs Python3,
    demos_and_deltas_are_the_generator_output needs Python3,
    the_drops_capture_is_the_generator_output needs Python3,
];

/// The damaged captures of `make_capture_corpus.py`.
fn damaged_captures_are_the_generator_output() {
    let made: Vec<PathBuf> = [
        "packet/malformed/record_501_bad_length.pcap",
        "packet/edge/cut_in_record_501.pcap",
        "packet/malformed/block_501_bad_length.pcapng",
        "packet/edge/cut_in_block_501.pcapng",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let out_dir = common::check_corpus_generator("make_capture_corpus.py", &made);
    std::fs::remove_dir_all(&out_dir).unwrap();
}

/// Paths of every file below `dir`, relative to it, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    common::files_under(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().to_path_buf())
        .collect()
}

/// The demo and snapshot-delta corpus of `make_demo_corpus.py`, which
/// writes nothing else into these folders.
fn demos_and_deltas_are_the_generator_output() {
    let mut committed = Vec::new();
    for folder in ["demo/edge", "demo/malformed", "snapshot/malformed"] {
        let base = common::root().join("corpus");
        committed.extend(
            tree(&base.join(folder))
                .into_iter()
                .map(|p| Path::new(folder).join(p)),
        );
    }
    committed.sort();
    let out_dir = common::check_corpus_generator("make_demo_corpus.py", &committed);
    assert_eq!(tree(&out_dir), committed, "the same files");
    std::fs::remove_dir_all(&out_dir).unwrap();
}

/// The capture of datagrams DDNet drops, of `make_packet_corpus.py`.
fn the_drops_capture_is_the_generator_output() {
    let made = [PathBuf::from("packet/ddnet-verdicts/dropped_06.pcap")];
    let out_dir = common::check_corpus_generator("make_packet_corpus.py", &made);
    std::fs::remove_dir_all(&out_dir).unwrap();
}
