//! Packets: every datagram of the same captures is decoded by teeoracle's
//! session (which fixes each peer's version from its first datagram) and by
//! libtw2's `protocol` (0.6) or `protocol7` (0.7) for that peer's version.
//! For 0.6 the token is handled as libtw2's own `Connection` does: per peer,
//! `token_hint = None` (libtw2's heuristic) until a CONNECT or
//! CONNECTACCEPT is seen, then `Some(token present)`, reset by CLOSE; the
//! stateless heuristic (`None` always) must give the same result.
//! Compared: connless 0.6/0.7 vs connection, the connless tokens and
//! payload, the control message kind (with the CLOSE reason and 0.7
//! response tokens), ack, the 0.6 security token or 0.7 header token, the
//! compression and resend flags, the number of chunks, and every chunk's
//! vital flag, sequence, resend flag and data bytes. The chunks are only
//! compared as a list when both readers find exactly `num_chunks` chunks
//! filling the payload; otherwise both must say so.
//!
//! The hand-made datagrams of `corpus/packet/malformed/packets.txt` and a
//! few crafted ones (`crafted()`) go through the same comparison, read
//! statelessly (`token_hint = None`).
//!
//! Every disagreement must be listed in [`KNOWN`] with its reason; an
//! unlisted disagreement fails, and so does a listed one that no longer
//! happens. On the captures there are none: all their datagrams agree.

use super::*;

pub const TESTS: &[Test] = tests![
    packets_of_captures_agree_with_libtw2 also SharedCorpus,
    handmade_datagrams_agree_with_libtw2_except_listed,
];

/// A disagreement between teeoracle and libtw2 that is expected.
struct Known {
    /// A capture name, `malformed/packets.txt` or `crafted`.
    source: &'static str,
    /// `frame N` in a capture, else the datagram's name.
    at: &'static str,
    /// How the two differ, as [`describe`] puts it.
    what: &'static str,
    /// Why.
    reason: &'static str,
}

/// Every expected disagreement. None comes from a capture: all their
/// datagrams agree. The rest are hand-made, for the places where the two
/// readers are known to part ways.
const KNOWN: &[Known] = &[
    Known {
        source: "crafted",
        at: "compressed_control_06",
        what: "control differs: token, ctrl",
        reason: "DDNet never compresses control packets and drops compressed ones \
                 (CNetBase::UnpackPacket). teeoracle does not decompress them: it reads the \
                 compressed bytes as the control message (and keeps them to re-encode); \
                 libtw2 decompresses them and only warns (ControlFlags).",
    },
    Known {
        source: "crafted",
        at: "close_3_byte_reason_06",
        what: "control differs: token, ctrl",
        reason: "Without connection state, 4 bytes after CLOSE are either a 3-byte reason \
                 and its NUL or no reason and a token. teeoracle's stateless guess takes a \
                 token whenever exactly 4 bytes follow; libtw2's heuristic takes a reason when \
                 the 3 bytes are UTF-8 followed by NUL. With the session's token state (as on \
                 the captures) both agree.",
    },
    Known {
        source: "crafted",
        at: "unknown_control_06",
        what: "teeoracle control, libtw2 error (UnknownControl)",
        reason: "teeoracle keeps an unknown control id as data, so the datagram re-encodes \
                 exactly; libtw2 rejects it.",
    },
    Known {
        source: "crafted",
        at: "five_bytes_after_chunks_06",
        what: "chunks differs: token",
        reason: "Stateless token guess on a data packet: teeoracle takes a token only if \
                 exactly 4 bytes follow the announced chunks; libtw2's heuristic takes the \
                 last 4 bytes whenever at least 4 follow. Both then say the chunks do not \
                 fill the payload.",
    },
    Known {
        source: "crafted",
        at: "connless_07_version_2",
        what: "teeoracle connless, libtw2 error (UnknownConnlessVersion)",
        reason: "libtw2 requires the version bits (byte0 & 3) of a 0.7 connless header to be \
                 1; teeoracle keeps byte0 as it is once the peer is 0.7.",
    },
    Known {
        source: "crafted",
        at: "short_token_request_07",
        what: "teeoracle control, libtw2 error (ControlTokenRequestTooShort)",
        reason: "libtw2 rejects a 0.7 TOKEN request (header token NONE) shorter than 519 \
                 bytes; DDNet only declines to answer it (spec 5.2) and teeoracle reads the \
                 message as sent.",
    },
    Known {
        source: "crafted",
        at: "payload_1394_07",
        what: "teeoracle chunks, libtw2 error (Compression)",
        reason: "libtw2 caps a 0.7 payload after decompression at 1400 - 7 = 1393 bytes \
                 (MAX_PACKETSIZE - HEADER_SIZE); teeoracle applies one cap (MAX_PAYLOAD, \
                 1397) to both versions, as DDNet decompresses both into the same buffer. \
                 At 1393 (payload_1393_07) both accept.",
    },
];

