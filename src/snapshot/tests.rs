//! Unit and property tests of snapshots, deltas and the replay machine.

use super::delta::KeyHash;
use super::replay::{Base, FaultKind, SnapData, SnapInput, SnapshotHistory};
use super::*;
use crate::testing::qc;
use quickcheck::{Arbitrary, Gen, TestResult};

fn key(type_id: i32, id: i32) -> i32 {
    type_id << 16 | id
}

fn snap(items: &[(i32, i32, &[i32])]) -> Snapshot {
    Snapshot::from_items(items.iter().map(|&(t, id, d)| (key(t, id), d)))
}

fn owned(s: &Snapshot) -> Vec<(i32, Vec<i32>)> {
    s.items().map(|i| (i.key, i.data.to_vec())).collect()
}

// DDNet snapshot_test.cpp (spec section 4.1).
#[test]
fn crc_is_ddnets() {
    for (data, crc) in [
        (vec![4, 0, 0], 4),
        (vec![1, 1, 0], 2),
        (vec![99999999, 1, 1], 100000001),
        (vec![-1, 1, 1], 1),
    ] {
        assert_eq!(snap(&[(5, 0, &data)]).crc(), crc, "{data:?}");
    }
}

#[test]
fn layout_and_validity() {
    let s = snap(&[(6, 0, &[1, 2]), (0, 32767, &[]), (9, 3, &[7])]);
    let ints = s.to_ints();
    assert_eq!(
        ints,
        [24, 3, 0, 12, 16, 6 << 16, 1, 2, 32767, 9 << 16 | 3, 7]
    );
    assert_eq!(Snapshot::from_ints(&ints).unwrap(), s);
    assert_eq!(s.size(), ints.len() * 4);
    assert_eq!(s.get(key(9, 3)).unwrap().data, [7]);
    assert_eq!(s.index_of(key(0, 32767)), Some(1));
    let mut bad = ints.clone();
    bad[3] = 13;
    assert_eq!(Snapshot::from_ints(&bad).unwrap_err().at, 3);
    bad = ints.clone();
    bad[0] = 28;
    assert_eq!(
        Snapshot::from_ints(&bad).unwrap_err().fault,
        // 11 ints; the header says 2 + 3 offsets + 28 / 4 data ints.
        SnapFault::SnapshotSizeMismatch {
            bytes: 44,
            expected: 48
        }
    );
    bad = ints.clone();
    bad[1] = 1025;
    assert_eq!(Snapshot::from_ints(&bad).unwrap_err().at, 1);
    // Offsets out of order give a negative item size.
    bad = ints;
    bad[3] = 16;
    bad[4] = 12;
    assert_eq!(Snapshot::from_ints(&bad).unwrap_err().at, 3);
}

#[test]
fn ints_before_the_first_item_are_kept() {
    // DDNet's IsValid accepts a first offset other than 0; the ints before
    // it belong to no item, so they are not in the CRC either.
    let ints = [20, 1, 8, 77, 88, 5 << 16, 3, 4];
    let s = Snapshot::from_ints(&ints).unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s.item(0).key, 5 << 16);
    assert_eq!(s.item(0).data, [3, 4]);
    assert_eq!(s.crc(), 7);
    assert_eq!(s.to_ints(), ints);
}

#[test]
fn empty_delta_is_no_ints() {
    let sizes = ItemSizes::ddnet_06();
    let s = snap(&[(5, 0, &[1, 2, 3])]);
    let delta = create(&s, &s, &sizes);
    assert!(delta.is_empty(), "{delta:?}");
    assert_eq!(Delta::from_ints(&delta, &sizes).unwrap(), Delta::default());
    assert_eq!(apply(&s, &delta, &sizes).unwrap(), s);
}

