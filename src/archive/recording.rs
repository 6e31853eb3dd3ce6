//! What the archive derives from a recording, in one streaming pass:
//! length, log, checkpoints, and whether the recording is sound. Also the
//! replay to a tick, from the start or from a checkpoint.

use super::log;
use crate::codec::{Codec, Mode, Reader};
use crate::log::TICKS_PER_SECOND;
use crate::report::{Finding, Severity};
use crate::teehistorian::scan::{Scan, Verify};
use crate::teehistorian::{
    Checkpoint, Header, History, HistoryLen, Inconsistency, MAX_HEADER_LEN, ReadError, Replay,
    ReplayConfig, StreamReader, World,
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
    /// The replay before that record, without its history lists.
    pub checkpoint: Checkpoint,
    /// How long the history lists were there: the recording's
    /// [`Analysis::history`] cut to these lengths completes the world.
    pub history: HistoryLen,
}

impl Taken {
    /// The tick of the last record replayed.
    pub fn tick(&self) -> i32 {
        self.checkpoint.clock.tick()
    }
}

/// The smallest checkpoint spacing a pass uses, in ticks (one second):
/// a smaller one, asked for or read from an archive, is raised to it.
pub const MIN_EVERY: i32 = TICKS_PER_SECOND;

/// An offset of [`Plan::At`] where no checkpoint was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missed {
    /// The offset.
    pub offset: u64,
    /// Why not.
    pub why: NotARecord,
}

