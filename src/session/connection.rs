//! Connection replay: what a real DDNet peer would do with each packet.
//!
//! Per connection (client address), both endpoints are modelled as DDNet's
//! `CNetConnection`: its own last vital sequence, the last in-order vital
//! sequence it received (`ack`), the last ack it received (`peer_ack`), and
//! the security token it expects. A datagram is judged as its receiver
//! would judge it: wrong token (silently dropped), ack out of range
//! (dropped), and every vital chunk as accepted, duplicate (inside the
//! 512-wide backroom, dropped silently) or out of order (dropped, and the
//! receiver asks for a resend). Deterministic: state changes only with the
//! datagrams fed in, in order.

use super::{Decoded, Direction};
use crate::packet::{ConnPacket, Packet, TOKEN_MAGIC, Version, control};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;

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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Anomaly {
    /// The packet could not be decoded at all.
    Malformed { error: String },
    /// The 0.6 security token (or 0.7 header token) is not the one the
    /// receiver expects: dropped silently.
    WrongToken { expected: String, got: String },
    /// The packet acknowledges a sequence outside `peer_ack..=own seq`:
    /// `CNetConnection::Feed` drops the whole packet.
    AckOutOfRange {
        ack: u16,
        peer_ack: u16,
        own_seq: u16,
    },
    /// A vital chunk already received (in the backroom): dropped silently.
    Duplicate { seq: u16, ack: u16 },
    /// A vital chunk ahead of the next expected one: dropped, and the
    /// receiver flags its next packet with RESEND.
    OutOfOrder { seq: u16, expected: u16 },
    /// The sender asks the receiver to resend its unacked vital chunks.
    ResendRequested,
    /// A system message whose body does not fit its layout: DDNet's
    /// unpacker fails and the message is ignored.
    MalformedMessage { chunk: usize, error: String },
    /// A SNAP part outside DDNet's limits (1..=64 parts, part < parts,
    /// size <= 900): the client ignores it.
    InvalidSnapPart {
        tick: i32,
        part: i32,
        num_parts: i32,
        size: i32,
    },
    /// Parts of a snapshot for a new tick arrived before the last one was
    /// complete: the client drops the incomplete one.
    IncompleteSnapshot {
        tick: i32,
        received: u32,
        num_parts: i32,
    },
    /// A complete snapshot the client cannot rebuild (missing base, a
    /// delta that does not apply, a CRC that is not the server's) or that
    /// holds invalid items.
    Snapshot(crate::snapshot::replay::Fault),
}

impl fmt::Display for Anomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Anomaly::Malformed { error } => write!(f, "malformed: {error}"),
            Anomaly::WrongToken { expected, got } => {
                write!(
                    f,
                    "wrong token {got} (expected {expected}): a real peer drops it silently"
                )
            }
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
                write!(
                    f,
                    "chunk {chunk}: system message does not fit its layout: {error}"
                )
            }
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
            Anomaly::Snapshot(fault) => write!(f, "snapshot: {fault}"),
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

/// One connection: a client and the server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Connection {
    pub version: Option<Version>,
    pub client: Endpoint,
    pub server: Endpoint,
    /// 0.6: the DDNet security token both directions carry (from
    /// CONNECTACCEPT). 0.7: the tokens each side expects in the header.
    pub token: Option<[u8; 4]>,
    pub client_token: Option<[u8; 4]>,
    pub server_token: Option<[u8; 4]>,
    /// The multi-part snapshot the client is collecting.
    pub snap: Option<SnapParts>,
}

/// A snapshot message sequence the client has completely received (its
/// delta still has to be applied to the base at `tick - delta_tick`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotReceived {
    pub tick: i32,
    /// `tick - base tick`; the base is empty when this is `tick + 1`.
    pub delta_tick: i32,
    /// Parts it came in (1 for SNAPSINGLE, 0 for SNAPEMPTY).
    pub parts: i32,
    /// Bytes of the (varint-packed) delta.
    pub size: usize,
    /// The CRC the server computed over the full snapshot.
    pub crc: Option<i32>,
    /// The varint-packed delta, its parts joined in order.
    #[serde(skip)]
    pub data: Vec<u8>,
}

/// The verdict on one datagram.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub frame: usize,
    pub direction: Direction,
    pub peer: SocketAddr,
    pub anomalies: Vec<Anomaly>,
    /// Snapshots completed by this datagram.
    pub snapshots: Vec<SnapshotReceived>,
}

/// Parts of a multi-part snapshot collected so far (DDNet's client keeps a
/// bitmask of received parts for the current tick).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SnapParts {
    pub tick: i32,
    pub num_parts: i32,
    pub received: u64,
    pub size: usize,
    /// Each part's bytes, by part number.
    #[serde(skip)]
    pub parts: Vec<Vec<u8>>,
}

/// Replays every decoded datagram of a session, in order.
#[derive(Clone, Debug, Default)]
pub struct SessionReplay {
    pub connections: BTreeMap<SocketAddr, Connection>,
}

