//! A captured session: every UDP datagram of a capture decoded as the
//! server side would read it, once, down to its messages; a byte-exact
//! re-encoding check of every layer; and a replay of what real peers would
//! have done with it.
//!
//! The server port is given or taken as the port most datagrams use. Each
//! peer's protocol version is fixed by its first datagram, the way DDNet's
//! server fixes it for an unknown peer (a known peer keeps its slot's).
//! Each peer's [`Connection`] keeps its replay state and the snapshots its
//! client rebuilt.
//!
//! ```
//! use teeoracle::{capture, session};
//!
//! let bytes = std::fs::read("corpus/packet/ddnet-20.1/A_join_move_leave.pcap")?;
//! let capture = capture::read(&bytes)?;
//! let port = session::server_port(&capture).unwrap();
//! let mut s = session::Session::new(&capture, port);
//! // The first datagram: the client's CONNECT.
//! let first = s.next_datagram().unwrap();
//! assert_eq!(first.direction, session::Direction::ToServer);
//! assert!(first.anomalies.is_empty() && !first.failed(), "{:?}", first.anomalies);
//! // The rest, for the totals.
//! let (summary, replay) = s.finish();
//! assert_eq!((summary.datagrams, summary.exact, summary.peers), (1158, 1158, 1));
//! assert_eq!((replay.snapshots, replay.rebuilt), (421, 421));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "capture")]
pub mod check;
mod connection;
pub mod json;

pub use connection::{
    Anomaly, Cause, Connection, Endpoint, Gap, SnapParts, SnapshotReceived, is_seq_in_backroom,
};

use crate::capture::{Capture, Datagram};
use crate::codec::{DecodeError, Mode, Reader};
use crate::packet::{
    Contents, Mismatch, Packet, PacketCtx, PacketVerdicts, TokenMode, Version, VersionReason,
    detect_version, reencode,
};
use connection::{At, Judged};
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;

/// Which way a datagram went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From a client to the server port.
    ToServer,
    /// From the server port to a client.
    ToClient,
}

/// One datagram, decoded once and judged.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The datagram as captured.
    pub datagram: &'a Datagram,
    /// Which way it went.
    pub direction: Direction,
    /// The client's address (the peer that is not the server).
    pub peer: SocketAddr,
    /// The protocol its peer speaks.
    pub version: Version,
    /// Why that version (fixed by the peer's first datagram).
    pub version_reason: VersionReason,
    /// The packet, or why it does not decode (at its file byte).
    pub packet: Result<Packet<'a>, DecodeError>,
    /// What DDNet (and, for 0.7, Teeworlds 0.7.5) does with it. A datagram
    /// DDNet drops is not replayed: its connection never sees it.
    pub verdict: PacketVerdicts,
    /// A data packet's chunks and messages (offsets in its errors count
    /// bytes of the payload; `payload_error` has the first one placed in
    /// the file).
    pub contents: Option<Contents<'a>>,
    /// The first chunk or message header that cannot be read, at its file
    /// byte (inside the decompressed payload for a compressed packet).
    pub payload_error: Option<DecodeError>,
    /// Where re-encoding first differs from the datagram, if anywhere.
    pub mismatch: Option<Mismatch>,
    /// What a real peer would do differently from accepting it.
    pub anomalies: Vec<Anomaly>,
    /// Snapshots its client completed with it.
    pub snapshots: Vec<SnapshotReceived>,
}

impl Decoded<'_> {
    /// It does not decode, its payload cannot be read, or it does not
    /// re-encode to its exact bytes.
    pub fn failed(&self) -> bool {
        self.packet.is_err() || self.payload_error.is_some() || self.mismatch.is_some()
    }
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

