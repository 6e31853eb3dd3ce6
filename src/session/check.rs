//! The capture format for [`crate::check`]: every datagram to or from the
//! server port decodes and re-encodes byte-exactly (with its chunks and
//! message headers), and the session replay says what real peers would
//! have done with it.

use super::{Anomaly, Decoded, Direction, ReplaySummary, Session, Summary, server_port};
use crate::capture::{self, is_capture};
use crate::input::Source;
use crate::packet::{Layer, Mismatch, Packet};
use crate::report::{Code, Context, Finding, Format, RoundTrip, Severity, Verdict};
use std::collections::BTreeMap;

/// The capture (pcap, pcapng) format.
pub struct CaptureFormat;

impl Format for CaptureFormat {
    fn name(&self) -> &'static str {
        "capture"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".pcap", ".pcapng", ".cap"]
    }

    fn sniff(&self, head: &[u8]) -> bool {
        is_capture(head)
    }

    fn check(&self, source: Source, _: &Context<'_>, verdict: &mut Verdict) {
        match source.into_bytes() {
            Ok(bytes) => {
                check_capture(&bytes, None, verdict);
            }
            Err(e) => verdict.push(Finding::new(
                Severity::Fail,
                Code::Io,
                format!("cannot read: {e}"),
            )),
        }
        verdict.settle();
    }
}

/// Dropped datagrams listed one by one; past these, one finding counts
/// the rest, so that a flood does not flood the report.
const LISTED_DROPS: usize = 100;