/// 0.6 non-vital chunk header.
fn chunk_06(size: usize) -> Vec<u8> {
    vec![(size >> 4) as u8 & 0x3f, size as u8 & 0x0f]
}

/// 0.7 non-vital chunk header.
fn chunk_07(size: usize) -> Vec<u8> {
    vec![(size >> 6) as u8 & 0x3f, size as u8 & 0x3f]
}

/// `header` then `body` Huffman-compressed.
fn compressed(header: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = header.to_vec();
    huffman::compress(body, Flavor::Ddnet, &mut out);
    out
}

/// A 0.6 data packet (security token `12345678`) of zero-filled non-vital
/// chunks with these sizes, compressed.
fn zero_chunks_06(sizes: &[usize]) -> Vec<u8> {
    let mut body = Vec::new();
    for &size in sizes {
        body.extend(chunk_06(size));
        body.resize(body.len() + size, 0);
    }
    body.extend([0x12, 0x34, 0x56, 0x78]);
    compressed(&[0x80, 0x00, sizes.len() as u8], &body)
}

/// A 0.7 data packet (header token `12345678`) of one zero-filled
/// non-vital chunk, compressed.
fn zero_chunk_07(size: usize) -> Vec<u8> {
    let mut body = chunk_07(size);
    body.resize(body.len() + size, 0);
    compressed(&[0x10, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78], &body)
}

/// Crafted datagrams for the places where the readers are known to
/// differ, and for the size limits around them: name, version, bytes.
fn crafted() -> Vec<(&'static str, Version, Vec<u8>)> {
    use Version::{V06, V07};
    vec![
        // KEEPALIVE + token, compressed; DDNet never compresses control
        // packets and rejects compressed ones.
        (
            "compressed_control_06",
            V06,
            compressed(&[0x90, 0x00, 0x00], &[0x00, 0x12, 0x34, 0x56, 0x78]),
        ),
        // CLOSE "abc" without a token: 4 bytes after the id, as with a token.
        ("close_3_byte_reason_06", V06, unhex("10000004 61626300")),
        // CLOSE without a reason, with a token: both take the token.
        ("close_token_only_06", V06, unhex("10000004 12345678")),
        // Control id 7 does not exist.
        ("unknown_control_06", V06, unhex("10000007 12345678")),
        // One chunk of 1 byte, then 5 bytes.
        (
            "five_bytes_after_chunks_06",
            V06,
            unhex("000001 0001aa 0102030405"),
        ),
        // 0.7 connless header with version bits 2 instead of 1.
        (
            "connless_07_version_2",
            V07,
            unhex("22 11223344 55667788 aa"),
        ),
        // 0.7 token request (header token NONE) of 12 bytes, not 519.
        (
            "short_token_request_07",
            V07,
            unhex("040000ffffffff 05 11223344"),
        ),
        // Payload sizes after decompression (0.6: token included).
        ("payload_1397_06", V06, zero_chunks_06(&[1023, 366])),
        ("payload_1398_06", V06, zero_chunks_06(&[1023, 367])),
        ("payload_1393_07", V07, zero_chunk_07(1391)),
        ("payload_1394_07", V07, zero_chunk_07(1392)),
    ]
}

/// A control message.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ctrl {
    KeepAlive,
    /// 0.7: the response token.
    Connect(Option<[u8; 4]>),
    ConnectAccept,
    Accept,
    /// The reason: the bytes before the first NUL, at most 127.
    Close(Vec<u8>),
    /// 0.7: the response token.
    Token([u8; 4]),
    Unknown(u8),
}

#[derive(Clone, PartialEq, Eq)]
struct ChunkView {
    /// `(sequence, resend)` for vital chunks.
    vital: Option<(u16, bool)>,
    data: Vec<u8>,
}

