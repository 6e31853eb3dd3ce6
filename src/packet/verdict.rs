//! What the reference implementations do with a datagram: accept it (pass it
//! on to their connection handling), or drop it by a named [`Rule`].
//!
//! [`PacketVerdicts::of`] judges one datagram for DDNet 20.1 (`28baa427`), whose
//! `CNetBase::UnpackPacket` reads both 0.6 and 0.7 ("sixup"), and, when the
//! datagram is read as 0.7, for vanilla Teeworlds 0.7.5, whose
//! `CNetBase::UnpackPacket` checks different things. Only what one datagram
//! decides is judged here: DDNet's later drops that need connection state
//! (the 0.6 security token at the end of the payload, the 0.7 header token,
//! an ack outside the sent range, a server refusing to decompress for a
//! peer without a slot) are not.
//!
//! How DDNet 20.1 reads a datagram:
//!
//! - Fewer than 3 or more than 1400 bytes: dropped. (More than 1400 never
//!   arrives as sent: the receive buffer holds 1400 bytes.)
//! - Connectionless (byte 0 bit `0x20`): 0.7 when `byte0 & 3 == 1`, 0.6
//!   otherwise, whatever the peer speaks; dropped if shorter than its
//!   header (9 bytes, 6).
//! - Connection-oriented: 0.7 when the peer is known to speak it or when
//!   0.6's unused flag (byte 0 bit `0x04`, 0.7's control flag) is set;
//!   then dropped if shorter than 7 bytes. 0.7's flags are mapped to 0.6's
//!   (other 0.7 bits vanish), then `IsValidConnectionOrientedPacket`: no
//!   flag but control, resend and compression; a control packet has 0
//!   chunks, a control byte and no compression; a data packet has a chunk
//!   unless it asks for a resend. A compressed payload must decompress
//!   (a Huffman stream ending with its EOF code) into 1397 bytes.
//!
//! Teeworlds 0.7.5 reads every datagram as 0.7: dropped if shorter than 7
//! or longer than 1400 bytes; a connectionless one if shorter than 9 bytes
//! or its version bits are not 1; a connection one if longer than 1398
//! bytes (its payload buffer holds 1391) or if its compressed payload
//! (control packets too) does not decompress into 1391 bytes. It checks no
//! flags, chunk counts or control bytes. (Its Huffman decoder does not stop
//! when the bits run out mid-code; such a stream is judged here as DDNet's
//! decoder judges it.)
//!
//! ```
//! use teeoracle::packet::{Rule, PacketVerdicts, Version};
//!
//! // A 0.6 control packet without its control byte.
//! let v = PacketVerdicts::of(&[0x10, 0x00, 0x00], Version::V06, None);
//! assert_eq!(v.ddnet.dropped, Some(Rule::ControlWithoutByte));
//! assert_eq!(v.teeworlds_0_7_5, None);
//! ```

use super::{ConnPacket, MAX_PACKET_SIZE, MAX_PAYLOAD, Packet, Version, flags};
use crate::codec::ErrorKind;
use crate::huffman;
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use std::fmt;

/// Teeworlds 0.7.5's payload buffer (`NET_MAX_PAYLOAD`: 1400 less the
/// 9-byte connectionless header).
const MAX_PAYLOAD_0_7_5: usize = MAX_PACKET_SIZE - 9;

/// Why an implementation drops a datagram.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// Fewer than 3 bytes.
    TooShort,
    /// More than 1400 bytes.
    TooLong,
    /// A connection packet read as 0.7 with fewer than 7 bytes (Teeworlds
    /// 0.7.5: any datagram).
    TooShort07,
    /// A connectionless packet shorter than its header.
    ConnlessTooShort,
    /// Teeworlds 0.7.5: connectionless with version bits other than 1.
    ConnlessVersionBits,
    /// Teeworlds 0.7.5: a connection packet over 1398 bytes.
    PayloadTooLong,
    /// Flag bits other than control, resend and compression.
    UnknownFlags,
    /// A control packet announcing chunks.
    ControlWithChunks,
    /// A control packet without its control byte.
    ControlWithoutByte,
    /// A control packet with the compression flag.
    CompressedControl,
    /// A data packet with no chunk and no resend request.
    NoChunks,
    /// A compressed payload that is not a complete Huffman stream.
    DecompressionFailed,
    /// A compressed payload larger than the buffer once decompressed.
    DecompressedTooLong,
}