/// Checks the capture in `bytes` on the server port `port` (default: the
/// port most datagrams use) into `verdict`, and returns the session's
/// totals. Datagrams that do not decode or re-encode exactly fail; each
/// kind of session-replay anomaly is one finding with its count and first
/// occurrence, as serious as [`anomaly_severity`] says. A port no datagram
/// uses fails: nothing would have been checked.
pub fn check_capture(
    bytes: &[u8],
    port: Option<u16>,
    verdict: &mut Verdict,
) -> Option<(Summary, ReplaySummary)> {
    let capture = match capture::read(bytes) {
        Ok(c) => c,
        Err(e) => {
            verdict.push(Finding::new(Severity::Fail, Code::Capture, e.to_string()).at(e.offset));
            verdict.error = Some(e);
            return None;
        }
    };
    // Reading stopped early: the frames before are checked all the same.
    if let (Some(e), Some(note)) = (&capture.error, capture.stop_note()) {
        if capture.truncated() {
            verdict.push(Finding::new(Severity::Warn, Code::Truncated, note).at(e.offset));
        } else {
            verdict.push(Finding::new(Severity::Fail, Code::Capture, note).at(e.offset));
            verdict.error = Some(e.clone());
        }
    }
    let Some(port) = port.or_else(|| server_port(&capture)) else {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::NoDatagrams,
            "the capture holds no UDP datagram",
        ));
        return None;
    };
    let mut session = Session::new(&capture, port);
    // The first datagram that does not decode, and the first that does not
    // re-encode exactly: (file byte, message).
    let mut first_error: Option<(u64, String)> = None;
    let mut first_mismatch: Option<(u64, String)> = None;
    // Datagrams DDNet drops. A warning, not a failure: the capture is what
    // a peer really sent, and decoding it is sound; a drop says the peer
    // sent something DDNet ignores, which a person should look at.
    let mut drops = Vec::new();
    // Each kind of replay anomaly's first occurrence.
    let mut firsts: BTreeMap<Code, First> = BTreeMap::new();
    while let Some(d) = session.next_datagram() {
        for a in &d.anomalies {
            firsts.entry(a.kind()).or_insert_with(|| First::of(&d, a));
        }
        if d.verdict.ddnet_drops() && drops.len() < LISTED_DROPS {
            drops.push(drop_finding(&d));
        }
        let frame = d.datagram.frame;
        let error = d.packet.as_ref().err().or(d.payload_error.as_ref());
        if let (None, Some(e)) = (&first_error, error) {
            first_error = Some((e.offset, format!("frame {frame}: {e}")));
        }
        if let (None, Some(m), Ok(p)) = (&first_mismatch, d.mismatch, &d.packet) {
            first_mismatch = Some(mismatch_at(&d, p, m));
        }
    }
    let (summary, replayed) = session.finish();
    if summary.datagrams == 0 {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::NoDatagrams,
            format!(
                "no datagram to or from port {port} ({} UDP datagrams in the capture)",
                capture.datagrams.len()
            ),
        ));
        return None;
    }
    verdict.counts.records = Some(summary.datagrams as u64);
    let more = &mut verdict.counts.more;
    more.insert("port", u64::from(port));
    more.insert("peers", summary.peers as u64);
    more.insert("chunks", summary.chunks as u64);
    more.insert("snapshots", replayed.snapshots as u64);
    more.insert("snapshots_rebuilt", replayed.rebuilt as u64);
    verdict.roundtrip = RoundTrip::Exact;
    if let Some((offset, message)) = first_error {
        verdict.push(
            Finding::new(Severity::Fail, Code::Decode, message)
                .at(offset)
                .times(summary.errors as u64),
        );
    }
    if let Some((offset, message)) = first_mismatch {
        verdict.roundtrip = RoundTrip::Differs { offset };
        verdict.push(
            Finding::new(Severity::Fail, Code::Roundtrip, message)
                .at(offset)
                .times(summary.mismatched as u64),
        );
    }
    verdict
        .counts
        .more
        .insert("dropped", summary.dropped as u64);
    for finding in drops {
        verdict.push(finding);
    }
    if summary.dropped > LISTED_DROPS {
        let rest = summary.dropped - LISTED_DROPS;
        verdict.push(
            Finding::new(
                Severity::Warn,
                Code::DdnetDrop,
                format!("{rest} more datagrams DDNet 20.1 drops"),
            )
            .times(rest as u64),
        );
    }
    for (kind, n) in &replayed.anomalies {
        let mut finding = Finding::new(
            anomaly_severity(*kind),
            *kind,
            format!("session replay: {n} x {kind}"),
        )
        .times(*n as u64);
        if let Some(first) = firsts.get(kind) {
            finding.message += &format!(
                "; first at frame {} ({}, {}): {}",
                first.frame, first.direction, first.peer, first.text
            );
            finding = finding.at(first.offset);
            if let Some(tick) = first.tick {
                finding = finding.in_tick(tick);
            }
        }
        verdict.push(finding);
    }
    let anomalies: usize = replayed.anomalies.values().sum();
    let stopped = match &capture.error {
        Some(e) if capture.truncated() => format!("; cut at byte {}", e.offset),
        Some(e) => format!("; unreadable from byte {}", e.offset),
        None => String::new(),
    };
    verdict.summary = format!(
        "{} datagrams byte-exact ({} peers, {} chunks, {} dropped by DDNet, {anomalies} replay anomalies){stopped}",
        summary.exact, summary.peers, summary.chunks, summary.dropped
    );
    Some((summary, replayed))
}

/// How serious a kind of session-replay anomaly is. Snapshot anomalies
/// are warnings (a client would not have rebuilt what the server meant:
/// explained by what the capture misses or by the client's own bug), but
/// a CRC mismatch nothing explains (the client had the base and every
/// part, the delta applied, only the CRC differs) fails: the server, or
/// teeoracle, computed the snapshot wrong. Everything else a real peer
/// copes with (duplicates, resends, drops) is a note.
pub fn anomaly_severity(kind: Code) -> Severity {
    match kind {
        Code::SnapshotCrcMismatch => Severity::Fail,
        k if k.is_snapshot_anomaly() => Severity::Warn,
        _ => Severity::Note,
    }
}

