//! The hand-made demo and snapshot-delta corpus written by
//! `corpus/make_demo_corpus.py`: every file under `corpus/demo/malformed/`
//! fails (a decode error, or a snapshot the replay drops) with the error it
//! was made for, snapshotted under `snapshots/demo/malformed__*`; every
//! file under `corpus/demo/edge/` decodes, re-encodes exactly and replays
//! without a fault; every delta under `corpus/snapshot/malformed/` fails
//! `snapshot delta apply` with its DDNet `UnpackDelta` code. The committed
//! files are the generator's output, byte for byte.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use teeoracle::codec::{encode_to_vec, first_difference};
use teeoracle::demo::Demo;
use teeoracle::snapshot::replay::FaultKind;
use teeoracle::snapshot::{ItemSizes, Snapshot, apply};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Files directly in `corpus/<folder>`, sorted by name.
fn files(folder: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("corpus").join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no files under corpus/{folder}");
    out
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_str().unwrap().to_string()
}

/// Each malformed demo and a piece of the error it was made for: the
/// reader's context for decode errors, the fault for replay faults.
const MALFORMED: &[(&str, &str)] = &[
    ("bad_magic", "reading demo.magic"),
    ("truncated_header", "at byte 0 (0x0): reading demo.header"),
    ("version_2", "unsupported version 2"),
    ("version_7", "unsupported version 7"),
    ("map_past_eof", "reading demo.map"),
    (
        "relative_tick_first",
        "expected an absolute tick marker first, found a relative one",
    ),
    (
        "tick_out_of_range",
        "expected a tick in 0..1879048191, found 1879048191",
    ),
    (
        "keyframe_huffman_no_eof",
        "snapshot chunk payload does not decode: at byte 545 (0x221), tick 0: reading huffman",
    ),
    (
        "keyframe_varint_cut",
        "byte 30 of its decompressed payload, tick 0: reading varint array",
    ),
    ("keyframe_bad_offset", "item offset 6"),
    (
        "message_huffman_no_eof",
        "message chunk payload does not decode: at byte 550 (0x226), tick 0: reading huffman",
    ),
    (
        "message_varint_cut",
        "byte 3 of its decompressed payload, tick 0: reading varint array",
    ),
    ("delta_before_keyframe", "delta before any snapshot"),
    ("delta_item_size_changes", "(DDNet error -206)"),
    ("delta_static_item_cut", "(DDNet error -205)"),
];

/// The first thing wrong with a demo: its decode error, or the first
/// snapshot its replay drops. A replay fault must be the only fault: the
/// file otherwise re-encodes exactly.
fn first_fault(bytes: &[u8]) -> Option<String> {
    let (demo, offsets) = match Demo::decode(bytes) {
        Err(e) => return Some(format!("decode error: {e}")),
        Ok(x) => x,
    };
    let again = encode_to_vec(&demo, ());
    assert_eq!(first_difference(&again, bytes), None, "re-encoding differs");
    let replay = demo.replay_snapshots(&offsets, |_, _, _| {});
    replay
        .faults
        .iter()
        .find(|f| !matches!(f.kind, FaultKind::InvalidItem { .. }))
        .map(|f| {
            format!(
                "replay fault ({} snapshot(s) dropped): {f}",
                replay.counts.dropped
            )
        })
}

#[test]
fn malformed_demos_fail_with_their_golden_error() {
    let expected: BTreeMap<&str, &str> = MALFORMED.iter().copied().collect();
    let mut seen = Vec::new();
    for path in files("demo/malformed") {
        let name = file_name(&path);
        let stem = name.strip_suffix(".demo").expect("a .demo file");
        let want = expected
            .get(stem)
            .unwrap_or_else(|| panic!("{name}: not in MALFORMED"));
        let bytes = std::fs::read(&path).unwrap();
        let fault = first_fault(&bytes).unwrap_or_else(|| panic!("{name}: no fault"));
        assert!(fault.contains(want), "{name}: {fault}");
        common::snapshot("demo", &format!("malformed__{name}"), &fault);
        seen.push(stem.to_string());
    }
    assert_eq!(seen.len(), MALFORMED.len(), "a MALFORMED row has no file");
}

