//! Helpers shared by the integration tests.

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
