//! Comparing two recordings by meaning (`teeoracle diff`): header fields,
//! then tick by tick what happened, not bytes or offsets.
//!
//! The engine is here; each format is read as a sequence of ticks
//! ([`Ticks`]) by its adapter: [`TeehistorianTicks`], [`DemoTicks`],
//! `CaptureTicks` (the demo and capture ones share `snapshots.rs`),
//! `SimulatedTicks` (a teehistorian file's simulated world), and
//! [`MapTicks`] (a map: its items, then its tiles row by row). What
//! is compared ([`Options`], each format's [`Defaults`]) is in
//! `options.rs`, what the engine says ([`Report`]) in `report.rs`.
//! Folders of recordings are paired by role in [`folder`]; two `check`
//! reports compare in [`compare_check_reports`] (`check_reports.rs`).
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
mod check_reports;
mod demo;
pub mod folder;
mod map;
mod options;
pub mod players;
mod report;
mod simulated;
mod snapshots;
mod teehistorian;

#[cfg(feature = "capture")]
pub use capture::CaptureTicks;
pub use check_reports::{FileChange, RolePair, check_document, compare_check_reports, role_pairs};
pub use demo::{DemoCharacter, DemoPaths, DemoTicks, demo_paths};
pub use map::MapTicks;
pub use options::{
    CAPTURE, DEMO, Defaults, MAP, MAX_DIFFERENCES, Options, RCON_TIME, RECEIVED_INPUT, SIMULATED,
    SNAP_DELTA, SNAPSHOT_IDS, SQL_TICK, TEEHISTORIAN, TIMING_IGNORED, TOKENS, UNSET_CLIENT_ID,
    mask_uuids, strip_time_prefix,
};
pub use report::{Change, Counts, Difference, FieldChange, FirstMove, Movement, Report};
pub use simulated::SimulatedTicks;
pub use teehistorian::TeehistorianTicks;

use crate::bytes::key_values;
use crate::codec::DecodeError;
use options::{away_on_one_side, from_the_id_pool, mask_away_eyes};
use serde::Serialize;
use serde_json::Value;
use similar::{DiffOp, capture_diff_slices};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Equal events shown before the first difference.
const CONTEXT: usize = 3;
/// The most events (both sides together) a tick may hold to be aligned;
/// a larger tick is compared as two multisets.
pub const ALIGN_WINDOW: usize = 1024;

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
    /// A demo's tick marker with no snapshot after it: the recorder took
    /// a snapshot equal to the one before (DDNet's writes no empty delta),
    /// so the server emptied its event buffer there too; its items and
    /// `snapshot_events` are that snapshot's.
    pub same_snapshot: bool,
    /// A demo's snapshot: the keys of its event items and their sizes in
    /// bytes, in the order of the server's event buffer (see
    /// [`carry_unshared_events`]).
    pub snapshot_events: Vec<(String, usize)>,
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

