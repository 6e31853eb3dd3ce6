//! Reading and writing the message stream after the header.
//!
//! [`SliceReader`] iterates over an in-memory file without copying.
//! [`StreamReader`] reads any `io::Read` through a bounded window, so a file
//! of any size is processed in constant memory. Both share [`Decoder`]: one
//! record at a time, the implicit tick, and how the stream ends (FINISH, or
//! truncated as a crashed server leaves it).

use super::header::Header;
use super::message::{Ex, MAX_RECORD_LEN, Message, Mixes, MoveLengths};
use crate::codec::{Codec, DecodeError, ErrorKind, Mode, ReadFault, Reader, first_difference};
use crate::packet::Version;
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;

/// Bytes of a stream after which the common loop looks again at how its
/// records are shaped ([`Message::mixes`]).
const LOOK_EVERY: u64 = 1 << 20;

/// Longest record the readers accept: the largest length field plus room for
/// the record's id and header fields.
pub const MAX_RECORD_SPAN: usize = MAX_RECORD_LEN + 64;

/// DDNet's tick rule for teehistorian streams: a PLAYER_DIFF/NEW/OLD whose
/// cid is `<=` the previous player cid of the tick starts the next tick;
/// TICK_SKIP advances by `dt + 1` and resets that. A file starts at tick 0
/// with the previous cid taken as +infinity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TickClock {
    tick: i32,
    /// Previous player cid in the current tick; `None` means +infinity.
    last_player_cid: Option<i32>,
}

/// Why the clock could not advance as the message asked.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TickError {
    /// The tick would not fit in DDNet's `int`.
    Overflow,
    /// A TICK_SKIP with a negative `dt` would move time backwards.
    NegativeSkip(i32),
}

impl TickClock {
    /// A clock at `tick` whose previous player record in the tick had
    /// `last_player_cid`.
    pub(crate) fn at(tick: i32, last_player_cid: Option<i32>) -> Self {
        TickClock {
            tick,
            last_player_cid,
        }
    }

    /// The previous player record's cid in the current tick (`None`: none
    /// yet, which counts as +infinity).
    pub(crate) fn last_player_cid(&self) -> Option<i32> {
        self.last_player_cid
    }

    /// The tick of the most recent message.
    #[inline]
    pub fn tick(&self) -> i32 {
        self.tick
    }

    /// Moves the clock for `msg` and returns the tick `msg` belongs to. On
    /// error the tick stays where it was.
    #[inline]
    pub fn advance(&mut self, msg: &Message<'_>) -> Result<i32, TickError> {
        if let Some(cid) = msg.player_record_cid() {
            if self.last_player_cid.is_none_or(|last| cid <= last) {
                self.tick = self.tick.checked_add(1).ok_or(TickError::Overflow)?;
            }
            self.last_player_cid = Some(cid);
        } else if let Message::TickSkip { dt } = *msg {
            self.last_player_cid = Some(-1);
            if dt < 0 {
                return Err(TickError::NegativeSkip(dt));
            }
            self.tick = self
                .tick
                .checked_add(dt)
                .and_then(|t| t.checked_add(1))
                .ok_or(TickError::Overflow)?;
        }
        Ok(self.tick)
    }
}

/// One decoded message with where it was and when it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// File offset of the message's first byte.
    pub offset: u64,
    /// The tick the message belongs to.
    pub tick: i32,
    /// The message's bytes as they were in the file.
    pub raw: &'a [u8],
    /// The decoded message.
    pub msg: Message<'a>,
    /// The message uses a non-canonical int (lenient mode only), so it
    /// re-encodes only from `raw`; [`Record::noncanonical_at`] says where.
    pub noncanonical: bool,
    /// For a MESSAGE record, the protocol its client joined with as the
    /// stream so far says ([`ClientProtocols`]): which protocol's table its
    /// data is read with. `None` for every other record.
    pub protocol: Option<Version>,
}

impl Record<'_> {
    /// Appends the record's bytes: re-encoded from the message, or `raw`
    /// when the input used a non-canonical form DDNet never writes.
    #[inline]
    pub fn encode(&self, out: &mut Vec<u8>) {
        if self.noncanonical {
            out.extend_from_slice(self.raw);
        } else {
            self.msg.encode(out, ());
        }
    }

    /// Where re-encoding the record differs from its bytes (an index
    /// into `raw`), if anywhere: `check`'s round trip. `scratch` is room
    /// for the encoding. (The records of the common loop skip it: see
    /// [`Visit::common`].)
    #[inline]
    pub(crate) fn reencoding_differs(&self, scratch: &mut Vec<u8>) -> Option<usize> {
        scratch.clear();
        self.encode(scratch);
        // Compared in line: a call to `memcmp` for a few bytes cost a
        // third of `check`.
        first_difference(scratch, self.raw)
    }

    /// File offset of the first non-canonical int in the record, if any
    /// (found by re-reading it strictly; rare, so not kept per record).
    pub fn noncanonical_at(&self) -> Option<u64> {
        if !self.noncanonical {
            return None;
        }
        let mut r = Reader::at(self.raw, self.offset, Mode::Strict);
        Message::decode(&mut r, ()).err().map(|e| e.offset)
    }
}

