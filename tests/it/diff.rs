//! `teeoracle diff`: a recording against itself is the same; against a
//! copy with one planted change (a position, a chat text, a removed
//! snapshot item, a dropped message) exactly that change is reported, at
//! its tick.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use teeoracle::demo::spec::DemoSpec;
use teeoracle::teehistorian::spec::TeehistorianSpec;

fn root(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// `diff --format json` of two files: exit code and report.
fn diff(old: &Path, new: &Path) -> (i32, Value) {
    let out = common::run(&[
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (out.status.code().unwrap(), report)
}

/// Every recording file under `dir`, recursively, but not malformed ones.
fn recordings(dir: &Path, out: &mut Vec<PathBuf>) {
    let recording = |p: &PathBuf| {
        !p.components().any(|c| c.as_os_str() == "malformed")
            && p.extension().is_some_and(|e| {
                ["teehistorian", "demo", "pcap", "pcapng"]
                    .iter()
                    .any(|x| e == *x)
            })
    };
    out.extend(common::files_under(dir).into_iter().filter(recording));
}

#[test]
fn every_corpus_recording_is_the_same_as_itself() {
    let mut files = Vec::new();
    recordings(&root("corpus/teehistorian"), &mut files);
    recordings(&root("corpus/demo"), &mut files);
    recordings(&root("corpus/packet"), &mut files);
    assert!(
        files
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "pcapng")),
        "no .pcapng among {} recordings",
        files.len()
    );
    assert!(files.len() > 40, "{}", files.len());
    for f in &files {
        let (code, report) = diff(f, f);
        assert_eq!(code, 0, "{}: {report:#}", f.display());
        assert_eq!(report["same"], true);
        assert_eq!(report["ticks"][0], report["ticks"][1]);
    }
}

/// Writes `bytes` to a temporary file named `name`.
fn temp(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The one difference of a report (asserting there is exactly one).
fn only_difference(code: i32, report: &Value) -> &Value {
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["header"], serde_json::json!([]), "{report:#}");
    let diffs = report["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{report:#}");
    &diffs[0]
}

fn demo(spec: &str) -> Vec<u8> {
    DemoSpec::from_ron(spec).unwrap().build(&[]).unwrap().bytes
}

#[test]
fn one_planted_change_in_a_demo_is_one_difference() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read_to_string(root("corpus/demo/synthetic/chat.ron")).unwrap();
    let original = temp(&dir, "chat.demo", &demo(&spec));
    let planted = |name: &str, from: &str, to: &str| {
        assert_eq!(spec.matches(from).count(), 1, "{from}");
        temp(&dir, name, &demo(&spec.replacen(from, to, 1)))
    };

    // A chat text: "hello bob" -> "hallo bob".
    let text = planted("text.demo", "06 00 00 68 65 6c", "06 00 00 68 61 6c");
    let (code, report) = diff(&original, &text);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["tick"], &d["category"], &d["change"]),
        (&151.into(), &"message:Sv_Chat".into(), &"changed".into())
    );
    assert_eq!(d["fields"][0]["field"], "fields.message");
    assert_eq!(
        (&d["fields"][0]["old"], &d["fields"][0]["new"]),
        (&"hello bob".into(), &"hallo bob".into())
    );

    // A dropped message.
    let dropped = planted(
        "dropped.demo",
        "        (message: \"06 00 01 68 69 20 61 6c 69 63 65 2c 20 67 67 00\"),\n",
        "",
    );
    let (code, report) = diff(&original, &dropped);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["tick"], &d["category"], &d["change"]),
        (&151.into(), &"message:Sv_Chat".into(), &"removed".into())
    );
    assert_eq!(d["old"]["fields"]["fields"]["message"], "hi alice, gg");

    // A removed snapshot item: PlayerInfo 0 at tick 151 only.
    let at_151 = spec.find("(tick: 151").unwrap();
    let item = "            (type: 10, id: 0, data: [1, 0, 0, 0, 0]),\n";
    let cut = at_151 + spec[at_151..].find(item).unwrap();
    let removed_spec = format!("{}{}", &spec[..cut], &spec[cut + item.len()..]);
    let removed = temp(&dir, "removed.demo", &demo(&removed_spec));
    let (code, report) = diff(&original, &removed);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["tick"], &d["category"], &d["change"]),
        (&151.into(), &"item:PlayerInfo".into(), &"removed".into())
    );
    assert_eq!(d["old"]["key"], "PlayerInfo:0");

    // A field of an item (the score) at tick 150; its latency would be
    // left out by default (network timing).
    let at_150 = spec.find("(tick: 150").unwrap();
    let item = "(type: 10, id: 1, data: [0, 1, 0, 0, 0])";
    let at = at_150 + spec[at_150..].find(item).unwrap();
    let changed_spec = format!(
        "{}(type: 10, id: 1, data: [0, 1, 0, 9, 0]){}",
        &spec[..at],
        &spec[at + item.len()..]
    );
    let changed = temp(&dir, "changed.demo", &demo(&changed_spec));
    let (code, report) = diff(&original, &changed);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["tick"], &d["category"], &d["change"]),
        (&150.into(), &"item:PlayerInfo".into(), &"changed".into())
    );
    assert_eq!(d["fields"].as_array().unwrap().len(), 1, "{d:#}");
    assert_eq!(
        (&d["fields"][0]["old"], &d["fields"][0]["new"]),
        (&0.into(), &9.into())
    );

    // Network timing (a player's latency) is left out by default.
    let latency_spec = changed_spec.replacen("[0, 1, 0, 9, 0]", "[0, 1, 0, 0, 9]", 1);
    let latency = temp(&dir, "latency.demo", &demo(&latency_spec));
    assert_eq!(diff(&original, &latency).0, 0);
    let out = common::run(&[
        "diff",
        original.to_str().unwrap(),
        latency.to_str().unwrap(),
        "--no-default-ignores",
    ]);
    assert_eq!(out.status.code(), Some(1));

    // The text form names the first divergence and the summary.
    let out = common::run(&["diff", original.to_str().unwrap(), text.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(
        shown.contains("first difference at tick 151 (0:03.02); alike up to tick 150"),
        "{shown}"
    );
    assert!(
        shown.contains("fields.message: \"hello bob\" -> \"hallo bob\""),
        "{shown}"
    );
    assert!(shown.contains("  message:Sv_Chat: 1 changed"), "{shown}");
}

#[test]
fn one_planted_change_in_a_teehistorian_file_is_one_difference() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read_to_string(root("corpus/teehistorian/synthetic/session.ron")).unwrap();
    let build = |s: &str| {
        TeehistorianSpec::from_ron(s)
            .unwrap()
            .build()
            .unwrap()
            .bytes
    };
    let original = temp(&dir, "session.teehistorian", &build(&spec));

    // A position: one player_diff's dx.
    let from = "player_diff(cid: 0, dx: 8, dy: 0)";
    assert_eq!(spec.matches(from).count(), 1);
    let moved = temp(
        &dir,
        "moved.teehistorian",
        &build(&spec.replacen(from, "player_diff(cid: 0, dx: 9, dy: 0)", 1)),
    );
    let (code, report) = diff(&original, &moved);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["tick"], &d["category"], &d["change"]),
        (&3.into(), &"player_diff".into(), &"changed".into())
    );
    assert_eq!(d["fields"][0]["field"], "dx");

    // A chat text in a message record.
    let from = "\"message\": \"hello\"";
    let chat = temp(
        &dir,
        "chat.teehistorian",
        &build(&spec.replacen(from, "\"message\": \"hellp\"", 1)),
    );
    let (code, report) = diff(&original, &chat);
    let d = only_difference(code, &report);
    assert_eq!((&d["tick"], &d["category"]), (&3.into(), &"message".into()));
    let fields: Vec<&str> = d["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert!(fields.contains(&"decoded.fields.message"), "{fields:?}");

    // A dropped console command.
    let from = "        console_command(cid: 0, flags: 128, cmd: \"team\", args: [\"1\"]),\n";
    let dropped = temp(
        &dir,
        "dropped.teehistorian",
        &build(&spec.replacen(from, "", 1)),
    );
    let (code, report) = diff(&original, &dropped);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["tick"], &d["category"], &d["change"]),
        (&4.into(), &"console_command".into(), &"removed".into())
    );
}

