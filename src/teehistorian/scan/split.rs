//! Counting one large file on several threads (`teehistorian stats` on a
//! regular file).
//!
//! The file is cut into parts at byte offsets. Each part after the first
//! decodes from its cut through a lead-in, to find record boundaries of its
//! own, and counts from its first record after the lead-in; the part before
//! reads on past the cut until it reaches that record. Decoding from a
//! record boundary is deterministic, so where the part before lands exactly
//! on it, both read the same records from there on, and the counts join.
//! Only the clock differs: the part started at tick 0 without knowing the
//! previous player record, so its ticks are shifted by the true tick and,
//! if its first clock-moving record is a player record, by whether DDNet's
//! tick rule starts a new tick there. Anything unusual (the part before
//! steps over the boundary, a lead-in that finds none, ticks near
//! overflow, an I/O error) counts the whole file again in one pass: the
//! result is always exactly [`Scan::run`]'s.

use super::{Scan, Tally, Verify, header_len};
use crate::codec::{DecodeError, Mode};
use crate::teehistorian::stream::{BulkCounts, CommonCids, Visit};
use crate::teehistorian::{
    End, Header, Message, ReadError, Record, SliceReader, StreamReader, TickClock,
};
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{Receiver, channel};

/// Reads `file` from `pos` on, by position, so threads share one file.
pub(super) struct At<'f> {
    pub(super) file: &'f File,
    pub(super) pos: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// How a part's reading stopped.
enum Stop {
    /// At the next part's first record: the next part goes on from there.
    Joined,
    /// At the end of the stream (FINISH, the end of the file, or a decode
    /// error): the next parts read what the stream never reaches.
    Ended {
        end: Option<End>,
        error: Option<DecodeError>,
        /// Where its last whole record ends.
        records_end: u64,
    },
    /// Past the next part's first record without landing on it: this
    /// split is no good.
    Missed,
}

/// What one part counted, on a clock that started at tick 0 with no
/// previous player record.
struct Part {
    tally: Tally,
    /// The tick of its first record.
    first_tick: i32,
    /// The first record that moved the clock: `Some(cid)` for a player
    /// record, `None` for TICK_SKIP.
    first_move: Option<Option<i32>>,
    /// Records before that one.
    before_move: u64,
    /// The last record that moved the clock, the same way: with the last
    /// tick, the clock after the part (the reader's own clock has read one
    /// record more, the next part's first).
    last_move: Option<Option<i32>>,
    stop: Stop,
}

/// Counts `file` (a teehistorian file of `len` bytes) in `parts` parts on
/// as many threads, each part's lead-in `lead` bytes. Returns what
/// [`Scan::run`] with [`Verify::default`] returns.
pub(crate) fn count(
    file: &File,
    len: u64,
    parts: usize,
    lead: u64,
) -> Result<(Header, Scan), ReadError> {
    match count_split(file, len, parts, lead) {
        Ok((header, Some((scan, _)))) => Ok((header, scan)),
        // A split that did not join, or an error: one pass, as ever.
        _ => Scan::run(BufReader::new(file.try_clone()?), Verify::default()),
    }
}

/// The split count alone, with how many parts counted records: `None`
/// where the parts did not join.
fn count_split(
    file: &File,
    len: u64,
    parts: usize,
    lead: u64,
) -> Result<(Header, Option<(Scan, usize)>), ReadError> {
    let (header, first) = StreamReader::new(At { file, pos: 0 }, Mode::Lenient)?;
    let start = header_len(&header);
    let parts = parts.max(1) as u64;
    let cuts: Vec<u64> = (1..parts)
        .map(|k| start + (len.saturating_sub(start)) * k / parts)
        .collect();
    let version = header.info.version;
    let counted = std::thread::scope(|s| {
        // Part k + 1 tells part k where its first record is.
        let (senders, receivers): (Vec<_>, Vec<_>) =
            cuts.iter().map(|_| channel::<Option<u64>>()).unzip();
        let mut receivers = receivers.into_iter();
        let mut handles = Vec::new();
        let next = |cut: Option<&u64>, rx: Option<Receiver<_>>| cut.copied().zip(rx);
        let first_next = next(cuts.first(), receivers.next());
        for (k, tx) in senders.into_iter().enumerate() {
            let cut = cuts[k];
            let after = next(cuts.get(k + 1), receivers.next());
            handles.push(s.spawn(move || {
                let at = first_record(file, cut, lead, version);
                let _ = tx.send(at); // the part before may have ended already
                at.map(|at| {
                    let reader =
                        StreamReader::resume(At { file, pos: at }, at, version, Mode::Lenient);
                    count_part(reader, after)
                })
            }));
        }
        let head = count_part(first, first_next);
        let rest: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or(None))
            .collect();
        (head, rest)
    });
    let (head, rest) = counted;
    let mut joined = vec![head];
    joined.extend(rest.into_iter().map(|p| p.unwrap_or(Ok(missed()))));
    Ok((header, join(joined, len)?))
}

