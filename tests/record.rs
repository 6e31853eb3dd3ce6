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

fn can_record() -> Result<(), String> {
    if !Path::new(SERVER).exists() {
        return Err(format!(
            "{SERVER} is not installed (apt-get install ddnet-server ddnet-data)"
        ));
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
    if let Err(why) = can_record() {
        eprintln!("SKIPPED: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/record/join_move_leave.ron");
    let run = common::run(&[
        "record",
        "--server",
        SERVER,
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
    // The bots' capture: both connections, nothing DDNet drops.
    let pcap = common::run(&["pcap", "check", out.join("bots.pcapng").to_str().unwrap()]);
    assert_eq!(pcap.status.code(), Some(0));
}
