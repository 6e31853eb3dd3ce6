//! A server-side demo of a simulated teehistorian file (issue 27, item 5;
//! DDNet's "Teehistorian Replayer" wish, ddnet/ddnet#2937): the file's
//! inputs drive the [`World`] on its map ([`crate::simulation::simulate`]), and after
//! every tick a snapshot of the world, as DDNet's server snaps it for its
//! own demo (`OnSnap(SERVER_DEMO_CLIENT)`), goes through the crate's
//! [`DemoRecorder`], with the map embedded.
//!
//! What a snapshot holds, in DDNet's order (`CGameContext::OnSnap`): the
//! controller's `GameInfo` and `GameInfoEx`; per player in the game, in
//! client id order, `ClientInfo`, `PlayerInfo` and `DDNetPlayer`; then the
//! world's entities by type (`CGameWorld::Snap`): projectiles, lasers,
//! pickups, characters (`Character`, `DDNetCharacter`), each list newest
//! first. Extended types are registered as `CSnapshotBuilder` does: each
//! one once it is first used, with the types 0x7fff, 0x7ffe, … in that
//! order, and every registration at the head of every later snapshot.
//!
//! The Character item is DDNet's dead reckoning (`CCharacter::TickDeferred`,
//! `SnapCharacter`): the core part is `m_SendCore` and the item's `tick`
//! is `m_ReckoningTick`, the tick the core was last sent. After each tick
//! the server advances its own prediction of the last sent core
//! (`m_ReckoningCore`: no input, alone in an empty world, default tuning)
//! and resends the core when the prediction differs from it, when the
//! hook did something clients cannot predict (`m_Reset`), or when the last
//! send is more than 3 seconds old. A character spawned in the tick has not
//! been through `TickDeferred`: its item has tick 0 and the current core.
//! DDNet 16.4's `CCharacterCore::Init` resets the prediction every tick, so
//! under 16.4 the core is resent every tick.
//!
//! What the world does not model is filled in with what DDNet's DDRace
//! server sends where that follows from the rules (see
//! `docs/commands.md`, `teehistorian demo`); what cannot be known (a
//! player's latency, emotes) is 0 or the neutral value. Scores and the
//! map's record are the world's race (`world/race.rs`) as DDNet snaps
//! them ([`score_of`], [`finish_time`]).

mod clients;
mod sixup;
#[cfg(test)]
mod tests;

use super::Release;
use crate::demo::{DemoRecorder, DemoStart};
use crate::huffman::Flavor;
use crate::simulation::ddrace::map_entities::{Device, Dragger, LAYER_SWITCH, LaserEntity};
use crate::simulation::ddrace::player::Pause;
use crate::simulation::ddrace::world::World;
use crate::simulation::physics::Vec2;
use crate::simulation::physics::collision::Collision;
use crate::simulation::physics::core::{Core, Cores, MAX_CLIENTS};
use crate::simulation::physics::round_to_int;
use crate::simulation::physics::tuning::Tuning;
use crate::simulation::{Observer, SimulateError, Stopped, simulate_observed};
use crate::snapshot::items::{ItemBuilder, uuid_to_ints};
use crate::snapshot::{ItemSizes, Snapshot};
use crate::teehistorian::SliceReader;
use clients::Clients;
use serde::Serialize;

/// DDNet resends a core at least this often (`TickSpeed() * 3`).
const RECKONING_MAX_AGE: i32 = 150;

/// The highest snapshot item type; extended types count down from it
/// (`CSnapshot::MAX_TYPE`).
const MAX_TYPE: i32 = 0x7fff;

/// Which ticks the demo covers. The world is always simulated from the
/// file's first tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Span {
    /// Every tick the simulation reaches.
    All,
    /// From `from` to `to`, both included.
    Ticks {
        /// The first tick.
        from: i32,
        /// The last tick.
        to: i32,
    },
    /// From the first tick a client of this name is in the game (its
    /// `Cl_StartInfo` or `Cl_ChangeInfo` applied) to the last (it leaves,
    /// or the file ends), over all the clients that had the name.
    Player(String),
}

/// What a demo of a simulated file holds.
#[derive(Clone, Debug, Serialize)]
pub struct DemoSummary {
    /// Whose rules the world followed.
    #[serde(rename = "version")]
    pub release: Release,
    /// The map's name (the teehistorian header's).
    pub map_name: String,
    /// The embedded map's SHA-256, hex.
    pub map_sha256: String,
    /// It is the map the header names (`map_sha256`); false when the
    /// header names another or none.
    pub map_matches_header: bool,
    /// The first and last tick written.
    pub ticks: (i32, i32),
    /// For [`Span::Player`]: the client ids that had the name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub player_cids: Vec<usize>,
    /// Snapshots written (one per tick).
    pub snapshots: u64,
    /// Items written, by type.
    pub items: ItemCounts,
    /// Character items whose core was resent in their snapshot's tick.
    pub cores_resent: u64,
    /// Character items whose core is an older tick's, predicted.
    pub cores_reckoned: u64,
    /// The demo file's size in bytes.
    pub bytes: u64,
    /// How the simulation went (as `teehistorian simulate` reports it).
    pub simulation: SimulationFigures,
    /// With a witness: what was taken from it.
    pub witness: Option<Witnessed>,
}

/// What a witness (the server's demo of the session) told that the file
/// cannot: each as (tick, client id), in order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Witnessed {
    /// DDNet 16.4: where a character moved with an input the writer left
    /// out as a repeat ([`crate::simulation::Report::held_inputs`]).
    pub held_inputs: Vec<(i32, usize)>,
    /// DDNet 16.4: where the score database's answer to a join came after
    /// a finish and forgot its time ([`crate::simulation::Report::join_answers`]).
    pub join_answers: Vec<(i32, usize)>,
}

/// Items written, by type.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ItemCounts {
    /// `Character`.
    pub characters: u64,
    /// `DDNetCharacter`.
    pub ddnet_characters: u64,
    /// `PlayerInfo` (as many `ClientInfo` and `DDNetPlayer`).
    pub players: u64,
    /// `DDNetProjectile`.
    pub projectiles: u64,
    /// `DDNetLaser`.
    pub lasers: u64,
    /// `DDNetPickup`.
    pub pickups: u64,
    /// Events: sounds, damage indicators, hammer hits, explosions,
    /// spawns, deaths.
    pub events: u64,
}

/// The simulation's figures.
#[derive(Clone, Debug, Serialize)]
pub struct SimulationFigures {
    /// (tick, player) pairs where the file records a character.
    pub player_ticks: u64,
    /// Of those, where the simulated character stood exactly there.
    pub matched: u64,
    /// Divergences not explained by an unmodelled event (the character
    /// was put where the file says and the simulation went on).
    pub divergences: u64,
    /// Player-ticks after an unmodelled event that differ.
    pub after_unmodelled: u64,
    /// Unmodelled events.
    pub unmodelled: usize,
}

