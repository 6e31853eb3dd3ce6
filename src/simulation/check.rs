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
use crate::report::{Code, DemoPairing, Finding, Severity, Simulator, Verdict};
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
    fn without_map(&self, path: Option<&Path>, map_sha256: Option<&str>) -> Option<Finding> {
        match map_sha256 {
            Some(sha) if self.maps.get(sha).is_some() => None,
            // The demos beside it are named by `simulate`.
            Some(_) if path.is_some_and(|p| !candidates(p).is_empty()) => None,
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
        // The same session's server demo, checked against the simulation
        // too; every other demo found is named with why it was not (also
        // when the file is not simulated).
        let (demo, pairings) = match path {
            Some(p) => {
                let named = self
                    .maps
                    .named_demos(header.info.map_sha256.as_deref().unwrap_or_default());
                session_demo(p, &header, named, cap)
            }
            None => (None, Vec::new()),
        };
        for p in pairings.iter().filter(|p| !p.compared) {
            let name = file_name(Path::new(&p.path));
            let reason = p.reason.as_deref().unwrap_or_default();
            let said = format!("{name} not compared: {reason}");
            // In the summary too: a passing file's text shows no notes,
            // and whoever put the demo there must not believe it compared.
            verdict.summary.push_str(&format!("; {said}"));
            verdict.push(Finding::new(Severity::Note, Code::DemoNotCompared, said));
        }
        verdict.demos = pairings;
        // From here, a file not simulated was compared with no demo.
        let not_simulated = |verdict: &mut Verdict, finding: Finding| {
            for p in verdict.demos.iter_mut().filter(|p| p.compared) {
                p.compared = false;
                p.reason = Some("the file was not simulated".into());
            }
            verdict.push(finding);
        };
        let why_not = |e: &SimulateError| {
            Finding::new(
                severity_of(e),
                Code::NotSimulated,
                format!("not simulated: {e}"),
            )
        };
        let col = match self.maps.collision_for(&header, cap) {
            Ok(Some(col)) => col,
            Ok(None) => return not_simulated(verdict, no_map()),
            Err(e) => return not_simulated(verdict, why_not(&e)),
        };
        let sim = Simulation::new(&header, col, None, ());
        let sim = match (sim, &demo) {
            (Ok(sim), Some((_, d))) => sim.with_demo(d),
            (sim, _) => sim,
        };
        let mut sim = match sim {
            Ok(sim) => sim,
            Err(e) => return not_simulated(verdict, why_not(&e)),
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

/// The demos found for the teehistorian file at `path` (whose header is
/// `header`): the one of its session, if exactly one is
/// ([`same_session`]), with its bytes, and every demo found with whether
/// it is that one, and why not. Beside it ([`candidates`]) first; else
/// among `named`, the demos of its map named on the command line, which
/// are named here only if of its session (the others are not this
/// file's).
fn session_demo(
    path: &Path,
    header: &Header,
    named: &[PathBuf],
    cap: u64,
) -> (Option<(PathBuf, Vec<u8>)>, Vec<DemoPairing>) {
    let mut pairings = Vec::new();
    let mut matching = Vec::new();
    let beside = candidates(path);
    for candidate in &beside {
        match same_session(candidate, header, cap) {
            Ok(bytes) => matching.push((candidate.clone(), bytes)),
            Err(reason) => pairings.push(not_compared(candidate, reason)),
        }
    }
    if matching.is_empty() {
        for candidate in named
            .iter()
            .filter(|n| !beside.iter().any(|b| same_file(b, n)))
        {
            if let Ok(bytes) = same_session(candidate, header, cap) {
                matching.push((candidate.clone(), bytes));
            }
        }
    }
    let chosen = match matching.len() {
        1 => matching.pop(),
        n => {
            for (candidate, _) in &matching {
                let reason = format!(
                    "{n} demos found are of the file's map and session: which one is not known"
                );
                pairings.push(not_compared(candidate, reason));
            }
            None
        }
    };
    if let Some((p, _)) = &chosen {
        pairings.push(DemoPairing {
            path: p.display().to_string(),
            compared: true,
            reason: None,
        });
    }
    pairings.sort_by(|a, b| a.path.cmp(&b.path));
    (chosen, pairings)
}

/// `a` and `b` name one file (as named, or once resolved).
fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

fn not_compared(path: &Path, reason: String) -> DemoPairing {
    DemoPairing {
        path: path.display().to_string(),
        compared: false,
        reason: Some(reason),
    }
}

/// The demos that may be of the session of the teehistorian file at
/// `path`: the file of the same name with `.demo`, or else, in a folder
/// `record` wrote (it has a `scenario.ron`), its demos, in name order.
fn candidates(path: &Path) -> Vec<PathBuf> {
    let same_name = path.with_extension("demo");
    if same_name.is_file() {
        return vec![same_name];
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.join("scenario.ron").is_file() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut demos: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "demo") && p.is_file())
        .collect();
    demos.sort();
    demos
}

/// The bytes of the demo at `path` if it is of the session the
/// teehistorian header `header` begins; else why not. It must embed the
/// map the header names. Then its recording time must fit: DDNet's
/// server counts ticks from the map's start, where its teehistorian file
/// begins (`start_time`), so a demo of that map's session, starting at
/// tick T, was started T / 50 s after it. Its `timestamp`
/// (`str_timestamp`) and the header's `start_time` (`str_timestamp_ex`)
/// are both the server's local time, in whole seconds: they must agree
/// to 2 s. Neither file says more: the demo carries no game UUID, and
/// its net version is the same for every DDNet release. Where a time or
/// the demo's first tick is missing, the demo is taken as the session's.
fn same_session(path: &Path, header: &Header, cap: u64) -> Result<Vec<u8>, String> {
    use sha2::{Digest, Sha256};
    let mut source = Source::file(path);
    source.set_max_decompressed(Some(cap));
    let bytes = source
        .into_bytes()
        .map_err(|e| format!("it cannot be read: {e}"))?;
    let mut events =
        crate::demo::Events::new(&bytes).map_err(|e| format!("it does not decode: {e}"))?;
    let embedded = hex::encode(Sha256::digest(events.map()));
    let named = header.info.map_sha256.as_deref().unwrap_or_default();
    if !embedded.eq_ignore_ascii_case(named) {
        return Err(format!(
            "it embeds map {} (sha256 {embedded}), the header names {} (sha256 {named})",
            events.header().map_name.text(),
            header.info.map_name.as_deref().unwrap_or("?"),
        ));
    }
    let timestamp = events.header().timestamp.text();
    let mut demo_tick = None;
    while let Ok(Some(e)) = events.next() {
        if e.tick >= 0 {
            demo_tick = Some(e.tick);
            break;
        }
    }
    let start_time = header.info.start_time.as_deref().unwrap_or_default();
    if let (Some(demo_at), Some(file_at), Some(demo_tick)) = (
        clock_seconds(&timestamp),
        clock_seconds(start_time),
        demo_tick,
    ) {
        let after = demo_at - file_at;
        if (after * TICKS_PER_SECOND - i64::from(demo_tick)).abs() > 2 * TICKS_PER_SECOND {
            let apart = match after {
                ..0 => format!("{} s before", -after),
                _ => format!("{after} s after"),
            };
            return Err(format!(
                "another session: it was recorded at {timestamp}, {apart} the header's start_time {start_time}; starting at tick {demo_tick}, the session's would be {} s after",
                i64::from(demo_tick) / TICKS_PER_SECOND
            ));
        }
    }
    Ok(bytes)
}

use crate::demo::{TICKS_PER_SECOND, clock_seconds};

/// The last part of `path` (all of it if it has none), as shown.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What comparing the simulation with the session's demo found: an item
/// field that differs fails the file; a demo that compared nothing is a
/// warning (the check asked could not be done).
fn demo_findings(demo_path: &Path, d: &DemoReport, verdict: &mut Verdict) {
    let name = file_name(demo_path);
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

#[cfg(test)]
mod tests {
    use super::clock_seconds;

    #[test]
    fn a_demo_timestamp_and_a_start_time_read_as_the_same_clock() {
        assert_eq!(clock_seconds("1970-01-01_00-00-00"), Some(0));
        assert_eq!(clock_seconds("1969-12-31_23-59-59"), Some(-1));
        assert_eq!(clock_seconds("2000-02-29T23:59:59+0200"), Some(951_868_799));
        assert_eq!(
            clock_seconds("2026-11-22_02-28-13"),
            clock_seconds("2026-11-22T02:28:13+0000")
        );
        assert_eq!(clock_seconds("2026-11-22_02-28-13"), Some(1_795_314_493));
        for bad in [
            "",
            "2026-11-22",
            "2026-13-01_00-00-00",
            "2026-1x-01_00-00-00",
            "+026-11-22_02-28-13",
        ] {
            assert_eq!(clock_seconds(bad), None, "{bad}");
        }
    }
}