#[test]
fn different_formats_and_unreadable_files_are_errors() {
    let th = root("corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian");
    let demo = root("corpus/demo/ddnet-20.1/A_join_move_leave.demo");
    let out = common::run(&["diff", th.to_str().unwrap(), demo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let bad = root("corpus/demo/malformed/version_2.demo");
    let out = common::run(&["diff", demo.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("version_2.demo"), "{stderr}");
}

/// A saved `check --format json` report is a baseline: the same files
/// check the same; a changed file is named with what changed, by `check
/// --baseline` and by `diff` of two reports.
#[test]
fn check_reports_compare_as_baselines() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["chat.demo", "minimal.demo"] {
        std::fs::copy(
            root("corpus/demo/synthetic").join(name),
            dir.path().join(name),
        )
        .unwrap();
    }
    let folder = dir.path().to_str().unwrap();
    let base = common::run(&["check", "--format", "json", folder]);
    assert_eq!(base.status.code(), Some(0));
    let base_path = temp(&dir, "base.json", &base.stdout);
    // The saved report is a new file in the folder (listed as skipped).
    let again = common::run(&["check", folder, "--baseline", base_path.to_str().unwrap()]);
    let shown = String::from_utf8_lossy(&again.stdout).into_owned();
    assert_eq!(again.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("1 file(s) differ") && shown.contains("new "),
        "{shown}"
    );

    // Baseline the folder with the report in it, then cut a demo.
    let base = common::run(&["check", "--format", "json", folder]);
    let base_path = temp(&dir, "base.json", &base.stdout);
    let same = common::run(&["check", folder, "--baseline", base_path.to_str().unwrap()]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    let chat = dir.path().join("chat.demo");
    let bytes = std::fs::read(&chat).unwrap();
    std::fs::write(&chat, &bytes[..bytes.len() - 5]).unwrap();
    let cut = common::run(&["check", folder, "--baseline", base_path.to_str().unwrap()]);
    let shown = String::from_utf8_lossy(&cut.stdout).into_owned();
    assert_eq!(cut.status.code(), Some(1), "{shown}");
    assert!(shown.contains("1 file(s) differ"), "{shown}");
    assert!(
        shown.contains("changed ") && shown.contains("chat.demo"),
        "{shown}"
    );
    assert!(shown.contains("status: \"pass\" -> \"warn\""), "{shown}");

    let now = common::run(&["check", "--format", "json", folder]);
    let now_path = temp(&dir, "now.json", &now.stdout);
    let (code, report) = diff(&base_path, &now_path);
    assert_eq!(code, 1);
    assert_eq!(report["format"], "check_report");
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{report:#}");
    let path = files[0]["path"].as_str().unwrap();
    assert!(path.ends_with("chat.demo"), "{path}");
    assert_eq!(files[0]["change"], "changed");
}

/// A capture with one chat text changed in one datagram (uncompressed, so
/// the text is in the file): one `c2s:Cl_Say` change, at its tick.
#[test]
fn one_planted_change_in_a_capture_is_one_difference() {
    let dir = tempfile::tempdir().unwrap();
    let original = root("corpus/packet/ddnet-20.1/A_join_move_leave.pcap");
    let mut bytes = std::fs::read(&original).unwrap();
    let at = bytes.windows(5).position(|w| w == b"hello").unwrap();
    assert_eq!(bytes.windows(5).filter(|w| *w == b"hello").count(), 1);
    bytes[at + 1] = b'a';
    let changed = temp(&dir, "changed.pcap", &bytes);
    let (code, report) = diff(&original, &changed);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["category"], &d["change"]),
        (&"c2s:Cl_Say".into(), &"changed".into())
    );
    assert_eq!(d["fields"][0]["field"], "fields.message");
    assert_eq!(
        d["fields"][0]["new"].as_str().unwrap(),
        d["fields"][0]["old"]
            .as_str()
            .unwrap()
            .replacen("hello", "hallo", 1)
    );
    assert!(d["tick"].as_i64().unwrap() > 0, "{d}");
}

/// The order in which a recorder read its clients' sockets is not the
/// server's: a capture whose datagrams of different connections trade
/// places (each connection's own order kept, timestamps left in place) is
/// the same capture.
#[test]
fn a_capture_read_in_another_order_across_clients_is_the_same() {
    let dir = tempfile::tempdir().unwrap();
    // Three clients and a map change.
    let original = root("corpus/packet/ddnet-20.1/E_map_change.pcap");
    let bytes = std::fs::read(&original).unwrap();
    assert_eq!(
        &bytes[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        "a little-endian pcap"
    );
    assert_eq!(bytes[20], 1, "Ethernet frames");
    let le = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    // Each record: its timestamp (kept in place), the rest (lengths and
    // frame, moved), and its connection (the two UDP ports).
    let mut records = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let len = le(at + 8);
        let frame = &bytes[at + 16..at + 16 + len];
        let ip = 14;
        let udp = ip + usize::from(frame[ip] & 0x0f) * 4;
        let ports = [
            u16::from_be_bytes([frame[udp], frame[udp + 1]]),
            u16::from_be_bytes([frame[udp + 2], frame[udp + 3]]),
        ];
        let connection = (ports[0].min(ports[1]), ports[0].max(ports[1]));
        records.push((
            &bytes[at..at + 8],
            &bytes[at + 8..at + 16 + len],
            connection,
        ));
        at += 16 + len;
    }
    assert_eq!(at, bytes.len(), "records end with the file");
    // Neighbours of different connections trade places.
    let mut order: Vec<usize> = (0..records.len()).collect();
    let mut swapped = 0;
    let mut i = 0;
    while i + 1 < order.len() {
        if records[order[i]].2 != records[order[i + 1]].2 {
            order.swap(i, i + 1);
            swapped += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    assert!(swapped > 100, "only {swapped} swaps");
    let mut shuffled = bytes[..24].to_vec();
    for (slot, &from) in order.iter().enumerate() {
        shuffled.extend_from_slice(records[slot].0);
        shuffled.extend_from_slice(records[from].1);
    }
    let shuffled = temp(&dir, "shuffled.pcap", &shuffled);
    let (code, report) = diff(&original, &shuffled);
    assert_eq!(
        code,
        0,
        "{}",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

/// Archives compare map by map: the same archive is the same; another
/// session differs in map 1, and its map 2 is only in the old one.
#[test]
fn archives_compare_map_by_map() {
    let e = root("corpus/archive/E_map_change.tar.bz2");
    let f = root("corpus/archive/F_crash_truncated.tar");
    let (code, report) = diff(&e, &e);
    assert_eq!(
        (code, &report["format"], &report["same"]),
        (0, &"archive".into(), &true.into())
    );
    assert_eq!(report["maps"].as_array().unwrap().len(), 2);
    let (code, report) = diff(&e, &f);
    assert_eq!(code, 1);
    let maps = report["maps"].as_array().unwrap();
    assert_eq!(
        (&maps[0]["present"], &maps[0]["same"]),
        (&"both".into(), &false.into())
    );
    assert!(
        !maps[0]["differences"].as_array().unwrap().is_empty(),
        "{}",
        maps[0]
    );
    assert_eq!(maps[1]["present"], "old_only");
}

/// A small teehistorian recording made through the crate's own
/// [`Recorder`]: `players` characters walk for `ticks` ticks (`step(cid,
/// tick)` is each one's x), each with a DDNet connection UUID; the
/// wall-clock fields come from `clock` (start time, game UUIDs, the
/// connection UUIDs' seed).
fn recording(players: i32, ticks: i32, clock: u64, step: impl Fn(i32, i32) -> i32) -> Vec<u8> {
    use teeoracle::teehistorian::{Ex, Header, HeaderInfo, Recorder};
    let uuid = |n: u64| uuid::Uuid::from_u64_pair(clock, n).to_string();
    let header = Header::from_info(HeaderInfo {
        version: 2,
        game_uuid: Some(uuid(1)),
        prev_game_uuid: Some(uuid(2)),
        server_version: Some("DDNet 16.4".into()),
        start_time: Some(format!("2025-01-01 00:00:{:02} +0000", clock % 60)),
        server_name: Some("test".into()),
        map_name: Some("dm1".into()),
        prng_description: Some(format!("seed {clock}")),
        ..Default::default()
    });
    let mut rec = Recorder::new(&header);
    rec.tick(1);
    for cid in 0..players {
        rec.record_player_join(cid, teeoracle::packet::Version::V06);
        rec.record_ex(Ex::Ddnetver {
            cid,
            connection_id: uuid::Uuid::from_u64_pair(clock, 100 + cid as u64),
            version: 16040,
            version_str: "DDNet 16.4".into(),
        });
    }
    for tick in 2..ticks + 2 {
        rec.tick(tick);
        for cid in 0..players {
            rec.record_player(cid, step(cid, tick), 1000 + 64 * cid)
                .unwrap();
        }
    }
    rec.finish();
    rec.into_bytes()
}

/// Two runs of one scenario differ only in wall-clock things (start time,
/// game UUIDs, PRNG description, connection UUIDs): the diff is empty, and
/// says what it left out; `--keep` and `--no-default-ignores` bring them
/// back.
#[test]
fn two_runs_differing_only_in_wall_clock_fields_are_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let walk = |cid: i32, tick: i32| 100 * cid + 2 * tick;
    let a = temp(&dir, "a.teehistorian", &recording(4, 50, 1, walk));
    let b = temp(&dir, "b.teehistorian", &recording(4, 50, 2, walk));
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (code, report) = diff(&a, &b);
    assert_eq!(code, 0, "wall-clock fields were compared: {report:#}");
    assert_eq!(report["same"], true, "{report:#}");
    let ignored: Vec<&str> = report["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for name in ["start_time", "game_uuid", "ddnetver.connection_id"] {
        assert!(ignored.contains(&name), "{name} not in {ignored:?}");
    }
    let out = common::run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("ignored by default") && l.contains("start_time")),
        "the first line does not list what was ignored: {text}"
    );

    let kept = common::run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--keep",
        "start_time",
    ]);
    let text = String::from_utf8_lossy(&kept.stdout).into_owned();
    assert_eq!(kept.status.code(), Some(1), "{text}");
    assert!(text.contains("header start_time:"), "{text}");
    assert!(
        !text.contains("game_uuid:"),
        "only start_time was kept: {text}"
    );
    let all = common::run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--no-default-ignores",
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_slice(&all.stdout).unwrap();
    assert_eq!(all.status.code(), Some(1), "{report:#}");
    assert_eq!(
        report["summary"]["ddnetver"]["changed"], 4,
        "each connection UUID differs: {report:#}"
    );
}

/// A real change stands out: one character walks differently from tick 20
/// on; the headline names the tick, the cid and both positions, and the
/// movement summary counts one character and the ticks it differed.
#[test]
fn a_character_that_moves_differently_is_the_headline() {
    let dir = tempfile::tempdir().unwrap();
    let a = temp(
        &dir,
        "a.teehistorian",
        &recording(3, 40, 1, |cid, tick| 100 * cid + 2 * tick),
    );
    let b = temp(
        &dir,
        "b.teehistorian",
        &recording(3, 40, 1, |cid, tick| {
            100 * cid + 2 * tick + if cid == 2 && tick >= 20 { tick - 19 } else { 0 }
        }),
    );
    let (code, report) = diff(&a, &b);
    assert_eq!(code, 1, "{report:#}");
    let m = &report["movement"];
    assert_eq!(
        (&m["first"]["tick"], &m["first"]["id"]),
        (&20.into(), &2.into()),
        "{m:#}"
    );
    assert_eq!(m["first"]["old"], serde_json::json!([240, 1128]), "{m:#}");
    assert_eq!(m["first"]["new"], serde_json::json!([241, 1128]), "{m:#}");
    assert_eq!(
        (&m["characters"], &m["ticks"]),
        (&1.into(), &22.into()),
        "{m:#}"
    );
    let out = common::run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "first divergence: tick 20 (0:00.40), cid 2, position (240,1128) -> (241,1128)"
        ),
        "{text}"
    );
    assert!(
        text.contains("movement: 1 character moved differently, at 22 ticks"),
        "{text}"
    );
}

