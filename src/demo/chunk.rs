//! A demo's chunks: tick markers, and data chunks (snapshots, deltas,
//! messages) whose payload is Huffman-compressed varints.
//!
//! A data chunk is decoded whole: its payload holds the ints it unpacks
//! to, and what it takes to write them back exactly (the Huffman writer
//! and the bytes after its end), or the bytes themselves when no writer
//! gives them back. Encoding only compresses; it never decodes.

use crate::codec::{Codec, DecodeError, ErrorKind, PayloadKind, Reader};
use crate::huffman::{self, Flavor, HuffmanInfo};
use crate::packer::{check_ints, read_ints_into, write_ints};
use serde::Serialize;

/// Ticks at or above this are invalid (`MAX_TICK`).
pub const MAX_TICK: i64 = 0x6FFF_FFFF;
/// Most bytes a payload decompresses to (DDNet's chunk buffers).
pub const MAX_PAYLOAD: usize = 64 * 1024;

/// How a data chunk's size is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
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

    /// The form DDNet's recorder uses for a payload of `len` bytes: the
    /// smallest that holds it.
    pub fn smallest(len: usize) -> SizeForm {
        match len {
            0..30 => SizeForm::Inline,
            30..256 => SizeForm::OneByte,
            _ => SizeForm::TwoBytes,
        }
    }

    /// True if a payload of `len` bytes can be written in this form.
    pub fn holds(self, len: usize) -> bool {
        match self {
            SizeForm::Inline => len < 30,
            SizeForm::OneByte => len < 256,
            SizeForm::TwoBytes => len < 65536,
        }
    }

    /// The name used in JSON and text (`inline`, `one_byte`, `two_bytes`).
    pub fn name(self) -> &'static str {
        match self {
            SizeForm::Inline => "inline",
            SizeForm::OneByte => "one_byte",
            SizeForm::TwoBytes => "two_bytes",
        }
    }
}

/// Data chunk kinds: the two type bits of the chunk byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    /// Type 1: a whole snapshot (a keyframe).
    Snapshot,
    /// Type 2: a message the recorder was given.
    Message,
    /// Type 3: a snapshot delta against the snapshot before it.
    Delta,
    /// Type 0: not written by any known writer; kept, and played as a
    /// message (DDNet's player hands any other type to the client).
    Unknown,
}

impl ChunkKind {
    /// The name used in JSON, text and errors (`snapshot`, `message`,
    /// `delta`, `type-0`).
    pub fn name(self) -> &'static str {
        match self {
            ChunkKind::Snapshot => "snapshot",
            ChunkKind::Message => "message",
            ChunkKind::Delta => "delta",
            ChunkKind::Unknown => "type-0",
        }
    }

    /// The two type bits.
    fn bits(self) -> u8 {
        match self {
            ChunkKind::Unknown => 0,
            ChunkKind::Snapshot => 1,
            ChunkKind::Message => 2,
            ChunkKind::Delta => 3,
        }
    }

    fn from_bits(bits: u8) -> ChunkKind {
        match bits & 3 {
            1 => ChunkKind::Snapshot,
            2 => ChunkKind::Message,
            3 => ChunkKind::Delta,
            _ => ChunkKind::Unknown,
        }
    }

    /// True for the kinds the snapshot replay applies.
    pub fn is_snapshot(self) -> bool {
        matches!(self, ChunkKind::Snapshot | ChunkKind::Delta)
    }
}