#[test]
fn unpack_delta_error_codes() {
    let sizes = ItemSizes::ddnet_06();
    let from = snap(&[(5, 0, &[1, 2, 3])]);
    let code = |ints: &[i32]| apply(&from, ints, &sizes).unwrap_err().code();
    assert_eq!(code(&[-1, 0, 0]), Some(-201));
    assert_eq!(code(&[2, 0, 0, 1]), Some(-101));
    assert_eq!(code(&[0, 1, 0, 5]), Some(-102));
    assert_eq!(code(&[0, 1, 0, 0x8000, 0]), Some(-202));
    assert_eq!(code(&[0, 1, 0, 5, 0x10000]), Some(-203));
    assert_eq!(
        code(&[0, 1, 0, 0, 1]),
        Some(-103),
        "type 0 has no static size"
    );
    assert_eq!(code(&[0, 1, 0, 0, 1, -1]), Some(-204));
    assert_eq!(code(&[0, 1, 0, 5, 0, 1, 2]), Some(-205));
    // An ex type (sized on the wire) whose size differs from the base item:
    // the kept copy is found first (-206).
    let from = snap(&[(100, 0, &[1])]);
    let e = apply(&from, &[0, 1, 0, 100, 0, 2, 1, 1], &sizes).unwrap_err();
    assert_eq!((e.code(), e.at), (Some(-206), 3));
    // Removed from the builder but still in the base: -207.
    let e = apply(&from, &[1, 1, 0, 100 << 16, 100, 0, 2, 1, 1], &sizes).unwrap_err();
    assert_eq!((e.code(), e.at), (Some(-207), 4));
    // The same delta value read strictly agrees on the parse errors.
    assert_eq!(
        Delta::from_ints(&[0, 1, 0, 5, 0, 1, 2], &sizes)
            .unwrap_err()
            .code(),
        Some(-205)
    );
}

#[test]
fn faults_come_in_ddnets_order() {
    let sizes = ItemSizes::ddnet_06();
    // Parsing and applying are one pass: an apply fault in the first update
    // wins over a parse fault in the second.
    let from = snap(&[(100, 0, &[1])]);
    let delta = [1, 2, 0, 100 << 16, 100, 0, 2, 1, 1, 5];
    assert_eq!(apply(&from, &delta, &sizes).unwrap_err().code(), Some(-207));
    // The kept items are copied before any update is read: -301 first
    // (a base of 1025 items can only be built, not read).
    let mut full = Snapshot::new();
    for id in 0..=MAX_ITEMS as i32 {
        full.push(key(5, id), &[0, 0, 0]);
    }
    assert_eq!(
        apply(&full, &[0, 1, 0, 5], &sizes).unwrap_err().code(),
        Some(-301)
    );
    // And a new item past the builder's limits is -302.
    full.clear();
    for id in 0..MAX_ITEMS as i32 {
        full.push(key(5, id), &[0, 0, 0]);
    }
    assert_eq!(
        apply(&full, &[0, 1, 0, 5, 5000, 1, 2, 3], &sizes)
            .unwrap_err()
            .code(),
        Some(-302)
    );
}

#[test]
fn trailing_ints_are_ignored_by_unpack_and_rejected_as_a_value() {
    let sizes = ItemSizes::ddnet_06();
    let from = snap(&[(5, 0, &[1, 2, 3])]);
    let delta = [0, 1, 0, 5, 0, 1, 1, 1, 99];
    assert_eq!(
        owned(&apply(&from, &delta, &sizes).unwrap()),
        [(key(5, 0), vec![2, 3, 4])]
    );
    assert_eq!(Delta::from_ints(&delta, &sizes).unwrap_err().at, 8);
    // A negative update count updates nothing in DDNet.
    assert_eq!(apply(&from, &[0, -3, 0], &sizes).unwrap(), from);
    let parsed = Delta::from_ints(&[0, -3, 0], &sizes);
    assert!(parsed.is_err(), "{parsed:?}");
}

