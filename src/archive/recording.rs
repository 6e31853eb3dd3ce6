//! What the archive derives from a recording, in one streaming pass:
//! length, log, checkpoints, and whether the recording is sound. Also the
//! replay to a tick, from the start or from a checkpoint.

use super::log;
use crate::codec::{Codec, DecodeError, Mode, Reader, first_difference};
use crate::teehistorian::{
    Checkpoint, End, Header, MAX_HEADER_LEN, ReadError, Replay, ReplayConfig, StreamReader, World,
};
use std::io::{self, Read};
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
    pub checkpoint: Checkpoint,
}

impl Taken {
    /// The tick of the last record replayed.
    pub fn tick(&self) -> i32 {
        self.checkpoint.clock.tick()
    }
}

/// Everything one pass learns about a recording.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub header: Header,
    /// Offset of the first record.
    pub header_len: u64,
    /// Length of the recording in bytes.
    pub bytes: u64,
    pub records: u64,
    pub last_tick: i32,
    /// How the record stream ended (`None` after a decode error).
    pub end: Option<End>,
    /// Bytes after FINISH (DDNet never writes any).
    pub after_finish: u64,
    /// `log.txt`.
    pub log: String,
    pub taken: Vec<Taken>,
    /// Offsets of [`Plan::At`] where no record starts, with the reason.
    pub missed: Vec<(u64, String)>,
    /// The decode error that stopped the pass, if one did.
    pub stopped: Option<String>,
    /// What is wrong with the recording: a decode error (the pass stopped
    /// there), a re-encoding that differs, replay inconsistencies, bytes
    /// after FINISH. Empty for a sound recording.
    pub problems: Vec<String>,
}

/// How a replay reports a decode error: one line with the byte offset.
pub fn describe(e: &DecodeError, tick: i32) -> String {
    format!(
        "at byte {} (0x{:x}), tick {tick}: reading {}: {}",
        e.offset, e.offset, e.context, e.kind
    )
}

/// Replays `src` (a whole recording) once. With `roundtrip`, every record
/// is also re-encoded and compared with its bytes. Fails only if the
/// header cannot be read; a fault later stops the pass and is listed in
/// [`Analysis::problems`].
pub fn analyse(src: impl Read, plan: Plan<'_>, roundtrip: bool) -> Result<Analysis, ReadError> {
    let (header, mut reader) = StreamReader::new(src, Mode::Lenient)?;
    let header_len = header.json.len() as u64 + 17;
    let mut replay = Replay::new(ReplayConfig::default());
    let mut out = Analysis {
        header,
        header_len,
        bytes: 0,
        records: 0,
        last_tick: 0,
        end: None,
        after_finish: 0,
        log: String::new(),
        taken: Vec::new(),
        missed: Vec::new(),
        stopped: None,
        problems: Vec::new(),
    };
    let (mut at, mut next_multiple) = match plan {
        Plan::Every(every) => (&[][..], Some(i64::from(every.max(1)))),
        Plan::At(offsets) => (offsets, None),
    };
    let every = next_multiple.unwrap_or(1);
    let (mut next_offset, mut prev_offset) = (header_len, None::<u64>);
    let (mut inconsistencies, mut first_inconsistency) = (0u64, None);
    let (mut mismatch, mut scratch) = (None, Vec::new());
    let mut events = log::EventLog::default();
    let flow = reader.for_each_record(|rec| {
        while let Some((&o, rest)) = at.split_first() {
            if o > rec.offset {
                break;
            }
            if o == rec.offset {
                out.taken.push(Taken {
                    offset: o,
                    checkpoint: replay.checkpoint(),
                });
            } else {
                out.missed.push((o, not_a_boundary(o, prev_offset)));
            }
            at = rest;
        }
        if let Some(multiple) = next_multiple
            && i64::from(rec.tick) > multiple
        {
            if out.records > 0 {
                out.taken.push(Taken {
                    offset: rec.offset,
                    checkpoint: replay.checkpoint(),
                });
            }
            // The next checkpoint follows the first multiple at or after
            // this tick (a TICK_SKIP may jump over several).
            next_multiple = Some((i64::from(rec.tick) + every - 1) / every * every);
        }
        events.record(rec.tick, &rec.msg, &replay);
        if let Err(inc) = replay.handle(rec.offset, &rec.msg) {
            inconsistencies += 1;
            first_inconsistency.get_or_insert(inc);
        }
        if roundtrip && mismatch.is_none() {
            scratch.clear();
            rec.encode(&mut scratch);
            mismatch = first_difference(&scratch, rec.raw).map(|i| rec.offset + i as u64);
        }
        out.records += 1;
        out.last_tick = rec.tick;
        prev_offset = Some(rec.offset);
        next_offset = rec.offset + rec.raw.len() as u64;
        ControlFlow::<()>::Continue(())
    });
    match flow {
        Ok(_) => {}
        Err(ReadError::Decode(e)) => {
            let line = describe(&e, out.last_tick);
            out.problems.push(line.clone());
            out.stopped = Some(line);
        }
        Err(e @ ReadError::Io(_)) => return Err(e),
    }
    for &o in at {
        let why = if o < next_offset {
            not_a_boundary(o, prev_offset)
        } else {
            format!("after the last record (which ends at byte {next_offset})")
        };
        out.missed.push((o, why));
    }
    out.end = reader.end();
    let rest = io::copy(&mut reader.into_rest(), &mut io::sink())?;
    out.bytes = next_offset + rest;
    out.log = events.finish(out.last_tick, out.end);
    if let Some(End::Finished { .. }) = out.end {
        out.after_finish = rest;
    }
    if let Some(at) = mismatch {
        out.problems.push(format!(
            "re-encoding differs from the recording at byte {at} (0x{at:x})"
        ));
    }
    if let Some(inc) = first_inconsistency {
        let more = match inconsistencies {
            1 => String::new(),
            n => format!(" ({} more)", n - 1),
        };
        out.problems.push(format!("replay: {inc}{more}"));
    }
    if let (Some(End::Finished { offset }), 1..) = (out.end, out.after_finish) {
        out.problems.push(format!(
            "{} byte(s) after FINISH at byte {offset} (0x{offset:x})",
            out.after_finish
        ));
    }
    Ok(out)
}

