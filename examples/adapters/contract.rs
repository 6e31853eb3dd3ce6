//! The adapter side of `teeoracle conform` for the Rust examples
//! (`examples/adapter_*.rs` include this file with `#[path]`); the contract is
//! src/schema.md's "conform" section. Each adapter lists its units with a
//! decoder (bytes → the unit's JSON) and an encoder (JSON → bytes); `run`
//! serves `info`, `decode UNIT`, `encode UNIT` and `batch`.
//!
//! An `Err` is a rejection. A panic inside the library is a crash, not a
//! rejection: the panic hook aborts the process (SIGABRT), which the harness
//! reports as `crash`.

use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

use serde_json::{Value, json};

/// Bytes → the unit's JSON, or why the implementation rejects them.
pub type Decoder = fn(&[u8]) -> Result<Value, String>;
/// The unit's JSON → bytes, or why the implementation rejects it.
pub type Encoder = fn(&Value) -> Result<Vec<u8>, String>;

/// One unit an adapter supports.
pub struct Unit {
    pub name: &'static str,
    pub decode: Option<Decoder>,
    pub encode: Option<Encoder>,
    /// The JSON paths it emits; `None`: all of them.
    pub fields: Option<&'static [&'static str]>,
}

/// Serves the contract for `name` `version` with `units`.
pub fn run(name: &str, version: &str, units: &[Unit]) -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("panic in the library: {info}");
        std::process::abort();
    }));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args[..] {
        ["info"] => {
            let mut described = serde_json::Map::new();
            for u in units {
                let mut d = json!({"decode": u.decode.is_some(), "encode": u.encode.is_some()});
                if let Some(fields) = u.fields {
                    d["fields"] = json!(fields);
                }
                described.insert(u.name.to_owned(), d);
            }
            let info = json!({"name": name, "version": version, "batch": true, "units": described});
            println!("{info}");
            ExitCode::SUCCESS
        }
        [op @ ("decode" | "encode"), unit] => {
            let mut input = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut input) {
                eprintln!("reading stdin: {e}");
                return ExitCode::from(2);
            }
            let result = if op == "decode" {
                decode(units, unit, &input).map(|v| format!("{v}\n").into_bytes())
            } else {
                serde_json::from_slice(&input)
                    .map_err(|e| format!("input is not JSON: {e}"))
                    .and_then(|v| encode(units, unit, &v))
            };
            match result {
                Ok(out) => {
                    std::io::stdout().write_all(&out).expect("writing stdout");
                    ExitCode::SUCCESS
                }
                // A rejection by the contract: one JSON line with
                // `error` on stdout, exit 1 (anything else is a crash).
                Err(why) => {
                    println!("{}", json!({ "error": why }));
                    eprintln!("{why}");
                    ExitCode::FAILURE
                }
            }
        }
        ["batch"] => batch(units),
        _ => {
            eprintln!("usage: ADAPTER info | decode UNIT | encode UNIT | batch");
            ExitCode::from(2)
        }
    }
}

fn find<'u>(units: &'u [Unit], name: &str) -> Option<&'u Unit> {
    units.iter().find(|u| u.name == name)
}

fn decode(units: &[Unit], unit: &str, input: &[u8]) -> Result<Value, String> {
    let f = find(units, unit).and_then(|u| u.decode);
    f.ok_or_else(|| format!("decode {unit}: not supported by this adapter"))?(input)
}

fn encode(units: &[Unit], unit: &str, input: &Value) -> Result<Vec<u8>, String> {
    let f = find(units, unit).and_then(|u| u.encode);
    f.ok_or_else(|| format!("encode {unit}: not supported by this adapter"))?(input)
}

fn batch(units: &[Unit]) -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("reading stdin");
        if line.trim().is_empty() {
            continue;
        }
        let req: Value = serde_json::from_str(&line).expect("a request is one JSON object");
        let (id, unit) = (req["id"].clone(), req["unit"].as_str().unwrap_or(""));
        let resp = match req["op"].as_str() {
            Some("decode") => hex::decode(req["input_hex"].as_str().unwrap_or(""))
                .map_err(|e| format!("input_hex: {e}"))
                .and_then(|input| decode(units, unit, &input))
                .map(|v| json!({"id": id, "ok": true, "output": v})),
            Some("encode") => encode(units, unit, &req["input"])
                .map(|b| json!({"id": id, "ok": true, "output_hex": hex::encode(b)})),
            op => Err(format!("unknown op {op:?}")),
        };
        let resp = resp.unwrap_or_else(|why| json!({"id": id, "ok": false, "error": why}));
        writeln!(out, "{resp}").expect("writing stdout");
        out.flush().expect("writing stdout");
    }
    ExitCode::SUCCESS
}