impl Rule {
    /// Every rule, in the order of this enum.
    pub const ALL: [Rule; 13] = [
        Rule::TooShort,
        Rule::TooLong,
        Rule::TooShort07,
        Rule::ConnlessTooShort,
        Rule::ConnlessVersionBits,
        Rule::PayloadTooLong,
        Rule::UnknownFlags,
        Rule::ControlWithChunks,
        Rule::ControlWithoutByte,
        Rule::CompressedControl,
        Rule::NoChunks,
        Rule::DecompressionFailed,
        Rule::DecompressedTooLong,
    ];

    /// The rule's snake_case code, as in JSON.
    pub fn code(self) -> &'static str {
        match self {
            Rule::TooShort => "too_short",
            Rule::TooLong => "too_long",
            Rule::TooShort07 => "too_short_07",
            Rule::ConnlessTooShort => "connless_too_short",
            Rule::ConnlessVersionBits => "connless_version_bits",
            Rule::PayloadTooLong => "payload_too_long",
            Rule::UnknownFlags => "unknown_flags",
            Rule::ControlWithChunks => "control_with_chunks",
            Rule::ControlWithoutByte => "control_without_byte",
            Rule::CompressedControl => "compressed_control",
            Rule::NoChunks => "no_chunks",
            Rule::DecompressionFailed => "decompression_failed",
            Rule::DecompressedTooLong => "decompressed_too_long",
        }
    }
}

/// As its [`Rule::code`].
impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

/// The rule in a sentence, with the function that applies it.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::TooShort => "shorter than the 3-byte packet header (UnpackPacketFlags)",
            Rule::TooLong => {
                "longer than 1400 bytes (NET_MAX_PACKETSIZE): the receive buffer \
                 holds 1400, so it is never read as sent (net_udp_recv, UnpackPacket)"
            }
            Rule::TooShort07 => {
                "shorter than the 7-byte 0.7 header with its token; DDNet reads a 0.6 \
                 packet with the unused flag bit (byte 0 bit 0x04) as 0.7 (UnpackPacket)"
            }
            Rule::ConnlessTooShort => {
                "connectionless packet shorter than its header, 6 bytes in 0.6 \
                 and 9 in 0.7 (UnpackPacket)"
            }
            Rule::ConnlessVersionBits => {
                "0.7 connectionless packet whose version bits (byte 0 & 3) are not 1 (UnpackPacket)"
            }
            Rule::PayloadTooLong => {
                "0.7 connection packet over 1398 bytes: its payload exceeds \
                 NET_MAX_PAYLOAD, 1391 bytes (UnpackPacket)"
            }
            Rule::UnknownFlags => {
                "flag bits other than control, resend and compression, such as \
                 0.6.5's token flag, byte 0 bit 0x08 (IsValidConnectionOrientedPacket)"
            }
            Rule::ControlWithChunks => {
                "control packet with a chunk count other than 0 (IsValidConnectionOrientedPacket)"
            }
            Rule::ControlWithoutByte => {
                "control packet without a control byte (IsValidConnectionOrientedPacket)"
            }
            Rule::CompressedControl => {
                "control packet with the compression flag (IsValidConnectionOrientedPacket)"
            }
            Rule::NoChunks => {
                "data packet with 0 chunks and no resend flag (IsValidConnectionOrientedPacket)"
            }
            Rule::DecompressionFailed => {
                "compressed payload that is not a Huffman stream ending with its \
                 EOF code (CHuffman::Decompress)"
            }
            Rule::DecompressedTooLong => {
                "compressed payload that decompresses to more than the buffer \
                 holds, 1397 bytes in DDNet and 1391 in Teeworlds 0.7.5 (CHuffman::Decompress)"
            }
        })
    }
}

/// What one implementation does with a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketVerdict {
    /// The protocol it reads the datagram as.
    pub read_as: Version,
    /// The rule it drops the datagram by; `None`: accepted.
    pub dropped: Option<Rule>,
}

