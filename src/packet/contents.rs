//! A data packet's payload read down to its messages, once: every chunk,
//! the message header in it, and the fields of the messages whose
//! layout is known. [`reencode`] writes all of it back and says where the
//! result first differs from the datagram.

use super::msg::{Fields, Layout, MsgHeader, MsgId, Rejected};
use super::{Chunk, Packet, PacketCtx, Version};
use crate::bytes::{Blob, hex_preview};
use crate::codec::{Codec, DecodeError, Mode, Reader, first_difference};
use serde::Serialize;

/// The chunks of a data packet's payload and the message in each.
///
/// Offsets in errors count bytes of the payload (after decompression);
/// [`super::ConnPacket::locate`] places them in the datagram or file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contents<'a> {
    /// The chunks read, in order.
    pub chunks: Vec<MessageChunk<'a>>,
    /// The bytes after the last chunk read: nothing in a well-formed
    /// packet; from the unreadable chunk on when `error` is set.
    pub rest: &'a [u8],
    /// The chunk that could not be read (its header or data cut short):
    /// reading stopped there, keeping the chunks before it.
    pub error: Option<DecodeError>,
}

/// One chunk and the message it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageChunk<'a> {
    /// The chunk as on the wire.
    pub chunk: Chunk<'a>,
    /// Its message, or why its header cannot be read.
    pub message: Result<Message<'a>, DecodeError>,
}

/// A message: its header, its body and, when its layout is known, the
/// body read into fields.
///
/// The one view of a message everywhere teeoracle shows one: its JSON
/// (`Serialize`; the MESSAGE shape of `src/schema.md`) and its text
/// (`Display`: `game:3 Sv_Chat team=0 client_id=-1 message="hi"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// The protocol version whose tables name and read it.
    pub version: Version,
    /// The id and whether it is a system message.
    pub header: MsgHeader,
    /// The bytes after the header.
    pub body: &'a [u8],
    /// The body's fields (messages with a known [`Layout`] only), or why
    /// the body does not fit the layout.
    pub fields: Option<Result<Fields<'a>, DecodeError>>,
}

impl<'a> Message<'a> {
    /// Reads the message in chunk data that starts at payload offset `at`.
    pub fn read(data: &'a [u8], at: u64, version: Version) -> Result<Message<'a>, DecodeError> {
        let mut r = Reader::at(data, at, Mode::Lenient);
        let header = MsgHeader::decode(&mut r, ())?;
        let body_at = r.offset();
        let body = r.rest();
        let fields = Layout::of(version, &header)
            .map(|layout| Fields::decode(&mut Reader::at(body, body_at, Mode::Lenient), layout));
        Ok(Message {
            version,
            header,
            body,
            fields,
        })
    }

    /// Reads a demo's message: `data` is the message zero-padded to a
    /// multiple of 4 bytes (the recorder pads it to pack it as ints), and
    /// the padding is not recorded. Takes the shortest zero tail (at most
    /// 3 bytes) whose removal leaves a body that fits its layout exactly;
    /// with none, the whole of `data` (the tail then shows as trailing
    /// bytes or in the body). Returns the message and the padding length.
    ///
    /// A layout that ends open (every int left, an optional int) cannot
    /// tell padding from trailing zero values: it gets the shortest reading.
    pub fn read_padded(
        data: &'a [u8],
        at: u64,
        version: Version,
    ) -> Result<(Message<'a>, usize), DecodeError> {
        let zeros = data.iter().rev().take(3).take_while(|&&b| b == 0).count();
        let mut buf = Vec::new();
        for padding in (1..=zeros).rev() {
            let Ok(m) = Message::read(&data[..data.len() - padding], at, version) else {
                continue;
            };
            let fits = matches!(&m.fields, Some(Ok(f)) if f.trailing.is_empty());
            if fits && m.fields_exact(version, &mut buf) == Some(true) {
                return Ok((m, padding));
            }
        }
        Message::read(data, at, version).map(|m| (m, 0))
    }

    /// Appends the header and the fields (or the body as it is, when it
    /// was not read into fields).
    pub fn encode(&self, out: &mut Vec<u8>, version: Version) {
        self.header.encode(out, ());
        match self.typed(version) {
            Some((fields, layout)) => fields.encode(out, layout),
            None => out.extend_from_slice(self.body),
        }
    }

    /// Whether the fields re-encode to exactly the body (`None` when the
    /// body was not read into fields). `buf` is scratch.
    pub fn fields_exact(&self, version: Version, buf: &mut Vec<u8>) -> Option<bool> {
        let (fields, layout) = self.typed(version)?;
        buf.clear();
        fields.encode(buf, layout);
        Some(buf[..] == *self.body)
    }

    /// The message's name in its version's tables, if known.
    pub fn name(&self) -> Option<&'static str> {
        self.header.name(self.version)
    }

