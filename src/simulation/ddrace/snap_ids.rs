//! The server's snapshot ids (`CSnapIdPool`): every entity takes one when
//! it is made (16.4: characters too; 20.1: a character takes two for the
//! shapes it has for clients that cannot see it), and gives it back when
//! it is deleted. A freed id waits five seconds before anybody may take it
//! again, then goes to the head of the free list: the last id to come back
//! is the first taken.
//!
//! 20.1 times the wait with the clock; a tick is 20 ms of it, so an id
//! freed at tick T is free again from tick T + 251. At T + 250 exactly it
//! is back when the server's loop woke later after the take's tick began
//! than after the free's (`time_get()` is read once a turn of
//! `CServer::Run`): scheduling no file records, half and half on fresh
//! sessions, taken as not yet. 16.4 keeps the deadline, nanoseconds since
//! the server started plus five seconds, in an `int`
//! (`CSnapIDPool::CID::m_Timeout`):
//! cut to 32 bits it is the free's time plus 0.705 s while the server has
//! run less than 1.44 s (the first 72 ticks: free again 36 ticks later),
//! and below the clock from then on, so a freed id is back at the next
//! take (its server demos reuse a bullet's id two ticks later). An id
//! still waiting holds back those freed after it. What is made between
//! two ticks (a shot an input fires) is made later than what the earlier
//! tick made: a wait that ends inside that tick is over for it.

use crate::simulation::Release;
use std::collections::VecDeque;

/// `CSnapIdPool::MAX_IDS`.
pub const MAX_IDS: i32 = 32 * 1024;

/// Ticks a freed id waits (`time_freq() * 5`).
const WAIT: i32 = 250;
/// 16.4: the last tick whose frees wait (1.44 s of the server's clock,
/// taken as starting at tick 0).
const WAIT_16_4_UNTIL: i32 = 72;

/// The pool. Never-used ids are counted, not listed: the free list is the
/// ids that came back (newest first), then `fresh` and up.
#[derive(Clone, Debug)]
pub struct SnapIds {
    /// Whose clock: 20.1's five seconds, or 16.4's cut deadline.
    release: Release,
    /// The lowest id never taken.
    fresh: i32,
    /// Ids back from their wait, the last one back on top.
    back: Vec<i32>,
    /// Freed ids waiting, with the tick they were freed, oldest first.
    waiting: VecDeque<(i32, i32)>,
    /// Takes happen between two ticks (an input fired a shot), later
    /// than the tick's own: a wait that ends inside the tick is over.
    between: bool,
}

impl SnapIds {
    /// An empty pool of `release`'s server.
    pub fn new(release: Release) -> SnapIds {
        SnapIds {
            release,
            fresh: 0,
            back: Vec::new(),
            waiting: VecDeque::new(),
            between: false,
        }
    }

    /// `NewId` at `tick`: `None` when every id is taken (DDNet's "invalid
    /// id": the entity is never snapped).
    pub fn take(&mut self, tick: i32) -> Option<i32> {
        while let Some(&(id, freed)) = self.waiting.front() {
            let wait = self.wait(freed) - i32::from(self.between);
            if i64::from(freed) + i64::from(wait) >= i64::from(tick) {
                break;
            }
            self.waiting.pop_front();
            self.back.push(id);
        }
        if let Some(id) = self.back.pop() {
            return Some(id);
        }
        (self.fresh < MAX_IDS).then(|| {
            self.fresh += 1;
            self.fresh - 1
        })
    }

    /// Ticks an id freed at tick `freed` waits past the tick after it
    /// (-1: back at once).
    fn wait(&self, freed: i32) -> i32 {
        match self.release {
            Release::Ddnet20_1 => WAIT,
            // 5 s less 2^32 ns is 0.705 s: 35.25 ticks, so taken at the
            // 36th; from 1.44 s on (2^32 + 2^31 ns less 5 s) the cut
            // deadline is negative.
            Release::Ddnet16_4 if freed <= WAIT_16_4_UNTIL => 35,
            Release::Ddnet16_4 => -1,
        }
    }

    /// Whether what comes is between two ticks (labelled with the
    /// earlier) or inside one.
    pub fn set_between_ticks(&mut self, between: bool) {
        self.between = between;
    }

    /// `FreeId` at `tick` (nothing for `None`).
    pub fn free(&mut self, id: Option<i32>, tick: i32) {
        if let Some(id) = id {
            self.waiting.push_back((id, tick));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_back_after_five_seconds_last_back_first_taken() {
        let mut ids = SnapIds::new(Release::Ddnet20_1);
        let taken: Vec<_> = (0..4).map(|_| ids.take(0)).collect();
        assert_eq!(taken, [Some(0), Some(1), Some(2), Some(3)]);
        ids.free(Some(1), 10);
        ids.free(Some(2), 10);
        assert_eq!(ids.take(260), Some(4), "waiting until after tick 260");
        // Both back at 261, 1 then 2: 2 on top.
        assert_eq!(ids.take(261), Some(2));
        assert_eq!(ids.take(261), Some(1));
        assert_eq!(ids.take(261), Some(5));
    }

    #[test]
    fn under_16_4_a_freed_id_is_back_at_once_after_the_first_72_ticks() {
        let mut ids = SnapIds::new(Release::Ddnet16_4);
        let taken: Vec<_> = (0..3).map(|_| ids.take(0)).collect();
        assert_eq!(taken, [Some(0), Some(1), Some(2)]);
        // Freed early, 0 waits 0.705 s (to tick 96), and holds back 1,
        // freed later.
        ids.free(Some(0), 60);
        ids.free(Some(1), 80);
        assert_eq!(ids.take(81), Some(3));
        assert_eq!(ids.take(96), Some(1));
        assert_eq!(ids.take(96), Some(0));
        ids.free(Some(2), 100);
        assert_eq!(ids.take(100), Some(2));
    }

    #[test]
    fn a_take_between_two_ticks_comes_after_a_wait_ending_in_the_first() {
        let mut ids = SnapIds::new(Release::Ddnet20_1);
        assert_eq!((ids.take(0), ids.take(0)), (Some(0), Some(1)));
        ids.free(Some(0), 10);
        // Inside tick 260 the five seconds are not over; after it they are.
        assert_eq!(ids.take(260), Some(2));
        ids.set_between_ticks(true);
        assert_eq!(ids.take(260), Some(0));
    }

    #[test]
    fn the_pool_runs_dry_at_max_ids() {
        let mut ids = SnapIds::new(Release::Ddnet20_1);
        for i in 0..MAX_IDS {
            assert_eq!(ids.take(0), Some(i));
        }
        assert_eq!(ids.take(0), None);
        ids.free(Some(7), 0);
        assert_eq!(ids.take(300), Some(7));
    }
}
