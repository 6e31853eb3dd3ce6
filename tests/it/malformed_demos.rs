//! The hand-made demo and snapshot-delta corpus written by
//! `corpus/make_demo_corpus.py` (the committed files are its output:
//! `tests/harness/generators.rs`): `check` reports every malformed demo as
//! an expected failure. Each file's verdict and golden (the error it was
//! made for, a delta's DDNet `UnpackDelta` code, an edge demo's dump and
//! replay) are in `tests/harness/golden.rs`.

use crate::common;

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