    /// The field DDNet's generated unpacker refuses as out of range, if
    /// the fields were read and one is.
    pub fn rejected(&self) -> Option<Rejected> {
        let (fields, layout) = self.typed(self.version)?;
        layout.rejected(fields)
    }

    /// The same message with the error of a body that does not fit its
    /// layout placed by `locate` (e.g. in a datagram or file).
    pub fn located(&self, locate: impl Fn(&DecodeError) -> DecodeError) -> Message<'a> {
        let mut m = self.clone();
        if let Some(Err(e)) = &mut m.fields {
            *e = locate(e);
        }
        m
    }

    /// The fields that were read, with their layout.
    fn typed(&self, version: Version) -> Option<(&Fields<'a>, Layout)> {
        match &self.fields {
            Some(Ok(fields)) => Some((fields, Layout::of(version, &self.header)?)),
            _ => None,
        }
    }
}

impl<'a> Contents<'a> {
    /// Reads `num_chunks` chunks of `version` from `payload`, and the
    /// message in each.
    pub fn read(payload: &'a [u8], version: Version, num_chunks: u8) -> Contents<'a> {
        let mut r = Reader::new(payload, Mode::Lenient);
        let mut chunks = Vec::with_capacity(num_chunks.into());
        let mut error = None;
        for _ in 0..num_chunks {
            let start = r.position();
            match Chunk::decode(&mut r, version) {
                Ok(chunk) => {
                    let at = (r.position() - chunk.data.len()) as u64;
                    let message = Message::read(chunk.data, at, version);
                    chunks.push(MessageChunk { chunk, message });
                }
                Err(e) => {
                    error = Some(e);
                    r = Reader::new(&payload[start..], Mode::Lenient);
                    break;
                }
            }
        }
        Contents {
            chunks,
            rest: r.rest(),
            error,
        }
    }

    /// The first thing that cannot be read, in payload order: a message
    /// header, or the chunk where reading stopped. (A body that does not
    /// fit its layout is not one: DDNet ignores that message and goes on.)
    pub fn first_error(&self) -> Option<&DecodeError> {
        self.chunks
            .iter()
            .find_map(|c| c.message.as_ref().err())
            .or(self.error.as_ref())
    }

    /// Appends the payload these contents encode to: each chunk header,
    /// message header and field set (or body) re-encoded, then `rest`.
    pub fn encode(&self, out: &mut Vec<u8>, version: Version) {
        for c in &self.chunks {
            c.chunk.header.encode(out, version);
            match &c.message {
                Ok(m) => m.encode(out, version),
                Err(_) => out.extend_from_slice(c.chunk.data),
            }
        }
        out.extend_from_slice(self.rest);
    }
}

impl Serialize for Message<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("system", &self.header.sys)?;
        match self.header.id {
            MsgId::Ordinal(id) => map.serialize_entry("id", &id)?,
            MsgId::Uuid(u) => map.serialize_entry("uuid", &u)?,
        }
        map.serialize_entry("name", &self.name())?;
        match &self.fields {
            Some(Ok(fields)) => {
                map.serialize_entry("fields", fields)?;
                if !fields.trailing.is_empty() {
                    map.serialize_entry("trailing", &Blob::from(fields.trailing))?;
                }
                if let Some(r) = self.rejected() {
                    map.serialize_entry("rejected", &r)?;
                }
            }
            Some(Err(e)) => {
                map.serialize_entry("fields_error", e)?;
                map.serialize_entry("body", &Blob::from(self.body))?;
            }
            None => map.serialize_entry("body", &Blob::from(self.body))?,
        }
        map.end()
    }
}

