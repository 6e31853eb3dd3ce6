//! Recording archives on the command line: `archive pack`, `info`,
//! `seek`, `verify`, `log`, `unpack` and `check`, their one-line errors
//! and exit codes, and their JSON reports.

use super::damage::damaged;
use super::{options, recording};
use crate::common::{root, run, text};
use std::fs;
use teeoracle::archive::{Archive, Compression, MemberOutcome, pack};

#[test]
fn cli_pack_info_seek_verify_log_unpack_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e.tar.bz2");
    let o = out.to_str().unwrap();
    let e1 = recording("E_map_change.1_dm1");
    let e2 = recording("E_map_change.2_ctf1");
    let (e1s, e2s) = (e1.to_str().unwrap(), e2.to_str().unwrap());
    let p = run(&["archive", "pack", o, "--every", "5", e2s, e1s]);
    assert_eq!(p.status.code(), Some(0), "{}", text(&p.stderr));
    assert!(
        text(&p.stdout).starts_with("packed 2 map(s)"),
        "{}",
        text(&p.stdout)
    );
    assert_eq!(
        fs::read(&out).unwrap(),
        fs::read(root().join("corpus/archive/E_map_change.tar.bz2")).unwrap()
    );

    let i = run(&["archive", "info", o]);
    assert_eq!(i.status.code(), Some(0));
    assert!(
        text(&i.stdout).contains("(continues map 1)"),
        "{}",
        text(&i.stdout)
    );

    // seek prints exactly what a replay of the recording prints.
    for tick in ["0", "333", "1049"] {
        let s = run(&[
            "archive", "seek", o, "--map", "2", "--tick", tick, "--check",
        ]);
        let r = run(&["teehistorian", "replay", e2s, "--at", tick]);
        assert_eq!(s.status.code(), Some(0), "{}", text(&s.stderr));
        assert_eq!(text(&s.stdout), text(&r.stdout), "tick {tick}");
    }
    let s = run(&[
        "archive", "seek", o, "--map", "2", "--tick", "700", "--format", "json",
    ]);
    let r = run(&[
        "teehistorian",
        "replay",
        e2s,
        "--at",
        "700",
        "--format",
        "json",
    ]);
    assert_eq!(text(&s.stdout), text(&r.stdout));
    assert!(
        text(&s.stderr).contains("from 2/save2.ron (tick 500, byte 13501)"),
        "{}",
        text(&s.stderr)
    );

    let v = run(&["archive", "verify", o]);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v.stdout));
    let stdout = text(&v.stdout);
    assert!(
        stdout.ends_with("2 map(s), 3911 records, 5 checkpoint(s) agree; 0 rebuilt, 0 failed\n"),
        "{stdout}"
    );

    let l = run(&["archive", "log", o, "--map", "1"]);
    assert_eq!(l.status.code(), Some(0));
    assert!(
        text(&l.stdout).contains("cmd=\"change_map\" args=[\"ctf1\"]"),
        "{}",
        text(&l.stdout)
    );

    let u = dir.path().join("u");
    let x = run(&["archive", "unpack", o, u.to_str().unwrap()]);
    assert_eq!(x.status.code(), Some(0), "{}", text(&x.stderr));
    assert_eq!(
        fs::read(u.join("2/demodata.bin")).unwrap(),
        fs::read(&e2).unwrap()
    );
    let again = run(&["archive", "unpack", o, u.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2), "not into a folder with files");

    let c = run(&["check", o]);
    assert_eq!(c.status.code(), Some(0), "{}", text(&c.stdout));
    assert!(
        text(&c.stdout).contains("pass    archive"),
        "{}",
        text(&c.stdout)
    );
}

#[test]
fn cli_errors_are_one_line_with_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let g = golden.to_str().unwrap();
    let e = run(&["archive", "seek", g, "--map", "2", "--tick", "5000"]);
    assert_eq!(e.status.code(), Some(2));
    assert_eq!(
        text(&e.stderr).lines().last().unwrap(),
        format!(
            "teeoracle: usage error: tick 5000 is after the end of map 2 of {g} (last tick 1049)"
        )
    );
    let e = run(&["archive", "seek", g, "--map", "3", "--tick", "5"]);
    assert_eq!(e.status.code(), Some(2));
    let gz = dir.path().join("x.tar.gz");
    let e = run(&[
        "archive",
        "pack",
        gz.to_str().unwrap(),
        recording("A_join_move_leave").to_str().unwrap(),
    ]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        text(&e.stderr).contains(".tar.gz is read only"),
        "{}",
        text(&e.stderr)
    );
    assert!(!gz.exists(), "{} was written", gz.display());

    // A damaged archive fails verify and check, naming the member.
    let (path, _) = damaged(dir.path(), "2/save1.ron", |t| {
        t.replacen("          y: ", "          y: 1", 1)
    });
    let v = run(&["archive", "verify", path.to_str().unwrap()]);
    assert_eq!(v.status.code(), Some(1));
    let line = text(&v.stdout)
        .lines()
        .find(|l| l.starts_with("FAIL"))
        .unwrap()
        .to_string();
    assert!(
        line.contains("2/save1.ron") && line.contains("disagrees with the replay"),
        "{line}"
    );
    let c = run(&["check", path.to_str().unwrap()]);
    assert_eq!(c.status.code(), Some(1));
    assert!(
        text(&c.stdout).contains("FAIL    archive"),
        "{}",
        text(&c.stdout)
    );
    let s = run(&[
        "archive",
        "seek",
        path.to_str().unwrap(),
        "--map",
        "2",
        "--tick",
        "300",
        "--check",
    ]);
    assert_eq!(s.status.code(), Some(1));
    assert_eq!(text(&s.stderr).lines().count(), 1, "{}", text(&s.stderr));
    let stderr = text(&s.stderr);
    assert!(
        stderr.contains("2/save1.ron disagrees with a replay from the start"),
        "{stderr}"
    );

    let not = dir.path().join("not.tar");
    fs::write(&not, vec![7u8; 2000]).unwrap();
    let e = run(&["archive", "verify", not.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(1));
    assert_eq!(text(&e.stderr).lines().count(), 1);
    assert!(
        text(&e.stderr).contains("at byte 0: expected a tar header"),
        "{}",
        text(&e.stderr)
    );
}

