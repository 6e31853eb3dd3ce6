//! What comes before a demo's chunks: the fixed header, the timeline
//! markers (versions 4 and later) and the map's SHA-256 item (version 6).

use super::SHA256_UUID;
use crate::bytes::Text;
use crate::codec::{Codec, DecodeError, ErrorKind, Reader};
use serde::Serialize;
use std::fmt;

/// `"TWDEMO\0"`.
pub const MAGIC: &[u8; 7] = b"TWDEMO\0";
/// Bytes of the fixed header.
pub const HEADER_LEN: usize = 176;
/// Bytes of the timeline markers block (versions >= 4).
pub const TIMELINE_LEN: usize = 4 + 4 * MAX_TIMELINE_MARKERS;
/// Most timeline markers a demo holds.
pub const MAX_TIMELINE_MARKERS: usize = 64;
/// The versions read (DDNet writes 6; Teeworlds 0.7 writes 5, 0.6 writes
/// 3 and 4).
pub const VERSIONS: std::ops::RangeInclusive<u8> = 3..=6;

/// A fixed-size string field of the header: the text runs up to the first
/// NUL, and the bytes after it are kept as they are (DDNet's recorder
/// zeroes them; other writers may not).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FixedStr<const N: usize>(pub [u8; N]);

impl<const N: usize> FixedStr<N> {
    /// `s` copied into a zeroed field as DDNet's `str_copy` does: up to
    /// its first NUL, at most `N - 1` bytes, and a UTF-8 character cut by
    /// that limit left out (`str_utf8_fix_truncation`).
    pub fn new(s: &str) -> Self {
        let s = s.split('\0').next().unwrap_or_default();
        let mut n = s.len().min(N.saturating_sub(1));
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        let mut field = [0; N];
        field[..n].copy_from_slice(&s.as_bytes()[..n]);
        FixedStr(field)
    }

    /// The bytes before the first NUL (all of them if there is none).
    pub fn bytes(&self) -> &[u8] {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(N);
        &self.0[..end]
    }

    /// The text, with invalid UTF-8 replaced (for display).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(self.bytes()).into_owned()
    }

    /// Why DDNet's demo player refuses this field (`CDemoHeader::Valid`:
    /// it must hold a NUL and its text must be UTF-8), or `None`.
    pub fn fault(&self) -> Option<FieldFault> {
        if !self.0.contains(&0) {
            Some(FieldFault::NoNul)
        } else {
            std::str::from_utf8(self.bytes())
                .err()
                .map(|e| FieldFault::NotUtf8 {
                    at: e.valid_up_to(),
                })
        }
    }
}

impl<const N: usize> Default for FixedStr<N> {
    fn default() -> Self {
        FixedStr([0; N])
    }
}

/// The text, and the bytes after the NUL when they are not all zero.
impl<const N: usize> fmt::Debug for FixedStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", Text::from(self.bytes()))?;
        let rest = self.0.get(self.bytes().len() + 1..).unwrap_or_default();
        if rest.iter().any(|&b| b != 0) {
            write!(f, " (then hex:{})", hex::encode(rest))?;
        }
        Ok(())
    }
}

/// Why a header string field is not one DDNet's demo player accepts.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum FieldFault {
    /// No NUL in the field: the string does not end.
    NoNul,
    /// The text is not UTF-8 from byte `at` of the field on.
    NotUtf8 {
        /// The first byte that is not UTF-8.
        at: usize,
    },
}

impl fmt::Display for FieldFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldFault::NoNul => write!(f, "expected a NUL-terminated string, found no NUL"),
            FieldFault::NotUtf8 { at } => {
                write!(f, "expected UTF-8 text, found an invalid byte at byte {at}")
            }
        }
    }
}

/// The fixed header (`CDemoHeader`, 176 bytes; numbers big-endian).
///
/// The magic is checked when decoding and written when encoding, so it is
/// not a field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The file format version, [`VERSIONS`].
    pub version: u8,
    /// The game's network version, e.g. `0.6 626fce9a778df4d4`; one
    /// starting with `0.7` makes the demo a Teeworlds 0.7 one.
    pub net_version: FixedStr<64>,
    /// The map's name.
    pub map_name: FixedStr<64>,
    /// Bytes of the embedded map (0: none embedded).
    pub map_size: u32,
    /// CRC-32 of the map file.
    pub map_crc: u32,
    /// `server` or `client`: who recorded it.
    pub kind: FixedStr<8>,
    /// Length in seconds, written when the recording stopped (0 if it
    /// never did).
    pub length: u32,
    /// When the recording started, e.g. `2024-05-01_12-00-00`.
    pub timestamp: FixedStr<20>,
}

