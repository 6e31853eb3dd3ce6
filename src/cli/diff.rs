//! `teeoracle diff OLD NEW`: two recordings compared by meaning
//! ([`teeoracle::diff`]).

use super::Failure;
use super::output::{ReportFormat, read, shown, stdout, write_json_doc};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::diff::{
    self, CaptureTicks, Change, DemoTicks, FileChange, Options, Report, TeehistorianTicks, Ticks,
};
use teeoracle::log::game_time;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The old recording (teehistorian, demo or capture), or a saved
    /// `check --format json` report.
    old: PathBuf,
    /// The new recording, of the same format.
    new: PathBuf,
    /// Leave out a header field, an event category (`item:Character`, or
    /// just its kind `item` or name `Character`) or a category's field
    /// (`PlayerInfo.latency`); repeatable, added to the defaults.
    #[arg(long)]
    ignore: Vec<String>,
    /// Compare only these categories (repeatable; `header` for the
    /// header): record kinds, `message`, `fault`, `item` or `item:TYPE`.
    #[arg(long)]
    only: Vec<String>,
    /// Compare tick numbers as they are (by default the new file's ticks
    /// are moved so both first ticks match: two runs of a server start
    /// counting at different moments).
    #[arg(long)]
    no_align: bool,
    /// Compare what is left out by default too: the header fields that
    /// change every run, and network timing in demos and captures
    /// (INPUTTIMING messages, PlayerInfo.latency).
    #[arg(long)]
    no_default_ignores: bool,
    /// Captures: the server's UDP port (default: the port most datagrams
    /// use, in each file).
    #[arg(long)]
    port: Option<u16>,
    /// `text` for people (the first divergence, a summary), `json` for
    /// programs (every difference).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
}

/// Differences listed in the text form; JSON has all of them.
const TEXT_LISTED: usize = 20;

pub fn run(args: DiffArgs) -> Result<(), Failure> {
    let archive = |p: &Path| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        name.and_then(|n| teeoracle::check::claimed_by_name(&n))
            .is_some_and(|f| f.name() == "archive")
    };
    if archive(&args.old) && archive(&args.new) {
        return archives(&args);
    }
    let (old, new) = (read(&args.old)?, read(&args.new)?);
    let options = Options {
        ignore: args.ignore.clone(),
        only: args.only.clone(),
        no_align: args.no_align,
    };
    // A file that cannot be compared is an error (2): 1 means different.
    let broken = |path: &Path, e: &dyn std::fmt::Display| {
        Failure::Unreadable(format!("{}: {e}", shown(path)))
    };
    if let (Some(a), Some(b)) = (check_report(&old), check_report(&new)) {
        return reports(&args, &a, &b);
    }
    let th = |b: &[u8]| b.starts_with(teeoracle::teehistorian::MAGIC.as_bytes());
    let (format, report) = if th(&old) && th(&new) {
        let (ho, mut o) = TeehistorianTicks::new(&old).map_err(|e| broken(&args.old, &e))?;
        let (hn, mut n) = TeehistorianTicks::new(&new).map_err(|e| broken(&args.new, &e))?;
        let r = compare(
            (&ho, &mut o),
            (&hn, &mut n),
            diff::TEEHISTORIAN,
            &options,
            &args,
        )?;
        ("teehistorian", r)
    } else if teeoracle::demo::is_demo(&old) && teeoracle::demo::is_demo(&new) {
        let (ho, mut o) = DemoTicks::new(&old).map_err(|e| broken(&args.old, &e))?;
        let (hn, mut n) = DemoTicks::new(&new).map_err(|e| broken(&args.new, &e))?;
        let r = compare((&ho, &mut o), (&hn, &mut n), diff::DEMO, &options, &args)?;
        ("demo", r)
    } else if teeoracle::capture::is_capture(&old) && teeoracle::capture::is_capture(&new) {
        let read = |bytes: &[u8], path: &Path| {
            let capture = teeoracle::capture::read(bytes).map_err(|e| broken(path, &e))?;
            let port = match args.port {
                Some(p) => p,
                None => teeoracle::session::server_port(&capture)
                    .ok_or_else(|| broken(path, &"no UDP datagram to take the server port from"))?,
            };
            Ok::<_, Failure>((capture, port))
        };
        let (co, po) = read(&old, &args.old)?;
        let (cn, pn) = read(&new, &args.new)?;
        let (mut o, mut n) = (CaptureTicks::new(&co, po), CaptureTicks::new(&cn, pn));
        let empty = serde_json::json!({});
        let r = compare(
            (&empty, &mut o),
            (&empty, &mut n),
            diff::CAPTURE,
            &options,
            &args,
        )?;
        ("capture", r)
    } else {
        return Err(Failure::Usage(format!(
            "{} and {} are not two teehistorian files, two demos or two captures",
            shown(&args.old),
            shown(&args.new)
        )));
    };
    let mut out = stdout();
    match args.format {
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct Doc<'r> {
                old: String,
                new: String,
                format: &'static str,
                same: bool,
                #[serde(flatten)]
                report: &'r Report,
            }
            let doc = Doc {
                old: shown(&args.old),
                new: shown(&args.new),
                format,
                same: report.same(),
                report: &report,
            };
            write_json_doc(&mut out, "diff", &doc)?;
        }
        ReportFormat::Text => write_text(&mut out, &args, format, &report)?,
    }
    out.flush()?;
    if report.same() {
        Ok(())
    } else {
        Err(Failure::reported(format!(
            "{} and {} differ",
            shown(&args.old),
            shown(&args.new)
        )))
    }
}

