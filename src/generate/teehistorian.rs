//! Teehistorian files: players joining, moving, sending input and
//! messages, running commands and leaving, with every extension the crate
//! knows and unknown ones; written by the crate's [`Recorder`].

use super::{Kind, Made, Rng};
use crate::bytes::{Blob, Text};
use crate::packer::{VarInt, calculate_uuid, write_int};
use crate::packet::Version;
use crate::teehistorian::{Ex, ExKind, ExMessage, Header, HeaderInfo, Message, Recorder, id};
use uuid::Uuid;

/// One file of `kind`.
pub(crate) fn generate(rng: &mut Rng, kind: Kind) -> Made {
    match kind {
        Kind::Valid => {
            let (bytes, ticks) = record(rng, false, true);
            Made::valid(
                bytes,
                format!("a game of {ticks} ticks as DDNet 20.1 records it"),
            )
        }
        Kind::Edge => edge(rng),
        Kind::Malformed => malformed(rng),
    }
}

fn header(rng: &mut Rng) -> Header {
    let uuid = |rng: &mut Rng| Uuid::from_u64_pair(rng.next_u64(), rng.next_u64());
    Header::from_info(HeaderInfo {
        version: 2,
        version_minor: Some("22".into()),
        comment: Some("teehistorian@ddnet.tw".into()),
        game_uuid: Some(uuid(rng).to_string()),
        prev_game_uuid: None,
        server_version: Some("DDNet 20.1 (teeoracle gen)".into()),
        start_time: Some("1970-01-01T00:00:00+0000".into()),
        server_name: Some(format!("gen {}", rng.text(8))),
        server_port: Some("8303".into()),
        game_type: Some("DDraceNetwork".into()),
        map_name: Some("gen".into()),
        map_size: Some("0".into()),
        map_sha256: Some("00".repeat(32)),
        map_crc: Some("00000000".into()),
        prng_description: Some("xoroshiro128+:0000000000000000".into()),
        config: vec![("sv_name".into(), "gen".into())],
        tuning: Vec::new(),
        uuids: ExKind::ALL.iter().map(|k| k.name().to_owned()).collect(),
    })
}

/// A player of the recording.
#[derive(Clone, Copy)]
struct Player {
    cid: i32,
    alive: bool,
    x: i32,
    y: i32,
    object: u32,
}