/// Snapshot anomalies a capture of well-behaved clients may have, since
/// the server made them: DDNet 16.4's repeated item and the deltas on the
/// snapshots it took away (which the client acknowledged, as `record`'s
/// bots acknowledge every snapshot without rebuilding it). `record` does
/// not count these as its bots' problems.
pub const SERVER_MADE: &[Code] = &[
    Code::SnapshotRepeatedItem,
    Code::SnapshotMissingBaseAfterRepeatedItem,
];

/// Where a kind of anomaly first happened.
struct First {
    frame: usize,
    offset: u64,
    tick: Option<i32>,
    direction: &'static str,
    peer: std::net::SocketAddr,
    text: String,
}

impl First {
    fn of(d: &Decoded<'_>, a: &Anomaly) -> First {
        First {
            frame: d.datagram.frame,
            offset: d.datagram.offset,
            tick: a.tick(),
            direction: match d.direction {
                Direction::ToServer => "to server",
                Direction::ToClient => "to client",
            },
            peer: d.peer,
            text: a.to_string(),
        }
    }
}

/// A datagram DDNet drops: its frame, direction and the rule, at its first
/// byte.
fn drop_finding(d: &Decoded<'_>) -> Finding {
    let dir = match d.direction {
        Direction::ToServer => "to server",
        Direction::ToClient => "to client",
    };
    Finding::new(
        Severity::Warn,
        Code::DdnetDrop,
        format!(
            "frame {} ({dir}, {}): ddnet 20.1 {}",
            d.datagram.frame, d.peer, d.verdict.ddnet
        ),
    )
    .at(d.datagram.offset)
}