impl PacketVerdict {
    /// Passed on to the connection handling.
    pub fn accepted(&self) -> bool {
        self.dropped.is_none()
    }

    fn accept(read_as: Version) -> PacketVerdict {
        PacketVerdict {
            read_as,
            dropped: None,
        }
    }

    fn drop(read_as: Version, rule: Rule) -> PacketVerdict {
        PacketVerdict {
            read_as,
            dropped: Some(rule),
        }
    }
}

/// `{"read_as", "accepted", "rule", "reason"}`; the last two only when
/// dropped.
impl Serialize for PacketVerdict {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("PacketVerdict", 4)?;
        st.serialize_field("read_as", &self.read_as)?;
        st.serialize_field("accepted", &self.accepted())?;
        match self.dropped {
            Some(rule) => {
                st.serialize_field("rule", rule.code())?;
                st.serialize_field("reason", &rule.to_string())?;
            }
            None => {
                st.skip_field("rule")?;
                st.skip_field("reason")?;
            }
        }
        st.end()
    }
}

/// "read as 0.6, accepted" or "read as 0.7, dropped (too_short_07): ...".
impl fmt::Display for PacketVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.dropped {
            None => write!(f, "read as {}, accepted", self.read_as),
            Some(rule) => write!(
                f,
                "read as {}, dropped ({}): {rule}",
                self.read_as,
                rule.code()
            ),
        }
    }
}

/// A datagram's verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PacketVerdicts {
    /// DDNet 20.1's.
    pub ddnet: PacketVerdict,
    /// Vanilla Teeworlds 0.7.5's, for a datagram read as 0.7 (by the
    /// caller or by DDNet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teeworlds_0_7_5: Option<PacketVerdict>,
}

/// "ddnet 20.1: read as ..." and, when given, "; teeworlds 0.7.5: read as
/// ...".
impl fmt::Display for PacketVerdicts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ddnet 20.1: {}", self.ddnet)?;
        if let Some(tw) = &self.teeworlds_0_7_5 {
            write!(f, "; teeworlds 0.7.5: {tw}")?;
        }
        Ok(())
    }
}

impl PacketVerdicts {
    /// Judges `datagram` from a peer expected to speak `version` (a
    /// connection's version, or [`super::detect_version`]'s for an unknown
    /// peer). `packet` is the datagram decoded as `version`, if it decoded:
    /// its decompressed payload saves decompressing again.
    pub fn of(datagram: &[u8], version: Version, packet: Option<&Packet<'_>>) -> PacketVerdicts {
        let conn = match packet {
            Some(Packet::Connection(p)) => Some(p),
            _ => None,
        };
        let ddnet = ddnet(datagram, version, conn);
        let teeworlds_0_7_5 = (version == Version::V07 || ddnet.read_as == Version::V07)
            .then(|| teeworlds_0_7_5(datagram, conn));
        PacketVerdicts {
            ddnet,
            teeworlds_0_7_5,
        }
    }

    /// DDNet drops it.
    pub fn ddnet_drops(&self) -> bool {
        !self.ddnet.accepted()
    }
}

