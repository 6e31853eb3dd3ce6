//! `record --replay FILE`: the scenario a teehistorian file's game makes
//! ([`teeoracle::bot::replay`]): the map the header names, found by its
//! SHA-256; the server settings the header holds (but those `record`
//! decides itself); one bot per join, each sending the recorded client's
//! start info, inputs and messages on the recorded ticks; with `--tune`
//! and `--config`, the recorded server changed ([`Replay::changes`]).

use super::super::Failure;
use super::super::output::shown;
use super::scenario::{BotPlan, Flavor, Scenario, TICKS_PER_SECOND, map_dirs};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use teeoracle::bot::replay::{Note, Plan, plan};
use teeoracle::simulation::physics::tuning::Tuning;
use teeoracle::simulation::{Maps, Release};

/// The longest replay, in ticks (a scenario's 600 s, with the ticks past
/// the end).
const MAX_TICKS: u32 = 600 * 50 - PAST_THE_END;
/// A replay keeps the file's ticks, and `record`'s clock starts with a
/// join on the map's tick 0 and is placed by the server's answer to a
/// probe (sent by the first to join, where it moves no character: with
/// a connection whose entry waits, or a spectator's entry; the answer
/// comes with the map, in the join's tick) or by the snapshots a client
/// in the game gets. When the first recorded client joins later than
/// tick 0, a bot of the replay's own, the clock, joins on tick 0 as a
/// spectator that never has a character (one would touch the map:
/// switches, spawns). It leaves this many ticks before the first
/// recorded join, or on tick 0 for a join before then: DDNet gives a new
/// client the lowest free client id, takes a slot only when the join
/// itself comes (the answer to a hello holds no state), and drops a
/// leaving client within the tick, so the recorded clients keep their
/// ids.
const CLOCK_LEAVES_BEFORE: u32 = 5;
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

/// A replay: the plan it plays, and what it changes of the recorded
/// server.
pub struct Replay {
    /// The file's game as the bots play it (its notes say what the replay
    /// cannot give back).
    pub plan: Plan,
    /// The server binary it plays into.
    pub server: PathBuf,
    /// Server config lines run after the header's settings (`--config`,
    /// then `--tune` as `tune NAME VALUE`, with `sv_tune_reset 0` before
    /// them so that the map's load keeps them): empty for a faithful
    /// replay. Named in `replay.json` and in the comparison's heading.
    pub changes: Vec<String>,
}

impl Replay {
    /// `replay.json`: the plan, the server and the changes (`[]`: none).
    pub fn json(&self) -> Vec<u8> {
        let mut doc = serde_json::to_value(&self.plan).unwrap_or_default();
        if let Some(o) = doc.as_object_mut() {
            o.insert("server".into(), shown(&self.server).into());
            o.insert("changes".into(), serde_json::json!(self.changes));
        }
        serde_json::to_vec_pretty(&doc).unwrap_or_default()
    }
}

/// The config lines `--config` (one console command each) and `--tune`
/// (a tuning parameter of the file's release, a finite number) add after
/// the header's settings; bad usage otherwise. Tunings on a server's
/// command line are reset when the game loads the map, unless
/// `sv_tune_reset` is 0 (`CGameContext::OnInit`): so it is.
fn changes(
    config: &[String],
    tune: &[(String, String)],
    release: Option<Release>,
) -> Result<Vec<String>, Failure> {
    let mut lines = Vec::new();
    for line in config {
        let first = line.split_whitespace().next().unwrap_or_default();
        if first.is_empty() || line.contains([';', '\n']) {
            return Err(Failure::Usage(format!(
                "--config {line:?}: one console command, without `;` or a line break"
            )));
        }
        if OWN_SETTINGS.contains(&first.to_ascii_lowercase().as_str()) {
            return Err(Failure::Usage(format!(
                "--config {line:?}: record sets {first} itself"
            )));
        }
        lines.push(line.clone());
    }
    if !tune.is_empty() {
        lines.push("sv_tune_reset 0".into());
    }
    let release = release.unwrap_or(Release::Ddnet20_1);
    for (name, value) in tune {
        // A number, though 16.4's console would read "heavy" as 0.
        if !value.parse::<f32>().is_ok_and(f32::is_finite) {
            return Err(Failure::Usage(format!(
                "--tune {name}={value}: {value:?} is not a number"
            )));
        }
        (Tuning::ddrace(release).set(name, value))
            .map_err(|e| Failure::Usage(format!("--tune {name}={value}: {e}")))?;
        lines.push(format!("tune {name} {value}"));
    }
    Ok(lines)
}