/// A data chunk's payload, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Payload<'a> {
    /// Canonical varints of `ints`, compressed by the `flavor` writer,
    /// then `trailing` bytes (which DDNet's reader ignores; no DDNet
    /// writer leaves any). This is what every known writer makes.
    Ints {
        /// The data the payload unpacks to.
        ints: Vec<i32>,
        /// The Huffman writer that gives these bytes (DDNet's when both
        /// do, which is when the bits do not end on a byte boundary).
        flavor: Flavor,
        /// Bytes after the Huffman stream's end.
        trailing: &'a [u8],
    },
    /// A payload that decodes to `ints`, but that no writer gives back
    /// from them (non-zero padding bits after the Huffman end, or
    /// over-long varints): kept as it was.
    Verbatim {
        /// The data the payload unpacks to.
        ints: Vec<i32>,
        /// The payload's bytes.
        raw: &'a [u8],
    },
    /// A payload that does not decode. DDNet's reader still reads the
    /// chunk (only its player fails on it), so the file decodes; the
    /// snapshot replay reports the fault.
    Undecodable {
        /// The payload's bytes.
        raw: &'a [u8],
        /// Why: a Huffman fault names the file byte; a varint fault the
        /// payload's file byte and the byte of the decompressed data.
        error: DecodeError,
    },
}

/// Buffers reused from one payload to the next.
#[derive(Default)]
pub(crate) struct Scratch {
    varints: Vec<u8>,
    /// The ints of the last payload unpacked.
    pub(crate) ints: Vec<i32>,
    recent: Recent,
    /// The [`Recent`] slot that held the last payload's varints, if one
    /// did (they were not copied to `varints` then).
    hit: Option<usize>,
}

impl Scratch {
    /// What the last payload decoded decompressed to.
    fn varints(&self) -> &[u8] {
        match self.hit {
            Some(i) => &self.recent.slots[i].varints,
            None => &self.varints,
        }
    }
}

/// Payloads decompressed lately, each in a slot its bytes choose. Demos
/// repeat payloads byte for byte (the same message or delta tick after
/// tick: 93% of `RaiNyMore2_bench`'s payload bytes, a quarter of
/// `B_eight_bots_dm1`'s), and reading one's output from its slot costs a
/// fraction of decoding it again. A payload is kept the second time its
/// slot sees it in a row (most never come again: copying each in cost
/// more than the repeats saved, and a slot's hot payload stays), and only
/// successes: they depend on the bytes alone, where an error names the
/// file offset.
#[derive(Default)]
struct Recent {
    /// `RECENT_SLOTS` slots once a payload decompressed.
    slots: Vec<RecentSlot>,
}

#[derive(Default)]
struct RecentSlot {
    raw: Vec<u8>,
    varints: Vec<u8>,
    info: Option<HuffmanInfo>,
    /// The hash ([`Recent::hash`]; 0 for none) of the last payload that
    /// came here and was not kept: the next of that hash is. One of the
    /// same hash but other bytes is only kept too soon, never read for
    /// another.
    seen: u64,
}

/// Slots in [`Recent`].
const RECENT_SLOTS: usize = 64;
/// Shorter payloads are not kept (the hash reads 8 bytes).
const RECENT_MIN: usize = 8;
/// Longer payloads are not kept, which bounds the memory: a symbol takes
/// a bit at least, so each slot holds at most 9 KiB.
const RECENT_MAX: usize = 1024;

