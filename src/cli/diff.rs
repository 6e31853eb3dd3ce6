//! `teeoracle diff OLD NEW`: two recordings compared by meaning
//! ([`teeoracle::diff`]).

use super::Failure;
use super::output::{ReportFormat, read, shown, stdout, write_json_doc};
use super::reports::write_file_changes;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::diff::{
    self, CaptureTicks, Change, DemoTicks, FileChange, MapTicks, Options, Report, RolePair,
    SimulatedTicks, TeehistorianTicks, Ticks, folder,
};
use teeoracle::log::game_time;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The old recording (teehistorian, demo or capture) or map, or a
    /// saved `check --format json` report.
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
    /// Demos and captures: compare snapshot items only at ticks where
    /// both files have a snapshot (by default, where either has one,
    /// against the other's items in force). A server running late ticks
    /// several times and snapshots once; a demo written from a
    /// teehistorian file cannot know where.
    #[arg(long)]
    common_snapshots: bool,
    /// Compare what is left out by default too: what changes on every
    /// run of one scenario (header start times and game UUIDs, DDNet's
    /// connection UUIDs, remote-console time prefixes, connection tokens),
    /// network timing in demos and captures (INPUTTIMING messages,
    /// PlayerInfo.latency, what a server decides from inputs as they
    /// arrive: `received_input`), the tick of what DDNet's database thread
    /// times (`database_thread`) and Teeworlds 0.7.5's unset
    /// De_ClientLeave client id. The text output's first line lists them.
    #[arg(long)]
    no_default_ignores: bool,
    /// Compare one thing left out by default (a name from the `ignored`
    /// line: `start_time`, `RCON_LINE.time`, ...); repeatable.
    #[arg(long, value_name = "NAME")]
    keep: Vec<String>,
    /// Differences kept in full (listed by `--format json`); the rest are
    /// counted per category. Bounds memory whatever the files' length.
    #[arg(long, value_name = "N", default_value_t = diff::MAX_DIFFERENCES)]
    max_differences: usize,
    /// Captures: the server's UDP port (default: the port most datagrams
    /// use, in each file).
    #[arg(long)]
    port: Option<u16>,
    /// Teehistorian files: compare the worlds our model of DDNet's physics makes of
    /// their inputs (every character's core, freeze, weapons and inputs,
    /// every projectile and laser, tick by tick) instead of their
    /// records. Each file's map is found by the header's SHA-256 beside
    /// it or under `--maps`.
    #[arg(long)]
    simulate: bool,
    /// With `--simulate`: folders of maps and demos to find the maps in.
    #[arg(long, value_name = "DIR", requires = "simulate")]
    maps: Vec<PathBuf>,
    /// With `--simulate`: step NEW's world with this DDNet release's
    /// physics (`16.4`, `20.1`); OLD's follows its recording server.
    /// `diff F F --simulate --physics R` is what R's physics does to F.
    #[arg(long, value_name = "RELEASE", requires = "simulate",
          value_parser = clap::value_parser!(teeoracle::simulation::Release))]
    physics: Option<teeoracle::simulation::Release>,
    /// `text` for people (the first divergence, a summary), `json` for
    /// programs (every difference).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
}

/// Differences listed in the text form; JSON has all those kept.
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
    if args.old.is_dir() && args.new.is_dir() {
        return folders(&args);
    }
    let (old, new) = (read(&args.old)?, read(&args.new)?);
    if let (Some(a), Some(b)) = (diff::check_document(&old), diff::check_document(&new)) {
        return reports(&args, &a, &b);
    }
    let (format, report) = compare_files((&args.old, &old), (&args.new, &new), &args)?;
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
        ReportFormat::Text => {
            // A map has nothing left out by default.
            if format != "map" {
                write_ignored(&mut out, &report)?;
            }
            write_text(
                &mut out,
                (&shown(&args.old), &shown(&args.new)),
                format,
                &report,
            )?
        }
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

/// The options `args` give, with `defaults` left out unless kept.
fn options(args: &DiffArgs, defaults: diff::Defaults) -> Options {
    Options {
        ignore: args.ignore.clone(),
        only: args.only.clone(),
        no_align: args.no_align,
        common_snapshots: args.common_snapshots,
        max_differences: args.max_differences,
        ..Options::default()
    }
    .with_defaults(defaults, &args.keep, args.no_default_ignores)
}

