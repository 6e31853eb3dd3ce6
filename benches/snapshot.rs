//! Snapshot build, delta create and apply, and demo decode + snapshot
//! replay, on real data.
//!
//! Data: every snapshot of DDNet's `Multeasymap_bench.demo` (1,912 ticks of a
//! busy race server, about 300 items each), rebuilt once before timing.
//!
//! Groups (throughput in snapshots, i.e. ticks):
//! * `snapshot`: per tick, the steady state of a server or client, all into
//!   reused buffers: `build` (every item pushed into a cleared snapshot, then
//!   its int array written: `CSnapshotBuilder` `NewItem` + `Finish`),
//!   `build_create` (the server: build, then `CreateDelta` against the
//!   snapshot built the tick before, DDNet's "snapshot + delta"), and
//!   `apply` (the client: `UnpackDelta` of each tick's delta onto the
//!   snapshot rebuilt the tick before, from the first to the last), and
//!   `apply_in_place` (the demo player: the same, in place where the delta
//!   keeps the layout).
//! * `demo_replay` (and `demo_replay_<name>` for two other demos): the
//!   whole file read from bytes and every snapshot rebuilt: teeoracle's
//!   streaming player (`demo::Events`), and libtw2's demo `Reader` with
//!   `RawSnap::read` / `Delta::read` + `RawSnap::read_with_delta`, the same
//!   work done the libtw2 way.
//!
//! Everything is checked before timing: the recreated deltas apply back to
//! the demo's own snapshots, and libtw2 rebuilds as many snapshots with the
//! same CRCs.
//!
//! `cargo bench --bench snapshot` takes under a minute; `cargo test
//! --benches` runs each benchmark once on a few ticks.

use criterion::{Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use teeoracle::demo::{Demo, EventKind, Events};
use teeoracle::snapshot::{DeltaCodec, ItemSizes, Snapshot};

const DEMO: &str = "corpus/demo/ddnet-bench/Multeasymap_bench.demo";

fn load() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO)).unwrap()
}

/// Every snapshot of the demo, in order.
fn snapshots(bytes: &[u8]) -> Vec<Snapshot> {
    let (demo, offsets) = Demo::decode(bytes).unwrap();
    let mut out = Vec::new();
    let replay = demo.replay_snapshots(&offsets, |_, _, s| out.push(s.clone()));
    assert!(replay.faults.is_empty(), "{:?}", replay.faults);
    out
}

#[path = "../examples/peer_libtw2_demo.rs"]
mod peer;
use peer::libtw2_replay;

/// teeoracle's streaming player over the file's bytes (`demo::Events`):
/// each payload decoded into reused buffers, as a replay does.
fn teeoracle_replay(bytes: &[u8]) -> (usize, i64) {
    let mut events = Events::new(bytes).unwrap();
    let (mut n, mut crcs) = (0, 0i64);
    while let Some(event) = events.next().unwrap() {
        if let EventKind::Snapshot(s) = event.kind {
            n += 1;
            crcs += i64::from(s.crc());
        }
    }
    (n, crcs)
}

