//! TWDEMO files (`src/engine/shared/demo.cpp`): header, timeline markers,
//! the map's SHA-256 item, the embedded map, then chunks.
//!
//! Every byte is accounted for: fixed-size header fields keep their raw
//! bytes (padding after a NUL included), tick markers keep the form they
//! used (relative or absolute), chunk sizes keep their form (inline, one or
//! two bytes), and each chunk's payload is decoded to ints and compressed
//! back with the Huffman writer that made it.

use crate::codec::{DecodeError, ErrorKind, Mode, Reader};
use crate::huffman::{self, Flavor, HuffmanInfo};
use crate::packer::{read_ints, write_ints};
use serde::Serialize;
use uuid::Uuid;

pub mod check;
mod recorder;
mod rerecord;
pub mod spec;
pub use recorder::{DemoRecorder, DemoStart, MAX_TIMELINE_MARKERS};
pub use rerecord::{Difference, MAX_DIFFERENCES, RerecordReport, Rerecorded, rerecord};

/// `"TWDEMO\0"`.
pub const MAGIC: &[u8; 7] = b"TWDEMO\0";
/// Bytes of the fixed header.
pub const HEADER_LEN: usize = 176;
/// Bytes of the timeline markers block (versions >= 4).
pub const TIMELINE_LEN: usize = 260;
/// `demoitem-sha256@ddnet.tw` (versions >= 6).
pub const SHA256_UUID: Uuid = Uuid::from_u128(0x6be6da4a_cebd_380c_9b5b_1289c842d780);
/// Ticks at or above this are invalid (`MAX_TICK`).
pub const MAX_TICK: i64 = 0x6FFF_FFFF;

/// The fixed header, raw, with accessors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub raw: [u8; HEADER_LEN],
}

fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl Header {
    pub fn version(&self) -> u8 {
        self.raw[7]
    }
    pub fn net_version(&self) -> String {
        c_string(&self.raw[8..72])
    }
    pub fn map_name(&self) -> String {
        c_string(&self.raw[72..136])
    }
    pub fn map_size(&self) -> u32 {
        u32::from_be_bytes(self.raw[136..140].try_into().unwrap_or_default())
    }
    pub fn map_crc(&self) -> u32 {
        u32::from_be_bytes(self.raw[140..144].try_into().unwrap_or_default())
    }
    pub fn kind(&self) -> String {
        c_string(&self.raw[144..152])
    }
    pub fn length(&self) -> u32 {
        u32::from_be_bytes(self.raw[152..156].try_into().unwrap_or_default())
    }
    pub fn timestamp(&self) -> String {
        c_string(&self.raw[156..176])
    }
}

/// What the header says, for display.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderInfo {
    pub version: u8,
    pub net_version: String,
    pub map_name: String,
    pub map_size: u32,
    pub map_crc: String,
    pub kind: String,
    pub length_seconds: u32,
    pub timestamp: String,
    pub timeline_markers: Vec<u32>,
    pub map_sha256: Option<String>,
}

/// How a data chunk's size is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeForm {
    /// In the chunk byte (sizes below 30).
    Inline,
    /// One byte after the chunk byte (marker 30).
    OneByte,
    /// Two little-endian bytes after the chunk byte (marker 31).
    TwoBytes,
}

impl SizeForm {
    /// Bytes of the chunk header (the chunk byte and the size).
    pub fn header_len(self) -> u64 {
        match self {
            SizeForm::Inline => 1,
            SizeForm::OneByte => 2,
            SizeForm::TwoBytes => 3,
        }
    }
}

/// Data chunk kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    Snapshot,
    Message,
    Delta,
    /// Type 0: not written by any known writer; kept.
    Unknown,
}

impl ChunkKind {
    pub fn name(self) -> &'static str {
        match self {
            ChunkKind::Snapshot => "snapshot",
            ChunkKind::Message => "message",
            ChunkKind::Delta => "delta",
            ChunkKind::Unknown => "type-0",
        }
    }
}

/// One chunk of the stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "chunk", rename_all = "snake_case")]
pub enum Chunk<'a> {
    /// A tick marker; `delta` set for the relative form, else the 4-byte
    /// absolute tick follows.
    Tick {
        byte: u8,
        tick: i32,
        keyframe: bool,
        delta: Option<u8>,
    },
    /// A snapshot, delta or message: Huffman over varints of the data.
    Data {
        byte: u8,
        kind: ChunkKind,
        form: SizeForm,
        #[serde(serialize_with = "crate::packet::hex_bytes")]
        payload: &'a [u8],
    },
}