/// A part that cannot be used.
fn missed() -> Part {
    Part {
        tally: Tally::new(),
        first_tick: 0,
        first_move: None,
        before_move: 0,
        last_move: None,
        stop: Stop::Missed,
    }
}

/// The first record at least `lead` bytes after `cut`, decoding from
/// `cut` as if a record started there and, where a decode fails or meets
/// a FINISH (it started inside a record, or the stream really ends: then
/// the part before ends there and never joins), again from the byte after
/// that record's start; `None` if the file ends first.
fn first_record(file: &File, cut: u64, lead: u64, version: u32) -> Option<u64> {
    // The lead-in and room for the record that ends it.
    let mut bytes = Vec::new();
    At { file, pos: cut }
        .take(lead + (64 << 10))
        .read_to_end(&mut bytes)
        .ok()?;
    let lead = usize::try_from(lead).ok()?;
    let mut from = 0;
    while from <= lead {
        let mut reader = SliceReader::resume(&bytes, from, version, Mode::Lenient);
        let mut end = from;
        for rec in reader.by_ref() {
            // A decode error, or a FINISH (one byte, 0x40, common inside
            // records): the record at `end` was no record.
            let Ok(rec) = rec.map_err(drop).and_then(|r| match r.msg {
                Message::Finish => Err(()),
                _ => Ok(r),
            }) else {
                break;
            };
            end = rec.offset as usize + rec.raw.len();
            if end >= lead {
                return Some(cut + end as u64);
            }
        }
        if matches!(reader.end(), Some(End::Truncated { .. })) {
            return None; // the end of the file (or of the lead-in's room)
        }
        from = end + 1;
    }
    None
}

/// Counts the records of `reader` until the stream ends or, with `next`
/// (the next part's cut, and where it will say its first record is),
/// until that record.
fn count_part(
    mut reader: StreamReader<At<'_>>,
    next: Option<(u64, Receiver<Option<u64>>)>,
) -> Result<Part, ReadError> {
    let mut counting = Counting {
        part: missed(),
        cut: next.as_ref().map_or(u64::MAX, |(cut, _)| *cut),
        next,
        join_at: None,
        stopped_in: None,
    };
    let flow = reader.visit(&mut counting);
    let mut part = counting.part;
    part.stop = match flow {
        Ok(ControlFlow::Break(true)) => Stop::Joined,
        Ok(ControlFlow::Break(false)) => Stop::Missed,
        Ok(ControlFlow::Continue(())) => Stop::Ended {
            end: reader.end(),
            error: None,
            records_end: reader.position(),
        },
        Err(ReadError::Decode(e)) => Stop::Ended {
            end: None,
            error: Some(e),
            records_end: reader.position(),
        },
        Err(e) => return Err(e),
    };
    Ok(part)
}

/// A part's pass: what [`Scan::run`] counts, in the reader's common loop
/// as its own pass does (in bulk once the clock has moved, the run's last
/// tick caught up at its end), and besides the clock's first and last
/// moves and the stop at the next part's first record.
struct Counting {
    part: Part,
    /// Where the next part may begin: its cut, then (once it said) its
    /// first record; `u64::MAX` for the last part or once it cannot join.
    /// Records before it are not its first, so each costs a comparison
    /// and a bulk count stops there.
    cut: u64,
    next: Option<(u64, Receiver<Option<u64>>)>,
    /// Where the next part's first record is, once asked.
    join_at: Option<Option<u64>>,
    /// The tick of the last record counted, where a common record stopped
    /// the pass: the run's end then tells a clock that counted it.
    stopped_in: Option<i32>,
}

impl Counting {
    /// At or past the cut: `Break(true)` on the next part's first record,
    /// `Break(false)` past it without landing on it.
    #[cold]
    fn at_cut(&mut self, offset: u64) -> ControlFlow<bool> {
        let Some((_, rx)) = &self.next else {
            return ControlFlow::Continue(());
        };
        // `None`: the stream ends inside the next part's lead-in (or its
        // thread is gone), so this part reads on to the end.
        let at = *self.join_at.get_or_insert_with(|| rx.recv().ok().flatten());
        match at {
            Some(at) if offset >= at => ControlFlow::Break(offset == at),
            Some(at) => {
                self.cut = at;
                ControlFlow::Continue(())
            }
            None => {
                self.cut = u64::MAX;
                ControlFlow::Continue(())
            }
        }
    }

    /// Notes a record that moved the clock: `Some(cid)` for a player
    /// record, `None` for TICK_SKIP.
    #[inline(always)]
    fn moved(&mut self, moved: Option<i32>) {
        let part = &mut self.part;
        if part.first_move.is_none() {
            (part.first_move, part.before_move) = (Some(moved), part.tally.records());
        }
        part.last_move = Some(moved);
    }
}

