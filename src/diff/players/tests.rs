//! The roster on real files: who played, under which name, from when;
//! what a comparison says of each player and in sum, on small files.

use super::roster::{PLAYER_FINISH_UUID_NAME, PlayerKey, Roster};
use super::{Comparison, Options, Status, Verdict, compare};
use crate::bytes::Text;

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/corpus/teehistorian/{rel}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn keys(r: &Roster) -> Vec<(Option<String>, u32, i32, i32)> {
    (r.keys.iter().zip(&r.sessions))
        .map(|(k, s)| {
            let name = k
                .name
                .as_ref()
                .map(|n| String::from_utf8_lossy(n).into_owned());
            (name, k.join, s.cid, s.start)
        })
        .collect()
}

#[test]
fn clients_a_map_change_carried_over_begin_at_their_first_record() {
    // DDNet 16.4 writes no JOIN for them in the new map's file: they begin
    // at PLAYER_READY (tick 5; cid 0's AUTH_INIT at tick 0 begins nothing),
    // named by the Cl_StartInfo they send again; no PLAYER_NAME in 16.4.
    let r = Roster::read(&corpus(
        "ddnet-16.4/two_map_changes.2_goldmine.teehistorian",
    ))
    .unwrap();
    assert_eq!(
        keys(&r),
        [
            (Some("op".into()), 1, 0, 5),
            (Some("mover".into()), 1, 1, 5),
            (Some("late".into()), 1, 2, 49)
        ]
    );
    assert_eq!(r.session_at(1, 4), None);
    assert_eq!(r.session_at(1, 5), Some(1));
    assert!(!r.finish_recorded, "16.4 registers no PLAYER_FINISH");
}

#[test]
fn a_joinver_record_and_its_join_are_one_session_named_by_player_name() {
    let r = Roster::read(&corpus("ddnet-20.1/B_eight_bots_dm1.teehistorian")).unwrap();
    assert!(r.finish_recorded, "20.1 registers PLAYER_FINISH");
    assert_eq!(r.sessions.len(), 10);
    let first = &r.keys[0];
    assert_eq!(
        first,
        &PlayerKey {
            name: Some(Text::from("ember").into_owned()),
            join: 1
        }
    );
    for (k, s) in r.keys.iter().zip(&r.sessions) {
        assert_eq!(
            s.events.first().map(|e| e.what.kind()),
            Some("join"),
            "{k:?}"
        );
    }
}

/// A DDNet 20.1-like file (its header registers PLAYER_FINISH) of
/// `records`, after four 0.6 clients join on tick 10: alice (0), bob (1),
/// carol (2) and dave (3), each placed at (100 * (cid + 1), 100).
fn four_players(records: &str) -> Vec<u8> {
    let mut joins = String::from("tick(10), ");
    for (cid, name) in ["alice", "bob", "carol", "dave"].iter().enumerate() {
        joins.push_str(&format!(
            r#"ex(name: "teehistorian-joinver6@ddnet.tw", data: "{cid:02x}"), join(cid: {cid}), message(cid: {cid}, name: "Cl_StartInfo", fields: {{"name": "{name}", "clan": "", "country": -1, "skin": "default", "use_custom_color": 0, "color_body": 0, "color_feet": 0}}), "#
        ));
    }
    joins.push_str("tick(11), ");
    for cid in 0..4 {
        joins.push_str(&format!(
            "player_new(cid: {cid}, x: {}, y: 100), ",
            100 * (cid + 1)
        ));
    }
    let spec = format!(
        r#"(header: {{"server_version": "0.6, 20.1", "map_name": "dm1", "uuids": ["{PLAYER_FINISH_UUID_NAME}"]}}, records: [{joins}{records}])"#
    );
    crate::teehistorian::spec::TeehistorianSpec::from_ron(&spec)
        .unwrap()
        .build()
        .unwrap()
        .bytes
}