impl Recent {
    /// A hash of a payload's bytes, never 0, if such payloads are kept.
    fn hash(raw: &[u8]) -> Option<u64> {
        if !(RECENT_MIN..=RECENT_MAX).contains(&raw.len()) {
            return None;
        }
        let word = |at: usize| u64::from_le_bytes(raw[at..at + 8].try_into().unwrap());
        let mixed = (word(0)
            ^ word((raw.len() - 8) / 2).rotate_left(21)
            ^ word(raw.len() - 8).rotate_left(42))
        .wrapping_add(raw.len() as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Some(mixed | 1)
    }

    /// The slot of a payload of this hash.
    fn slot(hash: u64) -> usize {
        (hash >> 32) as usize % RECENT_SLOTS
    }

    /// The slot holding what `raw` (of this hash) decompressed to, and how.
    fn get(&self, raw: &[u8], hash: u64) -> Option<(usize, HuffmanInfo)> {
        let i = Recent::slot(hash);
        let slot = self.slots.get(i)?;
        let info = slot.info.filter(|_| slot.raw == raw)?;
        Some((i, info))
    }

    /// Keeps what `raw` (of this hash) decompressed to, in place of its
    /// slot's payload, if the slot saw it last; else notes it.
    fn put(&mut self, raw: &[u8], hash: u64, varints: &[u8], info: HuffmanInfo) {
        if self.slots.is_empty() {
            self.slots.resize_with(RECENT_SLOTS, RecentSlot::default);
        }
        let slot = &mut self.slots[Recent::slot(hash)];
        if std::mem::replace(&mut slot.seen, hash) != hash {
            return;
        }
        slot.seen = 0;
        slot.raw.clear();
        slot.raw.extend_from_slice(raw);
        slot.varints.clear();
        slot.varints.extend_from_slice(varints);
        slot.info = Some(info);
    }
}

/// Decompresses the payload `raw` at file offset `at` and unpacks its
/// varints into `s.ints`: the one payload decoder, shared by
/// [`Payload::read`] and the streaming player. A Huffman fault names the
/// file byte; a varint fault the payload's file byte and the byte of the
/// decompressed data; both name the tick, if there is one.
pub(crate) fn unpack(
    raw: &[u8],
    at: u64,
    tick: Option<i32>,
    s: &mut Scratch,
) -> Result<HuffmanInfo, DecodeError> {
    decode(raw, at, tick, s, read_ints_into)
}

/// [`unpack`]'s verdict on a payload that is only counted: decompressed,
/// its varints checked whole ([`check_ints`]) but not read where their
/// last byte shows it, so `s.ints` holds nothing of it.
pub(crate) fn check(
    raw: &[u8],
    at: u64,
    tick: Option<i32>,
    s: &mut Scratch,
) -> Result<HuffmanInfo, DecodeError> {
    decode(raw, at, tick, s, check_ints)
}

/// [`unpack`] and [`check`], by what they do with the varints.
fn decode(
    raw: &[u8],
    at: u64,
    tick: Option<i32>,
    s: &mut Scratch,
    ints: impl FnOnce(&[u8], &mut Vec<i32>) -> Result<(), DecodeError>,
) -> Result<HuffmanInfo, DecodeError> {
    let hash = Recent::hash(raw);
    let kept = hash.and_then(|h| s.recent.get(raw, h));
    s.hit = kept.map(|(i, _)| i);
    let decompressed = match kept {
        Some((_, info)) => Ok(info),
        None => {
            s.varints.clear();
            huffman::decompress(raw, &mut s.varints, MAX_PAYLOAD, at).inspect(|&info| {
                if let Some(h) = hash {
                    s.recent.put(raw, h, &s.varints, info);
                }
            })
        }
    };
    let varints = match kept {
        Some((i, _)) => &s.recent.slots[i].varints,
        None => &s.varints,
    };
    let unpacked = decompressed.and_then(|info| {
        ints(varints, &mut s.ints)
            .map(|()| info)
            .map_err(|e| e.inside(at, PayloadKind::Decompressed))
    });
    match (unpacked, tick) {
        (Err(e), Some(t)) => Err(e.at_tick(t)),
        (result, _) => result,
    }
}

impl<'a> Payload<'a> {
    /// A payload as DDNet's writers make it: canonical varints,
    /// compressed by `flavor`, nothing after.
    pub fn new(ints: Vec<i32>, flavor: Flavor) -> Payload<'a> {
        Payload::Ints {
            ints,
            flavor,
            trailing: &[],
        }
    }

