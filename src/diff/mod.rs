//! Comparing two recordings by meaning (`teeoracle diff`): header fields,
//! then tick by tick what happened, not bytes or offsets.
//!
//! The engine is here; each format is read as a sequence of ticks
//! ([`Ticks`]) by its adapter: [`TeehistorianTicks`], [`DemoTicks`],
//! `CaptureTicks`. Folders of recordings are paired by role in [`folder`];
//! two `check` reports compare in [`compare_check_reports`].
//!
//! Ticks are matched by (segment, number): a segment is one map (a
//! capture starts a new one at each MAP_CHANGE, where ticks restart). A
//! tick only one file has is all added or all removed. Inside a matched
//! tick the events are aligned with the `similar` crate (one inserted event
//! is one difference, not a cascade) when the tick holds at most
//! [`ALIGN_WINDOW`] events; a larger one is compared as two multisets
//! (what only one side has), never aligned. Keyed items (a demo's snapshot
//! items) are matched by key. A tick whose raw bytes are the same in both
//! files is equal without being decoded further.
//!
//! Memory is bounded whatever the files' length: only the first
//! [`Options::max_differences`] differences are kept in full, the rest are
//! counted per category; the adapters hold one tick at a time.
//!
//! Characters' positions (teehistorian PLAYER_NEW/PLAYER_DIFF, demo and
//! capture Character items) are compared at every matched tick: the first
//! one that moved differently, and how many characters and ticks are
//! affected ([`Movement`]).

mod capture;
mod demo;
pub mod folder;
mod reports;
mod teehistorian;

#[cfg(feature = "capture")]
pub use capture::CaptureTicks;
pub use demo::DemoTicks;
pub use reports::{FileChange, RolePair, compare_check_reports, role_pairs};
pub use teehistorian::TeehistorianTicks;

use crate::bytes::key_values;
use crate::codec::DecodeError;
use crate::packet::Version;
use crate::snapshot::Snapshot;
use crate::snapshot::items::SnapshotJson;
use serde::Serialize;
use serde_json::Value;
use similar::{DiffOp, capture_diff_slices};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// What a format leaves out by default: what changes on every run of the
/// same scenario on the same build (wall-clock times, random UUIDs and
/// tokens) and network timing. Each name is one `--keep` takes.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    /// Header fields (top-level names).
    pub header: &'static [&'static str],
    /// Event categories and `CATEGORY.FIELD`s, and the special names
    /// [`RCON_TIME`] and [`TOKENS`].
    pub events: &'static [&'static str],
}

/// The time prefix of a remote-console line (`2026-11-22 02:32:38 I
/// server: ...`, `[2024-01-01 12:00:00][server]: ...`): compared without
/// it, and with the UUIDs in it masked (a teehistorian file's name).
pub const RCON_TIME: &str = "RCON_LINE.time";
/// Connection tokens in control messages (0.7 TOKEN, CONNECT and ACCEPT,
/// 0.6 DDNet's CONNECT/CONNECTACCEPT security token): random per
/// connection.
pub const TOKENS: &str = "control.token";
/// Teeworlds 0.7's server never sets De_ClientLeave's client id (its
/// `OnClientDrop` fills only the name and reason), so a demo holds
/// whatever was on the stack: compared as `<unset>` when out of range
/// (-1..=63); an id in range is compared as usual.
pub const UNSET_CLIENT_ID: &str = "De_ClientLeave.client_id";
/// What DDNet's database thread decides the tick of: its console lines
/// (`sql: ...`, queued until the main thread's next log line,
/// `server_logger.cpp`) and the record messages a query's result sends a
/// player (Sv_RecordLegacy, record@netmsg.ddnet.tw: sent on the first
/// tick after the query ends). A query begun before a map change can end
/// after it, and a line flushed while the operator is between maps never
/// reaches it, so these are compared as a set of distinct lines and
/// messages over the whole file, without their tick, map and count.
pub const SQL_TICK: &str = "database_thread";
/// A recorded snapshot message's delta (SNAP, SNAPSINGLE, SNAPEMPTY:
/// `delta_tick`, `part_size`, `data`, and a SNAP's `num_parts` and
/// `part`): the server deltas against whichever snapshot the client had
/// acknowledged when it built it, which is network timing (Teeworlds
/// 0.7's server demos record these messages). Their tick and CRC (of the
/// whole snapshot) are compared.
pub const SNAP_DELTA: &str = "SNAP.delta";

/// Whether `category` is a snapshot message.
fn is_snapshot_message(category: &str) -> bool {
    ["SNAP", "SNAPSINGLE", "SNAPEMPTY"]
        .iter()
        .any(|n| names(n, category))
}

/// Teehistorian: the game's UUIDs, its start time and PRNG seed, and each
/// DDNet client's random connection UUID.
pub const TEEHISTORIAN: Defaults = Defaults {
    header: &[
        "game_uuid",
        "prev_game_uuid",
        "start_time",
        "prng_description",
    ],
    events: &["ddnetver.connection_id"],
};
/// Demos: the recording time, network timing, and remote-console time
/// prefixes (a server demo records the lines sent to an authed client).
pub const DEMO: Defaults = Defaults {
    header: &["timestamp"],
    events: &[
        "INPUTTIMING",
        "PlayerInfo.latency",
        RCON_TIME,
        UNSET_CLIENT_ID,
        SQL_TICK,
        SNAP_DELTA,
    ],
};
/// Captures: network timing, remote-console time prefixes, connection
/// tokens. (Timestamps, addresses, packet-header tokens, acks and
/// sequence numbers are never compared.)
pub const CAPTURE: Defaults = Defaults {
    header: &[],
    events: &[
        "INPUTTIMING",
        "PlayerInfo.latency",
        RCON_TIME,
        TOKENS,
        SQL_TICK,
    ],
};

