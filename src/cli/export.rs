//! `teeoracle export`: recordings as Parquet tables
//! ([`teeoracle::export`]).

use super::Failure;
use super::output::{ReportFormat, counter, stdout, write_json_doc};
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::check::{self, Options, Source, Status, Totals, Verdict};
use teeoracle::export::{Exporter, SCHEMA_VERSION, TABLES};

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Files or folders (walked recursively in name order), as `check`
    /// takes them.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The folder to write the tables to (made if missing): one Parquet
    /// file per table, replaced if there.
    #[arg(long, value_name = "DIR", required = true)]
    to: PathBuf,
    #[command(flatten)]
    judging: super::check::Judging,
    /// `text`: a line per file and per table; `json`: one document of
    /// kind `export`.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
}

/// One file of the `export` document.
#[derive(Serialize)]
struct FileEntry<'a> {
    path: &'a str,
    format: Option<&'static str>,
    status: Status,
    rows: BTreeMap<&'static str, u64>,
}

/// One table of the `export` document.
#[derive(Serialize)]
struct TableEntry {
    table: &'static str,
    path: String,
    rows: u64,
}

pub fn run(args: ExportArgs) -> Result<(), Failure> {
    let mut files = Vec::new();
    for p in &args.paths {
        // A file that cannot be read is a failed file among the others
        // (its check says why), not the end of the run.
        if let Err(e) = super::check::collect(p, true, &mut files) {
            if p.is_dir() {
                return Err(e);
            }
            files.push((p.clone(), true));
        }
    }
    if args.to.exists() && !args.to.is_dir() {
        return Err(Failure::Usage(format!(
            "--to {}: not a folder",
            args.to.display()
        )));
    }
    std::fs::create_dir_all(&args.to)
        .map_err(|e| Failure::Usage(format!("--to {}: {e}", args.to.display())))?;
    let maps = match args.judging.no_simulate {
        true => None,
        false => Some(std::sync::Arc::new(super::maps::maps_for(
            &files,
            &args.judging.maps,
            args.judging.walked,
        )?)),
    };
    let mut exporter = Exporter::create(&args.to)?;
    let mut out = stdout();
    let mut progress = counter(files.len() as u64, "files");
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(files.len());
    let mut entries = Vec::with_capacity(files.len());
    for (path, named) in &files {
        let options = Options {
            named: *named && !args.judging.walked,
            maps: maps.clone(),
            ..Options::default()
        };
        let verdict = check::check(Source::arg(path), &options);
        let rows = exporter.add(path, &verdict)?;
        progress.tick(&path.display().to_string());
        if args.format == ReportFormat::Text {
            let counts: Vec<String> = TABLES
                .iter()
                .zip(rows)
                .filter(|&((t, _), n)| n > 0 && *t != "check_reports")
                .map(|((t, _), n)| format!("{t}={n}"))
                .collect();
            writeln!(
                out,
                "{:<6}  {:<12}  {}  {}",
                verdict.status.word(),
                verdict.format.unwrap_or("-"),
                verdict.path,
                match counts.is_empty() {
                    true => "no rows but check_reports".to_string(),
                    false => counts.join(" "),
                }
            )?;
        }
        entries.push(rows);
        verdicts.push(verdict);
    }
    drop(progress);
    let tables = exporter.finish()?;
    let totals = Totals::of(&verdicts);
    let tables: Vec<TableEntry> = TABLES
        .iter()
        .zip(tables)
        .map(|((name, _), (path, rows))| TableEntry {
            table: name,
            path: path.display().to_string(),
            rows,
        })
        .collect();
    match args.format {
        ReportFormat::Text => {
            writeln!(out)?;
            for t in &tables {
                writeln!(out, "{:>9} rows  {}", t.rows, t.path)?;
            }
            writeln!(
                out,
                "\n{} passed ({} with warnings), {} failed, {} skipped; export schema version {SCHEMA_VERSION}",
                totals.passed, totals.warned, totals.failed, totals.skipped
            )?;
        }
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct Document<'a> {
                export_schema_version: u32,
                to: String,
                files: Vec<FileEntry<'a>>,
                tables: &'a [TableEntry],
                totals: &'a Totals,
            }
            let files = verdicts
                .iter()
                .zip(&entries)
                .map(|(v, rows)| FileEntry {
                    path: &v.path,
                    format: v.format,
                    status: v.status,
                    rows: TABLES
                        .iter()
                        .zip(rows)
                        .map(|((t, _), &n)| (*t, n))
                        .collect(),
                })
                .collect();
            let doc = Document {
                export_schema_version: SCHEMA_VERSION,
                to: shown_dir(&args.to),
                files,
                tables: &tables,
                totals: &totals,
            };
            write_json_doc(&mut out, "export", &doc)?;
        }
    }
    out.flush()?;
    if totals.failed > 0 {
        return Err(Failure::reported(format!(
            "{} file(s) failed",
            totals.failed
        )));
    }
    if totals.checked() == 0 {
        return Err(Failure::bad(
            "nothing was exported: no file is a format teeoracle reads",
        ));
    }
    Ok(())
}

fn shown_dir(p: &Path) -> String {
    p.display().to_string()
}
