//! Two recordings' characters walked tick by tick side by side: where
//! each matched player's path first departs, and for how many ticks it
//! differs. A recording is read as a [`Track`], the positions after each
//! tick something changed (a teehistorian file writes a position only
//! when it changes, so between two such ticks nothing moved); the walk
//! compares the two at every tick either changes, in the original's
//! numbering. Characters appearing and disappearing are the players'
//! spawns and deaths, for both kinds of track alike.
//!
//! Memory is one tick of each track: the walk never holds a path.

use super::events::{RaceEvent, What, clamp};
use super::finish::FinishWatch;
use super::roster::Roster;
use super::{CompareError, Fault, Which};
use crate::diff::{Positions, TeehistorianTicks, Ticks};
use crate::simulation::Stepper;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A recording's characters, tick by tick.
pub trait Track {
    /// Moves to the next tick with changes and gives it; `None` after the
    /// last.
    fn advance(&mut self) -> Result<Option<i32>, Fault>;
    /// The characters' positions after the current tick, by client id.
    fn positions(&self) -> &Positions;
    /// The finishes of the current tick, `(cid, race time)`, for a track
    /// that knows them (the model).
    fn finishes(&self) -> &[(i32, i32)] {
        &[]
    }
}

/// A teehistorian file's recorded positions (PLAYER_NEW, PLAYER_DIFF,
/// PLAYER_OLD).
pub struct Recorded<'a>(pub TeehistorianTicks<'a>);

impl Track for Recorded<'_> {
    fn advance(&mut self) -> Result<Option<i32>, Fault> {
        Ok(self.0.next_tick()?)
    }

    fn positions(&self) -> &Positions {
        self.0
            .positions()
            .expect("a teehistorian file has positions")
    }
}

/// The model's world stepped from a file's inputs, free: where a
/// character departs from the file it is not put back.
pub struct Modelled<'a> {
    stepper: Stepper<'a>,
    positions: Positions,
    watch: FinishWatch,
    finishes: Vec<(i32, i32)>,
}

impl<'a> Modelled<'a> {
    /// The world `stepper` steps.
    pub fn new(stepper: Stepper<'a>) -> Modelled<'a> {
        Modelled {
            stepper,
            positions: Positions::new(),
            watch: FinishWatch::default(),
            finishes: Vec::new(),
        }
    }

    /// What the simulation found against the file, so far.
    pub fn report(&self) -> &crate::simulation::Report {
        self.stepper.report()
    }
}

impl Track for Modelled<'_> {
    fn advance(&mut self) -> Result<Option<i32>, Fault> {
        let Some(s) = self.stepper.next_state() else {
            return Ok(None);
        };
        // As the simulation compares them with the file (`World::positions`).
        self.positions = s
            .characters
            .iter()
            .map(|c| (c.cid as i32, (c.core.pos.x as i32, c.core.pos.y as i32)))
            .collect();
        let chars = s.characters.iter().map(|c| &c.character);
        self.finishes = (self.watch.tick(s.tick, chars).into_iter())
            .map(|f| (f.cid, f.time))
            .collect();
        Ok(Some(s.tick))
    }

    fn positions(&self) -> &Positions {
        &self.positions
    }

    fn finishes(&self) -> &[(i32, i32)] {
        &self.finishes
    }
}

/// Where a player's path first departs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Departure {
    /// The first tick the positions differ (the original's numbering).
    pub tick: i32,
    /// The original's position there, `[x, y]` (`null`: no character).
    pub original: Option<[i32; 2]>,
    /// The other's position there (`null`: no character).
    pub other: Option<[i32; 2]>,
    /// How far apart, in map units (`null` when one has no character).
    pub distance: Option<f64>,
    /// Ticks of the compared range whose positions differ, this one and
    /// every later one.
    pub ticks: u64,
}

/// One side of the walk.
pub struct Side<'t> {
    /// The track.
    pub track: &'t mut dyn Track,
    /// The side's players, who gain their spawns, deaths and (the model's)
    /// finishes.
    pub roster: &'t mut Roster,
    /// Each of the roster's sessions' player, if matched.
    pub pair: &'t [Option<usize>],
    /// Which file, for errors.
    pub which: Which,
    /// The side's tick minus the original's.
    pub shift: i64,
}

/// A side while walking.
struct Follow<'s, 't> {
    side: &'s mut Side<'t>,
    /// The next tick with changes, in the original's numbering.
    next: Option<i64>,
    /// The positions after the last tick taken.
    now: Positions,
}

impl<'s, 't> Follow<'s, 't> {
    fn start(side: &'s mut Side<'t>) -> Result<Self, CompareError> {
        let mut f = Follow {
            side,
            next: None,
            now: Positions::new(),
        };
        f.next = f.advance()?;
        Ok(f)
    }

