//! Recording archives: the stored ones verify, seeking against a full
//! replay, pack/unpack round trips, rebuilding lost members, damage
//! reports, other compressions, atomic and deterministic writing, the
//! command line. The stored archives' bytes and the archives' text members
//! are goldens in `tests/golden.rs`.

mod common;

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
use teeoracle::archive::{Archive, ArchiveError, Compression, MemberStatus, PackOptions, pack};
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
/// recordings: `tests/golden.rs` checks that packing gives their bytes).
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
                && remarks.iter().all(|v| v.status == MemberStatus::Warn),
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

/// Removing any member but a recording still verifies, says it rebuilt
/// the member, unpacks to the same files and seeks to the same worlds.
#[test]
fn deleting_any_non_essential_member_still_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let all = members_of(&golden);
    let reference = tree(&{
        let d = dir.path().join("reference");
        Archive::open_full(&golden).unwrap().unpack(&d).unwrap();
        d
    });
    let e2 = fs::read(recording("E_map_change.2_ctf1")).unwrap();
    for (k, (gone, _)) in all.iter().enumerate() {
        if gone.ends_with("demodata.bin") {
            continue;
        }
        let path = dir.path().join(format!("without{k}.tar"));
        let kept: Vec<_> = all.iter().filter(|(n, _)| n != gone).cloned().collect();
        write_tar(&path, &kept);
        let archive = Archive::open_full(&path).unwrap();
        let report = archive.verify();
        assert!(!report.failed(), "without {gone}: {:#?}", report.verdicts);
        let said = report.verdicts.iter().any(|v| {
            &v.member == gone && matches!(v.status, MemberStatus::Rebuilt | MemberStatus::Note)
        });
        assert!(said, "without {gone}: not reported: {:#?}", report.verdicts);
        let out = dir.path().join(format!("unpacked{k}"));
        archive.unpack(&out).unwrap();
        if gone == "info.txt" {
            // The spacing is a pack option, like name and author: rebuilt
            // as the default (the seed: all but info.txt can be re-created).
            let info = fs::read_to_string(out.join("info.txt")).unwrap();
            let spacing = info.replace(
                "checkpoint_every: 1500 ticks",
                "checkpoint_every: 250 ticks",
            );
            fs::write(out.join("info.txt"), spacing).unwrap();
        }
        let unpacked = tree(&out);
        assert!(
            unpacked == reference,
            "without {gone}: unpacks differently: {}",
            tree_difference(&unpacked, &reference)
        );
        let mut archive = Archive::open(&path).unwrap();
        for tick in [0, 260, 777, 1049] {
            let seek = archive.seek(2, tick).unwrap();
            assert_eq!(
                Some(seek.world),
                world_at(&e2[..], tick).unwrap(),
                "without {gone}"
            );
        }
    }
}

#[test]
fn a_missing_recording_is_the_one_failure() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let kept: Vec<_> = members_of(&golden)
        .into_iter()
        .filter(|(n, _)| n != "2/demodata.bin")
        .collect();
    let path = dir.path().join("no_recording.tar");
    write_tar(&path, &kept);
    let report = Archive::open_full(&path).unwrap().verify();
    let failed: Vec<_> = report
        .verdicts
        .iter()
        .filter(|v| v.status == MemberStatus::Failed)
        .collect();
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert_eq!(failed[0].member, "2/demodata.bin");
    let err = Archive::open(&path).unwrap().seek(2, 10).unwrap_err();
    assert!(
        err.to_string().contains("2/demodata.bin is missing"),
        "{err}"
    );
}

#[test]
fn a_missing_map_folder_fails() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let kept: Vec<_> = members_of(&golden)
        .into_iter()
        .filter(|(n, _)| !n.starts_with("1/"))
        .collect();
    let path = dir.path().join("no_folder_1.tar");
    write_tar(&path, &kept);
    let report = Archive::open_full(&path).unwrap().verify();
    let failed: Vec<_> = report
        .verdicts
        .iter()
        .filter(|v| v.status == MemberStatus::Failed)
        .map(|v| format!("{}: {}", v.member, v.detail))
        .collect();
    assert_eq!(
        failed,
        [
            "info.txt: says 2 maps, the archive has 1 map folders",
            "1/: map folder missing"
        ]
    );
}

