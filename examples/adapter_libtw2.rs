//! `teeoracle conform` adapter for libtw2's Rust crates (heinrich5991; the
//! crates.io packages `pre-rfc3243-libtw2-huffman` and `-net`, dev-dependencies):
//!
//! ```text
//! cargo build --release --example adapter_libtw2
//! teeoracle conform run --decoder target/release/examples/adapter_libtw2 --encoder target/release/examples/adapter_libtw2
//! ```
//!
//! - `huffman`: `decompress` gives the raw bytes; `flavor` is the first of
//!   libtw2's two writers that makes exactly the input from them, `compress`
//!   (DDNet >= 20.0) then `compress_bug` (the legacy writer with its extra
//!   zero byte), else `none`; encode uses the writer asked for.
//! - `packet06`, `packet07`: `protocol::Packet::read` (0.6, stateless token
//!   heuristic `token_hint = None`, as for a packet outside a connection) and
//!   `protocol7::Packet::read`, then `ChunksIter` over the payload. libtw2
//!   reads the header and chunk framing, not messages, flags as a number,
//!   DDNet's verdict or the re-encode check, so only the fields listed in
//!   `PACKET06_FIELDS` and `PACKET07_FIELDS` are emitted. A read error is a rejection.

#[path = "adapters/contract.rs"]
mod contract;

use std::process::ExitCode;

use contract::Unit;
use libtw2_huffman::instances::TEEWORLDS;
use libtw2_net::{protocol as p6, protocol7 as p7};
use serde_json::{Value, json};

/// The crates' versions (Cargo.lock).
const VERSION: &str = "huffman 0.2.0, net 0.2.0";

/// The fields of both versions; 0.7 adds its header token and a
/// connectionless datagram's response token.
const PACKET06_FIELDS: &[&str] = &[
    "packet.form",
    "packet.control",
    "packet.ack",
    "packet.num_chunks",
    "packet.resend_requested",
    "packet.token",
    "packet.payload",
    "packet.control_message.id",
    "packet.chunks[].flags",
    "packet.chunks[].vital",
    "packet.chunks[].resend",
    "packet.chunks[].seq",
    "packet.chunks[].size",
];

const PACKET07_FIELDS: &[&str] = &[
    "packet.form",
    "packet.control",
    "packet.ack",
    "packet.num_chunks",
    "packet.resend_requested",
    "packet.token",
    "packet.header_token",
    "packet.response_token",
    "packet.payload",
    "packet.control_message.id",
    "packet.chunks[].flags",
    "packet.chunks[].vital",
    "packet.chunks[].resend",
    "packet.chunks[].seq",
    "packet.chunks[].size",
];

fn huffman_decode(input: &[u8]) -> Result<Value, String> {
    let raw = libtw2_huffman::decompress(input).map_err(|e| format!("{e:?}"))?;
    // The writer that makes exactly these bytes, by libtw2's own two writers.
    let flavor = if libtw2_huffman::compress(&raw) == input {
        "ddnet"
    } else if compress_bug(&raw)? == input {
        "legacy"
    } else {
        "none"
    };
    Ok(json!({"hex": hex::encode(raw), "flavor": flavor}))
}

/// libtw2's legacy writer (with the extra zero byte).
fn compress_bug(raw: &[u8]) -> Result<Vec<u8>, String> {
    // At most 3 bytes per symbol, plus the EOF code and the extra byte.
    let mut out = Vec::with_capacity(raw.len() * 3 + 4);
    TEEWORLDS
        .compress_bug(raw, &mut out)
        .map_err(|e| format!("{e:?}"))?;
    Ok(out)
}

fn huffman_encode(input: &Value) -> Result<Vec<u8>, String> {
    let raw = hex::decode(input["hex"].as_str().ok_or("no `hex`")?).map_err(|e| e.to_string())?;
    match input
        .get("flavor")
        .and_then(Value::as_str)
        .unwrap_or("ddnet")
    {
        "ddnet" => Ok(libtw2_huffman::compress(&raw)),
        "legacy" => compress_bug(&raw),
        other => Err(format!("no writer for flavor {other:?}")),
    }
}

/// A chunk as teeoracle shows its header: `vital` is `Some((seq, resend))`.
fn chunk(data: &[u8], vital: Option<(u16, bool)>) -> Value {
    let resend = vital.is_some_and(|(_, r)| r);
    json!({
        "flags": u8::from(vital.is_some()) | u8::from(resend) << 1,
        "vital": vital.is_some(),
        "resend": resend,
        "seq": vital.map(|(seq, _)| seq),
        "size": data.len(),
    })
}

/// A data packet's header fields.
fn data(ack: u16, resend: bool, num_chunks: u8, chunks: Vec<Value>) -> Value {
    json!({"form": "connection", "control": false, "ack": ack, "num_chunks": num_chunks,
           "resend_requested": resend, "chunks": chunks})
}

