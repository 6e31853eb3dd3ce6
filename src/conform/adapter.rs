//! Adapters: what answers a [`Case`]. [`Process`] runs another program
//! by the contract (`# conform` in [`crate::schema`]), one-shot or in
//! batch mode; [`InProcess`] calls a Rust closure; [`reference_answer`] is
//! teeoracle's own answer.

use super::batch::{BatchRequest, BatchResponse};
use super::{Case, Input, Op, Rejection, Unit, encode, expect};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most bytes read from an adapter for one answer (one-shot: its
/// stdout; batch mode: one line). Past it the adapter is stopped and the
/// case is a `crash` (over the cap).
pub const ANSWER_CAP: usize = 8 << 20;

/// The bytes of an adapter's stderr that are kept: the last ones.
pub const STDERR_TAIL: usize = 4 << 10;

/// The bytes of an adapter's stdout shown in a finding.
pub const SHOWN_OUTPUT: usize = 1 << 10;

/// What an adapter says it implements (its `info`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Info {
    /// The implementation's name.
    #[serde(default)]
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
    /// Whether it supports `CMD batch` (subprocess adapters).
    #[serde(default)]
    pub batch: bool,
    /// The units it implements, by name (`varint`, `packet06`, ...).
    #[serde(default)]
    pub units: BTreeMap<String, UnitInfo>,
}

/// What an adapter implements of one unit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitInfo {
    /// It decodes (bytes to JSON).
    #[serde(default)]
    pub decode: bool,
    /// It encodes (JSON to bytes).
    #[serde(default)]
    pub encode: bool,
    /// The JSON paths it prints (`None`: every path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
}

impl Info {
    /// An adapter named `name` that implements nothing yet.
    pub fn new(name: &str, version: &str) -> Info {
        Info {
            name: name.to_string(),
            version: version.to_string(),
            ..Info::default()
        }
    }

    /// Adds `unit`: decode, and encode when `encode`, every field.
    pub fn unit(mut self, unit: Unit, encode: bool) -> Info {
        let info = UnitInfo {
            decode: true,
            encode,
            fields: None,
        };
        self.units.insert(unit.name().to_string(), info);
        self
    }

    /// teeoracle's own: every unit, decode, and encode where it encodes.
    pub fn reference() -> Info {
        Unit::ALL
            .into_iter()
            .fold(Info::new("teeoracle", env!("CARGO_PKG_VERSION")), |i, u| {
                i.unit(u, u.encodes())
            })
    }

    /// What the adapter implements of `case`'s unit, if it takes `case`'s
    /// operation.
    pub fn covers(&self, case: &Case) -> Option<&UnitInfo> {
        let u = self.units.get(case.unit.name())?;
        let on = match case.op {
            Op::Decode => u.decode,
            Op::Encode => u.encode,
        };
        on.then_some(u)
    }
}

/// An adapter's answer to one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A decode's JSON (accepted).
    Decoded(Value),
    /// An encode's bytes (accepted).
    Encoded(Vec<u8>),
    /// A deliberate rejection, with the adapter's reason.
    Rejected(String),
    /// No answer: a crash, garbage, a timeout or output over the cap.
    Failed(Failure),
}

impl Answer {
    /// A failure of `kind`, saying `detail`.
    pub fn failed(kind: FailureKind, detail: impl Into<String>) -> Answer {
        Answer::Failed(Failure {
            kind,
            detail: detail.into(),
            stdout: None,
            stderr: None,
        })
    }
}

/// How an adapter failed to answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// Which failure.
    pub kind: FailureKind,
    /// What happened, in a line.
    pub detail: String,
    /// The start of what it printed on stdout (at most [`SHOWN_OUTPUT`]
    /// bytes, lossy UTF-8), when known.
    pub stdout: Option<String>,
    /// The end of its stderr (at most [`STDERR_TAIL`] bytes), when known.
    pub stderr: Option<String>,
}

