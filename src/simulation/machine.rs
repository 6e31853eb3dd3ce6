//! Simulating a teehistorian file (issue 27): its records drive a
//! [`World`] on the map it was recorded on, and every tick the world's
//! characters are compared with the positions the file records.
//!
//! Records between tick T's PLAYER records and tick T+1's are what
//! happened between the two ticks (joins, kills, inputs); the world takes
//! them, steps to T+1, and must then stand where T+1's records say. A
//! divergence is reported with the tick, the player, both positions and
//! the core just before; then the character is put where the file says
//! (velocity and hook kept) so that one difference does not hide the rest.

use super::Release;
use crate::codec::{DecodeError, Mode};
use crate::packet::msg::{MsgHeader, decode_body, split};
use crate::simulation::ddrace::config::{Config, apply_map_tiles};
use crate::simulation::ddrace::world::{Unmodelled, World, WorldState};
use crate::simulation::physics::Vec2;
use crate::simulation::physics::collision::Collision;
use crate::simulation::physics::core::{Core, MAX_CLIENTS};
use crate::simulation::physics::tuning::Tunings;
use crate::teehistorian::{Ex, Header, Message, PlayerInput, Record, SliceReader};
use serde::Serialize;
use std::ops::ControlFlow;

/// The most ticks one gap between records may make the world step while
/// players are in it: a day.
pub const MAX_GAP: i64 = 50 * 60 * 60 * 24;

/// How many divergences a report lists (all are counted).
pub const MAX_LISTED: usize = 50;

/// What a simulation found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Whose physics the world followed: the recording server's
    /// (`recorded_version`) unless [`Options::physics`] said otherwise.
    pub version: Release,
    /// The version of the server that recorded the file (from the
    /// header's `server_version`).
    pub recorded_version: Release,
    /// The first and last tick simulated.
    pub ticks: (i32, i32),
    /// (tick, player) pairs where the file records a live character.
    pub player_ticks: u64,
    /// Of those, where the simulated character stood exactly there.
    pub matched: u64,
    /// Player-ticks matched before the file's first divergence.
    pub matched_strict: u64,
    /// Player-ticks of characters an unmodelled event may have moved (not
    /// failures, not matches unless they match).
    pub after_unmodelled: u64,
    /// Divergences not explained by an unmodelled event.
    pub divergences: u64,
    /// The first [`MAX_LISTED`] divergences, in order.
    pub listed: Vec<Divergence>,
    /// DDNet 16.4 only: (tick, client id) where the character moved with
    /// the input it had, not the one the file records for the tick; the
    /// file cannot say which (see [`World::step_holding`]), the position
    /// decided.
    pub held_inputs: Vec<(i32, usize)>,
    /// The decode error that ended the simulation early, if one did.
    pub stopped: Option<String>,
    /// The world after the last tick simulated ([`Options::until`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub world: Option<crate::simulation::ddrace::world::WorldState>,
    /// What the world does not model, in order of ticks.
    pub unmodelled: Vec<Unmodelled>,
    /// Per player: its player-ticks, matches, and first divergence tick.
    pub players: Vec<PlayerSummary>,
    /// The comparison with a demo of the same session, when one was given
    /// ([`Options::demo`]).
    pub demo: Option<DemoReport>,
}

/// One player's figures.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PlayerSummary {
    /// The client id.
    pub cid: usize,
    /// Its player-ticks.
    pub player_ticks: u64,
    /// Matched.
    pub matched: u64,
    /// The first divergence's tick, if any.
    pub first_divergence: Option<i32>,
}

/// Where the world and the file disagree.
#[derive(Clone, Debug, Serialize)]
pub struct Divergence {
    /// The tick.
    pub tick: i32,
    /// The client id.
    pub cid: usize,
    /// What the file says (`None`: no character).
    pub recorded: Option<(i32, i32)>,
    /// What the world has.
    pub simulated: Option<(i32, i32)>,
    /// The core at the end of the tick before.
    pub core_before: Option<Core>,
    /// After an unmodelled event that touched this player.
    pub unmodelled: bool,
}

/// Why a file cannot be simulated.
#[derive(Debug)]
pub enum SimulateError {
    /// The file does not decode.
    Decode(DecodeError),
    /// The header names a server this simulator does not know.
    UnknownServer(String),
    /// The header's settings or tuning cannot be read.
    Header(String),
    /// The map gives no world.
    Map(String),
    /// The demo to compare with does not decode.
    Demo(String),
}

impl std::fmt::Display for SimulateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulateError::Decode(e) => write!(f, "{e}"),
            SimulateError::UnknownServer(s) => write!(
                f,
                "the header's server_version {s:?} is not a DDNet version this simulator models (16.4 or 20.1)"
            ),
            SimulateError::Header(e) => write!(f, "the header's {e}"),
            SimulateError::Map(e) => write!(f, "the map: {e}"),
            SimulateError::Demo(e) => write!(f, "the demo: {e}"),
        }
    }
}

/// How to simulate a file: what else to compare with, where to stop,
/// and whose physics to step with.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// A server demo of the same session: its Character and
    /// DDNetCharacter items are compared with the simulated characters at
    /// each item's own tick ([`Report::demo`]).
    pub demo: Option<&'a [u8]>,
    /// Stop after this tick (the file's first tick at least): the report
    /// covers the ticks up to it, and [`Report::world`] holds the world
    /// as it is after that tick.
    pub until: Option<i32>,
    /// Step with this version's physics instead of the recording
    /// server's: what a physics change does to old recordings. The
    /// header's settings and tuning are carried over by name.
    pub physics: Option<Release>,
}

