//! Demos in JSON: the lines of `demo dump --format jsonl` (schema.md,
//! `# demo`) and `demo events --format jsonl`, shared by the command line
//! and the conformance harness.

use super::{
    Chunk, ChunkKind, Demo, EventKind, Events, HeaderInfo, Payload, SizeForm, payload_bytes,
};
use crate::bytes::Blob;
use crate::codec::{DecodeError, PayloadKind};
use crate::huffman::Flavor;
use crate::packet::{Message, Version};
use crate::snapshot::items::SnapshotJson;
use crate::snapshot::replay::{Fault, FaultKind};
use serde::Serialize;

/// The `header` line: the HEADER's fields.
#[derive(Serialize)]
pub struct HeaderLine<'h> {
    kind: &'static str,
    #[serde(flatten)]
    info: &'h HeaderInfo,
}

impl<'h> HeaderLine<'h> {
    /// The line of a header's `info` ([`Demo::info`]).
    pub fn new(info: &'h HeaderInfo) -> Self {
        HeaderLine {
            kind: "header",
            info,
        }
    }
}

/// One chunk of a dump, with what the text and JSON lines show of it.
pub struct ChunkEntry<'e, 'a> {
    /// Its place among the chunks, from 0.
    pub index: usize,
    /// Its first byte.
    pub offset: u64,
    /// The tick in force: the marker's own, or the last marker's.
    pub tick: Option<i32>,
    /// The chunk.
    pub chunk: &'e Chunk<'a>,
    /// Its payload's bytes in the file (0 for a tick marker).
    pub size: u64,
    /// A message chunk's message, errors placed in the file; `None` for
    /// other chunks and payloads that do not decode.
    pub message: Option<Result<Message<'e>, DecodeError>>,
}

impl ChunkEntry<'_, '_> {
    /// The chunk's `chunk` line.
    pub fn line(&self) -> ChunkLine<'_> {
        let fields = match self.chunk {
            Chunk::Tick {
                byte,
                keyframe,
                delta,
                ..
            } => ChunkFields::Tick {
                byte: format!("{byte:02x}"),
                keyframe: *keyframe,
                form: if delta.is_some() {
                    "relative"
                } else {
                    "absolute"
                },
                delta: *delta,
            },
            Chunk::Data {
                kind,
                form,
                payload,
            } => {
                let (writer, trailing) = match payload {
                    Payload::Ints {
                        flavor, trailing, ..
                    } => (
                        match flavor {
                            Flavor::Ddnet => "ddnet",
                            Flavor::Legacy => "legacy",
                        },
                        (!trailing.is_empty()).then(|| Blob::from(*trailing)),
                    ),
                    Payload::Verbatim { .. } => ("verbatim", None),
                    Payload::Undecodable { .. } => ("undecodable", None),
                };
                ChunkFields::Data(Box::new(DataFields {
                    chunk: *kind,
                    size_form: *form,
                    size: self.size,
                    writer,
                    trailing,
                    ints: payload.ints().map(<[i32]>::len),
                    payload: payload.decompressed().map(Blob::from),
                    message: self.message.as_ref().and_then(|m| m.as_ref().ok()),
                    message_error: self.message.as_ref().and_then(|m| m.as_ref().err()),
                    error: payload.error(),
                }))
            }
        };
        ChunkLine {
            kind: "chunk",
            index: self.index,
            offset: self.offset,
            tick: self.tick,
            chunk: fields,
        }
    }
}

/// A `chunk` line.
#[derive(Serialize)]
pub struct ChunkLine<'c> {
    kind: &'static str,
    index: usize,
    offset: u64,
    tick: Option<i32>,
    #[serde(flatten)]
    chunk: ChunkFields<'c>,
}

#[derive(Serialize)]
#[serde(tag = "chunk", rename_all = "snake_case")]
enum ChunkFields<'c> {
    Tick {
        /// The marker byte, as hex.
        byte: String,
        keyframe: bool,
        /// `absolute` or `relative`.
        form: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        delta: Option<u8>,
    },
    #[serde(untagged)]
    Data(Box<DataFields<'c>>),
}

#[derive(Serialize)]
struct DataFields<'c> {
    /// `snapshot`, `message`, `delta` or `unknown` (type 0).
    chunk: ChunkKind,
    size_form: SizeForm,
    /// Payload bytes in the file.
    size: u64,
    /// `ddnet` or `legacy` (the Huffman writer that gives these bytes),
    /// `verbatim` (kept as written) or `undecodable`.
    writer: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    trailing: Option<Blob<'c>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ints: Option<usize>,
    /// The decompressed payload (the varints), as hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    payload: Option<Blob<'static>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'c Message<'c>>,
    /// Instead of `message`: its header cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    message_error: Option<&'c DecodeError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'c DecodeError>,
}

