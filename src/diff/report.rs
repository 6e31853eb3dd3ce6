//! What `diff` says: the differences of two recordings, counted per
//! category, and how differently their characters moved.

use super::{Event, Positions};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The most characters tracked for [`Movement::characters`].
const MAX_CHARACTERS: usize = 1 << 16;

/// How an event differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Only the new file has it.
    Added,
    /// Only the old file has it.
    Removed,
    /// Both have it, with other fields.
    Changed,
}

/// A field that changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    /// Its path (`x`, `fields.message`).
    pub field: String,
    /// The old value (`null`: absent).
    pub old: Value,
    /// The new value (`null`: absent).
    pub new: Value,
}

/// One difference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// The segment (map) of the tick: 0 for the first.
    pub segment: u32,
    /// The tick.
    pub tick: i32,
    /// The event's category.
    pub category: String,
    /// Added, removed or changed.
    pub change: Change,
    /// The old event.
    pub old: Option<Event>,
    /// The new event.
    pub new: Option<Event>,
    /// For a change: the fields that differ.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// Differences of one category.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Events only the new file has.
    pub added: u64,
    /// Events only the old file has.
    pub removed: u64,
    /// Events both have, changed.
    pub changed: u64,
}

/// The first character that moved differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FirstMove {
    /// Its segment.
    pub segment: u32,
    /// The tick.
    pub tick: i32,
    /// What its id is (`cid`, `character`).
    pub word: &'static str,
    /// The id.
    pub id: i32,
    /// Its position in the old file (`null`: not there).
    pub old: Option<(i32, i32)>,
    /// Its position in the new file.
    pub new: Option<(i32, i32)>,
}

/// How differently characters moved, at ticks both files have.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Movement {
    /// The first difference of a position.
    pub first: Option<FirstMove>,
    /// Characters whose position differed at any tick.
    pub characters: u64,
    /// Ticks at which any position differed.
    pub ticks: u64,
    #[serde(skip)]
    seen: BTreeSet<i32>,
}

/// The comparison of two recordings.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// What was left out by default (`--keep NAME` brings one back).
    pub ignored: Vec<String>,
    /// Header fields that differ (`category` `header`).
    pub header: Vec<FieldChange>,
    /// The first differences (at most `max_differences`), in tick order.
    pub differences: Vec<Difference>,
    /// How many differences there are in all (`differences` holds the
    /// first ones).
    pub total_differences: u64,
    /// Counts per category (`header` included).
    pub summary: BTreeMap<String, Counts>,
    /// Ticks whose events were too many to align (compared as multisets).
    pub unaligned_ticks: u64,
    /// Characters' positions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movement: Option<Movement>,
    /// The equal events just before the first difference in its tick
    /// (tick, event).
    pub context: Vec<(i32, Event)>,
    /// The last tick both files have alike before the first difference
    /// (segment, tick).
    pub last_equal_tick: Option<i32>,
    /// Its segment.
    pub last_equal_segment: u32,
    /// Ticks read from each file.
    pub ticks: (u64, u64),
    /// Segments (maps) read from each file.
    pub segments: (u32, u32),
    /// How many ticks later the new file's first tick is than the old
    /// one's: its first segment's ticks are moved back by this much to
    /// be compared (0 with `no_align`). Differences name ticks by the old file's count.
    pub tick_shift: i32,
    /// How the ticks were lined up: `first_tick` (the new file's moved by
    /// `tick_shift`), `session` (two demos of one session: the session's
    /// own ticks, as they are) or `none` (`--no-align`).
    pub aligned_by: &'static str,
    /// With `session`: what says the two are of one session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Snapshot items were compared only at ticks where both files have
    /// a snapshot (`--common-snapshots`).
    pub common_snapshots: bool,
    /// With `common_snapshots`: each file's event items (old, new) taken
    /// from snapshots the other file has not and compared in its next
    /// common snapshot, where DDNet's event buffer would have sent them.
    pub carried_events: [u64; 2],
}

impl Report {
    /// Whether the recordings mean the same.
    pub fn same(&self) -> bool {
        self.header.is_empty() && self.total_differences == 0
    }

    pub(super) fn count(&mut self, category: &str, change: Change) {
        self.total_differences += 1;
        let counts = match self.summary.get_mut(category) {
            Some(c) => c,
            None => self.summary.entry(category.to_string()).or_default(),
        };
        match change {
            Change::Added => counts.added += 1,
            Change::Removed => counts.removed += 1,
            Change::Changed => counts.changed += 1,
        }
    }
}

impl Movement {
    /// Notes the characters whose positions differ between `p` and `q`.
    pub(super) fn note(
        &mut self,
        segment: u32,
        tick: i32,
        word: &'static str,
        p: &Positions,
        q: &Positions,
    ) {
        self.ticks += 1;
        let ids: BTreeSet<&i32> = p.keys().chain(q.keys()).collect();
        for &id in ids {
            let (x, y) = (p.get(&id).copied(), q.get(&id).copied());
            if x == y {
                continue;
            }
            if self.first.is_none() {
                self.first = Some(FirstMove {
                    segment,
                    tick,
                    word,
                    id,
                    old: x,
                    new: y,
                });
            }
            if self.seen.len() < MAX_CHARACTERS && self.seen.insert(id) {
                self.characters += 1;
            }
        }
    }
}
