//! A bot: a sans-IO 0.6 client (with DDNet's security token) or 0.7
//! client (Teeworlds 0.7.5's tokens), for
//! `teeoracle record`. It is fed the server's datagrams and the time, and
//! gives the datagrams to send; it has no socket and no clock. Every
//! datagram it sends is made by the crate's own packet encoder
//! ([`crate::packet::spec`]), every one it receives read by its decoder.
//!
//! What it does, as DDNet 16.4's and 20.1's servers expect of a client:
//! CONNECT (`TKEN`; 0.7, as Teeworlds 0.7.5 expects: TOKEN with its own
//! token, then CONNECT with the server's). Once the server has answered
//! (0.6 CONNECTACCEPT with the server's token, 0.7 TOKEN), the whole
//! join goes out at once, in two datagrams sent back to back: ACCEPT
//! (0.7: CONNECT), then INFO, READY, its start info and ENTERGAME in one
//! packet. The server reads both in one pass over its socket, so the join
//! lands on one server tick, the tick the answer was asked in, whatever
//! the machine's load; a bot needs no map (the server does not check), so
//! the server's MAP_CHANGE and CON_READY of the join need no answer. A
//! MAP_CHANGE while in the game is answered with READY, the start info
//! and ENTERGAME in one packet when the caller says ([`Bot::rejoin`]):
//! DDNet sends MAP_CHANGE, then sets up the new map's game before its
//! first tick, which can take longer than a tick, so an answer sent at
//! once lands on tick 0 or 1 as the machine's load decides. Once a
//! snapshot of the map has
//! come, an INPUT goes out for every server tick, sent ahead with the
//! tick it is meant for ([`Bot::send_inputs`]: DDNet keeps an input until
//! its intended tick, so it is applied on exactly that tick),
//! acknowledging the newest snapshot of the current map (a MAP_CHANGE
//! starts the acknowledged tick and the inputs anew: ticks restart with
//! the map); chat lines and remote console commands when asked; CLOSE to
//! leave. Vital chunks are numbered from 1 and every packet acknowledges
//! the server's last in-order vital chunk. When to do each is the
//! caller's ([`crate`]'s `record` sends each in the middle of its server
//! tick).
//!
//! Movement ([`movement`]) is a function of the seed and the tick only,
//! so two runs of a scenario send the same inputs for the same ticks.

use crate::codec::{Codec, Mode, Reader};
use crate::generate::Rng;

use crate::packet::{Message, Packet, PacketCtx, TokenMode, Version, spec};
use serde_json::{Value, json};
use std::collections::VecDeque;

/// The 0.6 network version string DDNet's clients send.
pub const NET_VERSION: &str = "0.6 626fce9a778df4d4";
/// The 0.7 network version string Teeworlds 0.7.5's client sends.
pub const NET_VERSION_07: &str = "0.7 802f1be60a05665f";
/// Teeworlds 0.7.5's client version (INFO's last field).
const CLIENT_VERSION_07: i32 = 0x0705;
/// The new map's tick a bot's probe at a map change asks about
/// ([`Bot::probe_answer`]).
pub const PROBE_TICK: i32 = 1;

/// Where a bot is in its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not started.
    Idle,
    /// CONNECT sent.
    Connecting,
    /// The server answered; the join waits for [`Bot::join_now`].
    Answered,
    /// The whole join sent; waiting for the server's MAP_CHANGE, which
    /// says it was accepted (a refusal is a CLOSE).
    Joining,
    /// In the game: inputs every tick.
    InGame,
    /// The map changed while in the game; back in it at [`Bot::rejoin`].
    MapChanged,
    /// CLOSE sent or received.
    Closed,
}

/// One bot.
pub struct Bot {
    name: String,
    version: Version,
    phase: Phase,
    /// 0.7: the token this client chose (the server puts it in the
    /// header of what it sends).
    own_token: [u8; 4],
    /// The server's token for this connection (from CONNECTACCEPT).
    token: [u8; 4],
    /// The last vital sequence sent.
    seq: u16,
    /// The last in-order vital sequence received.
    ack: u16,
    /// The newest snapshot tick received on the current map (-1: none
    /// yet, as DDNet's client says).
    snap_tick: i32,
    /// The multi-part snapshot being received: its tick and the parts
    /// come so far (a bit each, up to 64 parts).
    parts: Option<(i32, u64)>,
    /// The next server tick an input is to be sent for (on this map).
    next_input: Option<i32>,
    /// Map changes seen while in the game (not the first map).
    map_changes: u32,
    /// The server's answer to the probe sent at the last map change: how
    /// many milliseconds were left to the new map's tick [`PROBE_TICK`]
    /// when it read the probe.
    probe_answer: Option<i32>,
    /// Messages to send with the next packet: (vital, message JSON).
    queued: Vec<(bool, Value)>,
    out: VecDeque<Vec<u8>>,
    input: [i32; 10],
    /// Why the server closed the connection, if it did.
    closed_by_server: Option<String>,
    /// The join waits for [`Bot::join_now`] ([`Bot::connect_ahead`]).
    hold: bool,
    /// Ticks spent connecting (CONNECT is sent again every second: the
    /// server may not be listening yet).
    waited: u32,
}

