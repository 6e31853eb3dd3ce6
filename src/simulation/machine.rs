//! The simulation as a sans-IO machine, like the formats' replay
//! machines: built once from a teehistorian header and the map's
//! collision, fed the file's records one at a time
//! ([`Simulation::handle`]), read at any point ([`Simulation::world`],
//! [`Simulation::report`]). [`simulate`] drives one over a file's bytes.
//!
//! Records between tick T's PLAYER records and tick T+1's are what
//! happened between the two ticks (joins, kills, inputs); the world takes
//! them, steps to T+1, and must then stand where T+1's records say. A
//! divergence is reported with the tick, the player, both positions and
//! the core just before; then the character is put where the file says
//! (velocity and hook kept) so that one difference does not hide the rest.
//!
//! A DDNet 16.4 file may lack the input a character moved with (a burst's
//! first, see [`World::step_holding`]); the machine keeps its last ticks
//! ([`super::window`]) and steps them again with that input where the
//! file's positions or the demo's Character items say so.

use super::Release;
use super::SimulateError;
use super::ddrace::World;
use super::ddrace::world::{UNRECORDED_TEAM_CHANGE, WorldState};
use super::demo_compare::DemoCompare;
use super::event::Event;
use super::header::{recorded_release, world_tuned};
use super::physics::collision::Collision;
use super::physics::core::{Core, MAX_CLIENTS};
use super::report::{DemoReport, Divergence, MAX_GAP, MAX_LISTED, PlayerSummary, Report, Stopped};
use super::window::{Kept, Replayed, WINDOW, Window, positions, reseed};
use crate::codec::{DecodeError, Mode};
use crate::teehistorian::{Ex, Header, Message, PlayerInput, Record, SliceReader};
use std::collections::VecDeque;
use std::ops::ControlFlow;

/// How to simulate a file: what else to compare with, where to stop,
/// and whose physics to step with.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// A server demo of the same session: its Character and
    /// DDNetCharacter items are compared with the simulated characters at
    /// each item's own tick ([`Report::demo`]).
    pub demo: Option<&'a [u8]>,
    /// Stop after this tick: the report covers the ticks up to it, and
    /// [`Report::world`] holds the world as it is after the last tick
    /// simulated ([`Report::world_at`]: after this one, if the file has
    /// it). Not with `demo`.
    pub until: Option<i32>,
    /// Step with this release's physics instead of the recording
    /// server's: what a physics change does to old recordings. The
    /// header's settings and tuning are carried over by name.
    pub physics: Option<Release>,
}

/// What watches a simulation: shown the world after every tick the
/// simulation compares with the file, in order (ticks an empty world
/// crosses at once are not shown).
pub trait Observer {
    /// The world at the end of a compared tick.
    fn tick(&mut self, world: &World);
}

/// Nobody watching.
impl Observer for () {
    fn tick(&mut self, _: &World) {}
}

/// The states of the worlds shown and not taken yet ([`Stepper`]).
impl Observer for VecDeque<WorldState> {
    fn tick(&mut self, world: &World) {
        self.push_back(world.state());
    }
}

/// Simulates `bytes` (a teehistorian file) on `col` (its map's game
/// layer).
pub fn simulate(bytes: &[u8], col: Collision, options: &Options) -> Result<Report, SimulateError> {
    simulate_observed(bytes, col, options, ()).map(|(report, ())| report)
}

/// [`simulate`], with `observer` shown every tick compared; it is given
/// back with the report.
pub fn simulate_observed<O: Observer>(
    bytes: &[u8],
    col: Collision,
    options: &Options,
    observer: O,
) -> Result<(Report, O), SimulateError> {
    let (header, mut reader) =
        SliceReader::new(bytes, Mode::Lenient).map_err(SimulateError::Decode)?;
    let until = options.until;
    if until.is_some() && options.demo.is_some() {
        return Err(SimulateError::UntilWithDemo);
    }
    let mut sim = Simulation::new(&header, col, options.physics, observer)?;
    if let Some(demo) = options.demo {
        sim = sim.with_demo(demo)?;
    }
    let mut reached = false;
    let flow = reader.for_each_record(|rec| {
        if until.is_some_and(|at| rec.tick > at) {
            reached = true;
            return ControlFlow::Break(());
        }
        sim.handle(rec);
        ControlFlow::Continue(())
    });
    // A record that does not decode ends the simulation there, and the
    // report says so (a cut file's end is no error: it just ends).
    if let Err(e) = flow {
        sim.stop(e);
    }
    if let Some(at) = until {
        // Ticks without records up to `at` (never past the file's end).
        if reached {
            sim.advance(at);
        }
        sim.end();
        if sim.first_tick.is_some() {
            sim.report.world = Some(sim.world.state());
        }
    }
    Ok(sim.into_parts())
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
    sim: Simulation<'a, VecDeque<WorldState>>,
    /// The next record, when the world must first step towards its tick.
    pending: Option<Record<'a>>,
    done: bool,
}

