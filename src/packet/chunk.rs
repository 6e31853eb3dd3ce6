//! Chunks inside a connection packet's payload.
//!
//! 0.6 header (`CNetChunkHeader`, split 4): `b0 = flags << 6 | size >> 4`,
//! `b1 = size & 0x0f | seq >> 2 & 0xf0`, `b2 = seq & 0xff` (vital only): the
//! sequence bits 6-7 are stored twice and the reader ORs them. 0.7 (split
//! 6): `b0 = flags << 6 | size >> 6`, `b1 = size & 0x3f | seq >> 2 & 0xc0`,
//! `b2 = seq & 0xff`. The high sequence bits are kept exactly as stored, so
//! headers whose copies disagree re-encode to the same bytes.

use super::Version;
use crate::codec::{Codec, DecodeError, Reader};
use serde::Serialize;

/// Chunk flag: the chunk is vital (reliable, sequenced).
pub const CHUNK_VITAL: u8 = 1;
/// Chunk flag: the chunk is a resend.
pub const CHUNK_RESEND: u8 = 2;

/// A chunk header with the sequence bits as they were on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkHeader {
    /// `CHUNK_VITAL | CHUNK_RESEND` bits.
    pub flags: u8,
    /// Bytes of chunk data.
    pub size: u16,
    /// High sequence bits from the second byte (0.6: 4 bits, of which the
    /// low 2 repeat bits 6-7; 0.7: 2 bits).
    pub seq_high: u8,
    /// Low sequence byte (vital chunks only).
    pub seq_low: Option<u8>,
}

impl ChunkHeader {
    /// A canonical header.
    pub fn new(version: Version, flags: u8, size: u16, seq: Option<u16>) -> ChunkHeader {
        let shift = match version {
            Version::V06 => 4,
            Version::V07 => 6,
        };
        ChunkHeader {
            flags,
            size,
            seq_high: seq.map_or(0, |s| ((s >> 2) as u8) >> shift),
            seq_low: seq.map(|s| s as u8),
        }
    }

    /// True for vital chunks.
    pub fn vital(&self) -> bool {
        self.flags & CHUNK_VITAL != 0
    }

    /// The sequence number as the reader computes it (bits ORed).
    pub fn seq(&self, version: Version) -> Option<u16> {
        let shift = match version {
            Version::V06 => 4,
            Version::V07 => 6,
        };
        self.seq_low
            .map(|low| ((u16::from(self.seq_high) << shift) << 2) | u16::from(low))
    }

    /// True if the header is what DDNet's packer writes for its fields.
    pub fn is_canonical(&self, version: Version) -> bool {
        *self == ChunkHeader::new(version, self.flags, self.size, self.seq(version))
            || (!self.vital() && self.seq_high == 0 && self.seq_low.is_none())
    }
}

impl<'a> Codec<'a, Version> for ChunkHeader {
    fn decode(r: &mut Reader<'a>, version: Version) -> Result<Self, DecodeError> {
        let b0 = r.u8("payload.chunk.header")?;
        let b1 = r.u8("payload.chunk.header")?;
        let flags = b0 >> 6;
        let (size, seq_high) = match version {
            Version::V06 => ((u16::from(b0 & 0x3f) << 4) | u16::from(b1 & 0x0f), b1 >> 4),
            Version::V07 => ((u16::from(b0 & 0x3f) << 6) | u16::from(b1 & 0x3f), b1 >> 6),
        };
        let seq_low = if flags & CHUNK_VITAL != 0 {
            Some(r.u8("payload.chunk.header.seq")?)
        } else {
            None
        };
        Ok(ChunkHeader {
            flags,
            size,
            seq_high,
            seq_low,
        })
    }

