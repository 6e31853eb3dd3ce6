//! The world at a tick: a stream's records replayed up to it, what
//! `teehistorian replay --at` prints and Python's `replay(at=...)` gives.

use super::replay::{Inconsistency, Replay, ReplayConfig, World};
use super::stream::{ReadError, StreamReader};
use std::fmt;
use std::io::Read;
use std::ops::ControlFlow;

/// Why there is no world at the tick asked for.
#[derive(Debug)]
pub enum WorldAtError {
    /// A record did not read; `last_tick` is the tick of the last one
    /// that did.
    Read {
        /// What went wrong.
        error: ReadError,
        /// The last tick read.
        last_tick: i32,
    },
    /// The replay met an inconsistency, and was strict.
    Inconsistent(Inconsistency),
    /// The tick is after the file's last.
    PastEnd {
        /// The tick asked for.
        at: i32,
        /// The file's last tick.
        last_tick: i32,
    },
}

impl fmt::Display for WorldAtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldAtError::Read { error, .. } => error.fmt(f),
            WorldAtError::Inconsistent(inc) => inc.fmt(f),
            WorldAtError::PastEnd { at, last_tick } => {
                write!(f, "tick {at} is after the end (last tick {last_tick})")
            }
        }
    }
}

impl std::error::Error for WorldAtError {}

/// The world after `reader`'s records up to tick `at` (every record when
/// `None`), with its tick set to `at`. An inconsistency (a player who
/// never joined) stops a `strict` replay; else the replay goes on, and
/// `passed` is told of it.
pub fn world_at<R: Read>(
    reader: &mut StreamReader<R>,
    at: Option<i32>,
    strict: bool,
    mut passed: impl FnMut(&Inconsistency),
) -> Result<World, WorldAtError> {
    let mut replay = Replay::new(ReplayConfig::default());
    let mut last_tick = 0;
    let flow = reader.for_each_record(|rec| {
        if at.is_some_and(|at| rec.tick > at) {
            return ControlFlow::Break(None);
        }
        last_tick = rec.tick;
        match replay.handle(rec.offset, &rec.msg) {
            Err(inc) if strict => ControlFlow::Break(Some(inc)),
            Err(inc) => {
                passed(&inc);
                ControlFlow::Continue(())
            }
            Ok(_) => ControlFlow::Continue(()),
        }
    });
    let reached = match flow {
        Ok(ControlFlow::Break(Some(inc))) => return Err(WorldAtError::Inconsistent(inc)),
        Ok(ControlFlow::Break(None)) => true,
        Ok(ControlFlow::Continue(())) => false,
        Err(error) => return Err(WorldAtError::Read { error, last_tick }),
    };
    let mut world = replay.world();
    if let Some(at) = at {
        if !reached && at > last_tick {
            return Err(WorldAtError::PastEnd { at, last_tick });
        }
        world.tick = at;
    }
    Ok(world)
}