/// Records a game: returns the file (ending in FINISH if `finish`) and its
/// number of ticks. `edge` widens cids past 127, positions to any int and
/// tick skips to large ones.
fn record(rng: &mut Rng, edge: bool, finish: bool) -> (Vec<u8>, i32) {
    let mut rec = Recorder::new(&header(rng));
    let max_cid = if edge { 255 } else { 127 };
    let mut players: Vec<Player> = Vec::new();
    let mut objects = 0u32;
    let mut tick = 0;
    // Every extension kind (and an unknown one) comes up in turn.
    let mut next_ex = rng.below(EX_ROTATION as u64) as usize;
    let ticks = rng.int(20, 60);
    for _ in 0..ticks {
        tick += match rng.below(10) {
            0 if edge => rng.int(2, 1_000_000),
            0 | 1 => rng.int(2, 50),
            _ => 1,
        };
        rec.tick(tick);
        // Player records first, in ascending cid order, as DDNet writes them.
        players.sort_by_key(|p| p.cid);
        for p in &mut players {
            if p.alive && rng.one_in(15) {
                p.alive = false;
                rec.record_dead_player(p.cid).expect("ascending cids");
            } else if p.alive || rng.one_in(3) {
                if !p.alive || rng.one_in(2) {
                    let (dx, dy) = if edge {
                        (rng.any_int(), rng.any_int())
                    } else {
                        (rng.int(-32, 32), rng.int(-32, 32))
                    };
                    p.x = p.x.wrapping_add(dx);
                    p.y = p.y.wrapping_add(dy);
                }
                if !p.alive {
                    objects += 1;
                    p.object = objects;
                }
                p.alive = true;
                rec.record_player(p.cid, p.x, p.y).expect("ascending cids");
            }
        }
        for p in &players {
            if p.alive && rng.one_in(2) {
                let mut input = [0; 10];
                for v in &mut input {
                    *v = if edge { rng.any_int() } else { rng.int(-1, 1) };
                }
                rec.record_player_input(p.cid, p.object, &input)
                    .expect("non-negative cid");
            }
        }
        // Joins.
        if players.len() < 16 && (players.is_empty() || rng.one_in(4)) {
            let cid = loop {
                let cid = rng.int(0, max_cid);
                if players.iter().all(|p| p.cid != cid) {
                    break cid;
                }
            };
            let protocol = *rng.pick(&[Version::V06, Version::V07]);
            rec.record_player_join(cid, protocol);
            rec.record_ex(Ex::PlayerName {
                cid,
                name: Text::from(format!("tee{cid}").as_str()).into_owned(),
            });
            players.push(Player {
                cid,
                alive: false,
                x: rng.int(0, 10_000),
                y: rng.int(0, 10_000),
                object: 0,
            });
        }
        // Messages, commands, extensions.
        if let Some(p) = players
            .get(rng.below(players.len() as u64) as usize)
            .copied()
        {
            match rng.below(4) {
                0 => {
                    let data = super::packet::message(rng, crate::packet::Version::V06);
                    rec.record_player_message(p.cid, &data);
                }
                1 => {
                    let arg = rng.text(12);
                    rec.record_console_command(p.cid, 128, "say", &[arg.as_str()]);
                }
                _ => {
                    let cids: Vec<i32> = players.iter().map(|p| p.cid).collect();
                    extension(rng, &mut rec, next_ex, &cids);
                    next_ex = (next_ex + 1) % EX_ROTATION;
                }
            }
        }
        // Leaves: the character is gone the tick before.
        if players.len() > 1 && rng.one_in(8) {
            let i = rng.below(players.len() as u64) as usize;
            let p = players[i];
            if !p.alive {
                players.swap_remove(i);
                let reason = *rng.pick::<&str>(&["", "Kicked", "Timeout"]);
                rec.record_player_drop(p.cid, reason);
            }
        }
    }
    if finish {
        rec.finish();
    }
    (rec.into_bytes(), ticks)
}

/// The known extensions less JOINVER6/7 (written by joins) plus one
/// unknown.
const EX_ROTATION: usize = 20;

fn extension(rng: &mut Rng, rec: &mut Recorder, k: usize, cids: &[i32]) {
    let cid = *rng.pick(cids);
    let team = rng.int(0, 63);
    let uuid = Uuid::from_u64_pair(rng.next_u64(), rng.next_u64());
    let save = format!("team {team}\n{}", rng.text(20));
    let ex = match k {
        0 => Ex::Test {},
        1 => Ex::DdnetverOld {
            cid,
            version: rng.int(0, 20_010),
        },
        2 => Ex::Ddnetver {
            cid,
            connection_id: uuid,
            version: 20_010,
            version_str: Text::from("DDNet 20.1"),
        },
        3 => Ex::AuthInit {
            cid,
            level: rng.int(1, 3),
            auth_name: Text::from("admin"),
        },
        4 => Ex::AuthLogin {
            cid,
            level: rng.int(1, 3),
            auth_name: Text::from("moderator"),
        },
        5 => Ex::AuthLogout { cid },
        6 => Ex::PlayerSwap {
            cid1: cid,
            cid2: *rng.pick(cids),
        },
        7 => Ex::SaveSuccess {
            team,
            save_id: uuid,
            save: Text::from(save.as_str()).into_owned(),
        },
        8 => Ex::SaveFailure { team },
        9 => Ex::LoadSuccess {
            team,
            save_id: uuid,
            save: Text::from(save.as_str()).into_owned(),
        },
        10 => Ex::LoadFailure { team },
        11 => {
            // Written only on change: flip to another team.
            let _ = rec.record_player_team(cid, team + 1);
            return;
        }
        12 => {
            let _ = rec.record_team_practice(team, rng.one_in(2));
            return;
        }
        13 => Ex::PlayerReady { cid },
        14 => Ex::Rejoinver6 { cid },
        15 => Ex::Antibot {
            data: Blob::from(rng.some_bytes(0, 23)),
        },
        16 => Ex::PlayerName {
            cid,
            name: Text::from(rng.text(15).as_str()).into_owned(),
        },
        17 => Ex::PlayerFinish {
            cid,
            time: rng.int(1, 1_000_000),
        },
        18 => Ex::TeamFinish {
            team,
            time: rng.int(1, 1_000_000),
        },
        _ => Ex::UnknownEx {
            uuid: unknown_uuid(rng),
            data: Blob::from(rng.some_bytes(0, 15)),
        },
    };
    rec.record_ex(ex);
}

