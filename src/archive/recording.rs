//! What the archive derives from a recording, in one streaming pass:
//! length, log, checkpoints, and whether the recording is sound. Also the
//! replay to a tick, from the start or from a checkpoint.

use super::log;
use crate::check::{Finding, Severity};
use crate::codec::{Codec, Mode, Reader};
use crate::teehistorian::scan::{Scan, Verify};
use crate::teehistorian::{
    Checkpoint, Header, Inconsistency, MAX_HEADER_LEN, ReadError, Replay, ReplayConfig,
    StreamReader, World,
};
use std::fmt;
use std::io::Read;
use std::ops::ControlFlow;

/// Which checkpoints a pass takes.
#[derive(Clone, Copy, Debug)]
pub enum Plan<'a> {
    /// Before the first record of a tick past each multiple of this many
    /// ticks (so a checkpoint holds every tick up to the multiple).
    Every(i32),
    /// Before the records at these offsets (ascending), to compare with
    /// stored checkpoints.
    At(&'a [u64]),
}

/// A checkpoint taken during a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taken {
    /// Offset of the first record not yet replayed.
    pub offset: u64,
    /// The replay before that record.
    pub checkpoint: Checkpoint,
}

impl Taken {
    /// The tick of the last record replayed.
    pub fn tick(&self) -> i32 {
        self.checkpoint.clock.tick()
    }
}

/// An offset of [`Plan::At`] where no record starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missed {
    /// The offset.
    pub offset: u64,
    /// What is there instead.
    pub why: NotARecord,
}

/// What is at an offset where no record starts.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotARecord {
    /// The header (the offset is 0).
    Header,
    /// The inside of the header.
    InsideHeader,
    /// The inside of the record starting at `record`.
    InsideRecord {
        /// Where that record starts.
        record: u64,
    },
    /// Nothing: the last record ends at `end`, before the offset.
    AfterLastRecord {
        /// Where the last record ends.
        end: u64,
    },
}

impl fmt::Display for NotARecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotARecord::Header => f.write_str("not where a record starts (the header is there)"),
            NotARecord::InsideHeader => {
                f.write_str("not where a record starts (inside the header)")
            }
            NotARecord::InsideRecord { record } => write!(
                f,
                "not where a record starts (inside the record at byte {record})"
            ),
            NotARecord::AfterLastRecord { end } => {
                write!(f, "after the last record (which ends at byte {end})")
            }
        }
    }
}

/// Everything one pass learns about a recording: the teehistorian
/// pipeline's [`Scan`] (counts, how it ended, findings), and what the
/// archive derives from the same pass: the log and the checkpoints.
#[derive(Debug)]
pub struct Analysis {
    /// The recording's header.
    pub header: Header,
    /// Offset of the first record.
    pub header_len: u64,
    /// The pass over the records: counts, end, decode error, findings.
    pub scan: Scan,
    /// `log.txt`.
    pub log: String,
    /// The checkpoints taken.
    pub taken: Vec<Taken>,
    /// Offsets of [`Plan::At`] where no record starts.
    pub missed: Vec<Missed>,
}

impl Analysis {
    /// What is wrong with the recording (the failing findings: a decode
    /// error, a re-encoding that differs, replay inconsistencies, bytes
    /// after FINISH). Empty for a sound recording.
    pub fn problems(&self) -> impl Iterator<Item = Finding> {
        self.scan
            .findings()
            .into_iter()
            .filter(|f| f.severity == Severity::Fail)
    }
}

