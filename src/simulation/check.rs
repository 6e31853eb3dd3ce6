//! The simulation as `check` runs it ([`crate::report::Simulator`]): a
//! checked teehistorian file's game on the map its header names, among
//! the maps at hand, compared with its positions and with the server demo
//! of the same session where one lies beside it. A position the model
//! of DDNet's physics does not reproduce fails the file; what the simulation does not
//! model yet is a warning (a note when every position matched all the
//! same); no map, a note.

use super::report::DemoReport;
use super::report::place;
use super::{Maps, SimulateError, Simulation};
use crate::codec::Mode;
use crate::compression::default_max_decompressed;
use crate::input::Source;
use crate::report::{Code, Finding, Severity, Simulator, Verdict};
use crate::teehistorian::{Header, SliceReader};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// The maps teehistorian files are simulated on, and the cap on what
/// reading a map's blocks and the session's demo may inflate.
pub struct OnMaps<'a> {
    /// The maps.
    pub maps: &'a Maps,
    /// `check --max-decompressed` (`None`: the default for the file's
    /// size).
    pub max_decompressed: Option<u64>,
}

/// The note of a file whose map is not at hand.
fn no_map() -> Finding {
    Finding::new(
        Severity::Note,
        Code::NotSimulated,
        "not simulated: the map the header names (map_sha256) is not at hand (--maps DIR, or a map or demo beside the file)",
    )
}

impl Simulator for OnMaps<'_> {
    fn without_map(&self, map_sha256: Option<&str>) -> Option<Finding> {
        match map_sha256 {
            Some(sha) if self.maps.get(sha).is_some() => None,
            Some(_) => Some(no_map()),
            None => {
                let e = SimulateError::NoMapNamed;
                let message = format!("not simulated: {e}");
                Some(Finding::new(severity_of(&e), Code::NotSimulated, message))
            }
        }
    }

    fn simulate(&self, path: Option<&Path>, bytes: &[u8], verdict: &mut Verdict) {
        let not_simulated = |verdict: &mut Verdict, severity, message: String| {
            verdict.push(Finding::new(severity, Code::NotSimulated, message));
        };
        let (header, mut reader) = match SliceReader::new(bytes, Mode::Lenient) {
            Ok(read) => read,
            Err(e) => return not_simulated(verdict, Severity::Warn, format!("not simulated: {e}")),
        };
        let cap = self
            .max_decompressed
            .unwrap_or_else(|| default_max_decompressed(bytes.len() as u64));
        let col = match self.maps.collision_for(&header, cap) {
            Ok(Some(col)) => col,
            Ok(None) => return verdict.push(no_map()),
            Err(e) => {
                return not_simulated(verdict, severity_of(&e), format!("not simulated: {e}"));
            }
        };
        // The same session's server demo, checked against the simulation too.
        let demo = path.and_then(|p| session_demo(p, &header, cap));
        let sim = Simulation::new(&header, col, None, ());
        let sim = match (sim, &demo) {
            (Ok(sim), Some((_, d))) => sim.with_demo(d),
            (sim, _) => sim,
        };
        let mut sim = match sim {
            Ok(sim) => sim,
            Err(e) => {
                return not_simulated(verdict, severity_of(&e), format!("not simulated: {e}"));
            }
        };
        if let Err(e) = reader.for_each_record(|rec| {
            sim.handle(rec);
            ControlFlow::<()>::Continue(())
        }) {
            sim.stop(e);
        }
        let (report, ()) = sim.into_parts();
        if let Some(e) = &report.stopped {
            verdict.push(Finding::new(
                Severity::Warn,
                Code::NotSimulated,
                format!("simulated only up to where it stopped: {e}"),
            ));
        }
        for d in report.listed.iter().take(5) {
            verdict.push(Finding::new(
                Severity::Fail,
                Code::Simulation,
                format!(
                    "tick {}: client {} recorded at {}, the {} model puts it at {}",
                    d.tick,
                    d.cid,
                    place(d.recorded),
                    report.release.number(),
                    place(d.simulated)
                ),
            ));
        }
        if report.divergences > 5 {
            verdict.push(Finding::new(
                Severity::Fail,
                Code::Simulation,
                format!("{} more positions differ", report.divergences - 5),
            ));
        }
        if let (Some((demo_path, _)), Some(d)) = (&demo, &report.demo) {
            demo_findings(demo_path, d, verdict);
        }
        if !report.unmodelled.is_empty() {
            // Every position matched all the same: nothing went unjudged.
            let severity = match report.after_unmodelled {
                0 => Severity::Note,
                _ => Severity::Warn,
            };
            for u in report.unmodelled.iter().take(5) {
                verdict.push(Finding::new(severity, Code::Unmodelled, u.to_string()));
            }
            let more = match report.unmodelled.len() {
                n if n > 5 => format!("{} more not modelled; ", n - 5),
                _ => String::new(),
            };
            verdict.push(Finding::new(
                severity,
                Code::Unmodelled,
                format!(
                    "{more}{} player-ticks not judged after what the model does not cover",
                    report.after_unmodelled
                ),
            ));
        }
        verdict
            .counts
            .more
            .insert("player_ticks", report.player_ticks);
        verdict
            .counts
            .more
            .insert("player_ticks_matched", report.matched);
        verdict.summary.push_str(&format!(
            "; simulated: {} of {} player-ticks where the file puts them",
            report.matched, report.player_ticks
        ));
        verdict.settle();
    }
}

