//! Comparing two recordings by meaning (`teeoracle diff`): header fields,
//! then tick by tick what happened, not bytes or offsets.
//!
//! Both files are read as a sequence of ticks ([`Ticks`]). Ticks are
//! matched by number; a tick only one file has is all added or all
//! removed. Inside a matched tick the events are aligned with the
//! `similar` crate (one inserted event is one difference, not a cascade)
//! and keyed items (a demo's snapshot items) are matched by key, so a
//! difference is an event added, removed or changed, with the fields that
//! changed. A tick whose raw bytes are the same in both files is equal
//! without being decoded further (the fast path for identical stretches).
//!
//! Two `check --format json` reports compare file by file
//! ([`compare_check_reports`]): a saved report is a baseline.

use crate::bytes::key_values;
use crate::codec::{DecodeError, Mode};
use crate::demo::{EventKind, Events, payload_bytes};
use crate::packet::{Message as NetMessage, Version};
use crate::snapshot::Snapshot;
use crate::snapshot::items::{Protocol, SnapshotJson};
use crate::snapshot::replay::{Fault, FaultKind};
use crate::teehistorian::json::RecordLine;
use crate::teehistorian::{Message, Record, SliceReader};
use serde::Serialize;
use serde_json::Value;
use similar::{DiffOp, capture_diff_slices};
use std::collections::{BTreeMap, VecDeque};

/// What a format leaves out by default: header fields that change on
/// every run, and whether network timing ([`TIMING_IGNORED`]) is too.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    /// Header fields.
    pub header: &'static [&'static str],
    /// Network timing events and fields.
    pub timing: bool,
}

/// Teehistorian: the game's UUIDs, its start time and PRNG seed.
pub const TEEHISTORIAN: Defaults = Defaults {
    header: &[
        "game_uuid",
        "prev_game_uuid",
        "start_time",
        "prng_description",
    ],
    timing: false,
};
/// Demos: the recording time, and network timing.
pub const DEMO: Defaults = Defaults {
    header: &["timestamp"],
    timing: true,
};
/// Captures: network timing.
pub const CAPTURE: Defaults = Defaults {
    header: &[],
    timing: true,
};

/// Equal events shown before the first difference.
const CONTEXT: usize = 3;

/// One thing a recording says at a tick.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// What it is: a teehistorian record kind, `message`, `fault`, or
    /// `item:TYPE` for a demo's snapshot item.
    pub category: String,
    /// A snapshot item's `TYPE:ID`; `None` for events in sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Its fields.
    pub fields: Value,
}

