//! Teeworlds/DDNet UDP packets: 0.6 with DDNet's security token, 0.7,
//! connectionless packets, control messages and chunked payloads.
//!
//! A [`Packet`] keeps every header bit (unused flag bits included), the
//! payload after decompression, the DDNet token, and how the payload was
//! compressed, so that encoding reproduces the datagram exactly. A data
//! packet's payload is read down to its messages by [`Contents`], once;
//! [`reencode`] checks every layer against the original bytes.
//!
//! ```
//! use teeoracle::codec::{Codec, Mode, Reader};
//! use teeoracle::packet::{Packet, PacketCtx, Version, control};
//!
//! // A DDNet 0.6 CONNECT with its security-token magic.
//! let bytes = hex::decode("10000001544b454effffffff").unwrap();
//! let packet = Packet::decode(&mut Reader::new(&bytes, Mode::Lenient), PacketCtx::default())?;
//! let Packet::Connection(p) = &packet else { panic!("a connection packet") };
//! assert_eq!(p.version, Version::V06);
//! assert_eq!(p.control().map(|(id, _)| control::name(p.version, id)), Some(Some("CONNECT")));
//! assert_eq!(p.token, Some([0xff; 4]));
//! // Encoding gives the datagram back.
//! let mut again = Vec::new();
//! packet.encode(&mut again, PacketCtx::default());
//! assert_eq!(again, bytes);
//! # Ok::<(), teeoracle::codec::DecodeError>(())
//! ```

mod chunk;
mod contents;
pub mod json;
pub mod msg;
pub mod spec;
mod verdict;

pub use chunk::{CHUNK_RESEND, CHUNK_VITAL, Chunk, ChunkHeader};
pub use contents::{Contents, Layer, Message, MessageChunk, Mismatch, reencode};
pub use verdict::{PacketVerdict, PacketVerdicts, Rule};

use crate::codec::{Codec, DecodeError, ErrorKind, Mode, PayloadKind, Reader};
use crate::huffman::{self, Flavor, HuffmanInfo};
use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// Largest datagram DDNet sends or accepts (`NET_MAX_PACKETSIZE`).
pub const MAX_PACKET_SIZE: usize = 1400;
/// Largest payload after decompression (the packet less the 0.6 header).
pub const MAX_PAYLOAD: usize = MAX_PACKET_SIZE - 3;

/// Protocol generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Version {
    /// Teeworlds 0.6 as DDNet speaks it (security token, extended connless).
    #[serde(rename = "0.6")]
    V06,
    /// Teeworlds 0.7 ("sixup").
    #[serde(rename = "0.7")]
    V07,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Version::V06 => "0.6",
            Version::V07 => "0.7",
        })
    }
}

/// Header flag bits (after `>> 2`).
pub mod flags {
    /// 0.6: control packet.
    pub const CONTROL_06: u8 = 4;
    /// 0.6: connectionless.
    pub const CONNLESS_06: u8 = 8;
    /// 0.6: the sender asks for a resend.
    pub const RESEND_06: u8 = 16;
    /// 0.6: Huffman-compressed payload.
    pub const COMPRESSION_06: u8 = 32;
    /// 0.6: 0.6.5's token flag, unsupported by DDNet.
    pub const TOKEN_06: u8 = 2;
    /// 0.6: unused (DDNet reads it as "0.7 control" from unknown peers).
    pub const UNUSED_06: u8 = 1;
    /// 0.7: control packet.
    pub const CONTROL_07: u8 = 1;
    /// 0.7: the sender asks for a resend.
    pub const RESEND_07: u8 = 2;
    /// 0.7: Huffman-compressed payload.
    pub const COMPRESSION_07: u8 = 4;
    /// 0.7: connectionless.
    pub const CONNLESS_07: u8 = 8;
}

/// Control message ids.
pub mod control {
    use super::Version;

