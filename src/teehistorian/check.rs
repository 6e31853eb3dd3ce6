//! The teehistorian format for [`crate::check`]: one pass that decodes
//! every record, re-encodes it, replays the world and counts
//! ([`Scan`](super::scan::Scan)); given a [`Simulator`](crate::report::Simulator), it keeps the bytes it
//! read and hands them over, so the file is read once.

use super::ReadError;
use super::is_teehistorian;
use super::scan::{Scan, Verify};
use crate::input::Source;
use crate::report::{Code, Context, Finding, Format, RoundTrip, Severity, Status, Verdict};

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

    fn check(&self, source: Source, context: &Context<'_>, verdict: &mut Verdict) {
        // To be simulated: the file is read once, the scan keeping what it
        // reads for the simulation (a cut stream is checked up to the cut,
        // and then not simulated: the file failed).
        // A file on disk whose map is not at hand is only noted as not
        // simulated: it is checked as below, without keeping its bytes.
        let mut not_simulated = None;
        if let (Some(simulator), Some(path), None) =
            (context.simulator, source.path(), source.compression())
            && let Ok(file) = std::fs::File::open(path)
            && let Ok((header, _)) = super::StreamReader::new(file, crate::codec::Mode::Lenient)
        {
            not_simulated = simulator.without_map(Some(path), header.info.map_sha256.as_deref());
        }
        if let Some(simulator) = context.simulator.filter(|_| not_simulated.is_none()) {
            let path = source.path().map(std::path::Path::to_path_buf);
            let mut kept = Keep::default();
            let scanned = source.into_reader().map_err(ReadError::Io).and_then(|src| {
                kept.inner = Some(src);
                Scan::run(&mut kept, Verify::all())
            });
            fill(verdict, scanned);
            if verdict.status != Status::Fail {
                simulator.simulate(path.as_deref(), &kept.bytes, verdict);
            }
            return;
        }
        // One pass on one thread: a second thread re-encoding while this
        // one replays measured no faster and took 1.8 times the CPU (the
        // replay's pass decodes every record too, and the decoder proves
        // the common records' round trip, so re-encoding leaves little).
        let scanned = source
            .into_reader()
            .map_err(ReadError::Io)
            .and_then(|src| Scan::run(src, Verify::all()));
        fill(verdict, scanned);
        if let Some(note) = not_simulated.filter(|_| verdict.status != Status::Fail) {
            verdict.push(note);
            verdict.settle();
        }
    }
}

/// A reader that keeps every byte read through it.
#[derive(Default)]
struct Keep {
    inner: Option<crate::compression::BoxRead>,
    bytes: Vec<u8>,
}

impl std::io::Read for Keep {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(inner) = self.inner.as_mut() else {
            return Ok(0);
        };
        let n = inner.read(buf)?;
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// The verdict of a scan (or of a file that could not be read), settled.
fn fill(verdict: &mut Verdict, scanned: Result<(crate::teehistorian::Header, Scan), ReadError>) {
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