impl std::fmt::Display for Message<'_> {
    /// `sys:1 INFO version="0.6 626fce9a778df4d4" password=""`, then
    /// `trailing=HEX` or `rejected: FIELD=V is outside MIN..=MAX`; an
    /// unknown layout shows `body=HEX`, a body that does not fit its
    /// layout `(does not fit its layout: ERROR) body=HEX`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.header.sys { "sys" } else { "game" };
        match (self.header.id, self.name()) {
            (MsgId::Ordinal(id), Some(n)) => write!(f, "{kind}:{id} {n}")?,
            (MsgId::Ordinal(id), None) => write!(f, "{kind}:{id}")?,
            (MsgId::Uuid(_), Some(n)) => write!(f, "{kind}:ex {n}")?,
            (MsgId::Uuid(u), None) => write!(f, "{kind}:ex {u}")?,
        }
        match &self.fields {
            Some(Ok(fields)) => {
                for (name, value) in &fields.fields {
                    write!(f, " {name}={value}")?;
                }
                if !fields.trailing.is_empty() {
                    write!(f, " trailing={}", hex_preview(fields.trailing))?;
                }
                match self.rejected() {
                    Some(r) => write!(f, " (DDNet rejects it: {r})"),
                    None => Ok(()),
                }
            }
            Some(Err(e)) => write!(
                f,
                " (does not fit its layout: {e}) body={}",
                hex_preview(self.body)
            ),
            None => write!(f, " body={}", hex_preview(self.body)),
        }
    }
}

/// Where re-encoding a decoded datagram first differs from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// Which bytes differ.
    pub layer: Layer,
    /// The first differing byte, counted in that layer.
    pub offset: usize,
}

/// The layers a re-encoding is compared at.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// The datagram as sent (header, compressed payload, token).
    Datagram,
    /// The payload after decompression, re-encoded from its chunks,
    /// message headers and fields (checked when the datagram is exact).
    Payload,
}

