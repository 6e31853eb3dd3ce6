//! One streaming pass over a teehistorian file: counts, how it ended, and
//! with `verify` the byte-exact re-encoding of every record and a replay.
//! `teehistorian stats`, `check` and the archive's analysis all run it.

use super::stream::{BulkCounts, CommonCids, TickClock, Visit};
use super::{End, Header, Inconsistency, Message, ReadError, Record, Replay, ReplayConfig};
use super::{MAGIC, StreamReader};
use crate::codec::{DecodeError, Mode};
use crate::report::{Code, Finding, Severity};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read};
use std::ops::ControlFlow;

#[cfg(unix)]
mod split;

/// Files at least this large are counted on several threads.
const SPLIT_MIN: u64 = 16 << 20;
/// At most this many threads count one file: each holds a window of up to
/// 2 MiB.
const MAX_PARTS: usize = 4;
/// Bytes each part after the first decodes before it counts, to find the
/// record boundaries (a misaligned decode falls into step within a few
/// records; where it does not, the file is counted again in one pass).
const LEAD: u64 = 64 << 10;

/// The length of `file`, if it is a regular file large enough for
/// `threads` (more than one) to be worth starting.
#[cfg(unix)]
fn worth_threads(file: &std::fs::File, threads: usize) -> io::Result<Option<u64>> {
    let meta = file.metadata()?;
    Ok((threads > 1 && meta.is_file() && meta.len() >= SPLIT_MIN).then_some(meta.len()))
}

/// The magic's length: the header's JSON starts after it.
const MAGIC_LEN: u64 = MAGIC.as_bytes().len() as u64;

/// Where the first record starts: after the magic, the JSON and its NUL.
fn header_len(header: &Header) -> u64 {
    MAGIC_LEN + header.json.len() as u64 + 1
}

/// What to do besides counting.
#[derive(Clone, Copy, Debug, Default)]
pub struct Verify {
    /// Re-encode every record and compare it with its bytes.
    pub roundtrip: bool,
    /// Replay every record (and find inconsistencies); with history when
    /// the caller wants the replay's console and save history.
    pub replay: Option<ReplayConfig>,
}

impl Verify {
    /// Everything `check` does: round trip and a replay without history.
    pub fn all() -> Verify {
        Verify {
            roundtrip: true,
            replay: Some(ReplayConfig {
                keep_history: false,
            }),
        }
    }
}

/// Everything one pass over a file learns: the teehistorian pipeline.
///
/// ```
/// use teeoracle::report::{Code, Severity};
/// use teeoracle::teehistorian::scan::{Scan, Verify};
/// let file = std::fs::File::open("corpus/teehistorian/ddnet-20.1/F_crash_truncated.teehistorian")?;
/// let (header, scan) = Scan::run(std::io::BufReader::new(file), Verify::all())?;
/// assert_eq!(header.info.version, 2);
/// assert_eq!((scan.records, scan.last_tick), (3501, 1028));
/// assert_eq!(scan.counts["player_diff"], 2046);
/// // A recording cut by a crash: sound, with a warning.
/// let findings = scan.findings();
/// assert_eq!(findings.len(), 1);
/// assert_eq!((findings[0].severity, findings[0].code), (Severity::Warn, Code::Truncated));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default, Serialize)]
pub struct Scan {
    /// Records read (FINISH included).
    pub records: u64,
    /// Records per kind (`player_diff`, `tick_skip`, ...).
    pub counts: BTreeMap<&'static str, u64>,
    /// The tick of the last record.
    pub last_tick: i32,
    /// Ticks in which at least one record was written.
    pub ticks_with_records: u64,
    /// The largest client id seen.
    pub max_cid: Option<i32>,
    /// How many client ids were seen.
    pub cids: usize,
    /// How the stream ended (`None` after a decode error).
    pub end: Option<End>,
    /// Bytes read: the whole input (header, records, and whatever follows
    /// them or could not be decoded).
    pub bytes: u64,
    /// Bytes after FINISH (DDNet never writes any).
    pub bytes_after_finish: u64,
    /// Records using non-canonical ints, kept verbatim.
    pub noncanonical_records: u64,
    /// The first such int's offset.
    pub first_noncanonical: Option<u64>,
    /// First byte where the re-encoding differs from the file (a codec bug).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<u64>,
    /// Replay inconsistencies (with a replay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inconsistencies: Option<u64>,
    /// The first one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_inconsistency: Option<Inconsistency>,
    /// The decode error that stopped the pass; everything before it was
    /// counted.
    pub error: Option<DecodeError>,
}