impl Event {
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

/// A recording read tick by tick.
pub trait Ticks {
    /// Moves to the next tick and gives its number; `None` after the last.
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError>;
    /// The raw bytes that make the current tick: equal bytes mean equal
    /// content.
    fn raw(&self) -> &[u8];
    /// What happened at the current tick.
    fn content(&self) -> TickContent;
    /// The keyed events in force before the current tick (compared with
    /// the other file's new ones at a tick only that file has).
    fn items_before(&self) -> BTreeMap<String, Event> {
        BTreeMap::new()
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
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Header fields and event categories left out (added to the
    /// format's default list).
    pub ignore: Vec<String>,
    /// Only these categories (and `header` for the header), when given.
    pub only: Vec<String>,
    /// Compare tick numbers as they are, without moving the new file's
    /// to match the old one's first tick.
    pub no_align: bool,
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
    fn wants(&self, category: &str) -> bool {
        let named = |list: &[String]| list.iter().any(|n| names(n, category));
        !named(&self.ignore) && (self.only.is_empty() || named(&self.only))
    }

    /// `event` without the fields `--ignore CATEGORY.FIELD` leaves out.
    fn strip(&self, event: &Event) -> Event {
        let mut event = event.clone();
        for entry in &self.ignore {
            if let Some((category, field)) = entry.rsplit_once('.')
                && names(category, &event.category)
                && let Value::Object(m) = &mut event.fields
            {
                m.shift_remove(field);
            }
        }
        event
    }
}

/// The comparison of two recordings.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// Header fields that differ (`category` `header`).
    pub header: Vec<FieldChange>,
    /// Every difference, in tick order.
    pub differences: Vec<Difference>,
    /// Counts per category (`header` included).
    pub summary: BTreeMap<String, Counts>,
    /// The equal events just before the first difference in its tick
    /// (tick, event).
    pub context: Vec<(i32, Event)>,
    /// The last tick both files have alike before the first difference.
    pub last_equal_tick: Option<i32>,
    /// Ticks read from each file.
    pub ticks: (u64, u64),
    /// How many ticks later the new file's first tick is than the old
    /// one's: its ticks are moved back by this much to be compared (0
    /// with `no_align`). Differences name ticks by the old file's count.
    pub tick_shift: i32,
}

impl Report {
    /// Whether the recordings mean the same.
    pub fn same(&self) -> bool {
        self.header.is_empty() && self.differences.is_empty()
    }
}

/// Compares two recordings' headers (`old` and `new` as JSON objects,
/// `ignored` the format's default list) and ticks.
pub fn compare(
    old_header: &Value,
    new_header: &Value,
    ignored: &[&str],
    old: &mut dyn Ticks,
    new: &mut dyn Ticks,
    options: &Options,
) -> Result<Report, (bool, DecodeError)> {
    let mut report = Report::default();
    if options.wants("header") {
        let mut header = Vec::new();
        field_changes("", old_header, new_header, &mut header);
        header.retain(|c| {
            let top = c.field.split('.').next().unwrap_or_default();
            !ignored.contains(&top) && !options.ignore.iter().any(|i| i == top || i == &c.field)
        });
        if !header.is_empty() {
            report.summary.entry("header".into()).or_default().changed = header.len() as u64;
        }
        report.header = header;
    }
    let mut context: VecDeque<(i32, Event)> = VecDeque::new();
    let mut a = old.next_tick().map_err(|e| (true, e))?;
    let mut b = new.next_tick().map_err(|e| (false, e))?;
    let mut shift = None;
    loop {
        // Two runs of a server start counting at different moments: the
        // new file's ticks are moved so that both first ticks (not
        // counting a demo's messages before its first marker) match.
        if shift.is_none()
            && !options.no_align
            && let (Some(x), Some(y)) = (a, b)
            && x >= 0
            && y >= 0
        {
            shift = Some(y - x);
            report.tick_shift = y - x;
        }
        let s = shift.unwrap_or(0);
        let b_aligned = b.map(|y| if y >= 0 { y - s } else { y });
        // Which file the next tick is from: both, the old, the new.
        let (from_old, from_new, tick) = match (a, b_aligned) {
            (None, None) => break,
            (Some(x), Some(y)) if x == y => (true, true, x),
            (Some(x), Some(y)) if x < y => (true, false, x),
            (Some(x), None) => (true, false, x),
            (_, Some(y)) => (false, true, y),
        };
        let before = report.differences.len();
        if from_old && from_new && old.raw() == new.raw() {
            // Equal: not decoded further.
            if before == 0 {
                report.last_equal_tick = Some(tick);
            }
        } else {
            // The file without this tick still has its items in force.
            let idle = |t: &dyn Ticks| TickContent {
                items: t.items_before(),
                ..TickContent::default()
            };
            let o = if from_old { old.content() } else { idle(old) };
            let n = if from_new { new.content() } else { idle(new) };
            context.clear();
            tick_diff(tick, &o, &n, options, &mut report, &mut context);
        }
        if before == 0 && !report.differences.is_empty() {
            report.context = context.drain(..).collect();
        }
        if from_old {
            report.ticks.0 += 1;
            a = old.next_tick().map_err(|e| (true, e))?;
        }
        if from_new {
            report.ticks.1 += 1;
            b = new.next_tick().map_err(|e| (false, e))?;
        }
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

fn tick_diff(
    tick: i32,
    old: &TickContent,
    new: &TickContent,
    options: &Options,
    report: &mut Report,
    context: &mut VecDeque<(i32, Event)>,
) {
    let wanted = |events: &[Event]| -> Vec<Event> {
        events
            .iter()
            .filter(|e| options.wants(&e.category))
            .map(|e| options.strip(e))
            .collect()
    };
    let (a, b) = (wanted(&old.events), wanted(&new.events));
    let keys = |events: &[Event]| -> Vec<String> {
        events
            .iter()
            .map(|e| format!("{} {}", e.category, e.fields))
            .collect()
    };
    let (ka, kb) = (keys(&a), keys(&b));
    let push = |report: &mut Report, d: Difference| {
        let counts = report.summary.entry(d.category.clone()).or_default();
        match d.change {
            Change::Added => counts.added += 1,
            Change::Removed => counts.removed += 1,
            Change::Changed => counts.changed += 1,
        }
        report.differences.push(d);
    };
    for op in capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                if report.differences.is_empty() {
                    remember(context, tick, &a[old_index..old_index + len]);
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                for e in &a[old_index..old_index + old_len] {
                    push(report, one_sided(tick, Change::Removed, e));
                }
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                for e in &b[new_index..new_index + new_len] {
                    push(report, one_sided(tick, Change::Added, e));
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
                    let d = match (olds.get(i), news.get(i)) {
                        (Some(o), Some(n)) if o.category == n.category => changed(tick, o, n),
                        (Some(o), Some(n)) => {
                            push(report, one_sided(tick, Change::Removed, o));
                            one_sided(tick, Change::Added, n)
                        }
                        (Some(o), None) => one_sided(tick, Change::Removed, o),
                        (None, Some(n)) => one_sided(tick, Change::Added, n),
                        (None, None) => continue,
                    };
                    push(report, d);
                }
            }
        }
    }
    // Keyed items, by key, where either file has new ones.
    if !old.new_items && !new.new_items {
        return;
    }
    let keys: std::collections::BTreeSet<&String> =
        old.items.keys().chain(new.items.keys()).collect();
    for key in keys {
        let strip = |e: Option<&Event>| e.map(|e| options.strip(e));
        let d = match (strip(old.items.get(key)), strip(new.items.get(key))) {
            (Some(o), Some(n)) if o == n => continue,
            (Some(o), Some(n)) => changed(tick, &o, &n),
            (Some(o), None) => one_sided(tick, Change::Removed, &o),
            (None, Some(n)) => one_sided(tick, Change::Added, &n),
            (None, None) => continue,
        };
        if options.wants(&d.category) {
            push(report, d);
        }
    }
}

fn one_sided(tick: i32, change: Change, e: &Event) -> Difference {
    let (old, new) = match change {
        Change::Removed => (Some(e.clone()), None),
        _ => (None, Some(e.clone())),
    };
    Difference {
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
        tick,
        category: old.category.clone(),
        change: Change::Changed,
        old: Some(old.clone()),
        new: Some(new.clone()),
        fields,
    }
}

/// The leaves in which two values differ (objects by key, recursively;
/// anything else as a whole).
fn field_changes(path: &str, old: &Value, new: &Value, out: &mut Vec<FieldChange>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: Vec<&String> = a
                .keys()
                .chain(b.keys().filter(|k| !a.contains_key(*k)))
                .collect();
            for k in keys {
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let (x, y) = (
                    a.get(k).unwrap_or(&Value::Null),
                    b.get(k).unwrap_or(&Value::Null),
                );
                field_changes(&sub, x, y, out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(FieldChange {
            field: path.to_string(),
            old: a.clone(),
            new: b.clone(),
        }),
    }
}

/// A teehistorian file read tick by tick: its records but `tick_skip`
/// (the tick numbers say it), without offsets.
pub struct TeehistorianTicks<'a> {
    reader: SliceReader<'a>,
    next: Option<Record<'a>>,
    records: Vec<Record<'a>>,
    raw: Vec<u8>,
}

impl<'a> TeehistorianTicks<'a> {
    /// Reads the header of `bytes`; the header's JSON as [`compare`]
    /// takes it.
    pub fn new(bytes: &'a [u8]) -> Result<(Value, Self), DecodeError> {
        let (header, reader) = SliceReader::new(bytes, Mode::Lenient)?;
        let value = serde_json::to_value(&header.info).unwrap_or_default();
        let ticks = TeehistorianTicks {
            reader,
            next: None,
            records: Vec::new(),
            raw: Vec::new(),
        };
        Ok((value, ticks))
    }
}

impl Ticks for TeehistorianTicks<'_> {
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
        self.records.clear();
        self.raw.clear();
        let first = match self.next.take() {
            Some(r) => r,
            None => match self.reader.next() {
                Some(r) => r?,
                None => return Ok(None),
            },
        };
        let tick = first.tick;
        self.push(first);
        while let Some(rec) = self.reader.next() {
            let rec = rec?;
            if rec.tick != tick {
                self.next = Some(rec);
                break;
            }
            self.push(rec);
        }
        Ok(Some(tick))
    }