/// Why no demo was written.
#[derive(Clone, Debug, PartialEq)]
pub enum DemoError {
    /// The file or the map does not simulate.
    Simulate(SimulateError),
    /// The simulation stopped before the file's end (a record that does
    /// not decode).
    Stopped(Stopped),
    /// The span holds no tick of the simulation.
    NoTicks {
        /// The simulation's first and last ticks.
        simulated: (i32, i32),
        /// The ticks asked for (`None`: a player's span).
        asked: Option<(i32, i32)>,
    },
    /// No client of the name is in the file.
    NoPlayer(String),
}

impl std::fmt::Display for DemoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DemoError::Simulate(e) => write!(f, "{e}"),
            DemoError::Stopped(e) => write!(f, "the simulation stopped at a record: {e}"),
            DemoError::NoTicks { simulated, asked } => {
                write!(
                    f,
                    "the simulation's ticks {}..{} hold none of ",
                    simulated.0, simulated.1
                )?;
                match asked {
                    Some((from, to)) => write!(f, "--from {from} --to {to}"),
                    None => f.write_str("the span"),
                }
            }
            DemoError::NoPlayer(name) => write!(f, "no player named {name:?} in the file"),
        }
    }
}

impl std::error::Error for DemoError {}

impl From<SimulateError> for DemoError {
    fn from(e: SimulateError) -> Self {
        DemoError::Simulate(e)
    }
}

/// The demo of `bytes` (a teehistorian file) simulated on `map` (the
/// map file's bytes, embedded in the demo), covering `span`. `cap`
/// bounds the map's inflated data.
pub fn demo_of_teehistorian(
    bytes: &[u8],
    map: &[u8],
    span: &Span,
    cap: u64,
    witness: Option<&[u8]>,
) -> Result<(Vec<u8>, DemoSummary), DemoError> {
    let (header, _) = SliceReader::new(bytes, crate::codec::Mode::Lenient)
        .map_err(|e| DemoError::Simulate(SimulateError::Decode(e)))?;
    let col = Collision::of_map_bytes(map, cap)
        .map_err(|e| DemoError::Simulate(SimulateError::Map(e)))?;
    let release = crate::simulation::header::recorded_release(&header)?;
    let clients = Clients::read(bytes);
    let (from, to, player_cids) = match span {
        Span::All => (i32::MIN, i32::MAX, Vec::new()),
        Span::Ticks { from, to } => (*from, *to, Vec::new()),
        Span::Player(name) => {
            let (from, to, cids) = clients
                .span_of(name.as_bytes())
                .ok_or_else(|| DemoError::NoPlayer(name.clone()))?;
            (from, to, cids)
        }
    };
    use sha2::{Digest, Sha256};
    let sha: [u8; 32] = Sha256::digest(map).into();
    let map_sha256 = hex::encode(sha);
    let map_name = header.info.map_name.clone().unwrap_or_default();
    let start_time = header.info.start_time.as_deref();
    let timestamp = demo_timestamp(start_time, 0);
    let start = DemoStart {
        version: 6,
        net_version: "0.6 626fce9a778df4d4",
        map_name: &map_name,
        map_crc: crc32fast::hash(map),
        map_sha256: Some(sha),
        map,
        kind: "server",
        timestamp: &timestamp,
        flavor: Flavor::Ddnet,
    };
    let writer = Writer {
        release,
        from,
        to,
        recorder: DemoRecorder::new(&start, ItemSizes::ddnet_06()),
        reckoning: vec![None; MAX_CLIENTS],
        last_action: vec![-1; MAX_CLIENTS],
        last_input: vec![None; MAX_CLIENTS],
        in_freeze: vec![false; MAX_CLIENTS],
        end_pos: vec![None; MAX_CLIENTS],
        empty: Cores::new(release),
        default_tuning: Tuning::defaults(release),
        ex_types: Vec::new(),
        switch_ends: Vec::new(),
        switch_held: Vec::new(),
        snap: Snapshot::new(),
        clients,
        ticks: None,
        snapshots: 0,
        items: ItemCounts::default(),
        resent: 0,
        reckoned: 0,
    };
    // A witness is compared over the whole file, as `simulate --demo`
    // does; the ticks after `to` are simulated and not written.
    let until = (to != i32::MAX && witness.is_none()).then_some(to);
    let options = crate::simulation::Options {
        until,
        demo: witness,
        ..Default::default()
    };
    let (report, writer) = simulate_observed(bytes, col, &options, writer)?;
    if let Some(e) = report.stopped {
        return Err(DemoError::Stopped(e));
    }
    let Some(ticks) = writer.ticks else {
        return Err(DemoError::NoTicks {
            simulated: report.ticks,
            asked: match span {
                Span::Ticks { from, to } => Some((*from, *to)),
                _ => None,
            },
        });
    };
    let Writer {
        mut recorder,
        snapshots,
        items,
        resent,
        reckoned,
        ..
    } = writer;
    // Stamped as a recorder started at the first tick would be.
    recorder.set_timestamp(&demo_timestamp(start_time, ticks.0));
    let out = recorder.finish();
    let summary = DemoSummary {
        release,
        map_matches_header: header
            .info
            .map_sha256
            .as_deref()
            .is_some_and(|h| h.eq_ignore_ascii_case(&map_sha256)),
        map_name,
        map_sha256,
        ticks,
        player_cids,
        snapshots,
        items,
        cores_resent: resent,
        cores_reckoned: reckoned,
        bytes: out.len() as u64,
        simulation: SimulationFigures {
            player_ticks: report.player_ticks,
            matched: report.matched,
            divergences: report.divergences,
            after_unmodelled: report.after_unmodelled,
            unmodelled: report.unmodelled.len(),
        },
        witness: witness.map(|_| Witnessed {
            held_inputs: report.held_inputs.clone(),
            join_answers: report.join_answers.clone(),
        }),
    };
    Ok((out, summary))
}