    fn advance(&mut self) -> Result<Option<i64>, CompareError> {
        let next = self
            .side
            .track
            .advance()
            .map_err(|e| e.of(self.side.which))?;
        Ok(next.map(|t| i64::from(t) - self.side.shift))
    }

    /// Takes the next tick: characters new and gone are spawns and
    /// deaths, the track's finishes are finishes.
    fn take(&mut self, tick: i64) -> Result<(), CompareError> {
        let own = clamp(tick + self.side.shift);
        let new = self.side.track.positions();
        let mut happened: Vec<(i32, What)> = Vec::new();
        happened
            .extend((self.now.keys().filter(|c| !new.contains_key(c))).map(|&c| (c, What::Death)));
        happened
            .extend((new.keys().filter(|c| !self.now.contains_key(c))).map(|&c| (c, What::Spawn)));
        happened.extend(
            (self.side.track.finishes().iter()).map(|&(c, time)| (c, What::Finish { time })),
        );
        self.now = new.clone();
        let roster = &mut *self.side.roster;
        for (cid, what) in happened {
            if let Some(i) = roster.session_at(cid, own) {
                let event = RaceEvent { tick: own, what };
                roster
                    .push_event(i, event)
                    .map_err(|e| e.of(self.side.which))?;
            }
        }
        self.next = self.advance()?;
        Ok(())
    }

    /// The side's positions now by matched player.
    fn by_player(&self, tick: i64) -> impl Iterator<Item = (usize, (i32, i32))> + '_ {
        let own = clamp(tick + self.side.shift);
        self.now.iter().filter_map(move |(&cid, &pos)| {
            let s = self.side.roster.session_at(cid, own)?;
            Some((self.side.pair.get(s).copied().flatten()?, pos))
        })
    }
}

/// Which ticks of a comparison to keep each player's paths of (for a
/// picture: `map::plot`), and how finely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathRequest {
    /// The first tick (the original's numbering; default: the first
    /// compared).
    pub from: Option<i32>,
    /// The last tick (default: the last compared).
    pub to: Option<i32>,
    /// A point nearer than this many map units each way to the last one
    /// kept is left out (a pixel of the picture: what it could not show).
    pub resolution: i32,
}

/// Most points [`PathLog`] keeps over all paths (12 bytes each): what is
/// past them is not kept, and the log says from which tick.
pub const MAX_PATH_POINTS: usize = 1 << 22;

/// A jump longer than this many map units from one tick with changes to
/// the next (a teleporter, a respawn in place) starts a new line.
pub const JUMP: i32 = 96;

/// One character's path: lines of `(tick, x, y)`, a new one after each
/// tick without a character or each [`JUMP`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path {
    /// The lines, in order.
    pub lines: Vec<Vec<(i32, i32, i32)>>,
    /// The last point is the end of its line.
    closed: bool,
}

impl Path {
    /// `pos` at `tick`, unless it is within `resolution` of the last
    /// point. Gives whether a point was kept.
    pub(crate) fn push(&mut self, tick: i32, (x, y): (i32, i32), resolution: i32) -> bool {
        let last = match self.closed {
            true => None,
            false => self.lines.last().and_then(|l| l.last()),
        };
        match last {
            Some(&(_, lx, ly)) if (x - lx).abs().max((y - ly).abs()) > JUMP => {}
            Some(&(_, lx, ly)) => {
                if (x - lx).abs() < resolution && (y - ly).abs() < resolution {
                    return false;
                }
                self.lines.last_mut().expect("a line").push((tick, x, y));
                return true;
            }
            None => {}
        }
        self.lines.push(vec![(tick, x, y)]);
        self.closed = false;
        true
    }

    /// The character is gone: the next point starts a line.
    pub(crate) fn close(&mut self) {
        self.closed = true;
    }
}

/// Each compared player's path on both sides over a [`PathRequest`]'s
/// ticks.
#[derive(Clone, Debug)]
pub struct PathLog {
    request: PathRequest,
    /// By player (the walk's numbering): the original's path, the other's.
    players: Vec<[Path; 2]>,
    points: usize,
    /// The first tick not kept, when [`MAX_PATH_POINTS`] was reached.
    pub cut_at: Option<i32>,
}

impl PathLog {
    /// An empty log for `players` players.
    pub fn new(request: PathRequest, players: usize) -> PathLog {
        PathLog {
            request,
            players: vec![Default::default(); players],
            points: 0,
            cut_at: None,
        }
    }

    /// Each player's paths, in the walk's order of players.
    pub fn into_paths(self) -> Vec<[Path; 2]> {
        self.players
    }