impl Chunk<'_> {
    /// A tick marker as text: `tick 250 (+1)`, `tick 500 (absolute)
    /// keyframe`; `None` for a data chunk.
    pub fn tick_marker_text(&self) -> Option<String> {
        let Chunk::Tick {
            tick,
            keyframe,
            delta,
            ..
        } = self
        else {
            return None;
        };
        let form = delta.map_or("absolute".to_string(), |d| format!("+{d}"));
        let key = if *keyframe { " keyframe" } else { "" };
        Some(format!("tick {tick} ({form}){key}"))
    }
}

/// A decoded demo file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demo<'a> {
    pub header: Header,
    pub timeline: Option<&'a [u8]>,
    /// The SHA-256 item: UUID then 32 bytes (version >= 6, when present).
    pub sha256_item: Option<&'a [u8]>,
    pub map: &'a [u8],
    pub chunks: Vec<Chunk<'a>>,
    /// A chunk cut short by the end of the file (a crashed recorder).
    pub truncated: Option<&'a [u8]>,
}

/// Offsets of each chunk in the file, for reports.
pub type ChunkOffsets = Vec<u64>;

impl<'a> Demo<'a> {
    /// Reads a whole demo. A file cut inside its last chunk keeps the cut
    /// bytes in `truncated`.
    pub fn decode(bytes: &'a [u8]) -> Result<(Demo<'a>, ChunkOffsets), DecodeError> {
        let mut r = Reader::new(bytes, Mode::Lenient);
        let raw: [u8; HEADER_LEN] = r.take_array("demo.header")?;
        if &raw[..7] != MAGIC {
            return Err(DecodeError::new(0, "demo.magic", ErrorKind::BadMagic));
        }
        let header = Header { raw };
        let version = header.version();
        if !(3..=6).contains(&version) {
            return Err(DecodeError::new(
                7,
                "demo.version",
                ErrorKind::UnsupportedVersion {
                    found: Some(version.into()),
                    supported: "3 to 6",
                },
            ));
        }
        let timeline = if version >= 4 {
            Some(r.take(TIMELINE_LEN, "demo.timeline_markers")?)
        } else {
            None
        };
        let sha256_item = {
            let mut probe = r;
            match probe.take(48, "demo.sha256") {
                Ok(item) if version >= 6 && item[..16] == *SHA256_UUID.as_bytes() => {
                    r = probe;
                    Some(item)
                }
                _ => None,
            }
        };
        let map = r.take(header.map_size() as usize, "demo.map")?;
        let mut chunks = Vec::new();
        let mut offsets = Vec::new();
        let mut tick: Option<i32> = None;
        let mut truncated = None;
        while r.remaining() > 0 {
            let start = r.position();
            let at = r.offset();
            match read_chunk(&mut r, version, &mut tick) {
                Ok(chunk) => {
                    offsets.push(at);
                    chunks.push(chunk);
                }
                Err(e) if e.is_eof() => {
                    truncated = Some(&bytes[start..]);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok((
            Demo {
                header,
                timeline,
                sha256_item,
                map,
                chunks,
                truncated,
            },
            offsets,
        ))
    }

    /// Writes the demo back, every payload recompressed from its ints.
    /// Returns how many payloads could not be decoded (no Huffman stream,
    /// bad varints) and were written as they were.
    pub fn encode(&self, out: &mut Vec<u8>) -> usize {
        out.extend_from_slice(&self.header.raw);
        out.extend(self.timeline.iter().copied().flatten());
        out.extend(self.sha256_item.iter().copied().flatten());
        out.extend_from_slice(self.map);
        let verbatim = self.chunks.iter().filter(|c| !encode_chunk(c, out)).count();
        out.extend(self.truncated.iter().copied().flatten());
        verbatim
    }

    /// What the header says.
    pub fn info(&self) -> HeaderInfo {
        let h = &self.header;
        let timeline_markers = self.timeline.map_or(Vec::new(), |t| {
            let be =
                |k: usize| u32::from_be_bytes(t[k * 4..k * 4 + 4].try_into().unwrap_or_default());
            (0..(be(0) as usize).min(64)).map(|k| be(k + 1)).collect()
        });
        HeaderInfo {
            version: h.version(),
            net_version: h.net_version(),
            map_name: h.map_name(),
            map_size: h.map_size(),
            map_crc: format!("{:08x}", h.map_crc()),
            kind: h.kind(),
            length_seconds: h.length(),
            timestamp: h.timestamp(),
            timeline_markers,
            map_sha256: self.sha256_item.map(|i| hex::encode(&i[16..])),
        }
    }
}

fn read_chunk<'a>(
    r: &mut Reader<'a>,
    version: u8,
    tick: &mut Option<i32>,
) -> Result<Chunk<'a>, DecodeError> {
    let at = r.offset();
    let byte = r.u8("demo.chunk")?;
    if byte & 0x80 != 0 {
        let keyframe = byte & 0x40 != 0;
        let relative = if version >= 5 {
            (byte & 0x20 != 0).then_some(byte & 0x1f)
        } else {
            Some(byte & 0x3f).filter(|&d| d != 0)
        };
        let new = match relative {
            Some(delta) => match tick {
                Some(t) => i64::from(*t) + i64::from(delta),
                None => {
                    return Err(DecodeError::new(
                        at,
                        "demo.tick_marker",
                        ErrorKind::RelativeTickFirst,
                    ));
                }
            },
            None => i64::from(i32::from_be_bytes(r.take_array("demo.tick_marker.tick")?)),
        };
        if !(0..MAX_TICK).contains(&new) {
            return Err(DecodeError::new(
                at,
                "demo.tick_marker",
                ErrorKind::TickOutOfRange {
                    tick: new,
                    max: MAX_TICK,
                },
            ));
        }
        *tick = Some(new as i32);
        return Ok(Chunk::Tick {
            byte,
            tick: new as i32,
            keyframe,
            delta: relative,
        });
    }
    let kind = match (byte & 0x60) >> 5 {
        1 => ChunkKind::Snapshot,
        2 => ChunkKind::Message,
        3 => ChunkKind::Delta,
        _ => ChunkKind::Unknown,
    };
    let (size, form) = match byte & 0x1f {
        30 => (usize::from(r.u8("demo.chunk.size")?), SizeForm::OneByte),
        31 => (
            usize::from(u16::from_le_bytes(r.take_array("demo.chunk.size")?)),
            SizeForm::TwoBytes,
        ),
        n => (usize::from(n), SizeForm::Inline),
    };
    let payload = r.take(size, "demo.chunk.payload")?;
    Ok(Chunk::Data {
        byte,
        kind,
        form,
        payload,
    })
}

/// Appends a chunk; false if its payload could not be decoded and was
/// written as it was.
fn encode_chunk(chunk: &Chunk<'_>, out: &mut Vec<u8>) -> bool {
    match chunk {
        Chunk::Tick {
            byte, tick, delta, ..
        } => {
            out.push(*byte);
            if delta.is_none() {
                out.extend_from_slice(&tick.to_be_bytes());
            }
        }
        Chunk::Data {
            byte,
            form,
            payload,
            ..
        } => {
            out.push(*byte);
            match form {
                SizeForm::Inline => {}
                SizeForm::OneByte => out.push(payload.len() as u8),
                SizeForm::TwoBytes => out.extend_from_slice(&(payload.len() as u16).to_le_bytes()),
            }
            // The payload itself, rebuilt from what it decodes to.
            match decode_payload(payload, 0) {
                Ok(decoded) => out.extend_from_slice(&recompress(&decoded)),
                Err(_) => {
                    out.extend_from_slice(payload);
                    return false;
                }
            }
        }
    }
    true
}

/// A chunk payload decoded: the ints and how they were compressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payload<'a> {
    pub ints: Vec<i32>,
    pub huffman: HuffmanInfo,
    /// The compressed bytes, kept for payloads no writer reproduces.
    pub raw: &'a [u8],
    /// The varints did not use the canonical form (kept via `raw`).
    pub noncanonical: bool,
}