/// The demo header's timestamp (`str_timestamp`'s `2024-05-01_12-00-00`):
/// the teehistorian header's `start_time` (`2024-05-01T12:00:00+0000`,
/// when the server's tick 0 was) plus `first_tick` at 50 a second, when a
/// server recorder starting there would have stamped it; so the demo
/// never reads the clock, and `diff` and `check` know its session.
/// `1970-01-01_00-00-00` when the header has no time in that form.
fn demo_timestamp(start_time: Option<&str>, first_tick: i32) -> String {
    let fallback = "1970-01-01_00-00-00".to_owned();
    let Some(t) = start_time.and_then(|t| t.get(..19)) else {
        return fallback;
    };
    let b = t.as_bytes();
    let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
    let form = b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[16] == b':';
    if !form || !digits.iter().all(|&i| b[i].is_ascii_digit()) {
        return fallback;
    }
    let Some(at) = crate::demo::clock_seconds(t) else {
        return fallback;
    };
    let after = i64::from(first_tick).div_euclid(crate::demo::TICKS_PER_SECOND);
    crate::demo::clock_text(at + after)
}

/// One character's dead reckoning (`m_ReckoningTick`, `m_SendCore`,
/// `m_ReckoningCore`).
#[derive(Clone, Debug)]
struct Reckoning {
    /// The tick the core was last sent.
    tick: i32,
    /// The core sent then, as the item has it.
    sent: [i32; 15],
    /// The server's prediction of that core, advanced to now.
    predicted: Core,
}

/// The writer's state, fed once a tick.
struct Writer {
    release: Release,
    from: i32,
    to: i32,
    recorder: DemoRecorder,
    /// Per client id, the character's reckoning; `None` until its first
    /// `TickDeferred`.
    reckoning: Vec<Option<Reckoning>>,
    /// Per client id: the tick the character's input last changed
    /// (`m_LastAction`, -1 for none) and that input.
    last_action: Vec<i32>,
    last_input: Vec<Option<crate::teehistorian::PlayerInput>>,
    /// Per client id: the character stands in a freeze tile, as the
    /// start of the tick saw it (`m_IsInFreeze`), and where it stood at the
    /// end of the tick (what the next tick's start sees).
    in_freeze: Vec<bool>,
    end_pos: Vec<Option<crate::simulation::physics::Vec2>>,
    /// The empty world a prediction ticks in.
    empty: Cores,
    /// `CTuningParams()`, what a prediction ticks with.
    default_tuning: Tuning,
    /// Extended types in the order they were first used.
    ex_types: Vec<&'static str>,
    /// Team 0's switches' end ticks after the last tick: one that moved
    /// in a tick was held by a player then (`m_aLastUpdateTick`).
    switch_ends: Vec<i32>,
    switch_held: Vec<bool>,
    snap: Snapshot,
    clients: Clients,
    ticks: Option<(i32, i32)>,
    snapshots: u64,
    items: ItemCounts,
    resent: u64,
    reckoned: u64,
}

/// The world at the end of a tick: reckon every character, and write
/// the tick's snapshot if it is in the span.
impl Observer for Writer {
    fn tick(&mut self, w: &World) {
        let tick = w.tick;
        self.reckon(w);
        self.hold_switches(w);
        if tick < self.from || tick > self.to {
            return;
        }
        self.snapshot(w);
        self.recorder.record_snapshot(tick, &self.snap);
        self.snapshots += 1;
        self.ticks = Some(match self.ticks {
            Some((first, _)) => (first, tick),
            None => (tick, tick),
        });
    }
}

impl Writer {
    /// `TickDeferred`'s "update the m_SendCore if needed", for every
    /// character the world ticked.
    fn reckon(&mut self, w: &World) {
        let tick = w.tick;
        for cid in 0..MAX_CLIENTS {
            let (Some(core), Some(ch)) = (w.core(cid), w.character(cid)) else {
                self.reckoning[cid] = None;
                self.last_input[cid] = None;
                self.end_pos[cid] = None;
                continue;
            };
            let start_pos = self.end_pos[cid].replace(core.pos);
            if ch.spawn_tick == tick {
                // Made in the players' tick, after the world's.
                self.reckoning[cid] = None;
                self.last_action[cid] = -1;
                self.last_input[cid] = Some(ch.saved_input);
                self.in_freeze[cid] = false;
                continue;
            }
            // `DDRaceTick`: where the character stood when the tick began.
            self.in_freeze[cid] =
                start_pos.is_some_and(|p| in_freeze(w.collision(), p, self.release));
            // `OnPredictedInput`: an input unlike the last one is an action.
            if self.last_input[cid].is_some_and(|i| i != ch.saved_input) {
                self.last_action[cid] = tick;
            }
            self.last_input[cid] = Some(ch.saved_input);
            let current = core_item(core);
            let resend = match self.reckoning[cid].as_mut() {
                // `m_ReckoningTick` 0: more than 3 s old, or (early in a
                // server's life) a zeroed core that predicts nothing here.
                None => true,
                Some(r) => {
                    match self.release {
                        Release::Ddnet16_4 => reset_16_4(&mut r.predicted),
                        Release::Ddnet20_1 => {}
                    }
                    r.predicted.id = cid;
                    let t = &self.default_tuning;
                    self.empty.tick_alone(&mut r.predicted, t, w.collision());
                    core.reset
                        || i64::from(tick) - i64::from(r.tick) > i64::from(RECKONING_MAX_AGE)
                        || core_item(&r.predicted) != current
                }
            };
            if resend {
                let mut predicted = *core;
                predicted.reset = false;
                self.reckoning[cid] = Some(Reckoning {
                    tick,
                    sent: current,
                    predicted,
                });
            }
        }
    }

    /// Registers the extended type `name` (if new) and gives its type.
    fn ex_type(&mut self, name: &'static str) -> i32 {
        let index = match self.ex_types.iter().position(|&n| n == name) {
            Some(i) => i,
            None => {
                self.ex_types.push(name);
                let i = self.ex_types.len() - 1;
                // 20.1's builder registers a new type where it is first
                // used; 16.4's only from the next snapshot on (`Init`),
                // so there its first items have a type nobody names.
                if self.release == Release::Ddnet20_1 {
                    push_registration(&mut self.snap, name, i);
                }
                i
            }
        };
        MAX_TYPE - index as i32
    }

    /// Adds an item of `b`'s type with `id`.
    fn push(&mut self, b: &ItemBuilder, name: &'static str, id: i32) {
        let type_id = match b.type_id() {
            Some(t) => t,
            None => self.ex_type(name),
        };
        self.snap.push((type_id << 16) | (id & 0xffff), b.ints());
    }

    /// Which of team 0's switches a player held in this tick: their end
    /// tick moved (a timed switch tile sets it anew every tick it is
    /// stood on).
    fn hold_switches(&mut self, w: &World) {
        let count = switch_count(w);
        let ends: Vec<i32> = (0..count)
            .map(|i| w.cores.switchers.get(i as u8, 0).map_or(0, |s| s.end_tick))
            .collect();
        self.switch_held = (0..count)
            .map(|i| self.switch_ends.get(i).is_some_and(|&e| e != ends[i]))
            .collect();
        self.switch_ends = ends;
    }