impl Record<'_> {
    /// Writes the record's one-line text form (see its `Display`) to `out`,
    /// without building a string: `teehistorian dump`'s hot path.
    pub fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(line_start(self.offset, self.tick).as_ref())?;
        out.write_all(self.msg.kind_name().as_bytes())?;
        crate::bytes::write_key_values(out, &self.msg, &["kind"])?;
        if let Some(at) = self.noncanonical_at() {
            write!(out, " (non-canonical int at byte {at}, kept verbatim)")?;
        }
        Ok(())
    }
}

/// `0x{offset:08x} {tick:>7} `, written by hand: `write!` costs more than
/// the rest of a dump line.
#[inline]
fn line_start(offset: u64, tick: i32) -> impl AsRef<[u8]> {
    struct Start {
        buf: [u8; 40],
        len: usize,
    }
    impl AsRef<[u8]> for Start {
        fn as_ref(&self) -> &[u8] {
            &self.buf[..self.len]
        }
    }
    let mut buf = [b' '; 40];
    buf[..2].copy_from_slice(b"0x");
    let digits = (16 - offset.leading_zeros() as usize / 4).max(8);
    for i in 0..digits {
        buf[2 + digits - 1 - i] = b"0123456789abcdef"[(offset >> (4 * i)) as usize & 0xf];
    }
    // One space, then the tick right-aligned in 7 columns, then a space.
    let mut tick_text = [0u8; 11];
    let mut n = tick.unsigned_abs();
    let mut at = tick_text.len();
    loop {
        at -= 1;
        tick_text[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if tick < 0 {
        at -= 1;
        tick_text[at] = b'-';
    }
    let tick_len = tick_text.len() - at;
    let tick_end = 2 + digits + 1 + tick_len.max(7);
    buf[tick_end - tick_len..tick_end].copy_from_slice(&tick_text[at..]);
    Start {
        buf,
        len: tick_end + 1,
    }
}

impl std::fmt::Display for Record<'_> {
    /// One line: offset, tick, kind and fields (` key=value`, values in
    /// compact JSON), e.g.
    /// `0x00000e38       0 auth_login cid=0 level=3 auth_name="default_admin"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut line = Vec::new();
        self.write_text(&mut line).map_err(|_| std::fmt::Error)?;
        f.write_str(&String::from_utf8_lossy(&line))
    }
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            End::Finished { offset } => {
                write!(f, "finished: FINISH at byte {offset} (0x{offset:x})")
            }
            End::Truncated { offset, partial: 0 } => write!(
                f,
                "truncated at byte {offset} (0x{offset:x}): no FINISH, ends at a record boundary"
            ),
            End::Truncated { offset, partial } => write!(
                f,
                "truncated at byte {offset} (0x{offset:x}): no FINISH, then {partial} byte(s) of a cut record"
            ),
        }
    }
}

/// How a stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "end", rename_all = "snake_case")]
pub enum End {
    /// A FINISH record at `offset`.
    Finished {
        /// Where the FINISH record is.
        offset: u64,
    },
    /// No FINISH: the input ends at `offset + partial`, where `offset` is the
    /// end of the last whole record and `partial` bytes of a cut record follow.
    Truncated {
        /// The end of the last whole record.
        offset: u64,
        /// Bytes of a cut record after it.
        partial: usize,
    },
}

/// Decodes records one at a time and tracks the tick. Shared by both readers.
#[derive(Clone, Debug)]
pub(crate) struct Decoder {
    version: u32,
    mode: Mode,
    clock: TickClock,
    /// A record was read: the common loop, which never reads the first,
    /// may then say a record is in a new tick exactly where the clock
    /// moves (see [`Visit::common`]).
    started: bool,
    end: Option<End>,
    clients: ClientProtocols,
    /// How the ints of the common records ahead mix one- and two-byte
    /// forms ([`Message::mixes`]): they are read accordingly.
    mixes: Mixes,
    /// The file offset from which a run of common records looks again.
    next_look: u64,
}

impl Decoder {
    /// A decoder for a stream of the given header version (1 or 2).
    pub(crate) fn new(version: u32, mode: Mode) -> Self {
        Decoder {
            version,
            mode,
            clock: TickClock::default(),
            started: false,
            end: None,
            clients: ClientProtocols::default(),
            mixes: Mixes::default(),
            next_look: 0,
        }
    }

    /// How the stream ended, once it has.
    pub(crate) fn end(&self) -> Option<End> {
        self.end
    }

