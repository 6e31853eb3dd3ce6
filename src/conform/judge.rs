//! The judge: a case and an adapter's answer give an [`Outcome`].

use super::adapter::{Answer, FailureKind, UnitInfo, shown};
use super::compare::{Difference, compare_all};
use super::{Case, Class, Expected, FieldSet, Input, Op, Unit};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// The result of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseVerdict {
    /// The answer is the expected one.
    Pass,
    /// An accepted answer that differs from the expected one.
    WrongValue,
    /// It accepted what DDNet refuses.
    AcceptedMustReject,
    /// It rejected what DDNet reads.
    RejectedMustAccept,
    /// No answer: a crash, garbage, output over the cap.
    Crash,
    /// No answer in time.
    Timeout,
    /// The adapter does not take the case's unit or operation.
    NotCovered,
    /// The answer was read, but the adapter's `fields` cover nothing of
    /// the case's expected JSON: nothing was compared.
    NotCompared,
}

impl CaseVerdict {
    /// Every verdict, in report order.
    pub const ALL: [CaseVerdict; 8] = [
        CaseVerdict::Pass,
        CaseVerdict::WrongValue,
        CaseVerdict::AcceptedMustReject,
        CaseVerdict::RejectedMustAccept,
        CaseVerdict::Crash,
        CaseVerdict::Timeout,
        CaseVerdict::NotCovered,
        CaseVerdict::NotCompared,
    ];

    /// Its name in reports (`wrong_value`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CaseVerdict::Pass => "pass",
            CaseVerdict::WrongValue => "wrong_value",
            CaseVerdict::AcceptedMustReject => "accepted_must_reject",
            CaseVerdict::RejectedMustAccept => "rejected_must_accept",
            CaseVerdict::Crash => "crash",
            CaseVerdict::Timeout => "timeout",
            CaseVerdict::NotCovered => "not_covered",
            CaseVerdict::NotCompared => "not_compared",
        }
    }

    /// Whether it is a finding (a bug, or an adapter that broke).
    pub fn finding(self) -> bool {
        !matches!(
            self,
            CaseVerdict::Pass | CaseVerdict::NotCovered | CaseVerdict::NotCompared
        )
    }
}

/// One case's line of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The case's id.
    pub id: String,
    /// Its unit.
    pub unit: Unit,
    /// Its operation.
    pub op: Op,
    /// Its class.
    pub class: Class,
    /// Its reason.
    pub reason: String,
    /// The verdict.
    pub result: CaseVerdict,
    /// `wrong_value`: the differing JSON path (`""`: the root, or bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `wrong_value`: the expected value at `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// `wrong_value`: the adapter's value at `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// `wrong_value`: a unified diff around `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The adapter's reason for a rejection, or what went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Leaves of the expected JSON the adapter's `fields` left out.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_compared: usize,
    /// `wrong_value` of an encode case: the first byte that differs
    /// (`expected` and `actual` are the bytes around it, in hex, from
    /// `window_start`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// With `offset`: where the hex windows start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_start: Option<usize>,
    /// `wrong_value`: how many paths differ in all (with `path`).
    #[serde(skip_serializing_if = "is_zero")]
    pub differences: usize,
    /// `wrong_value`: the other differing paths (the first 31, in the
    /// expected value's order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_paths: Vec<String>,
    /// A finding's input when short: the bytes in hex (decode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_hex: Option<String>,
    /// A finding's input when short: the JSON (encode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_json: Option<Value>,
    /// A finding's input when long: its file in `conform export`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_file: Option<String>,
    /// A finding: what the adapter printed (its output, its rejection, or
    /// its stdout when it failed; at most [`super::SHOWN_OUTPUT`] bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed: Option<String>,
    /// A failed adapter's stderr (its last [`super::STDERR_TAIL`] bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The paths of the expected JSON not compared, as patterns
    /// (aggregated in the report's `coverage`).
    #[serde(skip)]
    pub left_out: BTreeSet<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Outcome {
    /// The outcome `result` of `case`, without details.
    pub fn new(case: &Case, result: CaseVerdict) -> Self {
        Outcome {
            id: case.id.clone(),
            unit: case.unit,
            op: case.op,
            class: case.class,
            reason: case.reason.clone(),
            result,
            path: None,
            expected: None,
            actual: None,
            diff: None,
            detail: None,
            not_compared: 0,
            offset: None,
            window_start: None,
            differences: 0,
            other_paths: Vec::new(),
            input_hex: None,
            input_json: None,
            input_file: None,
            printed: None,
            stderr: None,
            left_out: BTreeSet::new(),
        }
    }

    fn detail(mut self, detail: String) -> Self {
        self.detail = Some(detail);
        self
    }
}

