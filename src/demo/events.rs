//! A demo played back as DDNet's demo player does: tick markers, messages
//! and the full snapshot after each keyframe or delta, in file order.
//!
//! One replay machine ([`Player`]) is fed from two sources: [`Events`]
//! streams a file's bytes (each payload decoded into reused buffers,
//! nothing kept: constant memory, the fast path), and
//! [`Demo::replay_snapshots`] walks an already decoded [`Demo`].

use super::chunk::{Frame, Scratch, check, read_frame, unpack};
use super::{Chunk, ChunkContext, ChunkKind, Demo, Header, MapSha256, Payload, Prefix, Timeline};
use crate::codec::{DecodeError, Mode, Reader, Window};
use crate::snapshot::replay::{
    Base, Fault, FaultKind, ReplayCounts, SnapData, SnapInput, SnapshotHistory,
};
use crate::snapshot::{ItemSizes, Snapshot};
use serde::Serialize;
use std::collections::VecDeque;
use std::io::{self, Read, Seek, SeekFrom};

/// One thing the player meets, and where.
#[derive(Debug)]
pub struct Event<'e> {
    /// The chunk's index among the demo's chunks.
    pub index: usize,
    /// The chunk's file offset.
    pub offset: u64,
    /// The tick of the last tick marker (-1 before the first one).
    pub tick: i32,
    /// What happened.
    pub kind: EventKind<'e>,
}

/// What an [`Event`] is.
#[non_exhaustive]
#[derive(Debug)]
pub enum EventKind<'e> {
    /// A tick marker: what follows happens at [`Event::tick`].
    Tick {
        /// A whole snapshot follows (a keyframe).
        keyframe: bool,
    },
    /// A message chunk (or a type-0 chunk, which DDNet's player hands on
    /// as one): the message as DDNet's player has it, int32s whose
    /// little-endian bytes ([`super::payload_bytes`]) are the message as
    /// the server sent it (its id, then its fields, packed), zero-padded.
    Message(&'e [i32]),
    /// The full snapshot after a keyframe or delta chunk.
    Snapshot(&'e Snapshot),
    /// Something the player could not use: a payload that does not decode
    /// (the chunk is skipped), a delta that does not apply (the snapshot
    /// is dropped; the next delta applies to the last good one), or an
    /// item of the wrong size (dropped from the snapshot, which is kept).
    Fault(&'e Fault),
}

/// One chunk as the player takes it.
enum Step<'s> {
    Tick {
        tick: i32,
        keyframe: bool,
    },
    Data {
        kind: ChunkKind,
        ints: Result<&'s [i32], DecodeError>,
    },
}

/// Payloads that did not decode, by what their chunk held.
#[derive(Clone, Copy, Debug, Default)]
struct PayloadFaults {
    snapshots: usize,
    messages: usize,
}

/// The replay machine: DDNet's demo player over chunks fed in order.
struct Player {
    history: SnapshotHistory,
    tick: Option<i32>,
    /// The snapshot chunk whose warnings are not taken yet.
    warnings_due: Option<(usize, u64)>,
    pending: VecDeque<(usize, u64, Fault)>,
    fault: Option<Fault>,
    payload_faults: PayloadFaults,
}

impl Player {
    fn new(sizes: ItemSizes) -> Player {
        Player {
            history: SnapshotHistory::for_demo(sizes),
            tick: None,
            warnings_due: None,
            pending: VecDeque::new(),
            fault: None,
            payload_faults: PayloadFaults::default(),
        }
    }

    /// True if faults of the last snapshot are waiting to be told.
    fn has_pending(&mut self) -> bool {
        if let Some((index, offset)) = self.warnings_due.take() {
            // Most snapshots have none: nothing to move then.
            let warnings = self.history.take_warnings();
            if !warnings.is_empty() {
                self.pending
                    .extend(warnings.into_iter().map(|f| (index, offset, f)));
            }
        }
        !self.pending.is_empty()
    }

    fn next_pending(&mut self) -> Option<Event<'_>> {
        let (index, offset, f) = self.pending.pop_front()?;
        let tick = f.tick;
        let fault = self.fault.insert(f);
        Some(Event {
            index,
            offset,
            tick,
            kind: EventKind::Fault(fault),
        })
    }

    fn step<'e>(&'e mut self, index: usize, offset: u64, step: Step<'e>) -> Event<'e> {
        let tick = self.tick.unwrap_or(-1);
        let event = |tick, kind| Event {
            index,
            offset,
            tick,
            kind,
        };
        let (kind, ints) = match step {
            Step::Tick { tick, keyframe } => {
                self.tick = Some(tick);
                return event(tick, EventKind::Tick { keyframe });
            }
            Step::Data { kind, ints } => (kind, ints),
        };
        let ints = match ints {
            Ok(ints) => ints,
            Err(error) => {
                match kind.is_snapshot() {
                    true => self.payload_faults.snapshots += 1,
                    false => self.payload_faults.messages += 1,
                }
                let chunk = kind.name();
                let fault = self.fault.insert(Fault {
                    offset,
                    tick,
                    kind: FaultKind::Payload { chunk, error },
                });
                return event(tick, EventKind::Fault(fault));
            }
        };
        let data = match kind {
            ChunkKind::Message | ChunkKind::Unknown => {
                return event(tick, EventKind::Message(ints));
            }
            ChunkKind::Snapshot => SnapData::Keyframe(ints),
            ChunkKind::Delta => SnapData::Delta {
                base: Base::Previous,
                ints,
            },
        };
        self.warnings_due = Some((index, offset));
        let fed = self.history.feed(SnapInput {
            offset,
            tick,
            data,
            crc: None,
        });
        match fed {
            Ok(snap) => event(tick, EventKind::Snapshot(snap)),
            Err(f) => event(tick, EventKind::Fault(self.fault.insert(f))),
        }
    }

    /// The replay machine's counts; snapshot and delta chunks whose
    /// payload does not decode count as dropped.
    fn counts(&self) -> ReplayCounts {
        let mut counts = self.history.counts().clone();
        counts.dropped += self.payload_faults.snapshots;
        counts
    }
}