impl Visit<'_, bool> for Counting {
    #[inline(always)]
    fn record(&mut self, rec: &Record<'_>) -> ControlFlow<bool> {
        if rec.offset >= self.cut {
            self.at_cut(rec.offset)?;
        }
        if self.part.tally.is_empty() {
            self.part.first_tick = rec.tick;
        }
        match rec.msg {
            Message::TickSkip { .. } => self.moved(None),
            _ => {
                if let Some(cid) = rec.msg.player_record_cid() {
                    self.moved(Some(cid));
                }
            }
        }
        self.part.tally.add(rec);
        ControlFlow::Continue(())
    }

    /// A common record is never a stream's first (see [`Visit::common`]),
    /// so the tally already has its first tick.
    #[inline(always)]
    fn common(&mut self, rec: &Record<'_>, new_tick: bool) -> ControlFlow<bool> {
        if rec.offset >= self.cut
            && let ControlFlow::Break(joined) = self.at_cut(rec.offset)
        {
            // The clock is at the previous record's tick until a record
            // moves it, by one in the common loop.
            self.stopped_in = Some(rec.tick - i32::from(new_tick));
            return ControlFlow::Break(joined);
        }
        if let Some(cid) = rec.msg.player_record_cid() {
            self.moved(Some(cid));
        }
        self.part.tally.add_common(rec, new_tick);
        ControlFlow::Continue(())
    }

    #[inline(always)]
    fn run_end(&mut self, clock: &TickClock) {
        let tick = self.stopped_in.unwrap_or(clock.tick());
        self.part.tally.last_tick = i64::from(tick);
    }

    const BULK: bool = true;

    /// Every common record with a cid below 64 once the clock has moved
    /// (before, the first move and the records before it are noted one by
    /// one).
    #[inline(always)]
    fn bulk_cids(&mut self) -> CommonCids {
        let all = match self.part.first_move {
            Some(_) => u64::MAX,
            None => 0,
        };
        CommonCids {
            player_diff: all,
            input_diff: all,
        }
    }

    #[inline(always)]
    fn bulk_counts(&mut self, bulk: &BulkCounts) {
        self.part.tally.add_bulk(bulk);
        if let Some(cid) = bulk.last_player_cid {
            self.part.last_move = Some(Some(cid));
        }
    }

    #[inline(always)]
    fn bulk_until(&self) -> u64 {
        self.cut
    }
}

