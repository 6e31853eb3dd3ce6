//! Teehistorian read throughput on a large synthetic but realistic stream.
//!
//! The stream is generated once, deterministically (an inline SplitMix64,
//! no clock, no `rand`), through [`Recorder`], so the tick bookkeeping
//! (implicit ticks, TICK_SKIP, INPUT_NEW/DIFF by unique id) is DDNet's:
//! 64 players join, every character moves every tick by a few units (run,
//! jump, gravity, hook), inputs change in about 4 of 10 ticks (aim drift,
//! direction, jump, hook, fire, weapon), with occasional deaths, chat,
//! console commands, team changes, finishes and reconnects.
//!
//! Groups, all with `Throughput::Bytes` of the whole file:
//! * `decode`: teeoracle [`SliceReader`], every record;
//! * `decode_replay`: the same plus [`Replay::handle`] for every record;
//! * `stream_reader`: teeoracle [`StreamReader`] over an in-memory
//!   `io::Cursor` (the CLI's path, without the file system);
//! * `teehistorian_crate`: the `teehistorian` crate on the same bytes, every
//!   chunk, zero-copy from a slice and through its `ThBufReader`.
//!
//! Everything is checked (record counts and kinds agree between the readers,
//! the stream ends with FINISH, the replay finds no inconsistency) before
//! anything is timed.
//!
//! `cargo bench --bench teehistorian` uses a ~30 MB stream; `cargo test`
//! (criterion's test mode: every benchmark once) a ~256 KiB one.
//! Environment:
//! * `TEEORACLE_BENCH_MB=N` sets the stream size in MB;
//! * `TEEORACLE_BENCH_WRITE=PATH` writes the generated file to PATH and
//!   exits without benchmarking (e.g. for `teeoracle teehistorian stats`);
//! * `TEEORACLE_BENCH_SEED=N` varies the stream (default 0: the one above);
//! * `TEEORACLE_BENCH_MIX=NAME` gives it another shape ([`Mix::NAMED`]:
//!   `default`, `small` (issue 42's mix: 6.5-byte records, some ints of
//!   2 bytes), `idle`, `churn`, `few`, `chatty`), and
//!   `TEEORACLE_BENCH_PLAYERS=N` / `TEEORACLE_BENCH_CHURN=PERCENT` change
//!   its players and how often their aim moves.

use criterion::{Criterion, SamplingMode, Throughput};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::io::Cursor;
use std::ops::ControlFlow;
use std::time::Duration;
use teehistorian::{Chunk, Th, ThBufReader};
use teeoracle::codec::Mode;
use teeoracle::packet::Version;
use teeoracle::teehistorian::{
    End, Ex, Header, HeaderInfo, Input, Message, Recorder, Replay, ReplayConfig, SliceReader,
    StreamReader,
};

/// SplitMix64: tiny, fast, and the same sequence everywhere.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the modulo bias is irrelevant here).
    fn below(&mut self, n: u32) -> u32 {
        ((self.next_u64() >> 32) % u64::from(n)) as u32
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo + 1) as u32) as i32
    }

    /// True with probability `num / den`.
    fn chance(&mut self, num: u32, den: u32) -> bool {
        self.below(den) < num
    }
}

/// The shape of a generated stream: how many players, how often their
/// inputs change, how far they move per tick (which sets how many bytes
/// their records take), and how often anything else happens.
#[derive(Clone, Copy, Debug)]
struct Mix {
    /// Clients connected all along (DDNet's cids `0..players`, at most 128).
    players: i32,
    /// Percent of ticks in which a player's aim moves (its input changes).
    aim_churn: u32,
    /// Largest aim step per tick: past 63 an input diff's ints take 2 bytes.
    aim_step: i32,
    /// Movement per tick times this: past 63 units a player diff's ints
    /// take 2 bytes.
    speed: i32,
    /// Chat, commands and finishes, times this.
    events: u32,
}

