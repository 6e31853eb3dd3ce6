//! `teeoracle conform ...`: run the conformance suite against another
//! implementation's adapter, export the suite, print what an adapter must
//! print, and act as the reference adapter.

use super::Failure;
use super::output::{read_raw, stdout, write_json_doc};
use clap::{Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use teeoracle::conform::{
    self, Case, Class, Expected, Input, Op, Process, Rejection, StartError, Suite, Unit, UnitInfo,
    encode, expect,
};

#[derive(Subcommand, Debug)]
pub enum ConformCommand {
    /// Run the suite against an adapter; exit 1 if any case is a finding.
    Run {
        /// The adapter that decodes (a command line split at spaces).
        #[arg(long)]
        decoder: String,
        /// The adapter for encode cases (default: the decoder).
        #[arg(long)]
        encoder: Option<String>,
        /// Only these units (repeatable; default: all).
        #[arg(long = "unit", value_parser = parse_unit)]
        units: Vec<Unit>,
        /// Run an exported suite (`conform export`) instead of the
        /// built-in one.
        #[arg(long)]
        suite: Option<PathBuf>,
        /// The corpus folder of the built-in suite (default: `corpus`
        /// and `../shared/corpus/upstream` when they exist, here or in
        /// the source tree teeoracle was built from).
        #[arg(long)]
        corpus: Vec<PathBuf>,
        /// `text`, `json` (a `conform_run` document) or `junit` (XML).
        #[arg(long, value_enum, default_value_t = RunFormat::Text)]
        format: RunFormat,
        /// Seconds each case may take.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
        /// Adapter processes run at once.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
    },
    /// Print the JSON an adapter must print for FILE (`-`: stdin).
    Expect {
        /// The unit (`varint`, `packet06`, `delta_apply`, ...).
        #[arg(value_parser = parse_unit)]
        unit: Unit,
        /// The input bytes.
        file: PathBuf,
    },
    /// Write the suite as plain files: inputs, expected outputs, and a
    /// manifest.
    Export {
        /// The folder to write (created).
        dir: PathBuf,
        /// Only these units (repeatable; default: all).
        #[arg(long = "unit", value_parser = parse_unit)]
        units: Vec<Unit>,
        /// The corpus folders (as for `run`).
        #[arg(long)]
        corpus: Vec<PathBuf>,
    },
    /// teeoracle itself as an adapter (the reference): `info`, `decode
    /// UNIT`, `encode UNIT`, `batch`.
    Adapter {
        /// `info`, `decode`, `encode` or `batch`.
        op: String,
        /// The unit, for `decode` and `encode`.
        #[arg(value_parser = parse_unit)]
        unit: Option<Unit>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    /// A line per finding and a summary.
    Text,
    /// One `conform_run` document.
    Json,
    /// JUnit XML: a test suite per unit, a test case per case.
    Junit,
}

fn parse_unit(s: &str) -> Result<Unit, String> {
    Unit::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Unit::ALL.iter().map(|u| u.name()).collect();
        format!("no unit {s:?} (units: {})", names.join(", "))
    })
}

pub fn run(cmd: ConformCommand) -> Result<(), Failure> {
    match cmd {
        ConformCommand::Run {
            decoder,
            encoder,
            units,
            suite,
            corpus,
            format,
            timeout,
            jobs,
        } => {
            let suite = match suite {
                Some(dir) => load_suite(&dir)?.only(&units),
                None => builtin(&corpus).only(&units),
            };
            let limit = Duration::from_secs_f64(timeout.max(0.001));
            run_suite(
                &suite,
                &decoder,
                encoder.as_deref(),
                format,
                limit,
                jobs.max(1),
            )
        }
        ConformCommand::Expect { unit, file } => {
            let input = read_raw(&file)?;
            let value = expect(unit, &input)
                .map_err(|r| Failure::bad(format!("{}: rejected: {r}", file.display())))?;
            let mut out = stdout();
            serde_json::to_writer(&mut out, &value).map_err(std::io::Error::from)?;
            writeln!(out)?;
            out.flush()?;
            Ok(())
        }
        ConformCommand::Export { dir, units, corpus } => {
            export(&builtin(&corpus).only(&units), &dir)
        }
        ConformCommand::Adapter { op, unit } => adapter(&op, unit),
    }
}