    fn raw(&self) -> &[u8] {
        &self.raw
    }

    fn content(&self) -> TickContent {
        let events = self
            .records
            .iter()
            .filter(|r| !matches!(r.msg, Message::TickSkip { .. }))
            .map(|r| {
                let mut v = serde_json::to_value(RecordLine::new(r)).unwrap_or_default();
                let category = v["kind"].as_str().unwrap_or_default().to_string();
                if let Value::Object(m) = &mut v {
                    for k in ["offset", "tick", "kind", "noncanonical_at"] {
                        m.shift_remove(k);
                    }
                }
                Event {
                    category,
                    key: None,
                    fields: v,
                }
            })
            .collect();
        TickContent {
            events,
            ..TickContent::default()
        }
    }
}

impl<'a> TeehistorianTicks<'a> {
    fn push(&mut self, rec: Record<'a>) {
        if !matches!(rec.msg, Message::TickSkip { .. }) {
            self.raw.extend_from_slice(rec.raw);
        }
        self.records.push(rec);
    }
}

/// A demo read tick by tick, as DDNet's player meets it: each tick
/// marker's messages and the snapshot after it (items keyed `TYPE:ID`,
/// with their named fields), and faults. It stops where the player stops.
pub struct DemoTicks<'a> {
    events: Events<'a>,
    version: Version,
    protocol: Protocol,
    /// The tick marker that starts the next tick, once read.
    next: Option<i32>,
    started: bool,
    done: bool,
    messages: Vec<Vec<u8>>,
    /// The snapshot in force before the current tick, and the one the
    /// current tick brought, if any.
    before: Option<Snapshot>,
    snapshot: Option<Snapshot>,
    faults: Vec<Fault>,
    raw: Vec<u8>,
}

