//! Helpers shared by the integration tests (`tests/it`, `tests/harness`,
//! `tests/record.rs`); each binary uses some of them.

#![allow(dead_code, unused_imports, unused_macros)]

use libtest_mimic::{Completion, Failed, Trial};

/// A test of a binary with its own harness: its name, what it needs
/// beside the clone, and its body.
pub struct Test {
    pub name: &'static str,
    pub needs: &'static [Need],
    pub run: fn() -> Result<(), Failed>,
}

/// What a test function gives: nothing (it panics on failure, as a
/// `#[test]` does), or `Err` on failure.
pub trait Outcome {
    fn into_result(self) -> Result<(), Failed>;
}

impl Outcome for () {
    fn into_result(self) -> Result<(), Failed> {
        Ok(())
    }
}

impl Outcome for Result<(), Failed> {
    fn into_result(self) -> Result<(), Failed> {
        self
    }
}

/// Something a test needs beside the clone.
#[derive(Clone, Copy)]
pub enum Need {
    /// Runs only where it is; elsewhere the test is reported ignored,
    /// with why.
    Only(Env),
    /// Runs everywhere and reads it too where it is; where it is not, a
    /// twin `<name> (with <it>)` is reported ignored, so the part not run
    /// is never counted as passed.
    Also(Env),
}

/// What a clone may lack and CI has (`.ci/run` installs it or has it
/// beside the repository, and fails if any test was ignored).
#[derive(Clone, Copy)]
pub enum Env {
    /// The shared corpus: [`shared_corpus`].
    SharedCorpus,
    /// `python3`, which runs the corpus generators.
    Python3,
    /// Debian's `ddnet-data` and `teeworlds-data` maps.
    DebianMaps,
    /// A network namespace (`unshare -n`, which needs root): `record`
    /// runs every server in one.
    NetNamespace,
    /// Debian's DDNet 16.4 server with its maps, and a network namespace.
    DdnetServer,
    /// Debian's Teeworlds 0.7.5 server, and a network namespace.
    TeeworldsServer,
}

/// Debian's DDNet 16.4 server (`ddnet-server`).
pub const DDNET_SERVER: &str = "/usr/games/DDNet-Server";
/// Debian's Teeworlds 0.7.5 server (`teeworlds-server`).
pub const TEEWORLDS_SERVER: &str = "/usr/games/teeworlds-server";
/// The folders of Debian's maps (`ddnet-data`, `teeworlds-data`).
pub const DEBIAN_MAPS: [&str; 3] = [
    "/usr/share/games/ddnet/data/maps",
    "/usr/share/games/ddnet/data/maps7",
    "/usr/share/games/teeworlds/data/maps",
];

