//! A player's race events, and where two players' lists part.

use crate::bytes::Text;
use serde::Serialize;

/// Something that happened to a player at a tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RaceEvent {
    /// The tick, in its own file's numbering.
    pub tick: i32,
    /// What.
    #[serde(flatten)]
    pub what: What,
}

/// What happened: the kinds in the order they sort within a tick.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum What {
    /// The client joined (JOIN).
    Join,
    /// Its character ended (the file's PLAYER_OLD; the model's character
    /// gone).
    Death,
    /// A character appeared (the file's PLAYER_NEW; the model's character
    /// new).
    Spawn,
    /// The client asked to die (`Cl_Kill`).
    Kill,
    /// The client ran a console command (chat commands such as `/team`,
    /// `/save`, `/kill`, `/spec`; rcon).
    Command {
        /// The command.
        cmd: Text<'static>,
        /// Its arguments.
        args: Vec<Text<'static>>,
    },
    /// Its DDRace team changed (PLAYER_TEAM).
    Team {
        /// The new team.
        team: i32,
    },
    /// Its team's save or load was answered (SAVE_SUCCESS, SAVE_FAILURE,
    /// LOAD_SUCCESS, LOAD_FAILURE): an event of every member. The save
    /// string is not compared: DDNet 20.1's holds the game's UUID
    /// (`save.cpp`, `m_aGameUuid`), which every server draws anew.
    Save {
        /// `save`, `save_failed`, `load` or `load_failed`.
        how: SaveHow,
        /// The team.
        team: i32,
    },
    /// It finished the race (PLAYER_FINISH, or as the model has it).
    Finish {
        /// The race time in ticks.
        time: i32,
    },
    /// The client left (DROP).
    Leave,
}

/// Which answer a save or load got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SaveHow {
    /// SAVE_SUCCESS.
    Save,
    /// SAVE_FAILURE.
    SaveFailed,
    /// LOAD_SUCCESS.
    Load,
    /// LOAD_FAILURE.
    LoadFailed,
}

impl What {
    /// The kind's word, as JSON has it.
    pub fn kind(&self) -> &'static str {
        match self {
            What::Join => "join",
            What::Death => "death",
            What::Spawn => "spawn",
            What::Kill => "kill",
            What::Command { .. } => "command",
            What::Team { .. } => "team",
            What::Save { .. } => "save",
            What::Finish { .. } => "finish",
            What::Leave => "leave",
        }
    }
}

impl std::fmt::Display for RaceEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at tick {}", self.what, self.tick)
    }
}

impl std::fmt::Display for What {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Command { cmd, args } => {
                write!(f, "command {cmd}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                Ok(())
            }
            What::Team { team } => write!(f, "team {team}"),
            What::Save { how, team } => {
                let how = match how {
                    SaveHow::Save => "save",
                    SaveHow::SaveFailed => "save failed",
                    SaveHow::Load => "load",
                    SaveHow::LoadFailed => "load failed",
                };
                write!(f, "{how} (team {team})")
            }
            What::Finish { time } => write!(f, "finish in {}", race_time(*time)),
            w => f.write_str(w.kind()),
        }
    }
}

/// A race time in ticks as DDNet's chat says it (`m:ss.cc`, 50 ticks a
/// second), with the ticks.
pub fn race_time(ticks: i32) -> String {
    let cs = i64::from(ticks) * 2;
    let sign = if cs < 0 { "-" } else { "" };
    let cs = cs.abs();
    format!(
        "{sign}{}:{:02}.{:02} ({ticks} ticks)",
        cs / 6000,
        cs / 100 % 60,
        cs % 100
    )
}

/// Puts a player's events in their canonical order: by tick, then kind
/// (the order records of one tick come in is the writer's, not the
/// game's); events of one kind keep their order.
pub fn sort(events: &mut [RaceEvent]) {
    events.sort_by_key(|e| (e.tick, kind_rank(&e.what)));
}

fn kind_rank(w: &What) -> u8 {
    match w {
        What::Join => 0,
        What::Death => 1,
        What::Spawn => 2,
        What::Kill => 3,
        What::Command { .. } => 4,
        What::Team { .. } => 5,
        What::Save { .. } => 6,
        What::Finish { .. } => 7,
        What::Leave => 8,
    }
}

/// Where two players' event lists part: the first event of either that
/// the other does not have at the same place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventDifference {
    /// The tick, in the original's numbering (the earlier of the two
    /// events).
    pub tick: i32,
    /// The original's event there (`null`: its list ended).
    pub original: Option<RaceEvent>,
    /// The other's event there (its own tick numbering; `null`: its list
    /// ended).
    pub other: Option<RaceEvent>,
}

/// The first place two lists of events differ; `offset` maps an original
/// tick to the other's (`other = original + offset`).
pub fn first_difference(
    original: &[&RaceEvent],
    other: &[&RaceEvent],
    offset: i64,
) -> Option<EventDifference> {
    let aligned = |e: &RaceEvent| i64::from(e.tick) - offset;
    let n = original.len().max(other.len());
    (0..n).find_map(|i| {
        let (a, b) = (original.get(i), other.get(i));
        let same = match (a, b) {
            (Some(a), Some(b)) => i64::from(a.tick) == aligned(b) && a.what == b.what,
            _ => false,
        };
        if same {
            return None;
        }
        let tick = match (a, b) {
            (Some(a), Some(b)) => i64::from(a.tick).min(aligned(b)),
            (Some(a), None) => i64::from(a.tick),
            (None, Some(b)) => aligned(b),
            (None, None) => unreachable!("i < the longer list's length"),
        };
        Some(EventDifference {
            tick: clamp(tick),
            original: a.map(|e| (*e).clone()),
            other: b.map(|e| (*e).clone()),
        })
    })
}

/// An aligned tick back into DDNet's `int` (an offset can push one out).
pub fn clamp(tick: i64) -> i32 {
    tick.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(tick: i32, what: What) -> RaceEvent {
        RaceEvent { tick, what }
    }

    #[test]
    fn lists_part_at_the_first_event_not_shared_in_aligned_ticks() {
        let a = [ev(10, What::Join), ev(12, What::Spawn), ev(90, What::Death)];
        let b = [
            ev(110, What::Join),
            ev(112, What::Spawn),
            ev(191, What::Death),
        ];
        let (a, b): (Vec<_>, Vec<_>) = (a.iter().collect(), b.iter().collect());
        assert_eq!(first_difference(&a, &b[..2], 100).map(|d| d.tick), Some(90));
        let d = first_difference(&a, &b, 100).unwrap();
        assert_eq!(
            (d.tick, d.original.unwrap().tick, d.other.unwrap().tick),
            (90, 90, 191)
        );
        assert_eq!(first_difference(&a[..2], &b[..2], 100), None);
    }

    #[test]
    fn race_times_read_as_ddnet_prints_them() {
        assert_eq!(race_time(51048), "17:00.96 (51048 ticks)");
        assert_eq!(race_time(15), "0:00.30 (15 ticks)");
    }
}