/// Two recordings that differ everywhere: the report keeps the first
/// `--max-differences` in full and counts every one.
#[test]
fn differences_past_the_bound_are_counted_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let a = temp(&dir, "a.teehistorian", &recording(8, 200, 1, |c, t| c + t));
    let b = temp(
        &dir,
        "b.teehistorian",
        &recording(8, 200, 1, |c, t| c + 3 * t),
    );
    let out = common::run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "json",
        "--max-differences",
        "10",
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let kept = report["differences"].as_array().unwrap().len();
    assert_eq!(kept, 10, "{report:#}");
    // Every tick from 3 on moves each of the 8 characters differently.
    let total = report["total_differences"].as_u64().unwrap();
    assert_eq!(
        report["summary"]["player_diff"]["changed"]
            .as_u64()
            .unwrap(),
        8 * 199,
        "{:#}",
        report["summary"]
    );
    assert!(total >= 8 * 199, "{total}");
    // The default keeps the same count.
    let (_, all) = diff(&a, &b);
    assert_eq!(all["total_differences"].as_u64(), Some(total));
    assert_eq!(all["summary"], report["summary"]);
    let out = common::run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--max-differences",
        "10",
    ]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("--format json lists the first 10; --max-differences N keeps more"),
        "{text}"
    );
}