/// Totals over a session's datagrams.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Datagrams to or from the server port.
    pub datagrams: usize,
    /// Of those, sent to the server.
    pub to_server: usize,
    /// Sent to a client.
    pub to_client: usize,
    /// Distinct clients.
    pub peers: usize,
    /// Datagrams that re-encode byte-exactly at every layer.
    pub exact: usize,
    /// Datagrams that decode but re-encode differently.
    pub mismatched: usize,
    /// Datagrams that do not decode, or whose payload cannot be read.
    pub errors: usize,
    /// Datagrams DDNet 20.1 drops ([`Decoded::verdict`]); decoded and
    /// counted like the rest, but not replayed.
    pub dropped: usize,
    /// Control packets.
    pub control: usize,
    /// Connectionless packets.
    pub connless: usize,
    /// Data packets with a compressed payload.
    pub compressed: usize,
    /// Chunks of data packets.
    pub chunks: usize,
    /// Of those, vital chunks.
    pub vital_chunks: usize,
    /// Messages (system, game and extended) read into named fields.
    pub typed_messages: usize,
    /// Typed messages whose fields do not re-encode to the exact body.
    pub typed_inexact: usize,
}

/// What a session replay found, in totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplaySummary {
    /// Anomalies by kind ([`Anomaly::kind`]).
    pub anomalies: BTreeMap<crate::report::Code, usize>,
    /// Snapshots the clients received completely (SNAPEMPTY included).
    pub snapshots: usize,
    /// Of those, snapshots sent in more than one SNAP part.
    pub multi_part_snapshots: usize,
    /// Snapshots rebuilt from their base.
    pub rebuilt: usize,
    /// Of those, how many carried a CRC, which matched (SNAPEMPTY carries
    /// none).
    pub crc_checked: usize,
}

/// A capture's session, decoded one datagram at a time: each datagram to or
/// from the port is decoded once (packet, chunks, messages, fields),
/// re-encoded, and fed to its peer's [`Connection`].
pub struct Session<'c> {
    datagrams: std::slice::Iter<'c, Datagram>,
    port: u16,
    connections: BTreeMap<SocketAddr, Connection>,
    summary: Summary,
    replay: ReplaySummary,
    /// The current datagram's decompressed payload.
    payload: Vec<u8>,
    /// Re-encoding scratch.
    encoded: Vec<u8>,
    /// A snapshot delta's ints.
    ints: Vec<i32>,
}

