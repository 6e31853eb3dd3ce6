//! The world simulator (issue 27): a generated session of 64 bots on
//! dm1 (DDNet 20.1's header from corpus B), simulated from its inputs
//! and checked against its positions. Throughput is in ticks; the issue
//! asks for a 64-player hour (180,000 ticks) in under 36 s on one core,
//! i.e. at least 5,000 ticks a second here.
//!
//! `TEEORACLE_BENCH_TICKS=180000 TEEORACLE_BENCH_WRITE=/tmp/hour.teehistorian
//! cargo bench --bench simulate` also writes a session of that length,
//! for timing `teeoracle teehistorian simulate` as a whole process.

use criterion::{Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::Duration;
use teeoracle::codec::Mode;
use teeoracle::simulation::{Maps, Options, simulate, synthetic_session};
use teeoracle::teehistorian::SliceReader;

fn main() {
    let b = std::fs::read("corpus/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian")
        .expect("corpus B");
    let (header, _) = SliceReader::new(&b, Mode::Strict).expect("its header");
    let mut maps = Maps::default();
    maps.add(&std::fs::read("corpus/demo/ddnet-20.1/A_join_move_leave.demo").expect("dm1"));
    let map = maps
        .get(header.info.map_sha256.as_deref().expect("a map"))
        .expect("dm1");
    let col = teeoracle::simulation::physics::collision::Collision::of_map_bytes(map, 64 << 20)
        .expect("dm1's game layer");
    let ticks: i32 = std::env::var("TEEORACLE_BENCH_TICKS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(3000);
    let session = synthetic_session(&header, col.clone(), 64, ticks, 1).expect("a session");
    if let Ok(path) = std::env::var("TEEORACLE_BENCH_WRITE") {
        std::fs::write(&path, &session).expect("written");
        eprintln!("wrote {path}: {} bytes, {ticks} ticks", session.len());
    }
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(10));
    let mut g = c.benchmark_group("simulate");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.throughput(Throughput::Elements(ticks as u64));
    g.bench_function("64_bots_dm1", |bench| {
        bench.iter(|| {
            let r =
                simulate(black_box(&session), col.clone(), &Options::default()).expect("simulates");
            assert_eq!(r.matched, r.player_ticks);
            r.player_ticks
        })
    });
    g.finish();
    c.final_summary();
}
