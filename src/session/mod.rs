//! A captured session: every UDP datagram of a capture decoded as the
//! server side would read it, with a byte-exact re-encoding check.
//!
//! The server port is given or taken as the port most datagrams use. Each
//! peer's protocol version is fixed by its first datagram, the way DDNet's
//! server fixes it for an unknown peer (a known peer keeps its slot's).

#[cfg(feature = "capture")]
pub mod check;
mod connection;

pub use connection::{
    Anomaly, Connection, Endpoint, SessionReplay, SnapParts, SnapshotReceived, Verdict,
    is_seq_in_backroom,
};

use crate::capture::{Capture, Datagram};
use crate::codec::{Codec, DecodeError, Mode, Reader, first_difference};
use crate::packet::{Packet, PacketCtx, TokenMode, Version, VersionReason, detect_version};
use crate::snapshot::ItemSizes;
use crate::snapshot::replay::{Base, Fault, FaultKind, SnapData, SnapInput, SnapshotHistory};
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;

/// Which way a datagram went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    ToServer,
    ToClient,
}

/// One datagram, decoded.
#[derive(Debug)]
pub struct Decoded<'a> {
    pub datagram: &'a Datagram,
    pub direction: Direction,
    /// The client's address (the peer that is not the server).
    pub peer: SocketAddr,
    pub version: Version,
    pub packet: Result<Packet<'a>, DecodeError>,
    /// A data packet whose chunks or messages cannot be read (offsets in
    /// the payload, after decompression).
    pub payload_error: Option<DecodeError>,
    /// First byte where re-encoding differs from the datagram, if any.
    pub mismatch: Option<usize>,
}

/// The server port of a capture: the port most datagrams use.
pub fn server_port(capture: &Capture) -> Option<u16> {
    let mut uses: BTreeMap<u16, usize> = BTreeMap::new();
    for d in &capture.datagrams {
        *uses.entry(d.src.port()).or_default() += 1;
        *uses.entry(d.dst.port()).or_default() += 1;
    }
    // Most used; the lowest port on a tie, so the choice is deterministic.
    uses.into_iter()
        .max_by_key(|&(port, n)| (n, std::cmp::Reverse(port)))
        .map(|(port, _)| port)
}

/// Decodes every datagram to or from `port`, in capture order.
pub fn decode_all(capture: &Capture, port: u16) -> Vec<Decoded<'_>> {
    let mut versions: BTreeMap<SocketAddr, (Version, VersionReason)> = BTreeMap::new();
    let mut out = Vec::with_capacity(capture.datagrams.len());
    for d in &capture.datagrams {
        let (direction, peer) = if d.dst.port() == port {
            (Direction::ToServer, d.src)
        } else if d.src.port() == port {
            (Direction::ToClient, d.dst)
        } else {
            continue;
        };
        let (version, _) = *versions
            .entry(peer)
            .or_insert_with(|| detect_version(&d.payload));
        out.push(decode_one(d, direction, peer, version));
    }
    out
}

fn decode_one(
    d: &Datagram,
    direction: Direction,
    peer: SocketAddr,
    version: Version,
) -> Decoded<'_> {
    let ctx = PacketCtx {
        version: Some(version),
        token: TokenMode::Auto,
    };
    let packet = Packet::decode(&mut Reader::new(&d.payload, Mode::Lenient), ctx);
    let mismatch = packet.as_ref().ok().and_then(|p| {
        let mut bytes = Vec::with_capacity(d.payload.len());
        p.encode(&mut bytes, ctx);
        first_difference(&bytes, &d.payload).or_else(|| chunk_mismatch(p))
    });
    let payload_error = packet.as_ref().ok().and_then(|p| payload_error(p).err());
    Decoded {
        datagram: d,
        direction,
        peer,
        version,
        packet,
        payload_error,
        mismatch,
    }
}

/// Reads every chunk and message header of a data packet.
pub fn payload_error(packet: &Packet<'_>) -> Result<(), DecodeError> {
    let Packet::Connection(p) = packet else {
        return Ok(());
    };
    if p.is_control() {
        return Ok(());
    }
    let (chunks, _) = p.chunks()?;
    for c in &chunks {
        crate::packet::msg::split(c.data)?;
    }
    Ok(())
}

/// Where re-encoding a data packet's chunks differs from its payload.
fn chunk_mismatch(packet: &Packet<'_>) -> Option<usize> {
    let Packet::Connection(p) = packet else {
        return None;
    };
    if p.is_control() {
        return None;
    }
    let (chunks, rest) = p.chunks().ok()?;
    let mut bytes = Vec::with_capacity(p.payload.len());
    for c in &chunks {
        c.encode(&mut bytes, p.version);
    }
    bytes.extend_from_slice(rest);
    first_difference(&bytes, &p.payload)
}

/// Totals over a session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub datagrams: usize,
    pub to_server: usize,
    pub to_client: usize,
    pub peers: usize,
    pub exact: usize,
    pub mismatched: usize,
    pub errors: usize,
    pub control: usize,
    pub connless: usize,
    pub compressed: usize,
    pub chunks: usize,
    pub vital_chunks: usize,
    /// System messages read into named fields.
    pub typed_messages: usize,
    /// Typed messages whose fields do not re-encode to the exact body.
    pub typed_inexact: usize,
}

