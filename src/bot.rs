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
//! so two runs of a scenario send the same inputs for the same ticks; so
//! is a random bot's input over the whole input message ([`random`]).

pub mod random;
pub mod replay;

/// Player flags DDNet 16.4 and 20.1 read from a 0.6 client.
mod six {
    pub const PLAYING: i32 = 1;
    pub const IN_MENU: i32 = 2;
    pub const CHATTING: i32 = 4;
    pub const SCOREBOARD: i32 = 8;
    pub const AIM: i32 = 16;
}
/// Teeworlds 0.7's player flags (DDNet keeps chatting, scoreboard, aim).
mod seven {
    pub const CHATTING: i32 = 2;
    pub const SCOREBOARD: i32 = 4;
    pub const AIM: i32 = 128;
}

/// The player flags a 0.7 client sends for those DDNet recorded: its
/// server reads a 0.7 client's flags into 0.6's (chatting, scoreboard and
/// aim; `PlayerFlags_SevenToSix` in 16.4's gamecontext.cpp, 20.1's
/// protocolglue.cpp) before the teehistorian file records the input.
fn six_to_seven(flags: i32) -> i32 {
    [
        (six::CHATTING, seven::CHATTING),
        (six::SCOREBOARD, seven::SCOREBOARD),
        (six::AIM, seven::AIM),
    ]
    .iter()
    .filter(|(s, _)| flags & s != 0)
    .fold(0, |acc, (_, s7)| acc | s7)
}

use crate::codec::{Codec, Mode, Reader};
use crate::generate::Rng;

use crate::packet::{MAX_PACKET_SIZE, Message, Packet, PacketCtx, TokenMode, Version, spec};
use serde_json::{Value, json};
use std::collections::VecDeque;

/// The 0.6 network version string DDNet's clients send.
pub const NET_VERSION: &str = "0.6 626fce9a778df4d4";
/// The 0.7 network version string Teeworlds 0.7.5's client sends.
pub const NET_VERSION_07: &str = "0.7 802f1be60a05665f";
/// Teeworlds 0.7.5's client version (INFO's last field).
const CLIENT_VERSION_07: i32 = 0x0705;
/// The map's tick a bot's probe asks about, at a map change or with its
/// entry ([`Bot::probe_answer`]).
pub const PROBE_TICK: i32 = 1;
/// DDNet keeps a client's inputs in a ring of this many, emptied at the
/// connection and at a map change (`CClient::Reset`).
const INPUT_RING: usize = 200;
/// A filler's intended tick is this far past the newest snapshot: no run
/// reaches it (an hour of ticks), nor DDNet 20.1's pre-input window.
const FILLER_AHEAD: i32 = 50 * 3600;

