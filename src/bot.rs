//! A bot: a sans-IO DDNet 0.6 client (with DDNet's security token), for
//! `teeoracle record`. It is fed the server's datagrams and the time, and
//! gives the datagrams to send; it has no socket and no clock. Every
//! datagram it sends is made by the crate's own packet encoder
//! ([`crate::packet::spec`]), every one it receives read by its decoder.
//!
//! What it does, as DDNet 16.4's and 20.1's servers expect of a client:
//! CONNECT (`TKEN`), ACCEPT with the server's token, INFO; READY on
//! MAP_CHANGE (a bot needs no map: the server does not check); on
//! CON_READY its start info and ENTERGAME; then an INPUT every tick,
//! acknowledging the newest snapshot; chat lines when asked; CLOSE to
//! leave. Vital chunks are numbered from 1 and every packet acknowledges
//! the server's last in-order vital chunk.

use crate::codec::{Codec, Mode, Reader};
use crate::generate::Rng;
use crate::packet::json::PacketJson;
use crate::packet::{Packet, PacketCtx, TokenMode, Version, spec};
use serde_json::{Value, json};
use std::collections::VecDeque;

/// The 0.6 network version string DDNet's clients send.
pub const NET_VERSION: &str = "0.6 626fce9a778df4d4";

/// Where a bot is in its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not started.
    Idle,
    /// CONNECT sent.
    Connecting,
    /// Accepted: INFO sent, waiting for the map.
    Connected,
    /// READY sent, waiting for CON_READY.
    Loading,
    /// In the game: inputs every tick.
    InGame,
    /// CLOSE sent or received.
    Closed,
}

/// One bot.
pub struct Bot {
    name: String,
    phase: Phase,
    /// The server's token for this connection (from CONNECTACCEPT).
    token: [u8; 4],
    /// The last vital sequence sent.
    seq: u16,
    /// The last in-order vital sequence received.
    ack: u16,
    /// The newest snapshot tick received.
    snap_tick: i32,
    /// Messages to send with the next packet: (vital, message JSON).
    queued: Vec<(bool, Value)>,
    out: VecDeque<Vec<u8>>,
    input: [i32; 10],
    rng: Rng,
    /// Why the server closed the connection, if it did.
    closed_by_server: Option<String>,
    /// Ticks spent connecting (CONNECT is sent again every second: the
    /// server may not be listening yet).
    waited: u32,
}

impl Bot {
    /// A bot called `name`, moving as `seed` says.
    pub fn new(name: &str, seed: u64) -> Bot {
        Bot {
            name: name.to_string(),
            phase: Phase::Idle,
            token: [0xff; 4],
            seq: 0,
            ack: 0,
            snap_tick: 0,
            queued: Vec::new(),
            out: VecDeque::new(),
            input: [0; 10],
            rng: Rng::new(seed),
            closed_by_server: None,
            waited: 0,
        }
    }

    /// Where it is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The newest snapshot tick it received.
    pub fn snap_tick(&self) -> i32 {
        self.snap_tick
    }

    /// The server's reason, if the server closed the connection.
    pub fn closed_by_server(&self) -> Option<&str> {
        self.closed_by_server.as_deref()
    }

    /// Starts connecting.
    pub fn connect(&mut self) {
        self.phase = Phase::Connecting;
        self.control("CONNECT", b"TKEN");
    }

    /// Stops answering without a word (the server times the client out).
    pub fn go_silent(&mut self) {
        self.phase = Phase::Closed;
        self.out.clear();
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
        let msg =
            json!({"system": false, "name": "Cl_Say", "fields": {"team": 0, "message": text}});
        self.queued.push((true, msg));
    }

