//! Connection replay: what a real DDNet peer would do with each packet.
//!
//! Per connection (client address), both endpoints are modelled as DDNet's
//! `CNetConnection`: its own last vital sequence, the last in-order vital
//! sequence it received (`ack`), the last ack it received (`peer_ack`), and
//! the security token it expects. A datagram is judged as its receiver
//! would judge it: wrong token (silently dropped), ack out of range
//! (dropped), and every vital chunk as accepted, duplicate (inside the
//! 512-wide backroom, dropped silently) or out of order (dropped, and the
//! receiver asks for a resend). The client also collects the snapshots it
//! is sent and rebuilds them in its own history. Deterministic: state
//! changes only with the datagrams fed in, in order.

use super::Direction;
use crate::codec::{DecodeError, PayloadKind};
use crate::packet::msg::MsgId;
use crate::packet::{ConnPacket, Contents, TOKEN_MAGIC, Version, VersionReason, control};
use crate::report::Code;
use crate::snapshot::ItemSizes;
use crate::snapshot::replay::{Base, Fault, FaultKind, SnapData, SnapInput, SnapshotHistory};
use serde::{Serialize, Serializer};
use std::collections::VecDeque;
use std::fmt;

/// Sequence numbers are 10 bits (`NET_MAX_SEQUENCE`).
const MAX_SEQUENCE: u16 = 1024;

/// DDNet's `IsSeqInBackroom`: `seq` lies in the 512 sequence numbers at or
/// before `ack`, i.e. it was already received.
pub fn is_seq_in_backroom(seq: u16, ack: u16) -> bool {
    let bottom = i32::from(ack) - i32::from(MAX_SEQUENCE / 2);
    let (seq, ack) = (i32::from(seq), i32::from(ack));
    if bottom < 0 {
        seq <= ack || seq >= bottom + i32::from(MAX_SEQUENCE)
    } else {
        seq <= ack && seq >= bottom
    }
}

/// Something a real peer would do differently from accepting the packet.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Anomaly {
    /// The packet, or the chunks and message headers of its payload,
    /// cannot be decoded.
    Malformed {
        /// Why, at its file byte.
        error: DecodeError,
    },
    /// The 0.6 security token (or 0.7 header token) is not the one the
    /// receiver expects: dropped silently.
    WrongToken {
        /// The token the receiver expects.
        #[serde(serialize_with = "hex4")]
        expected: [u8; 4],
        /// The token the packet carries.
        #[serde(serialize_with = "hex4")]
        got: [u8; 4],
    },
    /// The packet acknowledges a sequence outside `peer_ack..=own seq`:
    /// `CNetConnection::Feed` drops the whole packet.
    AckOutOfRange {
        /// The packet's ack.
        ack: u16,
        /// The last ack the receiver had.
        peer_ack: u16,
        /// The receiver's own last vital sequence.
        own_seq: u16,
    },
    /// A vital chunk already received (in the backroom): dropped silently.
    Duplicate {
        /// The chunk's sequence.
        seq: u16,
        /// The receiver's ack.
        ack: u16,
    },
    /// A vital chunk ahead of the next expected one: dropped, and the
    /// receiver flags its next packet with RESEND.
    OutOfOrder {
        /// The chunk's sequence.
        seq: u16,
        /// The sequence the receiver expects.
        expected: u16,
    },
    /// The sender asks the receiver to resend its unacked vital chunks.
    ResendRequested,
    /// A message whose body does not fit its layout: DDNet's unpacker
    /// fails and the message is ignored.
    MalformedMessage {
        /// Index of the chunk in the packet.
        chunk: usize,
        /// Why, at its file byte.
        error: DecodeError,
    },
    /// A message whose fields read, but one of them is outside the range
    /// DDNet's generated unpacker accepts: DDNet drops the message.
    RejectedMessage {
        /// Index of the chunk in the packet.
        chunk: usize,
        /// The message's name, if known.
        name: Option<&'static str>,
        /// The field, its value and the range.
        rejected: crate::packet::msg::Rejected,
    },
    /// A SNAP part outside DDNet's limits (1..=64 parts, part < parts,
    /// size <= 900): the client ignores it.
    InvalidSnapPart {
        /// The snapshot's tick.
        tick: i32,
        /// The part number.
        part: i32,
        /// The parts announced.
        num_parts: i32,
        /// Bytes of the part.
        size: i32,
    },
    /// Parts of a snapshot for a new tick arrived before the last one was
    /// complete: the client drops the incomplete one.
    IncompleteSnapshot {
        /// The dropped snapshot's tick.
        tick: i32,
        /// Parts received.
        received: u32,
        /// Parts announced.
        num_parts: i32,
    },
    /// A complete snapshot the client cannot rebuild (missing base, a
    /// delta that does not apply, a CRC that is not the server's) or that
    /// holds invalid items.
    Snapshot {
        /// What the snapshot replay found.
        fault: Fault,
        /// What the capture shows that explains it, if anything.
        #[serde(skip_serializing_if = "Option::is_none")]
        cause: Option<Cause>,
    },
    /// After a MAP_CHANGE, the client acknowledges (INPUT's `ack_tick`) a
    /// tick it rebuilt on the map before and not on this one. DDNet's
    /// client purges its snapshots when the map changes (`CClient::LoadMap`,
    /// `OnEnterGame`) and acknowledges -1 until the new map's first
    /// snapshot, and DDNet's server purges its own per-client snapshots
    /// (`CClient::Reset`) and restarts its ticks: such an ack is the
    /// client's bug, and a delta the server then sends on the new map's
    /// tick of that number cannot be rebuilt. Counted once per acked tick.
    OldMapAck {
        /// The acknowledged tick.
        tick: i32,
    },
}

