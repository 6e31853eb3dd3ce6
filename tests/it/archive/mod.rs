//! Recording archives: the stored ones verify, seeking against a full
//! replay, pack/unpack round trips, other compressions, atomic and
//! deterministic writing; damaged archives (`damage`) and the command
//! line (`cli`). The stored archives' bytes and the archives' text
//! members are goldens in `tests/harness/golden.rs`.

mod cli;
mod damage;

use crate::common;

use common::root;
use common::testing::qc;
use quickcheck::TestResult;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use teeoracle::archive::frames::{CountingBufRead, bzip2_frame};
use teeoracle::archive::members;
use teeoracle::archive::recording::world_at;
use teeoracle::archive::text::parse_toc;
use teeoracle::archive::{Archive, ArchiveError, Compression, MemberOutcome, PackOptions, pack};
use teeoracle::codec::first_difference;

const DDNET: &str = "corpus/teehistorian/ddnet-20.1";

fn recording(name: &str) -> PathBuf {
    root().join(DDNET).join(format!("{name}.teehistorian"))
}

fn options(every: i32, compression: Compression) -> PackOptions {
    PackOptions {
        every,
        compression,
        ..PackOptions::default()
    }
}

/// The archives stored in `corpus/archive/` (packed from the corpus
/// recordings: `tests/harness/golden.rs` checks that packing gives their bytes).
fn stored_archives() -> Vec<PathBuf> {
    let stored: Vec<PathBuf> = common::corpus_files("archive")
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".tar"))
        .collect();
    assert_eq!(stored.len(), 2, "E and F");
    stored
}

#[test]
fn stored_archives_verify_cleanly() {
    for path in stored_archives() {
        let file = path.file_name().unwrap().to_str().unwrap();
        let report = Archive::open_full(&path).unwrap().verify();
        let remarks: Vec<_> = report.remarks().collect();
        // F is a crashed server's recording: a warning, nothing else.
        let expected_warnings = usize::from(file.starts_with('F'));
        assert!(
            remarks.len() == expected_warnings
                && remarks.iter().all(|v| v.status == MemberOutcome::Warn),
            "{file}: {remarks:#?}"
        );
        let agree: usize = report.maps.iter().map(|m| m.checkpoints_agree).sum();
        assert_eq!(agree, if file.starts_with('E') { 5 } else { 2 }, "{file}");
    }
}

/// The six real recordings in one archive (A, B, C, E1, E2, F: E2 follows
/// E1 by prev_game_uuid), a checkpoint every second, both compressions.
struct Session {
    _dir: tempfile::TempDir,
    bz2: PathBuf,
    tar: PathBuf,
    /// Recording files in folder order.
    files: Vec<PathBuf>,
    last_ticks: Vec<i32>,
}

fn session() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "A_join_move_leave",
            "B_eight_bots_dm1",
            "C_rcon_auth",
            "E_map_change.2_ctf1",
            "E_map_change.1_dm1",
            "F_crash_truncated",
        ];
        let inputs: Vec<PathBuf> = names.iter().map(|n| recording(n)).collect();
        let bz2 = dir.path().join("session.tar.bz2");
        let tar = dir.path().join("session.tar");
        let packed = pack(&bz2, &inputs, &options(50, Compression::Bzip2)).unwrap();
        pack(&tar, &inputs, &options(50, Compression::None)).unwrap();
        Session {
            files: packed.maps.iter().map(|m| m.input.clone()).collect(),
            last_ticks: packed.maps.iter().map(|m| m.last_tick).collect(),
            bz2,
            tar,
            _dir: dir,
        }
    })
}

#[test]
fn map_changes_continue_the_session() {
    let s = session();
    let names: Vec<String> = s
        .files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names[3], "E_map_change.1_dm1.teehistorian");
    assert_eq!(names[4], "E_map_change.2_ctf1.teehistorian");
    let summary = Archive::open(&s.bz2).unwrap().summary().unwrap();
    assert_eq!(summary.maps[4].prev_game_uuid, summary.maps[3].game_uuid);
    assert!(summary.indexed, "{:?}", summary.notes);
}

