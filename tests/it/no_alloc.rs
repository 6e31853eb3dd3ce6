//! Steady-state snapshot work allocates nothing. Over the snapshots of a
//! real demo, a first pass grows every buffer; a second pass of the same
//! work (build, `CreateDelta`, `UnpackDelta`, the in-place apply, and the
//! replay machine fed keyframe and deltas) must not allocate at all.
//!
//! Allocations are counted per thread by a wrapping global allocator, so
//! the test harness's other threads do not count. It is the allocator of
//! the whole `it` binary: every other test pays a thread-local increment
//! an allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use teeoracle::demo::Demo;
use teeoracle::snapshot::replay::{Base, SnapData, SnapInput, SnapshotHistory};
use teeoracle::snapshot::{DeltaCodec, Snapshot};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counter is a const-initialised thread local, which does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn steady_state_snapshot_work_does_not_allocate() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/demo/ddnet-bench/Multeasymap_bench.demo");
    let bytes = std::fs::read(path).unwrap();
    let (demo, offsets) = Demo::decode(&bytes).unwrap();
    let sizes = demo.item_sizes();
    let mut snaps = Vec::new();
    demo.replay_snapshots(&offsets, |_, _, s| snaps.push(s.clone()));
    assert!(snaps.len() > 1000, "{} snapshots", snaps.len());

    let mut codec = DeltaCodec::new(sizes.clone());
    let mut history = SnapshotHistory::for_demo(sizes);
    let (mut built, mut previous, mut out, mut cur) = (
        Snapshot::new(),
        Snapshot::new(),
        Snapshot::new(),
        Snapshot::new(),
    );
    let (mut ints, mut delta) = (Vec::new(), Vec::new());
    let mut pass = |first_tick: i32| {
        previous.clone_from(&snaps[0]);
        cur.clone_from(&snaps[0]);
        ints.clear();
        previous.write_ints(&mut ints);
        let keyframe = SnapInput {
            offset: 0,
            tick: first_tick,
            data: SnapData::Keyframe(&ints),
            crc: None,
        };
        history.feed(keyframe).unwrap();
        let mut in_place = 0;
        for (tick, s) in (first_tick + 1..).zip(&snaps[1..]) {
            built.clear();
            for item in s.items() {
                built.push(item.key, item.data);
            }
            ints.clear();
            built.write_ints(&mut ints);
            codec.create(&previous, &built, &mut delta);
            codec.unpack(&previous, &delta, &mut out).unwrap();
            in_place += usize::from(codec.unpack_in_place(&mut cur, &delta));
            let data = SnapData::Delta {
                base: Base::Previous,
                ints: &delta,
            };
            let fed = history.feed(SnapInput {
                offset: 0,
                tick,
                data,
                crc: None,
            });
            assert_eq!(fed.unwrap().crc(), s.crc());
            std::mem::swap(&mut previous, &mut built);
            cur.clone_from(&out);
        }
        in_place
    };
    let warm = pass(0);
    let before = allocations();
    let again = pass(100_000);
    assert_eq!(allocations() - before, 0, "allocations in the second pass");
    // Both paths of the apply ran.
    assert_eq!(warm, again);
    assert!(again > snaps.len() / 2 && again < snaps.len(), "{again}");
}