impl Defaults {
    /// Every name, header first.
    pub fn names(&self) -> Vec<String> {
        self.header
            .iter()
            .chain(self.events)
            .map(|s| s.to_string())
            .collect()
    }
}

/// Equal events shown before the first difference.
const CONTEXT: usize = 3;
/// Differences kept in full by default ([`Options::max_differences`]).
pub const MAX_DIFFERENCES: usize = 1000;
/// The most events (both sides together) a tick may hold to be aligned;
/// a larger tick is compared as two multisets.
pub const ALIGN_WINDOW: usize = 1024;
/// The most characters tracked for [`Movement::characters`].
const MAX_CHARACTERS: usize = 1 << 16;

/// One thing a recording says at a tick.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// What it is: a teehistorian record kind, `message`, `fault`, or
    /// `item:TYPE` for a demo's snapshot item.
    pub category: String,
    /// A snapshot item's `TYPE:ID`; `None` for events in sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Its fields (`null` when the adapter was not asked for them: see
    /// [`Ticks::content`]).
    pub fields: Value,
    /// What identifies it instead of its fields when those were not made
    /// (a teehistorian record's bytes).
    #[serde(skip)]
    pub ident: Option<Vec<u8>>,
}

impl Event {
    /// An event in sequence with its fields.
    pub fn new(category: String, fields: Value) -> Event {
        Event {
            category,
            key: None,
            fields,
            ident: None,
        }
    }

    /// One line: the category, the key, the fields as ` key=value`.
    pub fn text(&self) -> String {
        let key = self
            .key
            .as_deref()
            .map_or(String::new(), |k| format!(" {k}"));
        format!("{}{key}{}", self.category, key_values(&self.fields, &[]))
    }
}

/// A tick's events: those in sequence, and keyed ones.
#[derive(Clone, Debug, Default)]
pub struct TickContent {
    /// Events in the order the recording has them.
    pub events: Vec<Event>,
    /// Keyed events (a demo's snapshot items) in force after the tick, by
    /// key.
    pub items: BTreeMap<String, Event>,
    /// Whether the keyed events are new at this tick (a snapshot): only
    /// then are they compared, so one difference is reported once.
    pub new_items: bool,
}

/// Characters' positions after a tick, by id (client id or item id).
pub type Positions = BTreeMap<i32, (i32, i32)>;

/// A recording read tick by tick.
pub trait Ticks {
    /// Moves to the next tick and gives its number; `None` after the last.
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError>;
    /// The current tick's segment (map): 0 unless the format has several
    /// maps in one file. Never decreases.
    fn segment(&self) -> u32 {
        0
    }
    /// The raw bytes that make the current tick: equal bytes mean equal
    /// content.
    fn raw(&self) -> &[u8];
    /// What happened at the current tick. An adapter may leave out the
    /// fields of events whose category `detail` refuses, giving their
    /// `ident` instead (bytes that are equal exactly when the fields are).
    fn content(&self, detail: &dyn Fn(&str) -> bool) -> TickContent;
    /// The keyed events in force before the current tick (compared with
    /// the other file's new ones at a tick only that file has).
    fn items_before(&self) -> BTreeMap<String, Event> {
        BTreeMap::new()
    }
    /// Characters' positions after the current tick, if the format has
    /// them.
    fn positions(&self) -> Option<&Positions> {
        None
    }
    /// What a position's id is (`cid`, `character`).
    fn character_word(&self) -> &'static str {
        "character"
    }
}

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

/// What to compare.
#[derive(Clone, Debug)]
pub struct Options {
    /// Header fields and event categories left out by the user.
    pub ignore: Vec<String>,
    /// The format's defaults in effect (left out too, and listed in the
    /// report as `ignored`): [`Defaults::names`] but those kept.
    pub defaults: Vec<String>,
    /// Only these categories (and `header` for the header), when given.
    pub only: Vec<String>,
    /// Compare tick numbers as they are, without moving the new file's
    /// to match the old one's first tick.
    pub no_align: bool,
    /// Differences kept in full; the rest are only counted.
    pub max_differences: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ignore: Vec::new(),
            defaults: Vec::new(),
            only: Vec::new(),
            no_align: false,
            max_differences: MAX_DIFFERENCES,
        }
    }
}

/// Timing a run's network decides, left out of demos and captures by
/// default: INPUTTIMING messages (how early an input arrived) and each
/// player's measured latency.
pub const TIMING_IGNORED: &[&str] = &["INPUTTIMING", "PlayerInfo.latency"];

/// Whether `name` names `category`: the whole category, its kind before
/// `:` (`item`, `message`, `s2c`) or its name after it (`PlayerInfo`,
/// `INPUTTIMING`).
fn names(name: &str, category: &str) -> bool {
    let (kind, rest) = category.split_once(':').unwrap_or((category, ""));
    name == category || name == kind || (!rest.is_empty() && name == rest)
}

