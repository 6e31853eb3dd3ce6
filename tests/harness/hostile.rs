//! Bounded resources on hostile input: every file of `corpus/hostile/` goes
//! through every library call behind a command that reads it (`check`,
//! `archive info`, `verify`, `seek`, `log`, `unpack`, `pack`), and none may
//! hold more than [`PEAK_BOUND`] bytes at once or take longer than
//! [`TIME_BOUND`] (a bound on runaway work, far above what each needs; the
//! speed targets live in the benches).
//!
//! Memory is measured by a global allocator that counts live bytes and
//! keeps their peak (the allocator of the whole binary: the other tests
//! pay two atomic additions an allocation). Each test runs in a process of
//! its own ([`trials`]: the binary called back), one call after another,
//! so the peak of each call is its own.

use crate::common::Test;
use libtest_mimic::Trial;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use teeoracle::archive::{self, Archive, ArchiveError, PackOptions};
use teeoracle::check::{self, Options, Source, Status};

/// The most bytes any call may hold at once.
const PEAK_BOUND: usize = 32 << 20;
/// The longest any call may take (in an unoptimised test build).
const TIME_BOUND: Duration = Duration::from_secs(60);

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/hostile")
        .join(name)
}

/// Names the one test a process runs (this binary, called back by
/// [`trials`]).
const ONE_TEST: &str = "TEEORACLE_HOSTILE_TEST";

const TESTS: &[Test] = tests![
    // The longest first, so that two at a time end together.
    a_member_of_a_gibibyte_of_zeros,
    checkpoints_listing_tens_of_megabytes_of_players,
    compressed_files_that_decompress_to_a_gibibyte,
    an_archive_asking_for_a_checkpoint_every_tick,
    a_table_of_contents_listing_every_record,
    packing_twelve_thousand_console_commands,
    comparing_by_player_twelve_thousand_commands_and_too_many_joins,
    maps_that_claim_huge_sizes,
];

/// The test this process was called back for ([`ONE_TEST`]), if any:
/// runs it (a failure panics) and returns true.
pub fn run_one_if_called_back() -> bool {
    let Some(name) = std::env::var_os(ONE_TEST) else {
        return false;
    };
    let name = name.to_string_lossy();
    let Some(test) = TESTS.iter().find(|t| t.name == name) else {
        eprintln!("no hostile test {name} here");
        std::process::exit(2);
    };
    if let Err(e) = (test.run)() {
        panic!("{}", e.message().unwrap_or("failed"));
    }
    true
}

/// Each test runs in a process of its own, this binary called back with
/// [`ONE_TEST`]: the live bytes and their peak are then the test's own
/// (threads a call starts included), and the tests run side by side.
pub fn trials() -> Vec<Trial> {
    TESTS
        .iter()
        .map(|t| {
            let name = t.name;
            Trial::test(format!("hostile::{name}"), move || {
                let exe = std::env::current_exe().map_err(|e| format!("this binary: {e}"))?;
                let out = std::process::Command::new(exe)
                    .env(ONE_TEST, name)
                    .output()
                    .map_err(|e| format!("{name} did not start: {e}"))?;
                let said = String::from_utf8_lossy(&out.stderr);
                match out.status.success() {
                    true => Ok(()),
                    false => Err(format!("{name} failed ({}):\n{said}", out.status).into()),
                }
            })
        })
        .collect()
}

/// Runs `f`, checks its peak memory and time, and returns what it gave.
fn bounded<T>(what: &str, f: impl FnOnce() -> T) -> T {
    bounded_by(what, PEAK_BOUND, f)
}

/// [`bounded`] with another memory bound.
fn bounded_by<T>(what: &str, bound: usize, f: impl FnOnce() -> T) -> T {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let before = LIVE.load(Ordering::Relaxed);
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    eprintln!("{what}: peak {} KiB, {took:?}", peak >> 10);
    assert!(
        peak < bound,
        "{what}: held {peak} bytes at once (bound {bound})"
    );
    assert!(took < TIME_BOUND, "{what}: took {took:?}");
    out
}

