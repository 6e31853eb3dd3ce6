//! The world at a tick ([`Archive::seek`]): from the nearest usable
//! checkpoint, replaying the recording's bytes after it; and the replay
//! from the start that a seek must equal.

use super::access::Fault;
use super::{Archive, MapMembers};
use crate::archive::ArchiveError;
use crate::archive::members::{MapMember, Slot};
use crate::archive::recording::{finish_world, read_header, replay_until};
use crate::archive::text::{SaveFile, TocEntry, parse_history, parse_toc};
use crate::codec::Mode;
use crate::teehistorian::{Replay, ReplayConfig, StreamReader, World};
use serde::Serialize;
use std::io::{BufReader, Cursor, Read};

/// The result of a seek.
#[derive(Clone, Debug)]
pub struct SeekResult {
    /// The world at the tick.
    pub world: World,
    /// The checkpoint the replay resumed from (`None`: from the start of
    /// the recording).
    pub from: Option<Resumed>,
    /// Records replayed after it.
    pub records: u64,
    /// Checkpoints not used and why, replay inconsistencies.
    pub notes: Vec<String>,
}

/// The checkpoint a seek resumed from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Resumed {
    /// Its member, e.g. `2/save3.ron`.
    pub member: String,
    /// The last tick it holds.
    pub tick: i32,
    /// The offset in the recording where the replay resumed.
    pub offset: u64,
}

impl Archive {
    /// The world of map `n` at tick `tick`: the nearest checkpoint at or
    /// before it, then the recording's bytes after the checkpoint's offset.
    /// Checkpoints that are missing, damaged or disagree with `toc.txt`
    /// are passed over (the notes say so); without `toc.txt` the replay
    /// starts at the beginning.
    pub fn seek(&mut self, n: u32, tick: i32) -> Result<SeekResult, ArchiveError> {
        self.retrying(|a| a.seek_once(n, tick))
    }

    fn seek_once(&self, n: u32, tick: i32) -> Result<SeekResult, Fault> {
        let mm = self.map(n)?;
        let rec = self.recording(n)?;
        if tick < 0 {
            return Err(Fault::Fail(ArchiveError::TickBeforeStart { tick }));
        }
        let size = self.members[rec].size;
        let mut notes = Vec::new();
        let entries = self.toc_for_seek(n, mm, &mut notes)?;
        let start = self.checkpoint_before(n, mm, &entries, tick, size, &mut notes)?;
        let bad_recording = |e| self.bad_recording(rec, e);
        let (_, head) = {
            let mut r = self
                .member_reader(rec, 0)
                .map_err(|e| self.read_fault(rec, e))?;
            read_header(&mut r).map_err(bad_recording)?
        };
        let header_len = head.len() as u64;
        let (mut replay, resume_at, from) = match start {
            Some((member, e, save)) if e.offset >= header_len => (
                Replay::resume(save.checkpoint),
                e.offset,
                Some(Resumed {
                    member,
                    tick: e.tick,
                    offset: e.offset,
                }),
            ),
            _ => (Replay::new(ReplayConfig::default()), header_len, None),
        };
        // Nothing past the next checkpoint after `tick` is needed: the record
        // there belongs to a later tick. Stopping there keeps a seek to one
        // interval's bytes (and one compressed frame).
        let bound = entries
            .iter()
            .find(|e| e.tick > tick && e.offset > resume_at)
            .map_or(size, |e| e.offset.min(size));
        let tail = self
            .member_reader(rec, resume_at)
            .map_err(|e| self.read_fault(rec, e))?
            .take(bound - resume_at);
        // The stream reader needs a header: the recording's own, then the
        // bytes from the checkpoint on, with offsets shifted back.
        let src = Cursor::new(head).chain(tail);
        let (_, mut reader) = StreamReader::new(src, Mode::Lenient).map_err(bad_recording)?;
        let mut reached = replay_until(&mut reader, resume_at - header_len, &mut replay, tick)
            .map_err(bad_recording)?;
        reached.past |= bound < size;
        notes.extend(
            reached
                .inconsistencies
                .iter()
                .map(|i| format!("replay: {i}")),
        );
        if reached.inconsistency_count > reached.inconsistencies.len() as u64 {
            notes.push(format!(
                "{} more inconsistencies",
                reached.inconsistency_count - reached.inconsistencies.len() as u64
            ));
        }
        let world = finish_world(&replay, &reached, tick).ok_or_else(|| {
            Fault::Fail(ArchiveError::TickAfterEnd {
                path: self.path.clone(),
                map: n,
                tick,
                last_tick: reached.last_tick,
            })
        })?;
        Ok(SeekResult {
            world,
            from,
            records: reached.records,
            notes,
        })
    }

