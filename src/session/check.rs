//! The capture format for [`crate::check`]: every datagram to or from the
//! server port decodes and re-encodes byte-exactly (with its chunks and
//! message headers), and the session replay says what real peers would
//! have done with it.

use super::{Decoded, ReplaySummary, Summary, decode_all, replay, server_port, summarize};
use crate::capture::{self, is_capture};
use crate::check::{Finding, Format, RoundTrip, Severity, Source, Verdict};

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

    fn check(&self, source: Source, verdict: &mut Verdict) {
        match source.into_bytes() {
            Ok(bytes) => {
                check_capture(&bytes, None, verdict);
            }
            Err(e) => verdict.push(Finding::new(
                Severity::Fail,
                "io",
                format!("cannot read: {e}"),
            )),
        }
        verdict.settle();
    }
}

/// Checks the capture in `bytes` on the server port `port` (default: the
/// port most datagrams use) into `verdict`, and returns the session's
/// totals. A port no datagram uses fails: nothing would have been checked.
pub fn check_capture(
    bytes: &[u8],
    port: Option<u16>,
    verdict: &mut Verdict,
) -> Option<(Summary, ReplaySummary)> {
    let capture = match capture::read(bytes) {
        Ok(c) => c,
        Err(e) => {
            verdict.push(Finding::new(Severity::Fail, "capture", e.to_string()));
            return None;
        }
    };
    let Some(port) = port.or_else(|| server_port(&capture)) else {
        verdict.push(Finding::new(
            Severity::Fail,
            "no_datagrams",
            "the capture holds no UDP datagram",
        ));
        return None;
    };
    let decoded = decode_all(&capture, port);
    if decoded.is_empty() {
        verdict.push(Finding::new(
            Severity::Fail,
            "no_datagrams",
            format!(
                "no datagram to or from port {port} ({} UDP datagrams in the capture)",
                capture.datagrams.len()
            ),
        ));
        return None;
    }
    let summary = summarize(&decoded);
    let (_, replayed) = replay(&decoded);
    verdict.counts.records = Some(summary.datagrams as u64);
    let more = &mut verdict.counts.more;
    more.insert("port", u64::from(port));
    more.insert("peers", summary.peers as u64);
    more.insert("chunks", summary.chunks as u64);
    more.insert("snapshots", replayed.snapshots as u64);
    more.insert("snapshots_rebuilt", replayed.rebuilt as u64);
    let first_bad = decoded.iter().find_map(|d: &Decoded<'_>| {
        let frame = d.datagram.frame;
        match (&d.packet, &d.payload_error, d.mismatch) {
            (Err(e), _, _) => Some(("decode", format!("frame {frame}: {e}"), None)),
            (_, Some(e), _) => Some(("decode", format!("frame {frame}: in the payload {e}"), None)),
            (_, _, Some(at)) => Some((
                "roundtrip",
                format!("frame {frame}: re-encoding differs at byte {at}"),
                Some(at),
            )),
            _ => None,
        }
    });
    verdict.roundtrip = RoundTrip::Exact;
    if let Some((code, message, at)) = first_bad {
        if let Some(at) = at {
            verdict.roundtrip = RoundTrip::Differs { offset: at as u64 };
        }
        let bad = (summary.errors + summary.mismatched) as u64;
        verdict.push(Finding::new(Severity::Fail, code, message).times(bad));
    }
    for (kind, n) in &replayed.anomalies {
        verdict.push(
            Finding::new(
                Severity::Note,
                kind,
                format!("session replay: {n} x {kind}"),
            )
            .times(*n as u64),
        );
    }
    let anomalies: usize = replayed.anomalies.values().sum();
    verdict.summary = format!(
        "{} datagrams byte-exact ({} peers, {} chunks, {anomalies} replay anomalies)",
        summary.exact, summary.peers, summary.chunks
    );
    Some((summary, replayed))
}
