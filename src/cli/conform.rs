//! `teeoracle conform ...`: run the conformance suite against another
//! implementation's adapter, export the suite, print what an adapter must
//! print, and act as the reference adapter.

use super::Failure;
use super::output::{read_raw, stdout};
use clap::{Subcommand, ValueEnum};
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use teeoracle::conform::{
    self, Adapter, Answer, Case, Expected, Info, Input, Op, Process, Rejection, StartError, Suite,
    Unit, encode, expect,
};
use teeoracle::generate::suite;

#[derive(Subcommand, Debug)]
#[command(defer = true)]
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
        /// Only the case with this id, and everything about it: its
        /// input, the expected output, the adapter's answer.
        #[arg(long)]
        case: Option<String>,
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
            case,
        } => {
            if suite.is_some() && !corpus.is_empty() {
                return Err(Failure::Usage(
                    "--suite runs an exported suite; --corpus builds the built-in one: give one"
                        .into(),
                ));
            }
            let (suite, source) = match suite {
                Some(dir) => {
                    let source = format!("exported: {}", dir.display());
                    let suite = Suite::load(&dir)
                        .map_err(|e| Failure::Unreadable(format!("--suite: {e}")))?;
                    (suite, source)
                }
                // A case's id starts with its unit's name: `--case` alone
                // builds only that unit's cases.
                None => {
                    let of_case = case
                        .as_deref()
                        .and_then(|id| Unit::from_name(id.split('/').next().unwrap_or("")));
                    match (units.is_empty(), of_case) {
                        (true, Some(unit)) => builtin(&corpus, &[unit])?,
                        _ => builtin(&corpus, &units)?,
                    }
                }
            };
            let mut suite = suite.only(&units);
            if let Some(id) = &case {
                suite.cases.retain(|c| &c.id == id);
                if suite.cases.is_empty() {
                    return Err(Failure::Usage(format!("no case {id:?} in the suite")));
                }
            }
            if !(timeout > 0.0 && timeout <= 86_400.0) {
                return Err(Failure::Usage(format!(
                    "--timeout {timeout}: seconds, above 0 and at most 86400"
                )));
            }
            let run = RunArgs {
                decoder,
                encoder,
                format,
                timeout: Duration::from_secs_f64(timeout),
                jobs: jobs.max(1),
                source,
                one: case.is_some(),
            };
            run_suite(&suite, &run)
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
            let suite = builtin(&corpus, &units)?.0;
            suite.export(&dir).map_err(Failure::bad)?;
            eprintln!(
                "teeoracle: wrote {} cases to {}",
                suite.cases.len(),
                dir.display()
            );
            Ok(())
        }
        ConformCommand::Adapter { op, unit } => adapter(&op, unit),
    }
}

/// The standard suite ([`teeoracle::generate::suite`]) of `units` (all
/// when empty) from the `corpus` folders (default: those beside or in the
/// source tree), and a line saying where it comes from. A named folder
/// that cannot be read is an error.
fn builtin(corpus: &[PathBuf], units: &[Unit]) -> Result<(Suite, String), Failure> {
    let roots = if corpus.is_empty() {
        let roots = suite::default_corpora();
        if roots.is_empty() {
            eprintln!(
                "teeoracle: note: no corpus folder found, so the suite has only its \
                 vectors and generated cases (--corpus DIR names one)"
            );
        }
        roots
    } else {
        for dir in corpus {
            if let Err(e) = std::fs::read_dir(dir) {
                return Err(Failure::Unreadable(format!(
                    "--corpus {}: {e}",
                    dir.display()
                )));
            }
        }
        corpus.to_vec()
    };
    let names: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    let source = match names.is_empty() {
        true => "built-in, no corpus".to_string(),
        false => format!("built-in, corpus: {}", names.join(", ")),
    };
    let suite = suite::standard(&roots, units).map_err(|e| Failure::Unreadable(e.to_string()))?;
    Ok((suite, source))
}

// ---- the reference adapter ----

fn adapter(op: &str, unit: Option<Unit>) -> Result<(), Failure> {
    let mut out = stdout();
    let need_unit = || unit.ok_or_else(|| Failure::Usage(format!("`adapter {op}` needs a UNIT")));
    match op {
        "info" => {
            // The reference: every unit, with a batch mode.
            let info = Info {
                batch: true,
                ..Info::reference()
            };
            writeln!(
                out,
                "{}",
                serde_json::to_string(&info).map_err(Failure::bad)?
            )?;
        }
        "decode" => {
            let unit = need_unit()?;
            let input = read_raw(Path::new("-"))?;
            match expect(unit, &input) {
                Ok(value) => writeln!(out, "{value}")?,
                Err(r) => return reject(&mut out, &r.0),
            }
        }
        "encode" => {
            let unit = need_unit()?;
            let input = read_raw(Path::new("-"))?;
            let bytes = serde_json::from_slice(&input)
                .map_err(|e| Rejection(format!("not JSON: {e}")))
                .and_then(|value: Value| encode(unit, &value));
            match bytes {
                Ok(bytes) => out.write_all(&bytes)?,
                Err(r) => return reject(&mut out, &r.0),
            }
        }
        "batch" => {
            for line in std::io::stdin().lock().lines() {
                let response = conform::respond(&line?);
                let response = serde_json::to_string(&response).map_err(Failure::bad)?;
                writeln!(out, "{response}")?;
                out.flush()?;
            }
        }
        _ => return Err(Failure::Usage(format!("no adapter operation {op:?}"))),
    }
    out.flush()?;
    Ok(())
}

