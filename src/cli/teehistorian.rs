//! `teeoracle teehistorian ...`.

use super::Failure;
use super::output::{
    ReportFormat, StateFormat, StreamFormat, open, read_spec, shown, stdout, write_event_log,
    write_json_doc, write_json_line, write_state, write_stream_start,
};
use clap::Subcommand;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use teeoracle::bytes::key_values;
use teeoracle::codec::{Codec, DecodeError, Mode, first_difference};
use teeoracle::teehistorian::scan::{Scan, Verify};
use teeoracle::teehistorian::{
    End, Header, HeaderInfo, ReadError, Record, Replay, ReplayConfig, StreamReader, WorldAtError,
    json,
};

#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum TeehistorianCommand {
    /// One record per message: offset, tick, kind and fields.
    Dump {
        /// The teehistorian file (`-`: standard input, streamed).
        file: PathBuf,
        /// `text`: a line per record; `jsonl`: a JSON object per record.
        #[arg(long, value_enum, default_value_t = StreamFormat::Text)]
        format: StreamFormat,
    },
    /// The recording's events, one per line (the format of an archive's
    /// `log.txt`): joins, names, drops, console commands, extensions.
    Log {
        /// The teehistorian file (`-`: standard input, streamed).
        file: PathBuf,
        /// `text`: the log lines; `jsonl`: a JSON object per event.
        #[arg(long, value_enum, default_value_t = StreamFormat::Text)]
        format: StreamFormat,
    },
    /// Counts per kind, ticks, client ids, how the file ended, header summary.
    Stats {
        /// The teehistorian file (`-`: standard input, streamed).
        file: PathBuf,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// World state at a tick (default: the end of the recording).
    Replay {
        /// The teehistorian file (`-`: standard input, streamed).
        file: PathBuf,
        /// Replay up to and including this tick; a tick after the last
        /// one is a usage error.
        #[arg(long)]
        at: Option<i32>,
        /// `ron` for people and Rust, `json` for programs.
        #[arg(long, value_enum, default_value_t = StateFormat::Ron)]
        format: StateFormat,
        /// Stop at the first inconsistency (exit 1) instead of warning.
        #[arg(long)]
        strict: bool,
    },
    /// Decode and re-encode; fail at the first differing byte.
    Roundtrip {
        /// The teehistorian file (`-`: standard input, streamed).
        file: PathBuf,
        /// Write the re-encoded file here.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Reject non-canonical ints instead of keeping their bytes.
        #[arg(long)]
        strict: bool,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Replay the file's inputs through our model of DDNet's physics on its map and
    /// compare every character's position with the file's, tick by tick.
    Simulate {
        /// The teehistorian file.
        file: PathBuf,
        /// The map it was recorded on, or a demo that embeds it (default:
        /// the map the header names, found by its SHA-256 among the maps
        /// and demos beside the file and under `--maps`).
        #[arg(long, conflicts_with = "maps")]
        map: Option<PathBuf>,
        /// A folder of maps and demos to find the header's map in
        /// (repeatable).
        #[arg(long, value_name = "DIR")]
        maps: Vec<PathBuf>,
        /// Step with this DDNet release's physics (`16.4` or `20.1`)
        /// instead of the recording server's: what a physics change does
        /// to old recordings. Every divergence is then a place where the
        /// two releases' physics part.
        #[arg(long, value_name = "RELEASE", value_parser = clap::value_parser!(teeoracle::simulation::Release))]
        physics: Option<teeoracle::simulation::Release>,
        /// Stop after this tick and print the world there (every
        /// character's core, freeze, weapons and inputs; projectiles and
        /// lasers); a tick after the last one is a usage error.
        #[arg(long)]
        at: Option<i32>,
        /// A server demo of the same session: compare its Character and
        /// DDNetCharacter items with the simulated characters at each
        /// item's own tick (a difference is a failure).
        #[arg(long)]
        demo: Option<PathBuf>,
        /// `text` for people, `json` for programs, `ron` (the same
        /// document as JSON's, in RON) for Rust programs.
        #[arg(long, value_enum, default_value_t = SimulationFormat::Text)]
        format: SimulationFormat,
        /// Draw each player's path on the map to this file (PNG, or SVG
        /// if it ends in `.svg`): the file's solid, the model's dotted
        /// (stepped free, as `compare --model` steps it), a numbered ring
        /// where each first parts from the file.
        #[arg(long, value_name = "OUT", conflicts_with_all = ["at", "demo"])]
        plot: Option<PathBuf>,
        #[command(flatten)]
        picture: super::plot::PlotArgs,
    },
    /// Compare two recordings of the same game by player (matched by name
    /// and join order): "identical", or where each player's path first
    /// departs and which race events differ. `--model` compares the file
    /// with our model stepping its inputs under changed physics instead.
    /// Exit 0 identical, 1 changed.
    Compare(super::compare::CompareArgs),
    /// Write a server-side demo of the simulated world (characters with
    /// DDNet's dead reckoning, players, projectiles, lasers, pickups, game
    /// info; the map embedded), as DDNet's server would have recorded it.
    Demo {
        /// The teehistorian file.
        file: PathBuf,
        /// The map it was recorded on, or a demo that embeds it.
        #[arg(long)]
        map: PathBuf,
        /// The first tick the demo covers (with --to; the world is still
        /// simulated from the file's start).
        #[arg(long, requires = "to", conflicts_with = "player")]
        from: Option<i32>,
        /// The last tick the demo covers (with --from).
        #[arg(long, requires = "from", conflicts_with = "player")]
        to: Option<i32>,
        /// Cover the ticks where a player of this name is in the game:
        /// from its first info message to when it leaves, over every
        /// client that had the name.
        #[arg(long)]
        player: Option<String>,
        /// The server's own demo of the session: what a DDNet 16.4 file
        /// cannot tell is taken from it (which input of a burst moved a
        /// character, as `simulate --demo` finds it; when the score
        /// database answered a join).
        #[arg(long)]
        witness: Option<PathBuf>,
        /// Where to write the demo (written whole or not at all).
        #[arg(short, long, required = true)]
        output: PathBuf,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Write a synthetic teehistorian file from a spec (.ron or .json):
    /// header fields, then records by kind (see `teehistorian::spec`).
    Build {
        /// The spec: RON or JSON, by its extension.
        spec: PathBuf,
        /// Where to write the file.
        #[arg(short, long, required = true)]
        output: PathBuf,
    },
}

pub fn run(cmd: TeehistorianCommand) -> Result<(), Failure> {
    match cmd {
        TeehistorianCommand::Dump { file, format } => dump(&file, format),
        TeehistorianCommand::Log { file, format } => log(&file, format),
        TeehistorianCommand::Stats { file, format } => stats(&file, format),
        TeehistorianCommand::Replay {
            file,
            at,
            format,
            strict,
        } => replay(&file, at, format, strict),
        TeehistorianCommand::Roundtrip {
            file,
            output,
            strict,
            format,
        } => roundtrip(&file, output.as_deref(), strict, format),
        TeehistorianCommand::Build { spec, output } => build(&spec, &output),
        TeehistorianCommand::Compare(args) => super::compare::run(args),
        TeehistorianCommand::Simulate {
            file,
            map,
            maps,
            physics,
            at,
            demo,
            format,
            plot,
            picture,
        } => {
            let paths = match &plot {
                Some(_) => Some(picture.request()?),
                None => {
                    picture.without_picture("--plot")?;
                    None
                }
            };
            let col = match &map {
                Some(map) => super::maps::collision_of(map)?,
                None => super::maps::collision_found(&file, &maps)?,
            };
            if let (Some(out), Some(paths)) = (&plot, paths) {
                let model = teeoracle::diff::players::Model {
                    col: col.clone(),
                    physics,
                    tune: &[],
                    paths: Some(paths),
                };
                let bytes = super::output::read(&file)?;
                let comparison = teeoracle::diff::players::compare_model(&bytes, &model)
                    .map_err(|e| Failure::bad(format!("{}: {e}", shown(&file))))?;
                let title = format!("{} against the model", shown(&file));
                let key =
                    "solid: the file; dotted: the model (free: never put back where the file says)";
                let plot = super::plot::of_comparison(&comparison, &picture, title, key);
                super::plot::on_teehistorian_map(
                    out,
                    &file,
                    map.as_deref(),
                    &maps,
                    &picture,
                    &plot,
                )?;
            }
            simulate(&file, col, physics, at, demo.as_deref(), format)
        }
        TeehistorianCommand::Demo {
            file,
            map,
            from,
            to,
            player,
            witness,
            output,
            format,
        } => demo(
            &file,
            &map,
            from.zip(to),
            player,
            witness.as_deref(),
            &output,
            format,
        ),
    }
}

/// How `teehistorian simulate` prints its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SimulationFormat {
    /// For people.
    Text,
    /// The `simulation` document.
    Json,
    /// The same document in RON.
    Ron,
}

/// `teehistorian demo`: the simulated world as a server demo.
fn demo(
    file: &Path,
    map_path: &Path,
    range: Option<(i32, i32)>,
    player: Option<String>,
    witness: Option<&Path>,
    output: &Path,
    format: ReportFormat,
) -> Result<(), Failure> {
    use teeoracle::simulation::demo_writer::{Span, demo_of_teehistorian};
    let span = match (range, player) {
        (Some((from, to)), _) if from > to => {
            return Err(Failure::Usage(format!("--from {from} is after --to {to}")));
        }
        (Some((from, to)), _) => Span::Ticks { from, to },
        (None, Some(name)) => Span::Player(name),
        (None, None) => Span::All,
    };
    let (map, cap) = super::maps::map_bytes_of(map_path)?;
    let bytes = super::output::read(file)?;
    let witness = match witness {
        Some(path) => {
            let bytes = super::output::read(path)?;
            // Its faults are its own, not the teehistorian file's.
            teeoracle::demo::Events::new(&bytes)
                .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
            Some(bytes)
        }
        None => None,
    };
    let (demo, summary) = demo_of_teehistorian(&bytes, &map, &span, cap, witness.as_deref())
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    super::output::write_atomically(output, &demo)?;
    let mut out = stdout();
    match format {
        ReportFormat::Json => write_json_doc(&mut out, "teehistorian_demo", &summary)?,
        ReportFormat::Text => {
            let s = &summary;
            writeln!(
                out,
                "{}: {:?}, ticks {}..{}: {} snapshots, {} bytes; map {} ({}{})",
                output.display(),
                s.release,
                s.ticks.0,
                s.ticks.1,
                s.snapshots,
                s.bytes,
                s.map_name,
                &s.map_sha256[..16.min(s.map_sha256.len())],
                if s.map_matches_header {
                    ", the header's"
                } else {
                    ", not the header's map"
                },
            )?;
            writeln!(
                out,
                "  items: {} Character ({} resent in their tick, {} reckoned from an earlier one), {} DDNetCharacter, {} players, {} projectiles, {} lasers, {} pickups, {} events",
                s.items.characters,
                s.cores_resent,
                s.cores_reckoned,
                s.items.ddnet_characters,
                s.items.players,
                s.items.projectiles,
                s.items.lasers,
                s.items.pickups,
                s.items.events,
            )?;
            let sim = &s.simulation;
            writeln!(
                out,
                "  simulation: {} of {} player-ticks matched the file, {} divergences, {} after unmodelled events ({} unmodelled)",
                sim.matched,
                sim.player_ticks,
                sim.divergences,
                sim.after_unmodelled,
                sim.unmodelled,
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// `teehistorian simulate`.
fn simulate(
    file: &Path,
    col: teeoracle::simulation::physics::collision::Collision,
    physics: Option<teeoracle::simulation::Release>,
    at: Option<i32>,
    demo: Option<&Path>,
    format: SimulationFormat,
) -> Result<(), Failure> {
    use teeoracle::simulation::SimulateError;
    let bytes = super::output::read(file)?;
    let demo_bytes = demo.map(super::output::read).transpose()?;
    let options = teeoracle::simulation::Options {
        demo: demo_bytes.as_deref(),
        until: at,
        physics,
    };
    let outside = |e| match e {
        SimulateError::UntilWithDemo => Failure::Usage("--at and --demo do not go together".into()),
        SimulateError::UntilOutside { until, ticks } => Failure::Usage(format!(
            "--at {until}: the file's ticks are {}..{}",
            ticks.0, ticks.1
        )),
        e => Failure::bad(format!("{}: {e}", shown(file))),
    };
    let report = teeoracle::simulation::simulate(&bytes, col, &options).map_err(outside)?;
    if let Some(at) = at {
        report.world_at(at).map_err(outside)?;
    }
    let mut out = stdout();
    match format {
        SimulationFormat::Json => write_json_doc(&mut out, "simulation", &report)?,
        SimulationFormat::Ron => super::output::write_ron(&mut out, &report)?,
        SimulationFormat::Text => {
            let pct = |a: u64, b: u64| {
                if b == 0 {
                    0.0
                } else {
                    a as f64 * 100.0 / b as f64
                }
            };
            writeln!(
                out,
                "{}: {:?}, ticks {}..{}: {} of {} player-ticks matched ({:.3}%), {} before the first divergence; {} divergences, {} after unmodelled events",
                shown(file),
                report.release,
                report.ticks.0,
                report.ticks.1,
                report.matched,
                report.player_ticks,
                pct(report.matched, report.player_ticks),
                report.matched_strict,
                report.divergences,
                report.after_unmodelled,
            )?;
            for p in &report.players {
                writeln!(
                    out,
                    "  cid {}: {} of {} matched{}",
                    p.cid,
                    p.matched,
                    p.player_ticks,
                    p.first_divergence
                        .map(|t| format!(", first divergence at tick {t}"))
                        .unwrap_or_default()
                )?;
            }
            for u in &report.unmodelled {
                writeln!(out, "  {u}")?;
            }
            for d in &report.listed {
                writeln!(
                    out,
                    "  divergence at tick {}: cid {}: recorded {:?}, simulated {:?}; before: {}",
                    d.tick,
                    d.cid,
                    d.recorded,
                    d.simulated,
                    d.core_before
                        .as_ref()
                        .map_or("no character".to_owned(), |c| format!(
                            "pos ({}, {}) vel ({}, {}) hook {} jumped {} input {:?}",
                            c.pos.x, c.pos.y, c.vel.x, c.vel.y, c.hook_state, c.jumped, c.input
                        ))
                )?;
            }
            if let Some(d) = &report.demo {
                writeln!(
                    out,
                    "demo: {} snapshots, {} Character items: {} compared, {} matched ({:.3}%), {} mismatched, {} differ after unmodelled events, {} not simulated; {} with tick 0, {} DDNetCharacter items",
                    d.snapshots,
                    d.items,
                    d.compared,
                    d.matched,
                    pct(d.matched, d.compared),
                    d.mismatched,
                    d.after_unmodelled,
                    d.not_simulated,
                    d.tick_zero,
                    d.ddnet_items,
                )?;
                for (field, n) in &d.fields {
                    writeln!(out, "  {field} differs in {n} items")?;
                }
                for m in &d.listed {
                    writeln!(
                        out,
                        "  snapshot {} (item tick {}): cid {}: {}.{}: demo {}, simulated {}",
                        m.snapshot_tick, m.tick, m.cid, m.item, m.field, m.demo, m.simulated
                    )?;
                }
            }
        }
    }
    if let (SimulationFormat::Text, Some(w)) = (format, &report.world) {
        writeln!(out, "world after tick {}:", w.tick)?;
        for c in &w.characters {
            let (core, ch) = (&c.core, &c.character);
            writeln!(
                out,
                "  cid {} team {}: pos ({}, {}) vel ({}, {}) hook state {} at ({}, {}) on {} jumped {} jumps {} weapon {} reload {} freeze {}",
                c.cid,
                c.team,
                core.pos.x,
                core.pos.y,
                core.vel.x,
                core.vel.y,
                core.hook_state,
                core.hook_pos.x,
                core.hook_pos.y,
                core.hooked_player,
                core.jumped,
                core.jumps,
                ch.active_weapon,
                ch.reload_timer,
                ch.freeze_time
            )?;
        }
        writeln!(
            out,
            "  {} projectiles, {} lasers",
            w.projectiles.len(),
            w.lasers.len()
        )?;
    }
    if let Some(e) = &report.stopped {
        writeln!(out, "stopped: {e}")?;
        return Err(Failure::reported(format!(
            "simulated only up to a record that does not decode: {e}"
        )));
    }
    if report.player_ticks == 0 {
        return Err(Failure::reported(
            "no character in the file: the simulation compared nothing",
        ));
    }
    if report.divergences > 0 {
        return Err(Failure::reported(format!(
            "{} divergences",
            report.divergences
        )));
    }
    if let Some(d) = report.demo.as_ref().filter(|d| d.mismatched > 0) {
        return Err(Failure::reported(format!(
            "{} demo Character items differ from the simulation",
            d.mismatched
        )));
    }
    Ok(())
}

/// `teehistorian build`: a synthetic file from a RON or JSON spec.
fn build(spec_path: &Path, output: &Path) -> Result<(), Failure> {
    use teeoracle::teehistorian::spec::TeehistorianSpec;
    let spec = read_spec(
        spec_path,
        TeehistorianSpec::from_ron,
        TeehistorianSpec::from_json,
    )?;
    let built = spec
        .build()
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(spec_path))))?;
    std::fs::write(output, &built.bytes)
        .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", output.display())))?;
    let mut out = stdout();
    writeln!(
        out,
        "{}: {} bytes, {} record(s)",
        output.display(),
        built.bytes.len(),
        built.records
    )?;
    out.flush()?;
    Ok(())
}

/// A stream error as a failure naming the file.
fn read_failure(path: &Path, e: ReadError) -> Failure {
    Failure::bad(format!("{}: {e}", shown(path)))
}

/// Opens a teehistorian file as a bounded-memory stream.
fn open_teehistorian(
    path: &Path,
    mode: Mode,
) -> Result<(Header, StreamReader<Box<dyn io::Read + Send>>), Failure> {
    StreamReader::new(open(path)?, mode).map_err(|e| read_failure(path, e))
}

fn end_note(end: Option<End>) -> String {
    end.map_or("stopped by an error".into(), |e| e.to_string())
}

pub fn log(path: &Path, format: StreamFormat) -> Result<(), Failure> {
    let (_, mut reader) = open_teehistorian(path, Mode::Lenient)?;
    let mut replay = Replay::new(ReplayConfig::default());
    let mut events = teeoracle::teehistorian::log::EventLog::default();
    let mut last_tick = 0;
    let flow = reader.for_each_record(|rec| {
        events.record(rec.tick, &rec.msg, &replay);
        // An inconsistency is the writer's; the log goes on, as in archives.
        let _ = replay.handle(rec.offset, &rec.msg);
        last_tick = rec.tick;
        ControlFlow::<std::convert::Infallible>::Continue(())
    });
    let error = match flow {
        Ok(_) => None,
        Err(ReadError::Decode(e)) => Some(e.at_tick(last_tick)),
        Err(e) => return Err(read_failure(path, e)),
    };
    let lines = events.finish(last_tick, reader.end());
    let mut out = stdout();
    write_event_log(&mut out, format, "teehistorian log", &shown(path), &lines)?;
    out.flush()?;
    match error {
        Some(e) => Err(Failure::bad(format!("{}: {e}", shown(path)))),
        None => Ok(()),
    }
}

pub fn dump(path: &Path, format: StreamFormat) -> Result<(), Failure> {
    let (header, mut reader) = open_teehistorian(path, Mode::Lenient)?;
    let error = match format {
        StreamFormat::Text => {
            let mut out = stdout();
            let i = &header.info;
            writeln!(
                out,
                "# header: {} bytes of JSON at byte 16",
                header.json.len()
            )?;
            writeln!(out, "#{}", key_values(&HeaderSummary::of(i), &[]))?;
            writeln!(out, "# offset      tick kind fields")?;
            let (_, error) = write_records(path, &mut reader, |rec| {
                rec.write_text(&mut out)?;
                match json::client_message(rec) {
                    Some(Ok(m)) => write!(out, " -> {m}")?,
                    Some(Err(e)) => write!(out, " -> unreadable message: {e}")?,
                    None => {}
                }
                Ok(out.write_all(b"\n")?)
            })?;
            match &error {
                None => writeln!(out, "# end: {}", end_note(reader.end()))?,
                Some(e) => writeln!(out, "# stopped: {e}")?,
            }
            out.flush()?;
            error
        }
        StreamFormat::Jsonl => {
            // Its own buffer: the common records' lines are written there.
            let mut out = json::JsonlWriter::new(io::stdout().lock());
            write_stream_start(&mut out, "teehistorian dump", &shown(path))?;
            write_json_line(&mut out, &json::HeaderLine::new(&header))?;
            let (records, error) = write_records(path, &mut reader, |rec| match out.common(rec) {
                Ok(true) => Ok(()),
                Ok(false) => write_json_line(&mut out, &json::RecordLine::new(rec)),
                Err(e) => Err(e.into()),
            })?;
            let end = json::EndLine::new(records, reader.end(), error.as_ref());
            write_json_line(&mut out, &end)?;
            out.flush()?;
            error
        }
    };
    match error {
        Some(e) => Err(Failure::bad(format!("{}: {e}", shown(path)))),
        None => Ok(()),
    }
}

/// Hands every record to `line`, which writes it: returns how many were
/// read and the decode error that stopped reading (at its tick), if one
/// did.
fn write_records(
    path: &Path,
    reader: &mut StreamReader<Box<dyn io::Read + Send>>,
    mut line: impl FnMut(&Record<'_>) -> Result<(), Failure>,
) -> Result<(u64, Option<DecodeError>), Failure> {
    let (mut tick, mut records) = (0, 0u64);
    let written = reader.for_each_record(|rec| {
        tick = rec.tick;
        records += 1;
        match line(rec) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    });
    match written {
        Ok(ControlFlow::Break(e)) => Err(e),
        Ok(ControlFlow::Continue(())) => Ok((records, None)),
        Err(ReadError::Decode(e)) => Ok((records, Some(e.at_tick(tick)))),
        Err(e) => Err(read_failure(path, e)),
    }
}

/// The header fields a person looks at first.
#[derive(Serialize)]
struct HeaderSummary<'h> {
    version: u32,
    version_minor: &'h Option<String>,
    game_uuid: &'h Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_game_uuid: &'h Option<String>,
    server_version: &'h Option<String>,
    start_time: &'h Option<String>,
    map_name: &'h Option<String>,
    config_entries: usize,
    tuning_entries: usize,
    uuids: usize,
}

impl<'h> HeaderSummary<'h> {
    fn of(i: &'h HeaderInfo) -> Self {
        HeaderSummary {
            version: i.version,
            version_minor: &i.version_minor,
            game_uuid: &i.game_uuid,
            prev_game_uuid: &i.prev_game_uuid,
            server_version: &i.server_version,
            start_time: &i.start_time,
            map_name: &i.map_name,
            config_entries: i.config.len(),
            tuning_entries: i.tuning.len(),
            uuids: i.uuids.len(),
        }
    }
}

pub fn stats(path: &Path, format: ReportFormat) -> Result<(), Failure> {
    let counted = match plain_file(path) {
        // A large one is counted on every core.
        Some(file) => Scan::count_file(&file, super::output::cores()),
        None => Scan::run(open(path)?, Verify::default()),
    };
    let (header, scan) = counted.map_err(|e| read_failure(path, e))?;
    let mut out = stdout();
    match format {
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct Stats<'s> {
                file: String,
                header: HeaderSummary<'s>,
                #[serde(flatten)]
                scan: &'s Scan,
            }
            let stats = Stats {
                file: shown(path),
                header: HeaderSummary::of(&header.info),
                scan: &scan,
            };
            write_json_doc(&mut out, "teehistorian_stats", &stats)?;
        }
        ReportFormat::Text => {
            writeln!(out, "file:               {}", shown(path))?;
            writeln!(
                out,
                "header:            {}",
                key_values(&HeaderSummary::of(&header.info), &[])
            )?;
            writeln!(out, "records:            {}", scan.records)?;
            for (kind, n) in &scan.counts {
                writeln!(out, "  {kind:<22} {n}")?;
            }
            writeln!(out, "last tick:          {}", scan.last_tick)?;
            writeln!(out, "ticks with records: {}", scan.ticks_with_records)?;
            let max_cid = scan.max_cid.map_or("-".into(), |c| c.to_string());
            writeln!(
                out,
                "max cid:            {max_cid} ({} distinct)",
                scan.cids
            )?;
            writeln!(out, "end:                {}", end_note(scan.end))?;
            if scan.bytes_after_finish > 0 {
                writeln!(
                    out,
                    "after FINISH:       {} byte(s)",
                    scan.bytes_after_finish
                )?;
            }
            if let Some(note) = scan.noncanonical_note() {
                writeln!(out, "note:               {note}")?;
            }
        }
    }
    out.flush()?;
    match scan.error {
        Some(e) => Err(Failure::bad(format!("{}: {e}", shown(path)))),
        None => Ok(()),
    }
}