impl Mix {
    /// `TEEORACLE_BENCH_MIX` names one of these; `TEEORACLE_BENCH_PLAYERS`
    /// and `TEEORACLE_BENCH_CHURN` (percent) then override its fields.
    const NAMED: &[(&str, Mix)] = &[
        // 64 players moving every tick, inputs changing in ~44% of ticks.
        (
            "default",
            Mix {
                players: 64,
                aim_churn: 35,
                aim_step: 12,
                speed: 1,
                events: 1,
            },
        ),
        // Issue 42's file (another generator): 116 MB of 17.8 M records,
        // 12.2 M player_diff, 5.5 M input_diff, 6.5 bytes a record.
        (
            "small",
            Mix {
                players: 64,
                aim_churn: 36,
                aim_step: 12,
                speed: 7,
                events: 1,
            },
        ),
        // Inputs rarely change: player records almost alone.
        (
            "idle",
            Mix {
                players: 64,
                aim_churn: 3,
                aim_step: 12,
                speed: 1,
                events: 1,
            },
        ),
        // Every player's input changes every tick, by large steps.
        (
            "churn",
            Mix {
                players: 64,
                aim_churn: 100,
                aim_step: 100,
                speed: 1,
                events: 1,
            },
        ),
        // A small server: 8 players.
        (
            "few",
            Mix {
                players: 8,
                aim_churn: 35,
                aim_step: 12,
                speed: 1,
                events: 1,
            },
        ),
        // Chat, commands and EX records 20 times as often.
        (
            "chatty",
            Mix {
                players: 64,
                aim_churn: 35,
                aim_step: 12,
                speed: 1,
                events: 20,
            },
        ),
    ];

    fn from_env() -> Mix {
        let name = std::env::var("TEEORACLE_BENCH_MIX").unwrap_or_else(|_| "default".into());
        let mut mix = Mix::NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| {
                let names: Vec<_> = Mix::NAMED.iter().map(|(n, _)| *n).collect();
                panic!("TEEORACLE_BENCH_MIX={name}: one of {}", names.join(", "))
            })
            .1;
        let number = |var: &str| -> Option<u32> {
            std::env::var(var)
                .ok()
                .map(|v| v.parse().unwrap_or_else(|_| panic!("{var}: a number")))
        };
        if let Some(players) = number("TEEORACLE_BENCH_PLAYERS") {
            assert!(
                (1..=128).contains(&players),
                "TEEORACLE_BENCH_PLAYERS: 1 to 128"
            );
            mix.players = players as i32;
        }
        if let Some(churn) = number("TEEORACLE_BENCH_CHURN") {
            assert!(churn <= 100, "TEEORACLE_BENCH_CHURN: a percentage");
            mix.aim_churn = churn;
        }
        mix
    }
}
/// 50 ticks per second, as DDNet.
const TICK_SPEED: i32 = 50;
const GROUND_SPEED: i32 = 10;
const JUMP_IMPULSE: i32 = -13;
const MAP_LEFT: i32 = 32 * 5;
const MAP_RIGHT: i32 = 32 * 400;

/// `CNetObj_PlayerInput` field indices.
mod inp {
    pub const DIRECTION: usize = 0;
    pub const TARGET_X: usize = 1;
    pub const TARGET_Y: usize = 2;
    pub const JUMP: usize = 3;
    pub const FIRE: usize = 4;
    pub const HOOK: usize = 5;
    pub const PLAYER_FLAGS: usize = 6;
    pub const WANTED_WEAPON: usize = 7;
    pub const NEXT_WEAPON: usize = 8;
    pub const PREV_WEAPON: usize = 9;
}

const PLAYERFLAG_PLAYING: i32 = 1;
const PLAYERFLAG_CHATTING: i32 = 4;
const PLAYERFLAG_AIM: i32 = 16;