    /// Keeps the connection alive.
    pub const KEEPALIVE: u8 = 0;
    /// The client asks to connect.
    pub const CONNECT: u8 = 1;
    /// 0.6 only: the server accepts (0.7's ACCEPT is 2).
    pub const CONNECTACCEPT: u8 = 2;
    /// 0.6: the client's ACCEPT is 3.
    pub const ACCEPT_06: u8 = 3;
    /// 0.7: the server's ACCEPT is 2.
    pub const ACCEPT_07: u8 = 2;
    /// Either side closes, with an optional reason.
    pub const CLOSE: u8 = 4;
    /// 0.7 only: a token request or answer.
    pub const TOKEN: u8 = 5;

    /// The name of control message `id` in `version`, if it has one.
    pub fn name(version: Version, id: u8) -> Option<&'static str> {
        Some(match (version, id) {
            (_, KEEPALIVE) => "KEEPALIVE",
            (_, CONNECT) => "CONNECT",
            (Version::V06, CONNECTACCEPT) => "CONNECTACCEPT",
            (Version::V06, ACCEPT_06) | (Version::V07, ACCEPT_07) => "ACCEPT",
            (_, CLOSE) => "CLOSE",
            (Version::V07, TOKEN) => "TOKEN",
            _ => return None,
        })
    }
}

/// DDNet's `SECURITY_TOKEN_MAGIC` in 0.6 CONNECT/CONNECTACCEPT.
pub const TOKEN_MAGIC: &[u8; 4] = b"TKEN";

/// Whether a 0.6 connection packet ends with DDNet's 4-byte security token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TokenMode {
    /// Decide from the packet's structure (what a stateless reader can do).
    #[default]
    Auto,
    /// The connection uses tokens.
    Present,
    /// A vanilla 0.6 connection: no token.
    Absent,
}

/// How to read a datagram.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketCtx {
    /// `None`: detect as DDNet's server does for an unknown peer.
    pub version: Option<Version>,
    /// Whether a 0.6 connection packet ends with a token.
    pub token: TokenMode,
}

/// Why a version was chosen.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum VersionReason {
    /// Given by the caller.
    #[serde(rename = "given")]
    Given,
    /// Connless with `byte0 & 3 == 1`: 0.7.
    #[serde(rename = "connless_version_bits")]
    ConnlessVersionBits,
    /// Bit 0x04 of byte 0 set (0.6's unused flag, 0.7's control flag).
    #[serde(rename = "control_bit_07")]
    ControlBit07,
    /// No 0.7 marker: DDNet treats an unknown peer as 0.6.
    #[serde(rename = "default_06")]
    Default06,
}

/// In words, e.g. "detected: bit 0x04 of byte 0 (0.7 control flag)".
impl fmt::Display for VersionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VersionReason::Given => "given",
            VersionReason::ConnlessVersionBits => "detected: connless with byte0 & 3 == 1",
            VersionReason::ControlBit07 => "detected: bit 0x04 of byte 0 (0.7 control flag)",
            VersionReason::Default06 => "detected: no 0.7 marker, as DDNet reads an unknown peer",
        })
    }
}

/// A decoded datagram.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum Packet<'a> {
    /// 0.6 connectionless: six header bytes (`ff` x6, or DDNet's extended
    /// `'x' 'e'` form) then the payload.
    Connless06 {
        /// The six header bytes.
        #[serde(serialize_with = "hex_bytes")]
        header: [u8; 6],
        /// Everything after them.
        #[serde(serialize_with = "hex_bytes")]
        payload: &'a [u8],
    },
    /// 0.7 connectionless: flags/version byte, token, response token.
    Connless07 {
        /// Flags and version bits.
        byte0: u8,
        /// The receiver's token.
        #[serde(serialize_with = "hex_bytes")]
        token: [u8; 4],
        /// The sender's token.
        #[serde(serialize_with = "hex_bytes")]
        response_token: [u8; 4],
        /// Everything after them.
        #[serde(serialize_with = "hex_bytes")]
        payload: &'a [u8],
    },
    /// A connection packet: control or chunks.
    Connection(ConnPacket<'a>),
}