/// Byte ranges of the header's fields, for naming a fault.
pub(crate) const HEADER_FIELDS: &[(&str, usize, usize)] = &[
    ("magic", 0, 7),
    ("version", 7, 8),
    ("net_version", 8, 72),
    ("map_name", 72, 136),
    ("map_size", 136, 140),
    ("map_crc", 140, 144),
    ("kind", 144, 152),
    ("length", 152, 156),
    ("timestamp", 156, 176),
];

impl Header {
    /// The string fields with their names and file offsets, for checks.
    pub fn string_fields(&self) -> [(&'static str, u64, Option<FieldFault>); 4] {
        [
            ("net_version", 8, self.net_version.fault()),
            ("map_name", 72, self.map_name.fault()),
            ("kind", 144, self.kind.fault()),
            ("timestamp", 156, self.timestamp.fault()),
        ]
    }

    /// True for a Teeworlds 0.7 demo (its net version starts with `0.7`).
    pub fn is_07(&self) -> bool {
        self.net_version.bytes().starts_with(b"0.7")
    }
}

fn be_u32(bytes: &[u8]) -> u32 {
    u32::from_be_bytes(bytes.try_into().unwrap_or_default())
}

impl<'a> Codec<'a> for Header {
    /// Reads the header; fails on a wrong magic or a version outside
    /// [`VERSIONS`] (the demo's layout depends on it).
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let at = r.offset();
        let raw: [u8; HEADER_LEN] = r.take_array("demo.header")?;
        if raw[..7] != MAGIC[..] {
            return Err(DecodeError::new(at, "demo.magic", ErrorKind::BadMagic));
        }
        let version = raw[7];
        if !VERSIONS.contains(&version) {
            return Err(DecodeError::new(
                at + 7,
                "demo.version",
                ErrorKind::UnsupportedVersion {
                    found: Some(version.into()),
                    supported: "3 to 6",
                },
            ));
        }
        let field = |from: usize| raw[from..].first_chunk().copied().unwrap_or([0; 64]);
        Ok(Header {
            version,
            net_version: FixedStr(field(8)),
            map_name: FixedStr(field(72)),
            map_size: be_u32(&raw[136..140]),
            map_crc: be_u32(&raw[140..144]),
            kind: FixedStr(raw[144..].first_chunk().copied().unwrap_or_default()),
            length: be_u32(&raw[152..156]),
            timestamp: FixedStr(raw[156..].first_chunk().copied().unwrap_or_default()),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        out.reserve(HEADER_LEN);
        out.extend_from_slice(MAGIC);
        out.push(self.version);
        out.extend_from_slice(&self.net_version.0);
        out.extend_from_slice(&self.map_name.0);
        out.extend_from_slice(&self.map_size.to_be_bytes());
        out.extend_from_slice(&self.map_crc.to_be_bytes());
        out.extend_from_slice(&self.kind.0);
        out.extend_from_slice(&self.length.to_be_bytes());
        out.extend_from_slice(&self.timestamp.0);
    }
}

/// The timeline markers block (`CTimelineMarkers`): a count and 64 tick
/// slots, big-endian. Slots past the count are kept as they are (older
/// writers left them uninitialised; DDNet zeroes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// The count as written; DDNet's player clamps it to `0..=64`.
    pub count: i32,
    /// The marker ticks.
    pub slots: [i32; MAX_TIMELINE_MARKERS],
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline {
            count: 0,
            slots: [0; MAX_TIMELINE_MARKERS],
        }
    }
}

impl Timeline {
    /// The markers DDNet's player uses: the first `count` slots, the
    /// count clamped to `0..=64`.
    pub fn markers(&self) -> &[i32] {
        &self.slots[..self.count.clamp(0, MAX_TIMELINE_MARKERS as i32) as usize]
    }
}

impl<'a> Codec<'a> for Timeline {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let raw = r.take(TIMELINE_LEN, "demo.timeline_markers")?;
        let mut words = raw
            .chunks_exact(4)
            .map(|w| i32::from_be_bytes(w.try_into().unwrap_or_default()));
        let count = words.next().unwrap_or_default();
        let mut slots = [0; MAX_TIMELINE_MARKERS];
        for (slot, w) in slots.iter_mut().zip(words) {
            *slot = w;
        }
        Ok(Timeline { count, slots })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        out.extend_from_slice(&self.count.to_be_bytes());
        for s in &self.slots {
            out.extend_from_slice(&s.to_be_bytes());
        }
    }
}

/// The SHA-256 item (`demoitem-sha256@ddnet.tw`, version 6): its UUID,
/// then the map file's SHA-256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapSha256(pub [u8; 32]);

impl MapSha256 {
    /// True if `r` is at the item (its UUID follows).
    pub(crate) fn next_in(r: &Reader<'_>) -> bool {
        r.peek_array::<16>() == Some(SHA256_UUID.as_bytes())
    }
}

