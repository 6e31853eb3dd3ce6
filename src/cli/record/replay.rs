//! `record --replay FILE`: the scenario a teehistorian file's game makes
//! ([`teeoracle::bot::replay`]): the map the header names, found by its
//! SHA-256; the server settings the header holds (but those `record`
//! decides itself); one bot per join, each sending the recorded client's
//! start info, inputs and messages on the recorded ticks.

use super::super::Failure;
use super::super::output::shown;
use super::scenario::{BotPlan, Flavor, Scenario, TICKS_PER_SECOND, map_dirs};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use teeoracle::bot::replay::{Note, Plan, plan};
use teeoracle::simulation::Maps;

/// The longest replay, in ticks (a scenario's 600 s, with the ticks past
/// the end).
const MAX_TICKS: u32 = 600 * 50 - PAST_THE_END;
/// A replay keeps the file's ticks, and `record`'s clock starts with a
/// join on the map's tick 0 and is placed by the server's answer to a
/// probe (sent by the first to join, where it moves no character: with
/// a connection whose entry waits, or a spectator's entry) or by the
/// snapshots a client in the game gets. When the first recorded client
/// joins later than tick 0, a bot of the replay's own, the clock, joins
/// on tick 0 as a spectator that never has a character (one would touch
/// the map: switches, spawns). It leaves this
/// many ticks before the first recorded join (DDNet gives a new client
/// the lowest free client id, and drops a leaving one within the tick),
/// or, when that join comes too early for it, stays: the recorded clients
/// then have ids one higher.
const CLOCK_LEAVES_BEFORE: u32 = 5;
/// The clock is placed by then (its probe answered on tick 0 or 1).
const CLOCK_PLACED: u32 = 3;
/// The run goes on this many ticks past the file's last: a leave on the
/// last tick is dropped by the server when it next reads its socket, and
/// the run must not stop the server before.
const PAST_THE_END: u32 = 3;
/// The clock's name.
pub const CLOCK: &str = "teeoracle clock";

/// Header settings a replay does not take over: where the server listens
/// and writes, its passwords and what `record` sets for its own bots.
const OWN_SETTINGS: &[&str] = &[
    "sv_port",
    "sv_register",
    "sv_map",
    "sv_tee_historian",
    "sv_high_bandwidth",
    "logfile",
    "bindaddr",
    "sv_rcon_password",
    "sv_rcon_mod_password",
    "sv_rcon_helper_password",
    "sv_sqlite_file",
    "sv_external_port",
    "sv_hostname",
];