impl<'a> Stepper<'a> {
    /// A stepper over `bytes` on `col` (with `physics`, if given).
    pub fn new(
        bytes: &'a [u8],
        col: Collision,
        physics: Option<Release>,
    ) -> Result<Stepper<'a>, SimulateError> {
        Stepper::tuned(bytes, col, physics, &[])
    }

    /// [`Stepper::new`] with tuning parameters changed
    /// ([`Simulation::tuned`]).
    pub fn tuned(
        bytes: &'a [u8],
        col: Collision,
        physics: Option<Release>,
        tune: &[(String, String)],
    ) -> Result<Stepper<'a>, SimulateError> {
        let (header, reader) =
            SliceReader::new(bytes, Mode::Lenient).map_err(SimulateError::Decode)?;
        let sim = Simulation::tuned(&header, col, physics, tune, VecDeque::new())?.free_running();
        Ok(Stepper {
            reader,
            sim,
            pending: None,
            done: false,
        })
    }

    /// The world after the next tick; `None` after the last.
    pub fn next_state(&mut self) -> Option<WorldState> {
        loop {
            if let Some(s) = self.sim.observer.pop_front() {
                return Some(s);
            }
            if self.done {
                return None;
            }
            let rec = match self.pending.take().map(Ok).or_else(|| self.reader.next()) {
                None => {
                    self.sim.end();
                    self.done = true;
                    continue;
                }
                Some(Err(e)) => {
                    self.sim.stop(e);
                    self.sim.end();
                    self.done = true;
                    continue;
                }
                Some(Ok(rec)) => rec,
            };
            // One tick towards the record's, unless the world is empty
            // (crossed at once) or the gap is past the bound (the record
            // stops the simulation).
            let w = &self.sim.world;
            if self.sim.first_tick.is_some()
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
            self.sim.handle(&rec);
            if self.sim.report.stopped.is_some() {
                self.sim.end();
                self.done = true;
            }
        }
    }

    /// What the simulation found, so far.
    pub fn report(&self) -> &Report {
        &self.sim.report
    }
}

/// A teehistorian file's game, simulated record by record.
pub struct Simulation<'d, O = ()> {
    /// Shown the world after each compared tick.
    observer: O,
    /// The demo compared with, if any.
    demo: Option<DemoCompare<'d>>,
    /// Characters are never put back where the file says after a
    /// divergence: the world is the one the inputs make.
    free_running: bool,
    /// The world, at the first record's tick once one came.
    world: World,
    /// The release of the server that wrote the file.
    recorded_release: Release,
    /// Positions as the file has them now.
    recorded: Vec<Option<(i32, i32)>>,
    /// One past the highest client id the file ever gave a position.
    recorded_end: usize,
    /// Each client's last recorded input (the base of INPUT_DIFF).
    inputs: Vec<Option<PlayerInput>>,
    /// The world's tick was compared with the file.
    compared: bool,
    /// The last ticks, to step again: a 16.4 file's ([`WINDOW`]; a
    /// client's input held, see [`World::step_holding`]), or the last
    /// one while a player awaits a team change the file does not record
    /// ([`World::unrecorded_team_change_back`]).
    window: Window,
    /// How many ticks a 16.4 file's window keeps: [`WINDOW`] under the
    /// recording server's own rules; only the last one under another
    /// release's physics or other tuning, whose positions cannot tell an
    /// input held ticks ago from a physics that parts.
    window_size: usize,
    /// How many ticks the searches of earlier ticks may still step
    /// again: one more each tick, at most [`SEARCH_RESERVE`].
    search_steps: usize,
    /// The client ids that had inputs for this tick under DDNet 16.4.
    with_inputs: Vec<usize>,
    /// The client ids that moved with their last input at this tick.
    held: Vec<usize>,
    /// This tick's world was changed other than by its step (a
    /// database's answer, a 0.7 client's unrecorded team change): it is
    /// not stepped again.
    fixed: bool,
    /// Players touched by an unmodelled event (until they respawn; all
    /// of them for good after one that touched everybody).
    tainted: Vec<bool>,
    /// An unmodelled event touched everybody: nobody is judged again.
    everybody_tainted: bool,
    /// The world's unmodelled events already applied to `tainted`.
    seen_unmodelled: usize,
    /// The protocol each client joined with (a 0.7 client's team change
    /// is not in the file).
    protocols: crate::teehistorian::ClientProtocols,
    cores_before: Vec<Option<Core>>,
    report: Report,
    /// The first record's tick, once one came.
    first_tick: Option<i32>,
    diverged: bool,
}