/// Seeking to any tick equals replaying the whole recording to it.
#[test]
fn prop_seek_equals_full_replay() {
    fn prop(map: usize, tick: u16, plain: bool) -> TestResult {
        static RECORDINGS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
        let s = session();
        let recordings =
            RECORDINGS.get_or_init(|| s.files.iter().map(|f| fs::read(f).unwrap()).collect());
        let i = map % s.files.len();
        let last = s.last_ticks[i];
        // Mostly inside the recording, sometimes just after its end.
        let tick = i32::from(tick) % (last + 4);
        let path = if plain { &s.tar } else { &s.bz2 };
        let mut archive = Archive::open(path).unwrap();
        let seek = archive.seek(i as u32 + 1, tick);
        let full = world_at(&recordings[i][..], tick).unwrap();
        match (seek, full) {
            (Ok(seek), Some(world)) => {
                if seek.world != world || !seek.notes.is_empty() {
                    return TestResult::error(format!(
                        "map {} tick {tick}: {:?}",
                        i + 1,
                        seek.notes
                    ));
                }
                // It started from the nearest checkpoint at or before the tick.
                let toc = archive.member_bytes(&format!("{}/toc.txt", i + 1)).unwrap();
                let nearest = parse_toc(&String::from_utf8(toc).unwrap())
                    .unwrap()
                    .into_iter()
                    .rev()
                    .find(|e| e.tick <= tick)
                    .map(|e| teeoracle::archive::Resumed {
                        member: format!("{}/save{}.ron", i + 1, e.save),
                        tick: e.tick,
                        offset: e.offset,
                    });
                TestResult::from_bool(seek.from == nearest)
            }
            (Err(ArchiveError::TickAfterEnd { .. }), None) => TestResult::passed(),
            (seek, full) => TestResult::error(format!(
                "map {} tick {tick}: seek {:?} vs full replay {}",
                i + 1,
                seek.map(|s| s.world.tick),
                full.is_some()
            )),
        }
    }
    qc().tests(300)
        .quickcheck(prop as fn(usize, u16, bool) -> TestResult);
}

/// Every recording of the corpus packs and unpacks to its exact bytes.
#[test]
fn pack_then_unpack_returns_the_recordings() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = ["ddnet-20.1", "ddnet-unit-tests", "edge"]
        .iter()
        .flat_map(|sub| common::corpus_files(&format!("teehistorian/{sub}")))
        .collect();
    assert!(files.len() > 45, "{}", files.len());
    for (k, file) in files.iter().enumerate() {
        let compression = if k % 2 == 0 {
            Compression::Bzip2
        } else {
            Compression::None
        };
        let out = dir.path().join(format!("{k}.tar"));
        pack(&out, std::slice::from_ref(file), &options(10, compression))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let unpacked = dir.path().join(format!("{k}"));
        let report = Archive::open_full(&out).unwrap().unpack(&unpacked).unwrap();
        assert!(
            !report.failed(),
            "{}: {:#?}",
            file.display(),
            report.verdicts
        );
        assert_eq!(
            fs::read(unpacked.join("1/demodata.bin")).unwrap(),
            fs::read(file).unwrap(),
            "{}",
            file.display()
        );
    }
}

/// All of an archive's members, by reading it whole.
fn members_of(path: &Path) -> Vec<(String, Vec<u8>)> {
    let archive = Archive::open_full(path).unwrap();
    let names: Vec<String> = archive.members().map(|(n, _)| n.to_string()).collect();
    names
        .into_iter()
        .map(|n| {
            let mut data = Vec::new();
            archive.copy_member(&n, &mut data).unwrap();
            (n, data)
        })
        .collect()
}