/// The kinds of [`Failure`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// It died (a signal, an exit code outside the contract, a batch
    /// process that ended) or could not be started.
    Crash,
    /// It printed something that is not an answer (not JSON, not hex, an
    /// answer to another request).
    Garbage,
    /// It ran over the time limit and was stopped.
    Timeout,
    /// It printed more than [`ANSWER_CAP`] bytes and was stopped.
    OverCap,
}

/// Something that answers cases: another implementation.
///
/// The runner calls [`Adapter::info`] once, then [`Adapter::answer`] for
/// each case `info` covers, in suite order (one adapter per thread when
/// cases run in parallel). An adapter never panics on a case; what goes
/// wrong is an [`Answer::Failed`].
pub trait Adapter {
    /// What it implements.
    fn info(&self) -> &Info;
    /// Its answer to `case`: [`Answer::Decoded`] for a decode case,
    /// [`Answer::Encoded`] for an encode case, or a rejection or failure.
    fn answer(&mut self, case: &Case) -> Answer;
}

impl<A: Adapter + ?Sized> Adapter for &mut A {
    fn info(&self) -> &Info {
        (**self).info()
    }
    fn answer(&mut self, case: &Case) -> Answer {
        (**self).answer(case)
    }
}

impl<A: Adapter + ?Sized> Adapter for Box<A> {
    fn info(&self) -> &Info {
        (**self).info()
    }
    fn answer(&mut self, case: &Case) -> Answer {
        (**self).answer(case)
    }
}

/// A Rust implementation as an adapter: `info` and a closure that answers
/// each case.
#[derive(Clone)]
pub struct InProcess<F> {
    info: Info,
    answer: F,
}

impl<F: FnMut(&Case) -> Answer> InProcess<F> {
    /// The adapter that says `info` and answers with `answer`.
    pub fn new(info: Info, answer: F) -> Self {
        InProcess { info, answer }
    }
}

impl<F: FnMut(&Case) -> Answer> Adapter for InProcess<F> {
    fn info(&self) -> &Info {
        &self.info
    }
    fn answer(&mut self, case: &Case) -> Answer {
        (self.answer)(case)
    }
}

/// teeoracle's answer to `case` (the reference: it passes every case).
pub fn reference_answer(case: &Case) -> Answer {
    let answer = match &case.input {
        Input::Bytes(b) => expect(case.unit, b).map(Answer::Decoded),
        Input::Json(v) => encode(case.unit, &v.value()).map(Answer::Encoded),
    };
    answer.unwrap_or_else(|Rejection(why)| Answer::Rejected(why))
}

/// teeoracle itself as an in-process adapter.
pub fn reference() -> InProcess<fn(&Case) -> Answer> {
    InProcess::new(Info::reference(), reference_answer)
}

