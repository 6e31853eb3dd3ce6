//! `packet encode`: datagrams from the JSON `packet decode --format json`
//! prints, its exact inverse.
//!
//! The input is a `packet_decode` document (every packet in it) or one of
//! its PACKET_ENTRY objects (`version` and `packet`). The fields the
//! decoder derives (`verdict`, `reencode`, a chunk's `vital`, a message's
//! `name`, ...) are accepted and not needed; lengths it prints (`bytes`,
//! a chunk's `size`, `compressed_size`) are checked against what is
//! encoded. Messages are given by fields (by name, through the message's
//! [`Layout`]) or as a raw `body`; a message may be named instead of
//! numbered. Any other key is an error naming its JSON path.
//!
//! ```
//! let json = r#"{"version": "0.6", "packet": {"form": "connection", "flags": 0, "ack": 0,
//!     "chunks": [{"flags": 0, "seq": null,
//!       "message": {"name": "Cl_Say", "fields": {"team": 0, "message": "hi"}}}]}}"#;
//! let datagrams = teeoracle::packet::spec::encode_str(json)?;
//! assert_eq!(hex::encode(&datagrams[0]), "000001000522006869 00".replace(' ', ""));
//! # Ok::<(), teeoracle::codec::SpecError>(())
//! ```
//!
//! What is built is encoded by the packet's own codecs ([`MsgHeader`],
//! [`Fields`], [`ChunkHeader`], [`ConnPacket::encode`], Huffman), then
//! decoded again: a packet whose bytes would not decode as described is
//! an error, not a datagram.

use super::msg::{Fields, Layout, MsgHeader, MsgId};
use super::{
    Chunk, ChunkHeader, Compression, ConnPacket, Message, Packet, PacketCtx, TokenMode, Version,
    control, flags,
};
use crate::codec::{Codec, Mode, Reader, SpecError};
use crate::huffman::HuffmanInfo;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Encodes every packet of a JSON text (see the module doc).
pub fn encode_str(json: &str) -> Result<Vec<Vec<u8>>, SpecError> {
    encode(&crate::codec::spec::from_json(json)?)
}

/// Encodes every packet of a `packet_decode` document, or the one packet
/// of a PACKET_ENTRY.
pub fn encode(json: &Value) -> Result<Vec<Vec<u8>>, SpecError> {
    let mut doc = Obj::new(json, String::new())?;
    if !doc.map.contains_key("packets") {
        return Ok(vec![entry(doc)?]);
    }
    if let Some(kind) = doc.str("kind")?
        && kind != "packet_decode"
    {
        return Err(doc.fail("kind", format!("\"packet_decode\", found {kind:?}")));
    }
    if let Some(v) = doc.uint("schema_version", u64::MAX)?
        && v != u64::from(crate::schema::SCHEMA_VERSION)
    {
        let want = crate::schema::SCHEMA_VERSION;
        return Err(doc.fail("schema_version", format!("{want}, found {v}")));
    }
    doc.derived(&["failed"]);
    let packets = doc.array("packets")?.unwrap_or_default();
    doc.done()?;
    packets
        .into_iter()
        .map(|(path, v)| entry(Obj::new(v, path)?))
        .collect()
}

/// A PACKET_ENTRY: `version`, `packet`, and the decoder's derived fields.
fn entry(mut e: Obj<'_>) -> Result<Vec<u8>, SpecError> {
    let version = match e.str("version")? {
        Some("0.6") => Version::V06,
        Some("0.7") => Version::V07,
        found => return Err(e.fail("version", format!("\"0.6\" or \"0.7\", found {found:?}"))),
    };
    let bytes = e.uint("bytes", u64::MAX)?;
    e.derived(&[
        "version_reason",
        "version_reason_text",
        "verdict",
        "error",
        "reencode",
        "failed",
    ]);
    let Some(packet) = e.object("packet")? else {
        let why = match e.map.contains_key("error") {
            true => {
                "a `packet`: this one did not decode (see `error`), so it has no fields to encode"
            }
            false => "a `packet`",
        };
        return Err(e.fail("packet", why.into()));
    };
    e.done()?;
    let datagram = encode_packet(packet, version)?;
    match bytes {
        Some(n) if n != datagram.len() as u64 => {
            let found = datagram.len();
            let want = format!("{n}, as given; the packet encodes to {found} bytes");
            Err(e.fail("bytes", want))
        }
        _ => Ok(datagram),
    }
}