/// Judges `answer` to `case` by an adapter that implements `unit` so.
pub fn judge(case: &Case, unit: &UnitInfo, answer: &Answer) -> Outcome {
    let mut o = verdict(case, unit, answer);
    if o.result.finding() {
        show_input(case, &mut o);
        o.printed = match answer {
            Answer::Decoded(v) => Some(shown(v.to_string().as_bytes())),
            Answer::Encoded(b) => Some(shown(hex::encode(b).as_bytes())),
            Answer::Rejected(why) => Some(shown(why.as_bytes())),
            Answer::Failed(f) => f.stdout.clone(),
        };
        if let Answer::Failed(f) = answer {
            o.stderr = f.stderr.clone().filter(|s| !s.is_empty());
        }
    }
    o
}

/// The longest input shown in hex in a finding.
const SHOWN_INPUT: usize = 64;

fn show_input(case: &Case, o: &mut Outcome) {
    match &case.input {
        Input::Bytes(b) if b.len() <= SHOWN_INPUT => o.input_hex = Some(hex::encode(b)),
        Input::Json(v) if v.len() <= 4 * SHOWN_INPUT => o.input_json = Some(v.value()),
        Input::Bytes(_) => o.input_file = Some(format!("{}.in", case.id)),
        Input::Json(_) => o.input_file = Some(format!("{}.in.json", case.id)),
    }
}

fn verdict(case: &Case, unit: &UnitInfo, answer: &Answer) -> Outcome {
    match answer {
        Answer::Failed(f) => {
            let v = match f.kind {
                FailureKind::Timeout => CaseVerdict::Timeout,
                _ => CaseVerdict::Crash,
            };
            let o = Outcome::new(case, v);
            match f.detail.is_empty() {
                true => o,
                false => o.detail(f.detail.clone()),
            }
        }
        Answer::Rejected(why) => {
            let v = match case.expected {
                Expected::Reject => CaseVerdict::Pass,
                _ => CaseVerdict::RejectedMustAccept,
            };
            Outcome::new(case, v).detail(why.clone())
        }
        Answer::Decoded(_) | Answer::Encoded(_) if case.expected == Expected::Reject => {
            Outcome::new(case, CaseVerdict::AcceptedMustReject)
        }
        Answer::Encoded(out) => match &case.expected {
            Expected::Bytes(want) if want == out => Outcome::new(case, CaseVerdict::Pass),
            Expected::Bytes(want) => wrong_bytes(case, want, out),
            _ => Outcome::new(case, CaseVerdict::Crash)
                .detail("bytes answered to a decode case".to_string()),
        },
        Answer::Decoded(got) => match &case.expected {
            Expected::Json(want) => wrong_json(case, unit, &want.value(), got),
            _ => Outcome::new(case, CaseVerdict::Crash)
                .detail("JSON answered to an encode case".to_string()),
        },
    }
}

/// Bytes shown on each side of the first differing byte.
const WINDOW: usize = 8;