/// Simulates `bytes` (a teehistorian file) on `col` (its map's game
/// layer).
pub fn simulate(bytes: &[u8], col: Collision, options: &Options) -> Result<Report, SimulateError> {
    simulate_observed(bytes, col, options, &mut |_| {})
}

/// [`simulate`], showing `on_tick` the world after every tick it
/// compares with the file (in order; ticks an empty world crosses at
/// once are not shown).
pub fn simulate_observed(
    bytes: &[u8],
    col: Collision,
    options: &Options,
    on_tick: &mut dyn FnMut(&World),
) -> Result<Report, SimulateError> {
    let (header, mut reader) =
        SliceReader::new(bytes, Mode::Lenient).map_err(SimulateError::Decode)?;
    let mut sim = Simulation::new(&header, col, options.physics, Box::new(on_tick))?;
    if let Some(demo) = options.demo {
        let events =
            crate::demo::Events::new(demo).map_err(|e| SimulateError::Demo(e.to_string()))?;
        sim.demo = Some(DemoCompare::new(events));
        sim.report.demo = Some(DemoReport::default());
    }
    let at = options.until;
    let mut reached = false;
    let flow = reader.for_each_record(|rec| {
        if let Some(at) = at
            && rec.tick > at
        {
            reached = true;
            return ControlFlow::Break(());
        }
        sim.record(rec);
        ControlFlow::Continue(())
    });
    // A record that does not decode ends the simulation there, and the
    // report says so (a cut file's end is no error: it just ends).
    if let Err(e) = flow {
        sim.report.stopped = Some(e.to_string());
    }
    // Ticks without records up to `at` (never past the file's end).
    if let Some(at) = at
        && reached
    {
        sim.advance(at);
    }
    sim.finish();
    if at.is_some() {
        sim.report.world = sim.world.as_ref().map(World::state);
    }
    Ok(sim.report)
}

/// A simulation read one tick at a time: the world after each tick it
/// compares with the file, in order ([`simulate_observed`]'s ticks). The
/// world runs free: a character that diverges from the file is not put
/// back where the file says, so the worlds given are the ones the
/// inputs make (the report still counts every divergence).
/// Memory stays bounded whatever the file's length: the world steps to
/// the next record's tick one tick per call, and an empty world crosses
/// a gap at once (those ticks are not given).
pub struct Stepper<'a> {
    reader: SliceReader<'a>,
    sim: Simulation<'a, 'a>,
    /// The next record, when the world must first step towards its tick.
    pending: Option<Record<'a>>,
    /// The worlds shown by the simulation and not taken yet.
    shown: std::rc::Rc<std::cell::RefCell<std::collections::VecDeque<WorldState>>>,
    done: bool,
}

impl<'a> Stepper<'a> {
    /// A stepper over `bytes` on `col` (with `physics`, if given).
    pub fn new(
        bytes: &'a [u8],
        col: Collision,
        physics: Option<Release>,
    ) -> Result<Stepper<'a>, SimulateError> {
        let (header, reader) =
            SliceReader::new(bytes, Mode::Lenient).map_err(SimulateError::Decode)?;
        let shown = std::rc::Rc::new(std::cell::RefCell::new(std::collections::VecDeque::new()));
        let into = std::rc::Rc::clone(&shown);
        let on_tick = Box::new(move |w: &World| into.borrow_mut().push_back(w.state()));
        let mut sim = Simulation::new(&header, col, physics, on_tick)?;
        sim.free_running = true;
        Ok(Stepper {
            reader,
            sim,
            pending: None,
            shown,
            done: false,
        })
    }

    /// The world after the next tick; `None` after the last.
    pub fn next_state(&mut self) -> Option<WorldState> {
        loop {
            if let Some(s) = self.shown.borrow_mut().pop_front() {
                return Some(s);
            }
            if self.done {
                return None;
            }
            let rec = match self.pending.take().map(Ok).or_else(|| self.reader.next()) {
                None => {
                    self.sim.finish();
                    self.done = true;
                    continue;
                }
                Some(Err(e)) => {
                    self.sim.report.stopped = Some(e.to_string());
                    self.sim.finish();
                    self.done = true;
                    continue;
                }
                Some(Ok(rec)) => rec,
            };
            // One tick towards the record's, unless the world is empty
            // (crossed at once) or the gap is past the bound (the record
            // stops the simulation).
            if let Some(w) = &self.sim.world
                && !w.is_idle()
                && self.sim.report.stopped.is_none()
                && w.tick.saturating_add(1) < rec.tick
                && i64::from(rec.tick) - i64::from(w.tick) <= MAX_GAP
            {
                let next = w.tick + 1;
                self.sim.advance(next);
                self.pending = Some(rec);
                continue;
            }
            self.sim.record(&rec);
            if self.sim.report.stopped.is_some() {
                self.sim.finish();
                self.done = true;
            }
        }
    }

    /// What the simulation found, so far.
    pub fn report(&self) -> &Report {
        &self.sim.report
    }
}

