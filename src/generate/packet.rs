//! 0.6 and 0.7 datagrams: every control message, data packets of typed
//! messages (compressed or not, with DDNet's token or without), chunk
//! sizes at the limits, connectionless packets; written by the crate's
//! packet, chunk and message codecs and its Huffman coder.

use super::{Fault, Judgement, Kind, Made, Rng};
use crate::bytes::{Blob, Text};
use crate::check::Status;
use crate::codec::Codec;
use crate::huffman::{self, Flavor};
use crate::packet::msg::{Fields, Layout, MsgHeader, MsgId, Value};
use crate::packet::{
    CHUNK_RESEND, CHUNK_VITAL, Chunk, ChunkHeader, ConnPacket, MAX_PACKET_SIZE, Packet, PacketCtx,
    PacketVerdicts, TOKEN_MAGIC, TokenMode, Version, control, flags, reencode,
};
use std::borrow::Cow;

/// One datagram of `kind` in `version`.
pub(crate) fn generate(rng: &mut Rng, kind: Kind, version: Version) -> Made {
    match kind {
        Kind::Valid => match rng.below(5) {
            0 => control_packet(rng, version),
            1 => connless(rng, version),
            _ => {
                let compress = rng.one_in(2);
                data_packet(rng, version, compress, Flavor::Ddnet)
            }
        },
        Kind::Edge => edge(rng, version),
        Kind::Malformed => malformed(rng, version),
    }
}

/// A message (id and fields) of `version`'s tables with fields DDNet's
/// unpacker accepts: system or game, by number or by UUID.
pub(crate) fn message(rng: &mut Rng, version: Version) -> Vec<u8> {
    let header = loop {
        let sys = rng.one_in(3);
        let id = if rng.one_in(6) {
            let name = *rng.pick::<&str>(UUID_MESSAGES);
            MsgId::Uuid(crate::packer::calculate_uuid(name))
        } else {
            MsgId::Ordinal(rng.int(1, 40))
        };
        let header = MsgHeader { sys, id };
        if header.name(version).is_some() && Layout::of(version, &header).is_some() {
            break header;
        }
    };
    let layout = Layout::of(version, &header).expect("chosen with a layout");
    let mut out = Vec::new();
    header.encode(&mut out, ());
    // The shortest all-zero body that reads: zero is every int and the
    // empty string.
    let zeros = [0u8; 64];
    let Some(fields) = (0..=zeros.len()).find_map(|n| {
        let f = Fields::decode(&mut super::lenient(&zeros[..n]), layout).ok()?;
        f.trailing.is_empty().then_some(f)
    }) else {
        return out;
    };
    let mut random = Fields {
        fields: fields
            .fields
            .iter()
            .map(|(name, v)| (*name, random_value(rng, v)))
            .collect(),
        trailing: &[],
    };
    // Out-of-range ints back to zero: DDNet would drop the message.
    for i in 0..random.fields.len() {
        if layout
            .rejected(&random)
            .is_some_and(|r| r.field == random.fields[i].0)
        {
            random.fields[i].1 = fields.fields[i].1.clone();
        }
    }
    let mut body = Vec::new();
    random.encode(&mut body, layout);
    // A random length int can misplace a sized field: keep what reads back.
    let again = Fields::decode(&mut super::lenient(&body), layout);
    if again.is_ok_and(|f| f == random) && layout.rejected(&random).is_none() {
        out.extend_from_slice(&body);
    } else {
        fields.encode(&mut out, layout);
    }
    out
}

/// Some of DDNet's extended messages (by UUID name).
const UUID_MESSAGES: &[&str] = &[
    "clientver@ddnet.tw",
    "ping@ddnet.tw",
    "pong@ddnet.tw",
    "capabilities@ddnet.tw",
    "rcon-type@ddnet.tw",
    "map-details@ddnet.tw",
    "redirect@ddnet.org",
    "teamsstate@netmsg.ddnet.tw",
    "ddrace-time@netmsg.ddnet.tw",
    "record@netmsg.ddnet.tw",
    "killmsgteam@netmsg.ddnet.tw",
    "yourvote@netmsg.ddnet.org",
    "racefinish@netmsg.ddnet.org",
    "camera-info@netmsg.ddnet.org",
];

