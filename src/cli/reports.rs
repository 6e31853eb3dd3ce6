//! Check reports as several commands print them: the table of verdicts
//! (`check`, `map check`, `record`), a verdict's note, the changes
//! between two reports (`diff` of two reports, `check --baseline`), and
//! a saved report read back. Commands use this module, never one
//! another, for these.

use super::Failure;
use super::output::{ReportFormat, read, shown, write_json_doc};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use teeoracle::check::{CheckDocument, Severity, Status, Totals, Verdict};
use teeoracle::diff::{Change, FileChange, RolePair};

/// The table (`text`) or the `check` document (`json`) of `verdicts`, as
/// `check` prints them (`map check` prints its one verdict so).
pub fn write_report(
    out: &mut impl Write,
    format: ReportFormat,
    verdicts: &[Verdict],
    totals: &Totals,
) -> Result<(), Failure> {
    match format {
        ReportFormat::Text => write_table(out, verdicts, totals),
        ReportFormat::Json => {
            let document = CheckDocument {
                files: verdicts,
                totals,
                roles: BTreeMap::new(),
            };
            write_json_doc(out, "check", &document)
        }
    }
}

/// The files' table and the totals line.
pub fn write_table(
    out: &mut impl Write,
    verdicts: &[Verdict],
    totals: &Totals,
) -> Result<(), Failure> {
    let width = verdicts
        .iter()
        .map(|v| v.path.len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:<6}  {:<12}  {:>8}  {:>9}  {:<width$}  note",
        "status", "format", "records", "last_tick", "file"
    )?;
    let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for v in verdicts {
        writeln!(
            out,
            "{:<6}  {:<12}  {:>8}  {:>9}  {:<width$}  {}",
            v.status.word(),
            v.format.unwrap_or("-"),
            dash(v.counts.records.map(|n| n.to_string())),
            dash(v.counts.last_tick.map(|n| n.to_string())),
            v.path,
            note(v)
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{} passed ({} with warnings), {} failed, {} skipped",
        totals.passed, totals.warned, totals.failed, totals.skipped
    )?;
    Ok(())
}

/// The note of a file's row: why it failed (or failed as expected), its
/// warnings, or what was checked.
pub fn note(v: &Verdict) -> String {
    let worst = |min: Severity| {
        v.findings
            .iter()
            .filter(|f| f.severity >= min)
            .map(|f| f.message.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    match v.status {
        Status::Pass => v.summary.clone(),
        Status::Skip => v.summary.clone(),
        Status::Warn => worst(Severity::Warn),
        // Under `--deny-warnings` a file fails on its warnings alone.
        Status::Fail => match worst(Severity::Fail) {
            fails if fails.is_empty() => format!("warnings denied: {}", worst(Severity::Warn)),
            fails => fails,
        },
        Status::Xfail => format!("fails as expected: {}", worst(Severity::Fail)),
    }
}

/// A saved `check --format json` report (`check --baseline`): one that
/// does not read as one is a usage error.
pub fn read_check_report(path: &Path) -> Result<serde_json::Value, Failure> {
    teeoracle::diff::check_document(&read(path)?).ok_or_else(|| {
        Failure::Usage(format!(
            "{}: not a `check --format json` report",
            shown(path)
        ))
    })
}

/// The text form of two reports' differences, file by file.
pub fn write_file_changes(
    out: &mut String,
    old: &str,
    new: &str,
    pairs: &[RolePair],
    changes: &[FileChange],
) {
    use std::fmt::Write as _;
    let _ = match changes.len() {
        0 => writeln!(out, "{old} -> {new} (check reports): the same"),
        n => writeln!(out, "{old} -> {new} (check reports): {n} file(s) differ"),
    };
    if !pairs.is_empty() {
        let _ = writeln!(out, "  paired by role ({}):", pairs.len());
        for p in pairs {
            let _ = writeln!(out, "    {}: {} -> {}", p.role, p.old, p.new);
        }
    }
    for c in changes {
        let word = match c.change {
            Change::Added => "new",
            Change::Removed => "gone",
            Change::Changed => "changed",
        };
        let _ = match (&c.role, &c.old_path) {
            (Some(role), Some(was)) => writeln!(out, "  {word} {role}: {was} -> {}", c.path),
            (Some(role), None) => writeln!(out, "  {word} {role}: {}", c.path),
            _ => writeln!(out, "  {word} {}", c.path),
        };
        for f in &c.fields {
            let _ = writeln!(out, "      {}: {} -> {}", f.field, f.old, f.new);
        }
    }
}