/// A demo file played back as it is read: the events of its chunks, each
/// payload decoded into reused buffers and nothing kept, so that a demo of
/// any size replays in constant memory. A lending iterator (each event
/// borrows the snapshot the player holds): walk it with
/// `while let Some(event) = events.next()?`.
///
/// ```
/// use teeoracle::demo::{EventKind, Events};
/// let bytes = std::fs::read("corpus/demo/ddnet-20.1/A_join_move_leave.demo")?;
/// let mut events = Events::new(&bytes)?;
/// assert_eq!(events.header().map_name.text(), "dm1");
/// let (mut messages, mut snapshots, mut last_tick) = (0, 0, 0);
/// while let Some(event) = events.next()? {
///     match event.kind {
///         EventKind::Message(_) => messages += 1,
///         EventKind::Snapshot(snap) => {
///             assert!(snap.len() > 0, "an empty snapshot at tick {}", event.tick);
///             snapshots += 1;
///         }
///         EventKind::Tick { .. } => last_tick = event.tick,
///         _ => {}
///     }
/// }
/// assert_eq!((messages, snapshots, last_tick), (2198, 334, 1055));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Events<'a> {
    prefix: Prefix<'a>,
    src: Source<'a>,
    ctx: ChunkContext,
    index: usize,
    /// The last chunk is cut short: its bytes are the source's rest.
    truncated: bool,
    /// The damaged chunk's error, once met: nothing follows it.
    error: Option<DecodeError>,
    /// The first tick marker's tick.
    first_tick: Option<i32>,
    scratch: Scratch,
    player: Player,
    /// False while [`Events::replay`] only counts messages: each is
    /// checked to decode as it is read ([`check`]), its event has no ints.
    message_ints: bool,
}

/// The longest chunk: its byte, a two-byte size, and 65,535 bytes.
const MAX_CHUNK_SPAN: usize = 3 + 0xFFFF;

/// Where [`Events`] reads the chunks from.
enum Source<'a> {
    /// The demo's bytes, all in memory.
    Bytes(Reader<'a>),
    /// A file read a window at a time.
    Stream(Window),
}