    /// `SnapSwitchers` (16.4: in the controller's `Snap`), as the demo
    /// sees them, with no player: team 0's switches on or off, and the
    /// end ticks of up to four timed ones turning back within 3 seconds
    /// that nobody held in this tick, the soonest first.
    fn switch_state(&mut self, w: &World) {
        let count = switch_count(w);
        if count == 0 {
            return;
        }
        let tick = w.tick;
        let highest = (count - 1).min(255);
        let mut status = [0i32; 8];
        let mut ends = Vec::new();
        for i in 0..=highest {
            let Some(sw) = w.cores.switchers.get(i as u8, 0) else {
                continue;
            };
            status[i / 32] |= i32::from(sw.on) << (i % 32);
            let held = self.switch_held.get(i).copied().unwrap_or(false);
            if sw.end_tick > 0 && i64::from(sw.end_tick) < i64::from(tick) + 150 && !held {
                ends.push((sw.end_tick, i as i32));
            }
        }
        ends.sort();
        ends.truncate(4);
        let mut b = builder("SwitchState");
        let mut ints = vec![highest as i32];
        ints.extend(status);
        ints.extend((0..4).map(|k| ends.get(k).map_or(0, |e| e.1)));
        ints.extend((0..4).map(|k| ends.get(k).map_or(0, |e| e.0)));
        for (name, v) in b.field_names().zip(ints).collect::<Vec<_>>() {
            b.int(name, v);
        }
        self.push(&b, "SwitchState", 0);
    }

    /// The snapshot of the world at its tick. 16.4's first one numbers
    /// the types the server had snapped for its clients before first, in
    /// the order it met them, then the rest as first used: built once to
    /// learn which it uses.
    fn snapshot(&mut self, w: &World) {
        if self.release == Release::Ddnet16_4 && self.snapshots == 0 {
            let counts = self.items.clone();
            self.build(w);
            self.items = counts;
            let used = std::mem::take(&mut self.ex_types);
            let known = |n: &&str| SNAPPED_FOR_EVERY_CLIENT.contains(n);
            self.ex_types = SNAPPED_FOR_EVERY_CLIENT
                .into_iter()
                .filter(|n| used.contains(n))
                .chain(used.iter().copied().filter(|n| !known(n)))
                .collect();
        }
        self.build(w);
    }

    /// The items of the world at its tick.
    fn build(&mut self, w: &World) {
        let tick = w.tick;
        self.snap.clear();
        for (i, name) in self.ex_types.clone().into_iter().enumerate() {
            // 16.4's first snapshot names only what the server's builder
            // knew.
            if self.snapshots > 0 || SNAPPED_FOR_EVERY_CLIENT.contains(&name) {
                push_registration(&mut self.snap, name, i);
            }
        }
        self.game_info(w);
        for cid in 0..MAX_CLIENTS {
            let Some(p) = w.player(cid).filter(|p| p.in_game) else {
                continue;
            };
            let info = sixup::as_06(self.clients.info_at(cid, tick), self.release);
            let mut ci = builder("ClientInfo");
            ci.text("name", &info.name)
                .text("clan", &info.clan)
                .int("country", info.country)
                .text("skin", &info.skin)
                .int("use_custom_color", info.use_custom_color)
                .int("color_body", info.color_body)
                .int("color_feet", info.color_feet);
            self.push(&ci, "ClientInfo", cid as i32);
            let mut pi = builder("PlayerInfo");
            pi.int("client_id", cid as i32)
                .int("team", p.team)
                .int("score", score_of(p.best_time, self.release));
            self.push(&pi, "PlayerInfo", cid as i32);
            let mut dp = builder("DDNetPlayer");
            // EXPLAYERFLAG_AFK (1), _PAUSED (2) for `/pause`, _SPEC (4)
            // for `/spec` (`CPlayer::Snap`).
            dp.int("flags", i32::from(p.afk) | (2 * p.pause.number()))
                .int("auth_level", self.clients.auth_at(cid, tick));
            match self.release {
                // 16.4's has only flags and auth level.
                Release::Ddnet16_4 => dp.truncate(2),
                Release::Ddnet20_1 => {
                    let (seconds, millis) = finish_time(p.best_time);
                    dp.int("finish_time_seconds", seconds)
                        .int("finish_time_millis", millis)
                }
            };
            self.push(&dp, "DDNetPlayer", cid as i32);
            self.items.players += 1;
            // A paused character is shown where it stands.
            if let Some(core) = w.paused_core(cid) {
                let mut sc = builder("SpecChar");
                sc.int("x", core.pos.x as i32).int("y", core.pos.y as i32);
                self.push(&sc, "SpecChar", cid as i32);
            }
        }
        self.entities(w);
    }

    /// `IGameController::Snap`: `GameInfo` and `GameInfoEx`.
    fn game_info(&mut self, w: &World) {
        let mut gi = builder("GameInfo");
        gi.int("round_current", 1);
        self.push(&gi, "GameInfo", 0);
        let mut ex = builder("GameInfoEx");
        ex.int("flags", GAMEINFO_FLAGS);
        // NO_WEAK_HOOK (16.4: _AND_BOUNCE) with sv_no_weak_hook.
        let no_weak = if w.config.sv_no_weak_hook != 0 {
            1 << 7
        } else {
            0
        };
        match self.release {
            Release::Ddnet16_4 => {
                // GAMEINFO_CURVERSION 8; GAMEINFOFLAG2_HUD_DDRACE.
                ex.int("version", 8).int("flags2", 1 << 6 | no_weak);
            }
            Release::Ddnet20_1 => {
                // GAMEINFO_CURVERSION 13; HUD_DDRACE, DDRACE_TEAM,
                // PREDICT_EVENTS, SUPPORTS_128_TEAMS; then
                // sv_min_team_size and sv_max_team_size at their defaults.
                ex.int("version", 13)
                    .int("flags2", (1 << 6 | 1 << 9 | 1 << 10 | 1 << 11) | no_weak)
                    .extend(&[2, 128]);
            }
        }
        self.push(&ex, "GameInfoEx", 0);
        self.switch_state(w);
        if self.release == Release::Ddnet20_1 {
            let (seconds, millis) = finish_time(w.map_record());
            let mut best = builder("MapBestTime");
            best.int("map_best_time_seconds", seconds)
                .int("map_best_time_millis", millis);
            self.push(&best, "MapBestTime", 0);
        }
    }

