//! The map arguments of the commands that simulate: `--map FILE` (a map
//! file, or a demo whose embedded map is taken) and `--maps DIR` (folders
//! where teehistorian files' maps are looked for by checksum).

use super::Failure;
use super::output::{read, shown};
use std::path::{Path, PathBuf};
use teeoracle::map::{Datafile, MapBytes};
use teeoracle::simulation::physics::collision::Collision;
use teeoracle::simulation::{Lookup, LookupError, Maps};

/// The maps teehistorian files may be simulated on ([`Maps::for_walk`];
/// `walked`: the demos under `dirs` are maps only): a folder of `--maps`
/// that cannot be walked is bad usage.
pub(crate) fn maps_for(
    files: &[(PathBuf, bool)],
    dirs: &[PathBuf],
    walked: bool,
) -> Result<Maps, Failure> {
    Maps::for_walk(files, dirs, walked).map_err(|e| Failure::Usage(format!("--maps {e}")))
}

/// The collision of `--map FILE`.
pub(crate) fn collision_of(path: &Path) -> Result<Collision, Failure> {
    teeoracle::simulation::collision_of_file(&read(path)?)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))
}

/// The collision of the map `file`'s header names, found among the maps
/// and demos beside it and under `dirs`; not found is a failure (the
/// simulation asked for cannot run).
pub(crate) fn collision_found(file: &Path, dirs: &[PathBuf]) -> Result<Collision, Failure> {
    let bytes = read(file)?;
    match teeoracle::simulation::lookup(file, &bytes, dirs) {
        Ok(Lookup::Found(col)) => Ok(*col),
        Ok(Lookup::NotAmong { maps }) => Err(Failure::bad(format!(
            "{}: the map the header names (map_sha256) is not among the {maps} maps beside it or under --maps: give --map MAP or --maps DIR",
            shown(file),
        ))),
        Err(LookupError::Walk(e)) => Err(Failure::Usage(format!("--maps {e}"))),
        Err(LookupError::Simulate(e)) => Err(Failure::bad(format!("{}: {e}", shown(file)))),
    }
}

/// `--map FILE`'s map bytes (a map file, or the map a demo embeds),
/// checked to decode, and the cap on its blocks' inflated bytes.
pub(crate) fn map_bytes_of(path: &Path) -> Result<(Vec<u8>, u64), Failure> {
    let bytes = read(path)?;
    let bad = |e: String| Failure::bad(format!("{}: {e}", shown(path)));
    let found = MapBytes::find(&bytes).map_err(|e| bad(e.to_string()))?;
    let map = found.of(&bytes);
    if let Err(e) = Datafile::decode(map) {
        return Err(bad(match found.embedded {
            true => format!(
                "in the map the demo embeds at byte {}: {e}",
                found.range.start
            ),
            false => e.to_string(),
        }));
    }
    let cap = teeoracle::compression::default_max_decompressed(map.len() as u64);
    Ok((map.to_vec(), cap))
}