/// `path` opened, if it is a regular file holding an uncompressed
/// teehistorian stream (anything else goes through [`open`]).
fn plain_file(path: &Path) -> Option<File> {
    use std::io::{Read, Seek};
    let mut file = File::open(path).ok().filter(|_| path != Path::new("-"))?;
    let mut magic = [0; 16];
    let plain = file.metadata().ok()?.is_file()
        && file.read_exact(&mut magic).is_ok()
        && teeoracle::teehistorian::is_teehistorian(&magic)
        && file.rewind().is_ok();
    plain.then_some(file)
}

pub fn replay(
    path: &Path,
    at: Option<i32>,
    format: StateFormat,
    strict: bool,
) -> Result<(), Failure> {
    let (_, mut reader) = open_teehistorian(path, Mode::Lenient)?;
    let mut warned = 0u64;
    let world = teeoracle::teehistorian::world_at(&mut reader, at, strict, |inc| {
        if warned < 10 {
            eprintln!("teeoracle: warning: {}: {inc}", shown(path));
        }
        warned += 1;
    });
    let world = match world {
        Ok(world) => Ok(world),
        // Named after what the stream says of its end, below.
        Err(WorldAtError::PastEnd { at, last_tick }) => Err(Failure::Usage(format!(
            "tick {at} is after the end of {} (last tick {last_tick})",
            shown(path)
        ))),
        Err(WorldAtError::Inconsistent(inc)) => {
            return Err(Failure::bad(format!("{}: {inc}", shown(path))));
        }
        Err(WorldAtError::Read {
            error: ReadError::Decode(e),
            last_tick,
        }) => {
            return Err(Failure::bad(format!(
                "{}: {}",
                shown(path),
                e.at_tick(last_tick)
            )));
        }
        Err(WorldAtError::Read { error, .. }) => return Err(read_failure(path, error)),
    };
    if warned > 10 {
        eprintln!("teeoracle: warning: {} more inconsistencies", warned - 10);
    }
    if let Some(end @ End::Truncated { .. }) = reader.end() {
        eprintln!("teeoracle: note: {}: {end}", shown(path));
    }
    let world = world?;
    let mut out = stdout();
    write_state(&mut out, format, "teehistorian_world", &world)?;
    out.flush()?;
    Ok(())
}