impl Options {
    /// The options with `defaults`' names but `keep` (all of them unless
    /// `no_default_ignores`).
    pub fn with_defaults(mut self, defaults: Defaults, keep: &[String], none: bool) -> Self {
        self.defaults = match none {
            true => Vec::new(),
            false => defaults
                .names()
                .into_iter()
                .filter(|n| !keep.iter().any(|k| k == n))
                .collect(),
        };
        self
    }

    fn left_out(&self) -> impl Iterator<Item = &String> {
        self.ignore.iter().chain(&self.defaults)
    }

    fn wants(&self, category: &str) -> bool {
        let ignored = self.left_out().any(|n| names(n, category));
        !ignored && (self.only.is_empty() || self.only.iter().any(|n| names(n, category)))
    }

    /// Whether a field of `category` is left out (so its events need
    /// their fields to be compared).
    fn field_ignored(&self, category: &str) -> bool {
        (self.has_default(RCON_TIME) || self.has_default(SQL_TICK)) && names("RCON_LINE", category)
            || self.has_default(SQL_TICK)
                && (names("Sv_RecordLegacy", category) || names("record@netmsg.ddnet.tw", category))
            || self.has_default(UNSET_CLIENT_ID) && names("De_ClientLeave", category)
            || self.has_default(TOKENS) && category.starts_with("control:")
            || self.has_default(SNAP_DELTA) && is_snapshot_message(category)
            || self.left_out().any(|entry| {
                entry
                    .rsplit_once('.')
                    .is_some_and(|(c, _)| names(c, category))
            })
    }

    /// Whether `event` is compared without its tick ([`SQL_TICK`]).
    fn untimed(&self, event: &Event) -> bool {
        let category = event.category.as_str();
        self.has_default(SQL_TICK)
            && (names("Sv_RecordLegacy", category)
                || names("record@netmsg.ddnet.tw", category)
                || names("RCON_LINE", category)
                    && event
                        .fields
                        .pointer("/fields/line")
                        .and_then(Value::as_str)
                        .is_some_and(|line| strip_time_prefix(line).starts_with("I sql: ")))
    }

    fn has_default(&self, name: &str) -> bool {
        self.defaults.iter().any(|d| d == name)
    }

    /// `event` without the fields left out (`CATEGORY.FIELD`), a
    /// remote-console line without its time prefix, a control message
    /// without its token.
    fn strip(&self, event: &Event) -> Event {
        let mut event = event.clone();
        self.strip_in_place(&mut event);
        event
    }

    fn strip_in_place(&self, event: &mut Event) {
        if event.fields.is_null() {
            return;
        }
        for entry in self.left_out() {
            if let Some((category, field)) = entry.rsplit_once('.')
                && names(category, &event.category)
                && let Value::Object(m) = &mut event.fields
            {
                m.shift_remove(field);
            }
        }
        if self.has_default(RCON_TIME)
            && names("RCON_LINE", &event.category)
            && let Some(Value::String(line)) = event.fields.pointer_mut("/fields/line")
        {
            let rest = mask_uuids(strip_time_prefix(line));
            *line = rest;
        }
        if self.has_default(UNSET_CLIENT_ID)
            && names("De_ClientLeave", &event.category)
            && let Some(rejected) = event.fields.get("rejected")
            && rejected.get("field") == Some(&Value::from("client_id"))
            && let Value::Object(m) = &mut event.fields
        {
            m.shift_remove("rejected");
            if let Some(id) = event.fields.pointer_mut("/fields/client_id") {
                *id = Value::from("<unset>");
            }
        }
        if self.has_default(SNAP_DELTA)
            && is_snapshot_message(&event.category)
            && let Some(Value::Object(f)) = event.fields.get_mut("fields")
        {
            for delta in ["delta_tick", "part_size", "data", "num_parts", "part"] {
                f.shift_remove(delta);
            }
        }
        if self.has_default(TOKENS)
            && let Some(name) = event.category.strip_prefix("control:")
            // 0.7's ACCEPT carries the token too (0.6's client ACCEPT
            // carries nothing).
            && matches!(name, "TOKEN" | "CONNECT" | "CONNECTACCEPT" | "ACCEPT")
            && let Value::Object(m) = &mut event.fields
        {
            m.shift_remove("data");
        }
    }
}