    /// `CGameWorld::Snap`: projectiles, lasers, pickups, characters.
    fn entities(&mut self, w: &World) {
        // Each entity's id is the server's (`SnapIdPool`); one it could
        // not give is never snapped.
        for p in &w.projectiles {
            let Some(id) = p.snap_id else {
                continue;
            };
            let (bounce, explosive, freeze) = (
                i32::from(p.bouncing & 3),
                i32::from(p.explosive),
                i32::from(p.freeze),
            );
            let (name, b) = match self.release {
                Release::Ddnet20_1 => {
                    // `NetInfo`: an ownerless projectile's direction in
                    // millionths; an owned one's aim as its input had it,
                    // flagged NORMALIZE_VEL. Flags: BOUNCE_HORIZONTAL,
                    // _VERTICAL, EXPLOSIVE, FREEZE, NORMALIZE_VEL.
                    let (vel, normalize) = match p.owner < 0 {
                        true => ((p.dir.x * 1e6, p.dir.y * 1e6), 0),
                        false => ((p.aim.x, p.aim.y), 1),
                    };
                    let flags = bounce | explosive << 2 | freeze << 3 | normalize << 4;
                    let mut b = builder("DDNetProjectile");
                    b.int("x", round_to_int(p.pos.x * 100.0))
                        .int("y", round_to_int(p.pos.y * 100.0))
                        .int("vel_x", round_to_c_int(vel.0))
                        .int("vel_y", round_to_c_int(vel.1))
                        .int("type", p.kind)
                        .int("start_tick", p.start_tick)
                        .int("owner", p.owner)
                        .int("switch_number", p.switch.map_or(0, i32::from))
                        .int("tune_zone", i32::from(p.tune_zone))
                        .int("flags", flags);
                    ("DDNetProjectile", b)
                }
                Release::Ddnet16_4 => {
                    // The map's bullets say their layer and switch to
                    // every client.
                    if p.life_span == -2 {
                        let number = p.switch.map_or(0, i32::from);
                        self.entity_ex(id, number, i32::from(p.layer), ENTITYCLASS_PROJECTILE);
                    }
                    // `FillExtraInfo`: the position in hundredths and
                    // the angle in millionths of a radian, both cut;
                    // data: the owner's id, NO_OWNER, IS_DDNET, then
                    // BOUNCE_HORIZONTAL, _VERTICAL, EXPLOSIVE, FREEZE.
                    let angle = (-p.dir.x.atan2(p.dir.y) * 1_000_000.0) as i32;
                    let data = (p.owner.wrapping_abs() & 255)
                        | i32::from(p.owner < 0) << 8
                        | 1 << 9
                        | bounce << 10
                        | explosive << 12
                        | freeze << 13;
                    let mut b = builder("DDRaceProjectile");
                    b.int("x", (p.pos.x * 100.0) as i32)
                        .int("y", (p.pos.y * 100.0) as i32)
                        .int("angle", angle)
                        .int("data", data)
                        .int("type", p.kind)
                        .int("start_tick", p.start_tick);
                    ("DDRaceProjectile", b)
                }
            };
            self.push(&b, name, id);
            self.items.projectiles += 1;
        }
        for e in w.devices.snap_order(&w.lasers) {
            self.laser_entity(w, e);
        }
        for pk in w.pickups() {
            use crate::simulation::ddrace::world::PickupKind;
            let Some(id) = pk.snap_id else {
                continue;
            };
            let (kind, subtype) = match pk.kind {
                PickupKind::Health => (0, 0),
                PickupKind::Armor => (1, 0),
                PickupKind::Weapon(wp) => (2, wp),
                PickupKind::Ninja => (3, 5),
            };
            // 16.4 sends the 0.6 item (a switched one says so first),
            // 20.1 DDNet's, with its switch and its tile's flips and
            // rotation (`TileFlagsToPickupFlags`).
            let name = match self.release {
                Release::Ddnet16_4 => {
                    if pk.layer == LAYER_SWITCH {
                        self.entity_ex(
                            id,
                            i32::from(pk.number),
                            i32::from(pk.layer),
                            ENTITYCLASS_PICKUP,
                        );
                    }
                    "Pickup"
                }
                Release::Ddnet20_1 => "DDNetPickup",
            };
            let mut b = builder(name);
            b.int("x", pk.pos.x as i32)
                .int("y", pk.pos.y as i32)
                .int("type", kind)
                .int("subtype", subtype);
            if self.release == Release::Ddnet20_1 {
                let f = i32::from(pk.flags);
                let flags = (f & 1) | (f & 2) | ((f >> 3) & 1) << 2;
                b.int("switch_number", i32::from(pk.number))
                    .int("flags", flags);
            }
            self.push(&b, name, id);
            self.items.pickups += 1;
        }
        for &cid in w.order() {
            self.character(w, cid);
        }
        self.events(w);
    }

