//! The bot's protocol, tick by tick, against hand-made server datagrams.

use super::*;
use crate::packet::json::PacketJson;

#[test]
fn a_bot_connects_as_ddnet_expects() {
    let mut bot = Bot::new("alice", Version::V06, 1);
    bot.connect();
    // CONNECT: control, token ffffffff, `TKEN`.
    assert_eq!(
        hex::encode(bot.poll_transmit().unwrap()),
        "10000001544b454effffffff"
    );
    // The server's CONNECTACCEPT with its token; the ACCEPT, as in the
    // corpus capture A (frames 2 and 3).
    bot.receive(&hex::decode("10000002544b454eee2b3b76").unwrap());
    assert_eq!(bot.phase(), Phase::Joining, "the join is sent whole");
    assert_eq!(
        hex::encode(bot.poll_transmit().unwrap()),
        "10000003ee2b3b76"
    );
    // Then INFO, READY, the start info and ENTERGAME in one packet,
    // vital 1 to 4, carrying the token.
    let join = bot.poll_transmit().unwrap();
    assert_eq!(bot.poll_transmit(), None);
    assert_eq!(
        messages_in(&join),
        vec![
            (1, "INFO".to_string()),
            (2, "READY".to_string()),
            (3, "Cl_StartInfo".to_string()),
            (4, "ENTERGAME".to_string())
        ],
        "the join's packet"
    );
    assert!(hex::encode(&join).ends_with("ee2b3b76"), "no token");
    // The server's MAP_CHANGE and CON_READY of the join need no
    // answer; the map is no map change.
    bot.receive(&from_server(1, &[map_change("dm1")]));
    bot.receive(&from_server(
        2,
        &[json!({"system": true, "name": "CON_READY", "fields": {}})],
    ));
    assert_eq!(bot.map_changes(), 0, "the join's map counted as a change");
    assert_eq!(bot.phase(), Phase::InGame);
    bot.flush();
    assert_eq!(bot.poll_transmit(), None, "the join's map was answered");
}

/// The (vital sequence, message name) of each chunk of a 0.6 datagram.
#[test]
fn the_answer_to_the_map_change_probe_is_kept_until_the_next_change() {
    let timing = |tick: i32, left: i32| {
        json!({"system": true, "name": "INPUTTIMING",
            "fields": {"intended_tick": tick, "time_left": left}})
    };
    let mut bot = in_game();
    bot.receive(&from_server(3, &[timing(PROBE_TICK, 9)]));
    assert_eq!(
        bot.probe_answer(),
        None,
        "an answer in the game is no probe's"
    );
    bot.receive(&from_server(4, &[map_change("ctf1")]));
    bot.receive(&from_server(5, &[timing(PROBE_TICK + 1, 7)]));
    assert_eq!(bot.probe_answer(), None, "an answer for another tick");
    bot.receive(&from_server(6, &[timing(PROBE_TICK, -3)]));
    assert_eq!(bot.probe_answer(), Some(-3), "the probe's answer");
    bot.rejoin();
    bot.receive(&from_server(7, &[map_change("ctf2")]));
    assert_eq!(
        bot.probe_answer(),
        None,
        "a new map forgets the last answer"
    );
}

