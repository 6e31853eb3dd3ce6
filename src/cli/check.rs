//! `teeoracle check`: walk paths, recognise formats, check each file.

use super::Failure;
use super::output::stdout;
use super::teehistorian::Scan;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use teeoracle::teehistorian::is_teehistorian;

/// Files under a directory with this name are malformed on purpose: they
/// pass `check` only by failing it.
const MALFORMED_DIR: &str = "malformed";

enum Outcome {
    Pass,
    Fail(String),
    Skip(&'static str),
}

struct Row {
    path: PathBuf,
    format: &'static str,
    outcome: Outcome,
    expected_failure: bool,
    records: String,
    last_tick: String,
    /// Reasons to look twice (the file still passes).
    warnings: Vec<String>,
    /// What was checked, for a passing file.
    info: Option<String>,
}

pub fn run(paths: Vec<PathBuf>) -> Result<(), Failure> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from("corpus")]
    } else {
        paths
    };
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files)?;
    }
    let mut rows = Vec::new();
    for path in files {
        rows.push(check_file(&path));
    }
    report(&rows)
}

/// Files below `path`, in name order.
fn collect(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let meta = fs::metadata(path)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?;
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(path)
            .map_err(|e| Failure::Usage(format!("cannot list {}: {e}", path.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for entry in entries {
            collect(&entry, files)?;
        }
    } else {
        files.push(path.to_path_buf());
    }
    Ok(())
}

fn sniff(path: &Path) -> std::io::Result<[u8; 16]> {
    let mut magic = [0u8; 16];
    let mut f = File::open(path)?;
    let mut n = 0;
    while n < magic.len() {
        match f.read(&mut magic[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(magic)
}

fn check_file(path: &Path) -> Row {
    let expected_failure = path.components().any(|c| c.as_os_str() == MALFORMED_DIR);
    let mut row = Row {
        path: path.to_path_buf(),
        format: "-",
        outcome: Outcome::Skip("unrecognised format"),
        expected_failure,
        records: "-".into(),
        last_tick: "-".into(),
        warnings: Vec::new(),
        info: None,
    };
    let magic = match sniff(path) {
        Ok(m) => m,
        Err(e) => {
            row.outcome = Outcome::Fail(format!("cannot read: {e}"));
            return row;
        }
    };
    if teeoracle::demo::is_demo(&magic) {
        row.format = "demo";
        row.outcome = match super::demo::check_demo(path) {
            Err(Failure::Bad { message, .. }) => Outcome::Fail(message),
            Err(other) => Outcome::Fail(format!("{other:?}")),
            Ok(check) => {
                row.records = check.chunks.to_string();
                row.last_tick = check.last_tick.map_or("-".into(), |t| t.to_string());
                if let Some(n) = check.truncated {
                    row.warnings
                        .push(format!("truncated: the last {n} byte(s) are a cut chunk"));
                }
                let r = &check.replay;
                if r.counts.invalid_items > 0 {
                    row.warnings.push(format!(
                        "{} item(s) with the wrong size for their type",
                        r.counts.invalid_items
                    ));
                }
                let dropped = r.faults.iter().find(|f| {
                    !matches!(
                        f.kind,
                        teeoracle::snapshot::replay::FaultKind::InvalidItem { .. }
                    )
                });
                match (dropped, check.mismatch) {
                    (_, Some(at)) => {
                        Outcome::Fail(format!("re-encoding differs at byte {at} (0x{at:x})"))
                    }
                    (Some(f), _) => Outcome::Fail(format!(
                        "replay: {} snapshot(s) dropped, {} message(s) unreadable; first at {f}",
                        r.counts.dropped, r.unreadable_messages
                    )),
                    (None, None) => {
                        let recorder = match &check.rerecorded {
                            Some(rr) if rr.identical => "identical".to_string(),
                            Some(rr) if rr.equivalent() => {
                                let mut why = Vec::new();
                                if rr.deltas_reordered > 0 {
                                    why.push(format!("{} deltas reordered", rr.deltas_reordered));
                                }
                                if rr.stale_timeline_slots {
                                    why.push("unused timeline slots not zero".into());
                                }
                                format!("equivalent ({})", why.join(", "))
                            }
                            Some(rr) => {
                                if let Some(d) = rr.differences.first() {
                                    row.warnings.push(format!(
                                        "not what DDNet's recorder writes: {} difference(s),                                          first at byte {}: {}",
                                        rr.difference_count, d.offset, d.what
                                    ));
                                }
                                "differs".to_string()
                            }
                            None => "-".to_string(),
                        };
                        row.info = Some(format!(
                            "byte-exact; {} keyframes, {} deltas applied, {} messages;                              re-recorded: {recorder}",
                            r.counts.keyframes, r.counts.deltas, r.messages
                        ));
                        Outcome::Pass
                    }
                }
            }
        };
    } else if teeoracle::capture::is_capture(&magic) {
        row.format = "pcap";
        row.outcome = match super::net::check_capture(path, None) {
            Err(Failure::Bad { message, .. }) => Outcome::Fail(message),
            Err(other) => Outcome::Fail(format!("{other:?}")),
            Ok(check) => {
                let summary = &check.summary;
                row.records = summary.datagrams.to_string();
                let anomalies: usize = check.replay.anomalies.values().sum();
                row.info = Some(format!(
                    "{} datagrams byte-exact ({} peers, {} chunks, {anomalies} replay anomalies)",
                    summary.exact, summary.peers, summary.chunks
                ));
                match check.failure {
                    Some(why) => Outcome::Fail(why),
                    None => Outcome::Pass,
                }
            }
        };
    } else if is_teehistorian(&magic) {
        row.format = "teehistorian";
        row.outcome = match Scan::run(path, true) {
            Err(Failure::Bad { message, .. }) => {
                let prefix = format!("{}: ", path.display());
                Outcome::Fail(
                    message
                        .strip_prefix(&prefix)
                        .unwrap_or(&message)
                        .to_string(),
                )
            }
            Err(other) => Outcome::Fail(format!("{other:?}")),
            Ok((_, scan)) => {
                row.records = scan.records.to_string();
                row.last_tick = scan.last_tick.to_string();
                row.warnings = scan.warnings();
                match scan.failure() {
                    Some(why) => Outcome::Fail(why),
                    None => Outcome::Pass,
                }
            }
        };
    } else if teeoracle::archive::is_archive(path) {
        row.format = "archive";
        row.outcome = match super::archive::check(path) {
            Err(Failure::Bad { message, .. } | Failure::Usage(message)) => Outcome::Fail(message),
            Err(other) => Outcome::Fail(format!("{other:?}")),
            Ok(check) => {
                row.records = check.records.to_string();
                row.last_tick = check.last_tick.map_or("-".into(), |t| t.to_string());
                row.warnings = check.warnings;
                row.info = Some(check.info);
                match check.failure {
                    Some(why) => Outcome::Fail(why),
                    None => Outcome::Pass,
                }
            }
        };
    }
    row
}

fn report(rows: &[Row]) -> Result<(), Failure> {
    let mut out = stdout();
    let width = rows
        .iter()
        .map(|r| r.path.display().to_string().len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:<6}  {:<12}  {:>8}  {:>9}  {:<width$}  note",
        "status", "format", "records", "last_tick", "file"
    )?;
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for row in rows {
        let (status, note) = match (&row.outcome, row.expected_failure) {
            (Outcome::Skip(why), _) => {
                skipped += 1;
                ("skip", why.to_string())
            }
            (Outcome::Pass, false) => {
                passed += 1;
                match (row.warnings.is_empty(), &row.info) {
                    (true, info) => ("pass", info.clone().unwrap_or_default()),
                    (false, _) => ("warn", row.warnings.join("; ")),
                }
            }
            (Outcome::Fail(why), false) => {
                failed += 1;
                ("FAIL", why.clone())
            }
            (Outcome::Fail(why), true) => {
                passed += 1;
                ("xfail", format!("fails as expected: {why}"))
            }
            (Outcome::Pass, true) => {
                failed += 1;
                (
                    "FAIL",
                    format!("expected to fail (under {MALFORMED_DIR}/), but passed"),
                )
            }
        };
        writeln!(
            out,
            "{status:<6}  {:<12}  {:>8}  {:>9}  {:<width$}  {note}",
            row.format,
            row.records,
            row.last_tick,
            row.path.display()
        )?;
    }
    writeln!(out)?;
    writeln!(out, "{passed} passed, {failed} failed, {skipped} skipped")?;
    out.flush()?;
    if failed > 0 {
        return Err(Failure::Bad {
            message: format!("{failed} file(s) failed"),
            reported: true,
        });
    }
    Ok(())
}