    /// An entity of the laser list as it snaps itself for the demo (the
    /// newest client, with no character: a light of a numbered switch
    /// shows off, a door closed), in the server's item layout: 16.4's
    /// `Laser` (the map's own entities with an `EntityEx` saying what they
    /// are, and start tick 0), 20.1's `DDNetLaser` (type, subtype and
    /// switch; start tick -1 but for weapons' lasers and bullets).
    fn laser_entity(&mut self, w: &World, e: LaserEntity<'_>) {
        let tick = w.tick;
        let v16 = self.release == Release::Ddnet16_4;
        // `(int)`: cut to whole units.
        let cut = |p: Vec2| (p.x as i32, p.y as i32);
        // The start tick of a laser that blinks for old clients.
        let recent = |eval: i32| eval.clamp(tick.saturating_sub(4), tick);
        let (id, to, from, start, owner, kind, subtype, number) = match e {
            LaserEntity::Weapon(l) => {
                // 16.4 snaps a laser only while its owner has a character.
                let owned = || usize::try_from(l.owner).is_ok_and(|c| w.character(c).is_some());
                let Some(id) = l.snap_id.filter(|_| !v16 || owned()) else {
                    return;
                };
                // LASERTYPE_RIFLE 0, LASERTYPE_SHOTGUN 1.
                let kind = if l.kind == 2 { 1 } else { 0 };
                (id, l.pos, l.from, l.eval_tick, l.owner, kind, 0, 0)
            }
            LaserEntity::Plasma(p) => {
                let Some(id) = p.snap_id.filter(|_| w.character(p.target).is_some()) else {
                    return;
                };
                let subtype = i32::from(p.explosive) | i32::from(p.freeze) << 1;
                (
                    id,
                    p.pos,
                    p.pos,
                    p.eval_tick,
                    p.target as i32,
                    LASERTYPE_PLASMA,
                    subtype,
                    0,
                )
            }
            LaserEntity::Beam(b) => {
                let Some(ch) = w.character(b.target) else {
                    return;
                };
                let (Some(id), true) = (b.snap_id, b.active) else {
                    return;
                };
                if ch.pos.distance(b.pos) >= w.config.sv_dragger_range as f32 {
                    return;
                }
                let Some(Device::Dragger(g)) = w.devices.devices.get(b.dragger) else {
                    return;
                };
                let start = if v16 { recent(b.eval_tick) } else { -1 };
                // 16.4 draws it from the dragger to the character, 20.1
                // the other way.
                let (to, from) = if v16 {
                    (b.pos, ch.pos)
                } else {
                    (ch.pos, b.pos)
                };
                let owner = b.target as i32;
                (
                    id,
                    to,
                    from,
                    start,
                    owner,
                    LASERTYPE_DRAGGER,
                    dragger_subtype(g),
                    i32::from(g.number),
                )
            }
            LaserEntity::Device(d, device) => {
                let Some(id) = device.snap_id() else {
                    return;
                };
                match device {
                    Device::Door(door) => {
                        let start = if v16 { 0 } else { -1 };
                        let number = i32::from(door.number);
                        if v16 {
                            // Its layer is never set: 0.
                            self.laser16(id, cut(door.pos), cut(door.to), start);
                            self.entity_ex(id, number, 0, ENTITYCLASS_DOOR);
                            return;
                        }
                        (id, door.pos, door.to, start, -1, LASERTYPE_DOOR, 0, number)
                    }
                    Device::Light(l) => {
                        let switched = l.layer == LAYER_SWITCH;
                        let number = i32::from(l.number);
                        if v16 {
                            let ex = switched || l.mover != Vec2::default();
                            if ex {
                                self.entity_ex(id, number, i32::from(l.layer), ENTITYCLASS_LIGHT);
                            }
                            let from = if switched { l.pos } else { l.to };
                            let start = if ex { 0 } else { recent(l.eval_tick) };
                            self.laser16(id, cut(l.pos), cut(from), start);
                            return;
                        }
                        // A switched one (of a number) is on for no team.
                        let from = if switched && l.number > 0 {
                            l.pos
                        } else {
                            l.to
                        };
                        (id, l.pos, from, -1, -1, LASERTYPE_FREEZE, 0, number)
                    }
                    Device::Turret(t) => {
                        let number = i32::from(t.number);
                        if v16 {
                            let class = match (t.explosive, t.freeze) {
                                (true, false) => 5,
                                (true, true) => 6,
                                (false, true) => 7,
                                (false, false) => 8,
                            };
                            self.entity_ex(id, number, i32::from(t.layer), class);
                            self.laser16(id, cut(t.pos), cut(t.pos), 0);
                            return;
                        }
                        let subtype = i32::from(t.explosive) | i32::from(t.freeze) << 1;
                        (id, t.pos, t.pos, -1, -1, LASERTYPE_GUN, subtype, number)
                    }
                    Device::Dragger(g) => {
                        let number = i32::from(g.number);
                        if v16 {
                            // Not shown while one of its beams pulls a
                            // character (the beam is).
                            let pulling = w.devices.beams.iter().any(|b| {
                                b.dragger == d && b.active && w.character(b.target).is_some()
                            });
                            if pulling {
                                return;
                            }
                            let class = (ENTITYCLASS_DRAGGER_WEAK + round_to_int(g.strength) - 1)
                                .clamp(ENTITYCLASS_DRAGGER_WEAK, ENTITYCLASS_DRAGGER_WEAK + 2);
                            self.entity_ex(id, number, i32::from(g.layer), class);
                            self.laser16(id, cut(g.pos), cut(g.pos), 0);
                            return;
                        }
                        (
                            id,
                            g.pos,
                            g.pos,
                            -1,
                            -1,
                            LASERTYPE_DRAGGER,
                            dragger_subtype(g),
                            number,
                        )
                    }
                }
            }
        };
        if v16 && !matches!(e, LaserEntity::Weapon(_)) {
            self.laser16(id, cut(to), cut(from), start);
            return;
        }
        let (to, from) = (cut(to), cut(from));
        let mut b = builder("DDNetLaser");
        b.int("to_x", to.0)
            .int("to_y", to.1)
            .int("from_x", from.0)
            .int("from_y", from.1)
            .int("start_tick", start)
            .int("owner", owner)
            .int("type", kind);
        if v16 {
            // 16.4's ends with the type.
            b.truncate(7);
        } else {
            b.int("switch_number", number).int("subtype", subtype);
        }
        self.push(&b, "DDNetLaser", id);
        self.items.lasers += 1;
    }

    /// 16.4's `Laser` item.
    fn laser16(&mut self, id: i32, to: (i32, i32), from: (i32, i32), start: i32) {
        let mut b = builder("Laser");
        b.int("x", to.0)
            .int("y", to.1)
            .int("from_x", from.0)
            .int("from_y", from.1)
            .int("start_tick", start);
        self.push(&b, "Laser", id);
        self.items.lasers += 1;
    }

    /// 16.4's `EntityEx` item: what a map entity is, for new clients.
    fn entity_ex(&mut self, id: i32, number: i32, layer: i32, class: i32) {
        let mut b = builder("EntityEx");
        b.int("switch_number", number)
            .int("layer", layer)
            .int("entity_class", class);
        self.push(&b, "EntityEx", id);
    }

    /// `CEventHandler::Snap`: the tick's events, each with its place in
    /// the list as its id (the server's demo gets every one).
    fn events(&mut self, w: &World) {
        use crate::simulation::ddrace::effects::Effect;
        for (id, e) in w.effects().iter().enumerate() {
            let (name, b) = match *e {
                Effect::Sound { x, y, id } => {
                    let mut b = builder("SoundWorld");
                    b.int("x", x).int("y", y).int("sound_id", id);
                    ("SoundWorld", b)
                }
                Effect::DamageInd { x, y, angle } => {
                    let mut b = builder("DamageInd");
                    b.int("x", x).int("y", y).int("angle", angle);
                    ("DamageInd", b)
                }
                Effect::HammerHit { x, y } => ("HammerHit", at("HammerHit", x, y)),
                Effect::Explosion { x, y } => ("Explosion", at("Explosion", x, y)),
                Effect::Spawn { x, y } => ("Spawn", at("Spawn", x, y)),
                Effect::Finish { x, y } => ("Finish", at("Finish", x, y)),
                Effect::Death { x, y, cid } => {
                    let mut b = at("Death", x, y);
                    b.int("client_id", cid);
                    ("Death", b)
                }
            };
            self.push(&b, name, id as i32);
            self.items.events += 1;
        }
    }