impl<'a> DemoTicks<'a> {
    /// Reads what comes before the chunks; the header's JSON as
    /// [`compare`] takes it.
    pub fn new(bytes: &'a [u8]) -> Result<(Value, Self), DecodeError> {
        let events = Events::new(bytes)?;
        let value = serde_json::to_value(events.info()).unwrap_or_default();
        let (version, protocol) = if events.header().is_07() {
            (Version::V07, Protocol::V07)
        } else {
            (Version::V06, Protocol::V06)
        };
        let ticks = DemoTicks {
            events,
            version,
            protocol,
            next: None,
            started: false,
            done: false,
            messages: Vec::new(),
            before: None,
            snapshot: None,
            faults: Vec::new(),
            raw: Vec::new(),
        };
        Ok((value, ticks))
    }
}

impl Ticks for DemoTicks<'_> {
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
        self.messages.clear();
        if let Some(s) = self.snapshot.take() {
            self.before = Some(s);
        }
        self.faults.clear();
        self.raw.clear();
        if self.done {
            return Ok(None);
        }
        // Events before the first tick marker belong to tick -1.
        let mut tick = match self.next.take() {
            Some(t) => t,
            None if !self.started => -1,
            None => return Ok(None),
        };
        self.started = true;
        let mut any = tick != -1;
        loop {
            let Some(event) = self.events.next()? else {
                self.done = true;
                break;
            };
            match event.kind {
                EventKind::Tick { .. } if any => {
                    self.next = Some(event.tick);
                    break;
                }
                EventKind::Tick { .. } => {
                    tick = event.tick;
                    any = true;
                }
                EventKind::Message(ints) => {
                    let bytes = payload_bytes(ints);
                    self.raw.extend_from_slice(&bytes);
                    self.messages.push(bytes);
                    any = true;
                }
                EventKind::Snapshot(snap) => {
                    self.raw
                        .extend(snap.to_ints().iter().flat_map(|v| v.to_le_bytes()));
                    self.snapshot = Some(snap.clone());
                    any = true;
                }
                EventKind::Fault(fault) => {
                    self.raw.extend_from_slice(fault.to_string().as_bytes());
                    self.faults.push(fault.clone());
                    any = true;
                    // DDNet's player stops at a payload that does not
                    // decode (as `demo::json::for_each_event`).
                    if matches!(fault.kind, FaultKind::Payload { .. }) {
                        self.done = true;
                        break;
                    }
                }
            }
        }
        Ok(any.then_some(tick))
    }

    fn raw(&self) -> &[u8] {
        &self.raw
    }

    fn content(&self) -> TickContent {
        let mut events = Vec::new();
        for bytes in &self.messages {
            let (category, fields) = match NetMessage::read_padded(bytes, 0, self.version) {
                Ok((m, _)) => {
                    let name = m.name().map_or("unknown".to_string(), str::to_string);
                    (
                        format!("message:{name}"),
                        serde_json::to_value(&m).unwrap_or_default(),
                    )
                }
                Err(_) => (
                    "message".into(),
                    serde_json::json!({ "data": hex::encode(bytes) }),
                ),
            };
            events.push(Event {
                category,
                key: None,
                fields,
            });
        }
        for fault in &self.faults {
            let mut fields = serde_json::to_value(fault).unwrap_or_default();
            if let Value::Object(m) = &mut fields {
                m.shift_remove("offset");
                m.shift_remove("tick");
            }
            events.push(Event {
                category: "fault".into(),
                key: None,
                fields,
            });
        }
        let new_items = self.snapshot.is_some();
        let items = self.items(self.snapshot.as_ref().or(self.before.as_ref()));
        TickContent {
            events,
            items,
            new_items,
        }
    }

    fn items_before(&self) -> BTreeMap<String, Event> {
        self.items(self.before.as_ref())
    }
}

