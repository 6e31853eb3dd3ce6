//! DDNet's demo recorder (`CDemoRecorder`): a demo written from snapshots
//! and messages as DDNet writes it, for synthetic test files.
//!
//! The rules, as in DDNet: a keyframe (absolute tick marker with the
//! keyframe flag, then the whole snapshot) for the first snapshot and when
//! more than 5 seconds (250 ticks) passed since the last keyframe; else a
//! tick marker and the delta against the last snapshot written, or only
//! the marker when nothing changed. A tick marker is relative when it is
//! not the first, not a keyframe and at most 31 ticks (63 before version
//! 5) after the previous one. Data is zero-padded to whole int32s, packed
//! as varints and Huffman-compressed. The length and timeline markers are
//! filled in by [`DemoRecorder::finish`], as `Stop` does.
//!
//! DDNet builds the delta from the snapshot as the server built it; the
//! demo player's snapshot puts new items last. Fed with rebuilt
//! snapshots, the recorder gives the same ticks, keyframes and messages,
//! but a delta's updates can come in another order.

use super::chunk::write_data_chunk;
use super::{
    Chunk, ChunkKind, FixedStr, Header, MAX_TIMELINE_MARKERS, MapSha256, Payload, SizeForm,
    Timeline,
};
use crate::codec::Codec;
use crate::huffman::Flavor;
use crate::snapshot::{DeltaCodec, ItemSizes, Snapshot};

/// Ticks per second.
const TICK_SPEED: i32 = 50;
/// A keyframe when more ticks than this passed since the last one.
const KEYFRAME_INTERVAL: i32 = TICK_SPEED * 5;
/// DDNet's chunk buffers: larger data is not written.
const MAX_CHUNK: usize = 64 * 1024;

/// The length `Stop` writes: whole seconds from the first tick marker to
/// the last (wrapping, as DDNet's ints do).
pub(crate) fn stop_length(first: i32, last: i32) -> u32 {
    (last.wrapping_sub(first) / TICK_SPEED) as u32
}

/// What `CDemoRecorder::Start` writes into the header.
#[derive(Clone, Debug)]
pub struct DemoStart<'a> {
    /// 6 for DDNet; 5 (Teeworlds 0.7) and 3 or 4 (0.6) change the tick
    /// markers and what follows the header.
    pub version: u8,
    /// The game's network version.
    pub net_version: &'a str,
    /// The map's name.
    pub map_name: &'a str,
    /// CRC-32 of the map file.
    pub map_crc: u32,
    /// Written after the timeline markers from version 6 on.
    pub map_sha256: Option<[u8; 32]>,
    /// The embedded map (empty for a demo without map data).
    pub map: &'a [u8],
    /// `"server"` or `"client"`.
    pub kind: &'a str,
    /// `str_timestamp`'s form, e.g. `2024-05-01_12-00-00`; passed in, so
    /// the output does not depend on the clock.
    pub timestamp: &'a str,
    /// How the chunks' Huffman ends: DDNet >= 20.0 or older writers.
    pub flavor: Flavor,
}

/// Writes a demo into memory as DDNet's `CDemoRecorder` does;
/// [`DemoRecorder::finish`] returns the file. The header, tick markers
/// and payloads are the demo's wire types, encoded by their [`Codec`].
///
/// ```
/// use teeoracle::demo::{Chunk, Demo, DemoRecorder, DemoStart};
/// use teeoracle::huffman::Flavor;
/// use teeoracle::snapshot::{ItemSizes, Snapshot};
/// let start = DemoStart {
///     version: 6,
///     net_version: "0.6 626fce9a778df4d4",
///     map_name: "dm1",
///     map_crc: 0xf2159e6e,
///     map_sha256: None,
///     map: &[],
///     kind: "server",
///     timestamp: "2024-05-01_12-00-00",
///     flavor: Flavor::Ddnet,
/// };
/// let mut recorder = DemoRecorder::new(&start, ItemSizes::ddnet_06());
/// let mut snap = Snapshot::new();
/// snap.push(9 << 16, &[0; 22]); // a Character
/// recorder.record_snapshot(100, &snap);
/// recorder.record_message(&[0x06, 0x00, 0x40, b'h', b'i', 0]);
/// let bytes = recorder.finish();
///
/// let (demo, _) = Demo::decode(&bytes)?;
/// let first = &demo.chunks[0];
/// assert!(matches!(first, Chunk::Tick { tick: 100, keyframe: true, .. }), "{first:?}");
/// assert_eq!(demo.chunks.len(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct DemoRecorder {
    out: Vec<u8>,
    header: Header,
    timeline: Option<Timeline>,
    flavor: Flavor,
    codec: DeltaCodec,
    /// As in DDNet: -1 for "none yet" (a first tick below 0 stays unset).
    last_keyframe: i32,
    last_tick_marker: i32,
    first_tick: i32,
    /// The last snapshot written (keyframe or delta), the next delta's base.
    last: Snapshot,
    markers: Vec<i32>,
    // Scratch, reused per chunk.
    ints: Vec<i32>,
    varints: Vec<u8>,
    payload: Vec<u8>,
}

