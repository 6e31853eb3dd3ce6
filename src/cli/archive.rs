//! `teeoracle archive ...` and the archive check shared with `check`.

use super::Failure;
use super::output::{
    Counter, ReportFormat, StateFormat, StreamFormat, counter, shown, stdout, write_json_doc,
    write_json_line, write_state, write_stream_start,
};
use clap::Subcommand;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::archive::log::LogEvent;
use teeoracle::archive::{
    self, Archive, ArchiveError, Compression, MemberOutcome, PackOptions, Progress, Report,
    TICKS_PER_SECOND,
};
use teeoracle::check::Severity;

#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum ArchiveCommand {
    /// Pack teehistorian files (in session order, or linked by
    /// prev_game_uuid) into OUT (.tar.bz2, or .tar for no compression).
    Pack {
        /// The archive to write (.tar.bz2, or .tar).
        out: PathBuf,
        /// The teehistorian files of the session (`-`: standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Checkpoint spacing in seconds of game time.
        #[arg(long, default_value_t = 30.0)]
        every: f64,
        /// The archive's name (default: the first recording's server name).
        #[arg(long)]
        name: Option<String>,
        /// Its author (default: the first recording's server version).
        #[arg(long)]
        author: Option<String>,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Top-level info, maps and members.
    Info {
        /// The archive (`-`: standard input).
        archive: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Extract into DIR (empty or absent), rebuilding missing or damaged
    /// members.
    Unpack {
        /// The archive (`-`: standard input).
        archive: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// The folder to extract into (empty or absent).
        dir: PathBuf,
    },
    /// World state of a map at a tick, from the nearest earlier checkpoint.
    Seek {
        /// The archive (`-`: standard input).
        archive: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// Map folder number (1 is the first map).
        #[arg(long, default_value_t = 1)]
        map: u32,
        /// The tick (as `--at` of `teehistorian replay`); one after the
        /// map's last tick is a usage error.
        #[arg(long, visible_alias = "tick")]
        at: i32,
        /// `ron` for people and Rust, `json` for programs.
        #[arg(long, value_enum, default_value_t = StateFormat::Ron)]
        format: StateFormat,
        /// Also replay from the start and fail if the checkpoint used
        /// disagrees (as slow as a full replay).
        #[arg(long)]
        check: bool,
    },
    /// Check every member against the recordings; exit 1 if any is wrong.
    Verify {
        /// The archive (`-`: standard input).
        archive: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// The event log (log.txt) of every map, or of one.
    Log {
        /// The archive (`-`: standard input).
        archive: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// Only this map folder (1 is the first map).
        #[arg(long)]
        map: Option<u32>,
        /// `text`: the log.txt lines; `jsonl`: one JSON object per event.
        #[arg(long, value_enum, default_value_t = StreamFormat::Text)]
        format: StreamFormat,
    },
}

// How an archive is read. Not a doc comment: clap would show it as the about
// of the (deferred) commands built with these arguments.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ReadArgs {
    /// The most bytes the archive may decompress to, and the largest
    /// member (default: 64 times the archive's size, at least 64 MiB).
    /// Takes a K, M or G suffix (powers of 1024).
    #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
    max_decompressed: Option<u64>,
}

impl ReadArgs {
    fn open(self, path: &Path, full: bool) -> Result<Archive, ArchiveError> {
        let options = archive::OpenOptions {
            full,
            max_decompressed: self.max_decompressed,
        };
        Archive::open_with(path, &options)
    }
}

impl From<ArchiveError> for Failure {
    fn from(e: ArchiveError) -> Self {
        if e.is_request() {
            Failure::Usage(e.to_string())
        } else {
            Failure::bad(e)
        }
    }
}

pub fn run(cmd: ArchiveCommand) -> Result<(), Failure> {
    // An archive is read by seeking: `-` is spooled to a temporary file
    // first, kept until the command is done.
    let mut spooled = Vec::new();
    let mut seekable = |path: PathBuf| -> Result<PathBuf, Failure> {
        if path != Path::new("-") {
            return Ok(path);
        }
        let mut tmp = tempfile::Builder::new()
            .prefix("teeoracle-stdin-")
            .tempfile()
            .map_err(|e| Failure::bad(format!("a temporary file for standard input: {e}")))?;
        std::io::copy(&mut std::io::stdin().lock(), &mut tmp)
            .map_err(|e| Failure::bad(format!("-: {e}")))?;
        let kept = tmp.path().to_path_buf();
        spooled.push(tmp);
        Ok(kept)
    };
    match cmd {
        ArchiveCommand::Pack {
            out,
            files,
            every,
            name,
            author,
            format,
        } => {
            let files = files
                .into_iter()
                .map(&mut seekable)
                .collect::<Result<Vec<_>, _>>()?;
            pack(&out, &files, every, name, author, format)
        }
        ArchiveCommand::Info {
            archive,
            read,
            format,
        } => {
            let path = seekable(archive)?;
            info(&path, read.open(&path, false)?, format)
        }
        ArchiveCommand::Unpack { archive, read, dir } => {
            let path = seekable(archive)?;
            unpack(&path, read.open(&path, true)?, &dir)
        }
        ArchiveCommand::Seek {
            archive,
            read,
            map,
            at,
            format,
            check,
        } => {
            let path = seekable(archive)?;
            seek(&path, read.open(&path, false)?, map, at, format, check)
        }
        ArchiveCommand::Verify {
            archive,
            read,
            format,
        } => {
            let path = seekable(archive)?;
            verify(&path, read.open(&path, true)?, format)
        }
        ArchiveCommand::Log {
            archive,
            read,
            map,
            format,
        } => {
            let path = seekable(archive)?;
            log(&path, read.open(&path, false)?, map, format)
        }
    }
}

/// A progress bar over the bytes of recordings a long operation reads,
/// counted in MiB (the shared counter counts whole units).
#[derive(Default)]
struct BytesBar {
    bar: Option<Counter>,
    shown: u64,
}

impl BytesBar {
    const MIB: u64 = 1 << 20;

    fn update(&mut self, p: Progress) {
        let bar = self
            .bar
            .get_or_insert_with(|| counter(p.total.div_ceil(Self::MIB), "MiB of recordings"));
        while self.shown < p.done / Self::MIB {
            bar.tick("");
            self.shown += 1;
        }
    }
}

/// The compression an output name asks for: `.tar` is plain, anything
/// else bzip2; names of compressions teeoracle only reads are refused.
fn compression_for(out: &Path) -> Result<Compression, Failure> {
    let name = out.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".tar") {
        return Ok(Compression::None);
    }
    for ext in [".tar.gz", ".tgz", ".tar.xz", ".tar.zst"] {
        if name.ends_with(ext) {
            return Err(Failure::Usage(format!(
                "{}: archives are written as .tar.bz2 (or plain .tar); {ext} is read only",
                out.display()
            )));
        }
    }
    Ok(Compression::Bzip2)
}