/// The driver's state.
struct Simulation<'d, 'o> {
    /// The demo compared with, if any.
    demo: Option<DemoCompare<'d>>,
    /// Shown the world after each compared tick.
    on_tick: Box<dyn FnMut(&World) + 'o>,
    /// The physics stepped with, if not the recording server's.
    physics: Option<Release>,
    /// Characters are never put back where the file says after a
    /// divergence: the world is the one the inputs make.
    free_running: bool,
    world: Option<World>,
    /// The version of the server that wrote the file.
    recorded_version: Release,
    /// What the world is made of, until the first record's tick makes it.
    start: Option<(Header, Collision)>,
    /// Positions as the file has them now.
    recorded: Vec<Option<(i32, i32)>>,
    /// Each client's last recorded input (the base of INPUT_DIFF).
    inputs: Vec<Option<PlayerInput>>,
    /// The world's tick was compared with the file.
    compared: bool,
    /// DDNet 16.4: the world before the last step and the client ids that
    /// had inputs for it, to try the step again with a client's input
    /// held (see [`World::step_holding`]).
    before: Option<(World, Vec<usize>)>,
    /// Players touched by an unmodelled event (until they respawn).
    tainted: Vec<bool>,
    /// The world's unmodelled events already applied to `tainted`.
    seen_unmodelled: usize,
    cores_before: Vec<Option<Core>>,
    report: Report,
    first_tick: Option<i32>,
    diverged: bool,
}

impl<'d, 'o> Simulation<'d, 'o> {
    fn new(
        header: &Header,
        col: Collision,
        physics: Option<Release>,
        on_tick: Box<dyn FnMut(&World) + 'o>,
    ) -> Result<Simulation<'d, 'o>, SimulateError> {
        // The header is read now: a bad one fails before any record.
        let version = world_of(header, col.clone(), 0, physics)?.version;
        Ok(Simulation {
            demo: None,
            on_tick,
            physics,
            free_running: false,
            world: None,
            recorded_version: recorded_version(header)?,
            start: Some((header.clone(), col)),
            recorded: vec![None; MAX_CLIENTS],
            inputs: vec![None; MAX_CLIENTS],
            compared: false,
            before: None,
            tainted: vec![false; MAX_CLIENTS],
            seen_unmodelled: 0,
            cores_before: vec![None; MAX_CLIENTS],
            report: Report {
                version,
                recorded_version: recorded_version(header)?,
                ticks: (0, 0),
                held_inputs: Vec::new(),
                stopped: None,
                world: None,
                player_ticks: 0,
                matched: 0,
                matched_strict: 0,
                after_unmodelled: 0,
                divergences: 0,
                listed: Vec::new(),
                unmodelled: Vec::new(),
                players: (0..MAX_CLIENTS)
                    .map(|cid| PlayerSummary {
                        cid,
                        ..PlayerSummary::default()
                    })
                    .collect(),
                demo: None,
            },
            first_tick: None,
            diverged: false,
        })
    }

    /// The world, made at the first record's tick.
    fn world(&mut self, tick: i32) -> &mut World {
        if let Some((header, col)) = self.start.take() {
            // The header was read in `new`.
            self.world = world_of(&header, col, tick, self.physics).ok();
            self.first_tick = Some(tick);
        }
        self.world
            .as_mut()
            .expect("made from a header read in `new`")
    }

    /// Steps the world to `tick`, comparing each tick on the way.
    fn advance(&mut self, tick: i32) {
        if self.report.stopped.is_some() {
            return;
        }
        loop {
            let now = self.world(tick).tick;
            if now >= tick {
                break;
            }
            self.compare();
            let w = self.world.as_mut().expect("made");
            // Nobody and nothing in the world: the empty ticks change
            // nothing, so a long gap is crossed at once.
            if w.is_idle() {
                w.tick = tick;
                self.compared = false;
                continue;
            }
            // The file decides how far; a day of ticks with players in the
            // game is the most one gap may ask for.
            if i64::from(tick) - i64::from(now) > MAX_GAP {
                self.report.stopped = Some(format!(
                    "a gap from tick {now} to {tick} with players in the game (more than {MAX_GAP} ticks, a day)"
                ));
                return;
            }
            let w = self.world.as_mut().expect("made");
            for cid in 0..MAX_CLIENTS {
                self.cores_before[cid] = w.core(cid).cloned();
            }
            let with_inputs = w.with_inputs();
            // How 16.4's writer records inputs, whatever the physics.
            self.before = (self.recorded_version == Release::Ddnet16_4 && !with_inputs.is_empty())
                .then(|| (w.clone(), with_inputs));
            w.step();
            self.compared = false;
        }
    }