    /// The positions at tick `t` (both sides', by player; a player not
    /// among them has no character on either side).
    fn tick(&mut self, t: i64, at: &BTreeMap<usize, Both>) {
        let t = clamp(t);
        let r = self.request;
        if r.from.is_some_and(|f| t < f) || r.to.is_some_and(|l| t > l) || self.cut_at.is_some() {
            return;
        }
        if self.points >= MAX_PATH_POINTS {
            self.cut_at = Some(t);
            return;
        }
        let resolution = r.resolution.max(1);
        for (p, paths) in self.players.iter_mut().enumerate() {
            let (x, y) = at.get(&p).copied().unwrap_or_default();
            for (path, pos) in paths.iter_mut().zip([x, y]) {
                match pos {
                    Some(pos) => self.points += usize::from(path.push(t, pos, resolution)),
                    None => path.close(),
                }
            }
        }
    }
}

/// A player's positions on both sides at a tick (`None`: no character).
type Both = (Option<(i32, i32)>, Option<(i32, i32)>);

/// What the walk found so far.
struct Judge<'l> {
    /// Where each player's paths go, if asked.
    log: Option<&'l mut PathLog>,
    out: Vec<Option<Departure>>,
    /// The players whose positions differed at the last tick compared.
    differing: BTreeSet<usize>,
    /// The last tick compared.
    last: Option<i64>,
}

impl Judge<'_> {
    /// Counts the ticks from the last one compared up to `t` (excluded)
    /// for the players who differed there: nothing moved in between.
    fn count_to(&mut self, t: i64) {
        if let Some(l) = self.last {
            for &p in &self.differing {
                if let Some(d) = self.out[p].as_mut() {
                    d.ticks += t.saturating_sub(l) as u64;
                }
            }
        }
        self.last = Some(t);
    }

    /// Compares the two sides' positions at `t`.
    fn check(&mut self, t: i64, a: &Follow, b: &Follow) {
        self.count_to(t);
        let mut at: BTreeMap<usize, Both> = BTreeMap::new();
        for (p, pos) in a.by_player(t) {
            at.entry(p).or_default().0 = Some(pos);
        }
        for (p, pos) in b.by_player(t) {
            at.entry(p).or_default().1 = Some(pos);
        }
        if let Some(log) = self.log.as_deref_mut() {
            log.tick(t, &at);
        }
        self.differing.clear();
        for (p, (x, y)) in at {
            if x == y {
                continue;
            }
            self.differing.insert(p);
            self.out[p].get_or_insert_with(|| Departure {
                tick: clamp(t),
                original: x.map(|(x, y)| [x, y]),
                other: y.map(|(x, y)| [x, y]),
                distance: x.zip(y).map(|((x0, y0), (x1, y1))| {
                    let dx = f64::from(x1) - f64::from(x0);
                    let dy = f64::from(y1) - f64::from(y0);
                    (dx * dx + dy * dy).sqrt()
                }),
                ticks: 0,
            });
        }
    }
}

/// Walks `original` and `other` together over the original's ticks
/// `range` (inclusive); gives each of the `players` matched players' first
/// departure, if their paths depart, and keeps their paths in `log`, if
/// given. Spawns, deaths and finishes are
/// taken into each side's roster up to the range's end.
pub fn walk(
    original: &mut Side<'_>,
    other: &mut Side<'_>,
    range: (i32, i32),
    players: usize,
    log: Option<&mut PathLog>,
) -> Result<Vec<Option<Departure>>, CompareError> {
    let (lo, hi) = (i64::from(range.0), i64::from(range.1));
    let mut a = Follow::start(original)?;
    let mut b = Follow::start(other)?;
    let mut judge = Judge {
        log,
        out: vec![None; players],
        differing: BTreeSet::new(),
        last: None,
    };
    if lo > hi {
        return Ok(judge.out);
    }
    loop {
        let t = match (a.next, b.next) {
            (None, None) => break,
            (x, y) => x.into_iter().chain(y).min().expect("one is some"),
        };
        if t > hi {
            break;
        }
        // The range begins between two ticks with changes: what holds
        // since the last one is compared at its first tick.
        if judge.last.is_none() && t > lo {
            judge.check(lo, &a, &b);
        }
        if a.next == Some(t) {
            a.take(t)?;
        }
        if b.next == Some(t) {
            b.take(t)?;
        }
        if t >= lo {
            judge.check(t, &a, &b);
        }
    }
    if judge.last.is_none() {
        judge.check(lo, &a, &b);
    }
    // What differs at the last tick compared differs to the range's end.
    judge.count_to(hi + 1);
    Ok(judge.out)
}
