//! Teehistorian files in JSON: the lines of `teehistorian dump --format
//! jsonl` (schema.md, `# teehistorian`), shared by the command line and
//! the conformance harness.

use super::{End, Header, HeaderInfo, Message, Record};
use crate::codec::DecodeError;
use crate::packet::{self, Version};
use serde::Serialize;
use std::io::{self, Write};

/// The `header` line.
#[derive(Serialize)]
pub struct HeaderLine<'h> {
    kind: &'static str,
    offset: u64,
    json_len: usize,
    info: &'h HeaderInfo,
}

impl<'h> HeaderLine<'h> {
    /// The line of `header`.
    pub fn new(header: &'h Header) -> Self {
        HeaderLine {
            kind: "header",
            offset: 0,
            json_len: header.json.len(),
            info: &header.info,
        }
    }
}

/// One record's line: its offset, tick and MESSAGE.
#[derive(Serialize)]
pub struct RecordLine<'r, 'a> {
    offset: u64,
    tick: i32,
    #[serde(flatten)]
    msg: &'r Message<'a>,
    /// Where the record's first non-canonical int is (it is kept verbatim).
    #[serde(skip_serializing_if = "Option::is_none")]
    noncanonical_at: Option<u64>,
    /// A `message` record's protocol: its client's, whose table `decoded`
    /// is read with (`"0.6"` or `"0.7"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<Version>,
    /// A `message` record's data read as the message a client sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded: Option<packet::Message<'r>>,
    /// Instead of `decoded`: the message's id cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded_error: Option<DecodeError>,
}

impl<'r, 'a> RecordLine<'r, 'a> {
    /// The line of `rec`.
    pub fn new(rec: &'r Record<'a>) -> Self {
        let (decoded, decoded_error) = match client_message(rec) {
            Some(Ok(m)) => (Some(m), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        RecordLine {
            offset: rec.offset,
            tick: rec.tick,
            msg: &rec.msg,
            noncanonical_at: rec.noncanonical_at(),
            protocol: client_version(rec),
            decoded,
            decoded_error,
        }
    }
}

impl RecordLine<'_, '_> {
    /// Writes the line of `rec` and its newline straight to `out`, byte for
    /// byte as serde_json writes [`RecordLine::new`]'s, if `rec` is one of
    /// the records most of a dump is made of (see [`JsonlWriter::common`]).
    /// Returns `false`, having written nothing, for any other record.
    pub fn write_common(rec: &Record<'_>, out: &mut impl Write) -> io::Result<bool> {
        let mut line = [0; MAX_LINE];
        match common_line(rec, &Digits::of_int(rec.tick), &mut line) {
            Some(len) => out.write_all(&line[..len]).map(|()| true),
            None => Ok(false),
        }
    }
}

/// The longest line [`common_line`] writes, with room to spare: INPUT_NEW
/// with every int at its widest is 218 bytes.
const MAX_LINE: usize = 256;

/// A buffered writer of JSON lines that writes the common records' lines
/// itself ([`JsonlWriter::common`]) and everything else as any writer
/// (serde's lines, through [`Write`]). It flushes what it holds when
/// dropped, as a `BufWriter` does.
pub struct JsonlWriter<W: Write> {
    out: W,
    /// `CAPACITY` bytes of lines, then room for one more.
    buf: Box<[u8]>,
    /// The bytes of `buf` written; at most `CAPACITY` between calls.
    len: usize,
    /// The last common record's tick and its text: most records share
    /// their tick with the one before.
    tick: (i32, Digits),
}

impl<W: Write> JsonlWriter<W> {
    /// What is handed to `out` at once: large enough that a write costs
    /// little per line, small enough to stay in the L2 cache.
    const CAPACITY: usize = 1 << 17;

    /// A writer to `out`.
    pub fn new(out: W) -> Self {
        JsonlWriter {
            out,
            buf: vec![0; Self::CAPACITY + MAX_LINE].into_boxed_slice(),
            len: 0,
            tick: (0, Digits::of(0)),
        }
    }

    /// Writes the line of `rec` and its newline, byte for byte as
    /// serde_json writes [`RecordLine::new`]'s, if `rec` is one of the
    /// records most of a dump is made of (canonical player and input
    /// records, joins, tick skips, FINISH): serde's flattened map costs
    /// many times more. Returns `false`, having written nothing, for any
    /// other record. `tests.rs` checks the two agree for every kind.
    #[inline(always)]
    pub fn common(&mut self, rec: &Record<'_>) -> io::Result<bool> {
        let Some(line) = self.buf[self.len..].first_chunk_mut() else {
            return Ok(false); // Never: `len` stays within `CAPACITY`.
        };
        if rec.tick != self.tick.0 {
            self.tick = (rec.tick, Digits::of_int(rec.tick));
        }
        let Some(len) = common_line(rec, &self.tick.1, line) else {
            return Ok(false);
        };
        self.len += len;
        if self.len > Self::CAPACITY {
            self.flush_buf()?;
        }
        Ok(true)
    }

    /// Hands the lines held to `out`.
    #[cold]
    fn flush_buf(&mut self) -> io::Result<()> {
        let held = std::mem::take(&mut self.len);
        self.out.write_all(&self.buf[..held])
    }
}

impl<W: Write> Write for JsonlWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.len + data.len() > Self::CAPACITY {
            self.flush_buf()?;
            if data.len() > Self::CAPACITY {
                return self.out.write(data);
            }
        }
        self.buf[self.len..self.len + data.len()].copy_from_slice(data);
        self.len += data.len();
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_buf()?;
        self.out.flush()
    }
}