/// Replaces member `name`'s bytes via `edit` and verifies.
fn damaged(
    dir: &Path,
    name: &str,
    edit: impl Fn(&str) -> String,
) -> (PathBuf, teeoracle::archive::Report) {
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let changed: Vec<_> = members_of(&golden)
        .into_iter()
        .map(|(n, d)| {
            let d = if n == name {
                edit(&String::from_utf8(d).unwrap()).into_bytes()
            } else {
                d
            };
            (n, d)
        })
        .collect();
    let path = dir.join(format!("{}.tar", name.replace('/', "_")));
    write_tar(&path, &changed);
    let report = Archive::open_full(&path).unwrap().verify();
    (path, report)
}

fn failure_of<'r>(report: &'r teeoracle::archive::Report, member: &str) -> &'r str {
    let v = report
        .verdicts
        .iter()
        .find(|v| v.member == member)
        .unwrap_or_else(|| panic!("no verdict for {member}"));
    assert_eq!(v.status, MemberStatus::Failed, "{v:?}");
    &v.detail
}

#[test]
fn damaged_members_are_reported_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = damaged(dir.path(), "2/log.txt", |t| {
        t.replacen("cmd=\"info\"", "cmd=\"kill\"", 1)
    });
    let why = failure_of(&r, "2/log.txt");
    assert!(why.contains("at line 15") && why.contains("kill"), "{why}");
    let (_, r) = damaged(dir.path(), "1/info.txt", |t| {
        t.replace("map_name: dm1", "map_name: dm2")
    });
    let detail = failure_of(&r, "1/info.txt");
    assert!(detail.contains("dm2"), "{detail}");
    let (_, r) = damaged(dir.path(), "2/toc.txt", |t| {
        t.replace("save2.ron 500", "save2.ron 499")
    });
    assert!(
        failure_of(&r, "2/toc.txt").contains("tick 499"),
        "{:?}",
        r.verdicts
    );
    let (_, r) = damaged(dir.path(), "info.txt", |t| t.replace("maps: 2", "maps: 3"));
    let detail = failure_of(&r, "info.txt");
    assert!(detail.contains("says 3 maps"), "{detail}");
    let (_, r) = damaged(dir.path(), "2/toc.txt", |t| format!("{t}garbage\n"));
    let detail = failure_of(&r, "2/toc.txt");
    assert!(detail.contains("damaged"), "{detail}");

    // A checkpoint that disagrees with the replay: reported by verify,
    // replaced on unpack, and caught by a checked seek.
    let (path, r) = damaged(dir.path(), "2/save2.ron", |t| {
        t.replacen("x: 145,", "x: 146,", 1)
    });
    let why = failure_of(&r, "2/save2.ron");
    assert!(
        why.contains("world.players[0].x is 146 where the replay has 145"),
        "{why}"
    );
    let out = dir.path().join("unpacked");
    Archive::open_full(&path).unwrap().unpack(&out).unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    assert_eq!(
        fs::read(out.join("2/save2.ron")).unwrap(),
        Archive::open(&golden)
            .unwrap()
            .member_bytes("2/save2.ron")
            .unwrap()
    );
    let mut archive = Archive::open(&path).unwrap();
    let seek = archive.seek(2, 520).unwrap();
    assert_ne!(Some(seek.world), archive.replay_from_start(2, 520).ok());
}

/// An unreadable checkpoint is passed over for the one before it.
#[test]
fn seek_passes_over_unusable_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let e2 = fs::read(recording("E_map_change.2_ctf1")).unwrap();
    let (path, _) = damaged(dir.path(), "2/save3.ron", |t| t[..t.len() / 2].to_string());
    let seek = Archive::open(&path).unwrap().seek(2, 800).unwrap();
    assert_eq!(
        seek.from.as_ref().map(|f| f.member.as_str()),
        Some("2/save2.ron")
    );
    assert!(
        seek.notes[0].starts_with("2/save3.ron is damaged"),
        "{:?}",
        seek.notes
    );
    assert_eq!(Some(seek.world), world_at(&e2[..], 800).unwrap());
    let (path, _) = damaged(dir.path(), "2/save3.ron", |t| {
        t.replace("offset: 17858", "offset: 17000")
    });
    let seek = Archive::open(&path).unwrap().seek(2, 800).unwrap();
    assert_eq!(
        seek.from.as_ref().map(|f| f.member.as_str()),
        Some("2/save2.ron")
    );
    assert!(
        seek.notes[0].contains("toc.txt says tick 750 at byte 17858"),
        "{:?}",
        seek.notes
    );
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