impl DemoTicks<'_> {
    /// A snapshot's items as keyed events.
    fn items(&self, snap: Option<&Snapshot>) -> BTreeMap<String, Event> {
        snap.map_or_else(BTreeMap::new, |s| keyed_items(s, self.protocol, ""))
    }
}

/// A snapshot's items as keyed events: `PREFIX TYPE:ID`, the named
/// fields (the raw ints for a type without a table).
fn keyed_items(snap: &Snapshot, protocol: Protocol, prefix: &str) -> BTreeMap<String, Event> {
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
        };
        items.insert(key, event);
    }
    items
}

/// How one file's verdict differs between two `check --format json`
/// reports (a baseline and a new run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileChange {
    /// The file's path as the reports name it.
    pub path: String,
    /// Added (only the new report has it), removed or changed.
    pub change: Change,
    /// For a change: what differs (`status`, `findings`, `counts.records`,
    /// `summary`, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// Compares two `check` documents file by file (by path, in path order):
/// which files changed verdict, findings, counts or summary.
pub fn compare_check_reports(old: &Value, new: &Value) -> Vec<FileChange> {
    let files = |doc: &Value| -> BTreeMap<String, Value> {
        doc["files"]
            .as_array()
            .map(|files| {
                files
                    .iter()
                    .map(|f| {
                        (
                            f["path"].as_str().unwrap_or_default().to_string(),
                            f.clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (files(old), files(new));
    let paths: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for path in paths {
        let (change, fields) = match (a.get(path), b.get(path)) {
            (Some(x), Some(y)) => {
                let mut fields = Vec::new();
                field_changes("", x, y, &mut fields);
                if fields.is_empty() {
                    continue;
                }
                (Change::Changed, fields)
            }
            (Some(_), None) => (Change::Removed, Vec::new()),
            (None, _) => (Change::Added, Vec::new()),
        };
        out.push(FileChange {
            path: path.clone(),
            change,
            fields,
        });
    }
    out
}

/// A capture read tick by tick, as the server and its clients took it:
/// every connection's messages in both directions (clients numbered by
/// first appearance, `c2s:NAME`/`s2c:NAME`; resent duplicates, snapshot
/// parts and keepalives left out), its control messages, datagrams DDNet
/// drops (`drop`, with the rule) and message anomalies; and the snapshots
/// each client rebuilt, items keyed `cN TYPE:ID`. A tick is the newest
/// snapshot tick any client has received (-1 before the first): tokens,
/// acks, sequence numbers and resend timing are not compared.
#[cfg(feature = "capture")]
pub struct CaptureTicks<'c> {
    session: crate::session::Session<'c>,
    clients: BTreeMap<std::net::SocketAddr, usize>,
    /// Decoded but not yet given: (tick, event or a client's snapshot).
    queue: VecDeque<(i32, Queued)>,
    tick: i32,
    done: bool,
    /// Each client's snapshot in force (shared, so keeping the state
    /// before a tick costs a pointer per client), and before the tick.
    in_force: BTreeMap<usize, std::rc::Rc<(Snapshot, Protocol)>>,
    before: BTreeMap<usize, std::rc::Rc<(Snapshot, Protocol)>>,
    events: Vec<Event>,
    new_items: bool,
    raw: Vec<u8>,
}

#[cfg(feature = "capture")]
enum Queued {
    Event(Event),
    Snapshot(usize, std::rc::Rc<(Snapshot, Protocol)>),
}

#[cfg(feature = "capture")]
impl<'c> CaptureTicks<'c> {
    /// The capture's datagrams to and from `port` (see
    /// [`crate::session::server_port`]).
    pub fn new(capture: &'c crate::capture::Capture, port: u16) -> Self {
        CaptureTicks {
            session: crate::session::Session::new(capture, port),
            clients: BTreeMap::new(),
            queue: VecDeque::new(),
            tick: -1,
            done: false,
            in_force: BTreeMap::new(),
            before: BTreeMap::new(),
            events: Vec::new(),
            new_items: false,
            raw: Vec::new(),
        }
    }

    /// Decodes the next datagram into the queue; false at the end.
    fn feed(&mut self) -> bool {
        use crate::session::{Anomaly, Direction};
        let Some(d) = self.session.next_datagram() else {
            return false;
        };
        let n = self.clients.len();
        let client = *self.clients.entry(d.peer).or_insert(n);
        let dir = match d.direction {
            Direction::ToServer => "c2s",
            Direction::ToClient => "s2c",
        };
        let mut events = Vec::new();
        let event = |category: String, mut fields: Value| {
            if let Value::Object(m) = &mut fields {
                m.shift_insert(0, "client".into(), client.into());
            }
            Event {
                category,
                key: None,
                fields,
            }
        };
        if let Some(rule) = d.verdict.ddnet.dropped {
            let fields = serde_json::json!({ "direction": dir, "rule": rule.code() });
            events.push(event("drop".into(), fields));
        } else if let Ok(packet) = &d.packet {
            let json = crate::packet::json::PacketJson::new(packet, d.contents.as_ref(), 0);
            let v = serde_json::to_value(&json).unwrap_or_default();
            let control = &v["control_message"];
            if let Some(name) = control["name"].as_str().filter(|n| *n != "KEEPALIVE") {
                let fields = serde_json::json!({ "direction": dir, "data": control["data"] });
                events.push(event(format!("control:{name}"), fields));
            }
            let duplicates: Vec<u16> = d
                .anomalies
                .iter()
                .filter_map(|a| match a {
                    Anomaly::Duplicate { seq, .. } => Some(*seq),
                    _ => None,
                })
                .collect();
            for chunk in v["chunks"].as_array().into_iter().flatten() {
                let seq = chunk["seq"].as_u64().map(|s| s as u16);
                let resent = chunk["vital"] == true && seq.is_some_and(|s| duplicates.contains(&s));
                let mut message = chunk["message"].clone();
                let name = message["name"].as_str().unwrap_or("unknown").to_string();
                if resent || matches!(name.as_str(), "SNAP" | "SNAPSINGLE" | "SNAPEMPTY") {
                    continue;
                }
                if let Value::Object(m) = &mut message {
                    m.shift_remove("name");
                }
                events.push(event(format!("{dir}:{name}"), message));
            }
            for a in &d.anomalies {
                let kind = a.kind();
                if matches!(
                    kind,
                    "malformed_message" | "rejected_message" | "wrong_token"
                ) {
                    let fields = serde_json::json!({ "direction": dir, "anomaly": a.to_string() });
                    events.push(event(format!("anomaly:{kind}"), fields));
                }
            }
        }
        let received: Vec<(i32, bool)> = d.snapshots.iter().map(|s| (s.tick, s.rebuilt)).collect();
        let (peer, version) = (d.peer, d.version);
        let mut tick = self.tick;
        let mut items = Vec::new();
        for (t, rebuilt) in received {
            tick = tick.max(t);
            let snap = self
                .session
                .connections()
                .get(&peer)
                .and_then(|c| c.history.get(t));
            if let (true, Some(snap)) = (rebuilt, snap) {
                let protocol = match version {
                    Version::V06 => Protocol::V06,
                    _ => Protocol::V07,
                };
                items.push((t, std::rc::Rc::new((snap.clone(), protocol))));
            }
        }
        self.tick = tick;
        for e in events {
            self.queue.push_back((tick, Queued::Event(e)));
        }
        for (t, snap) in items {
            self.queue
                .push_back((t.max(tick), Queued::Snapshot(client, snap)));
        }
        true
    }
}

#[cfg(feature = "capture")]
impl Ticks for CaptureTicks<'_> {
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
        // Read until the queue holds a later tick than its first (ticks
        // only grow) or the capture ends.
        while !self.done
            && self
                .queue
                .back()
                .is_none_or(|(t, _)| Some(t) == self.queue.front().map(|(f, _)| f))
        {
            self.done = !self.feed();
        }
        let Some(&(tick, _)) = self.queue.front() else {
            return Ok(None);
        };
        self.before = self.in_force.clone();
        self.events.clear();
        self.new_items = false;
        self.raw.clear();
        while let Some((t, q)) = self.queue.front() {
            if *t != tick {
                break;
            }
            match q {
                Queued::Event(e) => {
                    self.raw.extend(e.category.as_bytes());
                    self.raw.extend(e.fields.to_string().as_bytes());
                    self.events.push(e.clone());
                }
                Queued::Snapshot(client, snap) => {
                    self.raw.extend((*client as u32).to_le_bytes());
                    self.raw
                        .extend(snap.0.to_ints().iter().flat_map(|v| v.to_le_bytes()));
                    self.in_force.insert(*client, snap.clone());
                    self.new_items = true;
                }
            }
            self.queue.pop_front();
        }
        Ok(Some(tick))
    }

    fn raw(&self) -> &[u8] {
        &self.raw
    }

    fn content(&self) -> TickContent {
        TickContent {
            events: self.events.clone(),
            items: capture_items(&self.in_force),
            new_items: self.new_items,
        }
    }

    fn items_before(&self) -> BTreeMap<String, Event> {
        capture_items(&self.before)
    }
}

/// Every client's snapshot items, keyed `cN TYPE:ID`.
#[cfg(feature = "capture")]
fn capture_items(
    snapshots: &BTreeMap<usize, std::rc::Rc<(Snapshot, Protocol)>>,
) -> BTreeMap<String, Event> {
    let mut items = BTreeMap::new();
    for (client, snap) in snapshots {
        items.extend(keyed_items(&snap.0, snap.1, &format!("c{client} ")));
    }
    items
}