impl<'d, O: Observer> Simulation<'d, O> {
    /// The world `header` describes on `col` (with `physics`' rules
    /// instead of the recording server's, if given), before its first
    /// record; `observer` is shown every tick compared. A header this
    /// simulator cannot follow fails here, before any record.
    pub fn new(
        header: &Header,
        col: Collision,
        physics: Option<Release>,
        observer: O,
    ) -> Result<Simulation<'d, O>, SimulateError> {
        Simulation::tuned(header, col, physics, &[], observer)
    }

    /// [`Simulation::new`] with tuning parameters changed after the
    /// header's (`tune`: names and values as `tune NAME VALUE` takes
    /// them; [`super::header::world_tuned`]): what a server configured so
    /// would do with the file's inputs.
    pub fn tuned(
        header: &Header,
        col: Collision,
        physics: Option<Release>,
        tune: &[(String, String)],
        observer: O,
    ) -> Result<Simulation<'d, O>, SimulateError> {
        let world = world_tuned(header, col, 0, physics, tune)?;
        let recorded_release = recorded_release(header)?;
        let own_rules = physics.is_none_or(|p| p == recorded_release) && tune.is_empty();
        Ok(Simulation {
            observer,
            demo: None,
            free_running: false,
            recorded_release,
            recorded: vec![None; MAX_CLIENTS],
            recorded_end: 0,
            inputs: vec![None; MAX_CLIENTS],
            compared: false,
            window: Window::default(),
            window_size: if own_rules { WINDOW } else { 1 },
            search_steps: SEARCH_RESERVE,
            with_inputs: Vec::new(),
            held: Vec::new(),
            fixed: false,
            tainted: vec![false; MAX_CLIENTS],
            everybody_tainted: false,
            seen_unmodelled: 0,
            protocols: Default::default(),
            cores_before: vec![None; MAX_CLIENTS],
            report: Report {
                release: world.release,
                recorded_release,
                ticks: (0, 0),
                held_inputs: Vec::new(),
                join_answers: Vec::new(),
                unrecorded_team_changes: Vec::new(),
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
            world,
            first_tick: None,
            diverged: false,
        })
    }

    /// Also compares with `demo`, a server demo of the same session
    /// ([`Report::demo`]).
    pub fn with_demo(mut self, demo: &'d [u8]) -> Result<Self, SimulateError> {
        let events = crate::demo::Events::new(demo).map_err(SimulateError::Demo)?;
        self.demo = Some(DemoCompare::new(events));
        self.report.demo = Some(DemoReport::default());
        if self.recorded_release == Release::Ddnet16_4 {
            let answers = super::demo_compare::join_answers(demo);
            self.world.set_join_answers(&answers);
            self.report.join_answers = answers;
        }
        Ok(self)
    }

    /// Never puts a character back where the file says: the world is the
    /// one the inputs make.
    pub fn free_running(mut self) -> Self {
        self.free_running = true;
        self
    }

    /// The world now.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// What the simulation found so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The observer.
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }

    /// Ends the simulation ([`Simulation::end`]) and gives its report and
    /// observer.
    pub fn into_parts(mut self) -> (Report, O) {
        self.end();
        (self.report, self.observer)
    }

    /// The first record's tick sets the world's clock.
    fn start(&mut self, tick: i32) {
        if self.first_tick.is_none() {
            self.world.tick = tick;
            self.first_tick = Some(tick);
        }
    }

    /// Steps the world to `tick`, comparing each tick on the way (ticks
    /// without records; never needed before [`Simulation::handle`]).
    #[inline(always)]
    pub fn advance(&mut self, tick: i32) {
        // Most records are at the world's tick: nothing to step, and no
        // call.
        if self.first_tick.is_none() || tick > self.world.tick {
            self.step_to(tick);
        }
    }

    /// [`Simulation::advance`]'s steps.
    #[inline(never)]
    fn step_to(&mut self, tick: i32) {
        if self.report.stopped.is_some() {
            return;
        }
        self.start(tick);
        loop {
            let now = self.world.tick;
            if now >= tick {
                break;
            }
            self.compare();
            let w = &mut self.world;
            // Nobody and nothing in the world: the empty ticks change
            // nothing, so a long gap is crossed at once.
            if w.is_idle() {
                w.tick = tick;
                for k in self.window.drain() {
                    self.observer.tick(&k.world);
                }
                self.compared = false;
                continue;
            }
            // The file decides how far; a day of ticks with players in the
            // game is the most one gap may ask for.
            if i64::from(tick) - i64::from(now) > MAX_GAP {
                self.report.stopped = Some(Stopped::Gap {
                    from: now,
                    to: tick,
                });
                return;
            }
            let w = &mut self.world;
            // Copied in place, as one block: a core is 300 bytes.
            w.copy_cores(&mut self.cores_before);
            // How 16.4's writer records inputs, whatever the physics.
            self.with_inputs = match self.recorded_release {
                Release::Ddnet16_4 => w.with_inputs(),
                Release::Ddnet20_1 => Vec::new(),
            };
            self.held.clear();
            w.step();
            self.compared = false;
            self.fixed = false;
        }
    }

    /// Takes the file's next record: positions are what the world must
    /// match at their tick; anything else (joins, inputs, commands, kills)
    /// happens between that tick and the next. The world first steps to
    /// the record's tick, comparing each tick on the way.
    pub fn handle(&mut self, rec: &Record<'_>) {
        if self.report.stopped.is_some() {
            return;
        }
        let tick = rec.tick;
        self.protocols.observe(&rec.msg);
        match &rec.msg {
            Message::PlayerNew { cid, x, y } => {
                self.advance(tick);
                if let Some(slot) = slot(&mut self.recorded, *cid) {
                    *slot = Some((*x, *y));
                    self.recorded_end = self.recorded_end.max(*cid as usize + 1);
                }
                if let Ok(c) = usize::try_from(*cid) {
                    self.unrecorded_team_change_back(c);
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
                // A 0.7 client's character may end for a team change the
                // file leaves out.
                if self.protocols.of(*cid) == crate::packet::Version::V07
                    && let Ok(c) = usize::try_from(*cid)
                    && self.world.character(c).is_some()
                {
                    self.unrecorded_team_change(c);
                    self.report.unrecorded_team_changes.push((tick, c, -1));
                    self.fixed = true;
                }
                return;
            }
            Message::Finish => return,
            // A finish is written in the world's tick, before its
            // positions: it changes nothing the world holds.
            Message::TickSkip { .. } => {
                self.advance(tick);
                return;
            }
            Message::Ex(ex) if matches!(ex.ex, Ex::PlayerFinish { .. } | Ex::TeamFinish { .. }) => {
                self.advance(tick);
                // The score database's save, after the finish in the
                // world's tick.
                if let Ex::PlayerFinish { cid, time } = ex.ex {
                    self.world.finish_saved(cid, time);
                }
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
                self.fixed = true;
                let w = &mut self.world;
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
        if let Some(event) = Event::of(rec, &mut self.inputs) {
            event.apply(&mut self.world);
            self.window.log(self.world.tick, &event);
        }
    }

    /// Compares the world's tick with the file's positions, once a tick.
    fn compare(&mut self) {
        if self.compared {
            return;
        }
        self.compared = true;
        if self.first_tick.is_none() {
            return;
        }
        let w = &mut self.world;
        // Unmodelled events taint their doer.
        for u in &w.unmodelled[self.seen_unmodelled..] {
            match u.cid {
                Some(c) if c < MAX_CLIENTS => self.tainted[c] = true,
                Some(_) => {}
                None => {
                    self.everybody_tainted = true;
                    self.tainted.fill(true);
                }
            }
            self.report.unmodelled.push(u.clone());
        }
        self.seen_unmodelled = w.unmodelled.len();
        let tick = w.tick;
        self.report.ticks = (self.first_tick.unwrap_or(tick), tick);
        self.hold_inputs();
        let w = &mut self.world;
        if let (Some(d), Some(r)) = (self.demo.as_mut(), self.report.demo.as_mut()) {
            d.at_tick(w, &self.tainted, r);
        }
        let mut diverged = Vec::new();
        // Each slot read in place: the positions' table is made only for
        // the window, below. Past both ends neither is there (the slots
        // are not read: each is a cache line).
        let end = self.recorded_end.max(w.cores_end());
        self.tainted[end..].fill(self.everybody_tainted);
        for cid in 0..end {
            let rec = self.recorded[cid];
            let sim = w.position(cid);
            if rec.is_none() && sim.is_none() {
                // A character gone ends what touched it.
                self.tainted[cid] = self.everybody_tainted;
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
                    core_before: self.cores_before[cid],
                    unmodelled: tainted,
                });
            }
            diverged.push((cid, rec));
        }
        // The positions as stepped, before any is put back: the world's
        // own while none is.
        let simulated = (!diverged.is_empty()).then(|| positions(w));
        // Put the characters where the file says and go on.
        if !self.free_running {
            reseed(w, &diverged);
        }
        self.keep(simulated, diverged);
    }

    /// The world compared at its tick's end goes into the window (the
    /// ticks that leave it, or all, to the observer: a tick is shown once
    /// it is no longer stepped again). `simulated`: the positions as
    /// stepped, if some character was put back since.
    fn keep(
        &mut self,
        simulated: Option<Vec<Option<(i32, i32)>>>,
        diverged: Vec<(usize, Option<(i32, i32)>)>,
    ) {
        let size = match self.recorded_release {
            Release::Ddnet16_4 => self.window_size,
            // The tick before, while a 0.7 client's team change may come
            // or go unrecorded.
            Release::Ddnet20_1 => {
                usize::from(self.world.awaits_unrecorded_team_change() || self.sixup_in_game())
            }
        };
        if size == 0 {
            for k in self.window.drain() {
                self.observer.tick(&k.world);
            }
            self.observer.tick(&self.world);
            return;
        }
        self.search_steps = (self.search_steps + 1).min(SEARCH_RESERVE);
        let kept = Kept {
            world: self.world.clone(),
            with_inputs: std::mem::take(&mut self.with_inputs),
            held: std::mem::take(&mut self.held),
            simulated: simulated.unwrap_or_else(|| positions(&self.world)),
            diverged,
            events: Vec::new(),
            fixed: self.fixed,
        };
        for k in self.window.push(kept, size) {
            self.observer.tick(&k.world);
        }
    }

    /// DDNet 16.4 only: a client's tick may have begun with an input the
    /// file leaves out (a repeat of the last one written, see
    /// [`World::step_holding`]), and what shows it may come some ticks
    /// later. The window's ticks are stepped again with such an input
    /// held, each position and demo item they compared coming out the
    /// same, for a client
    /// - whose position the file puts elsewhere: held at this tick, every
    ///   other position now the same; or, if the client was where the file
    ///   says a tick ago, held at an earlier tick (the nearest first);
    /// - whose position agrees either way but whose Character item in the
    ///   demo snapshot of this tick differs: held at this tick or, if the
    ///   item did not differ in the client's last snapshot, at an earlier
    ///   tick (the nearest first), every position the same and the item
    ///   then matching.
    fn hold_inputs(&mut self) {
        let now = self.world.tick;
        if self.fixed || self.window.at(now - 1).is_none() {
            return;
        }
        let earliest = self.window.earliest(now);
        let off = |s: &Self, cid: usize| {
            s.recorded[cid].is_some() && s.world.position(cid) != s.recorded[cid]
        };
        let puts = |cid: usize| {
            move |s: &mut Self, r: &Replayed| {
                r.world.position(cid) == s.recorded[cid]
                    && r.world
                        .positions()
                        .filter(|&(c, _, _)| c != cid)
                        .eq(s.world.positions().filter(|&(c, _, _)| c != cid))
            }
        };
        for cid in 0..MAX_CLIENTS {
            if off(self, cid) {
                self.hold_if(now..now + 1, cid, puts(cid));
            }
        }
        for cid in 0..MAX_CLIENTS {
            let was_off = |k: &Kept| k.diverged.iter().any(|&(c, _)| c == cid);
            if off(self, cid)
                && !self.tainted[cid]
                && self.window.at(now - 1).is_some_and(|k| !was_off(k))
            {
                self.hold_if(earliest..now, cid, puts(cid));
            }
        }
        let differing = match self.demo.as_mut() {
            Some(d) => d.differing(&self.world),
            None => return,
        };
        for cid in differing {
            if self.held.contains(&cid)
                || self.tainted[cid]
                || self.differs(None, cid) != Some(true)
            {
                continue;
            }
            let differed = self.demo.as_ref().is_some_and(|d| d.differed(cid));
            let from = if differed { now } else { earliest };
            self.hold_if(from..now + 1, cid, |s, r| {
                r.world.positions().eq(s.world.positions())
                    && s.differs(Some(r), cid) == Some(false)
            });
        }
    }

    /// Whether `cid` had inputs for the tick `from` and did not move
    /// with its last one there.
    fn may_hold(&self, from: i32, cid: usize) -> bool {
        let (with_inputs, held) = match from == self.world.tick {
            true => (&self.with_inputs, &self.held),
            false => match self.window.at(from) {
                Some(k) => (&k.with_inputs, &k.held),
                None => return false,
            },
        };
        with_inputs.contains(&cid) && !held.contains(&cid)
    }

    /// Holds `cid`'s last input at the latest tick of `ticks` where the
    /// history stepped again is one `accept` takes, if any.
    fn hold_if(
        &mut self,
        ticks: std::ops::Range<i32>,
        cid: usize,
        mut accept: impl FnMut(&mut Self, &Replayed) -> bool,
    ) {
        let now = self.world.tick;
        for from in ticks.rev() {
            if !self.may_hold(from, cid) {
                continue;
            }
            if from < now {
                let steps = (now - from + 1) as usize;
                let Some(left) = self.search_steps.checked_sub(steps) else {
                    return;
                };
                self.search_steps = left;
            }
            // The demo compares the worlds stepped again; otherwise they
            // are kept only for the history taken (none at this tick).
            let keep = self.demo.is_some() || from == now;
            if let Some(r) = self.replay(from, cid, keep)
                && accept(self, &r)
                && let Some(r) = if keep {
                    Some(r)
                } else {
                    self.replay(from, cid, true)
                }
            {
                self.hold(r, cid);
                return;
            }
        }
    }

    /// The window's ticks from `from` to now stepped again with `cid`'s
    /// last input held at `from` ([`Window::replay`], their worlds kept
    /// if `keep`), if what they compared comes out the same: the demo's
    /// snapshots of those ticks too, and the unmodelled events met.
    fn replay(&self, from: i32, cid: usize, keep: bool) -> Option<Replayed> {
        let now = self.world.tick;
        let r = self
            .window
            .replay(from, now, cid, &self.held, self.free_running, keep)?;
        let same = r.world.unmodelled.len() == self.world.unmodelled.len()
            && self.demo.as_ref().is_none_or(|d| d.same_again(&r.worlds));
        same.then_some(r)
    }

    /// Whether the demo snapshot of this tick has a Character item of
    /// `cid` that differs from the world's character (or, given `r`,
    /// from the one stepped again).
    fn differs(&mut self, r: Option<&Replayed>, cid: usize) -> Option<bool> {
        let d = self.demo.as_mut()?;
        match r {
            Some(r) => d.differs_again(&r.world, &r.worlds, cid),
            None => d.differs(&self.world, cid),
        }
    }

    /// Keeps the history `r` stepped: `cid` held at its first tick.
    fn hold(&mut self, r: Replayed, cid: usize) {
        let from = r.from;
        if from == self.world.tick {
            self.held.push(cid);
            self.held.sort_unstable();
        }
        if let Some(d) = self.demo.as_mut() {
            d.forget_now();
            // The cores kept for the ticks stepped again are theirs now.
            d.rewind(from);
            for w in &r.worlds {
                d.keep_cores(w, &self.tainted);
            }
        }
        self.cores_before.clone_from(&r.cores_before);
        self.world = self.window.rewrite(r, cid);
        let held = &mut self.report.held_inputs;
        let i = held.partition_point(|&h| h <= (from, cid));
        held.insert(i, (from, cid));
    }

    /// Some 0.7 client has a character.
    fn sixup_in_game(&self) -> bool {
        // Most sessions have no 0.7 client: no walk over the 128 ids.
        self.protocols.any_seven()
            && (0..MAX_CLIENTS).any(|c| {
                self.world.character(c).is_some()
                    && self.protocols.of(c as i32) == crate::packet::Version::V07
            })
    }

    /// The file ends the character of `cid`, a 0.7 client's, that the
    /// world still has: a team change the file does not record, read
    /// before this tick. The tick is stepped again without it where the
    /// window holds the world before it (the character then neither
    /// meets anyone in the tick nor makes its events, and its death's
    /// come before the tick's own in the snapshot, as in DDNet's); else
    /// it leaves the world as stepped. It is read after the gap's drops:
    /// DDNet may have read it before one (a client's own close drops it
    /// at the next network pump), which nothing in the file records.
    fn unrecorded_team_change(&mut self, cid: usize) {
        let now = self.world.tick;
        if !self.fixed
            && let Some(mut back) = self.window.before(now)
        {
            back.unrecorded_team_change(cid, false);
            self.window.log(now - 1, &Event::TeamChangeAway(cid));
            back.step_holding(&self.held);
            self.world = back;
            return;
        }
        self.world.unrecorded_team_change(cid, true);
    }

    /// The file has a character for `cid` that the world lacks, whose
    /// player a 0.7 client's unrecorded team change took to the
    /// spectators: it came back into the game by a team change the file
    /// does not have either, read before this tick (DDNet spawns it at the
    /// first player tick after). The tick is stepped again with it.
    fn unrecorded_team_change_back(&mut self, cid: usize) {
        if self.world.character(cid).is_some()
            || !self
                .world
                .player(cid)
                .is_some_and(|p| p.unrecorded_spectator)
        {
            return;
        }
        // Only the world just before this tick can be stepped again, and
        // not once it was changed otherwise.
        let now = self.world.tick;
        if self.fixed {
            return;
        }
        let Some(mut back) = self.window.before(now) else {
            return;
        };
        if back.unrecorded_team_change_back(cid) {
            self.window.log(now - 1, &Event::TeamChangeBack(cid));
            self.report.unrecorded_team_changes.push((now, cid, 0));
            back.step_holding(&self.held);
            self.world = back;
            return;
        }
        // Cl_SetTeam could not have taken it back yet (the team change
        // delay): what ended its character was no team change but
        // something the model missed (a death, say). The note goes, the
        // player is back in the game, and the character the file has and
        // the world lacks is this tick's divergence. (Where the delay
        // cannot tell, a death and a team change back are the same spawn
        // rule at the same tick.)
        self.window.log(now - 1, &Event::TeamChangeUndone(cid));
        if let Some(i) = (self.report.unrecorded_team_changes.iter())
            .rposition(|&(_, c, team)| c == cid && team == -1)
        {
            self.report.unrecorded_team_changes.remove(i);
        }
        self.world.unrecorded_team_change_undone(cid);
        if let Some(i) = self
            .report
            .unmodelled
            .iter()
            .rposition(|u| u.cid == Some(cid) && u.feature == UNRECORDED_TEAM_CHANGE)
        {
            self.report.unmodelled.remove(i);
        }
    }

    /// A record did not decode: the simulation stops there (what came
    /// before stands; the report says where it stopped).
    pub fn stop(&mut self, error: DecodeError) {
        if self.report.stopped.is_none() {
            self.report.stopped = Some(Stopped::Decode(error));
        }
    }

    /// The input ended: the last tick is compared, the ticks still kept
    /// are shown to the observer, and the demo's snapshots past the
    /// simulation are counted. Ending twice changes
    /// nothing.
    pub fn end(&mut self) {
        self.compare();
        for k in self.window.drain() {
            self.observer.tick(&k.world);
        }
        if let (Some(d), Some(r)) = (self.demo.as_mut(), self.report.demo.as_mut()) {
            d.finish(r);
        }
        self.report.players.retain(|p| p.player_ticks > 0);
    }
}

/// The ticks the searches of earlier ticks may step again at once
/// ([`Simulation::hold_inputs`]): one more each tick simulated, so that a
/// file the model diverges on everywhere costs at most about one step
/// again a tick (a search of the tick just stepped is not counted).
const SEARCH_RESERVE: usize = WINDOW * WINDOW;

/// The entry of `cid` in a per-client table, if the id is in range.
fn slot<T>(table: &mut [T], cid: i32) -> Option<&mut T> {
    usize::try_from(cid).ok().and_then(|c| table.get_mut(c))
}
