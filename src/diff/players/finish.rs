//! Finishes as the model's race has them, for the recordings whose server
//! writes none: DDNet 16.4's teehistorian writer has no finish record
//! (its header registers no `teehistorian-player-finish@ddnet.org`, which
//! 20.1's `engine/shared/teehistorian_ex_chunks.h` defines), and its
//! "finished in" line is a chat message to clients, which teehistorian
//! does not record. What a 16.4 file holds of a finish is the path that
//! crossed the line, so the model's start and finish lines
//! (`simulation::ddrace::world::race`, DDNet's `CGameTeams::OnCharacterStart`
//! and `OnCharacterFinish`) read it: a character whose race turns to
//! finished, with the ticks since its start (DDNet's `TimeTicks`,
//! `Server()->Tick() - m_StartTime`).
//!
//! Measured on the DDNet 20.1 campaign runs on `coverage.map`, which
//! record PLAYER_FINISH: 85 of 88 finishes on the recorded tick; the race
//! times all differ (the map's time bonus and penalty tiles, starts the
//! model does not place as DDNet does). A derived finish says whether and
//! when the line was crossed, and compares two paths under one rule; its
//! time is not DDNet's (docs/replay.md).

use super::roster::MAX_EVENTS;
use crate::simulation::World;
use crate::simulation::ddrace::character::{Character, race};
use crate::simulation::physics::core::MAX_CLIENTS;

/// One finish: when, whose, and the race time in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finish {
    /// The tick the line was crossed.
    pub tick: i32,
    /// The client id.
    pub cid: i32,
    /// The race time in ticks.
    pub time: i32,
}

/// Watches characters' races tick by tick and says who finished.
#[derive(Clone, Debug)]
pub struct FinishWatch {
    /// Each client's character had finished at the last tick seen.
    finished: Vec<bool>,
    /// Finishes seen, when kept ([`crate::simulation::Observer`]).
    pub kept: Vec<Finish>,
    /// More than [`MAX_EVENTS`] finishes came: the rest were not kept.
    pub overflowed: bool,
}

impl Default for FinishWatch {
    fn default() -> Self {
        FinishWatch {
            finished: vec![false; MAX_CLIENTS],
            kept: Vec::new(),
            overflowed: false,
        }
    }
}

impl FinishWatch {
    /// The characters after `tick`; gives the finishes of that tick.
    pub fn tick<'c>(
        &mut self,
        tick: i32,
        characters: impl Iterator<Item = &'c Character>,
    ) -> Vec<Finish> {
        let mut now = vec![false; MAX_CLIENTS];
        let mut out = Vec::new();
        for c in characters {
            let Some(slot) = now.get_mut(c.cid) else {
                continue;
            };
            *slot = c.ddrace_state == race::FINISHED;
            if *slot && !self.finished[c.cid] {
                out.push(Finish {
                    tick,
                    cid: c.cid as i32,
                    time: tick.wrapping_sub(c.start_tick),
                });
            }
        }
        self.finished = now;
        out
    }
}

/// A simulation keeps the finishes its world crosses (at most
/// [`MAX_EVENTS`]).
impl crate::simulation::Observer for FinishWatch {
    fn tick(&mut self, world: &World) {
        let chars = (0..MAX_CLIENTS).filter_map(|c| world.character(c));
        let found = FinishWatch::tick(self, world.tick, chars);
        let room = MAX_EVENTS.saturating_sub(self.kept.len());
        self.overflowed |= found.len() > room;
        self.kept.extend(found.into_iter().take(room));
    }
}