/// Cut or corrupted archives give reports or errors, never a panic, and a
/// cut archive never verifies as sound.
#[test]
fn prop_damaged_archives_never_panic() {
    fn prop(which: bool, cut: usize, flips: Vec<(usize, u8)>) -> bool {
        static FIXTURE: OnceLock<(tempfile::TempDir, [Vec<u8>; 2])> = OnceLock::new();
        let (dir, golden) = FIXTURE.get_or_init(|| {
            let golden = [
                fs::read(root().join("corpus/archive/E_map_change.tar.bz2")).unwrap(),
                fs::read(root().join("corpus/archive/F_crash_truncated.tar")).unwrap(),
            ];
            (tempfile::tempdir().unwrap(), golden)
        });
        let path = dir.path().join("damaged");
        let bytes = &golden[usize::from(which)];
        let mut b = bytes[..cut % (bytes.len() + 1)].to_vec();
        let cut_short = b.len() < bytes.len() - if which { 1024 } else { 0 };
        for (at, x) in &flips {
            if !b.is_empty() {
                let i = at % b.len();
                b[i] ^= x;
            }
        }
        fs::write(&path, &b).unwrap();
        if let Ok(mut a) = Archive::open(&path) {
            let _ = a.summary();
            let _ = a.seek(1, 300);
            let _ = a.log(2);
        }
        match Archive::open_full(&path) {
            Ok(a) => {
                let report = a.verify();
                !(cut_short && flips.is_empty()) || report.remarks().next().is_some()
            }
            Err(_) => true,
        }
    }
    qc().tests(150)
        .quickcheck(prop as fn(bool, usize, Vec<(usize, u8)>) -> bool);
}

// The command line.

use common::run;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn cli_pack_info_seek_verify_log_unpack_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e.tar.bz2");
    let o = out.to_str().unwrap();
    let e1 = recording("E_map_change.1_dm1");
    let e2 = recording("E_map_change.2_ctf1");
    let (e1s, e2s) = (e1.to_str().unwrap(), e2.to_str().unwrap());
    let p = run(&["archive", "pack", o, "--every", "5", e2s, e1s]);
    assert_eq!(p.status.code(), Some(0), "{}", text(&p.stderr));
    assert!(
        text(&p.stdout).starts_with("packed 2 map(s)"),
        "{}",
        text(&p.stdout)
    );
    assert_eq!(
        fs::read(&out).unwrap(),
        fs::read(root().join("corpus/archive/E_map_change.tar.bz2")).unwrap()
    );

    let i = run(&["archive", "info", o]);
    assert_eq!(i.status.code(), Some(0));
    assert!(
        text(&i.stdout).contains("(continues map 1)"),
        "{}",
        text(&i.stdout)
    );

    // seek prints exactly what a replay of the recording prints.
    for tick in ["0", "333", "1049"] {
        let s = run(&[
            "archive", "seek", o, "--map", "2", "--tick", tick, "--check",
        ]);
        let r = run(&["teehistorian", "replay", e2s, "--at", tick]);
        assert_eq!(s.status.code(), Some(0), "{}", text(&s.stderr));
        assert_eq!(text(&s.stdout), text(&r.stdout), "tick {tick}");
    }
    let s = run(&[
        "archive", "seek", o, "--map", "2", "--tick", "700", "--format", "json",
    ]);
    let r = run(&[
        "teehistorian",
        "replay",
        e2s,
        "--at",
        "700",
        "--format",
        "json",
    ]);
    assert_eq!(text(&s.stdout), text(&r.stdout));
    assert!(
        text(&s.stderr).contains("from 2/save2.ron (tick 500, byte 13501)"),
        "{}",
        text(&s.stderr)
    );

    let v = run(&["archive", "verify", o]);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v.stdout));
    let stdout = text(&v.stdout);
    assert!(
        stdout.ends_with("2 map(s), 3911 records, 5 checkpoint(s) agree; 0 rebuilt, 0 failed\n"),
        "{stdout}"
    );

    let l = run(&["archive", "log", o, "--map", "1"]);
    assert_eq!(l.status.code(), Some(0));
    assert!(
        text(&l.stdout).contains("cmd=\"change_map\" args=[\"ctf1\"]"),
        "{}",
        text(&l.stdout)
    );

    let u = dir.path().join("u");
    let x = run(&["archive", "unpack", o, u.to_str().unwrap()]);
    assert_eq!(x.status.code(), Some(0), "{}", text(&x.stderr));
    assert_eq!(
        fs::read(u.join("2/demodata.bin")).unwrap(),
        fs::read(&e2).unwrap()
    );
    let again = run(&["archive", "unpack", o, u.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2), "not into a folder with files");

    let c = run(&["check", o]);
    assert_eq!(c.status.code(), Some(0), "{}", text(&c.stdout));
    assert!(
        text(&c.stdout).contains("pass    archive"),
        "{}",
        text(&c.stdout)
    );
}