impl Bot {
    /// A bot called `name`, moving as `seed` says.
    pub fn new(name: &str, version: Version, seed: u64) -> Bot {
        let mut rng = Rng::new(seed);
        let own_token = (rng.next_u64() as u32).to_be_bytes();
        Bot {
            name: name.to_string(),
            version,
            own_token,
            phase: Phase::Idle,
            token: [0xff; 4],
            seq: 0,
            ack: 0,
            snap_tick: -1,
            parts: None,
            next_input: None,
            map_changes: 0,
            probe_answer: None,
            queued: Vec::new(),
            out: VecDeque::new(),
            input: [0; 10],
            closed_by_server: None,
            hold: false,
            waited: 0,
        }
    }

    /// Where it is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The newest snapshot tick it received on the current map (-1:
    /// none yet).
    pub fn snap_tick(&self) -> i32 {
        self.snap_tick
    }

    /// How many times the map changed while it was in the game.
    pub fn map_changes(&self) -> u32 {
        self.map_changes
    }

    /// The server's reason, if the server closed the connection.
    pub fn closed_by_server(&self) -> Option<&str> {
        self.closed_by_server.as_deref()
    }

    /// Starts connecting.
    pub fn connect(&mut self) {
        self.phase = Phase::Connecting;
        self.hello();
    }

    /// The first datagram: 0.6 CONNECT with DDNet's `TKEN`; 0.7 TOKEN
    /// with this client's token, padded to 512 bytes as Teeworlds' client
    /// pads it.
    fn hello(&mut self) {
        match self.version {
            Version::V06 => self.control("CONNECT", b"TKEN"),
            _ => self.control("TOKEN", &padded(self.own_token)),
        }
    }

    /// The server answered the hello: the join now, or at [`Bot::join_now`]
    /// when it was held.
    fn answered(&mut self) {
        match self.hold {
            true => self.phase = Phase::Answered,
            false => self.accept_and_join(),
        }
    }

    /// ACCEPT (0.7: CONNECT with the server's token), then the join.
    fn accept_and_join(&mut self) {
        match self.version {
            Version::V06 => self.control("ACCEPT", b""),
            _ => self.control("CONNECT", &padded(self.own_token)),
        }
        self.join();
    }

    /// Starts connecting, holding the join until [`Bot::join_now`]: the
    /// server's answer to the hello holds no state (its token is made
    /// from the address), so the hello can go out ahead and the join
    /// itself, which the server handles in one pass, on its tick.
    pub fn connect_ahead(&mut self) {
        self.hold = true;
        self.connect();
    }

    /// Sends the held join now (or as soon as the server answers).
    pub fn join_now(&mut self) {
        self.hold = false;
        if self.phase == Phase::Answered {
            self.accept_and_join();
        }
    }

    /// The rest of the join in one packet, after ACCEPT (0.7: CONNECT):
    /// INFO, READY, the start info and ENTERGAME. The server handles them
    /// in order in the same pass (READY needs the state INFO leaves,
    /// ENTERGAME the start info), so the bot is in the game on the tick
    /// the server accepted it.
    fn join(&mut self) {
        let fields = match self.version {
            Version::V06 => json!({"version": NET_VERSION, "password": ""}),
            _ => json!({"version": NET_VERSION_07, "password": "",
                "client_version": CLIENT_VERSION_07}),
        };
        self.queued.push((
            true,
            json!({"system": true, "name": "INFO", "fields": fields}),
        ));
        self.queued
            .push((true, json!({"system": true, "name": "READY", "fields": {}})));
        self.enter();
        self.phase = Phase::Joining;
    }