impl<W: Write> Drop for JsonlWriter<W> {
    fn drop(&mut self) {
        let _ = self.flush_buf();
    }
}

/// Writes the line of `rec` (see [`JsonlWriter::common`]), whose tick's
/// text is `tick`, at the start of `line` and returns its length, or `None` for a record left to serde.
/// Every piece is copied with a length known when compiling, so none
/// calls `memcpy`.
#[inline(always)]
fn common_line(rec: &Record<'_>, tick: &Digits, line: &mut [u8; MAX_LINE]) -> Option<usize> {
    if rec.noncanonical {
        return None;
    }
    let mut l = Line { buf: line, len: 0 };
    l.text(b"{\"offset\":");
    match u32::try_from(rec.offset) {
        Ok(offset) => l.uint(offset),
        Err(_) => l.wide(rec.offset),
    }
    l.text(b",\"tick\":");
    l.text_of(tick);
    match &rec.msg {
        Message::PlayerDiff { cid, dx, dy } => {
            l.text(b",\"kind\":\"player_diff\",\"cid\":");
            l.int(*cid);
            l.text(b",\"dx\":");
            l.int(*dx);
            l.text(b",\"dy\":");
            l.int(*dy);
        }
        Message::InputDiff { cid, dinput } => {
            l.text(b",\"kind\":\"input_diff\",\"cid\":");
            l.int(*cid);
            l.text(b",\"dinput\":[");
            l.ints(dinput);
        }
        Message::InputNew { cid, input } => {
            l.text(b",\"kind\":\"input_new\",\"cid\":");
            l.int(*cid);
            l.text(b",\"input\":[");
            l.ints(input);
        }
        Message::PlayerNew { cid, x, y } => {
            l.text(b",\"kind\":\"player_new\",\"cid\":");
            l.int(*cid);
            l.text(b",\"x\":");
            l.int(*x);
            l.text(b",\"y\":");
            l.int(*y);
        }
        Message::PlayerOld { cid } => {
            l.text(b",\"kind\":\"player_old\",\"cid\":");
            l.int(*cid);
        }
        Message::Join { cid } => {
            l.text(b",\"kind\":\"join\",\"cid\":");
            l.int(*cid);
        }
        Message::TickSkip { dt } => {
            l.text(b",\"kind\":\"tick_skip\",\"dt\":");
            l.int(*dt);
        }
        Message::Finish => l.text(b",\"kind\":\"finish\""),
        _ => return None,
    }
    l.text(b"}\n");
    Some(l.len)
}

/// An int's text, sign and digits, in 16 bytes: whatever its length,
/// it is copied with a length known when compiling.
#[derive(Clone, Copy)]
struct Digits {
    /// The text, then zeros.
    text: [u8; 16],
    len: usize,
}

impl Digits {
    /// `v`'s digits: the ten of any u32, leading zeros and all, in a few
    /// multiplications that do not wait on each other (no loop whose
    /// count a branch must guess), put together in a register (bytes
    /// stored one by one and read back as one would stall the read),
    /// then shifted past the zeros that do not count.
    #[inline(always)]
    fn of(v: u32) -> Self {
        let pair = |v: u32| u128::from(PAIRS[v as usize % 100]);
        let (top, rest) = (v / 100_000_000, v % 100_000_000);
        let (high, low) = (rest / 10_000, rest % 10_000);
        let ten = pair(top)
            | pair(high / 100) << 16
            | pair(high % 100) << 32
            | pair(low / 100) << 48
            | pair(low % 100) << 64;
        let len = v.checked_ilog10().unwrap_or(0) as usize + 1;
        Digits {
            text: (ten >> (8 * (10 - len))).to_le_bytes(),
            len,
        }
    }

    /// `v`'s text, `-` and all.
    fn of_int(v: i32) -> Self {
        let d = Digits::of(v.unsigned_abs());
        match v < 0 {
            true => Digits {
                text: (u128::from_le_bytes(d.text) << 8 | u128::from(b'-')).to_le_bytes(),
                len: d.len + 1,
            },
            false => d,
        }
    }
}