/// Decompresses a chunk payload (`base` is its offset, for errors).
pub fn decode_payload(payload: &[u8], base: u64) -> Result<Payload<'_>, DecodeError> {
    let mut varints = Vec::new();
    let huffman = huffman::decompress(payload, &mut varints, 64 * 1024, base)?;
    let ints = read_ints(&varints)?;
    let mut again = Vec::with_capacity(varints.len());
    write_ints(&mut again, &ints);
    Ok(Payload {
        ints,
        huffman,
        raw: payload,
        noncanonical: again != varints,
    })
}

/// A payload's ints only, into reused buffers (`varints` is scratch): the
/// replay's hot path, without [`decode_payload`]'s re-encoding check.
/// `at` is the payload's file offset, so Huffman faults name file bytes;
/// varint faults name the payload's file byte and the byte of the
/// decompressed data.
pub fn decode_payload_ints(
    payload: &[u8],
    at: u64,
    varints: &mut Vec<u8>,
    ints: &mut Vec<i32>,
) -> Result<(), DecodeError> {
    varints.clear();
    huffman::decompress(payload, varints, 64 * 1024, at)?;
    crate::packer::read_ints_into(varints, ints)
        .map_err(|e| e.inside(at, crate::codec::PayloadKind::Decompressed))
}

/// Compresses decoded ints back as their writer did.
pub fn recompress(p: &Payload<'_>) -> Vec<u8> {
    match (p.noncanonical, p.huffman.flavor(Flavor::Ddnet)) {
        (false, Some(flavor)) => {
            let mut varints = Vec::with_capacity(p.ints.len() * 2);
            write_ints(&mut varints, &p.ints);
            let mut out = huffman::compress_to_vec(&varints, flavor);
            out.extend_from_slice(&p.raw[p.huffman.len..]);
            out
        }
        _ => p.raw.to_vec(),
    }
}

