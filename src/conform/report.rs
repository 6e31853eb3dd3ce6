//! Running a suite against adapters, and the report: counts and findings,
//! as text, a `conform_run` JSON document, or JUnit XML.

use super::adapter::{Adapter, Answer, Info};
use super::compare::shape_paths;
use super::judge::{CaseVerdict, Outcome, judge};
use super::{Case, Expected, FieldSet, Op, Suite, Unit};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
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
    /// Its cases per unit.
    pub units: BTreeMap<Unit, usize>,
    /// Where it comes from (set by the caller: the built-in suite and its
    /// corpus folders, or an exported suite's folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// What was compared of one unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coverage {
    /// The suite's cases of the unit.
    pub cases: usize,
    /// Whether the decoder decodes it.
    pub decode: bool,
    /// Whether the encoder encodes it.
    pub encode: bool,
    /// The decoder's declared paths (`null`: every path is compared).
    pub fields: Option<Vec<String>>,
    /// Paths of the expected JSON that were never compared (patterns, at
    /// most 256).
    pub not_compared: Vec<String>,
}

/// A run's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The suite.
    pub suite: SuiteInfo,
    /// The decoder's info (without its units).
    pub adapter: Info,
    /// Per unit of the suite, what was compared and what was not.
    pub coverage: BTreeMap<Unit, Coverage>,
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
    check_fields(suite, decoder.info())?;
    let encodes = encoder.as_ref().map(|e| e.info().clone());
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
    let encodes = encodes.unwrap_or_else(|| decoder.info().clone());
    Ok(Report::new(suite, decoder.info(), &encodes, outcomes))
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
    check_fields(suite, decoder.info())?;
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
    let encodes = encoder.unwrap_or(decoder).info();
    Ok(Report::new(suite, decoder.info(), encodes, outcomes))
}

fn run_case(case: &Case, adapter: &mut dyn Adapter) -> Outcome {
    run_one(case, adapter).1
}

/// Runs one case on `adapter`: its answer (`None`: not covered) and its
/// outcome.
pub fn run_one(case: &Case, adapter: &mut dyn Adapter) -> (Option<Answer>, Outcome) {
    let Some(unit) = adapter.info().covers(case).cloned() else {
        return (None, Outcome::new(case, CaseVerdict::NotCovered));
    };
    let answer = adapter.answer(case);
    let outcome = judge(case, &unit, &answer);
    (Some(answer), outcome)
}