fn not_a_boundary(offset: u64, prev: Option<u64>) -> String {
    match prev {
        Some(p) => format!("not where a record starts (inside the record at byte {p})"),
        None if offset == 0 => "not where a record starts (the header is there)".into(),
        None => "not where a record starts (inside the header)".into(),
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
    /// Replay inconsistencies, as lines (at most 10, then a count).
    pub inconsistencies: Vec<String>,
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
    let mut count = 0u64;
    let flow = reader.for_each_record(|rec| {
        // The reader's own tick restarts at 0 when it resumes; the replay's
        // clock (restored from the checkpoint) knows the real one.
        let tick = replay.peek_tick(&rec.msg);
        if tick > until {
            return ControlFlow::Break(());
        }
        if let Err(inc) = replay.handle(rec.offset + shift, &rec.msg) {
            count += 1;
            if reached.inconsistencies.len() < 10 {
                reached.inconsistencies.push(inc.to_string());
            }
        }
        reached.records += 1;
        reached.last_tick = tick;
        ControlFlow::Continue(())
    });
    match flow {
        Ok(ControlFlow::Break(())) => reached.past = true,
        Ok(ControlFlow::Continue(())) => {}
        Err(ReadError::Decode(mut e)) => {
            e = DecodeError::new(e.offset + shift, e.context, e.kind.clone());
            return Err(ReadError::Decode(e));
        }
        Err(e) => return Err(e),
    }
    if count > 10 {
        reached
            .inconsistencies
            .push(format!("{} more inconsistencies", count - 10));
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
        assert!(a.problems.is_empty(), "{:?}", a.problems);
        let ticks: Vec<i32> = a.taken.iter().map(Taken::tick).collect();
        assert_eq!(ticks, [10, 20, 30]);
        assert_eq!(a.bytes, bytes.len() as u64);
        // Checkpoints at those offsets again give the same states.
        let offsets: Vec<u64> = a.taken.iter().map(|t| t.offset).collect();
        let again = analyse(&bytes[..], Plan::At(&offsets), false).unwrap();
        assert_eq!(again.taken, a.taken);
        assert!(again.missed.is_empty());
        let off = analyse(&bytes[..], Plan::At(&[offsets[0] + 1, 1 << 40]), false).unwrap();
        assert_eq!(off.missed.len(), 2);
        assert!(
            off.missed[0].1.contains("inside the record"),
            "{:?}",
            off.missed
        );
        assert!(
            off.missed[1].1.contains("after the last record"),
            "{:?}",
            off.missed
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
