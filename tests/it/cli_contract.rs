//! The command-line contract scripts rely on: `check` fails when it checked
//! nothing or when a file is not what its name says, JSON documents and
//! JSON Lines carry `kind` and the schema version, `-` is standard input,
//! compressed files are read through their compression, and warnings can
//! be made failures.

use crate::common;

use common::{run, text};
use std::io::Write;
use std::path::Path;
use teeoracle::demo::Demo;

const A_TH: &str = "corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian";
const F_TH: &str = "corpus/teehistorian/ddnet-20.1/F_crash_truncated.teehistorian";

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn a_check_that_checked_nothing_fails() {
    let dir = common::scratch("contract-empty");
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
    let dir = common::scratch("contract-named");
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
    let dir = common::scratch("contract-gz");
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

const DM1_MAP: &str = "corpus/map/ddnet-data/dm7.map";
const A_DEMO: &str = "corpus/demo/ddnet-20.1/A_join_move_leave.demo";

#[test]
fn map_info_lists_what_the_physics_model_does_not_cover() {
    // The map a DDNet bench demo embeds: checkpoint movers (TILE_CP).
    let out = run(&[
        "map",
        "info",
        "corpus/demo/ddnet-bench/Multeasymap_bench.demo",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = doc["not_modelled"].as_array().expect("a list");
    let names: Vec<&str> = listed
        .iter()
        .filter_map(|f| f["feature"].as_str())
        .collect();
    assert_eq!(
        names,
        ["TILE_CP in the game layer", "TILE_CP in the front layer"]
    );
    assert_eq!(listed[0]["count"], 13);
    assert_eq!(listed[0]["first"], serde_json::json!([511, 58]));
    assert_eq!(
        listed[0]["status"],
        serde_json::json!({"16.4": "detected", "20.1": "detected"})
    );
    // DDNet 20.1's coverage.map: its doors, switches, time tiles and
    // crazy shotguns are modelled.
    let out = run(&[
        "map",
        "info",
        "corpus/map/ddnet-20.1/coverage.map",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["not_modelled"], serde_json::json!([]));
    // Debian's (16.4's) coverage.map: the jetpack and hit tiles are
    // modelled, and nothing else is missing.
    let out = run(&[
        "map",
        "info",
        "corpus/map/ddnet-data/coverage.map",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["not_modelled"], serde_json::json!([]));
    // A map the model covers whole lists nothing.
    let out = run(&["map", "info", DM1_MAP, "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["not_modelled"], serde_json::json!([]));
}

#[test]
fn map_commands_read_a_map_or_the_map_a_demo_embeds() {
    let out = run(&["map", "info", DM1_MAP, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&doc["kind"], &doc["schema_version"]),
        (&"map_info".into(), &1.into())
    );
    assert_eq!(doc["embedded_at"], serde_json::Value::Null);
    assert_eq!(doc["check"]["status"], "pass");
    let game: Vec<&serde_json::Value> = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["layers"].as_array().unwrap())
        .filter(|l| l["physics"] == "game")
        .collect();
    assert_eq!(game.len(), 1, "{doc}");

    // A demo: its embedded map, and the text says so.
    let out = run(&["map", "info", A_DEMO]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first = text(&out.stdout).lines().next().unwrap().to_string();
    assert!(
        first.contains("the map the demo embeds, at byte"),
        "{first}"
    );
    let out = run(&["map", "dump", A_DEMO, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "map_dump");
    let demo_bytes = read(A_DEMO);
    let demo = Demo::decode(&demo_bytes).unwrap().0;
    let at = doc["embedded_at"].as_u64().unwrap() as usize;
    assert_eq!(&demo_bytes[at..at + demo.map.len()], demo.map);
    // Tiles are only counted unless asked for.
    assert!(doc["tiles"][0].get("tiles").is_none());
    assert!(doc["tiles"][0]["counts"].is_object());

    // `map check` is `check` on the map; for a demo, on its map.
    let out = run(&["map", "check", A_DEMO, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "check");
    assert_eq!(doc["files"][0]["format"], "map");
    assert_eq!(doc["files"][0]["path"], format!("{A_DEMO}#map"));
    // A file that is neither a map nor a demo.
    let out = run(&["map", "check", A_TH]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not a map"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn map_commands_fail_a_truncated_map_with_its_offset_and_bad_usage_is_2() {
    let dir = common::scratch("contract-map-cut");
    let cut = dir.join("cut.map");
    std::fs::write(&cut, &read(DM1_MAP)[..100]).unwrap();
    for command in ["info", "dump", "check"] {
        let out = run(&["map", command, cut.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "map {command}");
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(all.contains("at byte "), "map {command}: {all}");
    }
    let out = run(&["map", "render", cut.to_str().unwrap(), "-o", "x.png"]);
    assert_eq!(out.status.code(), Some(1));
    // Bad usage: no such layer, a missing argument, a scale out of range.
    let out = run(&["map", "dump", DM1_MAP, "--tiles=9.9"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(run(&["map", "info"]).status.code(), Some(2));
    let png = dir.join("a.png");
    let png = png.to_str().unwrap();
    assert_eq!(
        run(&["map", "render", DM1_MAP, "-o", png, "--scale", "0"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["demo", "map", A_DEMO]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn demo_map_writes_the_embedded_map_byte_for_byte() {
    let dir = common::scratch("contract-demo-map");
    let out_map = dir.join("out.map");
    let out = run(&["demo", "map", A_DEMO, "-o", out_map.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read(&out_map).unwrap();
    let demo_bytes = read(A_DEMO);
    let demo = Demo::decode(&demo_bytes).unwrap().0;
    assert_eq!(written, demo.map);
    assert_eq!(crc32fast::hash(&written), demo.header.map_crc);
    let shown = text(&out.stdout);
    assert!(
        shown.contains(&format!(
            "CRC-32:  {:08x} (as the header says)",
            demo.header.map_crc
        )),
        "{shown}"
    );
    // A demo whose header's CRC is not its map's: written, and exit 1.
    let mut bytes = read(A_DEMO);
    bytes[140] ^= 1;
    let bad = dir.join("bad.demo");
    std::fs::write(&bad, &bytes).unwrap();
    let out = run(&[
        "demo",
        "map",
        bad.to_str().unwrap(),
        "-o",
        out_map.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("NOT as the header says"));
    assert!(
        text(&out.stderr).contains("map CRC"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn diff_compares_two_maps_by_meaning() {
    let out = run(&["diff", DM1_MAP, DM1_MAP, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&doc["format"], &doc["same"]),
        (&"map".into(), &true.into())
    );
    let other = "corpus/map/ddnet-data/ctf1.map";
    let out = run(&["diff", DM1_MAP, other]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("(map, "),
        "{}",
        text(&out.stdout)
    );
    // A map and a demo are not one format.
    assert_eq!(run(&["diff", DM1_MAP, A_DEMO]).status.code(), Some(2));
}

#[test]
fn map_render_writes_the_same_png_every_time() {
    let dir = common::scratch("contract-render");
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    for p in [&a, &b] {
        let out = run(&["map", "render", DM1_MAP, "-o", p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let png = std::fs::read(&a).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(png, std::fs::read(&b).unwrap());
    // The picture reviewed (docs/commands.md's legend: dm7's walls dark
    // grey, air white, 9 green spawns, light grey pickups), by its hash.
    use sha2::Digest;
    assert_eq!(
        hex::encode(sha2::Sha256::digest(&png)),
        "d8c151267aead640bee14fd2f0c37ae7582b3a439d7a9400a5a8bad200552914"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

const E2_TH: &str = "corpus/teehistorian/ddnet-20.1/E_map_change.2_ctf1.teehistorian";

/// `teehistorian simulate` finds the header's map under `--maps`, and
/// `--physics` steps with another version's physics: a divergence there
/// fails (1); a version the simulator does not model is bad usage (2);
/// no map to be found fails (1), never an empty pass.
#[test]
fn simulate_finds_its_map_and_steps_with_the_physics_asked() {
    let ok = run(&[
        "teehistorian",
        "simulate",
        E2_TH,
        "--maps",
        "corpus/demo/ddnet-20.1",
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("2899 of 2899 player-ticks matched"));
    let old = run(&[
        "teehistorian",
        "simulate",
        E2_TH,
        "--maps",
        "corpus/demo/ddnet-20.1",
        "--physics",
        "16.4",
    ]);
    assert_eq!(old.status.code(), Some(1), "{}", text(&old.stderr));
    assert!(text(&old.stdout).contains(
        "divergence at tick 1: cid 1: recorded Some((1712, 1008)), simulated Some((464, 1104))"
    ));
    let bad = run(&[
        "teehistorian",
        "simulate",
        E2_TH,
        "--maps",
        "corpus/demo/ddnet-20.1",
        "--physics",
        "17.0",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let dir = common::scratch("contract-simulate-nomap");
    std::fs::write(dir.join("e2.teehistorian"), read(E2_TH)).unwrap();
    let file = dir.join("e2.teehistorian");
    let none = run(&["teehistorian", "simulate", file.to_str().unwrap()]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        text(&none.stderr).contains("is not among the 0 maps"),
        "{}",
        text(&none.stderr)
    );
}

/// `diff --simulate` compares two files' simulated worlds: a file with
/// itself is the same (0); under another version's physics its world
/// differs from the first tick the physics parts (1, and where); two
/// files that are not teehistorian files are bad usage (2).
#[test]
fn diff_compares_simulated_worlds() {
    let same = run(&[
        "diff",
        E2_TH,
        E2_TH,
        "--simulate",
        "--maps",
        "corpus/demo/ddnet-20.1",
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));
    let changed = run(&[
        "diff",
        E2_TH,
        E2_TH,
        "--simulate",
        "--maps",
        "corpus/demo/ddnet-20.1",
        "--physics",
        "16.4",
        "--format",
        "json",
    ]);
    assert_eq!(changed.status.code(), Some(1), "{}", text(&changed.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&changed.stdout).unwrap();
    assert_eq!(doc["format"], "simulated");
    assert_eq!(doc["header"][0]["field"], "physics");
    let first = &doc["differences"][0];
    assert_eq!(
        (first["tick"].as_i64(), first["category"].as_str()),
        (Some(1), Some("character"))
    );
    let demos = run(&[
        "diff",
        "corpus/demo/ddnet-20.1/A_join_move_leave.demo",
        "corpus/demo/ddnet-20.1/A_join_move_leave.demo",
        "--simulate",
    ]);
    assert_eq!(demos.status.code(), Some(2));
}

#[test]
fn teehistorian_demo_writes_whole_demos_or_nothing() {
    let dir = common::scratch("contract-th-demo");
    let out_demo = dir.join("a.demo");
    let out = out_demo.to_str().unwrap();
    // Bad usage (2): half a range, a range backwards, a range and a player.
    for args in [
        vec!["--from", "100"],
        vec!["--from", "200", "--to", "100"],
        vec!["--from", "100", "--to", "200", "--player", "alice"],
    ] {
        let mut all = vec!["teehistorian", "demo", A_TH, "--map", A_DEMO, "-o", out];
        all.extend(args.iter().copied());
        let r = run(&all);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {}", text(&r.stderr));
        assert!(!out_demo.exists(), "{args:?}");
    }
    // A file that does not simulate (1): one message, no partial file,
    // and an existing file is left as it was.
    std::fs::write(&out_demo, b"before").unwrap();
    let cut = dir.join("cut.teehistorian");
    std::fs::write(&cut, &read(A_TH)[..40]).unwrap();
    let r = run(&[
        "teehistorian",
        "demo",
        cut.to_str().unwrap(),
        "--map",
        A_DEMO,
        "-o",
        out,
    ]);
    assert_eq!(r.status.code(), Some(1), "{}", text(&r.stderr));
    assert_eq!(
        text(&r.stderr).trim().lines().count(),
        1,
        "{}",
        text(&r.stderr)
    );
    // Ticks the file does not have (1), and no such player (1).
    for args in [
        vec!["--from", "100000", "--to", "100100"],
        vec!["--player", "nobody"],
    ] {
        let mut all = vec!["teehistorian", "demo", A_TH, "--map", A_DEMO, "-o", out];
        all.extend(args.iter().copied());
        let r = run(&all);
        assert_eq!(r.status.code(), Some(1), "{args:?}: {}", text(&r.stderr));
    }
    assert_eq!(std::fs::read(&out_demo).unwrap(), b"before");
    // A range: the demo covers exactly it, and check passes it.
    let r = run(&[
        "teehistorian",
        "demo",
        A_TH,
        "--map",
        A_DEMO,
        "--from",
        "300",
        "--to",
        "400",
        "-o",
        out,
        "--format",
        "json",
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(doc["kind"], "teehistorian_demo");
    assert_eq!(doc["ticks"], serde_json::json!([300, 400]));
    assert_eq!(doc["snapshots"], 101);
    assert_eq!(doc["map_matches_header"], true);
    assert_eq!(doc["witness"], serde_json::Value::Null);
    assert_eq!(run(&["check", out]).status.code(), Some(0));
    // A witness that is no demo (1): one message naming it, no file.
    let before = std::fs::read(&out_demo).unwrap();
    let mut with = vec!["teehistorian", "demo", A_TH, "--map", A_DEMO, "-o", out];
    let r = run(&[&with[..], &["--witness", A_TH]].concat());
    assert_eq!(r.status.code(), Some(1), "{}", text(&r.stderr));
    let message = text(&r.stderr);
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(message.contains(&format!("{A_TH}: at byte 0")), "{message}");
    assert_eq!(std::fs::read(&out_demo).unwrap(), before);
    // The server's own demo as the witness: a 20.1 file needs nothing of
    // it, and the summary says so.
    with.extend(["--witness", A_DEMO, "--format", "json"]);
    let r = run(&with);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(
        doc["witness"],
        serde_json::json!({"held_inputs": [], "join_answers": []})
    );
    // A player: from its name to the end of its session.
    let r = run(&[
        "teehistorian",
        "demo",
        A_TH,
        "--map",
        A_DEMO,
        "--player",
        "alice",
        "-o",
        out,
        "--format",
        "json",
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(doc["player_cids"], serde_json::json!([0]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_exit_codes_are_checks_and_a_bad_file_stops_nothing() {
    let dir = common::scratch("contract-export");
    let to = dir.join("tables");
    let to_s = to.to_str().unwrap();
    // Bad usage: no --to, or a --to that is a file.
    assert_eq!(run(&["export", A_TH]).status.code(), Some(2));
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(
        run(&["export", A_TH, "--to", file.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
    // A sound file and a truncated one: 0, every table written.
    let out = run(&["export", A_TH, F_TH, "--to", to_s, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "export");
    assert_eq!(doc["export_schema_version"], 2);
    assert_eq!(doc["files"][0]["rows"]["teehistorian_records"], 970);
    for t in teeoracle::export::TABLES {
        assert!(to.join(format!("{}.parquet", t.0)).is_file(), "{}", t.0);
    }
    // A file that does not read and one nothing recognises, named among
    // good ones: exit 1, and the good ones are still exported after them.
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "not a recording").unwrap();
    let gone = dir.join("gone.teehistorian");
    let out = run(&[
        "export",
        notes.to_str().unwrap(),
        gone.to_str().unwrap(),
        A_TH,
        "--to",
        to_s,
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 3, "{doc}");
    assert_eq!(files[0]["status"], "fail");
    assert_eq!(files[1]["status"], "fail");
    assert_eq!(files[2]["rows"]["teehistorian_records"], 970);
    assert_eq!(doc["totals"]["failed"], 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
