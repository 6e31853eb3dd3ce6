//! The world a teehistorian header describes: which release recorded it,
//! its settings, tuning and random generator, on the map it names.

use super::Release;
use super::SimulateError;
use super::ddrace::World;
use super::ddrace::config::{self, Config, apply_map_tiles};
use super::error::HeaderError;
use super::physics::collision::Collision;
use super::physics::prng::Prng;
use super::physics::tuning::{self, Tunings};
use crate::teehistorian::Header;

/// The world a teehistorian header describes, on `col`, at `tick`: the
/// server's rules (`server_version`, or `physics` instead), settings and
/// tuning (then the map's tiles that change them, as DDNet's loader does
/// after writing the header) and the random generator
/// (`prng_description`).
pub fn world_of(
    header: &Header,
    col: Collision,
    tick: i32,
    physics: Option<Release>,
) -> Result<World, SimulateError> {
    world_tuned(header, col, tick, physics, &[])
}

/// [`world_of`] with tuning parameters changed after the header's
/// (`tune`: names and values as `tune NAME VALUE` takes them), as a
/// server whose config ran those commands would start: before the map's
/// tiles. The file's own tuning commands still apply as recorded.
pub fn world_tuned(
    header: &Header,
    col: Collision,
    tick: i32,
    physics: Option<Release>,
    tune: &[(String, String)],
) -> Result<World, SimulateError> {
    let info = &header.info;
    let recorded = recorded_release(header)?;
    let release = physics.unwrap_or(recorded);
    let bad = SimulateError::Header;
    // Another release's server reads the same settings by their names
    // there: a setting it lacks is left at its default.
    let config_pairs = config::rename(recorded, release, &info.config);
    let mut config =
        Config::from_header(release, &config_pairs).map_err(|e| bad(HeaderError::Config(e)))?;
    let tuning_pairs: Vec<(String, String)> = info
        .tuning
        .iter()
        .filter(|(name, _)| {
            release == recorded
                || tuning::param_names(release).any(|n| n.eq_ignore_ascii_case(name))
        })
        .cloned()
        .collect();
    let mut tunings = Tunings::from_header(release, &tuning_pairs, config.sv_solo_server != 0)
        .map_err(|e| bad(HeaderError::Tuning(e)))?;
    let opened = map_settings(release, col.map_settings(), &mut tunings);
    for (name, value) in tune {
        (tunings.global_mut().set(name, value)).map_err(SimulateError::Tune)?;
    }
    apply_map_tiles(&mut config, &mut tunings, col.game_and_front_indices());
    let prng = match info.prng_description.as_deref() {
        Some(d) => Prng::from_description(d).map_err(|e| bad(HeaderError::Prng(e)))?,
        None => None,
    };
    let mut world = World::new(release, col, config, tunings, tick);
    world.cores.prng = prng;
    world.carried_over = info.prev_game_uuid.is_some();
    for number in opened {
        world.cores.switchers.open_by_default(number);
    }
    // Settings that change physics and that the model does not read:
    // nobody is judged.
    for setting in super::coverage::start_settings(release, &config_pairs) {
        world.unmodelled_everybody(&format!("{setting} (the header's config)"));
    }
    Ok(world)
}

/// What the map's settings (`LoadMapSettings`, which ran before the
/// header was written) leave that the header does not record: the tune
/// zones' tunings (`tune_zone`, `tune_zone_reset`; the global tuning the
/// header has already) into `tunings`, and the switches `switch_open`
/// makes open by default, returned. A line the console would refuse
/// changes nothing, as there.
fn map_settings(release: Release, lines: &[Vec<u8>], tunings: &mut Tunings) -> Vec<i32> {
    let mut zones = tunings.clone();
    let mut opened = Vec::new();
    for line in lines {
        for words in super::console::split_line(line) {
            let Some((name, args)) = words.split_first() else {
                continue;
            };
            if name.eq_ignore_ascii_case(b"switch_open") {
                if let Some(n) = args.first() {
                    opened.extend(super::console::int_arg(release, n).ok());
                }
            } else if name.eq_ignore_ascii_case(b"tune_zone")
                || name.eq_ignore_ascii_case(b"tune_zone_reset")
            {
                let _ = zones.apply_console(name, args);
            }
        }
    }
    tunings.take_zones(&zones);
    opened
}

/// The DDNet release whose server wrote the file (its physics is the
/// one the file's positions follow).
pub fn recorded_release(header: &Header) -> Result<Release, SimulateError> {
    let server = header.info.server_version.clone().unwrap_or_default();
    Release::of_server(&server).ok_or(SimulateError::UnknownServer(server))
}