/// Joins the parts' counts in order, with their ticks on the true clock,
/// and says how many parts counted records; `None` where a split did not
/// join (or ticks come near overflow).
fn join(parts: Vec<Result<Part, ReadError>>, len: u64) -> Result<Option<(Scan, usize)>, ReadError> {
    let mut total = Tally::new();
    let mut used = 0;
    // The true clock after the parts joined so far.
    let mut clock = TickClock::default();
    for part in parts {
        let part = part?;
        let (tick, last) = (i64::from(clock.tick()), clock.last_player_cid());
        // A player record first: DDNet starts a new tick there only if its
        // cid is not above the previous one's; the part assumed it did.
        let shift = match part.first_move {
            Some(Some(cid)) if last.is_some_and(|l| cid > l) => -1,
            _ => 0,
        };
        let moved = part.first_move.is_some();
        let true_tick =
            |rel: i32, after_move: bool| tick + i64::from(rel) + if after_move { shift } else { 0 };
        let t = &part.tally;
        let end_tick = true_tick(t.last_tick(), moved);
        if end_tick >= i64::from(i32::MAX) {
            return Ok(None); // where DDNet's clock overflows: one pass
        }
        if !t.is_empty() {
            used += 1;
            let first = true_tick(part.first_tick, moved && part.before_move == 0);
            let same_first = !total.is_empty() && first == tick;
            let same_at_move = part.before_move > 0 && shift == -1;
            total.ticks += t.ticks - u64::from(same_first) - u64::from(same_at_move);
            total.last_tick = true_tick(t.last_tick(), moved);
            for (sum, n) in total.counts.iter_mut().zip(t.counts) {
                *sum += n;
            }
            total.cids.union(&t.cids);
            total.noncanonical_records += t.noncanonical_records;
            total.first_noncanonical = total.first_noncanonical.or(t.first_noncanonical);
        }
        let last = match part.last_move {
            Some(Some(cid)) => Some(cid),
            Some(None) => Some(-1), // TICK_SKIP
            None => last,
        };
        clock = TickClock::at(end_tick as i32, last);
        match part.stop {
            Stop::Joined => continue,
            Stop::Missed => return Ok(None),
            Stop::Ended {
                end,
                error,
                records_end,
            } => {
                let mut scan = Scan::default();
                scan.take(&total);
                scan.error = error.map(|e| e.at_tick(total.last_tick()));
                scan.end = end;
                scan.end_at(records_end, len - records_end);
                return Ok(Some((scan, used)));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::tests::{ArbMessage, file};
    use crate::testing::qc;
    use quickcheck::TestResult;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts `bytes` split into `parts` with a lead-in of `lead`: `None`
    /// where the parts did not join, else whether the result is the one
    /// pass's, field for field, and how many parts counted records.
    fn split_agrees(bytes: &[u8], parts: usize, lead: u64) -> Option<(bool, usize)> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "teeoracle-split-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, bytes).unwrap();
        let f = File::open(&path).unwrap();
        let split = count_split(&f, bytes.len() as u64, parts, lead);
        std::fs::remove_file(&path).unwrap();
        let one = Scan::run(bytes, Verify::default());
        let json = |scan: &Scan| serde_json::to_string(scan).unwrap();
        match (split, one) {
            (Ok((_, None)), _) => None,
            (Ok((h, Some((split, used)))), Ok((one_h, one))) => {
                Some((h == one_h && json(&split) == json(&one), used))
            }
            (Err(a), Err(b)) => Some((a.to_string() == b.to_string(), 0)),
            _ => Some((false, 0)),
        }
    }

    /// Every corpus file, cut into 2 to 6 parts with lead-ins of 0 to 2,000
    /// bytes: where the parts join, the counts are the one pass's. And on
    /// the real recordings (5 to 121 KB), with lead-ins of 300 bytes or
    /// more, most splits join with several parts counting (56 of 70 when
    /// this was written), so this cannot pass by always counting in one
    /// pass.
    #[test]
    fn real_files_split_anywhere_count_as_one_pass() {
        let (mut several, mut real) = (0, 0);
        for path in crate::testing::corpus_files("teehistorian") {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.to_string_lossy();
            // Recordings of 5 KB or more: in a shorter one the parts are
            // too short for a misaligned decode to fall into step.
            let recording = (name.contains("/ddnet-20.1/") || name.contains("/ddnet-16.4/"))
                && bytes.len() >= 5_000;
            for parts in 2..=6 {
                for lead in [0, 7, 64, 300, 2000] {
                    // Shorter lead-ins often end before a misaligned decode
                    // falls into step; those splits count in one pass.
                    let counted = recording && lead >= 300;
                    real += usize::from(counted);
                    match split_agrees(&bytes, parts, lead) {
                        Some((true, used)) => several += usize::from(counted && used > 1),
                        Some((false, _)) => {
                            panic!("{}: {parts} parts, lead {lead}", path.display())
                        }
                        None => {}
                    }
                }
            }
        }
        assert!(
            several * 10 >= real * 7,
            "{several} of {real} splits of recordings joined"
        );
    }

    /// A file as large as the ones split in use: the records of a real
    /// recording over and over (17 MB; replayed, the repeats are
    /// inconsistent: players join twice).
    fn large_file() -> Vec<u8> {
        let bytes = crate::testing::corpus("teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian");
        let (header, _) = SliceReader::new(&bytes, Mode::Strict).unwrap();
        let start = header_len(&header) as usize;
        let finish = bytes.len() - 1; // FINISH is the last byte
        let mut large = bytes[..start].to_vec();
        while large.len() < (super::super::SPLIT_MIN + (1 << 20)) as usize {
            large.extend_from_slice(&bytes[start..finish]);
        }
        large.push(bytes[finish]);
        large
    }

    /// With the lead-in in use, a large file splits into as many parts as
    /// asked, and counts as in one pass.
    #[test]
    fn a_large_file_splits_with_the_lead_in_in_use() {
        let large = large_file();
        for parts in [2, 4] {
            assert_eq!(
                split_agrees(&large, parts, super::super::LEAD),
                Some((true, parts))
            );
        }
    }

    /// Arbitrary records, and arbitrary bytes after a header: the same.
    #[test]
    fn prop_arbitrary_streams_split_count_as_one_pass() {
        fn prop(messages: Vec<ArbMessage>, tail: Vec<u8>, parts: u8, lead: u8) -> TestResult {
            let messages: Vec<Message> = messages.into_iter().map(|m| m.0).collect();
            let mut bytes = file(&messages);
            if messages.is_empty() {
                bytes.extend_from_slice(&tail);
            }
            match split_agrees(&bytes, usize::from(parts % 5) + 2, u64::from(lead % 40)) {
                Some((agrees, _)) => TestResult::from_bool(agrees),
                None => TestResult::discard(),
            }
        }
        qc().tests(300)
            .quickcheck(prop as fn(Vec<ArbMessage>, Vec<u8>, u8, u8) -> TestResult);
    }
}