/// Why a [`Process`] could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// No command.
    Command(String),
    /// Its `info` did not answer, or not with an info object.
    Info(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Command(m) | StartError::Info(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for StartError {}

/// Another program as an adapter: `CMD info`, then `CMD decode UNIT` and
/// `CMD encode UNIT` per case, or one `CMD batch` process when its info
/// says `batch`. A clone shares the info and starts its own batch
/// process.
pub struct Process {
    argv: Vec<String>,
    info: Info,
    timeout: Duration,
    batch: Option<Batch>,
}

impl Clone for Process {
    fn clone(&self) -> Self {
        Process {
            argv: self.argv.clone(),
            info: self.info.clone(),
            timeout: self.timeout,
            batch: None,
        }
    }
}

impl Process {
    /// Asks `argv` (the program and its first arguments) for its info;
    /// each call may take `timeout`.
    pub fn start(argv: Vec<String>, timeout: Duration) -> Result<Process, StartError> {
        if argv.is_empty() {
            return Err(StartError::Command("an empty adapter command".into()));
        }
        let cmd = argv.join(" ");
        let bad = |why: String| StartError::Info(format!("adapter `{cmd}` info: {why}"));
        let info = match call(&argv, &["info"], &[], timeout) {
            Called::Exit(0, out, _) => {
                serde_json::from_slice(&out).map_err(|e| bad(e.to_string()))?
            }
            Called::Exit(code, _, err) => return Err(bad(format!("exit {code}: {err}"))),
            Called::Failed(f) => return Err(bad(f.detail)),
        };
        Ok(Process {
            argv,
            info,
            timeout,
            batch: None,
        })
    }
}

impl Adapter for Process {
    fn info(&self) -> &Info {
        &self.info
    }

    fn answer(&mut self, case: &Case) -> Answer {
        if !self.info.batch {
            let (op, input) = match &case.input {
                Input::Bytes(b) => ("decode", b.clone()),
                Input::Json(v) => ("encode", v.as_str().as_bytes().to_vec()),
            };
            let called = call(&self.argv, &[op, case.unit.name()], &input, self.timeout);
            return one_shot(case.op, called);
        }
        if self.batch.is_none() {
            match Batch::start(&self.argv) {
                Ok(b) => self.batch = Some(b),
                Err(why) => return Answer::failed(FailureKind::Crash, why),
            }
        }
        match self
            .batch
            .as_mut()
            .expect("started")
            .ask(case, self.timeout)
        {
            Ok(answer) => answer,
            Err(answer) => {
                // The process is dead or out of step: the next case gets
                // a new one.
                self.batch = None;
                answer
            }
        }
    }
}

/// A one-shot call's answer by the contract: exit 0 and the output is an
/// answer; exit 1 and one JSON line with an `error` string on stdout is a
/// rejection; anything else is a failure.
fn one_shot(op: Op, called: Called) -> Answer {
    let (code, out, err) = match called {
        Called::Failed(f) => return Answer::Failed(f),
        Called::Exit(code, out, err) => (code, out, err),
    };
    let fail = |kind, detail: String| {
        Answer::Failed(Failure {
            kind,
            detail,
            stdout: Some(shown(&out)),
            stderr: Some(err.clone()),
        })
    };
    match (code, op) {
        (0, Op::Encode) => Answer::Encoded(out),
        (0, Op::Decode) => match serde_json::from_slice(&out) {
            Ok(v) => Answer::Decoded(v),
            Err(e) => fail(
                FailureKind::Garbage,
                format!("output that is not JSON: {e}"),
            ),
        },
        (1, _) => match rejection(&out) {
            Some(why) => Answer::Rejected(why),
            None => fail(
                FailureKind::Crash,
                "exit 1 without a JSON error line on stdout (a rejection prints \
                 {\"error\": \"...\"} and exits 1)"
                    .to_string(),
            ),
        },
        (code, _) => fail(
            FailureKind::Crash,
            format!("exit {code} (0 answers, 1 rejects)"),
        ),
    }
}

/// The reason of a one-shot rejection: stdout is one JSON object (one
/// line) with an `error` string.
fn rejection(out: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(out)
        .ok()?
        .trim_end_matches(['\n', '\r']);
    if text.contains('\n') {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("error")?.as_str().map(str::to_string)
}

/// The start of `bytes`, as text, for a finding.
pub(crate) fn shown(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(SHOWN_OUTPUT)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > SHOWN_OUTPUT {
        s.push_str(&format!("... ({} bytes in all)", bytes.len()));
    }
    s
}

/// What one call of a program gave.
enum Called {
    /// It exited with this code, this stdout and the end of its stderr.
    Exit(i32, Vec<u8>, String),
    /// It did not exit by itself, or did not start.
    Failed(Failure),
}

/// Runs `argv` + `args` with `input` on stdin, within `timeout`, reading
/// at most [`ANSWER_CAP`] bytes of its stdout.
fn call(argv: &[String], args: &[&str], input: &[u8], timeout: Duration) -> Called {
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            let detail = format!("cannot start {}: {e}", argv[0]);
            return Called::Failed(Failure {
                kind: FailureKind::Crash,
                detail,
                stdout: None,
                stderr: None,
            });
        }
    };
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // A broken pipe (the adapter did not read it all) is its choice.
        let _ = stdin.write_all(&input);
    });
    let (over_tx, over) = sync_channel::<()>(1);
    let stdout = {
        let mut r = child.stdout.take().expect("piped");
        std::thread::spawn(move || {
            let (buf, over_cap) = read_capped(&mut r, ANSWER_CAP);
            if over_cap {
                let _ = over_tx.send(());
            }
            (buf, over_cap)
        })
    };
    let tail = Tail::drain(child.stderr.take().expect("piped"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if over.try_recv().is_ok() => break None,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            _ => {
                // Its output threads are left to end with it: a process
                // it started may hold the pipes.
                kill(&mut child);
                return Called::Failed(Failure {
                    kind: FailureKind::Timeout,
                    detail: String::new(),
                    stdout: None,
                    stderr: Some(tail.text()),
                });
            }
        }
    };
    let Some(status) = status else {
        kill(&mut child);
        let (out, _) = stdout.join().unwrap_or_default();
        return Called::Failed(Failure {
            kind: FailureKind::OverCap,
            detail: format!("more than {ANSWER_CAP} bytes of output: stopped"),
            stdout: Some(shown(&out)),
            stderr: Some(tail.text()),
        });
    };
    let _ = writer.join();
    let (out, over_cap) = stdout.join().unwrap_or_default();
    let err = tail.finish();
    if over_cap {
        return Called::Failed(Failure {
            kind: FailureKind::OverCap,
            detail: format!("more than {ANSWER_CAP} bytes of output: stopped"),
            stdout: Some(shown(&out)),
            stderr: Some(err),
        });
    }
    match status.code() {
        Some(code) => Called::Exit(code, out, err),
        None => Called::Failed(Failure {
            kind: FailureKind::Crash,
            detail: format!("killed by a signal ({status}): {err}"),
            stdout: Some(shown(&out)),
            stderr: Some(err),
        }),
    }
}