impl std::fmt::Debug for ChunkView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = &self.data[..self.data.len().min(24)];
        let more = if shown.len() < self.data.len() {
            "…"
        } else {
            ""
        };
        write!(
            f,
            "{:?} {} bytes {}{more}",
            self.vital,
            self.data.len(),
            hex::encode(shown)
        )
    }
}

/// What both readers are mapped into.
#[derive(Clone, Debug, PartialEq, Eq)]
enum View {
    Error,
    Connless06 {
        payload: Vec<u8>,
    },
    Connless07 {
        token: [u8; 4],
        response_token: [u8; 4],
        payload: Vec<u8>,
    },
    Control {
        ack: u16,
        /// 0.6: the security token; 0.7: the header token.
        token: Option<[u8; 4]>,
        compressed: bool,
        ctrl: Ctrl,
    },
    Chunks {
        ack: u16,
        token: Option<[u8; 4]>,
        compressed: bool,
        resend: bool,
        num_chunks: u8,
        /// `None` unless exactly `num_chunks` chunks fill the payload.
        chunks: Option<Vec<ChunkView>>,
    },
}

impl View {
    fn kind(&self) -> &'static str {
        match self {
            View::Error => "error",
            View::Connless06 { .. } | View::Connless07 { .. } => "connless",
            View::Control { .. } => "control",
            View::Chunks { .. } => "chunks",
        }
    }
}

fn close_reason(rest: &[u8]) -> Vec<u8> {
    let nul = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    rest[..nul.min(127)].to_vec()
}

/// teeoracle's reading, and its error if any.
fn ours_view(packet: &Result<Packet<'_>, DecodeError>) -> (View, String) {
    let view = match packet {
        Err(e) => return (View::Error, format!("{}: {}", e.context, e.kind)),
        Ok(Packet::Connless06 { payload, .. }) => View::Connless06 {
            payload: payload.to_vec(),
        },
        Ok(Packet::Connless07 {
            token,
            response_token,
            payload,
            ..
        }) => View::Connless07 {
            token: *token,
            response_token: *response_token,
            payload: payload.to_vec(),
        },
        Ok(Packet::Connection(c)) => conn_view(c),
    };
    (view, String::new())
}

fn conn_view(c: &ConnPacket<'_>) -> View {
    let token = match c.version {
        Version::V06 => c.token,
        Version::V07 => c.header_token,
    };
    let response_token = |rest: &[u8]| -> Option<[u8; 4]> { rest.get(..4)?.try_into().ok() };
    if c.is_control() {
        let ctrl = match c.control() {
            None => return View::Error,
            Some((id, rest)) => match (c.version, id) {
                (_, 0) => Ctrl::KeepAlive,
                (Version::V06, 1) => Ctrl::Connect(None),
                (Version::V07, 1) => match response_token(rest) {
                    Some(t) => Ctrl::Connect(Some(t)),
                    None => Ctrl::Unknown(id),
                },
                (Version::V06, 2) => Ctrl::ConnectAccept,
                (Version::V06, 3) | (Version::V07, 2) => Ctrl::Accept,
                (_, 4) => Ctrl::Close(close_reason(rest)),
                (Version::V07, 5) => match response_token(rest) {
                    Some(t) => Ctrl::Token(t),
                    None => Ctrl::Unknown(id),
                },
                (_, id) => Ctrl::Unknown(id),
            },
        };
        return View::Control {
            ack: c.ack,
            token,
            compressed: c.is_compressed(),
            ctrl,
        };
    }
    let chunks = match c.chunks() {
        Ok((chunks, [])) => Some(
            chunks
                .iter()
                .map(|ch| ChunkView {
                    vital: ch
                        .header
                        .seq(c.version)
                        .map(|seq| (seq, ch.header.flags & CHUNK_RESEND != 0)),
                    data: ch.data.to_vec(),
                })
                .collect(),
        ),
        _ => None,
    };
    View::Chunks {
        ack: c.ack,
        token,
        compressed: c.is_compressed(),
        resend: c.requests_resend(),
        num_chunks: c.num_chunks,
        chunks,
    }
}

