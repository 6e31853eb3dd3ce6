//! What a simulation found: counts, the first divergences, per-player
//! figures, what was not modelled, and the comparison with a demo.

use super::Release;
use super::physics::core::Core;
use crate::codec::DecodeError;
#[cfg(doc)]
use crate::simulation::ddrace::world::UNRECORDED_TEAM_CHANGE;
use crate::simulation::ddrace::world::{Unmodelled, WorldState};
use serde::Serialize;

/// The most ticks one gap between records may make the world step while
/// players are in it: a day.
pub const MAX_GAP: i64 = 50 * 60 * 60 * 24;

/// How many divergences a report lists (all are counted).
pub const MAX_LISTED: usize = 50;

/// What a simulation found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Whose physics the world followed: the recording server's
    /// (`recorded_release`) unless [`Options::physics`](super::Options::physics) said otherwise.
    #[serde(rename = "version")]
    pub release: Release,
    /// The release of the server that recorded the file (from the
    /// header's `server_version`).
    #[serde(rename = "recorded_version")]
    pub recorded_release: Release,
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
    /// the last input the file wrote before the tick (an input the writer
    /// left out as a repeat), not the first one it records for the tick;
    /// the file cannot say which (see
    /// [`World::step_holding`](super::World::step_holding)): a position or
    /// the demo's Character item decided, at that tick or up to
    /// [`WINDOW`](super::window::WINDOW) ticks later.
    pub held_inputs: Vec<(i32, usize)>,
    /// DDNet 16.4 with a demo only: (tick, client id) where the demo shows
    /// the score database's answer to the player's join taken after a
    /// finish, which the file cannot say (see
    /// [`join_answers`](super::demo_compare::join_answers)); the world
    /// forgets the player's time there.
    pub join_answers: Vec<(i32, usize)>,
    /// (tick, client id, team) of each team change a 0.7 client made that
    /// the file does not record ([`UNRECORDED_TEAM_CHANGE`]): its character
    /// gone at `tick` (team -1) or back (team 0), by a `Cl_SetTeam` the
    /// server read the tick before. For a replay, which must send them;
    /// the JSON names them among `unmodelled`.
    #[serde(skip)]
    pub unrecorded_team_changes: Vec<(i32, usize, i32)>,
    /// What ended the simulation early, if anything did.
    pub stopped: Option<Stopped>,
    /// The world after the last tick simulated ([`Options::until`](super::Options::until)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub world: Option<WorldState>,
    /// What the world does not model, in order of ticks.
    pub unmodelled: Vec<Unmodelled>,
    /// Per player: its player-ticks, matches, and first divergence tick.
    pub players: Vec<PlayerSummary>,
    /// The comparison with a demo of the same session, when one was given
    /// ([`Options::demo`](super::Options::demo)).
    pub demo: Option<DemoReport>,
}

impl Report {
    /// The world after tick `until`, as [`Options::until`](super::Options::until)
    /// asked; an error when the file's ticks do not hold it.
    pub fn world_at(&self, until: i32) -> Result<&WorldState, super::SimulateError> {
        self.world
            .as_ref()
            .filter(|w| w.tick == until)
            .ok_or(super::SimulateError::UntilOutside {
                until,
                ticks: self.ticks,
            })
    }
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

/// A position as a report shows it: `(x, y)`, or `no character`.
pub fn place(p: Option<(i32, i32)>) -> String {
    match p {
        Some((x, y)) => format!("({x}, {y})"),
        None => "no character".to_owned(),
    }
}

/// What ended a simulation before the file's end.
#[derive(Clone, Debug, PartialEq)]
pub enum Stopped {
    /// A record that does not decode.
    Decode(DecodeError),
    /// A gap between records longer than [`MAX_GAP`]
    /// ticks with players in the game.
    Gap {
        /// The world's tick.
        from: i32,
        /// The next record's.
        to: i32,
    },
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Decode(e) => write!(f, "{e}"),
            Stopped::Gap { from, to } => write!(
                f,
                "a gap from tick {from} to {to} with players in the game (more than {MAX_GAP} ticks, a day)"
            ),
        }
    }
}

/// As its words (the `simulation` document's `stopped` is a string).
impl Serialize for Stopped {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The comparison of a simulation with a server demo of the same session.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DemoReport {
    /// The demo's snapshots.
    pub snapshots: u64,
    /// Its Character items.
    pub items: u64,
    /// Of those, compared with a simulated character (the item's tick
    /// within the last [`RECKONING_RING`](super::demo_compare::RECKONING_RING) simulated ticks, the character
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