/// Every archive command's library call on `path`; returns the verify
/// report's failure and the open error, if any.
fn archive_commands(path: &Path) -> Result<bool, ArchiveError> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    bounded(&format!("archive info {name}"), || {
        Archive::open(path)?.summary().map(drop)
    })?;
    let failed = bounded(&format!("archive verify {name}"), || {
        Ok::<_, ArchiveError>(Archive::open_full(path)?.verify().failed())
    })?;
    let mut a = Archive::open(path)?;
    for n in a.map_numbers() {
        bounded(&format!("archive log {name} map {n}"), || {
            a.log(n).map(drop)
        })?;
        for tick in [0, 900, 2999] {
            bounded(
                &format!("archive seek {name} map {n} tick {tick}"),
                || match a.seek(n, tick) {
                    Ok(_) | Err(ArchiveError::TickAfterEnd { .. }) => Ok(()),
                    Err(e) => Err(e),
                },
            )?;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    bounded(&format!("archive unpack {name}"), || {
        Archive::open_full(path)?
            .unpack(&dir.path().join("out"))
            .map(drop)
    })?;
    Ok(failed)
}

fn check_file(path: &Path) -> Status {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    bounded(&format!("check {name}"), || {
        check::check(Source::file(path), &Options::default()).status
    })
}

fn an_archive_asking_for_a_checkpoint_every_tick() {
    let path = hostile("checkpoint_every_1.tar.bz2");
    assert!(
        !archive_commands(&path).unwrap(),
        "{} passed archive verify and check",
        path.display()
    );
    assert_eq!(check_file(&path), Status::Warn);
    // The spacing is raised to a second: 3,000 ticks give 59 checkpoints
    // (the last multiple is not followed by a record), not 3,000.
    let report = Archive::open_full(&path).unwrap().verify();
    let saves = report
        .verdicts
        .iter()
        .filter(|v| v.member.contains("/save"))
        .count();
    assert_eq!(saves, 59, "{:#?}", report.verdicts);
}

fn a_table_of_contents_listing_every_record() {
    let path = hostile("malformed/toc_every_record.tar.bz2");
    assert!(
        archive_commands(&path).unwrap(),
        "{} did not pass archive verify and check",
        path.display()
    );
    // Under malformed/: `check` passes it by failing it.
    assert_eq!(check_file(&path), Status::Xfail);
    let report = Archive::open_full(&path).unwrap().verify();
    let toc = report
        .verdicts
        .iter()
        .find(|v| v.member == "1/toc.txt")
        .unwrap();
    assert!(
        toc.detail.contains("too close to byte"),
        "{}",
        &toc.detail[..200]
    );
}

fn checkpoints_listing_tens_of_megabytes_of_players() {
    for name in [
        "malformed/saves_60mb.tar.bz2",
        "malformed/saves_6x10mb.tar.bz2",
    ] {
        let path = hostile(name);
        assert!(archive_commands(&path).unwrap(), "{name}");
        assert_eq!(check_file(&path), Status::Xfail, "{name}");
        let report = Archive::open_full(&path).unwrap().verify();
        let save = report
            .verdicts
            .iter()
            .find(|v| v.member == "1/save1.ron" && v.status == archive::MemberOutcome::Failed)
            .unwrap();
        assert!(
            save.detail.contains("more than a checkpoint at byte"),
            "{}",
            save.detail
        );
    }
}

fn a_member_of_a_gibibyte_of_zeros() {
    let path = hostile("malformed/zeros_1gib.tar.bz2");
    let e = archive_commands(&path).unwrap_err();
    let cap = archive::MIN_MAX_DECOMPRESSED;
    assert!(
        matches!(&e, ArchiveError::OverCap { member: Some(m), cap: c, .. } if m == "1/zeros.bin" && *c == cap),
        "{e}"
    );
    assert!(
        e.to_string().contains("--max-decompressed raises it"),
        "{e}"
    );
    assert_eq!(check_file(&path), Status::Xfail);
    // Raised, the cap lets the archive through (the member is ignored).
    let options = archive::OpenOptions {
        full: true,
        max_decompressed: Some(2 << 30),
    };
    let report = bounded("archive verify zeros_1gib (cap 2 GiB)", || {
        Archive::open_with(&path, &options).unwrap().verify()
    });
    assert!(!report.failed(), "{:#?}", report.verdicts);
}

/// `teehistorian compare` (`diff::players`): a player's twelve thousand
/// console commands are its events, compared; a file of more joins than
/// the comparison holds is an error, not an allocation.
fn comparing_by_player_twelve_thousand_commands_and_too_many_joins() {
    use teeoracle::diff::players::{self, CompareError, Fault, Options, Verdict};
    use teeoracle::teehistorian::{Header, HeaderInfo, Recorder};
    let bytes = std::fs::read(hostile("console_12000.teehistorian")).unwrap();
    let c = bounded("teehistorian compare console_12000", || {
        players::compare(&bytes, &bytes, &Options::default()).unwrap()
    });
    assert_eq!(c.verdict, Verdict::Identical);
    // One more join than the bound, each a client that comes and goes.
    let header = Header::from_info(HeaderInfo {
        version: 2,
        ..HeaderInfo::default()
    });
    let mut rec = Recorder::new(&header);
    let joins = players::roster::MAX_SESSIONS + 1;
    for i in 0..joins {
        rec.tick(i as i32 + 1);
        rec.record_player_join(0, teeoracle::packet::Version::V06);
        rec.record_player_drop(0, "");
    }
    rec.finish();
    let many = rec.into_bytes();
    let e = bounded("teehistorian compare of too many joins", || {
        players::compare(&many, &many, &Options::default()).unwrap_err()
    });
    assert!(
        matches!(
            &e,
            CompareError::File {
                fault: Fault::TooMany { what: "joins", .. },
                ..
            }
        ),
        "{e}"
    );
}

fn packing_twelve_thousand_console_commands() {
    let input = hostile("console_12000.teehistorian");
    assert_eq!(check_file(&input), Status::Pass);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("console.tar");
    let options = PackOptions {
        compression: archive::Compression::None,
        ..PackOptions::default()
    };
    let packed = bounded("archive pack console_12000", || {
        archive::pack(&out, std::slice::from_ref(&input), &options).unwrap()
    });
    // A checkpoint every 30 s, each without the history it shares.
    assert_eq!(packed.maps[0].checkpoints, 399);
    let size = std::fs::metadata(&out).unwrap().len();
    assert!(size < 8 << 20, "{size} bytes");
    assert!(
        !archive_commands(&out).unwrap(),
        "{} passed archive verify and check",
        out.display()
    );
    // Seeking late in the recording starts at the last checkpoint and
    // still gives the whole history.
    let seek = Archive::open(&out).unwrap().seek(1, 599_000).unwrap();
    assert_eq!(seek.from.unwrap().member, "1/save399.ron");
    assert_eq!(seek.world.console.len(), 11_980);
    assert_eq!(
        seek.world,
        Archive::open(&out)
            .unwrap()
            .replay_from_start(1, 599_000)
            .unwrap()
    );
}

/// A compressed recording and a compressed demo that go on with a GiB of
/// zeros: reading stops at the decompression cap, with a message naming
/// it. The recording is streamed; the demo is read into memory (up to the
/// cap, its buffer growing a quarter at a time), and a raised cap lets
/// more of it through.
fn compressed_files_that_decompress_to_a_gibibyte() {
    let cap = teeoracle::check::MIN_MAX_DECOMPRESSED as usize;
    for (name, bound) in [
        ("malformed/zeros_1gib.teehistorian.bz2", PEAK_BOUND),
        ("malformed/zeros_1gib.demo.bz2", cap + cap / 4 + (8 << 20)),
    ] {
        let path = hostile(name);
        let verdict = bounded_by(&format!("check {name}"), bound, || {
            check::check(Source::file(&path), &Options::default())
        });
        assert_eq!(verdict.status, Status::Xfail, "{name}");
        let message = &verdict.findings[0].message;
        assert!(
            message.contains(&format!("decompresses past {cap} bytes")),
            "{name}: {message}"
        );
        if name.ends_with(".teehistorian.bz2") {
            continue;
        }
        // Raised, the cap lets more through.
        let options = Options {
            max_decompressed: Some(2 * cap as u64),
            ..Options::default()
        };
        let raised = check::check(Source::file(&path), &options);
        assert!(
            raised.findings[0]
                .message
                .contains(&format!("decompresses past {} bytes", 2 * cap)),
            "{name}: {:?}",
            raised.findings
        );
    }
}

/// Asserts that `corpus/hostile/NAME` holds `bytes` (a file built here,
/// kept in the corpus for other implementations' suites);
/// `TEEORACLE_WRITE_HOSTILE=1` writes it instead.
fn stored(name: &str, bytes: &[u8]) {
    let path = hostile(name);
    if std::env::var_os("TEEORACLE_WRITE_HOSTILE").is_some() {
        std::fs::write(&path, bytes).expect("the hostile file is written");
    }
    let kept = std::fs::read(&path).unwrap_or_default();
    assert!(
        kept == bytes,
        "{} is not what this test builds ({} bytes kept, {} built): \
         TEEORACLE_WRITE_HOSTILE=1 cargo test --test hostile writes it",
        path.display(),
        kept.len(),
        bytes.len()
    );
}

/// Maps that claim huge sizes (kept in `corpus/hostile/`): counts of 2^31 - 1 items and blocks (the
/// reader stops at the end of the file before sizing anything by them),
/// and a map whose unused blocks inflate to 48 MiB of zeros, one of them
/// declaring it and one declaring 2 GiB. `check` and the conformance
/// unit's document read each block streamed (counted and hashed, never
/// kept), within the bound.
fn maps_that_claim_huge_sizes() {
    use sha2::Digest;
    use teeoracle::compression::zlib::deflate;
    use teeoracle::conform::{Unit, expect};
    use teeoracle::generate::{Rng, map::valid};
    let mut counts = b"DATA".to_vec();
    for v in [
        4,
        1 << 20,
        1 << 20,
        0x7fff_ffff,
        0x7fff_ffff,
        0x7fff_ffff,
        1 << 30,
        1 << 30,
    ] {
        counts.extend(i32::to_le_bytes(v));
    }
    counts.extend([0u8; 64]);
    stored("malformed/claims_2g_items.map", &counts);
    let verdict = bounded("check a map claiming 2^31 items", || {
        check::check(
            Source::bytes("counts.map", counts.clone()),
            &Options::default(),
        )
    });
    assert_eq!(verdict.status, Status::Fail);
    let e = verdict.error.expect("a decode error");
    assert_eq!(e.offset, 36, "{e}");
    assert!(expect(Unit::Map, &counts).is_err());

    const BIG: usize = 48 << 20;
    let zeros = vec![0u8; BIG];
    let stream = deflate(&zeros, 6);
    let digest = hex::encode(sha2::Sha256::digest(&zeros));
    drop(zeros);
    let spec = valid(&mut Rng::new(1), 4, 4);
    let n = spec.blocks.len();
    let map = spec
        .write_with(|blocks, sizes| {
            blocks.push(stream.clone());
            sizes.push(BIG as i32);
            blocks.push(stream.clone());
            sizes.push(0x7fff_fff0);
        })
        .bytes;
    drop(stream);
    stored("unused_blocks_48mib_2gib.map", &map);
    let verdict = bounded("check a map with 48 MiB and 2 GiB blocks", || {
        check::check(Source::bytes("big.map", map.clone()), &Options::default())
    });
    // Loaded: the big blocks are unused; the 2 GiB one is over the cap.
    assert_eq!(verdict.status, Status::Warn, "{:?}", verdict.findings);
    assert!(
        verdict.findings[0].message.contains("over the cap"),
        "{:?}",
        verdict.findings
    );
    let doc = bounded("the map document of it", || expect(Unit::Map, &map)).unwrap();
    let blocks = &doc["data"];
    assert_eq!(blocks[n]["sha256"], digest.as_str());
    assert_eq!(blocks[n]["inflated_size"], BIG as u64);
    assert_eq!(blocks[n + 1]["fault"]["fault"], "over_cap");
}
