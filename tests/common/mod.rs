//! Helpers shared by the integration tests.

/// The tests of a binary with its own harness, each by its function's
/// name: `(name, function)` pairs (`#[macro_use] mod common;`).
#[allow(unused_macros)]
macro_rules! tests {
    ($($test:ident),* $(,)?) => {
        &[$((stringify!($test), $test as fn())),*]
    };
}

/// The library's test helpers (seed, quickcheck, codec laws), the same
/// file the unit tests use.
#[path = "../../src/testing.rs"]
pub mod testing;

/// For `testing`, which names the codec and files modules relative to
/// itself.
#[allow(unused_imports)]
pub use teeoracle::{codec, files};

use std::path::{Path, PathBuf};
use teeoracle::codec::{encode_to_vec, first_difference};
use teeoracle::demo::{Demo, SnapshotReplay};

/// Asserts `text` against the golden snapshot `name` in `snapshots/<dir>/`
/// (reviewed with `cargo insta review`).
#[allow(dead_code)]
pub fn snapshot(dir: &str, name: &str, text: &str) {
    insta::with_settings!({
        // Relative to this file: tests/common/ -> the crate's snapshots/.
        snapshot_path => format!("../../snapshots/{dir}"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

/// The corpus walkers and the crate root, from the library's test
/// helpers (one copy for the unit and the integration tests).
#[allow(unused_imports)]
pub use testing::{corpus_files, files_under, root, upstream_corpus};

/// True if `path`'s file name ends with `ext` (without the dot).
#[allow(dead_code)]
pub fn has_ext(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e == ext)
}

/// A demo decoded, with what every sound one passes: every payload
/// decodes, it re-encodes to exactly its bytes, and its snapshots replay
/// without a fault. The one round-trip check of the demo tests.
#[allow(dead_code)]
pub fn sound_demo<'a>(name: &str, bytes: &'a [u8]) -> (Demo<'a>, SnapshotReplay) {
    let (demo, offsets) = Demo::decode(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(demo.verbatim_payloads(), 0, "{name}: every payload decodes");
    let again = encode_to_vec(&demo, ());
    if let Some(at) = first_difference(&again, bytes) {
        panic!("{name}: the re-encoding differs at byte {at}");
    }
    let replay = demo.replay_snapshots(&offsets, |_, _, _| {});
    assert_eq!(replay.faults, [], "{name}");
    (demo, replay)
}

/// Runs the `teeoracle` binary from the crate root (for tests that call
/// the command line; not every test crate does).
#[allow(dead_code)]
pub fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// [`run`] with `input` on its standard input.
#[allow(dead_code)]
pub fn run_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread: the child may print before it has read it all
    // (or stop reading: then the write fails, and its output says why).
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The captures of `corpus/packet/ddnet-20.1/` (without `.pcap`).
#[allow(dead_code)]
pub const CAPTURES: [&str; 5] = [
    "A_join_move_leave",
    "B_eight_bots_dm1",
    "C_rcon_auth",
    "E_map_change",
    "F_crash_truncated",
];

/// Runs a corpus generator script (`corpus/SCRIPT`, Python standard library
/// only) into a fresh temporary folder and checks that each of `made`
/// (paths relative to `corpus/`) is byte for byte the committed file.
/// Returns the folder, for further checks; `None` (with a line) without
/// python3: the generators are not needed to run the tests.
#[allow(dead_code)]
pub fn check_corpus_generator(script: &str, made: &[PathBuf]) -> Option<PathBuf> {
    use std::process::Command;
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not found: skipping the comparison with {script}");
        return None;
    }
    let stem = script.trim_end_matches(".py");
    let out_dir = std::env::temp_dir().join(format!("teeoracle-{stem}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let status = Command::new("python3")
        // No __pycache__ for a shared module inside corpus/.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .arg(root().join("corpus").join(script))
        .arg(&out_dir)
        .status()
        .unwrap();
    assert!(status.success(), "{script} failed");
    for rel in made {
        let a = std::fs::read(out_dir.join(rel)).unwrap();
        let b = std::fs::read(root().join("corpus").join(rel)).unwrap();
        assert!(
            a == b,
            "{}: differs from {script}'s output at byte {:?}",
            rel.display(),
            first_difference(&a, &b)
        );
    }
    Some(out_dir)
}
