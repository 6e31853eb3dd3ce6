//! A scenario file (`corpus/record/*.ron`) and its checks, all made
//! before anything starts: a scenario that cannot run is bad usage.

use super::super::Failure;
use super::super::output::shown;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use teeoracle::bot::random::Knobs;
use teeoracle::bot::replay::PlayerPlan;
use teeoracle::packet::Version;

/// Ticks a second, on DDNet and Teeworlds servers alike.
pub const TICKS_PER_SECOND: f64 = 50.0;
/// The longest scenario, in seconds.
const MAX_SECONDS: f64 = 600.0;
/// The most bots a scenario may bring.
const MAX_BOTS: usize = 128;

/// A scenario: bots joining, moving, chatting and leaving. Times are
/// seconds on the scenario's clock, which counts server ticks (50 a
/// second) from the first snapshot of the first map; ticks restart at a
/// map change, the clock goes on from where the old map left it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The map (default: the server's).
    #[serde(default)]
    pub map: Option<String>,
    /// How long the run lasts, at most 600 s.
    pub seconds: f64,
    /// Record a server demo through the remote console (`record`).
    #[serde(default)]
    pub demo: bool,
    /// Remote console commands the first bot runs: (second, command),
    /// e.g. `change_map dm1`.
    #[serde(default)]
    pub rcon: Vec<(f64, String)>,
    /// Server settings added to teeoracle's own, e.g. `conn_timeout 5`
    /// (DDNet drops a silent client after 100 s by default).
    #[serde(default)]
    pub server_config: Vec<String>,
    /// Kill the server (SIGKILL) at this second: its files end cut, as a
    /// crashed server's do.
    #[serde(default)]
    pub kill_server: Option<f64>,
    pub bots: Vec<BotPlan>,
    /// The map's bytes, put where the server looks first (`record
    /// --replay`: the map the file names, found by its checksum). Not in
    /// scenario files.
    #[serde(skip)]
    pub map_bytes: Option<Vec<u8>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotPlan {
    pub name: String,
    /// When it connects. The bots with the earliest join connect at once
    /// (before the clock starts); the others at this second.
    #[serde(default)]
    pub join: f64,
    #[serde(default)]
    pub leave: Option<f64>,
    #[serde(default)]
    pub moves: bool,
    /// Chat lines: (second, text).
    #[serde(default)]
    pub say: Vec<(f64, String)>,
    /// Stop answering at this second (the server times it out).
    #[serde(default)]
    pub silent: Option<f64>,
    /// `"0.6"` (DDNet's, with its token) or `"0.7"`; default: 0.6 on a
    /// DDNet server, 0.7 on Teeworlds'.
    #[serde(default)]
    pub protocol: Option<String>,
    /// The server is expected to refuse this bot with a reason that
    /// contains this text (e.g. `"This server is full"`); a refusal not
    /// declared so fails the run, and so does this bot joining.
    #[serde(default)]
    pub expect_refused: Option<String>,
    /// Scripted input: (second, change). Each change sets the fields it
    /// gives, which hold until changed; the input of a scenario tick is
    /// every change up to that tick applied in order
    /// ([`scripted_input`]). Not with `moves`.
    #[serde(default)]
    pub actions: Vec<(f64, Action)>,
    /// Seconds at which the bot asks to die (Cl_Kill, the client's
    /// `kill`).
    #[serde(default)]
    pub kill: Vec<f64>,
    /// Seeded random input over the whole input message, and deeds
    /// (kills, spectating, DDRace teams, test commands): `random:
    /// Some((seed: 7))` ([`Knobs`]). Not with `moves` or `actions`.
    #[serde(default)]
    pub random: Option<Knobs>,
    /// A recorded player played again (`record --replay`): its input on
    /// every tick and what it sent, as the file says. Not in scenario
    /// files.
    #[serde(skip)]
    pub replay: Option<PlayerPlan>,
    /// It joins the spectators with its entry and never has a character
    /// (`record --replay`'s clock). Not in scenario files.
    #[serde(skip)]
    pub spectator: bool,
}

