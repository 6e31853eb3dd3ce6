//! The capture adapter: the bots' (or any clients') traffic with the
//! server, read tick by tick, map by map.

#[cfg(feature = "capture")]
use super::{Event, Positions, TickContent, Ticks, character_positions, keyed_items};
#[cfg(feature = "capture")]
use crate::codec::DecodeError;
#[cfg(feature = "capture")]
use crate::packet::Version;
#[cfg(feature = "capture")]
use crate::snapshot::Snapshot;
#[cfg(feature = "capture")]
use crate::snapshot::items::Protocol;
#[cfg(feature = "capture")]
use serde_json::Value;
#[cfg(feature = "capture")]
use std::collections::{BTreeMap, VecDeque};

/// A capture read tick by tick, as the server and its clients took it:
/// every connection's messages in both directions (clients numbered by
/// first appearance, `c2s:NAME`/`s2c:NAME`; resent duplicates, snapshot
/// parts and keepalives left out), its control messages, datagrams DDNet
/// drops (`drop`, with the rule) and message anomalies; and the snapshots
/// each client rebuilt, items keyed `cN TYPE:ID`. A tick is the newest
/// snapshot tick any client has received on the current map (-1 before
/// the first): tokens, acks, sequence numbers and resend timing are not
/// compared.
///
/// Ticks restart at each map change, so a capture is read in segments:
/// a new one starts when the first client receives MAP_CHANGE (a client
/// still on the previous map adds its events at the current tick, and its
/// snapshots of that map do not move the tick). A client's snapshot in
/// force is dropped at its MAP_CHANGE.
#[cfg(feature = "capture")]
pub struct CaptureTicks<'c> {
    session: crate::session::Session<'c>,
    clients: BTreeMap<std::net::SocketAddr, usize>,
    /// Decoded but not yet given: ((segment, tick), event or a client's
    /// snapshot).
    queue: VecDeque<((u32, i32), Queued)>,
    /// The current segment and tick (of what was fed), and the segment
    /// each client is in (MAP_CHANGEs it received).
    fed_segment: u32,
    tick: i32,
    client_segment: BTreeMap<usize, u32>,
    /// The segment of the tick last given.
    segment_given: u32,
    positions: Positions,
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
    /// The client left its map: no snapshot in force.
    Forget(usize),
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
            fed_segment: 0,
            tick: -1,
            client_segment: BTreeMap::new(),
            segment_given: 0,
            positions: Positions::new(),
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
        let mut map_change = false;
        let event = |category: String, mut fields: Value| {
            if let Value::Object(m) = &mut fields {
                m.shift_insert(0, "client".into(), client.into());
            }
            Event {
                category,
                key: None,
                fields,
                ident: None,
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
                if dir == "s2c" && name == "MAP_CHANGE" && message["system"] == true {
                    map_change = true;
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
        // A client's segment: the MAP_CHANGEs it received but the first
        // (the map it joined), so segment 0 is the first map.
        let mut seg = self.client_segment.get(&client).copied();
        if map_change {
            seg = Some(seg.map_or(0, |s| s.saturating_add(1)));
        }
        let seg = seg.unwrap_or(0);
        if map_change {
            self.client_segment.insert(client, seg);
            if seg > self.fed_segment {
                self.fed_segment = seg;
                self.tick = -1;
            }
            let at = (self.fed_segment, self.tick);
            self.queue.push_back((at, Queued::Forget(client)));
        }
        // A client behind the others (still on the previous map) does not
        // move the tick.
        let current = seg >= self.fed_segment;
        let mut tick = self.tick;
        let mut items = Vec::new();
        for (t, rebuilt) in received {
            if current {
                tick = tick.max(t);
            }
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
        let at = (self.fed_segment, tick);
        for e in events {
            self.queue.push_back((at, Queued::Event(e)));
        }
        for (_, snap) in items {
            self.queue.push_back((at, Queued::Snapshot(client, snap)));
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
        let Some(&(at, _)) = self.queue.front() else {
            return Ok(None);
        };
        let (segment, tick) = at;
        self.segment_given = segment;
        self.before = self.in_force.clone();
        self.events.clear();
        self.new_items = false;
        self.raw.clear();
        while let Some((t, q)) = self.queue.front() {
            if *t != at {
                break;
            }
            match q {
                Queued::Event(e) => self.events.push(e.clone()),
                Queued::Snapshot(client, snap) => {
                    self.raw.extend((*client as u32).to_le_bytes());
                    self.raw
                        .extend(snap.0.to_ints().iter().flat_map(|v| v.to_le_bytes()));
                    self.in_force.insert(*client, snap.clone());
                    self.new_items = true;
                }
                Queued::Forget(client) => {
                    self.raw.extend(b"forget");
                    self.raw.extend((*client as u32).to_le_bytes());
                    self.new_items |= self.in_force.remove(client).is_some();
                }
            }
            self.queue.pop_front();
        }
        // Each client's messages, each way, in the order they came;
        // between clients and directions the order is when the recorder
        // read or wrote each bot's socket, not anything the server did.
        self.events.sort_by_key(|e| {
            let direction = e.fields["direction"].as_str().map(str::to_string);
            let direction = direction.or_else(|| e.category.get(..3).map(str::to_string));
            (e.fields["client"].as_u64(), direction)
        });
        for e in &self.events {
            self.raw.extend(e.category.as_bytes());
            self.raw.extend(e.fields.to_string().as_bytes());
        }
        if self.new_items {
            // Each character where the first client (in number) that has
            // it sees it.
            self.positions.clear();
            let mut one = Positions::new();
            for snap in self.in_force.values() {
                character_positions(&snap.0, snap.1, &mut one);
                for (id, p) in &one {
                    self.positions.entry(*id).or_insert(*p);
                }
            }
        }
        Ok(Some(tick))
    }

    fn segment(&self) -> u32 {
        self.segment_given
    }

    fn raw(&self) -> &[u8] {
        &self.raw
    }

    fn positions(&self) -> Option<&Positions> {
        Some(&self.positions)
    }

    fn content(&self, _detail: &dyn Fn(&str) -> bool) -> TickContent {
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
