//! The golden harness: one test case per corpus file, so a mismatch in one
//! file never hides the rest.
//!
//! Every file under `corpus/` goes through `teeoracle::check` (the pipeline
//! of the `check` command: decode, re-encode and compare, replay, count)
//! and its verdict (as `check --format json` prints it) must equal its
//! reviewed golden, one per file: `snapshots/check/<path under corpus/,
//! with __ for />.snap`, so a reviewer accepts or rejects each file's
//! changed verdict on its own in `cargo insta review`. The `check_json`
//! case runs `teeoracle check corpus --format json` itself: each file's
//! verdict must be its golden, and the rest of the document (the files in
//! order, the totals) is `snapshots/cli/check_corpus.snap`.
//!
//! A file with a format golden is compared with it in the same case: what
//! a user sees of the file, from the command line where a command prints
//! it, as an insta snapshot under `snapshots/<format>/`:
//! - a teehistorian file: its header fields, `teehistorian dump`'s records
//!   and end, and `teehistorian replay`'s world; a malformed one, its
//!   first fault; the recordings in [`PACKED`], their archive's text
//!   members too;
//! - a demo: a real one, `demo stats` and `demo snapshot` at its middle
//!   and last tick; an edge case, `demo dump` and what its replay counted;
//!   a malformed one, its first fault (which must say what the file was
//!   made for, [`MADE_FOR`]); the synthetic `minimal.demo`, `demo dump`
//!   and `demo snapshot` at each of its ticks;
//! - a malformed snapshot delta: the error of `snapshot delta apply`,
//!   with the DDNet code its name carries;
//! - a stored archive: packing its recordings today gives its bytes
//!   ([`STORED`]; `TEEORACLE_BLESS=1` rewrites it after a reviewed format
//!   change), and its text members;
//! - `packet/malformed/packets.txt`: what each datagram decodes to;
//!   `packet/ddnet-verdicts/datagrams.txt`: what DDNet 20.1 (and, for
//!   0.7, Teeworlds 0.7.5) does with each datagram.
//! - a damaged capture (`packet/malformed/`, `packet/edge/`): `pcap check`
//!   and the `end` line of `pcap dump --format jsonl`.
//! - a map (not `malformed/`): its container, each item typed (JSON), each
//!   data block's sizes (and text, if it is a string), each quads layer's
//!   quads, and each tiles layer's tiles counted by index and flags
//!   ([`map_dump`]).
//!
//! Accept changes with `cargo insta review` (or `INSTA_UPDATE=always`),
//! reading every changed line. Files of the shared corpus
//! (`../shared/corpus`, beside the repository in CI) are cases too: they
//! must not fail; without that folder they are one case reported ignored.

use crate::common::{self, Env};
use libtest_mimic::{Failed, Trial};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use teeoracle::archive::{Archive, Compression, PackOptions, pack};
use teeoracle::check::{self, Options, Source, Status};
use teeoracle::codec::{Codec, Mode, Reader, encode_to_vec};
use teeoracle::demo::{Chunk, Demo};
use teeoracle::packet::{Packet, PacketCtx, PacketVerdicts, TokenMode, Version};
use teeoracle::snapshot::replay::FaultKind;
use teeoracle::teehistorian::scan::{Scan, Verify};
use teeoracle::teehistorian::{End, Header, ReadError};

/// The folder of the verdicts' goldens, below `snapshots/`.
const VERDICTS: &str = "check";

/// A case per corpus file (named by its path), the whole run's case, and
/// a case per file of the shared corpus (one ignored case without it).
pub fn trials() -> Vec<Trial> {
    let mut trials = vec![
        Trial::test("golden::check_json", check_json),
        Trial::test(
            "golden::made_for_names_every_malformed_demo",
            made_for_is_complete,
        ),
    ];
    for path in common::files_under(Path::new("corpus")) {
        let name = path.display().to_string();
        trials.push(Trial::test(name, move || corpus_file(&path)));
    }
    match common::shared_corpus() {
        Some(shared) => {
            for path in common::files_under(&shared) {
                let name = path.display().to_string();
                trials.push(Trial::test(name, move || shared_file_passes(&path)));
            }
        }
        None => trials.push(common::ignored(
            "golden::shared_corpus_files_pass".into(),
            Env::SharedCorpus.missing().unwrap_or_default(),
        )),
    }
    trials
}