/// One change of a bot's scripted input; a field not given keeps its
/// value. Before any change the input is all zero (no direction, target
/// (0, 0), which DDNet reads as straight up).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// -1 left, 0 none, 1 right.
    #[serde(default)]
    pub direction: Option<i32>,
    /// The aim, relative to the character, in world units (32 a tile).
    #[serde(default)]
    pub target: Option<(i32, i32)>,
    #[serde(default)]
    pub jump: Option<bool>,
    #[serde(default)]
    pub hook: Option<bool>,
    /// Fire held (`true`) or released (`false`). On the wire it is
    /// DDNet's counter: every change of state adds one (modulo 64), so
    /// its low bit is the state and a press is an odd step.
    #[serde(default)]
    pub fire: Option<bool>,
    /// The weapon wanted from then on: 0 hammer, 1 gun, 2 shotgun, 3
    /// grenade, 4 laser, 5 ninja (sent as the weapon plus one, DDNet's
    /// `m_WantedWeapon`, where 0 means no wish); `-1` wishes for none.
    #[serde(default)]
    pub weapon: Option<i32>,
}

/// DDNet's input state mask (`INPUT_STATE_MASK`): fire and the weapon
/// counters are counted modulo 64.
const INPUT_STATE_MASK: i32 = 0x3f;
/// The highest weapon index (ninja).
const MAX_WEAPON: i32 = 5;

/// The input a bot's script gives for scenario tick `tick`: every change
/// whose second falls on or before the tick, applied in order. A
/// function of the script and the tick only, so inputs sent ahead (and
/// sent again after a map change) are the same in every run.
pub fn scripted_input(actions: &[(f64, Action)], tick: u32) -> [i32; 10] {
    let mut input = [0; 10];
    let mut held = false;
    for (at, a) in actions {
        if ticks(*at) > tick {
            continue;
        }
        if let Some(d) = a.direction {
            input[0] = d;
        }
        if let Some((x, y)) = a.target {
            input[1] = x;
            input[2] = y;
        }
        if let Some(j) = a.jump {
            input[3] = i32::from(j);
        }
        if let Some(f) = a.fire
            && f != held
        {
            held = f;
            input[4] = (input[4] + 1) & INPUT_STATE_MASK;
        }
        if let Some(h) = a.hook {
            input[5] = i32::from(h);
        }
        if let Some(w) = a.weapon {
            input[7] = w + 1;
        }
    }
    input
}

/// Which server it is, by the binary's name: Teeworlds 0.7.5 has no
/// teehistorian, reads its settings from `autoexec.cfg` in its data
/// folder and has no SIGINT handler (it is stopped with rcon `shutdown`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Ddnet,
    Teeworlds,
}

impl Flavor {
    pub fn of(binary: &Path) -> Flavor {
        let name = binary
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase());
        match name.is_some_and(|n| n.contains("teeworlds")) {
            true => Flavor::Teeworlds,
            false => Flavor::Ddnet,
        }
    }

    /// The server's data folder under `$XDG_DATA_HOME`.
    pub fn data(self) -> &'static str {
        match self {
            Flavor::Ddnet => "ddnet",
            Flavor::Teeworlds => "teeworlds",
        }
    }
}