fn random_value(rng: &mut Rng, v: &Value<'_>) -> Value<'static> {
    match v {
        Value::Int(_) => Value::Int(if rng.one_in(2) {
            rng.int(0, 3)
        } else {
            rng.any_int()
        }),
        Value::Text(_) => Value::Text(Text::from(rng.text(16).into_bytes())),
        Value::Bytes(b) if !b.is_empty() => Value::Bytes(Blob::from(rng.bytes(b.len()))),
        Value::Bytes(_) => Value::Bytes(Blob::default()),
        Value::Ints(v) => Value::Ints(v.iter().map(|_| rng.int(0, 3)).collect()),
        Value::Texts(v) => Value::Texts(
            v.iter()
                .map(|_| Text::from(rng.text(8).into_bytes()))
                .collect(),
        ),
    }
}

fn conn(
    version: Version,
    flags: u8,
    ack: u16,
    num_chunks: u8,
    rng: &mut Rng,
) -> ConnPacket<'static> {
    ConnPacket {
        version,
        flags,
        ack,
        num_chunks,
        header_token: (version == Version::V07).then(|| token(rng)),
        compression: None,
        payload: Cow::Borrowed(&[]),
        token: None,
    }
}

fn token(rng: &mut Rng) -> [u8; 4] {
    (rng.next_u64() as u32).to_le_bytes()
}

fn control_flag(version: Version) -> u8 {
    match version {
        Version::V06 => flags::CONTROL_06,
        Version::V07 => flags::CONTROL_07,
    }
}

fn compression_flag(version: Version) -> u8 {
    match version {
        Version::V06 => flags::COMPRESSION_06,
        Version::V07 => flags::COMPRESSION_07,
    }
}

fn resend_flag(version: Version) -> u8 {
    match version {
        Version::V06 => flags::RESEND_06,
        Version::V07 => flags::RESEND_07,
    }
}

/// Every control message of `version`, with DDNet's token (0.6) or
/// without.
fn control_packet(rng: &mut Rng, version: Version) -> Made {
    let ids: &[u8] = match version {
        Version::V06 => &[
            control::KEEPALIVE,
            control::CONNECT,
            control::CONNECTACCEPT,
            control::ACCEPT_06,
            control::CLOSE,
        ],
        Version::V07 => &[
            control::KEEPALIVE,
            control::CONNECT,
            control::ACCEPT_07,
            control::CLOSE,
            control::TOKEN,
        ],
    };
    let id = *rng.pick(ids);
    let mut p = conn(
        version,
        control_flag(version),
        rng.int(0, 1023) as u16,
        0,
        rng,
    );
    let mut payload = vec![id];
    let reason = rng.text(20);
    match (version, id) {
        (Version::V06, control::CONNECT | control::CONNECTACCEPT) => {
            payload.extend_from_slice(TOKEN_MAGIC)
        }
        (_, control::CLOSE) if !reason.is_empty() => {
            payload.extend_from_slice(reason.as_bytes());
            payload.push(0);
        }
        (Version::V07, control::CONNECT | control::TOKEN) => {
            payload.extend_from_slice(&token(rng));
            // 0.7 clients pad token requests against reflection.
            payload.resize(payload.len() + if rng.one_in(2) { 512 - 4 } else { 0 }, 0);
        }
        _ => {}
    }
    let with_token = version == Version::V06 && !rng.one_in(4);
    if with_token {
        p.token = Some(token(rng));
    }
    p.payload = Cow::Owned(payload);
    let mut out = Vec::new();
    p.encode(&mut out);
    let name = control::name(version, id).unwrap_or("?");
    let tok = if with_token {
        ", with DDNet's token"
    } else {
        ""
    };
    Made::valid(out, format!("control {name}{tok}"))
}

/// A connectionless packet: 0.6's `ff` header or DDNet's extended one,
/// 0.7's tokens.
fn connless(rng: &mut Rng, version: Version) -> Made {
    let n = rng.int(0, 64) as usize;
    let payload = rng.bytes(n);
    let (packet, reason) = match version {
        Version::V06 => {
            let extended = rng.one_in(3);
            let header = if extended {
                let t = token(rng);
                [b'x', b'e', t[0], t[1], t[2], t[3]]
            } else {
                [0xff; 6]
            };
            (
                Packet::Connless06 {
                    header,
                    payload: &payload,
                },
                if extended {
                    "connectionless, DDNet's extended header"
                } else {
                    "connectionless"
                },
            )
        }
        Version::V07 => (
            Packet::Connless07 {
                byte0: flags::CONNLESS_07 << 2 | 1,
                token: token(rng),
                response_token: token(rng),
                payload: &payload,
            },
            "connectionless",
        ),
    };
    let mut out = Vec::new();
    packet.encode(&mut out, PacketCtx::default());
    Made::valid(out, reason)
}

/// The datagram of `p` with its payload Huffman-compressed by `flavor`.
fn compressed(p: &ConnPacket<'_>, flavor: Flavor) -> Vec<u8> {
    let header_only = ConnPacket {
        payload: Cow::Borrowed(&[]),
        token: None,
        ..p.clone()
    };
    let mut out = Vec::new();
    header_only.encode(&mut out);
    let token: &[u8] = p.token.as_ref().map_or(&[], |t| t);
    huffman::compress_parts(&[&p.payload, token], flavor, &mut out);
    out
}

