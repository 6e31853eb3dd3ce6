//! The conformance harness against two adapters: teeoracle itself (every
//! case passes, the built-in suite and its export give the same results)
//! and a deliberately wrong one, which is this test binary itself when
//! called with an adapter operation: each of its mistakes must be
//! reported as the right finding in the right case.

use libtest_mimic::{Arguments, Trial};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::Command;
use teeoracle::conform::{Unit, encode, expect};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("wrong-adapter") => return wrong_adapter(&args[2..]),
        Some("oneshot-adapter") => return oneshot_adapter(&args[2], &args[3..]),
        Some("dying-batch") => return dying_batch(&args[2..]),
        Some("runaway") => return runaway(&args[2], &args[3..]),
        Some("typo-adapter") => {
            let info = json!({"name": "typo", "version": "0", "units": {
                "packet06": {"decode": true, "fields": ["packet.flags", "packet.acks"]}}});
            return println!("{info}");
        }
        _ => {}
    }
    let tests = vec![
        Trial::test("reference_adapter_passes_every_case", reference_passes),
        Trial::test("export_runs_like_the_builtin_suite", export_matches),
        Trial::test("wrong_adapter_findings", wrong_findings),
        Trial::test("separate_encoder_in_junit", separate_encoder_junit),
        Trial::test("a_field_that_names_nothing_is_exit_2", typo_field),
        Trial::test(
            "a_case_that_compares_nothing_is_not_a_pass",
            nothing_compared,
        ),
        Trial::test("unreadable_inputs_are_exit_2", unreadable_inputs),
        Trial::test("reports_state_suite_and_coverage", reports_state_coverage),
        Trial::test("a_crash_is_not_a_rejection", crash_is_not_rejection),
        Trial::test("batch_stderr_is_kept", batch_stderr_kept),
        Trial::test("runaway_output_is_capped", runaway_capped),
        Trial::test("gen_refuses_counts_it_cannot_hold", gen_count_bound),
        Trial::test("encode_mismatch_names_the_byte", encode_mismatch_offset),
        Trial::test("wrong_value_headlines_the_basic_path", basic_path_first),
        Trial::test("case_reruns_one_case", one_case),
        Trial::test("in_process_adapter_runs_the_suite", in_process),
        Trial::test(
            "a_suite_built_for_some_units_is_the_whole_one_filtered",
            suite_of_units,
        ),
    ];
    libtest_mimic::run(&Arguments::from_args(), tests).exit();
}

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