/// `line` with each UUID (`8-4-4-4-12` hex digits) shown as `<uuid>`:
/// DDNet's console names a teehistorian file by its game's random UUID.
pub fn mask_uuids(line: &str) -> String {
    const SHAPE: [usize; 5] = [8, 4, 4, 4, 12];
    let b = line.as_bytes();
    // The length of a UUID starting at `i`, if one does.
    let uuid_at = |i: usize| {
        let mut at = i;
        for (n, len) in SHAPE.iter().enumerate() {
            let part = b.get(at..at + len)?;
            if !part.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            at += len;
            if n < 4 {
                (b.get(at) == Some(&b'-')).then_some(())?;
                at += 1;
            }
        }
        Some(at - i)
    };
    let (mut out, mut i, mut copied) = (String::new(), 0, 0);
    while i < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_hexdigit();
        match uuid_at(i).filter(|_| boundary) {
            Some(len) => {
                out.push_str(&line[copied..i]);
                out.push_str("<uuid>");
                i += len;
                copied = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&line[copied..]);
    out
}

/// `line` without a leading log time (`YYYY-MM-DD HH:MM:SS ` or
/// `[YYYY-MM-DD HH:MM:SS]` as DDNet writes it, `[HH:MM:SS]` as Teeworlds
/// 0.7 does).
pub fn strip_time_prefix(line: &str) -> &str {
    let b = line.as_bytes();
    let stamp = |s: &[u8]| {
        s.len() >= 19
            && s[..19].iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b' ',
                13 | 16 => *c == b':',
                _ => c.is_ascii_digit(),
            })
    };
    let clock = |s: &[u8]| {
        s.len() >= 8
            && s[..8].iter().enumerate().all(|(i, c)| match i {
                2 | 5 => *c == b':',
                _ => c.is_ascii_digit(),
            })
    };
    if b.first() == Some(&b'[') && stamp(&b[1..]) && b.get(20) == Some(&b']') {
        return &line[21..];
    }
    if b.first() == Some(&b'[') && clock(&b[1..]) && b.get(9) == Some(&b']') {
        return &line[10..];
    }
    if stamp(b) {
        return line[19..].strip_prefix(' ').unwrap_or(&line[19..]);
    }
    line
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
}

impl Report {
    /// Whether the recordings mean the same.
    pub fn same(&self) -> bool {
        self.header.is_empty() && self.total_differences == 0
    }

    fn count(&mut self, category: &str, change: Change) {
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

/// Reading position and context of a comparison.
struct State<'o> {
    options: &'o Options,
    report: Report,
    segment: u32,
    context: VecDeque<(i32, Event)>,
    /// Each side's distinct [`SQL_TICK`] lines and messages, with where
    /// each first was.
    untimed: [BTreeMap<String, (u32, i32, Event)>; 2],
}

impl State<'_> {
    /// Counts a difference, and keeps it (made by `make`) if there is
    /// room.
    fn push(&mut self, category: &str, change: Change, make: impl FnOnce() -> Difference) {
        self.report.count(category, change);
        if self.report.differences.len() < self.options.max_differences {
            let mut d = make();
            d.segment = self.segment;
            self.report.differences.push(d);
        }
    }
}

/// Compares two recordings' headers (`old` and `new` as JSON objects) and
/// ticks.
pub fn compare(
    old_header: &Value,
    new_header: &Value,
    old: &mut dyn Ticks,
    new: &mut dyn Ticks,
    options: &Options,
) -> Result<Report, (bool, DecodeError)> {
    let mut st = State {
        options,
        report: Report {
            ignored: options.defaults.clone(),
            ..Report::default()
        },
        segment: 0,
        context: VecDeque::new(),
        untimed: Default::default(),
    };
    if options.wants("header") {
        let mut header = Vec::new();
        field_changes("", old_header, new_header, &mut header);
        header.retain(|c| {
            let top = c.field.split('.').next().unwrap_or_default();
            !options.left_out().any(|i| i == top || i == &c.field)
        });
        if !header.is_empty() {
            st.report
                .summary
                .entry("header".into())
                .or_default()
                .changed = header.len() as u64;
        }
        st.report.header = header;
    }
    let mut a = old.next_tick().map_err(|e| (true, e))?;
    let mut b = new.next_tick().map_err(|e| (false, e))?;
    // The first segment's shift, once both files have a tick of it.
    let mut shift: Option<i32> = None;
    let mut movement = Movement::default();
    let mut tracked = false;
    let (mut seg_a, mut seg_b) = (None, None);
    loop {
        let (sa, sb) = (old.segment(), new.segment());
        if a.is_some() {
            seg_a = Some(sa);
        }
        if b.is_some() {
            seg_b = Some(sb);
        }
        // Two runs of a server start counting at different moments: the
        // new file's ticks are moved so that both first ticks (not
        // counting a demo's messages before its first marker) match.
        // Only in the first segment: ticks restart at 0 on every later
        // map, so they are comparable as they are there, and a join a
        // tick later is a difference, never a shift.
        if !options.no_align
            && sa == 0
            && sb == 0
            && shift.is_none()
            && let (Some(x), Some(y)) = (a, b)
            && x >= 0
            && y >= 0
        {
            shift = Some(y - x);
        }
        let s = if sb == 0 { shift.unwrap_or(0) } else { 0 };
        let b_aligned = b.map(|y| (sb, if y >= 0 { y - s } else { y }));
        let a_at = a.map(|x| (sa, x));
        // Which file the next tick is from: both, the old, the new.
        let (from_old, from_new, (segment, tick)) = match (a_at, b_aligned) {
            (None, None) => break,
            (Some(x), Some(y)) if x == y => (true, true, x),
            (Some(x), Some(y)) if x < y => (true, false, x),
            (Some(x), None) => (true, false, x),
            (_, Some(y)) => (false, true, y),
        };
        st.segment = segment;
        let before = st.report.total_differences;
        if !(from_old && from_new && old.raw() == new.raw()) {
            // The file without this tick still has its items in force.
            let idle = |t: &dyn Ticks| TickContent {
                items: t.items_before(),
                ..TickContent::default()
            };
            // Fields are made while differences are kept in full, and
            // where a field is left out; past that, equality is enough.
            let room = st.report.differences.len() < options.max_differences;
            let detail = |c: &str| room || options.field_ignored(c);
            let o = if from_old {
                old.content(&detail)
            } else {
                idle(old)
            };
            let n = if from_new {
                new.content(&detail)
            } else {
                idle(new)
            };
            st.context.clear();
            tick_diff(tick, o, n, &mut st);
        }
        if before == 0 {
            if st.report.total_differences == 0 {
                st.report.last_equal_tick = Some(tick);
                st.report.last_equal_segment = segment;
            } else {
                st.report.context = st.context.drain(..).collect();
            }
        }
        if from_old
            && from_new
            && let (Some(p), Some(q)) = (old.positions(), new.positions())
        {
            tracked = true;
            if p != q {
                moved(&mut movement, segment, tick, old.character_word(), p, q);
            }
        }
        if from_old {
            st.report.ticks.0 += 1;
            a = old.next_tick().map_err(|e| (true, e))?;
        }
        if from_new {
            st.report.ticks.1 += 1;
            b = new.next_tick().map_err(|e| (false, e))?;
        }
    }
    untimed_diff(&mut st);
    let mut report = st.report;
    report.segments = (seg_a.map_or(0, |s| s + 1), seg_b.map_or(0, |s| s + 1));
    report.tick_shift = shift.unwrap_or(0);
    if tracked {
        report.movement = Some(movement);
    }
    Ok(report)
}