/// A connection packet: header fields, then the control message or the
/// chunks, compressed as `compression` says.
fn connection(p: &mut Obj<'_>, version: Version) -> Result<ConnParts, SpecError> {
    let header_flags = p.uint("flags", 63)?.unwrap_or(0) as u8;
    let ack = p.uint("ack", 1023)?.unwrap_or(0) as u16;
    let header_token = match version {
        Version::V07 => Some(p.hex_array("header_token")?),
        Version::V06 if p.has("header_token") => {
            return Err(p.fail("header_token", "absent in 0.6".into()));
        }
        Version::V06 => None,
    };
    let token = match (version, p.has("token")) {
        (_, false) => None,
        (Version::V07, true) => {
            return Err(p.fail(
                "token",
                "absent in 0.7 (its token is `header_token`)".into(),
            ));
        }
        (Version::V06, true) => Some(p.hex_array("token")?),
    };
    p.derived(&["control", "resend_requested", "payload_error"]);
    let control = header_flags
        & match version {
            Version::V06 => flags::CONTROL_06,
            Version::V07 => flags::CONTROL_07,
        }
        != 0;
    let mut payload = Vec::new();
    let mut chunks = 0usize;
    if control {
        for key in ["chunks", "after_chunks"] {
            if p.has(key) {
                return Err(p.fail(key, "absent in a control packet".into()));
            }
        }
        if let Some(mut m) = p.object("control_message")? {
            let id = match (m.uint("id", 255)?, m.str("name")?) {
                (Some(id), _) => id as u8,
                (None, Some(name)) => (0..=u8::MAX)
                    .find(|&id| control::name(version, id) == Some(name))
                    .ok_or_else(|| m.fail("name", format!("a {version} control message name")))?,
                (None, None) => return Err(m.fail("id", "present (or `name`)".into())),
            };
            payload.push(id);
            payload.extend(m.hex("data")?.unwrap_or_default());
            m.done()?;
        }
    } else {
        if p.has("control_message") {
            return Err(p.fail("control_message", "absent in a data packet".into()));
        }
        for (path, chunk) in p.array("chunks")?.unwrap_or_default() {
            encode_chunk(Obj::new(chunk, path)?, version, &mut payload)?;
            chunks += 1;
        }
        payload.extend(p.hex("after_chunks")?.unwrap_or_default());
    }
    let num_chunks = match p.uint("num_chunks", 255)? {
        Some(n) => n as u8,
        None => u8::try_from(chunks)
            .map_err(|_| p.fail("chunks", format!("at most 255 chunks, found {chunks}")))?,
    };
    let (compression, compressed_size) = match p.object("compression")? {
        None => (None, None),
        Some(mut c) => {
            let compressed_size = c.uint("compressed_size", u64::MAX)?;
            let size = c.uint("size", u64::MAX)?;
            let (ddnet, legacy) = (c.bool("ddnet")?, c.bool("legacy")?);
            let trailing = c.hex("trailing")?.unwrap_or_default();
            let raw = c.hex("raw")?;
            if let Some(size) = size
                && size != payload.len() as u64
            {
                let found = payload.len();
                return Err(c.fail("size", format!("the payload's {found} bytes, found {size}")));
            }
            let (ddnet, legacy, kept) = match (raw, ddnet, legacy) {
                // No writer makes these bytes: they are sent as they are.
                (Some(raw), ..) => (false, false, raw),
                (None, Some(false), Some(false)) => {
                    let want = "present when no writer makes the compressed bytes";
                    return Err(c.fail("raw", want.into()));
                }
                (None, None, None) => (true, false, trailing),
                (None, d, l) => (d.unwrap_or(false), l.unwrap_or(false), trailing),
            };
            c.done()?;
            let huffman = HuffmanInfo {
                bits: 0,
                len: 0,
                ddnet,
                legacy,
                trailing: if ddnet || legacy { kept.len() } else { 0 },
            };
            (Some((huffman, kept)), compressed_size)
        }
    };
    Ok(ConnParts {
        version,
        flags: header_flags,
        ack,
        num_chunks,
        header_token,
        compressed_size,
        compression,
        payload,
        token,
    })
}