/// The scenario replaying `file` on `server`, and the plan it was made
/// of (its notes say what the replay cannot give back).
pub fn scenario_of(
    file: &Path,
    maps: &[PathBuf],
    server: &Path,
    flavor: Flavor,
) -> Result<(Scenario, Plan), Failure> {
    let bytes = std::fs::read(file).map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let mut plan = plan(&bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let (header, _) =
        teeoracle::teehistorian::SliceReader::new(&bytes, teeoracle::codec::Mode::Lenient)
            .map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let map_bytes = map_of(file, &plan, maps, server, flavor)?;
    restore_unwritten(&bytes, &map_bytes, &mut plan);
    let mut server_config: Vec<String> = header
        .info
        .config
        .iter()
        .filter(|(k, _)| !OWN_SETTINGS.contains(&k.as_str()) && !k.starts_with("ec_"))
        .map(|(k, v)| format!("{k} \"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    server_config.sort();
    let last = plan.last_tick.saturating_add(1);
    if last > MAX_TICKS {
        plan.notes.push(Note {
            tick: MAX_TICKS,
            count: 1,
            what: format!(
                "the file goes on to tick {last}: a replay plays its first {} s",
                MAX_TICKS / 50
            ),
        });
    }
    let last = last.min(MAX_TICKS);
    let second = |t: u32| f64::from(t) / TICKS_PER_SECOND;
    let mut names = BTreeSet::new();
    let mut bots = Vec::new();
    let first = plan
        .players
        .first()
        .map(|p| (p.join, p.ready.unwrap_or(p.join)));
    if let Some((join, entry)) = first.filter(|(join, _)| *join > 0) {
        let leaves = join
            .checked_sub(CLOCK_LEAVES_BEFORE)
            .filter(|l| *l >= CLOCK_PLACED);
        if leaves.is_none() {
            plan.notes.push(Note {
                tick: 0,
                count: 1,
                what: format!(
                    "the first client joins on tick {join} and enters on {entry}: the replay's clock (a spectator) stays, and every client id is one higher than recorded"
                ),
            });
        }
        names.insert(CLOCK.to_string());
        bots.push(BotPlan {
            name: CLOCK.into(),
            leave: leaves.map(second),
            protocol: Some("0.6".into()),
            spectator: true,
            ..BotPlan::default()
        });
    }
    for p in plan.players.iter().filter(|p| p.join < last) {
        // Bots need names of their own in the run's report; the server
        // gets the recorded start info.
        let mut name = p.name.clone();
        let mut n = 1;
        while !names.insert(name.clone()) {
            n += 1;
            name = format!("{} ({n})", p.name);
        }
        bots.push(BotPlan {
            name,
            join: second(p.join),
            leave: p.leave.filter(|l| *l < last).map(second),
            protocol: Some(p.protocol.to_string()),
            replay: Some(p.clone()),
            ..BotPlan::default()
        });
    }
    plan.notes
        .sort_by(|a, b| (a.tick, &a.what).cmp(&(b.tick, &b.what)));
    let scenario = Scenario {
        map: plan.map_name.clone(),
        seconds: second(last + PAST_THE_END),
        server_config,
        bots,
        map_bytes: Some(map_bytes),
        ..Scenario::default()
    };
    Ok((scenario, plan))
}

/// DDNet 16.4's unwritten inputs ([`Plan::restore_unwritten`]), where
/// the model finds them: a file it cannot simulate gives none.
fn restore_unwritten(bytes: &[u8], map: &[u8], plan: &mut Plan) {
    use teeoracle::simulation::{Options, physics::collision::Collision, simulate};
    let cap = teeoracle::compression::default_max_decompressed(map.len() as u64);
    let Ok(col) = Collision::of_map_bytes(map, cap) else {
        return;
    };
    if let Ok(report) = simulate(bytes, col, &Options::default()) {
        plan.restore_unwritten(&report.held_inputs);
    }
}

/// The map the file's header names, by its SHA-256, among the maps
/// beside the file, under `maps` and the server's own folders; a map of
/// that name with other bytes is bad usage, named with both checksums.
fn map_of(
    file: &Path,
    plan: &Plan,
    maps: &[PathBuf],
    server: &Path,
    flavor: Flavor,
) -> Result<Vec<u8>, Failure> {
    let name = plan.map_name.as_deref().unwrap_or_default();
    let Some(sha) = plan.map_sha256.as_deref() else {
        return Err(Failure::Usage(format!(
            "{}: the header names no map SHA-256 (map {name:?}): the replay cannot know its map",
            shown(file)
        )));
    };
    let mut dirs = maps.to_vec();
    dirs.extend(map_dirs(server, flavor));
    let found = Maps::gather(&[file.to_path_buf()], &dirs)
        .map_err(|e| Failure::Usage(format!("--maps: {e}")))?;
    if let Some(map) = found.get(sha) {
        return Ok(map.to_vec());
    }
    let file_name = format!("{name}.map");
    for d in &dirs {
        if let Ok(bytes) = std::fs::read(d.join(&file_name)) {
            use sha2::{Digest, Sha256};
            let other = hex::encode(Sha256::digest(&bytes));
            return Err(Failure::Usage(format!(
                "{}: the map {} has SHA-256 {other}, but the file was recorded on {name:?} with SHA-256 {sha}: another version of the map (give the right one with --maps)",
                shown(file),
                shown(&d.join(&file_name))
            )));
        }
    }
    let looked: Vec<String> = dirs.iter().map(|d| shown(d)).collect();
    Err(Failure::Usage(format!(
        "{}: no map {name:?} with SHA-256 {sha} beside it or in {} (give its folder with --maps)",
        shown(file),
        if looked.is_empty() {
            "any maps folder".into()
        } else {
            looked.join(", ")
        }
    )))
}

/// A replay's verdict: the replayed game against the original, player
/// by player, and what the replay could not give back.
#[derive(serde::Serialize)]
pub struct Replayed {
    /// The original file.
    pub original: String,
    /// [`teeoracle::diff::players::compare`]'s document (the replay's
    /// clock left out).
    pub comparison: teeoracle::diff::players::Comparison,
    /// What the replay cannot give back ([`Plan::notes`]).
    pub notes: Vec<Note>,
}

impl Replayed {
    /// For people: the comparison and each note.
    pub fn text(&self) -> String {
        let mut t = format!(
            "\nreplayed against {}:\n{}",
            self.original,
            self.comparison.text()
        );
        for n in &self.notes {
            t.push_str(&format!(
                "\n  not replayed: {} (tick {}, {} time(s))",
                n.what, n.tick, n.count
            ));
        }
        t
    }

    /// Ok only when the game is identical and nothing was left out.
    pub fn verdict(&self) -> Result<(), Failure> {
        use teeoracle::diff::players::Verdict;
        match (self.comparison.verdict, self.notes.is_empty()) {
            (Verdict::Identical, true) => Ok(()),
            (Verdict::Identical, false) => Err(Failure::reported(
                "record --replay: identical, but the replay was partial (its notes above)",
            )),
            (Verdict::Changed, _) => Err(Failure::reported(
                "record --replay: the replayed game differs from the recorded one",
            )),
        }
    }
}

/// Where a player first differs (the original's numbering), as the
/// comparison's summary counts it.
fn first_difference(p: &teeoracle::diff::players::PlayerComparison) -> Option<i32> {
    use teeoracle::diff::players::Status;
    match p.status {
        Status::Unchanged => None,
        Status::OnlyOriginal | Status::OnlyOther => Some(p.joined),
        Status::Changed => {
            let path = p.path.as_ref().map(|d| d.tick);
            path.into_iter()
                .chain(p.events.as_ref().map(|e| e.tick))
                .min()
        }
    }
}

/// The replayed game against the original, player by player
/// ([`teeoracle::diff::players`]; the replay's clock left out), also
/// written to `compare.json`.
pub fn compared(
    original: &Path,
    out: &Path,
    plan: &Plan,
    map: Option<&[u8]>,
) -> Result<Replayed, Failure> {
    use teeoracle::diff::players::{self, Options, Status, Verdict};
    // After a map change at its end the server writes a file per map.
    let replayed = ["server.teehistorian", "server-1.teehistorian"]
        .iter()
        .map(|n| out.join(n))
        .find(|p| p.is_file())
        .ok_or_else(|| Failure::bad("record --replay: the server wrote no teehistorian file"))?;
    let read = |p: &Path| std::fs::read(p).map_err(|e| Failure::bad(format!("{}: {e}", shown(p))));
    let (a, b) = (read(original)?, read(&replayed)?);
    let cap = teeoracle::compression::default_max_decompressed(a.len() as u64);
    let col = map.and_then(|m| {
        teeoracle::simulation::physics::collision::Collision::of_map_bytes(m, cap).ok()
    });
    let options = Options {
        offset: Some(0),
        finish_map: col.as_ref(),
    };
    let mut c = players::compare(&a, &b, &options).map_err(|e| {
        Failure::bad(format!(
            "record --replay: comparing {} with {}: {e}",
            shown(original),
            shown(&replayed)
        ))
    })?;
    let clock = |p: &players::PlayerComparison| {
        p.status == Status::OnlyOther && p.name.as_deref() == Some(CLOCK.as_bytes())
    };
    if c.players.iter().any(clock) {
        c.players.retain(|p| !clock(p));
        c.summary.players -= 1;
        c.summary.only_other -= 1;
        c.summary.first_difference = c.players.iter().filter_map(first_difference).min();
        if c.summary.unchanged == c.summary.players {
            c.verdict = Verdict::Identical;
        }
    }
    let json = serde_json::to_vec_pretty(&c).unwrap_or_default();
    std::fs::write(out.join("compare.json"), json)?;
    Ok(Replayed {
        original: shown(original),
        comparison: c,
        notes: plan.notes.clone(),
    })
}