    /// Decodes the record at the start of `buf` (file offset `base`) into
    /// `rec`, in place. `at_eof` says whether `buf` runs to the end of the
    /// input. Returns `Ok(false)` once the stream has ended.
    #[inline(always)]
    pub(crate) fn next_into<'a>(
        &mut self,
        buf: &'a [u8],
        base: u64,
        at_eof: bool,
        rec: &mut Record<'a>,
    ) -> Result<bool, DecodeError> {
        if self.end.is_some() {
            return Ok(false);
        }
        // The common records, straight from the bytes: no stream rule but
        // the tick's applies to them, and they are canonical.
        if let Some((msg, len)) = Message::decode_common(buf, self.mixes.aims) {
            Message::clear(&mut rec.msg);
            std::mem::forget(std::mem::replace(&mut rec.msg, msg));
            rec.tick = self.clock.advance(&rec.msg).unwrap_or(self.clock.tick());
            self.started = true;
            rec.protocol = None;
            rec.offset = base;
            rec.raw = &buf[..len];
            rec.noncanonical = false;
            return Ok(true);
        }
        let mut r = Reader::at(buf, base, self.mode);
        if let Err(e) = Message::decode_into(&mut r, &mut rec.msg) {
            return self.cut_or_fail(e, buf.len(), base, at_eof);
        }
        rec.tick = self.accept(&rec.msg, base, r.position())?;
        self.started = true;
        rec.protocol = self.clients.observe(&rec.msg);
        rec.offset = base;
        rec.raw = r.since(0);
        rec.noncanonical = r.noncanonical().is_some();
        Ok(true)
    }

    /// Hands the run of common records at the start of `buf` (file offset
    /// `base`; those of [`Message::decode_common`]) that start before
    /// `limit` to `v`, until another kind of record (which
    /// [`Decoder::next_into`] then reads) or `v` breaks, then tells `v`
    /// where the clock is ([`Visit::run_end`]). Returns the bytes they took
    /// and how `v` left. The same records `next_into` would give, one
    /// after the other: its fast path, in a loop that keeps the clock in
    /// plain integers and builds each record where its kind is known.
    /// A run stops before a record at the largest tick (where the clock
    /// stops: only the general path tells an overflow), so every record
    /// of a run is in a tick the clock reached by counting; and it never
    /// holds the stream's first record, so a record's tick is new exactly
    /// where the clock moves.
    #[inline(always)]
    pub(crate) fn visit_common<'a, B, V: Visit<'a, B>>(
        &mut self,
        buf: &'a [u8],
        base: u64,
        limit: usize,
        v: &mut V,
    ) -> (usize, ControlFlow<B>) {
        if self.end.is_some() || !self.started || self.clock.tick == i32::MAX {
            return (0, ControlFlow::Continue(()));
        }
        // The clock as two integers, the previous player cid widened so
        // that "none yet" (+infinity) is a value: one comparison a record.
        const NO_PLAYER: i64 = i64::MAX;
        let mut tick = self.clock.tick;
        let mut last_cid = self.clock.last_player_cid.map_or(NO_PLAYER, i64::from);
        let mut pos = 0;
        // How the records ahead are shaped, looked at once a stretch (not
        // counted record by record: that cost more than it saved).
        if base >= self.next_look {
            self.mixes = Message::mixes(buf, self.mixes);
            self.next_look = base + LOOK_EVERY;
        }
        let mixes = self.mixes;
        let aims_mix = mixes.aims;
        let flow = loop {
            if V::BULK {
                let until = usize::try_from(v.bulk_until().saturating_sub(base));
                let bulk_limit = limit.min(until.unwrap_or(usize::MAX));
                pos += count_bulk(buf, pos, bulk_limit, mixes, (&mut tick, &mut last_cid), v);
            }
            if pos >= limit {
                break ControlFlow::Continue(());
            }
            let Some((msg, len)) = Message::decode_common(&buf[pos..], aims_mix) else {
                break ControlFlow::Continue(());
            };
            // The common messages own nothing: no drop glue for them.
            let msg = std::mem::ManuallyDrop::new(msg);
            let raw = &buf[pos..pos + len];
            let at = base + pos as u64;
            let flow = match *msg {
                Message::PlayerDiff { cid, dx, dy } => {
                    let new_tick = i64::from(cid) <= last_cid;
                    if new_tick {
                        if tick == i32::MAX - 1 {
                            break ControlFlow::Continue(());
                        }
                        tick += 1;
                    }
                    last_cid = i64::from(cid);
                    let msg = Message::PlayerDiff { cid, dx, dy };
                    visit_one(v, tick, new_tick, at, raw, msg)
                }
                Message::InputDiff { cid, dinput } => {
                    let msg = Message::InputDiff { cid, dinput };
                    visit_one(v, tick, false, at, raw, msg)
                }
                _ => break ControlFlow::Continue(()),
            };
            pos += len;
            if flow.is_break() {
                break flow;
            }
        };
        let last_cid = (last_cid != NO_PLAYER).then_some(last_cid as i32);
        self.clock = TickClock::at(tick, last_cid);
        v.run_end(&self.clock);
        (pos, flow)
    }

    /// Like [`Decoder::next_into`], returning the record.
    #[inline(always)]
    pub(crate) fn next<'a>(
        &mut self,
        buf: &'a [u8],
        base: u64,
        at_eof: bool,
    ) -> Result<Option<Record<'a>>, DecodeError> {
        let mut rec = Record::placeholder();
        Ok(self.next_into(buf, base, at_eof, &mut rec)?.then_some(rec))
    }

    /// Checks a decoded message of `len` bytes at `base` against the stream
    /// rules, notes FINISH, and returns its tick.
    #[inline(always)]
    fn accept(&mut self, msg: &Message<'_>, base: u64, len: usize) -> Result<i32, DecodeError> {
        if self.version < 2 && matches!(msg, Message::Ex(_)) {
            return Err(DecodeError::new(
                base,
                "teehistorian.message_id (version 1 has no EX records)",
                ErrorKind::UnknownMessageId {
                    id: super::message::id::EX,
                },
            ));
        }
        if len > MAX_RECORD_SPAN {
            return Err(too_long(base, len));
        }
        if matches!(msg, Message::Finish) {
            self.end = Some(End::Finished { offset: base });
        }
        Ok(self.clock.advance(msg).unwrap_or(self.clock.tick()))
    }

    /// A decode error that ran out of bytes is the end of a cut stream when
    /// the input has ended; otherwise the record cannot be longer.
    #[cold]
    fn cut_or_fail(
        &mut self,
        e: DecodeError,
        available: usize,
        base: u64,
        at_eof: bool,
    ) -> Result<bool, DecodeError> {
        if !e.is_eof() {
            return Err(e);
        }
        if !at_eof {
            if available >= MAX_RECORD_SPAN {
                return Err(too_long(base, available));
            }
            return Err(e);
        }
        self.end = Some(End::Truncated {
            offset: base,
            partial: available,
        });
        Ok(false)
    }
}

