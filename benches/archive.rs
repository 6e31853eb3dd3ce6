//! Recording archives: packing, and seeking compared with replaying.
//!
//! The recording is `TEEORACLE_BENCH_FILE` if set (for the README figures,
//! the teehistorian bench's realistic stream: `TEEORACLE_BENCH_MB=100
//! TEEORACLE_BENCH_WRITE=/tmp/big.teehistorian cargo bench --bench
//! teehistorian`), else a simpler stream generated here through
//! [`Recorder`] (64 players moving every tick, inputs changing), of
//! `TEEORACLE_BENCH_MB` MB (default 100; about 0.25 under `cargo test`).
//! It is packed with the default checkpoint spacing (30 s of game time),
//! as `.tar` and as `.tar.bz2`, in a temporary folder.
//!
//! Groups:
//! * `pack`: [`pack`] to each form (bytes of recording per second);
//! * `seek`: [`Archive::open`] then [`Archive::seek`] to the last tick
//!   before a checkpoint (the worst case: a whole interval to replay),
//!   cycling through intervals all over the recording, in each form;
//! * `replay`: replaying one checkpoint interval from its checkpoint in
//!   memory (the target a seek is held to), and the whole recording (what
//!   a seek without checkpoints costs).
//!
//! Checked first: seeks at the start, middle and end equal full replays.

use criterion::{Criterion, SamplingMode};
use std::hint::black_box;
use std::io::Cursor;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use teeoracle::archive::recording::{read_header, replay_until, world_at};
use teeoracle::archive::text::{SaveFile, TocEntry, parse_toc};
use teeoracle::archive::{Archive, Compression, DEFAULT_EVERY, PackOptions, pack};
use teeoracle::codec::Mode;
use teeoracle::teehistorian::{Header, HeaderInfo, Recorder, Replay, StreamReader};

/// A deterministic stream of about `len` bytes: 64 players that join,
/// move every tick and change inputs often (SplitMix64, no clock).
fn generate(len: usize) -> Vec<u8> {
    let header = Header::from_info(HeaderInfo {
        version: 2,
        game_uuid: Some("0a5c4e1d-2f6b-4c8e-9d7a-3b1e5f0c2a94".into()),
        start_time: Some("2024-01-01T00:00:00+0000".into()),
        map_name: Some("bench".into()),
        ..HeaderInfo::default()
    });
    let mut rec = Recorder::new(&header);
    let mut state = 0x7ee0_0ac1_e5ee_d002u64;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut players = [(0i32, 0i32, [0i32; 10]); 64];
    rec.tick(1);
    for cid in 0..64 {
        rec.record_player_join(cid, teeoracle::packet::Version::V06);
    }
    let mut tick = 1;
    while rec.bytes().len() < len {
        tick += 1;
        rec.tick(tick);
        for (cid, (x, y, _)) in players.iter_mut().enumerate() {
            *x += (next() % 7) as i32 - 3;
            *y += (next() % 5) as i32 - 2;
            rec.record_player(cid as i32, *x, *y).unwrap();
        }
        for (cid, (_, _, input)) in players.iter_mut().enumerate() {
            if next() % 10 < 4 {
                input[1] += (next() % 25) as i32 - 12;
                input[2] += (next() % 25) as i32 - 12;
            }
            rec.record_player_input(cid as i32, cid as u32 + 1, input)
                .unwrap();
        }
    }
    rec.finish();
    rec.into_bytes()
}

