//! Reading every map we hold: Debian's `ddnet-data` and `teeworlds-data`
//! maps where installed, and the maps the corpus demos embed. Throughput
//! is in bytes of map files.
//!
//! Groups (`map`):
//! * `container`: [`Datafile::decode`] and encoding it again;
//! * `typed`: the container, then every item typed ([`Map::new`]);
//! * `check`: the `check` pipeline: all of that, every data block
//!   inflated, and DDNet's reader and loader rules over the items and
//!   the tiles (each tiles block inflated again, one at a time);
//! * `deflate`: every data block deflated again at DDNet's level, 6, and
//!   compared with its stored bytes (what `tests/harness/map.rs` counts).

use criterion::{Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use teeoracle::codec::encode_to_vec;
use teeoracle::compression::zlib::deflates_back;
use teeoracle::demo::Demo;
use teeoracle::input::Source;
use teeoracle::map::check::MapFormat;
use teeoracle::map::data::block;
use teeoracle::map::{Datafile, Map};
use teeoracle::report::{Format, Verdict};

fn maps() -> Vec<Vec<u8>> {
    let mut maps = Vec::new();
    let mut files = Vec::new();
    for dir in [
        "/usr/share/games/ddnet/data/maps",
        "/usr/share/games/ddnet/data/maps7",
        "/usr/share/games/teeworlds/data/maps",
        "corpus/demo",
    ] {
        if let Ok(found) = teeoracle::files::files_under(Path::new(dir)) {
            files.extend(found);
        }
    }
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        match path.extension().and_then(|e| e.to_str()) {
            Some("map") => maps.push(bytes),
            Some("demo") if !path.to_string_lossy().contains("malformed") => {
                if let Ok((demo, _)) = Demo::decode_partial(&bytes)
                    && teeoracle::map::is_map(demo.map)
                    && !maps.iter().any(|m| m == demo.map)
                {
                    maps.push(demo.map.to_vec());
                }
            }
            _ => {}
        }
    }
    maps
}

/// The `check` pipeline over one map.
fn read(bytes: &[u8]) -> Verdict {
    let mut verdict = Verdict::new("bench.map");
    MapFormat.check(
        Source::bytes("bench.map", bytes.to_vec()),
        &Default::default(),
        &mut verdict,
    );
    verdict
}

fn main() {
    let maps = maps();
    let total: usize = maps.iter().map(Vec::len).sum();
    eprintln!("{} maps, {total} bytes", maps.len());
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("map");
    g.throughput(Throughput::Bytes(total as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("container", |b| {
        b.iter(|| {
            for m in &maps {
                let d = Datafile::decode(m).expect("a map we hold");
                black_box(encode_to_vec(&d, ()));
            }
        })
    });
    g.bench_function("typed", |b| {
        b.iter(|| {
            for m in &maps {
                let d = Datafile::decode(m).expect("a map we hold");
                black_box(Map::new(&d));
            }
        })
    });
    g.bench_function("check", |b| {
        b.iter(|| {
            for m in &maps {
                black_box(read(m));
            }
        })
    });
    let blocks: Vec<(Vec<u8>, Vec<u8>)> = maps
        .iter()
        .flat_map(|m| {
            let d = Datafile::decode(m).expect("a map we hold");
            (0..d.data.len())
                .filter_map(|i| {
                    Some((block(&d, i, 1 << 30).ok()?.into_owned(), d.data[i].to_vec()))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    g.bench_function("deflate", |b| {
        b.iter(|| {
            let same = blocks
                .iter()
                .filter(|(bytes, stored)| deflates_back(bytes, stored, 6));
            black_box(same.count())
        })
    });
    g.finish();
}