/// What the capture shows on a connection that explains a snapshot fault
/// other than a server's or teeoracle's error.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Cause {
    /// Since the client's CONNECT or last MAP_CHANGE, the capture showed
    /// something missing toward the client before this snapshot: a
    /// datagram the capture (and perhaps the client) never had may have
    /// changed the client's snapshots.
    Gap {
        /// File byte of the datagram where it showed.
        offset: u64,
        /// What was missing.
        gap: Gap,
    },
    /// The delta's base is a tick the client acknowledged from the map
    /// before ([`Anomaly::OldMapAck`]): the client's bug.
    OldMapAck {
        /// The tick.
        tick: i32,
    },
    /// The delta's base is a snapshot dropped for the server's repeated
    /// item ([`FaultKind::RepeatedItem`]), or on such a base, which the
    /// client acknowledged all the same (the server deltas on the tick
    /// acknowledged last); DDNet's client acknowledges only the snapshots
    /// it keeps, and -1 on a missing base, and is sent a whole snapshot.
    RepeatedItem {
        /// The tick of the snapshot with the repeated item.
        tick: i32,
    },
}

/// Something a capture shows missing toward a client.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "gap", rename_all = "snake_case")]
pub enum Gap {
    /// A vital chunk ahead of the next expected sequence: the ones
    /// between were never seen.
    VitalSequence {
        /// The chunk's sequence.
        seq: u16,
        /// The sequence expected.
        expected: u16,
    },
    /// A multi-part snapshot that never completed.
    SnapshotPart {
        /// Its tick.
        tick: i32,
    },
    /// A delta on a base tick the client does not have (and did not
    /// acknowledge from an old map): the capture never showed it, or the
    /// client lost it.
    SnapshotBase {
        /// The snapshot's tick.
        tick: i32,
        /// The missing base tick.
        base: i32,
    },
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Gap { offset, gap } => {
                write!(f, "after a gap in the capture at byte {offset}: ")?;
                match gap {
                    Gap::VitalSequence { seq, expected } => {
                        write!(f, "vital seq {seq} where {expected} was expected")
                    }
                    Gap::SnapshotPart { tick } => {
                        write!(f, "snapshot of tick {tick} never complete")
                    }
                    Gap::SnapshotBase { tick, base } => write!(
                        f,
                        "snapshot of tick {tick} on base {base}, which the client did not have"
                    ),
                }
            }
            Cause::OldMapAck { tick } => write!(
                f,
                "the client acknowledged tick {tick} from the map before the last MAP_CHANGE (its bug)"
            ),
            Cause::RepeatedItem { tick } => write!(
                f,
                "the base descends from tick {tick}, dropped for the server's repeated item, \
                 which the client acknowledged though DDNet's client would not have kept it"
            ),
        }
    }
}

fn hex4<S: Serializer>(bytes: &[u8; 4], s: S) -> Result<S::Ok, S::Error> {
    crate::packet::hex_bytes(bytes, s)
}