/// Notes the characters whose positions differ between `p` and `q`.
fn moved(
    m: &mut Movement,
    segment: u32,
    tick: i32,
    word: &'static str,
    p: &Positions,
    q: &Positions,
) {
    m.ticks += 1;
    let ids: BTreeSet<&i32> = p.keys().chain(q.keys()).collect();
    for &id in ids {
        let (x, y) = (p.get(&id).copied(), q.get(&id).copied());
        if x == y {
            continue;
        }
        if m.first.is_none() {
            m.first = Some(FirstMove {
                segment,
                tick,
                word,
                id,
                old: x,
                new: y,
            });
        }
        if m.seen.len() < MAX_CHARACTERS && m.seen.insert(id) {
            m.characters += 1;
        }
    }
}

/// Keeps the last [`CONTEXT`] events seen before any difference.
fn remember(context: &mut VecDeque<(i32, Event)>, tick: i32, content: &[Event]) {
    for e in content {
        if context.len() == CONTEXT {
            context.pop_front();
        }
        context.push_back((tick, e.clone()));
    }
}

fn tick_diff(tick: i32, mut old: TickContent, mut new: TickContent, st: &mut State) {
    let options = st.options;
    let segment = st.segment;
    let mut wanted = |events: &mut Vec<Event>, side: usize| -> Vec<Event> {
        let mut out = std::mem::take(events);
        out.retain(|e| options.wants(&e.category));
        for e in &mut out {
            options.strip_in_place(e);
        }
        out.retain(|e| {
            let untimed = options.untimed(e);
            if untimed {
                st.untimed[side]
                    .entry(e.fields.to_string())
                    .or_insert_with(|| (segment, tick, e.clone()));
            }
            !untimed
        });
        out
    };
    let (a, b) = (wanted(&mut old.events, 0), wanted(&mut new.events, 1));
    // Each distinct event (category and fields, or ident) as a number.
    let text = |events: &[Event]| -> Vec<Option<String>> {
        events
            .iter()
            .map(|e| e.ident.is_none().then(|| e.fields.to_string()))
            .collect()
    };
    let (ta, tb) = (text(&a), text(&b));
    let mut seen: BTreeMap<(&str, &[u8]), u32> = BTreeMap::new();
    let mut ka = Vec::with_capacity(a.len());
    for (e, t) in a.iter().zip(&ta) {
        let bytes = t
            .as_deref()
            .map_or(e.ident.as_deref().unwrap_or_default(), str::as_bytes);
        let n = seen.len() as u32;
        ka.push(*seen.entry((e.category.as_str(), bytes)).or_insert(n));
    }
    let mut kb = Vec::with_capacity(b.len());
    for (e, t) in b.iter().zip(&tb) {
        let bytes = t
            .as_deref()
            .map_or(e.ident.as_deref().unwrap_or_default(), str::as_bytes);
        let n = seen.len() as u32;
        kb.push(*seen.entry((e.category.as_str(), bytes)).or_insert(n));
    }
    drop(seen);
    if ka.len() + kb.len() > ALIGN_WINDOW {
        multiset_diff(tick, &a, &ka, &b, &kb, st);
    } else {
        aligned_diff(tick, &a, &ka, &b, &kb, st);
    }
    // Keyed items, by key, where either file has new ones.
    if !old.new_items && !new.new_items {
        return;
    }
    let keys: BTreeSet<&String> = old.items.keys().chain(new.items.keys()).collect();
    for key in keys {
        let strip = |e: Option<&Event>| e.map(|e| options.strip(e));
        let (o, n) = (strip(old.items.get(key)), strip(new.items.get(key)));
        let (category, change) = match (&o, &n) {
            (Some(o), Some(n)) if o == n => continue,
            (Some(o), Some(_)) => (&o.category, Change::Changed),
            (Some(o), None) => (&o.category, Change::Removed),
            (None, Some(n)) => (&n.category, Change::Added),
            (None, None) => continue,
        };
        if options.wants(category) {
            let category = category.clone();
            st.push(&category, change, || match (&o, &n) {
                (Some(o), Some(n)) => changed(tick, o, n),
                (Some(o), None) => one_sided(tick, Change::Removed, o),
                (_, n) => one_sided(tick, Change::Added, n.as_ref().unwrap_or(&empty_event())),
            });
        }
    }
}