/// Chunks libtw2 reads, `None` if it warns that they do not fill the
/// payload or that their number is not `num_chunks`.
macro_rules! libtw2_chunks {
    ($module:ident, $payload:expr, $num_chunks:expr) => {{
        let mut iter = $module::ChunksIter::new($payload, $num_chunks);
        let mut warnings: Vec<$module::Warning> = Vec::new();
        let mut chunks = Vec::new();
        while let Some(chunk) = iter.next_warn(&mut warnings) {
            chunks.push(ChunkView {
                vital: chunk.vital,
                data: chunk.data.to_vec(),
            });
        }
        let whole = !warnings.iter().any(|w| {
            matches!(
                w,
                $module::Warning::ChunksUnknownData | $module::Warning::ChunksNumChunks
            )
        });
        whole.then_some(chunks)
    }};
}

/// libtw2's 0.6 reading with the given token hint, and its error if any.
fn libtw2_view_06(bytes: &[u8], token_hint: Option<bool>) -> (View, String) {
    let compressed =
        p6::Packet::decompress_if_needed(bytes, &mut Vec::with_capacity(2048)).unwrap_or(true);
    let mut buffer = Vec::with_capacity(2048);
    let packet = match p6::Packet::read(&mut Vec::new(), bytes, token_hint, &mut buffer) {
        Ok(p) => p,
        Err(e) => return (View::Error, format!("{e:?}")),
    };
    let view = match packet {
        p6::Packet::Connless(payload) => View::Connless06 {
            payload: payload.to_vec(),
        },
        p6::Packet::Connected(c) => {
            let token = c.token.map(|t| t.0);
            match c.type_ {
                p6::ConnectedPacketType::Control(ctrl) => View::Control {
                    ack: c.ack,
                    token,
                    compressed,
                    ctrl: match ctrl {
                        p6::ControlPacket::KeepAlive => Ctrl::KeepAlive,
                        p6::ControlPacket::Connect => Ctrl::Connect(None),
                        p6::ControlPacket::ConnectAccept => Ctrl::ConnectAccept,
                        p6::ControlPacket::Accept => Ctrl::Accept,
                        p6::ControlPacket::Close(reason) => Ctrl::Close(reason.to_vec()),
                    },
                },
                p6::ConnectedPacketType::Chunks(resend, num_chunks, payload) => View::Chunks {
                    ack: c.ack,
                    token,
                    compressed,
                    resend,
                    num_chunks,
                    chunks: libtw2_chunks!(p6, payload, num_chunks),
                },
            }
        }
    };
    (view, String::new())
}

/// libtw2's 0.7 reading, and its error if any.
fn libtw2_view_07(bytes: &[u8]) -> (View, String) {
    let compressed =
        p7::Packet::decompress_if_needed(bytes, &mut Vec::with_capacity(2048)).unwrap_or(true);
    let mut buffer = Vec::with_capacity(2048);
    let packet = match p7::Packet::read(&mut Vec::new(), bytes, &mut buffer) {
        Ok(p) => p,
        Err(e) => return (View::Error, format!("{e:?}")),
    };
    let view = match packet {
        p7::Packet::Connless(c) => View::Connless07 {
            token: c.token.0,
            response_token: c.response_token.0,
            payload: c.payload.to_vec(),
        },
        p7::Packet::Connected(c) => {
            let token = Some(c.token.0);
            match c.type_ {
                p7::ConnectedPacketType::Control(ctrl) => View::Control {
                    ack: c.ack,
                    token,
                    compressed,
                    ctrl: match ctrl {
                        p7::ControlPacket::KeepAlive => Ctrl::KeepAlive,
                        p7::ControlPacket::Connect(t) => Ctrl::Connect(Some(t.0)),
                        p7::ControlPacket::Accept => Ctrl::Accept,
                        p7::ControlPacket::Close(reason) => Ctrl::Close(reason.to_vec()),
                        p7::ControlPacket::Token(t) => Ctrl::Token(t.0),
                    },
                },
                p7::ConnectedPacketType::Chunks(resend, num_chunks, payload) => View::Chunks {
                    ack: c.ack,
                    token,
                    compressed,
                    resend,
                    num_chunks,
                    chunks: libtw2_chunks!(p7, payload, num_chunks),
                },
            }
        }
    };
    (view, String::new())
}

