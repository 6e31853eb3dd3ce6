//! The capture adapter: the bots' (or any clients') traffic with the
//! server, read tick by tick, map by map.

#[cfg(feature = "capture")]
use super::snapshots::{character_positions, keyed_items};
#[cfg(feature = "capture")]
use super::{Event, Positions, TickContent, Ticks};
#[cfg(feature = "capture")]
use crate::codec::DecodeError;
#[cfg(feature = "capture")]
use crate::packet::Version;
#[cfg(feature = "capture")]
use crate::report::Code;
#[cfg(feature = "capture")]
use crate::snapshot::Snapshot;
#[cfg(feature = "capture")]
use serde_json::Value;
#[cfg(feature = "capture")]
use std::collections::BTreeMap;

/// A capture read tick by tick, as the server and its clients took it:
/// every connection's messages in both directions (clients numbered by
/// first appearance, `c2s:NAME`/`s2c:NAME`; resent duplicates, snapshot
/// parts and keepalives left out), its control messages, datagrams DDNet
/// drops (`drop`, with the rule) and message anomalies; and the snapshots
/// each client rebuilt, items keyed `cN TYPE:ID`. Tokens, acks, sequence
/// numbers and resend timing are not compared.
///
/// Each client's traffic is counted by its own snapshots, so that what
/// one client reads never depends on when the recorder read another
/// client's socket, nor on how the server cut its messages into
/// datagrams: what the server sends a client is counted at the tick
/// before the client's next snapshot (DDNet flushes what it queued with
/// each snapshot), what a client sends at its newest snapshot tick, and
/// before its first snapshot of a map (a join, a rejoin) at the tick
/// before that snapshot too. The clients' ticks are merged in order: a
/// tick is given once every client still taking part is past it (a
/// client that closed, or lags the newest tick by more than
/// [`STALE_TICKS`], no longer holds the others back).
///
/// Ticks restart at each map change, so a capture is read in segments,
/// one per map; a client's first MAP_CHANGE is the map it joined, each
/// later one moves it to the next segment, where its MAP_CHANGE and the
/// end of its snapshot in force are counted at tick -1.
#[cfg(feature = "capture")]
pub struct CaptureTicks<'c> {
    session: crate::session::Session<'c>,
    clients: BTreeMap<std::net::SocketAddr, usize>,
    /// Each client's segment and tick (by its number).
    state: Vec<Client>,
    /// Decoded but not yet given, by (segment, tick), in the order read.
    pending: BTreeMap<(u32, i32), Vec<Queued>>,
    /// The newest segment any client is on, and the newest snapshot tick
    /// a client of it has received (-1 before the first).
    newest: (u32, i32),
    /// The last (segment, tick) given.
    given: Option<(u32, i32)>,
    /// The segment of the tick last given.
    segment_given: u32,
    positions: Positions,
    done: bool,
    /// Each client's snapshot in force (shared, so keeping the state
    /// before a tick costs a pointer per client), and before the tick.
    in_force: BTreeMap<usize, std::rc::Rc<(Snapshot, Version)>>,
    before: BTreeMap<usize, std::rc::Rc<(Snapshot, Version)>>,
    events: Vec<Event>,
    new_items: bool,
    raw: Vec<u8>,
}

/// A client lagging the newest tick by more than this many ticks no
/// longer holds back the ticks of the others.
#[cfg(feature = "capture")]
pub const STALE_TICKS: i32 = 50;

/// Where one client is.
#[cfg(feature = "capture")]
struct Client {
    /// Its map (segment).
    segment: u32,
    /// Whether the MAP_CHANGE of its join is still to come (it does not
    /// move it to another segment).
    joining: bool,
    /// Its newest snapshot tick on its map.
    tick: Option<i32>,
    /// What waits for its next snapshot: what the server sent it, and
    /// before its first snapshot of the map what it said too; and the
    /// newest tick when its map began for it.
    held: Vec<Queued>,
    held_since: i32,
    /// CLOSE sent or received.
    closed: bool,
}

#[cfg(feature = "capture")]
impl Client {
    /// The lowest (segment, tick) its next events can be counted at.
    fn floor(&self) -> (u32, i32) {
        match self.tick {
            Some(t) => (self.segment, t),
            None => (self.segment, self.held_since.saturating_sub(1)),
        }
    }
}