/// A connection-oriented packet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConnPacket<'a> {
    /// The protocol it was read as.
    pub version: Version,
    /// Header flags as on the wire (`byte0 >> 2`, every bit kept).
    pub flags: u8,
    /// Acknowledged sequence number (10 bits).
    pub ack: u16,
    /// Number of chunks the header announces.
    pub num_chunks: u8,
    /// 0.7: the receiver's token from the header.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "opt_hex")]
    pub header_token: Option<[u8; 4]>,
    /// How the payload was compressed, if the COMPRESSION flag is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<Compression<'a>>,
    /// The payload after decompression, without the token.
    #[serde(serialize_with = "hex_bytes")]
    pub payload: Cow<'a, [u8]>,
    /// 0.6: DDNet's security token at the end of the payload.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "opt_hex")]
    pub token: Option<[u8; 4]>,
}

/// A compressed payload: what the decoder learned, to compress it back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Compression<'a> {
    /// Which writers reproduce the compressed bytes.
    pub huffman: HuffmanInfo,
    /// The compressed bytes; re-emitted as they are when no writer
    /// reproduces them (non-zero padding bits).
    #[serde(skip)]
    pub raw: &'a [u8],
}

impl<'a> ConnPacket<'a> {
    /// The control flag is set.
    pub fn is_control(&self) -> bool {
        self.flags
            & match self.version {
                Version::V06 => flags::CONTROL_06,
                Version::V07 => flags::CONTROL_07,
            }
            != 0
    }

    /// The compression flag is set.
    pub fn is_compressed(&self) -> bool {
        self.flags
            & match self.version {
                Version::V06 => flags::COMPRESSION_06,
                Version::V07 => flags::COMPRESSION_07,
            }
            != 0
    }

    /// The resend flag is set.
    pub fn requests_resend(&self) -> bool {
        self.flags
            & match self.version {
                Version::V06 => flags::RESEND_06,
                Version::V07 => flags::RESEND_07,
            }
            != 0
    }

    /// The chunks of a data packet and the bytes after the last one, or
    /// the first chunk that cannot be read ([`ConnPacket::contents`] keeps
    /// the chunks before it and reads their messages).
    pub fn chunks(&self) -> Result<(Vec<Chunk<'_>>, &[u8]), DecodeError> {
        split_chunks(&self.payload, self.version, self.num_chunks)
    }

    /// A data packet's chunks and messages (offsets in errors count bytes
    /// of the payload; see [`ConnPacket::locate`]); `None` for a control
    /// packet.
    pub fn contents(&self) -> Option<Contents<'_>> {
        (!self.is_control()).then(|| Contents::read(&self.payload, self.version, self.num_chunks))
    }

    /// The payload, when it borrows the datagram or a caller's buffer
    /// (always, for packets from [`Packet::decode_into`] with a buffer).
    pub(crate) fn borrowed_payload(&self) -> Option<&'a [u8]> {
        match self.payload {
            Cow::Borrowed(b) => Some(b),
            Cow::Owned(_) => None,
        }
    }

    /// Bytes of the header before the payload (3; 7 with 0.7's token).
    pub fn header_len(&self) -> usize {
        3 + self.header_token.map_or(0, |t| t.len())
    }

    /// An error whose offset counts bytes of the payload, placed in a
    /// datagram whose first byte is at `base`: shifted past the header,
    /// or, for a compressed payload, inside it
    /// ([`PayloadKind::Decompressed`]) at the byte where it starts.
    pub fn locate(&self, error: DecodeError, base: u64) -> DecodeError {
        let at = base + self.header_len() as u64;
        match self.compression {
            Some(_) => error.inside(at, PayloadKind::Decompressed),
            None => error.shifted(at),
        }
    }

    /// The control message id and its data, for a control packet.
    pub fn control(&self) -> Option<(u8, &[u8])> {
        if !self.is_control() {
            return None;
        }
        self.payload.split_first().map(|(id, rest)| (*id, rest))
    }
}

/// Parses `num_chunks` chunks from the start of `payload`.
pub fn split_chunks(
    payload: &[u8],
    version: Version,
    num_chunks: u8,
) -> Result<(Vec<Chunk<'_>>, &[u8]), DecodeError> {
    let mut r = Reader::new(payload, Mode::Lenient);
    let mut chunks = Vec::with_capacity(num_chunks.into());
    for _ in 0..num_chunks {
        chunks.push(Chunk::decode(&mut r, version)?);
    }
    Ok((chunks, r.rest()))
}

