//! A remote console command that changes the map, and how long the bots
//! wait for the map it asks for.

/// How many scenario ticks (5 s) the bots wait for MAP_CHANGE after a
/// remote console command that changes the map; no input goes out
/// meanwhile. DDNet loads the next map at the end of the tick that ran
/// the command, in well under a second even for a large map on a loaded
/// machine; a map change that has not come by then is not coming (a
/// command that changed nothing, a server that hangs on the map).
pub const MAP_CHANGE_WITHIN: u32 = 250;

/// Whether a remote console command changes (or reloads) the map. A
/// bare `sv_map` only prints the setting.
pub fn changes_map(command: &str) -> bool {
    let mut words = command.split_whitespace();
    match words.next().unwrap_or("") {
        "change_map" | "reload" => true,
        "sv_map" => words.next().is_some(),
        _ => false,
    }
}

/// A remote console command that changes the map, and the scenario tick
/// it was sent on: until its MAP_CHANGE comes, the bots send no input.
pub struct MapCommand {
    pub command: String,
    pub tick: u32,
}

impl MapCommand {
    /// Whether its MAP_CHANGE is overdue, the clock's middle at `middle`
    /// ([`MAP_CHANGE_WITHIN`] ticks after the command, or later).
    pub fn overdue(&self, middle: Option<u32>) -> bool {
        middle.is_some_and(|m| m >= self.tick.saturating_add(MAP_CHANGE_WITHIN))
    }
}

#[cfg(test)]
mod tests {
    use super::super::clock::{Clock, TICK};
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_map_change_that_does_not_come_is_overdue_after_the_bound() {
        // The clock on the first map's grid, driven by a fake now: three
        // quarters into tick `ticks` of the grid.
        let zero = Instant::now();
        let clock_at = |ticks: u32| {
            let mut c = Clock {
                map: 0,
                base: Some(0),
                offset: 0,
                now: None,
                zero: Some(zero),
                samples: 2,
                probed: false,
                middle: None,
            };
            c.tick(zero + TICK * ticks + TICK * 3 / 4);
            c.middle
        };
        let command = MapCommand {
            command: "sv_map dm1".into(),
            tick: 100,
        };
        let just_before = clock_at(100 + MAP_CHANGE_WITHIN - 1);
        assert_eq!(just_before, Some(349), "the fake clock is not at tick 349");
        assert!(
            !command.overdue(just_before),
            "overdue at tick 349, {MAP_CHANGE_WITHIN} ticks after 100 is 350"
        );
        let at_bound = clock_at(100 + MAP_CHANGE_WITHIN);
        assert!(
            command.overdue(at_bound),
            "not overdue at {at_bound:?}, {MAP_CHANGE_WITHIN} ticks after the command at 100"
        );
        assert!(!command.overdue(None), "overdue before the clock started");
    }

    #[test]
    fn a_command_changes_the_map_only_if_it_names_one_or_reloads() {
        for (command, expected) in [
            ("change_map \"Gold Mine\"", true),
            ("sv_map dm1", true),
            ("reload", true),
            ("sv_map", false),
            ("tune gravity 0.6", false),
            ("say change_map", false),
        ] {
            assert_eq!(
                changes_map(command),
                expected,
                "{command:?}: changes the map is {expected}"
            );
        }
    }
}