/// For a visitor with [`Visit::BULK`]: counts the common records at
/// `buf[pos..]` that start before `limit` and that `v` takes in bulk
/// ([`Visit::bulk_cids`]), moving the clock of [`Decoder::visit_common`]
/// (`tick` and the previous player cid) over them, and hands the counts
/// to `v`. Stops before any other record, and before one at the largest
/// tick, as that loop does; returns the bytes counted. Everything a
/// record moves stays in registers: nothing goes through memory per
/// record. Where moves mix ([`Mixes::moves`]), PLAYER_DIFFs are placed
/// a block at a time ([`MoveLengths`]).
#[inline(always)]
fn count_bulk<'a, B>(
    buf: &[u8],
    mut pos: usize,
    limit: usize,
    mixes: Mixes,
    (tick, last_cid): (&mut i32, &mut i64),
    v: &mut impl Visit<'a, B>,
) -> usize {
    let start = pos;
    let mut c = Counter {
        take: v.bulk_cids(),
        first_tick: *tick,
        tick: *tick,
        last_cid: *last_cid,
        player_diffs: 0,
        input_diffs: 0,
        cids: 0,
    };
    if mixes.moves {
        pos = c.blocks(buf, pos, limit, mixes.aims);
    }
    // Where no block fits (or where the blocks stopped: the same record
    // stops this loop).
    while pos < limit {
        let Some((msg, len)) = Message::decode_common(&buf[pos..], mixes.aims) else {
            break;
        };
        if !c.record(msg) {
            break;
        }
        pos += len;
    }
    v.bulk_counts(&BulkCounts {
        player_diffs: c.player_diffs,
        input_diffs: c.input_diffs,
        new_ticks: (c.tick - c.first_tick) as u64,
        cids: c.cids,
        tick: c.tick,
        last_player_cid: (c.player_diffs > 0).then_some(c.last_cid as i32),
    });
    (*tick, *last_cid) = (c.tick, c.last_cid);
    pos - start
}

/// What [`count_bulk`] counts, in locals (registers) of its loop.
struct Counter {
    take: CommonCids,
    first_tick: i32,
    tick: i32,
    last_cid: i64,
    player_diffs: u64,
    input_diffs: u64,
    cids: u64,
}

impl Counter {
    /// Counts the records at `buf[pos..]` that start before `limit` a block
    /// at a time, as long as a block fits ([`MoveLengths`]); returns where
    /// it stopped: before a record it does not count, or where no block
    /// fits.
    #[inline(always)]
    fn blocks(&mut self, buf: &[u8], mut pos: usize, limit: usize, aims_mix: bool) -> usize {
        while pos < limit
            && let Some(span) = buf[pos..].first_chunk::<{ MoveLengths::SPAN }>()
        {
            let lengths = MoveLengths::of(span);
            let end = (limit - pos).min(MoveLengths::STARTS);
            let mut at = 0;
            // Counted a block at a time: the loop compiled to 2% fewer
            // instructions than with the count in `self`.
            let mut player_diffs = 0;
            while at < end {
                let counted = match lengths.player_diff(span, at) {
                    Some((cid, len)) => self.player_move(cid).then(|| {
                        player_diffs += 1;
                        len
                    }),
                    None => Message::decode_common(&span[at..], aims_mix)
                        .and_then(|(msg, len)| self.record(msg).then_some(len)),
                };
                let Some(len) = counted else {
                    self.player_diffs += player_diffs;
                    return pos + at;
                };
                at += len;
            }
            self.player_diffs += player_diffs;
            pos += at;
        }
        pos
    }

    /// Counts a common record; `false` where the count stops before it.
    #[inline(always)]
    fn record(&mut self, msg: Message<'_>) -> bool {
        // The common messages own nothing: no drop glue for them.
        match *std::mem::ManuallyDrop::new(msg) {
            Message::PlayerDiff { cid, .. } => self.player_diff(cid),
            Message::InputDiff { cid, .. } => {
                let bit = cid_bit(cid);
                if self.take.input_diff & bit == 0 {
                    return false;
                }
                self.input_diffs += 1;
                self.cids |= bit;
                true
            }
            _ => false,
        }
    }

    /// Counts a PLAYER_DIFF of `cid`; `false` where the count stops before
    /// it.
    #[inline(always)]
    fn player_diff(&mut self, cid: i32) -> bool {
        let counted = self.player_move(cid);
        self.player_diffs += u64::from(counted);
        counted
    }

