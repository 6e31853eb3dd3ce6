//! The adapters this test binary plays when it is called back with an
//! adapter operation: a wrong one whose every mistake must become the
//! right finding, and ones that reject badly, die or never stop printing.

use serde_json::{Value, json};
use std::io::{BufRead, Write};
use teeoracle::conform::{Unit, encode, expect};

/// The adapter operation this process was called back for, if any (this
/// binary is the wrong adapter of these tests): runs it and returns true.
pub fn adapt_if_called_back() -> bool {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("wrong-adapter") => wrong_adapter(&args[2..]),
        Some("oneshot-adapter") => oneshot_adapter(&args[2], &args[3..]),
        Some("dying-batch") => dying_batch(&args[2..]),
        Some("runaway") => runaway(&args[2], &args[3..]),
        Some("typo-adapter") => {
            let info = json!({"name": "typo", "version": "0", "units": {
                "packet06": {"decode": true, "fields": ["packet.flags", "packet.acks"]}}});
            println!("{info}");
        }
        _ => return false,
    }
    true
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
