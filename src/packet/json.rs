//! Packets in JSON: the PACKET and PACKET_ENTRY shapes of `packet decode
//! --format json` and `pcap dump` (schema.md, `# packets and captures`),
//! shared by the command line and the conformance harness.

use super::{
    CHUNK_RESEND, ConnPacket, Contents, Layer, Message, MessageChunk, Mismatch, Packet, PacketCtx,
    PacketVerdicts, TokenMode, Version, VersionReason, control, reencode,
};
use crate::codec::{Codec, DecodeError, Mode, Reader, encode_to_vec};
use crate::huffman::Flavor;
use serde::Serialize;

/// The form of a 0.6 connectionless header.
pub fn connless_form(header: &[u8; 6]) -> &'static str {
    match header {
        [0xff, 0xff, 0xff, 0xff, 0xff, 0xff] => "plain",
        [b'x', b'e', ..] => "ddnet_extended",
        _ => "unusual_header",
    }
}

/// Bytes as a lowercase hex string.
struct Hex<'a>(&'a [u8]);

impl Serialize for Hex<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(self.0))
    }
}

/// A decoded packet in JSON (the PACKET of `# packets and captures` in
/// schema.md).
#[derive(Serialize)]
pub struct PacketJson<'a>(Form<'a>);

#[derive(Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
enum Form<'a> {
    Connless06 {
        header: Hex<'a>,
        header_form: &'static str,
        payload: Hex<'a>,
    },
    Connless07 {
        byte0: u8,
        token: Hex<'a>,
        response_token: Hex<'a>,
        payload: Hex<'a>,
    },
    Connection(ConnJson<'a>),
}

#[derive(Serialize)]
struct ConnJson<'a> {
    control: bool,
    flags: u8,
    ack: u16,
    num_chunks: u8,
    resend_requested: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    header_token: Option<Hex<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compression: Option<CompressionJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<Hex<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    control_message: Option<ControlJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chunks: Option<Vec<ChunkJson<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after_chunks: Option<Hex<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    payload_error: Option<DecodeError>,
}

#[derive(Serialize)]
struct CompressionJson<'a> {
    ddnet: bool,
    legacy: bool,
    compressed_size: usize,
    size: usize,
    /// Bytes after the Huffman stream (DDNet ignores them).
    #[serde(skip_serializing_if = "Option::is_none")]
    trailing: Option<Hex<'a>>,
    /// The compressed bytes, when no writer reproduces them.
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<Hex<'a>>,
}

#[derive(Serialize)]
struct ControlJson<'a> {
    id: u8,
    name: Option<&'static str>,
    data: Hex<'a>,
}

#[derive(Serialize)]
struct ChunkJson<'a> {
    flags: u8,
    vital: bool,
    resend: bool,
    seq: Option<u16>,
    size: u16,
    canonical: bool,
    /// A non-canonical header's bytes (hex), as stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    header: Option<String>,
    /// The chunk's data, when its message does not re-encode to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Hex<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_error: Option<DecodeError>,
}

/// The re-encode result: `exact`, `differs` (with where), `not_checked`.
#[derive(Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ReencodeJson {
    /// The packet re-encodes to its bytes.
    Exact,
    /// It does not: the first differing byte of `layer`.
    Differs {
        /// The datagram or the decompressed payload.
        layer: Layer,
        /// The first differing byte.
        offset: usize,
    },
    /// It did not decode.
    NotChecked,
}

impl ReencodeJson {
    /// The result for a packet that `decoded` (or not) with `mismatch`.
    pub fn of(decoded: bool, mismatch: Option<Mismatch>) -> ReencodeJson {
        match (decoded, mismatch) {
            (false, _) => ReencodeJson::NotChecked,
            (true, None) => ReencodeJson::Exact,
            (true, Some(m)) => ReencodeJson::Differs {
                layer: m.layer,
                offset: m.offset,
            },
        }
    }
}

impl<'a> PacketJson<'a> {
    /// A packet in JSON; errors inside its payload placed in a datagram
    /// that starts at file byte `base`.
    pub fn new(
        packet: &'a Packet<'a>,
        contents: Option<&'a Contents<'a>>,
        base: u64,
    ) -> PacketJson<'a> {
        PacketJson(form(packet, contents, base))
    }
}

fn form<'a>(packet: &'a Packet<'a>, contents: Option<&'a Contents<'a>>, base: u64) -> Form<'a> {
    match packet {
        Packet::Connless06 { header, payload } => Form::Connless06 {
            header: Hex(header),
            header_form: connless_form(header),
            payload: Hex(payload),
        },
        Packet::Connless07 {
            byte0,
            token,
            response_token,
            payload,
        } => Form::Connless07 {
            byte0: *byte0,
            token: Hex(token),
            response_token: Hex(response_token),
            payload: Hex(payload),
        },
        Packet::Connection(p) => Form::Connection(conn_json(p, contents, base)),
    }
}