/// Client ids seen: a flag per id in the usual range (a plain store per
/// record: a bitset's read-modify-write chains every record to the one
/// before), a set beyond it.
struct CidSet {
    low: [bool; 256],
    high: BTreeSet<i32>,
}

impl Default for CidSet {
    fn default() -> Self {
        CidSet {
            low: [false; 256],
            high: BTreeSet::new(),
        }
    }
}

impl CidSet {
    #[inline]
    fn insert(&mut self, cid: i32) {
        match usize::try_from(cid) {
            Ok(c) if c < 256 => self.low[c] = true,
            Ok(_) => {
                self.high.insert(cid);
            }
            Err(_) => {} // negative ids are "no client" (server, game)
        }
    }

    fn len(&self) -> usize {
        self.low.iter().filter(|&&seen| seen).count() + self.high.len()
    }

    /// Adds the ids of `other`.
    fn union(&mut self, other: &CidSet) {
        for (seen, &also) in self.low.iter_mut().zip(&other.low) {
            *seen |= also;
        }
        self.high.extend(&other.high);
    }

    fn max(&self) -> Option<i32> {
        let low = self.low.iter().rposition(|&seen| seen);
        self.high.last().copied().or(low.map(|c| c as i32))
    }
}

/// The counters every record moves, kept in locals of the pass (not in
/// [`Scan`]) so they stay in registers.
struct Tally {
    counts: [u64; Message::KINDS],
    cids: CidSet,
    /// The tick of the last record, widened so that before the first it
    /// can be [`NO_TICK`]: a new tick is then one comparison per record.
    last_tick: i64,
    ticks: u64,
    noncanonical_records: u64,
    first_noncanonical: Option<u64>,
}

/// A tally's widened last tick before any record: no tick's.
const NO_TICK: i64 = i64::MIN;

