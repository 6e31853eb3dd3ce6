//! The conformance harness against two adapters: teeoracle itself (every
//! case passes, the built-in suite and its export give the same results)
//! and a deliberately wrong one, which is this test binary itself when
//! called with an adapter operation (`adapters`): each of its mistakes
//! must be reported as the right finding in the right case. `run`: how
//! `conform run` meets misbehaving adapters and wrong inputs; `mutants`:
//! the suite kills every mutant of the reference adapter.

mod adapters;
pub mod mutants;
pub mod run;

pub use adapters::adapt_if_called_back;

use crate::common::Test;
use libtest_mimic::Failed;
use serde_json::{Value, json};
use std::process::Command;
use teeoracle::conform::Unit;

/// The tests over the whole built-in suite read the shared corpus's
/// cases too where it is (as `conform run` does).
pub const TESTS: &[Test] = tests![
    reference_adapter_passes_every_case also SharedCorpus,
    export_runs_like_the_builtin_suite also SharedCorpus,
    wrong_adapter_findings also SharedCorpus,
    separate_encoder_in_junit,
    a_suite_built_for_some_units_is_the_whole_one_filtered also SharedCorpus,
];

fn teeoracle(args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), json)
}

fn reference() -> String {
    format!("{} conform adapter", env!("CARGO_BIN_EXE_teeoracle"))
}

const UNITS: [&str; 10] = [
    "--unit",
    "varint",
    "--unit",
    "string",
    "--unit",
    "packet07",
    "--unit",
    "snapshot",
    "--unit",
    "delta_apply",
];

fn reference_adapter_passes_every_case() -> Result<(), Failed> {
    let mut args = vec!["conform", "run", "--format", "json", "--jobs", "2"];
    let decoder = reference();
    args.extend(["--decoder", &decoder]);
    let (code, report) = teeoracle(&args);
    assert_eq!(report["summary"]["findings"], 0, "{:#}", report["summary"]);
    assert_eq!(code, 0);
    let total = &report["summary"]["total"];
    assert!(total["pass"].as_u64().unwrap() > 1000, "{total}");
    // Every case passes, and every unit has cases.
    assert_eq!(total.as_object().unwrap().len(), 1, "{total}");
    for unit in Unit::ALL {
        let pass = &report["summary"]["units"][unit.name()]["pass"];
        assert!(pass.as_u64().is_some_and(|n| n > 0), "{unit}: {pass}");
    }
    Ok(())
}

fn export_runs_like_the_builtin_suite() -> Result<(), Failed> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let mut args = vec!["conform", "export", path];
    args.extend(UNITS);
    let out = Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "conform export failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = reference();
    let mut run = vec!["conform", "run", "--format", "json", "--decoder", &decoder];
    run.extend(UNITS);
    let (_, builtin) = teeoracle(&run);
    run.extend(["--suite", path]);
    let (code, exported) = teeoracle(&run);
    assert_eq!(code, 0);
    assert_eq!(builtin["cases"], exported["cases"]);
    // The same suite, from another source.
    let suite = |r: &Value| {
        let mut s = r["suite"].clone();
        s.as_object_mut().unwrap().remove("source");
        s
    };
    assert_eq!(suite(&builtin), suite(&exported));
    assert!(
        exported["suite"]["source"]
            .as_str()
            .unwrap()
            .starts_with("exported: "),
        "{}",
        exported["suite"]
    );
    let n = builtin["cases"].as_array().unwrap().len();
    assert!(n > 100, "the built-in suite has only {n} cases");
    Ok(())
}

/// Cases whose findings are asserted one by one.
const ASSERTED: [&str; 6] = [
    "varint/vectors/fifth_byte_high_bits",
    "varint/vectors/padding_bits",
    "varint/vectors/cut",
    "varint/vectors/cut_after_four",
    "string/vectors/unterminated",
    "string/vectors/not_utf8",
];