impl Anomaly {
    /// The name it is counted under in [`super::ReplaySummary::anomalies`]
    /// (and the `code` of its `check` finding): the JSON `kind`, except
    /// that snapshot faults are told apart (`snapshot_missing_base`,
    /// `snapshot_bad_delta`, `snapshot_invalid_item`, and
    /// `snapshot_crc_mismatch` for a CRC mismatch nothing in the capture
    /// explains, `snapshot_crc_mismatch_after_gap` for one after a
    /// [`Cause::Gap`], `snapshot_repeated_item` for one the delta's
    /// repeated item explains, `snapshot_missing_base_after_repeated_item`
    /// for a missing base with a [`Cause::RepeatedItem`]) and `OldMapAck`
    /// is `snapshot_old_map_ack`.
    pub fn kind(&self) -> Code {
        match self {
            Anomaly::Malformed { .. } => Code::Malformed,
            Anomaly::WrongToken { .. } => Code::WrongToken,
            Anomaly::AckOutOfRange { .. } => Code::AckOutOfRange,
            Anomaly::Duplicate { .. } => Code::Duplicate,
            Anomaly::OutOfOrder { .. } => Code::OutOfOrder,
            Anomaly::ResendRequested => Code::ResendRequested,
            Anomaly::MalformedMessage { .. } => Code::MalformedMessage,
            Anomaly::RejectedMessage { .. } => Code::RejectedMessage,
            Anomaly::InvalidSnapPart { .. } => Code::InvalidSnapPart,
            Anomaly::IncompleteSnapshot { .. } => Code::IncompleteSnapshot,
            Anomaly::Snapshot { fault, cause } => match (&fault.kind, cause) {
                (FaultKind::MissingBase { .. }, Some(Cause::RepeatedItem { .. })) => {
                    Code::SnapshotMissingBaseAfterRepeatedItem
                }
                (FaultKind::MissingBase { .. } | FaultKind::NoPrevious, _) => {
                    Code::SnapshotMissingBase
                }
                (FaultKind::RepeatedItem { .. }, _) => Code::SnapshotRepeatedItem,
                (FaultKind::CrcMismatch { .. }, None) => Code::SnapshotCrcMismatch,
                (FaultKind::CrcMismatch { .. }, Some(_)) => Code::SnapshotCrcMismatchAfterGap,
                (FaultKind::InvalidItem { .. }, _) => Code::SnapshotInvalidItem,
                _ => Code::SnapshotBadDelta,
            },
            Anomaly::OldMapAck { .. } => Code::SnapshotOldMapAck,
        }
    }

    /// The tick it concerns, if it concerns a snapshot.
    pub fn tick(&self) -> Option<i32> {
        match self {
            Anomaly::InvalidSnapPart { tick, .. }
            | Anomaly::IncompleteSnapshot { tick, .. }
            | Anomaly::OldMapAck { tick } => Some(*tick),
            Anomaly::Snapshot { fault, .. } => Some(fault.tick),
            _ => None,
        }
    }
}

impl fmt::Display for Anomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Anomaly::Malformed { error } => write!(f, "malformed: {error}"),
            Anomaly::WrongToken { expected, got } => write!(
                f,
                "wrong token {} (expected {}): a real peer drops it silently",
                hex::encode(got),
                hex::encode(expected)
            ),
            Anomaly::AckOutOfRange {
                ack,
                peer_ack,
                own_seq,
            } => write!(
                f,
                "ack {ack} outside {peer_ack}..={own_seq}: the receiver drops the packet"
            ),
            Anomaly::Duplicate { seq, ack } => {
                write!(
                    f,
                    "vital seq {seq} already received (ack {ack}): dropped as a duplicate"
                )
            }
            Anomaly::OutOfOrder { seq, expected } => write!(
                f,
                "vital seq {seq} out of order (expected {expected}): dropped, resend requested"
            ),
            Anomaly::ResendRequested => write!(f, "the sender requests a resend"),
            Anomaly::MalformedMessage { chunk, error } => {
                write!(f, "chunk {chunk}: message does not fit its layout: {error}")
            }
            Anomaly::RejectedMessage {
                chunk,
                name,
                rejected,
            } => write!(
                f,
                "chunk {chunk}: {} {rejected}: DDNet drops the message",
                name.unwrap_or("message")
            ),
            Anomaly::InvalidSnapPart {
                tick,
                part,
                num_parts,
                size,
            } => write!(
                f,
                "snapshot part {part}/{num_parts} of tick {tick} ({size} bytes) is outside DDNet's limits"
            ),
            Anomaly::IncompleteSnapshot {
                tick,
                received,
                num_parts,
            } => write!(
                f,
                "snapshot of tick {tick} dropped incomplete ({received} of {num_parts} parts)"
            ),
            Anomaly::Snapshot { fault, cause } => {
                write!(f, "snapshot: {fault}")?;
                match cause {
                    Some(c) => write!(f, " ({c})"),
                    None => Ok(()),
                }
            }
            Anomaly::OldMapAck { tick } => write!(
                f,
                "the client acknowledges tick {tick}, which it rebuilt on the map before the last MAP_CHANGE and not on this one (DDNet's client purges its snapshots at a map change and acknowledges -1 until the first new one): the client's bug"
            ),
        }
    }
}