/// One corpus file: its verdict, then each of its format goldens; every
/// mismatch is reported.
fn corpus_file(path: &Path) -> Result<(), Failed> {
    let mut failures: Vec<String> = verdict_matches(path).err().into_iter().collect();
    for (dir, name, text) in format_goldens(path) {
        if let Err(e) = text.and_then(|text| compare(dir, &name, &text)) {
            failures.push(format!("snapshots/{dir}/{name}.snap: {e}"));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

/// The name of a corpus file's verdict golden: its path below `corpus/`,
/// `__` between the parts (as the format goldens are named).
fn verdict_name(path: &Path) -> String {
    let parts: Vec<String> = path
        .iter()
        .skip(1)
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    parts.join("__")
}

/// The maps `check corpus` has at hand: every map and demo of the corpus,
/// compressed or not (so its teehistorian files are simulated as in the
/// golden).
fn corpus_maps() -> std::sync::Arc<teeoracle::simulation::Maps> {
    static MAPS: std::sync::OnceLock<std::sync::Arc<teeoracle::simulation::Maps>> =
        std::sync::OnceLock::new();
    MAPS.get_or_init(|| {
        // As `check corpus` walks it: no file named.
        let files: Vec<(std::path::PathBuf, bool)> = (common::files_under(Path::new("corpus")))
            .into_iter()
            .map(|f| (f, false))
            .collect();
        let maps =
            teeoracle::simulation::Maps::for_walk(&files, &[], false).expect("the corpus walks");
        std::sync::Arc::new(maps)
    })
    .clone()
}

/// A corpus file's verdict, as `check corpus` gives it, against its
/// golden; a failing verdict fails even if it is the golden.
fn verdict_matches(path: &Path) -> Result<(), String> {
    let options = Options {
        maps: Some(corpus_maps()),
        ..Options::default()
    };
    let verdict = check::check(Source::file(path), &options);
    let got = serde_json::to_value(&verdict).map_err(|e| e.to_string())?;
    compare(VERDICTS, &verdict_name(path), &pretty(&got))
        .map_err(|e| format!("snapshots/{VERDICTS}/{}.snap: {e}", verdict_name(path)))?;
    if verdict.status == Status::Fail {
        return Err(format!("fails: {}", pretty(&got)));
    }
    Ok(())
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn shared_file_passes(path: &Path) -> Result<(), Failed> {
    let verdict = check::check(Source::file(path), &Options::default());
    match verdict.status {
        Status::Fail => Err(pretty(&serde_json::to_value(&verdict).unwrap_or_default()).into()),
        _ => Ok(()),
    }
}

/// `text` against the insta snapshot `snapshots/<dir>/<name>.snap`. A
/// mismatch fails this case only (insta's panic is caught); insta has
/// printed the diff and written a `.snap.new` for `cargo insta review`.
fn compare(dir: &str, name: &str, text: &str) -> Result<(), String> {
    std::panic::catch_unwind(|| common::snapshot(dir, name, text))
        .map_err(|_| "differs (cargo insta review)".to_string())
}

/// The body of a reviewed insta snapshot (after its `---` header).
fn snapshot_body(dir: &str, name: &str) -> Result<String, String> {
    let path = common::root().join(format!("snapshots/{dir}/{name}.snap"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let body = text.splitn(3, "---\n").nth(2);
    body.map(str::to_string)
        .ok_or_else(|| format!("{}: not an insta snapshot", path.display()))
}

/// The whole run, as the command line prints it: each file's verdict is
/// its golden (the library's, which its own case checks), and the rest of
/// the document is `snapshots/cli/check_corpus.snap`.
fn check_json() -> Result<(), Failed> {
    let text = cli(&["check", "corpus", "--format", "json"])?;
    let mut doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if pretty(&doc) != text.trim_end() {
        return Err("check --format json does not print pretty JSON".into());
    }
    let files = doc["files"].as_array_mut().ok_or("no files")?;
    let mut differ = Vec::new();
    for file in files.iter_mut() {
        let path = file["path"]
            .as_str()
            .ok_or("a file without a path")?
            .to_string();
        let name = verdict_name(Path::new(&path));
        let golden = snapshot_body(VERDICTS, &name).unwrap_or_default();
        if golden.trim_end() != pretty(file) {
            differ.push(format!("snapshots/{VERDICTS}/{name}.snap"));
        }
        *file = serde_json::Value::String(path);
    }
    if !differ.is_empty() {
        return Err(format!(
            "check --format json gives other verdicts than their goldens (review the \
             corpus files' cases first):\n{}",
            differ.join("\n")
        )
        .into());
    }
    compare("cli", "check_corpus", &pretty(&doc))
        .map_err(|e| format!("check --format json, but the verdicts: {e}").into())
}

/// A format golden: the snapshot folder and name, and the text it must
/// hold (or why it could not be made).
type Golden = (&'static str, String, Result<String, String>);

/// The format goldens of a corpus file (none for most).
fn format_goldens(path: &Path) -> Vec<Golden> {
    let parts: Vec<&str> = path.iter().skip(1).filter_map(|c| c.to_str()).collect();
    let snap = |dir: &str, file: &str| format!("{dir}__{file}");
    match parts[..] {
        ["teehistorian", "malformed", file] if file.ends_with(".teehistorian") => {
            vec![(
                "teehistorian",
                snap("malformed", file),
                teehistorian_fault(path),
            )]
        }
        ["teehistorian", dir, file] if file.ends_with(".teehistorian") => {
            let mut out = vec![("teehistorian", snap(dir, file), teehistorian_dump(path))];
            let stem = file.trim_end_matches(".teehistorian");
            if let Some(&(_, every)) = PACKED.iter().find(|(name, _)| *name == stem) {
                out.push(("archive", stem.to_string(), packed_archive(path, every)));
            }
            out
        }
        ["demo", "malformed", file] => vec![("demo", snap("malformed", file), demo_fault(path))],
        ["demo", "edge", file] => vec![("demo", snap("edge", file), demo_edge(path))],
        [
            "demo",
            dir @ ("ddnet-20.1" | "ddnet-16.4" | "ddnet-bench"),
            file,
        ] => {
            vec![("demo", snap(dir, file), demo_stats(path))]
        }
        // The one synthetic demo whose golden was reviewed against its spec;
        // the chat demos are the examples' input (tests/it/examples.rs).
        ["demo", "synthetic", file @ "minimal.demo"] => {
            vec![("demo", snap("synthetic", file), demo_synthetic(path))]
        }
        ["snapshot", "malformed", file] => match file.strip_suffix(".delta.bin") {
            Some(case) => vec![("snapshot", snap("malformed", case), delta_error(path, case))],
            None => vec![],
        },
        ["archive", file] if file.contains(".tar") => {
            let name = file.split('.').next().unwrap_or(file).to_string();
            vec![("archive", name, stored_archive(path, file))]
        }
        ["packet", dir @ ("malformed" | "edge"), file]
            if file.ends_with(".pcap") || file.ends_with(".pcapng") =>
        {
            vec![("packet", snap(dir, file), capture_stop(path))]
        }
        ["packet", "malformed", "packets.txt"] => {
            vec![("packet", "malformed".into(), malformed_packets(path))]
        }
        ["packet", "ddnet-verdicts", "datagrams.txt"] => {
            vec![("packet", "ddnet_verdicts".into(), ddnet_verdicts(path))]
        }
        ["map", dir, file] if dir != "malformed" && file.ends_with(".map") => {
            vec![("map", snap(dir, file), map_dump(path))]
        }
        _ => vec![],
    }
}

/// Runs the command line; its standard output if it exits 0.
fn cli(args: &[&str]) -> Result<String, String> {
    let out = common::run(args);
    if out.status.code() != Some(0) {
        return Err(format!(
            "{args:?}: exit {:?}: {}",
            out.status.code().map_or("none".into(), |c| c.to_string()),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("{args:?}: {e}"))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| e.to_string())
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("corpus paths are UTF-8")
}

// teehistorian

/// Recordings also packed into an archive here (not stored) for a golden
/// of its text members, and their checkpoint spacing.
const PACKED: &[(&str, i32)] = &[
    ("A_join_move_leave", 1500),
    ("B_eight_bots_dm1", 1500),
    ("C_rcon_auth", 500),
];

/// The header's fields, then `teehistorian dump`'s records and end, then
/// `teehistorian replay`'s world at the end.
fn teehistorian_dump(path: &Path) -> Result<String, String> {
    let bytes = read(path)?;
    let header =
        Header::decode(&mut Reader::new(&bytes, Mode::Lenient), ()).map_err(|e| e.to_string())?;
    // The 86 UUID names repeat in every file: their count is enough (the
    // verdict's round trip covers their bytes).
    let info = &header.info;
    let mut text = format!(
        "## Header ({} bytes of JSON, {} uuid names)\n",
        header.json.len(),
        info.uuids.len()
    );
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(info) {
        for (key, value) in fields.iter().filter(|(k, _)| *k != "uuids") {
            writeln!(text, "{key}: {value}").unwrap();
        }
    }
    let dump = cli(&["teehistorian", "dump", arg(path)])?;
    let records: Vec<&str> = dump.lines().filter(|l| !l.starts_with('#')).collect();
    let end = dump
        .lines()
        .find_map(|l| l.strip_prefix("# end: "))
        .ok_or("dump has no end line")?;
    writeln!(text, "## Records ({})", records.len()).unwrap();
    for line in records {
        writeln!(text, "{line}").unwrap();
    }
    writeln!(text, "## End\n{end}\n## World").unwrap();
    text += &cli(&["teehistorian", "replay", arg(path)])?;
    Ok(text)
}

/// The first fault of a malformed file, from the scan `check` runs: a
/// decode error, a replay inconsistency, or bytes after FINISH.
fn teehistorian_fault(path: &Path) -> Result<String, String> {
    let bytes = read(path)?;
    let scan = match Scan::run(&bytes[..], Verify::all()) {
        Err(ReadError::Decode(e)) => return Ok(format!("decode error: {e}")),
        Err(e) => return Err(e.to_string()),
        Ok((_, scan)) => scan,
    };
    if let Some(e) = scan.error {
        return Ok(format!("decode error: {e}"));
    }
    if let Some(inc) = scan.first_inconsistency {
        return Ok(format!("replay inconsistency: {inc}"));
    }
    match (scan.end, scan.bytes_after_finish) {
        (Some(End::Finished { offset }), n @ 1..) => {
            Ok(format!("{n} byte(s) after FINISH at byte {offset}"))
        }
        (end, _) => Err(format!("no fault found (end: {end:?})")),
    }
}

// demo

/// The tick markers' ticks, in file order.
fn demo_ticks(path: &Path) -> Result<Vec<i32>, String> {
    let bytes = read(path)?;
    let (demo, _) = Demo::decode(&bytes).map_err(|e| e.to_string())?;
    Ok(demo
        .chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::Tick { tick, .. } => Some(*tick),
            _ => None,
        })
        .collect())
}

/// As a user sees a real demo: `demo stats`, then `demo snapshot --at`
/// (typed items) at the middle and the last tick.
fn demo_stats(path: &Path) -> Result<String, String> {
    let ticks = demo_ticks(path)?;
    let (Some(middle), Some(last)) = (ticks.get(ticks.len() / 2), ticks.last()) else {
        return Err("no tick markers".into());
    };
    let mut text = cli(&["demo", "stats", arg(path)])?;
    for at in [middle, last] {
        text += &cli(&["demo", "snapshot", arg(path), "--at", &at.to_string()])?;
    }
    Ok(text)
}

/// `demo dump`, what the replay counted, and `demo events`.
fn demo_edge(path: &Path) -> Result<String, String> {
    let bytes = read(path)?;
    let (demo, offsets) = Demo::decode(&bytes).map_err(|e| e.to_string())?;
    if demo.verbatim_payloads() > 0 {
        return Err("a payload does not decode".into());
    }
    let r = demo.replay_snapshots(&offsets, |_, _, _| {});
    let mut text = cli(&["demo", "dump", arg(path)])?;
    writeln!(
        text,
        "# replay: {} keyframes, {} deltas ({} empty), {} messages, last tick {:?}, {} items",
        r.counts.keyframes,
        r.counts.deltas,
        r.counts.empty_deltas,
        r.messages,
        r.last_tick,
        r.last_items
    )
    .unwrap();
    // What DDNet's player meets: snapshots, messages and faults in order.
    text += &cli(&["demo", "events", arg(path)])?;
    Ok(text)
}

/// `demo dump` (and the timeline markers, which it leaves out of its
/// header line), then `demo snapshot` at every tick.
fn demo_synthetic(path: &Path) -> Result<String, String> {
    let mut text = cli(&["demo", "dump", arg(path)])?;
    let stats = cli(&["demo", "stats", arg(path), "--format", "json"])?;
    let stats: serde_json::Value = serde_json::from_str(&stats).map_err(|e| e.to_string())?;
    let markers = &stats["header"]["timeline_markers"];
    writeln!(text, "# timeline_markers={markers}").unwrap();
    for at in demo_ticks(path)? {
        text += &cli(&["demo", "snapshot", arg(path), "--at", &at.to_string()])?;
    }
    Ok(text)
}

/// Each malformed demo (`corpus/make_demo_corpus.py`) and a piece of the
/// error it was made for: the reader's context for decode errors, the
/// fault for replay faults.
const MADE_FOR: &[(&str, &str)] = &[
    ("bad_magic.demo", "reading demo.magic"),
    (
        "truncated_header.demo",
        "at byte 0 (0x0): reading demo.header",
    ),
    ("version_2.demo", "unsupported version 2"),
    ("version_7.demo", "unsupported version 7"),
    ("map_past_eof.demo", "reading demo.map"),
    (
        "relative_tick_first.demo",
        "expected an absolute tick marker first, found a relative one",
    ),
    (
        "tick_out_of_range.demo",
        "expected a tick in 0..1879048191, found 1879048191",
    ),
    (
        "tick_out_of_range_at_201.demo",
        "400 chunk(s) read, then a decode error: at byte 2337 (0x921), tick 200: \
         reading demo.tick_marker: expected a tick in 0..1879048191, found 1879048191",
    ),
    (
        "keyframe_huffman_no_eof.demo",
        "snapshot chunk payload does not decode: at byte 545 (0x221), tick 0: reading huffman",
    ),
    (
        "keyframe_varint_cut.demo",
        "byte 30 of its decompressed payload, tick 0: reading varint array",
    ),
    ("keyframe_bad_offset.demo", "item offset 6"),
    (
        "message_huffman_no_eof.demo",
        "message chunk payload does not decode: at byte 550 (0x226), tick 0: reading huffman",
    ),
    (
        "message_varint_cut.demo",
        "byte 3 of its decompressed payload, tick 0: reading varint array",
    ),
    ("delta_before_keyframe.demo", "delta before any snapshot"),
    ("delta_item_size_changes.demo", "(DDNet error -206)"),
    ("delta_static_item_cut.demo", "(DDNet error -205)"),
];

/// The first thing wrong with a malformed demo: its decode error (after
/// how many chunks, for a damaged chunk), or the first snapshot its replay
/// drops. It must say what the file was made for.
fn demo_fault(path: &Path) -> Result<String, String> {
    let bytes = read(path)?;
    let fault = match Demo::decode_partial(&bytes) {
        Err(e) => format!("decode error: {e}"),
        Ok((demo, _)) if demo.damage.is_some() => {
            let e = demo.damage.map(|d| d.error).ok_or("no damage")?;
            let n = demo.chunks.len();
            format!("{n} chunk(s) read, then a decode error: {e}")
        }
        Ok((demo, offsets)) => {
            let replay = demo.replay_snapshots(&offsets, |_, _, _| {});
            let f = replay
                .faults
                .iter()
                .find(|f| !matches!(f.kind, FaultKind::InvalidItem { .. }))
                .ok_or("no fault")?;
            let dropped = replay.counts.dropped;
            format!("replay fault ({dropped} snapshot(s) dropped): {f}")
        }
    };
    let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
    match MADE_FOR.iter().find(|(name, _)| *name == file) {
        None => Err("not in MADE_FOR (tests/harness/golden.rs)".into()),
        Some((_, want)) if !fault.contains(want) => Err(format!(
            "{fault}\ndoes not say what it was made for: {want}"
        )),
        Some(_) => Ok(fault),
    }
}

/// Every row of [`MADE_FOR`] names a file.
fn made_for_is_complete() -> Result<(), Failed> {
    let files: Vec<String> = common::corpus_files("demo/malformed")
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_string()))
        .collect();
    let missing: Vec<&str> = MADE_FOR
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !files.iter().any(|f| f == name))
        .collect();
    match missing[..] {
        [] => Ok(()),
        _ => Err(format!("MADE_FOR rows without a file: {missing:?}").into()),
    }
}

// snapshot deltas

/// `snapshot delta apply CASE.from.bin CASE.delta.bin` as a user sees it:
/// exit 1, nothing on standard output, and an error naming the DDNet
/// `UnpackDelta` code the case's name carries (`e205_...`: -205).
fn delta_error(path: &Path, case: &str) -> Result<String, String> {
    let code: i32 = case
        .get(1..4)
        .and_then(|c| c.parse().ok())
        .ok_or("not named eNNN_...")?;
    let from = path.with_file_name(format!("{case}.from.bin"));
    let out = common::run(&["snapshot", "delta", "apply", arg(&from), arg(path)]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.code() != Some(1) || !out.stdout.is_empty() {
        return Err(format!(
            "exit {:?}, not 1 and no output: {stderr}",
            out.status
        ));
    }
    if !stderr.contains(&format!("(DDNet error -{code})")) {
        return Err(format!("not DDNet error -{code}: {stderr}"));
    }
    Ok(stderr)
}

// archives

/// An archive stored in `corpus/archive/`: its recordings (given out of
/// order on purpose: `prev_game_uuid` puts E's maps right), checkpoint
/// spacing and compression.
const STORED: &[(&str, &[&str], i32, Compression)] = &[
    (
        "E_map_change.tar.bz2",
        &["E_map_change.2_ctf1", "E_map_change.1_dm1"],
        250,
        Compression::Bzip2,
    ),
    (
        "F_crash_truncated.tar",
        &["F_crash_truncated"],
        500,
        Compression::None,
    ),
];

/// Packs recordings of `corpus/teehistorian/ddnet-20.1` into `out`.
fn pack_recordings(
    out: &Path,
    names: &[&str],
    every: i32,
    compression: Compression,
) -> Result<(), String> {
    let inputs: Vec<PathBuf> = names
        .iter()
        .map(|n| PathBuf::from(format!("corpus/teehistorian/ddnet-20.1/{n}.teehistorian")))
        .collect();
    let options = PackOptions {
        every,
        compression,
        ..PackOptions::default()
    };
    pack(out, &inputs, &options).map_err(|e| e.to_string())?;
    Ok(())
}

/// A stored archive is what packing its recordings gives today, byte for
/// byte; its golden is its text members.
fn stored_archive(path: &Path, file: &str) -> Result<String, String> {
    let &(_, inputs, every, compression) = STORED
        .iter()
        .find(|s| s.0 == file)
        .ok_or("not in STORED (tests/harness/golden.rs)")?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let fresh = dir.path().join(file);
    pack_recordings(&fresh, inputs, every, compression)?;
    if std::env::var_os("TEEORACLE_BLESS").is_some() {
        std::fs::copy(&fresh, path).map_err(|e| e.to_string())?;
    }
    let (fresh, stored) = (read(&fresh)?, read(path)?);
    if fresh != stored {
        return Err(format!(
            "packing gives other bytes (first difference at {:?}, {} vs {} bytes)",
            teeoracle::codec::first_difference(&fresh, &stored),
            fresh.len(),
            stored.len()
        ));
    }
    archive_text(path)
}

/// A recording packed here into an archive, and its text members.
fn packed_archive(path: &Path, every: i32) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = dir.path().join("packed.tar.bz2");
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    pack_recordings(&out, &[name], every, Compression::Bzip2)?;
    archive_text(&out)
}

/// An archive's member list and its text members, one after the other.
fn archive_text(path: &Path) -> Result<String, String> {
    let mut archive = Archive::open(path).map_err(|e| e.to_string())?;
    let members: Vec<(String, u64)> = archive.members().map(|(n, s)| (n.to_string(), s)).collect();
    let mut out = String::from("== members ==\n");
    for (name, size) in &members {
        writeln!(out, "{size:>8}  {name}").unwrap();
    }
    for (name, _) in members.iter().filter(|(n, _)| n.ends_with(".txt")) {
        let bytes = archive.member_bytes(name).map_err(|e| e.to_string())?;
        let text = String::from_utf8(bytes).map_err(|e| format!("{name}: {e}"))?;
        write!(out, "\n== {name} ==\n{text}").unwrap();
    }
    let notes = archive.summary().map_err(|e| e.to_string())?.notes;
    if notes.is_empty() {
        Ok(out)
    } else {
        Err(format!("notes: {notes:?}"))
    }
}

// packets

/// A damaged capture as the command line shows it: `pcap check` (the
/// totals of the frames before the damage, then where and why reading
/// stopped, and the exit code), and the `end` line of `pcap dump --format
/// jsonl` (the same as data).
fn capture_stop(path: &Path) -> Result<String, String> {
    let mut text = String::new();
    for args in [
        &["pcap", "check", arg(path)][..],
        &["pcap", "dump", "--format", "jsonl", arg(path)],
    ] {
        let out = common::run(args);
        let stdout = String::from_utf8(out.stdout).map_err(|e| e.to_string())?;
        let shown = match args[1] {
            "dump" => {
                let end = stdout.lines().last().unwrap_or_default();
                let end: serde_json::Value =
                    serde_json::from_str(end).map_err(|e| e.to_string())?;
                pretty(&end)
            }
            _ => stdout,
        };
        let _ = writeln!(
            text,
            "$ teeoracle {}\nexit {}\n{}\n{}",
            args.join(" "),
            out.status.code().map_or("none".into(), |c| c.to_string()),
            shown.trim_end(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    Ok(text)
}

/// Each datagram of the list (name, version, hex): its decode error, or
/// whether it re-encodes exactly and its payload's chunks or first fault,
/// placed in the datagram.
fn malformed_packets(path: &Path) -> Result<String, String> {
    let mut report = String::new();
    for (name, version, bytes) in datagram_list(path)? {
        let ctx = PacketCtx {
            version,
            token: TokenMode::Auto,
        };
        let outcome = match Packet::decode(&mut Reader::new(&bytes, Mode::Lenient), ctx) {
            Err(e) => format!("error: {e}"),
            Ok(p) => {
                let exact = encode_to_vec(&p, PacketCtx::default()) == bytes;
                let chunks = match &p {
                    Packet::Connection(c) => match c.contents() {
                        Some(contents) => match contents.first_error() {
                            Some(e) => format!("payload error: {}", c.locate(e.clone(), 0)),
                            None => format!(
                                "{} chunk(s), {} byte(s) after",
                                contents.chunks.len(),
                                contents.rest.len()
                            ),
                        },
                        None => String::new(),
                    },
                    _ => String::new(),
                };
                format!("decodes (re-encode exact: {exact}) {chunks}")
            }
        };
        writeln!(report, "{name}: {outcome}").unwrap();
    }
    Ok(report)
}

/// A list of datagrams, a line each: name, version (`0.6`, `0.7`, else
/// detected), hex (or `{1401 zero bytes}`); `#` starts a comment line.
type DatagramList = Vec<(String, Option<Version>, Vec<u8>)>;

fn datagram_list(path: &Path) -> Result<DatagramList, String> {
    let list = String::from_utf8(read(path)?).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let [name, version, hex, ..] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            return Err(format!("not `name version hex`: {line}"));
        };
        let bytes = match hex {
            "{1401" => vec![0; 1401],
            _ => hex::decode(hex).map_err(|e| format!("{name}: {e}"))?,
        };
        let version = match version {
            "0.6" => Some(Version::V06),
            "0.7" => Some(Version::V07),
            _ => None,
        };
        out.push((name.to_string(), version, bytes));
    }
    Ok(out)
}

/// Each datagram's verdicts, as `packet decode` gives them: a line per
/// implementation, with the rule's code and sentence.
fn ddnet_verdicts(path: &Path) -> Result<String, String> {
    let mut report = String::new();
    for (name, version, bytes) in datagram_list(path)? {
        let version = version.ok_or_else(|| format!("{name}: give the peer's version"))?;
        let ctx = PacketCtx {
            version: Some(version),
            token: TokenMode::Auto,
        };
        let packet = Packet::decode(&mut Reader::new(&bytes, Mode::Lenient), ctx).ok();
        let v = PacketVerdicts::of(&bytes, version, packet.as_ref());
        writeln!(report, "{name} ({version}, {} bytes):", bytes.len()).unwrap();
        writeln!(report, "  ddnet 20.1: {}", v.ddnet).unwrap();
        if let Some(tw) = v.teeworlds_0_7_5 {
            writeln!(report, "  teeworlds 0.7.5: {tw}").unwrap();
        }
    }
    Ok(report)
}

// map

/// A map: its container's fields, each item typed (one JSON line each),
/// each data block's stored and declared sizes (and its text, if it is a
/// string as DDNet reads one), each quads layer's quads, and each tiles
/// layer's tiles counted by `index:flags` (skip runs expanded).
fn map_dump(path: &Path) -> Result<String, String> {
    use teeoracle::map::data::block;
    use teeoracle::map::items::{Layer, LayerBody, MapItem};
    use teeoracle::map::quads::{Quad, Records, data_string};
    use teeoracle::map::tiles::{TileData, TileKind, Tiles, expand};
    use teeoracle::map::{Datafile, Map};
    let bytes = read(path)?;
    let datafile = Datafile::decode(&bytes).map_err(|e| e.to_string())?;
    let map = Map::new(&datafile);
    let layout = datafile.layout();
    let mut text = format!(
        "datafile: {:?} version {}, size {}, swaplen {}, {} item types, {} items, {} data blocks\n",
        datafile.magic,
        datafile.version,
        datafile.size,
        datafile.swaplen,
        datafile.item_types.len(),
        datafile.items.len(),
        datafile.data.len()
    );
    for (i, item) in datafile.items.iter().enumerate() {
        let typed = match &map.items[i] {
            Ok(typed) => serde_json::to_string(typed).map_err(|e| e.to_string())?,
            Err(e) => format!("not typed: {e}"),
        };
        let (t, id, at) = (item.type_id(), item.id(), layout.items[i]);
        writeln!(text, "item {i} type {t} id {id} at {at}: {typed}").unwrap();
    }
    for (i, stored) in datafile.data.iter().enumerate() {
        let declared = datafile.declared_size(i).unwrap_or_default();
        let at = layout.data[i];
        let bytes = block(&datafile, i, 1 << 30).map_err(|e| e.to_string())?;
        let as_text = match data_string(&bytes) {
            Some(s) => format!(", text {s:?}"),
            None => String::new(),
        };
        writeln!(
            text,
            "block {i} at {at}: {} bytes stored, {declared} declared{as_text}",
            stored.len()
        )
        .unwrap();
    }
    for (i, item) in map.items.iter().enumerate() {
        let Ok(MapItem::Layer(Layer {
            body: LayerBody::Quads(q),
            ..
        })) = item
        else {
            continue;
        };
        let bytes = block(&datafile, q.data as usize, 1 << 30).map_err(|e| e.to_string())?;
        let quads: Records<Quad> = Codec::decode(&mut Reader::new(&bytes, Mode::Lenient), ())
            .map_err(|e| e.to_string())?;
        let first = quads.records.first().map(|q| q.points[4]);
        writeln!(
            text,
            "quads of item {i} (block {}): {} quads, {} bytes after, first centred at {first:?}",
            q.data,
            quads.records.len(),
            quads.extra.len()
        )
        .unwrap();
    }
    for (i, layer) in map.tiles_layers() {
        let index = layer.tiles_data().unwrap_or(-1);
        let cells = (layer.width * layer.height) as usize;
        let bytes = block(&datafile, index as usize, 1 << 30).map_err(|e| e.to_string())?;
        let kind = TileKind::of(layer.physics());
        let data = TileData::decode(&mut Reader::new(&bytes, Mode::Lenient), kind)
            .map_err(|e| e.to_string())?;
        let key = |t: &teeoracle::map::tiles::Tile| format!("{}:{}", t.index, t.flags);
        let keys: Vec<String> = match (data.tiles, layer.version) {
            (Tiles::Tile(stored), 4..) => expand(&stored, cells)
                .map_err(|e| format!("{e:?}"))?
                .iter()
                .map(key)
                .collect(),
            (Tiles::Tile(t), _) => t.iter().take(cells).map(key).collect(),
            (other, _) => other
                .kinds()
                .iter()
                .take(cells)
                .map(u8::to_string)
                .collect(),
        };
        let mut counted: BTreeMap<String, usize> = BTreeMap::new();
        for k in keys {
            *counted.entry(k).or_default() += 1;
        }
        let physics = layer.physics().map_or("drawn".into(), |p| format!("{p:?}"));
        writeln!(
            text,
            "tiles of item {i} ({physics}, {}x{}, block {index}): {counted:?}",
            layer.width, layer.height
        )
        .unwrap();
    }
    Ok(text)
}
