//! The last ticks of a simulation, kept so that they can be stepped
//! again: DDNet 16.4 moves with the first input meant for a tick, but its
//! teehistorian writer leaves out an input equal to the last one written
//! ([`World::step_holding`]), so when a client's inputs come in a burst
//! the file may lack the one the character moved with. What shows it (a
//! position, the demo's Character item) may come some ticks later: a
//! hook fired a tick late pulls the tee a tick late. The window keeps,
//! for each of its last [`WINDOW`] ticks, the world as compared at the
//! tick's end and what happened between it and the next, so the
//! [`Simulation`](super::Simulation) can step them again with a client's
//! input held at one of them and keep that history where the file's
//! positions (and the demo's Character items) support it, every tick it
//! had compared coming out the same. A tick leaves the window (to the
//! observer) once it can no longer be stepped again.

use super::ddrace::World;
use super::event::Event;
use super::physics::Vec2;
use super::physics::core::{Core, MAX_CLIENTS};
use std::collections::VecDeque;

#[cfg(test)]
mod tests;

/// How many ticks a 16.4 file's simulation keeps: memory for that many
/// worlds (a few MB with 64 players), whatever the file's length. In the
/// 10-minute 64-client session a burst shows 2 to 11 ticks after the
/// tick it came for (the tick stepped again and the one before it must
/// be kept: 12 ticks; with 8 it is not exact); 16 leaves room and costs
/// no more time. A search steps at most this many ticks again per
/// candidate tick, only for a client that has just begun to diverge, and
/// all of them together about one tick again per tick simulated.
pub const WINDOW: usize = 16;

/// One tick of the window.
#[derive(Clone, Debug)]
pub(super) struct Kept {
    /// The world at the tick's end, as compared (characters that
    /// diverged put back where the file says).
    pub world: World,
    /// The clients with inputs for this tick, under DDNet 16.4.
    pub with_inputs: Vec<usize>,
    /// The clients that moved with their last input (left out of the
    /// file) at this tick.
    pub held: Vec<usize>,
    /// Every position before a character was put back.
    pub simulated: Vec<Option<(i32, i32)>>,
    /// The characters that diverged, and where the file puts them.
    pub diverged: Vec<(usize, Option<(i32, i32)>)>,
    /// What happened between this tick and the next.
    pub events: Vec<Event>,
    /// The world was changed other than by its step (a database's
    /// answer, a 0.7 client's unrecorded team change): the tick is not
    /// stepped again.
    pub fixed: bool,
}

/// The positions of `w`'s characters, by client id.
pub(super) fn positions(w: &World) -> Vec<Option<(i32, i32)>> {
    let mut at = vec![None; MAX_CLIENTS];
    for (cid, x, y) in w.positions() {
        at[cid] = Some((x, y));
    }
    at
}

/// Puts the characters that diverged where the file says.
pub(super) fn reseed(w: &mut World, diverged: &[(usize, Option<(i32, i32)>)]) {
    for &(cid, rec) in diverged {
        w.reseed(cid, rec.map(|(x, y)| Vec2::new(x as f32, y as f32)));
    }
}

/// The window's ticks stepped again ([`Window::replay`]).
pub(super) struct Replayed {
    /// The first tick stepped again.
    pub from: i32,
    /// The worlds of the ticks from `from` to the one before now, as
    /// compared (if kept).
    pub worlds: Vec<World>,
    /// The cores just before the last step.
    pub cores_before: Vec<Option<Core>>,
    /// The world now.
    pub world: World,
}

/// The last ticks, oldest first, each one tick after the one before.
#[derive(Default)]
pub(super) struct Window {
    ticks: VecDeque<Kept>,
}

impl Window {
    /// Keeps `kept`, the tick after the last one kept (any other, after
    /// a gap, starts the window again); gives back what no longer fits
    /// in `size` ticks, oldest first.
    pub(super) fn push(&mut self, kept: Kept, size: usize) -> Vec<Kept> {
        let mut gone = Vec::new();
        if self
            .ticks
            .back()
            .is_some_and(|k| k.world.tick + 1 != kept.world.tick)
        {
            gone.extend(self.ticks.drain(..));
        }
        self.ticks.push_back(kept);
        while self.ticks.len() > size {
            gone.extend(self.ticks.pop_front());
        }
        gone
    }

