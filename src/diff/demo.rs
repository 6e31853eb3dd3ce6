//! The demo adapter: a demo read tick by tick.

use super::players::paths::{MAX_PATH_POINTS, Path, PathRequest};
use super::snapshots::{character_positions, keyed_items, keyed_items_and_events};
use super::{Event, Positions, TickContent, Ticks};
use crate::codec::DecodeError;
use crate::demo::{EventKind, Events, payload_bytes};
use crate::packet::{Message as NetMessage, Version};
use crate::snapshot::Snapshot;
use crate::snapshot::items::ints_to_str;
use crate::snapshot::replay::{Fault, FaultKind};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A demo read tick by tick, as DDNet's player meets it: each tick
/// marker's messages and the snapshot after it (items keyed `TYPE:ID`,
/// with their named fields), and faults. It stops where the player stops.
pub struct DemoTicks<'a> {
    events: Events<'a>,
    version: Version,
    protocol: Version,
    /// The tick marker that starts the next tick, once read.
    next: Option<i32>,
    started: bool,
    done: bool,
    messages: Vec<Vec<u8>>,
    /// The current tick began at a tick marker (the recorder snapshotted).
    marked: bool,
    /// The snapshot in force before the current tick, and the one the
    /// current tick brought, if any.
    before: Option<Snapshot>,
    snapshot: Option<Snapshot>,
    faults: Vec<Fault>,
    raw: Vec<u8>,
    /// Characters' positions in the snapshot in force.
    positions: Positions,
}

impl<'a> DemoTicks<'a> {
    /// Reads what comes before the chunks; the header's JSON as
    /// [`compare`](super::compare) takes it.
    pub fn new(bytes: &'a [u8]) -> Result<(Value, Self), DecodeError> {
        let events = Events::new(bytes)?;
        let value = serde_json::to_value(events.info()).unwrap_or_default();
        let version = if events.header().is_07() {
            Version::V07
        } else {
            Version::V06
        };
        let ticks = DemoTicks {
            events,
            version,
            protocol: version,
            next: None,
            started: false,
            done: false,
            messages: Vec::new(),
            marked: false,
            before: None,
            snapshot: None,
            faults: Vec::new(),
            raw: Vec::new(),
            positions: Positions::new(),
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
        self.marked = any;
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
                    self.marked = true;
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
                    character_positions(snap, self.protocol, &mut self.positions);
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

    fn content(&self, _detail: &dyn Fn(&str) -> bool) -> TickContent {
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
                ident: None,
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
                ident: None,
            });
        }
        let (items, snapshot_events) = match (&self.snapshot, &self.before) {
            (Some(snap), _) => keyed_items_and_events(snap, self.protocol, ""),
            // A tick marker alone: the snapshot before, taken again.
            (None, Some(before)) if self.marked => {
                keyed_items_and_events(before, self.protocol, "")
            }
            (None, before) => (self.items(before.as_ref()), Vec::new()),
        };
        TickContent {
            events,
            items,
            new_items: self.snapshot.is_some(),
            same_snapshot: self.marked && self.snapshot.is_none(),
            snapshot_events,
        }
    }

    fn positions(&self) -> Option<&Positions> {
        Some(&self.positions)
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

/// Each character of a demo over some ticks: its path, and the name the
/// snapshot's ClientInfo item of the same id gave it (0.6 demos; 0.7
/// demos send names in messages, not read here). An id whose ClientInfo
/// item comes back after a snapshot without it is another player (one
/// left, one joined): another character.
#[derive(Clone, Debug, Default)]
pub struct DemoPaths {
    /// In order of first appearance.
    pub characters: Vec<DemoCharacter>,
    /// The first and last tick read.
    pub ticks: Option<(i32, i32)>,
    /// The first tick not kept, when [`MAX_PATH_POINTS`] was reached.
    pub cut_at: Option<i32>,
    /// What stopped the reading before the demo's end (a chunk that does
    /// not decode, where DDNet's player stops too): the paths are those
    /// before it.
    pub stopped: Option<String>,
}

/// One character of [`DemoPaths`].
#[derive(Clone, Debug, Default)]
pub struct DemoCharacter {
    /// Its item id (the client id).
    pub id: i32,
    /// The names its ClientInfo items gave it, in order (a rename adds
    /// one).
    pub names: Vec<String>,
    /// Its path.
    pub path: Path,
}

/// The ClientInfo item's type in 0.6 snapshots, and its name's ints.
const CLIENT_INFO_06: i32 = 11;
const NAME_INTS: usize = 4;

/// Each character's path through the demo `bytes` over `request`'s
/// ticks, as DDNet's player meets the demo (where it stops, the paths
/// stop: [`DemoPaths::stopped`]).
pub fn demo_paths(bytes: &[u8], request: PathRequest) -> Result<DemoPaths, DecodeError> {
    let (_, mut ticks) = DemoTicks::new(bytes)?;
    let mut out = DemoPaths::default();
    // Each id's character now, by index into `out.characters`.
    let mut now: BTreeMap<i32, usize> = BTreeMap::new();
    // The ids with a ClientInfo item in the last snapshot.
    let mut infos: BTreeSet<i32> = BTreeSet::new();
    let mut points = 0usize;
    let resolution = request.resolution.max(1);
    loop {
        let tick = match ticks.next_tick() {
            Ok(Some(t)) => t,
            Ok(None) => break,
            Err(e) => {
                out.stopped = Some(e.to_string());
                break;
            }
        };
        let payload = |f: &&Fault| matches!(f.kind, FaultKind::Payload { .. });
        if let Some(f) = ticks.faults.iter().find(payload) {
            out.stopped = Some(f.to_string());
        }
        // (Tick -1: what comes before the first tick marker.)
        if tick >= 0 {
            out.ticks = Some(out.ticks.map_or((tick, tick), |(a, _)| (a, tick)));
        }
        if request.from.is_some_and(|f| tick < f) || request.to.is_some_and(|l| tick > l) {
            continue;
        }
        if points >= MAX_PATH_POINTS {
            out.cut_at.get_or_insert(tick);
            continue;
        }
        let chars = &mut out.characters;
        if let (Some(snap), Version::V06) = (&ticks.snapshot, ticks.protocol) {
            let before = std::mem::take(&mut infos);
            for item in snap.items().filter(|i| i.type_id() == CLIENT_INFO_06) {
                let id = item.id();
                infos.insert(id);
                let back = !before.contains(&id);
                if back && now.get(&id).is_some_and(|&c| !chars[c].names.is_empty()) {
                    now.remove(&id);
                }
                let c = character(&mut now, chars, id);
                let name = item.data.get(..NAME_INTS).and_then(|n| ints_to_str(n).ok());
                if let Some(name) = name.filter(|n| chars[c].names.last() != Some(n)) {
                    chars[c].names.push(name);
                }
            }
        }
        for (id, &c) in &now {
            if !ticks.positions.contains_key(id) {
                chars[c].path.close();
            }
        }
        for (&id, &pos) in &ticks.positions {
            let c = character(&mut now, chars, id);
            points += usize::from(chars[c].path.push(tick, pos, resolution));
        }
    }
    Ok(out)
}

/// The index of `id`'s character now, a new one if it has none.
fn character(now: &mut BTreeMap<i32, usize>, chars: &mut Vec<DemoCharacter>, id: i32) -> usize {
    *now.entry(id).or_insert_with(|| {
        chars.push(DemoCharacter {
            id,
            ..DemoCharacter::default()
        });
        chars.len() - 1
    })
}