/// Why no checkpoint was taken at an offset: no record starts there, or
/// it is too close to the previous checkpoint.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotARecord {
    /// A record starts there, but fewer bytes of records separate it from
    /// the previous checkpoint than the checkpoint would weigh
    /// ([`Replay::weight`]): such checkpoints are never written, and taking
    /// them would let a table of contents make a pass quadratic.
    TooClose {
        /// Where the previous checkpoint is (or the first record).
        previous: u64,
        /// The checkpoint's weight there.
        weight: u64,
    },
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
            NotARecord::TooClose { previous, weight } => write!(
                f,
                "too close to byte {previous} (the previous checkpoint, or the first record) for a checkpoint of about {weight} bytes: checkpoints are at least their own size apart"
            ),
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
    /// The history lists at the end of the recording, which every
    /// checkpoint shares.
    pub history: History,
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
/// checkpoints `plan` asks for on the way.
///
/// Whatever the plan, a checkpoint is taken only where the bytes of
/// records since the previous one (or since the first record) are at least
/// its [`weight`](Replay::weight): checkpoints together weigh at most the
/// recording, however dense the plan or large the world. A checkpoint put
/// off for that is taken at the first record where the rule holds, and
/// what it costs a seek is the few bytes it was put off by. `Every` spacing
/// is at least [`MIN_EVERY`]. With `roundtrip`, every record
/// is also re-encoded and compared with its bytes. Fails only if the
/// header cannot be read or on an I/O error; a decode error later stops
/// the pass and is the scan's `error`.
pub fn analyse(src: impl Read, plan: Plan<'_>, roundtrip: bool) -> Result<Analysis, ReadError> {
    let verify = Verify {
        roundtrip,
        replay: Some(ReplayConfig::default()),
    };
    let (mut at, mut next_multiple) = match plan {
        Plan::Every(every) => (&[][..], Some(i64::from(every.max(MIN_EVERY)))),
        Plan::At(offsets) => (offsets, None),
    };
    let every = next_multiple.unwrap_or(1);
    let (mut taken, mut missed) = (Vec::new(), Vec::new());
    let (mut prev_offset, mut records_end) = (None::<u64>, None::<u64>);
    // Where the previous checkpoint is (the first record before any).
    let mut last_taken = None::<u64>;
    let mut events = crate::teehistorian::log::EventLog::default();
    let take = |offset, replay: &Replay| {
        let (checkpoint, history) = replay.checkpoint_sharing_history();
        Taken {
            offset,
            checkpoint,
            history,
        }
    };
    let (header, scan, replay) = Scan::run_with(src, verify, |rec, replay| {
        while let Some((&o, rest)) = at.split_first() {
            if o > rec.offset {
                break;
            }
            let previous = *last_taken.get_or_insert(rec.offset);
            let weight = replay.weight();
            if o == rec.offset && o - previous >= weight {
                taken.push(take(o, replay));
                last_taken = Some(o);
            } else if o == rec.offset {
                missed.push(Missed {
                    offset: o,
                    why: NotARecord::TooClose { previous, weight },
                });
            } else {
                missed.push(Missed {
                    offset: o,
                    why: not_a_boundary(o, prev_offset),
                });
            }
            at = rest;
        }
        let previous = *last_taken.get_or_insert(rec.offset);
        if let Some(multiple) = next_multiple
            && i64::from(rec.tick) > multiple
            && rec.offset - previous >= replay.weight()
        {
            if prev_offset.is_some() {
                taken.push(take(rec.offset, replay));
                last_taken = Some(rec.offset);
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
        history: replay.history(),
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

    /// 200 ticks of one player moving, with a chat message every tick
    /// (about 14 bytes a tick).
    fn recording() -> Vec<u8> {
        moving(true)
    }

    /// 200 ticks of one player moving, and chatting in each if `chat`.
    fn moving(chat: bool) -> Vec<u8> {
        let header = Header::from_info(crate::teehistorian::HeaderInfo {
            version: 2,
            ..Default::default()
        });
        let mut rec = Recorder::new(&header);
        for tick in 1..=200 {
            rec.tick(tick);
            rec.record_player(0, tick, 0).unwrap();
            if chat {
                rec.record_player_message(0, b"0123456789");
            }
        }
        rec.finish();
        rec.into_bytes()
    }

    #[test]
    fn checkpoints_every_n_ticks_hold_every_tick_up_to_the_multiple() {
        let bytes = recording();
        let a = analyse(&bytes[..], Plan::Every(50), true).unwrap();
        assert_eq!(a.problems().count(), 0, "{:?}", a.scan.findings());
        let ticks: Vec<i32> = a.taken.iter().map(Taken::tick).collect();
        assert_eq!(ticks, [50, 100, 150]);
        // A spacing below a second is raised to a second.
        let dense = analyse(&bytes[..], Plan::Every(1), false).unwrap();
        assert_eq!(dense.taken, a.taken);
        // With less in each tick, a checkpoint waits until the bytes since
        // the previous one cover its weight (the world and a player: 384).
        let lean = moving(false);
        let a_lean = analyse(&lean[..], Plan::Every(50), false).unwrap();
        let ticks: Vec<i32> = a_lean.taken.iter().map(Taken::tick).collect();
        assert_eq!(ticks, [128]);
        let mut previous = a_lean.header_len;
        for t in &a_lean.taken {
            assert!(t.offset - previous >= 384, "{} {previous}", t.offset);
            previous = t.offset;
        }
        assert_eq!(a.scan.bytes, bytes.len() as u64);
        // Checkpoints at those offsets again give the same states.
        let offsets: Vec<u64> = a.taken.iter().map(|t| t.offset).collect();
        let again = analyse(&bytes[..], Plan::At(&offsets), false).unwrap();
        assert_eq!(again.taken, a.taken);
        assert!(again.missed.is_empty(), "{:?}", again.missed);
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
        let a = analyse(&bytes[..], Plan::Every(50), false).unwrap();
        let t = &a.taken[1];
        for until in [t.tick(), t.tick() + 5, 200] {
            let mut src = &bytes[..];
            let (_, head) = read_header(&mut src).unwrap();
            let tail = &bytes[t.offset as usize..];
            let resumed = [&head[..], tail].concat();
            let (_, mut reader) = StreamReader::new(&resumed[..], Mode::Lenient).unwrap();
            let mut checkpoint = t.checkpoint.clone();
            checkpoint
                .world
                .set_history(a.history.prefix(t.history).unwrap());
            let mut replay = Replay::resume(checkpoint);
            let reached =
                replay_until(&mut reader, t.offset - a.header_len, &mut replay, until).unwrap();
            assert_eq!(
                finish_world(&replay, &reached, until),
                world_at(&bytes[..], until).unwrap()
            );
        }
        assert_eq!(world_at(&bytes[..], 201).unwrap(), None);
    }
}