/// The `end` line.
#[derive(Serialize)]
pub struct EndLine<'e> {
    kind: &'static str,
    /// Chunks dumped.
    pub chunks: usize,
    /// Bytes of a chunk cut by the end of the file.
    pub truncated_bytes: Option<usize>,
    /// Chunk payloads that do not decode.
    pub undecodable_payloads: usize,
    /// The error that stopped the decoding, if any.
    pub error: Option<&'e DecodeError>,
}

impl<'e> EndLine<'e> {
    /// The only line after `start` of a demo whose header, map or
    /// timeline does not read.
    pub fn unreadable(error: &'e DecodeError) -> Self {
        EndLine {
            kind: "end",
            chunks: 0,
            truncated_bytes: None,
            undecodable_payloads: 0,
            error: Some(error),
        }
    }
}

/// Calls `f` with every chunk of `demo` (as [`Demo::decode_partial`] gives
/// it, `offsets` its chunks' offsets, from a file of `file_len` bytes), in
/// order; then the `end` line. Stops at the first error `f` returns.
pub fn for_each_chunk<'d, 'a, E>(
    demo: &'d Demo<'a>,
    offsets: &[u64],
    file_len: usize,
    mut f: impl FnMut(&ChunkEntry<'_, 'a>) -> Result<(), E>,
) -> Result<EndLine<'d>, E> {
    let version = if demo.header.is_07() {
        Version::V07
    } else {
        Version::V06
    };
    let tail =
        demo.truncated.map_or(0, <[u8]>::len) + demo.damage.as_ref().map_or(0, |d| d.rest.len());
    let ends = offsets
        .iter()
        .skip(1)
        .copied()
        .chain([(file_len - tail) as u64]);
    let mut tick = None;
    let mut undecodable = 0;
    for (index, (chunk, (&offset, to))) in
        demo.chunks.iter().zip(offsets.iter().zip(ends)).enumerate()
    {
        tick = chunk.tick_after(tick);
        let head = match chunk {
            Chunk::Tick { .. } => to - offset,
            Chunk::Data { form, .. } => form.header_len(),
        };
        let (at, size) = (offset + head, to - offset - head);
        let data = match chunk {
            Chunk::Data {
                kind: ChunkKind::Message,
                payload,
                ..
            } => payload.ints().map(payload_bytes),
            _ => None,
        };
        if let Chunk::Data { payload, .. } = chunk {
            undecodable += usize::from(payload.error().is_some());
        }
        f(&ChunkEntry {
            index,
            offset,
            tick,
            chunk,
            size,
            message: data.as_deref().map(|d| read_message(d, at, version)),
        })?;
    }
    Ok(EndLine {
        kind: "end",
        chunks: demo.chunks.len(),
        truncated_bytes: demo.truncated.map(<[u8]>::len),
        undecodable_payloads: undecodable,
        error: demo.damage.as_ref().map(|d| &d.error),
    })
}

/// The message in `data` (a message chunk's unpacked data, zero-padded,
/// whose payload is at file byte `at`; for events, the chunk's offset),
/// errors placed in the file.
fn read_message(data: &[u8], at: u64, version: Version) -> Result<Message<'_>, DecodeError> {
    let inside = |e: &DecodeError| e.clone().inside(at, PayloadKind::Data);
    match Message::read_padded(data, 0, version) {
        Ok((m, _)) => Ok(m.located(inside)),
        Err(e) => Err(inside(&e)),
    }
}

/// One line of `demo events --format jsonl`: what DDNet's demo player
/// meets, in file order.
#[derive(Serialize)]
pub struct EventLine<'e> {
    /// `tick`, `message`, `snapshot` or `fault`.
    pub kind: &'static str,
    /// The chunk's index among the demo's chunks.
    pub index: usize,
    /// The chunk's file offset.
    pub offset: u64,
    /// The tick of the last tick marker (-1 before the first one).
    pub tick: i32,
    #[serde(flatten)]
    fields: EventFields<'e>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum EventFields<'e> {
    Tick {
        keyframe: bool,
    },
    Message {
        /// The message as the server sent it (id, then fields), with the
        /// zero padding the demo keeps, as hex.
        data: Blob<'e>,
        #[serde(flatten)]
        message: ReadMessage<'e>,
    },
    Snapshot {
        snapshot: SnapshotJson<'e>,
    },
    Fault {
        fault: &'e Fault,
    },
}