    fn record(&mut self, rec: &Record<'_>) {
        if self.report.stopped.is_some() {
            return;
        }
        let tick = rec.tick;
        match &rec.msg {
            Message::PlayerNew { cid, x, y } => {
                self.advance(tick);
                if let Some(slot) = slot(&mut self.recorded, *cid) {
                    *slot = Some((*x, *y));
                }
                return;
            }
            Message::PlayerDiff { cid, dx, dy } => {
                self.advance(tick);
                if let Some(Some((x, y))) = slot(&mut self.recorded, *cid) {
                    *x = x.wrapping_add(*dx);
                    *y = y.wrapping_add(*dy);
                }
                return;
            }
            Message::PlayerOld { cid } => {
                self.advance(tick);
                if let Some(slot) = slot(&mut self.recorded, *cid) {
                    *slot = None;
                }
                return;
            }
            Message::Finish => return,
            Message::TickSkip { .. } => {
                self.advance(tick);
                return;
            }
            // The database's answers come in the controller's tick,
            // after the world's and before the file's positions of it.
            Message::Ex(ex)
                if matches!(
                    ex.ex,
                    Ex::SaveSuccess { .. }
                        | Ex::SaveFailure { .. }
                        | Ex::LoadSuccess { .. }
                        | Ex::LoadFailure { .. }
                ) =>
            {
                self.advance(tick);
                let w = self.world.as_mut().expect("made by advance");
                // The cores a demo's Character items carry were taken
                // before this.
                if let Some(d) = self.demo.as_mut() {
                    d.keep_cores(w, &self.tainted);
                }
                match &ex.ex {
                    Ex::SaveSuccess { team, .. } => w.save_result(*team, true),
                    Ex::SaveFailure { team } => w.save_result(*team, false),
                    Ex::LoadSuccess { team, save, .. } => w.load_result(*team, Some(save)),
                    Ex::LoadFailure { team } => w.load_result(*team, None),
                    _ => {}
                }
                return;
            }
            _ => {}
        }
        // Anything else happens between this tick and the next.
        self.advance(tick);
        self.compare();
        let protocol = rec.protocol;
        let w = self.world.as_mut().expect("made by advance");
        match &rec.msg {
            Message::Join { cid } => {
                if let Ok(c) = usize::try_from(*cid) {
                    w.join(c);
                    if let Some(s) = self.inputs.get_mut(c) {
                        *s = None;
                    }
                }
            }
            Message::Drop { cid, .. } => {
                if let Ok(c) = usize::try_from(*cid) {
                    w.drop_client(c);
                }
            }
            Message::InputNew { cid, input } => {
                let input = PlayerInput::from(*input);
                if let Some(s) = slot(&mut self.inputs, *cid) {
                    *s = Some(input);
                    w.input(*cid as usize, input);
                }
            }
            Message::InputDiff { cid, dinput } => {
                if let Some(s) = slot(&mut self.inputs, *cid) {
                    let input = s.unwrap_or_default().plus(dinput);
                    *s = Some(input);
                    w.input(*cid as usize, input);
                }
            }
            Message::NetMessage { cid, data } => {
                let Ok(c) = usize::try_from(*cid) else { return };
                let Ok((header, body)) = split(data) else {
                    return;
                };
                let version = protocol.unwrap_or(crate::packet::Version::V06);
                if let Some(info) = crate::packet::msg::client_info(protocol, data) {
                    w.set_name(c, &info.name);
                }
                match header.name(version) {
                    Some("Cl_Kill") if !header.sys => w.kill(c),
                    Some("Cl_SetTeam") if !header.sys => {
                        if let Some(team) = team_of(version, &header, body) {
                            w.set_team(c, team);
                        }
                    }
                    _ => {}
                }
            }
            Message::ConsoleCommand(cmd) => {
                w.console_command(cmd.cid, cmd.flags, &cmd.cmd, &cmd.args)
            }
            Message::Ex(ex) => match &ex.ex {
                Ex::PlayerReady { cid } => {
                    if let Ok(c) = usize::try_from(*cid) {
                        // A client a map change carried over: DDNet 16.4
                        // writes no JOIN for it in the new map's file
                        // (20.1 does), yet it is connected.
                        if w.player(c).is_none() {
                            w.join(c);
                        }
                        w.ready(c);
                    }
                }
                Ex::PlayerTeam { cid, team } => w.set_ddrace_team(*cid, *team),
                Ex::PlayerSwap { cid1, cid2 } => w.swap(*cid1, *cid2),
                Ex::TeamPractice { team, practice } => w.set_practice(*team, *practice != 0),
                _ => {}
            },
            _ => {}
        }
    }

    /// Compares the world's tick with the file's positions, once a tick.
    fn compare(&mut self) {
        if self.compared {
            return;
        }
        self.compared = true;
        let Some(w) = self.world.as_mut() else {
            return;
        };
        // Unmodelled events taint their doer.
        for u in &w.unmodelled[self.seen_unmodelled..] {
            if u.cid < MAX_CLIENTS {
                self.tainted[u.cid] = true;
            }
            self.report.unmodelled.push(u.clone());
        }
        self.seen_unmodelled = w.unmodelled.len();
        let tick = w.tick;
        self.report.ticks = (self.first_tick.unwrap_or(tick), tick);
        if let (Some(d), Some(r)) = (self.demo.as_mut(), self.report.demo.as_mut()) {
            d.at_tick(w, &self.tainted, r);
        }
        let mut simulated: Vec<Option<(i32, i32)>> = vec![None; MAX_CLIENTS];
        for (cid, x, y) in w.positions() {
            simulated[cid] = Some((x, y));
        }
        for (cid, &sim) in simulated.iter().enumerate() {
            let rec = self.recorded[cid];
            if rec.is_none() && sim.is_none() {
                // A character gone ends what touched it.
                self.tainted[cid] = false;
                continue;
            }
            let summary = &mut self.report.players[cid];
            if rec.is_some() {
                self.report.player_ticks += 1;
                summary.player_ticks += 1;
            }
            if rec == sim {
                self.report.matched += 1;
                summary.matched += 1;
                if !self.diverged {
                    self.report.matched_strict += 1;
                }
                continue;
            }
            if let Some((before, with_inputs)) = &self.before
                && with_inputs.contains(&cid)
                && rec.is_some()
            {
                let mut alt = before.clone();
                alt.step_holding(&[cid]);
                let pos = alt.core(cid).map(|c| (c.pos.x as i32, c.pos.y as i32));
                let others_same = alt
                    .positions()
                    .filter(|&(c, _, _)| c != cid)
                    .eq(w.positions().filter(|&(c, _, _)| c != cid));
                if pos == rec && others_same {
                    *w = alt;
                    self.report.held_inputs.push((tick, cid));
                    self.report.matched += 1;
                    self.report.players[cid].matched += 1;
                    if !self.diverged {
                        self.report.matched_strict += 1;
                    }
                    continue;
                }
            }
            let summary = &mut self.report.players[cid];
            let tainted = self.tainted[cid];
            if tainted {
                self.report.after_unmodelled += 1;
            } else {
                self.report.divergences += 1;
                self.diverged = true;
                summary.first_divergence.get_or_insert(tick);
            }
            if self.report.listed.len() < MAX_LISTED && !tainted {
                self.report.listed.push(Divergence {
                    tick,
                    cid,
                    recorded: rec,
                    simulated: sim,
                    core_before: self.cores_before[cid].clone(),
                    unmodelled: tainted,
                });
            }
            // Put the character where the file says and go on.
            if !self.free_running {
                w.reseed(cid, rec.map(|(x, y)| Vec2::new(x as f32, y as f32)));
            }
        }
        (self.on_tick)(w);
    }