#[cfg(feature = "capture")]
enum Queued {
    Event(Event),
    Snapshot(usize, std::rc::Rc<(Snapshot, Version)>),
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
            state: Vec::new(),
            pending: BTreeMap::new(),
            newest: (0, -1),
            given: None,
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
                    Code::MalformedMessage | Code::RejectedMessage | Code::WrongToken
                ) {
                    let fields = serde_json::json!({ "direction": dir, "anomaly": a.to_string() });
                    events.push(event(format!("anomaly:{kind}"), fields));
                }
            }
        }
        let received: Vec<(i32, bool)> = d.snapshots.iter().map(|s| (s.tick, s.rebuilt)).collect();
        let (peer, version) = (d.peer, d.version);
        let closed = events.iter().any(|e| e.category == "control:CLOSE");
        if client == self.state.len() {
            self.state.push(Client {
                segment: self.newest.0,
                joining: true,
                tick: None,
                held: Vec::new(),
                held_since: self.newest.1,
                closed: false,
            });
        }
        // What the server sent waits for the client's next snapshot;
        // what the client sent is at its newest snapshot tick.
        let (mut sent, mut said): (Vec<Queued>, Vec<Queued>) = (Vec::new(), Vec::new());
        let list = match d.direction {
            Direction::ToClient => &mut sent,
            Direction::ToServer => &mut said,
        };
        list.extend(events.into_iter().map(Queued::Event));
        if map_change {
            let c = &mut self.state[client];
            if std::mem::take(&mut c.joining) {
                // The map it joined: its segment is the server's.
            } else {
                // What waited is the old map's, at its last tick.
                let old = c.floor();
                let held = std::mem::take(&mut c.held);
                let at = self.clamp(old);
                self.pending.entry(at).or_default().extend(held);
                let c = &mut self.state[client];
                c.segment = c.segment.saturating_add(1);
                c.tick = None;
                if c.segment > self.newest.0 {
                    self.newest = (c.segment, -1);
                }
                c.held_since = if c.segment == self.newest.0 {
                    self.newest.1
                } else {
                    -1
                };
                // No tick of the new map was given (this client held them
                // back): its MAP_CHANGE and the end of its old snapshot
                // are at the map's start.
                let segment = c.segment;
                let at = self.clamp((segment, -1));
                let list = self.pending.entry(at).or_default();
                list.push(Queued::Forget(client));
                list.append(&mut said);
                list.append(&mut sent);
            }
        }
        let mut snaps = Vec::new();
        let mut next = None;
        for (t, rebuilt) in received {
            next = Some(next.map_or(t, |n: i32| n.min(t)));
            let c = &mut self.state[client];
            c.tick = Some(c.tick.map_or(t, |n| n.max(t)));
            let snap = self
                .session
                .connections()
                .get(&peer)
                .and_then(|c| c.history.get(t));
            if let (true, Some(snap)) = (rebuilt, snap) {
                snaps.push(Queued::Snapshot(
                    client,
                    std::rc::Rc::new((snap.clone(), version)),
                ));
            }
        }
        let (segment, tick) = (self.state[client].segment, self.state[client].tick);
        if segment == self.newest.0
            && let Some(t) = tick
        {
            self.newest.1 = self.newest.1.max(t);
        }
        let c = &mut self.state[client];
        c.held.append(&mut sent);
        if tick.is_none() {
            c.held.append(&mut said);
        }

        // A snapshot: what the server sent before it (DDNet flushes what
        // it queued with each snapshot, so whatever it sent since the
        // last one) and, before a first snapshot of the map, what the
        // client said, at the tick before it.
        if let Some(t) = next {
            let held = std::mem::take(&mut c.held);
            let at = self.clamp((segment, t.saturating_sub(1)));
            self.pending.entry(at).or_default().extend(held);
        }
        if let Some(t) = tick {
            said.extend(snaps);
            let at = self.clamp((segment, t));
            self.pending.entry(at).or_default().extend(said);
        }
        // After its CLOSE no snapshot comes: what the server still sent
        // it (its goodbyes went out before it dropped the connection) is
        // at its last tick.
        if closed || self.state[client].closed {
            self.state[client].closed = true;
            self.release(client);
        }
        true
    }

    /// What a client's traffic waits on, counted at its newest tick (or
    /// the newest, before its first snapshot): no snapshot will place it
    /// (it closed, it lags, or the capture ended).
    fn release(&mut self, client: usize) {
        let c = &mut self.state[client];
        let held = std::mem::take(&mut c.held);
        if !held.is_empty() {
            let at = match c.tick {
                Some(t) => (c.segment, t),
                None => self.newest,
            };
            let at = self.clamp(at);
            self.pending.entry(at).or_default().extend(held);
        }
    }

    /// `key`, or the tick after the last one given if that is later
    /// (ticks are given in order; a client that lagged past
    /// [`STALE_TICKS`] is counted late).
    fn clamp(&self, key: (u32, i32)) -> (u32, i32) {
        match self.given {
            Some(g) if key <= g => (g.0, g.1.saturating_add(1)),
            _ => key,
        }
    }

    /// Whether a client lags so far behind the newest tick that it no
    /// longer holds the others back.
    fn stale(&self, c: &Client) -> bool {
        let (segment, tick) = c.floor();
        match segment.cmp(&self.newest.0) {
            std::cmp::Ordering::Less => self.newest.1 > STALE_TICKS,
            _ => self.newest.1.saturating_sub(tick) > STALE_TICKS,
        }
    }

    /// The first pending (segment, tick), if every client still taking
    /// part is past it.
    fn ready(&mut self) -> Option<(u32, i32)> {
        let &first = self.pending.keys().next()?;
        for i in 0..self.state.len() {
            let c = &self.state[i];
            if c.closed {
                continue;
            }
            if self.stale(c) {
                self.release(i);
                continue;
            }
            if c.floor() <= first {
                return None;
            }
        }
        // A release may have added an earlier key.
        self.pending.keys().next().copied()
    }
}