    /// Gives back every tick kept, oldest first.
    pub(super) fn drain(&mut self) -> Vec<Kept> {
        self.ticks.drain(..).collect()
    }

    /// The tick kept for `tick`, if any.
    pub(super) fn at(&self, tick: i32) -> Option<&Kept> {
        let first = self.ticks.front()?.world.tick;
        let i = usize::try_from(i64::from(tick) - i64::from(first)).ok()?;
        self.ticks.get(i)
    }

    fn at_mut(&mut self, tick: i32) -> Option<&mut Kept> {
        let first = self.ticks.front()?.world.tick;
        let i = usize::try_from(i64::from(tick) - i64::from(first)).ok()?;
        self.ticks.get_mut(i)
    }

    /// `event` happened after the tick `tick`'s comparison: kept with it
    /// when that tick is the last kept.
    pub(super) fn log(&mut self, tick: i32, event: &Event) {
        if let Some(k) = self.ticks.back_mut()
            && k.world.tick == tick
        {
            k.events.push(event.clone());
        }
    }

    /// The first tick that may be stepped again before `now`: the ticks
    /// from it to `now - 1` are kept and none is fixed, and the tick
    /// before it is kept (its world is where stepping starts).
    pub(super) fn earliest(&self, now: i32) -> i32 {
        let mut from = now;
        while self.at(from - 1).is_some_and(|k| !k.fixed) && self.at(from - 2).is_some() {
            from -= 1;
        }
        from
    }

    /// The world before stepping to `tick`: the kept world of the tick
    /// before, with what happened after it.
    pub(super) fn before(&self, tick: i32) -> Option<World> {
        let k = self.at(tick - 1)?;
        let mut w = k.world.clone();
        for e in &k.events {
            e.apply(&mut w);
        }
        Some(w)
    }

    /// The ticks from `from` to `now` (the world's tick) stepped again,
    /// with `cid`'s last input held at `from` besides the clients held
    /// already (`now_held` at `now`), and the worlds before `now` if
    /// `keep`. `None` if the window cannot, or if a position before `now`
    /// comes out otherwise than it was: the ticks compared stay as they
    /// were compared.
    pub(super) fn replay(
        &self,
        from: i32,
        now: i32,
        cid: usize,
        now_held: &[usize],
        free_running: bool,
        keep: bool,
    ) -> Option<Replayed> {
        let held = |held: &[usize], at_from: bool| {
            let mut held = held.to_vec();
            if at_from {
                held.push(cid);
            }
            held
        };
        let mut w = self.before(from)?;
        let mut worlds = Vec::new();
        for tick in from..now {
            let k = self.at(tick)?;
            w.step_holding(&held(&k.held, tick == from));
            if positions(&w) != k.simulated || w.unmodelled.len() != k.world.unmodelled.len() {
                return None;
            }
            if !free_running {
                reseed(&mut w, &k.diverged);
            }
            if keep {
                worlds.push(w.clone());
            }
            for e in &k.events {
                e.apply(&mut w);
            }
        }
        let cores_before = (0..MAX_CLIENTS).map(|c| w.core(c).cloned()).collect();
        w.step_holding(&held(now_held, from == now));
        Some(Replayed {
            from,
            worlds,
            cores_before,
            world: w,
        })
    }

    /// Keeps the history `r` stepped (`cid` held at its first tick);
    /// gives back the world now.
    pub(super) fn rewrite(&mut self, r: Replayed, cid: usize) -> World {
        if let Some(k) = self.at_mut(r.from) {
            k.held.push(cid);
            k.held.sort_unstable();
        }
        for w in r.worlds {
            if let Some(k) = self.at_mut(w.tick) {
                k.world = w;
            }
        }
        r.world
    }
}
