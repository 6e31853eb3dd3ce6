//! Running a suite against adapters, and the report: counts and findings,
//! as text, a `conform_run` JSON document, or JUnit XML.

use super::adapter::{Adapter, Info};
use super::judge::{Outcome, Verdict, judge};
use super::{Case, Op, Suite, Unit};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Counts of each result, by name.
pub type Counts = BTreeMap<&'static str, usize>;

/// The counts of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Per unit, the count of each result.
    pub units: BTreeMap<Unit, Counts>,
    /// The count of each result.
    pub total: Counts,
    /// Cases that are findings.
    pub findings: usize,
    /// Leaves of expected JSON not compared (the adapters' `fields`).
    pub not_compared_paths: usize,
}

impl Summary {
    fn of(outcomes: &[Outcome]) -> Summary {
        let mut s = Summary::default();
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
}

/// The suite a report is about.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuiteInfo {
    /// Its version.
    pub version: u32,
    /// Its generators' seed.
    pub seed: u64,
    /// Its cases.
    pub cases: usize,
}

/// A run's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The suite.
    pub suite: SuiteInfo,
    /// The decoder's info (without its units).
    pub adapter: Info,
    /// Every case's outcome, in suite order.
    pub cases: Vec<Outcome>,
    /// The counts.
    pub summary: Summary,
    /// Whether any case is a finding.
    pub failed: bool,
}

/// Why a run could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError(pub String);

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

/// Runs every case of `suite`: decode cases on `decoder`, encode cases on
/// `encoder` (default: the decoder), one after the other.
pub fn run(
    suite: &Suite,
    decoder: &mut dyn Adapter,
    encoder: Option<&mut dyn Adapter>,
) -> Result<Report, RunError> {
    let mut outcomes = Vec::with_capacity(suite.cases.len());
    match encoder {
        Some(enc) => {
            for case in &suite.cases {
                let a: &mut dyn Adapter = match case.op {
                    Op::Decode => decoder,
                    Op::Encode => enc,
                };
                outcomes.push(run_case(case, a));
            }
        }
        None => {
            for case in &suite.cases {
                outcomes.push(run_case(case, decoder));
            }
        }
    }
    Ok(report(suite, decoder.info(), outcomes))
}

/// Runs every case of `suite` on `jobs` threads, each with its own clone
/// of the adapters (a [`super::Process`] clone starts its own batch
/// process); the report is the same as [`run`]'s.
pub fn run_parallel<A: Adapter + Clone + Send>(
    suite: &Suite,
    decoder: &A,
    encoder: Option<&A>,
    jobs: usize,
) -> Result<Report, RunError> {
    let jobs = jobs.clamp(1, suite.cases.len().max(1));
    if jobs == 1 {
        let mut dec = decoder.clone();
        let mut enc = encoder.cloned();
        let enc = enc.as_mut().map(|e| e as &mut dyn Adapter);
        return run(suite, &mut dec, enc);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Outcome>>> =
        suite.cases.iter().map(|_| Default::default()).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (next, slots) = (&next, &slots);
            let (mut dec, mut enc) = (decoder.clone(), encoder.cloned());
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = suite.cases.get(i) else {
                        break;
                    };
                    let a: &mut dyn Adapter = match (case.op, enc.as_mut()) {
                        (Op::Encode, Some(e)) => e,
                        _ => &mut dec,
                    };
                    let o = run_case(case, a);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(o);
                }
            });
        }
    });
    let outcomes = slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every case ran")
        })
        .collect();
    Ok(report(suite, decoder.info(), outcomes))
}

fn run_case(case: &Case, adapter: &mut dyn Adapter) -> Outcome {
    let Some(unit) = adapter.info().covers(case).cloned() else {
        return Outcome::new(case, Verdict::NotCovered);
    };
    let answer = adapter.answer(case);
    judge(case, &unit, &answer)
}

fn report(suite: &Suite, decoder: &Info, outcomes: Vec<Outcome>) -> Report {
    let summary = Summary::of(&outcomes);
    let mut adapter = decoder.clone();
    adapter.units.clear();
    Report {
        suite: SuiteInfo {
            version: suite.version,
            seed: suite.seed,
            cases: suite.cases.len(),
        },
        adapter,
        failed: summary.findings > 0,
        cases: outcomes,
        summary,
    }
}

impl Report {
    /// A line per finding and the summary.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        for o in self.cases.iter().filter(|o| o.result.finding()) {
            writeln!(out, "{} {} ({})", o.result.name(), o.id, o.reason)?;
            if let Some(path) = &o.path {
                let show =
                    |v: &Option<Value>| v.as_ref().map_or("(absent)".into(), Value::to_string);
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
        for (unit, counts) in &self.summary.units {
            writeln!(out, "{unit}:{}", counts_text(counts))?;
        }
        writeln!(
            out,
            "total:{}; {} finding(s); {} path(s) not compared",
            counts_text(&self.summary.total),
            self.summary.findings,
            self.summary.not_compared_paths
        )?;
        Ok(())
    }

    /// The `conform_run` document (`# conform` in [`crate::schema`]).
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let doc = crate::schema::Document::new("conform_run", self);
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    }

    /// JUnit XML: a `testsuite` per unit, a `testcase` per case.
    pub fn write_junit(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut by_unit: BTreeMap<Unit, Vec<&Outcome>> = BTreeMap::new();
        for o in &self.cases {
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
                    xml(&o.id)
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
}

fn counts_text(c: &Counts) -> String {
    c.iter().map(|(k, n)| format!(" {k}={n}")).collect()
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