impl<'c> Session<'c> {
    /// The session of the datagrams to or from `port`.
    pub fn new(capture: &'c Capture, port: u16) -> Session<'c> {
        Session {
            datagrams: capture.datagrams.iter(),
            port,
            connections: BTreeMap::new(),
            summary: Summary::default(),
            replay: ReplaySummary::default(),
            payload: Vec::with_capacity(crate::packet::MAX_PAYLOAD),
            encoded: Vec::with_capacity(crate::packet::MAX_PACKET_SIZE),
            ints: Vec::new(),
        }
    }

    /// Totals so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Replay totals so far.
    pub fn replay_summary(&self) -> &ReplaySummary {
        &self.replay
    }

    /// Every peer's connection so far, by client address.
    pub fn connections(&self) -> &BTreeMap<SocketAddr, Connection> {
        &self.connections
    }

    /// Decodes the rest of the session and returns its totals.
    pub fn finish(mut self) -> (Summary, ReplaySummary) {
        while self.next_datagram().is_some() {}
        (self.summary, self.replay)
    }

    /// Decodes and judges the next datagram to or from the port (in
    /// capture order); `None` after the last one.
    pub fn next_datagram(&mut self) -> Option<Decoded<'_>> {
        let Session {
            datagrams,
            port,
            connections,
            summary,
            replay,
            payload,
            encoded,
            ints,
        } = self;
        let (d, direction, peer) = datagrams.find_map(|d| {
            if d.dst.port() == *port {
                Some((d, Direction::ToServer, d.src))
            } else if d.src.port() == *port {
                Some((d, Direction::ToClient, d.dst))
            } else {
                None
            }
        })?;
        let conn = connections.entry(peer).or_insert_with(|| {
            let (version, reason) = detect_version(&d.payload);
            Connection::new(version, reason)
        });
        let (version, version_reason) = (conn.version, conn.version_reason);
        let ctx = PacketCtx {
            version: Some(version),
            token: TokenMode::Auto,
        };
        let mut r = Reader::at(&d.payload, d.offset, Mode::Lenient);
        let packet = Packet::decode_into(&mut r, ctx, Some(payload));
        let contents = match &packet {
            Ok(Packet::Connection(p)) if !p.is_control() => p
                .borrowed_payload()
                .map(|bytes| Contents::read(bytes, p.version, p.num_chunks)),
            _ => None,
        };
        let payload_error = match (&packet, &contents) {
            (Ok(Packet::Connection(p)), Some(c)) => {
                c.first_error().map(|e| p.locate(e.clone(), d.offset))
            }
            _ => None,
        };
        let mismatch = packet
            .as_ref()
            .ok()
            .and_then(|p| reencode(&d.payload, p, contents.as_ref(), encoded));
        let verdict = PacketVerdicts::of(&d.payload, version, packet.as_ref().ok());
        summary.dropped += usize::from(verdict.ddnet_drops());

        let mut judged = Judged::default();
        let anomalies = &mut judged.anomalies;
        match &packet {
            Err(e) => anomalies.push(Anomaly::Malformed { error: e.clone() }),
            // DDNet drops it before its connection sees it.
            Ok(_) if verdict.ddnet_drops() => {}
            Ok(Packet::Connection(p)) => {
                let at = At { offset: d.offset };
                conn.feed(p, contents.as_ref(), direction, at, &mut judged, ints);
                let anomalies = &mut judged.anomalies;
                match (&payload_error, &contents) {
                    (Some(e), _) => anomalies.push(Anomaly::Malformed { error: e.clone() }),
                    (None, Some(c)) => {
                        for (i, chunk) in c.chunks.iter().enumerate() {
                            let Ok(m) = &chunk.message else { continue };
                            if let Some(Err(e)) = &m.fields {
                                anomalies.push(Anomaly::MalformedMessage {
                                    chunk: i,
                                    error: p.locate(e.clone(), d.offset),
                                });
                            } else if let Some(rejected) = m.rejected() {
                                anomalies.push(Anomaly::RejectedMessage {
                                    chunk: i,
                                    name: m.name(),
                                    rejected,
                                });
                            }
                        }
                    }
                    (None, None) => {}
                }
            }
            Ok(_) => {}
        }
        let Judged {
            anomalies,
            snapshots,
        } = judged;
        conn.datagrams += 1;
        conn.anomalies += anomalies.len();

        count(
            summary,
            &packet,
            contents.as_ref(),
            &payload_error,
            mismatch,
            direction,
            encoded,
        );
        summary.peers = connections.len();
        for s in &snapshots {
            replay.snapshots += 1;
            replay.multi_part_snapshots += usize::from(s.parts > 1);
            replay.rebuilt += usize::from(s.rebuilt);
            replay.crc_checked += usize::from(s.rebuilt && s.crc.is_some());
        }
        for a in &anomalies {
            *replay.anomalies.entry(a.kind()).or_insert(0) += 1;
        }
        Some(Decoded {
            datagram: d,
            direction,
            peer,
            version,
            version_reason,
            packet,
            verdict,
            contents,
            payload_error,
            mismatch,
            anomalies,
            snapshots,
        })
    }
}