    /// Decodes `raw`, the payload at file offset `at` (so errors name
    /// file bytes).
    pub fn decode(raw: &'a [u8], at: u64) -> Payload<'a> {
        Payload::read(raw, at, None, &mut Scratch::default())
    }

    /// [`Payload::decode`] with reused buffers; a fault in a payload
    /// after a tick marker names its tick.
    pub(crate) fn read(raw: &'a [u8], at: u64, tick: Option<i32>, s: &mut Scratch) -> Payload<'a> {
        let info = match unpack(raw, at, tick, s) {
            Ok(info) => info,
            Err(error) => return Payload::Undecodable { raw, error },
        };
        let ints = s.ints.as_slice().to_vec();
        match info.flavor(Flavor::Ddnet) {
            Some(flavor) if canonical(s.varints(), &ints) => Payload::Ints {
                ints,
                flavor,
                trailing: &raw[info.len..],
            },
            _ => Payload::Verbatim { ints, raw },
        }
    }

    /// The data the payload unpacks to, if it decodes.
    pub fn ints(&self) -> Option<&[i32]> {
        match self {
            Payload::Ints { ints, .. } | Payload::Verbatim { ints, .. } => Some(ints),
            Payload::Undecodable { .. } => None,
        }
    }

    /// Why the payload does not decode, if it does not.
    pub fn error(&self) -> Option<&DecodeError> {
        match self {
            Payload::Undecodable { error, .. } => Some(error),
            _ => None,
        }
    }

    /// What the payload decompresses to (the varints), if it does.
    pub fn decompressed(&self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        match self {
            // Canonical: the varints are the ints written back.
            Payload::Ints { ints, .. } => write_ints(&mut out, ints),
            Payload::Verbatim { raw, .. } => {
                huffman::decompress(raw, &mut out, MAX_PAYLOAD, 0).ok()?;
            }
            Payload::Undecodable { .. } => return None,
        }
        Some(out)
    }

    /// Appends the payload's bytes as the file holds them (compressed).
    pub fn write_raw(&self, out: &mut Vec<u8>) {
        self.write(&mut Vec::new(), out)
    }

    /// Appends the payload's bytes; `varints` is scratch.
    pub(crate) fn write(&self, varints: &mut Vec<u8>, out: &mut Vec<u8>) {
        match self {
            Payload::Ints {
                ints,
                flavor,
                trailing,
            } => {
                compress_ints(ints, *flavor, varints, out);
                out.extend_from_slice(trailing);
            }
            Payload::Verbatim { raw, .. } | Payload::Undecodable { raw, .. } => {
                out.extend_from_slice(raw)
            }
        }
    }
}

/// Appends `ints` as canonical varints compressed by `flavor`; `varints`
/// is scratch.
pub(crate) fn compress_ints(
    ints: &[i32],
    flavor: Flavor,
    varints: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    varints.clear();
    write_ints(varints, ints);
    huffman::compress(varints, flavor, out);
}

/// True if `varints`, which decode to `ints`, are their canonical
/// varints. Each varint is at least as long as its canonical form, so the
/// lengths add up only if every one is canonical (a pass that
/// vectorises); then only a 5-byte form can still differ, in the ignored
/// high bits of its fifth byte, which the lengths locate (a second,
/// branch-free pass, when there are 5-byte forms).
fn canonical(varints: &[u8], ints: &[i32]) -> bool {
    let len = |m: u32| {
        1 + u32::from(m >= 0x40)
            + u32::from(m >= 0x2000)
            + u32::from(m >= 0x10_0000)
            + u32::from(m >= 0x800_0000)
    };
    // 32-bit sums (a payload has at most 64 KiB of ints) vectorise wider.
    let (mut total, mut long) = (0u32, 0u32);
    for &v in ints {
        let m = (v ^ (v >> 31)) as u32;
        total += len(m);
        long += u32::from(m >= 0x800_0000);
    }
    if total as usize != varints.len() {
        return false;
    }
    if long == 0 {
        return true;
    }
    let (mut at, mut pad) = (0usize, 0u8);
    for &v in ints {
        let m = (v ^ (v >> 31)) as u32;
        at += len(m) as usize;
        let last = varints.get(at - 1).copied().unwrap_or(0);
        pad |= last & u8::from(m >= 0x800_0000).wrapping_neg() & 0xf0;
    }
    pad == 0
}

/// One chunk of the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk<'a> {
    /// A tick marker: the chunks after it are at `tick`.
    Tick {
        /// The marker byte as written. Encoding writes it, then the tick
        /// (big-endian) for an absolute marker.
        byte: u8,
        /// The tick.
        tick: i32,
        /// The keyframe flag: a whole snapshot follows.
        keyframe: bool,
        /// For a relative marker, the ticks since the last marker;
        /// `None` for an absolute one (the tick follows the byte).
        delta: Option<u8>,
    },
    /// A snapshot, delta or message.
    Data {
        /// What it holds.
        kind: ChunkKind,
        /// How its size is written (the form must hold the payload's
        /// length).
        form: SizeForm,
        /// The payload, decoded.
        payload: Payload<'a>,
    },
}

/// What decoding a chunk needs from the chunks before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkContext {
    /// The file's version: tick markers have a relative flag from 5 on.
    pub version: u8,
    /// The tick of the last tick marker, which a relative one adds to.
    pub tick: Option<i32>,
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

