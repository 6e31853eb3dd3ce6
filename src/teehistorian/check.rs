//! The teehistorian format for [`crate::check`]: one pass that decodes
//! every record, re-encodes it, replays the world and counts
//! ([`Scan`](super::scan::Scan)), on several threads for a large file.

use super::ReadError;
use super::is_teehistorian;
use super::scan::{Scan, Verify};
use crate::input::Source;
use crate::report::{Code, Finding, Format, RoundTrip, Severity, Verdict};

/// The teehistorian format.
pub struct TeehistorianFormat;

impl Format for TeehistorianFormat {
    fn name(&self) -> &'static str {
        "teehistorian"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".teehistorian"]
    }

    fn sniff(&self, head: &[u8]) -> bool {
        is_teehistorian(head)
    }

    fn check(&self, source: Source, verdict: &mut Verdict) {
        // An uncompressed file on disk: a large one is checked on two
        // threads, if it may use them.
        let file = match (source.path(), source.compression()) {
            (Some(path), None) => std::fs::File::open(path).ok(),
            _ => None,
        };
        let threads = source.threads();
        let scanned = match file {
            Some(file) => Scan::verify_file(&file, threads),
            None => source
                .into_reader()
                .map_err(ReadError::Io)
                .and_then(|src| Scan::run(src, Verify::all())),
        };
        match scanned {
            Err(ReadError::Decode(e)) => verdict.error = Some(e),
            Err(ReadError::Io(e)) => verdict.push(Finding::new(
                Severity::Fail,
                Code::Io,
                format!("cannot read: {e}"),
            )),
            Ok((_, scan)) => {
                verdict.counts.records = Some(scan.records);
                verdict.counts.last_tick = Some(scan.last_tick);
                verdict
                    .counts
                    .more
                    .insert("ticks_with_records", scan.ticks_with_records);
                verdict.counts.more.insert("client_ids", scan.cids as u64);
                verdict.roundtrip = match scan.first_mismatch {
                    Some(offset) => RoundTrip::Differs { offset },
                    None => RoundTrip::Exact,
                };
                verdict.findings.extend(scan.findings());
                let stopped = match scan.error {
                    Some(_) => ", then a decode error",
                    None => "",
                };
                verdict.summary = format!(
                    "{}; {} records replayed to tick {}{stopped}",
                    verdict.roundtrip.words(),
                    scan.records,
                    scan.last_tick
                );
                verdict.error = scan.error;
            }
        }
        verdict.settle();
    }
}