    /// [`Counter::player_diff`] but for the count of PLAYER_DIFFs.
    #[inline(always)]
    fn player_move(&mut self, cid: i32) -> bool {
        let bit = cid_bit(cid);
        if self.take.player_diff & bit == 0 {
            return false;
        }
        if i64::from(cid) <= self.last_cid {
            if self.tick == i32::MAX - 1 {
                return false;
            }
            self.tick += 1;
        }
        self.last_cid = i64::from(cid);
        self.cids |= bit;
        true
    }
}

/// Hands `msg`, a common message (which owns nothing) read from `raw` at
/// file offset `at` in tick `tick` (`new_tick`: the clock moved there), to
/// `v` as a record. Always in line, once per kind: `v` sees a message
/// whose kind is a constant.
#[inline(always)]
fn visit_one<'a, B>(
    v: &mut impl Visit<'a, B>,
    tick: i32,
    new_tick: bool,
    at: u64,
    raw: &'a [u8],
    msg: Message<'a>,
) -> ControlFlow<B> {
    let rec = std::mem::ManuallyDrop::new(Record {
        offset: at,
        tick,
        raw,
        msg,
        noncanonical: false,
        protocol: None,
    });
    v.common(&rec, new_tick)
}

/// Drops a record slot after use. Its message is cleared (dropped only if
/// it owns heap data) and the rest is borrowed, so the slot itself is
/// forgotten: this keeps the drop glue out of the decode loop.
#[inline(always)]
fn release(mut rec: Record<'_>) {
    Message::clear(&mut rec.msg);
    std::mem::forget(rec);
}

/// What a pass does with each record: [`StreamReader::visit`] and
/// [`SliceReader::visit`] hand every record to [`Visit::record`]. The
/// common records (PLAYER_DIFF, INPUT_DIFF: most of a file) are built in
/// line with their kind known, so a `record` inlined there (as
/// `#[inline(always)]` asks) folds its matches on the kind away.
pub(crate) trait Visit<'a, B> {
    /// Handles one record; `Break(b)` stops the pass.
    fn record(&mut self, rec: &Record<'a>) -> ControlFlow<B>;

    /// Handles a record of the common loop: one that
    /// [`Message::decode_common`] read, so its bytes are canonical and are
    /// what encoding its message writes (`check` need not re-encode it;
    /// a property test holds the encoder to that). `new_tick`: its tick is
    /// not the previous record's (the loop never hands out a stream's
    /// first record, so this is where the clock moved).
    #[inline(always)]
    fn common(&mut self, rec: &Record<'a>, new_tick: bool) -> ControlFlow<B> {
        let _ = new_tick;
        self.record(rec)
    }

    /// A run of [`Visit::common`] records ended (maybe an empty one), with
    /// the reader's clock at `clock`: for a visitor that follows the
    /// clock once a run rather than at every record.
    #[inline(always)]
    fn run_end(&mut self, _clock: &TickClock) {}

    /// The visitor counts common records in bulk: for each stretch of a
    /// run, [`Visit::bulk_cids`] says which records it need not see one
    /// by one, the loop counts those in registers and hands the counts to
    /// [`Visit::bulk_counts`]; any other record goes to [`Visit::common`]
    /// as before (after the counts of the records before it).
    const BULK: bool = false;

    /// With [`Visit::BULK`], the records of a run the visitor takes as
    /// counts, until the next record it sees itself.
    #[inline(always)]
    fn bulk_cids(&mut self) -> CommonCids {
        CommonCids::default()
    }

    /// With [`Visit::BULK`], the counts of records not handed out.
    #[inline(always)]
    fn bulk_counts(&mut self, _counts: &BulkCounts) {}

    /// With [`Visit::BULK`], the file offset before which a stretch
    /// counted in bulk ends: a record starting there or later is handed
    /// out.
    #[inline(always)]
    fn bulk_until(&self) -> u64 {
        u64::MAX
    }
}

/// Which common records a visitor takes in bulk ([`Visit::BULK`]): those
/// with a client id below 64 whose bit is set, a PLAYER_DIFF's in
/// `player_diff` and an INPUT_DIFF's in `input_diff`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CommonCids {
    pub(crate) player_diff: u64,
    pub(crate) input_diff: u64,
}

/// Common records counted in bulk ([`Visit::BULK`]), none handed out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BulkCounts {
    pub(crate) player_diffs: u64,
    pub(crate) input_diffs: u64,
    /// Records in a tick other than the record's before them.
    pub(crate) new_ticks: u64,
    /// Their client ids, a bit each (all below 64).
    pub(crate) cids: u64,
    /// The tick of the last record read (counted or not).
    pub(crate) tick: i32,
    /// The client id of the last PLAYER_DIFF counted, if any.
    pub(crate) last_player_cid: Option<i32>,
}

/// `cid`'s bit in a [`CommonCids`] mask: 0 for an id not below 64.
#[inline(always)]
fn cid_bit(cid: i32) -> u64 {
    1u64.checked_shl(cid as u32).unwrap_or(0)
}

/// A closure as a [`Visit`] (`for_each_record`).
struct Each<F>(F);

impl<'a, B, F: FnMut(&Record<'a>) -> ControlFlow<B>> Visit<'a, B> for Each<F> {
    #[inline(always)]
    fn record(&mut self, rec: &Record<'a>) -> ControlFlow<B> {
        (self.0)(rec)
    }
}

