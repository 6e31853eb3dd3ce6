//! The server settings (`sv_*`) DDNet's game reads while it runs: what
//! moves, spawns, freezes, fires and joins teams differently when they
//! change. Each has its release's default, minimum and maximum
//! (`MACRO_CONFIG_INT` in 16.4's `src/engine/shared/config_variables.h`
//! and `src/game/variables.h`, in 20.1's
//! `src/engine/shared/config_variables.h`).
//!
//! A teehistorian header's `config` lists every server setting whose
//! value differs from its default, ints as `%d` (16.4
//! `teehistorian.cpp:WriteHeader` 134–143, 20.1 167–176), written after
//! the server's reset file and the map's settings ran. Settings this
//! module does not hold (`sv_name`, `sv_port`, ...) do not touch the
//! world and are skipped. The map's game and front layers change
//! `sv_old_laser`, `sv_endless_drag` and `sv_hit` (and tuning) after the
//! header was written: [`apply_map_tiles`].

use crate::simulation::Release;
use crate::simulation::console::{self, NotANumber};
use crate::simulation::physics::tuning::Tunings;
use serde::Serialize;
use std::fmt;

/// One setting: its names and limits in each release.
struct Setting {
    /// The `Config` field.
    field: &'static str,
    /// Its name in 16.4 and in 20.1 (`None`: the release lacks it).
    names: [Option<&'static str>; 2],
    /// The console's lower clamp.
    min: i32,
    /// The console's upper clamp in 16.4 and 20.1 (0: none).
    max: [i32; 2],
    /// `CFGFLAG_GAME`: 20.1 makes it read-only once the map is loaded.
    game: bool,
}

macro_rules! settings {
    ($(
        $(#[$doc:meta])*
        $field:ident: $n16:expr, $n20:expr;
        default $d16:expr, $d20:expr; range $min:expr, $m16:expr, $m20:expr; game $game:expr;
    )*) => {
        /// The server settings of a world, with their DDNet names in the
        /// docs (16.4's name after a slash where it differs).
        #[derive(Clone, Debug, PartialEq, Eq, Serialize)]
        pub struct Config {
            /// The release whose names, limits and console rules apply.
            #[serde(rename = "version")]
            pub release: Release,
            $( $(#[$doc])* pub $field: i32, )*
        }

        const SETTINGS: &[Setting] = &[
            $( Setting {
                field: stringify!($field),
                names: [$n16, $n20],
                min: $min,
                max: [$m16, $m20],
                game: $game,
            }, )*
        ];

        impl Config {
            fn slot(&self, field: &str) -> Option<i32> {
                match field {
                    $( stringify!($field) => Some(self.$field), )*
                    _ => None,
                }
            }

            fn slot_mut(&mut self, field: &str) -> Option<&mut i32> {
                match field {
                    $( stringify!($field) => Some(&mut self.$field), )*
                    _ => None,
                }
            }

            /// `release`'s defaults.
            pub fn new(release: Release) -> Config {
                let v = column(release);
                Config {
                    release,
                    $( $field: [$d16, $d20][v], )*
                }
            }
        }
    };
}

/// 16.4's `MAX_CLIENTS`, 20.1's `SERVER_MAX_CLIENTS`.
const CLIENTS: [i32; 2] = [64, 128];

settings! {
    /// `sv_freeze_delay`: seconds a freeze lasts (freeze tiles, hearts).
    sv_freeze_delay: Some("sv_freeze_delay"), Some("sv_freeze_delay");
    default 3, 3; range 1, 30, 30; game true;
    /// `sv_kill_delay`: seconds between two kills of a player.
    sv_kill_delay: Some("sv_kill_delay"), Some("sv_kill_delay");
    default 1, 1; range 0, 9999, 9999; game false;
    /// `sv_kill_protection`: minutes of race after which `/kill` and
    /// `Cl_Kill` are refused (0: never).
    sv_kill_protection: Some("sv_kill_protection"), Some("sv_kill_protection");
    default 20, 20; range 0, 9999, 9999; game false;
    /// `sv_no_weak_hook` / `sv_no_weak_hook_and_bounce`: every character's
    /// pre-tick before any tick (world tick order).
    sv_no_weak_hook: Some("sv_no_weak_hook_and_bounce"), Some("sv_no_weak_hook");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_teleport_hold_hook`: a hook survives a teleport.
    sv_teleport_hold_hook: Some("sv_teleport_hold_hook"), Some("sv_teleport_hold_hook");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_old_teleport_hook`: hooks pass through teleporters.
    sv_old_teleport_hook: Some("sv_old_teleport_hook"), Some("sv_old_teleport_hook");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_old_teleport_weapons`: projectiles and lasers pass through
    /// teleporters.
    sv_old_teleport_weapons: Some("sv_old_teleport_weapons"), Some("sv_old_teleport_weapons");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_teleport_lose_weapons`: a teleport takes weapons away.
    sv_teleport_lose_weapons: Some("sv_teleport_lose_weapons"), Some("sv_teleport_lose_weapons");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_endless_drag`: hooks on players never time out.
    sv_endless_drag: Some("sv_endless_drag"), Some("sv_endless_drag");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_endless_super_hook`: endless hook for super players.
    sv_endless_super_hook: Some("sv_endless_super_hook"), Some("sv_endless_super_hook");
    default 0, 0; range 0, 1, 1; game false;
    /// `sv_hit`: weapons hit other players.
    sv_hit: Some("sv_hit"), Some("sv_hit");
    default 1, 1; range 0, 1, 1; game true;
    /// `sv_old_laser`: the old laser rules (no self-hit, pull to the
    /// bounce origin).
    sv_old_laser: Some("sv_old_laser"), Some("sv_old_laser");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_team`: DDRace teams (0 off, 1 optional, 2 mandatory, 3 forced
    /// solo).
    sv_team: Some("sv_team"), Some("sv_team");
    default 1, 1; range 0, 3, 3; game true;
    /// `sv_solo_server`: no player interaction (read at map load; the
    /// tune zones follow it, see [`Tunings::from_header`]).
    sv_solo_server: Some("sv_solo_server"), Some("sv_solo_server");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_pauseable`: `/spec` spectates, the character leaving the
    /// world (else `/spec` is `/pause`, which holds its inputs).
    sv_pauseable: Some("sv_pauseable"), Some("sv_pauseable");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_pause_frequency` (`SvSpecFrequency`): seconds after a pause
    /// state change before a paused character may come back.
    sv_pause_frequency: Some("sv_pause_frequency"), Some("sv_pause_frequency");
    default 1, 1; range 0, 9999, 9999; game false;
    /// `sv_deepfly`: a deep-frozen character may still fire the hammer.
    sv_deepfly: Some("sv_deepfly"), Some("sv_deepfly");
    default 1, 1; range 0, 1, 1; game true;
    /// `sv_destroy_bullets_on_death`: a dead owner's projectiles vanish.
    sv_destroy_bullets_on_death: Some("sv_destroy_bullets_on_death"), Some("sv_destroy_bullets_on_death");
    default 1, 1; range 0, 1, 1; game true;
    /// `sv_destroy_lasers_on_death`: a dead owner's lasers vanish.
    sv_destroy_lasers_on_death: Some("sv_destroy_lasers_on_death"), Some("sv_destroy_lasers_on_death");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_dragger_range`: how far draggers reach.
    sv_dragger_range: Some("sv_dragger_range"), Some("sv_dragger_range");
    default 700, 700; range 1, 99999, 99999; game true;
    /// `sv_plasma_range`: how far plasma turrets aim.
    sv_plasma_range: Some("sv_plasma_range"), Some("sv_plasma_range");
    default 700, 700; range 1, 99999, 99999; game true;
    /// `sv_plasma_per_sec`: plasma turret shots per second.
    sv_plasma_per_sec: Some("sv_plasma_per_sec"), Some("sv_plasma_per_sec");
    default 3, 3; range 0, 50, 50; game true;
    /// `sv_reset_pickups`: the start tile takes weapons away.
    sv_reset_pickups: Some("sv_reset_pickups"), Some("sv_reset_pickups");
    default 0, 0; range 0, 1, 1; game true;
    /// `sv_rescue`: `/rescue` teleports out of freeze.
    sv_rescue: Some("sv_rescue"), Some("sv_rescue");
    default 0, 0; range 0, 1, 1; game false;
    /// `sv_rescue_delay`: seconds between two rescues.
    sv_rescue_delay: Some("sv_rescue_delay"), Some("sv_rescue_delay");
    default 1, 1; range 0, 1000, 1000; game false;
    /// `sv_practice`: teams may enter practice mode.
    sv_practice: Some("sv_practice"), Some("sv_practice");
    default 1, 1; range 0, 1, 1; game false;
    /// `sv_practice_by_default`: practice commands without `/practice`
    /// (20.1 only; 16.4 behaves as 0).
    sv_practice_by_default: None, Some("sv_practice_by_default");
    default 0, 0; range 0, 1, 1; game false;
    /// `sv_test_cmds`: the cheat commands (`super`, `tele`, weapons...).
    sv_test_cmds: Some("sv_test_cmds"), Some("sv_test_cmds");
    default 0, 0; range 0, 1, 1; game false;
    /// `sv_team_change_delay`: seconds between team changes.
    sv_team_change_delay: Some("sv_team_change_delay"), Some("sv_team_change_delay");
    default 3, 3; range 0, 9999, 9999; game false;
    /// `sv_spamprotection`: enforces the team change delay, among others.
    sv_spamprotection: Some("sv_spamprotection"), Some("sv_spamprotection");
    default 1, 1; range 0, 1, 1; game false;
    /// `sv_min_team_size`: smallest DDRace team that ranks.
    sv_min_team_size: Some("sv_min_team_size"), Some("sv_min_team_size");
    default 2, 2; range 1, CLIENTS[0], CLIENTS[1]; game true;
    /// `sv_max_team_size`: largest DDRace team one may join.
    sv_max_team_size: Some("sv_max_team_size"), Some("sv_max_team_size");
    default CLIENTS[0], CLIENTS[1]; range 1, CLIENTS[0], CLIENTS[1]; game true;
    /// `sv_rejoin_team_0`: a finished team goes back to team 0.
    sv_rejoin_team_0: Some("sv_rejoin_team_0"), Some("sv_rejoin_team_0");
    default 1, 1; range 0, 1, 1; game false;
    /// `sv_team0mode`: `/team0mode` (20.1 only; 16.4 has no such
    /// command, as 0).
    sv_team0mode: None, Some("sv_team0mode");
    default 0, 1; range 0, 1, 1; game false;
    /// `sv_tournament_mode`: players join as spectators.
    sv_tournament_mode: Some("sv_tournament_mode"), Some("sv_tournament_mode");
    default 0, 0; range 0, 1, 1; game false;
    /// `sv_spectator_slots`: slots kept for spectators (limits who may
    /// join the game).
    sv_spectator_slots: Some("sv_spectator_slots"), Some("sv_spectator_slots");
    default 0, 0; range 0, CLIENTS[0], CLIENTS[1]; game false;
    /// `sv_max_clients`: how many client ids exist.
    sv_max_clients: Some("sv_max_clients"), Some("sv_max_clients");
    default CLIENTS[0], CLIENTS[1]; range 1, CLIENTS[0], CLIENTS[1]; game false;
    /// `sv_savegames`: `/save` and `/load`.
    sv_savegames: Some("sv_savegames"), Some("sv_savegames");
    default 1, 1; range 0, 1, 1; game false;
    /// `sv_sql_queries_delay`: seconds between two database queries of a
    /// player (`/save`, `/load`, `/rank`, ...).
    sv_sql_queries_delay: Some("sv_sql_queries_delay"), Some("sv_sql_queries_delay");
    default 1, 1; range 0, 20, 20; game false;
    /// `sv_saveswapgames_delay`: seconds before `/load` or `/swap` work.
    sv_saveswapgames_delay: Some("sv_saveswapgames_delay"), Some("sv_saveswapgames_delay");
    default 30, 30; range 0, 10000, 10000; game false;
    /// `sv_saveswapgames_penalty`: seconds a save adds to the race's time.
    sv_saveswapgames_penalty: Some("sv_saveswapgames_penalty"), Some("sv_saveswapgames_penalty");
    default 60, 60; range 0, 10000, 10000; game false;
    /// `sv_swap`: `/swap` exchanges two players' characters.
    sv_swap: Some("sv_swap"), Some("sv_swap");
    default 1, 1; range 0, 1, 1; game false;
    /// `sv_inactivekick`: what happens to inactive players (0 spectate,
    /// 1 spectate or kick, 2 kick).
    sv_inactivekick: Some("sv_inactivekick"), Some("sv_inactivekick");
    default 0, 0; range 0, 2, 2; game false;
    /// `sv_inactivekick_time`: minutes before a player counts as
    /// inactive (0: never).
    sv_inactivekick_time: Some("sv_inactivekick_time"), Some("sv_inactivekick_time");
    default 0, 0; range 0, 1000, 1000; game false;
    /// `sv_high_bandwidth`: a snapshot every tick (16.4: else on even
    /// ticks only), and events in every one (20.1: else in the even
    /// ticks' "global" snapshots).
    sv_high_bandwidth: Some("sv_high_bandwidth"), Some("sv_high_bandwidth");
    default 0, 0; range 0, 1, 1; game false;
    /// `sv_emoticon_delay` / `sv_emoticon_ms_delay`: how long after an
    /// emoticon the next is ignored (16.4 in seconds, 20.1 in
    /// milliseconds).
    sv_emoticon_delay: Some("sv_emoticon_delay"), Some("sv_emoticon_ms_delay");
    default 3, 3000; range 0, 9999, 999_999_999; game false;
    /// `sv_shotgun_bullet_sound`: the map's exploding shotgun bullets
    /// sound when they explode.
    sv_shotgun_bullet_sound: Some("sv_shotgun_bullet_sound"), Some("sv_shotgun_bullet_sound");
    default 0, 0; range 0, 1, 1; game false;
    /// `sv_emotional_tees`: an emoticon sets the eyes too.
    sv_emotional_tees: Some("sv_emotional_tees"), Some("sv_emotional_tees");
    default 1, 1; range -1, 1, 1; game false;
}

/// The settings 20.1's server makes read-only for good at start
/// (`src/engine/server/main.cpp` 188–193) that this module holds.
const READ_ONLY_20_1: [&str; 3] = ["sv_max_clients", "sv_test_cmds", "sv_rescue"];

/// The index of `release` in the settings' pairs.
fn column(release: Release) -> usize {
    match release {
        Release::Ddnet16_4 => 0,
        Release::Ddnet20_1 => 1,
    }
}

/// Why settings could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// A header value of an int setting that is not an int.
    BadHeaderValue {
        /// The setting.
        name: String,
        /// The value as written.
        value: String,
    },
    /// A console argument the release's console would not have read as
    /// an int.
    BadNumber(NotANumber),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::BadHeaderValue { name, value } => {
                write!(f, "setting {name:?} has value {value:?}, not an int")
            }
            ConfigError::BadNumber(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<NotANumber> for ConfigError {
    fn from(e: NotANumber) -> Self {
        ConfigError::BadNumber(e)
    }
}

/// What a console command did to the settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ConfigApplied {
    /// It set a setting (possibly to what it was).
    Changed,
    /// A setting's command that changes nothing: without a value (it
    /// prints), a setting 20.1 holds read-only, or `toggle`/`reset` (they
    /// run `NAME VALUE` through the console, which records that line as
    /// a command of its own).
    NoEffect,
    /// Not a command of a setting held here.
    NotConfig,
}

impl Config {
    /// The settings from a header's `config` pairs: `release`'s defaults,
    /// with each listed setting this module holds set to its int.
    /// Settings it does not hold are skipped; a held one whose value is
    /// not an int is an error.
    pub fn from_header(
        release: Release,
        pairs: &[(String, String)],
    ) -> Result<Config, ConfigError> {
        let mut config = Config::new(release);
        for (name, value) in pairs {
            let Some(setting) = setting(release, name.as_bytes(), false) else {
                continue;
            };
            let v = value.parse().map_err(|_| ConfigError::BadHeaderValue {
                name: name.clone(),
                value: value.clone(),
            })?;
            if let Some(slot) = config.slot_mut(setting.field) {
                *slot = v;
            }
        }
        Ok(config)
    }

    /// A setting's value by its DDNet name in this release.
    pub fn get(&self, name: &str) -> Option<i32> {
        self.slot(setting(self.release, name.as_bytes(), false)?.field)
    }

    /// The DDNet names of the settings held for `release`, in this
    /// module's order.
    pub fn names(release: Release) -> impl Iterator<Item = &'static str> {
        SETTINGS
            .iter()
            .filter_map(move |s| s.names[column(release)])
    }

    /// A console command (a CONSOLE_COMMAND record's name and arguments)
    /// applied as the release's int setting command does (16.4
    /// `console.cpp:IntVariableCommand` 766–790, 20.1
    /// `config.cpp:SIntConfigVariable::CommandCallback` 40–68): the
    /// argument read as an int ([`console::int_arg`]), clamped to the
    /// setting's minimum and (non-zero) maximum when they differ. 20.1
    /// holds every game setting (`CFGFLAG_GAME`) read-only once the map
    /// has loaded (`gamecontext.cpp` 4238–4244), and `sv_max_clients`,
    /// `sv_test_cmds` and `sv_rescue` always; a command for them changes
    /// nothing. 16.4 has no read-only settings. The setting is found
    /// ignoring ASCII case, as the console finds commands.
    pub fn apply_console<A: std::ops::Deref<Target = [u8]>>(
        &mut self,
        command: &[u8],
        args: &[A],
    ) -> Result<ConfigApplied, ConfigError> {
        if command.eq_ignore_ascii_case(b"toggle") || command.eq_ignore_ascii_case(b"reset") {
            return Ok(ConfigApplied::NoEffect);
        }
        let v = column(self.release);
        let Some(setting) = setting(self.release, command, true) else {
            return Ok(ConfigApplied::NotConfig);
        };
        let Some(arg) = args.first() else {
            return Ok(ConfigApplied::NoEffect);
        };
        let read_only = self.release == Release::Ddnet20_1
            && (setting.game || setting.names[v].is_some_and(|n| READ_ONLY_20_1.contains(&n)));
        if read_only {
            return Ok(ConfigApplied::NoEffect);
        }
        let mut value = console::int_arg(self.release, arg)?;
        let max = setting.max[v];
        if setting.min != max {
            if value < setting.min {
                value = setting.min;
            }
            if max != 0 && value > max {
                value = max;
            }
        }
        if let Some(slot) = self.slot_mut(setting.field) {
            *slot = value;
        }
        Ok(ConfigApplied::Changed)
    }
}

/// The setting `name` names in `release` (ASCII case ignored when
/// `nocase`).
fn setting(release: Release, name: &[u8], nocase: bool) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| {
        s.names[column(release)].is_some_and(|n| {
            if nocase {
                n.as_bytes().eq_ignore_ascii_case(name)
            } else {
                n.as_bytes() == name
            }
        })
    })
}

/// A header's settings, written by a `from` server, as a `to` server
/// names them: a setting `to` lacks, or `from` does not know, is left
/// out (the `to` server keeps its default).
pub fn rename(from: Release, to: Release, pairs: &[(String, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter_map(|(name, value)| {
            let to_name = setting(from, name.as_bytes(), false)?.names[column(to)]?;
            Some((to_name.to_owned(), value.clone()))
        })
        .collect()
}

/// `TILE_OLDLASER`: sets `sv_old_laser`.
pub const TILE_OLDLASER: u8 = 71;
/// `TILE_NPC`: global `player_collision` 0.
pub const TILE_NPC: u8 = 72;
/// `TILE_EHOOK`: sets `sv_endless_drag`.
pub const TILE_EHOOK: u8 = 73;
/// `TILE_NOHIT`: clears `sv_hit`.
pub const TILE_NOHIT: u8 = 74;
/// `TILE_NPH`: global `player_hooking` 0.
pub const TILE_NPH: u8 = 75;

/// What the map's tiles change when it loads, after the header was
/// written: for each tile index of the game layer and of the front layer
/// (both releases look at both: 16.4 `gamecontext.cpp` 3436–3500, 20.1
/// `CreateAllEntities` 4355–4430; the order does not matter, every
/// effect sets a fixed value), `TILE_OLDLASER` (71) sets
/// `sv_old_laser` 1, `TILE_NPC` (72) the global `player_collision` 0,
/// `TILE_EHOOK` (73) `sv_endless_drag` 1, `TILE_NOHIT` (74) `sv_hit` 0
/// and `TILE_NPH` (75) the global `player_hooking` 0. Only the global
/// tuning changes, not the tune zones'; 20.1 writes the settings past
/// their read-only state. Returns how many tiles had an effect.
pub fn apply_map_tiles(
    config: &mut Config,
    tunings: &mut Tunings,
    tiles: impl IntoIterator<Item = u8>,
) -> usize {
    let mut applied = 0;
    for tile in tiles {
        let hit = match tile {
            TILE_OLDLASER => {
                config.sv_old_laser = 1;
                true
            }
            TILE_NPC => tunings
                .global_mut()
                .set_float(b"player_collision", 0.0)
                .is_ok(),
            TILE_EHOOK => {
                config.sv_endless_drag = 1;
                true
            }
            TILE_NOHIT => {
                config.sv_hit = 0;
                true
            }
            TILE_NPH => tunings
                .global_mut()
                .set_float(b"player_hooking", 0.0)
                .is_ok(),
            _ => false,
        };
        applied += usize::from(hit);
    }
    applied
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulation::physics::tuning::Tuning;
    use Release::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|&(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn apply(c: &mut Config, line: &str) -> Result<ConfigApplied, ConfigError> {
        let mut words = line.split(' ');
        let command = words.next().unwrap_or("");
        let args: Vec<&[u8]> = words.map(str::as_bytes).collect();
        c.apply_console(command.as_bytes(), &args)
    }

    #[test]
    fn defaults_follow_the_version() {
        let old = Config::new(Ddnet16_4);
        let new = Config::new(Ddnet20_1);
        assert_eq!((old.sv_freeze_delay, new.sv_freeze_delay), (3, 3));
        assert_eq!((old.sv_kill_protection, new.sv_kill_protection), (20, 20));
        assert_eq!((old.sv_hit, old.sv_team, old.sv_deepfly), (1, 1, 1));
        assert_eq!((old.sv_max_team_size, new.sv_max_team_size), (64, 128));
        assert_eq!((old.sv_team0mode, new.sv_team0mode), (0, 1));
        let old_names: Vec<_> = Config::names(Ddnet16_4).collect();
        let new_names: Vec<_> = Config::names(Ddnet20_1).collect();
        assert!(old_names.contains(&"sv_no_weak_hook_and_bounce"));
        assert!(!old_names.contains(&"sv_no_weak_hook"));
        assert!(new_names.contains(&"sv_no_weak_hook"));
        assert!(!old_names.contains(&"sv_practice_by_default"));
        assert_eq!(new_names.len(), old_names.len() + 2);
    }

    #[test]
    fn the_16_4_corpus_header() {
        // join_move_leave's config (its ints; strings are skipped).
        let header = pairs(&[
            ("sv_motd", "Testserver with DDraceNetwork Features!"),
            ("sv_rescue", "1"),
            ("sv_rescue_delay", "5"),
            ("sv_name", "My DDNet server"),
            ("sv_port", "8303"),
            ("sv_test_cmds", "1"),
            ("sv_team", "0"),
            ("sv_show_others_default", "1"),
        ]);
        let c = Config::from_header(Ddnet16_4, &header).expect("ints");
        assert_eq!((c.sv_rescue, c.sv_rescue_delay), (1, 5));
        assert_eq!((c.sv_test_cmds, c.sv_team), (1, 0));
        assert_eq!(c.sv_freeze_delay, 3);
        assert_eq!(c.get("sv_team"), Some(0));
        assert_eq!(c.get("sv_name"), None);
        let bad = Config::from_header(Ddnet16_4, &pairs(&[("sv_team", "x")]));
        assert!(matches!(bad, Err(ConfigError::BadHeaderValue { .. })));
    }

    #[test]
    fn the_weak_hook_setting_has_each_versions_name() {
        let old = Config::from_header(Ddnet16_4, &pairs(&[("sv_no_weak_hook_and_bounce", "1")]))
            .expect("int");
        assert_eq!(old.sv_no_weak_hook, 1);
        let new = Config::from_header(Ddnet20_1, &pairs(&[("sv_no_weak_hook", "1")])).expect("int");
        assert_eq!(new.sv_no_weak_hook, 1);
        // The other release's name is not this release's setting.
        let new = Config::from_header(Ddnet20_1, &pairs(&[("sv_no_weak_hook_and_bounce", "1")]))
            .expect("skipped");
        assert_eq!(new.sv_no_weak_hook, 0);
    }

    #[test]
    fn console_sets_clamp_and_20_1_game_settings_stay() {
        let mut old = Config::new(Ddnet16_4);
        assert_eq!(apply(&mut old, "sv_hit 0"), Ok(ConfigApplied::Changed));
        assert_eq!(old.sv_hit, 0);
        apply(&mut old, "sv_freeze_delay 99").expect("int");
        assert_eq!(old.sv_freeze_delay, 30);
        apply(&mut old, "SV_FREEZE_DELAY -4").expect("int");
        assert_eq!(old.sv_freeze_delay, 1);
        apply(&mut old, "sv_kill_delay 5x").expect("16.4 reads the prefix");
        assert_eq!(old.sv_kill_delay, 5);
        let mut new = Config::new(Ddnet20_1);
        assert_eq!(apply(&mut new, "sv_hit 0"), Ok(ConfigApplied::NoEffect));
        assert_eq!(new.sv_hit, 1);
        assert_eq!(
            apply(&mut new, "sv_test_cmds 1"),
            Ok(ConfigApplied::NoEffect)
        );
        assert_eq!(
            apply(&mut new, "sv_kill_delay 5"),
            Ok(ConfigApplied::Changed)
        );
        assert_eq!(new.sv_kill_delay, 5);
        assert!(matches!(
            apply(&mut new, "sv_kill_delay 5x"),
            Err(ConfigError::BadNumber(_))
        ));
        assert_eq!(
            apply(&mut new, "sv_kill_delay"),
            Ok(ConfigApplied::NoEffect)
        );
        assert_eq!(
            apply(&mut new, "toggle sv_kill_delay 1 2"),
            Ok(ConfigApplied::NoEffect)
        );
        assert_eq!(
            apply(&mut new, "tune gravity 1"),
            Ok(ConfigApplied::NotConfig)
        );
    }

    #[test]
    fn map_tiles_change_settings_and_global_tuning() {
        for release in [Ddnet16_4, Ddnet20_1] {
            let mut config = Config::new(release);
            let mut tunings = Tunings::new(release, Tuning::ddrace(release));
            let applied = apply_map_tiles(
                &mut config,
                &mut tunings,
                [
                    0,
                    1,
                    TILE_NPC,
                    TILE_NPH,
                    TILE_EHOOK,
                    TILE_NOHIT,
                    TILE_OLDLASER,
                    192,
                ],
            );
            assert_eq!(applied, 5);
            assert_eq!(tunings.global().player_collision(), 0.0);
            assert_eq!(tunings.global().player_hooking(), 0.0);
            assert_eq!(tunings.zone(3).player_collision(), 1.0);
            assert_eq!(
                (config.sv_endless_drag, config.sv_hit, config.sv_old_laser),
                (1, 0, 1)
            );
        }
    }
}
