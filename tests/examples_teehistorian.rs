//! The teehistorian replay example, run on the corpus.

#[allow(dead_code)]
#[path = "../examples/teehistorian_replay.rs"]
mod example;

use std::path::Path;

fn run(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let mut out = Vec::new();
    example::run(&path, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn prints_joins_leaves_and_the_world_at_the_end() {
    let out = run("corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].ends_with("map dm1, recorded 2026-11-22T02:28:13+0000"),
        "{out}"
    );
    assert!(lines.contains(&"tick     80: cid 0 joined"), "{out}");
    assert!(
        lines.contains(&"tick     80: cid 0 is named \"alice\""),
        "{out}"
    );
    let left = lines.iter().find(|l| l.contains("left")).unwrap();
    assert!(left.contains("\"alice\" (cid 0) left"), "{left}");
    assert!(lines.contains(&"tick    932: the recording ends"), "{out}");
    assert!(!out.contains("inconsistent"), "{out}");
    assert_eq!(lines[lines.len() - 2], "at the end (tick 932):");
    let last = lines.last().unwrap();
    assert!(
        last.contains("cid   0 \"alice\"") && last.contains("gone"),
        "{last}"
    );
}

#[test]
fn a_missing_file_is_an_error() {
    let mut out = Vec::new();
    assert!(example::run(Path::new("/no/such.teehistorian"), &mut out).is_err());
}