/// The header's tunings that are not DDRace's defaults, as `tune` lines
/// giving the same ints: those of a recorded server that kept its tunings
/// through the map's load (`sv_tune_reset 0`, which the header's config
/// then holds, as a changed replay's does), or of the map's own settings
/// (which the replayed map sets again). A value is written as the
/// hundredths it is, or, where the console's float would truncate to
/// another int, half a hundredth further from zero.
fn header_tunings(tuning: &[(String, String)], release: Option<Release>) -> Vec<String> {
    let release = release.unwrap_or(Release::Ddnet20_1);
    let ddrace = Tuning::ddrace(release);
    let gives = |name: &str, text: &str, int: i32| {
        let mut t = ddrace;
        t.set(name, text).is_ok() && t.get_int(name) == Some(int)
    };
    let mut lines = Vec::new();
    for (name, value) in tuning {
        let Ok(int) = value.parse::<i32>() else {
            continue;
        };
        if ddrace.get_int(name).is_none_or(|d| d == int) {
            continue;
        }
        let plain = format!("{}", f64::from(int) / 100.0);
        let half = format!(
            "{}",
            (f64::from(int) + 0.5f64.copysign(f64::from(int))) / 100.0
        );
        if let Some(text) = [plain, half].into_iter().find(|t| gives(name, t, int)) {
            lines.push(format!("tune {name} {text}"));
        }
    }
    lines
}