    /// `CCharacter::Snap`: `Character` and `DDNetCharacter`.
    fn character(&mut self, w: &World, cid: usize) {
        let tick = w.tick;
        let (Some(core), Some(ch)) = (w.core(cid), w.character(cid)) else {
            return;
        };
        let (item_tick, sent) = match &self.reckoning[cid] {
            Some(r) => (r.tick, r.sent),
            None => (0, core_item(core)),
        };
        if item_tick == tick {
            self.resent += 1;
        } else if item_tick != 0 {
            self.reckoned += 1;
        }
        let weapon = ch.active_weapon;
        let ammo = usize::try_from(weapon)
            .ok()
            .and_then(|wi| ch.weapons.get(wi))
            .map_or(0, |s| s.ammo);
        let ammo = match self.release {
            _ if ch.freeze_time != 0 => 0,
            Release::Ddnet16_4 if ammo <= 0 => 0,
            _ => ammo,
        };
        let player = w.player(cid);
        // A character not ticked yet shows its player away (DDNet's new
        // player is `m_Afk` until its inputs reach `AfkTimer`).
        let away = player.is_some_and(|p| p.afk || p.pause != Pause::None) || ch.spawn_tick == tick;
        let emote = self.emote(ch, away, tick, self.last_action[cid]);
        let player_flags = player.map_or(0, |p| p.player_flags);
        let mut c = builder("Character");
        // The core's fields come first (`tick` to `hook_dy`).
        for (name, v) in c.field_names().zip(sent) {
            c.int(name, v);
        }
        c.int("tick", item_tick)
            .int("direction", ch.input.direction)
            .int("player_flags", player_flags)
            .int("health", 10)
            .int("armor", ch.armor)
            .int("ammo_count", ammo)
            .int("weapon", weapon)
            .int("emote", emote)
            .int("attack_tick", ch.attack_tick);
        self.push(&c, "Character", cid as i32);
        self.items.characters += 1;

        let mut flags = 0;
        let mut set = |bit: i32, on: bool| {
            if on {
                flags |= 1 << bit;
            }
        };
        // Collision and hooking off by tuning show as the core's flags:
        // 16.4 reads the global tuning, 20.1 the character's zone's (the
        // one its core ticked with).
        let tuning = match self.release {
            Release::Ddnet16_4 => w.tunings.global(),
            Release::Ddnet20_1 => w.core_tuning(cid),
        };
        set(0, core.solo);
        set(1, ch.jetpack);
        set(
            2,
            core.collision_disabled || tuning.player_collision() == 0.0,
        );
        set(3, core.endless_hook);
        set(4, core.endless_jump);
        set(5, core.super_);
        use crate::simulation::ddrace::character::weapon;
        for (bit, w) in [
            (6, weapon::HAMMER),
            (7, weapon::SHOTGUN),
            (8, weapon::GRENADE),
            (9, weapon::LASER),
        ] {
            set(bit, ch.hit_disabled[w as usize]);
        }
        set(10, core.hook_hit_disabled || tuning.player_hooking() == 0.0);
        for (i, slot) in ch.weapons.iter().enumerate().take(5) {
            set(14 + i as i32, slot.got);
        }
        set(19, weapon == 5);
        set(20, ch.live_frozen);
        set(21, self.in_freeze[cid]);
        let freeze_end = if ch.deep_frozen {
            -1
        } else if ch.freeze_time == 0 {
            0
        } else {
            tick.wrapping_add(ch.freeze_time)
        };
        let mut d = builder("DDNetCharacter");
        d.int("flags", flags)
            .int("freeze_end", freeze_end)
            .int("jumps", core.jumps)
            .int("tele_checkpoint", ch.tele_checkpoint)
            .int("strong_weak_id", ch.strong_weak_id)
            .int("jumped_total", core.jumped_total)
            .int("ninja_activation_tick", ch.ninja_activation_tick)
            .int("freeze_start", ch.freeze_start)
            .int("target_x", core.input.target_x)
            .int("target_y", core.input.target_y);
        match self.release {
            // 16.4's ends with the aim.
            Release::Ddnet16_4 => d.truncate(10),
            // TuneZone::OVERRIDE_NONE.
            Release::Ddnet20_1 => d.int("tune_zone_override", -1),
        };
        self.push(&d, "DDNetCharacter", cid as i32);
        self.items.ddnet_characters += 1;
    }

    /// The eyes (`DetermineEyeEmote`; 16.4 decides in `SnapCharacter`,
    /// in another order with the same outcome when no emote was chosen):
    /// an away (afk) or paused player's are normal when frozen, else
    /// closed; frozen
    /// eyes are in pain (deep or live freeze) or closed; and every 5
    /// seconds after the player last changed its input they blink for 4
    /// ticks; eyes the character was given (pain when hurt, an
    /// emoticon's) come before the freeze's. A default chosen with
    /// `/emote` is not modelled.
    fn emote(
        &self,
        ch: &crate::simulation::ddrace::character::Character,
        away: bool,
        tick: i32,
        last_action: i32,
    ) -> i32 {
        let frozen = ch.deep_frozen || ch.freeze_time > 0;
        if away {
            return if frozen { 0 } else { EMOTE_BLINK };
        }
        if ch.emote_type != 0 {
            return ch.emote_type;
        }
        if ch.deep_frozen || ch.live_frozen {
            return EMOTE_PAIN;
        }
        if frozen {
            return EMOTE_BLINK;
        }
        if 250 - (tick.wrapping_sub(last_action)).rem_euclid(250) < 5 {
            return EMOTE_BLINK;
        }
        0
    }
}

/// `m_IsInFreeze`: a freeze tile (plain, deep or live; 20.1: or death)
/// in the game, front or switch layer at `p`, or (20.1) a death tile at a
/// corner a third of the body out.
fn in_freeze(
    col: &crate::simulation::physics::collision::Collision,
    p: crate::simulation::physics::Vec2,
    v: Release,
) -> bool {
    use crate::simulation::physics::collision::{TILE_DEATH, tile};
    let i = col.pure_index(p);
    let kinds = [col.game_index(i), col.front_index(i), col.switch_at(i).0];
    let freeze = |k: u8| {
        matches!(k, tile::FREEZE | tile::DFREEZE | tile::LFREEZE)
            || (v == Release::Ddnet20_1 && k == TILE_DEATH)
    };
    if kinds.into_iter().any(freeze) {
        return true;
    }
    if v == Release::Ddnet16_4 {
        return false;
    }
    let r = crate::simulation::physics::core::PHYSICAL_SIZE / 3.0;
    [(r, -r), (r, r), (-r, -r), (-r, r)]
        .into_iter()
        .any(|(dx, dy)| {
            let q = crate::simulation::physics::Vec2::new(p.x + dx, p.y + dy);
            col.collision_at(q) == TILE_DEATH || col.front_collision_at(q) == TILE_DEATH
        })
}

