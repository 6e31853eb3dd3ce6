//! `teeoracle archive ...` and the archive check shared with `check`.

use super::Failure;
use super::output::{StateFormat, stdout, write_state};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::archive::{
    self, Archive, ArchiveError, Compression, PackOptions, Report, Status, TICKS_PER_SECOND,
};

#[derive(Subcommand, Debug)]
pub enum ArchiveCommand {
    /// Pack teehistorian files (in session order, or linked by
    /// prev_game_uuid) into OUT (.tar.bz2, or .tar for no compression).
    Pack {
        /// The archive to write (.tar.bz2, or .tar).
        out: PathBuf,
        /// The teehistorian files of the session.
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
    },
    /// Top-level info, maps and members.
    Info {
        /// The archive.
        archive: PathBuf,
    },
    /// Extract into DIR (empty or absent), rebuilding missing or damaged
    /// members.
    Unpack {
        /// The archive.
        archive: PathBuf,
        /// The folder to extract into (empty or absent).
        dir: PathBuf,
    },
    /// World state of a map at a tick, from the nearest earlier checkpoint.
    Seek {
        /// The archive.
        archive: PathBuf,
        /// Map folder number (1 is the first map).
        #[arg(long, default_value_t = 1)]
        map: u32,
        /// The tick; one after the map's last tick is a usage error.
        #[arg(long)]
        tick: i32,
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
        /// The archive.
        archive: PathBuf,
    },
    /// The event log (log.txt) of every map, or of one.
    Log {
        /// The archive.
        archive: PathBuf,
        /// Only this map folder (1 is the first map).
        #[arg(long)]
        map: Option<u32>,
    },
}

impl From<ArchiveError> for Failure {
    fn from(e: ArchiveError) -> Self {
        match e {
            ArchiveError::Request(m) => Failure::Usage(m),
            ArchiveError::Bad(m) | ArchiveError::Write(m) => Failure::bad(m),
        }
    }
}

pub fn run(cmd: ArchiveCommand) -> Result<(), Failure> {
    match cmd {
        ArchiveCommand::Pack {
            out,
            files,
            every,
            name,
            author,
        } => pack(&out, &files, every, name, author),
        ArchiveCommand::Info { archive } => info(&archive),
        ArchiveCommand::Unpack { archive, dir } => unpack(&archive, &dir),
        ArchiveCommand::Seek {
            archive,
            map,
            tick,
            format,
            check,
        } => seek(&archive, map, tick, format, check),
        ArchiveCommand::Verify { archive } => verify(&archive),
        ArchiveCommand::Log { archive, map } => log(&archive, map),
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
    let packed = archive::pack(out, files, &options)?;
    for w in &packed.warnings {
        eprintln!("teeoracle: warning: {w}");
    }
    let mut o = stdout();
    writeln!(
        o,
        "packed {} map(s) into {} ({} bytes, {}, a checkpoint every {} ticks)",
        packed.maps.len(),
        out.display(),
        packed.bytes,
        options.compression.name(),
        options.every
    )?;
    for (i, m) in packed.maps.iter().enumerate() {
        writeln!(
            o,
            "  {}/  {:<12} {:>9} bytes {:>8} records  last tick {:>7}  {:>4} checkpoint(s)  {}",
            i + 1,
            m.map_name.as_deref().unwrap_or("-"),
            m.bytes,
            m.records,
            m.last_tick,
            m.checkpoints,
            m.input.display()
        )?;
    }
    o.flush()?;
    Ok(())
}

fn info(path: &Path) -> Result<(), Failure> {
    let mut a = Archive::open(path)?;
    let s = a.summary()?;
    let mut o = stdout();
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
    for (name, size) in &s.members {
        writeln!(o, "  {size:>10}  {name}")?;
    }
    o.flush()?;
    for note in &s.notes {
        eprintln!("teeoracle: note: {}: {note}", path.display());
    }
    Ok(())
}

fn seek(path: &Path, map: u32, tick: i32, format: StateFormat, check: bool) -> Result<(), Failure> {
    let mut a = Archive::open(path)?;
    let s = a.seek(map, tick)?;
    if check && a.replay_from_start(map, tick)? != s.world {
        let from = s
            .from
            .as_ref()
            .map_or("the replay", |(save, _, _)| save.as_str());
        return Err(Failure::bad(format!(
            "{}: map {map} at tick {tick}: {from} disagrees with a replay from the start (run `teeoracle archive verify`)",
            path.display()
        )));
    }
    for note in &s.notes {
        eprintln!("teeoracle: warning: {}: {note}", path.display());
    }
    match &s.from {
        Some((save, t, offset)) => eprintln!(
            "teeoracle: note: map {map} from {save} (tick {t}, byte {offset}), then {} record(s)",
            s.records
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
    for v in r.verdicts.iter().filter(|v| all || v.status != Status::Ok) {
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

/// Counts for the last line of `verify` and the note of `check`.
fn totals(r: &Report) -> String {
    let count = |s: Status| r.verdicts.iter().filter(|v| v.status == s).count();
    let records: u64 = r.maps.iter().map(|m| m.records).sum();
    let agree: usize = r.maps.iter().map(|m| m.checkpoints_agree).sum();
    format!(
        "{} map(s), {records} records, {agree} checkpoint(s) agree; {} rebuilt, {} failed",
        r.maps.len(),
        count(Status::Rebuilt),
        count(Status::Failed)
    )
}

fn verify(path: &Path) -> Result<(), Failure> {
    let r = Archive::open_full(path)?.verify();
    let mut o = stdout();
    print_report(&mut o, path, &r, true)?;
    writeln!(o, "{}", totals(&r))?;
    o.flush()?;
    if r.failed() {
        return Err(Failure::Bad {
            message: format!("{}: verification failed", path.display()),
            reported: true,
        });
    }
    Ok(())
}

fn unpack(path: &Path, dir: &Path) -> Result<(), Failure> {
    let r = Archive::open_full(path)?.unpack(dir)?;
    let mut o = stdout();
    print_report(&mut o, path, &r, false)?;
    writeln!(o, "unpacked into {}: {}", dir.display(), totals(&r))?;
    o.flush()?;
    if r.failed() {
        return Err(Failure::Bad {
            message: format!("{}: some members were wrong (see above)", path.display()),
            reported: true,
        });
    }
    Ok(())
}

fn log(path: &Path, map: Option<u32>) -> Result<(), Failure> {
    let mut a = Archive::open(path)?;
    let maps = match map {
        Some(n) => vec![n],
        None => a.map_numbers(),
    };
    let mut o = stdout();
    for n in &maps {
        let (text, note) = a.log(*n)?;
        if let Some(note) = note {
            eprintln!("teeoracle: note: {}: {note}", path.display());
        }
        if map.is_none() {
            writeln!(o, "# map {n}")?;
        }
        o.write_all(text.as_bytes())?;
    }
    o.flush()?;
    Ok(())
}
