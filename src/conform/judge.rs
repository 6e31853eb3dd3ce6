//! The judge: a case and an adapter's answer give an [`Outcome`].

use super::adapter::{Answer, FailureKind, UnitInfo};
use super::{Case, Class, Expected, FieldSet, Op, Unit, compare};
use serde::Serialize;
use serde_json::Value;

/// The result of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
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
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 7] = [
        Verdict::Pass,
        Verdict::WrongValue,
        Verdict::AcceptedMustReject,
        Verdict::RejectedMustAccept,
        Verdict::Crash,
        Verdict::Timeout,
        Verdict::NotCovered,
    ];

    /// Its name in reports (`wrong_value`, ...).
    pub fn name(self) -> &'static str {
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

    /// Whether it is a finding (a bug, or an adapter that broke).
    pub fn finding(self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::NotCovered)
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
    pub result: Verdict,
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
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Outcome {
    /// The outcome `result` of `case`, without details.
    pub fn new(case: &Case, result: Verdict) -> Self {
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
        }
    }

    fn detail(mut self, detail: String) -> Self {
        self.detail = Some(detail);
        self
    }
}

/// Judges `answer` to `case` by an adapter that implements `unit` so.
pub fn judge(case: &Case, unit: &UnitInfo, answer: &Answer) -> Outcome {
    match answer {
        Answer::Failed(f) => {
            let v = match f.kind {
                FailureKind::Timeout => Verdict::Timeout,
                _ => Verdict::Crash,
            };
            let o = Outcome::new(case, v);
            match f.detail.is_empty() {
                true => o,
                false => o.detail(f.detail.clone()),
            }
        }
        Answer::Rejected(why) => {
            let v = match case.expected {
                Expected::Reject => Verdict::Pass,
                _ => Verdict::RejectedMustAccept,
            };
            Outcome::new(case, v).detail(why.clone())
        }
        Answer::Decoded(_) | Answer::Encoded(_) if case.expected == Expected::Reject => {
            Outcome::new(case, Verdict::AcceptedMustReject)
        }
        Answer::Encoded(out) => match &case.expected {
            Expected::Bytes(want) if want == out => Outcome::new(case, Verdict::Pass),
            Expected::Bytes(want) => {
                let (e, a) = (hex::encode(want), hex::encode(out));
                let mut o = Outcome::new(case, Verdict::WrongValue);
                o.path = Some(String::new());
                o.diff = Some(diff_text(&spaced(&e), &spaced(&a)));
                o.expected = Some(Value::String(e));
                o.actual = Some(Value::String(a));
                o
            }
            _ => Outcome::new(case, Verdict::Crash)
                .detail("bytes answered to a decode case".to_string()),
        },
        Answer::Decoded(got) => match &case.expected {
            Expected::Json(want) => wrong_json(case, unit, want, got),
            _ => Outcome::new(case, Verdict::Crash)
                .detail("JSON answered to an encode case".to_string()),
        },
    }
}

fn wrong_json(case: &Case, unit: &UnitInfo, want: &Value, got: &Value) -> Outcome {
    let fields = unit.fields.as_deref().map(FieldSet::parse);
    let (difference, not_compared) = compare(want, got, fields.as_ref());
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