/// What `roundtrip --format json` prints.
#[derive(Serialize)]
struct RoundTripReport<'e> {
    file: String,
    /// Every record re-encoded to its bytes.
    exact: bool,
    /// The first byte where the re-encoding differs.
    first_difference: Option<u64>,
    records: u64,
    /// Records with non-canonical ints, kept verbatim.
    verbatim_records: u64,
    end: Option<End>,
    /// Bytes after FINISH, copied as they are.
    bytes_after_finish: u64,
    /// The decode error that stopped the round trip.
    error: Option<&'e DecodeError>,
}

pub fn roundtrip(
    path: &Path,
    output: Option<&Path>,
    strict: bool,
    format: ReportFormat,
) -> Result<(), Failure> {
    let mode = if strict { Mode::Strict } else { Mode::Lenient };
    let (header, mut reader) = open_teehistorian(path, mode)?;
    let mut sink: Box<dyn Write> = match output {
        Some(p) => {
            Box::new(BufWriter::new(File::create(p).map_err(|e| {
                Failure::Usage(format!("cannot create {}: {e}", shown(p)))
            })?))
        }
        None => Box::new(io::sink()),
    };
    let mut buf = Vec::new();
    header.encode(&mut buf, ());
    sink.write_all(&buf)?;
    let (mut records, mut verbatim, mut tick) = (0u64, 0u64, 0);
    let mut mismatch = None;
    let flow = reader.for_each_record(|rec| {
        buf.clear();
        rec.encode(&mut buf);
        verbatim += u64::from(rec.noncanonical);
        if mismatch.is_none() {
            mismatch = first_difference(&buf, rec.raw).map(|i| rec.offset + i as u64);
        }
        records += 1;
        tick = rec.tick;
        match sink.write_all(&buf) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    });
    let error = match flow {
        Ok(ControlFlow::Break(e)) => return Err(e.into()),
        Ok(ControlFlow::Continue(())) => None,
        Err(ReadError::Decode(e)) => Some(e.at_tick(tick)),
        Err(e) => return Err(read_failure(path, e)),
    };
    let end = reader.end();
    let rest = if error.is_none() {
        io::copy(&mut reader.into_rest(), &mut sink)?
    } else {
        0
    };
    sink.flush()?;
    let after_finish = if matches!(end, Some(End::Finished { .. })) {
        rest
    } else {
        0
    };
    let mut out = stdout();
    let failure = match (&error, mismatch) {
        (Some(e), _) => Some(format!("{}: {e}", shown(path))),
        (None, Some(at)) => Some(format!(
            "{}: round trip differs at byte {at} (0x{at:x})",
            shown(path)
        )),
        (None, None) => None,
    };
    match format {
        ReportFormat::Json => {
            let report = RoundTripReport {
                file: shown(path),
                exact: failure.is_none(),
                first_difference: mismatch,
                records,
                verbatim_records: verbatim,
                end,
                bytes_after_finish: after_finish,
                error: error.as_ref(),
            };
            write_json_doc(&mut out, "teehistorian_roundtrip", &report)?;
            out.flush()?;
            // The document says it all; the one-line error goes to stderr.
            return match failure {
                Some(message) => Err(Failure::bad(message)),
                None => Ok(()),
            };
        }
        ReportFormat::Text => {
            if let Some(message) = failure {
                return Err(Failure::bad(message));
            }
        }
    }
    writeln!(
        out,
        "{}: round trip byte-exact ({records} records)",
        shown(path)
    )?;
    writeln!(out, "end: {}", end_note(end))?;
    if verbatim > 0 {
        writeln!(
            out,
            "note: {verbatim} record(s) with non-canonical ints kept verbatim"
        )?;
    }
    if after_finish > 0 {
        writeln!(
            out,
            "note: {after_finish} byte(s) after FINISH copied as they are"
        )?;
    }
    out.flush()?;
    Ok(())
}
