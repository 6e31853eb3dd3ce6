//! Snapshots rebuilt from real captures: every snapshot message a DDNet 20.1
//! server sent, applied to the client's base snapshot as DDNet's client
//! does, must give a snapshot whose CRC is the one the server computed.

use crate::common;

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
            !summary.anomalies.keys().any(|k| k.is_snapshot_anomaly()),
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

/// Duplicate item keys, as DDNet 20.1 handles them (`snapshot.cpp` at
/// 28baa427): `CSnapshot::IsValid` (139-175) does not look for them and the
/// builder (`NewItemRaw`, 887ff) does not refuse them, so they are
/// accepted; every lookup by key takes the first item with it
/// (`GetItemIndex` 62-70, `GetItemIndexHashed` 220-230, the builder's
/// `FindItemIndexByKey` in `UnpackDelta`). Hence `CreateDelta` deletes a key
/// only when `to` has no item with it, and diffs every `to` item against
/// the first `from` item with its key; `UnpackDelta` keeps every base item
/// not deleted and applies each update to the first item with its key.
/// The round trip `apply(from, create(from, to)) == to` fails with
/// duplicates, in DDNet as here; these are the results DDNet's rules give.
#[test]
fn duplicate_keys_are_kept_and_looked_up_first_as_in_ddnet() {
    let sizes = ItemSizes::ddnet_06();
    // A type with no pre-agreed size: the delta carries each item's size.
    let key = |id: i32| (100 << 16) | id;
    let (k, l) = (key(1), key(2));
    let snap = |items: &[(i32, &[i32])]| Snapshot::from_items(items.iter().copied());

    // Accepted as read.
    let from = snap(&[(k, &[1, 2]), (k, &[10, 20]), (l, &[5])]);
    assert_eq!(Snapshot::from_ints(&from.to_ints()).unwrap(), from);
    assert_eq!(from.get(k).unwrap().data, &[1, 2]);

    // An update goes to the first item with its key, from the first base
    // item; the second copy is kept as it was.
    let delta = [0, 1, 0, 100, 1, 2, 1, 1];
    assert_eq!(
        apply(&from, &delta, &sizes).unwrap(),
        snap(&[(k, &[2, 3]), (k, &[10, 20]), (l, &[5])])
    );
    // A deleted key takes every copy with it.
    let delete = [1, 0, 0, k];
    assert_eq!(apply(&from, &delete, &sizes).unwrap(), snap(&[(l, &[5])]));

    // Duplicates in `to`: both are diffed against the first `from` item;
    // the first is unchanged (left out), the second becomes an update of
    // that item. Applying it changes the one kept item: `to` is not given
    // back.
    let base = snap(&[(k, &[1, 2])]);
    let to = snap(&[(k, &[1, 2]), (k, &[7, 7])]);
    let d = create(&base, &to, &sizes);
    assert_eq!(d, [0, 1, 0, 100, 1, 2, 6, 5]);
    assert_eq!(apply(&base, &d, &sizes).unwrap(), snap(&[(k, &[7, 7])]));

    // Duplicates in `from`: the key is in `to`, so nothing is deleted, and
    // `to`'s item equals the first copy: an empty delta, and both copies
    // stay.
    let to = snap(&[(k, &[1, 2]), (l, &[5])]);
    let d = create(&from, &to, &sizes);
    assert_eq!(d, Vec::<i32>::new());
    assert_eq!(apply(&from, &d, &sizes).unwrap(), from);

    // The in-place apply gives what `unpack` gives, or declines.
    let mut codec = teeoracle::snapshot::DeltaCodec::new(sizes.clone());
    for delta in [&delta[..], &delete[..]] {
        let mut in_place = from.clone();
        if codec.unpack_in_place(&mut in_place, delta) {
            assert_eq!(in_place, apply(&from, delta, &sizes).unwrap());
        }
    }
}

