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
    if args.get(1).map(String::as_str) == Some("wrong-adapter") {
        wrong_adapter(&args[2..]);
        return;
    }
    let tests = vec![
        Trial::test("reference_adapter_passes_every_case", reference_passes),
        Trial::test("export_runs_like_the_builtin_suite", export_matches),
        Trial::test("wrong_adapter_findings", wrong_findings),
        Trial::test("separate_encoder_in_junit", separate_encoder_junit),
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
    assert!(out.status.success());
    let decoder = reference();
    let mut run = vec!["conform", "run", "--format", "json", "--decoder", &decoder];
    run.extend(UNITS);
    let (_, builtin) = teeoracle(&run);
    run.extend(["--suite", path]);
    let (code, exported) = teeoracle(&run);
    assert_eq!(code, 0);
    assert_eq!(builtin["cases"], exported["cases"]);
    assert_eq!(builtin["suite"], exported["suite"]);
    assert!(builtin["cases"].as_array().unwrap().len() > 100);
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
            "wrong_value" => assert!(c["path"].as_str().unwrap().starts_with("records["), "{c:#}"),
            other => panic!("{other}: {c:#}"),
        }
    }
    assert_eq!(
        report["summary"]["findings"].as_u64().unwrap() as usize,
        cases
            .iter()
            .filter(|c| !matches!(c["result"].as_str(), Some("pass" | "not_covered")))
            .count()
    );
    Ok(())
}

/// Whether a huffman encode case asks for the legacy writer's zero byte, from the
/// built-in suite as `conform run` builds it (the same corpus folders).
fn legacy_case(id: &str) -> bool {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let roots: Vec<_> = ["corpus", "../shared/corpus/upstream"]
        .iter()
        .map(|r| root.join(r))
        .filter(|p| p.is_dir())
        .collect();
    thread_local! {
        static SUITE: std::cell::OnceCell<teeoracle::conform::Suite> = const { std::cell::OnceCell::new() };
    }
    SUITE.with(|s| {
        let suite = s.get_or_init(|| teeoracle::conform::Suite::builtin(&roots, Vec::new()));
        let case = suite.cases.iter().find(|c| c.id == id).unwrap();
        // The legacy writer's zero byte is there only when the bits end
        // on a byte boundary.
        let zero_byte = matches!(&case.expected, teeoracle::conform::Expected::Bytes(b) if b.last() == Some(&0));
        zero_byte
            && matches!(&case.input, teeoracle::conform::Input::Json(v) if v["flavor"] == "legacy")
    })
}

/// A batch adapter with the mistakes implementations make.
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
    assert!(!failed.is_empty());
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