/// The built-in suite from `corpus` folders (default: `corpus` and the
/// shared upstream corpus beside it, when they exist, in the current
/// folder or else in the source tree teeoracle was built from), and the
/// generated cases.
fn builtin(corpus: &[PathBuf]) -> Suite {
    let roots = if corpus.is_empty() {
        let default = |base: &Path| -> Vec<PathBuf> {
            ["corpus", "../shared/corpus/upstream"]
                .into_iter()
                .map(|p| base.join(p))
                .filter(|p| p.is_dir())
                .collect()
        };
        let here = default(Path::new(""));
        let roots = match here.is_empty() {
            true => default(Path::new(env!("CARGO_MANIFEST_DIR"))),
            false => here,
        };
        if roots.is_empty() {
            eprintln!(
                "teeoracle: note: no corpus folder found, so the suite has only its \
                 vectors and generated cases (--corpus DIR names one)"
            );
        }
        roots
    } else {
        corpus.to_vec()
    };
    Suite::builtin(&roots, generated())
}

/// Generated cases per unit and kind in the built-in suite.
const GENERATED_PER_KIND: usize = 20;

/// The generators' cases for the suite, from its seed: each is expected
/// and classed by teeoracle like every other case, with the generator's
/// reason.
fn generated() -> Vec<Case> {
    use teeoracle::generate::{self, Kind};
    let mut cases = Vec::new();
    for unit in generate::UNITS {
        for kind in [Kind::Valid, Kind::Edge, Kind::Malformed] {
            for g in generate::cases(unit, teeoracle::conform::SEED, GENERATED_PER_KIND, kind) {
                let id = format!("{unit}/gen/{}", g.name);
                let reason = format!("generated: {}", g.reason);
                cases.push(Case::decode(id, unit, g.bytes, &reason));
            }
        }
    }
    cases
}

// ---- the reference adapter ----

fn adapter(op: &str, unit: Option<Unit>) -> Result<(), Failure> {
    let mut out = stdout();
    let need_unit = || unit.ok_or_else(|| Failure::Usage(format!("`adapter {op}` needs a UNIT")));
    match op {
        "info" => {
            let units: BTreeMap<&str, UnitInfo> = Unit::ALL
                .into_iter()
                .map(|u| {
                    let info = UnitInfo {
                        decode: true,
                        encode: u.encodes(),
                        fields: None,
                    };
                    (u.name(), info)
                })
                .collect();
            let info = serde_json::json!({
                "name": "teeoracle", "version": env!("CARGO_PKG_VERSION"),
                "batch": true, "units": units,
            });
            writeln!(out, "{info}")?;
        }
        "decode" => {
            let input = read_raw(Path::new("-"))?;
            let value = expect(need_unit()?, &input).map_err(Failure::bad)?;
            writeln!(out, "{value}")?;
        }
        "encode" => {
            let input = read_raw(Path::new("-"))?;
            let value: Value = serde_json::from_slice(&input)
                .map_err(|e| Failure::bad(format!("not JSON: {e}")))?;
            out.write_all(&encode(need_unit()?, &value).map_err(Failure::bad)?)?;
        }
        "batch" => {
            for line in std::io::stdin().lock().lines() {
                let response = batch_answer(&line?);
                writeln!(out, "{response}")?;
                out.flush()?;
            }
        }
        _ => return Err(Failure::Usage(format!("no adapter operation {op:?}"))),
    }
    out.flush()?;
    Ok(())
}

fn batch_answer(line: &str) -> Value {
    let request: Value = serde_json::from_str(line).unwrap_or(Value::Null);
    let id = request["id"].clone();
    let unit = request["unit"].as_str().and_then(Unit::from_name);
    let answer = match (request["op"].as_str(), unit) {
        (Some("decode"), Some(unit)) => request["input_hex"]
            .as_str()
            .and_then(|h| hex::decode(h).ok())
            .ok_or_else(|| Rejection("no input_hex".into()))
            .and_then(|input| expect(unit, &input))
            .map(|v| serde_json::json!({"id": id, "ok": true, "output": v})),
        (Some("encode"), Some(unit)) => encode(unit, &request["input"])
            .map(|b| serde_json::json!({"id": id, "ok": true, "output_hex": hex::encode(b)})),
        _ => Err(Rejection(format!("not a request: {line}"))),
    };
    answer.unwrap_or_else(|r| serde_json::json!({"id": id, "ok": false, "error": r.0}))
}

// ---- export and load ----

/// A `conform_suite` manifest.
#[derive(Serialize, Deserialize)]
struct Manifest {
    suite_version: u32,
    seed: u64,
    cases: Vec<ManifestCase>,
}