/// `diff OLD_DIR NEW_DIR` pairs teehistorian files by their server order
/// (the prev_game_uuid chain), whatever their names, and says which
/// pairs it made and what is unpaired.
#[test]
fn folders_pair_recordings_by_content_not_names() {
    use teeoracle::teehistorian::{Header, HeaderInfo, Recorder};
    let file = |uuid: &str, prev: Option<&str>, map: &str, walk: i32| {
        let header = Header::from_info(HeaderInfo {
            version: 2,
            game_uuid: Some(uuid.into()),
            prev_game_uuid: prev.map(str::to_string),
            start_time: Some("2025-01-01 00:00:00 +0000".into()),
            map_name: Some(map.into()),
            ..Default::default()
        });
        let mut rec = Recorder::new(&header);
        for tick in 1..20 {
            rec.tick(tick);
            rec.record_player(0, walk * tick, 0).unwrap();
        }
        rec.finish();
        rec.into_bytes()
    };
    let old = tempfile::tempdir().unwrap();
    let new = tempfile::tempdir().unwrap();
    let u = |n: u8| format!("00000000-0000-4000-8000-0000000000{n:02}");
    // Old: UUID-named files, written in a shuffled order.
    std::fs::write(
        old.path().join("f3.teehistorian"),
        file(&u(3), Some(&u(2)), "ctf1", 1),
    )
    .unwrap();
    std::fs::write(
        old.path().join("a1.teehistorian"),
        file(&u(2), Some(&u(1)), "dm2", 1),
    )
    .unwrap();
    std::fs::write(
        old.path().join("c7.teehistorian"),
        file(&u(1), None, "dm1", 1),
    )
    .unwrap();
    std::fs::copy(
        root("corpus/demo/synthetic/chat.demo"),
        old.path().join("teeoracle.demo"),
    )
    .unwrap();
    std::fs::write(old.path().join("server.log"), "log").unwrap();
    // New: named by role; the second map's character walks differently.
    std::fs::write(
        new.path().join("server-1.teehistorian"),
        file(&u(11), None, "dm1", 1),
    )
    .unwrap();
    std::fs::write(
        new.path().join("server-2.teehistorian"),
        file(&u(12), Some(&u(11)), "dm2", 2),
    )
    .unwrap();
    std::fs::write(
        new.path().join("server-3.teehistorian"),
        file(&u(13), Some(&u(12)), "ctf1", 1),
    )
    .unwrap();
    let (code, report) = diff(old.path(), new.path());
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["format"], "folder");
    let pairs: Vec<(String, String, String, bool)> = report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["role"].as_str().unwrap().to_string(),
                p["old"].as_str().unwrap().to_string(),
                p["new"].as_str().unwrap().to_string(),
                p["same"].as_bool().unwrap(),
            )
        })
        .collect();
    let want =
        |r: &str, o: &str, n: &str, same: bool| (r.to_string(), o.to_string(), n.to_string(), same);
    assert_eq!(
        pairs,
        [
            want(
                "teehistorian #1",
                "c7.teehistorian",
                "server-1.teehistorian",
                true
            ),
            want(
                "teehistorian #2",
                "a1.teehistorian",
                "server-2.teehistorian",
                false
            ),
            want(
                "teehistorian #3",
                "f3.teehistorian",
                "server-3.teehistorian",
                true
            ),
        ],
        "{report:#}"
    );
    let unpaired = report["unpaired"].as_array().unwrap();
    assert_eq!(unpaired.len(), 1, "{report:#}");
    assert_eq!(
        (&unpaired[0]["side"], &unpaired[0]["path"]),
        (&"old".into(), &"teeoracle.demo".into())
    );
    let out = common::run(&[
        "diff",
        old.path().to_str().unwrap(),
        new.path().to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("teehistorian #2: a1.teehistorian <-> server-2.teehistorian"),
        "{text}"
    );
    assert!(text.contains("only in "), "{text}");
}