/// PLAYER_FINISH of `cid` in `time` ticks (both DDNet's packed ints).
fn finish(cid: i32, time: u32) -> String {
    let mut data = format!("{cid:02x}");
    // 6 bits in the first byte, 7 in each next; bit 7 says one follows.
    let (mut v, mut bits) = (time, 6);
    loop {
        let low = v & ((1 << bits) - 1);
        v >>= bits;
        data.push_str(&format!("{:02x}", low | if v > 0 { 0x80 } else { 0 }));
        bits = 7;
        if v == 0 {
            break;
        }
    }
    format!(r#"ex(name: "{PLAYER_FINISH_UUID_NAME}", data: "{data}")"#)
}

/// The original and a changed replay of it: alice's path departs at
/// tick 15 but she finishes in the same time; bob keeps his path but
/// finishes 10 ticks later; carol's path departs and nobody finishes;
/// dave is the same.
fn replayed_with_a_change() -> Comparison {
    let original = four_players(&format!(
        "tick(15), player_diff(cid: 0, dx: 2, dy: 0), player_diff(cid: 2, dx: 1, dy: 0), tick(20), {}, {}",
        finish(0, 500),
        finish(1, 500)
    ));
    let other = four_players(&format!(
        "tick(15), player_diff(cid: 0, dx: 3, dy: 0), player_diff(cid: 2, dx: -1, dy: 0), tick(20), {}, {}",
        finish(0, 500),
        finish(1, 510)
    ));
    compare(&original, &other, &Options::default()).unwrap()
}

#[test]
fn the_summary_counts_players_unchanged_path_changed_and_finish_changed() {
    let c = replayed_with_a_change();
    let s = &c.summary;
    assert_eq!(
        (
            s.players,
            s.unchanged,
            s.path_changed,
            s.events_changed,
            s.finish_changed
        ),
        (4, 1, 2, 1, 1),
        "{}",
        c.text()
    );
    assert_eq!(s.first_difference, Some(15));
    let text = c.text();
    assert!(
        text.contains("changed: 3 of 4 players: 1 unchanged, 2 path changed, 1 events changed, 1 finish changed, 0 only in the original, 0 only in the other; first difference at tick 15\n"),
        "{text}"
    );
    // Each changed player: where its path departs, and whether its finish
    // time changed.
    let alice = "  \"alice\" #1 (cid 0 / 0): changed\n    path departs at tick 15: original (102, 100), other (103, 100), 1.00 apart; 6 ticks differ\n    finish unchanged: 0:10.00 (500 ticks)\n";
    let bob = "    finish changed: original 0:10.00 (500 ticks), other 0:10.20 (510 ticks)\n";
    let carol = "  \"carol\" #1 (cid 2 / 2): changed\n    path departs at tick 15: original (301, 100), other (299, 100), 2.00 apart; 6 ticks differ\n    no finish on either side\n";
    for part in [alice, bob, carol] {
        assert!(text.contains(part), "{part:?} not in\n{text}");
    }
    assert!(!text.contains("dave"), "{text}");
}

#[test]
fn leaving_a_player_out_counts_the_summary_again() {
    // The replay's own clock, say, is only in the other file; left out,
    // the rest is identical and its join no longer the first difference.
    let base = four_players("tick(20)");
    let clock = four_players(
        r#"ex(name: "teehistorian-joinver6@ddnet.tw", data: "04"), join(cid: 4), message(cid: 4, name: "Cl_StartInfo", fields: {"name": "clock", "clan": "", "country": -1, "skin": "default", "use_custom_color": 0, "color_body": 0, "color_feet": 0}), tick(20)"#,
    );
    let mut c = compare(
        &base,
        &clock,
        &Options {
            offset: Some(0),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!((c.verdict, c.summary.only_other), (Verdict::Changed, 1));
    assert_eq!(c.summary.first_difference, Some(11));
    c.leave_out(|p| p.status == Status::OnlyOther);
    assert_eq!(c.verdict, Verdict::Identical, "{}", c.text());
    assert_eq!(
        (
            c.summary.players,
            c.summary.only_other,
            c.summary.first_difference
        ),
        (4, 0, None)
    );
    // The replay's changes are named in the heading.
    c.other.changes = Some(vec!["sv_tune_reset 0".into(), "tune gravity 0.6".into()]);
    assert!(
        c.text().contains("\nother:    file of a changed server (sv_tune_reset 0; tune gravity 0.6), server \"0.6, 20.1\""),
        "{}",
        c.text()
    );
}

/// `examples/changed-server/`: 8 bots on coverage.map recorded by DDNet
/// 20.1 (the campaign's run 20.1-coverage-default-s2-c8-t20), and the same
/// game replayed (`record --replay`) into DDNet 20.1 built with the push
/// between touching players `1.45f` made `1.55f` (README, "Regression-test
/// a DDNet change"): seven players go another way, five finish otherwise.
#[test]
fn a_build_with_another_push_changes_seven_paths_and_five_finishes_on_coverage() {
    let example = |name: &str| {
        std::fs::read(format!(
            "{}/examples/changed-server/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let original = example("coverage-default.teehistorian");
    let push = example("coverage-default.push-1.55.teehistorian");
    let options = Options {
        offset: Some(0),
        ..Options::default()
    };
    let c = compare(&original, &push, &options).unwrap();
    let s = &c.summary;
    assert_eq!(
        (
            s.players,
            s.unchanged,
            s.path_changed,
            s.events_changed,
            s.finish_changed,
            s.first_difference
        ),
        (8, 1, 7, 5, 5, Some(31)),
        "{}",
        c.text()
    );
    let departs: Vec<(String, Option<i32>, Option<bool>)> = (c.players.iter())
        .map(|p| {
            let name = p.name.as_ref().map_or("-".into(), |n| n.to_string());
            let changed = p.finishes.as_ref().map(|f| f.changed);
            (name, p.path.as_ref().map(|d| d.tick), changed)
        })
        .collect();
    let row = |n: &str, t: Option<i32>, f: Option<bool>| (format!("\"{n}\""), t, f);
    assert_eq!(
        departs,
        [
            row("b0", Some(873), None),
            row("b1", None, Some(false)),
            row("b2", Some(31), Some(true)),
            row("b3", Some(895), Some(true)),
            row("b4", Some(34), Some(true)),
            row("b6", Some(33), Some(true)),
            row("b7", Some(180), None),
            row("b5", Some(797), Some(true)),
        ]
    );
    // The file against itself: the unchanged build's replay was so.
    let same = compare(&original, &original, &options).unwrap();
    assert_eq!(same.verdict, Verdict::Identical);
}

#[test]
fn a_path_keeps_a_point_a_pixel_away_and_breaks_at_a_jump_or_a_gap() {
    use super::paths::{JUMP, Path};
    let mut p = Path::default();
    // Resolution 8: (3, 0) is within a pixel of (0, 0); (8, 0) is not.
    assert!(p.push(0, (0, 0), 8));
    assert!(!p.push(1, (3, 7), 8));
    assert!(p.push(2, (8, 0), 8));
    // A jump longer than JUMP starts a line; so does the point after a gap.
    assert!(p.push(3, (8 + JUMP + 1, 0), 8));
    p.close();
    assert!(
        p.push(9, (8 + JUMP + 2, 0), 8),
        "after a gap, even a near point starts a line"
    );
    assert_eq!(
        p.lines,
        vec![
            vec![(0, 0, 0), (2, 8, 0)],
            vec![(3, 8 + JUMP + 1, 0)],
            vec![(9, 8 + JUMP + 2, 0)],
        ]
    );
}

#[test]
fn kept_paths_are_both_sides_positions_over_the_ticks_asked() {
    use super::paths::PathRequest;
    let bytes = corpus("ddnet-16.4/phys_hook_players.teehistorian");
    let request = PathRequest {
        from: Some(0),
        to: Some(100),
        resolution: 1,
    };
    let options = Options {
        paths: Some(request),
        ..Options::default()
    };
    // The file against itself: both paths the same, every point within the ticks.
    let c = compare(&bytes, &bytes, &options).unwrap();
    let mut points = 0;
    for p in &c.players {
        let [a, b] = p.paths.as_ref().expect("paths kept");
        assert_eq!(a, b);
        for &(t, _, _) in a.lines.iter().flatten() {
            assert!((0..=100).contains(&t));
            points += 1;
        }
    }
    assert!(points > 100, "{points}");
    // Without a request, none.
    let c = compare(&bytes, &bytes, &Options::default()).unwrap();
    assert!(c.players.iter().all(|p| p.paths.is_none()));
}