pub(crate) fn hex_bytes<S: Serializer>(bytes: impl AsRef<[u8]>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex::encode(bytes.as_ref()))
}

fn opt_hex<S: Serializer>(bytes: &Option<[u8; 4]>, s: S) -> Result<S::Ok, S::Error> {
    match bytes {
        Some(b) => hex_bytes(b, s),
        None => s.serialize_none(),
    }
}

/// The version DDNet's server would read an unknown peer's datagram as.
pub fn detect_version(datagram: &[u8]) -> (Version, VersionReason) {
    let b0 = datagram.first().copied().unwrap_or(0);
    let flags = b0 >> 2;
    if flags & flags::CONNLESS_06 != 0 && b0 & 3 == 1 {
        (Version::V07, VersionReason::ConnlessVersionBits)
    } else if flags & flags::CONNLESS_06 == 0 && b0 & 0x04 != 0 {
        (Version::V07, VersionReason::ControlBit07)
    } else {
        (Version::V06, VersionReason::Default06)
    }
}

impl<'a> Codec<'a, PacketCtx> for Packet<'a> {
    /// Reads everything left in `r` as one datagram.
    fn decode(r: &mut Reader<'a>, ctx: PacketCtx) -> Result<Self, DecodeError> {
        Packet::decode_into(r, ctx, None)
    }

    fn encode(&self, out: &mut Vec<u8>, _: PacketCtx) {
        match self {
            Packet::Connless06 { header, payload } => {
                out.extend_from_slice(header);
                out.extend_from_slice(payload);
            }
            Packet::Connless07 {
                byte0,
                token,
                response_token,
                payload,
            } => {
                out.push(*byte0);
                out.extend_from_slice(token);
                out.extend_from_slice(response_token);
                out.extend_from_slice(payload);
            }
            Packet::Connection(p) => p.encode(out),
        }
    }
}

impl<'a> Packet<'a> {
    /// [`Packet::decode`], decompressing into `buf` (cleared first) when it
    /// is given, so that a caller decoding many datagrams reuses one
    /// buffer and the packet borrows it.
    pub(crate) fn decode_into(
        r: &mut Reader<'a>,
        ctx: PacketCtx,
        buf: Option<&'a mut Vec<u8>>,
    ) -> Result<Self, DecodeError> {
        let (base, mode) = (r.offset(), r.mode());
        let datagram = r.rest();
        let (version, _) = match ctx.version {
            Some(v) => (v, VersionReason::Given),
            None => detect_version(datagram),
        };
        let mut r = Reader::at(datagram, base, mode);
        if datagram.len() > MAX_PACKET_SIZE {
            return Err(r.error(
                "packet",
                ErrorKind::LengthTooLarge {
                    len: datagram.len() as i64,
                    max: MAX_PACKET_SIZE,
                },
            ));
        }
        let b0 = datagram.first().copied().unwrap_or(0);
        let connless = b0 >> 2
            & match version {
                Version::V06 => flags::CONNLESS_06,
                Version::V07 => flags::CONNLESS_07,
            }
            != 0;
        if connless {
            return Ok(match version {
                Version::V06 => Packet::Connless06 {
                    header: r.take_array("packet.connless.header")?,
                    payload: r.rest(),
                },
                Version::V07 => Packet::Connless07 {
                    byte0: r.u8("packet.connless.header")?,
                    token: r.take_array("packet.connless.token")?,
                    response_token: r.take_array("packet.connless.response_token")?,
                    payload: r.rest(),
                },
            });
        }
        decode_connection(&mut r, version, ctx.token, buf).map(Packet::Connection)
    }
}