impl DemoRecorder {
    /// `Start`: the header (length 0 for now), the zeroed timeline markers,
    /// the SHA-256 item and the map. A map too large for the header's
    /// 32-bit size is left out, with size 0, as DDNet does.
    pub fn new(start: &DemoStart<'_>, sizes: ItemSizes) -> DemoRecorder {
        let map = match u32::try_from(start.map.len()) {
            Ok(_) => start.map,
            Err(_) => &[],
        };
        let header = Header {
            version: start.version,
            net_version: FixedStr::new(start.net_version),
            map_name: FixedStr::new(start.map_name),
            map_size: map.len() as u32,
            map_crc: start.map_crc,
            kind: FixedStr::new(start.kind),
            length: 0,
            timestamp: FixedStr::new(start.timestamp),
        };
        let timeline = (start.version >= 4).then(Timeline::default);
        let mut out = Vec::new();
        header.encode(&mut out, ());
        if let Some(t) = &timeline {
            t.encode(&mut out, ());
        }
        if let (Some(sha), true) = (start.map_sha256, start.version >= 6) {
            MapSha256(sha).encode(&mut out, ());
        }
        out.extend_from_slice(map);
        DemoRecorder {
            out,
            header,
            timeline,
            flavor: start.flavor,
            codec: DeltaCodec::new(sizes),
            last_keyframe: -1,
            last_tick_marker: -1,
            first_tick: -1,
            last: Snapshot::new(),
            markers: Vec::new(),
            ints: Vec::new(),
            varints: Vec::new(),
            payload: Vec::new(),
        }
    }

    /// `RecordSnapshot`: a keyframe, a delta, or only a tick marker.
    pub fn record_snapshot(&mut self, tick: i32, snap: &Snapshot) {
        if self.last_keyframe == -1 || tick.wrapping_sub(self.last_keyframe) > KEYFRAME_INTERVAL {
            self.tick_marker(tick, true);
            self.ints.clear();
            snap.write_ints(&mut self.ints);
            self.chunk(ChunkKind::Snapshot);
            self.last_keyframe = tick;
            self.last.clone_from(snap);
        } else {
            self.tick_marker(tick, false);
            self.codec.create(&self.last, snap, &mut self.ints);
            if !self.ints.is_empty() {
                self.chunk(ChunkKind::Delta);
                self.last.clone_from(snap);
            }
        }
    }