/// A one-shot rejection by the contract: one JSON line with `error` on
/// stdout, the reason on stderr too, exit 1.
fn reject(out: &mut impl Write, why: &str) -> Result<(), Failure> {
    writeln!(out, "{}", serde_json::json!({ "error": why }))?;
    out.flush()?;
    Err(Failure::bad(format!("rejected: {why}")))
}

// ---- running an adapter ----

/// How to run the suite.
struct RunArgs {
    decoder: String,
    encoder: Option<String>,
    format: RunFormat,
    timeout: Duration,
    jobs: usize,
    source: String,
    /// `--case`: one case, shown whole.
    one: bool,
}

/// Starts an adapter: one that cannot start (no command, no `info`) is
/// exit 2.
fn start(cmd: &str, timeout: Duration) -> Result<Process, Failure> {
    let argv = shlex::split(cmd)
        .ok_or_else(|| Failure::Usage(format!("adapter command `{cmd}`: unbalanced quotes")))?;
    Process::start(argv, timeout).map_err(|e| match e {
        StartError::Command(m) => Failure::Usage(m),
        StartError::Info(m) => Failure::Unreadable(m),
    })
}

fn run_suite(suite: &Suite, args: &RunArgs) -> Result<(), Failure> {
    let dec = start(&args.decoder, args.timeout)?;
    let enc = match &args.encoder {
        Some(cmd) => Some(start(cmd, args.timeout)?),
        None => None,
    };
    let mut out = stdout();
    if args.one && args.format == RunFormat::Text {
        let case = &suite.cases[0];
        let mut adapter = match (case.op, &enc) {
            (Op::Encode, Some(e)) => e.clone(),
            _ => dec.clone(),
        };
        conform::check_fields(suite, dec.info()).map_err(|e| Failure::Usage(e.to_string()))?;
        let (answer, outcome) = conform::run_one(case, &mut adapter);
        show_case(&mut out, case, answer.as_ref())?;
        let encoder = enc.as_ref().unwrap_or(&dec).info();
        let mut report = conform::Report::new(suite, dec.info(), encoder, vec![outcome]);
        report.suite.source = Some(args.source.clone());
        report.write_text(&mut out)?;
        out.flush()?;
        return match report.failed {
            true => Err(Failure::reported("1 finding")),
            false => Ok(()),
        };
    }
    let mut report = conform::run_parallel(suite, &dec, enc.as_ref(), args.jobs)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    report.suite.source = Some(args.source.clone());
    match args.format {
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

/// Everything about one case and the adapter's answer (`--case`).
fn show_case(out: &mut impl Write, case: &Case, answer: Option<&Answer>) -> std::io::Result<()> {
    let class = serde_json::to_value(case.class).unwrap_or_default();
    let op = serde_json::to_value(case.op).unwrap_or_default();
    writeln!(out, "case: {}", case.id)?;
    writeln!(
        out,
        "unit: {}, op: {}, class: {}",
        case.unit,
        op.as_str().unwrap_or("?"),
        class.as_str().unwrap_or("?")
    )?;
    writeln!(out, "reason: {}", case.reason)?;
    match &case.input {
        Input::Bytes(b) => writeln!(out, "input: {} byte(s), hex:\n{}", b.len(), hex_lines(b))?,
        Input::Json(v) => writeln!(out, "input (JSON):\n{}", pretty(&v.value()))?,
    }
    match &case.expected {
        Expected::Json(v) => writeln!(out, "expected (JSON):\n{}", pretty(&v.value()))?,
        Expected::Bytes(b) => {
            writeln!(out, "expected: {} byte(s), hex:\n{}", b.len(), hex_lines(b))?
        }
        Expected::Reject => writeln!(out, "expected: a rejection")?,
    }
    match answer {
        None => writeln!(
            out,
            "answer: none (the adapter does not cover this unit and operation)"
        )?,
        Some(Answer::Decoded(v)) => writeln!(out, "answer (JSON):\n{}", pretty(v))?,
        Some(Answer::Encoded(b)) => {
            writeln!(out, "answer: {} byte(s), hex:\n{}", b.len(), hex_lines(b))?
        }
        Some(Answer::Rejected(why)) => writeln!(out, "answer: rejected: {why}")?,
        Some(Answer::Failed(f)) => {
            writeln!(out, "answer: failed ({:?}): {}", f.kind, f.detail)?;
            if let Some(o) = &f.stdout {
                writeln!(out, "stdout (its start):\n{o}")?;
            }
            if let Some(e) = &f.stderr {
                writeln!(out, "stderr (its end):\n{e}")?;
            }
        }
    }
    writeln!(out)
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Hex, 32 bytes a line, each line with its offset.
fn hex_lines(b: &[u8]) -> String {
    b.chunks(32)
        .enumerate()
        .map(|(i, c)| format!("{:6}: {}", i * 32, hex::encode(c)))
        .collect::<Vec<_>>()
        .join("\n")
}
