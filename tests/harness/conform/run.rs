//! `conform run` against adapters that misbehave and inputs that are
//! wrong: each is named, with the right exit code; what a report says of
//! the suite and its coverage; `--case`; an adapter in process.

use super::{builtin_case, cli, me, reference, result_of, teeoracle};
use crate::common::Test;
use libtest_mimic::Failed;
use serde_json::{Value, json};
use teeoracle::conform::{Unit, expect};

pub const TESTS: &[Test] = tests![
    a_field_that_names_nothing_is_exit_2,
    a_case_that_compares_nothing_is_not_a_pass,
    unreadable_inputs_are_exit_2,
    reports_state_suite_and_coverage,
    a_crash_is_not_a_rejection,
    batch_stderr_is_kept,
    runaway_output_is_capped,
    gen_refuses_counts_it_cannot_hold,
    encode_mismatch_names_the_byte,
    wrong_value_headlines_the_basic_path,
    case_reruns_one_case,
    in_process_adapter_runs_the_suite,
];

/// A declared path that names nothing (a typo) stops the run before any
/// case, naming the nearest real paths.
fn a_field_that_names_nothing_is_exit_2() -> Result<(), Failed> {
    let typo = me("typo-adapter");
    let (code, out, err) = cli(&["conform", "run", "--decoder", &typo, "--unit", "packet06"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("`packet.acks`"), "{err}");
    assert!(err.contains("`packet.ack`"), "the nearest path: {err}");
    // `packet.flags` is real: it is not named.
    assert!(!err.contains("field `packet.flags`"), "{err}");
    assert!(out.is_empty(), "{out}");
    Ok(())
}

/// A case whose expected JSON the fields do not reach is `not_compared`.
fn a_case_that_compares_nothing_is_not_a_pass() -> Result<(), Failed> {
    use teeoracle::conform::{self, Case, CaseVerdict, Info, Suite, UnitInfo};
    let suite = Suite {
        version: 0,
        seed: 0,
        cases: vec![
            Case::decode("varint/t/empty".into(), Unit::Varint, vec![], "no ints"),
            Case::decode("varint/t/one".into(), Unit::Varint, vec![1], "one int"),
        ],
    };
    let mut info = Info::new("elements", "0");
    let fields = Some(vec!["ints[]".to_string()]);
    info.units.insert(
        "varint".into(),
        UnitInfo {
            decode: true,
            encode: false,
            fields,
        },
    );
    let mut adapter = conform::InProcess::new(info, conform::reference_answer);
    let report = conform::run(&suite, &mut adapter, None).unwrap();
    let results: Vec<CaseVerdict> = report.cases.iter().map(|o| o.result).collect();
    assert_eq!(results, [CaseVerdict::NotCompared, CaseVerdict::Pass]);
    assert_eq!(report.summary.total.get("not_compared"), Some(&1));
    assert!(
        !report.failed,
        "a run with no finding failed: {:?}",
        report.summary
    );
    Ok(())
}

fn unreadable_inputs_are_exit_2() -> Result<(), Failed> {
    let reference = reference();
    for args in [
        ["--corpus", "/nonexistent/corpus"],
        ["--suite", "/nonexistent/suite"],
    ] {
        let mut run = vec![
            "conform",
            "run",
            "--decoder",
            &reference,
            "--unit",
            "varint",
        ];
        run.extend(args);
        let (code, out, err) = cli(&run);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("/nonexistent/"), "{err}");
    }
    // An adapter that cannot start is not a finding either.
    let (code, _, err) = cli(&["conform", "run", "--decoder", "/nonexistent/adapter"]);
    assert_eq!(code, 2, "{err}");
    Ok(())
}

