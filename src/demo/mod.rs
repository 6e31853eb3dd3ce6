//! TWDEMO files (`src/engine/shared/demo.cpp`): header, timeline markers,
//! the map's SHA-256 item, the embedded map, then chunks.
//!
//! Every byte is accounted for: fixed-size header fields keep their raw
//! bytes (padding after a NUL included), tick markers keep the form they
//! used (relative or absolute), chunk sizes keep their form (inline, one or
//! two bytes), and each chunk's payload is decoded to ints and kept with
//! the Huffman writer that made it, so that encoding compresses them back
//! to the same bytes. Each wire type is a [`Codec`]: [`Header`],
//! [`Timeline`], [`MapSha256`], [`Chunk`] and the whole [`Demo`].
//!
//! ```
//! use teeoracle::codec::{Codec, encode_to_vec, first_difference};
//! use teeoracle::demo::Demo;
//! let bytes = std::fs::read("corpus/demo/ddnet-20.1/A_join_move_leave.demo")?;
//! let (demo, offsets) = Demo::decode(&bytes)?;
//! assert_eq!(demo.header.map_name.text(), "dm1");
//! assert_eq!(demo.chunks.len(), offsets.len());
//! let again = encode_to_vec(&demo, ());
//! assert!(again == bytes, "differs at byte {:?}", first_difference(&again, &bytes));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::codec::{Codec, DecodeError, Mode, Reader};
use uuid::Uuid;

pub mod check;
mod chunk;
mod events;
mod header;
pub mod json;
pub mod log;
mod recorder;
mod rerecord;
pub mod spec;
#[cfg(test)]
mod tests;

pub use chunk::{Chunk, ChunkContext, ChunkKind, MAX_PAYLOAD, MAX_TICK, Payload, SizeForm};
pub use events::{Event, EventKind, Events, MAX_FAULTS, SnapshotReplay};
pub use header::{
    FieldFault, FixedStr, HEADER_LEN, Header, HeaderInfo, MAGIC, MAX_TIMELINE_MARKERS, MapSha256,
    TICKS_PER_SECOND, TIMELINE_LEN, Timeline, VERSIONS, clock_seconds, clock_text, one_session,
};
pub use recorder::{DemoRecorder, DemoStart};
pub use rerecord::{
    Difference, MAX_DIFFERENCES, RerecordReport, Rerecorded, rerecord, rerecord_decoded,
};

/// `demoitem-sha256@ddnet.tw` (versions >= 6).
pub const SHA256_UUID: Uuid = Uuid::from_u128(0x6be6da4a_cebd_380c_9b5b_1289c842d780);

/// A decoded demo file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demo<'a> {
    /// The fixed header.
    pub header: Header,
    /// The timeline markers (versions 4 and later).
    pub timeline: Option<Timeline>,
    /// The SHA-256 item (version 6, when present).
    pub map_sha256: Option<MapSha256>,
    /// The embedded map file (`header.map_size` bytes).
    pub map: &'a [u8],
    /// The chunks.
    pub chunks: Vec<Chunk<'a>>,
    /// A chunk cut short by the end of the file (a crashed recorder).
    pub truncated: Option<&'a [u8]>,
    /// A damaged chunk that stopped the reading ([`Demo::decode_partial`]
    /// only): the chunks before it are [`Demo::chunks`].
    pub damage: Option<Damage<'a>>,
}

/// Where a demo's chunks stop being readable: a chunk whose framing DDNet's
/// reader stops at too (a tick marker out of range, or relative before any
/// absolute one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage<'a> {
    /// Why: the damaged chunk's file byte, the tick in force before it,
    /// and what was expected.
    pub error: DecodeError,
    /// The bytes from the damaged chunk to the end of the file, kept as
    /// they are (encoding writes them back).
    pub rest: &'a [u8],
}

/// Offsets of each chunk in the file, for reports.
pub type ChunkOffsets = Vec<u64>;