/// A capture's diff is per map: ticks restart at each MAP_CHANGE, so a
/// capture of two maps reads as two segments, and a change on the second
/// map is named there (by its own tick), not merged into the first map's
/// last tick.
#[test]
fn a_capture_is_compared_map_by_map() {
    let dir = tempfile::tempdir().unwrap();
    let original = root("corpus/packet/ddnet-20.1/E_map_change.pcap");
    let (code, report) = diff(&original, &original);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["segments"], serde_json::json!([2, 2]), "{report:#}");
    // The remote-console command list is sent again on the second map:
    // change the last copy of one of its help texts.
    let mut bytes = std::fs::read(&original).unwrap();
    let text = b"Gives a laser to you";
    let at = bytes.windows(text.len()).rposition(|w| w == text).unwrap();
    bytes[at] = b'L';
    let changed = temp(&dir, "changed.pcap", &bytes);
    let (code, report) = diff(&original, &changed);
    let d = only_difference(code, &report);
    assert_eq!(
        (&d["segment"], &d["category"], &d["change"]),
        (&1.into(), &"s2c:RCON_CMD_ADD".into(), &"changed".into()),
        "{d:#}"
    );
    let out = common::run(&[
        "diff",
        original.to_str().unwrap(),
        changed.to_str().unwrap(),
    ]);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        shown.contains("first difference at map 2, tick "),
        "{shown}"
    );
}