/// Where a bot is in its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not started.
    Idle,
    /// CONNECT sent.
    Connecting,
    /// The server answered; the join waits for [`Bot::join_now`].
    Answered,
    /// The connection made; the rest of the join waits for
    /// [`Bot::enter_now`].
    Accepted,
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
    /// A probe went out and its answer has not come.
    probing: bool,
    /// Messages to send with the next packet: (vital, message JSON).
    queued: Vec<(bool, Value)>,
    out: VecDeque<Vec<u8>>,
    /// The last INPUT's data sent: the server's latest input of the
    /// client.
    input: [i32; 10],
    /// Where in the server's ring of inputs ([`INPUT_RING`]) the next
    /// INPUT goes.
    ring: usize,
    /// Why the server closed the connection, if it did.
    closed_by_server: Option<String>,
    /// The join waits for [`Bot::join_now`] ([`Bot::connect_ahead`]).
    hold: bool,
    /// Ticks spent connecting (CONNECT is sent again every second: the
    /// server may not be listening yet).
    waited: u32,
    /// An input to send with the join ([`Bot::input_with_join`]).
    join_input: Option<[i32; 10]>,
    /// The start info to send instead of its own ([`Bot::start_info`]).
    start_info: Option<Value>,
    /// The entry waits for [`Bot::enter_now`] ([`Bot::enter_later`]).
    hold_entry: bool,
    /// The server answered the INFO of a join whose entry waits with the
    /// map (MAP_CHANGE).
    map_came: bool,
    /// It asks to spectate with its entry ([`Bot::spectate_on_entry`]).
    spectate: bool,
    /// It probes the tick grid with its join ([`Bot::probe_with_join`]).
    probe_with_join: bool,
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
            probing: false,
            queued: Vec::new(),
            out: VecDeque::new(),
            input: [0; 10],
            ring: 0,
            closed_by_server: None,
            hold: false,
            waited: 0,
            join_input: None,
            start_info: None,
            hold_entry: false,
            map_came: false,
            spectate: false,
            probe_with_join: false,
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

    /// ACCEPT (0.7: CONNECT with the server's token), then the join
    /// (unless held: [`Bot::enter_later`]).
    fn accept_and_join(&mut self) {
        match self.version {
            Version::V06 => self.control("ACCEPT", b""),
            _ => self.control("CONNECT", &padded(self.own_token)),
        }
        if !self.hold_entry {
            return self.join();
        }
        self.probe_and_info();
        self.flush();
        self.phase = Phase::Accepted;
    }

    /// INFO, after the probe if one goes with the join: DDNet queues the
    /// probe's answer unflushed and sends it with the map, which answers
    /// INFO at once. After ENTERGAME it would wait for the first
    /// snapshot, 10 ticks on; a client not in the game has nothing else
    /// flushed for half a second.
    fn probe_and_info(&mut self) {
        if std::mem::take(&mut self.probe_with_join) {
            self.probe();
        }
        self.info();
    }

    /// Splits the join: the connection and INFO at [`Bot::join_now`], the
    /// rest (READY, the start info, ENTERGAME) at [`Bot::enter_now`], as
    /// a recorded client that took ticks between the two did (DDNet
    /// records its JOIN when the connection is made, PLAYER_READY at
    /// ENTERGAME).
    pub fn enter_later(&mut self) {
        self.hold_entry = true;
    }

    /// The rest of a split join, now.
    pub fn enter_now(&mut self) {
        self.hold_entry = false;
        if self.phase == Phase::Accepted {
            self.ready_and_enter();
            if self.map_came {
                self.phase = Phase::InGame;
            }
        }
    }

    /// Asks to join the spectators with its entry, in the same packet:
    /// DDNet reads it before the tick that would spawn its character, so
    /// it never has one (a replay's clock must not touch the game).
    pub fn spectate_on_entry(&mut self) {
        self.spectate = true;
    }

    /// Probes where the map's ticks are with its join
    /// ([`Bot::probe_answer`]): a bot that joins an empty server on its
    /// tick 0 knows the grid at once, where snapshots (one every 10 ticks
    /// until the client acknowledges one) place it only by tick 20. The
    /// probe is an input for tick [`PROBE_TICK`], sent before INFO: when
    /// the entry waits ([`Bot::enter_later`]) DDNet keeps it and never
    /// applies it, the tick being past at the entry; with an entry on tick
    /// 0 it is the bot's input of tick 1, so this is for a bot whose entry
    /// waits or that never has a character (a replay's clock).
    pub fn probe_with_join(&mut self) {
        self.probe_with_join = true;
    }

    /// Sends `info` (a Cl_StartInfo message's JSON) as its start info
    /// instead of its own (a replayed client's, as recorded).
    pub fn start_info(&mut self, info: Value) {
        self.start_info = Some(info);
    }

    /// Sends a game message (its JSON, as the packet encoder takes it)
    /// with the next tick, vital.
    pub fn send_message(&mut self, message: Value) {
        self.queued.push((true, message));
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
        self.probe_and_info();
        self.ready_and_enter();
    }

    /// INFO: the client's version; DDNet answers with the map.
    fn info(&mut self) {
        let fields = match self.version {
            Version::V06 => json!({"version": NET_VERSION, "password": ""}),
            _ => json!({"version": NET_VERSION_07, "password": "",
                "client_version": CLIENT_VERSION_07}),
        };
        self.queued.push((
            true,
            json!({"system": true, "name": "INFO", "fields": fields}),
        ));
    }

    /// READY, the start info and ENTERGAME; joining until the map comes.
    fn ready_and_enter(&mut self) {
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
        let info = self
            .start_info
            .clone()
            .unwrap_or_else(|| json!({"system": false, "name": "Cl_StartInfo", "fields": fields}));
        self.queued.push((true, info));
        self.queued.push((
            true,
            json!({"system": true, "name": "ENTERGAME", "fields": {}}),
        ));
        if let Some(input) = self.join_input.take() {
            self.queue_input(-1, 0, input);
        }
        if self.spectate {
            self.set_team(-1);
        }
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

    /// Sends `input` with the join, after ENTERGAME, as a client does
    /// that sends input before it has a snapshot: its intended tick (0)
    /// is past, so DDNet applies it on the tick after the one it reads
    /// the join in (`IntendedTick <= Tick()` becomes `Tick() + 1`), and
    /// the teehistorian file records it on the join's tick.
    pub fn input_with_join(&mut self, input: [i32; 10]) {
        self.join_input = Some(input);
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

    /// Asks to join `team` (Cl_SetTeam: -1 the spectators, 0 the game).
    pub fn set_team(&mut self, team: i32) {
        let msg = json!({"system": false, "name": "Cl_SetTeam", "fields": {"team": team}});
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
            self.queue_input(self.snap_tick, tick, input(tick));
        }
        self.next_input = Some(last + 1);
        self.flush();
    }

    /// Sends, with the queued messages, the INPUTs `inputs` gives for
    /// every server tick from `first` (or the one after the last sent) to
    /// `last` (one or more, in order), each with its intended tick,
    /// acknowledging the newest snapshot if any: for a
    /// caller that knows the server's ticks from elsewhere (a replay's
    /// clock), so that even a client's first inputs after its entry land
    /// on their ticks.
    pub fn send_inputs_between(
        &mut self,
        first: i32,
        last: i32,
        inputs: impl Fn(i32) -> Vec<[i32; 10]>,
    ) {
        if self.phase != Phase::InGame {
            self.flush();
            return;
        }
        let first = self.next_input.unwrap_or(first).max(first).max(last - 100);
        for tick in first..=last {
            let these = inputs(tick);
            self.keep_in_ring(these.len());
            for input in these {
                self.queue_input(self.snap_tick, tick, input);
            }
        }
        if first <= last {
            self.next_input = Some(last + 1);
            // The next tick's fillers, if it needs any, go now: right
            // after an input, where they change nothing.
            self.keep_in_ring(inputs(last + 1).len());
        }
        self.flush();
    }

    /// Before `count` inputs for one tick: DDNet records a tick's inputs,
    /// and moves with the first, in the order of its ring of inputs, not
    /// the order they came in, so a burst that would wrap around the
    /// ring's end would be recorded rotated, and moved with another
    /// input. Fillers take the ring to its start first: each a copy of
    /// the last input sent (a direct input that changes nothing right
    /// after it), for a tick no run reaches.
    fn keep_in_ring(&mut self, count: usize) {
        if count < 2 || self.ring == 0 || self.ring + count <= INPUT_RING {
            return;
        }
        let far = self.snap_tick.max(0).saturating_add(FILLER_AHEAD);
        while self.ring != 0 {
            self.queue_input(self.snap_tick, far, self.input);
        }
    }

    /// Queues an INPUT meant for server tick `tick`.
    fn queue_input(&mut self, ack: i32, tick: i32, input: [i32; 10]) {
        self.input = input;
        self.ring = (self.ring + 1) % INPUT_RING;
        self.queued.push((false, input_message(ack, tick, input)));
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
            // The map for a join whose entry waits: READY goes with it.
            (true, "MAP_CHANGE") if self.phase == Phase::Accepted => self.map_came = true,
            // A map change while in the game: back in it at `rejoin`.
            (true, "MAP_CHANGE") if matches!(self.phase, Phase::InGame | Phase::MapChanged) => {
                // Ticks restart with the map: nothing of the previous
                // one is acknowledged or scheduled.
                self.map_changes += 1;
                self.snap_tick = -1;
                self.parts = None;
                self.next_input = None;
                self.ring = 0;
                self.phase = Phase::MapChanged;
                self.probe();
            }
            (true, "INPUTTIMING") if self.probing => {
                if let Some(Ok(fields)) = m.fields.as_ref()
                    && fields.int("intended_tick") == Some(PROBE_TICK)
                {
                    self.probe_answer = fields.int("time_left");
                    self.probing = false;
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
    /// state. At a map change, before the client is back in the game the
    /// input is only kept, never applied nor recorded, and the tick is
    /// past when it is; with an entry on tick 0 it is the bot's input of
    /// tick 1 ([`Bot::probe_with_join`]).
    fn probe(&mut self) {
        self.probe_answer = None;
        self.probing = true;
        self.queue_input(-1, PROBE_TICK, [0; 10]);
    }

    /// The server's answer to the last probe (of the last map change or
    /// the entry): the milliseconds left to the map's tick [`PROBE_TICK`] when it was
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
        self.send_chunks(chunks);
    }

    /// Sends `chunks` in one packet, or split in as many as DDNet takes:
    /// it drops a datagram over [`MAX_PACKET_SIZE`] bytes (a ring's
    /// fillers are more).
    fn send_chunks(&mut self, chunks: Vec<Value>) {
        let count = chunks.len();
        // The chunks moved in, not copied (`json!` would copy them).
        let mut packet = json!({"form": "connection", "flags": 0, "ack": self.ack});
        packet["chunks"] = Value::Array(chunks);
        // The encoder refuses a packet over the limit.
        let datagrams = self.encoded(&mut packet);
        let fits = (datagrams.iter().flatten()).all(|d| d.len() <= MAX_PACKET_SIZE);
        if count > 1 && (datagrams.is_none() || !fits) {
            let Value::Array(mut chunks) = packet["chunks"].take() else {
                return;
            };
            let second = chunks.split_off(count / 2);
            self.send_chunks(chunks);
            self.send_chunks(second);
        } else {
            self.out.extend(datagrams.into_iter().flatten());
        }
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

    /// Sends a connection packet.
    fn send(&mut self, packet: &mut Value) {
        if let Some(datagrams) = self.encoded(packet) {
            self.out.extend(datagrams);
        }
    }

    /// A connection packet's datagrams: 0.6 with DDNet's token at the
    /// end, 0.7 with the server's token in the header.
    fn encoded(&self, packet: &mut Value) -> Option<Vec<Vec<u8>>> {
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
        spec::encode(&entry).ok()
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

/// An INPUT acknowledging snapshot `ack` (-1: none), meant for server
/// tick `tick`.
fn input_message(ack: i32, tick: i32, input: [i32; 10]) -> Value {
    json!({
        "system": true,
        "name": "INPUT",
        "fields": {"ack_tick": ack, "intended_tick": tick, "size": 40, "input": input}
    })
}

/// A 0.7 token padded to 512 bytes (TOKEN and CONNECT).
fn padded(token: [u8; 4]) -> Vec<u8> {
    let mut data = vec![0; 512];
    data[..4].copy_from_slice(&token);
    data
}

#[cfg(test)]
mod tests;
