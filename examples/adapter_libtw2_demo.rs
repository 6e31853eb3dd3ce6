//! `teeoracle conform` adapter for libtw2's demo and snapshot crates
//! (heinrich5991; the crates.io packages `pre-rfc3243-libtw2-demo`,
//! `-snapshot`, `-packer`, `-gamenet-ddnet` and `-gamenet-teeworlds-0-7`,
//! dev-dependencies):
//!
//! ```text
//! cargo build --release --example adapter_libtw2_demo
//! teeoracle conform run --decoder target/release/examples/adapter_libtw2_demo \
//!     --unit demo --unit snapshot --unit delta_apply --unit delta_create
//! ```
//!
//! - `snapshot`: `RawSnap::read_from_ints` over the little-endian int32s;
//!   the CRC is `RawSnap::crc`, the size that of `RawSnap::write_to_ints`'s
//!   ints, the items in the order `RawSnap::items` gives them.
//! - `delta_apply`: the base by `RawSnap::read_from_ints`, the delta by
//!   `Delta::read_from_ints` with libtw2's DDNet item size table
//!   (`libtw2_gamenet_ddnet::snap_obj::obj_size`), then
//!   `RawSnap::read_with_delta`.
//! - `delta_create`: `Delta::create_raw` from the two snapshots, written by
//!   `Delta::write_to_ints` with the same size table.
//! - `demo`: `Reader` over the file; every chunk is an event (`tick`,
//!   `message` with libtw2's int32s as bytes, `snapshot` rebuilt by the
//!   snapshot crate as above, with the 0.7 size table for a demo whose
//!   net version starts with `0.7`); the offset is where the chunk's header
//!   starts. A read error stops the demo there (a `fault` event if a
//!   payload does not read: Huffman or the message's varints, or a
//!   snapshot the snapshot crate refuses), as DDNet's player stops; an
//!   error in the header is a rejection. Before the first full snapshot a
//!   delta applies to the empty snapshot (libtw2's demo crate hands out
//!   chunks and keeps no snapshot).
//!
//! Only the fields libtw2 gives are declared (`*_FIELDS`): item names,
//! message decoding and teeoracle's own end-of-demo details are not
//! compared.

#[path = "adapters/contract.rs"]
mod contract;

use std::cell::Cell;
use std::io::{self, Read, Seek, SeekFrom};
use std::process::ExitCode;
use std::rc::Rc;

use contract::Unit;
use libtw2_packer::{IntUnpacker, Unpacker};
use libtw2_snapshot::snap::{Delta, RawSnap};
use serde_json::{Value, json};

/// The crates' versions (Cargo.lock).
const VERSION: &str =
    "demo 0.2.0, snapshot 0.2.0, gamenet-ddnet 0.2.1, gamenet-teeworlds-0-7 0.2.0";

const SNAPSHOT_FIELDS: &[&str] = &[
    "crc",
    "size",
    "items[].type_id",
    "items[].id",
    "items[].data",
];

const DELTA_CREATE_FIELDS: &[&str] = &["hex"];

const DEMO_FIELDS: &[&str] = &[
    "header.version",
    "header.net_version",
    "header.map_name",
    "header.map_size",
    "header.map_crc",
    "header.recorded_by",
    "header.length_seconds",
    "header.timestamp",
    "header.timeline_markers",
    "header.map_sha256",
    "events[].kind",
    "events[].index",
    "events[].offset",
    "events[].tick",
    "events[].keyframe",
    "events[].data",
    "events[].snapshot.tick",
    "events[].snapshot.crc",
    "events[].snapshot.size",
    "events[].snapshot.items[].type_id",
    "events[].snapshot.items[].id",
    "events[].snapshot.items[].data",
    "end.events",
];

type Warnings<W> = Vec<W>;

/// libtw2's size of a DDNet item type (`None`: the delta carries it).
fn obj_size(type_id: u16) -> Option<u32> {
    libtw2_gamenet_ddnet::snap_obj::obj_size(type_id)
}