fn conn_json<'a>(
    p: &'a ConnPacket<'a>,
    contents: Option<&'a Contents<'a>>,
    base: u64,
) -> ConnJson<'a> {
    let locate = |e: &DecodeError| p.locate(e.clone(), base);
    ConnJson {
        control: p.is_control(),
        flags: p.flags,
        ack: p.ack,
        num_chunks: p.num_chunks,
        resend_requested: p.requests_resend(),
        header_token: p.header_token.as_ref().map(|t| Hex(t)),
        compression: p.compression.as_ref().map(|c| CompressionJson {
            ddnet: c.huffman.ddnet,
            legacy: c.huffman.legacy,
            compressed_size: c.raw.len(),
            size: p.payload.len(),
            trailing: (c.huffman.trailing > 0)
                .then(|| Hex(&c.raw[c.raw.len() - c.huffman.trailing..])),
            raw: c
                .huffman
                .flavor(Flavor::Ddnet)
                .is_none()
                .then_some(Hex(c.raw)),
        }),
        token: p.token.as_ref().map(|t| Hex(t)),
        control_message: p.control().map(|(id, data)| ControlJson {
            id,
            name: control::name(p.version, id),
            data: Hex(data),
        }),
        chunks: contents.map(|c| c.chunks.iter().map(|c| chunk_json(c, p, &locate)).collect()),
        after_chunks: contents.map(|c| Hex(c.rest)),
        payload_error: contents.and_then(|c| c.error.as_ref()).map(locate),
    }
}

fn chunk_json<'a>(
    c: &'a MessageChunk<'a>,
    p: &ConnPacket<'_>,
    locate: &impl Fn(&DecodeError) -> DecodeError,
) -> ChunkJson<'a> {
    let h = &c.chunk.header;
    let exact = match &c.message {
        Ok(m) => {
            let mut buf = Vec::with_capacity(c.chunk.data.len());
            m.encode(&mut buf, p.version);
            buf == c.chunk.data
        }
        Err(_) => false,
    };
    ChunkJson {
        flags: h.flags,
        vital: h.vital(),
        resend: h.flags & CHUNK_RESEND != 0,
        seq: h.seq(p.version),
        size: h.size,
        canonical: h.is_canonical(p.version),
        header: (!h.is_canonical(p.version)).then(|| hex::encode(encode_to_vec(h, p.version))),
        data: (!exact).then_some(Hex(c.chunk.data)),
        message: c.message.as_ref().ok().map(|m| m.located(locate)),
        message_error: c.message.as_ref().err().map(locate),
    }
}

/// One packet of `packet decode --format json` (a PACKET_ENTRY).
#[derive(Serialize)]
pub struct PacketEntry<'a> {
    /// The packet's length.
    pub bytes: usize,
    /// The version it was read as.
    pub version: Version,
    /// Why that version.
    pub version_reason: VersionReason,
    /// The same in words.
    pub version_reason_text: String,
    /// What DDNet (and Teeworlds 0.7.5) do with it.
    pub verdict: PacketVerdicts,
    /// The packet, when it decodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet: Option<PacketJson<'a>>,
    /// Why it does not decode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a DecodeError>,
    /// Whether it re-encodes to its bytes.
    pub reencode: ReencodeJson,
    /// It did not decode, its payload cannot be read, or it does not
    /// re-encode exactly.
    pub failed: bool,
}

/// A datagram as `packet decode` reads it: its PACKET_ENTRY, and for a
/// text form the packet, its contents and where it re-encodes
/// differently.
pub struct DecodedEntry<'d> {
    /// The PACKET_ENTRY.
    pub entry: PacketEntry<'d>,
    /// The packet, when it decodes.
    pub packet: Option<&'d Packet<'d>>,
    /// A connection packet's contents, when they read.
    pub contents: Option<&'d Contents<'d>>,
    /// Where it re-encodes differently, if it does.
    pub mismatch: Option<Mismatch>,
}

/// Decodes `bytes` as `packet decode` does, as `version` (or the version
/// its bytes say when `None`), and hands `f` the result: the one reading
/// of a datagram for the command line, the Python package and the
/// conformance harness.
pub fn decode_entry<R>(
    bytes: &[u8],
    version: Option<Version>,
    token: TokenMode,
    f: impl FnOnce(&DecodedEntry<'_>) -> R,
) -> R {
    let (version, reason) = match version {
        Some(v) => (v, VersionReason::Given),
        None => super::detect_version(bytes),
    };
    let ctx = PacketCtx {
        version: Some(version),
        token,
    };
    let packet = Packet::decode(&mut Reader::new(bytes, Mode::Lenient), ctx);
    let verdict = PacketVerdicts::of(bytes, version, packet.as_ref().ok());
    let contents = match &packet {
        Ok(Packet::Connection(p)) => p.contents(),
        _ => None,
    };
    let mismatch = packet
        .as_ref()
        .ok()
        .and_then(|p| reencode(bytes, p, contents.as_ref(), &mut Vec::new()));
    let failed = packet.is_err()
        || mismatch.is_some()
        || contents.as_ref().is_some_and(|c| c.first_error().is_some());
    let entry = PacketEntry {
        bytes: bytes.len(),
        version,
        version_reason: reason,
        version_reason_text: reason.to_string(),
        verdict,
        packet: packet
            .as_ref()
            .ok()
            .map(|p| PacketJson::new(p, contents.as_ref(), 0)),
        error: packet.as_ref().err(),
        reencode: ReencodeJson::of(packet.is_ok(), mismatch),
        failed,
    };
    f(&DecodedEntry {
        entry,
        packet: packet.as_ref().ok(),
        contents: contents.as_ref(),
        mismatch,
    })
}

/// `bytes` read as `version` as `packet decode --format json` prints it:
/// the PACKET_ENTRY as a JSON value, or the error when no packet header
/// reads.
pub fn entry_value(
    bytes: &[u8],
    version: Version,
    token: TokenMode,
) -> Result<serde_json::Value, DecodeError> {
    decode_entry(bytes, Some(version), token, |d| match d.entry.error {
        Some(e) => Err(e.clone()),
        None => Ok(serde_json::to_value(&d.entry).expect("packet JSON is plain data")),
    })
}