#[test]
fn cli_errors_are_one_line_with_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let g = golden.to_str().unwrap();
    let e = run(&["archive", "seek", g, "--map", "2", "--tick", "5000"]);
    assert_eq!(e.status.code(), Some(2));
    assert_eq!(
        text(&e.stderr).lines().last().unwrap(),
        format!(
            "teeoracle: usage error: tick 5000 is after the end of map 2 of {g} (last tick 1049)"
        )
    );
    let e = run(&["archive", "seek", g, "--map", "3", "--tick", "5"]);
    assert_eq!(e.status.code(), Some(2));
    let gz = dir.path().join("x.tar.gz");
    let e = run(&[
        "archive",
        "pack",
        gz.to_str().unwrap(),
        recording("A_join_move_leave").to_str().unwrap(),
    ]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        text(&e.stderr).contains(".tar.gz is read only"),
        "{}",
        text(&e.stderr)
    );
    assert!(!gz.exists(), "{} was written", gz.display());

    // A damaged archive fails verify and check, naming the member.
    let (path, _) = damaged(dir.path(), "2/save1.ron", |t| {
        t.replacen("          y: ", "          y: 1", 1)
    });
    let v = run(&["archive", "verify", path.to_str().unwrap()]);
    assert_eq!(v.status.code(), Some(1));
    let line = text(&v.stdout)
        .lines()
        .find(|l| l.starts_with("FAIL"))
        .unwrap()
        .to_string();
    assert!(
        line.contains("2/save1.ron") && line.contains("disagrees with the replay"),
        "{line}"
    );
    let c = run(&["check", path.to_str().unwrap()]);
    assert_eq!(c.status.code(), Some(1));
    assert!(
        text(&c.stdout).contains("FAIL    archive"),
        "{}",
        text(&c.stdout)
    );
    let s = run(&[
        "archive",
        "seek",
        path.to_str().unwrap(),
        "--map",
        "2",
        "--tick",
        "300",
        "--check",
    ]);
    assert_eq!(s.status.code(), Some(1));
    assert_eq!(text(&s.stderr).lines().count(), 1, "{}", text(&s.stderr));
    let stderr = text(&s.stderr);
    assert!(
        stderr.contains("2/save1.ron disagrees with a replay from the start"),
        "{stderr}"
    );

    let not = dir.path().join("not.tar");
    fs::write(&not, vec![7u8; 2000]).unwrap();
    let e = run(&["archive", "verify", not.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(1));
    assert_eq!(text(&e.stderr).lines().count(), 1);
    assert!(
        text(&e.stderr).contains("at byte 0: expected a tar header"),
        "{}",
        text(&e.stderr)
    );
}