/// The [`SQL_TICK`] lines and messages only one side has, where they
/// first were.
fn untimed_diff(st: &mut State) {
    let [old, new] = std::mem::take(&mut st.untimed);
    let one_sided_first = |mine: &BTreeMap<String, (u32, i32, Event)>,
                           other: &BTreeMap<String, (u32, i32, Event)>| {
        mine.iter()
            .filter(|(k, _)| !other.contains_key(*k))
            .map(|(_, at)| at.clone())
            .collect::<Vec<_>>()
    };
    let removed = one_sided_first(&old, &new);
    let added = one_sided_first(&new, &old);
    for (change, list) in [(Change::Removed, removed), (Change::Added, added)] {
        for (segment, tick, e) in list {
            st.segment = segment;
            st.push(&e.category, change, || one_sided(tick, change, &e));
        }
    }
}

fn empty_event() -> Event {
    Event::new(String::new(), Value::Null)
}

fn aligned_diff(tick: i32, a: &[Event], ka: &[u32], b: &[Event], kb: &[u32], st: &mut State) {
    for op in capture_diff_slices(similar::Algorithm::Myers, ka, kb) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                if st.report.total_differences == 0 {
                    remember(&mut st.context, tick, &a[old_index..old_index + len]);
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                for e in &a[old_index..old_index + old_len] {
                    st.push(&e.category, Change::Removed, || {
                        one_sided(tick, Change::Removed, e)
                    });
                }
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                for e in &b[new_index..new_index + new_len] {
                    st.push(&e.category, Change::Added, || {
                        one_sided(tick, Change::Added, e)
                    });
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let (olds, news) = (
                    &a[old_index..old_index + old_len],
                    &b[new_index..new_index + new_len],
                );
                for i in 0..old_len.max(new_len) {
                    match (olds.get(i), news.get(i)) {
                        (Some(o), Some(n)) if o.category == n.category => {
                            st.push(&o.category, Change::Changed, || changed(tick, o, n));
                        }
                        (o, n) => {
                            if let Some(o) = o {
                                st.push(&o.category, Change::Removed, || {
                                    one_sided(tick, Change::Removed, o)
                                });
                            }
                            if let Some(n) = n {
                                st.push(&n.category, Change::Added, || {
                                    one_sided(tick, Change::Added, n)
                                });
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A tick too large to align: what only one side has, as removed and
/// added events (each side's order kept).
fn multiset_diff(tick: i32, a: &[Event], ka: &[u32], b: &[Event], kb: &[u32], st: &mut State) {
    st.report.unaligned_ticks += 1;
    let mut counts: BTreeMap<u32, i64> = BTreeMap::new();
    for k in kb {
        *counts.entry(*k).or_default() += 1;
    }
    // Old events the new side lacks.
    for (e, k) in a.iter().zip(ka) {
        match counts.get_mut(k) {
            Some(n) if *n > 0 => *n -= 1,
            _ => st.push(&e.category, Change::Removed, || {
                one_sided(tick, Change::Removed, e)
            }),
        }
    }
    let mut left: BTreeMap<u32, i64> = BTreeMap::new();
    for k in ka {
        *left.entry(*k).or_default() += 1;
    }
    for (e, k) in b.iter().zip(kb) {
        match left.get_mut(k) {
            Some(n) if *n > 0 => *n -= 1,
            _ => st.push(&e.category, Change::Added, || {
                one_sided(tick, Change::Added, e)
            }),
        }
    }
}

fn one_sided(tick: i32, change: Change, e: &Event) -> Difference {
    let (old, new) = match change {
        Change::Removed => (Some(e.clone()), None),
        _ => (None, Some(e.clone())),
    };
    Difference {
        segment: 0,
        tick,
        category: e.category.clone(),
        change,
        old,
        new,
        fields: Vec::new(),
    }
}

fn changed(tick: i32, old: &Event, new: &Event) -> Difference {
    let mut fields = Vec::new();
    field_changes("", &old.fields, &new.fields, &mut fields);
    Difference {
        segment: 0,
        tick,
        category: old.category.clone(),
        change: Change::Changed,
        old: Some(old.clone()),
        new: Some(new.clone()),
        fields,
    }
}

/// The leaves in which two values differ (objects by key, recursively;
/// anything else as a whole), under `path`.
fn field_changes(path: &str, old: &Value, new: &Value, out: &mut Vec<FieldChange>) {
    use crate::json_diff::{Arrays, differences};
    let _ = differences(old, new, Arrays::Whole, &mut |leaf, a, b| {
        let field = match (path, leaf) {
            ("", leaf) => leaf.to_string(),
            (path, "") => path.to_string(),
            (path, leaf) => format!("{path}.{leaf}"),
        };
        out.push(FieldChange {
            field,
            old: a.clone(),
            new: b.clone(),
        });
        std::ops::ControlFlow::Continue(())
    });
}

/// A snapshot's items as keyed events: `PREFIX TYPE:ID`, the named
/// fields (the raw ints for a type without a table).
pub(crate) fn keyed_items(
    snap: &Snapshot,
    protocol: Version,
    prefix: &str,
) -> BTreeMap<String, Event> {
    let mut items = BTreeMap::new();
    let json = SnapshotJson::new(snap, None, protocol);
    for item in &json.items {
        let view = serde_json::to_value(&item.view).unwrap_or_default();
        let named = view["fields"].as_object().is_some_and(|f| !f.is_empty());
        let fields = if named {
            view["fields"].clone()
        } else {
            serde_json::json!({ "data": item.data })
        };
        let name = &item.view.type_name;
        let key = format!("{prefix}{name}:{}", item.id);
        let event = Event {
            category: format!("item:{name}"),
            key: Some(key.clone()),
            fields,
            ident: None,
        };
        items.insert(key, event);
    }
    items
}

/// The Character item's type in each protocol, and where its x and y are.
const CHARACTER_06: i32 = 9;
const CHARACTER_07: i32 = 10;

/// Every Character item's position (`x`, `y` of its core), by item id.
pub(crate) fn character_positions(snap: &Snapshot, protocol: Version, out: &mut Positions) {
    out.clear();
    let wanted = match protocol {
        Version::V06 => CHARACTER_06,
        Version::V07 => CHARACTER_07,
    };
    for item in snap.items() {
        if item.type_id() == wanted
            && let (Some(&x), Some(&y)) = (item.data.get(1), item.data.get(2))
        {
            out.insert(item.id(), (x, y));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a run's wall clock and random tokens put in a demo's and a
    /// capture's events is compared without them by default.
    #[test]
    fn demo_rcon_times_and_07_accept_tokens_are_left_out() {
        let rcon = |line: &str| {
            Event::new(
                "message:RCON_LINE".into(),
                serde_json::json!({"system": true, "id": 11, "name": "RCON_LINE",
                    "fields": {"line": line}}),
            )
        };
        let demo = Options::default().with_defaults(DEMO, &[], false);
        let (a, b) = (
            rcon("[2026-11-22 02:32:38][server]: map dm1"),
            rcon("[2026-11-22 02:40:01][server]: map dm1"),
        );
        assert_eq!(demo.strip(&a), demo.strip(&b), "RCON_LINE in a demo");
        let capture = Options::default().with_defaults(CAPTURE, &[], false);
        let accept = |token: &str| {
            Event::new(
                "control:ACCEPT".into(),
                serde_json::json!({"direction": "s2c", "data": token}),
            )
        };
        let (a, b) = (accept("0011aabb"), accept("99887766"));
        assert_eq!(capture.strip(&a), capture.strip(&b), "0.7 ACCEPT");
        // Kept when asked.
        let kept = Options::default().with_defaults(CAPTURE, &["control.token".into()], false);
        assert_ne!(kept.strip(&a), kept.strip(&b), "--keep control.token");
    }

    /// Teeworlds 0.7.5 leaves De_ClientLeave's client id unset: an
    /// out-of-range id compares as `<unset>`, an id in range as itself.
    #[test]
    fn teeworlds_unset_leave_client_id_is_masked_only_out_of_range() {
        let leave = |id: i64| {
            let rejected = (!(-1..=63).contains(&id)).then(
                || serde_json::json!({"field": "client_id", "value": id, "min": -1, "max": 63}),
            );
            let mut fields = serde_json::json!({"system": false, "id": 23, "name": "De_ClientLeave",
                "fields": {"name": "bob", "client_id": id, "reason": ""}});
            if let Some(r) = rejected {
                fields["rejected"] = r;
            }
            Event::new("message:De_ClientLeave".into(), fields)
        };
        let demo = Options::default().with_defaults(DEMO, &[], false);
        assert_eq!(
            demo.strip(&leave(-1157140736)),
            demo.strip(&leave(1490340864))
        );
        assert_ne!(demo.strip(&leave(1)), demo.strip(&leave(2)), "in range");
        assert_ne!(demo.strip(&leave(1)), demo.strip(&leave(1490340864)));
        let kept = Options::default().with_defaults(DEMO, &[UNSET_CLIENT_ID.into()], false);
        assert_ne!(
            kept.strip(&leave(-1157140736)),
            kept.strip(&leave(1490340864)),
            "--keep {UNSET_CLIENT_ID}"
        );
    }

    /// A snapshot message recorded in a demo compares by its tick and
    /// CRC, not by the base its delta was made against.
    #[test]
    fn a_recorded_snapshot_message_compares_without_its_delta() {
        let snap = |delta_tick: i64, data: &str| {
            Event::new(
                "message:SNAPSINGLE".into(),
                serde_json::json!({"system": true, "id": 8, "name": "SNAPSINGLE",
                    "fields": {"tick": 317, "delta_tick": delta_tick, "crc": 39445,
                        "part_size": data.len() / 2, "data": data}}),
            )
        };
        let (a, b) = (snap(2, "0001000a0007"), snap(1, "0001000a000105"));
        let demo = Options::default().with_defaults(DEMO, &[], false);
        assert_eq!(
            demo.strip(&a),
            demo.strip(&b),
            "the same snapshot, other bases"
        );
        let mut other_crc = snap(1, "0001000a000105");
        other_crc.fields["fields"]["crc"] = 1.into();
        assert_ne!(demo.strip(&b), demo.strip(&other_crc), "another snapshot");
        let kept = Options::default().with_defaults(DEMO, &[SNAP_DELTA.into()], false);
        assert_ne!(kept.strip(&a), kept.strip(&b), "--keep {SNAP_DELTA}");
    }

    /// A recording held in memory: events per tick, one segment.
    struct Listed {
        ticks: Vec<(i32, Vec<Event>)>,
        at: usize,
        raw: Vec<u8>,
    }

    impl Listed {
        fn new(ticks: Vec<(i32, Vec<Event>)>) -> Listed {
            Listed {
                ticks,
                at: 0,
                raw: Vec::new(),
            }
        }
    }

    impl Ticks for Listed {
        fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
            let Some((tick, events)) = self.ticks.get(self.at) else {
                return Ok(None);
            };
            self.raw = events
                .iter()
                .flat_map(|e| e.fields.to_string().into_bytes())
                .collect();
            self.at += 1;
            Ok(Some(*tick))
        }
        fn raw(&self) -> &[u8] {
            &self.raw
        }
        fn content(&self, _detail: &dyn Fn(&str) -> bool) -> TickContent {
            TickContent {
                events: self.ticks[self.at - 1].1.clone(),
                ..TickContent::default()
            }
        }
    }

    /// DDNet's database thread decides when (and whether) its lines
    /// reach the operator: they are compared as a set over the file; a
    /// line only one run has is still a difference.
    #[test]
    fn database_thread_lines_compare_as_a_set_over_the_file() {
        let line = |text: &str| {
            Event::new(
                "s2c:RCON_LINE".into(),
                serde_json::json!({"client": 0, "system": true, "id": 11,
                    "fields": {"line": text}}),
            )
        };
        let done = || line("I sql: load best time done on read database 0");
        let chat = || line("I chat: hello");
        let run = |ticks: Vec<(i32, Vec<Event>)>, keep: &[String]| {
            let old = vec![(10, vec![chat(), done()]), (11, vec![]), (12, vec![done()])];
            let options = Options::default().with_defaults(CAPTURE, keep, false);
            let (mut a, mut b) = (Listed::new(old), Listed::new(ticks));
            compare(&Value::Null, &Value::Null, &mut a, &mut b, &options)
                .unwrap()
                .total_differences
        };
        // Moved a tick, once instead of twice: the same.
        assert_eq!(
            run(
                vec![(10, vec![chat()]), (11, vec![done()]), (12, vec![])],
                &[]
            ),
            0
        );
        // A line the other run never had.
        let failed = line("I sql: load best time failed on all databases");
        assert_eq!(
            run(
                vec![(10, vec![chat(), failed]), (11, vec![]), (12, vec![])],
                &[]
            ),
            2
        );
        // Any other line keeps its tick.
        assert_eq!(
            run(
                vec![(10, vec![done()]), (11, vec![chat()]), (12, vec![done()])],
                &[]
            ),
            2
        );
        // Kept when asked.
        let kept = run(
            vec![(10, vec![chat()]), (11, vec![done()]), (12, vec![])],
            &[SQL_TICK.into()],
        );
        assert!(kept > 0, "--keep {SQL_TICK}");
    }

    #[test]
    fn uuids_in_console_lines_are_masked() {
        assert_eq!(
            mask_uuids(
                "I teehistorian: recording to \
                 'teehistorian/1aa06bd5-6933-4e3a-9a9b-737018f87dd5.teehistorian'"
            ),
            "I teehistorian: recording to 'teehistorian/<uuid>.teehistorian'"
        );
        // Not a UUID: too short a part, a longer hex run, no dashes.
        for line in [
            "1aa06bd5-6933-4e3a-9a9b-737018f87dd",
            "01aa06bd5-6933-4e3a-9a9b-737018f87dd5x",
            "1aa06bd569334e3a9a9b737018f87dd5",
            "é 1aa06bd5",
        ] {
            assert_eq!(mask_uuids(line), line, "{line}");
        }
    }

    #[test]
    fn time_prefixes_are_stripped() {
        assert_eq!(
            strip_time_prefix("2026-11-22 02:32:38 I server: ClientId=0 authed"),
            "I server: ClientId=0 authed"
        );
        assert_eq!(
            strip_time_prefix("[2024-01-01 12:00:00][server]: hi"),
            "[server]: hi"
        );
        assert_eq!(
            strip_time_prefix("Wrong password 1/30."),
            "Wrong password 1/30."
        );
        assert_eq!(
            strip_time_prefix("[14:02:11][server]: player has entered"),
            "[server]: player has entered"
        );
        assert_eq!(strip_time_prefix("[14:02][x]"), "[14:02][x]");
        assert_eq!(strip_time_prefix("2026-11-22"), "2026-11-22");
        assert_eq!(strip_time_prefix("é"), "é");
    }

    #[test]
    fn character_types_are_the_tables_character() {
        use crate::snapshot::items::view;
        for (protocol, t) in [(Version::V06, CHARACTER_06), (Version::V07, CHARACTER_07)] {
            let data = [0i32; 22];
            let snap = Snapshot::from_items([((t << 16) | 3, &data[..])]);
            let v = view(&snap, &snap.item(0), protocol);
            assert_eq!(v.type_name, "Character", "{protocol:?} type {t}");
        }
    }
}