impl Env {
    /// Why it is missing here, or `None` where it is present.
    pub fn missing(self) -> Option<String> {
        use std::path::Path;
        use std::process::{Command, Stdio};
        use std::sync::OnceLock;
        let runs = |cmd: &str, args: &[&str]| {
            Command::new(cmd)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let installed = |path: &str, package: &str| {
            (!Path::new(path).exists())
                .then(|| format!("{path} is missing (apt-get install {package})"))
        };
        match self {
            Env::SharedCorpus => shared_corpus().is_none().then(|| {
                format!(
                    "needs the shared corpus: {} is not a folder",
                    shared_corpus_path().display()
                )
            }),
            Env::Python3 => (!runs("python3", &["--version"]))
                .then(|| "needs python3, which runs the corpus generators".into()),
            Env::DebianMaps => DEBIAN_MAPS.iter().find_map(|dir| {
                installed(dir, "ddnet-data teeworlds-data").map(|why| format!("needs {why}"))
            }),
            Env::NetNamespace => {
                static NAMESPACE: OnceLock<bool> = OnceLock::new();
                (!*NAMESPACE.get_or_init(|| runs("unshare", &["-n", "true"])))
                    .then(|| "needs a network namespace: `unshare -n` fails (not root)".into())
            }
            Env::DdnetServer => installed(DDNET_SERVER, "ddnet-server")
                .or_else(|| installed(DEBIAN_MAPS[0], "ddnet-data"))
                .map(|why| format!("needs {why}"))
                .or_else(|| Env::NetNamespace.missing()),
            Env::TeeworldsServer => installed(TEEWORLDS_SERVER, "teeworlds-server")
                .map(|why| format!("needs {why}"))
                .or_else(|| Env::NetNamespace.missing()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Env::SharedCorpus => "the shared corpus",
            Env::Python3 => "python3",
            Env::DebianMaps => "Debian's maps",
            Env::NetNamespace => "a network namespace",
            Env::DdnetServer => "the DDNet server",
            Env::TeeworldsServer => "the Teeworlds server",
        }
    }
}

/// `&[Test]` of the functions named, each with what it needs:
/// `tests![a, b needs SharedCorpus, c also SharedCorpus also DebianMaps]`
/// ([`Need`]).
macro_rules! tests {
    ($($test:ident $($how:ident $env:ident)*),* $(,)?) => {
        &[$($crate::common::Test {
            name: stringify!($test),
            needs: &[$(tests!(@need $how $env)),*],
            run: || $crate::common::Outcome::into_result($test()),
        }),*]
    };
    (@need needs $env:ident) => { $crate::common::Need::Only($crate::common::Env::$env) };
    (@need also $env:ident) => { $crate::common::Need::Also($crate::common::Env::$env) };
}

/// The trials of `tests`, named `<module>::<name>` (as the standard
/// harness names a test of a module; the name alone for no module).
pub fn trials(module: &str, tests: &[Test]) -> Vec<Trial> {
    let mut trials = Vec::new();
    for test in tests {
        let name = match module {
            "" => test.name.to_string(),
            _ => format!("{module}::{}", test.name),
        };
        let run = test.run;
        let missing = |only: bool| {
            test.needs.iter().filter_map(move |&need| match need {
                Need::Only(env) if only => Some((env, env.missing()?)),
                Need::Also(env) if !only => Some((env, env.missing()?)),
                _ => None,
            })
        };
        if let Some((_, why)) = missing(true).next() {
            trials.push(ignored(name, why));
            continue;
        }
        for (env, why) in missing(false) {
            trials.push(ignored(format!("{name} (with {})", env.name()), why));
        }
        trials.push(Trial::test(name, run));
    }
    trials
}

/// A trial reported ignored, saying why.
pub fn ignored(name: String, why: String) -> Trial {
    Trial::ignorable_test(name, move || Ok(Completion::ignored_with(why)))
}

/// The shared corpus (recordings we may not copy into the repository,
/// and real files of other projects under `upstream/`; its READMEs give
/// their provenance), if this machine has it: `../shared/corpus` beside
/// the repository, as in CI, where `conform run` and the examples of the
/// docs look for it too. A bare clone has none: the tests that read it
/// are reported ignored.
pub fn shared_corpus() -> Option<PathBuf> {
    Some(shared_corpus_path()).filter(|dir| dir.is_dir())
}

/// Where the shared corpus is looked for: [`shared_corpus`].
fn shared_corpus_path() -> PathBuf {
    root().join("../shared/corpus")
}

/// The shared corpus's `upstream/` folder: [`shared_corpus`].
pub fn upstream_corpus() -> Option<PathBuf> {
    shared_corpus().map(|dir| dir.join("upstream"))
}

/// The library's test helpers (seed, quickcheck, codec laws), the same
/// file the unit tests use.
#[path = "../../src/testing.rs"]
pub mod testing;

/// For `testing`, which names the codec and files modules relative to
/// itself.
pub use teeoracle::{codec, files};

use std::path::{Path, PathBuf};
use teeoracle::codec::{encode_to_vec, first_difference};
use teeoracle::demo::{Demo, SnapshotReplay};

/// Asserts `text` against the golden snapshot `name` in `snapshots/<dir>/`
/// (reviewed with `cargo insta review`).
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

/// Asserts `bytes` against the golden file `name` (with its extension:
/// `plot.png`) in `snapshots/<dir>/`, stored beside its `.snap` as
/// `<name without extension>.snap.<extension>` (reviewed with `cargo insta
/// review`, or by opening it).
pub fn snapshot_file(dir: &str, name: &str, bytes: Vec<u8>) {
    insta::with_settings!({
        snapshot_path => format!("../../snapshots/{dir}"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_binary_snapshot!(name, bytes);
    });
}

/// A fresh, empty folder for one test (`teeoracle-<name>-<pid>` in the
/// temporary folder).
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("teeoracle-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A command's output as text (invalid UTF-8 shown replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The corpus walkers and the crate root, from the library's test
/// helpers (one copy for the unit and the integration tests).
pub use testing::{corpus_files, files_under, root};

/// True if `path`'s file name ends with `ext` (without the dot).
pub fn has_ext(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e == ext)
}

/// A demo decoded, with what every sound one passes: every payload
/// decodes, it re-encodes to exactly its bytes, and its snapshots replay
/// without a fault. The one round-trip check of the demo tests.
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
pub fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// [`run`] with `input` on its standard input.
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
pub const CAPTURES: [&str; 5] = [
    "A_join_move_leave",
    "B_eight_bots_dm1",
    "C_rcon_auth",
    "E_map_change",
    "F_crash_truncated",
];

/// Runs a corpus generator script (`corpus/SCRIPT`, Python standard library
/// only; a test that calls it `needs Python3`) into a fresh temporary
/// folder and checks that each of `made` (paths relative to `corpus/`) is
/// byte for byte the committed file. Returns the folder, for further
/// checks.
pub fn check_corpus_generator(script: &str, made: &[PathBuf]) -> PathBuf {
    use std::process::Command;
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
    out_dir
}