    /// `RecordMessage`: a message's bytes (message id and fields, packed).
    /// False when DDNet would drop it (more than 64 KiB).
    pub fn record_message(&mut self, data: &[u8]) -> bool {
        // Zero-padded to whole int32s, read little-endian.
        self.ints.clear();
        self.ints.extend(data.chunks(4).map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            i32::from_le_bytes(b)
        }));
        self.chunk(ChunkKind::Message)
    }

    /// `AddDemoMarker(tick)`: at most 64, at least a second apart. False
    /// if DDNet refuses it.
    pub fn add_marker(&mut self, tick: i32) -> bool {
        let too_close = self
            .markers
            .last()
            .is_some_and(|&m| tick.wrapping_sub(m) < TICK_SPEED);
        if tick < 0 || self.markers.len() >= MAX_TIMELINE_MARKERS || too_close {
            return false;
        }
        self.markers.push(tick);
        true
    }

    /// What is in the file so far: a recorder that never stops (a crashed
    /// server) leaves this, with length 0 and no timeline markers.
    pub fn written(&self) -> &[u8] {
        &self.out
    }

    /// Changes the header's `timestamp` (written by [`Self::finish`]).
    pub fn set_timestamp(&mut self, timestamp: &str) {
        self.header.timestamp = super::FixedStr::new(timestamp);
    }

    /// `Stop`: the length in seconds and the timeline markers go into the
    /// header; returns the file.
    pub fn finish(mut self) -> Vec<u8> {
        self.header.length = stop_length(self.first_tick, self.last_tick_marker);
        let mut prefix = Vec::new();
        self.header.encode(&mut prefix, ());
        if let Some(t) = &mut self.timeline {
            t.count = self.markers.len() as i32;
            t.slots[..self.markers.len()].copy_from_slice(&self.markers);
            t.encode(&mut prefix, ());
        }
        self.out[..prefix.len()].copy_from_slice(&prefix);
        self.out
    }

    /// `WriteTickMarker`: absolute for the first marker, a keyframe, or
    /// more than 31 ticks on (63 before version 5); else the difference in
    /// the marker byte. As in DDNet, a tick that goes backwards (or before
    /// version 5 repeats) is not caught: its low bits land in the byte, and
    /// such a file does not read back as written.
    fn tick_marker(&mut self, tick: i32, keyframe: bool) {
        let (limit, flag) = match self.header.version >= 5 {
            true => (0x1f, 0x20),
            false => (0x3f, 0),
        };
        let d = tick.wrapping_sub(self.last_tick_marker);
        let marker = if self.last_tick_marker == -1 || d > limit || keyframe {
            Chunk::Tick {
                byte: if keyframe { 0xc0 } else { 0x80 },
                tick,
                keyframe,
                delta: None,
            }
        } else {
            Chunk::Tick {
                byte: (0x80 | flag | d) as u8,
                tick,
                keyframe,
                delta: Some(d as u8),
            }
        };
        marker.write(&mut self.varints, &mut self.payload, &mut self.out);
        self.last_tick_marker = tick;
        if self.first_tick < 0 {
            self.first_tick = tick;
        }
    }

    /// `Write`: `self.ints` as a chunk of `kind`, its size in the smallest
    /// form. False, and nothing written, where DDNet's 64 KiB buffers
    /// would not hold it.
    fn chunk(&mut self, kind: ChunkKind) -> bool {
        let payload = Payload::new(std::mem::take(&mut self.ints), self.flavor);
        self.payload.clear();
        payload.write(&mut self.varints, &mut self.payload);
        if let Payload::Ints { ints, .. } = payload {
            self.ints = ints;
        }
        let fits = |n: usize| n <= MAX_CHUNK;
        if !fits(4 * self.ints.len()) || !fits(self.varints.len()) || !fits(self.payload.len()) {
            return false;
        }
        let form = SizeForm::smallest(self.payload.len());
        write_data_chunk(&mut self.out, kind, form, &self.payload);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start<'a>(map_name: &'a str) -> DemoStart<'a> {
        DemoStart {
            version: 6,
            net_version: "0.6 626fce9a778df4d4",
            map_name,
            map_crc: 0,
            map_sha256: None,
            map: &[],
            kind: "server",
            timestamp: "1970-01-01_00-00-00",
            flavor: Flavor::Ddnet,
        }
    }

    fn map_name_field(name: &str) -> Vec<u8> {
        let r = DemoRecorder::new(&start(name), ItemSizes::ddnet_06());
        r.finish()[72..136].to_vec()
    }

    #[test]
    fn header_strings_are_copied_as_str_copy_does() {
        // 32 two-byte characters do not fit 63 bytes: the cut one is left
        // out whole, so the field stays valid UTF-8 (DDNet checks that).
        let field = map_name_field(&"é".repeat(32));
        assert_eq!(&field[..62], "é".repeat(31).as_bytes());
        assert_eq!(&field[62..], [0, 0]);
        // The copy stops at a NUL.
        assert_eq!(&map_name_field("ab\0cd")[..5], b"ab\0\0\0");
    }

    #[test]
    fn tick_markers_follow_ddnet_even_backwards() {
        let mut r = DemoRecorder::new(&start("m"), ItemSizes::ddnet_06());
        let at = r.written().len();
        let snap = Snapshot::new();
        r.record_snapshot(100, &snap); // keyframe: absolute, flagged
        r.record_snapshot(131, &snap); // 31 on: relative
        r.record_snapshot(163, &snap); // 32 on: absolute
        r.record_snapshot(162, &snap); // back 1: DDNet writes 0xA0 | -1
        let bytes = r.written()[at..].to_vec();
        assert_eq!(&bytes[..5], [0xc0, 0, 0, 0, 100]);
        // Then the empty snapshot's chunk (type 1, size inline); the
        // empty deltas after it write no chunk.
        assert_eq!(bytes[5] >> 5, 1);
        let after = 5 + 1 + usize::from(bytes[5] & 0x1f);
        assert_eq!(&bytes[after..], [0xa0 | 31, 0x80, 0, 0, 0, 163, 0xff]);
    }
}