use crate::simulation::ddrace::character::EMOTE_PAIN;
/// `EMOTE_BLINK`.
const EMOTE_BLINK: i32 = 5;

/// The extended types 16.4 snaps for every client, whatever its version
/// and wherever it looks (the controller's, its player's and its
/// character's): the server's builder knows them before its demo's first
/// snapshot. Entities out of a client's view, the newer clients' items
/// (`EntityEx`, `DDRaceProjectile`, `DDNetLaser`) it may not know yet.
const SNAPPED_FOR_EVERY_CLIENT: [&str; 4] =
    ["GameInfoEx", "SwitchState", "DDNetPlayer", "DDNetCharacter"];
/// 16.4's `ENTITYCLASS_*` (what an `EntityEx` says).
const ENTITYCLASS_PROJECTILE: i32 = 0;
const ENTITYCLASS_DOOR: i32 = 1;
const ENTITYCLASS_DRAGGER_WEAK: i32 = 2;
const ENTITYCLASS_LIGHT: i32 = 9;
const ENTITYCLASS_PICKUP: i32 = 10;
/// 20.1's `LASERTYPE_*`.
const LASERTYPE_DOOR: i32 = 2;
const LASERTYPE_FREEZE: i32 = 3;
const LASERTYPE_DRAGGER: i32 = 4;
const LASERTYPE_GUN: i32 = 5;
const LASERTYPE_PLASMA: i32 = 6;

/// A dragger's subtype (20.1): walls ignored, then its strength 1 to 3
/// as 0 to 2.
fn dragger_subtype(g: &Dragger) -> i32 {
    i32::from(g.ignore_walls) | (round_to_int(g.strength - 1.0).clamp(0, 2) << 1)
}

/// `round_to_int` as the server's x86 build computes it: a value no
/// `int` holds (an aim far out, NaN) becomes `INT_MIN`, not the nearest.
fn round_to_c_int(f: f32) -> i32 {
    if f.is_nan() || f.abs() >= 2_147_483_648.0 {
        return i32::MIN;
    }
    round_to_int(f)
}

/// The switches of the map (0 to the highest number; none without a
/// numbered one).
fn switch_count(w: &World) -> usize {
    match w.collision().highest_switch() {
        h if h > 0 => h as usize + 1,
        _ => 0,
    }
}

/// `GameInfoEx`'s flags from DDNet's DDRace controller (16.4 and 20.1):
/// TIMESCORE, GAMETYPE_RACE, _DDRACE, _DDNET, UNLIMITED_AMMO,
/// RACE_RECORD_MESSAGE, ALLOW_EYE_WHEEL, ALLOW_HOOK_COLL, ALLOW_ZOOM,
/// BUG_DDRACE_GHOST, BUG_DDRACE_INPUT, PREDICT_DDRACE,
/// PREDICT_DDRACE_TILES, ENTITIES_DDNET, _DDRACE, _RACE, RACE.
const GAMEINFO_FLAGS: i32 = 247_983_155;

/// `CCharacterCore::Write`: the core as a Character item has it (`tick`
/// 0).
fn core_item(c: &Core) -> [i32; 15] {
    [
        0,
        round_to_int(c.pos.x),
        round_to_int(c.pos.y),
        round_to_int(c.vel.x * 256.0),
        round_to_int(c.vel.y * 256.0),
        c.angle,
        c.direction,
        c.jumped,
        c.hooked_player,
        c.hook_state,
        c.hook_tick,
        round_to_int(c.hook_pos.x),
        round_to_int(c.hook_pos.y),
        round_to_int(c.hook_dir.x * 256.0),
        round_to_int(c.hook_dir.y * 256.0),
    ]
}

/// DDNet 16.4's `CCharacterCore::Reset`, which its `Init` runs on the
/// prediction every tick: what it resets (the rest is kept).
fn reset_16_4(c: &mut Core) {
    c.pos = crate::simulation::physics::Vec2::default();
    c.vel = crate::simulation::physics::Vec2::default();
    c.new_hook = false;
    c.hook_pos = crate::simulation::physics::Vec2::default();
    c.hook_dir = crate::simulation::physics::Vec2::default();
    c.hook_tick = 0;
    c.hook_state = crate::simulation::physics::core::hook::IDLE;
    c.hooked_player = -1;
    c.jumped = 0;
    c.jumped_total = 0;
    c.jumps = 2;
    c.triggered_events = 0;
    c.solo = false;
    c.collision_disabled = false;
    c.endless_hook = false;
    c.endless_jump = false;
    c.hook_hit_disabled = false;
    c.super_ = false;
    c.input.target_x = 0;
    c.input.target_y = -1;
}

/// A 0.6 player's score (`PlayerInfo.score`): minus its best time's
/// whole seconds, -9999 for none (`NOT_FINISHED_TIMESCORE`). 20.1
/// (`CGameControllerDDNet::SnapPlayerScore`) shows a time of 9999 s as
/// -10000; 16.4 keeps `-(int)Time` (`CGameTeams::OnFinish`) as it is.
fn score_of(best: Option<f32>, release: Release) -> i32 {
    let Some(best) = best else {
        return -9999;
    };
    // C's float-to-int cut.
    let seconds = best as i32;
    match (release, seconds) {
        (Release::Ddnet20_1, 9999) => -10000,
        _ => seconds.wrapping_neg(),
    }
}

/// A time's seconds and milliseconds as 20.1 snaps them (`CFinishTime`,
/// `SnapPlayerTime`, `SnapMapBestTime`): the milliseconds rounded from
/// the float (`time_milliseconds_from_seconds`); (-1, 0) for none
/// (`NOT_FINISHED_MILLIS`).
fn finish_time(time: Option<f32>) -> (i32, i32) {
    let Some(time) = time else {
        return (-1, 0);
    };
    let millis = (f64::from(time) * 1000.0).round() as i64;
    ((millis / 1000) as i32, (millis % 1000) as i32)
}

/// An event item of `name` at (`x`, `y`).
fn at(name: &str, x: i32, y: i32) -> ItemBuilder {
    let mut b = builder(name);
    b.int("x", x).int("y", y);
    b
}

/// A zeroed item of a type the tables have.
fn builder(name: &str) -> ItemBuilder {
    ItemBuilder::new(name).expect("a type of the crate's item tables")
}

/// The registration item of extended type number `index`.
fn push_registration(snap: &mut Snapshot, name: &'static str, index: usize) {
    let uuid = builder(name).uuid().unwrap_or_default();
    snap.push(MAX_TYPE - index as i32, &uuid_to_ints(&uuid));
}