/// One endpoint of a connection, as `CNetConnection` keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Endpoint {
    /// Last vital sequence this endpoint sent.
    pub seq: u16,
    /// Last in-order vital sequence it received.
    pub ack: u16,
    /// Last ack it received from the other side.
    pub peer_ack: u16,
    /// Until the first vital chunk is seen (capture started mid-session, or
    /// vanilla anti-spoof), sequences are not judged.
    pub synced: bool,
    /// Vital chunks it accepted.
    pub accepted: u64,
}

/// One connection: a client and the server, the client's snapshots, and
/// counts of what went through it.
#[derive(Clone, Debug, Serialize)]
pub struct Connection {
    /// The protocol, fixed by the client's first datagram.
    pub version: Version,
    /// Why that version.
    pub version_reason: VersionReason,
    /// The client's side.
    pub client: Endpoint,
    /// The server's side.
    pub server: Endpoint,
    /// 0.6: the DDNet security token both directions carry (from
    /// CONNECTACCEPT).
    #[serde(serialize_with = "opt_hex4")]
    pub token: Option<[u8; 4]>,
    /// 0.7: the token the client expects in the header.
    #[serde(serialize_with = "opt_hex4")]
    pub client_token: Option<[u8; 4]>,
    /// 0.7: the token the server expects in the header.
    #[serde(serialize_with = "opt_hex4")]
    pub server_token: Option<[u8; 4]>,
    /// The multi-part snapshot the client is collecting.
    pub snap: Option<SnapParts>,
    /// The snapshots the client rebuilt, by tick (as its client keeps them).
    #[serde(skip)]
    pub history: SnapshotHistory,
    /// Datagrams either way.
    pub datagrams: usize,
    /// Anomalies found in them.
    pub anomalies: usize,
    /// Snapshots the client received completely.
    pub snapshots: usize,
    /// Of those, snapshots rebuilt from their base.
    pub rebuilt: usize,
    /// MAP_CHANGE messages the client accepted (each starts a new
    /// snapshot history).
    pub map_changes: usize,
    /// The ticks the client kept when the map last changed.
    #[serde(skip)]
    old_map_ticks: Vec<i32>,
    /// Old-map ticks the client acknowledged since (at most
    /// [`MAX_OLD_MAP_ACKS`] kept).
    #[serde(skip)]
    old_map_acks: Vec<i32>,
    /// The first thing the capture showed missing toward the client since
    /// its CONNECT or the last MAP_CHANGE.
    #[serde(skip)]
    gap: Option<(u64, Gap)>,
    /// Snapshots dropped for the server's repeated item, or on such a
    /// base ([`Cause::RepeatedItem`]), since the CONNECT or last
    /// MAP_CHANGE: the first one's tick, and the recent ones' ticks,
    /// ascending (a base is never older than the server's 3 seconds).
    #[serde(skip)]
    repeated: Option<(i32, VecDeque<i32>)>,
    /// Per chunk of the packet being fed: delivered to its receiver.
    #[serde(skip)]
    delivered: Vec<bool>,
}

/// Distinct old-map ticks remembered as acknowledged, per map.
const MAX_OLD_MAP_ACKS: usize = 64;

fn opt_hex4<S: Serializer>(bytes: &Option<[u8; 4]>, s: S) -> Result<S::Ok, S::Error> {
    match bytes {
        Some(b) => crate::packet::hex_bytes(b, s),
        None => s.serialize_none(),
    }
}