/// Runs the teehistorian pipeline ([`Scan`], with a replay that keeps its
/// history) over `src`, a whole recording, taking the log and the
/// checkpoints `plan` asks for on the way. With `roundtrip`, every record
/// is also re-encoded and compared with its bytes. Fails only if the
/// header cannot be read or on an I/O error; a decode error later stops
/// the pass and is the scan's `error`.
pub fn analyse(src: impl Read, plan: Plan<'_>, roundtrip: bool) -> Result<Analysis, ReadError> {
    let verify = Verify {
        roundtrip,
        replay: Some(ReplayConfig::default()),
    };
    let (mut at, mut next_multiple) = match plan {
        Plan::Every(every) => (&[][..], Some(i64::from(every.max(1)))),
        Plan::At(offsets) => (offsets, None),
    };
    let every = next_multiple.unwrap_or(1);
    let (mut taken, mut missed) = (Vec::new(), Vec::new());
    let (mut prev_offset, mut records_end) = (None::<u64>, None::<u64>);
    let mut events = crate::teehistorian::log::EventLog::default();
    let (header, scan) = Scan::run_with(src, verify, |rec, replay| {
        while let Some((&o, rest)) = at.split_first() {
            if o > rec.offset {
                break;
            }
            if o == rec.offset {
                taken.push(Taken {
                    offset: o,
                    checkpoint: replay.checkpoint(),
                });
            } else {
                missed.push(Missed {
                    offset: o,
                    why: not_a_boundary(o, prev_offset),
                });
            }
            at = rest;
        }
        if let Some(multiple) = next_multiple
            && i64::from(rec.tick) > multiple
        {
            if prev_offset.is_some() {
                taken.push(Taken {
                    offset: rec.offset,
                    checkpoint: replay.checkpoint(),
                });
            }
            // The next checkpoint follows the first multiple at or after
            // this tick (a TICK_SKIP may jump over several).
            next_multiple = Some((i64::from(rec.tick) + every - 1) / every * every);
        }
        events.record(rec.tick, &rec.msg, replay);
        prev_offset = Some(rec.offset);
        records_end = Some(rec.offset + rec.raw.len() as u64);
    })?;
    let header_len = 16 + header.json.len() as u64 + 1;
    let records_end = records_end.unwrap_or(header_len);
    for &o in at {
        let why = if o < records_end {
            not_a_boundary(o, prev_offset)
        } else {
            NotARecord::AfterLastRecord { end: records_end }
        };
        missed.push(Missed { offset: o, why });
    }
    let log = format!(
        "{}{}",
        log::LOG_HEADER,
        events.finish(scan.last_tick, scan.end)
    );
    Ok(Analysis {
        header,
        header_len,
        scan,
        log,
        taken,
        missed,
    })
}

fn not_a_boundary(offset: u64, prev: Option<u64>) -> NotARecord {
    match prev {
        Some(record) => NotARecord::InsideRecord { record },
        None if offset == 0 => NotARecord::Header,
        None => NotARecord::InsideHeader,
    }
}

/// Reads a recording's header from the start of `src`, a few KiB at a
/// time so that nothing past it is read (the archive puts the header in a
/// frame of its own). Returns the header and its bytes.
pub fn read_header(src: &mut impl Read) -> Result<(Header, Vec<u8>), ReadError> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let mut r = Reader::new(&bytes, Mode::Lenient);
        let error = match Header::decode(&mut r, ()) {
            Ok(header) => {
                let len = r.position();
                bytes.truncate(len);
                return Ok((header, bytes));
            }
            Err(e) => e,
        };
        if !error.is_eof() || bytes.len() > MAX_HEADER_LEN + 17 {
            return Err(error.into());
        }
        let n = src.read(&mut chunk)?;
        if n == 0 {
            // The decode error for the bytes there are.
            return Err(error.into());
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// How far a replay went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// Records replayed.
    pub records: u64,
    /// The tick of the last record replayed.
    pub last_tick: i32,
    /// A record after the target tick was seen (the target is inside the
    /// recording, not after its end).
    pub past: bool,
    /// The first replay inconsistencies (at most 10).
    pub inconsistencies: Vec<Inconsistency>,
    /// How many there were.
    pub inconsistency_count: u64,
}

/// Replays the records of `reader` into `replay` up to and including tick
/// `until`. `shift` is added to the reader's offsets: a reader that resumes
/// in the middle of a recording sees the header followed by the bytes from
/// the checkpoint, so its offsets are short by the bytes skipped.
pub fn replay_until<R: Read>(
    reader: &mut StreamReader<R>,
    shift: u64,
    replay: &mut Replay,
    until: i32,
) -> Result<Reached, ReadError> {
    let mut reached = Reached {
        last_tick: replay.tick(),
        ..Reached::default()
    };
    let flow = reader.for_each_record(|rec| {
        // The reader's own tick restarts at 0 when it resumes; the replay's
        // clock (restored from the checkpoint) knows the real one.
        let tick = replay.peek_tick(&rec.msg);
        if tick > until {
            return ControlFlow::Break(());
        }
        if let Err(inc) = replay.handle(rec.offset + shift, &rec.msg) {
            reached.inconsistency_count += 1;
            if reached.inconsistencies.len() < 10 {
                reached.inconsistencies.push(inc);
            }
        }
        reached.records += 1;
        reached.last_tick = tick;
        ControlFlow::Continue(())
    });
    match flow {
        Ok(ControlFlow::Break(())) => reached.past = true,
        Ok(ControlFlow::Continue(())) => {}
        Err(ReadError::Decode(e)) => {
            return Err(ReadError::Decode(
                e.shifted(shift).at_tick(reached.last_tick),
            ));
        }
        Err(e) => return Err(e),
    }
    Ok(reached)
}