/// How two readings differ: the kinds if they differ, else the fields.
fn describe(ours: &(View, String), theirs: &(View, String)) -> String {
    let label = |(v, e): &(View, String)| match v {
        View::Error => format!("error ({e})"),
        v => v.kind().to_string(),
    };
    use View::*;
    let fields: Vec<&str> = match (&ours.0, &theirs.0) {
        (Connless06 { payload: a }, Connless06 { payload: b }) => {
            vec![("payload", a != b)]
        }
        (
            Connless07 {
                token: t1,
                response_token: r1,
                payload: p1,
            },
            Connless07 {
                token: t2,
                response_token: r2,
                payload: p2,
            },
        ) => vec![
            ("token", t1 != t2),
            ("response_token", r1 != r2),
            ("payload", p1 != p2),
        ],
        (
            Control {
                ack: a1,
                token: t1,
                compressed: c1,
                ctrl: k1,
            },
            Control {
                ack: a2,
                token: t2,
                compressed: c2,
                ctrl: k2,
            },
        ) => vec![
            ("ack", a1 != a2),
            ("token", t1 != t2),
            ("compressed", c1 != c2),
            ("ctrl", k1 != k2),
        ],
        (
            Chunks {
                ack: a1,
                token: t1,
                compressed: c1,
                resend: r1,
                num_chunks: n1,
                chunks: k1,
            },
            Chunks {
                ack: a2,
                token: t2,
                compressed: c2,
                resend: r2,
                num_chunks: n2,
                chunks: k2,
            },
        ) => vec![
            ("ack", a1 != a2),
            ("token", t1 != t2),
            ("compressed", c1 != c2),
            ("resend", r1 != r2),
            ("num_chunks", n1 != n2),
            ("chunks", k1 != k2),
        ],
        _ => {
            return format!("teeoracle {}, libtw2 {}", label(ours), label(theirs));
        }
    }
    .into_iter()
    .filter_map(|(name, differs)| differs.then_some(name))
    .collect();
    format!("{} differs: {}", ours.0.kind(), fields.join(", "))
}

/// Counts of what was compared.
#[derive(Debug, Default)]
struct Tally {
    datagrams: usize,
    v06: usize,
    v07: usize,
    connless: usize,
    control: BTreeMap<String, usize>,
    data_packets: usize,
    compressed: usize,
    /// 0.6 data packets with DDNet's security token.
    security_tokens: usize,
    chunks: usize,
    vital_chunks: usize,
    chunk_bytes: usize,
}

impl Tally {
    fn add(&mut self, version: Version, view: &View) {
        self.datagrams += 1;
        match version {
            Version::V06 => self.v06 += 1,
            Version::V07 => self.v07 += 1,
        }
        match view {
            View::Error => {}
            View::Connless06 { .. } | View::Connless07 { .. } => self.connless += 1,
            View::Control { ctrl, .. } => {
                let name = format!("{ctrl:?}");
                let name = name.split('(').next().unwrap().to_string();
                *self.control.entry(name).or_default() += 1;
            }
            View::Chunks {
                compressed,
                token,
                chunks,
                ..
            } => {
                self.data_packets += 1;
                self.compressed += usize::from(*compressed);
                self.security_tokens += usize::from(version == Version::V06 && token.is_some());
                for c in chunks.iter().flatten() {
                    self.chunks += 1;
                    self.vital_chunks += usize::from(c.vital.is_some());
                    self.chunk_bytes += c.data.len();
                }
            }
        }
    }
}

/// A disagreement found: source, place, description, and both readings.
type Found = (String, String, String, String);

/// Fails unless `found` is exactly the [`KNOWN`] entries of `sources`.
fn assert_matches_table(found: &[Found], in_scope: impl Fn(&str) -> bool) {
    let expected: BTreeMap<(String, String, String), &str> = KNOWN
        .iter()
        .filter(|k| in_scope(k.source))
        .map(|k| ((k.source.into(), k.at.into(), k.what.into()), k.reason))
        .collect();
    let mut unlisted = String::new();
    let mut seen = BTreeSet::new();
    for (source, at, what, detail) in found {
        let key = (source.clone(), at.clone(), what.clone());
        if !expected.contains_key(&key) {
            unlisted.push_str(&format!("{source} {at}: {what}\n{detail}\n"));
        }
        seen.insert(key);
    }
    let stale: Vec<_> = expected
        .iter()
        .filter(|(key, _)| !seen.contains(*key))
        .collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "unlisted disagreements:\n{unlisted}listed but no longer seen: {stale:#?}"
    );
}