/// A snapshot message sequence the client has completely received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotReceived {
    /// Its tick.
    pub tick: i32,
    /// `tick - base tick`; the base is empty when this is `tick + 1`.
    pub delta_tick: i32,
    /// Parts it came in (1 for SNAPSINGLE, 0 for SNAPEMPTY).
    pub parts: i32,
    /// Bytes of the (varint-packed) delta.
    pub size: usize,
    /// The CRC the server computed over the full snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crc: Option<i32>,
    /// The client rebuilt it (its base was there, the delta applied, the
    /// CRC matched); if not, an [`Anomaly::Snapshot`] says why.
    pub rebuilt: bool,
}

/// Parts of a multi-part snapshot collected so far (DDNet's client keeps a
/// bitmask of received parts for the current tick).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SnapParts {
    /// The snapshot's tick.
    pub tick: i32,
    /// Parts announced.
    pub num_parts: i32,
    /// Bit `i` set: part `i` is here.
    pub received: u64,
    /// Bytes received.
    pub size: usize,
    /// Each part's bytes, by part number.
    #[serde(skip)]
    pub parts: Vec<Vec<u8>>,
}

/// Snapshot system message ids: (SNAP, SNAPEMPTY, SNAPSINGLE).
fn snap_ids(version: Version) -> (i32, i32, i32) {
    match version {
        Version::V06 => (5, 6, 7),
        Version::V07 => (6, 7, 8),
    }
}

/// MAP_CHANGE's system message id (the same in both versions).
const MAP_CHANGE: i32 = 2;

/// INPUT's system message id.
fn input_id(version: Version) -> i32 {
    match version {
        Version::V06 => 16,
        Version::V07 => 20,
    }
}

/// A client's empty snapshot history, with its version's item sizes.
fn new_history(version: Version) -> SnapshotHistory {
    SnapshotHistory::new(match version {
        Version::V06 => ItemSizes::ddnet_06(),
        Version::V07 => ItemSizes::teeworlds_07(),
    })
}

/// The system message id of a chunk's message, if it is one.
fn sys_id(c: &crate::packet::MessageChunk<'_>) -> Option<i32> {
    match &c.message {
        Ok(m) if m.header.sys => match m.header.id {
            MsgId::Ordinal(id) => Some(id),
            MsgId::Uuid(_) => None,
        },
        _ => None,
    }
}

impl SnapParts {
    /// The parts joined as DDNet's client joins them: part `i` at byte
    /// `i * 900`, the whole as long as the last part ends. (A short middle
    /// part leaves a gap of stale bytes there; zeros here.)
    fn joined(&self) -> Vec<u8> {
        const PACKSIZE: usize = 900;
        let mut out = Vec::with_capacity(self.parts.len() * PACKSIZE);
        for (i, part) in self.parts.iter().enumerate() {
            out.resize(i * PACKSIZE, 0);
            out.extend_from_slice(part);
        }
        out
    }
}

/// Where a datagram lies, for the faults it causes.
#[derive(Clone, Copy)]
pub(crate) struct At {
    /// File byte of the datagram.
    pub offset: u64,
}

/// What judging one datagram found.
#[derive(Default)]
pub(crate) struct Judged {
    pub anomalies: Vec<Anomaly>,
    pub snapshots: Vec<SnapshotReceived>,
}

impl Connection {
    /// A connection whose client speaks `version`.
    pub fn new(version: Version, version_reason: VersionReason) -> Connection {
        Connection {
            version,
            version_reason,
            client: Endpoint::default(),
            server: Endpoint::default(),
            token: None,
            client_token: None,
            server_token: None,
            snap: None,
            history: new_history(version),
            datagrams: 0,
            anomalies: 0,
            snapshots: 0,
            rebuilt: 0,
            map_changes: 0,
            old_map_ticks: Vec::new(),
            old_map_acks: Vec::new(),
            gap: None,
            repeated: None,
            delivered: Vec::new(),
        }
    }

    /// The client starts a new snapshot history: at its CONNECT (a new
    /// session) and when it accepts a MAP_CHANGE (DDNet's client purges
    /// its snapshot storage and any parts collected; the server restarts
    /// its ticks and purges its own). What the capture missed before no
    /// longer matters.
    fn new_snapshot_history(&mut self, map_change: bool) {
        self.old_map_ticks = if map_change {
            self.history.ticks().collect()
        } else {
            Vec::new()
        };
        self.history = new_history(self.version);
        self.snap = None;
        self.old_map_acks.clear();
        self.gap = None;
        self.repeated = None;
    }