    /// Logs in to the remote console (DDNet's RCON_AUTH: name, password).
    pub fn rcon_login(&mut self, password: &str) {
        let msg = json!({"system": true, "name": "RCON_AUTH",
            "fields": {"name": "", "password": password, "send_cmds": 0}});
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

    /// One game tick passed: an in-game bot moves (`moving`, seeded) and
    /// sends its input; queued messages go out.
    pub fn tick(&mut self, moving: bool) {
        if self.phase == Phase::Connecting {
            self.waited += 1;
            if self.waited.is_multiple_of(50) {
                self.control("CONNECT", b"TKEN");
            }
        }
        if self.phase == Phase::InGame {
            if moving {
                self.steer();
            }
            let input = json!({
                "system": true,
                "name": "INPUT",
                "fields": {
                    "ack_tick": self.snap_tick,
                    "intended_tick": self.snap_tick + 1,
                    "size": 40,
                    "input": self.input,
                }
            });
            self.queued.push((false, input));
        }
        self.flush();
    }

    /// A datagram from the server.
    pub fn receive(&mut self, datagram: &[u8]) {
        let ctx = PacketCtx {
            version: Some(Version::V06),
            token: TokenMode::Present,
        };
        let Ok(packet) = Packet::decode(&mut Reader::new(datagram, Mode::Lenient), ctx) else {
            return;
        };
        let Packet::Connection(p) = &packet else {
            return;
        };
        if let Some((id, data)) = p.control() {
            match id {
                // CONNECTACCEPT: the server's token is the packet's.
                2 if self.phase == Phase::Connecting => {
                    if let Some(t) = p.token {
                        self.token = t;
                    }
                    self.control("ACCEPT", b"");
                    self.phase = Phase::Connected;
                    let info = json!({"system": true, "name": "INFO",
                        "fields": {"version": NET_VERSION, "password": ""}});
                    self.queued.push((true, info));
                    self.flush();
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
        let contents = p.contents();
        let json = PacketJson::new(&packet, contents.as_ref(), 0);
        let v = serde_json::to_value(&json).unwrap_or_default();
        for chunk in v["chunks"].as_array().into_iter().flatten() {
            if chunk["vital"] == true {
                let Some(seq) = chunk["seq"].as_u64() else {
                    continue;
                };
                // In order only: anything else is a resend or a gap.
                if seq as u16 != (self.ack + 1) % 1024 {
                    continue;
                }
                self.ack = seq as u16;
            }
            self.handle(&chunk["message"]);
        }
    }

    fn handle(&mut self, m: &Value) {
        let name = m["name"].as_str().unwrap_or_default();
        let system = m["system"] == true;
        match (system, name) {
            // The first map, or a map change while in the game.
            (true, "MAP_CHANGE") if matches!(self.phase, Phase::Connected | Phase::InGame) => {
                self.queued
                    .push((true, json!({"system": true, "name": "READY", "fields": {}})));
                self.phase = Phase::Loading;
                self.flush();
            }
            (true, "CON_READY") if self.phase == Phase::Loading => {
                let info = json!({"system": false, "name": "Cl_StartInfo", "fields": {
                    "name": self.name, "clan": "teeoracle", "country": -1, "skin": "default",
                    "use_custom_color": 0, "color_body": 0, "color_feet": 0}});
                self.queued.push((true, info));
                self.queued.push((
                    true,
                    json!({"system": true, "name": "ENTERGAME", "fields": {}}),
                ));
                self.phase = Phase::InGame;
                self.flush();
            }
            (true, "SNAP" | "SNAPSINGLE" | "SNAPEMPTY") => {
                if let Some(t) = m["fields"]["tick"].as_i64() {
                    self.snap_tick = self.snap_tick.max(t as i32);
                }
            }
            _ => {}
        }
    }

    /// Seeded movement: now and then a new direction, a jump, a hook at a
    /// new target.
    fn steer(&mut self) {
        if self.rng.one_in(25) {
            self.input[0] = self.rng.int(-1, 1); // direction
        }
        if self.rng.one_in(10) {
            self.input[1] = self.rng.int(-300, 300); // target x
            self.input[2] = self.rng.int(-300, 300); // target y
        }
        self.input[3] = i32::from(self.rng.one_in(30)); // jump
        self.input[5] = i32::from(self.rng.one_in(40)); // hook
    }

    /// Sends the queued messages in one packet.
    fn flush(&mut self) {
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
        let packet = json!({"version": "0.6", "packet": {"form": "connection", "flags": 0,
            "ack": self.ack, "token": hex::encode(self.token), "chunks": chunks}});
        self.send(&packet);
    }

    fn control(&mut self, name: &str, data: &[u8]) {
        let packet = json!({"version": "0.6", "packet": {"form": "connection", "control": true,
            "flags": 4, "ack": self.ack, "num_chunks": 0, "token": hex::encode(self.token),
            "control_message": {"name": name, "data": hex::encode(data)}}});
        self.send(&packet);
    }

    fn send(&mut self, packet: &Value) {
        // Built from the crate's own tables: a failure is this module's
        // bug, and the datagram is not sent.
        if let Ok(mut datagrams) = spec::encode(packet) {
            self.out.extend(datagrams.drain(..));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_connects_as_ddnet_expects() {
        let mut bot = Bot::new("alice", 1);
        bot.connect();
        // CONNECT: control, token ffffffff, `TKEN`.
        assert_eq!(
            hex::encode(bot.poll_transmit().unwrap()),
            "10000001544b454effffffff"
        );
        // The server's CONNECTACCEPT with its token; the ACCEPT, as in the
        // corpus capture A (frames 2 and 3).
        bot.receive(&hex::decode("10000002544b454eee2b3b76").unwrap());
        assert_eq!(bot.phase(), Phase::Connected);
        assert_eq!(
            hex::encode(bot.poll_transmit().unwrap()),
            "10000003ee2b3b76"
        );
        // INFO, vital seq 1, carrying the token.
        let info = bot.poll_transmit().unwrap();
        assert_eq!(
            hex::encode(&info),
            "00000141070103302e3620363236666365396137373864663464340000ee2b3b76"
        );
        assert_eq!(bot.poll_transmit(), None);
    }
}