/// Compares two recordings of one format (their bytes read whole): the
/// format's name and the report. Not two recordings of one format is a
/// usage error; one that does not read is an error (exit 2).
fn compare_files(
    (old_path, old): (&Path, &[u8]),
    (new_path, new): (&Path, &[u8]),
    args: &DiffArgs,
) -> Result<(&'static str, Report), Failure> {
    // A file that cannot be compared is an error (2): 1 means different.
    let broken = |path: &Path, e: &dyn std::fmt::Display| {
        Failure::Unreadable(format!("{}: {e}", shown(path)))
    };
    let paths = (old_path, new_path);
    let th = |b: &[u8]| b.starts_with(teeoracle::teehistorian::MAGIC.as_bytes());
    if args.simulate {
        if !(th(old) && th(new)) {
            return Err(Failure::Usage(format!(
                "--simulate compares two teehistorian files; {} and {} are not",
                shown(old_path),
                shown(new_path)
            )));
        }
        let world = |path: &Path, bytes, physics| {
            let col = super::maps::collision_found(path, &args.maps)?;
            SimulatedTicks::new(bytes, col, physics).map_err(|e| broken(path, &e))
        };
        let (ho, mut o) = world(old_path, old, None)?;
        let (hn, mut n) = world(new_path, new, args.physics)?;
        let options = options(args, diff::SIMULATED);
        let r = compare((&ho, &mut o), (&hn, &mut n), &options, paths)?;
        return Ok(("simulated", r));
    }
    if th(old) && th(new) {
        let (ho, mut o) = TeehistorianTicks::new(old).map_err(|e| broken(old_path, &e))?;
        let (hn, mut n) = TeehistorianTicks::new(new).map_err(|e| broken(new_path, &e))?;
        let options = options(args, diff::TEEHISTORIAN);
        let r = compare((&ho, &mut o), (&hn, &mut n), &options, paths)?;
        Ok(("teehistorian", r))
    } else if teeoracle::demo::is_demo(old) && teeoracle::demo::is_demo(new) {
        let (ho, mut o) = DemoTicks::new(old).map_err(|e| broken(old_path, &e))?;
        let (hn, mut n) = DemoTicks::new(new).map_err(|e| broken(new_path, &e))?;
        let mut options = options(args, diff::DEMO);
        // Two demos of one session keep the session's ticks.
        options.same_session = teeoracle::demo::one_session(old, new);
        let r = compare((&ho, &mut o), (&hn, &mut n), &options, paths)?;
        Ok(("demo", r))
    } else if teeoracle::capture::is_capture(old) && teeoracle::capture::is_capture(new) {
        let read = |bytes: &[u8], path: &Path| {
            let capture = teeoracle::capture::read(bytes).map_err(|e| broken(path, &e))?;
            let port = match args.port {
                Some(p) => p,
                None => teeoracle::session::server_port(&capture)
                    .ok_or_else(|| broken(path, &"no UDP datagram to take the server port from"))?,
            };
            Ok::<_, Failure>((capture, port))
        };
        let (co, po) = read(old, old_path)?;
        let (cn, pn) = read(new, new_path)?;
        let (mut o, mut n) = (CaptureTicks::new(&co, po), CaptureTicks::new(&cn, pn));
        let empty = serde_json::json!({});
        let options = options(args, diff::CAPTURE);
        let r = compare((&empty, &mut o), (&empty, &mut n), &options, paths)?;
        Ok(("capture", r))
    } else if teeoracle::map::is_map(old) && teeoracle::map::is_map(new) {
        let cap = |b: &[u8]| teeoracle::input::default_max_decompressed(b.len() as u64);
        let (ho, mut o) = MapTicks::new(old, cap(old)).map_err(|e| broken(old_path, &e))?;
        let (hn, mut n) = MapTicks::new(new, cap(new)).map_err(|e| broken(new_path, &e))?;
        let options = options(args, diff::MAP);
        let r = compare((&ho, &mut o), (&hn, &mut n), &options, paths)?;
        Ok(("map", r))
    } else {
        Err(Failure::Usage(format!(
            "{} and {} are not two teehistorian files, two demos, two captures or two maps",
            shown(old_path),
            shown(new_path)
        )))
    }
}

/// Compares two recordings (each its header's JSON and its ticks).
fn compare(
    (old_header, old): (&serde_json::Value, &mut dyn Ticks),
    (new_header, new): (&serde_json::Value, &mut dyn Ticks),
    options: &Options,
    (old_path, new_path): (&Path, &Path),
) -> Result<Report, Failure> {
    diff::compare(old_header, new_header, old, new, options).map_err(|(in_old, e)| {
        let path = if in_old { old_path } else { new_path };
        Failure::Unreadable(format!("{}: {e}", shown(path)))
    })
}