/// libtw2's size of a Teeworlds 0.7 item type, for 0.7 demos.
fn obj_size_07(type_id: u16) -> Option<u32> {
    libtw2_gamenet_teeworlds_0_7::snap_obj::obj_size(type_id)
}

fn ints(bytes: &[u8]) -> Result<Vec<i32>, String> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "{} bytes is not a whole number of int32s",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The conform input of two parts: u32 LE length N, N bytes, the rest.
fn split(input: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let (len, rest) = input.split_first_chunk::<4>().ok_or("no length")?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() {
        return Err("the first part's length is past the end".into());
    }
    Ok(rest.split_at(len))
}

fn read_snap(bytes: &[u8]) -> Result<RawSnap, String> {
    let mut snap = RawSnap::empty();
    let mut w: Warnings<libtw2_snapshot::format::Warning> = Vec::new();
    snap.read_from_ints(&mut w, &ints(bytes)?)
        .map_err(|e| format!("{e:?}"))?;
    Ok(snap)
}

/// A snapshot's JSON as libtw2 sees it.
fn snap_value(snap: &RawSnap, tick: Option<i32>) -> Value {
    let mut buf = Vec::new();
    let mut out = vec![0; 1 << 16];
    let size = snap
        .write_to_ints(&mut buf, &mut out)
        .map_or(Value::Null, |ints| json!(ints.len() * 4));
    let items: Vec<Value> = snap
        .items()
        .map(|i| json!({"type_id": i.raw_type_id, "id": i.id, "data": i.data}))
        .collect();
    json!({"tick": tick, "crc": snap.crc(), "size": size, "items": items})
}

fn snapshot(input: &[u8]) -> Result<Value, String> {
    Ok(snap_value(&read_snap(input)?, None))
}

fn delta_apply(input: &[u8]) -> Result<Value, String> {
    let (base, delta) = split(input)?;
    let base = read_snap(base)?;
    let delta_ints = ints(delta)?;
    let mut w: Warnings<libtw2_snapshot::format::Warning> = Vec::new();
    let mut d = Delta::new();
    d.read_from_ints(&mut w, obj_size, &mut IntUnpacker::new(&delta_ints))
        .map_err(|e| format!("{e:?}"))?;
    let mut snap = RawSnap::empty();
    snap.read_with_delta(&mut w, &base, &d)
        .map_err(|e| format!("{e:?}"))?;
    Ok(snap_value(&snap, None))
}

fn delta_create(input: &[u8]) -> Result<Value, String> {
    let (from, to) = split(input)?;
    let (from, to) = (read_snap(from)?, read_snap(to)?);
    let mut d = Delta::new();
    d.create_raw(&from, &to);
    let mut out = vec![0; 1 << 18];
    let written = d
        .write_to_ints(obj_size, &mut out)
        .map_err(|e| format!("{e:?}"))?;
    let bytes: Vec<u8> = written.iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok(json!({"hex": hex::encode(bytes)}))
}

/// A reader that says where it is, for the chunks' offsets.
struct Tracked {
    inner: io::Cursor<Vec<u8>>,
    at: Rc<Cell<u64>>,
}

impl Read for Tracked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at.set(self.inner.position());
        Ok(n)
    }
}