fn messages_in(d: &[u8]) -> Vec<(u64, String)> {
    let ctx = PacketCtx {
        version: Some(Version::V06),
        token: TokenMode::Present,
    };
    let packet = Packet::decode(&mut Reader::new(d, Mode::Strict), ctx).unwrap();
    let Packet::Connection(p) = &packet else {
        return Vec::new();
    };
    let contents = p.contents();
    let v = serde_json::to_value(PacketJson::new(&packet, contents.as_ref(), 0)).unwrap();
    v["chunks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["seq"].as_u64().unwrap_or(0),
                c["message"]["name"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect()
}

#[test]
fn an_input_sent_with_the_join_follows_entergame_in_its_packet() {
    let mut bot = Bot::new("alice", Version::V06, 1);
    bot.input_with_join([1, 0, 0, 1, 3, 1, 4, 2, 5, 6]);
    bot.connect();
    bot.poll_transmit();
    bot.receive(&hex::decode("10000002544b454eee2b3b76").unwrap());
    bot.poll_transmit();
    let join = bot.poll_transmit().unwrap();
    assert_eq!(
        messages_in(&join),
        vec![
            (1, "INFO".to_string()),
            (2, "READY".to_string()),
            (3, "Cl_StartInfo".to_string()),
            (4, "ENTERGAME".to_string()),
            (0, "INPUT".to_string())
        ]
    );
    let ctx = PacketCtx {
        version: Some(Version::V06),
        token: TokenMode::Present,
    };
    let packet = Packet::decode(&mut Reader::new(&join, Mode::Strict), ctx).unwrap();
    let Packet::Connection(p) = &packet else {
        panic!("not a connection packet");
    };
    let contents = p.contents();
    let v = serde_json::to_value(PacketJson::new(&packet, contents.as_ref(), 0)).unwrap();
    assert_eq!(
        v["chunks"][4]["message"]["fields"],
        json!({"ack_tick": -1, "intended_tick": 0, "size": 40,
            "input": [1, 0, 0, 1, 3, 1, 4, 2, 5, 6]}),
        "the join's input: no snapshot acknowledged, a tick long past"
    );
    // Only once: not again at a map change's rejoin.
    bot.receive(&from_server(1, &[map_change("dm1")]));
    bot.receive(&from_server(2, &[map_change("ctf1")]));
    bot.rejoin();
    assert_eq!(
        inputs_sent(&mut bot),
        vec![(-1, i64::from(PROBE_TICK))],
        "the rejoin sends the map change's probe, not the join's input again"
    );
}

#[test]
fn set_team_is_a_vital_cl_set_team() {
    let mut bot = in_game();
    bot.set_team(-1);
    bot.flush();
    assert_eq!(
        messages_in(&bot.poll_transmit().unwrap()),
        vec![(5, "Cl_SetTeam".to_string())]
    );
}

#[test]
fn kill_is_a_vital_cl_kill() {
    let mut bot = in_game();
    bot.kill();
    bot.flush();
    assert_eq!(
        messages_in(&bot.poll_transmit().unwrap()),
        vec![(5, "Cl_Kill".to_string())],
        "vital 5, after the join's INFO, READY, start info and ENTERGAME"
    );
}

#[test]
fn a_silent_bot_says_one_last_keepalive() {
    let mut bot = in_game();
    bot.go_silent();
    assert_eq!(
        hex::encode(bot.poll_transmit().unwrap()),
        "10020000ee2b3b76",
        "KEEPALIVE acknowledging vital 2"
    );
    assert_eq!(bot.phase(), Phase::Closed);
    bot.send_inputs(2, 0, |_| [0; 10]);
    bot.say("still here");
    bot.keepalive();
    assert_eq!(bot.poll_transmit(), None, "a silent bot sent something");
}

#[test]
fn a_map_change_is_answered_with_ready_and_entergame_in_one_packet_at_rejoin() {
    let mut bot = in_game();
    bot.receive(&from_server(3, &[map_change("ctf1")]));
    assert_eq!(bot.phase(), Phase::MapChanged);
    assert_eq!(bot.map_changes(), 1);
    bot.keepalive();
    // Before the rejoin only the probe goes out: an INPUT for the new
    // map's tick 1 that acknowledges no snapshot.
    assert_eq!(
        inputs_sent(&mut bot),
        vec![(-1, i64::from(PROBE_TICK))],
        "what was sent before the rejoin"
    );
    bot.rejoin();
    assert_eq!(bot.phase(), Phase::InGame);
    assert_eq!(
        messages_in(&bot.poll_transmit().unwrap()),
        vec![
            (5, "READY".to_string()),
            (6, "Cl_StartInfo".to_string()),
            (7, "ENTERGAME".to_string())
        ]
    );
    // Its CON_READY needs no answer.
    bot.receive(&from_server(
        4,
        &[json!({"system": true, "name": "CON_READY", "fields": {}})],
    ));
    bot.flush();
    assert_eq!(bot.poll_transmit(), None);
}

/// A server datagram (0.6, with a token) carrying `messages` as vital
/// chunks numbered from `first_seq`.
fn from_server(first_seq: u16, messages: &[Value]) -> Vec<u8> {
    let chunks: Vec<Value> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| json!({"flags": 1, "seq": first_seq + i as u16, "message": m}))
        .collect();
    let entry = json!({"version": "0.6", "packet": {"form": "connection", "flags": 0,
        "ack": 0, "token": "ee2b3b76", "chunks": chunks}});
    spec::encode(&entry).unwrap().remove(0)
}

fn map_change(name: &str) -> Value {
    json!({"system": true, "name": "MAP_CHANGE",
        "fields": {"name": name, "crc": 1, "size": 2}})
}

fn snap_empty(tick: i32) -> Value {
    json!({"system": true, "name": "SNAPEMPTY",
        "fields": {"tick": tick, "delta_tick": -1}})
}

/// The INPUT messages' (ack_tick, intended_tick) in what the bot sent.
fn inputs_sent(bot: &mut Bot) -> Vec<(i64, i64)> {
    let (fields, _) = input_fields_sent(bot);
    let int = |f: &Value, name: &str| f[name].as_i64().unwrap();
    (fields.iter())
        .map(|f| (int(f, "ack_tick"), int(f, "intended_tick")))
        .collect()
}

/// The INPUT messages' fields in what the bot sent, and the size of each
/// datagram.
fn input_fields_sent(bot: &mut Bot) -> (Vec<Value>, Vec<usize>) {
    let (mut found, mut sizes) = (Vec::new(), Vec::new());
    while let Some(d) = bot.poll_transmit() {
        sizes.push(d.len());
        let ctx = PacketCtx {
            version: Some(Version::V06),
            token: TokenMode::Present,
        };
        let packet = Packet::decode(&mut Reader::new(&d, Mode::Strict), ctx).unwrap();
        let Packet::Connection(p) = &packet else {
            continue;
        };
        let contents = p.contents();
        let v = serde_json::to_value(PacketJson::new(&packet, contents.as_ref(), 0)).unwrap();
        for chunk in v["chunks"].as_array().into_iter().flatten() {
            let m = &chunk["message"];
            if m["name"] == "INPUT" {
                found.push(m["fields"].clone());
            }
        }
    }
    (found, sizes)
}

/// A bot in the game on its first map (vital chunks 1 and 2 used).
fn in_game() -> Bot {
    let mut bot = Bot::new("alice", Version::V06, 1);
    bot.connect();
    bot.receive(&hex::decode("10000002544b454eee2b3b76").unwrap());
    bot.receive(&from_server(1, &[map_change("dm1")]));
    bot.receive(&from_server(
        2,
        &[json!({"system": true, "name": "CON_READY", "fields": {}})],
    ));
    assert_eq!(bot.phase(), Phase::InGame, "the bot did not enter the game");
    while bot.poll_transmit().is_some() {}
    bot
}

#[test]
fn after_a_map_change_the_bot_acknowledges_the_new_maps_ticks() {
    let mut bot = in_game();
    bot.receive(&from_server(3, &[snap_empty(900)]));
    bot.send_inputs(2, 0, |_| [0; 10]);
    assert_eq!(
        inputs_sent(&mut bot),
        vec![(900, 901), (900, 902)],
        "inputs on the first map"
    );
    // The map changes; its ticks start again, far below 900.
    bot.receive(&from_server(4, &[map_change("ctf1")]));
    assert_eq!(bot.snap_tick(), -1, "the old map's tick was kept");
    assert_eq!(bot.map_changes(), 1, "the map change was not counted");
    assert_eq!(bot.phase(), Phase::MapChanged);
    assert_eq!(bot.poll_transmit(), None, "answered before rejoin");
    bot.rejoin();
    assert_eq!(bot.phase(), Phase::InGame);
    assert!(bot.poll_transmit().is_some(), "rejoin sent nothing");
    bot.receive(&from_server(
        5,
        &[json!({"system": true, "name": "CON_READY", "fields": {}})],
    ));
    while bot.poll_transmit().is_some() {}
    bot.send_inputs(2, 0, |_| [0; 10]);
    assert_eq!(
        inputs_sent(&mut bot),
        vec![],
        "inputs before a snapshot of the new map"
    );
    bot.receive(&from_server(6, &[snap_empty(10)]));
    bot.send_inputs(2, 0, |_| [0; 10]);
    assert_eq!(
        inputs_sent(&mut bot),
        vec![(10, 11), (10, 12)],
        "the INPUTs after the map change must acknowledge its tick 10"
    );
}

fn snap_part(tick: i32, num_parts: i32, part: i32) -> Value {
    json!({"system": true, "name": "SNAP",
        "fields": {"tick": tick, "delta_tick": 1, "num_parts": num_parts, "part": part,
            "crc": 0, "part_size": 2, "data": "0000"}})
}

#[test]
fn a_snapshot_in_parts_counts_once_its_last_part_came() {
    let mut bot = in_game();
    bot.receive(&from_server(3, &[snap_empty(100)]));
    bot.receive(&from_server(4, &[snap_part(102, 3, 0)]));
    bot.receive(&from_server(5, &[snap_part(102, 3, 2)]));
    assert_eq!(bot.snap_tick(), 100, "two of three parts of tick 102");
    // A part of another tick starts afresh, as DDNet's client does:
    // tick 102's last part no longer completes it.
    bot.receive(&from_server(6, &[snap_part(104, 2, 1)]));
    bot.receive(&from_server(7, &[snap_part(102, 3, 1)]));
    assert_eq!(
        bot.snap_tick(),
        100,
        "tick 102's parts were dropped for 104's"
    );
    bot.receive(&from_server(8, &[snap_part(104, 2, 1)]));
    bot.receive(&from_server(9, &[snap_part(104, 2, 0)]));
    assert_eq!(bot.snap_tick(), 104, "both parts of tick 104 came");
}

#[test]
fn every_tick_gets_one_input_sent_ahead_with_its_intended_tick() {
    let mut bot = in_game();
    bot.receive(&from_server(3, &[snap_empty(100)]));
    bot.send_inputs(3, 0, |_| [0; 10]);
    // Snapshots every other tick (DDNet's default), then one lost.
    bot.receive(&from_server(4, &[snap_empty(102)]));
    bot.send_inputs(3, 0, |_| [0; 10]);
    bot.receive(&from_server(5, &[snap_empty(108)]));
    bot.send_inputs(3, 0, |_| [0; 10]);
    // An old snapshot arriving late changes nothing.
    bot.receive(&from_server(6, &[snap_empty(104)]));
    bot.send_inputs(3, 0, |_| [0; 10]);
    let sent = inputs_sent(&mut bot);
    let intended: Vec<i64> = sent.iter().map(|s| s.1).collect();
    assert_eq!(
        intended,
        (101..=111).collect::<Vec<_>>(),
        "each tick once, in order, 3 ahead: {sent:?}"
    );
    assert_eq!(
        sent.last().map(|s| s.0),
        Some(108),
        "ack of the newest: {sent:?}"
    );
}

#[test]
fn no_input_is_sent_for_a_tick_before_from() {
    let mut bot = in_game();
    bot.receive(&from_server(3, &[snap_empty(100)]));
    bot.send_inputs(3, 110, |_| [0; 10]);
    // The first one at once (it acknowledges the snapshot), then each
    // in its time.
    assert_eq!(inputs_sent(&mut bot), vec![(100, 110)], "the first input");
    bot.receive(&from_server(4, &[snap_empty(106)]));
    bot.send_inputs(3, 110, |_| [0; 10]);
    assert_eq!(inputs_sent(&mut bot), vec![], "inputs before their time");
    bot.receive(&from_server(5, &[snap_empty(108)]));
    bot.send_inputs(3, 110, |_| [0; 10]);
    assert_eq!(
        inputs_sent(&mut bot),
        vec![(108, 111)],
        "the next input is for tick 111"
    );
}

#[test]
fn movement_depends_on_the_seed_and_the_tick_only() {
    let a: Vec<_> = (0..500).map(|t| movement(7, t)).collect();
    let b: Vec<_> = (0..500).rev().map(|t| movement(7, t)).collect();
    let b: Vec<_> = b.into_iter().rev().collect();
    assert_eq!(a, b, "movement depends on the order it is asked in");
    let other: Vec<_> = (0..500).map(|t| movement(8, t)).collect();
    assert_ne!(a, other, "two seeds move alike");
    let jumps = a.iter().filter(|i| i[3] == 1).count();
    let turns = a.windows(2).filter(|w| w[0][0] != w[1][0]).count();
    assert!((5..=40).contains(&jumps), "{jumps} jumps in 500 ticks");
    assert!(
        (3..=20).contains(&turns),
        "{turns} changes of direction in 500 ticks"
    );
}

/// DDNet takes a tick's inputs in the order of its ring of 200: a burst
/// that would wrap around its end is preceded, right after the last
/// input, by fillers (copies of it, for a tick no run reaches) that take
/// the ring to its start; a packet over 1,400 bytes is split.
#[test]
fn a_burst_that_would_wrap_the_servers_ring_of_inputs_starts_it_again() {
    let mut bot = in_game();
    bot.receive(&from_server(3, &[snap_empty(100)]));
    let input = |tick: i32, i: usize| [0, tick, i as i32 + 1, 0, 0, 0, 0, 0, 0, 0];
    let plan = |tick: i32| match tick {
        291 => (0..15).map(|i| input(tick, i)).collect(),
        _ => vec![input(tick, 0)],
    };
    bot.send_inputs_between(101, 200, plan);
    bot.send_inputs_between(201, 290, plan);
    bot.send_inputs_between(291, 291, plan);
    let (fields, sizes) = input_fields_sent(&mut bot);
    assert!(sizes.iter().all(|&n| n <= MAX_PACKET_SIZE), "{sizes:?}");
    let seen: Vec<(i64, Vec<i64>)> = (fields.iter())
        .map(|f| {
            let data = f["input"].as_array().unwrap();
            let data = data.iter().map(|v| v.as_i64().unwrap()).collect();
            (f["intended_tick"].as_i64().unwrap(), data)
        })
        .collect();
    assert_eq!(seen.len(), 190 + 10 + 15, "inputs, fillers, the burst");
    let last_before = seen[189].clone();
    assert_eq!(last_before.0, 290);
    for (tick, data) in &seen[190..200] {
        assert!(
            *tick > 290 + 50 * 60,
            "a filler for a tick a run reaches: {tick}"
        );
        assert_eq!(data, &last_before.1, "a filler that is no copy");
    }
    let burst: Vec<i64> = seen[200..].iter().map(|(_, d)| d[2]).collect();
    assert_eq!(burst, (1..=15).collect::<Vec<_>>(), "the burst, in order");
    assert!(seen[200..].iter().all(|(t, _)| *t == 291));
}