#[test]
fn output_order_is_kept_then_new() {
    let sizes = ItemSizes::ddnet_06();
    let from = snap(&[(5, 1, &[1, 1, 1]), (5, 2, &[2, 2, 2]), (5, 3, &[3, 3, 3])]);
    let to = snap(&[(5, 9, &[9, 9, 9]), (5, 3, &[3, 3, 4]), (5, 1, &[1, 1, 1])]);
    let ints = create(&from, &to, &sizes);
    let delta = Delta::from_ints(&ints, &sizes).unwrap();
    assert_eq!(delta.removed, [key(5, 2)]);
    assert_eq!(delta.updates.len(), 2, "the unchanged item is left out");
    assert_eq!(delta.to_ints(), ints);
    let got = apply(&from, &ints, &sizes).unwrap();
    let ids: Vec<i32> = got.items().map(|i| i.id()).collect();
    assert_eq!(
        ids,
        [1, 3, 9],
        "kept base items in base order, then new ones"
    );
}

#[test]
fn create_reads_past_a_shorter_base_item_as_ddnet_does() {
    // Item 100:0 grows from 1 to 2 ints; DDNet diffs over the new size and
    // so reads the next item's key as the second "past" int.
    let sizes = ItemSizes::ddnet_06();
    let from = snap(&[(100, 0, &[10]), (5, 0, &[1, 2, 3])]);
    let to = snap(&[(100, 0, &[11, 12]), (5, 0, &[1, 2, 3])]);
    assert_eq!(
        create(&from, &to, &sizes),
        [0, 1, 0, 100, 0, 2, 1, 12 - key(5, 0)]
    );
    // Past the end of the base, the missing ints count as 0.
    let from = snap(&[(100, 0, &[10])]);
    let to = snap(&[(100, 0, &[11, 12])]);
    assert_eq!(create(&from, &to, &sizes), [0, 1, 0, 100, 0, 2, 1, 12]);
    // So growing by a 0 past the end is no change at all (DDNet ORs the
    // differences), and neither is growing into the next item's key.
    let to = snap(&[(100, 0, &[10, 0])]);
    assert_eq!(create(&from, &to, &sizes), Vec::<i32>::new());
    let from = snap(&[(100, 0, &[10]), (5, 0, &[1, 2, 3])]);
    let to = snap(&[(100, 0, &[10, key(5, 0)]), (5, 0, &[1, 2, 3])]);
    assert_eq!(create(&from, &to, &sizes), Vec::<i32>::new());
}

#[test]
fn key_hash_is_djb2_over_the_key_bytes() {
    // DDNet's CalcHashID: djb2 over the 4 key bytes, LSB first, mod 256.
    fn djb2(key: i32) -> usize {
        let mut hash: u32 = 5381;
        for b in key.to_le_bytes() {
            hash = (hash << 5).wrapping_add(hash).wrapping_add(u32::from(b));
        }
        hash as usize % 256
    }
    for key in (0..200_000).chain([i32::MIN, -1, 0x7fff_ffff, 0x1234_5678]) {
        assert_eq!(KeyHash::bucket(key), djb2(key), "{key:#x}");
    }
    qc().quickcheck((|k: i32| KeyHash::bucket(k) == djb2(k)) as fn(i32) -> bool);
}

#[test]
fn full_hash_buckets_make_items_new() {
    // 65 keys in one djb2 bucket: the 65th is "not found" by DDNet's hash,
    // so an unchanged item is sent again in full (and listed as removed).
    let sizes = ItemSizes::ddnet_06();
    let ids: Vec<i32> = (0..=0xffff)
        .filter(|&id| KeyHash::bucket(key(100, id)) == KeyHash::bucket(key(100, 0)))
        .take(65)
        .collect();
    assert_eq!(ids.len(), 65);
    let s = Snapshot::from_items(
        ids.iter()
            .map(|id| (key(100, *id), std::slice::from_ref(id))),
    );
    let delta = Delta::from_ints(&create(&s, &s, &sizes), &sizes).unwrap();
    assert_eq!(delta.removed, [key(100, ids[64])]);
    assert_eq!(delta.updates.len(), 1);
    assert_eq!(delta.updates[0].id, ids[64]);
}