impl Source<'_> {
    /// A reader over the bytes at hand, from the next chunk on.
    #[inline]
    fn reader(&self) -> Reader<'_> {
        match self {
            Source::Bytes(r) => *r,
            Source::Stream(w) => w.reader(Mode::Lenient),
        }
    }

    /// True if a byte is at hand, or came when asked for.
    fn any(&mut self) -> bool {
        match self {
            Source::Bytes(r) => r.remaining() > 0,
            Source::Stream(w) => !w.bytes().is_empty() || w.more(),
        }
    }

    /// Reads more of a stream (false: nothing more comes).
    fn more(&mut self) -> bool {
        match self {
            Source::Bytes(_) => false,
            Source::Stream(w) => w.more(),
        }
    }

    /// Moves past what a [`Source::reader`] read, up to its `position`.
    #[inline]
    fn advance(&mut self, position: usize) {
        match self {
            Source::Bytes(r) => r.skip_peeked(position - r.position()),
            Source::Stream(w) => w.consume(position),
        }
    }

    /// The bytes not read.
    fn rest(&self) -> &[u8] {
        match self {
            Source::Bytes(r) => {
                let mut r = *r;
                r.rest()
            }
            Source::Stream(w) => w.bytes(),
        }
    }
}

impl<'a> Events<'a> {
    /// Reads what comes before the chunks (header, timeline markers,
    /// SHA-256 item, map), as [`Demo::decode`] does.
    pub fn new(bytes: &'a [u8]) -> Result<Events<'a>, DecodeError> {
        let mut r = Reader::new(bytes, Mode::Lenient);
        let prefix = super::read_prefix(&mut r)?;
        Ok(Events::after_prefix(prefix, Source::Bytes(r)))
    }

    /// A demo file's events as it is read, a window at a time, its map
    /// skipped unread: a file of any size plays in the memory of its
    /// longest chunk (64 KiB), and the map's bytes are neither copied nor
    /// paged in. `len` is the file's length. [`Events::map`] is empty.
    /// `Ok(None)` if the file is no demo, or what comes before its
    /// chunks does not read (a map longer than the file, say): read it
    /// whole then, [`Events::new`] names the fault. A read error after the
    /// start ends the events like a cut file; [`Events::read_error`] says
    /// so.
    pub fn stream(file: impl Read + Seek + 'static, len: u64) -> io::Result<Option<Events<'a>>> {
        // 32 KiB holds hundreds of a demo's chunks: a read refills it.
        Events::stream_in(file, len, 32 * 1024)
    }

    /// [`Events::stream`] through a window that starts at `window` bytes.
    pub(crate) fn stream_in(
        mut file: impl Read + Seek + 'static,
        len: u64,
        window: usize,
    ) -> io::Result<Option<Events<'a>>> {
        let mut head = [0u8; super::MAX_BEFORE_MAP];
        let head = &mut head[..len.min(super::MAX_BEFORE_MAP as u64) as usize];
        file.read_exact(head)?;
        if !super::is_demo(head) {
            return Ok(None);
        }
        let mut r = Reader::new(head, Mode::Lenient);
        let Ok((header, timeline, map_sha256)) = super::read_before_map(&mut r) else {
            return Ok(None);
        };
        let Some(chunks) = (r.position() as u64)
            .checked_add(u64::from(header.map_size))
            .filter(|&end| end <= len)
        else {
            return Ok(None);
        };
        file.seek(SeekFrom::Start(chunks))?;
        let prefix = Prefix {
            header,
            timeline,
            map_sha256,
            map: &[],
        };
        let window = Window::new(file, chunks, window, MAX_CHUNK_SPAN);
        Ok(Some(Events::after_prefix(prefix, Source::Stream(window))))
    }

    fn after_prefix(prefix: Prefix<'a>, src: Source<'a>) -> Events<'a> {
        let ctx = ChunkContext {
            version: prefix.header.version,
            tick: None,
        };
        let player = Player::new(super::item_sizes(&prefix.header));
        Events {
            prefix,
            src,
            ctx,
            index: 0,
            truncated: false,
            error: None,
            first_tick: None,
            scratch: Scratch::default(),
            player,
            message_ints: true,
        }
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.prefix.header
    }

    /// The timeline markers (versions 4 and later).
    pub fn timeline(&self) -> Option<&Timeline> {
        self.prefix.timeline.as_ref()
    }

