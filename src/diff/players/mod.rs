//! Two recordings of the same game compared by player: does every player
//! go the same way, tick for tick, and meet the same race events? The
//! question a replay asks of a server build (`record --replay` plays a
//! teehistorian file's inputs into a server, and this compares the
//! original with what it recorded), and, without a server, of the model
//! ([`compare_model`]: the file's inputs stepped by our physics with a
//! changed tuning or release, against the file's own positions).
//!
//! - Players are matched by name and join order ([`roster`]): the k-th
//!   session of name N in one file is the k-th of N in the other,
//!   whatever client ids they had. Names are the server's (PLAYER_NAME,
//!   DDNet 20.1) or, in files without them (16.4), the client's first
//!   `Cl_StartInfo`/`Cl_ChangeInfo` (0.6 and 0.7 layouts). A player only
//!   one file has is reported as such.
//! - Ticks: the two files' clocks differ (a replay server starts its
//!   own), so they are aligned ([`Alignment`]): by the first join of each
//!   file unless an offset is given. Ticks are shown in the original's
//!   numbering; only the ticks both files cover are compared.
//! - Paths ([`paths`]): each matched player's position after every tick,
//!   the first tick it departs (both positions, the distance) and how
//!   many ticks differ.
//! - Race events ([`events`]): joins, spawns and deaths, kills
//!   (`Cl_Kill`), console commands, team changes, saves and loads,
//!   finishes and their times, leaves; the first that differs. Finishes
//!   are compared where both sides know them: files whose server records
//!   PLAYER_FINISH (20.1), the model's race ([`finish`]) otherwise, given
//!   a map; a 16.4 file compared without one has its finishes reported
//!   as not compared.
//!
//! [`Comparison`] says it all: a verdict, a summary, each player, as JSON
//! (`src/schema.md`, `teehistorian compare`) and as text
//! ([`Comparison::text`]).

mod comparison;
pub mod events;
pub mod finish;
pub mod paths;
pub mod roster;
#[cfg(test)]
mod tests;

pub use comparison::{
    Aligned, Alignment, Comparison, FinishSource, PlayerComparison, Side, SideKind, Status,
    Summary, Verdict,
};

use crate::codec::DecodeError;
use crate::simulation::physics::collision::Collision;
use crate::simulation::{Release, SimulateError, Stepper};
use events::{RaceEvent, What};
use paths::{Modelled, PathLog, PathRequest, Recorded, Track};
use roster::{MAX_EVENTS, Roster};
use std::collections::BTreeMap;

/// How to compare.
#[derive(Clone, Debug, Default)]
pub struct Options<'a> {
    /// The other file's ticks minus the original's (`other = original +
    /// offset`). Default: the difference of their first joins' ticks.
    pub offset: Option<i64>,
    /// The map both files were recorded on, for the finishes of files
    /// whose server records none (DDNet 16.4): the model's race reads
    /// them from each file's inputs and positions ([`finish`]).
    pub finish_map: Option<&'a Collision>,
    /// Keep each player's paths over these ticks
    /// ([`PlayerComparison::paths`]), for a picture.
    pub paths: Option<PathRequest>,
}

/// The model's side of a file: whose physics, which tunings changed.
#[derive(Clone, Debug)]
pub struct Model<'a> {
    /// The map's game layer.
    pub col: Collision,
    /// Step with this release's physics (default: the recording
    /// server's).
    pub physics: Option<Release>,
    /// Tuning parameters changed, as `tune NAME VALUE` in the server's
    /// config would (the file's own tuning commands still apply).
    pub tune: &'a [(String, String)],
    /// Keep each player's paths over these ticks
    /// ([`PlayerComparison::paths`]), for a picture.
    pub paths: Option<PathRequest>,
}

/// Which file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Which {
    /// The first.
    Original,
    /// The second.
    Other,
}

/// What went wrong reading one file.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// A record does not decode.
    Decode(DecodeError),
    /// More than a bound of something.
    TooMany {
        /// What.
        what: &'static str,
        /// The bound.
        max: usize,
    },
}

impl From<DecodeError> for Fault {
    fn from(e: DecodeError) -> Fault {
        Fault::Decode(e)
    }
}

impl Fault {
    /// The fault as `which` file's.
    pub fn of(self, which: Which) -> CompareError {
        CompareError::File { which, fault: self }
    }
}

/// Why two recordings could not be compared.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareError {
    /// One file does not read.
    File {
        /// Which.
        which: Which,
        /// What.
        fault: Fault,
    },
    /// The model cannot step the file.
    Simulate(SimulateError),
    /// The model stopped before the file's end.
    ModelStopped(crate::simulation::Stopped),
}

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompareError::File { which, fault } => {
                let which = match which {
                    Which::Original => "the original",
                    Which::Other => "the other file",
                };
                match fault {
                    Fault::Decode(e) => write!(f, "{which}: {e}"),
                    Fault::TooMany { what, max } => {
                        write!(f, "{which}: more than {max} {what}, the most compared")
                    }
                }
            }
            CompareError::Simulate(e) => write!(f, "the model: {e}"),
            CompareError::ModelStopped(e) => write!(f, "the model stopped: {e}"),
        }
    }
}

