//! A scenario file (`corpus/record/*.ron`) and its checks, all made
//! before anything starts: a scenario that cannot run is bad usage.

use super::super::Failure;
use super::super::output::shown;
use serde::Deserialize;
use std::path::{Path, PathBuf};
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
#[derive(Debug, Deserialize)]
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
}

#[derive(Debug, Deserialize)]
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
        if let Some(map) = &self.map {
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
fn map_dirs(server: &Path, flavor: Flavor) -> Vec<PathBuf> {
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
}
