//! `teeoracle record` against Debian's DDNet 16.4 server (`ddnet-server`,
//! installed by `.ci/run`): the bots join, move, chat and leave; the
//! teehistorian file, the rcon-started demo and the bots' pcapng are
//! written and check clean, and the teehistorian file has the bots'
//! joins, inputs, chat and drops. Without the server, or where a network
//! namespace cannot be made (not root), each test is reported ignored,
//! saying why: CI has both, and fails on an ignored test.

#[macro_use]
mod common;

use common::Test;
use libtest_mimic::Arguments;
use std::path::Path;

const TESTS: &[Test] = tests![
    // First, so that its runs (alone) usually come before the others'
    // rather than between them.
    a_changed_setting_stands_out_and_two_runs_are_the_same needs DdnetServer,
    a_scenario_recorded_on_ddnet_16_4_checks_clean needs DdnetServer,
    a_server_that_exits_at_once_fails_the_run needs NetNamespace,
    a_server_that_dies_from_a_signal_fails_the_run_naming_it needs NetNamespace,
    a_missing_map_or_a_bad_protocol_is_bad_usage_before_anything_starts needs DdnetServer,
    a_refused_bot_fails_the_run_naming_it_and_the_servers_reason needs DdnetServer,
    an_expected_refusal_passes needs DdnetServer,
    a_folder_that_holds_files_is_refused_unless_forced needs DdnetServer,
    two_map_changes_leave_no_snapshot_anomaly needs DdnetServer,
    ctrl_c_keeps_what_the_server_wrote needs DdnetServer,
    a_map_change_that_never_comes_fails_the_run needs DdnetServer,
    a_scenario_recorded_on_teeworlds_0_7_5_checks_clean needs TeeworldsServer,
    a_07_client_beside_a_06_one_on_ddnet needs DdnetServer,
    scripted_inputs_and_kill_land_on_their_ticks needs DdnetServer,
    a_campaign_run_records_random_bots_and_prints_its_table needs DdnetServer needs Python3,
    a_recorded_game_replays_identically_on_the_same_build needs DdnetServer,
    a_late_first_join_replays_identically_in_one_json_document needs DdnetServer,
    a_first_join_on_tick_1_replays_identically_keeping_the_ids needs DdnetServer,
    a_replay_on_another_version_of_its_map_is_bad_usage_naming_both needs DdnetServer,
    ctrl_c_stops_a_replay_leaving_no_server needs DdnetServer,
    sixty_four_clients_replay_identically needs DdnetServer,
];

/// The runs wait on the servers' ticks, not on the processor: unless
/// `--test-threads` says otherwise, every test runs at once (the runs
/// that must be alone take [`SERVERS`]' write guard).
fn main() {
    let mut args = Arguments::from_args();
    args.test_threads.get_or_insert(TESTS.len());
    libtest_mimic::run(&args, common::trials("", TESTS)).exit();
}

const SERVER: &str = common::DDNET_SERVER;
const TEEWORLDS: &str = common::TEEWORLDS_SERVER;

fn a_scenario_recorded_on_ddnet_16_4_checks_clean() {
    let (out, shown, _dir) = record(SERVER, "join_move_leave.ron");
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
/// `record` printed, and the folder's owner.
fn record(server: &str, scenario: &str) -> (std::path::PathBuf, String, tempfile::TempDir) {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/record")
        .join(scenario);
    let (out, run, dir) = record_with(server, &scenario, &[]);
    let shown = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{shown}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    (out, shown, dir)
}

/// Runs `record` with `scenario` on `server` into `run/` of a new
/// temporary folder, with `extra` arguments: the folder, the output, the
/// temporary folder.
/// Servers of different tests run side by side (read guards); the runs
/// whose recordings are compared tick for tick run without them (the
/// write guard), as a server that falls behind on a loaded machine
/// catches up several ticks at once.
static SERVERS: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn record_with(
    server: &str,
    scenario: &Path,
    extra: &[&str],
) -> (std::path::PathBuf, std::process::Output, tempfile::TempDir) {
    let _side_by_side = SERVERS.read().unwrap_or_else(|e| e.into_inner());
    record_alone_or_not(server, scenario, extra)
}

fn record_alone_or_not(
    server: &str,
    scenario: &Path,
    extra: &[&str],
) -> (std::path::PathBuf, std::process::Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut args = vec![
        "record",
        "--server",
        server,
        "--scenario",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--seed",
        "1",
    ];
    args.extend_from_slice(extra);
    let run = common::run(&args);
    (out, run, dir)
}

/// A scenario file written from `text` into a new temporary folder.
fn scenario_file(text: &str) -> (std::path::PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenario.ron");
    std::fs::write(&path, text).unwrap();
    (path, dir)
}

/// What a run printed, both streams.
fn printed(run: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    )
}