#[test]
fn history_rebuilds_checks_and_forgets() {
    let sizes = ItemSizes::ddnet_06();
    let mut h = SnapshotHistory::with_limit(sizes.clone(), 4);
    let s1 = snap(&[(5, 0, &[1, 2, 3])]);
    let s2 = snap(&[(5, 0, &[1, 2, 4])]);
    let d1 = create(&Snapshot::new(), &s1, &sizes);
    let d2 = create(&s1, &s2, &sizes);
    let input = |tick, base, ints, crc| SnapInput {
        offset: tick as u64 * 10,
        tick,
        data: SnapData::Delta { base, ints },
        crc,
    };
    let fault = |r: Result<&Snapshot, replay::Fault>| r.unwrap_err().kind;
    // A delta before anything, and against a tick never seen.
    assert_eq!(
        fault(h.feed(input(1, Base::Previous, &d1, None))),
        FaultKind::NoPrevious
    );
    assert_eq!(
        fault(h.feed(input(1, Base::Tick(0), &d1, None))),
        FaultKind::MissingBase { base: 0 }
    );
    assert_eq!(h.feed(input(10, Base::Empty, &d1, Some(6))).unwrap(), &s1);
    // A CRC that is not the rebuilt snapshot's: dropped, not kept.
    assert_eq!(
        fault(h.feed(input(12, Base::Tick(10), &d2, Some(0)))),
        FaultKind::CrcMismatch {
            expected: 0,
            actual: 7
        }
    );
    assert_eq!(h.get(12), None);
    assert_eq!(
        h.feed(input(12, Base::Tick(10), &d2, Some(7))).unwrap(),
        &s2
    );
    // An empty delta repeats its base.
    assert_eq!(h.feed(input(14, Base::Tick(12), &[], None)).unwrap(), &s2);
    assert_eq!(h.counts().dropped, 3);
    assert_eq!(h.counts().crc_checked, 2);
    // The client's purge: older than the base and the two latest go.
    h.feed(input(16, Base::Tick(14), &[], None)).unwrap();
    assert_eq!(h.ticks().collect::<Vec<_>>(), [12, 14, 16]);
    // Keyframes (no base) purge nothing; the limit bounds the history.
    for t in [20, 21, 22] {
        let kf = s1.to_ints();
        h.feed(SnapInput {
            offset: 0,
            tick: t,
            data: SnapData::Keyframe(&kf),
            crc: None,
        })
        .unwrap();
    }
    assert_eq!(h.ticks().collect::<Vec<_>>(), [16, 20, 21, 22]);
    assert_eq!(h.last().unwrap().0, 22);
}