/// Checks that every path an adapter's `info` declares (`fields`) names
/// some path of the expected JSON of `suite`'s decode cases of its unit:
/// a path that names nothing (a typo) would leave its unit compared on
/// nothing. The error names each such path and the nearest real ones.
pub fn check_fields(suite: &Suite, info: &Info) -> Result<(), RunError> {
    let mut errors = Vec::new();
    for (name, u) in &info.units {
        let (Some(fields), Some(unit)) = (&u.fields, Unit::from_name(name)) else {
            continue;
        };
        if !u.decode {
            continue;
        }
        let mut real = BTreeSet::new();
        for c in suite.cases.iter().filter(|c| c.unit == unit) {
            if let Expected::Json(v) = &c.expected {
                shape_paths(&v.value(), &mut real);
            }
        }
        if real.is_empty() {
            continue;
        }
        let set = FieldSet::parse(fields);
        for (i, f) in fields.iter().enumerate() {
            if real.iter().any(|p| set.names(i, p)) {
                continue;
            }
            let near = nearest(f, &real, 3);
            errors.push(format!(
                "`{name}` field `{f}` names no path of any expected {name} output \
                 (nearest: {})",
                near.iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    match errors.is_empty() {
        true => Ok(()),
        false => Err(RunError(format!(
            "adapter {:?} info: {}",
            info.name,
            errors.join("; ")
        ))),
    }
}

/// The `n` paths nearest to `wanted` by edit distance (ties in path
/// order).
fn nearest<'a>(wanted: &str, paths: &'a BTreeSet<String>, n: usize) -> Vec<&'a str> {
    let mut scored: Vec<(usize, &str)> = paths
        .iter()
        .map(|p| (edit_distance(wanted, p), p.as_str()))
        .collect();
    scored.sort();
    scored.into_iter().take(n).map(|(_, p)| p).collect()
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

impl Report {
    /// The report of `outcomes`, the outcomes of `suite`'s cases in suite
    /// order (as [`run_one`] gives them), answered by `decoder` and, for
    /// encode cases, `encoder` (which may be the decoder).
    pub fn new(suite: &Suite, decoder: &Info, encoder: &Info, outcomes: Vec<Outcome>) -> Report {
        let summary = Summary::of(&outcomes);
        let mut units: BTreeMap<Unit, usize> = BTreeMap::new();
        for c in &suite.cases {
            *units.entry(c.unit).or_default() += 1;
        }
        let mut left_out: BTreeMap<Unit, BTreeSet<String>> = BTreeMap::new();
        for o in &outcomes {
            let set = left_out.entry(o.unit).or_default();
            for p in &o.left_out {
                if set.len() < 256 {
                    set.insert(p.clone());
                }
            }
        }
        let coverage = units
            .iter()
            .map(|(&unit, &cases)| {
                let dec = decoder.units.get(unit.name());
                let enc = encoder.units.get(unit.name());
                let c = Coverage {
                    cases,
                    decode: dec.is_some_and(|u| u.decode),
                    encode: enc.is_some_and(|u| u.encode),
                    fields: dec.and_then(|u| u.fields.clone()),
                    not_compared: left_out
                        .remove(&unit)
                        .unwrap_or_default()
                        .into_iter()
                        .collect(),
                };
                (unit, c)
            })
            .collect();
        let mut adapter = decoder.clone();
        adapter.units.clear();
        Report {
            suite: SuiteInfo {
                version: suite.version,
                seed: suite.seed,
                cases: suite.cases.len(),
                units,
                source: None,
            },
            adapter,
            coverage,
            failed: summary.findings > 0,
            cases: outcomes,
            summary,
        }
    }

    /// The lines that say what the suite is and who answered.
    fn write_head(&self, out: &mut dyn Write) -> io::Result<()> {
        let units: Vec<String> = self
            .suite
            .units
            .iter()
            .map(|(u, n)| format!("{u} {n}"))
            .collect();
        writeln!(
            out,
            "suite: version {}, seed {}, {} case(s) ({}){}",
            self.suite.version,
            self.suite.seed,
            self.suite.cases,
            units.join(", "),
            self.suite
                .source
                .as_ref()
                .map_or(String::new(), |s| format!("; {s}"))
        )?;
        writeln!(
            out,
            "adapter: {} {}{}",
            self.adapter.name,
            self.adapter.version,
            if self.adapter.batch { " (batch)" } else { "" }
        )
    }

    /// A line per finding and the summary.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write_head(out)?;
        for o in self.cases.iter().filter(|o| o.result.finding()) {
            write_finding(out, o)?;
        }
        for (unit, counts) in &self.summary.units {
            writeln!(out, "{unit}:{}", counts_text(counts))?;
        }
        for (unit, c) in &self.coverage {
            writeln!(out, "{unit}: {}", coverage_text(c))?;
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
                .filter(|o| matches!(o.result, CaseVerdict::NotCovered | CaseVerdict::NotCompared))
                .count();
            writeln!(
                out,
                r#"  <testsuite name="{unit}" tests="{}" failures="{failures}" skipped="{skipped}">"#,
                cases.len()
            )?;
            let mut props = vec![
                ("suite_version", self.suite.version.to_string()),
                ("seed", self.suite.seed.to_string()),
                ("cases", cases.len().to_string()),
            ];
            if let Some(src) = &self.suite.source {
                props.push(("source", src.clone()));
            }
            if let Some(c) = self.coverage.get(unit) {
                props.push(("compared", coverage_text(c)));
            }
            writeln!(out, "    <properties>")?;
            for (k, v) in props {
                writeln!(out, r#"      <property name="{k}" value="{}"/>"#, xml(&v))?;
            }
            writeln!(out, "    </properties>")?;
            for o in cases {
                write!(
                    out,
                    r#"    <testcase classname="{unit}" name="{}""#,
                    xml(&o.id)
                )?;
                if o.result == CaseVerdict::Pass {
                    writeln!(out, "/>")?;
                    continue;
                }
                writeln!(out, ">")?;
                if o.result == CaseVerdict::NotCovered {
                    writeln!(
                        out,
                        r#"      <skipped message="not covered by the adapter"/>"#
                    )?;
                } else if o.result == CaseVerdict::NotCompared {
                    writeln!(
                        out,
                        r#"      <skipped message="not compared: the adapter's fields cover nothing of it"/>"#
                    )?;
                } else {
                    let mut text = Vec::new();
                    write_finding(&mut text, o)?;
                    writeln!(
                        out,
                        r#"      <failure type="{}" message="{}">{}</failure>"#,
                        o.result.name(),
                        xml(&headline(o)),
                        xml(&String::from_utf8_lossy(&text))
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

/// The longest value shown in a line.
const SHOWN_VALUE: usize = 200;

/// A value on one line, cut at [`SHOWN_VALUE`] characters.
fn short(v: &Option<Value>) -> String {
    let s = v.as_ref().map_or("(absent)".into(), Value::to_string);
    cut(&s, SHOWN_VALUE)
}

fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}... ({} bytes in all)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

/// A finding in one line: the verdict, and where and what differs.
fn headline(o: &Outcome) -> String {
    let mut line = o.result.name().to_string();
    match (&o.path, o.offset) {
        (Some(_), Some(at)) => line.push_str(&format!(
            " at byte {at}: expected {}, got {} (hex from byte {})",
            short(&o.expected),
            short(&o.actual),
            o.window_start.unwrap_or(0)
        )),
        (Some(p), None) => line.push_str(&format!(
            " at `{p}`: expected {}, got {}",
            short(&o.expected),
            short(&o.actual)
        )),
        (None, _) => {
            if let Some(d) = &o.detail {
                line.push_str(": ");
                line.push_str(&cut(d, SHOWN_VALUE));
            }
        }
    }
    line
}

fn write_finding(out: &mut dyn Write, o: &Outcome) -> io::Result<()> {
    writeln!(out, "{} {} ({})", o.result.name(), o.id, o.reason)?;
    if let Some(path) = &o.path {
        match o.offset {
            Some(_) => {}
            None => writeln!(
                out,
                "  at `{path}`: expected {}, got {}",
                short(&o.expected),
                short(&o.actual)
            )?,
        }
    }
    if !o.other_paths.is_empty() {
        let more = o.differences.saturating_sub(1 + o.other_paths.len());
        writeln!(
            out,
            "  {} differing path(s) in all; also: {}{}",
            o.differences,
            o.other_paths.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )?;
    }
    if let Some(d) = &o.detail {
        writeln!(out, "  {}", cut(d, 4 * SHOWN_VALUE))?;
    }
    match (&o.input_hex, &o.input_json, &o.input_file) {
        (Some(h), _, _) => writeln!(out, "  input (hex): {h}")?,
        (_, Some(j), _) => writeln!(out, "  input (JSON): {j}")?,
        (_, _, Some(f)) => writeln!(out, "  input: {f} (in `teeoracle conform export DIR`)")?,
        _ => {}
    }
    if let Some(p) = o
        .printed
        .as_ref()
        .filter(|_| o.result != CaseVerdict::WrongValue)
    {
        let p = p.trim_end();
        match p.is_empty() {
            true => writeln!(out, "  printed: nothing")?,
            false => writeln!(out, "  printed: {}", cut(p, 4 * SHOWN_VALUE))?,
        }
    }
    if let Some(err) = &o.stderr {
        let lines: Vec<&str> = err.lines().collect();
        writeln!(out, "  stderr (its end):")?;
        for line in &lines[lines.len().saturating_sub(12)..] {
            writeln!(out, "    {}", cut(line, 2 * SHOWN_VALUE))?;
        }
    }
    if let Some(diff) = &o.diff {
        for line in diff.lines().take(40) {
            writeln!(out, "  {}", cut(line, 2 * SHOWN_VALUE))?;
        }
    }
    Ok(())
}

/// What was compared of a unit, in a line.
fn coverage_text(c: &Coverage) -> String {
    let ops = match (c.decode, c.encode) {
        (true, true) => "decode and encode",
        (true, false) => "decode",
        (false, true) => "encode",
        (false, false) => return format!("{} case(s), not covered", c.cases),
    };
    let fields = match &c.fields {
        None => "every path compared".to_string(),
        Some(f) => format!("compared: {}", f.join(", ")),
    };
    let left = match c.not_compared.len() {
        0 => String::new(),
        n if n > 12 => format!(
            "; not compared: {} and {} more",
            c.not_compared[..12].join(", "),
            n - 12
        ),
        _ => format!("; not compared: {}", c.not_compared.join(", ")),
    };
    format!("{} case(s), {ops}; {fields}{left}", c.cases)
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