/// The ticks to seek to: the last tick of an interval (just before its
/// checkpoint), spread over the recording.
fn worst_ticks(toc: &[TocEntry], n: usize) -> Vec<i32> {
    let step = (toc.len() / n).max(1);
    toc.iter()
        .step_by(step)
        .map(|e| e.tick - 1)
        .filter(|&t| t >= 0)
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
    let dir = tempfile::tempdir().unwrap();
    let input: PathBuf = match std::env::var_os("TEEORACLE_BENCH_FILE") {
        Some(path) => path.into(),
        None => {
            let mb: f64 = match std::env::var("TEEORACLE_BENCH_MB") {
                Ok(v) => v.parse().expect("TEEORACLE_BENCH_MB: a number of MB"),
                Err(_) if bench_mode => 100.0,
                Err(_) => 0.25,
            };
            let path = dir.path().join("bench.teehistorian");
            std::fs::write(&path, generate((mb * 1e6) as usize)).unwrap();
            path
        }
    };
    let recording = std::fs::read(&input).unwrap();
    // The default spacing; under `cargo test` the stream is a few hundred
    // ticks, so a checkpoint every second.
    let every = if bench_mode { DEFAULT_EVERY } else { 50 };
    let inputs = [input.clone()];
    let forms = [("tar", Compression::None), ("tar_bz2", Compression::Bzip2)];
    let archives: Vec<(&str, PathBuf)> = forms
        .iter()
        .map(|&(name, compression)| {
            let out = dir.path().join(format!("bench.{name}"));
            let started = Instant::now();
            let packed = pack(
                &out,
                &inputs,
                &PackOptions {
                    compression,
                    every,
                    ..PackOptions::default()
                },
            )
            .unwrap();
            eprintln!(
                "{name}: {} bytes from {} bytes, {} ticks, {} checkpoints, packed in {:.2?}",
                packed.bytes,
                recording.len(),
                packed.maps[0].last_tick,
                packed.maps[0].checkpoints,
                started.elapsed()
            );
            (name, out)
        })
        .collect();

    let toc_text = Archive::open(&archives[0].1)
        .unwrap()
        .member_bytes("1/toc.txt")
        .unwrap();
    let toc = parse_toc(&String::from_utf8(toc_text).unwrap()).unwrap();
    assert!(
        toc.len() >= 2,
        "the recording is shorter than two intervals"
    );
    let last_tick = Archive::open(&archives[0].1)
        .unwrap()
        .summary()
        .unwrap()
        .maps[0]
        .ticks;
    for (name, path) in &archives {
        for tick in [0, toc[toc.len() / 2].tick + every - 1, last_tick] {
            let seek = Archive::open(path).unwrap().seek(1, tick).unwrap();
            assert_eq!(
                Some(seek.world),
                world_at(&recording[..], tick).unwrap(),
                "{name} tick {tick}"
            );
        }
    }
    let ticks = worst_ticks(&toc, 16);

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();

    let mut g = c.benchmark_group("pack");
    g.sampling_mode(SamplingMode::Flat)
        .throughput(criterion::Throughput::Bytes(recording.len() as u64));
    for &(name, compression) in &forms {
        let out = dir.path().join(format!("again.{name}"));
        let options = PackOptions {
            compression,
            every,
            ..PackOptions::default()
        };
        g.bench_function(name, |b| b.iter(|| pack(&out, &inputs, &options).unwrap()));
    }
    g.finish();

    // Where a seek's time goes: opening, then parsing the checkpoint.
    let save_name = format!("1/save{}.ron", toc[toc.len() / 2].save);
    let save_text = Archive::open(&archives[0].1)
        .unwrap()
        .member_bytes(&save_name)
        .unwrap();
    let save_text = String::from_utf8(save_text).unwrap();
    eprintln!("{save_name}: {} bytes of RON", save_text.len());
    let mut g = c.benchmark_group("seek_parts");
    for (name, path) in &archives {
        g.bench_function(format!("open_{name}"), |b| {
            b.iter(|| black_box(Archive::open(path).unwrap().indexed()))
        });
    }
    g.bench_function("parse_checkpoint", |b| {
        b.iter(|| black_box(SaveFile::parse(&save_text).unwrap().offset))
    });
    g.finish();

    let mut g = c.benchmark_group("seek");
    for (name, path) in &archives {
        let mut k = 0;
        g.bench_function(format!("open_and_seek_{name}"), |b| {
            b.iter(|| {
                k = (k + 1) % ticks.len();
                let seek = Archive::open(path).unwrap().seek(1, ticks[k]).unwrap();
                black_box(seek.world.tick)
            })
        });
    }
    g.finish();

    // One interval in memory: the checkpoint in the middle, its bytes.
    let mid = toc.len() / 2;
    let (from, to) = (toc[mid - 1].offset as usize, toc[mid].offset as usize);
    let save_name = format!("1/save{}.ron", toc[mid - 1].save);
    let save = Archive::open(&archives[0].1)
        .unwrap()
        .member_bytes(&save_name)
        .unwrap();
    let save = SaveFile::parse(&String::from_utf8(save).unwrap()).unwrap();
    let (_, head) = read_header(&mut &recording[..]).unwrap();
    let interval = [&head[..], &recording[from..to]].concat();
    eprintln!(
        "one interval: {} bytes (ticks {}..={})",
        to - from,
        toc[mid - 1].tick + 1,
        toc[mid].tick
    );
    let mut g = c.benchmark_group("replay");
    g.bench_function("one_interval_from_its_checkpoint", |b| {
        b.iter(|| {
            let mut replay = Replay::resume(save.checkpoint.clone());
            let (_, mut reader) =
                StreamReader::new(Cursor::new(&interval[..]), Mode::Lenient).unwrap();
            let shift = (from - head.len()) as u64;
            black_box(
                replay_until(&mut reader, shift, &mut replay, i32::MAX)
                    .unwrap()
                    .records,
            )
        })
    });
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function("whole_recording", |b| {
        b.iter(|| black_box(world_at(&recording[..], last_tick).unwrap().map(|w| w.tick)))
    });
    g.finish();
    c.final_summary();
}