    fn finish(&mut self) {
        self.compare();
        if let (Some(d), Some(r)) = (self.demo.as_mut(), self.report.demo.as_mut()) {
            d.finish(r);
        }
        self.report.players.retain(|p| p.player_ticks > 0);
    }
}

/// The world a teehistorian header describes, on `col`, at `tick`: the
/// server's rules (`server_version`, or `physics` instead), settings and
/// tuning (then the map's tiles that change them, as DDNet's loader does
/// after writing the header) and the random generator
/// (`prng_description`).
pub fn world_of(
    header: &Header,
    col: Collision,
    tick: i32,
    physics: Option<Release>,
) -> Result<World, SimulateError> {
    let info = &header.info;
    let recorded = recorded_version(header)?;
    let version = physics.unwrap_or(recorded);
    // Another version's server reads the same settings by their names
    // there: a setting it lacks is left at its default.
    let config_pairs = crate::simulation::ddrace::config::rename(recorded, version, &info.config);
    let mut config = Config::from_header(version, &config_pairs)
        .map_err(|e| SimulateError::Header(format!("config: {e}")))?;
    let tuning_pairs: Vec<(String, String)> = info
        .tuning
        .iter()
        .filter(|(name, _)| {
            version == recorded
                || crate::simulation::physics::tuning::param_names(version)
                    .any(|n| n.eq_ignore_ascii_case(name))
        })
        .cloned()
        .collect();
    let mut tunings = Tunings::from_header(version, &tuning_pairs, config.sv_solo_server != 0)
        .map_err(|e| SimulateError::Header(format!("tuning: {e}")))?;
    apply_map_tiles(&mut config, &mut tunings, col.game_and_front_indices());
    let prng = match info.prng_description.as_deref() {
        Some(d) => crate::simulation::physics::prng::Prng::from_description(d)
            .map_err(|e| SimulateError::Header(format!("prng_description: {e}")))?,
        None => None,
    };
    let mut world = World::new(version, col, config, tunings, tick);
    world.cores.prng = prng;
    Ok(world)
}

/// The DDNet version whose server wrote the file (its physics is the
/// one the file's positions follow).
pub fn recorded_version(header: &Header) -> Result<Release, SimulateError> {
    let server = header.info.server_version.clone().unwrap_or_default();
    Release::of_server(&server).ok_or(SimulateError::UnknownServer(server))
}

/// A position as a report shows it: `(x, y)`, or `no character`.
pub fn place(p: Option<(i32, i32)>) -> String {
    match p {
        Some((x, y)) => format!("({x}, {y})"),
        None => "no character".to_owned(),
    }
}

/// The entry of `cid` in a per-client table, if the id is in range.
fn slot<T>(table: &mut [T], cid: i32) -> Option<&mut T> {
    usize::try_from(cid).ok().and_then(|c| table.get_mut(c))
}

/// The team a `Cl_SetTeam` asks for.
fn team_of(version: crate::packet::Version, header: &MsgHeader, body: &[u8]) -> Option<i32> {
    decode_body(version, header, body)?.ok()?.int("team")
}

/// Maps to simulate on, found by the SHA-256 of their bytes (what a
/// teehistorian header's `map_sha256` names): map files, and the maps
/// demos embed.
#[derive(Clone, Debug, Default)]
pub struct Maps {
    by_sha: std::collections::BTreeMap<[u8; 32], Vec<u8>>,
}

impl Maps {
    /// Adds a map file's bytes, or the map a demo embeds; anything else
    /// is not a map and is left out (false).
    pub fn add(&mut self, bytes: &[u8]) -> bool {
        use sha2::{Digest, Sha256};
        let map = if crate::demo::is_demo(bytes) {
            match crate::demo::Events::new(bytes) {
                Ok(events) if !events.map().is_empty() => events.map(),
                _ => return false,
            }
        } else if crate::map::is_map(bytes) {
            bytes
        } else {
            return false;
        };
        let sha: [u8; 32] = Sha256::digest(map).into();
        self.by_sha.entry(sha).or_insert_with(|| map.to_vec());
        true
    }

    /// How many maps.
    pub fn len(&self) -> usize {
        self.by_sha.len()
    }

    /// No maps.
    pub fn is_empty(&self) -> bool {
        self.by_sha.is_empty()
    }