/// One simulated client: connection, character and the input it sends.
struct Tee {
    cid: i32,
    connected: bool,
    /// DDNet's unique client id of the player object (0 means none).
    uid: u32,
    alive: bool,
    /// Tick at which a dead character respawns / a dropped client rejoins.
    respawn_at: i32,
    rejoin_at: i32,
    x: i32,
    y: i32,
    vx: i32,
    vy: i32,
    ground: i32,
    jump_ticks: i32,
    hook_ticks: i32,
    input: Input,
}

impl Tee {
    fn new(cid: i32) -> Tee {
        Tee {
            cid,
            connected: false,
            uid: 0,
            alive: false,
            respawn_at: i32::MAX,
            rejoin_at: i32::MAX,
            x: 0,
            y: 0,
            vx: 0,
            vy: 0,
            ground: 0,
            jump_ticks: 0,
            hook_ticks: 0,
            input: [0; 10],
        }
    }

    fn spawn(&mut self, rng: &mut Rng) {
        self.alive = true;
        self.x = rng.range(MAP_LEFT + 64, MAP_RIGHT - 64);
        self.ground = 32 * rng.range(20, 60) + 16;
        self.y = self.ground;
        (self.vx, self.vy) = (0, 0);
    }

    /// The client's input for this tick: mostly aim drift, sometimes a
    /// button, direction or weapon change.
    fn update_input(&mut self, rng: &mut Rng, mix: &Mix) {
        let i = &mut self.input;
        let step = mix.aim_step;
        if rng.chance(mix.aim_churn, 100) {
            i[inp::TARGET_X] = (i[inp::TARGET_X] + rng.range(-step, step)).clamp(-400, 400);
            i[inp::TARGET_Y] = (i[inp::TARGET_Y] + rng.range(-step, step)).clamp(-300, 300);
        }
        if rng.chance(3, 100) {
            i[inp::DIRECTION] = match rng.below(20) {
                0..=2 => 0,
                3..=11 => -1,
                _ => 1,
            };
        }
        if self.jump_ticks > 0 {
            self.jump_ticks -= 1;
            if self.jump_ticks == 0 {
                i[inp::JUMP] = 0;
            }
        } else if rng.chance(4, 100) {
            i[inp::JUMP] = 1;
            self.jump_ticks = rng.range(2, 6);
        }
        if self.hook_ticks > 0 {
            self.hook_ticks -= 1;
            if self.hook_ticks == 0 {
                i[inp::HOOK] = 0;
            }
        } else if rng.chance(1, 100) {
            i[inp::HOOK] = 1;
            self.hook_ticks = rng.range(10, 40);
        }
        // The fire field counts presses and releases.
        if rng.chance(2, 100) {
            i[inp::FIRE] += 1;
        }
        if rng.chance(1, 1000) {
            i[inp::PLAYER_FLAGS] ^= PLAYERFLAG_CHATTING;
        }
        if rng.chance(2, 1000) {
            i[inp::WANTED_WEAPON] = rng.range(1, 5);
            if rng.chance(1, 2) {
                i[inp::NEXT_WEAPON] += 2;
            } else {
                i[inp::PREV_WEAPON] += 2;
            }
        }
    }

    /// One tick of crude tee physics: run towards the input direction,
    /// gravity, jump off the ground, hook pulls up. Returns the new position.
    fn step(&mut self, rng: &mut Rng, mix: &Mix) -> (i32, i32) {
        let dir = self.input[inp::DIRECTION];
        if dir != 0 {
            self.vx = (self.vx + 2 * dir).clamp(-GROUND_SPEED, GROUND_SPEED);
        } else {
            self.vx /= 2;
        }
        let on_ground = self.y >= self.ground;
        if on_ground && self.input[inp::JUMP] != 0 && self.vy >= 0 {
            self.vy = JUMP_IMPULSE;
        } else if self.input[inp::HOOK] != 0 {
            self.vy = (self.vy - 2).max(-15);
        } else {
            self.vy = (self.vy + 1).min(16);
        }
        let (old_x, old_y) = (self.x, self.y);
        self.x += self.vx * mix.speed;
        self.y += self.vy * mix.speed;
        if self.y >= self.ground {
            self.y = self.ground;
            self.vy = 0;
        }
        if self.x <= MAP_LEFT || self.x >= MAP_RIGHT {
            self.x = self.x.clamp(MAP_LEFT, MAP_RIGHT);
            self.vx = -self.vx;
            self.input[inp::DIRECTION] = -dir;
        }
        // Real tees rarely stand perfectly still (slopes, other tees,
        // freeze, tiny corrections): keep every character moving.
        if (self.x, self.y) == (old_x, old_y) {
            self.x += if rng.chance(1, 2) { 1 } else { -1 };
        }
        (self.x, self.y)
    }
}