/// Compares two recordings (each its header's JSON and its ticks) with
/// the format's `defaults` left out unless told not to.
fn compare(
    (old_header, old): (&serde_json::Value, &mut dyn Ticks),
    (new_header, new): (&serde_json::Value, &mut dyn Ticks),
    defaults: diff::Defaults,
    options: &Options,
    args: &DiffArgs,
) -> Result<Report, Failure> {
    let mut options = options.clone();
    let ignored = match args.no_default_ignores {
        true => &[][..],
        false => {
            if defaults.timing {
                options
                    .ignore
                    .extend(diff::TIMING_IGNORED.iter().map(|s| s.to_string()));
            }
            defaults.header
        }
    };
    diff::compare(old_header, new_header, ignored, old, new, &options).map_err(|(in_old, e)| {
        let path = if in_old { &args.old } else { &args.new };
        Failure::Unreadable(format!("{}: {e}", shown(path)))
    })
}

fn write_text(
    out: &mut impl Write,
    args: &DiffArgs,
    format: &str,
    r: &Report,
) -> Result<(), Failure> {
    let (old, new) = (shown(&args.old), shown(&args.new));
    let n = r.header.len() + r.differences.len();
    writeln!(
        out,
        "{old} -> {new} ({format}, {} and {} ticks): {}",
        r.ticks.0,
        r.ticks.1,
        match n {
            0 => "the same".to_string(),
            1 => "1 difference".to_string(),
            n => format!("{n} differences"),
        }
    )?;
    if r.tick_shift != 0 {
        writeln!(
            out,
            "{new}'s ticks are {} to align the first ticks; ticks below are {old}'s",
            match r.tick_shift {
                s if s > 0 => format!("{s} later"),
                s => format!("{} earlier", -s),
            }
        )?;
    }
    for c in &r.header {
        writeln!(out, "header {}: {} -> {}", c.field, c.old, c.new)?;
    }
    let Some(first) = r.differences.first() else {
        return Ok(());
    };
    let after = r
        .last_equal_tick
        .map_or(String::new(), |t| format!(", after tick {t} alike"));
    writeln!(
        out,
        "first divergence at tick {} ({}){after}:",
        first.tick,
        game_time(first.tick)
    )?;
    for (tick, e) in &r.context {
        writeln!(out, "  {tick:>7}   {}", e.text())?;
    }
    for d in r.differences.iter().take(TEXT_LISTED) {
        if let Some(o) = &d.old {
            writeln!(out, "  {:>7} - {}", d.tick, o.text())?;
        }
        if let Some(n) = &d.new {
            writeln!(out, "  {:>7} + {}", d.tick, n.text())?;
        }
        if d.change == Change::Changed {
            for f in &d.fields {
                writeln!(out, "            {}: {} -> {}", f.field, f.old, f.new)?;
            }
        }
    }
    if r.differences.len() > TEXT_LISTED {
        writeln!(
            out,
            "  ... {} more (--format json lists every one)",
            r.differences.len() - TEXT_LISTED
        )?;
    }
    writeln!(out, "summary:")?;
    for (category, c) in &r.summary {
        let mut parts = Vec::new();
        for (n, word) in [
            (c.added, "added"),
            (c.removed, "removed"),
            (c.changed, "changed"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {word}"));
            }
        }
        writeln!(out, "  {category}: {}", parts.join(", "))?;
    }
    Ok(())
}

/// `bytes` as a `check --format json` document, if they are one.
fn check_report(bytes: &[u8]) -> Option<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    (v["kind"] == "check").then_some(v)
}

/// A saved `check --format json` report (`check --baseline`).
pub fn read_check_report(path: &Path) -> Result<serde_json::Value, Failure> {
    check_report(&read(path)?).ok_or_else(|| {
        Failure::Usage(format!(
            "{}: not a `check --format json` report",
            shown(path)
        ))
    })
}

/// The text form of two reports' differences, file by file.
pub fn write_file_changes(out: &mut String, old: &str, new: &str, changes: &[FileChange]) {
    use std::fmt::Write as _;
    let _ = match changes.len() {
        0 => writeln!(out, "{old} -> {new} (check reports): the same"),
        n => writeln!(out, "{old} -> {new} (check reports): {n} file(s) differ"),
    };
    for c in changes {
        let word = match c.change {
            Change::Added => "new",
            Change::Removed => "gone",
            Change::Changed => "changed",
        };
        let _ = writeln!(out, "  {word} {}", c.path);
        for f in &c.fields {
            let _ = writeln!(out, "      {}: {} -> {}", f.field, f.old, f.new);
        }
    }
}