fn decode_connection<'a>(
    r: &mut Reader<'a>,
    version: Version,
    token_mode: TokenMode,
    buf: Option<&'a mut Vec<u8>>,
) -> Result<ConnPacket<'a>, DecodeError> {
    let b0 = r.u8("packet.header")?;
    let b1 = r.u8("packet.header")?;
    let num_chunks = r.u8("packet.header.num_chunks")?;
    let header_token = match version {
        Version::V06 => None,
        Version::V07 => Some(r.take_array("packet.header.token")?),
    };
    let mut packet = ConnPacket {
        version,
        flags: b0 >> 2,
        ack: (u16::from(b0 & 3) << 8) | u16::from(b1),
        num_chunks,
        header_token,
        compression: None,
        payload: Cow::Borrowed(&[]),
        token: None,
    };
    let body_at = r.offset();
    let body = r.rest();
    let mut payload: Cow<'a, [u8]> = Cow::Borrowed(body);
    if packet.is_compressed() && !packet.is_control() {
        let huffman = match buf {
            Some(buf) => {
                buf.clear();
                let huffman = huffman::decompress(body, buf, MAX_PAYLOAD, body_at)?;
                let buf: &'a Vec<u8> = buf;
                payload = Cow::Borrowed(buf);
                huffman
            }
            None => {
                let mut out = Vec::with_capacity(MAX_PAYLOAD);
                let huffman = huffman::decompress(body, &mut out, MAX_PAYLOAD, body_at)?;
                payload = Cow::Owned(out);
                huffman
            }
        };
        packet.compression = Some(Compression { huffman, raw: body });
    }
    let token_len = match (version, token_mode) {
        (Version::V07, _) | (Version::V06, TokenMode::Absent) => 0,
        (Version::V06, TokenMode::Present) => 4,
        (Version::V06, TokenMode::Auto) => guess_token(&packet, &payload),
    };
    if payload.len() < token_len {
        return Err(DecodeError::new(
            body_at,
            "packet.token",
            ErrorKind::UnexpectedEof {
                needed: token_len,
                available: payload.len(),
            },
        ));
    }
    let split = payload.len() - token_len;
    if token_len == 4 {
        packet.token = payload[split..].try_into().ok();
    }
    packet.payload = match payload {
        Cow::Borrowed(b) => Cow::Borrowed(&b[..split]),
        Cow::Owned(mut v) => {
            v.truncate(split);
            Cow::Owned(v)
        }
    };
    Ok(packet)
}

/// Whether a 0.6 payload ends with a token, judged from its structure: the
/// chunks (or the control message) account for every byte but four.
fn guess_token(packet: &ConnPacket<'_>, payload: &[u8]) -> usize {
    if packet.is_control() {
        let (id, rest) = match payload.split_first() {
            Some((id, rest)) => (*id, rest),
            None => return 0,
        };
        return match id {
            control::CONNECT | control::CONNECTACCEPT => {
                if rest.starts_with(TOKEN_MAGIC) && rest.len() >= 8 {
                    4
                } else {
                    0
                }
            }
            control::CLOSE => {
                // An optional NUL-terminated reason, then the token.
                let n = rest.len();
                if n >= 4 && (n == 4 || rest[n - 5] == 0) {
                    4
                } else {
                    0
                }
            }
            _ => {
                if rest.len() >= 4 {
                    4
                } else {
                    0
                }
            }
        };
    }
    // Walk the chunks without collecting them.
    let mut r = Reader::new(payload, Mode::Lenient);
    for _ in 0..packet.num_chunks {
        if Chunk::decode(&mut r, packet.version).is_err() {
            return 0;
        }
    }
    if r.remaining() == 4 { 4 } else { 0 }
}

impl ConnPacket<'_> {
    /// Appends the datagram: header, then the payload and token,
    /// compressed as the original was.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.flags << 2 | (self.ack >> 8) as u8 & 3);
        out.push(self.ack as u8);
        out.push(self.num_chunks);
        if let Some(token) = self.header_token {
            out.extend_from_slice(&token);
        }
        let token: &[u8] = self.token.as_ref().map_or(&[], |t| t);
        match &self.compression {
            None => {
                out.extend_from_slice(&self.payload);
                out.extend_from_slice(token);
            }
            Some(c) => match c.huffman.flavor(Flavor::Ddnet) {
                Some(flavor) => {
                    huffman::compress_parts(&[&self.payload, token], flavor, out);
                    let tail = c.raw.len() - c.huffman.trailing;
                    out.extend_from_slice(&c.raw[tail..]);
                }
                None => out.extend_from_slice(c.raw),
            },
        }
    }
}
