//! `teeoracle demo rerecord` and `teeoracle demo build` as a user runs
//! them: re-recording real and corrupted demos through DDNet's recorder,
//! and the synthetic demo of `corpus/demo/synthetic/`, rebuilt from its
//! spec byte for byte.

use crate::common;

use common::{run, text};
use std::path::{Path, PathBuf};
use teeoracle::codec::first_difference;
use teeoracle::demo::spec::DemoSpec;
use teeoracle::demo::{Chunk, Demo};

const A: &str = "corpus/demo/ddnet-20.1/A_join_move_leave.demo";
const B: &str = "corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo";
const MINIMAL_SPEC: &str = "corpus/demo/synthetic/minimal.ron";
const MINIMAL: &str = "corpus/demo/synthetic/minimal.demo";

fn root(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A fresh temporary folder for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("teeoracle-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `teeoracle demo build SPEC -o OUT`.
fn build(spec: &Path, out: &Path) -> std::process::Output {
    run(&[
        "demo",
        "build",
        spec.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ])
}

#[test]
fn rerecord_a_gives_the_whole_file() {
    let dir = temp_dir("rerecord-a");
    let out_path = dir.join("A.demo");
    let out = run(&["demo", "rerecord", A, "-o", out_path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    for line in [
        "reordered: 0 deltas",
        "differences: 0",
        "whole file: identical",
        "result: identical",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    let (written, want) = (
        std::fs::read(&out_path).unwrap(),
        std::fs::read(root(A)).unwrap(),
    );
    assert!(
        written == want,
        "the rebuilt demo differs at byte {:?} (lengths {} and {})",
        first_difference(&written, &want),
        written.len(),
        want.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// B's server had items in another order than the rebuilt snapshots in
/// some ticks: those deltas differ in order only, and that passes.
#[test]
fn rerecord_b_differs_only_in_delta_order() {
    let out = run(&["demo", "rerecord", B]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("whole file: not identical"), "{stdout}");
    assert!(
        stdout.contains("result: equivalent: nothing differs but reordered deltas"),
        "{stdout}"
    );
    common::snapshot("cli", "demo_rerecord_B", &stdout);
}

/// A keyframe flag set on a plain tick marker, or cleared on a keyframe's:
/// not what DDNet's recorder writes, found at the marker's offset.
#[test]
fn rerecord_fails_on_a_flipped_keyframe_flag() {
    let bytes = std::fs::read(root(A)).unwrap();
    let (demo, offsets) = Demo::decode(&bytes).unwrap();
    let marker = |keyframe: bool| {
        demo.chunks
            .iter()
            .zip(&offsets)
            .filter(|(c, _)| matches!(c, Chunk::Tick { keyframe: k, .. } if *k == keyframe))
            .map(|(_, &at)| at as usize)
            .nth(1)
            .unwrap()
    };
    let dir = temp_dir("rerecord-flip");
    for (name, at) in [("set", marker(false)), ("cleared", marker(true))] {
        let mut corrupt = bytes.clone();
        corrupt[at] ^= 0x40;
        let path = dir.join(format!("{name}.demo"));
        std::fs::write(&path, &corrupt).unwrap();
        let out = run(&["demo", "rerecord", path.to_str().unwrap()]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{name}: {stdout}");
        let place = format!("byte {at} (0x{at:x}): tick marker:");
        assert!(stdout.contains("differences: 1\n"), "{name}: {stdout}");
        assert!(stdout.contains(&place), "{name}: {stdout}");
        assert!(stdout.contains("result: differs"), "{name}: {stdout}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("differs from DDNet's recorder at {place}")),
            "{name}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The committed synthetic demo is its spec built, by the command and by
/// the library (from RON, and from the same spec as JSON); `check` passes
/// it, and re-recording it gives it back.
#[test]
fn build_reproduces_the_synthetic_demo() {
    let want = std::fs::read(root(MINIMAL)).unwrap();
    let dir = temp_dir("build");
    let out_path = dir.join("minimal.demo");
    let out = build(Path::new(MINIMAL_SPEC), &out_path);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "no warnings");
    assert_eq!(
        text(&out.stdout),
        format!(
            "{}: 587 bytes: 4 snapshot(s), 1 message(s), 1 timeline marker(s), 0 map bytes\n",
            out_path.display()
        )
    );
    let written = std::fs::read(&out_path).unwrap();
    assert!(
        written == want,
        "built from RON: differs at byte {:?} (lengths {} and {})",
        first_difference(&written, &want),
        written.len(),
        want.len()
    );

    let spec = DemoSpec::from_ron(&std::fs::read_to_string(root(MINIMAL_SPEC)).unwrap()).unwrap();
    let json = serde_json::to_string(&spec).unwrap();
    let json_path = dir.join("minimal.json");
    std::fs::write(&json_path, &json).unwrap();
    assert_eq!(DemoSpec::from_json(&json).unwrap(), spec);
    let built = spec.build(&[]).unwrap();
    assert!(
        built.bytes == want,
        "built in the library: differs at byte {:?} (lengths {} and {})",
        first_difference(&built.bytes, &want),
        built.bytes.len(),
        want.len()
    );
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    let out = build(&json_path, &out_path);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read(&out_path).unwrap();
    assert!(
        written == want,
        "built from JSON: differs at byte {:?} (lengths {} and {})",
        first_difference(&written, &want),
        written.len(),
        want.len()
    );

    let out = run(&["check", "corpus/demo/synthetic"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("pass    demo")
            && (stdout.lines())
                .any(|l| l.contains("minimal.ron ") && l.ends_with("unrecognised format")),
        "{stdout}"
    );
    assert!(
        stdout
            .trim_end()
            .ends_with("5 passed (2 with warnings), 0 failed, 5 skipped"),
        "{stdout}"
    );

    let out = run(&["demo", "rerecord", MINIMAL]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("whole file: identical"),
        "{}",
        text(&out.stdout)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bad specs fail naming the field; wrong-size items only warn.
#[test]
fn build_errors_name_the_field() {
    let dir = temp_dir("build-errors");
    let head = r#""map_name": "x", "map_crc": "00000000""#;
    let cases: &[(&str, String, &str)] = &[
        (
            "unknown.json",
            format!(r#"{{{head}, "colour": 1}}"#),
            "unknown field `colour`, expected one of `version`",
        ),
        (
            "unknown_item_field.json",
            format!(
                r#"{{{head}, "events": [{{"tick": 1, "items": [{{"type": 1, "id": 0, "size": 2}}]}}]}}"#
            ),
            "unknown field `size`, expected one of `type`, `id`, `data`",
        ),
        (
            "unknown.ron",
            "(map_name: \"x\", map_crc: \"00000000\", colour: 1)".into(),
            "Unexpected field named `colour` in `DemoSpec`",
        ),
        (
            "missing.ron",
            "(map_crc: \"00000000\")".into(),
            "missing field named `map_name`",
        ),
        (
            "bad_message.json",
            format!(r#"{{{head}, "events": [{{"message": "06 0g"}}]}}"#),
            r#"events[0].message: bad hex: 'g' (digit 3) is not a hex digit"#,
        ),
        (
            "bad_sha.ron",
            "(map_name: \"x\", map_crc: \"00000000\", map_sha256: \"abcd\")".into(),
            "map_sha256: expected 64 hex digits, found 4",
        ),
        (
            "bad_crc.ron",
            "(map_name: \"x\", map_crc: \"0000000\")".into(),
            "map_crc: bad hex: an odd number of hex digits",
        ),
        (
            "tick_and_message.json",
            format!(r#"{{{head}, "events": [{{"tick": 1}}, {{"tick": 2, "message": "00"}}]}}"#),
            "events[1]: both `tick` and `message`",
        ),
        (
            "bad_huffman.ron",
            "(map_name: \"x\", map_crc: \"00000000\", huffman: \"zlib\")".into(),
            r#"huffman: expected "ddnet" or "legacy""#,
        ),
        (
            "markers_too_close.ron",
            "(map_name: \"x\", map_crc: \"00000000\", markers: [10, 20])".into(),
            "markers[1]: tick 20 refused by DDNet's recorder",
        ),
    ];
    let out_path = dir.join("out.demo");
    for (name, spec, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, spec).unwrap();
        let out = build(&path, &out_path);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(stderr.contains(want), "{name}: {stderr}");
        assert!(!out_path.exists(), "{name}: nothing written");
    }
    // Neither .ron nor .json: bad usage.
    let out = run(&["demo", "build", "spec.txt", "-o", "out.demo"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("a spec is a .ron or .json file"),
        "{stderr}"
    );

    // A Character (22 ints pre-agreed) with 3: written, with a warning.
    let path = dir.join("short_character.json");
    let spec = format!(
        r#"{{{head}, "events": [{{"tick": 1, "items": [{{"type": 9, "id": 0, "data": [1, 2, 3]}}]}}]}}"#
    );
    std::fs::write(&path, spec).unwrap();
    let out = build(&path, &out_path);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        format!(
            "teeoracle: warning: {}: events[0].items[0] (type 9 id 0, tick 1): 3 ints, \
             the type's pre-agreed size is 22: written as given\n",
            path.display()
        )
    );
    let bytes = std::fs::read(&out_path).unwrap();
    let (demo, offsets) = Demo::decode(&bytes).unwrap();
    let replay = demo.replay_snapshots(&offsets, |_, _, _| {});
    assert_eq!(replay.counts.invalid_items, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn build_warns_about_ticks_readers_reject() {
    let spec = DemoSpec::from_json(
        r#"{"map_name": "x", "map_crc": "00000000", "events": [{"tick": -1, "items": []}]}"#,
    )
    .unwrap();
    let built = spec.build(&[]).unwrap();
    assert_eq!(
        built.warnings,
        ["events[0].tick: -1 outside 0..1879048191: readers reject its marker"]
    );
    // Written anyway: a marker the readers refuse.
    let decoded = teeoracle::demo::Demo::decode(&built.bytes).map(|(demo, _)| demo.chunks.len());
    assert!(decoded.is_err(), "read, chunks: {decoded:?}");
}

/// Spec errors are data: the field, and what it was expected to hold.
#[test]
fn spec_errors_are_structured() {
    use teeoracle::codec::SpecError;
    use teeoracle::demo::spec::{Problem, SpecField};
    let spec = DemoSpec::from_ron(
        r#"(map_name: "x", map_crc: "00000000", markers: [10, 20],
           events: [(tick: 1, items: [(type: 70000, id: 0)])])"#,
    )
    .unwrap();
    match spec.build(&[]) {
        Err(SpecError::Field { path, problem }) => {
            assert_eq!(path, SpecField::ItemType { event: 0, item: 0 });
            assert_eq!(
                problem,
                Problem::Range {
                    found: 70000,
                    max: 32767
                }
            );
        }
        other => panic!("{other:?}"),
    }
    let spec =
        DemoSpec::from_ron(r#"(map_name: "x", map_crc: "00000000", markers: [10, 20])"#).unwrap();
    let err = spec.build(&[]).unwrap_err();
    assert!(
        matches!(
            err,
            SpecError::Field {
                path: SpecField::Marker { index: 1 },
                problem: Problem::MarkerRefused { tick: 20 },
            }
        ),
        "{err:?}"
    );
    let json = DemoSpec::from_json("{");
    assert!(matches!(json, Err(SpecError::Json(_))), "{json:?}");
}

/// The chat demos of `corpus/demo/synthetic/`, and their unfinished
/// versions, are their specs built.
#[test]
fn build_reproduces_the_chat_demos() {
    for name in ["chat", "chat_07", "unfinished", "unfinished_07"] {
        let spec = root(&format!("corpus/demo/synthetic/{name}.ron"));
        let spec = DemoSpec::from_ron(&std::fs::read_to_string(spec).unwrap()).unwrap();
        let built = spec.build(&[]).unwrap();
        assert_eq!(built.warnings, Vec::<String>::new(), "{name}");
        let want = std::fs::read(root(&format!("corpus/demo/synthetic/{name}.demo"))).unwrap();
        assert!(
            built.bytes == want,
            "{name}: differs at byte {:?} (lengths {} and {})",
            first_difference(&built.bytes, &want),
            built.bytes.len(),
            want.len()
        );
    }
}

fn json_lines(bytes: &[u8]) -> Vec<serde_json::Value> {
    text(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// `demo dump --format jsonl`: the start line, the header, one line per
/// chunk with its payload and decoded message, the end line; the same
/// from standard input.
#[test]
fn dump_jsonl_has_a_line_per_chunk() {
    let out = run(&["demo", "dump", "--format", "jsonl", MINIMAL]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines = json_lines(&out.stdout);
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds[..2], ["start", "header"]);
    assert_eq!(kinds[kinds.len() - 1], "end");
    assert_eq!(kinds.iter().filter(|k| **k == "chunk").count(), 8);
    assert_eq!(lines[0]["command"], "demo dump");
    assert_eq!(lines[1]["map_name"], "dm1");
    assert_eq!(lines[1]["recorded_by"], "server");
    assert_eq!(lines[1]["timeline_markers"], serde_json::json!([102]));
    let first = &lines[2];
    assert_eq!(
        (
            &first["chunk"],
            &first["tick"],
            &first["keyframe"],
            &first["form"]
        ),
        (
            &"tick".into(),
            &100.into(),
            &true.into(),
            &"absolute".into()
        )
    );
    let chat = lines.iter().find(|l| l["chunk"] == "message").unwrap();
    assert_eq!(chat["offset"], 537);
    assert_eq!(chat["size_form"], "inline");
    assert_eq!(chat["writer"], "ddnet");
    assert_eq!(chat["message"]["system"], false);
    assert_eq!(chat["message"]["id"], 3);
    assert_eq!(chat["message"]["name"], "Sv_Chat");
    // Team 0, client -1, "hi"; the zero padding to the int is not a field.
    assert_eq!(
        chat["message"]["fields"],
        serde_json::json!({"team": 0, "client_id": -1, "message": "hi"})
    );
    assert!(chat["message"].get("trailing").is_none(), "{chat}");
    assert_eq!(lines.last().unwrap()["chunks"], 8);

    let bytes = std::fs::read(root(MINIMAL)).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(["demo", "dump", "--format", "jsonl", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let piped = child.wait_with_output().unwrap();
    assert_eq!(piped.status.code(), Some(0));
    let piped = json_lines(&piped.stdout);
    assert_eq!(piped[0]["input"], "-");
    assert_eq!(piped[1..], lines[1..]);
}

/// Messages come with their fields; a payload that does not
/// decode is a line with its error (file byte, byte inside), and the
/// dump exits 1 after the end line.
#[test]
fn dump_jsonl_decodes_system_messages_and_reports_bad_payloads() {
    let out = run(&["demo", "dump", "--format", "jsonl", A]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    let sys = lines
        .iter()
        .find(|l| l["message"]["system"] == true && l["message"]["fields"].is_object())
        .expect("a system message with fields");
    assert!(sys["message"]["name"].is_string(), "{sys}");

    let out = run(&[
        "demo",
        "dump",
        "--format",
        "jsonl",
        "corpus/demo/malformed/message_varint_cut.demo",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out.stdout);
    let bad = &lines[lines.len() - 2];
    assert_eq!(bad["writer"], "undecodable");
    assert_eq!(bad["error"]["offset"], 547);
    assert_eq!(bad["error"]["inner"]["offset"], 3);
    assert_eq!(bad["error"]["tick"], 0);
    assert_eq!(lines.last().unwrap()["undecodable_payloads"], 1);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("at byte 547 (0x223), byte 3 of its decompressed payload"),
        "{stderr}"
    );
}

/// `demo stats`, `roundtrip` and `rerecord` as JSON documents carry what
/// their text shows.
#[test]
fn stats_roundtrip_and_rerecord_as_json() {
    let out = run(&["demo", "stats", A]);
    let stats_text = text(&out.stdout);
    assert!(stats_text.contains("  chunks:            "), "{stats_text}");
    assert!(!stats_text.starts_with('('), "text, not RON: {stats_text}");
    let out = run(&["demo", "stats", "--format", "json", A]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["kind"], "demo_stats");
    assert_eq!(stats["schema_version"], 1);
    assert_eq!(stats["header"]["map_name"], "dm1");
    assert_eq!(stats["snapshots"]["ticks"], 1055);
    assert_eq!(stats["snapshots"]["counts"]["deltas"], 329);
    assert_eq!(stats["snapshots"]["messages"], 2198);
    assert_eq!(stats["chunks"], 3587);
    assert!(
        stats_text.contains("1055 tick markers, 5 keyframes, 329 deltas, 2198 messages"),
        "{stats_text}"
    );

    let out = run(&["demo", "roundtrip", "--format", "json", A]);
    assert_eq!(out.status.code(), Some(0));
    let rt: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rt["kind"], "demo_roundtrip");
    assert_eq!(rt["exact"], true);
    assert_eq!(rt["first_difference"], serde_json::Value::Null);
    assert!(rt["chunks"].as_u64().unwrap() > 3000, "{}", rt["chunks"]);

    let out = run(&["demo", "rerecord", "--format", "json", B]);
    assert_eq!(out.status.code(), Some(0));
    let rr: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rr["kind"], "demo_rerecord");
    assert_eq!(rr["result"], "equivalent");
    assert_eq!(rr["identical"], false);
    assert!(
        rr["deltas_reordered"].as_u64().unwrap() > 0,
        "{}",
        rr["deltas_reordered"]
    );
    assert_eq!(rr["difference_count"], 0);
}

/// A flipped byte in the embedded map, in the SHA-256 item or in the
/// header's map CRC fails `check` (`map_checksum`), naming DDNet's rule;
/// a header string DDNet refuses fails it too (`header`).
#[test]
fn check_fails_a_demo_whose_map_checksums_do_not_match() {
    let bytes = std::fs::read(root(A)).unwrap();
    let (demo, offsets) = Demo::decode(&bytes).unwrap();
    let map_at = offsets[0] as usize - demo.map.len();
    let dir = temp_dir("map-checksum");
    let check = |name: &str, at: usize, xor: u8| {
        let mut corrupt = bytes.clone();
        corrupt[at] ^= xor;
        let path = dir.join(format!("{name}.demo"));
        std::fs::write(&path, &corrupt).unwrap();
        let out = run(&["check", "--format", "json", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["files"][0]["findings"].clone()
    };
    for (name, at, offset, says) in [
        ("map", map_at + 1000, 452, "refuses a map whose SHA-256"),
        ("sha256", 452 + 7, 452, "refuses a map whose SHA-256"),
        ("crc", 141, 140, "match maps by it"),
    ] {
        let findings = check(name, at, 0x01);
        let f = &findings[0];
        assert_eq!(f["severity"], "fail", "{name}: {findings}");
        assert_eq!(f["code"], "map_checksum", "{name}: {findings}");
        assert_eq!(f["offset"], offset, "{name}: {findings}");
        assert!(f["message"].as_str().unwrap().contains(says), "{name}: {f}");
    }
    // The map flipped: its CRC-32 no longer matches either.
    assert_eq!(
        check("map", map_at + 1000, 0x01).as_array().unwrap().len(),
        2
    );
    // The map name's "m" made a byte that is not UTF-8.
    let findings = check("name", 72 + 1, 0x80);
    assert_eq!(findings[0]["code"], "header", "{findings}");
    let message = findings[0]["message"].as_str().unwrap();
    assert!(message.contains("map_name"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A flip sweep over a real demo's embedded map and SHA-256 item: every
/// flipped byte fails `check` with `map_checksum` (before the map was
/// verified, every one of them passed).
#[test]
fn every_flip_in_the_map_fails_check() {
    use teeoracle::check::{self, Options, Source, Status};
    let bytes = std::fs::read(root("corpus/demo/ddnet-20.1/E_map_change.1_dm1.demo")).unwrap();
    let (demo, offsets) = Demo::decode(&bytes).unwrap();
    let end = offsets[0] as usize;
    let sha = end - demo.map.len() - 32;
    let mut flips = 0;
    for at in (sha..end).step_by(97) {
        let mut corrupt = bytes.clone();
        corrupt[at] ^= 0x01;
        let v = check::check(Source::bytes("x.demo", corrupt), &Options::default());
        assert_eq!(v.status, Status::Fail, "byte {at}: {:?}", v.findings);
        assert_eq!(
            v.findings[0].code,
            teeoracle::report::Code::MapChecksum,
            "byte {at}"
        );
        flips += 1;
    }
    assert!(flips > 55, "{flips}");
}

const DAMAGED: &str = "corpus/demo/malformed/tick_out_of_range_at_201.demo";
/// Where its tick 201 marker is, and the error every command ends with.
const DAMAGE: &str = "at byte 2337 (0x921), tick 200: reading demo.tick_marker: \
                      expected a tick in 0..1879048191, found 1879048191";

/// A demo whose tick 201 marker is out of range: every command that reads
/// it gives the 200 ticks before it, then the one error, and exits 1.
#[test]
fn a_damaged_demo_keeps_its_prefix_in_every_command() {
    let out = run(&["demo", "dump", DAMAGED]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(DAMAGE), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let ticks: Vec<&str> = (stdout.lines())
        .filter(|l| l.starts_with("0x") && l.contains(" tick "))
        .collect();
    assert_eq!(ticks.len(), 200);
    assert!(
        ticks[0].ends_with("tick 1 (absolute) keyframe"),
        "{}",
        ticks[0]
    );
    assert!(ticks[199].ends_with("tick 200 (+1)"), "{}", ticks[199]);
    let last = stdout.lines().last().unwrap();
    assert_eq!(last, format!("# stopped: {DAMAGE}"));

    let out = run(&["demo", "dump", "--format", "jsonl", DAMAGED]);
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1 + 1 + 400 + 1, "start, header, chunks, end");
    let end = lines.last().unwrap();
    assert_eq!(end["kind"], "end");
    assert_eq!(end["chunks"], 400);
    assert_eq!(end["error"]["offset"], 2337);
    assert_eq!(end["error"]["tick"], 200);
    assert_eq!(end["error"]["found"], 0x6fff_ffff);

    let out = run(&["demo", "stats", "--format", "json", DAMAGED]);
    assert_eq!(out.status.code(), Some(1));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["chunks"], 400);
    assert_eq!(stats["snapshots"]["ticks"], 200);
    assert_eq!(stats["snapshots"]["last_tick"], 200);
    assert_eq!(stats["snapshots"]["counts"]["deltas"], 199);
    assert_eq!(stats["error"]["message"], DAMAGE);

    let out = run(&["demo", "roundtrip", "--format", "json", DAMAGED]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&report["exact"], &report["chunks"]),
        (&true.into(), &400.into())
    );
    assert_eq!(report["error"]["offset"], 2337);

    // check: the prefix checked and counted, the damage the one failure.
    let out = run(&["check", "--format", "json", DAMAGED]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &doc["files"][0];
    assert_eq!(file["status"], "xfail");
    assert_eq!(file["counts"]["records"], 400);
    assert_eq!(file["counts"]["last_tick"], 200);
    assert_eq!(file["error"]["offset"], 2337);
    let findings = file["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        (&findings[0]["code"], &findings[0]["offset"]),
        (&"decode".into(), &2337.into())
    );
}

/// A demo whose recorder was never stopped: `check` warns, and `demo
/// rerecord` finds it identical to what DDNet's recorder had written
/// before `Stop`; the same file stopped (`minimal.demo`) differs from it
/// only in the header's length and timeline markers.
#[test]
fn an_unfinished_demo_is_what_the_recorder_wrote_before_stop() {
    let unfinished = std::fs::read(root("corpus/demo/synthetic/unfinished.demo")).unwrap();
    let stopped = std::fs::read(root(MINIMAL)).unwrap();
    let differ: Vec<usize> = (0..stopped.len())
        .filter(|&i| unfinished[i] != stopped[i])
        .collect();
    assert_eq!(unfinished.len(), stopped.len());
    assert_eq!(
        differ,
        [155, 179, 183],
        "the length (5 s), the marker count and its tick"
    );
    let (demo, _) = Demo::decode(&unfinished).unwrap();
    assert_eq!(demo.unfinished(), Some(5));
    assert_eq!(Demo::decode(&stopped).unwrap().0.unfinished(), None);

    for file in [
        "corpus/demo/synthetic/unfinished.demo",
        "corpus/demo/synthetic/unfinished_07.demo",
    ] {
        let out = run(&["demo", "rerecord", "--format", "json", file]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", text(&out.stdout));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (&doc["result"], &doc["unfinished"]),
            (&"identical".into(), &true.into())
        );

        let out = run(&["check", "--format", "json", file]);
        assert_eq!(out.status.code(), Some(0));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let verdict = &doc["files"][0];
        assert_eq!(verdict["status"], "warn");
        assert_eq!(verdict["findings"][0]["code"], "unfinished");
        assert_eq!(verdict["findings"][0]["offset"], 152);

        let out = run(&["demo", "stats", "--format", "json", file]);
        let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(stats["unfinished_seconds"].as_u64() > Some(0), "{stats}");
    }
}

/// `demo events --format jsonl`: what DDNet's player meets, counted like
/// `demo stats` counts it; a payload that does not decode is the last
/// event (the player stops there) and the command fails.
#[test]
fn events_are_what_the_player_meets() {
    let demo = "corpus/demo/ddnet-20.1/A_join_move_leave.demo";
    let out = run(&["demo", "events", "--format", "jsonl", demo]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines = json_lines(&out.stdout);
    let stats = run(&["demo", "stats", "--format", "json", demo]);
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let count = |kind: &str| lines.iter().filter(|l| l["kind"] == kind).count();
    let replay = &stats["snapshots"];
    assert_eq!(count("tick"), replay["ticks"].as_u64().unwrap() as usize);
    assert_eq!(
        count("message"),
        replay["messages"].as_u64().unwrap() as usize
    );
    let c = &replay["counts"];
    let applied = c["keyframes"].as_u64().unwrap() + c["deltas"].as_u64().unwrap()
        - c["dropped"].as_u64().unwrap();
    assert_eq!(count("snapshot") as u64, applied, "{c}");
    assert_eq!(lines[0]["command"], "demo events");
    let end = lines.last().unwrap();
    assert_eq!(end["events"].as_u64().unwrap() as usize, lines.len() - 3);
    assert_eq!(end["error"], serde_json::Value::Null);
    // The last snapshot is `demo snapshot` at the last tick.
    let last = lines
        .iter()
        .rev()
        .find(|l| l["kind"] == "snapshot")
        .unwrap();
    let tick = last["tick"].to_string();
    let at = run(&["demo", "snapshot", demo, "--at", &tick, "--format", "json"]);
    let at: serde_json::Value = serde_json::from_slice(&at.stdout).unwrap();
    assert_eq!(at["items"], last["snapshot"]["items"]);

    let damaged = "corpus/demo/malformed/message_huffman_no_eof.demo";
    let out = run(&["demo", "events", "--format", "jsonl", damaged]);
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out.stdout);
    let n = lines.len();
    assert_eq!(lines[n - 2]["kind"], "fault");
    assert_eq!(lines[n - 2]["fault"]["kind"], "payload");
    assert_eq!(lines[n - 1]["error"]["offset"], 550);
}