fn packets_of_captures_agree_with_libtw2() {
    let mut found: Vec<Found> = Vec::new();
    let mut tally = Tally::default();
    for source in SOURCES.iter() {
        let port = session::server_port(&source.capture).unwrap();
        let mut session = session::Session::new(&source.capture, port);
        // libtw2's `Connection`: the token hint is known after the handshake.
        let mut token_hint: BTreeMap<SocketAddr, Option<bool>> = BTreeMap::new();
        while let Some(d) = session.next_datagram() {
            let bytes = &d.datagram.payload[..];
            let ours = ours_view(&d.packet);
            let theirs = match d.version {
                Version::V06 => {
                    let hint = token_hint.entry(d.peer).or_default();
                    let theirs = libtw2_view_06(bytes, *hint);
                    let stateless = libtw2_view_06(bytes, None);
                    if stateless.0 != theirs.0 {
                        found.push((
                            source.name.clone(),
                            format!("frame {}", d.datagram.frame),
                            format!("libtw2 stateless: {}", describe(&theirs, &stateless)),
                            format!("  with hint {hint:?}: {theirs:?}\n  stateless: {stateless:?}"),
                        ));
                    }
                    match &theirs.0 {
                        View::Control {
                            ctrl: Ctrl::Connect(_) | Ctrl::ConnectAccept,
                            token,
                            ..
                        } => *hint = Some(token.is_some()),
                        View::Control {
                            ctrl: Ctrl::Close(_),
                            ..
                        } => *hint = None,
                        _ => {}
                    }
                    theirs
                }
                Version::V07 => libtw2_view_07(bytes),
            };
            tally.add(d.version, &ours.0);
            if ours.0 != theirs.0 {
                found.push((
                    source.name.clone(),
                    format!("frame {}", d.datagram.frame),
                    describe(&ours, &theirs),
                    format!(
                        "  bytes {}\n  teeoracle {ours:?}\n  libtw2 {theirs:?}",
                        hex::encode(bytes)
                    ),
                ));
            }
        }
        assert_eq!(
            session.summary().datagrams,
            source.capture.datagrams.len(),
            "{}: every datagram belongs to the session",
            source.name
        );
    }
    println!("{} captures: {tally:#?}", SOURCES.len());
    assert!(
        tally.datagrams > 45_000 && tally.vital_chunks > 0,
        "{tally:?}"
    );
    assert_matches_table(&found, |s| s != "crafted" && s != "malformed/packets.txt");
}

fn handmade_datagrams_agree_with_libtw2_except_listed() {
    let list = std::fs::read_to_string(common::root().join("corpus/packet/malformed/packets.txt"))
        .unwrap();
    let mut datagrams: Vec<(&str, String, Option<Version>, Vec<u8>)> = Vec::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let bytes = if fields[2] == "{1401" {
            vec![0; 1401]
        } else {
            hex::decode(fields[2]).unwrap()
        };
        let version = match fields[1] {
            "0.6" => Some(Version::V06),
            "0.7" => Some(Version::V07),
            _ => None,
        };
        datagrams.push(("malformed/packets.txt", fields[0].into(), version, bytes));
    }
    for (name, version, bytes) in crafted() {
        datagrams.push(("crafted", name.into(), Some(version), bytes));
    }
    let mut found: Vec<Found> = Vec::new();
    for (source, name, version, bytes) in &datagrams {
        let version = version.unwrap_or_else(|| detect_version(bytes).0);
        let ctx = PacketCtx {
            version: Some(version),
            token: TokenMode::Auto,
        };
        let ours = ours_view(&Packet::decode(&mut Reader::new(bytes, Mode::Lenient), ctx));
        let theirs = match version {
            Version::V06 => libtw2_view_06(bytes, None),
            Version::V07 => libtw2_view_07(bytes),
        };
        // The size limits both readers share: the largest payloads they
        // accept, and the first 0.6 one they reject.
        match name.as_str() {
            "payload_1397_06" | "payload_1393_07" => {
                assert!(
                    matches!(&ours.0, View::Chunks { chunks: Some(c), .. } if !c.is_empty()),
                    "{name}: {ours:?}"
                )
            }
            "payload_1398_06" => assert_eq!(ours.0, View::Error, "{name}"),
            _ => {}
        }
        if ours.0 != theirs.0 {
            found.push((
                source.to_string(),
                name.clone(),
                describe(&ours, &theirs),
                format!("  teeoracle {ours:?}\n  libtw2 {theirs:?}"),
            ));
        }
    }
    for f in &found {
        println!("{} {}: {}\n{}", f.0, f.1, f.2, f.3);
    }
    assert_matches_table(&found, |s| s == "crafted" || s == "malformed/packets.txt");
}