/// DDNet 16.4 snaps a paused 0.6 client with id 15 its SpectatorInfo
/// (type 12) twice under id 15 (`CPlayer::Snap`, `CPlayer::FakeSnap`); the
/// server's CRC counts both copies, its delta gives both, and DDNet's
/// client keeps one item, the last update written into it. The copies are
/// those of frame 1460 of corpus/packet/ddnet-16.4/repeated_item.pcapng
/// ([-1, -231, 0]: the client's CRC is 232 over the server's).
#[test]
fn a_crc_that_counts_an_item_twice_is_the_servers_repeated_item() {
    let sizes = ItemSizes::ddnet_06();
    let spec: &[i32] = &[-1, -231, 0];
    let base = snap(&[(6, 0, &[0, 0, 0, 0, 0, 0, 7, 0]), (12, 3, &[1, 2, 3])]);
    // New copies, or copies of an item the base has once: each is
    // written into the one item DDNet's client finds, the last one stays.
    let new_twice = snap(&[(6, 0, &[0; 8]), (12, 15, spec), (12, 15, spec)]);
    let kept_twice = snap(&[(6, 0, &[0; 8]), (12, 3, &[1, 2, 5]), (12, 3, &[9, 9, 9])]);
    fn input(tick: i32, base: Base, ints: &[i32], crc: i32) -> SnapInput<'_> {
        SnapInput {
            offset: tick as u64,
            tick,
            data: SnapData::Delta { base, ints },
            crc: Some(crc),
        }
    }
    for (to, repeated, lost) in [
        (&new_twice, key(12, 15), -232),
        (&kept_twice, key(12, 3), 8),
    ] {
        let mut h = SnapshotHistory::new(sizes.clone());
        let full = create(&Snapshot::new(), &base, &sizes);
        h.feed(input(1, Base::Empty, &full, base.crc())).unwrap();
        let delta = create(&base, to, &sizes);
        let mut rebuilt = Snapshot::new();
        DeltaCodec::new(sizes.clone())
            .unpack(&base, &delta, &mut rebuilt)
            .unwrap();
        let last = to.items().filter(|i| i.key == repeated).last().unwrap();
        let rebuilt_items: Vec<_> = rebuilt.items().filter(|i| i.key == repeated).collect();
        assert_eq!(rebuilt_items, [last]);
        assert_eq!(rebuilt.crc().wrapping_add(lost), to.crc());
        let fault = h.feed(input(2, Base::Tick(1), &delta, to.crc()));
        assert_eq!(
            fault.unwrap_err().kind,
            FaultKind::RepeatedItem {
                key: repeated,
                copies: 2,
                expected: to.crc(),
                actual: rebuilt.crc(),
            }
        );
        // Dropped, as DDNet's client drops it.
        assert_eq!(h.get(2), None);
        // A CRC the copies do not explain stays a mismatch.
        let fault = h.feed(input(3, Base::Tick(1), &delta, to.crc() ^ 1));
        assert_eq!(
            fault.unwrap_err().kind,
            FaultKind::CrcMismatch {
                expected: to.crc() ^ 1,
                actual: rebuilt.crc(),
            }
        );
    }
}

#[test]
fn history_reports_items_of_the_wrong_size() {
    let sizes = ItemSizes::ddnet_06();
    let mut h = SnapshotHistory::new(sizes);
    // A Flag (type 5) has 3 ints; this keyframe's has 2.
    let kf = snap(&[(5, 0, &[1, 2])]).to_ints();
    h.feed(SnapInput {
        offset: 40,
        tick: 1,
        data: SnapData::Keyframe(&kf),
        crc: None,
    })
    .unwrap();
    let w = h.take_warnings();
    assert_eq!(
        w[0].kind,
        FaultKind::InvalidItem {
            index: 0,
            key: key(5, 0),
            size: 2,
            expected: 3
        }
    );
    assert_eq!(
        w[0].to_string(),
        "offset 40 tick 1: item 0 (5:0) has 2 ints, its type has 3"
    );
    // A delta that keeps the item (applied to a copy in place) keeps the
    // fault, and it is reported again at its tick.
    h.feed(SnapInput {
        offset: 50,
        tick: 2,
        data: SnapData::Delta {
            base: Base::Tick(1),
            ints: &[],
        },
        crc: None,
    })
    .unwrap();
    let w = h.take_warnings();
    assert_eq!((w.len(), w[0].tick), (1, 2), "{w:?}");
    assert_eq!(h.counts().invalid_items, 2);
}

/// A snapshot with unique keys whose items have their type's static size.
#[derive(Clone, Debug)]
struct ArbSnap(Snapshot);