/// One bot that joins and leaves within four seconds.
const SHORT: &str =
    r#"(seconds: 4.0, bots: [(name: "solo", join: 0.5, leave: Some(3.5), moves: true)])"#;

fn a_server_that_exits_at_once_fails_the_run() {
    let (scenario, _s) = scenario_file(SHORT);
    let (_, run, _dir) = record_with("/bin/false", &scenario, &[]);
    let said = printed(&run);
    assert_eq!(run.status.code(), Some(1), "/bin/false passed:\n{said}");
    assert!(
        said.contains("record failed: the server exited with code 1"),
        "no sentence about the server's exit:\n{said}"
    );
}

fn a_server_that_dies_from_a_signal_fails_the_run_naming_it() {
    let (scenario, dir) = scenario_file(SHORT);
    let crash = dir.path().join("crashing-server");
    std::fs::write(&crash, "#!/bin/sh\nsleep 2\nkill -SEGV $$\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&crash, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (_, run, _dir) = record_with(crash.to_str().unwrap(), &scenario, &[]);
    let said = printed(&run);
    assert_eq!(run.status.code(), Some(1), "a crash passed:\n{said}");
    assert!(
        said.contains("the server died from SIGSEGV (signal 11)"),
        "the signal is not named:\n{said}"
    );
}

fn a_missing_map_or_a_bad_protocol_is_bad_usage_before_anything_starts() {
    for (text, expected) in [
        (
            r#"(seconds: 4.0, map: Some("no such map"), bots: [(name: "a")])"#,
            r#"map: no map "no such map""#,
        ),
        (
            r#"(seconds: 4.0, rcon: [(1.0, "change_map nowhere")], bots: [(name: "a")])"#,
            r#"no map "nowhere""#,
        ),
        (
            r#"(seconds: 4.0, bots: [(name: "a", protocol: Some("0.8"))])"#,
            r#"protocol "0.8""#,
        ),
        (r#"(seconds: 4000.0, bots: [(name: "a")])"#, "seconds: 4000"),
        (
            r#"(seconds: 4.0, bots: [(name: "a", leave: Some(9.0))])"#,
            "leave: second 9 is not within",
        ),
    ] {
        let (scenario, _s) = scenario_file(text);
        let (out, run, _dir) = record_with(SERVER, &scenario, &[]);
        let said = printed(&run);
        assert_eq!(run.status.code(), Some(2), "{text}:\n{said}");
        assert!(
            said.contains(expected),
            "{text}: expected {expected:?} in\n{said}"
        );
        assert!(!out.exists(), "{text}: the output folder was made");
    }
    // A server binary that is not there: nothing made either.
    let (scenario, _s) = scenario_file(SHORT);
    let (out, run, _dir) = record_with("/nonexistent/DDNet-Server", &scenario, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", printed(&run));
    assert!(!out.exists(), "a missing server left {}", out.display());
}

fn a_refused_bot_fails_the_run_naming_it_and_the_servers_reason() {
    // DDNet's default sv_max_clients_per_ip is 4; all bots are 127.0.0.1.
    let (scenario, _s) = scenario_file(
        r#"(seconds: 3.0, bots: [(name: "b1", join: 0.5), (name: "b2", join: 0.6),
            (name: "b3", join: 0.7), (name: "b4", join: 0.8), (name: "fifth", join: 0.9)])"#,
    );
    let (_, run, _dir) = record_with(SERVER, &scenario, &[]);
    let said = printed(&run);
    assert_eq!(run.status.code(), Some(1), "a refused bot passed:\n{said}");
    assert!(
        said.contains(
            r#"record failed: the server refused bot fifth: "Only 4 players with the same IP are allowed""#
        ),
        "no sentence naming the bot and the reason:\n{said}"
    );
    assert!(
        said.contains("b4     joined at tick"),
        "the bots' summary:\n{said}"
    );
}

/// Declared in the scenario, the same refusal passes.
fn an_expected_refusal_passes() {
    let (scenario, _s) = scenario_file(
        r#"(seconds: 3.0, bots: [(name: "b1", join: 0.5), (name: "b2", join: 0.6),
            (name: "b3", join: 0.7), (name: "b4", join: 0.8),
            (name: "fifth", join: 0.9, expect_refused: Some("Only 4 players"))])"#,
    );
    let (_, run, _dir) = record_with(SERVER, &scenario, &["--format", "json"]);
    let said = printed(&run);
    assert_eq!(
        run.status.code(),
        Some(0),
        "an expected refusal failed:\n{said}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["kind"], "record", "{said}");
    assert_eq!(
        doc["bots"][4]["refused"], "Only 4 players with the same IP are allowed",
        "{said}"
    );
    assert_eq!(doc["problems"], serde_json::json!([]), "{said}");
}