impl std::error::Error for CompareError {}

/// Compares two teehistorian files of the same game by player.
pub fn compare(
    original: &[u8],
    other: &[u8],
    options: &Options,
) -> Result<Comparison, CompareError> {
    let read = |bytes, which| Roster::read(bytes).map_err(|e| e.of(which));
    let mut a = read(original, Which::Original)?;
    let mut b = read(other, Which::Other)?;
    let alignment = align(&a, &b, options.offset);
    let finish = finishes(&mut a, &mut b, original, other, options.finish_map)?;
    let track = |bytes, which| {
        crate::diff::TeehistorianTicks::new(bytes)
            .map(|(_, t)| Recorded(t))
            .map_err(|e| Fault::Decode(e).of(which))
    };
    let mut ta = track(original, Which::Original)?;
    let mut tb = track(other, Which::Other)?;
    let sides = [Side::file(&a, finish), Side::file(&b, finish)];
    let kinds = match finish {
        FinishSource::NotCompared => ALL_KINDS
            .iter()
            .filter(|&&k| k != "finish")
            .copied()
            .collect(),
        _ => ALL_KINDS.to_vec(),
    };
    let asked = Asked {
        kinds,
        paths: options.paths,
    };
    run(&mut a, &mut ta, &mut b, &mut tb, alignment, sides, asked)
}

/// Compares a teehistorian file's recorded players with the model's
/// world stepped from its inputs under `model`'s physics: their spawns,
/// deaths and finishes, and every position. With the recording server's
/// own physics and no tuning changed, a file the model simulates exactly
/// is identical.
pub fn compare_model(file: &[u8], model: &Model) -> Result<Comparison, CompareError> {
    let mut a = Roster::read(file).map_err(|e| e.of(Which::Original))?;
    let mut b = a.without_events();
    // Like with like: the file's finishes too are the model's race (on
    // its recorded path), whether or not its server records them.
    let finish = FinishSource::Model;
    derive_finishes(&mut a, file, &model.col, Which::Original)?;
    let (_, ticks) = crate::diff::TeehistorianTicks::new(file)
        .map_err(|e| Fault::Decode(e).of(Which::Original))?;
    let mut ta = Recorded(ticks);
    let stepper = Stepper::tuned(file, model.col.clone(), model.physics, model.tune)
        .map_err(CompareError::Simulate)?;
    let mut tb = Modelled::new(stepper);
    let release = tb.report().release;
    let alignment = Alignment {
        how: Aligned::SameFile,
        offset: 0,
        original_tick: a.first_start(),
        other_tick: a.first_start(),
    };
    let sides = [Side::file(&a, finish), Side::model(&a, release, model.tune)];
    let mut comparison = run(
        &mut a,
        &mut ta,
        &mut b,
        &mut tb,
        alignment,
        sides,
        Asked {
            kinds: MODEL_KINDS.to_vec(),
            paths: model.paths,
        },
    )?;
    if let Some(stopped) = &tb.report().stopped {
        return Err(CompareError::ModelStopped(stopped.clone()));
    }
    comparison.note_unmodelled(&tb.report().unmodelled);
    Ok(comparison)
}

/// What a comparison compares besides paths (the kinds of race events),
/// and what it keeps (the paths over some ticks).
struct Asked {
    kinds: Vec<&'static str>,
    paths: Option<PathRequest>,
}

/// Every kind of race event, as JSON names them.
const ALL_KINDS: &[&str] = &[
    "join", "death", "spawn", "kill", "command", "team", "save", "finish", "leave",
];
/// What the model decides of a player's race; the rest (joins, kills,
/// commands, teams, saves) it takes from the file.
const MODEL_KINDS: &[&str] = &["death", "spawn", "finish"];

/// How the two files' ticks line up.
fn align(a: &Roster, b: &Roster, offset: Option<i64>) -> Alignment {
    let (ta, tb) = (a.first_start(), b.first_start());
    match offset {
        Some(offset) => Alignment {
            how: Aligned::Given,
            offset,
            original_tick: ta,
            other_tick: tb,
        },
        None => Alignment {
            how: Aligned::FirstJoin,
            offset: match (ta, tb) {
                (Some(x), Some(y)) => i64::from(y) - i64::from(x),
                _ => 0,
            },
            original_tick: ta,
            other_tick: tb,
        },
    }
}