/// Every form says which suite ran, how many cases of each unit, and what
/// was compared and what was not.
fn reports_state_suite_and_coverage() -> Result<(), Failed> {
    let decoder = me("wrong-adapter");
    let base = [
        "conform",
        "run",
        "--decoder",
        &decoder,
        "--unit",
        "teehistorian",
        "--unit",
        "varint",
    ];
    let (_, json) = teeoracle(&[&base[..], &["--format", "json"]].concat());
    let suite = &json["suite"];
    assert_eq!(suite["seed"], 0, "{suite}");
    assert!(suite["version"].as_u64().unwrap() >= 3, "{suite}");
    let th = suite["units"]["teehistorian"].as_u64().unwrap();
    let varint = suite["units"]["varint"].as_u64().unwrap();
    assert_eq!(suite["cases"].as_u64().unwrap(), th + varint, "{suite}");
    let cov = &json["coverage"]["teehistorian"];
    assert_eq!(cov["fields"][0], "records[].tick", "{cov}");
    let left: Vec<&str> = cov["not_compared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    for p in ["header", "world", "records[].cid"] {
        assert!(left.contains(&p), "{p} not in {left:?}");
    }
    assert_eq!(json["coverage"]["varint"]["fields"], Value::Null);
    let (_, text, _) = cli(&[&base[..], &["--format", "text"]].concat());
    let head = format!(
        "suite: version {}, seed 0, {} case(s)",
        suite["version"],
        th + varint
    );
    assert!(text.starts_with(&head), "{text}");
    assert!(
        text.contains("teehistorian: 1") && text.contains("not compared: "),
        "{text}"
    );
    let (_, xml, _) = cli(&[&base[..], &["--format", "junit"]].concat());
    assert!(
        xml.contains(r#"<property name="suite_version" value=""#),
        "{xml}"
    );
    assert!(
        xml.contains(&format!(r#"<property name="cases" value="{th}"/>"#)),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<property name="compared" value=""#),
        "{xml}"
    );
    Ok(())
}

/// Exit 1 without the JSON error line, or another exit code, is a crash:
/// a finding on must-reject cases too.
fn a_crash_is_not_a_rejection() -> Result<(), Failed> {
    let run = |how: &str| {
        let decoder = me(&format!("oneshot-adapter {how}"));
        let args = [
            "conform",
            "run",
            "--format",
            "json",
            "--decoder",
            &decoder,
            "--unit",
            "varint",
        ];
        teeoracle(&args)
    };
    let (code, report) = run("proper");
    assert_eq!(
        (code, &report["summary"]["findings"]),
        (0, &json!(0)),
        "{:#}",
        report["summary"]
    );
    let cut = result_of(&report, "varint/vectors/cut");
    assert_eq!(cut["result"], "pass", "{cut:#}");
    for how in ["silent", "exit2"] {
        let (code, report) = run(how);
        assert_eq!(code, 1, "{how}");
        let cut = result_of(&report, "varint/vectors/cut");
        assert_eq!(cut["class"], "must_reject");
        assert_eq!(cut["result"], "crash", "{how}: {cut:#}");
        if how == "silent" {
            assert!(
                cut["stderr"].as_str().unwrap().contains("error: "),
                "{cut:#}"
            );
            assert!(
                cut["detail"].as_str().unwrap().contains("JSON error"),
                "{cut:#}"
            );
        }
        // The cases it answers still pass.
        assert_eq!(result_of(&report, "varint/vectors/zero")["result"], "pass");
    }
    Ok(())
}

fn batch_stderr_is_kept() -> Result<(), Failed> {
    let decoder = me("dying-batch");
    let args = [
        "conform",
        "run",
        "--format",
        "json",
        "--decoder",
        &decoder,
        "--unit",
        "varint",
    ];
    let (code, report) = teeoracle(&args);
    assert_eq!(code, 1);
    let zero = result_of(&report, "varint/vectors/zero");
    assert_eq!(zero["result"], "crash");
    let stderr = zero["stderr"].as_str().unwrap_or_default();
    assert!(stderr.contains("ValueError: boom"), "{zero:#}");
    let (_, text, _) = cli(&["conform", "run", "--decoder", &decoder, "--unit", "varint"]);
    assert!(text.contains("    ValueError: boom"), "{text}");
    Ok(())
}

/// An adapter that prints without end is stopped at the cap: its case is
/// a crash, and the run goes on.
fn runaway_output_is_capped() -> Result<(), Failed> {
    for how in ["oneshot", "batch"] {
        let decoder = me(&format!("runaway {how}"));
        let started = std::time::Instant::now();
        let args = [
            "conform",
            "run",
            "--format",
            "json",
            "--decoder",
            &decoder,
            "--unit",
            "varint",
            "--timeout",
            "30",
        ];
        let (code, report) = teeoracle(&args);
        assert_eq!(code, 1);
        let zero = result_of(&report, "varint/vectors/zero");
        assert_eq!(zero["result"], "crash", "{how}: {zero:#}");
        let detail = zero["detail"].as_str().unwrap();
        assert!(
            detail.contains("bytes") && detail.contains("stopped"),
            "{detail}"
        );
        // What is shown of its output is bounded.
        assert!(zero["printed"].as_str().unwrap().len() < 2048, "{how}");
        assert!(
            started.elapsed().as_secs() < 120,
            "{how}: {:?}",
            started.elapsed()
        );
    }
    Ok(())
}

fn gen_refuses_counts_it_cannot_hold() -> Result<(), Failed> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = [
        "gen",
        "varint",
        "--seed",
        "1",
        "--count",
        "1000000000",
        "-o",
        out,
    ];
    let (code, _, err) = cli(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--count"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
    Ok(())
}

/// An encode mismatch: the offset of the first differing byte and a few
/// bytes around it, not the whole strings.
fn encode_mismatch_names_the_byte() -> Result<(), Failed> {
    let wrong = me("wrong-adapter");
    let reference = reference();
    let args = [
        "conform",
        "run",
        "--format",
        "json",
        "--decoder",
        &reference,
        "--encoder",
        &wrong,
        "--unit",
        "huffman",
    ];
    let (_, report) = teeoracle(&args);
    let wrong: Vec<&Value> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["result"] == "wrong_value")
        .collect();
    assert!(!wrong.is_empty(), "no wrong_value finding");
    for c in wrong {
        let id = c["id"].as_str().unwrap();
        let case = builtin_case(id);
        let teeoracle::conform::Expected::Bytes(want) = &case.expected else {
            panic!("{id}")
        };
        // The wrong encoder drops the last (zero) byte.
        assert_eq!(c["offset"], json!(want.len() - 1), "{c:#}");
        let start = c["window_start"].as_u64().unwrap() as usize;
        assert_eq!(c["expected"], json!(hex::encode(&want[start..])), "{c:#}");
        assert!(c["expected"].as_str().unwrap().len() <= 34, "{c:#}");
    }
    let (_, xml, _) = cli(&[&args[..2], &args[4..], &["--format", "junit"]].concat());
    assert!(xml.contains(r#"message="wrong_value at byte "#), "{xml}");
    assert!(xml.contains(", got "), "{xml}");
    Ok(())
}

/// A snapshot with an item left in: the item is the headline, not the
/// CRC and size that follow from it; those are listed.
fn wrong_value_headlines_the_basic_path() -> Result<(), Failed> {
    use teeoracle::conform::{self, Answer, Info, Input, Suite};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let roots: Vec<_> = ["corpus"].iter().map(|r| root.join(r)).collect();
    let suite = Suite::builtin(&roots, Vec::new())
        .unwrap()
        .only(&[Unit::DeltaApply]);
    let kept = |case: &teeoracle::conform::Case| {
        let Input::Bytes(b) = &case.input else {
            return Answer::Rejected("no encoder".into());
        };
        match expect(case.unit, b) {
            Ok(mut v) => {
                // A delta bug that keeps a deleted item.
                let items = v["items"].as_array_mut().unwrap();
                if let Some(first) = items.first().cloned() {
                    let mut ghost = first;
                    ghost["id"] = json!(9999);
                    items.push(ghost);
                    v["crc"] = json!(v["crc"].as_i64().unwrap() + 1);
                    v["size"] = json!(v["size"].as_i64().unwrap() + 8);
                }
                Answer::Decoded(v)
            }
            Err(r) => Answer::Rejected(r.0),
        }
    };
    let info = Info::new("ghost", "0").unit(Unit::DeltaApply, false);
    let mut adapter = conform::InProcess::new(info, kept);
    let report = conform::run(&suite, &mut adapter, None).unwrap();
    let wrong: Vec<_> = report
        .cases
        .iter()
        .filter(|o| o.result == conform::CaseVerdict::WrongValue)
        .collect();
    assert!(!wrong.is_empty(), "no wrong_value finding");
    for o in wrong {
        let path = o.path.as_deref().unwrap();
        assert!(path.starts_with("items["), "{o:#?}");
        assert!(o.other_paths.iter().any(|p| p == "crc"), "{o:#?}");
        assert!(o.other_paths.iter().any(|p| p == "size"), "{o:#?}");
        assert_eq!(o.differences, 1 + o.other_paths.len());
    }
    Ok(())
}

/// `--case ID`: one case, with its input, the expected output and the
/// adapter's answer.
fn case_reruns_one_case() -> Result<(), Failed> {
    let wrong = me("wrong-adapter");
    let args = [
        "conform",
        "run",
        "--decoder",
        &wrong,
        "--case",
        "varint/vectors/cut",
    ];
    let (code, out, err) = cli(&args);
    assert_eq!(code, 1, "{out}{err}");
    for want in [
        "case: varint/vectors/cut",
        "class: must_reject",
        "input: 1 byte(s), hex:\n     0: 80",
        "expected: a rejection",
        "answer (JSON):",
        "accepted_must_reject varint/vectors/cut",
        "suite: version",
    ] {
        assert!(out.contains(want), "{want:?} not in:\n{out}");
    }
    let (code, _, err) = cli(&[
        "conform",
        "run",
        "--decoder",
        &wrong,
        "--case",
        "varint/nope",
    ]);
    assert_eq!(code, 2, "{err}");
    Ok(())
}

/// The library runs the suite in process: teeoracle's own answers pass.
fn in_process_adapter_runs_the_suite() -> Result<(), Failed> {
    use teeoracle::conform::{self, Suite};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = Suite::builtin(&[root.join("corpus")], Vec::new())
        .unwrap()
        .only(&[Unit::Varint, Unit::Huffman]);
    let mut adapter = conform::reference();
    let report = conform::run(&suite, &mut adapter, None).unwrap();
    assert!(!report.failed, "{:?}", report.summary);
    assert_eq!(report.summary.total.get("pass"), Some(&suite.cases.len()));
    Ok(())
}