fn a_folder_that_holds_files_is_refused_unless_forced() {
    let (scenario, _s) = scenario_file(SHORT);
    let _side_by_side = SERVERS.read().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("server.teehistorian");
    std::fs::write(&old, b"an earlier run's file").unwrap();
    let base = [
        "record",
        "--server",
        SERVER,
        "--scenario",
        scenario.to_str().unwrap(),
        "-o",
        dir.path().to_str().unwrap(),
    ];
    let run = common::run(&base);
    assert_eq!(run.status.code(), Some(2), "{}", printed(&run));
    assert!(printed(&run).contains("--force"), "{}", printed(&run));
    assert_eq!(
        std::fs::read(&old).unwrap(),
        b"an earlier run's file",
        "the earlier file was touched"
    );
    let run = common::run(&[&base[..], &["--force"]].concat());
    assert_eq!(run.status.code(), Some(0), "--force: {}", printed(&run));
    assert_ne!(
        std::fs::read(&old).unwrap(),
        b"an earlier run's file",
        "--force did not write the new recording"
    );
}

/// Two map changes: the bots acknowledge only the current map's ticks, so
/// the capture replays without one snapshot anomaly; each map has its
/// teehistorian file, named by its place.
fn two_map_changes_leave_no_snapshot_anomaly() {
    let (out, shown, _dir) = record(SERVER, "two_map_changes.ron");
    for name in ["server-1", "server-2", "server-3"] {
        let file = out.join(format!("{name}.teehistorian"));
        assert!(file.exists(), "no {}:\n{shown}", file.display());
    }
    let check = common::run(&["check", "--format", "json", out.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    let capture = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["format"] == "capture")
        .expect("no capture checked");
    let anomalies: Vec<&serde_json::Value> = capture["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["code"]
                .as_str()
                .unwrap_or_default()
                .starts_with("snapshot_")
        })
        .collect();
    assert!(anomalies.is_empty(), "snapshot anomalies: {anomalies:?}");
    // Other replay anomalies are network timing (a vital chunk the server
    // sent again before the bot's ack reached it arrives as a duplicate):
    // notes, never failures.
    assert_eq!(capture["status"], "pass", "{capture}");
}