/// DDNet 20.1's `UnpackPacketFlags`, `UnpackPacket` and
/// `IsValidConnectionOrientedPacket`.
fn ddnet(datagram: &[u8], version: Version, packet: Option<&ConnPacket<'_>>) -> PacketVerdict {
    let n = datagram.len();
    if n < 3 {
        return PacketVerdict::drop(version, Rule::TooShort);
    }
    if n > MAX_PACKET_SIZE {
        return PacketVerdict::drop(version, Rule::TooLong);
    }
    let b0 = datagram[0];
    let wire = b0 >> 2;
    if wire & flags::CONNLESS_06 != 0 {
        let (read_as, header) = match b0 & 3 {
            1 => (Version::V07, 9),
            _ => (Version::V06, 6),
        };
        return match n < header {
            true => PacketVerdict::drop(read_as, Rule::ConnlessTooShort),
            false => PacketVerdict::accept(read_as),
        };
    }
    let sixup = version == Version::V07 || wire & flags::UNUSED_06 != 0;
    let (read_as, start, flags) = match sixup {
        false => (Version::V06, 3, wire),
        true => {
            if n < 7 {
                return PacketVerdict::drop(Version::V07, Rule::TooShort07);
            }
            // 0.7's flags as 0.6's; other 0.7 bits are not carried over.
            let mut six = 0;
            for (seven, six_bit) in [
                (flags::CONTROL_07, flags::CONTROL_06),
                (flags::RESEND_07, flags::RESEND_06),
                (flags::COMPRESSION_07, flags::COMPRESSION_06),
            ] {
                if wire & seven != 0 {
                    six |= six_bit;
                }
            }
            (Version::V07, 7, six)
        }
    };
    let known = flags::CONTROL_06 | flags::RESEND_06 | flags::COMPRESSION_06;
    let num_chunks = datagram[2];
    let compressed = flags & flags::COMPRESSION_06 != 0;
    let rule = if flags & !known != 0 {
        Some(Rule::UnknownFlags)
    } else if flags & flags::CONTROL_06 != 0 {
        if num_chunks != 0 {
            Some(Rule::ControlWithChunks)
        } else if n == start {
            Some(Rule::ControlWithoutByte)
        } else if compressed {
            Some(Rule::CompressedControl)
        } else {
            None
        }
    } else if num_chunks == 0 && flags & flags::RESEND_06 == 0 {
        Some(Rule::NoChunks)
    } else if compressed {
        // Our decoder read it the same way: its decompression succeeded.
        let decoded = packet.filter(|p| p.version == read_as && p.compression.is_some());
        match decoded {
            Some(_) => None,
            None => decompress(&datagram[start..], MAX_PAYLOAD).err(),
        }
    } else {
        None
    };
    PacketVerdict {
        read_as,
        dropped: rule,
    }
}

/// Teeworlds 0.7.5's `UnpackPacket`.
fn teeworlds_0_7_5(datagram: &[u8], packet: Option<&ConnPacket<'_>>) -> PacketVerdict {
    let v7 = Version::V07;
    let n = datagram.len();
    if n < 7 {
        return PacketVerdict::drop(v7, Rule::TooShort07);
    }
    if n > MAX_PACKET_SIZE {
        return PacketVerdict::drop(v7, Rule::TooLong);
    }
    let wire = datagram[0] >> 2;
    if wire & flags::CONNLESS_07 != 0 {
        return if n < 9 {
            PacketVerdict::drop(v7, Rule::ConnlessTooShort)
        } else if datagram[0] & 3 != 1 {
            PacketVerdict::drop(v7, Rule::ConnlessVersionBits)
        } else {
            PacketVerdict::accept(v7)
        };
    }
    if n - 7 > MAX_PAYLOAD_0_7_5 {
        return PacketVerdict::drop(v7, Rule::PayloadTooLong);
    }
    if wire & flags::COMPRESSION_07 != 0 {
        let decoded = packet
            .filter(|p| p.version == v7 && p.compression.is_some())
            .map(|p| p.payload.len());
        let fits = match decoded {
            Some(len) if len <= MAX_PAYLOAD_0_7_5 => Ok(()),
            Some(_) => Err(Rule::DecompressedTooLong),
            None => decompress(&datagram[7..], MAX_PAYLOAD_0_7_5),
        };
        if let Err(rule) = fits {
            return PacketVerdict::drop(v7, rule);
        }
    }
    PacketVerdict::accept(v7)
}