impl SessionReplay {
    /// Judges the next datagram and updates the state.
    pub fn feed(&mut self, d: &Decoded<'_>) -> Verdict {
        let conn = self.connections.entry(d.peer).or_default();
        conn.version.get_or_insert(d.version);
        let mut anomalies = Vec::new();
        let mut snapshots = Vec::new();
        match &d.packet {
            Err(e) => anomalies.push(Anomaly::Malformed {
                error: e.to_string(),
            }),
            Ok(Packet::Connection(p)) => {
                let before = anomalies.len();
                conn.feed(p, d.direction, &mut anomalies);
                // Snapshots go to the client; a packet its receiver drops
                // delivers none.
                let delivered = !anomalies[before..].iter().any(|a| {
                    matches!(
                        a,
                        Anomaly::WrongToken { .. } | Anomaly::AckOutOfRange { .. }
                    )
                });
                if d.direction == Direction::ToClient && delivered {
                    conn.snapshots(p, &mut anomalies, &mut snapshots);
                }
            }
            Ok(_) => {}
        }
        match &d.payload_error {
            Some(e) => anomalies.push(Anomaly::Malformed {
                error: format!("payload: {e}"),
            }),
            None => malformed_messages(d, &mut anomalies),
        }
        Verdict {
            frame: d.datagram.frame,
            direction: d.direction,
            peer: d.peer,
            anomalies,
            snapshots,
        }
    }
}

/// Flags system messages that do not fit their layout.
fn malformed_messages(d: &Decoded<'_>, anomalies: &mut Vec<Anomaly>) {
    let Ok(Packet::Connection(p)) = &d.packet else {
        return;
    };
    let Some(Ok((chunks, _))) = (!p.is_control()).then(|| p.chunks()) else {
        return;
    };
    for (i, c) in chunks.iter().enumerate() {
        if let Ok((h, body)) = crate::packet::msg::split(c.data)
            && let (true, Some(Err(e))) =
                (h.sys, crate::packet::msg::decode_sys(p.version, h.id, body))
        {
            anomalies.push(Anomaly::MalformedMessage {
                chunk: i,
                error: e.to_string(),
            });
        }
    }
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

impl Connection {
    /// Collects the snapshot messages of a packet sent to the client.
    fn snapshots(
        &mut self,
        p: &ConnPacket<'_>,
        anomalies: &mut Vec<Anomaly>,
        done: &mut Vec<SnapshotReceived>,
    ) {
        use crate::packet::msg::{self, MsgId, Value};
        let Some(Ok((chunks, _))) = (!p.is_control()).then(|| p.chunks()) else {
            return;
        };
        let (snap, empty, single) = snap_ids(p.version);
        for c in &chunks {
            let Ok((h, body)) = msg::split(c.data) else {
                continue;
            };
            let MsgId::Ordinal(id) = h.id else { continue };
            if !h.sys || ![snap, empty, single].contains(&id) {
                continue;
            }
            let Some(Ok(fields)) = msg::decode_sys(p.version, h.id, body) else {
                continue;
            };
            let int = |name| match fields.get(name) {
                Some(Value::Int(v)) => Some(*v),
                _ => None,
            };
            let data: &[u8] = match fields.get("data") {
                Some(Value::Bytes(b)) => b,
                _ => &[],
            };
            let size = data.len();
            let (Some(tick), Some(delta_tick)) = (int("tick"), int("delta_tick")) else {
                continue;
            };
            if id == empty || id == single {
                done.push(SnapshotReceived {
                    tick,
                    delta_tick,
                    parts: i32::from(id == single),
                    size,
                    crc: int("crc"),
                    data: data.to_vec(),
                });
                continue;
            }
            let (num_parts, part) = (int("num_parts").unwrap_or(0), int("part").unwrap_or(0));
            if !(1..=64).contains(&num_parts) || !(0..num_parts).contains(&part) || size > 900 {
                anomalies.push(Anomaly::InvalidSnapPart {
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
                        anomalies.push(Anomaly::IncompleteSnapshot {
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
                done.push(SnapshotReceived {
                    tick,
                    delta_tick,
                    parts: num_parts,
                    size: parts.size,
                    crc: int("crc"),
                    data: parts.joined(),
                });
                self.snap = None;
            }
        }
    }

    fn feed(&mut self, p: &ConnPacket<'_>, direction: Direction, anomalies: &mut Vec<Anomaly>) {
        if let Some((id, data)) = p.control() {
            self.control(p, id, data, direction);
            return;
        }
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
            anomalies.push(Anomaly::WrongToken {
                expected: hex::encode(expected),
                got: hex::encode(got),
            });
            return;
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
                return;
            }
        }
        receiver.peer_ack = p.ack;
        let Ok((chunks, _)) = p.chunks() else {
            return;
        };
        for chunk in &chunks {
            let Some(seq) = chunk.header.seq(p.version) else {
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