/// The first line of the text form: what was left out by default.
fn write_ignored(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    if r.ignored.is_empty() {
        writeln!(out, "ignored by default: nothing (--no-default-ignores)")
    } else {
        writeln!(
            out,
            "ignored by default (--keep NAME or --no-default-ignores to compare): {}",
            r.ignored.join(", ")
        )
    }
}

/// A tick as the text names it: `tick T (m:ss.cc)`, with its map when
/// the file has several; a map's "ticks" are its items (-1) and rows.
fn at(r: &Report, format: &str, segment: u32, tick: i32) -> String {
    if format == "map" {
        return match tick {
            -1 => "the items".to_string(),
            y => format!("row {y}"),
        };
    }
    let map = match r.segments.0.max(r.segments.1) > 1 {
        true => format!("map {}, ", segment + 1),
        false => String::new(),
    };
    format!("{map}tick {tick} ({})", game_time(tick))
}

fn write_text(
    out: &mut impl Write,
    (old, new): (&str, &str),
    format: &str,
    r: &Report,
) -> Result<(), Failure> {
    let n = r.header.len() as u64 + r.total_differences;
    let maps = match r.segments.0.max(r.segments.1) > 1 {
        true => format!(", {} and {} maps", r.segments.0, r.segments.1),
        false => String::new(),
    };
    // A map's first "tick" is its items; the others are its rows.
    let (ticks, word) = match format {
        "map" => (
            (r.ticks.0.saturating_sub(1), r.ticks.1.saturating_sub(1)),
            "rows",
        ),
        _ => (r.ticks, "ticks"),
    };
    writeln!(
        out,
        "{old} -> {new} ({format}, {} and {} {word}{maps}): {}",
        ticks.0,
        ticks.1,
        match n {
            0 => "the same".to_string(),
            1 => "1 difference".to_string(),
            n => format!("{n} differences"),
        }
    )?;
    let shift = |s: i32| match s {
        s if s > 0 => format!("{s} later"),
        s => format!("{} earlier", -s),
    };
    if let Some(why) = &r.session {
        writeln!(
            out,
            "both are of one session ({why}): ticks compared as they are"
        )?;
    }
    if r.common_snapshots {
        writeln!(
            out,
            "snapshot items compared only at ticks where both have a snapshot"
        )?;
        for (file, carried) in [old, new].iter().zip(r.carried_events) {
            if carried > 0 {
                writeln!(
                    out,
                    "{carried} event items of {file}'s other snapshots carried into its next common one"
                )?;
            }
        }
    }
    if r.tick_shift != 0 {
        writeln!(
            out,
            "{new}'s ticks are {} to align the first ticks; ticks below are {old}'s",
            shift(r.tick_shift)
        )?;
    }
    for c in &r.header {
        writeln!(out, "header {}: {} -> {}", c.field, c.old, c.new)?;
    }
    if let Some(m) = &r.movement
        && let Some(f) = &m.first
    {
        let pos =
            |p: Option<(i32, i32)>| p.map_or("absent".to_string(), |(x, y)| format!("({x},{y})"));
        writeln!(
            out,
            "first divergence: {}, {} {}, position {} -> {}",
            at(r, format, f.segment, f.tick),
            f.word,
            f.id,
            pos(f.old),
            pos(f.new)
        )?;
        writeln!(
            out,
            "movement: {} {} moved differently, at {} tick{}",
            m.characters,
            match m.characters {
                1 => "character",
                _ => "characters",
            },
            m.ticks,
            if m.ticks == 1 { "" } else { "s" }
        )?;
    }
    let Some(first) = r.differences.first() else {
        return Ok(());
    };
    let since = match r.last_equal_tick {
        None if format == "map" => "the maps differ in their items".to_string(),
        None => "the files differ from their first tick".to_string(),
        Some(t) => format!("alike up to {}", at(r, format, r.last_equal_segment, t)),
    };
    writeln!(
        out,
        "first difference at {}; {since}:",
        at(r, format, first.segment, first.tick)
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
    let listed = r.differences.len().min(TEXT_LISTED) as u64;
    if r.total_differences > listed {
        let kept = r.differences.len() as u64;
        let json = match kept < r.total_differences {
            true => format!("--format json lists the first {kept}; --max-differences N keeps more"),
            false => "--format json lists every one".to_string(),
        };
        writeln!(out, "  ... {} more ({json})", r.total_differences - listed)?;
    }
    if r.unaligned_ticks > 0 {
        writeln!(
            out,
            "{} tick(s) held more than {} events and were compared as sets, not aligned",
            r.unaligned_ticks,
            diff::ALIGN_WINDOW
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

/// [`folder::entries`], a folder that cannot be listed a usage error.
fn folder_entries(dir: &Path) -> Result<Vec<(PathBuf, folder::Entry)>, Failure> {
    folder::entries(dir).map_err(|(d, e)| Failure::Usage(format!("cannot list {}: {e}", shown(&d))))
}

/// `diff OLD_DIR NEW_DIR`: recordings paired by role
/// ([`teeoracle::diff::folder`]), each pair compared.
fn folders(args: &DiffArgs) -> Result<(), Failure> {
    let (ea, eb) = (folder_entries(&args.old)?, folder_entries(&args.new)?);
    let entries =
        |v: &[(PathBuf, folder::Entry)]| v.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>();
    let (pairs, unpaired) = folder::pair(&entries(&ea), &entries(&eb));
    // Two folders without one recording compared nothing: not "the same".
    if pairs.is_empty() && unpaired.is_empty() {
        return Err(Failure::bad(format!(
            "neither {} nor {} holds a recording (teehistorian, demo or capture): nothing compared",
            shown(&args.old),
            shown(&args.new)
        )));
    }
    let full = |v: &[(PathBuf, folder::Entry)], rel: &str| {
        v.iter()
            .find(|(_, e)| e.path == rel)
            .map(|(p, _)| p.clone())
            .unwrap_or_default()
    };
    #[derive(Serialize)]
    struct PairDiff {
        #[serde(flatten)]
        pair: folder::Pair,
        format: &'static str,
        same: bool,
        #[serde(flatten)]
        report: Report,
    }
    let mut done = Vec::new();
    for pair in pairs {
        let (pa, pb) = (full(&ea, &pair.old), full(&eb, &pair.new));
        // One pair's files at a time in memory.
        let (old, new) = (read(&pa)?, read(&pb)?);
        let (format, report) = compare_files((&pa, &old), (&pb, &new), args)?;
        done.push(PairDiff {
            pair,
            format,
            same: report.same(),
            report,
        });
    }
    let same = unpaired.is_empty() && done.iter().all(|p| p.same);
    let mut out = stdout();
    let (a, b) = (shown(&args.old), shown(&args.new));
    match args.format {
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct Doc<'p> {
                old: String,
                new: String,
                format: &'static str,
                same: bool,
                pairs: &'p [PairDiff],
                unpaired: &'p [folder::Unpaired],
            }
            let doc = Doc {
                old: a.clone(),
                new: b.clone(),
                format: "folder",
                same,
                pairs: &done,
                unpaired: &unpaired,
            };
            write_json_doc(&mut out, "diff", &doc)?;
        }
        ReportFormat::Text => {
            if let Some(first) = done.first() {
                write_ignored(&mut out, &first.report)?;
            }
            writeln!(
                out,
                "{a} -> {b} (folders): {} pair(s) by role, {} differ; {} unpaired",
                done.len(),
                done.iter().filter(|p| !p.same).count(),
                unpaired.len()
            )?;
            for p in &done {
                writeln!(
                    out,
                    "  {:<7} {}: {} <-> {}",
                    if p.same { "same" } else { "differ" },
                    p.pair.role,
                    p.pair.old,
                    p.pair.new
                )?;
            }
            for u in &unpaired {
                let dir = if u.side == "old" { &a } else { &b };
                writeln!(out, "  only in {dir}: {} ({})", u.path, u.role)?;
            }
            for p in done.iter().filter(|p| !p.same) {
                writeln!(out, "\n# {}", p.pair.role)?;
                let (x, y) = (format!("{a}/{}", p.pair.old), format!("{b}/{}", p.pair.new));
                write_text(&mut out, (&x, &y), p.format, &p.report)?;
            }
        }
    }
    out.flush()?;
    match same {
        true => Ok(()),
        false => Err(Failure::reported(format!("{a} and {b} differ"))),
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
    let pairs = diff::role_pairs(old, new);
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
                #[serde(skip_serializing_if = "<[_]>::is_empty")]
                pairs: &'c [RolePair],
                files: &'c [FileChange],
            }
            let doc = Doc {
                old: a.clone(),
                new: b.clone(),
                format: "check_report",
                same: changes.is_empty(),
                pairs: &pairs,
                files: &changes,
            };
            write_json_doc(&mut out, "diff", &doc)?;
        }
        ReportFormat::Text => {
            let mut text = String::new();
            write_file_changes(&mut text, &a, &b, &pairs, &changes);
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
    let options = options(args, diff::TEEHISTORIAN);
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
                &options,
                (&args.old, &args.new),
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
                    Some(r) => write_text(
                        &mut out,
                        (&shown(&args.old), &shown(&args.new)),
                        "teehistorian",
                        r,
                    )?,
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