/// A line being written into a buffer that can hold any common record's.
struct Line<'b> {
    buf: &'b mut [u8; MAX_LINE],
    len: usize,
}

/// "00" to "99" as little-endian u16s, for writing two digits at once.
const PAIRS: [u16; 100] = {
    let mut pairs = [0; 100];
    let mut i = 0;
    while i < 100 {
        pairs[i] = u16::from_le_bytes([b'0' + (i / 10) as u8, b'0' + (i % 10) as u8]);
        i += 1;
    }
    pairs
};

impl Line<'_> {
    /// Text whose length is known when compiling (a copy of a few moves).
    #[inline(always)]
    fn text<const N: usize>(&mut self, bytes: &[u8; N]) {
        self.buf[self.len..self.len + N].copy_from_slice(bytes);
        self.len += N;
    }

    #[inline(always)]
    fn int(&mut self, v: i32) {
        if v < 0 {
            self.buf[self.len] = b'-';
            self.len += 1;
        }
        self.uint(v.unsigned_abs());
    }

    /// `v`'s digits: the small values of most records in a test or two,
    /// the rest as [`Digits`].
    #[inline(always)]
    fn uint(&mut self, v: u32) {
        if v < 10 {
            self.buf[self.len] = b'0' + v as u8;
            self.len += 1;
        } else if v < 100 {
            self.pair(self.len, v);
            self.len += 2;
        } else {
            self.digits(v);
        }
    }

    /// Three digits or more.
    fn digits(&mut self, v: u32) {
        self.text_of(&Digits::of(v));
    }

    /// The two digits of `v` (< 100) at `at`.
    #[inline(always)]
    fn pair(&mut self, at: usize, v: u32) {
        self.buf[at..at + 2].copy_from_slice(&PAIRS[v as usize % 100].to_le_bytes());
    }

    /// Text of up to 16 bytes held in a [`Digits`].
    #[inline(always)]
    fn text_of(&mut self, d: &Digits) {
        self.buf[self.len..self.len + 16].copy_from_slice(&d.text);
        self.len += d.len;
    }

    /// An offset past 4 GiB (a rare file).
    #[cold]
    fn wide(&mut self, v: u64) {
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(v).as_bytes();
        self.buf[self.len..self.len + digits.len()].copy_from_slice(digits);
        self.len += digits.len();
    }

    /// The ints of an input and the list's `]`.
    #[inline(always)]
    fn ints(&mut self, vs: &[i32; 10]) {
        for &v in vs {
            self.int(v);
            self.text(b",");
        }
        self.buf[self.len - 1] = b']';
    }
}

/// A `message` record's data read as the message its client sent to the
/// server (what DDNet's server records: the chunk data as received), with
/// the tables of the protocol that client joined with ([`Record::protocol`]:
/// 0.7 after its JOINVER7, else 0.6), errors at their file byte; `None` for
/// other records. Only for display: the record's own decoding stays as it
/// is.
///
/// Each protocol numbers its client and server messages in one table, and
/// DDNet's server unpacks whatever id a client sends with that table
/// (`CNetObjHandler::SecureUnpackMsg` knows every message, then
/// `CGameContext::OnMessage` ignores what is not a client's): a client that
/// sends a server message's id is shown with that name, as DDNet reads it.
pub fn client_message<'r>(rec: &'r Record<'_>) -> Option<Result<packet::Message<'r>, DecodeError>> {
    let Message::NetMessage { data, .. } = &rec.msg else {
        return None;
    };
    let version = client_version(rec)?;
    // The data ends the record.
    let at = rec.offset + (rec.raw.len() - data.len()) as u64;
    Some(packet::Message::read(data, at, version))
}

/// The protocol a `message` record is read with.
fn client_version(rec: &Record<'_>) -> Option<Version> {
    match (&rec.msg, rec.protocol) {
        (Message::NetMessage { .. }, Some(Version::V07)) => Some(Version::V07),
        (Message::NetMessage { .. }, _) => Some(Version::V06),
        _ => None,
    }
}

/// The `end` line: how the stream ended, or the error that stopped it.
#[derive(Serialize)]
pub struct EndLine<'e> {
    kind: &'static str,
    records: u64,
    end: Option<End>,
    error: Option<&'e DecodeError>,
}

impl<'e> EndLine<'e> {
    /// The line after `records` records: the reader's `end`, or the
    /// `error` that stopped it (with its tick).
    pub fn new(records: u64, end: Option<End>, error: Option<&'e DecodeError>) -> Self {
        EndLine {
            kind: "end",
            records,
            end,
            error,
        }
    }
}
