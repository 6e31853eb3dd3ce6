//! Snapshots rebuilt from real captures: every snapshot message a DDNet 20.1
//! server sent, applied to the client's base snapshot as DDNet's client
//! does, must give a snapshot whose CRC is the one the server computed.

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use teeoracle::capture;
use teeoracle::packer::read_ints;
use teeoracle::packet::Packet;
use teeoracle::packet::msg::{self, MsgId, Value};
use teeoracle::session::{self, Direction};
use teeoracle::snapshot::{Delta, ItemSizes, Snapshot, apply, create};

#[derive(Default)]
struct Client {
    /// Snapshots by tick (DDNet keeps the recent ones; all are kept here).
    history: BTreeMap<i32, Snapshot>,
    /// Parts of the multi-part snapshot being collected: tick, parts.
    parts: Option<(i32, BTreeMap<i32, Vec<u8>>)>,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Totals {
    checked: usize,
    empty: usize,
    recreated_identically: usize,
    ex_types: BTreeMap<&'static str, usize>,
}

fn rebuild_all(name: &str) -> Totals {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("corpus/packet/ddnet-20.1/{name}.pcap")),
    )
    .unwrap();
    let cap = capture::read(&bytes).unwrap();
    let mut session = session::Session::new(&cap, session::server_port(&cap).unwrap());
    let sizes = ItemSizes::ddnet_06();
    let mut clients: BTreeMap<SocketAddr, Client> = BTreeMap::new();
    let mut totals = Totals::default();
    while let Some(d) = session.next_datagram() {
        if d.direction != Direction::ToClient {
            continue;
        }
        let Ok(Packet::Connection(p)) = &d.packet else {
            continue;
        };
        let Some(Ok((chunks, _))) = (!p.is_control()).then(|| p.chunks()) else {
            continue;
        };
        let client = clients.entry(d.peer).or_default();
        for c in &chunks {
            let (h, body) = msg::split(c.data).unwrap();
            let MsgId::Ordinal(id @ 5..=7) = h.id else {
                continue;
            };
            if !h.sys {
                continue;
            }
            let fields = msg::decode_body(p.version, &h, body).unwrap().unwrap();
            let int = |n| match fields.get(n) {
                Some(Value::Int(v)) => *v,
                _ => panic!("{n}"),
            };
            let (tick, delta_tick) = (int("tick"), int("delta_tick"));
            let data: Vec<u8> = match id {
                6 => Vec::new(), // SNAPEMPTY
                7 => match fields.get("data") {
                    Some(Value::Bytes(b)) => b.to_vec(),
                    _ => unreachable!(),
                },
                _ => {
                    // SNAP: collect parts of one tick.
                    let (num_parts, part) = (int("num_parts"), int("part"));
                    let Some(Value::Bytes(b)) = fields.get("data") else {
                        unreachable!()
                    };
                    let slot = match &mut client.parts {
                        Some((t, parts)) if *t == tick => parts,
                        other => &mut other.insert((tick, BTreeMap::new())).1,
                    };
                    slot.insert(part, b.to_vec());
                    if slot.len() < num_parts as usize {
                        continue;
                    }
                    let whole = slot.values().flatten().copied().collect();
                    client.parts = None;
                    whole
                }
            };
            let base_tick = tick - delta_tick;
            let base = if base_tick < 0 {
                Snapshot::default()
            } else {
                client.history.get(&base_tick).cloned().unwrap_or_else(|| {
                    panic!("{name} frame {}: no base {base_tick}", d.datagram.frame)
                })
            };
            let ints = read_ints(&data).unwrap();
            Delta::from_ints(&ints, &sizes).unwrap();
            let snap = apply(&base, &ints, &sizes).unwrap();
            if id == 6 {
                totals.empty += 1;
            } else {
                assert_eq!(
                    snap.crc(),
                    int("crc"),
                    "{name} frame {}: tick {tick}",
                    d.datagram.frame
                );
                totals.checked += 1;
                // DDNet's CreateDelta from the same pair gives the same ints
                // when the rebuilt snapshot keeps the server's item order.
                totals.recreated_identically += usize::from(create(&base, &snap, &sizes) == ints);
            }
            Snapshot::from_ints(&snap.to_ints()).unwrap();
            // Every extended item type is registered in the same snapshot
            // and names a DDNet netobj (spec 4.2's table).
            for item in snap.items().filter(|i| i.type_id() >= 0x4000) {
                let name = snap.ex_type_name(item.type_id());
                assert!(
                    name.is_some(),
                    "{name:?}: type {} unregistered",
                    item.type_id()
                );
                *totals.ex_types.entry(name.unwrap()).or_default() += 1;
            }
            client.history.insert(tick, snap);
        }
    }
    totals
}

#[test]
fn every_server_snapshot_rebuilds_with_the_servers_crc() {
    for name in common::CAPTURES {
        let totals = rebuild_all(name);
        eprintln!("{name}: {totals:?}");
        // The library's session replay (its own reassembly and snapshot
        // history) rebuilds the same snapshots with no fault.
        let bytes = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("corpus/packet/ddnet-20.1/{name}.pcap")),
        )
        .unwrap();
        let cap = capture::read(&bytes).unwrap();
        let (_, summary) =
            session::Session::new(&cap, session::server_port(&cap).unwrap()).finish();
        assert!(
            !summary.anomalies.keys().any(|k| k.starts_with("snapshot_")),
            "{name}: {summary:?}"
        );
        assert_eq!(
            (summary.crc_checked, summary.rebuilt),
            (totals.checked, totals.checked + totals.empty),
            "{name}"
        );
        assert!(totals.checked > 100, "{name}: {totals:?}");
        assert!(
            totals.ex_types.contains_key("gameinfo@netobj.ddnet.tw"),
            "{name}"
        );
    }
}
