//! Helpers shared by the integration tests.

/// The library's test helpers (seed, quickcheck, codec laws), the same
/// file the unit tests use.
#[path = "../../src/testing.rs"]
pub mod testing;

/// For `testing`, which names the codec module relative to itself.
#[allow(unused_imports)]
pub use teeoracle::codec;

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

/// The captures of `corpus/packet/ddnet-20.1/` (without `.pcap`).
#[allow(dead_code)]
pub const CAPTURES: [&str; 5] = [
    "A_join_move_leave",
    "B_eight_bots_dm1",
    "C_rcon_auth",
    "E_map_change",
    "F_crash_truncated",
];