/// A CHUNK: its header from `flags` and `seq` (or a non-canonical one's
/// bytes, `header`), its data from `data` or else `message`.
fn encode_chunk(mut c: Obj<'_>, version: Version, out: &mut Vec<u8>) -> Result<(), SpecError> {
    let chunk_flags = c.uint("flags", 3)?.unwrap_or(0) as u8;
    let seq = c.uint("seq", 1023)?.map(|s| s as u16);
    let max_size = match version {
        Version::V06 => 0x3ff,
        Version::V07 => 0xfff,
    };
    let stored = match c.hex("header")? {
        None => None,
        Some(bytes) => {
            let want = "a chunk header's bytes, as stored, with the chunk's `flags` and `seq`";
            match crate::codec::decode_exact::<ChunkHeader, _>(&bytes, Mode::Strict, version) {
                Ok(h) if h.flags == chunk_flags && h.seq(version) == seq => Some(h),
                _ => return Err(c.fail("header", want.into())),
            }
        }
    };
    let size = c.uint("size", u64::MAX)?;
    c.derived(&["vital", "resend", "canonical", "message_error"]);
    let vital = chunk_flags & super::CHUNK_VITAL != 0;
    match (vital, seq) {
        (true, None) => return Err(c.fail("seq", "a number: the chunk is vital".into())),
        (false, Some(_)) => return Err(c.fail("seq", "null: the chunk is not vital".into())),
        _ => {}
    }
    let data = match (c.hex("data")?, c.object("message")?) {
        (Some(data), _) => data,
        (None, Some(m)) => encode_message(m, version)?,
        (None, None) => return Err(c.fail("message", "present (or `data`)".into())),
    };
    let found = data.len();
    if found > max_size {
        let want = format!("at most {max_size} bytes of data in {version}, found {found}");
        return Err(c.fail("size", want));
    }
    if let Some(size) = size
        && size != found as u64
    {
        let want = format!("{size}, as given; the message encodes to {found} bytes");
        return Err(c.fail("size", want));
    }
    c.done()?;
    let size = found as u16;
    let header = match stored {
        // Both copies of the sequence's high bits as stored.
        Some(h) if h.size == size => h,
        Some(h) => {
            let want = format!("a header of the data's size, {size}; found {}", h.size);
            return Err(c.fail("header", want));
        }
        None => ChunkHeader::new(version, chunk_flags, size, seq),
    };
    Chunk {
        header,
        data: &data,
    }
    .encode(out, version);
    Ok(())
}

