//! `teeoracle conform ...`: run the conformance suite against another
//! implementation's adapter, export the suite, print what an adapter must
//! print, and act as the reference adapter.

use super::Failure;
use super::output::{read_raw, stdout, write_json_doc};
use clap::{Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use teeoracle::conform::{
    Case, Class, Expected, FieldSet, Input, Op, Rejection, Suite, Unit, compare, encode, expect,
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

/// What an adapter's `info` says.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Info {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    batch: bool,
    #[serde(default)]
    units: BTreeMap<String, UnitInfo>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct UnitInfo {
    #[serde(default)]
    decode: bool,
    #[serde(default)]
    encode: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fields: Option<Vec<String>>,
}

struct Adapter {
    argv: Vec<String>,
    info: Info,
}

impl Adapter {
    fn start(cmd: &str, timeout: Duration) -> Result<Adapter, Failure> {
        let argv = shlex::split(cmd)
            .ok_or_else(|| Failure::Usage(format!("adapter command `{cmd}`: unbalanced quotes")))?;
        if argv.is_empty() {
            return Err(Failure::Usage("an empty adapter command".into()));
        }
        let bad = |why: String| Failure::bad(format!("adapter `{cmd}` info: {why}"));
        let info = match call(&argv, &["info"], &[], timeout) {
            Answer::Output(out) => serde_json::from_slice(&out).map_err(|e| bad(e.to_string()))?,
            Answer::Rejected(why) | Answer::Crash(why) => return Err(bad(why)),
            Answer::Timeout => return Err(bad("timed out".into())),
        };
        Ok(Adapter { argv, info })
    }

    fn covers(&self, case: &Case) -> Option<&UnitInfo> {
        let u = self.info.units.get(case.unit.name())?;
        let on = match case.op {
            Op::Decode => u.decode,
            Op::Encode => u.encode,
        };
        on.then_some(u)
    }
}

/// What one call of an adapter gave.
enum Answer {
    Output(Vec<u8>),
    Rejected(String),
    Crash(String),
    Timeout,
}

/// Runs `argv` + `args` with `input` on stdin, within `timeout`.
fn call(argv: &[String], args: &[&str], input: &[u8], timeout: Duration) -> Answer {
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Answer::Crash(format!("cannot start {}: {e}", argv[0])),
    };
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // A broken pipe (the adapter did not read it all) is its choice.
        let _ = stdin.write_all(&input);
    });
    let stdout = drain(child.stdout.take().expect("piped"));
    let stderr = drain(child.stderr.take().expect("piped"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            _ => {
                kill(&mut child);
                return Answer::Timeout;
            }
        }
    };
    let _ = writer.join();
    let out = stdout.join().unwrap_or_default();
    let err = String::from_utf8_lossy(&stderr.join().unwrap_or_default())
        .trim()
        .to_string();
    match status.code() {
        Some(0) => Answer::Output(out),
        Some(code) => Answer::Rejected(format!("exit {code}: {err}")),
        None => Answer::Crash(format!("killed by a signal ({status}): {err}")),
    }
}

fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// A running `CMD batch` process.
struct Batch {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Batch {
    fn start(argv: &[String]) -> Result<Batch, String> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .arg("batch")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", argv[0]))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Batch {
            child,
            stdin,
            lines,
            next_id: 0,
        })
    }

    /// One request; `Err` when the process must be replaced.
    fn ask(&mut self, case: &Case, timeout: Duration) -> Result<Answer, Answer> {
        self.next_id += 1;
        let id = self.next_id;
        let request = match &case.input {
            Input::Bytes(b) => serde_json::json!({"id": id, "op": "decode",
                "unit": case.unit.name(), "input_hex": hex::encode(b)}),
            Input::Json(v) => serde_json::json!({"id": id, "op": "encode",
                "unit": case.unit.name(), "input": v}),
        };
        if writeln!(self.stdin, "{request}")
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            return Err(Answer::Crash("the batch process closed its input".into()));
        }
        let line = match self.lines.recv_timeout(timeout) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => return Err(Answer::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
                return Err(Answer::Crash(format!("the batch process ended ({status})")));
            }
        };
        let response: Value = serde_json::from_str(&line)
            .map_err(|e| Answer::Crash(format!("a response that is not JSON: {e}")))?;
        if response["id"] != id {
            return Err(Answer::Crash(format!(
                "response for id {} to request {id}",
                response["id"]
            )));
        }
        if response["ok"] != true {
            let why = response["error"].as_str().unwrap_or("").to_string();
            return Ok(Answer::Rejected(why));
        }
        let output = match case.op {
            Op::Decode => serde_json::to_vec(&response["output"]).expect("a JSON value"),
            Op::Encode => match response["output_hex"].as_str().map(hex::decode) {
                Some(Ok(b)) => b,
                _ => return Ok(Answer::Crash("no output_hex in the response".into())),
            },
        };
        Ok(Answer::Output(output))
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        kill(&mut self.child);
    }
}

