//! Reading and writing the message stream after the header.
//!
//! [`SliceReader`] iterates over an in-memory file without copying.
//! [`StreamReader`] reads any `io::Read` through a bounded window, so a file
//! of any size is processed in constant memory. Both share [`Decoder`]: one
//! record at a time, the implicit tick, and how the stream ends (FINISH, or
//! truncated as a crashed server leaves it).

use super::header::{Header, MAX_HEADER_LEN};
use super::message::{MAX_RECORD_LEN, Message};
use crate::codec::{Codec, DecodeError, ErrorKind, Mode, Reader};
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TickError {
    /// The tick would not fit in DDNet's `int`.
    Overflow,
    /// A TICK_SKIP with a negative `dt` would move time backwards.
    NegativeSkip(i32),
}

impl TickClock {
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
    /// Offset of a non-canonical int inside the message (lenient mode). Such
    /// a record re-encodes only from `raw`.
    pub noncanonical: Option<u64>,
}

impl Record<'_> {
    /// Appends the record's bytes: re-encoded from the message, or `raw`
    /// when the input used a non-canonical form DDNet never writes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self.noncanonical {
            None => self.msg.encode(out, ()),
            Some(_) => out.extend_from_slice(self.raw),
        }
    }
}

impl std::fmt::Display for Record<'_> {
    /// One line: offset, tick, kind and fields, e.g.
    /// `0x00000e38       0 auth_login cid=0 level=3 auth_name="default_admin"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "0x{:08x} {:>7} {}{}",
            self.offset,
            self.tick,
            self.msg.kind_name(),
            crate::bytes::key_values(&self.msg, &["kind"])
        )?;
        if let Some(at) = self.noncanonical {
            write!(f, " (non-canonical int at byte {at}, kept verbatim)")?;
        }
        Ok(())
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
    Finished { offset: u64 },
    /// No FINISH: the input ends at `offset + partial`, where `offset` is the
    /// end of the last whole record and `partial` bytes of a cut record follow.
    Truncated { offset: u64, partial: usize },
}

/// Decodes records one at a time and tracks the tick. Shared by both readers.
#[derive(Clone, Debug)]
pub struct Decoder {
    version: u32,
    mode: Mode,
    clock: TickClock,
    end: Option<End>,
}

impl Decoder {
    /// A decoder for a stream of the given header version (1 or 2).
    pub fn new(version: u32, mode: Mode) -> Self {
        Decoder {
            version,
            mode,
            clock: TickClock::default(),
            end: None,
        }
    }

    /// How the stream ended, once it has.
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// Decodes the record at the start of `buf` (file offset `base`).
    /// `at_eof` says whether `buf` runs to the end of the input. Returns
    /// `Ok(None)` once the stream has ended.
    #[inline]
    pub fn next<'a>(
        &mut self,
        buf: &'a [u8],
        base: u64,
        at_eof: bool,
    ) -> Result<Option<Record<'a>>, DecodeError> {
        if self.end.is_some() {
            return Ok(None);
        }
        let mut r = Reader::at(buf, base, self.mode);
        let msg = match Message::decode(&mut r, ()) {
            Ok(msg) => msg,
            Err(e) if e.is_eof() && (at_eof || buf.len() >= MAX_RECORD_SPAN) => {
                if !at_eof {
                    return Err(DecodeError::new(
                        base,
                        "teehistorian.record",
                        ErrorKind::LengthTooLarge {
                            len: buf.len() as i64,
                            max: MAX_RECORD_SPAN,
                        },
                    ));
                }
                self.end = Some(End::Truncated {
                    offset: base,
                    partial: buf.len(),
                });
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        if self.version < 2 && matches!(msg, Message::Ex(_)) {
            return Err(DecodeError::new(
                base,
                "teehistorian.message_id (version 1 has no EX records)",
                ErrorKind::UnknownMessageId(super::message::id::EX),
            ));
        }
        let raw = r.since(0);
        if raw.len() > MAX_RECORD_SPAN {
            return Err(DecodeError::new(
                base,
                "teehistorian.record",
                ErrorKind::LengthTooLarge {
                    len: raw.len() as i64,
                    max: MAX_RECORD_SPAN,
                },
            ));
        }
        if matches!(msg, Message::Finish) {
            self.end = Some(End::Finished { offset: base });
        }
        let tick = self.clock.advance(&msg).unwrap_or(self.clock.tick());
        Ok(Some(Record {
            offset: base,
            tick,
            raw,
            msg,
            noncanonical: r.noncanonical(),
        }))
    }
}

/// Records of an in-memory teehistorian file, without copying.
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
        let (header, len) = Header::decode(bytes)?;
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

    /// How the stream ended (after the iterator returned `None`).
    pub fn end(&self) -> Option<End> {
        self.decoder.end()
    }

    /// The bytes not consumed as records: after FINISH, whatever follows it;
    /// for a truncated file, the cut record.
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..]
    }
}

impl<'a> Iterator for SliceReader<'a> {
    type Item = Result<Record<'a>, DecodeError>;

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
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
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
#[derive(Debug)]
pub struct StreamReader<R> {
    src: R,
    buf: Vec<u8>,
    start: usize,
    filled: usize,
    /// File offset of `buf[0]`.
    base: u64,
    eof: bool,
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
            decoder: Decoder::new(2, mode),
            failed: false,
        };
        // The header must fit the window: read until its NUL or the limit.
        let mut searched = 16;
        let header = loop {
            let window = &reader.buf[..reader.filled];
            if window.len() >= 16 {
                if let Some(nul) = window[searched..].iter().position(|&b| b == 0) {
                    let (header, len) = Header::decode(&window[..searched + nul + 1])?;
                    reader.start = len;
                    break header;
                }
                searched = window.len();
            }
            if reader.eof || reader.filled > MAX_HEADER_LEN + 16 {
                // Let the slice decoder name the fault (magic, EOF or size).
                return Err(Header::decode(window).map(|_| ()).unwrap_err().into());
            }
            reader.fill()?;
        };
        reader.decoder = Decoder::new(header.info.version, mode);
        Ok((header, reader))
    }

    /// Moves unread bytes to the front and reads until the window is full
    /// (growing it up to [`WINDOW_CAPACITY`]) or the input ends.
    fn fill(&mut self) -> io::Result<()> {
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
        while self.filled < self.buf.len() {
            match self.src.read(&mut self.buf[self.filled..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next record, or `None` once the stream has ended (see [`end`]).
    ///
    /// [`end`]: StreamReader::end
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, ReadError> {
        if self.failed {
            return Ok(None);
        }
        // Keep at least one maximal record in the window, so a record that
        // fails for lack of bytes is really cut (or really too long).
        while !self.eof && self.filled - self.start < MAX_RECORD_SPAN {
            let before = self.filled - self.start;
            self.fill()?;
            if self.filled - self.start == before && !self.eof {
                break;
            }
        }
        let window = &self.buf[self.start..self.filled];
        let offset = self.base + self.start as u64;
        match self.decoder.next(window, offset, self.eof) {
            Ok(Some(rec)) => {
                self.start += rec.raw.len();
                Ok(Some(rec))
            }
            Ok(None) => Ok(None),
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
        header.encode(&mut scratch);
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