/// `check` reports each malformed demo as an expected failure (the bad
/// magic one too: it is named `.demo` and is not one).
#[test]
fn check_reports_malformed_demos_as_expected_failures() {
    let out = common::run(&["check", "corpus/demo/malformed"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let n = MALFORMED.len();
    assert!(
        stdout.trim_end().ends_with(&format!(
            "{n} passed (0 with warnings), 0 failed, 0 skipped"
        )),
        "{stdout}"
    );
    assert_eq!(stdout.matches("xfail").count(), n, "{stdout}");
}

#[test]
fn edge_demos_decode_round_trip_and_replay_cleanly() {
    for path in files("demo/edge") {
        let name = file_name(&path);
        let bytes = std::fs::read(&path).unwrap();
        let (demo, offsets) = Demo::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(demo.verbatim_payloads(), 0, "{name}: every payload decodes");
        let again = encode_to_vec(&demo, ());
        assert_eq!(first_difference(&again, &bytes), None, "{name}");
        let replay = demo.replay_snapshots(&offsets, |_, _, _| {});
        assert_eq!(replay.faults, [], "{name}");
        assert_eq!(
            demo.truncated.is_some(),
            name == "truncated_mid_chunk.demo",
            "{name}"
        );
        let rel = format!("corpus/demo/edge/{name}");
        let out = common::run(&["demo", "dump", &rel]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        let mut text = String::from_utf8(out.stdout).unwrap();
        text += &format!(
            "# replay: {} keyframes, {} deltas ({} empty), {} messages, last tick {:?}, {} items\n",
            replay.counts.keyframes,
            replay.counts.deltas,
            replay.counts.empty_deltas,
            replay.messages,
            replay.last_tick,
            replay.last_items
        );
        common::snapshot("demo", &format!("edge__{name}"), &text);
    }
}

/// Each delta case and its `UnpackDelta` code. -301 (the kept base items
/// do not fit) has no case: a valid base always fits.
const DELTAS: &[(&str, i32)] = &[
    ("e101_deleted_keys_past_end", -101),
    ("e102_update_header_cut", -102),
    ("e103_size_missing", -103),
    ("e201_num_deleted_negative", -201),
    ("e202_type_out_of_range", -202),
    ("e203_id_out_of_range", -203),
    ("e204_size_negative", -204),
    ("e205_data_past_end", -205),
    ("e206_size_differs_from_kept", -206),
    ("e207_size_differs_from_base", -207),
    ("e302_new_item_does_not_fit", -302),
];

fn ints(path: &Path) -> Vec<i32> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len() % 4, 0, "{}", path.display());
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn malformed_deltas_fail_apply_with_their_ddnet_code() {
    let names: Vec<String> = files("snapshot/malformed")
        .iter()
        .map(|p| file_name(p))
        .collect();
    let mut want: Vec<String> = DELTAS
        .iter()
        .flat_map(|(n, _)| [format!("{n}.delta.bin"), format!("{n}.from.bin")])
        .collect();
    want.sort();
    assert_eq!(names, want, "the files are the DELTAS table");
    let dir = root().join("corpus/snapshot/malformed");
    for &(name, code) in DELTAS {
        let from = Snapshot::from_ints(&ints(&dir.join(format!("{name}.from.bin"))))
            .unwrap_or_else(|e| panic!("{name}: the base is a valid snapshot: {e}"));
        let delta = ints(&dir.join(format!("{name}.delta.bin")));
        let err = apply(&from, &delta, &ItemSizes::ddnet_06()).unwrap_err();
        assert_eq!(err.code(), Some(code), "{name}: {err}");
        // As a user sees it.
        let (from, delta) = (
            format!("corpus/snapshot/malformed/{name}.from.bin"),
            format!("corpus/snapshot/malformed/{name}.delta.bin"),
        );
        let out = common::run(&["snapshot", "delta", "apply", &from, &delta]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(out.stdout.is_empty(), "{name}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains(&format!("(DDNet error {code})")),
            "{stderr}"
        );
        common::snapshot("snapshot", &format!("malformed__{name}"), &stderr);
    }
}

/// Relative paths of every file below `dir`, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The generator is not needed to run the tests, but the committed files
/// must be exactly what it writes (skipped without python3).
#[test]
fn committed_files_match_the_generator() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not found: skipping the generator comparison");
        return;
    }
    let out_dir =
        std::env::temp_dir().join(format!("teeoracle-demo-corpus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let status = Command::new("python3")
        // No __pycache__ for its shared module inside corpus/.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .arg(root().join("corpus/make_demo_corpus.py"))
        .arg(&out_dir)
        .status()
        .unwrap();
    assert!(status.success(), "the generator failed");
    let generated = tree(&out_dir);
    let mut committed = Vec::new();
    for folder in ["demo/edge", "demo/malformed", "snapshot/malformed"] {
        let base = root().join("corpus");
        committed.extend(
            tree(&base.join(folder))
                .into_iter()
                .map(|p| Path::new(folder).join(p)),
        );
    }
    committed.sort();
    assert_eq!(generated, committed, "the same files");
    for rel in &generated {
        let a = std::fs::read(out_dir.join(rel)).unwrap();
        let b = std::fs::read(root().join("corpus").join(rel)).unwrap();
        assert!(
            a == b,
            "{}: differs from the generator's output at byte {:?}",
            rel.display(),
            first_difference(&a, &b)
        );
    }
    std::fs::remove_dir_all(&out_dir).unwrap();
}
