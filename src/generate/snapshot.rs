//! Snapshots and deltas: items of DDNet's 0.6 types with their sizes and
//! of types without a pre-agreed size, made by [`Snapshot`] and
//! [`create`].

use super::{Fault, Judgement, Kind, Made, Rng};
use crate::check::Status;
use crate::snapshot::{ItemSizes, MAX_ITEMS, SnapError, Snapshot, apply, create};

/// A snapshot of `n` items with distinct keys, in the order made, sized
/// by `sizes`. A type without a pre-agreed size has one size per type
/// (DDNet refuses an item whose size changes between snapshots); edge
/// cases use random sizes, small when the snapshot is large.
pub(crate) fn snapshot(rng: &mut Rng, n: usize, edge: bool, sizes: &ItemSizes) -> Snapshot {
    let mut keys = Vec::with_capacity(n);
    let mut snap = Snapshot::new();
    while keys.len() < n {
        let type_id = if edge && (n >= MAX_ITEMS || rng.one_in(4)) {
            *rng.pick(&[0x7fff, 0x4000, 0x4001, 21, 63])
        } else {
            rng.int(1, 24)
        };
        let id = if n >= MAX_ITEMS {
            // Enough distinct keys: every id once.
            keys.len() as i32
        } else if edge && rng.one_in(3) {
            *rng.pick(&[0, 0xffff, 0xfffe])
        } else {
            rng.int(0, 63)
        };
        let key = type_id << 16 | id;
        if keys.contains(&key) {
            continue;
        }
        keys.push(key);
        let len = match sizes.get(type_id) {
            Some(len) if !(edge && n >= MAX_ITEMS) => len,
            _ if edge => rng.below(if n >= MAX_ITEMS { 8 } else { 64 }) as usize,
            _ => (type_id % 7) as usize,
        };
        let data: Vec<i32> = (0..len)
            .map(|_| {
                if edge {
                    rng.any_int()
                } else {
                    rng.int(-100, 1000)
                }
            })
            .collect();
        snap.push(key, &data);
    }
    snap
}

fn le_bytes(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// One snapshot file of `kind`.
pub(crate) fn generate_snapshot(rng: &mut Rng, kind: Kind) -> Made {
    match kind {
        Kind::Valid => {
            let n = rng.int(0, 40) as usize;
            Made::valid(
                le_bytes(&snapshot(rng, n, false, &ItemSizes::ddnet_06()).to_ints()),
                format!("{n} items of 0.6 types"),
            )
        }
        Kind::Edge => {
            let n = if rng.one_in(4) {
                MAX_ITEMS
            } else {
                rng.int(0, 64) as usize
            };
            Made::valid(
                le_bytes(&snapshot(rng, n, true, &ItemSizes::ddnet_06()).to_ints()),
                format!("{n} items: largest types and ids, unsized types, int limits"),
            )
        }
        Kind::Malformed => {
            let n = rng.int(1, 20) as usize;
            let mut ints = snapshot(rng, n, false, &ItemSizes::ddnet_06()).to_ints();
            match rng.below(2) {
                0 => {
                    ints[0] += rng.int(1, 100) * 4;
                    Made::faulty(
                        le_bytes(&ints),
                        "data size larger than the items",
                        0,
                        "snapshot",
                    )
                }
                _ => {
                    ints[1] = rng.int(MAX_ITEMS as i32 + 1, i32::MAX);
                    Made::faulty(le_bytes(&ints), "more items than MAX_ITEMS", 4, "snapshot")
                }
            }
        }
    }
}

/// One delta case of `kind`: base length, base, delta.
pub(crate) fn generate_delta(rng: &mut Rng, kind: Kind) -> Made {
    let edge = kind == Kind::Edge;
    let n = rng.int(0, 30) as usize;
    let from = snapshot(rng, n, edge, &ItemSizes::ddnet_06());
    // The next tick: some items changed, some gone, some new.
    let mut to = Snapshot::new();
    for item in from.items() {
        if rng.one_in(6) {
            continue;
        }
        let mut data = item.data.to_vec();
        for v in &mut data {
            if rng.one_in(3) {
                *v = v.wrapping_add(rng.int(-5, 5));
            }
        }
        to.push(item.key, &data);
    }
    let n = rng.int(0, 5) as usize;
    let extra = snapshot(rng, n, edge, &ItemSizes::ddnet_06());
    for item in extra.items() {
        if to.index_of(item.key).is_none() {
            to.push(item.key, item.data);
        }
    }
    let delta = create(&from, &to, &ItemSizes::ddnet_06());
    let base = le_bytes(&from.to_ints());
    let mut file = (base.len() as u32).to_le_bytes().to_vec();
    file.extend_from_slice(&base);
    let reason = format!(
        "{} items to {}, as DDNet's CreateDelta makes it",
        from.len(),
        to.len()
    );
    if kind != Kind::Malformed {
        file.extend(le_bytes(&delta));
        return Made::valid(file, reason);
    }
    // A removed item announced, and the delta ends before its key.
    let at = (file.len() + 3 * 4) as u64;
    file.extend(le_bytes(&[1, 0, 0]));
    Made::faulty(
        file,
        "a delta announcing a removed key it does not hold",
        at,
        "delta",
    )
}

/// DDNet's `UnpackDelta` of the case's delta on its base.
pub(crate) fn judge_delta(bytes: &[u8]) -> Judgement {
    let fail = |offset: u64, kind: &str| Judgement {
        accepted: false,
        status: Status::Fail,
        fault: Some(Fault {
            offset,
            kind: kind.into(),
        }),
        findings: vec![kind.into()],
    };
    let ints = |b: &[u8]| -> Vec<i32> {
        b.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let Some((len, rest)) = bytes.split_first_chunk::<4>() else {
        return fail(0, "int_array");
    };
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() || !len.is_multiple_of(4) || !(rest.len() - len).is_multiple_of(4) {
        return fail(0, "int_array");
    }
    let (base, delta) = rest.split_at(len);
    let at = |e: &SnapError, start: usize| (4 + start + e.at * 4) as u64;
    let base = match Snapshot::from_ints(&ints(base)) {
        Ok(s) => s,
        Err(e) => return fail(at(&e, 0), "base"),
    };
    match apply(&base, &ints(delta), &ItemSizes::ddnet_06()) {
        Ok(_) => Judgement {
            accepted: true,
            status: Status::Pass,
            fault: None,
            findings: Vec::new(),
        },
        Err(e) => fail(at(&e, len), "delta"),
    }
}