impl Arbitrary for ArbSnap {
    fn arbitrary(g: &mut Gen) -> Self {
        let sizes = ItemSizes::ddnet_06();
        let n = usize::arbitrary(g) % 24;
        let mut s = Snapshot::new();
        for _ in 0..n {
            let type_id = [1, 4, 9, 11, 0, 70, 32767][usize::arbitrary(g) % 7];
            let id = i32::from(u8::arbitrary(g) % 16);
            let len = sizes.get(type_id).unwrap_or(usize::arbitrary(g) % 6);
            let data: Vec<i32> = (0..len).map(|_| i32::arbitrary(g) % 3).collect();
            if s.get(key(type_id, id)).is_none() {
                s.push(key(type_id, id), &data);
            }
        }
        ArbSnap(s)
    }
}

#[test]
fn prop_snapshots_round_trip() {
    fn prop(ArbSnap(s): ArbSnap) -> bool {
        Snapshot::from_ints(&s.to_ints()).as_ref() == Ok(&s)
    }
    qc().tests(1_000).quickcheck(prop as fn(ArbSnap) -> bool);
}

#[test]
fn prop_apply_create_gives_to_in_ddnets_order() {
    fn prop(ArbSnap(from): ArbSnap, ArbSnap(to): ArbSnap) -> TestResult {
        // Items that change size between snapshots are not something DDNet
        // creates deltas for (receivers reject them); leave those out.
        if to.items().any(|t| {
            from.get(t.key)
                .is_some_and(|f| f.data.len() != t.data.len())
        }) {
            return TestResult::discard();
        }
        let sizes = ItemSizes::ddnet_06();
        let ints = create(&from, &to, &sizes);
        let Ok(delta) = Delta::from_ints(&ints, &sizes) else {
            return TestResult::error("delta does not parse");
        };
        if delta.to_ints() != ints {
            return TestResult::error("delta does not round-trip");
        }
        let got = apply(&from, &ints, &sizes).unwrap();
        let kept = from.items().filter_map(|f| to.get(f.key));
        let new = to.items().filter(|t| from.get(t.key).is_none());
        let expected: Vec<Item> = kept.chain(new).collect();
        TestResult::from_bool(got.items().collect::<Vec<_>>() == expected && got.crc() == to.crc())
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(ArbSnap, ArbSnap) -> TestResult);
}

#[test]
fn prop_a_reused_codec_agrees_with_a_fresh_one() {
    // The codec's scratch (generation-stamped indexes, hash buckets) must
    // not leak between calls.
    fn prop(snaps: Vec<ArbSnap>, deltas: Vec<Vec<i32>>) -> bool {
        let sizes = ItemSizes::ddnet_06();
        let mut codec = DeltaCodec::new(sizes.clone());
        let (mut out, mut ints) = (Snapshot::new(), Vec::new());
        for pair in snaps.windows(2) {
            codec.create(&pair[0].0, &pair[1].0, &mut ints);
            if ints != create(&pair[0].0, &pair[1].0, &sizes) {
                return false;
            }
            for d in std::iter::once(&ints).chain(&deltas) {
                let fresh = apply(&pair[0].0, d, &sizes);
                let reused = codec.unpack(&pair[0].0, d, &mut out).map(|()| out.clone());
                if fresh != reused {
                    return false;
                }
            }
        }
        true
    }
    qc().tests(300)
        .quickcheck(prop as fn(Vec<ArbSnap>, Vec<Vec<i32>>) -> bool);
}

#[test]
fn prop_arbitrary_ints_never_panic() {
    fn prop(ints: Vec<i32>, base: ArbSnap) -> bool {
        let _ = Snapshot::from_ints(&ints);
        for sizes in [ItemSizes::ddnet_06(), ItemSizes::teeworlds_07()] {
            let _ = apply(&base.0, &ints, &sizes);
            if let Ok(d) = Delta::from_ints(&ints, &sizes)
                && Delta::from_ints(&d.to_ints(), &sizes).as_ref() != Ok(&d)
            {
                return false;
            }
        }
        true
    }
    qc().tests(2_000)
        .quickcheck(prop as fn(Vec<i32>, ArbSnap) -> bool);
}