/// How much a simulation that cannot run matters: a header that names no
/// map (DDNet's unit tests write such files) or a server this simulator
/// does not know is said, no more (a note); anything else (a map or demo
/// that does not decode, a header it cannot follow) is a warning.
fn severity_of(e: &SimulateError) -> Severity {
    match e {
        SimulateError::Header(_) | SimulateError::NoMapNamed | SimulateError::UnknownServer(_) => {
            Severity::Note
        }
        _ => Severity::Warn,
    }
}

/// The server demo of the same session as the teehistorian file at
/// `path` (whose header is `header`), if one lies beside it: the file of
/// the same name with `.demo`, or in a folder `record` wrote (it has a
/// `scenario.ron`) its one demo. Its embedded map must be the one the
/// header names. The demo's path and bytes.
fn session_demo(path: &Path, header: &Header, cap: u64) -> Option<(PathBuf, Vec<u8>)> {
    let same_name = path.with_extension("demo");
    let candidate = if same_name.is_file() {
        same_name
    } else {
        let dir = path.parent()?;
        if !dir.join("scenario.ron").is_file() {
            return None;
        }
        let mut demos = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "demo"));
        let one = demos.next()?;
        if demos.next().is_some() {
            return None;
        }
        one
    };
    let mut source = Source::file(&candidate);
    source.set_max_decompressed(Some(cap));
    let bytes = source.into_bytes().ok()?;
    let mut maps = Maps::default();
    maps.add(&bytes);
    maps.get(header.info.map_sha256.as_deref()?)?;
    Some((candidate, bytes))
}

/// What comparing the simulation with the session's demo found: an item
/// field that differs fails the file; a demo that compared nothing is a
/// warning (the check asked could not be done).
fn demo_findings(demo_path: &std::path::Path, d: &DemoReport, verdict: &mut Verdict) {
    let name = demo_path.file_name().map_or_else(
        || demo_path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    for m in d.listed.iter().take(5) {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::Simulation,
            format!(
                "{name}: snapshot {} (item tick {}): client {}: {}.{} is {} in the demo, {} simulated",
                m.snapshot_tick, m.tick, m.cid, m.item, m.field, m.demo, m.simulated
            ),
        ));
    }
    if d.mismatched > 5 {
        verdict.push(Finding::new(
            Severity::Fail,
            Code::Simulation,
            format!("{name}: {} more items differ", d.mismatched - 5),
        ));
    }
    if d.compared == 0 {
        verdict.push(Finding::new(
            Severity::Warn,
            Code::NotSimulated,
            format!("{name}: the session's demo has no Character item the simulation reached: compared nothing"),
        ));
    }
    verdict
        .counts
        .more
        .insert("demo_items_compared", d.compared);
    verdict.counts.more.insert("demo_items_matched", d.matched);
    verdict.summary.push_str(&format!(
        "; {name}: {} of {} Character items as simulated",
        d.matched, d.compared
    ));
}
