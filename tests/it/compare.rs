//! `teehistorian compare` (`diff::players`): two recordings of one game by
//! player. A file is identical to itself; a copy with one position moved
//! names exactly that player at that tick; the same game recorded again
//! with other client ids and another clock is still identical; names come
//! from Cl_StartInfo where the server writes no PLAYER_NAME (16.4); the
//! model with the file's own physics is identical where the simulation is
//! exact, and a changed tuning departs. Goldens show the text and JSON of
//! real cases.
#![cfg(feature = "jobs")]

use crate::common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use teeoracle::codec::Mode;
use teeoracle::diff::players::{self, Comparison, Model, Options, Status, Verdict};
use teeoracle::simulation::Maps;
use teeoracle::teehistorian::spec::TeehistorianSpec;
use teeoracle::teehistorian::{Ex, Message, Record, Recorder, SliceReader, StreamWriter};

fn root(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(root(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

const B_20: &str = "corpus/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian";
const A_20: &str = "corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian";
const SPAWN_RUSH_16: &str = "corpus/teehistorian/ddnet-16.4/phys_spawn_rush.teehistorian";
const MIXED_16: &str = "corpus/teehistorian/ddnet-16.4/mixed_06_07.teehistorian";

fn compare(a: &[u8], b: &[u8]) -> Comparison {
    players::compare(a, b, &Options::default()).unwrap()
}

/// A player as (name, join, status, original cid, other cid).
type Row = (String, u32, Status, Option<i32>, Option<i32>);

/// The players.
fn players(c: &Comparison) -> Vec<Row> {
    (c.players.iter())
        .map(|p| {
            let name = p.name.as_ref().map_or("-".into(), |n| n.to_string());
            (name, p.join, p.status, p.original_cid, p.other_cid)
        })
        .collect()
}

#[test]
fn every_corpus_teehistorian_file_is_identical_to_itself() {
    let files = common::files_under(&root("corpus/teehistorian"));
    let mut compared = 0;
    for f in files.iter().filter(|f| {
        f.extension().is_some_and(|e| e == "teehistorian")
            && !f.components().any(|c| c.as_os_str() == "malformed")
    }) {
        let bytes = std::fs::read(f).unwrap();
        let c = players::compare(&bytes, &bytes, &Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(
            c.verdict,
            Verdict::Identical,
            "{}:\n{}",
            f.display(),
            c.text()
        );
        assert_eq!(c.summary.unchanged, c.original.sessions, "{}", f.display());
        assert_eq!(c.alignment.offset, 0);
        compared += 1;
    }
    assert!(compared >= 50, "{compared} files");
}

/// `bytes` with `cid`'s PLAYER_DIFF at `tick` moved by `dx`: every later
/// position of that character too (until it dies).
fn moved(bytes: &[u8], cid: i32, tick: i32, dx: i32) -> Vec<u8> {
    let (header, reader) = SliceReader::new(bytes, Mode::Strict).unwrap();
    let mut w = StreamWriter::new(Vec::new(), &header).unwrap();
    let mut done = false;
    for rec in reader {
        let rec = rec.unwrap();
        match rec.msg {
            Message::PlayerDiff { cid: c, dx: x, dy } if c == cid && rec.tick == tick => {
                w.write(&Message::PlayerDiff {
                    cid,
                    dx: x + dx,
                    dy,
                })
                .unwrap();
                done = true;
            }
            _ => w.write_raw(rec.raw).unwrap(),
        }
    }
    assert!(done, "no PLAYER_DIFF of cid {cid} at tick {tick}");
    w.into_inner().unwrap()
}

/// The first PLAYER_DIFF from `from` on: its client id and tick.
fn a_move(bytes: &[u8], from: i32) -> (i32, i32) {
    let (_, reader) = SliceReader::new(bytes, Mode::Strict).unwrap();
    (reader.map(Result::unwrap))
        .find_map(|r| match r.msg {
            Message::PlayerDiff { cid, .. } if r.tick >= from => Some((cid, r.tick)),
            _ => None,
        })
        .expect("someone moves")
}

/// The recorded position of `cid` after `tick`.
fn position(bytes: &[u8], cid: i32, tick: i32) -> [i32; 2] {
    let mut replay = teeoracle::teehistorian::Replay::new(Default::default());
    let (_, reader) = SliceReader::new(bytes, Mode::Strict).unwrap();
    for rec in reader {
        let rec = rec.unwrap();
        if rec.tick > tick {
            break;
        }
        replay.handle(rec.offset, &rec.msg).unwrap();
    }
    let p = replay.player(cid).unwrap();
    [p.x, p.y]
}

#[test]
fn one_position_moved_is_that_player_at_that_tick() {
    let bytes = read(B_20);
    let (cid, tick) = (3, 1500);
    let other = moved(&bytes, cid, tick, 5);
    let c = compare(&bytes, &other);
    assert_eq!(c.verdict, Verdict::Changed);
    let changed: Vec<_> = c
        .players
        .iter()
        .filter(|p| p.status != Status::Unchanged)
        .collect();
    assert_eq!(changed.len(), 1, "{}", c.text());
    let p = changed[0];
    assert_eq!((p.original_cid, p.other_cid), (Some(cid), Some(cid)));
    let d = p.path.as_ref().unwrap();
    let [x, y] = position(&bytes, cid, tick);
    assert_eq!(
        (d.tick, d.original, d.other, d.distance),
        (tick, Some([x, y]), Some([x + 5, y]), Some(5.0))
    );
    assert!(d.ticks >= 1, "{d:?}");
    assert!(p.events.is_none(), "{:?}", p.events);
    let s = &c.summary;
    assert_eq!(
        (
            s.players,
            s.unchanged,
            s.path_changed,
            s.events_changed,
            s.first_difference
        ),
        (10, 9, 1, 0, Some(tick))
    );
}

/// `msg` with every client id mapped by `cid`.
fn remapped<'a>(msg: &Message<'a>, cid: &dyn Fn(i32) -> i32) -> Message<'a> {
    let mut m = msg.clone();
    match &mut m {
        Message::PlayerDiff { cid: c, .. }
        | Message::PlayerNew { cid: c, .. }
        | Message::PlayerOld { cid: c }
        | Message::InputDiff { cid: c, .. }
        | Message::InputNew { cid: c, .. }
        | Message::NetMessage { cid: c, .. }
        | Message::Join { cid: c }
        | Message::Drop { cid: c, .. } => *c = cid(*c),
        Message::ConsoleCommand(cmd) if cmd.cid >= 0 => cmd.cid = cid(cmd.cid),
        Message::Ex(m) => match &mut m.ex {
            Ex::PlayerSwap { cid1, cid2 } => (*cid1, *cid2) = (cid(*cid1), cid(*cid2)),
            Ex::DdnetverOld { cid: c, .. }
            | Ex::Ddnetver { cid: c, .. }
            | Ex::AuthInit { cid: c, .. }
            | Ex::AuthLogin { cid: c, .. }
            | Ex::AuthLogout { cid: c }
            | Ex::Joinver6 { cid: c }
            | Ex::Joinver7 { cid: c }
            | Ex::PlayerTeam { cid: c, .. }
            | Ex::PlayerReady { cid: c }
            | Ex::Rejoinver6 { cid: c }
            | Ex::PlayerName { cid: c, .. }
            | Ex::PlayerFinish { cid: c, .. } => *c = cid(*c),
            _ => {}
        },
        _ => {}
    }
    m
}

/// `bytes` recorded again by DDNet's writer (the [`Recorder`]) with every
/// client id mapped by `cid` and every tick moved by `shift`: the same
/// game as another server would record it, its clients given other ids.
fn rerecorded(bytes: &[u8], cid: &dyn Fn(i32) -> i32, shift: i32) -> Vec<u8> {
    let (header, reader) = SliceReader::new(bytes, Mode::Strict).unwrap();
    let records: Vec<Record> = reader.collect::<Result<_, _>>().unwrap();
    let mut out = Recorder::new(&header);
    let mut positions: BTreeMap<i32, (i32, i32)> = BTreeMap::new();
    for group in records.chunk_by(|a, b| a.tick == b.tick) {
        // Tick 0 is where a file starts: no tick to begin.
        let tick = group[0].tick + shift;
        if tick != 0 {
            out.tick(tick);
        }
        // The tick's characters by their new ids, in DDNet's order.
        let mut characters = Vec::new();
        for rec in group {
            let c = match rec.msg.player_record_cid() {
                Some(c) => cid(c),
                None => continue,
            };
            match rec.msg {
                Message::PlayerNew { x, y, .. } => _ = positions.insert(c, (x, y)),
                Message::PlayerDiff { dx, dy, .. } => {
                    let p = positions.get_mut(&c).unwrap();
                    *p = (p.0 + dx, p.1 + dy);
                }
                _ => _ = positions.remove(&c),
            }
            characters.push((c, positions.get(&c).copied()));
        }
        characters.sort();
        for (c, at) in characters {
            match at {
                Some((x, y)) => out.record_player(c, x, y).unwrap(),
                None => out.record_dead_player(c).unwrap(),
            }
        }
        for rec in group {
            match rec.msg {
                Message::TickSkip { .. } => {}
                _ if rec.msg.player_record_cid().is_some() => {}
                Message::Finish => out.finish(),
                _ => out.record(&remapped(&rec.msg, cid)),
            }
        }
    }
    out.into_bytes()
}

#[test]
fn the_recorder_records_a_real_file_again_to_its_bytes() {
    // What makes `rerecorded` a fair test: with nothing changed it is the
    // file itself.
    for f in [SPAWN_RUSH_16, B_20, MIXED_16] {
        let bytes = read(f);
        assert!(rerecorded(&bytes, &|c| c, 0) == bytes, "{f}");
    }
}

#[test]
fn other_client_ids_and_another_clock_are_still_identical() {
    let bytes = read(SPAWN_RUSH_16);
    let other = rerecorded(&bytes, &|c| 63 - c, 777);
    let c = compare(&bytes, &other);
    assert_eq!(c.verdict, Verdict::Identical, "{}", c.text());
    assert_eq!(c.alignment.offset, 777);
    assert_eq!(c.summary.players, 10);
    for p in &c.players {
        assert_eq!(p.other_cid, p.original_cid.map(|c| 63 - c), "{p:?}");
    }
    // The offset given instead gives the same; another one moves every
    // path.
    let given = |offset| {
        let options = Options {
            offset: Some(offset),
            ..Options::default()
        };
        players::compare(&bytes, &other, &options).unwrap()
    };
    assert_eq!(given(777).verdict, Verdict::Identical);
    let off = given(778);
    assert_eq!(off.summary.unchanged, 0, "{}", off.text());
}

#[test]
fn names_without_player_name_come_from_the_clients_start_info() {
    // DDNet 16.4 writes no PLAYER_NAME: a 0.6 client ("six") and a 0.7
    // one ("seven", 0.7's Cl_StartInfo layout).
    let bytes = read(MIXED_16);
    let c = compare(&bytes, &bytes);
    let names: Vec<_> = players(&c).into_iter().map(|p| (p.0, p.3)).collect();
    assert_eq!(
        names,
        [
            ("\"six\"".to_string(), Some(0)),
            ("\"seven\"".to_string(), Some(1))
        ]
    );
}

/// A synthetic 16.4 file: `body` records after the header.
fn synthetic(body: &str) -> Vec<u8> {
    let spec = format!(
        r#"(header: {{"server_version": "0.6.4, 16.4", "map_name": "dm1"}}, records: [{body}])"#
    );
    TeehistorianSpec::from_ron(&spec)
        .unwrap()
        .build()
        .unwrap()
        .bytes
}

/// A client joining with 0.6 or 0.7 and telling its name.
fn join(cid: i32, name: &str, seven: bool) -> String {
    let ver = if seven { "joinver7" } else { "joinver6" };
    let info = if seven {
        format!(
            r#"message(cid: {cid}, version: "0.7", name: "Cl_StartInfo", fields: {{"name": "{name}", "clan": "", "country": -1, "skin_part_names": ["standard", "", "", "standard", "standard", "standard"], "use_custom_colors": [0, 0, 0, 0, 0, 0], "skin_part_colors": [0, 0, 0, 0, 0, 0]}})"#
        )
    } else {
        format!(
            r#"message(cid: {cid}, name: "Cl_StartInfo", fields: {{"name": "{name}", "clan": "", "country": -1, "skin": "default", "use_custom_color": 0, "color_body": 0, "color_feet": 0}})"#
        )
    };
    format!(
        r#"ex(name: "teehistorian-{ver}@ddnet.tw", data: "{cid:02x}"), join(cid: {cid}), {info}"#
    )
}

#[test]
fn players_are_matched_by_name_and_join_order_and_events_compared() {
    // alice (0.6) and bob (0.7) with swapped ids and 100 ticks apart; bob
    // asks to die in one file only; carol is only in the first, dave only
    // in the second; alice's second stay is matched with her second.
    let original = synthetic(&format!(
        "tick(10), {}, {}, {}, tick(11), player_new(cid: 0, x: 10, y: 10), player_new(cid: 1, x: 20, y: 20), \
         tick(20), message(cid: 1, version: \"0.7\", name: \"Cl_Kill\", fields: {{}}), tick(30), player_old(cid: 0), drop(cid: 0, reason: \"\"), \
         tick(40), {}",
        join(0, "alice", false),
        join(1, "bob", true),
        join(2, "carol", false),
        join(0, "alice", false),
    ));
    let other = synthetic(&format!(
        "tick(110), {}, {}, {}, tick(111), player_new(cid: 0, x: 20, y: 20), player_new(cid: 1, x: 10, y: 10), \
         tick(130), player_old(cid: 1), drop(cid: 1, reason: \"\"), tick(140), {}",
        join(1, "alice", false),
        join(0, "bob", true),
        join(2, "dave", false),
        join(3, "alice", false),
    ));
    let c = compare(&original, &other);
    assert_eq!(c.alignment.offset, 100);
    let s = |n: &str| n.to_string();
    assert_eq!(
        players(&c),
        [
            (s("\"alice\""), 1, Status::Unchanged, Some(0), Some(1)),
            (s("\"bob\""), 1, Status::Changed, Some(1), Some(0)),
            (s("\"carol\""), 1, Status::OnlyOriginal, Some(2), None),
            (s("\"alice\""), 2, Status::Unchanged, Some(0), Some(3)),
            (s("\"dave\""), 1, Status::OnlyOther, None, Some(2)),
        ],
        "{}",
        c.text()
    );
    let bob = &c.players[1];
    assert!(bob.path.is_none());
    let e = bob.events.as_ref().unwrap();
    assert_eq!(e.tick, 20);
    assert_eq!(serde_json::to_value(&e.original).unwrap()["kind"], "kill");
    assert_eq!(e.other, None);
    let sum = &c.summary;
    assert_eq!(
        (
            sum.unchanged,
            sum.events_changed,
            sum.only_original,
            sum.only_other
        ),
        (2, 1, 1, 1)
    );
    assert_eq!(sum.first_difference, Some(10), "carol's join");
}

/// The corpus' maps and the maps its demos embed.
fn corpus_maps() -> Maps {
    let mut maps = Maps::default();
    for dir in ["corpus/map", "corpus/demo"] {
        for f in common::files_under(&root(dir)) {
            maps.add(&std::fs::read(&f).unwrap());
        }
    }
    maps
}

fn model_of(bytes: &[u8], tune: &[(String, String)]) -> Comparison {
    let (header, _) = SliceReader::new(bytes, Mode::Lenient).unwrap();
    let col = corpus_maps()
        .collision_for(&header, 64 << 20)
        .unwrap()
        .expect("the corpus has the map");
    let model = Model {
        col,
        physics: None,
        tune,
        paths: None,
    };
    players::compare_model(bytes, &model).unwrap()
}

#[test]
fn the_model_with_the_files_own_physics_is_identical_and_a_changed_tuning_departs() {
    let bytes = read(B_20);
    let same = model_of(&bytes, &[]);
    assert_eq!(same.verdict, Verdict::Identical, "{}", same.text());
    assert_eq!(same.event_kinds, ["death", "spawn", "finish"]);
    let heavier = model_of(&bytes, &[("gravity".into(), "0.6".into())]);
    assert_eq!(heavier.verdict, Verdict::Changed);
    let s = &heavier.summary;
    assert!(s.path_changed >= 8, "{}", heavier.text());
    // Nobody departs before their character first falls: after its spawn.
    for p in heavier.players.iter().filter_map(|p| p.path.as_ref()) {
        assert_eq!(p.original.is_some(), p.other.is_some(), "{p:?}");
    }
}

fn run_cli(args: &[&str]) -> (i32, String, String) {
    let out = common::run(args);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap(),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// A scratch file for the command line.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("teeoracle-compare-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn the_command_says_identical_or_where_each_player_departs() {
    let bytes = read(SPAWN_RUSH_16);
    // The same game from another server: other ids, another clock, and
    // one player pushed 3 units at tick 120.
    let (cid, tick) = a_move(&bytes, 120);
    let other = moved(
        &rerecorded(&bytes, &|c| 63 - c, 777),
        63 - cid,
        tick + 777,
        3,
    );
    let path = scratch("spawn_rush_moved.teehistorian", &other);
    let p = path.to_str().unwrap();
    let (code, text, err) = run_cli(&["teehistorian", "compare", SPAWN_RUSH_16, p]);
    assert_eq!(code, 1, "{err}");
    common::snapshot("cli", "compare_spawn_rush_moved", &text);
    let (code, json, _) = run_cli(&[
        "teehistorian",
        "compare",
        SPAWN_RUSH_16,
        p,
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (&doc["kind"], &doc["schema_version"]),
        (&"teehistorian_compare".into(), &1.into())
    );
    assert_eq!(doc["summary"]["first_difference"], tick);
    let (code, text, _) = run_cli(&["teehistorian", "compare", SPAWN_RUSH_16, SPAWN_RUSH_16]);
    assert_eq!(code, 0);
    assert!(text.contains("\nidentical: 10 players"), "{text}");
    std::fs::remove_file(&path).unwrap();
}

/// DDNet 16.4 built with the players' push `1.45f` made `1.55f`
/// (README, "Regression-test DDNet's physics") recorded the scenario of
/// `phys_hook_players` again: the same inputs, four players pushed
/// another way from tick 2.
#[test]
fn a_build_with_another_push_moves_four_players_from_tick_2() {
    let args = |more: &[&'static str]| {
        let mut a = vec![
            "teehistorian",
            "compare",
            "corpus/teehistorian/ddnet-16.4/phys_hook_players.teehistorian",
            "corpus/teehistorian/malformed/physics/push_1_55.teehistorian",
        ];
        a.extend(more);
        a
    };
    let (code, text, err) = run_cli(&args(&[]));
    assert_eq!(code, 1, "{err}");
    common::snapshot("cli", "compare_push_1_55", &text);
    // With the map, their finishes are the model's race on each path.
    let (code, json, _) = run_cli(&args(&[
        "--maps",
        "corpus/demo/ddnet-16.4",
        "--format",
        "json",
    ]));
    assert_eq!(code, 1);
    common::snapshot("cli", "compare_push_1_55_json", &json);
}

#[test]
fn the_model_form_shows_what_a_heavier_gravity_does() {
    let maps = ["--maps", "corpus/map", "--maps", "corpus/demo"];
    let args = |more: &[&'static str]| {
        let mut a = vec!["teehistorian", "compare", A_20, "--model"];
        a.extend(maps);
        a.extend(more);
        a
    };
    let (code, text, err) = run_cli(&args(&[]));
    assert_eq!(code, 0, "{text}{err}");
    let (code, text, err) = run_cli(&args(&["--tune", "gravity=0.6"]));
    assert_eq!(code, 1, "{err}");
    common::snapshot("cli", "compare_model_gravity", &text);
    let (code, json, _) = run_cli(&args(&["--tune", "gravity=0.6", "--format", "json"]));
    assert_eq!(code, 1);
    common::snapshot("cli", "compare_model_gravity_json", &json);
}

#[test]
fn bad_usage_exits_2() {
    for (args, says) in [
        (vec!["teehistorian", "compare", A_20], "OTHER"),
        (
            vec!["teehistorian", "compare", A_20, A_20, "--model"],
            "cannot be used with",
        ),
        (
            vec!["teehistorian", "compare", A_20, A_20, "--tune", "gravity=1"],
            "--model",
        ),
        (
            vec![
                "teehistorian",
                "compare",
                A_20,
                "--model",
                "--maps",
                "corpus/demo",
                "--tune",
                "gravty=1",
            ],
            "gravty",
        ),
        (
            vec![
                "teehistorian",
                "compare",
                A_20,
                "--model",
                "--tune",
                "gravity",
            ],
            "NAME=VALUE",
        ),
    ] {
        let (code, _, err) = run_cli(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A file that does not read is exit 1, naming it and its byte.
    let bad = "corpus/teehistorian/malformed/unknown_message_id.teehistorian";
    let (code, _, err) = run_cli(&["teehistorian", "compare", A_20, bad]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(bad) && err.contains("at byte"), "{err}");
}