    /// The maps `check` simulates teehistorian files on: every map and
    /// demo among `files`, under each of `dirs`, and beside each
    /// teehistorian file among `files` (in path order; a file that
    /// cannot be read is left out). The error names a folder of `dirs`
    /// that cannot be walked.
    pub fn gather(
        files: &[std::path::PathBuf],
        dirs: &[std::path::PathBuf],
    ) -> Result<Maps, String> {
        use std::path::{Path, PathBuf};
        let mut folders: Vec<PathBuf> = files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "teehistorian"))
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect();
        folders.sort();
        folders.dedup();
        let mut candidates: Vec<PathBuf> = files.to_vec();
        for d in dirs {
            let under =
                crate::files::files_under(d).map_err(|e| format!("{}: {e}", d.display()))?;
            candidates.extend(under);
        }
        for f in &folders {
            let dir = match f.as_os_str().is_empty() {
                true => Path::new("."),
                false => f.as_path(),
            };
            if let Ok(entries) = std::fs::read_dir(dir) {
                candidates.extend(entries.flatten().map(|e| e.path()));
            }
        }
        candidates.sort();
        candidates.dedup();
        let mut maps = Maps::default();
        for c in candidates {
            if c.extension().is_some_and(|e| e == "map" || e == "demo")
                && let Ok(bytes) = std::fs::read(&c)
            {
                maps.add(&bytes);
            }
        }
        Ok(maps)
    }

    /// The map whose SHA-256 is `sha256` (hex, as a header writes it).
    pub fn get(&self, sha256: &str) -> Option<&[u8]> {
        let sha = hex32(sha256)?;
        self.by_sha.get(&sha).map(Vec::as_slice)
    }
}

/// 64 hex digits as 32 bytes.
fn hex32(text: &str) -> Option<[u8; 32]> {
    let text = text.as_bytes();
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in text.chunks(2).enumerate() {
        let s = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(s, 16).ok()?;
    }
    Some(out)
}

/// The game layer's collision of a map's bytes (blocks inflated up to
/// `cap` bytes).
pub fn collision_of_map(bytes: &[u8], cap: u64) -> Result<Collision, String> {
    let datafile = crate::map::Datafile::decode(bytes).map_err(|e| e.to_string())?;
    let map = crate::map::Map::new(&datafile);
    Collision::of_map(&datafile, &map, cap)
}

/// The collision of the map a teehistorian file's header names, if it
/// is among `maps` (`None`: it is not).
pub fn collision_for(
    bytes: &[u8],
    maps: &Maps,
    cap: u64,
) -> Result<Option<Collision>, SimulateError> {
    let (header, _) = SliceReader::new(bytes, Mode::Lenient).map_err(SimulateError::Decode)?;
    let Some(sha) = header.info.map_sha256.as_deref() else {
        return Err(SimulateError::Header(
            "map_sha256 is missing: no map to find".into(),
        ));
    };
    let Some(map) = maps.get(sha) else {
        return Ok(None);
    };
    collision_of_map(map, cap)
        .map(Some)
        .map_err(SimulateError::Map)
}

/// What simulating a teehistorian file with the maps at hand gives:
/// `None` when the header names no map among them.
pub fn simulate_with(
    bytes: &[u8],
    maps: &Maps,
    cap: u64,
    options: &Options,
) -> Result<Option<Report>, SimulateError> {
    match collision_for(bytes, maps, cap)? {
        Some(col) => simulate(bytes, col, options).map(Some),
        None => Ok(None),
    }
}

/// A teehistorian file of `players` bots on `col`'s map for `ticks`
/// ticks, whose positions are the simulated world's: every bot joins in
/// the first tick, then changes its input now and then (direction, aim,
/// jump, hook, fire), drawn from a generator seeded with `seed`. The
/// header is `header`'s (its map, settings and tuning are the world's).
/// What it is for: long, valid files that simulate exactly (benchmarks,
/// other simulators' tests).
pub fn synthetic_session(
    header: &Header,
    col: Collision,
    players: usize,
    ticks: i32,
    seed: u64,
) -> Result<Vec<u8>, SimulateError> {
    use crate::teehistorian::{Ex, Recorder};
    let players = players.min(MAX_CLIENTS);
    // Tick 0 is the file's implicit start (DDNet's `Reset`): the first
    // tick written is 1.
    let mut world = world_of(header, col, 1, None)?;
    let mut rng = crate::simulation::physics::prng::Prng::seeded([seed, 0x7465_656f_7261_636c]);
    let mut rec = Recorder::new(header);
    let mut inputs = vec![PlayerInput::default(); players];
    for t in 0..ticks {
        rec.tick(t + 1);
        for cid in 0..players {
            let recorded = match world.core(cid) {
                Some(c) => rec.record_player(cid as i32, c.pos.x as i32, c.pos.y as i32),
                None => rec.record_dead_player(cid as i32),
            };
            recorded.map_err(|e| SimulateError::Header(e.to_string()))?;
        }
        if t == 0 {
            for cid in 0..players {
                rec.record_player_join(cid as i32, crate::packet::Version::V06);
                world.join(cid);
                rec.record_ex(Ex::PlayerReady { cid: cid as i32 });
                world.ready(cid);
            }
        }
        for (cid, input) in inputs.iter_mut().enumerate() {
            // About one change a second per bot.
            if t > 0 && rng.random_or_0(50) != 0 {
                continue;
            }
            let mut draw = |n: i32| rng.random_or_0(n);
            input.direction = draw(3) - 1;
            input.target_x = draw(401) - 200;
            input.target_y = draw(401) - 200;
            input.jump = i32::from(draw(4) == 0);
            input.hook = i32::from(draw(3) == 0);
            if draw(5) == 0 {
                input.fire = (input.fire + 1) & 0x3f;
            }
            let raw: crate::teehistorian::Input = (*input).into();
            rec.record_player_input(cid as i32, cid as u32 + 1, &raw)
                .map_err(|e| SimulateError::Header(e.to_string()))?;
            world.input(cid, *input);
        }
        world.step();
    }
    rec.finish();
    Ok(rec.into_bytes())
}

/// How many ticks back a Character item's core can be: DDNet resends
/// the core at least every 3 s (`m_ReckoningTick + TickSpeed * 3`).
pub const RECKONING_RING: usize = 151;