    /// The start info and ENTERGAME, sent; in the game.
    fn enter(&mut self) {
        let fields = match self.version {
            Version::V06 => json!({"name": self.name, "clan": "teeoracle",
                "country": -1, "skin": "default", "use_custom_color": 0,
                "color_body": 0, "color_feet": 0}),
            _ => json!({"name": self.name, "clan": "teeoracle", "country": -1,
                "skin_part_names": ["standard", "", "", "standard", "standard", "standard"],
                "use_custom_colors": [0, 0, 0, 0, 0, 0],
                "skin_part_colors": [0, 0, 0, 0, 0, 0]}),
        };
        let info = json!({"system": false, "name": "Cl_StartInfo", "fields": fields});
        self.queued.push((true, info));
        self.queued.push((
            true,
            json!({"system": true, "name": "ENTERGAME", "fields": {}}),
        ));
        self.phase = Phase::InGame;
        self.flush();
    }

    /// Back in the game after a map change: READY, the start info and
    /// ENTERGAME in one packet, as in the join, so that the server
    /// handles them on one tick. Nothing unless the map changed.
    pub fn rejoin(&mut self) {
        if self.phase == Phase::MapChanged {
            self.queued
                .push((true, json!({"system": true, "name": "READY", "fields": {}})));
            self.enter();
        }
    }

    /// Stops answering (the server times the client out), after one
    /// last KEEPALIVE, so that the server's timeout counts from now (the
    /// moment the caller chose) rather than from the last input.
    pub fn go_silent(&mut self) {
        self.out.clear();
        if !matches!(self.phase, Phase::Idle | Phase::Closed) {
            self.control("KEEPALIVE", b"");
        }
        self.phase = Phase::Closed;
    }

    /// Leaves with `reason` (nothing more is sent after it).
    pub fn leave(&mut self, reason: &str) {
        if self.phase != Phase::Closed && self.phase != Phase::Idle {
            self.control("CLOSE", reason.as_bytes());
            self.phase = Phase::Closed;
        }
    }

    /// Says `text` in chat (sent with the next tick).
    pub fn say(&mut self, text: &str) {
        let fields = match self.version {
            Version::V06 => json!({"team": 0, "message": text}),
            // Mode 1: to everyone.
            _ => json!({"mode": 1, "target": -1, "message": text}),
        };
        let msg = json!({"system": false, "name": "Cl_Say", "fields": fields});
        self.queued.push((true, msg));
    }

    /// Asks to die (Cl_Kill, no fields: the client's `kill`).
    pub fn kill(&mut self) {
        let msg = json!({"system": false, "name": "Cl_Kill", "fields": {}});
        self.queued.push((true, msg));
    }

    /// Logs in to the remote console (DDNet's RCON_AUTH: name, password).
    pub fn rcon_login(&mut self, password: &str) {
        let fields = match self.version {
            Version::V06 => json!({"name": "", "password": password, "send_cmds": 0}),
            _ => json!({"password": password}),
        };
        let msg = json!({"system": true, "name": "RCON_AUTH", "fields": fields});
        self.queued.push((true, msg));
    }

    /// Runs `command` in the remote console.
    pub fn rcon(&mut self, command: &str) {
        let msg = json!({"system": true, "name": "RCON_CMD", "fields": {"cmd": command}});
        self.queued.push((true, msg));
    }