    /// The SHA-256 item (version 6, when present).
    pub fn map_sha256(&self) -> Option<&MapSha256> {
        self.prefix.map_sha256.as_ref()
    }

    /// The embedded map (empty when [`Events::stream`] skipped it).
    pub fn map(&self) -> &'a [u8] {
        self.prefix.map
    }

    /// After the last event: a chunk cut short by the end of the file (a
    /// crashed recorder), as [`Demo::truncated`].
    pub fn truncated(&self) -> Option<&[u8]> {
        self.truncated.then(|| self.src.rest())
    }

    /// The bytes a stream's window holds room for (0 for a demo in memory).
    #[cfg(test)]
    pub(crate) fn window_len(&self) -> usize {
        match &self.src {
            Source::Bytes(_) => 0,
            Source::Stream(w) => w.room(),
        }
    }

    /// After the last event: the error that stopped reading a streamed
    /// file ([`Events::stream`]); the events before it were given, and
    /// the file reads as if cut there.
    pub fn read_error(&self) -> Option<&io::Error> {
        match &self.src {
            Source::Bytes(_) => None,
            Source::Stream(w) => w.error(),
        }
    }

    /// After the last event: the damaged chunk that stopped the reading,
    /// as [`Demo::damage`]'s error; every event before it was given.
    pub fn error(&self) -> Option<&DecodeError> {
        self.error.as_ref()
    }

    /// After the last event: [`Demo::unfinished`] (the recorder was never
    /// stopped; the seconds `Stop` would have written).
    pub fn unfinished(&self) -> Option<u32> {
        let p = &self.prefix;
        super::unfinished(
            &p.header,
            p.timeline.as_ref(),
            self.first_tick?,
            self.ctx.tick?,
        )
    }

    /// The next event; `Ok(None)` after the last chunk (or a cut one).
    /// An error is a fault of the chunk framing that DDNet's reader stops
    /// at too (a tick marker out of range, or relative before any
    /// absolute one), after every event before it; nothing follows it
    /// ([`Events::error`] keeps it).
    #[allow(clippy::should_implement_trait)] // a lending iterator
    pub fn next(&mut self) -> Result<Option<Event<'_>>, DecodeError> {
        if self.player.has_pending() {
            return Ok(self.player.next_pending());
        }
        if self.error.is_some() || self.truncated || !self.src.any() {
            return Ok(None);
        }
        let mut r = self.src.reader();
        let offset = r.offset();
        let frame = loop {
            let e = match read_frame(&mut r, self.ctx) {
                Ok(frame) => break frame,
                Err(e) => e,
            };
            if !e.is_eof() {
                return Err(self.error.insert(e).clone());
            }
            // A chunk cut at the window's end: read on and try again, or
            // the file is cut there.
            if !self.src.more() {
                self.truncated = true;
                return Ok(None);
            }
            r = self.src.reader();
        };
        let read = r.position();
        let index = self.index;
        self.index += 1;
        let step = match frame {
            Frame::Tick { tick, keyframe, .. } => {
                self.ctx.tick = Some(tick);
                self.first_tick.get_or_insert(tick);
                Step::Tick { tick, keyframe }
            }
            Frame::Data { kind, raw, at, .. } if !kind.is_snapshot() && !self.message_ints => {
                let checked = check(raw, at, self.ctx.tick, &mut self.scratch);
                Step::Data {
                    kind,
                    ints: checked.map(|_| &[][..]),
                }
            }
            Frame::Data { kind, raw, at, .. } => {
                let unpacked = unpack(raw, at, self.ctx.tick, &mut self.scratch);
                Step::Data {
                    kind,
                    ints: unpacked.map(|_| self.scratch.ints.as_slice()),
                }
            }
        };
        self.src.advance(read);
        Ok(Some(self.player.step(index, offset, step)))
    }

    /// The replay machine's counts so far, as in [`SnapshotReplay`].
    pub fn counts(&self) -> ReplayCounts {
        self.player.counts()
    }

    /// Chunks read so far (all of them, after the last event).
    pub fn chunks(&self) -> usize {
        self.index
    }

    /// What the header says (as [`Demo::info`]).
    pub fn info(&self) -> super::HeaderInfo {
        let p = &self.prefix;
        super::HeaderInfo::of(&p.header, p.timeline.as_ref(), p.map_sha256.as_ref())
    }

    /// Plays the rest of the demo and sums it up, as
    /// [`Demo::replay_snapshots`] does, in constant memory: up to a
    /// damaged chunk, if there is one ([`Events::error`]).
    pub fn replay(&mut self) -> SnapshotReplay {
        let mut summary = SnapshotReplay::default();
        crate::huffman::warm_decoder();
        // Messages are counted, so only checked.
        self.message_ints = false;
        while let Ok(Some(e)) = self.next() {
            summary.count(&e);
        }
        self.message_ints = true;
        summary.finish(&self.player);
        summary
    }
}