/// A MESSAGE: header from `system` and `id` or `uuid` (or `name`), body
/// from `fields` (and `trailing`) through its layout, or `body`.
fn encode_message(mut m: Obj<'_>, version: Version) -> Result<Vec<u8>, SpecError> {
    let sys = m.bool("system")?;
    let name = m.str("name")?;
    let id = match (m.int("id")?, m.str("uuid")?) {
        (Some(_), Some(_)) => return Err(m.fail("uuid", "absent with `id`".into())),
        (Some(id), None) if !(1..0x10000).contains(&id) => {
            let want = format!("1..=65535 (0 announces a `uuid`), found {id}");
            return Err(m.fail("id", want));
        }
        (Some(id), None) => Some(MsgId::Ordinal(id as i32)),
        (None, Some(u)) => Some(MsgId::Uuid(
            u.parse()
                .map_err(|e| m.fail("uuid", format!("a UUID ({e})")))?,
        )),
        (None, None) => None,
    };
    let header = match (id, sys) {
        (Some(id), Some(sys)) => MsgHeader { sys, id },
        // By name: the tables give the id, and the system bit if missing.
        (id, sys) => {
            let Some(name) = name else {
                let want = match id {
                    None => "present (or `uuid`, or `name`)",
                    Some(_) => "present (true or false)",
                };
                return Err(m.fail(if id.is_none() { "id" } else { "system" }, want.into()));
            };
            match MsgHeader::by_name(version, sys, name) {
                Some(h) if id.is_none_or(|id| id == h.id) => h,
                _ => {
                    let want = format!("a message name of {version}'s tables, found {name:?}");
                    return Err(m.fail("name", want));
                }
            }
        }
    };
    if let Some(name) = name
        && header.name(version) != Some(name)
    {
        let known = header
            .name(version)
            .map_or("null".into(), |n| format!("{n:?}"));
        let want = format!("{known} (the name of this id in {version}), found {name:?}");
        return Err(m.fail("name", want));
    }
    m.derived(&["rejected", "fields_error"]);
    let trailing = m.hex("trailing")?;
    let (fields, body) = match (m.object("fields")?, m.hex("body")?) {
        (Some(_), Some(_)) => return Err(m.fail("body", "absent with `fields`".into())),
        (Some(f), None) => {
            let Some(layout) = Layout::of(version, &header) else {
                let want = "absent: no layout is known for this message (give `body`)";
                return Err(m.fail("fields", want.into()));
            };
            let fields = layout
                .fields_from_json(f.map)
                .map_err(|e| SpecError::field(format!("{}.{}", f.path, e.field), e.expected))?;
            (Some(fields), Vec::new())
        }
        (None, body) => {
            if trailing.is_some() {
                return Err(m.fail("trailing", "absent without `fields`".into()));
            }
            (None, body.unwrap_or_default())
        }
    };
    m.done()?;
    let trailing = trailing.unwrap_or_default();
    let message = Message {
        version,
        header,
        body: &body,
        fields: fields.map(|fields| {
            Ok(Fields {
                fields,
                trailing: &trailing,
            })
        }),
    };
    let mut out = Vec::new();
    message.encode(&mut out, version);
    // The fields must read back as given (not so for an optional field
    // before a required one, or more ints than a count says).
    if let Some(Ok(given)) = &message.fields {
        let back = Message::read(&out, 0, version).ok().and_then(|r| r.fields);
        if !matches!(&back, Some(Ok(back)) if back == given) {
            let want = "fields that read back as given from the bytes they encode to";
            return Err(m.fail("fields", want.into()));
        }
    }
    Ok(out)
}

/// A packet's parts, owned; [`Parts::packet`] lends them to a [`Packet`].
enum Parts {
    Connless06 {
        header: [u8; 6],
        payload: Vec<u8>,
    },
    Connless07 {
        byte0: u8,
        token: [u8; 4],
        response_token: [u8; 4],
        payload: Vec<u8>,
    },
    Connection(ConnParts),
}

struct ConnParts {
    version: Version,
    flags: u8,
    ack: u16,
    num_chunks: u8,
    header_token: Option<[u8; 4]>,
    /// The compressed length the input gives, to check.
    compressed_size: Option<u64>,
    /// How to compress, and the bytes sent as they are: after the stream
    /// (`huffman.trailing` of them), or all of it when no writer makes it.
    compression: Option<(HuffmanInfo, Vec<u8>)>,
    payload: Vec<u8>,
    token: Option<[u8; 4]>,
}

impl Parts {
    fn packet(&self) -> Packet<'_> {
        match self {
            Parts::Connless06 { header, payload } => Packet::Connless06 {
                header: *header,
                payload,
            },
            Parts::Connless07 {
                byte0,
                token,
                response_token,
                payload,
            } => Packet::Connless07 {
                byte0: *byte0,
                token: *token,
                response_token: *response_token,
                payload,
            },
            Parts::Connection(c) => Packet::Connection(ConnPacket {
                version: c.version,
                flags: c.flags,
                ack: c.ack,
                num_chunks: c.num_chunks,
                header_token: c.header_token,
                compression: c.compression.as_ref().map(|(huffman, raw)| Compression {
                    huffman: *huffman,
                    raw,
                }),
                payload: Cow::Borrowed(&c.payload),
                token: c.token,
            }),
        }
    }
}

