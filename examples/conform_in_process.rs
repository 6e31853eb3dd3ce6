//! The conformance suite run in process, as a Rust implementation runs it
//! from its own `cargo test`: libtw2's Huffman coder (the crates.io package
//! `pre-rfc3243-libtw2-huffman`, a dev-dependency) answers the huffman
//! unit's decode and encode cases through [`InProcess`], with no adapter
//! program and no JSON over a pipe.
//!
//! ```text
//! cargo run --release --example conform_in_process
//! ```
//!
//! It prints the text report and exits 1 when a case is a finding, 0 when
//! none is (libtw2's coder passes all 424 cases of suite version 3, as its
//! row in the conformance table (docs/conform.md) says).

use libtw2_huffman::instances::TEEWORLDS;
use serde_json::json;
use std::process::ExitCode;
use teeoracle::conform::{self, Answer, Case, InProcess, Info, Input, Op, Suite, Unit};

/// One case, answered by libtw2: decode gives the bytes and which of its
/// two writers makes exactly the input; encode uses the writer asked for.
fn libtw2(case: &Case) -> Answer {
    match (&case.op, &case.input) {
        (Op::Decode, Input::Bytes(input)) => match libtw2_huffman::decompress(input) {
            Ok(raw) => {
                let flavor = if libtw2_huffman::compress(&raw) == *input {
                    "ddnet"
                } else if legacy(&raw).as_deref() == Ok(&input[..]) {
                    "legacy"
                } else {
                    "none"
                };
                Answer::Decoded(json!({"hex": hex::encode(raw), "flavor": flavor}))
            }
            Err(e) => Answer::Rejected(format!("{e:?}")),
        },
        (Op::Encode, Input::Json(v)) => {
            let v = v.value();
            let Some(Ok(raw)) = v["hex"].as_str().map(hex::decode) else {
                return Answer::Rejected("no `hex`".into());
            };
            match v["flavor"].as_str().unwrap_or("ddnet") {
                "ddnet" => Answer::Encoded(libtw2_huffman::compress(&raw)),
                "legacy" => legacy(&raw).map_or_else(Answer::Rejected, Answer::Encoded),
                other => Answer::Rejected(format!("no writer for flavor {other:?}")),
            }
        }
        _ => Answer::Rejected("not a huffman case".into()),
    }
}

/// libtw2's legacy writer (the extra zero byte on a byte boundary).
fn legacy(raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(raw.len() * 3 + 4);
    TEEWORLDS
        .compress_bug(raw, &mut out)
        .map_err(|e| format!("{e:?}"))?;
    Ok(out)
}

/// The huffman unit of the bundled corpus's suite, answered by libtw2.
pub fn run() -> Result<conform::Report, conform::RunError> {
    // The bundled corpus's vectors and files, as `conform run` uses them.
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let suite = Suite::builtin(&[corpus], Vec::new())
        .map_err(|e| conform::RunError(e.to_string()))?
        .only(&[Unit::Huffman]);
    let info = Info::new("libtw2-huffman (in process)", "0.2").unit(Unit::Huffman, true);
    let mut decoder = InProcess::new(info.clone(), libtw2);
    let mut encoder = InProcess::new(info, libtw2);
    conform::run(&suite, &mut decoder, Some(&mut encoder))
}

fn main() -> ExitCode {
    let report = match run() {
        Ok(report) => report,
        Err(e) => {
            eprintln!("conform: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout().lock();
    if let Err(e) = report.write_text(&mut out) {
        eprintln!("conform: {e}");
        return ExitCode::from(2);
    }
    match report.failed {
        true => ExitCode::from(1),
        false => ExitCode::SUCCESS,
    }
}