    /// The next datagram to send, if any.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.out.pop_front()
    }

    /// Time passes (called every 20 ms or so): a connecting bot says
    /// hello again every 50 calls (the server may not be listening yet);
    /// queued messages go out.
    pub fn keepalive(&mut self) {
        if self.phase == Phase::Connecting {
            self.waited += 1;
            if self.waited.is_multiple_of(50) {
                self.hello();
            }
        }
        self.flush();
    }

    /// Sends, with the queued messages, an INPUT for every server tick from
    /// the last one sent up to `lead` ticks past the newest snapshot, each
    /// with its intended tick, so that the server applies each on exactly
    /// that tick. `input` gives the input for a server tick; none is sent
    /// for a tick before `from`, nor before the map's first snapshot.
    pub fn send_inputs(&mut self, lead: i32, from: i32, input: impl Fn(i32) -> [i32; 10]) {
        if self.phase != Phase::InGame || self.snap_tick < 0 {
            self.flush();
            return;
        }
        let last = self.snap_tick + lead;
        let first = self.next_input.unwrap_or(self.snap_tick + 1).max(from);
        // The first input goes out at once, however far ahead its tick:
        // it acknowledges a snapshot, so the server sends one every tick
        // from then on (before it, one every 10).
        let last = match self.next_input {
            None if from > last && from < i32::MAX => first,
            _ => last,
        };
        if first > last {
            self.flush();
            return;
        }
        // At most two seconds' worth at once: a gap longer than that is
        // skipped (the server uses the previous input meanwhile).
        let first = first.max(last - 100);
        for tick in first..=last {
            self.input = input(tick);
            let message = json!({
                "system": true,
                "name": "INPUT",
                "fields": {
                    "ack_tick": self.snap_tick,
                    "intended_tick": tick,
                    "size": 40,
                    "input": self.input,
                }
            });
            self.queued.push((false, message));
        }
        self.next_input = Some(last + 1);
        self.flush();
    }

    /// A datagram from the server.
    pub fn receive(&mut self, datagram: &[u8]) {
        let ctx = PacketCtx {
            version: Some(self.version),
            token: TokenMode::Present,
        };
        let Ok(packet) = Packet::decode(&mut Reader::new(datagram, Mode::Lenient), ctx) else {
            return;
        };
        let Packet::Connection(p) = &packet else {
            return;
        };
        if let Some((id, data)) = p.control() {
            let v06 = self.version == Version::V06;
            match id {
                // 0.7 TOKEN: the server's token; now CONNECT with it, and
                // the rest of the join.
                5 if !v06 && self.phase == Phase::Connecting => {
                    if let Some(t) = data.first_chunk::<4>() {
                        self.token = *t;
                        self.answered();
                    }
                }
                // 0.6 CONNECTACCEPT (the server's token is the packet's):
                // ACCEPT, and the rest of the join.
                2 if v06 && self.phase == Phase::Connecting => {
                    if let Some(t) = p.token {
                        self.token = t;
                    }
                    self.answered();
                }
                // CLOSE
                4 => {
                    let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
                    self.closed_by_server =
                        Some(String::from_utf8_lossy(&data[..end]).into_owned());
                    self.phase = Phase::Closed;
                }
                _ => {}
            }
            return;
        }
        let Some(contents) = p.contents() else {
            return;
        };
        for c in &contents.chunks {
            if c.chunk.header.vital() {
                // In order only: anything else is a resend or a gap.
                match c.chunk.header.seq(self.version) {
                    Some(seq) if seq == (self.ack + 1) % 1024 => self.ack = seq,
                    _ => continue,
                }
            }
            if let Ok(message) = &c.message {
                self.handle(message);
            }
        }
    }

    fn handle(&mut self, m: &Message<'_>) {
        let name = m.header.name(self.version).unwrap_or_default();
        match (m.header.sys, name) {
            // The join's map (READY was sent with the join): accepted.
            (true, "MAP_CHANGE") if self.phase == Phase::Joining => self.phase = Phase::InGame,
            // A map change while in the game: back in it at `rejoin`.
            (true, "MAP_CHANGE") if matches!(self.phase, Phase::InGame | Phase::MapChanged) => {
                // Ticks restart with the map: nothing of the previous
                // one is acknowledged or scheduled.
                self.map_changes += 1;
                self.snap_tick = -1;
                self.parts = None;
                self.next_input = None;
                self.phase = Phase::MapChanged;
                self.probe();
            }
            (true, "INPUTTIMING") if self.phase == Phase::MapChanged => {
                if let Some(Ok(fields)) = m.fields.as_ref()
                    && fields.int("intended_tick") == Some(PROBE_TICK)
                {
                    self.probe_answer = fields.int("time_left");
                }
            }
            // A snapshot counts (is acknowledged, and inputs follow it)
            // once whole, as DDNet's client counts it: SNAPSINGLE and
            // SNAPEMPTY at once, SNAP when its last missing part came.
            (true, "SNAP" | "SNAPSINGLE" | "SNAPEMPTY") if self.phase == Phase::InGame => {
                let Some(Ok(fields)) = m.fields.as_ref() else {
                    return;
                };
                let Some(tick) = fields.int("tick") else {
                    return;
                };
                if name == "SNAP" {
                    let (Some(n), Some(part)) = (fields.int("num_parts"), fields.int("part"))
                    else {
                        return;
                    };
                    if !(1..=64).contains(&n) || !(0..n).contains(&part) {
                        return;
                    }
                    let seen = match self.parts {
                        Some((t, seen)) if t == tick => seen,
                        _ => 0,
                    } | 1 << part;
                    let all = if n == 64 { u64::MAX } else { (1 << n) - 1 };
                    if seen != all {
                        self.parts = Some((tick, seen));
                        return;
                    }
                    self.parts = None;
                }
                self.snap_tick = self.snap_tick.max(tick.max(-1));
            }
            _ => {}
        }
    }

    /// Asks where the new map's ticks are: an INPUT for its tick
    /// [`PROBE_TICK`], acknowledging no snapshot, which DDNet answers with
    /// INPUTTIMING (the time left to that tick) whatever the client's
    /// state. Before the client is back in the game the input is only
    /// kept, never applied nor recorded, and the tick is past when it is.
    fn probe(&mut self) {
        self.probe_answer = None;
        let input = [0i32; 10];
        let message = json!({
            "system": true,
            "name": "INPUT",
            "fields": {"ack_tick": -1, "intended_tick": PROBE_TICK, "size": 40, "input": input}
        });
        self.queued.push((false, message));
    }

    /// The server's answer to the probe of the last map change: the
    /// milliseconds left to the new map's tick [`PROBE_TICK`] when it was
    /// read (negative: since it began), truncated towards zero.
    pub fn probe_answer(&self) -> Option<i32> {
        self.probe_answer
    }

    /// Sends the queued messages in one packet.
    pub fn flush(&mut self) {
        if self.queued.is_empty() || self.phase == Phase::Closed {
            return;
        }
        let mut chunks = Vec::new();
        for (vital, message) in std::mem::take(&mut self.queued) {
            let seq = if vital {
                self.seq = (self.seq + 1) % 1024;
                json!(self.seq)
            } else {
                Value::Null
            };
            chunks
                .push(json!({"flags": if vital { 1 } else { 0 }, "seq": seq, "message": message}));
        }
        let mut packet = json!({"form": "connection", "flags": 0, "ack": self.ack,
            "chunks": chunks});
        self.send(&mut packet);
    }

    fn control(&mut self, name: &str, data: &[u8]) {
        let flags = match self.version {
            Version::V06 => 4,
            _ => 1,
        };
        let mut packet = json!({"form": "connection", "control": true, "flags": flags,
            "ack": self.ack, "num_chunks": 0,
            "control_message": {"name": name, "data": hex::encode(data)}});
        self.send(&mut packet);
    }

    /// Sends a connection packet: 0.6 with DDNet's token at the end, 0.7
    /// with the server's token in the header.
    fn send(&mut self, packet: &mut Value) {
        let token = json!(hex::encode(self.token));
        let version = match self.version {
            Version::V06 => {
                packet["token"] = token;
                "0.6"
            }
            _ => {
                packet["header_token"] = token;
                "0.7"
            }
        };
        let entry = json!({"version": version, "packet": packet});
        // Built from the crate's own tables: a failure is this module's
        // bug, and the datagram is not sent.
        if let Ok(mut datagrams) = spec::encode(&entry) {
            self.out.extend(datagrams.drain(..));
        }
    }
}