/// The Character fields compared: the core as of the item's tick (x to
/// hook_dy but direction), and what DDNet takes from the character at
/// snapshot time (direction is `m_Input`'s, ammo, weapon, attack tick).
/// Health, armor, emote and player flags are not simulated.
const CHARACTER_COMPARED: [usize; 17] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 18, 19, 21];

/// The DDNetCharacter fields compared, by index, with their names.
const DDNET_COMPARED: [(usize, &str); 5] = [
    (1, "freeze_end"),
    (2, "jumps"),
    (4, "strong_weak_id"),
    (5, "jumped_total"),
    (7, "freeze_start"),
];

/// The comparison of a simulation with a server demo of the same session.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DemoReport {
    /// The demo's snapshots.
    pub snapshots: u64,
    /// Its Character items.
    pub items: u64,
    /// Of those, compared with a simulated character (the item's tick
    /// within the last [`RECKONING_RING`] simulated ticks, the character
    /// there at both ticks).
    pub compared: u64,
    /// Compared and equal in every compared field (DDNetCharacter's too).
    pub matched: u64,
    /// Items of snapshots the simulation did not reach or had no such
    /// character for (not failures).
    pub not_simulated: u64,
    /// Items whose tick field was 0 (the current core, DDNet's
    /// `m_ReckoningTick` not set yet).
    pub tick_zero: u64,
    /// DDNetCharacter items compared with a simulated character.
    pub ddnet_items: u64,
    /// Compared items with a field that differs (failures).
    pub mismatched: u64,
    /// Compared items with a field that differs, of a character an
    /// unmodelled event had touched (as [`Report::after_unmodelled`]; not
    /// failures, not listed).
    pub after_unmodelled: u64,
    /// Differing fields, by name, with their counts.
    pub fields: std::collections::BTreeMap<&'static str, u64>,
    /// The first [`MAX_LISTED`] differing fields, in order.
    pub listed: Vec<DemoMismatch>,
}

/// One field where the demo and the simulation differ.
#[derive(Clone, Debug, Serialize)]
pub struct DemoMismatch {
    /// The snapshot's tick.
    pub snapshot_tick: i32,
    /// The item's tick (the core's; 0: the snapshot's).
    pub tick: i32,
    /// The client id (the item's id).
    pub cid: usize,
    /// The item: `Character` or `DDNetCharacter`.
    pub item: &'static str,
    /// The field.
    pub field: &'static str,
    /// What the demo says.
    pub demo: i32,
    /// What the simulation has.
    pub simulated: i32,
}

/// One character item pair of a demo snapshot.
struct DemoChar {
    cid: usize,
    character: [i32; 22],
    ddnet: Option<Vec<i32>>,
}

/// The demo side of a comparison: the demo read in step with the world,
/// and each character's last [`RECKONING_RING`] cores as a Character item
/// would have them.
struct DemoCompare<'d> {
    events: crate::demo::Events<'d>,
    /// A snapshot read ahead of the world: its tick and items.
    ahead: Option<(i32, Vec<DemoChar>)>,
    done: bool,
    /// Per client id: (tick, the core part of its Character item).
    /// The flag: an unmodelled event had touched the character.
    ring: Vec<std::collections::VecDeque<(i32, [i32; 22], bool)>>,
}