impl<'a> Codec<'a> for MapSha256 {
    /// Reads the item, which must start with its UUID.
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let at = r.offset();
        if !MapSha256::next_in(r) {
            return Err(DecodeError::new(
                at,
                "demo.sha256.uuid",
                ErrorKind::BadMagic,
            ));
        }
        r.skip_peeked(16);
        Ok(MapSha256(r.take_array("demo.sha256")?))
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        out.extend_from_slice(SHA256_UUID.as_bytes());
        out.extend_from_slice(&self.0);
    }
}

impl fmt::Display for MapSha256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

/// What the header says, for display and JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderInfo {
    /// The file format version.
    pub version: u8,
    /// The network version (the field's text up to its NUL).
    pub net_version: Text<'static>,
    /// The map's name.
    pub map_name: Text<'static>,
    /// Bytes of the embedded map.
    pub map_size: u32,
    /// The map's CRC-32, 8 lowercase hex digits.
    pub map_crc: String,
    /// Who recorded it: `server` or `client` (the header's type field;
    /// not called `kind`, which every JSON line has).
    pub recorded_by: Text<'static>,
    /// Length in seconds.
    pub length_seconds: u32,
    /// When the recording started.
    pub timestamp: Text<'static>,
    /// The timeline marker ticks DDNet's player uses.
    pub timeline_markers: Vec<i32>,
    /// The SHA-256 item's digest, 64 lowercase hex digits (version 6).
    pub map_sha256: Option<String>,
}

impl HeaderInfo {
    /// What these parts of a demo say.
    pub fn of(h: &Header, timeline: Option<&Timeline>, map_sha256: Option<&MapSha256>) -> Self {
        let text = |b: &[u8]| Text::from(b.to_vec());
        HeaderInfo {
            version: h.version,
            net_version: text(h.net_version.bytes()),
            map_name: text(h.map_name.bytes()),
            map_size: h.map_size,
            map_crc: format!("{:08x}", h.map_crc),
            recorded_by: text(h.kind.bytes()),
            length_seconds: h.length,
            timestamp: text(h.timestamp.bytes()),
            timeline_markers: timeline.map_or(Vec::new(), |t| t.markers().to_vec()),
            map_sha256: map_sha256.map(|s| s.to_string()),
        }
    }
}

/// Server ticks per second (DDNet's `SERVER_TICK_SPEED`).
pub const TICKS_PER_SECOND: i64 = 50;

/// The seconds of a clock reading (from 1970-01-01 00:00), from the
/// first 19 characters of a demo's `timestamp` (`2026-11-22_02-28-13`)
/// or a teehistorian header's `start_time` (`2026-11-22T02:28:13+0000`),
/// whose offset is left out: both are the server's local time.
pub fn clock_seconds(text: &str) -> Option<i64> {
    let b = text.as_bytes().get(..19)?;
    let num = |at: usize, len: usize| -> Option<i64> {
        let digits = b.get(at..at + len)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(digits).ok()?.parse().ok()
    };
    let (y, m, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, min, s) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from 1970-01-01 of a Gregorian date (H. Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3_600 + min * 60 + s)
}

/// Whether two demos are of one server session, and what says so: the
/// same map (name, CRC and size), and the same start of the server's
/// tick count by each demo's clock (its `timestamp`, when its recorder
/// started, less its first tick at 50 a second) to 2 s, as `check` pairs
/// a demo with its teehistorian file. `None` when anything is missing
/// or disagrees, or a timestamp is 1970-01-01_00-00-00 (no time).
pub fn one_session(a: &[u8], b: &[u8]) -> Option<String> {
    let start = |bytes: &[u8]| -> Option<(Header, i64, i32)> {
        let mut events = super::Events::new(bytes).ok()?;
        let header = events.header().clone();
        let first = loop {
            match events.next() {
                Ok(Some(e)) if e.tick >= 0 => break e.tick,
                Ok(Some(_)) => continue,
                _ => return None,
            }
        };
        // 1970-01-01_00-00-00 is a writer's "no time", not a clock.
        let at = clock_seconds(&header.timestamp.text()).filter(|&s| s != 0)?;
        Some((header, at * TICKS_PER_SECOND - i64::from(first), first))
    };
    let (ha, sa, fa) = start(a)?;
    let (hb, sb, fb) = start(b)?;
    let same_map =
        ha.map_name == hb.map_name && ha.map_crc == hb.map_crc && ha.map_size == hb.map_size;
    let apart = (sa - sb).abs();
    (same_map && apart <= 2 * TICKS_PER_SECOND).then(|| {
        format!(
            "map {}, recorded from ticks {fa} and {fb} at {} and {}: their sessions began {} s apart by their clocks",
            ha.map_name.text(),
            ha.timestamp.text(),
            hb.timestamp.text(),
            apart / TICKS_PER_SECOND
        )
    })
}

/// `str_timestamp`'s `2026-11-22_02-28-13` of a clock reading in seconds
/// from 1970-01-01 00:00 ([`clock_seconds`]'s inverse).
pub fn clock_text(seconds: i64) -> String {
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // H. Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}_{:02}-{:02}-{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}