/// `diff` of two `check` reports: which files changed verdict, findings,
/// counts or summary.
fn reports(
    args: &DiffArgs,
    old: &serde_json::Value,
    new: &serde_json::Value,
) -> Result<(), Failure> {
    let changes = diff::compare_check_reports(old, new);
    let (a, b) = (shown(&args.old), shown(&args.new));
    let mut out = stdout();
    match args.format {
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct Doc<'c> {
                old: String,
                new: String,
                format: &'static str,
                same: bool,
                files: &'c [FileChange],
            }
            let doc = Doc {
                old: a.clone(),
                new: b.clone(),
                format: "check_report",
                same: changes.is_empty(),
                files: &changes,
            };
            write_json_doc(&mut out, "diff", &doc)?;
        }
        ReportFormat::Text => {
            let mut text = String::new();
            write_file_changes(&mut text, &a, &b, &changes);
            out.write_all(text.as_bytes())?;
        }
    }
    out.flush()?;
    match changes.is_empty() {
        true => Ok(()),
        false => Err(Failure::reported(format!("{a} and {b} differ"))),
    }
}

/// `diff` of two recording archives: each map's teehistorian recording,
/// map by map (by number); a map only one archive has is named.
fn archives(args: &DiffArgs) -> Result<(), Failure> {
    use teeoracle::archive::Archive;
    let open =
        |p: &Path| Archive::open(p).map_err(|e| Failure::Unreadable(format!("{}: {e}", shown(p))));
    let (a, b) = (open(&args.old)?, open(&args.new)?);
    let options = Options {
        ignore: args.ignore.clone(),
        only: args.only.clone(),
        no_align: args.no_align,
    };
    let (ma, mb) = (a.map_numbers(), b.map_numbers());
    let mut maps: Vec<u32> = ma.iter().chain(&mb).copied().collect();
    maps.sort_unstable();
    maps.dedup();
    #[derive(Serialize)]
    struct MapDiff {
        map: u32,
        /// `both`, `old_only` or `new_only`.
        present: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        same: Option<bool>,
        #[serde(skip_serializing_if = "Option::is_none", flatten)]
        report: Option<Report>,
    }
    let mut out_maps = Vec::new();
    for n in maps {
        let present = match (ma.contains(&n), mb.contains(&n)) {
            (true, true) => "both",
            (true, false) => "old_only",
            _ => "new_only",
        };
        let report = if present == "both" {
            let member = format!("{n}/demodata.bin");
            let bytes = |ar: &Archive, p: &Path| {
                ar.member_bytes(&member)
                    .map_err(|e| Failure::Unreadable(format!("{}: {member}: {e}", shown(p))))
            };
            let (x, y) = (bytes(&a, &args.old)?, bytes(&b, &args.new)?);
            let broken = |p: &Path, e: &dyn std::fmt::Display| {
                Failure::Unreadable(format!("{}: {member}: {e}", shown(p)))
            };
            let (ho, mut o) = TeehistorianTicks::new(&x).map_err(|e| broken(&args.old, &e))?;
            let (hn, mut n) = TeehistorianTicks::new(&y).map_err(|e| broken(&args.new, &e))?;
            Some(compare(
                (&ho, &mut o),
                (&hn, &mut n),
                diff::TEEHISTORIAN,
                &options,
                args,
            )?)
        } else {
            None
        };
        out_maps.push(MapDiff {
            map: n,
            present,
            same: report.as_ref().map(Report::same),
            report,
        });
    }
    let same = out_maps.iter().all(|m| m.same == Some(true));
    let mut out = stdout();
    match args.format {
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct Doc<'m> {
                old: String,
                new: String,
                format: &'static str,
                same: bool,
                maps: &'m [MapDiff],
            }
            let doc = Doc {
                old: shown(&args.old),
                new: shown(&args.new),
                format: "archive",
                same,
                maps: &out_maps,
            };
            write_json_doc(&mut out, "diff", &doc)?;
        }
        ReportFormat::Text => {
            for m in &out_maps {
                writeln!(out, "# map {}", m.map)?;
                match &m.report {
                    Some(r) => write_text(&mut out, args, "teehistorian", r)?,
                    None => writeln!(
                        out,
                        "only in {}",
                        if m.present == "old_only" {
                            shown(&args.old)
                        } else {
                            shown(&args.new)
                        }
                    )?,
                }
            }
        }
    }
    out.flush()?;
    match same {
        true => Ok(()),
        false => Err(Failure::reported(format!(
            "{} and {} differ",
            shown(&args.old),
            shown(&args.new)
        ))),
    }
}
