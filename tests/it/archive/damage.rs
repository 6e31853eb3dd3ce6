//! Damaged archives: a lost member is rebuilt, a lost recording or map
//! folder fails, damaged text members and checkpoints are reported (and
//! passed over by `seek`), and no cut or corrupted archive panics.

use super::{members_of, recording, tree, tree_difference, write_tar};
use crate::common::root;
use crate::common::testing::qc;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use teeoracle::archive::recording::world_at;
use teeoracle::archive::{Archive, MemberOutcome};

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
            &v.member == gone && matches!(v.status, MemberOutcome::Rebuilt | MemberOutcome::Note)
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
        .filter(|v| v.status == MemberOutcome::Failed)
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
        .filter(|v| v.status == MemberOutcome::Failed)
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
pub(super) fn damaged(
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
    assert_eq!(v.status, MemberOutcome::Failed, "{v:?}");
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