impl<'d> DemoCompare<'d> {
    fn new(events: crate::demo::Events<'d>) -> DemoCompare<'d> {
        DemoCompare {
            events,
            ahead: None,
            done: false,
            ring: vec![std::collections::VecDeque::new(); MAX_CLIENTS],
        }
    }

    /// The next snapshot's tick and character items.
    fn next_snapshot(&mut self) -> Option<(i32, Vec<DemoChar>)> {
        if let Some(a) = self.ahead.take() {
            return Some(a);
        }
        if self.done {
            return None;
        }
        loop {
            let e = match self.events.next() {
                Ok(Some(e)) => e,
                _ => {
                    self.done = true;
                    return None;
                }
            };
            let crate::demo::EventKind::Snapshot(snap) = e.kind else {
                continue;
            };
            let mut chars = Vec::new();
            for item in snap.items() {
                if item.type_id() != CHARACTER_TYPE || item.data.len() < 22 {
                    continue;
                }
                let Ok(cid) = usize::try_from(item.id()) else {
                    continue;
                };
                let mut character = [0; 22];
                character.copy_from_slice(&item.data[..22]);
                let ddnet = snap
                    .items()
                    .find(|i| {
                        i.id() == item.id()
                            && i.type_id() >= crate::snapshot::OFFSET_UUID_TYPE
                            && snap.ex_type_name(i.type_id()) == Some("character@netobj.ddnet.tw")
                    })
                    .map(|i| i.data.to_vec());
                chars.push(DemoChar {
                    cid,
                    character,
                    ddnet,
                });
            }
            return Some((e.tick, chars));
        }
    }

    /// The world's tick has stepped its characters (`TickDefered`, where
    /// DDNet takes the cores it sends): keep them, once a tick.
    fn keep_cores(&mut self, w: &World, tainted: &[bool]) {
        let tick = w.tick;
        for (cid, (ring, &touched)) in self.ring.iter_mut().zip(tainted).enumerate() {
            if ring.back().is_some_and(|&(t, _, _)| t == tick) {
                continue;
            }
            if let Some(core) = w.core(cid) {
                if ring.len() == RECKONING_RING {
                    ring.pop_front();
                }
                ring.push_back((tick, core_item(core), touched));
            } else {
                ring.clear();
            }
        }
    }

    /// The world stands at the end of its tick (a snapshot's moment):
    /// keep its cores unless the world's tick did, and compare the demo's
    /// snapshots up to this tick.
    fn at_tick(&mut self, w: &World, tainted: &[bool], r: &mut DemoReport) {
        let tick = w.tick;
        self.keep_cores(w, tainted);
        while let Some((snap_tick, chars)) = self.next_snapshot() {
            if snap_tick > tick {
                self.ahead = Some((snap_tick, chars));
                break;
            }
            r.snapshots += 1;
            for c in &chars {
                r.items += 1;
                if snap_tick != tick {
                    r.not_simulated += 1;
                    continue;
                }
                self.compare(w, tick, c, tainted[c.cid], r);
            }
        }
    }

    fn compare(&self, w: &World, tick: i32, c: &DemoChar, tainted: bool, r: &mut DemoReport) {
        let item_tick = c.character[0];
        let at = if item_tick == 0 { tick } else { item_tick };
        let core = self.ring[c.cid]
            .iter()
            .rev()
            .find(|(t, _, _)| *t == at)
            .map(|(_, core, t)| (*core, *t || tainted));
        let (Some((mut sim, tainted)), Some(ch), Some(now)) =
            (core, w.character(c.cid), w.core(c.cid))
        else {
            r.not_simulated += 1;
            return;
        };
        r.compared += 1;
        if item_tick == 0 {
            r.tick_zero += 1;
        }
        sim[0] = item_tick;
        // What DDNet takes from the character at snapshot time.
        sim[6] = ch.input.direction;
        let weapon = ch.active_weapon;
        sim[19] = weapon;
        sim[21] = ch.attack_tick;
        // The ammunition of the weapon in hand, 0 while frozen; DDNet 16.4
        // sends only a positive count (endless, -1, shows as 0).
        let ammo = usize::try_from(weapon)
            .ok()
            .and_then(|wi| ch.weapons.get(wi))
            .map_or(0, |s| s.ammo);
        sim[18] = match w.cores.version {
            _ if ch.freeze_time != 0 => 0,
            Release::Ddnet16_4 if ammo <= 0 => 0,
            _ => ammo,
        };
        let mut differs = false;
        let mut tell = |r: &mut DemoReport, item, field, demo, simulated| {
            differs = true;
            if tainted {
                return;
            }
            *r.fields.entry(field).or_insert(0) += 1;
            if r.listed.len() < MAX_LISTED {
                r.listed.push(DemoMismatch {
                    snapshot_tick: tick,
                    tick: item_tick,
                    cid: c.cid,
                    item,
                    field,
                    demo,
                    simulated,
                });
            }
        };
        for &i in &CHARACTER_COMPARED {
            if c.character[i] != sim[i] {
                let name = crate::snapshot::items::ItemBuilder::new("Character")
                    .and_then(|b| b.field_names().nth(i))
                    .unwrap_or("?");
                tell(r, "Character", name, c.character[i], sim[i]);
            }
        }
        if let Some(dd) = &c.ddnet {
            r.ddnet_items += 1;
            let freeze_end = if ch.deep_frozen {
                -1
            } else if ch.freeze_time == 0 {
                0
            } else {
                tick + ch.freeze_time
            };
            // `CGameWorld::Tick` numbers the characters in list order
            // (newest first) at the end of the world's tick; one spawned
            // after it, in the players' tick, still has its 0.
            let strong_weak = if ch.spawn_tick == tick {
                0
            } else {
                w.order()
                    .iter()
                    .filter(|&&o| w.character(o).is_some_and(|x| x.spawn_tick != tick))
                    .position(|&o| o == c.cid)
                    .unwrap_or(0) as i32
            };
            for (i, name) in DDNET_COMPARED {
                let simulated = match i {
                    1 => freeze_end,
                    2 => now.jumps,
                    4 => strong_weak,
                    5 => now.jumped_total,
                    _ => ch.freeze_start,
                };
                if let Some(&demo) = dd.get(i)
                    && demo != simulated
                {
                    tell(r, "DDNetCharacter", name, demo, simulated);
                }
            }
        }
        if differs && tainted {
            r.after_unmodelled += 1;
        } else if differs {
            r.mismatched += 1;
        } else {
            r.matched += 1;
        }
    }

    /// Snapshots past the simulation's end.
    fn finish(&mut self, r: &mut DemoReport) {
        while let Some((_, chars)) = self.next_snapshot() {
            r.snapshots += 1;
            r.items += chars.len() as u64;
            r.not_simulated += chars.len() as u64;
        }
    }
}

/// The Character item type (0.6 and DDNet).
const CHARACTER_TYPE: i32 = 9;

/// A core as `CCharacterCore::Write` puts it in a Character item (the
/// core part; the rest is zero).
fn core_item(c: &Core) -> [i32; 22] {
    use crate::simulation::physics::round_to_int;
    let mut out = [0; 22];
    out[1] = round_to_int(c.pos.x);
    out[2] = round_to_int(c.pos.y);
    out[3] = round_to_int(c.vel.x * 256.0);
    out[4] = round_to_int(c.vel.y * 256.0);
    out[5] = c.angle;
    out[6] = c.direction;
    out[7] = c.jumped;
    out[8] = c.hooked_player;
    out[9] = c.hook_state;
    out[10] = c.hook_tick;
    out[11] = round_to_int(c.hook_pos.x);
    out[12] = round_to_int(c.hook_pos.y);
    out[13] = round_to_int(c.hook_dir.x * 256.0);
    out[14] = round_to_int(c.hook_dir.y * 256.0);
    out
}