fn pack(
    out: &Path,
    files: &[std::path::PathBuf],
    every: f64,
    name: Option<String>,
    author: Option<String>,
    format: ReportFormat,
) -> Result<(), Failure> {
    let ticks = (every * f64::from(TICKS_PER_SECOND)).round();
    if !(1.0..=f64::from(i32::MAX)).contains(&ticks) {
        return Err(Failure::Usage(format!(
            "--every {every}: expected a spacing of at least one tick (0.02 s)"
        )));
    }
    let options = PackOptions {
        every: ticks as i32,
        compression: compression_for(out)?,
        name,
        author,
    };
    let mut bar = BytesBar::default();
    let packed = archive::pack_with(out, files, &options, &mut |p| bar.update(p))?;
    drop(bar);
    let mut o = stdout();
    match format {
        ReportFormat::Json => write_json_doc(&mut o, "archive_pack", &packed)?,
        ReportFormat::Text => {
            for m in &packed.maps {
                for f in m.findings.iter().filter(|f| f.severity >= Severity::Warn) {
                    eprintln!("teeoracle: warning: {}: {}", m.input.display(), f.message);
                }
            }
            writeln!(
                o,
                "packed {} map(s) into {} ({} bytes, {}, a checkpoint every {} ticks)",
                packed.maps.len(),
                out.display(),
                packed.bytes,
                packed.compression.name(),
                packed.every
            )?;
            for m in &packed.maps {
                writeln!(
                    o,
                    "  {}/  {:<12} {:>9} bytes {:>8} records  last tick {:>7}  {:>4} checkpoint(s)  {}",
                    m.map,
                    m.map_name.as_deref().unwrap_or("-"),
                    m.bytes,
                    m.records,
                    m.last_tick,
                    m.checkpoints,
                    m.input.display()
                )?;
            }
        }
    }
    o.flush()?;
    Ok(())
}