impl<'a> Demo<'a> {
    /// Reads a whole demo, every chunk's payload decoded, and returns the
    /// file offset of each chunk too. A file cut inside its last chunk
    /// keeps the cut bytes in [`Demo::truncated`]; a payload that does not
    /// decode is kept ([`Payload::Undecodable`]). Errors are faults of the
    /// framing (header, map size, tick markers), which DDNet's reader
    /// refuses too; [`Demo::decode_partial`] keeps the chunks before a
    /// damaged one.
    ///
    /// ```
    /// use teeoracle::demo::{Chunk, Demo};
    /// let bytes = std::fs::read("corpus/demo/synthetic/minimal.demo")?;
    /// let (demo, offsets) = Demo::decode(&bytes)?;
    /// assert_eq!(demo.header.version, 6);
    /// let first = &demo.chunks[0];
    /// assert!(matches!(first, Chunk::Tick { tick: 100, keyframe: true, .. }), "{first:?}");
    /// assert_eq!(offsets[0], 484);
    ///
    /// // Not a demo: the error names the byte and what was expected.
    /// let err = Demo::decode(b"TWDEMO\0\x02").unwrap_err();
    /// assert_eq!(err.to_string(), "at byte 0 (0x0): reading demo.header: \
    ///     unexpected end of input: expected 176 more byte(s), 8 available");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode(bytes: &'a [u8]) -> Result<(Demo<'a>, ChunkOffsets), DecodeError> {
        let (demo, offsets) = Demo::decode_partial(bytes)?;
        match demo.damage {
            Some(d) => Err(d.error),
            None => Ok((demo, offsets)),
        }
    }

    /// [`Demo::decode`], keeping everything before a damaged chunk: the
    /// chunks read so far, and the damage in [`Demo::damage`] (its error
    /// and the bytes from the chunk on). Fails only on a fault before the
    /// chunks (header, timeline markers, map).
    ///
    /// ```
    /// use teeoracle::demo::Demo;
    /// let bytes = std::fs::read("corpus/demo/malformed/tick_out_of_range_at_201.demo")?;
    /// let (demo, _) = Demo::decode_partial(&bytes)?;
    /// let damage = demo.damage.as_ref().expect("a damaged tick marker");
    /// assert_eq!(demo.chunks.len(), 400); // 200 ticks, each with its snapshot
    /// assert_eq!(damage.error.tick, Some(200));
    /// let whole = Demo::decode(&bytes);
    /// assert!(whole.is_err(), "{whole:?}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_partial(bytes: &'a [u8]) -> Result<(Demo<'a>, ChunkOffsets), DecodeError> {
        let mut offsets = Vec::new();
        let demo = Demo::read(&mut Reader::new(bytes, Mode::Lenient), &mut offsets)?;
        Ok((demo, offsets))
    }

    fn read(r: &mut Reader<'a>, offsets: &mut ChunkOffsets) -> Result<Demo<'a>, DecodeError> {
        let Prefix {
            header,
            timeline,
            map_sha256,
            map,
        } = read_prefix(r)?;
        let version = header.version;
        let mut chunks = Vec::new();
        let mut ctx = ChunkContext {
            version,
            tick: None,
        };
        let mut scratch = chunk::Scratch::default();
        let (mut truncated, mut damage) = (None, None);
        while r.remaining() > 0 {
            let start = *r;
            match Chunk::read(r, ctx, &mut scratch) {
                Ok(chunk) => {
                    offsets.push(start.offset());
                    ctx.tick = chunk.tick_after(ctx.tick);
                    chunks.push(chunk);
                }
                Err(e) if e.is_eof() => {
                    *r = start;
                    truncated = Some(r.rest());
                    break;
                }
                Err(error) => {
                    *r = start;
                    let rest = r.rest();
                    damage = Some(Damage { error, rest });
                    break;
                }
            }
        }
        Ok(Demo {
            header,
            timeline,
            map_sha256,
            map,
            chunks,
            truncated,
            damage,
        })
    }

    /// What the header says.
    pub fn info(&self) -> HeaderInfo {
        HeaderInfo::of(
            &self.header,
            self.timeline.as_ref(),
            self.map_sha256.as_ref(),
        )
    }

    /// `Some(seconds)` if the recorder was never stopped: the header is
    /// as `Start` wrote it (length 0, no timeline markers) though its tick
    /// markers span `seconds` (at least one), which `Stop` would have
    /// written. DDNet 16.4 and Teeworlds 0.7.5 servers leave such files
    /// at shutdown; a demo shorter than a second cannot be told apart and
    /// is taken as stopped.
    pub fn unfinished(&self) -> Option<u32> {
        let mut ticks = self.chunks.iter().filter_map(|c| match c {
            Chunk::Tick { tick, .. } => Some(*tick),
            Chunk::Data { .. } => None,
        });
        let first = ticks.next()?;
        let last = ticks.next_back().unwrap_or(first);
        unfinished(&self.header, self.timeline.as_ref(), first, last)
    }

    /// The item size table the demo's net version uses (0.7 demos use
    /// 0.7's; everything else DDNet's 0.6 table).
    pub fn item_sizes(&self) -> crate::snapshot::ItemSizes {
        item_sizes(&self.header)
    }

    /// How many chunk payloads are kept as they were: those that do not
    /// decode, and those no writer gives back from their ints.
    pub fn verbatim_payloads(&self) -> usize {
        self.chunks
            .iter()
            .filter(|c| {
                matches!(
                    c,
                    Chunk::Data {
                        payload: Payload::Verbatim { .. } | Payload::Undecodable { .. },
                        ..
                    }
                )
            })
            .count()
    }
}

