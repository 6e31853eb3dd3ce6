//! The roster on real files: who played, under which name, from when.

use super::roster::{PlayerKey, Roster};
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