/// The file byte and words of a datagram's first re-encoding difference.
fn mismatch_at(d: &Decoded<'_>, packet: &Packet<'_>, m: Mismatch) -> (u64, String) {
    let frame = d.datagram.frame;
    let start = d.datagram.offset;
    match (m.layer, packet) {
        (Layer::Payload, Packet::Connection(p)) => {
            let payload_at = start + p.header_len() as u64;
            let offset = match p.compression {
                Some(_) => payload_at,
                None => payload_at + m.offset as u64,
            };
            (
                offset,
                format!(
                    "frame {frame}: re-encoding its chunks and messages differs at byte {} of its payload",
                    m.offset
                ),
            )
        }
        _ => (
            start + m.offset as u64,
            format!(
                "frame {frame}: re-encoding differs at byte {} of the datagram",
                m.offset
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Status;

    fn corpus_a() -> Vec<u8> {
        crate::testing::corpus("packet/ddnet-20.1/A_join_move_leave.pcap")
    }

    fn corpus(name: &str) -> Vec<u8> {
        crate::testing::corpus(&format!("packet/{name}"))
    }

    #[test]
    fn a_damaged_record_fails_at_its_file_byte_after_the_frames_before_it() {
        let mut verdict = Verdict::new("record_501_bad_length.pcap");
        let bytes = corpus("malformed/record_501_bad_length.pcap");
        let (summary, _) = check_capture(&bytes, None, &mut verdict).unwrap();
        verdict.settle();
        assert_eq!(
            (summary.datagrams, summary.exact, verdict.counts.records),
            (500, 500, Some(500))
        );
        assert_eq!(verdict.status, Status::Fail);
        // One finding: the stop, as `capture` (not again as `decode`).
        let [f] = &verdict.findings[..] else {
            panic!("{:?}", verdict.findings)
        };
        assert_eq!((f.code, f.offset), (Code::Capture, Some(60087)));
        assert!(
            f.message
                .starts_with("cannot read the record after frame 500: at byte 60087 (0xeab7)"),
            "{}",
            f.message
        );
        assert_eq!(verdict.error.as_ref().map(|e| e.offset), Some(60087));
    }

    #[test]
    fn a_cut_last_record_warns_as_a_truncated_recording_does() {
        for (name, at) in [
            ("edge/cut_in_record_501.pcap", 60087),
            ("edge/cut_in_block_501.pcapng", 68868),
        ] {
            let mut verdict = Verdict::new(name);
            let (summary, _) = check_capture(&corpus(name), None, &mut verdict).unwrap();
            verdict.settle();
            assert_eq!((summary.datagrams, verdict.status), (500, Status::Warn));
            let [f] = &verdict.findings[..] else {
                panic!("{:?}", verdict.findings)
            };
            assert_eq!((f.code, f.offset), (Code::Truncated, Some(at)), "{name}");
            assert_eq!(verdict.error, None);
        }
    }

    #[test]
    fn datagrams_ddnet_drops_are_warnings_and_never_reach_the_replay() {
        let bytes = corpus("ddnet-verdicts/dropped_06.pcap");
        let mut verdict = Verdict::new("dropped_06");
        let (summary, replay) = check_capture(&bytes, None, &mut verdict).unwrap();
        verdict.settle();
        assert_eq!(verdict.status, Status::Warn);
        assert_eq!((summary.exact, summary.dropped), (10, 7));
        assert_eq!(verdict.counts.more["dropped"], 7);
        // Frame 7 acks a sequence the server never sent: replayed, it would
        // be an ack out of range, which is not among the anomalies. Frame
        // 9's emoticon 16 is out of DDNet's range: the datagram is
        // accepted, the message dropped.
        assert_eq!(
            replay.anomalies,
            [(Code::RejectedMessage, 1)].into_iter().collect(),
            "{:?}",
            replay.anomalies
        );
        let drops: Vec<_> = verdict
            .findings
            .iter()
            .filter(|f| f.code == Code::DdnetDrop)
            .map(|f| (f.severity, f.message.split(": ").next().unwrap()))
            .collect();
        let frames: Vec<_> = (2..=8)
            .map(|n| {
                (
                    Severity::Warn,
                    format!("frame {n} (to server, 127.0.0.1:40000)"),
                )
            })
            .collect();
        assert_eq!(
            drops,
            frames
                .iter()
                .map(|(s, m)| (*s, m.as_str()))
                .collect::<Vec<_>>()
        );
        let rules: Vec<_> = verdict
            .findings
            .iter()
            .filter_map(|f| f.message.split(['(', ')']).nth(3))
            .collect();
        assert_eq!(
            rules,
            [
                "control_without_byte",
                "control_with_chunks",
                "compressed_control",
                "no_chunks",
                "unknown_flags",
                "unknown_flags",
                "too_short_07"
            ]
        );
    }

    /// Three of teeoracle's bots on DDNet 16.4 across a map change
    /// (`record/map_change_timeout_kill.ron`, with a bot that kept acking
    /// the old map's last tick, 194). Replayed on one snapshot history
    /// across the map change, each delta on the new map's tick 194 is
    /// applied to the old map's: CRC mismatches, a failure. A new history
    /// at MAP_CHANGE
    /// makes them missing bases the client's own ack explains: warnings
    /// with their first occurrence, no failure.
    #[test]
    fn snapshot_anomalies_warn_with_their_first_occurrence() {
        let mut verdict = Verdict::new("old_map_ack");
        let (_, replay) =
            check_capture(&corpus("ddnet-16.4/old_map_ack.pcapng"), None, &mut verdict).unwrap();
        verdict.settle();
        assert_eq!(verdict.status, Status::Warn, "{:#?}", verdict.findings);
        let snapshot: Vec<_> = verdict
            .findings
            .iter()
            .filter(|f| f.code.is_snapshot_anomaly())
            .map(|f| (f.code, f.severity, f.count, f.offset, f.tick))
            .collect();
        assert_eq!(
            snapshot,
            [
                (
                    Code::SnapshotMissingBase,
                    Severity::Warn,
                    Some(806),
                    Some(285820),
                    Some(194)
                ),
                (
                    Code::SnapshotOldMapAck,
                    Severity::Warn,
                    Some(3),
                    Some(77472),
                    Some(194)
                ),
            ]
        );
        let missing = &verdict.findings[0];
        assert!(
            missing.message.starts_with(
                "session replay: 806 x snapshot_missing_base; first at frame 1431 (to client, 127.0.0.1:53762): snapshot: offset 285820 tick 194: delta against tick 194"
            ) && missing.message.ends_with(
                "(the client acknowledged tick 194 from the map before the last MAP_CHANGE (its bug))"
            ),
            "{}",
            missing.message
        );
        assert_eq!(replay.anomalies.get(&Code::SnapshotCrcMismatch), None);
    }

    /// One bot of a 24-client DDNet 16.4 session (campaign run
    /// 16.4-dm2-default-s4-c24-t60, its id 15, port 20023): it pauses,
    /// and the server's snapshot of tick 793 has its SpectatorInfo twice.
    /// The CRC mismatch is the server's repeated item, named; the deltas
    /// on the ticks the bot acknowledged after it are named after it; the
    /// capture warns, and `record` does not count either as its bots'.
    #[test]
    fn the_servers_repeated_item_is_named_not_failed() {
        let mut verdict = Verdict::new("repeated_item");
        let bytes = corpus("ddnet-16.4/repeated_item.pcapng");
        let (_, replay) = check_capture(&bytes, None, &mut verdict).unwrap();
        verdict.settle();
        assert_eq!(verdict.status, Status::Warn, "{:#?}", verdict.findings);
        let snapshot: Vec<_> = verdict
            .findings
            .iter()
            .filter(|f| f.code.is_snapshot_anomaly())
            .map(|f| (f.code, f.count, f.offset, f.tick))
            .collect();
        assert_eq!(
            snapshot,
            [
                (
                    Code::SnapshotMissingBaseAfterRepeatedItem,
                    Some(5),
                    Some(173080),
                    Some(794)
                ),
                (Code::SnapshotRepeatedItem, Some(1), Some(172744), Some(793)),
            ]
        );
        assert!(snapshot.iter().all(|(c, ..)| SERVER_MADE.contains(c)));
        let message = |code| {
            let f = verdict.findings.iter().find(|f| f.code == code).unwrap();
            f.message.split_once(": snapshot: ").unwrap().1.to_string()
        };
        assert_eq!(
            message(Code::SnapshotRepeatedItem),
            "offset 172744 tick 793: the delta updates item 12:15 2 times: the server's CRC \
             112695087 counts every copy, DDNet's client keeps the last one (CRC 112695319) and \
             drops the snapshot"
        );
        assert_eq!(
            message(Code::SnapshotMissingBaseAfterRepeatedItem),
            "offset 173080 tick 794: delta against tick 793, which is not in the history (the \
             base descends from tick 793, dropped for the server's repeated item, which the \
             client acknowledged though DDNet's client would not have kept it)"
        );
        assert_eq!(replay.anomalies.get(&Code::SnapshotCrcMismatch), None);
    }

    #[test]
    fn a_port_no_datagram_uses_fails() {
        let mut verdict = Verdict::new("A");
        assert_eq!(check_capture(&corpus_a(), Some(1), &mut verdict), None);
        verdict.settle();
        assert_eq!(verdict.status, Status::Fail);
        assert_eq!(verdict.findings[0].code, Code::NoDatagrams);
    }

    #[test]
    fn a_datagram_that_does_not_decode_fails_at_its_file_byte() {
        let mut bytes = corpus_a();
        let capture = capture::read(&bytes).unwrap();
        // Frame 4 is a data packet with two chunks: make the first claim
        // more bytes than the payload has.
        let d = &capture.datagrams[3];
        let at = d.offset as usize + 3;
        bytes[at] |= 0x3f;
        let mut verdict = Verdict::new("A");
        let (summary, _) = check_capture(&bytes, None, &mut verdict).unwrap();
        verdict.settle();
        assert_eq!((summary.errors, verdict.status), (1, Status::Fail));
        let f = &verdict.findings[0];
        assert_eq!((f.code, f.count), (Code::Decode, Some(1)));
        // The chunk's data starts after its 3-byte header.
        assert_eq!(f.offset, Some(at as u64 + 3), "{}", f.message);
        assert!(f.message.starts_with("frame 4: at byte"), "{}", f.message);
    }
}