/// What replaying a demo's snapshots gives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SnapshotReplay {
    /// Keyframes, deltas and what came of them.
    pub counts: ReplayCounts,
    /// Message and type-0 chunks.
    pub messages: usize,
    /// Message and type-0 chunks whose payload does not decode.
    pub unreadable_messages: usize,
    /// Tick markers.
    pub ticks: usize,
    /// The last tick marker's tick.
    pub last_tick: Option<i32>,
    /// Items in the last snapshot.
    pub last_items: usize,
    /// Dropped snapshots and invalid items, in file order (the first
    /// [`MAX_FAULTS`]; `counts` has the totals).
    pub faults: Vec<Fault>,
}

/// Most faults a replay lists.
pub const MAX_FAULTS: usize = 100;

impl Demo<'_> {
    /// Applies every keyframe and delta in order, as DDNet's demo player
    /// does (each delta to the snapshot before it; a snapshot that fails
    /// is skipped and reported), and calls `on_snapshot` with the chunk's
    /// index in [`Demo::chunks`], its tick and the full snapshot. The
    /// player is [`Events`]' own, fed from the decoded chunks; `offsets`
    /// are the chunk offsets [`Demo::decode`] returned.
    ///
    /// DDNet's player stops at a payload that does not decode; here it is
    /// reported and the replay goes on.
    pub fn replay_snapshots(
        &self,
        offsets: &[u64],
        mut on_snapshot: impl FnMut(usize, i32, &Snapshot),
    ) -> SnapshotReplay {
        let mut summary = SnapshotReplay::default();
        let mut player = Player::new(self.item_sizes());
        let mut tell = |summary: &mut SnapshotReplay, e: Event<'_>| {
            summary.count(&e);
            if let EventKind::Snapshot(snap) = e.kind {
                on_snapshot(e.index, e.tick, snap);
            }
        };
        for (index, (chunk, &offset)) in self.chunks.iter().zip(offsets).enumerate() {
            let step = match chunk {
                Chunk::Tick { tick, keyframe, .. } => Step::Tick {
                    tick: *tick,
                    keyframe: *keyframe,
                },
                Chunk::Data { kind, payload, .. } => Step::Data {
                    kind: *kind,
                    ints: match payload {
                        Payload::Ints { ints, .. } | Payload::Verbatim { ints, .. } => Ok(ints),
                        Payload::Undecodable { error, .. } => Err(error.clone()),
                    },
                },
            };
            tell(&mut summary, player.step(index, offset, step));
            while player.has_pending() {
                if let Some(e) = player.next_pending() {
                    tell(&mut summary, e);
                }
            }
        }
        summary.finish(&player);
        summary
    }
}

impl SnapshotReplay {
    /// Counts one event.
    fn count(&mut self, e: &Event<'_>) {
        match e.kind {
            EventKind::Tick { .. } => {
                self.ticks += 1;
                self.last_tick = Some(e.tick);
            }
            EventKind::Message(_) => self.messages += 1,
            EventKind::Snapshot(snap) => self.last_items = snap.len(),
            EventKind::Fault(f) => {
                if self.faults.len() < MAX_FAULTS {
                    self.faults.push(f.clone());
                }
            }
        }
    }

    /// The player's totals, after the last event.
    fn finish(&mut self, player: &Player) {
        // Messages that do not decode came as faults.
        self.unreadable_messages = player.payload_faults.messages;
        self.messages += self.unreadable_messages;
        self.counts = player.counts();
    }
}