fn write_tar(path: &Path, members_list: &[(String, Vec<u8>)]) {
    let mut out = Vec::new();
    for (name, data) in members_list {
        members::write_member(&mut out, name, data).unwrap();
    }
    members::write_end(&mut out).unwrap();
    fs::write(path, out).unwrap();
}

/// Every file under `dir`, relative path and bytes, in name order.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::files_under(dir)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (rel, fs::read(&p).unwrap())
        })
        .collect()
}

/// The first file in which two [`tree`]s differ, and where.
fn tree_difference(a: &[(String, Vec<u8>)], b: &[(String, Vec<u8>)]) -> String {
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if names(a) != names(b) {
        return format!("files {:?} and {:?}", names(a), names(b));
    }
    a.iter()
        .zip(b)
        .find(|(x, y)| x.1 != y.1)
        .map(|((name, x), (_, y))| {
            format!(
                "{name} at byte {:?} (lengths {} and {})",
                first_difference(x, y),
                x.len(),
                y.len()
            )
        })
        .unwrap_or_default()
}

fn plain_tar_of(path: &Path) -> Vec<u8> {
    let mut tar = Vec::new();
    bzip2::read::MultiBzDecoder::new(fs::File::open(path).unwrap())
        .read_to_end(&mut tar)
        .unwrap();
    tar
}

/// gzip, xz, zstd and single-stream bzip2 copies read like the original
/// (their `index.txt` no longer describes them: noted, not used).
#[test]
fn other_compressions_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let tar = plain_tar_of(&golden);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&tar).unwrap();
        e.finish().unwrap()
    };
    let xz = {
        let mut out = Vec::new();
        lzma_rs::xz_compress(&mut &tar[..], &mut out).unwrap();
        out
    };
    let zst =
        ruzstd::encoding::compress_to_vec(&tar[..], ruzstd::encoding::CompressionLevel::Fastest);
    let bz2 = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        e.write_all(&tar).unwrap();
        e.finish().unwrap()
    };
    let e2 = fs::read(recording("E_map_change.2_ctf1")).unwrap();
    for (name, bytes, compression) in [
        ("copy.tar.gz", gz, Compression::Gzip),
        ("copy.tar.xz", xz, Compression::Xz),
        ("copy.tar.zst", zst, Compression::Zstd),
        ("copy.tar.bz2", bz2, Compression::Bzip2),
        ("copy.tar", tar.clone(), Compression::None),
    ] {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        assert!(
            teeoracle::archive::is_archive(&path),
            "{name} is not taken for an archive"
        );
        let report = Archive::open_full(&path).unwrap().verify();
        assert_eq!(report.compression, compression);
        assert!(!report.failed(), "{name}: {:#?}", report.verdicts);
        let index = report
            .verdicts
            .iter()
            .find(|v| v.member == "index.txt")
            .unwrap();
        let expected = match compression {
            Compression::Bzip2 => "stale (no compressed stream starts after it",
            _ => "written for bzip2 data",
        };
        assert!(index.detail.contains(expected), "{name}: {index:?}");
        let mut archive = Archive::open(&path).unwrap();
        assert!(!archive.indexed(), "{name}");
        let seek = archive.seek(2, 777).unwrap();
        assert_eq!(Some(seek.world), world_at(&e2[..], 777).unwrap(), "{name}");
        assert_eq!(archive.log(2).unwrap().1, None);
    }
    // Not an archive at all.
    let path = dir.path().join("plain.txt");
    fs::write(&path, "hello").unwrap();
    assert!(
        !teeoracle::archive::is_archive(&path),
        "a text file is taken for an archive"
    );
    let err = Archive::open(&path).err().unwrap();
    assert!(
        err.to_string().contains("at byte 0: expected a tar header"),
        "{err}"
    );
}