    /// Notes the snapshot of `tick` dropped for the server's repeated item
    /// (`base` None), or for its missing `base`; true if that base was
    /// itself so dropped (then so is this one).
    fn dropped_for_repeated_item(&mut self, tick: i32, base: Option<i32>) -> bool {
        let ticks = match (&mut self.repeated, base) {
            (None, Some(_)) => return false,
            (Some((_, ticks)), Some(base)) if !ticks.contains(&base) => return false,
            (repeated, _) => &mut repeated.get_or_insert_with(|| (tick, VecDeque::new())).1,
        };
        let oldest = tick.saturating_sub(crate::snapshot::replay::DEFAULT_HISTORY as i32);
        while ticks.front().is_some_and(|&t| t < oldest) {
            ticks.pop_front();
        }
        if ticks.back().is_none_or(|&t| t < tick) {
            ticks.push_back(tick);
        }
        true
    }

    /// Notes the first gap since the history started.
    fn gap(&mut self, at: At, gap: Gap) {
        self.gap.get_or_insert((at.offset, gap));
    }

    /// Judges a connection packet (its contents read already, for a data
    /// packet) and, for one delivered to the client, collects and rebuilds
    /// its snapshots.
    pub(crate) fn feed(
        &mut self,
        p: &ConnPacket<'_>,
        contents: Option<&Contents<'_>>,
        direction: Direction,
        at: At,
        judged: &mut Judged,
        ints: &mut Vec<i32>,
    ) {
        if let Some((id, data)) = p.control() {
            self.control(p, id, data, direction);
            return;
        }
        let Some(contents) = contents else { return };
        if !self.sequence(p, contents, direction, at, &mut judged.anomalies) {
            return; // dropped: nothing in it is delivered
        }
        match direction {
            Direction::ToClient => self.snapshots(p.version, contents, at, judged, ints),
            Direction::ToServer => self.acks(p.version, contents, &mut judged.anomalies),
        }
    }

    /// Follows the client's INPUT acks: an ack of a tick it rebuilt on the
    /// map before and not on this one is [`Anomaly::OldMapAck`].
    fn acks(&mut self, version: Version, contents: &Contents<'_>, anomalies: &mut Vec<Anomaly>) {
        if self.old_map_ticks.is_empty() {
            return;
        }
        for c in &contents.chunks {
            if sys_id(c) != Some(input_id(version)) {
                continue;
            }
            let Ok(m) = &c.message else { continue };
            let Some(Ok(fields)) = &m.fields else {
                continue;
            };
            let Some(tick) = fields.int("ack_tick") else {
                continue;
            };
            if tick < 0
                || self.history.get(tick).is_some()
                || !self.old_map_ticks.contains(&tick)
                || self.old_map_acks.contains(&tick)
            {
                continue;
            }
            if self.old_map_acks.len() < MAX_OLD_MAP_ACKS {
                self.old_map_acks.push(tick);
            }
            anomalies.push(Anomaly::OldMapAck { tick });
        }
    }