impl Tally {
    /// Records counted: the sum of the counts by kind (one counter less
    /// per record).
    fn records(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// No record counted yet.
    fn is_empty(&self) -> bool {
        self.last_tick == NO_TICK
    }

    /// The tick of the last record (0 before any).
    fn last_tick(&self) -> i32 {
        i32::try_from(self.last_tick).unwrap_or(0)
    }

    /// A tally of no records. (Where they end is the reader's position.)
    fn new() -> Self {
        Tally {
            counts: [0; Message::KINDS],
            cids: CidSet::default(),
            last_tick: NO_TICK,
            ticks: 0,
            noncanonical_records: 0,
            first_noncanonical: None,
        }
    }

    /// Counts a record of the reader's common loop ([`Visit::common`]),
    /// whose tick is new where `new_tick` says: no test of the tick, and
    /// the last tick is set once a run ([`Visit::run_end`]).
    #[inline(always)]
    fn add_common(&mut self, rec: &Record<'_>, new_tick: bool) {
        if new_tick {
            self.ticks += 1;
        }
        self.count(rec);
    }

    /// Counts common records counted in bulk ([`Visit::BULK`]).
    #[inline(always)]
    fn add_bulk(&mut self, bulk: &BulkCounts) {
        let player_diff = Message::PlayerDiff {
            cid: 0,
            dx: 0,
            dy: 0,
        };
        let input_diff = Message::InputDiff {
            cid: 0,
            dinput: [0; 10],
        };
        self.counts[player_diff.kind_index()] += bulk.player_diffs;
        self.counts[input_diff.kind_index()] += bulk.input_diffs;
        self.ticks += bulk.new_ticks;
        self.last_tick = i64::from(bulk.tick);
        let mut cids = bulk.cids;
        while cids != 0 {
            self.cids.low[cids.trailing_zeros() as usize] = true;
            cids &= cids - 1;
        }
    }

    /// Counts a record.
    #[inline(always)]
    fn add(&mut self, rec: &Record<'_>) {
        let tick = i64::from(rec.tick);
        self.ticks += u64::from(tick != self.last_tick);
        self.last_tick = tick;
        self.count(rec);
    }

    /// Counts a record's kind, client ids and non-canonical ints.
    #[inline(always)]
    fn count(&mut self, rec: &Record<'_>) {
        self.counts[rec.msg.kind_index()] += 1;
        if let Some(cid) = rec.msg.player_record_cid() {
            self.cids.insert(cid); // the common case, without the general match
        } else {
            for cid in rec.msg.cids().into_iter().flatten() {
                self.cids.insert(cid);
            }
        }
        if rec.noncanonical {
            self.noncanonical_records += 1;
            if self.first_noncanonical.is_none() {
                self.first_noncanonical = rec.noncanonical_at();
            }
        }
    }
}

/// One pass's state: what [`Scan::run_with`] does with each record.
struct Pass<E> {
    tally: Tally,
    replay: Replay,
    inconsistencies: u64,
    /// Room to re-encode a record in.
    scratch: Vec<u8>,
    /// The first mismatch and inconsistency go here.
    scan: Scan,
    each: E,
}

/// A [`Pass`] that re-encodes with `ROUNDTRIP`, replays with `REPLAY`
/// (as its [`Verify`] says), or with neither only counts: a loop of its
/// own for each, so counting computes no field only verifying reads, and
/// no record tests what the pass does.
struct Visiting<'p, E, const ROUNDTRIP: bool, const REPLAY: bool, const VALUES: bool>(
    &'p mut Pass<E>,
);

