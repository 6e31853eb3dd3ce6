//! Teehistorian files in JSON: the lines of `teehistorian dump --format
//! jsonl` (schema.md, `# teehistorian`), shared by the command line and
//! the conformance harness.

use super::{End, Header, HeaderInfo, Message, Record};
use crate::codec::DecodeError;
use crate::packet::{self, Version};
use serde::Serialize;

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
    /// the records most of a dump is made of (canonical player and input
    /// records, joins, tick skips, FINISH): serde's flattened map costs
    /// about 5 times more. Returns `false`, having written nothing, for
    /// any other record. `tests.rs` checks the two agree for every kind.
    pub fn write_common(rec: &Record<'_>, out: &mut impl std::io::Write) -> std::io::Result<bool> {
        if rec.noncanonical {
            return Ok(false);
        }
        let mut line = Line::default();
        line.text(b"{\"offset\":");
        line.int(rec.offset);
        line.text(b",\"tick\":");
        line.int(rec.tick);
        line.text(b",\"kind\":\"");
        line.text(rec.msg.kind_name().as_bytes());
        line.text(b"\"");
        let (cid, ints): (Option<i32>, &[(&[u8], i32)]) = match &rec.msg {
            Message::PlayerDiff { cid, dx, dy } => (Some(*cid), &[(b"dx", *dx), (b"dy", *dy)]),
            Message::PlayerNew { cid, x, y } => (Some(*cid), &[(b"x", *x), (b"y", *y)]),
            Message::PlayerOld { cid } | Message::Join { cid } => (Some(*cid), &[]),
            Message::TickSkip { dt } => (None, &[(b"dt", *dt)]),
            Message::Finish => (None, &[]),
            Message::InputDiff { cid, dinput: input } | Message::InputNew { cid, input } => {
                let name: &[u8] = match rec.msg {
                    Message::InputDiff { .. } => b"dinput",
                    _ => b"input",
                };
                line.text(b",\"cid\":");
                line.int(*cid);
                line.text(b",\"");
                line.text(name);
                line.text(b"\":[");
                for (i, v) in input.iter().enumerate() {
                    if i > 0 {
                        line.text(b",");
                    }
                    line.int(*v);
                }
                line.text(b"]}\n");
                out.write_all(line.bytes())?;
                return Ok(true);
            }
            _ => return Ok(false),
        };
        if let Some(cid) = cid {
            line.text(b",\"cid\":");
            line.int(cid);
        }
        for &(name, v) in ints {
            line.text(b",\"");
            line.text(name);
            line.text(b"\":");
            line.int(v);
        }
        line.text(b"}\n");
        out.write_all(line.bytes())?;
        Ok(true)
    }
}

/// A JSON line of one of the common records, built on the stack: its
/// longest (INPUT_NEW with every int at its widest) is 218 bytes.
struct Line {
    buf: [u8; 256],
    len: usize,
}

impl Default for Line {
    fn default() -> Self {
        Line {
            buf: [0; 256],
            len: 0,
        }
    }
}

impl Line {
    #[inline]
    fn text(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    #[inline]
    fn int(&mut self, v: impl itoa::Integer) {
        self.text(itoa::Buffer::new().format(v).as_bytes());
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
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