#[cold]
fn too_long(base: u64, len: usize) -> DecodeError {
    DecodeError::new(
        base,
        "teehistorian.record",
        ErrorKind::LengthTooLarge {
            len: len as i64,
            max: MAX_RECORD_SPAN,
        },
    )
}

impl Record<'_> {
    /// An empty slot for [`Decoder::next_into`].
    #[inline(always)]
    pub(crate) fn placeholder() -> Self {
        Record {
            offset: 0,
            tick: 0,
            raw: &[],
            msg: Message::Finish,
            noncanonical: false,
            protocol: None,
        }
    }
}

/// Which protocol each client joined with, followed record by record, so
/// that a MESSAGE record (always what a client sent to the server) is read
/// with the table of its client's protocol.
///
/// DDNet's `CTeeHistorian::RecordPlayerJoin` writes JOINVER6 or JOINVER7
/// right before every JOIN (also for the clients already connected when a
/// new file starts at a map change), and the message recorded by
/// `CGameContext::OnMessage` is the chunk data as the client sent it: a 0.7
/// client's ids and fields are 0.7's (DDNet translates them only after
/// recording). So: JOINVER7 makes the cid 0.7 and JOINVER6 makes it 0.6
/// until its DROP; a JOIN with no JOINVER before it (files older than the
/// JOINVER records, when DDNet spoke only 0.6) and a cid never seen are
/// 0.6. A rejoin (PLAYER_REJOIN, REJOINVER6) keeps the protocol, as
/// DDNet's `ClientRejoinCallback` keeps `m_Sixup`.
///
/// Bounded: DDNet's `MAX_CLIENTS` (128) cids in one bit set; a cid outside
/// `0..128` (a hand-made or damaged file) is data, read as 0.6 and never
/// remembered. A reader resumed in the middle of a file (a file split
/// among threads) starts knowing every client as 0.6.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientProtocols {
    /// Bit `cid` set: the client joined with 0.7.
    seven: u128,
}

impl ClientProtocols {
    /// The protocol `cid` joined with, as the records so far say.
    pub fn of(&self, cid: i32) -> Version {
        match u32::try_from(cid) {
            Ok(c) if c < 128 && self.seven >> c & 1 == 1 => Version::V07,
            _ => Version::V06,
        }
    }

    /// Some client joined with 0.7 (else [`ClientProtocols::of`] answers
    /// 0.6 for every cid).
    pub fn any_seven(&self) -> bool {
        self.seven != 0
    }

    /// Follows `msg`; for a MESSAGE record, its client's protocol.
    #[inline]
    pub fn observe(&mut self, msg: &Message<'_>) -> Option<Version> {
        match msg {
            Message::NetMessage { cid, .. } => return Some(self.of(*cid)),
            Message::Drop { cid, .. } => self.set(*cid, false),
            Message::Ex(m) => match m.ex {
                Ex::Joinver7 { cid } => self.set(cid, true),
                Ex::Joinver6 { cid } => self.set(cid, false),
                _ => {}
            },
            _ => {}
        }
        None
    }

    fn set(&mut self, cid: i32, seven: bool) {
        if let Ok(c @ 0..128) = u32::try_from(cid) {
            let bit = 1u128 << c;
            if seven {
                self.seven |= bit;
            } else {
                self.seven &= !bit;
            }
        }
    }
}

/// Records of an in-memory teehistorian file, without copying.
///
/// ```
/// use teeoracle::codec::Mode;
/// use teeoracle::teehistorian::{End, Message, SliceReader};
/// let bytes = std::fs::read("corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian")?;
/// let (header, mut reader) = SliceReader::new(&bytes, Mode::Lenient)?;
/// assert_eq!(header.info.map_name.as_deref(), Some("dm1"));
/// let joins = reader
///     .by_ref()
///     .filter(|rec| matches!(rec.as_ref().map(|r| &r.msg), Ok(Message::Join { .. })))
///     .count();
/// assert_eq!(joins, 1);
/// assert_eq!(reader.end(), Some(End::Finished { offset: 9196 }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SliceReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    decoder: Decoder,
    failed: bool,
}

impl<'a> SliceReader<'a> {
    /// Parses the header and positions the reader at the first record.
    pub fn new(bytes: &'a [u8], mode: Mode) -> Result<(Header, Self), DecodeError> {
        let mut r = Reader::new(bytes, mode);
        let header = Header::decode(&mut r, ())?;
        let len = r.position();
        let decoder = Decoder::new(header.info.version, mode);
        Ok((
            header,
            SliceReader {
                bytes,
                pos: len,
                decoder,
                failed: false,
            },
        ))
    }

    /// A reader of the records of `bytes` from `pos` on, as if a record
    /// started there, of a stream with header version `version`; offsets
    /// are positions in `bytes`.
    pub(crate) fn resume(bytes: &'a [u8], pos: usize, version: u32, mode: Mode) -> Self {
        SliceReader {
            bytes,
            pos,
            decoder: Decoder::new(version, mode),
            failed: false,
        }
    }

    /// How the stream ended (after the iterator returned `None`).
    pub fn end(&self) -> Option<End> {
        self.decoder.end()
    }