impl<E: FnMut(&Record<'_>, &Replay), const ROUNDTRIP: bool, const REPLAY: bool, const VALUES: bool>
    Visit<'_, ()> for Visiting<'_, E, ROUNDTRIP, REPLAY, VALUES>
{
    #[inline(always)]
    fn record(&mut self, rec: &Record<'_>) -> ControlFlow<()> {
        self.0.tally.add(rec);
        self.0.verify::<ROUNDTRIP, REPLAY, VALUES, false>(rec)
    }

    /// In line where the reader builds the common records, so everything
    /// here is specialised to their kind. Their round trip is skipped: the
    /// decoder read them only in the form the encoder writes (see
    /// [`Visit::common`]); and the replay takes their tick from the
    /// reader's clock ([`Replay::handle_common`]).
    #[inline(always)]
    fn common(&mut self, rec: &Record<'_>, new_tick: bool) -> ControlFlow<()> {
        // Counting only, the tally takes the loop's word on the tick; with
        // a replay, the test of every record's tick measured faster
        // (`check` 72 -> 81 ms on the default file the other way).
        match REPLAY {
            false => self.0.tally.add_common(rec, new_tick),
            true => self.0.tally.add(rec),
        }
        self.0.verify::<ROUNDTRIP, REPLAY, VALUES, true>(rec)
    }

    /// Without `VALUES` nobody sees a record (`each` is [`Scan::run`]'s
    /// nothing) nor the replay's values: the common records whose verdict
    /// is known are only counted.
    const BULK: bool = !VALUES;

    /// Counting only, every common record with a cid below 64; with a
    /// replay, those it finds consistent.
    #[inline(always)]
    fn bulk_cids(&mut self) -> CommonCids {
        match REPLAY {
            true => self.0.replay.common_verdicts(),
            false => CommonCids {
                player_diff: u64::MAX,
                input_diff: u64::MAX,
            },
        }
    }

    #[inline(always)]
    fn bulk_counts(&mut self, bulk: &BulkCounts) {
        self.0.tally.add_bulk(bulk);
    }

    /// Counting only, the tally's last tick, and without `VALUES` the
    /// replay's clock, are left behind in a run of common records (stores
    /// less a record) and caught up here.
    #[inline(always)]
    fn run_end(&mut self, clock: &TickClock) {
        if !REPLAY {
            self.0.tally.last_tick = i64::from(clock.tick());
        }
        if REPLAY && !VALUES {
            self.0.replay.follow_clock(clock);
        }
    }
}

impl<E: FnMut(&Record<'_>, &Replay)> Pass<E> {
    /// What the pass does with a record besides counting it.
    #[inline(always)]
    fn verify<const ROUNDTRIP: bool, const REPLAY: bool, const VALUES: bool, const COMMON: bool>(
        &mut self,
        rec: &Record<'_>,
    ) -> ControlFlow<()> {
        if ROUNDTRIP
            && !COMMON
            && let Some(i) = rec.reencoding_differs(&mut self.scratch)
        {
            self.scan
                .first_mismatch
                .get_or_insert(rec.offset + i as u64);
        }
        (self.each)(rec, &self.replay);
        if REPLAY
            && let Err(inc) = match COMMON {
                true => (self.replay).handle_common::<VALUES>(rec.offset, rec.tick, &rec.msg),
                false => self.replay.handle(rec.offset, &rec.msg),
            }
        {
            self.inconsistencies += 1;
            self.scan.first_inconsistency.get_or_insert(inc);
        }
        ControlFlow::Continue(())
    }
}

impl Scan {
    /// Reads the whole of `src` in bounded memory and counts, verifying as
    /// `verify` says. Fails only if the header cannot be read, or on an
    /// I/O error; a decode error later stops the pass and is kept in
    /// [`Scan::error`].
    pub fn run(src: impl Read, verify: Verify) -> Result<(Header, Scan), ReadError> {
        // Nobody sees the replay: it follows only what its verdicts need.
        Scan::pass::<false>(src, verify, |_, _| {}).map(|(header, scan, _)| (header, scan))
    }

    /// [`Scan::run`] with [`Verify::default`] (counting only) over an
    /// uncompressed teehistorian file: a file of 16 MiB or more on up to
    /// `threads` threads (at most 4), with the same result. Memory stays
    /// bounded: a window of up to 2 MiB per thread.
    pub fn count_file(file: &std::fs::File, threads: usize) -> Result<(Header, Scan), ReadError> {
        #[cfg(unix)]
        if let Some(len) = worth_threads(file, threads)? {
            return split::count(file, len, threads.min(MAX_PARTS), LEAD);
        }
        Scan::run(io::BufReader::new(file), Verify::default())
    }

    /// [`Scan::run`], calling `each` with every record and the replay as it
    /// was before the record (for callers that derive more from a pass:
    /// the archive's log and checkpoints). Also returns the replay at the
    /// end.
    pub fn run_with(
        src: impl Read,
        verify: Verify,
        each: impl FnMut(&Record<'_>, &Replay),
    ) -> Result<(Header, Scan, Replay), ReadError> {
        Scan::pass::<true>(src, verify, each)
    }

    /// [`Scan::run_with`]; without `VALUES` the replay follows only what
    /// its verdicts need ([`Replay::handle_common`]), and `each` and the
    /// caller must not read its players.
    fn pass<const VALUES: bool>(
        src: impl Read,
        verify: Verify,
        each: impl FnMut(&Record<'_>, &Replay),
    ) -> Result<(Header, Scan, Replay), ReadError> {
        let (header, mut reader) = StreamReader::new(src, Mode::Lenient)?;
        let mut pass = Pass {
            tally: Tally::new(),
            replay: Replay::new(verify.replay.unwrap_or_default()),
            inconsistencies: 0,
            scratch: Vec::new(),
            scan: Scan::default(),
            each,
        };
        let result = match (verify.roundtrip, verify.replay.is_some()) {
            (false, false) => reader.visit(&mut Visiting::<_, false, false, VALUES>(&mut pass)),
            (true, false) => reader.visit(&mut Visiting::<_, true, false, VALUES>(&mut pass)),
            (false, true) => reader.visit(&mut Visiting::<_, false, true, VALUES>(&mut pass)),
            (true, true) => reader.visit(&mut Visiting::<_, true, true, VALUES>(&mut pass)),
        };
        let Pass {
            tally,
            replay,
            inconsistencies,
            mut scan,
            ..
        } = pass;
        scan.inconsistencies = verify.replay.map(|_| inconsistencies);
        scan.take(&tally);
        match result {
            Ok(_) => {}
            Err(ReadError::Decode(e)) => scan.error = Some(e.at_tick(tally.last_tick())),
            Err(e) => return Err(e),
        }
        scan.end = reader.end();
        let records_end = reader.position();
        let rest = match io::copy(&mut reader.into_rest(), &mut io::sink()) {
            Ok(n) => n,
            // The source failed part-way: its error is the scan's already.
            Err(_) if scan.error.is_some() => 0,
            Err(e) => return Err(e.into()),
        };
        scan.end_at(records_end, rest);
        Ok((header, scan, replay))
    }

    /// Takes the counts of a whole pass.
    fn take(&mut self, tally: &Tally) {
        (self.records, self.last_tick, self.ticks_with_records) =
            (tally.records(), tally.last_tick(), tally.ticks);
        self.counts = tally
            .counts
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(i, &n)| (Message::kind_name_of(i), n))
            .collect();
        self.max_cid = tally.cids.max();
        self.cids = tally.cids.len();
        self.noncanonical_records = tally.noncanonical_records;
        self.first_noncanonical = tally.first_noncanonical;
    }

    /// Notes the bytes read: the records up to `records_end`, then `rest`.
    fn end_at(&mut self, records_end: u64, rest: u64) {
        self.bytes = records_end + rest;
        if self.error.is_none() && matches!(self.end, Some(End::Finished { .. })) {
            self.bytes_after_finish = rest;
        }
    }

    /// What the pass found, as findings (codes in the schema's `check`
    /// section): the decode error (`decode`), a re-encoding that differs,
    /// replay inconsistencies and bytes after FINISH fail; a truncated
    /// file and non-canonical ints warn.
    pub fn findings(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        if let Some(e) = &self.error {
            let mut f = Finding::new(Severity::Fail, Code::Decode, e.to_string()).at(e.offset);
            f.tick = e.tick;
            out.push(f);
        }
        if let Some(at) = self.first_mismatch {
            out.push(
                Finding::new(
                    Severity::Fail,
                    Code::Roundtrip,
                    format!("re-encoding differs from the file at byte {at} (0x{at:x})"),
                )
                .at(at),
            );
        }
        if let Some(inc) = &self.first_inconsistency {
            let n = self.inconsistencies.unwrap_or(1);
            out.push(
                Finding::new(Severity::Fail, Code::Replay, format!("replay: {inc}"))
                    .at(inc.offset)
                    .in_tick(inc.tick)
                    .times(n),
            );
        }
        if let (Some(End::Finished { offset }), 1..) = (self.end, self.bytes_after_finish) {
            out.push(
                Finding::new(
                    Severity::Fail,
                    Code::BytesAfterFinish,
                    format!(
                        "{} byte(s) after FINISH at byte {offset} (0x{offset:x}); DDNet writes none",
                        self.bytes_after_finish
                    ),
                )
                .at(offset),
            );
        }
        if let Some(end @ End::Truncated { offset, .. }) = self.end {
            out.push(Finding::new(Severity::Warn, Code::Truncated, end.to_string()).at(offset));
        }
        if let Some(note) = self.noncanonical_note() {
            let mut f = Finding::new(Severity::Warn, Code::NoncanonicalInt, note)
                .times(self.noncanonical_records);
            f.offset = self.first_noncanonical;
            out.push(f);
        }
        out
    }

    /// A line on non-canonical ints, if there were any.
    pub fn noncanonical_note(&self) -> Option<String> {
        self.first_noncanonical.map(|at| {
            format!(
                "{} record(s) use non-canonical ints DDNet never writes (first at byte {at}); kept verbatim",
                self.noncanonical_records
            )
        })
    }
}