/// `check --baseline` pairs a folder's recordings by role, as `diff
/// OLD_DIR NEW_DIR` does: a run whose files have other names (the game's
/// random UUIDs) and whose folder has another name is the same as its
/// baseline, and a change on the second map is named by that role.
#[test]
fn check_baselines_pair_recordings_by_role() {
    use teeoracle::teehistorian::{Header, HeaderInfo, Recorder};
    // `ticks` decides the verdict's counts, which a baseline compares.
    let file = |uuid: &str, prev: Option<&str>, ticks: i32| {
        let header = Header::from_info(HeaderInfo {
            version: 2,
            game_uuid: Some(uuid.into()),
            prev_game_uuid: prev.map(str::to_string),
            start_time: Some("2025-01-01 00:00:00 +0000".into()),
            map_name: Some("dm1".into()),
            ..Default::default()
        });
        let mut rec = Recorder::new(&header);
        for tick in 1..ticks {
            rec.tick(tick);
            rec.record_player(0, tick, 0).unwrap();
        }
        rec.finish();
        rec.into_bytes()
    };
    let u = |n: u8| format!("00000000-0000-4000-8000-0000000000{n:02}");
    let top = tempfile::tempdir().unwrap();
    let (old, same, changed) = (
        top.path().join("old"),
        top.path().join("same"),
        top.path().join("changed"),
    );
    for d in [&old, &same, &changed] {
        std::fs::create_dir(d).unwrap();
    }
    // The old run: named by role. The new runs: named by UUID, in an
    // order their names do not give (`b` is the first map).
    std::fs::write(old.join("server-1.teehistorian"), file(&u(1), None, 20)).unwrap();
    std::fs::write(
        old.join("server-2.teehistorian"),
        file(&u(2), Some(&u(1)), 20),
    )
    .unwrap();
    std::fs::write(same.join("b.teehistorian"), file(&u(11), None, 20)).unwrap();
    std::fs::write(same.join("a.teehistorian"), file(&u(12), Some(&u(11)), 20)).unwrap();
    std::fs::write(changed.join("b.teehistorian"), file(&u(21), None, 20)).unwrap();
    std::fs::write(
        changed.join("a.teehistorian"),
        file(&u(22), Some(&u(21)), 25),
    )
    .unwrap();
    let base = top.path().join("base.json");
    let saved = common::run(&["check", old.to_str().unwrap(), "--format", "json"]);
    assert_eq!(saved.status.code(), Some(0), "{saved:?}");
    let doc: Value = serde_json::from_slice(&saved.stdout).unwrap();
    let role = |name: &str| doc["roles"][old.join(name).display().to_string()].clone();
    assert_eq!(role("server-1.teehistorian"), "teehistorian #1", "{doc}");
    assert_eq!(role("server-2.teehistorian"), "teehistorian #2", "{doc}");
    std::fs::write(&base, &saved.stdout).unwrap();
    let against = |dir: &Path| {
        let out = common::run(&[
            "check",
            dir.to_str().unwrap(),
            "--baseline",
            base.to_str().unwrap(),
        ]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code(), text)
    };
    let (code, text) = against(&same);
    assert_eq!(code, Some(0), "the same run under other names:\n{text}");
    let second = format!(
        "teehistorian #2: {} -> {}",
        old.join("server-2.teehistorian").display(),
        same.join("a.teehistorian").display()
    );
    assert!(text.contains("paired by role (2)"), "{text}");
    assert!(text.contains(&second), "{second} not in:\n{text}");
    let (code, text) = against(&changed);
    assert_eq!(code, Some(1), "the second map changed:\n{text}");
    assert!(text.contains("1 file(s) differ"), "{text}");
    let line = format!(
        "changed teehistorian #2: {} -> {}",
        old.join("server-2.teehistorian").display(),
        changed.join("a.teehistorian").display()
    );
    assert!(text.contains(&line), "{line} not in:\n{text}");
    assert!(text.contains("counts.last_tick: 19 -> 24"), "{text}");
}