/// Seconds on the scenario clock as ticks.
pub fn ticks(seconds: f64) -> u32 {
    (seconds * TICKS_PER_SECOND)
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

impl Scenario {
    /// Reads and parses `path`: a file that does not read is a bad file,
    /// one that does not parse bad usage.
    pub fn read(path: &Path) -> Result<Scenario, Failure> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
        ron::from_str(&text).map_err(|e| Failure::Usage(format!("{}: {e}", shown(path))))
    }

    /// Checks everything that can be known before the server starts, and
    /// gives each bot's protocol. `server` is the binary: its maps are
    /// looked for beside it and in the distribution's data folders.
    pub fn validate(&self, flavor: Flavor, server: &Path) -> Result<Vec<Version>, String> {
        let seconds = self.seconds;
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_SECONDS) {
            return Err(format!(
                "seconds: {seconds} (a run lasts more than 0 and at most {MAX_SECONDS} seconds)"
            ));
        }
        if self.bots.is_empty() || self.bots.len() > MAX_BOTS {
            return Err(format!(
                "{} bots (a scenario has 1 to {MAX_BOTS})",
                self.bots.len()
            ));
        }
        let within = |what: String, t: f64| {
            if t.is_finite() && (0.0..=seconds).contains(&t) {
                Ok(())
            } else {
                Err(format!(
                    "{what}: second {t} is not within the run's 0 to {seconds}"
                ))
            }
        };
        for (t, cmd) in &self.rcon {
            within(format!("rcon {cmd:?}"), *t)?;
        }
        if let Some(k) = self.kill_server {
            within("kill_server".into(), k)?;
        }
        let mut versions = Vec::new();
        let mut names = std::collections::HashSet::new();
        for b in &self.bots {
            let who = format!("bot {:?}", b.name);
            if b.name.is_empty() || !names.insert(b.name.as_str()) {
                return Err(format!("{who}: every bot needs a name of its own"));
            }
            within(format!("{who} join"), b.join)?;
            for (what, t) in [("leave", b.leave), ("silent", b.silent)] {
                if let Some(t) = t {
                    within(format!("{who} {what}"), t)?;
                    if t < b.join {
                        return Err(format!(
                            "{who}: {what} at {t} s is before its join at {} s",
                            b.join
                        ));
                    }
                }
            }
            for (t, text) in &b.say {
                within(format!("{who} say {text:?}"), *t)?;
            }
            for t in &b.kill {
                within(format!("{who} kill"), *t)?;
            }
            let givers = [
                ("`moves`", b.moves),
                ("`actions`", !b.actions.is_empty()),
                ("`random`", b.random.is_some()),
            ];
            let given: Vec<&str> = givers.iter().filter(|g| g.1).map(|g| g.0).collect();
            if given.len() > 1 {
                return Err(format!(
                    "{who}: {} give its input (choose one)",
                    given.join(" and ")
                ));
            }
            if let Some(problem) = b.random.as_ref().and_then(Knobs::problem) {
                return Err(format!("{who}: random: {problem}"));
            }
            let mut last = 0.0;
            for (t, a) in &b.actions {
                within(format!("{who} action"), *t)?;
                if *t < last {
                    return Err(format!(
                        "{who}: action at {t} s comes after one at {last} s (list them in order)"
                    ));
                }
                last = *t;
                if a.direction.is_some_and(|d| !(-1..=1).contains(&d)) {
                    return Err(format!(
                        "{who}: action at {t} s: direction {:?} (expected -1, 0 or 1)",
                        a.direction.unwrap_or_default()
                    ));
                }
                if a.weapon.is_some_and(|w| !(-1..=MAX_WEAPON).contains(&w)) {
                    return Err(format!(
                        "{who}: action at {t} s: weapon {:?} (expected 0 to {MAX_WEAPON}, or -1 for none)",
                        a.weapon.unwrap_or_default()
                    ));
                }
            }
            versions.push(match (b.protocol.as_deref(), flavor) {
                (Some("0.7"), _) | (None, Flavor::Teeworlds) => Version::V07,
                (Some("0.6"), _) | (None, Flavor::Ddnet) => Version::V06,
                (Some(other), _) => {
                    return Err(format!(
                        "{who}: protocol {other:?} (expected \"0.6\" or \"0.7\")"
                    ));
                }
            });
        }
        let dirs = map_dirs(server, flavor);
        let mut maps: Vec<(String, String)> = Vec::new();
        if let Some(map) = self.map.as_ref().filter(|_| self.map_bytes.is_none()) {
            maps.push(("map".into(), map.clone()));
        }
        for (_, cmd) in &self.rcon {
            if let Some(map) = map_argument(cmd, "change_map") {
                maps.push((format!("rcon {cmd:?}"), map));
            }
        }
        for line in &self.server_config {
            if let Some(map) = map_argument(line, "sv_map") {
                maps.push((format!("server_config {line:?}"), map));
            }
        }
        // Where no maps folder is found, the server's own log decides.
        if !dirs.is_empty() {
            for (what, map) in maps {
                let file = format!("{map}.map");
                if !dirs.iter().any(|d| d.join(&file).is_file()) {
                    let looked: Vec<String> =
                        dirs.iter().map(|d| d.display().to_string()).collect();
                    return Err(format!(
                        "{what}: no map {map:?} ({file} is in none of {})",
                        looked.join(", ")
                    ));
                }
            }
        }
        Ok(versions)
    }
}