impl Seek for Tracked {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let p = self.inner.seek(pos)?;
        self.at.set(p);
        Ok(p)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn demo(input: &[u8]) -> Result<Value, String> {
    let at = Rc::new(Cell::new(0));
    let data = Tracked {
        inner: io::Cursor::new(input.to_vec()),
        at: at.clone(),
    };
    let mut warn: Warnings<libtw2_demo::Warning> = Vec::new();
    let mut reader = libtw2_demo::Reader::new(data, &mut warn).map_err(|e| format!("{e:?}"))?;
    let header = json!({
        "version": reader.version() as u8,
        "net_version": text(reader.net_version()),
        "map_name": text(reader.map_name()),
        "map_size": reader.map_size(),
        "map_crc": format!("{:08x}", reader.map_crc()),
        "recorded_by": match reader.kind() {
            libtw2_demo::DemoKind::Client => "client",
            libtw2_demo::DemoKind::Server => "server",
        },
        "length_seconds": reader.length(),
        "timestamp": text(reader.timestamp()),
        "timeline_markers": reader.timeline_markers(),
        "map_sha256": reader.map_sha256().map(|s| hex::encode(s.0)),
    });
    let sizes = match reader.net_version().starts_with(b"0.7") {
        true => obj_size_07,
        false => obj_size,
    };
    let (mut current, mut next) = (RawSnap::empty(), RawSnap::empty());
    let mut delta = Delta::new();
    let mut buf = Vec::new();
    let mut w: Warnings<libtw2_snapshot::format::Warning> = Vec::new();
    let mut events = Vec::new();
    let mut tick = -1;
    for index in 0.. {
        let offset = at.get();
        let mut event = json!({"index": index, "offset": offset});
        let chunk = match reader.read_chunk(&mut warn) {
            Ok(Some(c)) => c,
            // A payload that does not decode: the player stops at it.
            Err(
                libtw2_demo::ReadError::Huffman(_)
                | libtw2_demo::ReadError::MessageVarIntUnexpectedEnd
                | libtw2_demo::ReadError::MessageVarIntTooLong,
            ) => {
                event["kind"] = json!("fault");
                event["tick"] = json!(tick);
                events.push(event);
                break;
            }
            // The end, a cut chunk or damaged framing: the player stops.
            Ok(None) | Err(_) => break,
        };
        let snap = match chunk {
            libtw2_demo::RawChunk::Tick { tick: t, keyframe } => {
                tick = t;
                event["kind"] = json!("tick");
                event["keyframe"] = json!(keyframe);
                None
            }
            libtw2_demo::RawChunk::Message(m) => {
                event["kind"] = json!("message");
                event["data"] = json!(hex::encode(m));
                None
            }
            libtw2_demo::RawChunk::Snapshot(b) => {
                Some(next.read(&mut w, &mut buf, b).map_err(|e| format!("{e:?}")))
            }
            libtw2_demo::RawChunk::SnapshotDelta(b) => {
                let mut p = Unpacker::new(b);
                Some(
                    delta
                        .read(&mut w, sizes, &mut p)
                        .map_err(|e| format!("{e:?}"))
                        .and_then(|()| {
                            next.read_with_delta(&mut w, &current, &delta)
                                .map_err(|e| format!("{e:?}"))
                        }),
                )
            }
            libtw2_demo::RawChunk::Unknown => {
                event["kind"] = json!("unknown");
                None
            }
        };
        event["tick"] = json!(tick);
        let stop = match snap {
            None => false,
            Some(Ok(())) => {
                std::mem::swap(&mut current, &mut next);
                event["kind"] = json!("snapshot");
                event["snapshot"] = snap_value(&current, Some(tick));
                false
            }
            Some(Err(_)) => {
                event["kind"] = json!("fault");
                true
            }
        };
        events.push(event);
        if stop {
            break;
        }
    }
    let end = json!({"events": events.len()});
    Ok(json!({"header": header, "events": events, "end": end}))
}

fn main() -> ExitCode {
    contract::run(
        "libtw2",
        VERSION,
        &[
            Unit {
                name: "snapshot",
                decode: Some(snapshot),
                encode: None,
                fields: Some(SNAPSHOT_FIELDS),
            },
            Unit {
                name: "delta_apply",
                decode: Some(delta_apply),
                encode: None,
                fields: Some(SNAPSHOT_FIELDS),
            },
            Unit {
                name: "delta_create",
                decode: Some(delta_create),
                encode: None,
                fields: Some(DELTA_CREATE_FIELDS),
            },
            Unit {
                name: "demo",
                decode: Some(demo),
                encode: None,
                fields: Some(DEMO_FIELDS),
            },
        ],
    )
}
