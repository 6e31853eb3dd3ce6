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
use crate::snapshot::ItemSizes;
use crate::snapshot::replay::{Base, Fault, FaultKind, SnapData, SnapInput, SnapshotHistory};
use serde::{Serialize, Serializer};
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
    },
}

fn hex4<S: Serializer>(bytes: &[u8; 4], s: S) -> Result<S::Ok, S::Error> {
    crate::packet::hex_bytes(bytes, s)
}

impl Anomaly {
    /// The name it is counted under in [`super::ReplaySummary::anomalies`]
    /// (and the `code` of its `check` finding): the JSON `kind`, except
    /// that snapshot faults are told apart (`snapshot_missing_base`,
    /// `snapshot_bad_delta`, `snapshot_crc_mismatch`,
    /// `snapshot_invalid_item`).
    pub fn kind(&self) -> &'static str {
        match self {
            Anomaly::Malformed { .. } => "malformed",
            Anomaly::WrongToken { .. } => "wrong_token",
            Anomaly::AckOutOfRange { .. } => "ack_out_of_range",
            Anomaly::Duplicate { .. } => "duplicate",
            Anomaly::OutOfOrder { .. } => "out_of_order",
            Anomaly::ResendRequested => "resend_requested",
            Anomaly::MalformedMessage { .. } => "malformed_message",
            Anomaly::RejectedMessage { .. } => "rejected_message",
            Anomaly::InvalidSnapPart { .. } => "invalid_snap_part",
            Anomaly::IncompleteSnapshot { .. } => "incomplete_snapshot",
            Anomaly::Snapshot { fault } => match fault.kind {
                FaultKind::MissingBase { .. } | FaultKind::NoPrevious => "snapshot_missing_base",
                FaultKind::CrcMismatch { .. } => "snapshot_crc_mismatch",
                FaultKind::InvalidItem { .. } => "snapshot_invalid_item",
                _ => "snapshot_bad_delta",
            },
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
            Anomaly::Snapshot { fault } => write!(f, "snapshot: {fault}"),
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
}

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
            history: SnapshotHistory::new(match version {
                Version::V06 => ItemSizes::ddnet_06(),
                Version::V07 => ItemSizes::teeworlds_07(),
            }),
            datagrams: 0,
            anomalies: 0,
            snapshots: 0,
            rebuilt: 0,
        }
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
        if !self.sequence(p, contents, direction, &mut judged.anomalies) {
            return; // dropped: nothing in it is delivered
        }
        if direction == Direction::ToClient {
            self.snapshots(p.version, contents, at, judged, ints);
        }
    }

    /// The receiver's token, ack and sequence checks; false if it drops
    /// the whole packet.
    fn sequence(
        &mut self,
        p: &ConnPacket<'_>,
        contents: &Contents<'_>,
        direction: Direction,
        anomalies: &mut Vec<Anomaly>,
    ) -> bool {
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
        for c in &contents.chunks {
            let Some(seq) = c.chunk.header.seq(p.version) else {
                continue; // non-vital chunks are always delivered
            };
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
            } else if is_seq_in_backroom(seq, receiver.ack) {
                anomalies.push(Anomaly::Duplicate {
                    seq,
                    ack: receiver.ack,
                });
            } else {
                anomalies.push(Anomaly::OutOfOrder { seq, expected });
            }
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
        for c in &contents.chunks {
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
            judged.anomalies.push(Anomaly::Snapshot { fault });
        }
        judged.anomalies.extend(
            self.history
                .take_warnings()
                .into_iter()
                .map(|fault| Anomaly::Snapshot { fault }),
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