/// Every archive command's JSON carries what its text shows.
#[test]
fn cli_json_reports() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let g = golden.to_str().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };

    let info = json(&["archive", "info", g, "--format", "json"]);
    assert_eq!(
        (&info["kind"], &info["schema_version"]),
        (&"archive_info".into(), &1.into())
    );
    assert_eq!(info["compression"], "bzip2");
    assert_eq!(info["indexed"], true);
    assert_eq!(info["top"]["maps"], 2);
    assert_eq!(info["maps"][1]["map_name"], "ctf1");
    assert_eq!(
        info["maps"][1]["prev_game_uuid"],
        info["maps"][0]["game_uuid"]
    );
    let members = info["members"].as_array().unwrap();
    assert_eq!(members[0]["name"], "info.txt");
    for m in members {
        assert!(m["size"].is_u64(), "{m}");
    }

    let verify = json(&["archive", "verify", g, "--format", "json"]);
    assert_eq!(verify["kind"], "archive_verify");
    assert_eq!(verify["ok"], true);
    assert_eq!(verify["totals"]["records"], 3911);
    assert_eq!(verify["totals"]["checkpoints_agree"], 5);
    assert_eq!(verify["maps"][1]["end"]["end"], "finished");
    let demodata = verify["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["member"] == "2/demodata.bin")
        .unwrap();
    assert_eq!(demodata["status"], "ok");
    assert!(
        demodata.get("findings").is_none(),
        "a sound recording has none"
    );

    let out = dir.path().join("f.tar");
    let f = recording("F_crash_truncated");
    let pack = json(&[
        "archive",
        "pack",
        out.to_str().unwrap(),
        "--every",
        "10",
        f.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(pack["kind"], "archive_pack");
    assert_eq!(pack["compression"], "none");
    assert_eq!(pack["every"], 500);
    assert_eq!(
        fs::read(&out).unwrap(),
        fs::read(root().join("corpus/archive/F_crash_truncated.tar")).unwrap()
    );
    assert_eq!(pack["bytes"], fs::metadata(&out).unwrap().len());
    let map = &pack["maps"][0];
    assert_eq!((&map["map"], &map["checkpoints"]), (&1.into(), &2.into()));
    assert_eq!(map["end"]["end"], "truncated");
    assert_eq!(map["findings"][0]["code"], "truncated");

    let log = run(&["archive", "log", g, "--format", "jsonl"]);
    assert_eq!(log.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = text(&log.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["kind"], "start");
    assert_eq!(lines[0]["command"], "archive log");
    let end = lines.last().unwrap();
    assert_eq!(end["kind"], "end");
    assert_eq!(end["events"], lines.len() as u64 - 2);
    let change = lines
        .iter()
        .find(|l| l["event"] == "console" && l["fields"]["cmd"] == "change_map")
        .unwrap();
    assert_eq!(
        (&change["kind"], &change["map"]),
        (&"event".into(), &1.into())
    );
    assert_eq!(change["fields"]["args"][0], "ctf1");
    // The text log has one line per event, under a title per map.
    let text_log = run(&["archive", "log", g]);
    let events = text(&text_log.stdout)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .count();
    assert_eq!(events as u64, lines.len() as u64 - 2);
}

/// A recording the teehistorian pipeline finds fault with is reported by
/// pack, verify and check through the same findings.
#[test]
fn recording_findings_are_the_teehistorian_checks() {
    let dir = tempfile::tempdir().unwrap();
    let input = root().join("corpus/teehistorian/malformed/player_diff_absent.teehistorian");
    let out = dir.path().join("bad.tar");
    let packed = pack(&out, &[input], &options(50, Compression::None)).unwrap();
    let codes: Vec<&str> = packed.maps[0]
        .findings
        .iter()
        .map(|f| f.code.as_str())
        .collect();
    assert_eq!(codes, ["replay"]);
    let report = Archive::open_full(&out).unwrap().verify();
    let v = report
        .verdicts
        .iter()
        .find(|v| v.member == "1/demodata.bin")
        .unwrap();
    assert_eq!(v.status, MemberOutcome::Failed);
    assert_eq!(v.findings, packed.maps[0].findings);
    assert!(v.detail.starts_with("replay: at byte"), "{}", v.detail);
    let verdict = teeoracle::check::check(
        teeoracle::check::Source::bytes("bad.tar", fs::read(&out).unwrap()),
        &Default::default(),
    );
    assert_eq!(verdict.status, teeoracle::check::Status::Fail);
    let f = verdict.headline().unwrap();
    assert_eq!(f.code, teeoracle::report::Code::Replay);
    assert!(
        f.message.starts_with("1/demodata.bin: replay: "),
        "{}",
        f.message
    );
}