#[cfg(feature = "capture")]
impl Ticks for CaptureTicks<'_> {
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
        // Read until the first pending tick is complete (every client
        // still taking part is past it) or the capture ends.
        let at = loop {
            if let Some(at) = self.ready() {
                break at;
            }
            if self.done {
                for i in 0..self.state.len() {
                    self.release(i);
                }
                match self.pending.keys().next() {
                    Some(&at) => break at,
                    None => return Ok(None),
                }
            }
            self.done = !self.feed();
        };
        let queued = self.pending.remove(&at).unwrap_or_default();
        self.given = Some(at);
        let (segment, tick) = at;
        self.segment_given = segment;
        self.before = self.in_force.clone();
        self.events.clear();
        self.new_items = false;
        self.raw.clear();
        for q in queued {
            match q {
                Queued::Event(e) => self.events.push(e),
                Queued::Snapshot(client, snap) => {
                    self.raw.extend((client as u32).to_le_bytes());
                    self.raw
                        .extend(snap.0.to_ints().iter().flat_map(|v| v.to_le_bytes()));
                    self.in_force.insert(client, snap);
                    self.new_items = true;
                }
                Queued::Forget(client) => {
                    self.raw.extend(b"forget");
                    self.raw.extend((client as u32).to_le_bytes());
                    self.new_items |= self.in_force.remove(&client).is_some();
                }
            }
        }
        // Each client's messages, each way, in the order they came;
        // between clients and directions the order is when the recorder
        // read or wrote each bot's socket, not anything the server did.
        self.events.sort_by_key(|e| {
            let to_client = e.fields["direction"] == "s2c" || e.category.starts_with("s2c:");
            (e.fields["client"].as_u64(), to_client)
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
            ..TickContent::default()
        }
    }

    fn items_before(&self) -> BTreeMap<String, Event> {
        capture_items(&self.before)
    }
}

/// Every client's snapshot items, keyed `cN TYPE:ID`.
#[cfg(feature = "capture")]
fn capture_items(
    snapshots: &BTreeMap<usize, std::rc::Rc<(Snapshot, Version)>>,
) -> BTreeMap<String, Event> {
    let mut items = BTreeMap::new();
    for (client, snap) in snapshots {
        items.extend(keyed_items(&snap.0, snap.1, &format!("c{client} ")));
    }
    items
}