/// Re-encodes `packet` (decoded from `bytes`) and, for a data packet, its
/// `contents`; where the result first differs, or `None` if every layer
/// is byte-exact. `buf` is scratch, reused across calls.
pub fn reencode(
    bytes: &[u8],
    packet: &Packet<'_>,
    contents: Option<&Contents<'_>>,
    buf: &mut Vec<u8>,
) -> Option<Mismatch> {
    buf.clear();
    packet.encode(buf, PacketCtx::default());
    if let Some(offset) = first_difference(buf, bytes) {
        return Some(Mismatch {
            layer: Layer::Datagram,
            offset,
        });
    }
    let (Packet::Connection(p), Some(contents)) = (packet, contents) else {
        return None;
    };
    buf.clear();
    contents.encode(buf, p.version);
    first_difference(buf, &p.payload).map(|offset| Mismatch {
        layer: Layer::Payload,
        offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::msg::Value;
    use crate::packet::{CHUNK_VITAL, ChunkHeader};
    use crate::testing::{codec_law, qc, strict_law};
    use quickcheck::TestResult;

    /// A 0.6 payload: INFO (sys 1) as a vital chunk, then a chunk cut short.
    fn payload(cut: bool) -> Vec<u8> {
        let mut body = vec![1 << 1 | 1];
        body.extend(b"0.6 626fce9a778df4d4\0\0");
        let mut p = Vec::new();
        ChunkHeader::new(Version::V06, CHUNK_VITAL, body.len() as u16, Some(1))
            .encode(&mut p, Version::V06);
        p.extend(&body);
        if cut {
            ChunkHeader::new(Version::V06, 0, 9, None).encode(&mut p, Version::V06);
            p.extend([1, 2]);
        }
        p
    }

    #[test]
    fn messages_are_read_into_fields_with_payload_offsets() {
        let p = payload(false);
        let c = Contents::read(&p, Version::V06, 1);
        assert_eq!((c.chunks.len(), c.rest, &c.error), (1, &[][..], &None));
        let m = c.chunks[0].message.as_ref().unwrap();
        assert_eq!(m.header.id, MsgId::Ordinal(1));
        assert_eq!(m.header.name(Version::V06), Some("INFO"));
        let fields = m.fields.as_ref().unwrap().as_ref().unwrap();
        assert_eq!(
            fields.get("version"),
            Some(&Value::Text(b"0.6 626fce9a778df4d4"[..].into()))
        );
        let mut buf = Vec::new();
        assert_eq!(m.fields_exact(Version::V06, &mut buf), Some(true));
        buf.clear();
        c.encode(&mut buf, Version::V06);
        assert_eq!(buf, p);
    }

    #[test]
    fn a_demo_message_loses_its_int_padding() {
        // Sv_Chat (game 3) team 0, client -1, "hi": 6 bytes, padded to 8.
        let data = [3 << 1, 0x00, 0x40, b'h', b'i', 0, 0, 0];
        let (m, padding) = Message::read_padded(&data, 0, Version::V06).unwrap();
        assert_eq!(padding, 2);
        assert_eq!(
            m.to_string(),
            r#"game:3 Sv_Chat team=0 client_id=-1 message="hi""#
        );
        // An unknown id cannot tell: nothing is taken away.
        let data = [27 << 1 | 1, 1, 0, 0]; // sys 27: unknown in 0.6
        let (m, padding) = Message::read_padded(&data, 0, Version::V06).unwrap();
        assert_eq!((padding, m.body), (0, &data[1..]));
    }

    #[test]
    fn a_cut_chunk_keeps_the_chunks_before_it() {
        let p = payload(true);
        let c = Contents::read(&p, Version::V06, 2);
        assert_eq!(c.chunks.len(), 1);
        let e = c.error.as_ref().unwrap();
        // The cut chunk's data starts after its 2-byte header.
        assert_eq!(
            (e.offset, e.context),
            (p.len() as u64 - 2, "payload.chunk.data")
        );
        assert_eq!(c.rest, &p[p.len() - 4..]);
        assert_eq!(c.first_error(), Some(e));
        let mut buf = Vec::new();
        c.encode(&mut buf, Version::V06);
        assert_eq!(buf, p, "what was not read is kept as it is");
    }

    #[test]
    fn a_non_canonical_field_is_a_payload_mismatch() {
        // SNAPEMPTY (sys 6) with tick 1 written in two bytes.
        let mut p = vec![0x00, 0x00, 0x01];
        let body = [6 << 1 | 1, 0x81, 0x00, 0x01];
        ChunkHeader::new(Version::V06, 0, body.len() as u16, None).encode(&mut p, Version::V06);
        p.extend(body);
        let packet = Packet::decode(
            &mut Reader::new(&p, Mode::Lenient),
            PacketCtx {
                version: Some(Version::V06),
                token: crate::packet::TokenMode::Absent,
            },
        )
        .unwrap();
        let Packet::Connection(c) = &packet else {
            panic!()
        };
        let contents = c.contents().unwrap();
        let m = contents.chunks[0].message.as_ref().unwrap();
        assert_eq!(m.fields_exact(Version::V06, &mut Vec::new()), Some(false));
        assert_eq!(
            reencode(&p, &packet, Some(&contents), &mut Vec::new()),
            Some(Mismatch {
                layer: Layer::Payload,
                offset: 3
            })
        );
    }

    #[test]
    fn prop_chunks_obey_the_codec_law() {
        fn prop(flags: u8, seq: u16, data: Vec<u8>, v7: bool) -> TestResult {
            let version = if v7 { Version::V07 } else { Version::V06 };
            let flags = flags & 3;
            let data = &data[..data.len().min(0x3ff)];
            let seq = (flags & CHUNK_VITAL != 0).then_some(seq & 0x3ff);
            let chunk = Chunk {
                header: ChunkHeader::new(version, flags, data.len() as u16, seq),
                data,
            };
            match codec_law(&chunk, version, &mut Vec::new()) {
                Ok(()) => TestResult::passed(),
                Err(e) => TestResult::error(e),
            }
        }
        qc().tests(2_000)
            .quickcheck(prop as fn(u8, u16, Vec<u8>, bool) -> TestResult);
        fn bytes(b: Vec<u8>, v7: bool) -> TestResult {
            let version = if v7 { Version::V07 } else { Version::V06 };
            match strict_law::<Chunk<'_>, Version>(&b, version) {
                Ok(()) => TestResult::passed(),
                Err(e) => TestResult::error(e),
            }
        }
        qc().tests(5_000)
            .quickcheck(bytes as fn(Vec<u8>, bool) -> TestResult);
    }

    #[test]
    fn prop_packets_obey_the_codec_law() {
        // Any bytes that decode are a packet value; it must encode back to
        // them and decode again to the same value.
        fn prop(b: Vec<u8>, v7: bool, token: u8) -> TestResult {
            let ctx = PacketCtx {
                version: Some(if v7 { Version::V07 } else { Version::V06 }),
                token: match token % 3 {
                    0 => crate::packet::TokenMode::Auto,
                    1 => crate::packet::TokenMode::Present,
                    _ => crate::packet::TokenMode::Absent,
                },
            };
            let law = strict_law::<Packet<'_>, PacketCtx>(&b, ctx).and_then(|()| {
                match Packet::decode(&mut Reader::new(&b, Mode::Lenient), ctx) {
                    Ok(p) => codec_law(&p, ctx, &mut Vec::new()),
                    Err(_) => Ok(()),
                }
            });
            match law {
                Ok(()) => TestResult::passed(),
                Err(e) => TestResult::error(e),
            }
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(Vec<u8>, bool, u8) -> TestResult);
    }
}