/// A remote console command that changes the map, after which no
/// MAP_CHANGE comes (DDNet 16.4 keeps its map when `sv_map` names the one
/// it is on): the bots hold their inputs for the new map, so the run
/// stops 250 ticks after the command and fails, naming it (it used to go
/// on to the end with idle bots and pass).
fn a_map_change_that_never_comes_fails_the_run() {
    let (scenario, _s) = scenario_file(
        r#"(seconds: 7.0, map: Some("dm1"), rcon: [(0.6, "sv_map dm1")],
            bots: [(name: "op", join: 0.5, moves: true)])"#,
    );
    let (_, run, _dir) = record_with(SERVER, &scenario, &[]);
    let said = printed(&run);
    assert_eq!(
        run.status.code(),
        Some(1),
        "a map change that never came passed:\n{said}"
    );
    assert!(
        said.contains(
            "no MAP_CHANGE reached the bots within 250 ticks (5 s) of the remote console \
             command `sv_map dm1` sent at tick"
        ),
        "no sentence naming the command and the bound:\n{said}"
    );
}

/// SIGINT to the whole process group, as a terminal's Ctrl-C: the server
/// is stopped in order, its files are collected and end clean.
fn ctrl_c_keeps_what_the_server_wrote() {
    let _side_by_side = SERVERS.read().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let scenario = common::root().join("corpus/record/join_move_leave.ron");
    let (scenario, out_arg) = (scenario.to_str().unwrap(), out.to_str().unwrap());
    let (run, _) = interrupted(&["--scenario", scenario, "-o", out_arg]);
    let said = printed(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(said.contains("interrupted"), "{said}");
    let th = out.join("server.teehistorian");
    let log = common::run(&["teehistorian", "log", th.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&log.stdout).into_owned();
    assert!(
        log.contains(r#"end how="finish""#),
        "the teehistorian file is cut:\n{log}"
    );
    let check = common::run(&["check", out.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", printed(&check));
    assert!(
        printed(&check).contains("3 passed (0 with warnings), 0 failed"),
        "{}",
        printed(&check)
    );
}

/// Teeworlds 0.7.5 with 0.7 bots: no teehistorian; its demo (version 4,
/// net version 0.7) and the bots' capture check clean, and the server was
/// shut down over the remote console.
fn a_scenario_recorded_on_teeworlds_0_7_5_checks_clean() {
    let (out, shown, _dir) = record(TEEWORLDS, "teeworlds_07.ron");
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
fn a_07_client_beside_a_06_one_on_ddnet() {
    let (out, shown, _dir) = record(SERVER, "mixed_06_07.ron");
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

/// `teeoracle diff OLD NEW --format json`: its exit code and document.
fn diff_json(old: &Path, new: &Path) -> (Option<i32>, serde_json::Value) {
    let run = common::run(&[
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let doc = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("diff printed no JSON ({e}):\n{}", printed(&run)));
    (run.status.code(), doc)
}

/// Issue 23 items 4 and 5: two runs of one scenario record the same
/// teehistorian file while the bots play, and one server setting changed over
/// the remote console (`tune gravity 0.6` at 2 s instead of DDNet's
/// default 0.5) stands out: diff exits 1 and names the first tick where a
/// character moved differently, at or after the tune, and how many
/// characters and ticks it affects.
fn a_changed_setting_stands_out_and_two_runs_are_the_same() {
    // The three runs side by side, and nothing else beside them: three
    // small servers keep to their ticks on 2 cores, where a check of
    // another test's files running beside them may hold one up.
    let alone = SERVERS.write().unwrap_or_else(|e| e.into_inner());
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/record");
    let runs: Vec<_> = std::thread::scope(|threads| {
        let started: Vec<_> = [
            "gravity_base.ron",
            "gravity_base.ron",
            "gravity_changed.ron",
        ]
        .iter()
        .map(|s| {
            let scenario = corpus.join(s);
            (
                s,
                threads.spawn(move || record_alone_or_not(SERVER, &scenario, &[])),
            )
        })
        .collect();
        started
            .into_iter()
            .map(|(s, run)| {
                let (out, run, dir) = run.join().expect("a run's thread panicked");
                assert_eq!(run.status.code(), Some(0), "{s}:\n{}", printed(&run));
                (out, dir)
            })
            .collect()
    });
    drop(alone);
    let th = |i: usize| runs[i].0.join("server.teehistorian");

    // Two runs play alike. The bots leave at 5.5 s (tick 275): a server
    // that fell behind may still see a goodbye a tick apart, so only from
    // there on may they differ (corpus/record/reproducibility.sh measures
    // how often whole runs are identical).
    let (code, same) = diff_json(&th(0), &th(1));
    let differences = same["differences"].as_array().unwrap();
    let early: Vec<&serde_json::Value> = differences
        .iter()
        .filter(|d| d["tick"].as_i64().unwrap_or(0) < 270)
        .collect();
    assert!(
        early.is_empty() && same["total_differences"] == json_len(differences),
        "two runs of gravity_base.ron differ while the bots play (exit {code:?}): {}",
        serde_json::to_string_pretty(&early).unwrap()
    );

    let (code, changed) = diff_json(&th(0), &th(2));
    let shown = serde_json::to_string_pretty(&changed["movement"]).unwrap();
    assert_eq!(code, Some(1), "the changed gravity made no difference");
    // The tune itself: the first console command that differs.
    let tune = changed["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["category"] == "console_command")
        .unwrap_or_else(|| panic!("the tune is not among the differences: {changed}"));
    let tune_tick = tune["tick"].as_i64().unwrap();
    let movement = &changed["movement"];
    let first = movement["first"]["tick"]
        .as_i64()
        .unwrap_or_else(|| panic!("no first divergence named: {shown}"));
    assert!(
        first >= tune_tick,
        "characters moved differently at tick {first}, before the tune at {tune_tick}: {shown}"
    );
    assert!(
        first <= tune_tick + 100,
        "the first divergence at {first} is long after the tune at {tune_tick}: {shown}"
    );
    assert!(movement["characters"].as_u64().unwrap() > 0, "{shown}");
    assert!(movement["ticks"].as_u64().unwrap() > 0, "{shown}");

    // The folders too: paired by role, the teehistorian pair differs.
    let (code, folders) = diff_json(&runs[0].0, &runs[2].0);
    assert_eq!(code, Some(1), "{folders}");
    let pair = folders["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["format"] == "teehistorian")
        .unwrap_or_else(|| panic!("no teehistorian pair: {folders}"));
    assert_eq!(pair["same"], false);
    assert_eq!(pair["movement"]["first"]["tick"].as_i64(), Some(first));
}

/// A JSON array's length as JSON, to compare with a count.
fn json_len(v: &[serde_json::Value]) -> serde_json::Value {
    serde_json::Value::from(v.len())
}

/// A bot's scripted input (`actions`) and `kill` reach DDNet 16.4 on the
/// scenario's ticks: the teehistorian file records each change of input
/// on the tick before the one it is for (DDNet applies an input on the
/// tick after it received it), with fire as DDNet's counter and the
/// weapon plus one, and Cl_Kill on its own tick; the tee died and came
/// back (a second PLAYER_NEW).
fn scripted_inputs_and_kill_land_on_their_ticks() {
    let (scenario, _dir) = scenario_file(
        r#"(map: Some("dm1"), seconds: 4.0, bots: [(name: "a", kill: [3.2], actions: [
            (2.0, (direction: Some(-1), target: Some((50, -20)), weapon: Some(0))),
            (2.5, (fire: Some(true), jump: Some(true))),
            (2.6, (fire: Some(false), jump: Some(false))),
        ])])"#,
    );
    let (out, run, _tmp) = record_with(SERVER, &scenario, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", printed(&run));
    let th = out.join("server.teehistorian");
    let dump = common::run(&[
        "teehistorian",
        "dump",
        "--format",
        "jsonl",
        th.to_str().unwrap(),
    ]);
    let records: Vec<serde_json::Value> = String::from_utf8_lossy(&dump.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    // The input of cid 0 after each input record, by tick.
    let mut input = [0i64; 10];
    let mut inputs = Vec::new();
    for r in &records {
        let fields = match r["kind"].as_str() {
            Some("input_new") => &r["input"],
            Some("input_diff") => &r["dinput"],
            _ => continue,
        };
        let values: Vec<i64> = fields
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        for (i, v) in values.iter().enumerate() {
            input[i] = if r["kind"] == "input_new" {
                *v
            } else {
                input[i] + v
            };
        }
        inputs.push((r["tick"].as_i64().unwrap(), input));
    }
    assert_eq!(
        inputs,
        vec![
            // 2 s: scenario tick 100; hammer wanted (0 + 1).
            (99, [-1, 50, -20, 0, 0, 0, 0, 1, 0, 0]),
            // 2.5 s: fire pressed (counter 1) and jump.
            (124, [-1, 50, -20, 1, 1, 0, 0, 1, 0, 0]),
            // 2.6 s: fire released (counter 2), jump let go.
            (129, [-1, 50, -20, 0, 2, 0, 0, 1, 0, 0]),
        ],
        "the recorded inputs"
    );
    let kills: Vec<i64> = records
        .iter()
        .filter(|r| r["kind"] == "message" && r["decoded"]["name"] == "Cl_Kill")
        .map(|r| r["tick"].as_i64().unwrap())
        .collect();
    assert_eq!(kills, vec![160], "Cl_Kill at 3.2 s");
    // DDRace respawns at once: no PLAYER_OLD, the tee is back on the
    // first spawn point (1584,304) on the next tick, its diff a jump.
    let mut at = (0, 0);
    let mut path = Vec::new();
    for r in &records {
        let d = |k: &str| r[k].as_i64().unwrap_or(0);
        match r["kind"].as_str() {
            Some("player_new") => at = (d("x"), d("y")),
            Some("player_diff") => at = (at.0 + d("dx"), at.1 + d("dy")),
            _ => continue,
        }
        path.push((d("tick"), at));
    }
    let before = path.iter().rev().find(|p| p.0 == 160).map(|p| p.1);
    let after = path.iter().find(|p| p.0 == 161).map(|p| p.1);
    assert_eq!(
        after,
        Some((1584, 304)),
        "not respawned on tick 161: {path:?}"
    );
    assert!(
        before.is_some_and(|b| b != (1584, 304)),
        "the tee was on the spawn when it died: {before:?}"
    );
}

/// `examples/campaign/run` on one map and variant: random bots (0.6 and
/// 0.7, kills, spectating, teams) record a session that the run checks,
/// files under its id and counts in its table; a second run skips it.
fn a_campaign_run_records_random_bots_and_prints_its_table() {
    let _side_by_side = SERVERS.read().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let campaign = |extra: &[&str]| {
        let out = std::process::Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/campaign/run"))
            .args([
                "--server",
                SERVER,
                "--teeoracle",
                env!("CARGO_BIN_EXE_teeoracle"),
            ])
            .args([
                "--maps",
                "Gold Mine",
                "--variants",
                "default",
                "--seeds",
                "1",
            ])
            .args(["--clients", "6", "--seconds", "20", "-o"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    };
    let shown = campaign(&[]);
    let id = "16.4-Gold_Mine-default-s1-c6-t20";
    assert!(shown.contains(&format!("[1/1] {id}: ")), "{shown}");
    // The table counts the one recording, with no run problem.
    let row = shown
        .lines()
        .find(|l| l.starts_with("| Gold Mine |"))
        .unwrap_or_else(|| panic!("no map row: {shown}"));
    assert!(row.contains(" / 1 |") && row.ends_with("| 0 |"), "{row}");
    let scenario = std::fs::read_to_string(dir.path().join(format!("scenarios/{id}.ron"))).unwrap();
    assert!(scenario.contains("random: Some((seed: 5,"), "{scenario}");
    assert!(scenario.contains(r#"protocol: Some("0.7")"#), "{scenario}");
    let th = dir.path().join(format!("runs/{id}/server.teehistorian"));
    let log = common::run(&["teehistorian", "log", th.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&log.stdout).into_owned();
    for cid in 0..6 {
        assert!(log.contains(&format!("join cid={cid}")), "{log}");
    }
    // Run again: the recording is kept, not made anew.
    let again = campaign(&[]);
    assert!(again.contains(&format!("[1/1] {id}: ")), "{again}");
    let wall = |s: &str| s.lines().find(|l| l.contains(id)).map(str::to_string);
    assert_eq!(wall(&shown), wall(&again), "the second run recorded again");
}

/// `record --replay`: the corpus's DDNet 16.4 recording of ten players
/// with every weapon, played again into DDNet 16.4, is the same game:
/// every player's path and events, and the exit code says so.
fn a_recorded_game_replays_identically_on_the_same_build() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/teehistorian/ddnet-16.4/phys_weapons.teehistorian");
    let _alone = SERVERS.write().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let run = replay(&file, &out, &[]);
    let shown = printed(&run);
    assert_eq!(run.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("identical: 10 players, same paths and events"),
        "{shown}"
    );
    let compared: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("compare.json")).unwrap()).unwrap();
    assert_eq!(compared["verdict"], "identical");
    assert_eq!(compared["summary"]["unchanged"], 10);
    assert!(out.join("original.teehistorian").is_file());
    assert!(out.join("replay.json").is_file());
}

/// The first client joins on tick 16 and enters on 19: the replay's clock
/// (a spectator) joins on tick 0, is placed by its probe at once and
/// leaves before that join, so the clients keep their ids; with `--format
/// json` the run's report, the comparison and the notes are one document.
fn a_late_first_join_replays_identically_in_one_json_document() {
    let file = common::root().join("corpus/teehistorian/ddnet-16.4/join_move_leave.teehistorian");
    let _alone = SERVERS.write().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let run = replay(&file, &out, &["--format", "json"]);
    assert_eq!(run.status.code(), Some(0), "{}", printed(&run));
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON document");
    assert_eq!(doc["kind"], "record");
    let replay = &doc["replay"];
    assert_eq!(replay["comparison"]["verdict"], "identical", "{replay}");
    assert_eq!(replay["notes"], serde_json::json!([]));
    let players = replay["comparison"]["players"].as_array().unwrap();
    let cids: Vec<_> = players
        .iter()
        .map(|p| (p["original_cid"].clone(), p["other_cid"].clone()))
        .collect();
    assert_eq!(
        cids,
        [(0.into(), 0.into()), (1.into(), 1.into())],
        "the clients keep their ids"
    );
}

/// The same file with its first join on tick 1 (its first TICK_SKIP made
/// 0; what happens after is tick for tick the same, the model still
/// matches every position), as in 5 of the physics campaign's 209 DDNet
/// 16.4 files: the clock joins on tick 0 and leaves in it, placed by its
/// probe's answer (which comes with the map, not 10 ticks on with the
/// first snapshot), so the join lands on tick 1 and the clients keep their
/// ids; before, the join landed on tick 10.
fn a_first_join_on_tick_1_replays_identically_keeping_the_ids() {
    let real = common::root().join("corpus/teehistorian/ddnet-16.4/join_move_leave.teehistorian");
    let mut bytes = std::fs::read(real).unwrap();
    let first_skip = 0xa33;
    assert_eq!(
        bytes[first_skip..first_skip + 2],
        [0x41, 15],
        "TICK_SKIP 15"
    );
    bytes[first_skip + 1] = 0;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("early_join.teehistorian");
    std::fs::write(&file, bytes).unwrap();
    let _alone = SERVERS.write().unwrap_or_else(|e| e.into_inner());
    let out = dir.path().join("run");
    let run = replay(&file, &out, &["--format", "json"]);
    assert_eq!(run.status.code(), Some(0), "{}", printed(&run));
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON document");
    let compared = &doc["replay"]["comparison"];
    assert_eq!(compared["verdict"], "identical", "{compared}");
    assert_eq!(compared["original"]["ticks"][0], 1, "the first join's tick");
    let players = compared["players"].as_array().unwrap();
    let cids: Vec<_> = (players.iter())
        .map(|p| (p["original_cid"].clone(), p["other_cid"].clone()))
        .collect();
    assert_eq!(cids, [(0.into(), 0.into()), (1.into(), 1.into())]);
}

/// A map of the recorded name with other bytes: exit 2 before anything
/// starts, naming both checksums.
fn a_replay_on_another_version_of_its_map_is_bad_usage_naming_both() {
    let original =
        common::root().join("corpus/teehistorian/ddnet-16.4/join_move_leave.teehistorian");
    let bytes = std::fs::read(&original).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let at = text
        .find("\"map_sha256\":\"")
        .expect("a header with the map's SHA-256")
        + 14;
    let recorded = text[at..at + 64].to_string();
    let other = "0".repeat(64);
    let mut changed = bytes.clone();
    changed[at..at + 64].copy_from_slice(other.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("other_map.teehistorian");
    std::fs::write(&file, changed).unwrap();
    let out = dir.path().join("run");
    let run = replay(&file, &out, &[]);
    let said = printed(&run);
    assert_eq!(run.status.code(), Some(2), "{said}");
    assert!(said.contains(&recorded) && said.contains(&other), "{said}");
    assert!(!out.exists(), "the output folder was made");
}

/// Ctrl-C in the middle of a replay: the server is stopped, the run says
/// it was interrupted (no comparison of half a game), and nothing of the
/// run's process group is left.
fn ctrl_c_stops_a_replay_leaving_no_server() {
    let _side_by_side = SERVERS.read().unwrap_or_else(|e| e.into_inner());
    let file = common::root().join("corpus/teehistorian/ddnet-16.4/phys_weapons.teehistorian");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let (file_arg, out_arg) = (file.to_str().unwrap(), out.to_str().unwrap());
    let (run, group) = interrupted(&["--replay", file_arg, "-o", out_arg, "--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", printed(&run));
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON document");
    let problems = doc["problems"].to_string();
    assert!(problems.contains("interrupted"), "{problems}");
    assert!(doc.get("replay").is_none(), "half a game compared");
    let left = std::process::Command::new("kill")
        .args(["-0", "--", &group])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!left.success(), "something of the run is still running");
    assert!(out.join("server.teehistorian").is_file());
}

/// 66 bots on a server of 64 clients (two refused, as the scenario
/// expects), then the game the server recorded replayed: all 64 join,
/// on their ticks, and play it again as recorded.
fn sixty_four_clients_replay_identically() {
    let _alone = SERVERS.write().unwrap_or_else(|e| e.into_inner());
    let scenario = common::root().join("corpus/record/sixty_six_clients.ron");
    let (recorded, run, dir) = record_alone_or_not(SERVER, &scenario, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", printed(&run));
    let out = dir.path().join("replayed");
    let run = replay(
        &recorded.join("server.teehistorian"),
        &out,
        &["--format", "json"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", printed(&run));
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON document");
    let comparison = &doc["replay"]["comparison"];
    assert_eq!(comparison["verdict"], "identical", "{comparison}");
    assert_eq!(comparison["summary"]["unchanged"], 64, "{comparison}");
    assert_eq!(doc["replay"]["notes"], serde_json::json!([]));
}

/// `record --replay FILE -o OUT` on DDNet 16.4, with `extra` arguments.
fn replay(file: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["record", "--server", SERVER, "--replay", file, "-o", out];
    args.extend(extra);
    common::run(&args)
}

/// `record --server SERVER ARGS` in a process group of its own, sent
/// SIGINT (Ctrl-C) after 4 s: what it printed and the group (`-PID`).
fn interrupted(args: &[&str]) -> (std::process::Output, String) {
    use std::os::unix::process::CommandExt;
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(["record", "--server", SERVER])
        .args(args)
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(4));
    let group = format!("-{}", child.id());
    std::process::Command::new("kill")
        .args(["-INT", "--", &group])
        .status()
        .unwrap();
    (child.wait_with_output().unwrap(), group)
}