/// Every archive command's JSON carries what its text shows.
#[test]
fn cli_json_reports() {
    let dir = tempfile::tempdir().unwrap();
    let golden = root().join("corpus/archive/E_map_change.tar.bz2");
    let g = golden.to_str().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };

    let info = json(&["archive", "info", g, "--format", "json"]);
    assert_eq!(
        (&info["kind"], &info["schema_version"]),
        (&"archive_info".into(), &1.into())
    );
    assert_eq!(info["compression"], "bzip2");
    assert_eq!(info["indexed"], true);
    assert_eq!(info["top"]["maps"], 2);
    assert_eq!(info["maps"][1]["map_name"], "ctf1");
    assert_eq!(
        info["maps"][1]["prev_game_uuid"],
        info["maps"][0]["game_uuid"]
    );
    let members = info["members"].as_array().unwrap();
    assert_eq!(members[0]["name"], "info.txt");
    for m in members {
        assert!(m["size"].is_u64(), "{m}");
    }

    let verify = json(&["archive", "verify", g, "--format", "json"]);
    assert_eq!(verify["kind"], "archive_verify");
    assert_eq!(verify["ok"], true);
    assert_eq!(verify["totals"]["records"], 3911);
    assert_eq!(verify["totals"]["checkpoints_agree"], 5);
    assert_eq!(verify["maps"][1]["end"]["end"], "finished");
    let demodata = verify["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["member"] == "2/demodata.bin")
        .unwrap();
    assert_eq!(demodata["status"], "ok");
    assert!(
        demodata.get("findings").is_none(),
        "a sound recording has none"
    );

    let out = dir.path().join("f.tar");
    let f = recording("F_crash_truncated");
    let pack = json(&[
        "archive",
        "pack",
        out.to_str().unwrap(),
        "--every",
        "10",
        f.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(pack["kind"], "archive_pack");
    assert_eq!(pack["compression"], "none");
    assert_eq!(pack["every"], 500);
    assert_eq!(
        fs::read(&out).unwrap(),
        fs::read(root().join("corpus/archive/F_crash_truncated.tar")).unwrap()
    );
    assert_eq!(pack["bytes"], fs::metadata(&out).unwrap().len());
    let map = &pack["maps"][0];
    assert_eq!((&map["map"], &map["checkpoints"]), (&1.into(), &2.into()));
    assert_eq!(map["end"]["end"], "truncated");
    assert_eq!(map["findings"][0]["code"], "truncated");

    let log = run(&["archive", "log", g, "--format", "jsonl"]);
    assert_eq!(log.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = text(&log.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["kind"], "start");
    assert_eq!(lines[0]["command"], "archive log");
    let end = lines.last().unwrap();
    assert_eq!(end["kind"], "end");
    assert_eq!(end["events"], lines.len() as u64 - 2);
    let change = lines
        .iter()
        .find(|l| l["event"] == "console" && l["fields"]["cmd"] == "change_map")
        .unwrap();
    assert_eq!(
        (&change["kind"], &change["map"]),
        (&"event".into(), &1.into())
    );
    assert_eq!(change["fields"]["args"][0], "ctf1");
    // The text log has one line per event, under a title per map.
    let text_log = run(&["archive", "log", g]);
    let events = text(&text_log.stdout)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .count();
    assert_eq!(events as u64, lines.len() as u64 - 2);
}

/// A recording the teehistorian pipeline finds fault with is reported by
/// pack, verify and check through the same findings.
#[test]
fn recording_findings_are_the_teehistorian_checks() {
    let dir = tempfile::tempdir().unwrap();
    let input = root().join("corpus/teehistorian/malformed/player_diff_absent.teehistorian");
    let out = dir.path().join("bad.tar");
    let packed = pack(&out, &[input], &options(50, Compression::None)).unwrap();
    let codes: Vec<&str> = packed.maps[0]
        .findings
        .iter()
        .map(|f| f.code.as_str())
        .collect();
    assert_eq!(codes, ["replay"]);
    let report = Archive::open_full(&out).unwrap().verify();
    let v = report
        .verdicts
        .iter()
        .find(|v| v.member == "1/demodata.bin")
        .unwrap();
    assert_eq!(v.status, MemberStatus::Failed);
    assert_eq!(v.findings, packed.maps[0].findings);
    assert!(v.detail.starts_with("replay: at byte"), "{}", v.detail);
    let verdict = teeoracle::check::check(
        teeoracle::check::Source::bytes("bad.tar", fs::read(&out).unwrap()),
        &Default::default(),
    );
    assert_eq!(verdict.status, teeoracle::check::Status::Fail);
    let f = verdict.headline().unwrap();
    assert_eq!(f.code, "replay");
    assert!(
        f.message.starts_with("1/demodata.bin: replay: "),
        "{}",
        f.message
    );
}