/// The map a console command names (`change_map "Gold Mine"`, `sv_map
/// dm1`), if it is that command.
fn map_argument(command: &str, name: &str) -> Option<String> {
    let rest = command.trim().strip_prefix(name)?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim();
    let map = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or_default(),
        None => rest.split([' ', ';']).next().unwrap_or_default(),
    };
    (!map.is_empty()).then(|| map.to_string())
}

/// The maps folders a server binary reads that exist here: its own
/// `data/maps` beside it (a build folder) and the distribution's. The
/// temporary home the server runs in starts empty.
pub(super) fn map_dirs(server: &Path, flavor: Flavor) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(dir) = server.parent() {
        dirs.push(dir.join("data").join("maps"));
    }
    let name = flavor.data();
    for base in ["/usr/share/games", "/usr/share", "/usr/local/share"] {
        dirs.push(Path::new(base).join(name).join("data").join("maps"));
    }
    dirs.retain(|d| d.is_dir());
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_is_read_from_change_map_and_sv_map() {
        assert_eq!(
            map_argument("change_map \"Gold Mine\"", "change_map").as_deref(),
            Some("Gold Mine")
        );
        assert_eq!(map_argument("sv_map dm1", "sv_map").as_deref(), Some("dm1"));
        assert_eq!(map_argument("sv_mapx dm1", "sv_map"), None);
        assert_eq!(map_argument("say change_map", "change_map"), None);
    }

    fn parse(text: &str) -> Scenario {
        ron::from_str(text).unwrap_or_else(|e| panic!("{e}"))
    }

    const SCRIPT: &str = r#"(seconds: 10.0, bots: [(name: "a", kill: [6.0], actions: [
        (2.0, (direction: Some(-1), target: Some((100, -20)), weapon: Some(0))),
        (2.5, (fire: Some(true), hook: Some(true))),
        (3.0, (fire: Some(false), jump: Some(true))),
        (3.02, (jump: Some(false), fire: Some(false))),
        (4.0, (fire: Some(true), direction: Some(0), weapon: Some(3))),
    ])])"#;

    #[test]
    fn actions_parse_with_every_field_optional() {
        let s = parse(SCRIPT);
        let b = &s.bots[0];
        assert_eq!(b.kill, vec![6.0]);
        assert_eq!(b.actions.len(), 5);
        assert_eq!(
            b.actions[0].1,
            Action {
                direction: Some(-1),
                target: Some((100, -20)),
                weapon: Some(0),
                ..Action::default()
            }
        );
        assert_eq!(b.actions[3].1.jump, Some(false));
        assert_eq!(b.actions[3].1.hook, None, "an absent field is no change");
        assert!(
            ron::from_str::<Scenario>(
                r#"(seconds: 1.0, bots: [(name: "a", actions: [(0.5, (shoot: Some(true)))])])"#
            )
            .is_err(),
            "an unknown field is refused"
        );
        assert!(
            s.validate(Flavor::Ddnet, Path::new("/nonexistent/server"))
                .is_ok()
        );
    }

    #[test]
    fn a_change_holds_from_its_tick_until_the_next() {
        let s = parse(SCRIPT);
        let a = &s.bots[0].actions;
        // [direction, target x, target y, jump, fire, hook, flags, wanted weapon, next, prev]
        assert_eq!(scripted_input(a, 99), [0; 10], "before 2 s: all zero");
        assert_eq!(scripted_input(a, 100), [-1, 100, -20, 0, 0, 0, 0, 1, 0, 0]);
        assert_eq!(scripted_input(a, 124), [-1, 100, -20, 0, 0, 0, 0, 1, 0, 0]);
        // 2.5 s is tick 125: fire pressed (counter 1, odd: held), hook.
        assert_eq!(scripted_input(a, 125), [-1, 100, -20, 0, 1, 1, 0, 1, 0, 0]);
        // 3 s: released (counter 2), jump held for one tick.
        assert_eq!(scripted_input(a, 150), [-1, 100, -20, 1, 2, 1, 0, 1, 0, 0]);
        // A release of a released fire is no change of the counter.
        assert_eq!(scripted_input(a, 151), [-1, 100, -20, 0, 2, 1, 0, 1, 0, 0]);
        // 4 s: pressed again (3), standing, grenade wanted (3 + 1).
        assert_eq!(scripted_input(a, 200), [0, 100, -20, 0, 3, 1, 0, 4, 0, 0]);
        assert_eq!(scripted_input(a, 499), scripted_input(a, 200));
    }

    #[test]
    fn the_fire_counter_wraps_as_ddnet_masks_it() {
        let presses: Vec<(f64, Action)> = (0..70)
            .map(|i| {
                let fire = Some(i % 2 == 0);
                (
                    f64::from(i) * 0.02,
                    Action {
                        fire,
                        ..Action::default()
                    },
                )
            })
            .collect();
        // 70 changes of state: 70 & 63 = 6, released (even).
        assert_eq!(scripted_input(&presses, 100)[4], 6);
        // After 65 changes (tick 64): 65 & 63 = 1, held.
        assert_eq!(scripted_input(&presses, 64)[4], 1);
    }

    #[test]
    fn a_script_that_cannot_run_is_refused_before_the_server_starts() {
        let server = Path::new("/nonexistent/server");
        let refused = |text: &str| parse(text).validate(Flavor::Ddnet, server).unwrap_err();
        let e = refused(
            r#"(seconds: 5.0, bots: [(name: "a", moves: true, actions: [(1.0, (jump: Some(true)))])])"#,
        );
        assert!(e.contains("`moves` and `actions`"), "{e}");
        let e = refused(r#"(seconds: 5.0, bots: [(name: "a", actions: [(2.0, ()), (1.0, ())])])"#);
        assert!(e.contains("in order"), "{e}");
        let e = refused(
            r#"(seconds: 5.0, bots: [(name: "a", actions: [(1.0, (direction: Some(2)))])])"#,
        );
        assert!(e.contains("direction 2"), "{e}");
        let e =
            refused(r#"(seconds: 5.0, bots: [(name: "a", actions: [(1.0, (weapon: Some(6)))])])"#);
        assert!(e.contains("weapon 6"), "{e}");
        let e = refused(r#"(seconds: 5.0, bots: [(name: "a", actions: [(6.0, ())])])"#);
        assert!(e.contains("not within"), "{e}");
        let e = refused(r#"(seconds: 5.0, bots: [(name: "a", kill: [9.0])])"#);
        assert!(e.contains("kill"), "{e}");
        let e =
            refused(r#"(seconds: 5.0, bots: [(name: "a", moves: true, random: Some((seed: 1)))])"#);
        assert!(e.contains("`moves` and `random`"), "{e}");
        let e =
            refused(r#"(seconds: 5.0, bots: [(name: "a", random: Some((seed: 1, idle: 2.0)))])"#);
        assert!(e.contains("random: idle 2"), "{e}");
        let random =
            parse(r#"(seconds: 5.0, bots: [(name: "a", random: Some((seed: 3, armed: true)))])"#);
        assert!(random.validate(Flavor::Ddnet, server).is_ok());
        assert_eq!(random.bots[0].random.as_ref().map(|k| k.seed), Some(3));
    }

    #[test]
    fn every_scenario_of_the_corpus_reads_and_validates() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/record");
        let mut scripted = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "ron") {
                continue;
            }
            let scenario = Scenario::read(&path).unwrap_or_else(|e| panic!("{e:?}"));
            let flavor = Flavor::of(Path::new(
                match path.to_string_lossy().contains("teeworlds") {
                    true => "teeworlds-server",
                    false => "DDNet-Server",
                },
            ));
            // A server binary that is not there: only the maps folders of
            // the distribution are looked in (none on a bare machine).
            if let Err(e) = scenario.validate(flavor, Path::new("/nonexistent/server")) {
                panic!("{}: {e}", path.display());
            }
            scripted += scenario
                .bots
                .iter()
                .filter(|b| !b.actions.is_empty())
                .count();
        }
        assert!(
            scripted >= 7,
            "only {scripted} scripted bots in corpus/record"
        );
    }
}