/// A control packet. libtw2 does not return a control packet's chunk count
/// or flags; it warns when the count is not 0 or when the compression or
/// resend flag is set, so without those warnings they are known to be 0 and
/// unset, and with one the field is left out (the difference shows).
fn control<W: PartialEq>(ack: u16, id: u8, warnings: &[W], num_chunks: W, flags: W) -> Value {
    let mut p =
        json!({"form": "connection", "control": true, "ack": ack, "control_message": {"id": id}});
    if !warnings.contains(&num_chunks) {
        p["num_chunks"] = json!(0);
    }
    if !warnings.contains(&flags) {
        p["resend_requested"] = json!(false);
    }
    p
}

fn chunks_06(payload: &[u8], num_chunks: u8) -> Vec<Value> {
    let mut warnings: Vec<p6::Warning> = Vec::new();
    let mut iter = p6::ChunksIter::new(payload, num_chunks);
    std::iter::from_fn(|| iter.next_warn(&mut warnings))
        .map(|c| chunk(c.data, c.vital))
        .collect()
}

fn chunks_07(payload: &[u8], num_chunks: u8) -> Vec<Value> {
    let mut warnings: Vec<p7::Warning> = Vec::new();
    let mut iter = p7::ChunksIter::new(payload, num_chunks);
    std::iter::from_fn(|| iter.next_warn(&mut warnings))
        .map(|c| chunk(c.data, c.vital))
        .collect()
}

fn packet06(bytes: &[u8]) -> Result<Value, String> {
    let mut buffer = Vec::with_capacity(2048);
    let mut warnings: Vec<p6::Warning> = Vec::new();
    let read = p6::Packet::read(&mut warnings, bytes, None, &mut buffer);
    let packet = match read.map_err(|e| format!("{e:?}"))? {
        p6::Packet::Connless(payload) => {
            json!({"form": "connless06", "payload": hex::encode(payload)})
        }
        p6::Packet::Connected(c) => {
            let mut p = match c.type_ {
                p6::ConnectedPacketType::Control(ctrl) => {
                    let id = match ctrl {
                        p6::ControlPacket::KeepAlive => p6::CTRLMSG_KEEPALIVE,
                        p6::ControlPacket::Connect => p6::CTRLMSG_CONNECT,
                        p6::ControlPacket::ConnectAccept => p6::CTRLMSG_CONNECTACCEPT,
                        p6::ControlPacket::Accept => p6::CTRLMSG_ACCEPT,
                        p6::ControlPacket::Close(_) => p6::CTRLMSG_CLOSE,
                    };
                    control(
                        c.ack,
                        id,
                        &warnings,
                        p6::Warning::ControlNumChunks,
                        p6::Warning::ControlFlags,
                    )
                }
                p6::ConnectedPacketType::Chunks(resend, num_chunks, payload) => {
                    data(c.ack, resend, num_chunks, chunks_06(payload, num_chunks))
                }
            };
            if let Some(token) = c.token {
                p["token"] = json!(hex::encode(token.0));
            }
            p
        }
    };
    Ok(json!({"packet": packet}))
}

fn packet07(bytes: &[u8]) -> Result<Value, String> {
    let mut buffer = Vec::with_capacity(2048);
    let mut warnings: Vec<p7::Warning> = Vec::new();
    let read = p7::Packet::read(&mut warnings, bytes, &mut buffer);
    let packet = match read.map_err(|e| format!("{e:?}"))? {
        p7::Packet::Connless(c) => json!({
            "form": "connless07",
            "token": hex::encode(c.token.0),
            "response_token": hex::encode(c.response_token.0),
            "payload": hex::encode(c.payload),
        }),
        p7::Packet::Connected(c) => {
            let mut p = match c.type_ {
                p7::ConnectedPacketType::Control(ctrl) => {
                    let id = match ctrl {
                        p7::ControlPacket::KeepAlive => p7::CTRLMSG_KEEPALIVE,
                        p7::ControlPacket::Connect(_) => p7::CTRLMSG_CONNECT,
                        p7::ControlPacket::Accept => p7::CTRLMSG_ACCEPT,
                        p7::ControlPacket::Close(_) => p7::CTRLMSG_CLOSE,
                        p7::ControlPacket::Token(_) => p7::CTRLMSG_TOKEN,
                    };
                    control(
                        c.ack,
                        id,
                        &warnings,
                        p7::Warning::ControlNumChunks,
                        p7::Warning::ControlFlags,
                    )
                }
                p7::ConnectedPacketType::Chunks(resend, num_chunks, payload) => {
                    data(c.ack, resend, num_chunks, chunks_07(payload, num_chunks))
                }
            };
            p["header_token"] = json!(hex::encode(c.token.0));
            p
        }
    };
    Ok(json!({"packet": packet}))
}

fn main() -> ExitCode {
    contract::run(
        "libtw2",
        VERSION,
        &[
            Unit {
                name: "huffman",
                decode: Some(huffman_decode),
                encode: Some(huffman_encode),
                fields: None,
            },
            Unit {
                name: "packet06",
                decode: Some(packet06),
                encode: None,
                fields: Some(PACKET06_FIELDS),
            },
            Unit {
                name: "packet07",
                decode: Some(packet07),
                encode: None,
                fields: Some(PACKET07_FIELDS),
            },
        ],
    )
}
