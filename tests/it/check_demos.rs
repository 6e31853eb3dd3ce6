//! `check` and the demos it finds for a teehistorian file: the one of
//! its session compared, every other named with why not (issue 45).

use crate::common;

use common::{run, text};
use std::path::Path;

const A_TH: &str = "corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian";

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// Copies the corpus file `rel` into `dir` as `name`.
/// `bytes` gzipped.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn put(dir: &Path, name: &str, rel: &str) {
    std::fs::write(dir.join(name), read(rel)).unwrap();
}

/// A teehistorian file with the server demo of its session beside it
/// (same name) is checked across formats: every Character item of the
/// demo against the simulation. A demo of another session on the same
/// map (B's, beside E.1's file: recorded 99 s before it, from tick 1)
/// is not compared, and a note and `demos` say why.
#[test]
fn check_compares_a_teehistorian_file_with_its_sessions_demo() {
    let dir = common::scratch("contract-check-session-demo");
    std::fs::write(dir.join("a.teehistorian"), read(A_TH)).unwrap();
    put(
        &dir,
        "a.demo",
        "corpus/demo/ddnet-20.1/A_join_move_leave.demo",
    );
    put(
        &dir,
        "e.teehistorian",
        "corpus/teehistorian/ddnet-20.1/E_map_change.1_dm1.teehistorian",
    );
    put(
        &dir,
        "e.demo",
        "corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo",
    );
    let out = run(&["check", "--format", "json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = |name: &str| {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap()
            .clone()
    };
    let a = file("a.teehistorian");
    assert_eq!(a["status"], "pass", "{a}");
    assert_eq!(a["counts"]["more"]["demo_items_compared"], 330);
    assert_eq!(a["counts"]["more"]["demo_items_matched"], 330);
    assert_eq!(
        a["demos"],
        serde_json::json!([{"path": dir.join("a.demo").display().to_string(), "compared": true, "reason": null}])
    );
    assert!(
        a["summary"]
            .as_str()
            .unwrap()
            .contains("; a.demo: 330 of 330 Character items as simulated"),
        "{a}"
    );
    let e = file("e.teehistorian");
    assert_eq!(e["status"], "pass", "{e}");
    let why = "another session: it was recorded at 2026-11-22_02-29-05, 99 s before \
        the header's start_time 2026-11-22T02:30:44+0000; starting at tick 1, the session's \
        would be 0 s after";
    assert_eq!(
        e["demos"],
        serde_json::json!([{"path": dir.join("e.demo").display().to_string(), "compared": false, "reason": why}])
    );
    assert_eq!(
        note_of(&e, "demo_not_compared"),
        format!("e.demo not compared: {why}")
    );
    assert!(
        e["counts"]["more"].get("demo_items_compared").is_none(),
        "{e}"
    );
}

/// The message of `verdict`'s one finding of `code`, which is a note.
fn note_of(verdict: &serde_json::Value, code: &str) -> String {
    let found: Vec<&serde_json::Value> = verdict["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect();
    assert_eq!(found.len(), 1, "{verdict}");
    assert_eq!(found[0]["severity"], "note", "{verdict}");
    found[0]["message"].as_str().unwrap().to_string()
}

/// A demo of another map beside a teehistorian file (E.1's dm1 demo
/// named as E.2's ctf1 file, whose map is at hand) is named with both
/// maps, not dropped silently; so is a DDNet 16.4 session's demo of the
/// same map beside a DDNet 20.1 file (issue 45's two cases).
#[test]
fn check_names_a_demo_beside_a_teehistorian_file_that_it_did_not_compare() {
    let dir = common::scratch("contract-check-other-demo");
    put(
        &dir,
        "e2.teehistorian",
        "corpus/teehistorian/ddnet-20.1/E_map_change.2_ctf1.teehistorian",
    );
    put(
        &dir,
        "e2.demo",
        "corpus/demo/ddnet-20.1/E_map_change.1_dm1.demo",
    );
    put(
        &dir,
        "b.teehistorian",
        "corpus/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian",
    );
    put(
        &dir,
        "b.demo",
        "corpus/demo/ddnet-16.4/phys_armor_queue_dm1.demo",
    );
    let out = run(&[
        "check",
        "--format",
        "json",
        "--maps",
        "corpus/demo/ddnet-20.1",
        dir.to_str().unwrap(),
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = |name: &str| {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap()
            .clone()
    };
    let e2 = file("e2.teehistorian");
    let why = "it embeds map dm1 (sha256 0b0c481d77519c32fbe85624ef16ec0fa9991aec7367ad538bd280f28d8c26cf), \
        the header names ctf1 (sha256 7ed5c7099a151c632cf39ec7e0fbe4d84d492b60ce8341c55c3b1bf1c92e7506)";
    assert_eq!(
        note_of(&e2, "demo_not_compared"),
        format!("e2.demo not compared: {why}")
    );
    assert_eq!(e2["demos"][0]["compared"], false, "{e2}");
    assert_eq!(e2["demos"][0]["reason"], why, "{e2}");
    assert!(
        e2["summary"].as_str().unwrap().contains("simulated:"),
        "{e2}"
    );
    // B's own demo lies under `--maps`: compared; the 16.4 demo beside
    // it and the other dm1 demos there are each named with why not, in
    // path order.
    let b = file("b.teehistorian");
    let demos: Vec<(String, bool, String)> = (b["demos"].as_array().unwrap().iter())
        .map(|d| {
            let path = d["path"].as_str().unwrap();
            let name = Path::new(path).file_name().unwrap().to_string_lossy();
            let reason = d["reason"].as_str().unwrap_or_default();
            (name.into_owned(), d["compared"] == true, reason.to_string())
        })
        .collect();
    let compared: Vec<_> = demos.iter().filter(|d| d.1).map(|d| d.0.as_str()).collect();
    assert_eq!(compared, ["B_eight_bots_dm1.demo"], "{b}");
    let beside = demos.iter().find(|d| d.0 == "b.demo").unwrap();
    assert!(
        beside
            .2
            .starts_with("another session: it was recorded at 2026-11-28_18-41-38"),
        "{b}"
    );
    let passed: Vec<_> = demos
        .iter()
        .filter(|d| !d.1)
        .map(|d| d.0.as_str())
        .collect();
    assert_eq!(
        passed,
        [
            "b.demo",
            "A_join_move_leave.demo",
            "C_rcon_auth.demo",
            "E_map_change.1_dm1.demo",
            "F_crash_truncated.demo"
        ],
        "{b}"
    );
    let notes = b["findings"].as_array().unwrap();
    assert_eq!(notes.len(), 5, "{b}");
    for (n, name) in notes.iter().zip(&passed) {
        assert_eq!(n["code"], "demo_not_compared", "{b}");
        assert!(
            n["message"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{name} not compared: another session: ")),
            "{b}"
        );
    }
    // The summary names the demo beside the file, not those elsewhere.
    let summary = b["summary"].as_str().unwrap();
    assert!(
        summary.contains(
            "; b.demo not compared: another session: it was recorded at 2026-11-28_18-41-38"
        ),
        "{b}"
    );
    assert!(!summary.contains("A_join_move_leave.demo"), "{b}");
    assert!(
        summary.contains("; B_eight_bots_dm1.demo: 13981 of 13981 Character items as simulated"),
        "{b}"
    );
}

/// In a folder `record` wrote, with several demos, the one of the
/// teehistorian file's session is compared and the others are named.
/// A folder as `record` writes it (`scenario.ron`), holding A's
/// teehistorian file and the corpus demos `demos` as `1.demo`, `2.demo`,
/// ...; and `check --format json`'s verdict of the file, which passes.
fn record_folder_verdict(name: &str, demos: &[&str]) -> (std::path::PathBuf, serde_json::Value) {
    let dir = common::scratch(name);
    std::fs::write(dir.join("scenario.ron"), "()").unwrap();
    std::fs::write(dir.join("server.teehistorian"), read(A_TH)).unwrap();
    for (i, demo) in demos.iter().enumerate() {
        put(&dir, &format!("{}.demo", i + 1), demo);
    }
    let th = dir.join("server.teehistorian");
    let out = run(&["check", "--format", "json", th.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (dir, doc["files"][0].clone())
}

#[test]
fn check_picks_the_sessions_demo_among_a_record_folders_demos() {
    let (dir, v) = record_folder_verdict(
        "contract-check-record-demos",
        &[
            "corpus/demo/ddnet-20.1/A_join_move_leave.demo",
            "corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo",
        ],
    );
    let v = &v;
    let demos = v["demos"].as_array().unwrap();
    assert_eq!(demos.len(), 2, "{v}");
    assert_eq!(demos[0]["path"], dir.join("1.demo").display().to_string());
    assert_eq!(demos[0]["compared"], true);
    assert_eq!(demos[1]["path"], dir.join("2.demo").display().to_string());
    assert_eq!(demos[1]["compared"], false);
    assert!(
        demos[1]["reason"]
            .as_str()
            .unwrap()
            .starts_with("another session: "),
        "{v}"
    );
    assert_eq!(v["counts"]["more"]["demo_items_compared"], 330, "{v}");
    assert!(
        note_of(v, "demo_not_compared").starts_with("2.demo not compared: another session"),
        "{v}"
    );
}

/// Past two demos beside a file not compared, the summary names them and
/// the notes say why.
#[test]
fn check_names_many_demos_beside_a_file_in_its_summary_by_name() {
    let (_, v) = record_folder_verdict(
        "contract-check-many-demos",
        &[
            "corpus/demo/ddnet-20.1/A_join_move_leave.demo",
            "corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo",
            "corpus/demo/ddnet-20.1/C_rcon_auth.demo",
            "corpus/demo/ddnet-20.1/E_map_change.2_ctf1.demo",
        ],
    );
    assert_eq!(
        v["summary"],
        "byte-exact; 970 records replayed to tick 932; 3 demos beside it not compared, each with why in a note: \
         2.demo, 3.demo, 4.demo; 1.demo: 330 of 330 Character items as simulated; \
         simulated: 851 of 851 player-ticks where the file puts them",
        "{v}"
    );
    let notes: Vec<&str> = (v["findings"].as_array().unwrap().iter())
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 3, "{v}");
    assert!(
        notes[0].starts_with("2.demo not compared: another session: "),
        "{v}"
    );
    assert!(
        notes[1].starts_with("3.demo not compared: another session: "),
        "{v}"
    );
    assert!(
        notes[2].starts_with("4.demo not compared: it embeds map ctf1 "),
        "{v}"
    );
}

/// A demo named on the command line in another folder pairs with the
/// teehistorian file of its session (A's); a named demo of the same map
/// but another session (B's) is named there with why not.
#[test]
fn check_pairs_a_named_demo_elsewhere_with_its_sessions_file() {
    let dir = common::scratch("contract-check-named-demo");
    let (files, demos) = (dir.join("files"), dir.join("demos"));
    std::fs::create_dir_all(&files).unwrap();
    std::fs::create_dir_all(&demos).unwrap();
    let th = files.join("a.teehistorian");
    std::fs::write(&th, read(A_TH)).unwrap();
    let session = demos.join("session.demo");
    std::fs::write(
        &session,
        read("corpus/demo/ddnet-20.1/A_join_move_leave.demo"),
    )
    .unwrap();
    let other = demos.join("other.demo");
    std::fs::write(&other, read("corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo")).unwrap();
    let args = |demo: &Path| {
        let out = run(&[
            "check",
            "--format",
            "json",
            th.to_str().unwrap(),
            demo.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["files"][0].clone()
    };
    let a = args(&session);
    assert_eq!(
        a["demos"],
        serde_json::json!([{"path": session.display().to_string(), "compared": true, "reason": null}])
    );
    assert_eq!(a["counts"]["more"]["demo_items_compared"], 330, "{a}");
    assert!(
        a["summary"]
            .as_str()
            .unwrap()
            .contains("; session.demo: 330 of 330 Character items as simulated"),
        "{a}"
    );
    let a = args(&other);
    let why = "another session: it was recorded at 2026-11-22_02-29-05, 52 s after the header's start_time \
        2026-11-22T02:28:13+0000; starting at tick 1, the session's would be 0 s after";
    assert_eq!(
        a["demos"],
        serde_json::json!([{"path": other.display().to_string(), "compared": false, "reason": why}])
    );
    assert_eq!(
        note_of(&a, "demo_not_compared"),
        format!("other.demo not compared: {why}")
    );
}

/// A demo whose clock fits the file's but whose first snapshots show
/// more players than the file has connected is of another session: B's
/// demo, stamped as if recorded when A's session began, beside A's file.
/// Compressed files pair as plain ones do (`x.teehistorian.gz` with
/// `x.demo.gz`).
#[test]
fn check_tells_another_session_by_its_first_ticks_players() {
    let dir = common::scratch("contract-check-players");
    let th = dir.join("a.teehistorian.gz");
    std::fs::write(&th, gzip(&read(A_TH))).unwrap();
    let mut demo = read("corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo");
    // The demo header's `timestamp` (20 bytes at 156): A's start_time.
    demo[156..176].copy_from_slice(b"2026-11-22_02-28-13\0");
    std::fs::write(dir.join("a.demo.gz"), gzip(&demo)).unwrap();
    let out = run(&["check", "--format", "json", th.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &doc["files"][0];
    let why = "another session: its snapshot of tick 63 has 1 player (0); the file has 0 connected then (-)";
    assert_eq!(v["demos"][0]["reason"], why, "{v}");
    assert_eq!(
        note_of(v, "demo_not_compared"),
        format!("a.demo.gz not compared: {why}")
    );
    // Its own demo, compressed beside it, is compared.
    std::fs::write(
        dir.join("a.demo.gz"),
        gzip(&read("corpus/demo/ddnet-20.1/A_join_move_leave.demo")),
    )
    .unwrap();
    let out = run(&["check", "--format", "json", th.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &doc["files"][0];
    assert_eq!(v["demos"][0]["compared"], true, "{v}");
    assert_eq!(v["counts"]["more"]["demo_items_compared"], 330, "{v}");
}

/// A folder `record` wrote keeps its files compressed (the campaign's):
/// the map comes from its demo, and the demo is compared.
#[test]
fn check_simulates_a_record_folders_compressed_files_and_compares_its_demo() {
    let dir = "corpus/campaign/16.4-dm6-default-s1-c8-t20";
    let out = run(&[
        "check",
        "--format",
        "json",
        &format!("{dir}/server.teehistorian.gz"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &doc["files"][0];
    assert_eq!(
        v["demos"],
        serde_json::json!([{"path": format!("{dir}/teeoracle.demo.gz"), "compared": true, "reason": null}])
    );
    assert!(
        v["summary"].as_str().unwrap().ends_with(
            "; teeoracle.demo.gz: 6500 of 6500 Character items as simulated; simulated: 6615 of 6615 player-ticks where the file puts them"
        ),
        "{v}"
    );
}

/// A demo of another map beside a teehistorian file whose own map is not
/// at hand is named too (issue 45: a dm7 demo beside a dm6 file), beside
/// the note that the file was not simulated.
#[test]
fn check_names_a_demo_of_another_map_when_the_files_map_is_not_at_hand() {
    let dir = common::scratch("contract-check-demo-no-map");
    put(
        &dir,
        "e2.teehistorian",
        "corpus/teehistorian/ddnet-20.1/E_map_change.2_ctf1.teehistorian",
    );
    put(
        &dir,
        "e2.demo",
        "corpus/demo/ddnet-20.1/E_map_change.1_dm1.demo",
    );
    let th = dir.join("e2.teehistorian");
    let out = run(&["check", "--format", "json", th.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &doc["files"][0];
    assert!(
        note_of(v, "demo_not_compared")
            .starts_with("e2.demo not compared: it embeds map dm1 (sha256 0b0c"),
        "{v}"
    );
    assert!(
        note_of(v, "not_simulated").contains("is not at hand"),
        "{v}"
    );
    assert_eq!(v["demos"][0]["compared"], false, "{v}");
}

/// `--walked` judges a file as found in a folder's walk, with the folder
/// as `--maps` (a job handed one file): the demos under `--maps` are maps
/// only, as a demo elsewhere in a walk pairs with no file.
#[test]
fn a_walked_file_pairs_with_no_demo_under_maps() {
    let file = "corpus/teehistorian/ddnet-20.1/F_crash_truncated.teehistorian";
    let verdict = |walked: bool| {
        let mut args = vec![
            "check",
            "--format",
            "json",
            "--maps",
            "corpus/demo/ddnet-20.1",
        ];
        if walked {
            args.push("--walked");
        }
        args.push(file);
        let out = run(&args);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["files"][0].clone()
    };
    let named = verdict(false);
    assert_eq!(named["demos"].as_array().map(Vec::len), Some(5), "{named}");
    let walked = verdict(true);
    assert!(walked.get("demos").is_none(), "{walked}");
    assert_eq!(
        walked["counts"]["more"]["player_ticks_matched"], 3318,
        "{walked}"
    );
}