/// The data of a payload as bytes (ints little-endian, as DDNet stores
/// them); messages keep their zero padding to 4 bytes.
pub fn payload_bytes(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// True if `bytes` start with the demo magic.
pub fn is_demo(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// What replaying a demo's snapshots gives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SnapshotReplay {
    /// Keyframes, deltas and what came of them.
    pub counts: crate::snapshot::replay::ReplayCounts,
    /// Message and type-0 chunks.
    pub messages: usize,
    /// Message and type-0 chunks whose payload does not decode.
    pub unreadable_messages: usize,
    pub ticks: usize,
    pub last_tick: Option<i32>,
    /// Items in the last snapshot.
    pub last_items: usize,
    /// Dropped snapshots and invalid items, in file order (the first
    /// [`MAX_FAULTS`]; `counts` has the totals).
    pub faults: Vec<crate::snapshot::replay::Fault>,
}

/// Most faults a replay lists.
pub const MAX_FAULTS: usize = 100;

impl<'a> Demo<'a> {
    /// The item size table the demo's net version uses (0.7 demos use
    /// 0.7's; everything else DDNet's 0.6 table).
    pub fn item_sizes(&self) -> crate::snapshot::ItemSizes {
        if self.header.net_version().starts_with("0.7") {
            crate::snapshot::ItemSizes::teeworlds_07()
        } else {
            crate::snapshot::ItemSizes::ddnet_06()
        }
    }

    /// Applies every keyframe and delta in order, as DDNet's demo player
    /// does (each delta to the snapshot before it; a snapshot that fails
    /// is skipped and reported), and calls `on_snapshot` with the chunk's
    /// index in [`Demo::chunks`], its tick and the full snapshot.
    ///
    /// Every data chunk's payload is decompressed, messages too: DDNet's
    /// player stops at one that does not decode. Here it is reported and
    /// the replay goes on.
    pub fn replay_snapshots(
        &self,
        offsets: &[u64],
        mut on_snapshot: impl FnMut(usize, i32, &crate::snapshot::Snapshot),
    ) -> SnapshotReplay {
        use crate::snapshot::replay::{
            Base, Fault, FaultKind, SnapData, SnapInput, SnapshotHistory,
        };
        let mut history = SnapshotHistory::for_demo(self.item_sizes());
        let mut tick = None;
        let mut summary = SnapshotReplay::default();
        let (mut varints, mut ints) = (Vec::new(), Vec::new());
        // Snapshot payloads that do not even decompress never reach the
        // machine.
        let mut unreadable = 0;
        let note = |summary: &mut SnapshotReplay, f: Fault| {
            if summary.faults.len() < MAX_FAULTS {
                summary.faults.push(f);
            }
        };
        for (index, (chunk, &offset)) in self.chunks.iter().zip(offsets).enumerate() {
            let (kind, payload, form) = match chunk {
                Chunk::Tick { tick: t, .. } => {
                    tick = Some(*t);
                    summary.ticks += 1;
                    summary.last_tick = Some(*t);
                    continue;
                }
                Chunk::Data {
                    kind,
                    payload,
                    form,
                    ..
                } => (*kind, payload, form),
            };
            let t = tick.unwrap_or(-1);
            let snapshot = matches!(kind, ChunkKind::Snapshot | ChunkKind::Delta);
            if !snapshot {
                summary.messages += 1;
            }
            let at = offset + form.header_len();
            if let Err(error) = decode_payload_ints(payload, at, &mut varints, &mut ints) {
                let chunk = kind.name();
                let kind = FaultKind::Payload { chunk, error };
                note(
                    &mut summary,
                    Fault {
                        offset,
                        tick: t,
                        kind,
                    },
                );
                match snapshot {
                    true => unreadable += 1,
                    false => summary.unreadable_messages += 1,
                }
                continue;
            }
            let data = match kind {
                ChunkKind::Snapshot => SnapData::Keyframe(&ints),
                ChunkKind::Delta => SnapData::Delta {
                    base: Base::Previous,
                    ints: &ints,
                },
                ChunkKind::Message | ChunkKind::Unknown => continue,
            };
            let fed = history.feed(SnapInput {
                offset,
                tick: t,
                data,
                crc: None,
            });
            match fed {
                Ok(snap) => {
                    summary.last_items = snap.len();
                    on_snapshot(index, t, snap);
                }
                Err(f) => note(&mut summary, f),
            }
            for w in history.take_warnings() {
                note(&mut summary, w);
            }
        }
        summary.counts = history.counts().clone();
        summary.counts.dropped += unreadable;
        summary
    }
}