    /// The tick after this chunk, given the tick before it.
    pub fn tick_after(&self, before: Option<i32>) -> Option<i32> {
        match self {
            Chunk::Tick { tick, .. } => Some(*tick),
            Chunk::Data { .. } => before,
        }
    }
}

/// A chunk as framed in the file, its payload not decoded yet.
pub(crate) enum Frame<'a> {
    /// A tick marker, as in [`Chunk::Tick`].
    Tick {
        byte: u8,
        tick: i32,
        keyframe: bool,
        delta: Option<u8>,
    },
    /// A data chunk: its kind, size form, payload bytes and their file
    /// offset.
    Data {
        kind: ChunkKind,
        form: SizeForm,
        raw: &'a [u8],
        at: u64,
    },
}

/// Reads one chunk's framing: the one chunk reader, shared by
/// [`Chunk::read`] and the streaming player. A fault names the tick in
/// force, if there is one.
pub(crate) fn read_frame<'a>(
    r: &mut Reader<'a>,
    ctx: ChunkContext,
) -> Result<Frame<'a>, DecodeError> {
    read_framing(r, ctx).map_err(|e| match ctx.tick {
        Some(t) => e.at_tick(t),
        None => e,
    })
}

fn read_framing<'a>(r: &mut Reader<'a>, ctx: ChunkContext) -> Result<Frame<'a>, DecodeError> {
    let at = r.offset();
    let byte = r.u8("demo.chunk")?;
    if byte & 0x80 != 0 {
        return tick_marker(r, at, byte, ctx);
    }
    let (size, form) = match byte & 0x1f {
        30 => (usize::from(r.u8("demo.chunk.size")?), SizeForm::OneByte),
        31 => (
            usize::from(u16::from_le_bytes(r.take_array("demo.chunk.size")?)),
            SizeForm::TwoBytes,
        ),
        n => (usize::from(n), SizeForm::Inline),
    };
    let at = r.offset();
    let raw = r.take(size, "demo.chunk.payload")?;
    Ok(Frame::Data {
        kind: ChunkKind::from_bits(byte >> 5),
        form,
        raw,
        at,
    })
}

impl<'a> Chunk<'a> {
    /// Reads one chunk, its payload decoded into reused buffers.
    pub(crate) fn read(
        r: &mut Reader<'a>,
        ctx: ChunkContext,
        s: &mut Scratch,
    ) -> Result<Chunk<'a>, DecodeError> {
        Ok(match read_frame(r, ctx)? {
            Frame::Tick {
                byte,
                tick,
                keyframe,
                delta,
            } => Chunk::Tick {
                byte,
                tick,
                keyframe,
                delta,
            },
            Frame::Data {
                kind,
                form,
                raw,
                at,
            } => Chunk::Data {
                kind,
                form,
                payload: Payload::read(raw, at, ctx.tick, s),
            },
        })
    }

    /// Appends the chunk; `varints` and `payload` are scratch.
    pub(crate) fn write(&self, varints: &mut Vec<u8>, payload: &mut Vec<u8>, out: &mut Vec<u8>) {
        match self {
            Chunk::Tick {
                byte, tick, delta, ..
            } => {
                out.push(*byte);
                if delta.is_none() {
                    out.extend_from_slice(&tick.to_be_bytes());
                }
            }
            Chunk::Data {
                kind,
                form,
                payload: p,
            } => {
                payload.clear();
                p.write(varints, payload);
                write_data_chunk(out, *kind, *form, payload);
            }
        }
    }
}