    /// Calls `f` with every remaining record, in place and by reference
    /// (faster than the iterator, which moves each record out). Stops early
    /// when `f` breaks.
    #[inline]
    pub fn for_each_record<B>(
        &mut self,
        f: impl FnMut(&Record<'a>) -> ControlFlow<B>,
    ) -> Result<ControlFlow<B>, DecodeError> {
        self.visit(&mut Each(f))
    }

    /// Hands every remaining record to `v` (see [`Visit`]); stops early
    /// when it breaks.
    #[inline]
    pub(crate) fn visit<B>(
        &mut self,
        v: &mut impl Visit<'a, B>,
    ) -> Result<ControlFlow<B>, DecodeError> {
        while !self.failed {
            let rest = &self.bytes[self.pos..];
            let (len, flow) = self
                .decoder
                .visit_common(rest, self.pos as u64, rest.len(), v);
            self.pos += len;
            if let ControlFlow::Break(b) = flow {
                return Ok(ControlFlow::Break(b));
            }
            let mut rec = Record::placeholder();
            match self
                .decoder
                .next_into(&self.bytes[self.pos..], self.pos as u64, true, &mut rec)
            {
                Ok(true) => {
                    self.pos += rec.raw.len();
                    let flow = v.record(&rec);
                    release(rec);
                    if let ControlFlow::Break(b) = flow {
                        return Ok(ControlFlow::Break(b));
                    }
                }
                Ok(false) => break,
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The bytes not consumed as records: after FINISH, whatever follows it;
    /// for a truncated file, the cut record.
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..]
    }
}

impl<'a> Iterator for SliceReader<'a> {
    type Item = Result<Record<'a>, DecodeError>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let buf = &self.bytes[self.pos..];
        match self.decoder.next(buf, self.pos as u64, true) {
            Ok(Some(rec)) => {
                self.pos += rec.raw.len();
                Some(Ok(rec))
            }
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// An I/O failure or a decode failure while reading a stream.
#[non_exhaustive]
#[derive(Debug)]
pub enum ReadError {
    /// Reading the input failed.
    Io(io::Error),
    /// The bytes do not decode.
    Decode(DecodeError),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "I/O error: {e}"),
            ReadError::Decode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

impl From<DecodeError> for ReadError {
    fn from(e: DecodeError) -> Self {
        ReadError::Decode(e)
    }
}

/// The window never holds more than this, whatever the input's size.
const WINDOW_CAPACITY: usize = 2 * MAX_RECORD_SPAN;

/// Records of a teehistorian stream read from any `io::Read`, in bounded
/// memory (a window of about 2 MiB at most).
///
/// A lending reader: each record borrows the window until the next call.
///
/// ```
/// use std::io::BufReader;
/// use std::ops::ControlFlow;
/// use teeoracle::codec::Mode;
/// use teeoracle::teehistorian::StreamReader;
/// let file = std::fs::File::open("corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian")?;
/// let (_, mut reader) = StreamReader::new(BufReader::new(file), Mode::Lenient)?;
/// // The records one by one ...
/// let first = reader.next_record()?.expect("a record");
/// assert_eq!((first.offset, first.tick, first.msg.kind_name()), (3561, 80, "tick_skip"));
/// // ... or the rest of them in place, which is faster.
/// let mut last_tick = 0;
/// reader.for_each_record(|rec| {
///     last_tick = rec.tick;
///     ControlFlow::<()>::Continue(())
/// })?;
/// assert_eq!(last_tick, 932);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct StreamReader<R> {
    src: R,
    buf: Vec<u8>,
    start: usize,
    filled: usize,
    /// File offset of `buf[0]`.
    base: u64,
    eof: bool,
    /// The source failed (a cut or corrupt compressed stream): what came
    /// before is decoded first, then this is the error.
    stopped: Option<io::Error>,
    decoder: Decoder,
    failed: bool,
}

impl<R: Read> StreamReader<R> {
    /// Reads the header and positions the reader at the first record.
    pub fn new(src: R, mode: Mode) -> Result<(Header, Self), ReadError> {
        let mut reader = StreamReader {
            src,
            buf: vec![0; 64 * 1024],
            start: 0,
            filled: 0,
            base: 0,
            eof: false,
            stopped: None,
            decoder: Decoder::new(2, mode),
            failed: false,
        };
        // The header must fit the window: read until it decodes, or fails
        // for a reason more bytes cannot fix (bad magic, bad JSON, too long).
        let header = loop {
            let mut r = Reader::new(&reader.buf[..reader.filled], mode);
            match Header::decode(&mut r, ()) {
                Ok(header) => {
                    reader.start = r.position();
                    break header;
                }
                Err(e) if e.is_eof() && !reader.eof => reader.fill(),
                Err(e) => return Err(reader.stopped.take().map_or(e.into(), ReadError::Io)),
            }
        };
        reader.decoder = Decoder::new(header.info.version, mode);
        Ok((header, reader))
    }

    /// A reader of the records in `src`, whose first byte is at file offset
    /// `base`, of a stream with header version `version`, with a clock at
    /// tick 0 that knows no previous record: for reading a file from a
    /// record boundary it did not reach by reading (a file split among
    /// threads).
    pub(crate) fn resume(src: R, base: u64, version: u32, mode: Mode) -> Self {
        StreamReader {
            src,
            buf: vec![0; 64 * 1024],
            start: 0,
            filled: 0,
            base,
            eof: false,
            stopped: None,
            decoder: Decoder::new(version, mode),
            failed: false,
        }
    }

    /// Moves unread bytes to the front and reads until the window is full
    /// (growing it up to [`WINDOW_CAPACITY`]) or the input ends.
    fn fill(&mut self) {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.filled, 0);
            self.base += self.start as u64;
            self.filled -= self.start;
            self.start = 0;
        }
        if self.filled == self.buf.len() && self.buf.len() < WINDOW_CAPACITY {
            let grown = (self.buf.len() * 2).min(WINDOW_CAPACITY);
            self.buf.resize(grown, 0);
        }
        let (n, end) = crate::codec::read_full(&mut self.src, &mut self.buf[self.filled..]);
        self.filled += n;
        if let Some(end) = end {
            self.eof = true;
            // Kept for after the bytes read so far are decoded.
            self.stopped = end.err();
        }
    }

    /// The next record, or `None` once the stream has ended (see [`end`]).
    ///
    /// [`end`]: StreamReader::end
    #[inline(always)]
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, ReadError> {
        let mut rec = Record::placeholder();
        if self.failed || !self.decode_next(&mut rec)? {
            return Ok(None);
        }
        Ok(Some(rec))
    }

    /// Calls `f` with every remaining record, in place and by reference
    /// (faster than `next_record`, which moves each record out). Stops
    /// early when `f` breaks.
    #[inline]
    pub fn for_each_record<B>(
        &mut self,
        f: impl FnMut(&Record<'_>) -> ControlFlow<B>,
    ) -> Result<ControlFlow<B>, ReadError> {
        self.visit(&mut Each(f))
    }

    /// Hands every remaining record to `v` (see [`Visit`]); stops early
    /// when it breaks.
    #[inline]
    pub(crate) fn visit<B>(
        &mut self,
        v: &mut impl for<'w> Visit<'w, B>,
    ) -> Result<ControlFlow<B>, ReadError> {
        while !self.failed {
            // The common records straight from the window, those with a
            // whole span after their start: where `decode_next` would not
            // refill, so the window moves as it would record by record.
            let window = &self.buf[self.start..self.filled];
            let limit = match self.eof {
                true => window.len(),
                false => (window.len() + 1).saturating_sub(MAX_RECORD_SPAN),
            };
            let offset = self.base + self.start as u64;
            let (len, flow) = self.decoder.visit_common(window, offset, limit, v);
            self.start += len;
            if let ControlFlow::Break(b) = flow {
                return Ok(ControlFlow::Break(b));
            }
            let mut rec = Record::placeholder();
            if !self.decode_next(&mut rec)? {
                break;
            }
            let flow = v.record(&rec);
            release(rec);
            if let ControlFlow::Break(b) = flow {
                return Ok(ControlFlow::Break(b));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Refills the window if needed and decodes the next record into `rec`.
    #[inline(always)]
    fn decode_next<'s>(&'s mut self, rec: &mut Record<'s>) -> Result<bool, ReadError> {
        // Keep at least one maximal record in the window, so a record that
        // fails for lack of bytes is really cut (or really too long).
        while !self.eof && self.filled - self.start < MAX_RECORD_SPAN {
            let before = self.filled - self.start;
            self.fill();
            if self.filled - self.start == before && !self.eof {
                break;
            }
        }
        let window = &self.buf[self.start..self.filled];
        let offset = self.base + self.start as u64;
        match self.decoder.next_into(window, offset, self.eof, rec) {
            Ok(false) if self.stopped.is_some() => {
                // Every whole record before the failure was handed out.
                self.failed = true;
                let at = self.base + self.filled as u64;
                let cause = self
                    .stopped
                    .take()
                    .map_or(ReadFault::Other, |e| ReadFault::of(&e));
                Err(DecodeError::new(at, "input", ErrorKind::ReadFailed { cause }).into())
            }
            Ok(more) => {
                self.start += rec.raw.len();
                Ok(more)
            }
            Err(e) => {
                self.failed = true;
                Err(e.into())
            }
        }
    }

    /// How the stream ended (after `next_record` returned `None`).
    pub fn end(&self) -> Option<End> {
        self.decoder.end()
    }

    /// The file offset after the last record handed out (where a pass
    /// that stopped early broke: after the record it broke on).
    pub(crate) fn position(&self) -> u64 {
        self.base + self.start as u64
    }

    /// The unconsumed input: what follows FINISH, or the cut record of a
    /// truncated stream, then anything the source still holds.
    pub fn into_rest(self) -> impl Read {
        io::Cursor::new(self.buf[self.start..self.filled].to_vec()).chain(self.src)
    }
}

/// Writes a teehistorian stream: header, then records.
#[derive(Debug)]
pub struct StreamWriter<W: Write> {
    out: W,
    scratch: Vec<u8>,
}

impl<W: Write> StreamWriter<W> {
    /// Writes the header.
    pub fn new(mut out: W, header: &Header) -> io::Result<Self> {
        let mut scratch = Vec::new();
        header.encode(&mut scratch, ());
        out.write_all(&scratch)?;
        scratch.clear();
        Ok(StreamWriter { out, scratch })
    }

    /// Writes one message.
    pub fn write(&mut self, msg: &Message<'_>) -> io::Result<()> {
        self.scratch.clear();
        msg.encode(&mut self.scratch, ());
        self.out.write_all(&self.scratch)
    }

    /// Writes bytes as they are (a record kept raw, a cut tail).
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    /// Flushes and returns the sink.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}