/// Reads `r` to its end, keeping at most `cap` bytes: whether there was
/// more (then it stops reading).
fn read_capped(r: &mut impl Read, cap: usize) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match r.read(&mut chunk) {
            Ok(0) => return (buf, false),
            Ok(n) if buf.len() + n > cap => {
                buf.extend_from_slice(&chunk[..cap - buf.len()]);
                return (buf, true);
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return (buf, false),
        }
    }
}

/// The last [`STDERR_TAIL`] bytes of a stream, drained on a thread.
#[derive(Clone)]
struct Tail {
    ring: Arc<Mutex<VecDeque<u8>>>,
    done: Arc<Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl Tail {
    fn drain(mut r: impl Read + Send + 'static) -> Tail {
        let ring = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let shared = Arc::clone(&ring);
        let handle = std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            loop {
                match r.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut ring = shared.lock().unwrap_or_else(|e| e.into_inner());
                        ring.extend(&chunk[..n]);
                        let over = ring.len().saturating_sub(STDERR_TAIL);
                        ring.drain(..over);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        Tail {
            ring,
            done: Arc::new(Mutex::new(Some(handle))),
        }
    }

    /// What is kept so far, trimmed.
    fn text(&self) -> String {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let (a, b) = ring.as_slices();
        String::from_utf8_lossy(&[a, b].concat()).trim().to_string()
    }

    /// Waits for the end of the stream, then what is kept.
    fn finish(&self) -> String {
        let handle = self.done.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            let _ = h.join();
        }
        self.text()
    }
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// A line of a batch process's stdout, or why there is none.
enum Line {
    Text(Vec<u8>),
    OverCap(Vec<u8>),
}

/// A running `CMD batch` process.
struct Batch {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    stderr: Tail,
    next_id: u64,
}

impl Batch {
    fn start(argv: &[String]) -> Result<Batch, String> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .arg("batch")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", argv[0]))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = Tail::drain(child.stderr.take().expect("piped"));
        // A few lines ahead at most: a process that prints without end
        // waits for the reader.
        let (tx, lines) = sync_channel(2);
        std::thread::spawn(move || {
            let mut r = std::io::BufReader::new(stdout);
            loop {
                let (line, end) = match read_line_capped(&mut r, ANSWER_CAP) {
                    LineRead::Line(l) => (Line::Text(l), false),
                    LineRead::OverCap(l) => (Line::OverCap(l), true),
                    LineRead::End => break,
                };
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        Ok(Batch {
            child,
            stdin,
            lines,
            stderr,
            next_id: 0,
        })
    }

    fn failure(&self, kind: FailureKind, detail: String, stdout: Option<&[u8]>) -> Answer {
        Answer::Failed(Failure {
            kind,
            detail,
            stdout: stdout.map(shown),
            stderr: Some(self.stderr.text()),
        })
    }

    /// One request; `Err` when the process must be replaced.
    fn ask(&mut self, case: &Case, timeout: Duration) -> Result<Answer, Answer> {
        self.next_id += 1;
        let id = self.next_id;
        let request = BatchRequest::of(id, case);
        let request = serde_json::to_string(&request).expect("a request is plain data");
        if writeln!(self.stdin, "{request}")
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            let detail = "the batch process closed its input".to_string();
            return Err(self.failure(FailureKind::Crash, detail, None));
        }
        let line = match self.lines.recv_timeout(timeout) {
            Ok(Line::Text(line)) => line,
            Ok(Line::OverCap(start)) => {
                kill(&mut self.child);
                let detail = format!("a response line over {ANSWER_CAP} bytes: stopped");
                return Err(self.failure(FailureKind::OverCap, detail, Some(&start)));
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(self.failure(FailureKind::Timeout, String::new(), None));
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
                // Its last words: stderr closes with it.
                std::thread::sleep(Duration::from_millis(20));
                let detail = format!("the batch process ended ({status})");
                return Err(self.failure(FailureKind::Crash, detail, None));
            }
        };
        let response: BatchResponse = match serde_json::from_slice(&line) {
            Ok(r) => r,
            Err(e) => {
                let detail = match e.classify() {
                    serde_json::error::Category::Data => {
                        format!("a response that is not one of the contract: {e}")
                    }
                    _ => format!("a response that is not JSON: {e}"),
                };
                return Err(self.failure(FailureKind::Garbage, detail, Some(&line)));
            }
        };
        if response.id != Some(id) {
            let theirs = response.id.map_or("null".to_string(), |i| i.to_string());
            let detail = format!("response for id {theirs} to request {id}");
            return Err(self.failure(FailureKind::Garbage, detail, Some(&line)));
        }
        if !response.ok {
            let Some(why) = response.error else {
                let detail = "a response with neither `ok: true` nor an `error` string".into();
                return Err(self.failure(FailureKind::Garbage, detail, Some(&line)));
            };
            return Ok(Answer::Rejected(why));
        }
        Ok(match case.op {
            Op::Decode => Answer::Decoded(response.output.unwrap_or(Value::Null)),
            Op::Encode => match response.output_hex.map(hex::decode) {
                Some(Ok(b)) => Answer::Encoded(b),
                _ => {
                    let detail = "no output_hex in the response".to_string();
                    self.failure(FailureKind::Garbage, detail, Some(&line))
                }
            },
        })
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        kill(&mut self.child);
    }
}

enum LineRead {
    Line(Vec<u8>),
    OverCap(Vec<u8>),
    End,
}

/// One line (without its `\n`), at most `cap` bytes of it.
fn read_line_capped(r: &mut impl std::io::BufRead, cap: usize) -> LineRead {
    let mut line = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => &[],
        };
        if buf.is_empty() {
            return match line.is_empty() {
                true => LineRead::End,
                false => LineRead::Line(line),
            };
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if line.len() + take > cap {
            let room = cap - line.len();
            line.extend_from_slice(&buf[..room]);
            return LineRead::OverCap(line);
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(take + usize::from(done));
        if done {
            return LineRead::Line(line);
        }
    }
}