fn wrong_bytes(case: &Case, want: &[u8], got: &[u8]) -> Outcome {
    let offset = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let start = offset.saturating_sub(WINDOW);
    let window = |b: &[u8]| hex::encode(&b[start.min(b.len())..(offset + WINDOW + 1).min(b.len())]);
    let (e, a) = (window(want), window(got));
    let mut o = Outcome::new(case, CaseVerdict::WrongValue);
    o.path = Some(String::new());
    o.offset = Some(offset);
    o.window_start = Some(start);
    o.detail = Some(format!(
        "first differing byte at offset {offset} (0x{offset:x}); expected {} bytes, got {}",
        want.len(),
        got.len()
    ));
    let marked = |b: &[u8]| {
        let mut line = String::new();
        let end = (offset + WINDOW + 1).min(b.len());
        for (i, byte) in b.iter().enumerate().take(end).skip(start) {
            match i == offset {
                true => line.push_str(&format!("[{byte:02x}]")),
                false => line.push_str(&format!(" {byte:02x} ")),
            }
        }
        if offset >= b.len() {
            line.push_str("[end]");
        }
        line
    };
    o.diff = Some(format!(
        "expected @{start}: {}\nactual   @{start}: {}\n",
        marked(want),
        marked(got)
    ));
    o.expected = Some(Value::String(e));
    o.actual = Some(Value::String(a));
    o
}

fn wrong_json(case: &Case, unit: &UnitInfo, want: &Value, got: &Value) -> Outcome {
    // Lints are a set: a checker may group and order them its own way.
    let canonical;
    let got = match case.unit {
        Unit::MapLint => {
            canonical = super::map_lint::canonical(got);
            &canonical
        }
        _ => got,
    };
    let fields = unit.fields.as_deref().map(FieldSet::parse);
    let c = compare_all(want, got, fields.as_ref());
    if c.differences.is_empty() {
        let v = match c.compared {
            0 => CaseVerdict::NotCompared,
            _ => CaseVerdict::Pass,
        };
        let mut o = Outcome::new(case, v);
        o.not_compared = c.not_compared;
        o.left_out = c.left_out;
        return o;
    }
    let head = headline(&c.differences);
    let mut o = Outcome::new(case, CaseVerdict::WrongValue);
    o.differences = c.total_differences;
    o.other_paths = c
        .differences
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != head)
        .map(|(_, d)| d.path.clone())
        .collect();
    let d = c.differences.into_iter().nth(head).expect("the headline");
    let (context, actual_context) = &d.context;
    let actual_context = actual_context.as_ref().unwrap_or(&Value::Null);
    o.diff = Some(diff_text(&pretty(context), &pretty(actual_context)));
    o.path = Some(d.path);
    o.expected = d.expected;
    o.actual = d.actual;
    o.not_compared = c.not_compared;
    o.left_out = c.left_out;
    o
}

/// Keys whose values follow from others (sizes, counts, checksums,
/// verdicts, summaries): a difference there is headlined only when
/// nothing more basic differs.
const DERIVED: [&str; 19] = [
    "crc",
    "size",
    "data_size",
    "num_items",
    "num_chunks",
    "num_parts",
    "bytes",
    "len",
    "length",
    "count",
    "checksum",
    "reencode",
    "verdict",
    "failed",
    "end",
    "world",
    "after_chunks",
    "version_reason_text",
    "length_seconds",
];

fn derived(key: &str) -> bool {
    DERIVED.contains(&key) || key.ends_with("_size") || key.ends_with("_count")
}

/// For each segment of a shown path (`a.b[2].c`), whether it is a
/// derived key.
fn derived_flags(path: &str) -> Vec<bool> {
    path.split(['.', '['])
        .filter(|s| !s.is_empty())
        .map(|s| !s.ends_with(']') && derived(s))
        .collect()
}

/// The most basic difference: depth first, a derived key after any other
/// at the same depth, then the expected value's order.
fn headline(diffs: &[Difference]) -> usize {
    let flags: Vec<Vec<bool>> = diffs.iter().map(|d| derived_flags(&d.path)).collect();
    let mut best = 0;
    for i in 1..diffs.len() {
        let (a, b) = (&flags[i], &flags[best]);
        if let Some((false, true)) = a.iter().zip(b).find(|(x, y)| x != y) {
            best = i;
        }
    }
    best
}
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("JSON values serialise") + "\n"
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