#[derive(Serialize, Deserialize)]
struct ManifestCase {
    id: String,
    unit: Unit,
    op: Op,
    class: Class,
    reason: String,
    input: String,
    expected: Option<String>,
}

fn export(suite: &Suite, dir: &Path) -> Result<(), Failure> {
    let write = |name: &str, bytes: &[u8]| -> Result<(), Failure> {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Failure::bad(format!("{}: {e}", parent.display())))?;
        }
        std::fs::write(&path, bytes).map_err(|e| Failure::bad(format!("{}: {e}", path.display())))
    };
    let mut cases = Vec::new();
    for c in &suite.cases {
        let (input, input_bytes) = match &c.input {
            Input::Bytes(b) => (format!("{}.in", c.id), b.clone()),
            Input::Json(v) => (format!("{}.in.json", c.id), json_bytes(v)),
        };
        write(&input, &input_bytes)?;
        let expected = match &c.expected {
            Expected::Json(v) => Some((format!("{}.json", c.id), json_bytes(v))),
            Expected::Bytes(b) => Some((format!("{}.out", c.id), b.clone())),
            Expected::Reject => None,
        };
        if let Some((name, bytes)) = &expected {
            write(name, bytes)?;
        }
        cases.push(ManifestCase {
            id: c.id.clone(),
            unit: c.unit,
            op: c.op,
            class: c.class,
            reason: c.reason.clone(),
            input,
            expected: expected.map(|e| e.0),
        });
    }
    let manifest = Manifest {
        suite_version: suite.version,
        seed: suite.seed,
        cases,
    };
    let mut doc = Vec::new();
    write_json_doc(&mut doc, "conform_suite", &manifest)?;
    write("manifest.json", &doc)?;
    eprintln!(
        "teeoracle: wrote {} cases to {}",
        suite.cases.len(),
        dir.display()
    );
    Ok(())
}

fn json_bytes(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).expect("JSON values serialise");
    out.push(b'\n');
    out
}

fn load_suite(dir: &Path) -> Result<Suite, Failure> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|e| Failure::bad(format!("{}: {e}", path.display())))
    };
    let json = |name: &str| -> Result<Value, Failure> {
        serde_json::from_slice(&read(name)?)
            .map_err(|e| Failure::bad(format!("{}: {e}", dir.join(name).display())))
    };
    let manifest: Manifest = serde_json::from_value(json("manifest.json")?)
        .map_err(|e| Failure::bad(format!("{}/manifest.json: {e}", dir.display())))?;
    let mut cases = Vec::with_capacity(manifest.cases.len());
    for m in manifest.cases {
        let input = match m.op {
            Op::Decode => Input::Bytes(read(&m.input)?),
            Op::Encode => Input::Json(json(&m.input)?),
        };
        let expected = match (&m.expected, m.op) {
            (None, _) => Expected::Reject,
            (Some(e), Op::Decode) => Expected::Json(json(e)?),
            (Some(e), Op::Encode) => Expected::Bytes(read(e)?),
        };
        cases.push(Case {
            id: m.id,
            unit: m.unit,
            op: m.op,
            class: m.class,
            reason: m.reason,
            input,
            expected,
        });
    }
    Ok(Suite {
        version: manifest.suite_version,
        seed: manifest.seed,
        cases,
    })
}

// ---- running an adapter ----

fn start(cmd: &str, timeout: Duration) -> Result<Process, Failure> {
    let argv = shlex::split(cmd)
        .ok_or_else(|| Failure::Usage(format!("adapter command `{cmd}`: unbalanced quotes")))?;
    Process::start(argv, timeout).map_err(|e| match e {
        StartError::Command(m) => Failure::Usage(m),
        StartError::Info(m) => Failure::bad(m),
    })
}

fn run_suite(
    suite: &Suite,
    decoder: &str,
    encoder: Option<&str>,
    format: RunFormat,
    timeout: Duration,
    jobs: usize,
) -> Result<(), Failure> {
    let dec = start(decoder, timeout)?;
    let enc = match encoder {
        Some(cmd) => Some(start(cmd, timeout)?),
        None => None,
    };
    let report = conform::run_parallel(suite, &dec, enc.as_ref(), jobs)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let mut out = stdout();
    match format {
        RunFormat::Text => report.write_text(&mut out)?,
        RunFormat::Json => report.write_json(&mut out)?,
        RunFormat::Junit => report.write_junit(&mut out)?,
    }
    out.flush()?;
    if report.summary.findings > 0 {
        return Err(Failure::reported(format!(
            "{} finding(s)",
            report.summary.findings
        )));
    }
    Ok(())
}