fn info(path: &Path, mut a: Archive, format: ReportFormat) -> Result<(), Failure> {
    let s = a.summary()?;
    let mut o = stdout();
    if format == ReportFormat::Json {
        #[derive(Serialize)]
        struct Info<'s> {
            archive: String,
            #[serde(flatten)]
            summary: &'s archive::Summary,
        }
        let doc = Info {
            archive: shown(path),
            summary: &s,
        };
        write_json_doc(&mut o, "archive_info", &doc)?;
        o.flush()?;
        return Ok(());
    }
    let how = if s.indexed {
        "read through index.txt"
    } else {
        "read from the start"
    };
    writeln!(o, "archive:     {}", path.display())?;
    writeln!(
        o,
        "stored:      {}, {} bytes, {how}",
        s.compression.name(),
        s.bytes
    )?;
    writeln!(o, "version:     {}", s.top.version)?;
    writeln!(o, "name:        {}", s.top.name)?;
    writeln!(o, "author:      {}", s.top.author)?;
    writeln!(o, "date:        {}", s.top.date)?;
    writeln!(
        o,
        "checkpoints: every {} ticks ({} s)",
        s.top.every,
        archive::text::seconds(s.top.every)
    )?;
    writeln!(o, "maps:        {}", s.maps.len())?;
    writeln!(
        o,
        "  map  {:<16} {:>8} {:>9} {:>11} {:>10}  game",
        "name", "ticks", "seconds", "checkpoints", "recording"
    )?;
    let mut previous: Option<&str> = None;
    for m in &s.maps {
        let continues = match (&m.prev_game_uuid, previous) {
            (Some(p), Some(q)) if p == q => format!(" (continues map {})", m.map - 1),
            _ => String::new(),
        };
        writeln!(
            o,
            "  {:<4} {:<16} {:>8} {:>9} {:>11} {:>10}  {}{continues}",
            m.map,
            m.map_name.as_deref().unwrap_or("-"),
            m.ticks,
            archive::text::seconds(m.ticks),
            m.checkpoints,
            m.recording_bytes
                .map_or("missing".to_string(), |b| b.to_string()),
            m.game_uuid.as_deref().unwrap_or("-"),
        )?;
        previous = m.game_uuid.as_deref();
    }
    writeln!(o, "members:     {}", s.members.len())?;
    for m in &s.members {
        writeln!(o, "  {:>10}  {}", m.size, m.name)?;
    }
    o.flush()?;
    for note in &s.notes {
        eprintln!("teeoracle: note: {}: {note}", path.display());
    }
    Ok(())
}

fn seek(
    path: &Path,
    mut a: Archive,
    map: u32,
    tick: i32,
    format: StateFormat,
    check: bool,
) -> Result<(), Failure> {
    let s = a.seek(map, tick)?;
    if check && a.replay_from_start(map, tick)? != s.world {
        let from = s.from.as_ref().map_or("the replay", |r| r.member.as_str());
        return Err(Failure::bad(format!(
            "{}: map {map} at tick {tick}: {from} disagrees with a replay from the start (run `teeoracle archive verify`)",
            path.display()
        )));
    }
    for note in &s.notes {
        eprintln!("teeoracle: warning: {}: {note}", path.display());
    }
    match &s.from {
        Some(r) => eprintln!(
            "teeoracle: note: map {map} from {} (tick {}, byte {}), then {} record(s)",
            r.member, r.tick, r.offset, s.records
        ),
        None => eprintln!(
            "teeoracle: note: map {map} from the start, {} record(s)",
            s.records
        ),
    }
    let mut o = stdout();
    write_state(&mut o, format, "teehistorian_world", &s.world)?;
    o.flush()?;
    Ok(())
}

