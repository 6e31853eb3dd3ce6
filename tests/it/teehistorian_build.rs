//! `teehistorian build`: the synthetic file of `corpus/teehistorian/
//! synthetic/` is its spec built (by the library and by the command), it
//! passes `check`, and a bad spec gets one error naming the record.

use crate::common;

use common::{root, run};
use teeoracle::teehistorian::spec::TeehistorianSpec;

const SPEC: &str = "corpus/teehistorian/synthetic/session.ron";
const FILE: &str = "corpus/teehistorian/synthetic/session.teehistorian";

#[test]
fn build_reproduces_the_synthetic_teehistorian() {
    let spec =
        TeehistorianSpec::from_ron(&std::fs::read_to_string(root().join(SPEC)).unwrap()).unwrap();
    let built = spec.build().unwrap();
    let want = std::fs::read(root().join(FILE)).unwrap();
    assert_eq!(
        built.bytes, want,
        "rebuild with `teehistorian build {SPEC} -o {FILE}`"
    );
    assert_eq!(built.records, 25);
    let out_path = std::env::temp_dir().join("teeoracle-build-session.teehistorian");
    let out = run(&[
        "teehistorian",
        "build",
        SPEC,
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&out_path).unwrap(), want);
    std::fs::remove_file(out_path).unwrap();
    let out = run(&["check", FILE]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_bad_spec_gets_one_error_naming_the_record() {
    for (records, want) in [
        (
            r#"tick(1), message(cid: 0, name: "Cl_Say", fields: {"team": 0, "mesage": "x"})"#,
            "records[1].fields.mesage: a field of this message's layout (team, message)",
        ),
        (
            r#"tick(1), player_new(cid: 3, x: 0, y: 0), player_new(cid: 2, x: 0, y: 0)"#,
            "records[2]: player record for cid 2 after cid 3 in the same tick (DDNet asserts ascending order)",
        ),
        (
            r#"input_new(cid: 0, input: [1, 2])"#,
            "records[0].input: 10 ints, found 2",
        ),
        (
            r#"ex(data: "00")"#,
            "records[0]: an extension with `name` or `uuid` (one of them)",
        ),
    ] {
        let spec = TeehistorianSpec::from_ron(&format!("(records: [{records}])")).unwrap();
        assert_eq!(spec.build().unwrap_err().to_string(), want);
    }
    // An unknown field is a parse error with its place.
    let e = TeehistorianSpec::from_ron("(records: [join(cid: 0, team: 1)])").unwrap_err();
    assert!(e.to_string().contains("1:25"), "{e}");
    assert!(e.to_string().contains("team"), "{e}");
}