impl<'a> Codec<'a> for Demo<'a> {
    /// Reads a whole demo, as [`Demo::decode`] does (without the offsets).
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let demo = Demo::read(r, &mut Vec::new())?;
        match demo.damage {
            Some(d) => Err(d.error),
            None => Ok(demo),
        }
    }

    /// Writes the demo back: every payload compressed from its ints by its
    /// writer's Huffman flavour (nothing is decoded here).
    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        self.header.encode(out, ());
        if let Some(t) = &self.timeline {
            t.encode(out, ());
        }
        if let Some(s) = &self.map_sha256 {
            s.encode(out, ());
        }
        out.extend_from_slice(self.map);
        let (mut varints, mut payload) = (Vec::new(), Vec::new());
        for c in &self.chunks {
            c.write(&mut varints, &mut payload, out);
        }
        out.extend(self.truncated.iter().copied().flatten());
        out.extend(self.damage.iter().flat_map(|d| d.rest));
    }
}

/// What comes before the chunks.
pub(crate) struct Prefix<'a> {
    pub(crate) header: Header,
    pub(crate) timeline: Option<Timeline>,
    pub(crate) map_sha256: Option<MapSha256>,
    pub(crate) map: &'a [u8],
}

/// Reads what comes before the chunks, each part through its [`Codec`]
/// (for [`Demo::decode`] and [`Events::new`]).
fn read_prefix<'a>(r: &mut Reader<'a>) -> Result<Prefix<'a>, DecodeError> {
    let (header, timeline, map_sha256) = read_before_map(r)?;
    let map = r.take(header.map_size as usize, "demo.map")?;
    Ok(Prefix {
        header,
        timeline,
        map_sha256,
        map,
    })
}

/// The most bytes that come before the map: the header, the timeline
/// markers and the SHA-256 item (its UUID and the hash).
const MAX_BEFORE_MAP: usize = HEADER_LEN + TIMELINE_LEN + 16 + 32;

/// [`read_prefix`] up to the map.
fn read_before_map(
    r: &mut Reader<'_>,
) -> Result<(Header, Option<Timeline>, Option<MapSha256>), DecodeError> {
    let header = Header::decode(r, ())?;
    let version = header.version;
    let timeline = match version >= 4 {
        true => Some(Timeline::decode(r, ())?),
        false => None,
    };
    // DDNet reads the item when its UUID is there; anything else is the
    // map.
    let map_sha256 = match version >= 6 && MapSha256::next_in(r) {
        true => Some(MapSha256::decode(r, ())?),
        false => None,
    };
    Ok((header, timeline, map_sha256))
}

/// True if the header's length and timeline markers are as `Start` wrote
/// them: the recorder was not stopped (or stopped within a second).
pub(crate) fn as_started(header: &Header, timeline: Option<&Timeline>) -> bool {
    header.length == 0 && timeline.is_none_or(|t| t.count == 0)
}

/// [`Demo::unfinished`] for a demo whose tick markers run from `first` to
/// `last`.
pub(crate) fn unfinished(
    header: &Header,
    timeline: Option<&Timeline>,
    first: i32,
    last: i32,
) -> Option<u32> {
    let length = recorder::stop_length(first, last);
    (as_started(header, timeline) && length != 0).then_some(length)
}

/// The item size table of a demo with this header.
fn item_sizes(header: &Header) -> crate::snapshot::ItemSizes {
    if header.is_07() {
        crate::snapshot::ItemSizes::teeworlds_07()
    } else {
        crate::snapshot::ItemSizes::ddnet_06()
    }
}

/// A message's bytes from its payload's ints (little-endian, as DDNet
/// stores them), so they keep their zero padding to 4 bytes.
pub fn payload_bytes(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// True if `bytes` start with the demo magic.
pub fn is_demo(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}