/// Appends a data chunk's header, the size written in `form`, then its
/// compressed `payload`. As DDNet's byte stores do, a size too large for
/// the form keeps its low bits (65536 in two bytes is 0).
pub(crate) fn write_data_chunk(out: &mut Vec<u8>, kind: ChunkKind, form: SizeForm, payload: &[u8]) {
    let head = kind.bits() << 5;
    let size = payload.len();
    match form {
        SizeForm::Inline => out.push(head | (size as u8 & 0x1f)),
        SizeForm::OneByte => out.extend_from_slice(&[head | 30, size as u8]),
        SizeForm::TwoBytes => out.extend_from_slice(&[head | 31, size as u8, (size >> 8) as u8]),
    }
    out.extend_from_slice(payload);
}

fn tick_marker<'a>(
    r: &mut Reader<'a>,
    at: u64,
    byte: u8,
    ctx: ChunkContext,
) -> Result<Frame<'a>, DecodeError> {
    let keyframe = byte & 0x40 != 0;
    let relative = if ctx.version >= 5 {
        (byte & 0x20 != 0).then_some(byte & 0x1f)
    } else {
        Some(byte & 0x3f).filter(|&d| d != 0)
    };
    let tick = match relative {
        Some(delta) => match ctx.tick {
            Some(t) => i64::from(t) + i64::from(delta),
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
    if !(0..MAX_TICK).contains(&tick) {
        return Err(DecodeError::new(
            at,
            "demo.tick_marker",
            ErrorKind::TickOutOfRange {
                tick,
                max: MAX_TICK,
            },
        ));
    }
    Ok(Frame::Tick {
        byte,
        tick: tick as i32,
        keyframe,
        delta: relative,
    })
}

impl<'a> Codec<'a, ChunkContext> for Chunk<'a> {
    /// Reads one chunk. A payload that does not decode is not an error
    /// here (see [`Payload::Undecodable`]); a marker whose tick is out of
    /// range, or relative before any tick, is.
    fn decode(r: &mut Reader<'a>, ctx: ChunkContext) -> Result<Self, DecodeError> {
        Chunk::read(r, ctx, &mut Scratch::default())
    }

    fn encode(&self, out: &mut Vec<u8>, _: ChunkContext) {
        self.write(&mut Vec::new(), &mut Vec::new(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encode_to_vec;
    use crate::packer::VarInt;

    /// Varints written in the given forms: (value, bytes, ignored bits).
    fn forms(forms: &[(i32, u8, u8)]) -> (Vec<u8>, Vec<i32>) {
        let mut out = Vec::new();
        for &(v, len, pad) in forms {
            out.extend(encode_to_vec(&VarInt::with_form(v, len, pad), ()));
        }
        (out, forms.iter().map(|f| f.0).collect())
    }

    #[test]
    fn canonical_varints_are_told_from_every_other_form() {
        let big = 0x0800_0000;
        for (case, want) in [
            (vec![(1, 1, 0), (-64, 1, 0), (64, 2, 0)], true),
            (vec![(big, 5, 0), (-big - 1, 5, 0), (3, 1, 0)], true),
            (vec![(1, 2, 0)], false),
            (vec![(64, 3, 0), (1, 1, 0)], false),
            (vec![(7, 5, 0)], false),
            (vec![(big, 5, 0x10)], false),
            (vec![(1, 1, 0), (big, 5, 0x80), (2, 1, 0)], false),
        ] {
            let (varints, ints) = forms(&case);
            let mut decoded = Vec::new();
            read_ints_into(&varints, &mut decoded).unwrap();
            assert_eq!(decoded, ints, "{case:?}");
            assert_eq!(canonical(&varints, &ints), want, "{case:?}");
        }
    }
}