/// Room for chunks in a datagram of `version` (with a 0.6 token if asked).
fn room(version: Version, with_token: bool) -> usize {
    let header = match version {
        Version::V06 => 3,
        Version::V07 => 7,
    };
    MAX_PACKET_SIZE - header - if with_token { 4 } else { 0 }
}

/// A data packet of 1..8 chunks, vital or not, compressed if asked.
fn data_packet(rng: &mut Rng, version: Version, compress: bool, flavor: Flavor) -> Made {
    let with_token = version == Version::V06 && rng.one_in(2);
    let mut payload = Vec::new();
    let mut n = 0u8;
    for _ in 0..rng.int(1, 8) {
        let data = message(rng, version);
        if payload.len() + 3 + data.len() > room(version, with_token) {
            break;
        }
        push_chunk(rng, version, &mut payload, &data);
        n += 1;
    }
    finish_data(rng, version, payload, n, with_token, compress, flavor)
}

fn push_chunk(rng: &mut Rng, version: Version, payload: &mut Vec<u8>, data: &[u8]) {
    let vital = rng.one_in(2);
    let flags = if vital {
        CHUNK_VITAL | if rng.one_in(8) { CHUNK_RESEND } else { 0 }
    } else {
        0
    };
    let seq = vital.then(|| rng.int(0, 1023) as u16);
    Chunk {
        header: ChunkHeader::new(version, flags, data.len() as u16, seq),
        data,
    }
    .encode(payload, version);
}

fn finish_data(
    rng: &mut Rng,
    version: Version,
    payload: Vec<u8>,
    num_chunks: u8,
    with_token: bool,
    compress: bool,
    flavor: Flavor,
) -> Made {
    let resend = if rng.one_in(10) {
        resend_flag(version)
    } else {
        0
    };
    let flags = resend
        | if compress {
            compression_flag(version)
        } else {
            0
        };
    let mut p = conn(version, flags, rng.int(0, 1023) as u16, num_chunks, rng);
    if with_token {
        p.token = Some(token(rng));
    }
    p.payload = Cow::Owned(payload);
    let out = if compress {
        compressed(&p, flavor)
    } else {
        let mut out = Vec::new();
        p.encode(&mut out);
        out
    };
    let reason = format!(
        "{num_chunks} chunk(s){}{}",
        if compress { ", compressed" } else { "" },
        if with_token {
            ", with DDNet's token"
        } else {
            ""
        }
    );
    if out.len() > MAX_PACKET_SIZE {
        // Incompressible messages grew past the limit: send them plain.
        return finish_data(
            rng,
            version,
            p.payload.into_owned(),
            num_chunks,
            with_token,
            false,
            flavor,
        );
    }
    Made::valid(out, reason)
}

/// Limits: chunks as large as a chunk header can say, datagrams of
/// exactly 1400 bytes, 255 chunks, the legacy Huffman writer.
fn edge(rng: &mut Rng, version: Version) -> Made {
    let with_token = version == Version::V06 && rng.one_in(2);
    match rng.below(4) {
        0 => {
            // Fill the datagram to exactly MAX_PACKET_SIZE with chunks of
            // the largest size the header can hold (0.6: 1023, 0.7: 4095).
            let max_chunk: usize = match version {
                Version::V06 => 0x3ff,
                Version::V07 => 0xfff,
            };
            let mut payload = Vec::new();
            let mut n = 0;
            let mut left = room(version, with_token);
            while left > 3 + 2 {
                let size = (left - 3).min(max_chunk);
                push_raw_chunk(rng, version, &mut payload, size);
                n += 1;
                left = room(version, with_token) - payload.len();
            }
            let mut made = finish_data(rng, version, payload, n, with_token, false, Flavor::Ddnet);
            made.reason = format!("{n} chunk(s) of up to {max_chunk} bytes filling 1400 bytes");
            made
        }
        1 => {
            // 255 chunks, the most a header can announce.
            let mut payload = Vec::new();
            for _ in 0..255 {
                push_raw_chunk(rng, version, &mut payload, 2);
            }
            let mut made =
                finish_data(rng, version, payload, 255, with_token, false, Flavor::Ddnet);
            made.reason = "255 chunks, each a message id alone".into();
            made
        }
        2 => {
            let mut made = data_packet(rng, version, true, Flavor::Legacy);
            made.reason = format!("{}, by the legacy Huffman writer", made.reason);
            made
        }
        _ => {
            // The first chunk's size says more than the payload holds:
            // DDNet keeps the datagram and stops reading its chunks there.
            let Made { bytes, .. } = data_packet(rng, version, false, Flavor::Ddnet);
            let header = match version {
                Version::V06 => 3,
                Version::V07 => 7,
            };
            let mut b = bytes[..header].to_vec();
            let size = rng.int(8, 1000) as u16;
            let n = rng.below(u64::from(size)) as usize;
            let data = rng.bytes(n);
            b[2] = 1;
            ChunkHeader::new(version, 0, size, None).encode(&mut b, version);
            let at = b.len() as u64;
            b.extend_from_slice(&data);
            Made::faulty(
                b,
                "a chunk's size beyond the end of the payload (DDNet stops reading chunks there)",
                at,
                "unexpected_eof",
            )
        }
    }
}

