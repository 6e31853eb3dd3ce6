//! `teeoracle check`: walk paths, recognise formats, check each file
//! through its [`teeoracle::check::Format`].

use super::Failure;
use super::output::{counter, stdout, write_json_doc, write_json_line, write_stream_start};
use super::reports::{read_check_report, write_file_changes, write_table};
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::check::{self, Options, Source, Totals, Verdict};

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or folders (walked recursively in name order; `-` is standard
    /// input). Default: the bundled `corpus/`. A file named here that
    /// nothing recognises fails; in a folder it is skipped.
    paths: Vec<PathBuf>,
    /// Output: a table (`text`), one JSON document (`json`), or one JSON
    /// line per file (`jsonl`).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    format: CheckFormat,
    /// Fail files that pass with a warning (a truncated recording,
    /// non-canonical ints).
    #[arg(long)]
    deny_warnings: bool,
    /// A saved `check --format json` report: after checking, name every
    /// file whose verdict, findings, counts or summary changed (or that
    /// is new or gone), and exit 1 if any did.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// The most bytes a compressed file (or archive) may decompress to
    /// (default: 64 times its size, at least 64 MiB). Takes a K, M or G
    /// suffix (powers of 1024).
    #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
    max_decompressed: Option<u64>,
    /// Files checked at once (default: one per core). The output is in the
    /// same order whatever the number.
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    #[command(flatten)]
    judging: Judging,
}

// How files are judged, for `check` and `export` alike. Not a doc
// comment: clap would show it as the about of the (deferred) commands
// built with these arguments.
#[derive(Args, Debug)]
pub struct Judging {
    /// Folders of maps (and demos, whose embedded maps count) to simulate
    /// teehistorian files on, found by the SHA-256 their headers name.
    /// The maps and demos beside a teehistorian file are always looked
    /// at.
    #[arg(long, value_name = "DIR")]
    pub maps: Vec<PathBuf>,
    /// Do not simulate teehistorian files.
    #[arg(long)]
    pub no_simulate: bool,
    /// Judge the files named as if found in a folder: one that nothing
    /// recognises is skipped, not failed, and the demos under `--maps`
    /// are maps only, paired with no teehistorian file (for a job that
    /// hands a folder's files out one at a time with the folder as
    /// `--maps`, such as examples/dask).
    #[arg(long)]
    pub walked: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// A table, a line per file, and totals.
    Text,
    /// One JSON document of kind `check`.
    Json,
    /// A `start` line, one `file` line per file, an `end` line with the
    /// totals.
    Jsonl,
}

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("corpus")]
    } else {
        args.paths
    };
    let mut files = Vec::new();
    for p in &paths {
        if p == Path::new("-") {
            files.push((p.clone(), true));
        } else {
            collect(p, true, &mut files)?;
        }
    }
    let maps = match args.judging.no_simulate {
        true => None,
        false => Some(std::sync::Arc::new(super::maps::maps_for(
            &files,
            &args.judging.maps,
            args.judging.walked,
        )?)),
    };
    let mut out = stdout();
    if args.format == CheckFormat::Jsonl {
        write_stream_start(&mut out, "check", &shown_paths(&paths))?;
    }
    let mut progress = counter(files.len() as u64, "files");
    let mut verdicts = Vec::with_capacity(files.len());
    let jobs = args.jobs.unwrap_or_else(super::output::cores);
    let check_one = |(path, named): &(PathBuf, bool)| {
        let options = Options {
            deny_warnings: args.deny_warnings,
            named: *named && !args.judging.walked,
            max_decompressed: args.max_decompressed,
            maps: maps.clone(),
        };
        check::check(Source::arg(path), &options)
    };
    // The largest files first, so that no large one is left for last
    // while the other threads idle.
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut schedule: Vec<usize> = (0..files.len()).collect();
    schedule.sort_by_key(|&i| std::cmp::Reverse(size(&files[i].0)));
    check::in_order(
        &files,
        &schedule,
        jobs,
        || (),
        |(), f| check_one(f),
        |i, verdict| {
            progress.tick(&files[i].0.display().to_string());
            if args.format == CheckFormat::Jsonl {
                write_json_line(&mut out, &FileLine::of(&verdict))?;
                out.flush()?;
            }
            verdicts.push(verdict);
            Ok::<(), Failure>(())
        },
    )?;
    drop(progress);
    let totals = Totals::of(&verdicts);
    let document = teeoracle::check::CheckDocument {
        files: &verdicts,
        totals: &totals,
        roles: teeoracle::diff::folder::roles_in_folders(&paths),
    };
    // Read before any output: a baseline that does not read is a usage
    // error, not a verdict.
    let baseline = match &args.baseline {
        Some(path) => Some(read_check_report(path)?),
        None => None,
    };
    match args.format {
        CheckFormat::Text => write_table(&mut out, &verdicts, &totals)?,
        CheckFormat::Json => write_json_doc(&mut out, "check", &document)?,
        CheckFormat::Jsonl => {
            #[derive(Serialize)]
            struct EndLine<'a> {
                kind: &'static str,
                #[serde(flatten)]
                totals: &'a Totals,
            }
            write_json_line(
                &mut out,
                &EndLine {
                    kind: "end",
                    totals: &totals,
                },
            )?;
        }
    }
    out.flush()?;
    if let (Some(base), Some(path)) = (baseline, &args.baseline) {
        let now = serde_json::to_value(teeoracle::schema::Document::new("check", &document))
            .map_err(|e| Failure::bad(format!("the report as JSON: {e}")))?;
        let changes = teeoracle::diff::compare_check_reports(&base, &now);
        let pairs = teeoracle::diff::role_pairs(&base, &now);
        // The table's place in text; stderr beside a JSON document.
        let mut lines = String::new();
        write_file_changes(
            &mut lines,
            &path.display().to_string(),
            "this run",
            &pairs,
            &changes,
        );
        match args.format {
            CheckFormat::Text => write!(out, "{lines}")?,
            _ => eprint!("{lines}"),
        }
        out.flush()?;
        if !changes.is_empty() {
            return Err(Failure::reported(format!(
                "{} file(s) differ from the baseline",
                changes.len()
            )));
        }
    }
    if totals.failed > 0 {
        return Err(Failure::reported(format!(
            "{} file(s) failed",
            totals.failed
        )));
    }
    if totals.checked() == 0 {
        return Err(Failure::bad(format!(
            "nothing was checked: no file under {} is a format teeoracle checks",
            shown_paths(&paths)
        )));
    }
    Ok(())
}

fn shown_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `file` line of `--format jsonl`.
#[derive(Serialize)]
struct FileLine<'a> {
    kind: &'static str,
    #[serde(flatten)]
    verdict: &'a Verdict,
}

impl<'a> FileLine<'a> {
    fn of(verdict: &'a Verdict) -> Self {
        FileLine {
            kind: "file",
            verdict,
        }
    }
}

/// Files below `path` ([`teeoracle::files::walk`]); `named` for a file
/// given as an argument.
pub(super) fn collect(
    path: &Path,
    named: bool,
    files: &mut Vec<(PathBuf, bool)>,
) -> Result<(), Failure> {
    teeoracle::files::walk(path, named, files).map_err(|e| Failure::bad(e.to_string()))
}