    fn encode(&self, out: &mut Vec<u8>, version: Version) {
        let (b0, b1) = match version {
            Version::V06 => (
                self.flags << 6 | ((self.size >> 4) as u8 & 0x3f),
                (self.size as u8 & 0x0f) | self.seq_high << 4,
            ),
            Version::V07 => (
                self.flags << 6 | ((self.size >> 6) as u8 & 0x3f),
                (self.size as u8 & 0x3f) | self.seq_high << 6,
            ),
        };
        out.extend_from_slice(&[b0, b1]);
        out.extend(self.seq_low);
    }
}

/// One chunk: header and data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Chunk<'a> {
    /// The header as on the wire.
    pub header: ChunkHeader,
    /// The chunk's data (`header.size` bytes): one message.
    #[serde(serialize_with = "crate::packet::hex_bytes")]
    pub data: &'a [u8],
}

impl<'a> Codec<'a, Version> for Chunk<'a> {
    fn decode(r: &mut Reader<'a>, version: Version) -> Result<Self, DecodeError> {
        let header = ChunkHeader::decode(r, version)?;
        let data = r.take(header.size.into(), "payload.chunk.data")?;
        Ok(Chunk { header, data })
    }

    fn encode(&self, out: &mut Vec<u8>, version: Version) {
        self.header.encode(out, version);
        out.extend_from_slice(self.data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{Mode, decode_exact, encode_to_vec};
    use crate::testing::{codec_law, qc, strict_law};

    // DDNet chunk_header_test / the spec's golden values (0.6, vital, size 0).
    #[test]
    fn ddnet_sequence_golden_values() {
        for (seq, hex) in [
            (255, "4030ff"),
            (126, "40107e"),
            (64, "401040"),
            (63, "40003f"),
            (5, "400005"),
        ] {
            let h = ChunkHeader::new(Version::V06, CHUNK_VITAL, 0, Some(seq));
            assert_eq!(
                hex::encode(encode_to_vec(&h, Version::V06)),
                hex,
                "seq {seq}"
            );
            let back: ChunkHeader =
                decode_exact(&hex::decode(hex).unwrap(), Mode::Strict, Version::V06).unwrap();
            assert_eq!(back.seq(Version::V06), Some(seq));
        }
    }

    #[test]
    fn disagreeing_sequence_copies_are_kept() {
        // b1 high nibble says bits 6-9 = 0b0001 but b2 has bit 7 set: the
        // reader ORs them; the bytes re-encode as they were.
        let bytes = [0x40, 0x10, 0x80];
        let h: ChunkHeader = decode_exact(&bytes, Mode::Strict, Version::V06).unwrap();
        assert_eq!(h.seq(Version::V06), Some(0xC0));
        assert!(!h.is_canonical(Version::V06), "{h:?}");
        assert_eq!(encode_to_vec(&h, Version::V06), bytes);
    }

    #[test]
    fn prop_chunk_headers_round_trip() {
        fn prop(flags: u8, size: u16, seq: u16, v7: bool) -> bool {
            let version = if v7 { Version::V07 } else { Version::V06 };
            let max = if v7 { 0xfff } else { 0x3ff };
            let flags = flags & 3;
            let seq = (flags & CHUNK_VITAL != 0).then_some(seq & 0x3ff);
            let h = ChunkHeader::new(version, flags, size & max, seq);
            codec_law(&h, version, &mut Vec::new()).is_ok()
                && h.seq(version) == seq
                && h.size == size & max
                && h.is_canonical(version)
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(u8, u16, u16, bool) -> bool);
    }

    #[test]
    fn prop_arbitrary_header_bytes_round_trip() {
        fn prop(bytes: Vec<u8>, v7: bool) -> bool {
            let version = if v7 { Version::V07 } else { Version::V06 };
            // Every header that decodes re-encodes to its bytes; only a
            // cut header fails.
            let mut r = Reader::new(&bytes, Mode::Strict);
            match ChunkHeader::decode(&mut r, version) {
                Ok(_) => strict_law::<ChunkHeader, Version>(r.since(0), version).is_ok(),
                Err(e) => e.is_eof(),
            }
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(Vec<u8>, bool) -> bool);
    }
}