#[test]
fn prop_arbitrary_inputs_never_panic_the_history() {
    fn prop(inputs: Vec<(u8, i8, Vec<i32>, Option<i32>)>) -> bool {
        let mut h = SnapshotHistory::with_limit(ItemSizes::ddnet_06(), 8);
        for (tick, (kind, base, ints, crc)) in inputs.iter().enumerate() {
            let base = match kind % 3 {
                0 => Base::Empty,
                1 => Base::Previous,
                _ => Base::Tick(tick as i32 - i32::from(*base)),
            };
            let data = if kind % 4 == 3 {
                SnapData::Keyframe(ints)
            } else {
                SnapData::Delta { base, ints }
            };
            let _ = h.feed(SnapInput {
                offset: 0,
                tick: tick as i32,
                data,
                crc: *crc,
            });
            if h.ticks().count() > 8 {
                return false;
            }
        }
        true
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(Vec<(u8, i8, Vec<i32>, Option<i32>)>) -> bool);
}

#[test]
fn prop_in_place_is_unpack() {
    // A chain of steps on one codec (so its layout cache is exercised):
    // data changes (the in-place case), items removed (first or last) or
    // added, a duplicated update, trailing or arbitrary ints. Whenever
    // `unpack_in_place` takes a delta it must build what `unpack` builds;
    // otherwise it must leave the snapshot untouched.
    /// Changes to data (item, index, added), a tweak, and noise ints.
    type Step = (Vec<(u8, u8, i32)>, u8, Vec<i32>);
    fn prop(ArbSnap(start): ArbSnap, steps: Vec<Step>) -> bool {
        let sizes = ItemSizes::ddnet_06();
        let mut codec = DeltaCodec::new(sizes.clone());
        let (mut reference, mut cur) = (start.clone(), start);
        for (changes, tweak, noise) in steps {
            let mut to = reference.clone();
            for (item, at, v) in changes {
                if !to.is_empty() {
                    let d = to.data_mut(usize::from(item) % to.len());
                    if !d.is_empty() {
                        let k = usize::from(at) % d.len();
                        d[k] = d[k].wrapping_add(v);
                    }
                }
            }
            // Items removed first or last (a demo's events), added, or both.
            let n = to.len();
            let keep = |to: &Snapshot, skip: usize, take: usize| {
                Snapshot::from_items(to.items().skip(skip).take(take).map(|i| (i.key, i.data)))
            };
            match tweak % 8 {
                4 => to = keep(&to, 1, n),
                6 | 7 => to = keep(&to, 0, n.saturating_sub(1 + usize::from(tweak % 3))),
                _ => {}
            }
            if tweak % 8 >= 5 && to.get(key(70, 99)).is_none() {
                to.push(key(70, 99), &[1, 2]);
            }
            let mut ints = create(&reference, &to, &sizes);
            match tweak % 8 {
                1 => {
                    if let Ok(mut d) = Delta::from_ints(&ints, &sizes)
                        && let Some(first) = d.updates.first().cloned()
                    {
                        d.updates.push(first);
                        ints = d.to_ints();
                    }
                }
                2 => ints = noise,
                3 => ints.extend(noise),
                _ => {}
            }
            let expected = apply(&reference, &ints, &sizes);
            let before = cur.clone();
            if codec.unpack_in_place(&mut cur, &ints) {
                if Ok(&cur) != expected.as_ref() {
                    return false;
                }
            } else if cur != before {
                return false;
            }
            if let Ok(next) = expected {
                reference = next;
                cur.clone_from(&reference);
            }
        }
        true
    }
    qc().tests(1_000)
        .quickcheck(prop as fn(ArbSnap, Vec<Step>) -> bool);
}