    /// The receiver's token, ack and sequence checks; false if it drops
    /// the whole packet.
    fn sequence(
        &mut self,
        p: &ConnPacket<'_>,
        contents: &Contents<'_>,
        direction: Direction,
        at: At,
        anomalies: &mut Vec<Anomaly>,
    ) -> bool {
        self.delivered.clear();
        self.delivered.resize(contents.chunks.len(), true);
        // The receiver's token check comes first: a mismatch is dropped
        // before anything else is looked at.
        let expected = match p.version {
            Version::V06 => self.token.filter(|_| p.token.is_some()),
            Version::V07 => match direction {
                Direction::ToServer => self.server_token,
                Direction::ToClient => self.client_token,
            },
        };
        let got = match p.version {
            Version::V06 => p.token,
            Version::V07 => p.header_token,
        };
        if let (Some(expected), Some(got)) = (expected, got)
            && expected != got
        {
            anomalies.push(Anomaly::WrongToken { expected, got });
            return false;
        }
        let (sender, receiver) = match direction {
            Direction::ToServer => (&mut self.client, &mut self.server),
            Direction::ToClient => (&mut self.server, &mut self.client),
        };
        if p.requests_resend() {
            anomalies.push(Anomaly::ResendRequested);
        }
        // CNetConnection::Feed: the ack must lie in peer_ack..=own seq.
        if receiver.synced && sender.synced {
            let (ack, own, peer_ack) = (p.ack, receiver.seq, receiver.peer_ack);
            let bad = if own >= peer_ack {
                ack < peer_ack || ack > own
            } else {
                ack < peer_ack && ack > own
            };
            if bad {
                anomalies.push(Anomaly::AckOutOfRange {
                    ack,
                    peer_ack,
                    own_seq: own,
                });
                return false;
            }
        }
        receiver.peer_ack = p.ack;
        // Chunks before one that cannot be read are delivered, as DDNet's
        // unpacker hands them out one by one.
        let mut gap = None;
        for (i, c) in contents.chunks.iter().enumerate() {
            let Some(seq) = c.chunk.header.seq(p.version) else {
                continue; // non-vital chunks are always delivered
            };
            self.delivered[i] = false;
            // The sender's own sequence: the newest it has assigned (a
            // resend carries an older one).
            if !sender.synced || !is_seq_in_backroom(seq, sender.seq) {
                sender.seq = seq;
                sender.synced = true;
            }
            let expected = (receiver.ack + 1) % MAX_SEQUENCE;
            if seq == expected || !receiver.synced {
                receiver.ack = seq;
                receiver.synced = true;
                receiver.accepted += 1;
                self.delivered[i] = true;
            } else if is_seq_in_backroom(seq, receiver.ack) {
                anomalies.push(Anomaly::Duplicate {
                    seq,
                    ack: receiver.ack,
                });
            } else {
                anomalies.push(Anomaly::OutOfOrder { seq, expected });
                if direction == Direction::ToClient {
                    gap.get_or_insert(Gap::VitalSequence { seq, expected });
                }
            }
        }
        if let Some(gap) = gap {
            self.gap(at, gap);
        }
        true
    }

    /// Collects the snapshot messages of a packet the client accepted and
    /// rebuilds every snapshot it completes.
    fn snapshots(
        &mut self,
        version: Version,
        contents: &Contents<'_>,
        at: At,
        judged: &mut Judged,
        ints: &mut Vec<i32>,
    ) {
        let (snap, empty, single) = snap_ids(version);
        for (i, c) in contents.chunks.iter().enumerate() {
            if sys_id(c) == Some(MAP_CHANGE) && c.chunk.header.vital() && self.delivered[i] {
                // DDNet's client reads MAP_CHANGE only from a vital chunk.
                self.map_changes += 1;
                self.new_snapshot_history(true);
                continue;
            }
            let Ok(m) = &c.message else { continue };
            let MsgId::Ordinal(id) = m.header.id else {
                continue;
            };
            if !m.header.sys || ![snap, empty, single].contains(&id) {
                continue;
            }
            let Some(Ok(fields)) = &m.fields else {
                continue;
            };
            let data = fields.bytes("data").unwrap_or(&[]);
            let size = data.len();
            let (Some(tick), Some(delta_tick)) = (fields.int("tick"), fields.int("delta_tick"))
            else {
                continue;
            };
            let received = |parts| SnapshotReceived {
                tick,
                delta_tick,
                parts,
                size,
                crc: fields.int("crc"),
                rebuilt: false,
            };
            if id == empty || id == single {
                let parts = i32::from(id == single);
                self.rebuild(received(parts), data, at, judged, ints);
                continue;
            }
            let (num_parts, part) = (
                fields.int("num_parts").unwrap_or(0),
                fields.int("part").unwrap_or(0),
            );
            if !(1..=64).contains(&num_parts) || !(0..num_parts).contains(&part) || size > 900 {
                judged.anomalies.push(Anomaly::InvalidSnapPart {
                    tick,
                    part,
                    num_parts,
                    size: size as i32,
                });
                continue;
            }
            let parts = match &mut self.snap {
                Some(s) if s.tick == tick && s.num_parts == num_parts => s,
                slot => {
                    if let Some(old) = slot.take() {
                        judged.anomalies.push(Anomaly::IncompleteSnapshot {
                            tick: old.tick,
                            received: old.received.count_ones(),
                            num_parts: old.num_parts,
                        });
                        self.gap
                            .get_or_insert((at.offset, Gap::SnapshotPart { tick: old.tick }));
                    }
                    slot.insert(SnapParts {
                        tick,
                        num_parts,
                        parts: vec![Vec::new(); num_parts as usize],
                        ..SnapParts::default()
                    })
                }
            };
            parts.size += size;
            parts.parts[part as usize] = data.to_vec();
            parts.received |= 1 << part;
            if parts.received.count_ones() == num_parts as u32 {
                let mut whole = received(num_parts);
                whole.size = parts.size;
                let joined = parts.joined();
                self.snap = None;
                self.rebuild(whole, &joined, at, judged, ints);
            }
        }
    }

