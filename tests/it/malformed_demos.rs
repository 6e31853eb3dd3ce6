//! The hand-made demo and snapshot-delta corpus written by
//! `corpus/make_demo_corpus.py`: the committed files are the generator's
//! output, byte for byte, and `check` reports every malformed demo as an
//! expected failure. Each file's verdict and golden (the error it was made
//! for, a delta's DDNet `UnpackDelta` code, an edge demo's dump and replay)
//! are in `tests/golden.rs`.

mod common;

use std::path::{Path, PathBuf};

/// `check` reports each malformed demo as an expected failure (the bad
/// magic one too: it is named `.demo` and is not one).
#[test]
fn check_reports_malformed_demos_as_expected_failures() {
    let out = common::run(&["check", "corpus/demo/malformed"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let n = common::corpus_files("demo/malformed").len();
    assert!(
        stdout.trim_end().ends_with(&format!(
            "{n} passed (0 with warnings), 0 failed, 0 skipped"
        )),
        "{stdout}"
    );
    assert_eq!(stdout.matches("xfail").count(), n, "{stdout}");
}

/// Paths of every file below `dir`, relative to it, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    common::files_under(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().to_path_buf())
        .collect()
}

/// The generator is not needed to run the tests, but the committed files
/// must be exactly what it writes (skipped without python3), and it writes
/// nothing else into these folders.
#[test]
fn committed_files_match_the_generator() {
    let mut committed = Vec::new();
    for folder in ["demo/edge", "demo/malformed", "snapshot/malformed"] {
        let base = common::root().join("corpus");
        committed.extend(
            tree(&base.join(folder))
                .into_iter()
                .map(|p| Path::new(folder).join(p)),
        );
    }
    committed.sort();
    let Some(out_dir) = common::check_corpus_generator("make_demo_corpus.py", &committed) else {
        return;
    };
    assert_eq!(tree(&out_dir), committed, "the same files");
    std::fs::remove_dir_all(&out_dir).unwrap();
}