/// Reading position and context of a comparison.
struct State<'o> {
    options: &'o Options,
    report: Report,
    segment: u32,
    context: VecDeque<(i32, Event)>,
    /// Each side's distinct [`SQL_TICK`] lines and messages, with where
    /// each first was.
    untimed: [BTreeMap<String, (u32, i32, Event)>; 2],
    /// Each side's event items, with their sizes, of snapshots the other
    /// side did not take (see [`carry_unshared_events`]).
    carried: [Vec<(Event, usize)>; 2],
    /// Whether both sides have had a tick in this segment: only after
    /// that is a snapshot one side lacks a snapshot its server did not
    /// take, not one its recorder had not begun.
    both_recording: bool,
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
        carried: Default::default(),
        both_recording: false,
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
            && options.same_session.is_none()
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
        if st.segment != segment {
            // A new map is a new game context, with an empty event buffer.
            st.carried = Default::default();
            st.both_recording = false;
        }
        st.segment = segment;
        let before = st.report.total_differences;
        st.both_recording |= from_old && from_new;
        // Equal bytes are equal content, unless events are carried.
        let carrying = st.carried.iter().any(|c| !c.is_empty());
        if !(from_old && from_new && !carrying && old.raw() == new.raw()) {
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
                movement.note(segment, tick, old.character_word(), p, q);
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
    report.aligned_by = match (options.no_align, &options.same_session) {
        (true, _) => "none",
        (false, Some(_)) => "session",
        (false, None) => "first_tick",
    };
    report.session = options.same_session.clone().filter(|_| !options.no_align);
    report.common_snapshots = options.common_snapshots;
    if tracked {
        report.movement = Some(movement);
    }
    Ok(report)
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
    if options.common_snapshots {
        carry_unshared_events(&mut old, &mut new, st);
    }
    // Keyed items, by key, where either file has new ones (both, with
    // `common_snapshots`).
    let snapshots = match options.common_snapshots {
        true => old.new_items && new.new_items,
        false => old.new_items || new.new_items,
    };
    if !snapshots {
        return;
    }
    let away_eyes = match options.leaves_out(RECEIVED_INPUT) {
        true => away_on_one_side(&old.items, &new.items),
        false => BTreeSet::new(),
    };
    let keys: BTreeSet<&String> = old.items.keys().chain(new.items.keys()).collect();
    let mut unequal: Vec<(Option<Event>, Option<Event>)> = keys
        .into_iter()
        .filter_map(|key| {
            let strip = |e: Option<&Event>| {
                e.map(|e| {
                    let mut e = options.strip(e);
                    if away_eyes.contains(key) {
                        mask_away_eyes(&mut e);
                    }
                    e
                })
            };
            let (o, n) = (strip(old.items.get(key)), strip(new.items.get(key)));
            (o != n).then_some((o, n))
        })
        .collect();
    if options.leaves_out(SNAPSHOT_IDS) {
        same_items_under_other_ids(&mut unequal);
    }
    for (o, n) in unequal {
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

/// DDNet's event buffer (`CEventHandler`): at most 128 events and 8 KiB.
const MAX_EVENTS: usize = 128;
const MAX_EVENT_BYTES: usize = 128 * 64;

/// With `common_snapshots`: DDNet empties its event buffer only when it
/// takes a snapshot (`CGameContext::OnPostSnap`), so a server that runs
/// late ticks several times and snapshots once sends their events in
/// that one snapshot. The event items of a snapshot only one file took,
/// after a tick both files have, are carried into that file's next
/// snapshot both took (one equal to the snapshot before counts: see
/// [`TickContent::same_snapshot`]), before its own, numbered again in order (event `i` is snapped
/// under id `i`) and kept only while the buffer has room
/// (`CEventHandler::Create`).
fn carry_unshared_events(old: &mut TickContent, new: &mut TickContent, st: &mut State) {
    let took = |c: &TickContent| c.new_items || c.same_snapshot;
    let both = took(old) && took(new);
    for (side, content) in [old, new].into_iter().enumerate() {
        if !took(content) || !st.both_recording {
            continue;
        }
        let own = content
            .snapshot_events
            .iter()
            .filter_map(|(key, size)| Some((content.items.get(key)?.clone(), *size)));
        if !both {
            st.carried[side].extend(own);
            continue;
        }
        let carried = std::mem::take(&mut st.carried[side]);
        if carried.is_empty() {
            continue;
        }
        st.report.carried_events[side] += carried.len() as u64;
        let own: Vec<(Event, usize)> = own.collect();
        for (e, _) in &own {
            content.items.remove(e.key.as_deref().unwrap_or_default());
        }
        let (mut count, mut bytes) = (0, 0);
        for (mut e, size) in carried.into_iter().chain(own) {
            if count == MAX_EVENTS || bytes + size >= MAX_EVENT_BYTES {
                continue;
            }
            let key = e.key.as_deref().unwrap_or_default();
            let key = format!("{}:{count}", key.rsplit_once(':').map_or(key, |(t, _)| t));
            e.key = Some(key.clone());
            content.items.insert(key, e);
            (count, bytes) = (count + 1, bytes + size);
        }
        // The events carried make it a snapshot of its own.
        content.new_items = true;
    }
}

/// Takes out of a tick's unequal items ([`SNAPSHOT_IDS`]) those of the
/// snapshot id pool's types that one side has under one id and the other
/// under another, every field equal: in key order, each old item pairs
/// with the first new one of the same content.
fn same_items_under_other_ids(unequal: &mut [(Option<Event>, Option<Event>)]) {
    let content = |e: &Event| (e.category.clone(), e.fields.to_string());
    let mut olds: BTreeMap<(String, String), VecDeque<usize>> = BTreeMap::new();
    for (i, (o, _)) in unequal.iter().enumerate() {
        if let Some(o) = o.as_ref().filter(|o| from_the_id_pool(&o.category)) {
            olds.entry(content(o)).or_default().push_back(i);
        }
    }
    for j in 0..unequal.len() {
        let Some(n) = unequal[j]
            .1
            .as_ref()
            .filter(|n| from_the_id_pool(&n.category))
        else {
            continue;
        };
        if let Some(i) = olds.get_mut(&content(n)).and_then(VecDeque::pop_front) {
            unequal[i].0 = None;
            unequal[j].1 = None;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A recording held in memory: events per tick, and each tick's
    /// segment (map).
    struct Listed {
        ticks: Vec<(i32, Vec<Event>)>,
        segments: Vec<u32>,
        at: usize,
        raw: Vec<u8>,
    }

    impl Listed {
        /// One segment.
        fn new(ticks: Vec<(i32, Vec<Event>)>) -> Listed {
            Listed::maps(ticks.into_iter().map(|(t, e)| (0, t, e)).collect())
        }

        /// Ticks of several segments: (segment, tick, events).
        fn maps(ticks: Vec<(u32, i32, Vec<Event>)>) -> Listed {
            Listed {
                segments: ticks.iter().map(|t| t.0).collect(),
                ticks: ticks.into_iter().map(|(_, t, e)| (t, e)).collect(),
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
        fn segment(&self) -> u32 {
            self.segments[self.at.saturating_sub(1)]
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

    /// A demo in memory: at each tick, a snapshot's items as
    /// `(TYPE:ID, fields)`; DamageInd and SoundWorld are its events.
    struct Snapped {
        ticks: Vec<(i32, Vec<(String, Value)>)>,
        at: usize,
        raw: Vec<u8>,
    }

    impl Snapped {
        fn new(ticks: Vec<(i32, Vec<(String, Value)>)>) -> Snapped {
            Snapped {
                ticks,
                at: 0,
                raw: Vec::new(),
            }
        }
    }

    impl Ticks for Snapped {
        fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
            self.at += 1;
            let tick = self.ticks.get(self.at - 1);
            self.raw = format!("{:?}", tick.map(|t| &t.1)).into_bytes();
            Ok(tick.map(|t| t.0))
        }
        fn raw(&self) -> &[u8] {
            &self.raw
        }
        fn content(&self, _detail: &dyn Fn(&str) -> bool) -> TickContent {
            // A tick marker without a delta (`SAME`): the snapshot before,
            // taken again.
            let same = |i: usize| self.ticks[i].1.iter().any(|(key, _)| key == SAME);
            let at = (0..self.at).rev().find(|&i| !same(i)).unwrap_or_default();
            let mut content = TickContent {
                new_items: at == self.at - 1,
                same_snapshot: at != self.at - 1,
                ..TickContent::default()
            };
            for (key, fields) in &self.ticks[at].1 {
                let category = format!("item:{}", key.split(':').next().unwrap_or_default());
                if ["item:DamageInd", "item:SoundWorld"].contains(&category.as_str()) {
                    content.snapshot_events.push((key.clone(), 12));
                }
                let mut e = Event::new(category, fields.clone());
                e.key = Some(key.clone());
                content.items.insert(key.clone(), e);
            }
            content
        }
    }

    /// The key of a [`Snapped`] tick that repeats the snapshot before.
    const SAME: &str = "same";

    /// Events `(TYPE, x)` numbered in order, as DDNet snaps its buffer.
    fn events(list: &[(&str, i64)]) -> Vec<(String, Value)> {
        (list.iter().enumerate())
            .map(|(i, (t, x))| (format!("{t}:{i}"), serde_json::json!({ "x": x })))
            .collect()
    }

    /// A server that ran ticks 11 and 12 late and snapshotted once at 13
    /// sends their events in snapshot 13, numbered in order: a demo that
    /// snapshotted each tick has them carried there, but not those of a
    /// snapshot before the first tick both have (the other's recorder had
    /// not begun), and no more than DDNet's buffer holds.
    #[test]
    fn events_of_unsnapped_ticks_come_in_the_next_common_snapshot() {
        let run = |server: Vec<(i32, Vec<(String, Value)>)>,
                   every_tick: Vec<(i32, Vec<(String, Value)>)>| {
            let options = Options {
                common_snapshots: true,
                no_align: true,
                ..Options::default()
            };
            let (mut a, mut b) = (Snapped::new(server), Snapped::new(every_tick));
            compare(&Value::Null, &Value::Null, &mut a, &mut b, &options).unwrap()
        };
        let every_tick = || {
            vec![
                (9, events(&[("SoundWorld", 9)])),
                (10, events(&[])),
                (11, events(&[("DamageInd", 1)])),
                (12, events(&[("SoundWorld", 2), ("DamageInd", 2)])),
                (13, events(&[("DamageInd", 3)])),
            ]
        };
        let stalled = |at_13: &[(&str, i64)]| vec![(10, events(&[])), (13, events(at_13))];
        let r = run(
            stalled(&[
                ("DamageInd", 1),
                ("SoundWorld", 2),
                ("DamageInd", 2),
                ("DamageInd", 3),
            ]),
            every_tick(),
        );
        assert_eq!(
            (r.total_differences, r.carried_events),
            (0, [0, 3]),
            "{r:?}"
        );
        // Without the carried events, snapshot 13 has one event, not four.
        let r = run(stalled(&[("DamageInd", 3)]), every_tick());
        assert_eq!(r.summary["item:DamageInd"].added, 2, "{r:?}");
        assert_eq!(r.summary["item:SoundWorld"].added, 1, "{r:?}");
        // The buffer holds 128 events: 100 carried and the first 28 of 13's.
        let many = |n: usize, x: i64| vec![("DamageInd", x); n];
        let every_tick = vec![
            (10, events(&[])),
            (11, events(&many(100, 1))),
            (13, events(&many(40, 3))),
        ];
        let full = [many(100, 1), many(28, 3)].concat();
        let r = run(vec![(10, events(&[])), (13, events(&full))], every_tick);
        assert_eq!(
            (r.total_differences, r.carried_events),
            (0, [0, 100]),
            "{r:?}"
        );
    }

    /// A snapshot equal to the one before has a tick marker and no delta
    /// in a demo (DDNet's recorder writes no empty delta): its server
    /// snapshotted, so nothing is carried from the other demo's snapshot
    /// of that tick (which differs in what is left out, a latency say),
    /// even if it has events (the same as the tick before: a character
    /// standing on a pickup makes its sound every tick).
    #[test]
    fn a_tick_marker_without_a_delta_is_a_snapshot_taken() {
        let options = Options {
            common_snapshots: true,
            no_align: true,
            ..Options::default()
        };
        let run = |server, written| {
            let (mut a, mut b) = (Snapped::new(server), Snapped::new(written));
            compare(&Value::Null, &Value::Null, &mut a, &mut b, &options).unwrap()
        };
        let sound = || events(&[("SoundWorld", 5)]);
        let same = || vec![(SAME.to_string(), Value::Null)];
        let server = vec![(10, sound()), (11, sound()), (12, sound())];
        let r = run(server, vec![(10, sound()), (11, same()), (12, sound())]);
        assert_eq!(
            (r.total_differences, r.carried_events),
            (0, [0, 0]),
            "{r:?}"
        );
        // The server stalled at 11 and sent 11's events in 12; the other
        // snapshotted 11, and 12 again unchanged: 11's events are carried
        // into its 12, before 12's own (the same again).
        let both = || events(&[("DamageInd", 1), ("SoundWorld", 5)]);
        let twice = events(&[
            ("DamageInd", 1),
            ("SoundWorld", 5),
            ("DamageInd", 1),
            ("SoundWorld", 5),
        ]);
        let r = run(
            vec![(10, sound()), (12, twice)],
            vec![(10, sound()), (11, both()), (12, same())],
        );
        assert_eq!(
            (r.total_differences, r.carried_events),
            (0, [0, 2]),
            "{r:?}"
        );
        // And compared there: a server whose 12 lacks 11's events differs.
        let r = run(
            vec![(10, sound()), (12, both())],
            vec![(10, sound()), (11, both()), (12, same())],
        );
        assert_eq!(r.summary["item:DamageInd"].added, 1, "{r:?}");
    }

    /// Where one side's player is away and the other's is not (when the
    /// input that ended it arrived: `received_input`), that player's eyes
    /// are the away state's and are left out; anywhere else, and with
    /// `--keep received_input`, they are compared.
    #[test]
    fn eyes_of_a_player_away_on_one_side_only_are_left_out() {
        let snap = |flags: i64, emote: i64, other_emote: i64| {
            vec![(
                10,
                vec![
                    (
                        "DDNetPlayer:3".into(),
                        serde_json::json!({ "flags": flags }),
                    ),
                    ("Character:3".into(), serde_json::json!({ "emote": emote })),
                    (
                        "Character:4".into(),
                        serde_json::json!({ "emote": other_emote }),
                    ),
                ],
            )]
        };
        let run = |old, new, keep: &[String]| {
            let options = Options::default().with_defaults(DEMO, keep, false);
            let (mut a, mut b) = (Snapped::new(old), Snapped::new(new));
            let r = compare(&Value::Null, &Value::Null, &mut a, &mut b, &options).unwrap();
            (r.differences.iter())
                .filter_map(|d| d.old.as_ref().or(d.new.as_ref())?.key.clone())
                .collect::<Vec<_>>()
        };
        // Pain (1) where the server had ended the away state, closed eyes
        // (5) where the written demo had not yet.
        assert!(run(snap(0, 1, 0), snap(1, 5, 0), &[]).is_empty());
        // Another player's eyes are still compared.
        assert_eq!(run(snap(0, 1, 1), snap(1, 5, 0), &[]), ["Character:4"]);
        // Both away, or neither: the eyes are compared.
        assert_eq!(run(snap(1, 1, 0), snap(1, 4, 0), &[]), ["Character:3"]);
        assert_eq!(run(snap(0, 1, 0), snap(0, 4, 0), &[]), ["Character:3"]);
        let kept = run(snap(0, 1, 0), snap(1, 5, 0), &[RECEIVED_INPUT.into()]);
        assert_eq!(kept, ["Character:3", "DDNetPlayer:3"]);
    }

    /// Items of the snapshot id pool's types pair by content across ids;
    /// others, and items whose fields differ, stay differences.
    #[test]
    fn the_same_entity_under_another_snapshot_id_is_the_same_item() {
        let item = |category: &str, x: i64| {
            Some(Event::new(
                format!("item:{category}"),
                serde_json::json!({"x": x}),
            ))
        };
        // Keys 1, 2, 3 in order: the old side's 1 and 2 are the new side's
        // 2 and 3, swapped along; 4 moved; a Character under another id
        // is no entity of the pool.
        let mut unequal = vec![
            (item("DDNetProjectile", 10), item("DDNetProjectile", 30)),
            (item("DDNetProjectile", 20), item("DDNetProjectile", 10)),
            (None, item("DDNetProjectile", 20)),
            (item("DDNetLaser", 4), item("DDNetLaser", 5)),
            (item("Character", 7), None),
            (None, item("Character", 7)),
        ];
        same_items_under_other_ids(&mut unequal);
        let left: Vec<_> = unequal
            .iter()
            .map(|(o, n)| (o.as_ref().map(Event::text), n.as_ref().map(Event::text)))
            .collect();
        let text = |c: &str, x: i64| Some(item(c, x).unwrap().text());
        assert_eq!(
            left,
            [
                (None, text("DDNetProjectile", 30)),
                (None, None),
                (None, None),
                (text("DDNetLaser", 4), text("DDNetLaser", 5)),
                (text("Character", 7), None),
                (None, text("Character", 7)),
            ]
        );
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

    /// Two runs of a server start counting at different moments, so the
    /// first map's ticks are aligned; ticks restart at 0 on every later
    /// map, so there a join a tick later is a difference, not a shift.
    #[test]
    fn only_the_first_maps_ticks_are_aligned() {
        let join = || Event::new("join".into(), serde_json::json!({"cid": 0}));
        let run = |first: i32, rejoin: i32| {
            Listed::maps(vec![
                (0, first, vec![join()]),
                (0, first + 1, vec![]),
                // A map's first tick in a capture is its first snapshot's.
                (1, rejoin, vec![join()]),
            ])
        };
        let options = Options::default();
        let report = |a: &mut Listed, b: &mut Listed| {
            compare(&Value::Null, &Value::Null, a, b, &options).unwrap()
        };
        let same = report(&mut run(100, 5), &mut run(103, 5));
        assert_eq!(
            (same.tick_shift, same.total_differences),
            (3, 0),
            "the first map 3 ticks later: {same:?}"
        );
        let later = report(&mut run(100, 5), &mut run(103, 6));
        let at: Vec<_> = later
            .differences
            .iter()
            .map(|d| (d.segment, d.tick, d.change))
            .collect();
        assert_eq!(
            at,
            vec![(1, 5, Change::Removed), (1, 6, Change::Added)],
            "the rejoin a tick later on the second map: {later:?}"
        );
    }
}