/// A bot's input for scenario tick `tick`, moving as `seed` says: a
/// direction held for half a second, a target held for a fifth, now and
/// then a jump or a hook. A function of the seed and the tick only.
pub fn movement(seed: u64, tick: u32) -> [i32; 10] {
    let mixed = Rng::new(seed).next_u64();
    let draw = |what: u64, slot: u32| {
        let key = what.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ u64::from(slot);
        Rng::new(Rng::new(mixed ^ key).next_u64())
    };
    let mut input = [0; 10];
    input[0] = draw(1, tick / 25).int(-1, 1); // direction
    let mut target = draw(2, tick / 10);
    input[1] = target.int(-300, 300); // target x
    input[2] = target.int(-300, 300); // target y
    input[3] = i32::from(draw(3, tick).one_in(30)); // jump
    input[5] = i32::from(draw(4, tick).one_in(40)); // hook
    input
}

/// A 0.7 token padded to 512 bytes (TOKEN and CONNECT).
fn padded(token: [u8; 4]) -> Vec<u8> {
    let mut data = vec![0; 512];
    data[..4].copy_from_slice(&token);
    data
}

#[cfg(test)]
mod tests {
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
        let mut found = Vec::new();
        while let Some(d) = bot.poll_transmit() {
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
                    let f = &m["fields"];
                    found.push((
                        f["ack_tick"].as_i64().unwrap(),
                        f["intended_tick"].as_i64().unwrap(),
                    ));
                }
            }
        }
        found
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
}