/// The result of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Pass,
    WrongValue,
    AcceptedMustReject,
    RejectedMustAccept,
    Crash,
    Timeout,
    NotCovered,
}

impl Verdict {
    fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::WrongValue => "wrong_value",
            Verdict::AcceptedMustReject => "accepted_must_reject",
            Verdict::RejectedMustAccept => "rejected_must_accept",
            Verdict::Crash => "crash",
            Verdict::Timeout => "timeout",
            Verdict::NotCovered => "not_covered",
        }
    }

    fn finding(self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::NotCovered)
    }
}

/// One case's line of the report.
#[derive(Serialize)]
struct Outcome<'c> {
    id: &'c str,
    unit: Unit,
    op: Op,
    class: Class,
    reason: &'c str,
    result: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actual: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    not_compared: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'c> Outcome<'c> {
    fn new(case: &'c Case, result: Verdict) -> Self {
        Outcome {
            id: &case.id,
            unit: case.unit,
            op: case.op,
            class: case.class,
            reason: &case.reason,
            result,
            path: None,
            expected: None,
            actual: None,
            diff: None,
            detail: None,
            not_compared: 0,
        }
    }

    fn detail(mut self, detail: String) -> Self {
        self.detail = Some(detail);
        self
    }
}

/// Judges an adapter's answer to a case.
fn judge<'c>(case: &'c Case, unit: &UnitInfo, answer: Answer) -> Outcome<'c> {
    let out = match answer {
        Answer::Timeout => return Outcome::new(case, Verdict::Timeout),
        Answer::Crash(why) => return Outcome::new(case, Verdict::Crash).detail(why),
        Answer::Rejected(why) => {
            let v = match case.expected {
                Expected::Reject => Verdict::Pass,
                _ => Verdict::RejectedMustAccept,
            };
            return Outcome::new(case, v).detail(why);
        }
        Answer::Output(out) => out,
    };
    match &case.expected {
        Expected::Reject => Outcome::new(case, Verdict::AcceptedMustReject),
        Expected::Bytes(want) if *want == out => Outcome::new(case, Verdict::Pass),
        Expected::Bytes(want) => {
            let (e, a) = (hex::encode(want), hex::encode(&out));
            let mut o = Outcome::new(case, Verdict::WrongValue);
            o.path = Some(String::new());
            o.diff = Some(diff_text(&spaced(&e), &spaced(&a)));
            o.expected = Some(Value::String(e));
            o.actual = Some(Value::String(a));
            o
        }
        Expected::Json(want) => {
            let got: Value = match serde_json::from_slice(&out) {
                Ok(v) => v,
                Err(e) => {
                    return Outcome::new(case, Verdict::Crash)
                        .detail(format!("output that is not JSON: {e}"));
                }
            };
            let fields = unit.fields.as_deref().map(FieldSet::parse);
            let (difference, not_compared) = compare(want, &got, fields.as_ref());
            let Some(d) = difference else {
                let mut o = Outcome::new(case, Verdict::Pass);
                o.not_compared = not_compared;
                return o;
            };
            let mut o = Outcome::new(case, Verdict::WrongValue);
            let (context, actual_context) = &d.context;
            let actual_context = actual_context.as_ref().unwrap_or(&Value::Null);
            o.diff = Some(diff_text(&pretty(context), &pretty(actual_context)));
            o.path = Some(d.path);
            o.expected = d.expected;
            o.actual = d.actual;
            o.not_compared = not_compared;
            o
        }
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("JSON values serialise") + "\n"
}

