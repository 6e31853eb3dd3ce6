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
use crate::demo::EventKind;
use crate::input::Source;
use crate::report::{Code, DemoPairing, Finding, Severity, Simulator, Verdict};
use crate::teehistorian::{Header, SliceReader};
use std::collections::BTreeSet;
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
                let found = self
                    .maps
                    .demos_of(header.info.map_sha256.as_deref().unwrap_or_default());
                session_demo(p, &header, bytes, found, cap)
            }
            None => (None, Vec::new()),
        };
        // In the summary too, those beside the file: a passing file's
        // text shows no notes, and whoever put a demo there must not
        // believe it compared (past two, by name). One found elsewhere
        // is named in the notes, and in the summary of its own session's
        // file.
        let beside = path.map(candidates).unwrap_or_default();
        let mut passed_beside = Vec::new();
        for p in pairings.iter().filter(|p| !p.compared) {
            let name = file_name(Path::new(&p.path));
            let reason = p.reason.as_deref().unwrap_or_default();
            let said = format!("{name} not compared: {reason}");
            if beside.iter().any(|b| b.display().to_string() == p.path) {
                passed_beside.push((name, said.clone()));
            }
            verdict.push(Finding::new(Severity::Note, Code::DemoNotCompared, said));
        }
        match passed_beside.len() {
            0..=2 => {
                for (_, said) in &passed_beside {
                    verdict.summary.push_str(&format!("; {said}"));
                }
            }
            n => {
                let names: Vec<_> = passed_beside
                    .iter()
                    .map(|(name, _)| name.as_str())
                    .collect();
                verdict.summary.push_str(&format!(
                    "; {n} demos beside it not compared, each with why in a note: {}",
                    names.join(", ")
                ));
            }
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

/// The demos found for the teehistorian file at `path` (its header
/// `header`, its bytes `file`): the one of its session, if exactly one is
/// ([`same_session`]), with its bytes, and every demo found with whether
/// it is that one, and why not. The demos beside it ([`candidates`]) and
/// `found`, those of its map named on the command line or under
/// `--maps`, are all tried; one beside it comes first.
fn session_demo(
    path: &Path,
    header: &Header,
    file: &[u8],
    found: &[PathBuf],
    cap: u64,
) -> (Option<(PathBuf, Vec<u8>)>, Vec<DemoPairing>) {
    let beside = candidates(path);
    let elsewhere = found
        .iter()
        .filter(|n| !beside.iter().any(|b| same_file(b, n)));
    let mut pairings = Vec::new();
    let mut fits = Vec::new();
    for (candidate, is_beside) in beside
        .iter()
        .map(|b| (b, true))
        .chain(elsewhere.map(|n| (n, false)))
    {
        match same_session(candidate, header, file, cap) {
            Ok(bytes) => fits.push((candidate.clone(), bytes, is_beside)),
            Err(reason) => pairings.push(not_compared(candidate, reason)),
        }
    }
    let nearest = fits.iter().any(|(_, _, b)| *b);
    let (mut taken, passed): (Vec<_>, Vec<_>) =
        fits.into_iter().partition(|(_, _, b)| *b == nearest);
    for (candidate, _, _) in &passed {
        let reason = "of the file's map and session too, but a demo beside the file is taken first";
        pairings.push(not_compared(candidate, reason.into()));
    }
    let chosen = match taken.len() {
        1 => taken.pop().map(|(p, bytes, _)| (p, bytes)),
        n => {
            for (candidate, _, _) in &taken {
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
/// `path`: those of its name with `.demo` (compressed or not:
/// `x.teehistorian.gz` has `x.demo`, `x.demo.gz`, ...), or else, in a
/// folder `record` wrote (it has a `scenario.ron`), its demos, in name
/// order.
fn candidates(path: &Path) -> Vec<PathBuf> {
    let same_name = crate::files::same_stem(path, "demo");
    if !same_name.is_empty() {
        return same_name;
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
        .filter(|p| crate::files::named_as(p, "demo") && p.is_file())
        .collect();
    demos.sort();
    demos
}

/// The bytes of the demo at `path` if it is of the session the
/// teehistorian file `file` (its header `header`) records; else why not.
/// It must embed the map the header names. Then its recording time must
/// fit: DDNet's server counts ticks from the map's start, where its
/// teehistorian file begins (`start_time`), so a demo of that map's
/// session, starting at tick T, was started T / 50 s after it. Its
/// `timestamp` (`str_timestamp`) and the header's `start_time`
/// (`str_timestamp_ex`) are both the server's local time, in whole
/// seconds: they must agree to 2 s. Then its snapshots over its first seconds must not
/// show more players than the file has connected
/// ([`more_players_than_connected`]).
/// Neither file says more: the demo carries no game UUID, and its net
/// version is the same for every DDNet release. What is missing (a time,
/// a snapshot, the file's records up to that tick) tells nothing.
fn same_session(path: &Path, header: &Header, file: &[u8], cap: u64) -> Result<Vec<u8>, String> {
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
    let is_07 = events.header().is_07();
    let mut demo_tick = None;
    // The players of its snapshots over its first seconds.
    let mut players = Vec::new();
    while let Ok(Some(e)) = events.next() {
        if e.tick < 0 {
            continue;
        }
        let first = *demo_tick.get_or_insert(e.tick);
        if e.tick - first > FIRST_TICKS {
            break;
        }
        if let (false, EventKind::Snapshot(snap)) = (is_07, e.kind) {
            let cids = (snap.items()).filter(|i| i.type_id() == PLAYER_INFO_06);
            players.push((e.tick, cids.map(|i| i.id()).collect::<Vec<_>>()));
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
    if let Some(apart) = more_players_than_connected(file, &players) {
        return Err(format!("another session: {apart}"));
    }
    drop(events);
    Ok(bytes)
}

/// 0.6's `NETOBJTYPE_PLAYERINFO`: one item per player in the game, its id
/// the client id (`CPlayer::Snap`).
const PLAYER_INFO_06: i32 = 10;

/// How far into a demo its players are held against the file's: its
/// first 30 s.
const FIRST_TICKS: i32 = 30 * TICKS_PER_SECOND as i32;

/// `n` players, in words.
fn players(n: usize) -> String {
    match n {
        1 => "1 player".into(),
        n => format!("{n} players"),
    }
}

/// Client ids as a list (`-` for none).
fn list<'i>(cids: impl IntoIterator<Item = &'i i32>) -> String {
    let words: Vec<String> = cids.into_iter().map(i32::to_string).collect();
    match words.is_empty() {
        true => "-".into(),
        false => words.join(", "),
    }
}

/// The first of a demo's snapshots (`snapshots`: each one's tick and
/// players' client ids, in tick order) that has more players than the
/// teehistorian file `file` has connected at some point of that tick, as
/// said; `None` when none has, or the file does not read so far. DDNet
/// records a client's JOIN when its connection is taken, before it is
/// in the game and snapped, and its DROP when it goes; so a demo of the
/// session never shows more. Counts, not ids: a server translates the
/// ids it sends an old client, whose demo then shows other ids.
fn more_players_than_connected(file: &[u8], snapshots: &[(i32, Vec<i32>)]) -> Option<String> {
    use crate::teehistorian::{Replay, ReplayConfig};
    let (_, mut reader) = SliceReader::new(file, Mode::Lenient).ok()?;
    let mut replay = Replay::new(ReplayConfig::default());
    let connected = |r: &Replay| -> BTreeSet<i32> {
        r.players().filter(|p| p.connected).map(|p| p.cid).collect()
    };
    let mut snaps = snapshots.iter().peekable();
    // Connected at the end of the tick before the next snapshot's, once
    // a record of its tick is met.
    let mut before: Option<BTreeSet<i32>> = None;
    let apart = |(tick, cids): &(i32, Vec<i32>), during: BTreeSet<i32>| {
        (cids.len() > during.len()).then(|| {
            format!(
                "its snapshot of tick {tick} has {} ({}); the file has {} connected then ({})",
                players(cids.len()),
                list(cids),
                during.len(),
                list(&during)
            )
        })
    };
    let flow = reader.for_each_record(|rec| {
        while let Some(&snap) = snaps.peek() {
            if rec.tick < snap.0 {
                break;
            }
            let now = connected(&replay);
            let at_start = before.take().unwrap_or_else(|| now.clone());
            if rec.tick == snap.0 {
                before = Some(at_start);
                break;
            }
            // Past the snapshot's tick: what was connected during it.
            if let Some(said) = apart(snap, &at_start | &now) {
                return ControlFlow::Break(said);
            }
            snaps.next();
        }
        if snaps.peek().is_none() {
            return ControlFlow::Break(String::new());
        }
        // An inconsistency is the check's to report; the players stand.
        let _ = replay.handle(rec.offset, &rec.msg);
        ControlFlow::Continue(())
    });
    match flow {
        Ok(ControlFlow::Break(said)) if !said.is_empty() => Some(said),
        _ => None,
    }
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
