//! The damaged captures written by `corpus/make_capture_corpus.py` (the
//! committed files are its output: `tests/harness/generators.rs`) as
//! `pcap dump` prints them. What each one reads as (the frames before the
//! damage, then where and why reading stopped) is in its golden
//! (`tests/harness/golden.rs`), and in the unit tests of `src/capture.rs`.

use crate::common;

/// A damaged record fails `pcap dump` too, after every datagram before it
/// was printed; a cut last record does not.
#[test]
fn pcap_dump_prints_the_frames_before_the_damage() {
    for (file, code) in [
        ("corpus/packet/malformed/record_501_bad_length.pcap", 1),
        ("corpus/packet/edge/cut_in_record_501.pcap", 0),
    ] {
        let out = common::run(&["pcap", "dump", file]);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(code), "{file}");
        let datagrams = stdout
            .lines()
            .filter(|l| l.starts_with('#') && !l.starts_with("# "))
            .count();
        assert_eq!(datagrams, 500, "{file}");
        let last = stdout.lines().last().unwrap();
        assert!(
            last.starts_with("# stopped: ")
                && last.contains("after frame 500: at byte 60087 (0xeab7)"),
            "{file}: {last}"
        );
    }
}