/// Two folders without a recording compare nothing: a failure, never
/// "the same".
#[test]
fn folders_without_recordings_are_not_the_same() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(a.path().join("readme.txt"), "not a recording").unwrap();
    let out = common::run(&[
        "diff",
        a.path().to_str().unwrap(),
        b.path().to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("nothing compared"), "{said}");
}

#[test]
fn a_savegame_s_random_uuids_are_not_a_difference() {
    // The same save in two runs carries another game UUID in its text
    // (and another random save id; the header's game_uuid is ignored
    // anyway): by default the same, kept different.
    let path = root("corpus/teehistorian/ddnet-16.4/phys_load_refused_tsunami.teehistorian");
    let old = std::fs::read(&path).unwrap();
    let uuid = b"60dd88eb-0d07-4a52-8a88-36bb1bd1ad94";
    let mut new = old.clone();
    let mut replaced = 0;
    for i in 0..new.len() - uuid.len() {
        if &new[i..i + uuid.len()] == uuid {
            new[i..i + uuid.len()].copy_from_slice(b"e30d2b6f-81ba-4be7-a0ca-d3b305e1727b");
            replaced += 1;
        }
    }
    assert_eq!(
        replaced, 3,
        "the header and both members carry the game's UUID"
    );
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        temp(&dir, "a.teehistorian", &old),
        temp(&dir, "b.teehistorian", &new),
    );
    let (code, report) = diff(&a, &b);
    assert_eq!(
        (code, &report["same"]),
        (0, &Value::Bool(true)),
        "{report:#}"
    );
    let kept = common::run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--keep",
        "savegame.uuids",
    ]);
    assert_eq!(
        kept.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&kept.stdout)
    );
}