/// An archive whose index.txt does not describe the frames after it (the
/// head of one archive on the body of another) is noticed on the first
/// read and read from the start instead.
#[test]
fn a_stale_index_falls_back_to_reading_everything() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        recording("E_map_change.1_dm1"),
        recording("E_map_change.2_ctf1"),
    ];
    let (a, b) = (dir.path().join("a.tar.bz2"), dir.path().join("b.tar.bz2"));
    pack(&a, &inputs, &options(250, Compression::Bzip2)).unwrap();
    pack(&b, &inputs, &options(100, Compression::Bzip2)).unwrap();
    let head_len = |path: &Path| {
        let mut src = CountingBufRead::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
        std::io::copy(&mut bzip2_frame(&mut src), &mut std::io::sink()).unwrap();
        src.consumed as usize
    };
    let (a_bytes, b_bytes) = (fs::read(&a).unwrap(), fs::read(&b).unwrap());
    let spliced = [&a_bytes[..head_len(&a)], &b_bytes[head_len(&b)..]].concat();
    let path = dir.path().join("spliced.tar.bz2");
    fs::write(&path, spliced).unwrap();
    let mut archive = Archive::open(&path).unwrap();
    assert!(archive.indexed(), "the spliced archive has no index");
    let seek = archive.seek(2, 640).unwrap();
    assert!(!archive.indexed(), "fell back");
    let e2 = fs::read(&inputs[1]).unwrap();
    assert_eq!(Some(seek.world), world_at(&e2[..], 640).unwrap());
    let notes = archive.summary().unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("read from the start")),
        "{notes:?}"
    );
}

/// The same recordings always give the same bytes, every member has the
/// fixed mode, owner and time, and the bzip2 file is a valid multi-stream
/// file whose tar stream any reader lists.
#[test]
fn packing_is_deterministic() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let inputs = [recording("C_rcon_auth"), recording("A_join_move_leave")];
    let (a, b) = (d1.path().join("x.tar.bz2"), d2.path().join("y.tar.bz2"));
    pack(&a, &inputs, &PackOptions::default()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    pack(&b, &inputs, &PackOptions::default()).unwrap();
    let (first, second) = (fs::read(&a).unwrap(), fs::read(&b).unwrap());
    assert!(
        first == second,
        "the two archives differ at byte {:?} (lengths {} and {})",
        first_difference(&first, &second),
        first.len(),
        second.len()
    );
    let tar = plain_tar_of(&a);
    let mut archive = tar::Archive::new(&tar[..]);
    let mut names = Vec::new();
    for entry in archive.entries().unwrap() {
        let entry = entry.unwrap();
        let h = entry.header();
        assert_eq!(h.mode().unwrap(), members::MODE);
        assert_eq!(h.mtime().unwrap(), members::MTIME);
        assert_eq!(
            (h.uid().unwrap(), h.gid().unwrap()),
            (members::OWNER, members::OWNER)
        );
        assert_eq!(h.username().unwrap(), Some(""));
        names.push(entry.path().unwrap().to_string_lossy().into_owned());
    }
    assert_eq!(
        &names[..4],
        ["info.txt", "index.txt", "1/info.txt", "1/toc.txt"]
    );
}

/// A pack that fails leaves neither a half archive nor a temporary file,
/// and an existing file of that name untouched.
#[test]
fn a_failed_pack_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.tar.bz2");
    fs::write(&out, "previous").unwrap();
    let bad = root().join("corpus/teehistorian/malformed/unknown_message_id.teehistorian");
    let err = pack(
        &out,
        &[recording("A_join_move_leave"), bad],
        &PackOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("at byte 3194 (0xc7a), tick 1: reading teehistorian.message_id"),
        "{err}"
    );
    assert_eq!(fs::read(&out).unwrap(), b"previous");
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["out.tar.bz2"]);
    let same = pack(
        &out,
        &[
            recording("A_join_move_leave"),
            recording("A_join_move_leave"),
        ],
        &PackOptions::default(),
    );
    assert!(
        matches!(same, Err(ArchiveError::SameGame { .. })),
        "{same:?}"
    );
    let err = same.unwrap_err().to_string();
    assert!(err.contains("same game"), "{err}");
}
