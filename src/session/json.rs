//! A captured datagram as one line of `pcap dump --format jsonl` (the
//! command's and the Python package's `Capture`).

use super::{Anomaly, Decoded, Direction, ReplaySummary, SnapshotReceived, Summary};
use crate::capture::Capture;
use crate::codec::DecodeError;
use crate::packet::json::{PacketJson, ReencodeJson};
use crate::packet::{PacketVerdicts, Version, VersionReason};
use serde::Serialize;

/// One `datagram` line (src/schema.md, `pcap dump`).
#[derive(Serialize)]
pub struct DatagramLine<'a> {
    kind: &'static str,
    frame: usize,
    offset: u64,
    time: f64,
    direction: Direction,
    peer: String,
    version: Version,
    version_reason: VersionReason,
    bytes: usize,
    verdict: PacketVerdicts,
    #[serde(skip_serializing_if = "Option::is_none")]
    packet: Option<PacketJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a DecodeError>,
    reencode: ReencodeJson,
    failed: bool,
    anomalies: &'a [Anomaly],
    snapshots: &'a [SnapshotReceived],
}

impl<'a> DatagramLine<'a> {
    /// The line of a datagram the session replay decoded.
    pub fn new(d: &'a Decoded<'a>) -> DatagramLine<'a> {
        let dg = d.datagram;
        DatagramLine {
            kind: "datagram",
            frame: dg.frame,
            offset: dg.offset,
            time: dg.time.as_secs_f64(),
            direction: d.direction,
            peer: d.peer.to_string(),
            version: d.version,
            version_reason: d.version_reason,
            bytes: dg.payload.len(),
            verdict: d.verdict,
            packet: d
                .packet
                .as_ref()
                .ok()
                .map(|p| PacketJson::new(p, d.contents.as_ref(), dg.offset)),
            error: d.packet.as_ref().err(),
            reencode: ReencodeJson::of(d.packet.is_ok(), d.mismatch),
            failed: d.failed(),
            anomalies: &d.anomalies,
            snapshots: &d.snapshots,
        }
    }
}

/// The `end` line (src/schema.md, `pcap dump`): the session's totals
/// after its last datagram, and how reading the capture ended.
#[derive(Serialize)]
pub struct EndLine<'a> {
    kind: &'static str,
    port: u16,
    totals: &'a Summary,
    replay: &'a ReplaySummary,
    frames: usize,
    truncated: bool,
    error: Option<&'a DecodeError>,
}

impl<'a> EndLine<'a> {
    /// The end line of the session on `port` of `capture`.
    pub fn new(
        capture: &'a Capture,
        port: u16,
        totals: &'a Summary,
        replay: &'a ReplaySummary,
    ) -> EndLine<'a> {
        EndLine {
            kind: "end",
            port,
            totals,
            replay,
            frames: capture.frames(),
            truncated: capture.truncated(),
            error: capture.error.as_ref(),
        }
    }
}