    /// Applies a complete snapshot delta to its base in the client's
    /// history.
    fn rebuild(
        &mut self,
        mut received: SnapshotReceived,
        data: &[u8],
        at: At,
        judged: &mut Judged,
        ints: &mut Vec<i32>,
    ) {
        let (tick, crc) = (received.tick, received.crc);
        // DDNet 20.1 client.cpp:2067 subtracts two ints off the wire; they
        // wrap (found by the `session` fuzz target).
        let base_tick = tick.wrapping_sub(received.delta_tick);
        let base = if base_tick < 0 {
            Base::Empty
        } else {
            Base::Tick(base_tick)
        };
        let fed = match crate::packer::read_ints_into(data, ints) {
            Ok(()) => self
                .history
                .feed(SnapInput {
                    offset: at.offset,
                    tick,
                    data: SnapData::Delta { base, ints },
                    crc,
                })
                .map(|_| ()),
            Err(error) => Err(Fault {
                offset: at.offset,
                tick,
                kind: FaultKind::Payload {
                    chunk: "snapshot",
                    error: error.inside(at.offset, PayloadKind::SnapshotDelta),
                },
            }),
        };
        received.rebuilt = fed.is_ok();
        if let Err(fault) = fed {
            let cause = match fault.kind {
                // The base the server used is the new map's tick of the
                // number the client acknowledged from the old map.
                FaultKind::MissingBase { base } if self.old_map_acks.contains(&base) => {
                    Some(Cause::OldMapAck { tick: base })
                }
                FaultKind::RepeatedItem { .. } => {
                    self.dropped_for_repeated_item(tick, None);
                    self.gap.map(|(offset, gap)| Cause::Gap { offset, gap })
                }
                FaultKind::MissingBase { base }
                    if self.dropped_for_repeated_item(tick, Some(base)) =>
                {
                    self.repeated
                        .as_ref()
                        .map(|&(first, _)| Cause::RepeatedItem { tick: first })
                }
                FaultKind::MissingBase { base } => {
                    // Missing itself: what is missing explains later faults.
                    self.gap(at, Gap::SnapshotBase { tick, base });
                    None
                }
                _ => self.gap.map(|(offset, gap)| Cause::Gap { offset, gap }),
            };
            judged.anomalies.push(Anomaly::Snapshot { fault, cause });
        }
        let gap = self.gap.map(|(offset, gap)| Cause::Gap { offset, gap });
        judged
            .anomalies
            .extend(
                self.history
                    .take_warnings()
                    .into_iter()
                    .map(|fault| Anomaly::Snapshot {
                        fault,
                        cause: gap.clone(),
                    }),
            );
        self.snapshots += 1;
        self.rebuilt += usize::from(received.rebuilt);
        judged.snapshots.push(received);
    }

    fn control(&mut self, p: &ConnPacket<'_>, id: u8, data: &[u8], direction: Direction) {
        let token_at =
            |data: &[u8], at: usize| -> Option<[u8; 4]> { data.get(at..at + 4)?.try_into().ok() };
        match (p.version, id, direction) {
            // A new connection: both ends start from zero.
            (_, control::CONNECT, Direction::ToServer) => {
                self.client = Endpoint::default();
                self.server = Endpoint::default();
                self.new_snapshot_history(false);
                self.client.synced = true;
                self.server.synced = true;
                if p.version == Version::V07 {
                    self.client_token = token_at(data, 0);
                }
            }
            (Version::V06, control::CONNECTACCEPT, Direction::ToClient)
                if data.starts_with(TOKEN_MAGIC) =>
            {
                self.token = p.token;
            }
            (Version::V07, control::TOKEN, Direction::ToClient) => {
                self.server_token = token_at(data, 0)
            }
            (Version::V07, control::TOKEN, Direction::ToServer) => {
                self.client_token = token_at(data, 0)
            }
            _ => {}
        }
    }
}