/// Adds one datagram to the totals.
fn count(
    s: &mut Summary,
    packet: &Result<Packet<'_>, DecodeError>,
    contents: Option<&Contents<'_>>,
    payload_error: &Option<DecodeError>,
    mismatch: Option<Mismatch>,
    direction: Direction,
    buf: &mut Vec<u8>,
) {
    s.datagrams += 1;
    match direction {
        Direction::ToServer => s.to_server += 1,
        Direction::ToClient => s.to_client += 1,
    }
    let p = match packet {
        Err(_) => {
            s.errors += 1;
            return;
        }
        Ok(_) if payload_error.is_some() => {
            s.errors += 1;
            return;
        }
        Ok(p) => p,
    };
    match mismatch {
        None => s.exact += 1,
        Some(_) => s.mismatched += 1,
    }
    match p {
        Packet::Connection(c) if c.is_control() => s.control += 1,
        Packet::Connection(c) => {
            s.compressed += usize::from(c.compression.is_some());
            let Some(contents) = contents else { return };
            s.chunks += contents.chunks.len();
            for chunk in &contents.chunks {
                s.vital_chunks += usize::from(chunk.chunk.header.vital());
                if let Ok(m) = &chunk.message
                    && let Some(exact) = m.fields_exact(c.version, buf)
                {
                    s.typed_messages += 1;
                    s.typed_inexact += usize::from(!exact);
                }
            }
        }
        _ => s.connless += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{Capture, Datagram};
    use crate::codec::encode_to_vec;
    use crate::packet::{CHUNK_VITAL, ChunkHeader};

    const TOKEN: [u8; 4] = [0x10, 0xa3, 0xd6, 0xa0];

    /// A 0.6 data packet (ack 0, no compression) of `chunks`, each
    /// `(seq if vital, message bytes)`, with the connection's token.
    fn data(chunks: &[(Option<u16>, Vec<u8>)]) -> Vec<u8> {
        let mut p = vec![0, 0, chunks.len() as u8];
        for (seq, body) in chunks {
            let flags = if seq.is_some() { CHUNK_VITAL } else { 0 };
            p.extend(encode_to_vec(
                &ChunkHeader::new(Version::V06, flags, body.len() as u16, *seq),
                Version::V06,
            ));
            p.extend(body);
        }
        p.extend(TOKEN);
        p
    }

    /// SNAPSINGLE of `tick` on `base` (-1: the empty snapshot) with an
    /// empty delta (no items: its snapshot's CRC is 0) and `crc`.
    fn snap(tick: i32, base: i32, crc: i32) -> (Option<u16>, Vec<u8>) {
        let mut body = vec![7 << 1 | 1];
        for v in [tick, tick - base, crc, 3, 0, 0, 0] {
            crate::packer::write_int(&mut body, v);
        }
        (None, body)
    }

    /// The kinds of anomalies of each datagram of a made-up 0.6 session:
    /// `(to the server, bytes)`, after CONNECT and CONNECTACCEPT.
    fn kinds(packets: Vec<(bool, Vec<u8>)>) -> Vec<Vec<(&'static str, String)>> {
        let mut all = vec![
            (true, hex::decode("10000001544b454effffffff").unwrap()),
            (false, hex::decode("10000002544b454e10a3d6a0").unwrap()),
        ];
        all.extend(packets);
        let (server, client) = ("127.0.0.1:8303", "127.0.0.1:40000");
        let cap = Capture {
            format: "pcap",
            datagrams: all
                .into_iter()
                .enumerate()
                .map(|(i, (to_server, payload))| {
                    let (src, dst) = if to_server {
                        (client, server)
                    } else {
                        (server, client)
                    };
                    Datagram {
                        frame: i + 1,
                        offset: 1000 * (i as u64 + 1),
                        time: std::time::Duration::ZERO,
                        src: src.parse().unwrap(),
                        dst: dst.parse().unwrap(),
                        payload,
                    }
                })
                .collect(),
            ..Capture::default()
        };
        let mut s = Session::new(&cap, 8303);
        let mut out = Vec::new();
        while let Some(d) = s.next_datagram() {
            out.push(
                d.anomalies
                    .iter()
                    .map(|a| (a.kind().as_str(), a.to_string()))
                    .collect(),
            );
        }
        out.drain(..2);
        out
    }

    #[test]
    fn a_crc_mismatch_fails_unless_the_capture_shows_a_gap_before_it() {
        let got = kinds(vec![
            (false, data(&[snap(10, -1, 0)])),              // rebuilt
            (false, data(&[snap(11, 10, 5)])),              // CRC 5, the rebuilt one has 0
            (false, data(&[(Some(1), vec![14 << 1 | 1])])), // READY, seq 1
            (false, data(&[(Some(3), vec![14 << 1 | 1])])), // seq 2 never seen
            (false, data(&[snap(12, 10, 5)])),
        ]);
        let codes: Vec<Vec<&str>> = got
            .iter()
            .map(|d| d.iter().map(|(k, _)| *k).collect())
            .collect();
        assert_eq!(
            codes,
            [
                vec![],
                vec!["snapshot_crc_mismatch"],
                vec![],
                vec!["out_of_order"],
                vec!["snapshot_crc_mismatch_after_gap"],
            ],
            "{got:#?}"
        );
        assert!(
            got[4][0].1.ends_with(
                "(after a gap in the capture at byte 6000: vital seq 3 where 2 was expected)"
            ),
            "{}",
            got[4][0].1
        );
        assert_eq!(
            check::anomaly_severity(crate::report::Code::SnapshotCrcMismatch),
            crate::report::Severity::Fail
        );
        use crate::report::Code;
        for kind in [
            Code::SnapshotCrcMismatchAfterGap,
            Code::SnapshotMissingBase,
            Code::SnapshotBadDelta,
            Code::SnapshotInvalidItem,
            Code::SnapshotOldMapAck,
        ] {
            assert_eq!(
                check::anomaly_severity(kind),
                crate::report::Severity::Warn,
                "{kind}"
            );
        }
        assert_eq!(
            check::anomaly_severity(crate::report::Code::Duplicate),
            crate::report::Severity::Note
        );
    }

    /// DDNet's client purges its snapshots at MAP_CHANGE and its server
    /// restarts ticks and purges its own: no base of the map before is
    /// ever used, and the client that acknowledges one is at fault.
    #[test]
    fn a_map_change_starts_a_new_snapshot_history() {
        // MAP_CHANGE "x", crc 0, size 0.
        let map_change = (Some(1), vec![2 << 1 | 1, b'x', 0, 0, 0]);
        // INPUT acking `tick`, intended tick 20, 10 ints of zeros.
        let input = |tick: u8| {
            let mut body = vec![16 << 1 | 1, tick, 20, 40];
            body.extend([0; 10]);
            data(&[(None, body)])
        };
        let got = kinds(vec![
            (false, data(&[snap(10, -1, 0)])),              // rebuilt
            (false, data(&[(Some(3), vec![14 << 1 | 1])])), // a gap, on the old map
            (false, data(&[map_change])),
            (true, input(10)),                // the old map's tick
            (true, input(10)),                // counted once
            (false, data(&[snap(3, 10, 0)])), // the new map's 10 is not there
            (false, data(&[snap(4, -1, 0)])), // rebuilt
            (false, data(&[snap(5, 4, 5)])),  // the gap was on the old map
            (true, input(4)),
        ]);
        let codes: Vec<Vec<&str>> = got
            .iter()
            .map(|d| d.iter().map(|(k, _)| *k).collect())
            .collect();
        assert_eq!(
            codes,
            [
                vec![],
                vec!["out_of_order"],
                vec![],
                vec!["snapshot_old_map_ack"],
                vec![],
                vec!["snapshot_missing_base"],
                vec![],
                vec!["snapshot_crc_mismatch"],
                vec![],
            ],
            "{got:#?}"
        );
        assert!(
            got[5][0].1.ends_with(
                "(the client acknowledged tick 10 from the map before the last MAP_CHANGE (its bug))"
            ),
            "{}",
            got[5][0].1
        );
    }
}