/// Where the two files' finishes come from: their own records when both
/// servers write them, else the model's race on `map` (both files), else
/// none.
fn finishes(
    a: &mut Roster,
    b: &mut Roster,
    original: &[u8],
    other: &[u8],
    map: Option<&Collision>,
) -> Result<FinishSource, CompareError> {
    if a.finish_recorded && b.finish_recorded {
        return Ok(FinishSource::Recorded);
    }
    let Some(col) = map else {
        return Ok(FinishSource::NotCompared);
    };
    // One source for both, so that like is compared with like.
    for (r, bytes, which) in [(a, original, Which::Original), (b, other, Which::Other)] {
        derive_finishes(r, bytes, col, which)?;
    }
    Ok(FinishSource::Model)
}

/// Replaces `roster`'s finishes with those the model's race finds in
/// `bytes` (its own physics, its characters put back on the recorded path
/// where they depart; [`finish`]).
fn derive_finishes(
    roster: &mut Roster,
    bytes: &[u8],
    col: &Collision,
    which: Which,
) -> Result<(), CompareError> {
    for s in &mut roster.sessions {
        s.events.retain(|e| !matches!(e.what, What::Finish { .. }));
    }
    // A map without a finish line has no finish: nothing to simulate.
    let finish_line = crate::simulation::physics::collision::tile::FINISH;
    if !col.game_and_front_indices().any(|i| i == finish_line) {
        return Ok(());
    }
    let options = crate::simulation::Options::default();
    let watch = finish::FinishWatch::default();
    let (report, watch) = crate::simulation::simulate_observed(bytes, col.clone(), &options, watch)
        .map_err(|e| match e {
            SimulateError::Decode(e) => Fault::Decode(e).of(which),
            e => CompareError::Simulate(e),
        })?;
    if let Some(stopped) = report.stopped {
        return Err(CompareError::ModelStopped(stopped));
    }
    if watch.overflowed {
        return Err(Fault::TooMany {
            what: "finishes",
            max: MAX_EVENTS,
        }
        .of(which));
    }
    for f in watch.kept {
        if let Some(i) = roster.session_at(f.cid, f.tick) {
            let event = RaceEvent {
                tick: f.tick,
                what: What::Finish { time: f.time },
            };
            roster.push_event(i, event).map_err(|e| e.of(which))?;
        }
    }
    Ok(())
}

/// Pairs the players, walks the paths, compares the events.
fn run(
    a: &mut Roster,
    ta: &mut dyn Track,
    b: &mut Roster,
    tb: &mut dyn Track,
    alignment: Alignment,
    sides: [Side; 2],
    asked: Asked,
) -> Result<Comparison, CompareError> {
    let Asked { kinds, paths } = asked;
    // Players: by key, in the original's order, then the other's own.
    let mut index: BTreeMap<&roster::PlayerKey, usize> = BTreeMap::new();
    let mut pairs: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    for (i, k) in a.keys.iter().enumerate() {
        index.insert(k, pairs.len());
        pairs.push((Some(i), None));
    }
    for (j, k) in b.keys.iter().enumerate() {
        match index.get(k) {
            Some(&p) => pairs[p].1 = Some(j),
            None => pairs.push((None, Some(j))),
        }
    }
    let matched = |side: usize, n: usize| {
        let mut of = vec![None; n];
        for (p, pair) in pairs.iter().enumerate() {
            if let (Some(i), Some(j)) = pair {
                of[if side == 0 { *i } else { *j }] = Some(p);
            }
        }
        of
    };
    let (pair_a, pair_b) = (matched(0, a.sessions.len()), matched(1, b.sessions.len()));
    let range = compared_range(a.ticks, b.ticks, alignment.offset);
    let mut log = paths.map(|r| PathLog::new(r, pairs.len()));
    let departures = {
        let mut sa = paths::Side {
            track: ta,
            roster: a,
            pair: &pair_a,
            which: Which::Original,
            shift: 0,
        };
        let mut sb = paths::Side {
            track: tb,
            roster: b,
            pair: &pair_b,
            which: Which::Other,
            shift: alignment.offset,
        };
        match range {
            Some(r) => paths::walk(&mut sa, &mut sb, r, pairs.len(), log.as_mut())?,
            None => vec![None; pairs.len()],
        }
    };
    let mut c = comparison::build(a, b, &pairs, departures, alignment, range, sides, kinds);
    if let Some(log) = log {
        c.paths_cut_at = log.cut_at;
        for (p, paths) in c.players.iter_mut().zip(log.into_paths()) {
            p.paths = Some(paths);
        }
    }
    Ok(c)
}

/// The original's ticks both files cover, if they overlap.
fn compared_range(a: Option<(i32, i32)>, b: Option<(i32, i32)>, offset: i64) -> Option<(i32, i32)> {
    let ((a0, a1), (b0, b1)) = (a?, b?);
    let lo = i64::from(a0).max(i64::from(b0) - offset);
    let hi = i64::from(a1).min(i64::from(b1) - offset);
    (lo <= hi).then(|| (events::clamp(lo), events::clamp(hi)))
}