fn print_report(o: &mut impl Write, path: &Path, r: &Report, all: bool) -> Result<(), Failure> {
    let width = r.verdicts.iter().map(|v| v.member.len()).max().unwrap_or(8);
    writeln!(
        o,
        "archive: {} ({}, {} bytes)",
        path.display(),
        r.compression.name(),
        r.bytes
    )?;
    for v in r
        .verdicts
        .iter()
        .filter(|v| all || v.status != MemberOutcome::Ok)
    {
        writeln!(
            o,
            "{:<7}  {:<width$}  {}",
            v.status.word(),
            v.member,
            v.detail
        )?;
    }
    Ok(())
}

fn verify(path: &Path, archive: Archive, format: ReportFormat) -> Result<(), Failure> {
    let mut bar = BytesBar::default();
    let r = archive.verify_with(&mut |p| bar.update(p));
    drop(bar);
    let mut o = stdout();
    match format {
        ReportFormat::Json => {
            write_json_doc(&mut o, "archive_verify", &r.document(shown(path)))?;
        }
        ReportFormat::Text => {
            print_report(&mut o, path, &r, true)?;
            writeln!(o, "{}", r.totals())?;
        }
    }
    o.flush()?;
    if r.failed() {
        return Err(Failure::Bad {
            message: format!("{}: verification failed", path.display()),
            reported: true,
        });
    }
    Ok(())
}

fn unpack(path: &Path, archive: Archive, dir: &Path) -> Result<(), Failure> {
    let r = archive.unpack(dir)?;
    let mut o = stdout();
    print_report(&mut o, path, &r, false)?;
    writeln!(o, "unpacked into {}: {}", dir.display(), r.totals())?;
    o.flush()?;
    if r.failed() {
        return Err(Failure::Bad {
            message: format!("{}: some members were wrong (see above)", path.display()),
            reported: true,
        });
    }
    Ok(())
}

fn log(path: &Path, mut a: Archive, map: Option<u32>, format: StreamFormat) -> Result<(), Failure> {
    let maps = match map {
        Some(n) => vec![n],
        None => a.map_numbers(),
    };
    let mut o = stdout();
    if format == StreamFormat::Jsonl {
        write_stream_start(&mut o, "archive log", &shown(path))?;
    }
    let mut events = 0u64;
    for &n in &maps {
        // A map the archive listed but cannot give is a damaged archive,
        // not a bad request.
        let (text, note) = a.log(n).map_err(|e| match map {
            None => Failure::bad(e),
            Some(_) => e.into(),
        })?;
        match format {
            StreamFormat::Text => {
                if let Some(note) = &note {
                    eprintln!("teeoracle: note: {}: {note}", path.display());
                }
                if map.is_none() {
                    writeln!(o, "# map {n}")?;
                }
                o.write_all(text.as_bytes())?;
            }
            StreamFormat::Jsonl => {
                #[derive(Serialize)]
                struct Line<'e> {
                    kind: &'static str,
                    map: u32,
                    #[serde(flatten)]
                    event: &'e LogEvent,
                }
                #[derive(Serialize)]
                struct Note<'n> {
                    kind: &'static str,
                    map: u32,
                    message: &'n str,
                }
                if let Some(message) = &note {
                    let line = Note {
                        kind: "note",
                        map: n,
                        message,
                    };
                    write_json_line(&mut o, &line)?;
                }
                for event in archive::log::events(&text) {
                    let event = event.map_err(|e| {
                        Failure::bad(format!("{}: {n}/log.txt: {e}", path.display()))
                    })?;
                    let line = Line {
                        kind: "event",
                        map: n,
                        event: &event,
                    };
                    write_json_line(&mut o, &line)?;
                    events += 1;
                }
            }
        }
    }
    if format == StreamFormat::Jsonl {
        #[derive(Serialize)]
        struct End {
            kind: &'static str,
            maps: usize,
            events: u64,
        }
        let end = End {
            kind: "end",
            maps: maps.len(),
            events,
        };
        write_json_line(&mut o, &end)?;
    }
    o.flush()?;
    Ok(())
}