/// The scenario replaying `file` on `server`, with `config` and `tune`
/// changing the recorded server ([`changes`]), and the replay it was made
/// of.
pub fn scenario_of(
    file: &Path,
    maps: &[PathBuf],
    server: &Path,
    flavor: Flavor,
    config: &[String],
    tune: &[(String, String)],
) -> Result<(Scenario, Replay), Failure> {
    let bytes = std::fs::read(file).map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let mut plan = plan(&bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let (header, _) =
        teeoracle::teehistorian::SliceReader::new(&bytes, teeoracle::codec::Mode::Lenient)
            .map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let map_bytes = map_of(file, &plan, maps, server, flavor)?;
    restore_unrecorded(&bytes, &map_bytes, &mut plan);
    let mut server_config: Vec<String> = header
        .info
        .config
        .iter()
        .filter(|(k, _)| !OWN_SETTINGS.contains(&k.as_str()) && !k.starts_with("ec_"))
        .map(|(k, v)| format!("{k} \"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    server_config.sort();
    let server_version = header.info.server_version.as_deref().unwrap_or_default();
    let release = Release::of_server(server_version);
    server_config.extend(header_tunings(&header.info.tuning, release));
    let changes = changes(config, tune, release)?;
    server_config.extend(changes.iter().cloned());
    let last = plan.last_tick.saturating_add(1);
    if last > MAX_TICKS {
        plan.notes.push(Note {
            tick: MAX_TICKS,
            count: 1,
            what: format!(
                "the file goes on to tick {last}: a replay plays its first {MAX_TICKS} ticks ({:.2} s)",
                f64::from(MAX_TICKS) / TICKS_PER_SECOND
            ),
        });
    }
    let last = last.min(MAX_TICKS);
    let second = |t: u32| f64::from(t) / TICKS_PER_SECOND;
    let mut names = BTreeSet::new();
    let mut bots = Vec::new();
    if let Some(join) = plan.players.first().map(|p| p.join).filter(|j| *j > 0) {
        let leaves = join.saturating_sub(CLOCK_LEAVES_BEFORE);
        debug_assert!(leaves < join, "the clock leaves before the first join");
        names.insert(CLOCK.to_string());
        bots.push(BotPlan {
            name: CLOCK.into(),
            leave: Some(second(leaves)),
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
    let server = server.to_path_buf();
    Ok((
        scenario,
        Replay {
            plan,
            server,
            changes,
        },
    ))
}

/// What the file leaves out and the replay must send, where the model
/// finds it before its first divergence from the file: DDNet 16.4's
/// unwritten inputs ([`Plan::restore_unwritten`]) and 0.7 clients' team
/// changes ([`Plan::restore_team_changes`]). A file the model cannot
/// simulate gives none.
fn restore_unrecorded(bytes: &[u8], map: &[u8], plan: &mut Plan) {
    use teeoracle::simulation::{Options, physics::collision::Collision, simulate};
    let cap = teeoracle::compression::default_max_decompressed(map.len() as u64);
    let Ok(col) = Collision::of_map_bytes(map, cap) else {
        return;
    };
    let Ok(report) = simulate(bytes, col, &Options::default()) else {
        return;
    };
    // Only where the model reproduces the file: past its first
    // divergence, a held input is a guess (a file of another physics).
    let trusted = report.listed.first().map_or(i32::MAX, |d| d.tick);
    let held: Vec<(i32, usize)> = (report.held_inputs.iter())
        .filter(|(tick, _)| *tick < trusted)
        .copied()
        .collect();
    plan.restore_unwritten(&held);
    let changes: Vec<(i32, usize, i32)> = (report.unrecorded_team_changes.iter())
        .filter(|(tick, _, _)| *tick < trusted)
        .copied()
        .collect();
    plan.restore_team_changes(&changes);
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
    /// The server it was replayed into.
    pub server: String,
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
            "\nreplayed into {} against {}:\n{}",
            self.server,
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

/// The replayed game against the original, player by player
/// ([`teeoracle::diff::players`]; the replay's clock left out, its
/// changes named), also written to `compare.json`.
pub fn compared(
    original: &Path,
    out: &Path,
    replay: &Replay,
    map: Option<&[u8]>,
) -> Result<Replayed, Failure> {
    use teeoracle::diff::players::{self, Options, Status};
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
        paths: None,
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
    c.leave_out(clock);
    if !replay.changes.is_empty() {
        c.other.changes = Some(replay.changes.clone());
    }
    let json = serde_json::to_vec_pretty(&c).unwrap_or_default();
    std::fs::write(out.join("compare.json"), json)?;
    Ok(Replayed {
        original: shown(original),
        server: shown(&replay.server),
        comparison: c,
        notes: replay.plan.notes.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(config: &[&str], tune: &[(&str, &str)]) -> Result<Vec<String>, String> {
        let config: Vec<String> = config.iter().map(|s| s.to_string()).collect();
        let tune: Vec<(String, String)> = (tune.iter())
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        changes(&config, &tune, Some(Release::Ddnet16_4)).map_err(|e| match e {
            Failure::Usage(m) => m,
            e => panic!("not bad usage: {e:?}"),
        })
    }

    #[test]
    fn changes_run_after_the_header_and_tunings_outlive_the_maps_load() {
        assert_eq!(lines(&[], &[]).unwrap(), Vec::<String>::new());
        assert_eq!(
            lines(
                &["sv_team 1"],
                &[("gravity", "0.6"), ("hook_length", "500")]
            )
            .unwrap(),
            [
                "sv_team 1",
                "sv_tune_reset 0",
                "tune gravity 0.6",
                "tune hook_length 500"
            ]
        );
    }

    #[test]
    fn the_headers_own_tunings_are_set_again_to_the_same_ints() {
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            (p.iter())
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        // DDRace's five are every server's; gravity 0.6 and a value whose
        // plain decimal truncates to one hundredth less are not.
        let header = pairs(&[
            ("gun_speed", "140000"),
            ("gravity", "60"),
            ("hook_length", "38001"),
            ("ground_jump_impulse", "-1329"),
            ("air_friction", "x"),
        ]);
        let lines = header_tunings(&header, Some(Release::Ddnet16_4));
        assert_eq!(lines[0], "tune gravity 0.6");
        assert_eq!(lines.len(), 3, "{lines:?}");
        let mut t = Tuning::ddrace(Release::Ddnet16_4);
        for line in &lines {
            let mut words = line.split(' ').skip(1);
            let (name, value) = (words.next().unwrap(), words.next().unwrap());
            t.set(name, value).unwrap();
        }
        assert_eq!(t.get_int("hook_length"), Some(38001), "{lines:?}");
        assert_eq!(t.get_int("ground_jump_impulse"), Some(-1329), "{lines:?}");
    }

    #[test]
    fn a_change_the_server_cannot_take_is_bad_usage() {
        for (config, tune, says) in [
            (&["sv_port 1"][..], &[][..], "record sets sv_port itself"),
            (&["SV_RCON_PASSWORD x"], &[], "record sets"),
            (&["sv_team 1; sv_port 1"], &[], "one console command"),
            (&[" "], &[], "one console command"),
            (&[], &[("gravty", "0.6")], "gravty"),
            (&[], &[("gravity", "heavy")], "--tune gravity=heavy"),
        ] {
            let e = lines(config, tune).unwrap_err();
            assert!(e.contains(says), "{config:?} {tune:?}: {e}");
        }
    }
}

#[cfg(test)]
mod long_file {
    use super::*;
    use teeoracle::packet::Version;
    use teeoracle::teehistorian::{Header, HeaderInfo, Recorder};

    /// A file of one player whose game goes on for `ticks` ticks, on
    /// the corpus's dm7.
    fn file(ticks: i32, dir: &Path) -> PathBuf {
        use sha2::{Digest, Sha256};
        let map = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/map/ddnet-data/dm7.map");
        let sha = hex::encode(Sha256::digest(std::fs::read(map).unwrap()));
        let header = Header::from_info(HeaderInfo {
            version: 2,
            map_name: Some("dm7".into()),
            map_sha256: Some(sha),
            ..HeaderInfo::default()
        });
        let mut rec = Recorder::new(&header);
        rec.tick(0);
        rec.record_player_join(0, Version::V06);
        rec.tick(ticks);
        rec.record_player_drop(0, "");
        rec.finish();
        let path = dir.join("long.teehistorian");
        std::fs::write(&path, rec.bytes()).unwrap();
        path
    }

    #[test]
    fn a_file_hours_long_is_played_for_its_first_600_s_named() {
        let dir = tempfile::tempdir().unwrap();
        let maps = [PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/map/ddnet-data"
        ))];
        let server = Path::new("/nonexistent/DDNet-Server");
        let hours = file(3 * 60 * 60 * 50, dir.path());
        let (scenario, replay) =
            scenario_of(&hours, &maps, server, Flavor::Ddnet, &[], &[]).unwrap();
        assert_eq!(scenario.seconds, 600.0);
        let notes: Vec<_> = (replay.plan.notes.iter())
            .map(|n| (n.tick, &n.what[..]))
            .collect();
        assert_eq!(
            notes,
            [(
                29_997,
                "the file goes on to tick 540001: a replay plays its first 29997 ticks (599.94 s)"
            )]
        );
        // One that fits plays to its end and 3 ticks past it, named nowhere.
        let short = file(500, dir.path());
        let (scenario, replay) =
            scenario_of(&short, &maps, server, Flavor::Ddnet, &[], &[]).unwrap();
        assert_eq!(scenario.seconds, 504.0 / 50.0);
        assert!(replay.plan.notes.is_empty());
    }
}
