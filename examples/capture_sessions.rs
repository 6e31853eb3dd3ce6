//! Decodes a capture's sessions: which clients talked to the server, in
//! which protocol version, how many datagrams each sent and received, what
//! a real peer would have done differently (anomalies), and the snapshots
//! each client rebuilt from the deltas it was sent.
//!
//! ```text
//! cargo run --example capture_sessions [FILE.pcap]
//! ```
//!
//! (default: `corpus/packet/ddnet-20.1/A_join_move_leave.pcap`)

use std::collections::BTreeMap;
use std::error::Error;
use std::io::Write;
use std::path::Path;
use teeoracle::{capture, session};

/// Writes a report of the sessions in the capture at `path` to `out`.
pub fn run(path: &Path, out: &mut impl Write) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(path)?;
    let capture = capture::read(&bytes)?;
    writeln!(
        out,
        "{}: {} with {} UDP datagrams ({} other frames skipped)",
        path.display(),
        capture.format,
        capture.datagrams.len(),
        capture.skipped.len()
    )?;
    let port = session::server_port(&capture).ok_or("the capture holds no UDP datagram")?;
    writeln!(out, "server port {port}")?;

    // Decode every datagram once; each one is judged as its receiver would
    // judge it, and its peer's connection rebuilds the snapshots it gets.
    let mut s = session::Session::new(&capture, port);
    let mut failed = 0;
    let mut kinds: BTreeMap<teeoracle::report::Code, usize> = BTreeMap::new();
    while let Some(d) = s.next_datagram() {
        failed += usize::from(d.failed());
        for a in &d.anomalies {
            *kinds.entry(a.kind()).or_default() += 1;
        }
    }
    for (peer, c) in s.connections() {
        writeln!(
            out,
            "peer {peer}: version {} ({}), {} datagrams, {} anomalies",
            c.version, c.version_reason, c.datagrams, c.anomalies
        )?;
        let counts = c.history.counts();
        write!(
            out,
            "  snapshots: {} received, {} rebuilt ({} with a matching CRC)",
            c.snapshots, c.rebuilt, counts.crc_checked
        )?;
        match c.history.last() {
            Some((tick, snap)) => {
                writeln!(out, ", the last at tick {tick} with {} items", snap.len())?
            }
            None => writeln!(out)?,
        }
    }
    let summary = s.summary();
    writeln!(
        out,
        "{} datagrams ({} to the server, {} to clients), {} byte-exact, {failed} failed",
        summary.datagrams, summary.to_server, summary.to_client, summary.exact
    )?;
    if kinds.is_empty() {
        writeln!(out, "no anomalies")?;
    }
    for (kind, n) in &kinds {
        writeln!(out, "anomaly {kind}: {n}")?;
    }
    Ok(())
}

#[allow(dead_code)] // a test includes this file for `run`
fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "corpus/packet/ddnet-20.1/A_join_move_leave.pcap".into());
    let stdout = std::io::stdout();
    run(Path::new(&path), &mut stdout.lock())
}