    /// Map `n`'s `toc.txt` entries; none (with a note saying why) if it
    /// is missing or damaged.
    fn toc_for_seek(
        &self,
        n: u32,
        mm: &MapMembers,
        notes: &mut Vec<String>,
    ) -> Result<Vec<TocEntry>, Fault> {
        let why = match self.stored_text(mm.toc)? {
            Some(Ok(text)) => match parse_toc(&text) {
                Ok(entries) => return Ok(entries),
                Err(e) => format!("is damaged ({e})"),
            },
            Some(Err(e)) => format!("is damaged ({e})"),
            None => "is missing".into(),
        };
        notes.push(format!("{n}/toc.txt {why}: replaying from the start"));
        Ok(Vec::new())
    }

    /// The last usable checkpoint at or before `tick` among `entries`
    /// (the recording being `size` bytes): its member, entry and state
    /// with the history it shares. Those passed over are noted.
    fn checkpoint_before(
        &self,
        n: u32,
        mm: &MapMembers,
        entries: &[TocEntry],
        tick: i32,
        size: u64,
        notes: &mut Vec<String>,
    ) -> Result<Option<(String, TocEntry, SaveFile)>, Fault> {
        for e in entries.iter().rev().filter(|e| e.tick <= tick) {
            let name = Slot::Map(n, MapMember::Save(e.save)).to_string();
            let Some(&i) = mm.saves.get(&e.save) else {
                notes.push(format!("{name} is missing: not used"));
                continue;
            };
            match self.read_save(i, e.offset)?.0 {
                Ok(s)
                    if s.offset == e.offset
                        && s.checkpoint.clock.tick() == e.tick
                        && s.offset < size =>
                {
                    return Ok(match self.with_history(mm, &name, s)? {
                        Ok(s) => Some((name, *e, s)),
                        Err(why) => {
                            notes.push(format!(
                                "{n}/history.ron is {why}: no checkpoint used, replaying from the start"
                            ));
                            None
                        }
                    });
                }
                Ok(s) => notes.push(format!(
                    "{name} holds tick {} at byte {}, toc.txt says tick {} at byte {}: not used",
                    s.checkpoint.clock.tick(),
                    s.offset,
                    e.tick,
                    e.offset
                )),
                Err(why) => notes.push(format!("{name} is damaged ({why}): not used")),
            }
        }
        Ok(None)
    }

    /// Checkpoint `save` (member `name`) with its history: `history.ron`,
    /// cut to the checkpoint's lengths. Without it no checkpoint is
    /// usable (`Err`: what is wrong with it).
    fn with_history(
        &self,
        mm: &MapMembers,
        name: &str,
        mut save: SaveFile,
    ) -> Result<Result<SaveFile, String>, Fault> {
        let history = match self.stored_text(mm.history)? {
            Some(Ok(text)) => parse_history(&text).map_err(|e| format!("damaged ({e})")),
            Some(Err(e)) => Err(format!("damaged ({e})")),
            None => Err("missing".into()),
        };
        let lengths = save.history;
        let cut = history.and_then(|h| {
            h.prefix(lengths).ok_or_else(|| {
                format!(
                    "shorter than {name} says ({} saves, {} swaps, {} console commands)",
                    lengths.saves, lengths.swaps, lengths.console
                )
            })
        });
        Ok(cut.map(|history| {
            save.checkpoint.world.set_history(history);
            save
        }))
    }

    /// The world of map `n` at tick `tick` by replaying its recording from
    /// the start, ignoring every checkpoint: what [`Archive::seek`] must
    /// equal (slow: the whole recording up to `tick`).
    pub fn replay_from_start(&mut self, n: u32, tick: i32) -> Result<World, ArchiveError> {
        self.retrying(|a| {
            let rec = a.recording(n)?;
            let r = a.member_reader(rec, 0).map_err(|e| a.read_fault(rec, e))?;
            let bad_recording = |e| a.bad_recording(rec, e);
            let src = BufReader::with_capacity(1 << 16, r);
            let (_, mut reader) = StreamReader::new(src, Mode::Lenient).map_err(bad_recording)?;
            let mut replay = Replay::new(ReplayConfig::default());
            let reached = replay_until(&mut reader, 0, &mut replay, tick).map_err(bad_recording)?;
            finish_world(&replay, &reached, tick).ok_or_else(|| {
                Fault::Fail(ArchiveError::TickAfterEnd {
                    path: a.path.clone(),
                    map: n,
                    tick,
                    last_tick: reached.last_tick,
                })
            })
        })
    }
}