/// Hex in lines of 32 bytes, so a diff shows where bytes differ.
fn spaced(hex: &str) -> String {
    let mut out = String::new();
    for line in hex.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or(""));
        out.push('\n');
    }
    out
}

/// A unified diff of the expected and actual text, in a few lines of
/// context.
fn diff_text(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

/// Runs every case, `jobs` at once, results in case order.
fn run_cases<'c>(
    suite: &'c Suite,
    decoder: &Adapter,
    encoder: &Adapter,
    timeout: Duration,
    jobs: usize,
) -> Vec<Outcome<'c>> {
    let order: Vec<usize> = (0..suite.cases.len()).collect();
    let mut outcomes = Vec::with_capacity(suite.cases.len());
    // One batch adapter process per thread and direction.
    let batches = || -> [Option<Batch>; 2] { [None, None] };
    let run = |batches: &mut [Option<Batch>; 2], case: &'c Case| {
        let (adapter, slot) = match case.op {
            Op::Decode => (decoder, 0),
            Op::Encode => (encoder, 1),
        };
        run_case(case, adapter, &mut batches[slot], timeout)
    };
    let collected = super::in_order(&suite.cases, &order, jobs, batches, run, |_, o| {
        outcomes.push(o);
        Ok::<(), std::convert::Infallible>(())
    });
    match collected {
        Ok(()) => outcomes,
        Err(never) => match never {},
    }
}

fn run_case<'c>(
    case: &'c Case,
    adapter: &Adapter,
    batch: &mut Option<Batch>,
    timeout: Duration,
) -> Outcome<'c> {
    let Some(unit) = adapter.covers(case) else {
        return Outcome::new(case, Verdict::NotCovered);
    };
    let answer = if adapter.info.batch {
        if batch.is_none() {
            match Batch::start(&adapter.argv) {
                Ok(b) => *batch = Some(b),
                Err(why) => return Outcome::new(case, Verdict::Crash).detail(why),
            }
        }
        match batch.as_mut().expect("started").ask(case, timeout) {
            Ok(answer) => answer,
            Err(answer) => {
                // The process is dead or out of step: the next case gets
                // a new one.
                *batch = None;
                answer
            }
        }
    } else {
        let (op, input) = match &case.input {
            Input::Bytes(b) => ("decode", b.clone()),
            Input::Json(v) => ("encode", serde_json::to_vec(v).expect("a JSON value")),
        };
        call(&adapter.argv, &[op, case.unit.name()], &input, timeout)
    };
    judge(case, unit, answer)
}

/// Counts of each result.
type Counts = BTreeMap<&'static str, usize>;

#[derive(Serialize)]
struct Summary {
    units: BTreeMap<Unit, Counts>,
    total: Counts,
    findings: usize,
    not_compared_paths: usize,
}

fn summarise(outcomes: &[Outcome<'_>]) -> Summary {
    let mut s = Summary {
        units: BTreeMap::new(),
        total: Counts::new(),
        findings: 0,
        not_compared_paths: 0,
    };
    for o in outcomes {
        *s.units
            .entry(o.unit)
            .or_default()
            .entry(o.result.name())
            .or_default() += 1;
        *s.total.entry(o.result.name()).or_default() += 1;
        s.findings += usize::from(o.result.finding());
        s.not_compared_paths += o.not_compared;
    }
    s
}

fn run_suite(
    suite: &Suite,
    decoder: &str,
    encoder: Option<&str>,
    format: RunFormat,
    timeout: Duration,
    jobs: usize,
) -> Result<(), Failure> {
    let dec = Adapter::start(decoder, timeout)?;
    let enc = match encoder {
        Some(cmd) => Some(Adapter::start(cmd, timeout)?),
        None => None,
    };
    let outcomes = run_cases(suite, &dec, enc.as_ref().unwrap_or(&dec), timeout, jobs);
    let summary = summarise(&outcomes);
    let mut out = stdout();
    match format {
        RunFormat::Text => write_text(&mut out, &outcomes, &summary)?,
        RunFormat::Json => {
            #[derive(Serialize)]
            struct Report<'a> {
                suite: serde_json::Value,
                adapter: &'a Info,
                cases: &'a [Outcome<'a>],
                summary: &'a Summary,
                failed: bool,
            }
            let mut adapter = dec.info.clone();
            adapter.units.clear();
            let report = Report {
                suite: serde_json::json!({"version": suite.version, "seed": suite.seed,
                    "cases": suite.cases.len()}),
                adapter: &adapter,
                cases: &outcomes,
                summary: &summary,
                failed: summary.findings > 0,
            };
            write_json_doc(&mut out, "conform_run", &report)?;
        }
        RunFormat::Junit => write_junit(&mut out, &outcomes)?,
    }
    out.flush()?;
    if summary.findings > 0 {
        return Err(Failure::reported(format!(
            "{} finding(s)",
            summary.findings
        )));
    }
    Ok(())
}