fn encode_packet(mut p: Obj<'_>, version: Version) -> Result<Vec<u8>, SpecError> {
    let form = p.str("form")?.unwrap_or_default().to_string();
    let parts = match (form.as_str(), version) {
        ("connless06", Version::V06) => {
            p.derived(&["header_form"]);
            Parts::Connless06 {
                header: p.hex_array("header")?,
                payload: p.hex("payload")?.unwrap_or_default(),
            }
        }
        ("connless07", Version::V07) => Parts::Connless07 {
            byte0: p
                .uint("byte0", 255)?
                .map_or(flags::CONNLESS_07 << 2 | 1, |b| b as u8),
            token: p.hex_array("token")?,
            response_token: p.hex_array("response_token")?,
            payload: p.hex("payload")?.unwrap_or_default(),
        },
        ("connection", _) => Parts::Connection(connection(&mut p, version)?),
        ("connless06" | "connless07", _) => {
            return Err(p.fail(
                "form",
                format!("a form of version {version}, found {form:?}"),
            ));
        }
        _ => {
            return Err(p.fail(
                "form",
                format!("\"connection\", \"connless06\" or \"connless07\", found {form:?}"),
            ));
        }
    };
    p.done()?;
    let packet = parts.packet();
    let mut out = Vec::new();
    packet.encode(&mut out, PacketCtx::default());
    decodes_as_built(&out, &packet, version).map_err(|what| {
        let (len, preview) = (out.len(), crate::bytes::hex_preview(&out));
        let want =
            format!("a packet whose bytes decode back to it: {what} ({len} bytes: {preview})");
        SpecError::field(p.path.clone(), want)
    })?;
    if let (Parts::Connection(c), Some(size)) = (&parts, parts.compressed_size()) {
        let found = out.len() - 3 - c.header_token.map_or(0, |t| t.len());
        if size != found as u64 {
            return Err(p.fail(
                "compression.compressed_size",
                format!("{size}, as given; the payload compresses to {found} bytes"),
            ));
        }
    }
    Ok(out)
}

/// Where the encoded bytes, decoded as the JSON's version (and 0.6 token
/// presence) says, first differ from the packet built.
fn decodes_as_built(bytes: &[u8], built: &Packet<'_>, version: Version) -> Result<(), String> {
    let token = match built {
        Packet::Connection(c) if c.token.is_some() => TokenMode::Present,
        _ => TokenMode::Absent,
    };
    let ctx = PacketCtx {
        version: Some(version),
        token,
    };
    let decoded = Packet::decode(&mut Reader::new(bytes, Mode::Lenient), ctx)
        .map_err(|e| format!("they do not decode: {e}"))?;
    let form = |p: &Packet<'_>| match p {
        Packet::Connless06 { .. } => "connless06",
        Packet::Connless07 { .. } => "connless07",
        Packet::Connection(_) => "connection",
    };
    match (&decoded, built) {
        (Packet::Connection(d), Packet::Connection(b)) => {
            let differs = [
                ("flags", d.flags != b.flags),
                ("ack", d.ack != b.ack),
                ("num_chunks", d.num_chunks != b.num_chunks),
                ("header_token", d.header_token != b.header_token),
                (
                    "compression (the flags' compression bit and `compression` disagree)",
                    d.compression.is_some() != b.compression.is_some(),
                ),
                ("the payload", d.payload != b.payload),
                ("token", d.token != b.token),
            ];
            match differs.iter().find(|(_, differs)| *differs) {
                Some((what, _)) => Err(format!("they decode with another {what}")),
                None => match (&d.compression, &b.compression) {
                    (Some(d), Some(b))
                        if (b.huffman.ddnet && !d.huffman.ddnet)
                            || (b.huffman.legacy && !d.huffman.legacy) =>
                    {
                        Err("the compressed bytes are not the writer's given".into())
                    }
                    _ => Ok(()),
                },
            }
        }
        (d, b) if d == b => Ok(()),
        (d, b) if form(d) != form(b) => Err(format!("they decode as a {} packet", form(d))),
        _ => Err("they decode with other header bytes".into()),
    }
}