/// A chunk of exactly `size` bytes (at least 2): a game message DDNet has
/// no layout for (an id past its tables) and a raw body.
fn push_raw_chunk(rng: &mut Rng, version: Version, payload: &mut Vec<u8>, size: usize) {
    let mut data = Vec::with_capacity(size);
    MsgHeader {
        sys: false,
        id: MsgId::Ordinal(UNNAMED_ID),
    }
    .encode(&mut data, ());
    let body = size.saturating_sub(data.len());
    data.extend(rng.bytes(body));
    push_chunk(rng, version, payload, &data);
}

/// A game message id no table names (two varint bytes).
const UNNAMED_ID: i32 = 60;

/// A datagram teeoracle cannot read, or DDNet drops.
fn malformed(rng: &mut Rng, version: Version) -> Made {
    let Made { bytes, .. } = data_packet(rng, version, false, Flavor::Ddnet);
    match rng.below(3) {
        0 => {
            let mut b = bytes;
            b.resize(MAX_PACKET_SIZE + 1 + rng.below(64) as usize, 0);
            Made::faulty(b, "longer than 1400 bytes", 0, "length_too_large")
        }
        1 => {
            // A data packet with no chunk and no resend request.
            let mut p = conn(version, 0, rng.int(0, 1023) as u16, 0, rng);
            p.payload = Cow::Owned(Vec::new());
            let mut b = Vec::new();
            p.encode(&mut b);
            Made::faulty(b, "a data packet with no chunks", 0, "no_chunks")
        }
        _ => {
            let mut p = conn(
                version,
                control_flag(version),
                rng.int(0, 1023) as u16,
                rng.int(1, 255) as u8,
                rng,
            );
            p.payload = Cow::Owned(vec![control::KEEPALIVE]);
            let mut b = Vec::new();
            p.encode(&mut b);
            Made::faulty(
                b,
                "a control packet announcing chunks",
                0,
                "control_with_chunks",
            )
        }
    }
}

/// What `packet decode` finds: the packet decodes, its chunks and messages
/// read, it re-encodes exactly, and DDNet does not drop it.
pub(crate) fn judge(bytes: &[u8], version: Version) -> Judgement {
    let ctx = PacketCtx {
        version: Some(version),
        token: TokenMode::Auto,
    };
    let verdicts = |p: Option<&Packet<'_>>| PacketVerdicts::of(bytes, version, p);
    // A datagram DDNet keeps is accepted even where teeoracle's decoder
    // stops (a cut chunk: DDNet stops reading chunks there), as the
    // conformance suite classes it.
    let fail = |fault: Fault, drop: Option<&'static str>| {
        let mut findings = vec![fault.kind.clone()];
        findings.extend(drop.map(|r| format!("ddnet_drop:{r}")));
        Judgement {
            accepted: drop.is_none(),
            status: Status::Fail,
            fault: Some(fault),
            findings,
        }
    };
    let packet = match Packet::decode(&mut super::lenient(bytes), ctx) {
        Ok(p) => p,
        Err(e) => {
            // No readable header: nothing to keep, whatever DDNet says.
            let drop = verdicts(None).ddnet.dropped.map(|r| r.code());
            return Judgement {
                accepted: false,
                ..fail(Fault::of(&e), drop)
            };
        }
    };
    let v = verdicts(Some(&packet));
    let drop = v.ddnet.dropped.map(|r| r.code());
    let contents = match &packet {
        Packet::Connection(p) => p.contents(),
        _ => None,
    };
    if let (Packet::Connection(p), Some(e)) =
        (&packet, contents.as_ref().and_then(|c| c.first_error()))
    {
        return fail(Fault::of(&p.locate(e.clone(), 0)), drop);
    }
    if let Some(m) = reencode(bytes, &packet, contents.as_ref(), &mut Vec::new()) {
        return fail(
            Fault {
                offset: m.offset as u64,
                kind: "roundtrip".into(),
            },
            drop,
        );
    }
    if let Some(rule) = drop {
        let fault = Fault {
            offset: 0,
            kind: rule.into(),
        };
        return Judgement {
            accepted: false,
            ..fail(fault, None)
        };
    }
    Judgement {
        accepted: true,
        status: Status::Pass,
        fault: None,
        findings: Vec::new(),
    }
}
