//! The switches of a map, per DDRace team (`SSwitchers`,
//! `CWorldCore::m_vSwitchers` of `src/game/gamecore.h`): one for each
//! number from 0 to the switch layer's highest, each on or off in each
//! team. A door of the number closes while its switch is on; switched
//! freeze tiles freeze while it is on. Switch tiles turn them on and off
//! (`HandleTiles`), some for a time that the server's tick ends
//! (`CGameContext::OnTick`); a team that empties or is joined anew gets
//! every switch back as it was when the map loaded (`ResetSwitchers`).
//! Both releases keep them the same way.

use super::collision::tile;

/// One switch in one team.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    /// On: its doors are closed (`m_aStatus`).
    pub on: bool,
    /// The tick a timed switch turns back (`m_aEndTick`; 0 none).
    pub end_tick: i32,
    /// The switch tile that set it last (`m_aType`).
    pub kind: u8,
}

/// Every switch of a map in every team; none on a map whose switch layer
/// has no number (`InitSwitchers`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Switchers {
    /// Teams each switch has a state in (`NUM_DDRACE_TEAMS`).
    teams: usize,
    /// Each switch's state at map load and at a team's reset
    /// (`m_Initial`): on.
    initial: Vec<bool>,
    /// By number, then team.
    states: Vec<Switch>,
}

impl Switchers {
    /// Switches 0 to `highest` (none when `highest` is 0), each on in
    /// every one of `teams` teams.
    pub fn new(highest: i32, teams: usize) -> Switchers {
        let count = usize::try_from(highest).unwrap_or(0);
        let count = if count > 0 { count + 1 } else { 0 };
        let on = Switch {
            on: true,
            end_tick: 0,
            kind: 0,
        };
        Switchers {
            teams,
            initial: vec![true; count],
            states: vec![on; count * teams],
        }
    }

    /// Whether the map has switches at all.
    pub fn is_empty(&self) -> bool {
        self.initial.is_empty()
    }

    fn index(&self, number: u8, team: i32) -> Option<usize> {
        let team = usize::try_from(team).ok().filter(|&t| t < self.teams)?;
        let number = usize::from(number);
        (number < self.initial.len()).then_some(number * self.teams + team)
    }

    /// Switch `number` in `team`, if both exist.
    pub fn get(&self, number: u8, team: i32) -> Option<Switch> {
        self.index(number, team).map(|i| self.states[i])
    }

    /// Whether switch `number` is on in `team` (off when it does not
    /// exist).
    pub fn is_on(&self, number: u8, team: i32) -> bool {
        self.get(number, team).is_some_and(|s| s.on)
    }

    /// Switch `number` in `team` set to `to`.
    pub fn set(&mut self, number: u8, team: i32, to: Switch) {
        if let Some(i) = self.index(number, team) {
            self.states[i] = to;
        }
    }

    /// What switch tile `kind` of `number` and `delay` seconds does to
    /// `team` at `tick`: on or off, for good or for the delay
    /// (`HandleTiles`). False for any other kind.
    pub fn switch_tile(&mut self, kind: u8, number: u8, delay: u8, team: i32, tick: i32) -> bool {
        let timed = tick + 1 + i32::from(delay) * 50;
        let (on, end_tick) = match kind {
            tile::SWITCHOPEN => (true, 0),
            tile::SWITCHTIMEDOPEN => (true, timed),
            tile::SWITCHTIMEDCLOSE => (false, timed),
            tile::SWITCHCLOSE => (false, 0),
            _ => return false,
        };
        self.set(number, team, Switch { on, end_tick, kind });
        true
    }

    /// `switch_open NUMBER` of a map's settings (`m_Initial` false): the
    /// switch is off at every team's reset, and so from the start (a
    /// team's first member resets it before anyone of the team can meet
    /// it), but in the super team (the last), never reset. False when
    /// there is no such switch.
    pub fn open_by_default(&mut self, number: i32) -> bool {
        let Some(n) = usize::try_from(number)
            .ok()
            .filter(|&n| n < self.initial.len())
        else {
            return false;
        };
        self.initial[n] = false;
        // Not the super team's, which no reset reaches.
        let teams = self.teams.saturating_sub(1);
        for s in &mut self.states[n * self.teams..n * self.teams + teams] {
            s.on = false;
        }
        true
    }

    /// `ResetSwitchers(team)`: every switch back to its initial state.
    pub fn reset(&mut self, team: i32) {
        for number in 0..self.initial.len() {
            let on = self.initial[number];
            let to = Switch {
                on,
                end_tick: 0,
                kind: tile::SWITCHOPEN,
            };
            self.set(number as u8, team, to);
        }
    }

    /// The server's tick at `tick` (`CGameContext::OnTick`): timed
    /// switches whose time is up turn back, for good.
    pub fn expire(&mut self, tick: i32) {
        for s in &mut self.states {
            if s.end_tick > tick {
                continue;
            }
            match s.kind {
                tile::SWITCHTIMEDOPEN => {
                    *s = Switch {
                        on: false,
                        end_tick: 0,
                        kind: tile::SWITCHCLOSE,
                    }
                }
                tile::SWITCHTIMEDCLOSE => {
                    *s = Switch {
                        on: true,
                        end_tick: 0,
                        kind: tile::SWITCHOPEN,
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_without_numbers_has_no_switch_and_every_switch_starts_on() {
        let none = Switchers::new(0, 65);
        assert!(none.is_empty());
        assert!(!none.is_on(0, 0));
        let s = Switchers::new(3, 65);
        assert!(!s.is_empty());
        assert!(s.is_on(0, 0) && s.is_on(3, 64));
        assert!(!s.is_on(4, 0) && !s.is_on(1, 65) && !s.is_on(1, -1));
    }

    #[test]
    fn a_timed_switch_turns_back_at_its_end_tick_and_a_reset_restores_all() {
        let mut s = Switchers::new(2, 65);
        // Closed at tick 100 for 1 second: back on at the end of tick 151.
        assert!(s.switch_tile(tile::SWITCHTIMEDCLOSE, 2, 1, 5, 100));
        assert!(!s.is_on(2, 5) && s.is_on(2, 4));
        s.expire(150);
        assert!(!s.is_on(2, 5));
        s.expire(151);
        assert!(s.is_on(2, 5));
        assert_eq!(s.get(2, 5).map(|x| x.kind), Some(tile::SWITCHOPEN));
        // Off for good, then the team's reset.
        assert!(s.switch_tile(tile::SWITCHCLOSE, 1, 0, 5, 200));
        s.expire(10_000);
        assert!(!s.is_on(1, 5));
        s.reset(5);
        assert!(s.is_on(1, 5));
        // Other kinds are no switch tiles.
        assert!(!s.switch_tile(tile::FREEZE, 1, 0, 5, 0));
    }
}