impl Parts {
    fn compressed_size(&self) -> Option<u64> {
        match self {
            Parts::Connection(c) => c.compressed_size,
            _ => None,
        }
    }
}

/// A JSON object being read: its path, and the keys taken so far (any
/// other key is an error, once [`Obj::done`] is called). `null` is absent.
struct Obj<'v> {
    path: String,
    map: &'v Map<String, Value>,
    taken: Vec<&'static str>,
}

impl<'v> Obj<'v> {
    fn new(value: &'v Value, path: String) -> Result<Obj<'v>, SpecError> {
        match value {
            Value::Object(map) => Ok(Obj {
                path,
                map,
                taken: Vec::new(),
            }),
            other => Err(SpecError::field(
                path,
                format!("an object, found {}", kind(other)),
            )),
        }
    }

    fn at(&self, key: &str) -> String {
        match self.path.is_empty() {
            true => key.to_string(),
            false => format!("{}.{key}", self.path),
        }
    }

    fn fail(&self, key: &str, expected: String) -> SpecError {
        SpecError::field(self.at(key), expected)
    }

    fn get(&mut self, key: &'static str) -> Option<&'v Value> {
        self.taken.push(key);
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn has(&mut self, key: &'static str) -> bool {
        self.get(key).is_some()
    }

    /// Keys the decoder derives from the others: accepted, not read.
    fn derived(&mut self, keys: &[&'static str]) {
        self.taken.extend_from_slice(keys);
    }

    fn done(&self) -> Result<(), SpecError> {
        match self.map.keys().find(|k| !self.taken.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => {
                let mut known = self.taken.clone();
                known.sort_unstable();
                known.dedup();
                let want = format!("not a field here (those are: {})", known.join(", "));
                Err(self.fail(k, want))
            }
        }
    }

    fn str(&mut self, key: &'static str) -> Result<Option<&'v str>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.fail(key, format!("a string, found {}", kind(v)))),
        }
    }

    fn bool(&mut self, key: &'static str) -> Result<Option<bool>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.fail(key, format!("true or false, found {}", kind(v)))),
        }
    }

    fn int(&mut self, key: &'static str) -> Result<Option<i64>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.fail(key, format!("an integer, found {v}"))),
        }
    }

    fn uint(&mut self, key: &'static str, max: u64) -> Result<Option<u64>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if n <= max => Ok(Some(n)),
                _ => Err(self.fail(key, format!("an integer 0..={max}, found {v}"))),
            },
        }
    }

    fn hex(&mut self, key: &'static str) -> Result<Option<Vec<u8>>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => crate::bytes::parse_hex(s)
                .map(Some)
                .map_err(|e| self.fail(key, format!("hex bytes ({e})"))),
            Some(v) => Err(self.fail(key, format!("hex bytes, found {}", kind(v)))),
        }
    }

    fn hex_array<const N: usize>(&mut self, key: &'static str) -> Result<[u8; N], SpecError> {
        let bytes = self
            .hex(key)?
            .ok_or_else(|| self.fail(key, format!("{N} bytes as hex")))?;
        let found = bytes.len();
        bytes
            .try_into()
            .map_err(|_| self.fail(key, format!("{N} bytes as hex, found {found}")))
    }

    fn object(&mut self, key: &'static str) -> Result<Option<Obj<'v>>, SpecError> {
        let path = self.at(key);
        self.get(key).map(|v| Obj::new(v, path)).transpose()
    }

    fn array(&mut self, key: &'static str) -> Result<Option<Vec<(String, &'v Value)>>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => {
                let path = self.at(key);
                let indexed = items.iter().enumerate();
                Ok(Some(
                    indexed.map(|(i, v)| (format!("{path}[{i}]"), v)).collect(),
                ))
            }
            Some(v) => Err(self.fail(key, format!("an array, found {}", kind(v)))),
        }
    }
}

/// A JSON value's kind, for errors.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
