//! The command-line contract scripts rely on: `check` fails when it checked
//! nothing or when a file is not what its name says, JSON documents and
//! JSON Lines carry `kind` and the schema version, `-` is standard input,
//! compressed files are read through their compression, and warnings can
//! be made failures.

mod common;

use common::run;
use std::io::Write;
use std::path::{Path, PathBuf};

const A_TH: &str = "corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian";
const F_TH: &str = "corpus/teehistorian/ddnet-20.1/F_crash_truncated.teehistorian";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("teeoracle-contract-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn a_check_that_checked_nothing_fails() {
    let dir = scratch("empty");
    let out = run(&["check", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("nothing was checked"),
        "{}",
        text(&out.stderr)
    );
    // Only unrecognised files in a folder: skipped, and still nothing checked.
    std::fs::write(dir.join("notes.txt"), "not a recording").unwrap();
    assert_eq!(
        run(&["check", dir.to_str().unwrap()]).status.code(),
        Some(1)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_named_file_nothing_recognises_fails_and_a_misnamed_one_too() {
    let dir = scratch("named");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "not a recording").unwrap();
    let out = run(&["check", notes.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("not a file of any format teeoracle checks"),
        "{stdout}"
    );
    // A .demo (found by walking a folder) whose bytes are a teehistorian
    // file is checked as what it is and fails for its name; one whose
    // bytes are nothing fails.
    std::fs::write(dir.join("looks.demo"), read(A_TH)).unwrap();
    std::fs::write(dir.join("broken.demo"), b"TWDEMX\0\x06garbage").unwrap();
    let out = run(&["check", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    let by_name = |n: &str| {
        files
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(n))
            .unwrap()
    };
    let looks = by_name("looks.demo");
    assert_eq!(
        (&looks["format"], &looks["status"]),
        (&"teehistorian".into(), &"fail".into())
    );
    assert_eq!(looks["findings"][0]["code"], "not_this_format");
    assert_eq!(looks["counts"]["records"], 970);
    let broken = by_name("broken.demo");
    assert_eq!(
        (&broken["format"], &broken["status"]),
        (&"demo".into(), &"fail".into())
    );
    assert_eq!(broken["findings"][0]["code"], "not_this_format");
    assert_eq!(by_name("notes.txt")["status"], "skip");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_json_and_jsonl_carry_kind_and_schema_version() {
    let out = run(&["check", A_TH, F_TH, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&doc["kind"], &doc["schema_version"]),
        (&"check".into(), &1.into())
    );
    assert_eq!(doc["totals"]["passed"], 2);
    assert_eq!(doc["totals"]["warned"], 1);
    let f = &doc["files"][1];
    assert_eq!(f["status"], "warn");
    assert_eq!(f["roundtrip"]["status"], "exact");
    assert_eq!(f["findings"][0]["code"], "truncated");
    assert_eq!(f["findings"][0]["offset"], 27206);
    assert_eq!(f["counts"]["records"], 3501);

    let out = run(&["check", A_TH, F_TH, "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["start", "file", "file", "end"]);
    assert_eq!(lines[0]["schema_version"], 1);
    assert_eq!(
        lines[2],
        doc["files"][1]
            .as_object()
            .map(|o| {
                let mut o = o.clone();
                o.insert("kind".into(), "file".into());
                serde_json::Value::Object(o)
            })
            .unwrap()
    );
}

#[test]
fn deny_warnings_fails_a_file_that_passes_with_a_warning() {
    assert_eq!(run(&["check", F_TH]).status.code(), Some(0));
    let out = run(&["check", F_TH, "--deny-warnings"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("status") && stdout.contains("FAIL"),
        "{stdout}"
    );
}

#[test]
fn dash_is_standard_input_and_compressed_files_are_read_through() {
    let bytes = read(A_TH);
    let from_file = run(&["check", A_TH, "--format", "json"]);
    let from_stdin = common::run_stdin(&["check", "-", "--format", "json"], &bytes);
    assert_eq!(
        from_stdin.status.code(),
        Some(0),
        "{}",
        text(&from_stdin.stderr)
    );
    let a: serde_json::Value = serde_json::from_slice(&from_file.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&from_stdin.stdout).unwrap();
    assert_eq!(b["files"][0]["path"], "-");
    assert_eq!(a["files"][0]["counts"], b["files"][0]["counts"]);
    assert_eq!(a["files"][0]["status"], b["files"][0]["status"]);

    // A gzipped recording is checked through its compression, from a file
    // and from standard input, by the same pipeline.
    let dir = scratch("gz");
    let gz = dir.join("A.teehistorian.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&bytes).unwrap();
    let gz_bytes = enc.finish().unwrap();
    std::fs::write(&gz, &gz_bytes).unwrap();
    for out in [
        run(&["check", gz.to_str().unwrap(), "--format", "json"]),
        common::run_stdin(&["check", "-", "--format", "json"], &gz_bytes),
    ] {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = &c["files"][0];
        assert_eq!(
            (&f["format"], &f["compression"]),
            (&"teehistorian".into(), &"gzip".into())
        );
        assert_eq!(f["counts"], a["files"][0]["counts"]);
    }
    // A cut gzip stream fails, but what it holds before the cut is still
    // decoded, counted and replayed, and the error names the byte of the
    // decompressed data where the input stops.
    std::fs::write(&gz, &gz_bytes[..gz_bytes.len() / 2]).unwrap();
    let out = run(&["check", gz.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &c["files"][0];
    assert_eq!(
        (&f["format"], &f["status"]),
        (&"teehistorian".into(), &"fail".into())
    );
    let records = f["counts"]["records"].as_u64().unwrap();
    assert!(records > 100 && records < 970, "{f}");
    assert_eq!(
        (&f["error"]["kind"], &f["error"]["cause"]),
        (&"read_failed".into(), &"cut".into())
    );
    assert!(f["error"]["offset"].as_u64().unwrap() > 3000, "{f}");
    std::fs::remove_dir_all(&dir).unwrap();

    // The per-format commands read `-` too.
    let out = common::run_stdin(&["teehistorian", "stats", "-", "--format", "json"], &bytes);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["records"], 970);
}

#[test]
fn every_argument_has_a_help_line() {
    // `--help` of every command lists each argument with a description.
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let mut stack = vec![Vec::<String>::new()];
    let mut seen = 0;
    while let Some(path) = stack.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let help = text(&out.stdout);
        seen += 1;
        let mut section = "";
        for line in help.lines() {
            if line.ends_with(':') && !line.starts_with(' ') {
                section = line;
                continue;
            }
            let entry = line.trim_start();
            if entry.is_empty() || !line.starts_with("  ") || line.starts_with("          ") {
                continue;
            }
            match section {
                "Commands:" => {
                    let name = entry.split_whitespace().next().unwrap();
                    if name != "help" {
                        let mut sub = path.clone();
                        sub.push(name.to_string());
                        stack.push(sub);
                    }
                }
                "Arguments:" | "Options:" => {
                    // `  -o, --output <OUTPUT>  Write ...`: a description
                    // after two spaces (or on the next line, indented).
                    let described = entry
                        .split_once("  ")
                        .is_some_and(|(_, rest)| !rest.trim().is_empty());
                    let next_is_description = help
                        .lines()
                        .skip_while(|l| *l != line)
                        .nth(1)
                        .is_some_and(|l| l.starts_with("          "));
                    assert!(
                        described || next_is_description,
                        "{args:?}: {line:?} has no help line"
                    );
                }
                _ => {}
            }
        }
    }
    assert!(seen > 25, "walked {seen} commands");
}
