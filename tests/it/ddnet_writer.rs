//! `Recorder` (teeoracle's model of DDNet's `CTeeHistorian` writer) driven
//! with the calls of each test in DDNet's `src/test/teehistorian_test.cpp`
//! must produce exactly the bytes DDNet's test expects. The expected files in
//! `corpus/teehistorian/ddnet-unit-tests/` were built from DDNet's test
//! source (see `corpus/README.md`), not by this crate.

use crate::common;

use teeoracle::codec::Mode;
use teeoracle::packet::Version;
use teeoracle::teehistorian::{Ex, Recorder, SliceReader};
use uuid::Uuid;

const SAVE_ID: Uuid = Uuid::from_u128(0xfb13a576_d35f_4893_b815_eedc6d98015b);

/// Replays the writer calls of the DDNet test named `test`.
fn drive(test: &str, th: &mut Recorder) {
    let input: [i32; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    match test {
        "Empty" => {}
        "Finished" | "TickImplicitEmpty" | "PrevGameUuid" => {
            if test == "TickImplicitEmpty" {
                for t in (1..500).chain((1000..=99000).step_by(1000)) {
                    th.tick(t);
                }
            }
            th.finish();
        }
        "TickImplicitOneTick" => {
            th.tick(1);
            th.record_player(0, 1, 2).unwrap();
            th.finish();
        }
        "TickImplicitTwoTicks" => {
            th.tick(1);
            th.record_player(0, 1, 2).unwrap();
            th.tick(2);
            th.record_player(0, 2, 1).unwrap();
            th.finish();
        }
        "TickImplicitDescendingClientId" => {
            th.tick(1);
            th.record_dead_player(0).unwrap();
            th.record_player(1, 2, 3).unwrap();
            th.tick(2);
            th.record_player(0, 4, 5).unwrap();
            th.record_player(1, 2, 3).unwrap();
            th.finish();
        }
        "TickExplicitAscendingClientId" => {
            th.tick(1);
            th.record_player(0, 4, 5).unwrap();
            th.record_dead_player(1).unwrap();
            th.tick(2);
            th.record_player(0, 4, 5).unwrap();
            th.record_player(1, 2, 3).unwrap();
            th.finish();
        }
        "TickExplicitStart" => {
            th.tick(500);
            th.record_player(0, -1, -1).unwrap();
            th.finish();
        }
        "TickExplicitPlayerMessage" => {
            th.tick(1);
            th.record_player_message(63, &[0]);
            th.finish();
        }
        "ExtraMessage" => {
            th.tick(1);
            th.record_ex(Ex::Test {});
            th.finish();
        }
        "DDNetVersion" => {
            th.record_ex(Ex::Ddnetver {
                cid: 0,
                connection_id: SAVE_ID,
                version: 13010,
                version_str: "DDNet 13.1 (3623f5e4cd184556)".into(),
            });
            th.record_ex(Ex::DdnetverOld {
                cid: 1,
                version: 13010,
            });
            th.finish();
        }
        "Auth" => {
            th.record_ex(Ex::AuthInit {
                cid: 0,
                level: 3,
                auth_name: "default_admin".into(),
            });
            th.record_ex(Ex::AuthLogin {
                cid: 1,
                level: 2,
                auth_name: "foobar".into(),
            });
            th.record_ex(Ex::AuthLogin {
                cid: 2,
                level: 1,
                auth_name: "help".into(),
            });
            th.record_ex(Ex::AuthLogout { cid: 1 });
            th.finish();
        }
        "JoinLeave" => {
            th.record_player_join(6, Version::V06);
            th.record_player_join(7, Version::V07);
            th.record_player_drop(6, "too many pancakes");
            th.finish();
        }
        "Input" => {
            th.tick(1);
            th.record_player_input(0, 1, &input).unwrap();
            th.record_player_input(0, 1, &input).unwrap();
            let mut changed = input;
            changed[0] = 0;
            th.record_player_input(0, 1, &changed).unwrap();
            th.record_player_input(0, 2, &changed).unwrap();
            th.finish();
        }
        "SaveSuccess" | "LoadSuccess" => {
            let (team, save_id, save) = (21, SAVE_ID, "2\tH.\nll0".into());
            th.record_ex(if test == "SaveSuccess" {
                Ex::SaveSuccess {
                    team,
                    save_id,
                    save,
                }
            } else {
                Ex::LoadSuccess {
                    team,
                    save_id,
                    save,
                }
            });
            th.finish();
        }
        "SaveFailed" => {
            th.record_ex(Ex::SaveFailure { team: 12 });
            th.finish();
        }
        "LoadFailed" => {
            th.record_ex(Ex::LoadFailure { team: 12 });
            th.finish();
        }
        "PlayerSwap" => {
            th.tick(1);
            th.record_ex(Ex::PlayerSwap { cid1: 11, cid2: 21 });
            th.finish();
        }
        "PlayerTeam" => {
            th.tick(1);
            for (cid, team) in [(3, 0), (33, 54), (45, 0)] {
                th.record_player_team(cid, team).unwrap();
            }
            th.tick(2);
            for (cid, team) in [(3, 12), (33, 0), (45, 0)] {
                th.record_player_team(cid, team).unwrap();
            }
            th.finish();
        }
        "TeamPractice" => {
            th.tick(1);
            for (team, practice) in [(1, false), (16, false), (23, true)] {
                th.record_team_practice(team, practice).unwrap();
            }
            th.tick(2);
            for (team, practice) in [(1, true), (16, false), (23, false)] {
                th.record_team_practice(team, practice).unwrap();
            }
            th.finish();
        }
        "PlayerRejoinVer6" => {
            th.record_ex(Ex::Rejoinver6 { cid: 2 });
            th.finish();
        }
        "PlayerReady" => {
            th.record_ex(Ex::PlayerReady { cid: 63 });
            th.finish();
        }
        "PlayerReadyMultiple" => {
            th.tick(1);
            th.record_ex(Ex::PlayerReady { cid: 0 });
            th.record_ex(Ex::PlayerReady { cid: 11 });
            th.tick(2);
            th.record_ex(Ex::PlayerReady { cid: 63 });
            th.finish();
        }
        "AntibotEmpty" => th.record_ex(Ex::Antibot {
            data: (&b""[..]).into(),
        }),
        "AntibotEmptyNulBytes" => th.record_ex(Ex::Antibot {
            data: (&b"\0\0\0\0"[..]).into(),
        }),
        "AntibotEmptyMessage" => th.record_ex(Ex::Antibot {
            data: "🤖".as_bytes().into(),
        }),
        "PlayerName" => th.record_ex(Ex::PlayerName {
            cid: 21,
            name: "nameless tee".into(),
        }),
        "PlayerFinish" => th.record_ex(Ex::PlayerFinish {
            cid: 1,
            time: 1_000_000,
        }),
        "TeamFinish" => th.record_ex(Ex::TeamFinish {
            team: 63,
            time: 1000,
        }),
        other => panic!("no writer script for DDNet test {other}: add one"),
    }
}

#[test]
fn recorder_reproduces_every_ddnet_writer_test() {
    let names = common::corpus_files("teehistorian/ddnet-unit-tests");
    assert_eq!(
        names.len(),
        31,
        "DDNet 20.1 has 31 teehistorian writer tests"
    );
    for path in names {
        let test = path.file_stem().unwrap().to_str().unwrap();
        let expected = std::fs::read(&path).unwrap();
        let (header, _) = SliceReader::new(&expected, Mode::Strict).unwrap();
        let mut th = Recorder::new(&header);
        drive(test, &mut th);
        assert_eq!(
            hex::encode(th.body()),
            hex::encode(&expected[expected.len() - th.body().len()..]),
            "{test}: body differs"
        );
        assert_eq!(th.bytes(), &expected[..], "{test}: file differs");
    }
}

#[test]
fn recorder_rejects_what_ddnet_asserts() {
    let header = teeoracle::teehistorian::Header::from_info(Default::default());
    let mut th = Recorder::new(&header);
    th.tick(1);
    th.record_player(5, 0, 0).unwrap();
    assert!(
        th.record_player(3, 0, 0).is_err(),
        "descending cids in one tick"
    );
    assert!(th.record_player(-1, 0, 0).is_err(), "negative cid");
}