/// DDNet's rules for duplicate keys (see above), written plainly over
/// lists of items: what `CreateDelta` writes for `from` and `to`.
fn model_create(from: &[(i32, Vec<i32>)], to: &[(i32, Vec<i32>)]) -> Vec<i32> {
    let first = |items: &[(i32, Vec<i32>)], key| items.iter().find(|(k, _)| *k == key).cloned();
    let deleted: Vec<i32> = from
        .iter()
        .filter(|(k, _)| first(to, *k).is_none())
        .map(|(k, _)| *k)
        .collect();
    let mut updates = Vec::new();
    for (key, data) in to {
        let past = first(from, *key).map_or(vec![0; data.len()], |(_, d)| d);
        let diff: Vec<i32> = data
            .iter()
            .zip(&past)
            .map(|(v, p)| v.wrapping_sub(*p))
            .collect();
        if first(from, *key).is_some() && diff.iter().all(|&d| d == 0) {
            continue;
        }
        updates.push((*key, diff));
    }
    if deleted.is_empty() && updates.is_empty() {
        return Vec::new();
    }
    let mut out = vec![deleted.len() as i32, updates.len() as i32, 0];
    out.extend(&deleted);
    for (key, diff) in updates {
        out.extend([key >> 16, key & 0xffff, diff.len() as i32]);
        out.extend(diff);
    }
    out
}

/// What `UnpackDelta` builds from `from` and `model_create`'s delta.
fn model_apply(from: &[(i32, Vec<i32>)], delta: &[i32]) -> Vec<(i32, Vec<i32>)> {
    if delta.is_empty() {
        return from.to_vec();
    }
    let (deleted, updated) = (delta[0] as usize, delta[1] as usize);
    let removed = &delta[3..3 + deleted];
    let mut out: Vec<(i32, Vec<i32>)> = from
        .iter()
        .filter(|(k, _)| !removed.contains(k))
        .cloned()
        .collect();
    let mut at = 3 + deleted;
    for _ in 0..updated {
        let key = (delta[at] << 16) | delta[at + 1];
        let n = delta[at + 2] as usize;
        let diff = &delta[at + 3..at + 3 + n];
        at += 3 + n;
        let past = from
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(vec![0; n], |(_, d)| d.clone());
        let data: Vec<i32> = past
            .iter()
            .zip(diff)
            .map(|(p, d)| p.wrapping_add(*d))
            .collect();
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(item) => item.1 = data,
            None => out.push((key, data)),
        }
    }
    out
}

/// Random snapshots over four keys, duplicates frequent, every item of a
/// key the same size: `create` and `apply` (and the in-place apply) follow
/// DDNet's rules exactly, and give `to`'s items back whenever neither side
/// repeats a key.
#[test]
fn prop_create_and_apply_follow_ddnets_rules_with_duplicates() {
    fn items(raw: &[(u8, i8)]) -> Vec<(i32, Vec<i32>)> {
        raw.iter()
            .take(8)
            .map(|&(k, v)| {
                let id = i32::from(k % 4);
                (
                    (100 << 16) | id,
                    (0..=id).map(|j| i32::from(v) * (j + 1)).collect(),
                )
            })
            .collect()
    }
    fn prop(from: Vec<(u8, i8)>, to: Vec<(u8, i8)>) -> bool {
        let sizes = ItemSizes::ddnet_06();
        let (from, to) = (items(&from), items(&to));
        let snap = |items: &[(i32, Vec<i32>)]| {
            Snapshot::from_items(items.iter().map(|(k, d)| (*k, &d[..])))
        };
        let (s_from, s_to) = (snap(&from), snap(&to));
        let delta = create(&s_from, &s_to, &sizes);
        let applied = apply(&s_from, &delta, &sizes).unwrap();
        // New items come after the kept ones, as in DDNet: the same items,
        // not always in the same order.
        let sorted = |s: &Snapshot| {
            let mut items: Vec<(i32, Vec<i32>)> =
                s.items().map(|i| (i.key, i.data.to_vec())).collect();
            items.sort();
            items
        };
        let unique = |items: &[(i32, Vec<i32>)]| {
            items
                .iter()
                .enumerate()
                .all(|(i, (k, _))| items[..i].iter().all(|(j, _)| j != k))
        };
        let mut in_place = s_from.clone();
        let codec_agrees = !teeoracle::snapshot::DeltaCodec::new(sizes.clone())
            .unpack_in_place(&mut in_place, &delta)
            || in_place == applied;
        delta == model_create(&from, &to)
            && applied == snap(&model_apply(&from, &delta))
            && codec_agrees
            && (!(unique(&from) && unique(&to)) || sorted(&applied) == sorted(&s_to))
    }
    quickcheck::QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<(u8, i8)>, Vec<(u8, i8)>) -> bool);
}