/// `CSnapshotBuilder`'s work for one tick: every item of `source` pushed
/// into a cleared snapshot, then its int array written.
fn build(source: &Snapshot, built: &mut Snapshot, ints: &mut Vec<i32>) {
    built.clear();
    for item in source.items() {
        built.push(item.key, item.data);
    }
    ints.clear();
    built.write_ints(ints);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Without `--bench` (cargo test) criterion runs each benchmark once,
    // unoptimised: keep the data small there.
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
    let bytes = load();
    let sizes = ItemSizes::ddnet_06();
    let mut snaps = snapshots(&bytes);
    if !bench_mode {
        snaps.truncate(20);
    }
    let items: usize = snaps.iter().map(Snapshot::len).sum();
    eprintln!(
        "{} snapshots, {:.0} items on average",
        snaps.len(),
        items as f64 / snaps.len() as f64
    );

    // The recreated deltas, checked to apply back to the demo's snapshots.
    let mut codec = DeltaCodec::new(sizes.clone());
    let mut deltas: Vec<Vec<i32>> = Vec::new();
    let mut out = Snapshot::new();
    for pair in snaps.windows(2) {
        let mut d = Vec::new();
        codec.create(&pair[0], &pair[1], &mut d);
        codec.unpack(&pair[0], &d, &mut out).unwrap();
        assert_eq!(out.crc(), pair[1].crc());
        deltas.push(d);
    }
    let (n, crcs) = teeoracle_replay(&bytes);
    assert_eq!(libtw2_replay(&bytes, &sizes), (n, crcs));

    let mut c = Criterion::default().configure_from_args();
    if bench_mode {
        c = c
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
    }
    let ticks = (snaps.len() - 1) as u64;
    let mut g = c.benchmark_group("snapshot");
    g.throughput(Throughput::Elements(ticks))
        .sampling_mode(SamplingMode::Flat);
    let (mut built, mut ints, mut delta) = (Snapshot::new(), Vec::new(), Vec::new());
    g.bench_function("build", |b| {
        b.iter(|| {
            for s in &snaps[1..] {
                build(s, &mut built, &mut ints);
                black_box(&ints);
            }
        })
    });
    // A server's tick: build this tick's snapshot, then delta it against
    // the previous one it built (still warm, as in the server).
    let mut previous = snaps[0].clone();
    g.bench_function("build_create", |b| {
        b.iter(|| {
            for s in &snaps[1..] {
                build(s, &mut built, &mut ints);
                codec.create(&previous, &built, &mut delta);
                std::mem::swap(&mut previous, &mut built);
                black_box((&ints, &delta));
            }
        })
    });
    // A client's tick: apply the delta to the snapshot it rebuilt last.
    let mut base = Snapshot::new();
    g.bench_function("apply", |b| {
        b.iter(|| {
            base.clone_from(&snaps[0]);
            for d in &deltas {
                codec.unpack(&base, d, &mut out).unwrap();
                std::mem::swap(&mut base, &mut out);
            }
            black_box(&base);
        })
    });
    // The demo player's tick: the same deltas applied in place where they
    // keep the layout (most ticks), copied by `unpack` where not.
    g.bench_function("apply_in_place", |b| {
        b.iter(|| {
            base.clone_from(&snaps[0]);
            for d in &deltas {
                if !codec.unpack_in_place(&mut base, d) {
                    codec.unpack(&base, d, &mut out).unwrap();
                    std::mem::swap(&mut base, &mut out);
                }
            }
            black_box(&base);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("demo_replay");
    g.throughput(Throughput::Bytes(bytes.len() as u64))
        .sampling_mode(SamplingMode::Flat);
    if bench_mode {
        g.bench_function("teeoracle", |b| b.iter(|| teeoracle_replay(&bytes)));
        g.bench_function("libtw2", |b| b.iter(|| libtw2_replay(&bytes, &sizes)));
    }
    g.finish();

    // Two other shapes of demo: DDNet's other bench demo (1.6 MB of map,
    // then 244 KB of payloads that barely compress: Huffman-bound) and our
    // 8-bot server demo (30,000 messages).
    for other in [
        "corpus/demo/ddnet-bench/RaiNyMore2_bench.demo",
        "corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo",
    ] {
        let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(other)).unwrap();
        assert_eq!(libtw2_replay(&bytes, &sizes), teeoracle_replay(&bytes));
        let name = Path::new(other).file_stem().unwrap().to_string_lossy();
        let mut g = c.benchmark_group(format!("demo_replay_{name}"));
        g.sampling_mode(SamplingMode::Flat);
        if bench_mode {
            g.bench_function("teeoracle", |b| b.iter(|| teeoracle_replay(&bytes)));
            g.bench_function("libtw2", |b| b.iter(|| libtw2_replay(&bytes, &sizes)));
        }
        g.finish();
    }
    c.final_summary();
}