/// The world after replaying a whole recording up to and including tick
/// `tick`, with `world.tick` set to `tick` (as `teeoracle teehistorian
/// replay --at` shows it): the reference that seeking must equal. `None`
/// if the recording ends before `tick`.
pub fn world_at(src: impl Read, tick: i32) -> Result<Option<World>, ReadError> {
    let (_, mut reader) = StreamReader::new(src, Mode::Lenient)?;
    let mut replay = Replay::new(ReplayConfig::default());
    let reached = replay_until(&mut reader, 0, &mut replay, tick)?;
    Ok(finish_world(&replay, &reached, tick))
}

/// The world at `tick` once a replay has stopped there; `None` if the
/// recording ended before it.
pub fn finish_world(replay: &Replay, reached: &Reached, tick: i32) -> Option<World> {
    if !reached.past && tick > reached.last_tick {
        return None;
    }
    let mut world = replay.world();
    world.tick = tick;
    Some(world)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::Recorder;

    fn recording() -> Vec<u8> {
        let header = Header::from_info(crate::teehistorian::HeaderInfo {
            version: 2,
            ..Default::default()
        });
        let mut rec = Recorder::new(&header);
        for tick in 1..=40 {
            rec.tick(tick);
            rec.record_player(0, tick, 0).unwrap();
        }
        rec.finish();
        rec.into_bytes()
    }

    #[test]
    fn checkpoints_every_n_ticks_hold_every_tick_up_to_the_multiple() {
        let bytes = recording();
        let a = analyse(&bytes[..], Plan::Every(10), true).unwrap();
        assert_eq!(a.problems().count(), 0, "{:?}", a.scan.findings());
        let ticks: Vec<i32> = a.taken.iter().map(Taken::tick).collect();
        assert_eq!(ticks, [10, 20, 30]);
        assert_eq!(a.scan.bytes, bytes.len() as u64);
        // Checkpoints at those offsets again give the same states.
        let offsets: Vec<u64> = a.taken.iter().map(|t| t.offset).collect();
        let again = analyse(&bytes[..], Plan::At(&offsets), false).unwrap();
        assert_eq!(again.taken, a.taken);
        assert!(again.missed.is_empty());
        let off = analyse(&bytes[..], Plan::At(&[offsets[0] + 1, 1 << 40]), false).unwrap();
        assert_eq!(off.missed.len(), 2);
        assert!(
            matches!(off.missed[0].why, NotARecord::InsideRecord { record } if record < offsets[0] + 1),
            "{:?}",
            off.missed
        );
        assert_eq!(
            off.missed[1].why,
            NotARecord::AfterLastRecord {
                end: bytes.len() as u64
            }
        );
    }

    #[test]
    fn resuming_from_a_checkpoint_equals_the_full_replay() {
        let bytes = recording();
        let a = analyse(&bytes[..], Plan::Every(10), false).unwrap();
        let t = &a.taken[1];
        for until in [t.tick(), t.tick() + 5, 40] {
            let mut src = &bytes[..];
            let (_, head) = read_header(&mut src).unwrap();
            let tail = &bytes[t.offset as usize..];
            let resumed = [&head[..], tail].concat();
            let (_, mut reader) = StreamReader::new(&resumed[..], Mode::Lenient).unwrap();
            let mut replay = Replay::resume(t.checkpoint.clone());
            let reached =
                replay_until(&mut reader, t.offset - a.header_len, &mut replay, until).unwrap();
            assert_eq!(
                finish_world(&replay, &reached, until),
                world_at(&bytes[..], until).unwrap()
            );
        }
        assert_eq!(world_at(&bytes[..], 41).unwrap(), None);
    }
}
