//! `teeoracle record` against Debian's DDNet 16.4 server (`ddnet-server`,
//! installed by `.ci/run`): the bots join, move, chat and leave; the
//! teehistorian file, the rcon-started demo and the bots' pcapng are
//! written and check clean, and the teehistorian file has the bots'
//! joins, inputs, chat and drops. Without the server, or where a network
//! namespace cannot be made (not root), the test says why and passes:
//! CI has both.

mod common;

use std::path::Path;

const SERVER: &str = "/usr/games/DDNet-Server";
const TEEWORLDS: &str = "/usr/games/teeworlds-server";

fn can_record(server: &str) -> Result<(), String> {
    if !Path::new(server).exists() {
        return Err(format!("{server} is not installed (see .ci/run)"));
    }
    let ns = std::process::Command::new("unshare")
        .args(["-n", "true"])
        .status();
    if !ns.is_ok_and(|s| s.success()) {
        return Err("`unshare -n` fails here (a network namespace needs root)".into());
    }
    Ok(())
}

#[test]
fn a_scenario_recorded_on_ddnet_16_4_checks_clean() {
    let Some((out, shown, _dir)) = record(SERVER, "join_move_leave.ron") else {
        return;
    };
    // Three recordings, all passing `check`.
    assert!(shown.contains("3 passed"), "{shown}");
    for file in [
        "server.teehistorian",
        "teeoracle.demo",
        "bots.pcapng",
        "server.log",
        "scenario.ron",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    // The server saw what the bots did: joins, their start info (DDNet
    // 16.4 has no player-name extension), inputs, the rcon commands and
    // the drops. Chat is not a message teehistorian records; the demo has
    // it.
    let th = out.join("server.teehistorian");
    let log = common::run(&["teehistorian", "log", th.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&log.stdout).into_owned();
    for line in [
        "join cid=0",
        "join cid=1",
        r#"cmd="record" args=["teeoracle"]"#,
        "drop cid=1",
        "drop cid=0",
        r#"end how="finish""#,
    ] {
        assert!(log.contains(line), "{line}\n{log}");
    }
    let dump = common::run(&["teehistorian", "dump", th.to_str().unwrap()]);
    let dump = String::from_utf8_lossy(&dump.stdout).into_owned();
    assert!(dump.contains("input_new"), "no inputs");
    assert!(dump.contains(r#"Cl_StartInfo name="alice""#), "{dump}");
    let demo = common::run(&["demo", "log", out.join("teeoracle.demo").to_str().unwrap()]);
    let demo = String::from_utf8_lossy(&demo.stdout).into_owned();
    assert!(
        demo.contains("alice: hello from alice")
            || demo.contains(r#""message":"hello from alice""#),
        "{demo}"
    );
    // The capture's times are the run's (pcapng's default resolution is
    // microseconds; the writer's nanoseconds are declared).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let dump = common::run(&[
        "pcap",
        "dump",
        "--format",
        "jsonl",
        out.join("bots.pcapng").to_str().unwrap(),
    ]);
    let first = String::from_utf8_lossy(&dump.stdout)
        .lines()
        .nth(1)
        .unwrap()
        .to_string();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    let time = first["time"].as_f64().unwrap();
    assert!((now - 120.0..=now).contains(&time), "{time} vs {now}");
    // The bots' capture: both connections, nothing DDNet drops.
    let pcap = common::run(&["pcap", "check", out.join("bots.pcapng").to_str().unwrap()]);
    assert_eq!(pcap.status.code(), Some(0));
}

/// Runs `scenario` on `server` into a temporary folder: the folder, what
/// `record` printed, and the folder's owner; `None` (with the reason
/// printed) where it cannot run.
fn record(server: &str, scenario: &str) -> Option<(std::path::PathBuf, String, tempfile::TempDir)> {
    if let Err(why) = can_record(server) {
        eprintln!("SKIPPED: {why}");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/record")
        .join(scenario);
    let run = common::run(&[
        "record",
        "--server",
        server,
        "--scenario",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--seed",
        "1",
    ]);
    let shown = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{shown}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    Some((out, shown, dir))
}

/// Teeworlds 0.7.5 with 0.7 bots: no teehistorian; its demo (version 4,
/// net version 0.7) and the bots' capture check clean, and the server was
/// shut down over the remote console.
#[test]
fn a_scenario_recorded_on_teeworlds_0_7_5_checks_clean() {
    let Some((out, shown, _dir)) = record(TEEWORLDS, "teeworlds_07.ron") else {
        return;
    };
    assert!(
        shown.contains("2 passed (0 with warnings), 0 failed"),
        "{shown}"
    );
    let stats = common::run(&[
        "demo",
        "stats",
        out.join("teeoracle.demo").to_str().unwrap(),
    ]);
    let stats = String::from_utf8_lossy(&stats.stdout).into_owned();
    assert!(
        stats.contains("version:           4 (net version \"0.7 802f1be60a05665f\")"),
        "{stats}"
    );
    let log = std::fs::read_to_string(out.join("server.log")).unwrap();
    assert!(log.contains("rcon='shutdown'"), "{log}");
    assert!(log.contains("hello from alice"), "{log}");
}

/// A 0.7 bot beside a 0.6 one on DDNet (its "sixup" clients).
#[test]
fn a_07_client_beside_a_06_one_on_ddnet() {
    let Some((out, shown, _dir)) = record(SERVER, "mixed_06_07.ron") else {
        return;
    };
    assert!(
        shown.contains("2 passed (0 with warnings), 0 failed"),
        "{shown}"
    );
    let log = std::fs::read_to_string(out.join("server.log")).unwrap();
    assert!(log.contains("sixup=1") && log.contains("sixup=0"), "{log}");
    let th = common::run(&[
        "teehistorian",
        "log",
        out.join("server.teehistorian").to_str().unwrap(),
    ]);
    let th = String::from_utf8_lossy(&th.stdout).into_owned();
    assert!(th.contains(r#"join cid=1 protocol="0.7""#), "{th}");
    assert!(th.contains(r#"join cid=0 protocol="0.6""#), "{th}");
}