/// The wrong adapter's findings: exactly the cases its mistakes touch.
fn wrong_adapter_findings() -> Result<(), Failed> {
    let decoder = format!(
        "{} wrong-adapter",
        std::env::current_exe().unwrap().display()
    );
    let args = [
        "conform",
        "run",
        "--format",
        "json",
        "--timeout",
        "1",
        "--decoder",
        &decoder,
        "--unit",
        "varint",
        "--unit",
        "string",
        "--unit",
        "huffman",
        "--unit",
        "snapshot",
        "--unit",
        "delta_apply",
        "--unit",
        "packet06",
        "--unit",
        "teehistorian",
    ];
    let (code, report) = teeoracle(&args);
    assert_eq!(code, 1);
    let cases = report["cases"].as_array().unwrap();
    let result = |id: &str| {
        let c = cases
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id}"));
        (c["result"].as_str().unwrap().to_string(), c["path"].clone())
    };
    // A 5th varint byte not masked.
    assert_eq!(
        result("varint/vectors/fifth_byte_high_bits"),
        ("wrong_value".into(), json!("ints[0]"))
    );
    assert_eq!(result("varint/vectors/padding_bits").0, "wrong_value");
    assert_eq!(result("varint/vectors/cut").0, "accepted_must_reject");
    assert_eq!(
        result("varint/vectors/cut_after_four").0,
        "accepted_must_reject"
    );
    assert_eq!(result("string/vectors/unterminated").0, "timeout");
    assert_eq!(result("string/vectors/not_utf8").0, "crash");
    // After the hang and the crash, the next cases still run.
    assert_eq!(result("string/vectors/two").0, "pass");
    for c in cases {
        let (id, res) = (c["id"].as_str().unwrap(), c["result"].as_str().unwrap());
        let unit = c["unit"].as_str().unwrap();
        let expected = match unit {
            // The missing legacy Huffman byte: only legacy encode cases.
            "huffman" if c["op"] == "encode" && legacy_case(id) => "wrong_value",
            "huffman" if c["op"] == "encode" => "pass",
            // Sorted items: wrong wherever the wire order is not sorted.
            "snapshot" if c["class"] != "must_reject" && res == "wrong_value" => {
                assert!(c["path"].as_str().unwrap().starts_with("items["), "{c}");
                continue;
            }
            "delta_apply" if c["class"] == "must_reject" => "pass",
            "delta_apply" => "rejected_must_accept",
            "huffman" | "packet06" => "not_covered",
            "teehistorian" => continue,
            "string" if c["op"] == "encode" => "not_covered",
            // Checked by id above.
            _ if ASSERTED.contains(&id) => continue,
            _ => "pass",
        };
        assert_eq!(res, expected, "{c:#}");
    }
    let count = |unit: &str, res: &str| {
        cases
            .iter()
            .filter(|c| c["unit"] == unit && c["result"] == res)
            .count()
    };
    assert!(
        count("huffman", "wrong_value") > 0,
        "a legacy encode case exists"
    );
    assert!(
        count("snapshot", "wrong_value") > 0,
        "an unsorted snapshot exists"
    );
    // The lost unknown extension: where it was, the next record (or
    // nothing) is found.
    let th = |name: &str| {
        result(&format!(
            "teehistorian/teehistorian/edge/{name}.teehistorian"
        ))
    };
    let (res, path) = th("unknown_ex_uuid");
    assert_eq!(res, "wrong_value");
    assert!(path.as_str().unwrap().starts_with("records["), "{path}");
    // The implicit-tick rule: equal client ids in a row start a new tick.
    let (res, path) = th("equal_cid_new_tick");
    assert_eq!(res, "wrong_value");
    assert!(path.as_str().unwrap().ends_with("].tick"), "{path}");
    // A file with only ascending ids and no unknown extension is right.
    assert_eq!(
        result(
            "teehistorian/teehistorian/ddnet-unit-tests/TickExplicitAscendingClientId.teehistorian"
        )
        .0,
        "pass"
    );
    // Every teehistorian finding is one of the two mistakes, in the
    // records (rejections are teeoracle's own, so they pass).
    for c in cases.iter().filter(|c| c["unit"] == "teehistorian") {
        match c["result"].as_str().unwrap() {
            "pass" => {}
            // A file without records: the adapter's fields (records only)
            // cover nothing of it.
            "not_compared" => {
                let id = c["id"].as_str().unwrap();
                let case = builtin_case(id);
                let teeoracle::conform::Expected::Json(v) = &case.expected else {
                    panic!("{c:#}")
                };
                assert_eq!(v.value()["records"], json!([]), "{c:#}");
            }
            "wrong_value" => assert!(c["path"].as_str().unwrap().starts_with("records["), "{c:#}"),
            other => panic!("{other}: {c:#}"),
        }
    }
    assert_eq!(
        report["summary"]["findings"].as_u64().unwrap() as usize,
        cases
            .iter()
            .filter(|c| {
                !matches!(
                    c["result"].as_str(),
                    Some("pass" | "not_covered" | "not_compared")
                )
            })
            .count()
    );
    Ok(())
}

/// The built-in suite as `conform run` builds it (the same corpus
/// folders; no generated cases), built once for every test here.
fn builtin() -> &'static teeoracle::conform::Suite {
    static SUITE: std::sync::OnceLock<teeoracle::conform::Suite> = std::sync::OnceLock::new();
    SUITE.get_or_init(|| teeoracle::conform::Suite::builtin(&builtin_roots(), Vec::new()).unwrap())
}

