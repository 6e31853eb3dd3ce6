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
            decoded,
            decoded_error,
        }
    }
}

/// A `message` record's data read as a 0.6 client-to-server message (what
/// DDNet's server records), errors at their file byte; `None` for other
/// records. Only for display: the record's own decoding stays as it is.
pub fn client_message<'r>(rec: &'r Record<'_>) -> Option<Result<packet::Message<'r>, DecodeError>> {
    let Message::NetMessage { data, .. } = &rec.msg else {
        return None;
    };
    // The data ends the record.
    let at = rec.offset + (rec.raw.len() - data.len()) as u64;
    Some(packet::Message::read(data, at, Version::V06))
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