const NAMES: &[&str] = &[
    "nameless tee",
    "brainless tee",
    "Gamer",
    "[D] Kobra",
    "Cor",
    "Starkiller",
    "bencher",
    "tee",
    "Ryozuki",
    "heinrich5991",
    "Learath2",
    "def",
    "murpi",
    "Zwelf",
    "Pioooooo",
    "Jupstar",
];
const CHAT: &[&str] = &[
    "hi",
    "gg",
    "wait",
    "hook me pls",
    "come",
    "go left",
    "no",
    "lol",
    "team 3?",
    "afk 1min",
    "thx",
    "nice",
    "who kills",
];

/// A DDNet 0.6 `CL_SAY` as the client packs it: msg id (17 << 1), team, text.
fn say(team: bool, text: &str) -> Vec<u8> {
    let mut data = vec![17 << 1, u8::from(team)];
    data.extend_from_slice(text.as_bytes());
    data.push(0);
    data
}

/// What the generator made.
struct Stream {
    bytes: Vec<u8>,
    last_tick: i32,
    players: i32,
}

/// Records ticks until the file reaches `target_len` bytes, then FINISH.
fn generate(target_len: usize, mix: &Mix) -> Stream {
    let header = Header::from_info(HeaderInfo {
        version: 2,
        version_minor: Some("9".into()),
        comment: Some("teeoracle benchmark stream".into()),
        game_uuid: Some("8a5d9c4a-0b7e-4a2e-9d43-8f0b5f4a7d21".into()),
        server_version: Some("DDNet 18.9 (teeoracle bench)".into()),
        start_time: Some("2024-01-01 00:00:00 +0000".into()),
        server_name: Some("teeoracle bench".into()),
        server_port: Some("8303".into()),
        game_type: Some("DDraceNetwork".into()),
        map_name: Some("Kobra 4".into()),
        map_size: Some("1024000".into()),
        map_crc: Some("12345678".into()),
        prng_description: Some("teeoracle-splitmix64".into()),
        ..Default::default()
    });
    let mut rec = Recorder::new(&header);
    // `TEEORACLE_BENCH_SEED=N` gives another stream of the same shape
    // (two different recordings, e.g. to measure `teeoracle diff`).
    let seed = std::env::var("TEEORACLE_BENCH_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    let mut rng = Rng(0x7ee0_0ac1_e5ee_d001 ^ seed);
    let mut tees: Vec<Tee> = (0..mix.players).map(Tee::new).collect();
    let mut next_uid = 1u32;
    let join = |rec: &mut Recorder, rng: &mut Rng, t: &mut Tee, uid: &mut u32, tick: i32| {
        rec.record_player_join(t.cid, Version::V06);
        rec.record_ex(Ex::Ddnetver {
            cid: t.cid,
            connection_id: uuid::Uuid::from_u64_pair(rng.next_u64(), rng.next_u64()),
            version: 18090,
            version_str: "DDNet 18.9".into(),
        });
        rec.record_ex(Ex::PlayerReady { cid: t.cid });
        let name = format!(
            "{} {}",
            NAMES[rng.below(NAMES.len() as u32) as usize],
            t.cid
        );
        rec.record_ex(Ex::PlayerName {
            cid: t.cid,
            name: name.as_str().into(),
        });
        t.connected = true;
        t.uid = *uid;
        *uid += 1;
        t.input = [
            0,
            100,
            0,
            0,
            0,
            0,
            PLAYERFLAG_PLAYING | PLAYERFLAG_AIM,
            2,
            0,
            0,
        ];
        t.respawn_at = tick + rng.range(1, TICK_SPEED);
        t.rejoin_at = i32::MAX;
    };

    let mut tick = 1;
    rec.tick(tick);
    for t in &mut tees {
        join(&mut rec, &mut rng, t, &mut next_uid, tick);
    }
    while rec.bytes().len() < target_len {
        tick += 1;
        rec.tick(tick);
        // Players, in ascending cid order as DDNet's OnTick does.
        for t in &mut tees {
            if t.connected && !t.alive && tick >= t.respawn_at {
                t.spawn(&mut rng);
            } else if t.alive && rng.chance(1, 3000) {
                // Killed (freeze, kill tile, /kill): respawn in 0.5..2 s.
                t.alive = false;
                t.respawn_at = tick + rng.range(TICK_SPEED / 2, 2 * TICK_SPEED);
            }
            if t.alive {
                let (x, y) = t.step(&mut rng, mix);
                rec.record_player(t.cid, x, y).unwrap();
            } else {
                rec.record_dead_player(t.cid).unwrap();
            }
        }
        // Inputs of every player object.
        for t in &mut tees {
            if t.connected {
                t.update_input(&mut rng, mix);
                rec.record_player_input(t.cid, t.uid, &t.input).unwrap();
            }
        }
        // Everything else the server sees between ticks.
        if rng.chance(mix.events, 100) {
            let t = &tees[rng.below(mix.players as u32) as usize];
            if t.connected {
                let text = CHAT[rng.below(CHAT.len() as u32) as usize];
                rec.record_player_message(t.cid, &say(rng.chance(1, 4), text));
            }
        }
        if rng.chance(mix.events, 600) {
            let t = &tees[rng.below(mix.players as u32) as usize];
            if t.connected {
                match rng.below(4) {
                    0 => rec.record_console_command(t.cid, 1, "rank", &[]),
                    1 => rec.record_console_command(t.cid, 1, "points", &[]),
                    2 => {
                        let team = rng.range(0, 20);
                        rec.record_console_command(t.cid, 1, "team", &[&team.to_string()]);
                        rec.record_player_team(t.cid, team).unwrap();
                    }
                    _ => rec.record_console_command(t.cid, 1, "timeout", &["d7f1c2a9"]),
                }
            }
        }
        if rng.chance(mix.events, 1500) {
            let t = &tees[rng.below(mix.players as u32) as usize];
            if t.alive {
                rec.record_ex(Ex::PlayerFinish {
                    cid: t.cid,
                    time: rng.range(30 * TICK_SPEED, 600 * TICK_SPEED),
                });
            }
        }
        // Reconnects: a client times out, comes back later as a new object.
        if rng.chance(1, 4000) {
            let t = &mut tees[rng.below(mix.players as u32) as usize];
            if t.connected {
                rec.record_player_drop(t.cid, "Timeout Protection used");
                t.connected = false;
                t.alive = false;
                t.rejoin_at = tick + rng.range(2 * TICK_SPEED, 20 * TICK_SPEED);
            }
        }
        for t in &mut tees {
            if !t.connected && tick >= t.rejoin_at {
                join(&mut rec, &mut rng, t, &mut next_uid, tick);
            }
        }
    }
    rec.finish();
    Stream {
        bytes: rec.into_bytes(),
        last_tick: tick,
        players: mix.players,
    }
}

/// What teeoracle saw in one pass.
struct Summary {
    records: u64,
    kinds: BTreeMap<&'static str, u64>,
    last_tick: i32,
}

/// A comparable view of a record, from either reader.
#[derive(Debug, PartialEq, Eq)]
enum Key {
    PlayerDiff(i32, i32, i32),
    PlayerNew(i32, i32, i32),
    PlayerOld(i32),
    InputNew(i32, [i32; 10]),
    InputDiff(i32, [i32; 10]),
    TickSkip(i32),
    Finish,
    Other(Option<i32>),
}

fn key_of_msg(m: &Message<'_>) -> Key {
    match *m {
        Message::PlayerDiff { cid, dx, dy } => Key::PlayerDiff(cid, dx, dy),
        Message::PlayerNew { cid, x, y } => Key::PlayerNew(cid, x, y),
        Message::PlayerOld { cid } => Key::PlayerOld(cid),
        Message::InputNew { cid, input } => Key::InputNew(cid, input),
        Message::InputDiff { cid, dinput } => Key::InputDiff(cid, dinput),
        Message::TickSkip { dt } => Key::TickSkip(dt),
        Message::Finish => Key::Finish,
        _ => Key::Other(m.cids()[0]),
    }
}

fn key_of_chunk(c: &Chunk<'_>) -> Key {
    match c {
        Chunk::PlayerDiff(p) => Key::PlayerDiff(p.cid, p.dx, p.dy),
        Chunk::PlayerNew(p) => Key::PlayerNew(p.cid, p.x, p.y),
        Chunk::PlayerOld { cid } => Key::PlayerOld(*cid),
        Chunk::InputNew(p) => Key::InputNew(p.cid, p.input),
        Chunk::InputDiff(p) => Key::InputDiff(p.cid, p.dinput),
        Chunk::TickSkip { dt } => Key::TickSkip(*dt),
        Chunk::Eos => Key::Finish,
        other => Key::Other(other.cid()),
    }
}

/// Checks the stream with every reader before anything is timed.
fn verify(stream: &Stream) -> Summary {
    let bytes = &stream.bytes[..];
    let finish_at = bytes.len() as u64 - 1;

    // SliceReader, record by record against the teehistorian crate.
    let (_, mut slice) = SliceReader::new(bytes, Mode::Lenient).expect("header");
    let mut th = Th::parse(bytes).expect("teehistorian crate: header");
    let mut summary = Summary {
        records: 0,
        kinds: BTreeMap::new(),
        last_tick: 0,
    };
    for rec in slice.by_ref() {
        let rec = rec.expect("teeoracle decode");
        let chunk = th.next_chunk().expect("teehistorian crate: chunk");
        assert_eq!(
            key_of_msg(&rec.msg),
            key_of_chunk(&chunk),
            "readers disagree at byte {}",
            rec.offset
        );
        assert!(!rec.noncanonical, "the recorder writes canonical ints");
        summary.records += 1;
        *summary.kinds.entry(rec.msg.kind_name()).or_default() += 1;
        summary.last_tick = rec.tick;
    }
    assert_eq!(slice.end(), Some(End::Finished { offset: finish_at }));
    assert!(
        slice.rest().is_empty(),
        "{} bytes after FINISH",
        slice.rest().len()
    );
    assert!(
        th.next_chunk().is_err_and(|e| e.is_eof()),
        "crate: chunks after FINISH"
    );
    assert_eq!(summary.last_tick, stream.last_tick, "tick bookkeeping");
    assert_eq!(count_crate_slice(bytes), summary.records);
    assert_eq!(count_crate_bufreader(bytes), summary.records);

    // StreamReader and the in-place API see the same records.
    assert_eq!(count_stream(bytes), summary.records);
    assert_eq!(count_stream_in_place(bytes), summary.records);
    assert_eq!(count_slice_in_place(bytes), summary.records);
    assert_eq!(replay_in_place(bytes).1, 0);
    let (_, mut reader) = StreamReader::new(Cursor::new(bytes), Mode::Lenient).expect("header");
    while reader.next_record().expect("stream decode").is_some() {}
    assert_eq!(reader.end(), Some(End::Finished { offset: finish_at }));

    // The replay accepts every record and ends where the generator did.
    let (n, inconsistencies, replay) = replay_all(bytes);
    assert_eq!(n, summary.records);
    assert_eq!(inconsistencies, 0, "the replay found inconsistencies");
    assert_eq!(replay.tick(), stream.last_tick);
    let world = replay.world();
    assert!(world.finished, "the replayed world never saw FINISH");
    assert_eq!(
        world.players.iter().filter(|p| p.connected).count() as i32,
        stream.players
    );
    summary
}

fn count_slice(bytes: &[u8]) -> u64 {
    let (_, reader) = SliceReader::new(bytes, Mode::Lenient).unwrap();
    let mut n = 0;
    for rec in reader {
        black_box(&rec.unwrap());
        n += 1;
    }
    n
}

fn replay_all(bytes: &[u8]) -> (u64, u64, Replay) {
    let (_, reader) = SliceReader::new(bytes, Mode::Lenient).unwrap();
    let mut replay = Replay::new(ReplayConfig {
        keep_history: false,
    });
    let (mut n, mut inconsistencies) = (0, 0);
    for rec in reader {
        let rec = rec.unwrap();
        inconsistencies += u64::from(replay.handle(rec.offset, &rec.msg).is_err());
        n += 1;
    }
    (n, inconsistencies, replay)
}

/// The in-place API: records handed out by reference, never moved.
fn count_slice_in_place(bytes: &[u8]) -> u64 {
    let (_, mut reader) = SliceReader::new(bytes, Mode::Lenient).unwrap();
    let mut n = 0;
    reader
        .for_each_record(|rec| {
            black_box(rec);
            n += 1;
            ControlFlow::<()>::Continue(())
        })
        .unwrap()
        .is_continue()
        .then_some(())
        .expect("no early stop");
    n
}

fn replay_in_place(bytes: &[u8]) -> (u64, u64, Replay) {
    let (_, mut reader) = SliceReader::new(bytes, Mode::Lenient).unwrap();
    let mut replay = Replay::new(ReplayConfig {
        keep_history: false,
    });
    let (mut n, mut inconsistencies) = (0, 0);
    reader
        .for_each_record(|rec| {
            inconsistencies += u64::from(replay.handle(rec.offset, &rec.msg).is_err());
            n += 1;
            ControlFlow::<()>::Continue(())
        })
        .unwrap()
        .is_continue()
        .then_some(())
        .expect("no early stop");
    (n, inconsistencies, replay)
}

fn count_stream_in_place(bytes: &[u8]) -> u64 {
    let (_, mut reader) = StreamReader::new(Cursor::new(bytes), Mode::Lenient).unwrap();
    let mut n = 0;
    reader
        .for_each_record(|rec| {
            black_box(rec);
            n += 1;
            ControlFlow::<()>::Continue(())
        })
        .unwrap()
        .is_continue()
        .then_some(())
        .expect("no early stop");
    n
}

fn count_stream(bytes: &[u8]) -> u64 {
    let (_, mut reader) = StreamReader::new(Cursor::new(bytes), Mode::Lenient).unwrap();
    let mut n = 0;
    while let Some(rec) = reader.next_record().unwrap() {
        black_box(&rec);
        n += 1;
    }
    n
}

/// Chunks up to and including EOS (FINISH), like the teeoracle counts.
fn count_crate<T: teehistorian::ThBufRead>(mut th: Th<T>) -> u64 {
    let mut n = 0;
    loop {
        let chunk = th.next_chunk().unwrap();
        n += 1;
        if matches!(black_box(&chunk), Chunk::Eos) {
            return n;
        }
    }
}

fn count_crate_slice(bytes: &[u8]) -> u64 {
    count_crate(Th::parse(bytes).unwrap())
}

fn count_crate_bufreader(bytes: &[u8]) -> u64 {
    count_crate(Th::parse(ThBufReader::new(Cursor::new(bytes))).unwrap())
}

/// A benchmark group measured in bytes of input, sampled flat (each
/// iteration is tens of milliseconds).
fn group<'c>(
    c: &'c mut Criterion,
    name: &str,
    len: u64,
) -> criterion::BenchmarkGroup<'c, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(len))
        .sampling_mode(SamplingMode::Flat);
    g
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Criterion's rule: without `--bench` (cargo test) it runs each
    // benchmark once, unoptimised; keep the stream small there.
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
    let mb: f64 = match std::env::var("TEEORACLE_BENCH_MB") {
        Ok(v) => v.parse().expect("TEEORACLE_BENCH_MB: a number of MB"),
        Err(_) if bench_mode => 30.0,
        Err(_) => 0.25,
    };
    let mix = Mix::from_env();
    let stream = generate((mb * 1e6) as usize, &mix);
    if let Some(path) = std::env::var_os("TEEORACLE_BENCH_WRITE") {
        std::fs::write(&path, &stream.bytes).expect("write the generated file");
        eprintln!(
            "wrote {} bytes ({} ticks) to {}",
            stream.bytes.len(),
            stream.last_tick,
            path.to_string_lossy()
        );
        return;
    }
    let summary = verify(&stream);
    let bytes = &stream.bytes[..];
    eprintln!(
        "teehistorian bench stream: {} bytes, {} records, {} ticks ({:.1} min at {TICK_SPEED} ticks/s), {} players",
        bytes.len(),
        summary.records,
        summary.last_tick,
        f64::from(summary.last_tick) / f64::from(TICK_SPEED) / 60.0,
        stream.players,
    );
    for (kind, n) in &summary.kinds {
        eprintln!("  {kind:<16} {n}");
    }

    // One iteration is tens to hundreds of milliseconds: flat sampling, few
    // samples, so the whole run stays around a minute.
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let len = bytes.len() as u64;
    let records = summary.records;

    let mut g = group(&mut c, "decode", len);
    g.bench_function("teeoracle_slice_reader", |b| {
        b.iter(|| assert_eq!(count_slice(black_box(bytes)), records))
    });
    g.bench_function("teeoracle_slice_for_each_record", |b| {
        b.iter(|| assert_eq!(count_slice_in_place(black_box(bytes)), records))
    });
    g.finish();

    let mut g = group(&mut c, "decode_replay", len);
    g.bench_function("teeoracle_slice_reader_replay", |b| {
        b.iter(|| {
            let (n, inconsistencies, replay) = replay_all(black_box(bytes));
            assert_eq!((n, inconsistencies), (records, 0));
            black_box(replay.tick())
        })
    });
    g.bench_function("teeoracle_slice_for_each_record_replay", |b| {
        b.iter(|| {
            let (n, inconsistencies, replay) = replay_in_place(black_box(bytes));
            assert_eq!((n, inconsistencies), (records, 0));
            black_box(replay.tick())
        })
    });
    g.finish();

    let mut g = group(&mut c, "stream_reader", len);
    g.bench_function("teeoracle_stream_reader_cursor", |b| {
        b.iter(|| assert_eq!(count_stream(black_box(bytes)), records))
    });
    g.bench_function("teeoracle_stream_for_each_record_cursor", |b| {
        b.iter(|| assert_eq!(count_stream_in_place(black_box(bytes)), records))
    });
    g.finish();

    let mut g = group(&mut c, "teehistorian_crate", len);
    g.bench_function("th_slice", |b| {
        b.iter(|| assert_eq!(count_crate_slice(black_box(bytes)), records))
    });
    g.bench_function("th_bufreader_cursor", |b| {
        b.iter(|| assert_eq!(count_crate_bufreader(black_box(bytes)), records))
    });
    g.finish();

    c.final_summary();
}