#[test]
fn in_place_leaves_a_base_with_ints_before_its_first_item_to_unpack() {
    // data_size 12, one item at offset 4: the int at offset 0 comes before
    // it. `unpack` builds afresh and drops it, so in place must not apply.
    let base = Snapshot::from_ints(&[12, 1, 4, 99, key(5, 0), 7]).unwrap();
    assert_eq!(base.to_ints(), [12, 1, 4, 99, key(5, 0), 7]);
    let sizes = ItemSizes::ddnet_06();
    let delta = [0, 1, 0, 100, 0, 1, 1];
    let mut codec = DeltaCodec::new(sizes.clone());
    let mut same = base.clone();
    assert!(
        !codec.unpack_in_place(&mut same, &delta),
        "applied in place: {same:?}"
    );
    assert_eq!(same, base);
    let rebuilt = apply(&base, &delta, &sizes).unwrap();
    assert_eq!(
        rebuilt.to_ints(),
        [16, 2, 0, 8, key(5, 0), 7, key(100, 0), 1]
    );
}

#[test]
fn what_the_history_keeps_does_not_depend_on_the_delta_path() {
    // A keyframe at 10, then a delta at 11 removing the last item (which
    // the in-place path takes) or the first (which it does not).
    let sizes = ItemSizes::ddnet_06();
    let base = snap(&[(5, 0, &[1, 2, 3]), (5, 1, &[4, 5, 6])]);
    let kept = |mut h: SnapshotHistory, removed: i32| {
        let ints = base.to_ints();
        let at = |tick, data| SnapInput {
            offset: 0,
            tick,
            data,
            crc: None,
        };
        h.feed(at(10, SnapData::Keyframe(&ints))).unwrap();
        let delta = [1, 0, 0, removed];
        let previous = SnapData::Delta {
            base: Base::Previous,
            ints: &delta,
        };
        let crc = h.feed(at(11, previous)).unwrap().crc();
        (h.ticks().collect::<Vec<_>>(), crc)
    };
    for removed in [key(5, 1), key(5, 0)] {
        // A demo player keeps the last snapshot only; a client the two last.
        let demo = kept(SnapshotHistory::for_demo(sizes.clone()), removed);
        let client = kept(SnapshotHistory::new(sizes.clone()), removed);
        assert_eq!(demo.0, [11], "{removed:#x}");
        assert_eq!(client.0, [10, 11], "{removed:#x}");
        assert_eq!(demo.1, client.1);
    }
}

#[test]
fn int_codec_reads_a_snapshot_then_a_delta_from_one_array() {
    let sizes = ItemSizes::ddnet_06();
    let s = snap(&[(5, 0, &[1, 2]), (9, 3, &[7])]);
    // Type 100 has no pre-agreed size: its size (2) is on the wire.
    let d = Delta::from_ints(&[1, 1, 0, key(9, 3), 100, 0, 2, 6, 7], &sizes).unwrap();
    let mut ints = Vec::new();
    s.encode(&mut ints, ());
    d.encode(&mut ints, &sizes);
    let mut r = IntReader::new(&ints);
    assert_eq!(Snapshot::decode(&mut r, ()).unwrap(), s);
    assert_eq!(r.position(), s.to_ints().len());
    assert_eq!(Delta::decode(&mut r, &sizes).unwrap(), d);
    let end = r.finish();
    assert!(end.is_ok(), "{end:?}");
    // Exact decoding names the first int left over.
    let err = decode_exact_ints::<Snapshot, _>(&ints, ()).unwrap_err();
    assert_eq!(
        (err.at, err.fault),
        (
            s.to_ints().len(),
            SnapFault::TrailingInts {
                count: d.to_ints().len()
            }
        )
    );
    // A fault inside names its int in the whole array.
    let mut bad = ints.clone();
    let type_at = s.to_ints().len() + 4;
    bad[type_at] = -1;
    let mut r = IntReader::new(&bad);
    Snapshot::decode(&mut r, ()).unwrap();
    let err = Delta::decode(&mut r, &sizes).unwrap_err();
    assert_eq!((err.at, err.code()), (type_at, Some(-202)));
}
