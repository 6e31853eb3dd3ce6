//! The scenario clock: where a map's tick grid lies on this machine's
//! clock, which server tick is which scenario tick, and which scenario
//! tick is now. How the session places the grid (snapshots, the bots'
//! probes, MAP_CHANGE) is said at the top of `session.rs`.

use std::time::{Duration, Instant};

/// A game tick.
pub(super) const TICK: Duration = Duration::from_millis(20);

/// The scenario clock.
pub(super) struct Clock {
    /// The map it counts on (0: the first).
    pub(super) map: u32,
    /// The server tick of scenario tick `offset` on that map, once known.
    pub(super) base: Option<i32>,
    /// The clock when that map began.
    pub(super) offset: u32,
    /// Now: the last scenario tick whose middle has passed, once the
    /// clock started.
    pub(super) now: Option<u32>,
    /// The map's tick 0 on this machine's clock.
    pub(super) zero: Option<Instant>,
    /// Snapshots that placed `zero` (none: the MAP_CHANGE or the
    /// bots' probes did).
    pub(super) samples: u32,
    /// Whether a bot's probe placed `zero` on this map.
    pub(super) probed: bool,
    /// The last scenario tick whose middle has passed on the grid.
    pub(super) middle: Option<u32>,
}

impl Clock {
    /// The scenario tick of server tick `t` on the current map.
    pub(super) fn at(&self, t: i32) -> u32 {
        let base = self.base.unwrap_or(t);
        self.offset
            .saturating_add(t.saturating_sub(base).max(0) as u32)
    }

    /// Whether scenario tick `tick` of this map is over on the grid (the
    /// next one began).
    pub(super) fn over(&self, tick: u32) -> bool {
        let (Some(zero), Some(base)) = (self.zero, self.base) else {
            return false;
        };
        let Some(server) = i64::from(tick)
            .checked_sub(i64::from(self.offset))
            .map(|d| d + i64::from(base) + 1)
            .and_then(|n| u32::try_from(n).ok())
        else {
            return false;
        };
        Instant::now() > zero + TICK * server
    }

    /// A snapshot of server tick `t` came: the clock moves to its tick if
    /// it is not there yet (once placed on this map); whether it moved.
    pub(super) fn reach(&mut self, t: i32) -> bool {
        if self.base.is_none() {
            return false;
        }
        let at = self.at(t);
        let moved = self.now.is_none_or(|n| at > n);
        if moved {
            self.now = Some(at);
        }
        moved
    }

    /// Moves the clock to the last scenario tick whose middle has passed
    /// on the grid at `now`; whether it moved.
    pub(super) fn tick(&mut self, now: Instant) -> bool {
        let (Some(zero), Some(base)) = (self.zero, self.base) else {
            return false;
        };
        let since = now.saturating_duration_since(zero).as_micros();
        let Some(half_past) = since.checked_sub(TICK.as_micros() / 2) else {
            return false;
        };
        let tick = i64::try_from(half_past / TICK.as_micros()).unwrap_or(i64::MAX);
        let Some(ahead) = tick
            .checked_sub(i64::from(base))
            .filter(|&a| a >= 0)
            .and_then(|a| u32::try_from(a).ok())
        else {
            return false;
        };
        let at = self.offset.saturating_add(ahead);
        let middle = self.middle.is_none_or(|m| at > m);
        self.middle = Some(at);
        if self.now.is_none_or(|n| at > n) {
            self.now = Some(at);
            return true;
        }
        middle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(zero: Instant) -> Clock {
        Clock {
            map: 0,
            base: Some(10),
            offset: 0,
            now: Some(5),
            zero: Some(zero),
            samples: 2,
            probed: false,
            middle: None,
        }
    }

    #[test]
    fn a_snapshot_moves_the_clock_forward_only() {
        let mut c = clock(Instant::now());
        assert!(!c.reach(14), "server tick 14 is scenario tick 4, behind 5");
        assert_eq!(c.now, Some(5));
        assert!(c.reach(17), "server tick 17 is scenario tick 7");
        assert_eq!(c.now, Some(7));
        c.base = None;
        assert!(!c.reach(30), "an unplaced clock is not moved by snapshots");
        assert_eq!(c.now, Some(7));
    }

    #[test]
    fn a_tick_is_over_once_the_next_one_began_on_the_grid() {
        // Scenario tick 5 is server tick 15, over at 16 ticks past zero.
        let c = clock(Instant::now() - TICK * 16 - Duration::from_millis(1));
        assert!(c.over(5), "tick 5 ended a millisecond ago");
        let c = clock(Instant::now() - TICK * 15 - Duration::from_millis(10));
        assert!(!c.over(5), "tick 5 is half way through");
    }
}