fn write_text(
    out: &mut impl Write,
    outcomes: &[Outcome<'_>],
    summary: &Summary,
) -> Result<(), Failure> {
    for o in outcomes.iter().filter(|o| o.result.finding()) {
        writeln!(out, "{} {} ({})", o.result.name(), o.id, o.reason)?;
        if let Some(path) = &o.path {
            let show = |v: &Option<Value>| v.as_ref().map_or("(absent)".into(), Value::to_string);
            writeln!(
                out,
                "  at `{path}`: expected {}, got {}",
                show(&o.expected),
                show(&o.actual)
            )?;
        }
        if let Some(d) = &o.detail {
            writeln!(out, "  {d}")?;
        }
        if let Some(diff) = &o.diff {
            for line in diff.lines().take(40) {
                writeln!(out, "  {line}")?;
            }
        }
    }
    for (unit, counts) in &summary.units {
        writeln!(out, "{unit}:{}", counts_text(counts))?;
    }
    writeln!(
        out,
        "total:{}; {} finding(s); {} path(s) not compared",
        counts_text(&summary.total),
        summary.findings,
        summary.not_compared_paths
    )?;
    Ok(())
}

fn counts_text(c: &Counts) -> String {
    c.iter().map(|(k, n)| format!(" {k}={n}")).collect()
}

/// JUnit XML: a `testsuite` per unit, a `testcase` per case.
fn write_junit(out: &mut impl Write, outcomes: &[Outcome<'_>]) -> Result<(), Failure> {
    let mut by_unit: BTreeMap<Unit, Vec<&Outcome<'_>>> = BTreeMap::new();
    for o in outcomes {
        by_unit.entry(o.unit).or_default().push(o);
    }
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(out, r#"<testsuites name="teeoracle conform">"#)?;
    for (unit, cases) in &by_unit {
        let failures = cases.iter().filter(|o| o.result.finding()).count();
        let skipped = cases
            .iter()
            .filter(|o| o.result == Verdict::NotCovered)
            .count();
        writeln!(
            out,
            r#"  <testsuite name="{unit}" tests="{}" failures="{failures}" skipped="{skipped}">"#,
            cases.len()
        )?;
        for o in cases {
            write!(
                out,
                r#"    <testcase classname="{unit}" name="{}""#,
                xml(o.id)
            )?;
            if o.result == Verdict::Pass {
                writeln!(out, "/>")?;
                continue;
            }
            writeln!(out, ">")?;
            if o.result == Verdict::NotCovered {
                writeln!(
                    out,
                    r#"      <skipped message="not covered by the adapter"/>"#
                )?;
            } else {
                let mut text = o.reason.to_string();
                if let Some(p) = &o.path {
                    text.push_str(&format!("\nat `{p}`"));
                }
                for extra in [&o.detail, &o.diff].into_iter().flatten() {
                    text.push('\n');
                    text.push_str(extra);
                }
                writeln!(
                    out,
                    r#"      <failure type="{}" message="{}">{}</failure>"#,
                    o.result.name(),
                    xml(o.result.name()),
                    xml(&text)
                )?;
            }
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")?;
    Ok(())
}

/// Text escaped for XML content and attributes; characters XML 1.0 cannot
/// hold become `?`.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}