fn reference_passes() -> Result<(), libtest_mimic::Failed> {
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

fn export_matches() -> Result<(), libtest_mimic::Failed> {
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
fn wrong_findings() -> Result<(), libtest_mimic::Failed> {
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
    SUITE.get_or_init(|| teeoracle::conform::Suite::builtin(&builtin_roots(), Vec::new()))
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
fn suite_of_units() -> Result<(), libtest_mimic::Failed> {
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
        let built = Suite::builtin_of(&builtin_roots(), Vec::new(), &units);
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

fn wrong_adapter(args: &[String]) {
    match args.first().map(String::as_str) {
        Some("info") => {
            let info = json!({"name": "wrong", "version": "0", "batch": true, "units": {
                "varint": {"decode": true, "encode": true},
                "string": {"decode": true},
                "huffman": {"decode": false, "encode": true},
                "snapshot": {"decode": true},
                "delta_apply": {"decode": true},
                "teehistorian": {"decode": true,
                    "fields": ["records[].tick", "records[].kind", "records[].uuid"]}}});
            println!("{info}");
        }
        Some("batch") => {
            let stdout = std::io::stdout();
            for line in std::io::stdin().lock().lines() {
                let request: Value = serde_json::from_str(&line.unwrap()).unwrap();
                let response = wrong_answer(&request);
                let mut out = stdout.lock();
                writeln!(out, "{response}").unwrap();
                out.flush().unwrap();
            }
        }
        _ => std::process::exit(2),
    }
}

fn wrong_answer(request: &Value) -> Value {
    let id = request["id"].clone();
    let unit = Unit::from_name(request["unit"].as_str().unwrap()).unwrap();
    if request["op"] == "encode" {
        let input = &request["input"];
        let mut bytes = encode(unit, input).unwrap();
        // Forgets the legacy writer's extra zero byte.
        if unit == Unit::Huffman && input["flavor"] == "legacy" && bytes.last() == Some(&0) {
            bytes.pop();
        }
        return json!({"id": id, "ok": true, "output_hex": hex::encode(bytes)});
    }
    let input = hex::decode(request["input_hex"].as_str().unwrap()).unwrap();
    let output = match unit {
        Unit::Varint => json!({"ints": unmasked_varints(&input)}),
        Unit::String if input == b"hi" => loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        },
        Unit::String if input.starts_with(&[0xff]) => std::process::abort(),
        Unit::DeltaApply => return json!({"id": id, "ok": false, "error": "no deltas"}),
        _ => match expect(unit, &input) {
            Ok(mut v) => {
                if unit == Unit::Snapshot {
                    let items = v["items"].as_array_mut().unwrap();
                    items.sort_by_key(|i| (i["type_id"].as_i64(), i["id"].as_i64()));
                }
                if unit == Unit::Teehistorian {
                    let records = v["records"].as_array_mut().unwrap();
                    // Loses the extensions it does not know.
                    records.retain(|r| r["kind"] != "unknown_ex");
                    recount_ticks(records);
                }
                v
            }
            Err(r) => return json!({"id": id, "ok": false, "error": r.0}),
        },
    };
    json!({"id": id, "ok": true, "output": output})
}

/// Ticks counted with the wrong implicit-tick rule: a player record
/// starts a new tick only when its client id is *below* the previous
/// one's (DDNet: at or below).
fn recount_ticks(records: &mut [Value]) {
    let (mut tick, mut last) = (0i64, None::<i64>);
    for r in records {
        match r["kind"].as_str().unwrap() {
            "player_diff" | "player_new" | "player_old" => {
                let cid = r["cid"].as_i64().unwrap();
                if last.is_none_or(|last| cid < last) {
                    tick += 1;
                }
                last = Some(cid);
            }
            "tick_skip" => {
                tick += r["dt"].as_i64().unwrap() + 1;
                last = Some(-1);
            }
            _ => {}
        }
        r["tick"] = json!(tick);
    }
}

/// Varints read without masking the fifth byte, and a cut one read as
/// far as it goes.
fn unmasked_varints(mut bytes: &[u8]) -> Vec<i32> {
    let mut out = Vec::new();
    while let Some((&first, rest)) = bytes.split_first() {
        bytes = rest;
        let sign = first & 0x40 != 0;
        let mut v = (first & 0x3f) as u32;
        let mut more = first & 0x80 != 0;
        let mut shift = 6;
        while more {
            let Some((&b, rest)) = bytes.split_first() else {
                break;
            };
            bytes = rest;
            v |= ((b & 0x7f) as u32).wrapping_shl(shift);
            more = b & 0x80 != 0 && shift < 27;
            shift += 7;
        }
        out.push(if sign { !(v as i32) } else { v as i32 });
    }
    out
}

/// `--encoder` runs the encode cases on another adapter than the decode
/// ones; JUnit XML has a test case per case and a failure per finding.
fn separate_encoder_junit() -> Result<(), libtest_mimic::Failed> {
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

/// A one-shot adapter (no batch) of varint: teeoracle's answers, and its
/// rejections in `how`: `proper` (the contract: a JSON error line, exit
/// 1), `silent` (exit 1, a message on stderr only), `exit2`.
fn oneshot_adapter(how: &str, args: &[String]) {
    if args.first().map(String::as_str) == Some("info") {
        let info = json!({"name": how, "version": "0",
            "units": {"varint": {"decode": true, "encode": true}}});
        return println!("{info}");
    }
    let mut input = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut input).unwrap();
    let unit = Unit::from_name(&args[1]).unwrap();
    let answer = match args[0].as_str() {
        "decode" => expect(unit, &input).map(|v| format!("{v}\n").into_bytes()),
        _ => encode(unit, &serde_json::from_slice(&input).unwrap()),
    };
    match (answer, how) {
        (Ok(out), _) => std::io::stdout().write_all(&out).unwrap(),
        (Err(r), "proper") => {
            println!("{}", json!({"error": r.0}));
            std::process::exit(1)
        }
        (Err(r), "silent") => {
            eprintln!("error: {}", r.0);
            std::process::exit(1)
        }
        (Err(_), _) => std::process::exit(2),
    }
}

/// A batch adapter that dies with a traceback on its first request.
fn dying_batch(args: &[String]) {
    if args.first().map(String::as_str) == Some("info") {
        let info = json!({"name": "dying", "version": "0", "batch": true,
            "units": {"varint": {"decode": true}}});
        return println!("{info}");
    }
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    eprintln!(
        "Traceback (most recent call last):\n  File \"adapter.py\", line 7\nValueError: boom"
    );
    std::process::exit(1);
}

/// An adapter that never stops printing (no newline) when asked to
/// decode, in batch mode or not.
fn runaway(how: &str, args: &[String]) {
    if args.first().map(String::as_str) == Some("info") {
        let info = json!({"name": "runaway", "version": "0", "batch": how == "batch",
            "units": {"varint": {"decode": true}}});
        return println!("{info}");
    }
    let chunk = vec![b'a'; 1 << 16];
    let mut out = std::io::stdout().lock();
    while out.write_all(&chunk).is_ok() {}
}

fn result_of<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

/// A declared path that names nothing (a typo) stops the run before any
/// case, naming the nearest real paths.
fn typo_field() -> Result<(), libtest_mimic::Failed> {
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
fn nothing_compared() -> Result<(), libtest_mimic::Failed> {
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

fn unreadable_inputs() -> Result<(), libtest_mimic::Failed> {
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
fn reports_state_coverage() -> Result<(), libtest_mimic::Failed> {
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
fn crash_is_not_rejection() -> Result<(), libtest_mimic::Failed> {
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

fn batch_stderr_kept() -> Result<(), libtest_mimic::Failed> {
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
fn runaway_capped() -> Result<(), libtest_mimic::Failed> {
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

fn gen_count_bound() -> Result<(), libtest_mimic::Failed> {
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
fn encode_mismatch_offset() -> Result<(), libtest_mimic::Failed> {
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
fn basic_path_first() -> Result<(), libtest_mimic::Failed> {
    use teeoracle::conform::{self, Answer, Info, Input, Suite};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let roots: Vec<_> = ["corpus"].iter().map(|r| root.join(r)).collect();
    let suite = Suite::builtin(&roots, Vec::new()).only(&[Unit::DeltaApply]);
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
fn one_case() -> Result<(), libtest_mimic::Failed> {
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
fn in_process() -> Result<(), libtest_mimic::Failed> {
    use teeoracle::conform::{self, Suite};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite =
        Suite::builtin(&[root.join("corpus")], Vec::new()).only(&[Unit::Varint, Unit::Huffman]);
    let mut adapter = conform::reference();
    let report = conform::run(&suite, &mut adapter, None).unwrap();
    assert!(!report.failed, "{:?}", report.summary);
    assert_eq!(report.summary.total.get("pass"), Some(&suite.cases.len()));
    Ok(())
}