/// A message event's message: `message`, or `message_error` when its
/// header cannot be read.
#[derive(Serialize)]
enum ReadMessage<'e> {
    #[serde(rename = "message")]
    Read(Message<'e>),
    #[serde(rename = "message_error")]
    Unreadable(DecodeError),
}

/// The last line of `demo events --format jsonl`.
#[derive(Serialize)]
pub struct EventsEnd {
    kind: &'static str,
    /// Events given.
    pub events: u64,
    /// Chunks read.
    pub chunks: usize,
    /// Bytes of a chunk cut by the end of the file.
    pub truncated_bytes: Option<usize>,
    /// The recorder was never stopped: the seconds `Stop` would have
    /// written.
    pub unfinished_seconds: Option<u32>,
    /// What stopped the player before the end of the file: a chunk whose
    /// framing is damaged, or (the last event, a `fault`) a payload that
    /// does not decode.
    pub error: Option<DecodeError>,
}

/// Plays `events` as DDNet's demo player does and calls `f` with each
/// event's line; then gives the `end` line. The player stops at a payload
/// that does not decode (DDNet's `CDemoPlayer::DoTick` stops the demo
/// there): its `fault` line is the last. Stops at the first error `f`
/// returns.
pub fn for_each_event<E>(
    events: &mut Events<'_>,
    mut f: impl FnMut(&EventLine<'_>) -> Result<(), E>,
) -> Result<EventsEnd, E> {
    let version = if events.header().is_07() {
        Version::V07
    } else {
        Version::V06
    };
    let mut count = 0;
    let mut stopped = None;
    loop {
        let event = match events.next() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                stopped = Some(e);
                break;
            }
        };
        count += 1;
        let bytes;
        let (kind, fields) = match event.kind {
            EventKind::Tick { keyframe } => ("tick", EventFields::Tick { keyframe }),
            EventKind::Message(ints) => {
                bytes = payload_bytes(ints);
                let message = match read_message(&bytes, event.offset, version) {
                    Ok(m) => ReadMessage::Read(m),
                    Err(e) => ReadMessage::Unreadable(e),
                };
                let data = Blob::from(&bytes[..]);
                let fields = EventFields::Message { data, message };
                ("message", fields)
            }
            EventKind::Snapshot(snap) => {
                let snapshot = SnapshotJson::new(snap, Some(event.tick), version);
                ("snapshot", EventFields::Snapshot { snapshot })
            }
            EventKind::Fault(fault) => {
                if let FaultKind::Payload { error, .. } = &fault.kind {
                    stopped = Some(error.clone());
                }
                ("fault", EventFields::Fault { fault })
            }
        };
        f(&EventLine {
            kind,
            index: event.index,
            offset: event.offset,
            tick: event.tick,
            fields,
        })?;
        if stopped.is_some() {
            break;
        }
    }
    Ok(EventsEnd {
        kind: "end",
        events: count,
        chunks: events.chunks(),
        truncated_bytes: events.truncated().map(<[u8]>::len),
        unfinished_seconds: events.unfinished(),
        error: stopped,
    })
}

/// What an [`EventLine`] is, for text output.
pub enum EventWhat<'l, 'e> {
    /// A tick marker.
    Tick {
        /// A keyframe follows.
        keyframe: bool,
    },
    /// A message, or why its header does not read.
    Message(Result<&'l Message<'e>, &'l DecodeError>),
    /// The full snapshot.
    Snapshot(&'l SnapshotJson<'e>),
    /// A fault.
    Fault(&'l Fault),
}

impl<'e> EventLine<'e> {
    /// What the line is.
    pub fn what(&self) -> EventWhat<'_, 'e> {
        match &self.fields {
            EventFields::Tick { keyframe } => EventWhat::Tick {
                keyframe: *keyframe,
            },
            EventFields::Message { message, .. } => EventWhat::Message(match message {
                ReadMessage::Read(m) => Ok(m),
                ReadMessage::Unreadable(e) => Err(e),
            }),
            EventFields::Snapshot { snapshot } => EventWhat::Snapshot(snapshot),
            EventFields::Fault { fault } => EventWhat::Fault(fault),
        }
    }
}