/// A UUID no known extension has (kept raw by readers).
fn unknown_uuid(rng: &mut Rng) -> Uuid {
    loop {
        let u = calculate_uuid(&format!("gen-{}@teeoracle", rng.next_u64()));
        if ExKind::from_uuid(&u).is_none() {
            return u;
        }
    }
}

/// A valid file at the limits, or one of DDNet's quirks.
fn edge(rng: &mut Rng) -> Made {
    match rng.below(3) {
        0 => {
            let (bytes, _) = record(rng, true, true);
            Made::valid(
                bytes,
                "cids up to 255, positions and inputs at int limits, tick skips up to 1000000",
            )
        }
        1 => {
            // DDNet's reader takes a known extension's payload length as
            // given: bytes after the fields are skipped (kept as `trailing`).
            let (mut bytes, _) = record(rng, false, false);
            let msg = Message::Ex(Box::new(ExMessage {
                ex: Ex::PlayerReady { cid: 0 },
                trailing: Blob::from(rng.some_bytes(1, 8)),
            }));
            crate::codec::Codec::encode(&msg, &mut bytes, ());
            crate::codec::Codec::encode(&Message::Finish, &mut bytes, ());
            Made::valid(
                bytes,
                "a known extension with bytes after its fields (DDNet skips them)",
            )
        }
        _ => {
            // DDNet's varint reader takes up to five bytes for any value.
            let (mut bytes, _) = record(rng, false, false);
            crate::codec::Codec::encode(&VarInt::with_form(id::FINISH, 5, 0), &mut bytes, ());
            Made::valid(bytes, "FINISH written as a 5-byte varint (DDNet reads it)")
        }
    }
}

/// A file that fails at a stated byte.
fn malformed(rng: &mut Rng) -> Made {
    let (mut bytes, _) = record(rng, false, false);
    match rng.below(3) {
        0 => {
            let at = rng.below(16) as usize;
            bytes[at] ^= 1 << rng.below(8);
            Made::faulty(
                bytes,
                "a bit flipped in the magic UUID",
                0,
                "not_this_format",
            )
        }
        1 => {
            let at = bytes.len() as u64;
            write_int(&mut bytes, rng.int(-64, -12));
            Made::faulty(
                bytes,
                "a message id below EX (-11), whose length is unknown",
                at,
                "unknown_message_id",
            )
        }
        _ => {
            // An EX record with a negative payload length.
            write_int(&mut bytes, id::EX);
            bytes.extend_from_slice(unknown_uuid(rng).as_bytes());
            let at = bytes.len() as u64;
            write_int(&mut bytes, rng.int(i32::MIN, -1));
            bytes.extend(rng.some_bytes(0, 8));
            Made::faulty(
                bytes,
                "an extension with a negative payload length",
                at,
                "negative_length",
            )
        }
    }
}