/// Counts over decoded datagrams.
pub fn summarize(decoded: &[Decoded<'_>]) -> Summary {
    let mut s = Summary {
        datagrams: decoded.len(),
        ..Summary::default()
    };
    let mut peers = std::collections::BTreeSet::new();
    for d in decoded {
        peers.insert(d.peer);
        match d.direction {
            Direction::ToServer => s.to_server += 1,
            Direction::ToClient => s.to_client += 1,
        }
        match &d.packet {
            Err(_) => s.errors += 1,
            Ok(_) if d.payload_error.is_some() => s.errors += 1,
            Ok(p) => {
                match d.mismatch {
                    None => s.exact += 1,
                    Some(_) => s.mismatched += 1,
                }
                match p {
                    Packet::Connection(c) if c.is_control() => s.control += 1,
                    Packet::Connection(c) => {
                        s.compressed += usize::from(c.compression.is_some());
                        if let Ok((chunks, _)) = c.chunks() {
                            s.chunks += chunks.len();
                            s.vital_chunks += chunks.iter().filter(|c| c.header.vital()).count();
                            for chunk in &chunks {
                                let Ok((h, body)) = crate::packet::msg::split(chunk.data) else {
                                    continue;
                                };
                                if let (true, Some(Ok(fields))) =
                                    (h.sys, crate::packet::msg::decode_sys(c.version, h.id, body))
                                {
                                    s.typed_messages += 1;
                                    let mut again = Vec::with_capacity(body.len());
                                    fields.encode(&mut again);
                                    s.typed_inexact += usize::from(again != body);
                                }
                            }
                        }
                    }
                    _ => s.connless += 1,
                }
            }
        }
    }
    s.peers = peers.len();
    s
}

/// What a session replay found, in totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplaySummary {
    /// Anomalies by kind.
    pub anomalies: BTreeMap<&'static str, usize>,
    /// Snapshots the clients received completely (SNAPEMPTY included).
    pub snapshots: usize,
    /// Of those, snapshots sent in more than one SNAP part.
    pub multi_part_snapshots: usize,
    /// Snapshots rebuilt from their base, and of those, how many carried a
    /// CRC that matched (SNAPEMPTY carries none).
    pub rebuilt: usize,
    pub crc_checked: usize,
}

/// Replays a decoded session: every datagram's verdict, and the totals.
pub fn replay(decoded: &[Decoded<'_>]) -> (Vec<Verdict>, ReplaySummary) {
    let mut replay = SessionReplay::default();
    let mut summary = ReplaySummary::default();
    let mut histories: BTreeMap<SocketAddr, SnapshotHistory> = BTreeMap::new();
    let mut ints = Vec::new();
    let verdicts: Vec<Verdict> = decoded
        .iter()
        .map(|d| {
            let mut v = replay.feed(d);
            // Each client rebuilds the snapshots it received, in order.
            for s in &v.snapshots {
                let history = histories.entry(d.peer).or_insert_with(|| {
                    SnapshotHistory::new(match d.version {
                        Version::V06 => ItemSizes::ddnet_06(),
                        Version::V07 => ItemSizes::teeworlds_07(),
                    })
                });
                let base_tick = s.tick - s.delta_tick;
                let base = if base_tick < 0 {
                    Base::Empty
                } else {
                    Base::Tick(base_tick)
                };
                let offset = d.datagram.frame as u64;
                let fed = match crate::packer::read_ints_into(&s.data, &mut ints) {
                    Ok(()) => history
                        .feed(SnapInput {
                            offset,
                            tick: s.tick,
                            data: SnapData::Delta { base, ints: &ints },
                            crc: s.crc,
                        })
                        .map(|_| ()),
                    Err(e) => Err(Fault {
                        offset,
                        tick: s.tick,
                        kind: FaultKind::Payload {
                            chunk: "snapshot",
                            error: e,
                        },
                    }),
                };
                match fed {
                    Ok(()) => {
                        summary.rebuilt += 1;
                        summary.crc_checked += usize::from(s.crc.is_some());
                    }
                    Err(f) => v.anomalies.push(Anomaly::Snapshot(f)),
                }
                v.anomalies
                    .extend(history.take_warnings().into_iter().map(Anomaly::Snapshot));
            }
            v
        })
        .collect();
    for v in &verdicts {
        summary.snapshots += v.snapshots.len();
        summary.multi_part_snapshots += v.snapshots.iter().filter(|s| s.parts > 1).count();
    }
    for a in verdicts.iter().flat_map(|v| &v.anomalies) {
        let kind = match a {
            Anomaly::Malformed { .. } => "malformed",
            Anomaly::WrongToken { .. } => "wrong_token",
            Anomaly::AckOutOfRange { .. } => "ack_out_of_range",
            Anomaly::Duplicate { .. } => "duplicate",
            Anomaly::OutOfOrder { .. } => "out_of_order",
            Anomaly::ResendRequested => "resend_requested",
            Anomaly::MalformedMessage { .. } => "malformed_message",
            Anomaly::InvalidSnapPart { .. } => "invalid_snap_part",
            Anomaly::IncompleteSnapshot { .. } => "incomplete_snapshot",
            Anomaly::Snapshot(f) => match f.kind {
                FaultKind::MissingBase { .. } | FaultKind::NoPrevious => "snapshot_missing_base",
                FaultKind::Keyframe(_) | FaultKind::Delta(_) | FaultKind::Payload { .. } => {
                    "snapshot_bad_delta"
                }
                FaultKind::CrcMismatch { .. } => "snapshot_crc_mismatch",
                FaultKind::InvalidItem { .. } => "snapshot_invalid_item",
            },
        };
        *summary.anomalies.entry(kind).or_insert(0) += 1;
    }
    (verdicts, summary)
}