/// Whether `body` decompresses into `max` bytes, and if not, why. Only for
/// a datagram the decoder did not decompress the same way (rare).
fn decompress(body: &[u8], max: usize) -> Result<(), Rule> {
    let mut out = Vec::new();
    match huffman::decompress(body, &mut out, max, 0) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.kind, ErrorKind::LengthTooLarge { .. }) => {
            Err(Rule::DecompressedTooLong)
        }
        Err(_) => Err(Rule::DecompressionFailed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{Codec, Mode, Reader};
    use crate::packet::{PacketCtx, TokenMode};

    /// The verdicts of `hex` from a peer speaking `version`, judged with
    /// the packet decoded as `version` when it decodes, and without: both
    /// must agree.
    fn judge(hex: &str, version: Version) -> PacketVerdicts {
        let bytes = hex::decode(hex.replace(' ', "")).unwrap();
        judge_bytes(&bytes, version)
    }

    fn judge_bytes(bytes: &[u8], version: Version) -> PacketVerdicts {
        let ctx = PacketCtx {
            version: Some(version),
            token: TokenMode::Auto,
        };
        let packet = Packet::decode(&mut Reader::new(bytes, Mode::Lenient), ctx).ok();
        let with = PacketVerdicts::of(bytes, version, packet.as_ref());
        let without = PacketVerdicts::of(bytes, version, None);
        assert_eq!(with, without, "decoded or not, the same verdicts");
        with
    }

    fn ddnet(hex: &str, version: Version) -> Option<Rule> {
        judge(hex, version).ddnet.dropped
    }

    fn tw(hex: &str) -> Option<Rule> {
        judge(hex, Version::V07).teeworlds_0_7_5.unwrap().dropped
    }

    use Version::{V06, V07};

    #[test]
    fn sizes() {
        assert_eq!(ddnet("", V06), Some(Rule::TooShort));
        assert_eq!(ddnet("0000", V06), Some(Rule::TooShort));
        assert_eq!(ddnet("1000", V07), Some(Rule::TooShort));
        assert_eq!(ddnet("000001 0000", V06), None, "3 bytes and a chunk");
        let mut big = vec![0u8; MAX_PACKET_SIZE + 1];
        big[2] = 1;
        assert_eq!(judge_bytes(&big, V06).ddnet.dropped, Some(Rule::TooLong));
        assert_eq!(
            judge_bytes(&big[..MAX_PACKET_SIZE], V06).ddnet.dropped,
            None,
            "1400 bytes are read"
        );
    }

    #[test]
    fn control_without_byte() {
        assert_eq!(ddnet("100000", V06), Some(Rule::ControlWithoutByte));
        assert_eq!(ddnet("10000000", V06), None, "KEEPALIVE");
        // 0.7: the control flag is bit 0x04.
        assert_eq!(ddnet("04000000000000", V07), Some(Rule::ControlWithoutByte));
        assert_eq!(ddnet("0400000000000000", V07), None);
        // Teeworlds 0.7.5 checks no control byte.
        assert_eq!(tw("04000000000000"), None);
    }

    #[test]
    fn control_with_chunks() {
        assert_eq!(ddnet("1000ff00", V06), Some(Rule::ControlWithChunks));
        assert_eq!(ddnet("10000100", V06), Some(Rule::ControlWithChunks));
        assert_eq!(ddnet("10000000", V06), None);
        assert_eq!(
            ddnet("040001aabbccdd00", V07),
            Some(Rule::ControlWithChunks)
        );
        assert_eq!(tw("040001aabbccdd00"), None);
        // Chunks before a missing control byte: the chunk count is named.
        assert_eq!(ddnet("100001", V06), Some(Rule::ControlWithChunks));
    }

    #[test]
    fn compressed_control() {
        assert_eq!(ddnet("9000001537", V06), Some(Rule::CompressedControl));
        assert_eq!(ddnet("1000001537", V06), None, "the same, uncompressed");
        // 0.7: control 0x04 | compression 0x10 (Teeworlds 0.7.5: see
        // `decompressed_sizes`).
        assert_eq!(
            ddnet("14000000000000 00", V07),
            Some(Rule::CompressedControl)
        );
    }

    #[test]
    fn no_chunks() {
        assert_eq!(ddnet("000000", V06), Some(Rule::NoChunks));
        // With the resend flag: a resend request.
        assert_eq!(ddnet("400000", V06), None);
        assert_eq!(ddnet("000001 0000", V06), None);
        // 0.7: resend is bit 0x08.
        assert_eq!(ddnet("00000000000000", V07), Some(Rule::NoChunks));
        assert_eq!(ddnet("08000000000000", V07), None);
        assert_eq!(tw("00000000000000"), None);
    }

    #[test]
    fn unknown_flags() {
        // 0.6.5's token flag.
        assert_eq!(ddnet("080000", V06), Some(Rule::UnknownFlags));
        assert_eq!(ddnet("080001 0000", V06), Some(Rule::UnknownFlags));
        // It outranks the control rules.
        assert_eq!(ddnet("180000", V06), Some(Rule::UnknownFlags));
        // 0.7's bits 0x40 and 0x80 are not carried over to 0.6's flags.
        assert_eq!(ddnet("c0000100000000 0000", V07), None);
        assert_eq!(tw("c0000100000000 0000"), None);
    }

    #[test]
    fn unused_bit_reads_as_07() {
        // 0.6's unused flag is 0.7's control flag: DDNet reads it as 0.7,
        // and 3 bytes are too short for 0.7's header.
        let v = judge("040000", V06);
        assert_eq!(v.ddnet, PacketVerdict::drop(V07, Rule::TooShort07));
        assert_eq!(
            v.teeworlds_0_7_5,
            Some(PacketVerdict::drop(V07, Rule::TooShort07))
        );
        assert_eq!(ddnet("04000000000000", V06), Some(Rule::ControlWithoutByte));
        assert_eq!(
            judge("0400000000000000", V06).ddnet,
            PacketVerdict::accept(V07)
        );
        // Without the bit, a 0.6 peer's packet stays 0.6.
        assert_eq!(judge("10000000", V06).ddnet, PacketVerdict::accept(V06));
        // A known 0.7 peer's 3-byte packet.
        assert_eq!(ddnet("000000", V07), Some(Rule::TooShort07));
    }

    #[test]
    fn connless() {
        assert_eq!(judge("ffffffffffff", V06).ddnet, PacketVerdict::accept(V06));
        assert_eq!(ddnet("ffffffffff", V06), Some(Rule::ConnlessTooShort));
        assert_eq!(ddnet("7865000000", V06), Some(Rule::ConnlessTooShort));
        assert_eq!(judge("786500000000", V06).ddnet, PacketVerdict::accept(V06));
        // 0.7: byte0 & 3 == 1, 9 bytes.
        let v = judge("21aabbccdd11223344", V07);
        assert_eq!(v.ddnet, PacketVerdict::accept(V07));
        assert_eq!(v.teeworlds_0_7_5, Some(PacketVerdict::accept(V07)));
        assert_eq!(ddnet("21aabbccdd112233", V07), Some(Rule::ConnlessTooShort));
        assert_eq!(tw("21aabbccdd112233"), Some(Rule::ConnlessTooShort));
        // A 0.6 peer's 0.7 connless packet is read as 0.7.
        assert_eq!(judge("21aabbccdd11223344", V06).ddnet.read_as, V07);
    }

    #[test]
    fn connless_version_bits() {
        // DDNet reads it as 0.6 connless; Teeworlds 0.7.5 drops it.
        for b0 in ["20", "22", "23"] {
            let v = judge(&format!("{b0}aabbccdd11223344"), V07);
            assert_eq!(v.ddnet, PacketVerdict::accept(V06), "{b0}");
            assert_eq!(
                v.teeworlds_0_7_5,
                Some(PacketVerdict::drop(V07, Rule::ConnlessVersionBits)),
                "{b0}"
            );
        }
        // Read as 0.6 by the caller too: no Teeworlds verdict.
        assert_eq!(judge("20aabbccdd11223344", V06).teeworlds_0_7_5, None);
    }

    #[test]
    fn teeworlds_sizes() {
        assert_eq!(tw("000001000000"), Some(Rule::TooShort07));
        assert_eq!(tw("21aabbcc"), Some(Rule::TooShort07));
        let mut p = vec![0u8; 1398];
        p[2] = 1;
        assert_eq!(judge_bytes(&p, V07).teeworlds_0_7_5.unwrap().dropped, None);
        p.push(0);
        let v = judge_bytes(&p, V07);
        assert_eq!(
            v.teeworlds_0_7_5.unwrap().dropped,
            Some(Rule::PayloadTooLong)
        );
        assert_eq!(v.ddnet.dropped, None, "DDNet reads 1399 bytes");
        // Connectionless packets may use all 1400.
        let c = vec![0x21u8; 1400];
        assert_eq!(judge_bytes(&c, V07).teeworlds_0_7_5.unwrap().dropped, None);
    }

    /// A compressed data packet whose payload is `plain`.
    fn compressed(version: Version, plain: &[u8]) -> Vec<u8> {
        let mut out = match version {
            V06 => vec![0x80, 0x00, 0x01],
            V07 => vec![0x10, 0x00, 0x01, 1, 2, 3, 4],
        };
        out.extend(huffman::compress_to_vec(plain, huffman::Flavor::Ddnet));
        out
    }

    #[test]
    fn decompression() {
        assert_eq!(
            judge_bytes(&compressed(V06, &[0; 40]), V06).ddnet.dropped,
            None
        );
        // A stream cut before its EOF code.
        assert_eq!(ddnet("800001", V06), Some(Rule::DecompressionFailed));
        assert_eq!(ddnet("800001 00", V06), Some(Rule::DecompressionFailed));
        let ok7 = compressed(V07, &[0; 40]);
        assert_eq!(judge_bytes(&ok7, V07).ddnet.dropped, None);
        assert_eq!(
            judge_bytes(&ok7, V07).teeworlds_0_7_5.unwrap().dropped,
            None
        );
        let cut = &ok7[..ok7.len() - 1];
        let v = judge_bytes(cut, V07);
        assert_eq!(v.ddnet.dropped, Some(Rule::DecompressionFailed));
        assert_eq!(
            v.teeworlds_0_7_5.unwrap().dropped,
            Some(Rule::DecompressionFailed)
        );
    }

    #[test]
    fn decompressed_sizes() {
        // 1397 bytes fit DDNet's buffer, 1398 do not; Teeworlds 0.7.5's
        // holds 1391.
        let fits = compressed(V06, &[0; MAX_PAYLOAD]);
        assert_eq!(judge_bytes(&fits, V06).ddnet.dropped, None);
        let over = compressed(V06, &[0; MAX_PAYLOAD + 1]);
        assert_eq!(
            judge_bytes(&over, V06).ddnet.dropped,
            Some(Rule::DecompressedTooLong)
        );
        for (len, ddnet, tw) in [
            (MAX_PAYLOAD_0_7_5, None, None),
            (MAX_PAYLOAD_0_7_5 + 1, None, Some(Rule::DecompressedTooLong)),
            (
                MAX_PAYLOAD + 1,
                Some(Rule::DecompressedTooLong),
                Some(Rule::DecompressedTooLong),
            ),
        ] {
            let v = judge_bytes(&compressed(V07, &vec![0; len]), V07);
            assert_eq!(v.ddnet.dropped, ddnet, "{len}");
            assert_eq!(v.teeworlds_0_7_5.unwrap().dropped, tw, "{len}");
        }
        // Teeworlds 0.7.5 decompresses a control packet too.
        let mut control = compressed(V07, &[0; 10]);
        control[0] = 0x14;
        control[2] = 0;
        let v = judge_bytes(&control, V07);
        assert_eq!(v.ddnet.dropped, Some(Rule::CompressedControl));
        assert_eq!(v.teeworlds_0_7_5.unwrap().dropped, None);
        control.pop();
        let v = judge_bytes(&control, V07);
        assert_eq!(
            v.teeworlds_0_7_5.unwrap().dropped,
            Some(Rule::DecompressionFailed)
        );
    }

    #[test]
    fn every_rule_has_a_distinct_code_and_a_sentence_naming_its_function() {
        let mut codes: Vec<_> = Rule::ALL.iter().map(|r| r.code()).collect();
        for rule in Rule::ALL {
            let json = serde_json::to_value(rule).unwrap();
            assert_eq!(json, rule.code());
            let sentence = rule.to_string();
            assert!(sentence.ends_with(')'), "{sentence}");
        }
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), Rule::ALL.len());
    }

    #[test]
    fn json_shape() {
        let v = judge("040000", V06);
        assert_eq!(
            serde_json::to_value(v).unwrap(),
            serde_json::json!({
                "ddnet": {"read_as": "0.7", "accepted": false, "rule": "too_short_07",
                    "reason": Rule::TooShort07.to_string()},
                "teeworlds_0_7_5": {"read_as": "0.7", "accepted": false, "rule": "too_short_07",
                    "reason": Rule::TooShort07.to_string()},
            })
        );
        let v = judge("10000000", V06);
        assert_eq!(
            serde_json::to_value(v).unwrap(),
            serde_json::json!({"ddnet": {"read_as": "0.6", "accepted": true}})
        );
    }
}