/// The corpus folders `conform run` builds its suite from.
fn builtin_roots() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    ["corpus", "../shared/corpus/upstream"]
        .iter()
        .map(|r| root.join(r))
        .filter(|p| p.is_dir())
        .collect()
}

/// `conform run --unit` (or `--case`) builds only the cases of its units:
/// the same cases, in the same order, as the whole suite keeps of them.
fn a_suite_built_for_some_units_is_the_whole_one_filtered() -> Result<(), Failed> {
    use teeoracle::conform::Suite;
    let whole = builtin();
    // `--case ID` builds only the unit its id starts with.
    for c in &whole.cases {
        assert!(
            c.id.starts_with(&format!("{}/", c.unit.name())),
            "case {} of unit {}: its id does not start with its unit",
            c.id,
            c.unit
        );
    }
    let mut sets: Vec<Vec<Unit>> = Unit::ALL.iter().map(|&u| vec![u]).collect();
    sets.push(vec![Unit::Varint, Unit::Huffman, Unit::Teehistorian]);
    for units in sets {
        let built = Suite::builtin_of(&builtin_roots(), Vec::new(), &units).unwrap();
        let filtered = whole.clone().only(&units);
        let ids = |s: &Suite| s.cases.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
        assert!(
            !built.cases.is_empty(),
            "{units:?}: no case (the corpus has some of each unit)"
        );
        assert_eq!(
            ids(&built),
            ids(&filtered),
            "{units:?}: other cases than the whole suite's"
        );
        if let Some(c) = built
            .cases
            .iter()
            .zip(&filtered.cases)
            .find(|(a, b)| a != b)
        {
            panic!("{units:?}: case {} differs from the whole suite's", c.0.id);
        }
        assert_eq!(
            (built.version, built.seed),
            (filtered.version, filtered.seed),
            "{units:?}: version and seed"
        );
    }
    Ok(())
}

/// A case of the built-in suite.
fn builtin_case(id: &str) -> teeoracle::conform::Case {
    let case = builtin().cases.iter().find(|c| c.id == id);
    case.unwrap_or_else(|| panic!("no case {id} in the built-in suite"))
        .clone()
}

/// Whether a huffman encode case asks for the legacy writer's zero byte.
fn legacy_case(id: &str) -> bool {
    let case = builtin_case(id);
    // The legacy writer's zero byte is there only when the bits end on a
    // byte boundary.
    let zero_byte =
        matches!(&case.expected, teeoracle::conform::Expected::Bytes(b) if b.last() == Some(&0));
    zero_byte
        && matches!(&case.input, teeoracle::conform::Input::Json(v) if v.value()["flavor"] == "legacy")
}

/// `--encoder` runs the encode cases on another adapter than the decode
/// ones; JUnit XML has a test case per case and a failure per finding.
fn separate_encoder_in_junit() -> Result<(), Failed> {
    let wrong = format!(
        "{} wrong-adapter",
        std::env::current_exe().unwrap().display()
    );
    let reference = reference();
    let run = |format: &str| {
        let args = [
            "conform",
            "run",
            "--decoder",
            &reference,
            "--encoder",
            &wrong,
            "--unit",
            "huffman",
            "--format",
            format,
        ];
        Command::new(env!("CARGO_BIN_EXE_teeoracle"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    };
    let json = run("json");
    assert_eq!(json.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let cases = report["cases"].as_array().unwrap();
    // Decoding is the reference's: every decode case passes; encoding is
    // the wrong adapter's: its legacy encode cases lose their zero byte.
    let failed: Vec<&str> = cases
        .iter()
        .filter(|c| c["result"] != "pass")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(!failed.is_empty(), "the wrong adapter passed every case");
    for c in cases {
        let legacy = c["op"] == "encode" && legacy_case(c["id"].as_str().unwrap());
        let expected = if legacy { "wrong_value" } else { "pass" };
        assert_eq!(c["result"], expected, "{c:#}");
    }
    let junit = run("junit");
    assert_eq!(junit.status.code(), Some(1));
    let xml = String::from_utf8(junit.stdout).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), cases.len());
    assert_eq!(xml.matches("<failure").count(), failed.len());
    assert!(xml.contains(&format!(
        r#"<testsuite name="huffman" tests="{}" failures="{}" skipped="0">"#,
        cases.len(),
        failed.len()
    )));
    for id in failed {
        // Each failure sits in its own case's element.
        let at = xml.find(&format!(r#"name="{id}">"#)).unwrap();
        assert!(
            xml[at..]
                .split("</testcase>")
                .next()
                .unwrap()
                .contains("<failure")
        );
    }
    Ok(())
}

/// Runs teeoracle with `args`: exit code, stdout, stderr.
fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// This test binary as an adapter in `mode`.
fn me(mode: &str) -> String {
    format!("{} {mode}", std::env::current_exe().unwrap().display())
}

fn result_of<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}
